#!/bin/bash
# sbio diff with the real binary on real run results: a result diffed
# with itself is 0.0% on every row and passes --threshold=1; a faster and a slower run
# (rndrd at --rate=2000 and --rate=1000) show the expected signs, no row marked better or
# worse (one run a side: a line says why and how many runs would do), the rate listed as the
# setting that differs, and --threshold=5 fails (exit 1, the rows named on stderr) only when
# the slower one is B; every workload option that differs (threads, block size, flags) is
# listed before the figures and in -o's JSON; bad input is exit 2 with one line and nothing on
# stdout.
# Several runs a side: 3 runs at --rate=2000 against 3 at --rate=4000 show +100% (within
# 10%) marked significant, a noisy B far below A gets a CI that stays above -100%, --threshold fires (on the CI) only when the slower runs are B, and
# -o writes the same figures; two compares are diffed setting by setting from their runs (the
# setting both have, the same rate, within 2% with its CI); a script's two jobs each get
# their own block, whose ops/s are the job's own in its result; runs of different shapes and
# bad command lines are exit 2 with one line.
# A small set (4 x 2 MiB) on a tmpfs of the test's own when root (rate-limited runs keep
# their rate there whatever else the machine's disk is doing), else under $TMP; about 30 s.
source "$(dirname "$0")/lib.sh"

MNT=$TMP/mnt
d_cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	t_cleanup
}
trap d_cleanup EXIT
mkdir -p "$MNT"
if need_root && ! mount -t tmpfs -o size=64M,mode=0755 sbio-diff "$MNT"; then
	notok "mount a 64 MiB tmpfs at $MNT"
	exit 1
fi
D=$MNT/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=4 --file-total-size=8M)

# rows: the table's metric rows of the last command (after the "metric" heading, up to the
# blank line before the line on noise).
rows() { awk 'f && /^$/ { exit } f { print } /^metric /{ f = 1 }' "$TMP/out"; }
# row NAME: the row of metric NAME (the name is followed by two spaces).
row() { rows | grep -E "^$1  " | head -n 1; }
# delta_of NAME: its Δ% column; mark_of NAME: its mark (or nothing: none is expected).
MARKED='{ m = $NF; k = (m == "worse" || m == "better") }'
delta_of() { row "$1" | awk "$MARKED"' { print k ? $(NF - 1) : $NF }'; }
mark_of() { row "$1" | awk "$MARKED"' { print k ? m : "" }'; }

expect_exit 0 "prepare 4 x 2 MiB" "$SBIO" prepare "${SET[@]}"
expect_exit 0 "rndrw run -o a.json" "$SBIO" run "${SET[@]}" --file-test-mode=rndrw --time=1 \
	-o "$TMP/a.json"
expect_exit 0 "rndrd --rate=2000 -o fast.json" "$SBIO" run "${SET[@]}" --file-test-mode=rndrd \
	--time=1 --rate=2000 -o "$TMP/fast.json"
expect_exit 0 "rndrd --rate=1000 -o slow.json" "$SBIO" run "${SET[@]}" --file-test-mode=rndrd \
	--time=1 --rate=1000 -o "$TMP/slow.json"

# --- a result with itself ---
expect_exit 0 "diff a a --threshold=1: exit 0" "$SBIO" diff "$TMP/a.json" "$TMP/a.json" \
	--threshold=1
eq "diff a a: nothing on stderr" "$(cat "$TMP/err")" ""
check "diff a a: the header names A and B and the workload" \
	grep -q "^sbio diff: A = $TMP/a.json (rndrw, 1 thread, 16 KiB blocks, sync) vs B = " "$TMP/out"
n=$(rows | wc -l)
check "diff a a: at least 20 rows (total, read, write, fsync, CPU) ($n)" test "$n" -ge 20
eq "diff a a: every row is 0.0% without a mark" "$(rows | grep -cvE '  0\.0%$')" 0
for m in "ops/s" "read ops/s" "write MiB/s" "read lat p99" "fsync lat p99.9" "CPU%"; do
	eq "diff a a: $m 0.0%" "$(delta_of "$m")" "0.0%"
done

# setting NAME: the row of setting NAME before the figures, "A|B".
setting() { awk -v n="$1" '/^metric /{ exit } $1 == n && NF == 3 { print $2 "|" $3 }' "$TMP/out"; }
# noise_line: the line, after one run a side, on why nothing is better or worse and how many
# runs would tell.
noise_line() {
	check "$1: says one run a side calls nothing better or worse" \
		grep -qx '1 run a side: no difference is called better or worse (nor significant): one run does not measure' "$TMP/out"
	check "$1: says a CI needs 2 runs a side and 5 a side is a start" \
		grep -qE '^\+-2\.5 with 3, \+-1\.2 with 5, \+-0\.7 with 10: 5 runs a side is a useful start' "$TMP/out"
}

# --- faster A, slower B: throughput -50%, not marked; exit 1 over --threshold=5 ---
expect_exit 1 "diff fast slow --threshold=5: exit 1" "$SBIO" diff "$TMP/fast.json" \
	"$TMP/slow.json" --threshold=5
for m in "ops/s" "read ops/s" "read MiB/s"; do
	d=$(delta_of "$m")
	near "diff fast slow: $m about -50% ($d)" "${d//[%+-]/}" 50 10
	eq "diff fast slow: $m is negative" "${d:0:1}" "-"
	eq "diff fast slow: $m not marked" "$(mark_of "$m")" ""
done
eq "diff fast slow: no row marked better or worse" "$(rows | grep -cE ' (better|worse)$')" 0
noise_line "diff fast slow"
eq "diff fast slow: the setting that differs, before the figures: rate_ops_per_s 2000 in A, 1000 in B" \
	"$(setting rate_ops_per_s)" "2000|1000"
check "diff fast slow: the settings' heading right after the first line" \
	grep -qE '^setting +A +B$' <(sed -n 2p "$TMP/out")
check "diff fast slow: the write rows are absent (neither run wrote)" \
	test -z "$(row 'write ops/s')"
check "diff fast slow --threshold=5, one run a side: the note says the gate compares the single figures" \
	grep -qx 'fires on a change of more than 5% whether the change is real or the runs.* noise.' "$TMP/out"
check "diff fast slow: stderr names ops/s" grep -q '^sbio: diff: ops/s: .* below A' "$TMP/err"
check "diff fast slow: stderr names read MiB/s" grep -q '^sbio: diff: read MiB/s: ' "$TMP/err"
eq "diff fast slow: one stderr line per failing row (ops/s, read ops/s, read MiB/s)" \
	"$(wc -l <"$TMP/err")" 3
expect_exit 0 "diff fast slow without --threshold: exit 0" "$SBIO" diff "$TMP/fast.json" \
	"$TMP/slow.json"
eq "diff fast slow without --threshold: nothing on stderr" "$(cat "$TMP/err")" ""
check "diff fast slow without --threshold: no word about the gate" \
	bash -c "! grep -q 'threshold' '$TMP/out'"

# --- slower A, faster B: +100% better; exit 0 ---
expect_exit 0 "diff slow fast --threshold=5: exit 0" "$SBIO" diff "$TMP/slow.json" \
	"$TMP/fast.json" --threshold=5
for m in "ops/s" "read ops/s" "read MiB/s"; do
	d=$(delta_of "$m")
	near "diff slow fast: $m about +100% ($d)" "${d//[%+-]/}" 100 10
	eq "diff slow fast: $m is positive" "${d:0:1}" "+"
	eq "diff slow fast: $m not marked" "$(mark_of "$m")" ""
done
eq "diff slow fast: nothing on stderr" "$(cat "$TMP/err")" ""

# -o with one result a side: the rows as ever, and the table's figures in the file.
expect_exit 0 "diff fast slow -o pair.json: exit 0" "$SBIO" diff "$TMP/fast.json" "$TMP/slow.json" -o "$TMP/pair.json"
check "diff fast slow -o pair.json: the rows are printed" test -n "$(row 'read ops/s')"
eq "diff fast slow -o pair.json: sbio-diff/1, one run a side, no threshold" \
	"$(json_get "$TMP/pair.json" schema comparisons.0.sides.1.name comparisons.0.threshold_fired | paste -sd '|')" \
	"sbio-diff/1|B (1 run)|null"
d=$(json_get "$TMP/pair.json" comparisons.0.sides.1.phases.0.jobs.0.metrics.ops.diff_pct)
near "diff fast slow -o pair.json: ops diff_pct about -50% ($d)" "${d#-}" 50 10
json_expect "diff fast slow -o pair.json: settings_differ is the rate alone, 2000 in A and 1000 in B" "$TMP/pair.json" '
r = d["comparisons"][0]["settings_differ"]
if [(x["kind"], x["name"], x["a"], x["b"]) for x in r] != [("workload", "rate_ops_per_s", [2000], [1000])]: print(r)'

# --- another workload: every option that differs is listed before the figures ---
expect_exit 0 "rndrd 2 threads, 8 KiB, O_DSYNC, fsync every 10 -o other.json" "$SBIO" run "${SET[@]}" \
	--file-test-mode=rndrd --time=1 --threads=2 --file-block-size=8K --file-extra-flags=dsync \
	--file-fsync-freq=10 -o "$TMP/other.json"
expect_exit 0 "diff fast other -o other-d.json: exit 0" "$SBIO" diff "$TMP/fast.json" "$TMP/other.json" \
	-o "$TMP/other-d.json"
for want in "threads|1|2" "block_size_bytes|16384|8192" "file_extra_flags|(none)|dsync" \
	"file_fsync_freq|100|10" "rate_ops_per_s|2000|0"; do
	eq "diff fast other: ${want%%|*} listed before the figures" "${want%%|*}|$(setting "${want%%|*}")" "$want"
done
check "diff fast other: the random seed is not listed (every run draws its own)" \
	test -z "$(sed '/^metric /q' "$TMP/out" | grep rand_seed)"
check "diff fast other: a line says the figures are of every setting that differs together" \
	grep -qE "^\([0-9]+ of [0-9]+ settings differ: every change below is theirs together" "$TMP/out"
json_expect "diff fast other -o: settings_differ holds threads, block size, flags, fsync freq and rate" "$TMP/other-d.json" '
r = {x["name"]: (x["kind"], x["a"], x["b"]) for x in d["comparisons"][0]["settings_differ"]}
want = {"threads": ("workload", [1], [2]), "block_size_bytes": ("workload", [16384], [8192]),
        "file_extra_flags": ("workload", ["(none)"], ["dsync"]), "file_fsync_freq": ("workload", [100], [10]),
        "rate_ops_per_s": ("workload", [2000], [0])}
for k, v in want.items():
    if r.get(k) != v: print(k, r.get(k))
if "rand_seed" in r: print("rand_seed")'

# --- two synchronous runs given other depths: a sync engine has one request in flight per
# thread whatever --iodepth says, so no depth is listed as a difference ---
expect_exit 0 "rndrd sync --iodepth=4 -o sync4.json" "$SBIO" run "${SET[@]}" --file-test-mode=rndrd \
	--events=200 --iodepth=4 -o "$TMP/sync4.json"
expect_exit 0 "diff fast sync4: exit 0" "$SBIO" diff "$TMP/fast.json" "$TMP/sync4.json"
check "diff fast sync4 (both sync): neither iodepth nor iodepth_batch listed" \
	test -z "$(sed '/^metric /q' "$TMP/out" | grep -E '^iodepth')"
eq "sync4.json: the depth in effect, 1 and 1" "$(json_get "$TMP/sync4.json" config.iodepth config.iodepth_batch | paste -sd ' ')" "1 1"

# --- bad input ---
echo "total ops/s: 1234" >"$TMP/report.txt"
expect_exit 2 "diff of a text report: exit 2" "$SBIO" diff "$TMP/a.json" "$TMP/report.txt"
stderr_one_line "diff of a text report: one line on stderr"
check "diff of a text report: names the file" grep -q "report.txt: not JSON" "$TMP/err"
eq "diff of a text report: nothing on stdout" "$(cat "$TMP/out")" ""
expect_exit 2 "diff of a missing file: exit 2" "$SBIO" diff "$TMP/nothere.json" "$TMP/a.json"
stderr_one_line "diff of a missing file: one line on stderr"
eq "diff of a missing file: nothing on stdout" "$(cat "$TMP/out")" ""

# --- several runs a side: 3 at --rate=2000 (A) against 3 at --rate=4000 (B) ---
for i in 1 2 3; do
	"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --time=1 --rate=2000 -o "$TMP/r2k$i.json" \
		>/dev/null 2>"$TMP/err" || notok "run $i at --rate=2000: $(head -c 300 "$TMP/err")"
	"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --time=1 --rate=4000 -o "$TMP/r4k$i.json" \
		>/dev/null 2>"$TMP/err" || notok "run $i at --rate=4000: $(head -c 300 "$TMP/err")"
done
R2K=("$TMP"/r2k{1,2,3}.json)
R4K=("$TMP"/r4k{1,2,3}.json)
# rates RATE FILE…: "yes" when every run of the JSON files (run results, or compares' runs) reached
# 99.5% of its --rate: a paced thread a loaded machine keeps off its CPU near a run's end cannot
# catch up, and the difference of two rates is not known then. Else the mean ops/s of each
# file's runs (a compare's of rate=RATE), as "no M1 M2 …".
rates() {
	python3 - "$@" <<'PY'
import json, sys
want = sys.argv[1]
ok, means = True, []
for f in sys.argv[2:]:
    d = json.load(open(f))
    runs = [r["result"] for x in d.get("settings", []) for r in x["runs"] if x["values"].get("rate") == want] if "settings" in d else [d]
    vals = []
    for res in runs:
        rate, ev, el = float(res["config"]["rate_ops_per_s"]), res["result"]["events"], res["result"]["elapsed_s"]
        ok &= ev >= 0.995 * rate * el
        vals.append(ev / el)
    means.append(sum(vals) / len(vals))
print("yes" if ok else "no " + " ".join("%.6f" % m for m in means))
PY
}
# cells NAME: the row NAME's first difference, its CI and its mark, "D|LO, HI|*".
cells() {
	grep -E "^$1 " "$TMP/out" | head -n 1 |
		sed -E 's/^[^%]* ([+-][0-9.]+%) \[([^]]*)\]( \*)?.*/\1|\2|\3/; s/\| \*$/|*/'
}
expect_exit 0 "diff 3 runs at 2000/s -- 3 at 4000/s: exit 0" "$SBIO" diff "${R2K[@]}" -- "${R4K[@]}"
eq "diff of 3 runs a side: nothing on stderr" "$(cat "$TMP/err")" ""
check "diff of 3 runs a side: the header names A's files" \
	grep -q "^sbio diff: A = 3 runs (rndrd, 1 thread, 16 KiB blocks, sync, rate 2000/s): ${R2K[0]} " "$TMP/out"
check "diff of 3 runs a side: rows A (3 runs), B (3 runs), 3 of 3 runs each" \
	test "$(grep -cE '^[AB] \(3 runs\) +3/3 ' "$TMP/out")" = 2
c=$(cells "B \(3 runs\)")
d=${c%%|*}
all=$(for f in "${R2K[@]}" "${R4K[@]}"; do rates x "$f" | cut -d' ' -f1; done | sort -u | tr '\n' ' ')
if [ "$all" = "yes " ]; then
	near "diff of 3 runs a side (every run at its rate): B's ops/s about +100% ($c)" "${d//[%+]/}" 100 10
	eq "diff of 3 runs a side: B's ops/s is positive" "${d:0:1}" "+"
	eq "diff of 3 runs a side: B's ops/s marked significant ($c)" "${c##*|}" "*"
else
	want=$(python3 -c 'import json, sys
m = [sum(json.load(open(f))["result"]["events"] / json.load(open(f))["result"]["elapsed_s"] for f in s) / 3 for s in (sys.argv[1:4], sys.argv[4:7])]
print("%.1f" % (100 * (m[1] / m[0] - 1)))' "${R2K[@]}" "${R4K[@]}")
	check "diff of 3 runs a side (a run fell short of its rate): B's ops/s is the runs' difference, $want% ($c)" \
		awk -v d="${d//[%+]/}" -v w="$want" 'BEGIN { x = d - w; exit !(x >= -0.15 && x <= 0.15) }'
fi
check "diff of 3 runs a side: the footer names the correction" grep -q "Holm–Bonferroni" "$TMP/out"

# --threshold on the CI: the faster runs as B never fire; the slower as B fire on each
# throughput column, one line each, by the CI's bound.
TP=(--metrics=ops,mib,reads --threshold=5)
expect_exit 0 "diff 2000/s -- 4000/s ${TP[*]}: exit 0" "$SBIO" diff "${R2K[@]}" -- "${R4K[@]}" "${TP[@]}"
eq "diff 2000/s -- 4000/s --threshold=5: nothing on stderr" "$(cat "$TMP/err")" ""
expect_exit 1 "diff 4000/s -- 2000/s ${TP[*]}: exit 1" "$SBIO" diff "${R4K[@]}" -- "${R2K[@]}" "${TP[@]}"
eq "diff 4000/s -- 2000/s --threshold=5: one stderr line per throughput column (ops, mib, reads)" \
	"$(wc -l <"$TMP/err")" 3
for m in "ops/s" "MiB/s" "reads/s"; do
	check "diff 4000/s -- 2000/s --threshold=5: $m fired on its whole CI below -5%" \
		grep -qE "^sbio: diff: $m: -[0-9.]+% \[-[0-9.]+%, -[0-9.]+%\] in B against A: the whole 95% CI below -5%" "$TMP/err"
done
c=$(cells "B \(3 runs\)")
d=${c%%|*}
near "diff 4000/s -- 2000/s: B's ops/s about -50% ($c)" "${d//[%-]/}" 50 10
# One run a side has no CI: the point difference, and the line says so.
expect_exit 1 "diff one run a side (4000/s -- 2000/s) --metrics=ops --threshold=5: exit 1" \
	"$SBIO" diff "${R4K[0]}" -- "${R2K[0]}" --metrics=ops --threshold=5
check "diff one run a side: the line says it is the point difference, without a CI" \
	grep -q "ops/s: -[0-9.]*% in B against A: no CI (1 run on a side), the point difference below -5%" "$TMP/err"
noise_line "diff one run a side, the table"

# --- a noisy B far below A: 3 runs at 100, 1000 and 30/s against 3 at 4000/s. The difference's
# CI stays above -100% (an interval on the ratio's own scale reached about -124% here), and
# B's rates are listed as a setting B's runs disagree on. ---
NOISY=()
for r in 100 1000 30; do
	"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --time=1 --rate=$r -o "$TMP/noisy$r.json" \
		>/dev/null 2>"$TMP/err" || notok "run at --rate=$r: $(head -c 300 "$TMP/err")"
	NOISY+=("$TMP/noisy$r.json")
done
expect_exit 0 "diff 3 runs at 4000/s -- 100, 1000, 30/s --metrics=ops -o noisy.json: exit 0" \
	"$SBIO" diff "${R4K[@]}" -- "${NOISY[@]}" --metrics=ops -o "$TMP/noisy.json"
c=$(cells "B \(3 runs\)")
lo=$(echo "$c" | cut -d'|' -f2 | cut -d, -f1 | tr -d '%+ ')
check "diff noisy B: the table's CI of ops/s starts above -100% ($c)" \
	awk -v lo="$lo" 'BEGIN { exit !(lo != "" && lo > -100) }'
json_expect "diff noisy B -o: diff_ci95_pct's low end above -100%, the difference inside it" "$TMP/noisy.json" '
c = d["comparisons"][0]["sides"][1]["phases"][0]["jobs"][0]["metrics"]["ops"]
lo, hi = c["diff_ci95_pct"]
if not (-100 < lo <= c["diff_pct"] <= hi): print(lo, c["diff_pct"], hi)'
eq "diff noisy B: rate_ops_per_s listed, with each of B's values" "$(setting rate_ops_per_s)" "4000|100|1000|30"

# -o: the table's figures.
expect_exit 1 "diff 4000/s -- 2000/s -o d.json: exit 1 (--threshold)" \
	"$SBIO" diff "${R4K[@]}" -- "${R2K[@]}" "${TP[@]}" -o "$TMP/d.json"
eq "-o d.json: schema, kind, threshold" "$(json_get "$TMP/d.json" schema kind threshold_pct | paste -sd ' ')" \
	"sbio-diff/1 runs 5"
eq "-o d.json: A's and B's runs (3 each)" \
	"$(json_get "$TMP/d.json" comparisons.0.sides.0.phases.0.jobs.0.metrics.ops.n comparisons.0.sides.1.phases.0.jobs.0.metrics.ops.n | paste -sd ' ')" "3 3"
d=$(json_get "$TMP/d.json" comparisons.0.sides.1.phases.0.jobs.0.metrics.ops.diff_pct)
near "-o d.json: B's ops diff_pct about -50% ($d)" "${d#-}" 50 10
eq "-o d.json: three cells fired" "$(json_get "$TMP/d.json" 'comparisons.0.threshold_fired.#')" 3
eq "-o d.json: the first fired is ops" "$(json_get "$TMP/d.json" comparisons.0.threshold_fired.0.metric)" ops

# --- two compares, setting by setting from their runs ---
CMP=("$SBIO" compare "${SET[@]}" --file-test-mode=rndrd --time=1 --repeat=2)
expect_exit 0 "compare --vary rate=2000,4000 -o c1.json" "${CMP[@]}" --vary rate=2000,4000 -o "$TMP/c1.json"
expect_exit 0 "compare --vary rate=4000,3000 -o c2.json" "${CMP[@]}" --vary rate=4000,3000 -o "$TMP/c2.json"
expect_exit 0 "diff c1.json c2.json --threshold=5: exit 0 (rate=4000 is the same)" \
	"$SBIO" diff "$TMP/c1.json" "$TMP/c2.json" --threshold=5
eq "diff of two compares: nothing on stderr" "$(cat "$TMP/err")" ""
check "diff of two compares: a table for rate=4000" grep -q "^Setting rate=4000$" "$TMP/out"
check "diff of two compares: rate=2000 only in A" grep -q "^setting rate=2000: only in A, not compared$" "$TMP/out"
check "diff of two compares: rate=3000 only in B" grep -q "^setting rate=3000: only in B, not compared$" "$TMP/out"
c=$(cells "B \(2 runs\)")
d=${c%%|*}
r=$(rates 4000 "$TMP/c1.json" "$TMP/c2.json")
if [ "$r" = yes ]; then
	check "diff of two compares: rate=4000's ops/s within 2% ($c)" \
		awk -v d="${d//[%+]/}" 'BEGIN { exit !(d >= -2 && d <= 2) }'
	# Its CI: it holds the difference, and a mark (significant, after Holm's correction) only
	# where it leaves out 0. (How wide it is depends on how closely each run kept its rate, 0.5% on a busy
	# machine, times t(0.975) of 1 to 2 degrees of freedom: no fixed bound holds.)
	ci=${c#*|}
	ci=${ci%|*}
	check "diff of two compares: rate=4000's ops/s CI holds the difference, marked only where it leaves out 0 ($c)" \
		awk -v d="${d//[%+]/}" -v ci="${ci//[%+ ]/}" -v m="${c##*|}" 'BEGIN { split(ci, b, ",")
			sig = b[1] > 0 || b[2] < 0
			exit !(b[1] <= d && d <= b[2] && (m != "*" || sig)) }'
else
	# A run fell short of its rate: the same setting is not the same figure, and the diff can
	# only be checked against the runs' own.
	read -r _ m1 m2 <<<"$r"
	want=$(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.1f", 100 * (b / a - 1) }')
	check "diff of two compares (a run fell short of its rate): rate=4000's ops/s is the runs' difference, $want% ($c)" \
		awk -v d="${d//[%+]/}" -v w="$want" 'BEGIN { x = d - w; exit !(x >= -0.15 && x <= 0.15) }'
fi
expect_exit 2 "diff of a compare and a run: exit 2" "$SBIO" diff "$TMP/c1.json" "${R2K[0]}"
stderr_one_line "diff of a compare and a run: one line"
eq "diff of a compare and a run: nothing on stdout" "$(cat "$TMP/out")" ""

# --- a script's two jobs: a block each, with each job's own ops/s ---
W=$(cd "$(dirname "$0")/../.." && pwd)/workloads/readers-vs-writer.lua
SD=$MNT/script
mkdir -p "$SD"
SC=(--script "$W" --dir="$SD" --size=8M --direct=off --readers=1)
expect_exit 0 "prepare --script readers-vs-writer" "$SBIO" prepare "${SC[@]}"
for i in 1 2; do
	expect_exit 0 "readers-vs-writer run $i -o s$i.json" "$SBIO" run "${SC[@]}" --time=1 -o "$TMP/s$i.json"
done
expect_exit 0 "diff s1.json -- s2.json --metrics=ops: exit 0" "$SBIO" diff "$TMP/s1.json" -- "$TMP/s2.json" --metrics=ops
for b in "Job readers" "Job writer" "All jobs together"; do
	check "diff of a script's results: a block '$b'" grep -qx "$b" "$TMP/out"
done
# block_ops BLOCK ROW: the ops/s mean of ROW in BLOCK.
block_ops() { awk -v b="$1" -v r="$2" '$0 == b { f = 1 } f && index($0, r) == 1 { print $5; exit }' "$TMP/out"; }
for j in 0 1; do
	name=$(json_get "$TMP/s1.json" "phases.0.jobs.$j.name")
	for s in 1 2; do
		want=$(json_get "$TMP/s$s.json" "phases.0.jobs.$j.result.result.ops" \
			"phases.0.jobs.$j.result.result.elapsed_s" | paste -sd ' ' |
			awk '$1 ~ /^[0-9]+$/ && $2 > 0 { printf "%.0f", $1 / $2 }')
		row=$([ $s = 1 ] && echo "A (1 run)" || echo "B (1 run)")
		got=$(block_ops "Job $name" "$row")
		if [[ $want =~ ^[0-9]+$ && $got =~ ^[0-9]+$ ]]; then
			near "diff of a script's results: job $name's ops/s in $row ($got) are its result's" \
				"$got" "$want" 0.1
		else
			notok "diff of a script's results: job $name's ops/s in $row: table '$got', result '$want'"
		fi
	done
done
expect_exit 2 "diff of a script's result and a run's: exit 2" "$SBIO" diff "$TMP/s1.json" -- "${R2K[0]}"
stderr_one_line "diff of a script's result and a run's: one line"
check "diff of a script's result and a run's: names the run's file and what differs" \
	grep -q "${R2K[0]}: a run's result, but $TMP/s1.json is a script's" "$TMP/err"
eq "diff of a script's result and a run's: nothing on stdout" "$(cat "$TMP/out")" ""

# --- bad command lines ---
bad() {
	local what=$1
	shift
	expect_exit 2 "diff $*: exit 2" "$SBIO" diff "$@"
	stderr_one_line "diff $*: one line"
	check "diff $*: says '$what'" grep -qF "$what" "$TMP/err"
	eq "diff $*: nothing on stdout" "$(cat "$TMP/out")" ""
}
bad "not 3 files without '--'" "${R2K[@]}"
bad "no file after '--'" "${R2K[@]}" --
bad "no file before '--'" -- "${R2K[@]}"
bad "report.txt: not JSON" "${R2K[@]}" -- "${R4K[0]}" "$TMP/report.txt"

# --- two surveys ---
# Made by hand (a survey takes a loop device and minutes; diff reads the matrix alone): A and
# B of the same device, B's mq-deadline throughput halved and its none latency the same; B has a
# scheduler and a row A lacks.
python3 - "$TMP" <<'PY'
import json, sys
t = sys.argv[1]
def cell(s, v): return {'scheduler': s, 'values': v}
def survey(sched, rows, time='2'):
    return {'schema': 'sbio-survey/1', 'device': 'loop7', 'budget_s': 600, 'took_s': 500,
            'environment': {'hostname': 'box', 'kernel': '6.1'},
            'workloads': [{'name': 'seq', 'script': '-', 'seconds': 2, 'options': ['--time=' + time]},
                          {'name': 'mix', 'script': 'readers-vs-writer', 'seconds': 2, 'options': []}],
            'matrix': {'schedulers': sched, 'rows': rows}}
seq_a = {'workload': 'seq', 'job': None, 'metric': 'read.mib', 'better': 'higher',
         'cells': [cell('none', [100, 102, 98, 101, 99]), cell('mq-deadline', [80, 81, 79, 80, 80.5])]}
lat_a = {'workload': 'mix', 'job': 'readers', 'metric': 'read.p99', 'better': 'lower',
         'cells': [cell('none', [2e6, 2.1e6, 1.9e6]), cell('mq-deadline', [3e6, 3.1e6, 2.9e6])]}
json.dump(survey(['none', 'mq-deadline'], [seq_a, lat_a]), open(t + '/sva.json', 'w'))
seq_b = {'workload': 'seq', 'job': None, 'metric': 'read.mib', 'better': 'higher',
         'cells': [cell('kyber', [90, 91]), cell('mq-deadline', [40, 40.5, 39.5, 40, 40.2]),
                   cell('none', [100.5, 99.5, 100, 101, 99])]}
lat_b = dict(lat_a, cells=[cell('kyber', [1e6, 1.1e6]), cell('mq-deadline', [3.05e6, 2.95e6, 3e6]),
                           cell('none', [2.05e6, 1.95e6, 2e6])])
new_b = dict(seq_b, workload='rand')
json.dump(survey(['kyber', 'mq-deadline', 'none'], [seq_b, lat_b, new_b], '3'), open(t + '/svb.json', 'w'))
# Broken: a value that is not a number; a compare's document beside a survey.
bad = survey(['none', 'mq-deadline'], [dict(seq_a, cells=[cell('none', [1, 'x']), cell('mq-deadline', [1])])])
json.dump(bad, open(t + '/svbad.json', 'w'))
PY
expect_exit 0 "diff of two surveys" "$SBIO" diff "$TMP/sva.json" "$TMP/svb.json" -o "$TMP/svd.json"
check "diff of two surveys: the workload option that differs is named first" \
	grep -qE '^seq --time +2 +3$' "$TMP/out"
check "diff of two surveys: the halved cell, its CI, significant" \
	grep -qE -A1 '^    [^ ].*80\.1 -> 40\.0' "$TMP/out"
check "diff of two surveys: below it -50% [CI]*" grep -qE '^    .*-50% \[-[0-9]+,-[0-9]+\]\*' "$TMP/out"
check "diff of two surveys: listed as significant and worse" \
	grep -qF -- "- seq, read MiB/s, mq-deadline: -50% [" "$TMP/out"
eq "diff of two surveys: the one significant change" "$(grep -c '^- ' "$TMP/out")" 1
check "diff of two surveys: the row only in B is named" grep -qF "row rand, read MiB/s: only in B, not compared" "$TMP/out"
check "diff of two surveys: the scheduler only in B is named" grep -qF "scheduler kyber: only in B, not compared" "$TMP/out"
eq "diff of two surveys: every line within 72 columns" \
	"$(awk '{ if (length($0) > 72) n++ } END { print n + 0 }' "$TMP/out")" 0
json_expect "diff of two surveys: -o has its kind, rows and cells" "$TMP/svd.json" \
	"r = d['surveys']['rows']
if not (d['schema'] == 'sbio-diff/1' and d['kind'] == 'surveys' and len(r) == 2 and \
	[c['scheduler'] for c in r[0]['cells']] == ['none', 'mq-deadline'] and \
	r[0]['cells'][1]['significant'] and r[0]['cells'][1]['worse'] and \
	abs(r[0]['cells'][1]['change_pct'] - (40.04 / 80.1 - 1) * 100) < 1e-6 and \
	d['not_compared']['schedulers_only_in_b'] == ['kyber']): print(json.dumps(d)[:300])"
expect_exit 1 "diff of two surveys, --threshold=30: B's halved cell fires" "$SBIO" diff "$TMP/sva.json" "$TMP/svb.json" --threshold=30
check "diff of two surveys, --threshold=30: one line names the cell" \
	grep -qF "diff: seq, read MiB/s, mq-deadline: -50.0% in B against A: the whole 95% CI below -30%" "$TMP/err"
expect_exit 0 "diff of two surveys, --threshold=70: nothing fires" "$SBIO" diff "$TMP/sva.json" "$TMP/svb.json" --threshold=70
expect_exit 0 "diff of a survey with itself" "$SBIO" diff "$TMP/sva.json" "$TMP/sva.json"
check "diff of a survey with itself: no significant change" grep -qx -- "- none" "$TMP/out"
bad "svbad.json: matrix.rows[0].cells[0].values[1] is not a figure sbio measures" "$TMP/sva.json" "$TMP/svbad.json"
bad "is a survey result but" "$TMP/sva.json" "${R2K[0]}"
