#!/bin/bash
# Workload scripts are programs handed around like data: by default one runs in a sandbox.
# Every escape a script may try — processes (os.execute, io.popen), files (io.open to write or
# to read outside, os.remove/rename, dofile), the FFI, require, package.loadlib, debug,
# getfenv/setfenv, bytecode (loadstring/load of "\27…", string.dump through the string
# metatable, a precompiled script file), os.exit, collectgarbage, newproxy, metatable tricks on
# sbio's tables, raw memory through the per-event ctx — is tried at load, in event() and in
# report(): none runs (a marker file never appears), a victim file keeps its content and mtime,
# the set folder holds only what sbio put there, and sbio exits 2 (load) or 1 (event(),
# report()) with one line, never 0, never killed by a signal. --help runs the script in the
# sandbox even with --script-trusted; --script-trusted lets a script run a command, but never
# os.exit. A script's endless loop (at load, in event() as the JIT would compile it, in
# report()) ends with the time limit, SIGINT and SIGTERM (settings restored, report printed,
# exit 130 for signals), and its memory is capped (one line; the process stays small).
. "$(dirname "$0")/lib.sh"

SET=$TMP/set
MARK=$TMP/marker
VICTIM=$TMP/victim
mkdir -p "$SET"
echo "precious" >"$VICTIM"
touch -d '2020-01-01 00:00:00' "$VICTIM"
# victim_state [FILE]: the victim's (or FILE's) content and mtime.
victim_state() { echo "$(md5sum <"${1:-$VICTIM}") $(stat -c %Y "${1:-$VICTIM}")"; }
V0=$(victim_state)

# script FILE BODY WHERE: a script of one event job over a 1 MiB file whose BODY runs at load
# (WHERE=load), in event() (event) or in report() (report).
script() {
	local load='' ev='' rep=''
	case $3 in
	load) load=$2 ;;
	event) ev=$2 ;;
	report) rep=$2 ;;
	esac
	cat >"$1" <<LUA
fileset { files = 1, size = "1M" }
phase "p" { time = 0, events = 5, job "j" { threads = 1, block = "4k", event = true } }
$load
function event(ctx)
    $ev
    ctx.op, ctx.file, ctx.offset, ctx.len = sbio.READ, 0, 0, 4096
    return true
end
function report(result)
    $rep
end
LUA
}

script "$TMP/plain.lua" "" load
expect_exit 0 "a plain event script prepares its set" "$SBIO" prepare --dir="$SET" --script "$TMP/plain.lua"
SET0=$(ls -A "$SET" | paste -sd ' ')

# Each escape, as Lua: what it would do if it worked is touch the marker MARK or change the
# victim VICTIM. escapes MARK VICTIM: the list in ESCAPES.
escapes() {
	ESCAPES=(
		"os.execute('touch $1')"
		"io.popen('touch $1')"
		"io.open('$1', 'w'):write('x')"
		"local s = io.open('/etc/shadow'):read('*a')"
		"io.lines('$2')"
		"os.remove('$2')"
		"os.rename('$2', '$1')"
		"dofile('$2')"
		"loadfile('$2')"
		"require('ffi').C.system('touch $1')"
		"ffi.C.system('touch $1')"
		"require('os').execute('touch $1')"
		"package.loadlib('libc.so.6', 'system')"
		"debug.getregistry()"
		"debug.sethook()"
		"getfenv(0).os.execute('touch $1')"
		"setfenv(1, {})"
		"jit.on()"
		"loadstring('\\\\27LJ\\\\2')()"
		"load('\\\\27LJ\\\\2')()"
		"loadstring('os.execute([[touch $1]])')()"
		"string.dump(function() end)"
		"local d = ('').dump; d(function() end)"
		"getmetatable('').__index.dump(function() end)"
		"rawget(getmetatable(''), '__index').execute('touch $1')"
		"os.exit(0)"
		"os.getenv('HOME'):len()"
		"collectgarbage('stop')"
		"newproxy(true)"
		"_G.os.execute('touch $1')"
		"module('x')"
		"local c = sbio.new_ctx(); local p = c + 1"
		"local c = sbio.new_ctx(); c[100000] = 1"
		"local c = sbio.new_ctx(); c.nope = 1"
	)
}
# The escapes run in two lanes side by side (none is timed): lane K takes the escapes whose
# number is K modulo 2, in its folder $TMP/laneK with a marker, a victim (the same content and
# mtime) and a copy of the set of its own, so each check sees only what its own escape did.
# Its TAP lines go to $TMP/laneK/tap, printed once both lanes are done.
escape_lane() {
	local k=$1 L=$TMP/lane$1 e n=0 where want rc
	local LM=$L/marker LV=$L/victim LS=$L/set
	mkdir -p "$L"
	cp -a "$VICTIM" "$LV"
	cp -a "$SET" "$LS"
	escapes "$LM" "$LV"
	for e in "${ESCAPES[@]}"; do
		n=$((n + 1))
		[ $((n % 2)) -eq "$k" ] || continue
		for where in load event report; do
			script "$L/esc.lua" "$e" "$where"
			want=1
			[ "$where" = load ] && want=2
			"$SBIO" run --dir="$LS" --script "$L/esc.lua" --ioengine=null >"$L/out" 2>"$L/err"
			rc=$?
			if [ "$rc" -ne "$want" ]; then
				notok "escape $n in $where ($e): exit $rc, want $want; stderr: $(head -c 300 "$L/err" | tr '\n' ' ')"
			elif [ "$(grep -c '^sbio: ' "$L/err")" -lt 1 ] || ! grep -q 'esc.lua' "$L/err"; then
				notok "escape $n in $where ($e): no line naming the script: $(head -c 300 "$L/err" | tr '\n' ' ')"
			elif [ -e "$LM" ] || [ "$(victim_state "$LV")" != "$V0" ] || [ "$(ls -A "$LS" | paste -sd ' ')" != "$SET0" ]; then
				notok "escape $n in $where ($e): something was touched"
				rm -f "$LM"
			else
				ok "escape $n in $where refused, nothing touched: $e"
			fi
		done
		# --help reads the script's options: in the sandbox too, whatever --script-trusted says.
		script "$L/esc.lua" "$e" load
		"$SBIO" --script "$L/esc.lua" --script-trusted --help >"$L/out" 2>"$L/err"
		rc=$?
		if [ -e "$LM" ] || [ "$(victim_state "$LV")" != "$V0" ] || [ "$rc" -ne 2 ]; then
			notok "escape $n under --help --script-trusted: exit $rc, marker $([ -e "$LM" ] && echo present || echo absent)"
			rm -f "$LM"
		else
			ok "escape $n under --help --script-trusted: refused (sandboxed), nothing touched"
		fi
	done >"$L/tap"
}
escape_lane 0 &
lane0=$!
escape_lane 1
wait "$lane0"
cat "$TMP/lane0/tap" "$TMP/lane1/tap"
escapes "$MARK" "$VICTIM"
eq "every escape was tried, in one lane or the other" \
	"$(cat "$TMP/lane0/tap" "$TMP/lane1/tap" | grep -c '^\(not \)\?ok - [^:]*: escape [0-9]* ')" $((4 * ${#ESCAPES[@]}))

# sbio's own tables changed by the script: the event hook takes the ctx, sbio.rand and the
# file sizes from the prelude, not from what the script left in sbio.
script "$TMP/tamper.lua" "sbio.new_ctx = function() return ('x'):rep(4) end; sbio.files = 5; sbio.rand = nil
setmetatable(sbio, {__newindex = function() os.execute('touch $MARK') end})" load
expect_exit 0 "sbio's table changed by the script: the run uses the prelude's own" \
	"$SBIO" run --dir="$SET" --script "$TMP/tamper.lua" --ioengine=null
check "sbio's table changed: 5 reads made" grep -qE 'reads, writes, syncs done: +5, 0, 0' "$TMP/out"
check "sbio's table changed: no marker" test ! -e "$MARK"

# A job handle cannot be changed once its job is checked.
printf 'fileset { files = 1, size = "1M" }\nlocal j = job "j" { threads = 1 }\nj.threads = 1e9\nphase "p" { j }\n' >"$TMP/handle.lua"
expect_exit 2 "a job's handle is read-only" "$SBIO" run --dir="$SET" --script "$TMP/handle.lua"
check "a job's handle is read-only: the line says so" grep -q 'handle.lua:3: a job is read-only' "$TMP/err"

# A precompiled script (LuaJIT bytecode, run unverified) is refused, trusted or not.
printf 'os.execute("touch %s")\n' "$MARK" >"$TMP/bc.src.lua"
if luajit -b "$TMP/bc.src.lua" "$TMP/bc.lua" 2>/dev/null; then
	for t in off on; do
		expect_exit 2 "a bytecode script is refused (--script-trusted=$t)" \
			"$SBIO" run --dir="$SET" --script "$TMP/bc.lua" --script-trusted=$t
		check "a bytecode script (--script-trusted=$t): no marker, the message says so" \
			bash -c "[ ! -e '$MARK' ] && grep -q 'bc.lua: a precompiled (bytecode) script; sbio runs Lua source only' '$TMP/err'"
	done
else
	notok "luajit -b cannot make a bytecode file"
fi

# --script-trusted: all of Lua (a command runs), but never os.exit.
script "$TMP/trusted.lua" "os.execute('touch $MARK')" load
expect_exit 0 "--script-trusted: the script may run a command" \
	"$SBIO" run --dir="$SET" --script "$TMP/trusted.lua" --script-trusted --ioengine=null
check "--script-trusted: the command ran" test -e "$MARK"
rm -f "$MARK"
script "$TMP/exit.lua" "os.exit(0)" event
expect_exit 1 "--script-trusted: os.exit in event() fails the run, not exit 0" \
	"$SBIO" run --dir="$SET" --script "$TMP/exit.lua" --script-trusted --ioengine=null
check "--script-trusted: os.exit: the report is printed" grep -q 'total number of events' "$TMP/out"
check "--script-trusted: os.exit: the message says why" grep -q 'os.exit is not available to a script' "$TMP/err"

# Trust is given on the command line where the script is run, never by a file.
echo "script-trusted=on" >"$TMP/conf"
expect_exit 2 "script-trusted in a --config-file is refused" \
	"$SBIO" run --dir="$SET" --script "$TMP/plain.lua" --config-file="$TMP/conf" --ioengine=null
check "script-trusted in a --config-file: one line saying so" \
	grep -q 'script-trusted is taken from the command line only' "$TMP/err"

# --- limits: endless loops and memory ---
# ends_within SECS DESC CMD…: CMD ends by itself within SECS (a generous bound, never a
# duration asserted); its status in $TMP/rc.
ends_within() {
	local secs=$1 desc=$2 i
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" &
	local pid=$!
	PIDS+=("$pid")
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		notok "$desc: still running after $secs s"
		kill -KILL "$pid"
	else
		ok "$desc"
	fi
	wait "$pid"
	echo $? >"$TMP/rc"
}
trap 'kill_pids; t_cleanup' EXIT

# The cases that run until a limit in seconds stops them (a declaration's or report()'s 10 s,
# the 1 s after --time) run side by side, each with its own files: each ends by its own
# clock, and none is checked for how long it took, only for ending within a generous bound of
# its own start. A run among them has a copy of the set of its own (an event script's run
# takes its set alone: on a shared one it would be refused, with the same exit status). bg_start NAME CMD…: CMD in the background, stdout and stderr in $TMP/NAME.out
# and $TMP/NAME.err. bg_end NAME SECS DESC: CMD ended by itself within SECS of its start, else
# it is killed (not ok); its status in $TMP/NAME.rc.
declare -A BG_PID BG_START
bg_start() {
	local name=$1
	shift
	"$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	BG_PID[$name]=$!
	BG_START[$name]=$SECONDS
	PIDS+=("$!")
}
bg_end() {
	local name=$1 secs=$2 desc=$3 pid=${BG_PID[$1]}
	while kill -0 "$pid" 2>/dev/null && [ $((SECONDS - BG_START[$name])) -lt "$secs" ]; do
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		notok "$desc: still running after $secs s"
		kill -KILL "$pid"
	else
		ok "$desc"
	fi
	wait "$pid"
	echo $? >"$TMP/$name.rc"
}

# Loops as LuaJIT's JIT would compile them: the script runs interpreted, so the hook sees them.
# Each case's script is loop.lua in a folder of its own (the messages name it).
LOOPS=("while true do end" "local t = {} for i = 1, 1e12 do t[i % 100 + 1] = i end")
for i in "${!LOOPS[@]}"; do
	mkdir -p "$TMP/decl$i" "$TMP/rep$i"
	script "$TMP/decl$i/loop.lua" "${LOOPS[$i]}" load
	bg_start decl$i "$SBIO" --script "$TMP/decl$i/loop.lua" --help
	script "$TMP/rep$i/loop.lua" "${LOOPS[$i]}" report
	cp -a "$SET" "$TMP/rep$i/set"
	bg_start rep$i "$SBIO" run --dir="$TMP/rep$i/set" --script "$TMP/rep$i/loop.lua" --ioengine=null
done
# pcall cannot keep a stopped script going.
mkdir -p "$TMP/pcall"
script "$TMP/pcall/loop.lua" "while true do pcall(function() while true do end end) end" load
bg_start pcall "$SBIO" --script "$TMP/pcall/loop.lua" --help

# Pattern matching runs in C, where the hook cannot reach: a backtracking pattern that would
# take minutes is refused before it starts, as a function and as a method.
for call in "string.find(('a'):rep(28), ('a?'):rep(28) .. ('a'):rep(28))" "local x = (('a'):rep(28)):match(('a?'):rep(28) .. ('a'):rep(28))" "local n = 0 for w in ('a'):rep(1e6):gmatch('.-.-b') do n = n + 1 end"; do
	script "$TMP/pat.lua" "$call" load
	ends_within 60 "a pattern that backtracks for minutes ($call) ends" "$SBIO" --script "$TMP/pat.lua" --help
	eq "a pattern that backtracks for minutes: exit 2" "$(cat "$TMP/rc")" 2
	check "a pattern that backtracks for minutes: one line saying why" grep -q "could take too long" "$TMP/err"
done

# event() stuck in a loop: the time limit, SIGINT and SIGTERM end the run.
cat >"$TMP/stuck.lua" <<'LUA'
fileset { files = 1, size = "1M" }
phase "p" { time = 0, job "j" { threads = 1, block = "4k", event = true } }
option("time", 0, "phase time")
phase "timed" { time = options.time, job "k" { threads = 1, block = "4k", event = true } }
local n = 0
function event(ctx)
    n = n + 1
    if n > 50 then
        local t = {}
        for i = 1, 1e12 do t[i % 100 + 1] = i end
    end
    ctx.op, ctx.file, ctx.offset, ctx.len = sbio.READ, 0, 0, 4096
    return true
end
LUA
sed -i 's/^phase "p".*$//' "$TMP/stuck.lua"
cp -a "$SET" "$TMP/stuckset"
bg_start stuck "$SBIO" run --dir="$TMP/stuckset" --script "$TMP/stuck.lua" --time=1 --ioengine=null
for sig in INT TERM; do
	"$SBIO" run --dir="$SET" --script "$TMP/stuck.lua" --ioengine=null >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	PIDS+=("$pid")
	for ((i = 0; i < 300; i++)); do grep -q '^=== Phase' "$TMP/out" 2>/dev/null && break; sleep 0.1; done
	sleep 0.5
	kill -"$sig" "$pid"
	for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		notok "event() stuck, SIG$sig: still running 30 s after the signal"
		kill -KILL "$pid"
	else
		ok "event() stuck, SIG$sig: sbio ends"
	fi
	wait "$pid"
	eq "event() stuck, SIG$sig: exit 130" "$?" 130
	check "event() stuck, SIG$sig: the report is printed" grep -q "Interrupted by SIG$sig" "$TMP/out"
done

# Memory: a table that grows without end stops at the cap with one line; the process stays
# small (its peak resident size under 1 GiB, the cap being 256 MiB).
script "$TMP/mem.lua" "local t = {} while true do t[#t + 1] = {} end" load
/usr/bin/time -f '%M' -o "$TMP/rss" "$SBIO" --script "$TMP/mem.lua" --help >"$TMP/out" 2>"$TMP/err"
eq "a table without end: exit 2" "$?" 2
check "a table without end: one line saying the cap" grep -q "^sbio: $TMP/mem.lua: the script uses more than 256 MiB of memory, a script's limit$" "$TMP/err"
check "a table without end: peak RSS under 1 GiB ($(cat "$TMP/rss") KiB)" test "$(tail -n 1 "$TMP/rss")" -lt 1048576
script "$TMP/mem.lua" "local t = {} while true do pcall(function() t[#t + 1] = ('x'):rep(1e6) .. #t end) end" event
ends_within 60 "event()'s growing strings, their errors caught by pcall: the run ends" "$SBIO" run --dir="$SET" --script "$TMP/mem.lua" --ioengine=null
eq "event()'s growing strings: exit 1" "$(cat "$TMP/rc")" 1
check "event()'s growing strings: the memory line" grep -q "the script uses more than 256 MiB of memory" "$TMP/err"

# The side-by-side cases: each ended, with its status and its one line.
for i in "${!LOOPS[@]}"; do
	loop=${LOOPS[$i]}
	bg_end decl$i 60 "a declaration's endless loop ($loop) ends"
	eq "a declaration's endless loop ($loop): exit 2" "$(cat "$TMP/decl$i.rc")" 2
	check "a declaration's endless loop ($loop): one line naming the script's line" \
		grep -q "^sbio: $TMP/decl$i/loop.lua:3: still running after 10 s" "$TMP/decl$i.err"
	bg_end rep$i 60 "report()'s endless loop ($loop) ends"
	eq "report()'s endless loop: exit 1" "$(cat "$TMP/rep$i.rc")" 1
	check "report()'s endless loop ($loop): the line says the limit" \
		grep -q "^sbio: report(): $TMP/rep$i/loop.lua:[0-9]*: still running after 10 s" "$TMP/rep$i.err"
done
bg_end pcall 60 "an endless loop inside pcall inside a loop ends"
eq "an endless loop inside pcall: exit 2" "$(cat "$TMP/pcall.rc")" 2
bg_end stuck 60 "event() stuck in a loop: --time ends it"
eq "event() stuck, --time: exit 1 (the script did not return)" "$(cat "$TMP/stuck.rc")" 1
check "event() stuck, --time: the report is printed" grep -q 'total number of events' "$TMP/stuck.out"
check "event() stuck, --time: the line it was stuck at" grep -q "stuck.lua:10: still running 1 s after sbio was asked to stop (the time limit)" "$TMP/stuck.err"

check "after everything: no marker" test ! -e "$MARK" -a ! -e "$TMP/lane0/marker" -a ! -e "$TMP/lane1/marker"
for v in "$VICTIM" "$TMP/lane0/victim" "$TMP/lane1/victim"; do
	eq "after everything: the victim $v is unchanged" "$(victim_state "$v")" "$V0"
done
