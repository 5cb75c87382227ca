#!/bin/bash
# make experiments: each shipped experiment workload run beside the original tool it
# reproduces, two checks per experiment (CHECKS):
#   speed: interleaved (original, sbio, original, sbio …), ROUNDS rounds, the runs' file
#     system's page cache dropped before every run (its own pages only: see cold); a table
#     per experiment: cell, the original's and sbio's medians, the median of the per-round
#     ratios sbio/original, their min–max, and whether the median is within 10% (0.90–1.10;
#     a cell outside is marked <<);
#   work: each cell once through bench/samework.sh (the original and sbio each on a private
#     loop device; the device's counters and the system calls within 2%); a table per
#     experiment: cell, the figures that differ (original → sbio, marked <<), the verdict.
# A cell that differs or is outside 10% is shown, marked; it does not change the exit code.
# doc/experiments.md says what each experiment is and holds the last run's tables.
#   1  workloads/sysbench-rndrw.lua  vs  sysbench fileio rndrw, fixed requests, O_DIRECT
#   2  workloads/iozone.lua          vs  fio, iozone-like jobs (write, rewrite, read, re-read)
#   3  workloads/fio-matrix.lua      vs  fio, one job per cell, fio's defaults
#   4  workloads/bonnie-direct.lua   vs  bonnie++ -D (block write, rewrite, read)
#   5  workloads/blockdev-sweep.lua  vs  blockdev-perftest's dd loop (buffered and direct)
#   6  workloads/fsmark.lua          vs  fs_mark (files/s: create, write, fsync, close)
#   7  workloads/postmark.lua        vs  PostMark (transactions/s)
# Settings (environment):
#   ROUNDS (5), EXPS (the experiments to run: "1 2 3 4 5 6 7"), SBIO (./sbio),
#   CHECKS ("work speed": both; "work" or "speed" alone), SAMEWORK (bench/samework.sh: the
#   same-work check of one cell, called with its options; it needs root, strace and loop
#   devices, and says why in the cell's row when it cannot run),
#   DIR (a folder on the disk to measure, /var/tmp by default ($TMPDIR when set); the runs
#   use a new folder inside it, removed at the end), OUT (a markdown file with the markers
#   below: the tables and the machine are written between them, e.g. OUT=doc/experiments.md),
#   QUICK=1 (tiny sizes, 1 round, four of the matrix's sixteen same-work cells: checks the
#   script end to end in about 3 minutes).
#   DEVICE (where the speed runs go; "ram" as root when neither DEVICE nor DIR is given,
#   otherwise a folder, DIR): "loop", a loop device of its own
#   (direct I/O on when the kernel allows it) over an image file in DIR, with its own ext4,
#   mounted in the work folder and detached at the end; "ram", the same over an image in a
#   tmpfs of its own, a device no other work on the machine reaches (not zram: its cost
#   depends on how the data compresses, and the tools write different data); a folder: DIR.
#   loop and ram need root. DEV_SIZE: the image's size (by default what the chosen
#   experiments keep on disk at once, with room for the file system).
#   E1_EVENTS (10000), E1_SIZE (1G), E1_THREADS (16)
#   E2_SIZE (512M, per file), E2_THREADS (2), E2_RECORD (128k)
#   E3_SIZE (2G, the ten files), E3_TIME (2 s per cell), E3_BLOCK (32k), E3_DEPTH (16)
#   E4_CELLS (4k:96 16k:256 64k:512: chunk size and file size in MiB, as bonnie's -s SIZE:CHUNK;
#   files on which the O_DIRECT phases take seconds; bonnie prints +++++ for a test under 0.5 s)
#   E5_SIZE (256M), E5_RUNS (2), E5_SIZES (64M,16M,4M,1M,256K,64K,16K)
#   E6_FILES (1000, per thread), E6_SIZE (51200, bytes), E6_THREADS (1): fs_mark -n, -s, -t
#   E7_NUMBER (500), E7_TRANSACTIONS (500000): PostMark's set number, set transactions
#   (PostMark's default 500 transactions take milliseconds on a RAM-backed device, and its
#   figure is whole seconds of transactions: 500000 take some 10 s there; the same-work cell
#   runs at most 20000 of them under strace)
# A workload's options are read from its --help: options it does not have yet (sysbench-
# rndrw's events) are left out, and the table says what that run measured instead.
# Needs fio, sysbench, bonnie++, dd, fs_mark (fsmark), postmark and python3: `make
# experiments` installs what is missing.
# The same-work cells are sized for a small image: each caption says what its cells ran.
# The defaults take about 17 minutes on a 2-CPU VM (DEVICE=ram, both checks).
set -eu
export LC_ALL=C
cd "$(dirname "$0")/.."
# As root the runs never drop the machine's whole page cache (sbio's fio-matrix.lua and
# blockdev-sweep.lua do, as root, and other work on the machine would feel it): the script
# runs in a mount namespace of its own in which /proc/sys/vm/drop_caches is a file of its
# own (bound over it below); the caches it needs cold are its own file system's (cold).
if [ "$(id -u)" = 0 ] && [ -z "${SBIO_EXP_NS:-}" ] && unshare -m --propagation private true 2>/dev/null; then
	exec unshare -m --propagation private env SBIO_EXP_NS=1 bash "$PWD/bench/$(basename "$0")" "$@"
fi
CMDLINE="bench/$(basename "$0")${*:+ $*}"
SBIO=${SBIO:-$PWD/sbio}
QUICK=${QUICK:-0}
BEGIN_MARK='<!-- experiments: begin -->'
END_MARK='<!-- experiments: end -->'

usage_error() {
	echo "experiments.sh: $*" >&2
	exit 2
}

if [ "$QUICK" = 1 ]; then
	: "${ROUNDS:=1}" "${E1_EVENTS:=500}" "${E1_SIZE:=64M}" "${E2_SIZE:=16M}" "${E3_SIZE:=40M}"
	: "${E3_TIME:=1}" "${E4_CELLS:=4k:16 64k:16}" "${E5_SIZE:=16M}" "${E5_RUNS:=1}" "${E5_SIZES:=4M,64K}"
	: "${E6_FILES:=50}" "${E7_NUMBER:=100}" "${E7_TRANSACTIONS:=100}"
fi
ROUNDS=${ROUNDS:-5}
CHECKS=${CHECKS:-work speed}
SAMEWORK=${SAMEWORK:-$PWD/bench/samework.sh}
EXPS=${EXPS:-1 2 3 4 5 6 7}
E1_EVENTS=${E1_EVENTS:-10000} E1_SIZE=${E1_SIZE:-1G} E1_THREADS=${E1_THREADS:-16}
E2_SIZE=${E2_SIZE:-512M} E2_THREADS=${E2_THREADS:-2} E2_RECORD=${E2_RECORD:-128k}
E3_SIZE=${E3_SIZE:-2G} E3_TIME=${E3_TIME:-2} E3_BLOCK=${E3_BLOCK:-32k} E3_DEPTH=${E3_DEPTH:-16}
E4_CELLS=${E4_CELLS:-4k:96 16k:256 64k:512}
E5_SIZE=${E5_SIZE:-256M} E5_RUNS=${E5_RUNS:-2} E5_SIZES=${E5_SIZES:-64M,16M,4M,1M,256K,64K,16K}
E6_FILES=${E6_FILES:-1000} E6_SIZE=${E6_SIZE:-51200} E6_THREADS=${E6_THREADS:-1}
E7_NUMBER=${E7_NUMBER:-500} E7_TRANSACTIONS=${E7_TRANSACTIONS:-500000}

# SIZE (a number with an optional K, M or G, powers of 1024) in bytes; empty when malformed.
to_bytes() {
	local n=${1%[kKmMgG]} m=1
	case $1 in
	*[kK]) m=1024 ;;
	*[mM]) m=1048576 ;;
	*[gG]) m=1073741824 ;;
	esac
	case $n in '' | *[!0-9]*) return 0 ;; esac
	echo $((n * m))
}
positive() { # NAME VALUE: a whole number above 0
	case $2 in '' | *[!0-9]* | 0) usage_error "$1=$2: expected a whole number above 0" ;; esac
}
sized() { # NAME VALUE: a size above 0
	local b
	b=$(to_bytes "$2")
	if [ -z "$b" ] || [ "$b" -eq 0 ]; then
		usage_error "$1=$2: expected a size above 0 (a number with K, M or G, powers of 1024)"
	fi
}

for v in ROUNDS E1_EVENTS E1_THREADS E2_THREADS E3_TIME E3_DEPTH E5_RUNS E6_FILES E6_SIZE E6_THREADS \
	E7_NUMBER E7_TRANSACTIONS; do
	positive "$v" "${!v}"
done
for v in E1_SIZE E2_SIZE E2_RECORD E3_SIZE E3_BLOCK E5_SIZE; do sized "$v" "${!v}"; done
for c in $E4_CELLS; do
	sized E4_CELLS "${c%%:*}"
	case $c in *:*) positive E4_CELLS "${c#*:}" ;; *) usage_error "E4_CELLS=$E4_CELLS: expected CHUNK:MiB pairs" ;; esac
done
for c in ${E5_SIZES//,/ }; do
	sized E5_SIZES "$c"
	[ "$(to_bytes "$c")" -le "$(to_bytes "$E5_SIZE")" ] ||
		usage_error "E5_SIZES=$E5_SIZES: $c is larger than E5_SIZE=$E5_SIZE"
done
for e in $EXPS; do
	case $e in [1-7]) ;; *) usage_error "EXPS=$EXPS: expected experiment numbers 1 to 7" ;; esac
done
for c in $CHECKS; do
	case $c in work | speed) ;; *) usage_error "CHECKS=$CHECKS: expected work, speed or both" ;; esac
done
[ -n "$CHECKS" ] || usage_error "CHECKS is empty: expected work, speed or both"
checks() { case " $CHECKS " in *" $1 "*) return 0 ;; esac; return 1; }
BASE=${DIR:-${TMPDIR:-/var/tmp}}
# As root, with neither DEVICE nor DIR given: the runs go to a loop device over RAM.
if [ -z "${DEVICE:-}" ] && [ -z "${DIR:-}" ] && [ "$(id -u)" = 0 ] && checks speed; then
	DEVICE=ram
fi
DEVICE=${DEVICE:-}
case $DEVICE in
'') ;;
loop | ram)
	[ "$(id -u)" = 0 ] ||
		usage_error "DEVICE=$DEVICE: needs root (a loop device, its file system, a mount); run it as root, or DEVICE=FOLDER"
	for t in losetup mkfs.ext4 mount umount; do
		command -v "$t" >/dev/null || usage_error "DEVICE=$DEVICE: needs $t (util-linux, e2fsprogs)"
	done
	;;
*)
	[ -d "$DEVICE" ] || usage_error "DEVICE=$DEVICE: expected ram, loop or a folder"
	BASE=$DEVICE
	;;
esac
[ -d "$BASE" ] || usage_error "DIR=$BASE: not a folder (the runs need a folder on a file system, never a raw device)"
if [ -n "${OUT:-}" ]; then
	{ [ -f "$OUT" ] && grep -qxF "$BEGIN_MARK" "$OUT" && grep -qxF "$END_MARK" "$OUT"; } ||
		usage_error "OUT=$OUT: expected a file with the lines $BEGIN_MARK and $END_MARK"
fi
[ -x "$SBIO" ] || usage_error "SBIO=$SBIO: not an executable (build it with make)"

# dev_need: the bytes the chosen experiments keep on disk at once (an experiment removes its
# files at its end): sysbench's and sbio's sets, fio's and sbio's files, the matrix's set,
# bonnie's file beside sbio's per chunk size, the sweep's file, fs_mark's and sbio's files.
dev_need() {
	local e n max=0 c e4=0 e4max=0
	for c in $E4_CELLS; do
		e4=$((e4 + ${c#*:}))
		[ "${c#*:}" -le "$e4max" ] || e4max=${c#*:}
	done
	for e in $EXPS; do
		case $e in
		1) n=$((2 * $(to_bytes "$E1_SIZE"))) ;;
		2) n=$((2 * E2_THREADS * $(to_bytes "$E2_SIZE"))) ;;
		3) n=$(to_bytes "$E3_SIZE") ;;
		4) n=$(((e4 + e4max) * 1048576)) ;;
		5) n=$(to_bytes "$E5_SIZE") ;;
		6) n=$((2 * E6_FILES * E6_THREADS * (E6_SIZE + 4096))) ;;
		7) n=$((64 * 1048576)) ;;
		esac
		[ "$n" -le "$max" ] || max=$n
	done
	echo $((max + max / 4 + 256 * 1048576))
}
if [ -n "${DEV_SIZE:-}" ]; then
	sized DEV_SIZE "$DEV_SIZE"
	DEV_BYTES=$(to_bytes "$DEV_SIZE")
else
	DEV_BYTES=$(dev_need)
fi
if [ "$DEVICE" = ram ]; then
	avail=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo) # MiB
	[ $((DEV_BYTES >> 20)) -lt $((avail - 1024)) ] ||
		usage_error "DEVICE=ram: the image needs $((DEV_BYTES >> 20)) MiB, more than the $avail MiB of free memory less 1 GiB (smaller sizes: QUICK=1, E*_SIZE, DEV_SIZE)"
fi

W=$(mktemp -d "$BASE/sbio-experiments.XXXXXX")
NODROP=
if [ -n "${SBIO_EXP_NS:-}" ]; then
	: >"$W/drop_caches"
	if mount --bind "$W/drop_caches" /proc/sys/vm/drop_caches 2>/dev/null; then
		NODROP=/proc/sys/vm/drop_caches
	else
		echo "experiments.sh: note: /proc/sys/vm/drop_caches could not be hidden: sbio's runs that drop caches drop the machine's" >&2
	fi
fi
R=$W # the folder the runs use: on the device measured
LOOP='' MNT='' RAMFS='' DEVDESC=''
# shellcheck disable=SC2317 # the EXIT trap
cleanup() { # the device's mount, the loop device and the tmpfs undone, then the work folder
	[ -z "$NODROP" ] || umount "$NODROP" 2>/dev/null || true
	[ -z "$MNT" ] || umount "$MNT" 2>/dev/null || umount -l "$MNT" || true
	[ -z "$LOOP" ] || losetup -d "$LOOP" || true
	[ -z "$RAMFS" ] || umount "$RAMFS" 2>/dev/null || umount -l "$RAMFS" || true
	[ ! -f "$W/links" ] || xargs -r rm -f <"$W/links" || true
	rm -rf "$W"
	[ -z "${SWTMP:-}" ] || umount "$SWTMP" 2>/dev/null || umount -l "$SWTMP" 2>/dev/null || true
	[ -z "${SWTMP:-}" ] || rmdir "$SWTMP" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# DEVICE=loop|ram: an image (in DIR, or in a tmpfs of its own), a loop device over it (direct
# I/O when the kernel allows it), a new ext4 on it, mounted as the runs' folder.
setup_device() {
	local img dio src fstype
	if [ "$DEVICE" = ram ]; then
		RAMFS=$W/ram
		mkdir "$RAMFS"
		mount -t tmpfs -o size=$((DEV_BYTES + 16777216)),mode=0700 sbio-experiments "$RAMFS"
		img=$RAMFS/disk.img
	else
		img=$W/disk.img
	fi
	truncate -s "$DEV_BYTES" "$img"
	LOOP=$(losetup --find --show --direct-io=on "$img" 2>/dev/null) || LOOP=$(losetup --find --show "$img")
	dio=$(cat "/sys/block/${LOOP#/dev/}/loop/dio" 2>/dev/null || echo 0)
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" >/dev/null
	MNT=$W/m
	mkdir "$MNT"
	mount "$LOOP" "$MNT"
	R=$MNT
	if [ "$DEVICE" = ram ]; then
		DEVDESC="DEVICE=ram: $LOOP over a $((DEV_BYTES >> 20)) MiB image in a tmpfs (RAM) of its own"
	else
		read -r src fstype < <(df --output=source,fstype "$BASE" | tail -n 1)
		DEVDESC="DEVICE=loop: $LOOP over a $((DEV_BYTES >> 20)) MiB image file on $src ($fstype)"
	fi
	DEVDESC+=", direct I/O $([ "$dio" = 1 ] && echo on || echo off), its own ext4"
}
[ -z "$DEVICE" ] || [ "$DEVICE" = "$BASE" ] || ! checks speed || setup_device
RES=$W/results.tsv
: >"$RES"
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1

# The parsing and the tables (python3): each KIND reads one tool's output and prints
# "cell<TAB>value" lines; "table EXP" prints that experiment's table from results.tsv.
cat >"$W/x.py" <<'EOF'
import json, re, statistics, sys
MIB = 1048576.0
def js(path): return json.load(open(path))
def res(p): return p["jobs"][0]["result"]["result"]
def out(cell, v): print("%s\t%.6g" % (cell, v))
def e1_sbio(path):
    out("total time (s)", res(js(path)["phases"][0])["elapsed_s"])
def e1_orig(path):
    m = re.search(r"total time:\s+([0-9.]+)s", open(path).read())
    out("total time (s)", float(m.group(1)))
def e2_sbio(path):
    # iozone's "Children see": the sum of each child's (thread's) own rate.
    for p in js(path)["phases"]:
        if p.get("refused"): continue
        s = sum((t["bytes_read"] + t["bytes_written"]) / t["duration_s"]
                for t in res(p)["threads"] if t["duration_s"] > 0)
        out(p["name"] + " (MiB/s)", s / MIB)
def e2_orig(*paths):
    sums, order = {}, []
    for j in (j for p in paths for j in js(p)["jobs"]):
        n = j["jobname"]
        if n not in sums: order.append(n); sums[n] = 0
        sums[n] += j["read"]["bw_bytes"] + j["write"]["bw_bytes"]
    for n in order: out(n + " (MiB/s)", sums[n] / MIB)
def rw_of(cell): return "write" if "write" in cell else "read"
def e3_sbio(path):
    for p in js(path)["phases"]:
        if p.get("refused"): continue
        out(p["name"], res(p)["op_types"][rw_of(p["name"])]["mib_per_s"])
def e3_orig(path, cell):
    out(cell, js(path)["jobs"][0][rw_of(cell)]["bw_bytes"] / MIB)
def e4_sbio(path):
    for p in js(path)["phases"]:
        if p.get("refused"): continue
        r, cell = res(p), p["name"]
        if cell.startswith("seeks"): continue  # 10 seeks: bonnie++ gives no figure either
        ops = r["op_types"]
        if cell.startswith("rewrite"):
            t = ops["rmw"] if ops.get("rmw", {}).get("ops") else ops["write"]
        else:
            t = ops[rw_of(cell)]
        out(cell + " (MiB/s)", t["mib_per_s"])
        out(cell + " (%CPU)", r["cpu"]["user_pct"] + r["cpu"]["system_pct"])
def e4_orig(path, chunk):
    f = open(path).read().strip().splitlines()[-1].split(",")
    # bonnie++ 1.98 CSV: 12/13 block write K/sec and %CPU, 14/15 rewrite, 18/19 block read;
    # "+++++": the test took too little time for bonnie to give a figure.
    for name, i in (("write", 11), ("rewrite", 13), ("read", 17)):
        if f[i].isdigit():
            out("%s %s (MiB/s)" % (name, chunk), int(f[i]) / 1024.0)
            out("%s %s (%%CPU)" % (name, chunk), float(f[i + 1]))
def e5_sbio(path, mode):
    # blockdev-perftest's average: the mean of each run's MiB/s.
    runs = {}
    for p in js(path)["phases"]:
        if p.get("refused"): continue
        r = res(p)
        if r["elapsed_s"] > 0:
            runs.setdefault(p["name"].split()[0], []).append(
                r["op_types"]["read"]["bytes"] / MIB / r["elapsed_s"])
    for bs, v in runs.items(): out("%s %s" % (mode, bs), statistics.mean(v))
def e6_sbio(path):
    for p in js(path)["phases"]:
        if p["name"].startswith("create"):
            r = res(p)
            out("files/s", r["op_types"]["create"]["ops"] / r["elapsed_s"])
def e6_orig(path):
    # fs_mark's table: FSUse% Count Size Files/sec App-Overhead, one line per loop.
    rows = [l.split() for l in open(path) if re.match(r"^\s*\d+\s+\d+\s+\d+\s+[0-9.]+\s+\d+\s*$", l)]
    out("files/s", float(rows[-1][3]))
def e7_sbio(path):
    for p in js(path)["phases"]:
        if p["name"] == "transactions":
            r = res(p); o = r["op_types"]
            n = sum(o[k]["ops"] for k in ("readwhole", "append") if k in o)
            out("transactions/s", n / r["elapsed_s"])
def e7_orig(path):
    m = re.search(r"seconds of transactions \(([0-9.]+) per second\)", open(path).read())
    out("transactions/s", float(m.group(1)))
def fmt(v):
    return "%.0f" % v if abs(v) >= 100 else "%.1f" % v if abs(v) >= 10 else "%.3g" % v
def table(resfile, exp):
    # The cells in the order sbio's rows give them (every cell has one; bonnie++ leaves out
    # a test it printed +++++ for), then any the original alone gave.
    vals, cells = {}, {"sbio": [], "orig": []}
    for line in open(resfile):
        e, cell, rnd, tool, v = line.rstrip("\n").split("\t")
        if e != exp: continue
        if cell not in cells[tool]: cells[tool].append(cell)
        vals.setdefault(cell, {}).setdefault(rnd, {})[tool] = float(v)
    cells = cells["sbio"] + [c for c in cells["orig"] if c not in cells["sbio"]]
    print("| cell | original | sbio | sbio/original | min–max | within 10% |")
    print("|---|---:|---:|---:|---:|---|")
    for c in cells:
        rounds = vals[c].values()
        o = [r["orig"] for r in rounds if "orig" in r]
        s = [r["sbio"] for r in rounds if "sbio" in r]
        q = [r["sbio"] / r["orig"] for r in rounds if r.get("orig") and "sbio" in r]
        med = lambda x: fmt(statistics.median(x)) if x else "—"
        rng = "%.2f–%.2f" % (min(q), max(q)) if q else "—"
        rat = "%.2f" % statistics.median(q) if q else "—"
        ok = "—" if not q else "yes" if 0.9 <= statistics.median(q) <= 1.1 else "**no** <<"
        print("| %s | %s | %s | %s | %s | %s |" % (c, med(o), med(s), rat, rng, ok))
def swrow(cell, outfile, rc, errfile):
    # A row of the same-work table from bench/samework.sh's output: the figures it marked
    # "<<" (over 2%, not allowed) or allowed (the caption says why), "original → sbio
    # (ratio)", and the verdict. opens and close, allowed in every cell, are not listed.
    marked = []
    for l in open(outfile, errors="replace"):
        m = re.match(r"^  (\S+(?: \S+)?)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S.*)$", l)
        if m and m.group(1) not in ("opens", "close") and m.group(5).strip() in ("<<", "<< allowed"):
            marked.append("%s %s → %s (%s) %s" % (m.group(1, 2, 3, 4) + (
                "<<" if m.group(5).strip() == "<<" else "(allowed: see the caption)",)))
    err = [l.strip() for l in open(errfile, errors="replace") if l.strip()]
    last = (err[-1] if err else "no message")[:200].replace("|", "/")
    rc = int(rc)
    if rc == 0: verdict = "same work"
    elif rc == 1: verdict = "**differs** <<"
    elif rc == 77: verdict = "not checked: " + last
    else: verdict = "**failed** (exit %d): %s" % (rc, last)
    figs = "; ".join(marked) if marked else ("same work" if rc <= 1 else "—")
    print("| %s | %s | %s |" % (cell, figs, verdict))
def splice(path, body, begin, end):
    text = open(path).read()
    a, b = text.index(begin + "\n") + len(begin) + 1, text.index(end)
    open(path, "w").write(text[:a] + open(body).read() + text[b:])
kind = sys.argv[1]
{"e1_sbio": e1_sbio, "e1_orig": e1_orig, "e2_sbio": e2_sbio, "e2_orig": e2_orig,
 "e3_sbio": e3_sbio, "e3_orig": e3_orig, "e4_sbio": e4_sbio, "e4_orig": e4_orig,
 "e5_sbio": e5_sbio, "e6_sbio": e6_sbio, "e6_orig": e6_orig, "e7_sbio": e7_sbio,
 "e7_orig": e7_orig, "table": table, "swrow": swrow, "splice": splice}[kind](*sys.argv[2:])
EOF
x() { python3 "$W/x.py" "$@"; }

# record EXP ROUND TOOL: the "cell<TAB>value" lines on stdin, into results.tsv.
record() {
	local cell v
	while IFS=$'\t' read -r cell v; do
		printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$cell" "$2" "$3" "$v" >>"$RES"
	done
}
# cold: before every run, the runs' file system's dirty pages written and its cached pages
# dropped, nothing else's: on a device of its own (DEVICE=loop|ram) by unmounting and
# mounting it again; in a folder, each file's pages (posix_fadvise DONTNEED, file by file).
cold() {
	sync -f "$R" 2>/dev/null || sync
	if [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; then
		mount "$LOOP" "$MNT" && return 0
	fi
	python3 -c 'import os, sys
for top, _, files in os.walk(sys.argv[1]):
    for f in files:
        try:
            fd = os.open(os.path.join(top, f), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)' "$R"
}
# SCRIPT OPTION: does the workload have that option (its --help's first section)?
has_opt() {
	local h
	h=$("$SBIO" --script "$1" --help 2>/dev/null) || true
	awk -v o="  --$2=" '/^$/ { exit } index($0, o) == 1 { found = 1 } END { exit !found }' <<<"$h"
}
# An experiment that cannot go on says why in its section (fail.EXP) and stops; the others
# run, their tables are printed, and the script's exit code is 1.
fail() { # EXP LINE
	[ -e "$W/fail.$1" ] || printf '%s\n' "$2" >"$W/fail.$1"
	exit 1
}
need() { # EXP TOOL…: the tools the experiment runs, installed?
	local e=$1 t
	shift
	for t; do
		command -v "$t" >/dev/null ||
			fail "$e" "**Not run**: \`$t\` is not installed (\`make experiments\` installs it)."
	done
}
last_err() { # FILE: its last non-empty line, ": LINE", or nothing
	local l
	l=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 | cut -c 1-200) || true
	[ -z "$l" ] || printf ': %s' "$l"
}
# shellcheck disable=SC2317 # called from the ERR trap
on_err() { # EXP STATUS COMMAND: the ERR trap of an experiment's subshell (the first failure)
	[ -e "$W/fail.$1" ] ||
		printf '**Failed**: %s exited %s%s\n' "\`$(cut -c 1-160 <<<"$3")\`" "$2" \
			"$(last_err "$W/err.$1")" >"$W/fail.$1"
}
# parse EXP ROUND TOOL KIND FILE ARGS…: the tool's output (FILE) read by x.py KIND into
# results.tsv; output that gives no figure fails the experiment (unless EMPTY_OK=1: bonnie++
# prints +++++ for a test too short to time).
parse() {
	local e=$1 r=$2 t=$3 k=$4 f=$5
	shift 5
	if ! x "$k" "$f" "$@" >"$W/cells.$e" 2>"$W/perr.$e" ||
		{ [ ! -s "$W/cells.$e" ] && [ "${EMPTY_OK:-0}" != 1 ]; }; then
		fail "$e" "**Failed** in round $r: no figure in the $([ "$t" = orig ] && echo "original's" || echo "sbio") output ($(basename "$f")$(last_err "$W/perr.$e"); it begins: $(head -c 120 "$f" 2>/dev/null | tr -s '\n\t' '  '))."
	fi
	record "$e" "$r" "$t" <"$W/cells.$e"
}
# run_exp EXP: the experiment in a subshell of its own (set -e, pipefail, its stderr kept in
# err.EXP); when it fails, its section says why and the next one runs.
FAILED=
run_exp() {
	local e=$1 rc
	set +e
	(
		set -eE -o pipefail
		trap 'on_err '"$e"' $? "$BASH_COMMAND"' ERR
		case $e in 1) exp1 ;; 2) exp2 ;; 3) exp3 ;; 4) exp4 ;; 5) exp5 ;; 6) exp6 ;; 7) exp7 ;; esac
	) 2>"$W/err.$e"
	rc=$?
	set -e
	[ "$rc" = 0 ] && return 0
	[ -e "$W/fail.$e" ] || echo "**Failed** (exit $rc)$(last_err "$W/err.$e")." >"$W/fail.$e"
	FAILED+=" $e"
	say "exp $e: $(cat "$W/fail.$e")"
}
sbio_run() { # JSON WORKLOAD OPTIONS…: one sbio run of a workload
	local out=$1 wl=$2
	shift 2
	cold
	"$SBIO" run --script "$wl" --output-format=json -o "$out" "$@" >/dev/null
}
note() { echo "$2" >>"$W/notes.$1"; } # EXP LINE: said under the experiment's table
head_of() { printf '%s\n' "$2" >>"$W/head.$1"; } # EXP LINE: said above it
say() { echo "[$(date -u +%H:%M:%S)] $*" >&3; } # progress, on the first stderr

# 1. sysbench fileio rndrw: a fixed number of requests, 16 threads, 128 files, O_DIRECT;
# the figure is sysbench's "total time" (the post's "Time spent for test").
exp1() {
	local wl=workloads/sysbench-rndrw.lua d=$R/e1 r
	local -a opts=("--dir=$d/sbio" "--threads=$E1_THREADS")
	local -a sb=(fileio --file-num=128 "--file-total-size=$E1_SIZE")
	need 1 sysbench
	mkdir -p "$d/sbio" "$d/orig"
	if has_opt "$wl" events; then
		opts+=("--events=$E1_EVENTS")
		if has_opt "$wl" size; then
			opts+=("--size=$E1_SIZE")
		else
			opts+=("--scale=$(awk -v b="$(to_bytes "$E1_SIZE")" 'BEGIN { print b / 2^31 }')")
		fi
		has_opt "$wl" direct && opts+=(--direct=on)
	else
		note 1 "This sbio's $wl has no events option: it ran for its own fixed time on its default set, so its total time is that time, not the time of $E1_EVENTS requests."
	fi
	# sysbench 1.0 counts its fsyncs as events: each thread fsyncs the 128 files after every
	# 100 of its own requests, so N requests are about N + 128 T floor(N / T / 100) events.
	local sb_events=$((E1_EVENTS + 128 * E1_THREADS * (E1_EVENTS / E1_THREADS / 100)))
	head_of 1 "sysbench 1.0: \`sysbench ${sb[*]} --file-test-mode=rndrw --threads=$E1_THREADS --events=$sb_events --time=0 --file-extra-flags=direct run\` ($E1_EVENTS requests: sysbench 1.0 counts its fsyncs as events too); sbio: \`sbio run --script $wl ${opts[*]:1}\`."
	(cd "$d/orig" && sysbench "${sb[@]}" prepare >/dev/null)
	"$SBIO" prepare --script "$wl" "${opts[@]}" >/dev/null
	for r in $(seq "$ROUNDS"); do
		say "exp 1 round $r"
		cold
		(cd "$d/orig" && sysbench "${sb[@]}" --file-test-mode=rndrw --threads="$E1_THREADS" \
			--events="$sb_events" --time=0 --file-extra-flags=direct run >"$d/orig.txt")
		parse 1 "$r" orig e1_orig "$d/orig.txt"
		sbio_run "$d/sbio.json" "$wl" "${opts[@]}"
		parse 1 "$r" sbio e1_sbio "$d/sbio.json"
	done
	rm -rf "$d"
}

# 2. iozone -i0 -i1 -c -t N -s S -r R, by fio (iozone is not in Debian main): one file per
# process, written fresh (created, written, closed), rewritten, read and read again from the
# page cache as iozone does (no invalidation, no fadvise), no fsync. One fio run per phase:
# a job file with the four jobs would have fio lay the read jobs' files out (write them
# whole, ftruncate, fsync) before its first job, so its "write" would be an overwrite. Each
# phase's "Children see" figure (the sum of each process's own rate) against fio's per-job
# rates summed.
exp2() {
	local wl=workloads/iozone.lua d=$R/e2 r j
	local -a opts=("--dir=$d/sbio" "--size=$E2_SIZE" "--threads=$E2_THREADS"
		"--record=$E2_RECORD")
	local -a fio=("--directory=$d/orig" "--filename_format=iozone.\$jobnum" "--numjobs=$E2_THREADS"
		"--size=$E2_SIZE" "--bs=$E2_RECORD" --ioengine=psync --invalidate=0 --fadvise_hint=0
		--fallocate=none --end_fsync=0)
	need 2 fio
	mkdir -p "$d/sbio" "$d/orig"
	head_of 2 "fio: one run per phase, \`fio --name=PHASE --rw=MODE ${fio[*]:1}\`, for write (rw=write, on no file: fio creates it), rewrite (write), read and re-read (read), on the same per-process files, removed before each round; sbio: \`sbio run --script $wl ${opts[*]:1}\`. Figure: iozone's \"Children see throughput\" (the sum of each process's own rate), in MiB/s."
	"$SBIO" prepare --script "$wl" "${opts[@]}" >/dev/null
	for r in $(seq "$ROUNDS"); do
		say "exp 2 round $r"
		rm -f "$d"/orig/iozone.*
		cold
		for j in write:write rewrite:write read:read re-read:read; do
			fio --output-format=json --output="$d/orig.${j%%:*}.json" --name="${j%%:*}" \
				--rw="${j#*:}" "${fio[@]}" >/dev/null
		done
		parse 2 "$r" orig e2_orig "$d"/orig.{write,rewrite,read,re-read}.json
		sbio_run "$d/sbio.json" "$wl" "${opts[@]}"
		parse 2 "$r" sbio e2_sbio "$d/sbio.json"
	done
	rm -rf "$d"
}

# 3. fio, one job per cell on the matrix's own ten files (filename=a:b:…), fio's defaults
# (invalidate=1, fadvise_hint=1, the random map, end_fsync=0, file_service_type=roundrobin),
# time-based like the matrix: each cell's MiB/s.
exp3() {
	local wl=workloads/fio-matrix.lua d=$R/e3 r m w files i cell
	local -a opts=("--dir=$d" "--size=$E3_SIZE" "--time=$E3_TIME" "--block=$E3_BLOCK"
		"--depth=$E3_DEPTH")
	local -A engine=([sync]="--ioengine=psync" [mmap]="--ioengine=mmap"
		[libaio]="--ioengine=libaio --iodepth=$E3_DEPTH" [direct]="--ioengine=psync --direct=1")
	need 3 fio
	mkdir -p "$d"
	"$SBIO" prepare --script "$wl" "${opts[@]}" >/dev/null
	files=$(for i in $(seq 0 9); do printf '%s:' "$d/test_file.$i"; done)
	files=${files%:}
	head_of 3 "fio per cell: \`fio --name=CELL --filename=<the matrix's ten files> --size=$E3_SIZE --bs=$E3_BLOCK --rw=MODE --runtime=$E3_TIME --time_based\` with sync \`--ioengine=psync\`, mmap \`--ioengine=mmap\`, libaio \`--ioengine=libaio --iodepth=$E3_DEPTH\`, direct \`--ioengine=psync --direct=1\`; sbio: \`sbio run --script $wl ${opts[*]:1}\`. Figure: MiB/s."
	for r in $(seq "$ROUNDS"); do
		say "exp 3 round $r"
		for m in read randread write randwrite; do
			for w in sync mmap libaio direct; do
				cell="$m $w"
				cold
				# shellcheck disable=SC2086 # the engine's options are words
				fio --output-format=json --output="$d/orig.json" --name="${cell// /-}" \
					--filename="$files" --size="$E3_SIZE" --bs="$E3_BLOCK" --rw="$m" \
					--runtime="$E3_TIME" --time_based ${engine[$w]} >/dev/null
				parse 3 "$r" orig e3_orig "$d/orig.json" "$cell"
			done
		done
		sbio_run "$d/sbio.json" "$wl" "${opts[@]}"
		parse 3 "$r" sbio e3_sbio "$d/sbio.json"
	done
	rm -rf "$d"
}

# 4. bonnie++ -D, one run per chunk size: block write, rewrite and block read of a file of
# the cell's size (-f: no per-character tests; -n 0: no file-creation tests; the seek test,
# which cannot be left out, cut to 10 seeks by one process, its tickets from -z 1; sbio's seeks
# cell the same: --seeks=10 --seek-procs=1 --seed=1), K/sec as MiB/s, and %CPU.
# bonnie++ 2.00a opens the file with O_DIRECT for its block write only: its rewrite and
# block read reopen it without (strace shows O_RDWR alone), so those two are buffered.
exp4() {
	local wl=workloads/bonnie-direct.lua d=$R/e4 r c chunk mib no ns
	local -a bon=(-q -D -f -n 0 -r 0 -z 1 -m sbio -d "$d/orig") wopt=()
	need 4 bonnie++
	# Opened as bonnie++ opens it: O_DIRECT for the block write alone.
	has_opt "$wl" direct-write-only && wopt=(--direct-write-only=on)
	# bonnie++'s seek test as -s MIB:CHUNK:10:1 -z 1 runs it.
	has_opt "$wl" seeks && wopt+=(--seeks=10 --seek-procs=1 --seed=1)
	[ "$ROOT" = 1 ] && bon+=(-u root)
	mkdir -p "$d/orig"
	head_of 4 "bonnie++ 2.00a: \`bonnie++ ${bon[*]/$d\/orig/DIR} -s MIB:CHUNK:10:1\`; sbio: \`sbio run --script $wl --size=MIBM --sizes=CHUNK ${wopt[*]}\`, for CHUNK:MIB in $E4_CELLS. Figures: MiB/s (bonnie's K/sec ÷ 1024) and %CPU (user + system, of one CPU)."
	for c in $E4_CELLS; do
		mkdir -p "$d/sbio-${c%%:*}"
		"$SBIO" prepare --script "$wl" --dir="$d/sbio-${c%%:*}" --size="${c#*:}M" >/dev/null
	done
	for r in $(seq "$ROUNDS"); do
		say "exp 4 round $r"
		for c in $E4_CELLS; do
			chunk=${c%%:*} mib=${c#*:}
			cold
			bonnie++ "${bon[@]}" -s "$mib:$chunk:10:1" >"$d/orig.csv" 2>/dev/null
			EMPTY_OK=1 parse 4 "$r" orig e4_orig "$d/orig.csv" "$chunk"
			sbio_run "$d/sbio.json" "$wl" --dir="$d/sbio-$chunk" --size="${mib}M" --sizes="$chunk" \
				"${wopt[@]}"
			parse 4 "$r" sbio e4_sbio "$d/sbio.json"
		done
	done
	no=$(grep -c "^4	.*	orig	" "$RES" || true)
	ns=$(grep -c "^4	.*	sbio	" "$RES" || true)
	[ "$no" -lt "$ns" ] &&
		note 4 "A cell without bonnie's figure: bonnie++ printed +++++ for it (the test took too little time to be timed); a larger file in E4_CELLS gives one."
	rm -rf "$d"
}

# 5. blockdev-perftest's read loop on sbio's file: per block size and run, caches dropped,
# \`dd if=FILE of=/dev/null bs=B count=SIZE/B [iflag=direct]\`, dd's seconds; a cell's figure
# is the average of its runs' MiB/s (the file's size over each run's seconds).
exp5() {
	local wl=workloads/blockdev-sweep.lua d=$R/e5 r mode bs i s f
	local -a opts=("--dir=$d" "--size=$E5_SIZE" "--runs=$E5_RUNS" "--sizes=$E5_SIZES")
	local size
	need 5 dd
	size=$(to_bytes "$E5_SIZE")
	mkdir -p "$d"
	head_of 5 "dd (GNU coreutils): per block size B and run, the file system's pages dropped, \`dd if=FILE of=/dev/null bs=B count=$E5_SIZE/B\`, and with \`iflag=direct\`, $E5_RUNS run$([ "$E5_RUNS" -gt 1 ] && echo s) each, on the sweep's own file; sbio: the same per block size and run, \`sbio run --script $wl --size=$E5_SIZE --runs=1 --sizes=B\`, and with \`--direct=on\`. Figure: the average of the runs' MiB/s (blockdev-perftest's)."
	"$SBIO" prepare --script "$wl" "${opts[@]}" >/dev/null
	f=$d/test_file.0
	for r in $(seq "$ROUNDS"); do
		say "exp 5 round $r"
		for mode in buffered direct; do
			local -a flag=() sflag=()
			[ "$mode" = direct ] && flag=(iflag=direct) sflag=(--direct=on)
			for bs in ${E5_SIZES//,/ }; do
				s=0
				for i in $(seq "$E5_RUNS"); do
					cold
					s=$(dd if="$f" of=/dev/null bs="$bs" count=$((size / $(to_bytes "$bs"))) \
						"${flag[@]}" 2>&1 | sed -n 's/.* copied, \([0-9.e-]*\) s,.*/\1/p' |
						awk -v s="$s" -v b="$size" '{ print s + b / 1048576 / $1 }')
				done
				[ -n "$s" ] || fail 5 "**Failed** in round $r: dd printed no time for bs=$bs (its output: $(last_err "$W/err.5"))."
				awk -v s="$s" -v n="$E5_RUNS" -v c="$mode $bs" 'BEGIN { printf "%s\t%.6g\n", c, s / n }' >"$d/cells"
				record 5 "$r" orig <"$d/cells"
			done
			# sbio: one run of one block size per invocation, the file system's pages dropped
			# before each (cold), as before each of dd's; a cell's figure is its runs' mean.
			: >"$d/sruns"
			for bs in ${E5_SIZES//,/ }; do
				for i in $(seq "$E5_RUNS"); do
					sbio_run "$d/sbio.json" "$wl" "${opts[@]:0:2}" --runs=1 --sizes="$bs" "${sflag[@]}"
					x e5_sbio "$d/sbio.json" "$mode" >>"$d/sruns" ||
						fail 5 "**Failed** in round $r: no figure in sbio's output for bs=$bs."
				done
			done
			awk -F '\t' '{ s[$1] += $2; n[$1]++; if (!($1 in o)) { o[$1] = ++k; c[k] = $1 } }
				END { for (i = 1; i <= k; i++) printf "%s\t%.6g\n", c[i], s[c[i]] / n[c[i]] }' \
				"$d/sruns" >"$d/cells"
			record 5 "$r" sbio <"$d/cells"
		done
	done
	rm -rf "$d"
}

# 6. fs_mark's default test: per thread E6_FILES files of E6_SIZE bytes, each written in
# 16 KiB writes and fsynced before its close (-S 1); Files/sec of its one loop. fs_mark
# removes its files after the loop (no -k), outside its figure.
exp6() {
	local wl=workloads/fsmark.lua d=$R/6 r fmd
	local -a fm=(-n "$E6_FILES" -s "$E6_SIZE" -t "$E6_THREADS")
	local -a opts=("--dir=$d/sbio" "--files=$E6_FILES" "--size=$E6_SIZE" "--threads=$E6_THREADS")
	need 6 fs_mark
	mkdir -p "$d/o" "$d/sbio"
	fmd=$d/o
	if [ ${#fmd} -ge 40 ]; then
		# fs_mark refuses a -d path of 40 bytes or more: a link of a short path to the folder
		# (in /tmp, removed at the end).
		fmd=$(mktemp -u /tmp/sbio-fm.XXXXXX)
		ln -s "$d/o" "$fmd" 2>/dev/null ||
			fail 6 "**Not run**: fs_mark needs a folder path under 40 bytes, $d/o has $((${#d} + 2)), and no link to it could be made in /tmp (a shorter DIR)."
		echo "$fmd" >>"$W/links"
		note 6 "fs_mark ran in $d/o through a link of a shorter path, $fmd: it takes a -d path under 40 bytes."
	fi
	head_of 6 "fs_mark 3.3: \`fs_mark -d DIR ${fm[*]}\`; sbio: \`sbio run --script $wl ${opts[*]:1}\` (prepared once: an empty tree). Figure: files/s."
	"$SBIO" prepare --script "$wl" "${opts[@]}" >/dev/null
	for r in $(seq "$ROUNDS"); do
		say "exp 6 round $r"
		cold
		rm -f "$d/o/fs_log.txt"
		(cd "$d" && fs_mark -d "$fmd" "${fm[@]}") >"$d/orig.txt" 2>&1
		parse 6 "$r" orig e6_orig "$d/orig.txt"
		sbio_run "$d/sbio.json" "$wl" "${opts[@]}"
		parse 6 "$r" sbio e6_sbio "$d/sbio.json"
	done
	rm -rf "$d"
}

# 7. PostMark with its defaults but the pool and the transactions (E7_NUMBER,
# E7_TRANSACTIONS), in a folder of its own; its "seconds of transactions (N per second)".
exp7() {
	local wl=workloads/postmark.lua d=$R/e7 r
	local -a opts=("--dir=$d/sbio" "--number=$E7_NUMBER" "--transactions=$E7_TRANSACTIONS")
	need 7 postmark
	mkdir -p "$d/orig" "$d/sbio"
	head_of 7 "PostMark 1.51: \`set location DIR\`, \`set number $E7_NUMBER\`, \`set transactions $E7_TRANSACTIONS\`, \`run\` (its other settings at their defaults); sbio: \`sbio run --script $wl ${opts[*]:1}\` (prepared once: an empty tree). Figure: transactions/s of the transaction phase."
	"$SBIO" prepare --script "$wl" "${opts[@]}" >/dev/null
	for r in $(seq "$ROUNDS"); do
		say "exp 7 round $r"
		cold
		printf 'set location %s\nset number %s\nset transactions %s\nrun\nquit\n' "$d/orig" \
			"$E7_NUMBER" "$E7_TRANSACTIONS" | (cd "$d/orig" && postmark) >"$d/orig.txt" 2>&1
		parse 7 "$r" orig e7_orig "$d/orig.txt"
		sbio_run "$d/sbio.json" "$wl" "${opts[@]}"
		parse 7 "$r" sbio e7_sbio "$d/sbio.json"
	done
	rm -rf "$d"
}

# Same work: each experiment's cells run once more through bench/samework.sh (SAMEWORK):
# the original's command and sbio's, each on a private loop device of its own (an image in
# a tmpfs of this script's, so no other work reaches it), the device's counters and the
# system calls on its file system compared within 2%. One row per cell: the figures
# samework.sh marked (original → sbio, the ratio, its mark) and the verdict. The sizes are
# capped to what a small image holds (the table's caption says which); opens and close are
# allowed to differ everywhere: sbio opens and closes the set to check it against its
# manifest before a run, which is no I/O of the original's.
# cap SIZE MIB: SIZE, or MIB M when SIZE is larger.
cap() {
	if [ "$(to_bytes "$1")" -gt $(($2 * 1048576)) ]; then echo "${2}M"; else echo "$1"; fi
}
mib_of() { echo $((($(to_bytes "$1") + 1048575) / 1048576)); } # SIZE in MiB, rounded up
# sw_cell EXP CELL MIB SAMEWORK-ARGS…: one cell through samework.sh on an image of MIB MiB
# (at least 96); its row into work.EXP.
sw_cell() {
	local e=$1 cell=$2 mb=$3 rc
	shift 3
	[ "$mb" -ge 96 ] || mb=96
	say "exp $e same work: $cell"
	if [ -n "$SWTMP" ]; then
		mount -o remount,size=$((2 * mb + 64))m "$SWTMP" 2>/dev/null || true
	fi
	rc=0
	TMPDIR=${SWTMP:-${TMPDIR:-/tmp}} SBIO="$SBIO" "$SAMEWORK" --mb "$mb" --name "$cell" \
		--allow opens,close "$@" >"$W/sw.out" 2>"$W/sw.err" </dev/null || rc=$?
	cat "$W/sw.out" >>"$W/sw.log.$e"
	x swrow "$cell" "$W/sw.out" "$rc" "$W/sw.err" >>"$W/work.$e" ||
		echo "| $cell | — | **failed**: no row from samework.sh's output |" >>"$W/work.$e"
}
wneed() { # EXP TOOL…: a row saying the experiment's cells are not checked when a tool is missing
	local e=$1 t
	shift
	for t; do
		command -v "$t" >/dev/null && continue
		echo "| all | — | not checked: \`$t\` is not installed |" >>"$W/work.$e"
		return 1
	done
}
wcap() { printf '%s\n' "$2" >>"$W/wcap.$1"; } # EXP LINE: the same-work table's caption

work1() {
	local wl=$PWD/workloads/sysbench-rndrw.lua size sbe
	wneed 1 sysbench || return 0
	size=$(cap "$E1_SIZE" 64)
	sbe=$((E1_EVENTS + 128 * E1_THREADS * (E1_EVENTS / E1_THREADS / 100)))
	local sbc="sysbench fileio --file-num=128 --file-total-size=$size"
	wcap 1 "The experiment's requests and threads on a set of $size; write sectors within 256 sectors (128 KiB: each fsync commits ext4's journal, of a size that varies from run to run)."
	sw_cell 1 "rndrw direct, $E1_EVENTS requests, $E1_THREADS threads, $size" $(($(mib_of "$size") + 64)) --slack 256 \
		--orig-prep "$sbc prepare >/dev/null" \
		--orig "$sbc --file-test-mode=rndrw --threads=$E1_THREADS --events=$sbe --time=0 --file-extra-flags=direct run >/dev/null" \
		--sbio-prep "\"\$SBIO\" prepare --script $wl --dir=\$D --size=$size >/dev/null" \
		--sbio "\"\$SBIO\" run --script $wl --dir=\$D --size=$size --threads=$E1_THREADS --events=$E1_EVENTS --direct=on >/dev/null"
}
work2() {
	local wl=$PWD/workloads/iozone.lua size j orig=
	wneed 2 fio || return 0
	size=$(cap "$E2_SIZE" 32)
	for j in write:write rewrite:write read:read re-read:read; do
		orig+="fio --name=${j%%:*} --rw=${j#*:} --directory=\$D --filename_format='iozone.\$jobnum' --numjobs=$E2_THREADS --size=$size --bs=$E2_RECORD --ioengine=psync --invalidate=0 --fadvise_hint=0 --fallocate=none --end_fsync=0 >/dev/null && "
	done
	wcap 2 "iozone is not installed here: the reference is the experiment's fio runs, the four phases as one cell; $E2_THREADS files of $size. Allowed: fadvise64 and ftruncate (each side empties its file before the write its own way, without I/O: fio creates it anew, with an fadvise64 on the empty file; sbio truncates its laid-out file)."
	sw_cell 2 "write, rewrite, read, re-read, $E2_THREADS x $size, $E2_RECORD" $((E2_THREADS * $(mib_of "$size") + 64)) \
		--allow fadvise64,ftruncate \
		--orig "${orig% && }" \
		--sbio-prep "\"\$SBIO\" prepare --script $wl --dir=\$D --size=$size --threads=$E2_THREADS --record=$E2_RECORD >/dev/null" \
		--sbio "\"\$SBIO\" run --script $wl --dir=\$D --size=$size --threads=$E2_THREADS --record=$E2_RECORD >/dev/null"
}
work3() {
	local wl=$PWD/workloads/fio-matrix.lua size n m w c fio
	local -A engine=([sync]="--ioengine=psync" [mmap]="--ioengine=mmap"
		[libaio]="--ioengine=libaio --iodepth=$E3_DEPTH" [direct]="--ioengine=psync --direct=1")
	wneed 3 fio || return 0
	size=$(cap "$E3_SIZE" 40)
	n=$(($(to_bytes "$size") / $(to_bytes "$E3_BLOCK")))
	wcap 3 "One pass over a set of $size in ten files ($n requests of $E3_BLOCK: fio without --time_based on ten files of its own, sbio's cell with --events=$n), not the timed cells."
	local cells="read:sync read:mmap read:libaio read:direct randread:sync randread:mmap randread:libaio randread:direct write:sync write:mmap write:libaio write:direct randwrite:sync randwrite:mmap randwrite:libaio randwrite:direct"
	if [ "$QUICK" = 1 ]; then
		cells="read:sync randread:mmap write:libaio randwrite:direct"
		wcap 3 "QUICK=1: four of the sixteen cells, one per mode and engine."
	fi
	for c in $cells; do
		m=${c%:*} w=${c#*:}
		fio="fio --name=cell --directory=\$D --nrfiles=10 --filesize=$(($(to_bytes "$size") / 10)) --bs=$E3_BLOCK --rw=$m ${engine[$w]} --end_fsync=0"
		sw_cell 3 "$m $w" $(($(mib_of "$size") + 64)) \
			--orig-prep "$fio --create_only=1 >/dev/null" --orig "$fio >/dev/null" \
			--sbio-prep "\"\$SBIO\" prepare --script $wl --dir=\$D --size=$size --block=$E3_BLOCK --depth=$E3_DEPTH >/dev/null" \
			--sbio "\"\$SBIO\" run --script $wl --dir=\$D --size=$size --block=$E3_BLOCK --depth=$E3_DEPTH --phase='$m $w' --events=$n >/dev/null"
	done
}
work4() {
	local wl=$PWD/workloads/bonnie-direct.lua c chunk mib wo="" u=""
	wneed 4 bonnie++ || return 0
	has_opt "$wl" direct-write-only && wo=--direct-write-only=on
	has_opt "$wl" seeks && wo+=" --seeks=10 --seek-procs=1 --seed=1"
	[ "$ROOT" = 1 ] && u="-u root"
	wcap 4 "Each chunk size on a file of at most 32 MiB (bonnie's block write, rewrite, read and its seek test, 10 seeks by one process from -z 1, against the workload's cells with the same seeks). Allowed: fsync (bonnie++ makes 2 more: it fsyncs its file empty before the block write, and fsyncs it again as its block read closes it) and ftruncate (sbio empties its laid-out file before the write)."
	for c in $E4_CELLS; do
		chunk=${c%%:*} mib=${c#*:}
		[ "$mib" -le 32 ] || mib=32
		sw_cell 4 "$chunk, $mib MiB" $((2 * mib + 64)) \
			--allow fsync,ftruncate \
			--orig "bonnie++ -q -D -f -n 0 -r 0 -z 1 -m sbio -d \$D -s $mib:$chunk:10:1 $u >/dev/null 2>&1" \
			--sbio-prep "mkdir \$D/s && \"\$SBIO\" prepare --script $wl --dir=\$D/s --size=${mib}M >/dev/null" \
			--sbio "\"\$SBIO\" run --script $wl --dir=\$D/s --size=${mib}M --sizes=$chunk $wo >/dev/null"
	done
}
work5() {
	local wl=$PWD/workloads/blockdev-sweep.lua size mode bs flag sflag orig
	size=$(cap "$E5_SIZE" 64)
	wcap 5 "A file of $size, one run per cell (each run of the experiment is another such run, the file system's pages dropped before it)."
	for mode in buffered direct; do
		flag='' sflag=''
		[ "$mode" = direct ] && flag=iflag=direct sflag=--direct=on
		for bs in ${E5_SIZES//,/ }; do
			if [ "$(to_bytes "$bs")" -gt "$(to_bytes "$size")" ]; then
				echo "| $mode $bs | — | not checked: the block is larger than the $size file |" >>"$W/work.5"
				continue
			fi
			orig="dd if=\$D/test_file.0 of=/dev/null bs=$bs count=$(($(to_bytes "$size") / $(to_bytes "$bs"))) $flag status=none"
			sw_cell 5 "$mode $bs" $(($(mib_of "$size") + 64)) \
				--orig-prep "dd if=/dev/urandom of=\$D/test_file.0 bs=1M count=$(mib_of "$size") status=none" --orig "$orig" \
				--sbio-prep "\"\$SBIO\" prepare --script $wl --dir=\$D --size=$size >/dev/null" \
				--sbio "\"\$SBIO\" run --script $wl --dir=\$D --size=$size --runs=1 --sizes=$bs $sflag >/dev/null"
		done
	done
}
work6() {
	local wl=$PWD/workloads/fsmark.lua
	wneed 6 fs_mark || return 0
	wcap 6 "The experiment's settings; sectors within 768 (384 KiB: each fsync commits ext4's journal, of a size that varies from run to run, and sbio writes its manifest around the run)."
	sw_cell 6 "fs_mark -n $E6_FILES -s $E6_SIZE -t $E6_THREADS" \
		$((2 * E6_FILES * E6_THREADS * (E6_SIZE + 4096) / 1048576 + 64)) --slack 768 \
		--orig "cd / && fs_mark -d \$D/f -n $E6_FILES -s $E6_SIZE -t $E6_THREADS >/dev/null" \
		--sbio "mkdir \$D/f && \"\$SBIO\" run --script $wl --dir=\$D/f --files=$E6_FILES --size=$E6_SIZE --threads=$E6_THREADS >/dev/null"
}
work7() {
	local wl=$PWD/workloads/postmark.lua t=$E7_TRANSACTIONS
	wneed 7 postmark || return 0
	[ "$t" -le 20000 ] || t=20000
	wcap 7 "The experiment's pool, $t transactions (at most 20000 under strace). Both sides draw at random (PostMark's own generator and sbio's): their reads and writes come a few percent apart; with every draw pinned the calls agree (tests/integration/samework.sh)."
	sw_cell 7 "number $E7_NUMBER, transactions $t" 128 \
		--orig-prep "mkdir \$D/o" \
		--orig "cd / && printf '%s\\n' \"set location \$D/o\" 'set number $E7_NUMBER' 'set transactions $t' run quit | postmark >/dev/null" \
		--sbio-prep "mkdir \$D/s && \"\$SBIO\" prepare --script $wl --dir=\$D/s --number=$E7_NUMBER --transactions=$t >/dev/null" \
		--sbio "\"\$SBIO\" run --script $wl --dir=\$D/s --number=$E7_NUMBER --transactions=$t >/dev/null"
}
# run_work EXP: the experiment's same-work rows (work.EXP); a cell that cannot run says why
# in its row.
run_work() {
	: >"$W/work.$1"
	(
		set +e
		case $1 in 1) work1 ;; 2) work2 ;; 3) work3 ;; 4) work4 ;; 5) work5 ;; 6) work6 ;; 7) work7 ;; esac
	) 2>"$W/werr.$1" || true
	[ -s "$W/work.$1" ] ||
		echo "| all | — | **failed**: no cell was checked$(last_err "$W/werr.$1") |" >>"$W/work.$1"
}
if checks work && [ "$ROOT" = 1 ] && [ -e /dev/loop-control ]; then
	SWTMP=$(mktemp -d /tmp/sw.XXXXXX)
	mount -t tmpfs -o size=256m,mode=0700 sbio-samework "$SWTMP" || { rmdir "$SWTMP"; SWTMP=; }
fi

TITLE=([1]="Experiment 1: sysbench fileio rndrw, fixed requests, O_DIRECT"
	[2]="Experiment 2: iozone write, rewrite, read, re-read"
	[3]="Experiment 3: the fio matrix"
	[4]="Experiment 4: bonnie++ -D"
	[5]="Experiment 5: blockdev-perftest's dd loop"
	[6]="Experiment 6: fs_mark"
	[7]="Experiment 7: PostMark")
START=$(date -u +%s)
exec 3>&2
for e in $EXPS; do
	! checks speed || run_exp "$e"
	! checks work || run_work "$e"
done
SECS=$(($(date -u +%s) - START))

version() { # TOOL: its --version's first line, or that it is not there
	local v
	v=$("$1" --version 2>/dev/null | head -n 1) || true
	echo "${v:-$1: no version (not installed?)}"
}
# The section: the machine, the command, then per experiment its commands, table and notes.
{
	read -r src fstype < <(df --output=source,fstype "$R" | tail -n 1)
	# The disk of the file system's device (vda for vda1; loop0 and nvme0n1 are disks).
	dev=$(basename "$(readlink -f "$src")")
	[ -e "/sys/block/$dev" ] || dev=$(basename "$(readlink -f "/sys/class/block/$dev/..")")
	sched=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$dev/queue/scheduler" 2>/dev/null || true)
	echo "### Run on $(date -u +%Y-%m-%d) ($(date -u +%H:%M) UTC)"
	echo
	echo "- Kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 2^20 }' /proc/meminfo) of memory."
	echo "- Folder on $src ($fstype; scheduler: ${sched:-unknown})${DEVDESC:+: $DEVDESC}."
	echo "- $($SBIO --version 2>&1 | head -n 1), $(version fio), $(version sysbench), $(version dd)."
	echo "- Command: \`ROUNDS=$ROUNDS EXPS=\"$EXPS\"$([ "$QUICK" = 1 ] && echo " QUICK=1")${DEVICE:+ DEVICE=$DEVICE} $CMDLINE\`, $ROUNDS round$([ "$ROUNDS" -gt 1 ] && echo s), $((SECS / 60)) min $((SECS % 60)) s."
	for e in $EXPS; do
		echo
		echo "#### ${TITLE[$e]}"
		[ -f "$W/head.$e" ] && { echo; cat "$W/head.$e"; }
		if checks speed; then
			echo
			echo "Same speed: the medians of $ROUNDS interleaved round$([ "$ROUNDS" -gt 1 ] && echo s); a cell whose median ratio is outside 0.90–1.10 is marked <<."
			[ -f "$W/fail.$e" ] && { echo; cat "$W/fail.$e"; }
			grep -q "^$e	" "$RES" && { echo; x table "$RES" "$e"; }
			[ -f "$W/notes.$e" ] && { echo; cat "$W/notes.$e"; }
		fi
		if checks work; then
			echo
			echo "Same work (bench/samework.sh, once per cell: each side on a private loop device; the device's sectors and the system calls on its file system within 2%, a figure over it listed and marked <<; the device's request and flush counts are not listed, as the block layer merges requests differently; nor are opens and closes: sbio opens and closes its set to check it against its manifest before a run).$([ -f "$W/wcap.$e" ] && printf ' %s' "$(cat "$W/wcap.$e")")"
			echo
			echo "| cell | figures that differ (original → sbio) | verdict |"
			echo "|---|---|---|"
			cat "$W/work.$e"
		fi
	done
} >"$W/section.md"
cat "$W/section.md"
[ -n "${OUT:-}" ] && x splice "$OUT" "$W/section.md" "$BEGIN_MARK" "$END_MARK"
[ -z "$FAILED" ] || { say "failed:$FAILED (each one's section says why)"; exit 1; }
exit 0
