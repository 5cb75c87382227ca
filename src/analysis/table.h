/* The table of a comparison: settings (rows) × blocks (a phase's jobs, and their total when
 * there are several) × columns (metrics), each cell the values of the setting's runs. From
 * the values: each cell's mean ± sd, its CI, its difference to the first setting (the
 * baseline) with a 95% confidence interval of the ratio of the means (on the log scale: never
 * below -100%) and the test that goes with it (Welch's, of the log ratio), the tests of each
 * phase corrected together (Holm–Bonferroni), and the runs far from their cell's median marked
 * (never dropped). sbio compare fills one as it runs; sbio diff fills one from saved results.
 *
 * A run's document is an sbio-result/1 (one phase, one block) or an sbio-script/1 (its phases;
 * each job's result and, for several jobs, their total). */
#ifndef SBIO_TABLE_H
#define SBIO_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "decl.h"

struct json_t;

/* ---- metrics ---- */

/* How many metrics --metrics=LIST can name, and how many columns a table can have (sbio
 * plot's tables of a compare's runs: four percentiles of every op type). */
#define SBIO_TABLE_MAX_METRICS 16
#define SBIO_TABLE_MAX_COLS    64

/* Metric i's name as --metrics spells it ("ops", "read.p99", ...), or NULL past the end of
 * the catalogue. */
const char *sbio_table_metric_name(size_t i);
/* Metric i's column header ("read p99", "MiB/s") and unit in the JSON ("ns", "MiB/s"). */
const char *sbio_table_metric_header(size_t i);
const char *sbio_table_metric_unit(size_t i);

/* Metric i's value in a block's document (an sbio-result/1, or a script job's or phase
 * total's), share its entry of the phase's shares (NULL: none). NAN when the document does
 * not have it, and for a per-op-type metric (read.p99, ...) when the block did none of it. */
double sbio_table_metric_value(size_t i, struct json_t *doc, struct json_t *share);

/* Metric name's index in the catalogue, or -1 when there is no such metric. */
int sbio_table_metric_index(const char *name);

/* The metrics of LIST ("ops,read.p99,...") into idx[0..*n), as indexes into the catalogue, in
 * the order given. 0, or -EINVAL with one line on stderr naming what was wrong and the
 * accepted names (an unknown or repeated name, an empty list or item, more than
 * SBIO_TABLE_MAX_METRICS). */
int sbio_table_metrics_parse(const char *list, size_t *idx, size_t *n);

/* The columns without --metrics: ops/s and the p99 of each op type (a block shows those it
 * has). */
void sbio_table_metrics_default(size_t *idx, size_t *n);

/* ---- the table ---- */

/* A phase's blocks: its jobs by name, then "total" when it has several. A run of built-in
 * options is one phase of one block, both without a name. */
#define SBIO_TABLE_MAX_BLOCKS (SBIO_SCRIPT_MAX_JOBS + 1)
struct sbio_table_phase {
    char name[64];
    size_t nb;
    char block[SBIO_TABLE_MAX_BLOCKS][64];
};

/* One cell's figures. */
struct sbio_table_cell {
    size_t n;         /* runs with a value */
    double mean, sd;  /* over them (sd: n - 1) */
    double half;      /* 95% CI half-width of the mean; NAN for n < 2 */
    double diff_pct;  /* the mean's difference to the baseline's, % (NAN: none) */
    double lo, hi;    /* its 95% CI, % (NAN: none, see ci) */
    int ci;           /* 0, -ERANGE (unbounded), -EINVAL (a side with fewer than 2 values) */
    double p, p_holm; /* the p-value (sbio_infer_ratio_p), Holm's over the phase; -1: no test */
    size_t nout;      /* values more than SBIO_TABLE_OUTLIER_MADS from the cell's median */
};

#define SBIO_TABLE_ALPHA        0.05
#define SBIO_TABLE_LEVEL        0.95
#define SBIO_TABLE_OUTLIER_MADS 3.0 /* scaled by 1.4826: 3 are 3 sd of normal data */
#define SBIO_TABLE_OUTLIER_MIN  5   /* runs a cell needs before any is marked */

struct sbio_table {
    size_t ns, np, nb, ncol, maxrun; /* nb: the most blocks of a phase */
    struct sbio_table_phase *ph;     /* np */
    size_t col[SBIO_TABLE_MAX_COLS]; /* metric indexes */
    double *val;                     /* [ph][b][s][col][run]: NAN where no value */
    bool *out;                       /* the same shape: outliers */
    unsigned *rep;                   /* [s][run]: the run's repeat (round) number */
    size_t *nrun;                    /* [s]: runs recorded */
    size_t *tried;                   /* [s]: runs made, failed ones too */
    size_t planned;                  /* runs planned per setting; 0: as many as made */
    size_t *nph;                     /* [ph][s]: runs with this phase measured */
    struct sbio_table_cell *cell;    /* [ph][b][s][col] */
    size_t *ntests;                  /* [ph]: comparisons tested in the phase */
};

/* An empty table for ns settings of at most maxrun runs each, of np phases (copied) and the
 * columns col[0..ncol). 0 or -ENOMEM. */
int sbio_table_init(struct sbio_table *t, size_t ns, size_t maxrun,
                    const struct sbio_table_phase *ph, size_t np, const size_t *col, size_t ncol);
void sbio_table_free(struct sbio_table *t);

/* The phases and blocks of a run's document into ph[0..*np) (at most max). 0, or -EINVAL
 * when it is neither a run's nor a script's result. */
int sbio_table_shape(struct json_t *doc, struct sbio_table_phase *ph, size_t max, size_t *np);

/* A run of setting s was made (failed runs too: the table's "runs" says n of those, or of
 * t->planned when that is more). */
void sbio_table_tried(struct sbio_table *t, size_t s);

/* Setting s's run of repeat rep: its values from doc (a refused phase has none). Returns the
 * phases that had values; -ENOSPC when the setting already has maxrun runs. */
int sbio_table_add(struct sbio_table *t, size_t s, unsigned rep, struct json_t *doc);

/* Every cell's figures, the differences to setting 0, the phases' corrected tests and the
 * outlier marks, from the values so far. */
void sbio_table_compute(struct sbio_table *t);

/* The cell (phase ph, block b, setting s, column c). */
static inline const struct sbio_table_cell *sbio_table_cell(const struct sbio_table *t, size_t ph,
                                                            size_t b, size_t s, size_t c)
{
    return &t->cell[((ph * t->nb + b) * t->ns + s) * t->ncol + c];
}

/* Whether block b of phase ph shows column c: a value in some setting's run. The jobs' total
 * leaves out an op type's column that one job alone has (it is that job's, shown above). The
 * corrected tests, the text, the JSON and --repeat=auto's widest CI cover these cells only. */
bool sbio_table_shown(const struct sbio_table *t, size_t ph, size_t b, size_t c);

/* Where the cells of (phase ph, block b, column c) are, in words: "phase write, job readers,
 * read p99" (the phase named when the table has several, the job when it has a name, as a
 * script's have: "all jobs" for their total), for lines about a cell. */
void sbio_table_where(const struct sbio_table *t, size_t ph, size_t b, size_t c, char *buf,
                      size_t len);

/* Setting s's last run in one line, the first phase's first block's columns it has:
 * "9528 ops/s, read.p99 927.7 us". */
void sbio_table_run_text(const struct sbio_table *t, size_t s, char *buf, size_t len);

/* The widest 95% CI of setting s's cells, as % of the mean (computed first), and where it is
 * ("job readers, read p99") into what; NAN when a cell has fewer than 2 values. A cell
 * whose mean is 0 with no spread is settled; one with no value in 2 or more measured runs of
 * its phase (a column only other settings have) is left out. */
double sbio_table_widest(const struct sbio_table *t, size_t s, char *what, size_t len);

/* The tables, one per phase (a block each), with names[s] the settings' names and a footer
 * that says how the differences were tested and lists the marked runs. */
void sbio_table_print(const struct sbio_table *t, FILE *out, const char *const *names);

/* Setting s's figures for the JSON: [{name, jobs: [{name, total, metrics: {NAME: {...}}}]}]
 * per phase (see doc/json.md). */
struct json_t *sbio_table_json(const struct sbio_table *t, size_t s);

/* The statistics' description: level, alpha, the test, the correction, the comparisons
 * per phase. */
struct json_t *sbio_table_stats_json(const struct sbio_table *t);

#endif
