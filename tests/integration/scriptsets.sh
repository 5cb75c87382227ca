#!/bin/bash
# What a script's jobs do to the set, as doc/scripting.md says, in a plain folder:
# - on a file tree, the creates, appends and whole-file writes that write data are counted in
#   sysbench's lines ("writes/s", "reads, writes, syncs done") beside the bytes they wrote,
#   and the whole-file reads beside the bytes read: the text's counts equal the JSON's op
#   types, and the bytes written are the creates' files;
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
