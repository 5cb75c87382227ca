/* Unit tests for the MPI module's pure parts (src/control/mpi.c): how statuses rank against each
 * other, and the merge of every rank's result into one. No MPI runtime is needed: outside
 * mpirun every other function acts for a single process, which is checked too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "util.h"

static void test_worst(void **state)
{
    (void)state;
    int ok[3] = {0, 0, 0};
    assert_int_equal(sbio_mpi_worst(ok, 3), -1);
    int intr[3] = {0, -EINTR, 0};
    assert_int_equal(sbio_mpi_worst(intr, 3), 1);
    /* A failure outranks an interruption, a usage error a failure; ties go to the lowest. */
    int mixed[4] = {-EINTR, -EIO, -ENOSPC, -EINTR};
    assert_int_equal(sbio_mpi_worst(mixed, 4), 1);
    int usage[4] = {-EIO, -EINTR, -SBIO_EUSAGE, -SBIO_EUSAGE};
    assert_int_equal(sbio_mpi_worst(usage, 4), 2);
}

/* A result as a rank's runner leaves it: nthreads threads doing ops of op with latencies
 * base, base + 1, … ns and bytes of 4096 each. */
static void fake_rank(struct sbio_run_result *r, struct sbio_stats *threads, unsigned nthreads,
                      enum sbio_op op, unsigned ops, uint64_t base, uint64_t elapsed_ns)
{
    memset(r, 0, sizeof(*r));
    r->threads = nthreads;
    r->elapsed_ns = elapsed_ns;
    r->user_s = 0.5;
    r->sys_s = 1.5;
    /* Each rank's probes saw its own host. */
    r->probe.faults = (struct sbio_probe_faults){.minor = 10, .major = 1};
    r->probe.devices.ndisk = 1;
    snprintf(r->probe.devices.name[0], sizeof(r->probe.devices.name[0]), "vda");
    r->probe.devices.d1[0].f[2] = 8;
    r->probe.proc_io = (struct sbio_probe_proc_io){.have = true, .read_bytes = 4096};
    r->probe.page_cache.have = true;
    r->probe.page_cache.c1.cached = 5;
    sbio_stats_init(&r->total);
    for (unsigned t = 0; t < nthreads; t++) {
        sbio_stats_init(&threads[t]);
        for (unsigned i = 0; i < ops; i++)
            sbio_stats_record(&threads[t], op, base + i, op == SBIO_FSYNC ? 0 : 4096, 1);
        /* Clocks of another host: nothing in the merge may compare them with ours. */
        threads[t].start_ns = 1000000000000ULL * (t + 1);
        threads[t].end_ns = threads[t].start_ns + elapsed_ns;
        sbio_stats_merge(&r->total, &threads[t]);
    }
    r->per_thread = (struct sbio_stats *)(uintptr_t)0xdead; /* another process's pointer */
}

static void test_merge(void **state)
{
    (void)state;
    enum { T0 = 2, T1 = 3 };
    struct sbio_stats *threads =
        aligned_alloc(64, (sizeof(struct sbio_stats) * (T0 + T1) + 63) & ~(size_t)63);
    struct sbio_run_result *ranks = calloc(2, sizeof(*ranks));
    char(*hosts)[SBIO_MPI_HOST_LEN] = calloc(2, SBIO_MPI_HOST_LEN);
    assert_non_null(threads);
    assert_non_null(ranks);
    assert_non_null(hosts);
    snprintf(hosts[0], SBIO_MPI_HOST_LEN, "alpha");
    snprintf(hosts[1], SBIO_MPI_HOST_LEN, "beta");
    fake_rank(&ranks[0], threads, T0, SBIO_READ, 100, 1000, 2000000000ULL);
    fake_rank(&ranks[1], threads + T0, T1, SBIO_WRITE, 50, 500000, 3000000000ULL);
    ranks[1].error = -EIO;
    snprintf(ranks[1].error_msg, sizeof(ranks[1].error_msg), "d/test_file.1: pwrite: boom");
    ranks[1].stop_signal = 15;

    /* Expected: every histogram added bucket by bucket, as between threads. */
    struct sbio_stats want;
    sbio_stats_init(&want);
    sbio_stats_merge(&want, &ranks[0].total);
    sbio_stats_merge(&want, &ranks[1].total);

    struct sbio_run_result out = {0};
    out.nsamples = 7; /* rank 0's own time series stays */
    sbio_mpi_merge(&out, ranks, hosts, 2, threads);
    assert_int_equal(out.nranks, 2);
    assert_int_equal(out.threads, T0 + T1);
    assert_ptr_equal(out.per_thread, threads);
    assert_int_equal(out.nsamples, 7);
    for (int op = 0; op < SBIO_OP_NR; op++) {
        assert_int_equal(out.total.lat[op].count, want.lat[op].count);
        assert_int_equal(out.total.lat[op].sum_ns, want.lat[op].sum_ns);
        assert_int_equal(out.total.lat[op].min_ns, want.lat[op].min_ns);
        assert_int_equal(out.total.lat[op].max_ns, want.lat[op].max_ns);
        assert_memory_equal(out.total.lat[op].buckets, want.lat[op].buckets,
                            sizeof(want.lat[op].buckets));
        assert_int_equal(out.total.bytes[op], want.bytes[op]);
    }
    assert_int_equal(out.total.lat[SBIO_READ].count, T0 * 100);
    assert_int_equal(out.total.lat[SBIO_WRITE].count, T1 * 50);
    assert_int_equal(out.total.events, T0 * 100 + T1 * 50);
    /* Throughput is over the longest rank's time, never across two hosts' clocks. */
    assert_int_equal(out.elapsed_ns, 3000000000ULL);
    assert_int_equal(out.total.end_ns - out.total.start_ns, 3000000000ULL);
    assert_true(out.user_s == 1.0 && out.sys_s == 3.0);
    assert_int_equal(out.error, -EIO);
    assert_string_equal(out.error_msg, "rank 1 (beta): d/test_file.1: pwrite: boom");
    assert_int_equal(out.stop_signal, 15);
    /* Each probe merged by its own merge: faults and the processes' storage I/O add up;
     * device and page-cache counters are a host's: they stay per rank. */
    assert_int_equal(out.probe.faults.minor, 20);
    assert_int_equal(out.probe.faults.major, 2);
    assert_true(out.probe.proc_io.have);
    assert_int_equal(out.probe.proc_io.read_bytes, 8192);
    assert_int_equal(out.probe.devices.ndisk, 0);
    assert_false(out.probe.page_cache.have);
    assert_int_equal(out.ranks[1].probe.devices.ndisk, 1);
    assert_true(out.ranks[1].probe.page_cache.have);
    assert_null(out.ranks[1].per_thread);
    assert_int_equal(out.ranks[1].threads, T1);
    assert_string_equal(out.rank_host[1], "beta");
    out.nsamples = 0;
    sbio_run_result_free(&out);
}

/* Outside mpirun: one process, rank 0 of 1, the host's leader; agree hands back its status. */
static void test_single_process(void **state)
{
    (void)state;
    assert_false(sbio_mpi_active());
    assert_int_equal(sbio_mpi_rank(), 0);
    assert_int_equal(sbio_mpi_size(), 1);
    unsigned who = 7;
    assert_int_equal(sbio_mpi_agree(-EIO, &who), -EIO);
    assert_int_equal(who, 0);
    assert_int_equal(sbio_mpi_agree(0, NULL), 0);
    char host[SBIO_MPI_HOST_LEN];
    bool leader = false;
    unsigned nhosts = 0;
    assert_int_equal(sbio_mpi_hosts(host, &leader, &nhosts), 0);
    assert_true(leader);
    assert_int_equal(nhosts, 1);
    assert_true(host[0] != 0);
    struct sbio_runner_sync sync;
    assert_null(sbio_mpi_watch_new(&sync));
    uint64_t v = 42;
    sbio_mpi_bcast_u64(&v);
    assert_int_equal(v, 42);
    struct sbio_run_result res = {.threads = 1};
    assert_int_equal(sbio_mpi_reduce_result(&res), 0);
    assert_int_equal(res.nranks, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worst),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_single_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
