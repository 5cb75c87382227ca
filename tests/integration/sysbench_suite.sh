#!/bin/bash
# sysbench 1.0.20's own fileio test suite (test_fileio, cmdline, opt_help, and the opt_rate,
# opt_report_interval, opt_warmup_time and opt_histogram cases with fileio), the commands
# that need no cram harness. Each case runs sbio, and `sysbench fileio` with the same
# arguments beside it when sysbench is installed (make test installs it), each in its own
# folder, and compares exit codes, the files made (names and sizes) and the reads, writes
# and fsyncs on the set's files (strace). Where sbio differs on purpose, the case expects
# that difference; doc/sysbench.md lists each one and why. Without sysbench the sbio side
# runs alone against sysbench's figures (measured with sysbench 1.0.20), and a note says so.
source "$(dirname "$0")/lib.sh"

SY=$TMP/sy # sysbench's folder
SB=$TMP/sb # sbio's folder
mkdir -p "$SY" "$SB"
if command -v sysbench >/dev/null; then
	HAVE_SY=1
	echo "# $(sysbench --version) runs beside sbio"
else
	HAVE_SY=
	echo "# sysbench is not installed: sbio runs alone against sysbench 1.0.20's figures;" \
		"the side-by-side comparisons are not made (make test installs sysbench)"
fi
P=(--file-num=4 --file-total-size=32M) # test_fileio's arguments
TRACE_CALLS=openat,pread64,pwrite64,fsync,fdatasync

# both ARGS…: `sysbench fileio ARGS…` in $SY (when installed) and `sbio ARGS…` in $SB, each
# traced (system calls in $TMP/sy.tr, $TMP/sb.tr); output in $TMP/sy.out, $TMP/sb.out; exit
# codes in SY_RC, SB_RC (SY_RC empty without sysbench).
both() {
	SY_RC=
	if [ -n "$HAVE_SY" ]; then
		(cd "$SY" && strace -f -qq -y -e trace=$TRACE_CALLS -o "$TMP/sy.tr" \
			sysbench fileio "$@" >"$TMP/sy.out" 2>&1)
		SY_RC=$?
	fi
	(cd "$SB" && strace -f -qq -y -e trace=$TRACE_CALLS -o "$TMP/sb.tr" \
		"$SBIO" "$@" >"$TMP/sb.out" 2>&1)
	SB_RC=$?
}

# sb ARGS…: sbio alone, in its folder.
sb() { (cd "$SB" && "$SBIO" "$@"); }

# files_of DIR: the test files in DIR, "name:size" in name order (sbio's sbio.manifest aside:
# sysbench keeps no manifest).
files_of() {
	(cd "$1" && for f in test_file.*; do [ -e "$f" ] && printf '%s:%s ' "$f" "$(stat -c %s "$f")"; done)
}
# counts_of TRACE: "R W F", the pread64, pwrite64 and fsync/fdatasync calls on test files.
counts_of() {
	local r w f
	r=$(grep -c 'pread64([0-9]*<[^>]*/test_file\.' "$1")
	w=$(grep -c 'pwrite64([0-9]*<[^>]*/test_file\.' "$1")
	f=$(grep -cE 'f(data)?sync\([0-9]*<[^>]*/test_file\.' "$1")
	echo "$r $w $f"
}
# events_in OUT: the "total number of events" of a report.
events_in() { sed -n 's/^ *total number of events: *\([0-9]*\).*/\1/p' "$1"; }
# opened_with TRACE FLAG: test_file.0 was opened with FLAG.
opened_with() { grep -q "openat(.*\"test_file\.0\", [^)]*$2" "$1"; }

# rc DESC SY SB: the exit codes (sysbench's when it ran).
rc() {
	eq "$1: sbio exits $3" "$SB_RC" "$3"
	[ -n "$HAVE_SY" ] && eq "$1: sysbench beside it exits $2" "$SY_RC" "$2"
}
# same_files DESC WANT: the test files sbio left are WANT, and sysbench's are the same.
same_files() {
	eq "$1: sbio's files" "$(files_of "$SB")" "$2"
	[ -n "$HAVE_SY" ] && eq "$1: sysbench's files are sbio's" "$(files_of "$SY")" "$(files_of "$SB")"
}
# same_counts DESC WANT: sbio's "R W F" on the set is WANT (sysbench 1.0.20's), and
# sysbench's, when it ran, are sbio's.
same_counts() {
	eq "$1: sbio's reads, writes, fsyncs" "$(counts_of "$TMP/sb.tr")" "$2"
	[ -n "$HAVE_SY" ] && eq "$1: sysbench's reads, writes, fsyncs are sbio's" \
		"$(counts_of "$TMP/sy.tr")" "$(counts_of "$TMP/sb.tr")"
}
# same_events DESC WANT: both reports give WANT events.
same_events() {
	eq "$1: sbio's events" "$(events_in "$TMP/sb.out")" "$2"
	[ -n "$HAVE_SY" ] && eq "$1: sysbench's events" "$(events_in "$TMP/sy.out")" "$2"
}
# says WHO PATTERN DESC: the output of sbio (sb) or of sysbench (sy, when it ran) matches.
says() {
	[ "$1" = sy ] && [ -z "$HAVE_SY" ] && return 0
	if grep -qE -- "$2" "$TMP/$1.out"; then ok "$3"; else
		notok "$3 (no /$2/ in: $(head -c 300 "$TMP/$1.out" | tr '\n' '|'))"
	fi
}

SET4="test_file.0:8388608 test_file.1:8388608 test_file.2:8388608 test_file.3:8388608 "
NONE=""

# ---- test_fileio ----
both "${P[@]}" prepare
rc "prepare 4 x 8 MiB" 0 0
same_files "prepare 4 x 8 MiB" "$SET4"
says sb '^Creating file test_file\.3' "prepare: sbio names each file it creates, as sysbench"
check "prepare: sbio's manifest beside the files" test -f "$SB/sbio.manifest"

both "${P[@]}" run
rc "run without --file-test-mode (exit codes: doc/sysbench.md)" 1 2
says sb 'file-test-mode' "run without --file-test-mode: sbio names the option"
says sy 'Missing required argument: --file-test-mode' "run without --file-test-mode: sysbench names it"

# Sync I/O, 150 events: the same calls (sysbench 1.0.20: 88 reads + 58 writes + 4 periodic
# fsyncs are the 150 events of rndrw, then 4 end fsyncs).
for c in "rndrw:88 58 8" "rndrd:150 0 0" "seqrd:150 0 0" "rndwr:0 146 8"; do
	m=${c%%:*}
	both "${P[@]}" --events=150 --file-test-mode="$m" run
	rc "$m, 150 events" 0 0
	same_events "$m, 150 events" 150
	same_counts "$m, 150 events" "${c#*:}"
	same_files "$m: the set is unchanged" "$SET4"
done
both "${P[@]}" --max-requests=150 --file-test-mode=rndrd run
rc "rndrd, --max-requests=150" 0 0
same_events "rndrd, --max-requests=150" 150

# --validate on a set prepared without it: the blocks written in the run are checked.
both "${P[@]}" --events=150 --file-test-mode=rndwr --validate run
rc "rndwr --validate on a set prepared without it" 0 0
says sb '^Validation checks: on\.' "rndwr --validate: sbio prints sysbench's \"Validation checks: on.\""
says sy '^Validation checks: on\.' "rndwr --validate: sysbench prints it"
same_counts "rndwr --validate" "0 146 8"

both "${P[@]}" --events=150 --file-test-mode=foo run
rc "--file-test-mode=foo" 1 2
same_files "--file-test-mode=foo: the set is untouched" "$SET4"

both "${P[@]}" cleanup
rc "cleanup" 0 0
same_files "cleanup" "$NONE"
check "cleanup: sbio's manifest is gone too" test ! -e "$SB/sbio.manifest"

both "${P[@]}" --file-test-mode=rndrw run
rc "run with no set (prepare first)" 1 2
same_files "run with no set: nothing is made" "$NONE"

# ---- test_fileio: a set of another size ----
both "${P[@]}" --file-total-size=1M prepare
same_files "prepare 1 MiB" "test_file.0:262144 test_file.1:262144 test_file.2:262144 test_file.3:262144 "
both "${P[@]}" --file-test-mode=rndwr --events=1 run
rc "run with 32 MiB on a 1 MiB set" 1 2
same_files "run with 32 MiB on a 1 MiB set: untouched" \
	"test_file.0:262144 test_file.1:262144 test_file.2:262144 test_file.3:262144 "
# seqwr: sysbench re-creates the files at any size; sbio refuses the other shape (a seqwr run
# on the wrong --file-total-size is a mistake, doc/sysbench.md "run on another shape").
both "${P[@]}" --file-test-mode=seqwr --events=1 run
rc "seqwr with 32 MiB on a 1 MiB set" 0 2
eq "seqwr with 32 MiB on a 1 MiB set: sbio leaves the set whole" "$(files_of "$SB")" \
	"test_file.0:262144 test_file.1:262144 test_file.2:262144 test_file.3:262144 "
both "${P[@]}" cleanup
both "${P[@]}" --file-num=8 prepare
rc "prepare 8 x 4 MiB" 0 0
both "${P[@]}" --file-test-mode=rndwr --events=1 run
rc "run with --file-num=4 on 8 files" 1 2
both "${P[@]}" --file-num=8 cleanup
same_files "cleanup of 8 files" "$NONE"

# ---- test_fileio: a block size that does not divide the file size ----
G=(--file-total-size=1M --file-num=128 --file-block-size=4097 --events=2)
both "${G[@]}" prepare
rc "prepare 128 files, 4097-byte blocks" 0 0
# Whole blocks, as sysbench writes them: 8 KiB per file is two 4097-byte blocks.
eq "prepare 128 files, 4097-byte blocks: sbio's sizes are whole blocks" \
	"$(files_of "$SB" | tr ' ' '\n' | cut -d: -f2 | sort | uniq -c | tr -s ' ')" " 128 8194"
[ -n "$HAVE_SY" ] && eq "prepare 128 files, 4097-byte blocks: sysbench's files are sbio's" \
	"$(files_of "$SY")" "$(files_of "$SB")"
for m in seqrd rndrd; do
	both "${G[@]}" --file-test-mode=$m run
	rc "$m on 4097-byte blocks" 0 0
	same_counts "$m on 4097-byte blocks" "2 0 0"
done
both "${G[@]}" cleanup
same_files "cleanup of 128 files" "$NONE"

# ---- whole blocks: 100 KiB over 3 files is 3 x 3 blocks of 16 KiB ----
both --file-num=3 --file-total-size=100K prepare
same_files "prepare 3 files, 100 KiB" "test_file.0:49152 test_file.1:49152 test_file.2:49152 "
both --file-num=3 --file-total-size=100K cleanup

# ---- extra file flags ----
X=(--file-total-size=16K --file-num=1)
both "${X[@]}" --file-extra-flags=dsync,sync prepare
rc "prepare --file-extra-flags=dsync,sync" 0 0
same_files "prepare --file-extra-flags=dsync,sync" "test_file.0:16384 "
check "prepare --file-extra-flags=dsync,sync: sbio opens the file O_SYNC" opened_with "$TMP/sb.tr" O_SYNC
says sb '^Extra file open flags:.*sync' \
	"prepare --file-extra-flags: sbio prints sysbench's \"Extra file open flags\" line"
[ -n "$HAVE_SY" ] && check "prepare --file-extra-flags=dsync,sync: sysbench opens it O_SYNC" \
	opened_with "$TMP/sy.tr" O_SYNC
both "${X[@]}" --file-extra-flags=dsync prepare
rc "prepare again on the whole set" 0 0
eq "prepare again on the whole set: sbio writes nothing" "$(counts_of "$TMP/sb.tr" | cut -d' ' -f2)" 0
[ -n "$HAVE_SY" ] && eq "prepare again: sysbench writes nothing either" \
	"$(counts_of "$TMP/sy.tr" | cut -d' ' -f2)" 0
both "${X[@]}" --file-extra-flags= cleanup
rc "cleanup --file-extra-flags=" 0 0
same_files "cleanup --file-extra-flags=" "$NONE"

# ---- test_fileio: --file-fsync-freq=0 keeps the end fsync ----
F=(--file-total-size=160K --file-num=10 --file-test-mode=seqwr --file-fsync-freq=0 --events=0 --time=1)
both "${F[@]}" prepare
both "${F[@]}" --file-fsync-end=1 run
rc "seqwr --file-fsync-freq=0 --file-fsync-end=1" 0 0
says sb '^ *fsyncs/s: *[1-9]' "seqwr --file-fsync-freq=0: sbio still fsyncs at the end"
says sy '^ *fsyncs/s: *[1-9]' "seqwr --file-fsync-freq=0: sysbench still fsyncs at the end"
both "${F[@]}" --file-fsync-end=off run
rc "seqwr --file-fsync-end=off" 0 0
says sb '^ *fsyncs/s: *0\.00' "seqwr --file-fsync-end=off: sbio reports no fsync"
says sy '^ *fsyncs/s: *0\.00' "seqwr --file-fsync-end=off: sysbench reports no fsync"
both "${F[@]}" cleanup

# ---- cmdline ----
both "${P[@]}" --invalid-option prepare
rc "an unknown option" 1 2
same_files "an unknown option: nothing is made" "$NONE"
both "${P[@]}" prepare
# A list option without a value is the empty list; it does not take the next option.
both "${P[@]}" --file-extra-flags --file-test-mode=rndrd --events=5 run
rc "--file-extra-flags without a value, then --file-test-mode" 0 0
same_events "--file-extra-flags without a value" 5
# --config-file: the general options (threads, events, time) come from the file.
printf 'threads=2\nevents=20\ntime=0\n' >"$TMP/config"
both "${P[@]}" --config-file="$TMP/config" --file-test-mode=rndrd run
rc "--config-file" 0 0
same_events "--config-file (events=20)" 20
says sb '^Number of threads: 2' "--config-file: sbio runs the file's 2 threads"
says sy '^Number of threads: 2' "--config-file: sysbench runs the file's 2 threads"
# --file-rw-ratio=0: rndrw writes only.
both "${P[@]}" --file-rw-ratio=0 --file-test-mode=rndrw --events=50 run
rc "rndrw --file-rw-ratio=0" 0 0
same_counts "rndrw --file-rw-ratio=0: writes only" "0 50 4"

# ---- opt_help: --help and --version, with and without =on ----
for o in --help --help=on; do
	both "$o"
	rc "$o" 0 0
	says sb '^Usage:' "$o: sbio prints its usage"
done
for o in --version --version=on; do
	both "$o"
	rc "$o" 0 0
	says sb '^sbio [0-9]' "$o: sbio prints its version"
done
# sysbench 0.4's most-copied command line: --test=fileio, --init-rng=on, --max-requests.
# sysbench 1.0.20 refuses --init-rng; sbio takes it, and says once that 0.4 stopped after
# 10000 requests by default where 1.0 and sbio run 10 s.
OLD=(--test=fileio --num-threads=1 --init-rng=on "${P[@]}" --file-test-mode=rndrd)
sb "${OLD[@]}" --max-requests=10 run >"$TMP/sb.out" 2>"$TMP/sb.err"
eq "sysbench 0.4's command line with --init-rng=on: sbio exits 0" "$?" 0
eq "sysbench 0.4's command line: 10 events" "$(events_in "$TMP/sb.out")" 10
sb "${OLD[@]}" --time=1 run >"$TMP/sb.out" 2>"$TMP/sb.err"
eq "--test=fileio without --max-requests: one note on 0.4's 10000 requests" \
	"$(cat "$TMP/sb.out" "$TMP/sb.err" | grep -c '10000')" 1
if [ -n "$HAVE_SY" ]; then
	(cd "$SY" && sysbench "${OLD[@]}" --max-requests=10 run >"$TMP/sy.out" 2>&1)
	SY_RC=$?
	eq "sysbench 0.4's command line: sysbench 1.0.20 refuses --init-rng (exit 1)" "$SY_RC" 1
fi

# ---- opt_rate: a rate that cannot be paced fails; one that can is kept ----
both "${P[@]}" --rate=2000000000 --file-test-mode=rndrd --time=1 --events=0 run
rc "--rate=2000000000" 1 2
eq "--rate=2000000000: sbio refuses before it starts (no read)" "$(counts_of "$TMP/sb.tr")" "0 0 0"
both "${P[@]}" --rate=100 --file-test-mode=rndrd --time=2 --events=0 run
rc "--rate=100 for 2 s" 0 0
# sbio paces each op to its slot; sysbench's arrivals overshoot here (211 and 228 of 200).
near "--rate=100 for 2 s: sbio's events" "$(events_in "$TMP/sb.out")" 200 5

# ---- opt_report_interval: sbio never prints a line for the interval that ends with the
# run; sysbench does when its timer fires before the workers stop (1 or 2 lines here) ----
both "${P[@]}" --report-interval=1 --file-test-mode=rndrd --time=2 --events=0 run
rc "--report-interval=1 --time=2" 0 0
eq "--report-interval=1 --time=2: sbio prints one interim line, at 1 s" \
	"$(grep -c '^\[ *1s \]' "$TMP/sb.out")/$(grep -c '^\[' "$TMP/sb.out")" "1/1"
if [ -n "$HAVE_SY" ]; then
	n=$(grep -c '^\[' "$TMP/sy.out")
	check "--report-interval=1 --time=2: sysbench prints 1 or 2 ($n)" test "$n" -ge 1 -a "$n" -le 2
fi

# ---- opt_warmup_time ----
both "${P[@]}" --warmup-time=-1 --file-test-mode=rndrd run
rc "--warmup-time=-1" 1 2
sb "${P[@]}" --warmup-time=1 --time=0 --events=3 --file-test-mode=rndrd run >"$TMP/sb.out" 2>&1
eq "--warmup-time=1 --events=3: sbio exits 0" "$?" 0
eq "--warmup-time=1 --events=3: the warm-up is not counted" "$(events_in "$TMP/sb.out")" 3
sb "${P[@]}" --warmup-time=1 --time=1 --events=0 --file-test-mode=rndrd run >"$TMP/sb.out" 2>&1
t=$(sed -n 's/^ *total time: *\([0-9.]*\)s/\1/p' "$TMP/sb.out")
lasted "--warmup-time=1 --time=1: the measured time is 1 s" "$t" 1 5 "$TMP/sb.out"
# sysbench 1.0.20 has no --warmup-time (later sysbench has).
if [ -n "$HAVE_SY" ] && ! sysbench --help | grep -q -- --warmup-time; then
	(cd "$SY" && sysbench fileio "${P[@]}" --warmup-time=1 --file-test-mode=rndrd run >"$TMP/sy.out" 2>&1)
	SY_RC=$?
	eq "--warmup-time=1: $(sysbench --version) has no such option (exit 1)" "$SY_RC" 1
fi

# ---- opt_histogram: --histogram (alone, before the command), 2 events, 2 threads ----
both "${P[@]}" --histogram --file-test-mode=rndrd --events=2 --threads=2 run
rc "--histogram, 2 events on 2 threads" 0 0
same_events "--histogram" 2
eq "--histogram: sbio's histogram of reads holds the 2 reads" \
	"$(sed -n '/^Per-operation latency histogram, read/,/^$/p' "$TMP/sb.out" | awk '/\|/ { n += $NF } END { print n + 0 }')" 2
eq "--histogram: sbio's sysbench histogram holds 2 events" \
	"$(sed -n '/^Latency histogram/,/^ *$/p' "$TMP/sb.out" | awk '/\|/ { n += $NF } END { print n + 0 }')" 2
[ -n "$HAVE_SY" ] && eq "--histogram: sysbench's histogram holds 2 events" \
	"$(sed -n '/^Latency histogram/,/^ *$/p' "$TMP/sy.out" | awk '/\|/ { n += $NF } END { print n + 0 }')" 2

# ---- sbio's stricter refusals (doc/sysbench.md): sysbench runs, sbio exits 2, one line ----
for o in --events=-1 --max-requests=-1 --time=-1 --report-interval=-1 --rand-seed=-1 \
	--num-threads=0 --file-total-size=32M7 --file-block-size=16K9 --file-merged-requests=100000 \
	--file-async-backlog=0; do
	case $o in --events=* | --max-requests=*) lim=(--time=1) ;; *) lim=(--events=10) ;; esac
	both "${P[@]}" --file-test-mode=rndrd "${lim[@]}" "$o" run
	rc "$o (sbio refuses what sysbench takes)" 0 2
	eq "$o: sbio says why in one line" "$(grep -vc '^sbio: note:' "$TMP/sb.out")" 1
	eq "$o: sbio touched no file" "$(counts_of "$TMP/sb.tr")" "0 0 0"
done
both "${P[@]}" cleanup
same_files "final cleanup" "$NONE"
