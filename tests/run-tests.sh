#!/bin/bash
# Run every unit test binary given as arguments and every tests/integration/*.sh script,
# count their TAP lines ("ok …" / "not ok …"), and end with one line "N passed, N failed".
# Exit status is non-zero when anything failed. Under CI=true a skip is a failure (CI has
# root and loop devices), but for a skip whose reason starts "kernel: " ("ok - T: # SKIP
# kernel: no bfq scheduler", lib.sh's skip_kernel): a feature the running kernel lacks, which
# no set-up can give; it is listed and counted as skipped.
# Environment: SBIO, the binary the integration scripts drive (default ./sbio);
# SBIO_SKIP_TESTS, integration scripts not to run (names without .sh); SBIO_SANITIZER_LOG, a
# folder where sanitizers write their reports (log_path): a report there fails the test
# that was running (make test-asan / test-tsan set these).
set -u
cd "$(dirname "$0")/.."
export SBIO="${SBIO:-$PWD/sbio}"
passed=0
failed=0
skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Sanitizer reports written since the last call: one "not ok" line each in $log, the report
# itself on stdout; the files move to $SBIO_SANITIZER_LOG/seen.
sanitizer_reports() { # name
	local dir=${SBIO_SANITIZER_LOG:-} r
	[ -n "$dir" ] || return 0
	mkdir -p "$dir/seen"
	for r in "$dir"/*.[0-9]*; do
		[ -f "$r" ] || continue
		echo "not ok - $1: sanitizer report ${r##*/}" | tee -a "$log"
		sed -n '1,30s/^/  # /p' "$r"
		mv "$r" "$dir/seen/$1.${r##*/}"
	done
}

count() { # name, exit status of the producer; TAP lines in $log
	local name=$1 status=$2 p f s sf
	s=$(grep -c '^ok .*# SKIP' "$log" | tr -d ' ')
	p=$(($(grep -c '^ok ' "$log" | tr -d ' ') - s))
	f=$(grep -c '^not ok ' "$log" | tr -d ' ')
	if [ "${CI:-}" = true ] && [ "$s" -gt 0 ]; then
		grep '^ok .*# SKIP kernel: ' "$log" | sed 's/^/  (CI=true: skipped, the kernel lacks it) /'
		grep '^ok .*# SKIP' "$log" | grep -v '# SKIP kernel: ' | sed 's/^/  (CI=true: a skip is a failure) /'
		sf=$(grep '^ok .*# SKIP' "$log" | grep -vc '# SKIP kernel: ')
		f=$((f + sf))
		s=$((s - sf))
	fi
	# A producer that died without reporting a failure still failed.
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $status"
		f=1
	fi
	if [ "$p" -eq 0 ] && [ "$s" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name reported nothing"
		f=1
	fi
	passed=$((passed + p))
	skipped=$((skipped + s))
	failed=$((failed + f))
	printf '%-40s %4d passed %4d failed %4d skipped\n' "$name" "$p" "$f" "$s"
}

for bin in "$@"; do
	name=$(basename "$bin")
	CMOCKA_MESSAGE_OUTPUT=TAP "$bin" >"$log" 2>&1
	status=$?
	grep '^not ok' "$log"
	# A failure's own words (cmocka's messages, the CHECK lines before them), for CI logs.
	if [ "$status" -ne 0 ]; then
		grep -vE '^(ok|not ok) |^1\.\.[0-9]+$' "$log" | tail -n 40 | sed 's/^/  # /'
	fi
	sanitizer_reports "$name"
	count "$name" "$status"
done

for t in tests/integration/*.sh; do
	[ -e "$t" ] || continue
	[ "$(basename "$t")" = lib.sh ] && continue
	name=$(basename "$t")
	[[ " ${SBIO_SKIP_TESTS:-} " == *" ${name%.sh} "* ]] && continue
	start=$(date +%s)
	bash "$t" >"$log" 2>&1
	status=$?
	grep -E '^not ok|# SKIP' "$log"
	sanitizer_reports "$name"
	count "$name ($(($(date +%s) - start)) s)" "$status"
done

[ "$skipped" -gt 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
