/* Lua workload scripts (LuaJIT). The only module that includes lua.h.
 *
 * A script declares — options, a file set, phases of concurrent jobs, each job a mix of
 * operations with weights, block sizes and an access pattern — and C executes it: a
 * declarative script is read once into these plain structures and never called per op.
 * The prelude (lua/sbio.lua, compiled into the binary with luajit -b) checks every
 * declaration where it is made, so an error names the script's file and line. */
#ifndef SBIO_SCRIPT_H
#define SBIO_SCRIPT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBIO_SCRIPT_MAX_OPTS   32
#define SBIO_SCRIPT_MAX_JOBS   8
#define SBIO_SCRIPT_MAX_PHASES 64
#define SBIO_SCRIPT_MAX_BLOCKS 16

enum sbio_pattern {
    SBIO_PAT_UNIFORM,
    SBIO_PAT_SEQ,
    SBIO_PAT_ZIPF,     /* a = theta */
    SBIO_PAT_PARETO,   /* a = h */
    SBIO_PAT_GAUSSIAN, /* a = sigma as a fraction of the set */
    SBIO_PAT_HOT       /* a = fraction of blocks, b = share of accesses */
};

enum sbio_mix_op { SBIO_MIX_READ, SBIO_MIX_WRITE, SBIO_MIX_FSYNC, SBIO_MIX_FDATASYNC, SBIO_MIX_NR };

struct sbio_script_opt {
    char name[64];
    char type; /* 'n'umber, 's'tring, 'b'oolean */
    char def[128];
    char help[256];
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
    double rw_ratio;
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
    unsigned nfiles; /* 0: the script declares no file set */
    uint64_t *file_size;
    unsigned nphases;
    struct sbio_script_phase phases[SBIO_SCRIPT_MAX_PHASES];
    bool has_event, has_report; /* per-event and report hooks defined */
};

/* Find a script: a path as given, or a bare name ("oltp" or "oltp.lua") in the workloads
 * folder (SBIO_WORKLOADS, else the installed $(PREFIX)/share/sbio/workloads, else
 * ./workloads). Returns buf, or NULL when there is no such script. */
const char *sbio_script_find(const char *name, char *buf, size_t len);

/* The name of an access pattern (enum sbio_pattern), as scripts spell it. */
const char *sbio_pattern_name(int pattern);

/* Load and run the script's declarations with the option overrides given (names without
 * dashes, values as typed on the command line). 0, or -EINVAL with one line in err:
 * "FILE:LINE: what is wrong" for errors in the script, what and why otherwise. */
int sbio_script_load(const char *path, const char *const *names, const char *const *values,
                     int nover, struct sbio_script *out, char *err, size_t errlen);

void sbio_script_free(struct sbio_script *s);

#include <jansson.h>

/* The script's report(result), when it has one: called with the run's whole result (the
 * sbio-script/1 document as plain Lua tables: result.phases[i].jobs[j].result.result.op_types
 * …), in a fresh Lua state; what it prints goes to the report. 0, or -EINVAL with the
 * error's first line in err. */
int sbio_script_report(const struct sbio_script *s, const char *const *names,
                       const char *const *values, int nover, json_t *doc, char *err, size_t len);

struct sbio_hook_ops;
/* The per-event hook of script s (its event(ctx)), for jobs declared with event = true: one
 * Lua state per worker thread, the script loaded in it with the same option values; every op
 * one protected call. file_sizes: the set's files (event() sees them as sbio.files; offsets
 * and lengths are checked against them and against max_len). The returned ops point into
 * hook; hook must outlive the run. */
struct sbio_script_hook {
    const struct sbio_script *s;
    const char *const *names, *const *values;
    int nover;
    unsigned nfiles;
    const uint64_t *file_sizes;
    uint64_t max_len;
};
const struct sbio_hook_ops *sbio_script_hook_ops(struct sbio_script_hook *hook);

#endif
