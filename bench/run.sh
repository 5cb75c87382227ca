#!/bin/bash
# make bench: sbio against the system-call floor, sysbench and fio, side by side in one
# run, interleaved (A B C … A B C …), ROUNDS rounds, medians and min-max, as ratios.
# The machine is shared and noisy: read the ratios, not the absolute numbers.
#   ROUNDS (5), SECS per measurement (3), BENCH_DIR (a folder on a real disk).
set -eu
cd "$(dirname "$0")/.."
SBIO=$PWD/sbio
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
DIR=$(mktemp -d "${BENCH_DIR:-/var/tmp}/sbio-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
gcc -O2 -Wall -Wextra -Werror -pthread -o "$DIR/floor" bench/floor.c
F=$DIR/test_file.0
SET="--dir=$DIR --file-num=1 --file-total-size=256M --file-block-size=4K"
"$SBIO" prepare $SET >/dev/null

warm() { # the file must be in the page cache right before each run (idle pages go cold)
	cat "$F" >/dev/null
	local pages res
	res=$(fincore -nb -o PAGES,SIZE "$F" | awk '{print $1 * 4096 / $2}')
	awk -v r="$res" 'BEGIN { exit !(r >= 0.99) }' || echo "warning: $F only $res cached" >&2
}

# Each tool's own reported rate.
m_floor1() { warm; "$DIR/floor" "$F" "$SECS" 4096 1; }
m_floor2() { warm; "$DIR/floor" "$F" "$SECS" 4096 2; }
m_sbio1() { warm; "$SBIO" run $SET --file-test-mode=rndrd --time="$SECS" --threads=1 | awk '/reads\/s:/ {print $2}'; }
m_sbio2() { warm; "$SBIO" run $SET --file-test-mode=rndrd --time="$SECS" --threads=2 | awk '/reads\/s:/ {print $2}'; }
m_sysbench1() { warm; (cd "$DIR" && sysbench fileio --file-num=1 --file-total-size=256M --file-block-size=4096 \
	--file-test-mode=rndrd --file-fsync-freq=0 --time="$SECS" --threads=1 run) | awk '/reads\/s:/ {print $2}'; }
m_sysbench2() { warm; (cd "$DIR" && sysbench fileio --file-num=1 --file-total-size=256M --file-block-size=4096 \
	--file-test-mode=rndrd --file-fsync-freq=0 --time="$SECS" --threads=2 run) | awk '/reads\/s:/ {print $2}'; }
m_fio1() { warm; fio --name=r --filename="$F" --rw=randread --bs=4k --ioengine=psync --invalidate=0 \
	--time_based --runtime="$SECS" --output-format=terse --terse-version=3 | cut -d';' -f8; }
m_sbionull() { "$SBIO" run $SET --file-test-mode=rndrd --ioengine=null --time="$SECS" | awk '/reads\/s:/ {print $2}'; }
m_fionull() { fio --name=n --ioengine=null --rw=randread --bs=4k --size=256M --time_based \
	--runtime="$SECS" --output-format=terse --terse-version=3 | cut -d';' -f8; }

# Queued engines, 4 KiB random reads, 1 thread: sbio vs fio at the same depth, buffered
# (page cache) and O_DIRECT (the disk: device-bound, expect equality within noise).
sbio_q() { # engine depth [extra flags]
	local flags=${3:+--file-extra-flags=$3}
	[ -z "${3:-}" ] && warm
	"$SBIO" run $SET --file-test-mode=rndrd --time="$SECS" --ioengine="$1" --iodepth="$2" $flags | awk '/reads\/s:/ {print $2}'
}
fio_q() { # engine depth direct(0/1)
	[ "$3" = 0 ] && warm
	fio --name=q --filename="$F" --rw=randread --bs=4k --ioengine="$1" --iodepth="$2" --direct="$3" \
		--invalidate=0 --time_based --runtime="$SECS" --output-format=terse --terse-version=3 | cut -d';' -f8
}
m_sbio_aio16() { sbio_q libaio 16; }
m_fio_aio16() { fio_q libaio 16 0; }
m_sbio_uring16() { sbio_q io_uring 16; }
m_fio_uring16() { fio_q io_uring 16 0; }
m_sbio_aio32() { sbio_q libaio 32; }
m_fio_aio32() { fio_q libaio 32 0; }
m_sbio_uring32() { sbio_q io_uring 32; }
m_fio_uring32() { fio_q io_uring 32 0; }
m_sbio_aio32d() { sbio_q libaio 32 direct; }
m_fio_aio32d() { fio_q libaio 32 1; }
m_sbio_uring32d() { sbio_q io_uring 32 direct; }
m_fio_uring32d() { fio_q io_uring 32 1; }

TOOLS=${TOOLS:-"floor1 sbio1 sysbench1 fio1 floor2 sbio2 sysbench2 sbionull fionull sbio_aio16 fio_aio16 sbio_uring16 fio_uring16 sbio_aio32 fio_aio32 sbio_uring32 fio_uring32 sbio_aio32d fio_aio32d sbio_uring32d fio_uring32d"}
declare -A R
for r in $(seq "$ROUNDS"); do
	for t in $TOOLS; do
		v=$(m_$t)
		R[$t]="${R[$t]:-} $v"
		echo "round $r $t $v" >&2
	done
done

median() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
med() { local v=${R[$1]:-}; if [ -n "$v" ]; then median $v; else echo 1; fi; }
minmax() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.0f–%.0f", lo, hi}'; }

echo
echo "Medians of $ROUNDS interleaved rounds, $SECS s each, 4 KiB random reads of a 256 MiB file in the page cache ($(date -u +%F), $(uname -r), $(nproc) CPUs)"
echo
echo "| measurement | ops/s median | min–max | ratio |"
echo "|---|---:|---:|---|"
f1=$(med floor1); f2=$(med floor2); s1=$(med sbio1)
row() { [ -n "${R[$2]:-}" ] || return 0; printf '| %s | %.0f | %s | %s |\n' "$1" "$(med $2)" "$(minmax ${R[$2]})" "$3"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
row "floor, 1 thread" floor1 "1.000× floor"
row "sbio sync, 1 thread" sbio1 "$(ratio "$s1" "$f1")× floor"
row "sysbench rndrd, 1 thread" sysbench1 "$(ratio "$(med sysbench1)" "$f1")× floor; sbio/sysbench $(ratio "$s1" "$(med sysbench1)")"
row "fio psync, 1 thread" fio1 "$(ratio "$(med fio1)" "$f1")× floor; sbio/fio $(ratio "$s1" "$(med fio1)")"
row "floor, 2 threads" floor2 "$(ratio "$f2" "$f1")× floor 1 thread"
row "sbio sync, 2 threads" sbio2 "$(ratio "$(med sbio2)" "$f2")× floor 2 threads; $(ratio "$(med sbio2)" "$s1")× sbio 1 thread"
row "sysbench rndrd, 2 threads" sysbench2 "$(ratio "$(med sysbench2)" "$(med sysbench1)")× sysbench 1 thread"
row "sbio null engine, 1 thread" sbionull "$(ratio "$(med sbionull)" "$(med fionull)")× fio null; $(awk -v v="$(med sbionull)" 'BEGIN{printf "%.0f", 1e9/v}') ns/op"
row "fio null engine, 1 thread" fionull "$(awk -v v="$(med fionull)" 'BEGIN{printf "%.0f", 1e9/v}') ns/op"
for q in aio16 uring16 aio32 uring32 aio32d uring32d; do
	[ -n "${R[sbio_$q]:-}" ] || continue
	row "sbio ${q}" "sbio_$q" "$(ratio "$(med sbio_$q)" "$(med fio_$q)")× fio"
	row "fio ${q}" "fio_$q" ""
done
