#!/bin/bash
# The survey's readers-vs-writer row beside fio: under each scheduler the device offers, sbio's
# readers-vs-writer workload (as the shipped survey.battery runs it) and fio's same pair of
# jobs on the same file, interleaved (the two tools taking turns to go first, scheduler after
# scheduler), ROUNDS rounds.
# Prints, per scheduler and tool, the readers' p99 and p50 (ms) and the writer's MiB/s: the
# median of the rounds (min–max). The scheduler is set on the folder's device and put back on
# exit.
#   bench/survey-fio.sh DIR [ROUNDS] [SECONDS] [SIZE]     (root; DIR on a block device)
set -eu
DIR=${1:?usage: bench/survey-fio.sh DIR [ROUNDS] [SECONDS] [SIZE]}
ROUNDS=${2:-3}
SECS=${3:-5}
SIZE=${4:-512M}
SBIO=${SBIO:-$(cd "$(dirname "$0")/.." && pwd)/sbio}
command -v fio >/dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 2; }
DEV=$(lsblk -no PKNAME "$(findmnt -no SOURCE --target "$DIR")" 2>/dev/null | head -1)
[ -n "$DEV" ] || DEV=$(basename "$(findmnt -no SOURCE --target "$DIR")")
Q=/sys/block/$DEV/queue/scheduler
[ -w "$Q" ] || { echo "$DIR: no scheduler file for its device ($Q)" >&2; exit 2; }
BEFORE=$(sed 's/.*\[\(.*\)\].*/\1/' "$Q")
SCHEDS=$(tr -d '[]' <"$Q")
# KEEP=DIR keeps every run's JSON there (sbio-S-R.json, fio-S-R.json).
OUT=${KEEP:-$(mktemp -d)}
mkdir -p "$OUT"
trap 'echo "$BEFORE" >"$Q"; "$SBIO" cleanup --script readers-vs-writer --dir="$DIR" --size="$SIZE" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$OUT"' EXIT
"$SBIO" prepare --script readers-vs-writer --dir="$DIR" --size="$SIZE" >/dev/null
sbio_run() {
	"$SBIO" run --script readers-vs-writer --dir="$DIR" --size="$SIZE" --time="$SECS" \
		-o "$OUT/sbio-$1-$2.json" >/dev/null
}
fio_run() {
	# --randrepeat=0: fio's readers otherwise read the same blocks in every run (its seed is
	# fixed by default), which a cache below the device (a VM host's) then serves.
	fio --filename="$DIR/test_file.0" --size="$SIZE" --direct=1 --runtime="$SECS" --time_based \
		--randrepeat=0 --group_reporting --output-format=json --name=reader --rw=randread --bs=4k \
		--ioengine=psync --numjobs=2 --name=writer --new_group --rw=write --bs=1M \
		--ioengine=libaio --iodepth=8 >"$OUT/fio-$1-$2.json"
}
# The tools take turns going first, round after round, so that neither always runs in the
# other's wake.
for r in $(seq "$ROUNDS"); do
	for s in $SCHEDS; do
		echo "$s" >"$Q"
		if [ $((r % 2)) = 1 ]; then
			sbio_run "$s" "$r" && fio_run "$s" "$r"
		else
			fio_run "$s" "$r" && sbio_run "$s" "$r"
		fi
	done
done
python3 - "$OUT" "$SCHEDS" "$ROUNDS" <<'PY'
import json, statistics, sys
out, scheds, rounds = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
def sbio(f):
    jobs = {j['name']: j['result']['result'] for j in json.load(open(f))['phases'][0]['jobs']}
    p = jobs['readers']['op_types']['read']['latency']['percentiles_ns']
    return p['99'] / 1e6, p['50'] / 1e6, jobs['writer']['op_types']['write']['mib_per_s']
def fio(f):
    jobs = json.load(open(f))['jobs']
    p = jobs[0]['read']['clat_ns']['percentile']
    return p['99.000000'] / 1e6, p['50.000000'] / 1e6, jobs[1]['write']['bw'] / 1024
def cell(v):
    f = lambda x: '%.0f' % x if x >= 100 else '%.3g' % x
    return '%s (%s–%s)' % (f(statistics.median(v)), f(min(v)), f(max(v)))
print('| scheduler | tool | readers p99 (ms) | readers p50 (ms) | writer MiB/s |')
print('|---|---|---:|---:|---:|')
for s in scheds:
    for tool, read in (('sbio', sbio), ('fio', fio)):
        v = [read('%s/%s-%s-%d.json' % (out, tool, s, r)) for r in range(1, rounds + 1)]
        print('| %s | %s | %s | %s | %s |' % (s, tool, cell([x[0] for x in v]),
                                              cell([x[1] for x in v]), cell([x[2] for x in v])))
PY
