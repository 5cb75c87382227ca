/* Unit tests for the comparison table (src/analysis/table.c): --metrics parsed (order kept, bad
 * names refused, at most SBIO_TABLE_MAX_METRICS), each metric read from a block's document (per op
 * type only where the block did that op), and a table filled from script results: a block
 * per job and their total, each cell's mean ± sd, the difference to the first setting with
 * its CI, Holm's correction over the phase's tests, the marked runs, the widest CI, the
 * total's columns, the text and the JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "infer.h"
#include "table.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The index of metric NAME in the catalogue, -1 when it is not there. */
static int metric_index(const char *name)
{
    for (size_t i = 0; sbio_table_metric_name(i); i++)
        if (!strcmp(sbio_table_metric_name(i), name))
            return (int)i;
    return -1;
}

/* ---- --metrics ---- */

static void test_metrics_parse(void **state)
{
    (void)state;
    size_t idx[SBIO_TABLE_MAX_METRICS], n = 99;
    /* The order given is kept. */
    assert_int_equal(sbio_table_metrics_parse("time,reads,read.p99.9,share", idx, &n), 0);
    assert_int_equal(n, 4);
    const char *want[] = {"time", "reads", "read.p99.9", "share"};
    for (size_t k = 0; k < n; k++)
        assert_string_equal(sbio_table_metric_name(idx[k]), want[k]);
    /* Every name of the catalogue is accepted, SBIO_TABLE_MAX_METRICS at a time. */
    size_t total = 0;
    while (sbio_table_metric_name(total))
        total++;
    for (size_t from = 0; from < total; from += SBIO_TABLE_MAX_METRICS) {
        char list[512] = "";
        size_t k = from;
        for (; k < total && k < from + SBIO_TABLE_MAX_METRICS; k++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k > from ? "," : "",
                     sbio_table_metric_name(k));
        assert_int_equal(sbio_table_metrics_parse(list, idx, &n), 0);
        assert_int_equal(n, k - from);
    }
    const char *names[] = {"ops",       "mib",      "time",     "reads",    "writes",
                           "fsyncs",    "rmws",     "cpu",      "util",     "share",
                           "p50",       "p95",      "p99",      "p99.9",    "read.mib",
                           "write.mib", "read.p50", "read.p95", "read.p99", "write.p99.9",
                           "fsync.p99", "rmw.p99"};
    for (size_t k = 0; k < ARRAY_LEN(names); k++)
        if (metric_index(names[k]) < 0)
            fail_msg("metric %s missing", names[k]);
    /* Refused: an unknown name, a prefix of one, a name twice, an empty list or item, a name
     * in another case, more columns than a table has. */
    char many[512] = "";
    for (size_t k = 0; k <= SBIO_TABLE_MAX_METRICS; k++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%s", k ? "," : "",
                 sbio_table_metric_name(k));
    const char *bad[] = {"time,bogus",  "tim",  "time,time",     "",         "time,", ",time",
                         "time,,reads", "TIME", "reads ,writes", "read.p98", many};
    for (size_t k = 0; k < ARRAY_LEN(bad); k++) {
        struct capture c;
        char err[MSG_MAX];
        cap_begin(&c);
        int rc = sbio_table_metrics_parse(bad[k], idx, &n);
        cap_end(&c, err, sizeof(err));
        if (rc != -EINVAL)
            fail_msg("--metrics=%s accepted", bad[k]);
        assert_has(err, "accepted:");
    }
    /* The default: ops/s and each op type's p99. */
    sbio_table_metrics_default(idx, &n);
    assert_true(n >= 2);
    assert_string_equal(sbio_table_metric_name(idx[0]), "ops");
    assert_string_equal(sbio_table_metric_name(idx[1]), "read.p99");
}

/* A run document with every field the metrics read, and their values: reads and writes done
 * and timed, fsyncs counted but none timed on its own (inside their writes: --file-fsync-all). */
static const char run_doc[] =
    "{\"result\": {\"elapsed_s\": 2.5, \"ops\": 1000,"
    " \"op_types\": {\"read\": {\"ops\": 600, \"ops_per_s\": 240.5, \"mib_per_s\": 3.75,"
    "                           \"latency\": {\"count\": 600, \"percentiles_ns\": {\"50\": 1000, "
    "\"99\": 70000,"
    "                                                             \"99.9\": 90000}}},"
    "                \"write\": {\"ops\": 400, \"ops_per_s\": 160.25, \"mib_per_s\": 2.5,"
    "                            \"latency\": {\"count\": 400, \"percentiles_ns\": {\"99\": "
    "800000}}},"
    "                \"fsync\": {\"ops\": 5, \"ops_per_s\": 2, \"mib_per_s\": 0,"
    "                            \"latency\": {\"count\": 0, \"percentiles_ns\": {\"99\": 0}}}},"
    " \"cpu\": {\"user_pct\": 1.5, \"system_pct\": 20.25},"
    " \"devices\": [{\"util_pct\": 97.5}, {\"util_pct\": 3}],"
    " \"latency_all\": {\"percentiles_ns\": {\"50\": 2000, \"95\": 1310720, \"99\": 2621440,"
    "                                         \"99.9\": 9000000}}}}";

static void test_metrics_values(void **state)
{
    (void)state;
    json_error_t e;
    json_t *doc = json_loads(run_doc, 0, &e);
    json_t *share = json_loads("{\"bytes_share\": 0.25}", 0, &e);
    assert_non_null(doc);
    assert_non_null(share);
    const struct {
        const char *name;
        double want;
    } cases[] = {
        {"ops", 1000 / 2.5},   /* ops over elapsed_s */
        {"mib", 3.75 + 2.5},   /* read + write MiB/s */
        {"time", 2.5},         /* elapsed_s: sysbench's total time */
        {"reads", 240.5},      /* op_types.read.ops_per_s */
        {"writes", 160.25},    /* op_types.write.ops_per_s */
        {"fsyncs", 2},         /* op_types.fsync.ops_per_s */
        {"cpu", 1.5 + 20.25},  /* user + system, % of one CPU */
        {"util", 97.5},        /* the first device's */
        {"share", 25},         /* bytes_share, % */
        {"p50", 2000},         /* all operations' percentiles */
        {"p95", 1310720},      /* */
        {"p99", 2621440},      /* */
        {"p99.9", 9000000},    /* a key with a dot of its own */
        {"read.p50", 1000},    /* one op type's */
        {"read.p99", 70000},   /* */
        {"read.p99.9", 90000}, /* */
        {"write.p99", 800000}, /* */
        {"read.mib", 3.75},    /* */
        {"write.mib", 2.5},    /* */
    };
    for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
        int i = metric_index(cases[k].name);
        assert_true(i >= 0);
        double got = sbio_table_metric_value((size_t)i, doc, share);
        if (!(fabs(got - cases[k].want) <= 1e-9))
            fail_msg("%s = %.15g, want %.15g", cases[k].name, got, cases[k].want);
    }
    /* Not there: an op type the block did not do or time (fsync: counted, not timed, so no
     * latency of 0), the rmw the block did not do, a percentile the document
     * lacks, a share without the phase's shares, a device-less run's util, past the end. */
    const char *absent[] = {"fsync.p99", "write.p50", "rmw.p99", "rmw.mib"};
    for (size_t k = 0; k < ARRAY_LEN(absent); k++)
        if (!isnan(sbio_table_metric_value((size_t)metric_index(absent[k]), doc, share)))
            fail_msg("%s has a value", absent[k]);
    assert_true(isnan(sbio_table_metric_value((size_t)metric_index("share"), doc, NULL)));
    json_t *empty = json_loads("{\"result\": {\"elapsed_s\": 1, \"devices\": []}}", 0, &e);
    assert_non_null(empty);
    assert_true(isnan(sbio_table_metric_value((size_t)metric_index("util"), empty, NULL)));
    assert_true(isnan(sbio_table_metric_value(1000, doc, NULL)));
    json_decref(empty);
    json_decref(share);
    json_decref(doc);
}

/* A tree job's document: its file-system op types' metrics work like read's (ops/s, mean,
 * percentiles, MiB/s of those that move data); a type it did not do has none, nor has a run
 * without them; the default columns include their p99. */
static void test_metrics_fs(void **state)
{
    (void)state;
    json_error_t e;
    json_t *doc = json_loads(
        "{\"result\": {\"elapsed_s\": 2, \"ops\": 700, \"op_types\": {"
        " \"create\": {\"ops\": 100, \"ops_per_s\": 50, \"mib_per_s\": 0.78125,"
        "              \"latency\": {\"count\": 100, \"mean_ns\": 41000.5,"
        "                            \"percentiles_ns\": {\"50\": 40000, \"99\": 90000}}},"
        " \"stat\": {\"ops\": 500, \"ops_per_s\": 250, \"mib_per_s\": 0,"
        "            \"latency\": {\"count\": 500, \"mean_ns\": 2100,"
        "                          \"percentiles_ns\": {\"99\": 3500}}},"
        " \"readwhole\": {\"ops\": 100, \"ops_per_s\": 50, \"mib_per_s\": 3.125,"
        "                 \"latency\": {\"count\": 100, \"mean_ns\": 120000.25,"
        "                               \"percentiles_ns\": {\"99.9\": 400000}}}}}}",
        0, &e);
    assert_non_null(doc);
    const struct {
        const char *name;
        double want;
    } cases[] = {
        {"create.ops", 50},          {"create.p50", 40000},    {"create.p99", 90000},
        {"create.mean", 41000.5},    {"create.mib", 0.78125},  {"stat.ops", 250},
        {"stat.p99", 3500},          {"stat.mean", 2100},      {"readwhole.mean", 120000.25},
        {"readwhole.p99.9", 400000}, {"readwhole.mib", 3.125}, {"ops", 350},
    };
    for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
        int i = metric_index(cases[k].name);
        if (i < 0)
            fail_msg("metric %s missing", cases[k].name);
        double got = sbio_table_metric_value((size_t)i, doc, NULL);
        if (!(fabs(got - cases[k].want) <= 1e-9))
            fail_msg("%s = %.15g, want %.15g", cases[k].name, got, cases[k].want);
    }
    const char *absent[] = {"rename.p99", "unlink.ops", "append.mib", "read.ops", "read.mean"};
    for (size_t k = 0; k < ARRAY_LEN(absent); k++)
        if (!isnan(sbio_table_metric_value((size_t)metric_index(absent[k]), doc, NULL)))
            fail_msg("%s has a value", absent[k]);
    /* No MiB/s metric for the op types that move no data. */
    assert_true(metric_index("stat.mib") < 0);
    assert_true(metric_index("open.mib") < 0);
    json_t *run = json_loads(run_doc, 0, &e);
    assert_non_null(run);
    assert_true(isnan(sbio_table_metric_value((size_t)metric_index("create.ops"), run, NULL)));
    assert_true(fabs(sbio_table_metric_value((size_t)metric_index("read.ops"), run, NULL) - 240.5) <
                1e-9);
    json_decref(run);
    size_t idx[SBIO_TABLE_MAX_METRICS], n;
    assert_int_equal(sbio_table_metrics_parse("create.ops,stat.p99,readwhole.mean", idx, &n), 0);
    assert_int_equal(n, 3);
    sbio_table_metrics_default(idx, &n);
    bool stat = false;
    for (size_t k = 0; k < n; k++)
        stat |= !strcmp(sbio_table_metric_name(idx[k]), "stat.p99");
    assert_true(stat);
    json_decref(doc);
}

/* ---- a table of script results ---- */

/* A job's result: ops/s (elapsed 1 s), all of op type op, and their p99. */
static json_t *job_result_of(const char *op, double ops, double p99)
{
    return json_pack("{s:{s:f,s:f,s:{s:{s:f,s:f,s:{s:f,s:{s:f}}}}}}", "result", "elapsed_s", 1.0,
                     "ops", ops, "op_types", op, "ops", ops, "ops_per_s", ops, "latency", "count",
                     ops, "percentiles_ns", "99", p99);
}

static json_t *job_result(double ops, double p99)
{
    return job_result_of("read", ops, p99);
}

/* An sbio-script/1 result of one phase "mixed" of jobs a and b (and their total), with the
 * phase's shares. */
static json_t *script_doc(double a, double b)
{
    json_t *jobs = json_pack("[{s:s,s:o},{s:s,s:o}]", "name", "a", "result", job_result(a, 1e5),
                             "name", "b", "result", job_result(b, 2e5));
    json_t *shares = json_pack("{s:[{s:f},{s:f}]}", "jobs", "bytes_share", a / (a + b),
                               "bytes_share", b / (a + b));
    json_t *ph = json_pack("{s:s,s:o,s:o,s:o}", "name", "mixed", "jobs", jobs, "total",
                           job_result(a + b, 2e5), "shares", shares);
    return json_pack("{s:s,s:[o]}", "schema", "sbio-script/1", "phases", ph);
}

/* Two settings of 6 runs: job a 1000 ± small in the first, 2000 in the second (a real
 * difference); job b the same in both; one run of the second setting's b far off. */
static void fill(struct sbio_table *t)
{
    static const double noise[6] = {-3, 2, 0, 1, -1, 4};
    for (unsigned r = 0; r < 6; r++) {
        json_t *d0 = script_doc(1000 + noise[r], 500 + noise[5 - r]);
        json_t *d1 = script_doc(2000 + noise[5 - r], r == 3 ? 900 : 500 + noise[r]);
        assert_int_equal(sbio_table_add(t, 0, r + 1, d0), 1);
        assert_int_equal(sbio_table_add(t, 1, r + 1, d1), 1);
        sbio_table_tried(t, 0);
        sbio_table_tried(t, 1);
        json_decref(d0);
        json_decref(d1);
    }
}

static void table_make(struct sbio_table *t, const char *list)
{
    json_t *d = script_doc(1, 1);
    struct sbio_table_phase ph[2];
    size_t np, col[SBIO_TABLE_MAX_METRICS], ncol;
    assert_int_equal(sbio_table_shape(d, ph, 2, &np), 0);
    json_decref(d);
    assert_int_equal(np, 1);
    assert_int_equal(ph[0].nb, 3);
    assert_string_equal(ph[0].block[0], "a");
    assert_string_equal(ph[0].block[2], "total");
    assert_int_equal(sbio_table_metrics_parse(list, col, &ncol), 0);
    assert_int_equal(sbio_table_init(t, 2, 6, ph, np, col, ncol), 0);
}

/* The printed tables of t, its settings named names, into out (MSG_MAX bytes). */
static void table_text(const struct sbio_table *t, const char *const *names, char *out)
{
    FILE *f = fmemopen(out, MSG_MAX, "w");
    assert_non_null(f);
    sbio_table_print(t, f, names);
    fclose(f);
}

static void test_table_cells(void **state)
{
    (void)state;
    struct sbio_table t;
    table_make(&t, "ops,share,write.p99");
    fill(&t);
    json_t *extra = script_doc(1, 1);
    assert_int_equal(sbio_table_add(&t, 0, 7, extra), -ENOSPC); /* maxrun 6 */
    json_decref(extra);
    sbio_table_compute(&t);
    /* Job a's ops/s: a mean of 1000.5 against 2000.5, a difference of +99.95% with a CI
     * around it, and significant after the correction. */
    const struct sbio_table_cell *a0 = sbio_table_cell(&t, 0, 0, 0, 0);
    const struct sbio_table_cell *a1 = sbio_table_cell(&t, 0, 0, 1, 0);
    assert_int_equal(a0->n, 6);
    assert_true(fabs(a0->mean - 1000.5) < 1e-9);
    assert_true(fabs(a1->diff_pct - (2000.5 / 1000.5 - 1) * 100) < 1e-9);
    assert_int_equal(a1->ci, 0);
    assert_true(a1->lo < a1->diff_pct && a1->diff_pct < a1->hi);
    assert_true(a1->lo > 99 && a1->hi < 101);
    assert_true(a1->p_holm >= a1->p && a1->p_holm < SBIO_TABLE_ALPHA);
    /* The baseline's cells are no tests; write.p99 has no value anywhere (reads only): no
     * test either. The tests: ops and share of a, b and the total (share: jobs only) = 5. */
    assert_true(a0->p < 0 && a0->p_holm < 0);
    assert_int_equal(sbio_table_cell(&t, 0, 0, 1, 2)->n, 0);
    assert_true(sbio_table_cell(&t, 0, 0, 1, 2)->p_holm < 0);
    assert_int_equal(t.ntests[0], 5);
    /* Job b's far run (900 among ~500) is marked, kept in the mean. */
    const struct sbio_table_cell *b1 = sbio_table_cell(&t, 0, 1, 1, 0);
    assert_int_equal(b1->nout, 1);
    assert_true(b1->mean > 560);
    assert_int_equal(sbio_table_cell(&t, 0, 1, 0, 0)->nout, 0);
    /* The widest CI of setting 1 is job b's ops/s (its far run), in % of the mean. */
    char what[256];
    double w = sbio_table_widest(&t, 1, what, sizeof(what));
    assert_true(fabs(w - b1->half / b1->mean * 100) < 1e-9);
    assert_string_equal(what, "job b, ops/s");
    sbio_table_free(&t);
}

static void test_table_text_json(void **state)
{
    (void)state;
    struct sbio_table t;
    table_make(&t, "ops,write.p99");
    fill(&t);
    sbio_table_compute(&t);
    char out[MSG_MAX];
    table_text(&t, (const char *[]){"scheduler=none", "scheduler=bfq"}, out);
    assert_has(out, "Phase 1/1: mixed");
    assert_has(out, "\nJob a\n");
    assert_has(out, "\nJob b\n");
    assert_has(out, "\nAll jobs together\n");
    assert_has(out, "(baseline)");
    assert_has(out, "over the 3 comparisons of this table");
    assert_has(out, "! scheduler=bfq, run 4: job b, ops/s 900");
    assert_lacks(out, "write p99"); /* no block wrote */
    /* Job a's row: 6/6 runs, the mean ± sd, the difference with its CI and the mark. */
    char *row = strstr(strstr(out, "\nJob a\n"), "scheduler=bfq");
    assert_non_null(row);
    assert_has(row, "6/6");
    assert_has(row, "2000 ± 2");
    assert_has(row, "+100.0% [");
    assert_true(strchr(row, '*') && strchr(row, '*') < strchr(row, '\n'));
    json_t *j = sbio_table_json(&t, 1);
    json_t *jobs = json_object_get(json_array_get(j, 0), "jobs");
    assert_int_equal(json_array_size(jobs), 3);
    assert_true(json_is_true(json_object_get(json_array_get(jobs, 2), "total")));
    json_t *a = json_object_get(json_object_get(json_array_get(jobs, 0), "metrics"), "ops");
    assert_int_equal(json_integer_value(json_object_get(a, "n")), 6);
    assert_int_equal(json_array_size(json_object_get(a, "values")), 6);
    assert_string_equal(json_string_value(json_object_get(a, "verdict")), "significant");
    assert_non_null(json_object_get(a, "diff_ci95_pct"));
    assert_null(json_object_get(json_object_get(json_array_get(jobs, 0), "metrics"), "write.p99"));
    json_t *b = json_object_get(json_object_get(json_array_get(jobs, 1), "metrics"), "ops");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(b, "outliers"), 0)), 4);
    json_decref(j);
    sbio_table_free(&t);
}

/* The jobs' total shows an op type's column only when two jobs or more have it: a reader
 * and a writer's total has ops/s, not their p99s (each the one job's, shown above). */
static void test_table_total_columns(void **state)
{
    (void)state;
    struct sbio_table_phase ph = {.name = "rw", .nb = 3, .block = {"r", "w", "total"}};
    size_t col[3], ncol;
    struct sbio_table t;
    assert_int_equal(sbio_table_metrics_parse("ops,read.p99,write.p99", col, &ncol), 0);
    assert_int_equal(sbio_table_init(&t, 2, 3, &ph, 1, col, ncol), 0);
    for (unsigned r = 0; r < 3; r++)
        for (size_t s = 0; s < 2; s++) {
            json_t *jobs = json_pack("[{s:s,s:o},{s:s,s:o}]", "name", "r", "result",
                                     job_result_of("read", 100 + r + s * 50, 1e5), "name", "w",
                                     "result", job_result_of("write", 10 + r, 2e5 + r));
            json_t *total = job_result_of("read", 110 + 2 * r + s * 50, 1e5);
            json_t *d = json_pack("{s:[{s:s,s:o,s:o}]}", "phases", "name", "rw", "jobs", jobs,
                                  "total", total);
            assert_int_equal(sbio_table_add(&t, s, r + 1, d), 1);
            json_decref(d);
        }
    sbio_table_compute(&t);
    /* Tests: r's ops and read.p99, w's ops and write.p99, the total's ops = 5. */
    assert_int_equal(t.ntests[0], 5);
    char out[MSG_MAX];
    table_text(&t, (const char *[]){"one", "two"}, out);
    char *tot = strstr(out, "All jobs together");
    assert_non_null(tot);
    char *head = strstr(tot, "setting");
    assert_non_null(head);
    *strchr(head, '\n') = 0;
    assert_has(head, "ops/s");
    assert_lacks(head, "p99");
    sbio_table_free(&t);
}

/* A refused phase has no values; a run of built-in options is one block without a name. */
static void test_table_refused_and_plain(void **state)
{
    (void)state;
    struct sbio_table t;
    table_make(&t, "ops");
    json_t *d = json_pack("{s:s,s:[{s:s,s:b}]}", "schema", "sbio-script/1", "phases", "name",
                          "mixed", "refused", 1);
    assert_int_equal(sbio_table_add(&t, 0, 1, d), 0);
    json_decref(d);
    sbio_table_compute(&t);
    assert_int_equal(sbio_table_cell(&t, 0, 0, 0, 0)->n, 0);
    assert_int_equal(t.nph[0], 0);
    sbio_table_free(&t);

    json_t *run = job_result(10, 1);
    struct sbio_table_phase ph[1];
    size_t np, col = (size_t)metric_index("ops");
    assert_int_equal(sbio_table_shape(run, ph, 1, &np), 0);
    assert_int_equal(np, 1);
    assert_int_equal(ph[0].nb, 1);
    assert_string_equal(ph[0].block[0], "");
    assert_int_equal(sbio_table_init(&t, 1, 2, ph, np, &col, 1), 0);
    assert_int_equal(sbio_table_add(&t, 0, 1, run), 1);
    char line[128];
    sbio_table_run_text(&t, 0, line, sizeof(line));
    assert_string_equal(line, "10 ops/s");
    json_decref(run);
    json_t *bad = json_pack("{s:s}", "schema", "x");
    assert_int_equal(sbio_table_shape(bad, ph, 1, &np), -EINVAL);
    json_decref(bad);
    sbio_table_free(&t);
}

/* --repeat=auto's widest CI of a setting leaves out the columns it never has: a reader's
 * setting beside a writer's settles on its own ops/s and read p99, not on the write p99
 * that only the writer's runs show. */
static void test_table_widest_own_columns(void **state)
{
    (void)state;
    struct sbio_table_phase ph = {.nb = 1};
    size_t col[3], ncol;
    struct sbio_table t;
    assert_int_equal(sbio_table_metrics_parse("ops,read.p99,write.p99", col, &ncol), 0);
    assert_int_equal(sbio_table_init(&t, 2, 3, &ph, 1, col, ncol), 0);
    for (unsigned r = 0; r < 3; r++)
        for (size_t s = 0; s < 2; s++) {
            json_t *d = job_result_of(s ? "write" : "read", 1000 + r, 1e5 + r);
            assert_int_equal(sbio_table_add(&t, s, r + 1, d), 1);
            json_decref(d);
        }
    sbio_table_compute(&t);
    char what[256];
    for (size_t s = 0; s < 2; s++) {
        double w = sbio_table_widest(&t, s, what, sizeof(what));
        assert_true(w > 0 && w < 1);
        assert_string_equal(what, "ops/s");
    }
    sbio_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics_parse),
        cmocka_unit_test(test_metrics_values),
        cmocka_unit_test(test_metrics_fs),
        cmocka_unit_test(test_table_cells),
        cmocka_unit_test(test_table_text_json),
        cmocka_unit_test(test_table_total_columns),
        cmocka_unit_test(test_table_refused_and_plain),
        cmocka_unit_test(test_table_widest_own_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
