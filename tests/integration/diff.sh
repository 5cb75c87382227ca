#!/bin/bash
# sbio diff with the real binary on real run results: a result diffed
# with itself is 0.0% on every row and passes --threshold=1; a faster and a slower run
# (rndrd at --rate=2000 and --rate=1000) show the expected signs and marks, and
# --threshold=5 fails (exit 1, the rows named on stderr) only when the slower one is B;
# bad input is exit 2 with one line and nothing on stdout. A small set (4 x 2 MiB) under
# $TMP only; about 4 s.
source "$(dirname "$0")/lib.sh"

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=4 --file-total-size=8M)

# rows: the table's metric rows of the last command (after the "metric" heading).
rows() { awk 'f { print } /^metric /{ f = 1 }' "$TMP/out"; }
# row NAME: the row of metric NAME (the name is followed by two spaces).
row() { rows | grep -E "^$1  " | head -n 1; }
# delta_of NAME: its Δ% column; mark_of NAME: its mark (or nothing).
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

# --- faster A, slower B: throughput -50% worse; exit 1 over --threshold=5 ---
expect_exit 1 "diff fast slow --threshold=5: exit 1" "$SBIO" diff "$TMP/fast.json" \
	"$TMP/slow.json" --threshold=5
for m in "ops/s" "read ops/s" "read MiB/s"; do
	d=$(delta_of "$m")
	near "diff fast slow: $m about -50% ($d)" "${d//[%+-]/}" 50 10
	eq "diff fast slow: $m is negative" "${d:0:1}" "-"
	eq "diff fast slow: $m marked worse" "$(mark_of "$m")" worse
done
check "diff fast slow: the write rows are absent (neither run wrote)" \
	test -z "$(row 'write ops/s')"
check "diff fast slow: stderr names ops/s" grep -q '^sbio: diff: ops/s: .* below A' "$TMP/err"
check "diff fast slow: stderr names read MiB/s" grep -q '^sbio: diff: read MiB/s: ' "$TMP/err"
eq "diff fast slow: one stderr line per failing row (ops/s, read ops/s, read MiB/s)" \
	"$(wc -l <"$TMP/err")" 3
expect_exit 0 "diff fast slow without --threshold: exit 0" "$SBIO" diff "$TMP/fast.json" \
	"$TMP/slow.json"
eq "diff fast slow without --threshold: nothing on stderr" "$(cat "$TMP/err")" ""

# --- slower A, faster B: +100% better; exit 0 ---
expect_exit 0 "diff slow fast --threshold=5: exit 0" "$SBIO" diff "$TMP/slow.json" \
	"$TMP/fast.json" --threshold=5
for m in "ops/s" "read ops/s" "read MiB/s"; do
	d=$(delta_of "$m")
	near "diff slow fast: $m about +100% ($d)" "${d//[%+-]/}" 100 10
	eq "diff slow fast: $m is positive" "${d:0:1}" "+"
	eq "diff slow fast: $m marked better" "$(mark_of "$m")" better
done
eq "diff slow fast: nothing on stderr" "$(cat "$TMP/err")" ""

# --- bad input ---
echo "total ops/s: 1234" >"$TMP/report.txt"
expect_exit 2 "diff of a text report: exit 2" "$SBIO" diff "$TMP/a.json" "$TMP/report.txt"
stderr_one_line "diff of a text report: one line on stderr"
check "diff of a text report: names the file" grep -q "report.txt: not JSON" "$TMP/err"
eq "diff of a text report: nothing on stdout" "$(cat "$TMP/out")" ""
expect_exit 2 "diff of a missing file: exit 2" "$SBIO" diff "$TMP/nothere.json" "$TMP/a.json"
stderr_one_line "diff of a missing file: one line on stderr"
eq "diff of a missing file: nothing on stdout" "$(cat "$TMP/out")" ""
