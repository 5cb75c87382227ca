#include "compare.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "infer.h"
#include "mpi.h"
#include "report.h"
#include "script.h"
#include "session.h"
#include "sysblock.h"
#include "topology.h"
#include "util.h"
#include "version.h"

#define MAX_AXES   8
#define MAX_VALUES 64

void sbio_compare_order(size_t nsettings, unsigned repeat, bool random, uint64_t seed, size_t *out)
{
    uint64_t st = sbio_mix64(seed);
    for (unsigned r = 0; r < repeat; r++) {
        size_t *o = out + (size_t)r * nsettings;
        for (size_t i = 0; i < nsettings; i++)
            o[i] = i;
        if (!random)
            continue;
        for (size_t i = nsettings; i > 1; i--) { /* Fisher–Yates */
            size_t j = (size_t)sbio_rand_below(&st, i);
            size_t tmp = o[i - 1];
            o[i - 1] = o[j];
            o[j] = tmp;
        }
    }
}

void sbio_compare_unrank(size_t setting, const size_t *axis_len, size_t naxes, size_t *idx)
{
    for (size_t a = naxes; a-- > 0;) {
        idx[a] = setting % axis_len[a];
        setting /= axis_len[a];
    }
}

struct axis {
    char key[64];
    enum sbio_compare_axis kind;
    size_t n;
    char *vals[MAX_VALUES];
};

/* Options that define the set, the output or compare itself cannot vary per setting. */
static const char *const fixed_opts[] = {
    "file-num", "file-total-size", "dir",   "filename",     "output", "output-format", "schedulers",
    "vary",     "repeat",          "order", "log-interval", "script", "file-per-rank", "metrics"};

/* Whether script (may be NULL) declares an option named key. */
static bool script_declares(const struct sbio_script *script, const char *key)
{
    for (unsigned i = 0; script && i < script->nopts; i++)
        if (!strcmp(script->opts[i].name, key))
            return true;
    return false;
}

/* The script's file name, for messages. */
static const char *script_name(const struct sbio_script *script)
{
    const char *base = strrchr(script->path, '/');
    return base ? base + 1 : script->path;
}

/* What --vary can set, for the message of a key it cannot: the script's options by name. */
static void vary_accepted(char *buf, size_t len, const struct sbio_script *script)
{
    snprintf(buf, len,
             "scheduler, a queue knob such as read_ahead_kb or nr_requests, iosched/TUNABLE, "
             "an option of sbio run such as file-block-size, file-test-mode, ioengine, threads");
    if (!script || !script->nopts) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, ", or, with --script, an option the script declares%s",
                 script ? " (this one declares none)" : "");
        return;
    }
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, ", or an option of %.200s: ", script_name(script));
    for (unsigned i = 0; i < script->nopts; i++) {
        l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", i ? ", " : "", script->opts[i].name);
    }
}

int sbio_compare_axis_kind(const char *key, const struct sbio_script *script,
                           enum sbio_compare_axis *kind)
{
    char acc[SBIO_SCRIPT_MAX_OPTS * 66 + 256]; /* every option's name */
    *kind = script_declares(script, key)      ? SBIO_AXIS_SCRIPT
            : !strcmp(key, "scheduler")       ? SBIO_AXIS_SCHEDULER
            : sbio_sysblock_knob_allowed(key) ? SBIO_AXIS_QUEUE
                                              : SBIO_AXIS_OPTION;
    if (*kind != SBIO_AXIS_OPTION)
        return 0;
    bool fixed = false;
    for (size_t i = 0; i < sizeof(fixed_opts) / sizeof(fixed_opts[0]); i++)
        fixed |= !strcmp(key, fixed_opts[i]);
    if (!fixed && sbio_options_known(key, SBIO_C(SBIO_CMD_RUN)))
        return 0;
    vary_accepted(acc, sizeof(acc), script);
    if (fixed)
        sbio_err("--vary %s: cannot vary between runs of one compare (it defines the file set, "
                 "the output or the compare); accepted: %s",
                 key, acc);
    else
        sbio_err("--vary %s: nothing compare can vary has that name; accepted: %s", key, acc);
    return -EINVAL;
}

/* One value v of --vary KEY=LIST into ax. 0, -EINVAL (message printed) or -ENOMEM. */
static int axis_value(struct axis *ax, const char *v)
{
    if (ax->n >= MAX_VALUES) {
        sbio_err("--vary %s: at most %d values", ax->key, MAX_VALUES);
        return -EINVAL;
    }
    for (size_t i = 0; i < ax->n; i++)
        if (!strcmp(ax->vals[i], v)) {
            /* Two settings with one name could not be told apart in the table or by diff. */
            sbio_err("--vary %s: value '%s' given twice", ax->key, v);
            return -EINVAL;
        }
    ax->vals[ax->n] = strdup(v);
    return ax->vals[ax->n++] ? 0 : -ENOMEM;
}

/* The values of LIST ("V1,V2,…") into ax. 0, -EINVAL (message printed) or -ENOMEM. */
static int axis_values(struct axis *ax, const char *list)
{
    char *copy = strdup(list);
    if (!copy)
        return -ENOMEM;
    char *save = NULL;
    int rc = 0;
    for (char *v = strtok_r(copy, ",", &save); v && !rc; v = strtok_r(NULL, ",", &save))
        rc = axis_value(ax, v);
    free(copy);
    if (!rc && !ax->n) {
        sbio_err("--vary %s=: no values; accepted: KEY=V1,V2,…", ax->key);
        rc = -EINVAL;
    }
    return rc;
}

static int axis_add(struct axis *axes, size_t *naxes, const char *key, const char *list,
                    const struct sbio_script *script)
{
    if (*naxes >= MAX_AXES) {
        sbio_err("--vary: at most %d axes", MAX_AXES);
        return -EINVAL;
    }
    for (size_t i = 0; i < *naxes; i++)
        if (!strcmp(axes[i].key, key)) {
            sbio_err("--vary %s: given twice (put all its values in one list)", key);
            return -EINVAL;
        }
    struct axis *ax = &axes[(*naxes)++];
    memset(ax, 0, sizeof(*ax));
    snprintf(ax->key, sizeof(ax->key), "%s", key);
    int rc = sbio_compare_axis_kind(key, script, &ax->kind);
    return rc ? rc : axis_values(ax, list);
}

static void axes_free(struct axis *axes, size_t naxes)
{
    for (size_t a = 0; a < naxes; a++)
        for (size_t i = 0; i < axes[a].n; i++)
            free(axes[a].vals[i]);
}

/* A script option's value in cfg, as --NAME=VALUE on the command line would give it (in place
 * of the command line's own). name and value must outlive cfg. 0 or -EINVAL (message
 * printed). */
static int setting_script_opt(struct sbio_config *cfg, const char *name, const char *value)
{
    int i = 0;
    while (i < cfg->nxopt && strcmp(cfg->xname[i], name))
        i++;
    if (i == SBIO_MAX_LIST) {
        sbio_err("--vary %s: too many script options set (at most %d)", name, SBIO_MAX_LIST);
        return -EINVAL;
    }
    cfg->xname[i] = name;
    cfg->xvalue[i] = value;
    if (i == cfg->nxopt)
        cfg->nxopt++;
    return 0;
}

/* The configuration of one setting: the base with the setting's values applied. Queue
 * strings are formatted into qbuf, which must outlive the configuration. */
static int setting_cfg(const struct sbio_config *base, unsigned nranks, const struct axis *axes,
                       size_t naxes, const size_t *idx, struct sbio_config *out, char qbuf[][160],
                       char *name, size_t nlen)
{
    *out = *base;
    out->cmd = SBIO_CMD_RUN;
    sbio_options_forget(out, SBIO_C(SBIO_CMD_COMPARE));
    out->output = NULL;
    out->output_format = SBIO_OUT_TEXT;
    out->report_interval_s = 0;
    name[0] = 0;
    int nq = 0;
    for (size_t a = 0; a < naxes; a++) {
        const char *v = axes[a].vals[idx[a]];
        size_t l = strlen(name);
        snprintf(name + l, nlen - l, "%s%s=%s", l ? " " : "", axes[a].key, v);
        switch (axes[a].kind) {
        case SBIO_AXIS_SCRIPT:
            if (setting_script_opt(out, axes[a].key, v))
                return -EINVAL;
            break;
        case SBIO_AXIS_SCHEDULER: out->scheduler = v; break;
        case SBIO_AXIS_QUEUE:
            if (out->nqueue >= SBIO_MAX_LIST) {
                sbio_err("too many queue settings");
                return -EINVAL;
            }
            snprintf(qbuf[nq], 160, "%.*s=%s", (int)sizeof(axes[a].key), axes[a].key, v);
            out->queue[out->nqueue++] = qbuf[nq++];
            break;
        case SBIO_AXIS_OPTION:
            if (sbio_options_set(out, axes[a].key, v, SBIO_C(SBIO_CMD_RUN)))
                return -EINVAL;
            break;
        }
    }
    /* Resolve what depends on the values (sysbench's --file-io-mode, the test mode). */
    return sbio_options_validate(out, nranks);
}

/* One run's figures, read from its JSON document. */
struct run_fig {
    double ops_s, mib_s, cpu_pct, util_pct;
    double p95[3], p99[3];
    bool has[3];
    double m[SBIO_COMPARE_MAX_METRICS]; /* the --metrics figures, in the order asked */
};

static double num(json_t *doc, const char *path)
{
    json_t *v = sbio_json_get(doc, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double metric_ops(json_t *doc)
{
    double el = num(doc, "result.elapsed_s");
    return el > 0 ? num(doc, "result.ops") / el : 0;
}

/* Reads, writes and read-modify-writes (each block once), as the run's report counts them. */
static double metric_mib(json_t *doc)
{
    double rmw = num(doc, "result.op_types.rmw.mib_per_s");
    return num(doc, "result.op_types.read.mib_per_s") +
           num(doc, "result.op_types.write.mib_per_s") + (isnan(rmw) ? 0 : rmw);
}

static double metric_cpu(json_t *doc)
{
    return num(doc, "result.cpu.user_pct") + num(doc, "result.cpu.system_pct");
}

/* What --metrics can ask for: a name, where its value is in a run's document (a JSON path,
 * or get for a figure made of several fields), its column's header, its unit in the JSON
 * summary and its format (NULL: a duration in ns, shown in units that fit). One row each:
 * a new metric is a new row. */
static const struct metric {
    const char *name;
    const char *path;
    double (*get)(json_t *doc);
    const char *header;
    const char *unit;
    const char *fmt;
} metrics[] = {
    {"ops", NULL, metric_ops, "ops/s", "ops/s", "%.0f"},
    {"mib", NULL, metric_mib, "MiB/s", "MiB/s", "%.2f"},
    {"time", "result.elapsed_s", NULL, "time, s", "s", "%.3f"},
    {"reads", "result.op_types.read.ops_per_s", NULL, "reads/s", "ops/s", "%.1f"},
    {"writes", "result.op_types.write.ops_per_s", NULL, "writes/s", "ops/s", "%.1f"},
    {"fsyncs", "result.op_types.fsync.ops_per_s", NULL, "fsyncs/s", "ops/s", "%.1f"},
    {"rmws", "result.op_types.rmw.ops_per_s", NULL, "rmw/s", "ops/s", "%.1f"},
    {"cpu", NULL, metric_cpu, "CPU%", "%", "%.1f"},
    {"util", "result.devices.0.util_pct", NULL, "util%", "%", "%.1f"},
    {"p95", "result.latency_all.percentiles_ns.95", NULL, "p95", "ns", NULL},
    {"p99", "result.latency_all.percentiles_ns.99", NULL, "p99", "ns", NULL},
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))
_Static_assert(NMETRICS <= SBIO_COMPARE_MAX_METRICS, "SBIO_COMPARE_MAX_METRICS too small");

const char *sbio_compare_metric_name(size_t i)
{
    return i < NMETRICS ? metrics[i].name : NULL;
}

double sbio_compare_metric_value(size_t i, json_t *doc)
{
    if (i >= NMETRICS)
        return NAN;
    return metrics[i].get ? metrics[i].get(doc) : num(doc, metrics[i].path);
}

/* The accepted names, for the message of a bad one. */
static void metric_names(char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t i = 0; i < NMETRICS; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", i ? ", " : "", metrics[i].name);
    }
}

/* Name (len bytes of it) as an index into the table; -1 when it is not there. */
static int metric_find(const char *name, size_t len)
{
    for (size_t i = 0; i < NMETRICS; i++)
        if (strlen(metrics[i].name) == len && !strncmp(metrics[i].name, name, len))
            return (int)i;
    return -1;
}

int sbio_compare_metrics_parse(const char *list, size_t *idx, size_t *n)
{
    char names[160];
    metric_names(names, sizeof(names));
    *n = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        int m = metric_find(p, len);
        bool twice = false;
        for (size_t k = 0; m >= 0 && k < *n; k++)
            twice |= idx[k] == (size_t)m;
        if (m < 0 || twice) {
            if (twice)
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

static void run_figures(json_t *doc, struct run_fig *f, const size_t *met, size_t nmet)
{
    for (size_t k = 0; k < nmet; k++)
        f->m[k] = sbio_compare_metric_value(met[k], doc);
    f->ops_s = metric_ops(doc);
    f->mib_s = metric_mib(doc);
    f->cpu_pct = metric_cpu(doc);
    f->util_pct = num(doc, "result.devices.0.util_pct");
    for (int op = 0; op < 3; op++) {
        char p[96];
        snprintf(p, sizeof(p), "result.op_types.%s.latency.count", sbio_op_name(op));
        f->has[op] = num(doc, p) > 0;
        snprintf(p, sizeof(p), "result.op_types.%s.latency.percentiles_ns.95", sbio_op_name(op));
        f->p95[op] = num(doc, p);
        snprintf(p, sizeof(p), "result.op_types.%s.latency.percentiles_ns.99", sbio_op_name(op));
        f->p99[op] = num(doc, p);
    }
}

struct summary {
    size_t n, total;
    double ops_m, ops_sd, mib_m, mib_sd, cpu_m, util_m;
    double p95_m[3], p99_m[3], p99_sd[3];
    bool has[3];
    double m_mean[SBIO_COMPARE_MAX_METRICS], m_sd[SBIO_COMPARE_MAX_METRICS];
    /* Against the first setting: ops/s (the default table's), and each of the metrics */
    double diff_pct, p;
    double m_diff[SBIO_COMPARE_MAX_METRICS], m_p[SBIO_COMPARE_MAX_METRICS];
};

static void summarize(const struct run_fig *figs, size_t n, size_t nmet, struct summary *s)
{
    double *x = calloc(n ? n : 1, sizeof(double));
    double sd;
    memset(s->has, 0, sizeof(s->has));
    s->n = n;
    if (!x)
        return;
#define COLLECT(expr)                                                                              \
    for (size_t i = 0; i < n; i++)                                                                 \
        x[i] = (expr);
    COLLECT(figs[i].ops_s);
    sbio_infer_mean_sd(x, n, &s->ops_m, &s->ops_sd);
    COLLECT(figs[i].mib_s);
    sbio_infer_mean_sd(x, n, &s->mib_m, &s->mib_sd);
    COLLECT(figs[i].cpu_pct);
    sbio_infer_mean_sd(x, n, &s->cpu_m, &sd);
    COLLECT(figs[i].util_pct);
    sbio_infer_mean_sd(x, n, &s->util_m, &sd);
    for (int op = 0; op < 3; op++) {
        for (size_t i = 0; i < n; i++)
            s->has[op] |= figs[i].has[op];
        COLLECT(figs[i].p95[op]);
        sbio_infer_mean_sd(x, n, &s->p95_m[op], &sd);
        COLLECT(figs[i].p99[op]);
        sbio_infer_mean_sd(x, n, &s->p99_m[op], &s->p99_sd[op]);
    }
    for (size_t k = 0; k < nmet; k++) {
        COLLECT(figs[i].m[k]);
        sbio_infer_mean_sd(x, n, &s->m_mean[k], &s->m_sd[k]);
    }
#undef COLLECT
    free(x);
}

static json_t *stat_json(double mean, double sd)
{
    return json_pack("{s:f,s:f}", "mean", isnan(mean) ? 0.0 : mean, "stddev", isnan(sd) ? 0.0 : sd);
}

static json_t *num_json(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* diff_pct, p_value and significant of a difference to the first setting (first: this is
 * it). */
static void diff_json(json_t *o, bool first, double pct, double p)
{
    json_object_set_new(o, "diff_pct", first ? json_real(0) : num_json(pct));
    json_object_set_new(o, "p_value", first || p < 0 ? json_null() : json_real(p));
    json_object_set_new(o, "significant", first || p < 0 ? json_null() : json_boolean(p < 0.05));
}

/* summary.metrics: each metric asked for, by its name, in the order asked. */
static json_t *metrics_json(const struct summary *s, bool first, const size_t *met, size_t nmet)
{
    json_t *o = json_object();
    for (size_t k = 0; k < nmet; k++) {
        json_t *m =
            json_pack("{s:o,s:o,s:s}", "mean", num_json(s->n ? s->m_mean[k] : NAN), "stddev",
                      num_json(s->n ? s->m_sd[k] : NAN), "unit", metrics[met[k]].unit);
        diff_json(m, first, s->m_diff[k], s->m_p[k]);
        json_object_set_new(o, metrics[met[k]].name, m);
    }
    return o;
}

static json_t *summary_json(const struct summary *s, bool first, const size_t *met, size_t nmet)
{
    json_t *o = json_object();
    json_object_set_new(o, "metrics", metrics_json(s, first, met, nmet));
    json_object_set_new(o, "runs_ok", json_integer((json_int_t)s->n));
    json_object_set_new(o, "runs", json_integer((json_int_t)s->total));
    json_object_set_new(o, "ops_per_s", stat_json(s->ops_m, s->ops_sd));
    json_object_set_new(o, "mib_per_s", stat_json(s->mib_m, s->mib_sd));
    json_object_set_new(o, "cpu_pct", json_real(isnan(s->cpu_m) ? 0 : s->cpu_m));
    json_object_set_new(o, "util_pct", isnan(s->util_m) ? json_null() : json_real(s->util_m));
    for (int op = 0; op < 3; op++) {
        if (!s->has[op])
            continue;
        json_object_set_new(o, sbio_op_name(op),
                            json_pack("{s:f,s:o}", "p95_ns", s->p95_m[op], "p99_ns",
                                      stat_json(s->p99_m[op], s->p99_sd[op])));
    }
    diff_json(o, first, s->diff_pct, s->p);
    return o;
}

/* The end of row i: the difference of a mean to row 0's, in % (NaN: no run on a side;
 * infinite: the baseline's mean is 0), and Welch's p-value of it (< 0: no test). */
static void print_verdict(FILE *out, size_t i, double pct, double p)
{
    char d[16];
    snprintf(d, sizeof(d), isinf(pct) ? "baseline 0" : "%+.1f%%", pct);
    if (i == 0)
        fprintf(out, " %9s  (baseline)\n", "");
    else if (isnan(pct))
        fprintf(out, " %9s  no runs to compare\n", "-");
    else if (p < 0)
        fprintf(out, " %9s  1 run, no test\n", d);
    else
        fprintf(out, " %9s  %s (Welch p=%.3g)\n", d, p < 0.05 ? "significant" : "within noise", p);
}

/* One row of the table: setting i's summary, with its difference to the baseline (row 0);
 * has says which op types have columns, w is the setting column's width. */
static void print_row(FILE *out, const char *name, int w, const struct summary *s, size_t i,
                      const bool *has, unsigned repeat)
{
    char runs[16], ops[48];
    snprintf(runs, sizeof(runs), "%zu/%u", s->n, repeat);
    if (s->n)
        snprintf(ops, sizeof(ops), "%.0f ± %.0f", s->ops_m, s->ops_sd);
    else
        snprintf(ops, sizeof(ops), "-");
    fprintf(out, "%-*s %5s %22s", w, name, runs, ops);
    if (s->n)
        fprintf(out, " %9.2f", s->mib_m);
    else
        fprintf(out, " %9s", "-");
    for (int op = 0; op < 3; op++) {
        if (!has[op])
            continue;
        char a[24], b[24];
        if (s->n && s->has[op])
            fprintf(out, " %10s %10s", sbio_fmt_ns(a, sizeof(a), s->p95_m[op]),
                    sbio_fmt_ns(b, sizeof(b), s->p99_m[op]));
        else
            fprintf(out, " %10s %10s", "-", "-");
    }
    fprintf(out, " %6.1f", s->n && !isnan(s->cpu_m) ? s->cpu_m : 0);
    if (s->n && !isnan(s->util_m))
        fprintf(out, " %6.1f", s->util_m);
    else
        fprintf(out, " %6s", "-");
    print_verdict(out, i, s->diff_pct, s->p);
}

static void print_table(FILE *out, char (*names)[512], const struct summary *sum, size_t ns,
                        unsigned repeat)
{
    bool has[3] = {false, false, false};
    size_t w = 7;
    for (size_t i = 0; i < ns; i++) {
        for (int op = 0; op < 3; op++)
            has[op] |= sum[i].has[op];
        if (strlen(names[i]) > w)
            w = strlen(names[i]);
    }
    fprintf(out, "\n%-*s %5s %22s %9s", (int)w, "setting", "runs", "ops/s (mean ± sd)", "MiB/s");
    for (int op = 0; op < 3; op++)
        if (has[op])
            fprintf(out, " %10s %10s",
                    op == 2 ? "fsync p95"
                    : op    ? "write p95"
                            : "read p95",
                    op == 2 ? "fsync p99"
                    : op    ? "write p99"
                            : "read p99");
    /* "Δ" is two bytes in UTF-8 and one column: pad one more. */
    fprintf(out, " %6s %6s %10s  %s\n", "CPU%", "util%", "Δ ops/s", "vs first row");
    for (size_t i = 0; i < ns; i++)
        print_row(out, names[i], (int)w, &sum[i], i, has, repeat);
}

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

/* Setting i's cell of metric k: "mean ± sd" over its runs, "-" without runs. Returns the
 * columns it takes ("±" is two bytes in UTF-8 and one column). */
static size_t metric_cell(char *buf, size_t len, const struct summary *s, const struct metric *m,
                          size_t k)
{
    char a[32], b[32];
    if (!s->n) {
        snprintf(buf, len, "-");
        return 1;
    }
    metric_fmt(a, sizeof(a), m, s->m_mean[k]);
    metric_fmt(b, sizeof(b), m, s->m_sd[k]);
    snprintf(buf, len, "%s ± %s", a, b);
    return strlen(buf) - 1;
}

/* The table of --metrics: one column per metric asked for (mean ± sd), then the difference
 * of the first to the first row. Each column as wide as its widest cell. */
static void print_metric_table(FILE *out, char (*names)[512], const struct summary *sum, size_t ns,
                               unsigned repeat, const size_t *met, size_t nmet)
{
    size_t w = 7, cw[SBIO_COMPARE_MAX_METRICS];
    char cell[80];
    for (size_t k = 0; k < nmet; k++)
        cw[k] = strlen(metrics[met[k]].header);
    for (size_t i = 0; i < ns; i++) {
        w = strlen(names[i]) > w ? strlen(names[i]) : w;
        for (size_t k = 0; k < nmet; k++) {
            size_t cols = metric_cell(cell, sizeof(cell), &sum[i], &metrics[met[k]], k);
            cw[k] = cols > cw[k] ? cols : cw[k];
        }
    }
    fprintf(out, "\n(mean ± sd over each setting's runs; the difference and its test: %s)\n",
            metrics[met[0]].header);
    fprintf(out, "%-*s %5s", (int)w, "setting", "runs");
    for (size_t k = 0; k < nmet; k++)
        fprintf(out, "  %*s", (int)cw[k], metrics[met[k]].header);
    /* "Δ" is two bytes in UTF-8 and one column: pad one more. */
    fprintf(out, " %10s  %s\n", "Δ", "vs first row");
    for (size_t i = 0; i < ns; i++) {
        char runs[16];
        snprintf(runs, sizeof(runs), "%zu/%u", sum[i].n, repeat);
        fprintf(out, "%-*s %5s", (int)w, names[i], runs);
        for (size_t k = 0; k < nmet; k++) {
            size_t cols = metric_cell(cell, sizeof(cell), &sum[i], &metrics[met[k]], k);
            fprintf(out, "  %*s", (int)(cw[k] + strlen(cell) - cols), cell);
        }
        print_verdict(out, i, sum[i].m_diff[0], sum[i].m_p[0]);
    }
}

/* One compare, from its axes to its summaries. A script of several phases gets one table per
 * phase: every figure is kept per (phase, setting), phase-major. */
struct compare {
    const struct sbio_config *cfg;
    const struct sbio_topology *topo;
    const struct sbio_script *script; /* NULL: the workload of sbio run's options */
    /* With script options among the axes: the script as the setting last made loaded it */
    struct sbio_script *cur;
    FILE *out;
    struct axis axes[MAX_AXES];
    size_t naxes, alen[MAX_AXES];
    size_t ns, np; /* settings; phases (1 without a script) */
    unsigned repeat;
    struct sbio_config base; /* cfg with compare's own defaults */
    char (*names)[512];      /* ns: "key=value key=value" */
    size_t *order;           /* ns * repeat: setting of each run, in run order */
    struct run_fig *figs;    /* np * ns * repeat: each (phase, setting)'s successful runs */
    size_t *nfig;            /* np * ns: how many of them */
    struct summary *sum;     /* np * ns */
    json_t **runs;           /* ns: each setting's runs[] for the JSON */
    char (*qbuf)[160];       /* queue strings of the setting being run */
    FILE *devnull;           /* the runs' own text reports go there */
    size_t done;             /* runs measured */
    /* --metrics, as indexes into metrics[]; without it, ops alone (its test's figure) */
    size_t met[SBIO_COMPARE_MAX_METRICS], nmet;
    bool own_metrics; /* --metrics given: its table */
    bool interrupted, failed;
};

/* The list of schedulers as typed (--schedulers=LIST or --vary scheduler=LIST, unless the
 * script has an option of that name) and the option's name, or NULL. */
static const char *compare_sched_list(const struct compare *c, const char **opt)
{
    const struct sbio_config *cfg = c->cfg;
    *opt = "--schedulers";
    if (cfg->schedulers)
        return cfg->schedulers;
    *opt = "--vary scheduler";
    for (int i = 0; i < cfg->nvary && !script_declares(c->script, "scheduler"); i++)
        if (!strncmp(cfg->vary[i], "scheduler=", 10))
            return cfg->vary[i] + 10;
    return NULL;
}

/* A scheduler axis: its names checked as typed (two names of one scheduler), then each value
 * by the kernel's name, so settings and results name what ran. 0 or -SBIO_EUSAGE. */
static int compare_sched_axis(struct compare *c, const char *key, const char *list)
{
    const char *opt;
    if (!strcmp(key, "scheduler") && list == compare_sched_list(c, &opt) &&
        sbio_sched_check_list(NULL, opt, list))
        return -SBIO_EUSAGE;
    if (axis_add(c->axes, &c->naxes, key, list, c->script))
        return -SBIO_EUSAGE;
    struct axis *ax = &c->axes[c->naxes - 1];
    for (size_t i = 0; ax->kind == SBIO_AXIS_SCHEDULER && i < ax->n; i++) {
        char *canon = strdup(sbio_sched_canonical(ax->vals[i]));
        if (!canon)
            return -ENOMEM;
        free(ax->vals[i]);
        ax->vals[i] = canon;
    }
    return 0;
}

/* --metrics, or the default table's ops/s (the figure its test is made on). 0 or
 * -SBIO_EUSAGE (message printed). */
static int compare_metrics(struct compare *c)
{
    c->own_metrics = c->cfg->metrics != NULL;
    if (c->own_metrics)
        return sbio_compare_metrics_parse(c->cfg->metrics, c->met, &c->nmet) ? -SBIO_EUSAGE : 0;
    c->nmet = 1;
    c->met[0] = (size_t)metric_find("ops", 3);
    return 0;
}

/* The axes from --schedulers and --vary, and the number of settings they make. 0 or
 * -SBIO_EUSAGE (message printed). */
static int compare_axes(struct compare *c)
{
    const struct sbio_config *cfg = c->cfg;
    if (cfg->schedulers && compare_sched_axis(c, "scheduler", cfg->schedulers))
        return -SBIO_EUSAGE;
    for (int i = 0; i < cfg->nvary; i++) {
        const char *eq = strchr(cfg->vary[i], '=');
        char key[64];
        snprintf(key, sizeof(key), "%.*s", (int)(eq - cfg->vary[i]), cfg->vary[i]);
        if (compare_sched_axis(c, key, eq + 1))
            return -SBIO_EUSAGE;
    }
    if (!c->naxes) {
        sbio_err("compare needs --schedulers=LIST or --vary KEY=LIST (e.g. --schedulers=none,bfq)");
        return -SBIO_EUSAGE;
    }
    c->ns = 1;
    for (size_t a = 0; a < c->naxes; a++) {
        c->alen[a] = c->axes[a].n;
        c->ns *= c->axes[a].n;
    }
    if (c->ns > 4096) {
        sbio_err("--vary: %zu settings is too many (at most 4096)", c->ns);
        return -SBIO_EUSAGE;
    }
    return 0;
}

static int compare_alloc(struct compare *c)
{
    size_t ns = c->ns, nruns = ns * c->repeat;
    c->names = calloc(ns, sizeof(*c->names));
    c->order = calloc(nruns, sizeof(size_t));
    c->figs = calloc(c->np * nruns, sizeof(*c->figs));
    c->nfig = calloc(c->np * ns, sizeof(size_t));
    c->sum = calloc(c->np * ns, sizeof(*c->sum));
    c->runs = calloc(ns, sizeof(json_t *));
    c->qbuf = calloc(SBIO_MAX_LIST, 160);
    c->devnull = fopen("/dev/null", "w");
    bool script_axes = false;
    for (size_t a = 0; a < c->naxes; a++)
        script_axes |= c->axes[a].kind == SBIO_AXIS_SCRIPT;
    if (script_axes)
        c->cur = calloc(1, sizeof(*c->cur));
    if (!c->names || !c->order || !c->figs || !c->nfig || !c->sum || !c->runs || !c->qbuf ||
        !c->devnull || (script_axes && !c->cur)) {
        sbio_err("compare: out of memory");
        return -ENOMEM;
    }
    return 0;
}

static void compare_free(struct compare *c)
{
    for (size_t s = 0; c->runs && s < c->ns; s++)
        json_decref(c->runs[s]);
    free(c->names);
    free(c->order);
    free(c->figs);
    free(c->nfig);
    free(c->sum);
    free(c->runs);
    free(c->qbuf);
    if (c->cur)
        sbio_script_free(c->cur);
    free(c->cur);
    if (c->devnull)
        fclose(c->devnull);
    axes_free(c->axes, c->naxes);
}

/* A script's file set in words: "2 files, 8 MiB" or "no file set". */
static const char *script_set(char *buf, size_t len, const struct sbio_script *script)
{
    uint64_t bytes = 0;
    char b[32];
    for (unsigned i = 0; i < script->nfiles; i++)
        bytes += script->file_size[i];
    if (!script->nfiles)
        snprintf(buf, len, "no file set");
    else
        snprintf(buf, len, "%u file%s, %s", script->nfiles, script->nfiles == 1 ? "" : "s",
                 sbio_fmt_bytes(b, sizeof(b), bytes));
    return buf;
}

/* Phase ph of a script as a message names it: "name" in quotes, or none. */
static const char *phase_name(char *buf, size_t len, const struct sbio_script *script, unsigned ph)
{
    if (ph < script->nphases)
        snprintf(buf, len, "\"%s\"", script->phases[ph].name);
    else
        snprintf(buf, len, "none");
    return buf;
}

/* Whether the script as setting `name` loaded it (c->cur) declares the phases and the file set
 * it declares with the command line's options: compare tables each phase across the settings,
 * and runs them all on one set. 0 or -EINVAL (message printed). */
static int compare_same_shape(const struct compare *c, const char *name)
{
    const struct sbio_script *a = c->script, *b = c->cur;
    unsigned ph = 0;
    while (ph < a->nphases && ph < b->nphases && !strcmp(a->phases[ph].name, b->phases[ph].name))
        ph++;
    if (ph < a->nphases || ph < b->nphases) {
        char x[80], y[80];
        sbio_err("--vary, setting %s: phase %u of %s is %s (of %u), with the command line's "
                 "options %s (of %u); compare tables each phase across the settings: vary "
                 "options that keep the phases",
                 name, ph + 1, script_name(a), phase_name(x, sizeof(x), b, ph), b->nphases,
                 phase_name(y, sizeof(y), a, ph), a->nphases);
        return -EINVAL;
    }
    bool same = a->nfiles == b->nfiles;
    for (unsigned i = 0; same && i < a->nfiles; i++)
        same = a->file_size[i] == b->file_size[i];
    if (same)
        return 0;
    char x[64], y[64];
    sbio_err("--vary, setting %s: %s declares %s, with the command line's options %s; every "
             "setting runs on one set: vary options that keep it",
             name, script_name(a), script_set(x, sizeof(x), b), script_set(y, sizeof(y), a));
    return -EINVAL;
}

/* Setting s's configuration into *conf (its queue strings in c->qbuf, its name in
 * c->names[s]); with script options among the axes, the script loaded with the setting's
 * values into c->cur, where the script's own option() checks each value against its type.
 * 0 or -EINVAL (message printed). */
static int compare_setting(struct compare *c, size_t s, struct sbio_config *conf)
{
    size_t idx[MAX_AXES];
    char err[512];
    sbio_compare_unrank(s, c->alen, c->naxes, idx);
    int rc = setting_cfg(&c->base, c->topo->nranks, c->axes, c->naxes, idx, conf, c->qbuf,
                         c->names[s], sizeof(c->names[s]));
    if (rc || !c->cur)
        return rc;
    sbio_script_free(c->cur);
    if (sbio_script_load(c->script->path, conf->xname, conf->xvalue, conf->nxopt, c->cur, err,
                         sizeof(err))) {
        sbio_err("--vary, setting %s: %s", c->names[s], err);
        return -EINVAL;
    }
    return compare_same_shape(c, c->names[s]);
}

/* Every setting is checked before anything changes: a typo in the last one must not be found
 * after an hour of runs. 0 or -SBIO_EUSAGE (message printed). */
static int compare_check(struct compare *c)
{
    /* Every scheduler the device lacks, named in one line as the option was typed. A folder
     * that does not resolve is left to the settings' own check, which says why. */
    const char *opt, *list = compare_sched_list(c, &opt);
    struct sbio_target t;
    const struct sbio_config *cfg = c->cfg;
    int rc = list && !sbio_sysblock_resolve(cfg->filename ? "/" : cfg->dir,
                                            cfg->filename ? cfg->filename : cfg->queue_device, &t)
                 ? sbio_sched_check_list(&t, opt, list)
                 : 0;
    if (sbio_mpi_agree(rc, NULL))
        return -SBIO_EUSAGE;
    if (list)
        sbio_sched_note(opt, list);
    /* First, before any setting is tried: every setting's values (pass 0; a script's options
     * too, and its jobs' priorities and groups), then its file set (pass 1; a script's jobs
     * declare their own). Without a set every run would fail after its setting was applied. */
    for (int pass = 0; pass < (c->script ? 1 : 2); pass++)
        for (size_t s = 0; s < c->ns; s++) {
            struct sbio_config conf;
            int rc = compare_setting(c, s, &conf) ? -SBIO_EUSAGE
                     : pass == 1                  ? (conf.filename ? 0 : sbio_fileset_ready(&conf))
                                                  : sbio_session_check(&conf);
            if (!rc && c->script) /* as this setting loaded it */
                rc = sbio_session_check_script(&conf, c->cur ? c->cur : c->script);
            if (sbio_mpi_agree(rc, NULL))
                return -SBIO_EUSAGE;
        }
    for (size_t s = 0; s < c->ns; s++) {
        struct sbio_config conf;
        /* The message of the check names the value; the kernel's refusals are found by
         * trying each setting once (applied, read back, restored). Under MPI every rank
         * checks (each host's leader tries) and all stop when one refuses. */
        int rc = compare_setting(c, s, &conf) ? -SBIO_EUSAGE : sbio_session_check(&conf);
        if (!rc)
            rc = sbio_session_try_settings(&conf, c->topo);
        if (sbio_mpi_agree(rc, NULL))
            return -SBIO_EUSAGE;
        c->runs[s] = json_array();
    }
    return 0;
}

/* The run order (every rank runs the settings in rank 0's) and the lines that announce it. */
static void compare_start(struct compare *c)
{
    const struct sbio_config *cfg = c->cfg;
    uint64_t seed = cfg->rand_seed ? cfg->rand_seed : sbio_mix64(sbio_now_ns());
    sbio_mpi_bcast_u64(&seed);
    sbio_compare_order(c->ns, c->repeat, cfg->order == 1, seed, c->order);
    fprintf(c->out, "sbio %s compare: %zu settings x %u repeats = %zu runs, %s order%s\n",
            SBIO_VERSION, c->ns, c->repeat, c->ns * c->repeat,
            cfg->order == 1 ? "random" : "interleaved",
            c->base.drop_caches ? ", caches dropped before each run" : "");
    const struct sbio_topology *t = c->topo;
    if (t->nranks > 1)
        fprintf(c->out,
                "MPI: %u ranks on %u host%s run each setting together; each host's first rank "
                "changes its settings\n",
                t->nranks, t->nhosts, t->nhosts == 1 ? "" : "s");
}

/* How a run ended, as its progress line and the JSON name it, from its code and whether it
 * happened (it has a document): a run that could not start failed. */
static const char *compare_status(int rc, const json_t *doc)
{
    if (!rc)
        return "ok";
    return rc == -EINTR && doc ? "interrupted" : "failed";
}

/* A script's run: each phase's figures, from its jobs' total or its only job; a refused
 * phase counts as a failed run of that phase. */
static void compare_record_phases(struct compare *c, size_t s, json_t *doc)
{
    size_t okp = 0;
    for (size_t ph = 0; ph < c->np; ph++) {
        json_t *p = json_array_get(json_object_get(doc, "phases"), ph);
        json_t *pdoc = json_object_get(p, "total");
        if (!pdoc)
            pdoc = json_object_get(json_array_get(json_object_get(p, "jobs"), 0), "result");
        if (!pdoc || json_is_true(json_object_get(p, "refused")))
            continue;
        size_t i = ph * c->ns + s;
        run_figures(pdoc, &c->figs[i * c->repeat + c->nfig[i]++], c->met, c->nmet);
        okp++;
    }
    fprintf(c->out, "%zu of %zu phases measured\n", okp, c->np);
    c->done++;
}

static void compare_record_run(struct compare *c, size_t s, json_t *doc)
{
    struct run_fig *f = &c->figs[s * c->repeat + c->nfig[s]++];
    run_figures(doc, f, c->met, c->nmet);
    if (c->own_metrics) {
        for (size_t k = 0; k < c->nmet; k++) {
            char v[32];
            const struct metric *m = &metrics[c->met[k]];
            metric_fmt(v, sizeof(v), m, f->m[k]);
            fprintf(c->out, "%s%s %s%s%s", k ? ", " : "", m->name, v, m->fmt ? " " : "",
                    m->fmt ? m->unit : "");
        }
        fprintf(c->out, "\n");
        c->done++;
        return;
    }
    char a[24];
    fprintf(c->out, "%.0f ops/s, %.2f MiB/s%s%s\n", f->ops_s, f->mib_s,
            f->has[0]   ? ", read p99 "
            : f->has[1] ? ", write p99 "
                        : "",
            f->has[0] || f->has[1] ? sbio_fmt_ns(a, sizeof(a), f->has[0] ? f->p99[0] : f->p99[1])
                                   : "");
    c->done++;
}

/* A script's run under conf (as the setting made last loaded it). Its report() prints to the run's
 * text stream (nowhere here); its event() prints with Lua's own print, to standard output: that
 * goes nowhere too, so the progress lines and the tables stay readable. */
static int compare_run_script(struct compare *c, const struct sbio_config *conf, json_t **doc)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved >= 0)
        dup2(fileno(c->devnull), STDOUT_FILENO);
    int rc = sbio_session_run_script(conf, c->topo, c->cur ? c->cur : c->script, c->devnull, doc);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    return rc;
}

/* The k-th run of the order: run it, keep its document and figures, end its progress line.
 * 0 or -SBIO_EUSAGE (message printed); c->interrupted when every rank is to stop. */
static int compare_run(struct compare *c, size_t k)
{
    size_t s = c->order[k];
    unsigned rep = (unsigned)(k / c->ns) + 1;
    struct sbio_config conf;
    if (compare_setting(c, s, &conf))
        return -SBIO_EUSAGE;
    fprintf(c->out, "[%zu/%zu] repeat %u, %s: ", k + 1, c->ns * c->repeat, rep, c->names[s]);
    fflush(c->out);
    json_t *doc = NULL;
    int rc = c->script ? compare_run_script(c, &conf, &doc)
                       : sbio_session_run(&conf, c->topo, c->devnull, c->devnull, &doc);
    const char *st = compare_status(rc, doc);
    json_t *entry =
        json_pack("{s:i,s:s,s:o}", "repeat", rep, "status", st, "result", doc ? doc : json_null());
    json_array_append_new(c->runs[s], entry);
    for (size_t ph = 0; ph < c->np; ph++)
        c->sum[ph * c->ns + s].total++;
    if (strcmp(st, "ok")) {
        /* Marked and left out of the statistics. */
        fprintf(c->out, "%s — excluded\n", st);
        c->failed |= strcmp(st, "interrupted") != 0;
    } else if (doc && c->script) {
        compare_record_phases(c, s, doc);
    } else if (doc) {
        compare_record_run(c, s, doc);
    }
    /* The ranks stop together: one rank's signal stops them all. */
    if (sbio_mpi_agree(rc == -EINTR || sbio_stop_requested() ? -EINTR : 0, NULL))
        c->interrupted = true;
    return 0;
}

/* Each (phase, setting)'s summary, and its difference to the phase's first setting. */
/* The difference of a mean m (sd, over n runs) to the baseline's m0 (sd0, n0) in %, and
 * Welch's p-value of it. No successful run on either side: no difference (NaN), not -100%;
 * no test (p < 0) where there is no difference or too few runs. */
static void diff_of(double m, double sd, size_t n, double m0, double sd0, size_t n0, double *pct,
                    double *p)
{
    /* A baseline of 0 (no fsyncs, say) has no % difference: infinite, or 0 when both are. */
    bool both = n0 && n && !isnan(m0) && !isnan(m);
    *pct = !both ? NAN : m0 ? (m - m0) / m0 * 100 : m ? copysign(INFINITY, m) : 0;
    *p = both ? sbio_infer_welch_p(m, sd, n, m0, sd0, n0) : -1;
}

static void compare_summarize(struct compare *c)
{
    size_t ns = c->ns;
    for (size_t i = 0; i < c->np * ns; i++)
        summarize(&c->figs[i * c->repeat], c->nfig[i], c->nmet, &c->sum[i]);
    for (size_t ph = 0; ph < c->np; ph++) {
        struct summary *b = &c->sum[ph * ns];
        for (size_t s = 1; s < ns; s++) {
            struct summary *x = &b[s];
            diff_of(x->ops_m, x->ops_sd, x->n, b[0].ops_m, b[0].ops_sd, b[0].n, &x->diff_pct,
                    &x->p);
            for (size_t k = 0; k < c->nmet; k++)
                diff_of(x->m_mean[k], x->m_sd[k], x->n, b[0].m_mean[k], b[0].m_sd[k], b[0].n,
                        &x->m_diff[k], &x->m_p[k]);
        }
    }
}

static void compare_print(const struct compare *c)
{
    if (c->interrupted)
        fprintf(c->out,
                "\n*** Interrupted after %zu of %zu runs: the table covers the runs done; every "
                "setting was restored ***\n",
                c->done, c->ns * c->repeat);
    for (size_t ph = 0; ph < c->np; ph++) {
        if (c->script)
            fprintf(c->out, "\nPhase %zu/%zu: %s", ph + 1, c->np, c->script->phases[ph].name);
        if (c->own_metrics)
            print_metric_table(c->out, c->names, c->sum + ph * c->ns, c->ns, c->repeat, c->met,
                               c->nmet);
        else
            print_table(c->out, c->names, c->sum + ph * c->ns, c->ns, c->repeat);
    }
}

/* settings[s] of the JSON: its name and values, its runs, its summary (the first phase's
 * under a script, each phase's under phases). */
static json_t *compare_setting_json(const struct compare *c, size_t s)
{
    size_t idx[MAX_AXES], ns = c->ns;
    sbio_compare_unrank(s, c->alen, c->naxes, idx);
    json_t *vals = json_object();
    for (size_t a = 0; a < c->naxes; a++)
        json_object_set_new(vals, c->axes[a].key, json_string(c->axes[a].vals[idx[a]]));
    json_t *set =
        json_pack("{s:s,s:o,s:O,s:o}", "name", c->names[s], "values", vals, "runs", c->runs[s],
                  "summary", summary_json(&c->sum[s], s == 0, c->met, c->nmet));
    if (c->script) {
        json_t *phs = json_array();
        for (size_t ph = 0; ph < c->np; ph++)
            json_array_append_new(
                phs, json_pack("{s:s,s:o}", "name", c->script->phases[ph].name, "summary",
                               summary_json(&c->sum[ph * ns + s], s == 0, c->met, c->nmet)));
        json_object_set_new(set, "phases", phs);
    }
    return set;
}

/* The sbio-compare/1 document: how the compare was made, then every setting. */
static json_t *compare_json(const struct compare *c)
{
    const struct sbio_config *cfg = c->cfg;
    json_t *docs = json_object();
    json_object_set_new(docs, "schema", json_string("sbio-compare/1"));
    json_object_set_new(docs, "sbio_version", json_string(SBIO_VERSION));
    json_t *argv = json_array();
    for (int i = 0; i < cfg->argc; i++)
        json_array_append_new(argv, json_string(cfg->argv[i]));
    json_object_set_new(docs, "command_line", argv);
    json_t *ja = json_array();
    for (size_t a = 0; a < c->naxes; a++) {
        json_t *vals = json_array();
        for (size_t i = 0; i < c->axes[a].n; i++)
            json_array_append_new(vals, json_string(c->axes[a].vals[i]));
        json_array_append_new(ja, json_pack("{s:s,s:o}", "key", c->axes[a].key, "values", vals));
    }
    json_object_set_new(docs, "axes", ja);
    json_object_set_new(docs, "repeat", json_integer(c->repeat));
    json_t *mets = json_array();
    for (size_t k = 0; k < c->nmet; k++)
        json_array_append_new(mets, json_string(metrics[c->met[k]].name));
    json_object_set_new(docs, "metrics", mets);
    json_object_set_new(docs, "order", json_string(cfg->order == 1 ? "random" : "interleaved"));
    json_object_set_new(docs, "drop_caches", json_boolean(c->base.drop_caches));
    json_object_set_new(docs, "interrupted", json_boolean(c->interrupted));
    json_t *sets = json_array();
    for (size_t s = 0; s < c->ns; s++)
        json_array_append_new(sets, compare_setting_json(c, s));
    json_object_set_new(docs, "settings", sets);
    return docs;
}

/* --output: the document, and where it went; a failed write fails the compare. */
static void compare_write(struct compare *c)
{
    json_t *docs = compare_json(c);
    FILE *f = fopen(c->cfg->output, "w");
    if (!f || json_dumpf(docs, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10))) {
        sbio_err("--output %s: %s", c->cfg->output, strerror(errno));
        c->failed = true;
    }
    if (f)
        fclose(f);
    json_decref(docs);
    if (!c->failed)
        fprintf(c->out, "\nEvery run's result and the summary: %s\n", c->cfg->output);
}

int sbio_compare(const struct sbio_config *cfg, const struct sbio_topology *topo,
                 const struct sbio_script *script, FILE *out)
{
    struct compare c = {.cfg = cfg,
                        .topo = topo,
                        .script = script,
                        .out = out,
                        .np = script ? script->nphases : 1,
                        .repeat = (unsigned)cfg->repeat};
    int rc = compare_metrics(&c);
    if (!rc)
        rc = compare_axes(&c);
    if (!rc) {
        c.base = *cfg;
        /* --scheduler under every setting: an old name noted once, not at every run. */
        if (c.base.scheduler) {
            sbio_sched_note("--scheduler", c.base.scheduler);
            c.base.scheduler = sbio_sched_canonical(c.base.scheduler);
        }
        /* Caches are dropped before every run by default: each run starts from the device. */
        if (!sbio_options_given(cfg, "drop-caches"))
            c.base.drop_caches = true;
        rc = compare_alloc(&c);
    }
    if (!rc)
        rc = compare_check(&c);
    if (!rc) {
        compare_start(&c);
        for (size_t k = 0; k < c.ns * c.repeat && !c.interrupted && !rc; k++)
            rc = compare_run(&c, k);
    }
    if (!rc) {
        compare_summarize(&c);
        compare_print(&c);
        if (cfg->output && topo->rank == 0)
            compare_write(&c);
        rc = c.interrupted ? -EINTR : c.failed ? -SBIO_EFAILED : 0;
    }
    compare_free(&c);
    return rc;
}
