/* Interim figures while a measured phase runs, on two schedules: printed lines
 * (--report-interval) and samples recorded into the result's time series (--log-interval, or
 * the report interval when only that is given). The runner's main thread polls; the workers
 * are never stopped or locked: their single-writer counters are read with relaxed loads. */
#ifndef SBIO_INTERIM_H
#define SBIO_INTERIM_H

#include <stdint.h>

#include "result.h"
#include "stats.h"

/* What the pipeline wants to see of a phase while it runs. */
struct sbio_interim {
    uint64_t print_ns; /* a line every print_ns, 0: none */
    uint64_t log_ns;   /* a sample every log_ns, 0: none */
    void *ctx;
    /* Once every thread is up with its files open, before any warm-up (may be NULL): the
     * moment to describe the run and get the system ready for it (drop caches). Non-zero
     * (-errno, its message printed): the run does not go. */
    int (*ready)(void *ctx);
    /* Once every thread is ready and the measured phase is about to start (may be NULL). */
    void (*started)(void *ctx);
    /* One line: the interval of interval_s ending t_s after the start, between prev and cur
     * (totals over all threads). */
    void (*line)(void *ctx, double t_s, double interval_s, const struct sbio_stats *cur,
                 const struct sbio_stats *prev);
};

struct sbio_ticker {
    uint64_t interval_ns, next_ns, last_ns;
    struct sbio_stats *prev;
};

/* One phase's polling state. */
struct sbio_interim_poll {
    const struct sbio_interim *out;
    uint64_t start_ns;
    struct sbio_stats *rep; /* print prev, log prev, current, scratch; NULL: no memory */
    struct sbio_ticker print, log;
};

/* Start polling a phase that started at start_ns (out may be NULL: nothing to do). Without
 * memory for the snapshots the phase goes on without lines or samples. */
void sbio_interim_begin(struct sbio_interim_poll *p, const struct sbio_interim *out,
                        uint64_t start_ns);

/* At now: when a line or a sample is due, total the threads' stats (n of them, side by
 * side) and print or record it into res. Returns the time of the next one (UINT64_MAX:
 * none). */
uint64_t sbio_interim_tick(struct sbio_interim_poll *p, uint64_t now,
                           const struct sbio_stats *threads, unsigned n,
                           struct sbio_run_result *res);

void sbio_interim_end(struct sbio_interim_poll *p);

#endif
