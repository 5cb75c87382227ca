# Shared helpers for integration tests: source it first. Each check prints one TAP line,
# "ok - …" or "not ok - …"; tests/run-tests.sh counts them.
# Every test works in its own temporary folder, removed on exit (and loop devices are
# detached by the test's own trap, which must call t_cleanup).
set -u
SBIO=${SBIO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/sbio}
# The test tools of tests/tools/ (make test builds them into build/tests/).
SBIO_TOOLS=${SBIO_TOOLS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/tests}
T=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sbio-$T.XXXXXX")
NOBODY_DIR= # as_nobody's folder
t_cleanup() {
	rm -rf "$TMP"
	[ -z "$NOBODY_DIR" ] || rm -rf "$NOBODY_DIR"
}
trap t_cleanup EXIT
# A signal ends the test with the shell's usual status, through the test's EXIT trap.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Background processes a test started: PIDS+=("$!"); kill_pids (from its EXIT trap) kills
# and reaps those still running.
PIDS=()
kill_pids() {
	local p
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}

ok() { echo "ok - $T: $1"; }
notok() { echo "not ok - $T: $1"; }
# skip REASON: under CI=true the runner turns it into a failure (CI has root and loop devices).
skip() { echo "ok - $T: # SKIP $1"; }
# skip_kernel WHAT: a skip for a feature this kernel lacks ("# SKIP kernel: WHAT"), the one kind
# of skip CI=true counts as skipped, not failed: no machine set-up can run the check there.
skip_kernel() { skip "kernel: $1"; }

# check DESC CMD…: passes when CMD succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else notok "$desc"; fi
}

# expect_exit CODE DESC CMD…: runs CMD with stdout in $TMP/out and stderr in $TMP/err.
expect_exit() {
	local code=$1 desc=$2 rc
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq "$code" ]; then
		ok "$desc"
	else
		notok "$desc (exit $rc, expected $code; stderr: $(head -c 400 "$TMP/err" | tr '\n' ' '))"
	fi
}

# eq DESC GOT WANT
eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1 (got '$2', want '$3')"; fi
}

# near DESC GOT WANT PCT: |got - want| <= pct% of want
# lasted DESC ELAPSED LIMIT PCT TEXT: a time-limited run's measured time ELAPSED (s) is LIMIT
# ± PCT%, or it is longer and the text report TEXT says so with that figure ("Note: the
# measured phase lasted E s, … past its limit"): on a loaded machine a thread's last operation
# can end late, which no test can rule out, and sbio must then say it.
lasted() {
	local note
	note=$(sed -n 's/^Note: the measured phase lasted \([0-9.]*\) s, [0-9.]* s past its limit of.*/\1/p' "$5")
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'; then
		ok "$1 ($2 s)"
	elif [ -n "$note" ] && awk -v g="$2" -v n="$note" -v w="$3" 'BEGIN { d = g - n; if (d < 0) d = -d; exit !(g > w && d < 0.0001) }'; then
		ok "$1 ($2 s: past the limit, and the report says so)"
	else
		notok "$1 (got $2 s, want $3 ± $4%, or longer with the report's note saying so; note: '${note:-none}')"
	fi
}

near() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'; then
		ok "$1"
	else
		notok "$1 (got $2, want $3 ± $4%)"
	fi
}

# draws_near NAME K N P: K of N independent draws that each come out one way with probability P
# are as many as chance allows: within 5 standard deviations of N*P (a run's mix is drawn at
# random, so a fixed tolerance fails when the run is short and passes a wrong mix when it is
# long). Fewer than 30 draws is a failure: too few to tell.
draws_near() {
	if awk -v k="$2" -v n="$3" -v p="$4" 'BEGIN { if (n < 30) exit 1; d = k - n * p; if (d < 0) d = -d
		exit !(d <= 5 * sqrt(n * p * (1 - p))) }'; then
		ok "$1"
	else
		notok "$1 (got $2 of $3, want $(awk -v n="$3" -v p="$4" 'BEGIN { printf "%.1f ± 5 sd", n * p }'), at least 30 draws)"
	fi
}

# json_get FILE PATH…: the value at each dotted PATH of the JSON document FILE (sbio's -o
# output), one a line: "result.events", "result.ranks.1.ops" (a list element by index, -1
# the last), "result.op_types.read.latency.percentiles_ns.99.9" (a key holding dots is
# found whole), "result.samples.#" (how many elements). A string prints bare, anything
# else as JSON (12, 0.5, true, null, [1, 2]). A path that is not there prints "(no PATH)"
# and the status is 1. Needs python3 (installed by scripts/install-deps.sh).
json_get() {
	python3 - "$@" <<'EOF'
import json, sys

def get(v, keys):
    i = 0
    while i < len(keys):
        if keys[i:] == ['#'] and isinstance(v, (list, dict)):
            return len(v)
        if isinstance(v, dict):
            for j in range(len(keys), i, -1):
                k = '.'.join(keys[i:j])
                if k in v:
                    v, i = v[k], j
                    break
            else:
                raise KeyError
        elif isinstance(v, list) and keys[i] != '#':
            v, i = v[int(keys[i])], i + 1
        else:
            raise KeyError
    return v

try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print('(not JSON: %s)' % e)
    sys.exit(1)
rc = 0
for path in sys.argv[2:]:
    try:
        v = get(doc, path.split('.'))
        print(v if isinstance(v, str) else json.dumps(v))
    except (KeyError, IndexError, ValueError):
        print('(no %s)' % path)
        rc = 1
sys.exit(rc)
EOF
}

# A run's figures from its JSON result. sbio_json ARGS…: sbio ARGS… -o $RESULT (a stale
# one removed first), stdout in $TMP/out, stderr in $TMP/err. Then, of $RESULT (or of FILE):
# events_of [FILE]: the events; rwf_of [FILE]: "R W F", reads, writes and all fsyncs;
# pew_of [FILE]: "P E W", the fsyncs periodic, at the end and inside writes.
RESULT=$TMP/r.json
sbio_json() {
	rm -f "$RESULT"
	"$SBIO" "$@" -o "$RESULT" >"$TMP/out" 2>"$TMP/err"
}
events_of() { json_get "${1:-$RESULT}" result.events; }
rwf_of() { json_get "${1:-$RESULT}" result.op_types.{read,write,fsync}.ops | paste -sd ' '; }
pew_of() { json_get "${1:-$RESULT}" result.op_types.fsync.{periodic,end,in_writes} | paste -sd ' '; }

# stderr_one_line DESC: the last command's stderr is exactly one line.
stderr_one_line() {
	local n
	n=$(grep -vc '^sbio: note:' "$TMP/err")
	if [ "$n" -eq 1 ]; then ok "$1"; else notok "$1 ($n lines: $(head -c 300 "$TMP/err" | tr '\n' '|'))"; fi
}

# Under ASan (make test-asan), LeakSanitizer cannot run in a process traced by strace: the
# runs traced here skip the leak check (every other ASan and UBSan check stays on).
if [ -n "${ASAN_OPTIONS:-}" ]; then
	strace() { ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" command strace "$@"; }
fi

# json_py FILE CODE: run Python CODE with d = the JSON document in FILE; prints what CODE prints.
json_py() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])' "$1" "$2" 2>&1
}
# json_expect DESC FILE CODE: CODE (run by json_py) prints nothing when all is well, else what
# is wrong.
json_expect() {
	local out
	out=$(json_py "$2" "$3")
	if [ -z "$out" ]; then ok "$1"; else notok "$1 ($(head -c 400 <<<"$out" | tr '\n' '|'))"; fi
}

need_root() { [ "$(id -u)" -eq 0 ]; }

# loop_test WHAT [CMD WHY]…: the set-up of a test that makes a loop device of its own: MNT
# ($TMP/mnt) and an EXIT trap that kills its background processes (kill_pids), unmounts and
# detaches the device (loop_cleanup) and removes $TMP (t_cleanup). Not root (WHAT: what root
# is needed for), or a command CMD missing (WHY: what is said): a skip, and the script ends.
loop_test() {
	MNT=$TMP/mnt
	trap 'kill_pids; loop_cleanup "$MNT"; t_cleanup' EXIT
	if ! need_root; then
		skip "needs root ($1)"
		exit 0
	fi
	shift
	while [ $# -ge 2 ]; do
		if ! command -v "$1" >/dev/null; then
			skip "$2"
			exit 0
		fi
		shift 2
	done
}

# as_nobody ARGS…: sbio ARGS… run as user nobody (setpriv), with what it needs within its
# reach wherever the tests run (a clone inside a folder only root can enter, as /root or a
# 0700 mktemp folder): a copy of $SBIO, of the sanitizers' suppression files and a log folder
# of its own, in $NOBODY_DIR (outside $TMP, made at the first call, removed by t_cleanup).
# Sanitizer reports it writes there are moved to $SBIO_SANITIZER_LOG, where run-tests.sh
# counts them. Returns sbio's exit status.
as_nobody() {
	local v opts o r rc envs=()
	if [ -z "$NOBODY_DIR" ]; then
		NOBODY_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sbio-nobody.XXXXXX") && chmod 0755 "$NOBODY_DIR" &&
			install -m 0755 "$SBIO" "$NOBODY_DIR/sbio" && mkdir -m 1777 "$NOBODY_DIR/san" || return 125
	fi
	for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
		[ -n "${!v:-}" ] || continue
		opts=
		IFS=: read -ra o <<<"${!v}"
		for r in "${o[@]}"; do
			case $r in
			suppressions=*)
				install -m 0644 "${r#*=}" "$NOBODY_DIR/" || return 125
				r="suppressions=$NOBODY_DIR/$(basename "${r#*=}")"
				;;
			log_path=*) r="log_path=$NOBODY_DIR/san/$(basename "${r#*=}")" ;;
			esac
			opts="$opts${opts:+:}$r"
		done
		envs+=("$v=$opts")
	done
	env "${envs[@]}" setpriv --reuid=nobody --regid=nogroup --clear-groups "$NOBODY_DIR/sbio" "$@"
	rc=$?
	for r in "$NOBODY_DIR"/san/*; do
		[ -f "$r" ] && [ -n "${SBIO_SANITIZER_LOG:-}" ] && mv "$r" "$SBIO_SANITIZER_LOG/"
	done
	return $rc
}

# loop_ext4 [--direct-io] SIZE MNT [SECTOR]: an image of SIZE in $TMP, a loop device of the
# test's own over it (with SECTOR-byte logical sectors and an ext4 block of SECTOR when given;
# --direct-io: the device reads and writes its image with direct I/O, so the image's pages stay
# out of the page cache and what the device serves is the disk's), ext4 on it mounted at MNT;
# sets LOOP (the device's name, without /dev/). No loop device to be had: a skip, and the
# script ends (exit 0; CI=true counts it as a failure). mkfs or mount failing: not ok, and the
# script ends (exit 1). The script's EXIT trap must call loop_cleanup MNT.
LOOP=
loop_ext4() {
	local dio=
	if [ "$1" = --direct-io ]; then
		dio=--direct-io=on
		shift
	fi
	local size=$1 mnt=$2 sector=${3:-} dev
	truncate -s "$size" "$TMP/img"
	if ! dev=$(losetup -f --show $dio ${sector:+-b "$sector"} "$TMP/img" 2>"$TMP/err"); then
		skip "no loop device can be made: $(head -c 200 "$TMP/err" | tr '\n' ' ')"
		exit 0
	fi
	LOOP=${dev#/dev/}
	loop_baseline
	mkdir -p "$mnt"
	if ! mkfs.ext4 -q -F ${sector:+-b "$sector"} "/dev/$LOOP" >"$TMP/err" 2>&1 ||
		! mount "/dev/$LOOP" "$mnt" 2>>"$TMP/err"; then
		notok "mkfs.ext4${sector:+ -b $sector} and mount of /dev/$LOOP: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
		exit 1
	fi
}

# loop_baseline [DEV]: a loop device just attached (DEV, default $LOOP) in a known state,
# whatever an earlier user left on it: its scheduler and nr_requests outlive a detach and
# come back with the next attach (read_ahead_kb does not: the kernel sets it from the
# backing file's device). What was found is kept for loop_restore; then the device goes
# through another scheduler to none, which puts nr_requests and the tunables at the
# device's defaults.
LOOP_FOUND=
loop_baseline() {
	local q=/sys/block/${1:-$LOOP}/queue s other
	s=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$q/scheduler")
	LOOP_FOUND="${1:-$LOOP} $s $(cat "$q/nr_requests")"
	other=$(tr -d '[]' <"$q/scheduler" | tr ' ' '\n' | grep -vx -e none -e '' | head -1)
	[ -n "$other" ] && echo "$other" >"$q/scheduler"
	echo none >"$q/scheduler"
}
# loop_restore: the device loop_baseline found put back as it was (scheduler, then
# nr_requests, which the switch resets), before it is detached.
loop_restore() {
	local dev s nr
	[ -n "$LOOP_FOUND" ] || return 0
	read -r dev s nr <<<"$LOOP_FOUND"
	echo "$s" >"/sys/block/$dev/queue/scheduler"
	echo "$nr" >"/sys/block/$dev/queue/nr_requests"
	LOOP_FOUND=
}

# A device's queue, $Q (/sys/block/DEV/queue), and sbio's state file for it, $STATE.
# queue_snap: every setting sbio may touch, one KEY=VALUE a line (the scheduler line as the
# kernel shows it), then the scheduler's iosched/ tunables.
queue_snap() {
	local k f
	for k in scheduler read_ahead_kb max_sectors_kb nr_requests nomerges rotational wbt_lat_usec \
		rq_affinity add_random; do
		printf '%s=%s\n' "$k" "$(cat "$Q/$k")"
	done
	if [ -d "$Q/iosched" ]; then
		for f in "$Q"/iosched/*; do printf 'iosched/%s=%s\n' "${f##*/}" "$(cat "$f")"; done
	fi
}
# same_state DESC BEFORE: the device's settings are exactly BEFORE (a queue_snap).
same_state() {
	local now
	now=$(queue_snap)
	if [ "$now" = "$2" ]; then
		ok "$1"
	else
		notok "$1 (changed: $(diff <(echo "$2") <(echo "$now") | grep '^[<>]' | tr '\n' '|'))"
	fi
}
no_state_file() {
	if [ -e "$STATE" ]; then notok "$1 (state file $STATE left)"; else ok "$1"; fi
}
knob() { cat "$Q/$1"; }
cur_sched() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$Q/scheduler"; }

# sched_list [DEV]: the schedulers the loop device DEV (default $LOOP) offers, one a line, in
# the kernel's order.
sched_list() { tr -d '[]' <"/sys/block/${1:-$LOOP}/queue/scheduler" | tr ' ' '\n' | grep -v '^$'; }
# sched_offered NAME: the test's loop device ($LOOP) offers scheduler NAME (its module loaded
# first when the kernel lists it not).
sched_offered() {
	sched_list | grep -qx -- "$1" || modprobe "$1" 2>/dev/null
	sched_list | grep -qx -- "$1"
}
# sched_pick N PREFERRED…: N different schedulers the test's loop device ($LOOP) offers, on one
# line: those of PREFERRED it offers, in that order, then the others it offers, in the kernel's
# order. For checks that need two or three schedulers, not one in particular. Fewer offered:
# prints those, status 1 (the caller skips with skip_kernel).
sched_pick() {
	local n=$1 s got
	shift
	got=$({
		for s in "$@"; do sched_offered "$s" && echo "$s"; done
		sched_list
	} | awk '!seen[$0]++' | head -n "$n" | paste -sd ' ')
	echo "$got"
	[ "$(wc -w <<<"$got")" -eq "$n" ]
}

# loop_sched SCHED: the test's loop device ($LOOP, its queue $Q) switched to SCHED (its module
# loaded when the kernel lists it not), the scheduler it had kept for loop_cleanup, which puts
# it back (a queue's settings outlive the device's detach). No such scheduler: a skip
# ("kernel: no SCHED scheduler"), and the script ends.
SCHED_DEV= SCHED_OLD=
loop_sched() {
	Q=/sys/block/$LOOP/queue
	if ! sched_offered "$1"; then
		skip_kernel "no $1 scheduler"
		exit 0
	fi
	SCHED_OLD=$(cur_sched)
	SCHED_DEV=$LOOP
	echo "$1" >"$Q/scheduler"
}

# loop_cleanup MNT: the loop device's scheduler put back (loop_sched), MNT unmounted (lazily if
# it is busy) and the loop device detached.
loop_cleanup() {
	[ -n "$SCHED_DEV" ] && echo "$SCHED_OLD" >"/sys/block/$SCHED_DEV/queue/scheduler"
	SCHED_DEV=
	if mountpoint -q "$1" 2>/dev/null; then
		umount "$1" 2>/dev/null || umount -l "$1"
	fi
	loop_restore
	[ -n "$LOOP" ] && losetup -d "/dev/$LOOP"
	LOOP=
}

# json_map ARRAY FILE PATH…: json_get FILE PATH… with one python3 for them all, into the
# associative array ARRAY (declared by the caller: declare -A ARRAY), ARRAY[PATH] = its value
# ("(no PATH)" when it is not there, as json_get prints it; every PATH a "(not JSON: …)" when
# FILE is not JSON). Status 1 when a PATH is missing or FILE is not JSON.
json_map() {
	local -n jm_arr=$1
	local jm_file=$2 jm_i jm_vals
	shift 2
	mapfile -t jm_vals < <(json_get "$jm_file" "$@")
	jm_arr=()
	for ((jm_i = 1; jm_i <= $#; jm_i++)); do
		jm_arr[${!jm_i}]=${jm_vals[jm_i - 1]:-${jm_vals[0]:-(nothing)}}
	done
	for jm_i in "${jm_vals[@]}"; do
		case $jm_i in "(no "* | "(not JSON: "*) return 1 ;; esac
	done
	return 0
}
