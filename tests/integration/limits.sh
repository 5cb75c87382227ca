#!/bin/bash
# The stock limits a first run meets, and runs that cannot start: sysbench's classic
# 16-thread command under `ulimit -n 1024` (descriptors shared, or the soft limit raised),
# 16 threads of mmap under `ulimit -n 256` (mappings shared),
# a limit too low for any plan (exit 2, one line, nothing printed on stdout), files this
# user may not open and threads that cannot be created (the error alone, no report), a
# block larger than the files (refused before the header). Real files, strace for what the
# kernel saw.
source "$(dirname "$0")/lib.sh"

SET=$TMP/set
mkdir -p "$SET"
cd "$SET" || exit 1
"$SBIO" prepare --file-total-size=64M >/dev/null 2>&1 || notok "prepare a 128-file set"

# O_RDWR opens of the set's files in an strace log: the workers' and the runner's.
rdwr_opens() { grep -c 'openat(.*test_file\.[0-9]*", O_RDWR' "$1"; }

# sysbench's classic command line, under ulimit -n 1024 (soft and hard): 16 threads x 128
# files need 2048 descriptors of their own; they share one per file instead.
(
	ulimit -n 1024
	strace -f -qq -e trace=openat -o "$TMP/strace" "$SBIO" --num-threads=16 --test=fileio \
		--file-total-size=64M --file-test-mode=rndrw --time=1 run -o "$TMP/classic.json"
) >"$TMP/out" 2>"$TMP/err"
eq "the classic 16-thread rndrw command runs under ulimit -n 1024" "$?" 0
check "the report says the files are shared by the threads" \
	grep -q '^Files opened once and shared by the threads' "$TMP/out"
n=$(rdwr_opens "$TMP/strace")
# 128 checked before the header, 128 shared: never one per thread and file.
check "each file is opened for the run once, not once per thread (got $n O_RDWR opens)" \
	test "$n" -le 256
eq "the JSON says so" "$(json_get "$TMP/classic.json" result.descriptors)" shared
check "it measured" test "$(events_of "$TMP/classic.json")" -gt 0

# A soft limit below what the threads need and a hard one above: raised, each thread its own.
(
	ulimit -S -n 1024
	ulimit -H -n 4096
	strace -f -qq -e trace=openat -o "$TMP/strace" "$SBIO" --threads=16 \
		--file-total-size=64M --file-test-mode=rndrd --time=1 run -o "$TMP/raised.json"
) >"$TMP/out" 2>"$TMP/err"
eq "16 threads under a soft limit of 1024 (hard 4096) run" "$?" 0
check "the report says the soft limit was raised" \
	grep -q '^Open-file limit raised from 1024 to ' "$TMP/out"
n=$(grep -c 'openat(.*test_file\.[0-9]*", O_RDONLY' "$TMP/strace")
check "every thread opened every file ($n read-only opens >= 16 x 128)" test "$n" -ge 2048
eq "the JSON says each thread had its own" "$(json_get "$TMP/raised.json" result.descriptors)" \
	per-thread

# mmap under a stock limit (ulimit -n 256, soft and hard): 16 threads x 128 files would need
# 2048 descriptors and mappings of their own; each file is mapped once and the threads share
# the mappings, as they share descriptors with the other engines. strace: each file opened
# read-write at most twice (once checked before the header, once for the run) and mapped
# once; every fsync the report counts is one msync; the events are those asked for.
(
	ulimit -n 256
	strace -f -qq -y -e trace=openat,mmap,msync -o "$TMP/strace" "$SBIO" --threads=16 \
		--file-io-mode=mmap --file-total-size=64M --file-test-mode=rndrw --events=4000 run \
		-o "$TMP/mmap.json"
) >"$TMP/out" 2>"$TMP/err"
eq "16 threads of mmap under ulimit -n 256: exit status" "$?" 0
check "the report says the files are shared by the threads" \
	grep -q '^Files opened once and shared by the threads' "$TMP/out"
eq "the JSON says so" "$(json_get "$TMP/mmap.json" result.descriptors)" shared
n=$(rdwr_opens "$TMP/strace")
check "each file is opened for the run once, not once per thread (got $n O_RDWR opens)" \
	test "$n" -le 256
eq "each of the 128 files is mapped once" \
	"$(grep -E '^[0-9]+ +mmap\(.*MAP_SHARED.*<[^>]*/test_file\.[0-9]+>' "$TMP/strace" | grep -o 'test_file\.[0-9]*' | sort | uniq -c | awk '{print $1}' | sort -u | paste -sd ' ') $(grep -E '^[0-9]+ +mmap\(.*MAP_SHARED.*<[^>]*/test_file\.[0-9]+>' "$TMP/strace" | grep -o 'test_file\.[0-9]*' | sort -u | wc -l)" "1 128"
read -r r w f < <(rwf_of "$TMP/mmap.json")
read -r p e iw < <(pew_of "$TMP/mmap.json")
if [[ "$r $w $f $p" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]]; then
	eq "the events asked for: reads + writes + periodic fsyncs" \
		"$(events_of "$TMP/mmap.json") $((r + w + p))" "4000 4000"
	eq "every fsync reported is one msync (strace)" "$(grep -cE '^[0-9]+ +msync\(' "$TMP/strace")" "$f"
else
	notok "the JSON's counts (reads, writes, fsyncs, periodic: '$r' '$w' '$f' '$p')"
fi

# A limit too low for any plan (128 shared descriptors do not fit under 100): refused before
# anything is printed or started.
(
	ulimit -n 100
	"$SBIO" --threads=16 --ioengine=mmap --file-total-size=64M --file-test-mode=rndrd \
		--time=1 run
) >"$TMP/out" 2>"$TMP/err"
eq "too few descriptors for any plan: exit 2" "$?" 2
stderr_one_line "one line on stderr"
check "it says how many are needed and names the hard limit" \
	grep -q 'need [0-9]* open descriptors; the hard limit is 100 (ulimit -Hn)' "$TMP/err"
check "nothing on stdout (no header, no report)" test ! -s "$TMP/out"

# A block larger than the files: refused before the header.
expect_exit 2 "a 64 MiB block on 512 KiB files: exit 2" "$SBIO" --file-total-size=64M \
	--file-block-size=64M --file-test-mode=rndrd --time=1 run
check "its error is the only output" test ! -s "$TMP/out"
check "the sizes are said in units" grep -q '=64 MiB is larger than the files (512 KiB)' \
	"$TMP/err"

# Files this user may not open for writing: the error alone, before the header.
if need_root && command -v setpriv >/dev/null; then
	chmod 755 "$TMP" "$SET"
	as_nobody \
		--file-total-size=64M --file-test-mode=rndrw --time=1 run >"$TMP/out" 2>"$TMP/err"
	eq "files another user cannot write: refused before the run, exit 2" "$?" 2
	check "one line on stderr, naming the file, its mode and owner" \
		grep -q 'test_file\.0 is not writable by you (mode 0644, owner root (uid 0)), and --file-test-mode=rndrw writes to the set' \
		"$TMP/err"
	stderr_one_line "only one line"
	check "nothing on stdout" test ! -s "$TMP/out"
else
	skip "needs root and setpriv to run as another user"
fi

# Threads that cannot be created (400 stacks of 8 MiB do not fit under ulimit -v): the run never
# measured, so its error is all there is. A sanitizer's shadow memory does not fit under
# ulimit -v at all: the plain build checks this.
[ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ] && exit 0
(
	ulimit -s 8192
	ulimit -v 1500000
	"$SBIO" --threads=400 --file-total-size=64M --file-test-mode=rndrd --time=1 run \
		-o "$TMP/nothreads.json"
) >"$TMP/out" 2>"$TMP/err"
eq "threads that cannot be created: exit 1" "$?" 1
check "one line: pthread_create's error" grep -q '^sbio: pthread_create for thread' "$TMP/err"
stderr_one_line "only one line"
check "no header, no report on stdout" test ! -s "$TMP/out"
check "no result document" test ! -s "$TMP/nothreads.json"

# seqwr on an empty folder makes its own set; refused before it starts, it takes it back:
# bad input leaves nothing on disk.
E=$TMP/empty
mkdir -p "$E"
expect_exit 2 "seqwr with a 64 MiB block on an empty folder: exit 2" "$SBIO" --dir="$E" \
	--file-total-size=64M --file-block-size=64M --file-test-mode=seqwr --time=1 run
check "nothing on stdout" test ! -s "$TMP/out"
eq "the folder is left empty" "$(ls -A "$E")" ""
