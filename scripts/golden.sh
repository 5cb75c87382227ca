#!/bin/bash
# golden.sh OLD NEW [OUTDIR]: run one matrix of sbio commands with two binaries and compare
# what each printed, case by case. Meant for a change that must not alter behaviour: OLD is a
# build from before it, NEW from after.
#
# Each case runs with each binary in turn, in a fresh folder of the same path (OUTDIR/w), the
# binary itself copied to the same path (OUTDIR/bin/sbio), so paths in outputs compare. Every
# command's exit code is compared exactly, its stderr exactly but for the folder paths (and
# numbers in the few lines that say how long something took), its stdout and output files
# after normalization: numbers masked (timings and rates vary from run to run) but the words
# and the lines kept; counts (events, operations, bytes) exact in the cases marked
# deterministic (--events, --rand-seed, one thread); JSON as its key paths and value types,
# with exact strings, settings and deterministic counts; CSV as its header, row count and
# masked rows; charts as their format and pixel size. `golden.sh OLD OLD` must report 0 differ:
# whatever differs between two runs of one binary is masked, and nothing more.
#
# Prints "same" or "DIFFER" per case (with the unified diff of the normalized outputs, whole in
# OUTDIR/CASE.diff), then "N same, N differ"; exits 1 when a case differs, 2 on bad usage.
# OUTDIR (default: a new folder under /tmp) keeps every raw and normalized output:
# OUTDIR/{old,new}/CASE/ and OUTDIR/{old,new}/CASE.norm.
# GOLDEN_ONLY=REGEX runs only the cases whose names match. 2 to 3 minutes on 2 cores.
set -u
export LC_ALL=C
shopt -s extglob

if [ $# -lt 2 ] || [ $# -gt 3 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
	echo "usage: $0 OLD_BINARY NEW_BINARY [OUTDIR]" >&2
	exit 2
fi
OLD=$(realpath "$1")
NEW=$(realpath "$2")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 3 ]; then
	OUT=$3
	mkdir -p "$OUT" || exit 2
	OUT=$(realpath "$OUT")
	rm -rf "${OUT:?}"/{old,new,w,bin,fix,state,workloads,norm.py,times} "${OUT:?}"/*.diff
else
	OUT=$(mktemp -d /tmp/golden.XXXXXX)
fi
ONLY=${GOLDEN_ONLY:-}
W=$OUT/w     # each case's working folder, made afresh for each binary
B=$OUT/bin/sbio
FIX=$OUT/fix # fixtures both binaries read (scripts, config files)
mkdir -p "$OUT/bin" "$FIX" "$OUT/state"
cp -R "$ROOT/workloads" "$OUT/workloads"
export SBIO_STATE_DIR=$OUT/state
export SBIO_WORKLOADS=$OUT/workloads
unset SBIO_TOOLS CI

# --- loop devices (root): schedulers, queue knobs and the raw-device bad inputs ----------
LOOPDEV=''
RAWDEV=''
LOOP_FOUND='' # the loop device's scheduler and nr_requests as found: they outlive a detach
MNT=$OUT/mnt
golden_cleanup() {
	local q sched nr
	if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT" 2>/dev/null || umount -l "$MNT"; fi
	if [ -n "$LOOPDEV" ]; then
		q=/sys/block/${LOOPDEV#/dev/}/queue
		if [ -n "$LOOP_FOUND" ]; then
			read -r sched nr <<<"$LOOP_FOUND"
			echo "$sched" >"$q/scheduler" 2>/dev/null
			echo "$nr" >"$q/nr_requests" 2>/dev/null
		fi
		losetup -d "$LOOPDEV"
	fi
	[ -n "$RAWDEV" ] && losetup -d "$RAWDEV"
	LOOPDEV=''
	RAWDEV=''
	rm -f "$OUT/loop.img" "$OUT/raw.img"
}
trap golden_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null; then
	truncate -s 64M "$OUT/loop.img"
	truncate -s 4M "$OUT/raw.img"
	mkdir -p "$MNT"
	if LOOPDEV=$(losetup -f --show "$OUT/loop.img" 2>/dev/null) &&
		mkfs.ext4 -q -F "$LOOPDEV" >/dev/null 2>&1 && mount "$LOOPDEV" "$MNT" 2>/dev/null; then
		# A known scheduler to start from, whatever the last user of the device left.
		q=/sys/block/${LOOPDEV#/dev/}/queue
		LOOP_FOUND="$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$q/scheduler") $(cat "$q/nr_requests")"
		echo none >"/sys/block/${LOOPDEV#/dev/}/queue/scheduler" 2>/dev/null
		RAWDEV=$(losetup -f --show "$OUT/raw.img" 2>/dev/null) || RAWDEV=
	else
		golden_cleanup
	fi
fi
[ -n "$LOOPDEV" ] || echo "note: no loop device (not root?): the scheduler and raw-device cases are left out" >&2
HAVE_MPI=false
command -v mpirun >/dev/null && HAVE_MPI=true
$HAVE_MPI || echo "note: no mpirun: the MPI cases are left out" >&2
HAVE_GNUPLOT=false
command -v gnuplot >/dev/null && HAVE_GNUPLOT=true
$HAVE_GNUPLOT || echo "note: no gnuplot: the plot cases are left out" >&2

# --- running a case ------------------------------------------------------------------------
# A case is a function c_NAME that runs steps in $W with x or xi; defcase NAME FLAGS registers it.
# FLAGS: det (one thread, --events, --rand-seed: counts are exact), exact (no masking at all:
# help, refusals).
CASES=()
declare -A FLAGS
defcase() {
	CASES+=("$1")
	FLAGS[$1]=${2:-}
}
# x LABEL ARGS…: sbio ARGS… in $W; stdout, stderr and exit code into $R/LABEL.{out,err,rc}.
x() {
	local label=$1
	shift
	(cd "$W" && exec timeout -k 5 120 "$B" "$@") >"$R/$label.out" 2>"$R/$label.err" </dev/null
	echo $? >"$R/$label.rc"
}
# xi LABEL CMD…: as x, for any command (mpirun); $B is the binary.
xi() {
	local label=$1
	shift
	(cd "$W" && exec timeout -k 5 120 "$@") >"$R/$label.out" 2>"$R/$label.err" </dev/null
	echo $? >"$R/$label.rc"
}
# keep FILE…: output files the case made, kept for comparison (a missing one is
# recorded as missing).
keep() {
	local f
	for f in "$@"; do
		if [ -e "$W/$f" ]; then cp "$W/$f" "$R/file.$f"; else echo missing >"$R/file.$f.missing"; fi
	done
}
# listing: the names in $W (and its folders), sorted: what prepare and cleanup leave.
listing() { (cd "$W" && find . -mindepth 1 | sort) >"$R/listing.ls"; }
# The set's state: the manifest's state line and each file's size.
setstate() { (cd "$W" && grep '^state=' sbio.manifest && stat -c '%n %s' test_file.*) >"$R/set.ls"; }

S8=(--file-num=4 --file-total-size=8M --rand-seed=1)

# --- the matrix ----------------------------------------------------------------------------
MODES=(seqwr seqrewr seqrd rndrd rndwr rndrw)
ENGINES=(sync mmap libaio io_uring null)
for m in "${MODES[@]}"; do
	for e in "${ENGINES[@]}"; do
		# A queued engine's rndrw splits reads and writes as its completions come back.
		f=det
		[[ $m == rndrw && $e == @(libaio|io_uring) ]] && f=
		defcase "mode.$m.$e" $f
		eval "c_mode.$m.$e() { x prepare prepare \"\${S8[@]}\"; x run run \"\${S8[@]}\" --file-test-mode=$m --ioengine=$e --events=300; listing; x cleanup cleanup \"\${S8[@]}\"; listing; }"
	done
done
# Every function name above holds dots; bash takes them.
mode_run() { x prepare prepare "${S8[@]}" && x run run "${S8[@]}" "$@" && x cleanup cleanup "${S8[@]}"; }
defcase io.file-io-mode-async
c_io.file-io-mode-async() { mode_run --file-test-mode=rndrw --file-io-mode=async --events=300; }
defcase io.file-io-mode-mmap det
c_io.file-io-mode-mmap() { mode_run --file-test-mode=rndrw --file-io-mode=mmap --events=300; }
defcase io.file-io-mode-sync det
c_io.file-io-mode-sync() { mode_run --file-test-mode=rndwr --file-io-mode=sync --events=300; }
defcase io.async-backlog det
c_io.async-backlog() { mode_run --file-test-mode=rndrd --file-io-mode=async --file-async-backlog=8 --events=300; }
for e in libaio io_uring; do
	defcase "io.$e-iodepth4"
	eval "c_io.$e-iodepth4() { mode_run --file-test-mode=rndrw --ioengine=$e --iodepth=4 --events=300; }"
	defcase "io.$e-batch2" det
	eval "c_io.$e-batch2() { mode_run --file-test-mode=rndrd --ioengine=$e --iodepth=8 --iodepth-batch=2 --events=300; }"
done
for e in sync libaio io_uring; do
	for m in seqrd rndrw; do
		f=det
		[[ $m == rndrw && $e != sync ]] && f=
		defcase "io.direct.$e.$m" $f
		eval "c_io.direct.$e.$m() { mode_run --file-test-mode=$m --ioengine=$e --file-extra-flags=direct --events=200; }"
	done
done
defcase io.direct-mmap-refused
c_io.direct-mmap-refused() { mode_run --file-test-mode=rndrd --ioengine=mmap --file-extra-flags=direct --events=100; }
defcase io.extra-flags-sync-dsync det
c_io.extra-flags-sync-dsync() { mode_run --file-test-mode=rndwr --file-extra-flags=sync,dsync --events=100; }
defcase io.uring-fixed
c_io.uring-fixed() { mode_run --file-test-mode=rndrw --ioengine=io_uring --uring-fixed --events=300; }
defcase io.uring-sqpoll
c_io.uring-sqpoll() { mode_run --file-test-mode=rndrw --ioengine=io_uring --uring-sqpoll --iodepth=4 --events=300; }
defcase io.uring-fixed-sqpoll-direct det
c_io.uring-fixed-sqpoll-direct() { mode_run --file-test-mode=rndrd --ioengine=io_uring --uring-fixed=on --uring-sqpoll=on --file-extra-flags=direct --events=200; }
defcase io.uring-fixed-on-sync det
c_io.uring-fixed-on-sync() { mode_run --file-test-mode=rndrd --ioengine=sync --uring-fixed --events=100; }
defcase io.threads2
c_io.threads2() { mode_run --file-test-mode=rndrw --threads=2 --events=400; }
defcase io.seq-stream-per-thread
c_io.seq-stream-per-thread() { mode_run --file-test-mode=seqrd --threads=2 --seq-stream=per-thread --events=400; }
defcase io.time1
c_io.time1() { mode_run --file-test-mode=rndrd --time=1; }

# --- output formats and reporting options ----------------------------------------------------
defcase out.json det
c_out.json() { mode_run --file-test-mode=rndrw --events=300 -o r.json && keep r.json; }
defcase out.json-stdout det
c_out.json-stdout() { mode_run --file-test-mode=rndrw --events=300 --output-format=json; }
defcase out.json-file-format det
c_out.json-file-format() { mode_run --file-test-mode=rndwr --events=300 --output-format=json --output=r.json && keep r.json; }
defcase out.csv det
c_out.csv() {
	x prepare prepare "${S8[@]}"
	x run1 run "${S8[@]}" --file-test-mode=rndrd --events=300 -o r.csv
	x run2 run "${S8[@]}" --file-test-mode=rndwr --events=300 -o r.csv
	keep r.csv
}
defcase out.csv-stdout det
c_out.csv-stdout() { mode_run --file-test-mode=rndrw --events=300 --output-format=csv; }
defcase out.report-interval
c_out.report-interval() { mode_run --file-test-mode=rndrd --time=2 --report-interval=1 -o r.json && keep r.json; }
defcase out.log-interval
c_out.log-interval() { mode_run --file-test-mode=rndrd --time=1 --log-interval=200 -o r.json && keep r.json; }
defcase out.histogram det
c_out.histogram() { mode_run --file-test-mode=rndrw --events=300 --histogram; }
defcase out.percentile det
c_out.percentile() { mode_run --file-test-mode=rndrw --events=300 --percentile=99; }
defcase out.percentile-off det
c_out.percentile-off() { mode_run --file-test-mode=rndrd --events=300 --percentile=0; }
defcase out.verify det
c_out.verify() {
	x prepare prepare "${S8[@]}" --verify
	x run run "${S8[@]}" --file-test-mode=rndrw --events=300 --verify -o r.json
	keep r.json
	x cleanup cleanup "${S8[@]}"
}
defcase out.verify-unprepared det
c_out.verify-unprepared() { mode_run --file-test-mode=rndrw --events=300 --verify; }
defcase out.validate det
c_out.validate() { x prepare prepare "${S8[@]}" --validate && x run run "${S8[@]}" --file-test-mode=seqrd --events=300 --validate; }
defcase out.warmup det
c_out.warmup() { mode_run --file-test-mode=rndrd --events=300 --warmup=1 -o r.json && keep r.json; }
defcase out.warmup-time det
c_out.warmup-time() { mode_run --file-test-mode=rndrd --events=300 --warmup-time=1; }
defcase out.warmup-auto
c_out.warmup-auto() { mode_run --file-test-mode=rndrd --time=1 --warmup=auto --warmup-max=5 --rate=2000 -o r.json && keep r.json; }
defcase out.rate det
c_out.rate() { mode_run --file-test-mode=rndrw --events=200 --rate=2000 -o r.json && keep r.json; }
defcase out.fsync-freq det
c_out.fsync-freq() { mode_run --file-test-mode=rndwr --events=300 --file-fsync-freq=10 -o r.json && keep r.json; }
defcase out.fsync-all det
c_out.fsync-all() { mode_run --file-test-mode=rndwr --events=200 --file-fsync-all; }
defcase out.fsync-end-off det
c_out.fsync-end-off() { mode_run --file-test-mode=rndwr --events=300 --file-fsync-end=off; }
defcase out.fsync-fdatasync det
c_out.fsync-fdatasync() { mode_run --file-test-mode=rndwr --events=300 --file-fsync-mode=fdatasync --file-fsync-freq=7; }
defcase out.fsync-scope-dirty det
c_out.fsync-scope-dirty() { mode_run --file-test-mode=rndwr --events=300 --file-fsync-scope=dirty -o r.json && keep r.json; }
defcase out.merged det
c_out.merged() { mode_run --file-test-mode=seqwr --events=300 --file-merged-requests=4; }
defcase out.rw-ratio det
c_out.rw-ratio() { mode_run --file-test-mode=rndrw --events=300 --file-rw-ratio=3; }
defcase out.random-order-once det
c_out.random-order-once() { mode_run --file-test-mode=rndrd --events=600 --random-order=once; }
defcase out.fadvise-invalidate det
c_out.fadvise-invalidate() { mode_run --file-test-mode=rndrd --events=300 --fadvise=auto --invalidate -o r.json && keep r.json; }
defcase out.fill-prealloc det
c_out.fill-prealloc() {
	x prepare prepare "${S8[@]}" --file-prealloc=fallocate --file-fill=compressible:50
	x run run "${S8[@]}" --file-test-mode=rndwr --events=300 --file-fill=zero
	x cleanup cleanup "${S8[@]}"
}
defcase out.cpus-ioprio det
c_out.cpus-ioprio() { mode_run --file-test-mode=rndrd --events=300 --cpus=0 --ioprio=be:2 -o r.json && keep r.json; }
defcase out.memory-limit det
c_out.memory-limit() { mode_run --file-test-mode=rndrd --events=300 --memory-limit=64M; }
defcase out.sysbench-spellings det
c_out.sysbench-spellings() {
	x prepare --test=fileio --num-threads=1 "${S8[@]}" prepare
	x run --test=fileio --num-threads=1 --max-requests=300 --max-time=0 "${S8[@]}" --file-test-mode=rndrw --mysql-db=x --verbosity=3 run
	x cleanup --test=fileio "${S8[@]}" cleanup
}
defcase out.config-file det
c_out.config-file() {
	printf '# options\nfile-num=4\nfile-total-size=8M\nrand-seed=1\nevents=300\n' >"$W/opts.cfg"
	x prepare --config-file=opts.cfg prepare
	x run --config-file=opts.cfg run --file-test-mode=rndrd --events=200
}
defcase out.seqwr-empty det
c_out.seqwr-empty() { x run run "${S8[@]}" --file-test-mode=seqwr --events=300 && listing; }
defcase out.seqwr-empty-null det
c_out.seqwr-empty-null() {
	x run run "${S8[@]}" --file-test-mode=seqwr --ioengine=null --events=300 && setstate
}
defcase out.prepare-reuse det
c_out.prepare-reuse() {
	x prepare1 prepare "${S8[@]}"
	x prepare2 prepare "${S8[@]}"
	x prepare3 prepare --file-num=4 --file-total-size=12M --rand-seed=1
	x adopt prepare "${S8[@]}" --adopt
	listing
}
defcase out.sigint
c_out.sigint() {
	x prepare prepare "${S8[@]}"
	# SIGINT half a second into a 30 s run: the report is printed, marked, and the exit code is 130.
	(cd "$W" && exec "$B" run "${S8[@]}" --file-test-mode=rndrd --time=30 -o r.json) \
		>"$R/run.out" 2>"$R/run.err" </dev/null &
	local pid=$! i
	for i in $(seq 100); do
		grep -q 'Threads started' "$R/run.out" 2>/dev/null && break
		sleep 0.2
	done
	sleep 0.5
	kill -INT "$pid"
	wait "$pid"
	echo $? >"$R/run.rc"
	keep r.json
}
defcase out.bad-output-dir
c_out.bad-output-dir() { mode_run --file-test-mode=rndrd --events=100 -o nosuch/r.json; }
defcase out.dev-full
c_out.dev-full() { mode_run --file-test-mode=rndrd --events=100 -o /dev/full; }
defcase out.raw-device det
c_out.raw-device() {
	[ -n "$RAWDEV" ] || return 0
	x rd run --filename="$RAWDEV" --file-test-mode=rndrd --events=200 --rand-seed=1
	x wr-refused run --filename="$RAWDEV" --file-test-mode=rndwr --events=200 --rand-seed=1
	x wr run --filename="$RAWDEV" --file-test-mode=rndwr --events=200 --rand-seed=1 --allow-destroy
}
defcase out.scheduler det
c_out.scheduler() {
	[ -n "$LOOPDEV" ] || return 0
	local d=$MNT/s
	rm -rf "$d"
	mkdir -p "$d"
	x prepare prepare --dir="$d" "${S8[@]}"
	x run run --dir="$d" "${S8[@]}" --file-test-mode=rndrd --events=300 --scheduler=mq-deadline \
		--queue read_ahead_kb=256 --queue nr_requests=64 -o r.json
	keep r.json
	x bad-sched run --dir="$d" "${S8[@]}" --file-test-mode=rndrd --events=300 --scheduler=nosuch
	x bad-knob run --dir="$d" "${S8[@]}" --file-test-mode=rndrd --events=300 --queue nosuch=1
	x restore restore
	x cleanup cleanup --dir="$d" "${S8[@]}"
}

# --- scripts -------------------------------------------------------------------------------
# wl NAME ARGS…: prepare, run (JSON kept), cleanup of a shipped workload.
wl() {
	local n=$1
	shift
	x prepare prepare --script "$n" --rand-seed=1 "$@"
	x run run --script "$n" --rand-seed=1 "$@" -o r.json
	keep r.json
	listing
	x cleanup cleanup --script "$n" "$@"
	listing
}
defcase wl.blockdev-sweep det
c_wl.blockdev-sweep() { wl blockdev-sweep --size=4M --runs=1 --sizes=1M,64K; }
defcase wl.bonnie-direct
c_wl.bonnie-direct() { wl bonnie-direct --size=2M --sizes=4k,16k; }
defcase wl.fileserver
c_wl.fileserver() { wl fileserver --files=40 --filesize=8k --threads=2 --iosize=64k --append=4k --time=1; }
defcase wl.fio-matrix det
c_wl.fio-matrix() { wl fio-matrix --size=10M --events=100 --depth=4; }
defcase wl.fsmark
c_wl.fsmark() { wl fsmark --files=20 --size=4096 --iosize=4096; }
defcase wl.hotset
c_wl.hotset() { wl hotset --size=8M --time=1; }
defcase wl.io-controller
c_wl.io-controller() { wl io-controller --size=8M --time=1 --readers=2 --weights=100,200 --cells= --iodepth=4; }
defcase wl.iozone det
c_wl.iozone() { wl iozone --size=4M --record=64k; }
defcase wl.oltp
c_wl.oltp() { wl oltp --size=8M --time=1 --threads=1; }
defcase wl.postmark
c_wl.postmark() { wl postmark --number=40 --transactions=200; }
defcase wl.priorities
c_wl.priorities() { wl priorities --size=8M --time=1 --iodepth=2; }
defcase wl.readers-vs-writer
c_wl.readers-vs-writer() { wl readers-vs-writer --size=8M --time=1 --readers=1 --iodepth=2; }
defcase wl.sysbench-rndrw det
c_wl.sysbench-rndrw() { wl sysbench-rndrw --size=8M --events=200 --threads=1; }
defcase wl.varmail
c_wl.varmail() { wl varmail --files=40 --threads=2 --time=1; }
defcase wl.webproxy
c_wl.webproxy() { wl webproxy --files=40 --threads=2 --time=1; }
defcase wl.webserver
c_wl.webserver() { wl webserver --files=40 --threads=2 --time=1; }
defcase wl.help exact
c_wl.help() {
	local f
	for f in "$OUT"/workloads/*.lua; do
		f=${f##*/}
		x "help-${f%.lua}" --script "${f%.lua}" --help
	done
}

cat >"$FIX/phases.lua" <<'EOF'
fileset { files = 2, size = "4M" }
phase "fill" { time = 0, events = 200,
    job "w" { threads = 1, block = "16k", mix = { write = 3, fsync = 1 } } }
phase "mixed" { time = 0, events = 300,
    job "r" { threads = 1, block = { ["4k"] = 50, ["16k"] = 50 }, pattern = "zipf:1.2", mix = { read = 3, write = 1 } },
    job "s" { threads = 1, block = "4k", pattern = "hot:0.1:0.9", mix = { write = 2, fdatasync = 1, rmw = 1 } } }
EOF
cat >"$FIX/jobs.lua" <<'EOF'
option("bs", "4k", "the readers' block size")
fileset { files = 4, size = "8M" }
phase "rw" { time = 1,
    job "readers" { threads = 2, block = options.bs, pattern = "uniform", mix = { read = 1 } },
    job "writer" { threads = 1, block = "16k", mode = "rndwr", fsync_freq = 10 },
    job "paced" { threads = 1, block = "4k", rate = 500, mix = { read = 1 }, ioprio = "be:3" } }
function report(result)
    print("report() saw " .. #result.phases .. " phase(s), jobs: " .. #result.phases[1].jobs)
end
EOF
cat >"$FIX/modes.lua" <<'EOF'
fileset { files = 3, size = "6M" }
phase "a" { time = 0, events = 150, job "sw" { mode = "seqwr", block = "64k", fsync_freq = 0, fsync_end = true } }
phase "b" { time = 0, events = 300, job "rr" { mode = "rndwr", block = "4k", engine = "libaio", iodepth = 4 } }
phase "c" { time = 0, events = 300, job "ur" { mode = "rndrd", block = "4k", engine = "io_uring", iodepth = 4, flags = "direct" } }
EOF
cat >"$FIX/tree.lua" <<'EOF'
fileset { files = 120, dirwidth = 10, size = "8k", prealloc = 0.5 }
phase "all" { time = 0, events = 800,
  job "all" { threads = 1, block = "4k", append = "2k",
              mix = { create = 2, unlink = 2, append = 1, readwhole = 1, writewhole = 1,
                      open = 1, close = 1, stat = 2, rename = 1, mkdir = 1, readdir = 1,
                      fsync = 1, fdatasync = 1, read = 1, write = 1 } } }
phase "mail" { time = 0, events = 390,
  job "mail" { threads = 1, block = "4k", append = "4k",
               flow = { "unlink", "create", "append", "fsync", "close",
                        "open", "readwhole", "append", "fdatasync", "close",
                        "open", "readwhole", "close" } } }
EOF
cat >"$FIX/event.lua" <<'EOF'
fileset { files = 4, size = "4M" }
phase "p" { time = 0, events = 500, job "j" { threads = 1, block = "4k", event = true } }
local per
function event(ctx)
    per = per or sbio.files[1] / 4096
    local b = sbio.rand(per * #sbio.files)
    ctx.op = (b % 3 == 0) and sbio.WRITE or sbio.READ
    ctx.file = math.floor(b / per)
    ctx.offset = (b % per) * 4096
    ctx.len = 4096
    return true
end
function report(result)
    local r = result.phases[1].jobs[1].result.result
    print(string.format("report(): %d reads, %d writes", r.op_types.read.ops, r.op_types.write.ops))
end
EOF
cat >"$FIX/evil.lua" <<'EOF'
fileset { files = 1, size = "1M" }
os.execute("touch evil-marker")
phase "p" { events = 10, job "j" { mix = { read = 1 } } }
EOF
cat >"$FIX/syntax.lua" <<'EOF'
fileset { files = 1, size = "1M" }
phase "p" { events = 10, job "j" { mix = { read = 1 } }
EOF
cat >"$FIX/badfield.lua" <<'EOF'
fileset { files = 1, size = "1M" }
phase "p" { events = 10, job "j" { threads = 0, mix = { read = 1 } } }
EOF
cat >"$FIX/runtime.lua" <<'EOF'
fileset { files = 2, size = "2M" }
phase "p" { time = 10, job "j" { block = "4k", event = true } }
local n = 0
function event(ctx)
    n = n + 1
    if n > 50 then local t = nil; return t.x end
    ctx.op, ctx.file, ctx.offset, ctx.len = sbio.READ, 0, (n % 16) * 4096, 4096
    return true
end
EOF
# sc NAME ARGS…: prepare, run (JSON and CSV kept), cleanup of an inline script.
sc() {
	local f=$FIX/$1.lua
	shift
	x prepare prepare --script "$f" "$@"
	x run run --script "$f" --rand-seed=1 "$@" -o r.json
	keep r.json
	x runcsv run --script "$f" --rand-seed=1 "$@" -o r.csv
	keep r.csv
	listing
	x cleanup cleanup --script "$f" "$@"
	listing
}
defcase sc.phases det
c_sc.phases() { sc phases; }
defcase sc.jobs
c_sc.jobs() { sc jobs --bs=8k; }
defcase sc.modes det
c_sc.modes() { sc modes; }
defcase sc.tree det
c_sc.tree() { sc tree; }
defcase sc.event det
c_sc.event() { sc event; }
defcase sc.refused exact
c_sc.refused() {
	x prepare prepare --script "$FIX/evil.lua"
	x run run --script "$FIX/evil.lua"
	x syntax run --script "$FIX/syntax.lua"
	x badfield run --script "$FIX/badfield.lua"
	x notfound run --script nosuch-workload
	x badopt run --script "$FIX/jobs.lua" --bs=lots
	listing
}
defcase sc.runtime-error det
c_sc.runtime-error() {
	x prepare prepare --script "$FIX/runtime.lua"
	x run run --script "$FIX/runtime.lua" --rand-seed=1
}

# --- compare, diff, plot -------------------------------------------------------------------
CMP=(--file-num=4 --file-total-size=8M --rand-seed=1 --file-test-mode=rndrd --events=200 --drop-caches=off)
defcase an.compare
c_an.compare() {
	x prepare prepare "${S8[@]}"
	x cmp1 compare "${CMP[@]}" --vary file-block-size=4K,16K --repeat=2 -o cmp1.json
	x cmp2 compare "${CMP[@]}" --vary file-block-size=4K,16K --repeat=2 --order=random \
		--metrics=ops,mib,reads,read.p99,time -o cmp2.json
	x cmp3 compare "${CMP[@]}" --vary ioengine=sync,libaio --vary file-test-mode=rndrd,rndwr
	x cmpbad compare "${CMP[@]}" --vary nosuchkey=1,2
	x cmpscript compare --script "$FIX/jobs.lua" --rand-seed=1 --time=1 --vary bs=4k,8k --drop-caches=off -o cmp3.json
	keep cmp1.json cmp2.json cmp3.json
	x diffcmp diff cmp1.json cmp2.json
	if $HAVE_GNUPLOT; then
		x plotcmp plot cmp1.json -o cmp.png
		x plotcmp3 plot cmp3.json -o cmp3.png
		keep cmp.png cmp3.png
	fi
}
defcase an.compare-sched
c_an.compare-sched() {
	[ -n "$LOOPDEV" ] || return 0
	local d=$MNT/c
	rm -rf "$d"
	mkdir -p "$d"
	x prepare prepare --dir="$d" "${S8[@]}"
	x cmp compare --dir="$d" "${CMP[@]}" --schedulers=none,mq-deadline --vary read_ahead_kb=128,256 -o cmp.json
	keep cmp.json
	x cleanup cleanup --dir="$d" "${S8[@]}"
}
defcase an.diff
c_an.diff() {
	x prepare prepare "${S8[@]}"
	local i
	for i in 1 2 3 4; do
		x "run$i" run "${S8[@]}" --file-test-mode=rndrw --events=300 --log-interval=100 -o "r$i.json"
	done
	mkdir -p "$W/sc"
	x scprep prepare --script "$FIX/phases.lua" --dir=sc
	x sc1 run --script "$FIX/phases.lua" --dir=sc --rand-seed=1 -o s1.json
	x sc2 run --script "$FIX/phases.lua" --dir=sc --rand-seed=1 -o s2.json
	x diff diff r1.json r2.json
	x diff-json diff r1.json r2.json -o d.json
	x diff-sides diff r1.json r2.json -- r3.json r4.json
	x diff-metrics diff r1.json r2.json -- r3.json r4.json --metrics=ops,reads,writes,read.p99
	x diff-threshold diff r1.json r2.json --threshold=100
	x diff-threshold-bad diff r1.json r2.json --threshold=1000
	x diff-scripts diff s1.json s2.json
	x diff-bad diff r1.json nosuch.json
	keep d.json r1.json
	if $HAVE_GNUPLOT; then
		x plot1 plot r1.json -o one.png
		x plot2 plot r1.json r2.json r3.json -o three.svg --size 800x600
		x plotkeep plot r1.json -o kept.png --keep-data=data
		x plotsc plot s1.json -o sc.png
		x plotnone plot r1.json
		keep one.png three.svg kept.png sc.png
		(cd "$W/data" 2>/dev/null && ls) >"$R/plot-data.ls"
	fi
}

# --- MPI -----------------------------------------------------------------------------------
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -x SBIO_STATE_DIR -x SBIO_WORKLOADS -np 2)
defcase mpi.per-rank det
c_mpi.per-rank() {
	$HAVE_MPI || return 0
	xi prepare "${MPIRUN[@]}" "$B" prepare "${S8[@]}" --file-per-rank
	xi run "${MPIRUN[@]}" "$B" run "${S8[@]}" --file-per-rank --file-test-mode=rndrw --events=400 -o r.json
	keep r.json
	listing
	xi cleanup "${MPIRUN[@]}" "$B" cleanup "${S8[@]}" --file-per-rank
	listing
}
defcase mpi.shared det
c_mpi.shared() {
	$HAVE_MPI || return 0
	xi prepare "${MPIRUN[@]}" "$B" prepare "${S8[@]}"
	xi run "${MPIRUN[@]}" "$B" run "${S8[@]}" --file-test-mode=seqrd --events=400 --output-format=csv
	xi seqwr "${MPIRUN[@]}" "$B" run "${S8[@]}" --file-test-mode=seqwr --events=400
	xi warmup-auto "${MPIRUN[@]}" "$B" run "${S8[@]}" --file-test-mode=rndrd --events=400 --warmup=auto
	mkdir -p "$W/sc"
	xi scprep "${MPIRUN[@]}" "$B" prepare --script "$FIX/phases.lua" --dir=sc
	xi script "${MPIRUN[@]}" "$B" run --script "$FIX/phases.lua" --dir=sc --rand-seed=1 -o s.json
	keep s.json
	xi cleanup "${MPIRUN[@]}" "$B" cleanup "${S8[@]}"
}

# --- help and version ----------------------------------------------------------------------
defcase help exact
c_help() {
	x help help
	x dash-help --help
	x version version
	x dash-version --version
	x none
	local c
	for c in prepare run cleanup compare diff plot restore help version; do
		x "help-$c" help "$c"
		x "dash-help-$c" "$c" --help
	done
	x help-bad help nosuch
}

# --- bad inputs: the corpus of tests/bad-input, in a prepared set and in an empty folder ----
BI=$ROOT/tests/bad-input
trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	echo "${s%"${s##*[![:space:]]}"}"
}
# bad_corpus FILE PREFIX: each line of FILE (cases.txt's format) a case PREFIX.N of its own,
# its stdout, stderr and exit code compared exactly (where it says: set, empty or both).
bad_corpus() {
	local file=$1 prefix=$2 n=0 line args where mf argv dir dirs
	mkdir -p "$W/set" "$W/empty" "$W/fix/files"
	x prep-set prepare --dir=set --file-num=4 --file-total-size=256K --rand-seed=1
	x prep-json run --dir=set --file-test-mode=rndrd --events=20 --rand-seed=1 -o fix/r.json
	echo 'not json' >"$W/fix/notjson.txt"
	echo '{"schema": "not-sbio/1", "result": {}}' >"$W/fix/other.json"
	printf '# sysbench options\ntreads=4\n' >"$W/fix/typo.cfg"
	printf 'threads 4\n' >"$W/fix/noeq.cfg"
	printf 'threads=2\n\nevents=-1\n' >"$W/fix/value.cfg"
	printf 'option("bs", "4k", "block size")\noption("weight", 100, "a weight")\nphase "r" { events = 8, job "r" { block = options.bs, mix = { read = 1 } } }\n' >"$W/fix/opts.lua"
	cp -R "$BI/files/." "$W/fix/files/"
	cp "$W/set/sbio.manifest" "$W/good.manifest"
	local base=$R
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in '' | '#'*) continue ;; esac
		n=$((n + 1))
		R=$base/../$prefix.$(printf %03d $n)
		[ -n "$ONLY_BAD" ] && ! [[ $prefix.$(printf %03d $n) =~ $ONLY_BAD ]] && continue
		mkdir -p "$R"
		# The expected code and message are bad_input.sh's to check; here both binaries' are compared.
		IFS='|' read -r _ _ args where <<<"$line"
		args=$(trim "$args")
		where=$(trim "${where:-both}")
		echo "$args | $where" >"$R/case.txt"
		mf=
		[[ $where == manifest:* ]] && mf=${where#manifest:} && where='set'
		if [[ $args == *'{RAW}'* || $args == *'{MNTDEV}'* || $args == *'{MNT}'* ]]; then
			[ -n "$RAWDEV" ] || continue
		fi
		args=${args//\{FIX\}/$W/fix}
		args=${args//\{F:/$W/fix/files/}
		args=${args//\}/}
		args=${args//\{RAW/$RAWDEV}
		args=${args//\{MNTDEV/$LOOPDEV}
		args=${args//\{MNT/$MNT}
		read -r -a argv <<<"$args"
		case $where in
		both) dirs=(set empty) ;;
		set) dirs=(set) ;;
		*) dirs=(empty) ;;
		esac
		for dir in "${dirs[@]}"; do
			[ -n "$mf" ] && cp "$W/fix/files/$mf" "$W/set/sbio.manifest"
			(cd "$W/$dir" && exec timeout -s KILL 3 "$B" "${argv[@]}") >"$R/$dir.out" 2>"$R/$dir.err" </dev/null
			echo $? >"$R/$dir.rc"
			[ -n "$mf" ] && cp "$W/good.manifest" "$W/set/sbio.manifest"
		done
	done <"$file"
	R=$base
}
ONLY_BAD=
defcase bad.cases
c_bad.cases() { bad_corpus "$BI/cases.txt" bad.cases; }
defcase bad.files
c_bad.files() { bad_corpus "$BI/files.txt" bad.files; }

# --- the normalizer ------------------------------------------------------------------------
cat >"$OUT/norm.py" <<'PYEOF'
import json, re, struct, sys

# norm.py W OUTDIR < LIST: for each line "DIR FLAGS DEST" of LIST, every output of one case
# (DIR: LABEL.{out,err,rc}, file.NAME, listing.ls) normalized into one text, DEST. Paths of
# the working folder W and of OUTDIR become {W} and {OUT}.
wdir, outdir = sys.argv[1:3]
exact = det = False

NUM = re.compile(r"(?<![A-Za-z_.\d#-])(?<![A-Za-z]/)[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
                 r"(?:\s?(?:ns|us|µs|ms|s|B|KiB|MiB|GiB|TiB|%)(?![A-Za-z]))?")

def paths(s):
    # sbio.PID: the cgroups a run makes are named after its process.
    s = re.sub(r"\bsbio\.\d+\b", "sbio.PID", s.replace(wdir, "{W}").replace(outdir, "{OUT}"))
    # mpirun names the first rank that failed, whichever it was.
    return re.sub(r"(Process name: ).*", r"\1#", s)

def mask(s):
    s = NUM.sub("#", s)
    # What a comparison concludes from timings: the verdict (none under 1%), its marks (* significant,
    # ! outlier), whether a CI could be bounded; a histogram's bars.
    s = re.sub(r"\s(better|worse)\b", "", s).replace("n/a", "#")
    s = re.sub(r"\[(unbounded|#, #)\]", "[ci]", s)
    s = re.sub(r"(?<=\s)[*!](?=\s|$)", "", s)
    s = re.sub(r"\|\*+", "|*", s)
    return re.sub(r"[ \t]+", " ", s).rstrip()

# Lines whose numbers are settings or deterministic results of a deterministic case.
DET_LINES = re.compile(
    r"^\s*(total number of events|reads, writes, fsyncs|fsyncs periodic|bytes read, written"
    r"|Number of IO requests|Verification|events \(avg/stddev\)|skipped|Removing the file tree)")
# A row of the per-operation table: the operation and its count; the rest is timing.
OP_ROW = re.compile(r"^(\s*(?:read|write|fsync|fdatasync|rmw|create|append|readwhole|writewhole"
                    r"|open|close|stat|unlink|rename|mkdir|readdir)\s+\d+)(\s.*)$")
# Lines that are settings whatever the case: the run's description.
SETTING_LINES = re.compile(
    r"^(Number of threads|Random seed|Extra file open flags|Block size|Read/Write ratio"
    r"|Periodic FSYNC|Calling fsync|Using |Doing |Creating file|Removing test_file|Reusing"
    r"|\d+ files, |\d+ \S+ total file size|Engines in this build|Usage|sbio \d)")
# Lines whose presence depends on timing or on what else the machine does: dropped.
INTERIM = re.compile(r"^\s*\[\s*\d+s\s*\]")
VOLATILE = re.compile(
    r"^Note: the reads came from the page cache"
    r"|^Note: the rate fell"
    r"|^Note: the measured phase lasted"
    r"|^Page cache before the run"
    r"|^Device \S+ over the run"
    r"|^Storage I/O of sbio itself"
    r"|^Page cache of the set"
    r"|^Page faults"
    r"|^CPU: ")

def text(s, label):
    out = []
    for line in paths(s).splitlines():
        if exact:
            out.append(line.rstrip())
            continue
        if INTERIM.search(line):
            # A run of interim lines (one per second, as many as time allowed) counts once.
            marker = "[interim lines]"
            if not out or out[-1] != marker:
                out.append(marker)
            continue
        if VOLATILE.search(line):
            continue
        if not line.strip() and out and out[-1] == "":
            continue
        # A histogram has as many rows as its latencies spread over.
        if "|*" in line and out and out[-1] == mask(line):
            continue
        row = OP_ROW.match(line) if det else None
        if SETTING_LINES.search(line) or (det and DET_LINES.search(line)):
            out.append(re.sub(r"[ \t]+", " ", line).rstrip())
        elif row:
            out.append(re.sub(r"[ \t]+", " ", row.group(1)) + mask(row.group(2)))
        else:
            out.append(mask(line))
    return out

# JSON: every key path (array indices as [], so series of any length compare) with its value
# type; the values themselves for strings and booleans, settings and, in deterministic cases,
# counts.
JSON_MASKED = re.compile(r"(finished_utc|started_utc|\.hostname$)")
COUNT_KEYS = {"events", "ops", "bytes", "count", "periodic", "end", "in_writes", "read_ops",
              "write_ops", "fsync_ops", "rmw_ops", "bytes_read", "bytes_written", "skipped",
              "blocks_checked", "blocks_bad", "checked", "bad"}
VOLATILE_JSON = re.compile(r"(\.devices\[\d*\]\.(?!name)|\.process_io\.|\.page_cache\.|\.cpu\."
                           r"|\.memory_group\.|reads_from_page_cache|\.series|\.samples"
                           r"|\.warmup\.|\.latency|elapsed|_s$|per_s|_pct|_ns)")

# A comparison's statistics whose shape follows the timings (a CI that cannot be bounded is
# null, outliers are listed): only their presence is compared.
STATS = re.compile(r"\.metrics\..+\.(diff_ci95_pct|ci95|outliers|verdict|ci_unbounded|p_value"
                   r"|p_holm|significant|diff_pct)$|\.stop\.widest")

def jflat(v, path, idx_path, types, values):
    if STATS.search(path):
        types.add((path, "present"))
        return
    if isinstance(v, dict):
        for k in v:
            jflat(v[k], path + "." + k, idx_path + "." + k, types, values)
        return
    if isinstance(v, list):
        types.add((path, "array"))
        for i, e in enumerate(v):
            jflat(e, path + "[]", idx_path + "[%d]" % i, types, values)
        return
    t = {bool: "bool", int: "int", float: "float", str: "string", type(None): "null"}[type(v)]
    types.add((path, t))
    if exact:
        values.append("%s = %s" % (idx_path, json.dumps(v)))
        return
    key = path.rsplit(".", 1)[-1]
    if isinstance(v, str) or isinstance(v, bool):
        if JSON_MASKED.search(path) or VOLATILE_JSON.search(idx_path):
            return
        values.append("%s = %s" % (idx_path, json.dumps(paths(v) if isinstance(v, str) else v)))
    elif ".config." in path or path.startswith(".config") or ".declared." in path:
        if isinstance(v, (int, float)):
            values.append("%s = %s" % (idx_path, json.dumps(v)))
    elif det and key in COUNT_KEYS and not VOLATILE_JSON.search(idx_path):
        values.append("%s = %s" % (idx_path, json.dumps(v)))

def jsondoc(s):
    try:
        d = json.loads(s)
    except ValueError as e:
        return ["not JSON: " + str(e).split(":")[0]]
    types, values = set(), []
    jflat(d, "", "", types, values)
    return ["type %s %s" % t for t in sorted(types)] + values

CSV_SETTINGS = {"sbio_version", "file_test_mode", "threads", "ioengine", "file_extra_flags",
                "block_size_bytes", "file_num", "total_size_bytes", "rand_seed", "interrupted",
                "phase", "job", "error", "scheduler"}
CSV_COUNTS = {"events", "read_ops", "write_ops", "fsync_ops", "skipped"}

def csv(s):
    lines = paths(s).splitlines()
    if not lines:
        return ["(empty)"]
    out = ["rows: %d" % len(lines)]
    header = None
    for line in lines:
        cells = line.split(",")
        if header is None or line.startswith("sbio_version,") or line.startswith("phase,"):
            header = cells
            out.append("header: " + line)
            continue
        row = []
        for i, c in enumerate(cells):
            name = header[i] if i < len(header) else "?"
            if name == "finished_utc":
                c = "#"
            elif not exact and name not in CSV_SETTINGS and not (det and (name in CSV_COUNTS or name.endswith("_ops"))):
                c = mask(c)
            row.append(c)
        out.append("row: " + ",".join(row))
    return out

def chart(data, name):
    if data.startswith(b"\x89PNG") and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return ["PNG %dx%d, %s" % (w, h, "nonempty" if len(data) > 1000 else "tiny")]
    if b"<svg" in data[:2000]:
        m = re.search(rb'<svg[^>]*width="(\d+)"[^>]*height="(\d+)"', data)
        return ["SVG %s, %s" % (m.group(1).decode() + "x" + m.group(2).decode() if m else "?",
                                "nonempty" if len(data) > 1000 else "tiny")]
    return ["chart of %d bytes, not PNG or SVG" % len(data)]

import os
def case(src, dst):
  res = []
  for name in sorted(os.listdir(src)):
    p = os.path.join(src, name)
    data = open(p, "rb").read()
    s = data.decode("utf-8", "replace")
    res.append("=== " + name)
    if name.endswith(".rc") or name.endswith(".missing") or name == "case.txt":
        res += paths(s).splitlines()
    elif name.endswith(".ls"):
        ls = paths(s).splitlines()
        # After a timed run, how many files a tree holds is the run's doing.
        res += ls if det or exact else sorted(set(mask(l) for l in ls))
    elif name.endswith((".png", ".svg")):
        res += chart(data, name)
    elif name.endswith(".json") or (name.endswith(".out") and s.lstrip().startswith("{")):
        res += jsondoc(s)
    elif name.endswith(".csv") or (name.endswith(".out") and s.startswith("sbio_version,")):
        res += csv(s)
    elif name.endswith(".err"):
        out = []
        for line in paths(s).splitlines():
            # stderr is compared exactly but for how long things took.
            if re.search(r"lasted|took|seconds|after \d|settled|ran for|in \d", line) and not exact:
                line = mask(line)
            out.append(line.rstrip())
        res += out
    else:
        res += text(s, name)
  open(dst, "w").write("\n".join(res) + "\n")

for line in sys.stdin:
    src, flags, dst = line.split()
    flags = set(flags.split(","))
    exact, det = "exact" in flags, "det" in flags
    try:
        case(src, dst)
    except Exception as e:
        # An output this script cannot read is a difference to show, not a reason to stop.
        open(dst, "w").write("normalizer failed: %r\n" % (e,))
PYEOF

# --- run everything ------------------------------------------------------------------------
START=$(date +%s)
run_case() { # run_case SIDE BINARY NAME
	local side=$1 bin=$2 name=$3
	cp "$bin" "$B.tmp" && mv -f "$B.tmp" "$B"
	rm -rf "$W"
	mkdir -p "$W"
	R=$OUT/$side/$name
	rm -rf "$R"
	mkdir -p "$R"
	"c_$name"
	# A case that left its loop-device folder behind (a failed cleanup) must not leak into the
	# next binary's run.
	[ -n "$LOOPDEV" ] && rm -rf "${MNT:?}"/s "${MNT:?}"/c
	# Device settings a binary changed and did not restore would change the other's
	# environment lines.
	[ -n "$LOOPDEV" ] && echo none >"/sys/block/${LOOPDEV#/dev/}/queue/scheduler" 2>/dev/null
}
for name in "${CASES[@]}"; do
	ONLY_BAD=
	if [ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]]; then
		# GOLDEN_ONLY=bad.cases.012 runs one line of a corpus.
		[[ $name == bad.* && $ONLY == "$name".* ]] || continue
		ONLY_BAD=$ONLY
	fi
	t0=$(date +%s)
	run_case old "$OLD" "$name"
	run_case new "$NEW" "$name"
	echo "$(($(date +%s) - t0)) $name" >>"$OUT/times"
done
rm -rf "$W"

# --- compare -------------------------------------------------------------------------------
same=0
differ=0
NAMES=$( (ls -1 "$OUT/old"; ls -1 "$OUT/new") 2>/dev/null | grep -v '\.norm$' | sort -u)
for name in $NAMES; do
	mkdir -p "$OUT/old/$name" "$OUT/new/$name"
	f=${FLAGS[$name]:-}
	# A line of the bad-input corpus is compared exactly.
	[[ $name == bad.*.[0-9][0-9][0-9] ]] && f=exact
	for side in old new; do echo "$OUT/$side/$name $f, $OUT/$side/$name.norm"; done
done | python3 "$OUT/norm.py" "$W" "$OUT" || exit 2
for name in $NAMES; do
	if [ -z "$(ls -A "$OUT/old/$name")" ] && [ -z "$(ls -A "$OUT/new/$name")" ]; then
		continue # a case this machine cannot run (no loop device, no mpirun)
	fi
	if diff -q "$OUT/old/$name.norm" "$OUT/new/$name.norm" >/dev/null; then
		echo "same    $name"
		same=$((same + 1))
	else
		echo "DIFFER  $name"
		diff -u --label "old/$name" --label "new/$name" "$OUT/old/$name.norm" "$OUT/new/$name.norm" >"$OUT/$name.diff"
		sed -n '1,80s/^/    /p' "$OUT/$name.diff"
		n=$(wc -l <"$OUT/$name.diff")
		[ "$n" -le 80 ] || echo "    … $((n - 80)) more lines in $OUT/$name.diff"
		differ=$((differ + 1))
	fi
done
echo "outputs in $OUT; $(($(date +%s) - START)) s"
echo "$same same, $differ differ"
[ "$differ" -eq 0 ]
