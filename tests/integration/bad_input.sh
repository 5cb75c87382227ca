#!/bin/bash
# The bad-input corpus: every case of tests/bad-input/cases.txt is run in a
# folder holding a small prepared set and/or in an empty folder (the case says where), and must
# give the expected exit code, exactly one stderr line that is not a "sbio: note:" and holds the
# expected fragment, nothing on stdout saying work began, and no change on disk (every entry's
# type, size, mode, mtime and ctime, and every file's checksum, in every folder the case can
# reach). One TAP line per case and folder; a failure lists everything that was wrong.
# Cases naming {RAW}/{MNTDEV}/{MNT} use loop devices of this test's own (root; detached in
# the trap).
source "$(dirname "$0")/lib.sh"

BI=$(cd "$(dirname "$0")/../bad-input" && pwd)
CASES=$BI/cases.txt
# The corpus of untrusted files: each case runs sbio on a file of tests/bad-input/files/ (a
# script, a JSON result, a config file, a manifest), copied into {FIX}/files: {F:NAME} in a
# case's arguments is that copy; WHERE manifest:NAME runs it in the set with NAME as its
# sbio.manifest.
FILE_CASES=$BI/files.txt
SETD=$TMP/set
EMPTY=$TMP/empty
FIX=$TMP/fix
DEVD=$TMP/dev
MNT=$TMP/mnt
RAW=
MNTDEV=
export SBIO_STATE_DIR=$TMP/state
bi_cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then umount "$MNT" 2>/dev/null || umount -l "$MNT"; fi
	[ -n "$MNTDEV" ] && losetup -d "$MNTDEV"
	[ -n "$RAW" ] && losetup -d "$RAW"
	t_cleanup
}
trap bi_cleanup EXIT

# --- the folders ---------------------------------------------------------------------------
make_set() {
	rm -rf "$SETD" "$EMPTY"
	mkdir -p "$SETD" "$EMPTY"
	"$SBIO" prepare --dir="$SETD" --file-num=4 --file-total-size=256K --rand-seed=1 >/dev/null
}
if ! make_set 2>"$TMP/err"; then
	notok "prepare the set the cases run against: $(head -c 300 "$TMP/err")"
	exit 1
fi
mkdir -p "$FIX" "$DEVD" "$MNT"
if ! "$SBIO" run --dir="$SETD" --file-test-mode=rndrd --events=20 -o "$FIX/r.json" >/dev/null 2>"$TMP/err"; then
	notok "make the fixture r.json: $(head -c 300 "$TMP/err")"
	exit 1
fi
echo 'not json' >"$FIX/notjson.txt"
echo '{"schema": "not-sbio/1", "result": {}}' >"$FIX/other.json"
printf '# sysbench options\ntreads=4\n' >"$FIX/typo.cfg"
printf 'threads 4\n' >"$FIX/noeq.cfg"
printf 'threads=2\n\nevents=-1\n' >"$FIX/value.cfg"
printf 'option("bs", "4k", "block size")\noption("weight", 100, "a weight")\nphase "r" { events = 8, job "r" { block = options.bs, mix = { read = 1 } } }\n' >"$FIX/opts.lua"
mkdir -p "$FIX/files"
cp -R "$BI/files/." "$FIX/files/"
make_set # the fixture run read the set: start from fresh files anyway
cp "$SETD/sbio.manifest" "$TMP/good.manifest"

ROOT=0
if need_root; then
	truncate -s 4M "$DEVD/raw.img"
	truncate -s 8M "$TMP/mnt.img" # outside the folders checked: the mounted ext4 may write to it
	if RAW=$(losetup -f --show "$DEVD/raw.img" 2>"$TMP/err") &&
		MNTDEV=$(losetup -f --show "$TMP/mnt.img" 2>>"$TMP/err") &&
		mkfs.ext4 -q -F "$MNTDEV" >>"$TMP/err" 2>&1 && mount "$MNTDEV" "$MNT" 2>>"$TMP/err"; then
		ROOT=1
	else
		notok "loop devices for the raw-device cases: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
	fi
fi

# snapshot DIR…: every entry (type, size, mode, mtime, ctime) and every file's checksum.
# (find's order is the folders' own, which only a change can alter.)
snapshot() {
	find "$@" -printf '%p %y %s %m %T@ %C@\n' 2>&1
	find "$@" -type f -exec md5sum {} + 2>&1
}

# --- the cases -----------------------------------------------------------------------------
trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	echo "${s%"${s##*[![:space:]]}"}"
}
# run_cases FILE: every case of FILE (cases.txt's format); ncases and nbad count them.
run_cases() {
	local line code frag args where reach dirs dir label before after rc why lines desc msg mf argv
	ncases=0
	nbad=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in '' | '#'*) continue ;; esac
		ncases=$((ncases + 1))
		IFS='|' read -r code frag args where <<<"$line"
		code=$(trim "$code")
		frag=$(trim "$frag")
		args=$(trim "$args")
		where=$(trim "${where:-both}")
		mf=
		[[ $where == manifest:* ]] && mf=${where#manifest:} && where=set
		if ! [[ $code =~ ^[0-9]+$ ]] || [ -z "$frag" ] || [ -z "$args" ] || ! [[ $where =~ ^(set|empty|both)$ ]] ||
			{ [ -n "$mf" ] && [ ! -f "$FIX/files/$mf" ]; }; then
			notok "${1##*/}: malformed line: $line"
			nbad=$((nbad + 1))
			continue
		fi
		# Folders the case can reach, besides the working folder.
		reach=("$FIX")
		if [[ $args == *'{RAW}'* || $args == *'{MNTDEV}'* || $args == *'{MNT}'* ]]; then
			if [ $ROOT = 0 ]; then
				skip "sbio $args: needs root and loop devices"
				continue
			fi
			reach+=("$MNT")
			[[ $args == *'{RAW}'* ]] && reach+=("$DEVD")
		fi
		args=${args//\{FIX\}/$FIX}
		args=${args//\{F:/$FIX/files/}
		args=${args//\}/}
		args=${args//\{RAW/$RAW}
		args=${args//\{MNTDEV/$MNTDEV}
		args=${args//\{MNT/$MNT}
		read -r -a argv <<<"$args"
		case $where in
		both) dirs=("$SETD" "$EMPTY") ;;
		set) dirs=("$SETD") ;;
		empty) dirs=("$EMPTY") ;;
		esac
		for dir in "${dirs[@]}"; do
			label=$([ "$dir" = "$SETD" ] && echo "in a set" || echo "in an empty folder")
			# manifest:NAME: the set's manifest is that file for this case.
			[ -n "$mf" ] && cp "$FIX/files/$mf" "$SETD/sbio.manifest" && label="in a set whose manifest is $mf"
			before=$(snapshot "$dir" "${reach[@]}")
			# A case sbio wrongly accepts would run for the default 10 s: 3 s is plenty for a refusal.
			(cd "$dir" && exec timeout -s KILL 3 "$SBIO" "${argv[@]}") >"$TMP/out" 2>"$TMP/err"
			rc=$?
			after=$(snapshot "$dir" "${reach[@]}")
			why=()
			[ "$rc" = "$code" ] || why+=("exit $rc, want $code")
			lines=$(grep -vc '^sbio: note:' "$TMP/err")
			[ "$lines" -eq 1 ] || why+=("$lines non-note stderr lines, want 1")
			grep -v '^sbio: note:' "$TMP/err" | grep -qF -- "$frag" || why+=("stderr lacks '$frag'")
			# A message quotes what it read from a file sanitised: no control character but the
			# line's end reaches the terminal.
			if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$TMP/err"; then
				why+=("stderr has control characters")
			fi
			if grep -Eq 'Threads started|bytes written|Creating file|Removing|Reusing|^\[[0-9]+/[0-9]+\]|settings x' "$TMP/out"; then
				why+=("stdout says work began: $(grep -Em1 'Threads started|bytes written|Creating file|Removing|Reusing|^\[[0-9]+/[0-9]+\]|settings x' "$TMP/out")")
			fi
			if [ "$before" != "$after" ]; then
				why+=("disk changed: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -4 | tr '\n' ' ')")
			fi
			desc="sbio ${argv[*]} ($label): exit $code, one line with '$frag', stdout harmless, nothing on disk changed"
			desc=${desc//$TMP/\$TMP}
			if [ ${#why[@]} -eq 0 ]; then
				ok "$desc"
			else
				msg=$(printf '%s; ' "${why[@]}")
				notok "$desc (${msg%; }; stderr: $(head -c 300 "$TMP/err" | tr '\n' '|' | LC_ALL=C tr -d '\000-\011\013-\037\177' | sed "s|$TMP|\$TMP|g"))"
				# A changed folder would fail every later case: start again from fresh folders.
				if [ "$before" != "$after" ]; then
					make_set
					cp "$SETD/sbio.manifest" "$TMP/good.manifest"
					rm -f "$FIX"/chart.* 2>/dev/null
				fi
			fi
			[ -n "$mf" ] && cp "$TMP/good.manifest" "$SETD/sbio.manifest"
		done
	done <"$1"
}

run_cases "$CASES"
if [ "$ncases" -ge 60 ] && [ "$nbad" -eq 0 ]; then
	ok "the corpus has $ncases well-formed cases (at least 60)"
else
	notok "the corpus has $ncases cases ($nbad malformed), want at least 60 well-formed"
fi
run_cases "$FILE_CASES"
if [ "$ncases" -ge 100 ] && [ "$nbad" -eq 0 ]; then
	ok "the corpus of untrusted files has $ncases well-formed cases (at least 100)"
else
	notok "the corpus of untrusted files has $ncases cases ($nbad malformed), want at least 100 well-formed"
fi
exit 0
