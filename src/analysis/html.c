/* sbio plot R.json -o report.html: the report as one HTML file, its charts inline SVG.
 *
 * Every text of a document goes through esc() (it is untrusted: a name may hold markup), and
 * the page's Content-Security-Policy forbids scripts, fetches and outside resources, so even a
 * missed escape could not run anything. The page is also well-formed XML (void elements
 * closed, no named entity but XML's), which the tests check with an XML parser besides
 * loading it in a browser. Figures are the documents' own, but a survey's, which are computed
 * again from its cells' values (survey.h), as plot and diff do. */
#include "html.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "report.h"
#include "matrix.h"
#include "table.h"
#include "util.h"
#include "version.h"

/* ---- text ---- */

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0x80             ? 1
                 : (s[0] & 0xe0) == 0xc0 ? 2
                 : (s[0] & 0xf0) == 0xe0 ? 3
                 : (s[0] & 0xf8) == 0xf0 ? 4
                                         : 0;
    if (!len || len > n || (len == 2 && s[0] < 0xc2))
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

/* n bytes of s as HTML text: markup's characters as entities, a byte that is not valid UTF-8
 * (text cut inside a character) as U+FFFD, so the page stays well-formed. */
static void esc_n(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    while (s && n) {
        size_t len = utf8_len(p, n);
        switch (len ? *p : 0) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case 0: fputs("\xef\xbf\xbd", f); break;
        default: fwrite(p, 1, len, f);
        }
        len = len ? len : 1;
        p += len;
        n -= len;
    }
}

static void esc(FILE *f, const char *s)
{
    esc_n(f, s, s ? strlen(s) : 0);
}

static const char *jstr(json_t *o, const char *path)
{
    return json_string_value(sbio_json_get(o, path));
}

static double jnum(json_t *o, const char *path)
{
    json_t *v = sbio_json_get(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A figure in about four significant digits, never in exponent form; "-" for none. */
static void fmt_num(char *buf, size_t len, double v)
{
    double a = fabs(v);
    if (isnan(v) || isinf(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", v);
}

/* A duration in ns in the unit that fits: "812 ns", "4.59 µs", "3.38 ms", "2.10 s". */
static void fmt_ns(char *buf, size_t len, double ns)
{
    if (isnan(ns) || isinf(ns))
        snprintf(buf, len, "-");
    else if (ns < 1e3)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.3g µs", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else
        snprintf(buf, len, "%.3g s", ns / 1e9);
}

/* A cell of a table: a figure (fmt_num), or a duration when unit is "ns". */
static void td_val(FILE *f, double v, const char *unit)
{
    char b[48];
    if (unit && !strcmp(unit, "ns"))
        fmt_ns(b, sizeof(b), v);
    else
        fmt_num(b, sizeof(b), v);
    fprintf(f, "<td class=\"n\">%s</td>", b);
}

/* "-5.7% [-18, +9]" with " *" when significant: a difference as the tables print it. */
static void fmt_diff(char *buf, size_t len, double pct, double lo, double hi, bool sig)
{
    if (isnan(pct)) {
        snprintf(buf, len, "-");
        return;
    }
    int n = snprintf(buf, len, fabs(pct) >= 10 ? "%+.0f%%" : "%+.1f%%", pct);
    if (!isnan(lo) && !isnan(hi) && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " [%+.0f, %+.0f]", lo, hi);
    if (sig && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " *");
}

/* ---- charts ---- */

/* A bar of a chart: its name, mean and CI (NAN: none), its runs, the text over it, its kind. */
enum bar_kind { BAR_BASE, BAR_BEST, BAR_SIG, BAR_SAME, BAR_NONE };
struct bar {
    const char *name;
    double mean, lo, hi;
    const double *pts;
    size_t npts;
    char note[64];
    enum bar_kind kind;
};

static const char *const bar_fill[] = {"#7f7f7f", "#2ca02c", "#d62728", "#9ecae1", "#ffffff"};

/* The axis's top: 1, 2 or 5 times a power of ten, at or above v. */
static double nice_top(double v)
{
    if (!(v > 0) || isinf(v))
        return 1;
    static const double step[] = {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8};
    double p = pow(10, floor(log10(v)));
    for (size_t k = 0; k < sizeof(step) / sizeof(step[0]); k++)
        if (step[k] * p >= v)
            return step[k] * p;
    return 10 * p;
}

#define SVG_W 380
#define SVG_H 260
#define SVG_L 62 /* left margin: the tick labels */
#define SVG_R 12
#define SVG_T 34 /* the title */
#define SVG_B 58 /* the names, slanted when long */

static void svg_open(FILE *f, const char *title)
{
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 "
            "%d %d\" role=\"img\"><title>",
            SVG_W, SVG_H, SVG_W, SVG_H);
    esc(f, title);
    fprintf(f, "</title><text x=\"%d\" y=\"16\" class=\"t\">", SVG_W / 2);
    esc(f, title);
    fputs("</text>", f);
}

/* The y axis from 0 to top: five grid lines and their labels, and the unit. */
static void svg_yaxis(FILE *f, double top, const char *ylabel, double y0, double h)
{
    for (int i = 0; i <= 5; i++) {
        char b[32];
        double v = top * i / 5, y = y0 + h - h * i / 5;
        snprintf(b, sizeof(b), v >= 1000 || v == floor(v) ? "%.0f" : "%.4g", v);
        fprintf(f,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"g\"/><text x=\"%d\" "
                "y=\"%.1f\" class=\"yl\">%s</text>",
                SVG_L, SVG_W - SVG_R, y, y, SVG_L - 4, y + 4, b);
    }
    fprintf(f, "<text x=\"12\" y=\"%.1f\" class=\"u\" transform=\"rotate(-90 12 %.1f)\">",
            y0 + h / 2, y0 + h / 2);
    esc(f, ylabel);
    fputs("</text>", f);
}

/* A bar chart: a bar per entry with its CI and its runs, the note over it. */
static void svg_bars(FILE *f, const char *title, const char *ylabel, const struct bar *b, size_t n)
{
    double top = 0, h = SVG_H - SVG_T - SVG_B, w = SVG_W - SVG_L - SVG_R;
    size_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        double t = isnan(b[i].hi) ? b[i].mean : fmax(b[i].hi, b[i].mean);
        for (size_t k = 0; k < b[i].npts; k++)
            t = fmax(t, b[i].pts[k]);
        top = isnan(t) ? top : fmax(top, t);
        longest = strlen(b[i].name) > longest ? strlen(b[i].name) : longest;
    }
    top = nice_top(top * 1.18);
    svg_open(f, title);
    svg_yaxis(f, top, ylabel, SVG_T, h);
    double slot = w / (double)(n ? n : 1);
    bool slant = 6.5 * (double)longest > slot;
    for (size_t i = 0; i < n; i++) {
        const struct bar *e = &b[i];
        double cx = SVG_L + slot * ((double)i + 0.5), bw = slot * 0.6;
        if (!isnan(e->mean)) {
            double y = SVG_T + h - h * e->mean / top;
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                    "class=\"b\"/>",
                    cx - bw / 2, y, bw, SVG_T + h - y, bar_fill[e->kind]);
        }
        if (!isnan(e->lo) && !isnan(e->hi)) {
            double y1 = SVG_T + h - h * fmax(e->lo, 0) / top, y2 = SVG_T + h - h * e->hi / top;
            fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" class=\"e\"/>",
                    cx, y1, y2, cx - 6, y1, cx + 6, cx - 6, y2, cx + 6);
        }
        for (size_t k = 0; k < e->npts; k++)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" class=\"p\"/>", cx,
                    SVG_T + h - h * e->pts[k] / top);
        double ty = isnan(e->mean) ? SVG_T + h / 2 : SVG_T + h - h * fmax(e->mean, e->hi) / top;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"nt\">", cx,
                (isnan(ty) ? SVG_T + h / 2 : ty) - 5);
        esc(f, isnan(e->mean) ? "no runs" : e->note);
        if (slant)
            fprintf(f,
                    "</text><text x=\"%.1f\" y=\"%.1f\" class=\"xs\" transform=\"rotate(30 %.1f "
                    "%.1f)\">",
                    cx - 4, SVG_T + h + 14, cx - 4, SVG_T + h + 14);
        else
            fprintf(f, "</text><text x=\"%.1f\" y=\"%.1f\" class=\"x\">", cx, SVG_T + h + 16);
        esc(f, e->name);
        fputs("</text>", f);
    }
    fputs("</svg>\n", f);
}

/* Lines over time: series k is y[k][0..n) at x[0..n), named names[k], in colours[k]. */
static void svg_lines(FILE *f, const char *title, const char *ylabel, const double *x,
                      double *const *y, size_t n, const char *const *names,
                      const char *const *colours, size_t nser)
{
    double top = 0, xmax = 0, h = SVG_H - SVG_T - SVG_B, w = SVG_W - SVG_L - SVG_R;
    for (size_t i = 0; i < n; i++) {
        xmax = fmax(xmax, x[i]);
        for (size_t k = 0; k < nser; k++)
            top = isnan(y[k][i]) ? top : fmax(top, y[k][i]);
    }
    top = nice_top(top * 1.05);
    xmax = xmax > 0 ? xmax : 1;
    svg_open(f, title);
    svg_yaxis(f, top, ylabel, SVG_T, h);
    for (size_t k = 0; k < nser; k++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                colours[k]);
        for (size_t i = 0; i < n; i++)
            if (!isnan(y[k][i]) && !isnan(x[i]) && !isinf(y[k][i]))
                fprintf(f, "%.1f,%.1f ", SVG_L + w * x[i] / xmax, SVG_T + h - h * y[k][i] / top);
        fprintf(f, "\"/><text x=\"%.1f\" y=\"%d\" class=\"k\" fill=\"%s\">", SVG_L + 8 + 80.0 * k,
                SVG_H - 14, colours[k]);
        esc(f, names[k]);
        fputs("</text>", f);
    }
    char b[32];
    fmt_num(b, sizeof(b), xmax);
    fprintf(f,
            "<text x=\"%d\" y=\"%.1f\" class=\"x\">0</text><text x=\"%d\" y=\"%.1f\" "
            "class=\"yl\">%s s</text></svg>\n",
            SVG_L, SVG_T + h + 16, SVG_W - SVG_R, SVG_T + h + 16, b);
}

/* ---- the machine and the settings read back ---- */

/* The environment of a run's document: its own, or a script's first job's. */
static json_t *doc_env(json_t *doc)
{
    json_t *env = json_object_get(doc, "environment");
    return json_is_object(env) ? env : sbio_json_get(doc, "phases.0.jobs.0.result.environment");
}

static void kv_row(FILE *f, const char *k, const char *v)
{
    fputs("<tr><th>", f);
    esc(f, k);
    fputs("</th><td>", f);
    esc(f, v ? v : "-");
    fputs("</td></tr>\n", f);
}

/* The machine: host, kernel, CPUs, the file system, the VM's dirty ratios. */
static void html_machine(FILE *f, json_t *env)
{
    char b[512];
    fputs("<h2>Machine</h2>\n<table class=\"kv\">\n", f);
    kv_row(f, "host", jstr(env, "hostname"));
    kv_row(f, "kernel", jstr(env, "kernel"));
    sbio_json_text(b, sizeof(b), json_object_get(env, "cpus"));
    kv_row(f, "CPUs", b);
    snprintf(b, sizeof(b), "%s on %s at %s (%s)", jstr(env, "filesystem.type") ?: "?",
             jstr(env, "filesystem.source") ?: "?", jstr(env, "filesystem.mountpoint") ?: "?",
             jstr(env, "filesystem.options") ?: "?");
    kv_row(f, "file system", b);
    json_t *vm = json_object_get(env, "vm"), *v;
    const char *k;
    json_object_foreach(vm, k, v)
    {
        char key[128];
        snprintf(key, sizeof(key), "vm.%s", k);
        sbio_json_text(b, sizeof(b), v);
        kv_row(f, key, b);
    }
    fputs("</table>\n", f);
}

/* One setting k = v of device dn that a run read back: keys gets "DEV\tKEY" (in order of
 * first sight), agg counts the value's text under it. Nothing is cut: a key or value jansson
 * refuses is left out, never used after. */
static void readback_add(json_t *keys, json_t *agg, const char *dn, const char *k, json_t *v)
{
    char val[256];
    size_t n = strlen(dn) + strlen(k) + 2;
    char *key = malloc(n);
    if (!key)
        return;
    snprintf(key, n, "%s\t%s", dn, k);
    const char *vt = val;
    if (json_is_string(v))
        vt = json_string_value(v);
    else
        sbio_json_text(val, sizeof(val), v);
    json_t *m = json_object_get(agg, key);
    if (!m && !json_object_set_new(agg, key, json_object()))
        m = json_object_get(agg, key);
    if (m && !json_object_set_new(keys, key, json_null()))
        json_object_set_new(m, vt, json_integer(json_integer_value(json_object_get(m, vt)) + 1));
    free(key);
}

/* The device settings the runs read back before they ran: a table per device, a row per
 * setting, a column per group of runs (runs[g] the documents of group g, named names[g]); a
 * cell lists each value the group's runs read, with how many runs read it when they differ. */
static void html_readback(FILE *f, json_t *const *runs, const char *const *names, size_t ng)
{
    json_t *keys = json_object(); /* "DEV\tKEY" -> null, in order of first sight */
    json_t **agg = calloc(ng ? ng : 1, sizeof(*agg));
    for (size_t g = 0; agg && g < ng; g++) {
        agg[g] = json_object(); /* "DEV\tKEY" -> {value text: count} */
        json_t *doc;
        size_t i, d;
        json_array_foreach(runs[g], i, doc)
        {
            json_t *dev;
            json_array_foreach(sbio_json_get(doc_env(doc), "devices"), d, dev)
            {
                json_t *set = sbio_json_device_settings(dev), *v;
                const char *k, *dn = json_string_value(json_object_get(dev, "name"));
                json_object_foreach(set, k, v) readback_add(keys, agg[g], dn ? dn : "?", k, v);
                json_decref(set);
            }
        }
    }
    fputs("<table class=\"rb\">\n<tr><th>device</th><th>setting</th>", f);
    for (size_t g = 0; g < ng; g++) {
        fputs("<th>", f);
        esc(f, names[g]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    const char *key;
    json_t *unused;
    json_object_foreach(keys, key, unused)
    {
        const char *tab = strchr(key, '\t');
        fputs("<tr><td>", f);
        esc_n(f, key, tab ? (size_t)(tab - key) : strlen(key));
        fputs("</td><td>", f);
        esc(f, tab ? tab + 1 : "");
        fputs("</td>", f);
        for (size_t g = 0; agg && g < ng; g++) {
            json_t *m = json_object_get(agg[g], key), *c;
            const char *val;
            bool many = json_object_size(m) > 1;
            fprintf(f, "<td%s>", many ? " class=\"differs\"" : "");
            size_t i = 0;
            json_object_foreach(m, val, c)
            {
                fputs(i++ ? ", " : "", f);
                esc(f, val);
                if (many)
                    fprintf(f, " (%" JSON_INTEGER_FORMAT " runs)", json_integer_value(c));
            }
            fputs(json_object_size(m) ? "</td>" : "-</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    for (size_t g = 0; agg && g < ng; g++)
        json_decref(agg[g]);
    free(agg);
    json_decref(keys);
}

/* The command line that made a document, without its output file's name. */
static void html_command(FILE *f, json_t *doc)
{
    json_t *argv = json_object_get(doc, "command_line"), *a;
    size_t i;
    if (!json_array_size(argv))
        return;
    fputs("<p class=\"cmd\"><code>sbio", f);
    bool skip = false; /* the word after -o */
    json_array_foreach(argv, i, a)
    {
        const char *w = json_string_value(a);
        bool out = w && (!strcmp(w, "-o") || !strcmp(w, "--output"));
        if (!i || !w || skip || out || !strncmp(w, "--output=", 9) ||
            (!strncmp(w, "-o", 2) && w[2])) {
            skip = out;
            continue;
        }
        fputc(' ', f);
        esc(f, w);
    }
    fputs("</code></p>\n", f);
}

/* ---- a run ---- */

static const char *const op_colour[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#000000", "#d62728",
                                        "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"};

/* Each op type's figures: ops, ops/s, MiB/s, latency mean and percentiles, max. */
static void html_run_table(FILE *f, json_t *ops)
{
    static const char *const pct[] = {"50", "90", "99", "99.9"};
    fputs("<table>\n<tr><th>op</th><th>ops</th><th>ops/s</th><th>MiB/s</th><th>mean</th>", f);
    for (size_t p = 0; p < 4; p++)
        fprintf(f, "<th>p%s</th>", pct[p]);
    fputs("<th>max</th></tr>\n", f);
    const char *name;
    json_t *op;
    json_object_foreach(ops, name, op)
    {
        if (!(jnum(op, "ops") > 0))
            continue;
        bool timed = jnum(op, "latency.count") > 0;
        fputs("<tr><td>", f);
        esc(f, name);
        fputs("</td>", f);
        td_val(f, jnum(op, "ops"), NULL);
        td_val(f, jnum(op, "ops_per_s"), NULL);
        td_val(f, jnum(op, "mib_per_s"), NULL);
        td_val(f, timed ? jnum(op, "latency.mean_ns") : NAN, "ns");
        for (size_t p = 0; p < 4; p++) {
            json_t *v = json_object_get(sbio_json_get(op, "latency.percentiles_ns"), pct[p]);
            td_val(f, timed && json_is_number(v) ? json_number_value(v) : NAN, "ns");
        }
        td_val(f, timed ? jnum(op, "latency.max_ns") : NAN, "ns");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* Throughput of each op type over time, from the result's samples. */
static void html_run_samples(FILE *f, json_t *samples, json_t *ops)
{
    size_t n = json_array_size(samples), nser = 0;
    const char *names[10], *name;
    json_t *op;
    json_object_foreach(ops, name, op) if (nser < 10 && jnum(op, "ops") > 0) names[nser++] = name;
    if (!n || !nser)
        return;
    double *x = calloc(n, sizeof(*x)), *y[10] = {0};
    bool ok = x != NULL;
    for (size_t k = 0; k < nser; k++)
        ok &= (y[k] = calloc(n, sizeof(double))) != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        json_t *s = json_array_get(samples, i);
        x[i] = jnum(s, "t_s");
        for (size_t k = 0; k < nser; k++)
            y[k][i] = jnum(json_object_get(s, names[k]), "ops_per_s");
    }
    if (ok)
        svg_lines(f, "operations/s over time", "ops/s", x, y, n, names, op_colour, nser);
    free(x);
    for (size_t k = 0; k < nser; k++)
        free(y[k]);
}

static void html_run(FILE *f, const struct sbio_html_doc *d, bool several)
{
    json_t *doc = d->doc, *res = json_object_get(doc, "result");
    char b[512];
    fprintf(f, several ? "<h2>" : "<h1>sbio run: ");
    esc(f, d->path);
    fprintf(f, several ? "</h2>\n" : "</h1>\n");
    html_command(f, doc);
    fputs("<table class=\"kv\">\n", f);
    kv_row(f, "mode", jstr(doc, "config.file_test_mode"));
    sbio_json_text(b, sizeof(b), sbio_json_get(doc, "config.threads"));
    kv_row(f, "threads", b);
    sbio_json_text(b, sizeof(b), sbio_json_get(doc, "config.block_size_bytes"));
    kv_row(f, "block size (bytes)", b);
    kv_row(f, "engine", jstr(doc, "config.ioengine"));
    kv_row(f, "flags", jstr(doc, "config.file_extra_flags"));
    sbio_json_text(b, sizeof(b), sbio_json_get(doc, "result.elapsed_s"));
    kv_row(f, "elapsed (s)", b);
    kv_row(f, "finished (UTC)", jstr(doc, "finished_utc"));
    fputs("</table>\n", f);
    html_run_table(f, json_object_get(res, "op_types"));
    fputs("<div class=\"charts\">\n", f);
    html_run_samples(f, json_object_get(res, "samples"), json_object_get(res, "op_types"));
    fputs("</div>\n", f);
}

/* ---- a compare ---- */

/* A compare's measured runs of setting s: their documents (a new array). */
static json_t *setting_runs(json_t *set)
{
    json_t *out = json_array(), *run;
    size_t i;
    json_array_foreach(json_object_get(set, "runs"), i, run)
    {
        const char *st = jstr(run, "status");
        json_t *res = json_object_get(run, "result");
        if (json_is_object(res) && (!st || !strcmp(st, "ok")))
            json_array_append(out, res);
    }
    return out;
}

/* Setting s's cell of metric e in a compare's table: its mean ± CI, the difference to the
 * baseline and the verdict. */
static void html_cmp_cell(FILE *f, json_t *e, size_t s)
{
    const char *unit = jstr(e, "unit"), *verdict = jstr(e, "verdict");
    bool ns = unit && !strcmp(unit, "ns"), sig = verdict && !strcmp(verdict, "significant");
    char mean[48], half[48], d[96];
    double mu = jnum(e, "mean"), lo = jnum(e, "ci95.0"), hi = jnum(e, "ci95.1");
    (ns ? fmt_ns : fmt_num)(mean, sizeof(mean), mu);
    (ns ? fmt_ns : fmt_num)(half, sizeof(half), (hi - lo) / 2);
    fmt_diff(d, sizeof(d), jnum(e, "diff_pct"), jnum(e, "diff_ci95_pct.0"),
             jnum(e, "diff_ci95_pct.1"), sig);
    fprintf(f, "<td class=\"n\">%s%s%s ", mean, isnan(lo) ? "" : " ± ", isnan(lo) ? "" : half);
    esc(f, unit && !ns && !isnan(mu) ? unit : "");
    fprintf(f, "</td><td class=\"n%s\">", sig ? " sig" : "");
    esc(f, s ? d : "baseline");
    if (s && verdict && !sig) {
        fputs(" (", f);
        esc(f, verdict);
        fputc(')', f);
    }
    fputs("</td>", f);
}

/* metric's entry of setting s's block b of phase ph. */
static json_t *cmp_metric(json_t *doc, size_t s, size_t ph, size_t b, const char *metric)
{
    json_t *set = json_array_get(json_object_get(doc, "settings"), s);
    json_t *job = json_array_get(
        json_object_get(json_array_get(json_object_get(set, "phases"), ph), "jobs"), b);
    return json_object_get(json_object_get(job, "metrics"), metric);
}

/* The chart of one metric of a block: a bar per setting with its CI and its runs, the
 * baseline grey, a significant difference red; durations in the unit that fits. Nothing when
 * no setting has a figure of it. */
static void html_cmp_chart(FILE *f, json_t *doc, size_t ph, size_t b, const char *metric,
                           const char *job)
{
    size_t ns = json_array_size(json_object_get(doc, "settings"));
    struct bar *bars = calloc(ns ? ns : 1, sizeof(*bars));
    double *pts = calloc(ns ? ns * 64 : 1, sizeof(*pts)), top = 0, div = 1;
    const char *unit = NULL;
    for (size_t s = 0; bars && pts && s < ns; s++) {
        json_t *e = cmp_metric(doc, s, ph, b, metric), *vals = json_object_get(e, "values");
        const char *verdict = jstr(e, "verdict");
        struct bar *o = &bars[s];
        bool sig = verdict && !strcmp(verdict, "significant");
        o->name = jstr(json_array_get(json_object_get(doc, "settings"), s), "name") ?: "?";
        o->mean = jnum(e, "mean");
        o->lo = jnum(e, "ci95.0");
        o->hi = jnum(e, "ci95.1");
        o->pts = pts + s * 64;
        for (size_t k = 0; k < json_array_size(vals) && k < 64; k++)
            if (json_is_number(json_array_get(vals, k)))
                pts[s * 64 + o->npts++] = json_number_value(json_array_get(vals, k));
        o->kind = !s ? BAR_BASE : sig ? BAR_SIG : BAR_SAME;
        if (s)
            fmt_diff(o->note, sizeof(o->note), jnum(e, "diff_pct"), NAN, NAN, sig);
        else
            snprintf(o->note, sizeof(o->note), "baseline");
        top = isnan(o->mean) ? top : fmax(top, o->mean);
        unit = unit ? unit : jstr(e, "unit");
    }
    if (bars && pts && top > 0) {
        if (unit && !strcmp(unit, "ns")) {
            div = top >= 1e9 ? 1e9 : top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1;
            unit = div == 1e9 ? "s" : div == 1e6 ? "ms" : div == 1e3 ? "µs" : "ns";
        }
        for (size_t s = 0; s < ns; s++) {
            bars[s].mean /= div;
            bars[s].lo /= div;
            bars[s].hi /= div;
            for (size_t k = 0; k < bars[s].npts; k++)
                pts[s * 64 + k] /= div;
        }
        char title[200];
        snprintf(title, sizeof(title), "%s%s%s", job, *job ? ": " : "", metric);
        svg_bars(f, title, unit ? unit : "", bars, ns);
    }
    free(bars);
    free(pts);
}

/* Block b of phase ph: a row per setting, a column per metric (mean ± CI, the difference to
 * the baseline with its CI and verdict); a chart per metric. */
static void html_cmp_block(FILE *f, json_t *doc, size_t ph, size_t b, int h)
{
    json_t *sets = json_object_get(doc, "settings"), *mets = json_object_get(doc, "metrics"), *set;
    json_t *job0 = sbio_json_get(json_array_get(sets, 0), "phases");
    job0 = json_array_get(json_object_get(json_array_get(job0, ph), "jobs"), b);
    const char *job = jstr(job0, "name") ?: "";
    size_t s, m;
    fprintf(f, "<h%d>", h);
    esc(f, job);
    fprintf(f, "</h%d>\n<table>\n<tr><th>setting</th>", h);
    for (m = 0; m < json_array_size(mets); m++) {
        fputs("<th>", f);
        esc(f, json_string_value(json_array_get(mets, m)));
        fputs("</th><th>vs baseline</th>", f);
    }
    fputs("</tr>\n", f);
    json_array_foreach(sets, s, set)
    {
        fputs("<tr><td>", f);
        esc(f, jstr(set, "name"));
        fputs("</td>", f);
        for (m = 0; m < json_array_size(mets); m++)
            html_cmp_cell(f, cmp_metric(doc, s, ph, b, json_string_value(json_array_get(mets, m))),
                          s);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n<div class=\"charts\">\n", f);
    for (m = 0; m < json_array_size(mets); m++)
        if (json_string_value(json_array_get(mets, m)))
            html_cmp_chart(f, doc, ph, b, json_string_value(json_array_get(mets, m)), job);
    fputs("</div>\n", f);
}

/* A compare's tables, one per job of each phase, and each setting's device settings as its
 * runs read them back. h: the heading level of its phases. */
static void html_compare_body(FILE *f, json_t *doc, int h)
{
    json_t *sets = json_object_get(doc, "settings");
    json_t *phases = json_object_get(json_array_get(sets, 0), "phases"), *p;
    size_t ph, ns = json_array_size(sets);
    json_array_foreach(phases, ph, p)
    {
        if (json_array_size(phases) > 1) {
            fprintf(f, "<h%d>phase ", h);
            esc(f, jstr(p, "name"));
            fprintf(f, "</h%d>\n", h);
        }
        for (size_t b = 0; b < json_array_size(json_object_get(p, "jobs")); b++)
            html_cmp_block(f, doc, ph, b, h + (json_array_size(phases) > 1));
    }
    json_t **runs = calloc(ns ? ns : 1, sizeof(*runs));
    const char **names = calloc(ns ? ns : 1, sizeof(*names));
    for (size_t s = 0; runs && names && s < ns; s++) {
        runs[s] = setting_runs(json_array_get(sets, s));
        names[s] = jstr(json_array_get(sets, s), "name") ?: "?";
    }
    if (runs && names) {
        fprintf(f, "<h%d>Device settings read back before each run</h%d>\n", h, h);
        html_readback(f, runs, names, ns);
    }
    for (size_t s = 0; runs && s < ns; s++)
        json_decref(runs[s]);
    free(runs);
    free(names);
}

/* The first run's environment of a compare. */
static json_t *compare_env(json_t *doc)
{
    json_t *set;
    size_t s;
    json_array_foreach(json_object_get(doc, "settings"), s, set)
    {
        json_t *runs = setting_runs(set), *env = doc_env(json_array_get(runs, 0));
        json_decref(runs);
        if (json_is_object(env))
            return env;
    }
    return NULL;
}

static void html_compare(FILE *f, const struct sbio_html_doc *d)
{
    json_t *doc = d->doc;
    fputs("<h1>sbio compare: ", f);
    esc(f, d->path);
    fputs("</h1>\n", f);
    html_command(f, doc);
    char b[256];
    fputs("<table class=\"kv\">\n", f);
    sbio_json_text(b, sizeof(b), json_object_get(doc, "repeat"));
    kv_row(f, "repeats", b);
    kv_row(f, "order", jstr(doc, "order"));
    kv_row(f, "cache", jstr(doc, "cache_drop"));
    kv_row(f, "test", jstr(doc, "statistics.test"));
    kv_row(f, "correction", jstr(doc, "statistics.correction"));
    fputs("</table>\n<p class=\"legend\">Each cell: the mean ± the half-width of its 95% "
          "confidence interval; beside it the difference to the baseline (the first setting) "
          "[its 95% CI, %], * significant after the correction.</p>\n",
          f);
    html_compare_body(f, doc, 2);
    json_t *env = compare_env(doc);
    if (env)
        html_machine(f, env);
}

/* ---- a survey ---- */

static void html_matrix(FILE *f, const struct sbio_survey_matrix *m)
{
    fputs("<table class=\"matrix\">\n<tr><th>workload</th><th>metric</th>", f);
    for (size_t s = 0; s < m->ns; s++) {
        fputs("<th>", f);
        esc(f, m->sched[s]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t r = 0; r < m->nrows; r++) {
        const struct sbio_survey_row *row = &m->row[r];
        char label[160], a[48], b[48], d[96];
        double div;
        const char *unit = sbio_survey_row_unit(row, &div);
        sbio_survey_row_label(row, label, sizeof(label));
        fputs("<tr><td>", f);
        esc(f, row->workload);
        fputs("</td><td>", f);
        esc(f, label);
        fprintf(f, " (%s, %s is better)</td>", strcmp(unit, "us") ? unit : "µs",
                row->better > 0 ? "higher" : "lower");
        for (size_t s = 0; s < m->ns; s++) {
            const struct sbio_survey_cell *c = &row->cell[s];
            if (!c->n) {
                fputs("<td>-</td>", f);
                continue;
            }
            fmt_num(a, sizeof(a), c->mean / div);
            fmt_num(b, sizeof(b), c->half / div);
            fmt_diff(d, sizeof(d), c->diff_pct, c->lo, c->hi, c->sig);
            fprintf(f, "<td class=\"n%s\">%s%s%s<br/>%s <span class=\"runs\">n=%zu</span></td>",
                    c->best  ? " best"
                    : c->sig ? " sig"
                             : "",
                    a, isnan(c->half) ? "" : " ± ", isnan(c->half) ? "" : b, c->best ? "best" : d,
                    c->n);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void html_survey_charts(FILE *f, const struct sbio_survey_matrix *m)
{
    fputs("<div class=\"charts\">\n", f);
    for (size_t r = 0; r < m->nrows; r++) {
        const struct sbio_survey_row *row = &m->row[r];
        struct bar bars[SBIO_SURVEY_MAX_SCHEDS];
        double *pts[SBIO_SURVEY_MAX_SCHEDS] = {0};
        char label[160], title[256], ylabel[64];
        double div;
        const char *unit = sbio_survey_row_unit(row, &div);
        sbio_survey_row_label(row, label, sizeof(label));
        snprintf(title, sizeof(title), "%s: %s", row->workload, label);
        snprintf(ylabel, sizeof(ylabel), "%s, %s is better", strcmp(unit, "us") ? unit : "µs",
                 row->better > 0 ? "higher" : "lower");
        for (size_t s = 0; s < m->ns; s++) {
            const struct sbio_survey_cell *c = &row->cell[s];
            struct bar *o = &bars[s];
            double h = isnan(c->half) ? NAN : c->half;
            *o = (struct bar){.name = m->sched[s],
                              .mean = c->n ? c->mean / div : NAN,
                              .lo = (c->mean - h) / div,
                              .hi = (c->mean + h) / div,
                              .kind = c->best  ? BAR_BEST
                                      : c->sig ? BAR_SIG
                                               : BAR_SAME};
            if (c->n && (pts[s] = calloc(c->n, sizeof(double)))) {
                for (size_t i = 0; i < c->n; i++)
                    pts[s][i] = c->val[i] / div;
                o->pts = pts[s];
                o->npts = c->n;
            }
            if (c->best)
                snprintf(o->note, sizeof(o->note), "best");
            else
                fmt_diff(o->note, sizeof(o->note), c->diff_pct, NAN, NAN, c->sig);
        }
        svg_bars(f, title, ylabel, bars, m->ns);
        for (size_t s = 0; s < m->ns; s++)
            free(pts[s]);
    }
    fputs("</div>\n", f);
}

/* Each workload: how it was run (its options, its share of the budget, its status), then its
 * compare's tables and settings read back. */
static void html_survey_workloads(FILE *f, json_t *doc)
{
    json_t *w;
    size_t i;
    fputs("<h2>Workloads</h2>\n<table>\n<tr><th>workload</th><th>script</th><th>options</th>"
          "<th>share (s)</th><th>took (s)</th><th>status</th></tr>\n",
          f);
    json_array_foreach(json_object_get(doc, "workloads"), i, w)
    {
        json_t *o;
        size_t k;
        fputs("<tr><td>", f);
        esc(f, jstr(w, "name"));
        fputs("</td><td>", f);
        esc(f, jstr(w, "script"));
        fputs("</td><td><code>", f);
        json_array_foreach(json_object_get(w, "options"), k, o)
        {
            fputs(k ? " " : "", f);
            esc(f, json_string_value(o));
        }
        fputs("</code></td>", f);
        td_val(f, jnum(w, "share_s"), NULL);
        td_val(f, jnum(w, "took_s"), NULL);
        fputs("<td>", f);
        esc(f, jstr(w, "status"));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    json_array_foreach(json_object_get(doc, "workloads"), i, w)
    {
        json_t *cmp = json_object_get(w, "compare");
        if (!json_is_object(cmp))
            continue;
        fputs("<details><summary>", f);
        esc(f, jstr(w, "name"));
        fputs(": each scheduler's figures and settings read back</summary>\n", f);
        html_compare_body(f, cmp, 3);
        fputs("</details>\n", f);
    }
}

static void html_survey(FILE *f, const struct sbio_html_doc *d)
{
    json_t *doc = d->doc;
    const struct sbio_survey_matrix *m = d->survey;
    char b[256];
    fputs("<h1>sbio survey of ", f);
    esc(f, jstr(doc, "device") ?: "?");
    fputs("</h1>\n", f);
    html_command(f, doc);
    fputs("<table class=\"kv\">\n", f);
    kv_row(f, "file", d->path);
    kv_row(f, "battery", jstr(doc, "battery"));
    snprintf(b, sizeof(b), "%.0f s (least %.0f s), took %.0f s%s", jnum(doc, "budget_s"),
             jnum(doc, "least_s"), jnum(doc, "took_s"),
             json_is_true(json_object_get(doc, "interrupted")) ? ", interrupted" : "");
    kv_row(f, "budget", b);
    fputs("</table>\n<h2>Matrix</h2>\n", f);
    html_matrix(f, m);
    fprintf(f,
            "<p class=\"legend\">Each cell: the mean ± the half-width of its 95%% confidence "
            "interval over n runs; below it the difference to the row's best mean [its 95%% "
            "CI, %%]; * significant at 5%% after Holm-Bonferroni over the %zu tests of the "
            "matrix (Welch's t-test of the log ratio of the means). Figures computed from the "
            "runs' values in the file.</p>\n<h2>Verdicts</h2>\n<ul>\n",
            m->ntests);
    for (size_t r = 0; r < m->nrows; r++) {
        char v[1024];
        sbio_survey_verdict(m, r, v, sizeof(v));
        fputs("<li>", f);
        esc(f, v);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n<h2>Charts</h2>\n", f);
    html_survey_charts(f, m);
    html_survey_workloads(f, doc);
    json_t *env = json_object_get(doc, "environment");
    if (json_is_object(env))
        html_machine(f, env);
}

/* ---- the page ---- */

static const char css[] =
    "body{font:14px/1.4 sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;"
    "color:#222}h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid "
    "#ccc}h3,h4{font-size:1.05em}table{border-collapse:collapse;margin:.6em 0}th,td{border:1px "
    "solid #ccc;padding:2px 6px;vertical-align:top}th{background:#f3f3f3;text-align:left}"
    "td.n{text-align:right;white-space:nowrap}td.best{background:#e6f4e6}td.sig{background:"
    "#fbe3e3}td.differs{background:#fff3cd}.runs{color:#777;font-size:.85em}.cmd code{"
    "white-space:pre-wrap;word-break:break-all}.legend{color:#555;font-size:.9em}.charts{"
    "display:flex;flex-wrap:wrap;gap:8px}svg{border:1px solid #eee;background:#fff}"
    "svg text{font:11px sans-serif}svg .t{font-size:12px;text-anchor:middle}svg .yl{"
    "text-anchor:end}svg .x{text-anchor:middle}svg .xs{text-anchor:start}svg .nt{"
    "text-anchor:middle;font-size:10px}svg .u{text-anchor:middle}svg .g{stroke:#e3e3e3}"
    "svg .b{stroke:#404040;stroke-width:.6}svg .e{stroke:#202020;stroke-width:1.4;fill:none}"
    "svg .p{fill:none;stroke:#202020}details{margin:.5em 0}summary{cursor:pointer;"
    "font-weight:bold}";

int sbio_html_report(const struct sbio_html_doc *docs, size_t n, FILE *out)
{
    const char *title = !n                ? "sbio report"
                        : docs[0].survey  ? "sbio survey"
                        : docs[0].compare ? "sbio compare"
                        : n > 1           ? "sbio runs"
                                          : "sbio run";
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\"/>\n<meta name=\"viewport\" "
            "content=\"width=device-width\"/>\n<meta name=\"generator\" content=\"sbio %s\"/>\n"
            "<title>%s: ",
            SBIO_VERSION, title);
    esc(out, n ? docs[0].path : "");
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
    if (n && docs[0].survey)
        html_survey(out, &docs[0]);
    else if (n && docs[0].compare)
        html_compare(out, &docs[0]);
    else {
        if (n > 1)
            fprintf(out, "<h1>sbio runs: %zu results</h1>\n", n);
        for (size_t i = 0; i < n; i++)
            html_run(out, &docs[i], n > 1);
        json_t **runs = calloc(n ? n : 1, sizeof(*runs));
        const char **names = calloc(n ? n : 1, sizeof(*names));
        for (size_t i = 0; runs && names && i < n; i++) {
            runs[i] = json_pack("[O]", docs[i].doc);
            names[i] = docs[i].path;
        }
        if (runs && names && n) {
            fputs("<h2>Device settings read back before the run</h2>\n", out);
            html_readback(out, runs, names, n);
            json_t *env = doc_env(docs[0].doc);
            if (json_is_object(env))
                html_machine(out, env);
        }
        for (size_t i = 0; runs && i < n; i++)
            json_decref(runs[i]);
        free(runs);
        free(names);
    }
    fprintf(out, "<p class=\"legend\">Written by sbio %s.</p>\n</body>\n</html>\n", SBIO_VERSION);
    return ferror(out) ? -EIO : 0;
}
