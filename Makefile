# sbio — build, run, test, install.  See README.md.
CC ?= gcc
PREFIX ?= /usr/local
DESTDIR ?=
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -pthread -D_GNU_SOURCE
# Every library sbio uses is linked from the start (design: the dependency story is settled
# once). libaio ships no pkg-config file on Debian.
PKGS := luajit liburing jansson
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CPPFLAGS += -Isrc $(PKG_CFLAGS)
LDLIBS += -Wl,--push-state,--no-as-needed $(PKG_LIBS) -laio -Wl,--pop-state -lm -pthread

BUILD := build
SRCS := $(wildcard src/*.c src/engines/*.c)
OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(BUILD)/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/test_*.c)
UNIT_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
FORMAT_FILES := $(wildcard src/*.[ch] src/engines/*.c tests/*.c bench/*.c)

.PHONY: all deps run test bench install clean format format-check

all: sbio

deps:
	@./scripts/install-deps.sh

sbio: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(LIB_OBJS) $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(shell pkg-config --cflags cmocka) -o $@ $< $(LIB_OBJS) \
		$(shell pkg-config --libs cmocka) $(LDLIBS)

# make run: a default workload on a small file set in a temporary folder, then cleanup.
run: deps
	@$(MAKE) --no-print-directory all
	@./scripts/demo.sh ./sbio

# make test: the same set-up, then every unit and integration test; ends "N passed, N failed".
test: deps
	@$(MAKE) --no-print-directory all $(UNIT_BINS)
	@./tests/run-tests.sh $(UNIT_BINS)

# make bench: sbio vs the pread floor, sysbench and fio, side by side (see doc/performance.md).
bench:
	@./scripts/install-deps.sh fio sysbench
	@$(MAKE) --no-print-directory all
	@./bench/run.sh

install: sbio
	install -D -m 0755 sbio $(DESTDIR)$(PREFIX)/bin/sbio
	install -D -m 0644 doc/sbio.1 $(DESTDIR)$(PREFIX)/share/man/man1/sbio.1

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	clang-format --dry-run -Werror $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) sbio
