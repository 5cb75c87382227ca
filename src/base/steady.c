#include "steady.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int sbio_steady_init(struct sbio_steady *s, unsigned window, double tol_pct)
{
    if (window < 2 || window > SBIO_STEADY_WINDOW_MAX || !(tol_pct > 0))
        return -EINVAL;
    memset(s, 0, sizeof(*s));
    s->window = window;
    s->tol_pct = tol_pct;
    return 0;
}

void sbio_steady_feed(struct sbio_steady *s, double end_s, double dur_s, double value)
{
    /* The slope is fitted at the interval's midpoint: intervals of unequal length (a poll
     * that woke late) are placed where their value was measured. */
    s->t_s[s->head] = end_s - dur_s / 2;
    s->dur_s[s->head] = dur_s;
    s->rate[s->head] = value;
    s->head = (s->head + 1) % s->window;
    if (s->n < s->window)
        s->n++;
}

/* The least-squares slope of rate over t_s, over the window. */
static double steady_slope(const struct sbio_steady *s)
{
    double tm = 0, vm = 0;
    for (unsigned i = 0; i < s->n; i++) {
        tm += s->t_s[i];
        vm += s->rate[i];
    }
    tm /= s->n;
    vm /= s->n;
    double sxy = 0, sxx = 0;
    for (unsigned i = 0; i < s->n; i++) {
        sxy += (s->t_s[i] - tm) * (s->rate[i] - vm);
        sxx += (s->t_s[i] - tm) * (s->t_s[i] - tm);
    }
    return sxx > 0 ? sxy / sxx : 0;
}

bool sbio_steady_check(const struct sbio_steady *s, struct sbio_steady_fig *f)
{
    memset(f, 0, sizeof(*f));
    if (s->n < s->window)
        return false;
    f->full = true;
    for (unsigned i = 0; i < s->n; i++) {
        f->mean += s->rate[i];
        f->window_s += s->dur_s[i];
    }
    f->mean /= s->n;
    if (!(f->mean > 0))
        return false;
    for (unsigned i = 0; i < s->n; i++) {
        double d = fabs(s->rate[i] - f->mean) / f->mean * 100;
        f->spread_pct = d > f->spread_pct ? d : f->spread_pct;
    }
    f->slope_pct_per_s = steady_slope(s) / f->mean * 100;
    f->settled =
        f->spread_pct <= s->tol_pct && fabs(f->slope_pct_per_s) * f->window_s <= s->tol_pct;
    return f->settled;
}
