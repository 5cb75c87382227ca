#include "infer.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

/* Above this many degrees of freedom a t quantile is the normal one plus the Cornish–Fisher
 * expansion's terms to 1/df^4: its relative error is then below 1e-13 for p up to 1 - 1e-6
 * (1e-11 at 1 - 1e-10), while solving on the incomplete beta function loses digits as df
 * grows (its continued fraction converges slower; 1e-9 near p = 0.5 at df 10^4). */
#define INFER_DF_EXPANSION 1e3

void sbio_infer_mean_sd(const double *x, size_t n, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = n ? s / (double)n : 0;
    for (size_t i = 0; i < n; i++)
        q += (x[i] - *mean) * (x[i] - *mean);
    *sd = n > 1 ? sqrt(q / (double)(n - 1)) : 0;
}

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double infer_betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-14)
            break;
    }
    return h;
}

double sbio_infer_betai(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x);
    /* The continued fraction converges fast on one side of (a+1)/(a+b+2): use symmetry. */
    if (x < (a + 1) / (a + b + 2))
        return exp(lbt) * infer_betacf(a, b, x) / a;
    return 1 - exp(lbt) * infer_betacf(b, a, 1 - x) / b;
}

double sbio_infer_welch_df(double s1, size_t n1, double s2, size_t n2)
{
    if (n1 < 2 || n2 < 2)
        return NAN;
    /* The standard errors a, b of the two means, and the share r = a^2 / (a^2 + b^2) of the
     * first in the difference's variance: (a^2 + b^2)^2 / (a^4/(n1-1) + b^4/(n2-1)) written
     * with r, free of overflow for huge sds. */
    double a = s1 / sqrt((double)n1), b = s2 / sqrt((double)n2), h = hypot(a, b);
    if (h == 0)
        return (double)(n1 + n2 - 2);
    double r = (a / h) * (a / h), q = (b / h) * (b / h);
    return 1 / (r * r / (double)(n1 - 1) + q * q / (double)(n2 - 1));
}

double sbio_infer_welch_p(double m1, double s1, size_t n1, double m2, double s2, size_t n2)
{
    if (n1 < 2 || n2 < 2)
        return -1;
    double se = hypot(s1 / sqrt((double)n1), s2 / sqrt((double)n2));
    if (se == 0)
        return m1 == m2 ? 1 : 0;
    double t = (m1 - m2) / se;
    double df = sbio_infer_welch_df(s1, n1, s2, n2);
    /* Two-sided: P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2). */
    return sbio_infer_betai(df / 2, 0.5, df / (df + t * t));
}

/* The upper tail P(T > t) of Student's t at df degrees of freedom (t >= 0), and its density;
 * df = INFINITY: the standard normal's. */
static double infer_tail(double t, double df)
{
    if (isinf(df))
        return 0.5 * erfc(t / M_SQRT2);
    return 0.5 * sbio_infer_betai(df / 2, 0.5, df / (df + t * t));
}

static double infer_density(double t, double df)
{
    if (isinf(df))
        return exp(-t * t / 2) / sqrt(2 * M_PI);
    double lc = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);
    return exp(lc - (df + 1) / 2 * log1p(t * t / df));
}

/* The t >= 0 with infer_tail(t, df) = q, q in (0, 0.5], from the guess t0: Newton's method
 * kept inside a bracket that bisection shrinks whenever a step would leave it (the tail is
 * convex on t >= 0, so Newton's steps from below never overshoot; those from above can). */
static double infer_tail_solve(double q, double df, double t0)
{
    double lo = 0, hi = isfinite(t0) && t0 > 1 ? t0 : 1;
    while (infer_tail(hi, df) > q && hi < 1e300)
        hi *= 2;
    double t = t0 > lo && t0 < hi ? t0 : (lo + hi) / 2;
    for (int i = 0; i < 200; i++) {
        double f = infer_tail(t, df) - q;
        if (f == 0)
            return t;
        if (f > 0)
            lo = t;
        else
            hi = t;
        double next = t + f / infer_density(t, df);
        if (!(next > lo && next < hi))
            next = (lo + hi) / 2;
        if (fabs(next - t) <= 1e-14 * next || hi - lo <= 1e-14 * hi)
            return next;
        t = next;
    }
    return t;
}

/* The standard normal's quantile of the upper tail q in (0, 0.5]: Abramowitz and Stegun's
 * 26.2.23 (error below 4.5e-4) as the guess, then Newton on erfc. */
static double infer_z_upper(double q)
{
    double w = sqrt(-2 * log(q));
    double z0 = w - (2.515517 + w * (0.802853 + w * 0.010328)) /
                        (1 + w * (1.432788 + w * (0.189269 + w * 0.001308)));
    return infer_tail_solve(q, INFINITY, z0);
}

/* Cornish–Fisher: the t quantile at df from the normal one z, to the 1/df^4 term. */
static double infer_t_expansion(double z, double df)
{
    double z2 = z * z;
    double g1 = (z2 + 1) * z / 4;
    double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
    double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
    double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
}

double sbio_infer_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    if (p == 0.5)
        return 0;
    double q = p < 0.5 ? p : 1 - p;
    double z = infer_z_upper(q);
    double t = infer_t_expansion(z, df);
    if (df <= INFER_DF_EXPANSION)
        t = infer_tail_solve(q, df, t);
    return p < 0.5 ? -t : t;
}

double sbio_infer_halfwidth(double sd, size_t n, double level)
{
    if (n < 2 || !(level > 0 && level < 1))
        return NAN;
    return sbio_infer_t_quantile((1 + level) / 2, (double)(n - 1)) * sd / sqrt((double)n);
}

/* The log ratio of two positive means, its standard error (delta method: the relative
 * standard errors of the means, added in quadrature) and its Welch–Satterthwaite degrees of
 * freedom. */
static void infer_log_ratio(double m1, double s1, size_t n1, double m0, double s0, size_t n0,
                            double *l, double *se, double *df)
{
    *l = log(m1 / m0);
    *se = hypot(s1 / m1 / sqrt((double)n1), s0 / m0 / sqrt((double)n0));
    *df = sbio_infer_welch_df(s1 / m1, n1, s0 / m0, n0);
}

int sbio_infer_diff_ci(double m1, double s1, size_t n1, double m0, double s0, size_t n0,
                       double level, double *lo, double *hi)
{
    if (n1 < 2 || n0 < 2 || !(level > 0 && level < 1))
        return -EINVAL;
    if (s1 == 0 && s0 == 0) {
        if (m0 == 0)
            return -ERANGE;
        *lo = *hi = 100 * (m1 / m0 - 1);
        return 0;
    }
    /* A ratio's interval on its own scale (Fieller's) can reach below -100%, a ratio below
     * 0 that positive figures never have; the log ratio's cannot. */
    if (!(m1 > 0 && m0 > 0))
        return -ERANGE;
    double l, se, df;
    infer_log_ratio(m1, s1, n1, m0, s0, n0, &l, &se, &df);
    double t = sbio_infer_t_quantile((1 + level) / 2, df);
    *lo = 100 * expm1(l - t * se);
    *hi = 100 * expm1(l + t * se);
    return 0;
}

double sbio_infer_ratio_p(double m1, double s1, size_t n1, double m0, double s0, size_t n0)
{
    if (n1 < 2 || n0 < 2)
        return -1;
    if (!(m1 > 0 && m0 > 0))
        return sbio_infer_welch_p(m1, s1, n1, m0, s0, n0);
    double l, se, df;
    infer_log_ratio(m1, s1, n1, m0, s0, n0, &l, &se, &df);
    if (se == 0)
        return m1 == m0 ? 1 : 0;
    double t = l / se;
    return sbio_infer_betai(df / 2, 0.5, df / (df + t * t));
}

static bool infer_holm_in(double p)
{
    return !isnan(p) && p >= 0;
}

size_t sbio_infer_holm(const double *p, size_t n, double *adj)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        adj[i] = -1;
        m += infer_holm_in(p[i]);
    }
    /* The family in ascending (p, index) order, one scan per rank (no sorted copy): the r-th
     * smallest gets (m - r) p, and the running maximum makes the adjusted values monotone. */
    double run = 0;
    size_t prev = SIZE_MAX;
    for (size_t r = 0; r < m; r++) {
        size_t next = SIZE_MAX;
        for (size_t j = 0; j < n; j++) {
            if (!infer_holm_in(p[j]))
                continue;
            bool after = prev == SIZE_MAX || p[j] > p[prev] || (p[j] == p[prev] && j > prev);
            bool before = next == SIZE_MAX || p[j] < p[next] || (p[j] == p[next] && j < next);
            if (after && before)
                next = j;
        }
        double raw = (double)(m - r) * p[next];
        run = fmax(run, raw < 1 ? raw : 1);
        adj[next] = run;
        prev = next;
    }
    return m;
}

/* The value of x[i] as ranked: itself, or with dev its distance from center. */
static double infer_value(double x, double center, bool dev)
{
    return dev ? fabs(x - center) : x;
}

/* The k-th smallest (from 0) of the non-NaN values of x[0..n) as infer_value ranks them, by
 * counting (x stays as it is, no copy): the value with fewer than k + 1 values below it and
 * at least k + 1 at or below it. */
static double infer_kth(const double *x, size_t n, double center, bool dev, size_t k)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            continue;
        double v = infer_value(x[i], center, dev);
        size_t below = 0, upto = 0;
        for (size_t j = 0; j < n; j++) {
            if (isnan(x[j]))
                continue;
            double u = infer_value(x[j], center, dev);
            below += u < v;
            upto += u <= v;
        }
        if (below <= k && k < upto)
            return v;
    }
    return NAN;
}

/* The median of the non-NaN values of x, or of their distances from center (dev); m of them. */
static double infer_mid(const double *x, size_t n, size_t m, double center, bool dev)
{
    if (!m)
        return NAN;
    double a = infer_kth(x, n, center, dev, (m - 1) / 2);
    double b = infer_kth(x, n, center, dev, m / 2);
    return a + (b - a) / 2;
}

static size_t infer_count(const double *x, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += !isnan(x[i]);
    return m;
}

double sbio_infer_median(const double *x, size_t n)
{
    return infer_mid(x, n, infer_count(x, n), 0, false);
}

size_t sbio_infer_outliers(const double *x, size_t n, double k, bool *out, double *dist)
{
    for (size_t i = 0; i < n; i++) {
        out[i] = false;
        if (dist)
            dist[i] = 0;
    }
    size_t m = infer_count(x, n);
    if (m < 3)
        return 0;
    double med = infer_mid(x, n, m, 0, false);
    double scale = infer_mid(x, n, m, med, true);
    if (scale == 0) {
        /* More than half the values equal: the mean distance still sees the others. */
        for (size_t i = 0; i < n; i++)
            scale += isnan(x[i]) ? 0 : fabs(x[i] - med);
        scale /= (double)m;
    }
    if (!(scale > 0))
        return 0;
    size_t marked = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            continue;
        double d = fabs(x[i] - med) / scale;
        if (dist)
            dist[i] = d;
        if (d > k) {
            out[i] = true;
            marked++;
        }
    }
    return marked;
}
