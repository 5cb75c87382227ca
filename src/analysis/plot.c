/* sbio plot: JSON results -> plain-text data files + a gnuplot script -> gnuplot.
 *
 * Every input is read and checked before anything is created, so bad input leaves no trace.
 * The data files hold the JSON's numbers unscaled (ns, ops/s) and the script does the unit
 * conversion, so a kept data file can be checked against the JSON directly. The script
 * names its data files relative to its own folder and gnuplot runs there, so
 * `cd DIR && gnuplot plot.gp` redraws a chart kept with --keep-data.
 *
 * A compare result (`sbio compare -o X.json`) is charted alone, from its settings' figures per
 * phase, job and metric (the runs that failed are already left out of them) and, for what
 * those lack, from its runs' documents through the table compare fills (table.h). */
#include "plot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff.h"
#include "html.h"
#include "infer.h"
#include "io.h"
#include "report.h"
#include "matrix.h"
#include "table.h"
#include "util.h"

#define PLOT_SCHEMA      "sbio-result/1"
#define PLOT_CMP_SCHEMA  "sbio-compare/1"
#define PLOT_SRV_SCHEMA  "sbio-survey/1"
#define PLOT_SCRIPT      "plot.gp"
#define PLOT_THROUGHPUT  "throughput.dat"
#define PLOT_PERCENTILES "percentiles.dat"
#define PLOT_COMPARE     "compare.dat"
#define PLOT_NO_SAMPLES  "no time series: run with --report-interval or --log-interval"
#define PLOT_MAX_PIXELS  20000

/* One colour per op type in every chart, so a reader learns them once (a read-modify-write
 * has no line in these charts: its entry is unused). */
static const char *const plot_op_color[SBIO_OP_NR] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#000000", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5"};
static const char *const plot_pct_key[] = {"50", "90", "99", "99.9"};
#define PLOT_NPCT (sizeof(plot_pct_key) / sizeof(plot_pct_key[0]))
/* A compare chart's ops/s bars: the baseline (the first setting, which every difference is
 * against) grey; the others purple, pale when the difference is within noise or untested.
 * None is an op type's colour: the bars are all operations together. */
#define PLOT_BASE_RGB  0x7f7f7f
#define PLOT_SIG_RGB   0x9467bd
#define PLOT_NOSIG_RGB 0xc5b0d5

struct plot_run {
    const char *path;
    char name[256];  /* base name without .json */
    char label[256]; /* among several runs: the settings that differ, or the name */
    json_t *doc;
    json_t *result;
    json_t *op_types;
    json_t *samples;                   /* array, possibly empty */
    json_t *settings;                  /* a compare result's settings[] (non-empty), else NULL */
    struct sbio_survey_matrix *survey; /* a survey's matrix, computed again, else NULL */
};

/* The op types a chart of runs has a data column for, op[k] column k's: read, write and
 * fsync always, then each file-system operation some run did (a tree job's). */
struct plot_ops {
    int n;
    int op[SBIO_OP_NR];
};

struct plot_ctx {
    const struct sbio_plot_opts *opt;
    struct plot_ops ops;
    unsigned width, height;
    bool svg;
    bool html; /* a report (html.h), not a chart: no gnuplot, no data folder */
    bool temp; /* dir is ours to remove */
    char dir[PATH_MAX];
    int dirfd;              /* dir, opened: every file is made and gnuplot runs through it */
    int outfd;              /* the chart, opened by sbio: gnuplot's standard output */
    char output[PATH_MAX];  /* absolute: the kept script names it (gnuplot runs in dir) */
    char gnuplot[PATH_MAX]; /* gnuplot's path, found on PATH before anything is written */
    int nruns;
    struct plot_run runs[SBIO_MAX_ARGS];
};

/* A number at a path of object keys (NULL-terminated), NAN when absent or not a number:
 * gnuplot reads NaN as a missing point, which is what an absent field is. */
static double plot_num(json_t *o, ...)
{
    va_list ap;
    va_start(ap, o);
    const char *k;
    while (o && (k = va_arg(ap, const char *)))
        o = json_object_get(o, k);
    va_end(ap);
    return json_is_number(o) ? json_number_value(o) : NAN;
}

static const char *plot_str(json_t *o, const char *k1, const char *k2)
{
    json_t *v = json_object_get(json_object_get(o, k1), k2);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* An op type is charted when the run did any: a read-only run has no write line. */
static bool plot_op_done(const struct plot_run *r, int op)
{
    double ops = plot_num(r->op_types, sbio_op_name(op), "ops", NULL);
    return ops > 0;
}

/* fsyncs inside writes count as ops but are not timed on their own: no latency to show. */
static bool plot_op_timed(const struct plot_run *r, int op)
{
    double n = plot_num(r->op_types, sbio_op_name(op), "latency", "count", NULL);
    return n > 0;
}

static int plot_parse_size(const char *s, unsigned *w, unsigned *h)
{
    char *end;
    errno = 0;
    unsigned long a = strtoul(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X') || errno)
        goto err;
    const char *t = end + 1;
    unsigned long b = strtoul(t, &end, 10);
    if (end == t || *end || errno || *s == '-' || *t == '-')
        goto err;
    if (a < 100 || b < 100 || a > PLOT_MAX_PIXELS || b > PLOT_MAX_PIXELS)
        goto err;
    *w = (unsigned)a;
    *h = (unsigned)b;
    return 0;
err:
    sbio_err("--size %s: expected WIDTHxHEIGHT in pixels, each 100..%d (e.g. 1200x800)", s,
             PLOT_MAX_PIXELS);
    return -SBIO_EUSAGE;
}

static void plot_run_name(struct plot_run *r)
{
    const char *base = strrchr(r->path, '/');
    base = base ? base + 1 : r->path;
    snprintf(r->name, sizeof(r->name), "%s", base);
    size_t n = strlen(r->name);
    if (n > 5 && !strcasecmp(r->name + n - 5, ".json"))
        r->name[n - 5] = 0;
    /* The name goes into a quoted data-file column: a double quote would end it early. */
    for (char *p = r->name; *p; p++)
        if (*p == '"')
            *p = '\'';
}

/* Whether setting s has the phases and jobs of the first setting (each phase a name and at
 * least one job, each job a name), as compare writes every setting. */
static bool plot_setting_shaped(json_t *sets, size_t s)
{
    json_t *set = json_array_get(sets, s);
    json_t *ph = json_object_get(set, "phases");
    json_t *ph0 = json_object_get(json_array_get(sets, 0), "phases"), *p;
    size_t i, j;
    if (!json_is_string(json_object_get(set, "name")) || !json_is_array(ph) ||
        !json_array_size(ph) || json_array_size(ph) != json_array_size(ph0))
        return false;
    json_array_foreach(ph, i, p)
    {
        json_t *jobs = json_object_get(p, "jobs"), *job;
        if (!json_is_string(json_object_get(p, "name")) || !json_array_size(jobs) ||
            json_array_size(jobs) !=
                json_array_size(json_object_get(json_array_get(ph0, i), "jobs")))
            return false;
        json_array_foreach(jobs, j,
                           job) if (!json_is_string(json_object_get(job, "name"))) return false;
    }
    return true;
}

/* A compare result is charted from settings[]: each a name and its phases' jobs' metrics
 * (see compare.c), the same phases and jobs in every setting. */
static int plot_load_compare(struct plot_run *r)
{
    json_t *sets = json_object_get(r->doc, "settings");
    bool good = json_is_array(sets) && json_array_size(sets) > 0;
    for (size_t i = 0; good && i < json_array_size(sets); i++)
        good = plot_setting_shaped(sets, i);
    if (!good) {
        sbio_err("plot: %s: an sbio compare result without settings[] (each a name and the same "
                 "phases[] of jobs[]): the file is truncated, was edited or was written by an "
                 "older sbio",
                 r->path);
        return -SBIO_EUSAGE;
    }
    r->settings = sets;
    plot_run_name(r);
    return 0;
}

/* A survey is charted from its matrix, every figure computed again from the cells' values. */
static int plot_load_survey(struct plot_run *r)
{
    char err[256];
    if (!(r->survey = calloc(1, sizeof(*r->survey))))
        return -ENOMEM;
    int rc = sbio_survey_matrix_from_json(r->doc, r->survey, err, sizeof(err));
    if (rc == -EINVAL || (!rc && !r->survey->nrows)) {
        sbio_err("plot: %s: %s: the file is truncated, was edited or was written by an older "
                 "sbio",
                 r->path, rc ? err : "a survey without rows in its matrix");
        return -SBIO_EUSAGE;
    }
    if (!rc)
        plot_run_name(r);
    return rc;
}

/* Whether a string of v, or a key, holds a control character (sbio_util_control): where it
 * is ("config.file_test_mode", "settings[1].name") into where (len bytes, l used). */
static bool plot_find_control(json_t *v, char *where, size_t len, size_t l)
{
    const char *k;
    json_t *e;
    size_t i;
    l = l < len ? l : len - 1;
    if (json_is_string(v))
        return sbio_util_control(json_string_value(v)) != NULL;
    if (json_is_object(v)) {
        json_object_foreach(v, k, e)
        {
            int n = snprintf(where + l, len - l, "%s%s", l ? "." : "", k);
            if (sbio_util_control(k) || plot_find_control(e, where, len, l + (size_t)n))
                return true;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e)
        {
            int n = snprintf(where + l, len - l, "[%zu]", i);
            if (plot_find_control(e, where, len, l + (size_t)n))
                return true;
        }
    }
    where[l] = 0;
    return false;
}

/* Text of a result reaches the gnuplot script (titles, labels, names, units) and the
 * terminal: a line break there would end a quoted string and start a command of the file's
 * choosing, an escape sequence would act on the terminal. sbio writes none: a file with one
 * was made to do that, or damaged. 0 or -SBIO_EUSAGE (message printed). */
static int plot_check_text(const struct plot_run *r)
{
    char where[512] = "", shown[160];
    if (!plot_find_control(r->doc, where, sizeof(where), 0))
        return 0;
    sbio_err("plot: %s: %s holds a control character (a line break, an escape…): refused, as "
             "the text would reach the gnuplot script; sbio writes none",
             r->path, sbio_util_escape(shown, sizeof(shown), where, 100));
    return -SBIO_EUSAGE;
}

/* Reads and checks one result; the message names the file and what is wrong with it. */
static int plot_load(struct plot_run *r)
{
    char shown[160];
    if (sbio_util_control(r->path)) {
        sbio_err("plot: %s: a file name with a control character: refused, as it would reach "
                 "the gnuplot script",
                 sbio_util_escape(shown, sizeof(shown), r->path, 100));
        return -SBIO_EUSAGE;
    }
    FILE *f = fopen(r->path, "re");
    if (!f) {
        sbio_err("plot: %s: %s", r->path, strerror(errno));
        return -SBIO_EUSAGE;
    }
    json_error_t jerr;
    r->doc = json_loadf(f, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    if (!r->doc) {
        /* jansson may quote the file's own text: one line, nothing a terminal acts on. */
        sbio_err("plot: %s: not JSON (line %d column %d: %s)", r->path, jerr.line, jerr.column,
                 sbio_util_escape(shown, sizeof(shown), jerr.text, 100));
        return -SBIO_EUSAGE;
    }
    json_t *schema = json_object_get(r->doc, "schema");
    if (json_is_string(schema) && !strcmp(json_string_value(schema), PLOT_CMP_SCHEMA))
        return plot_check_text(r) || sbio_diff_check_types("plot", r->path, r->doc, true)
                   ? -SBIO_EUSAGE
                   : plot_load_compare(r);
    if (json_is_string(schema) && !strcmp(json_string_value(schema), PLOT_SRV_SCHEMA))
        return plot_check_text(r) ? -SBIO_EUSAGE : plot_load_survey(r);
    if (!json_is_string(schema) || strcmp(json_string_value(schema), PLOT_SCHEMA)) {
        sbio_err("plot: %s: not an sbio result (\"schema\" is %s%s%s, want \"%s\", \"%s\" or "
                 "\"%s\")",
                 r->path, json_is_string(schema) ? "\"" : "",
                 json_is_string(schema)
                     ? sbio_util_escape(shown, sizeof(shown), json_string_value(schema), 60)
                     : "absent",
                 json_is_string(schema) ? "\"" : "", PLOT_SCHEMA, PLOT_CMP_SCHEMA, PLOT_SRV_SCHEMA);
        return -SBIO_EUSAGE;
    }
    if (plot_check_text(r) || sbio_diff_check_types("plot", r->path, r->doc, false))
        return -SBIO_EUSAGE;
    r->result = json_object_get(r->doc, "result");
    r->op_types = json_object_get(r->result, "op_types");
    if (!json_is_object(r->op_types)) {
        sbio_err("plot: %s: an sbio result without result.op_types: the file is truncated or "
                 "was edited",
                 r->path);
        return -SBIO_EUSAGE;
    }
    r->samples = json_object_get(r->result, "samples");
    if (!json_is_array(r->samples))
        r->samples = NULL;
    plot_run_name(r);
    return 0;
}

/* Text as a gnuplot string, every one of them written by these two. Control characters never
 * reach here (a result holding one is refused) but sbio's own line breaks. gnuplot runs what
 * is between backquotes inside double quotes, and gnuplot 5.4 misreads two escaped quotes in
 * a row (four quotes end the string after one): so text with no single quote goes in single
 * quotes, where nothing is read as anything but text, and any other text in double quotes
 * with each quote, backslash and backquote as its octal escape, which the string gives back
 * as text. */
static void plot_dquote(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\n')
            fputs("\\n", f);
        else if (strchr("\"'\\`", *s))
            fprintf(f, "\\%03o", (unsigned)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void plot_quote(FILE *f, const char *s)
{
    if (strpbrk(s, "'\n")) {
        plot_dquote(f, s);
        return;
    }
    fputc('\'', f);
    fputs(s, f);
    fputc('\'', f);
}

/* "rndrw, 2 threads, 16 KiB blocks, sync": what a reader needs to tell runs apart. The
 * short form ("rndrw, 2 thr, 16 KiB, sync") fits under a bar group. */
static void plot_describe(const struct plot_run *r, bool brief, char *buf, size_t len)
{
    json_t *opt = json_object_get(r->doc, "config");
    const char *mode = plot_str(r->doc, "config", "file_test_mode");
    const char *engine = plot_str(r->doc, "config", "ioengine");
    const char *flags = plot_str(r->doc, "config", "file_extra_flags");
    double threads = plot_num(opt, "threads", NULL);
    double bs = plot_num(opt, "block_size_bytes", NULL);
    char bsbuf[32] = "?";
    /* A hand-edited document may say anything: only a value a uint64_t holds converts. */
    if (bs > 0 && bs < 0x1p64)
        sbio_fmt_bytes(bsbuf, sizeof(bsbuf), (uint64_t)bs);
    bool extra = flags && strcmp(flags, "(none)");
    snprintf(buf, len, "%s, %.0f %s%s, %s%s, %s%s%s", mode ? mode : "?",
             isnan(threads) ? 0 : threads, brief ? "thr" : "thread",
             brief || threads == 1 ? "" : "s", bsbuf, brief ? "" : " blocks", engine ? engine : "?",
             extra ? " " : "", extra ? flags : "");
}

/* Axis tick labels stay short numbers: operations/s shown in thousands or millions when
 * they are that large. The data files keep the plain figures. */
static double plot_ops_scale(double max, const char **label)
{
    if (max >= 1e6) {
        *label = "million operations/s";
        return 1e6;
    }
    if (max >= 1e4) {
        *label = "thousand operations/s";
        return 1e3;
    }
    *label = "operations/s";
    return 1;
}

/* Spelled out so the data files read the same whatever the C library prints for NaN. */
static void plot_put(FILE *f, double v)
{
    if (isnan(v))
        fputs(" NaN", f);
    else
        fprintf(f, " %.10g", v);
}

static int plot_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) || bad) {
        int e = errno ? errno : EIO;
        sbio_err("plot: %s: write: %s", path, strerror(e));
        return -e;
    }
    return 0;
}

/* A data file or the script, new in the data folder (never written through a link or into a
 * file that was there: sbio_util_open_output's SBIO_OUTPUT_NEW). */
static FILE *plot_create(const struct plot_ctx *c, const char *name, int *rc)
{
    char why[512];
    int fd = sbio_util_open_output(c->dirfd, name, SBIO_OUTPUT_NEW, why, sizeof(why));
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        *rc = fd < 0 ? fd : -errno;
        sbio_err("plot: %s/%s: %s", c->dir, name, fd < 0 ? why : strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

/* The time series: t_s then ops/s of each op type of the chart (NaN where absent). */
static int plot_write_throughput(const struct plot_ctx *c, const struct plot_run *r)
{
    int rc = 0;
    FILE *f = plot_create(c, PLOT_THROUGHPUT, &rc);
    if (!f)
        return rc;
    fprintf(f, "# %s: result.samples[].t_s and [].TYPE.ops_per_s\n# t_s", r->path);
    for (int k = 0; k < c->ops.n; k++)
        fprintf(f, " %s_ops_per_s", sbio_op_name(c->ops.op[k]));
    fputc('\n', f);
    size_t i;
    json_t *s;
    json_array_foreach(r->samples, i, s)
    {
        fprintf(f, "%.10g", plot_num(s, "t_s", NULL));
        for (int k = 0; k < c->ops.n; k++)
            plot_put(f, plot_num(s, sbio_op_name(c->ops.op[k]), "ops_per_s", NULL));
        fputc('\n', f);
    }
    return plot_close(f, PLOT_THROUGHPUT);
}

/* One row per percentile, one column per op type, in ns as in the JSON. */
static int plot_write_percentiles(const struct plot_ctx *c, const struct plot_run *r)
{
    int rc = 0;
    FILE *f = plot_create(c, PLOT_PERCENTILES, &rc);
    if (!f)
        return rc;
    fprintf(f, "# %s: result.op_types.TYPE.latency.percentiles_ns\n# percentile", r->path);
    for (int k = 0; k < c->ops.n; k++)
        fprintf(f, " %s_ns", sbio_op_name(c->ops.op[k]));
    fputc('\n', f);
    for (size_t p = 0; p < PLOT_NPCT; p++) {
        fprintf(f, "p%s", plot_pct_key[p]);
        for (int k = 0; k < c->ops.n; k++) {
            double v = plot_num(r->op_types, sbio_op_name(c->ops.op[k]), "latency",
                                "percentiles_ns", plot_pct_key[p], NULL);
            /* A log axis has no place for 0 (an op type never timed). */
            plot_put(f, v > 0 ? v : NAN);
        }
        fputc('\n', f);
    }
    return plot_close(f, PLOT_PERCENTILES);
}

/* One row per run: its label, a description, ops/s then p99 (ns) per op type. */
static int plot_write_compare(const struct plot_ctx *c)
{
    int rc = 0;
    FILE *f = plot_create(c, PLOT_COMPARE, &rc);
    if (!f)
        return rc;
    fprintf(f, "# result.op_types.TYPE.ops_per_s and .latency.percentiles_ns.99, one run a "
               "line\n# name description");
    for (int k = 0; k < c->ops.n; k++)
        fprintf(f, " %s_ops_per_s", sbio_op_name(c->ops.op[k]));
    for (int k = 0; k < c->ops.n; k++)
        fprintf(f, " %s_p99_ns", sbio_op_name(c->ops.op[k]));
    fputc('\n', f);
    for (int i = 0; i < c->nruns; i++) {
        const struct plot_run *r = &c->runs[i];
        char desc[256];
        plot_describe(r, true, desc, sizeof(desc));
        for (char *p = desc; *p; p++)
            if (*p == '"')
                *p = '\'';
        fprintf(f, "\"%s\" \"%s\"", r->label, desc);
        for (int k = 0; k < c->ops.n; k++)
            plot_put(f, plot_num(r->op_types, sbio_op_name(c->ops.op[k]), "ops_per_s", NULL));
        for (int k = 0; k < c->ops.n; k++) {
            int op = c->ops.op[k];
            double v =
                plot_num(r->op_types, sbio_op_name(op), "latency", "percentiles_ns", "99", NULL);
            plot_put(f, v > 0 && plot_op_timed(r, op) ? v : NAN);
        }
        fputc('\n', f);
    }
    return plot_close(f, PLOT_COMPARE);
}

/* pngcairo draws antialiased text and lines; the libgd png terminal is the fallback some
 * gnuplot builds only have. The choice is made by gnuplot itself at run time, so a kept
 * script stays portable. */
static void plot_write_terminal(FILE *f, const struct plot_ctx *c)
{
    fprintf(f, "set encoding utf8\n");
    if (c->svg) {
        fprintf(f,
                "set terminal svg size %u,%u dynamic noenhanced font 'sans,12' background "
                "'#ffffff'\n",
                c->width, c->height);
    } else {
        fprintf(f,
                "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                "    set terminal pngcairo size %u,%u noenhanced font 'sans,11' background "
                "'#ffffff'\n"
                "} else {\n"
                "    set terminal png size %u,%u noenhanced truecolor background '#ffffff'\n"
                "}\n",
                c->width, c->height, c->width, c->height);
    }
    /* sbio gives gnuplot the chart as its standard output; run by hand, the script names it. */
    fprintf(f, "if (!exists('sbio_chart_on_stdout')) {\n    set output ");
    plot_quote(f, c->output);
    fprintf(f, "\n}\n");
    /* Value labels in the unit that fits, as the text report prints them. */
    fprintf(f, "plot_fmt_ns(ns) = ns < 1e3 ? sprintf('%%.0f ns', ns) : ns < 1e6 ? "
               "sprintf('%%.3g µs', ns / 1e3) : ns < 1e9 ? sprintf('%%.3g ms', ns / 1e6) : "
               "sprintf('%%.3g s', ns / 1e9)\n");
    fprintf(f, "plot_fmt_ops(v) = v >= 1e6 ? sprintf('%%.3gM', v / 1e6) : v >= 1e3 ? "
               "sprintf('%%.3gk', v / 1e3) : sprintf('%%.3g', v)\n");
    /* Fixed margins line the two panels' plot areas up whatever their tick labels' widths. */
    fprintf(f, "set lmargin 12\nset rmargin 14\nset grid ytics lc rgb '#d0d0d0'\n"
               "set key outside right top\nset border 3\nset tics nomirror\n");
}

/* The top panel of a one-run chart: ops/s of each op type over time, from throughput.dat. */
static void plot_run_throughput_panel(FILE *f, const struct plot_ops *o, const struct plot_run *r)
{
    size_t nsamples = r->samples ? json_array_size(r->samples) : 0;
    double max = 0;
    size_t i;
    json_t *smp;
    if (nsamples)
        json_array_foreach(r->samples, i, smp) for (int k = 0; k < o->n; k++)
        {
            double v = plot_num(smp, sbio_op_name(o->op[k]), "ops_per_s", NULL);
            if (v > max)
                max = v;
        }
    const char *ylabel;
    double scale = plot_ops_scale(max, &ylabel);
    fprintf(f,
            "set title 'Throughput over time'\n"
            "set xlabel 'time since the measured start (s)'\n"
            "set ylabel '%s'\n"
            "set yrange [0:*]\nset xrange [0:*]\n",
            ylabel);
    bool any = false;
    if (nsamples) {
        /* Points mark each interval while they stay readable; a long log is a line. */
        const char *style = nsamples <= 60 ? "linespoints pt 7 ps 0.6" : "lines";
        for (int k = 0; k < o->n; k++) {
            int op = o->op[k];
            if (!plot_op_done(r, op))
                continue;
            fprintf(f, "%s '%s' using 1:($%d/%g) with %s lw 2 lc rgb '%s' title '%s'",
                    any ? ", \\\n    " : "plot", PLOT_THROUGHPUT, k + 2, scale, style,
                    plot_op_color[op], sbio_op_name(op));
            any = true;
        }
    }
    if (!any) {
        /* Keep the panel so the layout does not change, and say why it is empty. */
        fprintf(f,
                "set xrange [0:1]\nset yrange [0:1]\nunset ytics\nunset xtics\n"
                "set label 1 '%s' at graph 0.5,0.5 center\n"
                "plot 1/0 notitle\n"
                "unset label 1\nset xtics nomirror\nset ytics nomirror\n",
                PLOT_NO_SAMPLES);
    } else {
        fputc('\n', f);
    }
}

/* The latency panel's value labels are placed here rather than by gnuplot, so that no two
 * overlap (read and write latencies are often alike): each goes above its point, else
 * below, twice as far above or below, left or right of it, the first place whose box is clear of
 * the points and the labels placed before it. Boxes are in pixels of the panel, estimated from the
 * chart's size and the font, a little generously. */
#define PLOT_CHAR_PX   7.5  /* a character's width */
#define PLOT_LINE_PX   15.0 /* a line: the unit of gnuplot's vertical offsets */
#define PLOT_TEXT_PX   12.0 /* the height of a label's text */
#define PLOT_SEG_BOXES 24   /* a line between two points, as so many small boxes */

struct plot_box {
    double x0, x1, y0, y1;
};

struct plot_tags {
    double lo, hi;        /* the y range, µs, whole decades */
    double px_x, area_px; /* pixels per percentile step; height of the plot area */
    struct plot_box used[PLOT_NPCT * SBIO_OP_NR * (PLOT_SEG_BOXES + 1)]; /* points, lines, labels */
    int nused;
};

static const struct {
    double dx, dy; /* offset of the label's anchor: characters, lines */
    const char *just;
} plot_tag_places[] = {{0, 0.9, "center"},  {0, -0.9, "center"}, {0, 1.8, "center"},
                       {0, -1.8, "center"}, {-0.8, 0, "right"},  {0.8, 0, "left"},
                       {0, 2.7, "center"},  {0, -2.7, "center"}};

static bool plot_box_free(const struct plot_tags *t, const struct plot_box *b)
{
    for (int i = 0; i < t->nused; i++) {
        const struct plot_box *u = &t->used[i];
        if (b->x0 < u->x1 && u->x0 < b->x1 && b->y0 < u->y1 && u->y0 < b->y1)
            return false;
    }
    return true;
}

/* The point of percentile p at v ns, in the panel's pixels. */
static void plot_tag_xy(const struct plot_tags *t, size_t p, double v, double *x, double *y)
{
    *x = ((double)p + 0.3) * t->px_x;
    *y = (log10(v / 1000) - log10(t->lo)) / (log10(t->hi) - log10(t->lo)) * t->area_px;
}

/* The y range and pixel scale; every point marked as taken. False when nothing was timed. */
static bool plot_tags_layout(const struct plot_ctx *c, json_t *ops, bool *timed,
                             struct plot_tags *t)
{
    double min = INFINITY, max = 0;
    for (int k = 0; k < c->ops.n; k++)
        for (size_t p = 0; timed[k] && p < PLOT_NPCT; p++) {
            double v = plot_num(ops, sbio_op_name(c->ops.op[k]), "latency", "percentiles_ns",
                                plot_pct_key[p], NULL);
            min = v > 0 && v < min ? v : min;
            max = v > max ? v : max;
        }
    if (!(max > 0))
        return false;
    t->lo = pow(10, floor(log10(min / 1000 / 1.5))); /* room for a label under the lowest */
    t->hi = pow(10, ceil(log10(max / 1000 * 1.5)));
    t->hi = t->hi < t->lo * 100 ? t->lo * 100 : t->hi;
    t->px_x = ((double)c->width - 26 * PLOT_CHAR_PX) / ((double)PLOT_NPCT - 0.4);
    t->area_px = (double)c->height / 2 - 100;
    t->nused = 0;
    for (int col = 0; col < c->ops.n; col++) {
        int op = c->ops.op[col];
        for (size_t p = 0; timed[col] && p < PLOT_NPCT; p++) {
            double v = plot_num(ops, sbio_op_name(op), "latency", "percentiles_ns", plot_pct_key[p],
                                NULL),
                   w = p + 1 < PLOT_NPCT ? plot_num(ops, sbio_op_name(op), "latency",
                                                    "percentiles_ns", plot_pct_key[p + 1], NULL)
                                         : 0,
                   x, y, x2, y2;
            if (!(v > 0))
                continue;
            plot_tag_xy(t, p, v, &x, &y);
            t->used[t->nused++] = (struct plot_box){x - 5, x + 5, y - 5, y + 5};
            /* The line to the next point, as a few small boxes along it. */
            if (!(w > 0))
                continue;
            plot_tag_xy(t, p + 1, w, &x2, &y2);
            for (int k = 1; k < PLOT_SEG_BOXES; k++) {
                double a = (double)k / PLOT_SEG_BOXES;
                double bx = x + a * (x2 - x), by = y + a * (y2 - y);
                t->used[t->nused++] = (struct plot_box){bx - 2, bx + 2, by - 2, by + 2};
            }
        }
    }
    return true;
}

/* One value label: the first free place around its point (above when none is). */
static void plot_tag(FILE *f, struct plot_tags *t, size_t p, double v, const char *color)
{
    char text[32];
    if (v < 1e3)
        snprintf(text, sizeof(text), "%.0f ns", v);
    else
        snprintf(text, sizeof(text),
                 v < 1e6   ? "%.3g µs"
                 : v < 1e9 ? "%.3g ms"
                           : "%.3g s",
                 v < 1e6   ? v / 1e3
                 : v < 1e9 ? v / 1e6
                           : v / 1e9);
    double w = (double)sbio_text_cols(text) * PLOT_CHAR_PX, x, y; /* characters (µ) */
    plot_tag_xy(t, p, v, &x, &y);
    size_t k, n = sizeof(plot_tag_places) / sizeof(plot_tag_places[0]);
    struct plot_box b;
    for (k = 0; k <= n; k++) {
        size_t i = k < n ? k : 0;
        double ax = x + plot_tag_places[i].dx * PLOT_CHAR_PX;
        double ay = y + plot_tag_places[i].dy * PLOT_LINE_PX;
        const char *j = plot_tag_places[i].just;
        b.x0 = *j == 'c' ? ax - w / 2 : *j == 'r' ? ax - w : ax;
        b.x1 = b.x0 + w;
        b.y0 = ay - PLOT_TEXT_PX / 2;
        b.y1 = ay + PLOT_TEXT_PX / 2;
        if (k == n || plot_box_free(t, &b))
            break;
    }
    size_t i = k < n ? k : 0;
    t->used[t->nused++] = b;
    fprintf(f, "set label '%s' at first %zu, first %.10g %s offset %g,%g tc rgb '%s' front\n", text,
            p, v / 1000, plot_tag_places[i].just, plot_tag_places[i].dx, plot_tag_places[i].dy,
            color);
}

/* The bottom panel of a one-run chart: the latency percentiles of each op type timed, from
 * percentiles.dat, each point with its value; it ends the chart. */
static void plot_run_latency_panel(FILE *f, const struct plot_ctx *c, const struct plot_run *r)
{
    bool timed[SBIO_OP_NR];
    for (int k = 0; k < c->ops.n; k++)
        timed[k] = plot_op_timed(r, c->ops.op[k]);
    struct plot_tags *t = calloc(1, sizeof(*t));
    bool any = t && plot_tags_layout(c, r->op_types, timed, t);
    fprintf(f,
            "set title 'Latency percentiles over the whole run (log scale)'\n"
            "set xlabel 'percentile'\n"
            "set ylabel 'latency (µs)'\n"
            "set logscale y\n"
            "set xrange [-0.3:%.1f]\n",
            (double)PLOT_NPCT - 0.7);
    if (any)
        fprintf(f, "set yrange [%g:%g]\n", t->lo, t->hi);
    for (size_t p = 0; any && p < PLOT_NPCT; p++)
        for (int k = 0; k < c->ops.n; k++) {
            int op = c->ops.op[k];
            double v = plot_num(r->op_types, sbio_op_name(op), "latency", "percentiles_ns",
                                plot_pct_key[p], NULL);
            if (timed[k] && v > 0)
                plot_tag(f, t, p, v, plot_op_color[op]);
        }
    for (int col = 0, k = 0; any && col < c->ops.n; col++) {
        int op = c->ops.op[col];
        if (!timed[col])
            continue;
        /* Data in ns as in the JSON; the axis is in µs. */
        fprintf(f,
                "%s '%s' using 0:($%d/1000.0):xtic(1) with linespoints lw 2 pt 7 ps 1 "
                "lc rgb '%s' title '%s'",
                k++ ? ", \\\n    " : "plot", PLOT_PERCENTILES, col + 2, plot_op_color[op],
                sbio_op_name(op));
    }
    if (!any)
        fprintf(f, "unset logscale y\nset yrange [0:1]\n"
                   "set label 2 'no operations timed' at graph 0.5,0.5 center\n"
                   "plot 1/0 notitle");
    fprintf(f, "\nunset multiplot\n");
    free(t);
}

/* One run: its throughput over time above its latency percentiles. */
static void plot_write_run_script(FILE *f, const struct plot_ctx *c, const struct plot_run *r)
{
    char desc[256];
    plot_describe(r, false, desc, sizeof(desc));
    double elapsed = plot_num(r->result, "elapsed_s", NULL);
    char title[PATH_MAX + 512];
    snprintf(title, sizeof(title), "sbio: %s (%s, %.1f s)", r->name, desc, elapsed);
    plot_write_terminal(f, c);
    fprintf(f, "set multiplot layout 2,1 title ");
    plot_quote(f, title);
    fprintf(f, " font ',13'\n");
    plot_run_throughput_panel(f, &c->ops, r);
    plot_run_latency_panel(f, c, r);
}

/* A chart of several runs: what its bars show and what fits around them. */
struct plot_bars {
    const struct plot_ops *ops;               /* the data file's columns */
    bool done[SBIO_OP_NR], timed[SBIO_OP_NR]; /* column k's op type any run did, and timed */
    int ndone, ntimed;
    bool values;      /* value labels on the bars */
    const char *xtic; /* the tick labels' using-expression */
};

static void plot_bars_ops(const struct plot_ctx *c, struct plot_bars *b)
{
    memset(b, 0, sizeof(*b));
    b->ops = &c->ops;
    for (int k = 0; k < c->ops.n; k++) {
        for (int i = 0; i < c->nruns; i++) {
            b->done[k] |= plot_op_done(&c->runs[i], c->ops.op[k]);
            b->timed[k] |= plot_op_timed(&c->runs[i], c->ops.op[k]);
        }
        b->ndone += b->done[k];
        b->ntimed += b->timed[k];
    }
}

/* What fits under and over the bars depends on the pixels a group gets (the margins take
 * about 260): a second tick line naming the workload, value labels on the bars (about 48 px
 * at the small font; tick text about 8 px a character), or only slanted run names when
 * groups are narrow. The bottom margin is set because gnuplot leaves too little for two-line
 * labels. */
static void plot_bars_layout(FILE *f, const struct plot_ctx *c, struct plot_bars *b)
{
    unsigned group_px = c->width > 360 ? (c->width - 260) / (unsigned)c->nruns : 0;
    size_t longest = 0, longest_desc = 0;
    for (int i = 0; i < c->nruns; i++) {
        char d[256];
        plot_describe(&c->runs[i], true, d, sizeof(d));
        if (strlen(c->runs[i].label) > longest)
            longest = strlen(c->runs[i].label);
        if (strlen(d) > longest_desc)
            longest_desc = strlen(d);
    }
    bool desc = group_px >= 8 * longest_desc + 20;
    bool slant = !desc && group_px < 8 * longest + 10;
    unsigned bar_px = group_px / (unsigned)(b->ndone > b->ntimed ? b->ndone + 1 : b->ntimed + 1);
    b->values = bar_px >= 48;
    b->xtic = desc ? "xtic(strcol(1).\"\\n\".strcol(2))" : "xtic(1)";
    if (slant)
        fprintf(f, "set xtics rotate by -30\n");
    fprintf(f, "set bmargin %d\n", slant ? 3 + (int)(longest / 3) : desc ? 4 : 3);
}

/* The top panel: ops/s per run, a bar per op type. Value labels sit on the bar centres:
 * clustered bar k of n in row i is centred at i + (k - (n-1)/2) / (n + gap). */
static void plot_bars_ops_panel(FILE *f, const struct plot_ctx *c, const struct plot_bars *b)
{
    double max = 0;
    for (int i = 0; i < c->nruns; i++)
        for (int k = 0; k < c->ops.n; k++) {
            double v = plot_num(c->runs[i].op_types, sbio_op_name(c->ops.op[k]), "ops_per_s", NULL);
            if (v > max)
                max = v;
        }
    const char *ylabel;
    double scale = plot_ops_scale(max, &ylabel);
    fprintf(f, "set title 'Throughput per run'\nset ylabel '%s'\nset yrange [0:*]\n", ylabel);
    int k = 0;
    for (int col = 0; col < b->ops->n; col++) {
        int op = b->ops->op[col];
        if (!b->done[col])
            continue;
        fprintf(f, "%s '%s' using ($%d/%g):%s lc rgb '%s' title '%s'", k ? ", \\\n    " : "plot",
                PLOT_COMPARE, col + 3, scale, b->xtic, plot_op_color[op], sbio_op_name(op));
        k++;
    }
    k = 0;
    for (int col = 0; col < b->ops->n && b->values; col++) {
        if (!b->done[col])
            continue;
        fprintf(f,
                ", \\\n    '' using ($0 + (%d - %g) / %d.0):($%d/%g):($%d > 0 ? "
                "plot_fmt_ops($%d) : '') with labels offset 0,0.7 font ',9' notitle",
                k, (b->ndone - 1) / 2.0, b->ndone + 1, col + 3, scale, col + 3, col + 3);
        k++;
    }
    if (!b->ndone)
        fprintf(f, "set yrange [0:1]\nset label 1 'no operations' at graph 0.5,0.5 center\n"
                   "plot 1/0 notitle\nunset label 1");
    fputc('\n', f);
}

/* The bottom panel: p99 per run, a bar per op type timed (log scale); it ends the chart. */
static void plot_bars_p99_panel(FILE *f, const struct plot_bars *b)
{
    fprintf(f, "set title 'p99 latency per run (log scale)'\nset ylabel 'p99 latency (µs)'\n"
               "set logscale y\nset yrange [*:*]\nset autoscale y\n");
    /* The p99 columns follow the ops/s ones. */
    int k = 0, p99 = 3 + b->ops->n;
    for (int col = 0; col < b->ops->n; col++) {
        int op = b->ops->op[col];
        if (!b->timed[col])
            continue;
        fprintf(f, "%s '%s' using ($%d/1000.0):%s lc rgb '%s' title '%s'",
                k ? ", \\\n    " : "plot", PLOT_COMPARE, p99 + col, b->xtic, plot_op_color[op],
                sbio_op_name(op));
        k++;
    }
    k = 0;
    for (int col = 0; col < b->ops->n && b->values; col++) {
        if (!b->timed[col])
            continue;
        fprintf(f,
                ", \\\n    '' using ($0 + (%d - %g) / %d.0):($%d/1000.0):(plot_fmt_ns("
                "$%d)) with labels offset 0,0.7 font ',9' notitle",
                k, (b->ntimed - 1) / 2.0, b->ntimed + 1, p99 + col, p99 + col);
        k++;
    }
    if (!b->ntimed)
        fprintf(f, "unset logscale y\nset yrange [0:1]\n"
                   "set label 1 'no operations timed' at graph 0.5,0.5 center\nplot 1/0 notitle");
    fprintf(f, "\nunset multiplot\n");
}

/* Several runs side by side: ops/s above p99, a group of bars per run. */
static void plot_write_compare_script(FILE *f, const struct plot_ctx *c)
{
    struct plot_bars b;
    plot_bars_ops(c, &b);
    plot_write_terminal(f, c);
    fprintf(f,
            "set multiplot layout 2,1 title 'sbio: %d runs, throughput and p99 latency per "
            "op type' font ',13'\n",
            c->nruns);
    fprintf(f,
            "set style data histograms\n"
            "set style histogram clustered gap 1\n"
            "set style fill solid 1.0 border -1\n"
            "set xtics nomirror scale 0\n"
            "set xrange [-0.6:%d.6]\n",
            c->nruns - 1);
    plot_bars_layout(f, c, &b);
    plot_bars_ops_panel(f, c, &b);
    plot_bars_p99_panel(f, &b);
}

/* ---- a compare result ----
 *
 * A compare result is charted from what compare computed, never recomputed: each setting's
 * phases[].jobs[].metrics (the bars: mean, 95% CI, difference, Holm-corrected verdict, the
 * runs' values and their outlier marks). The latency percentiles, of which the compare's
 * columns have p99 at most, come from the runs' own documents through the table compare fills
 * (table.h): all four alike, computed as compare computes its columns. */

/* A setting's name, without double quotes: it goes into a quoted data-file column. */
struct plot_setting {
    char name[512];
};

/* The latency percentiles charted per op type, as --metrics spells them after "TYPE.p". */
static const char *const plot_lat_q[] = {"50", "95", "99", "99.9"};
#define PLOT_NLAT (sizeof(plot_lat_q) / sizeof(plot_lat_q[0]))
/* Op types in a latency panel: a point and dash type each, the colour being the setting's. */
static const int plot_op_pt[SBIO_OP_NR] = {7, 5, 9, 13, 11, 3, 1, 2, 4, 6, 8, 10, 12, 14, 15};
/* The settings' colours in the latency panels: the baseline grey as its bar, the others in
 * turn from a palette without it. */
static const char *const plot_set_color[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                             "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
#define PLOT_NSETCOLOR (sizeof(plot_set_color) / sizeof(plot_set_color[0]))

static const char *plot_setting_color(size_t s)
{
    static const char base[] = "#7f7f7f";
    return s == 0 ? base : plot_set_color[(s - 1) % PLOT_NSETCOLOR];
}

/* A compare chart: the document's settings and phases, the bars' metric, and the table of
 * the percentiles read from the runs. */
struct plot_cmp {
    const struct plot_ctx *c;
    const struct plot_run *r;
    json_t *sets;   /* settings[] */
    json_t *phases; /* settings[0].phases[]: the phases' and jobs' names */
    size_t ns, np, nb;
    struct plot_setting *st;
    const char *metric; /* the bars' metric: the compare's first of ops and mib, else its first */
    struct sbio_table tab;
    bool have_tab; /* a run measured: the table has the latency percentiles */
    bool old_ci;   /* the document's difference intervals are not the log ratio's (they
                      could reach below -100%): the bars' are computed again */
};

/* One bar: a setting's figure of the bars' metric in a block. NaN where the JSON has null or
 * nothing (no run, one run: no CI). */
struct plot_bar {
    double ok, runs, n, mean, sd, lo, hi, diff, dlo, dhi, p, p_holm;
    double top;          /* the highest of the bar, its CI and its runs' values */
    size_t nout;         /* runs marked as outliers */
    bool unbounded;      /* the difference's CI is unbounded */
    int sig;             /* 1 significant, 0 within noise, -1 no test (baseline, no runs, 1 run) */
    const char *verdict; /* compare's: baseline, significant, within noise, no test, no runs */
};

static json_t *plot_cmp_phase(const struct plot_cmp *m, size_t s, size_t ph)
{
    return json_array_get(json_object_get(json_array_get(m->sets, s), "phases"), ph);
}

static size_t plot_cmp_nblocks(const struct plot_cmp *m, size_t ph)
{
    return json_array_size(json_object_get(json_array_get(m->phases, ph), "jobs"));
}

/* settings[s].phases[ph].jobs[b]. */
static json_t *plot_cmp_job(const struct plot_cmp *m, size_t s, size_t ph, size_t b)
{
    return json_array_get(json_object_get(plot_cmp_phase(m, s, ph), "jobs"), b);
}

static double plot_at(json_t *arr, size_t i)
{
    json_t *v = json_array_get(arr, i);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void plot_bar_read(const struct plot_cmp *m, size_t s, size_t ph, size_t b,
                          struct plot_bar *o)
{
    json_t *p = plot_cmp_phase(m, s, ph);
    json_t *e = json_object_get(json_object_get(plot_cmp_job(m, s, ph, b), "metrics"), m->metric);
    json_t *ci = json_object_get(e, "ci95"), *dci = json_object_get(e, "diff_ci95_pct");
    o->ok = plot_num(p, "runs_ok", NULL);
    o->runs = plot_num(p, "runs", NULL);
    o->n = e ? plot_num(e, "n", NULL) : 0;
    o->mean = plot_num(e, "mean", NULL);
    o->sd = plot_num(e, "stddev", NULL);
    o->lo = plot_at(ci, 0);
    o->hi = plot_at(ci, 1);
    o->diff = plot_num(e, "diff_pct", NULL);
    o->dlo = plot_at(dci, 0);
    o->dhi = plot_at(dci, 1);
    o->unbounded = json_is_true(json_object_get(e, "ci_unbounded"));
    o->p = plot_num(e, "p_value", NULL);
    o->p_holm = plot_num(e, "p_holm", NULL);
    const char *v = json_string_value(json_object_get(e, "verdict"));
    o->verdict = v ? v : s ? "no runs" : "baseline";
    o->sig = !strcmp(o->verdict, "significant") ? 1 : !strcmp(o->verdict, "within noise") ? 0 : -1;
    o->top = o->hi > o->mean ? o->hi : o->mean;
    o->nout = json_array_size(json_object_get(e, "outliers"));
    json_t *vals = json_object_get(e, "values");
    for (size_t i = 0; i < json_array_size(vals); i++)
        if (plot_at(vals, i) > o->top || isnan(o->top))
            o->top = plot_at(vals, i);
}

/* Bar o's difference interval against the baseline's bar base, by the log ratio
 * (sbio_infer_diff_ci), from the figures the document keeps of each (mean, sd, runs): for a
 * document whose "statistics.ci" is of another kind (one that could reach below -100%). */
static void plot_bar_reci(struct plot_bar *o, const struct plot_bar *base)
{
    double lo, hi;
    o->dlo = o->dhi = NAN;
    o->unbounded = false;
    if (!(o->n >= 2 && base->n >= 2) || isnan(o->mean + o->sd + base->mean + base->sd))
        return;
    int rc = sbio_infer_diff_ci(o->mean, o->sd, (size_t)o->n, base->mean, base->sd, (size_t)base->n,
                                SBIO_TABLE_LEVEL, &lo, &hi);
    if (!rc) {
        o->dlo = lo;
        o->dhi = hi;
    }
    o->unbounded = rc == -ERANGE;
}

/* The bars' metric: "ops", or "mib" when the compare's metrics list it first (--metrics);
 * without either, the compare's first metric. */
static const char *plot_cmp_metric(json_t *doc)
{
    json_t *mets = json_object_get(doc, "metrics");
    for (size_t i = 0; i < json_array_size(mets); i++) {
        const char *n = json_string_value(json_array_get(mets, i));
        if (n && (!strcmp(n, "ops") || !strcmp(n, "mib")))
            return n;
    }
    const char *first = json_string_value(json_array_get(mets, 0));
    return first ? first : "ops";
}

/* The table's columns: each op type's percentiles, c = op * PLOT_NLAT + q. */
_Static_assert(SBIO_OP_NR *PLOT_NLAT <= SBIO_TABLE_MAX_COLS, "a table holds every percentile");
static void plot_cmp_columns(size_t *col, size_t *ncol)
{
    char name[64];
    *ncol = 0;
    for (int op = 0; op < SBIO_OP_NR; op++)
        for (size_t q = 0; q < PLOT_NLAT; q++) {
            snprintf(name, sizeof(name), "%s.p%s", sbio_op_name(op), plot_lat_q[q]);
            col[(*ncol)++] = (size_t)sbio_table_metric_index(name);
        }
}

/* A run's document when it ended ok (compare's statistics are over those only), else NULL. */
static json_t *plot_run_ok(json_t *run)
{
    json_t *st = json_object_get(run, "status"), *doc = json_object_get(run, "result");
    return json_is_string(st) && !strcmp(json_string_value(st), "ok") && json_is_object(doc) ? doc
                                                                                             : NULL;
}

/* The runs that ended ok into a table of their percentiles, shaped by the first of them. No
 * run measured, or runs shaped unlike the compare's phases (an edited file): no table, and
 * the latency panels say so. 0 or -ENOMEM. */
static int plot_cmp_table(struct plot_cmp *m)
{
    size_t col[SBIO_TABLE_MAX_COLS], ncol, maxrun = 0, np = 0, k, s;
    json_t *first = NULL, *run;
    for (s = 0; s < m->ns; s++) {
        json_t *runs = json_object_get(json_array_get(m->sets, s), "runs");
        maxrun = json_array_size(runs) > maxrun ? json_array_size(runs) : maxrun;
        json_array_foreach(runs, k, run) if (!first) first = plot_run_ok(run);
    }
    struct sbio_table_phase *ph = calloc(m->np ? m->np : 1, sizeof(*ph));
    if (!ph)
        return -ENOMEM;
    plot_cmp_columns(col, &ncol);
    bool fits = first && sbio_table_shape(first, ph, m->np, &np) == 0 && np == m->np;
    for (size_t p = 0; fits && p < np; p++)
        fits = ph[p].nb == plot_cmp_nblocks(m, p);
    int rc = fits ? sbio_table_init(&m->tab, m->ns, maxrun, ph, np, col, ncol) : 0;
    free(ph);
    if (!fits || rc)
        return rc;
    for (s = 0; s < m->ns; s++) {
        json_t *runs = json_object_get(json_array_get(m->sets, s), "runs"), *doc;
        json_array_foreach(runs, k, run) if ((doc = plot_run_ok(run)))
        {
            double rep = plot_num(run, "repeat", NULL);
            sbio_table_add(&m->tab, s, rep >= 1 && rep < 1e9 ? (unsigned)rep : 0, doc);
        }
    }
    sbio_table_compute(&m->tab);
    m->have_tab = true;
    return 0;
}

/* The percentile cell (phase ph, block b, setting s, op, q), or NULL without a table. */
static const struct sbio_table_cell *plot_lat_cell(const struct plot_cmp *m, size_t ph, size_t b,
                                                   size_t s, int op, size_t q)
{
    return m->have_tab ? sbio_table_cell(&m->tab, ph, b, s, (size_t)op * PLOT_NLAT + q) : NULL;
}

/* Whether block b of phase ph has latencies of op in some setting: a job that did no writes
 * (or timed none) has no write line. As in compare's table (sbio_table_shown), the jobs'
 * total leaves out an op type only one job did: its figures are that job's, in its own
 * panel. */
static bool plot_lat_shown(const struct plot_cmp *m, size_t ph, size_t b, int op)
{
    for (size_t q = 0; m->have_tab && q < PLOT_NLAT; q++)
        if (sbio_table_shown(&m->tab, ph, b, (size_t)op * PLOT_NLAT + q))
            return true;
    return false;
}

/* Data file names: phaseP-jobJ-KIND.dat (1-based), phaseP-total-KIND.dat for the jobs'
 * total: names of jobs may hold anything, their places do not. */
static void plot_cmp_file(const struct plot_cmp *m, size_t ph, size_t b, const char *kind,
                          char *buf, size_t len)
{
    json_t *job = json_array_get(json_object_get(json_array_get(m->phases, ph), "jobs"), b);
    if (json_is_true(json_object_get(job, "total")))
        snprintf(buf, len, "phase%zu-total-%s.dat", ph + 1, kind);
    else
        snprintf(buf, len, "phase%zu-job%zu-%s.dat", ph + 1, b + 1, kind);
}

/* "phase load, job readers", "job readers", "all jobs", or "" for a run of built-in options.
 * Double quotes become single: the text goes into comments and double-quoted strings. */
static void plot_cmp_where(const struct plot_cmp *m, size_t ph, size_t b, char *buf, size_t len)
{
    json_t *p = json_array_get(m->phases, ph);
    json_t *job = json_array_get(json_object_get(p, "jobs"), b);
    const char *pn = json_string_value(json_object_get(p, "name"));
    const char *jn = json_string_value(json_object_get(job, "name"));
    size_t l = 0;
    buf[0] = 0;
    if (m->np > 1 && pn && *pn)
        l = (size_t)snprintf(buf, len, "phase %s", pn);
    if (json_is_true(json_object_get(job, "total")))
        snprintf(buf + l, len - l, "%sall jobs", l ? ", " : "");
    else if (jn && *jn)
        snprintf(buf + l, len - l, "%sjob %s", l ? ", " : "", jn);
    for (char *c = buf; *c; c++)
        if (*c == '"')
            *c = '\'';
}

/* The data file of kind ("throughput", "latency") of (phase ph, block b), created: its name
 * into name (64 bytes), where it is in words into where (200 bytes); NULL with *rc set when
 * it cannot be. */
static FILE *plot_cmp_create(const struct plot_cmp *m, size_t ph, size_t b, const char *kind,
                             char *name, char *where, int *rc)
{
    plot_cmp_file(m, ph, b, kind, name, 64);
    plot_cmp_where(m, ph, b, where, 200);
    return plot_create(m->c, name, rc);
}

/* The bars' data file: one row per setting (NaN where the JSON has null or nothing), then,
 * after two blank lines (gnuplot's index 1), one row per run value. */
static int plot_cmp_write_bars(const struct plot_cmp *m, size_t ph, size_t b,
                               const struct plot_bar *bars)
{
    char name[64], where[200];
    int rc = 0;
    FILE *f = plot_cmp_create(m, ph, b, "throughput", name, where, &rc);
    if (!f)
        return rc;
    fprintf(f,
            "# %s: settings[].phases[%zu].jobs[%zu].metrics.%s (%s), one setting a line; "
            "x is its place, the first (x = 0) the baseline\n",
            *where ? where : "the runs", ph, b, m->metric, m->r->path);
    fprintf(f, "# significant: 1, 0 (within noise) or -1 (baseline, no test, no runs); NaN: null "
               "or absent in the JSON\n");
    fprintf(f, "# x runs_ok runs n mean stddev ci95_lo ci95_hi diff_pct diff_ci95_lo "
               "diff_ci95_hi p_value p_holm significant verdict name\n");
    for (size_t s = 0; s < m->ns; s++) {
        const struct plot_bar *o = &bars[s];
        const double v[] = {o->ok, o->runs, o->n,   o->mean, o->sd, o->lo,
                            o->hi, o->diff, o->dlo, o->dhi,  o->p,  o->p_holm};
        fprintf(f, "%zu", s);
        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
            plot_put(f, v[i]);
        fprintf(f, " %d \"%s\" \"%s\"\n", o->sig, o->verdict, m->st[s].name);
    }
    fprintf(f, "\n\n# each run: x value repeat outlier (1: marked, more than 3 median absolute "
               "deviations from its setting's median)\n# x value repeat outlier\n");
    for (size_t s = 0; s < m->ns; s++) {
        json_t *e =
            json_object_get(json_object_get(plot_cmp_job(m, s, ph, b), "metrics"), m->metric);
        json_t *vals = json_object_get(e, "values"), *reps = json_object_get(e, "repeats");
        json_t *outs = json_object_get(e, "outliers"), *o;
        for (size_t i = 0; i < json_array_size(vals); i++) {
            json_t *rep = json_array_get(reps, i);
            bool out = false;
            size_t k;
            json_array_foreach(outs, k, o) out |= json_equal(o, rep);
            fprintf(f, "%zu", s);
            plot_put(f, plot_at(vals, i));
            plot_put(f, json_is_number(rep) ? json_number_value(rep) : NAN);
            fprintf(f, " %d\n", out);
        }
    }
    return plot_close(f, name);
}

/* The latency data file: a block per (op type shown, setting), in that order, two blank
 * lines apart (gnuplot's index), each a row per percentile. */
static int plot_cmp_write_lat(const struct plot_cmp *m, size_t ph, size_t b)
{
    char name[64], where[200];
    int rc = 0;
    FILE *f = plot_cmp_create(m, ph, b, "latency", name, where, &rc);
    if (!f)
        return rc;
    fprintf(f,
            "# %s: settings[].runs[] that ended ok (%s), each run's result.op_types.TYPE."
            "latency.percentiles_ns, mean over the runs with its 95%% CI (NaN: fewer than 2 "
            "runs)\n# one block per op type the job did and setting, in that order\n",
            *where ? where : "the runs", m->r->path);
    int k = 0;
    for (int op = 0; op < SBIO_OP_NR; op++) {
        if (!plot_lat_shown(m, ph, b, op))
            continue;
        for (size_t s = 0; s < m->ns; s++) {
            fprintf(f,
                    "%s# index %d: %s, setting %zu \"%s\"\n# x percentile mean_ns ci95_lo_ns "
                    "ci95_hi_ns n\n",
                    k ? "\n\n" : "", k, sbio_op_name(op), s, m->st[s].name);
            k++;
            for (size_t q = 0; q < PLOT_NLAT; q++) {
                const struct sbio_table_cell *e = plot_lat_cell(m, ph, b, s, op, q);
                bool any = e->n > 0;
                fprintf(f, "%zu p%s", q, plot_lat_q[q]);
                plot_put(f, any ? e->mean : NAN);
                plot_put(f, any ? e->mean - e->half : NAN);
                plot_put(f, any ? e->mean + e->half : NAN);
                fprintf(f, " %zu\n", e->n);
            }
        }
    }
    return plot_close(f, name);
}

/* buf (len bytes) cut at max bytes, on a character boundary, ending in "…". */
static void plot_cut(char *buf, size_t len, size_t max)
{
    if (max > len - 4)
        max = len - 4;
    if (strlen(buf) > max && max > 8) {
        size_t k = max - 1;
        while (k && ((unsigned char)buf[k] & 0xC0) == 0x80)
            k--;
        strcpy(buf + k, "…");
    }
}

/* The command that made the compare, without its output file: what a reader needs to run
 * it again. Cut at max bytes (on a character boundary) with "…". */
static void plot_command_line(json_t *doc, size_t max, char *buf, size_t len)
{
    json_t *argv = json_object_get(doc, "command_line");
    size_t n = json_array_size(argv);
    buf[0] = 0;
    if (n < 2)
        return;
    size_t l = (size_t)snprintf(buf, len, "sbio");
    for (size_t i = 1; i < n && l < len; i++) {
        const char *a = json_string_value(json_array_get(argv, i));
        if (!a)
            continue;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            i++;
            continue;
        }
        if (!strncmp(a, "-o", 2) || !strncmp(a, "--output=", 9))
            continue;
        l += (size_t)snprintf(buf + l, len - l, " %s", a);
    }
    plot_cut(buf, len, max);
}

/* The tick labels under the slots. Best, each setting's name, one key=value a line. When that
 * is too wide and every setting has the same keys (as compare's product has), the values
 * alone, "64K / 2", under an axis label naming the keys, "file-block-size / threads", on one
 * line, or slanted when even that is too wide. A name not made of key=value pairs is slanted
 * whole. About 7 px a character at the tick font. */
struct plot_ticks {
    bool values;  /* the values alone, the keys in xlabel */
    int angle;    /* 0, 30, 45 or 60 degrees down to the right */
    size_t lines; /* of an upright label */
    size_t len;   /* the longest slanted label */
    char xlabel[512];
};

/* The keys of NAME ("k1=v1 k2=v2") joined by " / ", or false when NAME is not such pairs. */
static bool plot_name_keys(const char *name, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = 0;
    for (const char *p = name; *p;) {
        const char *eq = strchr(p, '='), *sp = strchr(p, ' ');
        if (!eq || eq == p || (sp && sp < eq))
            return false;
        l += (size_t)snprintf(buf + l, l < len ? len - l : 0, "%s%.*s", l ? " / " : "",
                              (int)(eq - p), p);
        p = sp ? sp + 1 : p + strlen(p);
    }
    return l > 0 && l < len;
}

static void plot_tick_label(const struct plot_setting *s, const struct plot_ticks *tk, char *buf,
                            size_t len)
{
    if (!tk->values) {
        snprintf(buf, len, "%s", s->name);
        for (char *p = buf; !tk->angle && *p; p++)
            if (*p == ' ')
                *p = '\n'; /* one key=value a line */
        return;
    }
    size_t l = 0;
    buf[0] = 0;
    for (const char *p = s->name; *p && l < len;) {
        const char *eq = strchr(p, '='), *sp = strchr(p, ' ');
        size_t n = sp ? (size_t)(sp - eq - 1) : strlen(eq + 1);
        l += (size_t)snprintf(buf + l, len - l, "%s%.*s", l ? " / " : "", (int)n, eq + 1);
        p = sp ? sp + 1 : p + strlen(p);
    }
}

static void plot_ticks_choose(const struct plot_setting *st, size_t ns, unsigned group_px,
                              struct plot_ticks *tk)
{
    memset(tk, 0, sizeof(*tk));
    size_t part_max = 0, lines = 1;
    for (size_t i = 0; i < ns; i++) {
        size_t n = 1, part = 0;
        for (const char *p = st[i].name; *p; p++) {
            if (*p == ' ') {
                n++;
                part = 0;
            } else if (++part > part_max) {
                part_max = part;
            }
        }
        if (n > lines)
            lines = n;
    }
    tk->lines = lines;
    if (lines <= 4 && group_px >= 7 * part_max + 12)
        return;
    char keys[512], k[512];
    bool same = plot_name_keys(st[0].name, keys, sizeof(keys));
    for (size_t i = 1; i < ns && same; i++)
        same = plot_name_keys(st[i].name, k, sizeof(k)) && !strcmp(k, keys);
    tk->values = same;
    tk->lines = 1;
    for (size_t i = 0; i < ns; i++) {
        char lab[512];
        plot_tick_label(&st[i], tk, lab, sizeof(lab));
        if (strlen(lab) > tk->len)
            tk->len = strlen(lab);
    }
    if (same)
        snprintf(tk->xlabel, sizeof(tk->xlabel), "%s", keys);
    if (!same || group_px < 7 * tk->len + 10)
        tk->angle = group_px >= 45 ? 30 : group_px >= 25 ? 45 : 60;
}

/* A compare chart's layout: a column per block (a phase's jobs, then their total), two rows
 * per phase (bars above latency), and what fits in a bar panel's setting slots. */
struct plot_cmp_layout {
    unsigned panel_w, panel_h; /* pixels of one panel */
    unsigned group_px;         /* of a setting's slot in a bar panel */
    bool narrow;               /* the annotations over a bar upright */
    struct plot_ticks tk;
    int bmargin; /* lines under a bar panel's plot area, for the tick labels */
};

/* The margins of a panel take about 100 px across (10 characters of tick labels on the left)
 * and 70 px down besides the tick labels; the title about 70 px. */
static void plot_cmp_layout(const struct plot_cmp *m, struct plot_cmp_layout *l)
{
    const struct plot_ctx *c = m->c;
    l->panel_w = c->width / (unsigned)m->nb;
    l->panel_h = c->height > 70 ? (c->height - 70) / (unsigned)(2 * m->np) : 0;
    l->group_px = l->panel_w > 100 + m->ns ? (l->panel_w - 100) / (unsigned)m->ns : 0;
    l->narrow = l->group_px < 90;
    plot_ticks_choose(m->st, m->ns, l->group_px, &l->tk);
    const struct plot_ticks *tk = &l->tk;
    /* A slanted label's height: its length times the sine, in lines of about 17 px. */
    l->bmargin = tk->angle == 0    ? (int)tk->lines + 1
                 : tk->angle == 30 ? 2 + (int)(tk->len * 4 + 12) / 17
                 : tk->angle == 45 ? 2 + (int)(tk->len * 5 + 12) / 17
                                   : 2 + (int)(tk->len * 6 + 12) / 17;
    if (*tk->xlabel)
        l->bmargin += tk->angle ? 2 : 1;
}

static void plot_fmt_pct(char *buf, size_t len, double v)
{
    if (isinf(v))
        snprintf(buf, len, "%s", v > 0 ? "+inf" : "-inf");
    else
        snprintf(buf, len, fabs(v) >= 1000 ? "%+.0f%%" : "%+.1f%%", v);
}

/* What is written over bar s, as compare's table says it: D, the difference to the baseline
 * with "*" when significant after the correction; C, its 95% CI, or why there is none; N, the
 * runs with a value of those made. */
static void plot_bar_text(const struct plot_bar *o, size_t s, char *d, char *ci, char *n,
                          size_t len)
{
    char lo[24], hi[24];
    ci[0] = 0;
    if (s == 0) {
        snprintf(d, len, "baseline");
    } else if (isnan(o->diff)) {
        snprintf(d, len, "no runs to compare");
    } else {
        plot_fmt_pct(lo, sizeof(lo), o->diff);
        snprintf(d, len, "%s%s", lo, o->sig == 1 ? " *" : "");
        plot_fmt_pct(lo, sizeof(lo), o->dlo);
        plot_fmt_pct(hi, sizeof(hi), o->dhi);
        if (!isnan(o->dlo) && !isnan(o->dhi))
            snprintf(ci, len, "[%s, %s]", lo, hi);
        else
            snprintf(ci, len, "%s", o->unbounded ? "[unbounded]" : "1 run, no test");
    }
    if (o->n == o->runs || isnan(o->runs))
        snprintf(n, len, "n=%.0f", o->n);
    else
        snprintf(n, len, "n=%.0f of %.0f", o->n, o->runs);
}

/* The top of a bar panel's axis (in scale's unit): room over each bar's highest point for
 * its annotations, three lines of about 14 px, or 6.5 px a character upright. */
static double plot_cmp_bars_top(const struct plot_cmp_layout *l, const struct plot_bar *bars,
                                size_t ns, double scale)
{
    double area_px = l->panel_h - 45.0 - 17.0 * l->bmargin, ymax = 0;
    for (size_t s = 0; s < ns; s++) {
        char d[64], ci[64], n[64];
        if (!(bars[s].n > 0))
            continue;
        plot_bar_text(&bars[s], s, d, ci, n, sizeof(d));
        double need =
            l->narrow ? 6.5 * (double)(strlen(d) + strlen(n) + 2) + 14 : 14.0 * (*ci ? 3 : 2) + 8;
        double top = bars[s].top / scale;
        /* A panel too small for the text gets at most 4 times the bar: text may overflow. */
        top *= area_px > need * 1.33 ? area_px / (area_px - need) : 4;
        ymax = top > ymax ? top : ymax;
    }
    return ymax;
}

/* Over each bar its annotations; in a slot without a value, why. */
static void plot_cmp_bars_labels(FILE *f, const struct plot_cmp_layout *l,
                                 const struct plot_bar *bars, size_t ns, double scale)
{
    for (size_t s = 0; s < ns; s++) {
        const struct plot_bar *o = &bars[s];
        char d[64], ci[64], n[64];
        if (!(o->n > 0)) {
            fprintf(f,
                    "set label \"%s%s(%.0f of %.0f)\" at first %zu, graph 0.5 %s font ',9' "
                    "tc rgb '#505050'\n",
                    o->ok > 0 ? "no figure" : "no successful run", l->narrow ? " " : "\\n",
                    isnan(o->ok) ? 0 : o->ok, isnan(o->runs) ? 0 : o->runs, s,
                    l->narrow ? "center rotate by 90" : "center");
            continue;
        }
        plot_bar_text(o, s, d, ci, n, sizeof(d));
        double y = o->top / scale;
        if (l->narrow) {
            fprintf(f,
                    "set label '%s, %s' at first %zu, first %.6g rotate by 90 left offset "
                    "0,0.6 font ',8'\n",
                    d, n, s, y);
            continue;
        }
        fprintf(f, "set label '%s' at first %zu, first %.6g center offset 0,%s font ',9'\n", d, s,
                y, *ci ? "2.9" : "1.9");
        if (*ci)
            fprintf(f, "set label '%s' at first %zu, first %.6g center offset 0,1.9 font ',8'\n",
                    ci, s, y);
        fprintf(f,
                "set label '%s' at first %zu, first %.6g center offset 0,0.8 font ',8' tc "
                "rgb '#505050'\n",
                n, s, y);
    }
}

/* The settings' names under a bar panel's slots. */
static void plot_cmp_xtics(FILE *f, const struct plot_cmp *m, const struct plot_cmp_layout *l)
{
    const struct plot_ticks *tk = &l->tk;
    fprintf(f, "set xrange [-0.6:%zu.4]\nset bmargin %d\n", m->ns - 1, l->bmargin);
    if (tk->angle)
        fprintf(f, "set xtics nomirror scale 0 rotate by -%d (", tk->angle);
    else
        fprintf(f, "set xtics nomirror scale 0 norotate (");
    for (size_t i = 0; i < m->ns; i++) {
        char lab[512];
        plot_tick_label(&m->st[i], tk, lab, sizeof(lab));
        fprintf(f, "%s", i ? ", " : "");
        plot_dquote(f, lab);
        fprintf(f, " %zu", i);
    }
    fprintf(f, ")\n");
    if (*tk->xlabel) {
        fprintf(f, "set xlabel ");
        plot_quote(f, tk->xlabel);
        fputc('\n', f);
    } else {
        fprintf(f, "unset xlabel\n");
    }
}

/* The bars' unit, from the first cell that says it. */
static const char *plot_cmp_unit(const struct plot_cmp *m, size_t ph, size_t b)
{
    for (size_t s = 0; s < m->ns; s++) {
        json_t *e =
            json_object_get(json_object_get(plot_cmp_job(m, s, ph, b), "metrics"), m->metric);
        const char *u = json_string_value(json_object_get(e, "unit"));
        if (u)
            return u;
    }
    return "";
}

/* The plot command of a bar panel: the bars with their CI, coloured by their verdict; each
 * run a small circle, a marked one a red cross over it. */
static void plot_cmp_bars_plot(FILE *f, const char *file, const struct plot_bar *bars, size_t ns,
                               double scale)
{
    bool any = false, outs = false;
    for (size_t s = 0; s < ns; s++) {
        any |= bars[s].n > 0;
        outs |= bars[s].nout > 0;
    }
    if (!any) {
        fprintf(f, "plot 1/0 notitle\n");
        return;
    }
    fprintf(f,
            "plot '%s' index 0 using 1:($5/%g):((valid(7) ? ($7 > 0 ? $7 : 0) : $5)/%g):"
            "((valid(8) ? $8 : $5)/%g):(0.3):($1 == 0 ? 0x%06x : $14 == 1 ? 0x%06x : 0x%06x) with "
            "boxerrorbars lc rgb variable notitle, \\\n    '' index 1 using 1:($2/%g) with points "
            "pt 6 ps 0.7 lc rgb '#202020' notitle",
            file, scale, scale, scale, PLOT_BASE_RGB, PLOT_SIG_RGB, PLOT_NOSIG_RGB, scale);
    if (outs)
        fprintf(f,
                ", \\\n    '' index 1 using 1:($4 == 1 ? $2/%g : 1/0) with points pt 2 ps "
                "1.8 lw 2 lc rgb '#d62728' notitle",
                scale);
    fputc('\n', f);
}

/* A bar panel: block b of phase ph, a bar per setting with its 95% CI. */
static int plot_cmp_bars_panel(FILE *f, const struct plot_cmp *m, const struct plot_cmp_layout *l,
                               size_t ph, size_t b)
{
    struct plot_bar *bars = calloc(m->ns, sizeof(*bars));
    if (!bars)
        return -ENOMEM;
    double hi = 0;
    for (size_t s = 0; s < m->ns; s++) {
        plot_bar_read(m, s, ph, b, &bars[s]);
        if (s && m->old_ci)
            plot_bar_reci(&bars[s], &bars[0]);
        hi = bars[s].top > hi ? bars[s].top : hi;
    }
    int rc = plot_cmp_write_bars(m, ph, b, bars);
    const char *unit = plot_cmp_unit(m, ph, b), *ylabel = unit;
    double scale = !strcmp(unit, "ops/s") ? plot_ops_scale(hi, &ylabel) : 1;
    double ymax = plot_cmp_bars_top(l, bars, m->ns, scale);
    char where[200], file[64], title[320];
    plot_cmp_where(m, ph, b, where, sizeof(where));
    plot_cmp_file(m, ph, b, "throughput", file, sizeof(file));
    snprintf(title, sizeof(title), "%s%s%s", where, *where ? ": " : "", *unit ? unit : m->metric);
    /* Black error bars on the bars; a latency panel's are in their line's colour. */
    fprintf(f, "unset logscale y\nunset key\nset errorbars lw 1.5 lc rgb '#202020'\nset title ");
    plot_dquote(f, title);
    fprintf(f, " font ',10'\nset ylabel ");
    plot_quote(f, ylabel);
    fprintf(f, "\nset yrange [0:%.6g]\n", ymax > 0 ? ymax : 1);
    plot_cmp_xtics(f, m, l);
    plot_cmp_bars_labels(f, l, bars, m->ns, scale);
    plot_cmp_bars_plot(f, file, bars, m->ns, scale);
    fprintf(f, "unset label\n");
    free(bars);
    return rc;
}

/* A latency panel's log axis: whole decades around every point and CI bound, in µs, or in ms
 * when it reaches 10 ms (*div: ns per unit); false when there is no point. */
static bool plot_lat_range(const struct plot_cmp *m, size_t ph, size_t b, double *lo, double *hi,
                           double *div)
{
    double min = INFINITY, max = 0;
    for (int op = 0; op < SBIO_OP_NR; op++)
        for (size_t s = 0; s < m->ns && plot_lat_shown(m, ph, b, op); s++)
            for (size_t q = 0; q < PLOT_NLAT; q++) {
                const struct sbio_table_cell *e = plot_lat_cell(m, ph, b, s, op, q);
                if (!e->n || !(e->mean > 0))
                    continue;
                double l = e->mean - e->half > 0 ? e->mean - e->half : e->mean;
                double h = e->mean + e->half > e->mean ? e->mean + e->half : e->mean;
                min = l < min ? l : min;
                max = h > max ? h : max;
            }
    if (!(max > 0))
        return false;
    *div = max * 1.2 >= 1e7 ? 1e6 : 1e3;
    *lo = pow(10, floor(log10(min / *div / 1.2)));
    *hi = pow(10, ceil(log10(max / *div * 1.2)));
    *hi = *hi < *lo * 10 ? *lo * 10 : *hi;
    return true;
}

/* The latency panel's key: a line per setting with a run in its colour, and a point per op
 * type when there are several (one: the title names it). */
static void plot_lat_key(FILE *f, const struct plot_cmp *m, size_t ph, size_t b, const bool *shown,
                         int nshown)
{
    for (size_t s = 0; s < m->ns; s++) {
        bool any = false; /* a setting without a run has no line: no key either */
        for (int op = 0; op < SBIO_OP_NR; op++)
            any |= shown[op] && plot_lat_cell(m, ph, b, s, op, 0)->n > 0;
        if (!any)
            continue;
        fprintf(f, ", \\\n    keyentry with lines lw 2 lc rgb '%s' title ", plot_setting_color(s));
        plot_quote(f, m->st[s].name);
    }
    for (int op = 0; op < SBIO_OP_NR && nshown > 1; op++)
        if (shown[op])
            fprintf(f,
                    ", \\\n    keyentry with linespoints pt %d dt %d lc rgb '#404040' title "
                    "'%s'",
                    plot_op_pt[op], op + 1, sbio_op_name(op));
}

/* A latency panel: block b of phase ph, each setting's percentiles of each op type the block
 * did, a line each with the CI of every point; settings side by side around each percentile. */
static int plot_cmp_lat_panel(FILE *f, const struct plot_cmp *m, size_t ph, size_t b)
{
    bool shown[SBIO_OP_NR];
    int nshown = 0, k = 0;
    const char *only = "";
    for (int op = 0; op < SBIO_OP_NR; op++) {
        shown[op] = plot_lat_shown(m, ph, b, op);
        nshown += shown[op];
        only = shown[op] ? sbio_op_name(op) : only;
    }
    int rc = plot_cmp_write_lat(m, ph, b);
    char where[200], file[64], title[320];
    plot_cmp_where(m, ph, b, where, sizeof(where));
    plot_cmp_file(m, ph, b, "latency", file, sizeof(file));
    snprintf(title, sizeof(title), "%s%s%s%slatency", where, *where ? ": " : "",
             nshown == 1 ? only : "", nshown == 1 ? " " : "");
    fprintf(f,
            "unset errorbars\nset errorbars\nunset xlabel\nset bmargin 3\nset xrange "
            "[-0.5:%.1f]\nset xtics nomirror scale 0 "
            "norotate (",
            PLOT_NLAT - 0.5);
    for (size_t q = 0; q < PLOT_NLAT; q++)
        fprintf(f, "%s'p%s' %zu", q ? ", " : "", plot_lat_q[q], q);
    fprintf(f, ")\nset title ");
    plot_dquote(f, title);
    double lo, hi, div;
    if (!nshown || !plot_lat_range(m, ph, b, &lo, &hi, &div)) {
        /* An empty panel with no y axis to read, and why it is empty. */
        fprintf(f,
                " font ',10'\nunset logscale y\nset yrange [0:1]\nset ylabel ''\nunset ytics\n"
                "set label \"%s\" at graph 0.5,0.5 center\nplot 1/0 notitle\nunset label\n"
                "set ytics nomirror\n",
                !m->have_tab ? "no run measured"
                : plot_cmp_nblocks(m, ph) > 1 && b == plot_cmp_nblocks(m, ph) - 1
                    ? "each op type was done by one job:\\nsee its own panel"
                    : "no operations timed");
        return rc;
    }
    fprintf(f,
            " font ',10'\nset ylabel 'latency (%s, log scale)'\nset logscale y\n"
            "set yrange [%g:%g]\nset key inside top left reverse Left font ',8' samplen 1.5 "
            "spacing 0.9\n",
            div == 1e3 ? "µs" : "ms", lo, hi);
    double w = m->ns > 1 ? (0.5 / (double)m->ns < 0.08 ? 0.5 / (double)m->ns : 0.08) : 0;
    for (int op = 0; op < SBIO_OP_NR; op++)
        for (size_t s = 0; shown[op] && s < m->ns; s++, k++)
            fprintf(f,
                    "%s'%s' index %d using ($1 + %g):($3/%g):((valid(4) ? ($4 > %g ? $4 : %g) : "
                    "$3)/%g):((valid(5) ? $5 : $3)/%g) with yerrorlines lw 1.5 pt %d ps 0.8 dt "
                    "%d lc rgb '%s' notitle",
                    k ? ", \\\n    " : "plot ", file, k, ((double)s - (m->ns - 1) / 2.0) * w, div,
                    lo * div, lo * div, div, div, plot_op_pt[op], op + 1, plot_setting_color(s));
    plot_lat_key(f, m, ph, b, shown, nshown);
    fprintf(f, "\nunset key\n");
    return rc;
}

/* The line under the title that says how to read the panels, from the document's
 * statistics: what the bars and marks are, and the test behind "*". */
static void plot_cmp_legend(const struct plot_cmp *m, char *buf, size_t len)
{
    json_t *st = json_object_get(m->r->doc, "statistics");
    json_t *cmp = json_object_get(st, "comparisons");
    const char *test = json_string_value(json_object_get(st, "test"));
    double alpha = plot_num(st, "alpha", NULL), mads = plot_num(st, "outlier_mads", NULL);
    char counts[128] = "", what[160];
    size_t l = 0, total = 0;
    for (size_t i = 0; i < json_array_size(cmp) && l < sizeof(counts); i++) {
        double n = plot_at(cmp, i);
        l += (size_t)snprintf(counts + l, sizeof(counts) - l, "%s%.0f", i ? ", " : "", n);
        total += n > 0 ? (size_t)n : 0;
    }
    /* "the 7 comparisons", or per phase "each phase's comparisons (7, 2)". */
    if (m->np > 1)
        snprintf(what, sizeof(what), "each phase's comparisons (%s)", counts);
    else
        snprintf(what, sizeof(what), "the %s comparison%s", counts, total == 1 ? "" : "s");
    snprintf(buf, len,
             "bars: mean and 95%% CI of n runs; o a run, x an outlier (> %.0f MADs from its "
             "setting's median); * significant at %g%% after Holm–Bonferroni over %s (%s), "
             "pale: not",
             isnan(mads) ? SBIO_TABLE_OUTLIER_MADS : mads,
             (isnan(alpha) ? SBIO_TABLE_ALPHA : alpha) * 100, what,
             test && !strcmp(test, "welch-log-ratio") ? "Welch, log ratio" : "Welch's t-test");
}

/* The chart's title: what was compared and how; the command line and the legend under it,
 * smaller, as labels the first panel draws (its "unset label" removes them). */
static void plot_cmp_title(FILE *f, const struct plot_cmp *m)
{
    json_t *doc = m->r->doc;
    json_t *order = json_object_get(doc, "order"), *drop = json_object_get(doc, "drop_caches");
    const char *cache = json_string_value(json_object_get(doc, "cache_drop"));
    /* What was dropped before each run; a document without cache_drop says it by drop_caches. */
    const char *dropped = !cache ? NULL
                          : !strcmp(cache, "invalidate")
                              ? ", the set's pages dropped before each run"
                          : !strcmp(cache, "drop_caches") ? ", caches dropped before each run"
                          : !strcmp(cache, "none")        ? ", caches not dropped"
                                                          : "";
    char reps[64], title[512], cmd[2048], legend[512];
    double rep = plot_num(doc, "repeat", NULL), most = plot_num(doc, "max_repeat", NULL);
    if (json_is_string(json_object_get(doc, "repeat")))
        snprintf(reps, sizeof(reps), "auto repeats (at most %.0f)", isnan(most) ? 0 : most);
    else
        snprintf(reps, sizeof(reps), "%.0f repeat%s", isnan(rep) ? 0 : rep, rep == 1 ? "" : "s");
    snprintf(title, sizeof(title), "sbio compare: %zu setting%s × %s%s%s%s%s\n\n", m->ns,
             m->ns == 1 ? "" : "s", reps, json_is_string(order) ? ", " : "",
             json_is_string(order) ? json_string_value(order) : "",
             dropped                  ? dropped
             : !json_is_boolean(drop) ? ""
             : json_is_true(drop)     ? ", caches dropped before each run"
                                      : ", caches not dropped",
             json_is_true(json_object_get(doc, "interrupted")) ? " (interrupted)" : "");
    size_t chars = m->c->width > 60 ? (m->c->width - 40) / 6 : 10;
    plot_command_line(doc, chars, cmd, sizeof(cmd));
    plot_cmp_legend(m, legend, sizeof(legend));
    plot_cut(legend, sizeof(legend), chars);
    fprintf(f, "set multiplot layout %zu,%zu title ", 2 * m->np, m->nb);
    plot_dquote(f, title);
    fprintf(f, " font ',13'\n");
    double y = 1 - 34.0 / m->c->height;
    if (*cmd) {
        fprintf(f, "set label 99 ");
        plot_quote(f, cmd);
        fprintf(f, " at screen 0.5, screen %.4f center font ',9' tc rgb '#404040'\n", y);
        y -= 16.0 / m->c->height;
    }
    fprintf(f, "set label 98 ");
    plot_quote(f, legend);
    fprintf(f, " at screen 0.5, screen %.4f center font ',9' tc rgb '#404040'\n", y);
}

/* The whole chart: per phase, a row of bar panels over a row of latency panels, a column
 * per block; a phase of fewer blocks than the widest leaves its last places empty. */
static int plot_cmp_script(FILE *f, const struct plot_cmp *m)
{
    struct plot_cmp_layout l;
    plot_cmp_layout(m, &l);
    plot_write_terminal(f, m->c);
    fprintf(f, "set lmargin 10\nset rmargin 2\nset style fill solid 1.0 border rgb '#404040'\n");
    plot_cmp_title(f, m);
    int rc = 0;
    for (size_t ph = 0; ph < m->np && !rc; ph++) {
        size_t nb = plot_cmp_nblocks(m, ph);
        for (size_t b = 0; b < m->nb && !rc; b++)
            if (b < nb)
                rc = plot_cmp_bars_panel(f, m, &l, ph, b);
            else
                fprintf(f, "set multiplot next\n");
        for (size_t b = 0; b < m->nb && !rc; b++)
            if (b < nb)
                rc = plot_cmp_lat_panel(f, m, ph, b);
            else
                fprintf(f, "set multiplot next\n");
    }
    fprintf(f, "unset multiplot\n");
    return rc;
}

static int plot_write_compare_files(const struct plot_ctx *c, const struct plot_run *r)
{
    struct plot_cmp m = {.c = c, .r = r, .sets = r->settings};
    m.ns = json_array_size(r->settings);
    m.phases = json_object_get(json_array_get(r->settings, 0), "phases");
    m.np = json_array_size(m.phases);
    for (size_t ph = 0; ph < m.np; ph++)
        m.nb = plot_cmp_nblocks(&m, ph) > m.nb ? plot_cmp_nblocks(&m, ph) : m.nb;
    m.metric = plot_cmp_metric(r->doc);
    const char *ci = json_string_value(sbio_json_get(r->doc, "statistics.ci"));
    m.old_ci = !ci || strcmp(ci, "log-ratio");
    if (m.old_ci)
        sbio_note("%s: its differences' 95%% intervals are %s (an older sbio's): the chart's are "
                  "computed again from each cell's mean, sd and runs on the log scale, never "
                  "below -100%%; its * marks are the file's",
                  r->path, ci ? ci : "of no stated kind");
    m.st = calloc(m.ns, sizeof(*m.st));
    if (!m.st)
        return -ENOMEM;
    for (size_t s = 0; s < m.ns; s++) {
        snprintf(m.st[s].name, sizeof(m.st[s].name), "%s",
                 json_string_value(json_object_get(json_array_get(r->settings, s), "name")));
        for (char *p = m.st[s].name; *p; p++)
            if (*p == '"')
                *p = '\'';
    }
    int rc = plot_cmp_table(&m);
    FILE *f = rc ? NULL : plot_create(c, PLOT_SCRIPT, &rc);
    if (f) {
        fprintf(f, "# Written by sbio plot; redraw with: cd THIS_FOLDER && gnuplot %s\n",
                PLOT_SCRIPT);
        rc = plot_cmp_script(f, &m);
        int crc = plot_close(f, PLOT_SCRIPT);
        rc = rc ? rc : crc;
    }
    if (m.have_tab)
        sbio_table_free(&m.tab);
    free(m.st);
    return rc;
}

/* ---- a survey's chart: a panel per row of its matrix, a bar per scheduler ---- */

/* A survey chart's bars: the row's best, a scheduler significantly different from it, one
 * that is not (or untested). */
#define PLOT_SRV_BEST_RGB  0x2ca02c
#define PLOT_SRV_WORSE_RGB 0xd62728
#define PLOT_SRV_SAME_RGB  0x9ecae1

/* The panels' grid: as square as the chart allows, wider than tall. */
static void plot_srv_grid(size_t n, size_t *rows, size_t *cols)
{
    *cols = n <= 2 ? n : n <= 4 ? 2 : n <= 9 ? 3 : 4;
    *rows = (n + *cols - 1) / *cols;
}

/* rowR.dat: index 0 a line per scheduler (slot, mean, CI low, CI high, 0 best, 1 significantly
 * different from the best, 2 not), index 1 a line per run (slot, value), in the row's unit
 * as the panel's axis shows it. */
static int plot_srv_write_row(const struct plot_ctx *c, const struct sbio_survey_matrix *m,
                              size_t r, double div)
{
    char name[32];
    int rc = 0;
    snprintf(name, sizeof(name), "row%zu.dat", r);
    FILE *f = plot_create(c, name, &rc);
    if (!f)
        return rc;
    const struct sbio_survey_row *row = &m->row[r];
    fprintf(f,
            "# matrix.rows[%zu]: %s / %s / %s, divided by %g\n# slot mean ci_low ci_high "
            "kind\n",
            r, row->workload, row->job[0] ? row->job : "-", sbio_table_metric_name(row->metric),
            div);
    for (size_t s = 0; s < m->ns; s++) {
        const struct sbio_survey_cell *e = &row->cell[s];
        double h = isnan(e->half) ? 0 : e->half;
        fprintf(f, "%zu", s);
        plot_put(f, e->n ? e->mean / div : NAN);
        plot_put(f, e->n ? (e->mean - h) / div : NAN);
        plot_put(f, e->n ? (e->mean + h) / div : NAN);
        fprintf(f, " %d\n", e->best ? 0 : e->sig ? 1 : 2);
    }
    fprintf(f, "\n\n# slot value\n");
    for (size_t s = 0; s < m->ns; s++)
        for (size_t i = 0; i < row->cell[s].n; i++) {
            fprintf(f, "%zu", s);
            plot_put(f, row->cell[s].val[i] / div);
            fputc('\n', f);
        }
    return plot_close(f, name);
}

/* Over each bar: "best", or its difference to the best with "*" when significant; "no runs"
 * in an empty slot. Returns the highest point of the row (value or CI), in the shown unit. */
/* The highest point of a cell: its CI's top or its highest run. */
static double plot_srv_top(const struct sbio_survey_cell *e)
{
    double t = e->mean + (isnan(e->half) ? 0 : e->half);
    for (size_t i = 0; i < e->n; i++)
        t = e->val[i] > t ? e->val[i] : t;
    return t;
}

static double plot_srv_labels(FILE *f, const struct sbio_survey_row *row, size_t ns, double div)
{
    double top = 0;
    for (size_t s = 0; s < ns; s++)
        if (row->cell[s].n && plot_srv_top(&row->cell[s]) / div > top)
            top = plot_srv_top(&row->cell[s]) / div;
    for (size_t s = 0; s < ns; s++) {
        const struct sbio_survey_cell *e = &row->cell[s];
        char d[48];
        if (!e->n) {
            fprintf(f,
                    "set label 'no runs' at first %zu, graph 0.5 center font ',9' tc rgb "
                    "'#505050'\n",
                    s);
            continue;
        }
        if (e->best)
            snprintf(d, sizeof(d), "best\nn=%zu", e->n);
        else if (isnan(e->diff_pct))
            snprintf(d, sizeof(d), "n=%zu", e->n);
        else
            snprintf(d, sizeof(d),
                     fabs(e->diff_pct) >= 10 ? "%+.0f%%%s\nn=%zu" : "%+.1f%%%s\nn=%zu", e->diff_pct,
                     e->sig ? " *" : "", e->n);
        double t = plot_srv_top(e);
        fprintf(f, "set label ");
        plot_dquote(f, d);
        fprintf(f, " at first %zu, first %.6g center offset 0,1.3 font ',9'\n", s, t / div);
    }
    return top;
}

/* Row r's panel: its title (workload, job and metric, unit, which way is better), a bar per
 * scheduler with its 95% CI, every run a circle. */
static int plot_srv_panel(FILE *f, const struct plot_ctx *c, const struct sbio_survey_matrix *m,
                          size_t r, size_t cols)
{
    const struct sbio_survey_row *row = &m->row[r];
    double div;
    const char *unit = sbio_survey_row_unit(row, &div);
    int rc = plot_srv_write_row(c, m, r, div);
    if (rc)
        return rc;
    char label[160], title[320], ylabel[64];
    sbio_survey_row_label(row, label, sizeof(label));
    snprintf(title, sizeof(title), "%s: %s", row->workload, label);
    snprintf(ylabel, sizeof(ylabel), "%s, %s is better", strcmp(unit, "us") ? unit : "µs",
             row->better > 0 ? "higher" : "lower");
    fprintf(f, "set title ");
    plot_quote(f, title);
    fprintf(f, " font ',10'\nset ylabel ");
    plot_quote(f, ylabel);
    fputc('\n', f);
    double top = plot_srv_labels(f, row, m->ns, div);
    fprintf(f, "set yrange [0:%.6g]\nset xrange [-0.6:%zu.6]\n", top > 0 ? top * 1.25 : 1,
            m->ns - 1);
    /* Slanted names when the slots are narrower than the longest (about 7 px a character). */
    size_t longest = 0;
    for (size_t s = 0; s < m->ns; s++)
        longest = strlen(m->sched[s]) > longest ? strlen(m->sched[s]) : longest;
    double slot = ((double)c->width / (double)cols - 100) / (double)m->ns;
    bool slant = slot < 7.0 * (double)longest + 10;
    fprintf(f, "set xtics nomirror scale 0 %s (", slant ? "rotate by -30 left" : "norotate");
    for (size_t s = 0; s < m->ns; s++) {
        fprintf(f, "%s", s ? ", " : "");
        plot_quote(f, m->sched[s]);
        fprintf(f, " %zu", s);
    }
    fprintf(f,
            ")\nplot 'row%zu.dat' index 0 using 1:2:3:4:(0.6):($5 == 0 ? 0x%06x : $5 == 1 ? "
            "0x%06x : 0x%06x) with boxerrorbars lc rgb variable notitle, \\\n    '' index 1 "
            "using 1:2 with points pt 6 ps 0.7 lc rgb '#202020' notitle\nunset label\n",
            r, PLOT_SRV_BEST_RGB, PLOT_SRV_WORSE_RGB, PLOT_SRV_SAME_RGB);
    return 0;
}

/* The chart's title: the device, the machine, the budget; the legend under it. */
static void plot_srv_title(FILE *f, const struct plot_ctx *c, const struct plot_run *r, size_t rows,
                           size_t cols)
{
    json_t *env = json_object_get(r->doc, "environment");
    const char *dev = json_string_value(json_object_get(r->doc, "device"));
    const char *host = json_string_value(json_object_get(env, "hostname"));
    const char *kernel = json_string_value(json_object_get(env, "kernel"));
    double budget = plot_num(r->doc, "budget_s", NULL), took = plot_num(r->doc, "took_s", NULL);
    const struct sbio_survey_matrix *m = r->survey;
    char title[512], legend[512];
    snprintf(title, sizeof(title),
             "sbio survey of %s%s%s%s%s: %zu rows × %zu schedulers, took "
             "%.0f s of a %.0f s budget%s",
             dev ? dev : "?", host ? " on " : "", host ? host : "", kernel ? ", Linux " : "",
             kernel ? kernel : "", m->nrows, m->ns, isnan(took) ? 0 : took,
             isnan(budget) ? 0 : budget,
             json_is_true(json_object_get(r->doc, "interrupted")) ? " (interrupted)" : "");
    snprintf(legend, sizeof(legend),
             "bars: mean and 95%% CI of n runs, o a run; green the row's best, red significantly "
             "different from it (*: 5%% after Holm over the %zu tests of the matrix, Welch's "
             "test of the log ratio), blue not",
             m->ntests);
    plot_cut(title, sizeof(title), c->width > 60 ? (c->width - 40) / 7 : 10);
    plot_cut(legend, sizeof(legend), c->width > 60 ? (c->width - 40) / 6 : 10);
    size_t tl = strlen(title);
    snprintf(title + tl, sizeof(title) - tl, "\n\n");
    fprintf(f, "set multiplot layout %zu,%zu title ", rows, cols);
    plot_dquote(f, title);
    fprintf(f, " font ',13'\nset label 98 ");
    plot_quote(f, legend);
    fprintf(f, " at screen 0.5, screen %.4f center font ',9' tc rgb '#404040'\n",
            1 - 34.0 / c->height);
}

static int plot_write_survey_files(const struct plot_ctx *c, const struct plot_run *r)
{
    const struct sbio_survey_matrix *m = r->survey;
    size_t rows, cols;
    int rc = 0;
    plot_srv_grid(m->nrows, &rows, &cols);
    FILE *f = plot_create(c, PLOT_SCRIPT, &rc);
    if (!f)
        return rc;
    fprintf(f, "# Written by sbio plot; redraw with: cd THIS_FOLDER && gnuplot %s\n", PLOT_SCRIPT);
    plot_write_terminal(f, c);
    fprintf(f, "set lmargin 10\nset rmargin 2\nset style fill solid 1.0 border rgb '#404040'\n"
               "unset key\nset errorbars lw 1.5 lc rgb '#202020'\n");
    plot_srv_title(f, c, r, rows, cols);
    for (size_t i = 0; i < m->nrows && !rc; i++)
        rc = plot_srv_panel(f, c, m, i, cols);
    fprintf(f, "unset multiplot\n");
    int crc = plot_close(f, PLOT_SCRIPT);
    return rc ? rc : crc;
}

static int plot_write_files(const struct plot_ctx *c)
{
    int rc;
    if (c->runs[0].survey)
        return plot_write_survey_files(c, &c->runs[0]);
    if (c->runs[0].settings)
        return plot_write_compare_files(c, &c->runs[0]);
    if (c->nruns == 1) {
        const struct plot_run *r = &c->runs[0];
        if (r->samples && json_array_size(r->samples) && (rc = plot_write_throughput(c, r)))
            return rc;
        if ((rc = plot_write_percentiles(c, r)))
            return rc;
    } else if ((rc = plot_write_compare(c))) {
        return rc;
    }
    rc = 0;
    FILE *f = plot_create(c, PLOT_SCRIPT, &rc);
    if (!f)
        return rc;
    fprintf(f, "# Written by sbio plot; redraw with: cd THIS_FOLDER && gnuplot %s\n", PLOT_SCRIPT);
    if (c->nruns == 1)
        plot_write_run_script(f, c, &c->runs[0]);
    else
        plot_write_compare_script(f, c);
    return plot_close(f, PLOT_SCRIPT);
}

/* The last folder of --keep-data, made when missing (its parent must exist, as --dir's
 * must), then opened: the folder to write in must be the user's or root's, and when others
 * may write in it, sticky (so that none of them can swap a file sbio wrote for another
 * before gnuplot reads it). A link there is followed only when it is root's or the user's.
 * 0 or -SBIO_EUSAGE (message printed); *made when the folder was made here. */
static int plot_keep_dir(struct plot_ctx *c, const char *keep, bool *made)
{
    char shown[160];
    const char *why = NULL;
    struct stat st;
    *made = false;
    int fd = open(keep, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && !mkdir(keep, 0777)) {
        *made = true;
        fd = open(keep, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    /* A link is ENOTDIR or ELOOP under O_NOFOLLOW. */
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && !lstat(keep, &st) &&
        S_ISLNK(st.st_mode)) {
        if (st.st_uid == 0 || st.st_uid == geteuid())
            fd = open(keep, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        else
            why = "a symbolic link of another user's: sbio follows a link only when it is "
                  "root's or the user's";
    }
    if (fd < 0 && !why)
        why = errno == ENOENT ? "its parent folder does not exist (sbio makes the last folder "
                                "only)"
                              : strerror(errno);
    if (!why && (fstat(fd, &st) || (st.st_uid != 0 && st.st_uid != geteuid())))
        why = "a folder of another user's: sbio keeps its files only in the user's own or root's";
    else if (!why && (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        why = "a folder others may write in (and not sticky): they could swap the files sbio "
              "writes before gnuplot reads them";
    if (why) {
        sbio_err("plot: --keep-data %s: %s", sbio_util_escape(shown, sizeof(shown), keep, 100),
                 why);
        if (fd >= 0)
            close(fd);
        return -SBIO_EUSAGE;
    }
    c->dirfd = fd;
    snprintf(c->dir, sizeof(c->dir), "%s", keep);
    return 0;
}

/* The names plot writes in a kept folder (plot.gp, *.dat): each must be free, or a regular
 * file of the user's with one name, which is replaced by a new file. Checked before anything
 * is written; each file is created with O_EXCL all the same (sbio_util_open_output). 0 or
 * -SBIO_EUSAGE (message printed). */
static int plot_keep_free(const struct plot_ctx *c)
{
    int dfd = dup(c->dirfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;
    int rc = 0;
    if (!d) {
        int err = errno;
        if (dfd >= 0)
            close(dfd);
        sbio_err("plot: --keep-data %s: %s", c->dir, strerror(err));
        return -err;
    }
    while (!rc && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        struct stat st;
        if (strcmp(e->d_name, PLOT_SCRIPT) && (n < 4 || strcmp(e->d_name + n - 4, ".dat")))
            continue;
        if (fstatat(c->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            (S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1))
            continue;
        char shown[160];
        sbio_err("plot: --keep-data %s: %s is %s: sbio replaces only its own files there", c->dir,
                 sbio_util_escape(shown, sizeof(shown), e->d_name, 100),
                 S_ISLNK(st.st_mode)      ? "a symbolic link"
                 : !S_ISREG(st.st_mode)   ? "not a regular file"
                 : st.st_uid != geteuid() ? "another user's file"
                                          : "a file with other names (hard links)");
        rc = -SBIO_EUSAGE;
    }
    closedir(d);
    return rc;
}

static int plot_make_dir(struct plot_ctx *c, bool *made)
{
    const char *keep = c->opt->keep_data;
    *made = false;
    if (keep && *keep) {
        int rc = plot_keep_dir(c, keep, made);
        return rc ? rc : plot_keep_free(c);
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(c->dir, sizeof(c->dir), "%s/sbio-plot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(c->dir)) {
        int e = errno;
        sbio_err("plot: mkdtemp %s: %s", c->dir, strerror(e));
        return -e;
    }
    c->temp = true;
    c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (c->dirfd < 0) {
        int e = errno;
        sbio_err("plot: %s: %s", c->dir, strerror(e));
        return -e;
    }
    return 0;
}

/* The private folder and what was written in it: made by mkdtemp, everything in it is ours
 * (a compare's data files are named after its phases and jobs). */
static void plot_remove_dir(const struct plot_ctx *c)
{
    if (!c->temp)
        return;
    int dfd = c->dirfd >= 0 ? dup(c->dirfd) : -1;
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_type == DT_REG || e->d_type == DT_UNKNOWN)
            unlinkat(c->dirfd, e->d_name, 0);
    if (d)
        closedir(d);
    else if (dfd >= 0)
        close(dfd);
    rmdir(c->dir);
}

/* gnuplot runs in the data folder, so the output name must not depend on the cwd. The
 * folder is checked here too: gnuplot would only say "cannot open file" after starting. */
static int plot_output_path(struct plot_ctx *c)
{
    const char *out = c->opt->output;
    char cwd[PATH_MAX], shown[160];
    /* The kept script names the chart (to redraw it), inside quotes. */
    if (sbio_util_control(out)) {
        sbio_err("plot: -o %s: a file name with a control character: refused, as it would reach "
                 "the gnuplot script",
                 sbio_util_escape(shown, sizeof(shown), out, 100));
        return -SBIO_EUSAGE;
    }
    if (out[0] == '/') {
        snprintf(c->output, sizeof(c->output), "%s", out);
    } else {
        if (!getcwd(cwd, sizeof(cwd))) {
            sbio_err("plot: getcwd: %s", strerror(errno));
            return -errno;
        }
        if (snprintf(c->output, sizeof(c->output), "%s/%s", cwd, out) >= (int)sizeof(c->output)) {
            sbio_err("plot: -o %s: %s", out, strerror(ENAMETOOLONG));
            return -SBIO_EUSAGE;
        }
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", c->output);
    *strrchr(dir, '/') = 0;
    if (access(*dir ? dir : "/", W_OK)) {
        sbio_err("plot: -o %s: folder %s: %s", out, *dir ? dir : "/", strerror(errno));
        return -SBIO_EUSAGE;
    }
    size_t n = strlen(c->output);
    const char *fmt = c->opt->format;
    c->svg = fmt ? !strcmp(fmt, "svg") : n > 4 && !strcasecmp(c->output + n - 4, ".svg");
    c->html = fmt ? !strcmp(fmt, "html")
                  : (n > 4 && !strcasecmp(c->output + n - 4, ".htm")) ||
                        (n > 5 && !strcasecmp(c->output + n - 5, ".html"));
    return 0;
}

/* The chart, opened by sbio (sbio_util_open_output: never through a link or into a file
 * another user planted) and handed to gnuplot as its standard output: gnuplot itself opens
 * nothing to write. 0 or -SBIO_EUSAGE (message printed). */
static int plot_open_output(struct plot_ctx *c)
{
    char why[512];
    c->outfd =
        sbio_util_open_output(AT_FDCWD, c->opt->output, SBIO_OUTPUT_TRUNCATE, why, sizeof(why));
    if (c->outfd >= 0)
        return 0;
    sbio_err("plot: -o %s: %s", c->opt->output, why);
    return -SBIO_EUSAGE;
}

/* gnuplot on PATH, as execvp would find it, into c->gnuplot: found before anything is
 * written, and executed by that path (the sandbox lets the child run that one file). 0 or
 * -SBIO_EUSAGE (message printed). */
static int plot_find_gnuplot(struct plot_ctx *c)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        struct stat st;
        int l = snprintf(c->gnuplot, sizeof(c->gnuplot), "%.*s/gnuplot", (int)n, n ? p : ".");
        if (l < (int)sizeof(c->gnuplot) && !stat(c->gnuplot, &st) && S_ISREG(st.st_mode) &&
            !access(c->gnuplot, X_OK))
            return 0;
        p += n + (p[n] == ':');
    }
    sbio_err("gnuplot not found: install the Debian package gnuplot-nox");
    return -SBIO_EUSAGE;
}

/* ---- gnuplot in a sandbox ----
 *
 * gnuplot runs shell commands (`!cmd`, system(), backquotes, a pipe as output) and writes
 * any file it is told to (set output, set print, save). sbio quotes every text of a result
 * it puts in the script, and refuses control characters; in case that ever fails, gnuplot
 * runs where neither can act:
 * - seccomp: after the one execve of gnuplot itself (the filename pointer the child passes,
 *   which no longer means anything once gnuplot's image replaces the child's), execve and
 *   execveat fail with EPERM, and so do fork, vfork and clone without CLONE_THREAD (threads
 *   stay possible); clone3 fails with ENOSYS, so that the C library falls back to clone.
 *   No process can be started: system() and popen() fail.
 * - Landlock, where the kernel has it: no file can be written, created, removed or renamed
 *   anywhere; gnuplot reads what it needs (the script, fonts) and draws the chart on its
 *   standard output, which sbio opened.
 * no_new_privs is set first, as both require. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#if defined(__x86_64__)
#define PLOT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PLOT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* No writing anywhere, on a kernel with Landlock; 0 without it (seccomp still holds), or
 * -errno. */
static int plot_landlock(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1)
        return 0;
    struct landlock_ruleset_attr attr = {
        .handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                             LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                             LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                             LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                             LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM};
    if (abi >= 2)
        attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
    int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
    if (fd < 0)
        return -errno;
    int rc = syscall(SYS_landlock_restrict_self, fd, 0) ? -errno : 0;
    close(fd);
    return rc;
}

/* The seccomp filter above; exe is the pointer the child passes to execve. 0 or -errno. */
static int plot_seccomp(const char *exe)
{
#ifdef PLOT_AUDIT_ARCH
    _Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "argument words: low one first");
    const uint64_t p = (uint64_t)(uintptr_t)exe;
    const uint32_t arg0 = offsetof(struct seccomp_data, args[0]);
#define PLOT_DENY(nr, err)                                                                         \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                                               \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err))
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PLOT_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
        /* The x32 numbers of the same calls. */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#endif
        /* execve: only with the filename the child passes. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 0, 6),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)p, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg0 + 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(p >> 32), 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        PLOT_DENY(__NR_execveat, EPERM),
#ifdef __NR_fork
        PLOT_DENY(__NR_fork, EPERM),
#endif
#ifdef __NR_vfork
        PLOT_DENY(__NR_vfork, EPERM),
#endif
        PLOT_DENY(__NR_clone3, ENOSYS),
        /* clone: a thread only. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg0),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
#undef PLOT_DENY
    struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -errno : 0;
#else
    (void)exe;
    return -ENOSYS; /* no filter written for this architecture: gnuplot is not run */
#endif
}

/* What failed in the child, sent back through the exec pipe. */
enum plot_stage { PLOT_AT_CHDIR, PLOT_AT_NNP, PLOT_AT_LANDLOCK, PLOT_AT_SECCOMP, PLOT_AT_EXEC };
static const char *const plot_stage_name[] = {"chdir", "prctl(PR_SET_NO_NEW_PRIVS)", "landlock",
                                              "seccomp", "exec"};

/* The child: gnuplot in c->dir, its stdin on /dev/null, its stdout the chart, its stderr
 * into errfd, in the sandbox. When it cannot start, the stage and errno go back through
 * execfd. */
static _Noreturn void plot_gnuplot_exec(const struct plot_ctx *c, char *const *argv, int errfd,
                                        int execfd)
{
    int e[2] = {PLOT_AT_CHDIR, 0};
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, STDIN_FILENO);
    dup2(c->outfd, STDOUT_FILENO);
    dup2(errfd, STDERR_FILENO);
    if (fchdir(c->dirfd))
        e[1] = errno;
    else if ((e[0] = PLOT_AT_NNP), prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        e[1] = errno;
    else if ((e[0] = PLOT_AT_LANDLOCK), (e[1] = -plot_landlock()))
        ;
    else if ((e[0] = PLOT_AT_SECCOMP), (e[1] = -plot_seccomp(argv[0])))
        ;
    else {
        e[0] = PLOT_AT_EXEC;
        execve(argv[0], argv, environ);
        e[1] = errno;
    }
    if (write(execfd, e, sizeof(e)) < 0)
        _exit(127);
    _exit(127);
}

/* What fd holds until its end, the first len - 1 bytes of it kept in msg (NUL-terminated);
 * the number kept. */
static size_t plot_read_all(int fd, char *msg, size_t len)
{
    size_t n = 0;
    for (;;) {
        char buf[1024];
        ssize_t got = read(fd, buf, sizeof(buf));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        size_t take = (size_t)got < len - 1 - n ? (size_t)got : len - 1 - n;
        memcpy(msg + n, buf, take);
        n += take;
    }
    msg[n] = 0;
    return n;
}

/* A failed gnuplot may leave a half-drawn chart: worse than none. The chart's name is
 * removed when it still names the file sbio opened and that is a regular file (not
 * /dev/null, not a link the user named). */
static void plot_drop_chart(const struct plot_ctx *c)
{
    struct stat fs, ns;
    if (fstat(c->outfd, &fs) || !S_ISREG(fs.st_mode))
        return;
    if (ftruncate(c->outfd, 0))
        return;
    if (!lstat(c->opt->output, &ns) && ns.st_dev == fs.st_dev && ns.st_ino == fs.st_ino)
        unlink(c->opt->output);
}

/* gnuplot ran and failed (status from waitpid): its messages (msg, len bytes) are shown. */
static int plot_gnuplot_failed(const struct plot_ctx *c, int status, char *msg, size_t len)
{
    plot_drop_chart(c);
    /* gnuplot's own message is the useful part; its last non-empty line names the error. */
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
        msg[--len] = 0;
    char *last = strrchr(msg, '\n'), shown[600];
    last = last ? last + 1 : msg;
    if (WIFEXITED(status))
        sbio_err("plot: gnuplot exited with status %d: %s", WEXITSTATUS(status),
                 *last ? sbio_util_escape(shown, sizeof(shown), last, 400) : "(no message)");
    else
        sbio_err("plot: gnuplot killed by signal %d", WTERMSIG(status));
    return -EIO;
}

static void plot_close_pipe(int p[2])
{
    close(p[0]);
    close(p[1]);
}

/* Runs gnuplot in c->dir. Its messages are collected through a pipe and shown only when
 * it fails: on success they are warnings the chart already makes plain. A close-on-exec
 * pipe carries the child's failure back, so that a sandbox that cannot be made is told
 * apart from a failing gnuplot. gnuplot is told (-e) that its output is its standard output,
 * so the script's own "set output" (for redrawing it by hand) is skipped. */
static int plot_gnuplot(const struct plot_ctx *c)
{
    char *argv[] = {(char *)c->gnuplot, "-e", "sbio_chart_on_stdout = 1", PLOT_SCRIPT, NULL};
    int errp[2], execp[2];
    if (pipe2(errp, O_CLOEXEC)) {
        int e = errno;
        plot_drop_chart(c);
        return -e;
    }
    if (pipe2(execp, O_CLOEXEC)) {
        int e = errno;
        plot_close_pipe(errp);
        plot_drop_chart(c);
        return -e;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        plot_drop_chart(c);
        sbio_err("plot: fork: %s", strerror(e));
        plot_close_pipe(errp);
        plot_close_pipe(execp);
        return -e;
    }
    if (pid == 0)
        plot_gnuplot_exec(c, argv, errp[1], execp[1]);
    close(errp[1]);
    close(execp[1]);
    char msg[4096];
    size_t len = plot_read_all(errp[0], msg, sizeof(msg));
    close(errp[0]);
    int failed[2] = {0, 0};
    ssize_t got;
    do
        got = read(execp[0], failed, sizeof(failed));
    while (got < 0 && errno == EINTR);
    close(execp[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -errno;
    if (got == (ssize_t)sizeof(failed)) {
        plot_drop_chart(c);
        sbio_err("plot: gnuplot %s in %s: %s%s", plot_stage_name[failed[0]], c->dir,
                 strerror(failed[1]),
                 failed[0] == PLOT_AT_EXEC ? "" : " (gnuplot is run only in its sandbox)");
        return -failed[1];
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    return plot_gnuplot_failed(c, status, msg, len);
}

/* A run's device settings as one object (report.h's sbio_json_device_settings, which reads
 * older results too): "KNOB", or "DEV KNOB" for a run through several devices. New reference. */
static json_t *plot_run_settings(const struct plot_run *r)
{
    json_t *devs = json_object_get(json_object_get(r->doc, "environment"), "devices");
    json_t *all = json_object(), *d, *v;
    bool many = json_array_size(devs) > 1;
    size_t i;
    json_array_foreach(devs, i, d)
    {
        json_t *set = sbio_json_device_settings(d);
        const char *dev = json_string_value(json_object_get(d, "name")), *k;
        json_object_foreach(set, k, v)
        {
            char key[256];
            snprintf(key, sizeof(key), "%s%s%s", many ? (dev ? dev : "?") : "", many ? " " : "", k);
            json_object_set(all, key, v);
        }
        json_decref(set);
    }
    return all;
}

/* Whether the runs that have key disagree on it (a tunable of one scheduler does not differ
 * from runs under another: the scheduler does). */
static bool plot_setting_differs(json_t *const *sets, int n, const char *key)
{
    json_t *first = NULL;
    for (int i = 0; i < n; i++) {
        json_t *v = json_object_get(sets[i], key);
        if (v && first && !json_equal(first, v))
            return true;
        first = first ? first : v;
    }
    return false;
}

/* buf += a, b, c, cut to len: copied, not printed, as b may lie in the same object as buf. */
static void plot_append(char *buf, size_t len, const char *a, const char *b, const char *c)
{
    const char *parts[] = {a, b, c};
    size_t l = strlen(buf);
    for (int i = 0; i < 3; i++)
        for (const char *p = parts[i]; *p && l + 1 < len; p++)
            buf[l++] = *p;
    buf[l] = 0;
}

/* label += " key=value" for each setting of run i that differs, in the order the runs list
 * them. */
static void plot_label_settings(char *label, size_t len, json_t *const *sets, int n, int i)
{
    const char *k;
    json_t *v;
    for (int j = 0; j < n; j++)
        json_object_foreach(sets[j], k, v)
        {
            bool seen = false;
            for (int e = 0; e < j && !seen; e++)
                seen = json_object_get(sets[e], k) != NULL;
            json_t *mine = json_object_get(sets[i], k);
            if (seen || !mine || !plot_setting_differs(sets, n, k))
                continue;
            size_t l = strlen(label);
            if (json_is_integer(mine))
                snprintf(label + l, len - l, "%s%s=%" JSON_INTEGER_FORMAT, l ? " " : "", k,
                         json_integer_value(mine));
            else
                snprintf(label + l, len - l, "%s%s=%s", l ? " " : "", k,
                         json_is_string(mine) ? json_string_value(mine) : "?");
        }
}

/* Several runs, each named by the device settings that differ between them ("scheduler=bfq
 * nr_requests=64"): a comparison made by hand names itself. A run none of those settings
 * describes keeps its file name, and a label two runs share gets the file name added. */
static void plot_label_runs(struct plot_ctx *c)
{
    json_t *sets[SBIO_MAX_ARGS];
    for (int i = 0; i < c->nruns; i++)
        sets[i] = plot_run_settings(&c->runs[i]);
    for (int i = 0; i < c->nruns; i++) {
        struct plot_run *r = &c->runs[i];
        r->label[0] = 0;
        plot_label_settings(r->label, sizeof(r->label), sets, c->nruns, i);
    }
    bool shared[SBIO_MAX_ARGS] = {false};
    for (int i = 0; i < c->nruns; i++)
        for (int j = 0; j < c->nruns; j++)
            shared[i] |= j != i && !strcmp(c->runs[i].label, c->runs[j].label);
    for (int i = 0; i < c->nruns; i++) {
        struct plot_run *r = &c->runs[i];
        if (!r->label[0])
            plot_append(r->label, sizeof(r->label), "", r->name, "");
        else if (shared[i])
            plot_append(r->label, sizeof(r->label), " (", r->name, ")");
        for (char *p = r->label; *p; p++) /* it goes into a quoted data-file column */
            if (*p == '"')
                *p = '\'';
    }
    for (int i = 0; i < c->nruns; i++)
        json_decref(sets[i]);
}

/* The op types the runs' charts have columns for (struct plot_ops). */
static void plot_ops_of(struct plot_ctx *c)
{
    c->ops.n = 0;
    for (int op = 0; op < SBIO_OP_NR; op++) {
        bool has = op <= SBIO_FSYNC;
        for (int i = 0; !has && op >= SBIO_OP_FS_FIRST && i < c->nruns; i++)
            has = plot_op_done(&c->runs[i], op);
        if (has)
            c->ops.op[c->ops.n++] = op;
    }
}

/* Every input read and checked, before anything is created. 0 or -SBIO_EUSAGE (message
 * printed); c->nruns counts the documents to free either way. */
static int plot_load_all(struct plot_ctx *c)
{
    const struct sbio_plot_opts *opt = c->opt;
    int rc;
    for (int i = 0; i < opt->nargs; i++) {
        c->runs[i].path = opt->args[i];
        c->nruns = i + 1;
        if ((rc = plot_load(&c->runs[i])))
            return rc;
    }
    /* A compare result's chart is its own: mixed with runs or another compare, neither the
     * slots nor the baseline would mean anything. */
    for (int i = 0; i < c->nruns && c->nruns > 1; i++) {
        if (c->runs[i].settings || c->runs[i].survey) {
            sbio_err("plot: %s is a %s result: chart it on its own (sbio plot %s -o "
                     "chart.png), not with other results",
                     c->runs[i].path, c->runs[i].survey ? "survey" : "compare", c->runs[i].path);
            return -SBIO_EUSAGE;
        }
    }
    if (c->nruns > 1)
        plot_label_runs(c);
    plot_ops_of(c);
    if (c->nruns == 1 && !c->runs[0].settings && !c->runs[0].survey &&
        (!c->runs[0].samples || !json_array_size(c->runs[0].samples)))
        sbio_note("%s: " PLOT_NO_SAMPLES " (the throughput panel is empty)", c->runs[0].path);
    return 0;
}

/* The report (html.h) into the output sbio opened; a report that could not be written
 * whole is removed. */
static int plot_html(struct plot_ctx *c)
{
    struct sbio_html_doc docs[SBIO_MAX_ARGS];
    int rc = plot_open_output(c), err = 0;
    if (rc)
        return rc;
    for (int i = 0; i < c->nruns; i++)
        docs[i] = (struct sbio_html_doc){.path = c->runs[i].path,
                                         .doc = c->runs[i].doc,
                                         .compare = c->runs[i].settings != NULL,
                                         .survey = c->runs[i].survey};
    int fd = dup(c->outfd);
    FILE *f = fd >= 0 ? sbio_util_stream(fd, "w", &err) : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        rc = -(err ? err : errno);
    } else {
        rc = sbio_html_report(docs, (size_t)c->nruns, f);
        if (fclose(f) && !rc)
            rc = -EIO;
    }
    if (rc) {
        sbio_err("plot: %s: write: %s", c->opt->output, strerror(-rc));
        plot_drop_chart(c);
    }
    return rc;
}

int sbio_plot(const struct sbio_plot_opts *opt)
{
    struct plot_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->opt = opt;
    c->dirfd = c->outfd = -1;
    int rc;
    bool made = false;
    if (!opt->output || !*opt->output) {
        sbio_err("plot needs -o FILE (a .png, or .svg)");
        rc = -SBIO_EUSAGE;
        goto out;
    }
    if (opt->nargs < 1) {
        sbio_err("plot needs one or more JSON results: sbio plot r1.json [r2.json…] -o "
                 "chart.png");
        rc = -SBIO_EUSAGE;
        goto out;
    }
    if ((rc = plot_parse_size(opt->plot_size && *opt->plot_size ? opt->plot_size : "1200x800",
                              &c->width, &c->height)))
        goto out;
    if ((rc = plot_output_path(c)) || (rc = plot_load_all(c)))
        goto out;
    if (c->html) {
        rc = plot_html(c);
        goto out;
    }
    if ((rc = plot_find_gnuplot(c)) || (rc = plot_make_dir(c, &made)))
        goto out;
    /* A survey's chart grows downwards with its rows (about 260 px a row of panels). */
    if (c->runs[0].survey && !(opt->plot_size && *opt->plot_size)) {
        size_t rows, cols;
        plot_srv_grid(c->runs[0].survey->nrows, &rows, &cols);
        c->height = 90 + 260 * (unsigned)rows;
    }
    /* A chart that cannot be opened leaves no folder of this command's behind. */
    if ((rc = plot_open_output(c))) {
        if (made)
            rmdir(c->dir);
        plot_remove_dir(c);
        goto out;
    }
    if (!(rc = plot_write_files(c)))
        rc = plot_gnuplot(c);
    else
        plot_drop_chart(c);
    plot_remove_dir(c);
out:
    if (c->outfd >= 0 && close(c->outfd) && !rc) {
        sbio_err("plot: %s: write: %s", opt->output, strerror(errno));
        rc = -errno;
    }
    if (c->dirfd >= 0)
        close(c->dirfd);
    for (int i = 0; i < c->nruns; i++) {
        json_decref(c->runs[i].doc);
        if (c->runs[i].survey)
            sbio_survey_matrix_free(c->runs[i].survey);
        free(c->runs[i].survey);
    }
    free(c);
    return rc;
}
