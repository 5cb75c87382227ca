/* The mix compiler and its samplers (src/base/mix.c): operations by weight, sizes from a
 * distribution, blocks from each access pattern, each checked against its law with fixed
 * seeds (a failure reproduces).
 *
 * Statistics, all at the 1 % level:
 *  - chi-square goodness of fit; the critical value for df degrees of freedom is computed
 *    with the Wilson–Hilferty approximation chi2_p ~ df (1 - 2/(9 df) + z_p sqrt(2/(9 df)))^3,
 *    z_0.99 = 2.3263 (accurate to a fraction of a percent at these df);
 *  - Kolmogorov–Smirnov against the exact CDF of the drawn index (a step function: the check
 *    is made on both sides of every step), critical value sqrt(-ln(alpha/2) / 2) / sqrt(N),
 *    the asymptotic Kolmogorov quantile (1.628 / sqrt(N)); conservative for a discrete law.
 * Each law test also checks that the same draws are rejected against a slightly wrong law,
 * so a test that cannot fail would show. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers.h"
#include "mix.h"
#include "util.h"

#define NDRAWS   100000
#define Z_99     2.3263478740408408 /* upper 1 % point of the standard normal */
#define KS_ALPHA 0.01

static uint64_t draws[NDRAWS];

/* A job reading 4 KiB blocks with pattern p (a, b); tests change what they need. */
static void job_init(struct sbio_script_job *j, int pattern, double a, double b)
{
    memset(j, 0, sizeof(*j));
    j->threads = 1;
    j->weight[SBIO_MIX_READ] = 1;
    j->nblocks = 1;
    j->block[0] = 4096;
    j->block_weight[0] = 1;
    j->pattern = pattern;
    j->pa = a;
    j->pb = b;
}

/* Wilson–Hilferty: the upper 1 % point of chi-square with df degrees of freedom. */
static double chi2_crit(unsigned df)
{
    double v = 2.0 / (9.0 * df);
    double c = 1 - v + Z_99 * sqrt(v);
    return df * c * c * c;
}

static double chi2_stat(const uint64_t *obs, const double *expect, unsigned nbins)
{
    double x = 0;
    for (unsigned i = 0; i < nbins; i++) {
        double d = (double)obs[i] - expect[i];
        x += d * d / expect[i];
    }
    return x;
}

static double ks_crit(size_t n)
{
    return sqrt(-0.5 * log(KS_ALPHA / 2)) / sqrt((double)n);
}

/* KS statistic of sorted integer draws against G(x) = P(index < x), x an integer: the
 * empirical CDF is compared with the law just before and just after each value drawn. */
struct law {
    double (*G)(const struct law *, double);
    double n, p1, p2; /* the law's parameters */
};

static double ks_stat(const uint64_t *sorted, size_t cnt, const struct law *l)
{
    double d = 0;
    for (size_t i = 0; i < cnt;) {
        size_t e = i;
        while (e < cnt && sorted[e] == sorted[i])
            e++;
        double v = (double)sorted[i];
        double below = fabs((double)i / cnt - l->G(l, v));
        double upto = fabs((double)e / cnt - l->G(l, v + 1));
        d = fmax(d, fmax(below, upto));
        i = e;
    }
    return d;
}

/* ---- operations and sizes ---- */

static void count_ops(const struct sbio_script_job *j, uint64_t seed, uint64_t *cnt)
{
    struct sbio_mix m;
    sbio_mix_init(&m, j, 1000);
    memset(cnt, 0, SBIO_MIX_NR * sizeof(*cnt));
    for (int i = 0; i < NDRAWS; i++) {
        enum sbio_mix_op op = sbio_mix_op(&m, &seed);
        assert_true(op >= 0 && op < SBIO_MIX_NR);
        cnt[op]++;
    }
}

static void test_op_weights(void **state)
{
    (void)state;
    struct sbio_script_job j;
    job_init(&j, SBIO_PAT_UNIFORM, 0, 0);
    const double w[SBIO_MIX_NR] = {3, 1, 0.5, 0.5};
    memcpy(j.weight, w, sizeof(w));
    uint64_t cnt[SBIO_MIX_NR];
    count_ops(&j, 0x5eed0001, cnt);
    for (int i = 0; i < SBIO_MIX_NR; i++)
        assert_true(fabs((double)cnt[i] / NDRAWS - w[i] / 5.0) < 0.01);

    /* A zero weight is never drawn, wherever it sits. */
    const double w2[SBIO_MIX_NR] = {0, 2, 0, 1};
    memcpy(j.weight, w2, sizeof(w2));
    count_ops(&j, 0x5eed0002, cnt);
    assert_int_equal(cnt[SBIO_MIX_READ], 0);
    assert_int_equal(cnt[SBIO_MIX_FSYNC], 0);
    assert_true(fabs((double)cnt[SBIO_MIX_WRITE] / NDRAWS - 2.0 / 3) < 0.01);
    assert_true(fabs((double)cnt[SBIO_MIX_FDATASYNC] / NDRAWS - 1.0 / 3) < 0.01);

    const double w3[SBIO_MIX_NR] = {1, 1, 1, 0};
    memcpy(j.weight, w3, sizeof(w3));
    count_ops(&j, 0x5eed0003, cnt);
    assert_int_equal(cnt[SBIO_MIX_FDATASYNC], 0);
    for (int i = 0; i < 3; i++)
        assert_true(fabs((double)cnt[i] / NDRAWS - 1.0 / 3) < 0.01);
}

static void test_op_single(void **state)
{
    (void)state;
    struct sbio_script_job j;
    for (int op = 0; op < SBIO_MIX_NR; op++) {
        job_init(&j, SBIO_PAT_UNIFORM, 0, 0);
        memset(j.weight, 0, sizeof(j.weight));
        j.weight[op] = 0.25;
        uint64_t cnt[SBIO_MIX_NR];
        count_ops(&j, 0x5eed0010 + op, cnt);
        assert_int_equal(cnt[op], NDRAWS);
    }
}

/* A read-modify-write is drawn by its weight like any operation, beside the others, and a
 * zero weight of it is never drawn. */
static void test_op_rmw(void **state)
{
    (void)state;
    struct sbio_script_job j;
    job_init(&j, SBIO_PAT_SEQ, 0, 0);
    memset(j.weight, 0, sizeof(j.weight));
    j.weight[SBIO_MIX_READ] = 1;
    j.weight[SBIO_MIX_RMW] = 3;
    uint64_t cnt[SBIO_MIX_NR];
    count_ops(&j, 0x5eed0020, cnt);
    assert_true(fabs((double)cnt[SBIO_MIX_RMW] / NDRAWS - 0.75) < 0.01);
    assert_true(fabs((double)cnt[SBIO_MIX_READ] / NDRAWS - 0.25) < 0.01);
    assert_int_equal(cnt[SBIO_MIX_WRITE] + cnt[SBIO_MIX_FSYNC] + cnt[SBIO_MIX_FDATASYNC], 0);

    j.weight[SBIO_MIX_RMW] = 0;
    j.weight[SBIO_MIX_WRITE] = 1;
    count_ops(&j, 0x5eed0021, cnt);
    assert_int_equal(cnt[SBIO_MIX_RMW], 0);
    assert_true(fabs((double)cnt[SBIO_MIX_WRITE] / NDRAWS - 0.5) < 0.01);
}

static void test_size_distribution(void **state)
{
    (void)state;
    struct sbio_script_job j;
    job_init(&j, SBIO_PAT_UNIFORM, 0, 0);
    const uint64_t sz[] = {4096, 65536, 1048576, 8192};
    const double w[] = {50, 30, 20, 0}; /* the last one never drawn */
    j.nblocks = 4;
    memcpy(j.block, sz, sizeof(sz));
    memcpy(j.block_weight, w, sizeof(w));
    struct sbio_mix m;
    sbio_mix_init(&m, &j, 1000);
    uint64_t seed = 0x5eed0020, cnt[4] = {0};
    for (int i = 0; i < NDRAWS; i++) {
        uint64_t s = sbio_mix_size(&m, &seed);
        int k = 0;
        while (k < 4 && sz[k] != s)
            k++;
        assert_true(k < 4);
        cnt[k]++;
    }
    for (int k = 0; k < 4; k++)
        assert_true(fabs((double)cnt[k] / NDRAWS - w[k] / 100) < 0.01);
    assert_int_equal(cnt[3], 0);

    /* One size: always that size. */
    job_init(&j, SBIO_PAT_UNIFORM, 0, 0);
    j.block[0] = 16384;
    sbio_mix_init(&m, &j, 1000);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(sbio_mix_size(&m, &seed), 16384);
}

/* ---- block patterns ---- */

static void draw_blocks(int pattern, double a, double b, uint64_t n, uint64_t seed)
{
    struct sbio_script_job j;
    struct sbio_mix m;
    job_init(&j, pattern, a, b);
    sbio_mix_init(&m, &j, n);
    uint64_t seq = 0;
    for (int i = 0; i < NDRAWS; i++) {
        draws[i] = sbio_mix_block(&m, &seed, n, &seq);
        assert_true(draws[i] < n);
    }
}

/* Chi-square of draws[lo..hi) bins, uniform, over the draws falling in that range. */
static double uniform_chi2(uint64_t lo, uint64_t hi, unsigned *df)
{
    unsigned nb = (unsigned)(hi - lo);
    uint64_t *obs = calloc(nb, sizeof(*obs));
    double *exp_ = malloc(nb * sizeof(*exp_));
    assert_non_null(obs);
    assert_non_null(exp_);
    uint64_t in = 0;
    for (int i = 0; i < NDRAWS; i++)
        if (draws[i] >= lo && draws[i] < hi) {
            obs[draws[i] - lo]++;
            in++;
        }
    for (unsigned i = 0; i < nb; i++)
        exp_[i] = (double)in / nb;
    double x = chi2_stat(obs, exp_, nb);
    free(obs);
    free(exp_);
    *df = nb - 1;
    return x;
}

/* Every block of [lo, hi) was drawn: a sampler whose range stops one short is caught even
 * where the chi-square cannot see it (here each block expects at least 11 draws, so a correct
 * sampler misses a given one with probability below e^-11). */
static void assert_all_drawn(uint64_t lo, uint64_t hi)
{
    unsigned char *seen = calloc(hi - lo, 1);
    assert_non_null(seen);
    for (int i = 0; i < NDRAWS; i++)
        if (draws[i] >= lo && draws[i] < hi)
            seen[draws[i] - lo] = 1;
    for (uint64_t b = 0; b < hi - lo; b++)
        assert_int_equal(seen[b], 1);
    free(seen);
}

static void test_uniform(void **state)
{
    (void)state;
    draw_blocks(SBIO_PAT_UNIFORM, 0, 0, 1000, 0x5eed0030);
    unsigned df;
    double x = uniform_chi2(0, 1000, &df);
    assert_int_equal(df, 999);
    assert_true(fabs(chi2_crit(999) - 1106.0) < 2); /* the tables give 1105.9 */
    assert_true(x < chi2_crit(df));
    assert_all_drawn(0, 1000);

    /* Power: the same statistic rejects a sampler that favours the first half a little. */
    for (int i = 0; i < NDRAWS / 20; i++)
        draws[i] = draws[i] % 500;
    x = uniform_chi2(0, 1000, &df);
    assert_true(x > chi2_crit(df));
}

static void test_seq(void **state)
{
    (void)state;
    struct sbio_script_job j;
    struct sbio_mix m;
    job_init(&j, SBIO_PAT_SEQ, 0, 0);
    sbio_mix_init(&m, &j, 10);
    uint64_t seed = 0x5eed0040, seq = 0;
    for (int round = 0; round < 3; round++)
        for (uint64_t i = 0; i < 10; i++)
            assert_int_equal(sbio_mix_block(&m, &seed, 10, &seq), i);
    assert_int_equal(seq, 30);
    /* Each thread keeps its own position. */
    uint64_t other = 7;
    assert_int_equal(sbio_mix_block(&m, &seed, 10, &other), 7);
    assert_int_equal(sbio_mix_block(&m, &seed, 10, &other), 8);
    assert_int_equal(sbio_mix_block(&m, &seed, 10, &other), 9);
    assert_int_equal(sbio_mix_block(&m, &seed, 10, &other), 0);
    assert_int_equal(sbio_mix_block(&m, &seed, 10, &seq), 0);
}

/* H_{n,s} = sum_{k=1..n} k^-s: directly for small n, else Euler–Maclaurin from M = 1000
 * (the neglected term is below 1e-20). */
static double harmonic(uint64_t n, double s)
{
    const uint64_t M = 1000;
    uint64_t top = n < M ? n : M - 1;
    double h = 0;
    for (uint64_t k = top; k >= 1; k--)
        h += pow((double)k, -s);
    if (n < M)
        return h;
    double dn = (double)n, dm = (double)M;
    h += (pow(dn, 1 - s) - pow(dm, 1 - s)) / (1 - s);
    h += (pow(dm, -s) + pow(dn, -s)) / 2;
    h += s / 12 * (pow(dm, -s - 1) - pow(dn, -s - 1));
    h -= s * (s + 1) * (s + 2) / 720 * (pow(dm, -s - 3) - pow(dn, -s - 3));
    return h;
}

#define ZIPF_RANKS 50
#define ZIPF_BINS  128

/* Chi-square of draws against zipf(theta) over n. Bins: ranks 1..50 one by one, then
 * ranks doubling (51-99, 100-199, 200-399, ...) up to n-1, and rank n alone (the end of the
 * range is where rejection-inversion is easiest to get wrong); a bin expecting fewer than 5
 * draws is merged into the one before it. Returns the statistic, *df its degrees of
 * freedom. */
static double zipf_chi2(uint64_t n, double theta, unsigned *df)
{
    uint64_t lo[ZIPF_BINS], obs[ZIPF_BINS] = {0};
    double exp_[ZIPF_BINS], h = harmonic(n, theta), below = 0;
    unsigned nb = 0;
    for (uint64_t r = 1; r <= n; nb++) { /* bin nb holds ranks lo[nb] .. next lo - 1 */
        assert_true(nb < ZIPF_BINS);
        lo[nb] = r;
        uint64_t next = r <= ZIPF_RANKS ? r + 1 : r < 100 ? 100 : 2 * r;
        if (r == n)
            next = n + 1;
        else if (next > n)
            next = n;
        double upto = harmonic(next - 1, theta);
        exp_[nb] = (upto - below) / h * NDRAWS;
        below = upto;
        r = next;
        if (nb > 0 && exp_[nb] < 5) { /* merge with the previous bin */
            exp_[nb - 1] += exp_[nb];
            nb--;
        }
    }
    assert_true(exp_[0] >= 5 && fabs(below / h - 1) < 1e-12);
    for (int i = 0; i < NDRAWS; i++) {
        uint64_t rank = draws[i] + 1;
        unsigned k = nb - 1;
        while (lo[k] > rank)
            k--;
        obs[k]++;
    }
    *df = nb - 1;
    return chi2_stat(obs, exp_, nb);
}

static void test_zipf(void **state)
{
    (void)state;
    const double thetas[] = {0.8, 1.2, 2.0};
    const uint64_t ns[] = {1000, 1000000000ULL};
    /* Sanity of the reference: H_{n,2} -> pi^2/6 - 1/n. */
    assert_true(fabs(harmonic(1000000000ULL, 2) - (M_PI * M_PI / 6 - 1e-9)) < 1e-12);
    double direct = 0;
    for (int k = 5000; k >= 1; k--)
        direct += pow(k, -1.2);
    assert_true(fabs(harmonic(5000, 1.2) - direct) < 1e-10);

    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 2; i++) {
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            draw_blocks(SBIO_PAT_ZIPF, thetas[t], 0, ns[i], 0x5eed0050 + 16 * t + i);
            clock_gettime(CLOCK_MONOTONIC, &b);
            double secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
            /* O(1) in n: preparing and drawing 1e5 from a billion blocks is quick (a table
             * or a sum over the set would take seconds). */
            assert_true(secs < 1.0);
            unsigned df;
            double x = zipf_chi2(ns[i], thetas[t], &df);
            print_message("zipf:%g n=%llu chi2=%.1f df=%u crit=%.1f (%.3f s)\n", thetas[t],
                          (unsigned long long)ns[i], x, df, chi2_crit(df), secs);
            assert_true(x < chi2_crit(df));
            /* Power: a theta off by 0.05 is rejected. */
            assert_true(zipf_chi2(ns[i], thetas[t] + 0.05, &df) > chi2_crit(df));
            assert_true(zipf_chi2(ns[i], thetas[t] - 0.05, &df) > chi2_crit(df));
            /* The last rank on its own (binomial z-test, two-sided 1 %), where it expects
             * enough draws: an off-by-one at the end of the range shows there. */
            double p = pow((double)ns[i], -thetas[t]) / harmonic(ns[i], thetas[t]);
            if (p * NDRAWS >= 10) {
                uint64_t last = 0;
                for (int d = 0; d < NDRAWS; d++)
                    last += draws[d] == ns[i] - 1;
                double z = ((double)last - p * NDRAWS) / sqrt(NDRAWS * p * (1 - p));
                print_message("  last rank: %llu drawn, %.1f expected, z=%.2f\n",
                              (unsigned long long)last, p * NDRAWS, z);
                assert_true(fabs(z) < 2.5758);
            }
        }
}

/* Pareto: index = floor(n u^k), so P(index < x) = (x/n)^(1/k). */
static double pareto_G(const struct law *l, double x)
{
    return x >= l->n ? 1 : pow(x / l->n, 1 / l->p1);
}

static void test_pareto(void **state)
{
    (void)state;
    const double hs[] = {0.1, 0.2, 0.3};
    const uint64_t ns[] = {1000, 1ULL << 40};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 2; i++) {
            double H = hs[t];
            uint64_t n = ns[i];
            draw_blocks(SBIO_PAT_PARETO, H, 0, n, 0x5eed0060 + 16 * t + i);
            uint64_t first = 0, lim = (uint64_t)llround(H * (double)n);
            for (int d = 0; d < NDRAWS; d++)
                first += draws[d] < lim;
            assert_true(fabs((double)first / NDRAWS - (1 - H)) < 0.01);

            qsort(draws, NDRAWS, sizeof(*draws), cmp_u64);
            struct law l = {pareto_G, (double)n, log(H) / log(1 - H), 0};
            double d = ks_stat(draws, NDRAWS, &l);
            print_message("pareto:%g n=%llu D=%.5f crit=%.5f\n", H, (unsigned long long)n, d,
                          ks_crit(NDRAWS));
            assert_true(d < ks_crit(NDRAWS));
            /* Power: the law for H +- 0.01 is rejected. */
            l.p1 = log(H + 0.01) / log(1 - H - 0.01);
            assert_true(ks_stat(draws, NDRAWS, &l) > ks_crit(NDRAWS));
            l.p1 = log(H - 0.01) / log(1 - H + 0.01);
            assert_true(ks_stat(draws, NDRAWS, &l) > ks_crit(NDRAWS));
        }
}

/* Gaussian: mean n/2, sd sigma n, truncated to [0, n); the index is floor of the value. */
static double phi(double z)
{
    return 0.5 * erfc(-z / M_SQRT2);
}

static double gauss_G(const struct law *l, double x)
{
    double n = l->n, sd = l->p1 * n, lo = phi(-n / 2 / sd), hi = phi(n / 2 / sd);
    if (x <= 0)
        return 0;
    if (x >= n)
        return 1;
    return (phi((x - n / 2) / sd) - lo) / (hi - lo);
}

static void test_gaussian(void **state)
{
    (void)state;
    const double sigmas[] = {0.05, 0.2};
    const uint64_t ns[] = {1000, 1ULL << 40};
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 2; i++) {
            uint64_t n = ns[i];
            draw_blocks(SBIO_PAT_GAUSSIAN, sigmas[t], 0, n, 0x5eed0070 + 16 * t + i);
            qsort(draws, NDRAWS, sizeof(*draws), cmp_u64);
            struct law l = {gauss_G, (double)n, sigmas[t], 0};
            double d = ks_stat(draws, NDRAWS, &l);
            print_message("gaussian:%g n=%llu D=%.5f crit=%.5f\n", sigmas[t], (unsigned long long)n,
                          d, ks_crit(NDRAWS));
            assert_true(d < ks_crit(NDRAWS));
            /* Power: sigma off by 5 % is rejected. */
            l.p1 = sigmas[t] * 1.05;
            assert_true(ks_stat(draws, NDRAWS, &l) > ks_crit(NDRAWS));
            l.p1 = sigmas[t] / 1.05;
            assert_true(ks_stat(draws, NDRAWS, &l) > ks_crit(NDRAWS));
        }
}

static void test_hot(void **state)
{
    (void)state;
    /* F, S and n; 0.57 * 100 is 56.99999999999999 in doubles, and the hot part is still
     * 57 blocks. */
    const struct {
        double f, s;
        uint64_t n, hot;
    } cases[] = {{0.1, 0.9, 1000, 100}, {0.2, 0.8, 1000, 200}, {0.57, 0.9, 100, 57}};
    for (int t = 0; t < 3; t++) {
        uint64_t n = cases[t].n, hot = cases[t].hot, in = 0;
        draw_blocks(SBIO_PAT_HOT, cases[t].f, cases[t].s, n, 0x5eed0080 + t);
        for (int i = 0; i < NDRAWS; i++)
            in += draws[i] < hot;
        assert_true(fabs((double)in / NDRAWS - cases[t].s) < 0.01);
        unsigned df;
        double x = uniform_chi2(0, hot, &df);
        assert_int_equal(df, hot - 1);
        assert_true(x < chi2_crit(df));
        x = uniform_chi2(hot, n, &df);
        assert_int_equal(df, n - hot - 1);
        assert_true(x < chi2_crit(df));
        assert_all_drawn(0, n);
        /* Power: the hot part's boundary one block off breaks uniformity. */
        x = uniform_chi2(0, hot + 1, &df);
        assert_true(x > chi2_crit(df));
        x = uniform_chi2(0, hot - 1, &df);
        assert_true(x < chi2_crit(df));
        x = uniform_chi2(hot - 1, n, &df);
        assert_true(x > chi2_crit(df));
    }
}

static void test_rand01(void **state)
{
    (void)state;
    uint64_t seed = 0x5eed0090;
    double sum = 0, lo = 1, hi = 0;
    uint64_t bins[100] = {0};
    double exp_[100];
    for (int i = 0; i < 10 * NDRAWS; i++) {
        double u = sbio_mix_rand01(&seed);
        assert_true(u >= 0 && u < 1);
        sum += u;
        lo = fmin(lo, u);
        hi = fmax(hi, u);
        bins[(int)(u * 100)]++;
    }
    for (int i = 0; i < 100; i++)
        exp_[i] = NDRAWS / 10.0;
    assert_true(chi2_stat(bins, exp_, 100) < chi2_crit(99));
    assert_true(fabs(sum / (10 * NDRAWS) - 0.5) < 0.002);
    assert_true(lo < 1e-4 && hi > 1 - 1e-4);
    /* The largest output of the generator still maps below 1. */
    assert_true((double)(UINT64_MAX >> 11) * 0x1.0p-53 < 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_op_weights), cmocka_unit_test(test_op_single),
        cmocka_unit_test(test_op_rmw),     cmocka_unit_test(test_size_distribution),
        cmocka_unit_test(test_uniform),    cmocka_unit_test(test_seq),
        cmocka_unit_test(test_zipf),       cmocka_unit_test(test_pareto),
        cmocka_unit_test(test_gaussian),   cmocka_unit_test(test_hot),
        cmocka_unit_test(test_rand01),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
