#!/bin/bash
# One set, several sbio processes: prepare, cleanup, compare and a run that writes take the
# set's folder alone (an flock on the folder itself); runs that only read may overlap. The
# second process refuses with one line naming the holder (its pid and command line), exit 1,
# and touches nothing: no cleanup under a run, no set marked complete with files missing.
source "$(dirname "$0")/lib.sh"
trap 'kill_pids; t_cleanup' EXIT
D=$TMP/set
mkdir -p "$D"
SET="--dir=$D --file-num=4 --file-total-size=16M"
expect_exit 0 "prepare" "$SBIO" prepare $SET
sums() { (cd "$D" && sha256sum sbio.manifest test_file.* 2>&1); }
# start_reader: a reader holding the set for 60 s in the background, its pid in $reader, once
# its threads run (it is stopped by SIGINT when the checks are done).
start_reader() {
	"$SBIO" run $SET --file-test-mode=rndrd --time=60 >"$TMP/reader" 2>&1 &
	reader=$!
	PIDS+=("$reader")
	for _ in $(seq 300); do
		grep -q 'Threads started' "$TMP/reader" && break
		sleep 0.1
	done
}

# A reader holds the set for 60 s (stopped by SIGINT once the checks are done).
start_reader
before=$(sums)
for c in "cleanup" "prepare --file-num=4 --file-total-size=16M" \
	"run --file-test-mode=rndwr --events=100" "run --file-test-mode=seqwr --events=100" \
	"compare --file-test-mode=rndrd --time=1 --vary=threads=1,2"; do
	expect_exit 1 "$c during a run: refused" "$SBIO" $c --dir="$D"
	stderr_one_line "$c during a run: one line"
	check "$c during a run: the line names the run's pid and command" \
		grep -q "is in use (pid $reader: .*sbio[^ ]* run --dir=$D .*--file-test-mode=rndrd" "$TMP/err"
	check "$c during a run: nothing on stdout" test ! -s "$TMP/out"
	eq "$c during a run: the set untouched" "$(sums)" "$before"
done
expect_exit 0 "a second reader runs beside the first" "$SBIO" run $SET --file-test-mode=rndrd --events=200
expect_exit 0 "a --verify reader too" "$SBIO" run $SET --file-test-mode=seqrd --events=200 --verify
kill -INT "$reader"
wait "$reader"
eq "the first reader ends as interrupted (130)" "$?" "130"
expect_exit 0 "with the reader gone, rndwr runs" "$SBIO" run $SET --file-test-mode=rndwr --events=100

# Another program's lock on the folder (flock(1) here, which holds it itself: -o) is named too.
flock -o -x "$D" sleep 60 &
holder=$!
PIDS+=("$holder")
for _ in $(seq 100); do
	grep -q "FLOCK .* $holder " /proc/locks && break
	sleep 0.1
done
expect_exit 1 "cleanup while flock(1) holds the folder: refused" "$SBIO" cleanup --dir="$D"
check "its line names flock's pid and command" grep -q "(pid $holder: flock -o -x $D sleep 60)" "$TMP/err"
pkill -P "$holder" sleep
wait "$holder" 2>/dev/null || true

# A set a seqwr run left short: a run that only reads writes the rest first, so it takes the
# set alone; beside a reader (a shared flock here) it refuses and touches nothing, and alone
# it completes the set.
expect_exit 0 "seqwr of 100 events: leaves the set short" "$SBIO" run $SET --file-test-mode=seqwr --events=100
check "the manifest marks it short" grep -qx 'short=seqwr' "$D/sbio.manifest"
flock -o -s "$D" sleep 60 &
holder=$!
PIDS+=("$holder")
for _ in $(seq 100); do
	grep -q "FLOCK .* $holder " /proc/locks && break
	sleep 0.1
done
before=$(sums)
expect_exit 1 "a reader on the short set beside another reader: refused" "$SBIO" run $SET --file-test-mode=rndrd --events=100
check "its line names the other reader" grep -q "is in use (pid $holder: flock -o -s $D sleep 60)" "$TMP/err"
eq "the short set untouched" "$(sums)" "$before"
pkill -P "$holder" sleep
wait "$holder" 2>/dev/null || true
expect_exit 0 "alone, the reader completes the set and runs" "$SBIO" run $SET --file-test-mode=rndrd --events=100
eq "the manifest says complete" "$(grep '^state=' "$D/sbio.manifest")" "state=complete"

# prepare and cleanup at the same time, three times: each either does its work or refuses;
# the folder ends with a whole set (manifest complete, every file of its size) or none at all.
whole_or_none() {
	if [ ! -e "$D/sbio.manifest" ]; then
		[ -z "$(ls "$D")" ]
		return
	fi
	grep -qx 'state=complete' "$D/sbio.manifest" || return 1
	local i
	for i in 0 1 2 3; do
		[ "$(stat -c %s "$D/test_file.$i" 2>/dev/null)" = 4194304 ] || return 1
	done
}
for try in 1 2 3; do
	"$SBIO" prepare $SET >"$TMP/p.out" 2>"$TMP/p.err" &
	p=$!
	"$SBIO" cleanup --dir="$D" >"$TMP/c.out" 2>"$TMP/c.err"
	crc=$?
	wait "$p"
	prc=$?
	check "try $try: prepare & cleanup: each exit 0 or 1 (got $prc, $crc)" \
		test "$prc" -le 1 -a "$crc" -le 1
	check "try $try: a refusal says the folder is in use" \
		sh -c "[ $prc = 0 ] || grep -q 'is in use (' '$TMP/p.err'; [ $crc = 0 ] || grep -q 'is in use (' '$TMP/c.err'"
	check "try $try: a whole set or none (manifest: $(grep state= "$D/sbio.manifest" 2>/dev/null); files: $(ls "$D" | tr '\n' ' '))" whole_or_none
	"$SBIO" prepare $SET >/dev/null 2>&1
done
# Two prepares at once: one prepares, the other refuses or finds the set done.
"$SBIO" cleanup --dir="$D" >/dev/null
"$SBIO" prepare $SET >"$TMP/p1.out" 2>"$TMP/p1.err" &
p=$!
"$SBIO" prepare $SET >"$TMP/p2.out" 2>"$TMP/p2.err"
rc2=$?
wait "$p"
rc1=$?
check "two prepares: each exit 0 or 1 (got $rc1, $rc2)" test "$rc1" -le 1 -a "$rc2" -le 1
check "two prepares: no manifest error" sh -c "! grep -q manifest '$TMP/p1.err' '$TMP/p2.err'"
check "two prepares: the set is whole" whole_or_none
check "two prepares: the set is there" test -e "$D/sbio.manifest"

# --- under mpirun: the ranks of one job never lock each other out ---
if ! "$SBIO" version | grep -q '(MPI: ' || ! command -v mpirun >/dev/null; then
	skip "no MPI build or no mpirun: the ranks' lock (tests/integration/mpi.sh says why)"
	exit 0
fi
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
MPI=(timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe)
expect_exit 0 "mpirun -np 2 rndwr on the set both ranks share" "${MPI[@]}" -np 2 "$SBIO" run \
	$SET --file-test-mode=rndwr --events=400
expect_exit 0 "mpirun -np 2 compare on the shared set" "${MPI[@]}" -np 2 "$SBIO" compare \
	$SET --file-test-mode=rndrd --events=200 --vary=threads=1,2 --drop-caches=off
R=$TMP/ranks
mkdir -p "$R"
expect_exit 0 "mpirun -np 2 prepare --file-per-rank" "${MPI[@]}" -np 2 "$SBIO" prepare \
	--dir="$R" --file-per-rank --file-num=2 --file-total-size=4M
expect_exit 0 "mpirun -np 2 seqwr --file-per-rank (each rank its own folder, locked alone)" \
	"${MPI[@]}" -np 2 "$SBIO" run --dir="$R" --file-per-rank --file-num=2 --file-total-size=4M \
	--file-test-mode=seqwr --events=200
expect_exit 0 "mpirun -np 2 cleanup --file-per-rank" "${MPI[@]}" -np 2 "$SBIO" cleanup \
	--dir="$R" --file-per-rank
# A shared set in use by another command: every rank stops, none goes on alone.
start_reader
expect_exit 1 "mpirun -np 2 rndwr while a reader holds the set: refused" "${MPI[@]}" -np 2 \
	"$SBIO" run $SET --file-test-mode=rndwr --events=400
check "the refusal names the reader" grep -q "is in use (pid $reader: " "$TMP/err"
expect_exit 0 "mpirun -np 2 rndrd beside the reader" "${MPI[@]}" -np 2 "$SBIO" run $SET \
	--file-test-mode=rndrd --events=400
kill -INT "$reader"
wait "$reader"
eq "the reader beside the ranks, stopped by SIGINT: exit 130" "$?" 130
exit 0
