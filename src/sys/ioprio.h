/* I/O priorities (ioprio_set(2)): a run's --ioprio=CLASS[:LEVEL] and a script job's ioprio.
 * A priority is the kernel's own value, class << 13 | level (class 1 realtime, 2 best-effort,
 * 3 idle); 0 (SBIO_IOPRIO_NONE) sets nothing: the threads keep what they inherit. The kernel
 * keeps a priority per thread, so each worker thread sets its own. */
#ifndef SBIO_IOPRIO_H
#define SBIO_IOPRIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SBIO_IOPRIO_NONE 0
/* A merge of runs (a phase's jobs) at different priorities: no value of the kernel's. */
#define SBIO_IOPRIO_MIXED (-1)

/* What sbio_ioprio_parse accepts, for messages. */
#define SBIO_IOPRIO_ACCEPTED                                                                       \
    "rt:0 to rt:7, be:0 to be:7 (level 4 when left out; realtime and best-effort name them "       \
    "too), idle (no level), none"

/* "rt:0", "be", "best-effort:7", "idle", "none" into *prio. 0, or -EINVAL with *why saying
 * what is wrong ("has an unknown class", "has a level out of 0-7", …) and *prio untouched. */
int sbio_ioprio_parse(const char *s, int *prio, const char **why);

/* prio as sbio_ioprio_parse reads it back: "be:4", "idle", "none"; "mixed" for
 * SBIO_IOPRIO_MIXED, "class5:1" for a class sbio does not name. buf returned. */
char *sbio_ioprio_name(char *buf, size_t len, int prio);

/* prio is in the realtime class (which needs CAP_SYS_ADMIN or CAP_SYS_NICE). */
bool sbio_ioprio_rt(int prio);

/* ioprio_set / ioprio_get on one thread (tid 0: the calling one). 0 or -errno. */
int sbio_ioprio_set_thread(pid_t tid, int prio);
int sbio_ioprio_get_thread(pid_t tid, int *prio);

/* Whether this process may give a thread prio (0: nothing to check): set on the calling
 * thread and restored at once, so that the realtime class without the privilege is refused
 * before anything runs. 0, or -SBIO_EUSAGE with one line printed saying why and what is
 * accepted. */
int sbio_ioprio_check(int prio);

#endif
