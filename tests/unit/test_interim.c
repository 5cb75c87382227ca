/* Unit tests for the interim lines and samples (src/core/interim.c), on a clock of the test's own:
 * two threads' stats grow between polls; a line is printed and a sample recorded when each is
 * due (once, however many intervals a late poll skipped), over the right interval, with the
 * operations of that interval only; the next poll's time is the earlier of the two schedules;
 * no line without a printer, nothing without intervals; the series grows past its first
 * allocation. */
#include <stdlib.h>

#include "helpers.h"
#include "interim.h"

#define MS    1000000ULL
#define SEC   1000000000ULL
#define START (100 * SEC)

/* Static: struct sbio_stats is cache-line aligned. */
static struct sbio_stats g_threads[2];

struct line {
    double t_s, interval_s;
    uint64_t reads, writes, read_bytes; /* cur - prev */
};

struct printer {
    unsigned n;
    struct line lines[16];
};

static void on_line(void *ctx, double t_s, double interval_s, const struct sbio_stats *cur,
                    const struct sbio_stats *prev)
{
    struct printer *p = ctx;
    assert_true(p->n < 16);
    p->lines[p->n++] = (struct line){
        .t_s = t_s,
        .interval_s = interval_s,
        .reads = cur->lat[SBIO_READ].count - prev->lat[SBIO_READ].count,
        .writes = cur->lat[SBIO_WRITE].count - prev->lat[SBIO_WRITE].count,
        .read_bytes = cur->bytes[SBIO_READ] - prev->bytes[SBIO_READ],
    };
}

static void threads_init(void)
{
    for (int t = 0; t < 2; t++)
        sbio_stats_init(&g_threads[t]);
}

/* n reads of 4 KiB and 100 us on thread t, and w writes of 8 KiB and 1 ms. */
static void ops(unsigned t, unsigned n, unsigned w)
{
    for (unsigned i = 0; i < n; i++)
        sbio_stats_record(&g_threads[t], SBIO_READ, 100000, 4096, 1);
    for (unsigned i = 0; i < w; i++)
        sbio_stats_record(&g_threads[t], SBIO_WRITE, MS, 8192, 1);
}

static void assert_near(double got, double want)
{
    if (got < want - 1e-9 || got > want + 1e-9)
        fail_msg("%.9f, want %.9f", got, want);
}

/* Lines every second, samples every 500 ms: each when due, over its own interval. */
static void test_both_schedules(void **state)
{
    (void)state;
    struct printer pr = {0};
    const struct sbio_interim out = {
        .print_ns = SEC, .log_ns = 500 * MS, .ctx = &pr, .line = on_line};
    struct sbio_run_result res;
    memset(&res, 0, sizeof(res));
    struct sbio_interim_poll p;
    threads_init();
    sbio_interim_begin(&p, &out, START);
    assert_non_null(p.rep);

    /* Nothing due yet: the next is the first sample. */
    ops(0, 3, 0);
    assert_int_equal(sbio_interim_tick(&p, START + 100 * MS, g_threads, 2, &res), START + 500 * MS);
    assert_int_equal(pr.n, 0);
    assert_int_equal(res.nsamples, 0);
    /* 0.5 s: a sample of the 3 + 2 reads and 1 write so far; no line. */
    ops(1, 2, 1);
    assert_int_equal(sbio_interim_tick(&p, START + 500 * MS, g_threads, 2, &res), START + SEC);
    assert_int_equal(pr.n, 0);
    assert_int_equal(res.nsamples, 1);
    assert_near(res.samples[0].t_s, 0.5);
    assert_near(res.samples[0].dur_s, 0.5);
    assert_int_equal(res.samples[0].ops[SBIO_READ], 5);
    assert_int_equal(res.samples[0].ops[SBIO_WRITE], 1);
    assert_int_equal(res.samples[0].bytes[SBIO_READ], 5 * 4096);
    assert_int_equal(res.samples[0].bytes[SBIO_WRITE], 8192);
    assert_int_equal(res.samples[0].p50_ns[SBIO_WRITE] / 10000, MS / 10000); /* its bucket */
    /* 1.02 s (a late poll): a line of everything so far, a sample of the 4 reads since. */
    ops(0, 4, 0);
    assert_int_equal(sbio_interim_tick(&p, START + 1020 * MS, g_threads, 2, &res),
                     START + 1500 * MS);
    assert_int_equal(pr.n, 1);
    assert_near(pr.lines[0].t_s, 1.02);
    assert_near(pr.lines[0].interval_s, 1.02);
    assert_int_equal(pr.lines[0].reads, 9);
    assert_int_equal(pr.lines[0].writes, 1);
    assert_int_equal(pr.lines[0].read_bytes, 9 * 4096);
    assert_int_equal(res.nsamples, 2);
    assert_near(res.samples[1].t_s, 1.02);
    assert_near(res.samples[1].dur_s, 0.52);
    assert_int_equal(res.samples[1].ops[SBIO_READ], 4);
    assert_int_equal(res.samples[1].ops[SBIO_WRITE], 0);
    assert_int_equal(res.samples[1].max_ns[SBIO_WRITE], 0);
    /* 4.3 s: one line and one sample, however many were skipped; each from the last one. */
    ops(1, 0, 6);
    assert_int_equal(sbio_interim_tick(&p, START + 4300 * MS, g_threads, 2, &res),
                     START + 4500 * MS);
    assert_int_equal(pr.n, 2);
    assert_near(pr.lines[1].interval_s, 3.28);
    assert_int_equal(pr.lines[1].reads, 0);
    assert_int_equal(pr.lines[1].writes, 6);
    assert_int_equal(res.nsamples, 3);
    assert_near(res.samples[2].dur_s, 3.28);
    assert_int_equal(res.samples[2].ops[SBIO_WRITE], 6);
    /* 4.5 s: a sample only; 5 s: both. */
    assert_int_equal(sbio_interim_tick(&p, START + 4500 * MS, g_threads, 2, &res), START + 5 * SEC);
    assert_int_equal(pr.n, 2);
    assert_int_equal(res.nsamples, 4);
    assert_int_equal(sbio_interim_tick(&p, START + 5 * SEC, g_threads, 2, &res), START + 5500 * MS);
    assert_int_equal(pr.n, 3);
    assert_near(pr.lines[2].interval_s, 0.7);
    assert_int_equal(res.nsamples, 5);
    sbio_interim_end(&p);
    assert_null(p.rep);
    sbio_run_result_free(&res);
}

/* A print interval without a printer: samples only. No intervals, or no description: nothing
 * is due, ever, and no memory is taken. */
static void test_schedules_off(void **state)
{
    (void)state;
    struct sbio_run_result res;
    memset(&res, 0, sizeof(res));
    struct sbio_interim_poll p;
    threads_init();
    const struct sbio_interim log_only = {.print_ns = 200 * MS, .log_ns = SEC};
    sbio_interim_begin(&p, &log_only, START);
    assert_int_equal(sbio_interim_tick(&p, START + 300 * MS, g_threads, 2, &res), START + SEC);
    ops(0, 1, 0);
    assert_int_equal(sbio_interim_tick(&p, START + SEC, g_threads, 2, &res), START + 2 * SEC);
    assert_int_equal(res.nsamples, 1);
    assert_int_equal(res.samples[0].ops[SBIO_READ], 1);
    sbio_interim_end(&p);

    struct printer pr = {0};
    const struct sbio_interim none = {.ctx = &pr, .line = on_line};
    const struct sbio_interim *outs[] = {&none, NULL};
    for (int i = 0; i < 2; i++) {
        sbio_interim_begin(&p, outs[i], START);
        assert_null(p.rep);
        assert_int_equal(sbio_interim_tick(&p, START + 10 * SEC, g_threads, 2, &res), UINT64_MAX);
        sbio_interim_end(&p);
    }
    assert_int_equal(pr.n, 0);
    assert_int_equal(res.nsamples, 1);
    sbio_run_result_free(&res);
}

/* 150 samples of 10 ms: past the first allocation of 64, each with its interval's reads and
 * the fsyncs inside writes counted with the fsyncs. */
static void test_series_grows(void **state)
{
    (void)state;
    struct sbio_run_result res;
    memset(&res, 0, sizeof(res));
    struct sbio_interim_poll p;
    threads_init();
    const struct sbio_interim out = {.log_ns = 10 * MS};
    sbio_interim_begin(&p, &out, START);
    for (unsigned k = 1; k <= 150; k++) {
        ops(k % 2, k, 0);
        g_threads[0].write_fsyncs += 2;
        assert_int_equal(sbio_interim_tick(&p, START + k * 10 * MS, g_threads, 2, &res),
                         START + (k + 1) * 10 * MS);
    }
    sbio_interim_end(&p);
    assert_int_equal(res.nsamples, 150);
    assert_true(res.samples_cap >= 150);
    for (unsigned k = 1; k <= 150; k++) {
        assert_int_equal(res.samples[k - 1].ops[SBIO_READ], k);
        assert_int_equal(res.samples[k - 1].ops[SBIO_FSYNC], 2);
        assert_near(res.samples[k - 1].t_s, k * 0.01);
    }
    sbio_run_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_schedules),
        cmocka_unit_test(test_schedules_off),
        cmocka_unit_test(test_series_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
