#include "jobproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "util.h"

/* Write all of buf to fd (the child's side). 0 or -errno. */
static int jobproc_write(int fd, const void *buf, size_t len)
{
    for (const char *p = buf; len;) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The child: enter the group, run, send rc, then the result, its threads' stats and its
 * samples (the pointers in the result mean nothing to the parent). Never returns. */
static void jobproc_child(int fd, const struct sbio_job *job, const struct sbio_runner_env *env,
                          const char *dir)
{
    struct sbio_run_result res;
    memset(&res, 0, sizeof(res));
    int rc = sbio_cgroup_enter_process(dir, 0);
    if (rc)
        sbio_err("job %s: entering its group %s: %s", job->name ? job->name : "", dir,
                 strerror(-rc));
    else
        rc = sbio_runner_run(job, env, &res);
    int wrc = jobproc_write(fd, &rc, sizeof(rc));
    if (!rc && !wrc)
        wrc = jobproc_write(fd, &res, sizeof(res));
    if (!rc && !wrc)
        wrc = jobproc_write(fd, res.per_thread, sizeof(*res.per_thread) * res.threads);
    if (!rc && !wrc && res.nsamples)
        wrc = jobproc_write(fd, res.samples, sizeof(*res.samples) * res.nsamples);
    _exit(wrc ? 1 : 0);
}

int sbio_jobproc_start(struct sbio_jobproc *p, const struct sbio_job *job,
                       const struct sbio_runner_env *env, const char *group_dir)
{
    int fds[2];
    p->pid = -1;
    p->fd = -1;
    if (pipe2(fds, O_CLOEXEC))
        return -errno;
    pid_t parent = getpid();
    fflush(NULL); /* the child must not write what the parent has buffered */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return -e;
    }
    if (pid == 0) {
        close(fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* the parent died before prctl */
            _exit(1);
        jobproc_child(fds[1], job, env, group_dir);
    }
    close(fds[1]);
    p->pid = pid;
    p->fd = fds[0];
    return 0;
}

/* Read len bytes from the child, passing a stop of this process on to it. 0, or -EPIPE when
 * the child closed the pipe first. */
static int jobproc_read(struct sbio_jobproc *p, void *buf, size_t len, bool *passed)
{
    for (char *b = buf; len;) {
        if (sbio_stop_requested() && !*passed) {
            kill(p->pid, sbio_stop_requested());
            *passed = true;
        }
        struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
        if (poll(&pfd, 1, 50) <= 0)
            continue;
        ssize_t n = read(p->fd, b, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -EPIPE;
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The result's threads and samples, after the result itself. 0, -ENOMEM or -EPIPE. */
static int jobproc_read_arrays(struct sbio_jobproc *p, struct sbio_run_result *res, bool *passed)
{
    size_t ts = sizeof(*res->per_thread) * res->threads;
    res->per_thread = aligned_alloc(64, (ts + 63) & ~(size_t)63);
    res->samples = res->nsamples ? malloc(sizeof(*res->samples) * res->nsamples) : NULL;
    res->samples_cap = res->nsamples;
    res->ranks = NULL;
    res->rank_host = NULL;
    res->nranks = 0;
    if (!res->per_thread || (res->nsamples && !res->samples))
        return -ENOMEM;
    int rc = jobproc_read(p, res->per_thread, ts, passed);
    if (!rc && res->nsamples)
        rc = jobproc_read(p, res->samples, sizeof(*res->samples) * res->nsamples, passed);
    return rc;
}

void sbio_jobproc_finish(struct sbio_jobproc *p, const char *name, struct sbio_run_result *res,
                         int *rc)
{
    bool passed = false;
    bool arrays = false; /* res's pointers are this process's (else the child's) */
    int e = jobproc_read(p, rc, sizeof(*rc), &passed);
    if (!e && !*rc && !(e = jobproc_read(p, res, sizeof(*res), &passed))) {
        arrays = true;
        e = jobproc_read_arrays(p, res, &passed);
    }
    close(p->fd);
    int st = 0;
    while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!e)
        return;
    if (arrays)
        sbio_run_result_free(res);
    memset(res, 0, sizeof(*res));
    *rc = 0;
    res->error = e == -ENOMEM ? e : -ECHILD;
    if (e == -ENOMEM)
        snprintf(res->error_msg, sizeof(res->error_msg), "job %s: no memory for its result", name);
    else if (WIFSIGNALED(st))
        snprintf(res->error_msg, sizeof(res->error_msg),
                 "job %s: its process (pid %d) was killed by signal %d (%s)", name, (int)p->pid,
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(res->error_msg, sizeof(res->error_msg),
                 "job %s: its process (pid %d) exited with status %d before sending its result",
                 name, (int)p->pid, WEXITSTATUS(st));
}
