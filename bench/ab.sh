#!/bin/bash
# run A/B: two sbio builds side by side on the cells where the hot path shows (null engine;
# 4 KiB random reads from the page cache by sync, libaio and io_uring at depth 16; sequential
# reads), interleaved (A B, A B, … each cell in turn), one cached file held in memory by
# bench/mlockfile for the whole run. Rates are each build's own reads/s.
#   A=/path/to/sbio-before B=./sbio ROUNDS=7 SECS=3 DIR=/var/tmp ./bench/ab.sh
# Prints each run, then per cell the median and min–max of B/A per round (the two runs of a
# round ran back to back, so the ratio is the least disturbed by others' load).
set -eu
export LC_ALL=C
cd "$(dirname "$0")/.."
A=${A:?A=path of the first sbio}
B=${B:?B=path of the second sbio}
ROUNDS=${ROUNDS:-7}
SECS=${SECS:-3}
W=$(mktemp -d "${DIR:-/var/tmp}/sbio-ab.XXXXXX")
LOCKPID=
finish() {
	[ -n "$LOCKPID" ] && kill "$LOCKPID" 2>/dev/null && wait "$LOCKPID" 2>/dev/null
	"$A" cleanup --dir="$W" >/dev/null 2>&1 || true
	rm -rf "$W"
}
trap finish EXIT
mkdir -p build/bench
gcc -O2 -Wall -Wextra -Werror -o build/bench/mlockfile bench/mlockfile.c
"$A" prepare --dir="$W" --file-num=1 --file-total-size=256M --file-block-size=4K >/dev/null
build/bench/mlockfile "$W/test_file.0" "$W/locked" &
LOCKPID=$!
for _ in $(seq 100); do
	[ -e "$W/locked" ] && break
	kill -0 "$LOCKPID" 2>/dev/null || { echo "ab.sh: mlockfile failed" >&2; exit 1; }
	sleep 0.1
done
[ -e "$W/locked" ] || { echo "ab.sh: the file was not locked in 10 s" >&2; exit 1; }
COMMON="--dir=$W --file-num=1 --file-total-size=256M --file-block-size=4K --time=$SECS"
cell_args() {
	case $1 in
	null) echo "--ioengine=null --file-test-mode=rndrd" ;;
	sync) echo "--ioengine=sync --file-test-mode=rndrd" ;;
	libaio) echo "--ioengine=libaio --iodepth=16 --file-test-mode=rndrd" ;;
	io_uring) echo "--ioengine=io_uring --iodepth=16 --file-test-mode=rndrd" ;;
	seqrd) echo "--ioengine=sync --file-test-mode=seqrd" ;;
	esac
}
CELLS=${CELLS:-null sync libaio io_uring seqrd}
rate() { # binary cell
	# shellcheck disable=SC2046
	"$1" run $COMMON $(cell_args "$2") | awk '/reads\/s:/ { print $2; exit }'
}
for r in $(seq "$ROUNDS"); do
	for c in $CELLS; do
		for t in A B; do
			v=$(rate "$([ $t = A ] && echo "$A" || echo "$B")" "$c")
			echo "$r $c $t $v" | tee -a "$W/rates"
		done
	done
done
stats() { sort -n | awk '{ a[NR] = $1 } END { printf "%.3f (%.3f–%.3f)\n", a[int((NR + 1) / 2)], a[1], a[NR] }'; }
for c in $CELLS; do
	printf '%-9s B/A per round: ' "$c"
	awk -v c="$c" '$2 == c { v[$1 " " $3] = $4 } END { for (r = 1; r <= '"$ROUNDS"'; r++) print v[r " B"] / v[r " A"] }' "$W/rates" | stats
done
