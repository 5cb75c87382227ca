/* sbio diff: the per-metric difference of saved results, for a reader ("what changed
 * between before.json and after.json?") and for CI (--threshold: fail on a regression).
 *
 * Every form first lists the settings that differ between A's results and B's — every
 * workload option the results recorded, the machine's settings and each device's (see "what
 * differs" below) — so that no figure's change is read as one setting's when others changed
 * too, or one line saying that none does.
 *
 * One run result a side (sbio-result/1), without --metrics: then one row per metric — total
 * ops/s (result.ops / elapsed), then per operation type present in either result ops/s, MiB/s
 * (read, write), latency mean, p50, p95, p99, p99.9, max; CPU% (user + system of one CPU);
 * %util per device (matched by name).
 *
 * Columns: metric, A, B, Δ% = (B − A) / A × 100. No mark: one run a side does not measure
 * the runs' noise, so a change cannot be told from it, and a line after the rows says so and
 * how many runs a side would (the 95% interval of a mean of n runs, in sd of the runs).
 *
 * Edge cases, chosen so that nothing divides by zero and nothing is silently invented:
 * - equal values (0 and 0 included) are 0.0%, so a result diffed with itself is 0.0% on
 *   every row;
 * - a zero baseline with a non-zero B has no finite Δ: printed "n/a";
 * - a metric missing on one side (an operation type the run did not do, a field absent) is
 *   printed "missing", with Δ "-". It does not count for --threshold: it shows
 *   that the two workloads differ, not by how much.
 * --threshold=P (only when given) fails (-SBIO_EFAILED, exit 1) when a throughput row (ops/s,
 * MiB/s) of B is more than P% below A, each named in one line on stderr after the table.
 *
 * Several runs a side (A1 … -- B1 …), script results (sbio-script/1), or --metrics: the
 * comparison table of compare (table.h) with two rows, A's runs and B's, per phase and job;
 * every file must have the first one's phases and jobs; a side with one run gets no test, and
 * the same line on why and how many runs would. Two compare results (sbio-compare/1): that
 * table per setting of both, from the setting's measured runs in each (the settings that
 * differ: those of these runs). There, --threshold
 * judges the 95% CI of B's difference: a throughput metric fires when the whole CI is below
 * -P%, a latency or time metric when it is above +P% — the bound nearest zero decides, so a
 * gate does not fire on noise; without a CI (a side with one run) the point difference does.
 *
 * Bad input is -SBIO_EUSAGE (exit 2) with one line on stderr and nothing printed: every file
 * is loaded and checked before anything is. */
#include "diff.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infer.h"
#include "report.h"
#include "matrix.h"
#include "table.h"
#include "util.h"
#include "version.h"

#define DIFF_ACCEPTED                                                                              \
    "accepted: results of 'sbio run -o' (sbio-result/1; sbio-script/1 with --script) or of "       \
    "'sbio compare -o' (sbio-compare/1) or of 'sbio survey -o' (sbio-survey/1)"
#define DIFF_MAX_ROWS     64
#define DIFF_MAX_SETTINGS 128
#define DIFF_NAME_W       16 /* metric column; wider names widen it */
#define DIFF_VAL_W        14
#define DIFF_PCT_W        9

enum diff_doc { DIFF_RUN, DIFF_COMPARE, DIFF_SCRIPT, DIFF_SURVEY };

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

/* What a script's result lacks that its table is made from (phases, each with its name and
 * named jobs), or NULL. */
static const char *diff_script_lacks(json_t *d)
{
    json_t *phases = json_object_get(d, "phases"), *p, *j;
    size_t i, k;
    if (!json_array_size(phases))
        return "\"phases\" array";
    json_array_foreach(phases, i, p)
    {
        if (!json_is_string(json_object_get(p, "name")))
            return "name of a phase";
        json_t *jobs = json_object_get(p, "jobs");
        json_array_foreach(jobs, k, j)
        {
            if (!json_is_string(json_object_get(j, "name")))
                return "name of a job";
        }
    }
    return NULL;
}

/* ---- what a file may hold ----
 *
 * The files are anyone's: what diff prints from them (names, modes, settings) is escaped
 * (sbio_util_escape) as soon as they are loaded, so that no escape sequence or line break of a
 * file reaches the terminal, and every field diff reads must have the type sbio writes (null
 * and absent are "missing"): a "config" that is an array would otherwise be read as numbers
 * by position. */

/* Every string of v, and every key, with control characters escaped, in place. */
static void diff_escape_all(json_t *v)
{
    char buf[4096];
    const char *k;
    json_t *e;
    size_t i;
    void *tmp;
    if (json_is_string(v) && sbio_util_control(json_string_value(v))) {
        json_string_set(v, sbio_util_escape(buf, sizeof(buf), json_string_value(v), 1000));
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) diff_escape_all(e);
    } else if (json_is_object(v)) {
        json_object_foreach_safe(v, tmp, k, e)
        {
            diff_escape_all(e);
            if (!sbio_util_control(k))
                continue;
            json_incref(e);
            sbio_util_escape(buf, sizeof(buf), k, 1000);
            json_object_del(v, k);
            json_object_set_new(v, buf, e);
        }
    }
}

/* NUM: a number of at least 0, as every figure sbio writes; INT: a whole one (a count); STR:
 * text of at most DIFF_STR_MAX bytes (a name, a mode, a path), so that a crafted file cannot
 * make a title or a header line megabytes long. */
enum {
    DIFF_T_OBJ = 1,
    DIFF_T_ARR = 2,
    DIFF_T_STR = 4,
    DIFF_T_NUM = 8,
    DIFF_T_BOOL = 16,
    DIFF_T_INT = 32,
};
#define DIFF_STR_MAX 4096

/* The fields diff reads, by path ("*": every element of an array or member of an object),
 * and the types each may have. A run result's; a script's adds its phases; a compare's
 * settings hold run results. */
static const struct diff_field {
    const char *path;
    int types;
} diff_run_fields[] =
    {
        {"config", DIFF_T_OBJ},
        {"config.file_test_mode", DIFF_T_STR},
        {"config.ioengine", DIFF_T_STR},
        {"config.threads", DIFF_T_NUM},
        {"config.block_size_bytes", DIFF_T_NUM},
        {"config.rate_ops_per_s", DIFF_T_NUM},
        {"result", DIFF_T_OBJ},
        {"result.ops", DIFF_T_INT},
        {"result.events", DIFF_T_INT},
        {"result.elapsed_s", DIFF_T_NUM},
        {"result.interrupted", DIFF_T_BOOL},
        {"result.op_types", DIFF_T_OBJ},
        {"result.op_types.*", DIFF_T_OBJ},
        {"result.op_types.*.ops", DIFF_T_INT},
        {"result.op_types.*.ops_per_s", DIFF_T_NUM},
        {"result.op_types.*.mib_per_s", DIFF_T_NUM},
        {"result.op_types.*.latency", DIFF_T_OBJ},
        {"result.op_types.*.latency.mean_ns", DIFF_T_NUM},
        {"result.op_types.*.latency.max_ns", DIFF_T_NUM},
        {"result.op_types.*.latency.percentiles_ns", DIFF_T_OBJ},
        {"result.op_types.*.latency.percentiles_ns.*", DIFF_T_NUM},
        {"result.cpu", DIFF_T_OBJ},
        {"result.cpu.user_pct", DIFF_T_NUM},
        {"result.cpu.system_pct", DIFF_T_NUM},
        {"result.samples", DIFF_T_ARR},
        {"result.samples.*", DIFF_T_OBJ},
        {"result.samples.*.t_s", DIFF_T_NUM},
        {"result.samples.*.duration_s", DIFF_T_NUM},
        {"result.samples.*.*", DIFF_T_OBJ | DIFF_T_NUM},
        {"result.samples.*.*.*", DIFF_T_NUM},
        {"result.devices", DIFF_T_ARR},
        {"result.devices.*", DIFF_T_OBJ},
        {"result.devices.*.name", DIFF_T_STR},
        {"result.devices.*.util_pct", DIFF_T_NUM},
        {"environment", DIFF_T_OBJ},
        {"environment.devices", DIFF_T_ARR},
        {"environment.devices.*", DIFF_T_OBJ},
        {"environment.devices.*.name", DIFF_T_STR},
        {"environment.devices.*.queue", DIFF_T_OBJ},
        {"environment.devices.*.iosched", DIFF_T_OBJ},
        {"script", DIFF_T_STR},
        {"phases", DIFF_T_ARR},
        {"phases.*", DIFF_T_OBJ},
        {"phases.*.name", DIFF_T_STR},
        {"phases.*.jobs", DIFF_T_ARR},
        {"phases.*.jobs.*", DIFF_T_OBJ},
        {"phases.*.jobs.*.name", DIFF_T_STR},
        {NULL, 0},
},
  diff_compare_fields[] = {
      {"settings", DIFF_T_ARR},
      {"settings.*", DIFF_T_OBJ},
      {"settings.*.name", DIFF_T_STR},
      {"settings.*.runs", DIFF_T_ARR},
      {"settings.*.runs.*", DIFF_T_OBJ},
      {"settings.*.runs.*.status", DIFF_T_STR},
      {"settings.*.runs.*.repeat", DIFF_T_INT},
      {"settings.*.runs.*.result", DIFF_T_OBJ},
      {"axes", DIFF_T_ARR},
      {"axes.*", DIFF_T_OBJ},
      {"axes.*.key", DIFF_T_STR},
      {"axes.*.values", DIFF_T_ARR},
      {"axes.*.values.*", DIFF_T_STR},
      {"repeat", DIFF_T_NUM | DIFF_T_STR},
      {"interrupted", DIFF_T_BOOL},
      {"metrics", DIFF_T_ARR},
      {"metrics.*", DIFF_T_STR},
      {NULL, 0},
};

static int diff_type_of(json_t *v)
{
    if (json_is_integer(v))
        return json_integer_value(v) >= 0 ? DIFF_T_INT | DIFF_T_NUM : 0;
    /* A count written as a real (10000.0) is still a count; 1.5e300 is none sbio wrote. */
    double r = json_is_real(v) ? json_real_value(v) : -1;
    if (r >= 0 && r < 0x1p63 && r == floor(r))
        return DIFF_T_INT | DIFF_T_NUM;
    return json_is_object(v)    ? DIFF_T_OBJ
           : json_is_array(v)   ? DIFF_T_ARR
           : json_is_string(v)  ? (json_string_length(v) <= DIFF_STR_MAX ? DIFF_T_STR : 0)
           : json_is_real(v)    ? (json_real_value(v) >= 0 ? DIFF_T_NUM : 0)
           : json_is_boolean(v) ? DIFF_T_BOOL
                                : 0;
}

static const char *diff_type_name(int types)
{
    return types == (DIFF_T_NUM | DIFF_T_STR)   ? "a number of at least 0 or a string"
           : types == (DIFF_T_OBJ | DIFF_T_NUM) ? "an object or a number of at least 0"
           : types == DIFF_T_OBJ                ? "an object"
           : types == DIFF_T_ARR                ? "an array"
           : types == DIFF_T_STR                ? "a string of at most 4096 bytes"
           : types == DIFF_T_NUM                ? "a number of at least 0"
           : types == DIFF_T_INT                ? "a whole number of at least 0"
                                                : "true or false";
}

/* Whether what lies at path (from v, whose place is where[0..l)) has one of types; when not,
 * where names the first that does not. */
static bool diff_field_ok(json_t *v, const char *path, int types, char *where, size_t len, size_t l)
{
    l = l < len ? l : len - 1;
    where[l] = 0;
    if (!*path)
        return json_is_null(v) || (diff_type_of(v) & types);
    const char *dot = strchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    const char *rest = dot ? dot + 1 : "";
    if (n == 1 && *path == '*') {
        json_t *e;
        const char *k;
        size_t i;
        if (json_is_array(v)) {
            json_array_foreach(v, i, e)
            {
                int m = snprintf(where + l, len - l, "[%zu]", i);
                if (!diff_field_ok(e, rest, types, where, len, l + (size_t)m))
                    return false;
            }
        } else if (json_is_object(v)) {
            json_object_foreach(v, k, e)
            {
                int m = snprintf(where + l, len - l, "%s%s", l ? "." : "", k);
                if (!diff_field_ok(e, rest, types, where, len, l + (size_t)m))
                    return false;
            }
        }
        return true;
    }
    char key[64];
    snprintf(key, sizeof(key), "%.*s", (int)n, path);
    json_t *e = json_is_object(v) ? json_object_get(v, key) : NULL;
    if (!e)
        return true; /* absent: missing, or a parent of the wrong type, told on its own */
    int m = snprintf(where + l, len - l, "%s%s", l ? "." : "", key);
    return diff_field_ok(e, rest, types, where, len, l + (size_t)m);
}

/* Every field of fields in doc (whose place is prefix) of its type: 0, or -SBIO_EUSAGE after
 * one line naming the file and the field. */
static int diff_fields_check(const char *cmd, const char *path, json_t *doc, const char *prefix,
                             const struct diff_field *fields)
{
    char where[512];
    for (const struct diff_field *f = fields; f->path; f++) {
        size_t l = (size_t)snprintf(where, sizeof(where), "%s", prefix);
        if (diff_field_ok(doc, f->path, f->types, where, sizeof(where), l))
            continue;
        sbio_err("%s: %s: %s is not %s (as sbio writes it): the file was edited or damaged", cmd,
                 path, where, diff_type_name(f->types));
        return -SBIO_EUSAGE;
    }
    return 0;
}

int sbio_diff_check_types(const char *cmd, const char *path, json_t *doc, bool compare)
{
    if (!compare)
        return diff_fields_check(cmd, path, doc, "", diff_run_fields);
    int rc = diff_fields_check(cmd, path, doc, "", diff_compare_fields);
    json_t *set, *run;
    size_t i, j;
    json_array_foreach(json_object_get(doc, "settings"), i, set)
    {
        json_array_foreach(json_object_get(set, "runs"), j, run)
        {
            char prefix[96];
            json_t *res = json_object_get(run, "result");
            snprintf(prefix, sizeof(prefix), "settings[%zu].runs[%zu].result", i, j);
            if (!rc && res)
                rc = diff_fields_check(cmd, path, res, prefix, diff_run_fields);
        }
    }
    return rc;
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
    json_t *d = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    if (!d) {
        /* jansson may quote the file's own text, newlines included: one line, escaped. */
        char shown[200];
        sbio_err("diff: %s: not JSON (line %d: %s); " DIFF_ACCEPTED, path, jerr.line,
                 sbio_util_escape(shown, sizeof(shown), jerr.text, 120));
        return -SBIO_EUSAGE;
    }
    diff_escape_all(d);
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
    } else if (!strcmp(schema, "sbio-script/1")) {
        *kind = DIFF_SCRIPT;
        need = diff_script_lacks(d);
    } else if (!strcmp(schema, "sbio-compare/1")) {
        *kind = DIFF_COMPARE;
        need = json_is_array(json_object_get(d, "settings")) ? NULL : "a \"settings\" array";
    } else if (!strcmp(schema, "sbio-survey/1")) {
        *kind = DIFF_SURVEY;
        need = json_is_object(json_object_get(d, "matrix")) ? NULL : "a \"matrix\" object";
    } else {
        sbio_err("diff: %s: schema \"%s\" is not one diff reads; " DIFF_ACCEPTED, path, schema);
        goto bad;
    }
    /* The fields every row comes from: without them the document is not a result. */
    if (need) {
        sbio_err("diff: %s: schema %s but no %s; " DIFF_ACCEPTED, path, schema, need);
        goto bad;
    }
    if (*kind != DIFF_SURVEY && sbio_diff_check_types("diff", path, d, *kind == DIFF_COMPARE))
        goto bad;
    if (*kind == DIFF_COMPARE && diff_check_names(path, d))
        goto bad;
    *doc = d;
    return 0;
bad:
    json_decref(d);
    return -SBIO_EUSAGE;
}

/* The number at a path made from fmt and an operation type (fmt may not use it). */
static double diff_numf(json_t *doc, const char *fmt, const char *op)
{
    char path[160];
    snprintf(path, sizeof(path), fmt, op);
    return sbio_json_num(doc, path);
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

/* The rows, each "metric  A  B  Δ%" (no mark: one run a side says nothing about noise); the
 * metric name is followed by at least two spaces so that a reader (or a test) can find a row
 * by its name. */
static void diff_print_rows(FILE *out, const struct diff_table *t, const char *indent, int w)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct diff_row *r = &t->row[i];
        char name[128], a[32], b[32], d[32];
        snprintf(name, sizeof(name), "%s%s", indent, r->name);
        fprintf(out, "%-*s  %*s  %*s  %*s\n", w, name, DIFF_VAL_W,
                diff_fmt_val(a, sizeof(a), r->unit, r->a), DIFF_VAL_W,
                diff_fmt_val(b, sizeof(b), r->unit, r->b), DIFF_PCT_W,
                diff_fmt_pct(d, sizeof(d), r->a, r->b));
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
    double th = sbio_json_num(c, "threads"), bs = sbio_json_num(c, "block_size_bytes");
    double rate = sbio_json_num(c, "rate_ops_per_s");
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
    double rep = sbio_json_num(doc, "repeat");
    if (!isnan(rep))
        l += (size_t)snprintf(buf + (l < len ? l : len), l < len ? len - l : 0, ", %.0f repeat%s",
                              rep, rep == 1 ? "" : "s");
    if (json_is_true(json_object_get(doc, "interrupted")))
        snprintf(buf + (l < len ? l : len), l < len ? len - l : 0, ", interrupted");
}

/* Total ops/s of a run: every operation over the measured time. */
static double diff_total_ops(json_t *doc)
{
    double ops = sbio_json_num(doc, "result.ops"), el = sbio_json_num(doc, "result.elapsed_s");
    return el > 0 ? ops / el : NAN;
}

static double diff_cpu(json_t *doc)
{
    return sbio_json_num(doc, "result.cpu.user_pct") + sbio_json_num(doc, "result.cpu.system_pct");
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
    /* read, write, fsync, then the file-system op types (a tree job's). */
    for (int op = 0; op < SBIO_OP_NR; op = op == SBIO_FSYNC ? SBIO_OP_FS_FIRST : op + 1) {
        const char *o = sbio_op_name(op);
        /* An operation type one run did not do is missing there, not zero. */
        bool ha = diff_op_present(a, "result.op_types", o);
        bool hb = diff_op_present(b, "result.op_types", o);
        if (!ha && !hb)
            continue;
#define SIDE(doc, has, fmt) ((has) ? diff_numf((doc), (fmt), o) : NAN)
        diff_add(t, DIFF_THROUGHPUT, DIFF_RATE, SIDE(a, ha, "result.op_types.%s.ops_per_s"),
                 SIDE(b, hb, "result.op_types.%s.ops_per_s"), o, "ops/s");
        if (sbio_report_op_bytes(op))
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

/* ---- what differs between the two sides, before any figure ----
 *
 * A figure's change means nothing until what else changed is known: a -96% under bfq is not
 * the scheduler's when B also ran with O_DIRECT and twice the threads. So every setting the
 * results recorded is compared, side against side, generically (a new option in the result is
 * a new row here without a line of diff changing):
 * - the workload: a run's whole "config" (mode, threads, block size, engine, depth, flags,
 *   sizes, fsync options, rate, ...); a script's file, the options of its command line, and
 *   each job's declared fields and config ("PHASE/JOB KEY");
 * - the machine: the "environment" but its devices (kernel, file system and its mount
 *   options, vm.dirty_*, CPUs, ...);
 * - each device's scheduler, queue files and scheduler tunables (report.h's
 *   sbio_json_device_settings, which reads older documents too), devices paired in their
 *   order (the top device first), so that results from two machines compare as well.
 * An object is compared member by member ("filesystem.options"); an array as a whole. The
 * random seed is left out: every run draws its own unless --rand-seed says otherwise, and it
 * chooses among draws of one workload, not the workload. A side of several files whose files
 * disagree on a setting has a row for it as well, with each value it has. */
enum diff_fact_kind { DIFF_FACT_WORKLOAD, DIFF_FACT_MACHINE, DIFF_FACT_DEVICE, DIFF_FACT_KINDS };
static const char *const diff_fact_kind_name[DIFF_FACT_KINDS] = {"workload", "machine", "device"};

/* v's members into flat (a new key "PREFIX.KEY" each, or "PREFIX KEY" after a job's
 * "PHASE/JOB" prefix: sep), objects flattened, a member already there kept; skip: a member of
 * v itself left out (NULL: none). */
static void diff_flatten(json_t *flat, const char *prefix, char sep, json_t *v, const char *skip)
{
    const char *k;
    json_t *e;
    json_object_foreach(v, k, e)
    {
        char key[256];
        if (skip && !strcmp(k, skip))
            continue;
        snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? (char[]){sep, 0} : "", k);
        if (json_is_object(e) && json_object_size(e))
            diff_flatten(flat, key, '.', e, NULL);
        else if (!json_object_get(flat, key))
            json_object_set(flat, key, e);
    }
}

/* The options of a command line as given ("--readers=1", "--size 8M", "--direct"), each as
 * "command line --NAME" into flat; the output file and the script (a row of its own) left
 * out. */
static void diff_command_line(json_t *flat, json_t *argv)
{
    size_t n = json_array_size(argv);
    for (size_t i = 2; i < n; i++) {
        const char *a = json_string_value(json_array_get(argv, i));
        const char *next = json_string_value(json_array_get(argv, i + 1));
        if (!a || a[0] != '-')
            continue;
        char name[160];
        const char *eq = strchr(a, '=');
        snprintf(name, sizeof(name), "command line %.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        bool takes = !eq && next && next[0] != '-';
        if (!strcmp(name, "command line -o") || !strcmp(name, "command line --output") ||
            !strcmp(name, "command line --script")) {
            i += takes;
            continue;
        }
        json_object_set_new(flat, name,
                            eq      ? json_string(eq + 1)
                            : takes ? json_string(next)
                                    : json_true());
        i += takes;
    }
}

/* The run result a document's machine and devices are read from: itself, or a script's first
 * job's. */
static json_t *diff_first_run(json_t *doc)
{
    json_t *ph = json_array_get(json_object_get(doc, "phases"), 0);
    return ph ? json_object_get(json_array_get(json_object_get(ph, "jobs"), 0), "result") : doc;
}

/* A document's settings of one kind, flat: a new object. */
static json_t *diff_facts(json_t *doc, enum diff_fact_kind kind)
{
    json_t *flat = json_object(), *run = diff_first_run(doc), *p, *j, *dev;
    size_t i, k;
    if (kind == DIFF_FACT_MACHINE) {
        /* Its "scheduler" is the set's device's, among the device settings. */
        json_t *env = json_deep_copy(json_object_get(run, "environment"));
        json_object_del(env, "scheduler");
        diff_flatten(flat, "", '.', env, "devices");
        json_decref(env);
    } else if (kind == DIFF_FACT_DEVICE) {
        json_array_foreach(sbio_json_get(run, "environment.devices"), i, dev)
        {
            char pre[32];
            json_t *set = sbio_json_device_settings(dev);
            snprintf(pre, sizeof(pre), "#%zu", i);
            diff_flatten(flat, pre, ' ', set, NULL);
            json_decref(set);
            snprintf(pre, sizeof(pre), "#%zu device", i);
            json_object_set(flat, pre, json_object_get(dev, "name"));
        }
    } else if (json_is_array(json_object_get(doc, "workloads"))) {
        /* A survey's: each workload's script, length and options, by its name. */
        json_array_foreach(json_object_get(doc, "workloads"), i, j)
        {
            const char *name = json_string_value(json_object_get(j, "name"));
            json_t *w = json_pack("{s:O?,s:O?}", "script", json_object_get(j, "script"), "seconds",
                                  json_object_get(j, "seconds")),
                   *o;
            json_array_foreach(json_object_get(j, "options"), k, o)
            {
                /* "--time=5": its name, its value. */
                const char *opt = json_string_value(o), *eq = opt ? strchr(opt, '=') : NULL;
                char key[128];
                if (!opt)
                    continue;
                snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - opt) : (int)strlen(opt), opt);
                json_object_set_new(w, key, json_string(eq ? eq + 1 : ""));
            }
            diff_flatten(flat, name ? name : "?", ' ', w, NULL);
            json_decref(w);
        }
    } else if (!json_object_get(doc, "phases")) {
        diff_flatten(flat, "", '.', json_object_get(doc, "config"), "rand_seed");
    } else {
        json_object_set(flat, "script", json_object_get(doc, "script"));
        diff_command_line(flat, json_object_get(run, "command_line"));
        json_array_foreach(json_object_get(doc, "phases"), i, p)
        {
            json_array_foreach(json_object_get(p, "jobs"), k, j)
            {
                char pre[160];
                snprintf(pre, sizeof(pre), "%s/%s", json_string_value(json_object_get(p, "name")),
                         json_string_value(json_object_get(j, "name")));
                diff_flatten(flat, pre, ' ', json_object_get(j, "declared"), NULL);
                diff_flatten(flat, pre, ' ', sbio_json_get(j, "result.config"), "rand_seed");
            }
        }
    }
    return flat;
}

/* The distinct values of key among a side's flat settings fl[0..n) (null where a file lacks
 * it), a new array. */
static json_t *diff_side_values(json_t *const *fl, size_t n, const char *key)
{
    json_t *vals = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(fl[i], key), *u;
        size_t k;
        bool seen = false;
        v = v ? v : json_null();
        json_array_foreach(vals, k, u) seen |= json_equal(u, v);
        if (!seen)
            json_array_append(vals, v);
    }
    return vals;
}

static bool diff_same_values(json_t *a, json_t *b)
{
    if (json_array_size(a) != 1 || json_array_size(b) != 1)
        return false;
    return json_equal(json_array_get(a, 0), json_array_get(b, 0));
}

/* A device row's key "#I KEY" named for people: "sda KEY", after the first file's device I
 * (A's, else B's); "sda device" when the sides' devices I have other names. */
static void diff_device_name(char *buf, size_t len, const char *key, json_t *const *fl, size_t n)
{
    char *end;
    unsigned long i = strtoul(key + 1, &end, 10);
    char dev[32];
    snprintf(dev, sizeof(dev), "#%lu device", i);
    const char *name = NULL;
    for (size_t f = 0; f < n && !name; f++)
        name = json_string_value(json_object_get(fl[f], dev));
    snprintf(buf, len, "%s%s", name ? name : "?", end);
}

struct diff_differs {
    json_t *rows;                     /* [{kind, name, a: [values], b: [values]}] */
    size_t compared[DIFF_FACT_KINDS]; /* settings compared, of each kind */
};

/* What differs between side A's documents a[0..na) and B's b[0..nb): d->rows (a new array)
 * and the counts. */
static void diff_differs_read(struct diff_differs *d, json_t *const *a, size_t na, json_t *const *b,
                              size_t nb)
{
    size_t n = na + nb;
    json_t **fl = calloc(n ? n : 1, sizeof(*fl));
    d->rows = json_array();
    for (int kind = 0; fl && kind < DIFF_FACT_KINDS; kind++) {
        json_t *keys = json_object(), *v;
        const char *key;
        d->compared[kind] = 0;
        for (size_t i = 0; i < n; i++) {
            fl[i] = diff_facts(i < na ? a[i] : b[i - na], (enum diff_fact_kind)kind);
            json_object_foreach(fl[i], key, v) json_object_set(keys, key, json_null());
        }
        /* jansson keeps an object's keys in insertion order: A's first file's first. */
        json_object_foreach(keys, key, v)
        {
            json_t *va = diff_side_values(fl, na, key), *vb = diff_side_values(fl + na, nb, key);
            char name[256];
            d->compared[kind]++;
            if (diff_same_values(va, vb)) {
                json_decref(va);
                json_decref(vb);
                continue;
            }
            if (kind == DIFF_FACT_DEVICE)
                diff_device_name(name, sizeof(name), key, fl, n);
            else
                snprintf(name, sizeof(name), "%s", key);
            json_array_append_new(d->rows,
                                  json_pack("{s:s,s:s,s:o,s:o}", "kind", diff_fact_kind_name[kind],
                                            "name", name, "a", va, "b", vb));
        }
        json_decref(keys);
        for (size_t i = 0; i < n; i++)
            json_decref(fl[i]);
    }
    free(fl);
}

/* A side's values in one cell: "4", or "2|4" when its files disagree. */
static void diff_values_text(char *buf, size_t len, json_t *vals)
{
    json_t *v;
    size_t i, l = 0;
    buf[0] = 0;
    json_array_foreach(vals, i, v)
    {
        char one[160];
        sbio_json_text(one, sizeof(one), v);
        l += (size_t)snprintf(buf + (l < len ? l : len), l < len ? len - l : 0, "%s%s",
                              i ? "|" : "", one);
    }
}

/* Before the figures: every setting that differs under a "setting  A  B" heading, the
 * workload's first (then a blank line when gap), or one line saying that none does ("settings: the
 * same in A and B (34 workload, 11 machine and 21 device settings compared)", wrapped at width
 * when not 0); nothing when neither side recorded any. */
static void diff_differs_print(FILE *out, const struct diff_differs *d, bool gap, int width)
{
    size_t w = strlen("setting"), wa = DIFF_VAL_W, wb = DIFF_VAL_W;
    size_t all = d->compared[0] + d->compared[1] + d->compared[2];
    json_t *r;
    size_t i;
    if (!json_array_size(d->rows)) {
        char line[256];
        snprintf(line, sizeof(line),
                 "settings: the same in A and B (%zu workload, %zu machine and %zu device "
                 "settings compared)",
                 d->compared[DIFF_FACT_WORKLOAD], d->compared[DIFF_FACT_MACHINE],
                 d->compared[DIFF_FACT_DEVICE]);
        if (all)
            sbio_survey_wrap(out, "", line, width, 2);
        return;
    }
    json_array_foreach(d->rows, i, r)
    {
        char a[512], b[512];
        const char *name = json_string_value(json_object_get(r, "name"));
        diff_values_text(a, sizeof(a), json_object_get(r, "a"));
        diff_values_text(b, sizeof(b), json_object_get(r, "b"));
        w = strlen(name) > w ? strlen(name) : w;
        wa = sbio_text_cols(a) > wa ? sbio_text_cols(a) : wa;
        wb = sbio_text_cols(b) > wb ? sbio_text_cols(b) : wb;
    }
    fprintf(out, "%-*s  %*s  %*s\n", (int)w, "setting", (int)wa, "A", (int)wb, "B");
    json_array_foreach(d->rows, i, r)
    {
        char a[512], b[512];
        diff_values_text(a, sizeof(a), json_object_get(r, "a"));
        diff_values_text(b, sizeof(b), json_object_get(r, "b"));
        fprintf(out, "%-*s  %*s%s  %*s%s\n", (int)w, json_string_value(json_object_get(r, "name")),
                (int)(wa > sbio_text_cols(a) ? wa - sbio_text_cols(a) : 0), "", a,
                (int)(wb > sbio_text_cols(b) ? wb - sbio_text_cols(b) : 0), "", b);
    }
    fprintf(out, "(%zu of %zu settings differ: every change below is theirs together)\n%s",
            json_array_size(d->rows), all, gap ? "\n" : "");
}

/* Why one run a side gets no verdict, and how many runs would: the 95% interval of a mean of
 * n runs is t(0.975, n - 1) / sqrt(n) standard deviations of the runs either way. Printed
 * when a side has fewer than 2 runs (na, nb); with --threshold (check), what the gate then
 * compares. */
static void diff_noise_note(FILE *out, size_t na, size_t nb, bool check, double thr)
{
    if (na >= 2 && nb >= 2)
        return;
    fprintf(out,
            "\n%s: no difference is called better or worse (nor significant): one run does "
            "not measure\nthe runs' own noise, so a change cannot be told from it. A "
            "confidence interval needs at least\n2 runs a side; the 95%% interval of a side's "
            "mean is +-%.1f standard deviations of its runs with 2,\n+-%.1f with 3, +-%.1f "
            "with 5, +-%.1f with 10: 5 runs a side is a useful start. Repeat each run\n(sbio "
            "run ... -o a1.json, ..., a5.json) and give them all: sbio diff a1.json ... a5.json "
            "--\nb1.json ... b5.json; or let sbio compare --repeat=5 alternate the two.\n",
            na < 2 && nb < 2 ? "1 run a side"
            : na < 2         ? "1 run of A"
                             : "1 run of B",
            sbio_infer_halfwidth(1, 2, 0.95), sbio_infer_halfwidth(1, 3, 0.95),
            sbio_infer_halfwidth(1, 5, 0.95), sbio_infer_halfwidth(1, 10, 0.95));
    if (check)
        fprintf(out,
                "--threshold=%g compares the single figures themselves, not a confidence "
                "interval: it\nfires on a change of more than %g%% whether the change is real "
                "or the runs' noise.\n",
                thr, thr);
}

/* The table of two run results, after what differs; with check, -SBIO_EFAILED when a row is
 * past thr. */
static int diff_runs(FILE *out, json_t *a, json_t *b, const struct diff_differs *dd, bool check,
                     double thr)
{
    static struct diff_table t; /* a few KiB: off the stack */
    t.n = 0;
    diff_run_rows(&t, a, b);
    int w = diff_name_width(&t, "");
    diff_differs_print(out, dd, true, 0);
    diff_print_head(out, w);
    diff_print_rows(out, &t, "", w);
    diff_noise_note(out, 1, 1, check, thr);
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

/* ---- the comparison table: several runs a side, script results, compares ---- */

#define DIFF_SHAPE_ACCEPTED                                                                        \
    "accepted: runs of one workload on both sides, each with the same phases and jobs"

/* The files of the command line, loaded: side A's first (na of them), then B's. */
struct diff_input {
    size_t n, na;
    json_t *doc[SBIO_MAX_ARGS];
    enum diff_doc kind[SBIO_MAX_ARGS];
    const char *path[SBIO_MAX_ARGS];
};

/* One table: two rows, A's runs and B's, of one workload (or of one setting of two compares),
 * and the cells --threshold fired on. */
struct diff_cmp {
    const char *setting; /* NULL: the command line's files */
    struct sbio_table t;
    char name[2][64];
    json_t *files[2]; /* each side's file names (NULL for a compare's setting) */
    json_t *fired;
    struct diff_differs differs; /* the settings that differ between A's runs and B's */
};

static const char *diff_kind_name(enum diff_doc k)
{
    return k == DIFF_COMPARE  ? "compare"
           : k == DIFF_SURVEY ? "survey"
           : k == DIFF_SCRIPT ? "script"
                              : "run";
}

static void diff_input_free(struct diff_input *in)
{
    for (size_t i = 0; i < in->n; i++)
        json_decref(in->doc[i]);
    in->n = 0;
}

/* A compare result stands alone on its side, and never beside runs: 0, or -SBIO_EUSAGE after
 * one line on stderr. */
static int diff_check_kinds(const struct diff_input *in)
{
    for (size_t i = 1; i < in->n; i++) {
        bool one_a_side = in->kind[0] == DIFF_COMPARE || in->kind[0] == DIFF_SURVEY;
        if (in->kind[i] == in->kind[0] ||
            (!one_a_side && in->kind[i] != DIFF_COMPARE && in->kind[i] != DIFF_SURVEY))
            continue;
        sbio_err("diff: %s is a %s result but %s a %s result; accepted: run results "
                 "(sbio-result/1, sbio-script/1) on both sides, or one compare result "
                 "(sbio-compare/1) a side, or one survey (sbio-survey/1) a side",
                 in->path[0], diff_kind_name(in->kind[0]), in->path[i],
                 diff_kind_name(in->kind[i]));
        return -SBIO_EUSAGE;
    }
    if ((in->kind[0] == DIFF_COMPARE || in->kind[0] == DIFF_SURVEY) && in->n != 2) {
        sbio_err("diff: %zu %s results; accepted: one a side, sbio diff A.json B.json", in->n,
                 diff_kind_name(in->kind[0]));
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* Every file, loaded and checked before anything is printed. 0, or -SBIO_EUSAGE after one
 * line on stderr (nothing left loaded). */
static int diff_load_all(const struct sbio_diff_opts *opt, struct diff_input *in)
{
    in->n = 0;
    in->na = opt->diff_split < 0 ? 1 : (size_t)opt->diff_split;
    if (opt->nargs < 2 || in->na >= (size_t)opt->nargs) {
        sbio_err("diff takes two results, or two sides' runs parted by '--'; accepted: sbio "
                 "diff A.json B.json, or sbio diff A1.json A2.json ... -- B1.json B2.json ...");
        return -SBIO_EUSAGE;
    }
    for (int i = 0; i < opt->nargs; i++) {
        in->path[in->n] = opt->args[i];
        if (diff_load(opt->args[i], &in->doc[in->n], &in->kind[in->n])) {
            diff_input_free(in);
            return -SBIO_EUSAGE;
        }
        in->n++;
    }
    if (diff_check_kinds(in)) {
        diff_input_free(in);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* A phase's jobs, "readers, writer" (their total left out). */
static void diff_jobs_text(const struct sbio_table_phase *p, char *buf, size_t len)
{
    size_t l = 0, n = p->nb > 1 ? p->nb - 1 : p->nb;
    buf[0] = 0;
    for (size_t b = 0; b < n && l < len; b++)
        l += (size_t)snprintf(buf + l, len - l, "%s%s", b ? ", " : "", p->block[b]);
}

/* How doc's phases and jobs (sbio_table_shape) differ from ref's (the file refname), in words
 * that name refname, into buf; false when they do not. */
static bool diff_shape_differs(json_t *ref, const char *refname, json_t *doc, char *buf, size_t len)
{
    static struct sbio_table_phase p[SBIO_SCRIPT_MAX_PHASES], q[SBIO_SCRIPT_MAX_PHASES];
    size_t np, nq;
    bool rs = json_object_get(ref, "phases"), ds = json_object_get(doc, "phases");
    if (rs != ds) {
        snprintf(buf, len, "a %s's result, but %s is a %s's", ds ? "script" : "run", refname,
                 rs ? "script" : "run");
        return true;
    }
    if (sbio_table_shape(ref, p, SBIO_SCRIPT_MAX_PHASES, &np) ||
        sbio_table_shape(doc, q, SBIO_SCRIPT_MAX_PHASES, &nq)) {
        snprintf(buf, len, "no phase to compare");
        return true;
    }
    if (np != nq) {
        snprintf(buf, len, "%zu phase%s, but %s has %zu", nq, nq == 1 ? "" : "s", refname, np);
        return true;
    }
    for (size_t i = 0; i < np; i++) {
        bool same = !strcmp(p[i].name, q[i].name) && p[i].nb == q[i].nb;
        for (size_t b = 0; same && b < p[i].nb; b++)
            same = !strcmp(p[i].block[b], q[i].block[b]);
        if (same)
            continue;
        char jp[512], jq[512];
        diff_jobs_text(&p[i], jp, sizeof(jp));
        diff_jobs_text(&q[i], jq, sizeof(jq));
        /* A long message is cut, not wrong: the return value says so, and is not needed. */
        return snprintf(buf, len, "phase %zu is '%s' with jobs %s, but %s's is '%s' with jobs %s",
                        i + 1, q[i].name, jq, refname, p[i].name, jp) > 0;
    }
    return false;
}

/* Whether doc (called what) has ref's shape: 0, or -SBIO_EUSAGE after one line on stderr. */
static int diff_same_shape(json_t *ref, const char *refname, json_t *doc, const char *what)
{
    char how[1536];
    if (!diff_shape_differs(ref, refname, doc, how, sizeof(how)))
        return 0;
    sbio_err("diff: %s: %s; " DIFF_SHAPE_ACCEPTED, what, how);
    return -SBIO_EUSAGE;
}

/* The metrics of a compare (its "metrics") not yet in col[0..*n), added; false when there are
 * more than the table holds. Names this sbio does not know are left out. */
static bool diff_columns_of(json_t *cmp, size_t *col, size_t *n)
{
    json_t *v;
    size_t i;
    json_array_foreach(json_object_get(cmp, "metrics"), i, v)
    {
        int m = json_is_string(v) ? sbio_table_metric_index(json_string_value(v)) : -1;
        bool seen = m < 0;
        for (size_t k = 0; !seen && k < *n; k++)
            seen = col[k] == (size_t)m;
        if (seen)
            continue;
        if (*n == SBIO_TABLE_MAX_COLS)
            return false;
        col[(*n)++] = (size_t)m;
    }
    return true;
}

/* The table's columns: --metrics; else of two compares the union of theirs (A's first); else
 * (or when they name none) the default. 0 or -SBIO_EUSAGE after one line on stderr. */
static int diff_columns(const struct sbio_diff_opts *opt, const struct diff_input *in, size_t *col,
                        size_t *n)
{
    *n = 0;
    if (opt->metrics)
        return sbio_table_metrics_parse(opt->metrics, col, n) ? -SBIO_EUSAGE : 0;
    if (in->kind[0] == DIFF_COMPARE &&
        !(diff_columns_of(in->doc[0], col, n) && diff_columns_of(in->doc[1], col, n))) {
        sbio_err("diff: %s and %s have more than %d metrics together; accepted: --metrics=LIST "
                 "of at most %d to compare",
                 in->path[0], in->path[1], SBIO_TABLE_MAX_COLS, SBIO_TABLE_MAX_METRICS);
        return -SBIO_EUSAGE;
    }
    if (!*n)
        sbio_table_metrics_default(col, n);
    return 0;
}

/* How --threshold reads a metric: 1 a throughput (lower is worse), -1 a latency or a time
 * (higher is worse), 0 neither (CPU, util, share: never a gate). */
static int diff_metric_dir(const char *name)
{
    static const char *const rates[] = {"ops", "mib", "reads", "writes", "fsyncs", "rmws"};
    size_t l = strlen(name);
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
        if (!strcmp(name, rates[i]))
            return 1;
    if ((l > 4 && !strcmp(name + l - 4, ".mib")) || (l > 4 && !strcmp(name + l - 4, ".ops")))
        return 1;
    if (!strcmp(name, "time") || (name[0] == 'p' && isdigit((unsigned char)name[1])) ||
        strstr(name, ".p") || (l > 5 && !strcmp(name + l - 5, ".mean")))
        return -1;
    return 0;
}

/* --threshold on B's cell (phase ph, block b, column c) that the table shows: with a CI,
 * fired when the whole CI is past thr% in the worse direction (its bound nearest zero past
 * it), so that noise does not fire; without one (a side with 1 run), when the point
 * difference is. Fired: one line on stderr (where: the setting's "setting NAME: " or ""), the
 * cell appended to fired; 1. */
static int diff_gate_cell(const struct diff_cmp *d, size_t ph, size_t b, size_t c,
                          const char *where, double thr)
{
    const struct sbio_table *t = &d->t;
    const struct sbio_table_cell *e = sbio_table_cell(t, ph, b, 1, c);
    const char *name = sbio_table_metric_name(t->col[c]);
    int dir = diff_metric_dir(name);
    if (!dir || !sbio_table_shown(t, ph, b, c) || isnan(e->diff_pct) || e->ci == -ERANGE)
        return 0;
    bool ci = e->ci == 0;
    double bound = !ci ? e->diff_pct : dir > 0 ? e->hi : e->lo;
    if (dir > 0 ? !(bound < -thr) : !(bound > thr))
        return 0;
    char cell[256], range[96] = "";
    sbio_table_where(t, ph, b, c, cell, sizeof(cell));
    if (ci)
        snprintf(range, sizeof(range), " [%+.1f%%, %+.1f%%]", e->lo, e->hi);
    sbio_err("diff: %s%s: %+.1f%%%s in B against A: %s %s %+g%% (--threshold=%g)", where, cell,
             e->diff_pct, range,
             ci ? "the whole 95% CI" : "no CI (1 run on a side), the point difference",
             dir > 0 ? "below" : "above", dir > 0 ? -thr : thr, thr);
    json_array_append_new(
        d->fired, json_pack("{s:s,s:s,s:s,s:o,s:o,s:o}", "phase", t->ph[ph].name, "job",
                            t->ph[ph].block[b], "metric", name, "diff_pct",
                            isfinite(e->diff_pct) ? json_real(e->diff_pct) : json_null(),
                            "diff_ci95_pct", ci ? json_pack("[f,f]", e->lo, e->hi) : json_null(),
                            "bound_pct", isfinite(bound) ? json_real(bound) : json_null()));
    return 1;
}

/* --threshold over every cell of B's row; how many fired. */
static int diff_gate(const struct diff_cmp *d, const char *where, double thr)
{
    int n = 0;
    for (size_t ph = 0; ph < d->t.np; ph++)
        for (size_t b = 0; b < d->t.ph[ph].nb; b++)
            for (size_t c = 0; c < d->t.ncol; c++)
                n += diff_gate_cell(d, ph, b, c, where, thr);
    return n;
}

/* Side s's rows: the files docs[0..n), each a run (numbered from 1). */
static void diff_add_docs(struct sbio_table *t, size_t s, json_t *const *docs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sbio_table_tried(t, s);
        sbio_table_add(t, s, (unsigned)i + 1, docs[i]);
    }
}

/* A compare's run that was measured: its document, or NULL (failed, interrupted). */
static json_t *diff_run_ok(json_t *run)
{
    const char *st = json_string_value(json_object_get(run, "status"));
    json_t *doc = json_object_get(run, "result");
    return st && !strcmp(st, "ok") && json_is_object(doc) ? doc : NULL;
}

/* Side s's rows: a compare setting's runs; every run counts as tried, the measured go in. */
static void diff_add_runs(struct sbio_table *t, size_t s, json_t *runs)
{
    json_t *r;
    size_t i;
    json_array_foreach(runs, i, r)
    {
        json_t *doc = diff_run_ok(r);
        sbio_table_tried(t, s);
        if (doc)
            sbio_table_add(t, s, (unsigned)json_integer_value(json_object_get(r, "repeat")), doc);
    }
}

/* d's table of ref's shape over the columns col[0..ncol), for at most maxrun runs a side.
 * 0 or -ENOMEM (after a line on stderr). */
static int diff_cmp_init(struct diff_cmp *d, json_t *ref, size_t maxrun, const size_t *col,
                         size_t ncol)
{
    static struct sbio_table_phase ph[SBIO_SCRIPT_MAX_PHASES];
    size_t np = 0;
    sbio_table_shape(ref, ph, SBIO_SCRIPT_MAX_PHASES, &np);
    d->fired = json_array();
    if (!d->fired || sbio_table_init(&d->t, 2, maxrun, ph, np, col, ncol)) {
        sbio_err("diff: out of memory for the table");
        return -ENOMEM;
    }
    return 0;
}

static void diff_cmp_free(struct diff_cmp *d)
{
    sbio_table_free(&d->t);
    json_decref(d->fired);
    json_decref(d->files[0]);
    json_decref(d->files[1]);
    json_decref(d->differs.rows);
}

/* The rows' names: "A (3 runs)", "B (1 run)", from the runs each side has. */
static void diff_cmp_names(struct diff_cmp *d)
{
    for (size_t s = 0; s < 2; s++)
        snprintf(d->name[s], sizeof(d->name[s]), "%s (%zu run%s)", s ? "B" : "A", d->t.nrun[s],
                 d->t.nrun[s] == 1 ? "" : "s");
}

/* The table, then --threshold's lines; how many cells fired. */
static int diff_cmp_print(struct diff_cmp *d, FILE *out, const char *where, bool check, double thr)
{
    const char *names[2] = {d->name[0], d->name[1]};
    diff_differs_print(out, &d->differs, false, 0);
    sbio_table_print(&d->t, out, names);
    diff_noise_note(out, d->t.nrun[0], d->t.nrun[1], check, thr);
    fflush(out); /* the table before the --threshold lines on stderr */
    return check ? diff_gate(d, where, thr) : 0;
}

/* One side's files in the header: "3 runs (rndrd, 1 thread, ...): a1.json a2.json a3.json". */
static void diff_side_line(FILE *out, const struct diff_input *in, size_t from, size_t n)
{
    char what[1024];
    if (in->kind[from] == DIFF_SCRIPT) {
        const char *s = json_string_value(json_object_get(in->doc[from], "script"));
        snprintf(what, sizeof(what), "script %s",
                 s ? (strrchr(s, '/') ? strrchr(s, '/') + 1 : s) : "?");
    } else {
        diff_run_config(what, sizeof(what), in->doc[from]);
    }
    fprintf(out, "%zu run%s (%s):", n, n == 1 ? "" : "s", what);
    for (size_t i = 0; i < n; i++)
        fprintf(out, " %s", in->path[from + i]);
    fputc('\n', out);
}

/* The files of both sides in one table: every file must have A's first one's shape. 0 with d
 * made, or -SBIO_EUSAGE / -ENOMEM after one line on stderr. */
static int diff_sides_table(struct diff_cmp *d, const struct diff_input *in, const size_t *col,
                            size_t ncol)
{
    size_t nb = in->n - in->na;
    for (size_t i = 1; i < in->n; i++)
        if (diff_same_shape(in->doc[0], in->path[0], in->doc[i], in->path[i]))
            return -SBIO_EUSAGE;
    if (diff_cmp_init(d, in->doc[0], in->na > nb ? in->na : nb, col, ncol))
        return -ENOMEM;
    diff_add_docs(&d->t, 0, in->doc, in->na);
    diff_add_docs(&d->t, 1, in->doc + in->na, nb);
    sbio_table_compute(&d->t);
    diff_differs_read(&d->differs, in->doc, in->na, in->doc + in->na, nb);
    diff_cmp_names(d);
    for (size_t s = 0; s < 2; s++) {
        d->files[s] = json_array();
        for (size_t i = s ? in->na : 0; i < (s ? in->n : in->na); i++)
            json_array_append_new(d->files[s], json_string(in->path[i]));
    }
    return 0;
}

/* The runs of a compare's setting that were measured: how many, and the first's document. */
static size_t diff_runs_ok(json_t *set, json_t **first)
{
    json_t *r;
    size_t i, n = 0;
    json_array_foreach(json_object_get(set, "runs"), i, r)
    {
        json_t *doc = diff_run_ok(r);
        if (doc && !n++ && first)
            *first = doc;
    }
    return n;
}

/* Every measured run of a setting (side side of the files in) against ref's shape. 0 or
 * -SBIO_EUSAGE after one line on stderr. */
static int diff_setting_shape(const struct diff_input *in, int side, json_t *set, json_t *ref,
                              const char *refname)
{
    const char *name = json_string_value(json_object_get(set, "name"));
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(set, "runs"), i, r)
    {
        json_t *doc = diff_run_ok(r);
        char what[1024];
        snprintf(what, sizeof(what), "%s, setting %s, run %zu", in->path[side], name, i + 1);
        if (doc && diff_same_shape(ref, refname, doc, what))
            return -SBIO_EUSAGE;
    }
    return 0;
}

/* Setting sa of A against its namesake sb of B, when either has a measured run: d made
 * (0), 1 when neither has one, -SBIO_EUSAGE when their runs' shapes differ, -ENOMEM. */
static int diff_setting_table(struct diff_cmp *d, const struct diff_input *in, json_t *sa,
                              json_t *sb, const size_t *col, size_t ncol)
{
    json_t *ref = NULL, *ra = json_object_get(sa, "runs"), *rb = json_object_get(sb, "runs");
    d->setting = json_string_value(json_object_get(sa, "name"));
    int side = diff_runs_ok(sa, &ref) ? 0 : 1;
    if (!ref && !diff_runs_ok(sb, &ref))
        return 1;
    char refname[1024];
    snprintf(refname, sizeof(refname), "%s's first measured run", in->path[side]);
    if (diff_setting_shape(in, 0, sa, ref, refname) || diff_setting_shape(in, 1, sb, ref, refname))
        return -SBIO_EUSAGE;
    size_t na = json_array_size(ra), nb = json_array_size(rb);
    if (diff_cmp_init(d, ref, na > nb ? na : nb, col, ncol))
        return -ENOMEM;
    diff_add_runs(&d->t, 0, ra);
    diff_add_runs(&d->t, 1, rb);
    sbio_table_compute(&d->t);
    diff_cmp_names(d);
    json_t **docs = calloc(na + nb + 1, sizeof(*docs));
    size_t ka = 0, kb = 0;
    for (size_t i = 0; docs && i < na; i++)
        if ((docs[ka] = diff_run_ok(json_array_get(ra, i))))
            ka++;
    for (size_t i = 0; docs && i < nb; i++)
        if ((docs[ka + kb] = diff_run_ok(json_array_get(rb, i))))
            kb++;
    if (!docs)
        return -ENOMEM;
    diff_differs_read(&d->differs, docs, ka, docs + ka, kb);
    free(docs);
    return 0;
}

/* A table in the JSON: its setting (null for the command line's files), each side's name,
 * files and figures (sbio_table_json), the statistics, and the cells --threshold fired on
 * (null when it was not given, and for the diff of two run results, whose gate is the rows'). */
static json_t *diff_cmp_json(const struct diff_cmp *d, bool gated)
{
    json_t *sides = json_array();
    for (size_t s = 0; s < 2; s++)
        json_array_append_new(sides, json_pack("{s:s,s:O,s:o}", "name", d->name[s], "files",
                                               d->files[s] ? d->files[s] : json_null(), "phases",
                                               sbio_table_json(&d->t, s)));
    return json_pack("{s:o,s:O,s:o,s:o,s:O}", "setting",
                     d->setting ? json_string(d->setting) : json_null(), "settings_differ",
                     d->differs.rows ? d->differs.rows : json_null(), "sides", sides, "statistics",
                     sbio_table_stats_json(&d->t), "threshold_fired",
                     gated ? d->fired : json_null());
}

static int diff_write_doc(const struct sbio_diff_opts *opt, int fd, json_t *doc);

/* -o FILE: the sbio-diff/1 document of the tables d[0..n) over the columns col[0..ncol) (and,
 * of two compares, the settings not compared: skipped, else NULL). 0, or -SBIO_EFAILED after
 * one line on stderr. */
static int diff_write(const struct sbio_diff_opts *opt, int fd, const struct diff_cmp *d, size_t n,
                      const size_t *col, size_t ncol, json_t *skipped, bool gated)
{
    json_t *doc = json_object(), *argv = json_array(), *mets = json_array(), *cmps = json_array();
    for (int i = 0; i < opt->argc; i++)
        json_array_append_new(argv, json_string(opt->argv[i]));
    for (size_t c = 0; c < ncol; c++)
        json_array_append_new(mets, json_string(sbio_table_metric_name(col[c])));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(cmps, diff_cmp_json(&d[i], gated));
    json_object_set_new(doc, "schema", json_string("sbio-diff/1"));
    json_object_set_new(doc, "sbio_version", json_string(SBIO_VERSION));
    json_object_set_new(doc, "command_line", argv);
    json_object_set_new(doc, "kind", json_string(skipped ? "compares" : "runs"));
    json_object_set_new(doc, "metrics", mets);
    json_object_set_new(doc, "threshold_pct",
                        opt->threshold_given ? json_integer((json_int_t)opt->threshold)
                                             : json_null());
    json_object_set_new(doc, "comparisons", cmps);
    json_object_set_new(doc, "not_compared", skipped ? json_incref(skipped) : json_null());
    return diff_write_doc(opt, fd, doc);
}

/* doc (its reference taken) into -o's file, opened before anything was computed. 0, or
 * -SBIO_EFAILED after one line on stderr. */
static int diff_write_doc(const struct sbio_diff_opts *opt, int fd, json_t *doc)
{
    /* The file was opened (not truncated) before anything was computed: emptied now. */
    struct stat st;
    int err = 0;
    if (!fstat(fd, &st) && S_ISREG(st.st_mode) && ftruncate(fd, 0))
        err = errno;
    int dfd = err ? -1 : dup(fd);
    FILE *f = dfd >= 0 ? sbio_util_stream(dfd, "a", &err) : NULL;
    if (!f && !err)
        err = errno;
    if (!f && dfd >= 0)
        close(dfd);
    if (f && json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) && !err)
        err = EIO;
    if (f && fclose(f) && !err)
        err = EIO;
    if (err)
        sbio_err("diff: %s: write: %s", opt->output, strerror(err));
    json_decref(doc);
    return err ? -SBIO_EFAILED : 0;
}

/* Runs on both sides (several, or scripts', or with --metrics): the table of A's runs against
 * B's; -SBIO_EFAILED when --threshold fired or -o could not be written. */
static int diff_sides(const struct sbio_diff_opts *opt, int fd, FILE *out,
                      const struct diff_input *in, bool check, double thr)
{
    size_t col[SBIO_TABLE_MAX_COLS], ncol;
    struct diff_cmp d = {0};
    int rc = diff_columns(opt, in, col, &ncol);
    if (!rc)
        rc = diff_sides_table(&d, in, col, ncol);
    if (!rc) {
        fprintf(out, "sbio diff: A = ");
        diff_side_line(out, in, 0, in->na);
        fprintf(out, "           B = ");
        diff_side_line(out, in, in->na, in->n - in->na);
        int fired = diff_cmp_print(&d, out, "", check, thr);
        rc = fd >= 0 ? diff_write(opt, fd, &d, 1, col, ncol, NULL, check) : 0;
        rc = rc ? rc : fired ? -SBIO_EFAILED : 0;
    }
    diff_cmp_free(&d);
    return rc;
}

/* Of two compares, the settings of A in B too, each a table (d[*nd]), and in skipped those
 * that are not compared. 0, or -SBIO_EUSAGE / -ENOMEM after one line on stderr. */
static int diff_compare_tables(const struct diff_input *in, struct diff_cmp *d, size_t *nd,
                               json_t *skipped, const size_t *col, size_t ncol)
{
    json_t *s;
    size_t i;
    *nd = 0;
    json_array_foreach(json_object_get(in->doc[0], "settings"), i, s)
    {
        json_t *name = json_object_get(s, "name");
        json_t *other =
            json_is_string(name) ? diff_setting(in->doc[1], json_string_value(name)) : NULL;
        int rc = other ? diff_setting_table(&d[*nd], in, s, other, col, ncol) : 1;
        if (rc < 0)
            return rc;
        if (rc)
            json_array_append(json_object_get(skipped, other ? "no_runs" : "only_in_a"), name);
        else
            (*nd)++;
    }
    json_array_foreach(json_object_get(in->doc[1], "settings"), i, s)
    {
        json_t *name = json_object_get(s, "name");
        if (json_is_string(name) && !diff_setting(in->doc[0], json_string_value(name)))
            json_array_append(json_object_get(skipped, "only_in_b"), name);
    }
    return 0;
}

/* The settings not compared, one line each. */
static void diff_print_skipped(FILE *out, json_t *skipped)
{
    static const char *const why[][2] = {{"only_in_a", "only in A"},
                                         {"only_in_b", "only in B"},
                                         {"no_runs", "no measured run in A or in B"}};
    bool first = true;
    for (size_t k = 0; k < sizeof(why) / sizeof(why[0]); k++) {
        json_t *v;
        size_t i;
        json_array_foreach(json_object_get(skipped, why[k][0]), i, v)
        {
            fprintf(out, "%ssetting %s: %s, not compared\n", first ? "\n" : "",
                    json_string_value(v), why[k][1]);
            first = false;
        }
    }
}

/* Two compares: per setting of both, the table of A's runs of it against B's (from the runs'
 * documents); -SBIO_EFAILED when --threshold fired or -o could not be written. */
static int diff_compares(const struct sbio_diff_opts *opt, int fd, FILE *out,
                         const struct diff_input *in, bool check, double thr)
{
    size_t col[SBIO_TABLE_MAX_COLS], ncol, nd = 0;
    struct diff_cmp *d =
        calloc(json_array_size(json_object_get(in->doc[0], "settings")) + 1, sizeof(*d));
    json_t *skipped = json_pack("{s:[],s:[],s:[]}", "only_in_a", "only_in_b", "no_runs");
    int rc = d && skipped ? diff_columns(opt, in, col, &ncol) : -ENOMEM;
    if (!rc)
        rc = diff_compare_tables(in, d, &nd, skipped, col, ncol);
    if (!rc) {
        char ca[1024], cb[1024];
        int fired = 0;
        diff_compare_config(ca, sizeof(ca), in->doc[0]);
        diff_compare_config(cb, sizeof(cb), in->doc[1]);
        fprintf(out, "sbio diff: A = %s (%s) vs B = %s (%s)\n", in->path[0], ca, in->path[1], cb);
        for (size_t i = 0; i < nd; i++) {
            char where[600];
            fprintf(out, "\nSetting %s\n", d[i].setting);
            snprintf(where, sizeof(where), "setting %s: ", d[i].setting);
            fired += diff_cmp_print(&d[i], out, where, check, thr);
        }
        diff_print_skipped(out, skipped);
        fflush(out);
        rc = fd >= 0 ? diff_write(opt, fd, d, nd, col, ncol, skipped, check) : 0;
        rc = rc ? rc : fired ? -SBIO_EFAILED : 0;
    }
    for (size_t i = 0; d && i <= nd; i++)
        diff_cmp_free(&d[i]);
    free(d);
    json_decref(skipped);
    return rc == -ENOMEM ? -SBIO_EFAILED : rc;
}

/* One run result a side: the rows of every metric, with the settings that differ; -o writes
 * the table of the default columns as well. */
static int diff_pair(const struct sbio_diff_opts *opt, int fd, FILE *out,
                     const struct diff_input *in, bool check, double thr)
{
    char ca[1024], cb[1024];
    struct diff_cmp d = {0};
    size_t col[SBIO_TABLE_MAX_COLS], ncol;
    sbio_table_metrics_default(col, &ncol);
    int rc = opt->output ? diff_sides_table(&d, in, col, ncol) : 0;
    if (!rc) {
        diff_run_config(ca, sizeof(ca), in->doc[0]);
        diff_run_config(cb, sizeof(cb), in->doc[1]);
        fprintf(out, "sbio diff: A = %s (%s) vs B = %s (%s)\n", in->path[0], ca, in->path[1], cb);
        if (!d.differs.rows)
            diff_differs_read(&d.differs, in->doc, 1, in->doc + 1, 1);
        int worse = diff_runs(out, in->doc[0], in->doc[1], &d.differs, check, thr);
        rc = fd >= 0 ? diff_write(opt, fd, &d, 1, col, ncol, NULL, false) : 0;
        rc = rc ? rc : worse;
    }
    diff_cmp_free(&d);
    return rc == -ENOMEM ? -SBIO_EFAILED : rc;
}

/* "loop0, Linux 6.1, box": what a survey ran on. */
static void diff_survey_what(json_t *doc, char *buf, size_t len)
{
    json_t *env = json_object_get(doc, "environment");
    const char *dev = json_string_value(json_object_get(doc, "device"));
    const char *k = json_string_value(json_object_get(env, "kernel"));
    const char *h = json_string_value(json_object_get(env, "hostname"));
    snprintf(buf, len, "%s, Linux %s, %s", dev ? dev : "?", k ? k : "?", h ? h : "?");
}

/* --threshold on the difference of two surveys: a cell fires when B is worse than A past
 * thr% over its whole 95% CI (without one, by its point change). One line on stderr each;
 * how many fired. */
static int diff_survey_gate(const struct sbio_survey_diff *d, double thr)
{
    int n = 0;
    for (size_t r = 0; r < d->nrows; r++)
        for (size_t k = 0; k < d->ns; k++) {
            const struct sbio_survey_change *c = &d->c[r][k];
            const struct sbio_survey_row *row = &d->a->row[d->ra[r]];
            bool ci = !isnan(c->lo);
            double bound = !ci ? c->pct : row->better > 0 ? c->hi : c->lo;
            if (isnan(bound) || (row->better > 0 ? !(bound < -thr) : !(bound > thr)))
                continue;
            char label[160];
            sbio_survey_row_label(row, label, sizeof(label));
            sbio_err("diff: %s, %s, %s: %+.1f%% in B against A: %s %s %+g%% (--threshold=%g)",
                     row->workload, label, d->a->sched[d->sa[k]], c->pct,
                     ci ? "the whole 95% CI"
                        : "no CI (a side of 1 run, or of zeros), the point difference",
                     row->better > 0 ? "below" : "above", row->better > 0 ? -thr : thr, thr);
            n++;
        }
    return n;
}

/* The rows and schedulers of one survey the other lacks, into skipped and one line each. */
static json_t *diff_survey_skipped(const struct sbio_survey_diff *d, FILE *out)
{
    json_t *sk = json_pack("{s:[],s:[],s:[],s:[]}", "rows_only_in_a", "rows_only_in_b",
                           "schedulers_only_in_a", "schedulers_only_in_b");
    const struct sbio_survey_matrix *m[2] = {d->a, d->b};
    for (int side = 0; side < 2; side++) {
        for (size_t r = 0; r < m[side]->nrows; r++) {
            bool found = false;
            for (size_t i = 0; i < d->nrows && !found; i++)
                found = (side ? d->rb[i] : d->ra[i]) == r;
            if (found)
                continue;
            char label[400];
            sbio_survey_row_label(&m[side]->row[r], label, sizeof(label));
            fprintf(out, "row %s, %s: only in %c, not compared\n", m[side]->row[r].workload, label,
                    side ? 'B' : 'A');
            json_array_append_new(json_object_get(sk, side ? "rows_only_in_b" : "rows_only_in_a"),
                                  json_pack("{s:s,s:s}", "workload", m[side]->row[r].workload,
                                            "metric",
                                            sbio_table_metric_name(m[side]->row[r].metric)));
        }
        for (size_t s = 0; s < m[side]->ns; s++) {
            const char *name = m[side]->sched[s];
            bool found = false;
            for (size_t k = 0; k < m[!side]->ns && !found; k++)
                found = !strcmp(m[!side]->sched[k], name);
            if (found)
                continue;
            fprintf(out, "scheduler %s: only in %c, not compared\n", name, side ? 'B' : 'A');
            json_array_append_new(
                json_object_get(sk, side ? "schedulers_only_in_b" : "schedulers_only_in_a"),
                json_string(name));
        }
    }
    return sk;
}

/* Whether a survey's document has a workload of that name (the first len bytes of name). */
static bool diff_survey_has(json_t *doc, const char *name, size_t len)
{
    json_t *w;
    size_t i;
    json_array_foreach(json_object_get(doc, "workloads"), i, w)
    {
        const char *n = json_string_value(json_object_get(w, "name"));
        if (n && strlen(n) == len && !strncmp(n, name, len))
            return true;
    }
    return false;
}

/* Of the workloads' settings that differ, those of workloads both surveys ran: the others'
 * rows are named "only in A/B" after the table. */
static void diff_survey_common(struct diff_differs *d, const struct diff_input *in)
{
    for (size_t i = json_array_size(d->rows); i-- > 0;) {
        json_t *r = json_array_get(d->rows, i);
        const char *kind = json_string_value(json_object_get(r, "kind"));
        const char *name = json_string_value(json_object_get(r, "name"));
        size_t len = name ? strcspn(name, " ") : 0;
        if (kind && !strcmp(kind, diff_fact_kind_name[DIFF_FACT_WORKLOAD]) &&
            (!diff_survey_has(in->doc[0], name, len) || !diff_survey_has(in->doc[1], name, len)))
            json_array_remove(d->rows, i);
    }
}

/* The matrices of two surveys, read from their files (untrusted) and computed again. 0, or
 * -SBIO_EUSAGE after one line on stderr. */
static int diff_survey_load(const struct diff_input *in, struct sbio_survey_matrix *m)
{
    for (int side = 0; side < 2; side++) {
        char err[256];
        int rc = sbio_survey_matrix_from_json(in->doc[side], &m[side], err, sizeof(err));
        if (rc == -EINVAL)
            sbio_err("diff: %s: %s; " DIFF_ACCEPTED, in->path[side], err);
        if (rc)
            return rc == -EINVAL ? -SBIO_EUSAGE : rc;
    }
    return 0;
}

/* Two surveys: B's change from A per cell both have, in the matrix's layout, within 72
 * columns; -SBIO_EFAILED when --threshold fired or -o could not be written. */
static int diff_surveys(const struct sbio_diff_opts *opt, int fd, FILE *out,
                        const struct diff_input *in, bool check, double thr)
{
    struct sbio_survey_matrix *m = calloc(2, sizeof(*m));
    struct sbio_survey_diff *d = calloc(1, sizeof(*d));
    int rc = m && d ? diff_survey_load(in, m) : -ENOMEM;
    if (!rc && sbio_survey_diff_compute(&m[0], &m[1], d)) {
        sbio_err("diff: %s and %s share no row (workload, job and metric) or no scheduler: "
                 "nothing to compare",
                 in->path[0], in->path[1]);
        rc = -SBIO_EUSAGE;
    }
    if (!rc) {
        char wa[400], wb[400];
        diff_survey_what(in->doc[0], wa, sizeof(wa));
        diff_survey_what(in->doc[1], wb, sizeof(wb));
        fprintf(out, "sbio diff of two surveys:\n  A = %s (%s)\n  B = %s (%s)\n", in->path[0], wa,
                in->path[1], wb);
        /* The machine's and the device's settings each survey recorded (its first run's). */
        struct diff_differs dd;
        diff_differs_read(&dd, &in->doc[0], 1, &in->doc[1], 1);
        diff_survey_common(&dd, in);
        diff_differs_print(out, &dd, false, SBIO_SURVEY_WIDTH);
        sbio_survey_diff_print(d, true, out);
        fputc('\n', out);
        json_t *skipped = diff_survey_skipped(d, out);
        fflush(out);
        int fired = check ? diff_survey_gate(d, thr) : 0;
        if (fd >= 0) {
            json_t *doc = json_object(), *argv = json_array();
            for (int i = 0; i < opt->argc; i++)
                json_array_append_new(argv, json_string(opt->argv[i]));
            json_object_set_new(doc, "schema", json_string("sbio-diff/1"));
            json_object_set_new(doc, "sbio_version", json_string(SBIO_VERSION));
            json_object_set_new(doc, "command_line", argv);
            json_object_set_new(doc, "kind", json_string("surveys"));
            json_object_set_new(doc, "threshold_pct",
                                opt->threshold_given ? json_integer((json_int_t)opt->threshold)
                                                     : json_null());
            json_object_set_new(doc, "differs", json_incref(dd.rows));
            json_object_set_new(doc, "surveys", sbio_survey_diff_json(d));
            json_object_set_new(doc, "not_compared", json_incref(skipped));
            rc = diff_write_doc(opt, fd, doc);
        }
        json_decref(skipped);
        json_decref(dd.rows);
        rc = rc ? rc : fired ? -SBIO_EFAILED : 0;
    }
    if (m) {
        sbio_survey_matrix_free(&m[0]);
        sbio_survey_matrix_free(&m[1]);
    }
    free(m);
    free(d);
    return rc;
}

/* -o FILE, opened before anything is computed or printed (sbio_util_open_output: no planted
 * link, no file of another user's in a sticky folder) and emptied only when the document is
 * written: a path that cannot be written is one line and nothing else. *made when the file
 * was not there before (removed again if the input turns out bad). The descriptor, or
 * -SBIO_EUSAGE after one line on stderr. */
static int diff_open_output(const struct sbio_diff_opts *opt, bool *made)
{
    struct stat st;
    char why[512];
    *made = lstat(opt->output, &st) != 0;
    int fd = sbio_util_open_output(AT_FDCWD, opt->output, SBIO_OUTPUT_APPEND, why, sizeof(why));
    if (fd >= 0)
        return fd;
    sbio_err("diff: --output %s: %s", opt->output, why);
    return -SBIO_EUSAGE;
}

int sbio_diff(const struct sbio_diff_opts *opt, FILE *out)
{
    struct diff_input in;
    bool made = false;
    int fd = -1, rc = diff_load_all(opt, &in);
    if (rc)
        return rc;
    if (opt->output && (fd = diff_open_output(opt, &made)) < 0) {
        diff_input_free(&in);
        return fd;
    }
    bool check = opt->threshold_given;
    double thr = (double)opt->threshold;
    if (in.kind[0] == DIFF_SURVEY)
        rc = diff_surveys(opt, fd, out, &in, check, thr);
    else if (in.kind[0] == DIFF_COMPARE)
        rc = diff_compares(opt, fd, out, &in, check, thr);
    else if (in.n == 2 && in.na == 1 && in.kind[0] == DIFF_RUN && in.kind[1] == DIFF_RUN &&
             !opt->metrics)
        rc = diff_pair(opt, fd, out, &in, check, thr);
    else
        rc = diff_sides(opt, fd, out, &in, check, thr);
    diff_input_free(&in);
    if (fd >= 0) {
        if (rc == -SBIO_EUSAGE && made)
            unlink(opt->output); /* bad input leaves nothing behind */
        close(fd);
    }
    return rc == -ENOMEM ? -SBIO_EFAILED : rc;
}
