/* Unit tests for the measurement probes (src/probes/probe.c, src/probes/): the table, each probe's
 * snapshots turned into figures (a fake cgroup folder stands for the kernel's files; the
 * worker threads' usage is filled by hand), the merge rules of jobs and of ranks, and the
 * figures of a job run in a process of its own (jobproc.c) reaching the parent. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "fileset.h"
#include "helpers.h"
#include "jobproc.h"
#include "probe.h"
#include "result.h"

/* Every probe has a name of its own and every op; nothing past the table. */
static void test_table(void **state)
{
    (void)state;
    for (int id = 0; id < SBIO_PROBE_NR; id++) {
        const struct sbio_probe_ops *p = sbio_probe_find(id);
        assert_non_null(p);
        assert_non_null(p->name);
        assert_true(p->snap && p->delta && p->merge && p->text && p->json);
        for (int k = 0; k < id; k++)
            assert_string_not_equal(p->name, sbio_probe_find(k)->name);
    }
    assert_null(sbio_probe_find(-1));
    assert_null(sbio_probe_find(SBIO_PROBE_NR));
}

/* The probes around a phase on env: snapshots at the start (before) and the end, after
 * between() ran, into res's figures. */
static void around(struct sbio_run_result *res, const struct sbio_probe_env *env,
                   void (*between)(void *), void *ctx)
{
    struct sbio_probe_snaps *s = malloc(2 * sizeof(*s));
    assert_non_null(s);
    sbio_probes_snap(&s[0], env, NULL);
    between(ctx);
    sbio_probes_snap(&s[1], env, &s[0]);
    sbio_probes_delta(&res->probe, &s[0], &s[1], env);
    free(s);
}

/* Threads 0 and 2 ran their phase; thread 1 never started it (its usage is not counted). */
static void threads_ran(void *ctx)
{
    struct sbio_thread_usage *u = ctx;
    u[0].ru0.ru_minflt = 5, u[0].ru1.ru_minflt = 12, u[0].ru1.ru_majflt = 1;
    u[1].ru1.ru_minflt = 1000, u[1].ru1.ru_majflt = 1000;
    u[2].ru0.ru_minflt = 100, u[2].ru1.ru_minflt = 103, u[2].ru0.ru_majflt = 2;
    u[2].ru1.ru_majflt = 4;
    u[0].taken = u[2].taken = true;
}

/* Faults are the threads' own over their phase; a job without set, devices or groups has
 * none of those figures, and its JSON says null. */
static void test_faults_alone(void **state)
{
    (void)state;
    struct sbio_thread_usage u[3];
    memset(u, 0, sizeof(u));
    struct sbio_probe_env env = {.threads = u, .nthreads = 3};
    struct sbio_run_result *res = calloc(1, sizeof(*res));
    assert_non_null(res);
    around(res, &env, threads_ran, u);
    assert_int_equal(res->probe.faults.minor, 10);
    assert_int_equal(res->probe.faults.major, 3);
    assert_int_equal(res->probe.devices.ndisk, 0);
    assert_false(res->probe.page_cache.have);
    assert_int_equal(res->probe.memstat.version, SBIO_CGROUP_NONE);
    assert_string_equal(res->probe.group_io.dir, "");
    json_t *o = json_object();
    for (int id = 0; id < SBIO_PROBE_NR; id++)
        sbio_result_probe_json(o, res, id);
    assert_int_equal(json_integer_value(json_object_get(o, "minor_faults")), 10);
    assert_int_equal(json_array_size(json_object_get(o, "devices")), 0);
    assert_true(json_is_null(json_object_get(o, "page_cache")));
    assert_true(json_is_null(json_object_get(o, "memory_group")));
    assert_true(json_is_null(json_object_get(o, "group")));
    json_decref(o);
    free(res);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

struct cg {
    char dir[PATH_MAX];
    const char *io_end, *mem_end; /* what the group's files say at the end */
};

static void group_counted(void *ctx)
{
    struct cg *c = ctx;
    if (c->io_end)
        put(c->dir, "io.stat", c->io_end);
    if (c->mem_end)
        put(c->dir, "memory.stat", c->mem_end);
}

/* The group's counters over the phase: the end's minus the start's, summed over its
 * devices; memory.stat's page cache at both ends, beside the limit. */
static void test_groups(void **state)
{
    (void)state;
    struct cg c = {
        .io_end = "254:7 rbytes=4196 wbytes=1200 rios=4 wios=5\n7:0 rbytes=9 wbytes=9 rios=9\n",
        .mem_end = "file 8192\nfile_dirty 4096\nfile_writeback 512\n"};
    assert_int_equal(tmpdir_make(c.dir, sizeof(c.dir), "/tmp", "probe"), 0);
    put(c.dir, "io.stat", "254:7 rbytes=100 wbytes=200 rios=1 wios=1\n");
    put(c.dir, "memory.stat", "file 4096\nfile_dirty 0\nfile_writeback 0\n");
    struct sbio_cgroup_job job = {.version = SBIO_CGROUP_V2, .ndev = 1};
    job.major[0] = 254, job.minor[0] = 7;
    snprintf(job.dir, sizeof(job.dir), "%s", c.dir);
    struct sbio_memgroup mg = {.version = SBIO_CGROUP_V2, .limit = 64 << 20};
    snprintf(mg.file, sizeof(mg.file), "memory.max");
    snprintf(mg.dir, sizeof(mg.dir), "%s", c.dir);
    struct sbio_probe_env env = {.group = &job, .memgroup = &mg};
    struct sbio_run_result *res = calloc(1, sizeof(*res));
    assert_non_null(res);
    around(res, &env, group_counted, &c);
    const struct sbio_probe_group_io *g = &res->probe.group_io;
    assert_string_equal(g->dir, c.dir);
    assert_int_equal(g->version, SBIO_CGROUP_V2);
    assert_true(g->have);
    assert_string_equal(g->io.source, "io.stat");
    assert_true(g->io.rbytes == 4096 && g->io.wbytes == 1000 && g->io.rios == 3 && g->io.wios == 4);
    const struct sbio_probe_memstat *m = &res->probe.memstat;
    assert_true(m->have);
    assert_int_equal(m->limit, 64 << 20);
    assert_string_equal(m->file, "memory.max");
    assert_true(m->m0.file == 4096 && m->m1.file == 8192 && m->m1.dirty == 4096 &&
                m->m1.writeback == 512);

    /* memory.stat unreadable at the start: not read at the end, the group still said. */
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/memory.stat", c.dir);
    assert_int_equal(unlink(p), 0);
    around(res, &env, group_counted, &c);
    assert_false(res->probe.memstat.have);
    assert_int_equal(res->probe.memstat.version, SBIO_CGROUP_V2);
    json_t *o = json_object();
    sbio_result_probe_json(o, res, SBIO_PROBE_MEMSTAT);
    json_t *jm = json_object_get(o, "memory_group");
    assert_int_equal(json_integer_value(json_object_get(jm, "limit_bytes")), 64 << 20);
    assert_true(json_is_null(json_object_get(jm, "start")));
    assert_true(json_is_null(json_object_get(jm, "end")));
    json_decref(o);

    /* v1 names its source; one that changed during the phase makes no figures. */
    job.version = SBIO_CGROUP_V1;
    c.io_end = NULL;
    put(c.dir, "blkio.throttle.io_service_bytes", "Total 0\n");
    put(c.dir, "blkio.throttle.io_serviced", "Total 0\n");
    put(c.dir, "blkio.bfq.io_service_bytes", "254:7 Read 4096\n");
    put(c.dir, "blkio.bfq.io_serviced", "254:7 Read 1\n");
    struct sbio_probe_snaps *s = malloc(2 * sizeof(*s));
    assert_non_null(s);
    sbio_probes_snap(&s[0], &env, NULL);
    put(c.dir, "blkio.throttle.io_service_bytes", "254:7 Read 8192\n");
    put(c.dir, "blkio.throttle.io_serviced", "254:7 Read 2\n");
    sbio_probes_snap(&s[1], &env, &s[0]);
    sbio_probes_delta(&res->probe, &s[0], &s[1], &env);
    free(s);
    assert_string_equal(res->probe.group_io.dir, c.dir);
    assert_false(res->probe.group_io.have);
    free(res);
    assert_int_equal(tmpdir_remove(c.dir), 0);
}

/* Part k's figures: k + 1 of everything, its device named after it. */
static void part(struct sbio_probe_figs *f, unsigned k, bool proc_io)
{
    memset(f, 0, sizeof(*f));
    f->faults = (struct sbio_probe_faults){.minor = k + 1, .major = k + 1};
    f->devices.ndisk = 1;
    snprintf(f->devices.name[0], sizeof(f->devices.name[0]), "dev%u", k);
    f->proc_io = (struct sbio_probe_proc_io){.have = proc_io, .read_bytes = k + 1};
    f->page_cache.have = true;
    f->page_cache.c1.cached = k + 1;
    f->memstat.version = SBIO_CGROUP_V2;
    f->memstat.have = true;
    f->memstat.m1.file = k + 1;
    snprintf(f->group_io.dir, sizeof(f->group_io.dir), "g%u", k);
    f->group_io.have = true;
}

/* Jobs side by side share the process, set and devices: the first job's figures are the
 * phase's, faults add up, groups are each job's own. Ranks are processes of their own: their
 * storage I/O adds up (known only when every rank's is), device and page-cache figures stay
 * per rank. */
static void test_merge(void **state)
{
    (void)state;
    struct sbio_probe_figs *p = calloc(3, sizeof(*p)), *out = calloc(1, sizeof(*out));
    assert_non_null(p);
    assert_non_null(out);
    for (unsigned k = 0; k < 2; k++)
        part(&p[k], k, true);
    memset(out, 0xff, sizeof(*out)); /* merged into from scratch, whatever it held */
    for (unsigned k = 0; k < 2; k++)
        sbio_probes_merge(out, &p[k], k, SBIO_MERGE_JOBS);
    assert_true(out->faults.minor == 3 && out->faults.major == 3);
    assert_string_equal(out->devices.name[0], "dev0");
    assert_int_equal(out->devices.ndisk, 1);
    assert_true(out->proc_io.have && out->proc_io.read_bytes == 1);
    assert_true(out->page_cache.have && out->page_cache.c1.cached == 1);
    assert_true(out->memstat.have && out->memstat.m1.file == 1);
    assert_string_equal(out->group_io.dir, "");

    for (unsigned k = 0; k < 2; k++)
        sbio_probes_merge(out, &p[k], k, SBIO_MERGE_RANKS);
    assert_true(out->faults.minor == 3);
    assert_true(out->proc_io.have && out->proc_io.read_bytes == 3);
    assert_int_equal(out->devices.ndisk, 0);
    assert_false(out->page_cache.have);
    assert_false(out->memstat.have);
    assert_string_equal(out->group_io.dir, "");
    part(&p[2], 2, false);
    for (unsigned k = 0; k < 3; k++)
        sbio_probes_merge(out, &p[k], k, SBIO_MERGE_RANKS);
    assert_false(out->proc_io.have);
    free(p);
    free(out);
}

/* A job forked into its group (a folder whose cgroup.procs is a plain file) runs on an
 * in-memory set with the null engine; its memory group's memory.stat is read as the child's
 * phase starts and ends: the figures reach the parent through the pipe with the result. */
static void test_jobproc(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    assert_int_equal(tmpdir_make(dir, sizeof(dir), "/tmp", "probe"), 0);
    put(dir, "cgroup.procs", "");
    put(dir, "memory.stat", "file 12288\nfile_dirty 8192\nfile_writeback 4096\n");
    struct sbio_fileset_file files[2];
    memset(files, 0, sizeof(files));
    struct sbio_fileset fs = {.dirfd = -1,
                              .dir = "(memory)",
                              .complete = true,
                              .nfiles = 2,
                              .files = files,
                              .block_size = 4096,
                              .seed = 1};
    for (unsigned i = 0; i < 2; i++) {
        snprintf(files[i].name, sizeof(files[i].name), "test_file.%u", i);
        files[i].size = 64 * 4096;
        fs.bytes += files[i].size;
    }
    struct sbio_memgroup mg = {.version = SBIO_CGROUP_V2, .limit = 32 << 20};
    snprintf(mg.file, sizeof(mg.file), "memory.max");
    snprintf(mg.dir, sizeof(mg.dir), "%s", dir);
    struct sbio_job job = {.name = "j",
                           .threads = 2,
                           .engine = sbio_engine_id("null"),
                           .iodepth = 1,
                           .mode = SBIO_MODE_RNDRD,
                           .block_size = 4096,
                           .block_what = "block",
                           .merged_requests = 1,
                           .events = 1000,
                           .seed = 7};
    struct sbio_runner_env env = {.fs = &fs, .memgroup = &mg};
    struct sbio_jobproc p;
    struct sbio_run_result *res = calloc(1, sizeof(*res));
    assert_non_null(res);
    int rc = -1;
    assert_int_equal(sbio_jobproc_start(&p, &job, &env, dir), 0);
    sbio_jobproc_finish(&p, "j", res, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(res->error, 0);
    assert_int_equal(res->total.events, 1000);
    const struct sbio_probe_memstat *m = &res->probe.memstat;
    assert_true(m->have);
    assert_int_equal(m->limit, 32 << 20);
    assert_string_equal(m->dir, dir);
    assert_true(m->m0.file == 12288 && m->m1.dirty == 8192 && m->m1.writeback == 4096);
    sbio_run_result_free(res);
    free(res);
    assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),   cmocka_unit_test(test_faults_alone),
        cmocka_unit_test(test_groups),  cmocka_unit_test(test_merge),
        cmocka_unit_test(test_jobproc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
