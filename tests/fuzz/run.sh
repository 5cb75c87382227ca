#!/bin/bash
# make fuzz: run each libFuzzer harness built in BUILD_DIR for SECONDS on its corpus
# (tests/fuzz/corpus/NAME/, with tests/fuzz/dict/NAME.dict when there is one), new inputs
# collected in BUILD_DIR/new/NAME/ and merged into the corpus (-merge=1 keeps only those that
# reach new edges). A crash, leak, sanitizer report or broken invariant leaves its input in
# BUILD_DIR/artifacts/ and makes the exit status 1, after every harness has run.
# Usage: tests/fuzz/run.sh SECONDS BUILD_DIR NAME...
set -u
cd "$(dirname "$0")/../.." || exit 1
secs=$1 dir=$2
shift 2
failed=0
mkdir -p "$dir/artifacts"
# A UBSan report with its stack, as AddressSanitizer's have.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for name in "$@"; do
	bin=$dir/fuzz_$name corpus=tests/fuzz/corpus/$name new=$dir/new/$name log=$dir/$name.log
	dict=()
	[ -f "tests/fuzz/dict/$name.dict" ] && dict=(-dict="tests/fuzz/dict/$name.dict")
	rm -rf "$new"
	mkdir -p "$new" "$corpus"
	echo "fuzz_$name: ${secs} s on $corpus (log: $log)"
	"$bin" -max_total_time="$secs" -timeout=10 -print_final_stats=1 "${dict[@]}" \
		-artifact_prefix="$dir/artifacts/$name-" "$new" "$corpus" >"$log" 2>&1
	rc=$?
	final=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ "$rc" -ne 0 ]; then
		failed=1
		echo "fuzz_$name: FAILED (exit $rc); the input is in $dir/artifacts/:"
		grep -E 'ERROR|SUMMARY|invariant|runtime error|^    #[0-9] ' "$log" | head -n 20 |
			sed 's/^/  /'
		continue
	fi
	before=$(find "$corpus" -maxdepth 1 -type f | wc -l)
	# Only inputs that reach new edges (not new hit counts): the corpus stays small.
	"$bin" -merge=1 -use_counters=0 "$corpus" "$new" >"$dir/$name.merge.log" 2>&1 ||
		echo "fuzz_$name: merge failed (see $dir/$name.merge.log)"
	after=$(find "$corpus" -maxdepth 1 -type f | wc -l)
	echo "fuzz_$name: ${execs:-?} executions, ${final#*DONE   }; corpus $before -> $after inputs"
done
exit "$failed"
