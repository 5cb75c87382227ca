/* Per-thread statistics: one latency histogram per op type plus byte and event counters.
 * A read-modify-write is an op type of its own (lat[SBIO_RMW], bytes[SBIO_RMW]: its block's
 * bytes once); the bytes read and written it caused are its block's twice, once each way
 * (sbio_stats_bytes_read, sbio_stats_bytes_written).
 *
 * Each worker owns its struct sbio_stats and is its only writer; updates are relaxed
 * atomic stores so the interim reporter can read them concurrently (relaxed loads) without
 * a lock or a locked instruction. The parent merges them after join.
 *
 * Memory: the struct holds a 20 KiB histogram per op type, most of which a job never uses
 * (a job without file-system operations uses at most five). A histogram that recorded
 * nothing (count 0) is empty whatever its min_ns says: it may be all zero bytes, the way
 * sbio_stats_init leaves memory that is zero already (fresh pages), so that the pages of an
 * op type a job never does are never written and cost no memory. Every function here keeps
 * such histograms unwritten where it can; read a histogram's min_ns only when its count is
 * not 0. */
#ifndef SBIO_STATS_H
#define SBIO_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "io.h"
#include "hist.h"

/* Aligned to a cache line, so that threads' stats side by side in an array never share
 * one (every field is written per op by its own thread). */
struct __attribute__((aligned(64))) sbio_stats {
    struct sbio_hist lat[SBIO_OP_NR]; /* latency per op type; lat[op].count = ops */
    struct sbio_hist datasync;        /* the fdatasyncs a script asked for (SBIO_IO_DATASYNC),
                                         also in lat[SBIO_FSYNC]: reports give them a row */
    uint64_t bytes[SBIO_OP_NR];
    uint64_t events;       /* reads + writes + periodic fsyncs: what --events counts */
    uint64_t end_fsyncs;   /* --file-fsync-end fsyncs: in lat[SBIO_FSYNC], not events */
    uint64_t write_fsyncs; /* --file-fsync-all fsyncs: inside their write's event and latency */
    uint64_t errors;
    uint64_t skipped; /* a tree job's draws that could not be served then (no free slot for a
                         create, no file for an unlink, no current file for a close…): no
                         system call, not an event, in no other count */
    uint64_t verify_checked, verify_failed; /* --verify: blocks read and checked, bad ones */
    uint64_t start_ns, end_ns;              /* the thread's measured phase */
};

/* Make s empty: every counter 0, start_ns UINT64_MAX. A histogram whose bytes are zero
 * already is only read, not written (see Memory above). */
void sbio_stats_init(struct sbio_stats *s);

/* Hot path: record one completed operation. Single writer. */
static inline void sbio_stats_record(struct sbio_stats *s, enum sbio_op op, uint64_t lat_ns,
                                     uint64_t bytes, int is_event)
{
    sbio_hist_record(&s->lat[op], lat_ns);
    if (bytes)
        __atomic_store_n(&s->bytes[op], s->bytes[op] + bytes, __ATOMIC_RELAXED);
    if (is_event)
        __atomic_store_n(&s->events, s->events + 1, __ATOMIC_RELAXED);
    else
        __atomic_store_n(&s->end_fsyncs, s->end_fsyncs + 1, __ATOMIC_RELAXED);
}

/* Hot path: a completed io of the measured phase, an event: as sbio_stats_record, and an
 * fsync the io asked to be an fdatasync (SBIO_IO_DATASYNC) also into datasync. */
static inline void sbio_stats_record_io(struct sbio_stats *s, const struct sbio_io *io,
                                        uint64_t lat_ns)
{
    sbio_stats_record(s, io->op, lat_ns, io->op == SBIO_FSYNC ? 0 : io->len, 1);
    if (io->op == SBIO_FSYNC && (io->flags & SBIO_IO_DATASYNC))
        sbio_hist_record(&s->datasync, lat_ns);
}

/* Concurrent reader: copy with relaxed loads. dst must have been made by sbio_stats_init,
 * snapshot, merge or copy; its histograms that are empty and stay empty are not written. */
void sbio_stats_snapshot(struct sbio_stats *dst, const struct sbio_stats *src);

/* dst += src (histograms bucket by bucket, counters summed, start min, end max). src's empty
 * histograms are skipped: dst's pages for them stay as they are. */
void sbio_stats_merge(struct sbio_stats *dst, const struct sbio_stats *src);

/* dst = src, both quiescent; dst is any memory (an sbio_stats_init of it first, so that pages
 * zero already stay unwritten where src's histogram is empty). */
void sbio_stats_copy(struct sbio_stats *dst, const struct sbio_stats *src);

/* Bytes read: the reads', the read-modify-writes' and the whole-file reads'. */
static inline uint64_t sbio_stats_bytes_read(const struct sbio_stats *s)
{
    return s->bytes[SBIO_READ] + s->bytes[SBIO_RMW] + s->bytes[SBIO_READWHOLE];
}

/* Bytes written: the writes', the read-modify-writes', and the creates', appends' and
 * whole-file writes'. */
static inline uint64_t sbio_stats_bytes_written(const struct sbio_stats *s)
{
    return s->bytes[SBIO_WRITE] + s->bytes[SBIO_RMW] + s->bytes[SBIO_CREATE] +
           s->bytes[SBIO_APPEND] + s->bytes[SBIO_WRITEWHOLE];
}

/* Whether s counted any file-system operation (an op type from SBIO_OP_FS_FIRST on) or
 * skipped a draw: what makes the reports show those op types. */
bool sbio_stats_has_fs(const struct sbio_stats *s);

/* Operations of all types (every op type's count, and the fsyncs inside writes). */
uint64_t sbio_stats_ops(const struct sbio_stats *s);

/* The latency of every operation type together, into h. */
void sbio_stats_all_lat(const struct sbio_stats *s, struct sbio_hist *h);

/* The thread's measured time in seconds (first op to last), 0 when it never started. */
double sbio_stats_secs(const struct sbio_stats *s);

/* Busy time: the sum of all operation latencies, in ns. */
uint64_t sbio_stats_busy_ns(const struct sbio_stats *s);

#endif
