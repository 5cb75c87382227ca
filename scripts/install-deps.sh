#!/bin/sh
# Install the Debian packages sbio builds and tests with, when missing.
# Non-interactive; does nothing (not even apt-get update) when all are present.
set -eu

PKGS="build-essential pkg-config libluajit-5.1-dev luajit libaio-dev liburing-dev \
libcmocka-dev libjansson-dev strace fiu-utils util-linux e2fsprogs procps gnuplot-nox \
clang clang-format libclang-rt-14-dev llvm libopenmpi-dev openmpi-bin python3"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
# Extra packages asked for by callers (make bench: fio sysbench; plots: gnuplot-nox).
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "sbio: missing Debian packages:$missing; run as root or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "sbio: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
