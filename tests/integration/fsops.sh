#!/bin/bash
# A tree job's file-system operations against the kernel: a mix of every operation and a
# flow (varmail's) run under strace on a tree, on a loop device and in a plain folder; each
# op type's count (and the bytes) in sbio's JSON equals the system calls strace sees on the
# tree's paths: creates (openat with O_CREAT), unlinks, renames, stats (newfstatat or statx),
# mkdirs, readdirs (openat of a leaf with O_DIRECTORY), fsyncs with fdatasyncs, the bytes of
# pread64 and pwrite64. The tree's own scans (one name at a time, from the folder above) are
# told from the operations (a path with folders, from the tree's root). The bad-input lines
# (exit 2, one line naming the script's line, nothing made); a zipf choice keeps its skew.
# Needs root (loop device) and strace: skips otherwise.
source "$(dirname "$0")/lib.sh"

loop_test "loop devices" strace "strace is not installed: the kernel-side checks cannot be made"
loop_ext4 128M "$MNT"
ok "own loop device /dev/$LOOP with ext4 mounted at $MNT"

# 400 slots, 10 per folder: 40 leaves two levels deep, so that every operation's path has a
# folder in it while the scans name one entry at a time.
TREE='fileset { files = 400, dirwidth = 10, size = "10k", prealloc = 0.5 }'
cat >"$TMP/mix.lua" <<EOF
$TREE
phase "all" { events = 3000,
  job "all" { threads = 2, block = "4k", append = "3k",
              mix = { create = 2, unlink = 2, append = 1, readwhole = 1, writewhole = 1,
                      open = 1, close = 1, stat = 2, rename = 1, mkdir = 1, readdir = 1,
                      fsync = 1, fdatasync = 1, read = 1, write = 1 } },
}
EOF
cat >"$TMP/flow.lua" <<EOF
$TREE
phase "mail" { events = 2600,
  job "mail" { threads = 1, block = "4k", append = "4k",
               flow = { "unlink", "create", "append", "fsync", "close",
                        "open", "readwhole", "append", "fdatasync", "close",
                        "open", "readwhole", "close" } },
}
EOF

# traced SCRIPT DIR: a fresh tree in DIR, then the run under strace (-y names each
# descriptor's path; -ff a file per thread, so that no call is split in two lines) into
# $TMP/trace, its JSON into $RESULT.
traced() {
	"$SBIO" cleanup --dir "$2" >/dev/null 2>&1
	mkdir -p "$2"
	"$SBIO" prepare --script "$1" --dir "$2" >/dev/null 2>"$TMP/err" || return 1
	rm -f "$RESULT" "$TMP"/trace*
	strace -ff -qq -y -o "$TMP/trace" \
		-e trace=openat,unlinkat,renameat,renameat2,newfstatat,statx,mkdirat,fsync,fdatasync,pread64,pwrite64 \
		"$SBIO" run --script "$1" --dir "$2" -o "$RESULT" >"$TMP/out" 2>"$TMP/err" || return 1
	cat "$TMP"/trace.* >"$TMP/trace"
}

# kernel: the counts of the operations' system calls in $TMP/trace, one "name=N" a line:
# calls on the tree's root (…/sbio.tree>) with a path that has a folder in it, and syncs and
# transfers on descriptors of files under the tree.
kernel() {
	awk '
	/ = -1 / { next }
	{ root = $0 ~ /\(([0-9]+)<[^>]*\/sbio\.tree>, "[^"]*\// }
	root && /openat\(/ && /O_CREAT/ { c["create"]++ }
	root && /openat\(/ && /O_DIRECTORY/ { c["readdir"]++ }
	root && /unlinkat\(/ { c["unlink"]++ }
	root && /renameat2?\(/ { c["rename"]++ }
	root && /(newfstatat|statx)\(/ { c["stat"]++ }
	root && /mkdirat\(/ { c["mkdir"]++ }
	/(fsync|fdatasync|pread64|pwrite64)\([0-9]+<[^>]*\/sbio\.tree\// {
		n = $NF + 0
		if ($0 ~ /f(data)?sync\(/) c["fsync"]++
		else if ($0 ~ /pread64\(/) c["read_bytes"] += n
		else c["written_bytes"] += n
	}
	END { for (k in c) printf "%s=%d\n", k, c[k] }' "$TMP/trace" | sort
}

# sbio's: the same figures from the JSON result (its fsync count holds the fdatasyncs).
reported() {
	json_py "$RESULT" '
r = d["phases"][0]["jobs"][0]["result"]["result"]
o = r["op_types"]
n = lambda k: o[k]["ops"] if k in o else 0
b = lambda *ks: sum(o[k]["bytes"] for k in ks if k in o)
fig = {"create": n("create"), "readdir": n("readdir"), "unlink": n("unlink"),
       "rename": n("rename"), "stat": n("stat"), "mkdir": n("mkdir"),
       "fsync": n("fsync"),
       "read_bytes": b("read", "readwhole"),
       "written_bytes": b("write", "create", "append", "writewhole")}
for k in sorted(fig):
    if fig[k]:
        print("%s=%d" % (k, fig[k]))'
}

# compare WHAT: every figure of sbio's equals the kernel's (none may be missing).
compare() {
	local k s
	k=$(kernel)
	s=$(reported)
	if [ -n "$s" ] && [ "$k" = "$s" ]; then
		ok "$1: $(tr '\n' ' ' <<<"$s")"
	else
		notok "$1: sbio [$(tr '\n' ' ' <<<"$s")] kernel [$(tr '\n' ' ' <<<"$k")]"
	fi
}

for where in "$MNT/t" "$TMP/plain"; do
	on=$([ "$where" = "$MNT/t" ] && echo "/dev/$LOOP" || echo "a plain folder")
	if traced "$TMP/mix.lua" "$where"; then
		compare "a mix of every operation on $on: counts and bytes equal the kernel's"
		json_expect "the mix on $on: every fs op type counted, events = 3000" "$RESULT" '
r = d["phases"][0]["jobs"][0]["result"]["result"]
o = r["op_types"]
miss = [k for k in ("create", "append", "readwhole", "writewhole", "open", "close", "stat",
                    "unlink", "rename", "mkdir", "readdir", "read", "write", "fsync")
        if o.get(k, {}).get("ops", 0) == 0]
if miss or r["events"] != 3000:
    print("missing", miss, "events", r["events"])'
	else
		notok "the mix on $on ran (stderr: $(head -c 300 "$TMP/err" | tr '\n' ' '))"
	fi
	if traced "$TMP/flow.lua" "$where"; then
		compare "varmail's flow on $on: counts and bytes equal the kernel's"
		json_expect "the flow on $on: 2600 events, in the flow's proportions" "$RESULT" '
o = d["phases"][0]["jobs"][0]["result"]["result"]["op_types"]
n = lambda k: o.get(k, {}).get("ops", 0)
want = {"unlink": 200, "create": 200, "append": 400, "open": 400, "readwhole": 400, "close": 600}
bad = {k: n(k) for k in want if n(k) != want[k]}
if bad:
    print("got", bad, "want", want)'
	else
		notok "the flow on $on ran (stderr: $(head -c 300 "$TMP/err" | tr '\n' ' '))"
	fi
	"$SBIO" cleanup --dir "$where" >/dev/null 2>&1
done

# --- skipping: create with no free slot is skipped, counted, and no call is made ---
cat >"$TMP/skip.lua" <<EOF
$TREE
phase "s" { events = 3000, job "s" { threads = 1, mix = { create = 1, stat = 1 } } }
EOF
if traced "$TMP/skip.lua" "$TMP/skip"; then
	# The 200 free slots fill in about 400 draws; each of the 2600 or so stats after that
	# follows as many skipped creates on average as there are stats.
	json_expect "skipped draws counted apart (200 creates fill the free slots, 2800 stats, about 2600 creates skipped)" \
		"$RESULT" '
r = d["phases"][0]["jobs"][0]["result"]["result"]
s, st = r.get("skipped", 0), r["op_types"].get("stat", {}).get("ops", 0)
cr = r["op_types"].get("create", {}).get("ops", 0)
if cr != 200 or st != 2800 or not 2200 < s < 3000:
    print("create", cr, "stat", st, "skipped", s)'
	compare "the skipping run's creates and stats equal the kernel's"
else
	notok "the skipping run ran (stderr: $(head -c 300 "$TMP/err" | tr '\n' ' '))"
fi
"$SBIO" cleanup --dir "$TMP/skip" >/dev/null 2>&1

# --- a zipf choice keeps its skew: the first tenth of the slots take most stats ---
# share PATTERN: the share of the run's stats on slots 0 .. 39, from strace's paths.
share() {
	cat >"$TMP/z.lua" <<EOF
fileset { files = 400, dirwidth = 10, size = "1k", prealloc = 1 }
phase "z" { events = 4000, job "z" { threads = 2, pattern = "$1", mix = { stat = 1 } } }
EOF
	traced "$TMP/z.lua" "$TMP/z" || return 1
	awk '/newfstatat\([0-9]+<[^>]*\/sbio\.tree>, "[^"]*\/f[0-9]+"/ && !/ = -1 / {
		match($0, /\/f[0-9]+"/); s = substr($0, RSTART + 2, RLENGTH - 3) + 0
		n++; if (s < 40) low++ } END { printf "%.3f %d\n", low / n, n }' "$TMP/trace"
}
read -r zs zn < <(share zipf:1.2)
read -r us un < <(share uniform)
if awk -v z="${zs:-0}" -v u="${us:-1}" 'BEGIN { exit !(z > 0.5 && u < 0.15) }' &&
	[ "$zn" = 4000 ] && [ "$un" = 4000 ]; then
	ok "zipf:1.2 puts $zs of 4000 stats on the first tenth of the slots, uniform $us"
else
	notok "zipf's skew: zipf:1.2 ${zs:-?} of ${zn:-?} stats on the first tenth, uniform ${us:-?} of ${un:-?} (want > 0.5 and < 0.15)"
fi
"$SBIO" cleanup --dir "$TMP/z" >/dev/null 2>&1

# --- bad input: exit 2, one line naming the script and its line, nothing made ---
# bad NAME DESC LINE WANT BODY: the script BODY refused with WANT in its one line, which
# names NAME.lua:LINE; the folder stays empty.
bad() {
	local f=$TMP/$1.lua d=$TMP/bad.$1
	printf '%s\n' "$5" >"$f"
	mkdir -p "$d"
	expect_exit 2 "$2: exit 2" "$SBIO" run --script "$f" --dir "$d"
	stderr_one_line "$2: one line"
	if grep -q "$1.lua:$3: .*$4" "$TMP/err" && [ -z "$(ls -A "$d")" ]; then
		ok "$2: names $1.lua:$3, nothing made"
	else
		notok "$2: '$(head -c 300 "$TMP/err")' (want $1.lua:$3 and '$4'; folder: $(ls -A "$d" | head -3 | tr '\n' ' '))"
	fi
}
bad unknown "an unknown operation" 3 "unknown operation 'frob'" \
	"$TREE
phase \"p\" { time = 1,
  job \"j\" { mix = { stat = 1, frob = 2 } } }"
bad flowname "a flow naming an unknown operation" 3 "flow\[2\]: unknown operation 'opne'" \
	"$TREE
phase \"p\" { time = 1,
  job \"j\" { flow = { \"open\", \"opne\" } } }"
bad flowlist "a flow that is not a list" 2 "flow is a list" \
	"$TREE
phase \"p\" { time = 1, job \"j\" { flow = \"open\" } }"
bad both "a mix and a flow" 2 "a mix (weights) or a flow" \
	"$TREE
phase \"p\" { time = 1, job \"j\" { mix = { stat = 1 }, flow = { \"open\" } } }"
bad notree "a file-system operation without a tree" 3 "stat needs a file tree" \
	"fileset { files = 2, size = \"1M\" }
phase \"p\" { time = 1,
  job \"j\" { mix = { read = 1, stat = 1 } } }"
bad engine "a tree job on another engine" 2 "engine 'libaio'.*accepted: sync" \
	"$TREE
phase \"p\" { time = 1, job \"j\" { engine = \"libaio\", mix = { stat = 1 } } }"
bad direct "a tree job with O_DIRECT" 2 "flags \"direct\"" \
	"$TREE
phase \"p\" { time = 1, job \"j\" { flags = \"direct\", mix = { stat = 1 } } }"
bad mode "a tree job with a mode" 2 "mode = \"rndrd\": a tree's jobs take a mix or a flow" \
	"$TREE
phase \"p\" { time = 1, job \"j\" { mode = \"rndrd\" } }"
bad rmw "rmw in a tree job" 2 "rmw works on a flat fileset" \
	"$TREE
phase \"p\" { time = 1, job \"j\" { mix = { rmw = 1 } } }"
bad nofree "create with no free slot ever" 3 "create needs a free slot.*prealloc = 1" \
	"fileset { files = 40, dirwidth = 10, size = \"1k\", prealloc = 1 }
phase \"p\" { time = 1,
  job \"j\" { mix = { stat = 1, create = 1 } } }"
bad nofile "stat with no file ever" 3 "stat needs a file.*prealloc = 0" \
	"fileset { files = 40, dirwidth = 10, size = \"1k\", prealloc = 0 }
phase \"p\" { time = 1,
  job \"j\" { mix = { mkdir = 1, stat = 1 } } }"
bad otherjob "stat with no file but another job's creates" 4 \
	"stat needs a file.*neither the job nor one of a phase before" \
	"fileset { files = 40, dirwidth = 10, size = \"1k\", prealloc = 0 }
phase \"p\" { time = 1,
  job \"c\" { mix = { create = 1, unlink = 1 } },
  job \"s\" { mix = { stat = 1 } } }"
bad slots "a thread past the tree's slots" 5 \
	"job t: stat: thread 7 of the 8 of phase \"p\" owns none of the tree's slots (4)" \
	"fileset { files = 4, dirwidth = 2, size = \"1k\" }
phase \"p\" { time = 1,
  job \"s\" { threads = 2, mix = { stat = 1 } },
  job \"m\" { threads = 4, mix = { mkdir = 1 } },
  job \"t\" { threads = 2, mix = { stat = 1 } } }"
bad unmade "a thread past prepare's files" 3 \
	"job s: stat: thread 3 of the 4 of phase \"p\" owns none of the tree's files prepare makes (2)" \
	"fileset { files = 40, dirwidth = 10, size = \"1k\", prealloc = 0.05 }
phase \"p\" { time = 1,
  job \"s\" { threads = 4, mix = { stat = 1 } } }"
bad nocurrent "close and fdatasync with nothing that makes a current file" 3 \
	"job j: close needs the thread's current file, which only create, open, append, write and writewhole make" \
	"$TREE
phase \"p\" { time = 1,
  job \"j\" { mix = { close = 1, fdatasync = 1, stat = 1 } } }"
bad nofreeslot "a creating thread past the free slots" 4 \
	"job c: create: thread 1 of the 3 of phase \"p\" owns none of the tree's 2 free slots (38 to 39;" \
	"fileset { files = 40, dirwidth = 10, size = \"1k\", prealloc = 0.95 }
phase \"p\" { time = 1,
  job \"s\" { mix = { stat = 1 } },
  job \"c\" { threads = 2, mix = { create = 1, stat = 1 } } }"
bad append "a bad append size" 2 "append: '3q' is not a size" \
	"$TREE
phase \"p\" { time = 1, job \"j\" { append = \"3q\", flow = { \"open\" } } }"
printf '%s\nphase "p" { time = 1, job "j" { mix = { stat = 1 } } }\n' "$TREE" >"$TMP/verify.lua"
mkdir -p "$TMP/bad.verify"
expect_exit 2 "--verify with a tree: exit 2" "$SBIO" run --script "$TMP/verify.lua" --dir "$TMP/bad.verify" --verify
stderr_one_line "--verify with a tree: one line"
check "--verify with a tree: names the tree's line, nothing made" \
	bash -c "grep -q 'verify.lua declares a file tree (line 1)' '$TMP/err' && [ -z \"\$(ls -A '$TMP/bad.verify')\" ]"

# --- a thread that can serve nothing at all fails, saying why: an earlier phase removed
# every file ---
cat >"$TMP/never.lua" <<EOF2
$TREE
phase "gone" { events = 100000, job "u" { mix = { unlink = 1 } } }
phase "p" { time = 5, job "j" { mix = { stat = 1, readwhole = 1 } } }
EOF2
mkdir -p "$TMP/never"
"$SBIO" prepare --script "$TMP/never.lua" --dir "$TMP/never" >/dev/null 2>&1
expect_exit 1 "stat and readwhole after a phase that unlinked every file: the run fails" \
	"$SBIO" run --script "$TMP/never.lua" --dir "$TMP/never"
check "it names the thread and why" \
	grep -q "thread 0: none of its job's operations can be served (the last drawn: .*no file" "$TMP/err"
