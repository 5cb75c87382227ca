/* The jobs of one process meeting the other processes of a run as one.
 *
 * A runner meets the other processes of its run through a struct sbio_runner_sync (runner.h).
 * A script's phase runs several jobs side by side in one process (on threads of their own,
 * or in forked processes for cgroup v2 groups), while the MPI calls of a meeting must come
 * from the process's main thread, once per meeting. A meet sits between them: each job gets a
 * sync of its own; the main thread serves them (sbio_meet_serve), holding a meeting through
 * the upstream sync when every job still running has arrived, with the worst of their
 * statuses, and handing its result back to each of them. A job that arrives having failed
 * stops its siblings at once (their stopped() turns true), as the upstream's stopped() does
 * when another process failed. The meet lives in memory shared across fork. */
#ifndef SBIO_MEET_H
#define SBIO_MEET_H

#include <sys/types.h>

#include "runner.h"

struct sbio_meet;

/* A meet of `jobs` jobs in front of up (may be NULL: the meetings are this process's alone,
 * their result the worst status). NULL when out of memory. */
struct sbio_meet *sbio_meet_new(unsigned jobs, const struct sbio_runner_sync *up);

/* Job k's sync, for its runner's env (valid in a process forked after sbio_meet_new). Its
 * leave is called by the runner once it will meet no more. */
const struct sbio_runner_sync *sbio_meet_sync(struct sbio_meet *m, unsigned k);

/* Job k will never start: it leaves with status rc (non-zero), which fails the next meeting
 * and every one after. */
void sbio_meet_abandon(struct sbio_meet *m, unsigned k, int rc);

/* Job k runs in process pid, forked after sbio_meet_new and reaped only after
 * sbio_meet_serve returns: while serving, a stop of this process is passed on to it (as
 * sbio_jobproc_finish does), and its death without leaving (killed) is its abandon with
 * -EIO. */
void sbio_meet_forked(struct sbio_meet *m, unsigned k, pid_t pid);

/* The main thread: hold the meetings until every job has left. A process whose jobs all
 * left while a meeting was due of one of them (none started, or one died between meetings)
 * still attends that meeting, with the worst status, so that no other process waits for
 * it. */
void sbio_meet_serve(struct sbio_meet *m);

void sbio_meet_free(struct sbio_meet *m);

#endif
