#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "engine.h"
#include "ioprio.h"
#include "util.h"

enum opt_type {
    T_BOOL,
    T_EBOOL, /* an engine's on|off option (engine.h): 0 or 1 in its uint64_t slot */
    T_UINT,
    T_SIZE,
    T_DOUBLE,
    T_ENUM,
    T_FLAGS,
    T_STR,
    T_LIST,
    T_FILL,
    T_ENGINE,     /* an engine's name, from the registry (engine.h): its id */
    T_IOPRIO,     /* CLASS[:LEVEL] or none (ioprio.h): the kernel's value */
    T_WARMUP,     /* auto, or N seconds (as --warmup-time) */
    T_INVAL,      /* --invalidate: a boolean (on = once), once or pass: 0, 1 or 2 in an int */
    T_TEST,       /* --test=fileio: sysbench's old way to name the test */
    T_CONFIG,     /* --config-file=FILE: read before the command line (sbio_options_parse) */
    T_INIT_RNG,   /* sysbench 0.4's --init-rng: sbio's default already; boolean */
    T_IGNORE,     /* sysbench option that does not concern file I/O; takes a value */
    T_IGNORE_BOOL /* the same, boolean */
};

/* Options that a later piece of work implements: parsed and validated now so a typo
 * is caught, but refused when used, never silently ignored. */
#define OPT_LATER 1u

#define ALL_RUN (SBIO_C(SBIO_CMD_RUN) | SBIO_C(SBIO_CMD_COMPARE))
/* The set's shape and contents: cleanup removes what the manifest names and uses none. */
#define SET_CMDS (SBIO_C(SBIO_CMD_PREPARE) | ALL_RUN)
/* Where the set is: every command that works on one. */
#define DIR_CMDS (SET_CMDS | SBIO_C(SBIO_CMD_CLEANUP))
#define SURVEY   SBIO_C(SBIO_CMD_SURVEY)
#define OFF(f)   offsetof(struct sbio_config, f)

struct optdef {
    const char *name;
    const char *old; /* sysbench's old spelling, accepted with a note */
    enum opt_type type;
    size_t off;
    const char *def;     /* default, as the user would write it ("" for none) */
    const char *choices; /* T_ENUM: "a|b|c" (index = value); T_FLAGS: "a,b,c" (bit i) */
    uint64_t min, max;   /* T_UINT, T_SIZE */
    unsigned cmds;
    unsigned flags;
    const char *arg; /* placeholder shown in help */
    const char *help;
};

/* The table. Order is the order of `sbio help`: sysbench's options first, as sysbench
 * lists them, then sbio's own; the engines' own options follow --ioengine (opt_table). */
static const struct optdef base_opts[] = {
    /* sysbench general options */
    {"threads", "num-threads", T_UINT, OFF(threads), "1", NULL, 1, 100000, ALL_RUN, 0, "N",
     "number of worker threads"},
    {"events", "max-requests", T_UINT, OFF(events), "0", NULL, 0, UINT64_MAX, ALL_RUN, 0, "N",
     "total number of events (reads, writes, periodic fsyncs) over all threads; 0: no limit; "
     "as --max-requests reads and writes only (sysbench 0.4)"},
    {"time", "max-time", T_UINT, OFF(time_s), "10", NULL, 0, UINT32_MAX, ALL_RUN, 0, "N",
     "limit on the run's duration in seconds; 0: no limit"},
    {"warmup-time", NULL, T_UINT, OFF(warmup_s), "0", NULL, 0, UINT32_MAX, ALL_RUN, 0, "N",
     "run this many seconds before measuring; warm-up operations are not counted"},
    {"warmup", NULL, T_WARMUP, OFF(warmup_s), "0", NULL, 0, UINT32_MAX, ALL_RUN, 0, "auto|N",
     "warm up unmeasured: N seconds (as --warmup-time), or auto: until the throughput has "
     "settled (at most --warmup-max)"},
    {"rate", "tx-rate", T_UINT, OFF(rate), "0", NULL, 0, UINT32_MAX, ALL_RUN, 0, "N",
     "target rate in operations per second over all threads; 0: unlimited"},
    {"report-interval", NULL, T_UINT, OFF(report_interval_s), "0", NULL, 0, UINT32_MAX, ALL_RUN, 0,
     "N", "print interim statistics every N seconds; 0: off"},
    {"percentile", NULL, T_UINT, OFF(percentile), "95", NULL, 0, 100, ALL_RUN, 0, "N",
     "extra latency percentile to report (1-100); 0: off"},
    {"histogram", NULL, T_BOOL, OFF(histogram), "off", NULL, 0, 0, ALL_RUN, 0, "on|off",
     "print sysbench's latency histogram (every operation, in ms) and each operation type's"},
    {"verbosity", NULL, T_UINT, OFF(verbosity), "3", NULL, 0, 5,
     SBIO_C(SBIO_CMD_PREPARE) | SBIO_C(SBIO_CMD_RUN) | SBIO_C(SBIO_CMD_CLEANUP), 0, "N",
     "sysbench's levels: 0 and 1 errors only, 2 also notes, 3 (default) also the report; "
     "4 and 5 as 3"},
    {"rand-seed", NULL, T_UINT, OFF(rand_seed), "0", NULL, 0, UINT64_MAX,
     ALL_RUN | SBIO_C(SBIO_CMD_PREPARE), 0, "N",
     "seed for offsets and fill data; 0: from the clock (the seed used is printed)"},
    {"validate", NULL, T_BOOL, OFF(verify), "off", NULL, 0, 0, ALL_RUN | SBIO_C(SBIO_CMD_PREPARE),
     0, "on|off", "sysbench's name for --verify"},
    /* sysbench fileio options */
    {"file-num", NULL, T_UINT, OFF(file_num), "128", NULL, 1, 1000000, SET_CMDS, 0, "N",
     "number of files in the set"},
    {"file-block-size", NULL, T_SIZE, OFF(block_size), "16K", NULL, 1, SBIO_GIB, SET_CMDS, 0,
     "SIZE", "block size of every I/O operation"},
    {"file-total-size", NULL, T_SIZE, OFF(total_size), "2G", NULL, 1, UINT64_MAX >> 1, SET_CMDS, 0,
     "SIZE", "total size of the file set (each file gets an equal share)"},
    {"file-test-mode", NULL, T_ENUM, OFF(mode), "", SBIO_MODE_CHOICES, 0, 0, ALL_RUN, 0, "MODE",
     "test mode: seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw (required by run)"},
    {"file-io-mode", NULL, T_ENUM, OFF(io_mode), "sync", "sync|async|mmap", 0, 0, ALL_RUN, 0,
     "MODE", "sysbench's engine choice: sync, async (libaio) or mmap"},
    {"file-async-backlog", NULL, T_UINT, OFF(async_backlog), "128", NULL, 1, 65536, ALL_RUN, 0, "N",
     "sysbench's name for --iodepth"},
    {"file-extra-flags", NULL, T_FLAGS, OFF(extra_flags), "", "sync,dsync,direct", 0, 0, ALL_RUN, 0,
     "LIST", "extra flags to open files with: sync, dsync, direct"},
    {"file-fsync-freq", NULL, T_UINT, OFF(fsync_freq), "100", NULL, 0, UINT64_MAX, ALL_RUN, 0, "N",
     "fsync after this many requests of a thread; 0: no periodic fsync"},
    {"file-fsync-all", NULL, T_BOOL, OFF(fsync_all), "off", NULL, 0, 0, ALL_RUN, 0, "on|off",
     "fsync after each write, inside that write's event"},
    {"file-fsync-end", NULL, T_BOOL, OFF(fsync_end), "on", NULL, 0, 0, ALL_RUN, 0, "on|off",
     "fsync every file at the end of the run (measured, not an event)"},
    {"file-fsync-mode", NULL, T_ENUM, OFF(fsync_mode), "fsync", "fsync|fdatasync", 0, 0, ALL_RUN, 0,
     "MODE", "call used to synchronise: fsync or fdatasync"},
    {"file-merged-requests", NULL, T_UINT, OFF(merged_requests), "0", NULL, 0, 65536, ALL_RUN, 0,
     "N", "merge up to N adjacent sequential requests into one; 0: no merging"},
    {"file-rw-ratio", NULL, T_DOUBLE, OFF(rw_ratio), "1.5", NULL, 0, 0, ALL_RUN, 0, "R",
     "reads per write in rndrw (kept exactly per thread); 0: writes only, as sysbench"},
    /* sbio's own */
    {"dir", NULL, T_STR, OFF(dir), ".", NULL, 0, 0, DIR_CMDS | SURVEY, 0, "DIR",
     "folder of the file set (survey: of the workloads' sets, a folder each)"},
    {"filename", NULL, T_STR, OFF(filename), "", NULL, 0, 0, ALL_RUN | SURVEY, 0, "DEV",
     "run on a raw block device instead of a file set (writes need --allow-destroy; survey: "
     "its read-only workloads on the device)"},
    {"allow-destroy", NULL, T_BOOL, OFF(allow_destroy), "off", NULL, 0, 0, ALL_RUN, 0, "on|off",
     "allow writing to the device named by --filename"},
    {"ioengine", NULL, T_ENGINE, OFF(ioengine), "sync", NULL, 0, 0, ALL_RUN, 0, "NAME",
     "I/O engine (the general form of --file-io-mode)"},
    {"iodepth", NULL, T_UINT, OFF(iodepth), "128", NULL, 1, 65536, ALL_RUN, 0, "N",
     "requests in flight per thread for queued engines"},
    {"iodepth-batch", NULL, T_UINT, OFF(iodepth_batch), "0", NULL, 0, 65536, ALL_RUN, 0, "N",
     "queued engines: submit after every N requests queued (at most --iodepth); 0: 1 with "
     "O_DIRECT (keeps the device fed), --iodepth otherwise (fewest system calls)"},
    {"script", NULL, T_STR, OFF(script), "", NULL, 0, 0, SET_CMDS, 0, "FILE",
     "Lua workload script (path, or a name from the installed workloads)"},
    {"script-trusted", NULL, T_BOOL, OFF(script_trusted), "off", NULL, 0, 0, SET_CMDS, 0, "on|off",
     "run the script with all of Lua (files, processes, FFI), not in the sandbox; on the "
     "command line only"},
    {"output-format", NULL, T_ENUM, OFF(output_format), "text", "text|json|csv|html|png|svg", 0, 0,
     ALL_RUN | SBIO_C(SBIO_CMD_PLOT), 0, "FMT",
     "report format: text, json or csv (run, compare); png, svg or html (plot: else -o's "
     "extension)"},
    {"output", NULL, T_STR, OFF(output), "", NULL, 0, 0,
     ALL_RUN | SBIO_C(SBIO_CMD_PLOT) | SBIO_C(SBIO_CMD_DIFF) | SURVEY, 0, "FILE",
     "write the report to FILE (-o)"},
    {"log-interval", NULL, T_UINT, OFF(log_interval_ms), "0", NULL, 0, UINT32_MAX, ALL_RUN, 0, "MS",
     "record interim samples every MS milliseconds without printing them"},
    {"scheduler", NULL, T_STR, OFF(scheduler), "", NULL, 0, 0, ALL_RUN, 0, "NAME",
     "I/O scheduler to set on the file set's device for the run (restored after)"},
    {"schedulers", NULL, T_STR, OFF(schedulers), "", NULL, 0, 0, SBIO_C(SBIO_CMD_COMPARE) | SURVEY,
     0, "LIST",
     "compare, survey: schedulers to run the workload under (survey: default every one the "
     "device offers)"},
    {"vary", NULL, T_LIST, OFF(vary), "", NULL, 0, 0, SBIO_C(SBIO_CMD_COMPARE), 0, "KEY=LIST",
     "compare: a setting and its values (repeatable)"},
    {"queue", NULL, T_LIST, OFF(queue), "", NULL, 0, 0, ALL_RUN, 0, "KEY=VALUE",
     "queue knob to set for the run, e.g. read_ahead_kb=2048 (repeatable)"},
    {"phase", NULL, T_LIST, OFF(phase), "", NULL, 0, 0, ALL_RUN, 0, "NAME[,NAME]",
     "run only these phases of the script, in the script's order (repeatable)"},
    {"queue-device", NULL, T_STR, OFF(queue_device), "", NULL, 0, 0, ALL_RUN | SURVEY, 0, "DEV",
     "block device whose queue to tune when --dir has none"},
    {"drop-caches", NULL, T_BOOL, OFF(drop_caches), "off", NULL, 0, 0, ALL_RUN, 0, "on|off",
     "sync and drop the whole page cache before the run (root; compare drops the set's pages "
     "alone by default, as --invalidate)"},
    {"repeat", NULL, T_UINT, OFF(repeat), "1", "auto", 1, 10000, SBIO_C(SBIO_CMD_COMPARE), 0, "N",
     "compare: runs per setting; auto: until every CI is within --target-ci"},
    {"target-ci", NULL, T_DOUBLE, OFF(target_ci), "5", NULL, 0, 0,
     SBIO_C(SBIO_CMD_COMPARE) | SURVEY, 0, "PCT",
     "compare --repeat=auto: the widest 95% CI half-width a setting stops at, % of the mean"},
    /* At least the 3 runs --repeat=auto always makes (SBIO_COMPARE_MIN_AUTO). */
    {"max-repeat", NULL, T_UINT, OFF(max_repeat), "10", NULL, 3, 10000,
     SBIO_C(SBIO_CMD_COMPARE) | SURVEY, 0, "N", "compare --repeat=auto: the most runs per setting"},
    {"max-compare-time", NULL, T_UINT, OFF(max_compare_time_s), "0", NULL, 0, UINT32_MAX,
     SBIO_C(SBIO_CMD_COMPARE), 0, "N",
     "compare: start no run that would end after N seconds of the compare; 0: no limit"},
    {"order", NULL, T_ENUM, OFF(order), "sequential", "sequential|random", 0, 0,
     SBIO_C(SBIO_CMD_COMPARE) | SURVEY, 0, "ORDER", "compare: order of settings within a round"},
    {"metrics", NULL, T_STR, OFF(metrics), "", NULL, 0, 0,
     SBIO_C(SBIO_CMD_COMPARE) | SBIO_C(SBIO_CMD_DIFF), 0, "LIST",
     "compare, diff: the table's columns, each mean ± sd and the difference with its CI: ops, "
     "mib, time, reads, writes, fsyncs, rmws, cpu, util, share, p50, p95, p99, p99.9, "
     "read.mib, write.mib, rmw.mib, TYPE.p50/p95/p99/p99.9 (TYPE read, write, fsync, rmw) "
     "(default: ops and each op type's p99)"},
    {"threshold", NULL, T_UINT, OFF(threshold), "", NULL, 0, 100, SBIO_C(SBIO_CMD_DIFF), 0, "PCT",
     "diff: exit 1 when B is worse than A by more than PCT%: a throughput metric lower or, in "
     "the table (several runs a side, scripts, compares, --metrics), a latency or time higher, "
     "there judged by the bound of its 95% CI nearest zero, else by the point difference "
     "(off unless given)"},
    {"budget", NULL, T_STR, OFF(budget), "30m", NULL, 0, 0, SURVEY, 0, "TIME",
     "survey: the time the whole survey may take (e.g. 10m, 1h30m, 90s), planned before it "
     "starts"},
    {"battery", NULL, T_STR, OFF(battery), "survey.battery", NULL, 0, 0, SURVEY, 0, "FILE",
     "survey: the workloads, a line each (path, or a name from the installed workloads)"},
    {"format", NULL, T_ENUM, OFF(survey_format), "text", "text|mail", 0, 0, SURVEY, 0, "FMT",
     "survey: text, or mail (every line within 72 columns, the matrix four schedulers at a "
     "time)"},
    {"keep-data", NULL, T_STR, OFF(keep_data), "", NULL, 0, 0, SBIO_C(SBIO_CMD_PLOT), 0, "DIR",
     "plot: keep the data files and the script given to gnuplot in DIR"},
    {"size", NULL, T_STR, OFF(plot_size), "1200x800", NULL, 0, 0, SBIO_C(SBIO_CMD_PLOT), 0, "WxH",
     "plot: chart size in pixels"},
    {"verify", NULL, T_BOOL, OFF(verify), "off", NULL, 0, 0, ALL_RUN | SBIO_C(SBIO_CMD_PREPARE), 0,
     "on|off", "write checkable blocks and verify every read"},
    {"verify-fatal", NULL, T_BOOL, OFF(verify_fatal), "off", NULL, 0, 0, ALL_RUN, 0, "on|off",
     "stop at the first verification failure"},
    {"seq-stream", NULL, T_ENUM, OFF(seq_stream), "shared", "shared|per-thread", 0, 0, ALL_RUN, 0,
     "KIND", "sequential modes: one shared stream, or one slice of the set per thread"},
    {"invalidate", NULL, T_INVAL, OFF(invalidate), "off", NULL, 0, 0, ALL_RUN, 0,
     "on|off|once|pass",
     "drop the set's pages from the page cache before the run (on, once: no root needed; "
     "compare's default), and each file's again at each new pass over it (pass: fio's "
     "invalidate=1)"},
    {"fadvise", NULL, T_ENUM, OFF(fadvise), "none", SBIO_FADVISE_CHOICES, 0, 0, ALL_RUN, 0, "HINT",
     "access hint for every descriptor (madvise for mmap); auto: by the mode's access order"},
    {"random-order", NULL, T_ENUM, OFF(random_order), "draw", SBIO_RANDOM_ORDER_CHOICES, 0, 0,
     ALL_RUN, 0, "ORDER", "random modes: independent draws, or every block once per pass"},
    {"ioprio", NULL, T_IOPRIO, OFF(ioprio), "none", NULL, 0, 0, ALL_RUN, 0, "CLASS[:LEVEL]",
     "I/O priority of every worker thread: rt:0-7, be:0-7 (level 4 by default) or idle; none: "
     "inherited"},
    {"memory-limit", NULL, T_SIZE, OFF(memory_limit), "none", NULL, SBIO_MEMORY_LIMIT_MIN,
     UINT64_MAX >> 1, ALL_RUN, 0, "SIZE",
     "run in a memory cgroup limited to SIZE (page cache included; root); none: no limit"},
    {"file-fsync-scope", NULL, T_ENUM, OFF(fsync_scope), "all", "all|dirty", 0, 0, ALL_RUN, 0,
     "SCOPE", "periodic and end fsyncs: every file (as sysbench) or only files written"},
    {"file-prealloc", NULL, T_ENUM, OFF(prealloc), "write", "write|fallocate", 0, 0,
     SBIO_C(SBIO_CMD_PREPARE) | SBIO_C(SBIO_CMD_RUN), 0, "HOW",
     "prepare by writing every block, or by fallocate (faster; blocks read as zeros)"},
    {"adopt", NULL, T_BOOL, OFF(adopt), "off", NULL, 0, 0, SBIO_C(SBIO_CMD_PREPARE), 0, "on|off",
     "prepare: take over test_file.N that sysbench made (count and sizes checked)"},
    {"file-fill", NULL, T_FILL, OFF(fill), "random", "random|zero|compressible:P", 0, 0,
     SBIO_C(SBIO_CMD_PREPARE) | SBIO_C(SBIO_CMD_RUN), 0, "FILL",
     "bytes written: random, zero, or compressible:P (P% of each 4 KiB zeros)"},
    {"cpus", NULL, T_STR, OFF(cpus), "", NULL, 0, 0, ALL_RUN, 0, "LIST",
     "pin worker threads to these CPUs, e.g. 0-3,6 (round-robin)"},
    {"file-per-rank", NULL, T_BOOL, OFF(file_per_rank), "off", NULL, 0, 0, DIR_CMDS, 0, "on|off",
     "under mpirun: each rank its own file set in DIR/rank.N (off: all ranks share DIR's)"},
    {"warmup-max", NULL, T_UINT, OFF(warmup_max_s), "60", NULL, 1, UINT32_MAX, ALL_RUN, 0, "N",
     "--warmup=auto: start measuring after N seconds even if the throughput has not settled"},
    {"warmup-tolerance", NULL, T_DOUBLE, OFF(warmup_tol_pct), "5", NULL, 0, 0, ALL_RUN, 0, "PCT",
     "--warmup=auto: settled when the last 5 one-second samples are within +-PCT% of their "
     "mean and their fitted slope moves at most PCT% over them"},
    /* sysbench's old test selector and options that do not concern file I/O */
    {"test", NULL, T_TEST, 0, "", NULL, 0, 0, 0, 0, "fileio", NULL},
    {"config-file", NULL, T_CONFIG, 0, "", NULL, 0, 0, 0, 0, "FILE", NULL},
    {"init-rng", NULL, T_INIT_RNG, 0, "", NULL, 0, 0, 0, 0, "on|off", NULL},
    {"forced-shutdown", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"thread-stack-size", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"thread-init-timeout", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"report-checkpoints", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"debug", NULL, T_IGNORE_BOOL, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"luajit-cmd", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"rand-type", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"rand-spec-iter", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"rand-spec-pct", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"rand-spec-res", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"rand-pareto-h", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"rand-zipfian-exp", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"db-driver", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"db-ps-mode", NULL, T_IGNORE, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
    {"db-debug", NULL, T_IGNORE_BOOL, 0, "", NULL, 0, 0, 0, 0, NULL, NULL},
};

#define NBASE    (sizeof(base_opts) / sizeof(base_opts[0]))
#define NOPTSMAX (NBASE + SBIO_ENGINE_MAX_OPTS)
_Static_assert(NOPTSMAX <= 4 * 64, "struct sbio_config.given holds 256 options");

/* Every option: the table above with the engines' own options (engine.h) after --ioengine,
 * each filling its slot of engine_opt. Built once, read-only after. */
static struct optdef opt_all[NOPTSMAX];
static size_t opt_nall;

static void opt_table_build(void)
{
    for (size_t i = 0; i < NBASE; i++) {
        opt_all[opt_nall++] = base_opts[i];
        if (base_opts[i].type != T_ENGINE)
            continue;
        int id;
        const struct sbio_engine_option *o;
        for (unsigned s = 0; (o = sbio_engine_option(s, &id)); s++)
            opt_all[opt_nall++] = (struct optdef){
                .name = o->name,
                .type = o->type == SBIO_EOPT_BOOL ? T_EBOOL : T_UINT,
                .off = OFF(engine_opt) + s * sizeof(uint64_t),
                .def = o->def,
                .min = o->min,
                .max = o->max,
                .cmds = ALL_RUN,
                .arg = o->arg,
                .help = o->help,
            };
    }
}

/* The options, *n of them. */
static const struct optdef *opt_table(size_t *n)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, opt_table_build);
    *n = opt_nall;
    return opt_all;
}

/* Database driver options (--mysql-host, --pgsql-port, …) are a family, not a list. */
static const char *const ignored_prefixes[] = {"mysql-", "pgsql-"};

/* "prepare, run, …, version": the commands, for messages. */
static const char *cmd_list(void)
{
    static char list[128];
    if (!list[0])
        for (int c = SBIO_CMD_NONE + 1; c < SBIO_CMD_NR; c++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                     c > SBIO_CMD_NONE + 1 ? ", " : "", sbio_cmd_names[c]);
    return list;
}

static const char *const cmd_help[SBIO_CMD_NR] = {
    [SBIO_CMD_PREPARE] = "create the file set (test_file.N and sbio.manifest) in --dir",
    [SBIO_CMD_RUN] = "run the workload on the prepared set and report",
    [SBIO_CMD_CLEANUP] = "remove the files the manifest names, then the manifest",
    [SBIO_CMD_COMPARE] = "run one workload under every setting of --schedulers / --vary, repeated",
    [SBIO_CMD_DIFF] = "diff A.json B.json, or A1.json A2.json… -- B1.json B2.json…: the "
                      "difference of every metric of two results, or of two sides' runs",
    [SBIO_CMD_SURVEY] = "which scheduler for which workload: a battery of workloads, each "
                        "compared under every scheduler, within --budget; one matrix",
    [SBIO_CMD_PLOT] = "plot R.json… -o chart.png: chart JSON results with gnuplot",
    [SBIO_CMD_RESTORE] = "restore device settings an sbio that was killed or crashed left",
    [SBIO_CMD_HELP] = "help [COMMAND]: the options (of one command)",
    [SBIO_CMD_VERSION] = "print the version",
};

/* The '|'-separated choices as a list with sep between them, into buf. Returns buf. */
static char *opt_choices(const char *choices, const char *sep, char *buf, size_t len)
{
    char w[32];
    size_t l = 0;
    buf[0] = 0;
    for (int i = 0; l < len && sbio_vocab_word(choices, i, w, sizeof(w)); i++) {
        int n = snprintf(buf + l, len - l, "%s%s", i ? sep : "", w);
        l += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

/* The table's entry for an option the code names (canonical name): it exists. */
static const struct optdef *opt_named(const char *optname)
{
    size_t nopts;
    const struct optdef *opts = opt_table(&nopts);
    for (size_t i = 0; i < nopts; i++)
        if (!strcmp(opts[i].name, optname))
            return &opts[i];
    abort();
}

static const char *table_choice(const char *optname, int v)
{
    /* A few buffers in turn: one message may hold several names ("--file-io-mode=%s and
     * --ioengine=%s"), and a single buffer would print the last one twice. */
    static _Thread_local char bufs[4][32];
    static _Thread_local unsigned next;
    char *buf = bufs[next++ % 4];
    return sbio_vocab_word(opt_named(optname)->choices, v, buf, sizeof(bufs[0])) ? buf : "?";
}

/* What a type accepts, for error messages. */
static void opt_accepted(const struct optdef *d, char *buf, size_t len)
{
    switch (d->type) {
    case T_BOOL:
    case T_EBOOL:
    case T_INIT_RNG: snprintf(buf, len, "on/off, true/false, yes/no, 1/0"); break;
    case T_INVAL: snprintf(buf, len, "on/off, true/false, yes/no, 1/0, once, pass"); break;
    case T_UINT:
        if (d->max == UINT64_MAX)
            snprintf(buf, len, "an integer from %" PRIu64, d->min);
        else
            snprintf(buf, len, "an integer from %" PRIu64 " to %" PRIu64, d->min, d->max);
        if (d->choices) /* a word for 0 */
            snprintf(buf + strlen(buf), len - strlen(buf), ", or %s", d->choices);
        break;
    case T_SIZE: {
        char lo[32], hi[32];
        if (d->max >= (UINT64_MAX >> 1))
            snprintf(buf, len, "a size of at least %s (bytes, or K/M/G/T, e.g. 16K, 2G)%s",
                     sbio_fmt_bytes(lo, sizeof(lo), d->min),
                     strcmp(d->def, "none") ? "" : ", or none");
        else
            snprintf(buf, len, "a size from %s to %s (bytes, or K/M/G/T, e.g. 16K, 2G)",
                     sbio_fmt_bytes(lo, sizeof(lo), d->min),
                     sbio_fmt_bytes(hi, sizeof(hi), d->max));
        break;
    }
    case T_DOUBLE: snprintf(buf, len, "a number of at least 0"); break;
    case T_ENUM:
    case T_FILL: {
        char names[128];
        snprintf(buf, len, "one of %s", opt_choices(d->choices, ",", names, sizeof(names)));
        break;
    }
    case T_ENGINE: {
        char names[128];
        snprintf(buf, len, "one of %s", sbio_engine_names(names, sizeof(names), ",", 0));
        break;
    }
    case T_FLAGS: snprintf(buf, len, "a comma-separated list of %s, or nothing", d->choices); break;
    case T_IOPRIO: snprintf(buf, len, "%s", SBIO_IOPRIO_ACCEPTED); break;
    case T_WARMUP:
        snprintf(buf, len, "auto, or a number of seconds from 0 to %" PRIu64, d->max);
        break;
    case T_TEST: snprintf(buf, len, "fileio"); break;
    case T_LIST: snprintf(buf, len, "%s (repeatable, at most %d)", d->arg, SBIO_MAX_LIST); break;
    default: snprintf(buf, len, "any value"); break;
    }
}

/* Where the option being set was written: "" on the command line, "FILE:LINE: " in a
 * --config-file, for the messages. */
static char opt_where[320];
/* The bytes of a config file's line quoted in a message at most. */
#define CONF_EXCERPT 16

static int opt_bad(const struct optdef *d, const char *value, const char *why)
{
    char acc[160];
    opt_accepted(d, acc, sizeof(acc));
    sbio_err("%s--%s: '%s' %s; accepted: %s", opt_where, d->name, value, why ? why : "is not valid",
             acc);
    return -EINVAL;
}

/* T_ENUM: the value's index among the choices. */
static int opt_set_enum(struct sbio_config *cfg, const struct optdef *d, const char *value)
{
    char *base = (char *)cfg;
    char buf[32];
    for (int i = 0; sbio_vocab_word(d->choices, i, buf, sizeof(buf)); i++) {
        if (!strcmp(buf, value)) {
            *(int *)(base + d->off) = i;
            return 0;
        }
    }
    /* An empty value for an option without a default (--file-test-mode=) unsets it. */
    if (!value[0] && !d->def[0]) {
        *(int *)(base + d->off) = SBIO_MODE_NONE;
        return 0;
    }
    return opt_bad(d, value, NULL);
}

/* T_FLAGS: a comma-separated list of the choices, bit i for choice i. */
static int opt_set_flags(struct sbio_config *cfg, const struct optdef *d, const char *value)
{
    char *base = (char *)cfg;
    unsigned bits = 0;
    char tmp[128];
    /* "none" spells the empty list where an empty value cannot be written (--vary). */
    if (!strcmp(value, "none")) {
        *(unsigned *)(base + d->off) = 0;
        return 0;
    }
    snprintf(tmp, sizeof(tmp), "%s", value);
    if (strlen(value) >= sizeof(tmp))
        return opt_bad(d, value, "is too long");
    if (sbio_list_has_empty(value))
        return opt_bad(d, value, "has an empty item");
    char *save = NULL;
    for (char *w = strtok_r(tmp, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int bit = sbio_extra_flag(w);
        if (!bit)
            return opt_bad(d, value, NULL);
        bits |= (unsigned)bit;
    }
    *(unsigned *)(base + d->off) = bits;
    return 0;
}

/* T_FILL: random, zero, or compressible:P. */
static int opt_set_fill(struct sbio_config *cfg, const struct optdef *d, const char *value)
{
    if (!strcmp(value, "random")) {
        cfg->fill = SBIO_FILL_RANDOM;
        return 0;
    }
    if (!strcmp(value, "zero")) {
        cfg->fill = SBIO_FILL_ZERO;
        return 0;
    }
    uint64_t p;
    if (!strncmp(value, "compressible:", 13) && !sbio_parse_u64(value + 13, &p) && p <= 100) {
        cfg->fill = SBIO_FILL_COMPRESSIBLE;
        cfg->fill_pct = p;
        return 0;
    }
    return opt_bad(d, value, "is not valid (P is 0 to 100)");
}

/* A T_UINT or T_SIZE value into cfg; "none" is 0 for an option whose default is none. */
static int opt_set_number(struct sbio_config *cfg, const struct optdef *d, const char *value)
{
    uint64_t *out = (uint64_t *)((char *)cfg + d->off), v;
    if ((!strcmp(d->def, "none") && !strcmp(value, "none")) ||
        (d->choices && !strcmp(value, d->choices))) {
        *out = 0; /* a limit's "none": no limit; a T_UINT's word (--repeat=auto) */
        return 0;
    }
    int rc = d->type == T_UINT ? sbio_parse_u64(value, &v) : sbio_parse_size(value, &v);
    if (rc)
        return opt_bad(d, value, rc == -ERANGE ? "is too large" : NULL);
    if (v < d->min || v > d->max)
        return opt_bad(d, value, "is out of range");
    *out = v;
    return 0;
}

/* T_WARMUP: auto (warmup_s 0), or a number of seconds as --warmup-time takes it. */
static int opt_set_warmup(struct sbio_config *cfg, const struct optdef *d, const char *value)
{
    cfg->warmup_auto = !strcmp(value, "auto");
    if (cfg->warmup_auto) {
        cfg->warmup_s = 0;
        return 0;
    }
    uint64_t v;
    if (sbio_parse_u64(value, &v) || v > d->max)
        return opt_bad(d, value, NULL);
    cfg->warmup_s = v;
    return 0;
}

static int opt_set_double(struct sbio_config *cfg, const struct optdef *d, const char *value)
{
    double v;
    char num[64];
    /* A percentage may say so: --target-ci=5% */
    size_t l = strlen(value);
    snprintf(num, sizeof(num), "%.*s",
             (int)(l && value[l - 1] == '%' && !strcmp(d->arg, "PCT") ? l - 1 : l), value);
    if (sbio_parse_double(num, &v))
        return opt_bad(d, value, NULL);
    *(double *)((char *)cfg + d->off) = v;
    return 0;
}

/* --vary, --queue (NAME=VALUE each) and --phase: appended to their list. */
static int opt_set_list(struct sbio_config *cfg, const struct optdef *d, const char *value)
{
    const char **arr = (const char **)((char *)cfg + d->off);
    int *count = d->off == OFF(vary)    ? &cfg->nvary
                 : d->off == OFF(queue) ? &cfg->nqueue
                                        : &cfg->nphase;
    if (d->off != OFF(phase) && !strchr(value, '='))
        return opt_bad(d, value, "has no '='");
    if (*count >= SBIO_MAX_LIST)
        return opt_bad(d, value, "is one too many");
    arr[(*count)++] = value;
    return 0;
}

/* sysbench 0.4 drew the same offsets every run unless --init-rng=on seeded its generator
 * from the clock, which sbio always does unless --rand-seed=N. */
static int opt_set_init_rng(const struct optdef *d, const char *value)
{
    bool on;
    if (sbio_parse_bool(value, &on))
        return opt_bad(d, value, NULL);
    if (!on)
        sbio_note("%s--init-rng=off: sysbench 0.4 then repeated its offsets run after run; "
                  "sbio seeds from the clock, --rand-seed=N repeats a run",
                  opt_where);
    return 0;
}

/* Parse value into cfg according to d. */
static int opt_set(struct sbio_config *cfg, const struct optdef *d, const char *value)
{
    char *base = (char *)cfg;
    switch (d->type) {
    case T_BOOL:
        if (sbio_parse_bool(value, (bool *)(base + d->off)))
            return opt_bad(d, value, NULL);
        return 0;
    case T_INVAL: {
        bool on = false;
        if (strcmp(value, "once") && strcmp(value, "pass") && sbio_parse_bool(value, &on))
            return opt_bad(d, value, NULL);
        *(int *)(base + d->off) = !strcmp(value, "pass") ? 2 : !strcmp(value, "once") || on;
        return 0;
    }
    case T_EBOOL: {
        bool on;
        if (sbio_parse_bool(value, &on))
            return opt_bad(d, value, NULL);
        *(uint64_t *)(base + d->off) = on;
        return 0;
    }
    case T_UINT:
    case T_SIZE: return opt_set_number(cfg, d, value);
    case T_DOUBLE: return opt_set_double(cfg, d, value);
    case T_ENUM: return opt_set_enum(cfg, d, value);
    case T_FLAGS: return opt_set_flags(cfg, d, value);
    case T_ENGINE: {
        int id = sbio_engine_id(value);
        if (id < 0)
            return opt_bad(d, value, NULL);
        *(int *)(base + d->off) = id;
        return 0;
    }
    case T_STR: *(const char **)(base + d->off) = value; return 0;
    case T_LIST: return opt_set_list(cfg, d, value);
    case T_FILL: return opt_set_fill(cfg, d, value);
    case T_IOPRIO: {
        const char *why = NULL;
        if (sbio_ioprio_parse(value, (int *)(base + d->off), &why))
            return opt_bad(d, value, why);
        return 0;
    }
    case T_WARMUP: return opt_set_warmup(cfg, d, value);
    case T_TEST:
        /* The note comes once the whole line is known (opt_note_test). */
        return strcmp(value, "fileio") ? opt_bad(d, value, "is not a test sbio runs") : 0;
    case T_CONFIG: return 0; /* read before the command line (sbio_options_parse) */
    case T_INIT_RNG: return opt_set_init_rng(d, value);
    case T_IGNORE:
    case T_IGNORE_BOOL:
        sbio_note("%s--%s does not concern file I/O; ignored", opt_where, d->name);
        return 0;
    }
    return -EINVAL;
}

/* The table's name equals name[0..len), '_' matching '-' as in sysbench (--file_num=4). */
static bool opt_name_is(const char *tname, const char *name, size_t len)
{
    if (strlen(tname) != len)
        return false;
    for (size_t i = 0; i < len; i++)
        if (tname[i] != name[i] && !(tname[i] == '-' && name[i] == '_'))
            return false;
    return true;
}

static const struct optdef *opt_find(const char *name, size_t len, bool *old)
{
    *old = false;
    size_t nopts;
    const struct optdef *opts = opt_table(&nopts);
    for (size_t i = 0; i < nopts; i++) {
        if (opt_name_is(opts[i].name, name, len))
            return &opts[i];
        if (opts[i].old && opt_name_is(opts[i].old, name, len)) {
            *old = true;
            return &opts[i];
        }
    }
    return NULL;
}

/* Edit distance between a[0..al) and b, '_' matching '-' and two swapped neighbours counting
 * as one edit (optimal string alignment); above 8 counts as 9 (only near misses matter). */
static size_t opt_distance(const char *a, size_t al, const char *b)
{
    size_t bl = strlen(b);
    if (al > 40 || bl > 40)
        return 9;
    size_t m[41][41];
    for (size_t i = 0; i <= al; i++)
        for (size_t j = 0; j <= bl; j++) {
            if (!i || !j) {
                m[i][j] = i + j;
                continue;
            }
            bool same = a[i - 1] == b[j - 1] || (a[i - 1] == '_' && b[j - 1] == '-');
            size_t best = m[i - 1][j - 1] + !same;
            if (m[i - 1][j] + 1 < best)
                best = m[i - 1][j] + 1;
            if (m[i][j - 1] + 1 < best)
                best = m[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                m[i - 2][j - 2] + 1 < best)
                best = m[i - 2][j - 2] + 1;
            m[i][j] = best;
        }
    return m[al][bl] > 8 ? 9 : m[al][bl];
}

/* A near miss is at most 2 edits away, and fewer than half the name's letters. */
static bool opt_near(size_t d, size_t len)
{
    return d <= 2 && 2 * d < len;
}

/* The option name (or sysbench's old one) nearest to name[0..len) when it is a near miss,
 * else NULL: the unknown option's "did you mean". */
static const char *opt_suggest(const char *name, size_t len)
{
    const char *best = NULL;
    size_t bestd = 9, nopts;
    const struct optdef *opts = opt_table(&nopts);
    for (size_t i = 0; i < nopts; i++) {
        const char *cand[2] = {opts[i].name, opts[i].old};
        for (int k = 0; k < 2; k++) {
            size_t d = cand[k] ? opt_distance(name, len, cand[k]) : 9;
            if (d < bestd && opt_near(d, len))
                best = cand[k], bestd = d;
        }
    }
    return best;
}

void sbio_options_defaults(struct sbio_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->mode = SBIO_MODE_NONE;
    cfg->diff_split = -1;
    size_t nopts;
    const struct optdef *opts = opt_table(&nopts);
    for (size_t i = 0; i < nopts; i++) {
        const struct optdef *d = &opts[i];
        if (d->type >= T_TEST || d->type == T_LIST)
            continue;
        if (d->type == T_STR) {
            *(const char **)((char *)cfg + d->off) = d->def[0] ? d->def : NULL;
            continue;
        }
        if (!d->def[0] && d->type != T_FLAGS)
            continue;
        /* Defaults are in the table as text and go through the same parser: a bad
         * default is a bug, caught by the unit tests. */
        if (opt_set(cfg, d, d->def))
            abort();
    }
}

static enum sbio_cmd cmd_lookup(const char *w)
{
    for (int c = SBIO_CMD_PREPARE; c < SBIO_CMD_NR; c++)
        if (!strcmp(sbio_cmd_names[c], w))
            return (enum sbio_cmd)c;
    return SBIO_CMD_NONE;
}

static void opt_mark_given(struct sbio_config *cfg, const struct optdef *d)
{
    size_t nopts, i = (size_t)(d - opt_table(&nopts));
    cfg->given[i / 64] |= 1ULL << (i % 64);
}

/* The command a mistyped word is a near miss of, or NULL. */
static const char *cmd_suggest(const char *w)
{
    for (int c = SBIO_CMD_PREPARE; c < SBIO_CMD_NR; c++)
        if (opt_near(opt_distance(w, strlen(w), sbio_cmd_names[c]), strlen(w)))
            return sbio_cmd_names[c];
    return NULL;
}

/* A word that is no option: the command, then its arguments. 0 or -EINVAL. */
static int parse_word(struct sbio_config *cfg, const char *a)
{
    if (cfg->cmd == SBIO_CMD_NONE) {
        enum sbio_cmd c = cmd_lookup(a);
        if (c == SBIO_CMD_NONE && !strcmp(a, "fileio")) {
            sbio_note("'fileio' is sysbench's test name; sbio only does file I/O");
            return 0;
        }
        if (c == SBIO_CMD_NONE) {
            const char *near = cmd_suggest(a);
            sbio_err("unknown command '%s'%s%s%s; accepted: %s", a, near ? " (did you mean " : "",
                     near ? near : "", near ? "?)" : "", cmd_list());
            return -EINVAL;
        }
        cfg->cmd = c;
        return 0;
    }
    if (cfg->nargs >= SBIO_MAX_ARGS) {
        sbio_err("too many arguments after '%s' (at most %d)", sbio_cmd_name(cfg->cmd),
                 SBIO_MAX_ARGS);
        return -EINVAL;
    }
    cfg->args[cfg->nargs++] = a;
    return 0;
}

/* An option the script declares goes to the script, even where sbio has one of the same
 * name: the script asked for it. 1 taken (the next word too when it is the value), 0 not
 * the script's, -EINVAL. */
static int parse_script_opt(struct sbio_config *cfg, const char *name, size_t nlen,
                            const char *value, int argc, char **argv, int *i)
{
    int x;
    for (x = 0; x < cfg->nxdecl; x++)
        if (strlen(cfg->xdecl[x]) == nlen && !strncmp(cfg->xdecl[x], name, nlen))
            break;
    if (x == cfg->nxdecl || cfg->nxopt >= SBIO_MAX_LIST)
        return 0;
    if (!value && cfg->xdecl_bool[x])
        value = "on";
    else if (!value && *i + 1 < argc)
        value = argv[++*i];
    else if (!value) {
        sbio_err("--%s needs a value (an option of the script)", cfg->xdecl[x]);
        return -EINVAL;
    }
    cfg->xname[cfg->nxopt] = cfg->xdecl[x];
    cfg->xvalue[cfg->nxopt++] = value;
    return 1;
}

/* Whether the word after an option written without '=' is its value. An option never is: a
 * list given alone is empty, as in sysbench ("--file-extra-flags --file-test-mode=rndrd"), and
 * a valued option alone needs one. A command is not a list either ("--file-extra-flags run"). */
static bool opt_takes_next(const struct optdef *d, const char *next)
{
    if (!strncmp(next, "--", 2))
        return false;
    return d->type != T_FLAGS || cmd_lookup(next) == SBIO_CMD_NONE;
}

/* An option the table does not have: the database drivers' family is ignored, anything else
 * is refused, with the near miss it may be. 0 or -EINVAL. */
static int opt_unknown(const char *name, size_t nlen)
{
    for (size_t p = 0; p < 2; p++) {
        size_t pl = strlen(ignored_prefixes[p]);
        if (nlen > pl && !strncmp(name, ignored_prefixes[p], pl)) {
            sbio_note("%s--%.*s does not concern file I/O; ignored", opt_where, (int)nlen, name);
            return 0;
        }
    }
    const char *near = opt_suggest(name, nlen);
    /* A config file's line may be any file's (--config-file=/etc/shadow): a short excerpt. */
    char shown[128], cut[64];
    if (*opt_where) {
        snprintf(cut, sizeof(cut), "%.*s", (int)(nlen < 63 ? nlen : 63), name);
        sbio_util_escape(shown, sizeof(shown), cut, CONF_EXCERPT);
    } else {
        snprintf(shown, sizeof(shown), "%.*s", (int)(nlen < 127 ? nlen : 127), name);
    }
    sbio_err("%sunknown option '--%s'%s%s%s; see sbio help for the options", opt_where, shown,
             near ? " (did you mean --" : "", near ? near : "", near ? "?)" : "");
    return -EINVAL;
}

/* One of sbio's options (or an ignored sysbench one) and its value: after '=', or the next
 * word (opt_takes_next) except for booleans. 0 or -EINVAL. */
static int parse_option(struct sbio_config *cfg, const char *name, size_t nlen, const char *value,
                        int argc, char **argv, int *i)
{
    bool old;
    const struct optdef *d = opt_find(name, nlen, &old);
    if (!d)
        return opt_unknown(name, nlen);
    bool events = !strcmp(d->name, "events");
    if (events)
        cfg->events_rw = old;
    if (old && events)
        sbio_note("%s--%s is sysbench's old spelling of --%s; it counts reads and writes, the "
                  "fsyncs come on top, as in sysbench 0.4",
                  opt_where, d->old, d->name);
    else if (old)
        sbio_note("%s--%s is sysbench's old spelling of --%s", opt_where, d->old, d->name);
    if (d->type == T_BOOL || d->type == T_EBOOL || d->type == T_IGNORE_BOOL ||
        d->type == T_INIT_RNG || d->type == T_INVAL) {
        /* A boolean never takes the next word: "--histogram run" is on + command. */
        if (!value)
            value = "on";
    } else if (!value) {
        if (*i + 1 < argc && opt_takes_next(d, argv[*i + 1])) {
            value = argv[++*i];
        } else if (d->type == T_FLAGS) {
            value = "";
        } else if (d->type == T_IGNORE) {
            /* Ignored options are never an error, with or without a value. */
            sbio_note("--%s does not concern file I/O; ignored", d->name);
            return 0;
        } else {
            char acc[160];
            opt_accepted(d, acc, sizeof(acc));
            sbio_err("--%s needs a value; accepted: %s", d->name, acc);
            return -EINVAL;
        }
    }
    if (opt_set(cfg, d, value))
        return -EINVAL;
    opt_mark_given(cfg, d);
    return 0;
}

/* The texts of the --config-file lines: the configuration points into them for the rest of
 * the process, as into argv. */
struct conf_text {
    struct conf_text *next;
    char text[];
};
static struct conf_text *conf_texts;

/* Split a config line (sysbench's form: name=value, '#' starts a comment, a value may be
 * quoted with ' or ") in place. 1 with name and value, 0 for a blank or comment line, or
 * -EINVAL after a message. */
static int conf_split(char *s, char **name, char **value)
{
    s[strcspn(s, "\r\n")] = 0;
    s += strspn(s, " \t");
    if (!*s || *s == '#')
        return 0;
    char *eq = strchr(s, '=');
    if (!eq || eq == s) {
        /* Whatever file was named: a short excerpt of it, not its first line. */
        char shown[64];
        sbio_err("%s'%s': expected name=value (one option a line, # for comments)", opt_where,
                 sbio_util_escape(shown, sizeof(shown), s, CONF_EXCERPT));
        return -EINVAL;
    }
    char *e = eq;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *e = 0;
    *name = strncmp(s, "--", 2) ? s : s + 2;
    char *v = eq + 1 + strspn(eq + 1, " \t");
    if (*v == '"' || *v == '\'') {
        char *close = strchr(v + 1, *v);
        char *rest = close ? close + 1 + strspn(close + 1, " \t") : NULL;
        if (!close || (*rest && *rest != '#')) {
            sbio_err("%s%s: %s", opt_where, *name,
                     close ? "text after the closing quote" : "the quote is not closed");
            return -EINVAL;
        }
        *close = 0;
        *value = v + 1;
        return 1;
    }
    for (char *p = v; *p; p++)
        if (*p == '#' && (p == v || p[-1] == ' ' || p[-1] == '\t'))
            *p = 0;
    for (e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t');)
        *--e = 0;
    *value = v;
    return 1;
}

/* One line of a config file, applied as --name=value would be. 0 or -EINVAL. */
static int conf_line(struct sbio_config *cfg, const char *line, size_t len)
{
    struct conf_text *t = malloc(sizeof(*t) + len + 1);
    if (!t) {
        sbio_err("%sout of memory", opt_where);
        return -EINVAL;
    }
    memcpy(t->text, line, len + 1);
    char *name, *value;
    int rc = conf_split(t->text, &name, &value);
    if (rc <= 0) {
        free(t);
        return rc;
    }
    t->next = conf_texts;
    conf_texts = t;
    bool old;
    const struct optdef *d = opt_find(name, strlen(name), &old);
    if (d && (d->type == T_CONFIG || d->off == OFF(script) || d->off == OFF(script_trusted))) {
        sbio_err("%s--%s is taken from the command line only (%s)", opt_where, d->name,
                 d->type == T_CONFIG     ? "give every file there"
                 : d->off == OFF(script) ? "the script's options are known before the file is read"
                                         : "a script is trusted where it is run, not by a file");
        return -EINVAL;
    }
    int i = 0;
    rc = parse_script_opt(cfg, name, strlen(name), value, 0, NULL, &i);
    return rc ? (rc < 0 ? rc : 0) : parse_option(cfg, name, strlen(name), value, 0, NULL, &i);
}

/* One line of f into buf (NUL-terminated): its length, EOF at the end, or -2 for what is no
 * line of text, a NUL byte or more than len - 1 bytes (--config-file=/dev/zero ends here). */
static int conf_getline(FILE *f, char *buf, size_t len)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (!c || n + 1 >= len)
            return -2;
        buf[n++] = (char)c;
        if (c == '\n')
            break;
    }
    buf[n] = 0;
    return n || c != EOF ? (int)n : EOF;
}

/* Whether a line holds a control character other than a tab and its line break (\n or
 * \r\n): an escape sequence is no text of a config file, and is not echoed. */
static bool conf_control(const char *line)
{
    size_t n;
    for (const char *p = line; *p; p += n)
        if (sbio_util_control_at(p, &n) && *p != '\t' && strcmp(p, "\n") && strcmp(p, "\r\n"))
            return true;
    return false;
}

/* Apply one --config-file: every line, in order, with "FILE:LINE: " before its messages. */
static int conf_read(struct sbio_config *cfg, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        sbio_err("--config-file=%s: %s", path, strerror(errno));
        return -EINVAL;
    }
    char line[4096];
    unsigned lineno = 0;
    int rc = 0, n;
    while (!rc && (n = conf_getline(f, line, sizeof(line))) != EOF) {
        snprintf(opt_where, sizeof(opt_where), "%s:%u: ", path, ++lineno);
        if (n < 0 || conf_control(line)) {
            sbio_err("%snot a line of text (a NUL byte, a control character, or longer than 4 "
                     "KiB); lines are name=value",
                     opt_where);
            rc = -EINVAL;
        } else {
            rc = conf_line(cfg, line, (size_t)n);
        }
    }
    if (!rc && ferror(f)) {
        sbio_err("--config-file=%s: read: %s", path, strerror(errno));
        rc = -EINVAL;
    }
    opt_where[0] = 0;
    fclose(f);
    return rc;
}

/* Every --config-file of the command line, in order, before its other options: what the
 * files set, the command line overrides. 0 or -EINVAL. */
static int conf_read_all(struct sbio_config *cfg, int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (strncmp(argv[i], "--", 2))
            continue;
        const char *name = argv[i] + 2, *eq = strchr(name, '=');
        if (!opt_name_is("config-file", name, eq ? (size_t)(eq - name) : strlen(name)))
            continue;
        const char *path = eq ? eq + 1 : NULL;
        if (!eq && i + 1 < argc && strncmp(argv[i + 1], "--", 2))
            path = argv[++i];
        if (!path || !path[0]) {
            sbio_err("--config-file needs a value: a file of name=value lines");
            return -EINVAL;
        }
        int rc = conf_read(cfg, path);
        if (rc)
            return rc;
    }
    return 0;
}

/* --test=fileio marks a sysbench 0.4 command line: one note, which says how 0.4's run ended
 * when this one is left to run sbio's default 10 s. */
static void opt_note_test(const struct sbio_config *cfg)
{
    if (!sbio_options_given(cfg, "test"))
        return;
    if ((cfg->cmd == SBIO_CMD_RUN || cfg->cmd == SBIO_CMD_COMPARE) &&
        !sbio_options_given(cfg, "events") && !sbio_options_given(cfg, "time"))
        sbio_note("--test=fileio is sysbench 0.4's way to choose the test; 0.4 stopped after "
                  "10000 requests by default, sbio (as sysbench 1.0) runs 10 s: "
                  "--max-requests=10000 gives 0.4's run");
    else
        sbio_note("--test=fileio is sysbench's old way to choose the test; sbio only does file "
                  "I/O");
}

/* argv[*i], which starts with a dash. 0 or -EINVAL. */
static int parse_dash(struct sbio_config *cfg, int argc, char **argv, int *i, bool *want_help,
                      bool *want_version)
{
    const char *a = argv[*i];
    if (!strcmp(a, "-o")) {
        if (*i + 1 >= argc) {
            sbio_err("-o needs a value: the output file");
            return -EINVAL;
        }
        bool old;
        opt_mark_given(cfg, opt_find("output", 6, &old));
        cfg->output = argv[++*i];
        return 0;
    }
    if (!strcmp(a, "-h")) {
        *want_help = true;
        return 0;
    }
    if (a[1] != '-') {
        sbio_err("unknown option '%s'; options are long (--name=value), see sbio help", a);
        return -EINVAL;
    }
    const char *name = a + 2;
    const char *eq = strchr(name, '=');
    size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
    const char *value = eq ? eq + 1 : NULL;
    bool is_help = opt_name_is("help", name, nlen);
    if (is_help || opt_name_is("version", name, nlen)) {
        /* sysbench's booleans: --help=on is --help, --help=off nothing. */
        bool on = true;
        if (value && sbio_parse_bool(value, &on)) {
            sbio_err("--%.*s: '%s' is not valid; accepted: on/off, true/false, yes/no, 1/0",
                     (int)nlen, name, value);
            return -EINVAL;
        }
        if (on && is_help)
            *want_help = true;
        else if (on)
            *want_version = true;
        return 0;
    }
    int rc = parse_script_opt(cfg, name, nlen, value, argc, argv, i);
    return rc ? (rc < 0 ? rc : 0) : parse_option(cfg, name, nlen, value, argc, argv, i);
}

/* diff's "--" parts its two sides' files (options may follow, as anywhere). 0 or -EINVAL. */
static int parse_diff_split(struct sbio_config *cfg)
{
    if (cfg->diff_split >= 0) {
        sbio_err("diff: '--' given twice; accepted: sbio diff A1.json A2.json ... -- B1.json "
                 "B2.json ...");
        return -EINVAL;
    }
    cfg->diff_split = cfg->nargs;
    return 0;
}

unsigned sbio_options_verbosity(int argc, char **argv)
{
    unsigned level = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--"))
            break;
        if (strncmp(a, "--", 2))
            continue;
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (!opt_name_is("verbosity", a + 2, len))
            continue;
        v = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
        if (v && v[0] >= '0' && v[0] <= '5' && !v[1])
            level = (unsigned)(v[0] - '0');
    }
    return level;
}

int sbio_options_parse(struct sbio_config *cfg, int argc, char **argv)
{
    cfg->argc = argc;
    cfg->argv = argv;
    opt_where[0] = 0;
    int crc = conf_read_all(cfg, argc, argv);
    if (crc)
        return crc;
    bool want_help = false, want_version = false, only_args = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc;
        if (only_args || a[0] != '-' || !a[1])
            rc = parse_word(cfg, a);
        else if (!strcmp(a, "--") && cfg->cmd == SBIO_CMD_DIFF)
            rc = parse_diff_split(cfg);
        else if (!strcmp(a, "--"))
            rc = 0, only_args = true;
        else
            rc = parse_dash(cfg, argc, argv, &i, &want_help, &want_version);
        if (rc)
            return rc;
    }
    if (want_version && !want_help) {
        /* --version is a flag, as sysbench's: whatever else the line says, the version. */
        cfg->cmd = SBIO_CMD_VERSION;
        cfg->nargs = 0;
    }
    if (want_help) {
        /* "sbio run --help" is "sbio help run". */
        if (cfg->cmd != SBIO_CMD_NONE && cfg->cmd != SBIO_CMD_HELP) {
            cfg->args[0] = sbio_cmd_names[cfg->cmd];
            cfg->nargs = 1;
        }
        cfg->cmd = SBIO_CMD_HELP;
    }
    opt_note_test(cfg);
    return 0;
}

int sbio_options_range(const char *name, uint64_t *min, uint64_t *max)
{
    bool old;
    const struct optdef *d = opt_find(name, strlen(name), &old);
    if (!d || (d->type != T_UINT && d->type != T_SIZE))
        return -ENOENT;
    *min = d->min;
    *max = d->max;
    return 0;
}

int sbio_options_set(struct sbio_config *cfg, const char *name, const char *value, unsigned cmds)
{
    bool old;
    const struct optdef *d = opt_find(name, strlen(name), &old);
    if (!d || d->type >= T_TEST || !(d->cmds & cmds)) {
        sbio_err("--vary %s: not an option of sbio run", name);
        return -EINVAL;
    }
    if (d->flags & OPT_LATER) {
        sbio_err("--vary %s: not implemented yet", name);
        return -EINVAL;
    }
    if (opt_set(cfg, d, value))
        return -EINVAL;
    opt_mark_given(cfg, d);
    return 0;
}

bool sbio_options_known(const char *name, unsigned cmds)
{
    bool old;
    const struct optdef *d = opt_find(name, strlen(name), &old);
    return d && d->type < T_TEST && (d->cmds & cmds);
}

void sbio_options_forget(struct sbio_config *cfg, unsigned cmds)
{
    size_t nopts;
    const struct optdef *opts = opt_table(&nopts);
    for (size_t i = 0; i < nopts; i++)
        if (opts[i].cmds && !(opts[i].cmds & ~cmds))
            cfg->given[i / 64] &= ~(1ULL << (i % 64));
}

bool sbio_options_given(const struct sbio_config *cfg, const char *name)
{
    bool old;
    const struct optdef *d = opt_find(name, strlen(name), &old);
    if (!d)
        return false;
    size_t nopts;
    const struct optdef *opts = opt_table(&nopts);
    size_t i = (size_t)(d - opts);
    if (cfg->given[i / 64] & (1ULL << (i % 64)))
        return true;
    /* --validate and --verify set the same field: either counts. */
    for (size_t j = 0; j < nopts; j++)
        if (j != i && opts[j].type == d->type && opts[j].off == d->off && d->off &&
            (cfg->given[j / 64] & (1ULL << (j % 64))))
            return true;
    return false;
}

const char *sbio_options_plot_format(const struct sbio_config *cfg)
{
    return sbio_options_given(cfg, "output-format")
               ? table_choice("output-format", cfg->output_format)
               : NULL;
}

/* plot's results and its output's file: a chart (.png, .svg) or a report (.html), or any name
 * with --output-format=png|svg|html. */
static int opt_check_plot(const struct sbio_config *cfg)
{
    if (!cfg->nargs) {
        sbio_err("plot needs one or more JSON results: sbio plot r1.json [r2.json…] -o "
                 "chart.png");
        return -EINVAL;
    }
    if (sbio_options_given(cfg, "output-format") && cfg->output_format < SBIO_OUT_HTML) {
        sbio_err("plot: --output-format=%s: plot writes png, svg or html (text, json and csv "
                 "are run's and compare's)",
                 table_choice("output-format", cfg->output_format));
        return -EINVAL;
    }
    size_t ol = cfg->output ? strlen(cfg->output) : 0;
    bool named =
        ol > 4 && (!strcmp(cfg->output + ol - 4, ".png") || !strcmp(cfg->output + ol - 4, ".svg") ||
                   !strcmp(cfg->output + ol - 4, ".htm") ||
                   (ol > 5 && !strcmp(cfg->output + ol - 5, ".html")));
    if (!cfg->output || !*cfg->output || (!named && !sbio_options_given(cfg, "output-format"))) {
        sbio_err("plot needs -o FILE ending in .png, .svg or .html (or --output-format=png|svg|"
                 "html)%s%s",
                 cfg->output ? ", not " : "", cfg->output ? cfg->output : "");
        return -EINVAL;
    }
    return 0;
}

/* survey takes no words after the command; its budget and battery it checks itself. */
static int opt_check_survey(const struct sbio_config *cfg)
{
    if (cfg->nargs) {
        sbio_err("survey takes no arguments, found '%s'; accepted: sbio survey --dir=DIR "
                 "[--schedulers=LIST] [--budget=TIME] [--battery=FILE] [--format=text|mail] "
                 "[-o survey.json]",
                 cfg->args[0]);
        return -EINVAL;
    }
    if (!(cfg->target_ci > 0 && cfg->target_ci < 100)) {
        sbio_err("--target-ci=%g: accepted: a percentage above 0 and below 100, e.g. 5%%",
                 cfg->target_ci);
        return -EINVAL;
    }
    if (cfg->filename && sbio_options_given(cfg, "dir")) {
        sbio_err("survey: --dir=%s and --filename=%s: accepted: one of them (a folder for the "
                 "workloads' sets, or a raw device surveyed read-only)",
                 cfg->dir, cfg->filename);
        return -EINVAL;
    }
    return 0;
}

/* The file set a command that works on one is given, and the words after the command. */
static int opt_check_set(const struct sbio_config *cfg)
{
    if (cfg->cmd == SBIO_CMD_PREPARE && cfg->verify && cfg->prealloc == SBIO_PREALLOC_FALLOCATE) {
        sbio_err("--verify with --file-prealloc=fallocate: verification needs every block "
                 "written with its header; accepted: --file-prealloc=write");
        return -EINVAL;
    }
    if (cfg->filename && (cfg->cmd == SBIO_CMD_PREPARE || cfg->cmd == SBIO_CMD_CLEANUP)) {
        sbio_err("--filename=%s: a raw device needs no %s (the device is the set); use run",
                 cfg->filename, sbio_cmd_name(cfg->cmd));
        return -EINVAL;
    }
    if (cfg->nargs) {
        sbio_err("%s takes no arguments, found '%s'; options are written --name=value",
                 sbio_cmd_name(cfg->cmd), cfg->args[0]);
        return -EINVAL;
    }
    if (cfg->file_per_rank && cfg->filename) {
        sbio_err("--file-per-rank with --filename=%s: a raw device is one set for every rank; "
                 "accepted: --file-per-rank with a file set in --dir",
                 cfg->filename);
        return -EINVAL;
    }
    return 0;
}

/* The commands an option belongs to, as "prepare, run and cleanup", into buf. */
static const char *opt_cmds_text(unsigned cmds, char *buf, size_t n)
{
    const char *w[SBIO_CMD_NR];
    int k = 0;
    for (int c = SBIO_CMD_PREPARE; c < SBIO_CMD_NR; c++)
        if (cmds & SBIO_C(c))
            w[k++] = sbio_cmd_name((enum sbio_cmd)c);
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < k && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s",
                               i == 0       ? ""
                               : i == k - 1 ? " and "
                                            : ", ",
                               w[i]);
    return buf;
}

/* Whether an option given to cmd is another command's and means nothing to cmd. compare's,
 * diff's and plot's own options mean nothing to another command (a run given --schedulers
 * would silently run one setting); and compare, diff and plot take nothing but their own (a
 * diff given --threads, a compare given --verbosity would quietly ignore it). prepare, run
 * and cleanup take each other's options, as sysbench does: one command line, three verbs. */
static bool opt_foreign(const struct optdef *d, enum sbio_cmd cmd)
{
    const unsigned own =
        SBIO_C(SBIO_CMD_COMPARE) | SBIO_C(SBIO_CMD_DIFF) | SBIO_C(SBIO_CMD_PLOT) | SURVEY;
    if (!d->cmds || (d->cmds & SBIO_C(cmd)))
        return false;
    return !(d->cmds & ~own) || (SBIO_C(cmd) & own);
}

/* Options given that this command does not take: another command's own, or one not
 * implemented yet. */
static int opt_check_given(const struct sbio_config *cfg)
{
    size_t nopts;
    const struct optdef *opts = opt_table(&nopts);
    for (size_t i = 0; i < nopts; i++) {
        if ((cfg->given[i / 64] & (1ULL << (i % 64))) && opt_foreign(&opts[i], cfg->cmd)) {
            char cmds[96];
            sbio_err("--%s is an option of sbio %s, not of %s", opts[i].name,
                     opt_cmds_text(opts[i].cmds, cmds, sizeof(cmds)), sbio_cmd_name(cfg->cmd));
            return -EINVAL;
        }
    }
    for (size_t i = 0; i < nopts; i++) {
        if ((opts[i].flags & OPT_LATER) && (cfg->given[i / 64] & (1ULL << (i % 64)))) {
            sbio_err("--%s: not implemented yet", opts[i].name);
            return -EINVAL;
        }
    }
    return 0;
}

/* Settings that two options spell: the one given decides, and both given must agree. */
static int opt_check_spellings(struct sbio_config *cfg)
{
    /* -o r.json or r.csv chooses the format unless --output-format says otherwise. */
    if (cfg->output && !sbio_options_given(cfg, "output-format")) {
        size_t l = strlen(cfg->output);
        if (l > 5 && !strcmp(cfg->output + l - 5, ".json"))
            cfg->output_format = SBIO_OUT_JSON;
        else if (l > 4 && !strcmp(cfg->output + l - 4, ".csv"))
            cfg->output_format = SBIO_OUT_CSV;
    }
    /* sysbench's --file-io-mode, by enum sbio_io_mode, names one of the engines. */
    static const char *const io_mode_engine[] = {"sync", "libaio", "mmap"};
    if (sbio_options_given(cfg, "file-io-mode")) {
        const char *mode = table_choice("file-io-mode", cfg->io_mode);
        int e = sbio_engine_id(io_mode_engine[cfg->io_mode]);
        if (e < 0) {
            sbio_err("--file-io-mode=%s needs the %s engine, which is not in this build; "
                     "engines in this build: %s",
                     mode, io_mode_engine[cfg->io_mode], sbio_engine_list());
            return -EINVAL;
        }
        if (sbio_options_given(cfg, "ioengine") && cfg->ioengine != e) {
            sbio_err("--file-io-mode=%s and --ioengine=%s disagree; give one of them", mode,
                     sbio_engine_name(cfg->ioengine));
            return -EINVAL;
        }
        cfg->ioengine = e;
    }
    if (sbio_options_given(cfg, "file-async-backlog")) {
        if (sbio_options_given(cfg, "iodepth") && cfg->iodepth != cfg->async_backlog) {
            sbio_err("--file-async-backlog=%" PRIu64 " and --iodepth=%" PRIu64
                     " disagree; give one of them",
                     cfg->async_backlog, cfg->iodepth);
            return -EINVAL;
        }
        cfg->iodepth = cfg->async_backlog;
    }
    return 0;
}

/* A request is one pread/pwrite: keep it within what one call transfers (and a per-thread
 * buffer). */
static int opt_check_request(const struct sbio_config *cfg)
{
    uint64_t merged = cfg->merged_requests > 1 ? cfg->merged_requests : 1;
    uint64_t req = cfg->block_size * merged;
    if (req > SBIO_GIB || req / cfg->block_size != merged) {
        sbio_err("--file-block-size=%" PRIu64 " with --file-merged-requests=%" PRIu64
                 " makes requests of more than 1 GiB; accepted: block x merged <= 1G",
                 cfg->block_size, cfg->merged_requests);
        return -EINVAL;
    }
    return 0;
}

/* run's and compare's engine: in this build, and able to do what the options ask. */
static int opt_check_engine(const struct sbio_config *cfg)
{
    const struct sbio_engine_ops *eng = sbio_engine_find(cfg->ioengine);
    if (!eng) {
        sbio_err("--ioengine=%s: not in this build; accepted: %s", sbio_engine_name(cfg->ioengine),
                 sbio_engine_list());
        return -EINVAL;
    }
    if ((eng->flags & SBIO_ENG_NO_DIRECT) && (cfg->extra_flags & SBIO_XF_DIRECT)) {
        char ok[128];
        sbio_err("--file-extra-flags=direct: the %s engine cannot do O_DIRECT (it goes "
                 "through the page cache); accepted engines: %s",
                 eng->name,
                 sbio_engine_names(ok, sizeof(ok), ", ", SBIO_ENG_NO_DIRECT | SBIO_ENG_NO_IO));
        return -EINVAL;
    }
    return 0;
}

/* compare writes one JSON document (its runs and its table), never CSV lines: -o r.csv
 * would get JSON. */
static int opt_check_output(const struct sbio_config *cfg)
{
    if (cfg->output_format >= SBIO_OUT_HTML) {
        sbio_err("--output-format=%s is plot's (sbio plot R.json -o report.html); %s writes "
                 "text, json or csv",
                 table_choice("output-format", cfg->output_format),
                 cfg->cmd == SBIO_CMD_COMPARE ? "compare" : "run");
        return -EINVAL;
    }
    if (cfg->cmd == SBIO_CMD_COMPARE && cfg->output_format == SBIO_OUT_CSV) {
        sbio_err("compare has no CSV output: it writes one JSON document, -o FILE.json "
                 "(--output-format=csv is for run)");
        return -EINVAL;
    }
    return 0;
}

/* run's and compare's workload: a mode or a script. */
static int opt_check_workload(const struct sbio_config *cfg)
{
    bool mode_varies = false;
    for (int i = 0; i < cfg->nvary; i++)
        mode_varies |= !strncmp(cfg->vary[i], "file-test-mode=", 15);
    if (cfg->mode == SBIO_MODE_NONE && !cfg->script &&
        !(cfg->cmd == SBIO_CMD_COMPARE && mode_varies)) {
        char modes[128];
        sbio_err("run needs --file-test-mode; accepted: %s",
                 opt_choices(opt_named("file-test-mode")->choices, ", ", modes, sizeof(modes)));
        return -EINVAL;
    }
    if (cfg->invalidate == 2 && cfg->script) {
        sbio_err("--invalidate=pass is the command line's job's; a script's job asks with "
                 "invalidate = \"pass\"; accepted with --script: on, off");
        return -EINVAL;
    }
    if (cfg->invalidate == 2 && !mode_varies && !sbio_mode_sequential(cfg->mode) &&
        cfg->random_order != SBIO_ORDER_ONCE) {
        sbio_err("--invalidate=pass goes with a sequential mode (seqwr, seqrewr, seqrd) or "
                 "--random-order=once; --random-order=draw has no passes");
        return -EINVAL;
    }
    if (cfg->nphase && !cfg->script) {
        sbio_err("--phase=%s names a phase of a script; give --script", cfg->phase[0]);
        return -EINVAL;
    }
    if (cfg->random_order == SBIO_ORDER_ONCE && !cfg->script && !mode_varies &&
        sbio_mode_sequential(cfg->mode)) {
        sbio_err("--random-order=once goes with a random mode (rndrd, rndwr, rndrw); "
                 "--file-test-mode=%s walks the set in order",
                 table_choice("file-test-mode", cfg->mode));
        return -EINVAL;
    }
    return 0;
}

/* The most operations a second one thread is paced at. The runner spaces a thread's
 * operations 1e9 * threads / rate ns apart, truncated to whole nanoseconds: from 100 ns up
 * that costs under 1% of the rate, while above 10^9/s the step is 0 and nothing is paced. No
 * engine comes near 10^7 operations a second from one thread. */
#define OPT_RATE_PER_THREAD 10000000ULL

/* --rate: only what can be paced. Each rank paces its share over its threads. */
static int opt_check_rate(const struct sbio_config *cfg, unsigned nranks)
{
    uint64_t share = cfg->rate / nranks + (cfg->rate % nranks != 0);
    if (share <= cfg->threads * OPT_RATE_PER_THREAD)
        return 0;
    uint64_t max = cfg->threads * OPT_RATE_PER_THREAD * nranks;
    char ranks[48] = "";
    if (nranks > 1)
        snprintf(ranks, sizeof(ranks), " on each of %u ranks", nranks);
    sbio_err("--rate=%" PRIu64 " with %" PRIu64 " thread%s%s cannot be paced: at most %llu "
             "operations/s per thread (a step of 100 ns); accepted: --rate up to %" PRIu64
             ", more --threads, or 0 for unlimited",
             cfg->rate, cfg->threads, cfg->threads == 1 ? "" : "s", ranks, OPT_RATE_PER_THREAD,
             max);
    return -EINVAL;
}

/* Several processes (MPI ranks) split the run's totals and may share one set. */
static int opt_check_ranks(const struct sbio_config *cfg, unsigned nranks)
{
    if (nranks > 1 && cfg->events && cfg->events < nranks) {
        sbio_err("--events=%" PRIu64 " over %u ranks leaves some ranks none; accepted: at "
                 "least %u (one per rank), or 0 for no limit",
                 cfg->events, nranks, nranks);
        return -EINVAL;
    }
    if (nranks > 1 && cfg->rate && cfg->rate < nranks) {
        sbio_err("--rate=%" PRIu64 " over %u ranks leaves some ranks no rate; accepted: at "
                 "least %u (one per rank), or 0 for unlimited",
                 cfg->rate, nranks, nranks);
        return -EINVAL;
    }
    if (nranks > 1 && !cfg->file_per_rank && !cfg->filename && cfg->mode == SBIO_MODE_SEQWR) {
        sbio_err("--file-test-mode=seqwr on a set shared by %u ranks: seqwr empties the "
                 "files every rank writes; accepted: --file-per-rank, or seqrewr (each "
                 "rank rewrites its own slice of the shared set)",
                 nranks);
        return -EINVAL;
    }
    return 0;
}

/* --warmup and its settings: one spelling of a fixed warm-up, auto's settings only with
 * auto, and a cap that leaves the detector's window room. */
static int opt_check_warmup(const struct sbio_config *cfg, unsigned nranks)
{
    if (sbio_options_given(cfg, "warmup") && sbio_options_given(cfg, "warmup-time")) {
        sbio_err("--warmup and --warmup-time both given; give one of them (--warmup=N is "
                 "--warmup-time=N, --warmup=auto waits for the throughput to settle)");
        return -EINVAL;
    }
    const char *only = sbio_options_given(cfg, "warmup-max")         ? "warmup-max"
                       : sbio_options_given(cfg, "warmup-tolerance") ? "warmup-tolerance"
                                                                     : NULL;
    if (only && !cfg->warmup_auto) {
        sbio_err("--%s goes with --warmup=auto; a fixed warm-up (--warmup=N) has no cap or "
                 "tolerance",
                 only);
        return -EINVAL;
    }
    if (!(cfg->warmup_tol_pct > 0 && cfg->warmup_tol_pct < 100)) {
        sbio_err("--warmup-tolerance=%g is not valid; accepted: a percentage above 0 and "
                 "below 100",
                 cfg->warmup_tol_pct);
        return -EINVAL;
    }
    if (cfg->warmup_auto && cfg->warmup_max_s < SBIO_WARMUP_WINDOW) {
        sbio_err("--warmup-max=%" PRIu64 " is shorter than the %u s window --warmup=auto "
                 "watches; accepted: %u or more",
                 cfg->warmup_max_s, SBIO_WARMUP_WINDOW, SBIO_WARMUP_WINDOW);
        return -EINVAL;
    }
    if (cfg->warmup_auto && nranks > 1) {
        sbio_err("--warmup=auto under mpirun (%u ranks): the ranks cannot agree on when "
                 "measuring starts; use --warmup=N",
                 nranks);
        return -EINVAL;
    }
    return 0;
}

/* diff's files: two, or with "--" one side's before it and the other's after, none empty.
 * What they hold is sbio_diff's to check. 0 or -EINVAL. */
static int opt_check_diff(const struct sbio_config *cfg)
{
    const char *use = "accepted: sbio diff A.json B.json, or several runs a side: sbio diff "
                      "A1.json A2.json ... -- B1.json B2.json ...";
    if (cfg->diff_split < 0 && cfg->nargs != 2) {
        sbio_err("diff takes two results, or two sides' runs parted by '--', not %d file%s "
                 "without '--'; %s",
                 cfg->nargs, cfg->nargs == 1 ? "" : "s", use);
        return -EINVAL;
    }
    if (cfg->diff_split == 0 || cfg->diff_split == cfg->nargs) {
        sbio_err("diff: no file %s '--' (side %s is empty); %s",
                 cfg->diff_split ? "after" : "before", cfg->diff_split ? "B" : "A", use);
        return -EINVAL;
    }
    return 0;
}

int sbio_options_validate(struct sbio_config *cfg, unsigned nranks)
{
    switch (cfg->cmd) {
    case SBIO_CMD_NONE:
        sbio_err("no command given; accepted: %s (sbio help)", cmd_list());
        return -EINVAL;
    case SBIO_CMD_DIFF: return opt_check_given(cfg) ? -EINVAL : opt_check_diff(cfg);
    case SBIO_CMD_PLOT: return opt_check_given(cfg) ? -EINVAL : opt_check_plot(cfg);
    case SBIO_CMD_SURVEY: return opt_check_given(cfg) ? -EINVAL : opt_check_survey(cfg);
    case SBIO_CMD_HELP:
        if (cfg->nargs > 1) {
            sbio_err("help takes at most one command, found '%s' after '%s'; accepted: sbio help "
                     "[COMMAND]",
                     cfg->args[1], cfg->args[0]);
            return -EINVAL;
        }
        return 0;
    case SBIO_CMD_VERSION:
        if (cfg->nargs) {
            sbio_err("version takes no arguments, found '%s'", cfg->args[0]);
            return -EINVAL;
        }
        return 0;
    default: break;
    }
    int rc;
    if ((rc = opt_check_set(cfg)) || (rc = opt_check_given(cfg)) ||
        (rc = opt_check_spellings(cfg)) || (rc = opt_check_request(cfg)))
        return rc;
    if (cfg->cmd != SBIO_CMD_RUN && cfg->cmd != SBIO_CMD_COMPARE)
        return 0;
    if ((rc = opt_check_engine(cfg)) || (rc = opt_check_workload(cfg)) ||
        (rc = opt_check_output(cfg)) || (rc = opt_check_rate(cfg, nranks)) ||
        (rc = opt_check_warmup(cfg, nranks)))
        return rc;
    return opt_check_ranks(cfg, nranks);
}

static void help_option(FILE *out, const struct optdef *d)
{
    char left[64];
    snprintf(left, sizeof(left), "--%s=%s", d->name, d->arg);
    const char *def = d->def[0] ? d->def : NULL;
    fprintf(out, "  %-30s %s", left, d->help);
    if (def)
        fprintf(out, " [%s]", def);
    if (d->old)
        fprintf(out, " (old: --%s)", d->old);
    if (d->flags & OPT_LATER)
        fprintf(out, " (not implemented yet)");
    fputc('\n', out);
}

int sbio_options_help(FILE *out, const char *topic)
{
    enum sbio_cmd only = SBIO_CMD_NONE;
    if (topic) {
        only = cmd_lookup(topic);
        if (only == SBIO_CMD_NONE) {
            sbio_err("help: unknown command '%s'; accepted: %s", topic, cmd_list());
            return -EINVAL;
        }
    }
    if (only == SBIO_CMD_NONE) {
        fprintf(out, "Usage: sbio [OPTIONS] COMMAND [OPTIONS]\n\n"
                     "A multi-threaded file I/O benchmark; a sysbench fileio command line "
                     "works with 'sysbench fileio' replaced by 'sbio'.\n\nCommands:\n");
        for (int c = SBIO_CMD_PREPARE; c < SBIO_CMD_NR; c++)
            fprintf(out, "  %-10s %s\n", sbio_cmd_names[c], cmd_help[c]);
        fprintf(out, "\nOptions (--name=value or --name value; a boolean alone means on; "
                     "sizes take K/M/G/T):\n");
    } else {
        fprintf(out, "Usage: sbio %s [OPTIONS]\n  %s\n\nOptions:\n", sbio_cmd_names[only],
                cmd_help[only]);
    }
    int shown = 0;
    size_t nopts;
    const struct optdef *opts = opt_table(&nopts);
    for (size_t i = 0; i < nopts; i++) {
        const struct optdef *d = &opts[i];
        if (!d->help)
            continue;
        if (only != SBIO_CMD_NONE && !(d->cmds & SBIO_C(only)))
            continue;
        help_option(out, d);
        shown++;
    }
    if (!shown)
        fprintf(out, "  (none)\n");
    if (only == SBIO_CMD_NONE) {
        fprintf(out, "  %-30s %s\n", "-o FILE", "short for --output");
        fprintf(out, "  %-30s %s\n", "--config-file=FILE",
                "options from FILE, one name=value a line (# comments), before the command "
                "line's");
        fprintf(out, "\nAccepted and ignored (sysbench options that do not concern file I/O):"
                     "\n ");
        for (size_t i = 0; i < nopts; i++)
            if (opts[i].type == T_IGNORE || opts[i].type == T_IGNORE_BOOL)
                fprintf(out, " --%s", opts[i].name);
        fprintf(out, " --mysql-* --pgsql-*\n");
        fprintf(out, "\nEngines in this build: %s\n", sbio_engine_list());
    }
    return 0;
}

/* The command line's job: what a plain run runs, and what a script's jobs take where they
 * are silent. */
static void options_job(const struct sbio_config *cfg, struct sbio_script_job *j)
{
    memset(j, 0, sizeof(*j));
    *j = (struct sbio_script_job){
        .threads = (unsigned)cfg->threads,
        .engine = cfg->ioengine,
        .iodepth = (unsigned)cfg->iodepth,
        .flags = cfg->extra_flags,
        .nblocks = 1,
        .block = {cfg->block_size},
        .block_weight = {1},
        .rate = cfg->rate,
        .mode = cfg->mode,
        .stream = cfg->seq_stream,
        .fsync_freq = cfg->fsync_freq,
        .fsync_end = cfg->fsync_end,
        .rw_ratio = cfg->rw_ratio,
        .invalidate = cfg->invalidate != 0,
        .invalidate_pass = cfg->invalidate == 2,
        .fadvise = cfg->fadvise,
        .random_order = cfg->random_order,
        .ioprio = cfg->ioprio,
        .iodepth_batch = cfg->iodepth_batch,
        .cpus = cfg->cpus,
        .merged_requests = cfg->merged_requests,
        .fsync_all = cfg->fsync_all,
        .fsync_mode = cfg->fsync_mode,
        .fsync_scope = cfg->fsync_scope,
        .warmup_s = cfg->warmup_s,
        .warmup_auto = cfg->warmup_auto,
        .warmup_max_s = cfg->warmup_max_s,
        .warmup_tol_pct = cfg->warmup_tol_pct,
        .verify = cfg->verify,
        .verify_fatal = cfg->verify_fatal,
    };
    memcpy(j->engine_opt, cfg->engine_opt, sizeof(j->engine_opt));
}

void sbio_options_settings(const struct sbio_config *cfg, struct sbio_settings *set)
{
    *set = (struct sbio_settings){
        .cmd = cfg->cmd,
        .dir = cfg->dir,
        .filename = cfg->filename,
        .queue_device = cfg->queue_device,
        .file_per_rank = cfg->file_per_rank,
        .mode = cfg->mode,
        .file_num = cfg->file_num,
        .total_size = cfg->total_size,
        .block_size = cfg->block_size,
        .file_num_given = sbio_options_given(cfg, "file-num"),
        .total_size_given = sbio_options_given(cfg, "file-total-size"),
        .block_size_given = sbio_options_given(cfg, "file-block-size"),
        .verify_given = sbio_options_given(cfg, "verify"),
        .fill_given = sbio_options_given(cfg, "file-fill"),
        .nfile_sizes = cfg->nfile_sizes,
        .file_sizes = cfg->file_sizes,
        .fill = cfg->fill,
        .fill_pct = cfg->fill_pct,
        .prealloc = cfg->prealloc,
        .adopt = cfg->adopt,
        .allow_destroy = cfg->allow_destroy,
        .extra_flags = cfg->extra_flags,
        .verify = cfg->verify,
        .rand_seed = cfg->rand_seed,
        .scheduler = cfg->scheduler,
        .queue = cfg->queue,
        .nqueue = cfg->nqueue,
        .drop_caches = cfg->drop_caches,
        .invalidate = cfg->invalidate != 0,
        .memory_limit = cfg->memory_limit,
        .events_rw = cfg->events_rw,
        .report_interval_s = cfg->report_interval_s,
        .log_interval_ms = cfg->log_interval_ms,
        .percentile = cfg->percentile,
        .histogram = cfg->histogram,
        .argc = cfg->argc,
        .argv = cfg->argv,
        .script = cfg->script,
        .xname = cfg->xname,
        .xvalue = cfg->xvalue,
        .nxopt = cfg->nxopt,
    };
    options_job(cfg, &set->job);
}

void sbio_options_declare(const struct sbio_settings *set, const struct sbio_config *cfg,
                          struct sbio_script *decl)
{
    memset(decl, 0, sizeof(*decl));
    decl->plain = true;
    decl->nphases = 1;
    struct sbio_script_phase *p = &decl->phases[0];
    snprintf(p->name, sizeof(p->name), "run");
    p->time_s = cfg->time_s;
    p->events = cfg->events;
    p->njobs = 1;
    p->jobs[0] = set->job;
}

void sbio_options_default_job(struct sbio_script_job *job, uint64_t *time_s)
{
    struct sbio_config def;
    sbio_options_defaults(&def);
    options_job(&def, job);
    *time_s = def.time_s;
}
