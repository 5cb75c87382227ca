/* The worker threads of one run and the state they share: what worker.c (the threads) and
 * runner.c (the phase protocol, on the main thread, which sets it up and drives the threads)
 * both read. Nothing outside these two files includes this header, and it includes nothing of
 * the runner's: the workers see the run, never the runner. */
#ifndef SBIO_RUN_H
#define SBIO_RUN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "engine.h"
#include "fileset.h"
#include "fsop.h"
#include "job.h"
#include "mix.h"
#include "stats.h"
#include "verify.h"
#include "workload.h"

#define POLL_NS 20000000ULL /* stops, limits and pauses are seen within 20 ms */

struct run;
/* runner.h's: only runner.c reads them. */
struct sbio_runner_env;
struct sbio_runner_sync;

/* A barrier whose party count can shrink: if pthread_create fails half-way, the threads
 * already started must still be released (pthread_barrier_t cannot do that). */
struct gate {
    pthread_mutex_t m;
    pthread_cond_t c;
    unsigned parties, waiting, gen;
};

void sbio_gate_init(struct gate *g, unsigned parties);
void sbio_gate_wait(struct gate *g);
/* Fewer parties (threads that could not be started): waiters are released if all are in. */
void sbio_gate_shrink(struct gate *g, unsigned parties);
void sbio_gate_destroy(struct gate *g);

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
    struct sbio_fsop fsop; /* a tree job: the thread's slots and current file (wl.fsop) */
    struct sbio_stats *stats;
    int cpu;    /* -1: not pinned */
    int ioprio; /* the I/O priority the kernel keeps for the thread, read back once set */
    uint64_t local_budget;
    int err;      /* -errno of the first failure */
    int err_kind; /* its enum sbio_error_kind */
    char err_msg[320];
    int done;
    bool lost_write; /* stopped holding a sequential write it had drawn (wl.last_unit) */
    /* The thread's own CPU time and faults at the start and the end of its measured phase
     * (its entry of run's usage): the run's CPU figures and the faults probe's are their sum,
     * so that they cover the measured time and nothing else (not the threads' start, nor
     * another job's threads). getrusage's own times are tick samples (0.06 ms for 1.8 ms
     * seen): they only split the exact time between user and system. */
    struct sbio_thread_usage *usage;
};

struct run {
    const struct sbio_job *job;
    const struct sbio_runner_env *env;
    const struct sbio_cgroup_job *group; /* env's: the job's I/O group (cgroup.h), or NULL */
    const struct sbio_engine_ops *eng;
    struct sbio_fileset *fs;
    struct sbio_layout lay;
    uint64_t *append_end; /* a mix's appends on a flat set: each file's end (workload.h) */
    struct sbio_wl_shared sh;
    struct sbio_mix mix; /* --verify's partition, a tree job: the job's mix set up for a
                            thread's blocks or slots */
    struct worker *w;
    struct sbio_thread_usage *usage; /* [nthreads], each worker's own */
    struct sbio_file *shared;        /* [lay.nfiles] descriptors all threads use; NULL: their own */
    unsigned nthreads;
    unsigned first_thread; /* this process's first thread among all processes' */
    int oflags;
    int fadv;     /* posix_fadvise advice for every descriptor the run opens, -1: none */
    uint64_t req; /* bytes per io buffer */
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
    /* The measured phase's time limit as a moment (monotonic; UINT64_MAX: none): the earliest
     * thread's start plus --time. Each worker stops the phase itself when one of its ops
     * completes past it, so a main thread that wakes late (a loaded machine) does not
     * lengthen the run. On stop's cache line: read with it at every op. */
    uint64_t end_ns;
    /* invalidate = "pass": the drops of a file's pages at the start of a pass (not the one
     * before the run), over all threads */
    _Alignas(64) uint64_t pass_drops;
    _Alignas(64) uint64_t budget_left;
    _Alignas(64) int failed; /* a worker failed: everyone stops */
    bool own_budgets; /* --seq-stream=per-thread, a tree job: each thread its share of --events */
};

static inline int run_stopped(const struct run *r)
{
    return __atomic_load_n(&r->stop, __ATOMIC_RELAXED);
}

/* After an op that completed at now_ns: past the time limit, the phase stops. */
static inline void run_check_end(struct run *r, uint64_t now_ns)
{
    if (now_ns >= __atomic_load_n(&r->end_ns, __ATOMIC_RELAXED))
        __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
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

/* "DIR/test_file.3", or the device's path for a raw device. */
static inline const char *run_file_label(const struct run *r, unsigned i, char *buf, size_t len)
{
    const char *n = r->fs->files[i].name;
    if (n[0] == '/')
        return n;
    snprintf(buf, len, "%s/%s", r->fs->dir, n);
    return buf;
}

/* A worker thread: opens the set, then meets the main thread at the gate between phases
 * (open, warm-up, measured), running the loop of its engine's kind in each. */
void *sbio_worker_main(void *arg);

#endif
