#!/bin/bash
# sbio under MPI: 2 and 3 ranks of mpirun on this machine (--oversubscribe).
# - --file-per-rank (DIR/rank.N) and a shared set (only rank 0 prepares and cleans up);
# - the merged result's reads, writes and fsyncs equal the pread64/pwrite64/fsync calls on
#   test_file.* that strace -f sees over the whole mpirun; --events split exactly; the JSON's
#   per-rank figures add up to the totals; only rank 0 prints;
# - a shared set: random modes spread over it, sequential modes give each rank its own slice
#   (no block read twice), --random-order=once reads each block once over all ranks; seqwr
#   on a shared set refused;
# - a failing rank stops every rank promptly with its message and a non-zero exit: before the
#   run (its folder a read-only bind mount; root) and in the middle of it (one rank's pwrites
#   fail from a set point on: tests/tools/failwrite.so preloaded into it), and in the middle
#   of prepare (the other rank stops at its next write, its set left incomplete);
# - SIGINT to mpirun (the ranks get SIGTERM, then SIGKILL after a grace period): every rank
#   ends promptly and rank 0's report, marked interrupted, is printed;
# - a two-phase, two-job script under 2 and 3 ranks, shared set and --file-per-rank: the
#   merged counts of every job equal the calls strace sees over the whole mpirun, per-rank
#   tables add up, report() runs once; a script error on rank 1 only (its environment) stops
#   every rank with exit 2 and its message; a failing write on rank 1 stops every job of
#   every rank; SIGINT; compare --script;
# - compare on a loop device (root), 2 ranks: one process switches the scheduler, both ranks'
#   runs happen under each scheduler (read from sysfs by each rank as its run starts, and
#   sampled from outside), everything restored; with --repeat=auto the ranks stop together.
# A binary built without MPI says so: skipped, which CI=true turns into a failure.
source "$(dirname "$0")/lib.sh"

export SBIO_STATE_DIR=$TMP/state
MNT=$TMP/mnt
BIND=
mpi_cleanup() {
	kill_pids
	[ -n "$BIND" ] && umount "$BIND" 2>/dev/null
	loop_cleanup "$MNT"
	t_cleanup
}
trap mpi_cleanup EXIT

if ! "$SBIO" version | grep -q '(MPI: '; then
	skip "$SBIO was built without MPI ('$("$SBIO" version)'): install libopenmpi-dev and openmpi-bin, then make (MPI=1 is the default when mpicc is found)"
	exit 0
fi
if ! command -v mpirun >/dev/null; then
	skip "mpirun not found (Debian openmpi-bin)"
	exit 0
fi
ok "sbio is built with MPI: $("$SBIO" version)"
if ! command -v python3 >/dev/null 2>&1; then
	notok "python3 is needed to read the JSON results"
	exit 1
fi
# Under ASan (make test-asan) Open MPI's own allocations at exit are not sbio's leaks.
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
# A hung rank must fail the test, not hang it.
MPI=(timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe -x SBIO_STATE_DIR)
D=$TMP/set
mkdir -p "$D" "$SBIO_STATE_DIR"
SET=(--dir="$D" --file-num=4 --file-total-size=16M)

# --- helpers (and lib.sh's json_get, events_of, rwf_of: figures of a JSON result) ---
# strace_mpi NAME NP ARGS…: sbio ARGS… under mpirun -np NP, strace -f over the whole job;
# sets RC and SR SW SF (pread64, pwrite64, fsync+fdatasync calls on test_file.*); the trace
# is in $TMP/NAME.trace.
strace_mpi() {
	local name=$1 np=$2
	shift 2
	strace -f -qq -y -e trace=pread64,pwrite64,fsync,fdatasync -o "$TMP/$name.trace" \
		"${MPI[@]}" -np "$np" "$SBIO" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	read -r SR SW SF < <(awk '
		/pread64\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { r++ }
		/pwrite64\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { w++ }
		/f(data)?sync\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { f++ }
		END { printf "%d %d %d\n", r, w, f }' "$TMP/$name.trace")
}
# py EXPR FILE: a Python expression over the JSON document d (r = d["result"]), for the
# checks that add up whole lists (json_get reads single values).
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['result']; print($1)" "$2"; }
# all_true DESC AWK-CONDITION VALUE…: the condition over $1, $2 … (the values) holds.
all_true() {
	local desc=$1 cond=$2
	shift 2
	if echo "$@" | awk "{ exit !($cond) }"; then ok "$desc"; else notok "$desc (values: $*)"; fi
}

# --- file per rank, 2 ranks ---
"${MPI[@]}" -np 2 "$SBIO" prepare "${SET[@]}" --file-per-rank >"$TMP/out" 2>"$TMP/err"
eq "2 ranks, --file-per-rank prepare: exit status" "$?" 0
eq "prepare: each rank its own complete set in DIR/rank.N" \
	"$(cat "$D"/rank.*/sbio.manifest 2>/dev/null | grep -c '^state=complete')/$(ls -d "$D"/rank.* | wc -l)" "2/2"
[ -e "$D/sbio.manifest" ] && notok "prepare --file-per-rank: nothing in DIR itself (found a manifest)" ||
	ok "prepare --file-per-rank: nothing in DIR itself"

strace_mpi fpr2 2 run "${SET[@]}" --file-per-rank --file-test-mode=rndrw --threads=2 --events=2001 \
	-o "$TMP/fpr2.json"
eq "2 ranks, rndrw, strace over mpirun: exit status" "$RC" 0
F=$TMP/fpr2.json
read -r r w f < <(rwf_of "$F")
eq "merged result: events = --events=2001 (split 1001 + 1000)" \
	"$(json_get "$F" result.events result.ranks.{0,1}.events | paste -sd ' ')" "2001 1001 1000"
eq "merged reads = pread64 calls of every rank" "$r" "$SR"
eq "merged writes = pwrite64 calls of every rank" "$w" "$SW"
eq "merged fsyncs = fsync calls of every rank" "$f" "$SF"
eq "both ranks' folders were used (rank.0 and rank.1 in the trace)" \
	"$(grep -o 'rank\.[0-9]/test_file' "$TMP/fpr2.trace" | sort -u | cut -c1-6 | tr '\n' ' ')" "rank.0 rank.1 "
eq "only rank 0 prints: one report" "$(grep -c '^File operations:' "$TMP/out")/$(grep -c '^Threads started!' "$TMP/out")" "1/1"
eq "text report: a per-rank table of 2 ranks" "$(sed -n '/^Per rank/,/^$/p' "$TMP/out" | grep -cE '^ +[0-9]+ ')" 2
all_true "JSON: ranks' ops add up to the total" '$1 + $2 == $3' $(json_get "$F" result.ranks.{0,1}.ops result.ops)
eq "JSON: threads tagged with their rank; the mpi object" \
	"$(json_get "$F" result.threads.{0,1,2,3}.rank result.mpi | paste -sd ' ')" \
	'0 0 1 1 {"ranks": 2, "hosts": 1, "file_per_rank": true}'
eq "JSON: merged histograms are exact (counts add up per op type)" \
	"$(py "all(r['op_types'][k]['latency']['count'] == sum(b[2] for b in r['op_types'][k]['latency']['histogram']) for k in ('read','write','fsync')), sum(x['latency']['count'] for x in r['ranks']) == sum(r['op_types'][k]['latency']['count'] for k in ('read','write','fsync'))" "$TMP/fpr2.json")" \
	"True True"
all_true "JSON: elapsed is the longest rank's" '$1 == ($2 > $3 ? $2 : $3)' \
	$(json_get "$F" result.elapsed_s result.ranks.{0,1}.elapsed_s)

# --- file per rank, 3 ranks ---
"${MPI[@]}" -np 3 "$SBIO" prepare "${SET[@]}" --file-per-rank >"$TMP/out" 2>"$TMP/err"
eq "3 ranks, --file-per-rank prepare (rank.2 is new): exit status" "$?/$(ls -d "$D"/rank.* | wc -l)" "0/3"
strace_mpi fpr3 3 run "${SET[@]}" --file-per-rank --file-test-mode=rndwr --threads=2 --events=3000 \
	-o "$TMP/fpr3.json"
eq "3 ranks, rndwr: exit status" "$RC" 0
read -r r w f < <(rwf_of "$TMP/fpr3.json")
eq "3 ranks: merged writes = pwrite64 calls ($SW), fsyncs = fsync calls ($SF), no reads" \
	"$w $f $r" "$SW $SF 0"
eq "3 ranks: a per-rank table of 3 ranks" "$(sed -n '/^Per rank/,/^$/p' "$TMP/out" | grep -cE '^ +[0-9]+ ')" 3

"${MPI[@]}" -np 3 "$SBIO" cleanup "${SET[@]}" --file-per-rank >"$TMP/out" 2>"$TMP/err"
eq "3 ranks, cleanup --file-per-rank: exit status, the rank folders gone" "$?/$(ls -d "$D"/rank.* 2>/dev/null | wc -l)" "0/0"

# --- one set shared by every rank ---
strace -f -qq -e trace=openat -o "$TMP/prep.trace" "${MPI[@]}" -np 2 "$SBIO" prepare "${SET[@]}" \
	>"$TMP/out" 2>"$TMP/err"
eq "2 ranks, shared prepare: exit status" "$?" 0
eq "shared prepare: one process created the files" \
	"$(grep 'test_file\.[0-9]", O_WRONLY|O_CREAT' "$TMP/prep.trace" | awk '{print $1}' | sort -u | wc -l)" 1
strace_mpi sh2 2 run "${SET[@]}" --file-test-mode=rndrw --threads=2 --events=2000 -o "$TMP/sh2.json"
eq "2 ranks on one shared set, rndrw: exit status" "$RC" 0
read -r r w f < <(rwf_of "$TMP/sh2.json")
eq "shared rndrw: merged reads, writes, fsyncs = the calls strace saw" "$r $w $f" "$SR $SW $SF"
all_true "shared rndrw: every rank did I/O on the set in DIR" '$1 > 0 && $2 > 0 && $3 == "false"' \
	$(json_get "$TMP/sh2.json" result.ranks.{0,1}.ops result.mpi.file_per_rank)

mkdir -p "$TMP/seq"
strace -ff -qq -y -s 0 -e trace=pread64 -o "$TMP/seq/tr" "${MPI[@]}" -np 3 "$SBIO" run "${SET[@]}" \
	--file-test-mode=seqrd --threads=2 --events=600 >"$TMP/out" 2>"$TMP/err"
eq "3 ranks on one shared set, seqrd --events=600: exit status" "$?" 0
# 16 MiB = 1024 blocks of 16 KiB, 6 threads: slices of 170 blocks, 100 reads each — no block
# twice when every rank (and thread) walks a slice of its own. (One trace file per thread:
# no call is split across lines.)
cat "$TMP"/seq/tr.* | sed -nE 's/^pread64\([0-9]+<[^>]*\/(test_file\.[0-9]+)>, [^,]*, [0-9]+, ([0-9]+)\).*/\1 \2/p' >"$TMP/seq.blocks"
eq "shared seqrd: 600 preads, 600 different blocks (each rank its own slice)" \
	"$(wc -l <"$TMP/seq.blocks") $(sort -u "$TMP/seq.blocks" | wc -l)" "600 600"
check "shared seqrd: the header says each thread walks its own slice" grep -q 'Sequential stream: one slice of the set per thread' "$TMP/out"
# --random-order=once on a shared set: the ranks share one pass (each thread its own blocks),
# so 1024 reads over 1024 blocks, 512 by each rank's thread, read each block once.
mkdir -p "$TMP/once"
strace -ff -qq -y -s 0 -e trace=pread64 -o "$TMP/once/tr" "${MPI[@]}" -np 2 "$SBIO" run "${SET[@]}" \
	--file-test-mode=rndrd --threads=1 --random-order=once --events=1024 >"$TMP/out" 2>"$TMP/err"
eq "2 ranks on one shared set, rndrd --random-order=once --events=1024: exit status" "$?" 0
cat "$TMP"/once/tr.* | sed -nE 's/^pread64\([0-9]+<[^>]*\/(test_file\.[0-9]+)>, [^,]*, [0-9]+, ([0-9]+)\).*/\1 \2/p' >"$TMP/once.blocks"
eq "shared rndrd --random-order=once: 1024 preads, 1024 different blocks" \
	"$(wc -l <"$TMP/once.blocks") $(sort -u "$TMP/once.blocks" | wc -l)" "1024 1024"

expect_exit 2 "seqwr on a shared set: refused (exit 2)" "${MPI[@]}" -np 2 "$SBIO" run "${SET[@]}" --file-test-mode=seqwr --time=1
check "seqwr on a shared set: the message says what to use instead" grep -q 'seqwr on a set shared by 2 ranks.*--file-per-rank' "$TMP/err"
eq "seqwr on a shared set: said once, by rank 0" "$(grep -c 'seqwr on a set shared' "$TMP/err")" 1
# A set one seqwr run left short: ranks sharing it would complete it side by side: refused,
# said once, the set left as it was; prepare completes it.
"$SBIO" run "${SET[@]}" --file-test-mode=seqwr --events=10 >/dev/null 2>&1
expect_exit 2 "a short set shared by 2 ranks: refused (exit 2)" "${MPI[@]}" -np 2 "$SBIO" run "${SET[@]}" --file-test-mode=rndrd --time=1
eq "a short set shared by 2 ranks: said once, by rank 0, with what to do" \
	"$(grep -c 'left short by a seqwr run and is shared by 2 ranks: complete it first with sbio prepare' "$TMP/err") $(grep '^state=' "$D/sbio.manifest")" \
	"1 state=incomplete"
expect_exit 0 "a short set shared by ranks: prepare completes it" "$SBIO" prepare "${SET[@]}"
expect_exit 2 "--warmup=auto under 2 ranks: refused (exit 2)" "${MPI[@]}" -np 2 "$SBIO" run "${SET[@]}" --file-test-mode=rndrd --warmup=auto --time=1
eq "--warmup=auto under 2 ranks: said once, by rank 0" "$(grep -c 'warmup=auto under mpirun (2 ranks)' "$TMP/err")" 1
# An MPMD launch with other options per rank ran and was merged as one workload ("2 threads
# in all" for 1 + 2): refused.
expect_exit 2 "MPMD launch, --threads=1 : --threads=2: refused (exit 2)" "${MPI[@]}" \
	-np 1 "$SBIO" run "${SET[@]}" --file-test-mode=rndrd --events=100 --threads=1 : \
	-np 1 "$SBIO" run "${SET[@]}" --file-test-mode=rndrd --events=100 --threads=2
check "MPMD launch: rank 1 says its command line differs from rank 0's" \
	grep -q "^sbio: rank 1's command line differs from rank 0's; accepted: the same command line on every rank" "$TMP/err"
check "MPMD launch: no run began" test "$(grep -c 'Threads started' "$TMP/out")" = 0

"${MPI[@]}" -np 2 "$SBIO" cleanup "${SET[@]}" >"$TMP/out" 2>"$TMP/err"
eq "2 ranks, shared cleanup: exit status, the set gone" "$?/$(ls "$D" | wc -l)" "0/0"

# --- a rank that fails ---
"${MPI[@]}" -np 2 "$SBIO" prepare "${SET[@]}" --file-per-rank >/dev/null 2>&1
if need_root && mount --bind "$D/rank.1" "$D/rank.1" 2>/dev/null; then
	BIND=$D/rank.1
	mount -o remount,bind,ro "$BIND"
	start=$(date +%s%N)
	expect_exit 2 "rank 1's folder read-only: the run stops with a usage error" \
		"${MPI[@]}" -np 2 "$SBIO" run "${SET[@]}" --file-per-rank --file-test-mode=rndwr --time=30
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$ms" -lt 15000 ] && ok "read-only rank: every rank ended within ${ms} ms (of --time=30)" ||
		notok "read-only rank: every rank ended within 15 s (took $ms ms)"
	check "read-only rank: its message names its folder" grep -q "$D/rank.1 is on a read-only file system" "$TMP/err"
	check "read-only rank: rank 0 says which rank stopped the run" grep -q 'rank 1 of 2 refused the run' "$TMP/err"
	check "read-only rank: no rank ran (no report)" bash -c "! grep -q '^File operations:' '$TMP/out'"
	umount "$BIND" && BIND=
else
	skip "read-only rank: needs root for a read-only bind mount"
fi
if [ -f "$SBIO_TOOLS/failwrite.so" ]; then
	# Rank 1's disk dies mid-run: from its 20000th pwrite on its own files every pwrite fails
	# with EIO (tests/tools/failwrite.so; libfiu's fiu-run deadlocks inside MPI_Init, see
	# there); rank 0's never fail: rank 0 must stop as soon as it hears of it, not at
	# --time=30.
	AFTER=20000
	A=(run "${SET[@]}" --file-per-rank --file-test-mode=rndwr --threads=2 --time=30 -o "$TMP/fail.json")
	start=$(date +%s%N)
	timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe -np 1 "$SBIO" "${A[@]}" : \
		-np 1 env LD_PRELOAD="$SBIO_TOOLS/failwrite.so" FAILWRITE_MATCH="$(realpath "$D")/rank.1/test_file." \
		FAILWRITE_AFTER=$AFTER "$SBIO" "${A[@]}" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	eq "rank 1's pwrite fails mid-run: exit status 1" "$rc" 1
	check "mid-run failure: rank 0 prints rank 1's message" grep -q 'sbio: rank 1 ([^)]*): .*rank\.1/test_file\.[0-9]: pwrite at offset [0-9]*: Input/output error' "$TMP/err"
	check "mid-run failure: the merged report says so" grep -q '^\*\*\* Stopped by an I/O error: rank 1 ' "$TMP/out"
	[ "$ms" -lt 15000 ] && ok "mid-run failure: mpirun ended within ${ms} ms (of --time=30)" ||
		notok "mid-run failure: mpirun ended within 15 s (took $ms ms)"
	all_true "mid-run failure: rank 0 stopped within 3 s of rank 1" '$1 - $2 < 3' \
		$(json_get "$TMP/fail.json" result.ranks.{0,1}.elapsed_s)
	check "mid-run failure: rank 1's error is in the result" \
		test "$(json_get "$TMP/fail.json" result.ranks.1.error)" != null
	read -r bw bs e0 < <(json_get "$TMP/fail.json" result.ranks.1.bytes_written config.block_size_bytes \
		result.ranks.0.error | paste -sd ' ')
	eq "mid-run failure: rank 1 wrote exactly the $((AFTER - 1)) blocks its disk took; rank 0 no error" \
		"$((bw / bs)) $e0" "$((AFTER - 1)) null"
	# The same in prepare: rank 1's third pwrite fails; rank 0, with 512 MiB to write, stops at
	# its next 1 MiB write instead of finishing its set.
	PD=$TMP/pset
	mkdir -p "$PD"
	P=(prepare --dir="$PD" --file-per-rank --file-num=2 --file-total-size=512M)
	timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe -np 1 "$SBIO" "${P[@]}" : \
		-np 1 env LD_PRELOAD="$SBIO_TOOLS/failwrite.so" FAILWRITE_MATCH="$(realpath "$PD")/rank.1/test_file." \
		FAILWRITE_AFTER=3 "$SBIO" "${P[@]}" >"$TMP/out" 2>"$TMP/err"
	eq "prepare, rank 1's pwrite fails: exit status 1" "$?" 1
	check "prepare failure: rank 1's message" grep -q "rank\.1/test_file\.0: pwrite at offset 2097152: Input/output error" "$TMP/err"
	check "prepare failure: rank 0 says it stopped and its set is incomplete" \
		grep -q "prepare stopped because another rank stopped (it failed or was interrupted): the set in $PD/rank.0 is incomplete" "$TMP/err"
	check "prepare failure: rank 0 names rank 1" grep -q "rank 1 of 2 failed to prepare its set" "$TMP/err"
	b=$(cat "$PD"/rank.0/test_file.* 2>/dev/null | wc -c)
	[ "$b" -lt $((64 << 20)) ] && ok "prepare failure: rank 0 stopped after $((b >> 20)) MiB of its 512" ||
		notok "prepare failure: rank 0 went on to write $((b >> 20)) MiB of its 512 (want < 64)"
	rm -rf "$PD"
else
	notok "mid-run failure: $SBIO_TOOLS/failwrite.so not built (make test builds it)"
fi

# --- SIGINT to mpirun ---
# mpirun itself (not under timeout) gets the signal, as from a terminal.
# sigint_mpirun PATTERN SETTLE DESC CMD…: start CMD (an mpirun) in the background, its
# output in $TMP/int.out and int.err; once PATTERN is in the output and SETTLE seconds more
# have passed, SIGINT it: it must end within 5 s.
sigint_mpirun() {
	local pattern=$1 settle=$2 desc=$3 n=100 start ms rc
	shift 3
	"$@" >"$TMP/int.out" 2>"$TMP/int.err" &
	BG=$!
	PIDS+=("$BG")
	while ! grep -qs "$pattern" "$TMP/int.out" && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	sleep "$settle"
	start=$(date +%s%N)
	kill -INT "$BG"
	n=100
	while kill -0 "$BG" 2>/dev/null && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	ms=$((($(date +%s%N) - start) / 1000000))
	wait "$BG"
	rc=$?
	[ "$ms" -lt 5000 ] && ok "$desc: it ended within ${ms} ms (exit $rc)" ||
		notok "$desc: it ended within 5 s (took $ms ms)"
}
sigint_mpirun 'Threads started!' 0.5 "SIGINT to mpirun" \
	mpirun --allow-run-as-root --oversubscribe -np 2 "$SBIO" run "${SET[@]}" --file-per-rank \
	--file-test-mode=rndrw --threads=2 --time=30
left=$(pgrep -f -- "--dir=$D " | wc -l)
eq "SIGINT to mpirun: no rank left running" "$left" 0
check "SIGINT to mpirun: rank 0's report, marked interrupted, was printed" \
	grep -q '^\*\*\* Interrupted by SIGTERM after' "$TMP/int.out"
eq "SIGINT to mpirun: the report covers both ranks" "$(sed -n '/^Per rank/,/^$/p' "$TMP/int.out" | grep -cE '^ +[0-9]+ ')" 2

# --- scripts under mpirun ---
# A two-phase script, two jobs a phase: a mix of readers beside a sequential writer, then a
# random-read mode beside a random-write mode (fsync at its end). Its block option comes from
# the environment, so that one rank alone can be given a bad one (os.getenv: a trusted
# script's); report() prints once.
SC=$TMP/two.lua
cat >"$SC" <<'LUA'
option("events", 1200, "events of each phase")
option("block", os.getenv("SBIO_TEST_BLOCK") or "4k", "the readers' block")
option("time", 0, "seconds of each phase (0: until its events)")
fileset { files = 2, size = "8M" }
phase "mixed" {
    events = options.events, time = options.time,
    job "readers" { threads = 2, block = options.block, mix = { read = 1 }, pattern = "uniform" },
    job "writer" { threads = 1, block = "16k", mix = { write = 1 }, pattern = "seq" },
}
phase "modes" {
    events = options.events, time = options.time,
    job "rr" { threads = 1, mode = "rndrd", block = "4k" },
    job "rw" { threads = 2, mode = "rndwr", block = "4k" },
}
function report(result)
    local n = 0
    for _, p in ipairs(result.phases) do
        for _, j in ipairs(p.jobs) do n = n + #j.result.result.ranks end
    end
    print("report(): " .. #result.phases .. " phases, " .. n .. " rank results")
end
LUA
SD=$TMP/sset
mkdir -p "$SD"
SS=(--script="$SC" --script-trusted --dir="$SD")
# script_sums FILE: reads writes fsyncs of every job of every phase, summed (the merged
# figures); then "ok" when each job's and each total's per-rank ops add up to its ops and
# the jobs' events to the phase's, else what does not.
script_sums() {
	json_py "$1" '
rs, ws, fs, bad = 0, 0, 0, []
for p in d["phases"]:
    for j in p["jobs"]:
        r = j["result"]["result"]
        o = r["op_types"]
        rs += o.get("read", {}).get("ops", 0)
        ws += o.get("write", {}).get("ops", 0)
        fs += o.get("fsync", {}).get("ops", 0)
    for name, r in [(j["name"], j["result"]["result"]) for j in p["jobs"]] + [("total", p["total"]["result"])]:
        if sum(x["ops"] for x in r["ranks"]) != r["ops"]:
            bad.append(p["name"] + "/" + name + ": ranks do not add up")
    if sum(j["result"]["result"]["events"] for j in p["jobs"]) != p["total"]["result"]["events"]:
        bad.append(p["name"] + ": events")
print(rs, ws, fs, "ok" if not bad else ";".join(bad))'
}
for np in 2 3; do
	for fpr in "" --file-per-rank; do
		name="script, $np ranks${fpr:+, $fpr}"
		"${MPI[@]}" -np "$np" "$SBIO" prepare "${SS[@]}" $fpr >"$TMP/out" 2>"$TMP/err"
		strace_mpi "script$np$fpr" "$np" run "${SS[@]}" $fpr -o "$TMP/s.json"
		eq "$name: exit status" "$RC" 0
		read -r r w f verdict < <(script_sums "$TMP/s.json")
		eq "$name: merged reads, writes, fsyncs of every job = pread64, pwrite64, fsync calls over the whole mpirun" \
			"$r $w $f" "$SR $SW $SF"
		eq "$name: every job's and total's per-rank ops add up; the jobs' events make the phase's" "$verdict" ok
		json_expect "$name: a phase's 1200 events split over its jobs by threads, each job's over the ranks" "$TMP/s.json" "
n = $np
for p in d['phases']:
    for j in p['jobs']:
        r = j['result']['result']
        share = [x['events'] for x in r['ranks']]
        if len(share) != n or sum(share) != r['events'] or max(share) - min(share) > 1:
            print(p['name'], j['name'], r['events'], share)
    if p['total']['result']['events'] != 1200: print(p['name'], p['total']['result']['events'])"
		eq "$name: rank 0 alone prints: one report() line, a per-rank table of $np rows under each of the 6 reports" \
			"$(grep -c '^report(): 2 phases, '$((4 * np))' rank results' "$TMP/out") $(sed -n '/^Per rank/,/^$/p' "$TMP/out" | grep -cE '^ +[0-9]+ ')" \
			"1 $((6 * np))"
	done
done
check "script under mpirun: the header says how the ranks share the work" \
	grep -q "^MPI: 3 ranks on 1 host, each running every job's threads; each rank its own file set in DIR/rank.N" "$TMP/out"
check "script under mpirun: a job's header counts its threads per rank" \
	grep -q -- "^--- Job readers (2 threads on each of 3 ranks, sync) ---" "$TMP/out"

# A job's share of a phase's events that leaves a rank none: refused before anything runs.
"${MPI[@]}" -np 3 "$SBIO" run "${SS[@]}" --events=4 >"$TMP/out" 2>"$TMP/err"
eq "script, 3 ranks, --events=4 (the readers' share 2): exit status 2" "$?" 2
check "script, events that leave a rank none: the message names the phase, the job and what is accepted" \
	grep -q 'phase "mixed", job "readers": its share of the phase.s events, 2 over 3 ranks leaves some ranks none; accepted: at least 3 (one per rank)$' "$TMP/err"

# A script error on rank 1 only (its block option from its environment): every rank stops
# at once, exit 2, with rank 1's message and rank 0 naming it; nothing runs.
start=$(date +%s%N)
timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe -np 1 "$SBIO" run "${SS[@]}" : \
	-np 1 env SBIO_TEST_BLOCK=4q "$SBIO" run "${SS[@]}" >"$TMP/out" 2>"$TMP/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
eq "script error on rank 1 only: exit status 2" "$rc" 2
check "script error on rank 1 only: rank 1's message (the script's line and the bad value)" \
	grep -q "two.lua.*4q" "$TMP/err"
check "script error on rank 1 only: rank 0 names rank 1" \
	grep -q "rank 1 of 2 refused the command line (its message above); every rank stopped" "$TMP/err"
check "script error on rank 1 only: nothing ran (no phase started)" bash -c "! grep -q '^=== Phase' '$TMP/out'"
[ "$ms" -lt 10000 ] && ok "script error on rank 1 only: mpirun ended within ${ms} ms" ||
	notok "script error on rank 1 only: mpirun ended within 10 s (took $ms ms)"

# Rank 1's disk dies in the middle of the first phase: every job of every rank stops.
if [ -f "$SBIO_TOOLS/failwrite.so" ]; then
	A=(run "${SS[@]}" --file-per-rank --events=0 --time=30 -o "$TMP/sfail.json")
	start=$(date +%s%N)
	timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe -np 1 "$SBIO" "${A[@]}" : \
		-np 1 env LD_PRELOAD="$SBIO_TOOLS/failwrite.so" FAILWRITE_MATCH="$(realpath "$SD")/rank.1/test_file." \
		FAILWRITE_AFTER=2000 "$SBIO" "${A[@]}" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	eq "script, rank 1's pwrite fails mid-phase: exit status 1" "$rc" 1
	[ "$ms" -lt 15000 ] && ok "script, mid-phase failure: mpirun ended within ${ms} ms (of a 30 s phase)" ||
		notok "script, mid-phase failure: mpirun ended within 15 s (took $ms ms)"
	check "script, mid-phase failure: rank 1's message in the writer's report" \
		grep -q 'rank 1 ([^)]*): .*rank\.1/test_file\.[0-9]: pwrite at offset [0-9]*: Input/output error' "$TMP/err"
	# (a failed job does not stop the script: the next phase runs, as without mpirun)
	json_expect "script, mid-phase failure: both jobs of both ranks stopped within 3 s of each other" "$TMP/sfail.json" "
p = d['phases']
t = [x['elapsed_s'] for j in p[0]['jobs'] for x in j['result']['result']['ranks']]
if max(t) - min(t) > 3 or max(t) > 15: print(t)"
else
	notok "script mid-phase failure: $SBIO_TOOLS/failwrite.so not built (make test builds it)"
fi

# SIGINT to mpirun in the middle of a script's first phase: every rank stops promptly, the
# second phase never starts, rank 0's report says so.
sigint_mpirun '^=== Phase 1/2' 1 "script, SIGINT to mpirun" \
	mpirun --allow-run-as-root --oversubscribe -np 2 "$SBIO" run "${SS[@]}" --file-per-rank \
	--events=0 --time=30
eq "script, SIGINT to mpirun: no rank left running" "$(pgrep -f -- "--dir=$SD" | wc -l)" 0
check "script, SIGINT to mpirun: rank 0's report of the first phase, marked interrupted" \
	grep -q '^\*\*\* Interrupted by SIGTERM after' "$TMP/int.out"
check "script, SIGINT to mpirun: the second phase never started" bash -c "! grep -q '^=== Phase 2/2' '$TMP/int.out'"

# compare --script under mpirun: each run of each setting merged from both ranks, per job.
"${MPI[@]}" -np 2 "$SBIO" compare "${SS[@]}" --file-per-rank --vary events=600,1200 --repeat=2 \
	--drop-caches=off -o "$TMP/scmp.json" >"$TMP/out" 2>"$TMP/err"
eq "compare --script under mpirun: exit status" "$?" 0
json_expect "compare --script under mpirun: every run's every job has both ranks, its events the setting's share" "$TMP/scmp.json" "
for s in d['settings']:
    if len(s['runs']) != 2: print(s['name'], len(s['runs']), 'runs')
    ev = int(s['name'].split('=')[1])
    for run in s['runs']:
        for p in run['result']['phases']:
            if p['total']['result']['events'] != ev: print(s['name'], p['name'], p['total']['result']['events'])
            for j in p['jobs']:
                if len(j['result']['result']['ranks']) != 2: print(s['name'], p['name'], j['name'])"
eq "compare --script under mpirun: a table per job (rank 0's alone)" "$(grep -c '^Job ' "$TMP/out")" 4
"${MPI[@]}" -np 2 "$SBIO" cleanup "${SS[@]}" --file-per-rank >/dev/null 2>&1
"${MPI[@]}" -np 2 "$SBIO" cleanup "${SS[@]}" >/dev/null 2>&1

# --- compare on a loop device, 2 ranks ---
if ! need_root; then
	skip "compare under MPI: needs root (loop device, scheduler)"
	exit 0
fi
loop_ext4 128M "$MNT"
Q=/sys/block/$LOOP/queue
CD=$MNT/set
mkdir -p "$CD"
CSET=(--dir="$CD" --file-num=4 --file-total-size=8M --file-per-rank)
"${MPI[@]}" -np 2 "$SBIO" prepare "${CSET[@]}" >/dev/null 2>&1
before=$(queue_snap)
cur=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$Q/scheduler")
other=mq-deadline
[ "$cur" = mq-deadline ] && other=none
( while :; do sed -n 's/.*\[\(.*\)\].*/\1/p' "$Q/scheduler"; sleep 0.05; done ) >"$TMP/samples" &
SAMPLER=$!
PIDS+=("$SAMPLER")
strace -f -qq -e trace=openat -o "$TMP/cmp.trace" "${MPI[@]}" -np 2 "$SBIO" compare "${CSET[@]}" \
	--file-test-mode=rndrd --time=1 --schedulers="$other,$cur" -o "$TMP/cmp.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
kill "$SAMPLER"
eq "2-rank compare --schedulers=$other,$cur on /dev/$LOOP: exit status" "$rc" 0
eq "compare: the scheduler sampled from sysfs during the compare took both values" \
	"$(sort -u "$TMP/samples" | grep -cxE "$other|$cur")" 2
eq "compare: one process switched the scheduler (writes to queue/scheduler by distinct pids)" \
	"$(grep 'queue/scheduler", O_WRONLY' "$TMP/cmp.trace" | awk '{print $1}' | sort -u | wc -l)" 1
eq "compare: both ranks' runs happened under each scheduler (as each rank read it when its run started)" \
	"$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
out = []
for s in d['settings']:
    for run in s['runs']:
        rk = run['result']['result']['ranks']
        out.append(s['values']['scheduler'] + ':' + ','.join(x['scheduler'] for x in rk) + ':' + str(sum(x['host_leader'] for x in rk)))
print(' '.join(out))" "$TMP/cmp.json")" "$other:$other,$other:1 $cur:$cur,$cur:1"
same=$(queue_snap)
if [ "$same" = "$before" ]; then ok "compare: every queue setting restored"; else notok "compare: every queue setting restored (changed: $(diff <(echo "$before") <(echo "$same") | grep '^[<>]' | tr '\n' '|'))"; fi
# (the lock file stays, as after any run; the state file says a restore is owed)
[ -e "$SBIO_STATE_DIR/$LOOP.state" ] && notok "compare: no state file left ($SBIO_STATE_DIR/$LOOP.state)" ||
	ok "compare: no state file left"
# --repeat=auto: the ranks agree after each round on which settings go on (rank 0 decides);
# a setting stops at 3 runs when settled, else at --max-repeat's 4.
"${MPI[@]}" -np 2 "$SBIO" compare "${CSET[@]}" --file-test-mode=rndrd --time=1 --rate=2000 \
	--schedulers="$other,$cur" --repeat=auto --target-ci=30 --max-repeat=4 --metrics=ops \
	-o "$TMP/auto.json" >"$TMP/out" 2>"$TMP/err"
eq "2-rank compare --repeat=auto: exit status" "$?" 0
eq "2-rank compare --repeat=auto: one line per setting after the table (rank 0's alone)" \
	"$(grep -c '^  scheduler=.*: [34] runs, ' "$TMP/out")" 2
eq "2-rank compare --repeat=auto: each setting stopped by the target at 3 runs or at the cap at 4, every run merged from both ranks" \
	"$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for s in d['settings']:
    n, why = len(s['runs']), s['stop']['reason']
    ranks = {len(r['result']['result']['ranks']) for r in s['runs']}
    if (n, why) not in ((3, 'target'), (4, 'target'), (4, 'max-repeat')) or ranks != {2}: print(s['name'], n, why, ranks)" "$TMP/auto.json")" ""

# A script another rank refuses after this rank applied the settings: rank 1's set is not
# the one the script declares (--file-per-rank: a set of other sizes in rank.1, which passes
# the command's checks and is refused when the set is opened), rank 0 opened its own and
# switched the scheduler before the ranks agreed; the refusal puts it back at once (nothing
# left to the next command's recovery).
RD=$MNT/refuse
mkdir -p "$RD"
cat >"$TMP/refuse.lua" <<'LUA'
fileset { files = 2, size = "1M" }
phase "p" { events = 20, job "r" { mode = "rndrd" } }
LUA
RS=(--script="$TMP/refuse.lua" --dir="$RD" --file-per-rank)
"${MPI[@]}" -np 2 "$SBIO" prepare "${RS[@]}" >/dev/null 2>&1
rm -r "$RD/rank.1"
mkdir "$RD/rank.1"
"$SBIO" prepare --dir="$RD/rank.1" --file-num=2 --file-total-size=4M >/dev/null 2>&1
before=$(queue_snap)
"${MPI[@]}" -np 2 "$SBIO" run "${RS[@]}" --scheduler="$other" >"$TMP/out" 2>"$TMP/err"
eq "script refused by rank 1 after rank 0 applied --scheduler: exit status 2" "$?" 2
check "script refused by rank 1: its set is not the one declared" grep -q 'declares 2 files, 1 MiB, but the set in .*rank\.1 has 2 files, 4 MiB' "$TMP/err"
same=$(queue_snap)
if [ "$same" = "$before" ]; then ok "script refused by another rank: the scheduler put back at once"; else notok "script refused by another rank: the scheduler put back at once (changed: $(diff <(echo "$before") <(echo "$same") | grep '^[<>]' | tr '\n' '|'))"; fi
[ -e "$SBIO_STATE_DIR/$LOOP.state" ] && notok "script refused by another rank: no state file left" ||
	ok "script refused by another rank: no state file left"
