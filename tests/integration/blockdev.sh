#!/bin/bash
# sbio run on a block device: --scheduler and --queue in effect mid-run (sampled from sysfs while the run goes)
# and restored exactly after success, error, SIGINT and SIGKILL (`sbio restore`, or the next
# sbio command); the lock; --drop-caches and the device's read counter; the reported page
# cache against fincore; values the kernel caps or refuses.
# Works only on its own loop device (ext4 on an image file under $TMP), detached in the trap;
# the state file and lock live in $TMP/state (SBIO_STATE_DIR). Needs root: skips otherwise.
source "$(dirname "$0")/lib.sh"

export SBIO_STATE_DIR=$TMP/state
MNT=$TMP/mnt
SHM=
LOOP2= # a second loop device, for --queue-device
bd_cleanup() {
	kill_pids
	[ -n "$LOOP2" ] && losetup -d "/dev/$LOOP2" 2>/dev/null
	loop_cleanup "$MNT"
	[ -n "$SHM" ] && rm -rf "$SHM"
	t_cleanup
}
trap bd_cleanup EXIT

if ! need_root; then
	skip "needs root (loop devices, sysfs queue settings)"
	exit 0
fi
loop_ext4 256M "$MNT"
Q=/sys/block/$LOOP/queue
mkdir -p "$TMP/empty"
ok "own loop device /dev/$LOOP with ext4 mounted at $MNT"

D=$MNT/set
mkdir -p "$D"
SETSZ=$((64 * 1024 * 1024))
BS=16384
SET=(--dir="$D" --file-num=4 --file-total-size=64M --file-block-size=16K)
# A light workload: the settings matter here, not the speed.
RUN=(run "${SET[@]}" --file-test-mode=rndrd --rate=2000)
STATE=$SBIO_STATE_DIR/$LOOP.state


# start_run OUT ARGS…: sbio ARGS… in the background (BG), stdout in OUT, stderr in OUT.err;
# returns once the run's threads started (the settings are then in effect), 1 if they never did.
start_run() {
	local out=$1 n=150
	shift
	rm -f "$out" "$out.err" # a previous run's "Threads started!" must not be seen
	"$SBIO" "$@" >"$out" 2>"$out.err" &
	BG=$!
	PIDS+=("$BG")
	while ! grep -qs 'Threads started!' "$out" && kill -0 "$BG" 2>/dev/null && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	grep -qs 'Threads started!' "$out"
}
# finish SECONDS: wait for BG, killing it if it outlives SECONDS; sets RC.
finish() {
	local n=$(($1 * 10))
	while kill -0 "$BG" 2>/dev/null && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	kill -0 "$BG" 2>/dev/null && kill -KILL "$BG"
	wait "$BG"
	RC=$?
}
# Figures of a run's JSON result FILE (lib.sh's json_get), in bytes.
# dev_read_bytes FILE: what the set's device (the loop device, devices[0]) read; -1 when the
# result names another device.
dev_read_bytes() {
	json_get "$1" result.devices.0.{name,bytes_read} |
		awk -v d="$LOOP" 'NR == 1 && $0 != d { print -1; exit } NR == 2 { print }'
}
bytes_read() { json_get "$1" result.op_types.read.bytes; }
PAGE=$(getconf PAGESIZE)
cache_start() { json_get "$1" result.page_cache.start.cached_pages | awk -v p="$PAGE" '{ print $1 * p }'; }
cache_end() { json_get "$1" result.page_cache.end.cached_pages | awk -v p="$PAGE" '{ print $1 * p }'; }
sectors_read() { awk '{ print $3 }' "/sys/block/$LOOP/stat"; }
fincore_bytes() { fincore -b -n -o RES "$D"/test_file.* | awk '{ s += $1 } END { print s + 0 }'; }

expect_exit 0 "prepare 4 x 16 MiB on /dev/$LOOP" "$SBIO" prepare "${SET[@]}"
# The device may come with any scheduler (a udev rule may set one): the test records it and
# sets none itself, the state every check below starts from.
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
SCHED_FOUND=$(cur_sched)
echo none >"$Q/scheduler"
eq "test setup: $LOOP came with scheduler ${SCHED_FOUND:-?}; set to none" "$(cur_sched)" none
BASE=$(queue_snap)
SCHED0=$(knob scheduler)
RA0=$(knob read_ahead_kb)
NR0=$(knob nr_requests)
MS0=$(knob max_sectors_kb)
HW=$(knob max_hw_sectors_kb)

# --- --scheduler=kyber: in effect mid-run, restored after ---
if start_run "$TMP/out" "${RUN[@]}" --time=2 --scheduler=kyber; then
	mid=$(knob scheduler)
	finish 15
	eq "--scheduler=kyber: kyber in effect mid-run" "$(sed -n 's/.*\[\(.*\)\].*/\1/p' <<<"$mid")" kyber
	eq "--scheduler=kyber: exit 0" "$RC" 0
	check "--scheduler=kyber: prints '$LOOP scheduler: kyber (was none)' before the report" \
		grep -qx "$LOOP scheduler: kyber (was none)" "$TMP/out"
	check "--scheduler=kyber: the environment section shows '  scheduler: … [kyber] …'" \
		grep -q '^  scheduler: .*\[kyber\]' "$TMP/out"
	eq "--scheduler=kyber: the scheduler line after the run is exactly the original" "$(knob scheduler)" "$SCHED0"
	same_state "--scheduler=kyber: every queue setting as before" "$BASE"
	no_state_file "--scheduler=kyber: no state file left"
else
	finish 15
	notok "--scheduler=kyber: the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
fi

# --- --queue read_ahead_kb: in effect mid-run, restored after ---
RA=$([ "$RA0" = 512 ] && echo 1024 || echo 512)
if start_run "$TMP/out" "${RUN[@]}" --time=2 --queue read_ahead_kb=$RA; then
	mid=$(knob read_ahead_kb)
	finish 15
	eq "--queue read_ahead_kb=$RA: in effect mid-run" "$mid" "$RA"
	eq "--queue read_ahead_kb=$RA: exit 0" "$RC" 0
	check "--queue read_ahead_kb=$RA: prints '$LOOP read_ahead_kb: $RA (was $RA0)'" \
		grep -qx "$LOOP read_ahead_kb: $RA (was $RA0)" "$TMP/out"
	eq "--queue read_ahead_kb=$RA: restored to $RA0 after" "$(knob read_ahead_kb)" "$RA0"
	same_state "--queue read_ahead_kb=$RA: every queue setting as before" "$BASE"
else
	finish 15
	notok "--queue read_ahead_kb=$RA: the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
fi

# --- --scheduler=$TS --queue nr_requests=N --queue iosched/$TK=$TV: the switch resets
# nr_requests, so N in effect mid-run proves sbio sets it after the switch, and the tunable
# that sbio sets it on the new scheduler. bfq (its slice_idle) where the kernel offers it, else
# mq-deadline (its fifo_batch). The test learns the scheduler's default on its own device.
if sched_offered bfq; then
	TS=bfq TK=slice_idle TV=0
else
	TS=mq-deadline TK=fifo_batch TV=8
fi
echo $TS >"$Q/scheduler"
NRTS=$(knob nr_requests)
[ "$(cat "$Q/iosched/$TK" 2>/dev/null)" = $TV ] && TV=4
echo "$SCHED0" | sed 's/.*\[\(.*\)\].*/\1/' >"$Q/scheduler"
echo "$NR0" >"$Q/nr_requests"
N=64
[ "$NRTS" = $N ] && N=32
[ "$N" = "$NR0" ] && N=48
[ "$(queue_snap)" = "$BASE" ] || notok "test setup: $LOOP back to its settings after learning $TS's nr_requests"
if start_run "$TMP/out" "${RUN[@]}" --time=2 --scheduler=$TS --queue nr_requests=$N --queue iosched/$TK=$TV; then
	mid_s=$(cur_sched)
	mid_n=$(knob nr_requests)
	mid_i=$(cat "$Q/iosched/$TK" 2>/dev/null)
	finish 15
	eq "--scheduler=$TS: $TS in effect mid-run" "$mid_s" $TS
	eq "--scheduler=$TS --queue nr_requests=$N ($TS's default after a switch: $NRTS): $N in effect mid-run" "$mid_n" "$N"
	eq "--scheduler=$TS --queue iosched/$TK=$TV: $TV in effect mid-run" "$mid_i" $TV
	eq "--scheduler=$TS --queue nr_requests=$N: exit 0" "$RC" 0
	check "--scheduler=$TS: the environment section shows nr_requests=$N" \
		grep -q "^ .* nr_requests=$N " "$TMP/out"
	eq "--scheduler=$TS: nr_requests restored to $NR0 after" "$(knob nr_requests)" "$NR0"
	eq "--scheduler=$TS: the scheduler line after the run is exactly the original" "$(knob scheduler)" "$SCHED0"
	same_state "--scheduler=$TS --queue nr_requests=$N: every queue setting as before" "$BASE"
	no_state_file "--scheduler=$TS: no state file left"
else
	finish 15
	notok "--scheduler=$TS --queue nr_requests=$N: the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
fi

# --- A scheduler switch resets nr_requests; a user's own nr_requests must survive the run
# (every setting is left exactly as it was found). ---
echo 96 >"$Q/nr_requests"
B2=$(queue_snap)
expect_exit 0 "--scheduler=kyber with nr_requests set to 96 beforehand: exit 0" "$SBIO" "${RUN[@]}" --time=1 --scheduler=kyber
same_state "--scheduler=kyber (alone) puts back the nr_requests=96 found before (the switch back resets it)" "$B2"
echo "$NR0" >"$Q/nr_requests"

# --- SIGINT mid-run: restored, exit 130 ---
if start_run "$TMP/out" "${RUN[@]}" --time=10 --scheduler=kyber --queue read_ahead_kb=$RA; then
	mid_s=$(cur_sched)
	mid_r=$(knob read_ahead_kb)
	kill -INT "$BG"
	finish 10
	eq "SIGINT: kyber and read_ahead_kb=$RA were in effect mid-run" "$mid_s $mid_r" "kyber $RA"
	eq "SIGINT mid-run: exit 130" "$RC" 130
	same_state "SIGINT mid-run: every queue setting restored" "$BASE"
	no_state_file "SIGINT mid-run: no state file left"
else
	finish 10
	notok "SIGINT: the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
fi

# kill_mid_run WHAT: a tuned run SIGKILLed mid-run leaves the settings changed and the state file.
# (Called with 2>/dev/null: bash's own "Killed" notice is noise.)
kill_mid_run() {
	if start_run "$TMP/out" "${RUN[@]}" --time=10 --scheduler=kyber --queue read_ahead_kb=$RA; then
		kill -KILL "$BG"
		finish 10
		eq "SIGKILL mid-run ($1): exit 137" "$RC" 137
		eq "SIGKILL mid-run ($1): kyber and read_ahead_kb=$RA still in effect" "$(cur_sched) $(knob read_ahead_kb)" "kyber $RA"
		check "SIGKILL mid-run ($1): the state file $STATE is present" test -s "$STATE"
	else
		finish 10
		notok "SIGKILL ($1): the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
	fi
}

# --- SIGKILL, then sbio restore ---
kill_mid_run "then sbio restore" 2>/dev/null
expect_exit 0 "sbio restore after SIGKILL: exit 0" "$SBIO" restore
check "sbio restore: says what it restored" grep -q "restored $LOOP scheduler: none" "$TMP/out"
same_state "sbio restore after SIGKILL: every queue setting restored" "$BASE"
no_state_file "sbio restore after SIGKILL: the state file is removed"
expect_exit 0 "sbio restore again: exit 0" "$SBIO" restore
check "sbio restore again: Nothing to restore" grep -qx "Nothing to restore" "$TMP/out"

# --- SIGKILL, then another sbio command (main.c: every command but help and version
# recovers first) ---
kill_mid_run "then sbio cleanup" 2>/dev/null
expect_exit 0 "sbio cleanup (of an empty folder) after SIGKILL: exit 0" "$SBIO" cleanup --dir="$TMP/empty"
same_state "sbio cleanup after SIGKILL: every queue setting restored" "$BASE"
no_state_file "sbio cleanup after SIGKILL: the state file is removed"
kill_mid_run "then a plain sbio run" 2>/dev/null
expect_exit 0 "a plain sbio run (no tuning) after SIGKILL: exit 0" "$SBIO" "${RUN[@]}" --time=1
check "a plain sbio run after SIGKILL: its environment section shows the original scheduler" \
	grep -qxF "  scheduler: ${SCHED0% }" "$TMP/out"
same_state "a plain sbio run after SIGKILL: every queue setting restored" "$BASE"
no_state_file "a plain sbio run after SIGKILL: the state file is removed"

# --- The lock: a second sbio tuning the same device while the first runs ---
if start_run "$TMP/out1" "${RUN[@]}" --time=3 --scheduler=kyber; then
	expect_exit 2 "a second sbio --scheduler=$TS on $LOOP while the first runs: exit 2" \
		"$SBIO" "${RUN[@]}" --time=1 --scheduler=$TS --queue nr_requests=32
	stderr_one_line "the second sbio: one line"
	check "the second sbio: names the lock ($SBIO_STATE_DIR/$LOOP.lock)" grep -qF "$SBIO_STATE_DIR/$LOOP.lock" "$TMP/err"
	eq "the second sbio changed nothing: kyber still in effect" "$(cur_sched) $(knob nr_requests)" "kyber $(grep -o "nr_requests=[0-9]*" "$TMP/out1" | head -1 | cut -d= -f2)"
	finish 15
	eq "the first sbio: exit 0" "$RC" 0
	same_state "after both: every queue setting restored" "$BASE"
	no_state_file "after both: no state file left"
else
	finish 15
	notok "lock: the first run never started (exit $RC: $(head -c 300 "$TMP/out1.err" | tr '\n' ' '))"
fi

# --- Errors: exit 2, one line, nothing changed ---
# refused DESC PATTERN ARGS…: sbio ARGS… exits 2 with one line matching PATTERN (grep -E)
# and leaves every setting as it was, with no state file.
refused() {
	local desc=$1 pat=$2 before
	shift 2
	before=$(queue_snap)
	expect_exit 2 "$desc: exit 2" "$@"
	stderr_one_line "$desc: one line"
	check "$desc: the message matches /$pat/" grep -qE -- "$pat" "$TMP/err"
	same_state "$desc: nothing changed" "$before"
	no_state_file "$desc: no state file left"
}
refused "--scheduler=cfq2" "^sbio: --scheduler=cfq2: cfq2 is not offered by $LOOP, which offers .*none.*mq-deadline" \
	"$SBIO" "${RUN[@]}" --time=1 --scheduler=cfq2
refused "--scheduler=bfq,none" "--scheduler=bfq,none: one scheduler per run" "$SBIO" "${RUN[@]}" --time=1 --scheduler=bfq,none
CMPR=(compare "${SET[@]}" --file-test-mode=rndrd --time=1)
refused "compare --schedulers=cfq,deadline,noop,anticipatory" \
	"^sbio: --schedulers=cfq,deadline,noop,anticipatory: cfq and anticipatory are one scheduler, bfq: given twice \(to run one scheduler twice, an A/A comparison, give the same name twice\)$" \
	"$SBIO" "${CMPR[@]}" --schedulers=cfq,deadline,noop,anticipatory
refused "compare --schedulers=deadline,mq-deadline" \
	"^sbio: --schedulers=deadline,mq-deadline: deadline and mq-deadline are one scheduler, mq-deadline: given twice \(to run one scheduler twice, an A/A comparison, give the same name twice\)$" \
	"$SBIO" "${CMPR[@]}" --schedulers=deadline,mq-deadline
refused "compare --schedulers=foo,none,bar (every bad name in one line)" \
	"^sbio: --schedulers=foo,none,bar: foo and bar are not offered by $LOOP, which offers " \
	"$SBIO" "${CMPR[@]}" --schedulers=foo,none,bar
eq "compare --schedulers=foo,none,bar: no note (nothing was mapped)" "$(grep -c 'note:' "$TMP/err")" 0
refused "compare --vary scheduler=noop,bogus (named as typed)" \
	"^sbio: --vary scheduler=noop,bogus: bogus is not offered by $LOOP" \
	"$SBIO" "${CMPR[@]}" --vary scheduler=noop,bogus
refused "--queue no_such_knob=1" 'no_such_knob' "$SBIO" "${RUN[@]}" --time=1 --queue no_such_knob=1
refused "--queue nr_requests=abc" "nr_requests.*abc" "$SBIO" "${RUN[@]}" --time=1 --queue nr_requests=abc
# The kernel refuses more than the tag space allows with EINVAL (and raises 0 to 4: below).
refused "--queue nr_requests=100000" "nr_requests.*100000" "$SBIO" "${RUN[@]}" --time=1 --queue nr_requests=100000
refused "--scheduler=$TS --queue nr_requests=100000 (refused after the switch)" "nr_requests.*100000" \
	"$SBIO" "${RUN[@]}" --time=1 --scheduler=$TS --queue nr_requests=100000
refused "--scheduler=kyber --queue iosched/slice_idle=0 (kyber has none)" "slice_idle" \
	"$SBIO" "${RUN[@]}" --time=1 --scheduler=kyber --queue iosched/slice_idle=0
refused "--queue iosched/slice_idle=0 under scheduler none" "slice_idle" \
	"$SBIO" "${RUN[@]}" --time=1 --queue iosched/slice_idle=0
SHM=$(mktemp -d /dev/shm/sbio-blockdev.XXXXXX)
refused "--scheduler=kyber on a tmpfs folder" "tmpfs" "$SBIO" "${RUN[@]}" --dir="$SHM" --time=1 --scheduler=kyber
eq "--scheduler=kyber on a tmpfs folder: nothing created there" "$(ls -A "$SHM")" ""
rm -rf "$SHM"
SHM=
# Not root, on a folder that user cannot even reach ($TMP is 0700): the refusal that matters is
# that --scheduler needs root, whatever the folder — a usage error, not a failure of the run.
chmod 0711 "$TMP"
refused "--scheduler=kyber as a non-root user (on a folder it can reach)" "needs root" \
	as_nobody "${RUN[@]}" --time=1 --scheduler=kyber
chmod 0700 "$TMP"
refused "--scheduler=kyber as a non-root user (on a folder it cannot read)" "needs root" \
	as_nobody "${RUN[@]}" --time=1 --scheduler=kyber
refused "--drop-caches as a non-root user" "needs root" \
	as_nobody "${RUN[@]}" --time=1 --drop-caches
# Read-only sysfs: a read-only bind remount of /sys in a private mount namespace (the
# machine's own /sys is untouched: checked after).
SYSOPT=$(findmnt -no OPTIONS /sys)
refused "--scheduler=kyber with a read-only /sys" "scheduler.*(Read-only|read-only)" \
	unshare -m --propagation private sh -c 'mount -o remount,bind,ro /sys || exit 99; exec "$@"' sh \
	"$SBIO" "${RUN[@]}" --time=1 --scheduler=kyber
eq "the machine's /sys mount is untouched by that" "$(findmnt -no OPTIONS /sys)" "$SYSOPT"

# --- Schedulers compared by hand: switched through sysfs between runs, without --scheduler.
# Every result records the scheduler in effect by its name, the queue settings and the
# scheduler's tunables as sysfs shows them; the CSV's scheduler column is filled; sbio diff
# shows the scheduler first; sbio plot names the bar groups by it. mq-deadline against bfq, or
# where the kernel has no bfq another scheduler without mq-deadline's fifo_batch. ---
read -r _ HB <<<"$(sched_pick 2 mq-deadline bfq kyber none)"
HAND=(run "${SET[@]}" --file-test-mode=rndrd --time=1 --rate=2000)
# settings_match FILE: the JSON's environment.devices[0] against sysfs now: its name, the
# parsed scheduler, nr_requests and read_ahead_kb as integers, every iosched/ tunable (and no
# other); prints what differs, nothing when all match.
settings_match() {
	python3 - "$1" "$LOOP" "$Q" <<'PY'
import json, os, re, sys
doc, dev, q = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
d = doc['environment']['devices'][0]
s = d['settings']
line = open(q + '/scheduler').read()
cur = re.search(r'\[(.*)\]', line).group(1)
bad = []
if d['name'] != dev: bad.append('name %s' % d['name'])
if d['scheduler'] != cur or s['scheduler'] != cur: bad.append('scheduler %s/%s, sysfs %s' % (d['scheduler'], s['scheduler'], cur))
if doc['environment']['scheduler'] != cur: bad.append('environment.scheduler %s' % doc['environment']['scheduler'])
for k in ('nr_requests', 'read_ahead_kb', 'max_sectors_kb', 'rotational'):
    want = int(open(q + '/' + k).read())
    if s.get(k) != want or not isinstance(s.get(k), int): bad.append('%s %r, sysfs %d' % (k, s.get(k), want))
tun = {'iosched/' + f: int(open(q + '/iosched/' + f).read()) for f in os.listdir(q + '/iosched')} if os.path.isdir(q + '/iosched') else {}
got = {k: v for k, v in s.items() if k.startswith('iosched/')}
if got != tun: bad.append('tunables %s, sysfs %s' % (sorted(got.items()), sorted(tun.items())))
if doc['config']['scheduler'] is not None: bad.append('config.scheduler %r' % doc['config']['scheduler'])
print('; '.join(bad))
PY
}
rm -f "$TMP/hand.csv"
for s in mq-deadline $HB; do
	echo $s >"$Q/scheduler"
	eq "by hand: echo $s > $Q/scheduler took effect" "$(cur_sched)" $s
	expect_exit 0 "by hand under $s: run -o hand-$s.json" "$SBIO" "${HAND[@]}" -o "$TMP/hand-$s.json"
	eq "by hand under $s: the JSON's scheduler, queue settings and tunables are sysfs's" \
		"$(settings_match "$TMP/hand-$s.json")" ""
	expect_exit 0 "by hand under $s: run -o hand.csv" "$SBIO" "${HAND[@]}" -o "$TMP/hand.csv"
done
echo none >"$Q/scheduler"
echo "$NR0" >"$Q/nr_requests"
same_state "by hand: $LOOP back to its settings" "$BASE"
eq "by hand: the CSV's scheduler column is the one in effect in each run" \
	"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "scheduler") c = i; next } { print $c }' "$TMP/hand.csv" | paste -sd ' ')" \
	"mq-deadline $HB"
expect_exit 0 "by hand: sbio diff hand-mq-deadline.json hand-$HB.json: exit 0" "$SBIO" diff \
	"$TMP/hand-mq-deadline.json" "$TMP/hand-$HB.json"
eq "by hand: diff's first row, before the figures, is the scheduler: mq-deadline in A, $HB in B" \
	"$(sed -n 3p "$TMP/out" | tr -s ' ')" "$LOOP scheduler mq-deadline $HB"
check "by hand: diff lists the settings under a 'setting A B' heading right after its first line" \
	grep -qE '^setting +A +B$' <(sed -n 2p "$TMP/out")
first_metric=$(grep -n '^metric ' "$TMP/out" | cut -d: -f1)
last_setting=$(grep -n "^$LOOP " "$TMP/out" | tail -1 | cut -d: -f1)
check "by hand: every setting row ($last_setting) comes before the figures (line $first_metric)" \
	test "${last_setting:-99}" -lt "${first_metric:-0}"
check "by hand: diff lists a tunable only mq-deadline has (fifo_batch: '-' in B)" \
	grep -qE "^$LOOP iosched/fifo_batch +[0-9]+ +-$" "$TMP/out"
expect_exit 0 "by hand: sbio plot of both results" "$SBIO" plot "$TMP/hand-mq-deadline.json" \
	"$TMP/hand-$HB.json" -o "$TMP/hand.png" --keep-data "$TMP/hand-plot"
eq "by hand: the plot names each bar group by its scheduler" \
	"$(awk '!/^#/ { print $1 }' "$TMP/hand-plot/compare.dat" | tr -d '"' | paste -sd ' ')" \
	"scheduler=mq-deadline scheduler=$HB"

# --- Historical scheduler names: taken as their heirs with a note; two names of one
# scheduler refused ---
# cfq is taken as bfq: where the kernel has no bfq, sbio refuses it saying so.
if sched_offered bfq; then
	if start_run "$TMP/out" "${RUN[@]}" --time=2 --scheduler=cfq; then
		mid=$(cur_sched)
		finish 15
		eq "--scheduler=cfq: exit 0" "$RC" 0
		eq "--scheduler=cfq: bfq in effect mid-run" "$mid" bfq
		check "--scheduler=cfq: the note says cfq → bfq and why" \
			grep -qx 'sbio: note: --scheduler: cfq → bfq (the single-queue schedulers left Linux in 5.0)' "$TMP/out.err"
		check "--scheduler=cfq: prints '$LOOP scheduler: bfq (was none)'" grep -qx "$LOOP scheduler: bfq (was none)" "$TMP/out"
		same_state "--scheduler=cfq: every queue setting as before" "$BASE"
	else
		finish 15
		notok "--scheduler=cfq: the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
	fi
else
	refused "--scheduler=cfq where the kernel has no bfq" \
		"^sbio: --scheduler=cfq: cfq \\(taken as bfq\\) is not offered by $LOOP, which offers $(sched_list | paste -sd ' ' | sed 's/ /, /g')$" \
		"$SBIO" "${RUN[@]}" --time=2 --scheduler=cfq
fi
rm -f "$TMP/hist.json"
expect_exit 0 "compare --schedulers=noop,deadline: exit 0" "$SBIO" compare "${SET[@]}" \
	--file-test-mode=rndrd --events=200 --repeat=1 --drop-caches=off --schedulers=noop,deadline -o "$TMP/hist.json"
check "compare --schedulers=noop,deadline: one note maps both" \
	grep -qx 'sbio: note: --schedulers: noop → none, deadline → mq-deadline (the single-queue schedulers left Linux in 5.0)' "$TMP/err"
eq "compare --schedulers=noop,deadline: the settings are named by the kernel's names" \
	"$(json_get "$TMP/hist.json" settings.0.name settings.1.name | paste -sd ' ')" "scheduler=none scheduler=mq-deadline"
eq "compare --schedulers=noop,deadline: each run went through that scheduler" \
	"$(json_get "$TMP/hist.json" settings.0.runs.0.result.environment.scheduler settings.1.runs.0.result.environment.scheduler | paste -sd ' ')" \
	"none mq-deadline"
same_state "compare --schedulers=noop,deadline: every queue setting as before" "$BASE"
if sched_offered bfq; then
	expect_exit 0 "compare --scheduler=cfq --vary threads=1,2: exit 0" "$SBIO" compare "${SET[@]}" \
		--file-test-mode=rndrd --events=200 --repeat=1 --drop-caches=off --scheduler=cfq --vary threads=1,2 -o "$TMP/hist.json"
	eq "compare --scheduler=cfq --vary threads=1,2: the note once, not at every run" "$(grep -c 'note: --scheduler: cfq → bfq' "$TMP/err")" 1
	eq "compare --scheduler=cfq --vary threads=1,2: both runs under bfq" \
		"$(json_get "$TMP/hist.json" settings.0.runs.0.result.environment.scheduler settings.1.runs.0.result.environment.scheduler | paste -sd ' ')" \
		"bfq bfq"
	same_state "compare --scheduler=cfq: every queue setting as before" "$BASE"
else
	rm -f "$TMP/hist.json"
	refused "compare --scheduler=cfq --vary threads=1,2 where the kernel has no bfq" \
		"(cfq \\(taken as bfq\\)|bfq) is not offered by $LOOP, which offers $(sched_list | paste -sd ' ' | sed 's/ /, /g')$" \
		"$SBIO" compare "${SET[@]}" --file-test-mode=rndrd --events=200 --repeat=1 --drop-caches=off \
		--scheduler=cfq --vary threads=1,2 -o "$TMP/hist.json"
	check "compare --scheduler=cfq where the kernel has no bfq: no output file" test ! -e "$TMP/hist.json"
fi

# --- Values the kernel changes silently: the run reports the value in effect ---
# nr_requests=0: the kernel raises it to its minimum.
if start_run "$TMP/out" "${RUN[@]}" --time=2 --queue nr_requests=0; then
	mid=$(knob nr_requests)
	finish 15
	eq "--queue nr_requests=0: exit 0" "$RC" 0
	check "--queue nr_requests=0: reports the $mid in effect ('$LOOP nr_requests: $mid (was $NR0) — asked 0, …')" \
		grep -q "^$LOOP nr_requests: $mid (was $NR0) — asked 0, " "$TMP/out"
	same_state "--queue nr_requests=0: every queue setting restored" "$BASE"
else
	finish 15
	notok "--queue nr_requests=0: the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
fi
# max_sectors_kb above max_hw_sectors_kb: capped on 6.10+, refused before. The test sets its
# own device's max_sectors_kb below the hardware limit first, so restoring is not a no-op.
MSLOW=$((HW / 4))
echo $MSLOW >"$Q/max_sectors_kb"
B3=$(queue_snap)
BIG=$((HW * 4))
if echo $BIG >"$Q/max_sectors_kb" 2>/dev/null; then
	echo $MSLOW >"$Q/max_sectors_kb"
	if start_run "$TMP/out" "${RUN[@]}" --time=2 --queue max_sectors_kb=$BIG; then
		mid=$(knob max_sectors_kb)
		finish 15
		eq "--queue max_sectors_kb=$BIG (max_hw_sectors_kb $HW): the kernel's cap $HW in effect mid-run" "$mid" "$HW"
		eq "--queue max_sectors_kb=$BIG: exit 0" "$RC" 0
		check "--queue max_sectors_kb=$BIG: reports '$LOOP max_sectors_kb: $HW (was $MSLOW) — asked $BIG, the kernel capped it'" \
			grep -qx "$LOOP max_sectors_kb: $HW (was $MSLOW) — asked $BIG, the kernel capped it" "$TMP/out"
		eq "--queue max_sectors_kb=$BIG: restored to $MSLOW" "$(knob max_sectors_kb)" "$MSLOW"
		same_state "--queue max_sectors_kb=$BIG: every queue setting restored" "$B3"
	else
		finish 15
		notok "--queue max_sectors_kb=$BIG: the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
	fi
else
	refused "--queue max_sectors_kb=$BIG (this kernel refuses above max_hw_sectors_kb $HW)" \
		"max_sectors_kb.*$BIG" "$SBIO" "${RUN[@]}" --time=1 --queue max_sectors_kb=$BIG
fi
echo "$MS0" >"$Q/max_sectors_kb"
[ "$(queue_snap)" = "$BASE" ] || notok "test setup: $LOOP back to its settings after the max_sectors_kb checks"
# Knobs that move each other: on 6.x kernels writing max_sectors_kb raises read_ahead_kb to
# twice it (echo 128 >read_ahead_kb; echo 512 >max_sectors_kb leaves 1024). Given in either
# order, the run has both as asked (written limits first) and everything is put back after.
MSQ=$((HW / 2 > 64 ? HW / 2 : 64))
for order in "read_ahead_kb=128 max_sectors_kb=$MSQ" "max_sectors_kb=$MSQ read_ahead_kb=128"; do
	set -- $order # two words: split on purpose
	if start_run "$TMP/out" "${RUN[@]}" --time=2 --queue "$1" --queue "$2"; then
		mid="$(knob read_ahead_kb) $(knob max_sectors_kb)"
		finish 15
		eq "--queue $1 --queue $2: both in effect mid-run as asked (read_ahead_kb, max_sectors_kb)" "$mid" "128 $MSQ"
		eq "--queue $1 --queue $2: exit 0" "$RC" 0
		same_state "--queue $1 --queue $2: every queue setting restored" "$BASE"
	else
		finish 15
		notok "--queue $1 --queue $2: the run never started (exit $RC: $(head -c 300 "$TMP/out.err" | tr '\n' ' '))"
	fi
done

# The blockdev-perftest experiment's own grid through compare: every cell ran at the values it
# is labelled with, as each run's result read them back from sysfs (its environment).
SW=$MNT/sweep
mkdir -p "$SW"
SWEEP=(--script "$(cd "$(dirname "$0")/../.." && pwd)/workloads/blockdev-sweep.lua" --dir="$SW" --size=8M --sizes=1M --runs=1)
expect_exit 0 "blockdev-sweep: prepare its set" "$SBIO" prepare "${SWEEP[@]}"
expect_exit 0 "compare blockdev-sweep --vary read_ahead_kb=128,2048 --vary max_sectors_kb=64,$MSQ: exit 0" \
	"$SBIO" compare "${SWEEP[@]}" --vary read_ahead_kb=128,2048 --vary max_sectors_kb=64,$MSQ \
	--repeat=1 -o "$TMP/grid.json"
eq "compare blockdev-sweep grid: each cell's runs read back the values of its label ($LOOP)" \
	"$(python3 - "$TMP/grid.json" "$LOOP" <<'PY'
import json, sys
doc, dev = json.load(open(sys.argv[1])), sys.argv[2]
bad, n = [], 0
for s in doc["settings"]:
    want = {k: int(v) for k, v in s["values"].items()}
    for r in s["runs"]:
        for p in (r["result"] or {}).get("phases", []):
            for j in p["jobs"]:
                for d in j["result"]["environment"]["devices"]:
                    if d["name"] != dev: continue
                    n += 1
                    got = {k: d["settings"].get(k) for k in want}
                    if got != want: bad.append("%s ran at %s" % (s["name"], got))
print("; ".join(bad) if bad else "%d cells, %d runs read back" % (len(doc["settings"]), n))
PY
)" "4 cells, 4 runs read back"
same_state "compare blockdev-sweep grid: every queue setting restored" "$BASE"

# --- --drop-caches: a seqrd run over the whole set once must read it all from the device ---
SEQ=(run "${SET[@]}" --file-test-mode=seqrd --time=30 --events=$((SETSZ / BS)))
s0=$(sectors_read)
expect_exit 0 "seqrd over the set once with --drop-caches: exit 0" "$SBIO" "${SEQ[@]}" --drop-caches \
	-o "$TMP/drop.json"
s1=$(sectors_read)
rd=$(bytes_read "$TMP/drop.json")
dev=$(dev_read_bytes "$TMP/drop.json")
eq "--drop-caches: the run read the whole set (bytes read)" "$rd" "$SETSZ"
eq "--drop-caches: the page cache of the set was empty at start" "$(cache_start "$TMP/drop.json")" 0
[ "${dev:--1}" -ge "$rd" ] 2>/dev/null && ok "--drop-caches: the result's device reads ($dev B) >= bytes read ($rd B)" ||
	notok "--drop-caches: the result's device reads ($dev B) >= bytes read ($rd B)"
[ $(((s1 - s0) * 512)) -ge "$rd" ] 2>/dev/null && ok "--drop-caches: /sys/block/$LOOP/stat sectors read grew by $(((s1 - s0) * 512)) B >= $rd B" ||
	notok "--drop-caches: /sys/block/$LOOP/stat sectors read grew by $(((s1 - s0) * 512)) B >= $rd B"

# --- Warm (the set read with cat right before): the device is not read ---
# Another process may drop the caches meanwhile (other tests use --drop-caches): one retry
# when the report says the set was not all cached at start.
for _ in 1 2; do
	cat "$D"/test_file.* >/dev/null
	fc=$(fincore_bytes)
	s0=$(sectors_read)
	rm -f "$TMP/warm.json"
	"$SBIO" "${SEQ[@]}" -o "$TMP/warm.json" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	s1=$(sectors_read)
	[ "$(cache_start "$TMP/warm.json")" = "$SETSZ" ] && break
done
eq "warm: fincore says the whole set is cached right before the run" "$fc" "$SETSZ"
eq "seqrd over the set once, warm: exit 0" "$RC" 0
rd=$(bytes_read "$TMP/warm.json")
dev=$(dev_read_bytes "$TMP/warm.json")
eq "warm: the run read the whole set (bytes read)" "$rd" "$SETSZ"
[ "${dev:--1}" -ge 0 ] && [ "$dev" -le $((SETSZ / 50)) ] 2>/dev/null && ok "warm: the result's device reads ($dev B) stay under 2% of the bytes read" ||
	notok "warm: the result's device reads ($dev B) stay under 2% of the bytes read ($rd B)"
[ $(((s1 - s0) * 512)) -le $((SETSZ / 50)) ] && ok "warm: /sys/block/$LOOP/stat sectors read grew by $(((s1 - s0) * 512)) B, under 2% of the set" ||
	notok "warm: /sys/block/$LOOP/stat sectors read grew by $(((s1 - s0) * 512)) B, under 2% of the set"
check "warm: the report says the whole set was cached at start" grep -q '^Page cache of the set: at start 64 MiB cached' "$TMP/out"

# --- The reported page cache at end against fincore right after: half the set read cold ---
# (One retry if they differ: another process may drop the caches between the two.)
for _ in 1 2; do
	rm -f "$TMP/half.json"
	"$SBIO" run "${SET[@]}" --file-test-mode=seqrd --time=30 --events=$((SETSZ / BS / 2)) \
		--drop-caches -o "$TMP/half.json" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	fc=$(fincore_bytes)
	rep=$(cache_end "$TMP/half.json")
	[ "$rep" = "$fc" ] && break
done
eq "seqrd over half the set with --drop-caches: exit 0" "$RC" 0
near "the result's page cache at end ($rep B) matches fincore right after ($fc B)" "${rep:--1}" "$fc" 3
[ "$fc" -lt "$SETSZ" ] && [ "$fc" -ge $((SETSZ / 2)) ] && ok "half the set read cold leaves part of it cached ($fc B of $SETSZ)" ||
	notok "half the set read cold leaves part of it cached ($fc B of $SETSZ)"

# --- --queue-device naming another device than the set's: a note names both ---
truncate -s 16M "$TMP/img2"
if dev2=$(losetup -f --show "$TMP/img2" 2>"$TMP/err"); then
	LOOP2=${dev2#/dev/}
	expect_exit 0 "--queue-device=$LOOP2 with the set on $LOOP: runs" "$SBIO" run "${SET[@]}" \
		--file-test-mode=rndrd --events=100 --queue-device="$LOOP2" --queue read_ahead_kb=64
	check "a note names both devices" grep -q \
		"note: --queue-device=$LOOP2 tunes $LOOP2, but the set in $D is on $LOOP: the settings do not apply to the set's I/O" "$TMP/err"
	expect_exit 0 "--queue-device=$LOOP, the set's own: runs" "$SBIO" run "${SET[@]}" \
		--file-test-mode=rndrd --events=100 --queue-device="$LOOP" --queue read_ahead_kb=64
	check "no such note for the set's own device" sh -c "! grep -q 'do not apply to the set' '$TMP/err'"
	losetup -d "/dev/$LOOP2"
	LOOP2=
else
	notok "a second loop device: $(head -c 200 "$TMP/err")"
fi

same_state "at the end: every queue setting of $LOOP as at the start" "$BASE"
exit 0
