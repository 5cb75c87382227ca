/* Steady state of a throughput series (--warmup=auto), after fio's steadystate: the last
 * `window` samples are settled when both
 *   - every sample is within ±tol% of the window's mean (the deviation criterion), and
 *   - the least-squares slope over the window is at most tol%/window_s of the mean per
 *     second (the slope criterion: the fitted line moves by at most tol% of the mean over
 *     the window), which catches a slow ramp whose samples all stay within the band.
 * A window whose mean is 0 (nothing completed) is never settled.
 *
 * Pure: no clock, no I/O, no allocation; the caller feeds the samples it measured. */
#ifndef SBIO_STEADY_H
#define SBIO_STEADY_H

#include <stdbool.h>

#define SBIO_STEADY_WINDOW_MAX 64

struct sbio_steady {
    unsigned window; /* samples in the window, 2..SBIO_STEADY_WINDOW_MAX */
    double tol_pct;
    unsigned n, head; /* samples fed (at most window kept), the next slot of the ring */
    double t_s[SBIO_STEADY_WINDOW_MAX];   /* each sample's interval midpoint */
    double dur_s[SBIO_STEADY_WINDOW_MAX]; /* each sample's interval length */
    double rate[SBIO_STEADY_WINDOW_MAX];  /* each sample's value (ops/s) */
};

/* The window's figures. */
struct sbio_steady_fig {
    bool full;              /* window samples have been fed */
    bool settled;           /* full, mean > 0 and both criteria hold */
    double mean;            /* the samples' mean */
    double window_s;        /* the intervals' total length */
    double spread_pct;      /* the largest |sample - mean| / mean, in % */
    double slope_pct_per_s; /* the least-squares slope / mean, in % per second (signed) */
};

/* An empty detector over window samples with tolerance tol_pct (> 0). 0, or -EINVAL for a
 * window outside 2..SBIO_STEADY_WINDOW_MAX or a tolerance that is not > 0. */
int sbio_steady_init(struct sbio_steady *s, unsigned window, double tol_pct);

/* One sample: value measured over the interval of dur_s (> 0) seconds that ended at end_s
 * (seconds from any fixed origin, increasing). The oldest sample leaves a full window. */
void sbio_steady_feed(struct sbio_steady *s, double end_s, double dur_s, double value);

/* The current window's figures (all 0 but full = false while it is not full); returns
 * f->settled. */
bool sbio_steady_check(const struct sbio_steady *s, struct sbio_steady_fig *f);

#endif
