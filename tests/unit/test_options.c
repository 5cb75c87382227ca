/* Unit tests for the option table and parser (src/control/options.c). Error messages are part of
 * the contract (a bad option names the option, the value and what is accepted), so stderr
 * is captured and checked too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "helpers.h"
#include "ioprio.h"
#include "options.h"
#include "util.h"

static int validate(struct sbio_config *cfg, char *err, size_t errlen)
{
    struct capture c;
    cap_begin(&c);
    int rc = sbio_options_validate(cfg, 1);
    cap_end(&c, err, errlen);
    return rc;
}

static int count_char(const char *s, char ch)
{
    int n = 0;
    for (; *s; s++)
        n += *s == ch;
    return n;
}

/* An error is exactly one "sbio: ..." line. */
static void assert_one_error_line(const char *err)
{
    if (strncmp(err, "sbio: ", 6) || count_char(err, '\n') != 1 || err[strlen(err) - 1] != '\n')
        fail_msg("not one 'sbio: ' line: [%s]", err);
    assert_lacks(err, "note:");
}

/* Parse argv expecting -EINVAL; the message must be one line holding every needle. */
static void expect_bad(char **argv, const char *n1, const char *n2, const char *n3)
{
    struct sbio_config cfg;
    char err[MSG_MAX];
    int rc = parse_args(&cfg, argv, err, sizeof(err));
    if (rc != -EINVAL)
        fail_msg("expected -EINVAL, got %d (stderr: %s)", rc, err);
    assert_one_error_line(err);
    if (n1)
        assert_has(err, n1);
    if (n2)
        assert_has(err, n2);
    if (n3)
        assert_has(err, n3);
}

/* Parse argv expecting success and no error message (notes are allowed). */
static void expect_ok(struct sbio_config *cfg, char **argv, char *err, size_t errlen)
{
    int rc = parse_args(cfg, argv, err, errlen);
    if (rc)
        fail_msg("parse failed with %d: %s", rc, err);
    /* Every line printed on success must be a note, never an error. */
    for (const char *p = err; *p; p = strchr(p, '\n') + 1) {
        if (strncmp(p, "sbio: note: ", 12))
            fail_msg("unexpected message: %s", err);
        if (!strchr(p, '\n'))
            break;
    }
}

/* ---- defaults ---- */

static void test_defaults_as_sysbench(void **state)
{
    (void)state;
    struct sbio_config cfg;
    memset(&cfg, 0xa5, sizeof(cfg));
    sbio_options_defaults(&cfg);
    assert_int_equal(cfg.cmd, SBIO_CMD_NONE);
    assert_int_equal(cfg.nargs, 0);
    assert_int_equal(cfg.threads, 1);
    assert_int_equal(cfg.time_s, 10);
    assert_int_equal(cfg.events, 0);
    assert_int_equal(cfg.warmup_s, 0);
    assert_int_equal(cfg.rate, 0);
    assert_int_equal(cfg.report_interval_s, 0);
    assert_int_equal(cfg.percentile, 95);
    assert_false(cfg.histogram);
    assert_int_equal(cfg.rand_seed, 0);
    assert_int_equal(cfg.file_num, 128);
    assert_int_equal(cfg.block_size, 16384);
    assert_true(cfg.total_size == 2 * SBIO_GIB);
    assert_int_equal(cfg.mode, SBIO_MODE_NONE);
    assert_int_equal(cfg.io_mode, SBIO_IOMODE_SYNC);
    assert_int_equal(cfg.async_backlog, 128);
    assert_int_equal(cfg.extra_flags, 0);
    assert_int_equal(cfg.fsync_freq, 100);
    assert_false(cfg.fsync_all);
    assert_true(cfg.fsync_end);
    assert_int_equal(cfg.fsync_mode, SBIO_FSYNC_FSYNC);
    assert_int_equal(cfg.merged_requests, 0);
    assert_true(cfg.rw_ratio == 1.5);
    assert_false(cfg.verify);
    assert_string_equal(cfg.dir, ".");
    assert_null(cfg.filename);
    assert_null(cfg.script);
    assert_null(cfg.output);
    assert_null(cfg.scheduler);
    assert_int_equal(cfg.ioengine, sbio_engine_id("sync"));
    assert_int_equal(cfg.iodepth, 128);
    assert_int_equal(cfg.output_format, SBIO_OUT_TEXT);
    assert_int_equal(cfg.nvary, 0);
    assert_int_equal(cfg.nqueue, 0);
    assert_int_equal(cfg.repeat, 1);
    assert_int_equal(cfg.seq_stream, SBIO_SEQ_SHARED);
    assert_int_equal(cfg.fsync_scope, SBIO_SCOPE_ALL);
    assert_int_equal(cfg.prealloc, SBIO_PREALLOC_WRITE);
    assert_int_equal(cfg.fill, SBIO_FILL_RANDOM);
    assert_int_equal(cfg.threshold, 0); /* --threshold is off unless given */
    for (int i = 0; i < 4; i++)
        assert_int_equal(cfg.given[i], 0);
    assert_false(sbio_options_given(&cfg, "threads"));
    assert_false(sbio_options_given(&cfg, "no-such-option"));
}

/* ---- syntax ---- */

static void test_both_syntaxes(void **state)
{
    (void)state;
    struct sbio_config a, b;
    char err[MSG_MAX];
    expect_ok(&a,
              ARGV("run", "--threads=4", "--file-block-size=4K", "--file-test-mode=rndrw",
                   "--file-rw-ratio=2.5", "--dir=/tmp/x", "--file-extra-flags=direct"),
              err, sizeof(err));
    expect_ok(&b,
              ARGV("run", "--threads", "4", "--file-block-size", "4K", "--file-test-mode", "rndrw",
                   "--file-rw-ratio", "2.5", "--dir", "/tmp/x", "--file-extra-flags", "direct"),
              err, sizeof(err));
    const struct sbio_config *c[] = {&a, &b};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(c[i]->cmd, SBIO_CMD_RUN);
        assert_int_equal(c[i]->nargs, 0);
        assert_int_equal(c[i]->threads, 4);
        assert_int_equal(c[i]->block_size, 4096);
        assert_int_equal(c[i]->mode, SBIO_MODE_RNDRW);
        assert_true(c[i]->rw_ratio == 2.5);
        assert_string_equal(c[i]->dir, "/tmp/x");
        assert_int_equal(c[i]->extra_flags, SBIO_XF_DIRECT);
        assert_true(sbio_options_given(c[i], "threads"));
        assert_true(sbio_options_given(c[i], "file-block-size"));
        assert_false(sbio_options_given(c[i], "file-num"));
    }
}

static void test_options_around_command(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg,
              ARGV("--file-num=4", "--file-total-size", "1M", "prepare", "--file-block-size=8K",
                   "--rand-seed", "99"),
              err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_PREPARE);
    assert_int_equal(cfg.nargs, 0);
    assert_int_equal(cfg.file_num, 4);
    assert_true(cfg.total_size == SBIO_MIB);
    assert_int_equal(cfg.block_size, 8192);
    assert_int_equal(cfg.rand_seed, 99);
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_string_equal(err, "");

    /* The last of repeated options wins, as in sysbench. */
    expect_ok(&cfg, ARGV("--threads=2", "run", "--threads=3", "--file-test-mode=seqrd"), err,
              sizeof(err));
    assert_int_equal(cfg.threads, 3);
    assert_int_equal(cfg.mode, SBIO_MODE_SEQRD);
}

static void test_bool_never_takes_next_word(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("--histogram", "run", "--file-test-mode=seqrd"), err, sizeof(err));
    assert_true(cfg.histogram);
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_int_equal(cfg.nargs, 0);
    assert_true(sbio_options_given(&cfg, "histogram"));

    /* Even a word that reads as a boolean is not taken: it is an argument. */
    expect_ok(&cfg, ARGV("run", "--file-fsync-end", "off"), err, sizeof(err));
    assert_true(cfg.fsync_end);
    assert_int_equal(cfg.nargs, 1);
    assert_string_equal(cfg.args[0], "off");
    assert_int_equal(validate(&cfg, err, sizeof(err)), -EINVAL);
    assert_one_error_line(err);
    assert_has(err, "'off'");

    static const struct {
        const char *arg;
        bool want;
    } spell[] = {
        {"--file-fsync-all=on", true},   {"--file-fsync-all=off", false},
        {"--file-fsync-all=true", true}, {"--file-fsync-all=false", false},
        {"--file-fsync-all=yes", true},  {"--file-fsync-all=no", false},
        {"--file-fsync-all=1", true},    {"--file-fsync-all=0", false},
        {"--file-fsync-all=ON", true},   {"--file-fsync-all", true},
    };
    for (size_t i = 0; i < sizeof(spell) / sizeof(spell[0]); i++) {
        char *argv[] = {"sbio", "run", (char *)spell[i].arg, NULL};
        expect_ok(&cfg, argv, err, sizeof(err));
        if (cfg.fsync_all != spell[i].want)
            fail_msg("%s gave %d", spell[i].arg, cfg.fsync_all);
    }
    expect_bad(ARGV("run", "--histogram=maybe"), "--histogram", "'maybe'",
               "on/off, true/false, yes/no, 1/0");
}

static void test_enums(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    static const char *const modes[] = {"seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"};
    for (int m = 0; m < 6; m++) {
        char arg[64];
        snprintf(arg, sizeof(arg), "--file-test-mode=%s", modes[m]);
        char *argv[] = {"sbio", "run", arg, NULL};
        expect_ok(&cfg, argv, err, sizeof(err));
        assert_int_equal(cfg.mode, m);
        assert_string_equal(sbio_mode_name(m), modes[m]);
    }
    assert_string_equal(sbio_mode_name(SBIO_MODE_NONE), "(none)");
    /* Names stay valid together, for messages that print several. */
    const char *m0 = sbio_mode_name(SBIO_MODE_RNDRW),
               *e0 = sbio_engine_name(sbio_engine_id("mmap"));
    assert_string_equal(m0, "rndrw");
    assert_string_equal(e0, "mmap");

    expect_ok(&cfg,
              ARGV("run", "--file-fsync-mode=fdatasync", "--seq-stream=per-thread",
                   "--file-fsync-scope=dirty", "--file-prealloc=fallocate", "--ioengine=null",
                   "--file-io-mode", "mmap"),
              err, sizeof(err));
    assert_int_equal(cfg.fsync_mode, SBIO_FSYNC_FDATASYNC);
    assert_int_equal(cfg.seq_stream, SBIO_SEQ_PER_THREAD);
    assert_int_equal(cfg.fsync_scope, SBIO_SCOPE_DIRTY);
    assert_int_equal(cfg.prealloc, SBIO_PREALLOC_FALLOCATE);
    assert_int_equal(cfg.ioengine, sbio_engine_id("null"));
    assert_int_equal(cfg.io_mode, SBIO_IOMODE_MMAP);
    /* --ioengine takes every engine of the registry by its name, as its id. */
    for (int e = 0; e < sbio_engine_count(); e++) {
        char arg[64];
        snprintf(arg, sizeof(arg), "--ioengine=%s", sbio_engine_name(e));
        char *argv[] = {"sbio", "run", arg, NULL};
        expect_ok(&cfg, argv, err, sizeof(err));
        assert_int_equal(cfg.ioengine, e);
    }

    /* Enum values are exact: no case folding, no prefixes. */
    expect_bad(ARGV("run", "--file-test-mode=RNDRD"), "--file-test-mode", "'RNDRD'",
               "one of seqwr,seqrewr,seqrd,rndrd,rndwr,rndrw");
    expect_bad(ARGV("--file-test-mode", "rnd", "run"), "--file-test-mode", "'rnd'", "rndrw");
    expect_bad(ARGV("run", "--ioengine=posixaio"), "--ioengine", "'posixaio'",
               "sync,libaio,io_uring,mmap,null");
    expect_bad(ARGV("run", "--file-io-mode=aio"), "--file-io-mode", "'aio'", "sync,async,mmap");

    /* An empty --file-test-mode= unsets a mode given earlier. */
    expect_ok(&cfg, ARGV("run", "--file-test-mode=seqwr", "--file-test-mode="), err, sizeof(err));
    assert_int_equal(cfg.mode, SBIO_MODE_NONE);
}

static void test_flags_fill_lists(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX], buf[64];
    expect_ok(&cfg, ARGV("run", "--file-extra-flags=direct,dsync,sync"), err, sizeof(err));
    assert_int_equal(cfg.extra_flags, SBIO_XF_DIRECT | SBIO_XF_DSYNC | SBIO_XF_SYNC);
    assert_string_equal(sbio_extra_flags_str(buf, sizeof(buf), cfg.extra_flags),
                        "sync,dsync,direct");
    expect_ok(&cfg, ARGV("run", "--file-extra-flags=direct", "--file-extra-flags="), err,
              sizeof(err));
    assert_int_equal(cfg.extra_flags, 0);
    assert_string_equal(sbio_extra_flags_str(buf, sizeof(buf), 0), "(none)");
    expect_bad(ARGV("run", "--file-extra-flags=direct,odirect"), "--file-extra-flags",
               "'direct,odirect'", "sync,dsync,direct");

    expect_ok(&cfg, ARGV("prepare", "--file-fill=zero"), err, sizeof(err));
    assert_int_equal(cfg.fill, SBIO_FILL_ZERO);
    expect_ok(&cfg, ARGV("prepare", "--file-fill", "compressible:50"), err, sizeof(err));
    assert_int_equal(cfg.fill, SBIO_FILL_COMPRESSIBLE);
    assert_int_equal(cfg.fill_pct, 50);
    assert_string_equal(sbio_fill_name(cfg.fill), "compressible");
    expect_ok(&cfg, ARGV("prepare", "--file-fill=compressible:100"), err, sizeof(err));
    assert_int_equal(cfg.fill_pct, 100);
    expect_bad(ARGV("prepare", "--file-fill=compressible:101"), "--file-fill", "'compressible:101'",
               "random,zero,compressible:P");
    expect_bad(ARGV("prepare", "--file-fill=compressible:"), "--file-fill", "'compressible:'",
               "compressible:P");
    expect_bad(ARGV("prepare", "--file-fill=ones"), "--file-fill", "'ones'", "random");

    expect_ok(&cfg, ARGV("run", "--queue", "read_ahead_kb=128", "--queue=nr_requests=64"), err,
              sizeof(err));
    assert_int_equal(cfg.nqueue, 2);
    assert_string_equal(cfg.queue[0], "read_ahead_kb=128");
    assert_string_equal(cfg.queue[1], "nr_requests=64");
    /* What is accepted is KEY=VALUE, not "any value". */
    expect_bad(ARGV("run", "--queue=read_ahead_kb"), "--queue", "'read_ahead_kb'", "KEY=VALUE");
}

/* --ioprio: the kernel's value (class << 13 | level), the level 4 by default for rt and be, none
 * for idle; the long class names too; every refusal one line naming the value and the
 * accepted forms. */
static void test_ioprio(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX], buf[24];
    expect_ok(&cfg, ARGV("run"), err, sizeof(err));
    assert_int_equal(cfg.ioprio, SBIO_IOPRIO_NONE);
    static const struct {
        const char *arg;
        int value;
        const char *name;
    } good[] = {{"--ioprio=rt:0", 1 << 13 | 0, "rt:0"},
                {"--ioprio=rt:7", 1 << 13 | 7, "rt:7"},
                {"--ioprio=rt", 1 << 13 | 4, "rt:4"},
                {"--ioprio=realtime:2", 1 << 13 | 2, "rt:2"},
                {"--ioprio=be:0", 2 << 13 | 0, "be:0"},
                {"--ioprio=best-effort", 2 << 13 | 4, "be:4"},
                {"--ioprio=be:07", 2 << 13 | 7, "be:7"},
                {"--ioprio=idle", 3 << 13, "idle"},
                {"--ioprio=none", 0, "none"}};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        expect_ok(&cfg, ARGV("run", (char *)good[i].arg), err, sizeof(err));
        assert_int_equal(cfg.ioprio, good[i].value);
        assert_string_equal(sbio_ioprio_name(buf, sizeof(buf), cfg.ioprio), good[i].name);
        assert_true(sbio_ioprio_rt(cfg.ioprio) == (good[i].name[0] == 'r'));
    }
    expect_bad(ARGV("run", "--ioprio=urgent:1"), "--ioprio: 'urgent:1' has an unknown class",
               "accepted: rt:0 to rt:7, be:0 to be:7", "idle");
    expect_bad(ARGV("run", "--ioprio=RT:1"), "'RT:1' has an unknown class", NULL, NULL);
    expect_bad(ARGV("run", "--ioprio=be:8"), "--ioprio: 'be:8' has a level out of 0-7",
               "be:0 to be:7", NULL);
    expect_bad(ARGV("run", "--ioprio=rt:10"), "'rt:10' has a level out of 0-7", NULL, NULL);
    expect_bad(ARGV("run", "--ioprio=rt:123"), "'rt:123' has a level that is not a number", NULL,
               NULL);
    expect_bad(ARGV("run", "--ioprio=be:-1"), "'be:-1' has a level that is not a number", NULL,
               NULL);
    expect_bad(ARGV("run", "--ioprio=be:"), "'be:' has an empty level", NULL, NULL);
    expect_bad(ARGV("run", "--ioprio=idle:0"), "'idle:0' has a level, which the idle class",
               "idle (no level)", NULL);
    expect_bad(ARGV("run", "--ioprio="), "--ioprio: '' has an unknown class", NULL, NULL);
    assert_string_equal(sbio_ioprio_name(buf, sizeof(buf), SBIO_IOPRIO_MIXED), "mixed");
}

static void test_ranges(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_bad(ARGV("run", "--threads=0"), "--threads", "'0'", "from 1 to 100000");
    expect_bad(ARGV("run", "--threads=100001"), "--threads", "'100001'", "from 1 to 100000");
    expect_ok(&cfg, ARGV("run", "--threads=100000"), err, sizeof(err));
    assert_int_equal(cfg.threads, 100000);
    expect_bad(ARGV("run", "--percentile=101"), "--percentile", "'101'", "from 0 to 100");
    expect_bad(ARGV("run", "--file-async-backlog=0"), "--file-async-backlog", "'0'",
               "from 1 to 65536");
    expect_bad(ARGV("run", "--threads=-1"), "--threads", "'-1'", "integer");
    expect_bad(ARGV("run", "--threads=4K"), "--threads", "'4K'", "integer");
    expect_bad(ARGV("run", "--events=18446744073709551616"), "--events", "'18446744073709551616'",
               "too large");

    /* Sizes: the block size is at most 1 GiB, the total at least one byte. */
    expect_ok(&cfg, ARGV("run", "--file-block-size=1G"), err, sizeof(err));
    assert_true(cfg.block_size == SBIO_GIB);
    expect_bad(ARGV("run", "--file-block-size=1025M"), "--file-block-size", "'1025M'",
               "from 1 B to 1 GiB");
    expect_bad(ARGV("run", "--file-block-size=0"), "--file-block-size", "'0'", "1 B");
    expect_bad(ARGV("run", "--file-total-size=0"), "--file-total-size", "'0'", "at least 1 B");
    expect_bad(ARGV("run", "--file-total-size=16777216T"), "--file-total-size", "'16777216T'",
               "too large");
    expect_bad(ARGV("run", "--file-total-size=2X"), "--file-total-size", "'2X'", "K/M/G/T");
    expect_bad(ARGV("run", "--file-total-size", "lots"), "--file-total-size", "'lots'", "K/M/G/T");

    /* 0 is sysbench's rndrw as writes only; below 0 sysbench refuses too. */
    expect_ok(&cfg, ARGV("run", "--file-rw-ratio=0"), err, sizeof(err));
    assert_true(cfg.rw_ratio == 0);
    expect_bad(ARGV("run", "--file-rw-ratio=-2"), "--file-rw-ratio", "'-2'", "at least 0");
    expect_ok(&cfg, ARGV("run", "--file-rw-ratio=0.5"), err, sizeof(err));
    assert_true(cfg.rw_ratio == 0.5);
}

/* ---- sysbench compatibility ---- */

/* --iodepth-batch: by default 1 with O_DIRECT and the whole depth buffered; never above the
 * depth (compare can vary --iodepth under a fixed batch). */
static void test_iodepth_batch(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndrd", "--ioengine=libaio", "--iodepth=32"), err,
              sizeof(err));
    assert_int_equal(cfg.iodepth_batch, 0);
    assert_int_equal(tu_iodepth_batch(&cfg), 32);
    expect_ok(&cfg,
              ARGV("run", "--file-test-mode=rndrd", "--ioengine=io_uring", "--iodepth=32",
                   "--file-extra-flags=direct"),
              err, sizeof(err));
    assert_int_equal(tu_iodepth_batch(&cfg), 1);
    expect_ok(&cfg,
              ARGV("run", "--file-test-mode=rndrd", "--ioengine=io_uring", "--iodepth=32",
                   "--file-extra-flags=direct", "--iodepth-batch=8"),
              err, sizeof(err));
    assert_int_equal(tu_iodepth_batch(&cfg), 8);
    expect_ok(&cfg,
              ARGV("run", "--file-test-mode=rndrd", "--ioengine=libaio", "--iodepth=4",
                   "--iodepth-batch=100"),
              err, sizeof(err));
    assert_int_equal(tu_iodepth_batch(&cfg), 4);
    expect_bad(ARGV("run", "--file-test-mode=rndrd", "--iodepth-batch=-1"), "--iodepth-batch", NULL,
               NULL);
}

static void test_old_spellings(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg,
              ARGV("--test=fileio", "--num-threads=8", "--max-requests=1000", "--max-time", "30",
                   "--tx-rate=50", "run", "--file-test-mode=rndrd"),
              err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_int_equal(cfg.nargs, 0);
    assert_int_equal(cfg.threads, 8);
    assert_int_equal(cfg.events, 1000);
    assert_int_equal(cfg.time_s, 30);
    assert_int_equal(cfg.rate, 50);
    /* Marked given under the new name (and still found by the old one). */
    assert_true(sbio_options_given(&cfg, "threads"));
    assert_true(sbio_options_given(&cfg, "events"));
    assert_true(sbio_options_given(&cfg, "time"));
    assert_true(sbio_options_given(&cfg, "rate"));
    assert_true(sbio_options_given(&cfg, "num-threads"));
    assert_false(sbio_options_given(&cfg, "warmup-time"));
    /* One note per old spelling, naming both spellings. */
    assert_int_equal(count_char(err, '\n'), 5);
    assert_has(err, "sbio: note: --num-threads is sysbench's old spelling of --threads\n");
    assert_has(err, "--max-requests is sysbench's old spelling of --events; it counts reads and "
                    "writes, the fsyncs come on top, as in sysbench 0.4\n");
    /* Spelled as sysbench 0.4 spelled it, the limit counts as 0.4 counted (reads and writes). */
    assert_true(cfg.events_rw);
    assert_has(err, "--max-time is sysbench's old spelling of --time\n");
    assert_has(err, "--tx-rate is sysbench's old spelling of --rate\n");
    assert_has(err, "--test=fileio");
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);

    /* --events keeps sysbench 1.0's count (fsyncs are events); the last spelling given wins. */
    expect_ok(&cfg, ARGV("--events=10", "--file-test-mode=rndrw", "run"), err, sizeof(err));
    assert_false(cfg.events_rw);
    expect_ok(&cfg, ARGV("--events=10", "--max-requests=20", "--file-test-mode=rndrw", "run"), err,
              sizeof(err));
    assert_true(cfg.events_rw);
    assert_int_equal(cfg.events, 20);
    expect_ok(&cfg, ARGV("--max-requests=20", "--events=10", "--file-test-mode=rndrw", "run"), err,
              sizeof(err));
    assert_false(cfg.events_rw);
    assert_int_equal(cfg.events, 10);

    /* sysbench's positional test name is accepted too. */
    expect_ok(&cfg, ARGV("fileio", "--file-test-mode=seqwr", "run"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_int_equal(cfg.nargs, 0);
    assert_has(err, "note:");
    assert_has(err, "fileio");

    /* --validate is sysbench's --verify: one field, given under either name. */
    expect_ok(&cfg, ARGV("prepare", "--validate"), err, sizeof(err));
    assert_true(cfg.verify);
    assert_true(sbio_options_given(&cfg, "verify"));
    assert_true(sbio_options_given(&cfg, "validate"));

    expect_bad(ARGV("--test=oltp_read_write", "run"), "--test", "'oltp_read_write'", "fileio");
}

static void test_ignored_sysbench_options(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg,
              ARGV("--rand-type=uniform", "--rand-spec-iter", "5", "--mysql-host=x", "--debug",
                   "run", "--pgsql-port=5432", "--rand-type", "special", "--file-test-mode=seqrd",
                   "--forced-shutdown=off", "--db-debug"),
              err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_int_equal(cfg.nargs, 0); /* "5" and "special" were values, not arguments */
    assert_int_equal(cfg.mode, SBIO_MODE_SEQRD);
    assert_int_equal(count_char(err, '\n'), 8);
    assert_has(err, "sbio: note: --rand-type does not concern file I/O; ignored\n");
    assert_has(err, "--rand-spec-iter does not concern file I/O; ignored\n");
    assert_has(err, "--mysql-host does not concern file I/O; ignored\n");
    assert_has(err, "--pgsql-port does not concern file I/O; ignored\n");
    assert_has(err, "--debug does not concern file I/O; ignored\n");
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_string_equal(err, "");

    /* A boolean one never takes the next word either; a valued one may end the line. */
    expect_ok(&cfg, ARGV("--debug", "prepare", "--rand-spec-pct"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_PREPARE);
    assert_int_equal(cfg.nargs, 0);
}

static void expect_invalid(char **argv, const char *n1, const char *n2, const char *n3);

/* sysbench's own spellings of help, version and 0.4's --init-rng; '_' for '-' in names. */
static void test_sysbench_forms(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("--help=on"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_HELP);
    expect_ok(&cfg, ARGV("-h"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_HELP);
    expect_ok(&cfg, ARGV("-h", "run"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_HELP);
    assert_string_equal(cfg.args[0], "run");
    expect_ok(&cfg, ARGV("--help=off", "run", "--file-test-mode=seqrd"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    expect_ok(&cfg, ARGV("--version=on"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_VERSION);
    assert_string_equal(err, "");
    expect_ok(&cfg, ARGV("--version=off", "prepare"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_PREPARE);
    expect_bad(ARGV("--help=please"), "--help", "'please'", "on/off");

    /* --init-rng=on is what sbio does anyway: silent. off gets a note, the run is seeded. */
    expect_ok(&cfg,
              ARGV("--test=fileio", "--init-rng=on", "--max-requests=10", "--file-test-mode=rndrd",
                   "run"),
              err, sizeof(err));
    assert_lacks(err, "init-rng");
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_int_equal(cfg.rand_seed, 0);
    expect_ok(&cfg, ARGV("--init-rng", "run"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_lacks(err, "init-rng");
    expect_ok(&cfg, ARGV("--init-rng=off", "run"), err, sizeof(err));
    assert_has(err, "sbio: note: --init-rng=off");
    assert_has(err, "--rand-seed=N");
    assert_int_equal(count_char(err, '\n'), 1);
    expect_bad(ARGV("--init-rng=sometimes", "run"), "--init-rng", "'sometimes'", "on/off");

    expect_ok(&cfg, ARGV("--file_num=4", "--file_total_size", "1M", "prepare"), err, sizeof(err));
    assert_int_equal(cfg.file_num, 4);
    assert_true(cfg.total_size == SBIO_MIB);
    assert_true(sbio_options_given(&cfg, "file-num"));
}

/* A list option without a value is empty, as in sysbench, and never takes the next option;
 * options that take a value still take the next word. */
static void test_list_option_alone(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("--file-extra-flags", "--file-test-mode=rndrd", "run"), err, sizeof(err));
    assert_int_equal(cfg.extra_flags, 0);
    assert_int_equal(cfg.mode, SBIO_MODE_RNDRD);
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_true(sbio_options_given(&cfg, "file-extra-flags"));
    expect_ok(&cfg, ARGV("--file-extra-flags", "run", "--file-test-mode=seqrd"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_int_equal(cfg.nargs, 0);
    assert_int_equal(cfg.extra_flags, 0);
    expect_ok(&cfg, ARGV("run", "--file-extra-flags=direct", "--file-extra-flags"), err,
              sizeof(err));
    assert_int_equal(cfg.extra_flags, 0);
    expect_ok(&cfg, ARGV("--file-extra-flags", "direct,sync", "run"), err, sizeof(err));
    assert_int_equal(cfg.extra_flags, SBIO_XF_DIRECT | SBIO_XF_SYNC);
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    /* A valued option followed by an option is missing its value, not given "--time=5". */
    expect_bad(ARGV("run", "--threads", "--time=5"), "--threads", "needs a value", "1 to 100000");
    expect_ok(&cfg, ARGV("--threads", "4", "--time", "5", "run"), err, sizeof(err));
    assert_int_equal(cfg.threads, 4);
    assert_int_equal(cfg.time_s, 5);
    /* An ignored option alone does not take the next option either. */
    expect_ok(&cfg, ARGV("--rand-spec-pct", "--threads=2", "run"), err, sizeof(err));
    assert_int_equal(cfg.threads, 2);
}

/* --verbosity is sysbench's 0..5, for prepare, run and cleanup; the level is known before the
 * line is parsed (its notes obey it), whatever the spelling. */
static void test_verbosity(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("run", "--file-test-mode=seqrd"), err, sizeof(err));
    assert_int_equal(cfg.verbosity, 3);
    expect_ok(&cfg, ARGV("--verbosity", "0", "run", "--file-test-mode=seqrd"), err, sizeof(err));
    assert_int_equal(cfg.verbosity, 0);
    expect_bad(ARGV("run", "--verbosity=6"), "--verbosity", "'6'", "0 to 5");
    assert_int_equal(sbio_options_verbosity(2, ARGV("--verbosity=1")), 1);
    assert_int_equal(sbio_options_verbosity(4, ARGV("run", "--verbosity", "0")), 0);
    assert_int_equal(sbio_options_verbosity(3, ARGV("run", "--verbosity_2")), 3);
    assert_int_equal(sbio_options_verbosity(3, ARGV("run", "--verbosity=2")), 2);
    assert_int_equal(sbio_options_verbosity(3, ARGV("run", "--verbosity=9")), 3);
    assert_int_equal(sbio_options_verbosity(3, ARGV("--", "--verbosity=0")), 3);
}

static void test_did_you_mean(void **state)
{
    (void)state;
    expect_bad(ARGV("run", "--file-test-mod=seqrd"), "'--file-test-mod'",
               "(did you mean --file-test-mode?)", "sbio help");
    expect_bad(ARGV("run", "--treads=2"), "'--treads'", "(did you mean --threads?)", NULL);
    expect_bad(ARGV("run", "--fiel-num=2"), "(did you mean --file-num?)", NULL, NULL);
    expect_bad(ARGV("run", "--num-thread=2"), "(did you mean --num-threads?)", NULL, NULL);
    expect_bad(ARGV("rnu"), "'rnu' (did you mean run?)", "accepted: prepare, run", NULL);
    expect_bad(ARGV("prepaer"), "(did you mean prepare?)", NULL, NULL);

    struct sbio_config cfg;
    char err[MSG_MAX];
    assert_int_equal(parse_args(&cfg, ARGV("--bogus", "run"), err, sizeof(err)), -EINVAL);
    assert_lacks(err, "did you mean");
    assert_int_equal(parse_args(&cfg, ARGV("frobnicate"), err, sizeof(err)), -EINVAL);
    assert_lacks(err, "did you mean");
}

/* --rate beyond 10^7 operations/s per thread cannot be paced (the step would drop below
 * 100 ns, and to 0 above 10^9): refused with the limit. */
static void test_rate_limit(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndrd", "--rate=10000000"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    expect_invalid(ARGV("run", "--file-test-mode=rndrd", "--rate=10000001"), "--rate=10000001",
                   "with 1 thread cannot be paced", "up to 10000000");
    expect_invalid(ARGV("run", "--file-test-mode=rndrd", "--rate=2000000000", "--threads=4"),
                   "4 threads", "up to 40000000", "0 for unlimited");
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndrd", "--rate=2000000000", "--threads=200"),
              err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    /* Under MPI each rank paces its share. */
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndrd", "--rate=20000000"), err, sizeof(err));
    assert_int_equal(sbio_options_validate(&cfg, 2), 0);
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndrd", "--rate=20000001"), err, sizeof(err));
    struct capture c;
    cap_begin(&c);
    assert_int_equal(sbio_options_validate(&cfg, 2), -EINVAL);
    cap_end(&c, err, sizeof(err));
    assert_one_error_line(err);
    assert_has(err, "on each of 2 ranks");
    assert_has(err, "up to 20000000");
    /* compare checks every setting it varies. */
    expect_invalid(ARGV("compare", "--file-test-mode=rndrd", "--rate=99999999"), "--rate", NULL,
                   NULL);
}

/* --warmup: auto or N (as --warmup-time, never both); auto's cap and tolerance, only with
 * auto; refused under MPI. */
static void test_warmup(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndrd", "--warmup=auto"), err, sizeof(err));
    assert_true(cfg.warmup_auto);
    assert_int_equal(cfg.warmup_s, 0);
    assert_int_equal(cfg.warmup_max_s, 60);
    assert_true(cfg.warmup_tol_pct == 5);
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    struct capture c;
    cap_begin(&c);
    assert_int_equal(sbio_options_validate(&cfg, 2), -EINVAL);
    cap_end(&c, err, sizeof(err));
    assert_one_error_line(err);
    assert_has(err, "--warmup=auto under mpirun (2 ranks)");
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndrd", "--warmup=7"), err, sizeof(err));
    assert_false(cfg.warmup_auto);
    assert_int_equal(cfg.warmup_s, 7);
    assert_int_equal(sbio_options_validate(&cfg, 2), 0);
    expect_ok(&cfg,
              ARGV("run", "--file-test-mode=rndrd", "--warmup=auto", "--warmup-max=5",
                   "--warmup-tolerance=2.5"),
              err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.warmup_max_s, 5);
    assert_true(cfg.warmup_tol_pct == 2.5);
    expect_bad(ARGV("run", "--file-test-mode=rndrd", "--warmup=soon"), "--warmup: 'soon'",
               "accepted: auto, or a number of seconds", NULL);
    expect_invalid(ARGV("run", "--file-test-mode=rndrd", "--warmup=auto", "--warmup-time=3"),
                   "--warmup and --warmup-time both given", NULL, NULL);
    expect_invalid(ARGV("run", "--file-test-mode=rndrd", "--warmup=3", "--warmup-max=9"),
                   "--warmup-max goes with --warmup=auto", NULL, NULL);
    expect_invalid(ARGV("run", "--file-test-mode=rndrd", "--warmup=auto", "--warmup-max=4"),
                   "--warmup-max=4 is shorter than the 5 s window", "5 or more", NULL);
    expect_invalid(
        ARGV("compare", "--file-test-mode=rndrd", "--warmup=auto", "--warmup-tolerance=100"),
        "--warmup-tolerance=100 is not valid", NULL, NULL);
}

/* --test=fileio marks sysbench 0.4's command line, whose run stopped after 10000 requests. */
static void test_sysbench_04_note(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("--test=fileio", "--file-test-mode=rndrd", "run"), err, sizeof(err));
    assert_int_equal(count_char(err, '\n'), 1);
    assert_has(err, "sbio: note: --test=fileio");
    assert_has(err, "10000 requests");
    assert_has(err, "--max-requests=10000");
    assert_int_equal(cfg.time_s, 10);
    assert_int_equal(cfg.events, 0);
    /* A limit given, or no run: the plain note. */
    expect_ok(&cfg, ARGV("--test=fileio", "--max-time=5", "--file-test-mode=rndrd", "run"), err,
              sizeof(err));
    assert_lacks(err, "10000");
    expect_ok(&cfg, ARGV("--test=fileio", "--test=fileio", "prepare"), err, sizeof(err));
    assert_int_equal(count_char(err, '\n'), 1);
    assert_lacks(err, "10000");
}

/* ---- --config-file ---- */

static char conf_dir[256];

static const char *conf_write(const char *name, const char *text)
{
    static char path[320];
    if (!conf_dir[0])
        assert_int_equal(tmpdir_make(conf_dir, sizeof(conf_dir), "/tmp", "options"), 0);
    snprintf(path, sizeof(path), "%s/%s", conf_dir, name);
    write_file(path, text);
    return path;
}

static void test_config_file(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX], arg[400];
    const char *p = conf_write("good.cfg", "# sysbench general options\n"
                                           "\n"
                                           "threads = 3   # three\n"
                                           "time=\"7\"\n"
                                           "events='0' # none\n"
                                           "file_num=2\n"
                                           "--file-total-size=1M\n"
                                           "file-extra-flags=sync,direct\n"
                                           "dir=/tmp/with space # a folder\n"
                                           "mysql-host=db\n");
    snprintf(arg, sizeof(arg), "--config-file=%s", p);
    char *argv[] = {"sbio", arg, "run", "--file-test-mode=seqrd", NULL};
    expect_ok(&cfg, argv, err, sizeof(err));
    assert_int_equal(cfg.threads, 3);
    assert_int_equal(cfg.time_s, 7);
    assert_int_equal(cfg.file_num, 2);
    assert_true(cfg.total_size == SBIO_MIB);
    assert_int_equal(cfg.extra_flags, SBIO_XF_SYNC | SBIO_XF_DIRECT);
    assert_string_equal(cfg.dir, "/tmp/with space");
    assert_true(sbio_options_given(&cfg, "threads"));
    assert_true(sbio_options_given(&cfg, "time"));
    /* Notes say where the option was written. */
    assert_has(err, "good.cfg:10: --mysql-host does not concern file I/O");

    /* The command line wins, before or after --config-file, in either syntax. */
    char *argv2[] = {"sbio", "--threads=5", "--config-file", (char *)p, "--time", "2", "run", NULL};
    expect_ok(&cfg, argv2, err, sizeof(err));
    assert_int_equal(cfg.threads, 5);
    assert_int_equal(cfg.time_s, 2);
    assert_int_equal(cfg.file_num, 2);
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
    assert_int_equal(cfg.nargs, 0);

    /* The last line needs no newline. */
    p = conf_write("last.cfg", "threads=6");
    snprintf(arg, sizeof(arg), "--config-file=%s", p);
    char *argv3[] = {"sbio", "prepare", arg, NULL};
    expect_ok(&cfg, argv3, err, sizeof(err));
    assert_int_equal(cfg.threads, 6);
}

/* A bad line: one error line naming FILE:LINE. */
static void expect_bad_conf(const char *text, const char *n1, const char *n2)
{
    char arg[400];
    const char *p = conf_write("bad.cfg", text);
    snprintf(arg, sizeof(arg), "--config-file=%s", p);
    char *argv[] = {"sbio", "run", arg, NULL};
    expect_bad(argv, "bad.cfg:", n1, n2);
}

static void test_config_file_errors(void **state)
{
    (void)state;
    expect_bad_conf("threads=2\n\nthreads 4\n", "bad.cfg:3: 'threads 4'", "name=value");
    expect_bad_conf("=4\n", "bad.cfg:1:", "name=value");
    expect_bad_conf("# ok\ntreads=4\n", "bad.cfg:2: unknown option '--treads'",
                    "did you mean --threads?");
    expect_bad_conf("threads=four\n", "bad.cfg:1: --threads: 'four'", "1 to 100000");
    expect_bad_conf("threads=4 8\n", "bad.cfg:1: --threads: '4 8'", NULL);
    expect_bad_conf("dir=\"/tmp\n", "bad.cfg:1: dir", "quote is not closed");
    expect_bad_conf("dir='/tmp' x\n", "bad.cfg:1: dir", "after the closing quote");
    expect_bad_conf("config-file=other.cfg\n", "bad.cfg:1: --config-file", "command line");
    expect_bad_conf("script=oltp\n", "bad.cfg:1: --script", "command line");
    expect_bad(ARGV("run", "--config-file=/nonexistent/sbio.cfg"), "/nonexistent/sbio.cfg",
               "No such file", NULL);
    expect_bad(ARGV("run", "--config-file"), "--config-file", "needs a value", "name=value");
    expect_bad(ARGV("run", "--config-file=/tmp"), "--config-file=/tmp", "read", NULL);
    expect_bad(ARGV("run", "--config-file=/dev/zero"), "/dev/zero:1:", "not a line of text", NULL);
    tmpdir_remove(conf_dir);
    conf_dir[0] = 0;
}

/* ---- errors ---- */

static void test_unknown_and_missing(void **state)
{
    (void)state;
    expect_bad(ARGV("run", "--file-test-mod=seqrd"), "'--file-test-mod'", "sbio help", NULL);
    expect_bad(ARGV("--bogus", "run"), "'--bogus'", "sbio help", NULL);
    expect_bad(ARGV("run", "-t", "4"), "'-t'", "--name=value", NULL);
    expect_bad(
        ARGV("frobnicate"), "'frobnicate'",
        "accepted: prepare, run, cleanup, compare, diff, survey, plot, restore, help, version",
        NULL);
    expect_bad(ARGV("--threads=4", "rnu"), "'rnu'", "prepare, run", NULL);
    expect_bad(ARGV("run", "--threads"), "--threads", "needs a value", "from 1 to 100000");
    expect_bad(ARGV("run", "--file-test-mode"), "--file-test-mode", "needs a value", "rndrw");
    expect_bad(ARGV("run", "--file-total-size"), "--file-total-size", "needs a value", "K/M/G/T");
    expect_bad(ARGV("run", "-o"), "-o", "output file", NULL);
    /* A non-boolean takes the next word even when it is a command. */
    expect_bad(ARGV("--threads", "run"), "--threads", "'run'", "integer");
    expect_bad(ARGV("--test"), "--test", "needs a value", "fileio");
}

static void test_short_output(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("run", "-o", "result.json", "--file-test-mode=seqrd"), err, sizeof(err));
    assert_string_equal(cfg.output, "result.json");
    assert_int_equal(cfg.nargs, 0);
    assert_true(sbio_options_given(&cfg, "output"));
    expect_ok(&cfg, ARGV("--output", "r.txt", "run"), err, sizeof(err));
    assert_string_equal(cfg.output, "r.txt");
    assert_int_equal(cfg.cmd, SBIO_CMD_RUN);
}

static void test_help_and_version_flags(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("--help"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_HELP);
    assert_int_equal(cfg.nargs, 0);
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);

    expect_ok(&cfg, ARGV("run", "--help"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_HELP);
    assert_int_equal(cfg.nargs, 1);
    assert_string_equal(cfg.args[0], "run");
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);

    expect_ok(&cfg, ARGV("--help", "prepare", "--file-num=3"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_HELP);
    assert_int_equal(cfg.nargs, 1);
    assert_string_equal(cfg.args[0], "prepare");

    expect_ok(&cfg, ARGV("help", "cleanup"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_HELP);
    assert_int_equal(cfg.nargs, 1);
    assert_string_equal(cfg.args[0], "cleanup");

    expect_ok(&cfg, ARGV("--version"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_VERSION);
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    expect_ok(&cfg, ARGV("version"), err, sizeof(err));
    assert_int_equal(cfg.cmd, SBIO_CMD_VERSION);
    assert_string_equal(sbio_cmd_name(SBIO_CMD_VERSION), "version");
}

/* ---- validation ---- */

static void expect_invalid(char **argv, const char *n1, const char *n2, const char *n3)
{
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, argv, err, sizeof(err));
    int rc = validate(&cfg, err, sizeof(err));
    if (rc != -EINVAL)
        fail_msg("validate: %d, want -EINVAL (stderr: %s)", rc, err);
    assert_one_error_line(err);
    if (n1)
        assert_has(err, n1);
    if (n2)
        assert_has(err, n2);
    if (n3)
        assert_has(err, n3);
}

static void test_validate_conflicts(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_invalid(ARGV("run", "--file-test-mode=seqrd", "--file-io-mode=mmap", "--ioengine=sync"),
                   "--file-io-mode=mmap", "--ioengine=sync", "disagree");
    expect_invalid(ARGV("prepare", "--file-io-mode=async", "--ioengine=io_uring"),
                   "--file-io-mode=async", "--ioengine=io_uring", NULL);
    /* An engine that cannot do O_DIRECT: the message names those that can. */
    expect_invalid(
        ARGV("run", "--file-test-mode=seqrd", "--file-io-mode=mmap", "--file-extra-flags=direct"),
        "the mmap engine cannot do O_DIRECT", "accepted engines: sync, libaio, io_uring", NULL);
    expect_invalid(ARGV("run", "--file-test-mode=seqrd", "--file-async-backlog=64", "--iodepth=32"),
                   "--file-async-backlog=64", "--iodepth=32", "disagree");

    /* Agreeing, or one of them alone: the sysbench spelling decides. */
    expect_ok(&cfg,
              ARGV("run", "--file-test-mode=seqrd", "--file-io-mode=sync", "--ioengine=sync",
                   "--file-async-backlog=64", "--iodepth=64"),
              err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.ioengine, sbio_engine_id("sync"));
    assert_int_equal(cfg.iodepth, 64);
    expect_ok(&cfg, ARGV("prepare", "--file-io-mode=mmap", "--file-async-backlog=7"), err,
              sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.ioengine, sbio_engine_id("mmap"));
    assert_int_equal(cfg.iodepth, 7);
    expect_ok(&cfg, ARGV("run", "--file-test-mode=seqrd", "--iodepth=9"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.iodepth, 9);
}

static void test_validate_command_needs(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_invalid(ARGV("run"), "--file-test-mode", "seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw",
                   NULL);
    expect_invalid(ARGV("--threads=2"), "no command", "prepare, run, cleanup", NULL);
    expect_invalid(ARGV("run", "--file-test-mode=seqrd", "extra"), "run", "'extra'", NULL);
    expect_invalid(ARGV("compare"), "--file-test-mode", NULL, NULL);
    expect_invalid(ARGV("diff", "a.json"), "diff", "two results", NULL);
    /* compare takes its test mode from --vary when it varies it. */
    expect_ok(&cfg, ARGV("compare", "--vary", "file-test-mode=seqrd,rndrd"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    /* Every engine is in this build; sysbench's async is libaio. */
    expect_ok(&cfg, ARGV("run", "--file-test-mode=seqrd", "--file-io-mode=async"), err,
              sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.ioengine, sbio_engine_id("libaio"));
    expect_ok(&cfg, ARGV("run", "--file-test-mode=seqrd", "--file-io-mode=mmap"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.ioengine, sbio_engine_id("mmap"));
    /* plot needs results and an output. */
    expect_invalid(ARGV("plot"), "plot", "JSON", NULL);
    expect_invalid(ARGV("plot", "r.json"), "plot", "-o", NULL);

    /* prepare and cleanup need no test mode. */
    expect_ok(&cfg, ARGV("prepare"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    expect_ok(&cfg, ARGV("cleanup"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndwr", "--ioengine=null"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
}

static void test_validate_csv(void **state)
{
    (void)state;
    /* A script's CSV is written; compare has no CSV, however asked, rather than JSON in a
     * .csv file. */
    struct sbio_config cfg;
    char err[MSG_MAX];
    expect_ok(&cfg, ARGV("run", "--script=x.lua", "--output-format=csv"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    expect_ok(&cfg, ARGV("run", "--script=x.lua", "-o", "r.csv"), err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.output_format, SBIO_OUT_CSV);
    expect_invalid(ARGV("compare", "--script=x.lua", "--vary=x=1,2", "--output-format=csv"),
                   "compare", "CSV", "-o FILE.json");
    expect_invalid(ARGV("compare", "--file-test-mode=rndrd", "--vary=threads=1,2", "-o", "c.csv"),
                   "compare", "CSV", "-o FILE.json");
}

static void test_validate_not_implemented(void **state)
{
    (void)state;
    /* A raw device has no prepare or cleanup. */
    expect_invalid(ARGV("prepare", "--filename=/dev/sdz"), "--filename", "prepare", NULL);
    /* Verified sets need written blocks. */
    expect_invalid(ARGV("prepare", "--verify", "--file-prealloc=fallocate"), "--verify",
                   "fallocate", NULL);
}

/* ---- help ---- */

static char *help_text(const char *topic, int *rc, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    struct capture c;
    cap_begin(&c);
    *rc = sbio_options_help(f, topic);
    cap_end(&c, err, errlen);
    fclose(f);
    return text;
}

static void test_help_all(void **state)
{
    (void)state;
    char err[MSG_MAX];
    int rc;
    char *h = help_text(NULL, &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    assert_has(h, "Usage: sbio [OPTIONS] COMMAND [OPTIONS]");
    static const char *const cmds[] = {"prepare", "run",     "cleanup", "compare", "diff",
                                       "plot",    "restore", "help",    "version"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char line[32];
        snprintf(line, sizeof(line), "\n  %-10s ", cmds[i]);
        assert_has(h, line);
    }
    assert_has(h, "--threads=N ");
    assert_has(h, "(old: --num-threads)");
    assert_has(h, "(old: --max-requests)");
    assert_has(h, "--file-num=N ");
    assert_has(h, "[128]");
    assert_has(h, "--file-total-size=SIZE ");
    assert_has(h, "[2G]");
    assert_has(h, "--file-test-mode=MODE ");
    assert_has(h, "--threshold=PCT ");
    assert_has(h, "-o FILE ");
    assert_has(h, "--rand-type");
    assert_has(h, "--mysql-*");
    /* A not-implemented option says so on its own line. */
    const char *s = strstr(h, "--script=FILE");
    assert_non_null(s);
    const char *eol = strchr(s, '\n');
    assert_non_null(eol);
    assert_true(!strstr(s, "(not implemented yet)") || strstr(s, "(not implemented yet)") > eol);
    /* The --test selector and the ignored options are not listed as options. */
    assert_lacks(h, "--test=");
    assert_lacks(h, "--rand-spec-pct=");
    free(h);
}

/* An engine's own options (its .options table, engine.h) are options like the others: after
 * --ioengine in help, parsed from the command line, a config file and compare's --vary into
 * the engine's slots, checked as their type says, given or not. */
static void test_engine_options(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX], arg[400];
    unsigned base = sbio_engine_option_base(sbio_engine_id("io_uring"));
    sbio_options_defaults(&cfg);
    assert_int_equal(cfg.engine_opt[base], 0);
    assert_int_equal(cfg.engine_opt[base + 1], 0);
    expect_ok(&cfg, ARGV("run", "--uring-fixed", "--uring_sqpoll=yes"), err, sizeof(err));
    assert_int_equal(cfg.engine_opt[base], 1);
    assert_int_equal(cfg.engine_opt[base + 1], 1);
    assert_true(sbio_options_given(&cfg, "uring-fixed"));
    /* Any engine takes them, as before they were the engine's: the others do not read them. */
    expect_ok(&cfg, ARGV("run", "--file-test-mode=rndrd", "--ioengine=sync", "--uring-fixed=on"),
              err, sizeof(err));
    assert_int_equal(validate(&cfg, err, sizeof(err)), 0);
    expect_bad(ARGV("run", "--uring-fixed=2"), "--uring-fixed: '2' is not valid",
               "accepted: on/off, true/false, yes/no, 1/0", NULL);
    expect_bad(ARGV("run", "--uring-sqpol=on"), "unknown option '--uring-sqpol'",
               "did you mean --uring-sqpoll?", NULL);
    const char *p = conf_write("eng.cfg", "uring-sqpoll = on\n");
    snprintf(arg, sizeof(arg), "--config-file=%s", p);
    expect_ok(&cfg, ARGV(arg, "run"), err, sizeof(err));
    assert_int_equal(cfg.engine_opt[base + 1], 1);
    assert_int_equal(cfg.engine_opt[base], 0);
    sbio_options_defaults(&cfg);
    assert_true(sbio_options_known("uring-fixed", SBIO_C(SBIO_CMD_RUN)));
    assert_int_equal(sbio_options_set(&cfg, "uring-fixed", "on", SBIO_C(SBIO_CMD_RUN)), 0);
    assert_int_equal(cfg.engine_opt[base], 1);
    /* Help lists them where the table had them: right after --ioengine, before --iodepth. */
    int rc;
    char *h = help_text("run", &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    const char *eng = strstr(h, "\n  --ioengine="), *fixed = strstr(h, "\n  --uring-fixed="),
               *sq = strstr(h, "\n  --uring-sqpoll="), *depth = strstr(h, "\n  --iodepth=");
    assert_true(eng && fixed && sq && depth);
    assert_ptr_equal(fixed, strchr(eng + 1, '\n'));
    assert_ptr_equal(sq, strchr(fixed + 1, '\n'));
    assert_ptr_equal(depth, strchr(sq + 1, '\n'));
    assert_has(fixed, "--uring-fixed=on|off           io_uring: register the files and buffers "
                      "[off]\n");
    free(h);
}

static void test_help_command(void **state)
{
    (void)state;
    char err[MSG_MAX];
    int rc;
    char *h = help_text("prepare", &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_has(h, "Usage: sbio prepare [OPTIONS]");
    assert_has(h, "--file-num=N ");
    assert_has(h, "--file-total-size=SIZE ");
    assert_has(h, "--dir=DIR ");
    assert_has(h, "--file-fill=FILL ");
    assert_has(h, "--rand-seed=N ");
    assert_lacks(h, "--threads");
    assert_lacks(h, "--file-test-mode");
    assert_lacks(h, "--histogram");
    assert_lacks(h, "Commands:");
    assert_lacks(h, "-o FILE");
    free(h);

    h = help_text("run", &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_has(h, "Usage: sbio run [OPTIONS]");
    assert_has(h, "--threads=N ");
    assert_has(h, "--file-test-mode=MODE ");
    assert_has(h, "--file-num=N ");
    assert_lacks(h, "--threshold");
    assert_lacks(h, "--schedulers");
    assert_lacks(h, "--repeat");
    assert_has(h, "seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw");
    free(h);

    /* Only what the command uses: cleanup goes by the manifest in --dir. */
    h = help_text("cleanup", &rc, err, sizeof(err));
    assert_has(h, "--dir=DIR ");
    assert_has(h, "--file-per-rank=");
    assert_lacks(h, "--file-num");
    assert_lacks(h, "--file-total-size");
    assert_lacks(h, "--filename");
    assert_lacks(h, "--script");
    free(h);
    h = help_text("prepare", &rc, err, sizeof(err));
    assert_lacks(h, "--filename");
    assert_lacks(h, "--allow-destroy");
    free(h);
    h = help_text("restore", &rc, err, sizeof(err));
    assert_has(h, "Options:\n  (none)\n");
    free(h);
    h = help_text("diff", &rc, err, sizeof(err));
    assert_has(h, "--threshold=PCT ");
    /* It has no default: off unless given, and the help says so. */
    assert_lacks(h, "[5]");
    assert_has(h, "off unless given");
    assert_lacks(h, "--threads");
    free(h);

    h = help_text("bogus", &rc, err, sizeof(err));
    assert_int_equal(rc, -EINVAL);
    assert_one_error_line(err);
    assert_has(err, "'bogus'");
    assert_has(err, "accepted: prepare, run, cleanup");
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_as_sysbench),
        cmocka_unit_test(test_both_syntaxes),
        cmocka_unit_test(test_options_around_command),
        cmocka_unit_test(test_bool_never_takes_next_word),
        cmocka_unit_test(test_enums),
        cmocka_unit_test(test_flags_fill_lists),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_iodepth_batch),
        cmocka_unit_test(test_old_spellings),
        cmocka_unit_test(test_ignored_sysbench_options),
        cmocka_unit_test(test_verbosity),
        cmocka_unit_test(test_sysbench_forms),
        cmocka_unit_test(test_list_option_alone),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_rate_limit),
        cmocka_unit_test(test_sysbench_04_note),
        cmocka_unit_test(test_config_file),
        cmocka_unit_test(test_config_file_errors),
        cmocka_unit_test(test_unknown_and_missing),
        cmocka_unit_test(test_short_output),
        cmocka_unit_test(test_help_and_version_flags),
        cmocka_unit_test(test_validate_conflicts),
        cmocka_unit_test(test_validate_command_needs),
        cmocka_unit_test(test_validate_csv),
        cmocka_unit_test(test_validate_not_implemented),
        cmocka_unit_test(test_help_all),
        cmocka_unit_test(test_ioprio),
        cmocka_unit_test(test_help_command),
        cmocka_unit_test(test_engine_options),
        cmocka_unit_test(test_warmup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
