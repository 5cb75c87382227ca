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
#include <unistd.h>

#include "engine.h"
#include "fill.h"
#include "options.h"
#include "seqwr.h"
#include "util.h"
#include "verify.h"

#define POLL_NS 20000000ULL /* the main thread checks signals and limits every 20 ms */

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
    void *buf;           /* nios buffers of req bytes, one per io slot */
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
    const struct sbio_job *job;
    const struct sbio_runner_env *env;
    const struct sbio_engine_ops *eng;
    struct sbio_fileset *fs;
    struct sbio_layout lay;
    struct sbio_wl_shared sh;
    struct worker *w;
    unsigned nthreads;
    unsigned first_thread; /* this process's first thread among all processes' */
    int oflags;
    uint64_t req;              /* bytes per io buffer */
    uint64_t rate_interval_ns; /* per thread, 0: unlimited */
    int *cpus;                 /* --cpus, ncpus of them */
    int ncpus;
    struct gate barrier;
    bool warmup;
    bool budget; /* --events caps the run */
    bool verify;
    bool seqwr; /* truncate before the measured phase and complete after it */
    struct sbio_verify_map vmap;
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

static inline int run_failed(const struct run *r)
{
    return __atomic_load_n(&r->failed, __ATOMIC_RELAXED);
}

/* Stop every thread; failed: because something went wrong (no end fsyncs then). */
static void run_halt(struct run *r, bool failed)
{
    if (failed)
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
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
    snprintf(buf, len, "%s/%s", r->fs->dir, n);
    return buf;
}

/* Count the failure and stop the run (every thread, and the other processes under MPI). */
static void worker_stop_failed(struct worker *w)
{
    __atomic_store_n(&w->stats->errors, w->stats->errors + 1, __ATOMIC_RELAXED);
    run_halt(w->run, true);
}

/* The system call an io's failure is named after. */
static const char *io_call(const struct run *r, const struct sbio_io *io, bool sync_after)
{
    static const char *const mmap_call[] = {"read from the mapping", "write to the mapping",
                                            "msync"};
    bool datasync = r->job->fsync_mode == SBIO_FSYNC_FDATASYNC;
    if (r->eng->flags & SBIO_ENG_NO_DIRECT)
        return sync_after ? "msync" : mmap_call[io->op];
    if (sync_after || io->op == SBIO_FSYNC)
        return datasync ? "fdatasync" : "fsync";
    return op_call[io->op];
}

static void worker_fail(struct worker *w, const struct sbio_io *io)
{
    char lbl[PATH_MAX + 300];
    const char *name = file_label(w->run, io->file, lbl, sizeof(lbl));
    if (io->res < 0 && (io->flags & SBIO_IO_SYNC_FAILED)) {
        /* --file-fsync-all: the write went through; the sync after it failed. */
        w->err = (int)io->res;
        snprintf(w->err_msg, sizeof(w->err_msg),
                 "%.200s: %s after the write at offset %" PRIu64 ": %s", name,
                 io_call(w->run, io, true), io->offset, strerror((int)-io->res));
    } else if (io->res < 0) {
        w->err = (int)io->res;
        if (io->op == SBIO_FSYNC)
            snprintf(w->err_msg, sizeof(w->err_msg), "%.200s: %s: %s", name,
                     io_call(w->run, io, false), strerror((int)-io->res));
        else
            snprintf(w->err_msg, sizeof(w->err_msg), "%.200s: %s at offset %" PRIu64 ": %s", name,
                     io_call(w->run, io, false), io->offset, strerror((int)-io->res));
    } else {
        w->err = -EIO;
        snprintf(w->err_msg, sizeof(w->err_msg),
                 "%.200s: %s at offset %" PRIu64 ": short %s (%" PRId64 " of %u bytes)", name,
                 io_call(w->run, io, false), io->offset, io->op == SBIO_READ ? "read" : "write",
                 io->res, io->len);
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

static inline bool io_ok(const struct sbio_io *io)
{
    return io->op == SBIO_FSYNC ? io->res == 0 : io->res == (int64_t)io->len;
}

/* --verify: a bad block; the first is described. */
static void worker_verify_bad(void *ctx, enum sbio_verify_err e, uint32_t file, uint64_t off,
                              uint32_t want, const struct sbio_vhdr *got)
{
    struct worker *w = ctx;
    struct sbio_stats *st = w->stats;
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
                 file_label(w->run, file, lbl, sizeof(lbl)), off, sbio_verify_strerror(e), file, wg,
                 got->file, got->offset, got->gen);
    }
    if (w->run->job->verify_fatal)
        __atomic_store_n(&w->run->stop, 1, __ATOMIC_RELAXED);
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

/* Sleep until deadline_ns (monotonic) in slices, so that a stop (time limit, signal) is
 * seen within POLL_NS even in a long --rate interval or think time. false: stopped. */
static bool sleep_until(const struct run *r, uint64_t deadline_ns)
{
    for (;;) {
        if (run_stopped(r))
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

/* The steps every worker loop shares, synchronous or queued. */

/* Draw the thread's next operation into io, within the event budget. 1: an op; 0: the end
 * (budget spent, or the stream ended); -1: a script's event() failed (the run stops with its
 * message, the traceback is printed). */
static int worker_draw(struct worker *w, struct sbio_io *io, bool budget)
{
    if (budget && !w->local_budget && !claim_events(w))
        return 0;
    int got = sbio_wl_next(&w->wl, io);
    if (got < 0) {
        w->err = -EINVAL;
        snprintf(w->err_msg, sizeof(w->err_msg), "%.300s", w->wl.hook_err);
        run_halt(w->run, true);
        return -1;
    }
    if (got && budget)
        w->local_budget--;
    return got;
}

/* The io starts now (or at its --rate slot): writes carry --verify's stamp. */
static inline void worker_start_io(struct worker *w, struct sbio_io *io, uint64_t start_ns)
{
    io->start_ns = start_ns;
    if (w->run->verify && io->op == SBIO_WRITE)
        sbio_verify_map_stamp(&w->run->vmap, io->buf, io->file, io->offset, io->len);
}

/* A completed io (any engine): checked, recorded, accounted. false when it failed (the run
 * is stopping). */
static bool worker_finish(struct worker *w, struct sbio_io *io, uint64_t end_ns, bool measure)
{
    if (!io_ok(io)) {
        if (!w->err)
            worker_fail(w, io);
        return false;
    }
    struct sbio_stats *st = w->stats;
    if (w->run->verify && io->op == SBIO_READ) {
        uint64_t n = sbio_verify_map_check(&w->run->vmap, io->buf, io->file, io->offset,
                                           (uint64_t)io->res, worker_verify_bad, w);
        __atomic_store_n(&st->verify_checked, st->verify_checked + n, __ATOMIC_RELAXED);
    }
    if (measure) {
        sbio_stats_record(st, io->op, end_ns - io->start_ns, io->op == SBIO_FSYNC ? 0 : io->len, 1);
        if (io->flags & SBIO_IO_FSYNC_AFTER)
            /* --file-fsync-all: the fsync is inside the write's event and latency, and
             * counted with the fsyncs. */
            __atomic_store_n(&st->write_fsyncs, st->write_fsyncs + 1, __ATOMIC_RELAXED);
    }
    sbio_wl_complete(&w->wl, io);
    return true;
}

/* A script's think time after an op: the pause is not part of any op's latency. false:
 * stopped while pausing. */
static inline bool worker_think(struct worker *w, uint64_t from_ns)
{
    uint64_t us = w->run->job->think_us;
    return !us || sleep_until(w->run, from_ns + us * 1000);
}

/* --rate: each thread's ops start at fixed intervals, the threads' schedules spread over
 * one interval. */
static uint64_t worker_first_slot(const struct worker *w, uint64_t now)
{
    uint64_t interval = w->run->rate_interval_ns;
    return now + (interval ? interval * w->id / w->run->nthreads : 0);
}

/* The measured (or warm-up) loop. Synchronous engines: one clock read per op, the end of
 * one op is the start of the next. Under --rate each op starts at its intended time and
 * its latency is measured from there, so a stall is not hidden. */
static void worker_loop(struct worker *w, bool measure)
{
    struct run *r = w->run;
    struct sbio_io io = w->ios[0];
    bool budget = measure && r->budget;
    uint64_t interval = r->rate_interval_ns;
    uint64_t t = sbio_now_ns();
    uint64_t next_start = worker_first_slot(w, t);

    while (!run_stopped(r) && worker_draw(w, &io, budget) > 0) {
        if (interval) {
            if (t < next_start && !sleep_until(r, next_start))
                break;
            t = next_start;
            next_start += interval;
        }
        worker_start_io(w, &io, t);
        r->eng->queue(w->eng_priv, w->files, &io);
        uint64_t t2 = sbio_now_ns();
        if (!worker_finish(w, &io, t2, measure))
            break;
        t = t2;
        if (r->job->think_us) {
            if (!worker_think(w, t2))
                break;
            t = sbio_now_ns();
        }
    }
}

/* Queued engines: keep up to iodepth ios in flight, submit in batches, count each at its
 * completion. An fsync waits until the writes in flight before it completed: it must cover
 * them (sysbench's does not). */
struct qloop {
    struct worker *w;
    bool measure, budget;
    uint64_t interval, next_start;
    unsigned inflight, nfree;
    unsigned batch, unsubmitted;
    struct sbio_io **free_ios; /* [nios] */
    struct sbio_io **done;     /* [nios] */
    struct sbio_io *held;      /* drawn, not issued yet: waits for the queue, its slot, … */
    bool more;                 /* the stream has more */
    bool stopped;
    bool commit_failed; /* the engine is unusable: the thread ends */
    uint64_t wait_ns;   /* until the held io's --rate slot, UINT64_MAX: none */
};

/* Submit what the engine has queued. What was accepted but not submitted will never
 * complete: a failure ends the thread (false). */
static bool q_commit(struct qloop *q)
{
    int rc = q->w->run->eng->commit(q->w->eng_priv);
    if (rc)
        worker_fail_engine(q->w, rc, "submitting requests");
    return rc == 0;
}

/* The next io to issue: the held one, or a new one from the stream; NULL when there is none
 * now. */
static struct sbio_io *q_next(struct qloop *q)
{
    struct sbio_io *io = q->held;
    if (io)
        return io;
    io = q->free_ios[--q->nfree];
    int got = worker_draw(q->w, io, q->budget);
    if (got <= 0) {
        q->stopped |= got < 0;
        q->free_ios[q->nfree++] = io;
        q->more = false;
        return NULL;
    }
    return io;
}

/* Hand io to the engine. false: the fill round ends (the engine is busy, the io failed, or
 * a submission failed: q->commit_failed). */
static bool q_issue(struct qloop *q, struct sbio_io *io)
{
    struct worker *w = q->w;
    int st = w->run->eng->queue(w->eng_priv, w->files, io);
    if (st == SBIO_Q_BUSY) {
        q->held = io;
        return false;
    }
    if (st == SBIO_Q_DONE) {
        bool ok = worker_finish(w, io, sbio_now_ns(), q->measure);
        q->free_ios[q->nfree++] = io;
        q->stopped |= !ok;
        return ok;
    }
    q->inflight++;
    if (w->busy)
        w->busy[io->slot] = true;
    /* --iodepth-batch: submit every batch requests, not only when full. */
    if (++q->unsubmitted >= q->batch) {
        q->unsubmitted = 0;
        if (!q_commit(q)) {
            q->commit_failed = true;
            return false;
        }
    }
    return true;
}

/* Issue ios while there are free slots and ops to draw, until one must wait. false: a
 * submission failed. */
static bool q_fill(struct qloop *q)
{
    struct worker *w = q->w;
    struct run *r = w->run;
    q->wait_ns = UINT64_MAX;
    while (!q->stopped && q->nfree && (q->more || q->held)) {
        struct sbio_io *io = q_next(q);
        if (!io)
            break;
        q->held = io;
        if ((io->op == SBIO_FSYNC && q->inflight) || (r->verify && verify_overlaps(w, io)))
            break;
        uint64_t now = sbio_now_ns();
        if (q->interval && now < q->next_start) {
            /* Not due yet: wait for completions until it is, or sleep. */
            q->wait_ns = q->next_start - now;
            break;
        }
        q->held = NULL;
        worker_start_io(w, io, q->interval ? q->next_start : now);
        if (q->interval)
            q->next_start += q->interval;
        if (r->job->think_us) {
            if (!worker_think(w, sbio_now_ns())) {
                q->held = io; /* not issued: seqwr's completion must know */
                q->stopped = true;
                break;
            }
            io->start_ns = sbio_now_ns();
        }
        if (!q_issue(q, io))
            break;
    }
    return !q->commit_failed;
}

/* Take what completed. false: waiting failed (the ios in flight are given up). */
static bool q_reap(struct qloop *q)
{
    struct worker *w = q->w;
    struct run *r = w->run;
    int n = r->eng->reap(w->eng_priv, 1, q->done, w->nios, q->wait_ns);
    uint64_t t = sbio_now_ns();
    if (n < 0) {
        worker_fail_engine(w, n, "waiting for completions");
        return false;
    }
    for (int i = 0; i < n; i++) {
        struct sbio_io *io = q->done[i];
        uint64_t end = t;
        q->inflight--;
        if (w->busy)
            w->busy[io->slot] = false;
        /* --file-fsync-all: the write's fsync, inside its latency. Each write of a batch
         * ends when its own fsync does: the ios after it are not charged for it. */
        if (io->op == SBIO_WRITE && (io->flags & SBIO_IO_FSYNC_AFTER) &&
            io->res == (int64_t)io->len) {
            int e = sbio_engine_sync_file(w->files[io->file].fd, r->job->fsync_mode);
            if (e) {
                io->res = e;
                io->flags |= SBIO_IO_SYNC_FAILED;
            }
            end = sbio_now_ns();
        }
        worker_finish(w, io, end, q->measure);
        q->free_ios[q->nfree++] = io;
    }
    return true;
}

/* Nothing in flight: sleep until the held io's slot. */
static void q_idle(const struct qloop *q)
{
    if (q->wait_ns == UINT64_MAX)
        return;
    uint64_t until = sbio_now_ns() + q->wait_ns;
    struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ULL),
                          .tv_nsec = (long)(until % 1000000000ULL)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void worker_loop_queued(struct worker *w, bool measure)
{
    struct run *r = w->run;
    struct qloop q = {.w = w,
                      .measure = measure,
                      .budget = measure && r->budget,
                      .interval = r->rate_interval_ns,
                      .next_start = worker_first_slot(w, sbio_now_ns()),
                      .nfree = w->nios,
                      .batch = (unsigned)sbio_job_iodepth_batch(r->job),
                      .free_ios = malloc(w->nios * sizeof(struct sbio_io *)),
                      .done = malloc(w->nios * sizeof(struct sbio_io *)),
                      .more = true};
    if (!q.free_ios || !q.done) {
        worker_fail_engine(w, -ENOMEM, "the queue's arrays");
        goto out;
    }
    for (unsigned i = 0; i < w->nios; i++)
        q.free_ios[i] = &w->ios[w->nios - 1 - i];
    for (;;) {
        q.stopped = run_stopped(r);
        if (!q_fill(&q))
            break;
        if (q.inflight) {
            q.unsubmitted = 0;
            if (!q_commit(&q))
                break;
            w->depth_sum += q.inflight;
            w->depth_samples++;
            if (q.inflight > w->depth_max)
                w->depth_max = q.inflight;
        } else if (q.stopped || (!q.more && !q.held)) {
            break;
        } else {
            q_idle(&q);
            continue;
        }
        if (!q_reap(&q))
            break;
    }
    /* A write drawn from the sequential stream but never issued (held for its rate slot, a
     * full queue, a --verify overlap) leaves a hole seqwr's completion must not skip. */
    if (q.held && q.held->op == SBIO_WRITE)
        __atomic_store_n(&r->lost_write, 1, __ATOMIC_RELAXED);
out:
    free(q.free_ios);
    free(q.done);
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
    while (!run_failed(w->run) && sbio_wl_next(&w->wl, io) > 0) {
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

static void worker_loop_any(struct worker *w, bool measure)
{
    (w->run->eng->flags & SBIO_ENG_SYNC ? worker_loop : worker_loop_queued)(w, measure);
}

/* Pin the thread, open the set, let the engine register files and buffers. */
static void worker_open(struct worker *w)
{
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
}

/* A worker meets the main thread at the gate between phases: open, (warm-up,) measured. */
static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct run *r = w->run;

    worker_open(w);
    gate_wait(&r->barrier); /* all open: main decides to go */
    if (r->warmup) {
        gate_wait(&r->barrier); /* warm-up starts */
        if (!run_failed(r))
            worker_loop_any(w, false);
        gate_wait(&r->barrier); /* warm-up over: main truncates for seqwr */
    }
    gate_wait(&r->barrier); /* measured phase starts */
    if (!run_failed(r)) {
        __atomic_store_n(&w->stats->start_ns, sbio_now_ns(), __ATOMIC_RELAXED);
        worker_loop_any(w, true);
        if (!run_failed(r))
            worker_end_fsyncs(w);
        __atomic_store_n(&w->stats->end_ns, sbio_now_ns(), __ATOMIC_RELAXED);
    }
    for (unsigned i = 0; i < r->lay.nfiles; i++)
        if (w->files[i].fd >= 0 || (r->eng->flags & SBIO_ENG_NO_IO))
            r->eng->close_file(w->eng_priv, &w->files[i]);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* How many workers have finished. */
static unsigned run_done(const struct run *r)
{
    unsigned done = 0;
    for (unsigned i = 0; i < r->nthreads; i++)
        done += (unsigned)__atomic_load_n(&r->w[i].done, __ATOMIC_ACQUIRE);
    return done;
}

/* The measured phase's clock starts with the first worker's: a loaded machine can wake the
 * workers milliseconds after the main thread opens the gate, and --time must still be the
 * measured window (elapsed = last end - first start), not that minus the wake-up. Waits for
 * a worker to stamp its start (or for all to be done: a failure before the phase). */
static uint64_t first_start(struct run *r)
{
    for (;;) {
        uint64_t first = UINT64_MAX;
        for (unsigned i = 0; i < r->nthreads; i++) {
            uint64_t s = __atomic_load_n(&r->w[i].stats->start_ns, __ATOMIC_RELAXED);
            first = s < first ? s : first;
        }
        if (first != UINT64_MAX)
            return first;
        if (run_done(r) == r->nthreads)
            return sbio_now_ns();
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

/* Whether the phase must end now: a signal, a failure, another process's stop, every
 * worker done, or the time limit. */
static bool run_over(struct run *r, uint64_t now, uint64_t start_ns, uint64_t limit_ns)
{
    if (sbio_stop_requested()) {
        __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
        return true;
    }
    if (run_failed(r))
        return true;
    if (r->sync && r->sync->stopped(r->sync->ctx)) {
        r->peer_stopped = true;
        run_halt(r, true);
        return true;
    }
    if (run_done(r) == r->nthreads)
        return true;
    if (limit_ns && now >= start_ns + limit_ns) {
        __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
        return true;
    }
    return false;
}

/* The main thread's wait: until the deadline, a signal, all workers done; meanwhile the
 * interim lines and samples (interim NULL: none). */
static void run_wait(struct run *r, uint64_t start_ns, uint64_t limit_ns,
                     const struct sbio_interim *interim, struct sbio_run_result *res)
{
    struct sbio_interim_poll poll;
    sbio_interim_begin(&poll, interim, start_ns);
    for (;;) {
        uint64_t now = sbio_now_ns();
        if (run_over(r, now, start_ns, limit_ns))
            break;
        uint64_t wake = now + POLL_NS;
        if (poll.rep) {
            uint64_t next = sbio_interim_tick(&poll, now, res->per_thread, r->nthreads, res);
            wake = next < wake ? next : wake;
        }
        if (limit_ns && start_ns + limit_ns < wake)
            wake = start_ns + limit_ns;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ULL),
                              .tv_nsec = (long)(wake % 1000000000ULL)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    sbio_interim_end(&poll);
}

/* This process's status at a phase boundary, for sync->agree: its first failure, -EINTR
 * when a signal stops it, 0 when it is fine or another process stopped it. */
static int run_status(const struct run *r)
{
    for (unsigned i = 0; i < r->nthreads; i++)
        if (r->w[i].err)
            return r->w[i].err;
    if (run_failed(r) && !r->peer_stopped && !r->sync_over)
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

/* seqwr: empty the set and restart the streams. */
static int run_truncate(struct run *r)
{
    int rc = sbio_seqwr_truncate(r->fs, r->eng->flags & SBIO_ENG_NO_DIRECT);
    if (rc)
        return rc;
    __atomic_store_n(&r->sh.seq_next, 0, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < r->nthreads; i++)
        r->w[i].wl.slice_pos = 0;
    return 0;
}

/* Write back the sequential requests a seqwr run did not reach, outside the measured time,
 * so the set stays whole and valid. After a failed or lost write the issued requests are not
 * all on disk: everything is redone. */
static int run_complete_seqwr(struct run *r, uint64_t *bytes)
{
    bool redo = run_failed(r) || __atomic_load_n(&r->lost_write, __ATOMIC_RELAXED);
    int rc = 0;
    *bytes = 0;
    if (r->sh.seq_stream == SBIO_SEQ_PER_THREAD) {
        for (unsigned t = 0; t < r->nthreads && !rc; t++) {
            const struct sbio_wl *wl = &r->w[t].wl;
            uint64_t done = wl->slice_pos < wl->slice_units ? wl->slice_pos : wl->slice_units;
            rc = sbio_seqwr_fill(r->fs, &r->lay, wl->slice_first + (redo ? 0 : done),
                                 wl->slice_first + wl->slice_units, bytes);
        }
    } else {
        uint64_t done = redo ? 0 : __atomic_load_n(&r->sh.seq_next, __ATOMIC_RELAXED);
        rc = sbio_seqwr_fill(r->fs, &r->lay, done < r->lay.seq_units ? done : r->lay.seq_units,
                             r->lay.seq_units, bytes);
    }
    if (!rc) {
        uint64_t more;
        rc = sbio_fileset_complete(r->fs, &more); /* skipped tails, fsync, manifest complete */
        *bytes += more;
    }
    return rc;
}

/* --cpus: the list, each CPU available to this process. 0 or -SBIO_EUSAGE. */
static int run_check_cpus(struct run *r)
{
    const char *list = r->job->cpus;
    if (!list)
        return 0;
    r->cpus = calloc(SBIO_MAX_CPUS, sizeof(int));
    if (!r->cpus)
        return -ENOMEM;
    r->ncpus = sbio_parse_cpus(list, r->cpus, SBIO_MAX_CPUS);
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof(allowed), &allowed);
    for (int i = 0; r->ncpus > 0 && i < r->ncpus; i++)
        if (!CPU_ISSET(r->cpus[i], &allowed)) {
            sbio_err("--cpus=%s: CPU %d is not available to this process", list, r->cpus[i]);
            return -SBIO_EUSAGE;
        }
    if (r->ncpus <= 0) {
        sbio_err("--cpus=%s is not valid; accepted: a list of CPU numbers and ranges, e.g. 0-3,6",
                 list);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* Open flags, and the O_DIRECT alignment the block size must keep. 0 or -SBIO_EUSAGE. */
static int run_check_flags(struct run *r, uint64_t *direct_align)
{
    const struct sbio_job *job = r->job;
    *direct_align = 0;
    r->oflags = sbio_job_writes(job) ? O_RDWR : O_RDONLY;
    if (job->extra_flags & SBIO_XF_SYNC)
        r->oflags |= O_SYNC;
    if (job->extra_flags & SBIO_XF_DSYNC)
        r->oflags |= O_DSYNC;
    if (!(job->extra_flags & SBIO_XF_DIRECT))
        return 0;
    if (r->eng->flags & SBIO_ENG_NO_DIRECT) {
        sbio_err("--file-extra-flags=direct: the %s engine cannot do O_DIRECT (it goes "
                 "through the page cache); accepted engines: sync, libaio, io_uring",
                 r->eng->name);
        return -SBIO_EUSAGE;
    }
    if (r->eng->flags & SBIO_ENG_NO_IO)
        return 0;
    r->oflags |= O_DIRECT;
    *direct_align = sbio_direct_alignment(r->fs->dirfd, r->fs->files[0].name, r->env->target);
    if (job->block_size % *direct_align) {
        sbio_err("%s=%" PRIu64 " is not a multiple of %" PRIu64
                 " bytes, the O_DIRECT alignment of %s; accepted: multiples of %" PRIu64,
                 job->block_what, job->block_size, *direct_align, r->fs->dir, *direct_align);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* The set as the generators see it. 0, -ENOMEM or -SBIO_EUSAGE. */
static int run_layout(struct run *r, uint64_t direct_align, struct sbio_run_result *res)
{
    const struct sbio_job *job = r->job;
    struct sbio_fileset *fs = r->fs;
    uint64_t *sizes = calloc(fs->nfiles, sizeof(uint64_t));
    if (!sizes)
        return -ENOMEM;
    for (unsigned i = 0; i < fs->nfiles; i++)
        sizes[i] = fs->files[i].size;
    /* A mix or hook draws whole blocks; only sysbench's modes merge requests. */
    uint64_t merged = job->mix || job->hook ? 1 : job->merged_requests;
    int rc = sbio_layout_init(&r->lay, fs->nfiles, sizes, job->block_size, merged, direct_align);
    free(sizes);
    if (rc)
        return rc;
    r->req = sbio_job_req_bytes(job);
    res->skipped_tails = r->lay.skipped_tails;
    res->skipped_bytes = r->lay.skipped_bytes;
    /* No whole block anywhere in the set is bad input for every mode: a sequential run
     * would issue nothing but short tails. */
    if (!r->lay.rnd_blocks) {
        sbio_err("%s=%" PRIu64 " is larger than the files (%" PRIu64
                 " bytes): no whole block to %s",
                 job->block_what, job->block_size, fs->files[0].size,
                 sbio_job_sequential(job) ? "issue" : "draw");
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* --verify: the set must have been prepared for it, at this block size, with a block per
 * thread at least. 0, -ENOMEM or -SBIO_EUSAGE. */
static int run_verify_setup(struct run *r)
{
    const struct sbio_job *job = r->job;
    const struct sbio_fileset *fs = r->fs;
    const struct sbio_runner_sync *sync = r->sync;
    if (!job->verify)
        return 0;
    const char *why = fs->raw                            ? "a raw device has no verified blocks"
                      : !fs->verify                      ? "the set was prepared without --verify: "
                                                           "run sbio cleanup, then sbio prepare --verify"
                      : (r->eng->flags & SBIO_ENG_NO_IO) ? "the null engine reads nothing"
                                                         : NULL;
    if (!why && job->block_size != fs->block_size) {
        sbio_err("--verify: %s=%" PRIu64 " but the set's blocks are %" PRIu64
                 " bytes (verification works at the prepared block size)",
                 job->block_what, job->block_size, fs->block_size);
        return -SBIO_EUSAGE;
    }
    if (!why && !sbio_job_sequential(job) &&
        r->lay.rnd_blocks < (sync && sync->all_threads ? sync->all_threads : job->threads))
        why = "fewer blocks than threads (each thread owns its blocks)";
    if (why) {
        sbio_err("--verify: %s", why);
        return -SBIO_EUSAGE;
    }
    r->verify = true;
    return sbio_verify_map_init(&r->vmap, fs->nfiles, r->lay.size, fs->block_size, fs->seed);
}

/* The generators' shared state and the run's limits. */
static void run_limits(struct run *r, struct sbio_run_result *res)
{
    const struct sbio_job *job = r->job;
    res->seed = job->seed ? job->seed : sbio_mix64(sbio_now_ns() ^ (uint64_t)getpid());
    sbio_wl_shared_init(&r->sh, job, &r->lay, res->seed);
    if (r->sync && r->sync->all_threads) {
        /* One set, many processes: threads are numbered across them. */
        r->sh.threads = r->sync->all_threads;
        r->first_thread = r->sync->first_thread;
        if (sbio_job_sequential(job))
            r->sh.seq_stream = SBIO_SEQ_PER_THREAD;
    }
    r->sh.partition = r->verify;
    if (job->rate)
        r->rate_interval_ns = (uint64_t)(1e9 * (double)r->nthreads / (double)job->rate);
    r->budget = job->events > 0;
    r->budget_left = job->events;
    r->own_budgets =
        r->budget && sbio_job_sequential(job) && r->sh.seq_stream == SBIO_SEQ_PER_THREAD;
    r->warmup = job->warmup_s > 0;
}

/* The engine's settings for one thread, from the job. */
static void run_engine_params(const struct sbio_job *job, struct sbio_config *c)
{
    memset(c, 0, sizeof(*c));
    c->iodepth = job->iodepth;
    c->fsync_mode = job->fsync_mode;
    c->uring_fixed = job->uring_fixed;
    c->uring_sqpoll = job->uring_sqpoll;
}

/* Thread i's files, buffers, generator and engine. 0, -ENOMEM or -SBIO_EUSAGE (message
 * printed). */
static int run_worker_init(struct run *r, unsigned i, struct sbio_run_result *res)
{
    struct worker *w = &r->w[i];
    w->run = r;
    w->id = i;
    w->cpu = r->ncpus ? r->cpus[i % (unsigned)r->ncpus] : -1;
    /* Each slice moves its share of the events, as each iozone child moves its file: a
     * shared pool would let the first thread to start take them all. */
    if (r->own_budgets)
        w->local_budget = r->job->events / r->nthreads + (i < r->job->events % r->nthreads);
    w->stats = &res->per_thread[i];
    sbio_stats_init(w->stats);
    w->files = calloc(r->fs->nfiles, sizeof(*w->files));
    w->nios = r->eng->flags & SBIO_ENG_SYNC ? 1 : (unsigned)r->job->iodepth;
    w->ios = calloc(w->nios, sizeof(*w->ios));
    if (r->verify && w->nios > 1 && !(w->busy = calloc(w->nios, sizeof(bool))))
        return -ENOMEM;
    if (!w->files || !w->ios || posix_memalign(&w->buf, 4096, r->req * w->nios)) {
        sbio_err("thread %u: no memory for %u buffers of %" PRIu64 " bytes", i, w->nios, r->req);
        return -ENOMEM;
    }
    for (unsigned k = 0; k < w->nios; k++) {
        w->ios[k].slot = k;
        w->ios[k].len = (uint32_t)r->req; /* the buffer's size, for registration */
        w->ios[k].buf = (char *)w->buf + (size_t)k * r->req;
        /* Writes carry the set's fill pattern, varied per thread and slot. */
        sbio_fill_range(r->fs, i * w->nios + k, 0, w->ios[k].buf, r->req);
    }
    for (unsigned f = 0; f < r->fs->nfiles; f++)
        w->files[f].fd = -1;
    int rc = sbio_wl_init(&w->wl, &r->sh, r->first_thread + i);
    if (rc == -ERANGE) {
        sbio_err("--seq-stream=per-thread: %u threads but the set has only %" PRIu64
                 " requests of %" PRIu64 " bytes; use fewer threads or a smaller block",
                 r->sh.threads, r->lay.seq_units, r->lay.req);
        return -SBIO_EUSAGE;
    }
    if (rc == -EINVAL && w->wl.hook_err[0]) {
        sbio_err("%s", w->wl.hook_err);
        return -SBIO_EUSAGE;
    }
    if (rc)
        return rc;
    struct sbio_config ec;
    run_engine_params(r->job, &ec);
    if ((rc = r->eng->init(&w->eng_priv, &ec))) {
        /* No silent fallback to another engine: the comparison would be a lie. */
        if (rc == -ENOSYS || rc == -EPERM || rc == -EACCES)
            sbio_err("--ioengine=%s: the kernel or a security policy refuses it (%s); "
                     "choose another engine",
                     r->eng->name, strerror(-rc));
        else
            sbio_err("--ioengine=%s: setting up thread %u: %s%s", r->eng->name, i, strerror(-rc),
                     rc == -EAGAIN && r->job->engine == SBIO_ENGINE_LIBAIO
                         ? " (fs.aio-max-nr is too small for threads x iodepth)"
                         : "");
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* Start the threads, which open the set and wait at the gate. A thread that cannot be
 * started fails the run: the report says so and the exit status is not 0. */
static void run_start(struct run *r, struct sbio_run_result *res)
{
    gate_init(&r->barrier, r->nthreads + 1);
    /* Workers must not take SIGINT/SIGTERM: the main thread turns them into the stop flag. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    unsigned started = 0;
    int e = 0;
    for (; started < r->nthreads; started++)
        if ((e = pthread_create(&r->w[started].tid, NULL, worker_main, &r->w[started])))
            break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!e)
        return;
    sbio_err("pthread_create for thread %u of %u: %s", started + 1, r->nthreads, strerror(e));
    res->error = -e;
    snprintf(res->error_msg, sizeof(res->error_msg), "pthread_create for thread %u of %u: %s",
             started + 1, r->nthreads, strerror(e));
    __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
    gate_shrink(&r->barrier, started + 1);
    r->nthreads = started; /* join and merge only what started; cleanup frees all */
}

/* --warmup-time: the threads run unmeasured, then their stats start over (and seqwr empties
 * the set again). */
static void run_warmup(struct run *r, struct sbio_run_result *res)
{
    gate_wait(&r->barrier);
    run_wait(r, sbio_now_ns(), r->job->warmup_s * 1000000000ULL, NULL, res);
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    gate_wait(&r->barrier); /* workers are out of the warm-up loop */
    for (unsigned i = 0; i < r->nthreads; i++)
        sbio_stats_init(r->w[i].stats);
    if (r->seqwr && !run_failed(r) && run_truncate(r)) {
        res->error = -EIO;
        snprintf(res->error_msg, sizeof(res->error_msg),
                 "emptying the set for seqwr after the warm-up failed (see above)");
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
    }
    if (!sbio_stop_requested())
        __atomic_store_n(&r->stop, 0, __ATOMIC_RELAXED);
}

static double tv_s(struct timeval a, struct timeval b)
{
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_usec - a.tv_usec) / 1e6;
}

/* The measured phase, with the device, cache and CPU figures around it. */
static void run_measured(struct run *r, struct sbio_run_result *res)
{
    const struct sbio_interim *interim = r->env->interim;
    struct rusage ru0, ru1;
    res->have_cache = sbio_result_snap_cache(r->fs, &res->cache0);
    sbio_result_snap_disks(res, r->env->target, res->disk0);
    sbio_result_snap_sched(res, r->env->target);
    getrusage(RUSAGE_SELF, &ru0);
    /* Every process starts its clock as it leaves this meeting; durations are measured on
     * each process's own clock, never compared across hosts. */
    run_agree(r);
    /* Only now, every check passed and every thread ready, is the run under way. */
    if (interim && interim->started && !run_failed(r))
        interim->started(interim->ctx);
    gate_wait(&r->barrier); /* go */
    uint64_t start_ns = first_start(r);
    run_wait(r, start_ns, r->job->time_s * 1000000000ULL, interim, res);
    for (unsigned i = 0; i < r->nthreads; i++)
        pthread_join(r->w[i].tid, NULL);
    run_agree(r); /* every process is out of the measured phase */
    getrusage(RUSAGE_SELF, &ru1);
    sbio_result_snap_disks(res, r->env->target, res->disk1);
    if (res->have_cache)
        res->have_cache = sbio_result_snap_cache(r->fs, &res->cache1);
    res->user_s = tv_s(ru0.ru_utime, ru1.ru_utime);
    res->sys_s = tv_s(ru0.ru_stime, ru1.ru_stime);
    res->stop_signal = sbio_stop_requested();
    res->minor_faults = (uint64_t)(ru1.ru_minflt - ru0.ru_minflt);
    res->major_faults = (uint64_t)(ru1.ru_majflt - ru0.ru_majflt);
    res->elapsed_ns = sbio_now_ns() - start_ns; /* unless the threads' stamps say better */
}

/* The threads' figures into the result, after join. */
static void run_collect(struct run *r, struct sbio_run_result *res)
{
    uint64_t dsum = 0, dn = 0;
    sbio_stats_init(&res->total);
    for (unsigned i = 0; i < r->nthreads; i++) {
        const struct worker *w = &r->w[i];
        dsum += w->depth_sum;
        dn += w->depth_samples;
        res->depth_max = w->depth_max > res->depth_max ? w->depth_max : res->depth_max;
        sbio_stats_merge(&res->total, &res->per_thread[i]);
        if (w->verify_msg[0] && !res->verify_msg[0])
            snprintf(res->verify_msg, sizeof(res->verify_msg), "%s", w->verify_msg);
        if (w->err && !res->error) {
            res->error = w->err;
            snprintf(res->error_msg, sizeof(res->error_msg), "%s", w->err_msg);
        }
    }
    res->depth_avg = dn ? (double)dsum / (double)dn : 0;
    if (res->total.start_ns != UINT64_MAX && res->total.end_ns > res->total.start_ns)
        res->elapsed_ns = res->total.end_ns - res->total.start_ns;
}

/* What the run holds, freed however it ended. */
static void run_free(struct run *r, unsigned nworkers)
{
    for (unsigned i = 0; r->w && i < nworkers; i++) {
        struct worker *w = &r->w[i];
        if (w->eng_priv)
            r->eng->cleanup(w->eng_priv);
        sbio_wl_fini(&w->wl);
        free(w->files);
        free(w->buf);
        free(w->ios);
        free(w->busy);
    }
    free(r->w);
    sbio_layout_free(&r->lay);
    sbio_verify_map_free(&r->vmap);
    free(r->cpus);
}

/* Every check that needs no thread, then the run's memory. 0, -SBIO_EUSAGE or -errno. */
static int run_setup(struct run *r, struct sbio_run_result *res)
{
    uint64_t direct_align;
    r->eng = sbio_engine_find(r->job->engine);
    if (!r->eng) {
        sbio_err("--ioengine=%s: not available in this build", sbio_engine_name(r->job->engine));
        return -SBIO_EUSAGE;
    }
    int rc = run_check_cpus(r);
    if (!rc)
        rc = run_check_flags(r, &direct_align);
    if (rc)
        return rc;
    res->ncpus = (unsigned)r->ncpus;
    res->direct_align = direct_align;
    if ((rc = run_layout(r, direct_align, res)) || (rc = run_verify_setup(r)))
        return rc;
    run_limits(r, res);
    r->w = calloc(r->nthreads, sizeof(*r->w));
    res->per_thread =
        aligned_alloc(64, (sizeof(struct sbio_stats) * r->nthreads + 63) & ~(size_t)63);
    if (!r->w || !res->per_thread)
        return -ENOMEM;
    for (unsigned i = 0; i < r->nthreads; i++)
        if ((rc = run_worker_init(r, i, res)))
            return rc;
    /* The null engine writes nothing: truncating (and completing) would punch a hole of
     * zeros into a real set. */
    r->seqwr = r->job->mode == SBIO_MODE_SEQWR && !r->job->mix && !r->job->hook &&
               !(r->eng->flags & SBIO_ENG_NO_IO) && !r->fs->raw;
    if (r->seqwr && !r->env->created && (rc = sbio_fileset_mark(r->fs, false)))
        return rc;
    if (r->seqwr && !r->warmup && (rc = run_truncate(r)))
        return rc;
    return 0;
}

static int runner_run(const struct sbio_job *job, const struct sbio_runner_env *env,
                      struct sbio_run_result *res)
{
    struct run r = {
        .job = job, .env = env, .fs = env->fs, .nthreads = job->threads, .sync = env->sync};
    memset(res, 0, sizeof(*res));
    res->threads = r.nthreads;
    int rc = run_setup(&r, res);
    if (rc) {
        run_free(&r, res->threads);
        free(res->per_thread);
        res->per_thread = NULL;
        return rc;
    }
    run_start(&r, res);
    gate_wait(&r.barrier); /* all threads have opened their files */
    run_agree(&r);         /* every process has: warm-up or run may start */
    if (r.warmup)
        run_warmup(&r, res);
    run_measured(&r, res);
    run_collect(&r, res);
    if (r.seqwr || env->created) {
        /* A set created for this run by the null engine is still empty: fill it all. */
        int crc = r.seqwr ? run_complete_seqwr(&r, &res->completed_bytes)
                          : sbio_fileset_complete(r.fs, &res->completed_bytes);
        if (crc && !res->error) {
            res->error = crc;
            snprintf(res->error_msg, sizeof(res->error_msg),
                     "completing the set after seqwr failed (see above)");
        }
    }
    gate_destroy(&r.barrier);
    run_free(&r, res->threads);
    return 0;
}

int sbio_runner_run(const struct sbio_job *job, const struct sbio_runner_env *env,
                    struct sbio_run_result *res)
{
    int rc = runner_run(job, env, res);
    /* Once its threads are started runner_run meets the others and returns 0; a process that
     * could not start them still meets them once, so that none waits for it. */
    if (env->sync && rc)
        env->sync->agree(env->sync->ctx, rc);
    return rc;
}
