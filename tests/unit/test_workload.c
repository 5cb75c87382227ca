/* Unit tests for the op generators (src/core/workload.c): layout, random and sequential streams,
 * per-thread slices, merged requests, the rndrw ratio, fsync cadence and scope, the end
 * fsyncs and determinism. Every expectation is computed independently of the generator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "job.h"
#include "mix.h"
#include "workload.h"

#include "helpers.h"

#define BLK  4096ULL /* the block used by most tests */
#define SEED 42

/* One generator set-up: the config, the layout and the shared state. The shared state has a
 * 64-byte aligned member, so this lives on the stack, never in malloc'ed memory. */
struct gen {
    struct sbio_config cfg;
    struct sbio_layout lay;
    struct sbio_wl_shared sh;
};

/* Defaults, as a run would see them, but with no periodic fsync unless a test asks. */
static void gen_config(struct gen *g, int mode)
{
    sbio_options_defaults(&g->cfg);
    g->cfg.mode = mode;
    g->cfg.threads = 1;
    g->cfg.fsync_freq = 0;
    g->cfg.rand_seed = SEED;
}

static void gen_layout(struct gen *g, const uint64_t *sizes, unsigned n, uint64_t block,
                       uint64_t merged, uint64_t align)
{
    assert_int_equal(sbio_layout_init(&g->lay, n, sizes, block, merged, align), 0);
}

/* After the test has set cfg fields: build the shared state. */
static void gen_share(struct gen *g)
{
    struct sbio_job job;
    test_job_from_config(&job, &g->cfg);
    sbio_wl_shared_init(&g->sh, &job, &g->lay, g->cfg.rand_seed);
}

static void gen_free(struct gen *g)
{
    sbio_layout_free(&g->lay);
}

/* One op that must exist; completed at once, as a synchronous engine would. */
static void next_op(struct sbio_wl *w, struct sbio_io *io)
{
    assert_int_equal(sbio_wl_next(w, io), 1);
    sbio_wl_complete(w, io);
}

/* A request (not an fsync). */
static void next_req(struct sbio_wl *w, struct sbio_io *io)
{
    next_op(w, io);
    assert_int_not_equal(io->op, SBIO_FSYNC);
}

/* The sequential requests of a set, computed from the sizes alone. */
struct seq_ref {
    unsigned n;
    unsigned file[256];
    uint64_t off[256];
    uint32_t len[256];
};

static void seq_ref_build(struct seq_ref *r, const uint64_t *sizes, unsigned nfiles, uint64_t req,
                          uint64_t align)
{
    r->n = 0;
    for (unsigned f = 0; f < nfiles; f++)
        for (uint64_t off = 0; off < sizes[f]; off += req) {
            uint64_t len = sizes[f] - off < req ? sizes[f] - off : req;
            if (len < req && align && len % align)
                continue;
            assert_true(r->n < 256);
            r->file[r->n] = f;
            r->off[r->n] = off;
            r->len[r->n] = (uint32_t)len;
            r->n++;
        }
}

/* Index of the request (file, off) in the reference, or fail. */
static unsigned seq_ref_find(const struct seq_ref *r, const struct sbio_io *io)
{
    for (unsigned i = 0; i < r->n; i++)
        if (r->file[i] == io->file && r->off[i] == io->offset) {
            assert_int_equal(io->len, r->len[i]);
            return i;
        }
    fail_msg("request file %u offset %llu is not in the set", io->file,
             (unsigned long long)io->offset);
    return 0;
}

static void assert_seq_is(const struct seq_ref *r, unsigned i, const struct sbio_io *io)
{
    assert_int_equal(io->file, r->file[i]);
    assert_int_equal(io->offset, r->off[i]);
    assert_int_equal(io->len, r->len[i]);
}

/* ---- layout and random offsets ---- */

/* Sizes that are not multiples of the block, one file below a block, one exact. */
static const uint64_t odd_sizes[] = {40 * BLK + 123, 7 * BLK + 4000, 1000, 100 * BLK + 1,
                                     103 * BLK};
#define ODD_N      5
#define ODD_BLOCKS 250 /* 40 + 7 + 0 + 100 + 103 */

static void test_layout_counts(void **state)
{
    (void)state;
    struct gen g;
    gen_layout(&g, odd_sizes, ODD_N, BLK, 0, 0);
    assert_false(g.lay.uniform);
    assert_int_equal(g.lay.req, BLK);
    assert_int_equal(g.lay.rnd_blocks, ODD_BLOCKS);
    /* Every non-empty tail is a short sequential request: 41 + 8 + 1 + 101 + 103. */
    assert_int_equal(g.lay.seq_units, 254);
    assert_int_equal(g.lay.skipped_tails, 0);
    const uint64_t rnd_first[] = {0, 40, 47, 47, 147, 250};
    const uint64_t seq_first[] = {0, 41, 49, 50, 151, 254};
    assert_memory_equal(g.lay.rnd_first, rnd_first, sizeof(rnd_first));
    assert_memory_equal(g.lay.seq_first, seq_first, sizeof(seq_first));

    /* The block mapping skips the file without a whole block. */
    unsigned f;
    uint64_t off;
    sbio_layout_block(&g.lay, 46, &f, &off);
    assert_int_equal(f, 1);
    assert_int_equal(off, 6 * BLK);
    sbio_layout_block(&g.lay, 47, &f, &off);
    assert_int_equal(f, 3);
    assert_int_equal(off, 0);
    sbio_layout_block(&g.lay, 249, &f, &off);
    assert_int_equal(f, 4);
    assert_int_equal(off, 102 * BLK);
    gen_free(&g);
}

/* Draw n random ops and check each is a whole block inside its file; count hits per global
 * block into hits[rnd_blocks]. */
static void draw_blocks(struct gen *g, uint64_t n, uint64_t *hits)
{
    struct sbio_wl w;
    assert_int_equal(sbio_wl_init(&w, &g->sh, 0), 0);
    for (uint64_t i = 0; i < n; i++) {
        struct sbio_io io;
        next_req(&w, &io);
        assert_int_equal(io.op, SBIO_READ);
        assert_true(io.file < g->lay.nfiles);
        assert_int_equal(io.len, g->lay.block);
        assert_int_equal(io.offset % g->lay.block, 0);
        /* Never the tail shorter than a block. */
        assert_true(io.offset + io.len <= g->lay.size[io.file]);
        uint64_t blk = g->lay.rnd_first[io.file] + io.offset / g->lay.block;
        assert_true(blk < g->lay.rnd_first[io.file + 1]);
        hits[blk]++;
    }
    sbio_wl_fini(&w);
}

/* Pearson's chi-square over equiprobable cells against the critical value at p = 0.001,
 * from the Wilson-Hilferty approximation (accurate to a fraction of a percent for df > 30). */
static void assert_uniform(const uint64_t *hits, uint64_t cells, uint64_t n)
{
    double expect = (double)n / (double)cells, chi2 = 0;
    for (uint64_t i = 0; i < cells; i++) {
        double d = (double)hits[i] - expect;
        chi2 += d * d / expect;
    }
    double df = (double)(cells - 1), z = 3.090232; /* upper 0.001 normal quantile */
    double h = 2.0 / (9.0 * df);
    double crit = df * pow(1.0 - h + z * sqrt(h), 3);
    if (chi2 >= crit)
        fail_msg("chi-square %.1f >= %.1f (df %.0f, p = 0.001)", chi2, crit, df);
}

static void test_random_whole_blocks_uniform(void **state)
{
    (void)state;
    struct gen g;
    uint64_t n = ODD_BLOCKS * 400;
    uint64_t *hits = calloc(ODD_BLOCKS, sizeof(*hits));
    assert_non_null(hits);
    gen_config(&g, SBIO_MODE_RNDRD);
    gen_layout(&g, odd_sizes, ODD_N, BLK, 0, 0);
    gen_share(&g);
    draw_blocks(&g, n, hits);
    for (unsigned i = 0; i < ODD_BLOCKS; i++)
        assert_true(hits[i] > 0);
    assert_uniform(hits, ODD_BLOCKS, n);
    free(hits);
    gen_free(&g);
}

/* Equal sizes take the division path; the tails must still never be drawn. */
static void test_random_uniform_sizes(void **state)
{
    (void)state;
    struct gen g;
    uint64_t sizes[8];
    for (int i = 0; i < 8; i++)
        sizes[i] = 25 * BLK + 17;
    uint64_t n = 200 * 500;
    uint64_t *hits = calloc(200, sizeof(*hits));
    assert_non_null(hits);
    gen_config(&g, SBIO_MODE_RNDRD);
    gen_layout(&g, sizes, 8, BLK, 0, 0);
    assert_true(g.lay.uniform);
    assert_int_equal(g.lay.rnd_blocks, 200);
    gen_share(&g);
    draw_blocks(&g, n, hits);
    assert_uniform(hits, 200, n);
    free(hits);
    gen_free(&g);
}

/* ---- sequential ---- */

/* Shared stream: every request once per pass, in order, tails short, wrapping. Two threads
 * pulling alternately still see one stream. */
static void test_seq_shared_order_wrap(void **state)
{
    (void)state;
    const uint64_t sizes[] = {3 * BLK + 100, 2 * BLK, BLK + 1, 500};
    struct gen g;
    struct seq_ref ref;
    seq_ref_build(&ref, sizes, 4, BLK, 0);
    assert_int_equal(ref.n, 9);
    gen_config(&g, SBIO_MODE_SEQRD);
    gen_layout(&g, sizes, 4, BLK, 0, 0);
    assert_int_equal(g.lay.seq_units, ref.n);
    gen_share(&g);

    struct sbio_wl w;
    struct sbio_io io;
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (unsigned i = 0; i < 3 * ref.n; i++) {
        next_req(&w, &io);
        assert_int_equal(io.op, SBIO_READ);
        assert_seq_is(&ref, i % ref.n, &io);
    }
    /* The short tails are really short. */
    assert_int_equal(ref.len[3], 100);
    assert_int_equal(ref.len[7], 1);
    assert_int_equal(ref.len[8], 500);
    sbio_wl_fini(&w);

    /* seqwr, two threads on one shared stream. */
    g.cfg.mode = SBIO_MODE_SEQWR;
    g.cfg.threads = 2;
    gen_share(&g);
    struct sbio_wl t[2];
    assert_int_equal(sbio_wl_init(&t[0], &g.sh, 0), 0);
    assert_int_equal(sbio_wl_init(&t[1], &g.sh, 1), 0);
    for (unsigned i = 0; i < 2 * ref.n + 1; i++) {
        next_req(&t[i % 2], &io);
        assert_int_equal(io.op, SBIO_WRITE);
        assert_seq_is(&ref, i % ref.n, &io);
    }
    assert_int_equal(g.sh.seq_next, 2 * ref.n + 1);
    sbio_wl_fini(&t[0]);
    sbio_wl_fini(&t[1]);
    gen_free(&g);
}

/* O_DIRECT: a misaligned tail is skipped and counted, an aligned one is issued. */
static void test_seq_direct_tails(void **state)
{
    (void)state;
    const uint64_t sizes[] = {2 * BLK + 1000, 2 * BLK + 1024, 3 * BLK};
    struct gen g;
    struct seq_ref ref;
    seq_ref_build(&ref, sizes, 3, BLK, 512);
    assert_int_equal(ref.n, 2 + 3 + 3);
    gen_config(&g, SBIO_MODE_SEQREWR);
    gen_layout(&g, sizes, 3, BLK, 0, 512);
    assert_int_equal(g.lay.skipped_tails, 1);
    assert_int_equal(g.lay.skipped_bytes, 1000);
    assert_int_equal(g.lay.seq_units, ref.n);
    gen_share(&g);

    struct sbio_wl w;
    struct sbio_io io;
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (unsigned i = 0; i < 2 * ref.n; i++) {
        next_req(&w, &io);
        assert_seq_is(&ref, i % ref.n, &io);
        assert_false(io.file == 0 && io.offset == 2 * BLK);
    }
    assert_int_equal(ref.len[4], 1024); /* file 1's aligned tail */
    sbio_wl_fini(&w);
    gen_free(&g);

    /* Without O_DIRECT the same tail is issued. */
    gen_layout(&g, sizes, 3, BLK, 0, 0);
    assert_int_equal(g.lay.skipped_tails, 0);
    assert_int_equal(g.lay.seq_units, ref.n + 1);
    gen_free(&g);
}

/* Per-thread slices: disjoint, complete (remainder to the last), each wrapping inside. */
static void check_slices(const uint64_t *sizes, unsigned nfiles, unsigned threads)
{
    struct gen g;
    struct seq_ref ref;
    seq_ref_build(&ref, sizes, nfiles, BLK, 0);
    gen_config(&g, SBIO_MODE_SEQRD);
    g.cfg.seq_stream = SBIO_SEQ_PER_THREAD;
    g.cfg.threads = threads;
    gen_layout(&g, sizes, nfiles, BLK, 0, 0);
    gen_share(&g);

    unsigned per = ref.n / threads;
    unsigned owner[256];
    for (unsigned i = 0; i < ref.n; i++)
        owner[i] = UINT32_MAX;
    for (unsigned t = 0; t < threads; t++) {
        struct sbio_wl w;
        struct sbio_io io;
        assert_int_equal(sbio_wl_init(&w, &g.sh, t), 0);
        unsigned first = per * t, units = t + 1 == threads ? ref.n - first : per;
        /* Three passes: the first marks, the others must repeat it exactly. */
        for (unsigned i = 0; i < 3 * units; i++) {
            next_req(&w, &io);
            unsigned u = seq_ref_find(&ref, &io);
            assert_int_equal(u, first + i % units);
            if (i < units) {
                assert_int_equal(owner[u], UINT32_MAX);
                owner[u] = t;
            } else {
                assert_int_equal(owner[u], t);
            }
        }
        assert_int_equal(sbio_wl_slice_done(&w), 3 * units);
        sbio_wl_fini(&w);
    }
    /* The shared counter is untouched by per-thread streams. */
    assert_int_equal(g.sh.seq_next, 0);
    for (unsigned i = 0; i < ref.n; i++)
        assert_int_not_equal(owner[i], UINT32_MAX);
    gen_free(&g);
}

static void test_seq_per_thread_slices(void **state)
{
    (void)state;
    const uint64_t sizes[] = {5 * BLK + 7, 9 * BLK, 6 * BLK + 2048}; /* 22 requests */
    check_slices(sizes, 3, 1);
    check_slices(sizes, 3, 4); /* 5, 5, 5, 7 */
    check_slices(sizes, 3, 7); /* 3 x 6, then 4 */
    check_slices(sizes, 3, 22);
}

static void test_seq_per_thread_erange(void **state)
{
    (void)state;
    const uint64_t sizes[] = {2 * BLK, BLK + 10}; /* 4 requests */
    struct gen g;
    struct sbio_wl w;
    gen_config(&g, SBIO_MODE_SEQWR);
    g.cfg.seq_stream = SBIO_SEQ_PER_THREAD;
    g.cfg.fsync_scope = SBIO_SCOPE_DIRTY; /* the error path must free the dirty map */
    g.cfg.threads = 5;
    gen_layout(&g, sizes, 2, BLK, 0, 0);
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), -ERANGE);
    assert_null(w.dirty_map);
    g.cfg.threads = 4;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 3), 0);
    sbio_wl_fini(&w);
    /* Random modes have no slices: any thread count is fine. */
    g.cfg.mode = SBIO_MODE_RNDWR;
    g.cfg.threads = 64;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 63), 0);
    sbio_wl_fini(&w);
    gen_free(&g);
}

/* --file-merged-requests=N: sequential requests of block * N, never crossing a file. */
static void test_merged_requests(void **state)
{
    (void)state;
    const uint64_t sizes[] = {10 * BLK + 100, 3 * BLK, 8 * BLK};
    struct gen g;
    struct seq_ref ref;
    seq_ref_build(&ref, sizes, 3, 4 * BLK, 0);
    assert_int_equal(ref.n, 3 + 1 + 2);
    gen_config(&g, SBIO_MODE_SEQRD);
    gen_layout(&g, sizes, 3, BLK, 4, 0);
    assert_int_equal(g.lay.req, 4 * BLK);
    assert_int_equal(g.lay.seq_units, ref.n);
    gen_share(&g);

    struct sbio_wl w;
    struct sbio_io io;
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (unsigned i = 0; i < 2 * ref.n; i++) {
        next_req(&w, &io);
        assert_seq_is(&ref, i % ref.n, &io);
        assert_true(io.offset + io.len <= sizes[io.file]);
    }
    assert_int_equal(ref.len[0], 4 * BLK);
    assert_int_equal(ref.len[2], 2 * BLK + 100);
    assert_int_equal(ref.len[3], 3 * BLK);
    sbio_wl_fini(&w);

    /* Random requests stay one block each. */
    g.cfg.mode = SBIO_MODE_RNDRD;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (int i = 0; i < 1000; i++) {
        next_req(&w, &io);
        assert_int_equal(io.len, BLK);
        assert_int_equal(io.offset % BLK, 0);
        assert_true(io.offset + BLK <= sizes[io.file]);
    }
    sbio_wl_fini(&w);
    gen_free(&g);
}

/* ---- rndrw ratio ---- */

static void check_ratio(double ratio)
{
    const uint64_t sizes[] = {64 * BLK, 64 * BLK};
    struct gen g;
    struct sbio_wl w;
    struct sbio_io io;
    gen_config(&g, SBIO_MODE_RNDRW);
    g.cfg.rw_ratio = ratio;
    gen_layout(&g, sizes, 2, BLK, 0, 0);
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    uint64_t reads = 0, writes = 0;
    for (int i = 0; i < 20000; i++) {
        enum sbio_op want =
            ((double)reads + 1) / ((double)writes + 1) < ratio ? SBIO_READ : SBIO_WRITE;
        next_req(&w, &io);
        assert_int_equal(io.op, want);
        if (io.op == SBIO_READ)
            reads++;
        else
            writes++;
    }
    assert_int_equal(w.reads, reads);
    assert_int_equal(w.writes, writes);
    double got = (double)reads / (double)writes;
    if (fabs(got - ratio) / ratio > 0.01)
        fail_msg("ratio %.4f, want %.4f within 1%%", got, ratio);
    sbio_wl_fini(&w);
    gen_free(&g);
}

static void test_rndrw_ratio(void **state)
{
    (void)state;
    check_ratio(1.5); /* the default */
    check_ratio(0.5);
    check_ratio(1.0);
    check_ratio(4.0);
    check_ratio(0.1);
}

/* --file-rw-ratio=0, as in sysbench: (reads + 1) / (writes + 1) is never below 0, so rndrw
 * writes only, op for op what rndwr draws from the same seed, fsync rounds included. */
static void test_rndrw_ratio_zero(void **state)
{
    (void)state;
    const uint64_t sizes[] = {64 * BLK, 64 * BLK};
    struct gen a, b;
    struct sbio_wl wa, wb;
    struct sbio_io ia, ib;
    gen_config(&a, SBIO_MODE_RNDRW);
    a.cfg.rw_ratio = 0;
    gen_config(&b, SBIO_MODE_RNDWR);
    a.cfg.fsync_freq = b.cfg.fsync_freq = 100;
    gen_layout(&a, sizes, 2, BLK, 0, 0);
    gen_layout(&b, sizes, 2, BLK, 0, 0);
    gen_share(&a);
    gen_share(&b);
    assert_int_equal(sbio_wl_init(&wa, &a.sh, 0), 0);
    assert_int_equal(sbio_wl_init(&wb, &b.sh, 0), 0);
    uint64_t fsyncs = 0;
    for (int i = 0; i < 5000; i++) {
        next_op(&wa, &ia);
        next_op(&wb, &ib);
        assert_int_not_equal(ia.op, SBIO_READ);
        assert_int_equal(ia.op, ib.op);
        assert_int_equal(ia.file, ib.file);
        assert_int_equal(ia.offset, ib.offset);
        assert_int_equal(ia.len, ib.len);
        fsyncs += ia.op == SBIO_FSYNC;
    }
    assert_int_equal(wa.reads, 0);
    assert_true(fsyncs > 0);
    sbio_wl_fini(&wa);
    sbio_wl_fini(&wb);
    gen_free(&a);
    gen_free(&b);
}

/* The ratio counts completions: ops issued but not completed do not move it. */
static void test_rndrw_counts_completions(void **state)
{
    (void)state;
    const uint64_t sizes[] = {64 * BLK};
    struct gen g;
    struct sbio_wl w;
    struct sbio_io io;
    gen_config(&g, SBIO_MODE_RNDRW);
    g.cfg.rw_ratio = 1.5;
    gen_layout(&g, sizes, 1, BLK, 0, 0);
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(sbio_wl_next(&w, &io), 1);
        assert_int_equal(io.op, SBIO_READ); /* 1/1 < 1.5 while nothing completes */
    }
    sbio_wl_complete(&w, &io); /* 2/1 >= 1.5 */
    assert_int_equal(sbio_wl_next(&w, &io), 1);
    assert_int_equal(io.op, SBIO_WRITE);
    sbio_wl_fini(&w);
    gen_free(&g);
}

/* ---- fsync cadence ---- */

/* Model of the periodic fsync (sysbench's cadence): before request k of a thread, when k is a
 * multiple of freq and the thread wrote since its last round, one fsync per file (scope
 * all, in file order) or per file written since (scope dirty, in file order). Checks
 * nreq requests against the generator, flags included. Returns the fsyncs seen. */
static uint64_t check_cadence(struct gen *g, unsigned nreq)
{
    struct sbio_wl w;
    struct sbio_io io;
    unsigned n = g->lay.nfiles;
    bool *dirty = calloc(n, sizeof(bool));
    assert_non_null(dirty);
    bool wrote = false;
    uint64_t fsyncs = 0, freq = g->cfg.fsync_freq;
    bool scope_dirty = g->cfg.fsync_scope == SBIO_SCOPE_DIRTY;
    assert_int_equal(sbio_wl_init(&w, &g->sh, 0), 0);
    for (unsigned k = 0; k < nreq; k++) {
        if (k % freq == 0 && wrote) {
            for (unsigned f = 0; f < n; f++) {
                if (scope_dirty && !dirty[f])
                    continue;
                next_op(&w, &io);
                assert_int_equal(io.op, SBIO_FSYNC);
                assert_int_equal(io.file, f);
                assert_int_equal(io.flags, 0);
                fsyncs++;
                dirty[f] = false;
            }
            wrote = false;
        }
        next_req(&w, &io);
        if (io.op == SBIO_WRITE) {
            wrote = true;
            dirty[io.file] = true;
        }
    }
    sbio_wl_fini(&w);
    free(dirty);
    return fsyncs;
}

static void test_fsync_cadence_all(void **state)
{
    (void)state;
    const uint64_t sizes[] = {16 * BLK, 16 * BLK, 16 * BLK + 5, 3 * BLK};
    struct gen g;
    gen_config(&g, SBIO_MODE_RNDWR);
    g.cfg.fsync_freq = 5;
    gen_layout(&g, sizes, 4, BLK, 0, 0);
    gen_share(&g);
    /* Rounds before requests 5, 10, ..., 995: 199 rounds of 4. */
    assert_int_equal(check_cadence(&g, 1000), 199 * 4);

    g.cfg.fsync_freq = 1;
    gen_share(&g);
    assert_int_equal(check_cadence(&g, 100), 99 * 4);

    /* Sequential writes follow the same cadence. */
    g.cfg.mode = SBIO_MODE_SEQWR;
    g.cfg.fsync_freq = 7;
    gen_share(&g);
    assert_int_equal(check_cadence(&g, 700), 99 * 4);
    g.cfg.mode = SBIO_MODE_SEQREWR;
    gen_share(&g);
    assert_int_equal(check_cadence(&g, 700), 99 * 4);

    /* rndrw mostly reading: a window of requests without a write has no round. */
    g.cfg.mode = SBIO_MODE_RNDRW;
    g.cfg.rw_ratio = 8;
    g.cfg.fsync_freq = 2;
    gen_share(&g);
    uint64_t n = check_cadence(&g, 900); /* 100 writes: at most 100 rounds of 450 windows */
    assert_true(n > 0 && n <= 100 * 4);
    gen_free(&g);
}

static void test_fsync_read_modes_never(void **state)
{
    (void)state;
    const uint64_t sizes[] = {8 * BLK, 8 * BLK + 3};
    const int modes[] = {SBIO_MODE_SEQRD, SBIO_MODE_RNDRD};
    const int scopes[] = {SBIO_SCOPE_ALL, SBIO_SCOPE_DIRTY};
    for (int m = 0; m < 2; m++)
        for (int s = 0; s < 2; s++) {
            struct gen g;
            struct sbio_wl w;
            struct sbio_io io;
            gen_config(&g, modes[m]);
            g.cfg.fsync_freq = 1;
            g.cfg.fsync_end = true;
            g.cfg.fsync_scope = scopes[s];
            gen_layout(&g, sizes, 2, BLK, 0, 0);
            gen_share(&g);
            assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
            for (int i = 0; i < 500; i++) {
                next_op(&w, &io);
                assert_int_equal(io.op, SBIO_READ);
                assert_int_equal(io.flags, 0);
            }
            sbio_wl_begin_end(&w);
            assert_int_equal(sbio_wl_next(&w, &io), 0);
            sbio_wl_fini(&w);
            gen_free(&g);
        }
}

/* Scope dirty: only the files written since the last round, over more than 64 files so the
 * bitmap spans several words. */
static void test_fsync_scope_dirty(void **state)
{
    (void)state;
    uint64_t sizes[130];
    for (int i = 0; i < 130; i++)
        sizes[i] = 4 * BLK + (uint64_t)i;
    struct gen g;
    gen_config(&g, SBIO_MODE_RNDWR);
    g.cfg.fsync_freq = 6;
    g.cfg.fsync_scope = SBIO_SCOPE_DIRTY;
    gen_layout(&g, sizes, 130, BLK, 0, 0);
    gen_share(&g);
    uint64_t n = check_cadence(&g, 3000);
    /* 499 rounds of 1..6 distinct files, far fewer than 130 each. */
    assert_true(n >= 499 && n <= 499 * 6);

    g.cfg.mode = SBIO_MODE_SEQWR;
    g.cfg.fsync_freq = 3;
    gen_share(&g);
    /* Files of 4 or 5 requests, rounds of 3 requests: 1 or 2 files each. */
    n = check_cadence(&g, 1200);
    assert_true(n > 399 && n < 2 * 399);
    gen_free(&g);
}

/* --file-fsync-all: the write carries the fsync; no periodic and no end fsync. */
static void test_fsync_all(void **state)
{
    (void)state;
    const uint64_t sizes[] = {8 * BLK, 8 * BLK, 8 * BLK};
    const int modes[] = {SBIO_MODE_RNDWR, SBIO_MODE_RNDRW, SBIO_MODE_SEQWR};
    for (int m = 0; m < 3; m++) {
        struct gen g;
        struct sbio_wl w;
        struct sbio_io io;
        gen_config(&g, modes[m]);
        g.cfg.fsync_all = true;
        g.cfg.fsync_freq = 1;
        g.cfg.fsync_end = true;
        gen_layout(&g, sizes, 3, BLK, 0, 0);
        gen_share(&g);
        assert_int_equal(g.sh.fsync_freq, 0);
        assert_false(g.sh.fsync_end);
        assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
        uint64_t writes = 0;
        for (int i = 0; i < 300; i++) {
            next_req(&w, &io);
            assert_int_equal(io.flags, io.op == SBIO_WRITE ? SBIO_IO_FSYNC_AFTER : 0);
            writes += io.op == SBIO_WRITE;
        }
        assert_true(writes >= 100);
        sbio_wl_begin_end(&w);
        assert_int_equal(sbio_wl_next(&w, &io), 0);
        sbio_wl_fini(&w);
        gen_free(&g);
    }
}

/* Expect the end fsyncs of the files in want[] (in order), then the end. */
static void expect_end(struct sbio_wl *w, const unsigned *want, unsigned n)
{
    struct sbio_io io;
    sbio_wl_begin_end(w);
    for (unsigned i = 0; i < n; i++) {
        next_op(w, &io);
        assert_int_equal(io.op, SBIO_FSYNC);
        assert_int_equal(io.file, want[i]);
        assert_int_equal(io.flags, SBIO_IO_NOT_EVENT);
    }
    assert_int_equal(sbio_wl_next(w, &io), 0);
    assert_int_equal(sbio_wl_next(w, &io), 0);
}

static void test_end_fsyncs(void **state)
{
    (void)state;
    const uint64_t sizes[] = {4 * BLK, 4 * BLK, 4 * BLK, 4 * BLK, 4 * BLK};
    const unsigned all[] = {0, 1, 2, 3, 4};
    struct gen g;
    struct sbio_wl w;
    struct sbio_io io;
    gen_config(&g, SBIO_MODE_RNDWR);
    gen_layout(&g, sizes, 5, BLK, 0, 0);
    assert_true(g.cfg.fsync_end); /* on by default, as sysbench */

    /* Scope all: every file, whether or not the thread wrote. */
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (int i = 0; i < 3; i++)
        next_req(&w, &io);
    expect_end(&w, all, 5);
    sbio_wl_fini(&w);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 1), 0);
    expect_end(&w, all, 5);
    sbio_wl_fini(&w);

    /* A periodic round cut by the end: the end round covers every file. */
    g.cfg.fsync_freq = 2;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    next_req(&w, &io);
    next_req(&w, &io);
    next_op(&w, &io);
    assert_int_equal(io.op, SBIO_FSYNC);
    assert_int_equal(io.flags, 0);
    expect_end(&w, all, 5);
    sbio_wl_fini(&w);

    /* Scope dirty: only the files written since the last round. */
    g.cfg.fsync_scope = SBIO_SCOPE_DIRTY;
    g.cfg.fsync_freq = 4;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    bool dirty[5] = {false};
    for (int k = 0; k < 6; k++) {
        next_op(&w, &io);
        if (io.op == SBIO_FSYNC) {
            k--;
            memset(dirty, 0, sizeof(dirty));
            continue;
        }
        if (k >= 4)
            dirty[io.file] = true;
    }
    unsigned want[5], n = 0;
    for (unsigned f = 0; f < 5; f++)
        if (dirty[f])
            want[n++] = f;
    assert_true(n >= 1 && n <= 2);
    expect_end(&w, want, n);
    sbio_wl_fini(&w);
    /* ... and none for a thread that wrote nothing. */
    assert_int_equal(sbio_wl_init(&w, &g.sh, 1), 0);
    expect_end(&w, NULL, 0);
    sbio_wl_fini(&w);

    /* Sequential writes and rndrw have end fsyncs too; --file-fsync-end=off has none. */
    g.cfg.fsync_scope = SBIO_SCOPE_ALL;
    g.cfg.fsync_freq = 0;
    g.cfg.mode = SBIO_MODE_SEQWR;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    next_req(&w, &io);
    expect_end(&w, all, 5);
    sbio_wl_fini(&w);
    g.cfg.mode = SBIO_MODE_RNDRW;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    next_req(&w, &io);
    expect_end(&w, all, 5);
    sbio_wl_fini(&w);
    g.cfg.fsync_end = false;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    next_req(&w, &io);
    expect_end(&w, NULL, 0);
    sbio_wl_fini(&w);

    /* Read modes: none. */
    g.cfg.fsync_end = true;
    g.cfg.mode = SBIO_MODE_RNDRD;
    gen_share(&g);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    next_req(&w, &io);
    expect_end(&w, NULL, 0);
    sbio_wl_fini(&w);
    gen_free(&g);
}

/* ---- determinism ---- */

struct trace {
    enum sbio_op op[1000];
    unsigned file[1000];
    uint64_t off[1000];
};

static void record_trace(struct gen *g, unsigned thread, struct trace *t)
{
    struct sbio_wl w;
    struct sbio_io io;
    assert_int_equal(sbio_wl_init(&w, &g->sh, thread), 0);
    for (int i = 0; i < 1000; i++) {
        next_op(&w, &io);
        t->op[i] = io.op;
        t->file[i] = io.file;
        t->off[i] = io.offset;
    }
    sbio_wl_fini(&w);
}

static int trace_diff(const struct trace *a, const struct trace *b)
{
    int d = 0;
    for (int i = 0; i < 1000; i++)
        d += a->file[i] != b->file[i] || a->off[i] != b->off[i];
    return d;
}

static void test_determinism(void **state)
{
    (void)state;
    struct gen g;
    struct trace *t = calloc(4, sizeof(*t));
    assert_non_null(t);
    gen_config(&g, SBIO_MODE_RNDRW);
    gen_layout(&g, odd_sizes, ODD_N, BLK, 0, 0);
    gen_share(&g);
    record_trace(&g, 0, &t[0]);
    record_trace(&g, 0, &t[1]);
    assert_memory_equal(&t[0], &t[1], sizeof(t[0]));
    record_trace(&g, 1, &t[2]);
    g.cfg.rand_seed = SEED + 1;
    gen_share(&g);
    record_trace(&g, 0, &t[3]);
    /* 250 blocks: two independent streams agree at about 4 positions in 1000. */
    assert_true(trace_diff(&t[0], &t[2]) > 900);
    assert_true(trace_diff(&t[0], &t[3]) > 900);
    assert_true(trace_diff(&t[2], &t[3]) > 900);
    free(t);
    gen_free(&g);
}

/* A mix of read-modify-writes: one SBIO_RMW op per draw, whole blocks in order under the seq
 * pattern; a mix's fsync goes to the file its last read-modify-write wrote, as after a write. */
static void test_mix_rmw(void **state)
{
    (void)state;
    struct gen g;
    static const uint64_t sizes[] = {8 * BLK, 8 * BLK};
    gen_config(&g, SBIO_MODE_RNDRW);
    gen_layout(&g, sizes, 2, BLK, 0, 0);
    struct sbio_script_job sj = {
        .threads = 1, .nblocks = 1, .block = {BLK}, .block_weight = {1}, .pattern = SBIO_PAT_SEQ};
    sj.weight[SBIO_MIX_RMW] = 1;
    struct sbio_mix m;
    sbio_mix_init(&m, &sj, 16);
    struct sbio_job job;
    test_job_from_config(&job, &g.cfg);
    job.mix = &m;
    sbio_wl_shared_init(&g.sh, &job, &g.lay, SEED);
    struct sbio_wl w;
    struct sbio_io io;
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (unsigned i = 0; i < 20; i++) {
        next_op(&w, &io);
        assert_int_equal(io.op, SBIO_RMW);
        assert_int_equal(io.flags, 0);
        assert_int_equal(io.len, BLK);
        assert_int_equal(io.file, i % 16 / 8);
        assert_int_equal(io.offset, i % 8 * BLK);
    }
    sbio_wl_fini(&w);

    sj.weight[SBIO_MIX_FSYNC] = 1;
    sbio_mix_init(&m, &sj, 16);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    unsigned last = 0, fsyncs = 0; /* before any write: the first file */
    for (unsigned i = 0; i < 200; i++) {
        next_op(&w, &io);
        if (io.op == SBIO_FSYNC) {
            assert_int_equal(io.file, last);
            fsyncs++;
        } else {
            assert_int_equal(io.op, SBIO_RMW);
            last = io.file;
        }
    }
    assert_true(fsyncs > 50 && fsyncs < 150);
    sbio_wl_fini(&w);
    gen_free(&g);
}

/* A job on some of the set's files (sbio_layout_init_only): a mix's reads, writes and appends
 * reach those files only, every one of them; appends take each file's end in turn from
 * sh.append_end, the append size each, never overlapping; the end fsyncs cover only the
 * job's files. */
static void test_mix_files_append(void **state)
{
    (void)state;
    struct gen g;
    static const uint64_t sizes[] = {8 * BLK, 8 * BLK, 8 * BLK, 8 * BLK, 16 * BLK};
    static const unsigned char in[] = {0, 1, 1, 0, 1};
    gen_config(&g, SBIO_MODE_RNDRW);
    assert_int_equal(sbio_layout_init_only(&g.lay, 5, sizes, in, BLK, 0, 0), 0);
    assert_int_equal(g.lay.nown, 3);
    assert_true(g.lay.rnd_blocks == 32);
    struct sbio_script_job sj = {.threads = 1,
                                 .nblocks = 1,
                                 .block = {BLK},
                                 .block_weight = {1},
                                 .nappend = 1,
                                 .append = {3000},
                                 .append_weight = {1},
                                 .pattern = SBIO_PAT_UNIFORM,
                                 .fsync_end = true};
    sj.weight[SBIO_MIX_READ] = 1;
    sj.weight[SBIO_MIX_WRITE] = 1;
    sj.weight[SBIO_MIX_APPEND] = 2;
    sj.weight[SBIO_MIX_FDATASYNC] = 0.5; /* to the file last written: one of the job's */
    struct sbio_mix m;
    sbio_mix_init(&m, &sj, 8);
    struct sbio_job job;
    test_job_from_config(&job, &g.cfg);
    job.mix = &m;
    job.fsync_end = true;
    sbio_wl_shared_init(&g.sh, &job, &g.lay, SEED);
    uint64_t ends[5] = {sizes[0], sizes[1], sizes[2], sizes[3], sizes[4]};
    g.sh.append_end = ends;
    struct sbio_wl w;
    struct sbio_io io;
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    unsigned per_file[5] = {0}, appends[5] = {0};
    uint64_t next[5] = {sizes[0], sizes[1], sizes[2], sizes[3], sizes[4]};
    for (unsigned i = 0; i < 3000; i++) {
        next_op(&w, &io);
        assert_true(io.file < 5 && in[io.file]);
        if (io.op == SBIO_FSYNC)
            continue;
        per_file[io.file]++;
        if (io.offset >= sizes[io.file]) { /* an append: the file's end so far, 3000 bytes */
            assert_int_equal(io.op, SBIO_WRITE);
            assert_int_equal(io.len, 3000);
            assert_true(io.offset == next[io.file]);
            next[io.file] += 3000;
            appends[io.file]++;
        } else {
            assert_true(io.offset + io.len <= sizes[io.file]);
        }
    }
    for (unsigned f = 0; f < 5; f++) {
        if (!in[f])
            continue;
        assert_true(per_file[f] > 300 && appends[f] > 200);
        assert_true(ends[f] == next[f]);
    }
    sbio_wl_begin_end(&w);
    unsigned fsynced = 0;
    while (sbio_wl_next(&w, &io) == 1) {
        assert_int_equal(io.op, SBIO_FSYNC);
        assert_true(in[io.file]);
        fsynced++;
    }
    assert_int_equal(fsynced, 3);
    sbio_wl_fini(&w);
    /* Syncs before any write (a reader's): to one of the job's files too. */
    sj.weight[SBIO_MIX_WRITE] = sj.weight[SBIO_MIX_APPEND] = 0;
    sbio_mix_init(&m, &sj, 8);
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (unsigned i = 0; i < 100; i++) {
        next_op(&w, &io);
        assert_true(in[io.file]);
    }
    sbio_wl_fini(&w);
    gen_free(&g);
}

/* --random-order=once: over several passes, two threads taking from the shared counter
 * visit every block exactly once per pass, and the second pass is another order; under
 * --verify's partition each thread visits its own blocks once per pass. */
static void check_once(bool partition)
{
    static const uint64_t sizes[] = {7 * BLK, 7 * BLK, 5 * BLK}; /* 19 blocks */
    const unsigned n = 19;
    struct gen g;
    gen_config(&g, SBIO_MODE_RNDRD);
    g.cfg.random_order = SBIO_ORDER_ONCE;
    g.cfg.threads = 2;
    gen_layout(&g, sizes, 3, BLK, 0, 0);
    gen_share(&g);
    g.sh.partition = partition;
    g.sh.once_own = partition;
    struct sbio_wl w[2];
    struct sbio_io io;
    assert_int_equal(sbio_wl_init(&w[0], &g.sh, 0), 0);
    assert_int_equal(sbio_wl_init(&w[1], &g.sh, 1), 0);
    unsigned order[2][19];
    for (unsigned pass = 0; pass < 2; pass++) {
        unsigned seen[19] = {0};
        for (unsigned i = 0; i < n; i++) {
            /* Shared: the threads alternate; partitioned: each takes its share in turn. */
            unsigned t = partition ? i >= (n + 1) / 2 : i % 2;
            next_req(&w[t], &io);
            unsigned blk = (unsigned)(io.file * 7 + io.offset / BLK);
            assert_true(blk < n);
            if (partition)
                assert_int_equal(blk % 2, t);
            seen[blk]++;
            order[pass][i] = blk;
        }
        for (unsigned b = 0; b < n; b++)
            assert_int_equal(seen[b], 1);
    }
    assert_memory_not_equal(order[0], order[1], sizeof(order[0]));
    /* After a warm-up: half a pass taken, then restarted; the next n blocks are a whole
     * pass again. */
    for (unsigned i = 0; i < n / 2; i++)
        next_req(&w[i % 2], &io);
    sbio_wl_once_restart(&w[0]);
    sbio_wl_once_restart(&w[1]);
    unsigned again[19] = {0};
    for (unsigned i = 0; i < n; i++) {
        unsigned t = partition ? i >= (n + 1) / 2 : i % 2;
        next_req(&w[t], &io);
        again[io.file * 7 + io.offset / BLK]++;
    }
    for (unsigned b = 0; b < n; b++)
        assert_int_equal(again[b], 1);
    sbio_wl_fini(&w[0]);
    sbio_wl_fini(&w[1]);
    gen_free(&g);
}

static void test_random_once(void **state)
{
    (void)state;
    check_once(false);
    check_once(true);
}

/* invalidate = "pass" and file_service = "roundrobin" over three files of four requests each:
 * the round-robin order takes one request of each file in turn, each file from its start;
 * the first request of a file in every pass after the first carries SBIO_IO_DROP (its pages
 * dropped before it is issued), and no other request. In the once order, the first block of
 * every pass after the first carries SBIO_IO_DROP_ALL. */
static void test_pass_drops_roundrobin(void **state)
{
    (void)state;
    const uint64_t sizes[] = {4 * BLK, 4 * BLK, 4 * BLK};
    struct gen g;
    gen_config(&g, SBIO_MODE_SEQRD);
    gen_layout(&g, sizes, 3, BLK, 0, 0);
    assert_int_equal(g.lay.rr_units, 4);
    for (int rr = 0; rr <= 1; rr++) {
        gen_share(&g);
        g.sh.rr = rr;
        g.sh.drop_pass = true;
        struct sbio_wl w;
        struct sbio_io io;
        assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
        for (unsigned i = 0; i < 3 * 12; i++) {
            next_req(&w, &io);
            unsigned f = rr ? i % 3 : i % 12 / 4;
            uint64_t off = (rr ? i % 12 / 3 : i % 4) * BLK;
            assert_int_equal(io.file, f);
            assert_int_equal(io.offset, off);
            assert_int_equal(!!(io.flags & SBIO_IO_DROP), i >= 12 && off == 0);
            assert_int_equal(io.flags & SBIO_IO_DROP_ALL, 0);
        }
        sbio_wl_fini(&w);
    }
    gen_free(&g);

    /* Files of different sizes have no round-robin order. */
    const uint64_t mixed[] = {4 * BLK, 3 * BLK};
    gen_config(&g, SBIO_MODE_SEQRD);
    gen_layout(&g, mixed, 2, BLK, 0, 0);
    assert_int_equal(g.lay.rr_units, 0);
    gen_free(&g);

    /* rndrd in the once order: a pass is the set's 12 blocks. */
    gen_config(&g, SBIO_MODE_RNDRD);
    g.cfg.random_order = SBIO_ORDER_ONCE;
    gen_layout(&g, sizes, 3, BLK, 0, 0);
    gen_share(&g);
    g.sh.drop_pass = true;
    struct sbio_wl w;
    struct sbio_io io;
    assert_int_equal(sbio_wl_init(&w, &g.sh, 0), 0);
    for (unsigned i = 0; i < 3 * 12; i++) {
        next_req(&w, &io);
        assert_int_equal(!!(io.flags & SBIO_IO_DROP_ALL), i >= 12 && i % 12 == 0);
        assert_int_equal(io.flags & SBIO_IO_DROP, 0);
    }
    sbio_wl_fini(&w);
    gen_free(&g);
}

/* --verify's partition over a mix: three threads of 1000 blocks (thread 0 owns 334 of them,
 * the others 333); every pattern draws only the thread's own blocks (block % 3 == thread, inside
 * the set), the seq pattern walks them in order, and zipf and pareto stay skewed toward the
 * thread's first blocks as over the whole set. The mix is set up for a thread's share, as
 * the runner does. */
static void test_mix_partition(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {400 * BLK, 350 * BLK, 250 * BLK};
    static const struct {
        int pattern;
        double a, b, hot; /* hot: the least share of draws in the thread's first 20 % */
    } pats[] = {{SBIO_PAT_UNIFORM, 0, 0, 0.1},  {SBIO_PAT_SEQ, 0, 0, 0.1},
                {SBIO_PAT_ZIPF, 0.9, 0, 0.5},   {SBIO_PAT_PARETO, 0.2, 0, 0.7},
                {SBIO_PAT_GAUSSIAN, 0.1, 0, 0}, {SBIO_PAT_HOT, 0.1, 0.9, 0.85}};
    struct gen g;
    gen_config(&g, SBIO_MODE_RNDRW);
    g.cfg.threads = 3;
    gen_layout(&g, sizes, 3, BLK, 0, 0);
    for (unsigned p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
        struct sbio_script_job sj = {.threads = 3,
                                     .nblocks = 1,
                                     .block = {BLK},
                                     .block_weight = {1},
                                     .pattern = pats[p].pattern,
                                     .pa = pats[p].a,
                                     .pb = pats[p].b};
        sj.weight[SBIO_MIX_READ] = sj.weight[SBIO_MIX_WRITE] = 1;
        struct sbio_mix m;
        sbio_mix_init(&m, &sj, 1000);
        sbio_mix_set_blocks(&m, 334);
        struct sbio_job job;
        test_job_from_config(&job, &g.cfg);
        job.mix = &m;
        sbio_wl_shared_init(&g.sh, &job, &g.lay, SEED);
        g.sh.partition = true;
        for (unsigned t = 0; t < 3; t++) {
            struct sbio_wl w;
            struct sbio_io io;
            uint64_t own = t ? 333 : 334, first = 0, last = 0;
            assert_int_equal(sbio_wl_init(&w, &g.sh, t), 0);
            for (unsigned i = 0; i < 20000; i++) {
                next_req(&w, &io);
                uint64_t blk = g.lay.rnd_first[io.file] + io.offset / BLK;
                assert_true(blk < 1000);
                assert_int_equal(blk % 3, t);
                if (pats[p].pattern == SBIO_PAT_SEQ)
                    assert_int_equal(blk, i % own * 3 + t);
                first += blk / 3 < own / 5;
                last += blk / 3 == own - 1;
            }
            assert_true((double)first / 20000 >= pats[p].hot);
            if (pats[p].pattern == SBIO_PAT_UNIFORM)
                assert_true(last > 0 && first < 20000 * 0.25);
            sbio_wl_fini(&w);
        }
    }
    gen_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_counts),
        cmocka_unit_test(test_random_whole_blocks_uniform),
        cmocka_unit_test(test_random_uniform_sizes),
        cmocka_unit_test(test_seq_shared_order_wrap),
        cmocka_unit_test(test_seq_direct_tails),
        cmocka_unit_test(test_seq_per_thread_slices),
        cmocka_unit_test(test_seq_per_thread_erange),
        cmocka_unit_test(test_merged_requests),
        cmocka_unit_test(test_rndrw_ratio),
        cmocka_unit_test(test_rndrw_ratio_zero),
        cmocka_unit_test(test_rndrw_counts_completions),
        cmocka_unit_test(test_fsync_cadence_all),
        cmocka_unit_test(test_fsync_read_modes_never),
        cmocka_unit_test(test_fsync_scope_dirty),
        cmocka_unit_test(test_fsync_all),
        cmocka_unit_test(test_end_fsyncs),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_mix_rmw),
        cmocka_unit_test(test_mix_files_append),
        cmocka_unit_test(test_pass_drops_roundrobin),
        cmocka_unit_test(test_random_once),
        cmocka_unit_test(test_mix_partition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
