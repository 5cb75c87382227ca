#include "stats.h"

#include <sched.h>
#include <stddef.h>
#include <string.h>

/* Reads of a snapshot's moment that met a record before it asks the owner for it. */
#define STATS_MOMENT_TRIES 8

/* Whether n bytes at p are all zero: reading fresh pages maps the zero page, which costs no
 * memory, where writing them would give each a page of its own. */
static bool stats_zero(const void *p, size_t n)
{
    const uint64_t *w = p;
    for (size_t i = 0; i < n / sizeof(*w); i++)
        if (w[i])
            return false;
    return true;
}

/* Make h empty without writing it when it is empty already (count 0: its buckets are 0). */
static void stats_hist_clear(struct sbio_hist *h)
{
    if (h->count)
        sbio_hist_init(h);
}

/* Make h empty; memory that is zero already is left unwritten (stats.h, Memory). */
static void stats_hist_init(struct sbio_hist *h)
{
    if (!stats_zero(h, sizeof(*h)))
        sbio_hist_init(h);
}

/* dst += src, src quiescent: nothing written when src is empty; an empty dst (perhaps all
 * zero, min_ns 0) becomes a proper empty histogram first. */
static void stats_hist_merge(struct sbio_hist *dst, const struct sbio_hist *src)
{
    if (!src->count)
        return;
    if (!dst->count)
        sbio_hist_init(dst);
    sbio_hist_merge(dst, src);
}

void sbio_stats_init(struct sbio_stats *s)
{
    for (int i = 0; i < SBIO_OP_NR; i++)
        stats_hist_init(&s->lat[i]);
    stats_hist_init(&s->datasync);
    stats_hist_init(&s->end_sync);
    size_t head = offsetof(struct sbio_stats, bytes);
    memset((char *)s + head, 0, sizeof(*s) - head);
    s->start_ns = UINT64_MAX;
    s->ev_sync_min_ns = UINT64_MAX;
}

static const struct sbio_hist *stats_hist_at(const struct sbio_stats *s, int i)
{
    return i < SBIO_OP_NR ? &s->lat[i] : i == SBIO_OP_NR ? &s->datasync : &s->end_sync;
}

void sbio_stats_begin_end_syncs(struct sbio_stats *s)
{
    if (s->end_sync.count)
        return;
    const struct sbio_hist *f = &s->lat[SBIO_FSYNC];
    __atomic_store_n(&s->ev_sync_min_ns, f->count ? f->min_ns : UINT64_MAX, __ATOMIC_RELEASE);
    __atomic_store_n(&s->ev_sync_max_ns, f->count ? f->max_ns : 0, __ATOMIC_RELEASE);
}

/* The range of the fsyncs that were events: the fsyncs' own while no end fsync is in. */
static void stats_event_sync_range(const struct sbio_stats *s, uint64_t *min, uint64_t *max)
{
    const struct sbio_hist *f = &s->lat[SBIO_FSYNC];
    if (f->count == s->end_sync.count) {
        *min = UINT64_MAX;
        *max = 0;
    } else if (!s->end_sync.count) {
        *min = f->min_ns;
        *max = f->max_ns;
    } else {
        *min = s->ev_sync_min_ns;
        *max = s->ev_sync_max_ns;
    }
}

/* One pass over the moment's fields, acquire loads: a later read of the sequence count comes
 * after them. */
static void stats_moment_load(struct sbio_stats_moment *m, const struct sbio_stats *src)
{
    for (int i = 0; i <= SBIO_OP_NR + 1; i++) {
        const struct sbio_hist *h = stats_hist_at(src, i);
        m->h[i].count = __atomic_load_n(&h->count, __ATOMIC_ACQUIRE);
        if (!m->h[i].count)
            continue;
        m->h[i].sum_ns = __atomic_load_n(&h->sum_ns, __ATOMIC_ACQUIRE);
        m->h[i].min_ns = __atomic_load_n(&h->min_ns, __ATOMIC_ACQUIRE);
        m->h[i].max_ns = __atomic_load_n(&h->max_ns, __ATOMIC_ACQUIRE);
        __atomic_load(&h->sumsq, &m->h[i].sumsq, __ATOMIC_ACQUIRE);
    }
    for (int i = 0; i < SBIO_OP_NR; i++)
        m->bytes[i] = __atomic_load_n(&src->bytes[i], __ATOMIC_ACQUIRE);
    m->events = __atomic_load_n(&src->events, __ATOMIC_ACQUIRE);
    m->end_fsyncs = __atomic_load_n(&src->end_fsyncs, __ATOMIC_ACQUIRE);
}

void sbio_stats_publish(struct sbio_stats *s, uint64_t req)
{
    stats_moment_load(&s->published, s);
    __atomic_store_n(&s->ans, req, __ATOMIC_RELEASE);
}

/* src's moment into m: read between two equal even values of its sequence count (no record
 * under way), or, when a few reads in a row met a record, the moment the owner publishes at
 * its next record; whichever comes first (an owner blocked in a long I/O records nothing,
 * and the next read succeeds). Both are moments after the call began. */
static void stats_read_moment(struct sbio_stats_moment *m, const struct sbio_stats *src)
{
    uint64_t req = 0;
    for (unsigned tries = 0;; tries++) {
        if (req && __atomic_load_n(&src->ans, __ATOMIC_ACQUIRE) == req) {
            *m = src->published;
            return;
        }
        uint64_t seq = __atomic_load_n(&src->seq, __ATOMIC_ACQUIRE);
        if (!(seq & 1)) {
            stats_moment_load(m, src);
            if (__atomic_load_n(&src->seq, __ATOMIC_RELAXED) == seq)
                return;
        }
        if (tries == STATS_MOMENT_TRIES) {
            /* The only writer of req: a plain read of it is this thread's own. */
            req = src->req + 1;
            __atomic_store_n((uint64_t *)&src->req, req, __ATOMIC_RELEASE);
        } else if (tries > STATS_MOMENT_TRIES) {
            /* Waiting for an owner preempted within a record, or for its next record. */
            sched_yield();
        }
    }
}

/* A histogram of a snapshot: the buckets (and fields sbio_hist_snapshot reads again, which
 * the moment's then replace); one that recorded nothing is not read further (and dst, empty
 * too, not written). */
static void stats_hist_snapshot(struct sbio_hist *dst, const struct sbio_hist *src,
                                const struct sbio_stats_moment *m, int i)
{
    if (!m->h[i].count) {
        stats_hist_clear(dst);
        return;
    }
    sbio_hist_snapshot(dst, src);
    dst->count = m->h[i].count;
    dst->sum_ns = m->h[i].sum_ns;
    dst->min_ns = m->h[i].min_ns;
    dst->max_ns = m->h[i].max_ns;
    dst->sumsq = m->h[i].sumsq;
}

void sbio_stats_snapshot(struct sbio_stats *dst, const struct sbio_stats *src)
{
    struct sbio_stats_moment m;
    stats_read_moment(&m, src);
    for (int i = 0; i < SBIO_OP_NR; i++) {
        stats_hist_snapshot(&dst->lat[i], &src->lat[i], &m, i);
        dst->bytes[i] = m.bytes[i];
    }
    stats_hist_snapshot(&dst->datasync, &src->datasync, &m, SBIO_OP_NR);
    stats_hist_snapshot(&dst->end_sync, &src->end_sync, &m, SBIO_OP_NR + 1);
    dst->ev_sync_min_ns = __atomic_load_n(&src->ev_sync_min_ns, __ATOMIC_ACQUIRE);
    dst->ev_sync_max_ns = __atomic_load_n(&src->ev_sync_max_ns, __ATOMIC_ACQUIRE);
    dst->events = m.events;
    dst->end_fsyncs = m.end_fsyncs;
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
    uint64_t dmin, dmax, smin, smax;
    stats_event_sync_range(dst, &dmin, &dmax);
    stats_event_sync_range(src, &smin, &smax);
    dst->ev_sync_min_ns = dmin < smin ? dmin : smin;
    dst->ev_sync_max_ns = dmax > smax ? dmax : smax;
    for (int i = 0; i < SBIO_OP_NR; i++) {
        stats_hist_merge(&dst->lat[i], &src->lat[i]);
        dst->bytes[i] += src->bytes[i];
    }
    stats_hist_merge(&dst->datasync, &src->datasync);
    stats_hist_merge(&dst->end_sync, &src->end_sync);
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

void sbio_stats_copy(struct sbio_stats *dst, const struct sbio_stats *src)
{
    /* Empty merged with src is src: start_ns from UINT64_MAX and end_ns from 0 take src's. */
    sbio_stats_init(dst);
    sbio_stats_merge(dst, src);
}

bool sbio_stats_has_fs(const struct sbio_stats *s)
{
    for (int op = SBIO_OP_FS_FIRST; op < SBIO_OP_NR; op++)
        if (s->lat[op].count)
            return true;
    return s->skipped > 0;
}

uint64_t sbio_stats_ops(const struct sbio_stats *s)
{
    uint64_t n = s->write_fsyncs;
    for (int op = 0; op < SBIO_OP_NR; op++)
        n += s->lat[op].count;
    return n;
}

uint64_t sbio_stats_busy_ns(const struct sbio_stats *s)
{
    return s->end_ns > s->start_ns && s->start_ns != UINT64_MAX ? s->end_ns - s->start_ns : 0;
}

void sbio_stats_all_lat(const struct sbio_stats *s, struct sbio_hist *h)
{
    sbio_hist_init(h);
    for (int op = 0; op < SBIO_OP_NR; op++)
        stats_hist_merge(h, &s->lat[op]);
}

void sbio_stats_event_lat(const struct sbio_stats *s, struct sbio_hist *h)
{
    sbio_stats_all_lat(s, h);
    if (!s->end_sync.count)
        return;
    sbio_hist_sub(h, h, &s->end_sync);
    uint64_t min, max;
    stats_event_sync_range(s, &min, &max);
    for (int op = 0; op < SBIO_OP_NR; op++) {
        const struct sbio_hist *o = &s->lat[op];
        if (op == SBIO_FSYNC || !o->count)
            continue;
        min = o->min_ns < min ? o->min_ns : min;
        max = o->max_ns > max ? o->max_ns : max;
    }
    h->min_ns = h->count ? min : UINT64_MAX;
    h->max_ns = h->count ? max : 0;
}

double sbio_stats_secs(const struct sbio_stats *s)
{
    return (double)sbio_stats_busy_ns(s) / 1e9;
}
