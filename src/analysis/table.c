#include "table.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "report.h"
#include "util.h"

/* ---- metrics ---- */

static double metric_ops(json_t *doc, json_t *share)
{
    (void)share;
    double el = sbio_json_num(doc, "result.elapsed_s");
    return el > 0 ? sbio_json_num(doc, "result.ops") / el : 0;
}

/* Reads, writes and read-modify-writes (each block once), as the run's report counts them. */
static double metric_mib(json_t *doc, json_t *share)
{
    (void)share;
    double rmw = sbio_json_num(doc, "result.op_types.rmw.mib_per_s");
    return sbio_json_num(doc, "result.op_types.read.mib_per_s") +
           sbio_json_num(doc, "result.op_types.write.mib_per_s") + (isnan(rmw) ? 0 : rmw);
}

static double metric_cpu(json_t *doc, json_t *share)
{
    (void)share;
    return sbio_json_num(doc, "result.cpu.user_pct") + sbio_json_num(doc, "result.cpu.system_pct");
}

/* A job's part of its phase's bytes, %: its bytes over every job's (the phase's shares). */
static double metric_share(json_t *doc, json_t *share)
{
    (void)doc;
    json_t *v = json_object_get(share, "bytes_share");
    return json_is_number(v) ? json_number_value(v) * 100 : NAN;
}

/* What --metrics can ask for: a name, where its value is in a block's document (a JSON path,
 * or get for a figure made of several fields), its column's header, its unit in the JSON and
 * its format (NULL: a duration in ns, shown in units that fit); op: an op type the block must
 * have done for the value to exist. One row each: a new metric is a new row. */
static const struct metric {
    const char *name;
    const char *path;
    double (*get)(json_t *doc, json_t *share);
    const char *header;
    const char *unit;
    const char *fmt;
    const char *op;
} metrics[] = {
#define LAT(op, q)                                                                                 \
    {                                                                                              \
        op ".p" q, "result.op_types." op ".latency.percentiles_ns." q, NULL, op " p" q, "ns",      \
            NULL, op                                                                               \
    }
#define PER_OP(op) LAT(op, "50"), LAT(op, "95"), LAT(op, "99"), LAT(op, "99.9")
#define MIB(op)                                                                                    \
    {                                                                                              \
        op ".mib", "result.op_types." op ".mib_per_s", NULL, op " MiB/s", "MiB/s", "%.2f", op      \
    }
#define OPS(op)                                                                                    \
    {                                                                                              \
        op ".ops", "result.op_types." op ".ops_per_s", NULL, op "/s", "ops/s", "%.1f", op          \
    }
#define MEAN(op)                                                                                   \
    {                                                                                              \
        op ".mean", "result.op_types." op ".latency.mean_ns", NULL, op " mean", "ns", NULL, op     \
    }
/* A file-system op type's metrics (a tree job's, doc/scripting.md); FS_DATA: one that moves
 * data, with its MiB/s. */
#define FS(op)      OPS(op), MEAN(op), PER_OP(op)
#define FS_DATA(op) FS(op), MIB(op)
    {"ops", NULL, metric_ops, "ops/s", "ops/s", "%.0f", NULL},
    {"mib", NULL, metric_mib, "MiB/s", "MiB/s", "%.2f", NULL},
    {"time", "result.elapsed_s", NULL, "time, s", "s", "%.3f", NULL},
    {"reads", "result.op_types.read.ops_per_s", NULL, "reads/s", "ops/s", "%.1f", NULL},
    {"writes", "result.op_types.write.ops_per_s", NULL, "writes/s", "ops/s", "%.1f", NULL},
    {"fsyncs", "result.op_types.fsync.ops_per_s", NULL, "fsyncs/s", "ops/s", "%.1f", NULL},
    {"rmws", "result.op_types.rmw.ops_per_s", NULL, "rmw/s", "ops/s", "%.1f", NULL},
    {"cpu", NULL, metric_cpu, "CPU%", "%", "%.1f", NULL},
    {"util", "result.devices.0.util_pct", NULL, "util%", "%", "%.1f", NULL},
    {"share", NULL, metric_share, "share%", "%", "%.1f", NULL},
    {"p50", "result.latency_all.percentiles_ns.50", NULL, "p50", "ns", NULL, NULL},
    {"p95", "result.latency_all.percentiles_ns.95", NULL, "p95", "ns", NULL, NULL},
    {"p99", "result.latency_all.percentiles_ns.99", NULL, "p99", "ns", NULL, NULL},
    {"p99.9", "result.latency_all.percentiles_ns.99.9", NULL, "p99.9", "ns", NULL, NULL},
    MIB("read"),
    MIB("write"),
    MIB("rmw"),
    PER_OP("read"),
    PER_OP("write"),
    PER_OP("fsync"),
    PER_OP("rmw"),
    OPS("read"),
    OPS("write"),
    OPS("fsync"),
    OPS("rmw"),
    MEAN("read"),
    MEAN("write"),
    MEAN("fsync"),
    MEAN("rmw"),
    FS_DATA("create"),
    FS_DATA("append"),
    FS_DATA("readwhole"),
    FS_DATA("writewhole"),
    FS("open"),
    FS("close"),
    FS("stat"),
    FS("unlink"),
    FS("rename"),
    FS("mkdir"),
    FS("readdir"),
#undef LAT
#undef PER_OP
#undef MIB
#undef OPS
#undef MEAN
#undef FS
#undef FS_DATA
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

const char *sbio_table_metric_name(size_t i)
{
    return i < NMETRICS ? metrics[i].name : NULL;
}

const char *sbio_table_metric_header(size_t i)
{
    return i < NMETRICS ? metrics[i].header : NULL;
}

const char *sbio_table_metric_unit(size_t i)
{
    return i < NMETRICS ? metrics[i].unit : NULL;
}

double sbio_table_metric_value(size_t i, json_t *doc, json_t *share)
{
    if (i >= NMETRICS)
        return NAN;
    const struct metric *m = &metrics[i];
    if (m->op) {
        /* The op's MiB/s needs some of it done, its latency some of it timed (an fsync
         * inside its write, --file-fsync-all, is counted but not timed on its own). */
        char p[64];
        snprintf(p, sizeof(p),
                 m->fmt ? "result.op_types.%s.ops" : "result.op_types.%s.latency.count", m->op);
        if (!(sbio_json_num(doc, p) > 0))
            return NAN;
    }
    return m->get ? m->get(doc, share) : sbio_json_num(doc, m->path);
}

/* The op types metric suffix what (".p99") exists for, as " read, write, …" into buf. */
static void metric_ops_of(const char *what, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = 0;
    for (size_t k = 0; k < NMETRICS && l < len; k++)
        if (metrics[k].op && !strcmp(metrics[k].name + strlen(metrics[k].op), what))
            l += (size_t)snprintf(buf + l, len - l, "%s %s", l ? "," : "", metrics[k].op);
}

/* The accepted names, for the message of a bad list: the whole-run ones, then the per-op
 * ones grouped by the op types they exist for ("OP.p50, OP.p99 for OP one of read, …"). */
static void metric_names(char *buf, size_t len)
{
    const char *what[16];
    char ops[16][256];
    size_t nw = 0, l = 0;
    for (size_t i = 0; i < NMETRICS && l < len; i++) {
        const struct metric *m = &metrics[i];
        if (!m->op)
            l += (size_t)snprintf(buf + l, len - l, "%s%s", l ? ", " : "", m->name);
        const char *w = m->op ? m->name + strlen(m->op) : NULL;
        bool seen = !w;
        for (size_t k = 0; k < nw && !seen; k++)
            seen = !strcmp(what[k], w);
        if (!seen && nw < 16) {
            what[nw] = w;
            metric_ops_of(w, ops[nw], sizeof(ops[nw]));
            nw++;
        }
    }
    for (size_t k = 0; k < nw && l < len; k++) {
        bool first = true;
        for (size_t j = 0; j < k && first; j++)
            first = strcmp(ops[j], ops[k]) != 0;
        if (!first)
            continue;
        for (size_t j = k; j < nw && l < len; j++)
            if (!strcmp(ops[j], ops[k]))
                l += (size_t)snprintf(buf + l, len - l, "%sOP%s", j == k ? "; " : ", ", what[j]);
        l += (size_t)snprintf(buf + l, len - l, " for OP one of%s", ops[k]);
    }
}

/* Name (len bytes of it) as an index into the catalogue; -1 when it is not there. */
static int metric_find(const char *name, size_t len)
{
    for (size_t i = 0; i < NMETRICS; i++)
        if (strlen(metrics[i].name) == len && !strncmp(metrics[i].name, name, len))
            return (int)i;
    return -1;
}

int sbio_table_metric_index(const char *name)
{
    return metric_find(name, strlen(name));
}

int sbio_table_metrics_parse(const char *list, size_t *idx, size_t *n)
{
    char names[2048];
    metric_names(names, sizeof(names));
    *n = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        int m = metric_find(p, len);
        bool twice = false;
        for (size_t k = 0; m >= 0 && k < *n; k++)
            twice |= idx[k] == (size_t)m;
        if (m < 0 || twice || *n == SBIO_TABLE_MAX_METRICS) {
            if (*n == SBIO_TABLE_MAX_METRICS)
                sbio_err("--metrics=%s: more than %d metrics; accepted: a comma-separated list "
                         "of at most %d of %s",
                         list, SBIO_TABLE_MAX_METRICS, SBIO_TABLE_MAX_METRICS, names);
            else if (twice)
                sbio_err("--metrics=%s: '%.*s' given twice; accepted: a comma-separated list of %s",
                         list, (int)len, p, names);
            else
                sbio_err("--metrics=%s: %s%.*s%s; accepted: a comma-separated list of %s", list,
                         len ? "unknown metric '" : "an empty name", (int)len, p, len ? "'" : "",
                         names);
            return -EINVAL;
        }
        idx[(*n)++] = (size_t)m;
        p += len;
        if (!*p)
            return 0;
    }
}

void sbio_table_metrics_default(size_t *idx, size_t *n)
{
    static const char *const def[] = {
        "ops",        "read.p99",      "write.p99",      "fsync.p99",  "rmw.p99",   "create.p99",
        "append.p99", "readwhole.p99", "writewhole.p99", "open.p99",   "close.p99", "stat.p99",
        "unlink.p99", "rename.p99",    "mkdir.p99",      "readdir.p99"};
    *n = 0;
    for (size_t k = 0; k < sizeof(def) / sizeof(def[0]); k++)
        idx[(*n)++] = (size_t)metric_find(def[k], strlen(def[k]));
}

/* ---- the table's storage ---- */

static size_t val_at(const struct sbio_table *t, size_t ph, size_t b, size_t s, size_t c, size_t r)
{
    return (((ph * t->nb + b) * t->ns + s) * t->ncol + c) * t->maxrun + r;
}

int sbio_table_init(struct sbio_table *t, size_t ns, size_t maxrun,
                    const struct sbio_table_phase *ph, size_t np, const size_t *col, size_t ncol)
{
    memset(t, 0, sizeof(*t));
    t->ns = ns;
    t->np = np;
    t->ncol = ncol;
    t->maxrun = maxrun ? maxrun : 1;
    for (size_t i = 0; i < np; i++)
        t->nb = ph[i].nb > t->nb ? ph[i].nb : t->nb;
    memcpy(t->col, col, ncol * sizeof(*col));
    size_t ncell = np * t->nb * ns * ncol, nval = ncell * t->maxrun;
    t->ph = calloc(np ? np : 1, sizeof(*t->ph));
    t->val = malloc((nval ? nval : 1) * sizeof(double));
    t->out = calloc(nval ? nval : 1, sizeof(bool));
    t->rep = calloc(ns * t->maxrun + 1, sizeof(unsigned));
    t->nrun = calloc(ns + 1, sizeof(size_t));
    t->tried = calloc(ns + 1, sizeof(size_t));
    t->nph = calloc(np * ns + 1, sizeof(size_t));
    t->cell = calloc(ncell + 1, sizeof(*t->cell));
    t->ntests = calloc(np + 1, sizeof(size_t));
    if (!t->ph || !t->val || !t->out || !t->rep || !t->nrun || !t->tried || !t->nph || !t->cell ||
        !t->ntests) {
        sbio_table_free(t);
        return -ENOMEM;
    }
    memcpy(t->ph, ph, np * sizeof(*ph));
    for (size_t i = 0; i < nval; i++)
        t->val[i] = NAN;
    return 0;
}

void sbio_table_free(struct sbio_table *t)
{
    free(t->ph);
    free(t->val);
    free(t->out);
    free(t->rep);
    free(t->nrun);
    free(t->tried);
    free(t->nph);
    free(t->cell);
    free(t->ntests);
    memset(t, 0, sizeof(*t));
}

int sbio_table_shape(json_t *doc, struct sbio_table_phase *ph, size_t max, size_t *np)
{
    json_t *phases = json_object_get(doc, "phases");
    *np = 0;
    if (!phases) {
        if (!json_is_object(json_object_get(doc, "result")) || !max)
            return -EINVAL;
        memset(&ph[0], 0, sizeof(ph[0]));
        ph[0].nb = 1;
        *np = 1;
        return 0;
    }
    size_t i;
    json_t *p;
    json_array_foreach(phases, i, p)
    {
        if (i == max)
            break;
        struct sbio_table_phase *x = &ph[i];
        memset(x, 0, sizeof(*x));
        snprintf(x->name, sizeof(x->name), "%s", json_string_value(json_object_get(p, "name")));
        size_t j;
        json_t *job;
        json_t *jobs = json_object_get(p, "jobs");
        json_array_foreach(jobs, j, job)
        {
            if (x->nb == SBIO_TABLE_MAX_BLOCKS - 1)
                break;
            snprintf(x->block[x->nb++], sizeof(x->block[0]), "%s",
                     json_string_value(json_object_get(job, "name")));
        }
        if (x->nb > 1)
            snprintf(x->block[x->nb++], sizeof(x->block[0]), "total");
        (*np)++;
    }
    return *np ? 0 : -EINVAL;
}

void sbio_table_tried(struct sbio_table *t, size_t s)
{
    t->tried[s]++;
}

/* Block b of phase p of a script's result: its document and its share entry. */
static json_t *block_doc(json_t *p, size_t b, size_t nb, json_t **share)
{
    json_t *jobs = json_object_get(p, "jobs");
    *share = NULL;
    if (nb > 1 && b == nb - 1)
        return json_object_get(p, "total");
    *share = json_array_get(json_object_get(json_object_get(p, "shares"), "jobs"), b);
    return json_object_get(json_array_get(jobs, b), "result");
}

/* Phase ph's values of run r of setting s from its part of the document p (NULL: the run's
 * own document is the only block). False when the phase has none (refused). */
static bool add_phase(struct sbio_table *t, size_t ph, size_t s, size_t r, json_t *p, json_t *doc)
{
    if (p && (!json_object_get(p, "jobs") || json_is_true(json_object_get(p, "refused"))))
        return false;
    for (size_t b = 0; b < t->ph[ph].nb; b++) {
        json_t *share = NULL, *bd = p ? block_doc(p, b, t->ph[ph].nb, &share) : doc;
        for (size_t c = 0; c < t->ncol; c++)
            t->val[val_at(t, ph, b, s, c, r)] =
                bd ? sbio_table_metric_value(t->col[c], bd, share) : NAN;
    }
    t->nph[ph * t->ns + s]++;
    return true;
}

int sbio_table_add(struct sbio_table *t, size_t s, unsigned rep, json_t *doc)
{
    if (t->nrun[s] == t->maxrun)
        return -ENOSPC;
    size_t r = t->nrun[s]++;
    t->rep[s * t->maxrun + r] = rep;
    json_t *phases = json_object_get(doc, "phases");
    int measured = 0;
    for (size_t ph = 0; ph < t->np; ph++)
        measured += add_phase(t, ph, s, r, phases ? json_array_get(phases, ph) : NULL, doc);
    return measured;
}

/* ---- statistics ---- */

/* The cell's values (NaN left out) into x; their count. */
static size_t cell_values(const struct sbio_table *t, size_t ph, size_t b, size_t s, size_t c,
                          double *x)
{
    size_t n = 0;
    for (size_t r = 0; r < t->nrun[s]; r++) {
        double v = t->val[val_at(t, ph, b, s, c, r)];
        if (!isnan(v))
            x[n++] = v;
    }
    return n;
}

static void cell_stats(struct sbio_table *t, size_t ph, size_t b, size_t s, size_t c, double *x)
{
    struct sbio_table_cell *e = &t->cell[((ph * t->nb + b) * t->ns + s) * t->ncol + c];
    e->n = cell_values(t, ph, b, s, c, x);
    sbio_infer_mean_sd(x, e->n, &e->mean, &e->sd);
    if (!e->n)
        e->mean = e->sd = NAN;
    e->half = sbio_infer_halfwidth(e->sd, e->n, SBIO_TABLE_LEVEL);
    e->diff_pct = e->lo = e->hi = NAN;
    e->p = e->p_holm = -1; /* the baseline's cells are no tests */
    e->ci = -EINVAL;
    /* Outliers among the runs (a marked run keeps its place in the figures): the MAD scaled
     * to estimate the sd of normal data, so that 3 of them are 3 sd; a median and a MAD of
     * fewer runs are too unsteady to judge by. */
    bool *mark = &t->out[val_at(t, ph, b, s, c, 0)];
    double *all = &t->val[val_at(t, ph, b, s, c, 0)];
    memset(mark, 0, t->nrun[s] * sizeof(bool));
    e->nout =
        e->n >= SBIO_TABLE_OUTLIER_MIN
            ? sbio_infer_outliers(all, t->nrun[s], SBIO_TABLE_OUTLIER_MADS * 1.4826, mark, NULL)
            : 0;
}

/* Cell e's difference to the baseline's cell b0: %, its CI and the p-value of the test that
 * goes with it (Welch's t-test of the log ratio of the means: a CI that leaves out 0 is a p
 * below 5%, before the correction). No value on a side: no difference (NaN, not -100%); a
 * baseline of 0 has no % difference. */
static void cell_diff(struct sbio_table_cell *e, const struct sbio_table_cell *b0)
{
    if (!e->n || !b0->n)
        return;
    e->diff_pct = b0->mean  ? (e->mean - b0->mean) / fabs(b0->mean) * 100
                  : e->mean ? copysign(INFINITY, e->mean)
                            : 0;
    e->p = sbio_infer_ratio_p(e->mean, e->sd, e->n, b0->mean, b0->sd, b0->n);
    if (e->n >= 2 && b0->n >= 2)
        e->ci = sbio_infer_diff_ci(e->mean, e->sd, e->n, b0->mean, b0->sd, b0->n, SBIO_TABLE_LEVEL,
                                   &e->lo, &e->hi);
}

bool sbio_table_shown(const struct sbio_table *t, size_t ph, size_t b, size_t c)
{
    const struct sbio_table_phase *p = &t->ph[ph];
    bool total = p->nb > 1 && b == p->nb - 1;
    size_t jobs = 0;
    for (size_t j = 0; total && metrics[t->col[c]].op && j < b; j++)
        jobs += sbio_table_shown(t, ph, j, c);
    if (total && metrics[t->col[c]].op && jobs < 2)
        return false;
    for (size_t s = 0; s < t->ns; s++)
        if (sbio_table_cell(t, ph, b, s, c)->n)
            return true;
    return false;
}

/* Holm's correction over phase ph's tests: every (block, setting, column) the table shows but
 * the baseline. */
static void phase_holm(struct sbio_table *t, size_t ph)
{
    size_t n = t->nb * t->ns * t->ncol;
    struct sbio_table_cell *first = &t->cell[ph * t->nb * t->ns * t->ncol];
    double *p = malloc((n ? n : 1) * sizeof(double)), *adj = malloc((n ? n : 1) * sizeof(double));
    if (!p || !adj) {
        free(p);
        free(adj);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t b = i / (t->ns * t->ncol), c = i % t->ncol;
        p[i] = b < t->ph[ph].nb && sbio_table_shown(t, ph, b, c) ? first[i].p : -1;
    }
    t->ntests[ph] = sbio_infer_holm(p, n, adj);
    for (size_t i = 0; i < n; i++)
        first[i].p_holm = adj[i];
    free(p);
    free(adj);
}

void sbio_table_compute(struct sbio_table *t)
{
    double *x = malloc(t->maxrun * sizeof(double));
    if (!x)
        return;
    for (size_t ph = 0; ph < t->np; ph++) {
        for (size_t b = 0; b < t->ph[ph].nb; b++)
            for (size_t s = 0; s < t->ns; s++)
                for (size_t c = 0; c < t->ncol; c++) {
                    cell_stats(t, ph, b, s, c, x);
                    if (s)
                        cell_diff(&t->cell[((ph * t->nb + b) * t->ns + s) * t->ncol + c],
                                  sbio_table_cell(t, ph, b, 0, c));
                }
        phase_holm(t, ph);
    }
    free(x);
}

void sbio_table_where(const struct sbio_table *t, size_t ph, size_t b, size_t c, char *buf,
                      size_t len)
{
    const struct sbio_table_phase *p = &t->ph[ph];
    char where[160] = "";
    if (t->np > 1)
        snprintf(where, sizeof(where), "phase %s, ", p->name);
    if (p->nb > 1 && b == p->nb - 1)
        snprintf(where + strlen(where), sizeof(where) - strlen(where), "all jobs, ");
    else if (p->block[b][0])
        snprintf(where + strlen(where), sizeof(where) - strlen(where), "job %s, ", p->block[b]);
    snprintf(buf, len, "%s%s", where, metrics[t->col[c]].header);
}

double sbio_table_widest(const struct sbio_table *t, size_t s, char *what, size_t len)
{
    double widest = 0;
    snprintf(what, len, "-");
    for (size_t ph = 0; ph < t->np; ph++)
        for (size_t b = 0; b < t->ph[ph].nb; b++)
            for (size_t c = 0; c < t->ncol; c++) {
                if (!sbio_table_shown(t, ph, b, c))
                    continue;
                const struct sbio_table_cell *e = sbio_table_cell(t, ph, b, s, c);
                /* A column of another setting's only (an op type this one never does, in
                 * 2 runs or more of the phase) has no CI to wait for. */
                if (!e->n && t->nph[ph * t->ns + s] >= 2)
                    continue;
                double w = e->n < 2  ? NAN
                           : e->mean ? e->half / fabs(e->mean) * 100
                           : e->half ? INFINITY
                                     : 0;
                if (!(w <= widest)) {
                    widest = w;
                    sbio_table_where(t, ph, b, c, what, len);
                    if (isnan(w))
                        return w;
                }
            }
    return widest;
}

/* ---- text ---- */

/* One value of metric m as its column shows it ("-" when the runs lack it). */
static void metric_fmt(char *buf, size_t len, const struct metric *m, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (!m->fmt)
        sbio_fmt_ns(buf, len, v);
    else
        snprintf(buf, len, m->fmt, v);
}

/* The cell's "mean ± sd" ("!": a run of it is marked), or "-". */
static void fmt_mean(char *buf, size_t len, const struct sbio_table_cell *e, const struct metric *m)
{
    char a[32], b[32];
    if (!e->n) {
        snprintf(buf, len, "-");
        return;
    }
    metric_fmt(a, sizeof(a), m, e->mean);
    metric_fmt(b, sizeof(b), m, e->sd);
    snprintf(buf, len, "%s ± %s%s", a, b, e->nout ? " !" : "");
}

static void fmt_pct(char *buf, size_t len, double v)
{
    if (isinf(v))
        snprintf(buf, len, "%s", v > 0 ? "+inf" : "-inf");
    else
        snprintf(buf, len, fabs(v) >= 1000 ? "%+.0f%%" : "%+.1f%%", v);
}

/* The cell's difference to the baseline: "-19.9% [-41%, +2.0%] *" (*: significant after the
 * correction), or why there is none. */
static void fmt_diff(char *buf, size_t len, const struct sbio_table_cell *e, size_t s,
                     const struct sbio_table_cell *b0)
{
    char d[24], lo[24], hi[24];
    if (s == 0) {
        snprintf(buf, len, "(baseline)");
        return;
    }
    if (isnan(e->diff_pct)) {
        snprintf(buf, len, "%s", e->n || b0->n ? "no runs to compare" : "-");
        return;
    }
    fmt_pct(d, sizeof(d), e->diff_pct);
    if (e->ci == -EINVAL)
        snprintf(buf, len, "%s (1 run, no test)", d);
    else if (e->ci == -ERANGE)
        snprintf(buf, len, "%s [unbounded]%s", d,
                 e->p_holm >= 0 && e->p_holm < SBIO_TABLE_ALPHA ? " *" : "");
    else {
        fmt_pct(lo, sizeof(lo), e->lo);
        fmt_pct(hi, sizeof(hi), e->hi);
        snprintf(buf, len, "%s [%s, %s]%s", d, lo, hi,
                 e->p_holm >= 0 && e->p_holm < SBIO_TABLE_ALPHA ? " *" : "");
    }
}

/* Column c's two cells in setting s of block b: mean ± sd and the difference. */
static void cells_of(const struct sbio_table *t, size_t ph, size_t b, size_t s, size_t c,
                     char *mean, char *diff, size_t len)
{
    const struct sbio_table_cell *e = sbio_table_cell(t, ph, b, s, c);
    fmt_mean(mean, len, e, &metrics[t->col[c]]);
    fmt_diff(diff, len, e, s, sbio_table_cell(t, ph, b, 0, c));
}

/* s right-aligned in w columns, after two spaces. */
static void print_cell(FILE *out, const char *s, size_t w)
{
    size_t cols = sbio_text_cols(s);
    fprintf(out, "  %*s%s", (int)(w > cols ? w - cols : 0), "", s);
}

/* Block b of phase ph: a header line, then a row per setting. */
static void print_block(const struct sbio_table *t, FILE *out, size_t ph, size_t b,
                        const char *const *names, size_t w)
{
    char mean[80], diff[80];
    size_t wm[SBIO_TABLE_MAX_COLS], wd[SBIO_TABLE_MAX_COLS];
    bool shown[SBIO_TABLE_MAX_COLS];
    const struct sbio_table_phase *p = &t->ph[ph];
    for (size_t c = 0; c < t->ncol; c++) {
        shown[c] = sbio_table_shown(t, ph, b, c);
        wm[c] = sbio_text_cols(metrics[t->col[c]].header);
        wd[c] = sbio_text_cols(metrics[t->col[c]].header) + 2;
        for (size_t s = 0; shown[c] && s < t->ns; s++) {
            cells_of(t, ph, b, s, c, mean, diff, sizeof(mean));
            wm[c] = sbio_text_cols(mean) > wm[c] ? sbio_text_cols(mean) : wm[c];
            wd[c] = sbio_text_cols(diff) > wd[c] ? sbio_text_cols(diff) : wd[c];
        }
    }
    if (p->nb > 1 && b == p->nb - 1)
        fprintf(out, "\nAll jobs together\n");
    else if (p->block[b][0])
        fprintf(out, "\nJob %s\n", p->block[b]);
    else
        fprintf(out, "\n");
    fprintf(out, "%-*s %7s", (int)w, "setting", "runs");
    for (size_t c = 0; c < t->ncol; c++) {
        if (!shown[c])
            continue;
        char dh[48];
        snprintf(dh, sizeof(dh), "Δ %s", metrics[t->col[c]].header);
        print_cell(out, metrics[t->col[c]].header, wm[c]);
        print_cell(out, dh, wd[c]);
    }
    fprintf(out, "\n");
    for (size_t s = 0; s < t->ns; s++) {
        char runs[32];
        snprintf(runs, sizeof(runs), "%zu/%zu", t->nph[ph * t->ns + s],
                 t->planned > t->tried[s] ? t->planned : t->tried[s]);
        fprintf(out, "%-*s %7s", (int)w, names[s], runs);
        for (size_t c = 0; c < t->ncol; c++) {
            if (!shown[c])
                continue;
            cells_of(t, ph, b, s, c, mean, diff, sizeof(mean));
            print_cell(out, mean, wm[c]);
            print_cell(out, diff, wd[c]);
        }
        fprintf(out, "\n");
    }
}

/* The marked runs of phase ph, one line each. */
static void print_outliers(const struct sbio_table *t, FILE *out, size_t ph,
                           const char *const *names)
{
    for (size_t b = 0; b < t->ph[ph].nb; b++)
        for (size_t s = 0; s < t->ns; s++)
            for (size_t c = 0; c < t->ncol; c++) {
                if (!sbio_table_cell(t, ph, b, s, c)->nout || !sbio_table_shown(t, ph, b, c))
                    continue;
                for (size_t r = 0; r < t->nrun[s]; r++) {
                    size_t i = val_at(t, ph, b, s, c, r);
                    if (!t->out[i])
                        continue;
                    char where[256], v[32];
                    sbio_table_where(t, ph, b, c, where, sizeof(where));
                    metric_fmt(v, sizeof(v), &metrics[t->col[c]], t->val[i]);
                    fprintf(out, "  ! %s, run %u: %s %s\n", names[s], t->rep[s * t->maxrun + r],
                            where, v);
                }
            }
}

static void print_footer(const struct sbio_table *t, FILE *out, size_t ph, const char *const *names)
{
    size_t m = t->ntests[ph];
    fprintf(out, "\nmean ± sd over each setting's runs; Δ: the difference of the mean to the first "
                 "row's, [its 95%% confidence interval]\n");
    if (m)
        fprintf(out,
                "* significant at 5%% after Holm–Bonferroni over the %zu comparison%s of this "
                "table (Welch's t-test of the log ratio of the means); no mark: within noise\n",
                m, m == 1 ? "" : "s");
    else
        fprintf(out, "no comparison tested: a test needs 2 runs of a setting and of the first\n");
    bool any = false;
    for (size_t b = 0; b < t->ph[ph].nb; b++)
        for (size_t s = 0; s < t->ns; s++)
            for (size_t c = 0; c < t->ncol; c++)
                any |= sbio_table_cell(t, ph, b, s, c)->nout && sbio_table_shown(t, ph, b, c);
    if (!any)
        return;
    fprintf(out,
            "! runs more than %.0f median absolute deviations (scaled: 3 are 3 sd of normal "
            "data) from their setting's median (kept in the figures):\n",
            SBIO_TABLE_OUTLIER_MADS);
    print_outliers(t, out, ph, names);
}

void sbio_table_print(const struct sbio_table *t, FILE *out, const char *const *names)
{
    size_t w = 7;
    for (size_t s = 0; s < t->ns; s++)
        w = sbio_text_cols(names[s]) > w ? sbio_text_cols(names[s]) : w;
    for (size_t ph = 0; ph < t->np; ph++) {
        if (t->ph[ph].name[0])
            fprintf(out, "\nPhase %zu/%zu: %s\n", ph + 1, t->np, t->ph[ph].name);
        for (size_t b = 0; b < t->ph[ph].nb; b++)
            print_block(t, out, ph, b, names, w);
        print_footer(t, out, ph, names);
    }
}

void sbio_table_run_text(const struct sbio_table *t, size_t s, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = 0;
    for (size_t c = 0; t->nrun[s] && c < t->ncol && l < len; c++) {
        double v = t->val[val_at(t, 0, 0, s, c, t->nrun[s] - 1)];
        const struct metric *m = &metrics[t->col[c]];
        char a[32];
        if (isnan(v))
            continue;
        metric_fmt(a, sizeof(a), m, v);
        /* "9528 ops/s" where the unit names the metric, else "read.p99 927.7 us" */
        if (m->fmt && !strncmp(m->unit, m->name, strlen(m->name)))
            l += (size_t)snprintf(buf + l, len - l, "%s%s %s", l ? ", " : "", a, m->unit);
        else
            l += (size_t)snprintf(buf + l, len - l, "%s%s %s%s%s", l ? ", " : "", m->name, a,
                                  m->fmt ? " " : "", m->fmt ? m->unit : "");
    }
}

/* ---- JSON ---- */

static json_t *num_json(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static const char *cell_verdict(const struct sbio_table_cell *e, size_t s)
{
    if (s == 0)
        return "baseline";
    if (isnan(e->diff_pct))
        return "no runs";
    if (e->p_holm < 0)
        return "no test";
    return e->p_holm < SBIO_TABLE_ALPHA ? "significant" : "within noise";
}

/* One cell: its values (and their runs), figures, difference and verdict. */
static json_t *cell_json(const struct sbio_table *t, size_t ph, size_t b, size_t s, size_t c)
{
    const struct sbio_table_cell *e = sbio_table_cell(t, ph, b, s, c);
    json_t *vals = json_array(), *reps = json_array(), *outs = json_array();
    for (size_t r = 0; r < t->nrun[s]; r++) {
        size_t i = val_at(t, ph, b, s, c, r);
        unsigned rep = t->rep[s * t->maxrun + r];
        if (isnan(t->val[i]))
            continue;
        json_array_append_new(vals, json_real(t->val[i]));
        json_array_append_new(reps, json_integer(rep));
        if (t->out[i])
            json_array_append_new(outs, json_integer(rep));
    }
    json_t *o =
        json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "unit", metrics[t->col[c]].unit, "n",
                  (json_int_t)e->n, "values", vals, "repeats", reps, "outliers", outs, "mean",
                  num_json(e->mean), "stddev", num_json(e->n ? e->sd : NAN), "ci95",
                  json_pack("[o,o]", num_json(e->mean - e->half), num_json(e->mean + e->half)));
    if (s) {
        json_object_set_new(o, "diff_pct", num_json(e->diff_pct));
        json_object_set_new(o, "diff_ci95_pct",
                            e->ci ? json_null()
                                  : json_pack("[o,o]", num_json(e->lo), num_json(e->hi)));
        json_object_set_new(o, "ci_unbounded", json_boolean(e->ci == -ERANGE));
        json_object_set_new(o, "p_value", e->p < 0 ? json_null() : json_real(e->p));
        json_object_set_new(o, "p_holm", e->p_holm < 0 ? json_null() : json_real(e->p_holm));
    }
    json_object_set_new(o, "verdict", json_string(cell_verdict(e, s)));
    return o;
}

json_t *sbio_table_json(const struct sbio_table *t, size_t s)
{
    json_t *phases = json_array();
    for (size_t ph = 0; ph < t->np; ph++) {
        const struct sbio_table_phase *p = &t->ph[ph];
        json_t *jobs = json_array();
        for (size_t b = 0; b < p->nb; b++) {
            json_t *mets = json_object();
            for (size_t c = 0; c < t->ncol; c++)
                if (sbio_table_shown(t, ph, b, c))
                    json_object_set_new(mets, metrics[t->col[c]].name, cell_json(t, ph, b, s, c));
            json_array_append_new(jobs, json_pack("{s:s,s:b,s:o}", "name", p->block[b], "total",
                                                  p->nb > 1 && b == p->nb - 1, "metrics", mets));
        }
        json_array_append_new(phases, json_pack("{s:s,s:I,s:I,s:o}", "name", p->name, "runs_ok",
                                                (json_int_t)t->nph[ph * t->ns + s], "runs",
                                                (json_int_t)t->tried[s], "jobs", jobs));
    }
    return phases;
}

json_t *sbio_table_stats_json(const struct sbio_table *t)
{
    json_t *tests = json_array();
    for (size_t ph = 0; ph < t->np; ph++)
        json_array_append_new(tests, json_integer((json_int_t)t->ntests[ph]));
    return json_pack("{s:f,s:f,s:s,s:s,s:s,s:f,s:o}", "ci_level", SBIO_TABLE_LEVEL, "alpha",
                     SBIO_TABLE_ALPHA, "test", "welch-log-ratio", "ci", "log-ratio", "correction",
                     "holm-bonferroni per phase", "outlier_mads", SBIO_TABLE_OUTLIER_MADS,
                     "comparisons", tests);
}
