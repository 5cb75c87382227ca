/* Statistical inference for comparing settings from a few runs each: mean and sd, Welch's
 * t-test and its degrees of freedom, Student t quantiles, confidence intervals of a mean and
 * of the relative difference of two means (log ratio) and its test, the Holm–Bonferroni correction
 * of a table's p-values, and runs far from the others (median absolute deviations).
 *
 * Pure functions: no I/O, no allocation, no global state; safe from any thread. */
#ifndef SBIO_INFER_H
#define SBIO_INFER_H

#include <stdbool.h>
#include <stddef.h>

/* Mean and sample standard deviation (n - 1; 0 for n < 2) of x[0..n); mean 0 for n == 0. */
void sbio_infer_mean_sd(const double *x, size_t n, double *mean, double *sd);

/* Regularized incomplete beta function I_x(a, b) (a, b > 0): 0 for x <= 0, 1 for x >= 1.
 * Absolute error about 1e-12 for a, b up to 10^5, growing beyond (2e-8 at 5 10^8: its
 * continued fraction needs more steps as a and b grow). */
double sbio_infer_betai(double a, double b, double x);

/* Two-sided p-value of Welch's t-test that two samples (mean, sample sd, n) have the same
 * mean. Returns -1 when a sample has fewer than 2 values (no test possible); 0 when both
 * are constant and differ, 1 when both are constant and equal. */
double sbio_infer_welch_p(double m1, double s1, size_t n1, double m2, double s2, size_t n2);

/* Student t: inverse CDF, p in (0,1), df > 0 (df may be fractional: Welch; INFINITY: the
 * standard normal's). NAN for p or df outside those ranges. t(1 - p) = -t(p); relative
 * error below about 1e-10 (absolute near p = 0.5, where t is near 0). */
double sbio_infer_t_quantile(double p, double df);

/* Welch–Satterthwaite degrees of freedom of two samples' mean difference; NAN if n < 2.
 * Between min(n1, n2) - 1 and n1 + n2 - 2; one sd 0: the other sample's n - 1; both sds 0
 * (the formula's 0/0): n1 + n2 - 2, the pooled test's. */
double sbio_infer_welch_df(double s1, size_t n1, double s2, size_t n2);

/* Half-width of the two-sided `level` (e.g. 0.95) CI of a mean from (sd, n): t * sd/sqrt(n);
 * NAN for n < 2 or level outside (0, 1). t is the (1 + level)/2 quantile at n - 1 df. */
double sbio_infer_halfwidth(double sd, size_t n, double level);

/* CI at `level` of the relative difference 100*(mu1/mu0 - 1) of two samples' true means,
 * sample 1 against the baseline 0, on the log scale: the interval of log(mu1/mu0) from the
 * delta method (standard error hypot(s1/(m1 sqrt n1), s0/(m0 sqrt n0)), Welch–Satterthwaite
 * degrees of freedom of those relative errors, sbio_infer_welch_df of s1/m1 and s0/m0), taken
 * back through exp. Its bounds are above -100% whatever the spread (a ratio of positive means
 * is positive), and swapping the samples gives the reciprocal ratios exactly:
 * (1 + lo'/100) = 1/(1 + hi/100) and back.
 * 0 with -100 < *lo <= *hi; -ERANGE when a mean is 0 or below with some spread (no log: the
 * interval would reach -100% or be unbounded); -EINVAL when a side has n < 2 (or level is
 * outside (0, 1)). Both sds 0: lo = hi = the point difference (-ERANGE if the baseline's
 * mean is 0).
 * A bounded interval excludes 0 exactly when sbio_infer_ratio_p < 1 - level: the CI and the
 * test agree. */
int sbio_infer_diff_ci(double m1, double s1, size_t n1, double m0, double s0, size_t n0,
                       double level, double *lo, double *hi);

/* Two-sided p-value of the test that goes with sbio_infer_diff_ci: Welch's t-test of
 * log(m1/m0) = 0, its standard error and degrees of freedom those of the interval. When a
 * mean is 0 or below (no log), Welch's t-test of the means themselves
 * (sbio_infer_welch_p). -1 when a sample has fewer than 2 values; 0 when both are constant
 * and differ, 1 when both are constant and equal. */
double sbio_infer_ratio_p(double m1, double s1, size_t n1, double m0, double s0, size_t n0);

/* Holm–Bonferroni: adj[i] = Holm-adjusted p of p[i] (step-down, made monotone, capped at
 * 1); entries with p[i] < 0 or NaN (no test) are outside the family and get adj[i] = -1.
 * Returns the family's size (tests made). A test is significant at alpha when adj < alpha.
 * Ties are ranked by index (the adjusted values of equal p come out equal). O(n^2) time, no
 * scratch memory: meant for tables (hundreds of cells), not for millions. */
size_t sbio_infer_holm(const double *p, size_t n, double *adj);

/* Median of x[0..n) (x not changed); NAN for n == 0. NaN values are ignored (NAN when all
 * are). O(n^2): meant for the runs of a setting. */
double sbio_infer_median(const double *x, size_t n);

/* Marks out[i] for each x[i] more than k median absolute deviations (raw MAD, not scaled)
 * from the median; when the MAD is 0, the mean absolute deviation from the median takes its
 * place; when that is 0 too, nothing is marked. n < 3: nothing marked. NaN values are
 * ignored (never marked, not counted). Returns how many were marked; *dist (may be NULL)
 * gets each value's distance in those units (0 where not computable). Every out[i] is
 * written (false when not marked). O(n^2), as sbio_infer_median. */
size_t sbio_infer_outliers(const double *x, size_t n, double k, bool *out, double *dist);

#endif
