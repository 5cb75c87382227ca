/* sbio survey: which scheduler for which workload on one device. A battery of workloads
 * (shipped scripts or built-in modes, each with the metrics that matter for it) is run under
 * every scheduler the device offers, each workload as one compare (schedulers interleaved
 * within each round, --repeat=auto), within a time budget planned before anything runs. The
 * answer is one matrix, workloads × schedulers: each cell's mean with its 95% CI and its
 * difference to the row's best mean, tested (Welch's test of the log ratio) and corrected
 * with Holm–Bonferroni over the whole matrix, and a verdict per row that names a winner only
 * when the test says so.
 *
 * The battery, one workload per line ('#' starts a comment):
 *   NAME SCRIPT SECONDS METRICS [--OPTION=VALUE ...]
 * NAME the row's name; SCRIPT a workload script (as --script finds it), or '-' for sbio's
 * built-in modes; SECONDS about how long one run lasts (what the plan counts; the run's own
 * length is the options' business, --time=S); METRICS [JOB/]METRIC:higher|lower[,...], each a
 * row of the matrix (a metric of --metrics, of the job named, or of the phase's jobs
 * together); OPTIONS the workload's options, given to its prepare, compare and cleanup. */
#ifndef SBIO_MATRIX_H
#define SBIO_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_t;

#define SBIO_SURVEY_MAX_LINES   24
#define SBIO_SURVEY_MAX_METRICS 4
#define SBIO_SURVEY_MAX_ROWS    (SBIO_SURVEY_MAX_LINES * SBIO_SURVEY_MAX_METRICS)
#define SBIO_SURVEY_MAX_OPTS    16
#define SBIO_SURVEY_MAX_SCHEDS  8
/* --repeat=auto's least runs per setting, and what the plan adds to each run's SECONDS (the
 * run's start, the drop of its set's pages, the scheduler's switch). */
#define SBIO_SURVEY_MIN_RUNS   3
#define SBIO_SURVEY_OVERHEAD_S 0.5

struct sbio_survey_metric {
    char job[64];  /* "": the phase's jobs together (or its only job) */
    size_t metric; /* index in the table's metric catalogue */
    int better;    /* +1: higher is better, -1: lower */
};

struct sbio_survey_line {
    char name[48];
    char script[256]; /* "-": the built-in modes */
    double seconds;
    struct sbio_survey_metric m[SBIO_SURVEY_MAX_METRICS];
    size_t nm;
    char *opt[SBIO_SURVEY_MAX_OPTS];
    size_t nopt;
};

struct sbio_survey_battery {
    struct sbio_survey_line line[SBIO_SURVEY_MAX_LINES];
    size_t n, nrows;
};

/* The battery in text (path names it in messages) into b (zeroed first). 0, or -EINVAL with
 * one line in err ("FILE:LINE: what was wrong; accepted: ..."), or -ENOMEM. */
int sbio_survey_battery_parse(const char *text, const char *path, struct sbio_survey_battery *b,
                              char *err, size_t errlen);
void sbio_survey_battery_free(struct sbio_survey_battery *b);

/* The plan of a survey: each line's least time (nsched × SBIO_SURVEY_MIN_RUNS runs of its
 * SECONDS + SBIO_SURVEY_OVERHEAD_S) and its share of the budget (its least time, and of the
 * rest in proportion to it). */
struct sbio_survey_plan {
    double least[SBIO_SURVEY_MAX_LINES], share[SBIO_SURVEY_MAX_LINES];
    double least_total, budget;
};

/* 0, or -ERANGE when the least time is over the budget (p->least_total says how much it
 * needs; the shares are then the least times). */
int sbio_survey_plan(const struct sbio_survey_battery *b, size_t nsched, double budget_s,
                     struct sbio_survey_plan *p);

/* Line i's share of what is left of the budget (left_s) when lines i.. are still to run:
 * left_s in proportion to their least times, never below its own least time. */
double sbio_survey_share(const struct sbio_survey_plan *p, size_t n, size_t i, double left_s);

/* "10m", "90s", "1h30m", "2h", "600" (seconds) into seconds (above 0, at most 7 days). 0 or
 * -EINVAL. */
int sbio_survey_parse_budget(const char *s, double *out);

/* ---- the matrix ---- */

struct sbio_survey_cell {
    size_t n;
    double *val;             /* n values (owned by the matrix) */
    double mean, sd, half;   /* half: the 95% CI's half-width, NAN for n < 2 */
    double diff_pct, lo, hi; /* to the row's best: %, its 95% CI (NAN: none) */
    double p, p_holm;        /* the test against the best, Holm's over the matrix; -1: none */
    bool best, sig;          /* the row's best mean; significantly different from it */
};

struct sbio_survey_row {
    char workload[48], job[64];
    size_t metric; /* index in the table's metric catalogue */
    int better;
    struct sbio_survey_cell cell[SBIO_SURVEY_MAX_SCHEDS];
    size_t best; /* SIZE_MAX: no cell has a value */
};

struct sbio_survey_matrix {
    size_t nrows, ns, ntests;
    char sched[SBIO_SURVEY_MAX_SCHEDS][32];
    struct sbio_survey_row row[SBIO_SURVEY_MAX_ROWS];
};

/* Set row r's cell s to n values (copied). 0 or -ENOMEM. */
int sbio_survey_cell_set(struct sbio_survey_matrix *m, size_t r, size_t s, const double *v,
                         size_t n);
void sbio_survey_matrix_free(struct sbio_survey_matrix *m);

/* Every cell's figures from its values: the best of each row, the tests against it, Holm's
 * correction over the whole matrix (significant: adjusted p below 5%). */
void sbio_survey_matrix_compute(struct sbio_survey_matrix *m);

/* Row r's verdict in a sentence (never a winner without a significant difference). */
void sbio_survey_verdict(const struct sbio_survey_matrix *m, size_t r, char *buf, size_t len);

/* The matrix as text: mail keeps every line within 72 columns (four schedulers' columns at a
 * time, the verdicts wrapped), else one table as wide as it needs. head: lines printed first
 * (may be NULL). */
void sbio_survey_print(const struct sbio_survey_matrix *m, const char *head, bool mail, FILE *out);

/* The matrix as JSON (rows, cells, verdicts). */
struct json_t *sbio_survey_matrix_json(const struct sbio_survey_matrix *m);

/* The matrix of a survey's document (sbio-survey/1, read from a file: untrusted): the
 * schedulers, each row's workload, job, metric and direction and each cell's values, checked
 * (names within their bounds, the metric in the catalogue, every value a finite number);
 * every figure is computed again from the values (sbio_survey_matrix_compute), none taken from
 * the file. 0; -EINVAL with one line in err naming the field; -ENOMEM. */
int sbio_survey_matrix_from_json(struct json_t *doc, struct sbio_survey_matrix *m, char *err,
                                 size_t len);

/* Row r's label ("readers read p99": the job when the row names one, and the metric's header)
 * and its unit as the matrix shows it: durations in the unit that fits the row's best mean
 * (*div: the JSON's unit per shown unit), other units as the metric's. */
void sbio_survey_row_label(const struct sbio_survey_row *row, char *buf, size_t len);
const char *sbio_survey_row_unit(const struct sbio_survey_row *row, double *div);

/* ---- two surveys ---- */

/* One cell of the difference of two surveys: B's change from A (%), its 95% CI (the log
 * ratio's, NAN without two runs a side), Welch's test of the log ratio, Holm's over the table;
 * worse: B's change is in the row's worse direction. */
struct sbio_survey_change {
    const struct sbio_survey_cell *a, *b;
    double pct, lo, hi, p, p_holm; /* p, p_holm -1: no test */
    bool sig, worse;
};

/* The rows both surveys have (same workload, job and metric; A's order), the schedulers both
 * list (A's order). */
struct sbio_survey_diff {
    const struct sbio_survey_matrix *a, *b;
    size_t nrows, ns, ntests;
    size_t ra[SBIO_SURVEY_MAX_ROWS], rb[SBIO_SURVEY_MAX_ROWS], sa[SBIO_SURVEY_MAX_SCHEDS];
    struct sbio_survey_change c[SBIO_SURVEY_MAX_ROWS][SBIO_SURVEY_MAX_SCHEDS];
};

/* d from two computed matrices (which must outlive it). 0, or -ENOENT when they share no row
 * or no scheduler. */
int sbio_survey_diff_compute(const struct sbio_survey_matrix *a, const struct sbio_survey_matrix *b,
                             struct sbio_survey_diff *d);
/* The difference in the matrix's layout (within 72 columns when mail), its legend and the
 * significant changes. */
void sbio_survey_diff_print(const struct sbio_survey_diff *d, bool mail, FILE *out);
struct json_t *sbio_survey_diff_json(const struct sbio_survey_diff *d);

/* Mail's width, and text (after a first line's prefix, the next lines indented) wrapped at
 * width (0: not wrapped), the spaces kept where it does not break. */
#define SBIO_SURVEY_WIDTH 72
void sbio_survey_wrap(FILE *out, const char *prefix, const char *text, int width, int indent);

#endif
