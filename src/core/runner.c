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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "engine.h"
#include "worker.h"
#include "fill.h"
#include "fsop.h"
#include "ioprio.h"
#include "prepare.h"
#include "vocab.h"
#include "seqwr.h"
#include "steady.h"
#include "util.h"
#include "verify.h"

void sbio_gate_init(struct gate *g, unsigned parties)
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

void sbio_gate_wait(struct gate *g)
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

void sbio_gate_shrink(struct gate *g, unsigned parties)
{
    pthread_mutex_lock(&g->m);
    g->parties = parties;
    if (g->waiting && g->waiting >= parties)
        gate_release_locked(g);
    pthread_mutex_unlock(&g->m);
}

void sbio_gate_destroy(struct gate *g)
{
    pthread_mutex_destroy(&g->m);
    pthread_cond_destroy(&g->c);
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

/* Mark the sequential requests [a, b) of a seqwr run as not written: each file they reach
 * is to be written from the first of them on (a later slice another thread wrote in the
 * same file is written again: the same content, and no hole is left). */
static void run_seqwr_unreached(struct run *r, uint64_t a, uint64_t b)
{
    if (a >= b)
        return;
    unsigned f, last;
    uint64_t off, off2;
    uint32_t len, len2;
    sbio_layout_seq(&r->lay, a, &f, &off, &len);
    sbio_layout_seq(&r->lay, b - 1, &last, &off2, &len2);
    struct sbio_fileset_file *file = &r->fs->files[f];
    if (file->size - off > file->unwritten)
        file->unwritten = file->size - off;
    for (unsigned g = f + 1; g <= last; g++)
        r->fs->files[g].unwritten = r->fs->files[g].size;
}

/* The end of a seqwr run. A run that ended before the set was whole again (time, events, a
 * signal) leaves the rest for the next command: the manifest says what each file lacks,
 * and the next run (or prepare) writes it before it starts, so that this run ends when its
 * limit says and no later run reads a hole. A write drawn and never issued (a thread that
 * waited for its --rate slot, a full queue) is left to write with the rest of its file. A
 * failed run's writes are
 * not all on disk: everything is written again now. A run that made the set whole is marked
 * complete. 0 or -errno (said). */
static int run_end_seqwr(struct run *r, struct sbio_run_result *res)
{
    struct sbio_fileset *fs = r->fs;
    if (run_failed(r)) {
        int rc = sbio_seqwr_fill(fs, &r->lay, 0, r->lay.seq_units, &res->completed_bytes);
        if (!rc) {
            uint64_t more;
            rc = sbio_fileset_complete(fs, &more); /* skipped tails, fsync, manifest complete */
            res->completed_bytes += more;
        }
        return rc;
    }
    for (unsigned i = 0; i < fs->nfiles; i++)
        fs->files[i].unwritten = 0;
    for (unsigned t = 0; t < r->nthreads; t++)
        if (r->w[t].lost_write)
            run_seqwr_unreached(r, r->w[t].wl.last_unit, r->w[t].wl.last_unit + 1);
    if (r->sh.seq_stream == SBIO_SEQ_PER_THREAD) {
        for (unsigned t = 0; t < r->nthreads; t++) {
            const struct sbio_wl *wl = &r->w[t].wl;
            uint64_t done = wl->slice_pos < wl->slice_units ? wl->slice_pos : wl->slice_units;
            run_seqwr_unreached(r, wl->slice_first + done, wl->slice_first + wl->slice_units);
        }
    } else {
        uint64_t done = __atomic_load_n(&r->sh.seq_next, __ATOMIC_RELAXED);
        run_seqwr_unreached(r, done < r->lay.seq_units ? done : r->lay.seq_units, r->lay.seq_units);
    }
    res->left_bytes = sbio_fileset_unwritten(fs);
    if (res->left_bytes)
        return sbio_fileset_mark(fs, false);
    uint64_t more;
    int rc = sbio_fileset_complete(fs, &more); /* skipped tails, fsync, manifest complete */
    res->completed_bytes = more;
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
    r->oflags =
        (sbio_job_writes(job) ? O_RDWR : O_RDONLY) | sbio_extra_sync_oflags(job->extra_flags);
    if (!(job->extra_flags & SBIO_XF_DIRECT))
        return 0;
    if (r->eng->flags & SBIO_ENG_NO_DIRECT) {
        char names[128];
        sbio_err(
            "--file-extra-flags=direct: the %s engine cannot do O_DIRECT (it goes "
            "through the page cache); accepted engines: %s",
            r->eng->name,
            sbio_engine_names(names, sizeof(names), ", ", SBIO_ENG_NO_DIRECT | SBIO_ENG_NO_IO));
        return -SBIO_EUSAGE;
    }
    if (r->eng->flags & SBIO_ENG_NO_IO)
        return 0;
    r->oflags |= O_DIRECT;
    *direct_align = sbio_direct_alignment(r->fs->dirfd, r->fs->files[0].name, r->env->target);
    if (job->block_size % *direct_align) {
        char b[32], a[32];
        sbio_fmt_bytes(b, sizeof(b), job->block_size);
        sbio_fmt_bytes(a, sizeof(a), *direct_align);
        sbio_err("%s=%s is not a multiple of %s, the O_DIRECT alignment of %s; accepted: "
                 "multiples of %s",
                 job->block_what, b, a, r->fs->dir, a);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* The layout of a job on some of the set's files (job->frange_*: ranges the declaration
 * checked against the set). 0 or -ENOMEM. */
static int run_layout_only(struct run *r, const uint64_t *sizes, uint64_t direct_align)
{
    const struct sbio_job *job = r->job;
    unsigned n = r->fs->nfiles;
    unsigned char *in = calloc(n ? n : 1, 1);
    if (!in)
        return -ENOMEM;
    for (unsigned k = 0; k < job->nfrange; k++)
        for (uint64_t f = job->frange_first[k]; f <= job->frange_last[k] && f < n; f++)
            in[f] = 1;
    int rc = sbio_layout_init_only(&r->lay, n, sizes, in, job->block_size, sbio_job_merged(job),
                                   direct_align);
    free(in);
    return rc;
}

/* A mix's appends: each of the job's files' end as it is now (an earlier phase's appends
 * included), where the first append to it writes. 0, -ENOMEM or -errno (message printed). */
static int run_append_ends(struct run *r)
{
    r->append_end = calloc(r->lay.nfiles ? r->lay.nfiles : 1, sizeof(uint64_t));
    if (!r->append_end)
        return -ENOMEM;
    for (unsigned i = 0; i < r->lay.nfiles; i++) {
        struct stat st;
        if (!sbio_layout_has(&r->lay, i))
            continue;
        if (fstatat(r->fs->dirfd, r->fs->files[i].name, &st, AT_SYMLINK_NOFOLLOW)) {
            int e = errno;
            char lbl[PATH_MAX + 300];
            sbio_err("%.200s: stat: %s", run_file_label(r, i, lbl, sizeof(lbl)), strerror(e));
            return -e;
        }
        r->append_end[i] = (uint64_t)st.st_size;
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
    int rc = job->nfrange ? run_layout_only(r, sizes, direct_align)
                          : sbio_layout_init(&r->lay, fs->nfiles, sizes, job->block_size,
                                             sbio_job_merged(job), direct_align);
    free(sizes);
    /* A mix's appends (on a flat set: a tree job has no layout). */
    if (!rc && job->mix &&
        job->mix->op_cum[SBIO_MIX_APPEND] > job->mix->op_cum[SBIO_MIX_APPEND - 1])
        rc = run_append_ends(r);
    if (rc)
        return rc;
    r->req = sbio_job_req_bytes(job);
    res->skipped_tails = r->lay.skipped_tails;
    res->skipped_bytes = r->lay.skipped_bytes;
    if (job->file_rr && !r->lay.rr_units) {
        sbio_err("file_service = \"roundrobin\": the job's files have different numbers of "
                 "requests of %" PRIu64 " bytes; accepted: files of one size",
                 r->lay.req);
        return -SBIO_EUSAGE;
    }
    /* No whole block anywhere in the set is bad input for every mode: a sequential run
     * would issue nothing but short tails. */
    if (!r->lay.rnd_blocks) {
        char b[32], f[32];
        sbio_err("%s=%s is larger than the files (%s): no whole block to %s", job->block_what,
                 sbio_fmt_bytes(b, sizeof(b), job->block_size),
                 sbio_fmt_bytes_beside(f, sizeof(f), fs->files[0].size, job->block_size),
                 sbio_job_sequential(job) ? "issue" : "draw");
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* --verify: a set prepared for it is checked block by block at its prepared block size; a
 * set prepared without it (as sysbench's --validate allows) has only the blocks this run
 * writes checked, at the run's block size (run_setup makes the map). Random modes need a
 * block per thread at least. 0 or -SBIO_EUSAGE. */
static int run_verify_check(struct run *r, struct sbio_run_result *res)
{
    const struct sbio_job *job = r->job;
    const struct sbio_fileset *fs = r->fs;
    unsigned all = r->env->all_threads;
    if (!job->verify)
        return 0;
    const char *why = fs->raw                            ? "a raw device has no verified blocks"
                      : (r->eng->flags & SBIO_ENG_NO_IO) ? "the null engine reads nothing"
                                                         : NULL;
    if (!why && fs->verify && job->block_size != fs->block_size) {
        char a[32], b[32];
        sbio_err("--verify: %s=%s but the set's blocks are %s (verification works at the "
                 "prepared block size)",
                 job->block_what, sbio_fmt_bytes(a, sizeof(a), job->block_size),
                 sbio_fmt_bytes(b, sizeof(b), fs->block_size));
        return -SBIO_EUSAGE;
    }
    if (!why && !sbio_job_sequential(job) && r->lay.rnd_blocks < (all ? all : job->threads))
        why = "fewer blocks than threads (each thread owns its blocks)";
    if (why) {
        sbio_err("--verify: %s", why);
        return -SBIO_EUSAGE;
    }
    r->verify = true;
    res->verify_written_only = !fs->verify;
    return 0;
}

/* The generators' shared state and the run's limits. */
static void run_limits(struct run *r, struct sbio_run_result *res)
{
    const struct sbio_job *job = r->job;
    res->seed = job->seed ? job->seed : sbio_mix64(sbio_now_ns() ^ (uint64_t)getpid());
    sbio_wl_shared_init(&r->sh, job, &r->lay, res->seed);
    r->sh.stop = &r->stop;
    r->sh.append_end = r->append_end;
    if (r->env->all_threads) {
        /* One set, threads of others too: threads are numbered across them. */
        r->sh.threads = r->env->all_threads;
        r->first_thread = r->env->first_thread;
        if (sbio_job_sequential(job))
            r->sh.seq_stream = SBIO_SEQ_PER_THREAD;
    }
    r->sh.partition = r->verify;
    r->sh.once_own = r->sh.partition || r->env->all_threads;
    if (r->sh.partition && job->mix) {
        /* Each thread's pattern spans its own blocks (workload.c). */
        r->mix = *job->mix;
        sbio_mix_set_blocks(&r->mix, (r->lay.rnd_blocks + r->sh.threads - 1) / r->sh.threads);
        r->sh.mix = &r->mix;
    }
    if (job->rate)
        r->rate_interval_ns = (uint64_t)(1e9 * (double)r->nthreads / (double)job->rate);
    r->budget = job->events > 0;
    r->budget_left = job->events;
    /* A tree job's threads each own their slots (fsop.h): each does its share of the
     * events on them, as fs_mark's -n is per thread. */
    r->own_budgets =
        r->budget &&
        (job->tree || (sbio_job_sequential(job) && r->sh.seq_stream == SBIO_SEQ_PER_THREAD));
    r->warmup = job->warmup_s > 0 || job->warmup_auto;
}

/* What an engine's init() is told of the run, from the job. */
static struct sbio_engine_params run_engine_params(const struct sbio_job *job)
{
    return (struct sbio_engine_params){.iodepth = (unsigned)job->iodepth,
                                       .datasync = job->fsync_mode == SBIO_FSYNC_FDATASYNC,
                                       .options =
                                           job->engine_opt + sbio_engine_option_base(job->engine),
                                       .direct = (job->extra_flags & SBIO_XF_DIRECT) != 0,
                                       .madvise = sbio_cache_madv(sbio_job_fadvise(job))};
}

/* The engine's state for thread i (the tree engine's: state, the thread's). 0 or -SBIO_EUSAGE
 * (message printed). */
static int run_engine_init(const struct run *r, void **priv, unsigned i, void *state)
{
    struct sbio_engine_params params = run_engine_params(r->job);
    params.thread_state = state;
    int rc = r->eng->init(priv, &params);
    if (!rc)
        return 0;
    *priv = NULL;
    /* No silent fallback to another engine: the comparison would be a lie. */
    if (rc == -ENOSYS || rc == -EPERM || rc == -EACCES)
        sbio_err("--ioengine=%s: the kernel or a security policy refuses it (%s); "
                 "choose another engine",
                 r->eng->name, strerror(-rc));
    else
        sbio_err("--ioengine=%s: setting up thread %u: %s%s", r->eng->name, i, strerror(-rc),
                 rc == -EAGAIN && (r->eng->flags & SBIO_ENG_AIO_MAX_NR)
                     ? " (fs.aio-max-nr is too small for threads x iodepth)"
                     : "");
    return -SBIO_EUSAGE;
}

/* A tree job's thread: its slots among the phase's tree-job threads (numbered as the
 * generators' threads are). 0 or -ENOMEM. */
static int run_worker_tree(struct run *r, struct worker *w)
{
    const struct sbio_job *job = r->job;
    int rc = sbio_fsop_init(&w->fsop, job->tree, &r->mix, w->wl.thread, r->sh.threads, job->phase,
                            r->oflags);
    if (rc)
        return rc;
    w->wl.fsop = &w->fsop;
    w->wl.skipped = &w->stats->skipped;
    return 0;
}

/* Thread i's files, buffers, generator and engine. 0, -ENOMEM or -SBIO_EUSAGE (message
 * printed). */
static int run_worker_init(struct run *r, unsigned i, struct sbio_run_result *res)
{
    struct worker *w = &r->w[i];
    w->run = r;
    w->id = i;
    w->usage = &r->usage[i];
    w->cpu = r->ncpus ? r->cpus[i % (unsigned)r->ncpus] : -1;
    /* Each slice moves its share of the events, as each iozone child moves its file: a
     * shared pool would let the first thread to start take them all. */
    if (r->own_budgets)
        w->local_budget = r->job->events / r->nthreads + (i < r->job->events % r->nthreads);
    w->stats = &res->per_thread[i];
    sbio_stats_init(w->stats);
    w->files = calloc(r->lay.nfiles ? r->lay.nfiles : 1, sizeof(*w->files));
    w->nios = r->eng->flags & SBIO_ENG_SYNC ? 1 : (unsigned)r->job->iodepth;
    w->ios = calloc(w->nios, sizeof(*w->ios));
    if (r->verify && w->nios > 1 && !(w->busy = calloc(w->nios, sizeof(bool))))
        return -ENOMEM;
    if (!w->files || !w->ios || posix_memalign(&w->buf, 4096, r->req * w->nios)) {
        char b[32];
        sbio_err("thread %u: no memory for %u buffer%s of %s", i, w->nios, w->nios == 1 ? "" : "s",
                 sbio_fmt_bytes(b, sizeof(b), r->req));
        return -ENOMEM;
    }
    for (unsigned k = 0; k < w->nios; k++) {
        w->ios[k].slot = k;
        w->ios[k].len = (uint32_t)r->req; /* the buffer's size, for registration */
        w->ios[k].buf = (char *)w->buf + (size_t)k * r->req;
        /* Writes carry the set's fill pattern, varied per thread and slot. */
        sbio_fill_range(r->fs, i * w->nios + k, 0, w->ios[k].buf, r->req);
    }
    for (unsigned f = 0; f < r->lay.nfiles; f++)
        w->files[f].fd = -1;
    int rc = sbio_wl_init(&w->wl, &r->sh, r->first_thread + i);
    if (rc == -EINVAL && w->wl.hook_err[0]) {
        sbio_err("%s", w->wl.hook_err);
        return -SBIO_EUSAGE;
    }
    if (!rc && r->job->tree)
        rc = run_worker_tree(r, w);
    if (rc)
        return rc;
    return run_engine_init(r, &w->eng_priv, i, w->wl.fsop);
}

/* Start the threads, which open the set and wait at the gate. A thread that cannot be
 * started fails the run: the report says so and the exit status is not 0. */
static void run_start(struct run *r, struct sbio_run_result *res)
{
    sbio_gate_init(&r->barrier, r->nthreads + 1);
    /* Workers must not take SIGINT/SIGTERM: the main thread turns them into the stop flag. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    unsigned started = 0;
    int e = 0;
    for (; started < r->nthreads; started++)
        if ((e = pthread_create(&r->w[started].tid, NULL, sbio_worker_main, &r->w[started])))
            break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!e)
        return;
    res->error = -e;
    snprintf(res->error_msg, sizeof(res->error_msg), "pthread_create for thread %u of %u: %s",
             started + 1, r->nthreads, strerror(e));
    __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
    sbio_gate_shrink(&r->barrier, started + 1);
    r->nthreads = started; /* join and merge only what started; cleanup frees all */
}

/* --invalidate: each file of the set written back and its pages dropped, then how much of
 * the set is still resident, measured. Before the warm-up, outside the measured time, as fio
 * does at its job's start; O_DIRECT jobs too (pages cached by an earlier buffered run would
 * serve nothing but would stay in the report's page-cache figures), mmap jobs too (their
 * mappings have no page mapped yet). 0 or -errno (message in res). */
static int run_invalidate(struct run *r, struct sbio_run_result *res)
{
    for (unsigned i = 0; i < r->lay.nfiles; i++) {
        char lbl[PATH_MAX + 300];
        if (!sbio_layout_has(&r->lay, i))
            continue;
        uint64_t bytes = 0;
        int rc =
            sbio_cache_invalidate_at(r->fs->dirfd, r->fs->files[i].name, r->lay.size[i], &bytes);
        if (rc) {
            snprintf(res->error_msg, sizeof(res->error_msg), "--invalidate: %.200s: %s",
                     run_file_label(r, i, lbl, sizeof(lbl)), strerror(-rc));
            return res->error = rc;
        }
        res->invalidated++;
        res->resident_bytes += bytes;
        res->set_bytes += r->lay.size[i];
    }
    return 0;
}

struct sbio_warmup_phase *sbio_warmup_phase_new(unsigned jobs)
{
    struct sbio_warmup_phase *p =
        mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    *p = (struct sbio_warmup_phase){.jobs = jobs};
    return p;
}

void sbio_warmup_phase_release(struct sbio_warmup_phase *p)
{
    if (p)
        __atomic_store_n(&p->go, 1, __ATOMIC_RELEASE);
}

void sbio_warmup_phase_free(struct sbio_warmup_phase *p)
{
    if (p)
        munmap(p, sizeof(*p));
}

/* Operations the threads completed so far (relaxed loads: they are running). */
static uint64_t run_ops_now(const struct run *r)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < r->nthreads; i++) {
        const struct sbio_stats *s = r->w[i].stats;
        for (int op = 0; op < SBIO_OP_NR; op++)
            n += __atomic_load_n(&s->lat[op].count, __ATOMIC_RELAXED);
        n += __atomic_load_n(&s->write_fsyncs, __ATOMIC_RELAXED);
    }
    return n;
}

/* This job's detector says settled (or no longer): the phase's count follows, and when every
 * job is settled at once, all go. */
static void run_phase_settled(struct sbio_warmup_phase *ph, bool settled, bool *counted)
{
    if (settled == *counted)
        return;
    *counted = settled;
    int n = __atomic_add_fetch(&ph->settled, settled ? 1 : -1, __ATOMIC_ACQ_REL);
    if (settled && (unsigned)n >= ph->jobs)
        __atomic_store_n(&ph->go, 1, __ATOMIC_RELEASE);
}

/* --warmup=auto: every second, the throughput of the interval (operations over all threads)
 * into the detector, until it is settled (with the phase's other jobs), --warmup-max, or the
 * run ending otherwise; how it ended goes into res->warmup. */
static void run_warmup_auto(struct run *r, struct sbio_run_result *res)
{
    const struct sbio_job *job = r->job;
    struct sbio_warmup_phase alone = {.jobs = 1};
    struct sbio_warmup_phase *ph = r->env->warmup_phase ? r->env->warmup_phase : &alone;
    struct sbio_steady st;
    struct sbio_steady_fig fig = {0};
    sbio_steady_init(&st, SBIO_WARMUP_WINDOW, job->warmup_tol_pct); /* options checked both */
    const uint64_t sec = 1000000000ULL, cap = job->warmup_max_s * sec;
    uint64_t start = sbio_now_ns(), last = start, next = start + sec, ops0 = 0;
    bool counted = false;
    for (;;) {
        uint64_t now = sbio_now_ns();
        if (__atomic_load_n(&ph->go, __ATOMIC_ACQUIRE) || run_over(r, now, start, cap))
            break;
        if (now >= next) {
            uint64_t ops = run_ops_now(r);
            double dur = (double)(now - last) / 1e9;
            sbio_steady_feed(&st, (double)(now - start) / 1e9, dur, (double)(ops - ops0) / dur);
            ops0 = ops;
            last = now;
            while (next <= now)
                next += sec;
            run_phase_settled(ph, sbio_steady_check(&st, &fig), &counted);
            continue;
        }
        uint64_t wake = next < now + POLL_NS ? next : now + POLL_NS;
        struct timespec ts = {.tv_sec = (time_t)(wake / sec), .tv_nsec = (long)(wake % sec)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    sbio_warmup_phase_release(ph); /* whatever ended it ends the others' */
    res->warmup =
        (struct sbio_warmup_result){.is_auto = true,
                                    .settled = fig.settled,
                                    .measured_from_s = (double)(sbio_now_ns() - start) / 1e9,
                                    .window_s = fig.window_s,
                                    .spread_pct = fig.spread_pct,
                                    .slope_pct_per_s = fig.slope_pct_per_s};
}

/* The warm-up (--warmup-time, or --warmup=auto): the threads run unmeasured (no event
 * budget spent), then their stats start over (and seqwr empties the set again). */
static void run_warmup(struct run *r, struct sbio_run_result *res)
{
    bool budget = r->budget;
    r->budget = false; /* the workers read it after the gate */
    sbio_gate_wait(&r->barrier);
    if (r->job->warmup_auto)
        run_warmup_auto(r, res);
    else
        run_wait(r, sbio_now_ns(), r->job->warmup_s * 1000000000ULL, NULL, res);
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    sbio_gate_wait(&r->barrier); /* workers are out of the warm-up loop */
    r->budget = budget;
    for (unsigned i = 0; i < r->nthreads; i++) {
        sbio_stats_init(r->w[i].stats);
        sbio_wl_once_restart(&r->w[i].wl);
    }
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

/* The measured phase, with the probes' and the CPU figures around it. */
static void run_measured(struct run *r, struct sbio_run_result *res)
{
    const struct sbio_interim *interim = r->env->interim;
    const struct sbio_probe_env penv = {.fs = r->fs,
                                        .target = r->env->target,
                                        .memgroup = r->env->memgroup,
                                        .group = r->env->group,
                                        .threads = r->usage,
                                        .nthreads = r->nthreads};
    struct sbio_probe_snaps snap[2];
    sbio_probes_snap(&snap[0], &penv, NULL);
    sbio_result_snap_sched(res, r->env->target);
    /* Every process starts its clock as it leaves this meeting; durations are measured on
     * each process's own clock, never compared across hosts. */
    run_agree(r);
    /* Only now, every check passed and every thread ready, is the run under way. */
    res->measured = !run_failed(r);
    if (interim && interim->started && res->measured)
        interim->started(interim->ctx);
    sbio_gate_wait(&r->barrier); /* go */
    uint64_t start_ns = first_start(r);
    run_wait(r, start_ns, r->job->time_s * 1000000000ULL, interim, res);
    for (unsigned i = 0; i < r->nthreads; i++)
        pthread_join(r->w[i].tid, NULL);
    run_agree(r); /* every process is out of the measured phase */
    sbio_probes_snap(&snap[1], &penv, &snap[0]);
    sbio_probes_delta(&res->probe, &snap[0], &snap[1], &penv);
    for (unsigned i = 0; i < r->nthreads; i++) {
        const struct sbio_thread_usage *w = &r->usage[i];
        if (!w->taken)
            continue;
        double cpu = (double)(w->cpu1_ns - w->cpu0_ns) / 1e9;
        double u = tv_s(w->ru0.ru_utime, w->ru1.ru_utime),
               s = tv_s(w->ru0.ru_stime, w->ru1.ru_stime);
        if (!(u + s > 0)) { /* no tick in the phase: the thread's split so far */
            u = tv_s((struct timeval){0}, w->ru1.ru_utime);
            s = tv_s((struct timeval){0}, w->ru1.ru_stime);
        }
        double ufrac = u + s > 0 ? u / (u + s) : 0;
        res->user_s += cpu * ufrac;
        res->sys_s += cpu * (1 - ufrac);
    }
    res->stop_signal = sbio_stop_requested();
    res->elapsed_ns = sbio_now_ns() - start_ns; /* unless the threads' stamps say better */
    res->limit_ns = r->job->time_s * 1000000000ULL;
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
            res->error_kind = w->err_kind;
            snprintf(res->error_msg, sizeof(res->error_msg), "%s", w->err_msg);
        }
    }
    res->depth_avg = dn ? (double)dsum / (double)dn : 0;
    res->pass_drops = __atomic_load_n(&r->pass_drops, __ATOMIC_RELAXED);
    /* Every thread read back the job's priority, or the run failed naming the one that did
     * not: the first thread's is the run's. */
    res->ioprio = r->job->ioprio && r->nthreads ? r->w[0].ioprio : SBIO_IOPRIO_NONE;
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
        if (w->wl.fsop)
            sbio_fsop_fini(w->wl.fsop);
        sbio_wl_fini(&w->wl);
        free(w->files);
        free(w->buf);
        free(w->ios);
        free(w->busy);
    }
    free(r->w);
    free(r->usage);
    for (unsigned i = 0; r->shared && i < r->lay.nfiles; i++)
        if (r->shared[i].fd >= 0)
            r->eng->close_file(NULL, &r->shared[i]);
    free(r->shared);
    free(r->append_end);
    sbio_layout_free(&r->lay);
    sbio_verify_map_free(&r->vmap);
    free(r->cpus);
}

/* A tree job's checks and limits: the tree engine (fsop.h), the job's sync flags, no set and
 * no layout; its pattern set up for a thread's slots. 0 or -SBIO_EUSAGE (message printed). */
static int run_checks_tree(struct run *r, struct sbio_run_result *res)
{
    const struct sbio_job *job = r->job;
    r->eng = sbio_engine_find(sbio_engine_with(SBIO_ENG_FSOPS));
    int rc = run_check_cpus(r);
    if (!rc)
        rc = sbio_ioprio_check(job->ioprio);
    if (rc)
        return rc;
    res->ncpus = (unsigned)r->ncpus;
    r->oflags = sbio_extra_sync_oflags(job->extra_flags);
    r->fadv = -1;
    r->req = sbio_mix_max_len(job->mix);
    run_limits(r, res);
    r->mix = *job->mix;
    sbio_mix_set_blocks(&r->mix, (job->tree->files + r->sh.threads - 1) / r->sh.threads);
    r->sh.mix = &r->mix;
    return 0;
}

/* Every check that needs no thread and no I/O (run_limits included). 0, -SBIO_EUSAGE
 * (message printed) or -ENOMEM. */
static int run_checks(struct run *r, struct sbio_run_result *res)
{
    uint64_t direct_align;
    if (r->job->tree)
        return run_checks_tree(r, res);
    r->eng = sbio_engine_find(r->job->engine);
    if (!r->eng) {
        sbio_err("--ioengine=%s: not available in this build", sbio_engine_name(r->job->engine));
        return -SBIO_EUSAGE;
    }
    int rc = run_check_cpus(r);
    if (!rc)
        rc = sbio_ioprio_check(r->job->ioprio); /* before the first worker would refuse it */
    if (!rc)
        rc = run_check_flags(r, &direct_align);
    if (rc)
        return rc;
    res->ncpus = (unsigned)r->ncpus;
    res->direct_align = direct_align;
    r->fadv = sbio_cache_fadv(sbio_job_fadvise(r->job));
    if ((rc = run_layout(r, direct_align, res)) || (rc = run_verify_check(r, res)))
        return rc;
    run_limits(r, res);
    if (sbio_job_sequential(r->job) && r->sh.seq_stream == SBIO_SEQ_PER_THREAD &&
        r->lay.seq_units < r->sh.threads) {
        char b[32];
        sbio_err("--seq-stream=per-thread: %u threads but the set has only %" PRIu64
                 " request%s of %s; use fewer threads or a smaller block",
                 r->sh.threads, r->lay.seq_units, r->lay.seq_units == 1 ? "" : "s",
                 sbio_fmt_bytes(b, sizeof(b), r->lay.req));
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* --file-extra-flags and the like apply to shared descriptors as to a thread's own. An engine
 * that maps the files (mmap) maps each once, with a state of its own for the opening (the
 * mappings' access hint is in it), dropped once they are open: a mapping needs no engine
 * state to be used or unmapped. */
static int run_open_shared(struct run *r)
{
    r->shared = calloc(r->lay.nfiles, sizeof(*r->shared));
    if (!r->shared)
        return -ENOMEM;
    for (unsigned i = 0; i < r->lay.nfiles; i++)
        r->shared[i].fd = -1;
    void *priv = NULL;
    int rc = r->eng->flags & SBIO_ENG_MAPS ? run_engine_init(r, &priv, 0, NULL) : 0;
    for (unsigned i = 0; i < r->lay.nfiles && !rc; i++) {
        if (!sbio_layout_has(&r->lay, i))
            continue;
        r->shared[i].size = r->lay.size[i];
        rc = r->eng->open_file(priv, &r->shared[i], r->fs->dirfd, r->fs->files[i].name, r->oflags);
        if (!rc)
            rc = sbio_cache_advise(r->shared[i].fd, r->fadv);
        if (rc) {
            char lbl[PATH_MAX + 300];
            sbio_err("%.200s: open: %s", run_file_label(r, i, lbl, sizeof(lbl)), strerror(-rc));
        }
    }
    if (priv)
        r->eng->cleanup(priv);
    return rc;
}

/* Every check, then the run's memory (--verify's map, the threads' buffers and, when the
 * threads share them, the descriptors).
 * 0, -SBIO_EUSAGE or -errno. */
static int run_setup(struct run *r, struct sbio_run_result *res)
{
    const struct sbio_fileset *fs = r->fs;
    int rc = run_checks(r, res);
    if (!rc && r->verify)
        rc = sbio_verify_map_init(&r->vmap, fs->nfiles, r->lay.size,
                                  fs->verify ? fs->block_size : r->job->block_size, fs->seed,
                                  !fs->verify);
    if (rc)
        return rc;
    r->w = calloc(r->nthreads, sizeof(*r->w));
    r->usage = calloc(r->nthreads, sizeof(*r->usage));
    res->per_thread =
        aligned_alloc(64, (sizeof(struct sbio_stats) * r->nthreads + 63) & ~(size_t)63);
    if (!r->w || !r->usage || !res->per_thread)
        return -ENOMEM;
    if (r->env->share_fds && (r->eng->flags & SBIO_ENG_SHARED_FD) && (rc = run_open_shared(r)))
        return rc;
    res->fds_shared = r->shared != NULL;
    for (unsigned i = 0; i < r->nthreads; i++)
        if ((rc = run_worker_init(r, i, res)))
            return rc;
    /* The null engine writes nothing: truncating (and completing) would punch a hole of
     * zeros into a real set. */
    r->seqwr = r->job->mode == SBIO_MODE_SEQWR && !r->job->mix && !r->job->hook &&
               !(r->eng->flags & SBIO_ENG_NO_IO) && !r->fs->raw;
    /* Emptied, the set is short until this run rewrites it: a kill leaves it marked so,
     * every file to be written again by the next command. */
    if (r->seqwr) {
        r->fs->seqwr_short = true;
        for (unsigned i = 0; i < r->fs->nfiles; i++)
            r->fs->files[i].unwritten = r->fs->files[i].size;
        if ((rc = sbio_fileset_mark(r->fs, false)))
            return rc;
    }
    if (r->seqwr && !r->warmup && (rc = run_truncate(r)))
        return rc;
    return 0;
}

/* A run of job on env, before its set-up: no time limit yet (each worker sets it as it
 * starts measuring). */
static struct run run_of(const struct sbio_job *job, const struct sbio_runner_env *env)
{
    return (struct run){.job = job,
                        .env = env,
                        .group = env->group,
                        .fs = env->fs,
                        .nthreads = job->threads,
                        .sync = env->sync,
                        .end_ns = UINT64_MAX};
}

static int runner_run(const struct sbio_job *job, const struct sbio_runner_env *env,
                      struct sbio_run_result *res)
{
    struct run r = run_of(job, env);
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
    sbio_gate_wait(&r.barrier); /* all threads have opened their files */
    const struct sbio_interim *in = env->interim;
    int yrc = !run_failed(&r) && in && in->ready ? in->ready(in->ctx) : 0;
    if (yrc) {
        res->error = yrc; /* its message is printed */
        run_halt(&r, true);
    }
    if (job->invalidate && !run_failed(&r) && !(r.eng->flags & SBIO_ENG_NO_IO) &&
        run_invalidate(&r, res))
        run_halt(&r, true);
    run_agree(&r); /* every process has: warm-up or run may start */
    if (r.warmup)
        run_warmup(&r, res);
    run_measured(&r, res);
    run_collect(&r, res);
    if (r.seqwr || env->created) {
        /* A set created for this run by the null engine is still empty: fill it all. */
        int crc =
            r.seqwr ? run_end_seqwr(&r, res) : sbio_fileset_complete(r.fs, &res->completed_bytes);
        if (crc && !res->error) {
            res->error = crc;
            snprintf(res->error_msg, sizeof(res->error_msg),
                     "completing the set after seqwr failed (see above)");
        }
    }
    sbio_gate_destroy(&r.barrier);
    run_free(&r, res->threads);
    return 0;
}

void sbio_runner_fds(const struct sbio_job *job, unsigned nfiles, uint64_t *own, uint64_t *shared)
{
    const struct sbio_engine_ops *eng = sbio_engine_find(job->engine);
    unsigned files = eng && (eng->flags & SBIO_ENG_NO_IO) ? 0 : nfiles;
    if (job->tree) { /* a tree job's thread: its current file and a folder it lists */
        *own = (uint64_t)job->threads * 2;
        *shared = 0;
        return;
    }
    uint64_t per_thread = eng ? eng->thread_fds : 0;
    *own = (uint64_t)job->threads * (files + per_thread);
    *shared = eng && (eng->flags & SBIO_ENG_SHARED_FD) ? files + job->threads * per_thread : 0;
}

/* Each file opened and closed as the threads will open it: a file this user may not open
 * is said before anything starts. 0 or -errno (message printed). */
static int run_probe_files(const struct run *r)
{
    for (unsigned i = 0; i < r->lay.nfiles; i++) {
        if (!sbio_layout_has(&r->lay, i))
            continue;
        int fd = openat(r->fs->dirfd, r->fs->files[i].name,
                        (r->oflags & ~(r->eng->flags & SBIO_ENG_NO_DIRECT ? O_DIRECT : 0)) |
                            O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            char lbl[PATH_MAX + 300];
            sbio_err("%.200s: open: %s", run_file_label(r, i, lbl, sizeof(lbl)), strerror(e));
            return -e;
        }
        close(fd);
    }
    return 0;
}

/* O_DIRECT requests that are whole logical sectors but not whole physical ones run (the
 * device reads and rewrites the sectors they share), and are said to. */
static void run_note_physical(const struct run *r)
{
    uint64_t phys = sbio_physical_sector(r->env->target), bs = r->job->block_size;
    if (!phys || bs % phys == 0)
        return;
    char b[32], p[32];
    sbio_note("%s=%s is not a multiple of %s, the physical sector of %s: the device reads "
              "and rewrites the sectors a request only partly covers (measured as it is)",
              r->job->block_what, sbio_fmt_bytes(b, sizeof(b), bs),
              sbio_fmt_bytes(p, sizeof(p), phys), r->env->target->top.name);
}

int sbio_runner_check(const struct sbio_job *job, const struct sbio_runner_env *env)
{
    struct run r = run_of(job, env);
    struct sbio_run_result res;
    memset(&res, 0, sizeof(res));
    int rc = run_checks(&r, &res);
    void *priv = NULL;
    /* The engine as each thread will set it up: what the kernel refuses is said now. */
    if (!rc && !(rc = run_engine_init(&r, &priv, 0, NULL)))
        r.eng->cleanup(priv);
    if (!rc && !(r.eng->flags & SBIO_ENG_NO_IO))
        rc = run_probe_files(&r);
    if (!rc && (r.oflags & O_DIRECT))
        run_note_physical(&r);
    run_free(&r, 0);
    return rc;
}

int sbio_runner_run(const struct sbio_job *job, const struct sbio_runner_env *env,
                    struct sbio_run_result *res)
{
    int rc = runner_run(job, env, res);
    /* A job that never reached its warm-up must not keep its phase's others waiting. */
    if (rc)
        sbio_warmup_phase_release(env->warmup_phase);
    /* Once its threads are started runner_run meets the others and returns 0; a process that
     * could not start them still meets them once, so that none waits for it. */
    if (env->sync && rc)
        env->sync->agree(env->sync->ctx, rc);
    if (env->sync && env->sync->leave)
        env->sync->leave(env->sync->ctx);
    return rc;
}
