#!/bin/sh
# Install the Debian packages sbio needs, when missing. Non-interactive; does nothing (not
# even apt-get update) when all are present.
#   install-deps.sh            what building and running need (make, make run, make install)
#   install-deps.sh --test     that and the test toolchain (make test, test-asan, test-tsan,
#                              fuzz, format-check)
#   install-deps.sh PKG…       that and the packages named (make bench: fio sysbench; make
#                              experiments: fio sysbench bonnie++ fsmark postmark python3)
set -eu

# Building: the compiler, pkg-config, LuaJIT (headers, and luajit -b for the prelude),
# libaio, liburing and jansson. Running needs nothing more (plot runs gnuplot, and says which
# package to install when it is missing).
PKGS="build-essential pkg-config libluajit-5.1-dev luajit libaio-dev liburing-dev \
libjansson-dev"
# Testing: cmocka; strace, fiu-utils, loop devices and ext4 (util-linux, e2fsprogs), procps,
# gnuplot and python3 for the integration scripts; Open MPI for the MPI build and its test;
# clang, its sanitizer runtimes and llvm-symbolizer for test-asan, test-tsan and fuzz;
# clang-format; sysbench, which tests/integration/sysbench_suite.sh runs beside sbio, and gdb,
# with which tests/integration/sysbench_doc.sh counts sysbench's lock calls; fio, fsmark and
# postmark, whose cells tests/integration/samework.sh runs beside sbio's workloads; chromium,
# in which tests/integration/html.sh opens plot's HTML reports headless.
TEST_PKGS="libcmocka-dev strace fiu-utils util-linux e2fsprogs procps gnuplot-nox python3 \
libopenmpi-dev openmpi-bin clang clang-format libclang-rt-14-dev llvm sysbench gdb fio fsmark \
postmark chromium"

if [ "${1:-}" = --test ]; then
	shift
	PKGS="$PKGS $TEST_PKGS"
fi

missing=""
for p in $PKGS "$@"; do
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
