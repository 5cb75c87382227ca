/* Unit tests for the per-thread statistics (src/base/stats.c): what one record counts, and that
 * merging per-thread stats (in any order) equals recording everything into one. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"
#include "stats.h"
#include "util.h"

#define BLK 4096ULL

/* One record per kind: an event adds to events, an end fsync to end_fsyncs; bytes go to
 * the op's counter; ops and busy time sum over the op types. */
static void test_stats_record(void **state)
{
    (void)state;
    struct sbio_stats *s = aligned_alloc(64, sizeof(*s)); /* the type is cache-line aligned */
    assert_non_null(s);
    sbio_stats_init(s);
    assert_int_equal(s->start_ns, UINT64_MAX);
    assert_int_equal(s->end_ns, 0);
    assert_int_equal(sbio_stats_ops(s), 0);
    sbio_stats_record(s, SBIO_READ, 1000, BLK, 1);
    sbio_stats_record(s, SBIO_READ, 3000, BLK, 1);
    sbio_stats_record(s, SBIO_WRITE, 20000, 2 * BLK, 1);
    sbio_stats_record(s, SBIO_FSYNC, 500000, 0, 1); /* periodic: an event */
    sbio_stats_record(s, SBIO_FSYNC, 700000, 0, 0); /* at the end: not an event */
    s->write_fsyncs = 2;                            /* inside writes: ops, not latencies */
    assert_int_equal(s->lat[SBIO_READ].count, 2);
    assert_int_equal(s->lat[SBIO_WRITE].count, 1);
    assert_int_equal(s->lat[SBIO_FSYNC].count, 2);
    assert_int_equal(s->bytes[SBIO_READ], 2 * BLK);
    assert_int_equal(s->bytes[SBIO_WRITE], 2 * BLK);
    assert_int_equal(s->bytes[SBIO_FSYNC], 0);
    assert_int_equal(s->events, 4);
    assert_int_equal(s->end_fsyncs, 1);
    assert_int_equal(sbio_stats_ops(s), 2 + 1 + 2 + 2);
    /* Busy time is the thread's wall time, whatever its latencies sum to: 0 before it
     * started, then end - start (a queue 8 deep would sum to 8 times that). */
    assert_int_equal(sbio_stats_busy_ns(s), 0);
    assert_true(sbio_stats_secs(s) == 0);
    s->start_ns = 5000;
    s->end_ns = 5000 + 400000;
    assert_int_equal(sbio_stats_busy_ns(s), 400000);
    assert_true(sbio_stats_secs(s) == 400000 / 1e9);
    free(s);
}

/* An io's record: only an fsync that asked to be an fdatasync goes into datasync too (a read
 * whose io still carries the flag does not). */
static void test_stats_record_io(void **state)
{
    (void)state;
    struct sbio_stats *s = aligned_alloc(64, sizeof(*s));
    assert_non_null(s);
    sbio_stats_init(s);
    struct sbio_io io = {.op = SBIO_FSYNC};
    sbio_stats_record_io(s, &io, 5000);
    io.flags = SBIO_IO_DATASYNC;
    sbio_stats_record_io(s, &io, 7000);
    io.op = SBIO_READ;
    io.len = BLK;
    sbio_stats_record_io(s, &io, 900);
    assert_int_equal(s->lat[SBIO_FSYNC].count, 2);
    assert_int_equal(s->datasync.count, 1);
    assert_int_equal(s->datasync.sum_ns, 7000);
    assert_int_equal(s->lat[SBIO_READ].count, 1);
    assert_int_equal(s->bytes[SBIO_READ], BLK);
    assert_int_equal(s->bytes[SBIO_FSYNC], 0);
    assert_int_equal(s->events, 3);
    free(s);
}

/* A read-modify-write: one op and one event of its own type, its block's bytes once there,
 * and twice in the bytes moved: once read, once written. */
static void test_stats_rmw(void **state)
{
    (void)state;
    struct sbio_stats *s = aligned_alloc(64, sizeof(*s));
    assert_non_null(s);
    sbio_stats_init(s);
    struct sbio_io io = {.op = SBIO_RMW, .len = 4 * BLK};
    sbio_stats_record_io(s, &io, 30000);
    sbio_stats_record_io(s, &io, 50000);
    io = (struct sbio_io){.op = SBIO_READ, .len = BLK};
    sbio_stats_record_io(s, &io, 1000);
    io.op = SBIO_WRITE;
    sbio_stats_record_io(s, &io, 2000);
    assert_int_equal(s->lat[SBIO_RMW].count, 2);
    assert_int_equal(s->lat[SBIO_RMW].sum_ns, 80000);
    assert_int_equal(s->lat[SBIO_READ].count, 1);
    assert_int_equal(s->lat[SBIO_WRITE].count, 1);
    assert_int_equal(s->bytes[SBIO_RMW], 8 * BLK);
    assert_int_equal(sbio_stats_bytes_read(s), 9 * BLK);
    assert_int_equal(sbio_stats_bytes_written(s), 9 * BLK);
    assert_int_equal(s->events, 4);
    assert_int_equal(sbio_stats_ops(s), 4);
    struct sbio_hist all;
    sbio_stats_all_lat(s, &all);
    assert_int_equal(all.count, 4);
    assert_int_equal(all.max_ns, s->lat[SBIO_RMW].max_ns);
    assert_string_equal(sbio_op_name(SBIO_RMW), "rmw");
    free(s);
}

/* A tree job's operations: each its own count and latency; the bytes of creates, appends and
 * whole-file writes are bytes written, of whole-file reads bytes read; every type is an op. */
static void test_stats_fs_ops(void **state)
{
    (void)state;
    struct sbio_stats *s = aligned_alloc(64, sizeof(*s));
    assert_non_null(s);
    sbio_stats_init(s);
    sbio_stats_record(s, SBIO_READ, 1000, BLK, 1);
    assert_false(sbio_stats_has_fs(s));
    sbio_stats_record(s, SBIO_CREATE, 50000, 4 * BLK, 1);
    sbio_stats_record(s, SBIO_CREATE, 70000, 2 * BLK, 1);
    sbio_stats_record(s, SBIO_APPEND, 9000, BLK, 1);
    sbio_stats_record(s, SBIO_READWHOLE, 30000, 8 * BLK, 1);
    sbio_stats_record(s, SBIO_WRITEWHOLE, 40000, 3 * BLK, 1);
    sbio_stats_record(s, SBIO_STAT, 800, 0, 1);
    sbio_stats_record(s, SBIO_STAT, 600, 0, 1);
    sbio_stats_record(s, SBIO_UNLINK, 12000, 0, 1);
    sbio_stats_record(s, SBIO_READDIR, 5000, 0, 1);
    assert_true(sbio_stats_has_fs(s));
    assert_int_equal(s->lat[SBIO_CREATE].count, 2);
    assert_int_equal(s->lat[SBIO_CREATE].min_ns, 50000);
    assert_int_equal(s->lat[SBIO_STAT].min_ns, 600);
    assert_int_equal(s->lat[SBIO_STAT].max_ns, 800);
    assert_int_equal(s->lat[SBIO_RENAME].count, 0);
    assert_int_equal(sbio_stats_bytes_read(s), BLK + 8 * BLK);
    assert_int_equal(sbio_stats_bytes_written(s), 6 * BLK + BLK + 3 * BLK);
    assert_int_equal(sbio_stats_ops(s), 10);
    struct sbio_hist all;
    sbio_stats_all_lat(s, &all);
    assert_int_equal(all.count, 10);
    assert_int_equal(all.min_ns, 600);
    assert_int_equal(all.max_ns, 70000);
    assert_string_equal(sbio_op_name(SBIO_READWHOLE), "readwhole");

    /* Skipped draws alone make a tree job's stats too. */
    sbio_stats_init(s);
    assert_false(sbio_stats_has_fs(s));
    s->skipped = 3;
    assert_true(sbio_stats_has_fs(s));
    free(s);
}

/* The anonymous pages written in the mapping that starts at addr, from /proc/self/smaps:
 * the pages the code under test wrote (the zero page that reads of fresh memory map is not
 * in them), not the process's RSS, which a sanitizer's shadow memory grows by a multiple of
 * what the code wrote. */
static size_t written_bytes(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in = 0;
    size_t kib = 0;
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
            in = start == (unsigned long)addr;
        else if (in && sscanf(line, "Anonymous: %zu kB", &kib) == 1)
            break;
    }
    fclose(f);
    return kib * 1024;
}

/* Stats of threads that only read and write, on fresh (zero) pages: init, record, snapshot,
 * merge and copy leave the histograms of the op types nobody did unwritten, so the threads
 * cost their five histograms' pages, not sixteen; and a histogram first written then (min_ns
 * 0 before) gets its true min. */
static void test_stats_untouched(void **state)
{
    (void)state;
    enum { N = 32 };
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (N * sizeof(struct sbio_stats) + page - 1) / page * page;
    /* Inaccessible pages either side keep the mapping from merging with a neighbour, so
     * its smaps entry counts its own pages only. */
    char *map = mmap(NULL, len + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    struct sbio_stats *s = (struct sbio_stats *)(map + page);
    assert_int_equal(mprotect(s, len, PROT_READ | PROT_WRITE), 0);
    /* Small pages: a huge page would count 2 MiB for the first byte written in it. */
    assert_int_equal(madvise(s, len, MADV_NOHUGEPAGE), 0);
    assert_int_equal(written_bytes(s), 0);
    for (int i = 0; i < N; i++)
        sbio_stats_init(&s[i]);
    for (int i = 0; i < N - 2; i++)
        for (uint64_t k = 0; k < 1000; k++) {
            sbio_stats_record(&s[i], SBIO_READ, 1000 + k * 997 % 500000, BLK, 1);
            sbio_stats_record(&s[i], SBIO_WRITE, 2000 + k * 991 % 900000, BLK, 1);
        }
    for (int i = 0; i < N - 2; i++) {
        sbio_stats_snapshot(&s[N - 1], &s[i]);
        sbio_stats_merge(&s[N - 2], &s[N - 1]);
    }
    sbio_stats_copy(&s[N - 1], &s[N - 2]);
    size_t grown = written_bytes(s);
    assert_true(grown > 0);
    /* Two histograms (40 KiB) per thread written, of 16 (328 KiB): allow four. */
    assert_true(grown < N * 4 * sizeof(struct sbio_hist));
    assert_int_equal(s[N - 1].lat[SBIO_READ].count, (N - 2) * 1000);
    assert_int_equal(s[N - 1].lat[SBIO_READ].min_ns, 1000);
    assert_int_equal(s[N - 1].lat[SBIO_CREATE].count, 0);
    assert_int_equal(sbio_stats_ops(&s[N - 1]), (N - 2) * 2000);

    /* A histogram still all zero records its first value as its min. */
    assert_int_equal(s[0].lat[SBIO_STAT].min_ns, 0);
    sbio_stats_record(&s[0], SBIO_STAT, 4000, 0, 1);
    sbio_stats_record(&s[0], SBIO_STAT, 9000, 0, 1);
    assert_int_equal(s[0].lat[SBIO_STAT].min_ns, 4000);
    sbio_stats_merge(&s[N - 2], &s[0]);
    assert_int_equal(s[N - 2].lat[SBIO_STAT].min_ns, 4000);
    assert_int_equal(s[N - 2].lat[SBIO_STAT].max_ns, 9000);
    munmap(map, len + 2 * page);
}

/* A snapshot is one moment of its thread's records: an owner recording back to back
 * (about as fast as a snapshot reads, so that both ways are usually taken, a read between
 * two records and the owner's published moment; which, varies from run to run) alternates a
 * read of BLK and a write of 2 BLK, every fourth record an fdatasync; every snapshot's
 * counts, sums, bytes and events agree exactly. Mostly there to be run under
 * -fsanitize=thread too. */
struct moment_writer {
    struct sbio_stats *s;
    uint64_t n;
};

static const struct sbio_io moment_io[4] = {
    {.op = SBIO_READ, .len = BLK},
    {.op = SBIO_WRITE, .len = 2 * BLK},
    {.op = SBIO_READ, .len = BLK},
    {.op = SBIO_FSYNC, .flags = SBIO_IO_DATASYNC},
};

static void *moment_writer(void *p)
{
    struct moment_writer *w = p;
    for (uint64_t k = 0; k < w->n; k++)
        sbio_stats_record_io(w->s, &moment_io[k % 4], 1000 + k % 4);
    return NULL;
}

static void test_stats_snapshot_moment(void **state)
{
    (void)state;
    /* malloc, not test_malloc: cmocka's allocation tracking is not thread-safe. */
    struct sbio_stats *s = aligned_alloc(64, sizeof(*s)), *d = aligned_alloc(64, sizeof(*d));
    assert_non_null(s);
    assert_non_null(d);
    sbio_stats_init(s);
    sbio_stats_init(d);

    /* The owner answers a request at its next record, with the moment after it. */
    sbio_stats_record_io(s, &moment_io[0], 1000);
    assert_int_equal(s->ans, 0);
    s->req = 7;
    sbio_stats_record_io(s, &moment_io[1], 1001);
    assert_int_equal(s->ans, 7);
    assert_int_equal(s->published.h[SBIO_READ].count, 1);
    assert_int_equal(s->published.h[SBIO_WRITE].count, 1);
    assert_int_equal(s->published.h[SBIO_WRITE].sum_ns, 1001);
    assert_int_equal(s->published.bytes[SBIO_WRITE], 2 * BLK);
    assert_int_equal(s->published.events, 2);
    sbio_stats_record_io(s, &moment_io[2], 1002);
    assert_int_equal(s->published.events, 2); /* answered once */
    sbio_stats_init(s);

    struct moment_writer w = {s, 4000000};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, moment_writer, &w), 0);
    uint64_t prev = 0, n = 0;
    do {
        sbio_stats_snapshot(d, s);
        uint64_t r = d->lat[SBIO_READ].count, wr = d->lat[SBIO_WRITE].count;
        uint64_t f = d->lat[SBIO_FSYNC].count, all = r + wr + f;
        assert_true(all >= prev);
        prev = all;
        /* k = 0 .. all - 1 recorded: reads at k % 4 = 0 and 2, writes at 1, fsyncs at 3 */
        assert_int_equal(r, (all + 1) / 2);
        assert_int_equal(wr, (all + 2) / 4);
        assert_int_equal(f, all / 4);
        assert_int_equal(d->datasync.count, f);
        assert_int_equal(d->bytes[SBIO_READ], r * BLK);
        assert_int_equal(d->bytes[SBIO_WRITE], wr * 2 * BLK);
        assert_int_equal(d->bytes[SBIO_FSYNC], 0);
        assert_int_equal(d->events, all);
        /* latencies 1000, 1001, 1002, 1003 by k % 4 */
        assert_int_equal(d->lat[SBIO_READ].sum_ns, 1000 * r + 2 * ((all + 1) / 4));
        assert_int_equal(d->lat[SBIO_WRITE].sum_ns, 1001 * wr);
        assert_int_equal(d->lat[SBIO_FSYNC].sum_ns, 1003 * f);
        n++;
    } while (prev < w.n);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(n > 1);
    free(d);
    free(s);
}

static void assert_stats_same(const struct sbio_stats *a, const struct sbio_stats *b)
{
    assert_hist_equal(&a->datasync, &b->datasync);
    assert_hist_equal(&a->end_sync, &b->end_sync);
    for (int op = 0; op < SBIO_OP_NR; op++) {
        assert_hist_equal(&a->lat[op], &b->lat[op]);
        assert_int_equal(a->bytes[op], b->bytes[op]);
    }
    assert_int_equal(a->events, b->events);
    assert_int_equal(a->end_fsyncs, b->end_fsyncs);
    assert_int_equal(a->write_fsyncs, b->write_fsyncs);
    assert_int_equal(a->errors, b->errors);
    assert_int_equal(a->skipped, b->skipped);
    assert_int_equal(a->verify_checked, b->verify_checked);
    assert_int_equal(a->verify_failed, b->verify_failed);
    assert_int_equal(a->start_ns, b->start_ns);
    assert_int_equal(a->end_ns, b->end_ns);
}

/* Merging per-thread stats equals recording everything into one. */
static void test_stats_merge(void **state)
{
    (void)state;
    struct sbio_stats *s = calloc(5, sizeof(*s));
    assert_non_null(s);
    struct sbio_stats *part = s, *one = s + 3, *merged = s + 4;
    for (int i = 0; i < 5; i++)
        sbio_stats_init(&s[i]);
    uint64_t rng = 12345, writes = 0;
    for (int i = 0; i < 30000; i++) {
        uint64_t r = sbio_rand64(&rng);
        int t = (int)(r % 3);
        enum sbio_op op = (enum sbio_op)((r >> 8) % SBIO_OP_NR);
        uint64_t lat = (r >> 16) % ((r >> 40) % 2 ? 1000 : 50000000); /* ns and ms */
        uint64_t bytes = op == SBIO_FSYNC ? 0 : BLK * (1 + (r >> 48) % 4);
        int event = op != SBIO_FSYNC || (r >> 56) % 4;
        sbio_stats_record(&part[t], op, lat, bytes, event);
        sbio_stats_record(one, op, lat, bytes, event);
        if (op == SBIO_FSYNC && (r >> 60) % 2) { /* an fdatasync among the fsyncs */
            sbio_hist_record(&part[t].datasync, lat);
            sbio_hist_record(&one->datasync, lat);
        }
        if (op == SBIO_WRITE && t == 1) {
            part[t].write_fsyncs++;
            one->write_fsyncs++;
        }
        writes += op == SBIO_WRITE;
    }
    part[2].errors = 3;
    one->errors = 3;
    part[1].skipped = 4, part[2].skipped = 1;
    one->skipped = 5;
    part[0].verify_checked = 40, part[1].verify_checked = 2;
    part[1].verify_failed = 1;
    one->verify_checked = 42, one->verify_failed = 1;
    /* Thread 2 never ran: its start/end must not win. */
    part[0].start_ns = 1000, part[0].end_ns = 9000;
    part[1].start_ns = 500, part[1].end_ns = 5000;
    one->start_ns = 500, one->end_ns = 9000;

    for (int t = 0; t < 3; t++)
        sbio_stats_merge(merged, &part[t]);
    assert_stats_same(merged, one);
    assert_int_equal(sbio_stats_ops(merged), 30000 + one->write_fsyncs);
    assert_int_equal(sbio_stats_ops(merged), sbio_stats_ops(one));
    assert_int_equal(sbio_stats_busy_ns(merged), sbio_stats_busy_ns(one));
    assert_int_equal(merged->events + merged->end_fsyncs, 30000);
    assert_true(one->write_fsyncs > 0 && one->write_fsyncs < writes);
    assert_true(one->datasync.count > 0 && one->datasync.count < one->lat[SBIO_FSYNC].count);

    /* The order does not matter. */
    sbio_stats_init(merged);
    for (int t = 2; t >= 0; t--)
        sbio_stats_merge(merged, &part[t]);
    assert_stats_same(merged, one);

    /* A snapshot of a quiescent stats is a copy. */
    sbio_stats_init(merged);
    sbio_stats_snapshot(merged, one);
    assert_stats_same(merged, one);

    /* Empty into empty stays empty. */
    sbio_stats_init(&part[0]);
    sbio_stats_init(merged);
    sbio_stats_merge(merged, &part[0]);
    assert_int_equal(merged->start_ns, UINT64_MAX);
    assert_int_equal(merged->end_ns, 0);
    assert_int_equal(merged->lat[SBIO_READ].min_ns, UINT64_MAX);
    assert_int_equal(sbio_stats_ops(merged), 0);
    free(s);
}

/* sysbench's latency covers events only: threads record events, then their end fsyncs
 * (slower and faster than any event); the merged stats' event latency equals a histogram of
 * the events alone, min and max included, and after a snapshot too. */
static void test_stats_event_lat(void **state)
{
    (void)state;
    struct sbio_stats *s = calloc(5, sizeof(*s));
    assert_non_null(s);
    struct sbio_stats *part = s, *merged = s + 3, *snap = s + 4;
    struct sbio_hist *events = calloc(2, sizeof(*events)), *got = events + 1;
    assert_non_null(events);
    sbio_hist_init(events);
    uint64_t rng = 777;
    for (int i = 0; i < 5; i++)
        sbio_stats_init(&s[i]);
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < 2000; i++) {
            uint64_t r = sbio_rand64(&rng);
            enum sbio_op op = (enum sbio_op)(r % 3); /* read, write, periodic fsync */
            uint64_t lat = 5000 + (r >> 8) % 3000000;
            sbio_stats_record(&part[t], op, lat, op == SBIO_FSYNC ? 0 : BLK, 1);
            sbio_hist_record(events, lat);
        }
        sbio_stats_begin_end_syncs(&part[t]);
        sbio_stats_record(&part[t], SBIO_FSYNC, 90000000 + (uint64_t)t, 0, 0);
        sbio_stats_record(&part[t], SBIO_FSYNC, 100 + (uint64_t)t, 0, 0);
    }
    for (int t = 0; t < 3; t++)
        sbio_stats_merge(merged, &part[t]);
    assert_int_equal(merged->end_fsyncs, 6);
    assert_int_equal(merged->end_sync.count, 6);
    sbio_stats_snapshot(snap, merged);
    const struct sbio_stats *of[] = {merged, snap, &part[0]};
    for (int k = 0; k < 3; k++) {
        sbio_stats_event_lat(of[k], got);
        if (k == 2)
            continue; /* one thread's events only: checked by count below */
        assert_hist_equal(got, events);
    }
    assert_int_equal(got->count, 2000);
    assert_true(got->max_ns < 90000000 && got->min_ns >= 5000);
    /* Without end fsyncs the event latency is every operation's. */
    sbio_stats_init(merged);
    sbio_stats_record(merged, SBIO_FSYNC, 4000, 0, 1);
    sbio_stats_record(merged, SBIO_READ, 9000, BLK, 1);
    sbio_stats_event_lat(merged, got);
    assert_int_equal(got->count, 2);
    assert_int_equal(got->min_ns, 4000);
    assert_int_equal(got->max_ns, 9000);
    free(events);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_record),    cmocka_unit_test(test_stats_record_io),
        cmocka_unit_test(test_stats_rmw),       cmocka_unit_test(test_stats_merge),
        cmocka_unit_test(test_stats_event_lat), cmocka_unit_test(test_stats_fs_ops),
        cmocka_unit_test(test_stats_untouched), cmocka_unit_test(test_stats_snapshot_moment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
