#!/bin/bash
# sbio compare: on its own loop device with ext4, as root.
# - --schedulers=none,mq-deadline,bfq (or, where the kernel has no bfq, a third scheduler it
#   offers) --repeat=2 with a short rndrw: every run ran under its
#   scheduler (the JSON's environment, read during the run), the summary is the runs' mean and
#   sample sd, and afterwards every queue setting is as before with no state file left;
# - the set's pages dropped before each run by default (--invalidate: a seqrd compare reads at
#   least its bytes from the device; strace: one POSIX_FADV_DONTNEED per file and run, no
#   write to /proc/sys/vm/drop_caches), the whole page cache only with --drop-caches, nothing
#   with --drop-caches=off on a warm set (device reads ~0); the first line and the JSON say which;
#   a script's runs alike, before their first phase;
# - a 2x2x2 grid (file-block-size x read_ahead_kb x file-test-mode, --repeat=2): 8 settings x
#   2 runs, repeat-major order, each run's JSON shows its values, settings restored;
# - bad input: exit 2, one line, no run started, nothing changed; what a run would refuse (no
#   set, a set of another shape than the options or the script, a tree script on a flat set,
#   a block larger than the files in one setting) is found before the first run: exit 2, one
#   line, nothing printed, nothing on disk touched;
# - SIGINT mid-compare: exit 130, the partial table, the run marked, everything restored;
# - --order=random --rand-seed: a permutation per repeat, the same for the same seed;
# - --metrics=time,reads,writes,fsyncs, of a plain run and of the sysbench-rndrw script: those
#   columns, each the mean ± sd of the runs' JSON figures, in the table and the JSON; a bad
#   name refused.
# - --vary of a script's own options (block size, and threads, which shadows sbio's): one row
#   per setting, each worker thread's reads (strace) of its setting's size and count, the
#   JSON and sbio plot name the settings by them; a value of the wrong type, an unknown name,
#   settings that change the phases or the set, a group weight out of range refused before
#   any run.
# The set is 4 x 4 MiB; runs are --time=1 or a few dozen events. State in $TMP/state.
source "$(dirname "$0")/lib.sh"

export SBIO_STATE_DIR=$TMP/state
MNT=$TMP/mnt
cmp_cleanup() {
	kill_pids
	loop_cleanup "$MNT"
	t_cleanup
}
trap cmp_cleanup EXIT

if ! need_root; then
	skip "needs root (loop devices, sysfs queue settings, dropping caches)"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	notok "python3 is needed to read the compare JSON"
	exit 1
fi
loop_ext4 128M "$MNT"
Q=/sys/block/$LOOP/queue
STATE=$SBIO_STATE_DIR/$LOOP.state
ok "own loop device /dev/$LOOP with ext4 mounted at $MNT"

D=$MNT/set
mkdir -p "$D"
SETSZ=$((16 * 1024 * 1024))
SET=(--dir="$D" --file-num=4 --file-total-size=16M)
CMP=(compare "${SET[@]}")

# --- helpers ---
# progress FILE: the "[k/N] repeat r, NAME: …" lines as "r NAME", in order.
progress() { sed -n 's/^\[[0-9]*\/[0-9]*\] repeat \([0-9]*\), \(.*\): .*/\1 \2/p' "$1"; }

expect_exit 0 "prepare 4 x 4 MiB on /dev/$LOOP" "$SBIO" prepare "${SET[@]}"
# Queue settings outlive a loop device (someone may have left bfq on this one): the test
# records what it found and sets its own starting point.
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
SCHED_FOUND=$(cur_sched)
echo none >"$Q/scheduler"
eq "test setup: $LOOP came with scheduler ${SCHED_FOUND:-?}; set to none" "$(cur_sched)" none
BASE=$(queue_snap)
RA0=$(knob read_ahead_kb)
# Three schedulers, S1 S2 S3: none, mq-deadline and bfq, or a third the device offers where the
# kernel has no bfq.
if ! SCH=$(sched_pick 3 none mq-deadline bfq); then
	skip_kernel "$LOOP offers fewer than 3 schedulers ($SCH): the checks compare 3"
	exit 0
fi
read -r S1 S2 S3 <<<"$SCH"

# --- Schedulers: S1, S2, S3, twice each, a short rndrw ---
expect_exit 0 "compare --schedulers=$S1,$S2,$S3 --repeat=2 (rndrw, 2 threads, 1 s): exit 0" \
	"$SBIO" "${CMP[@]}" --schedulers=$S1,$S2,$S3 --repeat=2 \
	--file-test-mode=rndrw --threads=2 --time=1 -o "$TMP/sched.json"
cp "$TMP/out" "$TMP/sched.out"
same_state "schedulers: every queue setting of $LOOP as before" "$BASE"
no_state_file "schedulers: no state file left"
eq "schedulers: 6 progress lines, repeat-major" "$(progress "$TMP/sched.out" | tr '\n' '|')" \
	"1 scheduler=$S1|1 scheduler=$S2|1 scheduler=$S3|2 scheduler=$S1|2 scheduler=$S2|2 scheduler=$S3|"
json_expect "schedulers JSON: schema sbio-compare/1, one axis, repeat 2, interleaved, the set invalidated (not the whole cache dropped), not interrupted" \
	"$TMP/sched.json" '
want = [{"key": "scheduler", "values": ["'"$S1"'", "'"$S2"'", "'"$S3"'"]}]
if d.get("schema") != "sbio-compare/1": print("schema", d.get("schema"))
if d.get("axes") != want: print("axes", d.get("axes"))
if d.get("repeat") != 2 or d.get("order") != "interleaved": print("repeat/order", d.get("repeat"), d.get("order"))
if d.get("cache_drop") != "invalidate" or d.get("invalidate") is not True or d.get("drop_caches") is not False: print("cache_drop/invalidate/drop_caches", d.get("cache_drop"), d.get("invalidate"), d.get("drop_caches"))
if d.get("interrupted") is not False: print("interrupted", d.get("interrupted"))'
json_expect "schedulers JSON: 3 settings x 2 runs, each status ok with a sbio-result/1 document" \
	"$TMP/sched.json" '
s = d["settings"]
if [x["name"] for x in s] != ["scheduler='"$S1"'", "scheduler='"$S2"'", "scheduler='"$S3"'"]: print("names", [x["name"] for x in s])
for x in s:
    if x["values"] != {"scheduler": x["name"].split("=")[1]}: print(x["name"], "values", x["values"])
    if [(r["repeat"], r["status"]) for r in x["runs"]] != [(1, "ok"), (2, "ok")]: print(x["name"], [(r["repeat"], r["status"]) for r in x["runs"]])
    for r in x["runs"]:
        if (r["result"] or {}).get("schema") != "sbio-result/1": print(x["name"], "result schema")'
json_expect "schedulers JSON: each run's environment.devices[0].queue.scheduler (read during the run) has its scheduler in brackets" \
	"$TMP/sched.json" '
for x in d["settings"]:
    want = x["values"]["scheduler"]
    for r in x["runs"]:
        dev = r["result"]["environment"]["devices"][0]
        if dev["name"] != "'"$LOOP"'" or "[" + want + "]" not in dev["queue"]["scheduler"]:
            print(x["name"], "repeat", r["repeat"], "ran on", dev["name"], "under", dev["queue"]["scheduler"])
        if r["result"]["config"]["scheduler"] != want: print(x["name"], "config.scheduler", r["result"]["config"]["scheduler"])
        if r["result"]["config"]["file_test_mode"] != "rndrw" or r["result"]["config"]["threads"] != 2: print(x["name"], "config")'
json_expect "schedulers JSON: each setting's ops/s is its runs' mean and sample sd, 2 of 2 runs, its difference to the first with a CI and a Holm-corrected verdict" \
	"$TMP/sched.json" '
import math
s = d["settings"]
means = []
if d["statistics"]["correction"] != "holm-bonferroni per phase" or d["statistics"]["ci_level"] != 0.95: print("statistics", d["statistics"])
for x in s:
    v = [r["result"]["result"]["ops"] / r["result"]["result"]["elapsed_s"] for r in x["runs"]]
    m = sum(v) / len(v); sd = math.sqrt(sum((a - m) ** 2 for a in v) / (len(v) - 1))
    means.append(m)
    ph = x["phases"][0]; c = ph["jobs"][0]["metrics"]["ops"]
    if ph["runs_ok"] != 2 or ph["runs"] != 2 or c["n"] != 2: print(x["name"], "runs", ph["runs_ok"], ph["runs"], c["n"])
    if abs(c["mean"] - m) > 1e-6 * m or abs(c["stddev"] - sd) > 1e-6 * m + 1e-6: print(x["name"], c["mean"], c["stddev"], "want", m, sd)
    # JSON reals carry 10 significant digits: equal to 1e-9, not rounded to 3 decimals (a
    # value of 10 digits on a tie, 33778.7345, would round either way)
    if len(c["values"]) != len(v) or any(abs(a - b) > 1e-9 * abs(b) for a, b in zip(c["values"], v)): print(x["name"], "values", c["values"], v)
if s[0]["phases"][0]["jobs"][0]["metrics"]["ops"]["verdict"] != "baseline": print("baseline", s[0]["phases"][0]["jobs"][0]["metrics"]["ops"])
for i in (1, 2):
    c = s[i]["phases"][0]["jobs"][0]["metrics"]["ops"]; want = (means[i] - means[0]) / means[0] * 100
    if abs(c["diff_pct"] - want) > 1e-6 * max(1, abs(want)): print(s[i]["name"], "diff_pct", c["diff_pct"], "want", want)
    p, ph = c["p_value"], c["p_holm"]
    if p is None or ph is None or not 0 <= p <= ph <= 1: print(s[i]["name"], "p", p, "holm", ph)
    elif c["verdict"] != ("significant" if ph < 0.05 else "within noise"): print(s[i]["name"], "verdict", c["verdict"], ph)
    ci = c["diff_ci95_pct"]
    if ci is None and not c["ci_unbounded"]: print(s[i]["name"], "no CI", c)
    if ci is not None and not ci[0] <= c["diff_pct"] <= ci[1]: print(s[i]["name"], "CI", ci, "around", c["diff_pct"])'
# The table: a header with each default column and its difference, then one row per setting
# with 2/2 runs, the baseline first and each other row a difference with its CI.
TABLE=$(sed -n '/^setting /,/^$/p' "$TMP/sched.out")
check "schedulers table: a header with ops/s, read/write/fsync p99, each with its Δ" \
	grep -qE '^setting +runs +ops/s +Δ ops/s +read p99 +Δ read p99 +write p99 +Δ write p99 +fsync p99 +Δ fsync p99$' <<<"$TABLE"
check "schedulers table: scheduler=$S1 2/2 … (baseline)" grep -qE "^scheduler=$S1 +2/2 .*\(baseline\)$" <<<"$TABLE"
for s in $S2 $S3; do
	check "schedulers table: scheduler=$s 2/2, ops/s mean ± sd, Δ% [CI] or [unbounded]" \
		grep -qE "^scheduler=$s +2/2 +[0-9]+ ± [0-9]+ +[+-][0-9.]+% \[([+-][0-9.]+%, [+-][0-9.]+%|unbounded)\]( \*)? " <<<"$TABLE"
done
check "schedulers: the footer says how many comparisons the correction covers" \
	grep -qE '^\* significant at 5% after Holm–Bonferroni over the [0-9]+ comparisons of this table' "$TMP/sched.out"
check "schedulers: says where the JSON went" grep -qF "Every run's result and the table's figures: $TMP/sched.json" "$TMP/sched.out"

# --- The set's pages dropped before each run (the default, --invalidate): seqrd, each run
# reads from the device, and no other process's pages are touched ---
# 256 events: 4 MiB at 16K, the whole 16 MiB set at 64K; with --repeat=2 a run that kept the
# previous runs' pages would read (some of) them from the cache.
# shellcheck disable=SC2054 # the commas are the --vary list
COLD=("${CMP[@]}" --vary file-block-size=16K,64K --file-test-mode=seqrd --events=256 --time=10 --repeat=2)
# strace -f: every file the compare and its runs open, and every fadvise call.
expect_exit 0 "seqrd compare --vary file-block-size=16K,64K --repeat=2 (the set invalidated by default): exit 0" \
	strace -f -qq -e trace=openat,fadvise64 -o "$TMP/cold.st" "$SBIO" "${COLD[@]}" -o "$TMP/cold.json"
json_expect "set invalidated: every run read its bytes (4 or 16 MiB) and the device read at least as much (result.devices[0].bytes_read)" \
	"$TMP/cold.json" '
if d["cache_drop"] != "invalidate" or d["invalidate"] is not True or d["drop_caches"] is not False: print("cache_drop", d["cache_drop"], d["invalidate"], d["drop_caches"])
for x in d["settings"]:
    want = 256 * (16384 if x["values"]["file-block-size"] == "16K" else 65536)
    if len(x["runs"]) != 2: print(x["name"], len(x["runs"]), "runs")
    for r in x["runs"]:
        res = r["result"]["result"]; rd = res["op_types"]["read"]["bytes"]; dev = res["devices"][0]["bytes_read"]
        cf = r["result"]["config"]
        if r["status"] != "ok" or cf["drop_caches"] or not cf["invalidate"]: print(x["name"], r["repeat"], r["status"], "drop_caches", cf["drop_caches"], "invalidate", cf["invalidate"])
        if (res["invalidation"] or {}).get("files") != 4: print(x["name"], r["repeat"], "invalidation", res["invalidation"])
        if rd != want or dev < rd: print(x["name"], "repeat", r["repeat"], "read", rd, "B (want", want, ") device", dev, "B")'
check "set invalidated: the first line says so" grep -q '^sbio .* compare: 2 settings x 2 repeats = 4 runs, interleaved order, the set.s pages dropped before each run (--invalidate)$' "$TMP/out"
eq "set invalidated: /proc/sys/vm/drop_caches never opened (strace)" "$(grep -c 'drop_caches' "$TMP/cold.st")" 0
# Each run drops each of the set's 4 files: 4 runs x 4 files.
eq "set invalidated: 16 POSIX_FADV_DONTNEED calls, one per file of the set per run (strace)" \
	"$(grep -E 'fadvise64\(.*POSIX_FADV_DONTNEED' "$TMP/cold.st" | grep -vc resumed)" 16
same_state "set invalidated: every queue setting as before" "$BASE"

# --- --drop-caches: the whole page cache, as asked ---
expect_exit 0 "seqrd compare --drop-caches: exit 0" \
	strace -f -qq -e trace=openat,fadvise64 -o "$TMP/drop.st" "$SBIO" "${COLD[@]}" --drop-caches -o "$TMP/drop.json"
json_expect "--drop-caches: the JSON says the whole cache was dropped before each run, not the set invalidated" "$TMP/drop.json" '
if d["cache_drop"] != "drop_caches" or d["drop_caches"] is not True or d["invalidate"] is not False: print("cache_drop", d["cache_drop"], d["drop_caches"], d["invalidate"])
for x in d["settings"]:
    for r in x["runs"]:
        cf = r["result"]["config"]
        if r["status"] != "ok" or not cf["drop_caches"] or cf["invalidate"]: print(x["name"], r["status"], cf["drop_caches"], cf["invalidate"])'
check "--drop-caches: the first line says the whole page cache is dropped" grep -q '^sbio .* compare: 2 settings x 2 repeats = 4 runs, interleaved order, the whole page cache dropped before each run (--drop-caches: every process.s)$' "$TMP/out"
eq "--drop-caches: /proc/sys/vm/drop_caches opened once per run (strace)" "$(grep -c '/proc/sys/vm/drop_caches' "$TMP/drop.st")" 4

# --- --drop-caches=off on a warm set: the device is hardly read ---
# (Another process may drop the caches meanwhile: one retry.)
for _ in 1 2; do
	cat "$D"/test_file.* >/dev/null
	"$SBIO" "${COLD[@]}" --drop-caches=off -o "$TMP/warm.json" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	[ -z "$(json_py "$TMP/warm.json" '
for x in d["settings"]:
    for r in x["runs"]:
        if r["result"]["result"]["devices"][0]["bytes_read"] > '$((SETSZ / 50))': print(1)')" ] && break
done
eq "--drop-caches=off, warm: exit 0" "$RC" 0
json_expect "--drop-caches=off, warm: every run read its bytes and the device under 2% of the set" "$TMP/warm.json" '
if d["drop_caches"] is not False or d["invalidate"] is not False or d["cache_drop"] != "none": print("drop_caches", d["drop_caches"], d["invalidate"], d["cache_drop"])
for x in d["settings"]:
    for r in x["runs"]:
        res = r["result"]["result"]; rd = res["op_types"]["read"]["bytes"]; dev = res["devices"][0]["bytes_read"]
        if r["status"] != "ok" or r["result"]["config"]["drop_caches"] or r["result"]["config"]["invalidate"]: print(x["name"], r["status"], "drop_caches", r["result"]["config"]["drop_caches"])
        if rd < 4 << 20 or dev > '$((SETSZ / 50))': print(x["name"], "repeat", r["repeat"], "read", rd, "B, device", dev, "B")'
check "--drop-caches=off: the first line says the page cache is kept" grep -q '^sbio .* compare: 2 settings x 2 repeats = 4 runs, interleaved order, the page cache kept between runs$' "$TMP/out"

# --- A 2x2x2 grid: block size x read_ahead_kb x mode, twice ---
GRID_BEFORE=$(queue_snap)
expect_exit 0 "grid --vary file-block-size=16K,64K --vary read_ahead_kb=128,1024 --vary file-test-mode=seqrd,rndrd --repeat=2: exit 0" \
	"$SBIO" "${CMP[@]}" --vary file-block-size=16K,64K --vary read_ahead_kb=128,1024 \
	--vary file-test-mode=seqrd,rndrd --repeat=2 --events=64 --time=5 -o "$TMP/grid.json"
cp "$TMP/out" "$TMP/grid.out"
NAMES=()
for bs in 16K 64K; do
	for ra in 128 1024; do
		for m in seqrd rndrd; do NAMES+=("file-block-size=$bs read_ahead_kb=$ra file-test-mode=$m"); done
	done
done
want=""
for r in 1 2; do for n in "${NAMES[@]}"; do want+="$r $n|"; done; done
eq "grid: 16 progress lines in repeat-major order (every setting of repeat 1, then repeat 2; first axis slowest)" \
	"$(progress "$TMP/grid.out" | tr '\n' '|')" "$want"
check "grid: the first line says 8 settings x 2 repeats = 16 runs" grep -q '^sbio .* compare: 8 settings x 2 repeats = 16 runs, interleaved order' "$TMP/grid.out"
json_expect "grid JSON: 8 settings in product order, 2 runs ok each" "$TMP/grid.json" '
names = """'"$(printf '%s\n' "${NAMES[@]}")"'""".split("\n")
if [x["name"] for x in d["settings"]] != names: print("names", [x["name"] for x in d["settings"]])
if [a["key"] for a in d["axes"]] != ["file-block-size", "read_ahead_kb", "file-test-mode"]: print("axes", d["axes"])
for x in d["settings"]:
    if [(r["repeat"], r["status"]) for r in x["runs"]] != [(1, "ok"), (2, "ok")]: print(x["name"], [(r["repeat"], r["status"]) for r in x["runs"]])
    if x["phases"][0]["runs_ok"] != 2: print(x["name"], "runs_ok", x["phases"][0]["runs_ok"])'
json_expect "grid JSON: each run shows its values (config.block_size_bytes, environment.devices[0].queue.read_ahead_kb, config.file_test_mode)" \
	"$TMP/grid.json" '
for x in d["settings"]:
    v = x["values"]
    bs = {"16K": 16384, "64K": 65536}[v["file-block-size"]]
    for r in x["runs"]:
        c = r["result"]["config"]; q = r["result"]["environment"]["devices"][0]["queue"]
        got = (c["block_size_bytes"], q["read_ahead_kb"], c["file_test_mode"])
        if got != (bs, v["read_ahead_kb"], v["file-test-mode"]): print(x["name"], "repeat", r["repeat"], "ran with", got)
        if r["result"]["result"]["events"] != 64: print(x["name"], "events", r["result"]["result"]["events"])'
same_state "grid: every queue setting as before (read_ahead_kb $RA0 again)" "$GRID_BEFORE"
no_state_file "grid: no state file left"

# --- One run per setting: no test ---
expect_exit 0 "compare --schedulers=none,mq-deadline --repeat=1: exit 0" \
	"$SBIO" "${CMP[@]}" --schedulers=none,mq-deadline --file-test-mode=rndrd --events=200 --drop-caches=off -o "$TMP/one.json"
check "--repeat=1: the second row says '1 run, no test'" grep -qE '^scheduler=mq-deadline +1/1 .*[+-][0-9.]+% \(1 run, no test\)' "$TMP/out"
check "--repeat=1: the footer says nothing was tested" grep -q '^no comparison tested' "$TMP/out"
json_expect "--repeat=1: the JSON has no p-value and the verdict no test" "$TMP/one.json" '
c = d["settings"][1]["phases"][0]["jobs"][0]["metrics"]["ops"]
if c["p_value"] is not None or c["p_holm"] is not None or c["verdict"] != "no test": print(c)'

# --- Bad input: exit 2, one line, checked before any run, nothing changed ---
# refused DESC PATTERN ARGS…: sbio compare ARGS… exits 2 with one line matching PATTERN, no
# progress line, no output file, and every setting as it was with no state file.
refused() {
	local desc=$1 pat=$2 before
	shift 2
	before=$(queue_snap)
	rm -f "$TMP/bad.json"
	expect_exit 2 "$desc: exit 2" "$SBIO" "${CMP[@]}" --file-test-mode=rndrd --time=1 -o "$TMP/bad.json" "$@"
	stderr_one_line "$desc: one line"
	check "$desc: the message matches /$pat/" grep -qE -- "$pat" "$TMP/err"
	eq "$desc: no run started (no progress line)" "$(grep -c '^\[[0-9]*/[0-9]*\]' "$TMP/out")" 0
	check "$desc: no output file" test ! -e "$TMP/bad.json"
	same_state "$desc: nothing changed" "$before"
	no_state_file "$desc: no state file left"
}
refused "--vary no_such_option=1,2" 'no_such_option' --vary no_such_option=1,2
refused "--vary file-num=1,2 (defines the set)" 'file-num' --vary file-num=1,2
refused "--schedulers=none,cfq2" "--schedulers=none,cfq2: cfq2 is not offered by $LOOP, which offers $(sched_list | paste -sd ' ' | sed 's/ /, /g')\$" \
	--schedulers=none,cfq2
refused "compare without --schedulers or --vary" '--schedulers.*--vary|--vary.*--schedulers'
# A value the kernel refuses, in the last setting: found before the first run, not after it.
refused "--vary read_ahead_kb=128,abc (a value the kernel refuses)" 'read_ahead_kb.*abc' --vary read_ahead_kb=128,abc

refused "--metrics=time,bogus" "^sbio: --metrics=time,bogus: unknown metric 'bogus'; accepted: .*ops, mib, time, reads, writes, fsyncs, rmws, cpu, util, share, p50, p95, p99, p99.9; OP.mib for OP one of read, .*; OP.p50, .*, OP.mean for OP one of read, .*, readdir$" \
	--schedulers=none --metrics=time,bogus
refused "--metrics=time,time" "'time' given twice" --schedulers=none --metrics=time,time

# --- What a run would refuse, found before the first run: no set, a set of another shape
# than the options or the script declare, a setting the set cannot take. Exit 2, one line,
# nothing run, nothing on disk touched (every file's size, mtime and ctime as before). ---
# disk_snap DIR: every entry under DIR with its size, mtime and ctime.
disk_snap() { find "$1" -printf '%p %s %T@ %C@\n' | sort; }
# refused_run DESC PATTERN DIR ARGS…: sbio compare --dir=DIR ARGS… (2 settings x 2 repeats)
# exits 2 with one line matching PATTERN, no progress line, no output file, DIR untouched.
refused_run() {
	local desc=$1 pat=$2 dir=$3 before disk
	shift 3
	before=$(queue_snap)
	disk=$(disk_snap "$dir")
	rm -f "$TMP/bad.json"
	expect_exit 2 "$desc: exit 2" "$SBIO" compare --dir="$dir" --time=1 --repeat=2 -o "$TMP/bad.json" "$@"
	stderr_one_line "$desc: one line"
	check "$desc: the message matches /$pat/" grep -qE -- "$pat" "$TMP/err"
	eq "$desc: nothing run (no output at all)" "$(wc -c <"$TMP/out")" 0
	check "$desc: no output file" test ! -e "$TMP/bad.json"
	eq "$desc: nothing on disk touched" "$(disk_snap "$dir")" "$disk"
	same_state "$desc: nothing changed" "$before"
}
EMPTY=$MNT/empty
mkdir -p "$EMPTY"
cat >"$TMP/noset.lua" <<'LUA'
phase "read" { time = 1, job "r" { mode = "rndrd", block = "4k" } }
LUA
cat >"$TMP/two.lua" <<'LUA'
fileset { files = 2, size = "2M" }
phase "read" { time = 1, job "r" { mode = "rndrd", block = "4k" } }
LUA
refused_run "--script (the set in --dir) in a folder without a set" "^sbio: no file set in $EMPTY" "$EMPTY" \
	--script "$TMP/noset.lua" --vary threads=1,2
refused_run "--script declaring a fileset, in a folder without a set" "^sbio: no file set in $EMPTY" "$EMPTY" \
	--script "$TMP/two.lua" --vary threads=1,2
refused_run "--script declaring 2 files, on a set of 4" "^sbio: .*two.lua declares 2 files, .* but the set in $D has 4 files" "$D" \
	--script "$TMP/two.lua" --vary threads=1,2
refused_run "--script of a file tree (fsmark) on a flat set" "^sbio: $D holds a flat file set" "$D" \
	--script "$(cd "$(dirname "$0")/../.." && pwd)/workloads/fsmark.lua" --vary threads=1,2
refused_run "--file-num=2 on a set of 4 files" "^sbio: --file-num=2 but the set in $D has 4 files" "$D" \
	--file-num=2 --file-test-mode=rndrd --vary threads=1,2
# The second setting's block is larger than the set's 4 MiB files: its runs would be refused.
# A script's runs start from the device too: the set's 4 files invalidated before each run's
# first phase by default, the whole page cache with --drop-caches (strace).
expect_exit 0 "compare --script (the set in --dir) --vary threads=1,2: exit 0" \
	strace -f -qq -e trace=openat,fadvise64 -o "$TMP/sinv.st" "$SBIO" compare --dir="$D" --time=1 \
	--script "$TMP/noset.lua" --vary threads=1,2 -o "$TMP/sinv.json"
check "compare --script: the first line says the set's pages are dropped before each run" \
	grep -q '^sbio .* compare: 2 settings x 1 repeats = 2 runs, interleaved order, the set.s pages dropped before each run (--invalidate)$' "$TMP/out"
eq "compare --script: 8 POSIX_FADV_DONTNEED calls, one per file of the set per run (strace)" \
	"$(grep -E 'fadvise64\(.*POSIX_FADV_DONTNEED' "$TMP/sinv.st" | grep -vc resumed)" 8
eq "compare --script: /proc/sys/vm/drop_caches never opened (strace)" "$(grep -c 'drop_caches' "$TMP/sinv.st")" 0
json_expect "compare --script: cache_drop invalidate in the JSON" "$TMP/sinv.json" '
if d["cache_drop"] != "invalidate" or d["invalidate"] is not True or d["drop_caches"] is not False: print(d["cache_drop"], d["invalidate"], d["drop_caches"])'
expect_exit 0 "compare --script --drop-caches: exit 0" \
	strace -f -qq -e trace=openat,fadvise64 -o "$TMP/sdrop.st" "$SBIO" compare --dir="$D" --time=1 \
	--script "$TMP/noset.lua" --vary threads=1,2 --drop-caches
eq "compare --script --drop-caches: /proc/sys/vm/drop_caches opened once per run (strace)" \
	"$(grep -c '/proc/sys/vm/drop_caches' "$TMP/sdrop.st")" 2
eq "compare --script --drop-caches: no POSIX_FADV_DONTNEED (strace)" "$(grep -c 'POSIX_FADV_DONTNEED' "$TMP/sdrop.st")" 0
refused_run "--vary file-block-size=16K,8M (8M larger than the files)" "^sbio: --file-block-size=8 MiB is larger than the files \(4 MiB\)" "$D" \
	--file-test-mode=rndrd --vary file-block-size=16K,8M
# O_DIRECT at a block that is not a whole logical sector: the second setting's runs refused.
refused_run "--vary file-block-size=16K,1000 --file-extra-flags=direct (1000 B not sector-aligned)" \
	"^sbio: --file-block-size=1000 B is not a multiple of [0-9]+ B, the O_DIRECT alignment of $D" "$D" \
	--file-test-mode=rndrd --file-extra-flags=direct --vary file-block-size=16K,1000

# --- --metrics=time,reads,writes,fsyncs: those columns, each mean ± sd of the runs' JSON ---
# metrics_check DESC TABLE JSON RUNPATH: the table's rows (TABLE: compare's stdout) and the
# JSON's cells (phases[0].jobs[0].metrics) against the mean and sample sd of each run's own
# figures (RUNPATH: a run's result document within its entry): time = elapsed_s (3
# decimals), reads, writes, fsyncs = op_types.*.ops_per_s (1 decimal); each column's Δ, and
# the JSON's diff_pct, is its difference to the first row.
metrics_check() {
	SBIO_TABLE=$2 SBIO_RUNPATH=$4 json_expect "$1" "$3" '
import os, re, statistics as st
rows = {}
for line in open(os.environ["SBIO_TABLE"], encoding="utf-8"):
    m = re.match(r"^(scheduler=\S+) +(\d+/\d+) (.*)$", line)
    if m: rows[m.group(1)] = re.findall(r"([-0-9.]+) ± ([-0-9.]+)(?: !)? +(\(baseline\)|[-+][0-9.]+%)", m.group(3))
if d["metrics"] != ["time", "reads", "writes", "fsyncs"]: print("metrics", d["metrics"])
fmt = {"time": "%.3f", "reads": "%.1f", "writes": "%.1f", "fsyncs": "%.1f"}
def fig(doc, k):
    r = doc["result"]
    return r["elapsed_s"] if k == "time" else r["op_types"][k[:-1]]["ops_per_s"]
means = {}
for si, x in enumerate(d["settings"]):
    docs = [eval("r[\"result\"]" + os.environ["SBIO_RUNPATH"]) for r in x["runs"] if r["status"] == "ok"]
    cells = rows.get(x["name"], [])
    if len(docs) != 2 or len(cells) != 4: print(x["name"], "runs", len(docs), "cells", cells)
    for i, k in enumerate(d["metrics"]):
        v = [fig(doc, k) for doc in docs]
        m, sd = st.mean(v), st.stdev(v)
        means[(si, k)] = m
        j = x["phases"][0]["jobs"][0]["metrics"][k]
        if abs(j["mean"] - m) > 1e-6 * abs(m) or abs(j["stddev"] - sd) > 1e-6 * max(abs(m), 1):
            print(x["name"], k, "JSON", j, "runs", m, sd)
        if i < len(cells) and cells[i][:2] != (fmt[k] % m, fmt[k] % sd):
            print(x["name"], k, "table", cells[i], "runs", fmt[k] % m, fmt[k] % sd)
        want = "(baseline)" if si == 0 else "%+.1f%%" % ((m - means[(0, k)]) / means[(0, k)] * 100) if means[(0, k)] else None
        if want and i < len(cells) and cells[i][2] != want: print(x["name"], k, "delta", cells[i][2], "want", want)
        if si and means[(0, k)]:
            w = (m - means[(0, k)]) / means[(0, k)] * 100 # the JSON has 10 digits: a relative tolerance
            if abs(j["diff_pct"] - w) > 1e-6 * max(1, abs(w)): print(x["name"], k, "diff_pct", j["diff_pct"], "want", w)
t0 = d["settings"][0]["phases"][0]["jobs"][0]["metrics"]["time"]
if t0["verdict"] != "baseline" or "diff_pct" in t0: print("baseline", t0)'
}
expect_exit 0 "compare --metrics=time,reads,writes,fsyncs (rndrw, 300 events, 2 settings x 2): exit 0" \
	"$SBIO" "${CMP[@]}" --schedulers=none,mq-deadline --repeat=2 --file-test-mode=rndrw --threads=2 \
	--events=300 --time=0 --drop-caches=off --metrics=time,reads,writes,fsyncs -o "$TMP/met.json"
cp "$TMP/out" "$TMP/met.out"
check "--metrics: the table's header has the columns asked for, in order, each with its Δ" \
	grep -qE '^setting +runs +time, s +Δ time, s +reads/s +Δ reads/s +writes/s +Δ writes/s +fsyncs/s +Δ fsyncs/s$' "$TMP/met.out"
check "--metrics: each progress line has the metrics asked for" \
	test "$(grep -cE '^\[[0-9]/4\] .*: time [0-9.]+ s, reads [0-9.]+ ops/s, writes [0-9.]+ ops/s, fsyncs [0-9.]+ ops/s$' "$TMP/met.out")" -eq 4
metrics_check "--metrics: table and JSON summary = mean ± sd of the runs' own JSON" "$TMP/met.out" "$TMP/met.json" ""
# The same over a script: each phase's figures from the phase's job, as its table.
mkdir -p "$MNT/sb"
SB=(--dir="$MNT/sb" --script "$(cd "$(dirname "$0")/../.." && pwd)/workloads/sysbench-rndrw.lua" --size=8M --events=400)
expect_exit 0 "prepare sysbench-rndrw (8 MiB)" "$SBIO" prepare "${SB[@]}"
expect_exit 0 "compare --script sysbench-rndrw --metrics=time,reads,writes,fsyncs: exit 0" \
	"$SBIO" compare "${SB[@]}" --schedulers=none,mq-deadline --repeat=2 --drop-caches=off \
	--metrics=time,reads,writes,fsyncs -o "$TMP/metsb.json"
cp "$TMP/out" "$TMP/metsb.out"
check "compare --script: the script's report() prints nowhere, as the runs' own reports" \
	bash -c "! grep -q '^Operations performed:' '$TMP/metsb.out'"
metrics_check "--metrics over a script: table and JSON (setting and phase) = the runs' phase figures" \
	"$TMP/metsb.out" "$TMP/metsb.json" '["phases"][0]["jobs"][0]["result"]'
json_expect "--metrics over a script: every run made the 400 requests asked for" "$TMP/metsb.json" '
for x in d["settings"]:
    for r in x["runs"]:
        o = r["result"]["phases"][0]["jobs"][0]["result"]["result"]["op_types"]
        if o["read"]["ops"] + o["write"]["ops"] != 400: print(x["name"], o["read"]["ops"], o["write"]["ops"])'
same_state "--metrics: every queue setting as before" "$BASE"

# --- --vary of the script's own options: bs (the reader's block size) and threads (which
# shadows sbio's --threads), 2 x 2 settings, twice. The script has no fileset: it reads the
# set of the command line. Each worker thread is traced on its own (strace -ff): a thread's
# reads of the set all have its setting's size, and the settings' threads add up. ---
VS=$TMP/vary.lua
cat >"$VS" <<'LUA'
option("bs", "4k", "the reader's block size")
option("threads", 1, "reader threads (shadows sbio's --threads)")
phase "read" {
    time = 0, events = 64,
    job "reader" { threads = options.threads, block = options.bs, mix = { read = 1 } },
}
LUA
# shellcheck disable=SC2054 # the commas are the --vary lists
VARY=(--script "$VS" --vary bs=4k,16k --vary threads=1,2 --repeat=2 --drop-caches=off)
mkdir -p "$TMP/st"
expect_exit 0 "compare --script --vary bs=4k,16k --vary threads=1,2 (the script's options) --repeat=2: exit 0" \
	strace -ff -y -e trace=pread64 -o "$TMP/st/t" "$SBIO" "${CMP[@]}" "${VARY[@]}" -o "$TMP/vary.json"
cp "$TMP/out" "$TMP/vary.out"
VNAMES=("bs=4k threads=1" "bs=4k threads=2" "bs=16k threads=1" "bs=16k threads=2")
want=""
for r in 1 2; do for n in "${VNAMES[@]}"; do want+="$r $n|"; done; done
eq "script options: 8 progress lines, repeat-major, each setting named by the script's options" \
	"$(progress "$TMP/vary.out" | tr '\n' '|')" "$want"
for n in "${VNAMES[@]}"; do
	check "script options: the table has the row '$n' with 2/2 runs" grep -qE "^$n +2/2 " "$TMP/vary.out"
done
eq "script options: one table row per setting" "$(grep -cE '^bs=[0-9]+k threads=[12] +2/2 ' "$TMP/vary.out")" 4
# Per thread that read the set: "SIZE COUNT" (one size only), summed per size: threads and reads.
for f in "$TMP"/st/t.*; do
	sed -nE 's/^pread64\([0-9]+<[^>]*test_file[^>]*>, .*, ([0-9]+), [0-9]+\) += [0-9]+$/\1/p' "$f" | sort | uniq -c |
		awk 'END { if (NR > 1) print "mixed"; else if (NR) print $2, $1 }'
done >"$TMP/st.sum"
eq "strace: no thread read the set with two sizes" "$(grep -c mixed "$TMP/st.sum")" 0
# bs=4k: threads=1 twice and threads=2 twice = up to 6 threads, 4 runs x 64 reads; the same at
# 16k. Of a run's 2 threads one may find the 64 events taken before it starts (the budget is
# claimed in batches; seen on a loaded machine): 4 to 6 threads read at each size.
eq "strace: 256 reads of 4 KiB and 256 of 16 KiB (4 runs of 64 reads per block size)" \
	"$(awk '{ n[$1] += $2 } END { for (s in n) print s, n[s] }' "$TMP/st.sum" | sort -n | tr '\n' '|')" \
	"4096 256|16384 256|"
check "strace: 4 to 6 threads read at each block size (threads 1+1+2+2)" \
	awk '{ t[$1]++ } END { for (s in t) if (t[s] < 4 || t[s] > 6) exit 1; exit length(t) != 2 }' "$TMP/st.sum"
json_expect "script options JSON: axes bs and threads, each setting's values, each run's job ran with them" "$TMP/vary.json" '
if d["axes"] != [{"key": "bs", "values": ["4k", "16k"]}, {"key": "threads", "values": ["1", "2"]}]: print("axes", d["axes"])
for x in d["settings"]:
    v = x["values"]
    if x["name"] != "bs=%s threads=%s" % (v.get("bs"), v.get("threads")): print("name", x["name"], v)
    if len(x["runs"]) != 2 or x["phases"][0]["runs_ok"] != 2: print(x["name"], "runs", len(x["runs"]))
    for r in x["runs"]:
        j = r["result"]["phases"][0]["jobs"][0]["result"]
        got = (j["config"]["block_size_bytes"], j["config"]["threads"], j["result"]["events"])
        if got != ({"4k": 4096, "16k": 16384}[v["bs"]], int(v["threads"]), 64): print(x["name"], "repeat", r["repeat"], "ran", got)'
K=$TMP/vary-plot
expect_exit 0 "sbio plot of the script-option compare: exit 0" "$SBIO" plot "$TMP/vary.json" -o "$TMP/vary.png" --keep-data "$K"
eq "plot: the bars' data file names the settings by the script's options" \
	"$(awk '/^$/ { exit } !/^#/ { sub(/^.*"(bs=)/, "bs="); sub(/"$/, ""); printf "%s|", $0 }' "$K/phase1-job1-throughput.dat")" \
	"$(printf '%s|' "${VNAMES[@]}")"
# Refused before any run: a value of the wrong type, a name nothing has, and settings that
# change the phases or the set.
refused "--script --vary threads=1,abc (a number option)" "^sbio: --vary, setting threads=abc: .*vary.lua:[0-9]+: --threads: 'abc' is not a number$" \
	--script "$VS" --vary threads=1,abc
refused "--script --vary wieght=1,2 (no such option)" '^sbio: --vary wieght: nothing compare can vary has that name; accepted: scheduler, .*, or an option of vary.lua: bs, threads$' \
	--script "$VS" --vary wieght=1,2
cat >"$TMP/vary-shape.lua" <<'LUA'
option("bs", "4k", "block size, in the phase's name")
option("size", "16M", "the set")
fileset { files = 4, size = options.size }
phase ("read " .. options.bs) { events = 8, job "r" { block = options.bs, mix = { read = 1 } } }
LUA
refused "--script --vary bs=4k,8k (the phase is named after it)" 'setting bs=8k: phase 1 of vary-shape.lua is "read 8k" \(of 1\), with the command line.s options "read 4k"' \
	--script "$TMP/vary-shape.lua" --vary bs=4k,8k
refused "--script --vary size=16M,32M (the set)" 'setting size=32M: vary-shape.lua declares 4 files, 32 MiB, with the command line.s options 4 files, 16 MiB' \
	--script "$TMP/vary-shape.lua" --vary size=16M,32M
# A group setting out of range in the last setting (on a fake cgroup v2 root, io.weight is 1 to
# 10000): refused before the first setting runs, like any other bad value.
cat >"$TMP/vary-group.lua" <<'LUA'
option("weight", 100, "the reader's io.weight")
phase "read" { events = 8, job "r" { mix = { read = 1 }, group = { weight = options.weight } } }
LUA
mkdir -p "$TMP/fakecg"
echo "io memory" >"$TMP/fakecg/cgroup.controllers"
export SBIO_CGROUP_ROOT=$TMP/fakecg
refused "--script --vary weight=100,10001 (a group weight out of range)" '^sbio: [^ ]*/vary-group\.lua:2: job r: group weight 10001 is out of range; accepted: 1 to 10000 \(cgroup v2 io.weight\)$' \
	--script "$TMP/vary-group.lua" --vary weight=100,10001
unset SBIO_CGROUP_ROOT
check "the group refused: nothing made in the fake cgroup root" test -z "$(find "$TMP/fakecg" -mindepth 1 -not -name cgroup.controllers)"
same_state "script options: every queue setting as before" "$BASE"

# --- SIGINT mid-compare: the run in progress is marked and left out, the table so far is
# printed, everything restored, exit 130 ---
"$SBIO" "${CMP[@]}" --schedulers=$S1,$S2,$S3 --repeat=2 --file-test-mode=rndrd \
	--time=3 -o "$TMP/int.json" >"$TMP/int.out" 2>"$TMP/int.err" &
BG=$!
PIDS+=("$BG")
n=150
while ! grep -qs '^\[2/6\]' "$TMP/int.out" && kill -0 "$BG" 2>/dev/null && [ $n -gt 0 ]; do
	sleep 0.1
	n=$((n - 1))
done
# Into the second run: its scheduler set (then caches dropped and the threads started).
mid=
while [ "$mid" != "$S2" ] && kill -0 "$BG" 2>/dev/null && [ $n -gt 0 ]; do
	sleep 0.1
	n=$((n - 1))
	mid=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$Q/scheduler")
done
sleep 0.7
kill -INT "$BG"
n=150
while kill -0 "$BG" 2>/dev/null && [ $n -gt 0 ]; do
	sleep 0.1
	n=$((n - 1))
done
kill -0 "$BG" 2>/dev/null && kill -KILL "$BG"
wait "$BG"
RC=$?
eq "SIGINT: $S2 was in effect during the second run" "$mid" "$S2"
eq "SIGINT during run 2 of 6: exit 130" "$RC" 130
check "SIGINT: says Interrupted" grep -q 'Interrupted' "$TMP/int.out"
eq "SIGINT: no run after the interrupted one" "$(progress "$TMP/int.out" | tr '\n' '|')" "1 scheduler=$S1|1 scheduler=$S2|"
check "SIGINT: the interrupted run is marked ('[2/6] repeat 1, scheduler=$S2: interrupted … excluded')" \
	grep -qE "^\[2/6\] repeat 1, scheduler=$S2: interrupted.*excluded" "$TMP/int.out"
check "SIGINT: the partial table: scheduler=$S1 1/2 with its figures" grep -qE "^scheduler=$S1 +1/2 +[0-9]+ ± 0 " "$TMP/int.out"
check "SIGINT: the partial table: scheduler=$S2 0/2 (the interrupted run excluded)" grep -qE "^scheduler=$S2 +0/2 " "$TMP/int.out"
check "SIGINT: the partial table: scheduler=$S3 0/2" grep -qE "^scheduler=$S3 +0/2 " "$TMP/int.out"
json_expect "SIGINT JSON: interrupted, $S1's run ok, $S2's run marked interrupted, runs_ok 1/0/0" "$TMP/int.json" '
if d["interrupted"] is not True: print("interrupted", d["interrupted"])
got = [[r["status"] for r in x["runs"]] for x in d["settings"]]
if got != [["ok"], ["interrupted"], []]: print("statuses", got)
ok_ = [x["phases"][0]["runs_ok"] for x in d["settings"]]
if ok_ != [1, 0, 0]: print("runs_ok", ok_)'
same_state "SIGINT: every queue setting restored" "$BASE"
no_state_file "SIGINT: no state file left"

# --- --order=random --rand-seed: a permutation of the settings per repeat, reproducible ---
# shellcheck disable=SC2054
RND=("${CMP[@]}" --vary file-block-size=4K,8K,16K,32K --repeat=3 --order=random --file-test-mode=seqrd
	--events=32 --drop-caches=off)
expect_exit 0 "--order=random --rand-seed=7 --repeat=3 over 4 block sizes: exit 0" "$SBIO" "${RND[@]}" --rand-seed=7 -o "$TMP/rnd.json"
progress "$TMP/out" >"$TMP/rnd7a"
perm_ok=true
for r in 1 2 3; do
	got=$(awk -v r=$r '$1 == r { print $2 }' "$TMP/rnd7a" | sort | tr '\n' ' ')
	[ "$got" = "file-block-size=16K file-block-size=32K file-block-size=4K file-block-size=8K " ] || perm_ok=false
done
check "--order=random: each repeat runs every setting once (12 lines, repeats 1,1,1,1,2,…)" \
	test "$perm_ok" = true -a "$(awk '{ printf "%s", $1 }' "$TMP/rnd7a")" = 111122223333
check "--order=random: not every repeat in the settings' order" \
	test "$(awk '{ printf "%s ", $2 }' "$TMP/rnd7a")" != "$(for _ in 1 2 3; do printf 'file-block-size=%s ' 4K 8K 16K 32K; done)"
check "--order=random: the first line says random order" grep -q '^sbio .* compare: 4 settings x 3 repeats = 12 runs, random order, the page cache kept between runs$' "$TMP/out"
json_expect "--order=random JSON: order random, 4 settings x 3 runs ok" "$TMP/rnd.json" '
if d["order"] != "random": print("order", d["order"])
for x in d["settings"]:
    if sorted((r["repeat"], r["status"]) for r in x["runs"]) != [(1, "ok"), (2, "ok"), (3, "ok")]: print(x["name"], [(r["repeat"], r["status"]) for r in x["runs"]])'
expect_exit 0 "--order=random --rand-seed=7 again: exit 0" "$SBIO" "${RND[@]}" --rand-seed=7
eq "--order=random: the same seed, the same order" "$(progress "$TMP/out" | tr '\n' '|')" "$(tr '\n' '|' <"$TMP/rnd7a")"
expect_exit 0 "--order=random --rand-seed=8: exit 0" "$SBIO" "${RND[@]}" --rand-seed=8
check "--order=random: another seed, another order" test "$(progress "$TMP/out" | tr '\n' '|')" != "$(tr '\n' '|' <"$TMP/rnd7a")"

# A long compare's memory stays flat: with -o, each run's result waits in a temporary file,
# not in memory (it grew ~100 KB a run: 9 MB at run 27, 69 MB at run 600 of null-engine runs).
# 400 null-engine runs; the resident size once 50 are made and at the last: at most 12 MiB more
# (the old way: 32 MiB; this way 0.2 MiB, 6.3 MiB under ASan, whose quarantine, which keeps
# freed memory, is off for this run).
MEM=("$SBIO" compare "${SET[@]}" --file-test-mode=rndrd --ioengine=null --events=2000
	--repeat=200 --vary threads=1,2 --drop-caches=off -o "$TMP/mem.json")
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=0" "${MEM[@]}" >"$TMP/mem.out" 2>"$TMP/mem.err" &
mem_pid=$!
PIDS+=("$mem_pid")
# The last reading is any one taken after run 300 (the last runs can end between two readings
# on a fast machine): by then the old way had grown 25 MiB.
rss_at50= rss_last= n_last=
while kill -0 "$mem_pid" 2>/dev/null; do
	n=$(grep -c '^\[' "$TMP/mem.out")
	r=$(awk '/^VmRSS:/ { print $2 }' /proc/"$mem_pid"/status 2>/dev/null)
	[ -n "$r" ] || continue
	[ -z "$rss_at50" ] && [ "$n" -ge 50 ] && rss_at50=$r
	[ "$n" -ge 300 ] && rss_last=$r n_last=$n
	sleep 0.05
done
wait "$mem_pid"
eq "400 runs with -o: exit 0, 400 progress lines" "$?/$(grep -c '^\[' "$TMP/mem.out")" "0/400"
if [ -n "$rss_at50" ] && [ -n "$rss_last" ] && [ "$rss_last" -le $((rss_at50 + 12288)) ]; then
	ok "400 runs with -o: resident size flat (run 50: $rss_at50 KiB, run $n_last: $rss_last KiB)"
else
	notok "400 runs with -o: resident size grew (run 50: ${rss_at50:-?} KiB, run ${n_last:-300+}: ${rss_last:-?} KiB; at most 12 MiB more)"
fi
json_expect "400 runs with -o: the JSON holds each run's whole result, indented as one document" "$TMP/mem.json" '
runs = [r for x in d["settings"] for r in x["runs"]]
if len(runs) != 400: print("runs", len(runs))
bad = [r["repeat"] for r in runs if not isinstance(r["result"], dict) or r["result"].get("schema") != "sbio-result/1" or r["result"]["result"]["events"] != 2000]
if bad: print("results", bad[:5])
depth = 0
for n, line in enumerate(open(sys.argv[1]).read().split("\n")):
    s = line.lstrip(" ")
    want = 2 * (depth - (s[:1] in "]}"))
    if len(line) - len(s) != want:
        print("line", n + 1, "indent", len(line) - len(s), "want", want)
        break
    ins = esc = False
    for ch in s:
        if ins:
            if esc: esc = False
            elif ch == "\\": esc = True
            elif ch == "\"": ins = False
        elif ch == "\"": ins = True
        elif ch in "[{": depth += 1
        elif ch in "]}": depth -= 1'

same_state "at the end: every queue setting of $LOOP as at the start" "$BASE"
no_state_file "at the end: no state file left"
exit 0
