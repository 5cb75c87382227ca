#!/bin/bash
# workloads/io-controller.lua against the kernel, on the test's own loop device (direct I/O to
# its image) under bfq: each reader of the weights phase runs in a group of its own (its
# path in the JSON, the kernel's counters of it equal to the reader's bytes), the shares sum
# to 1 and the heaviest weight gets the largest, the inside cells run in a group of the
# kernel's defaults and the outside ones in none, report()'s tables are the JSON's figures;
# under mq-deadline report() says the weights do nothing; --cells= runs no cell; nothing is
# left under the blkio hierarchy after the run; bad options are refused (exit 2, one line, no
# folder made). Where the kernel has no bfq, the bfq and mq-deadline runs are a skip
# ("kernel: no bfq scheduler…") and the run's refusal of a bfq_weight is checked instead.
# Needs root (loop device, scheduler, control groups): skips otherwise.
source "$(dirname "$0")/lib.sh"

WL=$(cd "$(dirname "$0")/../../workloads" && pwd)/io-controller.lua
MNT=$TMP/mnt
ioc_cleanup() {
	loop_cleanup "$MNT"
	t_cleanup
}
trap ioc_cleanup EXIT

if ! need_root; then
	skip "needs root (loop device, I/O scheduler, control groups)"
	exit 0
fi
BLKIO=$(awk '$9 == "cgroup" && $NF ~ /(^|,)blkio(,|$)/ { print $5; exit }' /proc/self/mountinfo)
if [ -z "$BLKIO" ]; then
	skip "no cgroup v1 blkio hierarchy mounted: the checks read the groups there"
	exit 0
fi

# --- The test's own loop device under bfq. Where the kernel has no bfq, a group with a
# bfq_weight is refused (blkio has no bfq.weight file), and the checks that need none run.
loop_ext4 --direct-io 512M "$MNT"
HAVE_BFQ=false
if sched_offered bfq; then
	HAVE_BFQ=true
	loop_sched bfq
fi

SET=(--script="$WL" --dir="$MNT" --size=160M)
"$SBIO" prepare "${SET[@]}" --file-fill=zero >/dev/null 2>"$TMP/err" ||
	notok "prepare on the loop device: $(head -c 300 "$TMP/err")"

if $HAVE_BFQ; then
	# --- The defaults' four weights, short phases.
	"$SBIO" run "${SET[@]}" --time=2 --cell-time=1 -o "$TMP/r.json" >"$TMP/r.out" 2>"$TMP/r.err"
	eq "io-controller under bfq: exit 0" "$?" 0
	# facts: one line per check, from the JSON.
	python3 - "$TMP/r.json" "$BLKIO" >"$TMP/facts" 2>&1 <<'EOF'
import json, re, sys
doc, blkio = json.load(open(sys.argv[1])), sys.argv[2]
w = doc["phases"][0]
paths = [j["result"]["result"]["group"]["path"] for j in w["jobs"]]
pid = re.search(r"/sbio\.(\d+)/", paths[0]).group(1)
print("pid", pid)
own = [p.startswith(blkio) and p.endswith("/sbio.%s/%s" % (pid, j["name"]))
       for p, j in zip(paths, w["jobs"])]
print("groups", len(set(paths)), all(own))
near = [abs(j["result"]["result"]["group"]["kernel"]["read_bytes"] -
            j["result"]["result"]["op_types"]["read"]["bytes"]) <=
        0.01 * j["result"]["result"]["op_types"]["read"]["bytes"] for j in w["jobs"]]
print("kernel", all(near))
print("declared", " ".join(str(j["declared"]["group"]["bfq_weight"]) for j in w["jobs"]))
sh = w["shares"]["jobs"]
print("sum %.6f" % sum(j["bytes_share"] for j in sh))
top = max(sh, key=lambda j: j["bytes_share"])
print("top", top["weight"], max(j["weight"] for j in sh))
print("inside", " ".join("%s:%s" % (p["name"], p["jobs"][0]["result"]["result"]["group"] is not None)
                         for p in doc["phases"][1:]))
EOF
	PID=$(sed -n 's/^pid //p' "$TMP/facts")
	eq "each of the 4 readers ran in a group of its own, named after it" \
		"$(sed -n 's/^groups //p' "$TMP/facts")" "4 True"
	eq "the kernel's bytes of each reader's group are the reader's within 1%" \
		"$(sed -n 's/^kernel //p' "$TMP/facts")" "True"
	eq "each reader's group at its weight of --weights" "$(sed -n 's/^declared //p' "$TMP/facts")" \
		"100 200 400 800"
	eq "the readers' shares of the bytes sum to 1" "$(sed -n 's/^sum //p' "$TMP/facts")" "1.000000"
	eq "the heaviest weight's reader has the largest share" "$(sed -n 's/^top //p' "$TMP/facts")" \
		"800 800"
	eq "the inside cells ran in a group, the outside ones in none" \
		"$(sed -n 's/^inside //p' "$TMP/facts")" \
		"outside read direct:False inside read direct:True outside randread direct:False inside randread direct:True"
	check "an inside cell's group line says the kernel's defaults" grep -qx \
		"Group: $BLKIO.*/sbio.$PID/read (cgroup v1 blkio): the kernel's defaults" "$TMP/r.out"
	# want: report()'s tables rebuilt from the JSON.
	python3 - "$TMP/r.json" >"$TMP/want" 2>&1 <<'EOF'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
s = ph[0]["shares"]
print("  %-10s %8s %10s %8s %8s %8s" % ("group", "weight", "MiB/s", "share", "asked", "ratio"))
for j in s["jobs"]:
    print("  %-10s %8d %10.1f %8.3f %8.3f %8.2f" % (j["name"], j["weight"], j["mib_per_s"],
          j["bytes_share"], j["asked_share"], j["ratio"]))
print("  Jain's fairness index: %.3f (over bytes/s per asked share, %d groups)"
      % (s["jain_index"], len(s["jobs"])))
mib = {p["name"]: p["jobs"][0]["result"]["result"]["op_types"]["read"]["mib_per_s"] for p in ph[1:]}
print("  %-18s %14s %14s %15s" % ("cell", "outside MiB/s", "inside MiB/s", "inside/outside"))
for c in ("read direct", "randread direct"):
    o, i = mib["outside " + c], mib["inside " + c]
    print("  %-18s %14.1f %14.1f %15.2f" % (c, o, i, i / o))
EOF
	eq "report() prints the weights table, Jain's index and the cells' ratios from the JSON's figures" \
		"$(sed -n '/^=== report() of /,$p' "$TMP/r.out" | grep '^  ')" "$(cat "$TMP/want")"
	check "report() names the weights and the scheduler" grep -qx \
		"weights (bfq_weight, scheduler bfq): each group's share of the bytes against the share its weight asks for" \
		"$TMP/r.out"
	check "under bfq report() has no note that the weights do nothing" \
		sh -c "! grep -q 'does nothing' '$TMP/r.out'"
	left=$(find "$BLKIO" -maxdepth 3 -type d -name "sbio.$PID" 2>/dev/null)
	eq "after the run nothing is left under $BLKIO" "$left" ""

	# --- Under mq-deadline the weights do nothing, and report() says so.
	"$SBIO" run "${SET[@]}" --scheduler=mq-deadline --readers=2 --weights=100:800 --time=1 \
		--cells= -o "$TMP/dl.json" >"$TMP/dl.out" 2>"$TMP/dl.err"
	eq "io-controller --scheduler=mq-deadline --readers=2 --weights=100:800 --cells=: exit 0" "$?" 0
	eq "--cells= runs the weights phase alone, and report() prints no cells' table" \
		"$(json_get "$TMP/dl.json" phases.#) $(grep -c "controller's cost" "$TMP/dl.out")" "1 0"
	check "report() says bfq_weight does nothing under mq-deadline" grep -qx \
		"  the run's scheduler is mq-deadline, not bfq: bfq_weight does nothing there, the groups share the device as it splits it unweighted (run with --scheduler=bfq)" \
		"$TMP/dl.out"
	eq "sbio put bfq back on the loop device" "$(cur_sched)" bfq
else
	skip_kernel "no bfq scheduler: the weights phase under bfq, and report()'s note under mq-deadline"
	"$SBIO" run "${SET[@]}" --scheduler=mq-deadline --readers=2 --weights=100:800 --time=1 \
		--cells= -o "$TMP/dl.json" >"$TMP/dl.out" 2>"$TMP/dl.err"
	eq "io-controller --weights=100:800 where the kernel has no bfq: exit 2" "$?" 2
	check "it says bfq is not loaded" grep -q "group bfq_weight: bfq is not loaded" "$TMP/dl.err"
fi

# --- Bad options: exit 2, one line, nothing on stdout, no group made.
# refused DESC FRAGMENT ARGS…: sbio run of the workload with ARGS… is refused saying FRAGMENT,
# and makes no folder (strace: no mkdir but of a folder that exists).
refused() {
	local desc=$1 frag=$2
	shift 2
	expect_exit 2 "$desc: exit 2" strace -f -qq -o "$TMP/strace" -e trace=mkdir,mkdirat \
		"$SBIO" run "${SET[@]}" "$@"
	stderr_one_line "$desc: one line on stderr"
	check "$desc: it says $frag" grep -qF -- "$frag" "$TMP/err"
	check "$desc: nothing on stdout" test ! -s "$TMP/out"
	# A sanitizer build walks its log folder's path with mkdir (each answered EEXIST).
	eq "$desc: no folder made" "$(grep -v -e 'exited with' -e 'EEXIST' "$TMP/strace")" ""
}
refused "--readers=3 with four weights" "--weights gives 4 weights for 3 readers; accepted: one weight per reader" \
	--readers=3
refused "--weights=100,x" "--weights: 'x' is not a number" --readers=2 --weights=100,x
refused "--readers=1" "--readers 1 is not valid; accepted: 2 or more" --readers=1 --weights=100
refused "--weight-field=cost" "--weight-field 'cost' is not valid; accepted: bfq_weight, weight" \
	--weight-field=cost
refused "--cells=read" "--cells: 'read' is not a cell; accepted: MODE WAY" --cells=read
# Each job's group is checked in turn, its range before bfq's presence: where the kernel has
# no bfq the out-of-range weight comes first.
WBAD=100,200,400,2000
$HAVE_BFQ || WBAD=2000,100,200,400
refused "--weights=$WBAD" "group bfq_weight 2000 is out of range; accepted: 1 to 1000" \
	--weights=$WBAD
