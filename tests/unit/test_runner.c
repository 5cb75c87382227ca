/* Unit tests for the runner (src/core/runner.c), end to end with the null engine: the event
 * budget, the time limit, per-thread totals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "fileset.h"
#include "manifest.h"
#include "helpers.h"
#include "options.h"
#include "prepare.h"
#include "runner.h"
#include "stats.h"
#include "util.h"

#define BLK       4096ULL
#define MAX_FILES 16

/* An in-memory set: the null engine never opens anything, so no folder is needed. */
struct memfs {
    struct sbio_fileset fs;
    struct sbio_fileset_file files[MAX_FILES];
};

static void memfs_init(struct memfs *m, unsigned nfiles, uint64_t size)
{
    assert_true(nfiles <= MAX_FILES);
    memset(m, 0, sizeof(*m));
    m->fs.dirfd = -1;
    m->fs.dir = "(memory)";
    m->fs.complete = true;
    m->fs.block_size = BLK;
    m->fs.seed = 1;
    m->fs.nfiles = nfiles;
    m->fs.files = m->files;
    for (unsigned i = 0; i < nfiles; i++) {
        snprintf(m->files[i].name, sizeof(m->files[i].name), "test_file.%u", i);
        m->files[i].size = size;
        m->fs.bytes += size;
    }
    m->fs.total_size = m->fs.bytes;
}

static void run_config(struct sbio_config *cfg, int mode, unsigned threads, uint64_t events,
                       unsigned nfiles, uint64_t size)
{
    sbio_options_defaults(cfg);
    cfg->cmd = SBIO_CMD_RUN;
    cfg->ioengine = sbio_engine_id("null");
    cfg->dir = "(memory)";
    cfg->mode = mode;
    cfg->threads = threads;
    cfg->events = events;
    cfg->time_s = 0;
    cfg->rand_seed = 7;
    cfg->block_size = BLK;
    cfg->file_num = nfiles;
    cfg->total_size = nfiles * size;
    cfg->fsync_freq = 0;
}

/* Run cfg's job on fs. */
static int run_cfg(const struct sbio_config *cfg, struct sbio_fileset *fs,
                   struct sbio_run_result *res)
{
    struct sbio_job job;
    test_job_from_config(&job, cfg);
    struct sbio_runner_env env = {.fs = fs};
    return sbio_runner_run(&job, &env, res);
}

/* Run and check what every successful run must satisfy; returns the total. */
static void run_ok(const struct sbio_config *cfg, struct sbio_fileset *fs,
                   struct sbio_run_result *res)
{
    assert_int_equal(run_cfg(cfg, fs, res), 0);
    assert_int_equal(res->error, 0);
    assert_int_equal(res->stop_signal, 0);
    assert_int_equal(res->threads, cfg->threads);
    assert_int_equal(res->seed, cfg->rand_seed);
    assert_non_null(res->per_thread);
    assert_true(res->elapsed_ns > 0);
    /* Per-thread figures sum to the total. */
    uint64_t events = 0, end = 0, ops = 0, bytes = 0;
    for (unsigned t = 0; t < res->threads; t++) {
        const struct sbio_stats *s = &res->per_thread[t];
        events += s->events;
        end += s->end_fsyncs;
        ops += sbio_stats_ops(s);
        bytes += s->bytes[SBIO_READ] + s->bytes[SBIO_WRITE];
        assert_int_equal(s->errors, 0);
        /* Every op is an event or an end fsync, and lands in one histogram. */
        assert_int_equal(s->lat[SBIO_READ].count + s->lat[SBIO_WRITE].count +
                             s->lat[SBIO_FSYNC].count,
                         s->events + s->end_fsyncs);
        assert_true(s->start_ns <= s->end_ns);
    }
    assert_int_equal(events, res->total.events);
    assert_int_equal(end, res->total.end_fsyncs);
    assert_int_equal(ops, sbio_stats_ops(&res->total));
    assert_int_equal(bytes, res->total.bytes[SBIO_READ] + res->total.bytes[SBIO_WRITE]);
    assert_int_equal(res->elapsed_ns, res->total.end_ns - res->total.start_ns);
}

static const unsigned thread_counts[] = {1, 3, 16};

/* --events=N is exactly N events over all threads, for every mode without fsyncs. */
static void test_events_exact(void **state)
{
    (void)state;
    const int modes[] = {SBIO_MODE_RNDRD, SBIO_MODE_SEQRD, SBIO_MODE_RNDRW, SBIO_MODE_RNDWR,
                         SBIO_MODE_SEQREWR};
    const uint64_t n = 100003; /* prime: no batch size divides it */
    struct memfs m;
    memfs_init(&m, 4, 64 * BLK);
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        for (size_t k = 0; k < 3; k++) {
            struct sbio_config cfg;
            struct sbio_run_result res;
            unsigned threads = thread_counts[k];
            run_config(&cfg, modes[i], threads, n, 4, 64 * BLK);
            cfg.fsync_end = false;
            run_ok(&cfg, &m.fs, &res);
            const struct sbio_stats *t = &res.total;
            assert_int_equal(t->events, n);
            assert_int_equal(t->lat[SBIO_READ].count + t->lat[SBIO_WRITE].count, n);
            assert_int_equal(t->lat[SBIO_FSYNC].count, 0);
            assert_int_equal(t->end_fsyncs, 0);
            /* Whole blocks only: every op moved one block. */
            assert_int_equal(t->bytes[SBIO_READ] + t->bytes[SBIO_WRITE], n * BLK);
            if (modes[i] == SBIO_MODE_RNDRW) {
                double ratio = (double)t->lat[SBIO_READ].count / t->lat[SBIO_WRITE].count;
                assert_true(fabs(ratio - 1.5) < 0.015 * 1.5);
            }
            sbio_run_result_free(&res);
        }
}

/* Periodic fsyncs are events, end fsyncs are not; the budget stays exact. */
static void test_events_with_fsyncs(void **state)
{
    (void)state;
    const uint64_t n = 10007;
    struct memfs m;
    memfs_init(&m, 4, 64 * BLK);
    for (size_t k = 0; k < 3; k++) {
        struct sbio_config cfg;
        struct sbio_run_result res;
        unsigned threads = thread_counts[k];
        run_config(&cfg, SBIO_MODE_RNDWR, threads, n, 4, 64 * BLK);
        cfg.fsync_freq = 7;
        assert_true(cfg.fsync_end);
        run_ok(&cfg, &m.fs, &res);
        const struct sbio_stats *t = &res.total;
        assert_int_equal(t->events, n);
        assert_int_equal(t->lat[SBIO_READ].count, 0);
        assert_int_equal(t->lat[SBIO_WRITE].count + t->lat[SBIO_FSYNC].count - t->end_fsyncs, n);
        /* Scope all: every thread fsyncs every file at the end. */
        assert_int_equal(t->end_fsyncs, threads * 4);
        assert_int_equal(t->write_fsyncs, 0);
        if (threads == 1) {
            /* 7 writes then 4 fsyncs: 909 periods of 11, then 7 writes and 1 fsync. */
            assert_int_equal(t->lat[SBIO_WRITE].count, 909 * 7 + 7);
            assert_int_equal(t->lat[SBIO_FSYNC].count - t->end_fsyncs, 909 * 4 + 1);
        } else {
            /* Per thread, e = 11q + r events hold 4q + max(0, r - 7) fsyncs, so the sum
             * is within 28/11 per thread below 4n/11. */
            uint64_t periodic = t->lat[SBIO_FSYNC].count - t->end_fsyncs;
            assert_true(11 * periodic <= 4 * n);
            assert_true(4 * n - 11 * periodic <= 28 * threads);
        }
        sbio_run_result_free(&res);

        /* Read-only modes: no fsync at all, even with a frequency and fsync-end. */
        run_config(&cfg, SBIO_MODE_RNDRD, threads, n, 4, 64 * BLK);
        cfg.fsync_freq = 1;
        run_ok(&cfg, &m.fs, &res);
        assert_int_equal(res.total.events, n);
        assert_int_equal(res.total.lat[SBIO_FSYNC].count, 0);
        assert_int_equal(res.total.end_fsyncs, 0);
        sbio_run_result_free(&res);

        /* --file-fsync-all: the fsync is inside its write's event. */
        run_config(&cfg, SBIO_MODE_RNDRW, threads, n, 4, 64 * BLK);
        cfg.fsync_all = true;
        cfg.fsync_freq = 3;
        run_ok(&cfg, &m.fs, &res);
        assert_int_equal(res.total.events, n);
        assert_int_equal(res.total.lat[SBIO_FSYNC].count, 0);
        assert_int_equal(res.total.end_fsyncs, 0);
        assert_int_equal(res.total.write_fsyncs, res.total.lat[SBIO_WRITE].count);
        assert_int_equal(sbio_stats_ops(&res.total), n + res.total.write_fsyncs);
        sbio_run_result_free(&res);
    }
}

/* With no event limit the time limit ends the run, after about that long. */
static void test_time_limit(void **state)
{
    (void)state;
    struct memfs m;
    struct sbio_config cfg;
    struct sbio_run_result res;
    memfs_init(&m, 2, 16 * BLK);
    run_config(&cfg, SBIO_MODE_RNDRW, 3, 0, 2, 16 * BLK);
    cfg.time_s = 1;
    cfg.fsync_freq = 50;
    uint64_t t0 = sbio_now_ns();
    run_ok(&cfg, &m.fs, &res);
    uint64_t wall = sbio_now_ns() - t0;
    double el = (double)res.elapsed_ns / 1e9;
    if (el < 0.98 || el > 1.25)
        fail_msg("elapsed %.3f s for --time=1", el);
    assert_true(wall < 2 * 1000000000ULL);
    assert_true(res.total.events > 1000);
    for (unsigned t = 0; t < 3; t++)
        assert_true(res.per_thread[t].events > 0);
    assert_int_equal(res.total.end_fsyncs, 3 * 2);
    sbio_run_result_free(&res);
}

/* Input that cannot run is refused before any thread starts. */
static void test_refused(void **state)
{
    (void)state;
    struct memfs m;
    struct sbio_config cfg;
    struct sbio_run_result res;
    memfs_init(&m, 2, 2 * BLK + 100); /* 3 sequential requests per file */
    run_config(&cfg, SBIO_MODE_SEQRD, 7, 10, 2, 2 * BLK + 100);
    cfg.seq_stream = SBIO_SEQ_PER_THREAD;
    assert_int_equal(run_cfg(&cfg, &m.fs, &res), -SBIO_EUSAGE);
    assert_null(res.per_thread);
    /* Six threads for six requests is fine. */
    cfg.threads = 6;
    cfg.events = 12;
    run_ok(&cfg, &m.fs, &res);
    assert_int_equal(res.total.events, 12);
    sbio_run_result_free(&res);
    /* The shared stream: two passes, the short tails are 100 bytes. */
    cfg.seq_stream = SBIO_SEQ_SHARED;
    cfg.threads = 7;
    run_ok(&cfg, &m.fs, &res);
    assert_int_equal(res.total.events, 12);
    assert_int_equal(res.total.bytes[SBIO_READ], 2 * (4 * BLK + 200));
    sbio_run_result_free(&res);

    memfs_init(&m, 2, BLK - 1);
    run_config(&cfg, SBIO_MODE_RNDRD, 1, 10, 2, BLK - 1);
    assert_int_equal(run_cfg(&cfg, &m.fs, &res), -SBIO_EUSAGE);
}

/* A real prepared set in a temporary folder: the event budget holds there too, seqrd leaves
 * the set as it was and seqwr leaves it complete. */
static char tmp_dir[64];

/* Remove what a failed test left behind; after a pass there is nothing left. */
static int tmp_dir_teardown(void **state)
{
    (void)state;
    return tmpdir_remove(tmp_dir);
}

static void test_prepared_set(void **state)
{
    (void)state;
    char *dir = tmp_dir;
    assert_int_equal(tmpdir_make(tmp_dir, sizeof(tmp_dir), "/tmp", "runner"), 0);
    struct sbio_config cfg;
    run_config(&cfg, SBIO_MODE_SEQRD, 3, 1001, 4, 16 * BLK);
    cfg.dir = dir;
    cfg.cmd = SBIO_CMD_PREPARE;
    assert_int_equal(sbio_fileset_prepare(TS(&cfg), NULL, stdout), 0);
    cfg.cmd = SBIO_CMD_RUN;

    struct sbio_fileset fs;
    bool created;
    assert_int_equal(sbio_fileset_open(&fs, TS(&cfg), false, &created), 0);
    assert_false(created);
    assert_int_equal(fs.nfiles, 4);
    struct sbio_run_result res;
    run_ok(&cfg, &fs, &res);
    assert_int_equal(res.total.events, 1001);
    assert_int_equal(res.total.bytes[SBIO_READ], 1001 * BLK);
    sbio_run_result_free(&res);
    sbio_fileset_close(&fs);

    /* seqwr: the budget holds, and however the run ends the set is whole and complete
     * again afterwards (reopening checks the manifest and every size). */
    cfg.mode = SBIO_MODE_SEQWR;
    cfg.events = 10;
    assert_int_equal(sbio_fileset_open(&fs, TS(&cfg), true, &created), 0);
    assert_false(created);
    run_ok(&cfg, &fs, &res);
    assert_int_equal(res.total.events, 10);
    assert_int_equal(res.total.bytes[SBIO_WRITE], 10 * BLK);
    assert_int_equal(res.total.end_fsyncs, 3 * 4);
    sbio_run_result_free(&res);
    sbio_fileset_close(&fs);
    assert_int_equal(sbio_fileset_open(&fs, TS(&cfg), false, &created), 0);
    assert_true(fs.complete);
    sbio_fileset_close(&fs);

    for (unsigned i = 0; i < 4; i++) {
        char path[128];
        struct stat st;
        snprintf(path, sizeof(path), "%s/test_file.%u", dir, i);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 16 * BLK);
    }
    cfg.cmd = SBIO_CMD_CLEANUP;
    assert_int_equal(sbio_fileset_cleanup(TS(&cfg), stdout), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_exact),
        cmocka_unit_test(test_events_with_fsyncs),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_refused),
        cmocka_unit_test_teardown(test_prepared_set, tmp_dir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
