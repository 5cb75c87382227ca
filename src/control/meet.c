/* A process's jobs meeting the other processes as one (see meet.h). The jobs and the main
 * thread share three words: a job's arrival count and status (its slot), the number of
 * meetings held, and a counter of news the main thread sleeps on. Waits are futexes on the
 * shared mapping (not private: forked jobs wait on them too), with a timeout so that the
 * main thread polls the upstream's stopped() as often as a runner polls its own. */
#include "meet.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "util.h"

#define MEET_POLL_NS 20000000L /* the runner's own poll of stopped() */

struct meet_slot {
    struct sbio_meet *m;
    struct sbio_runner_sync sync;
    int rc;           /* its status at its last arrival */
    unsigned arrived; /* meetings it came to */
    int left;         /* it will meet no more */
    pid_t pid;        /* a forked job's process (sbio_meet_forked), 0: a thread */
};

struct sbio_meet {
    size_t size; /* of the mapping */
    unsigned jobs;
    const struct sbio_runner_sync *up;
    unsigned held; /* meetings held: a job at meeting n waits until held >= n */
    int result;    /* the last meeting's */
    int stop;      /* the jobs stop: one of them failed, or another process did */
    unsigned news; /* bumped at each arrival and leave: the main thread's futex word */
    int abandoned; /* the worst status of jobs gone without meeting (never started, died) */
    bool owed;     /* one of them went while a meeting was due: the next one is held */
    bool passed;   /* this process's stop was passed on to the forked jobs */
    int *rcs;      /* [jobs + 1]: the main thread's scratch */
    struct meet_slot slot[];
};

static void meet_sleep(unsigned *word, unsigned seen, long ns)
{
    struct timespec ts = {0, ns};
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &ts, NULL, 0);
}

static void meet_wake(unsigned *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void meet_news(struct sbio_meet *m)
{
    __atomic_add_fetch(&m->news, 1, __ATOMIC_RELEASE);
    meet_wake(&m->news);
}

static int meet_agree(void *ctx, int rc)
{
    struct meet_slot *s = ctx;
    struct sbio_meet *m = s->m;
    __atomic_store_n(&s->rc, rc, __ATOMIC_RELAXED);
    if (rc) /* its siblings stop now, not at the end of their time */
        __atomic_store_n(&m->stop, 1, __ATOMIC_RELAXED);
    unsigned n = s->arrived + 1;
    __atomic_store_n(&s->arrived, n, __ATOMIC_RELEASE);
    meet_news(m);
    unsigned h;
    while ((h = __atomic_load_n(&m->held, __ATOMIC_ACQUIRE)) < n)
        meet_sleep(&m->held, h, MEET_POLL_NS);
    return __atomic_load_n(&m->result, __ATOMIC_RELAXED);
}

static bool meet_stopped(void *ctx)
{
    const struct meet_slot *s = ctx;
    return __atomic_load_n(&s->m->stop, __ATOMIC_RELAXED) != 0;
}

static void meet_leave(void *ctx)
{
    struct meet_slot *s = ctx;
    __atomic_store_n(&s->left, 1, __ATOMIC_RELEASE);
    meet_news(s->m);
}

struct sbio_meet *sbio_meet_new(unsigned jobs, const struct sbio_runner_sync *up)
{
    size_t size =
        sizeof(struct sbio_meet) + jobs * sizeof(struct meet_slot) + (jobs + 1) * sizeof(int);
    struct sbio_meet *m =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    memset(m, 0, size);
    m->size = size;
    m->jobs = jobs;
    m->up = up;
    m->rcs = (int *)&m->slot[jobs];
    for (unsigned k = 0; k < jobs; k++)
        m->slot[k] = (struct meet_slot){.m = m,
                                        .sync = {.ctx = &m->slot[k],
                                                 .agree = meet_agree,
                                                 .stopped = meet_stopped,
                                                 .leave = meet_leave}};
    return m;
}

const struct sbio_runner_sync *sbio_meet_sync(struct sbio_meet *m, unsigned k)
{
    return &m->slot[k].sync;
}

void sbio_meet_forked(struct sbio_meet *m, unsigned k, pid_t pid)
{
    m->slot[k].pid = pid;
}

/* Job k goes without meeting again (the main thread's): its status fails the next meeting,
 * which is held even when no job is left to come to it, unless the last one failed already
 * (then nobody meets again). */
static void meet_gone(struct sbio_meet *m, unsigned k, int rc)
{
    int two[2] = {m->abandoned, rc}, w = sbio_mpi_worst(two, 2);
    m->abandoned = w < 0 ? 0 : two[w];
    m->owed = m->owed || !__atomic_load_n(&m->result, __ATOMIC_RELAXED);
    __atomic_store_n(&m->stop, 1, __ATOMIC_RELAXED);
    meet_leave(&m->slot[k]);
}

void sbio_meet_abandon(struct sbio_meet *m, unsigned k, int rc)
{
    meet_gone(m, k, rc);
}

/* The forked jobs still meeting: a stop of this process (a signal to sbio alone) is passed
 * on to them; one that died without leaving (killed) is gone with -EIO. */
static void meet_check_forked(struct sbio_meet *m)
{
    int sig = sbio_stop_requested();
    for (unsigned k = 0; k < m->jobs; k++) {
        struct meet_slot *s = &m->slot[k];
        if (!s->pid || __atomic_load_n(&s->left, __ATOMIC_ACQUIRE))
            continue;
        if (sig && !m->passed)
            kill(s->pid, sig);
        siginfo_t si = {0};
        /* WNOWAIT: sbio_jobproc_finish reaps it. A job leaves before it exits: one found
         * dead and still not left never left. */
        if (!waitid(P_PID, (id_t)s->pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == s->pid &&
            !__atomic_load_n(&s->left, __ATOMIC_ACQUIRE))
            meet_gone(m, k, -EIO);
    }
    m->passed = m->passed || sig;
}

/* Hold meeting number held + 1 with the arrived jobs' statuses (n of them in m->rcs). */
static void meet_hold(struct sbio_meet *m, unsigned n)
{
    int w = sbio_mpi_worst(m->rcs, n), g = w < 0 ? 0 : m->rcs[w];
    if (m->up)
        g = m->up->agree(m->up->ctx, g);
    __atomic_store_n(&m->result, g, __ATOMIC_RELAXED);
    m->owed = false;
    if (g)
        __atomic_store_n(&m->stop, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&m->held, 1, __ATOMIC_RELEASE);
    meet_wake(&m->held);
}

void sbio_meet_serve(struct sbio_meet *m)
{
    for (;;) {
        unsigned seen = __atomic_load_n(&m->news, __ATOMIC_ACQUIRE), n = 0;
        meet_check_forked(m);
        unsigned held = __atomic_load_n(&m->held, __ATOMIC_RELAXED);
        bool all_left = true, all_here = true;
        for (unsigned k = 0; k < m->jobs; k++) {
            const struct meet_slot *s = &m->slot[k];
            if (__atomic_load_n(&s->left, __ATOMIC_ACQUIRE))
                continue;
            all_left = false;
            if (__atomic_load_n(&s->arrived, __ATOMIC_ACQUIRE) > held)
                m->rcs[n++] = __atomic_load_n(&s->rc, __ATOMIC_RELAXED);
            else
                all_here = false;
        }
        if (m->abandoned)
            m->rcs[n++] = m->abandoned;
        if (all_left) {
            if (m->owed) /* a job went with a meeting due: the others still meet us once */
                meet_hold(m, n);
            return;
        }
        if (all_here) {
            meet_hold(m, n);
            continue;
        }
        if (m->up && !__atomic_load_n(&m->stop, __ATOMIC_RELAXED) && m->up->stopped(m->up->ctx))
            __atomic_store_n(&m->stop, 1, __ATOMIC_RELAXED);
        meet_sleep(&m->news, seen, MEET_POLL_NS);
    }
}

void sbio_meet_free(struct sbio_meet *m)
{
    if (m)
        munmap(m, m->size);
}
