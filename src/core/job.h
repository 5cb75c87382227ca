/* A job: what one group of worker threads does, built from a declaration's job (decl.h: a
 * script's, or the command line's one job of a plain run; a phase runs several side by side).
 *
 * The runner, the workload generators and the reports read only this; the run's settings
 * and the process's place among MPI ranks stay with the pipeline. */
#ifndef SBIO_JOB_H
#define SBIO_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "decl.h"
#include "vocab.h"

struct sbio_mix;
struct sbio_hook_ops;
struct sbio_tree;

struct sbio_job {
    const char *name; /* a script job's name, NULL for the command line's job */
    unsigned threads;
    /* How: the engine (an id the engine registry knows) and its queue. */
    int engine;
    uint64_t iodepth;
    uint64_t iodepth_batch; /* 0: auto (sbio_job_iodepth_batch) */
    /* The engines' own options, each in its slot (engine.h). */
    uint64_t engine_opt[SBIO_ENGINE_MAX_OPTS];
    unsigned extra_flags; /* enum sbio_extra_flag bits */
    const char *cpus;     /* pin the threads to this CPU list, or NULL */
    /* What: a sysbench mode with its exact semantics, or (mode SBIO_MODE_NONE) a script's
     * compiled mix or per-event hook. */
    int mode;
    const struct sbio_mix *mix;
    const struct sbio_hook_ops *hook;
    /* A tree job (a script whose fileset is a tree): its mix's operations act on the
     * run's tree (fsop.h), its flow and append sizes in the mix; no flat set, no layout,
     * no per-file descriptors. phase: the script's phase, for mkdir's names. NULL: the set. */
    struct sbio_tree *tree;
    unsigned phase;
    /* A flat set's files the job works on: nfrange ranges of indexes, frange_first[i] ..
     * frange_last[i] (the declaration's); nfrange 0: every file. */
    unsigned nfrange;
    const uint64_t *frange_first, *frange_last;
    uint64_t block_size;      /* random requests; a mix's offsets are in these units */
    const char *block_what;   /* how messages name the block size */
    uint64_t merged_requests; /* sequential modes: blocks per request */
    uint64_t max_len;         /* a mix or hook: its largest request, the buffers' size */
    int seq_stream;           /* enum sbio_seq_stream */
    bool invalidate;          /* drop the set's pages before the run (outside its time) */
    /* file_service = "roundrobin" (fio's default file_service_type): a sequential mode's
     * requests go to the job's files in turn, each file read or written from its start on */
    bool file_rr;
    /* invalidate = "pass": a file's pages dropped (POSIX_FADV_DONTNEED, no write-back first,
     * as fio) each time the job starts a new pass over it, outside every request's latency */
    bool invalidate_pass;
    int fadvise;                   /* enum sbio_fadvise */
    int random_order;              /* enum sbio_random_order */
    int ioprio;                    /* each worker thread's I/O priority (ioprio.h), 0: inherited */
    struct sbio_cgroup_spec group; /* the job's I/O group (cgroup.h); group.set false: none */
    uint64_t fsync_freq;
    bool fsync_all, fsync_end;
    int fsync_mode;  /* enum sbio_fsync_mode */
    int fsync_scope; /* enum sbio_fsync_scope */
    double rw_ratio;
    uint64_t rate;     /* ops/s over the job's threads, 0: unlimited */
    uint64_t think_us; /* pause between a thread's operations */
    /* How long: 0 is no limit for both (then until a signal). */
    uint64_t time_s, events, warmup_s;
    bool events_rw;   /* the events are the reads and writes: fsyncs spend none (sysbench 0.4) */
    bool warmup_auto; /* --warmup=auto (warmup_s 0): until the throughput settles */
    uint64_t warmup_max_s; /* its cap */
    double warmup_tol_pct; /* its tolerance (steady.h) */
    uint64_t seed;         /* the job's random seed, never 0 once the pipeline has drawn it */
    bool verify, verify_fatal;
};

/* Whether the job opens the set for writing: write modes, and every mix or hook (their
 * operations are drawn as they run). */
bool sbio_job_writes(const struct sbio_job *job);

/* Whether the job walks the set sequentially (a built-in sequential mode). */
bool sbio_job_sequential(const struct sbio_job *job);

/* Blocks per request: merged_requests for a sysbench mode; for a mix or hook, as many blocks
 * as its largest request covers. */
uint64_t sbio_job_merged(const struct sbio_job *job);

/* Bytes of one request buffer: block_size times sbio_job_merged. */
uint64_t sbio_job_req_bytes(const struct sbio_job *job);

/* How many requests a queued engine's thread queues before it submits them: batch (0: auto),
 * at most depth; by default 1 with O_DIRECT (a device handed a whole batch returns it whole
 * and idles), the whole depth otherwise (fewer system calls). */
static inline uint64_t sbio_iodepth_batch_of(uint64_t batch, uint64_t depth, bool direct)
{
    uint64_t b = batch ? batch : direct ? 1 : depth;
    return b < depth ? b : depth;
}

/* sbio_iodepth_batch_of for the job's settings. */
uint64_t sbio_job_iodepth_batch(const struct sbio_job *job);

/* The access hint job gives its descriptors: --fadvise with auto resolved (random for random
 * modes and a mix's patterns other than seq, sequential for sequential ones, normal for a
 * per-event hook). An enum sbio_fadvise other than SBIO_FADV_AUTO. */
int sbio_job_fadvise(const struct sbio_job *job);

/* Job k's share of phase p's events, in proportion to its threads, exactly (its threads'
 * share of the cumulative count, floor to floor): total_threads are the phase's,
 * threads_before those of its jobs before k. */
uint64_t sbio_job_events(const struct sbio_script_phase *p, unsigned k, unsigned total_threads,
                         unsigned threads_before);

/* Job k of phase p as declared, over every rank (what the reports describe): its own
 * settings, the command line's where it is silent (set: --ioprio), its share events of the
 * phase's events. Its offsets are in units of its smallest block, its buffers as large as its
 * largest (max_len); the pipeline sets the rest (name, seed, what it runs, its share on this
 * rank). */
void sbio_job_declare(struct sbio_job *job, const struct sbio_script_phase *p, unsigned k,
                      uint64_t events, const struct sbio_settings *set);

#endif
