/* Unit tests for the runner (src/core/runner.c), end to end with the null engine: the event
 * budget, the time limit, per-thread totals; its start gate (every party in before any goes
 * on, reused, shrunk), the warm-up phase object shared across fork, the descriptors a job
 * needs per engine, and the checks made before a run (each refusal one line, nothing
 * touched). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "fileset.h"
#include "manifest.h"
#include "helpers.h"
#include "options.h"
#include "prepare.h"
/* The start gate is declared with the runner's internals; run_halt, a static function of
 * that header, is not used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "worker.h"
#pragma GCC diagnostic pop
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

#define NT 3
struct gate_fx {
    struct gate g;
    unsigned in[2]; /* parties in, per round */
    unsigned seen[2][NT + 1];
};

/* Until n parties wait at g (read under its lock, as they change it). A gate that never gets
 * there ends the test through the alarm its caller set. */
static void gate_until_waiting(struct gate *g, unsigned n)
{
    for (;;) {
        pthread_mutex_lock(&g->m);
        unsigned w = g->waiting;
        pthread_mutex_unlock(&g->m);
        if (w == n)
            return;
        usleep(1000);
    }
}

static void *gate_party(void *arg)
{
    struct gate_fx *x = arg;
    static unsigned next_id;
    unsigned id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED) % NT;
    for (int round = 0; round < 2; round++) {
        __atomic_fetch_add(&x->in[round], 1, __ATOMIC_RELAXED);
        sbio_gate_wait(&x->g);
        x->seen[round][id] = __atomic_load_n(&x->in[round], __ATOMIC_RELAXED);
    }
    return NULL;
}

/* The gate: NT threads and the main thread, two rounds. Each party counts itself in, then
 * waits; what it sees after the gate is what every party did before it. The threads are all
 * waiting before the main thread comes: none may have gone on. */
static void test_gate(void **state)
{
    (void)state;
    static struct gate_fx x;
    memset(&x, 0, sizeof(x));
    alarm(60); /* a gate that never opens (or opens too soon) ends the test, not a hang */
    sbio_gate_init(&x.g, NT + 1);
    pthread_t t[NT];
    for (unsigned i = 0; i < NT; i++)
        assert_int_equal(pthread_create(&t[i], NULL, gate_party, &x), 0);
    for (int round = 0; round < 2; round++) {
        gate_until_waiting(&x.g, NT);
        assert_int_equal(__atomic_load_n(&x.in[round], __ATOMIC_RELAXED), NT);
        __atomic_fetch_add(&x.in[round], 1, __ATOMIC_RELAXED);
        sbio_gate_wait(&x.g);
        x.seen[round][NT] = x.in[round];
    }
    for (unsigned i = 0; i < NT; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int round = 0; round < 2; round++)
        for (unsigned i = 0; i <= NT; i++)
            assert_int_equal(x.seen[round][i], NT + 1);
    sbio_gate_destroy(&x.g);
    alarm(0);
}

static void *gate_one(void *arg)
{
    struct gate_fx *x = arg;
    __atomic_fetch_add(&x->in[0], 1, __ATOMIC_RELAXED);
    sbio_gate_wait(&x->g);
    __atomic_fetch_add(&x->in[1], 1, __ATOMIC_RELAXED);
    return NULL;
}

/* Shrinking: a gate for one party more than come (a thread that could not be started)
 * releases those waiting when it is told there are as many as wait (2), or fewer (3 waiting,
 * told 2); shrunk with none waiting, it opens when that many come. */
static void test_gate_shrink(void **state)
{
    (void)state;
    static struct gate_fx x;
    alarm(60);
    for (unsigned parties = 2; parties <= 3; parties++) {
        memset(&x, 0, sizeof(x));
        sbio_gate_init(&x.g, parties + 1);
        pthread_t t[3];
        for (unsigned i = 0; i < parties; i++)
            assert_int_equal(pthread_create(&t[i], NULL, gate_one, &x), 0);
        gate_until_waiting(&x.g, parties);
        assert_int_equal(__atomic_load_n(&x.in[1], __ATOMIC_RELAXED), 0); /* all wait */
        sbio_gate_shrink(&x.g, 2);
        for (unsigned i = 0; i < parties; i++)
            assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(x.in[1], parties);
        sbio_gate_destroy(&x.g);
    }
    memset(&x, 0, sizeof(x));
    sbio_gate_init(&x.g, 5);
    sbio_gate_shrink(&x.g, 2);
    assert_int_equal(x.g.gen, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, gate_one, &x), 0);
    sbio_gate_wait(&x.g);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(x.g.gen, 1);
    sbio_gate_destroy(&x.g);
    alarm(0);
}

/* The warm-up phase object: as asked, and shared with a forked process, whose release the
 * parent sees. NULL is no phase: nothing to release or free. */
static void test_warmup_phase(void **state)
{
    (void)state;
    struct sbio_warmup_phase *p = sbio_warmup_phase_new(3);
    assert_non_null(p);
    assert_int_equal(p->jobs, 3);
    assert_int_equal(p->settled, 0);
    assert_int_equal(p->go, 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (!pid) {
        sbio_warmup_phase_release(p);
        _exit(0);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(__atomic_load_n(&p->go, __ATOMIC_ACQUIRE), 1);
    sbio_warmup_phase_free(p);
    sbio_warmup_phase_release(NULL);
    sbio_warmup_phase_free(NULL);
}

/* The descriptors of a job of 4 threads on 10 files, per engine: each thread its files and
 * what its engine holds (io_uring a ring); shared, one per file (mmap's mapped once) and the
 * engines' own; none
 * for the null engine, which opens nothing; a tree job's thread two of its own. */
static void test_fds(void **state)
{
    (void)state;
    static const struct {
        const char *engine;
        bool tree;
        uint64_t own, shared;
    } cases[] = {
        {"sync", false, 40, 10},  {"libaio", false, 40, 10}, {"io_uring", false, 44, 14},
        {"mmap", false, 40, 10},  {"null", false, 0, 0},     {"sync", true, 8, 0},
        {"io_uring", true, 8, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (sbio_engine_id(cases[i].engine) < 0)
            continue; /* not in this build */
        struct sbio_job job = test_job(cases[i].engine, SBIO_MODE_RNDRD, 4, 0);
        job.tree = cases[i].tree ? (struct sbio_tree *)&job : NULL; /* only looked at */
        uint64_t own = 1, shared = 1;
        sbio_runner_fds(&job, 10, &own, &shared);
        if (own != cases[i].own || shared != cases[i].shared)
            fail_msg("%s%s: own %llu shared %llu, want %llu and %llu", cases[i].engine,
                     cases[i].tree ? " (tree)" : "", (unsigned long long)own,
                     (unsigned long long)shared, (unsigned long long)cases[i].own,
                     (unsigned long long)cases[i].shared);
    }
    /* An id that is no engine's: each thread its files, nothing shared. */
    struct sbio_job job = test_job("sync", SBIO_MODE_RNDRD, 4, 0);
    job.engine = 999;
    uint64_t own, shared;
    sbio_runner_fds(&job, 10, &own, &shared);
    assert_int_equal(own, 40);
    assert_int_equal(shared, 0);
}

/* sbio_runner_check on a real set of 2 files of 16 blocks: a job that can run passes; each
 * refusal is one line saying what is wrong, with -SBIO_EUSAGE (or the -errno of a file that
 * cannot be opened); the set is never touched (its files' sizes and times, a write or a
 * truncation would change them; no third file). */
struct check_case {
    const char *what;
    void (*change)(struct sbio_job *job, struct tdir *t);
    int rc;
    const char *says; /* part of the one line, "" for none */
};

static void ch_none(struct sbio_job *job, struct tdir *t)
{
    (void)job;
    (void)t;
}
static void ch_cpus_bad(struct sbio_job *job, struct tdir *t)
{
    (void)t;
    job->cpus = "x";
}
static void ch_cpus_absent(struct sbio_job *job, struct tdir *t)
{
    (void)t;
    job->cpus = "0,4095";
}
static void ch_block(struct sbio_job *job, struct tdir *t)
{
    (void)t;
    job->block_size = 1024 * 1024;
}
static void ch_direct(struct sbio_job *job, struct tdir *t)
{
    (void)t;
    job->extra_flags = SBIO_XF_DIRECT;
    job->block_size = 1000;
}
static void ch_mmap_direct(struct sbio_job *job, struct tdir *t)
{
    (void)t;
    job->engine = sbio_engine_id("mmap");
    job->extra_flags = SBIO_XF_DIRECT;
}
static void ch_verify_null(struct sbio_job *job, struct tdir *t)
{
    (void)t;
    job->engine = sbio_engine_id("null");
    job->verify = true;
}
static void ch_slices(struct sbio_job *job, struct tdir *t)
{
    (void)t;
    job->mode = SBIO_MODE_SEQRD;
    job->seq_stream = SBIO_SEQ_PER_THREAD;
    job->threads = 33;
}
static void ch_no_engine(struct sbio_job *job, struct tdir *t)
{
    (void)t;
    job->engine = 999;
}
static void ch_missing(struct sbio_job *job, struct tdir *t)
{
    (void)job;
    assert_int_equal(unlinkat(t->dfd, "test_file.1", 0), 0);
}
static void ch_null_missing(struct sbio_job *job, struct tdir *t)
{
    ch_missing(job, t);
    job->engine = sbio_engine_id("null");
}

static const struct check_case check_cases[] = {
    {"a job that can run", ch_none, 0, ""},
    {"a CPU list that is none", ch_cpus_bad, -SBIO_EUSAGE,
     "sbio: --cpus=x is not valid; accepted: a list of CPU numbers and ranges, e.g. 0-3,6\n"},
    {"a CPU not there", ch_cpus_absent, -SBIO_EUSAGE,
     "sbio: --cpus=0,4095: CPU 4095 is not available to this process\n"},
    {"a block larger than the files", ch_block, -SBIO_EUSAGE,
     "--file-block-size=1 MiB is larger than the files (64 KiB): no whole block to draw\n"},
    {"O_DIRECT, a block of 1000 bytes", ch_direct, -SBIO_EUSAGE,
     "--file-block-size=1000 B is not a multiple of "},
    {"O_DIRECT through mmap", ch_mmap_direct, -SBIO_EUSAGE,
     "sbio: --file-extra-flags=direct: the mmap engine cannot do O_DIRECT (it goes through the "
     "page cache); accepted engines: sync, libaio, io_uring\n"},
    {"--verify with the null engine", ch_verify_null, -SBIO_EUSAGE,
     "sbio: --verify: the null engine reads nothing\n"},
    {"more slices than requests", ch_slices, -SBIO_EUSAGE,
     "sbio: --seq-stream=per-thread: 33 threads but the set has only 32 requests of 4 KiB; use "
     "fewer threads or a smaller block\n"},
    {"no such engine", ch_no_engine, -SBIO_EUSAGE,
     "sbio: --ioengine=?: not available in this build\n"},
    {"a file missing", ch_missing, -ENOENT, "/test_file.1: open: No such file or directory\n"},
    {"a file missing, the null engine", ch_null_missing, 0, ""},
};

/* What the folder holds of test_file.0 to test_file.2: each one's name, size and times. */
static char *dir_state(struct tdir *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_non_null(m);
    for (unsigned i = 0; i < 3; i++) {
        char name[32];
        struct stat st;
        snprintf(name, sizeof(name), "test_file.%u", i);
        if (fstatat(t->dfd, name, &st, AT_SYMLINK_NOFOLLOW))
            continue;
        fprintf(m, "%s %lld %lld.%09ld %lld.%09ld\n", name, (long long)st.st_size,
                (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
                st.st_ctim.tv_nsec);
    }
    assert_int_equal(fclose(m), 0);
    return text;
}

static void test_check(void **state)
{
    struct tdir *t = *state;
    for (size_t i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++) {
        const struct check_case *c = &check_cases[i];
        struct test_set set;
        test_set_init(&set, 2, 16 * BLK, t->dfd, t->path);
        for (unsigned f = 0; f < 2; f++) {
            char path[128];
            snprintf(path, sizeof(path), "%s/test_file.%u", t->path, f);
            write_file(path, "");
            assert_int_equal(truncate(path, (off_t)(16 * BLK)), 0);
        }
        struct sbio_job job = test_job("sync", SBIO_MODE_RNDRW, 2, 100);
        c->change(&job, t);
        char *before = dir_state(t), err[MSG_MAX];
        struct sbio_runner_env env = {.fs = &set.fs};
        struct capture cap;
        cap_begin(&cap);
        int rc = sbio_runner_check(&job, &env);
        cap_end(&cap, err, sizeof(err));
        char *after = dir_state(t);
        if (rc != c->rc)
            fail_msg("%s: %d, want %d (%s)", c->what, rc, c->rc, err);
        if (!c->says[0] && err[0])
            fail_msg("%s: said '%s'", c->what, err);
        if (c->says[0] && (!strstr(err, c->says) || strchr(err, '\n') != err + strlen(err) - 1))
            fail_msg("%s: said '%s', want one line with '%s'", c->what, err, c->says);
        if (strcmp(before, after))
            fail_msg("%s: the set changed:\n%s\nto\n%s", c->what, before, after);
        free(before);
        free(after);
    }
}

static int check_setup(void **state)
{
    return tdir_setup(state, "runner-check");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_exact),
        cmocka_unit_test(test_events_with_fsyncs),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_refused),
        cmocka_unit_test_teardown(test_prepared_set, tmp_dir_teardown),
        cmocka_unit_test(test_gate),
        cmocka_unit_test(test_gate_shrink),
        cmocka_unit_test(test_warmup_phase),
        cmocka_unit_test(test_fds),
        cmocka_unit_test_setup_teardown(test_check, check_setup, tdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
