#!/bin/bash
# The fuzz corpora replayed: every harness of tests/fuzz/ (fuzz_NAME.c)
# built with gcc and tests/fuzz/replay.c instead of libFuzzer (no clang runtime needed),
# with AddressSanitizer and UndefinedBehaviorSanitizer when gcc has them, and run once on
# every file of tests/fuzz/corpus/NAME/. One line per harness: "ok - … fuzz_NAME corpus (N
# inputs)", or "not ok" with the input that failed and the first lines of the report. The
# sources the harnesses link are listed in tests/fuzz/sources. `make fuzz` grows the corpora.
source "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
B=$TMP/build
mkdir -p "$B"

PKG_CFLAGS=$(pkg-config --cflags luajit liburing jansson 2>/dev/null)
PKG_LIBS=$(pkg-config --libs luajit liburing jansson 2>/dev/null)
CFLAGS=(-std=gnu11 -Wall -Wextra -Werror -pthread -D_GNU_SOURCE -O0 -g -Itests/fuzz)
# Every layer's folder of src/ on the quote path, as the Makefile puts them.
for d in src/*/; do CFLAGS+=(-iquote "${d%/}"); done
SAN=(-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all)
LIBS=(-Wl,--push-state,--no-as-needed $PKG_LIBS -laio -Wl,--pop-state -lm -pthread)

# Sanitizers when this gcc can link them; a plain build still catches crashes and the
# harnesses' own invariants.
echo 'int main(void){return 0;}' >"$B/probe.c"
if ! gcc "${SAN[@]}" -o "$B/probe" "$B/probe.c" 2>/dev/null; then
	SAN=()
	echo "# gcc cannot link -fsanitize=address,undefined: replaying without sanitizers"
fi
# Reports stop the replay with a distinct status. Under make test-asan, ASAN_OPTIONS is
# already set (its log_path collects the report for run-tests.sh): kept as it is.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:exitcode=66:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=66:print_stacktrace=1}

# The harnesses' own folders go under $TMP, removed on exit even after a crash.
export SBIO_FUZZ_TMPDIR=$TMP
start=$(date +%s.%N)
built=1
pids=()
for src in $(cat tests/fuzz/sources); do
	obj=$B/$(echo "${src#src/}" | tr / _).o
	# shellcheck disable=SC2086
	gcc "${CFLAGS[@]}" $PKG_CFLAGS "${SAN[@]}" -c -o "$obj" "$src" 2>"$obj.log" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || built=0; done
if [ "$built" -ne 1 ]; then
	notok "build the sources of tests/fuzz/sources: $(cat "$B"/*.log | head -c 600 | tr '\n' ' ')"
	exit 1
fi

for h in tests/fuzz/fuzz_*.c; do
	name=$(basename "$h" .c)
	corpus=tests/fuzz/corpus/${name#fuzz_}
	if ! gcc "${CFLAGS[@]}" "${SAN[@]}" -o "$B/$name" "$h" tests/fuzz/replay.c "$B"/*.o \
		"${LIBS[@]}" 2>"$B/$name.log"; then
		notok "$name: build: $(head -c 600 "$B/$name.log" | tr '\n' ' ')"
		continue
	fi
	if [ ! -d "$corpus" ]; then
		notok "$name: no corpus folder $corpus"
		continue
	fi
	# Every file once, in one process; after a failure the replay goes on from the next file,
	# so that one bad input does not hide the others.
	mapfile -t files < <(find "$corpus" -maxdepth 1 -type f ! -name '.*' | LC_ALL=C sort)
	total=${#files[@]} passed=0 failed=0 i=0
	while [ "$i" -lt "$total" ]; do
		{ "$B/$name" "${files[@]:i}" >"$B/$name.out" 2>"$B/$name.err"; } 2>/dev/null
		rc=$?
		n=$(grep -c '^input: ' "$B/$name.out")
		if [ "$rc" -eq 0 ]; then
			passed=$((passed + n))
			break
		fi
		last=$(grep '^input: ' "$B/$name.out" | tail -n 1)
		notok "$name: ${last#input: }: exit $rc"
		grep -E 'ERROR|SUMMARY|invariant|runtime error|^    #[0-9] ' "$B/$name.err" | head -n 12 |
			sed 's/^/  # /'
		passed=$((passed + (n > 0 ? n - 1 : 0)))
		failed=$((failed + 1))
		i=$((i + (n > 0 ? n : 1)))
	done
	if [ "$total" -eq 0 ]; then
		notok "$name: the corpus $corpus is empty"
	elif [ "$failed" -eq 0 ]; then
		ok "$name corpus ($passed inputs)"
	else
		echo "# $name corpus: $passed of $total inputs passed"
	fi
done
echo "# fuzz replay: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
