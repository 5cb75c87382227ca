/* A workload script's declarations as plain data: the options it declares, its file set,
 * its phases and their jobs (an operation mix with weights, block sizes and an access
 * pattern, or a sysbench mode, or a per-event hook). script.c fills them from Lua; the
 * pipeline builds jobs from them and mix.c compiles a mix for the hot path. No Lua, no
 * jansson: what runs below the pipeline needs only this. */
#ifndef SBIO_DECL_H
#define SBIO_DECL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "vocab.h"

/* The values of every engine's options travel in the declarations, the configuration and the job as
 * this many slots (engine.h's sbio_engine_option): more options than this over all engines is a bug
 * the unit tests catch. */
#define SBIO_ENGINE_MAX_OPTS 8

#define SBIO_SCRIPT_MAX_OPTS   32
#define SBIO_SCRIPT_MAX_JOBS   8
#define SBIO_SCRIPT_MAX_PHASES 64
#define SBIO_SCRIPT_MAX_BLOCKS 16
#define SBIO_SCRIPT_MAX_FLOW   64
#define SBIO_SCRIPT_MAX_FRANGE 16 /* a job's ranges of the set's files (files = "0-7,9") */

enum sbio_pattern {
    SBIO_PAT_UNIFORM,
    SBIO_PAT_SEQ,
    SBIO_PAT_ZIPF,     /* a = theta */
    SBIO_PAT_PARETO,   /* a = h */
    SBIO_PAT_GAUSSIAN, /* a = sigma as a fraction of the set */
    SBIO_PAT_HOT       /* a = fraction of blocks, b = share of accesses */
};

/* A mix's (and a flow's) operations. Each new one comes last, so that a mix without it draws
 * as before. From SBIO_MIX_CREATE on they are file-system operations, for a tree job only
 * (the script's fileset is a tree), named as the op types (io.h). */
enum sbio_mix_op {
    SBIO_MIX_READ,
    SBIO_MIX_WRITE,
    SBIO_MIX_FSYNC,
    SBIO_MIX_FDATASYNC,
    SBIO_MIX_RMW,
    SBIO_MIX_CREATE,
    SBIO_MIX_APPEND,
    SBIO_MIX_READWHOLE,
    SBIO_MIX_WRITEWHOLE,
    SBIO_MIX_OPEN,
    SBIO_MIX_CLOSE,
    SBIO_MIX_STAT,
    SBIO_MIX_UNLINK,
    SBIO_MIX_RENAME,
    SBIO_MIX_MKDIR,
    SBIO_MIX_READDIR,
    SBIO_MIX_NR
};
#define SBIO_MIX_FS_FIRST SBIO_MIX_CREATE

/* A tree's file sizes: each file's size is drawn once, from the set's seed and the file's
 * slot, so that prepare, a run's repair and cleanup agree on it. */
enum sbio_size_law {
    SBIO_SIZE_FIXED,     /* a */
    SBIO_SIZE_UNIFORM,   /* uniform in [a, b] */
    SBIO_SIZE_LOGNORMAL, /* mean a bytes, sigma p of the underlying normal */
    SBIO_SIZE_GAMMA      /* mean a bytes, coefficient of variation p (shape 1 / p^2), as
                            filebench's gamma file sizes */
};

struct sbio_size_dist {
    int law; /* enum sbio_size_law */
    uint64_t a, b;
    double p;
};

/* A file set as a directory tree (fileset { files = N, dirwidth = W, size = …, prealloc = F }):
 * N slots, each a file that exists or not; prepare makes the first round(F × N). tree.h says
 * where each slot lives. */
struct sbio_tree_decl {
    bool set;       /* the script's fileset is a tree */
    uint64_t files; /* slots */
    uint64_t dirwidth;
    struct sbio_size_dist size;
    double prealloc; /* 0 .. 1 */
    int line;        /* the script's line that declared it, for messages */
};

struct sbio_script_opt {
    char name[64];
    char type; /* 'n'umber, 's'tring, 'b'oolean */
    char def[128];
    char help[256];
};

/* A job's I/O group as a script declares it (cgroup.h makes it); every field 0 (or "") is left as
 * the kernel has it. */
struct sbio_cgroup_spec {
    bool set;                          /* the job declared a group */
    unsigned weight;                   /* v2 io.weight (1-10000), v1 blkio.weight (1-1000) */
    unsigned bfq_weight;               /* v2 io.bfq.weight, v1 blkio.bfq.weight (1-1000) */
    uint64_t rbps, wbps, riops, wiops; /* v2 io.max, v1 blkio.throttle.*_device */
    char max_dev[64];    /* the device the limits name; "": the set's scheduler devices */
    uint64_t latency_us; /* v2 io.latency target */
};

struct sbio_script_job {
    char name[64];
    unsigned threads;
    int engine; /* an engine id (engine.h) */
    unsigned iodepth;
    unsigned flags; /* enum sbio_extra_flag bits */
    double weight[SBIO_MIX_NR];
    unsigned nblocks;
    uint64_t block[SBIO_SCRIPT_MAX_BLOCKS];
    double block_weight[SBIO_SCRIPT_MAX_BLOCKS];
    int pattern; /* enum sbio_pattern */
    double pa, pb;
    uint64_t rate;     /* ops/s over the job's threads, 0: unlimited */
    uint64_t think_us; /* pause between a thread's operations */
    int mode;          /* a sysbench mode (enum sbio_mode) with its exact semantics, or
                          SBIO_MODE_NONE for a mix */
    bool event;        /* operations from the script's event(ctx), block = the largest */
    int stream;        /* sequential modes: enum sbio_seq_stream */
    uint64_t fsync_freq;
    bool fsync_end; /* a mode job: fsync every file at the end of its phase (a mix: never) */
    double rw_ratio;
    bool invalidate; /* drop the set's pages before the phase (--invalidate) */
    bool file_rr;    /* file_service = "roundrobin": sequential requests go to the files in turn */
    bool invalidate_pass;          /* invalidate = "pass": each file's pages dropped again at
                                      each new pass over it (fio's invalidate=1, time-based) */
    int fadvise;                   /* enum sbio_fadvise (--fadvise) */
    int random_order;              /* enum sbio_random_order (--random-order) */
    int ioprio;                    /* I/O priority (ioprio.h); 0: the command line's --ioprio */
    struct sbio_cgroup_spec group; /* the job's I/O group (cgroup.h); group.set false: none */
    /* A tree job: instead of weights, the operations in this order, over and over (each an
     * event); nflow 0: the mix's weights. */
    unsigned nflow;
    unsigned char flow[SBIO_SCRIPT_MAX_FLOW]; /* enum sbio_mix_op */
    /* A tree job's append request size (nappend 0: the job's block sizes). */
    unsigned nappend;
    uint64_t append[SBIO_SCRIPT_MAX_BLOCKS];
    double append_weight[SBIO_SCRIPT_MAX_BLOCKS];
    /* The set's files the job works on (a flat set): ranges first .. last of file indexes,
     * sorted and apart; nfrange 0: every file. */
    unsigned nfrange;
    uint64_t frange_first[SBIO_SCRIPT_MAX_FRANGE], frange_last[SBIO_SCRIPT_MAX_FRANGE];
    int line; /* the script's line that declared the job, for messages */
    /* What only the command line sets (struct sbio_settings' job): a script cannot declare
     * these, its jobs take the command line's. */
    uint64_t iodepth_batch;                    /* 0: auto */
    uint64_t engine_opt[SBIO_ENGINE_MAX_OPTS]; /* the engines' own options (engine.h) */
    const char *cpus;
    uint64_t merged_requests; /* a sysbench mode's blocks per request */
    bool fsync_all;
    int fsync_mode;  /* enum sbio_fsync_mode */
    int fsync_scope; /* enum sbio_fsync_scope */
    uint64_t warmup_s;
    bool warmup_auto;
    uint64_t warmup_max_s;
    double warmup_tol_pct;
    bool verify, verify_fatal;
};

struct sbio_script_phase {
    char name[64];
    uint64_t time_s, events;
    bool drop_caches;
    unsigned njobs;
    struct sbio_script_job jobs[SBIO_SCRIPT_MAX_JOBS];
};

struct sbio_script {
    char path[PATH_MAX];
    unsigned nopts;
    struct sbio_script_opt opts[SBIO_SCRIPT_MAX_OPTS];
    unsigned nfiles; /* 0: the script declares no file set, or a tree */
    uint64_t *file_size;
    struct sbio_tree_decl tree;
    unsigned nphases;
    struct sbio_script_phase phases[SBIO_SCRIPT_MAX_PHASES];
    bool has_event, has_report; /* per-event and report hooks defined */
    bool trusted;               /* loaded outside the sandbox (--script-trusted) */
    /* The command line's declaration (no script): one phase of one job, reported as sysbench
     * reports a run (a header, interim lines, one report; the JSON schema sbio-run/1) and
     * drawing from the run's seed itself. */
    bool plain;
};

/* What holds for a whole run, whatever it runs: where the set is and its shape (what
 * prepare makes, what a plain seqwr run creates), the device settings applied for its
 * duration, what the reports show. The command line's (or a compare run's) values. */
struct sbio_settings {
    int cmd;                  /* enum sbio_cmd */
    const char *dir;          /* the set's folder */
    const char *filename;     /* a raw device instead of a set, or NULL */
    const char *queue_device; /* the device whose queue is tuned, or NULL: the set's */
    bool file_per_rank;       /* MPI: each rank its own set in DIR/rank.N */
    /* The set: */
    int mode; /* the command line's sysbench mode (seqwr creates a set; cleanup's words) */
    uint64_t file_num, total_size, block_size;
    bool file_num_given, total_size_given, block_size_given, verify_given, fill_given;
    unsigned nfile_sizes; /* a script's declared files (sizes), else 0 */
    const uint64_t *file_sizes;
    int fill; /* enum sbio_fill */
    uint64_t fill_pct;
    int prealloc; /* enum sbio_prealloc */
    bool adopt;   /* prepare --adopt */
    bool allow_destroy;
    unsigned extra_flags; /* prepare's open flags (enum sbio_extra_flag bits) */
    bool verify;          /* --verify */
    uint64_t rand_seed;   /* 0: from the clock */
    /* The device and the host, for the run's duration: */
    const char *scheduler;
    const char *const *queue;
    int nqueue;
    bool drop_caches;
    /* --invalidate: the set's pages dropped before the run; a plain run's job does it itself,
     * a script's run before its first phase (its jobs' own invalidate aside) */
    bool invalidate;
    uint64_t memory_limit; /* bytes, 0: none */
    bool events_rw;        /* --max-requests: a mode job's events are its reads and writes only */
    /* The reports: */
    uint64_t report_interval_s, log_interval_ms, percentile;
    bool histogram;
    int argc;
    char **argv;
    /* A script's: its path and the option values given for it. */
    const char *script;
    const char *const *xname, *const *xvalue;
    int nxopt;
    /* The command line's job: a plain run's one job, and what a script's jobs take where
     * they are silent (the fields below "line", and --ioprio). */
    struct sbio_script_job job;
};

#endif
