#!/bin/bash
# Every row of doc/sysbench.md's tables is a difference between sysbench fileio and sbio (or
# a sameness the page states); this test keeps the page true. Each row is named in ROWS
# below with the check that shows it: a function here that runs sysbench 1.0.20 and sbio
# side by side, each in its own folder, and fails when sbio no longer behaves as the row
# says or when sysbench now behaves as sbio does (a stale row); or a check of
# tests/integration/sysbench_suite.sh or tests/sysbench/oneliners.txt that already runs that
# demonstration, whose presence is checked here. A row of the page that ROWS does not name,
# a row without a name, an entry of ROWS whose row is gone and a check that prints no result
# fail too; SYSBENCH_DOC=FILE checks another copy of the page (to see those failures).
source "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
DOC=${SYSBENCH_DOC:-$HERE/../../doc/sysbench.md} # another page: to see this test fail on it
SUITE=$HERE/sysbench_suite.sh
CORPUS=$HERE/../sysbench/oneliners.txt
if ! command -v sysbench >/dev/null; then
	skip "sysbench is not installed (make test installs it)"
	exit 0
fi
echo "# $(sysbench --version) beside sbio"
trap 'kill_pids; t_cleanup' EXIT
# Every check of a row prints at least one result: ok and notok count them (RESULTS).
RESULTS=0
ok() {
	RESULTS=$((RESULTS + 1))
	echo "ok - $T: $1"
}
notok() {
	RESULTS=$((RESULTS + 1))
	echo "not ok - $T: $1"
}

P=(--file-num=2 --file-total-size=8M)

# folders DIR: the folders $TMP/DIR.sy (sysbench's) and $TMP/DIR.sb (sbio's), made empty.
folders() {
	D=$1
	rm -rf "$TMP/$D.sy" "$TMP/$D.sb"
	mkdir -p "$TMP/$D.sy" "$TMP/$D.sb"
}
# sy ARGS…, sb ARGS…: `sysbench fileio ARGS…` in $TMP/$D.sy, `sbio ARGS…` in $TMP/$D.sb; the
# output (stdout and stderr) in $TMP/out.sy, $TMP/out.sb, the exit code in SY_RC, SB_RC. With
# TRACE set (strace's -e trace= list), traced into $TMP/tr.sy, $TMP/tr.sb.
tool() { # WHO PROGRAM…
	local who=$1
	shift
	if [ -n "${TRACE:-}" ]; then
		(cd "$TMP/$D.$who" && strace -f -qq -y -e trace="$TRACE" -o "$TMP/tr.$who" "$@" >"$TMP/out.$who" 2>&1)
	else
		(cd "$TMP/$D.$who" && "$@" >"$TMP/out.$who" 2>&1)
	fi
}
sy() {
	tool sy sysbench fileio "$@"
	SY_RC=$?
}
sb() {
	tool sb "$SBIO" "$@"
	SB_RC=$?
}
both() {
	sy "$@"
	sb "$@"
}
# says WHO DESC PATTERN: the last output of sysbench (sy) or sbio (sb) matches PATTERN.
says() {
	if grep -qE -- "$3" "$TMP/out.$1"; then ok "$2"; else
		notok "$2 (no /$3/ in: $(head -c 400 "$TMP/out.$1" | tr '\n' '|'))"
	fi
}
# lacks WHO DESC PATTERN: it does not.
lacks() {
	if grep -qE -- "$3" "$TMP/out.$1"; then
		notok "$2 (found: $(grep -m1 -E -- "$3" "$TMP/out.$1"))"
	else ok "$2"; fi
}
# calls WHO SYSCALL: the SYSCALL calls on test files in the last trace.
calls() { grep -cE "^[0-9]+ +$2\([0-9]+</[^>]*/test_file\." "$TMP/tr.$1"; }
# sizes WHO SYSCALL: the sizes of those calls (a read's or write's count), one a line.
sizes() {
	local off=
	case $2 in p*64) off=', [0-9]+' ;; esac
	grep -E "^[0-9]+ +$2\([0-9]+</[^>]*/test_file\." "$TMP/tr.$1" |
		sed -nE "s/.*, ([0-9]+)$off(\) += | <unfinished).*/\1/p"
}
# tid_offsets WHO SYSCALL: "TID OFFSET" of each pread64/pwrite64 on a test file.
tid_offsets() {
	grep -E "^[0-9]+ +$2\([0-9]+</[^>]*/test_file\." "$TMP/tr.$1" |
		sed -nE 's/^([0-9]+) +.*, [0-9]+, ([0-9]+)(\) += | <unfinished).*/\1 \2/p'
}
# fig WHO LABEL: the number after LABEL (an ERE) in the last report of sysbench or sbio (its
# first line with LABEL), unit letters dropped ("total time: 0.4902s" gives 0.4902).
fig() { sed -nE "s#^ *$2:? +([0-9.]+).*#\1#p" "$TMP/out.$1" | head -1; }
# holds DESC EXPR: the awk condition EXPR is true (numbers compared as numbers).
holds() { check "$1" awk "BEGIN { exit !($2) }"; }
# submits WHO: the requests each io_submit call carried, one call a line.
submits() { sed -nE 's/^[0-9]+ +io_submit\([0-9a-fx]+, ([0-9]+),.*/\1/p' "$TMP/tr.$1"; }
# maps WHO: the mmap calls on test files in the last trace.
maps() { grep -cE "^[0-9]+ +mmap\(.*<[^>]*/test_file\.[0-9]+>" "$TMP/tr.$1"; }
# set_bytes WHO: the bytes of the test files in the current folder of WHO.
set_bytes() { (cd "$TMP/$D.$1" && stat -c %s test_file.*) | awk '{ n += $1 } END { print n + 0 }'; }
# prep: the set P prepared by both tools in the current folders.
prep() {
	both "${P[@]}" "$@" prepare
	[ "$SY_RC$SB_RC" = 00 ] || notok "prepare $* in $D: sysbench $SY_RC, sbio $SB_RC"
}
# in_suite DESC TEXT: sysbench_suite.sh holds the check TEXT (it runs the demonstration).
in_suite() { check "$1: sysbench_suite.sh checks it ('$2')" grep -qF -- "$2" "$SUITE"; }
# suite_refuses VALUE: VALUE is in sysbench_suite.sh's loop of values sbio refuses and
# sysbench runs (each case: sysbench exits 0, sbio 2 with one line, no file touched).
suite_refuses() {
	check "$1: in sysbench_suite.sh's refusals (sysbench runs it, sbio exits 2)" \
		awk -v v="$1" '/^for o in --events=-1/ { on = 1 } on { for (i = 1; i <= NF; i++) if ($i == v || $i == v ";") f = 1 }
			on && /; do$/ { on = 0 } END { exit !f }' "$SUITE"
}
# refused DESC ARGS…: sysbench runs ARGS (exit 0), sbio refuses them: exit 2, one line.
refused() {
	local desc=$1
	shift
	both "${P[@]}" --file-test-mode=rndrd "$@" run
	eq "$desc: sysbench runs it" "$SY_RC" 0
	eq "$desc: sbio refuses it (exit 2)" "$SB_RC" 2
	eq "$desc: sbio says why in one line" "$(grep -vc '^sbio: note:' "$TMP/out.sb")" 1
}

# ---------------------------------------------------------------- File set
row_fill() {
	folders fill
	TRACE=write,pwrite64 prep
	check "sysbench's prepare writes zeros" cmp -s -n 4194304 "$TMP/fill.sy/test_file.0" /dev/zero
	check "sbio's prepare writes other bytes" test -n "$(cmp -n 4194304 "$TMP/fill.sb/test_file.0" /dev/zero)"
	cp "$TMP/tr.sy" "$TMP/fill.tr.sy"
	cp "$TMP/tr.sb" "$TMP/fill.tr.sb"
	folders fillz
	sb "${P[@]}" --file-fill=zero prepare
	check "sbio --file-fill=zero writes zeros" cmp -s -n 4194304 "$TMP/fillz.sb/test_file.0" /dev/zero
}
row_prepare_writes() {
	[ -f "$TMP/fill.tr.sy" ] || row_fill >/dev/null
	cp "$TMP/fill.tr.sy" "$TMP/tr.sy"
	cp "$TMP/fill.tr.sb" "$TMP/tr.sb"
	eq "sysbench's prepare writes one 16 KiB block a call" "$(sizes sy write | sort -u)" 16384
	eq "sbio's prepare writes 1 MiB a call" "$(sizes sb pwrite64 | sort -u)" 1048576
}
row_in_the_way() {
	folders way
	echo data >"$TMP/way.sy/test_file.0"
	echo data >"$TMP/way.sb/test_file.0"
	both "${P[@]}" prepare
	check "a file in the way: sysbench extends it ($SY_RC)" test "$(stat -c %s "$TMP/way.sy/test_file.0")" -ge 4194304
	eq "a file in the way: sbio refuses (exit 2)" "$SB_RC" 2
	eq "a file in the way: sbio leaves it alone" "$(cat "$TMP/way.sb/test_file.0")" data
	folders link
	echo victim >"$TMP/victim.sy"
	echo victim >"$TMP/victim.sb"
	ln -s "$TMP/victim.sy" "$TMP/link.sy/test_file.0"
	ln -s "$TMP/victim.sb" "$TMP/link.sb/test_file.0"
	both "${P[@]}" prepare
	check "a symlink in the way: sysbench writes through it" test "$(stat -c %s "$TMP/victim.sy")" -ge 4194304
	eq "a symlink in the way: sbio refuses (exit 2)" "$SB_RC" 2
	eq "a symlink in the way: sbio writes nothing through it" "$(cat "$TMP/victim.sb")" victim
}
row_interrupted() {
	folders cut
	# Prepare stopped half-way through the first file: a file size limit kills both (SIGXFSZ).
	(ulimit -f 2048 && sy "${P[@]}" prepare) 2>/dev/null
	(ulimit -f 2048 && sb "${P[@]}" prepare) 2>/dev/null
	eq "an interrupted prepare: sysbench leaves only its files" "$(ls "$TMP/cut.sy")" test_file.0
	check "an interrupted prepare: sbio's manifest says state=incomplete" \
		grep -qx state=incomplete "$TMP/cut.sb/sbio.manifest"
	both "${P[@]}" --file-test-mode=rndrd --events=10 run
	eq "run on it: sysbench refuses (exit 1)" "$SY_RC" 1
	says sy "run on it: sysbench sees a short file and asks about the options" \
		"Size of file 'test_file.0' is 2MiB, but at least 4MiB is expected"
	eq "run on it: sbio refuses (exit 2)" "$SB_RC" 2
	says sb "run on it: sbio says the prepare was interrupted" 'incomplete \(prepare was interrupted\)'
	sb "${P[@]}" prepare
	check "sbio prepare finishes it ($SB_RC)" grep -qx state=complete "$TMP/cut.sb/sbio.manifest"
	folders cut2
	(ulimit -f 2048 && sb "${P[@]}" prepare) 2>/dev/null
	sb "${P[@]}" cleanup
	eq "sbio cleanup removes an interrupted set (exit $SB_RC)" "$(ls "$TMP/cut2.sb")" ""
}
row_cleanup() {
	folders clean
	(cd "$TMP/clean.sy" && sysbench fileio --file-num=4 --file-total-size=8M prepare >/dev/null)
	(cd "$TMP/clean.sb" && sysbench fileio --file-num=4 --file-total-size=8M prepare >/dev/null)
	sy --file-num=2 --file-total-size=8M cleanup
	eq "sysbench's cleanup --file-num=2 of 4 files removes test_file.0 and 1 (exit $SY_RC)" \
		"$(ls "$TMP/clean.sy" | tr '\n' ' ')" "test_file.2 test_file.3 "
	sb --file-num=4 --file-total-size=8M cleanup
	eq "a set sysbench made: sbio's cleanup exits 2" "$SB_RC" 2
	eq "a set sysbench made: sbio removes nothing" "$(ls "$TMP/clean.sb" | wc -l)" 4
	eq "a set sysbench made: sbio says so in one line" "$(wc -l <"$TMP/out.sb")" 1
	says sb "a set sysbench made: sbio advises prepare --adopt" 'sbio prepare --adopt'
	sb --file-num=4 --file-total-size=8M prepare --adopt
	sb --file-num=2 --file-total-size=8M cleanup
	eq "adopted, then cleanup (even with --file-num=2): sbio removes what the manifest names (exit $SB_RC)" \
		"$(ls "$TMP/clean.sb")" ""
	sb cleanup
	eq "neither a manifest nor a test_file.*: sbio's cleanup exits 0" "$SB_RC" 0
}
row_whose() {
	if ! need_root; then
		skip "needs root (to give the set to nobody)"
		return
	fi
	folders own
	prep
	chown nobody "$TMP"/own.sy/* "$TMP"/own.sb/*
	both "${P[@]}" --file-test-mode=rndrd --events=10 run
	eq "a set of another user's: sysbench runs on it" "$SY_RC" 0
	eq "a set of another user's: sbio refuses (exit 2)" "$SB_RC" 2
	says sb "sbio names the owner" 'belongs to nobody'
}
row_lock() {
	folders lock
	prep
	(cd "$TMP/lock.sy" && exec sysbench fileio "${P[@]}" --file-test-mode=rndwr --time=20 run >"$TMP/run.sy" 2>&1) &
	local ysy=$!
	(cd "$TMP/lock.sb" && exec "$SBIO" "${P[@]}" --file-test-mode=rndwr --time=20 run >"$TMP/run.sb" 2>&1) &
	local ysb=$!
	PIDS+=("$ysy" "$ysb")
	for _ in $(seq 100); do
		grep -q 'Threads started!' "$TMP/run.sy" && grep -q 'Threads started!' "$TMP/run.sb" && break
		sleep 0.1
	done
	both "${P[@]}" cleanup
	eq "a cleanup during a run: sysbench's exits 0" "$SY_RC" 0
	eq "a cleanup during a run: sysbench's deletes the set under the run" "$(ls "$TMP/lock.sy")" ""
	eq "a cleanup during a run: sbio's exits 1" "$SB_RC" 1
	says sb "a cleanup during a run: sbio names the run's pid" "in use \(pid $ysb: "
	check "a cleanup during a run: sbio's set is whole" test -f "$TMP/lock.sb/test_file.1"
	kill -INT "$ysy" "$ysb" 2>/dev/null
	wait "$ysy" "$ysb" 2>/dev/null
}
row_fewer() {
	folders few
	both --file-num=4 --file-total-size=1 prepare
	eq "sysbench makes 4 empty files (exit $SY_RC)" \
		"$(cd "$TMP/few.sy" && stat -c %s test_file.* | sort -u)/$(ls "$TMP/few.sy" | wc -l)" "0/4"
	eq "sbio refuses (exit 2)" "$SB_RC" 2
	eq "sbio makes nothing" "$(ls "$TMP/few.sb")" ""
}
row_shape() {
	folders shape
	prep
	both --file-num=2 --file-total-size=4M --file-test-mode=rndrd --events=10 run
	eq "run with half the prepared size: sysbench runs" "$SY_RC" 0
	eq "run with half the prepared size: sbio refuses (exit 2)" "$SB_RC" 2
	says sb "sbio names both sizes" 'file-total-size is 4 MiB but the set .* was prepared with 8 MiB'
}
row_readonly() {
	folders ro
	prep
	TRACE=openat both "${P[@]}" --file-test-mode=rndrd --events=10 run
	check "rndrd: sysbench opens the files O_RDWR" grep -q '"test_file.0", O_RDWR' "$TMP/tr.sy"
	check "rndrd: sbio opens them O_RDONLY" grep -q '"test_file.0", O_RDONLY' "$TMP/tr.sb"
	check "rndrd: sbio never opens them O_RDWR" test -z "$(grep '"test_file.0", O_RDWR' "$TMP/tr.sb")"
}

# ---------------------------------------------------------------- Workload
# locks BINARY WHO COMMAND…: "EVENTS CALLS", the events of a run of COMMAND (in the folder
# of WHO, sy or sb) and how many times BINARY's own code called pthread_mutex_lock during it
# (a breakpoint at each of its call sites, found with objdump, counted by gdb).
locks() {
	local bin sites
	bin=$(command -v "$1")
	sites=$(objdump -d --no-show-raw-insn "$bin" |
		sed -nE 's/^ *([0-9a-f]+):\s+call +[0-9a-f]+ <pthread_mutex_lock@plt>.*/\1/p' | paste -sd,)
	(cd "$TMP/$D.$2" && gdb -q -batch -ex 'set pagination off' -ex 'break main' -ex run -ex "python
import gdb
m = gdb.execute('info proc mappings', to_string=True)
base = min(int(l.split()[0], 16) for l in m.splitlines() if l.split() and l.split()[-1] == '$bin')
for s in '$sites'.split(','):
    if s:
        gdb.execute('break *0x%x' % (base + int(s, 16)), to_string=True)
        gdb.execute('ignore \$bpnum 1000000000', to_string=True)
" -ex continue -ex 'info breakpoints' --args "${@:3}" 2>&1) |
		awk '/total number of events:/ { e = $NF } /^[0-9]+ +breakpoint/ { b = $1 }
			/already hit/ && b > 1 { n += $4 } END { print e + 0, n + 0 }'
}
# Under ASan (make test-asan), LeakSanitizer cannot run in a process gdb traces.
if [ -n "${ASAN_OPTIONS:-}" ]; then
	gdb() { ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" command gdb "$@"; }
fi
row_request_generation() {
	if ! command -v gdb >/dev/null; then
		notok "needs gdb (scripts/install-deps.sh --test installs it)"
		return
	fi
	folders lock2
	prep
	local w=("${P[@]}" --file-test-mode=rndrd run --events=600) e n
	read -r e n < <(locks sysbench sy sysbench fileio "${w[@]}")
	check "sysbench locks a mutex for each request ($n calls for $e events)" test "$e" = 600 -a "$n" -ge 600
	read -r e n < <(locks "$SBIO" sb "$SBIO" "${w[@]}")
	check "sbio does not ($n calls for $e events)" test "$e" = 600 -a "$n" -lt 60
}
row_descriptors() {
	folders fds
	local P=(--file-num=32 --file-total-size=8M)
	prep
	local w=("${P[@]}" --file-test-mode=rndrd --threads=4 --events=200)
	TRACE=openat sy "${w[@]}" run
	TRACE=openat sb "${w[@]}" run -o "$TMP/fds.json"
	local o='"test_file\.0", O_'
	eq "4 threads: sysbench opens each file once" "$(grep -c "$o" "$TMP/tr.sy")" 1
	check "sbio's threads each open it ($(grep -c "$o" "$TMP/tr.sb") opens, exit $SB_RC)" \
		test "$(grep -c "$o" "$TMP/tr.sb")" -ge 4
	eq "sbio's result says so" "$(json_get "$TMP/fds.json" result.descriptors)" per-thread
	(
		ulimit -n 48
		sy "${w[@]}" run
		sb "${w[@]}" run
		echo "$SY_RC $SB_RC" >"$TMP/fds.rc"
	)
	eq "32 files under ulimit -n 48: sysbench runs, sbio refuses (exit 2)" "$(cat "$TMP/fds.rc")" "0 2"
	says sb "sbio says so in one line, with the limit it needs" '^sbio: .* need [0-9]+ open descriptors; .*raise it \(ulimit -n [0-9]+\)'
	eq "that one line" "$(wc -l <"$TMP/out.sb")" 1
	(
		ulimit -n 100
		sb "${w[@]}" run -o "$TMP/fds.json"
	)
	says sb "under ulimit -n 100 the threads share one descriptor per file, and sbio says so" \
		'^Files opened once and shared by the threads'
	eq "sbio's result says so" "$(json_get "$TMP/fds.json" result.descriptors)" shared
}
row_periodic_fsync() {
	folders pf
	local P=(--file-num=4 --file-total-size=8M)
	prep
	# 200 requests on 4 threads: sysbench's one counter reaches 100 (a round of 4 fsyncs);
	# sbio's threads, paced to 50 requests each (--rate), never reach theirs.
	local w=(--file-num=4 --file-total-size=8M --file-test-mode=rndrw --events=200 --threads=4)
	TRACE=fsync sy "${w[@]}" run
	TRACE=fsync sb "${w[@]}" --rate=400 run -o "$TMP/pf.json"
	# The end fsyncs: each thread fsyncs every file (4 x 4) in both.
	eq "sysbench: 4 periodic fsyncs (a round of 4 files) and 16 at the end" "$(calls sy fsync)" 20
	eq "sbio: no thread's period ends, no periodic fsync; 16 at the end" \
		"$(calls sb fsync) $(pew_of "$TMP/pf.json")" "16 0 16 0"
}
row_max_requests() {
	folders mreq
	local P=(--file-num=4 --file-total-size=8M)
	prep
	# One thread: every fsync on a test file is a periodic one but the 4 at the end.
	local w=(--file-num=4 --file-total-size=8M --file-test-mode=rndrw --max-requests=1000)
	TRACE=pread64,pwrite64,fsync both "${w[@]}" run
	local rw_sy rw_sb
	rw_sy=$(($(calls sy pread64) + $(calls sy pwrite64))) rw_sb=$(($(calls sb pread64) + $(calls sb pwrite64)))
	eq "sysbench: reads + writes + periodic fsyncs = 1000 ($rw_sy reads and writes)" \
		"$((rw_sy + $(calls sy fsync) - 4))" 1000
	eq "sbio: 1000 reads and writes, the fsyncs ($(calls sb fsync)) on top" "$rw_sb" 1000
	TRACE=pread64,pwrite64,fsync sb "${w[@]/--max-requests/--events}" run
	eq "sbio --events=1000 counts as sysbench --max-requests=1000 ($rw_sy reads and writes)" \
		"$(($(calls sb pread64) + $(calls sb pwrite64) + $(calls sb fsync) - 4))" 1000
}
row_fsync_scope() {
	folders scope
	local P=(--file-num=4 --file-total-size=8M)
	prep
	# A round after every write: "dirty" is the one file written, "every file" is 4.
	local w=(--file-num=4 --file-total-size=8M --file-test-mode=rndwr --file-fsync-freq=1 --events=30)
	sy "${w[@]}" --file-fsync-scope=dirty run
	eq "sysbench has no --file-fsync-scope (exit 1)" "$SY_RC" 1
	TRACE=fsync both "${w[@]}" run
	local all_sy all_sb
	all_sy=$(calls sy fsync) all_sb=$(calls sb fsync)
	eq "by default both fsync every file each round" "$all_sb" "$all_sy"
	TRACE=fsync sb "${w[@]}" --file-fsync-scope=dirty run
	check "sbio --file-fsync-scope=dirty fsyncs fewer ($(calls sb fsync) of $all_sb, exit $SB_RC)" \
		test "$SB_RC" = 0 -a "$(calls sb fsync)" -lt "$all_sb"
}
row_random_offsets() {
	folders tail
	local t=(--file-num=4 --file-total-size=64K --file-block-size=4097)
	both "${t[@]}" prepare
	TRACE=pread64 both "${t[@]}" --file-test-mode=rndrd --events=100 run
	check "files of 4 blocks and 4 bytes: sysbench draws short tails ($(sizes sy pread64 | sort -u | tr '\n' ' '))" \
		test -n "$(sizes sy pread64 | grep -vx 4097)"
	eq "sbio draws whole blocks only" "$(sizes sb pread64 | sort -u)" 4097
}
row_direct_tails() {
	folders dio
	local d=(--file-num=1 --file-total-size=10000 --file-block-size=4096)
	both "${d[@]}" prepare
	both "${d[@]}" --file-extra-flags=direct --file-test-mode=seqrd --events=10 run
	eq "a 10000-byte file under O_DIRECT: sysbench fails (exit 1)" "$SY_RC" 1
	says sy "sysbench's last read of the tail fails" 'Failed to read file! file: [0-9]+ pos: 8192 errno = 22'
	eq "sbio's files are whole blocks: the same command runs" "$SB_RC" 0
	cat >"$TMP/dio.lua" <<'EOF'
fileset { files = 1, size = "10000" }
phase "p" { time = 0, events = 10, job "r" { mode = "seqrd", block = "4k", flags = "direct" } }
EOF
	folders dios
	sb prepare --script "$TMP/dio.lua"
	sb run --script "$TMP/dio.lua"
	eq "a script's 10000-byte file under O_DIRECT: sbio runs" "$SB_RC" 0
	says sb "sbio says what it skipped" 'O_DIRECT: 1 file tail \(1.77 KiB\) not a multiple of the 512-byte alignment was skipped'
}
row_seqwr() {
	folders seqwr
	prep
	# A time limit ends both runs with the set short: 30 writes of 16 KiB a second for 1 s
	# write about 0.5 MiB of the 8 MiB set, however fast the disk.
	TRACE=unlink,openat,ftruncate both "${P[@]}" --file-test-mode=seqwr --time=1 --rate=30 run
	check "sysbench unlinks and re-creates the files when run opens them (exit $SY_RC)" \
		grep -qE 'unlink\("test_file\.0"\).*= 0' "$TMP/tr.sy"
	check "sbio truncates them (exit $SB_RC)" grep -qE 'ftruncate\([0-9]+</[^>]*/test_file\.0>, 0\) += 0' "$TMP/tr.sb"
	check "sbio unlinks none" test -z "$(grep unlink "$TMP/tr.sb")"
	local by bb
	by=$(set_bytes sy) bb=$(set_bytes sb)
	check "the run ended by its time limit: sysbench leaves the set short ($by of 8388608 bytes)" \
		test "$by" -lt 8388608
	check "sbio too: nothing written after the measured phase ($bb of 8388608 bytes)" test "$bb" -lt 8388608
	says sb "sbio says how much is left, in one line" '^seqwr: .* left unwritten \(sbio.manifest says so\)'
	check "sbio marks the set short in the manifest" \
		grep -qx short=seqwr "$TMP/seqwr.sb/sbio.manifest"
	local rest
	rest=$(awk -F'[= ]' '/^file\.[0-9]+=/ { n += $3 } /^rewrite\.[0-9]+=/ { n -= $2 } END { print n + 0 }' \
		"$TMP/seqwr.sb/sbio.manifest")
	eq "sbio's manifest says where each file's rest starts (rewrite.N): all that is not on disk" \
		"$rest" $((8388608 - bb))
	both "${P[@]}" --file-test-mode=rndrd --events=10 run
	eq "the next run: sysbench refuses the short files (exit 1)" "$SY_RC" 1
	says sy "sysbench suspects the options" "^FATAL: Size of file 'test_file\.0' is .*, but at least 4MiB is expected"
	eq "the next run: sbio runs (exit 0)" "$SB_RC" 0
	says sb "sbio completes the set first and says so" '^Completing the set in .*, left short by a seqwr run: writing the .* \(not measured\)'
	eq "the set is whole again" "$(set_bytes sb) $(grep -c '^short=' "$TMP/seqwr.sb/sbio.manifest")" "8388608 0"
}
row_random_numbers() {
	folders seed
	prep
	local w=(--file-test-mode=rndrd --events=20)
	TRACE=pread64 sy "${P[@]}" "${w[@]}" run
	says sy "sysbench seeds from the clock" 'Initializing random number generator from current time'
	lacks sy "sysbench does not print the seed" '[Ss]eed'
	TRACE=pread64 sb "${P[@]}" "${w[@]}" run
	local s
	s=$(sed -n 's/^Random seed: \([0-9]*\) (from the clock).*/\1/p' "$TMP/out.sb")
	check "sbio prints the seed it took from the clock ($s)" test -n "$s"
	tid_offsets sb pread64 | cut -d' ' -f2 >"$TMP/seed.1"
	TRACE=pread64 sb "${P[@]}" "${w[@]}" --rand-seed="$s" run
	tid_offsets sb pread64 | cut -d' ' -f2 >"$TMP/seed.2"
	check "sbio with that seed reads the same offsets" cmp -s "$TMP/seed.1" "$TMP/seed.2"
}
row_rate() {
	folders rate
	prep
	both "${P[@]}" --rate=2000000000 --file-test-mode=rndrd --time=1 run
	eq "--rate=2000000000: sysbench fails during the run (exit 1)" "$SY_RC" 1
	# Its FATAL line, "The event queue is full", is printed by a thread of sysbench's own that
	# an exit can beat (missing once in about six runs): what is certain is that it gives no
	# report.
	check "--rate=2000000000: sysbench gives no report (the event queue is full)" \
		bash -c "! grep -q '^General statistics' '$TMP/out.sy'"
	eq "--rate=2000000000: sbio refuses it before (exit 2)" "$SB_RC" 2
	says sb "sbio names the most one thread paces" 'at most 10000000 operations/s per thread'
}
row_rate_execution() {
	folders rexe
	prep
	# 50 events at 100 a second: about 0.5 s, nearly all of it waiting for the next arrival.
	both "${P[@]}" --file-test-mode=rndrd --rate=100 --events=50 run
	local ty ey tb eb
	ty=$(fig sy 'total time') ey=$(fig sy 'execution time \(avg/stddev\)')
	tb=$(fig sb 'total time') eb=$(fig sb 'execution time \(avg/stddev\)')
	holds "--rate=100: sysbench's execution time leaves the waits out ($ey s of $ty s)" "$ey < $ty / 2"
	holds "--rate=100: sbio's is the thread's wall time, the waits included ($eb s of $tb s)" \
		"$eb >= $tb * 0.9 && $eb <= $tb + 0.0001"
}
row_merged() {
	folders merged
	prep
	TRACE=pread64 both "${P[@]}" --file-merged-requests=4 --file-test-mode=seqrd --events=10 run
	eq "--file-merged-requests=4: sysbench's reads" "$(calls sy pread64) $(sizes sy pread64 | sort -u)" "10 65536"
	eq "--file-merged-requests=4: sbio's are the same" "$(calls sb pread64) $(sizes sb pread64 | sort -u)" "10 65536"
}
row_fsync_all() {
	folders fall
	prep
	TRACE=pwrite64,fsync both "${P[@]}" --file-fsync-all --file-test-mode=rndwr --events=20 run
	eq "--file-fsync-all, 20 events: sysbench's writes and fsyncs" "$(calls sy pwrite64) $(calls sy fsync)" "20 20"
	eq "--file-fsync-all, 20 events: sbio's are the same" "$(calls sb pwrite64) $(calls sb fsync)" "20 20"
}

# ---------------------------------------------------------------- Output
# One rndrw run of each, for the rows about the report's lines.
report_run() {
	[ -f "$TMP/report.sb" ] && return
	folders rep
	prep
	both "${P[@]}" --file-test-mode=rndrw --events=200 --file-fsync-mode=fdatasync run
	cp "$TMP/out.sy" "$TMP/report.sy"
	cp "$TMP/out.sb" "$TMP/report.sb"
}
row_latency() {
	report_run
	cp "$TMP/report.sy" "$TMP/out.sy"
	cp "$TMP/report.sb" "$TMP/out.sb"
	says sy "sysbench: one latency block" '^Latency \(ms\):'
	lacks sy "sysbench: no latency per operation type" 'p99\.9'
	says sb "sbio: sysbench's block" '^Latency \(ms\):'
	says sb "sbio: then a row per operation type" '^  read +[0-9]+ .* (ns|us|ms|s) +[0-9.]+ (ns|us|ms|s)'
}
row_histogram() {
	# sysbench 1.0.20's histogram is sb_histogram_init(&sb_latency_histogram, 1024, 0.001,
	# 100000) (src/sysbench.c): 1024 buckets between 1 us and 100 s, a fact of its source;
	# sbio's buckets are checked here, from its JSON result.
	folders hist
	prep
	sb "${P[@]}" --file-test-mode=rndrw --events=500 run -o "$TMP/hist.json"
	json_expect "sbio's buckets are log-linear, within 1/128 of their midpoint" "$TMP/hist.json" '
for t, o in d["result"]["op_types"].items():
    for lo, hi, n in o["latency"]["histogram"]:
        w = hi + 1 - lo
        if w & (w - 1) or (w > 1 and w > lo / 64):
            print(t, lo, hi)'
}
row_counts() {
	report_run
	cp "$TMP/report.sy" "$TMP/out.sy"
	cp "$TMP/report.sb" "$TMP/out.sb"
	lacks sy "sysbench counts no operations, only rates" '^Operations counted'
	says sb "sbio counts them" '^    syncs periodic, at end, in writes: +[0-9]+, [0-9]+, 0$'
}
row_sync_call() {
	report_run
	cp "$TMP/report.sy" "$TMP/out.sy"
	cp "$TMP/report.sb" "$TMP/out.sb"
	says sy "--file-fsync-mode=fdatasync: sysbench says fsync()" 'calling fsync\(\) each 100 requests'
	says sb "--file-fsync-mode=fdatasync: sbio says fdatasync()" 'calling fdatasync\(\) each 100 requests'
}
row_interim() {
	folders int
	prep
	local w=("${P[@]}" --file-test-mode=rndrd --report-interval=1 --time=2)
	(cd "$TMP/int.sy" && sysbench fileio "${w[@]}" run >"$TMP/int.out.sy" 2>&1) &
	local ysy=$!
	sb "${w[@]}" run
	wait "$ysy"
	cp "$TMP/int.out.sy" "$TMP/out.sy"
	local n
	n=$(grep -c '^\[ *[0-9]*s \]' "$TMP/out.sy")
	check "--time=2: sysbench prints 1 or 2 interim lines ($n)" test "$n" -ge 1 -a "$n" -le 2
	lacks sy "sysbench has no per-op line" '^ +per op:'
	eq "--time=2: sbio prints one, at 1 s" "$(grep -c '^\[ *1s \]' "$TMP/out.sb")/$(grep -c '^\[' "$TMP/out.sb")" 1/1
	says sb "sbio adds an indented per-op line" '^ +per op: +read '
}
row_verbosity() {
	folders verb
	prep
	both "${P[@]}" --file-test-mode=rndrd --events=20 --histogram --verbosity=0 run
	says sy "--verbosity=0: sysbench still prints --histogram's rows" '^ +[0-9.]+ \|\*+ +[0-9]+$'
	eq "--verbosity=0: sbio prints nothing" "$(wc -c <"$TMP/out.sb")" 0
	both "${P[@]}" --file-test-mode=rndrd --events=20 --verbosity=4 run
	says sy "--verbosity=4: sysbench adds Done." '^Done\.$'
	lacks sb "--verbosity=4: sbio prints what 3 does" '^Done\.$'
	# A note (--max-requests, the old spelling) and a report: which reach the user, and where.
	local v
	for v in 1 2; do
		(cd "$TMP/verb.sb" && "$SBIO" "${P[@]}" --file-test-mode=rndrd --max-requests=20 --verbosity=$v \
			run -o "$TMP/verb.json" >"$TMP/verb.out" 2>"$TMP/verb.err")
		eq "--verbosity=$v: sbio's report is written to -o, nothing on stdout" \
			"$(json_get "$TMP/verb.json" result.events) $(wc -c <"$TMP/verb.out")" "20 0"
		cp "$TMP/verb.err" "$TMP/out.sb"
		if [ "$v" = 1 ]; then lacks sb "--verbosity=1: no note" 'note'; else
			says sb "--verbosity=2: the note, on stderr" '^sbio: note: --max-requests'
		fi
	done
}
row_exit_codes() {
	folders exit
	both "${P[@]}" --no-such-option prepare
	eq "an unknown option: sysbench exits 1" "$SY_RC" 1
	eq "an unknown option: sbio exits 2" "$SB_RC" 2
	both "${P[@]}" --file-test-mode=rndrd run
	eq "run without a set: sysbench exits 1" "$SY_RC" 1
	eq "run without a set: sbio exits 2" "$SB_RC" 2
}
row_old_spellings() {
	folders old
	prep
	sy "${P[@]}" --num-threads=1 --max-requests=10 --max-time=0 --tx-rate=0 --file-test-mode=rndrd run
	(cd "$TMP/old.sy" && sysbench --test=fileio "${P[@]}" --events=1 --file-test-mode=rndrd run >"$TMP/old.t" 2>&1)
	cat "$TMP/old.t" >>"$TMP/out.sy"
	eq "sysbench runs them (exit $SY_RC)" "$SY_RC" 0
	eq "sysbench warns for --max-requests and --test only" \
		"$(grep -o '^WARNING: [^ ]* [^ ]*' "$TMP/out.sy" | sort | tr '\n' ' ')" \
		"WARNING: --max-requests is WARNING: the --test "
	sb "${P[@]}" --num-threads=1 --max-requests=10 --max-time=0 --tx-rate=0 --file-test-mode=rndrd run
	eq "sbio runs them (exit $SB_RC)" "$SB_RC" 0
	eq "sbio: a note for each" "$(grep -o '^sbio: note: --[a-z-]*' "$TMP/out.sb" | sort | tr '\n' ' ')" \
		"sbio: note: --max-requests sbio: note: --max-time sbio: note: --num-threads sbio: note: --tx-rate "
	sb --test=fileio "${P[@]}" --events=1 --file-test-mode=rndrd run
	says sb "sbio: a note for --test=fileio" '^sbio: note: --test=fileio '
}
row_other_options() {
	folders other
	prep
	both "${P[@]}" --rand-type=uniform --db-driver=mysql --mysql-host=x --events=10 --file-test-mode=rndrd run
	eq "sysbench takes them silently (exit $SY_RC)" "$SY_RC/$(grep -ciE 'rand-type|db-driver|mysql' "$TMP/out.sy")" 0/0
	eq "sbio takes them (exit $SB_RC) with a note for each" \
		"$SB_RC/$(grep -c '^sbio: note: --[a-z-]* does not concern file I/O; ignored$' "$TMP/out.sb")" 0/3
}

# ---------------------------------------------------------------- Validation
row_what_checked() {
	# A lost write (failwrite.so: the 3rd pwrite reports success and writes nothing) leaves the
	# block prepare stamped: sysbench's checksum and offset still hold, sbio's generation not.
	folders lost
	local v=(--file-num=1 --file-total-size=64K --file-block-size=4K)
	local w=(--file-test-mode=rndrw --file-rw-ratio=20 --file-fsync-freq=0 --threads=1 --events=2000 --validate --rand-seed=7)
	both "${v[@]}" --validate prepare
	TRACE=pwrite64 sy "${v[@]}" "${w[@]}" run
	local all
	all=$(calls sy pwrite64)
	export FAILWRITE_AFTER=3 FAILWRITE_LOSE=1
	FAILWRITE_MATCH=$(realpath "$TMP/lost.sy")/test_file TRACE=pwrite64 LD_PRELOAD=$SBIO_TOOLS/failwrite.so \
		sy "${v[@]}" "${w[@]}" run
	eq "a lost write: sysbench made one write fewer (the same seed)" "$(calls sy pwrite64)" $((all - 1))
	eq "a lost write: sysbench's validation passes (exit 0)" "$SY_RC" 0
	FAILWRITE_MATCH=$(realpath "$TMP/lost.sb")/test_file LD_PRELOAD=$SBIO_TOOLS/failwrite.so \
		sb "${v[@]}" "${w[@]}" run
	unset FAILWRITE_AFTER FAILWRITE_LOSE
	eq "a lost write: sbio's --validate finds it (exit 1)" "$SB_RC" 1
	says sb "sbio names the stale block" 'stale generation \(a lost write\)'
}
row_which_thread() {
	folders own2
	local v=(--file-num=1 --file-total-size=64K --file-block-size=4K)
	both "${v[@]}" --validate prepare
	TRACE=pwrite64 both "${v[@]}" --file-test-mode=rndwr --threads=2 --events=200 --validate run
	# "TID PARITY" pairs: one per thread in sbio (each writes only its own blocks).
	local sy_pairs sb_pairs
	sy_pairs=$(tid_offsets sy pwrite64 | awk '{ print $1, ($2 / 4096) % 2 }' | sort -u | wc -l)
	sb_pairs=$(tid_offsets sb pwrite64 | awk '{ print $1, ($2 / 4096) % 2 }' | sort -u | wc -l)
	check "--validate, 2 threads: sysbench's threads write blocks of both parities ($sy_pairs pairs)" test "$sy_pairs" -gt 2
	eq "--validate, 2 threads: each sbio thread writes blocks of one parity" "$sb_pairs" 2
}
row_prepared_without() {
	folders nov
	prep
	both "${P[@]}" --validate --file-test-mode=rndrd --events=10 run
	eq "rndrd --validate on a set prepared without it: sysbench fails (exit 1)" "$SY_RC" 1
	says sy "sysbench: Checksum mismatch" 'Checksum mismatch'
	eq "sbio runs (exit 0)" "$SB_RC" 0
	says sb "sbio says which blocks it checks" '^Verification: 0 blocks checked \(those this run wrote'
}
row_write_without() {
	folders wov
	prep --validate
	both "${P[@]}" --file-test-mode=rndwr --events=100 run
	check "a write without --validate: sbio sets verify=0 first" grep -qx verify=0 "$TMP/wov.sb/sbio.manifest"
	both "${P[@]}" --validate --file-test-mode=rndrd --events=300 run
	eq "the next validated read: sysbench fails (exit 1)" "$SY_RC" 1
	says sy "sysbench: Checksum mismatch" 'Checksum mismatch'
	eq "the next validated read: sbio runs (exit 0)" "$SB_RC" 0
}
row_prepare_script() {
	folders pscript
	cat >"$TMP/s4k.lua" <<'EOF'
fileset { files = 2, size = "1M" }
phase "p" { time = 0, events = 100, job "w" { mode = "rndrw", block = "4k" } }
EOF
	cat >"$TMP/s2.lua" <<'EOF'
fileset { files = 2, size = "1M" }
phase "p" { time = 0, events = 100, job "small" { mode = "rndrd", block = "4k" },
  job "large" { mode = "rndrd", block = "64k" } }
EOF
	sy --script="$TMP/s4k.lua" prepare
	eq "sysbench fileio has no --script (exit 1)" "$SY_RC" 1
	sb prepare --script "$TMP/s4k.lua" --verify
	check "sbio stamps at the jobs' 4 KiB (exit $SB_RC)" grep -qx block_size=4096 "$TMP/pscript.sb/sbio.manifest"
	folders pscript2
	sb prepare --script "$TMP/s2.lua" --verify
	eq "jobs of 4 and 64 KiB: sbio refuses (exit 2)" "$SB_RC" 2
}

# ---------------------------------------------------------------- Engines
# The Engines table's runs: the doc's 4 files of 8 MiB, one thread.
E=(--file-num=4 --file-total-size=32M)
row_async_submit() {
	folders asub
	local P=("${E[@]}")
	prep
	local w=("${E[@]}" --file-test-mode=rndrw --file-io-mode=async --events=150)
	TRACE=io_submit both "${w[@]}" run
	eq "buffered: sysbench makes one io_submit per request" "$(submits sy | sort -u)" 1
	check "buffered: sbio's carry several ($(submits sb | wc -l) calls for $(submits sb | paste -sd+ | bc) requests, exit $SB_RC)" \
		test "$(submits sb | sort -n | tail -1)" -gt 1
	TRACE=io_submit sb "${w[@]}" --file-extra-flags=direct run
	eq "O_DIRECT: sbio's carry one each (exit $SB_RC)" "$(submits sb | sort -u)" 1
	TRACE=io_submit sb "${w[@]}" --iodepth-batch=1 run
	eq "--iodepth-batch=1: sbio's carry one each, as sysbench's (exit $SB_RC)" "$(submits sb | sort -u)" 1
	sy "${w[@]}" --iodepth-batch=1 run
	eq "sysbench has no --iodepth-batch (exit 1)" "$SY_RC" 1
}
row_async_fsync() {
	folders afs
	local P=("${E[@]}")
	prep
	local w=("${E[@]}" --file-test-mode=rndwr --file-io-mode=async --file-fsync-freq=10 --events=50)
	TRACE=io_submit,fsync,fdatasync both "${w[@]}" run
	local n
	n=$(calls sy fsync)
	check "sysbench: fsync() calls beside the queue ($n)" test "$n" -gt 0 -a "$(grep -c IOCB_CMD_FSYNC "$TMP/tr.sy")" = 0
	eq "sbio: no fsync() call, as many IOCB_CMD_FSYNC requests" \
		"$(calls sb fsync) $(grep -o 'IOCB_CMD_FSYNC' "$TMP/tr.sb" | wc -l)" "0 $n"
	TRACE=io_submit,fsync,fdatasync sb "${w[@]}" --file-fsync-mode=fdatasync run
	eq "--file-fsync-mode=fdatasync: sbio's are IOCB_CMD_FDSYNC" \
		"$(calls sb fdatasync) $(grep -o 'IOCB_CMD_FDSYNC' "$TMP/tr.sb" | wc -l)" "0 $n"
}
row_async_fsync_all() {
	folders afa
	local P=("${E[@]}")
	prep
	TRACE=io_submit,fsync both "${E[@]}" --file-test-mode=rndwr --file-io-mode=async --file-fsync-all --events=20 run
	eq "sysbench: an fsync() for each of the 20 writes" "$(calls sy fsync) $(grep -o IOCB_CMD_PWRITE "$TMP/tr.sy" | wc -l)" "20 20"
	eq "sbio: the same, no fsync request in the queue" \
		"$(calls sb fsync) $(grep -o IOCB_CMD_PWRITE "$TMP/tr.sb" | wc -l) $(grep -c IOCB_CMD_FSYNC "$TMP/tr.sb")" "20 20 0"
}
row_async_depth() {
	folders adep
	local P=("${E[@]}")
	prep
	local w=("${E[@]}" --file-test-mode=rndrd --file-io-mode=async --events=50)
	TRACE=io_submit,io_getevents both "${w[@]}" --file-async-backlog=4 run
	# In flight before the first wait: the requests submitted before the first io_getevents.
	local first='/io_getevents/ { exit } /io_submit\(/ { sub(/^[0-9]+ +io_submit\([0-9a-fx]+, /, ""); n += $0 + 0 } END { print n + 0 }'
	eq "--file-async-backlog=4: sysbench has 4 requests in flight" "$(awk "$first" "$TMP/tr.sy")" 4
	eq "--file-async-backlog=4: sbio too" "$(awk "$first" "$TMP/tr.sb")" 4
	lacks sy "sysbench reports no depth" '[Dd]epth'
	says sb "sbio reports the depth reached" '^Queue depth reached: avg [0-9.]+, max 4 in flight per thread \(iodepth 4\)$'
	cp "$TMP/out.sb" "$TMP/adep.backlog"
	both "${w[@]}" --iodepth=4 run
	eq "sysbench has no --iodepth (exit 1)" "$SY_RC" 1
	says sb "sbio's --iodepth=4 is --file-async-backlog=4 (exit $SB_RC)" 'in flight per thread \(iodepth 4\)$'
}
row_mmap() {
	folders mm
	local P=("${E[@]}")
	prep
	TRACE=msync,pwrite64 both "${E[@]}" --file-test-mode=rndwr --file-io-mode=mmap --events=150 run
	local n
	n=$(grep -c 'msync(' "$TMP/tr.sy")
	check "sysbench: msync for its fsyncs, no pwrite ($n)" test "$n" -gt 0 -a "$(calls sy pwrite64)" = 0
	eq "sbio: the same msync count, no pwrite" "$(grep -c 'msync(' "$TMP/tr.sb") $(calls sb pwrite64)" "$n 0"
}
row_mmap_mappings() {
	folders mmap2
	# 4 threads on 32 files: each thread its own needs 128 descriptors, 100 is too few; one
	# per file fits, with room to spare for what sbio keeps open beside the set.
	local P=(--file-num=32 --file-total-size=8M)
	prep
	local w=("${P[@]}" --file-test-mode=rndrd --file-io-mode=mmap --threads=4 --events=200)
	TRACE=mmap sy "${w[@]}" run
	TRACE=mmap sb "${w[@]}" run -o "$TMP/mmap2.json"
	eq "4 threads on 32 files: sysbench maps each file once" "$(maps sy)" 32
	eq "sbio's threads map each file each" "$(maps sb)" 128
	eq "sbio's result says so" "$(json_get "$TMP/mmap2.json" result.descriptors)" per-thread
	(
		ulimit -n 100
		TRACE=mmap sy "${w[@]}" run
		TRACE=mmap sb "${w[@]}" run -o "$TMP/mmap2.json"
		echo "$SY_RC $SB_RC" >"$TMP/mmap2.rc"
	)
	eq "ulimit -n 100: both run" "$(cat "$TMP/mmap2.rc")" "0 0"
	eq "ulimit -n 100: sysbench maps each file once" "$(maps sy)" 32
	eq "ulimit -n 100: sbio too, the threads share the mappings" "$(maps sb)" 32
	says sb "sbio's report says so" '^Files opened once and shared by the threads'
	eq "sbio's result says so" "$(json_get "$TMP/mmap2.json" result.descriptors)" shared
}
row_latency_request() {
	folders lreq
	local P=("${E[@]}")
	prep
	# One thread, 8 requests in flight: sysbench's events follow one another, so their sum is
	# at most the thread's time; sbio's requests overlap, about 8 at a time.
	local w=("${E[@]}" --file-test-mode=rndrd --file-async-backlog=8 --events=2000)
	both "${w[@]}" --file-io-mode=async run
	local sy_sum sy_exe sb_sum sb_tot sb_exe
	sy_sum=$(fig sy sum) sy_exe=$(fig sy 'execution time \(avg/stddev\)')
	sb_sum=$(fig sb sum) sb_tot=$(fig sb 'total time') sb_exe=$(fig sb 'execution time \(avg/stddev\)')
	holds "async: sysbench's latency sum is at most the thread's time ($sy_sum ms, $sy_exe s)" \
		"$sy_sum <= $sy_exe * 1000 + 0.1"
	holds "async: sbio's is several times its run ($sb_sum ms, $sb_tot s): each request to its completion" \
		"$sb_sum > $sb_tot * 1000 * 2"
	holds "async: sbio's execution time is the thread's wall time ($sb_exe s of $sb_tot s)" \
		"$sb_exe >= $sb_tot * 0.9 && $sb_exe <= $sb_tot + 0.0001"
	sb "${w[@]}" --ioengine=io_uring --iodepth=8 run
	sb_sum=$(fig sb sum) sb_tot=$(fig sb 'total time')
	holds "io_uring: sbio's latency sum is several times its run too ($sb_sum ms, $sb_tot s, exit $SB_RC)" \
		"$sb_sum > $sb_tot * 1000 * 2"
	for m in sync mmap; do
		sb "${w[@]}" --file-io-mode=$m run
		sb_sum=$(fig sb sum) sb_tot=$(fig sb 'total time')
		holds "$m: sbio's latency is the call's: the sum is at most the run ($sb_sum ms, $sb_tot s)" \
			"$sb_sum <= $sb_tot * 1000 + 0.1"
	done
}
row_io_uring_null() {
	folders eng
	prep
	sy "${P[@]}" --file-io-mode=io_uring --file-test-mode=rndrd --events=10 run
	eq "sysbench has no io_uring mode (exit 1)" "$SY_RC" 1
	TRACE=pread64,io_uring_enter sb "${P[@]}" --ioengine=null --file-test-mode=rndrd --events=100 run
	eq "sbio --ioengine=null: 100 events, no read" "$SB_RC $(calls sb pread64) $(grep -c io_uring_enter "$TMP/tr.sb")" "0 0 0"
	TRACE=pread64,io_uring_enter sb "${P[@]}" --ioengine=io_uring --file-test-mode=rndrd --events=100 run
	check "sbio --ioengine=io_uring: reads through io_uring_enter (exit $SB_RC)" \
		test "$SB_RC" = 0 -a "$(calls sb pread64)" = 0 -a "$(grep -c io_uring_enter "$TMP/tr.sb")" -gt 0
}

# ---------------------------------------------------------------- Values sbio refuses
row_values_events() {
	suite_refuses --events=-1
	suite_refuses --max-requests=-1
}
row_values_time() {
	suite_refuses --time=-1
	folders val
	prep
	refused "--max-time=-1" --events=10 --max-time=-1
}
row_values_interval() { suite_refuses --report-interval=-1; }
row_values_seed() { suite_refuses --rand-seed=-1; }
row_values_sizes() {
	suite_refuses --file-total-size=32M7
	suite_refuses --file-block-size=16K9
	folders val
	prep
	# sysbench reads 8M7 as 8M, the set's size.
	refused "--file-total-size=8M7 (sysbench reads 8M)" --events=10 --file-total-size=8M7
}
row_values_num_threads() { suite_refuses --num-threads=0; }
row_values_threads() {
	# sysbench starts 100001 threads: too many for a test to start; sbio alone.
	folders val
	prep
	sb "${P[@]}" --file-test-mode=rndrd --events=10 --threads=100001 run
	eq "--threads=100001: sbio refuses (exit 2)" "$SB_RC" 2
	says sb "sbio says what it accepts" '1 to 100000'
}
row_values_merged() {
	suite_refuses --file-merged-requests=100000
	folders val
	prep
	# 512-byte blocks: sysbench allocates a merged request's buffer (65537 blocks).
	refused "--file-merged-requests=65537" --events=10 --file-block-size=512 --file-merged-requests=65537
	says sb "sbio names --file-merged-requests" '--file-merged-requests'

}
row_values_backlog() {
	suite_refuses --file-async-backlog=0
	folders val
	prep
	refused "--file-async-backlog=65537" --events=10 --file-async-backlog=65537
}

# ---------------------------------------------------------------- the registry
# ROW<TAB>CHECK: a function above, "suite:TEXT" (sysbench_suite.sh runs it: TEXT is its
# check), "oneliners" (a `differs` line of tests/sysbench/oneliners.txt names the row, and
# sysbench_oneliners.sh fails when the two reports no longer differ there), or "pending:WHY"
# (no check yet; a skip, which CI counts as a failure).
ROWS=$(
	cat <<'EOF'
Data written by prepare	row_fill
Write size in prepare	row_prepare_writes
Files in the way	row_in_the_way
Interrupted prepare	row_interrupted
`cleanup`	row_cleanup
Whose files	row_whose
Two commands on one set	row_lock
Fewer bytes than files (`--file-total-size=1 --file-num=4`)	row_fewer
`run` on another shape	row_shape
Read-only modes	row_readonly
Request generation	row_request_generation
Open descriptors	row_descriptors
Periodic fsync	row_periodic_fsync
`--max-requests=N`	row_max_requests
Which files a round fsyncs	row_fsync_scope
Random offsets	row_random_offsets
Sequential tails under O_DIRECT	row_direct_tails
seqwr	row_seqwr
Random numbers	row_random_numbers
`--rate`	row_rate
"execution time" under `--rate`	row_rate_execution
`--file-merged-requests=N`	row_merged
`--file-fsync-all`	row_fsync_all
Latency	row_latency
Latency under `--file-io-mode=async`	oneliners
Histogram accuracy	row_histogram
Counts	row_counts
A read mode's header has no fsync lines	oneliners
The sync call	row_sync_call
Interim lines (`--report-interval`)	row_interim
`--verbosity`	row_verbosity
Exit codes	row_exit_codes
Old spellings (`--num-threads`, `--max-requests`, `--max-time`, `--tx-rate`, `--test=fileio`)	row_old_spellings
Options that do not concern file I/O (`--rand-type`, `--db-driver`, `--mysql-*`, …)	row_other_options
`--warmup-time`	suite:--warmup-time=1: $(sysbench --version) has no such option (exit 1)
What is checked	row_what_checked
Which thread touches a block	row_which_thread
A set prepared without it	row_prepared_without
A write without it on a verified set	row_write_without
`prepare --script`	row_prepare_script
`sync`	suite:same_counts "$m, 150 events" "${c#*:}"
`async`: submission	row_async_submit
`async`: periodic and end fsyncs	row_async_fsync
`async`: `--file-fsync-all`	row_async_fsync_all
`async`: the depth	row_async_depth
`mmap`	row_mmap
`mmap`: whose mappings	row_mmap_mappings
io_uring, null	row_io_uring_null
Latency of a request	row_latency_request
`--events=-1`, `--max-requests=-1`	row_values_events
`--time=-1`, `--max-time=-1`	row_values_time
`--report-interval=-1`	row_values_interval
`--rand-seed=-1`	row_values_seed
sizes with characters after the unit: `3G7`, `32M7`, `16K9`	row_values_sizes
`--num-threads=0`	row_values_num_threads
`--threads` above 100000	row_values_threads
`--file-merged-requests` above 65536	row_values_merged
`--file-async-backlog=0` or above 65536 without `--file-io-mode=async`	row_values_backlog
EOF
)

# The page's rows: the first cell of every table line but each table's header (the line
# above a rule |---|) and the rule itself; a row without a name gives an empty line.
doc_rows() {
	awk -F'|' '/^\|/ && /^[|:\- ]+$/ { held = 0; next }
		/^\|/ { if (held) print n; n = $2; gsub(/^ +| +$/, "", n); held = 1; next }
		{ if (held) print n; held = 0 }
		END { if (held) print n }' "$DOC"
}
dups=$(doc_rows | sort | uniq -d)
eq "every row of doc/sysbench.md has a name of its own" "$dups" ""
check "doc/sysbench.md has rows ($(doc_rows | wc -l))" test "$(doc_rows | wc -l)" -gt 0
while IFS= read -r name; do
	if [ -z "$name" ]; then
		notok "doc/sysbench.md has a row without a name (its first cell)"
	elif ! grep -qF -x -- "$name" <(cut -f1 <<<"$ROWS"); then
		notok "doc/sysbench.md's row '$name' has no check here"
	fi
done < <(doc_rows)

while IFS=$'\t' read -r name how; do
	if ! grep -qF -x -- "$name" <(doc_rows); then
		notok "a check for the row '$name', which doc/sysbench.md no longer has"
		continue
	fi
	T0=$T
	T="$T0: $name"
	case $how in
	suite:*) in_suite "the row's difference" "${how#suite:}" ;;
	oneliners)
		check "sysbench_oneliners.sh checks it still differs (a differs line names the row)" \
			awk -F'\t' -v r="$name" '$1 == "differs" && $4 == r { f = 1 } END { exit !f }' "$CORPUS"
		;;
	pending:*) skip "no check yet: ${how#pending:}" ;;
	*)
		n0=$RESULTS
		"$how"
		[ "$RESULTS" -gt "$n0" ] || notok "its check $how printed no result"
		;;
	esac
	T=$T0
done <<<"$ROWS"
