#!/bin/bash
# sbio compare's statistics against known differences, on its own loop device with ext4:
# - --vary rate=2000,4000 (a known 2x): the second setting's ops/s +100% within 10 points,
#   flagged significant (JSON verdict, the table's mark), its CI around it;
# - --vary rate=3000,3000 (the same setting twice, the second named rate=3000#2): not
#   flagged (a correct test flags such a pair 5% of the time: flagged twice in a row fails);
# - --repeat=auto --target-ci=5% --metrics=ops: both rate-limited settings stop at the third
#   round, before --max-repeat, and the lines after the table say which metric decided; with
#   a target no run can meet, --max-repeat ends it and says which metric was still wider;
#   --max-compare-time starts no run that would end after it;
# - a script of two jobs with their own rates under two schedulers: a block per job (and
#   their total), each job's cells the runs of that job (its JSON result per run), one ~3x
#   the other;
# - bad input: the options of --repeat=auto without it, a target of 0, --repeat=soon,
#   --max-repeat=1: exit 2, one line, no run.
# Rate-limited reads of a cached 8 MiB set: the figures are the rate limiter's, not the
# device's, so they hold on a busy shared machine.
source "$(dirname "$0")/lib.sh"

MNT=$TMP/mnt
stats_cleanup() {
	loop_cleanup "$MNT"
	t_cleanup
}
trap stats_cleanup EXIT

if ! need_root; then
	skip "needs root (loop devices, sysfs queue settings)"
	exit 0
fi
loop_ext4 64M "$MNT"
ok "own loop device /dev/$LOOP with ext4 mounted at $MNT"
export SBIO_STATE_DIR=$TMP/state
D=$MNT/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=2 --file-total-size=8M)
RUN=(compare "${SET[@]}" --file-test-mode=rndrd --time=1 --drop-caches=off)

# cell(i, job, m): setting i's cell of metric m (ops/s) of its job (the first), as the JSON has it.
# reached(): whether every run of the compare reached 95% of its --rate: a paced thread a loaded
# machine keeps off its CPU near the end of a run cannot catch up, and no difference of rates is
# known then. consistent(c0, c): the cell says what its runs hold: its mean and difference are
# its values', its CI holds the difference, its verdict is its Holm p-value against 5%.
CELL='def cell(i, job=0, m="ops"): return d["settings"][i]["phases"][0]["jobs"][job]["metrics"][m]
def reached():
    for x in d["settings"]:
        for r in x["runs"]:
            res = r["result"]
            if res["result"]["events"] < 0.95 * float(res["config"]["rate_ops_per_s"]) * res["result"]["elapsed_s"]: return False
    return True
def consistent(c0, c):
    m0, m = sum(c0["values"]) / len(c0["values"]), sum(c["values"]) / len(c["values"])
    if abs(c["mean"] - m) > 1e-6 * m or abs(c["diff_pct"] - 100 * (m / m0 - 1)) > 1e-6 * max(1, abs(c["diff_pct"])): print("mean/diff", c["mean"], m, c["diff_pct"], m0)
    lo, hi = c["diff_ci95_pct"]
    if not lo <= c["diff_pct"] <= hi: print("CI", lo, hi)
    if (c["verdict"] == "significant") != (c["p_holm"] < 0.05): print("verdict", c["verdict"], c["p_holm"])'

expect_exit 0 "prepare 2 x 4 MiB" "$SBIO" prepare "${SET[@]}"
cat "$D"/test_file.* >/dev/null

# --- A known 2x difference ---
# Runs of 2 s: a paced thread stalled near the end of a 1 s run by a loaded machine cannot
# catch up before the time limit, and such runs gave CIs 24.6 and 32.7 points wide (load
# 5-8 from other work) where 2 s runs gave 0.0 at load 4.
expect_exit 0 "compare --vary rate=2000,4000 --repeat=3 --time=2: exit 0" \
	"$SBIO" "${RUN[@]}" --time=2 --vary rate=2000,4000 --repeat=3 -o "$TMP/2x.json"
cp "$TMP/out" "$TMP/2x.out"
REACHED=$(json_py "$TMP/2x.json" "$CELL"'
print(reached())')
json_expect "rate 2000 -> 4000: the cell is its runs' figures, its CI holds the difference, its verdict its Holm p-value" "$TMP/2x.json" "$CELL"'
consistent(cell(0), cell(1))
if d["statistics"]["comparisons"] != [2]: print("comparisons", d["statistics"]["comparisons"])'
if [ "$REACHED" = True ]; then
	json_expect "rate 2000 -> 4000 (every run at its rate): ops/s +100% within 10 points, significant after Holm, its CI around it" "$TMP/2x.json" "$CELL"'
c = cell(1)
if not 90 <= c["diff_pct"] <= 110: print("diff", c["diff_pct"])
if c["verdict"] != "significant" or not c["p_holm"] < 0.05: print("verdict", c["verdict"], c["p_holm"])
lo, hi = c["diff_ci95_pct"]
if hi - lo > 20: print("CI", lo, hi)'
	check "rate 2000 -> 4000: the table's row has +N% [lo, hi] and the mark" \
		grep -qE '^rate=4000 +3/3 +[0-9]+ ± [0-9]+ +\+(9[0-9]|10[0-9])\.[0-9]% \[\+[0-9.]+%, \+[0-9.]+%\] \*' "$TMP/2x.out"
else
	check "rate 2000 -> 4000: the table's row has +N% [lo, hi]" \
		grep -qE '^rate=4000 +3/3 +[0-9]+ ± [0-9]+ +[-+][0-9.]+% \[[-+][0-9.]+%, [-+][0-9.]+%\]' "$TMP/2x.out"
fi
check "rate 2000 -> 4000: the footer names the correction and the 2 comparisons (ops/s, read p99)" \
	grep -qF '* significant at 5% after Holm–Bonferroni over the 2 comparisons of this table' "$TMP/2x.out"

# --- The same setting twice: not flagged ---
same() {
	"$SBIO" "${RUN[@]}" --vary rate=3000,3000 --repeat=3 --metrics=ops -o "$TMP/aa.json" >"$TMP/aa.out" 2>"$TMP/err" &&
		[ -z "$(json_py "$TMP/aa.json" "$CELL"'
if cell(1)["verdict"] != "within noise": print(1)')" ]
}
if same || same; then ok "rate=3000 twice: within noise (once in two tries)"; else
	notok "rate=3000 twice: flagged twice in a row ($(grep '^rate=' "$TMP/aa.out" | tr '\n' '|'))"
fi
check "rate=3000 twice: the second setting is rate=3000#2" grep -qE '^rate=3000#2 +3/3 ' "$TMP/aa.out"
json_expect "rate=3000 twice: the JSON keeps the value 3000 for both" "$TMP/aa.json" '
if [x["values"] for x in d["settings"]] != [{"rate": "3000"}, {"rate": "3000"}]: print([x["values"] for x in d["settings"]])'

# --- --repeat=auto ---
expect_exit 0 "compare --vary rate=2000,4000 --repeat=auto --target-ci=5% --metrics=ops: exit 0" \
	"$SBIO" "${RUN[@]}" --vary rate=2000,4000 --repeat=auto --target-ci=5% --metrics=ops -o "$TMP/auto.json"
cp "$TMP/out" "$TMP/auto.out"
check "auto: the first line says what it runs until" \
	grep -qE '^sbio .* compare: 2 settings, each run until every 95% confidence interval is within ±5% of its mean \(3 to 10 runs\)' "$TMP/auto.out"
# Paced runs on a quiet machine settle at the first 3 (their CIs ~0%); a loaded one may need
# more rounds, or reach the cap: what is checked is that each setting stopped for the reason it
# gives, after as many runs as the JSON and the progress lines show.
AUTO_RUNS=$(json_py "$TMP/auto.json" 'print(" ".join(str(len(x["runs"])) for x in d["settings"]))')
eq "auto: the progress lines count the JSON's runs ($AUTO_RUNS)" "$(grep -c '^\[[0-9]*\] round [0-9]*, rate=' "$TMP/auto.out")" \
	"$(awk '{ print $1 + $2 }' <<<"$AUTO_RUNS")"
i=0
for r in 2000 4000; do
	i=$((i + 1))
	n=$(cut -d' ' -f$i <<<"$AUTO_RUNS")
	check "auto: rate=$r stopped after its $n runs, settled with ops/s the last CI to settle, or at the cap" \
		grep -qE "^  rate=$r: $n runs, (settled; the last CI to get within the target: ±[0-9.e-]+% \(ops/s\)|stopped at --max-repeat; widest CI: ±[0-9.e-]+% \(ops/s\))$" "$TMP/auto.out"
done
json_expect "auto JSON: repeat auto, target 5, each setting stopped by the target (its widest CI within it) after 3 to 10 runs, or at 10 runs" "$TMP/auto.json" '
if d["repeat"] != "auto" or d["target_ci_pct"] != 5 or d["max_repeat"] != 10: print(d["repeat"], d.get("target_ci_pct"), d.get("max_repeat"))
for x in d["settings"]:
    st, n = x["stop"], len(x["runs"])
    ok = (st["reason"] == "target" and st["widest"] == "ops/s" and st["widest_ci_pct"] <= 5 and 3 <= n <= 10) or (st["reason"] == "max-repeat" and n == 10)
    if not ok: print(x["name"], st, n)'
# (Runs of 400 events, 0.1 to 0.2 s: what is checked is where the compare stops, and short
# runs are further still from a CI of 0.0001%.)
expect_exit 0 "compare --repeat=auto --target-ci=0.0001 --max-repeat=3: exit 0" \
	"$SBIO" "${RUN[@]}" --time=0 --events=400 --vary rate=2000,4000 --repeat=auto --target-ci=0.0001 --max-repeat=3 --metrics=ops -o "$TMP/cap.json"
check "auto: a target no run meets stops at --max-repeat and says which metric was wider" \
	grep -qE '^  rate=2000: 3 runs, stopped at --max-repeat; widest CI: ±[0-9.e-]+% \(ops/s\)$' "$TMP/out"
json_expect "auto JSON: stopped by max-repeat" "$TMP/cap.json" '
if [x["stop"]["reason"] for x in d["settings"]] != ["max-repeat"] * 2: print([x["stop"] for x in d["settings"]])'
# A 1 s run takes longer than 1 s (its checks and set-up), longer still on a loaded machine
# (1.5 s left one run of a budget of 3 s): a budget of 4 s has room for two runs of 2 s.
expect_exit 0 "compare --repeat=5 --max-compare-time=4 (1 s runs): exit 0" \
	"$SBIO" "${RUN[@]}" --vary rate=2000,4000 --repeat=5 --max-compare-time=4 --metrics=ops -o "$TMP/budget.json"
N=$(grep -c '^\[[0-9]*/10\] repeat' "$TMP/out")
check "--max-compare-time=4: 2 to 4 runs of 1 s made, not 10 ($N)" test "$N" -ge 2 -a "$N" -le 4
check "--max-compare-time: the table's runs say n of the 5 planned" grep -qE '^rate=2000 +[12]/5 ' "$TMP/out"
check "--max-compare-time: said after the table" grep -qE "^--max-compare-time reached after $N runs$" "$TMP/out"
json_expect "--max-compare-time JSON: stop reason max-compare-time" "$TMP/budget.json" '
if [x["stop"]["reason"] for x in d["settings"]] != ["max-compare-time"] * 2: print([x["stop"] for x in d["settings"]])'

# --- Two jobs: a block each ---
cat >"$TMP/two.lua" <<'EOF'
phase "two" {
    time = 1,
    job "slow" { threads = 1, block = "4k", mix = { read = 1 }, pattern = "uniform", rate = 500 },
    job "fast" { threads = 2, block = "4k", mix = { read = 1 }, pattern = "uniform", rate = 1500 },
}
EOF
expect_exit 0 "compare --script (jobs slow at 500/s, fast at 1500/s) --schedulers=none,mq-deadline --repeat=3: exit 0" \
	"$SBIO" compare "${SET[@]}" --script "$TMP/two.lua" --schedulers=none,mq-deadline --repeat=3 --drop-caches=off -o "$TMP/two.json"
cp "$TMP/out" "$TMP/two.out"
for b in "Job slow" "Job fast" "All jobs together"; do
	check "two jobs: the table has the block '$b'" grep -qx "$b" "$TMP/two.out"
done
json_expect "two jobs: each job's cell holds that job's runs (its JSON result), slow ~500/s, fast ~1500/s, total their sum" "$TMP/two.json" "$CELL"'
for i, x in enumerate(d["settings"]):
    runs = [r["result"]["phases"][0] for r in x["runs"] if r["status"] == "ok"]
    for j, (name, rate) in enumerate((("slow", 500), ("fast", 1500))):
        want = [p["jobs"][j]["result"]["result"]["ops"] / p["jobs"][j]["result"]["result"]["elapsed_s"] for p in runs]
        c = cell(i, j)
        if x["phases"][0]["jobs"][j]["name"] != name or len(c["values"]) != len(want) or any(abs(a - b) > 1e-7 * b for a, b in zip(c["values"], want)): print(x["name"], name, c["values"], want)
        if abs(c["mean"] - rate) > rate * 0.1: print(x["name"], name, "mean", c["mean"])
    t = x["phases"][0]["jobs"][2]
    if not t["total"] or abs(t["metrics"]["ops"]["mean"] - 2000) > 200: print(x["name"], "total", t["metrics"]["ops"]["mean"])'
ROW=$(sed -n '/^Job slow$/,/^$/p' "$TMP/two.out" | grep '^scheduler=none ')
check "two jobs: job slow's row shows ~500 ops/s ($ROW)" grep -qE '^scheduler=none +3/3 +(4[5-9][0-9]|5[0-4][0-9]) ± ' <<<"$ROW"

# --- Bad input ---
bad() {
	local desc=$1 pat=$2
	shift 2
	expect_exit 2 "$desc: exit 2" "$SBIO" "${RUN[@]}" --vary rate=2000,4000 "$@"
	stderr_one_line "$desc: one line"
	check "$desc: the message matches /$pat/" grep -qE -- "$pat" "$TMP/err"
	eq "$desc: no run" "$(grep -c '^\[' "$TMP/out")" 0
}
bad "--target-ci without --repeat=auto" '^sbio: --target-ci applies to --repeat=auto, not --repeat=3$' --repeat=3 --target-ci=2
bad "--max-repeat without --repeat=auto" '^sbio: --max-repeat applies to --repeat=auto' --max-repeat=4
bad "--target-ci=0" '^sbio: --target-ci=0: accepted: a percentage above 0 and below 100' --repeat=auto --target-ci=0
bad "--repeat=soon" "^sbio: --repeat: 'soon' is not valid; accepted: an integer from 1 to 10000, or auto$" --repeat=soon
bad "--max-repeat=1" "^sbio: --max-repeat: '1' is out of range; accepted: an integer from 3 to 10000$" --repeat=auto --max-repeat=1
