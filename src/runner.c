#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "fill.h"
#include "report.h"
#include "util.h"
#include "verify.h"

#define MAX_CPUS 4096
#define POLL_NS  20000000ULL /* the main thread checks signals and limits every 20 ms */

struct run;

/* A barrier whose party count can shrink: if pthread_create fails half-way, the threads
 * already started must still be released (pthread_barrier_t cannot do that). */
struct gate {
    pthread_mutex_t m;
    pthread_cond_t c;
    unsigned parties, waiting, gen;
};

static void gate_init(struct gate *g, unsigned parties)
{
    pthread_mutex_init(&g->m, NULL);
    pthread_cond_init(&g->c, NULL);
    g->parties = parties;
    g->waiting = g->gen = 0;
}

static void gate_release_locked(struct gate *g)
{
    g->waiting = 0;
    g->gen++;
    pthread_cond_broadcast(&g->c);
}

static void gate_wait(struct gate *g)
{
    pthread_mutex_lock(&g->m);
    unsigned gen = g->gen;
    if (++g->waiting >= g->parties)
        gate_release_locked(g);
    else
        while (gen == g->gen)
            pthread_cond_wait(&g->c, &g->m);
    pthread_mutex_unlock(&g->m);
}

static void gate_shrink(struct gate *g, unsigned parties)
{
    pthread_mutex_lock(&g->m);
    g->parties = parties;
    if (g->waiting && g->waiting >= parties)
        gate_release_locked(g);
    pthread_mutex_unlock(&g->m);
}

static void gate_destroy(struct gate *g)
{
    pthread_mutex_destroy(&g->m);
    pthread_cond_destroy(&g->c);
}

struct worker {
    struct run *run;
    unsigned id;
    pthread_t tid;
    struct sbio_file *files;
    void *eng_priv;
    void *buf;           /* nios buffers of lay.req bytes, one per io slot */
    struct sbio_io *ios; /* [nios]: 1 for synchronous engines, iodepth for queued ones */
    unsigned nios;
    uint64_t depth_sum, depth_samples, depth_max; /* queued engines: ios in flight */
    bool *busy;           /* [nios] --verify, queued engines: the io is in flight */
    char verify_msg[320]; /* the first mismatch this thread found */
    struct sbio_wl wl;
    struct sbio_stats *stats;
    int cpu; /* -1: not pinned */
    uint64_t local_budget;
    int err; /* -errno of the first failure */
    char err_msg[320];
    int done;
};

struct run {
    const struct sbio_config *cfg;
    const struct sbio_engine_ops *eng;
    struct sbio_fileset *fs;
    struct sbio_layout lay;
    struct sbio_wl_shared sh;
    struct worker *w;
    unsigned nthreads;
    int oflags;
    uint64_t rate_interval_ns; /* per thread, 0: unlimited */
    struct gate barrier;
    bool warmup;
    bool budget; /* --events caps the run */
    bool verify;
    /* --verify: the generation each block was last written with by this run (or
     * SBIO_VERIFY_ANY), indexed by vfirst[file] + offset / vblock. */
    uint32_t *gens;
    uint64_t *vfirst;
    uint64_t vblock;
    uint32_t nonce;
    const struct sbio_runner_sync *sync; /* other processes of the run, or NULL */
    bool sync_over;                      /* an agree failed: no further agree */
    bool peer_stopped;                   /* another process stopped the run */
    _Alignas(64) int stop;               /* ends the current phase */
    _Alignas(64) uint64_t budget_left;
    _Alignas(64) int failed; /* a worker failed: everyone stops */
    int lost_write;          /* a queued worker stopped holding a write it had drawn */
    bool own_budgets;        /* --seq-stream=per-thread: each thread its share of --events */
};

static inline int run_stopped(const struct run *r)
{
    return __atomic_load_n(&r->stop, __ATOMIC_RELAXED);
}

/* Claim events from the global budget in small batches, never more than is left, so the
 * total over all threads is exactly --events. */
static bool claim_events(struct worker *w)
{
    struct run *r = w->run;
    /* Per-thread slices have per-thread budgets, set once: nothing to claim. */
    if (r->own_budgets)
        return false;
    uint64_t left = __atomic_load_n(&r->budget_left, __ATOMIC_RELAXED);
    for (;;) {
        if (!left)
            return false;
        uint64_t take = left / (r->nthreads * 8u);
        if (take > 64)
            take = 64;
        if (!take)
            take = 1;
        if (__atomic_compare_exchange_n(&r->budget_left, &left, left - take, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            w->local_budget = take;
            return true;
        }
    }
}

static const char *const op_call[] = {"pread", "pwrite", "fsync"};

/* "DIR/test_file.3", or the device's path for a raw device. */
static const char *file_label(const struct run *r, unsigned i, char *buf, size_t len)
{
    const char *n = r->fs->files[i].name;
    if (n[0] == '/')
        return n;
    snprintf(buf, len, "%s/%s", r->cfg->dir, n);
    return buf;
}

/* Count the failure and stop the run (every thread, and the other processes under MPI). */
static void worker_stop_failed(struct worker *w)
{
    __atomic_store_n(&w->stats->errors, w->stats->errors + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&w->run->failed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&w->run->stop, 1, __ATOMIC_RELAXED);
}

static void worker_fail(struct worker *w, const struct sbio_io *io)
{
    char lbl[PATH_MAX + 300];
    const char *name = file_label(w->run, io->file, lbl, sizeof(lbl));
    static const char *const mmap_call[] = {"read from the mapping", "write to the mapping",
                                            "msync"};
    const char *call = w->run->eng->flags & SBIO_ENG_NO_DIRECT ? mmap_call[io->op]
                       : io->op == SBIO_FSYNC && w->run->cfg->fsync_mode == SBIO_FSYNC_FDATASYNC
                           ? "fdatasync"
                           : op_call[io->op];
    if (io->res < 0 && (io->flags & SBIO_IO_SYNC_FAILED)) {
        /* --file-fsync-all: the write went through; the sync after it failed. */
        w->err = (int)io->res;
        snprintf(w->err_msg, sizeof(w->err_msg),
                 "%.200s: %s after the write at offset %" PRIu64 ": %s", name,
                 w->run->eng->flags & SBIO_ENG_NO_DIRECT           ? "msync"
                 : w->run->cfg->fsync_mode == SBIO_FSYNC_FDATASYNC ? "fdatasync"
                                                                   : "fsync",
                 io->offset, strerror((int)-io->res));
    } else if (io->res < 0) {
        w->err = (int)io->res;
        if (io->op == SBIO_FSYNC)
            snprintf(w->err_msg, sizeof(w->err_msg), "%.200s: %s: %s", name, call,
                     strerror((int)-io->res));
        else
            snprintf(w->err_msg, sizeof(w->err_msg), "%.200s: %s at offset %" PRIu64 ": %s", name,
                     call, io->offset, strerror((int)-io->res));
    } else {
        w->err = -EIO;
        snprintf(w->err_msg, sizeof(w->err_msg),
                 "%.200s: %s at offset %" PRIu64 ": short %s (%" PRId64 " of %u bytes)", name, call,
                 io->offset, io->op == SBIO_READ ? "read" : "write", io->res, io->len);
    }
    worker_stop_failed(w);
}

/* The engine itself failed (no memory for the queue, submitting, waiting for completions):
 * no io to name, so the message names the engine and what it was doing. */
static void worker_fail_engine(struct worker *w, int rc, const char *doing)
{
    if (w->err)
        return; /* the first failure is the one reported; the run is already stopping */
    w->err = rc;
    snprintf(w->err_msg, sizeof(w->err_msg), "--ioengine=%s: %s: %s", w->run->eng->name, doing,
             strerror(-rc));
    worker_stop_failed(w);
}

/* A script's event() failed: the run stops with its message (the traceback is printed). */
static void worker_hook_fail(struct worker *w)
{
    w->err = -EINVAL;
    snprintf(w->err_msg, sizeof(w->err_msg), "%.300s", w->wl.hook_err);
    __atomic_store_n(&w->run->failed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&w->run->stop, 1, __ATOMIC_RELAXED);
}

static inline bool io_ok(const struct sbio_io *io)
{
    return io->op == SBIO_FSYNC ? io->res == 0 : io->res == (int64_t)io->len;
}

/* --verify: stamp every block a write carries with its next generation. */
static void verify_stamp_io(struct worker *w, struct sbio_io *io)
{
    struct run *r = w->run;
    for (uint64_t o = 0; o < io->len; o += r->vblock) {
        uint64_t len = io->len - o < r->vblock ? io->len - o : r->vblock;
        uint64_t idx = r->vfirst[io->file] + (io->offset + o) / r->vblock;
        uint32_t g = __atomic_load_n(&r->gens[idx], __ATOMIC_RELAXED);
        uint32_t n =
            g == SBIO_VERIFY_ANY || (g >> 16) != r->nonce ? 1 : ((g & 0xffff) + 1) & 0xffff;
        g = r->nonce << 16 | (n ? n : 1);
        __atomic_store_n(&r->gens[idx], g, __ATOMIC_RELAXED);
        sbio_verify_stamp((char *)io->buf + o, len, r->fs->seed, io->file, io->offset + o, g);
    }
}

/* --verify: check every block a read returned; count and describe the first bad one. */
static void verify_check_io(struct worker *w, const struct sbio_io *io)
{
    struct run *r = w->run;
    struct sbio_stats *st = w->stats;
    for (uint64_t o = 0; o < (uint64_t)io->res; o += r->vblock) {
        uint64_t len = (uint64_t)io->res - o < r->vblock ? (uint64_t)io->res - o : r->vblock;
        uint64_t off = io->offset + o;
        uint32_t want =
            __atomic_load_n(&r->gens[r->vfirst[io->file] + off / r->vblock], __ATOMIC_RELAXED);
        struct sbio_vhdr got;
        enum sbio_verify_err e =
            sbio_verify_check((char *)io->buf + o, len, r->fs->seed, io->file, off, want, &got);
        __atomic_store_n(&st->verify_checked, st->verify_checked + 1, __ATOMIC_RELAXED);
        if (e == SBIO_VERIFY_OK)
            continue;
        __atomic_store_n(&st->verify_failed, st->verify_failed + 1, __ATOMIC_RELAXED);
        if (!w->verify_msg[0]) {
            char lbl[PATH_MAX + 300], wg[16];
            if (want == SBIO_VERIFY_ANY)
                snprintf(wg, sizeof(wg), "any");
            else
                snprintf(wg, sizeof(wg), "%#x", want);
            snprintf(w->verify_msg, sizeof(w->verify_msg),
                     "%.200s: block at offset %" PRIu64 ": %s (expected file %u gen %s; found "
                     "file %u offset %" PRIu64 " gen %#x)",
                     file_label(r, io->file, lbl, sizeof(lbl)), off, sbio_verify_strerror(e),
                     io->file, wg, got.file, got.offset, got.gen);
        }
        if (r->cfg->verify_fatal)
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    }
}

/* --verify with a queued engine: an io on a block range this thread has in flight waits. */
static bool verify_overlaps(const struct worker *w, const struct sbio_io *io)
{
    if (io->op == SBIO_FSYNC)
        return false;
    for (unsigned i = 0; i < w->nios; i++) {
        const struct sbio_io *o = &w->ios[i];
        if (w->busy[i] && o->op != SBIO_FSYNC && o->file == io->file &&
            o->offset < io->offset + io->len && io->offset < o->offset + o->len)
            return true;
    }
    return false;
}

static inline void worker_done_io(struct worker *w, struct sbio_io *io, uint64_t end_ns,
                                  bool measure);
static void worker_loop_queued(struct worker *w, bool measure);

/* Sleep until deadline_ns (monotonic) in slices, so that a stop (time limit, signal) is
 * seen within POLL_NS even in a long --rate interval or think time. false: stopped. */
static bool sleep_until(const struct run *r, uint64_t deadline_ns)
{
    for (;;) {
        if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
            return false;
        uint64_t now = sbio_now_ns();
        if (now >= deadline_ns)
            return true;
        uint64_t until = deadline_ns - now > POLL_NS ? now + POLL_NS : deadline_ns;
        struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ULL),
                              .tv_nsec = (long)(until % 1000000000ULL)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
}

/* The measured (or warm-up) loop. Synchronous engines: one clock read per op, the end of
 * one op is the start of the next. Under --rate each op starts at its intended time and
 * its latency is measured from there, so a stall is not hidden. */
static void worker_loop(struct worker *w, bool measure)
{
    struct run *r = w->run;
    const struct sbio_engine_ops *eng = r->eng;
    struct sbio_io io = w->ios[0];
    bool budget = measure && r->budget;
    uint64_t interval = r->rate_interval_ns;
    uint64_t t = sbio_now_ns();
    /* Spread the threads' schedules over one interval. */
    uint64_t next_start = t + (interval ? interval * w->id / r->nthreads : 0);

    for (;;) {
        if (run_stopped(r))
            break;
        if (budget) {
            if (!w->local_budget && !claim_events(w))
                break;
            w->local_budget--;
        }
        int more = sbio_wl_next(&w->wl, &io);
        if (more <= 0) {
            if (more < 0)
                worker_hook_fail(w);
            break;
        }
        if (interval) {
            if (t < next_start && !sleep_until(r, next_start))
                break;
            t = next_start;
            next_start += interval;
        }
        io.start_ns = t;
        if (r->verify && io.op == SBIO_WRITE)
            verify_stamp_io(w, &io);
        eng->queue(w->eng_priv, w->files, &io);
        uint64_t t2 = sbio_now_ns();
        if (!io_ok(&io)) {
            worker_fail(w, &io);
            break;
        }
        worker_done_io(w, &io, t2, measure);
        t = t2;
        if (r->cfg->think_us) {
            /* A script's think time: the pause is not part of any op's latency. */
            if (!sleep_until(r, t2 + r->cfg->think_us * 1000))
                break;
            t = sbio_now_ns();
        }
    }
}

/* Run one io to completion through any engine (a queued engine's queue is empty here). */
static void run_one(struct worker *w, struct sbio_io *io)
{
    const struct sbio_engine_ops *eng = w->run->eng;
    int q = eng->queue(w->eng_priv, w->files, io);
    if (q == SBIO_Q_DONE)
        return;
    int rc = q == SBIO_Q_QUEUED ? eng->commit(w->eng_priv) : -EAGAIN;
    for (struct sbio_io *done = NULL; !rc && done != io;) {
        int n = eng->reap(w->eng_priv, 1, &done, 1, UINT64_MAX);
        if (n < 0)
            rc = n;
    }
    if (rc)
        io->res = rc;
}

/* --file-fsync-end: inside the measured time, reported with the fsyncs, not events. */
static void worker_end_fsyncs(struct worker *w)
{
    struct sbio_io *io = &w->ios[0];
    sbio_wl_begin_end(&w->wl);
    while (!__atomic_load_n(&w->run->failed, __ATOMIC_RELAXED) && sbio_wl_next(&w->wl, io) > 0) {
        uint64_t t = sbio_now_ns();
        io->start_ns = t;
        run_one(w, io);
        uint64_t t2 = sbio_now_ns();
        if (!io_ok(io)) {
            worker_fail(w, io);
            return;
        }
        sbio_stats_record(w->stats, io->op, t2 - t, 0, 0);
    }
}

/* Record a completed io (any engine). */
static inline void worker_done_io(struct worker *w, struct sbio_io *io, uint64_t end_ns,
                                  bool measure)
{
    struct sbio_stats *st = w->stats;
    if (w->run->verify && io->op == SBIO_READ)
        verify_check_io(w, io);
    if (measure) {
        sbio_stats_record(st, io->op, end_ns - io->start_ns, io->op == SBIO_FSYNC ? 0 : io->len, 1);
        if (io->flags & SBIO_IO_FSYNC_AFTER)
            /* --file-fsync-all: the fsync is inside the write's event and latency, and
             * counted with the fsyncs. */
            __atomic_store_n(&st->write_fsyncs, st->write_fsyncs + 1, __ATOMIC_RELAXED);
    }
    sbio_wl_complete(&w->wl, io);
}

/* Queued engines: keep up to iodepth ios in flight, submit in batches, count each at its
 * completion. An fsync waits until the writes in flight before it completed: it must cover
 * them (sysbench's does not). */
/* Submit what the engine has queued. What was accepted but not submitted will never
 * complete: a failure ends the thread (true). */
static bool queued_commit(struct worker *w)
{
    int rc = w->run->eng->commit(w->eng_priv);
    if (rc)
        worker_fail_engine(w, rc, "submitting requests");
    return rc != 0;
}

static void worker_loop_queued(struct worker *w, bool measure)
{
    struct run *r = w->run;
    const struct sbio_engine_ops *eng = r->eng;
    bool budget = measure && r->budget;
    uint64_t interval = r->rate_interval_ns;
    uint64_t next_start = sbio_now_ns() + (interval ? interval * w->id / r->nthreads : 0);
    unsigned inflight = 0, nfree = w->nios;
    unsigned batch = (unsigned)sbio_iodepth_batch(r->cfg), unsubmitted = 0;
    bool commit_failed = false;
    struct sbio_io **free_ios = malloc(w->nios * sizeof(*free_ios));
    struct sbio_io **done = malloc(w->nios * sizeof(*done));
    struct sbio_io *held = NULL; /* an fsync waiting for the queue to drain */
    bool more = true;
    if (!free_ios || !done) {
        free(free_ios);
        free(done);
        worker_fail_engine(w, -ENOMEM, "the queue's arrays");
        return;
    }
    for (unsigned i = 0; i < w->nios; i++)
        free_ios[i] = &w->ios[w->nios - 1 - i];

    for (;;) {
        bool stopped = run_stopped(r);
        uint64_t wait_ns = UINT64_MAX;
        while (!stopped && nfree && (more || held)) {
            struct sbio_io *io = held;
            if (!io) {
                if (budget && !w->local_budget && !claim_events(w)) {
                    more = false;
                    break;
                }
                io = free_ios[--nfree];
                int got = sbio_wl_next(&w->wl, io);
                if (got <= 0) {
                    if (got < 0) {
                        worker_hook_fail(w);
                        stopped = true;
                    }
                    free_ios[nfree++] = io;
                    more = false;
                    break;
                }
                if (budget)
                    w->local_budget--;
            }
            if ((io->op == SBIO_FSYNC && inflight) || (r->verify && verify_overlaps(w, io))) {
                held = io;
                break;
            }
            held = NULL;
            uint64_t now = sbio_now_ns();
            if (interval) {
                if (now < next_start) {
                    /* Not due yet: wait for completions until it is, or sleep. */
                    held = io;
                    wait_ns = next_start - now;
                    break;
                }
                io->start_ns = next_start;
                next_start += interval;
            } else {
                io->start_ns = now;
            }
            if (r->verify && io->op == SBIO_WRITE)
                verify_stamp_io(w, io);
            if (r->cfg->think_us) {
                if (!sleep_until(r, sbio_now_ns() + r->cfg->think_us * 1000)) {
                    held = io; /* not issued: seqwr's completion must know */
                    stopped = true;
                    break;
                }
                io->start_ns = sbio_now_ns();
            }
            int q = eng->queue(w->eng_priv, w->files, io);
            if (q == SBIO_Q_DONE) {
                if (!io_ok(io)) {
                    worker_fail(w, io);
                    stopped = true;
                    break;
                }
                worker_done_io(w, io, sbio_now_ns(), measure);
                free_ios[nfree++] = io;
            } else if (q == SBIO_Q_BUSY) {
                held = io;
                break;
            } else {
                inflight++;
                if (w->busy)
                    w->busy[io->slot] = true;
                /* --iodepth-batch: submit every batch requests, not only when full. */
                if (++unsubmitted >= batch) {
                    unsubmitted = 0;
                    if ((commit_failed = queued_commit(w)))
                        break;
                }
            }
        }
        if (commit_failed)
            break;
        if (inflight) {
            unsubmitted = 0;
            if (queued_commit(w))
                break;
            w->depth_sum += inflight;
            w->depth_samples++;
            if (inflight > w->depth_max)
                w->depth_max = inflight;
        }
        if (!inflight) {
            if (stopped || (!more && !held))
                break;
            if (wait_ns != UINT64_MAX) {
                uint64_t until = sbio_now_ns() + wait_ns;
                struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ULL),
                                      .tv_nsec = (long)(until % 1000000000ULL)};
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
            }
            continue;
        }
        int n = eng->reap(w->eng_priv, 1, done, w->nios, wait_ns);
        uint64_t t = sbio_now_ns();
        if (n < 0) {
            worker_fail_engine(w, n, "waiting for completions");
            /* The ios in flight cannot be reaped: give up on them. */
            break;
        }
        for (int i = 0; i < n; i++) {
            struct sbio_io *io = done[i];
            uint64_t end = t;
            inflight--;
            if (w->busy)
                w->busy[io->slot] = false;
            /* --file-fsync-all: the write's fsync, inside its latency. Each write of a batch
             * ends when its own fsync does: the ios after it are not charged for it. */
            if (io->op == SBIO_WRITE && (io->flags & SBIO_IO_FSYNC_AFTER) &&
                io->res == (int64_t)io->len) {
                int e = sbio_engine_sync_file(w->files[io->file].fd, r->cfg->fsync_mode);
                if (e) {
                    io->res = e;
                    io->flags |= SBIO_IO_SYNC_FAILED;
                }
                end = sbio_now_ns();
            }
            if (!io_ok(io)) {
                if (!w->err)
                    worker_fail(w, io);
            } else {
                worker_done_io(w, io, end, measure);
            }
            free_ios[nfree++] = io;
        }
    }
    /* A write drawn from the sequential stream but never issued (held for its rate slot, a
     * full queue, a --verify overlap) leaves a hole seqwr's completion must not skip. */
    if (held && held->op == SBIO_WRITE)
        __atomic_store_n(&r->lost_write, 1, __ATOMIC_RELAXED);
    free(free_ios);
    free(done);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct run *r = w->run;

    if (w->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->cpu, &set);
        int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
        if (rc && !w->err) {
            w->err = -rc;
            snprintf(w->err_msg, sizeof(w->err_msg), "--cpus: pinning thread %u to CPU %d: %s",
                     w->id, w->cpu, strerror(rc));
        }
    }
    /* Every thread opens its own descriptors: shared descriptors cost scaling. */
    for (unsigned i = 0; i < r->lay.nfiles && !w->err; i++) {
        w->files[i].size = r->lay.size[i];
        int rc = r->eng->open_file(w->eng_priv, &w->files[i], r->fs->dirfd, r->fs->files[i].name,
                                   r->oflags);
        if (rc) {
            w->err = rc;
            char lbl[PATH_MAX + 300];
            snprintf(w->err_msg, sizeof(w->err_msg), "%.200s: open: %s",
                     file_label(r, i, lbl, sizeof(lbl)), strerror(-rc));
        }
    }
    if (!w->err && r->eng->post_open) {
        int rc = r->eng->post_open(w->eng_priv, w->files, r->lay.nfiles, w->ios, w->nios);
        if (rc) {
            w->err = rc;
            snprintf(w->err_msg, sizeof(w->err_msg), "%s: setting up the files and buffers: %s",
                     r->eng->name, strerror(-rc));
        }
    }
    if (w->err)
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);

    gate_wait(&r->barrier); /* all open: main decides to go */
    if (r->warmup) {
        gate_wait(&r->barrier); /* warm-up starts */
        if (!__atomic_load_n(&r->failed, __ATOMIC_RELAXED))
            (r->eng->flags & SBIO_ENG_SYNC ? worker_loop : worker_loop_queued)(w, false);
        gate_wait(&r->barrier); /* warm-up over: main truncates for seqwr */
    }
    gate_wait(&r->barrier); /* measured phase starts */
    if (!__atomic_load_n(&r->failed, __ATOMIC_RELAXED)) {
        __atomic_store_n(&w->stats->start_ns, sbio_now_ns(), __ATOMIC_RELAXED);
        (r->eng->flags & SBIO_ENG_SYNC ? worker_loop : worker_loop_queued)(w, true);
        if (!__atomic_load_n(&r->failed, __ATOMIC_RELAXED))
            worker_end_fsyncs(w);
        __atomic_store_n(&w->stats->end_ns, sbio_now_ns(), __ATOMIC_RELAXED);
    }
    for (unsigned i = 0; i < r->lay.nfiles; i++)
        if (w->files[i].fd >= 0 || (r->eng->flags & SBIO_ENG_NO_IO))
            r->eng->close_file(w->eng_priv, &w->files[i]);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

int sbio_runner_parse_cpus(const char *s, int *cpus, int max)
{
    int n = 0;
    const char *p = s;
    if (!*p)
        return -EINVAL;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9')
            return -EINVAL;
        long a = strtol(p, &end, 10), b = a;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                return -EINVAL;
            b = strtol(end + 1, &end, 10);
        }
        if (a > b || b >= MAX_CPUS)
            return -EINVAL;
        for (long c = a; c <= b; c++) {
            if (n >= max)
                return -EINVAL;
            cpus[n++] = (int)c;
        }
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            return -EINVAL;
        p = end;
    }
    return n;
}

/* How messages name the block size: the option, or the script declaration that set it. */
static const char *block_what(const struct sbio_config *cfg)
{
    return cfg->block_what ? cfg->block_what : "--file-block-size";
}

/* O_DIRECT alignment of the set: statx's dio_offset_align where the file system reports it;
 * else the device's logical block size; with no device at all, tmpfs takes any alignment
 * and anything else gets the classic 512. */
static uint64_t direct_alignment(int dirfd, const char *name, const struct sbio_target *t)
{
#ifdef STATX_DIOALIGN
    struct statx stx;
    if (!statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_DIOALIGN, &stx) &&
        (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align)
        return stx.stx_dio_offset_align;
#else
    (void)dirfd, (void)name;
#endif
    char v[32];
    if (t && t->has_top && !sbio_sysblock_read(&t->top, "logical_block_size", v, sizeof(v)) &&
        strtoull(v, NULL, 10))
        return strtoull(v, NULL, 10);
    return t && !t->has_top && !strcmp(t->fstype, "tmpfs") ? 1 : 512;
}

/* Interim statistics on two schedules: printed lines (--report-interval) and recorded
 * samples (--log-interval, or the report interval when only that is given). */
struct ticker {
    uint64_t interval_ns, next_ns, last_ns;
    struct sbio_stats *prev;
};

static void ticker_init(struct ticker *tk, uint64_t interval_ns, uint64_t start_ns,
                        struct sbio_stats *prev)
{
    tk->interval_ns = interval_ns;
    tk->next_ns = start_ns + interval_ns;
    tk->last_ns = start_ns;
    tk->prev = prev;
    if (prev)
        sbio_stats_init(prev);
}

static bool ticker_due(const struct ticker *tk, uint64_t now)
{
    return tk->interval_ns && tk->prev && now >= tk->next_ns;
}

static void ticker_advance(struct ticker *tk, uint64_t now, const struct sbio_stats *cur)
{
    *tk->prev = *cur;
    tk->last_ns = now;
    while (tk->next_ns <= now)
        tk->next_ns += tk->interval_ns;
}

/* Append the interval [tk->last_ns, now] to the result's time series. */
static void record_sample(struct sbio_run_result *res, const struct ticker *tk, uint64_t start_ns,
                          uint64_t now, const struct sbio_stats *cur)
{
    if (res->nsamples == res->samples_cap) {
        size_t cap = res->samples_cap ? res->samples_cap * 2 : 64;
        struct sbio_sample *n = realloc(res->samples, cap * sizeof(*n));
        if (!n)
            return; /* the series gets a gap; the run goes on */
        res->samples = n;
        res->samples_cap = cap;
    }
    struct sbio_sample *sm = &res->samples[res->nsamples++];
    sm->t_s = (double)(now - start_ns) / 1e9;
    sm->dur_s = (double)(now - tk->last_ns) / 1e9;
    for (int op = 0; op < SBIO_OP_NR; op++) {
        struct sbio_hist d;
        sbio_hist_sub(&d, &cur->lat[op], &tk->prev->lat[op]);
        sm->ops[op] = d.count;
        sm->bytes[op] = cur->bytes[op] - tk->prev->bytes[op];
        sm->mean_ns[op] = sbio_hist_mean(&d);
        sm->p50_ns[op] = sbio_hist_percentile(&d, 50);
        sm->p99_ns[op] = sbio_hist_percentile(&d, 99);
        sm->max_ns[op] = d.count ? d.max_ns : 0;
    }
    sm->ops[SBIO_FSYNC] += cur->write_fsyncs - tk->prev->write_fsyncs;
}

/* The measured phase's clock starts with the first worker's: a loaded machine can wake the
 * workers milliseconds after the main thread opens the gate, and --time must still be the
 * measured window (elapsed = last end - first start), not that minus the wake-up. Waits for
 * a worker to stamp its start (or for all to be done: a failure before the phase). */
static uint64_t first_start(struct run *r)
{
    for (;;) {
        uint64_t first = UINT64_MAX;
        unsigned done = 0;
        for (unsigned i = 0; i < r->nthreads; i++) {
            uint64_t s = __atomic_load_n(&r->w[i].stats->start_ns, __ATOMIC_RELAXED);
            first = s < first ? s : first;
            done += (unsigned)__atomic_load_n(&r->w[i].done, __ATOMIC_ACQUIRE);
        }
        if (first != UINT64_MAX)
            return first;
        if (done == r->nthreads)
            return sbio_now_ns();
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

/* The main thread's wait: until the deadline, a signal, all workers done, or the next
 * interim line or sample. rep holds 4 stats: print prev, log prev, current, scratch. */
static void run_wait(struct run *r, uint64_t start_ns, uint64_t limit_ns, struct sbio_stats *rep,
                     struct sbio_run_result *res, FILE *interim)
{
    const struct sbio_config *cfg = r->cfg;
    struct ticker print, log;
    uint64_t print_ns = cfg->report_interval_s * 1000000000ULL;
    uint64_t log_ns = cfg->log_interval_ms ? cfg->log_interval_ms * 1000000ULL : print_ns;
    ticker_init(&print, rep ? print_ns : 0, start_ns, rep);
    ticker_init(&log, rep && res ? log_ns : 0, start_ns, rep ? rep + 1 : NULL);
    for (;;) {
        int sig = sbio_stop_requested();
        if (sig) {
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            return;
        }
        if (__atomic_load_n(&r->failed, __ATOMIC_RELAXED))
            return;
        if (r->sync && r->sync->stopped(r->sync->ctx)) {
            r->peer_stopped = true;
            __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            return;
        }
        unsigned done = 0;
        for (unsigned i = 0; i < r->nthreads; i++)
            done += (unsigned)__atomic_load_n(&r->w[i].done, __ATOMIC_ACQUIRE);
        if (done == r->nthreads)
            return;
        uint64_t now = sbio_now_ns();
        if (limit_ns && now >= start_ns + limit_ns) {
            __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
            return;
        }
        bool pdue = ticker_due(&print, now), ldue = ticker_due(&log, now);
        if (pdue || ldue) {
            struct sbio_stats *cur = rep + 2, *tmp = rep + 3;
            sbio_stats_init(cur);
            for (unsigned i = 0; i < r->nthreads; i++) {
                sbio_stats_snapshot(tmp, r->w[i].stats);
                sbio_stats_merge(cur, tmp);
            }
            if (pdue) {
                sbio_report_interval(interim, cfg, (double)(now - start_ns) / 1e9,
                                     (double)(now - print.last_ns) / 1e9, cur, print.prev);
                ticker_advance(&print, now, cur);
            }
            if (ldue) {
                record_sample(res, &log, start_ns, now, cur);
                ticker_advance(&log, now, cur);
            }
        }
        uint64_t wake = now + POLL_NS;
        if (limit_ns && start_ns + limit_ns < wake)
            wake = start_ns + limit_ns;
        if (print.interval_ns && print.prev && print.next_ns < wake)
            wake = print.next_ns;
        if (log.interval_ns && log.prev && log.next_ns < wake)
            wake = log.next_ns;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ULL),
                              .tv_nsec = (long)(wake % 1000000000ULL)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
}

/* seqwr measures writing into emptied files. */
static int truncate_set(struct run *r)
{
    for (unsigned i = 0; i < r->fs->nfiles; i++) {
        int fd = openat(r->fs->dirfd, r->fs->files[i].name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        /* mmap writes into a mapping of the file's size: empty the file, then give it its
         * size back as a hole (as sysbench does), so the writes still allocate. */
        bool mapped = r->eng->flags & SBIO_ENG_NO_DIRECT;
        if (fd < 0 || ftruncate(fd, 0) || (mapped && ftruncate(fd, (off_t)r->fs->files[i].size))) {
            int e = errno;
            sbio_err("%s/%s: truncate: %s", r->cfg->dir, r->fs->files[i].name, strerror(e));
            if (fd >= 0)
                close(fd);
            return -e;
        }
        close(fd);
    }
    __atomic_store_n(&r->sh.seq_next, 0, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < r->nthreads; i++)
        r->w[i].wl.slice_pos = 0;
    return 0;
}

/* Write back the sequential requests a seqwr run did not reach, outside the measured time,
 * so the set stays whole and valid. */
static int complete_seqwr(struct run *r, uint64_t *bytes)
{
    struct sbio_fileset *fs = r->fs;
    int rc = 0;
    *bytes = 0;
    /* Missing request ranges [a, b). */
    uint64_t nr = r->sh.seq_stream == SBIO_SEQ_PER_THREAD ? r->nthreads : 1;
    for (uint64_t t = 0; t < nr && !rc; t++) {
        uint64_t a, b;
        if (r->sh.seq_stream == SBIO_SEQ_PER_THREAD) {
            const struct sbio_wl *wl = &r->w[t].wl;
            uint64_t done = wl->slice_pos < wl->slice_units ? wl->slice_pos : wl->slice_units;
            /* After a failed or lost write the issued requests are not all on disk: redo
             * them all. */
            if (__atomic_load_n(&r->failed, __ATOMIC_RELAXED) ||
                __atomic_load_n(&r->lost_write, __ATOMIC_RELAXED))
                done = 0;
            a = wl->slice_first + done;
            b = wl->slice_first + wl->slice_units;
        } else {
            uint64_t done = __atomic_load_n(&r->failed, __ATOMIC_RELAXED) ||
                                    __atomic_load_n(&r->lost_write, __ATOMIC_RELAXED)
                                ? 0
                                : __atomic_load_n(&r->sh.seq_next, __ATOMIC_RELAXED);
            a = done < r->lay.seq_units ? done : r->lay.seq_units;
            b = r->lay.seq_units;
        }
        while (a < b && !rc) {
            unsigned f;
            uint64_t off;
            uint32_t len;
            sbio_layout_seq(&r->lay, a, &f, &off, &len);
            /* Extend the piece to the end of the range or of the file. */
            uint64_t last =
                b - 1 < r->lay.seq_first[f + 1] - 1 ? b - 1 : r->lay.seq_first[f + 1] - 1;
            unsigned f2;
            uint64_t off2;
            uint32_t len2;
            sbio_layout_seq(&r->lay, last, &f2, &off2, &len2);
            rc = sbio_fileset_write_range(fs, f, off, off2 + len2 - off);
            *bytes += off2 + len2 - off;
            a = last + 1;
        }
    }
    if (!rc) {
        uint64_t more;
        rc = sbio_fileset_complete(fs, &more); /* skipped tails, fsync, manifest complete */
        *bytes += more;
    }
    return rc;
}

/* Device counters of the target's devices into ds[]. */
static void snap_disks(const struct sbio_target *t, struct sbio_run_result *res,
                       struct sbio_diskstat *ds)
{
    res->ndisk = 0;
    if (!t || !t->has_top)
        return;
    sbio_diskstat_read(&t->top, &ds[0]);
    snprintf(res->disk_name[0], sizeof(res->disk_name[0]), "%s", t->top.name);
    res->ndisk = 1;
    for (unsigned i = 0; i < t->ndev; i++) {
        if (!strcmp(t->dev[i].name, t->top.name))
            continue;
        sbio_diskstat_read(&t->dev[i], &ds[res->ndisk]);
        snprintf(res->disk_name[res->ndisk], sizeof(res->disk_name[0]), "%s", t->dev[i].name);
        res->ndisk++;
    }
}

/* Page cache state of the whole set (cachestat); false when the kernel lacks it. */
static bool snap_cache(const struct sbio_fileset *fs, struct sbio_cachestat *cs)
{
    memset(cs, 0, sizeof(*cs));
    if (fs->dirfd < 0)
        return false;
    for (unsigned i = 0; i < fs->nfiles; i++) {
        int fd = openat(fs->dirfd, fs->files[i].name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return false;
        int rc = sbio_cachestat_add(fd, cs);
        close(fd);
        if (rc)
            return false;
    }
    return true;
}

/* The scheduler of the target's first scheduler device, as the measured phase starts. */
static void snap_sched(const struct sbio_target *t, struct sbio_run_result *res)
{
    char line[512], names[SBIO_MAX_SCHED][32];
    int cur = -1;
    res->scheduler[0] = 0;
    if (!t || !t->ndev || sbio_sysblock_read(&t->dev[0], "scheduler", line, sizeof(line)))
        return;
    int n = sbio_sched_parse(line, names, SBIO_MAX_SCHED, &cur);
    if (cur >= 0 && cur < n)
        snprintf(res->scheduler, sizeof(res->scheduler), "%s", names[cur]);
}

/* This process's status at a phase boundary, for sync->agree: its first failure, -EINTR
 * when a signal stops it, 0 when it is fine or another process stopped it. */
static int run_status(const struct run *r)
{
    for (unsigned i = 0; i < r->nthreads; i++)
        if (r->w[i].err)
            return r->w[i].err;
    if (__atomic_load_n(&r->failed, __ATOMIC_RELAXED) && !r->peer_stopped && !r->sync_over)
        return -EIO;
    return sbio_stop_requested() ? -EINTR : 0;
}

/* Meet the other processes; when one of them (or this one) is not fine, the phases that
 * follow do not start, here and everywhere. */
static void run_agree(struct run *r)
{
    if (!r->sync || r->sync_over)
        return;
    if (r->sync->agree(r->sync->ctx, run_status(r))) {
        r->sync_over = true;
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
    }
}

static int runner_run(const struct sbio_config *cfg, struct sbio_fileset *fs, bool created,
                      const struct sbio_target *target, FILE *interim,
                      const struct sbio_runner_sync *sync, struct sbio_run_result *res);

int sbio_runner_run(const struct sbio_config *cfg, struct sbio_fileset *fs, bool created,
                    const struct sbio_target *target, FILE *interim, struct sbio_run_result *res)
{
    return sbio_runner_run_sync(cfg, fs, created, target, interim, NULL, res);
}

int sbio_runner_run_sync(const struct sbio_config *cfg, struct sbio_fileset *fs, bool created,
                         const struct sbio_target *target, FILE *interim,
                         const struct sbio_runner_sync *sync, struct sbio_run_result *res)
{
    int rc = runner_run(cfg, fs, created, target, interim, sync, res);
    /* Once its threads are started runner_run meets the others and returns 0; a process that
     * could not start them still meets them once, so that none waits for it. */
    if (sync && rc)
        sync->agree(sync->ctx, rc);
    return rc;
}

static int runner_run(const struct sbio_config *cfg, struct sbio_fileset *fs, bool created,
                      const struct sbio_target *target, FILE *interim,
                      const struct sbio_runner_sync *sync, struct sbio_run_result *res)
{
    struct run r = {.cfg = cfg, .fs = fs, .nthreads = (unsigned)cfg->threads, .sync = sync};
    int rc = 0;
    unsigned started = 0;
    bool barrier = false;
    int *cpus = NULL;
    int ncpus = 0;

    memset(res, 0, sizeof(*res));
    res->threads = r.nthreads;
    r.eng = sbio_engine_find(cfg->ioengine);
    if (!r.eng) {
        sbio_err("--ioengine=%s: not available in this build", sbio_engine_name(cfg->ioengine));
        return -SBIO_EUSAGE;
    }
    if (cfg->cpus) {
        cpus = calloc(MAX_CPUS, sizeof(int));
        if (!cpus)
            return -ENOMEM;
        ncpus = sbio_runner_parse_cpus(cfg->cpus, cpus, MAX_CPUS);
        cpu_set_t allowed;
        sched_getaffinity(0, sizeof(allowed), &allowed);
        for (int i = 0; ncpus > 0 && i < ncpus; i++)
            if (!CPU_ISSET(cpus[i], &allowed)) {
                sbio_err("--cpus=%s: CPU %d is not available to this process", cfg->cpus, cpus[i]);
                free(cpus);
                return -SBIO_EUSAGE;
            }
        if (ncpus <= 0) {
            sbio_err("--cpus=%s is not valid; accepted: a list of CPU numbers and ranges, "
                     "e.g. 0-3,6",
                     cfg->cpus);
            free(cpus);
            return -SBIO_EUSAGE;
        }
        res->ncpus = (unsigned)ncpus;
    }

    uint64_t direct_align = 0;
    r.oflags = sbio_mode_writes(cfg->mode) ? O_RDWR : O_RDONLY;
    if (cfg->extra_flags & SBIO_XF_SYNC)
        r.oflags |= O_SYNC;
    if (cfg->extra_flags & SBIO_XF_DSYNC)
        r.oflags |= O_DSYNC;
    if ((cfg->extra_flags & SBIO_XF_DIRECT) && (r.eng->flags & SBIO_ENG_NO_DIRECT)) {
        sbio_err("--file-extra-flags=direct: the %s engine cannot do O_DIRECT (it goes "
                 "through the page cache); accepted engines: sync, libaio, io_uring",
                 r.eng->name);
        free(cpus);
        return -SBIO_EUSAGE;
    }
    if ((cfg->extra_flags & SBIO_XF_DIRECT) && !(r.eng->flags & SBIO_ENG_NO_IO)) {
        r.oflags |= O_DIRECT;
        direct_align = direct_alignment(fs->dirfd, fs->files[0].name, target);
        if (cfg->block_size % direct_align) {
            sbio_err("%s=%" PRIu64 " is not a multiple of %" PRIu64
                     " bytes, the O_DIRECT alignment of %s; accepted: multiples of %" PRIu64,
                     block_what(cfg), cfg->block_size, direct_align, cfg->dir, direct_align);
            free(cpus);
            return -SBIO_EUSAGE;
        }
    }
    res->direct_align = direct_align;

    uint64_t *sizes = calloc(fs->nfiles, sizeof(uint64_t));
    if (!sizes) {
        free(cpus);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < fs->nfiles; i++)
        sizes[i] = fs->files[i].size;
    rc = sbio_layout_init(&r.lay, fs->nfiles, sizes, cfg->block_size, cfg->merged_requests,
                          direct_align);
    free(sizes);
    if (rc) {
        free(cpus);
        return rc;
    }
    res->skipped_tails = r.lay.skipped_tails;
    res->skipped_bytes = r.lay.skipped_bytes;
    /* No whole block anywhere in the set is bad input for every mode: a sequential run
     * would issue nothing but short tails. */
    if (!r.lay.rnd_blocks) {
        sbio_err("%s=%" PRIu64 " is larger than the files (%" PRIu64
                 " bytes): no whole block to %s",
                 block_what(cfg), cfg->block_size, fs->files[0].size,
                 sbio_mode_sequential(cfg->mode) ? "issue" : "draw");
        rc = -SBIO_EUSAGE;
        goto out_layout;
    }
    if (cfg->verify) {
        const char *why = fs->raw       ? "a raw device has no verified blocks"
                          : !fs->verify ? "the set was prepared without --verify: "
                                          "run sbio cleanup, then sbio prepare --verify"
                          : (r.eng->flags & SBIO_ENG_NO_IO) ? "the null engine reads nothing"
                                                            : NULL;
        if (!why && cfg->block_size != fs->block_size) {
            sbio_err("--verify: %s=%" PRIu64 " but the set's blocks are %" PRIu64
                     " bytes (verification works at the prepared block size)",
                     block_what(cfg), cfg->block_size, fs->block_size);
            rc = -SBIO_EUSAGE;
            goto out_layout;
        }
        if (!why && !sbio_mode_sequential(cfg->mode) &&
            r.lay.rnd_blocks < (sync && sync->all_threads ? sync->all_threads : cfg->threads))
            why = "fewer blocks than threads (each thread owns its blocks)";
        if (why) {
            sbio_err("--verify: %s", why);
            rc = -SBIO_EUSAGE;
            goto out_layout;
        }
        r.verify = true;
        r.vblock = fs->block_size;
        r.vfirst = calloc(fs->nfiles + 1, sizeof(uint64_t));
        for (unsigned i = 0; r.vfirst && i < fs->nfiles; i++)
            r.vfirst[i + 1] = r.vfirst[i] + (fs->files[i].size + r.vblock - 1) / r.vblock;
        r.gens = r.vfirst ? malloc(r.vfirst[fs->nfiles] * sizeof(uint32_t) + 1) : NULL;
        if (!r.gens) {
            rc = -ENOMEM;
            goto out_layout;
        }
        memset(r.gens, 0xff, r.vfirst[fs->nfiles] * sizeof(uint32_t)); /* SBIO_VERIFY_ANY */
        /* The run's nonce makes its generations differ from any earlier run's. */
        r.nonce = (uint32_t)(sbio_mix64(sbio_now_ns() ^ (uint64_t)getpid()) % 0xfffeu) + 1;
    }
    res->seed = cfg->rand_seed ? cfg->rand_seed : sbio_mix64(sbio_now_ns() ^ (uint64_t)getpid());
    sbio_wl_shared_init(&r.sh, cfg, &r.lay, res->seed);
    unsigned first_thread = 0;
    if (sync && sync->all_threads) {
        /* One set, many processes: threads are numbered across them. */
        r.sh.threads = sync->all_threads;
        first_thread = sync->first_thread;
        if (sbio_mode_sequential(cfg->mode))
            r.sh.seq_stream = SBIO_SEQ_PER_THREAD;
    }
    r.sh.partition = r.verify;
    if (cfg->rate)
        r.rate_interval_ns = (uint64_t)(1e9 * (double)r.nthreads / (double)cfg->rate);
    r.budget = cfg->events > 0;
    r.budget_left = cfg->events;
    r.own_budgets =
        r.budget && sbio_mode_sequential(cfg->mode) && r.sh.seq_stream == SBIO_SEQ_PER_THREAD;
    r.warmup = cfg->warmup_s > 0;

    r.w = calloc(r.nthreads, sizeof(*r.w));
    res->per_thread =
        aligned_alloc(64, (sizeof(struct sbio_stats) * r.nthreads + 63) & ~(size_t)63);
    if (!r.w || !res->per_thread) {
        rc = -ENOMEM;
        goto out_workers;
    }
    for (unsigned i = 0; i < r.nthreads; i++) {
        struct worker *w = &r.w[i];
        w->run = &r;
        w->id = i;
        w->cpu = ncpus ? cpus[i % (unsigned)ncpus] : -1;
        /* Each slice moves its share of the events, as each iozone child moves its file:
         * a shared pool would let the first thread to start take them all. */
        if (r.own_budgets)
            w->local_budget = cfg->events / r.nthreads + (i < cfg->events % r.nthreads);
        w->stats = &res->per_thread[i];
        sbio_stats_init(w->stats);
        w->files = calloc(fs->nfiles, sizeof(*w->files));
        w->nios = r.eng->flags & SBIO_ENG_SYNC ? 1 : (unsigned)cfg->iodepth;
        w->ios = calloc(w->nios, sizeof(*w->ios));
        if (r.verify && w->nios > 1 && !(w->busy = calloc(w->nios, sizeof(bool)))) {
            rc = -ENOMEM;
            goto out_workers;
        }
        if (!w->files || !w->ios || posix_memalign(&w->buf, 4096, r.lay.req * w->nios)) {
            sbio_err("thread %u: no memory for %u buffers of %" PRIu64 " bytes", i, w->nios,
                     r.lay.req);
            rc = -ENOMEM;
            goto out_workers;
        }
        for (unsigned k = 0; k < w->nios; k++) {
            w->ios[k].slot = k;
            w->ios[k].len = (uint32_t)r.lay.req; /* the buffer's size, for registration */
            w->ios[k].buf = (char *)w->buf + (size_t)k * r.lay.req;
            /* Writes carry the set's fill pattern, varied per thread and slot. */
            sbio_fill_range(fs, i * w->nios + k, 0, w->ios[k].buf, r.lay.req);
        }
        for (unsigned f = 0; f < fs->nfiles; f++)
            w->files[f].fd = -1;
        rc = sbio_wl_init(&w->wl, &r.sh, first_thread + i);
        if (rc == -ERANGE) {
            sbio_err("--seq-stream=per-thread: %u threads but the set has only %" PRIu64
                     " requests of %" PRIu64 " bytes; use fewer threads or a smaller block",
                     r.sh.threads, r.lay.seq_units, r.lay.req);
            rc = -SBIO_EUSAGE;
            goto out_workers;
        }
        if (rc == -EINVAL && w->wl.hook_err[0]) {
            sbio_err("%s", w->wl.hook_err);
            rc = -SBIO_EUSAGE;
            goto out_workers;
        }
        if (rc)
            goto out_workers;
        if ((rc = r.eng->init(&w->eng_priv, cfg))) {
            /* No silent fallback to another engine: the comparison would be a lie. */
            if (rc == -ENOSYS || rc == -EPERM || rc == -EACCES)
                sbio_err("--ioengine=%s: the kernel or a security policy refuses it (%s); "
                         "choose another engine",
                         r.eng->name, strerror(-rc));
            else
                sbio_err("--ioengine=%s: setting up thread %u: %s%s", r.eng->name, i, strerror(-rc),
                         rc == -EAGAIN && cfg->ioengine == SBIO_ENGINE_LIBAIO
                             ? " (fs.aio-max-nr is too small for threads x iodepth)"
                             : "");
            rc = -SBIO_EUSAGE;
            goto out_workers;
        }
    }

    /* The null engine writes nothing: truncating (and completing) would punch a hole of
     * zeros into a real set. */
    bool seqwr = cfg->mode == SBIO_MODE_SEQWR && !(r.eng->flags & SBIO_ENG_NO_IO) && !fs->raw;
    if (seqwr && !created && (rc = sbio_fileset_mark(fs, false)))
        goto out_workers;
    if (seqwr && !r.warmup && (rc = truncate_set(&r)))
        goto out_workers;

    gate_init(&r.barrier, r.nthreads + 1);
    barrier = true;
    /* Workers must not take SIGINT/SIGTERM: the main thread turns them into the stop flag. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (; started < r.nthreads; started++) {
        int e = pthread_create(&r.w[started].tid, NULL, worker_main, &r.w[started]);
        if (e) {
            rc = -e;
            break;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        sbio_err("pthread_create for thread %u of %u: %s", started + 1, r.nthreads, strerror(-rc));
        /* The run fails: the report says so and the exit status is not 0. */
        res->error = rc;
        snprintf(res->error_msg, sizeof(res->error_msg), "pthread_create for thread %u of %u: %s",
                 started + 1, r.nthreads, strerror(-rc));
        __atomic_store_n(&r.failed, 1, __ATOMIC_RELAXED);
        gate_shrink(&r.barrier, started + 1);
        r.nthreads = started; /* join and merge only what started; cleanup frees all */
    }

    gate_wait(&r.barrier); /* all threads have opened their files */
    run_agree(&r);         /* every process has: warm-up or run may start */
    /* Interim reports: the previous total, the current one, and one thread's snapshot. */
    struct sbio_stats *rep = aligned_alloc(64, (4 * sizeof(struct sbio_stats) + 63) & ~(size_t)63);
    if (r.warmup) {
        gate_wait(&r.barrier);
        uint64_t ws = sbio_now_ns();
        run_wait(&r, ws, cfg->warmup_s * 1000000000ULL, NULL, NULL, NULL);
        __atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
        gate_wait(&r.barrier); /* workers are out of the warm-up loop */
        for (unsigned i = 0; i < r.nthreads; i++)
            sbio_stats_init(r.w[i].stats);
        if (seqwr && !__atomic_load_n(&r.failed, __ATOMIC_RELAXED) && truncate_set(&r)) {
            res->error = -EIO;
            snprintf(res->error_msg, sizeof(res->error_msg),
                     "emptying the set for seqwr after the warm-up failed (see above)");
            __atomic_store_n(&r.failed, 1, __ATOMIC_RELAXED);
        }
        if (!sbio_stop_requested())
            __atomic_store_n(&r.stop, 0, __ATOMIC_RELAXED);
    }
    struct rusage ru0, ru1;
    res->have_cache = snap_cache(fs, &res->cache0);
    snap_disks(target, res, res->disk0);
    snap_sched(target, res);
    getrusage(RUSAGE_SELF, &ru0);
    /* Every process starts its clock as it leaves this meeting; durations are measured on
     * each process's own clock, never compared across hosts. */
    run_agree(&r);
    /* Only now, every check passed and every thread ready, is the run under way. */
    if (interim && !__atomic_load_n(&r.failed, __ATOMIC_RELAXED)) {
        fprintf(interim, "\nThreads started!\n\n");
        fflush(interim);
    }
    gate_wait(&r.barrier); /* go */
    uint64_t start_ns = first_start(&r);
    /* Without memory for snapshots the run goes on without interim lines or samples. */
    run_wait(&r, start_ns, cfg->time_s * 1000000000ULL, rep, res, interim ? interim : stdout);
    free(rep);
    for (unsigned i = 0; i < r.nthreads; i++)
        pthread_join(r.w[i].tid, NULL);
    run_agree(&r); /* every process is out of the measured phase */
    getrusage(RUSAGE_SELF, &ru1);
    snap_disks(target, res, res->disk1);
    if (res->have_cache)
        res->have_cache = snap_cache(fs, &res->cache1);
    res->user_s = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                  (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6;
    res->sys_s = (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
    res->stop_signal = sbio_stop_requested();
    res->minor_faults = (uint64_t)(ru1.ru_minflt - ru0.ru_minflt);
    res->major_faults = (uint64_t)(ru1.ru_majflt - ru0.ru_majflt);
    uint64_t dsum = 0, dn = 0;
    for (unsigned i = 0; i < r.nthreads; i++) {
        dsum += r.w[i].depth_sum;
        dn += r.w[i].depth_samples;
        if (r.w[i].depth_max > res->depth_max)
            res->depth_max = r.w[i].depth_max;
    }
    res->depth_avg = dn ? (double)dsum / (double)dn : 0;

    sbio_stats_init(&res->total);
    for (unsigned i = 0; i < r.nthreads; i++) {
        sbio_stats_merge(&res->total, &res->per_thread[i]);
        if (r.w[i].verify_msg[0] && !res->verify_msg[0])
            snprintf(res->verify_msg, sizeof(res->verify_msg), "%s", r.w[i].verify_msg);
        if (r.w[i].err && !res->error) {
            res->error = r.w[i].err;
            snprintf(res->error_msg, sizeof(res->error_msg), "%s", r.w[i].err_msg);
        }
    }
    if (res->total.start_ns != UINT64_MAX && res->total.end_ns > res->total.start_ns)
        res->elapsed_ns = res->total.end_ns - res->total.start_ns;
    else
        res->elapsed_ns = sbio_now_ns() - start_ns;

    if (seqwr || created) {
        /* A set created for this run by the null engine is still empty: fill it all. */
        int crc = seqwr ? complete_seqwr(&r, &res->completed_bytes)
                        : sbio_fileset_complete(fs, &res->completed_bytes);
        if (crc && !res->error) {
            res->error = crc;
            snprintf(res->error_msg, sizeof(res->error_msg),
                     "completing the set after seqwr failed (see above)");
        }
    }
    rc = 0;

out_workers:
    if (barrier)
        gate_destroy(&r.barrier);
    if (r.w) {
        for (unsigned i = 0; i < res->threads; i++) {
            if (r.w[i].eng_priv)
                r.eng->cleanup(r.w[i].eng_priv);
            sbio_wl_fini(&r.w[i].wl);
            free(r.w[i].files);
            free(r.w[i].buf);
            free(r.w[i].ios);
            free(r.w[i].busy);
        }
        free(r.w);
    }
    if (rc) {
        free(res->per_thread);
        res->per_thread = NULL;
    }
out_layout:
    sbio_layout_free(&r.lay);
    free(r.gens);
    free(r.vfirst);
    free(cpus);
    return rc;
}

void sbio_run_result_free(struct sbio_run_result *res)
{
    free(res->per_thread);
    res->per_thread = NULL;
    free(res->samples);
    res->samples = NULL;
    free(res->ranks);
    res->ranks = NULL;
    free(res->rank_host);
    res->rank_host = NULL;
    res->nranks = 0;
}
