#!/bin/bash
# sbio survey: on its own loop device (O_DIRECT to its image) with ext4, as root.
# - a battery of two workloads (a built-in 4 KiB random read, the readers-vs-writer script)
#   under two schedulers, --format=mail, a 40 s budget: exit 0; every line of the output
#   within 72 columns; the JSON's matrix holds, for every row and scheduler, exactly the
#   values the workload's compare measured for that job and metric (its mean their mean);
#   every run ran under its scheduler; each compare was given at most its share of the
#   budget (--max-compare-time), and the survey took at most its budget and 15 s; afterwards the scheduler is as before, no state file, no set, no folder
#   left, no temporary folder left;
# - bad input: exit 2, one line, nothing touched (no folder in DIR, no temporary folder): a
#   budget below the plan's least, a battery line giving an option the survey sets or one
#   that reaches beyond its folder (--filename, --script-trusted), an unknown metric, a
#   missing battery, one scheduler, a folder on no block device;
# - SIGINT while a workload's compare runs: exit 130, the matrix of what was measured, the
#   JSON marked interrupted, no child left, the scheduler restored, the set removed;
# - SIGKILL of the survey: its compare ends too (it dies with its parent), and the next sbio
#   command leaves the scheduler as before;
# - a raw device (--filename): the read-only line run on the device itself, reading and
#   writing nothing (each run's own I/O counters), under each scheduler; a line that writes
#   refused, --dir with --filename refused;
# - an A/A survey (one scheduler given twice): two columns, NAME and NAME#2, each its own
#   setting's runs.
source "$(dirname "$0")/lib.sh"

export SBIO_STATE_DIR=$TMP/state
loop_test "loop devices, sysfs queue settings" python3 "python3 is needed to read the JSON"
loop_ext4 --direct-io 256M "$MNT"
Q=/sys/block/$LOOP/queue
ok "own loop device /dev/$LOOP with ext4 mounted at $MNT"
if ! SCHEDS=$(sched_pick 2 none mq-deadline); then
	skip_kernel "fewer than two schedulers offered: $(sched_list | paste -sd ' ')"
	exit 0
fi
LIST=$(tr ' ' ',' <<<"$SCHEDS")
BEFORE=$(cur_sched)
export TMPDIR=$TMP/tmp
mkdir -p "$TMPDIR"
D=$MNT/survey
mkdir -p "$D"

B=$TMP/two.battery
cat >"$B" <<'EOF'
# two short workloads
rand - 1 read.ops:higher,read.p99:lower --file-test-mode=rndrd --file-num=1 --file-total-size=32M --file-block-size=4K --file-extra-flags=direct --threads=1 --time=1
rvw  readers-vs-writer 1 readers/read.p99:lower,writer/write.mib:higher --size=32M --time=1
EOF

# nothing_left DESC: no folder in $D, no temporary folder, the scheduler as before, no state.
nothing_left() {
	local left
	left=$(ls -A "$D"; ls -d "$TMPDIR"/sbio-survey.* 2>/dev/null
		[ "$(cur_sched)" = "$BEFORE" ] || echo "scheduler $(cur_sched)"
		ls "$SBIO_STATE_DIR" 2>/dev/null | grep -v "\.lock$")
	if [ -z "$left" ]; then ok "$1"; else notok "$1 (left: $(tr '\n' ' ' <<<"$left"))"; fi
}

# --- a whole survey ---
expect_exit 0 "survey of 2 workloads x 2 schedulers, mail format" \
	"$SBIO" survey --dir="$D" --battery="$B" --schedulers="$LIST" --budget=40s --format=mail \
	-o "$TMP/s.json"
cp "$TMP/out" "$TMP/s.out"
wide=$(python3 -c 'import sys
for l in open(sys.argv[1], encoding="utf-8"):
    l = l.rstrip("\n")
    if len(l) > 72: print(len(l), l)' "$TMP/s.out")
if [ -z "$wide" ] && grep -q '^Verdicts:' "$TMP/s.out"; then
	ok "every line of the mail format within 72 columns"
else
	notok "mail format: lines over 72 columns or no verdicts: $(head -c 300 <<<"$wide")"
fi
json_expect "the matrix holds each compare's values for its job and metric" "$TMP/s.json" '
import statistics
assert d["schema"] == "sbio-survey/1", d["schema"]
m = d["matrix"]
assert m["schedulers"] == "'"$LIST"'".split(","), m["schedulers"]
want = [("rand", None, "read.ops"), ("rand", None, "read.p99"),
        ("rvw", "readers", "read.p99"), ("rvw", "writer", "write.mib")]
got = [(r["workload"], r["job"], r["metric"]) for r in m["rows"]]
if got != want: print("rows", got)
wl = {w["name"]: w for w in d["workloads"]}
for r in m["rows"]:
    cmp = wl[r["workload"]]["compare"]
    for c, s in zip(r["cells"], cmp["settings"]):
        assert s["values"]["scheduler"] == c["scheduler"]
        jobs = s["phases"][0]["jobs"]
        b = [j for j in jobs if (j["name"] == r["job"] if r["job"] else not j["total"])][0]
        vals = b["metrics"][r["metric"]]["values"]
        if c["values"] != vals or c["n"] < 1: print(r["workload"], r["metric"], c["values"], vals)
        elif abs(c["mean"] - statistics.mean(vals)) > 1e-6 * abs(c["mean"]): print("mean", c)
    best = [c for c in r["cells"] if c["best"]]
    if len(best) != 1: print("best", r["workload"], r["metric"], best)
'
json_expect "every run ran under its scheduler, each compare given at most its share" "$TMP/s.json" '
for w in d["workloads"]:
    if w["status"] != "ok": print(w["name"], w["status"])
    cmp = w["compare"]
    if cmp["max_compare_time_s"] > w["share_s"] + 1: print("share", w["name"], cmp["max_compare_time_s"], w["share_s"])
    for s in cmp["settings"]:
        for run in s["runs"]:
            res = run["result"]
            env = res.get("environment") or res["phases"][0]["jobs"][0]["result"]["environment"]
            if env["scheduler"] != s["values"]["scheduler"]: print("ran", env["scheduler"], s["name"])
if d["took_s"] > d["budget_s"] + 15: print("took", d["took_s"], "of", d["budget_s"])
'
nothing_left "after the survey: scheduler as before, no state, no set, no temporary folder"

# --- a raw device, read-only (the mounted device itself: reads only) ---
head -2 "$B" >"$TMP/raw.battery"
expect_exit 0 "a survey of the raw device /dev/$LOOP" \
	"$SBIO" survey --filename="/dev/$LOOP" --battery="$TMP/raw.battery" --schedulers="$LIST" \
	--budget=20s -o "$TMP/raw.json"
check "raw: the head names the raw device, read-only" grep -qF "$LOOP (raw device /dev/$LOOP, read-only)" "$TMP/out"
json_expect "raw: every run read /dev/$LOOP and wrote nothing, under its scheduler" "$TMP/raw.json" '
if d["filename"] != "/dev/'"$LOOP"'": print("filename", d["filename"])
cmp = d["workloads"][0]["compare"]
if "--filename=/dev/'"$LOOP"'" not in cmp["command_line"]: print(cmp["command_line"])
for s in cmp["settings"]:
    for run in s["runs"]:
        r = run["result"]
        if r["result"]["process_io"]["write_bytes"] != 0: print("wrote", r["result"]["process_io"])
        if r["result"]["process_io"]["read_bytes"] <= 0: print("read nothing")
        if r["environment"]["scheduler"] != s["values"]["scheduler"]: print("ran", r["environment"]["scheduler"])
for r in d["matrix"]["rows"]:
    if any(c["n"] < 1 for c in r["cells"]): print("empty", r)
'
nothing_left "raw: nothing left"
expect_exit 2 "raw: a battery line that writes is refused" \
	"$SBIO" survey --filename="/dev/$LOOP" --battery="$B" --schedulers="$LIST" --budget=40s
stderr_one_line "raw: a writing line: one line"
check "raw: the message names the line and what is accepted" grep -qF "line rvw runs a script; a raw device is surveyed read-only" "$TMP/err"
expect_exit 2 "raw: --dir and --filename together are refused" \
	"$SBIO" survey --dir="$D" --filename="/dev/$LOOP" --battery="$TMP/raw.battery" --budget=20s
nothing_left "raw refusals: nothing touched"

# --- an A/A survey: one scheduler given twice, its second column named as compare names it ---
FIRST=${LIST%%,*}
head -2 "$B" >"$TMP/one.battery"
expect_exit 0 "an A/A survey: --schedulers=$FIRST,$FIRST" \
	"$SBIO" survey --dir="$D" --battery="$TMP/one.battery" --schedulers="$FIRST,$FIRST" --budget=20s \
	-o "$TMP/aa.json"
json_expect "A/A: the columns $FIRST and $FIRST#2, each its own setting's runs, all under $FIRST" "$TMP/aa.json" '
m = d["matrix"]
if m["schedulers"] != ["'"$FIRST"'", "'"$FIRST"'#2"]: print("columns", m["schedulers"])
cmp = d["workloads"][0]["compare"]
names = [s["name"] for s in cmp["settings"]]
if names != ["scheduler='"$FIRST"'", "scheduler='"$FIRST"'#2"]: print("settings", names)
for r in m["rows"]:
    for c, s in zip(r["cells"], cmp["settings"]):
        vals = s["phases"][0]["jobs"][0]["metrics"][r["metric"]]["values"]
        if c["values"] != vals or c["n"] < 1: print(r["metric"], c["scheduler"], c["values"], vals)
        for run in s["runs"]:
            if run["result"]["environment"]["scheduler"] != "'"$FIRST"'": print("ran", run["result"]["environment"]["scheduler"])
'
nothing_left "after the A/A survey: nothing left"

# --- bad input: exit 2, one line, nothing touched ---
bad() {
	expect_exit 2 "refused: $1" "$SBIO" survey --dir="$D" --schedulers="$LIST" "${@:2}"
	stderr_one_line "refused in one line: $1"
	nothing_left "nothing touched: $1"
}
bad "a budget below the plan's least" --battery="$B" --budget=10s
grep -q 'at least 18 s' "$TMP/err" && ok "the refusal names the least budget (18 s)" ||
	notok "the refusal names the least budget: $(cat "$TMP/err")"
printf 'x - 1 ops:higher --file-total-size=8M --filename=/dev/%s --allow-destroy=on\n' "$LOOP" >"$TMP/b"
bad "a battery line's --filename" --battery="$TMP/b"
grep -q "$TMP/b:1: --filename" "$TMP/err" && ok "the refusal says FILE:LINE and the option" ||
	notok "FILE:LINE and the option: $(cat "$TMP/err")"
printf '# x\n\nx oltp 1 ops:higher --script-trusted=on\n' >"$TMP/b"
bad "a battery line's --script-trusted" --battery="$TMP/b"
printf 'x - 1 nosuch.p99:lower\n' >"$TMP/b"
bad "an unknown metric" --battery="$TMP/b"
printf 'x - 1 ops:up\n' >"$TMP/b"
bad "a metric without higher|lower" --battery="$TMP/b"
bad "a missing battery" --battery="$TMP/nosuch.battery"
expect_exit 2 "refused: one scheduler" "$SBIO" survey --dir="$D" --battery="$B" --schedulers=none
stderr_one_line "one scheduler refused in one line"
mkdir -p /dev/shm/sbio-survey-$$
expect_exit 2 "refused: a folder on no block device" "$SBIO" survey --dir=/dev/shm/sbio-survey-$$ --battery="$B"
rmdir /dev/shm/sbio-survey-$$

# --- SIGINT while a compare runs ---
# wait_for PATTERN FILE: until FILE has PATTERN (30 s at most).
wait_for() {
	for _ in $(seq 300); do
		grep -q "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
"$SBIO" survey --dir="$D" --battery="$B" --schedulers="$LIST" --budget=40s -o "$TMP/i.json" \
	>"$TMP/i.out" 2>"$TMP/i.err" &
SP=$!
PIDS+=("$SP")
wait_for '^\[1/2\] rand: comparing' "$TMP/i.out" && sleep 2
kill -INT "$SP"
wait "$SP"
eq "SIGINT: exit 130" "$?" 130
json_expect "SIGINT: the JSON says interrupted, the second workload not run" "$TMP/i.json" '
assert d["interrupted"] is True
st = [w["status"] for w in d["workloads"]]
if st != ["interrupted", "not run"]: print(st)
'
grep -q '^Verdicts:' "$TMP/i.out" && ok "SIGINT: the matrix of what was measured printed" ||
	notok "SIGINT: no matrix: $(tail -5 "$TMP/i.out")"
check "SIGINT: no child left" test -z "$(pgrep -f "$D/rand" || true)"
nothing_left "SIGINT: scheduler restored, no state, set removed"

# --- SIGKILL ---
echo "an earlier survey" >"$TMP/k.json"
"$SBIO" survey --dir="$D" --battery="$B" --schedulers="$LIST" --budget=40s -o "$TMP/k.json" >"$TMP/k.out" 2>&1 &
SP=$!
PIDS+=("$SP")
wait_for '^\[1/2\] rand: comparing' "$TMP/k.out" && sleep 2
kill -KILL "$SP"
wait "$SP" 2>/dev/null
for _ in $(seq 100); do
	pgrep -f -- "--dir=$D/rand" >/dev/null || break
	sleep 0.1
done
check "SIGKILL: the compare died with the survey" test -z "$(pgrep -f -- "--dir=$D/rand" || true)"
eq "SIGKILL: the -o file that was there is left as it was" "$(cat "$TMP/k.json")" "an earlier survey"
"$SBIO" cleanup --dir="$D/rand" >/dev/null 2>&1
rmdir "$D/rand" 2>/dev/null
# The survey's temporary folder (the compares' documents) is the one thing a SIGKILL leaves.
rm -rf "$TMPDIR"/sbio-survey.*
"$SBIO" version >/dev/null
nothing_left "SIGKILL, then the next command: scheduler as before, no state"
