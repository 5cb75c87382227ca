/* Unit tests for the pipeline (src/control/pipeline.c): the one pipeline a plain run and a script's
 * phases go through, on a real file set in a temporary folder with the null engine (no I/O,
 * no root, no device settings). A plain run's event budget and seed reach the result; a run
 * that cannot start is refused with the usage code and no document; a script's phase splits
 * its events exactly between its jobs, its total merges them, and a phase the set refuses is
 * reported as refused while the script goes on; what a run would refuse is found by a check
 * that changes nothing. The script is built by hand (decl.h), so no
 * Lua runs here. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decl_check.h"
#include "engine.h"
#include "fileset.h"
#include "helpers.h"
#include "options.h"
#include "prepare.h"
#include "report.h"
#include "script.h"
#include "pipeline.h"
#include "sysblock.h"
#include "topology.h"
#include "util.h"

static char g_dir[PATH_MAX];
static char g_set[PATH_MAX + 16];

/* A set of 2 files of 1 MiB, prepared once for the group. */
static int group_setup(void **state)
{
    (void)state;
    if (tmpdir_make(g_dir, sizeof(g_dir), "/tmp", "pipeline"))
        return -1;
    snprintf(g_set, sizeof(g_set), "--dir=%s", g_dir);
    struct sbio_config cfg;
    char err[MSG_MAX];
    if (parse_args(&cfg, ARGV("prepare", g_set, "--file-num=2", "--file-total-size=2M"), err,
                   sizeof(err)) ||
        sbio_options_validate(&cfg, 1))
        return -1;
    FILE *quiet = fopen("/dev/null", "w");
    int rc = quiet ? sbio_fileset_prepare(TS(&cfg), NULL, quiet) : -1;
    if (quiet)
        fclose(quiet);
    return rc;
}

static int group_teardown(void **state)
{
    (void)state;
    return tmpdir_remove(g_dir);
}

static int64_t doc_int(json_t *doc, const char *path)
{
    json_t *v = sbio_json_get(doc, path);
    if (!json_is_integer(v))
        fail_msg("%s: not an integer in the document", path);
    return (int64_t)json_integer_value(v);
}

/* Run cfg as `sbio run` does alone; the text report into text (MSG_MAX), stderr into err. */
static int run_plain(struct sbio_config *cfg, char *text, char *err, json_t **doc)
{
    const struct sbio_topology alone = SBIO_TOPOLOGY_ALONE;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    struct capture c;
    cap_begin(&c);
    static struct sbio_script decl;
    const struct sbio_settings *set = TS(cfg);
    sbio_options_declare(set, cfg, &decl);
    int rc = sbio_pipeline_run(set, &decl, &alone, out, out, doc);
    cap_end(&c, err, MSG_MAX);
    fclose(out);
    snprintf(text, MSG_MAX, "%s", buf ? buf : "");
    free(buf);
    return rc;
}

static void test_plain_run(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX], text[MSG_MAX];
    assert_int_equal(parse_args(&cfg,
                                ARGV("run", g_set, "--file-num=2", "--file-total-size=2M",
                                     "--file-test-mode=rndrw", "--ioengine=null", "--threads=3",
                                     "--events=1001", "--time=0", "--rand-seed=5"),
                                err, sizeof(err)),
                     0);
    assert_int_equal(sbio_options_validate(&cfg, 1), 0);
    json_t *doc = NULL;
    assert_int_equal(run_plain(&cfg, text, err, &doc), 0);
    assert_non_null(doc);
    assert_int_equal(doc_int(doc, "result.events"), 1001);
    assert_int_equal(json_array_size(sbio_json_get(doc, "result.threads")), 3);
    assert_string_equal(json_string_value(sbio_json_get(doc, "config.rand_seed")), "5");
    assert_non_null(sbio_json_get(doc, "environment.filesystem"));
    assert_has(text, "Random seed: 5 (repeat with --rand-seed=5)");
    assert_has(text, "total number of events:              1001\n");
    assert_has(text, "File system: ");
    json_decref(doc);
}

/* A block larger than the files: refused before any thread starts, no document. */
static void test_plain_refused(void **state)
{
    (void)state;
    struct sbio_config cfg;
    char err[MSG_MAX], text[MSG_MAX];
    assert_int_equal(parse_args(&cfg,
                                ARGV("run", g_set, "--file-num=2", "--file-total-size=2M",
                                     "--file-test-mode=rndrd", "--ioengine=null",
                                     "--file-block-size=4M", "--events=10"),
                                err, sizeof(err)),
                     0);
    assert_int_equal(sbio_options_validate(&cfg, 1), 0);
    json_t *doc = NULL;
    assert_int_equal(run_plain(&cfg, text, err, &doc), -SBIO_EUSAGE);
    assert_null(doc);
    assert_has(err, "--file-block-size=4 MiB is larger than the files");
    /* Checked before the header: nothing but the error. */
    assert_int_equal(text[0], 0);
}

static void job_set(struct sbio_script_job *j, const char *name, unsigned threads, uint64_t block)
{
    memset(j, 0, sizeof(*j));
    snprintf(j->name, sizeof(j->name), "%s", name);
    j->threads = threads;
    j->engine = sbio_engine_id("null");
    j->iodepth = 1;
    j->nblocks = 1;
    j->block[0] = block;
    j->block_weight[0] = 1;
    j->mode = SBIO_MODE_NONE;
    j->weight[SBIO_MIX_READ] = 3;
    j->weight[SBIO_MIX_WRITE] = 1;
}

/* Phase "mixed": a mix on 1 thread beside sysbench's rndrw on 2, 1001 events between them;
 * phase "too-big": a block larger than the files. */
static void script_two_phases(struct sbio_script *s)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->path, sizeof(s->path), "hand-built.lua");
    s->nphases = 2;
    struct sbio_script_phase *p = &s->phases[0];
    snprintf(p->name, sizeof(p->name), "mixed");
    p->events = 1001;
    p->njobs = 2;
    job_set(&p->jobs[0], "mix", 1, 4096);
    job_set(&p->jobs[1], "rndrw", 2, 16384);
    p->jobs[1].mode = SBIO_MODE_RNDRW;
    p->jobs[1].rw_ratio = 1.5;
    p = &s->phases[1];
    snprintf(p->name, sizeof(p->name), "too-big");
    p->events = 10;
    p->njobs = 1;
    job_set(&p->jobs[0], "huge", 1, 8 << 20);
}

static void test_script_phases(void **state)
{
    (void)state;
    static struct sbio_script s;
    script_two_phases(&s);
    struct sbio_config cfg;
    char err[MSG_MAX];
    assert_int_equal(
        parse_args(&cfg,
                   ARGV("run", g_set, "--file-num=2", "--file-total-size=2M", "--rand-seed=9"), err,
                   sizeof(err)),
        0);
    const struct sbio_topology alone = SBIO_TOPOLOGY_ALONE;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    json_t *doc = NULL;
    struct capture c;
    cap_begin(&c);
    int rc = sbio_pipeline_run(TS(&cfg), &s, &alone, out, out, &doc);
    cap_end(&c, err, sizeof(err));
    fclose(out);
    /* A refused phase makes the script's status a refusal, though the others ran. */
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_non_null(doc);
    /* 1001 events over 3 threads: the 1-thread job floor(1001 / 3), the other the rest. */
    assert_int_equal(doc_int(doc, "phases.0.jobs.0.result.result.events"), 333);
    assert_int_equal(doc_int(doc, "phases.0.jobs.1.result.result.events"), 668);
    assert_int_equal(doc_int(doc, "phases.0.total.result.events"), 1001);
    assert_int_equal(json_array_size(sbio_json_get(doc, "phases.0.total.result.threads")), 3);
    assert_string_equal(json_string_value(sbio_json_get(doc, "phases.0.jobs.0.declared.kind")),
                        "mix");
    assert_string_equal(json_string_value(sbio_json_get(doc, "phases.0.jobs.1.declared.kind")),
                        "mode");
    /* The mix's ops are whole 4 KiB blocks; rndrw's 16 KiB. */
    int64_t mix_ops = doc_int(doc, "phases.0.jobs.0.result.result.ops");
    int64_t mix_bytes = doc_int(doc, "phases.0.jobs.0.result.result.op_types.read.bytes") +
                        doc_int(doc, "phases.0.jobs.0.result.result.op_types.write.bytes");
    assert_int_equal(mix_bytes, mix_ops * 4096);
    assert_true(json_is_true(sbio_json_get(doc, "phases.1.refused")));
    assert_has(buf, "Phase too-big refused (see the message above); going on");
    assert_has(buf, "--- Phase mixed, all jobs ---");
    assert_has(err, "phase \"too-big\", job \"huge\": block=8 MiB is larger than the files");
    free(buf);
    json_decref(doc);
}

/* Under MPI ranks each job's share of the phase's events and its rate are split again: a
 * share below one per rank is refused, naming the phase and the job; so is seqwr on a
 * shared set. */
static void test_script_ranks(void **state)
{
    (void)state;
    static struct sbio_script s;
    script_two_phases(&s);
    struct sbio_config cfg;
    char err[MSG_MAX];
    assert_int_equal(parse_args(&cfg, ARGV("run", g_set, "--rand-seed=9"), err, sizeof(err)), 0);
    struct capture c;
    /* 1001 events: 333 and 668, enough for 333 ranks, not 334; 10 for the second phase. */
    assert_int_equal(sbio_decl_check(TS(&cfg), &s, 1), 0);
    assert_int_equal(sbio_decl_check(TS(&cfg), &s, 10), 0);
    s.phases[1].events = 0;
    assert_int_equal(sbio_decl_check(TS(&cfg), &s, 333), 0);
    cap_begin(&c);
    assert_int_equal(sbio_decl_check(TS(&cfg), &s, 334), -SBIO_EUSAGE);
    cap_end(&c, err, sizeof(err));
    assert_has(err, "phase \"mixed\", job \"mix\": its share of the phase's events, 333 over 334 "
                    "ranks leaves some ranks none; accepted: at least 334 (one per rank)");
    s.phases[0].events = 0;
    s.phases[0].jobs[1].rate = 2;
    cap_begin(&c);
    assert_int_equal(sbio_decl_check(TS(&cfg), &s, 3), -SBIO_EUSAGE);
    cap_end(&c, err, sizeof(err));
    assert_has(err, "job \"rndrw\": a rate of 2 ops/s over 3 ranks leaves some ranks none");
    s.phases[0].jobs[1].rate = 0;
    s.phases[0].jobs[1].mode = SBIO_MODE_SEQWR;
    cap_begin(&c);
    assert_int_equal(sbio_decl_check(TS(&cfg), &s, 2), -SBIO_EUSAGE);
    cap_end(&c, err, sizeof(err));
    assert_has(err, "job \"rndrw\": seqwr on a set shared by 2 ranks");
    cfg.file_per_rank = true;
    assert_int_equal(sbio_decl_check(TS(&cfg), &s, 2), 0);
}

/* A fake cgroup v2 root (SBIO_CGROUP_ROOT) offering controllers ctrls, and a state folder,
 * under g_dir; root gets the root's path. */
static void fake_cgroup_root(char *root, size_t len, const char *ctrls)
{
    char p[PATH_MAX * 2];
    snprintf(root, len, "%s/cg", g_dir);
    assert_true(!mkdir(root, 0755) || errno == EEXIST);
    snprintf(p, sizeof(p), "%s/cgroup.controllers", root);
    write_file(p, ctrls);
    snprintf(p, sizeof(p), "%s/cgroup.subtree_control", root);
    write_file(p, "");
    snprintf(p, sizeof(p), "%s/cgroup.procs", root);
    write_file(p, "");
    setenv("SBIO_CGROUP_ROOT", root, 1);
    snprintf(p, sizeof(p), "%s/state", g_dir);
    setenv("SBIO_STATE_DIR", p, 1);
}

static void fake_cgroup_done(void)
{
    unsetenv("SBIO_CGROUP_ROOT");
    unsetenv("SBIO_STATE_DIR");
}

/* --memory-limit on a fake v2 root: the header and the document name the limit and the
 * group, the group's memory.stat is read at the start and end of the measured phase, and
 * afterwards the process is back in the root, the group gone, memory disabled again. */
static void test_memory_limit(void **state)
{
    (void)state;
    char root[PATH_MAX + 16], top[PATH_MAX * 2], p[PATH_MAX * 3], buf[256];
    fake_cgroup_root(root, sizeof(root), "cpu io memory\n");
    /* sbio.PID made beforehand, with the memory.stat the kernel would give it. */
    snprintf(top, sizeof(top), "%s/sbio.%d", root, (int)getpid());
    assert_int_equal(mkdir(top, 0755), 0);
    snprintf(p, sizeof(p), "%s/memory.stat", top);
    write_file(p, "anon 0\nfile 1048576\nfile_dirty 4096\nfile_writeback 0\n");
    struct sbio_config cfg;
    char err[MSG_MAX], text[MSG_MAX];
    assert_int_equal(parse_args(&cfg,
                                ARGV("run", g_set, "--file-num=2", "--file-total-size=2M",
                                     "--file-test-mode=rndrd", "--ioengine=null", "--events=100",
                                     "--time=0", "--memory-limit=64M"),
                                err, sizeof(err)),
                     0);
    assert_int_equal(sbio_options_validate(&cfg, 1), 0);
    json_t *doc = NULL;
    assert_int_equal(run_plain(&cfg, text, err, &doc), 0);
    assert_non_null(doc);
    snprintf(p, sizeof(p), "Memory limit: 64 MiB (cgroup v2 memory.max, %s)\n", top);
    assert_has(text, p);
    assert_has(text, "stay charged outside the group");
    assert_has(text, "Page cache of the memory group (limit 64 MiB): at start 1 MiB, 4 KiB dirty; "
                     "at end 1 MiB, 4 KiB dirty, 0 B under writeback");
    assert_int_equal(doc_int(doc, "config.memory_limit_bytes"), 64 << 20);
    assert_int_equal(doc_int(doc, "result.memory_group.limit_bytes"), 64 << 20);
    assert_int_equal(doc_int(doc, "result.memory_group.start.file_bytes"), 1 << 20);
    assert_int_equal(doc_int(doc, "result.memory_group.end.dirty_bytes"), 4096);
    assert_string_equal(json_string_value(sbio_json_get(doc, "result.memory_group.cgroup")), "v2");
    assert_string_equal(json_string_value(sbio_json_get(doc, "result.memory_group.limit_file")),
                        "memory.max");
    assert_string_equal(json_string_value(sbio_json_get(doc, "result.memory_group.group")), top);
    json_decref(doc);
    assert_int_equal(access(top, F_OK), -1);
    snprintf(p, sizeof(p), "%s/cgroup.procs", root);
    assert_int_equal(sbio_sysblock_read_file(p, buf, sizeof(buf)), 0);
    char pid[32];
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    assert_string_equal(buf, pid);
    snprintf(p, sizeof(p), "%s/cgroup.subtree_control", root);
    assert_int_equal(sbio_sysblock_read_file(p, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "-memory");
    snprintf(p, sizeof(p), "%s/state/sbio.%d.cgroups", g_dir, (int)getpid());
    assert_int_equal(access(p, F_OK), -1);
    fake_cgroup_done();
}

/* Without a memory controller: refused before anything is made, one line naming it. */
static void test_memory_limit_missing(void **state)
{
    (void)state;
    char root[PATH_MAX + 16], p[PATH_MAX * 2];
    fake_cgroup_root(root, sizeof(root), "cpu io\n");
    struct sbio_config cfg;
    char err[MSG_MAX], text[MSG_MAX];
    assert_int_equal(parse_args(&cfg,
                                ARGV("run", g_set, "--file-num=2", "--file-total-size=2M",
                                     "--file-test-mode=rndrd", "--ioengine=null", "--events=10",
                                     "--memory-limit=1G"),
                                err, sizeof(err)),
                     0);
    assert_int_equal(sbio_options_validate(&cfg, 1), 0);
    json_t *doc = NULL;
    assert_int_equal(run_plain(&cfg, text, err, &doc), -SBIO_EUSAGE);
    assert_null(doc);
    assert_has(err, "--memory-limit: this kernel offers no memory controller");
    assert_non_null(strchr(err, '\n'));
    assert_null(strchr(strchr(err, '\n') + 1, '\n')); /* one line */
    assert_int_equal(text[0], 0);
    snprintf(p, sizeof(p), "%s/sbio.%d", root, (int)getpid());
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof(p), "%s/state/sbio.%d.cgroups", g_dir, (int)getpid());
    assert_int_equal(access(p, F_OK), -1);
    fake_cgroup_done();
}

/* The checks that change nothing, with what they say: a folder that is not there, a queue
 * device that is none; alone, the agreement is this process's own status; without a
 * scheduler or queue setting nothing is tried. */
static void test_checks(void **state)
{
    (void)state;
    static const struct {
        char *opt;
        int want;
        const char *says;
    } cases[] = {
        {NULL, 0, ""},
        {(char *)"--dir=/nonexistent/sbio-x", -SBIO_EUSAGE,
         "--dir /nonexistent/sbio-x: No such file or directory; create the folder first"},
        {(char *)"--queue-device=/dev/sbio-no-such", -SBIO_EUSAGE,
         "--queue-device=/dev/sbio-no-such: no such block device"},
    };
    const struct sbio_topology alone = SBIO_TOPOLOGY_ALONE;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sbio_config cfg;
        char err[MSG_MAX];
        int prc = cases[i].opt && !strncmp(cases[i].opt, "--dir", 5)
                      ? parse_args(&cfg, ARGV("run", cases[i].opt, "--file-test-mode=rndrd"), err,
                                   sizeof(err))
                      : parse_args(&cfg,
                                   ARGV("run", g_set, "--file-test-mode=rndrd",
                                        cases[i].opt ? cases[i].opt : (char *)"--threads=1"),
                                   err, sizeof(err));
        assert_int_equal(prc, 0);
        struct capture c;
        cap_begin(&c);
        int rc = sbio_pipeline_check(TS(&cfg));
        cap_end(&c, err, sizeof(err));
        assert_int_equal(rc, cases[i].want);
        if (cases[i].says[0])
            assert_has(err, cases[i].says);
        else
            assert_string_equal(err, ""); /* nothing said when nothing is wrong */
        /* Nothing to try: no kernel setting asked for. */
        assert_int_equal(sbio_pipeline_try_settings(TS(&cfg), &alone), 0);
    }
    assert_int_equal(sbio_pipeline_agree(&alone, 0, "x"), 0);
    assert_int_equal(sbio_pipeline_agree(&alone, -SBIO_EUSAGE, "x"), -SBIO_EUSAGE);
    assert_int_equal(sbio_pipeline_agree(&alone, -EINTR, "x"), -EINTR);
}

/* --verify under a script whose phase runs a sequential and a random job side by side: their
 * blocks would not be disjoint, refused by the script's checks before anything runs. */
static void test_check_script_verify(void **state)
{
    (void)state;
    struct sbio_script *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    snprintf(s->path, sizeof(s->path), "mixed.lua");
    s->nphases = 1;
    struct sbio_script_phase *p = &s->phases[0];
    snprintf(p->name, sizeof(p->name), "p");
    p->events = 100;
    p->njobs = 2;
    job_set(&p->jobs[0], "seq", 1, 4096);
    p->jobs[0].mode = SBIO_MODE_SEQRD;
    job_set(&p->jobs[1], "rnd", 1, 4096);
    p->jobs[1].mode = SBIO_MODE_RNDRD;
    struct sbio_config cfg;
    char err[MSG_MAX];
    assert_int_equal(parse_args(&cfg, ARGV("run", g_set, "--ioengine=null"), err, sizeof(err)), 0);
    assert_int_equal(sbio_pipeline_check_script(TS(&cfg), s), 0);
    assert_int_equal(
        parse_args(&cfg, ARGV("run", g_set, "--ioengine=null", "--verify"), err, sizeof(err)), 0);
    struct capture c;
    cap_begin(&c);
    int rc = sbio_pipeline_check_script(TS(&cfg), s);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "--verify");
    free(s);
}

/* --invalidate holds for a script's run: the set's files are written back and their pages
 * dropped before the first phase, and the header says so; without it nothing is said. */
static void test_script_invalidate(void **state)
{
    (void)state;
    static struct sbio_script s;
    script_two_phases(&s);
    s.nphases = 1; /* the phase that runs */
    const struct sbio_topology alone = SBIO_TOPOLOGY_ALONE;
    for (int inval = 0; inval < 2; inval++) {
        struct sbio_config cfg;
        char err[MSG_MAX];
        assert_int_equal(parse_args(&cfg,
                                    ARGV("run", g_set, inval ? "--invalidate" : "--invalidate=off"),
                                    err, sizeof(err)),
                         0);
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        assert_non_null(out);
        struct capture c;
        cap_begin(&c);
        int rc = sbio_pipeline_run(TS(&cfg), &s, &alone, out, out, NULL);
        cap_end(&c, err, sizeof(err));
        fclose(out);
        assert_int_equal(rc, 0);
        if (inval)
            assert_has(buf, "Page cache: the set's pages dropped before the first phase "
                            "(--invalidate, 2 files)\n");
        else
            assert_lacks(buf, "Page cache: the set's pages dropped");
        free(buf);
    }
}

/* What a run would refuse, found without changing anything: a plain run's job against the set
 * (a block larger than the files), a folder without a set (but seqwr's, which the run makes:
 * nothing is made by the check), a script's declared set of another shape. A script's phase
 * the set refuses is one the script goes on without: not a refusal of its run. */
static void test_check_run(void **state)
{
    (void)state;
    const struct sbio_topology alone = SBIO_TOPOLOGY_ALONE;
    char dir[PATH_MAX], opt[PATH_MAX + 16], err[MSG_MAX];
    assert_int_equal(tmpdir_make(dir, sizeof(dir), "/tmp", "pipeline-check"), 0);
    snprintf(opt, sizeof(opt), "--dir=%s", dir);
    static const struct {
        bool empty; /* in a folder without a set */
        char *mode, *block;
        int want;
        const char *says;
    } cases[] = {
        {false, "--file-test-mode=rndrd", "--file-block-size=16K", 0, ""},
        {false, "--file-test-mode=rndrd", "--file-block-size=4M", -SBIO_EUSAGE,
         "--file-block-size=4 MiB is larger than the files (1 MiB)"},
        {true, "--file-test-mode=rndrd", "--file-block-size=16K", -SBIO_EUSAGE, "no file set in "},
        {true, "--file-test-mode=seqwr", "--file-block-size=16K", 0, ""},
    };
    static struct sbio_script decl;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sbio_config cfg;
        assert_int_equal(parse_args(&cfg,
                                    ARGV("run", cases[i].empty ? opt : g_set, "--file-num=2",
                                         "--file-total-size=2M", "--ioengine=null", cases[i].mode,
                                         cases[i].block, "--events=10"),
                                    err, sizeof(err)),
                         0);
        assert_int_equal(sbio_options_validate(&cfg, 1), 0);
        const struct sbio_settings *set = TS(&cfg);
        sbio_options_declare(set, &cfg, &decl);
        struct capture c;
        cap_begin(&c);
        int rc = sbio_pipeline_check_run(set, &decl, &alone);
        cap_end(&c, err, sizeof(err));
        assert_int_equal(rc, cases[i].want);
        if (cases[i].says[0])
            assert_has(err, cases[i].says);
        else
            assert_string_equal(err, "");
    }
    /* The seqwr check made nothing: the folder is still empty. */
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof(path), "%s/sbio.manifest", dir);
    assert_int_equal(stat(path, &st), -1);
    snprintf(path, sizeof(path), "%s/test_file.0", dir);
    assert_int_equal(stat(path, &st), -1);
    assert_int_equal(tmpdir_remove(dir), 0);

    /* A script: its too-big phase is no refusal; a declared set of 3 files is. */
    struct sbio_script *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    script_two_phases(s);
    struct sbio_config cfg;
    assert_int_equal(parse_args(&cfg, ARGV("run", g_set, "--ioengine=null"), err, sizeof(err)), 0);
    struct sbio_settings set = *TS(&cfg);
    struct capture c;
    cap_begin(&c);
    int rc = sbio_pipeline_check_run(&set, s, &alone);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    uint64_t sizes[3] = {1 << 20, 1 << 20, 1 << 20};
    set.nfile_sizes = 3;
    set.file_sizes = sizes;
    cap_begin(&c);
    rc = sbio_pipeline_check_run(&set, s, &alone);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "hand-built.lua declares 3 files, 3 MiB, but the set in ");
    free(s);
}

/* seqwr on an empty folder makes the set; a run that ends before the set is whole writes the
 * rest outside its measured time (the null engine writes nothing itself), so the set left is
 * complete, every file at its size. */
static void test_seqwr_creates(void **state)
{
    (void)state;
    char dir[PATH_MAX], opt[PATH_MAX + 16], path[PATH_MAX + 32];
    assert_int_equal(tmpdir_make(dir, sizeof(dir), "/tmp", "pipeline-seqwr"), 0);
    snprintf(opt, sizeof(opt), "--dir=%s", dir);
    struct sbio_config cfg;
    char err[MSG_MAX], text[MSG_MAX];
    assert_int_equal(
        parse_args(&cfg,
                   ARGV("run", opt, "--file-num=2", "--file-total-size=4M",
                        "--file-test-mode=seqwr", "--ioengine=null", "--events=10", "--time=0"),
                   err, sizeof(err)),
        0);
    assert_int_equal(sbio_options_validate(&cfg, 1), 0);
    json_t *doc = NULL;
    assert_int_equal(run_plain(&cfg, text, err, &doc), 0);
    json_decref(doc);
    assert_has(text, "No file set in ");
    assert_has(text, "seqwr: the run ended before the set was whole again");
    for (int f = 0; f < 2; f++) {
        struct stat st;
        snprintf(path, sizeof(path), "%s/test_file.%d", dir, f);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 2 << 20);
        assert_true(st.st_blocks * 512 >= 2 << 20); /* written, not a hole */
    }
    snprintf(path, sizeof(path), "%s/sbio.manifest", dir);
    FILE *m = fopen(path, "r");
    assert_non_null(m);
    char line[256];
    bool complete = false;
    while (fgets(line, sizeof(line), m))
        complete |= !strcmp(line, "state=complete\n");
    fclose(m);
    assert_true(complete);
    assert_int_equal(tmpdir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_run),
        cmocka_unit_test(test_plain_refused),
        cmocka_unit_test(test_script_phases),
        cmocka_unit_test(test_script_ranks),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_memory_limit_missing),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_check_script_verify),
        cmocka_unit_test(test_seqwr_creates),
        cmocka_unit_test(test_check_run),
        cmocka_unit_test(test_script_invalidate),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
