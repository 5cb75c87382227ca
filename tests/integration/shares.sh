#!/bin/bash
# How a script phase's jobs shared it, on real files: a phase of two jobs (a 16 KiB O_DIRECT
# reader of two threads beside a 4 KiB buffered reader-writer, 2 s) then a phase of one job.
# The phase's JSON `shares` must be each job's own figures (from its own result document)
# over the jobs' sum, every kind summing to 1, with Jain's index recomputed from the jobs'
# bytes/s; the text report shows the table and the index, the script's report(result) sees
# the same values, and a phase of one job has none of it.
source "$(dirname "$0")/lib.sh"

D=$TMP/set
mkdir -p "$D"
cat >"$TMP/two.lua" <<'EOF'
fileset { files = 2, size = "8M" }
phase "pair" {
    time = 2,
    job "reader" { threads = 2, block = "16k", flags = "direct", mix = { read = 1 } },
    job "mixed" { threads = 1, block = "4k", mix = { read = 3, write = 1 } },
}
phase "alone" { time = 1, job "solo" { threads = 1, block = "4k", mix = { read = 1 } } }
function report(result)
    for _, p in ipairs(result.phases) do
        if p.shares then
            for _, j in ipairs(p.shares.jobs) do
                print(string.format("seen %s %s %.9f %.9f %s", p.name, j.name, j.bytes_share,
                                    j.ops_share, tostring(j.asked_share)))
            end
            print(string.format("seen %s jain %.9f %s", p.name, p.shares.jain_index,
                                p.shares.jain_over))
        else
            print("seen " .. p.name .. " none")
        end
    end
end
EOF

"$SBIO" prepare --dir="$D" --script "$TMP/two.lua" >"$TMP/prep" 2>&1
expect_exit 0 "a script of a two-job phase runs" \
	"$SBIO" run --dir="$D" --script "$TMP/two.lua" -o "$TMP/r.json"
cp "$TMP/out" "$TMP/text"

# The phase's shares against its jobs' own documents: one "name value" line per figure.
python3 - "$TMP/r.json" >"$TMP/check" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
p = doc['phases'][0]
sh = p['shares']
jobs = [j['result']['result'] for j in p['jobs']]
def fig(r, what):
    t = r['op_types']
    return {'ops': r['ops'], 'read_ops': t['read']['ops'], 'write_ops': t['write']['ops'],
            'read_bytes': t['read']['bytes'] + t['rmw']['bytes'],
            'write_bytes': t['write']['bytes'] + t['rmw']['bytes'],
            'bytes': t['read']['bytes'] + t['write']['bytes'] + 2 * t['rmw']['bytes']}[what]
worst = 0.0
for what in ('ops', 'bytes', 'read_ops', 'write_ops', 'read_bytes', 'write_bytes'):
    tot = sum(fig(r, what) for r in jobs)
    got = [s[what + '_share'] for s in sh['jobs']]
    worst = max([worst, abs(sum(got) - 1)] + [abs(g - fig(r, what) / tot) for g, r in zip(got, jobs)])
print('worst', '%.3g' % worst, 'ok' if worst < 1e-9 else 'off')
x = [fig(r, 'bytes') / r['elapsed_s'] for r in jobs]
print('jain', '%.9f' % (sum(x) ** 2 / (len(x) * sum(v * v for v in x))))
print('json_jain', '%.9f' % sh['jain_index'])
print('over', sh['jain_over'])
print('weights', ','.join(str(s['weight']) + '/' + str(s['asked_share']) + '/' + str(s['ratio']) for s in sh['jobs']))
print('names', ','.join(s['name'] for s in sh['jobs']))
print('moved', min(fig(r, 'bytes') for r in jobs) > 0 and fig(jobs[1], 'write_ops') > 0)
print('alone', 'shares' in doc['phases'][1])
for s in sh['jobs']:
    print('row', s['name'], '%.9f' % s['bytes_share'], '%.9f' % s['ops_share'])
EOF
val() { sed -n "s/^$1 //p" "$TMP/check"; }
eq "both jobs moved bytes, the second wrote too" "$(val moved)" True
eq "each share is the job's figure over the jobs' sum, each kind sums to 1 ($(val worst))" \
	"$(val worst | cut -d' ' -f2)" ok
near "Jain's index is (sum x)^2 / (n sum x^2) over the jobs' bytes/s" "$(val json_jain)" "$(val jain)" 0.00001
eq "the index is over bytes/s without weights" "$(val over)" bytes_per_s
eq "no weights: weight, asked share and ratio null" "$(val weights)" "None/None/None,None/None/None"
eq "the jobs in the phase's order" "$(val names)" reader,mixed
eq "a phase of one job has no shares" "$(val alone)" False

# The text report: the table after the phase's total, a row per job, the index.
check "the text report has the shares table" grep -q "^How the jobs shared the phase" "$TMP/text"
check "its header names the columns" grep -qE "^  job +MiB/s +ops share +bytes share +reads share +writes share +weight +asked share +ratio$" "$TMP/text"
for job in reader mixed; do
	want=$(val row | awk -v j="$job" '$1 == j { printf "%.3f %.3f", $3, $2 }')
	got=$(awk -v j="$job" '/^How the jobs shared/ { on = 1 } on && $1 == j { print $3, $4; exit }' "$TMP/text")
	eq "the table's ops and bytes shares of $job are the JSON's" "$got" "$want"
done
jain=$(printf '%.3f' "$(val json_jain)")
check "the text report says Jain's index and what it is over" \
	grep -qF "  Jain's fairness index: $jain (over bytes/s, 2 jobs)" "$TMP/text"
eq "one shares table: none for the phase of one job" "$(grep -c '^How the jobs shared' "$TMP/text")" 1
before=$(grep -n "^--- Phase pair, all jobs ---" "$TMP/text" | cut -d: -f1)
table=$(grep -n "^How the jobs shared" "$TMP/text" | cut -d: -f1)
check "the table comes after the phase's total" test "${table:-0}" -gt "${before:-999999}"

# report(result) gets the same figures.
for job in reader mixed; do
	# To 6 digits: the two sides print 9 digits of one double each their own way.
	want=$(val row | awk -v j="$job" '$1 == j { printf "%.6f %.6f", $2, $3 }')
	got=$(awk -v j="$job" '$1 == "seen" && $2 == "pair" && $3 == j { printf "%.6f %.6f", $4, $5 }' \
		"$TMP/text")
	eq "report(result) sees $job's bytes and ops shares" "$got" "$want"
done
eq "report(result) sees the index" \
	"$(awk '$1 == "seen" && $3 == "jain" { printf "%.6f %s", $4, $5 }' "$TMP/text")" \
	"$(printf '%.6f bytes_per_s' "$(val json_jain)")"
eq "report(result) sees no asked share without weights" \
	"$(awk '$1 == "seen" && $3 == "reader" { print $6 }' "$TMP/text")" nil
check "report(result) sees no shares for a phase of one job" grep -q "^seen alone none$" "$TMP/text"
