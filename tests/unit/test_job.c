/* Unit tests for the job model (src/core/job.c): a declaration's job becomes the job the runner
 * and the reports read by one rule, whether the command line or a script declared it; the
 * job's derived figures (merged blocks, request bytes, queue batch, access hint, what it
 * writes). Every expectation is written out by hand from the rule it checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "decl.h"
#include "ioprio.h"
#include "job.h"
#include "mix.h"

#include "helpers.h"

/* A phase of one job: a sysbench mode (mode) or, with SBIO_MODE_NONE, a mix of reads over the
 * given blocks; settings whose command-line job has recognisable values in every field a
 * script cannot declare. */
struct decl_case {
    struct sbio_settings set;
    struct sbio_script_phase phase;
};

static void decl_case(struct decl_case *c, int mode, const uint64_t *blocks, unsigned nblocks)
{
    memset(c, 0, sizeof(*c));
    struct sbio_script_job *cl = &c->set.job;
    cl->iodepth_batch = 3;
    cl->cpus = "0-1";
    cl->merged_requests = 4;
    cl->fsync_all = true;
    cl->fsync_mode = SBIO_FSYNC_FDATASYNC;
    cl->fsync_scope = SBIO_SCOPE_DIRTY;
    cl->warmup_s = 2;
    cl->warmup_max_s = 30;
    cl->warmup_tol_pct = 5;
    cl->verify = true;
    cl->verify_fatal = true;
    cl->rw_ratio = 2.5;
    cl->ioprio = (2 << 13 | 4);
    struct sbio_script_job *j = &c->phase.jobs[0];
    snprintf(j->name, sizeof(j->name), "j");
    j->threads = 3;
    j->engine = 1;
    j->iodepth = 8;
    j->flags = SBIO_XF_DIRECT;
    j->mode = mode;
    j->nblocks = nblocks;
    for (unsigned b = 0; b < nblocks; b++) {
        j->block[b] = blocks[b];
        j->block_weight[b] = 1;
    }
    j->weight[SBIO_MIX_READ] = mode == SBIO_MODE_NONE;
    j->rw_ratio = 0.5;
    j->fsync_freq = 7;
    j->fsync_end = true;
    j->rate = 900;
    j->think_us = 11;
    j->stream = SBIO_SEQ_PER_THREAD;
    j->fadvise = SBIO_FADV_RANDOM;
    j->random_order = SBIO_ORDER_ONCE;
    c->phase.njobs = 1;
    c->phase.time_s = 9;
}

/* A mode job takes its own fields, and the command line's where a script cannot speak. */
static void test_declare_mode(void **state)
{
    (void)state;
    static const uint64_t blk[] = {8192};
    struct decl_case c;
    decl_case(&c, SBIO_MODE_RNDRW, blk, 1);
    struct sbio_job job;
    sbio_job_declare(&job, &c.phase, 0, 500, &c.set);
    assert_int_equal(job.threads, 3);
    assert_int_equal(job.engine, 1);
    assert_int_equal(job.iodepth, 8);
    assert_int_equal(job.extra_flags, SBIO_XF_DIRECT);
    assert_int_equal(job.mode, SBIO_MODE_RNDRW);
    assert_int_equal(job.block_size, 8192);
    assert_int_equal(job.max_len, 8192);
    assert_int_equal(job.merged_requests, 4); /* the command line's */
    assert_int_equal(job.fsync_freq, 7);
    assert_true(job.fsync_all);
    assert_true(job.fsync_end);
    assert_true(job.rw_ratio == 0.5); /* the job's own */
    assert_int_equal(job.iodepth_batch, 3);
    assert_string_equal(job.cpus, "0-1");
    assert_int_equal(job.fsync_mode, SBIO_FSYNC_FDATASYNC);
    assert_int_equal(job.fsync_scope, SBIO_SCOPE_DIRTY);
    assert_int_equal(job.warmup_s, 2);
    assert_int_equal(job.warmup_max_s, 30);
    assert_true(job.verify && job.verify_fatal);
    assert_int_equal(job.rate, 900);
    assert_int_equal(job.think_us, 11);
    assert_int_equal(job.seq_stream, SBIO_SEQ_PER_THREAD);
    assert_int_equal(job.fadvise, SBIO_FADV_RANDOM);
    assert_int_equal(job.random_order, SBIO_ORDER_ONCE);
    assert_int_equal(job.time_s, 9);
    assert_int_equal(job.events, 500);
    /* The job's priority unset: the command line's --ioprio. */
    assert_int_equal(job.ioprio, (2 << 13 | 4));
    c.phase.jobs[0].ioprio = (3 << 13);
    sbio_job_declare(&job, &c.phase, 0, 500, &c.set);
    assert_int_equal(job.ioprio, (3 << 13));
}

/* A mix: offsets in its smallest block, buffers as large as its largest, described as that
 * many merged blocks; no periodic fsync nor fsync of every file, the command line's ratio. */
static void test_declare_mix(void **state)
{
    (void)state;
    static const uint64_t blk[] = {16384, 4096, 10000};
    struct decl_case c;
    decl_case(&c, SBIO_MODE_NONE, blk, 3);
    struct sbio_job job;
    sbio_job_declare(&job, &c.phase, 0, 0, &c.set);
    assert_int_equal(job.mode, SBIO_MODE_NONE);
    assert_int_equal(job.block_size, 4096);
    assert_int_equal(job.max_len, 16384);
    assert_int_equal(job.merged_requests, 4);
    assert_int_equal(job.fsync_freq, 0);
    assert_false(job.fsync_all);
    assert_true(job.fsync_end);
    assert_true(job.rw_ratio == 2.5);
    /* 10000 / 4096 rounds up: 16384 is still the largest. */
    c.phase.jobs[0].block[0] = 12288 + 1;
    sbio_job_declare(&job, &c.phase, 0, 0, &c.set);
    assert_int_equal(job.merged_requests, 4); /* ceil(12289 / 4096) */
    assert_int_equal(job.max_len, 12289);
}

/* A job left without a share of its phase's events idles for a second; with a time limit of
 * its own, or no event budget at all, it keeps it. */
static void test_declare_no_share(void **state)
{
    (void)state;
    static const uint64_t blk[] = {4096};
    static const struct {
        uint64_t phase_events, phase_time, share, want_time;
    } cases[] = {
        {10, 0, 0, 1}, {10, 0, 3, 0}, {10, 5, 0, 5}, {0, 0, 0, 0}, {0, 7, 0, 7},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct decl_case c;
        decl_case(&c, SBIO_MODE_RNDRD, blk, 1);
        c.phase.events = cases[i].phase_events;
        c.phase.time_s = cases[i].phase_time;
        struct sbio_job job;
        sbio_job_declare(&job, &c.phase, 0, cases[i].share, &c.set);
        assert_int_equal(job.time_s, cases[i].want_time);
        assert_int_equal(job.events, cases[i].share);
    }
}

/* The derived figures, one case per row. */
static void test_derived(void **state)
{
    (void)state;
    static const struct {
        int mode;
        uint64_t merged, block, max_len, batch, depth;
        unsigned flags;
        bool mix;
        uint64_t want_merged, want_bytes, want_batch;
        bool writes, sequential;
    } cases[] = {
        /* a sysbench mode: merged_requests, at least 1 */
        {SBIO_MODE_SEQRD, 0, 4096, 0, 0, 32, 0, false, 1, 4096, 32, false, true},
        {SBIO_MODE_SEQWR, 8, 4096, 0, 0, 32, 0, false, 8, 32768, 32, true, true},
        /* O_DIRECT: one request per submit unless asked, never more than the depth */
        {SBIO_MODE_RNDRD, 1, 512, 0, 0, 32, SBIO_XF_DIRECT, false, 1, 512, 1, false, false},
        {SBIO_MODE_RNDWR, 1, 512, 0, 64, 16, 0, false, 1, 512, 16, true, false},
        /* a mix: as many blocks as its largest request covers; it may write */
        {SBIO_MODE_NONE, 99, 4096, 10000, 4, 8, 0, true, 3, 12288, 4, true, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sbio_mix mix;
        memset(&mix, 0, sizeof(mix));
        struct sbio_job job = {.mode = cases[i].mode,
                               .merged_requests = cases[i].merged,
                               .block_size = cases[i].block,
                               .max_len = cases[i].max_len,
                               .iodepth_batch = cases[i].batch,
                               .iodepth = cases[i].depth,
                               .extra_flags = cases[i].flags,
                               .mix = cases[i].mix ? &mix : NULL};
        assert_int_equal(sbio_job_merged(&job), cases[i].want_merged);
        assert_int_equal(sbio_job_req_bytes(&job), cases[i].want_bytes);
        assert_int_equal(sbio_job_iodepth_batch(&job), cases[i].want_batch);
        assert_int_equal(sbio_job_writes(&job), cases[i].writes);
        assert_int_equal(sbio_job_sequential(&job), cases[i].sequential);
    }
}

/* --fadvise=auto: by what the job does; anything else as given. */
static void test_fadvise(void **state)
{
    (void)state;
    struct sbio_mix seq, rnd;
    memset(&seq, 0, sizeof(seq));
    memset(&rnd, 0, sizeof(rnd));
    seq.pattern = SBIO_PAT_SEQ;
    rnd.pattern = SBIO_PAT_ZIPF;
    static const struct sbio_hook_ops *const no_hook = NULL;
    struct sbio_job job = {.fadvise = SBIO_FADV_AUTO, .mode = SBIO_MODE_SEQRD};
    assert_int_equal(sbio_job_fadvise(&job), SBIO_FADV_SEQUENTIAL);
    job.mode = SBIO_MODE_RNDRW;
    assert_int_equal(sbio_job_fadvise(&job), SBIO_FADV_RANDOM);
    job.mode = SBIO_MODE_NONE;
    job.mix = &seq;
    assert_int_equal(sbio_job_fadvise(&job), SBIO_FADV_SEQUENTIAL);
    job.mix = &rnd;
    assert_int_equal(sbio_job_fadvise(&job), SBIO_FADV_RANDOM);
    job.mix = NULL;
    job.hook = (const struct sbio_hook_ops *)&seq; /* any hook: no pattern to go by */
    assert_int_equal(sbio_job_fadvise(&job), SBIO_FADV_NORMAL);
    job.hook = no_hook;
    job.fadvise = SBIO_FADV_NONE;
    assert_int_equal(sbio_job_fadvise(&job), SBIO_FADV_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_declare_mode),     cmocka_unit_test(test_declare_mix),
        cmocka_unit_test(test_declare_no_share), cmocka_unit_test(test_derived),
        cmocka_unit_test(test_fadvise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
