/* sbio diff: the per-metric difference of two saved results, for a reader ("what changed
 * between before.json and after.json?") and for CI (--threshold: fail on a regression).
 *
 * Two run results (sbio-result/1): first the settings that differ — each device's scheduler,
 * queue files and scheduler tunables as the run found them, whether sbio set them or they
 * were set by hand (a row per setting with A's and B's value, "-" where one side lacks it),
 * or one line saying they are the same — then one row per metric — total ops/s (result.ops /
 * elapsed), then per operation type present in either result ops/s, MiB/s (read, write), latency
 * mean, p50, p95, p99, p99.9, max; CPU% (user + system of one CPU); %util per device (matched by
 * name). Two compare results (sbio-compare/1): settings matched by name, per setting the
 * summary's mean ops/s, mean MiB/s and mean p99 per operation type; a setting on one side
 * only is listed as such.
 *
 * Columns: metric, A, B, Δ% = (B − A) / A × 100, and a mark: throughput lower is "worse",
 * latency and CPU higher is "worse", the opposite "better"; |Δ| < 1% is not marked (noise).
 * Device %util is not marked: a busier device may be a slower one or one doing more work.
 *
 * Edge cases, chosen so that nothing divides by zero and nothing is silently invented:
 * - equal values (0 and 0 included) are 0.0%, so a result diffed with itself is 0.0% on
 *   every row;
 * - a zero baseline with a non-zero B has no finite Δ: printed "n/a", still marked by
 *   direction (0 → 100 ops/s is better, 0 → 5 us latency is worse);
 * - a metric missing on one side (an operation type the run did not do, a field absent, a
 *   setting with no successful run) is printed "missing", with Δ "-" and no mark. It does
 *   not count for --threshold: it shows that the two workloads differ, not by how much.
 *
 * --threshold=P (only when given) fails (-SBIO_EFAILED, exit 1) when a throughput row (ops/s,
 * MiB/s) of B is more than P% below A, each named in one line on stderr after the table. Bad input
 * is -SBIO_EUSAGE (exit 2) with one line on stderr and nothing printed: both files are loaded and
 * checked before anything is. */
#include "diff.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

#define DIFF_ACCEPTED                                                                              \
    "accepted: a result of 'sbio run -o' (sbio-result/1) or 'sbio compare -o' (sbio-compare/1)"
#define DIFF_MAX_ROWS     64
#define DIFF_MAX_SETTINGS 128
#define DIFF_NAME_W       16 /* metric column; wider names widen it */
#define DIFF_VAL_W        14
#define DIFF_PCT_W        9
#define DIFF_MARK_PCT     1.0 /* |Δ| below this is noise: no mark */

enum diff_doc { DIFF_RUN, DIFF_COMPARE };

/* What a row measures decides which direction is worse. */
enum diff_kind {
    DIFF_THROUGHPUT, /* lower is worse; the only kind --threshold looks at */
    DIFF_COST,       /* latency, CPU: higher is worse */
    DIFF_INFO,       /* shown, never marked */
};
enum diff_unit { DIFF_RATE, DIFF_NS, DIFF_PCT };

struct diff_row {
    char name[96];
    enum diff_kind kind;
    enum diff_unit unit;
    double a, b; /* NAN: missing on that side */
};

struct diff_table {
    size_t n;
    struct diff_row row[DIFF_MAX_ROWS];
};

/* Settings are matched by name: two with one name cannot be told apart. 0, or -SBIO_EUSAGE
 * after one line on stderr. */
static int diff_check_names(const char *path, json_t *d)
{
    json_t *set = json_object_get(d, "settings"), *a, *b;
    size_t i, j;
    json_array_foreach(set, i, a)
    {
        const char *na = json_string_value(json_object_get(a, "name"));
        for (j = i + 1; na && j < json_array_size(set); j++) {
            b = json_array_get(set, j);
            const char *nb = json_string_value(json_object_get(b, "name"));
            if (nb && !strcmp(na, nb)) {
                sbio_err("diff: %s: two settings are named '%s'; settings are matched by name",
                         path, na);
                return -SBIO_EUSAGE;
            }
        }
    }
    return 0;
}

/* Load path as an sbio result. 0 with *doc and *kind set, or -SBIO_EUSAGE after one line on
 * stderr naming the file and what is accepted. */
static int diff_load(const char *path, json_t **doc, enum diff_doc *kind)
{
    *doc = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        sbio_err("diff: %s: %s; " DIFF_ACCEPTED, path, strerror(errno));
        return -SBIO_EUSAGE;
    }
    json_error_t jerr;
    json_t *d = json_loadf(f, 0, &jerr);
    fclose(f);
    if (!d) {
        /* jansson may quote the file's own text, newlines included: keep one line. */
        for (char *c = jerr.text; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        sbio_err("diff: %s: not JSON (line %d: %s); " DIFF_ACCEPTED, path, jerr.line, jerr.text);
        return -SBIO_EUSAGE;
    }
    const char *schema = json_string_value(json_object_get(d, "schema"));
    const char *need = NULL;
    if (!schema) {
        sbio_err("diff: %s: JSON without a \"schema\" string, not an sbio result; " DIFF_ACCEPTED,
                 path);
        goto bad;
    }
    if (!strcmp(schema, "sbio-result/1")) {
        *kind = DIFF_RUN;
        need = json_is_object(json_object_get(d, "result")) ? NULL : "a \"result\" object";
    } else if (!strcmp(schema, "sbio-compare/1")) {
        *kind = DIFF_COMPARE;
        need = json_is_array(json_object_get(d, "settings")) ? NULL : "a \"settings\" array";
    } else {
        sbio_err("diff: %s: schema \"%s\" is not one diff reads; " DIFF_ACCEPTED, path, schema);
        goto bad;
    }
    /* The fields every row comes from: without them the document is not a result. */
    if (need) {
        sbio_err("diff: %s: schema %s but no %s; " DIFF_ACCEPTED, path, schema, need);
        goto bad;
    }
    if (*kind == DIFF_COMPARE && diff_check_names(path, d))
        goto bad;
    *doc = d;
    return 0;
bad:
    json_decref(d);
    return -SBIO_EUSAGE;
}

/* The number at a dotted path (sbio_json_get), or NAN when absent or not a number. */
static double diff_num(json_t *doc, const char *path)
{
    json_t *v = sbio_json_get(doc, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The number at a path made from fmt and an operation type (fmt may not use it). */
static double diff_numf(json_t *doc, const char *fmt, const char *op)
{
    char path[160];
    snprintf(path, sizeof(path), fmt, op);
    return diff_num(doc, path);
}

/* Δ% of b against the baseline a. False when there is no finite one: a missing side, or a
 * zero baseline with a non-zero b. Equal values are 0 even when both are 0. */
static bool diff_pct(double a, double b, double *pct)
{
    if (isnan(a) || isnan(b))
        return false;
    if (a == b) {
        *pct = 0;
        return true;
    }
    if (a == 0)
        return false;
    *pct = (b - a) / a * 100;
    return true;
}

static const char *diff_mark(const struct diff_row *r)
{
    if (r->kind == DIFF_INFO || isnan(r->a) || isnan(r->b) || r->a == r->b)
        return "";
    double d;
    if (diff_pct(r->a, r->b, &d) && fabs(d) < DIFF_MARK_PCT)
        return "";
    bool up = r->b > r->a;
    if (r->kind == DIFF_THROUGHPUT)
        return up ? "better" : "worse";
    return up ? "worse" : "better";
}

static char *diff_fmt_val(char *buf, size_t len, enum diff_unit unit, double v)
{
    if (isnan(v))
        snprintf(buf, len, "missing");
    else if (unit == DIFF_NS)
        sbio_fmt_ns(buf, len, v);
    else if (unit == DIFF_PCT)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.2f", v);
    return buf;
}

static char *diff_fmt_pct(char *buf, size_t len, double a, double b)
{
    double d;
    if (isnan(a) || isnan(b))
        snprintf(buf, len, "-");
    else if (!diff_pct(a, b, &d))
        snprintf(buf, len, "n/a");
    else if (fabs(d) < 0.05) /* no "-0.0%": what rounds to zero is unchanged */
        snprintf(buf, len, "0.0%%");
    else
        snprintf(buf, len, "%+.1f%%", d);
    return buf;
}

/* A row named "OP NAME" (or "NAME" when op is NULL). */
static void diff_add(struct diff_table *t, enum diff_kind kind, enum diff_unit unit, double a,
                     double b, const char *op, const char *name)
{
    if (t->n >= DIFF_MAX_ROWS)
        return;
    struct diff_row *r = &t->row[t->n++];
    snprintf(r->name, sizeof(r->name), "%s%s%s", op ? op : "", op ? " " : "", name);
    r->kind = kind;
    r->unit = unit;
    r->a = a;
    r->b = b;
}

static int diff_name_width(const struct diff_table *t, const char *indent)
{
    size_t w = DIFF_NAME_W;
    for (size_t i = 0; i < t->n; i++)
        if (strlen(indent) + strlen(t->row[i].name) > w)
            w = strlen(indent) + strlen(t->row[i].name);
    return (int)w;
}

static void diff_print_head(FILE *out, int w)
{
    fprintf(out, "%-*s  %*s  %*s  %*s\n", w, "metric", DIFF_VAL_W, "A", DIFF_VAL_W, "B",
            DIFF_PCT_W + 1, "Δ%"); /* + 1: Δ is two bytes for one column */
}

/* The rows, each "metric  A  B  Δ%  mark"; the metric name is followed by at least two
 * spaces so that a reader (or a test) can find a row by its name. */
static void diff_print_rows(FILE *out, const struct diff_table *t, const char *indent, int w)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct diff_row *r = &t->row[i];
        char name[128], a[32], b[32], d[32];
        snprintf(name, sizeof(name), "%s%s", indent, r->name);
        const char *mark = diff_mark(r);
        fprintf(out, "%-*s  %*s  %*s  %*s%s%s\n", w, name, DIFF_VAL_W,
                diff_fmt_val(a, sizeof(a), r->unit, r->a), DIFF_VAL_W,
                diff_fmt_val(b, sizeof(b), r->unit, r->b), DIFF_PCT_W,
                diff_fmt_pct(d, sizeof(d), r->a, r->b), *mark ? "  " : "", mark);
    }
}

/* One line on stderr per throughput row of B more than thr% below A; the count. */
static int diff_threshold(const struct diff_table *t, const char *where, double thr)
{
    int n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct diff_row *r = &t->row[i];
        double d;
        if (r->kind != DIFF_THROUGHPUT || !diff_pct(r->a, r->b, &d) || d >= -thr)
            continue;
        sbio_err("diff: %s%s: %.2f in A, %.2f in B: %.1f%% below A, more than --threshold=%g%%",
                 where, r->name, r->a, r->b, -d, thr);
        n++;
    }
    return n;
}

/* An operation type counts as present when the result has its object and did at least one
 * operation of it (a run document has all three, with 0 ops for the ones it did not do). */
static bool diff_op_present(json_t *doc, const char *base, const char *op)
{
    char path[128];
    snprintf(path, sizeof(path), "%s.%s", base, op);
    json_t *o = sbio_json_get(doc, path);
    if (!json_is_object(o))
        return false;
    json_t *ops = json_object_get(o, "ops");
    return !json_is_number(ops) || json_number_value(ops) > 0;
}

/* The workload in a few words: mode, threads, block size, engine (and rate when limited). */
static void diff_run_config(char *buf, size_t len, json_t *doc)
{
    json_t *c = json_object_get(doc, "config");
    const char *mode = json_string_value(json_object_get(c, "file_test_mode"));
    const char *eng = json_string_value(json_object_get(c, "ioengine"));
    double th = diff_num(c, "threads"), bs = diff_num(c, "block_size_bytes");
    double rate = diff_num(c, "rate_ops_per_s");
    char bsz[32] = "? block";
    if (!isnan(bs) && bs >= 0 && bs < 0x1p64) {
        sbio_fmt_bytes(bsz, sizeof(bsz) - 8, (uint64_t)bs);
        strcat(bsz, " blocks");
    }
    char thr[32] = "? threads";
    if (!isnan(th))
        snprintf(thr, sizeof(thr), "%.0f thread%s", th, th == 1 ? "" : "s");
    char rt[48] = "";
    if (!isnan(rate) && rate > 0)
        snprintf(rt, sizeof(rt), ", rate %.0f/s", rate);
    snprintf(buf, len, "%s, %s, %s, %s%s%s", mode ? mode : "? mode", thr, bsz,
             eng ? eng : "? engine", rt,
             json_is_true(sbio_json_get(doc, "result.interrupted")) ? ", interrupted" : "");
}

/* The compare in a few words: its axes ("scheduler=none,bfq x read_ahead_kb=128,2048") and
 * repeats. */
static void diff_compare_config(char *buf, size_t len, json_t *doc)
{
    size_t l = (size_t)snprintf(buf, len, "compare ");
    json_t *axes = json_object_get(doc, "axes"), *ax;
    size_t i;
    json_array_foreach(axes, i, ax)
    {
        const char *key = json_string_value(json_object_get(ax, "key"));
        l += (size_t)snprintf(buf + (l < len ? l : len), l < len ? len - l : 0,
                              "%s%s=", i ? " x " : "", key ? key : "?");
        json_t *vals = json_object_get(ax, "values"), *v;
        size_t j;
        json_array_foreach(vals, j, v)
        {
            const char *s = json_string_value(v);
            l += (size_t)snprintf(buf + (l < len ? l : len), l < len ? len - l : 0, "%s%s",
                                  j ? "," : "", s ? s : "?");
        }
    }
    if (!json_array_size(axes))
        l += (size_t)snprintf(buf + (l < len ? l : len), l < len ? len - l : 0, "(no axes)");
    double rep = diff_num(doc, "repeat");
    if (!isnan(rep))
        l += (size_t)snprintf(buf + (l < len ? l : len), l < len ? len - l : 0, ", %.0f repeat%s",
                              rep, rep == 1 ? "" : "s");
    if (json_is_true(json_object_get(doc, "interrupted")))
        snprintf(buf + (l < len ? l : len), l < len ? len - l : 0, ", interrupted");
}

/* Total ops/s of a run: every operation over the measured time. */
static double diff_total_ops(json_t *doc)
{
    double ops = diff_num(doc, "result.ops"), el = diff_num(doc, "result.elapsed_s");
    return el > 0 ? ops / el : NAN;
}

static double diff_cpu(json_t *doc)
{
    return diff_num(doc, "result.cpu.user_pct") + diff_num(doc, "result.cpu.system_pct");
}

/* %util of the device called name in a run's result.devices, or NAN. */
static double diff_util(json_t *doc, const char *name)
{
    json_t *devs = sbio_json_get(doc, "result.devices"), *d;
    size_t i;
    json_array_foreach(devs, i, d)
    {
        const char *n = json_string_value(json_object_get(d, "name"));
        json_t *u = json_object_get(d, "util_pct");
        if (n && !strcmp(n, name) && json_is_number(u))
            return json_number_value(u);
    }
    return NAN;
}

/* One row per device name in either result, A's devices first; none when neither has
 * devices (a set on tmpfs). */
static void diff_util_rows(struct diff_table *t, json_t *a, json_t *b)
{
    json_t *docs[2] = {a, b};
    size_t first = t->n;
    for (int s = 0; s < 2; s++) {
        json_t *devs = sbio_json_get(docs[s], "result.devices"), *d;
        size_t i;
        json_array_foreach(devs, i, d)
        {
            const char *n = json_string_value(json_object_get(d, "name"));
            char name[80];
            bool seen = false;
            if (!n)
                continue;
            snprintf(name, sizeof(name), "util%% %s", n);
            for (size_t k = first; k < t->n; k++)
                seen |= !strcmp(t->row[k].name, name);
            if (!seen)
                diff_add(t, DIFF_INFO, DIFF_PCT, diff_util(a, n), diff_util(b, n), NULL, name);
        }
    }
}

static void diff_run_rows(struct diff_table *t, json_t *a, json_t *b)
{
    static const struct {
        const char *name, *path;
    } lat[] = {
        {"lat mean", "result.op_types.%s.latency.mean_ns"},
        {"lat p50", "result.op_types.%s.latency.percentiles_ns.50"},
        {"lat p95", "result.op_types.%s.latency.percentiles_ns.95"},
        {"lat p99", "result.op_types.%s.latency.percentiles_ns.99"},
        {"lat p99.9", "result.op_types.%s.latency.percentiles_ns.99.9"},
        {"lat max", "result.op_types.%s.latency.max_ns"},
    };
    diff_add(t, DIFF_THROUGHPUT, DIFF_RATE, diff_total_ops(a), diff_total_ops(b), NULL, "ops/s");
    for (int op = 0; op < 3; op++) {
        const char *o = sbio_op_name(op);
        /* An operation type one run did not do is missing there, not zero. */
        bool ha = diff_op_present(a, "result.op_types", o);
        bool hb = diff_op_present(b, "result.op_types", o);
        if (!ha && !hb)
            continue;
#define SIDE(doc, has, fmt) ((has) ? diff_numf((doc), (fmt), o) : NAN)
        diff_add(t, DIFF_THROUGHPUT, DIFF_RATE, SIDE(a, ha, "result.op_types.%s.ops_per_s"),
                 SIDE(b, hb, "result.op_types.%s.ops_per_s"), o, "ops/s");
        if (op != 2)
            diff_add(t, DIFF_THROUGHPUT, DIFF_RATE, SIDE(a, ha, "result.op_types.%s.mib_per_s"),
                     SIDE(b, hb, "result.op_types.%s.mib_per_s"), o, "MiB/s");
        for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
            diff_add(t, DIFF_COST, DIFF_NS, SIDE(a, ha, lat[i].path), SIDE(b, hb, lat[i].path), o,
                     lat[i].name);
#undef SIDE
    }
    diff_add(t, DIFF_COST, DIFF_PCT, diff_cpu(a), diff_cpu(b), NULL, "CPU%");
    diff_util_rows(t, a, b);
}

/* The settings of two run results that differ: each device's scheduler, queue files and
 * scheduler tunables (report.h's sbio_json_device_settings, which reads older documents too).
 * Devices are paired in their order (the top device first), so results from two machines
 * compare as well. */
struct diff_settings {
    size_t n, compared;
    struct {
        char name[160], a[128], b[128];
    } row[DIFF_MAX_SETTINGS];
};

static void diff_setting_text(char *buf, size_t len, json_t *v)
{
    if (!v)
        snprintf(buf, len, "-");
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else
        snprintf(buf, len, "?");
}

static void diff_setting_add(struct diff_settings *st, const char *dev, const char *key, json_t *a,
                             json_t *b)
{
    st->compared++;
    if ((a && b && json_equal(a, b)) || st->n >= DIFF_MAX_SETTINGS)
        return;
    snprintf(st->row[st->n].name, sizeof(st->row[0].name), "%s %s", dev, key);
    diff_setting_text(st->row[st->n].a, sizeof(st->row[0].a), a);
    diff_setting_text(st->row[st->n].b, sizeof(st->row[0].b), b);
    st->n++;
}

/* The settings of device i of each side (an empty object for a side without it). */
static void diff_device_settings(struct diff_settings *st, json_t *da, json_t *db)
{
    const char *na = json_string_value(json_object_get(da, "name"));
    const char *nb = json_string_value(json_object_get(db, "name"));
    json_t *sa = da ? sbio_json_device_settings(da) : json_object();
    json_t *sb = db ? sbio_json_device_settings(db) : json_object();
    const char *dev = na ? na : nb ? nb : "?", *k;
    json_t *v;
    if (!na || !nb || strcmp(na, nb))
        diff_setting_add(st, dev, "device", json_object_get(da, "name"),
                         json_object_get(db, "name"));
    json_object_foreach(sa, k, v) diff_setting_add(st, dev, k, v, json_object_get(sb, k));
    json_object_foreach(sb, k, v) if (!json_object_get(sa, k))
        diff_setting_add(st, dev, k, NULL, v);
    json_decref(sa);
    json_decref(sb);
}

static void diff_settings_read(struct diff_settings *st, json_t *a, json_t *b)
{
    json_t *da = sbio_json_get(a, "environment.devices"),
           *db = sbio_json_get(b, "environment.devices");
    size_t na = json_array_size(da), nb = json_array_size(db);
    st->n = st->compared = 0;
    for (size_t i = 0; i < (na > nb ? na : nb); i++)
        diff_device_settings(st, json_array_get(da, i), json_array_get(db, i));
}

/* Before the figures: what differs in how the device was set, or that nothing does. */
static void diff_settings_print(FILE *out, const struct diff_settings *st, int w)
{
    if (!st->compared)
        return; /* neither result went through a block device */
    if (!st->n) {
        fprintf(out, "settings: the same in A and B (%zu compared)\n", st->compared);
        return;
    }
    fprintf(out, "%-*s  %*s  %*s\n", w, "setting", DIFF_VAL_W, "A", DIFF_VAL_W, "B");
    for (size_t i = 0; i < st->n; i++)
        fprintf(out, "%-*s  %*s  %*s\n", w, st->row[i].name, DIFF_VAL_W, st->row[i].a, DIFF_VAL_W,
                st->row[i].b);
    fputc('\n', out);
}

/* The table of two run results, after the settings that differ; with check, -SBIO_EFAILED
 * when a row is past thr. */
static int diff_runs(FILE *out, json_t *a, json_t *b, bool check, double thr)
{
    static struct diff_table t; /* a few KiB: off the stack */
    static struct diff_settings st;
    t.n = 0;
    diff_run_rows(&t, a, b);
    diff_settings_read(&st, a, b);
    int w = diff_name_width(&t, "");
    for (size_t i = 0; i < st.n; i++)
        if ((int)strlen(st.row[i].name) > w)
            w = (int)strlen(st.row[i].name);
    diff_settings_print(out, &st, w);
    diff_print_head(out, w);
    diff_print_rows(out, &t, "", w);
    fflush(out); /* the table before the --threshold lines on stderr */
    return check && diff_threshold(&t, "", thr) ? -SBIO_EFAILED : 0;
}

/* The setting called name in a compare document, or NULL. */
static json_t *diff_setting(json_t *doc, const char *name)
{
    json_t *s;
    size_t i;
    json_array_foreach(json_object_get(doc, "settings"), i, s)
    {
        const char *n = json_string_value(json_object_get(s, "name"));
        if (n && !strcmp(n, name))
            return s;
    }
    return NULL;
}

/* A summary figure of a setting; missing when no run of it succeeded (the summary's means
 * are then placeholders, not measurements). */
static double diff_sum(json_t *set, const char *fmt, const char *op)
{
    if (!(diff_num(set, "summary.runs_ok") > 0))
        return NAN;
    return diff_numf(set, fmt, op);
}

static void diff_setting_rows(struct diff_table *t, json_t *sa, json_t *sb)
{
    t->n = 0;
    diff_add(t, DIFF_THROUGHPUT, DIFF_RATE, diff_sum(sa, "summary.ops_per_s.mean", ""),
             diff_sum(sb, "summary.ops_per_s.mean", ""), NULL, "ops/s mean");
    diff_add(t, DIFF_THROUGHPUT, DIFF_RATE, diff_sum(sa, "summary.mib_per_s.mean", ""),
             diff_sum(sb, "summary.mib_per_s.mean", ""), NULL, "MiB/s mean");
    for (int op = 0; op < 3; op++) {
        const char *o = sbio_op_name(op);
        bool ha = diff_op_present(sa, "summary", o), hb = diff_op_present(sb, "summary", o);
        if (!ha && !hb)
            continue;
        diff_add(t, DIFF_COST, DIFF_NS, ha ? diff_sum(sa, "summary.%s.p99_ns.mean", o) : NAN,
                 hb ? diff_sum(sb, "summary.%s.p99_ns.mean", o) : NAN, o, "p99 mean");
    }
}

static const char *diff_runs_ok(char *buf, size_t len, json_t *set)
{
    double ok = diff_num(set, "summary.runs_ok"), all = diff_num(set, "summary.runs");
    if (isnan(ok) || isnan(all))
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%.0f/%.0f", ok, all);
    return buf;
}

/* The tables of two compare results, setting by setting; with check, -SBIO_EFAILED when a
 * row of any setting is past thr. */
static int diff_compares(FILE *out, json_t *a, json_t *b, bool check, double thr)
{
    static struct diff_table t;
    json_t *docs[2] = {a, b}, *s;
    size_t i;
    int w = DIFF_NAME_W, worse = 0;
    diff_print_head(out, w);
    /* A's settings in A's order, then the ones only B has. */
    for (int side = 0; side < 2; side++) {
        json_array_foreach(json_object_get(docs[side], "settings"), i, s)
        {
            const char *name = json_string_value(json_object_get(s, "name"));
            if (!name)
                continue;
            json_t *other = diff_setting(docs[!side], name);
            if (!other) {
                fprintf(out, "setting %s: only in %s\n", name, side ? "B" : "A");
                continue;
            }
            if (side)
                continue; /* matched: already printed from A */
            char ra[24], rb[24], where[600];
            fprintf(out, "setting %s (runs ok: A %s, B %s)\n", name,
                    diff_runs_ok(ra, sizeof(ra), s), diff_runs_ok(rb, sizeof(rb), other));
            diff_setting_rows(&t, s, other);
            diff_print_rows(out, &t, "  ", w);
            fflush(out);
            snprintf(where, sizeof(where), "setting %s: ", name);
            if (check)
                worse += diff_threshold(&t, where, thr);
        }
    }
    fflush(out);
    return worse ? -SBIO_EFAILED : 0;
}

/* Both results, loaded and of one kind. 0 with *a, *b and *kind set, or -SBIO_EUSAGE after
 * one line on stderr (*a and *b then NULL). */
static int diff_load_pair(const struct sbio_config *cfg, json_t **a, json_t **b,
                          enum diff_doc *kind)
{
    enum diff_doc kb;
    *b = NULL;
    if (diff_load(cfg->args[0], a, kind) || diff_load(cfg->args[1], b, &kb))
        goto bad;
    if (*kind != kb) {
        sbio_err("diff: %s is a %s result but %s a %s result; accepted: two run results "
                 "(sbio-result/1) or two compare results (sbio-compare/1)",
                 cfg->args[0], *kind == DIFF_RUN ? "run" : "compare", cfg->args[1],
                 kb == DIFF_RUN ? "run" : "compare");
        goto bad;
    }
    return 0;
bad:
    json_decref(*a);
    json_decref(*b);
    *a = *b = NULL;
    return -SBIO_EUSAGE;
}

int sbio_diff(const struct sbio_config *cfg, FILE *out)
{
    if (cfg->nargs != 2) {
        sbio_err("diff takes two results: sbio diff A.json B.json [--threshold=P]");
        return -SBIO_EUSAGE;
    }
    json_t *a, *b;
    enum diff_doc kind;
    int rc = diff_load_pair(cfg, &a, &b, &kind);
    if (rc)
        return rc;
    char ca[1024], cb[1024];
    if (kind == DIFF_RUN) {
        diff_run_config(ca, sizeof(ca), a);
        diff_run_config(cb, sizeof(cb), b);
    } else {
        diff_compare_config(ca, sizeof(ca), a);
        diff_compare_config(cb, sizeof(cb), b);
    }
    fprintf(out, "sbio diff: A = %s (%s) vs B = %s (%s)\n", cfg->args[0], ca, cfg->args[1], cb);
    bool check = sbio_options_given(cfg, "threshold");
    double thr = (double)cfg->threshold;
    rc = kind == DIFF_RUN ? diff_runs(out, a, b, check, thr) : diff_compares(out, a, b, check, thr);
    json_decref(a);
    json_decref(b);
    return rc;
}
