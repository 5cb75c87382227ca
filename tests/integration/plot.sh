#!/bin/bash
# sbio plot: charts of real results from real runs.
# The data files kept with --keep-data hold the JSON's values; the PNGs have the asked size
# (from the IHDR chunk) and are not blank; --size and .svg work; bad input is exit 2 with one
# line and writes nothing. Two 2-second runs with time series and runs of a set number of events
# (the figures they are checked against are the JSON's, whatever the run's length) on a 2 x 8
# MiB set under $TMP.
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
	--file-test-mode=rndrd --threads=2 --time=0 --events=20000 -o "$TMP/nots.json"
# The figures of rw.json the checks below compare with, read at once (json_map): RW[PATH].
declare -A RW
json_map RW "$TMP/rw.json" schema 'result.samples.#'
nsamples=${RW[result.samples.#]}
[[ $nsamples =~ ^[0-9]+$ ]] || nsamples=0
last=$((nsamples > 0 ? nsamples - 1 : 0))
json_map RW "$TMP/rw.json" schema 'result.samples.#' result.samples.{0,$last}.t_s \
	result.samples.{0,$last}.{read,write,fsync}.ops_per_s \
	result.op_types.{read,write,fsync}.latency.percentiles_ns.{50,90,99,99.9} \
	result.op_types.{read,write,fsync}.ops_per_s
eq "the result's schema" "${RW[schema]}" sbio-result/1

# --- one result: throughput over time and latency percentiles ---
mkdir -p "$TMP/tmpdir"
TMPDIR=$TMP/tmpdir expect_exit 0 "plot one result" "$SBIO" plot "$TMP/rw.json" -o "$TMP/one.png"
eq "plot one result: nothing on stderr" "$(cat "$TMP/err")" ""
eq "plot one result: the private data folder is removed" "$(ls -A "$TMP/tmpdir")" ""
eq "one.png is 1200x800 by default" "$(png_size "$TMP/one.png")" "1200 800"
not_blank "one.png is not blank" "$TMP/one.png"

K=$TMP/keep/one
# --keep-data makes its last folder only, as --dir needs an existing one: a missing parent is
# one line, exit 2, nothing made (neither the folder nor the chart).
expect_exit 2 "--keep-data under a missing folder: exit 2" "$SBIO" plot "$TMP/rw.json" -o "$TMP/one-k.png" --keep-data "$K"
stderr_one_line "--keep-data under a missing folder: one line"
contains "--keep-data under a missing folder: the message says the parent is missing" \
	"plot: --keep-data $K: its parent folder does not exist" "$TMP/err"
check "--keep-data under a missing folder: nothing made" test ! -e "$TMP/keep" -a ! -e "$TMP/one-k.png"
mkdir "$TMP/keep"
expect_exit 0 "plot one result --keep-data" "$SBIO" plot "$TMP/rw.json" -o "$TMP/one-k.png" --keep-data "$K"
eq "--keep-data keeps the script and the data files" "$(cd "$K" && printf '%s ' *)" \
	"percentiles.dat plot.gp throughput.dat "
if [ "$nsamples" -ge 5 ]; then ok "rndrw recorded $nsamples samples"; else notok "rndrw recorded $nsamples samples, want >= 5 (2 s at 200 ms)"; fi
eq "throughput.dat has one row per sample" "$(grep -vc '^#' "$K/throughput.dat")" "$nsamples"
for s in 0 $((nsamples - 1)); do
	near "throughput.dat row $((s + 1)) t_s = samples[$s].t_s" "$(col "$K/throughput.dat" $((s + 1)) 1)" \
		"${RW[result.samples.$s.t_s]}" 0.0001
	c=2
	for op in read write fsync; do
		near "throughput.dat row $((s + 1)) $op ops/s = samples[$s].$op.ops_per_s" \
			"$(col "$K/throughput.dat" $((s + 1)) $c)" \
			"${RW[result.samples.$s.$op.ops_per_s]}" 0.0001
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
			"${RW[result.op_types.$op.latency.percentiles_ns.$p]}"
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
python3 - "$TMP/nots.json" "$TMP/by-" <<'PY'
import json, sys
for s in ('mq-deadline', 'bfq'):
    d = json.load(open(sys.argv[1]))
    line = ' '.join('[%s]' % n if n == s else n for n in ('none', 'mq-deadline', 'kyber', 'bfq'))
    d['environment']['devices'] = [{'name': 'sdz', 'queue': {'scheduler': line, 'nr_requests': '64'}, 'iosched': {}}]
    json.dump(d, open(sys.argv[2] + s + '.json', 'w'))
PY
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
declare -A R
for r in rw seq nots; do
	json_map R "$TMP/$r.json" result.op_types.{read,write,fsync}.ops_per_s result.op_types.read.latency.percentiles_ns.99
	# columns: name, then a quoted description of several words: count fields from the end.
	c=-5
	for op in read write fsync; do
		got=$(awk -v r=$row -v c=$c '!/^#/ && ++n == r { print $(NF + c) }' "$K/compare.dat")
		near "compare.dat $r $op ops/s = op_types.$op.ops_per_s" "$got" \
			"${R[result.op_types.$op.ops_per_s]}" 0.0001
		c=$((c + 1))
	done
	got=$(awk -v r=$row '!/^#/ && ++n == r { print $(NF - 2) }' "$K/compare.dat")
	eq "compare.dat $r read p99 = op_types.read.latency.percentiles_ns.99" "$got" \
		"${R[result.op_types.read.latency.percentiles_ns.99]}"
	row=$((row + 1))
done
eq "compare.dat: a read-only run has no write p99 (NaN, no bar)" \
	"$(awk '!/^#/ && ++n == 2 { print $(NF - 1) }' "$K/compare.dat")" NaN
eq "compare.dat rw fsync p99 = op_types.fsync.latency.percentiles_ns.99" \
	"$(awk '!/^#/ && ++n == 1 { print $NF }' "$K/compare.dat")" \
	"${RW[result.op_types.fsync.latency.percentiles_ns.99]}"
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

# --- a compare result: per phase, a bar panel and a latency panel per job (and the jobs'
# total); the bars are the compare's figures of each setting (mean, 95% CI, difference,
# verdict) and its runs, the latencies the means of the runs' percentiles with their CIs ---
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
# blk FILE INDEX ROW COL: a field of data row ROW (from 1) of block INDEX (from 0, blocks two
# blank lines apart as gnuplot's index counts them) of a data file.
blk() {
	awk -v x="$2" -v r="$3" -v c="$4" '/^$/ { if (++e == 2) { i++; n = 0 }; next } { e = 0 }
		/^#/ { next } i == x && ++n == r { print $c }' "$1"
}
# bars_match DESC DAT DOC JOB: each setting's row of a bar panel's data file is the compare's
# figures of settings[s].phases[0].jobs[JOB].metrics.ops.
bars_match() {
	local s m row verdict want sig n
	local -A J
	json_map J "$3" 'settings.#'
	n=${J[settings.#]}
	[[ $n =~ ^[0-9]+$ ]] || n=0
	json_map J "$3" $(for ((s = 0; s < n; s++)); do
		printf "settings.$s.phases.0.jobs.$4.metrics.ops.%s " n mean stddev ci95.0 ci95.1 verdict diff_pct p_holm
	done)
	for ((s = 0; s < n; s++)); do
		m=settings.$s.phases.0.jobs.$4.metrics.ops
		row=$((s + 1))
		numeq "$1 setting $s: n" "$(blk "$2" 0 $row 4)" "${J[$m.n]}"
		numeq "$1 setting $s: mean" "$(blk "$2" 0 $row 5)" "${J[$m.mean]}"
		numeq "$1 setting $s: stddev" "$(blk "$2" 0 $row 6)" "${J[$m.stddev]}"
		numeq "$1 setting $s: ci95 low" "$(blk "$2" 0 $row 7)" "${J[$m.ci95.0]}"
		numeq "$1 setting $s: ci95 high" "$(blk "$2" 0 $row 8)" "${J[$m.ci95.1]}"
		verdict=${J[$m.verdict]}
		case $verdict in significant) sig=1 ;; "within noise") sig=0 ;; *) sig=-1 ;; esac
		eq "$1 setting $s: significant ($verdict)" "$(blk "$2" 0 $row 14)" $sig
		[ $s = 0 ] && continue
		numeq "$1 setting $s: diff_pct" "$(blk "$2" 0 $row 9)" "${J[$m.diff_pct]}"
		numeq "$1 setting $s: p_holm" "$(blk "$2" 0 $row 13)" "${J[$m.p_holm]}"
		want=$(awk -v d="${J[$m.diff_pct]}" -v s=$sig \
			'BEGIN { printf "%+.1f%%%s", d, s == 1 ? " *" : "" }')
		contains "$1 setting $s is annotated '$want'" "set label '$want' at first $s," "$K/plot.gp"
	done
	[ "$n" -gt 0 ] || notok "$1: no settings in $3"
	want=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(len(s["phases"][0]["jobs"][int(sys.argv[2])]["metrics"]["ops"]["values"]) for s in d["settings"]))' "$3" "$4")
	eq "$1: a row per run value" "$(awk '/^$/ { if (++e == 2) i++; next } { e = 0 } !/^#/ && i == 1' "$2" | wc -l)" "$want"
}
# lat_mean DOC S PHJOB OP Q [S PHJOB OP Q]…: for each quadruple, one a line, the mean over
# setting S's runs that ended ok of their PHJOB (a python expression of the run's document d)
# op_types.OP percentile Q (one python3 for them all).
lat_mean() {
	python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
a = sys.argv[2:]
for s, where, op, q in zip(a[0::4], a[1::4], a[2::4], a[3::4]):
    v = []
    for run in doc['settings'][int(s)]['runs']:
        if run['status'] != 'ok':
            continue
        d = run['result']
        v.append(eval(where)['result']['op_types'][op]['latency']['percentiles_ns'][q])
    print('%.10g' % (sum(v) / len(v)))
PY
}
expect_exit 0 "compare rndrw over 3 block sizes, 2 repeats" "$SBIO" compare "${SET[@]}" \
	--file-test-mode=rndrw --vary file-block-size=4K,16K,64K --repeat=2 --time=0 --events=4000 \
	--drop-caches=off -o "$TMP/cmpdoc.json"
declare -A CD
json_map CD "$TMP/cmpdoc.json" schema settings.{0,1,2}.phases.0.jobs.0.metrics.{read,write}.p99.mean
eq "the compare result's schema" "${CD[schema]}" sbio-compare/1
K=$TMP/keep/cmpdoc
mkdir -p "$TMP/tmpdir2"
TMPDIR=$TMP/tmpdir2 expect_exit 0 "plot a compare result" "$SBIO" plot "$TMP/cmpdoc.json" -o "$TMP/cmpdoc.png"
eq "plot a compare result: nothing on stderr" "$(cat "$TMP/err")" ""
eq "plot a compare result: the private data folder is removed" "$(ls -A "$TMP/tmpdir2")" ""
eq "cmpdoc.png is 1200x800" "$(png_size "$TMP/cmpdoc.png")" "1200 800"
not_blank "cmpdoc.png is not blank" "$TMP/cmpdoc.png"
expect_exit 0 "plot a compare result --keep-data" "$SBIO" plot "$TMP/cmpdoc.json" -o "$TMP/cmpdoc-k.png" --keep-data "$K"
eq "compare --keep-data keeps the script and a bar and a latency file" "$(cd "$K" && printf '%s ' *)" \
	"phase1-job1-latency.dat phase1-job1-throughput.dat plot.gp "
contains "one bar panel and one latency panel" 'set multiplot layout 2,1 title' "$K/plot.gp"
eq "the bar file has a row per setting, named as in the JSON" \
	"$(awk '/^$/ { exit } !/^#/ { sub(/^[^"]*"[^"]*" /, ""); printf "%s ", $0 }' "$K/phase1-job1-throughput.dat")" \
	'"file-block-size=4K" "file-block-size=16K" "file-block-size=64K" '
bars_match "phase1-job1-throughput.dat" "$K/phase1-job1-throughput.dat" "$TMP/cmpdoc.json" 0
contains "setting 0 is annotated 'baseline'" "set label 'baseline' at first 0," "$K/plot.gp"
contains "the bars have their CI as error bars" 'with boxerrorbars lc rgb variable' "$K/plot.gp"
contains "the latency panel is on a log scale" 'set logscale y' "$K/plot.gp"
# The latency panel's p99 is the compare's own read.p99 column (two paths, one figure); its
# p50 the mean of the runs' documents' p50.
mapfile -t P50 < <(lat_mean "$TMP/cmpdoc.json" 0 d read 50 0 d write 50 1 d read 50 1 d write 50 2 d read 50 2 d write 50)
k=0
for s in 0 1 2; do
	for op in read write; do
		[ $op = read ] && i=$s || i=$((3 + s))
		numeq "latency: setting $s $op p99 = the compare's $op.p99 mean" "$(blk "$K/phase1-job1-latency.dat" $i 3 3)" \
			"${CD[settings.$s.phases.0.jobs.0.metrics.$op.p99.mean]}"
		numeq "latency: setting $s $op p50 = the mean of the runs' p50" "$(blk "$K/phase1-job1-latency.dat" $i 1 3)" \
			"${P50[k]:-NaN}"
		k=$((k + 1))
	done
done
check "the kept compare script redraws the chart" \
	sh -c "cd '$K' && rm -f '$TMP/cmpdoc-k.png' && gnuplot plot.gp 2>/dev/null && test -s '$TMP/cmpdoc-k.png'"
if command -v python3 >/dev/null; then
	# The baseline's grey bar and line, and the next settings' latency lines.
	read -r ncol found < <(png_colours "$TMP/cmpdoc.png" 7f7f7f 1f77b4 ff7f0e)
	eq "cmpdoc.png has the baseline's bar and a line per setting ($ncol colours)" "$found" "7f7f7f 1f77b4 ff7f0e"
else
	skip "python3 missing: the PNG's colours are not decoded (its size was checked)"
fi
expect_exit 0 "plot a compare result --size 800x600" "$SBIO" plot "$TMP/cmpdoc.json" -o "$TMP/cmpdoc-small.png" --size 800x600
eq "cmpdoc-small.png is 800x600" "$(png_size "$TMP/cmpdoc-small.png")" "800 600"
not_blank "cmpdoc-small.png is not blank" "$TMP/cmpdoc-small.png"
expect_exit 0 "plot a compare result to .svg" "$SBIO" plot "$TMP/cmpdoc.json" -o "$TMP/cmpdoc.svg"
eq "cmpdoc.svg is 1200x800" "$(grep -o 'viewBox="[^"]*"' "$TMP/cmpdoc.svg")" 'viewBox="0 0 1200 800"'
contains "cmpdoc.svg draws the baseline's bar" 'rgb(127, 127, 127)' "$TMP/cmpdoc.svg"

# --- a compare of a script of two jobs, 2 settings x 3 runs: a column of panels per job and
# one for their total; each job's latencies of the op types it did only ---
W=$(dirname "$0")/../../workloads/readers-vs-writer.lua
mkdir -p "$TMP/rvwset"
RVW=(--script "$W" --dir="$TMP/rvwset" --size=16M --time=1)
expect_exit 0 "prepare readers-vs-writer on 16 MiB" "$SBIO" prepare "${RVW[@]}"
expect_exit 0 "compare readers-vs-writer, iodepth 4 and 8, 3 repeats" "$SBIO" compare "${RVW[@]}" \
	--vary iodepth=4,8 --repeat=3 --drop-caches=off -o "$TMP/rvw.json"
K=$TMP/keep/rvw
expect_exit 0 "plot the two-job compare" "$SBIO" plot "$TMP/rvw.json" -o "$TMP/rvw.png" --keep-data "$K"
eq "plot the two-job compare: nothing on stderr" "$(cat "$TMP/err")" ""
eq "rvw.png is 1200x800" "$(png_size "$TMP/rvw.png")" "1200 800"
not_blank "rvw.png is not blank" "$TMP/rvw.png"
eq "a bar and a latency file per job and for the total" "$(cd "$K" && printf '%s ' *.dat)" \
	"phase1-job1-latency.dat phase1-job1-throughput.dat phase1-job2-latency.dat phase1-job2-throughput.dat phase1-total-latency.dat phase1-total-throughput.dat "
contains "two rows of three panels" 'set multiplot layout 2,3 title' "$K/plot.gp"
for f in job1-throughput job2-throughput total-throughput job1-latency job2-latency; do
	contains "the script plots phase1-$f.dat" "'phase1-$f.dat' index 0 using" "$K/plot.gp"
done
contains "the readers' panel is named" 'set title "job readers: ops/s"' "$K/plot.gp"
contains "the writer's latency panel is named" 'set title "job writer: write latency"' "$K/plot.gp"
bars_match "readers' bars" "$K/phase1-job1-throughput.dat" "$TMP/rvw.json" 0
bars_match "writer's bars" "$K/phase1-job2-throughput.dat" "$TMP/rvw.json" 1
bars_match "total's bars" "$K/phase1-total-throughput.dat" "$TMP/rvw.json" 2
check "the readers did no writes: no write block" sh -c "! grep -q ': write, setting' '$K/phase1-job1-latency.dat'"
check "the writer did no reads: no read block" sh -c "! grep -q ': read, setting' '$K/phase1-job2-latency.dat'"
# As in compare's table, the total leaves out an op type only one job did.
eq "the total has no latency block: reads and writes are each one job's" \
	"$(grep -c '^# index [0-9]*: \(read\|write\), setting' "$K/phase1-total-latency.dat")" 0
check "the total's latency file has nothing to plot" sh -c "! grep -q \"'phase1-total-latency.dat' index\" '$K/plot.gp'"
contains "the total's latency panel says why it is empty" "each op type was done by one job:\\nsee its own panel" "$K/plot.gp"
declare -A RV
json_map RV "$TMP/rvw.json" settings.{0,1}.phases.0.jobs.0.metrics.read.p99.ci95.0
QS=(50 95 99 99.9)
LA=()
for s in 0 1; do
	for q in "${QS[@]}"; do
		LA+=("$s" "d['phases'][0]['jobs'][0]['result']" read "$q" "$s" "d['phases'][0]['jobs'][1]['result']" write "$q")
	done
done
mapfile -t LM < <(lat_mean "$TMP/rvw.json" "${LA[@]}")
k=0
for s in 0 1; do
	row=0
	for q in "${QS[@]}"; do
		row=$((row + 1))
		numeq "readers' read p$q, setting $s = the mean of the runs' documents" \
			"$(blk "$K/phase1-job1-latency.dat" $s $row 3)" "${LM[k]:-NaN}"
		numeq "writer's write p$q, setting $s = the mean of the runs' documents" \
			"$(blk "$K/phase1-job2-latency.dat" $s $row 3)" "${LM[k + 1]:-NaN}"
		k=$((k + 2))
	done
	numeq "readers' read p99 CI, setting $s = the compare's read.p99 ci95" \
		"$(blk "$K/phase1-job1-latency.dat" $s 3 4)" \
		"${RV[settings.$s.phases.0.jobs.0.metrics.read.p99.ci95.0]}"
done
check "the kept two-job script redraws the chart" \
	sh -c "cd '$K' && rm -f '$TMP/rvw.png' && gnuplot plot.gp 2>/dev/null && test -s '$TMP/rvw.png'"

# A setting whose runs all failed is an empty slot that says so. Made from the real compare:
# a compare does not fail on demand.
python3 - "$TMP/rvw.json" "$TMP/failed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['settings'][1]
for r in s['runs']:
    r['status'], r['result'] = 'failed', None
for p in s['phases']:
    p['runs_ok'] = 0
    for j in p['jobs']:
        for m in j['metrics'].values():
            m.update(n=0, values=[], repeats=[], outliers=[], mean=None, stddev=None,
                     ci95=[None, None], diff_pct=None, diff_ci95_pct=None, p_value=None,
                     p_holm=None, verdict='no runs')
json.dump(d, open(sys.argv[2], 'w'))
PY
K=$TMP/keep/failed
expect_exit 0 "plot a compare result with a setting without a successful run" "$SBIO" plot \
	"$TMP/failed.json" -o "$TMP/failed.png" --keep-data "$K"
eq "failed.png is 1200x800" "$(png_size "$TMP/failed.png")" "1200 800"
eq "the bar file: no successful run, no bar (NaN mean)" \
	"$(awk '!/^#/ && ++n == 2 { print $2, $4, $5 }' "$K/phase1-job1-throughput.dat")" "0 0 NaN"
contains "the empty slot says so" 'set label "no successful run\n(0 of 3)" at first 1,' "$K/plot.gp"
eq "the empty slot has no difference" "$(grep -c "at first 1, first" "$K/plot.gp")" 0
eq "the latency file: no point for it (NaN, 0 runs)" "$(blk "$K/phase1-job1-latency.dat" 1 3 3) $(blk "$K/phase1-job1-latency.dat" 1 3 6)" "NaN 0"

# Mixed with other results, or with another compare: exit 2, one line, nothing written.
bad_input "a compare result with a run result" "$TMP/cmpdoc.json" "$TMP/rw.json" -o "$TMP/bad.png"
contains "compare mixed: the message names the compare result" 'cmpdoc.json is a compare result' "$TMP/err"
bad_input "a run result with a compare result" "$TMP/rw.json" "$TMP/cmpdoc.json" -o "$TMP/bad.png"
bad_input "two compare results" "$TMP/cmpdoc.json" "$TMP/failed.json" -o "$TMP/bad.png"
echo '{"schema": "sbio-compare/1", "settings": []}' >"$TMP/nosets.json"
bad_input "a compare result without settings" "$TMP/nosets.json" -o "$TMP/bad.png"
contains "no settings: the message says so" 'nosets.json: an sbio compare result without settings[]' "$TMP/err"
