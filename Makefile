# sbio — build, run, test, install.  See README.md.
CC ?= gcc
PREFIX ?= /usr/local
DESTDIR ?=
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -pthread -D_GNU_SOURCE
# Sanitizer flags (make test-asan / test-tsan set it; compile and link): empty by default.
SANFLAGS ?=
CFLAGS += $(SANFLAGS)
# Every library sbio uses is linked from the start (design: the dependency story is settled
# once). libaio ships no pkg-config file on Debian.
PKGS := luajit liburing jansson
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# src/ is drawn in layers, a folder each (scripts/check-layers.sh names them and their order);
# `#include "x.h"` finds a header in any of them. -iquote: only quoted includes look there, so
# src/control/mpi.h never hides the MPI library's <mpi.h>.
SRC_DIRS := $(patsubst %/,%,$(wildcard src/*/))
CPPFLAGS += $(addprefix -iquote ,$(SRC_DIRS)) $(PKG_CFLAGS)
LDLIBS += -Wl,--push-state,--no-as-needed $(PKG_LIBS) -laio -Wl,--pop-state -lm -pthread

# Object folder and binary: the sanitizer targets build into their own (build-asan/,
# sbio-asan …) so that build/ and ./sbio are left alone.
BUILD := build
BIN := sbio
SRCS := $(wildcard src/*.c src/*/*.c)
OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(BUILD)/main.o,$(OBJS))
# Everything but main.o, as an archive: a unit test links its own object, the helpers and
# $(BUILD)/libsbio.a, and the linker takes from it only the members the test needs (and
# what those need in turn), so no per-test object list has to be kept up to date. The
# price: a changed object relinks every test (links only; nothing is recompiled).
LIB := $(BUILD)/libsbio.a
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
# Test objects live apart from the binaries ($(BUILD)/unit/), so that the patterns of
# $(BUILD)/tests/ match binaries and preloaded tools only.
UNIT_OBJS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%.o,$(wildcard tests/unit/*.c))
UNIT_HELPERS := $(filter-out $(BUILD)/unit/test_%,$(UNIT_OBJS))
# Test tools the integration scripts preload (tests/tools/*.c; never instrumented).
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tests/%.so,$(wildcard tests/tools/*.c))
FORMAT_FILES := $(wildcard src/*.[ch] src/*/*.[ch] tests/unit/*.[ch] tests/tools/*.c bench/*.c)

.PHONY: all deps test-deps run test check-layers test-asan test-tsan sanitizer-test bench \
	experiments golden install clean format format-check

all: $(BIN)

# deps: what building and running need; test-deps: that and the test toolchain (cmocka,
# strace, fiu, clang, llvm, Open MPI, gnuplot, sysbench …; see scripts/install-deps.sh).
deps:
	@./scripts/install-deps.sh

test-deps:
	@./scripts/install-deps.sh --test

$(BIN): $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# -MMD -MP: each object gets a .d file listing the headers it includes (system headers
# aside), read back below; an object is rebuilt when one of its own headers changes.
DEPFLAGS = -MMD -MP
$(BUILD)/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# Rebuilt from scratch, so that a source file removed from src/ leaves no member behind.
$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The Lua prelude is compiled into the binary as LuaJIT bytecode: an installed sbio needs no
# lua/ folder. Installed workloads are found by bare name.
$(BUILD)/sbio_lua.h: lua/sbio.lua
	@mkdir -p $(dir $@)
	luajit -b -n sbio_prelude $< $@
$(BUILD)/control/script.o: $(BUILD)/sbio_lua.h
$(BUILD)/control/script.o: CPPFLAGS += -I$(BUILD) -DSBIO_WORKLOADS_DIR='"$(PREFIX)/share/sbio/workloads"'

# MPI (sbio under mpirun, many hosts; doc/mpi.md): MPI=1 builds with Open MPI,
# MPI=0 without; by default on when mpicc is found. Only src/control/mpi.c differs (it has
# single-process stand-ins); its flags are kept in $(BUILD)/mpi.flags so that switching
# rebuilds it.
ifeq ($(origin MPI),undefined)
MPI := $(if $(shell command -v mpicc 2>/dev/null),1,0)
endif
ifeq ($(MPI),1)
MPI_CFLAGS := -DHAVE_MPI $(patsubst -I%,-isystem %,$(shell mpicc --showme:compile))
MPI_LIBS := $(shell mpicc --showme:link)
LDLIBS += $(MPI_LIBS)
endif
$(BUILD)/control/mpi.o: CPPFLAGS += $(MPI_CFLAGS)
$(BUILD)/control/mpi.o: $(BUILD)/mpi.flags
$(BUILD)/mpi.flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(MPI_CFLAGS) $(MPI_LIBS)' | cmp -s - $@ || echo '$(MPI_CFLAGS) $(MPI_LIBS)' >$@
.PHONY: FORCE

$(BUILD)/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(shell pkg-config --cflags cmocka) $(DEPFLAGS) -c -o $@ $<

$(UNIT_BINS): $(BUILD)/tests/%: $(BUILD)/unit/%.o $(UNIT_HELPERS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs cmocka) $(LDLIBS)

$(BUILD)/tests/%.so: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fPIC -shared -Wall -Wextra -Werror -o $@ $< -ldl

# make run: a default workload on a small file set in a temporary folder, then cleanup.
run: deps
	@$(MAKE) --no-print-directory all
	@./scripts/demo.sh ./sbio

# make test: the test toolchain too, the layers checked, then every unit and integration
# test; ends "N passed, N failed".
test: test-deps check-layers
	@$(MAKE) --no-print-directory all $(UNIT_BINS) $(TEST_TOOLS)
	@SBIO_TOOLS="$(CURDIR)/$(BUILD)/tests" ./tests/run-tests.sh $(UNIT_BINS)

# make check-layers: src/'s layers kept (scripts/check-layers.sh): no include of a header of a
# higher layer, no cycle between modules; one line per violation.
check-layers:
	@./scripts/check-layers.sh

# make test-asan / test-tsan: the same tests against a clang build with AddressSanitizer +
# UndefinedBehaviorSanitizer (LeakSanitizer included), or ThreadSanitizer, in build-asan/ and
# ./sbio-asan (build-tsan/, ./sbio-tsan); build/ and ./sbio are left alone. Every report halts
# the process with exit code 66 and is written to $(BUILD)/sanitizer/: tests/run-tests.sh
# counts a report from any process (a unit test, or any sbio an integration script started,
# whatever its exit status was checked for) as a failure of that test. TSan skips the
# integration scripts that start no worker threads (TSAN_SKIP) to save CI time.
# tests/sanitizers/*.supp suppress reports inside third-party libraries only.
SAN_CC := clang
SAN_COMMON := -O1 -g -fno-omit-frame-pointer
ASAN_FLAGS := $(SAN_COMMON) -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN_FLAGS := $(SAN_COMMON) -fsanitize=thread
TSAN_SKIP := docs diff bad_input fuzz_replay sysbench_oneliners sysbench_doc
SAN_OPTS := halt_on_error=1:abort_on_error=0:exitcode=66

test-asan: test-deps
	@$(MAKE) --no-print-directory CC=$(SAN_CC) SANFLAGS="$(ASAN_FLAGS)" BUILD=build-asan \
		BIN=sbio-asan sanitizer-test \
		SAN_ENV="ASAN_OPTIONS=$(SAN_OPTS):detect_leaks=1:detect_stack_use_after_return=1:log_path=$(CURDIR)/build-asan/sanitizer/asan \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
		UBSAN_OPTIONS=$(SAN_OPTS):print_stacktrace=1:log_path=$(CURDIR)/build-asan/sanitizer/ubsan"

test-tsan: test-deps
	@$(MAKE) --no-print-directory CC=$(SAN_CC) SANFLAGS="$(TSAN_FLAGS)" BUILD=build-tsan \
		BIN=sbio-tsan sanitizer-test \
		SAN_ENV="TSAN_OPTIONS=$(SAN_OPTS):second_deadlock_stack=1:suppressions=$(CURDIR)/tests/sanitizers/tsan.supp:log_path=$(CURDIR)/build-tsan/sanitizer/tsan \
		SBIO_SKIP_TESTS='$(TSAN_SKIP)'"

# (used by test-asan and test-tsan, with BUILD, BIN, SANFLAGS and SAN_ENV set). clang 14's
# sanitizers cannot start when the kernel randomizes mmap with more than 28 bits
# (vm.mmap_rnd_bits=32 on some kernels): then the tests run with ASLR off (setarch -R).
sanitizer-test:
	@$(MAKE) --no-print-directory all $(UNIT_BINS) $(TEST_TOOLS)
	@rm -rf $(BUILD)/sanitizer && mkdir -p $(BUILD)/sanitizer
	@wrap=; if ! ./$(BIN) --version >/dev/null 2>&1 && \
		setarch "$$(uname -m)" -R ./$(BIN) --version >/dev/null 2>&1; then \
		echo "# $(BIN) does not start with this kernel's ASLR: the tests run under setarch -R"; \
		wrap="setarch $$(uname -m) -R"; \
	fi; env $(SAN_ENV) SBIO="$(CURDIR)/$(BIN)" SBIO_SANITIZER_LOG="$(CURDIR)/$(BUILD)/sanitizer" \
		SBIO_TOOLS="$(CURDIR)/$(BUILD)/tests" \
		$$wrap ./tests/run-tests.sh $(UNIT_BINS)

# make bench: sbio vs the pread floor, sysbench and fio, side by side (see doc/performance.md).
bench:
	@./scripts/install-deps.sh fio sysbench
	@$(MAKE) --no-print-directory all
	@./bench/run.sh

# make experiments: the seven experiment workloads beside the tools they reproduce (sysbench,
# fio, bonnie++, dd, fs_mark, PostMark), both checks: the same work per cell (device counters
# and system calls, bench/samework.sh) and the same speed (5 interleaved rounds, on a loop
# device over RAM as root); about 17 minutes, never part of make test (see doc/experiments.md).
experiments:
	@./scripts/install-deps.sh fio sysbench bonnie++ fsmark postmark python3 strace
	@$(MAKE) --no-print-directory all
	@./bench/experiments.sh

# make golden OLD=path/to/old/sbio: this build's outputs against another binary's, case by
# case (scripts/golden.sh, doc/testing.md); never part of make test.
golden: $(BIN)
	@test -n "$(OLD)" || { echo "make golden needs OLD=path/to/the/other/sbio" >&2; exit 2; }
	@./scripts/golden.sh "$(OLD)" ./$(BIN) $(GOLDEN_OUT)

# The man page names the documents by their place in the source tree (doc/NAME.md); the
# installed copy names them where they are installed.
DOCDIR := $(PREFIX)/share/doc/sbio
install: sbio
	install -D -m 0755 sbio $(DESTDIR)$(PREFIX)/bin/sbio
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(DOCDIR)
	sed 's|doc/\([a-z]*\.md\)|$(DOCDIR)/\1|g' doc/sbio.1 >$(DESTDIR)$(PREFIX)/share/man/man1/sbio.1
	chmod 0644 $(DESTDIR)$(PREFIX)/share/man/man1/sbio.1
	install -m 0644 README.md doc/*.md $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(PREFIX)/share/sbio/workloads
	install -m 0644 workloads/*.lua workloads/*.battery $(DESTDIR)$(PREFIX)/share/sbio/workloads/

format:
	clang-format -i $(FORMAT_FILES)

format-check: test-deps
	clang-format --dry-run -Werror $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) $(BIN) build-asan sbio-asan build-tsan sbio-tsan

# make fuzz: the libFuzzer harnesses of tests/fuzz/ (see tests/fuzz/fuzz.h), built with clang
# (ASan + UBSan) into build-fuzz/ and each run FUZZ_TIME seconds on its corpus; new inputs
# that add coverage are merged into tests/fuzz/corpus/NAME/. make test replays the corpora
# (tests/integration/fuzz_replay.sh). The harnesses link the sources in tests/fuzz/sources.
FUZZ_TIME ?= 60
FUZZ_NAMES := options size manifest json
FUZZ_BUILD := build-fuzz
FUZZ_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -pthread -D_GNU_SOURCE -O1 -g \
	-fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJS := $(patsubst src/%.c,$(FUZZ_BUILD)/obj/%.o,$(shell cat tests/fuzz/sources))
FUZZ_BINS := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_NAMES))

.PHONY: fuzz
.SECONDARY: $(FUZZ_OBJS)
fuzz: test-deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@./tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZ_BUILD) $(FUZZ_NAMES)

$(FUZZ_BUILD)/obj/%.o: src/%.c tests/fuzz/sources
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# Compiled and linked in one step: the .d file is named after the binary.
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS)
	clang $(CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_OBJS) $(LDLIBS)

# The header dependencies the compiler wrote (none before the first build).
-include $(patsubst %.o,%.d,$(OBJS) $(UNIT_OBJS) $(FUZZ_OBJS)) $(FUZZ_BINS:=.d)
