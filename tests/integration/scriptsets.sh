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
