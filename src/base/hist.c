/* Latency histogram: everything but the hot path (see hist.h for layout and contracts). */
#include "hist.h"

#include <math.h>

void sbio_hist_init(struct sbio_hist *h)
{
    h->count = 0;
    h->sum_ns = 0;
    h->min_ns = UINT64_MAX;
    h->max_ns = 0;
    h->sumsq = 0.0;
    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++)
        h->buckets[i] = 0;
}

void sbio_hist_snapshot(struct sbio_hist *dst, const struct sbio_hist *src)
{
    /* Relaxed loads give no order between fields, so the copy may be torn by the values
     * recorded meanwhile; percentile() tolerates count and buckets disagreeing. */
    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++)
        dst->buckets[i] = __atomic_load_n(&src->buckets[i], __ATOMIC_RELAXED);
    dst->count = __atomic_load_n(&src->count, __ATOMIC_RELAXED);
    dst->sum_ns = __atomic_load_n(&src->sum_ns, __ATOMIC_RELAXED);
    dst->min_ns = __atomic_load_n(&src->min_ns, __ATOMIC_RELAXED);
    dst->max_ns = __atomic_load_n(&src->max_ns, __ATOMIC_RELAXED);
    __atomic_load(&src->sumsq, &dst->sumsq, __ATOMIC_RELAXED);
}

/* Inverse of sbio_hist_bucket_index() (hist.h): idx = (shift << B) + m with m = v >> shift in [2^B,
 * 2^(B+1)), except the first 2^B buckets, which hold their index exactly. */
uint64_t sbio_hist_bucket_lower(unsigned idx)
{
    if (idx < SBIO_HIST_SUB_COUNT)
        return idx;
    unsigned shift = (idx >> SBIO_HIST_SUB_BITS) - 1;
    uint64_t m = (idx & (SBIO_HIST_SUB_COUNT - 1)) | SBIO_HIST_SUB_COUNT;
    return m << shift;
}

static uint64_t bucket_width(unsigned idx)
{
    if (idx < SBIO_HIST_SUB_COUNT)
        return 1;
    return UINT64_C(1) << ((idx >> SBIO_HIST_SUB_BITS) - 1);
}

uint64_t sbio_hist_bucket_upper(unsigned idx)
{
    return sbio_hist_bucket_lower(idx) + bucket_width(idx) - 1;
}

uint64_t sbio_hist_bucket_mid(unsigned idx)
{
    /* width/2 rather than (width-1)/2: width is 1 or a power of two, so this is exact for
     * width 1 and keeps the bound at width/2 from either end otherwise. */
    return sbio_hist_bucket_lower(idx) + bucket_width(idx) / 2;
}

void sbio_hist_merge(struct sbio_hist *dst, const struct sbio_hist *src)
{
    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++)
        dst->buckets[i] += src->buckets[i];
    dst->count += src->count;
    dst->sum_ns += src->sum_ns;
    dst->sumsq += src->sumsq;
    if (src->min_ns < dst->min_ns)
        dst->min_ns = src->min_ns;
    if (src->max_ns > dst->max_ns)
        dst->max_ns = src->max_ns;
}

void sbio_hist_sub(struct sbio_hist *dst, const struct sbio_hist *newer,
                   const struct sbio_hist *older)
{
    /* Read newer's bounds before dst (which may alias it) is overwritten. */
    uint64_t nmin = newer->min_ns, nmax = newer->max_ns;
    unsigned first = SBIO_HIST_NBUCKETS, last = 0;

    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++) {
        dst->buckets[i] = newer->buckets[i] - older->buckets[i];
        if (dst->buckets[i]) {
            if (first == SBIO_HIST_NBUCKETS)
                first = i;
            last = i;
        }
    }
    dst->count = newer->count - older->count;
    dst->sum_ns = newer->sum_ns - older->sum_ns;
    dst->sumsq = newer->sumsq - older->sumsq;

    if (first == SBIO_HIST_NBUCKETS) {
        dst->min_ns = UINT64_MAX;
        dst->max_ns = 0;
        return;
    }
    /* Every interval value is >= the cumulative min and <= the cumulative max, so clamping
     * only ever moves the bucket bound towards the truth. The last bucket's nominal upper
     * bound would hide overflow values, hence the exception. */
    uint64_t lo = sbio_hist_bucket_lower(first);
    uint64_t hi = last == SBIO_HIST_NBUCKETS - 1 ? nmax : sbio_hist_bucket_upper(last);
    dst->min_ns = lo > nmin ? lo : nmin;
    dst->max_ns = hi < nmax ? hi : nmax;
}

uint64_t sbio_hist_percentile(const struct sbio_hist *h, double pct)
{
    if (h->count == 0)
        return 0;

    /* pct * count / 100 rather than pct / 100 * count: pct * count is exact or nearly so
     * for the usual pct values, so e.g. p99.9 of 100000 gives rank 99900, not 99901. */
    double r = ceil(pct * (double)h->count / 100.0);
    uint64_t rank;
    if (!(r >= 1.0)) /* also catches NaN */
        rank = 1;
    else if (r >= (double)h->count)
        rank = h->count;
    else
        rank = (uint64_t)r;

    uint64_t cum = 0, v = h->max_ns;
    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++) {
        cum += h->buckets[i];
        if (cum >= rank) {
            v = sbio_hist_bucket_mid(i);
            break;
        }
    }
    /* Falling off the end (v = max) only happens with a snapshot whose count ran ahead of
     * its buckets. */
    if (v < h->min_ns)
        v = h->min_ns;
    if (v > h->max_ns)
        v = h->max_ns;
    return v;
}

double sbio_hist_mean(const struct sbio_hist *h)
{
    if (h->count == 0)
        return 0.0;
    return (double)h->sum_ns / (double)h->count;
}

double sbio_hist_stddev(const struct sbio_hist *h)
{
    if (h->count == 0)
        return 0.0;
    double n = (double)h->count;
    double mean = (double)h->sum_ns / n;
    double var = h->sumsq / n - mean * mean;
    return var > 0.0 ? sqrt(var) : 0.0;
}
