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
SD=$TMP/scripts; mkdir -p "$SD"; Q=$(newdir twin)
printf "fileset { files = 4, size = \"16M\" }\nphase \"p\" { time = 1, job \"j\" { block = \"4k\" } }\n" > "$SD/decl.lua"
"$SBIO" prepare --dir="$Q" --script "$SD/decl.lua" >/dev/null
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

