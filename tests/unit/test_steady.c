/* Unit tests for the steady-state detector (src/base/steady.c) on synthetic series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "steady.h"
#include "util.h"

/* Feed values[0..n) as one-second samples; returns the index of the first sample after
 * which the window was settled, or -1 (f: the figures after the last one checked). */
static int feed_until_settled(struct sbio_steady *s, const double *values, int n,
                              struct sbio_steady_fig *f)
{
    for (int i = 0; i < n; i++) {
        sbio_steady_feed(s, i + 1.0, 1.0, values[i]);
        if (sbio_steady_check(s, f))
            return i;
    }
    return -1;
}

static void test_init_rejects(void **state)
{
    (void)state;
    struct sbio_steady s;
    assert_int_equal(sbio_steady_init(&s, 1, 5), -EINVAL);
    assert_int_equal(sbio_steady_init(&s, SBIO_STEADY_WINDOW_MAX + 1, 5), -EINVAL);
    assert_int_equal(sbio_steady_init(&s, 5, 0), -EINVAL);
    assert_int_equal(sbio_steady_init(&s, 5, NAN), -EINVAL);
    assert_int_equal(sbio_steady_init(&s, 5, 5), 0);
}

/* A cold cache: the rate climbs for 8 s, then holds within ±1%: settled on the 5th flat
 * sample, not before. */
static void test_settles(void **state)
{
    (void)state;
    double v[20];
    for (int i = 0; i < 8; i++)
        v[i] = 200.0 * (i + 1);
    for (int i = 8; i < 20; i++)
        v[i] = 2000.0 * (i % 2 ? 1.01 : 0.99);
    struct sbio_steady s;
    struct sbio_steady_fig f;
    assert_int_equal(sbio_steady_init(&s, 5, 5), 0);
    assert_int_equal(feed_until_settled(&s, v, 20, &f), 12);
    assert_true(f.full && f.settled);
    /* i = 8..12: 0.99 1.01 0.99 1.01 0.99 of 2000, mean 1996. */
    assert_true(fabs(f.mean - 1996) < 1e-6);
    assert_true(fabs(f.spread_pct - (2020.0 - 1996) / 1996 * 100) < 1e-9);
    assert_true(fabs(f.window_s - 5.0) < 1e-9);
    assert_true(fabs(f.slope_pct_per_s) < 0.5);
}

/* Alternating ±50%: never settled, and the figures of the last window say by how much
 * (what the report shows when the cap is reached). */
static void test_never_settles(void **state)
{
    (void)state;
    double v[60];
    for (int i = 0; i < 60; i++)
        v[i] = i % 2 ? 1500 : 500;
    struct sbio_steady s;
    struct sbio_steady_fig f;
    assert_int_equal(sbio_steady_init(&s, 5, 5), 0);
    assert_int_equal(feed_until_settled(&s, v, 60, &f), -1);
    assert_true(f.full && !f.settled);
    /* The last window: 1500 500 1500 500 1500 (i = 55..59), mean 1100. */
    assert_true(fabs(f.mean - 1100) < 1e-9);
    assert_true(fabs(f.spread_pct - 600.0 / 1100 * 100) < 1e-9);
}

/* A slow ramp of +2%/s: every sample of a 5 s window stays within ±5% of its mean (the
 * deviation criterion alone would stop here) but the fitted line moves 10% over the window:
 * the slope criterion keeps it unsettled. The same at +0.5%/s settles. */
static void test_slow_ramp(void **state)
{
    (void)state;
    double v[40];
    struct sbio_steady s;
    struct sbio_steady_fig f;
    for (int i = 0; i < 40; i++)
        v[i] = 1000 * pow(1.02, i);
    assert_int_equal(sbio_steady_init(&s, 5, 5), 0);
    assert_int_equal(feed_until_settled(&s, v, 40, &f), -1);
    assert_true(f.spread_pct <= 5);
    assert_true(f.slope_pct_per_s * f.window_s > 5);
    assert_true(fabs(f.slope_pct_per_s - 2) < 0.1);
    for (int i = 0; i < 40; i++)
        v[i] = 1000 * pow(1.005, i);
    assert_int_equal(sbio_steady_init(&s, 5, 5), 0);
    assert_int_equal(feed_until_settled(&s, v, 40, &f), 4);
}

/* Noisy but flat: uniform noise of ±2% around 1000. Settled from the first full window on
 * in nearly every window (a window's fitted slope rarely reaches 1%/s by chance). */
static void test_noisy_flat(void **state)
{
    (void)state;
    uint64_t seed = 42;
    struct sbio_steady s;
    struct sbio_steady_fig f;
    assert_int_equal(sbio_steady_init(&s, 5, 5), 0);
    int settled = 0, full = 0;
    for (int i = 0; i < 1000; i++) {
        double u = (double)(sbio_rand64(&seed) >> 11) * 0x1.0p-53;
        sbio_steady_feed(&s, i + 1.0, 1.0, 1000 * (0.98 + 0.04 * u));
        settled += sbio_steady_check(&s, &f);
        full += f.full;
        assert_true(f.spread_pct <= 4.1);
    }
    assert_int_equal(full, 996);
    assert_true(settled >= 0.95 * full);
}

/* Samples of unequal length: the slope is fitted at each interval's midpoint, per second. */
static void test_uneven_intervals(void **state)
{
    (void)state;
    struct sbio_steady s;
    struct sbio_steady_fig f;
    assert_int_equal(sbio_steady_init(&s, 3, 50), 0);
    /* Midpoints 0.5, 2.0, 3.5 (intervals 1, 2, 1): a line of +10 per second. */
    sbio_steady_feed(&s, 1, 1, 105);
    sbio_steady_feed(&s, 3, 2, 120);
    assert_false(sbio_steady_check(&s, &f));
    assert_false(f.full);
    sbio_steady_feed(&s, 4, 1, 135);
    assert_true(sbio_steady_check(&s, &f));
    assert_true(fabs(f.window_s - 4) < 1e-9);
    assert_true(fabs(f.slope_pct_per_s - 10.0 / 120 * 100) < 1e-9);
}

/* Nothing completed: no rate to be steady at. */
static void test_zero_never_settles(void **state)
{
    (void)state;
    struct sbio_steady s;
    struct sbio_steady_fig f;
    assert_int_equal(sbio_steady_init(&s, 2, 5), 0);
    for (int i = 0; i < 4; i++)
        sbio_steady_feed(&s, i + 1.0, 1.0, 0);
    assert_false(sbio_steady_check(&s, &f));
    assert_true(f.full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_rejects),       cmocka_unit_test(test_settles),
        cmocka_unit_test(test_never_settles),      cmocka_unit_test(test_slow_ramp),
        cmocka_unit_test(test_noisy_flat),         cmocka_unit_test(test_uneven_intervals),
        cmocka_unit_test(test_zero_never_settles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
