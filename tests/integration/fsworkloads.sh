#!/bin/bash
# The file-system workloads (workloads/varmail, fileserver, webserver, webproxy, fsmark,
# postmark), on ext4 on a loop device of their own, as root:
# - each prepared, run at a small size and cleaned up: exit 0, its report() lines, every
#   operation of its flow or mix counted, no draw skipped where none can be, and the folder
#   listed (names, types, modes, sizes) exactly as before prepare after cleanup;
# - fsmark.lua's files/s is its creates over its phase's time, each create followed by its
#   fsync (the counts equal), and its files all gone after its remove phase;
# - postmark.lua's three phases: the pool made, the transactions' read/append and
#   create/delete halves in PostMark's proportions, nothing left after the delete phase;
#   with every draw pinned, each phase's counts exactly PostMark's;
# - sbio compare --script varmail --schedulers=none,bfq (another scheduler where the kernel
#   has no bfq): each run under its scheduler (the JSON's environment), a row per operation of
#   the flow, the scheduler put back;
# - SIGKILL in the middle of a varmail run that creates and deletes files: the next run puts
#   the tree back as prepared (and says so), and cleanup leaves the folder as before prepare.
source "$(dirname "$0")/lib.sh"

MNT=$TMP/mnt
fw_cleanup() {
	kill_pids
	loop_cleanup "$MNT"
	t_cleanup
}
trap fw_cleanup EXIT

if ! need_root; then
	skip "needs root (a loop device, the scheduler)"
	exit 0
fi
loop_ext4 256M "$MNT"
ok "own loop device /dev/$LOOP with ext4 mounted at $MNT"

# listing DIR: every entry under DIR with its type, mode and size (a file's), sorted.
listing() { (cd "$1" && find . -printf '%y %m %s %p\n' | awk '$1 != "f" { $3 = "-" } 1' | sort); }

# ops_of JSON PHASE JOB: "name=count" of every op type the job counted, sorted by name.
ops_of() {
	json_py "$1" "
p = [p for p in d['phases'] if p['name'] == '$2'][0]
r = [j for j in p['jobs'] if j['name'] == '$3'][0]['result']['result']
print(' '.join('%s=%d' % (k, v['ops']) for k, v in sorted(r['op_types'].items()) if v['ops']))
print('skipped=%d' % r.get('skipped', 0))"
}

# --- The personalities' shared declarations (sbio.filebench_set) name the script's line ---
line=$(grep -n '^sbio.filebench_set' workloads/varmail.lua | cut -d: -f1)
expect_exit 2 "varmail --files=abc: exit 2" "$SBIO" run --script varmail --dir="$MNT" --files=abc
check "varmail --files=abc: the message names varmail.lua's line $line" \
	grep -q "varmail.lua:$line: --files: 'abc' is not a number" "$TMP/err"
expect_exit 2 "varmail --files=0: exit 2" "$SBIO" prepare --script varmail --dir="$MNT" --files=0
check "varmail --files=0: the message names varmail.lua's line $line" \
	grep -q "varmail.lua:$line: fileset: files must be" "$TMP/err"

# --- Each workload: prepare, run small, cleanup ---
# name, its options for a run of a second or two, the op types its jobs must count
declare -A OPTS=(
	[varmail]="--files=200 --threads=4 --time=2"
	[fileserver]="--files=400 --filesize=16k --threads=4 --iosize=64k --time=2"
	[webserver]="--files=200 --threads=4 --time=2"
	[webproxy]="--files=400 --threads=4 --time=2"
	[fsmark]="--files=100 --size=4096 --threads=2"
	[postmark]="--number=200 --transactions=400 --rand-seed=1"
)
declare -A WANT=(
	[varmail]="append close create fsync open readwhole unlink"
	[fileserver]="append close create open readwhole stat unlink"
	[webserver]="append close open readwhole"
	[webproxy]="append close create open readwhole unlink"
	[fsmark]="close create fsync"
	[postmark]="append create readwhole unlink"
)
for w in varmail fileserver webserver webproxy fsmark postmark; do
	D=$MNT/$w
	mkdir -p "$D"
	before=$(listing "$D")
	# shellcheck disable=SC2086 # the options are words
	expect_exit 0 "$w: prepare" "$SBIO" prepare --script "$w" --dir="$D" ${OPTS[$w]}
	# shellcheck disable=SC2086
	expect_exit 0 "$w: run ${OPTS[$w]}" "$SBIO" run --script "$w" --dir="$D" ${OPTS[$w]} \
		-o "$TMP/$w.json"
	cp "$TMP/out" "$TMP/$w.out"
	# The op types of the workload's first measured phase (fsmark: create 1; postmark:
	# transactions), as names.
	case $w in
	fsmark) ph="create 1" job=fs_mark ;;
	postmark) ph=transactions job=postmark ;;
	fileserver | varmail | webserver) ph=$w job=filereader ;;
	webproxy) ph=$w job=proxycache ;;
	esac
	got=$(ops_of "$TMP/$w.json" "$ph" "$job")
	names=$(head -1 <<<"$got" | tr ' ' '\n' | sed 's/=.*//' | paste -sd ' ')
	eq "$w: the op types counted in phase $ph" "$names" "${WANT[$w]}"
	case $w in
	fsmark | postmark) ;; # their phases end on their counts; skipping is theirs to say
	*) eq "$w: no draw skipped (the flow can always be served)" "$(tail -1 <<<"$got")" skipped=0 ;;
	esac
	case $w in
	fsmark) check "fsmark: report() prints fs_mark's table" grep -qF -- "Files/sec" "$TMP/$w.out" ;;
	postmark) check "postmark: report() prints PostMark's transaction line" grep -qF -- "seconds of transactions" "$TMP/$w.out" ;;
	*) check "$w: report() prints filebench's IO Summary" grep -qF -- "IO Summary:" "$TMP/$w.out" ;;
	esac
	# shellcheck disable=SC2086
	expect_exit 0 "$w: cleanup" "$SBIO" cleanup --script "$w" --dir="$D" ${OPTS[$w]}
	eq "$w: after cleanup the folder is as before prepare" "$(listing "$D")" "$before"
done

# fsmark: each create fsynced; files/s = creates over the phase's time; all removed.
json_expect "fsmark: creates = fsyncs = 200, files/s = creates / elapsed, remove phase unlinked 200" \
	"$TMP/fsmark.json" "
c = [p for p in d['phases'] if p['name'] == 'create 1'][0]['jobs'][0]['result']['result']
r = [p for p in d['phases'] if p['name'] == 'remove 1'][0]['jobs'][0]['result']['result']
o = c['op_types']
if o['create']['ops'] != 200 or o['fsync']['ops'] != 200: print('create/fsync', o['create']['ops'], o['fsync']['ops'])
if r['op_types']['unlink']['ops'] != 200: print('unlinks', r['op_types']['unlink']['ops'])"
line=$(awk '$1 == 200 && $2 == 4096 { print $3 }' "$TMP/fsmark.out")
want=$(json_py "$TMP/fsmark.json" "
c = [p for p in d['phases'] if p['name'] == 'create 1'][0]['jobs'][0]['result']['result']
print('%.1f' % (c['op_types']['create']['ops'] / c['elapsed_s']))")
eq "fsmark: the Files/sec line is the creates over the phase's time" "$line" "$want"

# postmark: the pool, the transactions' halves, nothing left.
json_expect "postmark: 200 creates in the pool phase; 800 operations in the transactions, reads+appends within 3 sd of 400; delete phase leaves no file" \
	"$TMP/postmark.json" "
ph = {p['name']: p['jobs'][0]['result']['result'] for p in d['phases']}
o = lambda r, k: r['op_types'].get(k, {}).get('ops', 0)
if o(ph['create'], 'create') != 200: print('pool', o(ph['create'], 'create'))
t = ph['transactions']
n = sum(o(t, k) for k in ('readwhole', 'append', 'create', 'unlink'))
ra = o(t, 'readwhole') + o(t, 'append')
if n != 800 or abs(ra - 400) > 3 * 800 ** 0.5 / 2: print('transactions', n, ra)
left = 200 + o(t, 'create') - o(t, 'unlink') - o(ph['delete'], 'unlink')
if left != 0: print('files left', left)"

# postmark with every draw pinned (one size, every transaction a read and a create):
# PostMark's sequence, whatever the draws: 200 files, then 200 transactions of a read and a
# create until the table's 400 slots are full, 200 of a read alone, 400 files deleted.
D=$MNT/pmfix
mkdir -p "$D"
PMFIX="--number=200 --transactions=400 --min-size=4096 --max-size=4096 --bias-read=10 --bias-create=10"
# shellcheck disable=SC2086 # the options are words
expect_exit 0 "postmark pinned: run $PMFIX" "$SBIO" run --script postmark --dir="$D" $PMFIX \
	-o "$TMP/pmfix.json"
json_expect "postmark pinned: create 200; read+create 200 each; read 200 with the table full; 400 deleted" \
	"$TMP/pmfix.json" "
ph = {p['name']: p['jobs'][0]['result']['result']['op_types'] for p in d['phases']}
got = {n: {k: v['ops'] for k, v in o.items() if k != 'close' and v['ops']} for n, o in ph.items()}
want = {'create': {'create': 200}, 'transactions': {'readwhole': 200, 'create': 200},
        'transactions, table full': {'readwhole': 200}, 'delete': {'unlink': 400}}
if got != want: print(got)"
check "postmark pinned: report() counts 400 transactions" grep -qF -- "seconds of transactions (400," "$TMP/out"
# shellcheck disable=SC2086
expect_exit 0 "postmark pinned: cleanup" "$SBIO" cleanup --script postmark --dir="$D" $PMFIX

# --- compare --script varmail --schedulers=none,S2: bfq, or another scheduler the device
# offers where the kernel has no bfq ---
D=$MNT/cmp
mkdir -p "$D"
Q=/sys/block/$LOOP/queue
SCHED0=$(cur_sched)
read -r _ S2 <<<"$(sched_pick 2 none bfq mq-deadline)"
expect_exit 0 "compare: prepare varmail" "$SBIO" prepare --script varmail --dir="$D" --files=200
expect_exit 0 "compare --script varmail --schedulers=none,$S2 --threads=4 --time=1: exit 0" \
	"$SBIO" compare --script varmail --dir="$D" --files=200 --threads=4 --time=1 \
	--schedulers=none,"$S2" -o "$TMP/cmp.json"
cp "$TMP/out" "$TMP/cmp.out"
json_expect "compare: each run under its scheduler, each counting creates, fsyncs and unlinks" \
	"$TMP/cmp.json" "
runs = [r for s in d['settings'] for r in s['runs']]
seen = []
for r in runs:
    job = r['result']['phases'][0]['jobs'][0]['result']
    s = job['environment']['scheduler']
    seen.append(s)
    j = job['result']['op_types']
    for k in ('create', 'fsync', 'unlink', 'readwhole'):
        if not j.get(k, {}).get('ops'): print(s, 'no', k)
if sorted(seen) != sorted(['$S2', 'none']): print('schedulers', seen)"
check "compare: the table has the creates' p99" grep -qF -- "create p99" "$TMP/cmp.out"
eq "compare: the loop device's scheduler put back" "$(cur_sched)" "$SCHED0"

# --- SIGKILL mid-run, then the next run repairs, then cleanup ---
# changed DIR LISTING: wait (up to 60 s: a loaded machine starts the run late) until DIR's
# listing is no longer LISTING, then a second more.
changed() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(listing "$1" 2>/dev/null)" != "$2" ] && break
		sleep 0.1
	done
	sleep 1
}
D=$MNT/kill
mkdir -p "$D"
before=$(listing "$D")
expect_exit 0 "SIGKILL: prepare varmail" "$SBIO" prepare --script varmail --dir="$D" --files=300
prepared=$(listing "$D")
"$SBIO" run --script varmail --dir="$D" --files=300 --threads=4 --time=30 >"$TMP/kill.out" 2>&1 &
PIDS+=($!)
changed "$D" "$prepared"
kill -KILL "${PIDS[-1]}"
wait "${PIDS[-1]}" 2>/dev/null
check "SIGKILL: the killed run changed the tree (files made and removed)" \
	test "$(listing "$D")" != "$prepared"
expect_exit 0 "SIGKILL: the next run (1 s) starts" "$SBIO" run --script varmail --dir="$D" \
	--files=300 --threads=4 --time=1
check "SIGKILL: the next run says it put the tree back" grep -qF -- "put back" "$TMP/out"
expect_exit 0 "SIGKILL: cleanup" "$SBIO" cleanup --script varmail --dir="$D" --files=300
eq "SIGKILL: after cleanup the folder is as before prepare" "$(listing "$D")" "$before"
"$SBIO" prepare --script varmail --dir="$D" --files=300 >/dev/null 2>&1
prepared=$(listing "$D")
"$SBIO" run --script varmail --dir="$D" --files=300 --threads=4 --time=30 >"$TMP/kill.out" 2>&1 &
PIDS+=($!)
changed "$D" "$prepared"
kill -KILL "${PIDS[-1]}"
wait "${PIDS[-1]}" 2>/dev/null
expect_exit 0 "SIGKILL, then cleanup at once (no run between)" "$SBIO" cleanup --script varmail \
	--dir="$D" --files=300
eq "SIGKILL then cleanup: the folder is as before prepare" "$(listing "$D")" "$before"
