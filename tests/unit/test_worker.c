/* Unit tests for a worker thread (src/core/worker.c): sbio_worker_main run on the test's thread, in
 * a run of one thread built as the runner builds it (run.h), over real files in a temporary
 * folder, through an engine of the test's own that does the real system calls and keeps the
 * log of what it was given: synchronous, or queued with a depth of 4. The worker's counts
 * (events, each op type's operations and bytes, end fsyncs, fsyncs inside writes, queue depth)
 * equal what the engine did, each block holds what the engine's last write there wrote and
 * no other block changed; a short read or a failed write stops the thread with its message,
 * its events counted up to there and no end fsync; a run that failed before its measured
 * phase does no operation; every file it opened is closed. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fill.h"
#include "helpers.h"
#include "probe.h"
#include "runner.h"
#include "worker.h"

#define NFILES 2
#define BLOCKS 16 /* per file */
#define BLK    4096ULL
#define DEPTH  4
#define LOGMAX 4096

/* What the engine was given, and how it answers. */
static struct {
    unsigned opens, closes, commits, inflight, max_inflight;
    uint64_t ops[SBIO_OP_NR], bytes[SBIO_OP_NR], flagged; /* flagged: SBIO_IO_FSYNC_AFTER */
    unsigned n;                                           /* ios done, in order */
    struct {
        enum sbio_op op;
        unsigned file;
        uint64_t offset, hash; /* hash: a write's data */
    } log[LOGMAX];
    uint64_t fail_offset; /* the offset of the io that failed */
    unsigned fail_at;     /* the fail_at-th io (from 1) fails: 0 none */
    int64_t fail_res;     /* ... with this res (a short count, or -errno) */
    struct sbio_io *pending[DEPTH];
    unsigned npending; /* queued, not reaped */
} eng;

static int ce_init(void **priv, const struct sbio_engine_params *params)
{
    (void)params;
    *priv = &eng;
    return 0;
}
static void ce_cleanup(void *priv)
{
    (void)priv;
}
static int ce_open(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags)
{
    eng.opens++;
    return sbio_engine_open_fd(priv, f, dirfd, name, oflags);
}
static int ce_close(void *priv, struct sbio_file *f)
{
    eng.closes++;
    return sbio_engine_close_fd(priv, f);
}

/* FNV-1a of a block. */
static uint64_t block_hash(const unsigned char *b)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < BLK; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* Carry io out with the system call, logged; the fail_at-th one answers fail_res instead,
 * having done nothing. */
static void ce_do(struct sbio_file *files, struct sbio_io *io)
{
    if (++eng.n == eng.fail_at) {
        io->res = eng.fail_res;
        eng.fail_offset = io->offset;
        return;
    }
    int fd = files[io->file].fd;
    ssize_t n = io->op == SBIO_READ    ? pread(fd, io->buf, io->len, (off_t)io->offset)
                : io->op == SBIO_WRITE ? pwrite(fd, io->buf, io->len, (off_t)io->offset)
                                       : fsync(fd);
    io->res = n < 0 ? -errno : n;
    assert_true(eng.n <= LOGMAX);
    eng.log[eng.n - 1].op = io->op;
    eng.log[eng.n - 1].file = io->file;
    eng.log[eng.n - 1].offset = io->offset;
    eng.log[eng.n - 1].hash = io->op == SBIO_WRITE ? block_hash(io->buf) : 0;
    eng.ops[io->op]++;
    eng.bytes[io->op] += io->op == SBIO_FSYNC ? 0 : (uint64_t)io->res;
    eng.flagged += (io->flags & SBIO_IO_FSYNC_AFTER) != 0;
}

static int ce_queue_sync(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    (void)priv;
    ce_do(files, io);
    return SBIO_Q_DONE;
}

/* The queued flavour: ios wait in pending (at most DEPTH) until reaped. */
static struct sbio_file *g_qfiles;
static int ce_queue(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    (void)priv;
    if (eng.npending == DEPTH)
        return SBIO_Q_BUSY;
    g_qfiles = files;
    eng.pending[eng.npending++] = io;
    if (++eng.inflight > eng.max_inflight)
        eng.max_inflight = eng.inflight;
    return SBIO_Q_QUEUED;
}
static int ce_commit(void *priv)
{
    (void)priv;
    eng.commits++;
    return 0;
}
static int ce_reap(void *priv, unsigned min, struct sbio_io **done, unsigned max,
                   uint64_t timeout_ns)
{
    (void)priv;
    (void)min;
    (void)timeout_ns;
    unsigned k = 0;
    for (; k < eng.npending && k < max; k++) {
        ce_do(g_qfiles, eng.pending[k]);
        done[k] = eng.pending[k];
        eng.inflight--;
    }
    memmove(eng.pending, eng.pending + k, (eng.npending - k) * sizeof(eng.pending[0]));
    eng.npending -= k;
    return (int)k;
}

static const struct sbio_engine_ops sync_ops = {
    .name = "counting",
    .kind = "synchronous",
    .flags = SBIO_ENG_SYNC,
    .init = ce_init,
    .cleanup = ce_cleanup,
    .open_file = ce_open,
    .close_file = ce_close,
    .queue = ce_queue_sync,
};
static const struct sbio_engine_ops queued_ops = {
    .name = "counting-queued",
    .kind = "asynchronous",
    .init = ce_init,
    .cleanup = ce_cleanup,
    .open_file = ce_open,
    .close_file = ce_close,
    .queue = ce_queue,
    .commit = ce_commit,
    .reap = ce_reap,
};

/* One thread's run, as the runner sets it up. Static: struct sbio_stats is cache-line
 * aligned. */
static struct sbio_stats g_stats;
struct fx {
    struct tdir *t;
    struct test_set set;
    struct sbio_job job;
    struct sbio_runner_env env;
    struct run r;
    struct worker w;
    struct sbio_thread_usage usage; /* the worker's entry of the run's usage */
    struct sbio_file files[NFILES];
    struct sbio_io ios[DEPTH];
    void *buf;
    unsigned char before[NFILES][BLOCKS * BLK]; /* the files' content before the run */
};

static int fx_setup(void **state)
{
    if (tdir_setup(state, "worker"))
        return -1;
    struct fx *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    f->t = *state;
    test_set_init(&f->set, NFILES, BLOCKS * BLK, f->t->dfd, f->t->path);
    /* Every file its fill, as prepare leaves it. */
    for (unsigned i = 0; i < NFILES; i++) {
        sbio_fill_range(&f->set.fs, i, 0, f->before[i], BLOCKS * BLK);
        int fd = openat(f->t->dfd, f->set.files[i].name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, f->before[i], BLOCKS * BLK) != (ssize_t)(BLOCKS * BLK))
            return -1;
        close(fd);
    }
    memset(&eng, 0, sizeof(eng));
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;
    sbio_wl_fini(&f->w.wl);
    sbio_layout_free(&f->r.lay);
    sbio_gate_destroy(&f->r.barrier);
    free(f->buf);
    *state = f->t;
    free(f);
    return tdir_teardown(state);
}

/* The run of f->job on the set with engine e, and its one worker, as runner.c's run_setup
 * and run_worker_init make them. */
static void fx_run(struct fx *f, const struct sbio_engine_ops *e)
{
    struct run *r = &f->r;
    struct worker *w = &f->w;
    f->env = (struct sbio_runner_env){.fs = &f->set.fs};
    *r = (struct run){.job = &f->job,
                      .env = &f->env,
                      .eng = e,
                      .fs = &f->set.fs,
                      .w = w,
                      .nthreads = 1,
                      .oflags = O_RDWR,
                      .fadv = -1,
                      .req = sbio_job_req_bytes(&f->job),
                      .end_ns = UINT64_MAX,
                      .budget = f->job.events > 0,
                      .budget_left = f->job.events};
    uint64_t sizes[NFILES] = {BLOCKS * BLK, BLOCKS * BLK};
    assert_int_equal(sbio_layout_init(&r->lay, NFILES, sizes, BLK, sbio_job_merged(&f->job), 0), 0);
    sbio_wl_shared_init(&r->sh, &f->job, &r->lay, f->job.seed);
    r->sh.stop = &r->stop;
    sbio_gate_init(&r->barrier, 1); /* the worker alone: it never waits */
    r->usage = &f->usage;
    *w = (struct worker){.run = r,
                         .files = f->files,
                         .ios = f->ios,
                         .stats = &g_stats,
                         .cpu = -1,
                         .usage = &f->usage};
    w->nios = e->flags & SBIO_ENG_SYNC ? 1 : DEPTH;
    sbio_stats_init(&g_stats);
    assert_int_equal(posix_memalign(&f->buf, 4096, r->req * w->nios), 0);
    for (unsigned k = 0; k < w->nios; k++) {
        f->ios[k] = (struct sbio_io){
            .slot = k, .len = (uint32_t)r->req, .buf = (char *)f->buf + k * r->req};
        sbio_fill_range(&f->set.fs, 1000 + k, 0, f->ios[k].buf, r->req); /* no file's fill */
    }
    for (unsigned i = 0; i < NFILES; i++)
        f->files[i].fd = -1;
    assert_int_equal(sbio_wl_init(&w->wl, &r->sh, 0), 0);
    assert_int_equal(e->init(&w->eng_priv, NULL), 0);
}

/* What every worker that ran must show: done, its files closed, the engine's counts its own. */
static void assert_counts(const struct fx *f)
{
    const struct sbio_stats *s = &g_stats;
    assert_int_equal(f->w.done, 1);
    assert_int_equal(eng.opens, NFILES);
    assert_int_equal(eng.closes, NFILES);
    for (unsigned i = 0; i < NFILES; i++)
        assert_int_equal(fcntl(f->files[i].fd, F_GETFD), -1);
    assert_int_equal(s->lat[SBIO_READ].count, eng.ops[SBIO_READ]);
    assert_int_equal(s->lat[SBIO_WRITE].count, eng.ops[SBIO_WRITE]);
    assert_int_equal(s->lat[SBIO_FSYNC].count, eng.ops[SBIO_FSYNC]);
    assert_int_equal(s->bytes[SBIO_READ], eng.bytes[SBIO_READ]);
    assert_int_equal(s->bytes[SBIO_WRITE], eng.bytes[SBIO_WRITE]);
    assert_int_equal(s->write_fsyncs, eng.flagged);
}

/* The files now: each block holds what the last write the engine's log has there wrote,
 * every other block what it held before (the failed io did nothing). */
static void assert_files(const struct fx *f)
{
    uint64_t want[NFILES][BLOCKS];
    unsigned char got[BLOCKS * BLK];
    unsigned writes = 0;
    for (unsigned i = 0; i < NFILES; i++)
        for (unsigned b = 0; b < BLOCKS; b++)
            want[i][b] = block_hash(f->before[i] + b * BLK);
    for (unsigned i = 0; i < eng.n && i < LOGMAX; i++)
        if (eng.log[i].op == SBIO_WRITE && i + 1 != eng.fail_at) {
            want[eng.log[i].file][eng.log[i].offset / BLK] = eng.log[i].hash;
            writes++;
        }
    assert_int_equal(writes, eng.ops[SBIO_WRITE]);
    for (unsigned i = 0; i < NFILES; i++) {
        int fd = openat(f->t->dfd, f->set.files[i].name, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(pread(fd, got, sizeof(got), 0), (ssize_t)sizeof(got));
        close(fd);
        for (unsigned b = 0; b < BLOCKS; b++)
            if (block_hash(got + b * BLK) != want[i][b])
                fail_msg("test_file.%u block %u is not what the engine's log says", i, b);
    }
}

/* rndrw, 1 000 events: as many reads and writes as the engine did, and the two end fsyncs
 * (one per file) as end fsyncs, not events. */
static void test_sync_counts(void **state)
{
    struct fx *f = *state;
    f->job = test_job("sync", SBIO_MODE_RNDRW, 1, 1000);
    f->job.fsync_end = true;
    fx_run(f, &sync_ops);
    sbio_worker_main(&f->w);
    assert_int_equal(f->w.err, 0);
    assert_counts(f);
    assert_int_equal(g_stats.events, 1000);
    assert_int_equal(eng.ops[SBIO_READ] + eng.ops[SBIO_WRITE], 1000);
    assert_true(eng.ops[SBIO_READ] > 0 && eng.ops[SBIO_WRITE] > 0);
    assert_int_equal(eng.bytes[SBIO_READ], eng.ops[SBIO_READ] * BLK);
    assert_int_equal(g_stats.end_fsyncs, NFILES);
    assert_int_equal(eng.ops[SBIO_FSYNC], NFILES);
    assert_int_equal(eng.log[1000].op, SBIO_FSYNC); /* after the events */
    assert_true(f->w.usage->taken);
    assert_true(g_stats.start_ns <= g_stats.end_ns);
    assert_files(f);
}

/* --file-fsync-all: every write carries its sync (the engine's to do) and is counted as one. */
static void test_sync_fsync_all(void **state)
{
    struct fx *f = *state;
    f->job = test_job("sync", SBIO_MODE_RNDWR, 1, 77);
    f->job.fsync_all = true;
    fx_run(f, &sync_ops);
    sbio_worker_main(&f->w);
    assert_int_equal(f->w.err, 0);
    assert_counts(f);
    assert_int_equal(eng.ops[SBIO_WRITE], 77);
    assert_int_equal(eng.flagged, 77);
    assert_int_equal(g_stats.write_fsyncs, 77);
    assert_int_equal(g_stats.events, 77);
    assert_files(f);
}

/* Queued: at most 4 in flight, as many completions counted as the engine carried out, the
 * depth reached said; every io queued was committed before it was reaped. */
static void test_queued_counts(void **state)
{
    struct fx *f = *state;
    f->job = test_job("sync", SBIO_MODE_RNDRW, 1, 999);
    f->job.iodepth = DEPTH;
    fx_run(f, &queued_ops);
    sbio_worker_main(&f->w);
    assert_int_equal(f->w.err, 0);
    assert_counts(f);
    assert_int_equal(g_stats.events, 999);
    assert_int_equal(eng.ops[SBIO_READ] + eng.ops[SBIO_WRITE], 999);
    assert_int_equal(eng.max_inflight, DEPTH);
    assert_int_equal(f->w.depth_max, DEPTH);
    assert_true(f->w.depth_samples > 0 && f->w.depth_samples <= 999);
    assert_true(f->w.depth_sum <= f->w.depth_samples * DEPTH);
    assert_true(eng.commits >= f->w.depth_samples);
    assert_int_equal(eng.npending, 0);
}

/* The 100th io reads 100 bytes: the thread stops there, with the file, the call and the
 * offset named; 99 events counted, one error, no end fsync; the run is failed. */
static void test_short_read(void **state)
{
    struct fx *f = *state;
    f->job = test_job("sync", SBIO_MODE_RNDRD, 1, 1000);
    f->job.fsync_end = true;
    eng.fail_at = 100;
    eng.fail_res = 100;
    fx_run(f, &sync_ops);
    sbio_worker_main(&f->w);
    assert_int_equal(f->w.err, -EIO);
    assert_counts(f);
    assert_int_equal(g_stats.events, 99);
    assert_int_equal(g_stats.errors, 1);
    assert_int_equal(eng.ops[SBIO_FSYNC], 0);
    assert_int_equal(f->r.failed, 1);
    assert_int_equal(f->r.stop, 1);
    char want[256];
    snprintf(want, sizeof(want), ": pread at offset %llu: short read (100 of 4096 bytes)",
             (unsigned long long)eng.fail_offset);
    assert_has(f->w.err_msg, want);
    assert_has(f->w.err_msg, f->t->path);
}

/* The 50th write fails with ENOSPC in a queued run: its -errno, the call named; the writes
 * before it and those that completed with it counted. */
static void test_failed_write(void **state)
{
    struct fx *f = *state;
    f->job = test_job("sync", SBIO_MODE_RNDWR, 1, 1000);
    f->job.iodepth = DEPTH;
    eng.fail_at = 50;
    eng.fail_res = -ENOSPC;
    fx_run(f, &queued_ops);
    sbio_worker_main(&f->w);
    assert_int_equal(f->w.err, -ENOSPC);
    assert_counts(f);
    assert_int_equal(g_stats.errors, 1);
    assert_int_equal(g_stats.events, eng.ops[SBIO_WRITE]);
    assert_in_range(g_stats.events, 49, 49 + DEPTH - 1); /* the rest of the failed batch */
    assert_has(f->w.err_msg, ": pwrite at offset ");
    assert_has(f->w.err_msg, ": No space left on device");
    assert_files(f);
}

/* A run that failed before its measured phase (another thread could not open its files): the
 * worker opens and closes its files and does nothing else. */
static void test_failed_before(void **state)
{
    struct fx *f = *state;
    f->job = test_job("sync", SBIO_MODE_RNDRW, 1, 1000);
    fx_run(f, &sync_ops);
    run_halt(&f->r, true);
    sbio_worker_main(&f->w);
    assert_int_equal(f->w.err, 0);
    assert_counts(f);
    assert_int_equal(eng.n, 0);
    assert_int_equal(g_stats.events, 0);
    assert_false(f->w.usage->taken);
    assert_files(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sync_counts, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_sync_fsync_all, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_queued_counts, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_short_read, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_failed_write, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_failed_before, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
