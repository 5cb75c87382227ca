/* Latency histogram, log-linear like fio's stat.h and HdrHistogram.
 *
 * Layout (values in ns, B = SBIO_HIST_SUB_BITS = 6, 64 sub-buckets per octave):
 *   - values 0..63 each have their own bucket: index == value (exact);
 *   - each octave [2^k, 2^(k+1)) for k = 6..44 is split into 64 equal sub-buckets of width
 *     2^(k-6). Octave k = 6 has width 1, so in fact every value below 128 is exact and
 *     index == value there too;
 *   - index(v) = (s << 6) + (v >> s) with s = max(msb(v), 6) - 6, computed with one clz,
 *     no branch on the octave and no loop.
 *
 * Range: 0 .. 2^45 - 1 ns (about 9.77 h) in SBIO_HIST_NBUCKETS = (45 - 6 + 1) * 64 = 2560
 * buckets (20 KiB of counters). Larger values are counted in the last bucket, whose bounds
 * stay nominal ([2^45 - 2^38, 2^45 - 1]); max_ns still records the true value.
 *
 * Error bound: in every bucket, width / lower <= 1/64, and the reported midpoint
 * (lower + width/2) is within width/2 of any value in the bucket, so
 * |mid - v| / v <= 1/128 (< 0.79 %) for every in-range v. Buckets below 128 are exact.
 *
 * Concurrency: one writer per histogram (the thread that owns it) calls
 * sbio_hist_record(); any other thread may call sbio_hist_snapshot() at any time. Every
 * store in record() is an atomic store (release for the scalar fields, so that a reader
 * that retries on a sequence count, as stats.c does, sees them in order; relaxed for the
 * bucket) and snapshot() uses relaxed atomic loads, so there is no data race (TSan-clean)
 * and no locked instruction or fence on the hot path. The price is that a snapshot is not a
 * consistent cut: count, sum and buckets may disagree by the few values recorded while it
 * was being copied. Every other function reads plainly and must be given a snapshot or a
 * histogram nobody is recording into.
 */
#ifndef SBIO_HIST_H
#define SBIO_HIST_H

#include <stdint.h>

#define SBIO_HIST_SUB_BITS  6
#define SBIO_HIST_SUB_COUNT (1u << SBIO_HIST_SUB_BITS)
/* Values below 2^SBIO_HIST_MAX_BITS ns are in range. 45 gives an hour a factor ~10 of room
 * so the overflow bucket only ever catches hung I/O. */
#define SBIO_HIST_MAX_BITS 45
#define SBIO_HIST_MAX_NS   ((UINT64_C(1) << SBIO_HIST_MAX_BITS) - 1)
/* Octaves 0..5 collapse into the first 64 exact buckets, then one group of 64 per octave. */
#define SBIO_HIST_NBUCKETS ((SBIO_HIST_MAX_BITS - SBIO_HIST_SUB_BITS + 1) * SBIO_HIST_SUB_COUNT)

struct sbio_hist {
    uint64_t count;  /* values recorded */
    uint64_t sum_ns; /* sum of values */
    uint64_t min_ns; /* UINT64_MAX when empty */
    uint64_t max_ns; /* 0 when empty */
    double sumsq;    /* sum of squares, for stddev (as ns^2) */
    uint64_t buckets[SBIO_HIST_NBUCKETS];
};

/* Make h empty: all counters 0, min_ns UINT64_MAX, max_ns 0. */
void sbio_hist_init(struct sbio_hist *h);

/* Bucket holding ns; values above SBIO_HIST_MAX_NS map to SBIO_HIST_NBUCKETS - 1.
 * Inline because record() needs it on every I/O. */
static inline unsigned sbio_hist_bucket_index(uint64_t ns)
{
    /* Saturating first keeps the formula below branch-free (a cmov) for every input. */
    uint64_t v = ns < SBIO_HIST_MAX_NS ? ns : SBIO_HIST_MAX_NS;
    /* OR-ing in 2^B floors the octave at B, which makes values < 2^(B+1) land at index v. */
    unsigned msb = 63u - (unsigned)__builtin_clzll(v | SBIO_HIST_SUB_COUNT);
    unsigned shift = msb - SBIO_HIST_SUB_BITS;

    return (shift << SBIO_HIST_SUB_BITS) + (unsigned)(v >> shift);
}

/* Add one value. Only the owning thread may call it; see the concurrency note above.
 * Costs one clz, a handful of loads/stores and one multiply-add for sumsq. */
static inline void sbio_hist_record(struct sbio_hist *h, uint64_t ns)
{
    unsigned i = sbio_hist_bucket_index(ns);
    /* Plain reads are fine: this thread is the only writer. */
    double sumsq = h->sumsq + (double)ns * (double)ns;
    uint64_t count = h->count;

    __atomic_store_n(&h->buckets[i], h->buckets[i] + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&h->count, count + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&h->sum_ns, h->sum_ns + ns, __ATOMIC_RELEASE);
    __atomic_store(&h->sumsq, &sumsq, __ATOMIC_RELEASE);
    /* The first value sets min whatever it held: an empty histogram's min_ns means nothing
     * (one left all zero bytes, unwritten, has 0 there: stats.h). */
    if (ns < h->min_ns || !count)
        __atomic_store_n(&h->min_ns, ns, __ATOMIC_RELEASE);
    if (ns > h->max_ns)
        __atomic_store_n(&h->max_ns, ns, __ATOMIC_RELEASE);
}

/* Copy src into dst while src's owner may be recording into it (relaxed atomic loads of
 * every field). dst must be private to the caller. Not a consistent cut: see above. */
void sbio_hist_snapshot(struct sbio_hist *dst, const struct sbio_hist *src);

/* Smallest value in bucket idx. idx < SBIO_HIST_NBUCKETS. */
uint64_t sbio_hist_bucket_lower(unsigned idx);
/* Largest value in bucket idx (inclusive), so upper(i) + 1 == lower(i + 1). For the last
 * bucket this is the nominal SBIO_HIST_MAX_NS even though overflow values also land there. */
uint64_t sbio_hist_bucket_upper(unsigned idx);
/* Value reported for bucket idx: lower + width/2, within 1/128 of anything in the bucket;
 * equal to the value itself for the exact buckets (idx < 128). */
uint64_t sbio_hist_bucket_mid(unsigned idx);

/* dst += src: buckets, count, sum and sumsq added, min/max combined. dst and src must both
 * be quiescent (e.g. snapshots); merging per-thread snapshots gives the job total. */
void sbio_hist_merge(struct sbio_hist *dst, const struct sbio_hist *src);

/* dst = newer - older, where older is an earlier snapshot of the same histogram: the values
 * recorded in between, for interim reports. Buckets, count, sum and sumsq are subtracted
 * exactly (sumsq up to rounding). The interval's min/max are not stored anywhere, so they
 * come from the bounds of its first/last non-empty bucket, clamped to newer's true
 * [min_ns, max_ns]; they are therefore in the same bucket as the true interval min/max,
 * min_ns <= true min and max_ns >= true max. An empty interval gets the empty min/max.
 * dst may alias newer or older. */
void sbio_hist_sub(struct sbio_hist *dst, const struct sbio_hist *newer,
                   const struct sbio_hist *older);

/* Percentile by nearest rank: rank = ceil(pct * count / 100), the value reported is the
 * midpoint of the smallest bucket whose cumulative count >= rank, clamped to
 * [min_ns, max_ns] (so p100 of a single value is that value). pct in (0, 100]; values
 * outside are treated as rank 1 or rank count. Returns 0 when empty. Relative error vs.
 * the exact nearest-rank sample <= 1/128 while that sample is in range. */
uint64_t sbio_hist_percentile(const struct sbio_hist *h, double pct);

/* Arithmetic mean in ns, exact up to double rounding; 0 when empty. */
double sbio_hist_mean(const struct sbio_hist *h);

/* Population standard deviation in ns, from sum and sumsq (not from buckets); 0 when empty.
 * Never negative or NaN even when rounding makes sumsq/n - mean^2 slightly negative. */
double sbio_hist_stddev(const struct sbio_hist *h);

#endif
