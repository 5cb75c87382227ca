/* Unit tests for how a phase's jobs shared it (sbio_result_shares, src/core/result.c): shares of
 * operations and bytes, the share each job's weight asks for, and Jain's fairness index, on
 * results filled by hand. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "report.h"
#include "result.h"

#define BLK 4096ULL
#define SEC 1000000000ULL

/* Job k of res: reads and writes of BLK bytes each, over secs seconds. */
static void fill(struct sbio_run_result *res, unsigned k, uint64_t reads, uint64_t writes,
                 double secs)
{
    struct sbio_stats *t = &res[k].total;
    sbio_stats_init(t);
    for (uint64_t i = 0; i < reads; i++)
        sbio_stats_record(t, SBIO_READ, 1000, BLK, 1);
    for (uint64_t i = 0; i < writes; i++)
        sbio_stats_record(t, SBIO_WRITE, 1000, BLK, 1);
    res[k].elapsed_ns = (uint64_t)(secs * SEC);
}

static struct sbio_run_result *results(unsigned n)
{
    struct sbio_run_result *r = aligned_alloc(64, n * sizeof(*r));
    assert_non_null(r);
    memset(r, 0, n * sizeof(*r));
    return r;
}

/* sbio_result_shares over the n results of r. */
static int shares(struct sbio_shares *sh, const struct sbio_run_result *r,
                  const struct sbio_cgroup_spec *groups, unsigned n)
{
    const struct sbio_run_result *p[SBIO_SHARES_MAX];
    for (unsigned k = 0; k < n; k++)
        p[k] = &r[k];
    return sbio_result_shares(sh, p, groups, n);
}

static void assert_near(double got, double want)
{
    if (!(fabs(got - want) < 1e-9))
        fail_msg("got %.12g, want %.12g", got, want);
}

/* Each kind of share sums to 1 over the jobs. */
static void assert_sums(const struct sbio_shares *sh)
{
    double o = 0, b = 0;
    for (unsigned k = 0; k < sh->n; k++) {
        o += sh->job[k].ops;
        b += sh->job[k].bytes;
    }
    assert_near(o, 1);
    assert_near(b, 1);
}

/* Equal jobs: equal shares, J = 1; no weights: no asked share. */
static void test_equal(void **state)
{
    (void)state;
    struct sbio_run_result *r = results(3);
    for (unsigned k = 0; k < 3; k++)
        fill(r, k, 300, 100, 2);
    struct sbio_shares sh;
    assert_int_equal(shares(&sh, r, NULL, 3), 0);
    assert_int_equal(sh.n, 3);
    assert_false(sh.weighted);
    assert_false(sh.over_ops);
    assert_near(sh.jain, 1);
    for (unsigned k = 0; k < 3; k++) {
        assert_near(sh.job[k].ops, 1.0 / 3);
        assert_near(sh.job[k].read_ops, 1.0 / 3);
        assert_near(sh.job[k].write_bytes, 1.0 / 3);
        assert_near(sh.job[k].bytes_per_s, 400.0 * BLK / 2);
        assert_near(sh.job[k].ops_per_s, 200);
        assert_int_equal(sh.job[k].weight, 0);
        assert_true(isnan(sh.job[k].asked) && isnan(sh.job[k].ratio));
    }
    assert_sums(&sh);
    free(r);
}

/* One job takes everything: J = 1/n. One job starved beside equal others: J = (n-1)/n. */
static void test_starved(void **state)
{
    (void)state;
    struct sbio_run_result *r = results(4);
    struct sbio_shares sh;
    fill(r, 0, 1000, 0, 1);
    for (unsigned k = 1; k < 4; k++)
        fill(r, k, 0, 0, 1);
    assert_int_equal(shares(&sh, r, NULL, 4), 0);
    assert_near(sh.jain, 0.25);
    assert_near(sh.job[0].bytes, 1);
    assert_near(sh.job[3].bytes, 0);
    for (unsigned k = 0; k < 3; k++)
        fill(r, k, 500, 0, 1);
    fill(r, 3, 0, 0, 1);
    assert_int_equal(shares(&sh, r, NULL, 4), 0);
    assert_near(sh.jain, 0.75);
    assert_near(sh.job[3].ops, 0);
    assert_sums(&sh);
    free(r);
}

/* Shares are of counts, the index of rates: equal bytes over 1 s and 2 s are equal shares,
 * and rates 2:1, J = 3^2 / (2 (2^2 + 1)) = 0.9. A phase without writes has no write share. */
static void test_rates(void **state)
{
    (void)state;
    struct sbio_run_result *r = results(2);
    fill(r, 0, 256, 0, 1);
    fill(r, 1, 256, 0, 2);
    struct sbio_shares sh;
    assert_int_equal(shares(&sh, r, NULL, 2), 0);
    assert_near(sh.job[0].bytes, 0.5);
    assert_near(sh.job[1].bytes, 0.5);
    assert_near(sh.jain, 0.9);
    assert_true(isnan(sh.job[0].write_ops) && isnan(sh.job[1].write_bytes));
    free(r);
}

/* Weights 100:800 and bytes 1:8: asked shares 1/9 and 8/9, ratio 1 each, J = 1 over bytes/s
 * per asked share; the same bytes 1:1 are unfair to the weights. bfq_weight counts before
 * weight, and a group not set counts for nothing. */
static void test_weights(void **state)
{
    (void)state;
    struct sbio_run_result *r = results(2);
    fill(r, 0, 100, 0, 2);
    fill(r, 1, 800, 0, 2);
    struct sbio_cgroup_spec g[2] = {{.set = true, .bfq_weight = 100, .weight = 5000},
                                    {.set = true, .weight = 800}};
    struct sbio_shares sh;
    assert_int_equal(shares(&sh, r, g, 2), 0);
    assert_true(sh.weighted);
    assert_int_equal(sh.job[0].weight, 100);
    assert_int_equal(sh.job[1].weight, 800);
    assert_near(sh.job[0].asked, 1.0 / 9);
    assert_near(sh.job[1].asked, 8.0 / 9);
    assert_near(sh.job[0].ratio, 1);
    assert_near(sh.job[1].ratio, 1);
    assert_near(sh.jain, 1);
    fill(r, 1, 100, 0, 2);
    assert_int_equal(shares(&sh, r, g, 2), 0);
    assert_near(sh.job[0].ratio, 4.5);
    assert_near(sh.job[1].ratio, 0.5625);
    assert_near(sh.jain, (1 + 1.0 / 8) * (1 + 1.0 / 8) / (2 * (1 + 1.0 / 64)));
    g[0].set = g[1].set = false;
    assert_int_equal(shares(&sh, r, g, 2), 0);
    assert_false(sh.weighted);
    assert_near(sh.jain, 1);
    free(r);
}

/* A job without a weight beside one with a weight counts for the kernel's default, 100. */
static void test_default_weight(void **state)
{
    (void)state;
    struct sbio_run_result *r = results(2);
    fill(r, 0, 300, 0, 1);
    fill(r, 1, 100, 0, 1);
    struct sbio_cgroup_spec g[2] = {{.set = true, .weight = 300}, {.set = false}};
    struct sbio_shares sh;
    assert_int_equal(shares(&sh, r, g, 2), 0);
    assert_int_equal(sh.job[1].weight, SBIO_SHARES_DEFAULT_WEIGHT);
    assert_near(sh.job[0].asked, 0.75);
    assert_near(sh.job[1].asked, 0.25);
    assert_near(sh.jain, 1);
    free(r);
}

/* A phase of fsyncs only moves no bytes: shares and the index over operations. Nothing at
 * all: every x is 0, J = 1. n out of range: -EINVAL. */
static void test_no_bytes(void **state)
{
    (void)state;
    struct sbio_run_result *r = results(2);
    for (unsigned k = 0; k < 2; k++) {
        sbio_stats_init(&r[k].total);
        r[k].elapsed_ns = SEC;
    }
    for (int i = 0; i < 3; i++)
        sbio_stats_record(&r[0].total, SBIO_FSYNC, 1000, 0, 1);
    sbio_stats_record(&r[1].total, SBIO_FSYNC, 1000, 0, 1);
    struct sbio_shares sh;
    assert_int_equal(shares(&sh, r, NULL, 2), 0);
    assert_true(sh.over_ops);
    assert_true(isnan(sh.job[0].bytes));
    assert_near(sh.job[0].ops, 0.75);
    assert_near(sh.jain, 16.0 / 20);
    sbio_stats_init(&r[0].total);
    sbio_stats_init(&r[1].total);
    assert_int_equal(shares(&sh, r, NULL, 2), 0);
    assert_near(sh.jain, 1);
    const struct sbio_run_result *many[SBIO_SHARES_MAX + 1];
    for (unsigned k = 0; k <= SBIO_SHARES_MAX; k++)
        many[k] = &r[0];
    sh.n = 7;
    assert_int_equal(sbio_result_shares(&sh, many, NULL, 0), -EINVAL);
    assert_int_equal(sbio_result_shares(&sh, many, NULL, SBIO_SHARES_MAX + 1), -EINVAL);
    assert_int_equal(sh.n, 7);
    assert_int_equal(sbio_result_shares(&sh, many, NULL, SBIO_SHARES_MAX), 0);
    assert_near(sh.jain, 1);
    free(r);
}

/* The text table of a weighted phase: each job's weight, asked share and ratio, and the
 * index said to be over bytes/s per asked share; "-" for a share the phase has none of. */
static void test_text(void **state)
{
    (void)state;
    struct sbio_run_result *r = results(2);
    fill(r, 0, 100, 0, 2);
    fill(r, 1, 800, 0, 2);
    struct sbio_cgroup_spec g[2] = {{.set = true, .bfq_weight = 100}, {.set = true, .weight = 800}};
    struct sbio_shares sh;
    assert_int_equal(shares(&sh, r, g, 2), 0);
    const char *names[2] = {"light", "heavy-reader"};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    sbio_report_shares(f, &sh, names);
    fclose(f);
    assert_has(buf,
               "  job               MiB/s  ops share  bytes share  weight  asked share  ratio\n");
    assert_has(buf,
               "  light              0.20      0.111        0.111     100        0.111   1.00\n");
    assert_has(buf,
               "  heavy-reader       1.56      0.889        0.889     800        0.889   1.00\n");
    assert_has(buf, "  Jain's fairness index: 1.000 (over bytes/s per asked share, 2 jobs)\n");
    assert_lacks(buf, "reads share");
    free(buf);
    /* A job that reads and writes: the reads' and writes' shares get columns. */
    fill(r, 1, 100, 100, 2);
    assert_int_equal(shares(&sh, r, NULL, 2), 0);
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    sbio_report_shares(f, &sh, names);
    fclose(f);
    assert_has(buf, "reads share  writes share  weight  asked share  ratio\n");
    assert_has(
        buf, "  heavy-reader       0.39      0.667        0.667        0.500         1.000       -"
             "            -      -\n");
    assert_has(
        buf, "  light              0.20      0.333        0.333        0.500         0.000       -"
             "            -      -\n");
    assert_has(buf, "  Jain's fairness index: 0.900 (over bytes/s, 2 jobs)\n");
    free(buf);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal),          cmocka_unit_test(test_starved),
        cmocka_unit_test(test_rates),          cmocka_unit_test(test_weights),
        cmocka_unit_test(test_default_weight), cmocka_unit_test(test_no_bytes),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
