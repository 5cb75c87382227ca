/* Unit tests for a job in a process of its own (src/core/jobproc.c), with the null engine on a set
 * in memory and a folder standing in for the job's group: the child writes its pid into the
 * group's cgroup.procs, and its result reaches the parent intact (the counts a run of the same
 * job in this process gives, its threads' stats, its samples); its return code when it cannot
 * run; a child that dies without a result (a signal, an exit) said as such; a stop of the
 * parent passed on to the child. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"
#include "jobproc.h"
#include "util.h"

static struct tdir *g_dir;
static char g_procs[128];

static int group_setup(void **state)
{
    if (tdir_setup(state, "jobproc"))
        return -1;
    g_dir = *state;
    snprintf(g_procs, sizeof(g_procs), "%s/cgroup.procs", g_dir->path);
    return 0;
}

/* An empty cgroup.procs in the test's folder: the child appends its pid to it. */
static void procs_reset(void)
{
    write_file(g_procs, "");
}

static void on_signal(int sig)
{
    __atomic_store_n(&sbio_stop_signal, sig, __ATOMIC_RELAXED);
}

/* Run job in a child process entering the test's folder, as the pipeline does. */
static int run_child(const struct sbio_job *job, const struct sbio_runner_env *env,
                     const char *group, struct sbio_run_result *res, pid_t *pid)
{
    struct sbio_jobproc p;
    int rc;
    assert_int_equal(sbio_jobproc_start(&p, job, env, group), 0);
    assert_true(p.pid > 0);
    *pid = p.pid;
    sbio_jobproc_finish(&p, "child", res, &rc);
    return rc;
}

/* The same counts as the job run here (one thread: its draws are the seed's), every thread's
 * stats, and the samples recorded every millisecond of its 3 000 000 null operations. */
static void test_result_intact(void **state)
{
    (void)state;
    struct test_set set;
    test_set_init(&set, 4, 64 * 4096, -1, NULL);
    struct sbio_job job = test_job("null", SBIO_MODE_RNDRW, 1, 200003);
    struct sbio_runner_env env = {.fs = &set.fs};
    struct sbio_run_result here, there;
    assert_int_equal(sbio_runner_run(&job, &env, &here), 0);
    procs_reset();
    pid_t pid;
    memset(&there, 0xa5, sizeof(there));
    assert_int_equal(run_child(&job, &env, g_dir->path, &there, &pid), 0);
    char want[32], procs[64];
    snprintf(want, sizeof(want), "%d\n", (int)pid);
    FILE *f = fopen(g_procs, "r");
    assert_non_null(f);
    size_t n = fread(procs, 1, sizeof(procs) - 1, f);
    procs[n] = 0;
    fclose(f);
    assert_string_equal(procs, want);

    assert_int_equal(there.error, 0);
    assert_true(there.measured);
    assert_int_equal(there.threads, 1);
    assert_int_equal(there.seed, 7);
    for (int op = 0; op < SBIO_OP_NR; op++) {
        assert_int_equal(there.total.lat[op].count, here.total.lat[op].count);
        assert_int_equal(there.total.bytes[op], here.total.bytes[op]);
    }
    assert_int_equal(there.total.events, 200003);
    assert_int_equal(there.per_thread[0].events, 200003);
    assert_int_equal(there.per_thread[0].lat[SBIO_READ].count,
                     here.per_thread[0].lat[SBIO_READ].count);
    assert_hist_equal(&there.per_thread[0].lat[SBIO_WRITE], &there.total.lat[SBIO_WRITE]);
    assert_null(there.ranks);
    assert_null(there.samples);
    assert_int_equal(there.nsamples, 0);
    sbio_run_result_free(&here);
    sbio_run_result_free(&there);

    /* Three threads and samples: the threads' events sum to the budget, the samples' reads
     * to no more than the run's, every sample after the one before. */
    job = test_job("null", SBIO_MODE_RNDRD, 3, 3000000);
    const struct sbio_interim log = {.log_ns = 1000000};
    env.interim = &log;
    procs_reset();
    assert_int_equal(run_child(&job, &env, g_dir->path, &there, &pid), 0);
    assert_int_equal(there.threads, 3);
    uint64_t events = 0, reads = 0;
    for (unsigned t = 0; t < 3; t++)
        events += there.per_thread[t].events;
    assert_int_equal(events, 3000000);
    assert_true(there.nsamples > 0);
    assert_true(there.samples_cap >= there.nsamples);
    for (size_t i = 0; i < there.nsamples; i++) {
        reads += there.samples[i].ops[SBIO_READ];
        assert_true(there.samples[i].dur_s > 0);
        assert_true(i == 0 || there.samples[i].t_s > there.samples[i - 1].t_s);
    }
    assert_true(reads > 0 && reads <= 3000000);
    sbio_run_result_free(&there);
}

/* What the child's run returned comes back as *rc: its group missing (said by the child),
 * input that cannot run. */
static void test_child_rc(void **state)
{
    (void)state;
    struct test_set set;
    test_set_init(&set, 2, 64 * 4096, -1, NULL);
    struct sbio_job job = test_job("null", SBIO_MODE_RNDRD, 2, 1000);
    job.name = "reader";
    struct sbio_runner_env env = {.fs = &set.fs};
    struct sbio_run_result res;
    char group[160], err[MSG_MAX], want[256];
    snprintf(group, sizeof(group), "%s/missing", g_dir->path);
    pid_t pid;
    struct capture c;
    cap_begin(&c);
    int rc = run_child(&job, &env, group, &res, &pid);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -ENOENT);
    snprintf(want, sizeof(want),
             "sbio: job reader: entering its group %s: No such file or directory\n", group);
    assert_string_equal(err, want);

    job.block_size = 1024 * 1024; /* larger than the files */
    procs_reset();
    cap_begin(&c);
    rc = run_child(&job, &env, g_dir->path, &res, &pid);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "--file-block-size=1 MiB is larger than the files");
}

/* The child's ready hook ends it before it sends anything. */
static int die_by_signal(void *ctx)
{
    (void)ctx;
    raise(SIGKILL);
    return 0;
}
static int die_by_exit(void *ctx)
{
    (void)ctx;
    _exit(3);
}

/* A child that died without its result: *rc 0 and a result that failed before measuring,
 * saying how it died. */
static void test_child_died(void **state)
{
    (void)state;
    struct test_set set;
    test_set_init(&set, 2, 64 * 4096, -1, NULL);
    struct sbio_job job = test_job("null", SBIO_MODE_RNDRD, 1, 1000);
    struct sbio_interim in = {.ready = die_by_signal};
    struct sbio_runner_env env = {.fs = &set.fs, .interim = &in};
    struct sbio_run_result res;
    char want[160];
    pid_t pid;
    procs_reset();
    assert_int_equal(run_child(&job, &env, g_dir->path, &res, &pid), 0);
    assert_int_equal(res.error, -ECHILD);
    assert_false(res.measured);
    assert_null(res.per_thread);
    snprintf(want, sizeof(want), "job child: its process (pid %d) was killed by signal 9 (Killed)",
             (int)pid);
    assert_string_equal(res.error_msg, want);

    in.ready = die_by_exit;
    procs_reset();
    assert_int_equal(run_child(&job, &env, g_dir->path, &res, &pid), 0);
    assert_int_equal(res.error, -ECHILD);
    snprintf(want, sizeof(want),
             "job child: its process (pid %d) exited with status 3 before sending its result",
             (int)pid);
    assert_string_equal(res.error_msg, want);
}

/* The child of test_stop_passed, killed if it is still running after 60 s: a stop that did
 * not reach it fails the test instead of hanging it. */
static volatile pid_t g_endless;
static void on_alarm(int sig)
{
    (void)sig;
    kill(g_endless, SIGKILL);
}

/* A stop asked of this process reaches the child, whose run without limits then ends and
 * says so. */
static void test_stop_passed(void **state)
{
    (void)state;
    struct sigaction sa = {.sa_handler = on_signal}, old;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGTERM, &sa, &old), 0);
    struct test_set set;
    test_set_init(&set, 2, 64 * 4096, -1, NULL);
    struct sbio_job job = test_job("null", SBIO_MODE_RNDRD, 2, 0);
    struct sbio_runner_env env = {.fs = &set.fs};
    struct sbio_run_result res;
    struct sbio_jobproc p;
    int rc = 1;
    procs_reset();
    struct sigaction al = {.sa_handler = on_alarm}, old_al;
    sigemptyset(&al.sa_mask);
    assert_int_equal(sigaction(SIGALRM, &al, &old_al), 0);
    assert_int_equal(sbio_jobproc_start(&p, &job, &env, g_dir->path), 0);
    g_endless = p.pid;
    alarm(60);
    __atomic_store_n(&sbio_stop_signal, SIGTERM, __ATOMIC_RELAXED);
    sbio_jobproc_finish(&p, "endless", &res, &rc);
    __atomic_store_n(&sbio_stop_signal, 0, __ATOMIC_RELAXED);
    alarm(0);
    sigaction(SIGALRM, &old_al, NULL);
    sigaction(SIGTERM, &old, NULL);
    if (res.error)
        fail_msg("%s", res.error_msg);
    assert_int_equal(rc, 0);
    assert_int_equal(res.error, 0);
    assert_int_equal(res.stop_signal, SIGTERM);
    assert_int_equal(res.threads, 2);
    sbio_run_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_intact),
        cmocka_unit_test(test_child_rc),
        cmocka_unit_test(test_child_died),
        cmocka_unit_test(test_stop_passed),
    };
    return cmocka_run_group_tests(tests, group_setup, tdir_teardown);
}
