#!/bin/bash
# sbio plot against results crafted to run commands or write files, and against links and
# files planted in a shared folder by another user (nobody):
# - every string field plot reads, given text that ends a single-quoted, a double-quoted or a
#   backquoted string and goes on with system(), set output or set print: the chart is drawn,
#   no marker file appears, no file outside the chart changes; the same field with a line
#   break is refused (exit 2, one line naming the field), with nothing written;
# - gnuplot's sandbox: the process sbio runs as gnuplot has no_new_privs and a seccomp filter,
#   and crafted gnuplot lines (!cmd, system(), backquotes, set output, set print, save, set
#   table) run there act on nothing, while the same lines run by gnuplot alone do (so the
#   test can see an attack work);
# - --keep-data and -o: a link or a file planted by nobody is refused (exit 2, one line saying
#   whose it is) and the root-owned 0600 file it leads to is unchanged; /dev/null and
#   /dev/stdout still work.
source "$(dirname "$0")/lib.sh"

if ! command -v gnuplot >/dev/null; then
	skip "gnuplot is not installed (make deps installs gnuplot-nox)"
	exit 0
fi
GNUPLOT=$(command -v gnuplot)
D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=2 --file-total-size=4M)
M=$TMP/MARK # every attack creates $M.something

# A root file nobody may read: what a planted link aims at.
VICTIM=$TMP/victim
echo "root's secret" >"$VICTIM"
chmod 0600 "$VICTIM"
VSUM=$(sha256sum <"$VICTIM")

# no_marks DESC: no marker file, the victim unchanged, no file outside the expected ones.
no_marks() {
	local m
	m=$(ls -d "$M"* "$TMP"/kd/MARK* 2>/dev/null | tr '\n' ' ')
	if [ -z "$m" ] && [ "$(sha256sum <"$VICTIM")" = "$VSUM" ]; then
		ok "$1: nothing ran, nothing written"
	else
		notok "$1: markers '$m', victim $(sha256sum <"$VICTIM" | cut -c1-12)"
	fi
	rm -f "$M"* "$TMP"/kd/MARK*
}
# files_of DIR: the names under DIR (the set's folder left out), for "nothing else written"
files_of() { (cd "$1" && find . -path ./set -prune -o -print | sort); }

# --- real results: a run with a time series, a compare of two block sizes ---
expect_exit 0 "prepare" "$SBIO" prepare "${SET[@]}"
expect_exit 0 "run rndrw with a time series" "$SBIO" run "${SET[@]}" --file-test-mode=rndrw \
	--time=1 --log-interval=200 -o "$TMP/run.json"
expect_exit 0 "compare 2 block sizes" "$SBIO" compare "${SET[@]}" --file-test-mode=rndrw \
	--vary file-block-size=4K,16K --repeat=2 --time=1 --drop-caches=off -o "$TMP/cmp.json"
# A device and its settings, as a run on a block device records them (this set is on tmpfs);
# run2.json the same under another scheduler.
python3 - "$TMP/run.json" "$TMP/run2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.setdefault('environment', {})['devices'] = [{'name': 'sda', 'role': 'top',
    'queue': {'scheduler': 'none [mq-deadline]', 'nr_requests': '64'},
    'iosched': {'fifo_batch': '16'}}]
json.dump(d, open(sys.argv[1], 'w'))
d['environment']['devices'][0]['queue']['scheduler'] = 'none bfq [kyber]'
json.dump(d, open(sys.argv[2], 'w'))
# A survey's document as sbio survey writes it (its matrix; a survey needs a loop device and
# minutes, and plot reads the matrix alone).
json.dump({'schema': 'sbio-survey/1', 'device': 'loop9', 'budget_s': 60, 'took_s': 50,
    'environment': {'hostname': 'box', 'kernel': '6.1'},
    'matrix': {'schedulers': ['none', 'mq-deadline'], 'rows': [{'workload': 'seq', 'job': 'readers',
        'metric': 'read.p99', 'better': 'lower', 'cells': [
            {'scheduler': 'none', 'values': [1e6, 1.1e6, 0.9e6]},
            {'scheduler': 'mq-deadline', 'values': [2e6, 2.1e6, 1.9e6]}]}]}},
    open(sys.argv[1].replace('run.json', 'srv.json'), 'w'))
PY

# craft IN OUT PATH VALUE [IN OUT PATH VALUE]…: IN with the string at PATH (dotted; a number is
# a list index; a key "KEY=" renames KEY to VALUE instead) set to VALUE, into OUT; each
# quadruple from IN as it is on disk (one python3 for them all).
craft() {
	python3 - "$@" <<'PY'
import json, sys
a = sys.argv[1:]
for src, dst, path, value in zip(a[0::4], a[1::4], a[2::4], a[3::4]):
    d = json.load(open(src))
    keys = path.split('.')
    o = d
    for k in keys[:-1]:
        o = o[int(k)] if isinstance(o, list) else o[k]
    last = keys[-1]
    if last.endswith('='):
        o[value] = o.pop(last[:-1])
    elif isinstance(o, list):
        o[int(last)] = value
    else:
        o[last] = value
    # A survey's cells name their scheduler as the matrix's list does.
    if path.startswith('matrix.schedulers.'):
        for r in d['matrix']['rows']:
            for i, c in enumerate(r['cells']):
                c['scheduler'] = d['matrix']['schedulers'][i]
    json.dump(d, open(dst, 'w'))
PY
}

# What ends each kind of gnuplot string and goes on with a command; none has a control
# character, so plot must draw the chart with the text as text.
PAYLOADS=(
	"x' . system('touch $M.sq') . '"
	"x\" . system(\"touch $M.dq\") . \""
	"\`touch $M.bq\`"
	"x'; set print '$M.print'; print 'a'; set output '$VICTIM'; set title 'x"
	"x\"; set output \"$VICTIM\"; system(\"touch $M.semi\"); \""
)

# The string fields of a run result plot reads: the description (title, tick labels) and the
# device settings that label runs apart.
RUN_FIELDS=(config.file_test_mode config.ioengine config.file_extra_flags
	environment.devices.0.name environment.devices.0.queue.nr_requests
	environment.devices.0.queue.nr_requests= environment.devices.0.iosched.fifo_batch
	environment.devices.0.iosched.fifo_batch=)
# Those of a compare result: the settings' names, phase and job names, the metrics' list, the
# bars' unit and verdict, the order and the command line.
CMP_FIELDS=(settings.0.name settings.1.name settings.0.phases.0.name settings.1.phases.0.name
	settings.0.phases.0.jobs.0.name settings.1.phases.0.jobs.0.name metrics.0
	settings.0.phases.0.jobs.0.metrics.ops.unit settings.1.phases.0.jobs.0.metrics.ops.unit
	settings.1.phases.0.jobs.0.metrics.ops.verdict order command_line.1 command_line.2)
# Those of a survey: the device, the machine, the schedulers, the rows' workloads and jobs.
# A survey's names have bounds (a scheduler's 31 bytes), so its payloads are short ones, each
# making a marker where gnuplot runs: the kept data folder $TMP/kd.
SRV_FIELDS=(device environment.hostname environment.kernel matrix.schedulers.1
	matrix.rows.0.workload matrix.rows.0.job)
SRV_PAYLOADS=(
	"x'.system('touch MARK.sq').'"
	"x\".system(\"touch MARK.dq\").\""
	"\`touch MARK.bq\`"
	"x';set print 'MARK.p';print 1;'"
	"x\";system(\"touch MARK.s\");\""
)

# The crafted results, all made at once before the plots: $TMP/evil/K.I.json (field K, payload
# I) and K.nl.json (field K with a line break).
src_of() {
	case $1 in
	settings.* | metrics.* | order | command_line.*) echo "$TMP/cmp.json" ;;
	device | environment.hostname | environment.kernel | matrix.*) echo "$TMP/srv.json" ;;
	*) echo "$TMP/run.json" ;;
	esac
}
FIELDS=("${RUN_FIELDS[@]}" "${CMP_FIELDS[@]}" "${SRV_FIELDS[@]}")
mkdir "$TMP/evil"
jobs=()
for k in "${!FIELDS[@]}"; do
	f=${FIELDS[$k]}
	src=$(src_of "$f")
	for i in "${!PAYLOADS[@]}"; do
		p=${PAYLOADS[$i]}
		[ "$src" = "$TMP/srv.json" ] && p=${SRV_PAYLOADS[$i]}
		jobs+=("$src" "$TMP/evil/$k.$i.json" "$f" "$p")
	done
	# A line break would end the quoted string whatever the quoting.
	jobs+=("$src" "$TMP/evil/$k.nl.json" "$f" "x'
!touch $M.nl
set output '$VICTIM'
x")
done
craft "${jobs[@]}"
eq "every crafted result was written" "$(ls "$TMP/evil" | wc -l)" $((${#FIELDS[@]} * (${#PAYLOADS[@]} + 1)))

# The charts go to SVG: the script sbio writes differs between SVG and PNG in its terminal line
# only, and every field is quoted the same in both; gnuplot draws an SVG much faster. (The
# sandbox's PNG is checked below.)
rm -f "$TMP/out" "$TMP/err"
before=$(files_of "$TMP")
for k in "${!FIELDS[@]}"; do
	f=${FIELDS[$k]}
	src=$(src_of "$f")
	for i in "${!PAYLOADS[@]}"; do
		evil=$TMP/evil/$k.$i.json
		# One run alone (title), and beside another (labels in the data file, tick labels).
		if [ "$src" = "$TMP/run.json" ]; then
			expect_exit 0 "$f, payload $i: one run charted" "$SBIO" plot "$evil" -o "$TMP/c.svg"
			no_marks "$f, payload $i, one run"
			expect_exit 0 "$f, payload $i: two runs charted" "$SBIO" plot "$evil" "$TMP/run2.json" -o "$TMP/c.svg"
		elif [ "$src" = "$TMP/srv.json" ]; then
			expect_exit 0 "$f, payload $i: the survey charted" "$SBIO" plot "$evil" -o "$TMP/c.svg" --keep-data "$TMP/kd"
			no_marks "$f, payload $i, in the kept folder"
			rm -rf "$TMP/kd"
		else
			expect_exit 0 "$f, payload $i: the compare charted" "$SBIO" plot "$evil" -o "$TMP/c.svg"
		fi
		no_marks "$f, payload $i"
	done
	# A line break: refused, nothing written.
	rm -f "$TMP/c.png"
	expect_exit 2 "$f with a line break: refused" "$SBIO" plot "$TMP/evil/$k.nl.json" -o "$TMP/c.png"
	stderr_one_line "$f with a line break: one line"
	# The message's spelling of the field: settings[0].name; a key renamed: its parent's.
	where=$(sed -E 's/\.([0-9]+)/[\1]/g' <<<"$f")
	case $where in *=) where=${where%.*} ;; esac
	if grep -qF "holds a control character" "$TMP/err" && grep -qF ": $where" "$TMP/err"; then
		ok "$f with a line break: the message names the field"
	else
		notok "$f with a line break: the message names the field ($(head -c 300 "$TMP/err"))"
	fi
	check "$f with a line break: no chart" test ! -e "$TMP/c.png"
	no_marks "$f with a line break"
done
rm -f "$TMP/c.png" "$TMP/c.svg" "$TMP/evil.json" "$TMP/out" "$TMP/err" "$TMP/err.flat"
eq "nothing but the chart was written in all those plots" "$(files_of "$TMP")" "$before"
rm -rf "$TMP/evil"

# An escape sequence in a field plot names in a message reaches the terminal escaped.
craft "$TMP/run.json" "$TMP/evil.json" schema $'\e[2J\e]0;pwned\a'
expect_exit 2 "a schema with escape sequences: refused" "$SBIO" plot "$TMP/evil.json" -o "$TMP/c.png"
tr -d '\n' <"$TMP/err" >"$TMP/err.flat"
check "a schema with escape sequences: no ESC or BEL on stderr" \
	sh -c "! LC_ALL=C grep -q \$'[\\x01-\\x1f\\x7f]' '$TMP/err.flat'"
check "a schema with escape sequences: shown as \\x1B" grep -qF '\x1B[2J' "$TMP/err"

# A file name and an output name with quotes and backquotes are text in the script too (a
# name holds no "/": the markers are relative, made where gnuplot runs, the kept folder).
mkdir "$TMP/kd"
EVIL_NAME="$TMP/r'\"\`touch MARK.name\`\$(touch MARK.sh)' . system('touch MARK.sys') . '.json"
cp "$TMP/run.json" "$EVIL_NAME"
EVIL_OUT="$TMP/c'\"\`touch MARK.out\`' . system('touch MARK.osys') . '.png"
expect_exit 0 "a result whose file name has quotes and backquotes" "$SBIO" plot "$EVIL_NAME" -o "$EVIL_OUT" --keep-data "$TMP/kd"
check "the chart of that name is drawn" test -s "$EVIL_OUT"
no_marks "file name and output name"
check "the kept script redraws that chart by its name" sh -c "cd '$TMP/kd' && rm -f \"\$1\" && gnuplot plot.gp 2>/dev/null && test -s \"\$1\"" sh "$EVIL_OUT"
no_marks "file name and output name, the kept script run by hand"
rm -rf "$TMP/kd"
NL_NAME="$TMP/r
!touch MARK.nlname
.json"
cp "$TMP/run.json" "$NL_NAME"
expect_exit 2 "a result file name with a line break: refused" "$SBIO" plot "$NL_NAME" -o "$TMP/c.png"
stderr_one_line "a result file name with a line break: one line"
no_marks "a file name with a line break"
rm -f "$EVIL_NAME" "$EVIL_OUT" "$NL_NAME"

# --- gnuplot's sandbox ---
# A "gnuplot" first on the PATH that is a gnuplot script (#!/usr/bin/gnuplot): the kernel runs
# the real gnuplot on it, in the process sbio confined, before sbio's own script.
mkdir -p "$TMP/bin"
fake() { # LINES…: the fake gnuplot's lines
	{
		echo "#!$GNUPLOT"
		printf '%s\n' "$@"
	} >"$TMP/bin/gnuplot"
	chmod 0755 "$TMP/bin/gnuplot"
}
# (The shell's builtins only: it cannot start grep in there.)
printf '#!/bin/sh\nwhile read -r k v; do case $k in NoNewPrivs:|Seccomp:) echo "$k $v" ;; esac; done </proc/self/status\n' >"$TMP/bin/gnuplot"
chmod 0755 "$TMP/bin/gnuplot"
PATH="$TMP/bin:$PATH" expect_exit 0 "a gnuplot that reports its confinement" "$SBIO" plot "$TMP/run.json" -o "$TMP/status.png"
eq "gnuplot runs with no_new_privs and a seccomp filter" "$(tr -s '\t ' ' ' <"$TMP/status.png" | paste -sd,)" "NoNewPrivs: 1,Seccomp: 2"

ATTACKS=(
	"!touch '$M.bang'" # quoted: gnuplot scans the whole line, and a folder like 14e… reads as a bad number
	"x = system('touch $M.system; echo done'); if (x ne 'done') { exit status 0 }"
	"y = \"\`touch $M.backquote\`\""
	"set print '$M.print'; print 'hello'; set print"
	"set terminal pngcairo; set output '$M.output'; plot x; set output"
	"set output '$VICTIM'; plot x; set output"
	"save '$M.save'"
	"set table '$M.table'; plot x; unset table"
	"set output '| touch $M.pipe'; plot x; set output"
	"load '< touch $M.loadpipe'"
)
for a in "${ATTACKS[@]}"; do
	# Outside sbio the line acts (else this test would prove nothing).
	fake "$a"
	(cd "$TMP" && "$TMP/bin/gnuplot" </dev/null >/dev/null 2>"$TMP/gp.err")
	st=$?
	if [ -n "$(ls -d "$M"* 2>/dev/null)" ] || [ "$(sha256sum <"$VICTIM")" != "$VSUM" ]; then
		ok "gnuplot alone acts on: $a"
	else
		notok "gnuplot alone acts on: $a (no marker; gnuplot's exit status $st, its stderr: $(head -c 300 "$TMP/gp.err" | tr '\n' ' '))"
	fi
	rm -f "$M"*
	echo "root's secret" >"$VICTIM"
	# Under sbio the same line acts on nothing, whatever gnuplot then says (an SVG: the line
	# runs before sbio's script, whose terminal makes no difference to it).
	PATH="$TMP/bin:$PATH" "$SBIO" plot "$TMP/run.json" -o "$TMP/c.svg" >"$TMP/out" 2>"$TMP/err"
	no_marks "under sbio: $a"
done
# The sandbox lets gnuplot draw: a fake gnuplot with nothing of its own draws sbio's chart.
fake "# nothing but sbio's script"
PATH="$TMP/bin:$PATH" expect_exit 0 "gnuplot draws in the sandbox" "$SBIO" plot "$TMP/run.json" -o "$TMP/c.png"
check "gnuplot draws in the sandbox: a PNG" sh -c "head -c 8 '$TMP/c.png' | od -An -tx1 | grep -q '89 50 4e 47'"
PATH="$TMP/bin:$PATH" expect_exit 0 "gnuplot draws an SVG in the sandbox" "$SBIO" plot "$TMP/cmp.json" -o "$TMP/c.svg"
check "gnuplot draws an SVG in the sandbox: an svg element" grep -q '<svg' "$TMP/c.svg"
rm -rf "$TMP/bin" "$TMP/c.png" "$TMP/c.svg"

# --- links and files planted in a shared folder ---
if ! need_root; then
	skip "planted links and files need root (to act as nobody)"
	exit 0
fi
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
PUB=$TMP/pub # sticky and world-writable, as /tmp
mkdir -m 1777 "$PUB"
chmod 0755 "$TMP"

# --keep-data: a data file name planted as a link to the victim.
mkdir -m 1777 "$PUB/keep"
for name in plot.gp throughput.dat percentiles.dat; do
	nobody ln -s "$VICTIM" "$PUB/keep/$name"
	expect_exit 2 "--keep-data with $name planted as nobody's link: refused" \
		"$SBIO" plot "$TMP/run.json" -o "$TMP/c.png" --keep-data "$PUB/keep"
	stderr_one_line "--keep-data, $name planted: one line"
	check "--keep-data, $name planted: the message names it" grep -qF "$name is a symbolic link" "$TMP/err"
	no_marks "--keep-data, $name planted"
	rm -f "$PUB/keep/$name"
done
# A file of nobody's there, and a folder of nobody's (or nobody's link to one) as the folder.
nobody touch "$PUB/keep/plot.gp"
expect_exit 2 "--keep-data with nobody's plot.gp in it: refused" \
	"$SBIO" plot "$TMP/run.json" -o "$TMP/c.png" --keep-data "$PUB/keep"
check "--keep-data, nobody's file: the message says so" grep -qF "plot.gp is another user's file" "$TMP/err"
rm -f "$PUB/keep/plot.gp"
nobody mkdir "$PUB/nobodys"
expect_exit 2 "--keep-data naming a folder of nobody's: refused" \
	"$SBIO" plot "$TMP/run.json" -o "$TMP/c.png" --keep-data "$PUB/nobodys"
check "--keep-data, nobody's folder: the message says so" grep -qF "a folder of another user's" "$TMP/err"
check "--keep-data, nobody's folder: nothing written in it" test -z "$(ls -A "$PUB/nobodys")"
mkdir -m 0700 "$TMP/private"
nobody ln -s "$TMP/private" "$PUB/keeplink"
expect_exit 2 "--keep-data naming nobody's link to a folder: refused" \
	"$SBIO" plot "$TMP/run.json" -o "$TMP/c.png" --keep-data "$PUB/keeplink"
check "--keep-data, nobody's link: nothing written where it leads" test -z "$(ls -A "$TMP/private")"
# A link of the user's own is followed; the files are new ones, owned by root.
ln -s "$TMP/private" "$TMP/mylink"
expect_exit 0 "--keep-data through root's own link" "$SBIO" plot "$TMP/run.json" -o "$TMP/c.png" --keep-data "$TMP/mylink"
check "--keep-data through root's own link: the script is there" test -s "$TMP/private/plot.gp"
# Again into the same folder: the old files are replaced.
expect_exit 0 "--keep-data again into the same folder" "$SBIO" plot "$TMP/run.json" -o "$TMP/c.png" --keep-data "$TMP/private"

# -o: a link planted by nobody, a file of nobody's; /dev/null and /dev/stdout still work.
nobody ln -s "$VICTIM" "$PUB/chart.png"
expect_exit 2 "-o naming nobody's link to a root file: refused" "$SBIO" plot "$TMP/run.json" -o "$PUB/chart.png"
stderr_one_line "-o naming nobody's link: one line"
check "-o naming nobody's link: the message says whose" grep -qF "a symbolic link of user nobody" "$TMP/err"
no_marks "-o naming nobody's link"
rm -f "$PUB/chart.png"
nobody touch "$PUB/chart.png"
expect_exit 2 "-o naming nobody's file in a sticky folder: refused" "$SBIO" plot "$TMP/run.json" -o "$PUB/chart.png"
check "-o naming nobody's file: the message says whose" grep -qF "a file of user nobody" "$TMP/err"
check "-o naming nobody's file: it is left empty as it was" test ! -s "$PUB/chart.png"
