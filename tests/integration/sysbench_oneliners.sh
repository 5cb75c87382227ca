#!/bin/bash
# The one-liners sysbench users parse fileio's text report with (tests/sysbench/oneliners.txt)
# read the same figures from sbio's report: sysbench 1.0 and sbio run the same command lines
# side by side (the six modes; sync, async and mmap; with --events, --report-interval,
# --histogram, --percentile, --file-merged-requests), each in its own folder, and every
# one-liner of the corpus must give the same answer on both reports (exactly, or within the
# runs' difference for measured figures: see the corpus's head). The differences
# doc/sysbench.md lists for the header are checked to be still there, and listed there.
source "$(dirname "$0")/lib.sh"

CORPUS=$(dirname "$0")/../sysbench/oneliners.txt
DOC=$(dirname "$0")/../../doc/sysbench.md
if ! command -v sysbench >/dev/null; then
	skip "sysbench is not installed (make test installs it)"
	exit 0
fi
echo "# $(sysbench --version) beside sbio"
SY=$TMP/sy SB=$TMP/sb OUT=$TMP/out
mkdir -p "$SY" "$SB" "$OUT"
SET=(--file-num=4 --file-total-size=32M)
(cd "$SY" && sysbench fileio "${SET[@]}" prepare >/dev/null 2>&1) || notok "sysbench prepare"
(cd "$SB" && "$SBIO" "${SET[@]}" prepare >/dev/null 2>&1) || notok "sbio prepare"

# RUN NAME ARGS…: both tools, one after the other (their reports in $OUT/NAME.sy, .sb and
# the run's kinds of lines in $OUT/NAME.kinds).
RUNS=()
run_pair() {
	local name=$1 kinds=exact,measured,extreme
	shift
	case " $* " in *" --report-interval="*) kinds+=,interim ;; esac
	case " $* " in *" --histogram=on "*) kinds+=,histogram ;; esac
	case " $* " in *" --events="*) kinds+=,events ;; esac
	# Side by side: each run takes its share of a loaded machine, and the test half the time.
	(cd "$SY" && sysbench fileio "${SET[@]}" "$@" run >"$OUT/$name.sy" 2>/dev/null) &
	local sy=$!
	(cd "$SB" && "$SBIO" "${SET[@]}" "$@" run >"$OUT/$name.sb" 2>"$OUT/$name.err") ||
		notok "$name: sbio $* run failed: $(tail -3 "$OUT/$name.err")"
	wait "$sy" || notok "$name: sysbench fileio $* run failed: $(tail -3 "$OUT/$name.sy")"
	echo "$kinds" >"$OUT/$name.kinds"
	echo "$*" >"$OUT/$name.args"
	RUNS+=("$name")
}

for m in seqwr seqrd rndrw; do
	run_pair "$m-sync-time" --file-test-mode=$m --threads=2 --time=2 --report-interval=1 --histogram=on
done
for m in seqwr seqrewr seqrd rndrd rndwr rndrw; do
	run_pair "$m-sync-events" --file-test-mode=$m --threads=2 --events=5000 --percentile=99
	run_pair "$m-async" --file-test-mode=$m --file-io-mode=async --events=5000 --histogram=on --percentile=50
	run_pair "$m-mmap" --file-test-mode=$m --file-io-mode=mmap --events=5000 --percentile=0
done
run_pair seqrd-merged --file-test-mode=seqrd --file-merged-requests=4 --events=5000
run_pair rndwr-fsync-all --file-test-mode=rndwr --file-fsync-all=on --events=2000 --file-extra-flags=dsync

# same KIND A B: the two answers agree for KIND.
same() {
	case $1 in
	exact | events) [ "$2" = "$3" ] ;;
	*)
		local f=10
		[ "$1" = extreme ] && f=300
		awk -v a="$2" -v b="$3" -v f="$f" 'BEGIN {
			na = split(a, x, /[ \n]+/); nb = split(b, y, /[ \n]+/)
			if (na != nb) exit 1
			for (i = 1; i <= na; i++) {
				if (x[i] == y[i]) continue
				if (x[i] !~ /^-?[0-9]+(\.[0-9]+)?$/ || y[i] !~ /^-?[0-9]+(\.[0-9]+)?$/) exit 1
				p = x[i] + 0; q = y[i] + 0; d = p - q; if (d < 0) d = -d
				if (d <= 0.05) continue
				if (p <= 0 || q <= 0 || p / q > f || q / p > f) exit 1
			}
		}'
		;;
	esac
}

# DIFFERS[NAME]: the runs (patterns of their names) where doc/sysbench.md says sbio answers
# NAME otherwise.
declare -A DIFFERS=()
while IFS=$'\t' read -r kind name runs why; do
	[ "$kind" = differs ] || continue
	DIFFERS[$name]=$runs
	check "listed difference '$name' ($runs): doc/sysbench.md has its row ('$why')" grep -qF "$why" "$DOC"
done <"$CORPUS"
# listed NAME RUN: RUN is one where NAME differs on purpose.
listed() {
	local p
	for p in ${DIFFERS[$1]:-}; do
		# shellcheck disable=SC2053
		[[ $2 == $p ]] && return 0
	done
	return 1
}

nlines=0
while IFS=$'\t' read -r kind name cmd; do
	case $kind in exact | measured | extreme | interim | histogram | events) ;; *) continue ;; esac
	nlines=$((nlines + 1))
	bad= used=0 differed=
	for r in "${RUNS[@]}"; do
		grep -qw "$kind" "$OUT/$r.kinds" || continue
		a=$(bash -c "$cmd" <"$OUT/$r.sy" 2>&1)
		b=$(bash -c "$cmd" <"$OUT/$r.sb" 2>&1)
		if listed "$name" "$r"; then
			[ "$a" != "$b" ] && differed+="$r "
			continue
		fi
		used=$((used + 1))
		same "$kind" "$a" "$b" || bad+=$'\n'"  # $r ($(cat "$OUT/$r.args")): sysbench [$(echo $a)] sbio [$(echo $b)]"
	done
	if [ -n "${DIFFERS[$name]:-}" ]; then
		if [ -n "$differed" ]; then
			ok "'$name' still differs where doc/sysbench.md says (${DIFFERS[$name]})"
		else
			notok "'$name': doc/sysbench.md lists a difference in ${DIFFERS[$name]} that no run shows (a stale row)"
		fi
	fi
	if [ "$used" -eq 0 ]; then
		notok "one-liner '$name' ($kind): no run to check it on"
	elif [ -z "$bad" ]; then
		ok "one-liner '$name' ($kind): the same answer on both reports in $used runs"
	else
		notok "one-liner '$name' ($kind): different answers: $cmd$bad"
	fi
done <"$CORPUS"
[ "$nlines" -gt 40 ] || notok "the corpus has only $nlines one-liners"
