#include "stats.h"

#include <string.h>

void sbio_stats_init(struct sbio_stats *s)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < SBIO_OP_NR; i++)
        sbio_hist_init(&s->lat[i]);
    sbio_hist_init(&s->datasync);
    s->start_ns = UINT64_MAX;
}

void sbio_stats_snapshot(struct sbio_stats *dst, const struct sbio_stats *src)
{
    for (int i = 0; i < SBIO_OP_NR; i++) {
        sbio_hist_snapshot(&dst->lat[i], &src->lat[i]);
        dst->bytes[i] = __atomic_load_n(&src->bytes[i], __ATOMIC_RELAXED);
    }
    sbio_hist_snapshot(&dst->datasync, &src->datasync);
    dst->events = __atomic_load_n(&src->events, __ATOMIC_RELAXED);
    dst->end_fsyncs = __atomic_load_n(&src->end_fsyncs, __ATOMIC_RELAXED);
    dst->write_fsyncs = __atomic_load_n(&src->write_fsyncs, __ATOMIC_RELAXED);
    dst->errors = __atomic_load_n(&src->errors, __ATOMIC_RELAXED);
    dst->skipped = __atomic_load_n(&src->skipped, __ATOMIC_RELAXED);
    dst->verify_checked = __atomic_load_n(&src->verify_checked, __ATOMIC_RELAXED);
    dst->verify_failed = __atomic_load_n(&src->verify_failed, __ATOMIC_RELAXED);
    dst->start_ns = __atomic_load_n(&src->start_ns, __ATOMIC_RELAXED);
    dst->end_ns = __atomic_load_n(&src->end_ns, __ATOMIC_RELAXED);
}

void sbio_stats_merge(struct sbio_stats *dst, const struct sbio_stats *src)
{
    for (int i = 0; i < SBIO_OP_NR; i++) {
        sbio_hist_merge(&dst->lat[i], &src->lat[i]);
        dst->bytes[i] += src->bytes[i];
    }
    sbio_hist_merge(&dst->datasync, &src->datasync);
    dst->events += src->events;
    dst->end_fsyncs += src->end_fsyncs;
    dst->write_fsyncs += src->write_fsyncs;
    dst->errors += src->errors;
    dst->skipped += src->skipped;
    dst->verify_checked += src->verify_checked;
    dst->verify_failed += src->verify_failed;
    if (src->start_ns < dst->start_ns)
        dst->start_ns = src->start_ns;
    if (src->end_ns > dst->end_ns)
        dst->end_ns = src->end_ns;
}

uint64_t sbio_stats_ops(const struct sbio_stats *s)
{
    return s->lat[SBIO_READ].count + s->lat[SBIO_WRITE].count + s->lat[SBIO_FSYNC].count +
           s->lat[SBIO_RMW].count + s->write_fsyncs;
}

uint64_t sbio_stats_busy_ns(const struct sbio_stats *s)
{
    return s->lat[SBIO_READ].sum_ns + s->lat[SBIO_WRITE].sum_ns + s->lat[SBIO_FSYNC].sum_ns +
           s->lat[SBIO_RMW].sum_ns;
}

void sbio_stats_all_lat(const struct sbio_stats *s, struct sbio_hist *h)
{
    sbio_hist_init(h);
    for (int op = 0; op < SBIO_OP_NR; op++)
        sbio_hist_merge(h, &s->lat[op]);
}

double sbio_stats_secs(const struct sbio_stats *s)
{
    return s->end_ns > s->start_ns && s->start_ns != UINT64_MAX
               ? (double)(s->end_ns - s->start_ns) / 1e9
               : 0;
}
