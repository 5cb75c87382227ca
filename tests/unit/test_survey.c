/* Unit tests for sbio survey's pure parts (src/analysis/survey.c): the battery's lines and
 * their refusals, the budget's spelling, the plan (least times, shares, the refusal of a
 * budget below the least), the matrix's statistics on synthetic values (the best per
 * direction, the tests against it, Holm over the whole matrix, verdicts that never name a
 * winner without a significant difference), the mail format's width and the JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "survey.h"
#include "table.h"

static void test_budget(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        double want;
    } good[] = {{"600", 600}, {"90s", 90},   {"10m", 600},     {"1h30m", 5400},
                {"2h", 7200}, {"1m30s", 90}, {"1h0m5s", 3605}, {"2.5m", 150}};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        double v = -1;
        assert_int_equal(sbio_survey_parse_budget(good[i].s, &v), 0);
        assert_true(fabs(v - good[i].want) < 1e-9);
    }
    static const char *const bad[] = {"",   "0",    "0s", "10x",  "m",    "30m1h", "1h30",
                                      "-5", "10mm", "8d", "1h1h", "169h", " 5m"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        double v = -1;
        assert_int_equal(sbio_survey_parse_budget(bad[i], &v), -EINVAL);
        assert_true(v == -1);
    }
}

static const char battery_ok[] =
    "# a comment\n"
    "\n"
    "seq - 3 read.mib:higher --file-test-mode=seqrd --time=3   # trailing comment\n"
    "  rvw readers-vs-writer 5 readers/read.p99:lower,writer/write.mib:higher --size=64M\n";

static void test_battery_ok(void **state)
{
    (void)state;
    struct sbio_survey_battery b;
    char err[512] = "";
    assert_int_equal(sbio_survey_battery_parse(battery_ok, "B", &b, err, sizeof(err)), 0);
    assert_int_equal(b.n, 2);
    assert_int_equal(b.nrows, 3);
    assert_string_equal(b.line[0].name, "seq");
    assert_string_equal(b.line[0].script, "-");
    assert_true(b.line[0].seconds == 3);
    assert_int_equal(b.line[0].nopt, 2);
    assert_string_equal(b.line[0].opt[1], "--time=3");
    assert_int_equal(b.line[0].m[0].metric, (size_t)sbio_table_metric_index("read.mib"));
    assert_int_equal(b.line[0].m[0].better, 1);
    assert_string_equal(b.line[0].m[0].job, "");
    assert_string_equal(b.line[1].m[0].job, "readers");
    assert_int_equal(b.line[1].m[0].better, -1);
    assert_string_equal(b.line[1].m[1].job, "writer");
    assert_int_equal(b.line[1].m[1].metric, (size_t)sbio_table_metric_index("write.mib"));
    sbio_survey_battery_free(&b);
}

/* Each bad battery: refused with -EINVAL and a message that starts "FILE:LINE: " and holds
 * the words given. */
static void test_battery_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"x - 1\n", "B:1: 3 words"},
        {"\n\nx - 0 ops:higher\n", "B:3: seconds '0'"},
        {"x - 1e9 ops:higher\n", "seconds"},
        {"x - 1 ops\n", "no direction"},
        {"x - 1 ops:more\n", "direction 'more'"},
        {"x - 1 nosuch:lower\n", "no metric 'nosuch'"},
        {"x - 1 a!b/ops:lower\n", "job 'a!b'"},
        {"x - 1 ops:higher,p50:lower,p95:lower,p99:lower,mib:higher\n", "more than 4 metrics"},
        {"x - 1 ops:higher\nx - 1 ops:higher\n", "B:2: name 'x' given twice"},
        {"x/y - 1 ops:higher\n", "name 'x/y'"},
        {"x --script-trusted=on 1 ops:higher\n", "script '--script-trusted=on'"},
        {"x - 1 ops:higher --dir=/etc\n", "--dir: the survey sets it"},
        {"x - 1 ops:higher --filename=/dev/sda\n", "--filename"},
        {"x - 1 ops:higher --allow-destroy=on\n", "--allow-destroy"},
        {"x oltp 1 ops:higher --script-trusted=on\n", "--script-trusted"},
        {"x - 1 ops:higher --config-file=/etc/passwd\n", "--config-file"},
        {"x - 1 ops:higher --schedulers=none\n", "--schedulers"},
        {"x - 1 ops:higher --vary=a=1\n", "--vary"},
        {"x - 1 ops:higher --repeat=3\n", "--repeat"},
        {"x - 1 ops:higher -o=x\n", "accepted: options as --NAME=VALUE"},
        {"x - 1 ops:higher --time\n", "accepted: options as --NAME=VALUE"},
        {"x - 1 ops:higher --time=\n", "accepted: options as --NAME=VALUE"},
        {"# nothing\n\n", "no workload"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sbio_survey_battery b;
        char err[512] = "";
        int rc = sbio_survey_battery_parse(bad[i].text, "B", &b, err, sizeof(err));
        if (rc != -EINVAL || strncmp(err, "B:", 2) || !strstr(err, bad[i].want))
            fail_msg("battery %zu: rc %d, err '%s', want '%s'", i, rc, err, bad[i].want);
        sbio_survey_battery_free(&b);
    }
}

static void test_plan(void **state)
{
    (void)state;
    struct sbio_survey_battery b;
    char err[512];
    assert_int_equal(sbio_survey_battery_parse(battery_ok, "B", &b, err, sizeof(err)), 0);
    struct sbio_survey_plan p;
    /* 4 schedulers x 3 runs x (3 + 0.5) = 42 s and x (5 + 0.5) = 66 s: 108 s. */
    assert_int_equal(sbio_survey_plan(&b, 4, 216, &p), 0);
    assert_true(fabs(p.least[0] - 42) < 1e-9 && fabs(p.least[1] - 66) < 1e-9);
    assert_true(fabs(p.least_total - 108) < 1e-9);
    /* Twice the least: each line twice its least. */
    assert_true(fabs(p.share[0] - 84) < 1e-9 && fabs(p.share[1] - 132) < 1e-9);
    /* What is left after the first: all of it to the second, never below its least. */
    assert_true(fabs(sbio_survey_share(&p, b.n, 1, 100) - 100) < 1e-9);
    assert_true(fabs(sbio_survey_share(&p, b.n, 1, 10) - 66) < 1e-9);
    assert_true(fabs(sbio_survey_share(&p, b.n, 0, 216) - 84) < 1e-9);
    /* Exactly the least is enough; below it is refused, the plan saying how much it needs. */
    assert_int_equal(sbio_survey_plan(&b, 4, 108, &p), 0);
    assert_int_equal(sbio_survey_plan(&b, 4, 107.9, &p), -ERANGE);
    assert_true(fabs(p.least_total - 108) < 1e-9);
    assert_int_equal(sbio_survey_plan(&b, 2, 54, &p), 0);
    sbio_survey_battery_free(&b);
}

/* A matrix of rows × schedulers from values: row r, scheduler s gets vals[r][s][0..n). */
static void fill(struct sbio_survey_matrix *m, size_t nrows, size_t ns, const char *metric,
                 int better, const double vals[][8][5], size_t n)
{
    memset(m, 0, sizeof(*m));
    m->nrows = nrows;
    m->ns = ns;
    static const char *const names[] = {"none", "mq-deadline", "kyber", "bfq",
                                        "s5",   "s6",          "s7",    "s8"};
    for (size_t s = 0; s < ns; s++)
        snprintf(m->sched[s], sizeof(m->sched[s]), "%s", names[s]);
    for (size_t r = 0; r < nrows; r++) {
        snprintf(m->row[r].workload, sizeof(m->row[r].workload), "w%zu", r);
        m->row[r].metric = (size_t)sbio_table_metric_index(metric);
        m->row[r].better = better;
        for (size_t s = 0; s < ns; s++)
            assert_int_equal(sbio_survey_cell_set(m, r, s, vals[r][s], n), 0);
    }
    sbio_survey_matrix_compute(m);
}

static const double clear[1][8][5] = {{
    {100, 101, 99, 100, 100},    /* the best */
    {80, 81, 79, 80, 80.5},      /* 20% worse: significant */
    {100.5, 99.5, 100, 101, 99}, /* the same as the best */
}};

static void test_matrix_higher(void **state)
{
    (void)state;
    struct sbio_survey_matrix m;
    fill(&m, 1, 3, "ops", 1, clear, 5);
    const struct sbio_survey_row *r = &m.row[0];
    assert_int_equal(r->best, 0);
    assert_true(r->cell[0].best && !r->cell[1].best && !r->cell[2].best);
    assert_int_equal(m.ntests, 3);
    assert_true(r->cell[1].sig);
    assert_false(r->cell[2].sig);
    assert_false(r->cell[0].sig);
    assert_true(r->cell[1].diff_pct < -19 && r->cell[1].diff_pct > -21);
    assert_true(r->cell[1].lo < r->cell[1].diff_pct && r->cell[1].diff_pct < r->cell[1].hi);
    assert_true(r->cell[1].hi < 0);
    assert_true(r->cell[2].lo < 0 && r->cell[2].hi > 0);
    /* Holm over the 3 pairs: at least p, at most 3p. */
    assert_true(r->cell[1].p_holm >= r->cell[1].p && r->cell[1].p_holm <= 3 * r->cell[1].p + 1e-12);
    char v[512];
    sbio_survey_verdict(&m, 0, v, sizeof(v));
    assert_non_null(strstr(v, "none and kyber best (no significant difference between them)"));
    assert_non_null(strstr(v, "than mq-deadline"));
    assert_non_null(strstr(v, "% higher"));
    sbio_survey_matrix_free(&m);
}

static void test_matrix_lower(void **state)
{
    (void)state;
    /* Latencies: the lowest is the best; 12x apart is said as a ratio. */
    static const double lat[1][8][5] = {{
        {12e6, 12.2e6, 11.8e6, 12.1e6, 11.9e6},
        {1e6, 1.01e6, 0.99e6, 1e6, 1.02e6},
    }};
    struct sbio_survey_matrix m;
    fill(&m, 1, 2, "read.p99", -1, lat, 5);
    assert_int_equal(m.row[0].best, 1);
    assert_true(m.row[0].cell[0].sig);
    char v[512];
    sbio_survey_verdict(&m, 0, v, sizeof(v));
    assert_non_null(strstr(v, "mq-deadline best, 12x lower than none"));
    sbio_survey_matrix_free(&m);
}

/* A/A: every scheduler's values from one distribution (normal, 100 ± 5, from a fixed LCG): over
 * 1000 matrices of 4 rows × 4 schedulers, Holm keeps the share of matrices with any significant
 * cell near 5% (family-wise: at most 70, 5% and 3 binomial sd), and a verdict never names a best.
 * Tests of each cell against its row's best alone would not: the best is chosen as the extreme, and
 * (with uniform draws, 20 of 200 matrices had a significant cell that way); the family is
 * every pair. */
/* A draw of a normal distribution of mean 100 and sd 5 (Box-Muller over a 64-bit LCG in *x). */
static double normal(uint64_t *x)
{
    double u[2];
    for (int q = 0; q < 2; q++) {
        *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
        u[q] = ((double)(*x >> 11) + 0.5) / 9007199254740992.0;
    }
    return 100 + 5 * sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

static void test_matrix_aa(void **state)
{
    (void)state;
    uint64_t x = 12345;
    size_t any = 0;
    for (int k = 0; k < 1000; k++) {
        double vals[4][8][5];
        for (size_t r = 0; r < 4; r++)
            for (size_t s = 0; s < 4; s++)
                for (size_t i = 0; i < 5; i++)
                    vals[r][s][i] = normal(&x);
        struct sbio_survey_matrix m;
        fill(&m, 4, 4, "ops", 1, (const double(*)[8][5])vals, 5);
        assert_int_equal(m.ntests, 24);
        bool sig = false;
        for (size_t r = 0; r < 4; r++) {
            char v[512];
            sbio_survey_verdict(&m, r, v, sizeof(v));
            bool rs = false;
            for (size_t s = 0; s < 4; s++)
                rs |= m.row[r].cell[s].sig;
            if (!rs && !strstr(v, "no significant difference between"))
                fail_msg("A/A verdict without a significant cell: %s", v);
            sig |= rs;
        }
        any += sig;
        sbio_survey_matrix_free(&m);
    }
    if (any > 70)
        fail_msg("%zu of 1000 A/A matrices had a significant cell (at most 70 expected)", any);
    print_message("A/A: %zu of 1000 matrices with a significant cell\n", any);
}

/* A cell of one run has no test: however far it is, the verdict names no winner over it. */
static void test_matrix_untested(void **state)
{
    (void)state;
    static const double one[1][8][5] = {{{100}, {10}}};
    struct sbio_survey_matrix m;
    fill(&m, 1, 2, "ops", 1, one, 1);
    assert_int_equal(m.ntests, 0);
    assert_false(m.row[0].cell[1].sig);
    assert_true(isnan(m.row[0].cell[0].half));
    char v[512];
    sbio_survey_verdict(&m, 0, v, sizeof(v));
    assert_null(strstr(v, "best"));
    sbio_survey_matrix_free(&m);
    /* A row without figures. */
    memset(&m, 0, sizeof(m));
    m.nrows = 1;
    m.ns = 2;
    m.row[0].metric = (size_t)sbio_table_metric_index("ops");
    m.row[0].better = 1;
    sbio_survey_matrix_compute(&m);
    sbio_survey_verdict(&m, 0, v, sizeof(v));
    assert_non_null(strstr(v, "no figures"));
}

/* Display columns of a UTF-8 line. */
static size_t cols(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

/* The matrix printed (mail or text) into a string of the caller's (freed by it). */
static char *print(const struct sbio_survey_matrix *m, bool mail, char **buf, size_t *len)
{
    *buf = NULL;
    FILE *f = open_memstream(buf, len);
    assert_non_null(f);
    sbio_survey_print(m, NULL, mail, f);
    fclose(f);
    return *buf;
}

/* The widest line of out, failing on one over 72 columns. */
static size_t mail_width(const char *out)
{
    size_t maxw = 0;
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        size_t c = cols(p, n);
        if (c > 72)
            fail_msg("mail line of %zu columns: %.*s", c, (int)n, p);
        maxw = c > maxw ? c : maxw;
        p += n + (nl != NULL);
    }
    return maxw;
}

/* Eight schedulers with wide figures: mail keeps every line within 72 columns and shows every
 * scheduler; text puts them all on one line. */
static void test_mail_width(void **state)
{
    (void)state;
    double vals[2][8][5];
    for (size_t r = 0; r < 2; r++)
        for (size_t s = 0; s < 8; s++)
            for (size_t i = 0; i < 5; i++)
                vals[r][s][i] = (s + 1) * 123456.7 * (1 + 0.3 * (double)i) * (r ? 1e3 : 1);
    struct sbio_survey_matrix m;
    fill(&m, 2, 8, "read.p99", -1, (const double(*)[8][5])vals, 5);
    snprintf(m.row[1].job, sizeof(m.row[1].job), "a-job-with-a-long-name");
    char *mem;
    size_t memlen;
    char *out = print(&m, true, &mem, &memlen);
    assert_true(mail_width(out) > 40);
    for (size_t s = 0; s < 8; s++)
        assert_non_null(strstr(out, m.sched[s]));
    assert_non_null(strstr(out, "Verdicts:"));
    free(out);
    out = print(&m, false, &mem, &memlen);
    char *hdr = strstr(out, "none");
    assert_non_null(hdr);
    char *eol = strchr(hdr, '\n');
    assert_non_null(eol);
    assert_non_null(memmem(hdr, (size_t)(eol - hdr), "s8", 2));
    free(out);
    sbio_survey_matrix_free(&m);
}

static void test_json(void **state)
{
    (void)state;
    struct sbio_survey_matrix m;
    fill(&m, 1, 3, "ops", 1, clear, 5);
    json_t *j = sbio_survey_matrix_json(&m);
    json_t *row = json_array_get(json_object_get(j, "rows"), 0);
    assert_string_equal(json_string_value(json_object_get(row, "metric")), "ops");
    assert_string_equal(json_string_value(json_object_get(row, "better")), "higher");
    json_t *cells = json_object_get(row, "cells");
    assert_int_equal(json_array_size(cells), 3);
    assert_true(json_is_true(json_object_get(json_array_get(cells, 0), "best")));
    assert_true(json_is_true(json_object_get(json_array_get(cells, 1), "significant")));
    assert_true(json_is_false(json_object_get(json_array_get(cells, 2), "significant")));
    assert_true(json_is_null(json_object_get(json_array_get(cells, 0), "p")));
    assert_int_equal(json_array_size(json_object_get(json_array_get(cells, 1), "values")), 5);
    assert_int_equal(json_integer_value(json_object_get(j, "tests")), 3);
    json_decref(j);
    sbio_survey_matrix_free(&m);
}

/* A matrix written as JSON and read back: the same cells, every figure computed again. */
static void test_from_json(void **state)
{
    (void)state;
    struct sbio_survey_matrix m, back;
    char err[256];
    fill(&m, 1, 3, "ops", 1, clear, 5);
    json_t *doc = json_pack("{s:o}", "matrix", sbio_survey_matrix_json(&m));
    assert_int_equal(sbio_survey_matrix_from_json(doc, &back, err, sizeof(err)), 0);
    assert_int_equal(back.ns, 3);
    assert_int_equal(back.nrows, 1);
    for (size_t s = 0; s < 3; s++) {
        assert_string_equal(back.sched[s], m.sched[s]);
        assert_true(back.row[0].cell[s].mean == m.row[0].cell[s].mean);
        assert_int_equal(back.row[0].cell[s].sig, m.row[0].cell[s].sig);
    }
    /* A file's own figures are never taken: a mean written there is computed again. */
    json_t *c0 = json_array_get(
        json_object_get(json_array_get(sbio_json_get(doc, "matrix.rows"), 0), "cells"), 0);
    json_object_set_new(c0, "mean", json_real(1e9));
    sbio_survey_matrix_free(&back);
    assert_int_equal(sbio_survey_matrix_from_json(doc, &back, err, sizeof(err)), 0);
    assert_true(back.row[0].cell[0].mean == m.row[0].cell[0].mean);
    sbio_survey_matrix_free(&back);
    json_object_set_new(c0, "values", json_pack("[i,s]", 1, "2"));
    assert_int_equal(sbio_survey_matrix_from_json(doc, &back, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "matrix.rows[0].cells[0].values[1] is not a figure sbio measures (a "
                             "number from 0 to 1e15)");
    /* A scheduler named twice, or a row given twice, is not what sbio writes. */
    json_object_set_new(c0, "values", json_pack("[i]", 1));
    json_array_set_new(sbio_json_get(doc, "matrix.schedulers"), 1, json_string("none"));
    assert_int_equal(sbio_survey_matrix_from_json(doc, &back, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "matrix.schedulers[1] is none again (sbio names a repeat #2)");
    json_decref(doc);
    sbio_survey_matrix_free(&m);
}

/* The difference of two surveys: rows and schedulers matched by name whatever their order,
 * B's change from A per cell; a halved throughput significant and worse, a lower latency
 * better; what only one side has is left out; mail within 72 columns. */
static void test_diff(void **state)
{
    (void)state;
#define B_ROW                                                                                      \
    {                                                                                              \
        {100.5, 99.5, 100, 101, 99},    /* kyber (third in A): the same */                         \
            {100, 101, 99, 100, 100},   /* none: the same */                                       \
            {40, 40.5, 39.5, 40, 40.2}, /* mq-deadline: 80 -> 40, halved */                        \
            {1, 2, 3, 4, 5},            /* bfq: only in B */                                       \
    }
    static const double b_vals[2][8][5] = {B_ROW, B_ROW};
#undef B_ROW
    struct sbio_survey_matrix a, b;
    struct sbio_survey_diff *d = calloc(1, sizeof(*d));
    assert_non_null(d);
    fill(&a, 1, 3, "ops", 1, clear, 5);
    fill(&b, 2, 4, "ops", 1, b_vals, 5);
    snprintf(b.sched[0], sizeof(b.sched[0]), "kyber");
    snprintf(b.sched[1], sizeof(b.sched[1]), "none");
    snprintf(b.sched[2], sizeof(b.sched[2]), "mq-deadline");
    snprintf(b.row[1].workload, sizeof(b.row[1].workload), "other"); /* a row only in B */
    assert_int_equal(sbio_survey_diff_compute(&a, &b, d), 0);
    assert_int_equal(d->nrows, 1);
    assert_int_equal(d->ns, 3);
    assert_int_equal(d->ntests, 3);
    assert_true(fabs(d->c[0][1].pct - (40.04 / 80.1 - 1) * 100) < 0.01);
    assert_true(d->c[0][1].sig && d->c[0][1].worse);
    assert_true(d->c[0][1].hi < -40 && d->c[0][1].lo > -60);
    assert_false(d->c[0][0].sig);
    assert_false(d->c[0][2].sig);
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    sbio_survey_diff_print(d, true, f);
    fclose(f);
    mail_width(out);
    assert_non_null(strstr(out, "80.1 -> 40.0"));
    assert_non_null(strstr(out, "- w0, ops/s, mq-deadline: -50% ["));
    assert_non_null(strstr(out, "in B, worse"));
    free(out);
    /* Nothing in common: -ENOENT. */
    snprintf(b.row[0].workload, sizeof(b.row[0].workload), "gone");
    assert_int_equal(sbio_survey_diff_compute(&a, &b, d), -ENOENT);
    sbio_survey_matrix_free(&a);
    sbio_survey_matrix_free(&b);
    free(d);
}

/* Two surveys of the same machine (A/A, normal draws): at most about 5% of the tables mark
 * a change. */
static void test_diff_aa(void **state)
{
    (void)state;
    uint64_t x = 777;
    size_t any = 0;
    struct sbio_survey_diff *d = calloc(1, sizeof(*d));
    assert_non_null(d);
    for (int k = 0; k < 500; k++) {
        double vals[2][3][8][5];
        for (size_t side = 0; side < 2; side++)
            for (size_t r = 0; r < 3; r++)
                for (size_t s = 0; s < 3; s++)
                    for (size_t i = 0; i < 5; i++)
                        vals[side][r][s][i] = normal(&x);
        struct sbio_survey_matrix a, b;
        fill(&a, 3, 3, "ops", 1, (const double(*)[8][5])vals[0], 5);
        fill(&b, 3, 3, "ops", 1, (const double(*)[8][5])vals[1], 5);
        assert_int_equal(sbio_survey_diff_compute(&a, &b, d), 0);
        bool sig = false;
        for (size_t r = 0; r < 3; r++)
            for (size_t s = 0; s < 3; s++)
                sig |= d->c[r][s].sig;
        any += sig;
        sbio_survey_matrix_free(&a);
        sbio_survey_matrix_free(&b);
    }
    free(d);
    if (any > 35)
        fail_msg("%zu of 500 A/A survey diffs marked a change (at most 35 expected)", any);
    print_message("A/A diffs: %zu of 500 with a significant cell\n", any);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget),          cmocka_unit_test(test_battery_ok),
        cmocka_unit_test(test_battery_refused), cmocka_unit_test(test_plan),
        cmocka_unit_test(test_matrix_higher),   cmocka_unit_test(test_matrix_lower),
        cmocka_unit_test(test_matrix_aa),       cmocka_unit_test(test_matrix_untested),
        cmocka_unit_test(test_mail_width),      cmocka_unit_test(test_json),
        cmocka_unit_test(test_from_json),       cmocka_unit_test(test_diff),
        cmocka_unit_test(test_diff_aa),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
