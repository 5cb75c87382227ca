/* Unit tests for a process's jobs meeting as one (src/control/meet.c): jobs on threads and in a
 * forked process, an upstream that records what it was asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "meet.h"
#include "util.h"

/* The upstream: the statuses it was given, meeting by meeting; it fails meeting fail_at
 * (1-based, 0: never) with -EIO, and reports another process stopped when asked to. */
struct up {
    int got[8];
    unsigned calls, fail_at;
    int stopped;
};

static int up_agree(void *ctx, int rc)
{
    struct up *u = ctx;
    u->got[u->calls++ % 8] = rc;
    return u->calls == u->fail_at ? -EIO : rc;
}

static bool up_stopped(void *ctx)
{
    return __atomic_load_n(&((struct up *)ctx)->stopped, __ATOMIC_RELAXED) != 0;
}

/* A job as a runner meets: its statuses at each meeting until one fails, then leave. */
struct job {
    const struct sbio_runner_sync *sync;
    int rcs[4];
    unsigned meetings;
    int results[4];
    unsigned held;       /* meetings it attended */
    bool wait_stop;      /* it waits for stopped() before its first meeting (10 s at most) */
    bool saw_stop_first; /* stopped() was true before its first meeting */
};

static void *job_main(void *arg)
{
    struct job *j = arg;
    for (unsigned i = 0; i < j->meetings; i++) {
        /* As long as a loaded machine may take to run the thread that stops it. */
        if (i == 0 && j->wait_stop)
            for (int t = 0; t < 10000 && !j->sync->stopped(j->sync->ctx); t++)
                usleep(1000);
        if (i == 0)
            j->saw_stop_first = j->sync->stopped(j->sync->ctx);
        j->results[i] = j->sync->agree(j->sync->ctx, j->rcs[i]);
        j->held++;
        if (j->results[i])
            break;
    }
    j->sync->leave(j->sync->ctx);
    return NULL;
}

static void run_jobs(struct sbio_meet *m, struct job *jobs, unsigned n)
{
    pthread_t tid[8];
    for (unsigned k = 0; k < n; k++) {
        jobs[k].sync = sbio_meet_sync(m, k);
        assert_int_equal(pthread_create(&tid[k], NULL, job_main, &jobs[k]), 0);
    }
    sbio_meet_serve(m);
    for (unsigned k = 0; k < n; k++)
        pthread_join(tid[k], NULL);
}

static void test_meetings_once_each(void **state)
{
    (void)state;
    struct up u = {0};
    struct sbio_runner_sync up = {.ctx = &u, .agree = up_agree, .stopped = up_stopped};
    struct sbio_meet *m = sbio_meet_new(3, &up);
    assert_non_null(m);
    struct job jobs[3] = {{.meetings = 4}, {.meetings = 4}, {.meetings = 4}};
    run_jobs(m, jobs, 3);
    /* Three jobs, four meetings each: the upstream met four times, all fine. */
    assert_int_equal(u.calls, 4);
    for (unsigned k = 0; k < 3; k++) {
        assert_int_equal(jobs[k].held, 4);
        assert_int_equal(jobs[k].results[3], 0);
    }
    sbio_meet_free(m);
}

static void test_failure_stops_siblings(void **state)
{
    (void)state;
    struct up u = {0};
    struct sbio_runner_sync up = {.ctx = &u, .agree = up_agree, .stopped = up_stopped};
    struct sbio_meet *m = sbio_meet_new(2, &up);
    /* Job 1 fails at the first meeting; job 0 sees stopped() before it gets there. */
    struct job jobs[2] = {{.meetings = 4, .wait_stop = true}, {.meetings = 4, .rcs = {-EIO}}};
    run_jobs(m, jobs, 2);
    assert_int_equal(u.calls, 1);
    assert_int_equal(u.got[0], -EIO);
    assert_true(jobs[0].saw_stop_first);
    assert_int_equal(jobs[0].held, 1);
    assert_int_equal(jobs[0].results[0], -EIO);
    sbio_meet_free(m);
}

static void test_worst_status_goes_up(void **state)
{
    (void)state;
    struct up u = {0};
    struct sbio_runner_sync up = {.ctx = &u, .agree = up_agree, .stopped = up_stopped};
    struct sbio_meet *m = sbio_meet_new(3, &up);
    /* An interruption, a failure and a refusal: the refusal is the worst (mpi.h). */
    struct job jobs[3] = {{.meetings = 1, .rcs = {-EINTR}},
                          {.meetings = 1, .rcs = {-EIO}},
                          {.meetings = 1, .rcs = {-SBIO_EUSAGE}}};
    run_jobs(m, jobs, 3);
    assert_int_equal(u.calls, 1);
    assert_int_equal(u.got[0], -SBIO_EUSAGE);
    sbio_meet_free(m);
}

static void test_upstream_failure_and_stop(void **state)
{
    (void)state;
    /* Another process fails the second meeting: nobody meets a third time. */
    struct up u = {.fail_at = 2};
    struct sbio_runner_sync up = {.ctx = &u, .agree = up_agree, .stopped = up_stopped};
    struct sbio_meet *m = sbio_meet_new(2, &up);
    struct job jobs[2] = {{.meetings = 4}, {.meetings = 4}};
    run_jobs(m, jobs, 2);
    assert_int_equal(u.calls, 2);
    assert_int_equal(jobs[0].held, 2);
    assert_int_equal(jobs[1].results[1], -EIO);
    sbio_meet_free(m);
    /* Another process stopped: every job's stopped() turns true. */
    struct up v = {.stopped = 1};
    up.ctx = &v;
    m = sbio_meet_new(2, &up);
    struct job more[2] = {{.meetings = 1, .wait_stop = true}, {.meetings = 1, .wait_stop = true}};
    run_jobs(m, more, 2);
    assert_true(more[0].saw_stop_first && more[1].saw_stop_first);
    sbio_meet_free(m);
}

static void test_abandoned(void **state)
{
    (void)state;
    struct up u = {0};
    struct sbio_runner_sync up = {.ctx = &u, .agree = up_agree, .stopped = up_stopped};
    /* Job 1 never starts: the first meeting fails with its status. */
    struct sbio_meet *m = sbio_meet_new(2, &up);
    struct job jobs[1] = {{.meetings = 4}};
    sbio_meet_abandon(m, 1, -EAGAIN);
    run_jobs(m, jobs, 1);
    assert_int_equal(u.calls, 1);
    assert_int_equal(u.got[0], -EAGAIN);
    assert_int_equal(jobs[0].results[0], -EAGAIN);
    sbio_meet_free(m);
    /* None starts: the process still meets the others once. */
    u = (struct up){0};
    m = sbio_meet_new(2, &up);
    sbio_meet_abandon(m, 0, -EAGAIN);
    sbio_meet_abandon(m, 1, -EAGAIN);
    sbio_meet_serve(m);
    assert_int_equal(u.calls, 1);
    assert_int_equal(u.got[0], -EAGAIN);
    sbio_meet_free(m);
}

static void test_forked_job(void **state)
{
    (void)state;
    struct up u = {0};
    struct sbio_runner_sync up = {.ctx = &u, .agree = up_agree, .stopped = up_stopped};
    struct sbio_meet *m = sbio_meet_new(2, &up);
    /* Job 1 in a child process (as a job in a cgroup v2 group runs): three meetings. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct job j = {.sync = sbio_meet_sync(m, 1), .meetings = 3};
        job_main(&j);
        _exit(j.held == 3 && !j.results[2] ? 0 : 1);
    }
    struct job jobs[1] = {{.meetings = 3}};
    run_jobs(m, jobs, 1);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(u.calls, 3);
    assert_int_equal(jobs[0].held, 3);
    sbio_meet_free(m);
}

/* Job k in a child process that meets once and dies as if killed (no leave). */
static pid_t fork_dying_job(struct sbio_meet *m, unsigned k)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const struct sbio_runner_sync *s = sbio_meet_sync(m, k);
        s->agree(s->ctx, 0);
        _exit(9);
    }
    sbio_meet_forked(m, k, pid);
    return pid;
}

/* A forked job killed between meetings (it never leaves): the next meeting fails with -EIO,
 * and is held even when no other job is left to come to it. */
static void test_forked_job_dies(void **state)
{
    (void)state;
    struct up u = {0};
    struct sbio_runner_sync up = {.ctx = &u, .agree = up_agree, .stopped = up_stopped};
    struct sbio_meet *m = sbio_meet_new(2, &up);
    pid_t pid = fork_dying_job(m, 1);
    struct job jobs[1] = {{.meetings = 4}};
    run_jobs(m, jobs, 1);
    assert_int_equal(u.calls, 2);
    assert_int_equal(u.got[1], -EIO);
    assert_int_equal(jobs[0].held, 2);
    assert_int_equal(jobs[0].results[1], -EIO);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid); /* left for its reaper */
    sbio_meet_free(m);
    /* Alone: the process still meets the others the time they expect it. */
    u = (struct up){0};
    m = sbio_meet_new(1, &up);
    pid = fork_dying_job(m, 0);
    sbio_meet_serve(m);
    assert_int_equal(u.calls, 2);
    assert_int_equal(u.got[1], -EIO);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    sbio_meet_free(m);
}

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig)
{
    (void)sig;
    got_usr1 = 1;
}

/* A stop of this process (a signal to it alone) reaches a forked job while it runs. */
static void test_forked_job_stop_passed_on(void **state)
{
    (void)state;
    struct up u = {0};
    struct sbio_runner_sync up = {.ctx = &u, .agree = up_agree, .stopped = up_stopped};
    struct sbio_meet *m = sbio_meet_new(1, &up);
    struct sigaction sa = {.sa_handler = on_usr1}, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, &old); /* the child's too, before the signal can come */
    got_usr1 = 0;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (int t = 0; t < 10000 && !got_usr1; t++)
            usleep(1000);
        const struct sbio_runner_sync *s = sbio_meet_sync(m, 0);
        s->agree(s->ctx, got_usr1 ? -EINTR : 0);
        s->leave(s->ctx);
        _exit(got_usr1 ? 0 : 1);
    }
    sbio_meet_forked(m, 0, pid);
    __atomic_store_n(&sbio_stop_signal, SIGUSR1, __ATOMIC_RELAXED);
    sbio_meet_serve(m);
    __atomic_store_n(&sbio_stop_signal, 0, __ATOMIC_RELAXED);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    sigaction(SIGUSR1, &old, NULL);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(u.calls, 1);
    assert_int_equal(u.got[0], -EINTR);
    sbio_meet_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meetings_once_each),
        cmocka_unit_test(test_failure_stops_siblings),
        cmocka_unit_test(test_worst_status_goes_up),
        cmocka_unit_test(test_upstream_failure_and_stop),
        cmocka_unit_test(test_abandoned),
        cmocka_unit_test(test_forked_job),
        cmocka_unit_test(test_forked_job_dies),
        cmocka_unit_test(test_forked_job_stop_passed_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
