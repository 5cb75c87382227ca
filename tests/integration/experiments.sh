#!/bin/bash
# bench/experiments.sh when an experiment cannot run: its section says why, the other
# experiments' tables are printed, the exit code is 1; bad settings: one line, exit 2.
# Tiny settings (a few seconds): the experiments themselves are make experiments' work.
. "$(dirname "$0")/lib.sh"
EXP=$(cd "$(dirname "$0")/../.." && pwd)/bench/experiments.sh
export SBIO

if ! command -v python3 >/dev/null; then
	skip "python3 is needed (make experiments installs it)"
	exit 0
fi
# The original tools are stubs on PATH (make test does not install them): fs_mark refuses a
# -d path of 40 bytes or more, as fs_mark 3.3 does, and prints a table of its format.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/fs_mark" <<'STUB'
#!/bin/bash
while getopts d:n:s:t: o; do [ "$o" = d ] && d=$OPTARG; done
[ "${#d}" -lt 40 ] || { echo "fs_mark: directory name too long: $d" >&2; exit 1; }
[ -d "$d" ] || { echo "fs_mark: no folder $d" >&2; exit 1; }
printf '\nFSUse%%        Count         Size    Files/sec     App Overhead\n'
printf '    68            5        51200       1217.1              454\n'
STUB
chmod +x "$TMP/bin/fs_mark"
export PATH="$TMP/bin:$PATH"
# bench/samework.sh (the same-work check: root, loop devices) as a stub: it logs each cell's
# name and prints a table of samework.sh's format; a cell whose name matches the pattern
# SW_DIFFER has sbio's writes 10% under the original's (marked <<, exit 1).
cat >"$TMP/samework" <<'STUB'
#!/bin/bash
while [ $# -gt 0 ]; do [ "$1" = --name ] && name=$2; shift; done
echo "$name" >>"${SW_LOG:-/dev/null}"
echo "same work: $name"
printf '  %-16s %12s %12s %7s\n' figure original sbio ratio
printf '  %-16s %12s %12s %7s %s\n' "write sectors" 2048 2048 1.000 ""
# shellcheck disable=SC2053 # a pattern
if [[ $name == ${SW_DIFFER:-no cell} ]]; then
	printf '  %-16s %12s %12s %7s %s\n' writes 100 90 0.900 "<<"
	echo "  differ by more than 2%: writes"
	exit 1
fi
printf '  %-16s %12s %12s %7s %s\n' writes 100 100 1.000 ""
STUB
chmod +x "$TMP/samework"
export SAMEWORK=$TMP/samework

# A folder whose path is too long for fs_mark (40 bytes): it runs through a link of a short
# path in /tmp, the section says so, and the link is removed at the end.
LONG=$TMP/a-folder-with-a-rather-long-name-for-fs_mark
mkdir -p "$LONG"
expect_exit 0 "fs_mark's path limit: exit 0" env EXPS=6 ROUNDS=1 E6_FILES=5 DIR="$LONG" bash "$EXP"
check "fs_mark's path limit: experiment 6's table is printed" grep -q '^| files/s | [0-9]' "$TMP/out"
link=$(grep -oP 'fs_mark ran in \S+ through a link of a shorter path, \K/tmp/sbio-fm\.\w+' "$TMP/out")
check "fs_mark's path limit: the section names the link fs_mark ran through" test -n "$link"
check "fs_mark's path limit: the link is removed at the end" test ! -L "${link:-/nonexistent}"

# fs_mark not installed (a PATH without it): experiment 6 says so, exit 1.
mkdir -p "$TMP/nofsmark"
for f in /usr/local/bin/* /usr/bin/* /bin/*; do
	case ${f##*/} in fs_mark | sysbench | postmark | bonnie++) ;; *) [ -e "$TMP/nofsmark/${f##*/}" ] || ln -s "$f" "$TMP/nofsmark/${f##*/}" ;; esac
done
expect_exit 1 "fs_mark not installed: exit 1" env PATH="$TMP/nofsmark" EXPS=6 ROUNDS=1 E6_FILES=5 \
	DIR=/tmp bash "$EXP"
check "fs_mark not installed: experiment 6's section says so" \
	grep -q '^\*\*Not run\*\*: .fs_mark. is not installed' "$TMP/out"
check "fs_mark not installed: the section's title is printed" grep -qx '#### Experiment 6: fs_mark' "$TMP/out"

# sysbench failing (exit 3) and PostMark printing no figure, fs_mark working: experiments 1
# and 7 say why, experiment 6's table is printed.
printf '#!/bin/sh\necho "stub: the disk is on fire" >&2\nexit 3\n' >"$TMP/bin/sysbench"
printf '#!/bin/sh\necho "no transactions here"\n' >"$TMP/bin/postmark"
chmod +x "$TMP/bin/sysbench" "$TMP/bin/postmark"
expect_exit 1 "a tool failing, one giving no figure: exit 1" env \
	EXPS="1 7 6" ROUNDS=1 E6_FILES=5 E7_NUMBER=10 E7_TRANSACTIONS=10 DIR=/tmp bash "$EXP"
sect() { awk -v t="#### Experiment $1:" 'index($0, "#### ") == 1 { on = index($0, t) == 1 } on' "$TMP/out"; }
check "a failing tool: experiment 1 names the command, its exit code and its last error line" \
	eval 'sect 1 | grep -q "Failed.*sysbench.*exited 3: stub: the disk is on fire"'
check "output without a figure: experiment 7 says so" \
	eval 'sect 7 | grep -q "Failed.*no figure in the original.s output.*no transactions here"'
check "experiment 6 ran: its table is printed" eval 'sect 6 | grep -q "^| files/s | [0-9]"'
check "experiment 7's sbio run was not reached: no table" eval '! sect 7 | grep -q "^| cell | original"'

# bonnie++ printing +++++ for every test (too short to time): no figure, not a failure; the
# section says why its column is empty.
printf '#!/bin/sh\necho "1.98,2.00a,sbio,1,1796461515,1M,,10,1,,,+++++,+++,+++++,+++,,,+++++,+++,+++++,+++,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"\n' \
	>"$TMP/bin/bonnie++"
chmod +x "$TMP/bin/bonnie++"
expect_exit 0 "bonnie++ printing +++++: exit 0" env EXPS=4 ROUNDS=1 \
	E4_CELLS=4k:1 DIR=/tmp bash "$EXP"
check "bonnie++ printing +++++: the section says why there is no figure" grep -q 'bonnie++ printed +++++' "$TMP/out"

# Experiment 2's reference: one fio run per phase (write, rewrite, read, re-read), the write
# on no file (a single job file would have fio lay the read jobs' files out first). The fio
# stub logs each run's job name, mode and the files in its folder, and writes its JSON.
cat >"$TMP/bin/fio" <<'STUB'
#!/bin/bash
[ "$1" = --version ] && { echo fio-stub; exit 0; }
for a; do
	case $a in --output=*) out=${a#*=} ;; --name=*) name=${a#*=} ;; --rw=*) rw=${a#*=} ;;
	--directory=*) dir=${a#*=} ;; *.fio) name=jobfile ;; esac
done
echo "$name ${rw:-?} files:$(ls "${dir:-/nonexistent}" 2>/dev/null | grep -c iozone)" >>"$FIO_LOG"
echo "{\"jobs\": [{\"jobname\": \"$name\", \"read\": {\"bw_bytes\": 1048576}, \"write\": {\"bw_bytes\": 0}}]}" >"$out"
[ "$name" = jobfile ] || [ "$rw" = read ] || touch "$dir/iozone.0"
STUB
chmod +x "$TMP/bin/fio"
FIO_LOG=$TMP/fio.log expect_exit 0 "experiment 2 with a fio stub: exit 0" env EXPS=2 ROUNDS=1 E2_SIZE=1M \
	E2_THREADS=1 DIR=/tmp bash "$EXP"
eq "experiment 2: one fio run per phase, the write on no file" "$(paste -sd '|' "$TMP/fio.log")" \
	"write write files:0|rewrite write files:1|read read files:1|re-read read files:1"
eq "experiment 2: a row per phase" "$(grep -cE '^\| (write|rewrite|read|re-read) \(MiB/s\) \|' "$TMP/out")" 4
# The stub's 1 MiB/s is far from sbio's rate: every row is outside 10% and marked.
eq "experiment 2: the cells outside 10% are marked" \
	"$(grep -cE '^\| (write|rewrite|read|re-read) \(MiB/s\) \|.*\| \*\*no\*\* << \|$' "$TMP/out")" 4

# Experiment 2's workload: iozone's -s is each child's file. --size=2M --threads=2: two files
# of 2 MiB, and in every phase each thread moves its own 2 MiB once.
mkdir -p "$TMP/ioz"
"$SBIO" prepare --script "$(dirname "$EXP")/../workloads/iozone.lua" --dir="$TMP/ioz" --size=2M \
	--threads=2 >/dev/null 2>&1
"$SBIO" run --script "$(dirname "$EXP")/../workloads/iozone.lua" --dir="$TMP/ioz" --size=2M \
	--threads=2 --output-format=json -o "$TMP/ioz.json" >/dev/null 2>&1
eq "iozone.lua --size=2M --threads=2: two files of 2 MiB" \
	"$(stat -c %s "$TMP"/ioz/test_file.* | paste -sd ' ')" "2097152 2097152"
eq "iozone.lua --size=2M --threads=2: each thread moves 2 MiB in each phase" \
	"$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s:%s" % (p["name"], ",".join(str(t["bytes_read"] + t["bytes_written"])
      for t in p["jobs"][0]["result"]["result"]["threads"])) for p in d["phases"]))' "$TMP/ioz.json")" \
	"write:2097152,2097152 rewrite:2097152,2097152 read:2097152,2097152 re-read:2097152,2097152"

# Same work: each experiment's cells through samework.sh (SAMEWORK), one row per cell under
# the experiment's speed table; a cell that differs shows its figures and is marked.
SW_LOG=$TMP/sw.log SW_DIFFER='direct 64K' expect_exit 0 "same work: exit 0" env EXPS="5 6" \
	ROUNDS=1 E5_SIZE=1M E5_RUNS=1 E5_SIZES=1M,64K E6_FILES=5 DIR=/tmp bash "$EXP"
eq "same work: samework.sh ran each cell" "$(paste -sd '|' "$TMP/sw.log")" \
	"buffered 1M|buffered 64K|direct 1M|direct 64K|fs_mark -n 5 -s 51200 -t 1"
check "same work: the table's header" eval 'sect 5 | grep -qxF "| cell | figures that differ (original → sbio) | verdict |"'
check "same work: a cell that agrees" eval 'sect 5 | grep -qxF "| direct 1M | same work | same work |"'
check "same work: a cell that differs shows its figure and is marked" \
	eval 'sect 5 | grep -qxF "| direct 64K | writes 100 → 90 (0.900) << | **differs** << |"'
check "same work: experiment 6's table" eval 'sect 6 | grep -qxF "| fs_mark -n 5 -s 51200 -t 1 | same work | same work |"'
check "same work: the speed table is there too" eval 'sect 6 | grep -q "^| files/s | [0-9]"'
check "same work: the speed table says which cells are within 10%" \
	grep -qxF '| cell | original | sbio | sbio/original | min–max | within 10% |' "$TMP/out"
# CHECKS: one of the two; a bad value refused.
: >"$TMP/sw.log"
SW_LOG=$TMP/sw.log expect_exit 0 "CHECKS=speed: exit 0" env CHECKS=speed EXPS=6 ROUNDS=1 E6_FILES=5 DIR=/tmp bash "$EXP"
check "CHECKS=speed: no same-work table, samework.sh not run" \
	eval "! grep -q '^| cell | figures' '$TMP/out' && test ! -s '$TMP/sw.log'"
SW_LOG=$TMP/sw.log expect_exit 0 "CHECKS=work: exit 0" env CHECKS=work EXPS=6 E6_FILES=5 DIR=/tmp bash "$EXP"
check "CHECKS=work: the same-work table alone" \
	eval "grep -q '^| cell | figures' '$TMP/out' && ! grep -q '^| cell | original' '$TMP/out'"
expect_exit 2 "CHECKS=fast: exit 2" env CHECKS=fast EXPS=6 DIR=/tmp bash "$EXP"
check "CHECKS=fast: the line says what is accepted" grep -q 'CHECKS=fast: expected work, speed or both' "$TMP/err"

# DEVICE: a bad value is refused in one line (exit 2) before anything runs.
expect_exit 2 "DEVICE=floppy: exit 2" env DEVICE=floppy EXPS=6 ROUNDS=1 E6_FILES=5 DIR=/tmp bash "$EXP"
stderr_one_line "DEVICE=floppy: one line on stderr"
check "DEVICE=floppy: the line names DEVICE and what is accepted" grep -q 'DEVICE=floppy: expected ram, loop or a folder' "$TMP/err"
check "DEVICE=floppy: nothing ran (no section)" test ! -s "$TMP/out"
if ! need_root; then
	skip "DEVICE=loop and ram need root"
	exit 0
fi
if setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$EXP"; then
	expect_exit 2 "DEVICE=loop as a user: exit 2" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env DEVICE=loop EXPS=6 ROUNDS=1 E6_FILES=5 DIR=/tmp bash "$EXP"
	check "DEVICE=loop as a user: the line says root is needed" grep -q 'DEVICE=loop: needs root' "$TMP/err"
else
	skip "the script is out of reach of user nobody"
fi
# DEVICE=loop and ram: the runs on a loop device of their own (its own ext4), named in the
# section's machine line; the loop device detached and unmounted at the end.
for dv in loop ram; do
	expect_exit 0 "DEVICE=$dv: exit 0" env DEVICE=$dv EXPS=6 ROUNDS=1 E6_FILES=5 DIR=/tmp bash "$EXP"
	line=$(grep '^- Folder on ' "$TMP/out")
	loopdev=$(grep -oP '^- Folder on \K/dev/loop\d+(?= \(ext4)' <<<"$line")
	check "DEVICE=$dv: the runs' folder is on a loop device's ext4 ($line)" test -n "$loopdev"
	check "DEVICE=$dv: the machine line says which device" grep -q "DEVICE=$dv: $loopdev over a [0-9]* MiB image" <<<"$line"
	check "DEVICE=$dv: experiment 6's table is printed" grep -q '^| files/s | [0-9]' "$TMP/out"
	check "DEVICE=$dv: the loop device is detached at the end" \
		eval "! losetup -n -O BACK-FILE ${loopdev:-/dev/loop-none} 2>/dev/null | grep -q sbio-experiments"
	check "DEVICE=$dv: nothing of the run is left mounted" eval '! grep -q "/tmp/sbio-experiments\." /proc/mounts'
done
# The same-work check itself (bench/samework.sh, strace, loop devices) on one small cell:
# dd's O_DIRECT reads and blockdev-sweep.lua's --direct=on cell do the same work.
if command -v strace >/dev/null && [ -e /dev/loop-control ]; then
	expect_exit 0 "bench/samework.sh on a dd cell: exit 0" env -u SAMEWORK CHECKS=work EXPS=5 E5_SIZE=4M \
		E5_RUNS=1 E5_SIZES=1M DIR=/tmp bash "$EXP"
	check "bench/samework.sh on a dd cell: direct 1M, same work" grep -qE '^\| direct 1M \| .* \| same work \|$' "$TMP/out"
else
	skip "the same-work check needs strace and loop devices"
fi
