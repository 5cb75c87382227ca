/* Per-thread statistics: one latency histogram per op type plus byte and event counters.
 * A read-modify-write is an op type of its own (lat[SBIO_RMW], bytes[SBIO_RMW]: its block's
 * bytes once); the bytes read and written it caused are its block's twice, once each way
 * (sbio_stats_bytes_read, sbio_stats_bytes_written).
 *
 * Each worker owns its struct sbio_stats and is its only writer; updates are atomic stores
 * so the interim reporter can read them concurrently without a lock or a locked
 * instruction. A record is framed by a sequence count (odd while it writes, a seqlock with a
 * single writer), so that a snapshot's counts, sums and bytes are those of one moment: an
 * interval's bytes are exactly its ops' bytes. An owner that records faster than a reader
 * can read (the null engine: tens of millions a second) is asked instead to publish its
 * moment: a request count the reader raises, which every record compares with its answer.
 * The parent merges them after join.
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

/* The fields a record writes but the buckets: what a snapshot reads as one moment. */
struct sbio_stats_moment {
    struct {
        uint64_t count, sum_ns, min_ns, max_ns;
        double sumsq;
    } h[SBIO_OP_NR + 2]; /* lat[], then datasync, then end_sync */
    uint64_t bytes[SBIO_OP_NR], events, end_fsyncs;
};

/* Aligned to a cache line, so that threads' stats side by side in an array never share
 * one (every field is written per op by its own thread). */
struct __attribute__((aligned(64))) sbio_stats {
    struct sbio_hist lat[SBIO_OP_NR]; /* latency per op type; lat[op].count = ops */
    struct sbio_hist datasync;        /* the fdatasyncs a script asked for (SBIO_IO_DATASYNC),
                                         also in lat[SBIO_FSYNC]: reports give them a row */
    struct sbio_hist end_sync;        /* the --file-fsync-end fsyncs, also in lat[SBIO_FSYNC]:
                                         sysbench's latency figures leave them out */
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
    /* The least and the greatest latency of the fsyncs that were events (lat[SBIO_FSYNC] less
     * end_sync), set when the first end fsync is recorded (sbio_stats_begin_end_syncs). */
    uint64_t ev_sync_min_ns, ev_sync_max_ns;
    uint64_t seq; /* records begun + records ended: odd while the owner records */
    /* A reader's requests (raised by the reader only) and the last one answered (by the
     * owner, after it wrote published). */
    uint64_t req, ans;
    struct sbio_stats_moment published;
};

/* The owner's answer to a reader's request req: its moment into published, then ans. */
void sbio_stats_publish(struct sbio_stats *s, uint64_t req);

/* Make s empty: every counter 0, start_ns UINT64_MAX. A histogram whose bytes are zero
 * already is only read, not written (see Memory above). */
void sbio_stats_init(struct sbio_stats *s);

/* One record's stores, between the sequence count's odd and even values. The odd store
 * is relaxed: the record's own stores are release stores, so none is seen before it; the
 * even store is a release, so all of them are seen before it. On x86 these are plain
 * moves. */
static inline void stats_record_fields(struct sbio_stats *s, enum sbio_op op, uint64_t lat_ns,
                                       uint64_t bytes, int is_event, int datasync)
{
    uint64_t seq = s->seq;

    __atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELAXED);
    sbio_hist_record(&s->lat[op], lat_ns);
    if (datasync)
        sbio_hist_record(&s->datasync, lat_ns);
    if (bytes)
        __atomic_store_n(&s->bytes[op], s->bytes[op] + bytes, __ATOMIC_RELEASE);
    if (is_event) {
        __atomic_store_n(&s->events, s->events + 1, __ATOMIC_RELEASE);
    } else {
        sbio_hist_record(&s->end_sync, lat_ns);
        __atomic_store_n(&s->end_fsyncs, s->end_fsyncs + 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
    uint64_t req = __atomic_load_n(&s->req, __ATOMIC_ACQUIRE);
    if (__builtin_expect(req != s->ans, 0))
        sbio_stats_publish(s, req);
}

/* The owner, before its first end fsync (--file-fsync-end): the fsyncs so far are events;
 * their least and greatest latency are kept for sbio_stats_event_lat. */
void sbio_stats_begin_end_syncs(struct sbio_stats *s);

/* Hot path: record one completed operation (is_event 0: an end fsync). Single writer. */
static inline void sbio_stats_record(struct sbio_stats *s, enum sbio_op op, uint64_t lat_ns,
                                     uint64_t bytes, int is_event)
{
    stats_record_fields(s, op, lat_ns, bytes, is_event, 0);
}

/* Hot path: a completed io of the measured phase, an event: as sbio_stats_record, and an
 * fsync the io asked to be an fdatasync (SBIO_IO_DATASYNC) also into datasync. */
static inline void sbio_stats_record_io(struct sbio_stats *s, const struct sbio_io *io,
                                        uint64_t lat_ns)
{
    stats_record_fields(s, io->op, lat_ns, io->op == SBIO_FSYNC ? 0 : io->len, 1,
                        io->op == SBIO_FSYNC && (io->flags & SBIO_IO_DATASYNC));
}

/* Concurrent reader (one at a time per src): copy while the owner records. Every
 * histogram's count, sum, sumsq, min and max, the bytes, events and end_fsyncs are one
 * moment's (read again while a record was under way, or published by the owner when asked);
 * the buckets are read after them, so they may hold a few values more, and the other
 * counters (errors, skipped…) are read once. dst must have been made by sbio_stats_init,
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

/* Requests that read data, as sysbench's "reads/s" and "reads ... done" count them: the
 * reads, and on a file tree the whole-file reads (one each, whatever its size). */
static inline uint64_t sbio_stats_reads(const struct sbio_stats *s)
{
    return s->lat[SBIO_READ].count + s->lat[SBIO_READWHOLE].count;
}

/* Requests that write data, as sysbench's "writes/s" and "writes ... done" count them: the
 * writes, and on a file tree the creates (which write the new file), appends and whole-file
 * writes (one each), so that the counts and the bytes written tell of the same operations. */
static inline uint64_t sbio_stats_writes(const struct sbio_stats *s)
{
    return s->lat[SBIO_WRITE].count + s->lat[SBIO_CREATE].count + s->lat[SBIO_APPEND].count +
           s->lat[SBIO_WRITEWHOLE].count;
}

/* Whether s counted any file-system operation (an op type from SBIO_OP_FS_FIRST on) or
 * skipped a draw: what makes the reports show those op types. */
bool sbio_stats_has_fs(const struct sbio_stats *s);

/* Operations of all types (every op type's count, and the fsyncs inside writes). */
uint64_t sbio_stats_ops(const struct sbio_stats *s);

/* The latency of every operation type together, into h. */
void sbio_stats_all_lat(const struct sbio_stats *s, struct sbio_hist *h);

/* The latency of the events alone (every operation but the end fsyncs), into h: what
 * sysbench's latency figures cover. Exact: counts, sums and buckets by difference, min and
 * max from the fsyncs' range kept before the end fsyncs. */
void sbio_stats_event_lat(const struct sbio_stats *s, struct sbio_hist *h);

/* The thread's measured time in seconds (first op to last), 0 when it never started. */
double sbio_stats_secs(const struct sbio_stats *s);

/* Busy time, sysbench's "execution time": the thread's wall time in its measured phase (its
 * event loop, from start_ns to end_ns), in ns; 0 when it never started. Not a sum of
 * latencies: with requests in flight those overlap (a queue 8 deep sums to about 8 times
 * the wall time), and an async engine's latency is not the time the thread spent on it. */
uint64_t sbio_stats_busy_ns(const struct sbio_stats *s);

#endif
