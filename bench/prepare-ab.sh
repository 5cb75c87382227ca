#!/bin/bash
# prepare A/B: two sbio builds' prepare of 1 GiB (one file, 1 MiB blocks) against dd creating
# the file, interleaved (A B dd, A B dd, …), each run after the previous file is deleted and
# sync'ed. Rates are each tool's own: sbio's "bytes written in … seconds" line (creation to
# the file's fsync), dd's "copied" line (conv=fsync).
#   A=/path/to/sbio B=/path/to/other/sbio ROUNDS=11 DIR=/var/tmp ./bench/prepare-ab.sh
# Prints each run, then per tool the median and min–max, and per round the ratios A/dd,
# B/dd and B/A (median and min–max).
set -eu
export LC_ALL=C
A=${A:?A=path of the first sbio}
B=${B:?B=path of the second sbio}
ROUNDS=${ROUNDS:-11}
W=$(mktemp -d "${DIR:-/var/tmp}/sbio-prepare-ab.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir "$W/p"
sbio_rate() { "$1" prepare --dir="$W/p" --file-num=1 --file-total-size=1G --file-block-size=1M |
	sed -n 's/.*(\([0-9.]*\) MiB\/sec).*/\1/p'; }
dd_rate() { dd if=/dev/zero of="$W/p/dd" bs=1M count=1024 conv=fsync 2>&1 |
	awk '/copied/ { printf "%.2f\n", $1 / $(NF - 3) / 1048576 }'; }
for r in $(seq "$ROUNDS"); do
	for t in A B dd; do
		rm -f "$W"/p/*
		sync
		case $t in
		A) v=$(sbio_rate "$A") ;;
		B) v=$(sbio_rate "$B") ;;
		dd) v=$(dd_rate) ;;
		esac
		echo "$r $t $v" | tee -a "$W/rates"
	done
done
stats() { sort -n | awk '{ a[NR] = $1 } END { printf "%.3f (%.3f–%.3f)\n", a[int((NR + 1) / 2)], a[1], a[NR] }'; }
for t in A B dd; do
	printf '%s MiB/s: ' "$t"
	awk -v t="$t" '$2 == t { print $3 }' "$W/rates" | stats
done
for p in "A dd" "B dd" "B A"; do
	set -- $p
	printf '%s / %s per round: ' "$1" "$2"
	awk -v x="$1" -v y="$2" '{ v[$1 " " $2] = $3 } END { for (r = 1; r <= '"$ROUNDS"'; r++) print v[r " " x] / v[r " " y] }' "$W/rates" | stats
done
