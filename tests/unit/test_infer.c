/* Unit tests for the statistics of src/base/infer.c: mean and sample standard deviation, the
 * regularized incomplete beta function, Welch's t-test and degrees of freedom, Student t
 * quantiles, the CI half-width of a mean, the log-ratio CI of a relative difference and its
 * test, the
 * Holm–Bonferroni correction, the median and the runs far from the others; then, by
 * simulation with fixed seeds (a failure reproduces), what compare's verdicts promise: the
 * share of identical settings flagged, per cell and per table of 40 cells with and without
 * the correction, the power to find a shift of 2 sd at n = 5, and the CI's coverage.
 *
 * Expected values come from closed forms where one exists, from printed tables (to their
 * digits), from arithmetic shown next to the numbers, or from SciPy 1.10.1 (Debian's
 * python3-scipy), computed when the test was written; the commands are in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "infer.h"
#include "util.h"

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
    sbio_infer_mean_sd(x, ARRAY_LEN(x), &mean, &sd);
    assert_close(mean, 5.0, 1e-12);
    assert_close(sd, sqrt(32.0 / 7.0), 1e-12);
    assert_close(sd, 2.138089935299395, 1e-12);

    /* Two values: sd = |a - b| / sqrt(2) (n - 1 = 1), not |a - b| / 2. */
    const double two[] = {10, 14};
    sbio_infer_mean_sd(two, 2, &mean, &sd);
    assert_close(mean, 12.0, 1e-12);
    assert_close(sd, 4.0 / sqrt(2.0), 1e-12);

    /* Large values close together: no catastrophic cancellation (two-pass). */
    const double big[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    sbio_infer_mean_sd(big, 3, &mean, &sd);
    assert_close(mean, 1e9 + 2, 1e-6);
    assert_close(sd, 1.0, 1e-6);

    /* Constant: sd 0. */
    const double c[] = {3.5, 3.5, 3.5, 3.5};
    sbio_infer_mean_sd(c, 4, &mean, &sd);
    assert_close(mean, 3.5, 0);
    assert_close(sd, 0.0, 0);
}

static void test_mean_sd_small_n(void **state)
{
    (void)state;
    double mean = -1, sd = -1;
    const double one[] = {42.25};
    sbio_infer_mean_sd(one, 1, &mean, &sd);
    assert_close(mean, 42.25, 0);
    assert_close(sd, 0.0, 0);

    mean = sd = -1;
    sbio_infer_mean_sd(one, 0, &mean, &sd);
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
        assert_close(sbio_infer_betai(1, 1, x), x, 1e-12);
        /* I_x(a, 1) = x^a and I_x(1, b) = 1 - (1 - x)^b. */
        assert_close(sbio_infer_betai(3, 1, x), pow(x, 3), 1e-12);
        assert_close(sbio_infer_betai(1, 4, x), 1 - pow(1 - x, 4), 1e-12);
        /* I_x(1/2, 1/2) = (2 / pi) asin(sqrt(x)) (the arcsine distribution). */
        assert_close(sbio_infer_betai(0.5, 0.5, x), 2 / M_PI * asin(sqrt(x)), 1e-10);
        /* Integer a, b: the binomial tail, I_x(2, 3) = sum_{j=2..4} C(4,j) x^j (1-x)^(4-j). */
        double bin = 6 * x * x * pow(1 - x, 2) + 4 * pow(x, 3) * (1 - x) + pow(x, 4);
        assert_close(sbio_infer_betai(2, 3, x), bin, 1e-12);
        /* Symmetry: I_x(a, b) = 1 - I_{1-x}(b, a). */
        assert_close(sbio_infer_betai(2.5, 7, x), 1 - sbio_infer_betai(7, 2.5, 1 - x), 1e-12);
    }
    /* I_0.5(a, a) = 1/2 for every a. */
    const double as[] = {0.5, 1, 2, 3.7, 10, 50, 200};
    for (size_t i = 0; i < ARRAY_LEN(as); i++)
        assert_close(sbio_infer_betai(as[i], as[i], 0.5), 0.5, 1e-10);
}

static void test_betai_edges(void **state)
{
    (void)state;
    assert_close(sbio_infer_betai(2, 3, 0), 0.0, 0);
    assert_close(sbio_infer_betai(2, 3, 1), 1.0, 0);
    assert_close(sbio_infer_betai(2, 3, -0.5), 0.0, 0);
    assert_close(sbio_infer_betai(2, 3, 1.5), 1.0, 0);
    /* Monotone in x. */
    double prev = 0;
    for (int i = 1; i < 100; i++) {
        double v = sbio_infer_betai(4.5, 0.5, i / 100.0);
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
        assert_close(sbio_infer_betai(t[i].a, t[i].b, t[i].x), t[i].want, 1e-10);
}

/* ---- Welch's t-test ---- */

/* The p-value of two samples as compare computes it: mean and sample sd, then the test. */
static double welch_samples(const double *a, size_t na, const double *b, size_t nb)
{
    double m1, s1, m2, s2;
    sbio_infer_mean_sd(a, na, &m1, &s1);
    sbio_infer_mean_sd(b, nb, &m2, &s2);
    return sbio_infer_welch_p(m1, s1, na, m2, s2, nb);
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
    assert_close(sbio_infer_welch_p(1, sqrt(2), 2, 5, sqrt(2), 2), 1 - sqrt(0.8), 1e-10);
}

static void test_welch_cases(void **state)
{
    (void)state;
    /* Identical samples: t = 0, p = 1. */
    const double a[] = {100, 104, 98, 101};
    assert_close(welch_samples(a, 4, a, 4), 1.0, 1e-9);
    assert_close(sbio_infer_welch_p(5000, 120, 3, 5000, 80, 3), 1.0, 1e-9);

    /* Very different, tight samples: p < 0.001. */
    const double lo[] = {1000, 1001, 999, 1000}, hi[] = {2000, 2001, 1999, 2002};
    double p = welch_samples(lo, 4, hi, 4);
    assert_true(p >= 0);
    if (!(p < 0.001))
        fail_msg("tight samples 1000 vs 2000: p = %g, want < 0.001", p);

    /* A p-value is a probability, decreasing as the means move apart. */
    double prev = 1.0 + 1e-12;
    for (int d = 0; d <= 50; d += 5) {
        double q = sbio_infer_welch_p(1000, 20, 3, 1000 + d, 30, 3);
        assert_true(q >= 0 && q <= 1);
        assert_true(q <= prev);
        prev = q;
    }

    /* Fewer than 2 values in either sample: no test. */
    assert_close(sbio_infer_welch_p(10, 0, 1, 12, 1, 3), -1.0, 0);
    assert_close(sbio_infer_welch_p(10, 1, 3, 12, 0, 1), -1.0, 0);
    assert_close(sbio_infer_welch_p(10, 0, 1, 12, 0, 1), -1.0, 0);
    assert_close(sbio_infer_welch_p(10, 0, 0, 12, 1, 3), -1.0, 0);

    /* Both constant: equal → 1, different → 0 (no division by zero, no NaN). */
    assert_close(sbio_infer_welch_p(7, 0, 3, 7, 0, 2), 1.0, 0);
    assert_close(sbio_infer_welch_p(7, 0, 3, 8, 0, 2), 0.0, 0);
    const double c1[] = {5, 5, 5}, c2[] = {6, 6};
    assert_close(welch_samples(c1, 3, c1, 3), 1.0, 0);
    assert_close(welch_samples(c1, 3, c2, 2), 0.0, 0);

    /* One constant, the other not: an ordinary test (df from the varying sample alone). */
    p = sbio_infer_welch_p(10, 0, 3, 12, 1, 3);
    assert_false(isnan(p));
    assert_true(p > 0 && p < 1);
}

/* ---- Welch–Satterthwaite degrees of freedom ---- */

static void test_welch_df(void **state)
{
    (void)state;
    /* s1 = 1, n1 = 3 and s2 = 2, n2 = 5: v1 = 1/3, v2 = 4/5, and
     * (v1 + v2)^2 / (v1^2/2 + v2^2/4) = (289/225) / (97/450) = 578/97 = 5.9588. */
    assert_close(sbio_infer_welch_df(1, 3, 2, 5), 578.0 / 97.0, 1e-12);
    assert_close(sbio_infer_welch_df(2, 5, 1, 3), 578.0 / 97.0, 1e-12);
    /* Equal sds and n: 2 (n - 1), the pooled test's. */
    assert_close(sbio_infer_welch_df(7, 5, 7, 5), 8.0, 1e-12);
    /* One sd 0: the other sample's n - 1; both 0: n1 + n2 - 2. */
    assert_close(sbio_infer_welch_df(0, 3, 5, 6), 5.0, 1e-12);
    assert_close(sbio_infer_welch_df(5, 6, 0, 3), 5.0, 1e-12);
    assert_close(sbio_infer_welch_df(0, 4, 0, 6), 8.0, 0);
    /* Huge or tiny sds: no overflow, no underflow to "constant". */
    assert_close(sbio_infer_welch_df(1e200, 5, 1e200, 5), 8.0, 1e-9);
    assert_close(sbio_infer_welch_df(1e-200, 5, 1e-200, 5), 8.0, 1e-9);
    assert_close(sbio_infer_welch_p(0, 1e200, 5, 1e200, 1e200, 5),
                 sbio_infer_welch_p(0, 1, 5, 1, 1, 5), 1e-12);
    /* Fewer than 2 values on a side: no test. */
    assert_true(isnan(sbio_infer_welch_df(1, 1, 1, 5)));
    assert_true(isnan(sbio_infer_welch_df(1, 5, 1, 0)));
    /* Always within [min(n1, n2) - 1, n1 + n2 - 2]. */
    const double sds[] = {0.1, 1, 3, 10, 100};
    const size_t ns[] = {2, 3, 5, 10};
    for (size_t a = 0; a < ARRAY_LEN(sds); a++)
        for (size_t i = 0; i < ARRAY_LEN(ns); i++)
            for (size_t j = 0; j < ARRAY_LEN(ns); j++) {
                double df = sbio_infer_welch_df(sds[a], ns[i], 1, ns[j]);
                double lo = (double)(ns[i] < ns[j] ? ns[i] : ns[j]) - 1;
                if (!(df >= lo - 1e-12 && df <= (double)(ns[i] + ns[j] - 2) + 1e-12))
                    fail_msg("sd %g n %zu vs sd 1 n %zu: df %g", sds[a], ns[i], ns[j], df);
            }
}

/* ---- Student t quantiles ---- */

/* Student t's CDF at t from the incomplete beta function: P(T > |t|) = I_{df/(df+t^2)}(df/2,
 * 1/2) / 2. */
static double t_cdf(double t, double df)
{
    double tail = 0.5 * sbio_infer_betai(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

static void test_t_quantile_tables(void **state)
{
    (void)state;
    /* A printed t table's two-sided 95 % and 99 % critical values (4 decimals). */
    static const struct {
        double p, df, want;
    } t[] = {
        {0.975, 1, 12.7062}, {0.975, 2, 4.3027},   {0.975, 4, 2.7764},  {0.975, 8, 2.3060},
        {0.975, 30, 2.0423}, {0.975, 120, 1.9799}, {0.995, 1, 63.6567}, {0.995, 4, 4.6041},
        {0.995, 30, 2.7500}, {0.95, 10, 1.8125},   {0.9, 3, 1.6377},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++) {
        assert_close(sbio_infer_t_quantile(t[i].p, t[i].df), t[i].want, 5e-5);
        assert_close(sbio_infer_t_quantile(1 - t[i].p, t[i].df), -t[i].want, 5e-5);
    }
    /* Large df: the normal's quantiles, Phi^-1(0.975) = 1.959963984540054, Phi^-1(0.995) =
     * 2.575829303548901 (python3 -c "from statistics import NormalDist as N;
     * print(N().inv_cdf(0.975), N().inv_cdf(0.995))"); df 10^6 is 1.95996 to 5 decimals. */
    assert_close(sbio_infer_t_quantile(0.975, 1e6), 1.95996, 1e-5);
    assert_close(sbio_infer_t_quantile(0.975, 1e12), 1.959963984540054, 1e-11);
    assert_close(sbio_infer_t_quantile(0.975, INFINITY), 1.959963984540054, 1e-12);
    assert_close(sbio_infer_t_quantile(0.995, INFINITY), 2.575829303548901, 1e-12);
    assert_close(sbio_infer_t_quantile(0.025, INFINITY), -1.959963984540054, 1e-12);
}

static void test_t_quantile_closed_forms(void **state)
{
    (void)state;
    const double ps[] = {1e-6, 0.001, 0.025, 0.1, 0.3, 0.49, 0.5, 0.51, 0.7, 0.9, 0.975, 0.999};
    for (size_t i = 0; i < ARRAY_LEN(ps); i++) {
        double p = ps[i];
        /* df 1, the Cauchy distribution: tan(pi (p - 1/2)). */
        double c = tan(M_PI * (p - 0.5));
        assert_close(sbio_infer_t_quantile(p, 1), c, 1e-10 * fmax(1, fabs(c)));
        /* df 2: (2p - 1) / sqrt(2 p (1 - p)). */
        double d = (2 * p - 1) / sqrt(2 * p * (1 - p));
        assert_close(sbio_infer_t_quantile(p, 2), d, 1e-10 * fmax(1, fabs(d)));
        /* Symmetric about 0. */
        double t = sbio_infer_t_quantile(p, 3.5);
        assert_close(sbio_infer_t_quantile(1 - p, 3.5), -t, 1e-10 * fmax(1, fabs(t)));
    }
    assert_close(sbio_infer_t_quantile(0.5, 7), 0.0, 0);
    /* Outside p in (0, 1), df > 0: NaN. */
    const double bad_p[] = {0, 1, -0.1, 1.5, NAN};
    for (size_t i = 0; i < ARRAY_LEN(bad_p); i++)
        assert_true(isnan(sbio_infer_t_quantile(bad_p[i], 5)));
    const double bad_df[] = {0, -1, NAN};
    for (size_t i = 0; i < ARRAY_LEN(bad_df); i++)
        assert_true(isnan(sbio_infer_t_quantile(0.975, bad_df[i])));
}

static void test_t_quantile_fractional(void **state)
{
    (void)state;
    /* Welch's df are fractional: the quantile is the inverse of the CDF computed from the
     * incomplete beta function, on both sides of the switch to the Cornish–Fisher expansion
     * (df 1000) too; and it falls as df grows. */
    const double dfs[] = {0.3, 0.5, 1.3, 2.5, 3.7, 5.9588, 7.25, 15.5, 123.4, 999.5, 1000.5, 5000};
    const double ps[] = {0.001, 0.05, 0.2, 0.6, 0.9, 0.975, 0.999};
    for (size_t j = 0; j < ARRAY_LEN(ps); j++) {
        double prev = ps[j] > 0.5 ? INFINITY : -INFINITY;
        for (size_t i = 0; i < ARRAY_LEN(dfs); i++) {
            double t = sbio_infer_t_quantile(ps[j], dfs[i]);
            if (!(fabs(t_cdf(t, dfs[i]) - ps[j]) <= 1e-10))
                fail_msg("df %g: t(%g) = %.15g, whose CDF is %.15g", dfs[i], ps[j], t,
                         t_cdf(t, dfs[i]));
            if (!(ps[j] > 0.5 ? t < prev : t > prev))
                fail_msg("t(%g) at df %g = %g, not nearer 0 than at the df before (%g)", ps[j],
                         dfs[i], t, prev);
            prev = t;
        }
    }
}

/* ---- the half-width of a mean's CI ---- */

static void test_halfwidth(void **state)
{
    (void)state;
    /* sd 10 over 5 runs: t(0.975, 4) 10 / sqrt(5) = 2.7764451052 * 4.4721359550 = 12.416640
     * (tables give t 2.7764). */
    assert_close(sbio_infer_halfwidth(10, 5, 0.95), 12.41664, 1e-5);
    /* 2 runs at 99 %: t(0.995, 1) = tan(0.495 pi) = 63.6567. */
    assert_close(sbio_infer_halfwidth(3, 2, 0.99), tan(0.495 * M_PI) * 3 / sqrt(2), 1e-8);
    /* Shrinks as runs are added (same sd), grows with the level. */
    double prev = INFINITY;
    for (size_t n = 2; n <= 30; n++) {
        double h = sbio_infer_halfwidth(1, n, 0.95);
        assert_true(h < prev);
        assert_true(sbio_infer_halfwidth(1, n, 0.99) > h);
        prev = h;
    }
    assert_close(sbio_infer_halfwidth(0, 4, 0.95), 0.0, 0);
    /* Too few runs or no level: NaN. */
    assert_true(isnan(sbio_infer_halfwidth(1, 1, 0.95)));
    assert_true(isnan(sbio_infer_halfwidth(1, 0, 0.95)));
    assert_true(isnan(sbio_infer_halfwidth(1, 5, 0)));
    assert_true(isnan(sbio_infer_halfwidth(1, 5, 1)));
    assert_true(isnan(sbio_infer_halfwidth(1, 5, NAN)));
}

/* ---- the CI of a relative difference (log ratio) and its test ---- */

static void test_diff_ci_worked(void **state)
{
    (void)state;
    double lo, hi;
    /* m1 = 120 sd 12 against m0 = 100 sd 10, n = 5 each: both relative standard errors are
     * 0.1/sqrt(5), so se = sqrt(0.002 + 0.002) = 0.0632456, Welch's df of equal ones 8,
     * t = t(0.975, 8) = 2.306004135 (tables: 2.3060); log(1.2) = 0.1823216, and
     * 100 (exp(0.1823216 -+ 2.306004135 x 0.0632456) - 1) = [+3.71505 %, +38.84195 %]
     * around +20 % (python3: math.expm1). */
    assert_int_equal(sbio_infer_diff_ci(120, 12, 5, 100, 10, 5, 0.95, &lo, &hi), 0);
    assert_close(lo, 3.715050, 1e-5);
    assert_close(hi, 38.841952, 1e-5);
    /* Its test: t = 0.1823216 / 0.0632456 = 2.882757 at 8 df, p = I_{8/(8+t^2)}(4, 1/2),
     * below 0.05 as the CI leaves out 0. */
    double p = sbio_infer_ratio_p(120, 12, 5, 100, 10, 5);
    assert_close(p, sbio_infer_betai(4, 0.5, 8 / (8 + 2.8827569300832154 * 2.8827569300832154)),
                 1e-12);
    assert_true(p < 0.05 && p > 0.01);
    /* The samples swapped: the reciprocal ratios, exactly. */
    assert_int_equal(sbio_infer_diff_ci(100, 10, 5, 120, 12, 5, 0.95, &lo, &hi), 0);
    assert_close(lo, 100 * (1 / 1.3884195196498963 - 1), 1e-5);
    assert_close(hi, 100 * (1 / 1.037150500709692 - 1), 1e-5);

    /* The symmetric case: equal means and sds. 0 is inside, and the interval is its own
     * reciprocal: (1 + lo/100) (1 + hi/100) = 1. */
    assert_int_equal(sbio_infer_diff_ci(100, 10, 5, 100, 10, 5, 0.95, &lo, &hi), 0);
    assert_true(lo < 0 && hi > 0);
    assert_close((1 + lo / 100) * (1 + hi / 100), 1.0, 1e-12);
    /* Nested by level: 80 % inside 95 % inside 99 %. */
    double lo80, hi80, lo99, hi99;
    assert_int_equal(sbio_infer_diff_ci(90, 8, 4, 100, 12, 6, 0.80, &lo80, &hi80), 0);
    assert_int_equal(sbio_infer_diff_ci(90, 8, 4, 100, 12, 6, 0.95, &lo, &hi), 0);
    assert_int_equal(sbio_infer_diff_ci(90, 8, 4, 100, 12, 6, 0.99, &lo99, &hi99), 0);
    assert_true(lo99 < lo && lo < lo80 && lo80 < -10 && -10 < hi80 && hi80 < hi && hi < hi99);

    /* Both sds 0: the point difference; one sd 0: an interval still. */
    assert_int_equal(sbio_infer_diff_ci(80, 0, 3, 100, 0, 4, 0.95, &lo, &hi), 0);
    assert_close(lo, -20.0, 1e-12);
    assert_close(hi, -20.0, 1e-12);
    assert_int_equal(sbio_infer_diff_ci(80, 0, 3, 100, 5, 4, 0.95, &lo, &hi), 0);
    assert_true(lo < -20 && hi > -20);
    /* Tight samples: close to the point difference. */
    assert_int_equal(sbio_infer_diff_ci(80, 1e-6, 3, 100, 1e-6, 3, 0.95, &lo, &hi), 0);
    assert_close(lo, -20.0, 1e-5);
    assert_close(hi, -20.0, 1e-5);

    /* A mean of 0 with some spread has no log: no bounded interval. Both 0 and constant:
     * no ratio either. */
    assert_int_equal(sbio_infer_diff_ci(50, 0, 3, 0, 0, 3, 0.95, &lo, &hi), -ERANGE);
    assert_int_equal(sbio_infer_diff_ci(50, 1, 3, 0, 1, 3, 0.95, &lo, &hi), -ERANGE);
    assert_int_equal(sbio_infer_diff_ci(0, 1, 3, 50, 1, 3, 0.95, &lo, &hi), -ERANGE);
    /* ... and its test is Welch's of the means themselves. */
    assert_close(sbio_infer_ratio_p(0, 1, 3, 50, 1, 3), sbio_infer_welch_p(0, 1, 3, 50, 1, 3),
                 1e-15);
    assert_close(sbio_infer_ratio_p(50, 0, 3, 50, 0, 3), 1, 0);
    assert_close(sbio_infer_ratio_p(40, 0, 3, 50, 0, 3), 0, 0);
    /* Fewer than 2 runs on a side, or no level. */
    assert_int_equal(sbio_infer_diff_ci(50, 0, 1, 100, 10, 3, 0.95, &lo, &hi), -EINVAL);
    assert_int_equal(sbio_infer_diff_ci(50, 10, 3, 100, 0, 1, 0.95, &lo, &hi), -EINVAL);
    assert_int_equal(sbio_infer_diff_ci(50, 10, 3, 100, 10, 3, 1, &lo, &hi), -EINVAL);
    assert_int_equal(sbio_infer_diff_ci(50, 10, 3, 100, 10, 3, 0, &lo, &hi), -EINVAL);
    assert_close(sbio_infer_ratio_p(50, 10, 1, 100, 10, 3), -1, 0);
}

static void test_diff_ci_never_below_minus_100(void **state)
{
    (void)state;
    double lo, hi;
    /* A large drop measured with a noisy B: 3 runs of 9.9 sd 20 against 3 of 100 sd 5
     * (-90.1%). A ratio's interval on its own scale (Fieller's: the r with
     * (m1 - r m0)^2 <= t^2 (v1 + r^2 v0)) was [-135.0%, -44.9%] here, a ratio below 0 that no
     * positive figure can have. The log ratio's stays above -100%, and is wide upwards, as a
     * B whose sd is twice its mean must make it. */
    assert_int_equal(sbio_infer_diff_ci(9.9, 20, 3, 100, 5, 3, 0.95, &lo, &hi), 0);
    assert_true(lo > -100 && lo < -90.1 && hi > 0);
    /* And with a baseline whose mean was not told from 0 (Fieller's interval was the whole
     * line): 50 sd 10 against 5 sd 10, n = 3, bounded now and above -100%. */
    assert_int_equal(sbio_infer_diff_ci(50, 10, 3, 5, 10, 3, 0.95, &lo, &hi), 0);
    assert_true(lo > -100 && lo < 900 && hi > 900);
    /* Over a grid of drops, spreads and run counts: no interval below -100% (one whose low end
     * is 1e-20 of the baseline rounds to -100% exactly in a double). */
    const double m1s[] = {1, 5, 20, 60}, s1s[] = {0.5, 5, 30, 100};
    const size_t ns[] = {2, 3, 5};
    for (size_t a = 0; a < ARRAY_LEN(m1s); a++)
        for (size_t b = 0; b < ARRAY_LEN(s1s); b++)
            for (size_t i = 0; i < ARRAY_LEN(ns); i++) {
                assert_int_equal(
                    sbio_infer_diff_ci(m1s[a], s1s[b], ns[i], 100, 10, ns[i], 0.95, &lo, &hi), 0);
                if (!(lo >= -100 && lo <= hi))
                    fail_msg("%g sd %g n %zu vs 100 sd 10: [%g, %g]", m1s[a], s1s[b], ns[i], lo,
                             hi);
            }
}

static void test_diff_ci_agrees_with_its_test(void **state)
{
    (void)state;
    /* On a grid of samples against a baseline of 100: the interval holds the point difference,
     * excludes 0 exactly when the ratio's p < 0.05 (the table's CI and verdict never
     * disagree), and swapping the samples gives the reciprocal ratios. */
    const double m1s[] = {60, 80, 95, 100, 103, 110, 150}, s1s[] = {1, 5, 20};
    const double s0s[] = {2, 10, 30};
    const size_t ns[] = {2, 3, 5, 10};
    size_t excluded = 0, included = 0;
    for (size_t a = 0; a < ARRAY_LEN(m1s); a++)
        for (size_t b = 0; b < ARRAY_LEN(s1s); b++)
            for (size_t c = 0; c < ARRAY_LEN(s0s); c++)
                for (size_t i = 0; i < ARRAY_LEN(ns); i++)
                    for (size_t j = 0; j < ARRAY_LEN(ns); j++) {
                        double m1 = m1s[a], s1 = s1s[b], s0 = s0s[c], lo, hi, lo2, hi2;
                        size_t n1 = ns[i], n0 = ns[j];
                        int rc = sbio_infer_diff_ci(m1, s1, n1, 100, s0, n0, 0.95, &lo, &hi);
                        assert_int_equal(rc, 0);
                        double pt = 100 * (m1 / 100 - 1);
                        assert_true(lo <= pt && pt <= hi);
                        double p = sbio_infer_ratio_p(m1, s1, n1, 100, s0, n0);
                        bool out = lo > 0 || hi < 0;
                        if (fabs(p - 0.05) > 1e-9 && out != (p < 0.05))
                            fail_msg("%g sd %g n %zu vs 100 sd %g n %zu: [%g, %g] but p = %g", m1,
                                     s1, n1, s0, n0, lo, hi, p);
                        excluded += out;
                        included += !out;
                        assert_close(sbio_infer_ratio_p(100, s0, n0, m1, s1, n1), p, 1e-9);
                        assert_int_equal(
                            sbio_infer_diff_ci(100, s0, n0, m1, s1, n1, 0.95, &lo2, &hi2), 0);
                        assert_close((1 + lo2 / 100) * (1 + hi / 100), 1.0, 1e-9);
                        assert_close((1 + hi2 / 100) * (1 + lo / 100), 1.0, 1e-9);
                    }
    /* The grid has both kinds. */
    assert_true(excluded > 50 && included > 50);
}

/* ---- Holm–Bonferroni ---- */

static void assert_adj(const double *adj, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabs(adj[i] - want[i]) <= 1e-15))
            fail_msg("adj[%zu] = %.17g, want %.17g", i, adj[i], want[i]);
}

static void test_holm_worked(void **state)
{
    (void)state;
    double adj[8];
    /* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), method = "holm") gives 0.03 0.06 0.06 0.02.
     * By hand: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04; the
     * running maximum 0.02, 0.03, 0.06, 0.06; back in input order. All four are below 0.05,
     * two stay below after the correction. */
    const double p[] = {0.01, 0.04, 0.03, 0.005};
    assert_int_equal(sbio_infer_holm(p, 4, adj), 4);
    assert_adj(adj, (const double[]){0.03, 0.06, 0.06, 0.02}, 4);

    /* No test (p < 0, NaN) is outside the family: the same four among them, same values. */
    const double q[] = {-1, 0.04, NAN, 0.01, 0.005, -1, 0.03};
    assert_int_equal(sbio_infer_holm(q, 7, adj), 4);
    assert_adj(adj, (const double[]){-1, 0.06, -1, 0.03, 0.02, -1, 0.06}, 7);

    /* Capped at 1: 0.02, 0.5, 0.6 times 3, 2, 1 = 0.06, 1.0, 0.6 -> 0.06, 1, 1. */
    assert_int_equal(sbio_infer_holm((const double[]){0.5, 0.6, 0.02}, 3, adj), 3);
    assert_adj(adj, (const double[]){1, 1, 0.06}, 3);
    /* Ties: 0.01, 0.02, 0.02 times 3, 2, 1 = 0.03, 0.04, 0.02 -> 0.03, 0.04, 0.04: tied p,
     * tied adjusted p, whichever index comes first. */
    assert_int_equal(sbio_infer_holm((const double[]){0.02, 0.02, 0.01}, 3, adj), 3);
    assert_adj(adj, (const double[]){0.04, 0.04, 0.03}, 3);
    assert_int_equal(sbio_infer_holm((const double[]){0.02, 0.01, 0.02}, 3, adj), 3);
    assert_adj(adj, (const double[]){0.04, 0.03, 0.04}, 3);
    /* One test: itself. None, or an empty table: 0. */
    assert_int_equal(sbio_infer_holm((const double[]){0.2}, 1, adj), 1);
    assert_adj(adj, (const double[]){0.2}, 1);
    assert_int_equal(sbio_infer_holm((const double[]){-1, NAN}, 2, adj), 0);
    assert_adj(adj, (const double[]){-1, -1}, 2);
    assert_int_equal(sbio_infer_holm(p, 0, adj), 0);
}

static void test_holm_bounds(void **state)
{
    (void)state;
    /* 40 p-values spread over (0, 1): p <= adj <= min(1, 40 p) (between no correction and
     * Bonferroni), and the order of the p-values is kept. */
    double p[40], adj[40];
    uint64_t s = 88172645463325252ULL;
    for (size_t i = 0; i < 40; i++)
        p[i] = pow((double)(sbio_rand64(&s) >> 11) * 0x1.0p-53, 3);
    assert_int_equal(sbio_infer_holm(p, 40, adj), 40);
    for (size_t i = 0; i < 40; i++) {
        assert_true(adj[i] >= p[i] && adj[i] <= fmin(1, 40 * p[i]));
        for (size_t j = 0; j < 40; j++)
            assert_true(!(p[i] < p[j]) || adj[i] <= adj[j]);
    }
}

/* ---- median and runs far from the others ---- */

static void test_median(void **state)
{
    (void)state;
    assert_close(sbio_infer_median((const double[]){3, 1, 2}, 3), 2.0, 0);
    assert_close(sbio_infer_median((const double[]){4, 1, 3, 2}, 4), 2.5, 0);
    assert_close(sbio_infer_median((const double[]){5}, 1), 5.0, 0);
    assert_close(sbio_infer_median((const double[]){7, 7, 1, 7}, 4), 7.0, 0);
    assert_close(sbio_infer_median((const double[]){2, 9, 2, 9}, 4), 5.5, 0);
    /* NaN ignored; none left, or none given: NaN. */
    assert_close(sbio_infer_median((const double[]){NAN, 3, 1, NAN, 2}, 5), 2.0, 0);
    assert_true(isnan(sbio_infer_median((const double[]){NAN, NAN}, 2)));
    assert_true(isnan(sbio_infer_median(NULL, 0)));
    /* x is not changed (not sorted in place). */
    double x[] = {9, 3, 7, 1, 5}, keep[5];
    memcpy(keep, x, sizeof(x));
    assert_close(sbio_infer_median(x, 5), 5.0, 0);
    assert_memory_equal(x, keep, sizeof(x));
}

static void test_outliers(void **state)
{
    (void)state;
    bool out[5];
    double dist[5];
    /* 1, 2, 10: median 2, distances 1, 0, 8, MAD 1: 10 is 8 MADs away, the others 1 and 0. */
    assert_int_equal(sbio_infer_outliers((const double[]){1, 2, 10}, 3, 3, out, dist), 1);
    assert_true(!out[0] && !out[1] && out[2]);
    assert_adj(dist, (const double[]){1, 0, 8}, 3);
    /* ... but not at k = 8 (more than k: 8 is not more than 8). */
    assert_int_equal(sbio_infer_outliers((const double[]){1, 2, 10}, 3, 8, out, NULL), 0);
    /* Runs of a setting: median 1000, distances 0, 10, 10, 5, 300, MAD 10: 700 is 30 away. */
    const double runs[] = {1000, 1010, 990, 1005, 700};
    assert_int_equal(sbio_infer_outliers(runs, 5, 3, out, dist), 1);
    assert_true(out[4] && !out[0] && !out[1] && !out[2] && !out[3]);
    assert_adj(dist, (const double[]){0, 1, 1, 0.5, 30}, 5);
    assert_int_equal(sbio_infer_outliers((const double[]){1, 2, 3}, 3, 3, out, dist), 0);

    /* MAD 0 (more than half equal): 5, 5, 5, 5, 9 has distances 0, 0, 0, 0, 4; their mean
     * 0.8 is the unit: 9 is 5 away, marked at k = 3, not at k = 6. */
    const double flat[] = {5, 5, 5, 5, 9};
    assert_int_equal(sbio_infer_outliers(flat, 5, 3, out, dist), 1);
    assert_true(out[4] && !out[0]);
    assert_adj(dist, (const double[]){0, 0, 0, 0, 5}, 5);
    assert_int_equal(sbio_infer_outliers(flat, 5, 6, out, dist), 0);
    /* All equal: nothing to measure, nothing marked, distances 0. */
    memset(out, 1, sizeof(out));
    assert_int_equal(sbio_infer_outliers((const double[]){4, 4, 4}, 3, 3, out, dist), 0);
    assert_true(!out[0] && !out[1] && !out[2]);
    assert_adj(dist, (const double[]){0, 0, 0}, 3);

    /* NaN ignored: never marked, not counted, distance 0. */
    memset(out, 1, sizeof(out));
    assert_int_equal(sbio_infer_outliers((const double[]){1, NAN, 2, 10}, 4, 3, out, dist), 1);
    assert_true(!out[0] && !out[1] && !out[2] && out[3]);
    assert_adj(dist, (const double[]){1, 0, 0, 8}, 4);
    /* Fewer than 3 values (NaN aside): nothing marked. */
    assert_int_equal(sbio_infer_outliers((const double[]){1, NAN, 100}, 3, 3, out, dist), 0);
    assert_int_equal(sbio_infer_outliers((const double[]){1, 100}, 2, 3, out, dist), 0);
    assert_true(!out[0] && !out[1]);
}

/* ---- simulation ---- */

/* Trials per simulated figure: the binomial sd of a share near 5 % is then 0.2 points, of
 * one near 95 % or 80 % 0.2 and 0.4 points, against tolerances of 2 points. */
#define SIM_TRIALS 10000
/* Tables of 40 cells per layout. */
#define SIM_TABLES 4000
#define SIM_N      5 /* runs per setting */

/* Normal deviates from xorshift64* (src/base/util.h) by Box–Muller, both of each pair used. */
struct sim {
    uint64_t s;
    bool have;
    double spare;
};

static void sim_seed(struct sim *r, uint64_t seed)
{
    r->s = seed;
    r->have = false;
}

static double sim_normal(struct sim *r)
{
    if (r->have) {
        r->have = false;
        return r->spare;
    }
    double u1 = ((double)(sbio_rand64(&r->s) >> 11) + 1) * 0x1.0p-53; /* (0, 1]: log is finite */
    double u2 = (double)(sbio_rand64(&r->s) >> 11) * 0x1.0p-53;
    double rad = sqrt(-2 * log(u1));
    r->spare = rad * sin(2 * M_PI * u2);
    r->have = true;
    return rad * cos(2 * M_PI * u2);
}

/* A setting's figure: normal with mean mu and sd sd, or log-normal with median mu and the
 * log's sd `sd` (a throughput whose runs vary by a factor). */
enum sim_law { SIM_NORMAL, SIM_LOGNORMAL };

/* The mean and sd of n runs of a setting whose figure is centred on mu. */
static void sim_setting(struct sim *r, enum sim_law law, double mu, double sd, size_t n, double *m,
                        double *s)
{
    double x[16];
    assert_true(n <= ARRAY_LEN(x));
    for (size_t i = 0; i < n; i++) {
        double z = sim_normal(r);
        x[i] = law == SIM_NORMAL ? mu + sd * z : mu * exp(sd * z);
    }
    sbio_infer_mean_sd(x, n, m, s);
}

/* A test's p-value from two samples' (mean, sd, n): Welch's, or the log ratio's. */
typedef double (*sim_test)(double m1, double s1, size_t n1, double m0, double s0, size_t n0);

/* test's p of n runs of a setting (mu1) against n runs of the baseline (mu0), same law and
 * sd; *diff (may be NULL) gets the difference of their means. */
static double sim_compare(struct sim *r, sim_test test, enum sim_law law, double mu1, double mu0,
                          double sd, size_t n, double *diff)
{
    double m1, s1, m0, s0;
    sim_setting(r, law, mu1, sd, n, &m1, &s1);
    sim_setting(r, law, mu0, sd, n, &m0, &s0);
    if (diff)
        *diff = m1 - m0;
    return test(m1, s1, n, m0, s0, n);
}

static void test_sim_identical_cell(void **state)
{
    (void)state;
    /* Two identical settings, n = 5 each, normal (mean 1000, sd 100) and log-normal (median
     * 1000, sigma 0.3): Welch's test at 0.05, and the log ratio's (the table's), flag
     * 5 % +- 2 % of the compares. */
    static const struct {
        enum sim_law law;
        double sd;
        const char *name;
    } c[] = {{SIM_NORMAL, 100, "normal"}, {SIM_LOGNORMAL, 0.3, "log-normal"}};
    static const struct {
        sim_test test;
        const char *name;
    } tests[] = {{sbio_infer_welch_p, "Welch"}, {sbio_infer_ratio_p, "log ratio"}};
    for (size_t k = 0; k < 2 * ARRAY_LEN(c); k++) {
        struct sim r;
        size_t law = k % ARRAY_LEN(c), which = k / ARRAY_LEN(c);
        sim_seed(&r, 0x9e3779b97f4a7c15ULL + law);
        size_t flagged = 0;
        for (size_t t = 0; t < SIM_TRIALS; t++)
            flagged += sim_compare(&r, tests[which].test, c[law].law, 1000, 1000, c[law].sd, SIM_N,
                                   NULL) < 0.05;
        double share = (double)flagged / SIM_TRIALS;
        print_message("identical %s settings, n = %d, %s: %.2f %% of %d compares flagged\n",
                      c[law].name, SIM_N, tests[which].name, 100 * share, SIM_TRIALS);
        if (!(fabs(share - 0.05) <= 0.02))
            fail_msg("%s, %s: %.4f flagged, want 0.05 +- 0.02", c[law].name, tests[which].name,
                     share);
    }
}

/* One table of 40 cells of identical settings: with shared, 8 settings against one baseline
 * for each of 5 metrics (compare's own layout: a metric's 8 cells share the baseline's
 * runs); else 40 cells each with its own pair. Whether any cell is flagged without
 * correction (*raw) and with Holm's (*holm). */
static void sim_table(struct sim *r, bool shared, enum sim_law law, double sd, bool *raw,
                      bool *holm)
{
    double p[40], adj[40], m1, s1, m0, s0;
    for (size_t c = 0; c < 40; c++) {
        if (!shared || c % 8 == 0) /* shared: a new metric, its baseline's runs */
            sim_setting(r, law, 1000, sd, SIM_N, &m0, &s0);
        sim_setting(r, law, 1000, sd, SIM_N, &m1, &s1);
        p[c] = sbio_infer_ratio_p(m1, s1, SIM_N, m0, s0, SIM_N); /* the table's test */
    }
    *raw = false;
    *holm = false;
    assert_int_equal(sbio_infer_holm(p, 40, adj), 40);
    for (size_t c = 0; c < 40; c++) {
        *raw |= p[c] < 0.05;
        *holm |= adj[c] < 0.05;
    }
}

static void test_sim_identical_table(void **state)
{
    (void)state;
    /* Tables of 40 cells, every setting identical to the baseline. Two layouts:
     *  - 40 independent cells (normal): the hardest case for the correction, where the
     *    uncorrected share of tables with a flag is highest (1 - 0.95^40 = 87 % for an exact
     *    test) and Holm's bound is tightest (1 - (1 - 0.05/40)^40 = 4.9 %), so a correction a
     *    little too weak shows;
     *  - compare's own: 8 settings against one baseline x 5 metrics (log-normal): the 8
     *    cells of a metric share the baseline's runs, so their p-values are dependent, which
     *    Holm's bound does not need.
     * Holm: at most 5 % of the tables have any flag; without it, far more. For independent
     * cells also at least 2 %: a "correction" that flags nothing fails here. */
    static const struct {
        bool shared;
        enum sim_law law;
        double sd;
        const char *name;
    } c[] = {{false, SIM_NORMAL, 100, "40 independent normal cells"},
             {true, SIM_LOGNORMAL, 0.3, "8 settings x 5 metrics, log-normal"}};
    for (size_t k = 0; k < ARRAY_LEN(c); k++) {
        struct sim r;
        sim_seed(&r, 0xd1b54a32d192ed03ULL + k);
        size_t raw = 0, holm = 0;
        for (size_t t = 0; t < SIM_TABLES; t++) {
            bool any_raw, any_holm;
            sim_table(&r, c[k].shared, c[k].law, c[k].sd, &any_raw, &any_holm);
            raw += any_raw;
            holm += any_holm;
        }
        double sraw = (double)raw / SIM_TABLES, sholm = (double)holm / SIM_TABLES;
        print_message("%s: tables with a flag %.2f %% uncorrected, %.2f %% with Holm (%d tables)\n",
                      c[k].name, 100 * sraw, 100 * sholm, SIM_TABLES);
        if (!(sholm <= 0.05))
            fail_msg("%s: %.4f of tables flagged with Holm, want <= 0.05", c[k].name, sholm);
        if (!(sraw >= 0.5))
            fail_msg("%s: %.4f of tables flagged uncorrected, want >= 0.5", c[k].name, sraw);
        if (!c[k].shared && !(sholm >= 0.02))
            fail_msg("%s: %.4f of tables flagged with Holm, want >= 0.02", c[k].name, sholm);
    }
}

/* The standard normal's CDF. */
static double phi(double x)
{
    return 0.5 * erfc(-x / M_SQRT2);
}

/* Simpson's rule's weight of point k of 0..2m. */
static double simpson_w(int k, int m)
{
    return k == 0 || k == 2 * m ? 1 : k % 2 ? 4 : 2;
}

/* P(T > c) for the noncentral T = (Z + delta) / sqrt(W / nu), W ~ chi^2 with nu degrees of
 * freedom (nu > 2): E[Phi(delta - c sqrt(W / nu))], integrated over W's density. */
static double nct_upper(double c, double delta, double nu)
{
    const int m = 400;
    double wmax = nu + 40 * sqrt(2 * nu), h = wmax / (2 * m), sum = 0;
    for (int k = 1; k <= 2 * m; k++) {
        double w = k * h;
        double dens = exp((nu / 2 - 1) * log(w) - w / 2 - nu / 2 * M_LN2 - lgamma(nu / 2));
        sum += simpson_w(k, m) * dens * phi(delta - c * sqrt(w / nu));
    }
    return sum * h / 3;
}

/* The points of the grid over u = s1^2 / (s1^2 + s0^2) in [0, 1] and Welch's critical value at
 * each: with n runs per side, u ~ Beta((n - 1)/2, (n - 1)/2) and Welch's df is
 * (n - 1) / (u^2 + (1 - u)^2). */
#define POWER_M 100
static void welch_crit(size_t n, double crit[2 * POWER_M + 1])
{
    for (int k = 0; k <= 2 * POWER_M; k++) {
        double u = (double)k / (2 * POWER_M);
        crit[k] = sbio_infer_t_quantile(0.975, (double)(n - 1) / (u * u + (1 - u) * (1 - u)));
    }
}

/* The theoretical power of the two-sided Welch test at 0.05 to find a shift of d sd, right
 * sign, with n runs per side of normal figures of equal sd. With equal n and sd, Welch's
 * statistic is the pooled one, T = (Z + delta) / sqrt(W / nu), nu = 2 (n - 1),
 * delta = d sqrt(n / 2); its df depends on the sds only through u, which is independent of T
 * (a chi^2 sum and its share): power = E_u[P(T > crit(u))]. With crit NULL: the pooled
 * t-test's, crit t(0.975, nu). */
static double welch_power(double d, size_t n, const double *crit)
{
    double nu = 2 * (double)(n - 1), delta = d * sqrt((double)n / 2);
    if (!crit)
        return nct_upper(sbio_infer_t_quantile(0.975, nu), delta, nu);
    double a = (double)(n - 1) / 2, lb = 2 * lgamma(a) - lgamma(2 * a), h = 0.5 / POWER_M;
    double sum = 0;
    for (int k = 1; k < 2 * POWER_M; k++) {
        double u = k * h, dens = exp((a - 1) * (log(u) + log1p(-u)) - lb);
        sum += simpson_w(k, POWER_M) * dens * nct_upper(crit[k], delta, nu);
    }
    return sum * h / 3;
}

/* The share of SIM_TRIALS simulated compares (n = 5, normal, sd 1) that find a shift of d:
 * Welch's p < 0.05 and the difference's sign right. */
static double sim_power(double d, uint64_t seed)
{
    struct sim r;
    sim_seed(&r, seed);
    size_t found = 0;
    for (size_t t = 0; t < SIM_TRIALS; t++) {
        double diff;
        found += sim_compare(&r, sbio_infer_welch_p, SIM_NORMAL, d, 0, 1, SIM_N, &diff) < 0.05 &&
                 diff > 0;
    }
    return (double)found / SIM_TRIALS;
}

static void test_sim_power(void **state)
{
    (void)state;
    double crit[2 * POWER_M + 1];
    welch_crit(SIM_N, crit);
    /* The integration checked where the answer is known: no shift, the pooled test rejects
     * on the right side in exactly 2.5 %; Welch (conservative at equal n) in less. */
    assert_close(welch_power(0, SIM_N, NULL), 0.025, 1e-6);
    double w0 = welch_power(0, SIM_N, crit);
    assert_true(w0 < 0.025 && w0 > 0.02);

    /* A shift of 2 sd at n = 5: the theory first, then the simulation within 2 points. */
    double pooled2 = welch_power(2, SIM_N, NULL), theory2 = welch_power(2, SIM_N, crit);
    double sim2 = sim_power(2, 0x2545f4914f6cdd1dULL);
    /* The smallest shift that theory says is found in 80 %, to 1e-4 sd (bisection). */
    double lo = 1, hi = 3;
    while (hi - lo > 1e-4) {
        double mid = (lo + hi) / 2;
        *(welch_power(mid, SIM_N, crit) < 0.8 ? &lo : &hi) = mid;
    }
    /* Simulated there, and at that shift rounded up to a tenth of an sd, where the share must
     * be at least 80 % (at the shift itself it is 80 % give or take the simulation's noise). */
    double d80 = hi, d80up = ceil(hi * 10) / 10;
    double sim80 = sim_power(d80, 0xbf58476d1ce4e5b9ULL);
    double theory80up = welch_power(d80up, SIM_N, crit);
    double sim80up = sim_power(d80up, 0x94d049bb133111ebULL);
    print_message("shift 2 sd, n = %d: power %.4f (pooled t %.4f), simulated %.4f\n", SIM_N,
                  theory2, pooled2, sim2);
    print_message("80 %% power from %.4f sd on: simulated %.4f there; at %.1f sd %.4f (theory "
                  "%.4f)\n",
                  d80, sim80, d80up, sim80up, theory80up);
    if (!(fabs(sim2 - theory2) <= 0.02))
        fail_msg("shift 2 sd: found in %.4f, theory %.4f", sim2, theory2);
    if (!(fabs(sim80 - 0.8) <= 0.02))
        fail_msg("shift %.4f sd: found in %.4f, theory 0.80", d80, sim80);
    if (!(sim80up >= 0.8))
        fail_msg("shift %.1f sd: found in %.4f, want >= 0.80", d80up, sim80up);
}

static void test_sim_ci_coverage(void **state)
{
    (void)state;
    /* Normal figures with a real shift (mu0 = 100, mu1 = 80, sd 10: -20 %), at n = 5 and 3,
     * and none (100 against 100): the 95 % CI of the difference holds the true one in
     * 95 % +- 2 % of the trials. An unbounded CI (-ERANGE) counts as a miss. */
    static const struct {
        double mu1;
        size_t n;
    } c[] = {{80, 5}, {80, 3}, {100, 5}};
    for (size_t k = 0; k < ARRAY_LEN(c); k++) {
        struct sim r;
        sim_seed(&r, 0x60bee2bee120fc15ULL + k);
        double truth = 100 * (c[k].mu1 / 100 - 1);
        size_t covered = 0, unbounded = 0;
        for (size_t t = 0; t < SIM_TRIALS; t++) {
            double m1, s1, m0, s0, lo, hi;
            sim_setting(&r, SIM_NORMAL, c[k].mu1, 10, c[k].n, &m1, &s1);
            sim_setting(&r, SIM_NORMAL, 100, 10, c[k].n, &m0, &s0);
            int rc = sbio_infer_diff_ci(m1, s1, c[k].n, m0, s0, c[k].n, 0.95, &lo, &hi);
            if (rc == -ERANGE) {
                unbounded++;
                continue;
            }
            assert_int_equal(rc, 0);
            covered += lo <= truth && truth <= hi;
        }
        double share = (double)covered / SIM_TRIALS;
        print_message("mu1 %g vs mu0 100, sd 10, n = %zu: CI covers %+g %% in %.2f %% of %d "
                      "(%zu unbounded)\n",
                      c[k].mu1, c[k].n, truth, 100 * share, SIM_TRIALS, unbounded);
        if (!(fabs(share - 0.95) <= 0.02))
            fail_msg("mu1 %g, n = %zu: covered in %.4f, want 0.95 +- 0.02", c[k].mu1, c[k].n,
                     share);
    }
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
        cmocka_unit_test(test_welch_df),
        cmocka_unit_test(test_t_quantile_tables),
        cmocka_unit_test(test_t_quantile_closed_forms),
        cmocka_unit_test(test_t_quantile_fractional),
        cmocka_unit_test(test_halfwidth),
        cmocka_unit_test(test_diff_ci_worked),
        cmocka_unit_test(test_diff_ci_never_below_minus_100),
        cmocka_unit_test(test_diff_ci_agrees_with_its_test),
        cmocka_unit_test(test_holm_worked),
        cmocka_unit_test(test_holm_bounds),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_outliers),
        cmocka_unit_test(test_sim_identical_cell),
        cmocka_unit_test(test_sim_identical_table),
        cmocka_unit_test(test_sim_power),
        cmocka_unit_test(test_sim_ci_coverage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
