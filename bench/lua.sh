#!/bin/bash
# Built-in rndrd vs the same workload as a declarative script and through the per-event hook:
# 4 KiB uniform reads of one 256 MiB file held in the page cache (mlock), 1 and 2 threads,
# interleaved (builtin, decl, event, … for each thread count), ROUNDS rounds of SECS s.
set -eu
export LC_ALL=C
SBIO=${SBIO:-$(cd "$(dirname "$0")/.." && pwd)/sbio}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
DIR=$(mktemp -d /var/tmp/sbio-lua-bench.XXXXXX)
LOCKPID=
finish() { [ -n "$LOCKPID" ] && kill "$LOCKPID" 2>/dev/null && wait "$LOCKPID" 2>/dev/null; rm -rf "$DIR"; }
trap finish EXIT
gcc -O2 -o "$DIR/mlockfile" "$(dirname "$0")/mlockfile.c"
cat >"$DIR/decl.lua" <<'L'
-- the built-in rndrd as a declarative mix: 4 KiB uniform reads of one file
option("threads", 1, "threads")
option("time", 3, "seconds")
fileset { files = 1, size = "256M" }
phase "rndrd" { time = options.time,
    job "j" { threads = options.threads, block = "4k", pattern = "uniform", mix = { read = 1 } } }
L
cat >"$DIR/event.lua" <<'L'
-- the built-in rndrd through the per-event hook
option("threads", 1, "threads")
option("time", 3, "seconds")
fileset { files = 1, size = "256M" }
phase "rndrd" { time = options.time, job "j" { threads = options.threads, block = "4k", event = true } }
local n
function event(ctx)
    n = n or sbio.files[1] / 4096
    ctx.op = sbio.READ
    ctx.file = 0
    ctx.offset = sbio.rand(n) * 4096
    ctx.len = 4096
    return true
end
L
"$SBIO" prepare --dir="$DIR" --script "$DIR/decl.lua" >/dev/null
"$DIR/mlockfile" "$DIR/test_file.0" "$DIR/locked" &
LOCKPID=$!
while [ ! -e "$DIR/locked" ] && kill -0 "$LOCKPID" 2>/dev/null; do sleep 0.1; done
[ -e "$DIR/locked" ] || { echo "not locked" >&2; exit 1; }
# one: VARIANT THREADS -> "reads/s cpu_s" (cpu: user + system of the run, from the report)
one() {
	local out
	case $1 in
	builtin) out=$("$SBIO" run --dir="$DIR" --file-num=1 --file-total-size=256M --file-block-size=4K \
		--file-test-mode=rndrd --time="$SECS" --threads="$2") ;;
	decl | event) out=$("$SBIO" run --dir="$DIR" --script "$DIR/$1.lua" --time="$SECS" --threads="$2") ;;
	esac
	awk '/^ *reads\/s:/ && !r { r = $2 } /^ *total number of events:/ && !e { e = $NF }
		/^CPU:/ && !c { if (match($0, /\(([0-9.]+) s user, ([0-9.]+) s system/)) { split(substr($0, RSTART + 1, RLENGTH - 1), a, " "); c = a[1] + a[4] } }
		END { printf "%s %s %s\n", r, e, c }' <<<"$out"
}
for r in $(seq "$ROUNDS"); do
	for t in 1 2; do
		for v in builtin decl event; do
			echo "$r $t $v $(one $v $t)"
		done
	done
done
