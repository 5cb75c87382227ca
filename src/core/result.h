/* The result of a run, of one job of a phase, of a phase's jobs together, or of many
 * processes (MPI ranks) together: one type, and one merge for all of them.
 *
 * A result owns its per-thread statistics, its time series and, for a merge of ranks, every
 * rank's own result. Reports (report_text.c, report_json.c) only render it. */
#ifndef SBIO_RESULT_H
#define SBIO_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgroup.h"
#include "ioprio.h"
#include "probe.h"
#include "stats.h"
#include "sysblock.h"

#define SBIO_HOST_LEN 64

/* One interval of the time series (--report-interval / --log-interval). */
struct sbio_sample {
    double t_s;   /* end of the interval, seconds since the measured start */
    double dur_s; /* length of the interval */
    uint64_t ops[SBIO_OP_NR], bytes[SBIO_OP_NR];
    double mean_ns[SBIO_OP_NR];
    uint64_t p50_ns[SBIO_OP_NR], p99_ns[SBIO_OP_NR], max_ns[SBIO_OP_NR];
};

/* --warmup=auto's end: settled (or the cap reached), after measured_from_s seconds of
 * warm-up (measuring started then), and the figures of the last window of throughput
 * samples (steady.h). A merge of jobs: settled when every job was, the longest warm-up, the
 * largest spread and the steepest slope. */
struct sbio_warmup_result {
    bool is_auto, settled;
    double measured_from_s, window_s, spread_pct, slope_pct_per_s;
};

/* What stopped a run that failed: an I/O call (or sbio itself: a thread, the memory), or a
 * script's event(ctx) (a Lua error, or a request it asked that cannot be made). */
enum sbio_error_kind { SBIO_ERROR_IO, SBIO_ERROR_SCRIPT };

/* "io" or "script", as the JSON names them. */
const char *sbio_error_kind_name(int kind);

struct sbio_run_result {
    unsigned threads;
    struct sbio_stats *per_thread; /* [threads] */
    struct sbio_stats total;
    uint64_t seed;        /* the seed used: printed so any run can be repeated */
    uint64_t elapsed_ns;  /* measured phase: first start to last end, end fsyncs included */
    uint64_t limit_ns;    /* its time limit (--time, a phase's time), 0: none */
    double user_s, sys_s; /* CPU of the process over the measured phase */
    int stop_signal;      /* SIGINT/SIGTERM that interrupted the run, or 0 */
    int error;            /* first I/O error (-errno), or 0 */
    int error_kind;       /* what failed (enum sbio_error_kind) */
    char error_msg[320];
    uint64_t completed_bytes; /* seqwr: written outside the measured time to complete the set */
    uint64_t left_bytes;      /* seqwr: left unwritten for the next command (the manifest says
                                 so), the run having ended before the set was whole again */
    unsigned skipped_tails;   /* O_DIRECT: misaligned file tails not issued */
    uint64_t skipped_bytes;
    uint64_t direct_align;
    unsigned ncpus; /* --cpus: how many CPUs the threads were pinned to */
    /* The I/O priority each worker thread read back after setting the job's (ioprio.h): 0
     * when the job sets none; a merge of parts that differ: SBIO_IOPRIO_MIXED. */
    int ioprio;
    bool fds_shared; /* the threads shared one descriptor per file (too few for their own) */
    /* The measured phase started: false when the run failed while starting (a file that
     * could not be opened, a thread not created), and then no figure of it means anything. */
    bool measured;
    /* What the measurement probes (probe.h) read around the measured phase: page faults,
     * device counters, the process's storage I/O, the page cache of the set and of the
     * memory group, the I/O group's counters. */
    struct sbio_probe_figs probe;
    /* --invalidate: the files whose pages were dropped before the run (warm-up included),
     * and the bytes of the set (of set_bytes) still resident after that (mincore). */
    unsigned invalidated;
    uint64_t resident_bytes, set_bytes;
    /* invalidate = "pass": the drops of a file's pages at the start of a pass after the first
     * (each a POSIX_FADV_DONTNEED), warm-up included; those before the run are invalidated. */
    uint64_t pass_drops;
    /* Queued engines: ios in flight after each submission, over all threads. */
    double depth_avg;
    uint64_t depth_max;
    /* --verify: the first mismatch, described. */
    char verify_msg[320];
    bool verify_written_only; /* the set was prepared without --verify: written blocks only */
    /* --warmup=auto: how the warm-up ended (is_auto false: a fixed warm-up, or none). */
    struct sbio_warmup_result warmup;
    /* The time series. */
    struct sbio_sample *samples;
    size_t nsamples, samples_cap;
    /* The scheduler of the set's first scheduler device as the measured phase started (""
     * without a block device): what this process ran under. */
    char scheduler[32];
    /* A multi-process run (MPI), on the process that reports: every process's own result in
     * rank order (per_thread and samples NULL there) and its host; total, per_thread (all
     * threads, rank after rank) and the rest above are then their merge.
     * nranks 0: one process. */
    unsigned nranks;
    struct sbio_run_result *ranks;
    char (*rank_host)[SBIO_HOST_LEN];
};

/* A merge of ranks: on how many hosts they ran (distinct host names); 0 without ranks. */
unsigned sbio_result_hosts(const struct sbio_run_result *res);

/* Whether rank r is the first of its host among res's ranks. */
bool sbio_result_host_first(const struct sbio_run_result *res, unsigned r);

struct json_t;
/* Probe id's text lines of res, and its keys into the JSON object obj (probe.h): its figures
 * and what it reads of res (the phase's length, sbio's counts, each host's first rank). */
void sbio_result_probe_text(FILE *out, const struct sbio_run_result *res, enum sbio_probe_id id);
void sbio_result_probe_json(struct json_t *obj, const struct sbio_run_result *res,
                            enum sbio_probe_id id);

/* Free what res owns (per-thread stats, samples, ranks); res can be merged into again. */
void sbio_run_result_free(struct sbio_run_result *res);

/* The scheduler of the target's first scheduler device into res->scheduler ("" when none). */
void sbio_result_snap_sched(struct sbio_run_result *res, const struct sbio_target *t);

/* Merge n parts into out, which is overwritten (its samples are kept: a merge of ranks
 * reports the reporting rank's time series). The rules common to both kinds: counters summed,
 * histograms added bucket by bucket (exact), elapsed time the longest part's, the first
 * error, verify message and stop signal win, seed, CPU pinning and scheduler are the first
 * part's, queue depth the largest and the mean over the parts that queued; each probe's
 * figures merged by its own merge (probe.h).
 * per_thread: every part's threads in part order, which out takes; NULL to have them copied
 * from the parts' own per_thread (-ENOMEM when that fails, out then empty).
 * hosts: SBIO_MERGE_RANKS only, each part's host. Returns 0 or -ENOMEM. */
int sbio_result_merge(struct sbio_run_result *out, const struct sbio_run_result *parts, unsigned n,
                      enum sbio_merge_kind kind, struct sbio_stats *per_thread,
                      char (*hosts)[SBIO_HOST_LEN]);

/* How the jobs of a phase that ran side by side shared it (sbio_result_shares). */
#define SBIO_SHARES_MAX 16
/* The weight a job without one counts for when other jobs have one: the kernel's default
 * for io.weight, io.bfq.weight, blkio.weight and blkio.bfq.weight alike. */
#define SBIO_SHARES_DEFAULT_WEIGHT 100

/* One job's part. A share is the job's fraction of the phase's figure (the sum over its jobs),
 * so each kind sums to 1 over the jobs; NAN when the phase has none of it (no reads: every
 * read share). */
struct sbio_share {
    double ops, bytes;          /* of all operations; of bytes read + written */
    double read_ops, write_ops; /* of the reads, of the writes */
    double read_bytes, write_bytes;
    double ops_per_s, bytes_per_s; /* over the job's own elapsed time (0 when it had none) */
    /* Weighted phases only (else 0 and NAN, NAN): the weight counted (the group's bfq_weight,
     * else its weight, else SBIO_SHARES_DEFAULT_WEIGHT), the share it asks for (its weight
     * over the sum of the jobs' weights) and what the job got of it: its bytes share over its
     * asked share (ops when the phase moved no bytes); 1 is as the weights ask. */
    unsigned weight;
    double asked, ratio;
};

struct sbio_shares {
    unsigned n;
    bool weighted; /* some job's group sets a weight */
    bool over_ops; /* the phase moved no bytes (fsyncs only): the index is over ops/s */
    /* Jain's fairness index (sum x)^2 / (n sum x^2), in [1/n, 1]: x is each job's bytes/s
     * (ops/s when over_ops), divided by its asked share when weighted, so that 1 is an equal
     * split, or the split the weights ask for; 1/n is one job taking everything. 1 when every
     * x is 0. */
    double jain;
    struct sbio_share job[SBIO_SHARES_MAX];
};

/* The shares of the n jobs of a phase (jobs[k]->total and elapsed_ns; n from 1 to
 * SBIO_SHARES_MAX) into out. groups[k] is job k's declared group (NULL: no job has one); a
 * group counts only when set. 0, or -EINVAL for n out of range (out then untouched). */
int sbio_result_shares(struct sbio_shares *out, const struct sbio_run_result *const *jobs,
                       const struct sbio_cgroup_spec *groups, unsigned n);

#endif
