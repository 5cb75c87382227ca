/* Reports: the text report of a run and the interim lines. (JSON and CSV come with the
 * results work.) */
#ifndef SBIO_REPORT_H
#define SBIO_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "environment.h"
#include "fileset.h"
#include "job.h"
#include "result.h"
#include "stats.h"
#include "sysblock.h"
#include "topology.h"

/* What a report describes besides its result: the job as it ran over every rank (its whole
 * events and rate, its threads on each rank) and the run's settings. */
struct sbio_report_of {
    const struct sbio_settings *set;
    const struct sbio_job *job;
};

/* The sysbench mode a report names for job: its own, or for a mix or per-event job
 * (SBIO_MODE_NONE) rndrw, its largest request as merged blocks (the JSON of a script's job
 * sets its own declaration beside it). */
static inline int sbio_report_mode(const struct sbio_job *job)
{
    return job->mode == SBIO_MODE_NONE ? SBIO_MODE_RNDRW : job->mode;
}

/* The header printed before the run starts: configuration, set, seed. */
void sbio_report_header(FILE *out, const struct sbio_report_of *of,
                        const struct sbio_topology *topo, const struct sbio_fileset *fs,
                        uint64_t seed);

/* The header's line for --memory-limit's group (nothing without one): its limit, hierarchy,
 * file and folder; unless cold (the run drops the set's pages first), a note that pages
 * cached before the run stay charged outside it. */
void sbio_report_memgroup(FILE *out, const struct sbio_memgroup *mg, bool cold);

/* One interim line: the interval between prev and cur (both totals over all threads). */
void sbio_report_interval(FILE *out, const struct sbio_report_of *of, double t_s, double interval_s,
                          const struct sbio_stats *cur, const struct sbio_stats *prev);

/* The final text report. */
void sbio_report_text(FILE *out, const struct sbio_report_of *of, const struct sbio_fileset *fs,
                      const struct sbio_run_result *res);

/* What a text report covers. */
enum sbio_report_scope {
    SBIO_REPORT_WHOLE, /* a run, or a phase's jobs together: every line */
    /* One job among several that ran side by side in this process: CPU time, page faults,
     * device and page-cache counters are the process's, not the job's, so those lines are
     * left to the phase's total (one line says so). */
    SBIO_REPORT_JOB_SHARE,
};

/* The final text report of what scope says res is; sbio_report_text is SBIO_REPORT_WHOLE. */
void sbio_report_text_scope(FILE *out, const struct sbio_report_of *of,
                            const struct sbio_fileset *fs, const struct sbio_run_result *res,
                            enum sbio_report_scope scope);

/* How the jobs of a phase shared it (sbio_result_shares), names[k] job k's: a table of each
 * job's MiB/s, shares of operations and bytes (of reads and writes too when a job did both),
 * weight, asked share and ratio, then Jain's fairness index and what it is over. */
void sbio_report_shares(FILE *out, const struct sbio_shares *sh, const char *const *names);

/* The same as the object `shares` of a script phase's JSON (doc/json.md). A new reference. */
json_t *sbio_json_shares(const struct sbio_shares *sh, const char *const *names);

/* Whether res's reads came from the page cache: it read something, its device counters are
 * known, and the set's top device read less than 1% of the bytes it read. (A read from the
 * device reads at least what was asked, readahead more; a few metadata reads, or another
 * process's, stay far below 1% of a run's reads.) Inline: the text and the JSON reports both
 * ask, and the JSON's is built without the text's. */
static inline bool sbio_report_cached_reads(const struct sbio_run_result *res)
{
    uint64_t asked = sbio_stats_bytes_read(&res->total), dev;
    const char *name;
    if (!asked || !sbio_probe_devices_read(&res->probe, &name, &dev))
        return false;
    return dev < asked / 100;
}

/* A script's phases, one row each, added as each phase is reported, printed as one table
 * after the last. Zeroed: empty. */
struct sbio_phase_row {
    const char *name; /* the script's: must outlive the table */
    unsigned jobs, threads;
    bool measured; /* false: the phase measured nothing (refused, or a job did not start) */
    double secs;
    uint64_t ops, bytes_read, bytes_written, avg_ns, p99_ns;
    int error, error_kind, stop_signal; /* as in the result */
};
struct sbio_phase_table {
    struct sbio_phase_row *rows;
    unsigned n, cap;
};

/* Add phase name's row: res is its jobs' result (their total when there are several); NULL,
 * or a result that measured nothing, for a phase the system refused or a job of which did not
 * start. 0 or -ENOMEM (the row is then missing). */
int sbio_report_phase_add(struct sbio_phase_table *t, const char *name, unsigned jobs,
                          const struct sbio_run_result *res);

/* Print the table when it has more than one row; then empty it (t can be added to again). */
void sbio_report_phases(FILE *out, struct sbio_phase_table *t);

/* The environment part of the JSON document, from the snapshot taken before the run, while
 * the settings sbio applied were still in effect. */
json_t *sbio_json_environment(const struct sbio_environment *e);

/* The settings of a device object of environment.devices as one flat object: each queue
 * file and each iosched tunable ("iosched/NAME"), an integer when the kernel printed one,
 * the scheduler by its name ("mq-deadline", not the kernel's whole line). Built from the
 * device's queue and iosched objects, so a document without "settings" gives them too.
 * A new reference. */
json_t *sbio_json_device_settings(json_t *dev);

/* The whole result document (schema sbio-result/1, see doc/json.md). env is referenced,
 * not stolen. The caller json_decref()s the result. */
json_t *sbio_json_result(const struct sbio_report_of *of, const struct sbio_fileset *fs,
                         const struct sbio_run_result *res, json_t *env);

/* The value at a dotted path ("result.op_types.read.latency.percentiles_ns.99.9"; array
 * elements by index), or NULL. Keys containing dots are found whole. */
json_t *sbio_json_get(json_t *doc, const char *path);

/* A value as a table shows it, into buf: a string as it is, a number as JSON writes it, "-"
 * for null or absent, anything else compact JSON. */
void sbio_json_text(char *buf, size_t len, json_t *v);

/* The number at such a path, or NAN when it is absent or not a number. */
double sbio_json_num(json_t *doc, const char *path);

/* Write the document, indented. 0 or -EIO. */
int sbio_report_json(FILE *out, json_t *doc);

/* The CSV lines of a document (with the header line first when asked): every value is
 * taken from the JSON document, so the two agree. Its schema decides the lines: a run's
 * (sbio-result/1) one line of its main figures; a script's (sbio-script/1) the columns
 * "phase" and "job" first, then the same ones, a line per job of each phase and one for a
 * phase's total (job "total"), a refused phase one line with an empty job and its error
 * "phase refused", a job that failed to start its error alone. 0 or -EIO. */
int sbio_report_csv(FILE *out, json_t *doc, bool header);

/* Room for the longest CSV header line, its line break and NUL included. */
#define SBIO_CSV_HEADER_MAX 4096

/* Whether op type op moves data, so that its MiB/s means something: reads and writes of
 * blocks and of whole files, read-modify-writes, creates and appends (not syncs, not the
 * other metadata operations). */
static inline bool sbio_report_op_bytes(int op)
{
    return op == SBIO_READ || op == SBIO_WRITE || op == SBIO_RMW || op == SBIO_CREATE ||
           op == SBIO_APPEND || op == SBIO_READWHOLE || op == SBIO_WRITEWHOLE;
}

/* The header line (without its line break) sbio_report_csv writes for a script's document
 * (script true) or a run's, into buf: what a CSV file appended to must start with. 0, or
 * -ENOSPC when it does not fit in len. */
int sbio_report_csv_header(char *buf, size_t len, bool script);

/* A script's job as it declared it, for the JSON beside its result (the result's config
 * describes the run, and a mix is no sysbench mode): its threads, engine, blocks, kind (mode,
 * mix with its pattern, event) and page-cache, priority and group settings. */
json_t *sbio_json_declared(const struct sbio_script_job *sj);

/* The errors that stopped a run, as its document's result.errors: [] or [{kind ("io",
 * "script"), message, errno}]. */
json_t *sbio_json_errors(const struct sbio_run_result *res);

/* ", on the tree: stat 4, create 1" (a tree job's mix weights) or ", on the tree: flow open,
 * readwhole, close", into buf, cut short with "…" if it is too long. */
void sbio_report_tree_ops(char *buf, size_t len, const struct sbio_script_job *sj);

#endif
