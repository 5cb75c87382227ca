#!/bin/bash
# File set: prepare (sizes, fill, prealloc), reuse, foreign files and symlinks, cleanup,
# shape mismatch, interrupted prepare, bad command lines, sysbench spellings, help, version.
source "$(dirname "$0")/lib.sh"

MiB=1048576

# newdir NAME: a fresh empty folder under $TMP; prints its path.
newdir() {
	rm -rf "${TMP:?}/$1"
	mkdir -p "$TMP/$1"
	echo "$TMP/$1"
}
# sizes DIR: "name size" of every test_file.* in DIR, in name order, one line.
sizes() { (cd "$1" && stat -c '%n=%s' test_file.* 2>/dev/null | sort -V | tr '\n' ' ' | sed 's/ $//'); }
# stamps DIR: name, size and mtime (ns) of every test_file.*.
stamps() { (cd "$1" && stat -c '%n %s %y' test_file.* 2>/dev/null | sort -V); }
# mf DIR KEY: a value from DIR's manifest.
mf() { sed -n "s/^$2=//p" "$1/sbio.manifest" 2>/dev/null; }
# listing DIR: every entry of DIR, one line.
listing() { ls -A "$1" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//'; }
# err_has DESC STRING…: the last command's stderr (notes aside) contains every STRING.
err_has() {
	local desc=$1 s
	shift
	for s in "$@"; do
		if ! grep -v '^sbio: note:' "$TMP/err" | grep -qF -- "$s"; then
			notok "$desc (stderr lacks '$s': $(head -c 300 "$TMP/err" | tr '\n' '|'))"
			return
		fi
	done
	ok "$desc"
}
# out_has DESC STRING: the last command's stdout contains STRING.
out_has() {
	if grep -qF -- "$2" "$TMP/out"; then ok "$1"; else
		notok "$1 (stdout lacks '$2': $(head -c 300 "$TMP/out" | tr '\n' '|'))"
	fi
}
# all_zero FILE: FILE holds only zero bytes.
all_zero() { cmp -s -n "$(stat -c %s "$1")" "$1" /dev/zero; }
not() { ! "$@"; }
# in_dir DIR CMD…: run CMD with DIR as the working folder.
in_dir() { (cd "$1" && shift && "$@"); }

# --- prepare: exact sizes, manifest, options before and after the command -----------------
d=$(newdir sizes)
expect_exit 0 "prepare, options before the command" \
	"$SBIO" --dir="$d" --file-num=4 --file-total-size=10M prepare
eq "4 files of 10M/4 bytes each" "$(sizes "$d")" \
	"test_file.0=2621440 test_file.1=2621440 test_file.2=2621440 test_file.3=2621440"
eq "manifest state=complete" "$(mf "$d" state)" complete
eq "manifest file_num" "$(mf "$d" file_num)" 4
eq "manifest total_size" "$(mf "$d" total_size)" $((10 * MiB))
eq "manifest names every file with its size" "$(grep -c '^file\.[0-3]=test_file\.[0-3] 2621440$' "$d/sbio.manifest")" 4
eq "manifest records the block size" "$(mf "$d" block_size)" 16384
eq "manifest records fill=random (default)" "$(mf "$d" fill)" random
check "no temporary manifest left behind" not test -e "$d/sbio.manifest.tmp"

d=$(newdir after)
expect_exit 0 "prepare, options after the command (--opt value syntax)" \
	"$SBIO" prepare --dir "$d" --file-num 3 --file-total-size 10M --file-block-size=4K
# As sysbench: each file gets total/num bytes (10485760/3 = 3495253), written in whole
# blocks: 854 blocks of 4 KiB = 3497984.
eq "total not divisible by num: total/num in whole blocks" "$(sizes "$d")" \
	"test_file.0=3497984 test_file.1=3497984 test_file.2=3497984"
eq "manifest state=complete (options after)" "$(mf "$d" state)" complete
eq "manifest records --file-block-size=4K" "$(mf "$d" block_size)" 4096

# --- fill ----------------------------------------------------------------------------------
d=$(newdir zero)
expect_exit 0 "prepare --file-fill=zero" \
	"$SBIO" --dir="$d" --file-num=2 --file-total-size=4M --file-fill=zero prepare
check "zero fill: test_file.0 reads back as zeros" all_zero "$d/test_file.0"
check "zero fill: test_file.1 reads back as zeros" all_zero "$d/test_file.1"
eq "zero fill: sizes" "$(sizes "$d")" "test_file.0=2097152 test_file.1=2097152"
eq "zero fill recorded in the manifest" "$(mf "$d" fill)" zero

d=$(newdir random)
expect_exit 0 "prepare with random fill (default), --rand-seed=42" \
	"$SBIO" --dir="$d" --file-num=2 --file-total-size=4M --rand-seed=42 prepare
check "random fill: test_file.0 is not all zeros" not all_zero "$d/test_file.0"
check "random fill: test_file.1 is not all zeros" not all_zero "$d/test_file.1"
check "random fill: the two files differ" not cmp -s "$d/test_file.0" "$d/test_file.1"
eq "manifest records --rand-seed as the seed" "$(mf "$d" seed)" 42
# Random data barely compresses.
gz=$(gzip -c "$d/test_file.0" | wc -c)
check "random fill does not compress (gzip $gz of 2097152 bytes)" test "$gz" -gt 2000000

d=$(newdir compr)
expect_exit 0 "prepare --file-fill=compressible:50" \
	"$SBIO" --dir="$d" --file-num=1 --file-total-size=4M --file-fill=compressible:50 prepare
eq "compressible:50 recorded in the manifest" "$(mf "$d" fill)" compressible:50
nz=$(tr -d '\000' <"$d/test_file.0" | wc -c)
# Half of each 4 KiB is zeros, the other half random (1/256 of random bytes are zero too).
near "compressible:50: about half the bytes are non-zero ($nz of 4194304)" "$nz" 2088960 2
gz=$(gzip -c "$d/test_file.0" | wc -c)
near "compressible:50: gzip shrinks it to about half ($gz)" "$gz" 2097152 8

# --- prealloc=fallocate --------------------------------------------------------------------
d=$(newdir falloc)
expect_exit 0 "prepare --file-prealloc=fallocate" \
	"$SBIO" --dir="$d" --file-num=2 --file-total-size=8M --file-prealloc=fallocate prepare
if grep -q 'Operation not supported' "$TMP/err"; then
	skip "fallocate not supported on $(stat -f -c %T "$TMP")"
else
	eq "fallocate: exact sizes" "$(sizes "$d")" "test_file.0=4194304 test_file.1=4194304"
	out_has "fallocate: says so" "fallocate"
	eq "fallocate: manifest state=complete" "$(mf "$d" state)" complete
	eq "fallocate: recorded in the manifest" "$(mf "$d" prealloc)" fallocate
	blocks=$(stat -c '%b*%B' "$d/test_file.0")
	check "fallocate: blocks are allocated ($((blocks)) bytes)" test $((blocks)) -ge 4194304
fi

# --- re-prepare reuses the set; extends a truncated file -----------------------------------
d=$(newdir reuse)
"$SBIO" --dir="$d" --file-num=3 --file-total-size=6M prepare >/dev/null 2>&1
before=$(stamps "$d")
cp "$d/test_file.1" "$TMP/reuse.1.orig"
sleep 0.05
expect_exit 0 "re-prepare of a complete set" \
	"$SBIO" --dir="$d" --file-num=3 --file-total-size=6M prepare
eq "re-prepare: no file rewritten (sizes and mtimes unchanged)" "$(stamps "$d")" "$before"
out_has "re-prepare: says it reuses the set" "Reusing"
out_has "re-prepare: says no bytes were written" "No bytes written"
expect_exit 0 "re-prepare without shape options takes the set's shape" "$SBIO" --dir="$d" prepare
eq "re-prepare without shape options: still 3 files" "$(sizes "$d")" \
	"test_file.0=2097152 test_file.1=2097152 test_file.2=2097152"

truncate -s 1M "$d/test_file.1"
before0=$(stamps "$d" | grep '^test_file\.[02] ')
expect_exit 0 "re-prepare after test_file.1 was truncated" \
	"$SBIO" --dir="$d" --file-num=3 --file-total-size=6M prepare
eq "truncated file extended back to its size" "$(sizes "$d")" \
	"test_file.0=2097152 test_file.1=2097152 test_file.2=2097152"
out_has "extension: only the missing bytes are written" "1048576 bytes written"
eq "extension: the other files are untouched" "$(stamps "$d" | grep '^test_file\.[02] ')" "$before0"
check "extension: test_file.1 has the same bytes as before (fill is deterministic)" \
	cmp -s "$d/test_file.1" "$TMP/reuse.1.orig"
eq "extension: manifest state=complete" "$(mf "$d" state)" complete

# --- a foreign file in the way -------------------------------------------------------------
d=$(newdir foreign)
head -c 5000 /dev/urandom >"$d/test_file.1"
cp -p "$d/test_file.1" "$TMP/foreign.orig"
fstamp=$(stat -c '%s %y' "$d/test_file.1")
expect_exit 2 "foreign test_file.1 (no manifest): prepare exits 2" \
	"$SBIO" --dir="$d" --file-num=4 --file-total-size=4M prepare
stderr_one_line "foreign file: one line on stderr"
err_has "foreign file: stderr names the file" "test_file.1"
check "foreign file: byte-identical after" cmp -s "$d/test_file.1" "$TMP/foreign.orig"
eq "foreign file: size and mtime unchanged" "$(stat -c '%s %y' "$d/test_file.1")" "$fstamp"
check "foreign file: no manifest created" not test -e "$d/sbio.manifest"
eq "foreign file: nothing else created" "$(listing "$d")" "test_file.1"

# --- a symlink in place of test_file.0 -----------------------------------------------------
d=$(newdir symlink)
mkdir -p "$TMP/outside"
printf 'precious data, not part of any set\n' >"$TMP/outside/target"
cp -p "$TMP/outside/target" "$TMP/target.orig"
tstamp=$(stat -c '%s %y' "$TMP/outside/target")
ln -s "$TMP/outside/target" "$d/test_file.0"
expect_exit 2 "symlink as test_file.0: prepare exits 2" \
	"$SBIO" --dir="$d" --file-num=2 --file-total-size=2M prepare
stderr_one_line "symlink: one line on stderr"
err_has "symlink: stderr names test_file.0" "test_file.0"
check "symlink: target byte-identical" cmp -s "$TMP/outside/target" "$TMP/target.orig"
eq "symlink: target size and mtime unchanged" "$(stat -c '%s %y' "$TMP/outside/target")" "$tstamp"
check "symlink: still a symlink" test -L "$d/test_file.0"
eq "symlink: nothing created (no manifest, no test_file.1)" "$(listing "$d")" "test_file.0"

# A symlink in place of a set's file after prepare: re-prepare refuses it too.
d=$(newdir symlink2)
"$SBIO" --dir="$d" --file-num=2 --file-total-size=2M prepare >/dev/null 2>&1
rm -f "$d/test_file.1"
ln -s "$TMP/outside/target" "$d/test_file.1"
expect_exit 2 "symlink in a prepared set: re-prepare exits 2" \
	"$SBIO" --dir="$d" --file-num=2 --file-total-size=2M prepare
check "symlink in a prepared set: target byte-identical" \
	cmp -s "$TMP/outside/target" "$TMP/target.orig"

# --- cleanup -------------------------------------------------------------------------------
d=$(newdir cleanup)
"$SBIO" --dir="$d" --file-num=4 --file-total-size=4M prepare >/dev/null 2>&1
echo foreign >"$d/test_file.99"
echo notes >"$d/notes.txt"
echo also-foreign >"$d/test_file.4"
expect_exit 0 "cleanup of a prepared set" "$SBIO" --dir="$d" cleanup
eq "cleanup removes the manifest's files and the manifest, keeps foreign files" \
	"$(listing "$d")" "notes.txt test_file.4 test_file.99"
eq "cleanup: foreign file contents untouched" "$(cat "$d/test_file.99" "$d/notes.txt" "$d/test_file.4")" \
	"$(printf 'foreign\nnotes\nalso-foreign')"
# Again: no manifest, but test files no manifest names are there (the foreign ones): the user
# asked to remove them and none was, so cleanup says so and fails (exit 2, as run and
# prepare refuse that folder), touching nothing. With no test file left, nothing was asked:
# exit 0, however often.
expect_exit 2 "cleanup again, foreign test_file.* left (no manifest): exit 2" "$SBIO" --dir="$d" cleanup
stderr_one_line "cleanup again, foreign test_file.* left: one line"
err_has "cleanup again: names the 2 files, says nothing was removed, advises --adopt" \
	"2 test_file.* files" "nothing removed" "prepare --adopt"
eq "second cleanup removes nothing" "$(listing "$d")" "notes.txt test_file.4 test_file.99"
rm -f "$d/test_file.4" "$d/test_file.99"
for i in 1 2; do
	expect_exit 0 "cleanup of a folder with neither a set nor test files ($i): exit 0" "$SBIO" --dir="$d" cleanup
	out_has "cleanup with nothing to remove ($i) says so" "No sbio file set in $d (no sbio.manifest); nothing removed"
done
eq "cleanup with nothing to remove: the folder as it was" "$(listing "$d")" "notes.txt"
e=$(newdir empty)
expect_exit 0 "cleanup on an empty folder is exit 0" "$SBIO" --dir="$e" cleanup
eq "cleanup on an empty folder creates nothing" "$(listing "$e")" ""
expect_exit 0 "cleanup with options after the command, default --dir=." \
	in_dir "$e" "$SBIO" cleanup

# --- shape mismatch ------------------------------------------------------------------------
d=$(newdir shape)
"$SBIO" --dir="$d" --file-num=4 --file-total-size=4M prepare >/dev/null 2>&1
before=$(stamps "$d")
expect_exit 2 "prepare with another --file-num: exit 2" \
	"$SBIO" --dir="$d" --file-num=8 --file-total-size=4M prepare
stderr_one_line "prepare --file-num mismatch: one line on stderr"
err_has "prepare --file-num mismatch names both values" "8" "4 files"
expect_exit 2 "prepare with another --file-total-size: exit 2" \
	"$SBIO" --dir="$d" --file-num=4 --file-total-size=8M prepare
err_has "prepare --file-total-size mismatch names both values" "is 8 MiB" "with 4 MiB"
expect_exit 2 "run with another --file-num: exit 2" \
	"$SBIO" --dir="$d" --file-num=5 --file-test-mode=rndrd --events=10 run
stderr_one_line "run --file-num mismatch: one line on stderr"
err_has "run --file-num mismatch names both values" "--file-num=5" "4 files"
expect_exit 2 "run with another --file-total-size: exit 2" \
	"$SBIO" --dir="$d" --file-total-size=2M --file-test-mode=rndrd --events=10 run
err_has "run --file-total-size mismatch names both values" "is 2 MiB" "with 4 MiB"
eq "shape mismatch: the set is untouched" "$(stamps "$d")" "$before"
eq "shape mismatch: manifest still complete" "$(mf "$d" state)" complete
expect_exit 0 "run with the set's own shape given explicitly works" \
	"$SBIO" --dir="$d" --file-num=4 --file-total-size=4M --file-test-mode=rndrd --events=10 run

# --- SIGINT during prepare -----------------------------------------------------------------
d=$(newdir sigint)
"$SBIO" --dir="$d" --file-num=2 --file-total-size=2G prepare >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 200); do # up to 10 s for the manifest to appear
	[ -e "$d/sbio.manifest" ] && break
	sleep 0.05
done
check "interrupted prepare: the manifest is written first" test -e "$d/sbio.manifest"
sleep 0.3
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
eq "SIGINT during prepare: exit 130" "$rc" 130
eq "SIGINT during prepare: manifest state=incomplete" "$(mf "$d" state)" incomplete
total=$(cat "$d"/test_file.* 2>/dev/null | wc -c)
check "SIGINT during prepare: stopped early ($total of 2 GiB written)" test "$total" -lt $((2048 * MiB))
check "SIGINT during prepare: says the set is incomplete" grep -q incomplete "$TMP/int.err"
expect_exit 2 "run on an incomplete set: exit 2" \
	"$SBIO" --dir="$d" --file-test-mode=rndrd --events=10 run
stderr_one_line "run on an incomplete set: one line on stderr"
err_has "run on an incomplete set: says incomplete" "incomplete"
expect_exit 0 "cleanup of an interrupted set: exit 0" "$SBIO" --dir="$d" cleanup
eq "cleanup of an interrupted set removes everything" "$(listing "$d")" ""

# --- a set a seqwr run left short: prepare writes the rest --------------------------------
# mmap's seqwr keeps each file's size (a mapping needs it) and leaves holes where it did not
# write: the manifest, not the sizes, says what is left.
d=$(newdir seqwr-short)
"$SBIO" --dir="$d" --file-num=4 --file-total-size=4M prepare >/dev/null 2>&1
expect_exit 0 "mmap seqwr of 10 events on a prepared set" \
	"$SBIO" --dir="$d" --ioengine=mmap --file-test-mode=seqwr --events=10 run
eq "the set it left: marked short, every file at its size" \
	"$(mf "$d" state) $(mf "$d" short) $(sizes "$d")" \
	"incomplete seqwr test_file.0=1048576 test_file.1=1048576 test_file.2=1048576 test_file.3=1048576"
expect_exit 0 "prepare on the set seqwr left short: exit 0" "$SBIO" --dir="$d" prepare
out_has "prepare writes what seqwr left (4 MiB - 10 blocks of 16 KiB)" "$((4 * MiB - 10 * 16384)) bytes written"
eq "after prepare: complete, no short= line" "$(mf "$d" state) $(mf "$d" short)" "complete "
eq "after prepare: no file has a hole (SEEK_HOLE at its end)" \
	"$(python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    print(os.lseek(fd, 0, os.SEEK_HOLE) == os.fstat(fd).st_size)' "$d"/test_file.* | sort -u)" True

# --- bad command lines ---------------------------------------------------------------------
b=$(newdir bad)
# bad WANT ARGS…: exit 2, one non-note line on stderr containing WANT, nothing in $b.
bad() {
	local want=$1
	shift
	expect_exit 2 "bad input: sbio $*" in_dir "$b" "$SBIO" "$@"
	stderr_one_line "bad input: sbio $*: one line on stderr"
	err_has "bad input: sbio $*: stderr names '$want'" "$want"
	eq "bad input: sbio $*: nothing created" "$(listing "$b")" ""
}
bad "--no-such-option" --no-such-option --file-num=2 prepare
bad "'0'" --threads=0 --file-test-mode=rndrd run
bad "abc" --threads=abc --file-test-mode=rndrd run
bad "12Q" --file-block-size=12Q prepare
bad "foo" --file-test-mode=foo run
bad "compressible:101" --file-fill=compressible:101 prepare
bad "frobnicate" frobnicate
bad "async" --file-io-mode=async --ioengine=sync --file-test-mode=rndrd run
bad "--file-test-mode" --dir="$b" run
bad "--file-total-size" prepare --file-total-size=lots
bad "--file-num" prepare --file-num
bad "--file-num" prepare --file-num=0
bad "maybe" --histogram=maybe --file-test-mode=rndrd run
bad "-x" -x prepare
expect_exit 2 "bad input: missing --dir" "$SBIO" --dir="$TMP/no-such-dir" --file-num=2 prepare
stderr_one_line "bad input: missing --dir: one line on stderr"
err_has "bad input: missing --dir: stderr names the folder" "no-such-dir"
check "bad input: missing --dir: the folder is not created" not test -e "$TMP/no-such-dir"

# --- sysbench spellings --------------------------------------------------------------------
d=$(newdir sysbench)
expect_exit 0 "sysbench spellings: prepare with --test=fileio" \
	"$SBIO" --test=fileio --dir="$d" --file-num=2 --file-total-size=2M prepare
check "--test=fileio: the note is a note" grep -q '^sbio: note:.*--test=fileio' "$TMP/err"
expect_exit 0 "sysbench spellings: --num-threads=2 --max-requests=10 --rand-type=uniform run" \
	"$SBIO" --num-threads=2 --max-requests=10 --test=fileio --rand-type=uniform \
	--dir="$d" --file-test-mode=rndrd run
eq "sysbench spellings: nothing but notes on stderr" "$(grep -vc '^sbio: note:' "$TMP/err")" 0
check "--num-threads: a note" grep -q '^sbio: note:.*--num-threads' "$TMP/err"
check "--max-requests: a note" grep -q '^sbio: note:.*--max-requests' "$TMP/err"
check "--rand-type: ignored with a note" grep -q '^sbio: note:.*--rand-type.*ignored' "$TMP/err"
out_has "--num-threads=2 is --threads=2" "Number of threads: 2"
check "--max-requests=10 is --events=10" grep -Eq 'total number of events: +10$' "$TMP/out"
expect_exit 0 "sysbench spellings: --max-time=1 and 'fileio' word accepted" \
	"$SBIO" fileio --max-time=1 --events=5 --dir="$d" --file-test-mode=seqrd run
check "--max-time: a note" grep -q '^sbio: note:.*--max-time' "$TMP/err"
"$SBIO" --dir="$d" cleanup >/dev/null 2>&1

# --- help and version ----------------------------------------------------------------------
help_ok() { # DESC ARGS…: exit 0, lists --file-num with its default [128]
	local desc=$1
	shift
	expect_exit 0 "$desc: exit 0" "$SBIO" "$@"
	check "$desc: lists --file-num with its default [128]" \
		grep -Eq -- '--file-num.*\[128\]' "$TMP/out"
	check "$desc: lists --file-total-size with its default [2G]" \
		grep -Eq -- '--file-total-size.*\[2G\]' "$TMP/out"
}
help_ok "sbio help" help
check "sbio help: lists --threads [1]" grep -Eq -- '--threads.*\[1\]' "$TMP/out"
check "sbio help: lists the commands" grep -Eq '^ +cleanup ' "$TMP/out"
help_ok "sbio --help" --help
help_ok "sbio help run" help run
check "sbio help run: lists --threads" grep -q -- '--threads' "$TMP/out"
check "sbio help run: lists --file-test-mode" grep -q -- '--file-test-mode' "$TMP/out"
help_ok "sbio run --help" run --help
check "sbio run --help: lists --threads" grep -q -- '--threads' "$TMP/out"
help_ok "sbio help prepare" help prepare
check "sbio help prepare: does not list --threads" not grep -q -- '--threads' "$TMP/out"
check "sbio help prepare: lists --file-fill" grep -q -- '--file-fill' "$TMP/out"
expect_exit 2 "sbio help nosuchcommand: exit 2" "$SBIO" help nosuchcommand
expect_exit 0 "sbio version: exit 0" "$SBIO" version
check "sbio version prints a version" grep -Eq '^sbio [0-9]+\.[0-9]+' "$TMP/out"
expect_exit 0 "sbio --version: exit 0" "$SBIO" --version
check "sbio --version prints a version" grep -Eq '^sbio [0-9]+\.[0-9]+' "$TMP/out"

# --- sizes as sysbench writes them ---------------------------------------------------------
d=$(newdir whole)
expect_exit 0 "prepare --file-num=3 --file-total-size=100K" \
	"$SBIO" --dir="$d" --file-num=3 --file-total-size=100K prepare
eq "100K in 3 files: 3 x 48 KiB (whole 16 KiB blocks, as sysbench)" "$(sizes "$d")" \
	"test_file.0=49152 test_file.1=49152 test_file.2=49152"
if command -v sysbench >/dev/null; then
	s=$(newdir whole-sysbench)
	in_dir "$s" sysbench fileio --file-num=3 --file-total-size=100K prepare >/dev/null 2>&1
	eq "sysbench 1.0 makes the same sizes" "$(sizes "$s")" "$(sizes "$d")"
fi

# --- a set made by sysbench: advice, prepare --adopt ---------------------------------------
d=$(newdir sysbench-set)
if command -v sysbench >/dev/null; then
	in_dir "$d" sysbench fileio --file-num=4 --file-total-size=1M prepare >/dev/null 2>&1
else # by hand, as sysbench 1.0 makes it
	for i in 0 1 2 3; do head -c 262144 /dev/urandom >"$d/test_file.$i"; done
fi
before=$(stamps "$d")
expect_exit 2 "sysbench's set: run exits 2" "$SBIO" --dir="$d" --file-test-mode=rndrd --events=10 run
stderr_one_line "sysbench's set: run says one line"
err_has "sysbench's set: run advises prepare --adopt" "4 test_file.* files" "prepare --adopt"
expect_exit 2 "sysbench's set: prepare exits 2" "$SBIO" --dir="$d" --file-num=4 --file-total-size=1M prepare
stderr_one_line "sysbench's set: prepare says one line"
err_has "sysbench's set: prepare advises --adopt" "prepare --adopt"
expect_exit 2 "sysbench's set: cleanup removes nothing and exits 2" "$SBIO" --dir="$d" cleanup
stderr_one_line "sysbench's set: cleanup says one line"
err_has "sysbench's set: cleanup names the files, says nothing was removed, advises --adopt" \
	"4 test_file.* files" "nothing removed" "prepare --adopt"
expect_exit 2 "prepare --adopt with another --file-num: exit 2" \
	"$SBIO" --dir="$d" --file-num=8 --file-total-size=1M prepare --adopt
err_has "adopt, wrong count: names both counts" "4 test_file.* files" "8"
expect_exit 2 "prepare --adopt with another --file-total-size: exit 2" \
	"$SBIO" --dir="$d" --file-num=4 --file-total-size=2M prepare --adopt
stderr_one_line "adopt, wrong sizes: one line"
err_has "adopt, wrong sizes: names both sizes in units" "256 KiB" "512 KiB"
check "refused adoptions: no manifest" not test -e "$d/sbio.manifest"
eq "refusals and advice: the files are untouched" "$(stamps "$d")" "$before"
expect_exit 0 "prepare --adopt with the options sysbench was given" \
	"$SBIO" --dir="$d" --file-num=4 --file-total-size=1M prepare --adopt
eq "adopt: nothing rewritten" "$(stamps "$d")" "$before"
eq "adopt: manifest complete" "$(mf "$d" state)" complete
eq "adopt: manifest says adopted" "$(mf "$d" adopted)" 1
out_has "adopt: says what --verify can check on it" "--verify checks only the blocks a run writes"
expect_exit 0 "adopted set: run works" "$SBIO" --dir="$d" --file-test-mode=rndrd --events=10 run
expect_exit 0 "adopted set: run --verify checks the blocks it writes" \
	"$SBIO" --dir="$d" --file-test-mode=rndrw --events=200 --verify run
out_has "adopted set: the report says which blocks were checked" "those this run wrote"
expect_exit 0 "adopted set: cleanup" "$SBIO" --dir="$d" cleanup
out_has "adopted set: cleanup removes the 4 files" "Removing 4 test files"
eq "adopted set: cleanup leaves nothing" "$(listing "$d")" ""

# --- cleanup counts the files that are there -----------------------------------------------
d=$(newdir count)
"$SBIO" --dir="$d" --file-num=4 --file-total-size=1M prepare >/dev/null 2>&1
rm -f "$d/test_file.1" "$d/test_file.3"
expect_exit 0 "cleanup with 2 of 4 files gone" "$SBIO" --dir="$d" cleanup
out_has "cleanup counts the 2 files there" "Removing 2 test files from $d (2 of the set's 4 were already gone)"

# --- fewer bytes than files: refused, nothing made ------------------------------------------
d=$(newdir empty)
expect_exit 2 "--file-total-size=1 --file-num=4: prepare refused" \
	"$SBIO" --dir="$d" --file-total-size=1 --file-num=4 prepare
stderr_one_line "--file-total-size=1 --file-num=4: one line"
err_has "--file-total-size=1 --file-num=4: says why and what is accepted" "gives empty files" \
	"at least 4 bytes"
expect_exit 2 "--file-total-size=3 --file-num=4: seqwr refused too" \
	"$SBIO" --dir="$d" --file-total-size=3 --file-num=4 --file-test-mode=seqwr --events=10 run
eq "fewer bytes than files: nothing made" "$(listing "$d")" ""
expect_exit 0 "--file-total-size=4 --file-num=4: one block each" \
	"$SBIO" --dir="$d" --file-total-size=4 --file-num=4 prepare
eq "one block each: 4 files of 16 KiB" "$(stat -c %s "$d"/test_file.* | sort -u)" 16384

# --- a damaged manifest: every command says the same, and it works -------------------------
d=$(newdir damaged)
"$SBIO" --dir="$d" --file-num=2 --file-total-size=1M prepare >/dev/null 2>&1
sed -i 's/^file\.1=test_file\.1 /file.1=test_file.0 /' "$d/sbio.manifest"
before=$(stamps "$d")
for c in "cleanup" "run --file-test-mode=rndrd --events=10" "prepare"; do
	expect_exit 2 "a manifest naming test_file.0 twice: $c refused" "$SBIO" --dir="$d" $c
	err_has "$c: says which line and why" "sbio.manifest is damaged (line " "bad file entry (file.N names test_file.N))"
	err_has "$c: the same advice" ", so sbio cannot tell which files are the set's and touches none: remove the set by hand (rm $d/sbio.manifest $d/test_file.*)"
	eq "$c: all of it in one line" "$(grep -vc '^sbio: note:' "$TMP/err")" 1
done
eq "the damaged set untouched" "$(stamps "$d")" "$before"
rm "$d/sbio.manifest" "$d"/test_file.*
expect_exit 0 "the advice works: prepare again" "$SBIO" --dir="$d" --file-num=2 --file-total-size=1M prepare

# --- prepare with --file-extra-flags -------------------------------------------------------
d=$(newdir direct)
strace -f -e trace=openat -o "$TMP/strace" \
	"$SBIO" --dir="$d" --file-num=2 --file-total-size=2M --file-extra-flags=direct prepare \
	>"$TMP/out" 2>"$TMP/err"
if grep -q 'Invalid argument' "$TMP/err"; then
	skip "O_DIRECT not supported on $(stat -f -c %T "$d")"
else
	out_has "prepare --file-extra-flags=direct prints the line" "Extra file open flags: direct"
	eq "prepare --file-extra-flags=direct opens each file with O_DIRECT" \
		"$(grep -c 'openat(.*"test_file\.[01]".*O_DIRECT' "$TMP/strace")" 2
	eq "prepare with O_DIRECT: manifest complete" "$(mf "$d" state)" complete
fi
d=$(newdir dsync)
strace -f -e trace=openat -o "$TMP/strace" \
	"$SBIO" --dir="$d" --file-num=1 --file-total-size=1M --file-extra-flags=dsync prepare \
	>"$TMP/out" 2>"$TMP/err"
eq "prepare --file-extra-flags=dsync opens with O_DSYNC" \
	"$(grep -c 'openat(.*"test_file\.0".*O_DSYNC' "$TMP/strace")" 1

# --- no room: prepare refuses before writing; compare without a set ------------------------
small="$TMP/small"
mkdir -p "$small"
trap 'umount "$small" 2>/dev/null; loop_cleanup "$TMP/mnt"; t_cleanup' EXIT
if mount -t tmpfs -o size=8M tmpfs "$small" 2>"$TMP/err"; then
	expect_exit 2 "prepare of 64 MiB on an 8 MiB file system: exit 2" \
		"$SBIO" --dir="$small" --file-num=4 --file-total-size=64M prepare
	stderr_one_line "no room: one line"
	err_has "no room: needed and available in units" "needs 64" "MiB" "8 MiB available"
	eq "no room: nothing written" "$(listing "$small")" ""
	check "no room: nothing on stdout (refused before the header)" test ! -s "$TMP/out"
	umount "$small"
else
	skip "no tmpfs can be mounted: $(head -c 200 "$TMP/err")"
fi

loop_ext4 64M "$TMP/mnt"
Q=/sys/block/$LOOP/queue
before=$(queue_snap)
expect_exit 2 "compare without a set: exit 2" \
	"$SBIO" compare --dir="$TMP/mnt" --schedulers=none,mq-deadline --file-test-mode=rndrd --time=1
stderr_one_line "compare without a set: one line"
err_has "compare without a set: says prepare first" "run sbio prepare first"
check "compare without a set: no run started" not grep -q '^\[1/' "$TMP/out"
same_state "compare without a set: the device's settings untouched" "$before"
