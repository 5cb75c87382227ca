/* The runner: one job's N worker threads, a start gate, the stop flag, time and event
 * limits, warm-up, rate limiting, CPU pinning and the phase protocol (open, warm-up,
 * measured, collect), met by the other processes of the run at each boundary.
 *
 * Each worker opens its own descriptors (or, where the pipeline says so, shares one per file
 * opened by the main thread), owns its stats, and in its hot loop asks the
 * workload for the next op, hands it to the engine and records the latency: no lock, no
 * allocation, no shared write except the event budget (claimed in small batches) and the
 * shared sequential stream (one atomic add). */
#ifndef SBIO_RUNNER_H
#define SBIO_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fileset.h"
#include "interim.h"
#include "job.h"
#include "result.h"
#include "stats.h"
#include "sysblock.h"
#include "workload.h"

/* Coordination with other processes running the same workload (MPI ranks; see mpi.h); the
 * runner itself knows nothing of how it is done. */
struct sbio_runner_sync {
    void *ctx;
    /* Called by every process at the same points: once when its threads have opened their
     * files (or when it could not start them), before the warm-up, before the measured phase
     * and after it, with this process's status (0, or -errno of its failure, -EINTR when a
     * signal stopped it). Blocks until every process got there; returns 0 when all were 0,
     * else non-zero: the phases that follow do not start. */
    int (*agree)(void *ctx, int rc);
    /* Polled every 20 ms during a phase: true when another process failed or was stopped;
     * this one then stops as after a failure (no end fsyncs). */
    bool (*stopped)(void *ctx);
    /* May be NULL. Called once when the run is done meeting (after its last agree, on
     * every path). */
    void (*leave)(void *ctx);
};

/* --warmup=auto for the jobs of a phase that run side by side: measuring starts for all of
 * them at once, so that their measured windows coincide: when every job's throughput is
 * settled at the same moment, when one job reaches --warmup-max, or when one job's warm-up
 * ends otherwise (a failure, a stop, a job that could not start). It lives in memory shared
 * with the processes forked after it (jobs in cgroup v2 groups); its fields are atomics. */
struct sbio_warmup_phase {
    unsigned jobs; /* how many jobs warm up together */
    int settled;   /* how many of them are settled now */
    int go;        /* non-zero: every job ends its warm-up */
};

/* A phase object for jobs jobs, in memory shared across fork; NULL when there is none (each
 * job then warms up alone). */
struct sbio_warmup_phase *sbio_warmup_phase_new(unsigned jobs);
/* Every job of the phase ends its warm-up now (p may be NULL: nothing to do). */
void sbio_warmup_phase_release(struct sbio_warmup_phase *p);
void sbio_warmup_phase_free(struct sbio_warmup_phase *p);

/* Where a job runs: the open set, the devices whose counters the result carries, what the
 * pipeline sees while it runs, and the other processes of the run. */
struct sbio_runner_env {
    struct sbio_fileset *fs;
    bool created;                        /* seqwr made the set for this run: complete it */
    const struct sbio_target *target;    /* may be NULL */
    const struct sbio_interim *interim;  /* lines and samples while it runs; NULL: none */
    const struct sbio_runner_sync *sync; /* NULL: alone */
    /* A set shared with other threads than the job's own (other processes' under MPI, other
     * jobs' under --verify): the job's threads are numbered from first_thread of all_threads
     * in all, so that random --verify partitions and sequential slices are disjoint across
     * them (sequential modes then always use per-thread slices: each thread walks its own
     * slice of the set). all_threads 0: the job's threads alone are numbered. */
    unsigned first_thread, all_threads;
    bool share_fds; /* one descriptor per file for all threads (the engine allows it) */
    /* --memory-limit's group, whose memory.stat the result carries; NULL or version
     * SBIO_CGROUP_NONE: none. */
    const struct sbio_memgroup *memgroup;
    /* The job's I/O group (cgroup.h), or NULL: on v1 each worker thread moves itself into it
     * before the start gate (a process in a v2 group was moved whole by its parent); on both
     * its kernel counters are read as the measured phase starts and ends. */
    const struct sbio_cgroup_job *group;
    /* --warmup=auto: the phase whose jobs start measuring together; NULL: alone. */
    struct sbio_warmup_phase *warmup_phase;
};

/* The descriptors job needs on a set of nfiles files while it runs: each thread its own
 * files (*own), or one per file shared by its threads (*shared; 0 when its engine cannot
 * share them). Both count what the engine holds per thread (an io_uring ring). A tree job's
 * threads hold two each (the current file, a folder being listed), never shared. */
void sbio_runner_fds(const struct sbio_job *job, unsigned nfiles, uint64_t *own, uint64_t *shared);

/* Every check of job on env that needs no I/O: the engine (set up once and dropped), --cpus,
 * the open flags and O_DIRECT alignment, the block size against the files, --verify,
 * per-thread sequential slices. 0, or -SBIO_EUSAGE with its message printed; nothing is
 * touched. sbio_runner_run makes the same checks: the pipeline calls this before its header. */
int sbio_runner_check(const struct sbio_job *job, const struct sbio_runner_env *env);

/* Run job on env. Returns 0 when the run happened (its result may still carry an I/O error
 * or a stop signal), -SBIO_EUSAGE for input that cannot run (message printed, nothing
 * touched), or -errno for a failure before the run started. Under env->sync every process
 * calls sync->agree the same number of times on every path, failures included. */
int sbio_runner_run(const struct sbio_job *job, const struct sbio_runner_env *env,
                    struct sbio_run_result *res);

#endif
