#!/bin/bash
# sysbench 0.4's command lines and experiment 1's buffered case.
# - --max-requests counts what sysbench 0.4 counted: its random modes' reads and writes (0.4's
#   file_get_rnd_request counts req_performed for them and returns its fsync requests before
#   the count), the fsyncs on top; --events keeps sysbench 1.0's count, fsyncs included. The
#   reads and writes of the set's files are counted twice: in the JSON and by strace.
# - workloads/sysbench-rndrw.lua runs buffered with --direct=off and, under --memory-limit,
#   in a memory group whose limit bounds the set's page cache (the JSON says so); a bad
#   value of either is refused with one line, exit 2. Needs root and a memory controller
#   (as tests/integration/memlimit.sh): skips otherwise.
source "$(dirname "$0")/lib.sh"

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=8 --file-total-size=8M)
expect_exit 0 "prepare 8 files of 1 MiB" "$SBIO" prepare "${SET[@]}"

# traced NAME ARGS…: sbio ARGS… under strace (every thread), the JSON in $TMP/NAME.json;
# prints "R W F", the pread64, pwrite64 and fsync calls on the set's files.
traced() {
	local name=$1
	shift
	if command -v strace >/dev/null; then
		strace -f -qq -y -e trace=pread64,pwrite64,fsync -o "$TMP/$name.tr" \
			"$SBIO" "$@" -o "$TMP/$name.json" >"$TMP/$name.out" 2>"$TMP/$name.err"
	else
		"$SBIO" "$@" -o "$TMP/$name.json" >"$TMP/$name.out" 2>"$TMP/$name.err"
		: >"$TMP/$name.tr"
	fi
	echo "rc $?" >"$TMP/$name.rc"
	local c
	for c in pread64 pwrite64 fsync; do
		grep -c "^[0-9]* *$c([0-9]*<[^>]*test_file\.[0-9]*>" "$TMP/$name.tr"
	done | paste -sd ' '
}
HAVE_STRACE=$(command -v strace >/dev/null && echo 1)
[ -n "$HAVE_STRACE" ] || echo "# strace is not installed: the JSON's counts only"

# --- sysbench 0.4's command line: reads + writes = --max-requests, fsyncs on top ---
OLD=(--test=fileio "${SET[@]}" --num-threads=2 --file-test-mode=rndrw)
read -r sr sw sf < <(traced old "${OLD[@]}" --max-requests=1000 run)
eq "0.4's command line: exit 0" "$(cat "$TMP/old.rc")" "rc 0"
read -r r w f < <(rwf_of "$TMP/old.json")
read -r fp fe _ < <(pew_of "$TMP/old.json")
eq "--max-requests=1000, rndrw: reads + writes = 1000 (the JSON), as sysbench 0.4 counts" \
	"$((r + w))" 1000
check "--max-requests=1000, rndrw: the periodic fsyncs come on top ($fp) and the end ones ($fe)" \
	test "$fp" -gt 0 -a "$fe" -gt 0
if [ -n "$HAVE_STRACE" ]; then
	eq "--max-requests=1000, rndrw: pread64 + pwrite64 on the set = 1000 (strace)" "$((sr + sw))" 1000
	eq "--max-requests=1000, rndrw: strace's fsyncs are the JSON's ($f)" "$sf" "$f"
fi
eq "--max-requests=1000: the report's total number of events is sysbench 1.0's (reads, writes, periodic fsyncs)" \
	"$(json_get "$TMP/old.json" result.events)" "$((r + w + fp))"
check "--max-requests: the note says how it counts" \
	grep -q "^sbio: note: --max-requests .*counts reads and writes, the fsyncs come on top" "$TMP/old.err"

# --- sysbench 1.0's --events: the periodic fsyncs are events too ---
read -r sr sw sf < <(traced new "${OLD[@]}" --events=1000 run)
eq "--events=1000: exit 0" "$(cat "$TMP/new.rc")" "rc 0"
read -r r w f < <(rwf_of "$TMP/new.json")
read -r fp fe _ < <(pew_of "$TMP/new.json")
eq "--events=1000, rndrw: reads + writes + periodic fsyncs = 1000, as sysbench 1.0 counts" \
	"$((r + w + fp))" 1000
check "--events=1000, rndrw: fewer than 1000 reads and writes ($((r + w)))" test "$((r + w))" -lt 1000
[ -z "$HAVE_STRACE" ] || eq "--events=1000, rndrw: pread64 + pwrite64 on the set (strace) = the JSON's" \
	"$((sr + sw))" "$((r + w))"
eq "the last spelling given wins: --max-requests=300 --events=300 counts as 1.0" \
	"$("$SBIO" "${OLD[@]}" --max-requests=300 --events=300 run -o "$TMP/last.json" >/dev/null 2>&1
	json_py "$TMP/last.json" 'o = d["result"]["op_types"]; print(o["read"]["ops"] + o["write"]["ops"] + o["fsync"]["periodic"])')" 300

# --- other modes and engines under --max-requests ---
"$SBIO" "${OLD[@]}" --file-test-mode=rndwr --num-threads=3 --max-requests=500 run \
	-o "$TMP/wr.json" >/dev/null 2>&1
read -r r w f < <(rwf_of "$TMP/wr.json")
eq "--max-requests=500, rndwr, 3 threads: 500 writes, $f fsyncs on top" "$r $w" "0 500"
"$SBIO" "${OLD[@]}" --file-io-mode=async --max-requests=600 run -o "$TMP/aio.json" >/dev/null 2>&1
read -r r w f < <(rwf_of "$TMP/aio.json")
eq "--max-requests=600, rndrw, async: reads + writes = 600" "$((r + w))" 600
"$SBIO" "${OLD[@]}" --file-test-mode=rndrd --max-requests=200 run -o "$TMP/rd.json" >/dev/null 2>&1
eq "--max-requests=200, rndrd: 200 reads, no fsync" "$(rwf_of "$TMP/rd.json")" "200 0 0"
"$SBIO" --dir="$D" cleanup >/dev/null 2>&1

# --- experiment 1's buffered case: --direct=off under --memory-limit ---
WL=$(cd "$(dirname "$0")/../.." && pwd)/workloads/sysbench-rndrw.lua
W=$TMP/wl
mkdir -p "$W"
RW=(--dir="$W" --script "$WL" --size=64M --threads=4)
expect_exit 0 "sysbench-rndrw: prepare 64 MiB" "$SBIO" prepare "${RW[@]}"
manifest_sum() { md5sum "$W/sbio.manifest" | cut -d' ' -f1; }
before=$(manifest_sum)
expect_exit 2 "sysbench-rndrw --direct=maybe: exit 2" "$SBIO" run "${RW[@]}" --direct=maybe
stderr_one_line "sysbench-rndrw --direct=maybe: one line"
check "sysbench-rndrw --direct=maybe: the line names the option and what it takes" \
	grep -q -- "--direct: 'maybe' is not on/off" "$TMP/err"
expect_exit 2 "sysbench-rndrw --direct=off --memory-limit=1M: exit 2" \
	"$SBIO" run "${RW[@]}" --direct=off --memory-limit=1M
stderr_one_line "sysbench-rndrw --memory-limit=1M: one line"
check "sysbench-rndrw --memory-limit=1M: the line says what is accepted" \
	grep -q -- "--memory-limit: '1M' is out of range; accepted: a size of at least 16 MiB" "$TMP/err"
eq "the refused runs left the set as it was" "$(manifest_sum)" "$before"

# The default: O_DIRECT, said by the JSON and report().
expect_exit 0 "sysbench-rndrw, default: exit 0" "$SBIO" run "${RW[@]}" --events=200 -o "$TMP/d.json"
eq "sysbench-rndrw, default: O_DIRECT (config.file_extra_flags, report())" \
	"$(json_get "$TMP/d.json" phases.0.jobs.0.result.config.file_extra_flags) $(grep -c '^File I/O: O_DIRECT$' "$TMP/out")" \
	"direct 1"

MEMBASE=
if need_root; then
	v1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	if [ -n "$v2" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
		MEMBASE=$v2
	elif [ -n "$v1" ]; then
		MEMBASE=$v1
	fi
fi
if [ -z "$MEMBASE" ]; then
	if need_root; then
		skip_kernel "no memory controller: the buffered case under --memory-limit"
	else
		skip "needs root (memory control groups): the buffered case under --memory-limit"
	fi
	exit 0
fi
# 4000 random 16 KiB requests on a 64 MiB set touch about 40 MiB of it: without a limit the
# page cache keeps them; under a 16 MiB group's limit it holds at most 16 MiB. The group
# charges sbio's own memory too: under the sanitizers (make test-asan, test-tsan) their
# shadow memory takes some 20-40 MiB and a 16 MiB group kills sbio, so there it is 32 MiB.
LIM=16
[ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ] && LIM=32
LIMB=$((LIM * 1048576))
LIMP=$((LIM * 256))
B=(run "${RW[@]}" --direct=off --events=4000)
expect_exit 0 "sysbench-rndrw --direct=off --memory-limit=${LIM}M: exit 0" \
	"$SBIO" "${B[@]}" --memory-limit=${LIM}M -o "$TMP/b.json"
J=phases.0.jobs.0.result
eq "buffered: no O_DIRECT, the set invalidated before the run, reads + writes = 4000" \
	"$(json_get "$TMP/b.json" $J.config.file_extra_flags $J.config.invalidate | paste -sd ' ') $(json_py "$TMP/b.json" 'o = d["phases"][0]["jobs"][0]["result"]["result"]["op_types"]; print(o["read"]["ops"] + o["write"]["ops"])')" \
	"(none) true 4000"
eq "buffered: the memory group's limit in effect is $LIM MiB (result.memory_group.limit_bytes)" \
	"$(json_get "$TMP/b.json" $J.config.memory_limit_bytes $J.result.memory_group.limit_bytes | paste -sd ' ')" \
	"$LIMB $LIMB"
eq "buffered: report() says so" "$(grep -c "^File I/O: buffered, memory group limit $LIM MiB\$" "$TMP/out")" 1
limited=$(json_get "$TMP/b.json" $J.result.page_cache.end.cached_pages)
check "buffered, $LIM MiB limit: at most $LIM MiB of the set cached at the end ($limited pages)" \
	test "$limited" -le "$LIMP"
expect_exit 0 "sysbench-rndrw --direct=off, no limit: exit 0" "$SBIO" "${B[@]}" -o "$TMP/u.json"
free=$(json_get "$TMP/u.json" $J.result.page_cache.end.cached_pages)
check "buffered, no limit: more than $LIM MiB of the set cached at the end ($free pages)" \
	test "$free" -gt "$LIMP"
eq "buffered, no limit: report() says so" \
	"$(grep -c '^File I/O: buffered, no memory limit' "$TMP/out") $(json_get "$TMP/u.json" $J.result.memory_group)" "1 null"
"$SBIO" --dir="$W" cleanup >/dev/null 2>&1
