/* sbio diff: per-metric differences between two saved results. */
#ifndef SBIO_DIFF_H
#define SBIO_DIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What diff is given: its files, its options, and its command line (for the JSON it writes). */
struct sbio_diff_opts {
    int nargs;
    const char *const *args;
    int diff_split; /* the words before its "--" (side A's files); -1: no "--" */
    const char *metrics;
    const char *output;
    uint64_t threshold;
    bool threshold_given; /* --threshold was given (the JSON says null otherwise) */
    int argc;
    char **argv;
};

/* Compare side A's files with side B's: opt->args before the "--" (opt->diff_split) and after
 * it, or without "--" opt->args[0] (A, the baseline) with opt->args[1] (B). Each a JSON
 * written by `sbio run -o` (sbio-result/1, sbio-script/1) or `sbio compare -o`
 * (sbio-compare/1, one a side). Writes to out first every setting that differs between A's
 * files and B's (each workload option of the results' "config", a script's file, command-line
 * options and jobs' fields, the machine's "environment", each device's scheduler, queue files
 * and tunables; older results too), then for one run result a side (without --metrics) one row
 * per metric: A, B and the % difference, never marked better or worse, and a line saying why
 * (one run a side does not measure noise) and how many runs would; for several runs a side,
 * script results or --metrics, the comparison table (table.h) of A's runs against B's (that
 * line too when a side has one run); for two compares, that table per setting of both; for two
 * surveys (sbio-survey/1, one a side), B's change from A per cell both have (rows matched by
 * workload, job and metric, schedulers by name), its 95% CI and Welch's test of the log ratio, Holm
 * over the table, in the survey's layout within 72 columns (survey.h). With -o, the settings that
 * differ and the tables' figures (sbio-diff/1) to opt->output. Returns 0; -SBIO_EFAILED when
 * --threshold=P is given explicitly and B is worse than A by more than P% (rows: a throughput
 * metric's point difference; the table and a survey's cells: the whole 95% CI of a throughput
 * metric below -P%, or of a latency or time metric above +P%; each named in one line on stderr
 * after the table), or when -o could not be written; -SBIO_EUSAGE for bad input (a file that is not
 * an sbio result, a compare beside runs or two on a side, files whose phases or jobs differ, a bad
 * --metrics) with one line on stderr and nothing written to out. */
int sbio_diff(const struct sbio_diff_opts *opt, FILE *out);

/* Whether each field diff and plot read from a result (doc, loaded from path; a compare's
 * when compare is true, its runs' results too) has the type sbio writes there; null and
 * absent are "missing". 0, or -SBIO_EUSAGE after one line on stderr, "CMD: PATH: FIELD is not
 * …" (cmd: "diff", "plot"). */
int sbio_diff_check_types(const char *cmd, const char *path, json_t *doc, bool compare);

#endif
