/* The option table and the parsed configuration.
 *
 * One table (options.c) lists every option: its name, sysbench alias, type, default,
 * accepted values, help text and the commands that use it. Parsing, validation,
 * `sbio help` and `sbio help COMMAND` are all driven by it. */
#ifndef SBIO_OPTIONS_H
#define SBIO_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "decl.h"
#include "vocab.h"

/* Bit per command, for the table's "used by" column. */
#define SBIO_C(cmd) (1u << (cmd))

enum sbio_output_format {
    SBIO_OUT_TEXT,
    SBIO_OUT_JSON,
    SBIO_OUT_CSV,
    SBIO_OUT_HTML, /* plot's: a report */
    SBIO_OUT_PNG,  /* plot's: charts */
    SBIO_OUT_SVG
};

struct sbio_config {
    enum sbio_cmd cmd;
    int argc; /* the command line, for the JSON result */
    char **argv;
    int nargs; /* words after the command (help TOPIC, diff/plot files) */
    const char *args[SBIO_MAX_ARGS];
    int diff_split; /* diff: the words before its "--" (side A's files); -1: no "--" */

    /* sysbench general options */
    uint64_t threads;
    uint64_t time_s; /* 0: no limit */
    uint64_t events; /* 0: no limit */
    /* Spelled --max-requests (sysbench 0.4): a mode's events are its reads and writes, the
     * fsyncs come on top, as 0.4 counted; spelled --events, the fsyncs count too (1.0). */
    bool events_rw;
    uint64_t warmup_s;
    bool warmup_auto;      /* --warmup=auto: until the throughput settles (steady.h) */
    uint64_t warmup_max_s; /* --warmup=auto's cap */
    double warmup_tol_pct; /* --warmup=auto's tolerance */
    uint64_t rate;         /* ops/s over all threads, 0: unlimited */
    uint64_t report_interval_s;
    uint64_t percentile; /* 1..100 */
    bool histogram;
    uint64_t verbosity; /* sysbench's 0..5: below 3 no report, below 2 no notes */
    uint64_t rand_seed; /* 0: from the clock */

    /* sysbench fileio options */
    uint64_t file_num;
    uint64_t block_size;
    uint64_t total_size;
    int mode;    /* enum sbio_mode */
    int io_mode; /* enum sbio_io_mode */
    uint64_t async_backlog;
    unsigned extra_flags; /* enum sbio_extra_flag bits */
    uint64_t fsync_freq;
    bool fsync_all;
    bool fsync_end;
    int fsync_mode; /* enum sbio_fsync_mode */
    uint64_t merged_requests;
    double rw_ratio;
    bool verify; /* --verify, sysbench's --validate */

    /* sbio's own */
    const char *dir;
    const char *filename;
    bool allow_destroy;
    int ioengine; /* an engine id (engine.h), resolved from --ioengine or --file-io-mode */
    uint64_t iodepth;
    uint64_t iodepth_batch; /* requests queued per submit; 0: auto (sbio_job_iodepth_batch) */
    const char *script;
    bool script_trusted; /* the script runs with all of Lua, not in the sandbox */
    int output_format;
    const char *output;
    uint64_t log_interval_ms;
    const char *scheduler;
    const char *schedulers;
    int nvary;
    const char *vary[SBIO_MAX_LIST];
    int nqueue;
    const char *queue[SBIO_MAX_LIST];
    int nphase; /* --phase: the script's phases to run (each a name or a comma list) */
    const char *phase[SBIO_MAX_LIST];
    const char *queue_device;
    bool drop_caches;
    uint64_t repeat;             /* compare: runs per setting; 0: --repeat=auto */
    double target_ci;            /* compare --repeat=auto: --target-ci, % */
    uint64_t max_repeat;         /* compare --repeat=auto: --max-repeat */
    uint64_t max_compare_time_s; /* compare: --max-compare-time, 0: none */
    int seq_stream;              /* enum sbio_seq_stream */
    /* --invalidate: 0 off; 1 on (once): the set's pages dropped (POSIX_FADV_DONTNEED) before the
     * run; 2 pass: and each file's again at each new pass over it */
    int invalidate;
    int fadvise;       /* enum sbio_fadvise */
    int random_order;  /* enum sbio_random_order */
    int ioprio;        /* --ioprio: the kernel's value (ioprio.h), 0: none */
    int fsync_scope;   /* enum sbio_fsync_scope */
    int prealloc;      /* enum sbio_prealloc */
    int fill;          /* enum sbio_fill */
    bool adopt;        /* prepare --adopt */
    uint64_t fill_pct; /* compressible:P */
    const char *cpus;
    int order;           /* compare: 0 sequential, 1 random */
    const char *metrics; /* compare: --metrics=LIST, NULL: the default table */
    bool verify_fatal;
    uint64_t threshold;
    /* --script: the options the script declares (set before parsing, so that they parse
     * like built-in ones), and the values given for them. */
    int nxdecl;
    const char *xdecl[SBIO_MAX_LIST];
    bool xdecl_bool[SBIO_MAX_LIST];
    int nxopt;
    const char *xname[SBIO_MAX_LIST];
    const char *xvalue[SBIO_MAX_LIST];
    /* --script: the file sizes of the set it declares (not an option). */
    unsigned nfile_sizes;
    const uint64_t *file_sizes;
    /* The engines' own options, each in its slot (engine.h). */
    uint64_t engine_opt[SBIO_ENGINE_MAX_OPTS];
    const char *keep_data; /* plot: keep gnuplot's data files in this folder */
    const char *plot_size; /* plot: WIDTHxHEIGHT */
    const char *budget;    /* survey: --budget as typed */
    const char *battery;   /* survey: --battery */
    int survey_format;     /* survey: 0 text, 1 mail */
    bool file_per_rank;    /* MPI: each rank its own set in DIR/rank.N */
    uint64_t memory_limit; /* --memory-limit: bytes (cgroup.h), 0: none */

    /* Which options were given explicitly, by table index. */
    uint64_t given[4];
};

/* Fill cfg with every option's default. */
void sbio_options_defaults(struct sbio_config *cfg);

/* --verbosity's level as argv gives it, before the whole line is parsed (so that the notes
 * parsing makes are said or not as asked): 3 when absent or not one of 0..5 (the parse then
 * refuses it). */
unsigned sbio_options_verbosity(int argc, char **argv);

/* Parse argv (argv[0] is the program). Options may stand before or after the command. The
 * files of --config-file are read first, so that the command line overrides what they set;
 * the configuration points into argv and into those files' lines, both kept for the process's
 * life. Returns 0, or -EINVAL after printing one line naming the option (and FILE:LINE for a
 * file's), the value and what is accepted. Notes (old sysbench spellings, ignored options) go
 * to stderr. */
int sbio_options_parse(struct sbio_config *cfg, int argc, char **argv);

/* Cross-option checks for cfg->cmd (conflicts, options not implemented yet, values a
 * command needs), for a run of nranks processes (1 alone: see topology.h). Returns 0 or
 * -EINVAL after printing one line. */
int sbio_options_validate(struct sbio_config *cfg, unsigned nranks);

/* The range a number or size option accepts (the table's), for values given another way (a
 * script's job fields): 0, or -ENOENT when name is no such option. */
int sbio_options_range(const char *name, uint64_t *min, uint64_t *max);

/* Set one option by its name (or sysbench's old name) from text, as the command line would,
 * and mark it given. cmds: the commands it must belong to (SBIO_C bits). 0, or -EINVAL after
 * a message. Used by compare's --vary. */
int sbio_options_set(struct sbio_config *cfg, const char *name, const char *value, unsigned cmds);

/* Whether NAME (or sysbench's old name) is an option sbio_options_set takes for cmds (SBIO_C
 * bits): compare says what --vary can set before trying a key. */
bool sbio_options_known(const char *name, unsigned cmds);

/* Forget that the options used only by the commands in cmds (SBIO_C bits) were given:
 * compare hands each run a configuration without its own options. */
void sbio_options_forget(struct sbio_config *cfg, unsigned cmds);

/* True when the option named NAME (canonical name, without dashes) was on the command
 * line, under any of its spellings. */
bool sbio_options_given(const struct sbio_config *cfg, const char *name);

/* plot's --output-format as given ("png", "svg" or "html"), or NULL when it was not: plot
 * then goes by -o's extension. */
const char *sbio_options_plot_format(const struct sbio_config *cfg);

/* Print help: all options (topic NULL), or the options one command uses. Returns 0, or
 * -EINVAL for an unknown topic. */
int sbio_options_help(FILE *out, const char *topic);

/* The settings of the run cfg asks for (what holds for the whole run, and the
 * command line's job); they point into cfg, which must outlive them. */
void sbio_options_settings(const struct sbio_config *cfg, struct sbio_settings *set);

/* The command line's job with every option at its default (what a script's job fields
 * default to), and --time's default. */
void sbio_options_default_job(struct sbio_script_job *job, uint64_t *time_s);

/* The command line's declaration, as a script would make it: one phase of set's one job,
 * with cfg's --time and --events (decl->plain: reported as sysbench reports a run). */
void sbio_options_declare(const struct sbio_settings *set, const struct sbio_config *cfg,
                          struct sbio_script *decl);

#endif
