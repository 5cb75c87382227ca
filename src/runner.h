/* The runner: N worker threads, a start barrier, the stop flag, time and event limits,
 * warm-up, rate limiting, CPU pinning and interim reports.
 *
 * Each worker opens its own descriptors, owns its stats, and in its hot loop asks the
 * workload for the next op, hands it to the engine and records the latency: no lock, no
 * allocation, no shared write except the event budget (claimed in small batches) and the
 * shared sequential stream (one atomic add). */
#ifndef SBIO_RUNNER_H
#define SBIO_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fileset.h"
#include "options.h"
#include "stats.h"
#include "sysblock.h"
#include "workload.h"

/* One interval of the time series (--report-interval / --log-interval). */
struct sbio_sample {
    double t_s;   /* end of the interval, seconds since the measured start */
    double dur_s; /* length of the interval */
    uint64_t ops[SBIO_OP_NR], bytes[SBIO_OP_NR];
    double mean_ns[SBIO_OP_NR];
    uint64_t p50_ns[SBIO_OP_NR], p99_ns[SBIO_OP_NR], max_ns[SBIO_OP_NR];
};

struct sbio_run_result {
    unsigned threads;
    struct sbio_stats *per_thread; /* [threads] */
    struct sbio_stats total;
    uint64_t seed;        /* the seed used: printed so any run can be repeated */
    uint64_t elapsed_ns;  /* measured phase: first start to last end, end fsyncs included */
    double user_s, sys_s; /* CPU of the process over the measured phase */
    int stop_signal;      /* SIGINT/SIGTERM that interrupted the run, or 0 */
    int error;            /* first I/O error (-errno), or 0 */
    char error_msg[320];
    uint64_t completed_bytes; /* seqwr: written outside the measured time to complete the set */
    unsigned skipped_tails;   /* O_DIRECT: misaligned file tails not issued */
    uint64_t skipped_bytes;
    uint64_t direct_align;
    unsigned ncpus; /* --cpus: how many CPUs the threads were pinned to */
    /* Device counters at the start and end of the measured phase: [0] is the top device,
     * [1..] the scheduler devices when they differ (dm/md slaves). */
    unsigned ndisk;
    char disk_name[SBIO_MAX_DEVS + 1][64];
    struct sbio_diskstat disk0[SBIO_MAX_DEVS + 1], disk1[SBIO_MAX_DEVS + 1];
    /* Page cache state of the set before and after the measured phase. */
    bool have_cache;
    struct sbio_cachestat cache0, cache1;
    /* Queued engines: ios in flight after each submission, over all threads. */
    double depth_avg;
    uint64_t depth_max;
    /* Page faults of the process over the measured phase (mmap's data path). */
    uint64_t minor_faults, major_faults;
    /* --verify: the first mismatch, described. */
    char verify_msg[320];
    /* The time series. */
    struct sbio_sample *samples;
    size_t nsamples, samples_cap;
    /* The scheduler of the set's first scheduler device as the measured phase started (""
     * without a block device): what this process ran under. */
    char scheduler[32];
    /* A multi-process run (MPI), on the process that reports: every process's own result in
     * rank order (per_thread and samples NULL there) and its host; total, per_thread (all
     * threads, rank after rank) and the rest above are then their merge (see mpi.h).
     * nranks 0: one process. */
    unsigned nranks;
    struct sbio_run_result *ranks;
    char (*rank_host)[64];
};

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
    /* A set shared by all processes: this one's threads are numbered from first_thread of
     * all_threads in all, so that random --verify partitions and sequential slices are
     * disjoint across processes (sequential modes then always use per-thread slices: each
     * process walks its own slice of the set). all_threads 0: a set of its own. */
    unsigned first_thread, all_threads;
};

/* Run the workload of cfg on the open set fs; target (may be NULL) names the devices whose
 * counters the result carries; interim lines go to interim (NULL: stdout). Returns 0 when the run
 * happened (its result may still carry an I/O error or a stop signal), -SBIO_EUSAGE for input that
 * cannot run (message printed, nothing touched), or -errno for a failure before the run started. */
int sbio_runner_run(const struct sbio_config *cfg, struct sbio_fileset *fs, bool created,
                    const struct sbio_target *target, FILE *interim, struct sbio_run_result *res);

/* The same, coordinated with other processes through sync (NULL: alone, as above). Every
 * process calls sync->agree the same number of times on every path, failures included. */
int sbio_runner_run_sync(const struct sbio_config *cfg, struct sbio_fileset *fs, bool created,
                         const struct sbio_target *target, FILE *interim,
                         const struct sbio_runner_sync *sync, struct sbio_run_result *res);

void sbio_run_result_free(struct sbio_run_result *res);

/* Parse a CPU list ("0-3,6") into cpus (at most max entries). Returns the count, or
 * -EINVAL when malformed. */
int sbio_runner_parse_cpus(const char *s, int *cpus, int max);

#endif
