#!/bin/sh
# make run: prepare a small file set in a temporary folder, run a default workload on it,
# clean up. Argument: the sbio binary.
set -eu
SBIO=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DIR=$(mktemp -d "${TMPDIR:-/tmp}/sbio-demo.XXXXXX")
trap 'rm -rf "$DIR"' EXIT INT TERM
echo "== sbio demo in $DIR"
"$SBIO" prepare --dir="$DIR" --file-num=4 --file-total-size=64M
"$SBIO" run --dir="$DIR" --file-num=4 --file-total-size=64M --file-test-mode=rndrw \
	--threads=2 --time=3 --report-interval=1
"$SBIO" cleanup --dir="$DIR"
