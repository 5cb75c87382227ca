#!/bin/bash
# What a script's jobs do to the set, as doc/scripting.md says, in a plain folder:
# - on a file tree, the creates, appends and whole-file writes that write data are counted in
#   sysbench's lines ("writes/s", "reads, writes, syncs done") beside the bytes they wrote,
#   and the whole-file reads beside the bytes read: the text's counts equal the JSON's op
#   types, and the bytes written are the creates' files;
# - a tree that prepare would make empty (prealloc 0, fsmark.lua's) is made by run itself in
#   an empty folder, saying so, and compare's check before its first run accepts it too; a
#   tree with files to prepare is still refused without prepare, and a sbio.tree no manifest
#   names stops both;
# - a job's files (files = "0-7" or {8}): under strace each job's reads are on its files only
#   (the preads per file equal each job's read counts), an append job's writes are at the end
#   of its file, which grows by exactly the bytes the job's report and JSON say it wrote;
#   the next run and a plain read-only run take the grown set (not damaged), a run that
#   writes cuts it back first, saying so; compare runs the script; bad values (an index past
#   the set, not an index, an empty list, an event job, a tree, append with mmap or
#   O_DIRECT, files under --verify) are one line, exit 2, nothing touched.
source "$(dirname "$0")/lib.sh"

# --- A tree's creates are writes in sysbench's lines ---
cat >"$TMP/creates.lua" <<'EOF2'
fileset { files = 60, dirwidth = 100, size = "8k", prealloc = 0.5 }
phase "make" { time = 0, events = 90,
  job "c" { block = "4k", flow = { "create", "close", "open", "readwhole", "close" } } }
EOF2
mkdir -p "$TMP/creates"
expect_exit 0 "a tree of 30 files: prepare" "$SBIO" prepare --script "$TMP/creates.lua" --dir "$TMP/creates"
expect_exit 0 "18 creates and 18 whole-file reads: run" sbio_json run --script "$TMP/creates.lua" --dir "$TMP/creates"
cp "$TMP/out" "$TMP/creates.out"
counted=$(sed -n 's/^ *reads, writes, syncs done: *//p' "$TMP/creates.out")
json=$(json_py "$RESULT" "
r = d['phases'][0]['jobs'][0]['result']['result']
o = r['op_types']
n = lambda k: o[k]['ops'] if k in o else 0
print('%d, %d, %d' % (n('read') + n('readwhole'), n('write') + n('create') + n('append') + n('writewhole'), n('fsync')))")
eq "'reads, writes, syncs done' counts the readwholes and the creates, as the JSON's op types" "$counted" "$json"
eq "... which are 18 whole-file reads and 18 creates" "$counted" "18, 18, 0"
check "'bytes written' is the 18 created files of 8 KiB, beside 18 writes" \
	grep -qE '^ *bytes read, written: *144 KiB, 144 KiB$' "$TMP/creates.out"
wps=$(sed -n 's/^ *writes\/s: *//p' "$TMP/creates.out" | head -1)
json_expect "'writes/s' is the creates over the run's time (JSON's create ops/s)" "$RESULT" "
r = d['phases'][0]['jobs'][0]['result']['result']
want = r['op_types']['create']['ops'] / r['elapsed_s']
got = float('$wps')
if abs(got - want) > 0.011 + want * 1e-3: print('writes/s %s, creates/s %.2f' % (got, want))"

# --- run makes a tree that has nothing to prepare (fsmark.lua) ---
FSM="--files=20 --size=4096"
mkdir -p "$TMP/fsm"
# shellcheck disable=SC2086 # the options are words
expect_exit 0 "fsmark.lua in an empty folder, no prepare: run" \
	"$SBIO" run --script workloads/fsmark.lua --dir "$TMP/fsm" $FSM
check "... says that it makes the empty tree" \
	grep -q "^No file tree in $TMP/fsm: the script's tree has no file to prepare (prealloc 0), so the run makes it" "$TMP/out"
check "... and runs: fs_mark's line of 20 files" grep -qE '^ +20 +4096 ' "$TMP/out"
expect_exit 0 "... cleanup removes it" "$SBIO" cleanup --dir "$TMP/fsm"
eq "... leaving the folder empty" "$(ls -A "$TMP/fsm")" ""
# shellcheck disable=SC2086
expect_exit 0 "compare with fsmark.lua in an empty folder, no prepare" \
	"$SBIO" compare --script workloads/fsmark.lua --dir "$TMP/fsm" $FSM --schedulers=none --repeat=1
check "... each phase compared" grep -q "^Job remove" "$TMP/out"
"$SBIO" cleanup --dir "$TMP/fsm" >/dev/null 2>&1
printf '%s\nphase "p" { time = 1, job "j" { mix = { stat = 1 } } }\n' \
	'fileset { files = 20, dirwidth = 10, size = "1k", prealloc = 0.5 }' >"$TMP/half.lua"
mkdir -p "$TMP/half"
expect_exit 2 "a tree with files to prepare, no prepare: run refused" \
	"$SBIO" run --script "$TMP/half.lua" --dir "$TMP/half"
check "... naming prepare, nothing made" \
	bash -c "grep -q 'no file tree in .*run sbio prepare' '$TMP/err' && [ -z \"\$(ls -A '$TMP/half')\" ]"
mkdir -p "$TMP/fsm/sbio.tree"
# shellcheck disable=SC2086
expect_exit 2 "fsmark.lua beside a sbio.tree no manifest names: run refused" \
	"$SBIO" run --script workloads/fsmark.lua --dir "$TMP/fsm" $FSM
stderr_one_line "... in one line"
# shellcheck disable=SC2086
expect_exit 2 "... and compare refused before its first run" \
	"$SBIO" compare --script workloads/fsmark.lua --dir "$TMP/fsm" $FSM --schedulers=none --repeat=1
check "... saying why, nothing run" \
	bash -c "grep -q 'sbio.tree is there but no sbio.manifest names it' '$TMP/err' && ! grep -q 'Job remove' '$TMP/out' && [ \"\$(ls -A '$TMP/fsm')\" = sbio.tree ]"

# --- A job on some of the set's files, and appends to a flat set's file ---
# (under strace: each job's system calls)
flat_files() {
cat >"$TMP/files.lua" <<'EOF2'
fileset { sizes = { "1M", "1M", "1M", "1M", "1M", "1M", "1M", "1M", "2M" } }
phase "p" { events = 3000,
  job "readers" { threads = 2, files = "0-7", block = "4k", mix = { read = 1 } },
  job "log" { threads = 1, files = { 8 }, block = "4k", append = "3k",
              mix = { append = 8, read = 1, fdatasync = 1 } },
}
EOF2
F=$TMP/flat
mkdir -p "$F"
expect_exit 0 "9 files (the last 2 MiB): prepare" "$SBIO" prepare --script "$TMP/files.lua" --dir "$F"
rm -f "$RESULT" "$TMP"/trace*
# -ff: a file per thread, so that no call is split in two lines.
strace -ff -qq -y -o "$TMP/trace" -e trace=pread64,pwrite64 \
	"$SBIO" run --script "$TMP/files.lua" --dir "$F" -o "$RESULT" >"$TMP/out" 2>"$TMP/err"
eq "readers on files 0-7, a log writer appending to file 8: run" "$?" 0
cat "$TMP"/trace.* >"$TMP/trace"
cp "$TMP/out" "$TMP/files.out"
# per_file CALL: "N:count" for each test_file.N the call reached, sorted.
per_file() { grep -o "$1([0-9]*<[^>]*/test_file\.[0-9]*>" "$TMP/trace" | sed 's/.*test_file\.//; s/>$//' | sort -n | uniq -c | awk '{ printf "%s:%s ", $2, $1 }'; }
json_expect "each job read only its files: preads on 0-7 = the readers' reads, on 8 = the log's" "$RESULT" "
import re, collections
c = collections.Counter()
for l in open('$TMP/trace'):
    m = re.search(r'pread64\(\d+<[^>]*/test_file\.(\d+)>', l)
    if m: c[int(m.group(1))] += 1
jobs = {j['name']: j['result']['result'] for j in d['phases'][0]['jobs']}
rd = jobs['readers']['op_types']['read']['ops']
lg = jobs['log']['op_types']['read']['ops']
if sum(c[f] for f in range(8)) != rd or c[8] != lg or min(c[f] for f in range(8)) == 0 or lg == 0:
    print('preads per file %s, readers %d, log %d' % (dict(c), rd, lg))"
eq "... and only the log wrote, to file 8 alone" "$(per_file pwrite64)" "$(awk '/pwrite64\(/' "$TMP/trace" | grep -c . | sed 's/^/8:/') "
size8=$(stat -c %s "$F/test_file.8")
wrote=$(json_get "$RESULT" phases.0.jobs.1.result.result.op_types.write.bytes)
eq "file 8 grew by exactly the bytes the log job wrote (JSON)" "$((size8 - 2097152))" "$wrote"
check "... as its report says" bash -c "awk '/^--- Job log/,/^--- Phase/' '$TMP/files.out' | grep -qE '^ *bytes read, written: .*, $(python3 -c "
n = $wrote; print('%.2f MiB' % (n / 1048576) if n >= 1048576 else '%.2f KiB' % (n / 1024))")\$'"
check "... its writes at the file's end, from 2 MiB on, 3 KiB each, never overlapping" python3 -c "
import re, sys
offs = sorted(int(m.group(1)) for m in (re.search(r'pwrite64\(.*, 3072, (\d+)\) = 3072', l) for l in open('$TMP/trace')) if m)
sys.exit(not offs or offs != list(range(2097152, 2097152 + 3072 * len(offs), 3072)))"
json_expect "the JSON's declared jobs say their files as ranges" "$RESULT" "
j = d['phases'][0]['jobs']
if j[0]['declared'].get('files') != [[0, 7]] or j[1]['declared'].get('files') != [[8, 8]]:
    print([x['declared'].get('files') for x in j])"
check "the job lines name their files" \
	bash -c "grep -q '^--- Job readers (2 threads, sync, on files 0-7) ---' '$TMP/files.out' && grep -q '^--- Job log (1 thread, sync, on file 8) ---' '$TMP/files.out'"
expect_exit 0 "a plain read-only run on the grown set: not taken for damaged" \
	"$SBIO" run --dir "$F" --file-num=9 --file-test-mode=rndrd --time=1
eq "... and the file is left as it is" "$(stat -c %s "$F/test_file.8")" "$size8"
expect_exit 0 "the script again: the set is taken" sbio_json run --script "$TMP/files.lua" --dir "$F"
check "... after cutting file 8 back to 2 MiB, saying so" \
	grep -q "put back as prepared (before the run, not measured): 1 file cut back to its size" "$TMP/out"
wrote=$(json_get "$RESULT" phases.0.jobs.1.result.result.op_types.write.bytes)
eq "... and file 8 grew by what this run wrote" "$(($(stat -c %s "$F/test_file.8") - 2097152))" "$wrote"
expect_exit 0 "compare with the script (two runs, each its appends)" \
	"$SBIO" compare --script "$TMP/files.lua" --dir "$F" --schedulers=none --repeat=2
expect_exit 0 "cleanup removes the grown set" "$SBIO" cleanup --dir "$F"
eq "... all of it" "$(ls -A "$F")" ""
}
if command -v strace >/dev/null; then
	flat_files
else
	skip "strace is not installed: the files each job touches cannot be seen"
fi

# bad NAME DESC FIELD [OPTION]: a job declaring FIELD on a flat set of 9 files (or the text
# FIELD whole when it starts with "fileset"), refused in one line, exit 2, nothing made.
bad_files() {
	local name=$1 desc=$2 want=$3 body=$4
	shift 4
	mkdir -p "$TMP/bad.$name"
	printf '%s\n' "$body" >"$TMP/bad.$name.lua"
	expect_exit 2 "$desc: exit 2" "$SBIO" run --script "$TMP/bad.$name.lua" --dir "$TMP/bad.$name" "$@"
	stderr_one_line "$desc: one line"
	check "$desc: says why, names the line, nothing made" \
		bash -c "grep -q -- \"\$1\" '$TMP/err' && [ -z \"\$(ls -A '$TMP/bad.$name')\" ]" _ "$want"
}
NINE='fileset { files = 9, size = "9M" }'
bad_files past "files past the set" "bad.past.lua:3: job j: files: file 9 is not in the set, which has 9 files; accepted: indexes 0 to 8" \
	"$NINE
phase \"p\" { time = 1,
  job \"j\" { files = \"0-7,9\" } }"
bad_files word "files not an index" "bad.word.lua:2: job j: files '0-x': '0-x' is not an index or a range; accepted:" \
	"$NINE
phase \"p\" { time = 1, job \"j\" { files = \"0-x\" } }"
bad_files empty "files an empty list" "bad.empty.lua:2: job j: files is an empty list; accepted:" \
	"$NINE
phase \"p\" { time = 1, job \"j\" { files = {} } }"
bad_files event "files on an event job" "job j: files goes with a mix or a mode other than seqwr" \
	"$NINE
function event(ctx) return false end
phase \"p\" { time = 1, job \"j\" { event = true, files = \"1\" } }"
bad_files tree "files on a tree" "bad.tree.lua:2: job j: files picks files of a flat set" \
	"fileset { files = 20, dirwidth = 10, size = \"1k\" }
phase \"p\" { time = 1, job \"j\" { files = \"1\", mix = { stat = 1 } } }"
bad_files mmap "append with the mmap engine" "job j: append on a flat set writes past the end of its files: the mmap engine" \
	"$NINE
phase \"p\" { time = 1, job \"j\" { engine = \"mmap\", mix = { append = 1 } } }"
bad_files direct "append with O_DIRECT" "job j: append on a flat set writes past the end of its files: flags direct" \
	"$NINE
phase \"p\" { time = 1, job \"j\" { flags = \"direct\", mix = { append = 1 } } }"
bad_files verify "files under --verify" "job j: files: --verify has each thread own blocks over the whole set" \
	"$NINE
phase \"p\" { time = 1, job \"j\" { files = \"0-3\" } }" --verify
