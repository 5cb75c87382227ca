/* Unit tests for sbio diff (src/analysis/diff.c) on crafted JSON documents: minimal run results
 * (sbio-result/1) and compare results (sbio-compare/1) holding just the fields diff reads,
 * written to a mkdtemp folder, diffed through sbio_diff() with a configuration parsed from
 * a real command line (so --threshold is "given" exactly as on the command line), its output
 * and stderr written to temporary files. Checked: the Δ% printed per row, without a mark
 * (better or worse: one run a side cannot tell a change from noise, and a line says so and
 * how many runs can), the settings that differ listed before the figures, zero baselines
 * ("n/a", never a crash; 0 vs 0 is 0.0%), metrics missing on one side ("missing"), an
 * operation type on one side only, compare settings matched by name and those on one side
 * only, the --threshold result around P (-SBIO_EFAILED; 0 when P is not given), and bad
 * inputs (-SBIO_EUSAGE, one line on stderr, nothing written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "helpers.h"
#include "options.h"
#include "report.h"
#include "util.h"

static char g_dir[64];

/* ---- files ---- */

static const char *path_of(const char *name)
{
    static char buf[32][256]; /* a ring: a test holds a few paths at once */
    static int k;
    char *p = buf[k++ % 32];
    snprintf(p, 256, "%s/%s", g_dir, name);
    return p;
}

static const char *write_text(const char *name, const char *text)
{
    const char *p = path_of(name);
    write_file(p, text);
    return p;
}

static const char *write_doc(const char *name, json_t *doc)
{
    const char *p = path_of(name);
    assert_int_equal(json_dump_file(doc, p, JSON_INDENT(1)), 0);
    json_decref(doc);
    return p;
}

/* ---- documents ---- */

/* Set (or with v NULL, delete) the value at a '/'-separated path, making objects on the
 * way; '/' because percentile keys contain dots. Steals v. */
static void jset(json_t *doc, const char *path, json_t *v)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    char *last = strrchr(buf, '/');
    json_t *cur = doc;
    if (last) {
        *last = 0;
        char *save = NULL;
        for (char *k = strtok_r(buf, "/", &save); k; k = strtok_r(NULL, "/", &save)) {
            json_t *next = json_is_array(cur) ? json_array_get(cur, strtoul(k, NULL, 10))
                                              : json_object_get(cur, k);
            if (!next) {
                next = json_object();
                json_object_set_new(cur, k, next);
            }
            cur = next;
        }
    }
    const char *key = last ? last + 1 : buf;
    if (v)
        json_object_set_new(cur, key, v);
    else
        json_object_del(cur, key);
}

static void jnum(json_t *doc, const char *path, double v)
{
    jset(doc, path, json_real(v));
}

static json_t *op_json(double ops, double ops_s, double mib_s, double lat)
{
    return json_pack("{s:f,s:f,s:f,s:{s:f,s:f,s:f,s:{s:f,s:f,s:f,s:f}}}", "ops", ops, "ops_per_s",
                     ops_s, "mib_per_s", mib_s, "latency", "count", ops, "mean_ns", lat, "max_ns",
                     lat * 50, "percentiles_ns", "50", lat * 0.9, "95", lat * 2, "99", lat * 4,
                     "99.9", lat * 10);
}

/* A run result: rndrw, 4 threads, 16 KiB blocks; 10 000 ops in 10 s (1000 ops/s), reads
 * 600/s at 1 us mean, writes 400/s at 10 us mean, CPU 10 + 20 %, device vda 50 % busy. */
static json_t *run_doc(void)
{
    json_t *d =
        json_pack("{s:s,s:{s:s,s:i,s:i,s:s,s:i},s:{s:f,s:i,s:{},s:{s:f,s:f},s:[{s:s,s:f}]}}",
                  "schema", "sbio-result/1", "config", "file_test_mode", "rndrw", "threads", 4,
                  "block_size_bytes", 16384, "ioengine", "sync", "rate_ops_per_s", 0, "result",
                  "elapsed_s", 10.0, "ops", 10000, "op_types", "cpu", "user_pct", 10.0,
                  "system_pct", 20.0, "devices", "name", "vda", "util_pct", 50.0);
    assert_non_null(d);
    json_t *ot = json_object_get(json_object_get(d, "result"), "op_types");
    json_object_set_new(ot, "read", op_json(6000, 600, 9.375, 1000));
    json_object_set_new(ot, "write", op_json(4000, 400, 6.25, 10000));
    json_object_set_new(ot, "fsync", op_json(0, 0, 0, 0));
    return d;
}

static json_t *compare_doc(void)
{
    json_t *d = json_pack("{s:s,s:[{s:s,s:[s,s]}],s:i,s:s,s:b,s:[]}", "schema", "sbio-compare/1",
                          "axes", "key", "scheduler", "values", "none", "bfq", "repeat", 2, "order",
                          "interleaved", "interrupted", 0, "settings");
    assert_non_null(d);
    return d;
}

/* A run result whose total is ops ops/s (the rest run_doc's). */
static json_t *run_ops(double ops)
{
    json_t *d = run_doc();
    jnum(d, "result/ops", ops * 10);
    return d;
}

/* A setting of a compare: its runs' documents docs[0..n) (stolen; NULL: a run that failed),
 * numbered as repeats from 1. */
static void add_setting(json_t *cmp, const char *name, json_t *const *docs, size_t n)
{
    json_t *runs = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(runs, json_pack("{s:I,s:s,s:o}", "repeat", (json_int_t)i + 1,
                                              "status", docs[i] ? "ok" : "failed", "result",
                                              docs[i] ? docs[i] : json_null()));
    json_array_append_new(json_object_get(cmp, "settings"),
                          json_pack("{s:s,s:{},s:o}", "name", name, "values", "runs", runs));
}

/* A script's result of one phase "mixed" with jobs names[0..n) (their total after them when
 * n > 1), job j's total ops/s ops[j]. */
static json_t *script_doc(const char *const *names, const double *ops, size_t n)
{
    json_t *jobs = json_array(), *shares = json_array();
    double sum = 0;
    for (size_t j = 0; j < n; j++) {
        json_array_append_new(jobs,
                              json_pack("{s:s,s:o}", "name", names[j], "result", run_ops(ops[j])));
        json_array_append_new(shares, json_pack("{s:s}", "name", names[j]));
        sum += ops[j];
    }
    json_t *ph =
        json_pack("{s:s,s:o,s:{s:o}}", "name", "mixed", "jobs", jobs, "shares", "jobs", shares);
    if (n > 1)
        json_object_set_new(ph, "total", run_ops(sum));
    json_t *d = json_pack("{s:s,s:s,s:[o]}", "schema", "sbio-script/1", "script", "/w/mixed.lua",
                          "phases", ph);
    assert_non_null(d);
    return d;
}

/* ---- running diff with captured output ---- */

struct result {
    int rc;
    char out[65536];
    char err[4096];
};

/* sbio diff A B [--threshold=thr] (thr NULL: not given). */
static void run_diff(struct result *r, const char *a, const char *b, const char *thr)
{
    char opt[64];
    char *argv[] = {"sbio", "diff", (char *)a, (char *)b, opt, NULL};
    int argc = 4;
    if (thr) {
        snprintf(opt, sizeof(opt), "--threshold=%s", thr);
        argc = 5;
    }
    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    argv[argc] = NULL;
    assert_int_equal(sbio_options_parse(&cfg, argc, argv), 0);
    assert_int_equal(sbio_options_validate(&cfg, 1), 0);

    struct capture co, ce;
    cap_begin_fd(&co, STDOUT_FILENO);
    cap_begin(&ce);
    r->rc = sbio_diff(TDIFF(&cfg), stdout);
    fflush(stdout);
    cap_end(&ce, r->err, sizeof(r->err));
    cap_end(&co, r->out, sizeof(r->out));
}

/* sbio diff ARGS… (NULL-terminated): the command line parsed and checked as main does; a
 * refused one is r->rc -SBIO_EUSAGE with its message in r->err, as sbio would exit 2. */
static void run_diffv(struct result *r, const char *const *args)
{
    char *argv[40] = {"sbio", "diff"};
    int argc = 2;
    while (*args && argc < 39)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;
    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    struct capture co, ce;
    cap_begin_fd(&co, STDOUT_FILENO);
    cap_begin(&ce);
    if (sbio_options_parse(&cfg, argc, argv) || sbio_options_validate(&cfg, 1))
        r->rc = -SBIO_EUSAGE;
    else
        r->rc = sbio_diff(TDIFF(&cfg), stdout);
    fflush(stdout);
    cap_end(&ce, r->err, sizeof(r->err));
    cap_end(&co, r->out, sizeof(r->out));
}
#define DIFF(r, ...) run_diffv((r), (const char *const[]){__VA_ARGS__, NULL})

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The row whose metric is name (at a line start, followed by two spaces) in text: its Δ%
 * and mark (the last one or two words), and the whole line. False when there is none. */
static bool row(const char *text, const char *name, char *delta, char *mark, char *line)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, name, n) || strncmp(p + n, "  ", 2))
            continue;
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char buf[512], *tok[16], *save = NULL;
        int nt = 0;
        snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
        if (line)
            strcpy(line, buf);
        for (char *t = strtok_r(buf, " ", &save); t && nt < 16; t = strtok_r(NULL, " ", &save))
            tok[nt++] = t;
        assert_true(nt >= 2);
        bool marked = !strcmp(tok[nt - 1], "worse") || !strcmp(tok[nt - 1], "better");
        strcpy(mark, marked ? tok[nt - 1] : "");
        strcpy(delta, tok[nt - 1 - marked]);
        return true;
    }
    return false;
}

#define ASSERT_ROW(text, name, want_delta, want_mark)                                              \
    do {                                                                                           \
        char d_[64], m_[64], l_[512];                                                              \
        if (!row((text), (name), d_, m_, l_))                                                      \
            fail_msg("no row '%s' in:\n%s", (name), (text));                                       \
        if (strcmp(d_, (want_delta)) || strcmp(m_, (want_mark)))                                   \
            fail_msg("row '%s': got delta '%s' mark '%s', want '%s' '%s' (line: %s)", (name), d_,  \
                     m_, (want_delta), (want_mark), l_);                                           \
    } while (0)

/* The lines of one setting's table of a compare diff: from its "Setting NAME" line to the
 * next one. */
static const char *section(const char *out, const char *name, char *buf, size_t len)
{
    char head[256];
    snprintf(head, sizeof(head), "\nSetting %s\n", name);
    const char *p = strstr(out, head);
    if (!p)
        fail_msg("no setting '%s' in:\n%s", name, out);
    p += strlen(head);
    const char *e = strstr(p, "\nSetting ");
    snprintf(buf, len, "%.*s", (int)(e ? (size_t)(e - p) + 1 : strlen(p)), p);
    return buf;
}

/* The line of text that starts with start (a table's row by its name), into line. */
static const char *line_of(const char *text, const char *start, char *line, size_t len)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, start, strlen(start))) {
            snprintf(line, len, "%.*s", (int)strcspn(p, "\n"), p);
            return line;
        }
    fail_msg("no line starting '%s' in:\n%s", start, text);
    return NULL;
}

/* ---- tests ---- */

static void test_identical(void **state)
{
    (void)state;
    static struct result r;
    const char *a = write_doc("same.json", run_doc());
    run_diff(&r, a, a, "1");
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
    /* The header names both files and the workload. */
    assert_has(r.out, "A = ");
    assert_has(r.out, "(rndrw, 4 threads, 16 KiB blocks, sync)");
    assert_true(strchr(r.out, '\n') - r.out > 0);
    const char *rows[] = {"ops/s",        "read ops/s",   "read MiB/s",   "read lat mean",
                          "read lat p50", "read lat p95", "read lat p99", "read lat p99.9",
                          "read lat max", "write ops/s",  "write MiB/s",  "write lat p99",
                          "CPU%",         "util% vda"};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        ASSERT_ROW(r.out, rows[i], "0.0%", "");
    /* fsync did no operation in either run: no rows. */
    char d[64], m[64];
    assert_false(row(r.out, "fsync ops/s", d, m, NULL));
    assert_false(row(r.out, "fsync lat p99", d, m, NULL));
}

static void test_signs(void **state)
{
    (void)state;
    static struct result r;
    json_t *b = run_doc();
    jnum(b, "result/ops", 9000);                                           /* -10% ops/s */
    jnum(b, "result/op_types/read/ops_per_s", 660);                        /* +10% */
    jnum(b, "result/op_types/read/mib_per_s", 9.375 * 1.2);                /* +20% */
    jnum(b, "result/op_types/write/ops_per_s", 360);                       /* -10% */
    jnum(b, "result/op_types/write/mib_per_s", 6.25 * 0.995);              /* -0.5%: noise */
    jnum(b, "result/op_types/read/latency/percentiles_ns/99", 4400);       /* +10% */
    jnum(b, "result/op_types/read/latency/percentiles_ns/99.9", 9000);     /* -10% */
    jnum(b, "result/op_types/write/latency/mean_ns", 7500);                /* -25% */
    jnum(b, "result/op_types/write/latency/max_ns", 1e6);                  /* +100% */
    jnum(b, "result/op_types/read/latency/mean_ns", 1005);                 /* +0.5%: noise */
    jnum(b, "result/op_types/read/latency/percentiles_ns/50", 900 * 0.98); /* -2% */
    jnum(b, "result/cpu/system_pct", 23);                                  /* 30 -> 33 */
    jnum(b, "result/devices/0/util_pct", 60);                              /* never marked */
    const char *pa = write_doc("a.json", run_doc()), *pb = write_doc("b.json", b);
    run_diff(&r, pa, pb, NULL);
    assert_int_equal(r.rc, 0); /* worse, but no --threshold */
    assert_string_equal(r.err, "");
    ASSERT_ROW(r.out, "ops/s", "-10.0%", "");
    ASSERT_ROW(r.out, "read ops/s", "+10.0%", "");
    ASSERT_ROW(r.out, "read MiB/s", "+20.0%", "");
    ASSERT_ROW(r.out, "write ops/s", "-10.0%", "");
    ASSERT_ROW(r.out, "write MiB/s", "-0.5%", "");
    ASSERT_ROW(r.out, "read lat p99", "+10.0%", "");
    ASSERT_ROW(r.out, "read lat p99.9", "-10.0%", "");
    ASSERT_ROW(r.out, "write lat mean", "-25.0%", "");
    ASSERT_ROW(r.out, "write lat max", "+100.0%", "");
    ASSERT_ROW(r.out, "read lat mean", "+0.5%", "");
    ASSERT_ROW(r.out, "read lat p50", "-2.0%", "");
    ASSERT_ROW(r.out, "read lat p95", "0.0%", "");
    ASSERT_ROW(r.out, "CPU%", "+10.0%", "");
    ASSERT_ROW(r.out, "util% vda", "+20.0%", "");
    /* No verdict anywhere, and the line that says why and how many runs give one (the 95%
     * interval of a mean of n runs is t(0.975, n - 1)/sqrt(n) sd: 12.706/1.414 = 8.98 at 2,
     * 4.303/1.732 = 2.48 at 3, 2.776/2.236 = 1.24 at 5, 2.262/3.162 = 0.72 at 10). */
    assert_null(strstr(r.out, " worse\n"));
    assert_null(strstr(r.out, " better\n"));
    assert_has(r.out, "\n1 run a side: no difference is called better or worse");
    assert_has(r.out, "needs at least\n2 runs a side");
    assert_has(r.out, "+-9.0 standard deviations of its runs with 2,\n+-2.5 with 3, +-1.2 with 5, "
                      "+-0.7 with 10: 5 runs a side");
    assert_has(r.out, "sbio diff a1.json ... a5.json --\nb1.json ... b5.json");

    /* The other order flips every sign. */
    run_diff(&r, pb, pa, NULL);
    assert_int_equal(r.rc, 0);
    ASSERT_ROW(r.out, "ops/s", "+11.1%", "");
    ASSERT_ROW(r.out, "write ops/s", "+11.1%", "");
    ASSERT_ROW(r.out, "read lat p99", "-9.1%", "");
    ASSERT_ROW(r.out, "write lat max", "-50.0%", "");
    ASSERT_ROW(r.out, "write lat mean", "+33.3%", "");
    ASSERT_ROW(r.out, "CPU%", "-9.1%", "");
}

static void test_zero_baseline(void **state)
{
    (void)state;
    static struct result r;
    json_t *a = run_doc(), *b = run_doc();
    jnum(a, "result/op_types/read/mib_per_s", 0);                 /* 0 -> 9.375: n/a, better */
    jnum(a, "result/op_types/read/latency/percentiles_ns/99", 0); /* 0 -> 4 us: n/a, worse */
    jnum(a, "result/devices/0/util_pct", 0);                      /* 0 -> 0: unchanged */
    jnum(b, "result/devices/0/util_pct", 0);
    jnum(a, "result/cpu/user_pct", 0); /* 0 + 0 -> 10 + 20 */
    jnum(a, "result/cpu/system_pct", 0);
    jnum(a, "result/elapsed_s", 0);                /* no time: total ops/s has no value */
    jnum(b, "result/op_types/write/ops_per_s", 0); /* 400 -> 0: -100% */
    const char *pa = write_doc("za.json", a), *pb = write_doc("zb.json", b);
    run_diff(&r, pa, pb, "5");
    ASSERT_ROW(r.out, "read MiB/s", "n/a", "");
    ASSERT_ROW(r.out, "read lat p99", "n/a", "");
    ASSERT_ROW(r.out, "util% vda", "0.0%", "");
    ASSERT_ROW(r.out, "CPU%", "n/a", "");
    ASSERT_ROW(r.out, "ops/s", "-", "");
    ASSERT_ROW(r.out, "write ops/s", "-100.0%", "");
    char d[64], m[64], line[512];
    assert_true(row(r.out, "ops/s", d, m, line));
    assert_has(line, "missing");
    /* The -100% write ops/s is over the threshold, the n/a rows are not. */
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 1);
    assert_has(r.err, "write ops/s");

    /* Zero baselines everywhere and a zero B: no crash, no threshold failure (B cannot be
     * below a zero A). */
    json_t *z = run_doc();
    jnum(z, "result/op_types/read/ops_per_s", 0);
    jnum(z, "result/op_types/read/mib_per_s", 0);
    jnum(z, "result/op_types/write/ops_per_s", 0);
    jnum(z, "result/op_types/write/mib_per_s", 0);
    jnum(z, "result/ops", 0);
    pa = write_doc("zz.json", z);
    run_diff(&r, pa, pa, "5");
    assert_int_equal(r.rc, 0);
    ASSERT_ROW(r.out, "read ops/s", "0.0%", "");
    ASSERT_ROW(r.out, "ops/s", "0.0%", "");
    run_diff(&r, pa, write_doc("zb2.json", run_doc()), "5");
    assert_int_equal(r.rc, 0);
    ASSERT_ROW(r.out, "read ops/s", "n/a", "");
}

static void test_missing_metrics(void **state)
{
    (void)state;
    static struct result r;
    json_t *a = run_doc(), *b = run_doc();
    jset(b, "result/op_types/read/latency/percentiles_ns/99.9", NULL);
    jset(a, "result/cpu", NULL);
    jset(b, "result/op_types/read/mib_per_s", NULL);
    jnum(b, "result/op_types/read/ops_per_s", 100); /* -83%, to show the row still works */
    jset(a, "result/devices", NULL);                /* tmpfs in A */
    const char *pa = write_doc("ma.json", a), *pb = write_doc("mb.json", b);
    run_diff(&r, pa, pb, "5");
    char d[64], m[64], line[512];
    ASSERT_ROW(r.out, "read lat p99.9", "-", "");
    assert_true(row(r.out, "read lat p99.9", d, m, line));
    assert_has(line, "missing");
    ASSERT_ROW(r.out, "CPU%", "-", "");
    assert_true(row(r.out, "CPU%", d, m, line));
    assert_has(line, "missing");
    ASSERT_ROW(r.out, "util% vda", "-", "");
    ASSERT_ROW(r.out, "read MiB/s", "-", "");
    ASSERT_ROW(r.out, "read lat p99", "0.0%", "");
    /* Only read ops/s counts for the threshold: a missing MiB/s is not a regression. */
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 1);
    assert_has(r.err, "read ops/s");

    /* Neither side has devices: no util row at all. */
    json_t *c = run_doc();
    jset(c, "result/devices", NULL);
    pa = write_doc("nodev.json", c);
    run_diff(&r, pa, pa, NULL);
    assert_false(row(r.out, "util% vda", d, m, NULL));
    assert_null(strstr(r.out, "util%"));
}

static void test_op_type_one_side(void **state)
{
    (void)state;
    static struct result r;
    json_t *a = run_doc(), *b = run_doc();
    /* A also did fsyncs; B did no write (rndrd: the object is there, with 0 ops). */
    json_object_set_new(json_object_get(json_object_get(a, "result"), "op_types"), "fsync",
                        op_json(100, 10, 0, 2e6));
    json_object_set_new(json_object_get(json_object_get(b, "result"), "op_types"), "write",
                        op_json(0, 0, 0, 0));
    json_object_del(json_object_get(json_object_get(b, "result"), "op_types"), "fsync");
    const char *pa = write_doc("oa.json", a), *pb = write_doc("ob.json", b);
    run_diff(&r, pa, pb, "5");
    const char *gone[] = {"write ops/s",   "write MiB/s", "write lat mean", "write lat p99",
                          "write lat max", "fsync ops/s", "fsync lat p50",  "fsync lat p99.9"};
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
        char d[64], m[64], line[512];
        ASSERT_ROW(r.out, gone[i], "-", "");
        assert_true(row(r.out, gone[i], d, m, line));
        assert_has(line, "missing");
    }
    char d[64], m[64];
    assert_false(row(r.out, "fsync MiB/s", d, m, NULL)); /* fsync moves no bytes */
    ASSERT_ROW(r.out, "read ops/s", "0.0%", "");
    /* An operation type B did not do is a different workload, not a regression. */
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");

    /* The other way round: the columns swap. */
    run_diff(&r, pb, pa, NULL);
    char line[512];
    assert_true(row(r.out, "fsync lat p99", d, m, line));
    assert_has(line, "missing");
    assert_true(strstr(line, "missing") < strstr(line, "ms")); /* A missing, B in ms */
}

/* A tree job's results: each file-system op type either side did has its rows (ops/s, MiB/s
 * for those that move data, latencies), like read's; one only A did is missing in B. */
static void test_fs_op_rows(void **state)
{
    (void)state;
    static struct result r;
    json_t *a = run_doc(), *b = run_doc();
    json_t *oa = json_object_get(json_object_get(a, "result"), "op_types");
    json_t *ob = json_object_get(json_object_get(b, "result"), "op_types");
    json_object_set_new(oa, "create", op_json(1000, 100, 1.5, 50000));
    json_object_set_new(ob, "create", op_json(800, 80, 1.2, 60000));
    json_object_set_new(oa, "stat", op_json(5000, 500, 0, 2000));
    json_object_set_new(ob, "stat", op_json(5000, 500, 0, 2000));
    json_object_set_new(oa, "unlink", op_json(10, 1, 0, 9000));
    const char *pa = write_doc("fa.json", a), *pb = write_doc("fb.json", b);
    run_diff(&r, pa, pb, NULL);
    ASSERT_ROW(r.out, "create ops/s", "-20.0%", "");
    ASSERT_ROW(r.out, "create MiB/s", "-20.0%", "");
    ASSERT_ROW(r.out, "create lat mean", "+20.0%", "");
    ASSERT_ROW(r.out, "stat ops/s", "0.0%", "");
    ASSERT_ROW(r.out, "stat lat p99", "0.0%", "");
    char d[64], m[64], line[512];
    assert_false(row(r.out, "stat MiB/s", d, m, NULL)); /* a stat moves no bytes */
    assert_false(row(r.out, "rename ops/s", d, m, NULL));
    assert_true(row(r.out, "unlink ops/s", d, m, line));
    assert_has(line, "missing");
    ASSERT_ROW(r.out, "read ops/s", "0.0%", "");
}

static void test_threshold(void **state)
{
    (void)state;
    static struct result r;
    /* Only read ops/s (and, below, write MiB/s) changes. */
    json_t *b = run_doc();
    jnum(b, "result/op_types/read/ops_per_s", 600 * 0.951); /* -4.9% */
    const char *pa = write_doc("ta.json", run_doc()), *pb = write_doc("tb.json", b);
    run_diff(&r, pa, pb, "5");
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
    ASSERT_ROW(r.out, "read ops/s", "-4.9%", "");

    b = run_doc();
    jnum(b, "result/op_types/read/ops_per_s", 600 * 0.949); /* -5.1% */
    pb = write_doc("tb.json", b);
    run_diff(&r, pa, pb, "5");
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 1);
    assert_has(r.err, "read ops/s");
    assert_has(r.err, "5.1%");
    ASSERT_ROW(r.out, "read ops/s", "-5.1%", ""); /* the table is printed all the same */
    /* Without --threshold: 0, whatever got worse. */
    run_diff(&r, pa, pb, NULL);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
    /* Better is never a failure, however large. */
    run_diff(&r, pb, pa, "0");
    assert_int_equal(r.rc, 0);

    /* MiB/s counts as well; latency does not. Two rows: two lines. */
    b = run_doc();
    jnum(b, "result/op_types/write/mib_per_s", 6.25 * 0.9);
    jnum(b, "result/ops", 8000);
    jnum(b, "result/op_types/read/latency/percentiles_ns/99", 1e9);
    pb = write_doc("tb.json", b);
    run_diff(&r, pa, pb, "5");
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 2);
    assert_has(r.err, "write MiB/s");
    assert_has(r.err, "ops/s: ");
    assert_null(strstr(r.err, "lat"));
    run_diff(&r, pa, pb, "25");
    assert_int_equal(r.rc, 0);
}

/* Two compares: per setting of both, its runs in A against its runs in B in the table (from
 * the runs' documents: a failed run counted, not measured; no summary read), over the union
 * of both compares' metrics; the settings not compared listed; --threshold names the setting. */
static void test_compare(void **state)
{
    (void)state;
    static struct result r;
    char sec[8192], line[1024];
    json_t *a = compare_doc(), *b = compare_doc();
    json_object_set_new(a, "metrics", json_pack("[s,s]", "ops", "read.p99"));
    json_object_set_new(b, "metrics", json_pack("[s,s]", "ops", "cpu"));
    add_setting(a, "scheduler=none", (json_t *[]){run_ops(1000), run_ops(1010), run_ops(990)}, 3);
    add_setting(a, "scheduler=bfq", (json_t *[]){run_ops(800), run_ops(810), run_ops(790)}, 3);
    add_setting(a, "scheduler=kyber", (json_t *[]){run_ops(900), run_ops(900)}, 2);
    add_setting(a, "scheduler=failed", (json_t *[]){NULL, NULL}, 2);
    /* B in another order, one setting new, one gone, bfq halved (one run failed). */
    add_setting(b, "scheduler=mq-deadline", (json_t *[]){run_ops(1100)}, 1);
    add_setting(b, "scheduler=bfq", (json_t *[]){run_ops(400), run_ops(404), NULL, run_ops(396)},
                4);
    add_setting(b, "scheduler=none", (json_t *[]){run_ops(1000), run_ops(1010), run_ops(990)}, 3);
    add_setting(b, "scheduler=failed", (json_t *[]){NULL}, 1);
    const char *pa = write_doc("ca.json", a), *pb = write_doc("cb.json", b);
    DIFF(&r, pa, pb);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
    assert_has(r.out, "(compare scheduler=none,bfq, 2 repeats)");
    assert_has(r.out, "\nsetting scheduler=kyber: only in A, not compared\n");
    assert_has(r.out, "\nsetting scheduler=mq-deadline: only in B, not compared\n");
    assert_has(r.out, "\nsetting scheduler=failed: no measured run in A or in B, not compared\n");
    assert_null(strstr(r.out, "\nSetting scheduler=kyber\n"));
    /* A's order. */
    assert_true(strstr(r.out, "\nSetting scheduler=none\n") <
                strstr(r.out, "\nSetting scheduler=bfq\n"));

    section(r.out, "scheduler=bfq", sec, sizeof(sec));
    /* The union of the metrics: ops/s, read p99 (A's), CPU% (B's). */
    line_of(sec, "setting ", line, sizeof(line));
    assert_has(line, "ops/s");
    assert_has(line, "read p99");
    assert_has(line, "CPU%");
    line_of(sec, "A (3 runs)", line, sizeof(line));
    assert_has(line, " 3/3 ");
    assert_has(line, "800 ± 10");
    line_of(sec, "B (3 runs)", line, sizeof(line));
    assert_has(line, " 3/4 "); /* 3 measured of 4 made */
    assert_has(line, "400 ± 4");
    assert_has(line, "-50.0% [");
    assert_has(line, "] *");
    section(r.out, "scheduler=none", sec, sizeof(sec));
    line_of(sec, "B (3 runs)", line, sizeof(line));
    assert_has(line, "+0.0% [");
    assert_null(strstr(line, "*"));

    /* --threshold: bfq's ops/s, its whole CI far below -5%, fires, named by its setting. */
    DIFF(&r, pa, pb, "--threshold=5");
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 1);
    assert_has(r.err, "setting scheduler=bfq: ops/s: -50.0% [");
    assert_has(r.err, "the whole 95% CI below -5%");
    /* Reversed: +100% is better, never a failure. */
    DIFF(&r, pb, pa, "--threshold=5");
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
}

/* Runs a side must all have A's first file's shape: a different one is refused before
 * anything is printed, naming the file and how it differs. */
static void expect_refused(const struct result *r, const char *named, const char *what)
{
    if (r->rc != -SBIO_EUSAGE || lines(r->err) != 1 || r->out[0] || !strstr(r->err, named) ||
        !strstr(r->err, what) || !strstr(r->err, "accepted"))
        fail_msg("rc %d, output '%s', stderr '%s' (want -SBIO_EUSAGE, nothing, one line with "
                 "'%s', '%s' and 'accepted')",
                 r->rc, r->out, r->err, named, what);
}

static void test_sides_shape(void **state)
{
    (void)state;
    static struct result r;
    const char *two[] = {"readers", "writer"}, *one[] = {"readers"}, *other[] = {"readers", "log"};
    const char *r1 = write_doc("r1.json", run_ops(1000)), *r2 = write_doc("r2.json", run_ops(990));
    const char *s2 = write_doc("s2.json", script_doc(two, (double[]){100, 200}, 2));
    const char *t2 = write_doc("t2.json", script_doc(two, (double[]){110, 190}, 2));
    const char *s1 = write_doc("s1.json", script_doc(one, (double[]){100}, 1));
    const char *so = write_doc("so.json", script_doc(other, (double[]){100, 200}, 2));
    json_t *d = script_doc(two, (double[]){100, 200}, 2);
    json_t *ph = json_deep_copy(json_array_get(json_object_get(d, "phases"), 0));
    json_object_set_new(ph, "name", json_string("again"));
    json_array_append_new(json_object_get(d, "phases"), ph);
    const char *sp = write_doc("sp.json", d);

    DIFF(&r, r1, r2, "--", s2);
    expect_refused(&r, s2, "a script's result, but");
    DIFF(&r, s2, "--", r1);
    expect_refused(&r, r1, "a run's result, but");
    DIFF(&r, s2, "--", t2, s1);
    expect_refused(&r, s1, "with jobs readers, but");
    DIFF(&r, s2, t2, "--", so);
    expect_refused(&r, so, "with jobs readers, log, but");
    DIFF(&r, s2, "--", sp);
    expect_refused(&r, sp, "2 phases, but");
    /* The same shape: compared. */
    DIFF(&r, s2, "--", t2);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
}

/* A script's results: each job its own block, and their total. */
static void test_sides_jobs(void **state)
{
    (void)state;
    static struct result r;
    char line[1024];
    const char *two[] = {"readers", "writer"};
    const char *a1 = write_doc("ja1.json", script_doc(two, (double[]){1000, 200}, 2));
    const char *a2 = write_doc("ja2.json", script_doc(two, (double[]){1010, 202}, 2));
    const char *b1 = write_doc("jb1.json", script_doc(two, (double[]){2000, 200}, 2));
    const char *b2 = write_doc("jb2.json", script_doc(two, (double[]){2020, 202}, 2));
    DIFF(&r, a1, a2, "--", b1, b2, "--metrics=ops");
    assert_int_equal(r.rc, 0);
    assert_has(r.out, "A = 2 runs (script mixed.lua):");
    const char *rd = strstr(r.out, "\nJob readers\n"), *wr = strstr(r.out, "\nJob writer\n");
    const char *all = strstr(r.out, "\nAll jobs together\n");
    assert_true(rd && wr && all && rd < wr && wr < all);
    line_of(rd + 1, "B (2 runs)", line, sizeof(line));
    assert_has(line, "+100.0% [");
    line_of(wr + 1, "B (2 runs)", line, sizeof(line));
    assert_has(line, "+0.0% [");
    line_of(all + 1, "B (2 runs)", line, sizeof(line));
    assert_has(line, "2211 ± 16"); /* readers + writer: 2200, 2222 */
}

/* --threshold with several runs a side gates on the CI's bound nearest zero: a point
 * difference past the threshold whose CI crosses it does not fire; a whole CI past it does,
 * for throughput (below) and latency (above); CPU never; with one run a side, the point
 * difference, and the line says so. */
static json_t *run_p99(double ops, double p99)
{
    json_t *d = run_ops(ops);
    jnum(d, "result/op_types/read/latency/percentiles_ns/99", p99);
    jnum(d, "result/op_types/read/latency/count", ops);
    return d;
}

/* A run result with creates at rate ops/s and mean latency mean. */
static json_t *run_create(double rate, double mean)
{
    json_t *d = run_ops(1000);
    json_object_set_new(json_object_get(json_object_get(d, "result"), "op_types"), "create",
                        op_json(rate * 10, rate, rate / 64, mean));
    return d;
}

/* --threshold on a file-system op type's metrics: its ops/s a throughput, its mean a latency. */
static void test_sides_threshold_fs(void **state)
{
    (void)state;
    static struct result r;
    const char *a[] = {write_doc("ca1.json", run_create(100, 50000)),
                       write_doc("ca2.json", run_create(101, 50500)),
                       write_doc("ca3.json", run_create(99, 49500))};
    const char *b[] = {write_doc("cb1.json", run_create(70, 75000)),
                       write_doc("cb2.json", run_create(71, 75750)),
                       write_doc("cb3.json", run_create(69, 74250))};
    DIFF(&r, a[0], a[1], a[2], "--", b[0], b[1], b[2], "--metrics=create.ops,create.mean",
         "--threshold=5");
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 2);
    assert_has(r.err, "create/s: -30.0% [");
    assert_has(r.err, "the whole 95% CI below -5%");
    assert_has(r.err, "create mean: +50.0% [");
    assert_has(r.err, "the whole 95% CI above +5%");
}

static void test_sides_threshold(void **state)
{
    (void)state;
    static struct result r;
    /* A: 1000 ± 100; B: 900 ± 100: -10%, its CI about [-33%, +13%] crosses -5%. */
    const char *wa[] = {write_doc("wa1.json", run_ops(1000)), write_doc("wa2.json", run_ops(1100)),
                        write_doc("wa3.json", run_ops(900))};
    const char *wb[] = {write_doc("wb1.json", run_ops(900)), write_doc("wb2.json", run_ops(1000)),
                        write_doc("wb3.json", run_ops(800))};
    DIFF(&r, wa[0], wa[1], wa[2], "--", wb[0], wb[1], wb[2], "--metrics=ops", "--threshold=5");
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
    assert_has(r.out, "-10.0% [");
    /* Tight: A 1000 ± 10, B 700 ± 10 and p99 +50%: both whole CIs past 5%. */
    const char *ta[] = {write_doc("ta1.json", run_p99(1000, 4000)),
                        write_doc("ta2.json", run_p99(1010, 4040)),
                        write_doc("ta3.json", run_p99(990, 3960))};
    json_t *cb = run_p99(700, 6000);
    jnum(cb, "result/cpu/user_pct", 90); /* CPU% +200%: never a gate */
    const char *tb[] = {write_doc("tb1.json", cb), write_doc("tb2.json", run_p99(710, 6060)),
                        write_doc("tb3.json", run_p99(690, 5940))};
    DIFF(&r, ta[0], ta[1], ta[2], "--", tb[0], tb[1], tb[2], "--metrics=ops,read.p99,cpu",
         "--threshold=5");
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 2);
    assert_has(r.err, "ops/s: -30.0% [");
    assert_has(r.err, "the whole 95% CI below -5%");
    assert_has(r.err, "read p99: +50.0% [");
    assert_has(r.err, "the whole 95% CI above +5%");
    assert_null(strstr(r.err, "CPU"));
    /* At 35%: the latency alone; at 60%, neither. */
    DIFF(&r, ta[0], ta[1], ta[2], "--", tb[0], tb[1], tb[2], "--metrics=ops,read.p99,cpu",
         "--threshold=35");
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 1);
    assert_has(r.err, "read p99: +50.0% [");
    DIFF(&r, ta[0], ta[1], ta[2], "--", tb[0], tb[1], tb[2], "--metrics=ops,read.p99,cpu",
         "--threshold=60");
    assert_int_equal(r.rc, 0);
    /* The other way, better on both: nothing. */
    DIFF(&r, tb[0], tb[1], tb[2], "--", ta[0], ta[1], ta[2], "--metrics=ops,read.p99",
         "--threshold=5");
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
    /* One run on B's side: no CI, the point difference; said in the line and the table. */
    DIFF(&r, wa[0], wa[1], wa[2], "--", wb[0], "--metrics=ops", "--threshold=5");
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_int_equal(lines(r.err), 1);
    assert_has(r.err, "ops/s: -10.0% in B against A: no CI (1 run on a side), the point "
                      "difference below -5%");
    assert_has(r.out, "(1 run, no test)");
    DIFF(&r, wa[0], wa[1], wa[2], "--", wb[0], "--metrics=ops", "--threshold=15");
    assert_int_equal(r.rc, 0);
}

/* A reader beside a writer, the reader's p99 p99 (the phase's total has the same: the
 * reader's are its only reads). */
static json_t *reader_writer_doc(double p99)
{
    json_t *r = run_p99(1000, p99), *w = run_ops(1000), *tot = run_p99(2000, p99);
    jnum(r, "result/op_types/write/ops", 0);
    jnum(r, "result/op_types/write/latency/count", 0);
    jnum(w, "result/op_types/read/ops", 0);
    jnum(w, "result/op_types/read/latency/count", 0);
    json_t *ph = json_pack("{s:s,s:[{s:s,s:o},{s:s,s:o}],s:o}", "name", "mixed", "jobs", "name",
                           "reader", "result", r, "name", "writer", "result", w, "total", tot);
    json_t *d = json_pack("{s:s,s:s,s:[o]}", "schema", "sbio-script/1", "script", "/w/rw.lua",
                          "phases", ph);
    assert_non_null(d);
    return d;
}

/* --threshold judges the cells the table shows: the jobs' total has no read p99 column when
 * one job alone reads (it is that job's figure), so it does not fire a second time. */
static void test_sides_threshold_shown(void **state)
{
    (void)state;
    static struct result r;
    const char *a[] = {write_doc("ra1.json", reader_writer_doc(4000)),
                       write_doc("ra2.json", reader_writer_doc(4040)),
                       write_doc("ra3.json", reader_writer_doc(3960))};
    const char *b[] = {write_doc("rb1.json", reader_writer_doc(6000)),
                       write_doc("rb2.json", reader_writer_doc(6060)),
                       write_doc("rb3.json", reader_writer_doc(5940))};
    DIFF(&r, a[0], a[1], a[2], "--", b[0], b[1], b[2], "--metrics=ops,read.p99", "--threshold=5");
    assert_int_equal(r.rc, -SBIO_EFAILED);
    assert_lacks(strstr(r.out, "\nAll jobs together\n"), "read p99");
    assert_int_equal(lines(r.err), 1);
    assert_has(r.err, "job reader, read p99: +50.0% [");
}

/* -o: the sbio-diff/1 document, the table's figures of each side and the cells that fired. */
static void test_sides_json(void **state)
{
    (void)state;
    static struct result r;
    const char *a[] = {write_doc("oa1.json", run_ops(1000)), write_doc("oa2.json", run_ops(1010)),
                       write_doc("oa3.json", run_ops(990))};
    const char *b[] = {write_doc("ob1.json", run_ops(495)), write_doc("ob2.json", run_ops(505))};
    const char *out = path_of("diff-out.json");
    DIFF(&r, a[0], a[1], a[2], "--", b[0], b[1], "--threshold=5", "-o", out);
    assert_int_equal(r.rc, -SBIO_EFAILED);
    json_error_t e;
    json_t *d = json_load_file(out, 0, &e);
    assert_non_null(d);
    assert_string_equal(json_string_value(json_object_get(d, "schema")), "sbio-diff/1");
    assert_string_equal(json_string_value(json_object_get(d, "kind")), "runs");
    assert_int_equal(json_integer_value(json_object_get(d, "threshold_pct")), 5);
    json_t *c = json_array_get(json_object_get(d, "comparisons"), 0);
    json_t *sb = json_array_get(json_object_get(c, "sides"), 1);
    assert_string_equal(json_string_value(json_object_get(sb, "name")), "B (2 runs)");
    assert_int_equal(json_array_size(json_object_get(sb, "files")), 2);
    json_t *ops = sbio_json_get(sb, "phases.0.jobs.0.metrics.ops");
    assert_int_equal(json_integer_value(json_object_get(ops, "n")), 2);
    assert_float_equal(json_number_value(json_object_get(ops, "diff_pct")), -50, 1e-9);
    assert_int_equal(json_array_size(json_object_get(ops, "diff_ci95_pct")), 2);
    json_t *f = json_array_get(json_object_get(c, "threshold_fired"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "metric")), "ops");
    assert_true(json_number_value(json_object_get(f, "bound_pct")) < -5);
    assert_int_equal(json_array_size(json_object_get(c, "threshold_fired")), 1);
    json_decref(d);
}

/* The command line: several files need "--" between the sides, neither side empty, "--"
 * once; a compare stands alone on its side, never beside runs. */
static void test_sides_usage(void **state)
{
    (void)state;
    static struct result r;
    const char *a = write_doc("ua.json", run_ops(1000)), *b = write_doc("ub.json", run_ops(900));
    json_t *c = compare_doc();
    add_setting(c, "scheduler=none", (json_t *[]){run_doc()}, 1);
    const char *cmp = write_doc("ucmp.json", c);
    struct {
        const char *args[6], *what;
    } bad[] = {
        {{a, b, b}, "not 3 files without '--'"},
        {{a}, "not 1 file without '--'"},
        {{"--", a, b}, "no file before '--'"},
        {{a, b, "--"}, "no file after '--'"},
        {{a, "--", b, "--", b}, "'--' given twice"},
        {{a, "--", cmp}, "is a run result but"},
        {{cmp, cmp, "--", cmp}, "3 compare results"},
        {{a, b, "--", b, "--metrics=ops,bogus"}, "unknown metric 'bogus'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        run_diffv(&r, bad[i].args);
        if (r.rc != -SBIO_EUSAGE || lines(r.err) != 1 || r.out[0] || !strstr(r.err, bad[i].what) ||
            !strstr(r.err, "accepted"))
            fail_msg("case %zu: rc %d, output '%s', stderr '%s' (want -SBIO_EUSAGE, one line with "
                     "'%s')",
                     i, r.rc, r.out, r.err, bad[i].what);
    }
}

/* Bad input: -SBIO_EUSAGE, one line on stderr naming the file, nothing written. */
static void expect_bad(const char *a, const char *b, const char *named, const char *what)
{
    static struct result r;
    run_diff(&r, a, b, "5");
    if (r.rc != -SBIO_EUSAGE || lines(r.err) != 1 || r.out[0] || !strstr(r.err, named) ||
        !strstr(r.err, what) || !strstr(r.err, "accepted"))
        fail_msg("diff %s %s: rc %d, output '%s', stderr '%s' (want -SBIO_EUSAGE, nothing, one "
                 "line with "
                 "'%s' and '%s')",
                 a, b, r.rc, r.out, r.err, named, what);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    const char *ok = write_doc("good.json", run_doc());
    const char *cmp = path_of("good-cmp.json");
    json_t *c = compare_doc();
    add_setting(c, "scheduler=none", (json_t *[]){run_doc()}, 1);
    assert_int_equal(json_dump_file(c, cmp, 0), 0);
    json_decref(c);
    char bad[256], schema[256], noschema[256], missing[256], empty[256], noresult[256];
    snprintf(bad, sizeof(bad), "%s", write_text("bad.json", "total ops/s: 1234\n"));
    snprintf(schema, sizeof(schema), "%s",
             write_text("schema.json", "{\"schema\": \"fio-result/3\", \"result\": {}}"));
    snprintf(noschema, sizeof(noschema), "%s", write_text("noschema.json", "{\"result\": {}}"));
    snprintf(empty, sizeof(empty), "%s", write_text("empty.json", ""));
    snprintf(noresult, sizeof(noresult), "%s",
             write_text("noresult.json", "{\"schema\": \"sbio-result/1\"}"));
    snprintf(missing, sizeof(missing), "%s", path_of("does-not-exist.json"));

    expect_bad(bad, ok, bad, "not JSON");
    expect_bad(ok, bad, bad, "not JSON");
    expect_bad(ok, empty, empty, "not JSON");
    expect_bad(schema, ok, schema, "fio-result/3");
    expect_bad(ok, noschema, noschema, "schema");
    expect_bad(noresult, ok, noresult, "result");
    expect_bad(missing, ok, missing, "No such file");
    expect_bad(ok, missing, missing, "No such file");
    const char *two[] = {"readers", "writer"};
    json_t *sd = script_doc(two, (double[]){100, 200}, 2);
    json_object_del(json_array_get(sbio_json_get(sd, "phases.0.jobs"), 1), "name");
    const char *noname = write_doc("noname.json", sd);
    expect_bad(noname, noname, noname, "name of a job");
    expect_bad(ok, cmp, cmp, "compare");
    expect_bad(cmp, ok, ok, "run");
}

/* A device of environment.devices as an older sbio wrote it: queue files and tunables as
 * the kernel printed them, no parsed settings. */
static json_t *device_json(const char *name, const char *sched, const char *nr, const char *tun,
                           const char *val)
{
    json_t *d = json_pack("{s:s,s:{s:s,s:s,s:s},s:{s:s}}", "name", name, "queue", "scheduler",
                          sched, "nr_requests", nr, "read_ahead_kb", "128", "iosched", tun, val);
    assert_non_null(d);
    return d;
}

static json_t *run_doc_on(json_t *dev)
{
    json_t *d = run_doc();
    jset(d, "environment/devices", json_pack("[o]", dev));
    return d;
}

/* The settings that differ come first, each on its row with A's and B's value (a tunable one
 * scheduler lacks is "-"); a result diffed with itself says its settings are the same. */
static void test_settings_first(void **state)
{
    (void)state;
    static struct result r;
    const char *a = write_doc(
        "mq.json",
        run_doc_on(device_json("loop0", "[mq-deadline] kyber bfq none", "64", "fifo_batch", "16")));
    const char *b = write_doc(
        "bfq.json",
        run_doc_on(device_json("loop0", "mq-deadline kyber [bfq] none", "128", "slice_idle", "8")));
    run_diff(&r, a, b, NULL);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.err, "");
    const char *second = strchr(r.out, '\n') + 1;
    assert_true(!strncmp(second, "setting ", 8));
    const char *metric = strstr(r.out, "\nmetric ");
    assert_non_null(metric);
    const char *want[][3] = {{"loop0 scheduler", "mq-deadline", "bfq"},
                             {"loop0 nr_requests", "64", "128"},
                             {"loop0 iosched/fifo_batch", "16", "-"},
                             {"loop0 iosched/slice_idle", "-", "8"}};
    const char *prev = second;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        char line[256];
        snprintf(line, sizeof(line), "\n%s ", want[i][0]);
        const char *p = strstr(r.out, line);
        if (!p || p > metric || p < prev)
            fail_msg("no row '%s' before the figures, in order:\n%s", want[i][0], r.out);
        const char *e = strchr(p + 1, '\n');
        char cells[256];
        snprintf(cells, sizeof(cells), "%.*s", (int)(e - p - 1), p + 1);
        char *save = NULL, *name2 = strtok_r(cells + strlen(want[i][0]), " ", &save);
        assert_string_equal(name2, want[i][1]);
        assert_string_equal(strtok_r(NULL, " ", &save), want[i][2]);
        assert_null(strtok_r(NULL, " ", &save));
        prev = p;
    }
    /* What is the same is not listed. */
    assert_null(strstr(r.out, "read_ahead_kb"));

    /* Itself: the same, said once before the figures. */
    run_diff(&r, a, a, NULL);
    const char *same = "settings: the same in A and B (5 workload, 0 machine and 5 device "
                       "settings compared)\n";
    if (strncmp(strchr(r.out, '\n') + 1, same, strlen(same)))
        fail_msg("want %s in:\n%s", same, r.out);
    /* Another device: named on its own row. */
    const char *c = write_doc(
        "loop1.json",
        run_doc_on(device_json("loop1", "[mq-deadline] kyber bfq none", "64", "fifo_batch", "16")));
    run_diff(&r, a, c, NULL);
    char d[64], m[64], l[512];
    assert_true(row(r.out, "loop0 device", d, m, l));
    assert_has(l, "loop0");
    assert_has(l, "loop1");
    assert_null(strstr(r.out, "loop0 scheduler"));
    /* No device on either side (tmpfs): no device setting. */
    const char *t = write_doc("tmpfs.json", run_doc());
    run_diff(&r, t, t, NULL);
    assert_has(r.out, "(5 workload, 0 machine and 0 device settings compared)");
}

/* A side's settings as a row shows them: the row of name (before the figures), its A and B
 * cells; false when there is none. */
static bool setting_row(const char *out, const char *name, char *a, char *b)
{
    char line[512], head[128];
    snprintf(head, sizeof(head), "\n%s ", name);
    const char *p = strstr(out, head), *metric = strstr(out, "\nmetric ");
    if (!p || (metric && p > metric))
        return false;
    snprintf(line, sizeof(line), "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
    char *save = NULL, *x = strtok_r(line + strlen(name), " ", &save),
         *y = strtok_r(NULL, " ", &save);
    snprintf(a, 128, "%s", x ? x : "");
    snprintf(b, 128, "%s", y ? y : "");
    return !strtok_r(NULL, " ", &save);
}

/* Every workload option and machine setting that differs is listed before the figures, from
 * the results' own records (an option diff has never heard of too), and in -o's JSON: B ran
 * O_DIRECT with twice the threads, so its -96% is not the scheduler's alone. The random seed
 * is not listed (every run draws its own); the environment's "scheduler" is the device's. */
static void test_workload_differs(void **state)
{
    (void)state;
    static struct result r;
    json_t *a = run_doc_on(device_json("sda", "mq-deadline kyber bfq [none]", "64", "x", "1"));
    json_t *b = run_doc_on(device_json("sda", "mq-deadline kyber [bfq] none", "64", "x", "1"));
    jset(a, "config/file_extra_flags", json_string("(none)"));
    jset(b, "config/file_extra_flags", json_string("direct"));
    jset(b, "config/threads", json_integer(8));
    jset(a, "config/rand_seed", json_string("1"));
    jset(b, "config/rand_seed", json_string("2"));
    jset(a, "config/a_new_option", json_integer(7)); /* one diff has no name for */
    jset(b, "config/a_new_option", json_integer(9));
    jset(a, "config/queue", json_pack("[s]", "nr_requests=64"));
    jset(b, "config/queue", json_array());
    jset(a, "environment/filesystem", json_pack("{s:s,s:s}", "type", "ext4", "options", "rw"));
    jset(b, "environment/filesystem", json_pack("{s:s,s:s}", "type", "ext4", "options", "ro"));
    jset(a, "environment/scheduler", json_string("none"));
    jset(b, "environment/scheduler", json_string("bfq"));
    jnum(b, "result/ops", 400); /* -96% */
    json_t *b2 = json_deep_copy(b);
    const char *pa = write_doc("wa.json", a), *pb = write_doc("wb.json", b);
    const char *out = path_of("wd.json");
    DIFF(&r, pa, pb, "-o", out);
    assert_int_equal(r.rc, 0);
    char va[128], vb[128];
    const struct {
        const char *name, *a, *b;
    } want[] = {{"threads", "4", "8"},
                {"a_new_option", "7", "9"},
                {"file_extra_flags", "(none)", "direct"},
                {"queue", "[\"nr_requests=64\"]", "[]"},
                {"filesystem.options", "rw", "ro"},
                {"sda scheduler", "none", "bfq"}};
    const char *prev = r.out;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (!setting_row(r.out, want[i].name, va, vb))
            fail_msg("no row '%s' before the figures in:\n%s", want[i].name, r.out);
        assert_string_equal(va, want[i].a);
        assert_string_equal(vb, want[i].b);
        /* The workload first, then the machine, then the devices. */
        char head[128];
        snprintf(head, sizeof(head), "\n%s ", want[i].name);
        if (i >= 3) {
            assert_true(strstr(r.out, head) > prev);
            prev = strstr(r.out, head);
        }
    }
    assert_null(strstr(r.out, "rand_seed"));
    assert_false(setting_row(r.out, "scheduler", va, vb));
    assert_false(setting_row(r.out, "file_test_mode", va, vb)); /* the same */
    assert_has(r.out, "(6 of ");
    ASSERT_ROW(r.out, "ops/s", "-96.0%", "");

    /* The JSON: every row, with each side's values as the results hold them. */
    json_error_t e;
    json_t *d = json_load_file(out, 0, &e);
    assert_non_null(d);
    json_t *rows = sbio_json_get(d, "comparisons.0.settings_differ");
    assert_int_equal(json_array_size(rows), 6);
    json_t *t = json_array_get(rows, 0);
    assert_string_equal(json_string_value(json_object_get(t, "kind")), "workload");
    assert_string_equal(json_string_value(json_object_get(t, "name")), "threads");
    json_t *four = json_pack("[i]", 4), *eight = json_pack("[i]", 8);
    assert_true(json_equal(json_object_get(t, "a"), four));
    assert_true(json_equal(json_object_get(t, "b"), eight));
    json_decref(four);
    json_decref(eight);
    t = json_array_get(rows, 5);
    assert_string_equal(json_string_value(json_object_get(t, "kind")), "device");
    json_decref(d);

    /* Several runs a side: a side whose runs disagree shows each of its values. */
    jset(b2, "config/threads", json_integer(6));
    const char *pb2 = write_doc("wb2.json", b2);
    DIFF(&r, pa, pa, "--", pb, pb2);
    assert_int_equal(r.rc, 0);
    assert_true(setting_row(r.out, "threads", va, vb));
    assert_string_equal(va, "4");
    assert_string_equal(vb, "8|6");
    if (!(strstr(r.out, "\nthreads ") < strstr(r.out, "\nA (2 runs) ")))
        fail_msg("%s", r.out);
    assert_null(strstr(r.out, "no difference is called better or worse"));
    /* The table with one run on a side: no test, and the line that says why. */
    DIFF(&r, pa, pa, "--", pb);
    assert_int_equal(r.rc, 0);
    assert_has(r.out, "(1 run, no test)");
    assert_has(r.out, "\n1 run of B: no difference is called better or worse (nor significant)");
    DIFF(&r, pa, "--", pb, "--metrics=ops");
    assert_has(r.out, "\n1 run a side: no difference is called better or worse");
}

static int setup(void **state)
{
    (void)state;
    return tmpdir_make(g_dir, sizeof(g_dir), "/tmp", "diff");
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(g_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical),
        cmocka_unit_test(test_signs),
        cmocka_unit_test(test_zero_baseline),
        cmocka_unit_test(test_missing_metrics),
        cmocka_unit_test(test_op_type_one_side),
        cmocka_unit_test(test_threshold),
        cmocka_unit_test(test_fs_op_rows),
        cmocka_unit_test(test_sides_threshold_fs),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_settings_first),
        cmocka_unit_test(test_workload_differs),
        cmocka_unit_test(test_sides_shape),
        cmocka_unit_test(test_sides_jobs),
        cmocka_unit_test(test_sides_threshold),
        cmocka_unit_test(test_sides_json),
        cmocka_unit_test(test_sides_threshold_shown),
        cmocka_unit_test(test_sides_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
