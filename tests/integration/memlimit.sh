#!/bin/bash
# --memory-limit against the kernel: a 1 GiB set read twice at random under a 256 MiB limit
# reads most of the set from the device both times (/sys/block/DEV/stat), where without the
# limit the second pass is served by the page cache; the process is in the limited group
# while it runs (/proc/PID/cgroup) and nothing is left after exit, SIGINT, SIGKILL + the next
# command; compare varies it and a script's phases run under it; bad input (below 16 MiB,
# not root, no memory controller) is refused with one line and nothing made.
# Works only on its own loop device (losetup --direct-io=on: the image's pages stay out of
# the page cache), ext4 on an image under $TMP, detached in the trap. Needs root: skips
# otherwise.
source "$(dirname "$0")/lib.sh"

MNT=$TMP/mnt
memlimit_cleanup() {
	kill_pids
	loop_cleanup "$MNT"
	t_cleanup
}
trap memlimit_cleanup EXIT

if ! need_root; then
	skip "needs root (loop devices, memory control groups)"
	exit 0
fi
# Where sbio makes its memory group: under this process's own group of a v1 memory
# hierarchy, else at the root of a v2 hierarchy that offers memory.
MEMBASE=
v1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ { print $5; exit }' /proc/self/mountinfo)
v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -n "$v2" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
	MEMBASE=$v2
elif [ -n "$v1" ]; then
	MEMBASE=$v1$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}:\(.*\)$/\3/p' /proc/self/cgroup)
	MEMBASE=${MEMBASE%/}
fi
if [ -z "$MEMBASE" ]; then
	skip "this kernel has no memory controller"
	exit 0
fi
ok "memory groups go under $MEMBASE"

loop_ext4 --direct-io 1200M "$MNT"
eq "own loop device /dev/$LOOP, direct I/O to its image" "$(cat /sys/block/$LOOP/loop/dio)" 1

D=$MNT/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=4 --file-total-size=1G --file-block-size=64K)
expect_exit 0 "prepare 4 x 256 MiB on /dev/$LOOP" "$SBIO" prepare "${SET[@]}"
# One pass: every 64 KiB block of the set once, in a random order, buffered, 4 threads.
PASS=(run "${SET[@]}" --file-test-mode=rndrd --random-order=once --events=16384 --time=0 --threads=4)
SET_MIB=1024

# dev_read_mib: sectors the loop device has read, in MiB.
dev_read_mib() { awk '{ print int($3 * 512 / 1048576) }' "/sys/block/$LOOP/stat"; }
drops() { awk '$1 == "drop_pagecache" { print $2 }' /proc/vmstat; }
# pass NAME ARGS…: one pass; prints the device's MiB read during it and the run's MiB/s.
pass() {
	local name=$1 before after rc
	shift
	before=$(dev_read_mib)
	"$SBIO" "${PASS[@]}" "$@" -o "$TMP/$name.json" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	after=$(dev_read_mib)
	[ "$rc" -eq 0 ] || notok "$name: exit $rc ($(head -c 300 "$TMP/$name.err" | tr '\n' ' '))"
	echo "$((after - before)) $(json_get "$TMP/$name.json" result.op_types.read.mib_per_s)"
}
# pair NAME ARGS…: a cold pass (--invalidate), then a second one, both with ARGS; sets
# COLD, AGAIN (device MiB read), COLD_MIBS, AGAIN_MIBS and CLEAN. Another process dropping the
# page cache (drop_caches, counted in /proc/vmstat) between them would read the set again
# for a reason of its own: the pair is then run again, at most 3 times in all (CLEAN false
# when every attempt was disturbed).
pair() {
	local name=$1 n d0
	shift
	for n in 1 2 3; do
		d0=$(drops)
		read -r COLD COLD_MIBS < <(pass "${name}1" --invalidate "$@")
		read -r AGAIN AGAIN_MIBS < <(pass "${name}2" "$@")
		CLEAN=false
		[ "$(drops)" = "$d0" ] && CLEAN=true && break
	done
}
# after_pair DESC CMD…: check CMD for an undisturbed pair; a skip when none could be had.
after_pair() {
	if $CLEAN; then check "$@"; else skip "$1: another process dropped the page cache in every attempt"; fi
}

pair lim --memory-limit=256M
echo "# 256M limit: device MiB read cold $COLD ($COLD_MIBS MiB/s), second pass $AGAIN ($AGAIN_MIBS MiB/s)"
check "256M limit, cold pass: at least 700 MiB read from /dev/$LOOP (read $COLD)" [ "$COLD" -ge 700 ]
after_pair "256M limit, second pass: at least 700 MiB read again (read $AGAIN)" [ "$AGAIN" -ge 700 ]
pair free
echo "# no limit: device MiB read cold $COLD ($COLD_MIBS MiB/s), second pass $AGAIN ($AGAIN_MIBS MiB/s)"
check "no limit, cold pass: at least 700 MiB read (read $COLD)" [ "$COLD" -ge 700 ]
after_pair "no limit, second pass: under 5% of the set read, the rest from the page cache (read $AGAIN)" \
	[ "$AGAIN" -lt $((SET_MIB * 5 / 100)) ]
check "the header names the limit and the group" \
	grep -q "^Memory limit: 256 MiB (cgroup v[12] memory\.\(max\|limit_in_bytes\), $MEMBASE/sbio\.[0-9]*)$" "$TMP/lim1.out"
check "a run without --invalidate says pages cached before stay charged outside" \
	grep -q "stay charged outside the group" "$TMP/lim2.out"
check "the report gives the group's page cache beside the set's" \
	grep -q "^Page cache of the memory group (limit 256 MiB): at start" "$TMP/lim1.out"
eq "the JSON: the limit asked for and the one in effect" \
	"$(json_get "$TMP/lim1.json" config.memory_limit_bytes result.memory_group.limit_bytes | paste -sd ' ')" \
	"268435456 268435456"
end_file=$(json_get "$TMP/lim1.json" result.memory_group.end.file_bytes)
check "the group's page cache at the end stays within the limit ($end_file bytes)" \
	[ "$end_file" -le 268435456 ]
eq "no limit: memory_group is null" "$(json_get "$TMP/free1.json" result.memory_group)" "null"

# --- during the run the process is in the group; afterwards nothing is left ---
# A state folder of the test's own: another sbio running meanwhile (every command removes
# the groups of a dead sbio it finds recorded) must not take the test's leftovers first.
export SBIO_STATE_DIR=$TMP/state
STATE_DIR=$SBIO_STATE_DIR
# in_group PID: the line of /proc/PID/cgroup that names PID's group sbio.PID (polled while
# PID runs, at most 5 s: it moves in once its checks pass); nothing when it never does.
in_group() {
	local n=50 line
	line=$(grep "/sbio\.$1\(/\|$\)" "/proc/$1/cgroup" 2>/dev/null)
	while [ -z "$line" ] && [ $n -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		n=$((n - 1))
		line=$(grep "/sbio\.$1\(/\|$\)" "/proc/$1/cgroup" 2>/dev/null)
	done
	echo "$line"
}
# nothing_left DESC PID: no group sbio.PID under the memory hierarchy, no state file.
nothing_left() {
	local left
	left=$(find "$MEMBASE" -maxdepth 2 -type d -name "sbio.$2" 2>/dev/null)
	check "$1: no group sbio.$2 left${left:+ ($left)}" test -z "$left"
	check "$1: no state file" test ! -e "$STATE_DIR/sbio.$2.cgroups"
}
LONG=(run "${SET[@]}" --file-test-mode=rndrd --time=30 --memory-limit=64M)
"$SBIO" run "${SET[@]}" --file-test-mode=rndrd --time=3 --memory-limit=64M >"$TMP/bg.out" 2>&1 &
BG=$!
PIDS+=("$BG")
check "during the run /proc/$BG/cgroup names its group sbio.$BG" test -n "$(in_group "$BG")"
check "every thread of it too" bash -c "! grep -L 'sbio\.$BG' /proc/$BG/task/*/cgroup 2>/dev/null | grep -q ."
wait "$BG"
eq "the run: exit 0" "$?" 0
nothing_left "after exit" "$BG"

"$SBIO" "${LONG[@]}" >"$TMP/int.out" 2>&1 &
BG=$!
PIDS+=("$BG")
check "SIGINT run: in its group" test -n "$(in_group "$BG")"
kill -INT "$BG"
wait "$BG"
eq "SIGINT: exit 130" "$?" 130
nothing_left "after SIGINT" "$BG"

"$SBIO" "${LONG[@]}" >"$TMP/kill.out" 2>&1 &
BG=$!
PIDS+=("$BG")
check "SIGKILL run: in its group" test -n "$(in_group "$BG")"
kill -KILL "$BG"
wait "$BG" 2>/dev/null
check "after SIGKILL the group sbio.$BG is still there" test -n "$(find "$MEMBASE" -maxdepth 2 -type d -name "sbio.$BG")"
check "and its state file" test -s "$STATE_DIR/sbio.$BG.cgroups"
mkdir -p "$TMP/empty"
expect_exit 0 "the next command (cleanup of an empty folder): exit 0" "$SBIO" cleanup --dir="$TMP/empty"
check "it says it removed what the killed sbio left" grep -q "left control groups" "$TMP/err"
nothing_left "after SIGKILL + the next command" "$BG"

# --- compare varies it; a script's phases all run under the command line's ---
"$SBIO" compare "${SET[@]}" --file-test-mode=rndrd --events=64 --time=0 \
	--vary memory-limit=none,128M -o "$TMP/cmp.json" >"$TMP/out" 2>"$TMP/err"
eq "compare --vary memory-limit=none,128M: exit 0" "$?" 0
eq "compare: each setting's run has its limit (asked for; in effect)" \
	"$(json_get "$TMP/cmp.json" settings.{0,1}.runs.0.result.config.memory_limit_bytes \
		settings.0.runs.0.result.result.memory_group \
		settings.1.runs.0.result.result.memory_group.limit_bytes | paste -sd ' ')" \
	"0 134217728 null 134217728"
cat >"$TMP/two.lua" <<'EOF'
fileset { files = 2, size = "16M" }
phase "one" { time = 1, job "r" { threads = 1, mode = "rndrd", block = "16k", invalidate = true } }
phase "two" { time = 1, job "w" { threads = 1, mode = "rndwr", block = "16k" } }
EOF
mkdir -p "$MNT/two"
"$SBIO" prepare --script="$TMP/two.lua" --dir="$MNT/two" >/dev/null 2>&1 || notok "prepare the script's set"
"$SBIO" run --script="$TMP/two.lua" --dir="$MNT/two" --memory-limit=64M -o "$TMP/two.json" \
	>"$TMP/two.out" 2>&1 &
BG=$!
PIDS+=("$BG")
check "a script: in its group while it runs" test -n "$(in_group "$BG")"
wait "$BG"
eq "the script: exit 0" "$?" 0
eq "the script: both phases ran under the limit" \
	"$(json_get "$TMP/two.json" phases.{0,1}.jobs.0.result.result.memory_group.limit_bytes | paste -sd ' ')" \
	"67108864 67108864"
check "the script's header names the limit" grep -q "^Memory limit: 64 MiB (cgroup" "$TMP/two.out"
check "its first phase drops the set's pages: no note about pages charged outside" \
	bash -c "! grep -q 'stay charged outside' '$TMP/two.out'"
nothing_left "after the script" "$BG"

# --- bad input: exit 2, one line, nothing made ---
mkdir -p "$TMP/none"
expect_exit 2 "--memory-limit=15M: exit 2" "$SBIO" run --dir="$TMP/none" --file-test-mode=seqwr \
	--file-total-size=16M --time=1 --memory-limit=15M
check "it says what is accepted" grep -q "memory-limit: '15M' is out of range; accepted: a size of at least 16 MiB" "$TMP/err"
stderr_one_line "one line"
eq "seqwr made no set" "$(ls -A "$TMP/none")" ""
chmod 0755 "$TMP"
chmod a+rwx "$TMP/none"
as_nobody run --dir="$TMP/none" \
	--file-test-mode=seqwr --file-total-size=16M --time=1 --memory-limit=64M >"$TMP/out" 2>"$TMP/err"
eq "--memory-limit as nobody: exit 2" "$?" 2
check "it says it needs root" grep -q -- "--memory-limit needs root" "$TMP/err"
stderr_one_line "one line"
eq "nothing made" "$(ls -A "$TMP/none")" ""
chmod 0700 "$TMP"
mkdir -p "$TMP/fakecg"
echo "cpu io pids" >"$TMP/fakecg/cgroup.controllers"
SBIO_CGROUP_ROOT=$TMP/fakecg SBIO_STATE_DIR=$TMP/fakestate "$SBIO" run --dir="$TMP/none" \
	--file-test-mode=seqwr --file-total-size=16M --time=1 --memory-limit=64M >"$TMP/out" 2>"$TMP/err"
eq "--memory-limit without a memory controller: exit 2" "$?" 2
check "it says which controller is missing" grep -q -- "--memory-limit: this kernel offers no memory controller" "$TMP/err"
stderr_one_line "one line"
eq "nothing made: no set" "$(ls -A "$TMP/none")" ""
eq "no group in the fake root" "$(ls -A "$TMP/fakecg")" "cgroup.controllers"
check "no state folder" test ! -e "$TMP/fakestate"
