#!/bin/bash
# make bench: sbio against the system-call floor, sysbench, fio and dd, side by side in one
# run, interleaved (A B C … A B C …), ROUNDS rounds, medians and min–max, as ratios (of the
# medians, and per round: the tools of one round ran back to back, so a round's ratio is the
# least disturbed by the load of others on a shared machine).
#   ROUNDS (5), SECS per timed measurement (3), BENCH_DIR (a folder on a real disk, /var/tmp),
#   TOOLS (the cells to run, in this order; default: all but rss60; a group's name runs its
#   cells: reads, queued, writes, rss, zram, stat — TOOLS=zram runs only the fast-device cells),
#   LONG=1 adds rss60 (sbio's peak RSS over a 60 s run, measured in the first round only).
#   SBIO (the binary to measure, ./sbio), RETRIES (3: runs again a page-cache run whose
#   file was evicted during it).
#   ZRAM_SIZE (1G): the zram device of the fast-device cells.
# Needs fio, sysbench, fincore (util-linux) and gcc: `make bench` installs what is missing;
# the fast-device cells need zram and zramctl (skipped with a note where they are missing).
set -eu
export LC_ALL=C
cd "$(dirname "$0")/.."
SBIO=${SBIO:-$PWD/sbio}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
LONG=${LONG:-0}
ZRAM_SIZE=${ZRAM_SIZE:-1G}
RETRIES=${RETRIES:-3}
DIR=$(mktemp -d "${BENCH_DIR:-/var/tmp}/sbio-bench.XXXXXX")
LOCKPID=
ZDEV=
finish() {
	[ -n "$LOCKPID" ] && kill "$LOCKPID" 2>/dev/null && wait "$LOCKPID" 2>/dev/null
	zram_remove
	rm -rf "$DIR"
}
# The fast-device cells' device: a new zram device (hot_add, so that no device someone else
# set up, zram0 included, is touched), sized with zramctl, filled with random bytes (a read
# of a page never written costs zram nothing), reset and removed at the end.
zram_remove() {
	[ -n "$ZDEV" ] || return 0
	# zramctl --reset removes the device itself where it can. A failure here must not keep
	# finish() from removing the rest.
	zramctl --reset "$ZDEV" || true
	[ ! -e "$ZDEV" ] || echo "${ZDEV#/dev/zram}" >/sys/class/zram-control/hot_remove || true
	ZDEV=
}
zram_setup() {
	local n
	[ -e /sys/class/zram-control ] || modprobe zram 2>/dev/null || true
	if [ "$(id -u)" != 0 ] || ! command -v zramctl >/dev/null || [ ! -e /sys/class/zram-control ]; then
		echo "note: no zram here (needs root, zramctl and /sys/class/zram-control): the fast-device cells are skipped" >&2
		return 1
	fi
	if ! n=$(cat /sys/class/zram-control/hot_add); then
		echo "note: no new zram device (hot_add failed): the fast-device cells are skipped" >&2
		return 1
	fi
	ZDEV=/dev/zram$n
	if ! zramctl --size "$ZRAM_SIZE" "$ZDEV" ||
		! dd if=/dev/urandom of="$ZDEV" bs=1M count=$(($(blockdev --getsize64 "$ZDEV") >> 20)) \
			oflag=direct status=none; then
		echo "note: $ZDEV could not be sized to $ZRAM_SIZE and filled: the fast-device cells are skipped" >&2
		zram_remove
		return 1
	fi
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
gcc -O2 -Wall -Wextra -Werror -pthread -o "$DIR/floor" bench/floor.c
gcc -O2 -Wall -Wextra -Werror -o "$DIR/rusage" bench/rusage.c
gcc -O2 -Wall -Wextra -Werror -o "$DIR/mlockfile" bench/mlockfile.c

# (a)–(c) and (e): one 256 MiB file read in 4 KiB blocks.
F=$DIR/test_file.0
SET="--dir=$DIR --file-num=1 --file-total-size=256M --file-block-size=4K"
"$SBIO" prepare $SET >/dev/null
# Hold it in the page cache for the whole bench (mlock; others' drop_caches and proactive
# reclaim would empty it within a minute): every tool reads the same cached pages.
"$DIR/mlockfile" "$F" "$DIR/locked" &
LOCKPID=$!
while [ ! -e "$DIR/locked" ] && kill -0 "$LOCKPID" 2>/dev/null; do sleep 0.1; done
[ -e "$DIR/locked" ] || { LOCKPID=; echo "note: $F not locked in the page cache; runs that lose it are run again" >&2; }
# (d) sequential writes: a 1 GiB set of 1 MiB blocks (sbio seqwr runs only on a prepared set,
# and checks the file against its manifest), and a folder for prepare vs dd's creation.
mkdir "$DIR/w" "$DIR/p"
WSET="--dir=$DIR/w --file-num=1 --file-total-size=1G --file-block-size=1M"
WF=$DIR/w/test_file.0
PF=$DIR/p/test_file.0
"$SBIO" prepare $WSET >/dev/null
cp "$WF" "$PF"

cached() { # FILE: the fraction of its pages in the page cache, by fincore
	fincore -nb -o PAGES,SIZE "$1" | awk '{print $2 ? $1 * 4096 / $2 : 0}'
}
full() { awk -v r="$(cached "$1")" 'BEGIN { exit !(r >= 0.99) }'; }
# FILE: in the page cache right before the run. Pages leave it while we look: others'
# drop_caches, and idle pages go cold (DAMON reclaim) after about a minute here. A read
# cell's file is checked again after the run: a run that lost it is run again (RETRIES).
warm() {
	local i
	for i in 1 2 3; do
		cat "$1" >/dev/null
		full "$1" && break
		echo "warning: $1 only $(cached "$1") cached after reading it (try $i)" | tee -a "$DIR/warnings" >&2
	done
	[ "$1" = "$F" ] && echo "$1" >"$DIR/warmed"
	return 0
}
# Before a write run: the 1 GiB file complete, in the page cache and clean. Every tool then
# truncates it (sbio seqwr by ftruncate, dd by O_TRUNC, fio's cell by truncate(1)), which
# hands the writer back the pages it frees; a writer given pages the guest never touched
# (or freed and reported to the host by virtio-balloon free page reporting) pays a host
# fault per page, about 2 ms per MiB here, whichever tool it is.
wready() { # FILE
	warm "$1"
	sync
}
ns() { date +%s%N; }
per_s() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", n / ((b - a) / 1e9) }'; }

# Each cell prints three fields, "-" where it has none: the tool's own reported rate; the
# wall-clock rate (the same work over the time from exec to exit, start-up and teardown
# included); and the CPU time (user + system, all threads, start-up included) per operation,
# which other processes' load disturbs far less than a rate does.
ru() { "$DIR/rusage" "$DIR/ru" "$@"; } # command…: its peak RSS and CPU time into $DIR/ru
cpu_op() { awk -v n="$1" '{ printf "%.0f", $2 / n }' "$DIR/ru"; } # ops: CPU ns per op
sbio_rd() { # sbio run args…: reads/s as reported, reads/s over wall-clock, CPU ns per read
	local t0 t1 out ev
	t0=$(ns)
	out=$(ru "$SBIO" run "$@")
	t1=$(ns)
	ev=$(awk '/total number of events:/ {print $5}' <<<"$out")
	echo "$(awk '/reads\/s:/ {print $2}' <<<"$out") $(per_s "$ev" "$t0" "$t1") $(cpu_op "$ev")"
}
floor() { # threads
	local v
	v=$(ru "$DIR/floor" "$F" "$SECS" 4096 "$1")
	echo "$v - $(cpu_op "$(awk -v v="$v" -v s="$SECS" 'BEGIN { print v * s }')")"
}
fio_rd() { # fio options…: read IOPS as reported, CPU ns per read
	local out
	out=$(ru fio "$@" --output-format=terse --terse-version=3)
	echo "$(cut -d';' -f8 <<<"$out") - $(cpu_op "$(cut -d';' -f6 <<<"$out" | awk '{ print $1 / 4 }')")"
}

# (a) 4 KiB random reads from the page cache.
m_floor1() { warm "$F"; floor 1; }
m_floor2() { warm "$F"; floor 2; }
m_sbio1() { warm "$F"; sbio_rd $SET --file-test-mode=rndrd --time="$SECS" --threads=1; }
m_sbio2() { warm "$F"; sbio_rd $SET --file-test-mode=rndrd --time="$SECS" --threads=2; }
sysb() {
	local out
	out=$(cd "$DIR" && ru sysbench fileio --file-num=1 --file-total-size=256M --file-block-size=4096 \
		--file-test-mode=rndrd --file-fsync-freq=0 --time="$SECS" --threads="$1" run)
	echo "$(awk '/reads\/s:/ {print $2}' <<<"$out") - $(cpu_op "$(awk '/total number of events:/ {print $5}' <<<"$out")")"
}
m_sysbench1() { warm "$F"; sysb 1; }
m_sysbench2() { warm "$F"; sysb 2; }
m_fio1() { warm "$F"; fio_rd --name=r --filename="$F" --rw=randread --bs=4k --ioengine=psync --invalidate=0 \
	--time_based --runtime="$SECS"; }
# (b) null engines: the tool's own cost per operation.
m_sbionull() { sbio_rd $SET --file-test-mode=rndrd --ioengine=null --time="$SECS"; }
m_fionull() { fio_rd --name=n --ioengine=null --rw=randread --bs=4k --size=256M --time_based \
	--runtime="$SECS"; }

# (c) queued engines, 4 KiB random reads, 1 thread: sbio vs fio at the same depth, buffered
# (page cache) and O_DIRECT (the disk: device-bound, expect equality within noise). sbio
# submits every free slot in one call (io_submit / io_uring_enter) and reaps at least one;
# fio submits each request as it is queued (iodepth_batch_submit=1): the "fio batched" cells
# give fio sbio's batching (--iodepth_batch_submit=16 --iodepth_batch_complete_min=1).
sbio_q() { # engine depth [extra flags]
	local flags=${3:+--file-extra-flags=$3}
	[ -z "${3:-}" ] && warm "$F"
	sbio_rd $SET --file-test-mode=rndrd --time="$SECS" --ioengine="$1" --iodepth="$2" $flags
}
fio_q() { # engine depth direct(0/1) [fio options…]
	[ "$3" = 0 ] && warm "$F"
	fio_rd --name=q --filename="$F" --rw=randread --bs=4k --ioengine="$1" --iodepth="$2" --direct="$3" \
		--invalidate=0 --time_based --runtime="$SECS" "${@:4}"
}
BATCH="--iodepth_batch_submit=16 --iodepth_batch_complete_min=1"
m_sbio_aio16() { sbio_q libaio 16; }
m_fio_aio16() { fio_q libaio 16 0; }
m_fiob_aio16() { fio_q libaio 16 0 $BATCH; }
m_sbio_uring16() { sbio_q io_uring 16; }
m_fio_uring16() { fio_q io_uring 16 0; }
m_fiob_uring16() { fio_q io_uring 16 0 $BATCH; }
m_sbio_aio32() { sbio_q libaio 32; }
m_fio_aio32() { fio_q libaio 32 0; }
m_fiob_aio32() { fio_q libaio 32 0 $BATCH; }
m_sbio_uring32() { sbio_q io_uring 32; }
m_fio_uring32() { fio_q io_uring 32 0; }
m_fiob_uring32() { fio_q io_uring 32 0 $BATCH; }
m_sbio_aio32d() { sbio_q libaio 32 direct; }
m_fio_aio32d() { fio_q libaio 32 1; }
m_fiob_aio32d() { fio_q libaio 32 1 $BATCH; }
m_sbio_uring32d() { sbio_q io_uring 32 direct; }
m_fio_uring32d() { fio_q io_uring 32 1; }
m_fiob_uring32d() { fio_q io_uring 32 1 $BATCH; }

# (d) 1 GiB of sequential 1 MiB writes, fsync at the end, MiB/s. Own rates: sbio's
# "written, MiB/s" is bytes over its "total time", which runs from the first write to the end
# of the final fsync (the truncation of the set and the start-up come before it); fio's
# write bandwidth counts end_fsync in its runtime; dd's time (from its "copied" line) starts
# after the O_TRUNC open and includes conv=fsync. Wall-clock: all three include truncating
# the 1 GiB file.
m_sbio_seqwr() {
	wready "$WF"
	local t0 t1 out
	t0=$(ns)
	out=$("$SBIO" run $WSET --file-test-mode=seqwr --events=1024 --file-fsync-freq=0 \
		--file-fsync-end=on --time=0)
	t1=$(ns)
	echo "$(awk '/written, MiB\/s:/ {print $3}' <<<"$out") $(per_s 1024 "$t0" "$t1")"
}
m_fio_seqwr() { # the file truncated first as the others do it (fio would overwrite in place)
	wready "$WF"
	local t0 t1 kib
	t0=$(ns)
	truncate -s 0 "$WF"
	kib=$(fio --name=w --filename="$WF" --rw=write --bs=1M --size=1G --end_fsync=1 --invalidate=0 \
		--fallocate=none --output-format=terse --terse-version=3 | cut -d';' -f48)
	t1=$(ns)
	echo "$(awk -v k="$kib" 'BEGIN { printf "%.2f", k / 1024 }') $(per_s 1024 "$t0" "$t1")"
}
dd_w() { # FILE: dd's own MiB/s (bytes over its seconds) and the wall-clock rate
	local t0 t1 out
	t0=$(ns)
	out=$(dd if=/dev/zero of="$1" bs=1M count=1024 conv=fsync 2>&1 | grep copied)
	t1=$(ns)
	echo "$(awk '{ printf "%.2f", $1 / $(NF - 3) / 1048576 }' <<<"$out") $(per_s 1024 "$t0" "$t1")"
}
m_dd_seqwr() { wready "$WF"; dd_w "$WF"; }
# Prepare of 1 GiB vs dd creating the file: each starts right after the previous 1 GiB file
# (in the page cache) is deleted. sbio's own rate: its "bytes written in … seconds" line
# (creation to the file's fsync). prepare fills with random bytes by default; the zero-fill
# cell writes what dd writes.
pready() { [ -e "$PF" ] && warm "$PF"; rm -f "$PF" "$DIR/p/sbio.manifest"; }
sbio_prep() { # [prepare options…]
	pready
	local t0 t1 out
	t0=$(ns)
	out=$("$SBIO" prepare --dir="$DIR/p" --file-num=1 --file-total-size=1G --file-block-size=1M "$@")
	t1=$(ns)
	echo "$(sed -n 's/.*written in .* seconds (\([0-9.]*\) MiB\/sec).*/\1/p' <<<"$out") $(per_s 1024 "$t0" "$t1")"
}
m_sbio_prep() { sbio_prep; }
m_sbio_prepz() { sbio_prep --file-fill=zero; }
m_dd_prep() { pready; dd_w "$PF"; }

# (e) sbio's peak RSS (KiB, ru_maxrss) for 4 KiB random reads from the page cache.
rss() { # seconds threads
	warm "$F"
	ru "$SBIO" run $SET --file-test-mode=rndrd --time="$1" --threads="$2" >/dev/null
	cut -d' ' -f1 "$DIR/ru"
}
m_rss1() { rss 1 1; }
m_rss64() { rss 1 64; }
m_rss60() { rss 60 1; }

# (f) fast device: 4 KiB O_DIRECT random reads of the whole zram device, 1 thread, sbio vs
# fio at the same engine and depth, each submitting as it does by default (one request per
# call with O_DIRECT), with and without registered files and buffers for io_uring. zram does
# the read when it is submitted, with no queue and no interrupt, so the tools' own costs per
# request show.
zs() { # engine depth [sbio options…]
	sbio_rd --filename="$ZDEV" --file-test-mode=rndrd --file-block-size=4K --file-extra-flags=direct \
		--time="$SECS" --ioengine="$1" --iodepth="$2" "${@:3}"
}
zf() { # engine depth [fio options…]
	fio_rd --name=z --filename="$ZDEV" --rw=randread --bs=4k --direct=1 --ioengine="$1" --iodepth="$2" \
		--time_based --runtime="$SECS" "${@:3}"
}
m_z_sbio_sync1() { zs sync 1; }
m_z_fio_sync1() { zf psync 1; }
ZQ="aio1 aio8 aio32 uring1 uring8 uring32 uringf1 uringf8 uringf32"
for d in 1 8 32; do
	eval "m_z_sbio_aio$d() { zs libaio $d; }; m_z_fio_aio$d() { zf libaio $d; }
		m_z_sbio_uring$d() { zs io_uring $d; }; m_z_fio_uring$d() { zf io_uring $d; }
		m_z_sbio_uringf$d() { zs io_uring $d --uring-fixed; }
		m_z_fio_uringf$d() { zf io_uring $d --registerfiles --fixedbufs; }"
done

# (g) stat of a cached tree of 10000 files (20 per folder), 1 thread: the bare fstatat loop
# (floor --stat, paths listed beforehand) against sbio's `mix = {stat = 1}` on the same tree.
TREE=$DIR/t
tree_prepare() {
	mkdir -p "$TREE"
	cat >"$DIR/stat.lua" <<EOF
fileset { files = 10000, dirwidth = 20, size = "4k", prealloc = 1 }
phase "stat" { time = $SECS, job "stat" { threads = 1, mix = { stat = 1 } } }
EOF
	"$SBIO" prepare --script "$DIR/stat.lua" --dir "$TREE" >/dev/null
}
tree_warm() { find "$TREE" -printf '%s\n' >/dev/null; }
m_floor_stat() {
	local v
	tree_warm
	v=$(ru "$DIR/floor" --stat "$TREE/sbio.tree" "$SECS")
	echo "$v - $(cpu_op "$(awk -v v="$v" -v s="$SECS" 'BEGIN { print v * s }')")"
}
m_sbio_stat() { # stats/s: the events over sbio's total time
	local t0 t1 out ev
	tree_warm
	t0=$(ns)
	out=$(ru "$SBIO" run --script "$DIR/stat.lua" --dir "$TREE")
	t1=$(ns)
	ev=$(awk '/total number of events:/ {print $5}' <<<"$out")
	echo "$(awk '/total number of events:/ {e = $5} /total time:/ {t = $3 + 0} END {printf "%.2f", e / t}' <<<"$out") $(per_s "$ev" "$t0" "$t1") $(cpu_op "$ev")"
}

READS="floor1 sbio1 sysbench1 fio1 floor2 sbio2 sysbench2 sbionull fionull"
QUEUED="sbio_aio16 fio_aio16 fiob_aio16 sbio_uring16 fio_uring16 fiob_uring16 sbio_aio32 fio_aio32 fiob_aio32 sbio_uring32 fio_uring32 fiob_uring32 sbio_aio32d fio_aio32d fiob_aio32d sbio_uring32d fio_uring32d fiob_uring32d"
WRITES="sbio_seqwr fio_seqwr dd_seqwr sbio_prep sbio_prepz dd_prep"
RSS="rss1 rss64"
[ "$LONG" = 1 ] && RSS="$RSS rss60"
STAT="floor_stat sbio_stat"
ZRAM="z_sbio_sync1 z_fio_sync1 $(for q in $ZQ; do echo "z_sbio_$q z_fio_$q"; done)"
TOOLS=${TOOLS:-"$READS $QUEUED $WRITES $RSS $ZRAM $STAT"}
TOOLS=$(for t in $TOOLS; do case $t in reads) echo $READS ;; queued) echo $QUEUED ;;
	writes) echo $WRITES ;; rss) echo $RSS ;; zram) echo $ZRAM ;; stat) echo $STAT ;; *) echo "$t" ;; esac; done)
[[ " $TOOLS " == *"_stat "* ]] && tree_prepare
if [[ " $TOOLS " == *" z_"* ]] && ! zram_setup; then
	TOOLS=$(for t in $TOOLS; do [[ $t == z_* ]] || echo "$t"; done)
fi
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A R W C
for r in $(seq "$ROUNDS"); do
	for t in $TOOLS; do
		[ "$t" = rss60 ] && [ "$r" -gt 1 ] && continue
		for try in $(seq $((RETRIES + 1))); do
			rm -f "$DIR/warmed"
			out=$(m_$t)
			[ -e "$DIR/warmed" ] && ! full "$F" || break
			echo "round $r $t: $F left the page cache during the run ($(cached "$F") cached); $([ "$try" -le "$RETRIES" ] && echo "running it again" || echo "kept")" | tee -a "$DIR/evicted" >&2
		done
		read -r v w c <<<"$out"
		w=${w#-} c=${c#-}
		R[$t]="${R[$t]:-} $v"
		[ -n "$w" ] && W[$t]="${W[$t]:-} $w"
		[ -n "$c" ] && C[$t]="${C[$t]:-} $c"
		echo "round $r $t $v${w:+ (wall-clock $w)}${c:+ ($c CPU ns/op)}" >&2
	done
done

median() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
med() { local v=${R[$1]:-}; if [ -n "$v" ]; then median $v; else echo 1; fi; }
minmax() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.0f–%.0f", lo, hi}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
have() { local c; for c in "$@"; do [ -n "${R[$c]:-}" ] || return 1; done; }
rmed() { if have "$1" "$2"; then ratio "$(med "$1")" "$(med "$2")"; else echo "n/a"; fi; } # of medians
nsop() { awk -v v="$(med "$1")" 'BEGIN{printf "%.0f", 1e9/v}'; }
# Per-round ratios ARRAY[A]_i / ARRAY[B]_i: "median (min–max)".
pratio() { # ARRAY A B
	local -n a=$1
	paste <(echo ${a[$2]} | tr ' ' '\n') <(echo ${a[$3]} | tr ' ' '\n') | awk '{print $1 / $2}' | sort -g |
		awk '{a[NR]=$1} END {m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.3f (%.3f–%.3f)", m, a[1], a[NR]}'
}
wall() { [ -n "${W[$1]:-}" ] && printf '%.0f' "$(median ${W[$1]})" || true; }
cpu() { [ -n "${C[$1]:-}" ] && printf '%.0f' "$(median ${C[$1]})" || true; }
row() { # label cell ratios
	have "$2" || return 0
	printf '| %s | %.0f | %s | %s |%s %s |\n' "$1" "$(med $2)" "$(minmax ${R[$2]})" "$(wall $2)" \
		"$([ "$TABLE" = reads ] && echo " $(cpu $2) |")" "$3"
}

echo
echo "Medians of $ROUNDS interleaved rounds, $SECS s per timed run ($(date -u +%F), Linux $(uname -r), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); load average before the run: $LOAD0, after: $(cut -d' ' -f1-3 /proc/loadavg)); page-cache runs whose file left the cache during the run (run again): $(cat "$DIR/evicted" 2>/dev/null | wc -l)"
if [ -n "$(for c in $READS $QUEUED; do have $c && echo y; done)" ]; then
	TABLE=reads
	echo
	echo "4 KiB random reads of a 256 MiB file in the page cache (ops/s; CPU: user + system per read)"
	echo
	echo "| measurement | own rate, median | min–max | sbio wall-clock | CPU ns/op | ratio of medians |"
	echo "|---|---:|---:|---:|---:|---|"
	row "floor, 1 thread" floor1 "1.000× floor"
	row "sbio sync, 1 thread" sbio1 "$(rmed sbio1 floor1)× floor"
	row "sysbench rndrd, 1 thread" sysbench1 "$(rmed sysbench1 floor1)× floor; sbio/sysbench $(rmed sbio1 sysbench1)"
	row "fio psync, 1 thread" fio1 "$(rmed fio1 floor1)× floor; sbio/fio $(rmed sbio1 fio1)"
	row "floor, 2 threads" floor2 "$(rmed floor2 floor1)× floor 1 thread"
	row "sbio sync, 2 threads" sbio2 "$(rmed sbio2 floor2)× floor 2 threads; $(rmed sbio2 sbio1)× sbio 1 thread"
	row "sysbench rndrd, 2 threads" sysbench2 "$(rmed sysbench2 sysbench1)× sysbench 1 thread; sbio/sysbench $(rmed sbio2 sysbench2)"
	row "sbio null engine, 1 thread" sbionull "$(rmed sbionull fionull)× fio null; $(nsop sbionull) ns/op"
	row "fio null engine, 1 thread" fionull "$(nsop fionull) ns/op"
	for q in aio16 uring16 aio32 uring32 aio32d uring32d; do
		have "sbio_$q" || continue
		d=${q//[a-z_]/}; e=${q%%[0-9]*}; e=${e/aio/libaio}; e=${e/uring/io_uring}
		mode=$([ "${q: -1}" = d ] && echo "O_DIRECT" || echo "buffered")
		row "sbio $e, depth $d, $mode" "sbio_$q" "$(rmed sbio_$q fio_$q)× fio; $(rmed sbio_$q fiob_$q)× fio batched"
		row "fio $e, depth $d, $mode" "fio_$q" ""
		row "fio $e, depth $d, $mode, batched" "fiob_$q" ""
	done
fi
if [ -n "$(for c in $WRITES; do have $c && echo y; done)" ]; then
	TABLE=writes
	echo
	echo "1 GiB of sequential 1 MiB writes, fsync at the end (MiB/s)"
	echo
	echo "| measurement | own rate, median | min–max | wall-clock | ratio of medians (own) |"
	echo "|---|---:|---:|---:|---|"
	row "sbio seqwr" sbio_seqwr "$(rmed sbio_seqwr dd_seqwr)× dd; $(rmed sbio_seqwr fio_seqwr)× fio"
	row "fio rw=write end_fsync=1" fio_seqwr ""
	row "dd bs=1M count=1024 conv=fsync" dd_seqwr ""
	row "sbio prepare (random fill)" sbio_prep "$(rmed sbio_prep dd_prep)× dd"
	row "sbio prepare --file-fill=zero" sbio_prepz "$(rmed sbio_prepz dd_prep)× dd"
	row "dd creating the file" dd_prep ""
fi
if have rss1; then
	echo
	echo "sbio's peak RSS (KiB, ru_maxrss), 4 KiB random reads from the page cache"
	echo
	echo "| run | median | min–max |"
	echo "|---|---:|---:|"
	for c in rss1:"1 s, 1 thread" rss64:"1 s, 64 threads" rss60:"60 s, 1 thread (LONG=1; measured once)"; do
		have "${c%%:*}" && printf '| %s | %.0f | %s |\n' "${c#*:}" "$(med ${c%%:*})" "$(minmax ${R[${c%%:*}]})"
	done
fi
if [ -n "$(for c in $STAT; do have $c && echo y; done)" ]; then
	TABLE=reads
	echo
	echo "stat (fstatat) of files drawn uniformly from a cached tree of 10000 files, 20 per folder, 1 thread (ops/s; CPU: user + system per stat)"
	echo
	echo "| measurement | own rate, median | min–max | sbio wall-clock | CPU ns/op | ratio of medians |"
	echo "|---|---:|---:|---:|---:|---|"
	row "floor --stat, 1 thread" floor_stat "1.000× floor"
	row "sbio mix = {stat = 1}, 1 thread" sbio_stat "$(rmed sbio_stat floor_stat)× floor"
fi
zlabel() { # q: the engine and depth of a fast-device cell
	local d=${1//[a-z]/} e=${1%%[0-9]*}
	case $e in
	sync) echo "sync (fio psync), depth 1" ;;
	aio) echo "libaio, depth $d" ;;
	uring) echo "io_uring, depth $d" ;;
	uringf) echo "io_uring fixed, depth $d" ;;
	esac
}
if [ -n "$(for c in $ZRAM; do have $c && echo y; done)" ]; then
	TABLE=reads
	echo
	echo "4 KiB O_DIRECT random reads of a $ZRAM_SIZE zram device filled with random bytes, 1 thread (ops/s; CPU: user + system per read, io_uring's workers included; fixed: registered files and buffers, sbio --uring-fixed, fio --registerfiles --fixedbufs)"
	echo
	echo "| measurement | own rate, median | min–max | sbio wall-clock | CPU ns/op | ratio of medians |"
	echo "|---|---:|---:|---:|---:|---|"
	for q in sync1 $ZQ; do
		row "sbio $(zlabel $q)" "z_sbio_$q" "$(rmed z_sbio_$q z_fio_$q)× fio"
		row "fio $(zlabel $q)" "z_fio_$q" ""
	done
fi

# The targets (doc/performance.md, "Targets") on the rates: per-round ratios, median (min–max), against the
# bound; beside them the same comparison by CPU time per operation (B's over A's: how much
# less CPU sbio spends per op), which the load of other processes disturbs far less.
echo
echo "Targets (per-round ratios of the own rates: median (min–max) of $ROUNDS rounds; by CPU: the reference's CPU per op over sbio's)"
echo
bycpu() { # A B
	[ -n "${C[$1]:-}" ] && [ -n "${C[$2]:-}" ] && echo "; by CPU per op $(pratio C "$2" "$1")" || true
}
target() { # label A B bound [nocpu]
	have "$2" "$3" || return 0
	local p m
	p=$(pratio R "$2" "$3")
	m=${p%% *}
	printf -- '- %s: %s — %s%s\n' "$1" "$p" "$(awk -v m="$m" -v b="$4" 'BEGIN { print (m >= b ? "met" : "missed") " (≥ " b ")" }')" \
		"$([ -z "${5:-}" ] && bycpu "$2" "$3")"
}
noise() { # label A B: O_DIRECT, device-bound: within noise if the per-round ratios reach 1
	have "$2" "$3" || return 0
	local p
	p=$(pratio R "$2" "$3")
	printf -- '- %s: %s — %s%s\n' "$1" "$p" "$(awk -v p="$p" 'BEGIN { gsub(/[()–]/, " ", p); split(p, a, " ");
		print ((a[1] >= 1 || (a[2] <= 1 && a[3] >= 1)) ? "met (within noise)" : "missed (outside noise)") }')" "$(bycpu "$2" "$3")"
}
target "sbio 1 thread / floor" sbio1 floor1 0.95
target "sbio 1 thread / sysbench" sbio1 sysbench1 1.09
target "sbio 1 thread / fio psync" sbio1 fio1 1.2
target "sbio 2 threads / sbio 1 thread" sbio2 sbio1 1.8 nocpu
target "(the machine: floor 2 threads / floor 1 thread)" floor2 floor1 1.8 nocpu
target "sbio 2 threads / sysbench 2 threads" sbio2 sysbench2 1.1
target "sbio null / fio null" sbionull fionull 1.5
target "sbio stat / floor --stat" sbio_stat floor_stat 0.9
for q in aio16 uring16 aio32 uring32; do
	target "sbio $q buffered / fio" "sbio_$q" "fio_$q" 1.0
	target "sbio $q buffered / fio batched" "sbio_$q" "fiob_$q" 1.0
done
for q in aio32d uring32d; do
	noise "sbio $q O_DIRECT / fio" "sbio_$q" "fio_$q"
	noise "sbio $q O_DIRECT / fio batched" "sbio_$q" "fiob_$q"
done
for q in sync1 $ZQ; do
	target "zram sbio $q / fio" "z_sbio_$q" "z_fio_$q" 1.0
done
zbest() { # tool: its fastest io_uring fast-device cell by median, "CELL MEDIAN"
	local q
	for q in $ZQ; do
		[[ $q == uring* ]] && have "z_$1_$q" && echo "$q $(med "z_$1_$q")"
	done | sort -k2 -g | tail -1
}
if [ -n "$(zbest sbio)" ] && [ -n "$(zbest fio)" ]; then
	read -r bs ms <<<"$(zbest sbio)"
	read -r bf mf <<<"$(zbest fio)"
	r=$(ratio "$ms" "$mf")
	echo "- zram best io_uring, sbio ($bs, $ms) / fio ($bf, $mf): $r — $(awk -v r="$r" 'BEGIN { print (r >= 1 ? "met" : "missed") }') (≥ 1.0, ratio of medians)"
fi
target "sbio seqwr / dd" sbio_seqwr dd_seqwr 0.95
target "sbio prepare / dd" sbio_prep dd_prep 0.95
if have rss1 rss60; then
	g=$(($(med rss60) - $(med rss1)))
	echo "- RSS growth 1 s → 60 s: ${g} KiB — $([ "$g" -lt 1024 ] && echo met || echo missed) (< 1024 KiB)"
fi
