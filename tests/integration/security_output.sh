#!/bin/bash
# The files sbio writes (-o of run, compare and diff) and what it prints from files:
# - a link or a file planted by another user (nobody) in a sticky world-writable folder is
#   refused at -o (exit 2, one line saying whose), and the root-owned 0600 file it leads to
#   is unchanged; a hard link there too; -o /dev/null, -o /dev/stdout and a link of the user's
#   own still work;
# - a write that fails is exit 1 with "sbio: PATH: write: CAUSE", never a silent 0: -o
#   /dev/full for the text report, JSON, CSV, compare and diff, standard output on /dev/full,
#   a full file system (a small tmpfs) and EIO (a terminal whose other end is gone);
# - diff -o to a folder that does not exist: exit 2, one line, nothing printed; a field of the
#   wrong type (config as an array): exit 2, one line naming file and field;
# - escape sequences and line breaks in a result reach the terminal escaped (diff), and a
#   config file's line is never echoed whole (--config-file=/etc/shadow).
source "$(dirname "$0")/lib.sh"

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=2 --file-total-size=4M)
RUN=(run "${SET[@]}" --file-test-mode=rndrd --time=1)
VICTIM=$TMP/victim
echo "root's secret" >"$VICTIM"
chmod 0600 "$VICTIM"
VSUM=$(sha256sum <"$VICTIM")
victim_same() { eq "$1: the victim is unchanged" "$(sha256sum <"$VICTIM")" "$VSUM"; }
contains() { if grep -qF -- "$2" "$3"; then ok "$1"; else notok "$1 ($3: $(head -c 300 "$3" | tr '\n' '|'))"; fi; }
no_control() { # DESC FILE: no control character but line breaks and tabs in FILE
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$2"; then notok "$1 ($(head -c 200 "$2" | od -c | head -3 | tr '\n' ' '))"; else ok "$1"; fi
}

expect_exit 0 "prepare" "$SBIO" prepare "${SET[@]}"
expect_exit 0 "a run result" "$SBIO" "${RUN[@]}" -o "$TMP/r.json"

# --- planted links and files ---
if need_root; then
	nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	PUB=$TMP/pub
	mkdir -m 1777 "$PUB"
	chmod 0755 "$TMP"
	nobody ln -s "$VICTIM" "$PUB/link"
	nobody touch "$PUB/theirs"
	cp "$VICTIM" "$TMP/mine" && ln "$TMP/mine" "$PUB/hard" # one of root's, with 2 names
	HSUM=$(sha256sum <"$TMP/mine")
	for f in text json csv; do
		expect_exit 2 "run -o ($f) through nobody's link: refused" "$SBIO" "${RUN[@]}" --output-format=$f -o "$PUB/link"
		stderr_one_line "run -o ($f) through nobody's link: one line"
		contains "run -o ($f) through nobody's link: says whose" "a symbolic link of user nobody" "$TMP/err"
		victim_same "run -o ($f) through nobody's link"
		expect_exit 2 "run -o ($f) on nobody's file in a sticky folder: refused" "$SBIO" "${RUN[@]}" --output-format=$f -o "$PUB/theirs"
		contains "run -o ($f) on nobody's file: says whose" "a file of user nobody" "$TMP/err"
		check "run -o ($f) on nobody's file: left empty" test ! -s "$PUB/theirs"
		expect_exit 2 "run -o ($f) on a file with 2 names in a sticky folder: refused" "$SBIO" "${RUN[@]}" --output-format=$f -o "$PUB/hard"
		eq "run -o ($f) on a hard link: the other name's file unchanged" "$(sha256sum <"$TMP/mine")" "$HSUM"
	done
	expect_exit 2 "compare -o through nobody's link: refused before any run" "$SBIO" compare "${SET[@]}" \
		--file-test-mode=rndrd --time=1 --vary threads=1,2 --repeat=1 --drop-caches=off -o "$PUB/link"
	contains "compare -o through nobody's link: says whose" "a symbolic link of user nobody" "$TMP/err"
	eq "compare -o through nobody's link: no run made" "$(grep -c . "$TMP/out")" 0
	victim_same "compare -o through nobody's link"
	expect_exit 2 "diff -o through nobody's link: refused" "$SBIO" diff "$TMP/r.json" "$TMP/r.json" -o "$PUB/link"
	eq "diff -o through nobody's link: nothing printed" "$(cat "$TMP/out")" ""
	victim_same "diff -o through nobody's link"
	# A link of the user's own is followed.
	ln -s "$TMP/own.txt" "$TMP/ownlink"
	expect_exit 0 "run -o through root's own link" "$SBIO" "${RUN[@]}" -o "$TMP/ownlink"
	contains "run -o through root's own link: the report is where it leads" "Threads fairness" "$TMP/own.txt"
else
	skip "planted links and files need root (to act as nobody)"
fi
expect_exit 0 "run -o /dev/null" "$SBIO" "${RUN[@]}" -o /dev/null
check "/dev/null is still a character device" test -c /dev/null
"$SBIO" "${RUN[@]}" --output-format=json -o /dev/stdout >"$TMP/stdout.json" 2>"$TMP/err"
eq "run -o /dev/stdout: the JSON on standard output" "$(json_get "$TMP/stdout.json" schema)" sbio-result/1

# --- writes that fail ---
for f in text json csv; do
	expect_exit 1 "run -o /dev/full ($f): exit 1" "$SBIO" "${RUN[@]}" --output-format=$f -o /dev/full
	contains "run -o /dev/full ($f): the path and the cause" "/dev/full: write: No space left on device" "$TMP/err"
done
"$SBIO" "${RUN[@]}" >/dev/full 2>"$TMP/err"
eq "run >/dev/full: exit 1" "$?" 1
contains "run >/dev/full: says so" "sbio: standard output: write: No space left on device" "$TMP/err"
expect_exit 1 "compare -o /dev/full: exit 1" "$SBIO" compare "${SET[@]}" --file-test-mode=rndrd \
	--time=1 --vary threads=1,2 --repeat=1 --drop-caches=off -o /dev/full
contains "compare -o /dev/full: the path and the cause" "/dev/full: write: No space left on device" "$TMP/err"
expect_exit 1 "diff -o /dev/full: exit 1" "$SBIO" diff "$TMP/r.json" "$TMP/r.json" -o /dev/full
contains "diff -o /dev/full: the path and the cause" "/dev/full: write: No space left on device" "$TMP/err"
# EIO: standard output a terminal whose other end was closed.
python3 - "$SBIO" "${RUN[@]}" >"$TMP/pty" 2>&1 <<'PY'
import os, subprocess, sys
m, s = os.openpty()
os.close(m)
r = subprocess.run(sys.argv[1:], stdout=s, stderr=subprocess.PIPE)
print(r.returncode)
sys.stdout.write(r.stderr.decode())
PY
eq "run to a hung-up terminal: exit 1" "$(head -1 "$TMP/pty")" 1
contains "run to a hung-up terminal: EIO said" "standard output: write: Input/output error" "$TMP/pty"
# A full file system: a 64 KiB tmpfs, filled.
if need_root && mkdir "$TMP/small" && mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2>/dev/null; then
	dd if=/dev/zero of="$TMP/small/fill" bs=4k 2>/dev/null
	expect_exit 1 "run -o on a full file system: exit 1" "$SBIO" "${RUN[@]}" -o "$TMP/small/report.txt"
	contains "run -o on a full file system: the path and the cause" "$TMP/small/report.txt: write: No space left on device" "$TMP/err"
	expect_exit 1 "diff -o on a full file system: exit 1" "$SBIO" diff "$TMP/r.json" "$TMP/r.json" -o "$TMP/small/d.json"
	if command -v gnuplot >/dev/null; then
		rm -f "$TMP/small/fill"
		mkdir "$TMP/small/k"
		dd if=/dev/zero of="$TMP/small/fill" bs=4k 2>/dev/null
		expect_exit 1 "plot --keep-data on a full file system: exit 1" "$SBIO" plot "$TMP/r.json" -o "$TMP/c.png" --keep-data "$TMP/small/k"
		contains "plot --keep-data on a full file system: the file and the cause" ": write: No space left on device" "$TMP/err"
	fi
	umount "$TMP/small"
else
	skip "a full file system needs root to mount a small tmpfs"
fi

# --- diff's output and input checked before anything is printed ---
expect_exit 2 "diff -o in a folder that does not exist: exit 2" "$SBIO" diff "$TMP/r.json" "$TMP/r.json" -o /nonexistent/d.json
stderr_one_line "diff -o in a folder that does not exist: one line"
eq "diff -o in a folder that does not exist: nothing printed" "$(cat "$TMP/out")" ""
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["config"] = [1, 2, 3]; json.dump(d, open(sys.argv[2], "w"))' "$TMP/r.json" "$TMP/arr.json"
expect_exit 2 "diff of a result whose config is an array: exit 2" "$SBIO" diff "$TMP/r.json" "$TMP/arr.json"
stderr_one_line "config as an array: one line"
contains "config as an array: names the file and the field" "arr.json: config is not an object" "$TMP/err"
eq "config as an array: nothing printed" "$(cat "$TMP/out")" ""
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["result"]["elapsed_s"] = "10"; json.dump(d, open(sys.argv[2], "w"))' "$TMP/r.json" "$TMP/str.json"
expect_exit 2 "diff of a result whose elapsed_s is a string: exit 2" "$SBIO" diff "$TMP/r.json" "$TMP/str.json"
contains "elapsed_s as a string: names the field" "result.elapsed_s is not a number" "$TMP/err"
if command -v gnuplot >/dev/null; then
	expect_exit 2 "plot of a result whose config is an array: exit 2" "$SBIO" plot "$TMP/arr.json" -o "$TMP/c.png"
	contains "plot, config as an array: names the file and the field" "plot: $TMP/arr.json: config is not an object" "$TMP/err"
fi

# --- what files hold reaches the terminal escaped ---
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["config"]["file_test_mode"] = "rndrd\x1b[2J\x1b]0;owned\x07\nsbio diff: FAKE LINE"
d["config"]["ioengine"] = "sync\r\x9bX"
json.dump(d, open(sys.argv[2], "w"))' "$TMP/r.json" "$TMP/esc.json"
expect_exit 0 "diff of a result with escape sequences" "$SBIO" diff "$TMP/r.json" "$TMP/esc.json"
no_control "diff: no control character reaches the terminal" "$TMP/out"
eq "diff: the fake line is not a line" "$(grep -c '^sbio diff: FAKE LINE' "$TMP/out")" 0
contains "diff: the escape shown as text" 'rndrd\x1B[2J' "$TMP/out"
printf 'root:$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyz:19000:0:99999:7:::\n' >"$TMP/shadow"
expect_exit 2 "--config-file naming a shadow file: exit 2" "$SBIO" --config-file="$TMP/shadow" "${RUN[@]}"
check "--config-file: the line is not echoed whole" sh -c "! grep -q 0123456789abc '$TMP/err'"
printf 'threads=\033[31m4\n' >"$TMP/esc.cfg"
expect_exit 2 "--config-file with an escape sequence: exit 2" "$SBIO" --config-file="$TMP/esc.cfg" "${RUN[@]}"
no_control "--config-file with an escape sequence: nothing of it on the terminal" "$TMP/err"
