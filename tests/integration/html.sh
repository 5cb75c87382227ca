#!/bin/bash
# sbio plot R.json -o report.html: the report of a real run, a real compare and a survey (its
# document made by hand: a survey takes a loop device and minutes, and the report reads its
# matrix and workloads):
# - each report is well-formed XML (an XML parser reads it whole), self-contained (no address
#   of any resource, a Content-Security-Policy that allows none) and opens in headless Chromium
#   without a console message (an error, a blocked resource, a violated policy), its DOM
#   holding the tables and SVG charts sbio wrote;
# - its figures are the documents': the run's ops/s per op type, the survey's cells computed
#   again from their values (mean ± the 95% CI's half-width, the difference to the best);
# - a survey whose names hold markup shows the markup as text: no element of its making;
# - --output-format=html writes a report under any name; html, png and svg are plot's only.
source "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	skip "chromium is not installed (make test-deps installs it)"
	exit 0
fi

# browse NAME: Chromium loads $TMP/NAME.html headless; its DOM in $TMP/NAME.dom, its log in
# $TMP/NAME.log (console messages are lines with CONSOLE).
browse() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/chrome" --enable-logging=stderr --v=0 \
		--dump-dom "file://$TMP/$1.html" >"$TMP/$1.dom" 2>"$TMP/$1.log"
}

# report_checks NAME SVGS TABLES: well-formed, self-contained, opens without a console message,
# SVGS charts and TABLES tables both in the file and in the browser's DOM.
report_checks() {
	local name=$1 svgs=$2 tables=$3 f=$TMP/$1.html
	check "$name: well-formed XML" python3 -c '
import sys, xml.etree.ElementTree as ET
ET.fromstring(open(sys.argv[1], encoding="utf-8").read().replace("<!DOCTYPE html>", "", 1))' "$f"
	check "$name: a Content-Security-Policy that allows no resource" \
		grep -qF "content=\"default-src 'none'; style-src 'unsafe-inline'\"" "$f"
	# (SVG's namespace is a name, not an address: it is left out.)
	check "$name: no address of anything outside the file" \
		sh -c "! sed 's|xmlns=\"http://www.w3.org/2000/svg\"||g' '$f' | grep -qiE '(src|href)=\"|url\\(|[a-z]+://'"
	eq "$name: SVG charts in the file" "$(grep -o '<svg ' "$f" | wc -l)" "$svgs"
	eq "$name: tables in the file" "$(grep -o '<table' "$f" | wc -l)" "$tables"
	browse "$name"
	check "$name: Chromium opened it (exit 0)" test -s "$TMP/$name.dom"
	eq "$name: no console message in Chromium" "$(grep -c CONSOLE "$TMP/$name.log")" 0
	eq "$name: SVG charts in Chromium's DOM" "$(grep -o '<svg ' "$TMP/$name.dom" | wc -l)" "$svgs"
	eq "$name: tables in Chromium's DOM" "$(grep -o '<table' "$TMP/$name.dom" | wc -l)" "$tables"
}

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=2 --file-total-size=8M)
expect_exit 0 "prepare" "$SBIO" prepare "${SET[@]}"
expect_exit 0 "run rndrw with a time series" "$SBIO" run "${SET[@]}" --file-test-mode=rndrw \
	--time=1 --log-interval=200 -o "$TMP/run.json"
expect_exit 0 "compare 2 block sizes" "$SBIO" compare "${SET[@]}" --file-test-mode=rndrd \
	--vary file-block-size=4K,16K --repeat=2 --time=1 --drop-caches=off \
	--metrics=ops,read.p99 -o "$TMP/cmp.json"

# --- a run ---
expect_exit 0 "plot run.json -o run.html" "$SBIO" plot "$TMP/run.json" -o "$TMP/run.html"
# One chart (throughput over time); tables: the run, its op types, the settings, the machine.
report_checks run 1 4
for op in read write; do
	want=$(json_get "$TMP/run.json" "result.op_types.$op.ops_per_s" | awk '{ printf "%.0f", $1 }')
	check "run: $op's ops/s in its row ($want) are the result's" \
		grep -qE "<tr><td>$op</td><td class=\"n\">[0-9]+</td><td class=\"n\">$want</td>" "$TMP/run.html"
done

# --- a compare ---
expect_exit 0 "plot cmp.json -o cmp.html" "$SBIO" plot "$TMP/cmp.json" -o "$TMP/cmp.html"
# A chart per metric; tables: the compare, its job, the settings read back, the machine.
report_checks cmp 2 4
check "cmp: both settings named" grep -qF "file-block-size=16K" "$TMP/cmp.dom"
check "cmp: the scheduler each run read back" grep -qE "<td>scheduler</td>" "$TMP/cmp.html"

# --- a survey ---
python3 - "$TMP" <<'PY'
import json, sys
t = sys.argv[1]
def cell(s, v): return {'scheduler': s, 'values': v}
def survey(workload, device):
    return {'schema': 'sbio-survey/1', 'device': device, 'budget_s': 600, 'least_s': 90,
            'took_s': 500, 'battery': 'survey.battery', 'interrupted': False,
            'environment': {'hostname': 'box', 'kernel': '6.1', 'cpus': 2},
            'workloads': [{'name': workload, 'script': '-', 'seconds': 2, 'options': ['--time=2'],
                           'share_s': 300, 'took_s': 250, 'status': 'ok', 'compare': None}],
            'matrix': {'schedulers': ['none', 'mq-deadline'], 'rows': [
                {'workload': workload, 'job': None, 'metric': 'read.mib', 'better': 'higher',
                 'cells': [cell('none', [100, 102, 98, 101, 99]),
                           cell('mq-deadline', [80, 81, 79, 80, 80.5])]},
                {'workload': workload, 'job': 'readers', 'metric': 'read.p99', 'better': 'lower',
                 'cells': [cell('none', [2e6, 2.1e6, 1.9e6]), cell('mq-deadline', [2.05e6, 1.95e6, 2.06e6])]}]}}
json.dump(survey('seq', 'loop7'), open(t + '/sv.json', 'w'))
json.dump(survey('<img src=x onerror=alert(1)>', '</h1><script>alert(2)</script>'), open(t + '/evil.json', 'w'))
PY
expect_exit 0 "plot sv.json -o sv.html" "$SBIO" plot "$TMP/sv.json" -o "$TMP/sv.html"
# A chart per row; tables: the plan, the matrix, the workloads, the machine.
report_checks sv 2 4
# none: mean 100, sd 1.581, t(0.975, 4) = 2.776: ± 1.96; mq-deadline 80.1, -20% of the best.
check "sv: none's cell is its values' mean ± the CI's half-width, the best" \
	grep -qF '<td class="n best">100 ± 1.96<br/>best' "$TMP/sv.html"
check "sv: mq-deadline's cell: 80.1, -20% [CI] * (significant)" \
	grep -qE '<td class="n sig">80.1 ± 0.[0-9]+<br/>-20% \[-[0-9]+, -[0-9]+\] \*' "$TMP/sv.html"
check "sv: the verdict names the best" grep -qF "seq, read MiB/s: none best" "$TMP/sv.dom"

expect_exit 0 "plot evil.json (names holding markup)" "$SBIO" plot "$TMP/evil.json" -o "$TMP/evil.html"
browse evil
eq "evil: no script or img element in Chromium's DOM" \
	"$(grep -ciE '<(script|img)[ >]' "$TMP/evil.dom")" 0
check "evil: the names shown as text" grep -qF '&lt;img src=x onerror=alert(1)&gt;' "$TMP/evil.dom"
eq "evil: no console message" "$(grep -c CONSOLE "$TMP/evil.log")" 0

# --- the format by name or by option ---
expect_exit 0 "--output-format=html under any name" "$SBIO" plot "$TMP/sv.json" -o "$TMP/report.out" --output-format=html
check "--output-format=html: a report" grep -q '^<!DOCTYPE html>' "$TMP/report.out"
expect_exit 2 "plot -o x.txt: refused" "$SBIO" plot "$TMP/sv.json" -o "$TMP/x.txt"
stderr_one_line "plot -o x.txt: one line"
check "plot -o x.txt: the message says what is accepted" grep -qF ".png, .svg or .html" "$TMP/err"
expect_exit 2 "plot --output-format=csv: refused" "$SBIO" plot "$TMP/sv.json" -o "$TMP/x.html" --output-format=csv
check "plot --output-format=csv: says plot writes png, svg or html" grep -qF "plot writes png, svg or html" "$TMP/err"
expect_exit 2 "run --output-format=html: refused" "$SBIO" run "${SET[@]}" --file-test-mode=rndrd --time=1 --output-format=html
check "run --output-format=html: says it is plot's" grep -qF "is plot's" "$TMP/err"
check "nothing written by the refusals" test ! -e "$TMP/x.txt" -a ! -e "$TMP/x.html"
expect_exit 0 "cleanup" "$SBIO" cleanup "${SET[@]}"
