#!/bin/bash
# Lua workload scripts. Every shipped workload prepares and
# runs at a small scale and its report has the figures its header promises (checked for
# presence and sanity, not only the exit status). A per-event script and its declarative twin
# issue the same operations for the same --rand-seed (strace); --rand-seed repeats a mix run
# and another seed does not; the script's own options (--help, override, bad value); load
# errors (exit 2, one FILE:LINE line, nothing on disk) and a runtime error in event() (exit 1,
# what was measured, the traceback); two jobs side by side (per-job reports, all-jobs total,
# JSON sbio-script/1); two phases, the first of two jobs (the process's CPU, device and cache
# lines once per phase, fdatasync's own row against strace, the phases' table); a script
# not found names the folders searched; a job's end fsync is its own fsync_end (iozone makes
# none under strace, a job with fsync_end = true one per file); a phase the system refuses is
# reported (CSV too) and the script goes on (loop device, 4 KiB sectors: root); blockdev-sweep's
# table is blockdev-perftest's (MiB, per-run seconds, the population standard deviation of
# its runs, IOPS, O_DIRECT under --direct); iozone's "Children see" lines equal the JSON's
# per-thread figures; sysbench-rndrw makes as many reads + writes as --events asks, 0.4's
# fsyncs, and takes longer for more (a loop device: root); readers-vs-writer and priorities
# run their 4 KiB readers and 1 MiB writer with O_DIRECT (buffered with --direct=off), each job
# at the I/O priority it declares (read back), report() printing the JSON's figures, and
# priorities is refused (exit 2, one line) for a user who may not use the realtime class
# (nobody, when root). Small sets under $TMP; about 50 s (fio-matrix, 16 cells of 1 s, runs in
# the background).
source "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WL=$ROOT/workloads
export SBIO_STATE_DIR=$TMP/state
MNT=$TMP/mnt
LOOP=
sc_cleanup() {
	[ -n "${FIO_PID:-}" ] && kill "$FIO_PID" 2>/dev/null && wait "$FIO_PID" 2>/dev/null
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	t_cleanup
}
trap sc_cleanup EXIT

HAVE_STRACE=false
command -v strace >/dev/null 2>&1 && HAVE_STRACE=true

# newdir NAME: a fresh empty folder under $TMP; prints its path.
newdir() {
	rm -rf "${TMP:?}/$1"
	mkdir -p "$TMP/$1"
	echo "$TMP/$1"
}
listing() { ls -A "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
# pos DESC NUMBER…: every NUMBER is a number > 0.
pos() {
	local desc=$1 x
	shift
	for x in "$@"; do
		if ! awk -v x="$x" 'BEGIN { exit !(x ~ /^[0-9.]+$/ && x + 0 > 0) }'; then
			notok "$desc (got '$*')"
			return
		fi
	done
	[ $# -gt 0 ] && ok "$desc" || notok "$desc (no figures)"
}
# section FILE START: the lines of FILE from the line starting with START to the next
# "---" or "===" header (exclusive).
section() {
	awk -v s="$2" 'index($0, s) == 1 { p = 1; print; next } p && /^(---|===)/ { exit } p' "$1"
}
# field LABEL: the value after "LABEL:" on stdin's first such line (commas dropped).
field() {
	awk -v l="$1:" '{ s = $0; sub(/^ +/, "", s) } index(s, l) == 1 {
		s = substr(s, length(l) + 1); gsub(",", "", s); sub(/^ +/, "", s); print s; exit }'
}
# rwf: "R W F" from stdin's "reads, writes, syncs done:" line.
rwf() { field 'reads, writes, syncs done' | awk '{ print $1, $2, $3 }'; }
events() { field 'total number of events'; }
# thread_rows: the rows of stdin's first "Per thread:" table ("thread events ops/s MiB/s …").
thread_rows() { awk '/^Per thread:/ { p = 1; next } p && $1 ~ /^[0-9]+$/ { print; next } p && NF == 0 { exit }'; }
# report_rows FILE: the lines printed by the script's report(), after its banner.
report_rows() { sed -n '/^=== report() of /,$p' "$1" | tail -n +2; }
# pyj FILE EXPR: prints the Python expression EXPR over the JSON document d of FILE, for the
# checks that add up or compare whole lists (lib.sh's json_get reads single values).
pyj() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
# job_get FILE PHASE JOB PATH…: json_get of PATHs in the result document of a phase's job.
job_get() {
	local f=$1 ph=$2 job=$3 p args=()
	shift 3
	for p in "$@"; do args+=("phases.$ph.jobs.$job.result.$p"); done
	json_get "$f" "${args[@]}"
}

# run_wl NAME DIR ARGS…: prepare then run workload NAME on DIR with the script's ARGS; the
# run's stdout in $TMP/NAME.out, stderr in $TMP/NAME.err, its JSON in $TMP/NAME.json; the
# statuses "prepare run" in $TMP/NAME.rc.
run_wl() {
	local name=$1 dir=$2 prc rc
	shift 2
	"$SBIO" prepare --dir="$dir" --script "$WL/$name.lua" "$@" >"$TMP/$name.prep" 2>&1
	prc=$?
	"$SBIO" run --dir="$dir" --script "$WL/$name.lua" "$@" -o "$TMP/$name.json" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	echo "$prc $rc" >"$TMP/$name.rc"
}
rc_ok() { eq "$1: prepare and run exit 0" "$(cat "$TMP/$1.rc")" "0 0"; }

# fio-matrix is 16 cells of a whole second each: it runs in the background while the rest
# goes on, and is checked at the end.
run_wl fio-matrix "$(newdir fio)" --size=10M --time=1 &
FIO_PID=$!

# --- iozone: write, rewrite, read, re-read, one pass over the set each, per-thread table ---
run_wl iozone "$(newdir iozone)" --size=16M
rc_ok iozone
eq "iozone: 4 phases, in order" "$(grep -oP '^=== Phase \d+/4: \K\S+' "$TMP/iozone.out" | tr '\n' ' ')" \
	"write rewrite read re-read "
bad=
for ph in write rewrite read re-read; do
	rows=$(awk -v h="=== Phase" -v p=": $ph (" 'index($0, h) == 1 { on = index($0, p) > 0 } on' \
		"$TMP/iozone.out" | thread_rows)
	mib=$(awk '{ print $4 }' <<<"$rows")
	[ "$(wc -l <<<"$rows")" -eq 1 ] && awk -v x="$mib" 'BEGIN { exit !(x + 0 > 0) }' || bad="$bad $ph:'$rows'"
done
eq "iozone: each phase has a per-thread table with MiB/s > 0" "${bad:-none bad}" "none bad"
# (the phases in order, as checked above: write, rewrite, read, re-read)
iozone_bytes() {
	json_get "$TMP/iozone.json" phases.{0,1}.jobs.0.result.result.op_types.write.bytes \
		phases.{2,3}.jobs.0.result.result.op_types.read.bytes | paste -sd ' '
}
eq "iozone: each phase moves the 16 MiB set once (write, rewrite, read, re-read bytes)" \
	"$(iozone_bytes)" "16777216 16777216 16777216 16777216"
# iozone -t 2: two children, each its own file, each one pass; "children see" per child.
run_wl iozone "$(newdir iozone2)" --size=8M --threads=2
rc_ok iozone
bad=
for ph in write rewrite read re-read; do
	rows=$(awk -v h="=== Phase" -v p=": $ph (" 'index($0, h) == 1 { on = index($0, p) > 0 } on' \
		"$TMP/iozone.out" | thread_rows)
	n=$(awk '$2 > 0 && $4 > 0' <<<"$rows" | wc -l)
	[ "$n" -eq 2 ] || bad="$bad $ph:[$(awk '{ printf "%s events %s MiB/s; ", $2, $4 }' <<<"$rows")]"
done
eq "iozone --threads=2: in every phase both threads (children) did I/O" "${bad:-none bad}" "none bad"
set_bytes=$(job_get "$TMP/iozone.json" 0 0 config.total_size_bytes)
eq "iozone --threads=2: each phase moves the set (2 files, $set_bytes bytes) once" \
	"$(iozone_bytes)" "$set_bytes $set_bytes $set_bytes $set_bytes"
# JSON on standard output: report()'s print goes where the text report goes, not into it.
"$SBIO" run --dir="$TMP/iozone2" --script "$WL/iozone.lua" --size=8M --threads=2 \
	--output-format=json >"$TMP/ioz-stdout.json" 2>"$TMP/ioz-stdout.err"
eq "iozone --output-format=json: standard output is one JSON document of 4 phases" \
	"$(pyj "$TMP/ioz-stdout.json" 'len(d["phases"])')" 4
eq "iozone --output-format=json: no report() line on standard output" \
	"$(grep -c 'Children see' "$TMP/ioz-stdout.json")" 0

# --- fsync_end: the end-of-phase fsync is the job's own declaration, not the command line's ---
# fsync_calls TRACE: "N/FILE " for each file of the set fsynced in an strace -y log.
fsync_calls() {
	grep -oP '(fsync|fdatasync)\(\d+<[^>]*/\Ktest_file\.\d+(?=>)' "$1" | sort | uniq -c |
		awk '{ printf "%s/%s ", $1, $2 }'
}
eq "fsync_end: iozone declares no end fsync in any phase (JSON declared.fsync_end)" \
	"$(pyj "$TMP/iozone.json" '" ".join(str(p["jobs"][0]["declared"]["fsync_end"]) for p in d["phases"])')" \
	"False False False False"
eq "fsync_end: iozone's write and rewrite say so on the job's line" \
	"$(grep -c '^--- Job \(write\|rewrite\) ([0-9]* threads*, sync, no fsync at end) ---$' "$TMP/iozone.out")" 2
eq "fsync_end: iozone's write and rewrite count no end fsync (JSON op_types.fsync.end)" \
	"$(pyj "$TMP/iozone.json" '[p["jobs"][0]["result"]["result"]["op_types"]["fsync"]["end"] for p in d["phases"][:2]]')" \
	"[0, 0]"
if $HAVE_STRACE; then
	FE=$(newdir fsyncend)
	"$SBIO" prepare --dir="$FE" --script "$WL/iozone.lua" --size=8M >/dev/null 2>&1
	strace -f -qq -y -e trace=fsync,fdatasync -o "$TMP/fe-ioz.tr" "$SBIO" run --dir="$FE" \
		--script "$WL/iozone.lua" --size=8M >"$TMP/out" 2>"$TMP/err"
	eq "fsync_end: iozone (as iozone -c) makes no fsync of the set under strace" \
		"$(fsync_calls "$TMP/fe-ioz.tr")" ""
else
	skip "strace is not installed: iozone's fsyncs not counted"
fi
mkdir -p "$TMP/fe"
cat >"$TMP/fe/on.lua" <<'EOF'
fileset { files = 3, size = "3M" }
phase "on" { time = 0, events = 48,
    job "w" { mode = "seqwr", block = "64k", fsync_freq = 0, fsync_end = true } }
phase "off" { time = 0, events = 300,
    job "r" { mode = "rndwr", block = "4k", fsync_freq = 0, fsync_end = false } }
phase "silent" { time = 0, events = 300, job "s" { mode = "rndwr", block = "4k", fsync_freq = 0 } }
EOF
FO=$(newdir fsyncon)
"$SBIO" prepare --dir="$FO" --script "$TMP/fe/on.lua" >/dev/null 2>&1
TRACE=()
$HAVE_STRACE && TRACE=(strace -f -qq -y -e trace=fsync,fdatasync -o "$TMP/fe-on.tr")
"${TRACE[@]}" "$SBIO" run --dir="$FO" --script "$TMP/fe/on.lua" -o "$TMP/fe-on.json" >"$TMP/fe-on.out" 2>&1
eq "fsync_end: true, false, unsaid (sysbench's default: on): declared and end fsyncs per phase" \
	"$(pyj "$TMP/fe-on.json" '[(j["declared"]["fsync_end"], j["result"]["result"]["op_types"]["fsync"]["end"]) for p in d["phases"] for j in p["jobs"]]')" \
	"[(True, 3), (False, 0), (True, 3)]"
check "fsync_end: the job's line says 'fsync at end'" grep -q '^--- Job w (1 thread, sync, fsync at end) ---$' "$TMP/fe-on.out"
if $HAVE_STRACE; then
	eq "fsync_end: strace: each of the 3 files is fsynced once by each job with an end fsync" \
		"$(fsync_calls "$TMP/fe-on.tr")" "2/test_file.0 2/test_file.1 2/test_file.2 "
else
	skip "strace is not installed: the end fsyncs not counted"
fi

# --- bonnie-direct: MiB/s and %CPU per cell (write, rewrite, read, seeks x size) ---
run_wl bonnie-direct "$(newdir bonnie)" --size=4M --sizes=4k,16k --seeks=200 --seek-procs=3
rc_ok bonnie-direct
rows=$(report_rows "$TMP/bonnie-direct.out")
eq "bonnie-direct: report() table, one row per cell" \
	"$(tail -n +2 <<<"$rows" | awk '{ printf "%s/%s ", $1, $2 }')" \
	"4k/write 4k/rewrite 4k/read 4k/seeks 16k/write 16k/rewrite 16k/read 16k/seeks "
pos "bonnie-direct: MiB/s > 0 in every cell" $(tail -n +2 <<<"$rows" | awk '{ print $3 }')
pos "bonnie-direct: %CPU > 0 in every cell" $(tail -n +2 <<<"$rows" | awk '{ print $4 }')
eq "bonnie-direct: every cell ran with O_DIRECT" \
	"$(json_get "$TMP/bonnie-direct.json" 'phases.#' phases.{0..7}.jobs.0.result.config.file_extra_flags | paste -sd ' ')" \
	"8 direct direct direct direct direct direct direct direct"
# The seeks cell: bonnie++ -z 1's first 200 tickets (glibc's rand() after srand(1)), 15 of them
# updates (a multiple of 10: the chunk read, then written back), over 3 threads, each fsyncing
# at its end, thread 0 also once first (bonnie++'s parent's close): 200 reads, 15 writes, 4 fsyncs.
eq "bonnie-direct: the seeks cell's reads, writes and fsyncs (200 seeks, 3 processes, -z 1)" \
	"$(json_get "$TMP/bonnie-direct.json" phases.3.jobs.0.result.result.op_types.{read,write,fsync}.ops | paste -sd ' ')" \
	"200 15 4"

# --- sysbench-rndrw: sysbench 0.4's fixed requests (reads + writes = --events) over O_DIRECT ---
# On ext4 over a loop device of its own when root (the device's counters are the run's own;
# its inode tables written by mkfs, not by ext4's lazy init during the first runs): every
# read reaches the device, which reads about 8 times as much for 8000 requests as for 1000,
# and report() prints 0.4's lines with the JSON's figures.
SYSB_DIR=$(newdir sysb)
if need_root && truncate -s 96M "$TMP/sysb.img" && LOOP=$(losetup -f --show "$TMP/sysb.img" 2>"$TMP/err"); then
	if mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" >"$TMP/err" 2>&1 && mkdir -p "$MNT" && mount "$LOOP" "$MNT" 2>>"$TMP/err"; then
		SYSB_DIR=$MNT
	else
		notok "sysbench-rndrw: mkfs.ext4 and mount of $LOOP: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
	fi
else
	LOOP=
	skip "sysbench-rndrw on a loop device: needs root and a loop device; runs on $TMP's file system"
fi
# sysb_run N: the workload at --events=N on SYSB_DIR; $TMP/sysb.N.out and .json.
sysb_run() {
	run_wl sysbench-rndrw "$SYSB_DIR" --size=16M --events="$1"
	rc_ok sysbench-rndrw
	cp "$TMP/sysbench-rndrw.out" "$TMP/sysb.$1.out"
	cp "$TMP/sysbench-rndrw.json" "$TMP/sysb.$1.json"
}
# sysb_line N LABEL: the value after LABEL in report()'s lines of run N.
sysb_line() { report_rows "$TMP/sysb.$1.out" | field "$2"; }
for n in 1000 8000; do
	sysb_run "$n"
	j=$TMP/sysb.$n.json
	read -r r w f < <(job_get "$j" 0 0 result.op_types.{read,write,fsync}.ops | paste -sd ' ')
	eq "sysbench-rndrw --events=$n: reads + writes = the requests asked for" "$((r + w))" "$n"
	near "sysbench-rndrw --events=$n: reads / writes = sysbench's ratio 1.5" "$(awk -v r="$r" -v w="$w" 'BEGIN { print w ? r / w : 0 }')" 1.5 1
	eq "sysbench-rndrw --events=$n: 0.4's fsyncs, 128 files after every 100 requests and at the end" \
		"$f" "$((128 * ((n - 1) / 100 + 1)))"
	eq "sysbench-rndrw --events=$n: 16 threads, O_DIRECT, 16 KiB blocks, 128 files" \
		"$(job_get "$j" 0 0 'result.threads.#' config.file_extra_flags config.block_size_bytes config.file_num | paste -sd ' ')" \
		"16 direct 16384 128"
	eq "sysbench-rndrw --events=$n: report()'s Operations performed line is the JSON's" \
		"$(report_rows "$TMP/sysb.$n.out" | grep '^Operations performed:' | tr -s ' ')" \
		"Operations performed: $r Read, $w Write, $f Other = $((r + w + f)) Total"
	eq "sysbench-rndrw --events=$n: report()'s total number of events = the requests" \
		"$(sysb_line "$n" 'total number of events')" "$n"
	eq "sysbench-rndrw --events=$n: report()'s total time is the JSON's elapsed_s" \
		"$(sysb_line "$n" 'total time')" "$(printf '%.4fs' "$(job_get "$j" 0 0 result.elapsed_s)")"
	read -r us ss el < <(job_get "$j" 0 0 result.cpu.user_s result.cpu.system_s result.elapsed_s | paste -sd ' ')
	eq "sysbench-rndrw --events=$n: report()'s CPU line (user, system, %, total) is the JSON's" \
		"$(report_rows "$TMP/sysb.$n.out" | grep ' cpu ')" \
		"$(awk -v u="$us" -v s="$ss" -v t="$el" 'BEGIN { printf "%.2fs user %.2fs system %d%% cpu %d:%05.2f total", u, s, int(100 * (u + s) / t), int(t / 60), t - 60 * int(t / 60) }')"
done
if [ -n "$LOOP" ]; then
	# The work grows with the requests, as the device counted it (not the time: on a busy
	# machine a run's time says as much about the other work as about its own).
	for n in 1000 8000; do
		read -r dev rb < <(job_get "$TMP/sysb.$n.json" 0 0 result.devices.0.bytes_read result.op_types.read.bytes | paste -sd ' ')
		check "sysbench-rndrw --events=$n: the loop device read at least the bytes the run read ($dev of $rb): not the page cache" \
			awk -v d="$dev" -v r="$rb" 'BEGIN { exit !(r > 0 && d >= r) }'
		eval "dev_$n=\$dev"
	done
	check "sysbench-rndrw: the device read about 8 times as much for 8000 requests as for 1000 ($dev_8000 vs $dev_1000 bytes; more than 6x)" \
		awk -v a="$dev_8000" -v b="$dev_1000" 'BEGIN { exit !(b > 0 && a / b > 6) }'
	umount "$MNT" && losetup -d "$LOOP" && LOOP=
fi

# --- oltp: two jobs (table, log), each reported, and in total; --threads=2 overrides 8 ---
run_wl oltp "$(newdir oltp)" --size=16M --time=1 --threads=2
rc_ok oltp
o=$TMP/oltp.out
eq "oltp: job headers and the all-jobs report" "$(grep -E '^--- ' "$o" | tr '\n' '|')" \
	"--- Job table (2 threads, sync) ---|--- Job log (1 thread, sync) ---|--- Phase oltp, all jobs ---|"
eq "oltp --threads=2: the table job has 2 threads in its per-thread table" \
	"$(section "$o" '--- Job table' | thread_rows | wc -l)" 2
read -r tr tw tf < <(section "$o" '--- Job table' | rwf)
read -r lr lw lf < <(section "$o" '--- Job log' | rwf)
read -r ar aw af < <(section "$o" '--- Phase oltp, all jobs' | rwf)
pos "oltp: the table job reads, writes and fdatasyncs" "$tr" "$tw" "$tf"
near "oltp: table reads / writes = 70 / 30" "$(awk -v r="$tr" -v w="$tw" 'BEGIN { print w ? r / w : 0 }')" 2.333 5
eq "oltp: the log job only writes and syncs" "$lr $([ "$lw" -gt 0 ] && [ "$lf" -gt 0 ] && echo yes)" "0 yes"
eq "oltp: all jobs = table + log (reads, writes, fsyncs)" "$ar $aw $af" "$((tr + lr)) $((tw + lw)) $((tf + lf))"
eq "oltp: all jobs' events = the sum of the jobs'" "$(section "$o" '--- Phase oltp, all jobs' | events)" \
	"$(($(section "$o" '--- Job table' | events) + $(section "$o" '--- Job log' | events)))"

# --- hotset: 4 readers (4k/16k/64k) on a hot set, one writer at 200 writes/s ---
run_wl hotset "$(newdir hotset)" --size=16M --time=1
rc_ok hotset
o=$TMP/hotset.out
eq "hotset: job headers and the all-jobs report" "$(grep -E '^--- ' "$o" | tr '\n' '|')" \
	"--- Job readers (4 threads, sync) ---|--- Job refresher (1 thread, sync) ---|--- Phase hot, all jobs ---|"
read -r rr rw rf < <(section "$o" '--- Job readers' | rwf)
read -r fr fw ff < <(section "$o" '--- Job refresher' | rwf)
read -r ar aw af < <(section "$o" '--- Phase hot, all jobs' | rwf)
pos "hotset: the readers read" "$rr"
eq "hotset: the readers do not write" "$rw" 0
near "hotset: the refresher writes at its rate (200/s)" \
	"$(job_get "$TMP/hotset.json" 0 1 result.op_types.write.ops_per_s)" 200 10
eq "hotset: all jobs = readers + refresher" "$ar $aw $af" "$((rr + fr)) $((rw + fw)) $((rf + ff))"
# 50% 4k, 30% 16k, 20% 64k: 19.6 KiB a read on average
near "hotset: mean read size from the block distribution (20070 B)" \
	"$(job_get "$TMP/hotset.json" 0 0 result.op_types.read.{bytes,ops} | paste -sd ' ' | awk '{ print $2 ? $1 / $2 : 0 }')" \
	20070 3

# --- readers-vs-writer and priorities: 4 KiB O_DIRECT random readers beside a 1 MiB O_DIRECT
# sequential writer (libaio, depth 8), each job at the I/O priority it declares ---
# rw_jobs FILE: per job of the phase, "name threads engine depth flags declared/read-back
# reads writes" ("4096B": reads of 4 KiB each and at least one; "none": no read), '|'-joined.
rw_jobs() {
	python3 - "$1" <<'EOF' 2>&1
import json, sys
def ops(o):
    if not o or not o["ops"]:
        return "none"
    return "%dB" % (o["bytes"] // o["ops"]) if o["bytes"] % o["ops"] == 0 else "mixed"
rows = []
for j in json.load(open(sys.argv[1]))["phases"][0]["jobs"]:
    c, r = j["result"]["config"], j["result"]["result"]
    rows.append("%s %d %s %d %s %s/%s %s %s" % (j["name"], len(r["threads"]), c["ioengine"],
                c["iodepth"], c["file_extra_flags"], j["declared"]["ioprio"], r["ioprio"],
                ops(r["op_types"].get("read")), ops(r["op_types"].get("write"))))
print("|".join(rows))
EOF
}
# rw_report FILE: report()'s lines of the two workloads, rebuilt from the JSON FILE. LuaJIT's
# string.format rounds a tie away from zero ("%.0f" of 152.5 is 153), Python's and C's to
# even (152): a percentile clamped to a latency's max can be such a tie in microseconds, so
# the figures are rounded as LuaJIT does.
rw_report() {
	python3 - "$1" <<'EOF' 2>&1
import json, sys
from decimal import Decimal, ROUND_HALF_UP
def f(x, w, nd):
    return "%*s" % (w, Decimal(x).quantize(Decimal(1).scaleb(-nd), rounding=ROUND_HALF_UP))
p = json.load(open(sys.argv[1]))["phases"][0]
res = [j["result"]["result"] for j in p["jobs"]]
if len(res) == 2:
    rd, wr = res
    pc = rd["op_types"]["read"]["latency"]["percentiles_ns"]
    print("readers: %d x 4 KiB random (ioprio %s): %s IOPS, p50 %s us, p95 %s us, "
          "p99 %s us | writer: 1 MiB sequential (ioprio %s): %s MiB/s"
          % (len(rd["threads"]), rd["ioprio"], f(rd["op_types"]["read"]["ops_per_s"], 0, 0),
             f(pc["50"] / 1000, 0, 0), f(pc["95"] / 1000, 0, 0), f(pc["99"] / 1000, 0, 0),
             wr["ioprio"], f(wr["op_types"]["write"]["mib_per_s"], 0, 1)))
else:
    print("%-8s %-8s %10s %10s %10s %10s" % ("job", "ioprio", "IOPS", "p50 us", "p99 us", "MiB/s"))
    for j, r in zip(p["jobs"], res):
        o = r["op_types"]["write" if j["name"] == "writer" else "read"]
        pc = o["latency"]["percentiles_ns"]
        print("%-8s %-8s %s %s %s %s" % (j["name"], r["ioprio"], f(o["ops_per_s"], 10, 0),
              f(pc["50"] / 1000, 10, 0), f(pc["99"] / 1000, 10, 0), f(o["mib_per_s"], 10, 1)))
EOF
}
RVW=$(newdir rvw)
run_wl readers-vs-writer "$RVW" --size=16M --time=1 --readers=3 --reader-ioprio=be:1 \
	--writer-ioprio=be:6
rc_ok readers-vs-writer
eq "readers-vs-writer: 3 sync readers of 4 KiB and a libaio writer (depth 8) of 1 MiB, O_DIRECT, each at its declared and read-back priority" \
	"$(rw_jobs "$TMP/readers-vs-writer.json")" \
	"readers 3 sync 1 direct be:1/be:1 4096B none|writer 1 libaio 8 direct be:6/be:6 none 1048576B"
eq "readers-vs-writer: report()'s line is the JSON's figures" \
	"$(report_rows "$TMP/readers-vs-writer.out")" "$(rw_report "$TMP/readers-vs-writer.json")"
run_wl readers-vs-writer "$RVW" --size=16M --time=1 --readers=1 --direct=off --engine=io_uring \
	--iodepth=4
rc_ok readers-vs-writer
eq "readers-vs-writer --direct=off --engine=io_uring --iodepth=4: buffered, the writer's engine and depth, no priority" \
	"$(rw_jobs "$TMP/readers-vs-writer.json")" \
	"readers 1 sync 1 (none) none/none 4096B none|writer 1 io_uring 4 (none) none/none none 1048576B"

PRI=$(newdir pri)
if need_root; then
	run_wl priorities "$PRI" --size=16M --time=1 --rt-level=2 --be-level=7
	rc_ok priorities
	eq "priorities: an rt, a be and an idle reader of 4 KiB and a writer of 1 MiB, O_DIRECT, at their priorities" \
		"$(rw_jobs "$TMP/priorities.json")" \
		"rt 1 sync 1 direct rt:2/rt:2 4096B none|be 1 sync 1 direct be:7/be:7 4096B none|idle 1 sync 1 direct idle/idle 4096B none|writer 1 libaio 8 direct none/none none 1048576B"
	eq "priorities: report()'s table is the JSON's figures" \
		"$(report_rows "$TMP/priorities.out")" "$(rw_report "$TMP/priorities.json")"
	# The rt reader without the privilege: refused before anything runs.
	chmod 0755 "$TMP"
	chmod -R a+rwX "$PRI"
	install -m 0644 "$WL/priorities.lua" "$TMP/priorities.lua"
	before=$(stat -c '%n %s %Y' "$PRI"/*)
	expect_exit 2 "priorities as nobody: exit 2" as_nobody \
		run --dir="$PRI" --script "$TMP/priorities.lua" --size=16M \
		--time=1
	chmod 0700 "$TMP"
	eq "priorities as nobody: the set is untouched" "$(stat -c '%n %s %Y' "$PRI"/*)" "$before"
else
	"$SBIO" prepare --dir="$PRI" --script "$WL/priorities.lua" --size=16M >/dev/null 2>&1
	expect_exit 2 "priorities without root: exit 2" \
		"$SBIO" run --dir="$PRI" --script "$WL/priorities.lua" --size=16M --time=1
fi
stderr_one_line "priorities without the privilege: one line on stderr"
check "priorities without the privilege: it says the realtime class needs it" \
	grep -q '^sbio: I/O priority rt:0: the realtime class needs CAP_SYS_ADMIN or CAP_SYS_NICE' "$TMP/err"
check "priorities without the privilege: nothing on stdout" test ! -s "$TMP/out"

# --- a script run on a set prepared by other options: refused as the built-in does ---
expect_exit 2 "oltp --size=32M on the set prepared with --size=16M: refused (exit 2)" \
	"$SBIO" run --dir="$TMP/oltp" --script "$WL/oltp.lua" --size=32M --time=1 --threads=1
stderr_one_line "oltp on a set of another size: one line on stderr"

# --- the script's own options ---
expect_exit 0 "oltp --help: exit 0" "$SBIO" --script "$WL/oltp.lua" --help
eq "oltp --help: the script's options with their defaults" \
	"$(sed -n '/^Options of the script /,/^$/p' "$TMP/out" | grep '^  ' | awk '{ printf "%s %s|", $1, $NF }')" \
	"--size=VALUE [256M]|--time=N [10]|--theta=N [1.1]|--threads=N [8]|"
bad=
for s in "$WL"/*.lua; do
	"$SBIO" --script "$s" --help >"$TMP/out" 2>&1 || bad="$bad $(basename "$s"):exit"
	for o in $(grep -oP '^option\("\K[^"]+' "$s"); do
		sed -n '/^Options of the script /,/^$/p' "$TMP/out" | grep -qE -- "^  --$o=[^ ]+ .*\[[^]]*\]$" ||
			bad="$bad $(basename "$s"):--$o"
	done
done
eq "--help of every shipped workload lists each of its option() with a default" "${bad:-all listed}" "all listed"
expect_exit 2 "oltp --threads=many: exit 2" "$SBIO" run --dir="$TMP/oltp" --script "$WL/oltp.lua" --size=16M --threads=many
stderr_one_line "oltp --threads=many: one line on stderr"
check "oltp --threads=many: the line names --threads" grep -q -- '--threads' "$TMP/err"
check "oltp --threads=many: nothing ran (no report)" test ! -s "$TMP/out"
expect_exit 2 "iozone --size=lots: exit 2" "$SBIO" run --dir="$TMP/iozone" --script "$WL/iozone.lua" --size=lots
stderr_one_line "iozone --size=lots: one line on stderr"
check "iozone --size=lots: the line names --size" grep -q -- 'size' "$TMP/err"
expect_exit 0 "a workload by its bare name (SBIO_WORKLOADS): --help" env SBIO_WORKLOADS="$WL" "$SBIO" --script iozone --help
check "a workload by its bare name: its options listed" grep -q -- '--record=' "$TMP/out"

# --- a per-event script and its declarative twin: the same operations for the same seed ---
SD=$TMP/scripts
mkdir -p "$SD"
cat >"$SD/decl.lua" <<'EOF'
fileset { files = 4, size = "16M" }
phase "p" { time = 0, events = 2000,
    job "j" { threads = 1, block = "4k", pattern = "uniform", mix = { read = 1 } } }
EOF
cat >"$SD/event.lua" <<'EOF'
-- the declarative job "j" of decl.lua, one operation at a time: a single-operation mix makes
-- no draw for the operation, so the block is the thread's only draw
fileset { files = 4, size = "16M" }
phase "p" { time = 0, events = 2000, job "j" { threads = 1, block = "4k", event = true } }
local per
function event(ctx)
    per = per or sbio.files[1] / 4096
    local b = sbio.rand(per * #sbio.files)
    ctx.op = sbio.READ
    ctx.file = math.floor(b / per)
    ctx.offset = (b % per) * 4096
    ctx.len = 4096
    return true
end
EOF
sed -e 's/threads = 1/threads = 2/' -e 's/events = 2000/events = 4000/' "$SD/event.lua" >"$SD/event2.lua"
sed -e 's/threads = 1/threads = 2/' -e 's/events = 2000/events = 4000/' "$SD/decl.lua" >"$SD/decl2.lua"
# A mix with every kind of draw: the operation, the size, a zipf block; and two such jobs.
cat >"$SD/mix.lua" <<'EOF'
fileset { files = 4, size = "16M" }
phase "p" { time = 0, events = 3000,
    job "j" { block = { ["4k"] = 50, ["16k"] = 50 }, pattern = "zipf:1.2", mix = { read = 3, write = 1 } } }
EOF
cat >"$SD/mix2.lua" <<'EOF'
fileset { files = 4, size = "16M" }
phase "p" { time = 0, events = 3000,
    job "a" { block = { ["4k"] = 50, ["16k"] = 50 }, pattern = "zipf:1.2", mix = { read = 3, write = 1 } },
    job "b" { block = "8k", pattern = "hot:0.1:0.9", mix = { read = 1, write = 1 } } }
EOF
Q=$(newdir twin)
expect_exit 0 "prepare the twins' set (4 x 4 MiB)" "$SBIO" prepare --dir="$Q" --script "$SD/decl.lua"
# ops FILE: "op file offset len" of every read and write on the set in an strace -y log.
ops() {
	grep -oP '(pread64|pwrite64)\(\d+<[^>]*/test_file\.\d+>, .*, \d+, \d+\) = \d+' "$1" |
		sed -E 's/^(pread64|pwrite64)\([0-9]+<[^>]*test_file\.([0-9]+)>, .*, ([0-9]+), ([0-9]+)\) = [0-9]+$/\1 \2 \4 \3/'
}
# traced NAME SCRIPT SEED: run SCRIPT under strace -f; its operations in $TMP/NAME.ops.
traced() {
	strace -f -y -s 0 -e trace=pread64,pwrite64 -o "$TMP/$1.tr" \
		"$SBIO" run --dir="$Q" --script "$2" --rand-seed="$3" >"$TMP/$1.out" 2>"$TMP/$1.err"
	echo $? >"$TMP/$1.rc"
	ops "$TMP/$1.tr" >"$TMP/$1.ops"
}
# per_thread NAME SCRIPT SEED: the same under strace -ff: one file of operations per thread
# (those that did any), $TMP/NAME.t/*.ops.
per_thread() {
	rm -rf "$TMP/$1.t"
	mkdir -p "$TMP/$1.t"
	strace -ff -y -s 0 -e trace=pread64,pwrite64 -o "$TMP/$1.t/tr" \
		"$SBIO" run --dir="$Q" --script "$2" --rand-seed="$3" >"$TMP/$1.out" 2>"$TMP/$1.err"
	echo $? >"$TMP/$1.rc"
	local f
	for f in "$TMP/$1.t"/tr.*; do
		ops "$f" >"$f.ops"
		[ -s "$f.ops" ] || rm -f "$f.ops"
	done
}
# same_prefix A B: the shorter of files A and B is a prefix of the longer.
same_prefix() {
	local n
	n=$(($(wc -l <"$1") < $(wc -l <"$2") ? $(wc -l <"$1") : $(wc -l <"$2")))
	[ "$n" -gt 0 ] && cmp -s <(head -n "$n" "$1") <(head -n "$n" "$2")
}
if ! $HAVE_STRACE; then
	skip "strace is not installed: the operations issued cannot be compared"
else
	traced decl "$SD/decl.lua" 42
	traced event "$SD/event.lua" 42
	eq "twins: both runs exit 0" "$(cat "$TMP/decl.rc") $(cat "$TMP/event.rc")" "0 0"
	eq "twins: 2000 reads of 4 KiB each" "$(wc -l <"$TMP/decl.ops") $(wc -l <"$TMP/event.ops") $(awk '$1 != "pread64" || $4 != 4096' "$TMP/decl.ops" "$TMP/event.ops" | wc -l)" "2000 2000 0"
	eq "twins: the reads reach all 4 files" "$(awk '{ print $2 }' "$TMP/event.ops" | sort -u | tr '\n' ' ')" "0 1 2 3 "
	if cmp -s "$TMP/decl.ops" "$TMP/event.ops"; then
		ok "twins, --rand-seed=42: the per-event script issues the declarative job's reads (same files, offsets, order)"
	else
		notok "twins, --rand-seed=42: different reads (first difference: $(diff "$TMP/decl.ops" "$TMP/event.ops" | head -n 3 | tr '\n' '|'))"
	fi
	# 2 threads: each thread draws from its own generator, in the hook as in the mix. The
	# phase's event budget is shared, so a thread's count may differ between the runs: each
	# declarative thread's reads and an event thread's are one the other's prefix.
	per_thread decl2 "$SD/decl2.lua" 9
	per_thread event2 "$SD/event2.lua" 9
	eq "twins, 2 threads: both runs exit 0, 2 threads read in each" \
		"$(cat "$TMP/decl2.rc") $(cat "$TMP/event2.rc") $(ls "$TMP/decl2.t"/*.ops 2>/dev/null | wc -l) $(ls "$TMP/event2.t"/*.ops 2>/dev/null | wc -l)" "0 0 2 2"
	bad=0
	for a in "$TMP/decl2.t"/*.ops; do
		m=0
		for b in "$TMP/event2.t"/*.ops; do same_prefix "$a" "$b" && m=1; done
		[ $m = 1 ] || bad=$((bad + 1))
	done
	eq "twins, 2 threads: every declarative thread's reads are an event thread's (prefix)" "$bad threads unmatched" "0 threads unmatched"

	# --rand-seed repeats a mix run exactly; another seed does not
	traced mixA "$SD/mix.lua" 5
	traced mixB "$SD/mix.lua" 5
	traced mixC "$SD/mix.lua" 6
	eq "mix: 3 runs exit 0" "$(cat "$TMP/mixA.rc") $(cat "$TMP/mixB.rc") $(cat "$TMP/mixC.rc")" "0 0 0"
	eq "mix: reads and writes, 4k and 16k" "$(awk '{ print $1, $4 }' "$TMP/mixA.ops" | sort -u | tr '\n' ' ')" \
		"pread64 16384 pread64 4096 pwrite64 16384 pwrite64 4096 "
	eq "mix: 3000 operations" "$(wc -l <"$TMP/mixA.ops")" 3000
	check "mix, --rand-seed=5 twice: the same operations in the same order" cmp -s "$TMP/mixA.ops" "$TMP/mixB.ops"
	check "mix, --rand-seed=6: other operations" test "$(cmp -s "$TMP/mixA.ops" "$TMP/mixC.ops"; echo $?)" = 1
	# two jobs side by side, one thread each: every thread's sequence repeats
	per_thread mix2A "$SD/mix2.lua" 5
	per_thread mix2B "$SD/mix2.lua" 5
	per_thread mix2C "$SD/mix2.lua" 6
	sums() { for f in "$TMP/$1.t"/*.ops; do md5sum <"$f"; done | sort | tr '\n' ' '; }
	eq "two jobs: 3 runs exit 0, 2 threads doing I/O in each" \
		"$(cat "$TMP/mix2A.rc") $(cat "$TMP/mix2B.rc") $(cat "$TMP/mix2C.rc") $(ls "$TMP/mix2A.t"/*.ops | wc -l)" "0 0 0 2"
	eq "two jobs, --rand-seed=5 twice: each job's thread repeats its operations" "$(sums mix2A)" "$(sums mix2B)"
	check "two jobs, --rand-seed=6: other operations" test "$(sums mix2A)" != "$(sums mix2C)"
	check "two jobs: the jobs' sequences differ (seeded by their index)" \
		test "$(sums mix2A | awk '{ print ($1 != $3) }')" = 1
fi

# --- errors in a script: exit 2, one line FILE:LINE: …, nothing on disk ---
B=$TMP/bad
mkdir -p "$B"
printf 'fileset { files = 1, size = "4M" }\nphase "p" {\n    job "j" { block = "4k" }\n' >"$B/syntax.lua"
printf 'fileset { files = 1, size = "4M" }\nphase "p" {\n    time = 1,\n    job "j" { blok = "4k" },\n}\n' >"$B/field.lua"
printf 'fileset { files = 1, size = "4M" }\nphase "p" {\n    time = 1,\n    job "j" { block = "4k", mix = { read = "lots" } },\n}\n' >"$B/weight.lua"
printf 'option("n", 1, "a number")\nfileset { files = 1, size = -4096 }\nphase "p" { time = 1, job "j" { block = "4k" } }\n' >"$B/negsize.lua"
printf 'fileset { files = 1, size = "4M" }\nphase "p" { time = 1, job "j" { block = -4096 } }\n' >"$B/negblock.lua"
printf 'fileset { files = 1, size = "4M" }\nlocal t = nil\nlocal x = t.field\nphase "p" { time = 1, job "j" { block = "4k" } }\n' >"$B/runtime.lua"
# name:line of the error
for nl in syntax:4 field:4 weight:4 negsize:2 negblock:2 runtime:3; do
	n=${nl%:*}
	l=${nl#*:}
	E=$(newdir "empty-$n")
	for cmd in prepare run; do
		expect_exit 2 "$n.lua: $cmd exits 2" "$SBIO" $cmd --dir="$E" --script "$B/$n.lua"
		stderr_one_line "$n.lua: $cmd: one line on stderr"
		# sbio prefixes every message with "sbio: " (accepted here); the script's FILE:LINE: follows
		if grep -qE "^(sbio: )?$B/$n\.lua:$l: " "$TMP/err"; then
			ok "$n.lua: $cmd: the line starts with FILE:LINE: ($n.lua:$l)"
		else
			notok "$n.lua: $cmd: the line starts with $B/$n.lua:$l: (got '$(head -n 1 "$TMP/err")')"
		fi
		eq "$n.lua: $cmd: nothing on disk (the folder stays empty)" "$(listing "$E")" ""
	done
done

# --- a runtime error in event(): the run stops, what was measured, the traceback, exit 1 ---
cat >"$SD/broken.lua" <<'EOF'
fileset { files = 4, size = "16M" }
phase "p" { time = 10, job "j" { block = "4k", event = true } }
local n, per = 0, nil
function event(ctx)
    n = n + 1
    if n > 100 then
        local t = nil
        return t.x -- line 8
    end
    per = per or sbio.files[1] / 4096
    local b = sbio.rand(per * #sbio.files)
    ctx.op, ctx.file, ctx.offset, ctx.len = sbio.READ, math.floor(b / per), (b % per) * 4096, 4096
    return true
end
EOF
expect_exit 1 "event() indexes nil after 100 calls: exit 1" \
	timeout 20 "$SBIO" run --dir="$Q" --script "$SD/broken.lua" --rand-seed=1
check "event() error: the job's report is printed" grep -q '^--- Job j (1 thread' "$TMP/out"
eq "event() error: the report counts the 100 reads made" "$(section "$TMP/out" '--- Job j' | rwf)" "100 0 0"
check "event() error: stderr has the traceback" grep -q 'stack traceback' "$TMP/err"
check "event() error: stderr names the script file and line" grep -qF "$SD/broken.lua:8:" "$TMP/err"
check "event() error: the traceback names event()'s frame" grep -qE "$SD/broken.lua:8: in function" "$TMP/err"

# --- ctx's fields are Lua numbers: ctx.seq % 10 and math.floor(ctx.seq / 500) (the doc's
# example) decide the operations: of 1000 events, writes where seq % 10 == 9 or seq is in
# 500..999: 50 + 500 ---
cat >"$SD/ctxseq.lua" <<'LUA'
fileset { files = 4, size = "16M" }
local bs = 4096
function event(ctx)
    local per = math.floor(sbio.files[1] / bs)
    local blk = sbio.rand(per * #sbio.files)
    local w = ctx.seq % 10 == 9 or math.floor(ctx.seq / 500) == 1
    ctx.op = w and sbio.WRITE or sbio.READ
    ctx.file = math.floor(blk / per)
    ctx.offset = (blk % per) * bs
    ctx.len = bs
    return true
end
phase "custom" { time = 0, events = 1000, job "j" { threads = 1, block = "4k", event = true } }
LUA
expect_exit 0 "event() with math.floor(ctx.seq / 500) and ctx.seq % 10: exit 0" \
	"$SBIO" run --dir="$Q" --script "$SD/ctxseq.lua" --rand-seed=1
eq "event() on ctx.seq: the reads and writes it chose (450 reads, 550 writes)" \
	"$(section "$TMP/out" '--- Job j' | rwf)" "450 550 0"

# --- prepare's header says the set's sizes: sysbench's "N files, X each" line for one size,
# each size counted when they differ ---
cat >"$SD/unequal.lua" <<'LUA'
fileset { sizes = { "1M", "1M", "1M", "1M", "1M", "1M", "1M", "1M", "2M" } }
phase "p" { time = 1, job "j" { block = "4k" } }
LUA
expect_exit 0 "prepare a set of 8 files of 1 MiB and one of 2 MiB" \
	"$SBIO" prepare --dir="$(newdir unequal)" --script "$SD/unequal.lua"
check "prepare's header: 9 files: 8 of 1 MiB, 1 of 2 MiB, 10 MiB total" \
	grep -qx '9 files: 8 of 1 MiB, 1 of 2 MiB, 10 MiB total' "$TMP/out"
expect_exit 0 "prepare a set of 3 equal files" \
	"$SBIO" prepare --dir="$(newdir equal)" --file-num=3 --file-total-size=3M
check "prepare's header for equal files: 3 files, 1 MiB each, 3 MiB total" \
	grep -qx '3 files, 1 MiB each, 3 MiB total' "$TMP/out"

# --- the script's error in event() stops its phase at once: the sibling job (30 s) and the
# later phase do not run on; named as the script's error (FILE:LINE), not an I/O error;
# exit 1; JSON errors[].kind = script. Also when it fails in the warm-up (no job waits for
# the one that failed at a meeting). timeout: a run that went on would take 60 s ---
cat >"$SD/jobfails.lua" <<'LUA'
fileset { files = 4, size = "16M" }
local n = 0
function event(ctx)
    n = n + 1
    if n > 50 then
        local t = nil
        return t.x -- line 7
    end
    ctx.op, ctx.file, ctx.offset, ctx.len = sbio.READ, 0, 0, 4096
    return true
end
phase "p" { time = 30,
    job "bad" { block = "4k", event = true },
    job "other" { block = "4k", mix = { read = 1 } },
}
phase "later" { time = 30, job "z" { block = "4k" } }
LUA
expect_exit 1 "event() fails beside a 30 s job: exit 1, within the timeout" \
	timeout 25 "$SBIO" run --dir="$Q" --script "$SD/jobfails.lua" -o "$TMP/jobfails.json"
check "event() fails: stderr names the script's file and line" \
	grep -qF "$SD/jobfails.lua:7: attempt to index" "$TMP/err"
check "event() fails: no word of an I/O error" \
	test -z "$(grep -i 'I/O error' "$TMP/out" "$TMP/err")"
check "event() fails: the job's report says the script's error" \
	grep -qF "*** Stopped by the script's error: $SD/jobfails.lua:7:" "$TMP/out"
check "event() fails: the later phase is named as not run" \
	grep -qx "Not run after the script's error: phase later" "$TMP/out"
eq "event() fails: JSON: one phase, the job's error of kind script, the sibling ran < 10 s of its 30" \
	"$(pyj "$TMP/jobfails.json" '(len(d["phases"]), [e["kind"] for e in d["phases"][0]["jobs"][0]["result"]["result"]["errors"]], d["phases"][0]["total"]["result"]["errors"][0]["kind"], d["phases"][0]["jobs"][1]["result"]["result"]["elapsed_s"] < 10)')" \
	"(1, ['script'], 'script', True)"
expect_exit 1 "event() fails in the warm-up beside a 30 s job: exit 1, within the timeout" \
	timeout 25 "$SBIO" run --dir="$Q" --script "$SD/jobfails.lua" --warmup-time=20 -o "$TMP/jobfails.json"
eq "event() fails in the warm-up: JSON: the job's error of kind script" \
	"$(pyj "$TMP/jobfails.json" '[e["kind"] for e in d["phases"][0]["jobs"][0]["errors"]]')" "['script']"

# --- an error about one job of a phase names that job's line (a: 4, j: 5), not the phase's
# (2): j's group value, --verify's partition (a named first, clashing with j), j's block
# larger than the files ---
for c in group:"5: job j: group weight 100000" verify:'4: --verify: phase "p", job "a": ' \
	block:'5: phase "p", job "j": block=8 MiB is larger than the files'; do
	n=${c%%:*}
	case $n in
	group) f='group = { weight = 100000 }' ;;
	verify) f='mode = "seqrd"' ;;
	block) f='block = "8M"' ;;
	esac
	printf 'fileset { files = 4, size = "16M" }\nphase "p" {\n    time = 1,\n    job "a" { block = "4k" },\n    job "j" {\n        %s,\n    },\n}\n' \
		"$f" >"$SD/jobline-$n.lua"
	args=()
	[ "$n" = verify ] && args=(--verify)
	expect_exit 2 "jobline-$n.lua: refused" "$SBIO" run --dir="$Q" --script "$SD/jobline-$n.lua" "${args[@]}"
	check "jobline-$n.lua: the message starts with the job's FILE:LINE: (${c#*:})" \
		grep -qF "sbio: $SD/jobline-$n.lua:${c#*:}" "$TMP/err"
done

# --- two jobs side by side: each reported, all jobs in total; JSON sbio-script/1 ---
cat >"$SD/two.lua" <<'EOF'
fileset { files = 4, size = "16M" }
phase "rw" {
    time = 1,
    job "readers" { threads = 3, block = "4k", pattern = "zipf:1.2", mix = { read = 1 } },
    job "writer" { threads = 1, block = "16k", pattern = "uniform", mix = { write = 4, fdatasync = 1 } },
}
EOF
expect_exit 0 "two jobs (3 readers, 1 writer): exit 0" \
	"$SBIO" run --dir="$Q" --script "$SD/two.lua" -o "$TMP/two.json"
cp "$TMP/out" "$TMP/two.out"
o=$TMP/out
eq "two jobs: a report per job, then all jobs" "$(grep -E '^--- ' "$o" | tr '\n' '|')" \
	"--- Job readers (3 threads, sync) ---|--- Job writer (1 thread, sync) ---|--- Phase rw, all jobs ---|"
read -r r1 w1 f1 < <(section "$o" '--- Job readers' | rwf)
read -r r2 w2 f2 < <(section "$o" '--- Job writer' | rwf)
read -r ra wa fa < <(section "$o" '--- Phase rw, all jobs' | rwf)
pos "two jobs: the readers read, the writer writes and syncs" "$r1" "$w2" "$f2"
eq "two jobs: the readers only read, the writer never reads" "$w1 $f1 $r2" "0 0 0"
eq "two jobs: all jobs' reads, writes, fsyncs = the sums" "$ra $wa $fa" "$((r1 + r2)) $((w1 + w2)) $((f1 + f2))"
eq "two jobs: all jobs' events = the sum" "$(section "$o" '--- Phase rw, all jobs' | events)" \
	"$(($(section "$o" '--- Job readers' | events) + $(section "$o" '--- Job writer' | events)))"
eq "two jobs: the all-jobs per-thread table has the 4 threads" "$(section "$o" '--- Phase rw, all jobs' | thread_rows | wc -l)" 4
j=$TMP/two.json
eq "two jobs, JSON: schema, one phase, its name" \
	"$(json_get "$j" schema 'phases.#' phases.0.name | paste -sd ' ')" "sbio-script/1 1 rw"
eq "two jobs, JSON: phases[0].jobs[] are result documents, by name" \
	"$(json_get "$j" 'phases.0.jobs.#' phases.0.jobs.{0,1}.{name,result.schema,result.config.threads} | paste -sd ' ')" \
	"2 readers sbio-result/1 3 writer sbio-result/1 1"
eq "two jobs, JSON: total ops = the sum of the jobs' ops (and the text's)" \
	"$(pyj "$j" '(lambda p: (p["total"]["result"]["ops"] == sum(x["result"]["result"]["ops"] for x in p["jobs"]), p["total"]["result"]["ops"]))(d["phases"][0])')" \
	"(True, $((ra + wa + fa)))"
eq "two jobs, JSON: total's op types are the sums" \
	"$(pyj "$j" '(lambda p: all(p["total"]["result"]["op_types"][k]["ops"] == sum(x["result"]["result"]["op_types"].get(k, {"ops": 0})["ops"] for x in p["jobs"]) for k in ("read", "write", "fsync")))(d["phases"][0])')" \
	"True"
eq "two jobs, JSON: the total covers 4 threads (result and config)" \
	"$(json_get "$j" 'phases.0.total.result.threads.#' phases.0.total.config.threads | paste -sd ' ')" "4 4"
eq "two jobs, JSON: each job as declared (kind, mix, blocks, pattern)" \
	"$(pyj "$j" '[(x["declared"]["kind"], {k: v for k, v in x["declared"]["mix"].items() if v}, [(b["bytes"], b["weight"]) for b in x["declared"]["blocks"]], x["declared"]["pattern"], x["declared"]["pattern_a"], x["declared"]["threads"]) for x in d["phases"][0]["jobs"]]')" \
	"[('mix', {'read': 1.0}, [(4096, 1.0)], 'zipf', 1.2, 3), ('mix', {'write': 4.0, 'fdatasync': 1.0}, [(16384, 1.0)], 'uniform', 0.0, 1)]"

# --- two phases, the first of two jobs: a job's report leaves the process's CPU, page-fault,
# device and page-cache lines to the phase's total; fdatasync has its own row (as many as
# the fdatasync calls strace sees); a table of the phases ends the report ---
cat >"$SD/phases.lua" <<'EOF'
fileset { files = 2, size = "8M" }
phase "mixed" {
    time = 1,
    job "readers" { threads = 2, block = "4k", mix = { read = 1 } },
    job "syncer" { threads = 1, block = "4k", mix = { write = 2, fsync = 1, fdatasync = 3 } },
}
phase "reread" { time = 1, job "r" { threads = 1, block = "16k", mix = { read = 1 } } }
EOF
P=$(newdir phases)
"$SBIO" prepare --dir="$P" --script "$SD/phases.lua" >/dev/null 2>&1
TRACE=()
$HAVE_STRACE && TRACE=(strace -f -qq -y -e trace=fsync,fdatasync -o "$TMP/phases.tr")
expect_exit 0 "two phases: exit 0" "${TRACE[@]}" "$SBIO" run --dir="$P" --script "$SD/phases.lua" \
	-o "$TMP/phases.json"
cp "$TMP/out" "$TMP/phases.out"
o=$TMP/phases.out
# process_lines: stdin's lines that are the process's, by their first six characters.
process_lines() {
	grep -oE '^(CPU:|Page faults:|Device [^ ]+ over the run|Page cache of the set)' | cut -c1-6 | paste -sd ' '
}
share="Device and page-cache figures: the process's, in the phase's total below"
for jb in readers syncer; do
	eq "two phases: job $jb has its threads' CPU and page faults, no process-wide lines" "$(section "$o" "--- Job $jb" | process_lines)" "CPU: Page f"
	eq "two phases: job $jb says where the process-wide ones are" "$(section "$o" "--- Job $jb" | grep -cxF "$share")" 1
done
eq "two phases: the first phase's total has them, once each" \
	"$(section "$o" '--- Phase mixed, all jobs' | process_lines)" "CPU: Page f Device Page c"
eq "two phases: a phase of one job has them in its job's report" \
	"$(section "$o" '--- Job r ' | process_lines)" "CPU: Page f Device Page c"
eq "two phases: a CPU line per job and per phase total in the whole report" "$(grep -c '^CPU:' "$o")" 4
json_expect "two phases: the first phase's CPU and faults are the sum of its jobs'" "$TMP/phases.json" '
p = d["phases"][0]
tot = p["total"]["result"]["cpu"] if "total" in p else None
jobs = [j["result"]["result"]["cpu"] for j in p["jobs"]]
if tot is None: print("no phase total", list(p.keys()))
else:
    for k in ("user_s", "system_s"):
        if abs(tot[k] - sum(j[k] for j in jobs)) > 1e-5: print(k, tot[k], [j[k] for j in jobs])
    for k in ("minor_faults", "major_faults"):
        if tot[k] != sum(j[k] for j in jobs): print(k, tot[k], [j[k] for j in jobs])'

# op_ops OP: the ops column of stdin's per-operation row OP.
op_ops() { awk -v op="$1" '$1 == op { print $2; exit }'; }
syn=$(section "$o" '--- Job syncer')
fs=$(op_ops fsync <<<"$syn")
fds=$(op_ops fdatasync <<<"$syn")
pos "two phases: the syncer's fsync and fdatasync rows" "$fs" "$fds"
eq "two phases: fsync + fdatasync rows = sysbench's fsyncs count" "$((fs + fds))" "$(rwf <<<"$syn" | awk '{ print $3 }')"
# The mix's proportion over a fixed number of draws (the timed phase above may make a dozen
# syncs on a loaded machine, too few to judge a proportion by).
cat >"$SD/syncmix.lua" <<'EOF'
fileset { files = 2, size = "8M" }
phase "syncs" { events = 400, job "syncer" { threads = 1, block = "4k", mix = { write = 2, fsync = 1, fdatasync = 3 } } }
EOF
"$SBIO" run --dir="$P" --script "$SD/syncmix.lua" >"$TMP/syncmix.out" 2>&1
syn4=$(section "$TMP/syncmix.out" '--- Job syncer')
fs4=$(op_ops fsync <<<"$syn4")
fds4=$(op_ops fdatasync <<<"$syn4")
draws_near "a mix's fdatasyncs are its 3 in 4 of the syncs ($fds4 of $((fs4 + fds4)), 400 events)" "$fds4" "$((fs4 + fds4))" 0.75
if $HAVE_STRACE; then
	eq "two phases, strace: fdatasync and fsync calls on the set = the fdatasync and fsync rows" \
		"$(grep -c '^[0-9]* *fdatasync([0-9]*<[^>]*/test_file\.' "$TMP/phases.tr") $(grep -c '^[0-9]* *fsync([0-9]*<[^>]*/test_file\.' "$TMP/phases.tr")" \
		"$fds $fs"
else
	skip "strace is not installed: fdatasync calls not counted"
fi
eq "two phases: the phases' table ends the report, a row per phase" \
	"$(sed -n '/^Phases (each its jobs together/,$p' "$o" | awk 'NR > 1 { print $1, $2, $3 }' | paste -sd '|')" \
	"phase jobs threads|mixed 2 3|reread 1 1"
# Each row's ops/s is its phase's total of the JSON: ops over elapsed time.
for ph in 0 1; do
	name=$(json_get "$TMP/phases.json" "phases.$ph.name")
	want=$(pyj "$TMP/phases.json" "(lambda p: '%.2f' % (p['ops'] / p['elapsed_s']))((d['phases'][$ph].get('total') or d['phases'][$ph]['jobs'][0]['result'])['result'])")
	eq "two phases: table row $name: ops/s = the JSON's ops / elapsed_s" \
		"$(awk -v n="$name" '/^Phases [(]/ { p = 1; next } p && $1 == n { print $5 }' "$o")" "$want"
done
eq "a one-phase script has no phases' table" "$(grep -c '^Phases (' "$TMP/two.out")" 0

# --- a script that cannot be found: the folders searched are named ---
expect_exit 2 "no such script: exit 2" env -u SBIO_WORKLOADS "$SBIO" run --dir="$P" --script no-such-workload
stderr_one_line "no such script: one line on stderr"
check "no such script: names the file and every folder searched" grep -qE \
	'^sbio: --script no-such-workload: no such script; looked for no-such-workload\.lua in /.*/share/sbio/workloads and \./workloads \(set \$SBIO_WORKLOADS to look in another folder\)$' \
	"$TMP/err"

# --- a phase the system refuses: reported as refused, the script goes on ---
# bonnie-direct at 4k and 6k on ext4 over a loop device with 4096-byte sectors: O_DIRECT
# cannot do 6k there.
if ! need_root; then
	skip "needs root (a loop device with 4 KiB sectors for a refused O_DIRECT size)"
elif ! truncate -s 64M "$TMP/img" || ! LOOP=$(losetup -f --show -b 4096 "$TMP/img" 2>"$TMP/err"); then
	LOOP=
	skip "no loop device can be made: $(head -c 200 "$TMP/err" | tr '\n' ' ')"
elif ! mkfs.ext4 -q -F -b 4096 "$LOOP" >"$TMP/err" 2>&1 || ! mkdir -p "$MNT" || ! mount "$LOOP" "$MNT" 2>>"$TMP/err"; then
	notok "mkfs.ext4 -b 4096 and mount of $LOOP: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
else
	mkdir -p "$MNT/b"
	BARGS=(--dir="$MNT/b" --script "$WL/bonnie-direct.lua" --size=2M --sizes=4k,6k --seeks=20 --seek-procs=1)
	"$SBIO" prepare "${BARGS[@]}" >/dev/null 2>&1
	expect_exit 2 "bonnie-direct 4k,6k on 4 KiB sectors: exit 2 (a refused cell is the script's input that cannot run here)" \
		"$SBIO" run "${BARGS[@]}" -o "$TMP/refused.json"
	check "refused: the last line says how many phases were refused" \
		grep -q "^sbio: .*bonnie-direct.lua: 4 of 8 phases refused (the reasons above)$" "$TMP/err"
	eq "refused: the 4 cells at 6k are reported refused" \
		"$(grep -oP '^Phase \K.* refused(?= )' "$TMP/out" | tr '\n' '|')" "write 6k refused|rewrite 6k refused|read 6k refused|seeks 6k refused|"
	check "refused: stderr says why (the 4 KiB alignment)" grep -q 'multiple of 4 KiB' "$TMP/err"
	check "refused: the message names the script's phase and job, not an option never typed" \
		grep -q '^sbio: [^ ]*bonnie-direct\.lua:[0-9]*: phase "write 6k", job "[^"]*": block=6 KiB is not a multiple of 4 KiB' "$TMP/err"
	check "refused: no --file-block-size in the messages" bash -c "! grep -q -- --file-block-size '$TMP/err'"
	rows=$(report_rows "$TMP/out")
	eq "refused: report() rows at 6k say refused" "$(awk '$1 == "6k" { printf "%s:%s ", $2, $3 }' <<<"$rows")" \
		"write:refused rewrite:refused read:refused seeks:refused "
	pos "refused: the script went on: the 4k cells ran (MiB/s > 0)" $(awk '$1 == "4k" { print $3 }' <<<"$rows")
	eq "refused, JSON: phases marked refused" \
		"$(pyj "$TMP/refused.json" '" ".join(str(bool(p.get("refused"))) for p in d["phases"])')" \
		"False False False False True True True True"
	expect_exit 2 "bonnie-direct 4k,6k on 4 KiB sectors, -o refused.csv: exit 2" \
		"$SBIO" run "${BARGS[@]}" -o "$TMP/refused.csv"
	eq "refused, CSV: a line per phase; a refused one without a job, its error 'phase refused'" \
		"$(awk -F, 'NR > 1 { print $1 ":" $2 ":" $NF }' "$TMP/refused.csv" | paste -sd '|')" \
		"write 4k:write:|rewrite 4k:rewrite:|read 4k:read:|seeks 4k:seeks:|write 6k::phase refused|rewrite 6k::phase refused|read 6k::phase refused|seeks 6k::phase refused"
fi

# --- fio-matrix (started at the top): the 4 x 4 table of MiB/s ---
wait "$FIO_PID"
FIO_PID=
rc_ok fio-matrix
rows=$(report_rows "$TMP/fio-matrix.out")
eq "fio-matrix: the table's columns" "$(head -n 1 <<<"$rows" | tr -s ' ')" " sync mmap libaio direct (MiB/s)"
eq "fio-matrix: the table's rows" "$(tail -n +2 <<<"$rows" | awk '{ printf "%s:%d ", $1, NF }')" "read:5 randread:5 write:5 randwrite:5 "
pos "fio-matrix: every cell has MiB/s > 0" $(tail -n +2 <<<"$rows" | awk '{ print $2, $3, $4, $5 }')
eq "fio-matrix: 16 phases over the ten files, 32 KiB requests" \
	"$(pyj "$TMP/fio-matrix.json" 'len(d["phases"]), sorted(set((p["jobs"][0]["result"]["config"]["file_num"], p["jobs"][0]["result"]["config"]["block_size_bytes"]) for p in d["phases"]))')" \
	"(16, [(10, 32768)])"

# --- blockdev-sweep: blockdev-perftest's read table, buffered (-a) and --direct=on (-d) ---
# Per block size (bytes): each run's seconds, average MiB/s, population SD over the runs,
# IOPS = MiB/s over the block size in MiB. The direct run is 2 sizes x 3 runs of 32 MiB so
# that each run lasts long enough (> 0.05 s) for its printed seconds to carry its MiB/s.
# sweep_run NAME ARGS…: prepare, then run blockdev-sweep with ARGS (under strace -ff when
# there is strace: $TMP/NAME.tr.PID, reads and opens); stdout $TMP/NAME.out, JSON
# $TMP/NAME.json, "prepare run" statuses $TMP/NAME.rc.
sweep_run() {
	local name=$1 dir prc tr=()
	shift
	dir=$(newdir "$name")
	"$SBIO" prepare --dir="$dir" --script "$WL/blockdev-sweep.lua" "$@" >"$TMP/$name.prep" 2>&1
	prc=$?
	$HAVE_STRACE && tr=(strace -ff -qq -y -e "trace=openat,pread64,read" -o "$TMP/$name.tr")
	"${tr[@]}" "$SBIO" run --dir="$dir" --script "$WL/blockdev-sweep.lua" "$@" -o "$TMP/$name.json" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	echo "$prc $?" >"$TMP/$name.rc"
}
# sweep_table NAME: the table's data rows (after the mode line and the two header lines).
sweep_table() { report_rows "$TMP/$1.out" | tail -n +4; }
# sweep_sd_check: stdin's rows "BYTES S1 … Sn AVG SD IOPS" with SET_MIB in the environment;
# prints what disagrees: AVG against the mean of SET_MIB/Si, SD against their population SD,
# each within what the 3-decimal rounding of the seconds and of the figures allows.
sweep_sd_check() {
	awk -v set="$SET_MIB" '{ n = NF - 4; s = 0; s2 = 0; tol = 0
		for (i = 2; i <= n + 1; i++) { m = set / $i; s += m; s2 += m * m; e = m * 0.0005 / $i; if (e > tol) tol = e }
		avg = s / n; d = s2 / n - avg * avg; sd = d > 0 ? sqrt(d) : 0; tol += 0.002
		if ((avg - $(n + 2)) ^ 2 > tol ^ 2) printf "%s: avg %.3f from the runs, table %s; ", $1, avg, $(n + 2)
		if ((sd - $(n + 3)) ^ 2 > tol ^ 2) printf "%s: population SD %.3f from the runs (n-1: %.3f), table %s (± %.3f); ", $1, sd, sqrt(s2 / n - avg * avg) * sqrt(n / (n - 1)), $(n + 3), tol }
		END { if (!NR) print "no rows" }'
}
# sweep_preads NAME: "D B": reads of the set's file through a descriptor opened with O_DIRECT
# (D) and without (B), from the strace -ff logs (each worker opens the file it reads).
sweep_preads() {
	python3 - "$TMP/$1.tr" <<'EOF'
import glob, re, sys
d = b = 0
for f in glob.glob(sys.argv[1] + ".*"):
    fds = {}
    for l in open(f):
        m = re.match(r'openat\(.*"[^"]*test_file\.\d+", ([A-Z_|]+).*= (\d+)<', l)
        if m:
            fds[m.group(2)] = "O_DIRECT" in m.group(1)
            continue
        m = re.match(r'p?read(?:64)?\((\d+)<[^>]*test_file\.\d+>', l)
        if m:
            if fds.get(m.group(1)):
                d += 1
            else:
                b += 1
print(d, b)
EOF
}

sweep_run sweep-a --size=16M --sizes=1M,64K --runs=2
rc_ok sweep-a
rows=$(report_rows "$TMP/sweep-a.out")
eq "blockdev-sweep: says it is buffered (blockdev-perftest -a)" "$(head -n 1 <<<"$rows")" "buffered reads (blockdev-perftest -a)"
eq "blockdev-sweep: blockdev-perftest's header, one seconds column per run" \
	"$(sed -n 2,3p <<<"$rows" | tr -s ' ' | paste -sd '|')" \
	"blocksize R R R(avg, R(std, R| (bytes) (s) (s) MiB/s) MiB/s) (IOPS)"
eq "blockdev-sweep: one row per block size in bytes, largest first, 2 runs + avg, SD, IOPS" \
	"$(sweep_table sweep-a | awk '{ printf "%s:%d ", $1, NF }')" "1048576:6 65536:6 "
pos "blockdev-sweep: average MiB/s and IOPS > 0" $(sweep_table sweep-a | awk '{ print $4, $6 }')
# MiB = 2^20 bytes: IOPS = MiB/s / (block / 2^20), and the average is the runs' bytes / 2^20
# over their seconds (the JSON's exact figures); MB = 10^6 would be 4.9% off both.
bad=$(sweep_table sweep-a | awk '{ m = $6 * $1 / 1048576; d = m - $4; if (d < 0) d = -d
	if (d > 0.001 * $4 + 0.002) printf "%s: IOPS %s x %s B = %.3f MiB/s, table %s; ", $1, $6, $1, m, $4 }
	END { if (!NR) print "no rows" }')
eq "blockdev-sweep: IOPS x block size in MiB = average MiB/s" "${bad:-agree}" "agree"
eq "blockdev-sweep: average MiB/s = mean of the runs' bytes / 2^20 / seconds (JSON)" \
	"$(pyj "$TMP/sweep-a.json" '" ".join("%.3f" % (sum(p["jobs"][0]["result"]["result"]["op_types"]["read"]["bytes"] / 1048576 / p["jobs"][0]["result"]["result"]["elapsed_s"] for p in d["phases"][i:i + 2]) / 2) for i in (0, 2))')" \
	"$(sweep_table sweep-a | awk '{ print $4 }' | paste -sd ' ')"
if need_root; then
	eq "blockdev-sweep: the page cache is dropped before each of the 4 runs (root)" \
		"$(grep -c '^Page cache dropped' "$TMP/sweep-a.out")" 4
else
	eq "blockdev-sweep: each of the 4 runs says the cache drop needs root" \
		"$(grep -c '^Page cache not dropped: that needs root' "$TMP/sweep-a.out")" 4
fi

SET_MIB=32
sweep_run sweep-d --size=32M --sizes=64K,16K --runs=3 --direct=on
rc_ok sweep-d
rows=$(report_rows "$TMP/sweep-d.out")
eq "blockdev-sweep --direct=on: says it is O_DIRECT (blockdev-perftest -d)" "$(head -n 1 <<<"$rows")" "O_DIRECT reads (blockdev-perftest -d)"
eq "blockdev-sweep --direct=on: 3 seconds columns + avg, SD, IOPS per block size" \
	"$(sweep_table sweep-d | awk '{ printf "%s:%d ", $1, NF }')" "65536:7 16384:7 "
bad=$(sweep_table sweep-d | SET_MIB=$SET_MIB sweep_sd_check)
eq "blockdev-sweep: avg and SD are the mean and population SD (over n) of the printed runs' MiB/s" "${bad:-agree}" "agree"
# The same from the JSON's exact figures: SD over n, not over n - 1.
eq "blockdev-sweep: the printed SD is the population SD of the runs (JSON)" \
	"$(pyj "$TMP/sweep-d.json" '" ".join("%.3f" % (lambda v: (sum(x * x for x in v) / len(v) - (sum(v) / len(v)) ** 2) ** 0.5)([p["jobs"][0]["result"]["result"]["op_types"]["read"]["bytes"] / 1048576 / p["jobs"][0]["result"]["result"]["elapsed_s"] for p in d["phases"][i:i + 3]]) for i in (0, 3))')" \
	"$(sweep_table sweep-d | awk '{ print $6 }' | paste -sd ' ')"
if $HAVE_STRACE; then
	# 32 MiB / 64 KiB x 3 + 32 MiB / 16 KiB x 3 reads, every one through an O_DIRECT descriptor
	eq "blockdev-sweep --direct=on: all 7680 reads of the set through O_DIRECT descriptors (strace)" \
		"$(sweep_preads sweep-d)" "7680 0"
	eq "blockdev-sweep buffered: all 544 reads of the set (16 MiB / 1 MiB x 2 + 16 MiB / 64 KiB x 2) without O_DIRECT (strace)" \
		"$(sweep_preads sweep-a)" "0 544"
else
	skip "strace is not installed: the sweep's O_DIRECT opens not checked"
fi

# --- iozone's throughput-mode lines: per phase, from the per-thread figures of the JSON ---
# iozone -t prints per phase "Children see throughput for N <who>" (the sum of the children's
# own kB/s, kB = 1024 bytes), "Parent sees" (all kB over the phase), min / max / avg per
# process and "Min xfer" (the smallest child's kB); each printed figure is checked against
# the JSON's threads[] (bytes / duration_s), to the printed two decimals.
run_wl iozone "$(newdir iozone-children)" --size=2M --threads=3
rc_ok iozone
eq "iozone children: one \"Children see\" line per phase, iozone's names, 3 children" \
	"$(grep -oP '^\tChildren see throughput for +\K\d+ [a-z -]+?(?= += )' "$TMP/iozone.out" | paste -sd '|')" \
	"3 initial writers|3 rewriters|3 readers|3 re-readers"
eq "iozone children: every line of the four blocks against the JSON's per-thread figures" "$(
	python3 - "$TMP/iozone.json" "$TMP/iozone.out" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read().split('=== report() of ', 1)[1]
got = [float(v) for v in re.findall(r'^\t[A-Z][^=\n]*= +([0-9.]+) kB', out, re.M)]
want = []
for p in doc['phases']:
    r = p['jobs'][0]['result']['result']
    kb = [(t['bytes_read'] + t['bytes_written']) / 1024 for t in r['threads']]
    tp = [k / t['duration_s'] for k, t in zip(kb, r['threads'])]
    want += [sum(tp), sum(kb) / r['elapsed_s'], min(tp), max(tp), sum(tp) / len(tp), min(kb)]
bad = [(i // 6, i % 6, g, w) for i, (g, w) in enumerate(zip(got, want))
       if abs(g - w) > max(0.006, w * 1e-9)]
print('%d figures, %s' % (len(got), 'all equal' if len(got) == len(want) and not bad else bad))
PY
)" "24 figures, all equal"
eq "iozone children: min <= avg <= max per process and Min xfer = 2 MiB (2048 kB) in every phase" "$(
	sed -n '/^=== report() of /,$p' "$TMP/iozone.out" | awk -F'= *' '
		/Min throughput/ { mn = $2 + 0 } /Max throughput/ { mx = $2 + 0 }
		/Avg throughput/ { av = $2 + 0 }
		/Min xfer/ { n++; if (!(mn <= av && av <= mx && $2 + 0 == 2048)) bad++ }
		END { print n " phases, " bad + 0 " bad" }')" "4 phases, 0 bad"

# A seqwr phase that ends before the set is whole again leaves the rest unwritten; the next
# phase writes it first, says so, and reads every block of a whole set.
PS=$(newdir short-phase)
cat >"$TMP/short-phase.lua" <<'LUA'
fileset { files = 4, size = "2M" }
phase "w" { time = 0, events = 50, job "w" { mode = "seqwr", block = "16k" } }
phase "r" { time = 0, events = 128, job "r" { mode = "seqrd", block = "16k" } }
LUA
"$SBIO" prepare --dir="$PS" --script "$TMP/short-phase.lua" >/dev/null 2>&1
"$SBIO" run --dir="$PS" --script "$TMP/short-phase.lua" -o "$TMP/short-phase.json" >"$TMP/out" 2>"$TMP/err"
eq "a short seqwr phase: exit status; left by phase 1, nothing by phase 2; phase 2's reads" \
	"$? $(pyj "$TMP/short-phase.json" '[(p["jobs"][0]["result"]["result"]["seqwr_left_bytes"], p["jobs"][0]["result"]["result"]["op_types"]["read"]["ops"]) for p in d["phases"]]')" \
	"0 [($((2 * 1048576 - 50 * 16384)), 0), (0, 128)]"
eq "a short seqwr phase: the set is completed as phase 2 starts, saying so" \
	"$(grep -oE '^(=== Phase [0-9]/2|Completing the set in [^ ]*, left short by a seqwr run)' "$TMP/out" | paste -sd '|')" \
	"=== Phase 1/2|=== Phase 2/2|Completing the set in $PS, left short by a seqwr run"
eq "a short seqwr phase: the set is complete after the run" "$(grep '^state=' "$PS/sbio.manifest")" "state=complete"

# --phase runs only the phases named (repeatable, or a comma list), in the script's order,
# and reports only those; a name the script lacks is refused (exit 2, one line listing the
# phases, no file made).
SEL=$(newdir phase-select)
cat >"$TMP/phases3.lua" <<'LUA'
fileset { files = 1, size = "1M" }
phase "a one" { time = 0, events = 8, job "j" { mode = "seqrd", block = "4k" } }
phase "b" { time = 0, events = 16, job "j" { mode = "seqrd", block = "4k" } }
phase "c" { time = 0, events = 32, job "j" { mode = "rndwr", block = "4k", fsync_freq = 0 } }
LUA
"$SBIO" prepare --dir="$SEL" --script "$TMP/phases3.lua" >/dev/null 2>&1
"$SBIO" run --dir="$SEL" --script "$TMP/phases3.lua" --phase=c --phase "a one" -o "$TMP/sel.json" >"$TMP/out" 2>"$TMP/err"
eq "--phase c --phase 'a one': exit status; the phases run, in the script's order, with their events" \
	"$? $(pyj "$TMP/sel.json" '[(p["name"], p["jobs"][0]["result"]["result"]["events"]) for p in d["phases"]]')" \
	"0 [('a one', 8), ('c', 32)]"
eq "--phase: the text report has only the phases named" \
	"$(grep -oE '^=== Phase [0-9]/[0-9]: [a-z]+( one)?' "$TMP/out" | paste -sd '|')" "=== Phase 1/2: a one|=== Phase 2/2: c"
"$SBIO" run --dir="$SEL" --script "$TMP/phases3.lua" --phase=b,c -o "$TMP/sel.json" >"$TMP/out" 2>"$TMP/err"
eq "--phase=b,c: a comma list" "$? $(pyj "$TMP/sel.json" '[p["name"] for p in d["phases"]]')" "0 ['b', 'c']"
NOSEL=$(newdir phase-unknown)
expect_exit 2 "--phase=nope: refused" "$SBIO" run --dir="$NOSEL" --script "$TMP/phases3.lua" --phase=b,nope -o "$NOSEL/r.json"
eq "--phase=nope: one line naming it and listing the phases" \
	"$(wc -l <"$TMP/err") $(grep -c -- '--phase=nope: .* no such phase; its phases: "a one", "b", "c"$' "$TMP/err")" "1 1"
eq "--phase=nope: nothing made" "$(ls -A "$NOSEL")" ""
expect_exit 2 "--phase without --script: refused" "$SBIO" run --dir="$NOSEL" --file-test-mode=seqrd --phase=b
