#!/bin/bash
# samework.sh — does sbio do the original tool's work? One cell, run twice: the original's
# command and sbio's, each on a private loop device (an image file, --direct-io=on where
# losetup has it, its own ext4, mounted; all unmounted, detached and removed in a trap), and
# for each run the device's own counters and the system calls over the cell, side by side.
#
#   bench/samework.sh [--name CELL] [--mb N] [--allow FIG[,FIG]] [--strict-requests] [--slack SECTORS] [--keep DIR] \
#       [--orig-prep CMD] --orig CMD [--sbio-prep CMD] --sbio CMD
#
# CMDs are bash command lines run in the mounted folder, which is also $D (use it for the
# tools that take a folder). A prep command lays the files out; it runs before the counters
# start and is not counted. Then the file system's page cache is dropped (the file system is
# synced, unmounted and mounted again: its cached pages go, nothing else's) and the measured
# command runs under strace; the file system is synced (sync -f) before the counters are read
# again, so writes still in the page cache as the tool exits are counted on both sides.
#
# The device's counters (/sys/block/loopN/stat, Documentation/block/stat.rst): read
# requests (field 1), read sectors (3), write requests (5), write sectors (7) and, where the
# kernel has the columns (17 fields), flush requests (16). The system calls (strace -f -y,
# each call counted as it starts) are those on the cell's file system only — a descriptor or
# path under the mount, so a tool's start-up (libraries, /proc) is not counted — grouped as
# reads = read+pread64+readv+preadv+preadv2, writes = write+pwrite64+writev+pwritev+pwritev2,
# fsync, fdatasync, opens = open+openat+creat, fadvise64, ftruncate, close, msync, unlink
# (unlink+unlinkat). sbio's own book-keeping file in the folder (sbio.manifest, written as
# sbio.manifest.tmp, fsynced, renamed, and the folder fsynced) is left out: it is no part of
# the original's work. A call that failed (returned -1, such as fio's unlink of a file that
# does not exist yet) did no work and is not counted.
#
# Each figure is printed for both sides with the ratio sbio/original; a sector or call figure
# that differs by more than 2% is marked "<<" and fails the check (exit 1) unless it is
# named in --allow (a documented exception: say why where the cell is run). Request counts
# (--keep DIR: each side's strace log and output are copied to DIR.) Request counts
# may differ by the block layer's merging of adjacent requests (the same sectors in fewer,
# larger requests): they are marked "~" and checked only with --strict-requests.
# A sector figure within --slack sectors (default 64: 32 KiB, the file system's own metadata
# — inode table, directory and journal blocks — that a cell of a few MiB cannot hide in 2%)
# is not marked. A figure zero on one side and non-zero on the other otherwise differs. Exit 2: bad usage or a
# command that failed; 77: not root or no loop device (nothing to compare).
set -u
NAME=cell
MB=256
ALLOW=
STRICT_REQ=false
SLACK=64
KEEP=
declare -A CMD=([orig-prep]="" [orig]="" [sbio-prep]="" [sbio]="")
usage() {
	echo "usage: $0 [--name CELL] [--mb N] [--allow FIG,...] [--strict-requests] [--slack SECTORS] [--keep DIR] [--orig-prep CMD] --orig CMD [--sbio-prep CMD] --sbio CMD" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--name) NAME=$2; shift 2 ;;
	--mb) MB=$2; shift 2 ;;
	--allow) ALLOW=${ALLOW:+$ALLOW,}$2; shift 2 ;;
	--strict-requests) STRICT_REQ=true; shift ;;
	--slack) SLACK=$2; shift 2 ;;
	--keep) KEEP=$2; shift 2 ;;
	--orig-prep | --orig | --sbio-prep | --sbio) CMD[${1#--}]=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ -n "${CMD[orig]}" ] && [ -n "${CMD[sbio]}" ] || usage
case $MB in '' | *[!0-9]*) echo "$0: --mb=$MB: a whole number of MiB" >&2; exit 2 ;; esac
case $SLACK in '' | *[!0-9]*) echo "$0: --slack=$SLACK: a whole number of sectors" >&2; exit 2 ;; esac
if [ "$(id -u)" -ne 0 ]; then
	echo "$0: needs root (loop devices, mount)" >&2
	exit 77
fi
for t in losetup mkfs.ext4 strace python3; do
	command -v "$t" >/dev/null || { echo "$0: needs $t" >&2; exit 77; }
done
# LeakSanitizer cannot work under strace (it stops the process with a fatal error): a sbio
# built with AddressSanitizer runs here with its leak check off.
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"

W=$(mktemp -d "${TMPDIR:-/tmp}/samework.XXXXXX")
LOOP=
MNT=$W/mnt
cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -f "$W/img"
	[ -n "$KEEP" ] && mkdir -p "$KEEP" && cp "$W"/*.strace "$W"/*.out "$KEEP"/ 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# attach: a fresh image, its loop device (direct I/O where losetup has it), ext4 on it (4 KiB
# blocks, as a disk's: a small image would get 1 KiB ones, and stdio buffers by the block) with
# every table written now (no lazy initialisation writing behind the cell), mounted on $MNT.
attach() {
	truncate -s "${MB}M" "$W/img" || return 1
	LOOP=$(losetup -f --show --direct-io=on "$W/img" 2>/dev/null) ||
		LOOP=$(losetup -f --show "$W/img") || { LOOP=; return 1; }
	mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard "$LOOP" >/dev/null || return 1
	mkdir -p "$MNT" && mount -o noatime "$LOOP" "$MNT"
}
detach() {
	umount "$MNT" && losetup -d "$LOOP" && LOOP= && rm -f "$W/img"
}
# stat_of DEV: read requests, read sectors, write requests, write sectors, flush requests
# ("-" where the kernel has no flush columns).
stat_of() {
	awk '{ print $1, $3, $5, $7, (NF >= 17 ? $16 : "-") }' "/sys/block/${1#/dev/}/stat"
}

TRACE=read,pread64,readv,preadv,preadv2,write,pwrite64,writev,pwritev,pwritev2,fsync,fdatasync,open,openat,creat,fadvise64,ftruncate,close,msync,unlink,unlinkat
# side NAME: prepare, drop the file system's cache, count the measured command.
side() {
	local s=$1 before after
	attach || { echo "$0: $NAME: cannot set up a loop device" >&2; return 77; }
	export D=$MNT
	if [ -n "${CMD[$s-prep]}" ]; then
		(cd "$MNT" && bash -c "${CMD[$s-prep]}") >"$W/$s.prep.out" 2>&1 ||
			{ echo "$0: $NAME: $s's preparation failed: $(tail -3 "$W/$s.prep.out")" >&2; return 2; }
	fi
	sync -f "$MNT" && umount "$MNT" && mount -o noatime "$LOOP" "$MNT" || return 2
	before=$(stat_of "$LOOP")
	(cd "$MNT" && strace -f -qq -y -s 0 -e trace=$TRACE -o "$W/$s.strace" bash -c "${CMD[$s]}") \
		>"$W/$s.out" 2>&1 || { echo "$0: $NAME: $s's command failed: $(tail -3 "$W/$s.out")" >&2; return 2; }
	sync -f "$MNT"
	after=$(stat_of "$LOOP")
	echo "$before" >"$W/$s.dev0"
	echo "$after" >"$W/$s.dev1"
	echo "$MNT" >"$W/$s.mnt"
	detach
}
side orig || exit $?
side sbio || exit $?

python3 - "$W" "$NAME" "$ALLOW" "$STRICT_REQ" "$SLACK" <<'PY'
import re, sys
w, name, allow, strict = sys.argv[1], sys.argv[2], set(filter(None, sys.argv[3].split(","))), sys.argv[4] == "true"
sslack = int(sys.argv[5])
groups = {"reads": ("read", "pread64", "readv", "preadv", "preadv2"),
          "writes": ("write", "pwrite64", "writev", "pwritev", "pwritev2"),
          "fsync": ("fsync",), "fdatasync": ("fdatasync",), "opens": ("open", "openat", "creat"),
          "fadvise64": ("fadvise64",), "ftruncate": ("ftruncate",), "close": ("close",),
          "msync": ("msync",), "unlink": ("unlink", "unlinkat")}
of = {c: g for g, cs in groups.items() for c in cs}
bookkeeping = re.compile(r"\"(?:[^\"]*/)?sbio\.manifest(?:\.tmp)?\"")
call = re.compile(r"^\d+\s+([a-z0-9_]+)\((.*)$")
failed = re.compile(r"\) += -1 E[A-Z]+ \(")  # a call that failed did no work
def calls(s):
    mnt = open(f"{w}/{s}.mnt").read().strip()
    m = re.escape(mnt)
    own = r"(?!(?:[^>\"]*/)?sbio\.manifest(?:\.tmp)?[>\"])"  # sbio's book-keeping
    inside = re.compile(r"<" + m + r"(/+" + own + r"[^>]*)?>|\"" + m + r"/+" + own)
    n = dict.fromkeys(groups, 0)
    manifest_dir = {}  # pid -> the folder whose manifest that thread has just closed
    for line in open(f"{w}/{s}.strace", errors="replace"):
        m = call.match(line)
        if not m or m.group(1) not in of or "resumed>" in line:
            continue
        pid, folder = line.split()[0], manifest_dir.pop(line.split()[0], None)
        c = re.match(r"close\(\d+<(.*)/sbio\.manifest\.tmp>\)", f"{m.group(1)}({m.group(2)}")
        if c:
            manifest_dir[pid] = c.group(1)
        if folder is not None and m.group(1) == "fsync" and f"<{folder}>)" in line:
            continue  # the folder's fsync that makes the manifest's rename durable
        if bookkeeping.search(line) or failed.search(line):
            continue
        if inside.search(re.sub(r"AT_FDCWD<[^>]*>", "AT_FDCWD", line)):
            n[of[m.group(1)]] += 1
    return n
def dev(s):
    a = open(f"{w}/{s}.dev0").read().split()
    b = open(f"{w}/{s}.dev1").read().split()
    keys = ["read requests", "read sectors", "write requests", "write sectors", "flush requests"]
    return {k: (int(y) - int(x) if x != "-" else None) for k, x, y in zip(keys, a, b)}
o, s = {**dev("orig"), **calls("orig")}, {**dev("sbio"), **calls("sbio")}
print(f"same work: {name}")
print(f"  {'figure':<16} {'original':>12} {'sbio':>12} {'ratio':>7}")
bad = []
for k in o:
    if o[k] is None:
        continue
    a, b = o[k], s[k]
    ratio = "-" if a == 0 and b == 0 else ("inf" if a == 0 else f"{b / a:.3f}")
    slack = sslack if k.endswith("sectors") else 0
    off = abs(b - a) > slack and ((a == 0) != (b == 0) or abs(b - a) > 0.02 * a)
    mark = ""
    if off:
        if k.endswith("requests") and not strict:
            mark = "~ (merging)"
        elif k in allow:
            mark = "<< allowed"
        else:
            mark = "<<"
            bad.append(k)
    print(f"  {k:<16} {a:>12} {b:>12} {ratio:>7} {mark}")
if bad:
    print(f"  differ by more than 2%: {', '.join(bad)}")
sys.exit(1 if bad else 0)
PY
