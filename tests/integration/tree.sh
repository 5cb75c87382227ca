#!/bin/bash
# File trees (fileset { files, dirwidth, size, prealloc }): prepare makes what the layout rule
# says (count, paths, sizes), a run's open puts back what runs changed, cleanup leaves the
# folder as it was before prepare, a foreign file or a symlink in the tree stops prepare, run
# and cleanup with nothing touched; bad declarations are one line naming the script's line.
# On a plain folder and, as root, on ext4 on a loop device of the test's own.
source "$(dirname "$0")/lib.sh"
trap 'loop_cleanup "$TMP/mnt"; t_cleanup' EXIT

# tree.lua prepares and cleans up; run.lua, the same tree, runs a phase that only stats.
FILESET='fileset { files = 2000, dirwidth = 10, prealloc = 0.5,
          size = { law = "gamma", mean = "16k", cvar = 1.5 } }'
printf '%s\nphase "p" { time = 1, job "j" { block = "4k" } }\n' "$FILESET" >"$TMP/tree.lua"
printf '%s\nphase "p" { time = 1, job "j" { mix = { stat = 1 } } }\n' "$FILESET" >"$TMP/run.lua"

# listing DIR: every entry under DIR with its type, mode and size (directories' sizes
# aside: ext4 keeps a folder's size after its entries go).
listing() { find "$1" -mindepth 1 -printf '%P %y %m %s\n' | awk '$2 == "d" { $4 = "-" } 1' | sort; }
# sums DIR: the md5 of every file under DIR.
sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r md5sum); }
# state DIR: listing and sums, for "nothing touched".
state() { listing "$1"; sums "$1"; }

# The files under DIR/sbio.tree against the rule for 2000 slots, 10 a folder (200 leaves, 3
# levels), prealloc 0.5: exactly f0 .. f999, each in its leaf; sizes from the gamma law.
rule_check() { # DIR WHERE
	local bad
	bad=$(cd "$1/sbio.tree" && find . -type f | python3 -c '
import sys
want = {"./d%d/d%d/d%d/f%d" % (s // 10 // 100, s // 10 // 10 % 10, s // 10 % 10, s) for s in range(1000)}
got = set(l.strip() for l in sys.stdin)
if got != want:
    print("missing %s, extra %s" % (sorted(want - got)[:3], sorted(got - want)[:3]))')
	eq "$2: the prepared files are f0 .. f999, each in its leaf" "$bad" ""
	bad=$(find "$1/sbio.tree" -type f -printf '%s\n' | python3 -c '
import sys, statistics
v = [int(l) for l in sys.stdin]
m = statistics.mean(v); cv = statistics.pstdev(v) / m
if not (0.85 * 16384 < m < 1.15 * 16384 and 1.1 < cv < 1.9 and min(v) >= 1):
    print("mean %.0f, cv %.2f, min %d" % (m, cv, min(v)))')
	eq "$2: sizes follow the gamma law (mean 16 KiB within 15%, cvar 1.5)" "$bad" ""
	eq "$2: 223 folders (200 leaves, 20 and 2 above them, sbio.tree)" \
		"$(find "$1/sbio.tree" -type d | wc -l)" 223
	local big
	big=$(find "$1/sbio.tree" -type f -size +8k | head -1)
	check "$2: files hold fill bytes, not zeros" test "$(head -c 4096 "$big" | tr -d '\0' | wc -c)" -gt 3000
}

# What runs do to a tree: prepared files removed, files made in free slots, one grown, an m…
# folder in a leaf.
mess() { # DIR
	local t=$1/sbio.tree
	rm -f "$t/d0/d0/d0/f0" "$t/d0/d0/d0/f3" "$t/d0/d9/d9/f999"
	echo new >"$t/d1/d0/d0/f1000"
	head -c 5000 /dev/zero >"$t/d1/d9/d9/f1999"
	echo more >>"$t/d0/d0/d1/f10"
	mkdir -p "$t/d0/d4/d2/m1_0_0"
}

# A run that creates, deletes, renames, appends and makes folders, killed (SIGKILL) midway:
# the next run's open puts the tree back (sizes: the files runs made again hold their own
# bytes), and after another such run cleanup leaves the folder as before prepare (place).
printf '%s\nphase "p" { time = 30, job "j" { threads = 2, mix = { create = 2, unlink = 2, rename = 1, mkdir = 1, append = 1, stat = 1 } } }\n' \
	"$FILESET" >"$TMP/churn.lua"
churn_killed() { # DIR: killed once the tree changed (up to 60 s: a loaded machine starts late)
	local p i l0
	l0=$(listing "$1")
	"$SBIO" run --script "$TMP/churn.lua" --dir "$1" >/dev/null 2>&1 &
	p=$!
	for ((i = 0; i < 600; i++)); do
		[ "$(listing "$1" 2>/dev/null)" != "$l0" ] && break
		sleep 0.1
	done
	sleep 0.5
	kill -KILL "$p"
	{ wait "$p"; } 2>/dev/null
}
churn() { # DIR WHERE PREPARED-LISTING
	churn_killed "$1"
	check "$2: a killed run left the tree changed" test "$(listing "$1")" != "$3"
	expect_exit 0 "$2: a run after a killed one" "$SBIO" run --script "$TMP/run.lua" --dir "$1"
	check "$2: ... puts back what the killed run changed" grep -q "put back as prepared" "$TMP/out"
	eq "$2: ... to prepare's listing" "$(listing "$1")" "$3"
	churn_killed "$1"
}

place() { # DIR WHERE
	local d=$1 w=$2 before prepared
	echo keep >"$d/keep.txt"
	before=$(listing "$d")
	expect_exit 0 "$w: prepare a tree" "$SBIO" prepare --script "$TMP/tree.lua" --dir "$d" --rand-seed=7
	check "$w: prepare says the shape in one line" grep -q \
		"2000 slots in 223 folders (10 per folder, 3 levels deep); 1000 files (prealloc 0.5), 1000 made now, .* in all; sizes gamma, mean 16 KiB, cvar 1.5" "$TMP/out"
	rule_check "$d" "$w"
	prepared=$(state "$d")
	expect_exit 2 "$w: a run without the tree's script is refused" "$SBIO" run --dir "$d" --time=1 --file-test-mode=rndrd
	check "$w: ... saying the folder holds a file tree" grep -q "holds a file tree" "$TMP/err"
	mess "$d"
	expect_exit 0 "$w: a run after a run's changes" "$SBIO" run --script "$TMP/run.lua" --dir "$d" --time=1
	check "$w: the run says what it put back" grep -q \
		"put back as prepared (before the run, not measured): 3 files made again, 1 resized, 2 removed, 0 folders made, 1 of a run's folders removed" "$TMP/out"
	eq "$w: the tree is back as prepare left it (listing and md5)" "$(state "$d")" "$prepared"
	mess "$d"
	expect_exit 0 "$w: prepare after a run's changes" "$SBIO" prepare --script "$TMP/tree.lua" --dir "$d"
	eq "$w: prepare put the tree back too (listing and md5)" "$(state "$d")" "$prepared"
	churn "$d" "$w" "$(listing "$d")"
	# A foreign file, then a symlink (to a file outside), stop everything with nothing touched.
	echo x >"$TMP/outside"
	local foreign
	for foreign in "touch $d/sbio.tree/d0/d3/junk" "ln -s $TMP/outside $d/sbio.tree/d1/d0/d0/f1005" \
		"mkdir $d/sbio.tree/d0/d0/d2/m0_0_0 && touch $d/sbio.tree/d0/d0/d2/m0_0_0/f"; do
		eval "$foreign"
		local s0 c
		s0=$(state "$d")
		# The run is refused as it opens the tree, before any phase: tree.lua's job will do.
		for c in "prepare --script $TMP/tree.lua" "run --script $TMP/tree.lua --time=1" cleanup; do
			# shellcheck disable=SC2086
			expect_exit 2 "$w: ${foreign%% *} in the tree: ${c%% *} refused" "$SBIO" $c --dir "$d"
			stderr_one_line "$w: ${foreign%% *}: ${c%% *} says it in one line"
			check "$w: ${foreign%% *}: ${c%% *} names it" grep -q "not part of the sbio file tree" "$TMP/err"
			eq "$w: ${foreign%% *}: ${c%% *} touched nothing" "$(state "$d")" "$s0"
		done
		eq "$w: the symlink's target is untouched" "$(cat "$TMP/outside")" x
		rm -rf "$d/sbio.tree/d0/d3/junk" "$d/sbio.tree/d1/d0/d0/f1005" "$d/sbio.tree/d0/d0/d2/m0_0_0"
	done
	# Another set in the way.
	expect_exit 2 "$w: a flat prepare over the tree is refused" "$SBIO" prepare --dir "$d" --file-num=2
	check "$w: ... saying it holds a file tree" grep -q "holds a file tree" "$TMP/err"
	mess "$d"
	expect_exit 0 "$w: cleanup without --script finds the tree" "$SBIO" cleanup --dir "$d"
	eq "$w: after cleanup the folder is as before prepare" "$(listing "$d")" "$before"
	expect_exit 0 "$w: a flat set" "$SBIO" prepare --dir "$d" --file-num=2 --file-total-size=1M
	expect_exit 2 "$w: a tree prepare over a flat set is refused" \
		"$SBIO" prepare --script "$TMP/tree.lua" --dir "$d"
	check "$w: ... saying it holds a flat set" grep -q "holds a flat file set" "$TMP/err"
	"$SBIO" cleanup --dir "$d" >/dev/null
}

mkdir -p "$TMP/plain"
place "$TMP/plain" "folder"

# An interrupted prepare (SIGINT) leaves an incomplete tree that runs refuse and prepare
# completes; after a SIGKILL midway, cleanup still leaves the folder as it was.
printf 'fileset { files = 30000, dirwidth = 10, size = "4k" }\nphase "p" { time = 1, job "j" { block = "4k" } }\n' >"$TMP/big.lua"
stop_prepare() { # DIR SIGNAL: prepare stopped once slot 5 is written; its exit status
	local p i
	"$SBIO" prepare --script "$TMP/big.lua" --dir "$1" >/dev/null 2>"$TMP/err" &
	p=$!
	for i in $(seq 2000); do
		[ -e "$1/sbio.tree/d0/d0/d0/d0/f5" ] && break
		sleep 0.005
	done
	kill -"$2" "$p"
	{ wait "$p"; } 2>/dev/null
}
d=$TMP/stopped
mkdir -p "$d"
echo keep >"$d/keep.txt"
before=$(listing "$d")
stop_prepare "$d" INT
eq "interrupted prepare: exit 130" "$?" 130
eq "interrupted prepare: the manifest says incomplete" "$(sed -n 's/^state=//p' "$d/sbio.manifest")" incomplete
check "interrupted prepare: it says how to go on" grep -q "run sbio prepare again" "$TMP/err"
expect_exit 2 "interrupted prepare: a run refuses the tree" "$SBIO" run --script "$TMP/big.lua" --dir "$d"
check "interrupted prepare: ... saying it is incomplete" grep -q "is incomplete" "$TMP/err"
expect_exit 0 "interrupted prepare: prepare again completes it" "$SBIO" prepare --script "$TMP/big.lua" --dir "$d"
eq "interrupted prepare: then every file has its size" \
	"$(find "$d/sbio.tree" -type f -size 4k | wc -l) $(sed -n 's/^state=//p' "$d/sbio.manifest")" "30000 complete"
"$SBIO" cleanup --dir "$d" >/dev/null
stop_prepare "$d" KILL
check "killed prepare: some files were made" test -e "$d/sbio.tree/d0/d0/d0/d0/f5"
expect_exit 0 "killed prepare: cleanup" "$SBIO" cleanup --dir "$d"
eq "killed prepare: cleanup leaves the folder as before prepare" "$(listing "$d")" "$before"

# Bad declarations: exit 2, one line naming the script's line, nothing made.
bad() { # DESC DECL WANT
	printf -- '-- a comment\n\nfileset { %s }\nphase "p" { time = 1, job "j" { } }\n' "$2" >"$TMP/bad.lua"
	mkdir -p "$TMP/empty"
	expect_exit 2 "bad input: $1: exit 2" "$SBIO" prepare --script "$TMP/bad.lua" --dir "$TMP/empty"
	stderr_one_line "bad input: $1: one line"
	check "bad input: $1: names the script's line and says what is accepted" \
		grep -q "bad.lua:3: fileset: .*$3" "$TMP/err"
	eq "bad input: $1: nothing made" "$(ls -A "$TMP/empty")" ""
}
bad "files 0" "files = 0, dirwidth = 10" "files must be a whole number from 1"
bad "dirwidth 1" "files = 10, dirwidth = 1" "dirwidth (files per folder) must be a whole number from 2"
bad "prealloc 1.5" "files = 10, dirwidth = 4, prealloc = 1.5" "from 0 to 1"
bad "uniform min > max" 'files = 10, dirwidth = 4, size = { law = "uniform", min = "64k", max = "4k" }' \
	"min is above max"
bad "gamma cvar 0" 'files = 10, dirwidth = 4, size = { law = "gamma", mean = "16k", cvar = 0 }' \
	"cvar must be a finite number > 0"
bad "lognormal sigma inf" 'files = 10, dirwidth = 4, size = { law = "lognormal", mean = "16k", sigma = 1/0 }' \
	"sigma must be a finite number > 0"
bad "unknown law" 'files = 10, dirwidth = 4, size = { law = "pareto", mean = "16k" }' \
	"accepted: uniform (min, max), lognormal"
# A tree deeper than PATH_MAX under a long --dir.
long=$TMP/long
for _ in $(seq 16); do long=$long/$(printf 'x%.0s' $(seq 248)); done
mkdir -p "$long"
printf 'fileset { files = 100000000, dirwidth = 2 }\nphase "p" { time = 1, job "j" { } }\n' >"$TMP/deep.lua"
expect_exit 2 "bad input: deeper than PATH_MAX: exit 2" "$SBIO" prepare --script "$TMP/deep.lua" --dir "$long"
stderr_one_line "bad input: deeper than PATH_MAX: one line"
check "bad input: deeper than PATH_MAX: says so at the script's line" \
	grep -q "deep.lua:1: fileset: .*above PATH_MAX" "$TMP/err"
eq "bad input: deeper than PATH_MAX: nothing made" "$(ls -A "$long")" ""

if need_root; then
	loop_ext4 256M "$TMP/mnt"
	place "$TMP/mnt" "ext4 on a loop device"
else
	skip "ext4 on a loop device needs root"
fi
