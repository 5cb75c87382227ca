/* Unit tests for the latency histogram (src/base/hist.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "hist.h"
#include "util.h"

#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL
#define NS_PER_S  1000000000ULL
#define HOUR_NS   (3600ULL * NS_PER_S)
#define NSAMPLES  100000
/* The documented bound (midpoint within width/2 <= lower/128); tighter than the 1 % asked. */
#define REL_TOL (1.0 / 128.0 + 1e-12)

static const double pcts[] = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99};

/* Uniform in (0, 1]: never 0, so log() below stays finite. The draws come from sbio_rand64
 * with fixed seeds, so that a failure reproduces. */
static double rng_unit(uint64_t *s)
{
    return (double)((sbio_rand64(s) >> 11) + 1) * 0x1.0p-53;
}

static double rng_normal(uint64_t *s)
{
    double u1 = rng_unit(s), u2 = rng_unit(s);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static uint64_t to_ns(double v)
{
    return v < 1.0 ? 1 : (uint64_t)llround(v);
}

static double rel_err(double got, double want)
{
    return fabs(got - want) / want;
}

static struct sbio_hist *hist_new(void)
{
    struct sbio_hist *h = test_malloc(sizeof(*h));
    sbio_hist_init(h);
    return h;
}

static void hist_fill(struct sbio_hist *h, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sbio_hist_record(h, v[i]);
}

/* Nearest-rank reference from the sorted samples vs. the histogram, for every p. */
static void check_percentiles(const char *name, const uint64_t *v, size_t n)
{
    uint64_t *sorted = test_malloc(n * sizeof(*sorted));
    struct sbio_hist *h = hist_new();

    memcpy(sorted, v, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_u64);
    hist_fill(h, v, n);
    assert_int_equal(h->count, n);
    assert_int_equal(h->min_ns, sorted[0]);
    assert_int_equal(h->max_ns, sorted[n - 1]);

    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        size_t rank = (size_t)ceil(pcts[i] * (double)n / 100.0);
        uint64_t want = sorted[rank - 1];
        uint64_t got = sbio_hist_percentile(h, pcts[i]);
        double err = rel_err((double)got, (double)want);
        if (!(err <= REL_TOL)) {
            print_error("%s p%g: got %llu, want %llu (rel err %.5f)\n", name, pcts[i],
                        (unsigned long long)got, (unsigned long long)want, err);
            fail();
        }
    }
    /* p100 is the max bucket clamped to max_ns, so never above the true max. */
    assert_true(sbio_hist_percentile(h, 100) <= sorted[n - 1]);
    assert_true(rel_err((double)sbio_hist_percentile(h, 100), (double)sorted[n - 1]) <= REL_TOL);

    test_free(h);
    test_free(sorted);
}

static void test_layout_pinned(void **state)
{
    (void)state;
    assert_int_equal(SBIO_HIST_NBUCKETS, 2560);
    assert_int_equal(sbio_hist_bucket_index(0), 0);
    assert_int_equal(sbio_hist_bucket_index(63), 63);
    assert_int_equal(sbio_hist_bucket_index(64), 64);
    assert_int_equal(sbio_hist_bucket_index(127), 127);
    assert_int_equal(sbio_hist_bucket_index(128), 128);
    assert_int_equal(sbio_hist_bucket_index(129), 128);
    assert_int_equal(sbio_hist_bucket_index(130), 129);
    assert_int_equal(sbio_hist_bucket_index(255), 191);
    assert_int_equal(sbio_hist_bucket_index(256), 192);
    assert_int_equal(sbio_hist_bucket_index(SBIO_HIST_MAX_NS), SBIO_HIST_NBUCKETS - 1);
    assert_int_equal(sbio_hist_bucket_index(SBIO_HIST_MAX_NS + 1), SBIO_HIST_NBUCKETS - 1);
    assert_int_equal(sbio_hist_bucket_index(UINT64_MAX), SBIO_HIST_NBUCKETS - 1);
    assert_int_equal(sbio_hist_bucket_lower(0), 0);
    assert_int_equal(sbio_hist_bucket_upper(SBIO_HIST_NBUCKETS - 1), SBIO_HIST_MAX_NS);
    /* Range reaches at least 2^44 ns with the layout documented in hist.h. */
    assert_true(SBIO_HIST_MAX_NS >= (1ULL << 44));
}

static void test_bucket_bounds(void **state)
{
    (void)state;
    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++) {
        uint64_t lo = sbio_hist_bucket_lower(i);
        uint64_t mid = sbio_hist_bucket_mid(i);
        uint64_t hi = sbio_hist_bucket_upper(i);

        assert_true(lo <= mid);
        assert_true(mid <= hi);
        assert_int_equal(sbio_hist_bucket_index(lo), i);
        assert_int_equal(sbio_hist_bucket_index(hi), i);
        assert_int_equal(sbio_hist_bucket_index(mid), i);
        if (i + 1 < SBIO_HIST_NBUCKETS)
            assert_int_equal(hi + 1, sbio_hist_bucket_lower(i + 1));
        if (i < 64) {
            assert_int_equal(lo, i);
            assert_int_equal(hi, i);
            assert_int_equal(mid, i);
        } else {
            uint64_t width = hi - lo + 1;
            /* width/lower <= 1/64, and both ends within 1/128 of the midpoint. */
            assert_true(width * 64 <= lo);
            assert_true((mid - lo) * 128 <= lo);
            assert_true((hi - mid) * 128 <= hi);
        }
    }
}

static void test_range(void **state)
{
    (void)state;
    assert_true(sbio_hist_bucket_index(HOUR_NS) < SBIO_HIST_NBUCKETS - 1);
    assert_int_equal(sbio_hist_bucket_mid(sbio_hist_bucket_index(10)), 10);
    double got = (double)sbio_hist_bucket_mid(sbio_hist_bucket_index(HOUR_NS));
    assert_true(rel_err(got, (double)HOUR_NS) <= 0.01);
    assert_true(rel_err(got, (double)HOUR_NS) <= REL_TOL);
}

static void test_empty_and_single(void **state)
{
    (void)state;
    struct sbio_hist *h = hist_new();

    assert_int_equal(h->count, 0);
    assert_int_equal(h->min_ns, UINT64_MAX);
    assert_int_equal(h->max_ns, 0);
    assert_int_equal(sbio_hist_percentile(h, 50), 0);
    assert_true(sbio_hist_mean(h) == 0.0);
    assert_true(sbio_hist_stddev(h) == 0.0);

    /* One inexact value: every percentile is clamped to it. */
    sbio_hist_record(h, 1234567);
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        assert_int_equal(sbio_hist_percentile(h, pcts[i]), 1234567);
    assert_int_equal(sbio_hist_percentile(h, 100), 1234567);
    assert_true(sbio_hist_mean(h) == 1234567.0);
    assert_true(sbio_hist_stddev(h) == 0.0);
    test_free(h);
}

static void test_overflow(void **state)
{
    (void)state;
    struct sbio_hist *h = hist_new();
    uint64_t big = 1ULL << 50;

    sbio_hist_record(h, 100);
    sbio_hist_record(h, big);
    assert_int_equal(h->buckets[SBIO_HIST_NBUCKETS - 1], 1);
    assert_int_equal(h->max_ns, big);
    assert_int_equal(h->sum_ns, big + 100);
    assert_int_equal(sbio_hist_percentile(h, 50), 100);
    /* Beyond the range the percentile saturates at the last bucket's nominal midpoint. */
    uint64_t p100 = sbio_hist_percentile(h, 100);
    assert_int_equal(p100, sbio_hist_bucket_mid(SBIO_HIST_NBUCKETS - 1));
    test_free(h);
}

static void test_merge_equals_add(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    uint64_t *a = test_malloc(NSAMPLES * sizeof(*a));
    uint64_t *b = test_malloc(NSAMPLES * sizeof(*b));
    struct sbio_hist *ha = hist_new(), *hb = hist_new(), *hall = hist_new();

    for (size_t i = 0; i < NSAMPLES; i++) {
        a[i] = to_ns(exp(9.0 + 1.2 * rng_normal(&seed)));   /* ~8 us lognormal */
        b[i] = 50 + sbio_rand64(&seed) % (100 * NS_PER_MS); /* uniform to 100 ms */
    }
    b[7] = 3; /* b holds the overall min, a the overall max */
    a[11] = 2 * HOUR_NS;
    hist_fill(ha, a, NSAMPLES);
    hist_fill(hb, b, NSAMPLES);
    hist_fill(hall, a, NSAMPLES);
    hist_fill(hall, b, NSAMPLES);

    sbio_hist_merge(ha, hb);
    assert_hist_equal(ha, hall);
    assert_int_equal(ha->min_ns, 3);
    assert_int_equal(ha->max_ns, 2 * HOUR_NS);
    assert_int_equal(ha->count, 2 * NSAMPLES);

    /* Merging into an empty histogram is a copy, and merging an empty one is a no-op. */
    struct sbio_hist *e = hist_new();
    sbio_hist_merge(e, hall);
    assert_hist_equal(e, hall);
    sbio_hist_init(hb);
    sbio_hist_merge(e, hb);
    assert_hist_equal(e, hall);

    test_free(e);
    test_free(hall);
    test_free(hb);
    test_free(ha);
    test_free(b);
    test_free(a);
}

static void test_pct_uniform(void **state)
{
    (void)state;
    uint64_t seed = 1;
    uint64_t *v = test_malloc(NSAMPLES * sizeof(*v));
    for (size_t i = 0; i < NSAMPLES; i++)
        v[i] = 10 + sbio_rand64(&seed) % (NS_PER_MS - 10 + 1);
    check_percentiles("uniform 10ns..1ms", v, NSAMPLES);
    test_free(v);
}

static void test_pct_lognormal(void **state)
{
    (void)state;
    uint64_t seed = 2;
    uint64_t *v = test_malloc(NSAMPLES * sizeof(*v));
    /* median e^11 ns ~ 60 us, long right tail */
    for (size_t i = 0; i < NSAMPLES; i++)
        v[i] = to_ns(exp(11.0 + 1.5 * rng_normal(&seed)));
    check_percentiles("lognormal", v, NSAMPLES);
    test_free(v);
}

static void test_pct_exponential(void **state)
{
    (void)state;
    uint64_t seed = 3;
    uint64_t *v = test_malloc(NSAMPLES * sizeof(*v));
    for (size_t i = 0; i < NSAMPLES; i++)
        v[i] = to_ns(-200.0 * NS_PER_US * log(rng_unit(&seed))); /* mean 200 us */
    check_percentiles("exponential", v, NSAMPLES);
    test_free(v);
}

static void test_pct_bimodal(void **state)
{
    (void)state;
    uint64_t seed = 4;
    uint64_t *v = test_malloc(NSAMPLES * sizeof(*v));
    for (size_t i = 0; i < NSAMPLES; i++) {
        if (sbio_rand64(&seed) % 100 == 0)
            v[i] = to_ns(50.0 * NS_PER_MS * (1.0 + 0.1 * rng_normal(&seed)));
        else
            v[i] = to_ns(5.0 * NS_PER_US * (1.0 + 0.1 * rng_normal(&seed)));
    }
    check_percentiles("bimodal", v, NSAMPLES);
    test_free(v);
}

static void test_pct_wide(void **state)
{
    (void)state;
    uint64_t seed = 5;
    uint64_t *v = test_malloc(NSAMPLES * sizeof(*v));
    /* log-uniform over 11.5 decades, both ends present */
    for (size_t i = 0; i < NSAMPLES; i++)
        v[i] = to_ns(10.0 * exp(rng_unit(&seed) * log((double)HOUR_NS / 10.0)));
    v[0] = 10;
    v[1] = HOUR_NS;
    check_percentiles("10ns..1h", v, NSAMPLES);
    test_free(v);
}

/* In the exact buckets (< 128) the histogram must give the nearest-rank sample itself, which
 * pins the rank rule (ceil, cumulative >=) that the 1/128 tolerance above cannot see. */
static void test_pct_exact_rank(void **state)
{
    (void)state;
    struct sbio_hist *h = hist_new();

    for (uint64_t v = 1; v <= 100; v++)
        sbio_hist_record(h, v);
    assert_int_equal(sbio_hist_percentile(h, 0.5), 1);
    assert_int_equal(sbio_hist_percentile(h, 1), 1);
    assert_int_equal(sbio_hist_percentile(h, 1.01), 2);
    assert_int_equal(sbio_hist_percentile(h, 25.5), 26);
    assert_int_equal(sbio_hist_percentile(h, 50), 50);
    assert_int_equal(sbio_hist_percentile(h, 99), 99);
    assert_int_equal(sbio_hist_percentile(h, 99.9), 100);
    assert_int_equal(sbio_hist_percentile(h, 100), 100);

    /* 99 fast, 1 slow: p99 is still fast, anything above is the outlier. */
    sbio_hist_init(h);
    for (int i = 0; i < 99; i++)
        sbio_hist_record(h, 10);
    sbio_hist_record(h, 120);
    assert_int_equal(sbio_hist_percentile(h, 99), 10);
    assert_int_equal(sbio_hist_percentile(h, 99.01), 120);
    test_free(h);
}

static void test_sub(void **state)
{
    (void)state;
    uint64_t seed = 6;
    uint64_t *early = test_malloc(NSAMPLES * sizeof(*early));
    uint64_t *late = test_malloc(NSAMPLES * sizeof(*late));
    struct sbio_hist *h = hist_new(), *older = hist_new(), *newer = hist_new();
    struct sbio_hist *ref = hist_new(), *d = hist_new();

    for (size_t i = 0; i < NSAMPLES; i++) {
        early[i] = to_ns(exp(10.0 + rng_normal(&seed)));
        late[i] = to_ns(exp(12.0 + rng_normal(&seed)));
    }
    early[0] = 1;              /* cumulative min stays in the early part */
    early[1] = 100 * NS_PER_S; /* and so does the cumulative max */
    hist_fill(h, early, NSAMPLES);
    sbio_hist_snapshot(older, h);
    hist_fill(h, late, NSAMPLES);
    sbio_hist_snapshot(newer, h);
    hist_fill(ref, late, NSAMPLES);

    sbio_hist_sub(d, newer, older);
    assert_memory_equal(d->buckets, ref->buckets, sizeof(d->buckets));
    assert_int_equal(d->count, ref->count);
    assert_int_equal(d->sum_ns, ref->sum_ns);
    assert_true(rel_err(d->sumsq, ref->sumsq) <= 1e-9);
    /* Interval min/max come from bucket bounds: same bucket, and on the safe side. */
    assert_true(d->min_ns <= ref->min_ns);
    assert_int_equal(sbio_hist_bucket_index(d->min_ns), sbio_hist_bucket_index(ref->min_ns));
    assert_true(d->max_ns >= ref->max_ns);
    assert_int_equal(sbio_hist_bucket_index(d->max_ns), sbio_hist_bucket_index(ref->max_ns));
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        assert_int_equal(sbio_hist_percentile(d, pcts[i]), sbio_hist_percentile(ref, pcts[i]));
    assert_true(rel_err(sbio_hist_mean(d), sbio_hist_mean(ref)) <= 1e-12);
    assert_true(rel_err(sbio_hist_stddev(d), sbio_hist_stddev(ref)) <= 1e-6);

    /* When the interval holds the cumulative min and max, clamping makes them exact. */
    sbio_hist_snapshot(older, h);
    sbio_hist_record(h, 0);
    sbio_hist_record(h, 5000);
    sbio_hist_record(h, HOUR_NS + 12345);
    sbio_hist_snapshot(newer, h);
    sbio_hist_sub(newer, newer, older); /* aliasing dst and newer is allowed */
    assert_int_equal(newer->count, 3);
    assert_int_equal(newer->sum_ns, HOUR_NS + 12345 + 5000);
    assert_int_equal(newer->min_ns, 0);
    assert_int_equal(newer->max_ns, HOUR_NS + 12345);

    /* Nothing recorded in between: an empty interval. */
    sbio_hist_snapshot(older, h);
    sbio_hist_snapshot(newer, h);
    sbio_hist_sub(d, newer, older);
    assert_int_equal(d->count, 0);
    assert_int_equal(d->min_ns, UINT64_MAX);
    assert_int_equal(d->max_ns, 0);
    assert_int_equal(sbio_hist_percentile(d, 99), 0);

    test_free(d);
    test_free(ref);
    test_free(newer);
    test_free(older);
    test_free(h);
    test_free(late);
    test_free(early);
}

static void test_mean_stddev(void **state)
{
    (void)state;
    uint64_t seed = 7;
    uint64_t *v = test_malloc(NSAMPLES * sizeof(*v));
    struct sbio_hist *h = hist_new();
    uint64_t sum = 0;

    for (size_t i = 0; i < NSAMPLES; i++) {
        v[i] = to_ns(exp(11.0 + rng_normal(&seed)));
        sum += v[i];
    }
    hist_fill(h, v, NSAMPLES);
    double mean = (double)sum / NSAMPLES, ss = 0.0;
    for (size_t i = 0; i < NSAMPLES; i++)
        ss += ((double)v[i] - mean) * ((double)v[i] - mean);
    double sd = sqrt(ss / NSAMPLES);

    assert_int_equal(h->sum_ns, sum);
    assert_true(rel_err(sbio_hist_mean(h), mean) <= 1e-12);
    assert_true(rel_err(sbio_hist_stddev(h), sd) <= 1e-9);

    /* Small known set: 2,4,4,4,5,5,7,9 has mean 5 and population stddev 2. */
    static const uint64_t k[] = {2, 4, 4, 4, 5, 5, 7, 9};
    sbio_hist_init(h);
    hist_fill(h, k, sizeof(k) / sizeof(k[0]));
    assert_true(sbio_hist_mean(h) == 5.0);
    assert_true(fabs(sbio_hist_stddev(h) - 2.0) <= 1e-12);

    /* Constant data: no negative variance from rounding. */
    sbio_hist_init(h);
    for (int i = 0; i < 1000; i++)
        sbio_hist_record(h, 123457);
    assert_true(sbio_hist_stddev(h) >= 0.0);
    assert_true(sbio_hist_stddev(h) <= 1e-3);

    test_free(h);
    test_free(v);
}

/* One writer, one concurrent reader: snapshots only ever grow and the final one is exact.
 * Mostly there to be run under -fsanitize=thread. */
struct writer_arg {
    struct sbio_hist *h;
    uint64_t n;
};

static void *writer(void *p)
{
    struct writer_arg *w = p;
    for (uint64_t i = 0; i < w->n; i++)
        sbio_hist_record(w->h, (i * 7919) % (10 * NS_PER_MS));
    return NULL;
}

static void test_snapshot_concurrent(void **state)
{
    (void)state;
    /* malloc, not test_malloc: cmocka's allocation tracking is not thread-safe. */
    struct sbio_hist *h = malloc(sizeof(*h));
    struct sbio_hist *s = malloc(sizeof(*s)), *prev = malloc(sizeof(*prev));
    struct writer_arg w = {h, 2000000};
    pthread_t t;

    assert_non_null(h);
    assert_non_null(s);
    assert_non_null(prev);
    sbio_hist_init(h);
    sbio_hist_init(prev);
    assert_int_equal(pthread_create(&t, NULL, writer, &w), 0);
    for (int round = 0; round < 200; round++) {
        sbio_hist_snapshot(s, h);
        assert_true(s->count >= prev->count);
        assert_true(s->count <= w.n);
        for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++)
            assert_true(s->buckets[i] >= prev->buckets[i]);
        memcpy(prev, s, sizeof(*s));
    }
    assert_int_equal(pthread_join(t, NULL), 0);

    struct sbio_hist *ref = malloc(sizeof(*ref));
    assert_non_null(ref);
    sbio_hist_init(ref);
    for (uint64_t i = 0; i < w.n; i++)
        sbio_hist_record(ref, (i * 7919) % (10 * NS_PER_MS));
    sbio_hist_snapshot(s, h);
    assert_hist_equal(s, ref);

    free(ref);
    free(prev);
    free(s);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_pinned),
        cmocka_unit_test(test_bucket_bounds),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_empty_and_single),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_merge_equals_add),
        cmocka_unit_test(test_pct_uniform),
        cmocka_unit_test(test_pct_lognormal),
        cmocka_unit_test(test_pct_exponential),
        cmocka_unit_test(test_pct_bimodal),
        cmocka_unit_test(test_pct_wide),
        cmocka_unit_test(test_pct_exact_rank),
        cmocka_unit_test(test_sub),
        cmocka_unit_test(test_mean_stddev),
        cmocka_unit_test(test_snapshot_concurrent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
