/* The worker threads: the hot loops of synchronous and queued engines, sharing one set of
 * steps (draw within the budget, start with --verify's stamp, finish, think), and how a
 * failure is named. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "cgroup.h"
#include "ioprio.h"
#include "probe.h"
#include "result.h"
#include "util.h"
#include "vocab.h"

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
    if (w->wl.fsop) { /* a tree job: the call and the path that failed */
        w->err = io->res < 0 ? (int)io->res : -EIO;
        sbio_fsop_error(w->wl.fsop, io, w->err_msg, sizeof(w->err_msg));
        worker_stop_failed(w);
        return;
    }
    const char *name = run_file_label(w->run, io->file, lbl, sizeof(lbl));
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
                 run_file_label(w->run, file, lbl, sizeof(lbl)), off, sbio_verify_strerror(e), file,
                 wg, got->file, got->offset, got->gen);
    }
    if (w->run->job->verify_fatal)
        __atomic_store_n(&w->run->stop, 1, __ATOMIC_RELAXED);
}

/* --verify with a queued engine: an io on a block range this thread has in flight waits. */
static bool verify_overlaps(const struct worker *w, const struct sbio_io *io)
{
    /* One slot (iodepth 1): nothing else can be in flight. */
    if (io->op == SBIO_FSYNC || !w->busy)
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
static bool sleep_until(struct run *r, uint64_t deadline_ns)
{
    for (;;) {
        uint64_t now = sbio_now_ns();
        run_check_end(r, now);
        if (run_stopped(r))
            return false;
        if (now >= deadline_ns)
            return true;
        uint64_t until = deadline_ns - now > POLL_NS ? now + POLL_NS : deadline_ns;
        struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ULL),
                              .tv_nsec = (long)(until % 1000000000ULL)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
}

/* The steps every worker loop shares, synchronous or queued. They are the hot path: inlined
 * into both loops (a call each cost about 10 instructions of the null engine's ~260 per op). */
#define HOT static inline __attribute__((always_inline))

/* invalidate = "pass": the pages of io's file (SBIO_IO_DROP: a sequential pass over it
 * starts), or of every file of the job's (SBIO_IO_DROP_ALL: a pass of the once order starts),
 * dropped before io is issued: before its start time is taken. As fio, a failed drop is not
 * an error (the file is read from the cache then); each drop done is counted. */
static __attribute__((noinline)) void worker_drop(struct worker *w, struct sbio_io *io)
{
    struct run *r = w->run;
    unsigned first = io->file, last = io->file;
    if (io->flags & SBIO_IO_DROP_ALL) {
        first = 0;
        last = r->lay.nfiles ? r->lay.nfiles - 1 : 0;
    }
    for (unsigned f = first; f <= last && f < r->lay.nfiles; f++) {
        if (!sbio_layout_has(&r->lay, f) || w->files[f].fd < 0)
            continue;
        int rc = (io->flags & SBIO_IO_DROP) && r->eng->drop
                     ? r->eng->drop(w->eng_priv, &w->files[f])
                     : sbio_cache_advise(w->files[f].fd, POSIX_FADV_DONTNEED);
        if (!rc)
            __atomic_fetch_add(&r->pass_drops, 1, __ATOMIC_RELAXED);
    }
    io->flags &= ~(SBIO_IO_DROP | SBIO_IO_DROP_ALL);
}

/* Draw the thread's next operation into io, within the event budget. 1: an op (2: after
 * worker_drop dropped pages for it: its start time is to be taken after that); 0: the end
 * (budget spent, or the stream ended); -1: a script's event() failed (the run stops with its
 * message, the traceback is printed). */
HOT int worker_draw(struct worker *w, struct sbio_io *io, bool budget)
{
    if (budget && !w->local_budget && !claim_events(w))
        return 0;
    int got = sbio_wl_next(&w->wl, io);
    if (got < 0) {
        w->err = -EINVAL;
        w->err_kind = w->wl.sh->hook ? SBIO_ERROR_SCRIPT : SBIO_ERROR_IO;
        snprintf(w->err_msg, sizeof(w->err_msg), "%.300s", w->wl.hook_err);
        run_halt(w->run, true);
        return -1;
    }
    /* Under --max-requests (sysbench 0.4's count) an fsync spends no event. */
    if (got && budget && !(io->op == SBIO_FSYNC && w->run->job->events_rw))
        w->local_budget--;
    if (got > 0 && (io->flags & (SBIO_IO_DROP | SBIO_IO_DROP_ALL))) {
        worker_drop(w, io);
        return 2;
    }
    return got;
}

/* The io starts now (or at its --rate slot): writes carry --verify's stamp; a
 * read-modify-write starts with its read. */
HOT void worker_start_io(struct worker *w, struct sbio_io *io, uint64_t start_ns)
{
    io->start_ns = start_ns;
    if (io->op == SBIO_RMW) {
        io->op = SBIO_READ;
        io->flags |= SBIO_IO_RMW;
    } else if (w->run->verify && io->op == SBIO_WRITE) {
        sbio_verify_map_stamp(&w->run->vmap, io->buf, io->file, io->offset, io->len);
    }
}

/* --verify: check every block a read brought in. */
HOT void worker_check_read(struct worker *w, const struct sbio_io *io)
{
    sbio_verify_map_check(&w->run->vmap, io->buf, io->file, io->offset, (uint64_t)io->res,
                          &w->stats->verify_checked, worker_verify_bad, w);
}

/* A read-modify-write's read came back whole: checked under --verify, changed, and turned
 * into the write back of the same buffer at the same offset, to be issued next. The change
 * is bonnie++'s rewrite's: one byte per request, its chunk k incrementing byte k modulo the
 * chunk size (k: the request's place in the file); under --verify the write's stamp (a new
 * generation and CRC) is the change. false: io is no such read, or the read failed
 * (worker_finish reports it). */
HOT bool worker_rmw_turn(struct worker *w, struct sbio_io *io)
{
    if (!(io->flags & SBIO_IO_RMW) || io->op != SBIO_READ || !io_ok(io))
        return false;
    if (w->run->verify) {
        worker_check_read(w, io);
        sbio_verify_map_stamp(&w->run->vmap, io->buf, io->file, io->offset, io->len);
    } else if (io->len) {
        ((unsigned char *)io->buf)[io->offset / io->len % io->len]++;
    }
    io->op = SBIO_WRITE;
    return true;
}

/* A completed io (any engine): checked, recorded, accounted. false when it failed (the run
 * is stopping). */
HOT bool worker_finish(struct worker *w, struct sbio_io *io, uint64_t end_ns, bool measure)
{
    if (!io_ok(io)) {
        if (!w->err)
            worker_fail(w, io);
        return false;
    }
    struct sbio_stats *st = w->stats;
    if (io->flags & SBIO_IO_RMW)
        io->op = SBIO_RMW; /* its write back is done: one event, from the read's start */
    else if (w->run->verify && io->op == SBIO_READ)
        worker_check_read(w, io);
    if (measure) {
        sbio_stats_record_io(st, io, end_ns - io->start_ns);
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

    int got;
    while (!run_stopped(r) && (got = worker_draw(w, &io, budget)) > 0) {
        if (got == 2)
            t = sbio_now_ns(); /* the drop is no part of the request's latency */
        if (interval) {
            if (t < next_start && !sleep_until(r, next_start)) {
                /* Drawn and never issued: seqwr's completion must not skip it. */
                w->lost_write = io.op == SBIO_WRITE;
                break;
            }
            t = next_start;
            next_start += interval;
        }
        worker_start_io(w, &io, t);
        r->eng->queue(w->eng_priv, w->files, &io);
        if (worker_rmw_turn(w, &io))
            r->eng->queue(w->eng_priv, w->files, &io);
        uint64_t t2 = sbio_now_ns();
        if (!worker_finish(w, &io, t2, measure))
            break;
        run_check_end(r, t2);
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

/* A read-modify-write whose read completed goes back to the engine as its write, still in
 * flight in the same slot (--verify's overlap rule keeps covering it). true: requeued. The
 * engine has room: its slot was taken by that read until now. */
static bool q_rmw_requeue(struct qloop *q, struct sbio_io *io)
{
    struct worker *w = q->w;
    if (!worker_rmw_turn(w, io))
        return false;
    if (w->run->eng->queue(w->eng_priv, w->files, io) == SBIO_Q_QUEUED)
        return true;
    io->res = -EAGAIN; /* refused all the same: the write fails, named as such */
    return false;
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
    run_check_end(r, t);
    for (int i = 0; i < n; i++) {
        struct sbio_io *io = q->done[i];
        uint64_t end = t;
        if (q_rmw_requeue(q, io))
            continue;
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
    w->lost_write = q.held && q.held->op == SBIO_WRITE;
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
    sbio_stats_begin_end_syncs(w->stats);
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

/* The job's I/O priority on this thread, before the start gate: the kernel keeps it per
 * thread (pthreads share no io_context), so the main thread cannot set it for the workers.
 * What the kernel then reports is kept; anything else than what was asked fails the run. */
static void worker_ioprio(struct worker *w)
{
    int want = w->run->job->ioprio;
    pid_t tid = gettid();
    char a[24], b[24];
    int rc = sbio_ioprio_set_thread(tid, want);
    if (!rc)
        rc = sbio_ioprio_get_thread(tid, &w->ioprio);
    if (rc)
        snprintf(w->err_msg, sizeof(w->err_msg), "thread %u (tid %d): I/O priority %s: %s", w->id,
                 (int)tid, sbio_ioprio_name(a, sizeof(a), want), strerror(-rc));
    else if (w->ioprio != want)
        snprintf(w->err_msg, sizeof(w->err_msg),
                 "thread %u (tid %d): I/O priority %s set, but the kernel reports %s", w->id,
                 (int)tid, sbio_ioprio_name(a, sizeof(a), want),
                 sbio_ioprio_name(b, sizeof(b), w->ioprio));
    if (!rc && w->ioprio != want)
        rc = -EIO;
    w->err = rc;
}

/* cgroup v1: the thread moves itself into the job's group (its tid into `tasks`), before the
 * start gate; the kernel charges its I/O to the group from then on. */
static void worker_group(struct worker *w)
{
    const struct sbio_cgroup_job *g = w->run->group;
    int rc = sbio_cgroup_enter_thread(g->dir, 0);
    if (rc) {
        snprintf(w->err_msg, sizeof(w->err_msg),
                 "thread %u (tid %d): entering the group %.200s: %s", w->id, (int)gettid(), g->dir,
                 strerror(-rc));
        w->err = rc;
    }
}

/* Set the thread's I/O priority and group, pin it, open the set, let the engine register
 * files and buffers. */
static void worker_open(struct worker *w)
{
    struct run *r = w->run;
    if (r->job->ioprio != SBIO_IOPRIO_NONE)
        worker_ioprio(w);
    if (!w->err && r->group && r->group->version == SBIO_CGROUP_V1)
        worker_group(w);
    if (w->cpu >= 0 && !w->err) {
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
    /* Every thread opens its own descriptors where it can: a shared one is a shared
     * reference count the kernel bumps on each call, which costs scaling. */
    if (r->shared)
        memcpy(w->files, r->shared, r->lay.nfiles * sizeof(*w->files));
    unsigned own = r->shared ? 0 : r->lay.nfiles;
    for (unsigned i = 0; i < own && !w->err; i++) {
        if (!sbio_layout_has(&r->lay, i))
            continue; /* not the job's: never opened */
        w->files[i].size = r->lay.size[i];
        int rc = r->eng->open_file(w->eng_priv, &w->files[i], r->fs->dirfd, r->fs->files[i].name,
                                   r->oflags);
        if (!rc)
            rc = sbio_cache_advise(w->files[i].fd, r->fadv); /* --fadvise */
        if (rc) {
            w->err = rc;
            char lbl[PATH_MAX + 300];
            snprintf(w->err_msg, sizeof(w->err_msg), "%.200s: open: %s",
                     run_file_label(r, i, lbl, sizeof(lbl)), strerror(-rc));
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

/* With a time limit, the phase's end: the earliest start among the threads' plus the limit
 * (each thread lowers it to its own start's, once). */
static void worker_set_end(struct run *r, uint64_t start_ns)
{
    uint64_t limit = r->job->time_s * 1000000000ULL;
    if (!limit)
        return;
    uint64_t cur = __atomic_load_n(&r->end_ns, __ATOMIC_RELAXED);
    while (start_ns + limit < cur &&
           !__atomic_compare_exchange_n(&r->end_ns, &cur, start_ns + limit, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

/* The calling thread's CPU time, exactly (the scheduler's own count). */
static uint64_t worker_cpu_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
        return 0;
    return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* A worker meets the main thread at the gate between phases: open, (warm-up,) measured. */
void *sbio_worker_main(void *arg)
{
    struct worker *w = arg;
    struct run *r = w->run;

    worker_open(w);
    sbio_gate_wait(&r->barrier); /* all open: main decides to go */
    if (r->warmup) {
        sbio_gate_wait(&r->barrier); /* warm-up starts */
        /* Recorded under --warmup=auto, whose detector reads the counts (they start over
         * after the warm-up). */
        if (!run_failed(r))
            worker_loop_any(w, r->job->warmup_auto);
        sbio_gate_wait(&r->barrier); /* warm-up over: main truncates for seqwr */
    }
    sbio_gate_wait(&r->barrier); /* measured phase starts */
    if (!run_failed(r)) {
        uint64_t start = sbio_now_ns();
        __atomic_store_n(&w->stats->start_ns, start, __ATOMIC_RELAXED);
        worker_set_end(r, start);
        getrusage(RUSAGE_THREAD, &w->usage->ru0);
        w->usage->cpu0_ns = worker_cpu_ns();
        worker_loop_any(w, true);
        if (!run_failed(r))
            worker_end_fsyncs(w);
        w->usage->cpu1_ns = worker_cpu_ns();
        getrusage(RUSAGE_THREAD, &w->usage->ru1);
        w->usage->taken = true;
        __atomic_store_n(&w->stats->end_ns, sbio_now_ns(), __ATOMIC_RELAXED);
    }
    if (w->wl.fsop) /* a tree job's current file: closed, not an operation */
        sbio_fsop_end(w->wl.fsop);
    for (unsigned i = 0; i < r->lay.nfiles && !r->shared; i++)
        if (w->files[i].fd >= 0 ||
            ((r->eng->flags & SBIO_ENG_NO_IO) && sbio_layout_has(&r->lay, i)))
            r->eng->close_file(w->eng_priv, &w->files[i]);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}
