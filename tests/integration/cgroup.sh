#!/bin/bash
# A script job's I/O group against the kernel. On cgroup v1 blkio (the test's own loop device,
# direct I/O to its image, under bfq): two 64 KiB O_DIRECT random readers at bfq weights 100
# and 800 share the device at least 1 : 4; while they run every worker thread is in its job's
# group (/proc/PID/task/TID/cgroup); the kernel's counters of each group equal sbio's bytes
# within 1%; an rbps limit of 20M holds; nothing is left after exit, SIGINT, or SIGKILL and
# the next command. On a fake cgroup v2 root (SBIO_CGROUP_ROOT): every file written and its
# value, the grouped job in a process of its own whose reads strace counts as sbio does, and
# that process stopped with sbio's. Bad input: each refusal exit 2, one line, nothing made.
# Where the kernel has no bfq, the v1 readers at bfq weights are a skip ("kernel: no bfq
# scheduler…"): a bfq_weight's refusal and the rbps limit are checked on v1 instead.
# Needs root (loop device, scheduler, cgroups, another user): skips otherwise.
source "$(dirname "$0")/lib.sh"

MNT=$TMP/mnt
cg_cleanup() {
	kill_pids
	loop_cleanup "$MNT"
	t_cleanup
}
trap cg_cleanup EXIT

if ! need_root; then
	skip "needs root (loop device, I/O scheduler, control groups)"
	exit 0
fi
# A state folder of the test's own: another sbio running meanwhile (every command removes
# the groups of a dead sbio it finds recorded) must not take the test's leftovers first.
export SBIO_STATE_DIR=$TMP/state
STATE_DIR=$SBIO_STATE_DIR

# start_run OUT ARGS…: sbio ARGS… in the background (BG) in a process group of its own, stdout
# in OUT, stderr in OUT.err.
start_run() {
	local out=$1
	shift
	setsid "$SBIO" "$@" >"$out" 2>"$out.err" &
	BG=$!
	PIDS+=("$BG")
}
# wait_for CMD…: CMD succeeds within 10 s (polled).
wait_for() {
	local n=100
	until "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}
# nothing_left DESC PID: no group folder of sbio process PID under the blkio hierarchy, and no
# state file of it.
nothing_left() {
	local left
	left=$(find "$BLKIO" -maxdepth 3 -type d -name "sbio.$2" 2>/dev/null)
	left+=$(ls "$STATE_DIR"/sbio."$2".cgroups 2>/dev/null)
	if [ -z "$left" ]; then ok "$1"; else notok "$1 (left: $left)"; fi
}
# ratio A B: A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# --- The test's own loop device under bfq. Where the kernel has no bfq, a group with a
# bfq_weight is refused (blkio has no bfq.weight file): the v1 checks of the readers at bfq
# weights are a skip, that refusal and the bandwidth limit are checked.
loop_ext4 --direct-io 512M "$MNT"
HAVE_BFQ=false
if sched_offered bfq; then
	HAVE_BFQ=true
	loop_sched bfq
fi
MAJMIN=$(cat "/sys/block/$LOOP/dev")

BLKIO=$(awk '$9 == "cgroup" && $NF ~ /(^|,)blkio(,|$)/ { print $5; exit }' /proc/self/mountinfo)
OWN=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}blkio\(,[^:]*\)\{0,1\}:\(.*\)/\3/p' /proc/self/cgroup)
[ "$OWN" = / ] && OWN=
# limit_checks: an rbps limit of 20M on a job's group holds (cgroup v1 blkio), and its group
# line says so.
limit_checks() {
	cat >"$TMP/limit.lua" <<'EOF'
fileset { files = 2, size = "192M" }
phase "limited" { time = 3,
    job "capped" { threads = 2, mode = "rndrd", block = "64k", flags = "direct",
                   group = { max = { rbps = "20M" } } } }
EOF
	"$SBIO" run --script="$TMP/limit.lua" --dir="$MNT" -o "$TMP/limit.json" >"$TMP/limit" 2>"$TMP/err"
	eq "rbps 20M: exit 0" "$?" 0
	MIBS=$(json_get "$TMP/limit.json" phases.0.jobs.0.result.result.op_types.read.mib_per_s)
	if awk -v m="$MIBS" 'BEGIN { exit !(m <= 21 && m > 5) }'; then
		ok "rbps 20M: the job reads at most 21 MiB/s ($MIBS)"
	else
		notok "rbps 20M: the job reads at most 21 MiB/s ($MIBS)"
	fi
	check "its group line says the limit on the set's device" \
		grep -q "(cgroup v1 blkio): rbps 20 MiB/s on $MAJMIN\$" "$TMP/limit"
}
if [ -z "$BLKIO" ]; then
	skip "no cgroup v1 blkio hierarchy mounted: the v1 checks need one"
elif ! $HAVE_BFQ; then
	skip_kernel "no bfq scheduler: the v1 checks of two readers at bfq weights (their shares, groups, counters, SIGINT, SIGKILL)"
	printf 'fileset { files = 2, size = "192M" }\nphase "p" { time = 1,\n  job "j" { mode = "rndrd", group = { bfq_weight = 100 } } }\n' \
		>"$TMP/nobfq.lua"
	"$SBIO" prepare --script="$TMP/nobfq.lua" --dir="$MNT" --file-fill=zero >/dev/null 2>"$TMP/err" ||
		notok "prepare on the loop device: $(head -c 300 "$TMP/err")"
	"$SBIO" run --script="$TMP/nobfq.lua" --dir="$MNT" >"$TMP/out" 2>"$TMP/err"
	eq "a group's bfq_weight where the kernel has no bfq: exit 2" "$?" 2
	check "it says bfq is not loaded" grep -q "^sbio: .*nobfq\.lua:3: job j: group bfq_weight: bfq is not loaded" "$TMP/err"
	stderr_one_line "one line"
	check "nothing on stdout" test ! -s "$TMP/out"
	limit_checks
else
	# --- Two readers at bfq weights 100 and 800, two threads each (libaio, 16 in flight per
	# thread: bfq shares a device by weight when both keep it busy).
	cat >"$TMP/share.lua" <<'EOF'
option("time", 4, "seconds")
fileset { files = 2, size = "192M" }
phase "share" { time = options.time,
    job "low" { threads = 2, engine = "libaio", iodepth = 16, mode = "rndrd", block = "64k",
                flags = "direct", group = { bfq_weight = 100 } },
    job "high" { threads = 2, engine = "libaio", iodepth = 16, mode = "rndrd", block = "64k",
                 flags = "direct", group = { bfq_weight = 800 } } }
EOF
	"$SBIO" prepare --script="$TMP/share.lua" --dir="$MNT" --file-fill=zero >/dev/null 2>"$TMP/err" ||
		notok "prepare on the loop device: $(head -c 300 "$TMP/err")"
	start_run "$TMP/share" run --script="$TMP/share.lua" --dir="$MNT" -o "$TMP/share.json"
	# thread_groups: each blkio group that holds threads of sbio other than its own, with how
	# many ("2 /sbio.PID/high|2 /sbio.PID/low").
	thread_groups() {
		local t
		for t in /proc/"$BG"/task/*; do
			sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}blkio\(,[^:]*\)\{0,1\}://p' "$t/cgroup" 2>/dev/null
		done | grep -vxF "${OWN:-/}" | sort | uniq -c | sed 's/^ *//' | paste -sd '|'
	}
	want="2 $OWN/sbio.$BG/high|2 $OWN/sbio.$BG/low"
	wait_for sh -c "[ \"\$(cat /proc/$BG/task/*/cgroup 2>/dev/null | grep -c 'blkio:.*/sbio.$BG/')\" = 4 ]"
	eq "during the run each job's two worker threads are in its group" "$(thread_groups)" "$want"
	wait "$BG"
	eq "two readers at bfq weights 100 and 800: exit 0" "$?" 0
	# The image sits on the machine's disk, which others may share: a second run when the
	# first falls short.
	shares() {
		local l h
		l=$(json_get "$1" phases.0.jobs.0.result.result.op_types.read.bytes)
		h=$(json_get "$1" phases.0.jobs.1.result.result.op_types.read.bytes)
		echo "$h vs $l: $(ratio "$h" "$l")"
	}
	S=$(shares "$TMP/share.json")
	if ! awk -v r="${S##*: }" 'BEGIN { exit !(r >= 4) }'; then
		"$SBIO" run --script="$TMP/share.lua" --dir="$MNT" -o "$TMP/share2.json" >/dev/null 2>&1
		S="$S; again: $(shares "$TMP/share2.json")"
	fi
	if awk -v r="${S##*: }" 'BEGIN { exit !(r >= 4) }'; then
		ok "bfq: the reader at weight 800 reads at least 4x the bytes of the one at 100 ($S)"
	else
		notok "bfq: the reader at weight 800 reads at least 4x the bytes of the one at 100 ($S)"
	fi
	check "the report says each group as the kernel shows it" grep -qx \
		"Group: $BLKIO$OWN/sbio.$BG/high (cgroup v1 blkio): bfq_weight 800" "$TMP/share"
	for k in 0 1; do
		KB=$(json_get "$TMP/share.json" phases.0.jobs.$k.result.result.group.kernel.read_bytes)
		SB=$(json_get "$TMP/share.json" phases.0.jobs.$k.result.result.op_types.read.bytes)
		near "job $k: the kernel's bytes of its group are sbio's within 1%" "$KB" "$SB" 1
	done
	eq "the JSON names the group and its hierarchy" \
		"$(json_get "$TMP/share.json" phases.0.jobs.1.result.result.group.{path,hierarchy} | paste -sd ' ')" \
		"$BLKIO$OWN/sbio.$BG/high cgroup v1 blkio"
	eq "and the job's declared group" \
		"$(json_get "$TMP/share.json" phases.0.jobs.0.declared.group.bfq_weight)" 100
	nothing_left "after exit: no group folder, no state file" "$BG"

	limit_checks

	# --- SIGINT: the run stops and reports, the groups go.
	start_run "$TMP/int" run --script="$TMP/share.lua" --dir="$MNT" --time=30 -o "$TMP/int.json"
	wait_for test -d "$BLKIO$OWN/sbio.$BG/high" || notok "the groups of the SIGINT run appear"
	sleep 0.5
	kill -INT "$BG"
	wait "$BG"
	eq "SIGINT: exit 130" "$?" 130
	eq "each job reports itself interrupted" \
		"$(json_get "$TMP/int.json" phases.0.jobs.{0,1}.result.result.interrupted | paste -sd ' ')" "true true"
	nothing_left "after SIGINT: no group folder, no state file" "$BG"

	# --- SIGKILL: the groups stay until the next command removes them.
	start_run "$TMP/kill" run --script="$TMP/share.lua" --dir="$MNT" --time=30
	wait_for test -d "$BLKIO$OWN/sbio.$BG/low" || notok "the groups of the SIGKILL run appear"
	kill -KILL "$BG"
	wait "$BG" 2>/dev/null
	check "after SIGKILL the group folders are still there" test -d "$BLKIO$OWN/sbio.$BG/low"
	"$SBIO" run --script="$TMP/limit.lua" --dir="$MNT" --time=1 >"$TMP/next" 2>"$TMP/next.err"
	eq "the next sbio command runs (exit 0)" "$?" 0
	check "and says it removes what the killed sbio left" grep -q "left control groups" "$TMP/next.err"
	nothing_left "after SIGKILL and the next command: no group folder, no state file" "$BG"
	start_run "$TMP/kill2" run --script="$TMP/share.lua" --dir="$MNT" --time=30
	# high is the last group made (jobs in the script's order): killed before it, the state
	# names 2 or 3 groups.
	wait_for test -d "$BLKIO$OWN/sbio.$BG/high" || notok "the groups of the second SIGKILL run appear"
	kill -KILL "$BG"
	wait "$BG" 2>/dev/null
	"$SBIO" restore >"$TMP/restore" 2>&1
	eq "sbio restore: exit 0" "$?" 0
	check "it says what it removed" grep -q "^Removed 3 control groups an earlier sbio left" "$TMP/restore"
	nothing_left "after SIGKILL and sbio restore: no group folder, no state file" "$BG"
fi

# --- Bad input: exit 2, one line, nothing on stdout, nothing made.
# refused DESC FRAGMENT SCRIPT [ENV…]: sbio run --script=SCRIPT on the loop's set.
refused() {
	local desc=$1 frag=$2 script=$3
	shift 3
	env "$@" "$SBIO" run --script="$script" --dir="$MNT" >"$TMP/out" 2>"$TMP/err" &
	local pid=$!
	wait "$pid"
	eq "$desc: exit 2" "$?" 2
	check "$desc: it says so" grep -qF "$frag" "$TMP/err"
	stderr_one_line "$desc: one line"
	check "$desc: nothing on stdout" test ! -s "$TMP/out"
	if [ -n "$BLKIO" ]; then nothing_left "$desc: no group folder, no state file" "$pid"; fi
}
# bad NAME GROUP: a script whose one job has the group table GROUP.
bad() {
	printf 'fileset { files = 2, size = "192M" }\nphase "p" { time = 1,\n  job "j" { mode = "rndrd", group = %s } }\n' \
		"$2" >"$TMP/$1.lua"
	echo "$TMP/$1.lua"
}
refused "weight 0" "job j: group weight '0' is not valid; accepted: 1 to 1000 (cgroup v1" \
	"$(bad w0 '{ weight = 0 }')"
refused "bfq_weight 1001" "job j: group bfq_weight 1001 is out of range; accepted: 1 to 1000" \
	"$(bad b1001 '{ bfq_weight = 1001 }')"
refused "a limit on a device that is not the set's" \
	"job j: group max device 'nosuchdev' is not one of the set's; accepted: the name, /dev/NAME or MAJ:MIN of $LOOP ($MAJMIN)" \
	"$(bad dev '{ max = { rbps = "20M", device = "nosuchdev" } }')"
if [ -n "$BLKIO" ]; then
	refused "weight 1001 on cgroup v1" "job j: group weight 1001 is out of range; accepted: 1 to 1000 (cgroup v1 blkio.weight)" \
		"$(bad w1001 '{ weight = 1001 }')"
	if [ ! -e "$BLKIO/blkio.weight" ]; then
		refused "weight where v1 has no blkio.weight" "has no blkio.weight (CFQ's, gone since Linux 5.0); use bfq_weight" \
			"$(bad w500 '{ weight = 500 }')"
	fi
	refused "latency on cgroup v1" "job j: group latency needs cgroup v2 (io.latency)" \
		"$(bad lat '{ latency = "5ms" }')"
fi
mkdir -p "$TMP/nocg"
echo "cpu memory" >"$TMP/nocg/cgroup.controllers"
refused "no io controller" "job j: group: this kernel mounts no blkio (cgroup v1) or io (cgroup v2) controller" \
	"$(bad noio '{ bfq_weight = 100 }')" SBIO_CGROUP_ROOT="$TMP/nocg"
mkdir -p "$TMP/v2big"
echo "io memory" >"$TMP/v2big/cgroup.controllers"
refused "weight 10001 on cgroup v2" "job j: group weight 10001 is out of range; accepted: 1 to 10000 (cgroup v2 io.weight)" \
	"$(bad w10001 '{ weight = 10001 }')" SBIO_CGROUP_ROOT="$TMP/v2big"
check "v2: nothing made in the fake root" test -z "$(find "$TMP/v2big" -mindepth 1 -not -name cgroup.controllers)"
chmod 0755 "$TMP"
chmod -R a+rwX "$MNT"
as_nobody run \
	--script="$(bad nobody '{ bfq_weight = 100 }')" --dir="$MNT" >"$TMP/out" 2>"$TMP/err"
eq "a group as nobody: exit 2" "$?" 2
check "it says a group needs root" grep -q "job j: a group needs root" "$TMP/err"
stderr_one_line "one line"
check "nothing on stdout" test ! -s "$TMP/out"
chmod 0700 "$TMP"

# --- cgroup v2 on a fake root: the files, the job's own process, its counts.
FAKE=$TMP/fake
V2SET=$MNT/v2set
mkdir -p "$FAKE" "$V2SET"
echo "io memory" >"$FAKE/cgroup.controllers"
cat >"$TMP/v2.lua" <<'EOF'
option("time", 3, "seconds")
option("grouped", true, "whether the reader has a group")
fileset { files = 2, size = "8M" }
phase "p" { time = options.time,
    job "the reader" { threads = 2, mode = "rndrd", block = "4k",
                       group = options.grouped and { weight = 5000, bfq_weight = 300,
                           max = { rbps = "20M", wiops = 100 }, latency = "5ms" } or nil },
    job "writer" { threads = 1, mode = "rndwr", block = "4k", fsync_freq = 0, fsync_end = false } }
EOF
"$SBIO" prepare --script="$TMP/v2.lua" --dir="$V2SET" >/dev/null 2>&1 || notok "prepare the v2 set"
SETDEV=$MAJMIN
export SBIO_CGROUP_ROOT=$FAKE
start_run "$TMP/v2" run --script="$TMP/v2.lua" --dir="$V2SET" -o "$TMP/v2.json"
G=$FAKE/sbio.$BG/the_reader
wait_for test -s "$G/cgroup.procs" || notok "the v2 group's cgroup.procs gets a process"
CHILD=$(head -n1 "$G/cgroup.procs")
files=$(cd "$G" && for f in io.weight io.bfq.weight io.max io.latency; do echo "$f: $(cat "$f")"; done | paste -sd '|')
eq "v2: every file written with its value" "$files" \
	"io.weight: default 5000|io.bfq.weight: default 300|io.max: $SETDEV rbps=20971520 wiops=100|io.latency: $SETDEV target=5000"
eq "v2: io is enabled at the root and in sbio.PID" \
	"$(cat "$FAKE/cgroup.subtree_control") $(cat "$FAKE/sbio.$BG/cgroup.subtree_control")" "+io +io"
check "v2: the process in the group is not sbio ($CHILD, sbio $BG)" test "$CHILD" != "$BG"
eq "v2: it is sbio's child" "$(awk '/^PPid:/ { print $2 }' "/proc/$CHILD/status" 2>/dev/null)" "$BG"
wait "$BG"
eq "v2 run: exit 0" "$?" 0
# Where the kernel has no bfq the set's device runs another scheduler, which the line says.
NOTBFQ=
$HAVE_BFQ || NOTBFQ=" (bfq_weight acts only under bfq: $LOOP runs $(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$LOOP/queue/scheduler"))"
check "v2: the report says the group" grep -q "^Group: $G (cgroup v2 io): weight 5000, bfq_weight 300, rbps 20 MiB/s, wiops 100/s, latency 5.00 ms on $SETDEV$NOTBFQ\$" "$TMP/v2"
eq "v2: the group's folders are gone, io disabled again" \
	"$(find "$FAKE" -mindepth 1 -type d | wc -l) $(cat "$FAKE/cgroup.subtree_control")" "0 -io"
# strace counts every pread64 of every process: the writer reads nothing, so beyond what sbio
# reads besides its jobs (the set's manifest: measured on a run whose reader is a thread) they
# are the reader's.
strace -f -c -o "$TMP/st" "$SBIO" run --script="$TMP/v2.lua" --dir="$V2SET" --time=1 \
	-o "$TMP/v2s.json" >/dev/null 2>"$TMP/err" || notok "v2 run under strace: $(head -c 300 "$TMP/err")"
strace -f -c -o "$TMP/st0" "$SBIO" run --script="$TMP/v2.lua" --dir="$V2SET" --time=1 \
	--grouped=off -o "$TMP/st0.json" >/dev/null 2>&1
preads() { awk '$NF == "pread64" { print $(NF-1) + 0; f = 1 } END { if (!f) print 0 }' "$1"; }
pwrites() { awk '$NF == "pwrite64" { print $(NF-1) + 0; f = 1 } END { if (!f) print 0 }' "$1"; }
BASE=$(($(preads "$TMP/st0") - $(json_get "$TMP/st0.json" phases.0.jobs.0.result.result.op_types.read.ops)))
eq "v2: the reader's reads in its own process are strace's pread64 calls" \
	"$(json_get "$TMP/v2s.json" phases.0.jobs.0.result.result.op_types.read.ops)" "$(( $(preads "$TMP/st") - BASE ))"
eq "v2: the writer (a thread of sbio) too: pwrite64" \
	"$(json_get "$TMP/v2s.json" phases.0.jobs.1.result.result.op_types.write.ops)" "$(pwrites "$TMP/st")"
# SIGINT to the process group (as a terminal sends it) stops the job's process with sbio's
# threads; SIGTERM to sbio alone is passed on to it.
for sig in INT TERM; do
	start_run "$TMP/v2$sig" run --script="$TMP/v2.lua" --dir="$V2SET" --time=30 -o "$TMP/v2$sig.json"
	wait_for test -s "$FAKE/sbio.$BG/the_reader/cgroup.procs" || notok "SIG$sig: the v2 group gets its process"
	sleep 1
	if [ $sig = INT ]; then kill -INT -- "-$BG"; else kill -TERM "$BG"; fi
	wait "$BG"
	eq "v2, SIG$sig: exit 130" "$?" 130
	eq "v2, SIG$sig: both jobs report themselves interrupted, the reader from its process" \
		"$(json_get "$TMP/v2$sig.json" phases.0.jobs.{0,1}.result.result.interrupted | paste -sd ' ')" "true true"
	check "v2, SIG$sig: the reader measured its reads" awk "BEGIN { exit !($(json_get "$TMP/v2$sig.json" phases.0.jobs.0.result.result.op_types.read.ops) > 0) }"
done
# The job's process killed while it reads (its read calls, /proc/PID/io's syscr, in the
# thousands: the set-up makes a few): the job fails saying how, the other job is reported,
# exit 1.
reading() { [ "$(awk '$1 == "syscr:" { print $2 }' "/proc/$1/io" 2>/dev/null || echo 0)" -ge 1000 ]; }
start_run "$TMP/v2kill" run --script="$TMP/v2.lua" --dir="$V2SET" --time=3 -o "$TMP/v2kill.json"
wait_for test -s "$FAKE/sbio.$BG/the_reader/cgroup.procs" || notok "the v2 group gets its process"
CHILD=$(head -n1 "$FAKE/sbio.$BG/the_reader/cgroup.procs")
wait_for reading "$CHILD" || notok "the job's process reads"
kill -KILL "$CHILD"
wait "$BG"
eq "v2, the job's process killed: exit 1" "$?" 1
check "it says the job's process was killed by SIGKILL" \
	grep -q "job the reader: its process (pid $CHILD) was killed by signal 9" "$TMP/v2kill.err"
eq "the other job measured its writes" \
	"$(json_get "$TMP/v2kill.json" phases.0.jobs.1.result.result.interrupted)" false
# Killed the moment it is in its group, maybe before the phase starts: the other job then
# measured its writes, or it says it measured nothing and why (never an empty report).
start_run "$TMP/v2k0" run --script="$TMP/v2.lua" --dir="$V2SET" --time=3 -o "$TMP/v2k0.json"
wait_for test -s "$FAKE/sbio.$BG/the_reader/cgroup.procs" || notok "the v2 group gets its process"
CHILD=$(head -n1 "$FAKE/sbio.$BG/the_reader/cgroup.procs")
kill -KILL "$CHILD"
wait "$BG"
eq "v2, the job's process killed at once: exit 1" "$?" 1
W0=$(json_get "$TMP/v2k0.json" phases.0.jobs.1.result.result.interrupted)
E0=$(json_get "$TMP/v2k0.json" phases.0.jobs.1.error)
if [ "$W0" = false ] || [ "$E0" = "job writer: measured nothing: the phase stopped before its start (job the reader: its process (pid $CHILD) was killed by signal 9 (Killed))" ]; then
	ok "the other job measured its writes or says why it did not"
else
	notok "the other job measured its writes or says why it did not (interrupted '$W0', error '$E0')"
fi
check "the other job's note on stderr when it measured nothing" \
	sh -c "[ '$W0' = false ] || grep -q '^sbio: note: job writer: measured nothing: the phase stopped before its start' '$TMP/v2k0.err'"
unset SBIO_CGROUP_ROOT
