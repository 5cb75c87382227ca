#!/bin/bash
# --ioprio and a script job's ioprio against the kernel: while a run goes, every worker thread's
# I/O priority as ionice reads it from /proc/PID/task (a plain run on a folder of the machine's
# disk, and a phase of two jobs at two priorities); the realtime class refused before anything
# runs for a user without the privilege; and the effect itself: under bfq on the test's own
# loop device (direct I/O to its image), a 4 KiB O_DIRECT random reader at rt:0 beside a 1 MiB
# O_DIRECT sequential writer (libaio, depth 8) gets at least 10 times the IOPS of the same
# reader at idle (the median of three pairs of runs). Needs root (loop device, scheduler, setpriv): skips otherwise.
source "$(dirname "$0")/lib.sh"

loop_test "loop device, I/O scheduler, another user" ionice "ionice (util-linux) is not installed"

# start_run OUT ARGS…: sbio ARGS… in the background (BG), stdout in OUT, stderr in OUT.err.
start_run() {
	local out=$1
	shift
	"$SBIO" "$@" >"$out" 2>"$out.err" &
	BG=$!
	PIDS+=("$BG")
}
# thread_prios PID: ionice's line for every thread of PID whose priority is not its main
# thread's (what every thread inherits: a script's jobs each have a thread that keeps it),
# sorted and counted ("2 idle|2 realtime: prio 3"). Nothing once PID has ended.
thread_prios() {
	local t main
	main=$(ionice -p "$1" 2>/dev/null) || return 0
	for t in /proc/"$1"/task/*; do
		ionice -p "${t##*/}" 2>/dev/null
	done | grep -vxF "$main" | sort | uniq -c | sed 's/^ *//' | paste -sd '|'
}
# wait_prios PID WANT: thread_prios of PID once it is WANT (polled while PID runs, at most
# 5 s: the threads set their priority as they start), else the last one seen.
wait_prios() {
	local n=50 got
	got=$(thread_prios "$1")
	while [ "$got" != "$2" ] && kill -0 "$1" 2>/dev/null && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
		got=$(thread_prios "$1")
	done
	echo "$got"
}

# --- A plain run: each of its three worker threads at be:2 while it runs; the main thread
# keeps what it had.
D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=2 --file-total-size=8M --file-block-size=4K)
"$SBIO" prepare "${SET[@]}" >/dev/null 2>&1 || notok "prepare a small set"
MAIN_BEFORE=$(ionice -p $$)
start_run "$TMP/plain" run "${SET[@]}" --file-test-mode=rndrd --threads=3 --time=3 \
	--ioprio=be:2 --output-format=json
eq "--ioprio=be:2: every worker thread is best-effort level 2 during the run" \
	"$(wait_prios "$BG" "3 best-effort: prio 2")" "3 best-effort: prio 2"
eq "the main thread keeps its own" "$(ionice -p "$BG")" "$MAIN_BEFORE"
wait "$BG"
eq "--ioprio=be:2 run: exit 0" "$?" 0
python3 - "$TMP/plain" <<'EOF' >"$TMP/j" 2>&1
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[text.index('{'):])
print(doc["config"]["ioprio"], doc["result"]["ioprio"])
EOF
eq "its JSON: config and result (read back) say be:2" "$(cat "$TMP/j")" "be:2 be:2"
"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --threads=2 --time=1 --ioprio=idle >"$TMP/out" 2>&1
check "the text header says --ioprio=idle" grep -qx 'I/O priority: idle (ioprio_set per worker thread)' "$TMP/out"
check "the report says what the threads read back" \
	grep -q '^I/O priority: idle on every worker thread (set, then read back with ioprio_get)' "$TMP/out"
"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --time=1 >"$TMP/out" 2>&1
check "no --ioprio: no I/O priority line" sh -c "! grep -q 'I/O priority' '$TMP/out'"

# --- compare varies it like any option: each run's config and read-back priority its setting's.
"$SBIO" compare "${SET[@]}" --file-test-mode=rndrd --time=1 --vary ioprio=be:1,idle \
	--drop-caches=off -o "$TMP/cmp.json" >"$TMP/out" 2>"$TMP/err"
eq "compare --vary ioprio=be:1,idle: exit 0" "$?" 0
eq "compare: each setting's run at its priority (config, then read back)" \
	"$(json_get "$TMP/cmp.json" settings.{0,1}.runs.0.result.{config,result}.ioprio | paste -sd ' ')" \
	"be:1 be:1 idle idle"

# --- A phase of two jobs at two priorities: each job's threads at its own.
cat >"$TMP/two.lua" <<'EOF'
fileset { files = 2, size = "8M" }
phase "two" { time = 3,
    job "hi" { threads = 2, mode = "rndrd", block = "4k", ioprio = "rt:3" },
    job "lo" { threads = 2, mode = "rndrd", block = "4k", ioprio = "idle" } }
EOF
mkdir -p "$TMP/two"
"$SBIO" prepare --script="$TMP/two.lua" --dir="$TMP/two" >/dev/null 2>&1 || notok "prepare the script's set"
start_run "$TMP/script" run --script="$TMP/two.lua" --dir="$TMP/two" -o "$TMP/two.json"
eq "two jobs: rt:3 and idle, two threads each, during the run" \
	"$(wait_prios "$BG" "2 idle|2 realtime: prio 3")" "2 idle|2 realtime: prio 3"
wait "$BG"
eq "two-job script: exit 0" "$?" 0
eq "its JSON: each job's declared and read-back priority, the total mixed" \
	"$(json_get "$TMP/two.json" phases.0.jobs.{0,1}.declared.ioprio \
		phases.0.jobs.{0,1}.result.result.ioprio phases.0.total.result.ioprio | paste -sd ' ')" \
	"rt:3 idle rt:3 idle mixed"
check "each job's line says its priority" grep -q '^--- Job hi (2 threads, sync, I/O priority rt:3) ---' "$TMP/script"

# --- The realtime class without the privilege: exit 2, one line, before anything runs.
chmod 0755 "$TMP"
chmod -R a+rwX "$D"
before=$(stat -c '%n %s %Y' "$D"/*)
as_nobody run "${SET[@]}" \
	--file-test-mode=rndwr --time=1 --ioprio=rt:0 >"$TMP/out" 2>"$TMP/err"
eq "--ioprio=rt:0 as nobody: exit 2" "$?" 2
check "it says the realtime class needs the privilege" \
	grep -q 'I/O priority rt:0: the realtime class needs CAP_SYS_ADMIN or CAP_SYS_NICE' "$TMP/err"
stderr_one_line "one line"
check "nothing on stdout" test ! -s "$TMP/out"
eq "the set is untouched" "$(stat -c '%n %s %Y' "$D"/*)" "$before"
chmod -R a+rwX "$TMP/two"
as_nobody run \
	--script="$TMP/two.lua" --dir="$TMP/two" >"$TMP/out" 2>"$TMP/err"
eq "a script with a job at rt:3 as nobody: exit 2, before its header" "$?" 2
check "it says so" grep -q 'I/O priority rt:3: the realtime class needs' "$TMP/err"
stderr_one_line "one line"
check "nothing on stdout" test ! -s "$TMP/out"
as_nobody run "${SET[@]}" \
	--file-test-mode=rndrd --time=1 --ioprio=be:7 >"$TMP/out" 2>"$TMP/err"
eq "--ioprio=be:7 as nobody runs (exit 0)" "$?" 0
chmod 0700 "$TMP"

# --- The effect under bfq, on the test's own loop device (direct I/O to its image).
loop_ext4 --direct-io 256M "$MNT"
loop_sched bfq
cat >"$TMP/pair.lua" <<'EOF'
option("prio", "rt:0", "the reader's I/O priority")
fileset { files = 1, size = "128M" }
phase "pair" { time = 3,
    job "reader" { mode = "rndrd", block = "4k", flags = "direct", ioprio = options.prio },
    job "writer" { engine = "libaio", iodepth = 8, block = "1M", flags = "direct",
                   mix = { write = 1 }, pattern = "seq" } }
EOF
"$SBIO" prepare --script="$TMP/pair.lua" --dir="$MNT" --file-fill=zero >/dev/null 2>"$TMP/err" ||
	notok "prepare on the loop device: $(head -c 300 "$TMP/err")"
iops() {
	"$SBIO" run --script="$TMP/pair.lua" --dir="$MNT" --prio="$1" -o "$TMP/pair-$1.json" \
		>/dev/null 2>"$TMP/err" || notok "reader at $1 beside the writer: $(head -c 300 "$TMP/err")"
	json_get "$TMP/pair-$1.json" phases.0.jobs.0.result.result.op_types.read.ops_per_s
}
# The idle reader is served in the writer's gaps, and a writer short of CPU leaves more of
# them (idle reader 24 to 850 IOPS in four runs, rt:0 8300 to 9700), while a reader short of
# CPU (a sanitizer build on a loaded machine: rt:0 2652 to 3411) makes fewer requests whatever
# its class: the median of three pairs, each rt:0 run then idle, at least 4x. Were the
# classes not in effect, both readers would be served alike (about 1x).
pairs=
for _ in 1 2 3; do
	pairs="$pairs $(iops rt:0) $(iops idle)"
done
read -r ratio shown < <(echo "$pairs" | awk '{
	for (i = 1; i < NF; i += 2) { r[++n] = $(i + 1) > 0 ? $i / $(i + 1) : 1e9; s = s sprintf(" %.0f/%.0f", $i, $(i + 1)) }
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
	printf "%.1f %s\n", r[2], substr(s, 2) }')
if awk -v r="$ratio" 'BEGIN { exit !(r >= 4) }'; then
	ok "bfq: the reader at rt:0 gets at least 4x the IOPS of the reader at idle (median of 3 pairs: ${ratio}x; rt/idle: $shown)"
else
	notok "bfq: the reader at rt:0 gets at least 4x the IOPS of the reader at idle (median of 3 pairs: ${ratio}x; rt/idle: $shown)"
fi
eq "the scheduler in effect was bfq" "$(json_get "$TMP/pair-idle.json" phases.0.jobs.0.result.environment.scheduler)" bfq
