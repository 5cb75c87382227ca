/* A job in a process of its own: the cgroup v2 io controller is a domain controller, so a
 * job whose group is on v2 runs in a child process that enters the group whole, while the
 * phase's other jobs stay threads of sbio. The child runs the job as a thread job would
 * (sbio_runner_run) and sends its result back through a pipe; the parent merges it like any
 * job's. */
#ifndef SBIO_JOBPROC_H
#define SBIO_JOBPROC_H

#include <sys/types.h>

#include "result.h"
#include "runner.h"

struct sbio_jobproc {
    pid_t pid;
    int fd; /* the read end of the result's pipe */
};

/* Fork a process that enters group_dir (cgroup.procs), runs job on env and sends back its
 * result. Call it while no other thread of this process runs a job: the child has only the
 * forking thread. The child dies with its parent (PR_SET_PDEATHSIG). 0 or -errno. */
int sbio_jobproc_start(struct sbio_jobproc *p, const struct sbio_job *job,
                       const struct sbio_runner_env *env, const char *group_dir);

/* Wait for the child's result: *rc is what sbio_runner_run returned there, res its result
 * (owned by the caller once *rc is 0). A stop asked of this process (SIGTERM to sbio alone)
 * is passed on to the child. A child that died without a result gives *rc 0 and a result
 * that failed before measuring, saying how it died. */
void sbio_jobproc_finish(struct sbio_jobproc *p, const char *name, struct sbio_run_result *res,
                         int *rc);

#endif
