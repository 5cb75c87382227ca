#!/bin/bash
# sbio run: behaviour: SIGINT, --rate and its latency from
# the intended start, --warmup-time, --cpus, --report-interval, --histogram, O_DIRECT,
# --file-rw-ratio=0, --config-file; sysbench's --help=on and --version=on.
# Small sets (4 x 8 MiB) under $TMP only.
source "$(dirname "$0")/lib.sh"

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=4 --file-total-size=32M)

# The figures come from each run's JSON result (lib.sh: sbio_json, events_of, rwf_of).
# lat_ms OP FIELD: a latency of OP's (percentiles_ns.99, max_ns …) in milliseconds.
lat_ms() { json_get "$RESULT" "result.op_types.$1.latency.$2" | awk '{ printf "%.3f\n", $1 / 1e6 }'; }
# wait_or_kill PID SECONDS: wait for PID, killing it if it outlives SECONDS; sets RC.
wait_or_kill() {
	local pid=$1 n=$(($2 * 10))
	while kill -0 "$pid" 2>/dev/null && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
	wait "$pid"
	RC=$?
}

expect_exit 0 "prepare 4 x 8 MiB" "$SBIO" prepare "${SET[@]}"

# --- SIGINT mid-run: a report that says so, exit 130 ---
# (In the background: sbio itself, not sbio_json's subshell, must get the signals.)
rm -f "$RESULT"
"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --threads=2 --time=0 --events=0 -o "$RESULT" \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1
kill -INT "$pid"
wait_or_kill "$pid" 10
eq "SIGINT after 1 s (--time=0 --events=0): exit status 130" "$RC" 130
check "SIGINT: the report says Interrupted" grep -q 'Interrupted' "$TMP/out"
ev=$(events_of)
[ "$ev" -gt 0 ] 2>/dev/null && ok "SIGINT: the result has the events done ($ev)" ||
	notok "SIGINT: the result has the events done (result.events: '$ev')"

# --- --rate=2000 for 3 s: within 2% ---
sbio_json run "${SET[@]}" --file-test-mode=rndrd --threads=2 --rate=2000 --time=3
rate=$(json_get "$RESULT" result.op_types.read.ops_per_s)
near "--rate=2000 --time=3, 2 threads: reads/s $rate" "$rate" 2000 2
ev=$(events_of)
el=$(json_get "$RESULT" result.elapsed_s)
lasted "--rate=2000 --time=3: the run lasted the 3 s asked" "$el" 3 2 "$TMP/out"
near "--rate=2000 --time=3: events $ev over the $el s measured" "$(awk -v e="$ev" -v t="$el" 'BEGIN { print e / t }')" 2000 2

# --- --rate=1000 with a 200 ms stall: latency from the intended start (no coordinated omission) ---
# One thread, 2 s at 1000 ops/s: ~2000 reads of a few µs each. SIGSTOP freezes the process for
# 200 ms at t≈0.7 s; the ~200 reads due meanwhile are issued late, back to back, and each is
# measured from its intended start: latencies spread evenly over 0..200 ms. The slowest 1%
# (20 reads) are those due in the first ~20 ms of the stall, at ≥ ~180 ms, so the read p99
# must show the stall. The max alone would not prove it (a tool measuring from the actual start
# also shows a 200 ms max if the stop hits an op in flight); with coordinated omission at most
# one read is slow and the p99 stays in µs. Asserted: read p99 ≥ 150 ms and max ≥ 150 ms.
rm -f "$RESULT"
"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --threads=1 --rate=1000 --time=2 -o "$RESULT" \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 0.7
kill -STOP "$pid"
sleep 0.2
kill -CONT "$pid"
wait_or_kill "$pid" 10
eq "--rate=1000 with a 200 ms SIGSTOP: exit status" "$RC" 0
p99=$(lat_ms read percentiles_ns.99)
max=$(lat_ms read max_ns)
awk -v p="${p99:-0}" 'BEGIN { exit !(p >= 150) }' &&
	ok "--rate=1000 with a 200 ms stall: read p99 $p99 ms >= 150 ms" ||
	notok "--rate=1000 with a 200 ms stall: read p99 ${p99:-?} ms, want >= 150 ms (max ${max:-?} ms)"
awk -v p="${max:-0}" 'BEGIN { exit !(p >= 150 && p < 1000) }' &&
	ok "--rate=1000 with a 200 ms stall: read max $max ms in [150, 1000) ms" ||
	notok "--rate=1000 with a 200 ms stall: read max ${max:-?} ms, want in [150, 1000) ms"

# --- --warmup-time is not counted ---
sbio_json run "${SET[@]}" --file-test-mode=rndrd --threads=1 --rate=1000 --warmup-time=1 --time=1
ev=$(events_of)
el=$(json_get "$RESULT" result.elapsed_s)
lasted "--warmup-time=1 --time=1 --rate=1000: the measured phase lasted 1 s" "$el" 1 5 "$TMP/out"
near "--warmup-time=1 --time=1 --rate=1000: events $ev ~ 1000 a second over $el s (warm-up's ~1000 not counted)" \
	"$(awk -v e="${ev:-0}" -v t="$el" 'BEGIN { print e / t }')" 1000 5
read -r r w f < <(rwf_of)
near "--warmup-time=1 --time=1 --rate=1000: reads $r ~ 1000 a second" "$(awk -v e="${r:-0}" -v t="$el" 'BEGIN { print e / t }')" 1000 5

# --- sysbench's latency figures cover events: the end fsyncs (--file-fsync-end, no events)
# are left out of "Latency (ms)" and the --histogram block, as sysbench times events only ---
sbio_json run "${SET[@]}" --file-test-mode=seqwr --file-fsync-freq=0 --events=200 --histogram=on
read -r wmax wsum < <(json_get "$RESULT" result.op_types.write.latency.{max_ns,sum_ns} | paste -sd ' ')
eq "seqwr, end fsyncs only: Latency (ms) max and sum are the writes' (the end fsyncs' $(pew_of) left out)" \
	"$(awk '/^ *max:/ { m = $2 } /^ *sum:/ { s = $2 } END { print m, s }' "$TMP/out")" \
	"$(awk -v m="${wmax:-0}" -v s="${wsum:-0}" 'BEGIN { printf "%.2f %.2f\n", m / 1e6, s / 1e6 }')"
eq "seqwr, end fsyncs only: the --histogram block counts the 200 events" \
	"$(awk '/^Latency histogram/ { on = 1; next } on && /^ *$/ { on = 0 } on && $NF ~ /^[0-9]+$/ { n += $NF } END { print n }' "$TMP/out")" 200
check "seqwr, end fsyncs only: there were end fsyncs" test "$(json_get "$RESULT" result.op_types.fsync.end)" -gt 0

# --- a run refused after -o was opened leaves no output file made for it, and an existing
# one as it was (the file is emptied only at the first write) ---
mkdir -p "$TMP/noset"
rm -f "$TMP/noset/new.json"
"$SBIO" run --dir="$TMP/noset" --file-test-mode=rndrd -o "$TMP/noset/new.json" >"$TMP/out" 2>"$TMP/err"
eq "run on no set -o new.json: exit 2, no file left" "$?/$(ls "$TMP/noset" | wc -l)" "2/0"
echo keep >"$TMP/noset/old.json"
"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --events=10 --cpus=4095 -o "$TMP/noset/old.json" >"$TMP/out" 2>"$TMP/err"
eq "run --cpus=4095 -o old.json: exit 2, the file as it was" "$?/$(cat "$TMP/noset/old.json")" "2/keep"

# --- seqwr under --rate, stopped while a thread waits for its slot with a write drawn: the
# run ends at its limit and leaves the rest to the next command, the drawn write included
# (not skipped); the next run writes it once, within the set, and the file is whole again ---
W=$TMP/w
mkdir -p "$W"
"$SBIO" prepare --dir="$W" --file-num=1 --file-total-size=1M >/dev/null
sbio_json run --dir="$W" --file-num=1 --file-total-size=1M --file-test-mode=seqwr --rate=7 --time=1
ev=$(events_of)
check "seqwr --rate=7 --time=1: $ev events, 7 or 8 (the slot at 1 s may be taken)" test "${ev:-0}" -ge 7 -a "${ev:-0}" -le 8
left=$(json_get "$RESULT" result.seqwr_left_bytes)
eq "seqwr --rate=7: left the set less the $ev writes done (the write drawn for the next slot with them)" \
	"${left:-0}" $((1048576 - ${ev:-0} * 16384))
eq "seqwr --rate=7: nothing completed after the run; the manifest marks the set short" \
	"$(json_get "$RESULT" result.seqwr_completed_bytes) $(grep -E '^(state|short)=' "$W/sbio.manifest" | paste -sd ' ')" \
	"0 state=incomplete short=seqwr"
"$SBIO" run --dir="$W" --file-test-mode=rndrd --events=10 >"$TMP/out" 2>"$TMP/err"
eq "the next run: exit status, the file whole again with no hole, the manifest complete" \
	"$? $(python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(os.fstat(fd).st_size, os.lseek(fd, 0, os.SEEK_HOLE))' "$W/test_file.0") $(grep '^state=' "$W/sbio.manifest")" \
	"0 1048576 1048576 state=complete"

# --- --cpus pins the worker threads ---
# worker_lists PID: the Cpus_allowed_list of every thread but the main one, sorted, one line.
# Under ThreadSanitizer (make test-tsan) the process has one more thread, TSan's own, started
# before the first worker: the lowest thread id after the main one, left out.
worker_lists() {
	local t tsan=
	[ -n "${TSAN_OPTIONS:-}" ] && tsan=$(ls /proc/"$1"/task | sort -n | sed -n 2p)
	for t in /proc/"$1"/task/*; do
		[ "${t##*/}" = "$1" ] && continue
		[ "${t##*/}" = "$tsan" ] && continue
		awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status"
	done | sort | tr '\n' ' '
}
pinned() { # threads cpus → the workers' lists while the run is going
	"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --threads="$1" --cpus="$2" --rate=1000 --time=1 \
		>"$TMP/out" 2>"$TMP/err" &
	local pid=$!
	sleep 0.5
	LISTS=$(worker_lists "$pid")
	wait_or_kill "$pid" 10
}
# cpu_allowed N: this shell may run on CPU N (parsing its own Cpus_allowed_list, e.g. 0-3,6)
cpu_allowed() {
	awk -v c="$1" '/^Cpus_allowed_list:/ { n = split($2, r, ","); for (i = 1; i <= n; i++) {
		split(r[i], ab, "-"); if (ab[2] == "") ab[2] = ab[1]; if (c >= ab[1] && c <= ab[2]) f = 1 } }
		END { exit !f }' /proc/self/status
}
if cpu_allowed 0; then
	pinned 1 0
	eq "--cpus=0, 1 thread: the worker's Cpus_allowed_list" "$LISTS" "0 "
	eq "--cpus=0: exit status" "$RC" 0
else
	skip "--cpus=0: CPU 0 is not available to this process"
fi
if cpu_allowed 0 && cpu_allowed 1; then
	pinned 2 0-1
	eq "--cpus=0-1, 2 threads: the workers' Cpus_allowed_list" "$LISTS" "0 1 "
else
	skip "--cpus=0-1, 2 threads: CPUs 0 and 1 are not both available to this process"
fi

# --- --report-interval=1 --time=3: exactly 2 lines ---
# The interim lines fall at 1 s and 2 s. The third interval ends at the deadline itself: the
# main thread wakes once for both and checks the deadline first (runner.c run_wait), so the run
# stops and the final report covers that interval — deterministic, not a race. sysbench 1.0.20
# does the same: `sysbench fileio --file-test-mode=rndrd --time=3 --report-interval=1 run`
# printed 2 lines in 3 of 3 runs here. So: floor(time/interval) - 1 = 2 lines, "[ 1s ]", "[ 2s ]".
"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --threads=2 --rate=2000 --time=3 --report-interval=1 \
	>"$TMP/out" 2>"$TMP/err"
eq "--report-interval=1 --time=3: interim lines" "$(grep -c '^\[ ' "$TMP/out")" 2
eq "--report-interval=1 --time=3: their times" "$(grep -o '^\[ [0-9]*s \]' "$TMP/out" | tr '\n' ' ')" "[ 1s ] [ 2s ] "
# each line carries the interval's rate: 2000/s ± 5%
bad=$(awk '/^ +per op:/ { n++; for (i = 1; i <= NF; i++) if ($i == "read") { v = $(i + 1); sub("/s", "", v); if (v < 1900 || v > 2100) print v } }
	END { if (n != 2) print "lines:", n + 0 }' "$TMP/out")
[ -z "$bad" ] && ok "--report-interval=1 with --rate=2000: every line shows ~2000 reads/s" ||
	notok "--report-interval=1 with --rate=2000: lines with read rates off by > 5%: $bad"

# --- --histogram: the buckets of each op type (text report) sum to its ops (JSON result) ---
sbio_json run "${SET[@]}" --file-test-mode=rndrw --threads=2 --events=3000 --histogram
read -r r w f < <(rwf_of)
for x in "read $r" "write $w" "fsync $f"; do
	set -- $x # name, count (and sysbench %): split on purpose
	read -r hdr sum < <(awk -v op="$1" '
		/^Per-operation latency histogram, / { on = ($4 == op); if (on) { h = $(NF - 1) } ; next }
		on && /\|/ { s += $NF; next }
		on && NF == 0 { on = 0 }
		END { printf "%s %d\n", h == "" ? "none" : h, s }' "$TMP/out")
	eq "--histogram: $1 buckets sum to the $1 ops (header and bucket sum = the result's count)" "$hdr $sum" "$2 $2"
done
eq "--histogram: sysbench's block (every event, in ms) sums to the 3000 events (the end fsyncs, $(pew_of), are none)" \
	"$(awk '/^Latency histogram \(values are in milliseconds\)$/ { on = 1; next }
		on && /^ +value  -/ { next } on && /^ +[0-9]+\.[0-9][0-9][0-9] \|/ { s += $NF; next } on { exit } END { print s + 0 }' "$TMP/out")" \
	3000

# --- --file-extra-flags=direct on a file system that takes O_DIRECT ---
fstype=$(stat -f -c %T "$TMP")
if ! dd if=/dev/zero of="$TMP/direct-probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
	skip "--file-extra-flags=direct: $TMP ($fstype) refuses O_DIRECT"
else
	rm -f "$TMP/direct-probe"
	strace -f -qq -y -e trace=openat -o "$TMP/direct.tr" "$SBIO" run "${SET[@]}" --file-test-mode=rndrw \
		--threads=2 --events=2000 --file-extra-flags=direct -o "$RESULT" >"$TMP/out" 2>"$TMP/err"
	eq "--file-extra-flags=direct on $fstype: exit status" "$?" 0
	check "--file-extra-flags=direct: the report names the flag" grep -qx 'Extra file open flags: directio' "$TMP/out"
	n=$(grep -c 'test_file\.[0-9]*".*O_DIRECT' "$TMP/direct.tr")
	# Each file is opened once before the header to check it can be, then by each worker.
	eq "--file-extra-flags=direct: every worker opens every file with O_DIRECT (4 + 2 x 4)" "$n" 12
	read -r r w f < <(rwf_of)
	eq "--file-extra-flags=direct: events = 2000 and reads+writes > 0" \
		"$(events_of) $((r > 0 && w > 0))" "2000 1"
fi

# --- --file-rw-ratio=0: rndrw writes only, as in sysbench (the kernel sees no pread) ---
if ! command -v strace >/dev/null; then
	skip "--file-rw-ratio=0: strace is not installed"
else
	strace -f -qq -y -e trace=pread64,pwrite64 -o "$TMP/ratio0.tr" "$SBIO" run "${SET[@]}" \
		--file-test-mode=rndrw --file-rw-ratio=0 --threads=2 --events=2000 -o "$RESULT" \
		>"$TMP/out" 2>"$TMP/err"
	eq "--file-rw-ratio=0: exit status" "$?" 0
	nr=$(grep -cE 'pread64\([0-9]+<[^>]*/test_file\.[0-9]+>' "$TMP/ratio0.tr")
	nw=$(grep -cE 'pwrite64\([0-9]+<[^>]*/test_file\.[0-9]+>' "$TMP/ratio0.tr")
	read -r r w f < <(rwf_of)
	eq "--file-rw-ratio=0: pread64 on the set (strace), reads in the result" "$nr $r" "0 0"
	eq "--file-rw-ratio=0: every write the result counts is a pwrite64 (strace)" "$nw" "$w"
	check "--file-rw-ratio=0: $w writes" test "${w:-0}" -gt 1000
	check "--file-rw-ratio=0: the report's ratio line" \
		grep -qx 'Read/Write ratio for combined random IO test: 0.00' "$TMP/out"
fi

# --- --config-file: sysbench's general options from a file, the command line wins ---
cat >"$TMP/sb.cfg" <<'CFG'
# general options, as sysbench reads them
threads = 3
time="1"   # seconds

events=0
CFG
sbio_json run "${SET[@]}" --config-file="$TMP/sb.cfg" --file-test-mode=rndrd
eq "--config-file: exit status" "$?" 0
check "--config-file threads = 3: the header says 3 threads" grep -qx 'Number of threads: 3' "$TMP/out"
eq "--config-file: 3 threads in the result" "$(json_get "$RESULT" result.threads.#)" 3
el=$(json_get "$RESULT" result.elapsed_s)
lasted "--config-file time=\"1\": the run lasted 1 s" "$el" 1 10 "$TMP/out"
sbio_json run "${SET[@]}" --threads=2 --config-file "$TMP/sb.cfg" --file-test-mode=rndrd --events=500
check "--config-file with --threads=2 on the command line: 2 threads" \
	grep -qx 'Number of threads: 2' "$TMP/out"
eq "--config-file with --events=500 on the command line: 500 events" "$(events_of)" 500

# --- sysbench's spellings of help and version: exit 0 ---
expect_exit 0 "--help=on: exit status 0" "$SBIO" --help=on
check "--help=on prints the help" grep -q '^Usage: sbio' "$TMP/out"
expect_exit 0 "--version=on: exit status 0" "$SBIO" --version=on
check "--version=on prints the version" grep -q '^sbio [0-9]' "$TMP/out"
expect_exit 0 "-h: exit status 0" "$SBIO" -h
check "-h prints the help" grep -q '^Usage: sbio' "$TMP/out"
WL=$(cd "$(dirname "$0")/../../workloads" && pwd)
expect_exit 0 "--script oltp.lua --help: exit status 0" "$SBIO" --script "$WL/oltp.lua" --help
check "--script oltp.lua --help: the script's options come first" \
	grep -q "^Options of the script .*oltp.lua:" <(head -n 1 "$TMP/out")

# --- --verbosity, sysbench's levels: 0 and 1 errors only, 2 also notes, 3 the report ---
VB=("$SBIO" run "${SET[@]}" --file-test-mode=rndrd --events=200 --num-threads=2)
"${VB[@]}" --verbosity=0 >"$TMP/v.out" 2>"$TMP/v.err"
eq "--verbosity=0: exit 0, nothing on stdout or stderr (not the old spelling's note)" \
	"$?/$(wc -c <"$TMP/v.out")/$(wc -c <"$TMP/v.err")" "0/0/0"
"${VB[@]}" --verbosity=1 --report-interval=1 --histogram=on >"$TMP/v.out" 2>"$TMP/v.err"
eq "--verbosity=1 --report-interval=1 --histogram=on: nothing printed" \
	"$?/$(wc -c <"$TMP/v.out")/$(wc -c <"$TMP/v.err")" "0/0/0"
"${VB[@]}" --verbosity=2 >"$TMP/v.out" 2>"$TMP/v.err"
eq "--verbosity=2: no report, the note on stderr" \
	"$?/$(wc -c <"$TMP/v.out")/$(grep -c 'old spelling' "$TMP/v.err")" "0/0/1"
"${VB[@]}" --verbosity=3 >"$TMP/v.out" 2>/dev/null
check "--verbosity=3: the report" grep -q '^General statistics:$' "$TMP/v.out"
"${VB[@]}" --verbosity 0 --output-format=json >"$TMP/v.out" 2>"$TMP/v.err"
eq "--verbosity 0 --output-format=json: the JSON result all the same" \
	"$(json_get "$TMP/v.out" result.events)/$(wc -c <"$TMP/v.err")" "200/0"
"${VB[@]}" --verbosity=0 -o "$TMP/v.txt" >"$TMP/v.out" 2>&1
check "--verbosity=0 -o FILE (text): the report asked for in a file is written" \
	grep -q '^General statistics:$' "$TMP/v.txt"
"$SBIO" run --dir="$TMP/none" --file-test-mode=rndrd --verbosity=0 >"$TMP/v.out" 2>"$TMP/v.err"
eq "--verbosity=0 on a missing set: the error is said (exit 2, one line)" \
	"$?/$(wc -l <"$TMP/v.err")/$(wc -c <"$TMP/v.out")" "2/1/0"
mkdir -p "$TMP/vset"
"$SBIO" prepare --dir="$TMP/vset" --file-num=2 --file-total-size=2M --verbosity=0 >"$TMP/v.out" 2>&1
eq "prepare --verbosity=0: the set made, nothing printed" "$?/$(wc -c <"$TMP/v.out")/$(ls "$TMP/vset" | wc -l)" "0/0/3"
"$SBIO" cleanup --dir="$TMP/vset" --verbosity=0 >"$TMP/v.out" 2>&1
eq "cleanup --verbosity=0: the set removed, nothing printed" "$?/$(wc -c <"$TMP/v.out")/$(ls "$TMP/vset" | wc -l)" "0/0/0"
"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --verbosity=6 >"$TMP/out" 2>"$TMP/err"
eq "--verbosity=6: exit 2" "$?" 2
check "--verbosity=6: says what is accepted" grep -q 'verbosity.*accepted: an integer from 0 to 5' "$TMP/err"
stderr_one_line "--verbosity=6: one line"
