#!/bin/bash
# sbio plot: charts of real results from real runs.
# The data files kept with --keep-data hold the JSON's values; the PNGs have the asked size
# (from the IHDR chunk) and are not blank; --size and .svg work; bad input is exit 2 with one
# line and writes nothing. Three 2-second runs on a 2 x 8 MiB set under $TMP.
source "$(dirname "$0")/lib.sh"

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=2 --file-total-size=16M)

# --- helpers ---
# col FILE ROW COL: a field of a data file (comment lines skipped; ROW from 1)
col() { awk -v r="$2" -v c="$3" '!/^#/ && ++n == r { print $c }' "$1"; }
# png_size FILE: "W H" from the IHDR chunk (bytes 16..23, big-endian), or "not a PNG"
png_size() {
	if [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" != 89504e470d0a1a0a ]; then
		echo "not a PNG"
		return
	fi
	od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4,
		$5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}
# Not blank, without decoding: a blank gnuplot canvas compresses to ~5 KB at 1200x800 (~3 KB
# at 800x600) and empty axes with titles to ~10 KB (~8 KB); these charts, whose lines, bars
# and value labels carry the data, come out at 28-75 KB. 16 KB sits between the two.
MIN_PNG_BYTES=16000
# png_colours FILE RRGGBB…: decodes the PNG (python3, zlib) and prints how many distinct
# colours it has, then those of RRGGBB… it contains. The op types' colours (read #1f77b4,
# write #ff7f0e, fsync #2ca02c) appear only where a data line or bar was drawn.
png_colours() {
	python3 - "$@" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
pos, idat = 8, b''
while pos < len(d):
    n, t = struct.unpack('>I4s', d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if t == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif t == b'IDAT':
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, i = bytearray(stride), set(), 0
for y in range(h):
    f, row = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    if f == 2:
        row = bytearray((u + v) & 255 for u, v in zip(row, prev))
    elif f:
        for x in range(stride):
            a = row[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                p = a
            elif f == 3:
                p = (a + b) >> 1
            else:
                q = a + b - c
                pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)
                p = a if pa <= pb and pa <= pc else b if pb <= pc else c
            row[x] = (row[x] + p) & 255
    colours.update(bytes(row[j:j + 3]).hex() for j in range(0, stride, bpp))
    prev = row
print(len(colours), ' '.join(c for c in sys.argv[2:] if c in colours))
EOF
}
# not_blank DESC FILE
not_blank() {
	local n
	n=$(stat -c %s "$2" 2>/dev/null || echo 0)
	if [ "$n" -gt "$MIN_PNG_BYTES" ]; then ok "$1: $n bytes > $MIN_PNG_BYTES"; else notok "$1: $n bytes, want > $MIN_PNG_BYTES"; fi
}
OPS_COLOURS=(1f77b4 ff7f0e 2ca02c)
# contains DESC PATTERN FILE: FILE has a line with the fixed string PATTERN.
contains() {
	if grep -qF -- "$2" "$3"; then ok "$1"; else notok "$1 ($3: $(head -c 300 "$3" | tr '\n' '|'))"; fi
}

if ! command -v gnuplot >/dev/null; then
	skip "gnuplot is not installed (make deps installs gnuplot-nox); only the missing-gnuplot message is checked"
	# The smallest document sbio accepts, so the failure is the missing gnuplot.
	echo '{"schema": "sbio-result/1", "result": {"op_types": {}}}' >"$TMP/min.json"
	expect_exit 2 "gnuplot missing: exit 2" "$SBIO" plot "$TMP/min.json" -o "$TMP/x.png"
	contains "gnuplot missing: the message names the package" 'install the Debian package gnuplot-nox' "$TMP/err"
	exit 0
fi

# --- real results: rndrw with a 200 ms time series, seqrd with 1 s intervals, rndrd without ---
expect_exit 0 "prepare 2 x 8 MiB" "$SBIO" prepare "${SET[@]}"
expect_exit 0 "run rndrw, 2 threads, --log-interval=200" "$SBIO" run "${SET[@]}" \
	--file-test-mode=rndrw --threads=2 --time=2 --log-interval=200 -o "$TMP/rw.json"
expect_exit 0 "run seqrd, 1 thread, --report-interval=1" "$SBIO" run "${SET[@]}" \
	--file-test-mode=seqrd --threads=1 --time=2 --report-interval=1 -o "$TMP/seq.json"
expect_exit 0 "run rndrd, 2 threads, no time series" "$SBIO" run "${SET[@]}" \
	--file-test-mode=rndrd --threads=2 --time=2 -o "$TMP/nots.json"
eq "the result's schema" "$(json_get "$TMP/rw.json" schema)" sbio-result/1

# --- one result: throughput over time and latency percentiles ---
mkdir -p "$TMP/tmpdir"
TMPDIR=$TMP/tmpdir expect_exit 0 "plot one result" "$SBIO" plot "$TMP/rw.json" -o "$TMP/one.png"
eq "plot one result: nothing on stderr" "$(cat "$TMP/err")" ""
eq "plot one result: the private data folder is removed" "$(ls -A "$TMP/tmpdir")" ""
eq "one.png is 1200x800 by default" "$(png_size "$TMP/one.png")" "1200 800"
not_blank "one.png is not blank" "$TMP/one.png"

K=$TMP/keep/one # two levels: --keep-data creates what is missing
expect_exit 0 "plot one result --keep-data" "$SBIO" plot "$TMP/rw.json" -o "$TMP/one-k.png" --keep-data "$K"
eq "--keep-data keeps the script and the data files" "$(cd "$K" && printf '%s ' *)" \
	"percentiles.dat plot.gp throughput.dat "
nsamples=$(json_get "$TMP/rw.json" 'result.samples.#')
if [ "$nsamples" -ge 5 ]; then ok "rndrw recorded $nsamples samples"; else notok "rndrw recorded $nsamples samples, want >= 5 (2 s at 200 ms)"; fi
eq "throughput.dat has one row per sample" "$(grep -vc '^#' "$K/throughput.dat")" "$nsamples"
for s in 0 $((nsamples - 1)); do
	near "throughput.dat row $((s + 1)) t_s = samples[$s].t_s" "$(col "$K/throughput.dat" $((s + 1)) 1)" \
		"$(json_get "$TMP/rw.json" "result.samples.$s.t_s")" 0.0001
	c=2
	for op in read write fsync; do
		near "throughput.dat row $((s + 1)) $op ops/s = samples[$s].$op.ops_per_s" \
			"$(col "$K/throughput.dat" $((s + 1)) $c)" \
			"$(json_get "$TMP/rw.json" "result.samples.$s.$op.ops_per_s")" 0.0001
		c=$((c + 1))
	done
done
row=1
for p in 50 90 99 99.9; do
	eq "percentiles.dat row $row is p$p" "$(col "$K/percentiles.dat" $row 1)" "p$p"
	c=2
	for op in read write fsync; do
		eq "percentiles.dat p$p $op = op_types.$op.latency.percentiles_ns.$p" \
			"$(col "$K/percentiles.dat" $row $c)" \
			"$(json_get "$TMP/rw.json" "result.op_types.$op.latency.percentiles_ns.$p")"
		c=$((c + 1))
	done
	row=$((row + 1))
done
check "the kept script redraws the chart: cd DIR && gnuplot plot.gp" \
	sh -c "cd '$K' && rm -f '$TMP/one-k.png' && gnuplot plot.gp 2>/dev/null && test -s '$TMP/one-k.png'"

if command -v python3 >/dev/null; then
	read -r ncol found < <(png_colours "$TMP/one.png" "${OPS_COLOURS[@]}")
	eq "one.png has a line in each op type's colour ($ncol colours)" "$found" "${OPS_COLOURS[*]}"
else
	skip "python3 missing: the PNG's colours are not decoded (its size was checked)"
fi

# --- --size and .svg ---
expect_exit 0 "plot --size 800x600" "$SBIO" plot "$TMP/seq.json" -o "$TMP/small.png" --size 800x600
eq "small.png is 800x600" "$(png_size "$TMP/small.png")" "800 600"
not_blank "small.png is not blank" "$TMP/small.png"
expect_exit 0 "plot to .svg" "$SBIO" plot "$TMP/rw.json" -o "$TMP/one.svg"
eq "one.svg is SVG" "$(head -c 5 "$TMP/one.svg")$(grep -c '<svg' "$TMP/one.svg")" "<?xml1"
eq "one.svg is 1200x800" "$(grep -o 'viewBox="[^"]*"' "$TMP/one.svg")" 'viewBox="0 0 1200 800"'
check "one.svg draws the read line (a path in its colour)" grep -qE "<path stroke=['\"]rgb\( 31, 119, 180\)['\"] +d=" "$TMP/one.svg"

# --- value labels that do not collide: read, write and fsync alike at every percentile; in
# the SVG gnuplot drew, no two value labels' boxes (from their anchor and length at the
# 12-pixel font) overlap ---
python3 - "$TMP/rw.json" "$TMP/alike.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ops = d['result']['op_types']
for op in ('write', 'fsync'):
    ops[op]['latency'] = json.loads(json.dumps(ops['read']['latency']))
    ops[op]['ops'] = ops['read']['ops']
json.dump(d, open(sys.argv[2], 'w'))
PY
expect_exit 0 "plot a result whose op types have the same latencies, to .svg" "$SBIO" plot "$TMP/alike.json" -o "$TMP/alike.svg"
overlaps=$(python3 - "$TMP/alike.svg" <<'PY'
import re, sys
svg = open(sys.argv[1], encoding='utf-8').read()
boxes = []
for m in re.finditer(r'<g transform="translate\(([\d.]+),([\d.]+)\)"[^>]*text-anchor="(\w+)"[^>]*>\s*<text>([^<]*)</text>', svg):
    x, y, anchor, text = float(m[1]), float(m[2]), m[3], m[4]
    if not re.fullmatch(r'[\d.]+ (ns|µs|ms|s)', text):
        continue
    w = 6.0 * len(text)
    x0 = x - w / 2 if anchor == 'middle' else x - w if anchor == 'end' else x
    boxes.append((x0, x0 + w, y - 10, y, text))
bad = [(a[4], b[4]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
       if a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]]
print(len(boxes), len(bad))
PY
)
eq "alike.svg: 12 value labels, none overlapping another" "$overlaps" "12 0"

# --- several results compared by hand: each group named by the device settings that differ
# (results written as sbio writes them, on one device under two schedulers) ---
for s in mq-deadline bfq; do
	python3 - "$TMP/nots.json" "$TMP/by-$s.json" "$s" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
line = ' '.join('[%s]' % n if n == sys.argv[3] else n for n in ('none', 'mq-deadline', 'kyber', 'bfq'))
d['environment']['devices'] = [{'name': 'sdz', 'queue': {'scheduler': line, 'nr_requests': '64'}, 'iosched': {}}]
json.dump(d, open(sys.argv[2], 'w'))
PY
done
K=$TMP/keep/byhand
expect_exit 0 "plot two results under two schedulers" "$SBIO" plot "$TMP/by-mq-deadline.json" \
	"$TMP/by-bfq.json" -o "$TMP/byhand.png" --keep-data "$K"
eq "compare.dat names each run by its scheduler" \
	"$(awk '!/^#/ { printf "%s ", $1 }' "$K/compare.dat")" '"scheduler=mq-deadline" "scheduler=bfq" '

# --- a result without samples still charts, and says why the time panel is empty ---
K=$TMP/keep/nots
expect_exit 0 "plot a result without samples" "$SBIO" plot "$TMP/nots.json" -o "$TMP/nots.png" --keep-data "$K"
contains "no samples: a note on stderr" 'no time series: run with --report-interval or --log-interval' "$TMP/err"
contains "no samples: the chart says so" 'no time series: run with --report-interval or --log-interval' "$K/plot.gp"
check "no samples: no throughput.dat" test ! -e "$K/throughput.dat"
eq "nots.png is 1200x800" "$(png_size "$TMP/nots.png")" "1200 800"
not_blank "nots.png is not blank (the latency panel)" "$TMP/nots.png"

# --- several results: bars of ops/s and p99 per op type, one group per run ---
K=$TMP/keep/cmp
expect_exit 0 "plot three results" "$SBIO" plot "$TMP/rw.json" "$TMP/seq.json" "$TMP/nots.json" \
	-o "$TMP/cmp.png" --keep-data "$K"
eq "plot three results: nothing on stderr" "$(cat "$TMP/err")" ""
eq "cmp.png is 1200x800" "$(png_size "$TMP/cmp.png")" "1200 800"
not_blank "cmp.png is not blank" "$TMP/cmp.png"
eq "compare.dat has one row per run, named after the file" \
	"$(awk '!/^#/ { printf "%s ", $1 }' "$K/compare.dat")" '"rw" "seq" "nots" '
row=1
for r in rw seq nots; do
	# columns: name, then a quoted description of several words: count fields from the end.
	c=-5
	for op in read write fsync; do
		got=$(awk -v r=$row -v c=$c '!/^#/ && ++n == r { print $(NF + c) }' "$K/compare.dat")
		near "compare.dat $r $op ops/s = op_types.$op.ops_per_s" "$got" \
			"$(json_get "$TMP/$r.json" "result.op_types.$op.ops_per_s")" 0.0001
		c=$((c + 1))
	done
	got=$(awk -v r=$row '!/^#/ && ++n == r { print $(NF - 2) }' "$K/compare.dat")
	eq "compare.dat $r read p99 = op_types.read.latency.percentiles_ns.99" "$got" \
		"$(json_get "$TMP/$r.json" "result.op_types.read.latency.percentiles_ns.99")"
	row=$((row + 1))
done
eq "compare.dat: a read-only run has no write p99 (NaN, no bar)" \
	"$(awk '!/^#/ && ++n == 2 { print $(NF - 1) }' "$K/compare.dat")" NaN
eq "compare.dat rw fsync p99 = op_types.fsync.latency.percentiles_ns.99" \
	"$(awk '!/^#/ && ++n == 1 { print $NF }' "$K/compare.dat")" \
	"$(json_get "$TMP/rw.json" "result.op_types.fsync.latency.percentiles_ns.99")"
expect_exit 0 "plot two results --size 800x600" "$SBIO" plot "$TMP/rw.json" "$TMP/seq.json" \
	-o "$TMP/cmp-small.png" --size 800x600
eq "cmp-small.png is 800x600" "$(png_size "$TMP/cmp-small.png")" "800 600"
if command -v python3 >/dev/null; then
	read -r ncol found < <(png_colours "$TMP/cmp-small.png" "${OPS_COLOURS[@]}")
	eq "cmp-small.png has a bar in each op type's colour ($ncol colours)" "$found" "${OPS_COLOURS[*]}"
else
	skip "python3 missing: the PNG's colours are not decoded (its size was checked)"
fi

# --- bad input: exit 2, one line, nothing written ---
echo 'not json {' >"$TMP/bad.json"
echo '{"schema": "fio-result/3", "result": {}}' >"$TMP/other.json"
bad_input() { # DESC ARGS…
	local desc=$1
	shift
	rm -f "$TMP/bad.png"
	if [ "$1" = env ]; then # env PATH=… SBIO ARGS…: the command is given whole
		expect_exit 2 "$desc: exit 2" "$1" "$2" "$3" plot "${@:4}"
	else
		expect_exit 2 "$desc: exit 2" "$SBIO" plot "$@"
	fi
	stderr_one_line "$desc: one line on stderr"
	check "$desc: no chart written" test ! -e "$TMP/bad.png"
}
bad_input "a file that is not JSON" "$TMP/bad.json" -o "$TMP/bad.png"
contains "not JSON: the message names the file" 'bad.json: not JSON' "$TMP/err"
bad_input "a JSON that is not an sbio result" "$TMP/rw.json" "$TMP/other.json" -o "$TMP/bad.png"
contains "not sbio: the message names the file" 'other.json: not an sbio result' "$TMP/err"
bad_input "a missing file" "$TMP/missing.json" -o "$TMP/bad.png"
contains "missing file: the message names it" 'missing.json: No such file' "$TMP/err"
bad_input "missing -o" "$TMP/rw.json"
bad_input "--size 12" "$TMP/rw.json" -o "$TMP/bad.png" --size 12
# env finds itself on the PATH, then runs sbio (an absolute path) with a PATH without gnuplot.
bad_input "gnuplot missing" env PATH=/nonexistent "$SBIO" "$TMP/rw.json" -o "$TMP/bad.png"
contains "gnuplot missing: the message names the package" 'gnuplot not found: install the Debian package gnuplot-nox' "$TMP/err"

# --- a compare result: ops/s per setting with ±stddev bars, the difference
# to the baseline and its significance, and a p99 panel per op type; charted on its own ---
# numeq DESC GOT WANT: the same number to 1e-6 (JSON null is the data files' NaN).
numeq() {
	local w=$3
	[ "$w" = null ] && w=NaN
	if awk -v g="$2" -v w="$w" 'BEGIN {
		if (g == "NaN" || w == "NaN") exit !(g == w)
		d = g - w; if (d < 0) d = -d; m = w < 0 ? -w : w
		exit !(d <= m * 1e-6) }'; then
		ok "$1"
	else
		notok "$1 (got '$2', want '$w')"
	fi
}
expect_exit 0 "compare rndrw over 3 block sizes, 2 repeats" "$SBIO" compare "${SET[@]}" \
	--file-test-mode=rndrw --vary file-block-size=4K,16K,64K --repeat=2 --time=1 \
	--drop-caches=off -o "$TMP/cmpdoc.json"
eq "the compare result's schema" "$(json_get "$TMP/cmpdoc.json" schema)" sbio-compare/1
K=$TMP/keep/cmpdoc
mkdir -p "$TMP/tmpdir2"
TMPDIR=$TMP/tmpdir2 expect_exit 0 "plot a compare result" "$SBIO" plot "$TMP/cmpdoc.json" -o "$TMP/cmpdoc.png"
eq "plot a compare result: nothing on stderr" "$(cat "$TMP/err")" ""
eq "plot a compare result: the private data folder is removed" "$(ls -A "$TMP/tmpdir2")" ""
eq "cmpdoc.png is 1200x800" "$(png_size "$TMP/cmpdoc.png")" "1200 800"
not_blank "cmpdoc.png is not blank" "$TMP/cmpdoc.png"
expect_exit 0 "plot a compare result --keep-data" "$SBIO" plot "$TMP/cmpdoc.json" -o "$TMP/cmpdoc-k.png" --keep-data "$K"
eq "compare --keep-data keeps the script and settings.dat" "$(cd "$K" && printf '%s ' *)" "plot.gp settings.dat "
eq "settings.dat has one row per setting, named as in the JSON" \
	"$(awk '!/^#/ { sub(/^[^"]*/, ""); printf "%s ", $0 }' "$K/settings.dat")" \
	'"file-block-size=4K" "file-block-size=16K" "file-block-size=64K" '
for s in 0 1 2; do
	row=$((s + 1))
	S=settings.$s.summary
	eq "settings.dat row $row: x = $s" "$(col "$K/settings.dat" $row 1)" $s
	numeq "settings.dat row $row: runs_ok" "$(col "$K/settings.dat" $row 2)" "$(json_get "$TMP/cmpdoc.json" $S.runs_ok)"
	numeq "settings.dat row $row: runs" "$(col "$K/settings.dat" $row 3)" "$(json_get "$TMP/cmpdoc.json" $S.runs)"
	numeq "settings.dat row $row: ops/s mean = $S.ops_per_s.mean" "$(col "$K/settings.dat" $row 4)" \
		"$(json_get "$TMP/cmpdoc.json" $S.ops_per_s.mean)"
	numeq "settings.dat row $row: ops/s stddev = $S.ops_per_s.stddev" "$(col "$K/settings.dat" $row 5)" \
		"$(json_get "$TMP/cmpdoc.json" $S.ops_per_s.stddev)"
	numeq "settings.dat row $row: diff_pct" "$(col "$K/settings.dat" $row 6)" "$(json_get "$TMP/cmpdoc.json" $S.diff_pct)"
	numeq "settings.dat row $row: p_value" "$(col "$K/settings.dat" $row 7)" "$(json_get "$TMP/cmpdoc.json" $S.p_value)"
	sig=$(json_get "$TMP/cmpdoc.json" $S.significant)
	case $sig in true) want=1 ;; false) want=0 ;; *) want=-1 ;; esac
	eq "settings.dat row $row: significant ($sig)" "$(col "$K/settings.dat" $row 8)" $want
	c=9
	for op in read write fsync; do
		numeq "settings.dat row $row: $op p99 mean = $S.$op.p99_ns.mean" "$(col "$K/settings.dat" $row $c)" \
			"$(json_get "$TMP/cmpdoc.json" $S.$op.p99_ns.mean)"
		numeq "settings.dat row $row: $op p99 stddev = $S.$op.p99_ns.stddev" "$(col "$K/settings.dat" $row $((c + 1)))" \
			"$(json_get "$TMP/cmpdoc.json" $S.$op.p99_ns.stddev)"
		c=$((c + 2))
	done
	# Over each bar: "baseline", or the difference with "*" when significant; and n=runs.
	if [ $s = 0 ]; then
		want=baseline
	else
		want=$(awk -v d="$(json_get "$TMP/cmpdoc.json" $S.diff_pct)" -v s="$sig" \
			'BEGIN { printf "%+.1f%%%s", d, s == "true" ? " *" : "" }')
	fi
	contains "setting $s is annotated '$want'" "set label '$want' at first $s," "$K/plot.gp"
	contains "setting $s is annotated with its runs" \
		"set label 'n=$(json_get "$TMP/cmpdoc.json" $S.runs_ok)' at first $s," "$K/plot.gp"
done
contains "the bars have ±stddev error bars" 'with boxerrorbars lc rgb variable' "$K/plot.gp"
contains "the p99 panel is on a log scale" 'set logscale y' "$K/plot.gp"
check "the kept compare script redraws the chart" \
	sh -c "cd '$K' && rm -f '$TMP/cmpdoc-k.png' && gnuplot plot.gp 2>/dev/null && test -s '$TMP/cmpdoc-k.png'"
if command -v python3 >/dev/null; then
	# The baseline's grey bar, and a p99 bar in each op type's colour.
	read -r ncol found < <(png_colours "$TMP/cmpdoc.png" 7f7f7f "${OPS_COLOURS[@]}")
	eq "cmpdoc.png has the baseline's bar and a p99 bar per op type ($ncol colours)" "$found" \
		"7f7f7f ${OPS_COLOURS[*]}"
else
	skip "python3 missing: the PNG's colours are not decoded (its size was checked)"
fi
expect_exit 0 "plot a compare result --size 800x600" "$SBIO" plot "$TMP/cmpdoc.json" -o "$TMP/cmpdoc-small.png" --size 800x600
eq "cmpdoc-small.png is 800x600" "$(png_size "$TMP/cmpdoc-small.png")" "800 600"
not_blank "cmpdoc-small.png is not blank" "$TMP/cmpdoc-small.png"
expect_exit 0 "plot a compare result to .svg" "$SBIO" plot "$TMP/cmpdoc.json" -o "$TMP/cmpdoc.svg"
eq "cmpdoc.svg is 1200x800" "$(grep -o 'viewBox="[^"]*"' "$TMP/cmpdoc.svg")" 'viewBox="0 0 1200 800"'
contains "cmpdoc.svg draws the baseline's bar" 'rgb(127, 127, 127)' "$TMP/cmpdoc.svg"

# A setting whose runs all failed is an empty slot that says so; a setting of one run has no
# test. Written by hand: a real compare does not fail on demand.
cat >"$TMP/failed.json" <<'JSON'
{"schema": "sbio-compare/1", "axes": [{"key": "threads", "values": ["1", "2", "4"]}], "repeat": 2,
 "settings": [
  {"name": "threads=1", "values": {"threads": "1"}, "runs": [],
   "summary": {"runs_ok": 2, "runs": 2, "ops_per_s": {"mean": 1000.5, "stddev": 50.25},
    "read": {"p95_ns": 9000, "p99_ns": {"mean": 10000, "stddev": 500}},
    "diff_pct": 0, "p_value": null, "significant": null}},
  {"name": "threads=2", "values": {"threads": "2"}, "runs": [],
   "summary": {"runs_ok": 0, "runs": 2, "ops_per_s": {"mean": 0, "stddev": 0},
    "diff_pct": -100, "p_value": null, "significant": null}},
  {"name": "threads=4", "values": {"threads": "4"}, "runs": [],
   "summary": {"runs_ok": 1, "runs": 2, "ops_per_s": {"mean": 1500, "stddev": 0},
    "read": {"p95_ns": 19000, "p99_ns": {"mean": 20000, "stddev": 0}},
    "diff_pct": 49.925, "p_value": null, "significant": null}}]}
JSON
K=$TMP/keep/failed
expect_exit 0 "plot a compare result with a setting without a successful run" "$SBIO" plot \
	"$TMP/failed.json" -o "$TMP/failed.png" --keep-data "$K"
eq "failed.png is 1200x800" "$(png_size "$TMP/failed.png")" "1200 800"
eq "settings.dat: no successful run, no bar (NaN ops/s and p99)" \
	"$(awk '!/^#/ && ++n == 2 { print $2, $4, $5, $9 }' "$K/settings.dat")" "0 NaN NaN NaN"
contains "the empty slot says so" 'set label "no successful\nrun (0 of 2)" at first 1,' "$K/plot.gp"
eq "the empty slot has no difference (the summary's -100% is no measurement)" \
	"$(grep -c "at first 1, first" "$K/plot.gp")" 0
contains "one run of two: the count and no test" "set label 'n=1 of 2: no test' at first 2," "$K/plot.gp"

# Mixed with other results, or with another compare: exit 2, one line, nothing written.
bad_input "a compare result with a run result" "$TMP/cmpdoc.json" "$TMP/rw.json" -o "$TMP/bad.png"
contains "compare mixed: the message names the compare result" 'cmpdoc.json is a compare result' "$TMP/err"
bad_input "a run result with a compare result" "$TMP/rw.json" "$TMP/cmpdoc.json" -o "$TMP/bad.png"
bad_input "two compare results" "$TMP/cmpdoc.json" "$TMP/failed.json" -o "$TMP/bad.png"
echo '{"schema": "sbio-compare/1", "settings": []}' >"$TMP/nosets.json"
bad_input "a compare result without settings" "$TMP/nosets.json" -o "$TMP/bad.png"
contains "no settings: the message says so" 'nosets.json: an sbio compare result without settings[]' "$TMP/err"
