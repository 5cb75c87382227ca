/* Unit tests for compare's statistics and run order (src/compare.c): mean and sample
 * standard deviation, the regularized incomplete beta function, Welch's t-test, the
 * repeat-major (and random) run order, the cartesian product of the axes, and
 * what a key of --vary sets (a script's option first, then the scheduler, a queue knob, a
 * run option; anything else refused with what can be varied).
 *
 * Expected values come from closed forms where one exists, and otherwise from SciPy 1.10.1
 * (Debian's python3-scipy), computed when the test was written; the commands are in the
 * comments next to the numbers. */
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

#include "compare.h"
#include "decl.h"
#include "helpers.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* |got - want| <= tol, with both numbers in the failure message. */
#define assert_close(got, want, tol)                                                               \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!(fabs(g_ - w_) <= (tol)))                                                             \
            fail_msg("%s = %.15g, want %.15g (tolerance %g)", #got, g_, w_, (double)(tol));        \
    } while (0)

/* ---- mean and sample standard deviation ---- */

static void test_mean_sd_known(void **state)
{
    (void)state;
    double mean, sd;
    /* The textbook set: population sd 2, sample sd sqrt(32/7).
     * python3 -c "import numpy as n; x=[2,4,4,4,5,5,7,9]; print(n.mean(x), n.std(x, ddof=1))"
     * → 5.0 2.138089935299395 */
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    sbio_compare_mean_sd(x, ARRAY_LEN(x), &mean, &sd);
    assert_close(mean, 5.0, 1e-12);
    assert_close(sd, sqrt(32.0 / 7.0), 1e-12);
    assert_close(sd, 2.138089935299395, 1e-12);

    /* Two values: sd = |a - b| / sqrt(2) (n - 1 = 1), not |a - b| / 2. */
    const double two[] = {10, 14};
    sbio_compare_mean_sd(two, 2, &mean, &sd);
    assert_close(mean, 12.0, 1e-12);
    assert_close(sd, 4.0 / sqrt(2.0), 1e-12);

    /* Large values close together: no catastrophic cancellation (two-pass). */
    const double big[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    sbio_compare_mean_sd(big, 3, &mean, &sd);
    assert_close(mean, 1e9 + 2, 1e-6);
    assert_close(sd, 1.0, 1e-6);

    /* Constant: sd 0. */
    const double c[] = {3.5, 3.5, 3.5, 3.5};
    sbio_compare_mean_sd(c, 4, &mean, &sd);
    assert_close(mean, 3.5, 0);
    assert_close(sd, 0.0, 0);
}

static void test_mean_sd_small_n(void **state)
{
    (void)state;
    double mean = -1, sd = -1;
    const double one[] = {42.25};
    sbio_compare_mean_sd(one, 1, &mean, &sd);
    assert_close(mean, 42.25, 0);
    assert_close(sd, 0.0, 0);

    mean = sd = -1;
    sbio_compare_mean_sd(one, 0, &mean, &sd);
    assert_close(mean, 0.0, 0);
    assert_close(sd, 0.0, 0);
}

/* ---- the regularized incomplete beta function ---- */

static void test_betai_closed_forms(void **state)
{
    (void)state;
    const double xs[] = {0.001, 0.05, 0.1, 0.25, 0.3, 0.5, 0.6, 0.75, 0.9, 0.99, 0.999};
    for (size_t i = 0; i < ARRAY_LEN(xs); i++) {
        double x = xs[i];
        /* I_x(1, 1) = x (the uniform distribution's CDF). */
        assert_close(sbio_compare_betai(1, 1, x), x, 1e-12);
        /* I_x(a, 1) = x^a and I_x(1, b) = 1 - (1 - x)^b. */
        assert_close(sbio_compare_betai(3, 1, x), pow(x, 3), 1e-12);
        assert_close(sbio_compare_betai(1, 4, x), 1 - pow(1 - x, 4), 1e-12);
        /* I_x(1/2, 1/2) = (2 / pi) asin(sqrt(x)) (the arcsine distribution). */
        assert_close(sbio_compare_betai(0.5, 0.5, x), 2 / M_PI * asin(sqrt(x)), 1e-10);
        /* Integer a, b: the binomial tail, I_x(2, 3) = sum_{j=2..4} C(4,j) x^j (1-x)^(4-j). */
        double bin = 6 * x * x * pow(1 - x, 2) + 4 * pow(x, 3) * (1 - x) + pow(x, 4);
        assert_close(sbio_compare_betai(2, 3, x), bin, 1e-12);
        /* Symmetry: I_x(a, b) = 1 - I_{1-x}(b, a). */
        assert_close(sbio_compare_betai(2.5, 7, x), 1 - sbio_compare_betai(7, 2.5, 1 - x), 1e-12);
    }
    /* I_0.5(a, a) = 1/2 for every a. */
    const double as[] = {0.5, 1, 2, 3.7, 10, 50, 200};
    for (size_t i = 0; i < ARRAY_LEN(as); i++)
        assert_close(sbio_compare_betai(as[i], as[i], 0.5), 0.5, 1e-10);
}

static void test_betai_edges(void **state)
{
    (void)state;
    assert_close(sbio_compare_betai(2, 3, 0), 0.0, 0);
    assert_close(sbio_compare_betai(2, 3, 1), 1.0, 0);
    assert_close(sbio_compare_betai(2, 3, -0.5), 0.0, 0);
    assert_close(sbio_compare_betai(2, 3, 1.5), 1.0, 0);
    /* Monotone in x. */
    double prev = 0;
    for (int i = 1; i < 100; i++) {
        double v = sbio_compare_betai(4.5, 0.5, i / 100.0);
        assert_true(v >= prev);
        assert_true(v <= 1);
        prev = v;
    }
}

static void test_betai_scipy(void **state)
{
    (void)state;
    /* python3 -c "from scipy import special
     *   for a, b, x in [(2,3,.4), (.5,.5,.3), (5,.5,.9), (10,20,.3), (1.5,.5,.99), (50,.5,.95)]:
     *       print(a, b, x, repr(special.betainc(a, b, x)))"   (SciPy 1.10.1) */
    static const struct {
        double a, b, x, want;
    } t[] = {
        {2, 3, 0.4, 0.5247999999999999},      {0.5, 0.5, 0.3, 0.3690101195655454},
        {5, 0.5, 0.9, 0.316642915020012},     {10, 20, 0.3, 0.3640040810719437},
        {1.5, 0.5, 0.99, 0.8728885715695381}, {50, 0.5, 0.95, 0.02387270549699073},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++)
        assert_close(sbio_compare_betai(t[i].a, t[i].b, t[i].x), t[i].want, 1e-10);
}

/* ---- Welch's t-test ---- */

/* The p-value of two samples as compare computes it: mean and sample sd, then the test. */
static double welch_samples(const double *a, size_t na, const double *b, size_t nb)
{
    double m1, s1, m2, s2;
    sbio_compare_mean_sd(a, na, &m1, &s1);
    sbio_compare_mean_sd(b, nb, &m2, &s2);
    return sbio_compare_welch_p(m1, s1, na, m2, s2, nb);
}

static void test_welch_scipy(void **state)
{
    (void)state;
    /* python3 -c "from scipy import stats
     *   print(stats.ttest_ind([10,12,11,13,9], [14,15,13,16], equal_var=False))"
     * → statistic=-3.6556307750696546, pvalue=0.008156170828391868 */
    const double a1[] = {10, 12, 11, 13, 9}, b1[] = {14, 15, 13, 16};
    assert_close(welch_samples(a1, 5, b1, 4), 0.008156170828391868, 1e-9);
    /* Symmetric in the two samples. */
    assert_close(welch_samples(b1, 4, a1, 5), 0.008156170828391868, 1e-9);

    /* Throughput-like figures, three runs each (unequal variances).
     * python3 -c "from scipy import stats
     *   print(stats.ttest_ind([1020,980,1003], [1100,1150,1080], equal_var=False))"
     * → statistic=-4.574880994380315, pvalue=0.017848717597570434 */
    const double a2[] = {1020, 980, 1003}, b2[] = {1100, 1150, 1080};
    assert_close(welch_samples(a2, 3, b2, 3), 0.017848717597570434, 1e-9);

    /* Overlapping samples of different sizes: far from significant.
     * python3 -c "from scipy import stats
     *   print(stats.ttest_ind([5.1,4.9,5.3,5.0,4.8,5.2], [5.0,5.4,4.7], equal_var=False))"
     * → statistic=0.07692307692307254, pvalue=0.9442374039524422 */
    const double a3[] = {5.1, 4.9, 5.3, 5.0, 4.8, 5.2}, b3[] = {5.0, 5.4, 4.7};
    assert_close(welch_samples(a3, 6, b3, 3), 0.9442374039524422, 1e-9);
}

static void test_welch_closed_form(void **state)
{
    (void)state;
    /* {0, 2} vs {4, 6}: both sd sqrt(2), so v1 = v2 = 1, t = -4 / sqrt(2), and Welch's
     * df = (1 + 1)^2 / (1 + 1) = 2. With 2 degrees of freedom the two-sided p-value is
     * 1 - |t| / sqrt(t^2 + 2) = 1 - sqrt(8) / sqrt(10). */
    const double a[] = {0, 2}, b[] = {4, 6};
    assert_close(welch_samples(a, 2, b, 2), 1 - sqrt(8.0 / 10.0), 1e-10);
    /* Given directly as mean, sd, n. */
    assert_close(sbio_compare_welch_p(1, sqrt(2), 2, 5, sqrt(2), 2), 1 - sqrt(0.8), 1e-10);
}

static void test_welch_cases(void **state)
{
    (void)state;
    /* Identical samples: t = 0, p = 1. */
    const double a[] = {100, 104, 98, 101};
    assert_close(welch_samples(a, 4, a, 4), 1.0, 1e-9);
    assert_close(sbio_compare_welch_p(5000, 120, 3, 5000, 80, 3), 1.0, 1e-9);

    /* Very different, tight samples: p < 0.001. */
    const double lo[] = {1000, 1001, 999, 1000}, hi[] = {2000, 2001, 1999, 2002};
    double p = welch_samples(lo, 4, hi, 4);
    assert_true(p >= 0);
    if (!(p < 0.001))
        fail_msg("tight samples 1000 vs 2000: p = %g, want < 0.001", p);

    /* A p-value is a probability, decreasing as the means move apart. */
    double prev = 1.0 + 1e-12;
    for (int d = 0; d <= 50; d += 5) {
        double q = sbio_compare_welch_p(1000, 20, 3, 1000 + d, 30, 3);
        assert_true(q >= 0 && q <= 1);
        assert_true(q <= prev);
        prev = q;
    }

    /* Fewer than 2 values in either sample: no test. */
    assert_close(sbio_compare_welch_p(10, 0, 1, 12, 1, 3), -1.0, 0);
    assert_close(sbio_compare_welch_p(10, 1, 3, 12, 0, 1), -1.0, 0);
    assert_close(sbio_compare_welch_p(10, 0, 1, 12, 0, 1), -1.0, 0);
    assert_close(sbio_compare_welch_p(10, 0, 0, 12, 1, 3), -1.0, 0);

    /* Both constant: equal → 1, different → 0 (no division by zero, no NaN). */
    assert_close(sbio_compare_welch_p(7, 0, 3, 7, 0, 2), 1.0, 0);
    assert_close(sbio_compare_welch_p(7, 0, 3, 8, 0, 2), 0.0, 0);
    const double c1[] = {5, 5, 5}, c2[] = {6, 6};
    assert_close(welch_samples(c1, 3, c1, 3), 1.0, 0);
    assert_close(welch_samples(c1, 3, c2, 2), 0.0, 0);

    /* One constant, the other not: an ordinary test (df from the varying sample alone). */
    p = sbio_compare_welch_p(10, 0, 3, 12, 1, 3);
    assert_false(isnan(p));
    assert_true(p > 0 && p < 1);
}

/* ---- the run order ---- */

/* Each repeat's slice of out is a permutation of 0..ns-1. */
static void assert_permutation_per_repeat(const size_t *out, size_t ns, unsigned repeat)
{
    bool *seen = calloc(ns, sizeof(bool));
    assert_non_null(seen);
    for (unsigned r = 0; r < repeat; r++) {
        memset(seen, 0, ns * sizeof(bool));
        for (size_t i = 0; i < ns; i++) {
            size_t s = out[(size_t)r * ns + i];
            if (s >= ns)
                fail_msg("repeat %u position %zu: setting %zu out of range (%zu)", r, i, s, ns);
            if (seen[s])
                fail_msg("repeat %u: setting %zu twice", r, s);
            seen[s] = true;
        }
    }
    free(seen);
}

static void test_order_interleaved(void **state)
{
    (void)state;
    /* Repeat-major: repeat 1 of every setting, then repeat 2, …, each in setting order. */
    size_t out[5 * 3];
    memset(out, 0xff, sizeof(out));
    sbio_compare_order(5, 3, false, 12345, out);
    for (unsigned r = 0; r < 3; r++)
        for (size_t i = 0; i < 5; i++)
            assert_int_equal(out[r * 5 + i], i);
    assert_permutation_per_repeat(out, 5, 3);

    /* The seed plays no part without random. */
    size_t out2[5 * 3];
    sbio_compare_order(5, 3, false, 999, out2);
    assert_memory_equal(out, out2, sizeof(out));

    /* One setting, one repeat; and one repeat of many. */
    size_t one[1] = {7};
    sbio_compare_order(1, 1, false, 1, one);
    assert_int_equal(one[0], 0);
    size_t many[8];
    sbio_compare_order(8, 1, false, 1, many);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(many[i], i);
}

static void test_order_random(void **state)
{
    (void)state;
    enum { NS = 12, REP = 4 };
    size_t a[NS * REP], b[NS * REP], c[NS * REP];
    sbio_compare_order(NS, REP, true, 42, a);
    assert_permutation_per_repeat(a, NS, REP);

    /* Same seed, same order. */
    sbio_compare_order(NS, REP, true, 42, b);
    assert_memory_equal(a, b, sizeof(a));

    /* A different seed, a different order (12! orders per repeat: a tie is no chance). */
    sbio_compare_order(NS, REP, true, 43, c);
    assert_permutation_per_repeat(c, NS, REP);
    assert_memory_not_equal(a, c, sizeof(a));

    /* Shuffled: not every repeat in setting order, and not every repeat the same. */
    bool some_shuffled = false, repeats_differ = false;
    for (unsigned r = 0; r < REP; r++) {
        for (size_t i = 0; i < NS; i++)
            some_shuffled |= a[r * NS + i] != i;
        if (r)
            repeats_differ |= memcmp(a + r * NS, a, NS * sizeof(size_t)) != 0;
    }
    assert_true(some_shuffled);
    assert_true(repeats_differ);

    /* Over many seeds every setting comes first sometimes (the shuffle reaches every
     * position), and a 2-setting compare is not always in the same order. */
    size_t firsts[NS] = {0};
    for (uint64_t seed = 1; seed <= 2000; seed++) {
        size_t o[NS];
        sbio_compare_order(NS, 1, true, seed, o);
        firsts[o[0]]++;
    }
    for (size_t i = 0; i < NS; i++)
        if (firsts[i] < 2000 / NS / 3)
            fail_msg("setting %zu came first %zu times in 2000 seeds", i, firsts[i]);
    size_t swapped = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        size_t o[2];
        sbio_compare_order(2, 1, true, seed, o);
        assert_true((o[0] == 0 && o[1] == 1) || (o[0] == 1 && o[1] == 0));
        swapped += o[0] == 1;
    }
    assert_true(swapped > 50 && swapped < 150);

    /* One setting: trivially itself. */
    size_t one[3];
    sbio_compare_order(1, 3, true, 7, one);
    for (int i = 0; i < 3; i++)
        assert_int_equal(one[i], 0);
}

/* ---- the cartesian product ---- */

static void test_unrank_first_axis_slowest(void **state)
{
    (void)state;
    const size_t len[] = {2, 3, 4};
    size_t idx[3];
    static const struct {
        size_t s, i[3];
    } t[] = {
        {0, {0, 0, 0}},  {1, {0, 0, 1}},  {3, {0, 0, 3}},  {4, {0, 1, 0}},
        {11, {0, 2, 3}}, {12, {1, 0, 0}}, {13, {1, 0, 1}}, {23, {1, 2, 3}},
    };
    for (size_t k = 0; k < ARRAY_LEN(t); k++) {
        sbio_compare_unrank(t[k].s, len, 3, idx);
        for (int a = 0; a < 3; a++)
            if (idx[a] != t[k].i[a])
                fail_msg("setting %zu: axis %d index %zu, want %zu", t[k].s, a, idx[a], t[k].i[a]);
    }

    /* One axis: the identity. */
    const size_t one[] = {5};
    for (size_t s = 0; s < 5; s++) {
        sbio_compare_unrank(s, one, 1, idx);
        assert_int_equal(idx[0], s);
    }

    /* Axes of one value contribute index 0 and do not change the others. */
    const size_t with1[] = {1, 3, 1, 2};
    size_t idx4[4];
    sbio_compare_unrank(5, with1, 4, idx4);
    assert_int_equal(idx4[0], 0);
    assert_int_equal(idx4[1], 2);
    assert_int_equal(idx4[2], 0);
    assert_int_equal(idx4[3], 1);
}

static void test_unrank_enumerates_product(void **state)
{
    (void)state;
    /* The 2x2x2 grid of the integration test, experiment 5's 2x2x7 and an uneven one. */
    static const struct {
        size_t n;
        size_t len[4];
    } grids[] = {{3, {2, 2, 2}}, {3, {2, 2, 7}}, {4, {3, 1, 4, 5}}, {1, {4}}};
    for (size_t g = 0; g < ARRAY_LEN(grids); g++) {
        size_t n = grids[g].n, total = 1;
        const size_t *len = grids[g].len;
        for (size_t a = 0; a < n; a++)
            total *= len[a];
        bool *seen = calloc(total, sizeof(bool));
        assert_non_null(seen);
        size_t prev[4] = {0};
        for (size_t s = 0; s < total; s++) {
            size_t idx[4];
            sbio_compare_unrank(s, len, n, idx);
            /* In range, and the combination's own mixed-radix rank (first axis most
             * significant) is s itself: every combination exactly once, in order. */
            size_t rank = 0;
            for (size_t a = 0; a < n; a++) {
                if (idx[a] >= len[a])
                    fail_msg("grid %zu setting %zu: axis %zu index %zu >= %zu", g, s, a, idx[a],
                             len[a]);
                rank = rank * len[a] + idx[a];
            }
            assert_int_equal(rank, s);
            assert_false(seen[rank]);
            seen[rank] = true;
            /* The last axis changes fastest: from one setting to the next, every axis before
             * the last that changed is one whose later axes all wrapped to 0. */
            if (s) {
                size_t first_changed = n;
                for (size_t a = 0; a < n && first_changed == n; a++)
                    if (idx[a] != prev[a])
                        first_changed = a;
                assert_true(first_changed < n);
                assert_int_equal(idx[first_changed], prev[first_changed] + 1);
                for (size_t a = first_changed + 1; a < n; a++)
                    assert_int_equal(idx[a], 0);
            }
            memcpy(prev, idx, sizeof(idx));
        }
        for (size_t s = 0; s < total; s++)
            assert_true(seen[s]);
        free(seen);
    }
}

/* A script as its declarations read: options named threads, scheduler and weight. */
static struct sbio_script opt_script = {
    .path = "/x/groups.lua",
    .nopts = 3,
    .opts = {{.name = "threads", .type = 'n'},
             {.name = "scheduler", .type = 's'},
             {.name = "weight", .type = 'n'}},
};

/* sbio_compare_axis_kind(key, script) with stderr captured into err (MSG_MAX bytes). */
static int axis_kind(const char *key, const struct sbio_script *script,
                     enum sbio_compare_axis *kind, char *err)
{
    struct capture c;
    cap_begin(&c);
    int rc = sbio_compare_axis_kind(key, script, kind);
    cap_end(&c, err, MSG_MAX);
    return rc;
}

static void test_axis_kind(void **state)
{
    (void)state;
    char err[MSG_MAX];
    enum sbio_compare_axis k;
    const struct {
        const char *key;
        const struct sbio_script *script;
        enum sbio_compare_axis want;
    } cases[] = {
        /* The script's options shadow sbio's own of the same name, the scheduler too. */
        {"weight", &opt_script, SBIO_AXIS_SCRIPT},
        {"threads", &opt_script, SBIO_AXIS_SCRIPT},
        {"scheduler", &opt_script, SBIO_AXIS_SCRIPT},
        /* Without the script, or a name it does not declare: sbio's own. */
        {"threads", NULL, SBIO_AXIS_OPTION},
        {"scheduler", NULL, SBIO_AXIS_SCHEDULER},
        {"read_ahead_kb", &opt_script, SBIO_AXIS_QUEUE},
        {"iosched/slice_idle", &opt_script, SBIO_AXIS_QUEUE},
        {"file-block-size", &opt_script, SBIO_AXIS_OPTION},
        {"ioengine", NULL, SBIO_AXIS_OPTION},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        if (axis_kind(cases[i].key, cases[i].script, &k, err))
            fail_msg("--vary %s refused: %s", cases[i].key, err);
        if (k != cases[i].want)
            fail_msg("--vary %s%s: kind %d, want %d", cases[i].key,
                     cases[i].script ? " with a script" : "", (int)k, (int)cases[i].want);
        assert_string_equal(err, "");
    }
    /* Unknown: one line that lists what can be varied, the script's options by name. */
    assert_int_equal(axis_kind("wieght", &opt_script, &k, err), -EINVAL);
    assert_has(err, "--vary wieght: nothing compare can vary has that name; accepted: scheduler, "
                    "a queue knob");
    assert_has(err, "an option of sbio run such as file-block-size");
    assert_has(err, "or an option of groups.lua: threads, scheduler, weight\n");
    assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err));
    assert_int_equal(axis_kind("wieght", NULL, &k, err), -EINVAL);
    assert_has(err, "or, with --script, an option the script declares\n");
    /* What defines the set or the compare cannot vary, unless the script declares it. */
    assert_int_equal(axis_kind("file-num", &opt_script, &k, err), -EINVAL);
    assert_has(err, "--vary file-num: cannot vary between runs of one compare");
    assert_has(err, "groups.lua: threads, scheduler, weight");
    assert_int_equal(axis_kind("repeat", NULL, &k, err), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mean_sd_known),
        cmocka_unit_test(test_mean_sd_small_n),
        cmocka_unit_test(test_betai_closed_forms),
        cmocka_unit_test(test_betai_edges),
        cmocka_unit_test(test_betai_scipy),
        cmocka_unit_test(test_welch_scipy),
        cmocka_unit_test(test_welch_closed_form),
        cmocka_unit_test(test_welch_cases),
        cmocka_unit_test(test_order_interleaved),
        cmocka_unit_test(test_order_random),
        cmocka_unit_test(test_unrank_first_axis_slowest),
        cmocka_unit_test(test_unrank_enumerates_product),
        cmocka_unit_test(test_axis_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
