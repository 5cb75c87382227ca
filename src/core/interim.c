#include "interim.h"

#include <stdlib.h>

static void ticker_init(struct sbio_ticker *tk, uint64_t interval_ns, uint64_t start_ns,
                        struct sbio_stats *prev)
{
    tk->interval_ns = prev ? interval_ns : 0;
    tk->next_ns = start_ns + interval_ns;
    tk->last_ns = start_ns;
    tk->prev = prev;
    if (prev)
        sbio_stats_init(prev);
}

static bool ticker_due(const struct sbio_ticker *tk, uint64_t now)
{
    return tk->interval_ns && now >= tk->next_ns;
}

static void ticker_advance(struct sbio_ticker *tk, uint64_t now, const struct sbio_stats *cur)
{
    sbio_stats_copy(tk->prev, cur); /* not *prev = *cur: unused op types stay unwritten */
    tk->last_ns = now;
    while (tk->next_ns <= now)
        tk->next_ns += tk->interval_ns;
}

void sbio_interim_begin(struct sbio_interim_poll *p, const struct sbio_interim *out,
                        uint64_t start_ns)
{
    p->out = out;
    p->start_ns = start_ns;
    p->rep = NULL;
    if (out && (out->print_ns || out->log_ns))
        p->rep = aligned_alloc(64, (4 * sizeof(struct sbio_stats) + 63) & ~(size_t)63);
    ticker_init(&p->print, out && out->line ? out->print_ns : 0, start_ns, p->rep);
    ticker_init(&p->log, out ? out->log_ns : 0, start_ns, p->rep ? p->rep + 1 : NULL);
}

/* Append the interval [tk->last_ns, now] to the result's time series. */
static void interim_sample(struct sbio_run_result *res, const struct sbio_ticker *tk,
                           uint64_t start_ns, uint64_t now, const struct sbio_stats *cur)
{
    if (res->nsamples == res->samples_cap) {
        size_t cap = res->samples_cap ? res->samples_cap * 2 : 64;
        struct sbio_sample *n = realloc(res->samples, cap * sizeof(*n));
        if (!n)
            return; /* the series gets a gap; the run goes on */
        res->samples = n;
        res->samples_cap = cap;
    }
    struct sbio_sample *sm = &res->samples[res->nsamples++];
    sm->t_s = (double)(now - start_ns) / 1e9;
    sm->dur_s = (double)(now - tk->last_ns) / 1e9;
    for (int op = 0; op < SBIO_OP_NR; op++) {
        struct sbio_hist d;
        sbio_hist_sub(&d, &cur->lat[op], &tk->prev->lat[op]);
        sm->ops[op] = d.count;
        sm->bytes[op] = cur->bytes[op] - tk->prev->bytes[op];
        sm->mean_ns[op] = sbio_hist_mean(&d);
        sm->p50_ns[op] = sbio_hist_percentile(&d, 50);
        sm->p99_ns[op] = sbio_hist_percentile(&d, 99);
        sm->max_ns[op] = d.count ? d.max_ns : 0;
    }
    sm->ops[SBIO_FSYNC] += cur->write_fsyncs - tk->prev->write_fsyncs;
}

uint64_t sbio_interim_tick(struct sbio_interim_poll *p, uint64_t now,
                           const struct sbio_stats *threads, unsigned n,
                           struct sbio_run_result *res)
{
    bool pdue = ticker_due(&p->print, now), ldue = ticker_due(&p->log, now);
    if (pdue || ldue) {
        struct sbio_stats *cur = p->rep + 2, *tmp = p->rep + 3;
        sbio_stats_init(cur);
        for (unsigned i = 0; i < n; i++) {
            sbio_stats_snapshot(tmp, &threads[i]);
            sbio_stats_merge(cur, tmp);
        }
        if (pdue) {
            p->out->line(p->out->ctx, (double)(now - p->start_ns) / 1e9,
                         (double)(now - p->print.last_ns) / 1e9, cur, p->print.prev);
            ticker_advance(&p->print, now, cur);
        }
        if (ldue) {
            interim_sample(res, &p->log, p->start_ns, now, cur);
            ticker_advance(&p->log, now, cur);
        }
    }
    uint64_t next = UINT64_MAX;
    if (p->print.interval_ns && p->print.next_ns < next)
        next = p->print.next_ns;
    if (p->log.interval_ns && p->log.next_ns < next)
        next = p->log.next_ns;
    return next;
}

void sbio_interim_end(struct sbio_interim_poll *p)
{
    free(p->rep);
    p->rep = NULL;
}
