#!/bin/bash
# sbio run results with the real binary: where JSON and CSV go.
# -o r.json writes the JSON and keeps the text report on stdout; --output-format=json alone
# prints only the JSON (interim lines to stderr); --log-interval records samples without
# printing them, --report-interval prints and records; -o r.csv appends lines under one
# header; a script's CSV has a line per job and per phase total, each equal to the figures
# its report() hook reads from the same document; appending to a CSV file of another header
# is exit 2 with one line, the file unchanged; an --output that cannot be opened is exit 2
# with one line and nothing touched.
# A small set (2 x 1 MiB) under $TMP only.
source "$(dirname "$0")/lib.sh"

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=2 --file-total-size=2M)
RUN=("$SBIO" run "${SET[@]}" --file-test-mode=rndrd --rand-seed=7)
N=2000

HAVE_PY=false
command -v python3 >/dev/null 2>&1 && HAVE_PY=true
# json_check DESC FILE EXPR: FILE (read as stdin) is exactly one JSON document d for which the
# Python expression EXPR holds.
PY='import json, sys
d = json.load(sys.stdin)
if not eval(sys.argv[1]):
    sys.exit("false: " + sys.argv[1])'
json_check() {
	local desc=$1 file=$2 expr=$3 why
	if ! $HAVE_PY; then
		skip "$desc: python3 is not installed, the JSON is not parsed"
		return
	fi
	if why=$(python3 -c "$PY" "$expr" <"$file" 2>&1); then
		ok "$desc"
	else
		notok "$desc ($(tail -n 2 <<<"$why" | head -c 300 | tr '\n' ' '))"
	fi
}
is_text_report() { grep -q 'total number of events:' "$1"; }
no_text_report() { ! is_text_report "$1"; }
no_json_in() { ! grep -q '"schema"' "$1"; }
interim_lines() { grep -c '^\[ [0-9]*s \]' "$1"; }

expect_exit 0 "prepare 2 x 1 MiB" "$SBIO" prepare "${SET[@]}"

# --- -o r.json: the JSON to the file, the text report still on stdout ---
expect_exit 0 "-o r.json: exit 0" "${RUN[@]}" --events=$N -o "$TMP/r.json"
check "-o r.json: the text report is on stdout" is_text_report "$TMP/out"
check "-o r.json: no JSON on stdout" no_json_in "$TMP/out"
eq "-o r.json: the file starts a JSON object" "$(head -c 1 "$TMP/r.json")" "{"
eq "-o r.json: one schema line" "$(grep -c '"schema": "sbio-result/1"' "$TMP/r.json")" 1
json_check "-o r.json: valid JSON, schema sbio-result/1, rndrd, $N events" "$TMP/r.json" \
	"d['schema'] == 'sbio-result/1' and d['config']['file_test_mode'] == 'rndrd' and d['result']['events'] == $N and d['result']['op_types']['read']['ops'] == $N and d['command_line'][-1] == '$TMP/r.json'"

# --- --output-format=json alone: stdout is the JSON and nothing else ---
expect_exit 0 "--output-format=json: exit 0" "${RUN[@]}" --events=$N --output-format=json
cp "$TMP/out" "$TMP/stdout.json"
check "--output-format=json: no text report on stdout" no_text_report "$TMP/stdout.json"
eq "--output-format=json: nothing on stderr" "$(cat "$TMP/err")" ""
json_check "--output-format=json: stdout is one JSON document with $N events" "$TMP/stdout.json" \
	"d['schema'] == 'sbio-result/1' and d['result']['events'] == $N"

# --- --log-interval records without printing ---
expect_exit 0 "--log-interval=100 --time=1: exit 0" "${RUN[@]}" --time=1 --log-interval=100 \
	-o "$TMP/log.json"
eq "--log-interval: no interim line on stdout" "$(interim_lines "$TMP/out")" 0
check "--log-interval: the text report is on stdout" is_text_report "$TMP/out"
json_check "--log-interval: 5 to 10 samples 0.1 s apart, t_s increasing" "$TMP/log.json" \
	"5 <= len(d['result']['samples']) <= 10 and all(b['t_s'] > a['t_s'] for a, b in zip(d['result']['samples'], d['result']['samples'][1:])) and all(abs(s['duration_s'] - 0.1) < 0.05 for s in d['result']['samples'])"

# --- --report-interval prints and records: one line and one sample per interval ---
expect_exit 0 "--report-interval=1 --time=2: exit 0" "${RUN[@]}" --time=2 --report-interval=1 \
	-o "$TMP/rep.json"
lines=$(interim_lines "$TMP/out")
check "--report-interval: interim lines on stdout ($lines)" test "$lines" -ge 1
json_check "--report-interval: as many samples as interim lines ($lines), 1 s long" "$TMP/rep.json" \
	"len(d['result']['samples']) == $lines and all(abs(s['duration_s'] - 1) < 0.1 for s in d['result']['samples'])"
# Without --output: the interim lines go to stderr, stdout stays JSON.
expect_exit 0 "--output-format=json --report-interval=1 --time=2: exit 0" "${RUN[@]}" --time=2 \
	--report-interval=1 --output-format=json
cp "$TMP/out" "$TMP/stdout2.json"
check "--output-format=json --report-interval: the interim lines are on stderr" \
	test "$(interim_lines "$TMP/err")" -ge 1
json_check "--output-format=json --report-interval: stdout is one JSON document with samples" \
	"$TMP/stdout2.json" "len(d['result']['samples']) >= 1"

# --- CSV: -o r.csv twice gives one header and two lines ---
expect_exit 0 "-o r.csv (1st run): exit 0" "${RUN[@]}" --events=$N -o "$TMP/r.csv"
check "-o r.csv: the text report is on stdout" is_text_report "$TMP/out"
expect_exit 0 "-o r.csv (2nd run): exit 0" "${RUN[@]}" --events=$((N / 2)) -o "$TMP/r.csv"
eq "-o r.csv twice: 3 lines" "$(wc -l <"$TMP/r.csv" | tr -d ' ')" 3
eq "-o r.csv twice: one header line, first" "$(grep -n '^sbio_version,' "$TMP/r.csv" | cut -d: -f1 | tr '\n' ' ')" "1 "
eq "-o r.csv twice: every line has the header's column count" \
	"$(awk -F, '{ print NF }' "$TMP/r.csv" | sort -u | wc -l | tr -d ' ')" 1
col=$(head -n 1 "$TMP/r.csv" | tr ',' '\n' | grep -nx events | cut -d: -f1)
eq "-o r.csv twice: the events column holds each run's" \
	"$(awk -F, -v c="${col:-0}" 'NR > 1 { print $c }' "$TMP/r.csv" | tr '\n' ' ')" "$N $((N / 2)) "
# Numbers in one format per kind of column: counts and nanoseconds whole, seconds, rates and
# percentages with three decimals; never an exponent.
eq "-o r.csv: every number in its column's format" "$(awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; next }
	{ for (i = 1; i <= NF; i++) {
		if ($i == "" || h[i] ~ /^(sbio_version|finished_utc|file_test_mode|ioengine|file_extra_flags|scheduler|interrupted|error)$/) continue
		if (h[i] ~ /(_s|_pct)$/) { if ($i !~ /^[0-9]+\.[0-9][0-9][0-9]$/) print h[i] "=" $i }
		else if ($i !~ /^[0-9]+$/) print h[i] "=" $i } }' "$TMP/r.csv")" ""
expect_exit 0 "--output-format=csv: exit 0" "${RUN[@]}" --events=$N --output-format=csv
eq "--output-format=csv: stdout is a header and one line" \
	"$(wc -l <"$TMP/out" | tr -d ' ') $(head -n 1 "$TMP/out" | cut -d, -f1)" "2 sbio_version"

# --- CSV of a script: a line per job and per phase total, equal to the JSON's figures ---
# Two phases of two jobs; report() prints, from the very document the CSV is written from,
# each line's figures (a job's name with a comma is quoted in the CSV).
cat >"$TMP/two.lua" <<'EOF'
phase "load" {
    time = 1,
    job "readers" { threads = 2, mode = "rndrd", block = "4k" },
    job "writer, 8K" { mode = "rndwr", block = "8k", fsync_freq = 10 },
}
phase "scan" {
    time = 1,
    job "seq" { mode = "seqrd" },
    job "paced" { mode = "rndrd", rate = 2000 },
}
local cols = {
    { "threads", "config/threads" }, { "block_size_bytes", "config/block_size_bytes" },
    { "file_test_mode", "config/file_test_mode" }, { "elapsed_s", "result/elapsed_s" },
    { "events", "result/events" }, { "read_ops", "result/op_types/read/ops" },
    { "write_ops", "result/op_types/write/ops" }, { "fsync_ops", "result/op_types/fsync/ops" },
    { "read_ops_per_s", "result/op_types/read/ops_per_s" },
    { "write_ops_per_s", "result/op_types/write/ops_per_s" },
    { "read_mib_per_s", "result/op_types/read/mib_per_s" },
    { "write_mib_per_s", "result/op_types/write/mib_per_s" },
    { "read_lat_mean_ns", "result/op_types/read/latency/mean_ns" },
    { "read_lat_p99_ns", "result/op_types/read/latency/percentiles_ns/99" },
    { "write_lat_p99_ns", "result/op_types/write/latency/percentiles_ns/99" },
    { "write_lat_max_ns", "result/op_types/write/latency/max_ns" },
}
local function row(phase, job, doc)
    local out = { phase, job }
    for _, c in ipairs(cols) do
        local v = doc
        for k in c[2]:gmatch("[^/]+") do v = type(v) == "table" and v[k] or nil end
        out[#out + 1] = c[1] .. "=" .. (type(v) == "number" and string.format("%.17g", v) or tostring(v))
    end
    print("ROW|" .. table.concat(out, "|"))
end
function report(result)
    for _, p in ipairs(result.phases) do
        for _, j in ipairs(p.jobs) do row(p.name, j.name, j.result) end
        if p.total then row(p.name, "total", p.total) end
    end
end
EOF
SRUN=("$SBIO" run "${SET[@]}" --script "$TMP/two.lua" --rand-seed=7)
expect_exit 0 "--script, -o s.csv: exit 0" "${SRUN[@]}" -o "$TMP/s.csv"
cp "$TMP/out" "$TMP/s.out"
eq "--script, -o s.csv: report() printed 6 lines (2 jobs and a total, twice)" \
	"$(grep -c '^ROW|' "$TMP/s.out")" 6
# The CSV's lines, in order, are report()'s: same phase and job, each figure the document's
# (ns to the nearest whole, rates and seconds to three decimals, counts exactly).
SCSV='import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, lines = rows[0], rows[1:]
want = [l.rstrip("\n").split("|")[1:] for l in open(sys.argv[2]) if l.startswith("ROW|")]
if head[:2] != ["phase", "job"]:
    print("header starts", head[:3])
if len(lines) != len(want):
    print(len(lines), "lines,", len(want), "from report()")
for got, w in zip(lines, want):
    cell = dict(zip(head, got))
    if len(got) != len(head):
        print(got[:2], len(got), "cells,", len(head), "columns")
    if got[:2] != w[:2]:
        print("line", got[:2], "report()", w[:2])
    for kv in w[2:]:
        k, v = kv.split("=", 1)
        c = cell.get(k)
        if v == "nil":
            bad = c != ""
        elif k == "file_test_mode":
            bad = c != v
        else:
            tol = 0.5 if k.endswith("_ns") else 0.0005 if "." in c else 0
            bad = c == "" or abs(float(c) - float(v)) > tol + 1e-9
        if bad:
            print(w[:2], k, "CSV", repr(c), "JSON", v)'
eq "--script, -o s.csv: a header and 6 lines, each equal to the JSON's figures" \
	"$(python3 -c "$SCSV" "$TMP/s.csv" "$TMP/s.out" 2>&1)" ""
eq "--script, -o s.csv: phase and job first, then the built-in columns" \
	"$(head -n 1 "$TMP/s.csv")" "phase,job,$(head -n 1 "$TMP/r.csv")"
eq "--script, -o s.csv: the lines' phases and jobs" \
	"$(tail -n +2 "$TMP/s.csv" | cut -d, -f1-2 | paste -sd ' ')" \
	'load,readers load,"writer load,total scan,seq scan,paced scan,total'
check "--script, -o s.csv: the figures are measured (the readers' reads > 0)" \
	awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) if (h[i] == "read_ops") exit !($i > 0) } NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i }' "$TMP/s.csv"

# --- appending to a CSV file of the other kind: refused before the run, the file untouched ---
# refused_append FILE CMD…: CMD -o FILE, FILE holding the other kind's lines.
refused_append() {
	local f=$1 sum
	shift
	sum=$(md5sum <"$f")
	expect_exit 2 "-o ${f##*/} of the other kind: exit 2" "$@" -o "$f"
	stderr_one_line "-o ${f##*/} of the other kind: one line on stderr"
	check "-o ${f##*/}: the line says which header the file has and to give another file" \
		grep -qE "^sbio: --output $f holds (a script's|built-in runs') lines \(its header starts (phase,job|sbio_version),…\); .*: give the (run|script) another file$" "$TMP/err"
	eq "-o ${f##*/} of the other kind: nothing ran (stdout empty)" "$(head -c 200 "$TMP/out")" ""
	eq "-o ${f##*/} of the other kind: the file is unchanged" "$(md5sum <"$f")" "$sum"
}
refused_append "$TMP/s.csv" "${RUN[@]}" --events=$N
refused_append "$TMP/r.csv" "${SRUN[@]}"
printf 'when,what\n' >"$TMP/other.csv"
expect_exit 2 "-o a CSV file of another header: exit 2" "${RUN[@]}" --events=$N -o "$TMP/other.csv"
check "-o a CSV file of another header: the line quotes its first line" \
	grep -q "^sbio: --output $TMP/other.csv: its first line (when,what) is not the header of a run's CSV lines; give the run another file$" "$TMP/err"
# A file written before the file-system operations' columns existed: its header lacks them
# (and skipped), so this run's lines would not fit under it.
head -n 1 "$TMP/r.csv" | tr ',' '\n' |
	grep -vE '^(create|append|readwhole|writewhole|open|close|stat|unlink|rename|mkdir|readdir)_|^skipped$' |
	paste -sd, >"$TMP/old.csv"
sum=$(md5sum <"$TMP/old.csv")
expect_exit 2 "-o a CSV file of the header without fs op columns: exit 2" "${RUN[@]}" --events=$N -o "$TMP/old.csv"
check "-o a CSV file of the header without fs op columns: the existing line" \
	grep -q "^sbio: --output $TMP/old.csv: its first line (sbio_version,finished_ut…) is not the header of a run's CSV lines; give the run another file$" "$TMP/err"
eq "-o a CSV file of the header without fs op columns: the file is unchanged" "$(md5sum <"$TMP/old.csv")" "$sum"
expect_exit 0 "--script -o s.csv again: exit 0" "${SRUN[@]}" -o "$TMP/s.csv"
eq "--script -o s.csv twice: one header, 12 lines" \
	"$(grep -c '^phase,job,' "$TMP/s.csv") $(wc -l <"$TMP/s.csv" | tr -d ' ')" "1 13"

# --- an --output that cannot be opened: exit 2, one line, nothing touched ---
snapshot() { (cd "$1" && find . -type f | sort | xargs stat -c '%n %s %.9Y' && cat ./* | md5sum); }
before=$(snapshot "$D")
for out in missing/r.json missing/r.csv .; do
	expect_exit 2 "-o $out (cannot be opened; in $TMP), seqwr: exit 2" "$SBIO" run "${SET[@]}" \
		--file-test-mode=seqwr --events=$N -o "$TMP/$out"
	stderr_one_line "-o $out: one line on stderr"
	eq "-o $out: nothing on stdout" "$(head -c 200 "$TMP/out")" ""
	eq "-o $out: the set is untouched" "$(snapshot "$D")" "$before"
done
check "the missing folder was not created" test ! -e "$TMP/missing"
# seqwr creates a set in an empty folder: not when the output cannot be opened.
mkdir -p "$TMP/empty"
expect_exit 2 "-o into a missing folder, seqwr on an empty folder: exit 2" "$SBIO" run \
	--dir="$TMP/empty" --file-num=2 --file-total-size=2M --file-test-mode=seqwr -o "$TMP/missing/r.json"
stderr_one_line "seqwr on an empty folder, -o into a missing folder: one line on stderr"
eq "seqwr on an empty folder, -o into a missing folder: the folder stays empty" \
	"$(ls -A "$TMP/empty" | tr '\n' ' ')" ""

# CPU figures cover the measured phase only: the worker threads' CPU time over their measured
# windows, never more than the threads x the elapsed time. The process's time from before the
# threads started gave 104-107% for one thread of the null engine (4 of 6 runs of 20000 ops).
for i in 1 2 3 4 5 6; do
	th=$((1 + i / 5))
	"${RUN[@]}" --ioengine=null --events=20000 --threads=$th --output-format=json >"$TMP/cpu.json" 2>/dev/null
	json_check "CPU, run $i of the null engine ($th threads): 0 < user + system <= threads x elapsed" "$TMP/cpu.json" \
		"0 < d['result']['cpu']['user_s'] + d['result']['cpu']['system_s'] <= $th * d['result']['elapsed_s'] * 1.001 + 1e-5"
done
# A script's cell likewise: bonnie-direct's read cells read the page cache, CPU-bound, on one
# thread (and its seeks cells, with one seek process here); each cell's user_pct + system_pct
# (its %CPU column) is that thread's CPU over the cell's elapsed time, at most 100 (the
# process's CPU time gave 100.3-100.8 in 4 of 9 cells).
BDW=$(cd "$(dirname "$0")/../.." && pwd)/workloads/bonnie-direct.lua
mkdir -p "$TMP/bd"
"$SBIO" prepare --script "$BDW" --dir="$TMP/bd" --size=16M >/dev/null 2>&1
for i in 1 2; do
	"$SBIO" run --script "$BDW" --dir="$TMP/bd" --size=16M --sizes=16k,64k,16k,64k \
		--direct-write-only=on --seeks=100 --seek-procs=1 --output-format=json -o "$TMP/bd.json" >/dev/null 2>&1
	json_check "bonnie-direct, run $i: every cell's %CPU (user_pct + system_pct, one thread) <= 100" \
		"$TMP/bd.json" "len(d['phases']) == 16 and all(0 < p['jobs'][0]['result']['result']['cpu']['user_pct'] + p['jobs'][0]['result']['result']['cpu']['system_pct'] <= 100.1 for p in d['phases'])"
done
# /proc/self/io's write_bytes counts whole page-cache folios dirtied: with an fsync after every
# write it read 907 MiB for a run that wrote 14 MiB. Above twice the bytes written, the text
# says what the figure is and what the run wrote; at or below, it shows the figure alone.
"${RUN[@]}" --file-test-mode=rndwr --file-fsync-freq=1 --time=1 -o "$TMP/pio.json" >"$TMP/pio.txt" 2>/dev/null
if $HAVE_PY && pw=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["result"]
print("%d %d" % (d["process_io"]["write_bytes"], d["op_types"]["write"]["bytes"]))' "$TMP/pio.json" 2>/dev/null); then
	read -r proc wrote <<<"$pw"
	if [ "$proc" -gt $((2 * wrote)) ]; then
		check "write_bytes $proc > 2 x $wrote written: the text says it counts folios and what the run wrote" \
			grep -q '^Storage I/O of sbio itself over the run: .*written counts whole page-cache folios dirtied, not bytes: the run wrote [0-9.]* [KMG]*i*B; the device lines count every process)$' "$TMP/pio.txt"
	else
		check "write_bytes $proc <= 2 x $wrote written: the figure alone" \
			grep -q '^Storage I/O of sbio itself over the run: read .*, written .* (/proc/self/io; the device lines count every process)$' "$TMP/pio.txt"
	fi
else
	notok "write_bytes: the JSON's result.process_io.write_bytes and result.op_types.write.bytes ($(head -c 200 "$TMP/pio.json"))"
fi
