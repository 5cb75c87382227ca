/* Control groups: a job's I/O group (weights, limits, a latency target) and the run's memory
 * limit, on either hierarchy the kernel offers.
 *
 * cgroup v2 (one unified hierarchy; the io and memory controllers are domain controllers:
 * whole processes move) or cgroup v1 (a hierarchy per controller: blkio, memory; a single
 * thread can move, its tid into `tasks`). Which one serves a controller is read from the
 * mounts: v2 when its root's cgroup.controllers lists the controller, else a v1 mount of it.
 *
 * sbio makes its groups in one folder per process, "sbio.PID", with a folder per job in it;
 * on v1 under the process's own group of that hierarchy, on v2 at the hierarchy's root (the
 * only place a controller can be enabled beside processes). Every folder made and every
 * file changed outside them is recorded in a state file (SBIO_STATE_DIR, "sbio.PID.cgroups",
 * its lock "sbio.PID.cglock" held while the process lives) before the change, so that a process
 * killed by SIGKILL leaves nothing the next sbio command does not remove (sbio_cgroup_recover).
 *
 * Roots can be redirected for tests: SBIO_CGROUP_ROOT is then the only hierarchy, v2 when it
 * has cgroup.controllers, else a folder per v1 controller (blkio/, memory/); the process's
 * own group is read from <procfs>/self/cgroup as always, and writes create the files the kernel
 * would have (a test reads what was written). */
#ifndef SBIO_CGROUP_H
#define SBIO_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "decl.h" /* struct sbio_cgroup_spec */
#include "sysblock.h"

enum sbio_cgroup_version { SBIO_CGROUP_NONE, SBIO_CGROUP_V1, SBIO_CGROUP_V2 };

/* Where one controller is. */
struct sbio_cgroup_hier {
    int version;          /* enum sbio_cgroup_version */
    char mount[PATH_MAX]; /* the hierarchy's mount */
    char own[PATH_MAX];   /* the folder of the process's own group in it */
};

/* Find controller ctrl ("io" or "memory"; on v1 "io" is blkio). 0, or -ENOENT when no
 * hierarchy has it (then h->version is SBIO_CGROUP_NONE). Prints nothing. */
int sbio_cgroup_find(const char *ctrl, struct sbio_cgroup_hier *h);

/* The v1 name of a controller: "blkio" for "io", else ctrl. */
const char *sbio_cgroup_v1_name(const char *ctrl);

#define SBIO_CGROUP_MAX_DIRS 16

/* The groups of one process. */
struct sbio_cgroups {
    int state_fd; /* the state file, locked; -1 before the first group */
    char state_path[PATH_MAX];
    unsigned ndirs;
    char dirs[SBIO_CGROUP_MAX_DIRS][PATH_MAX]; /* made, in order: removed in reverse */
    char home[SBIO_CGROUP_MAX_DIRS][PATH_MAX]; /* where each folder's tasks go back to */
    unsigned nenabled;
    char enabled[4][PATH_MAX + 16]; /* v2: "FOLDER +CTRL" written to a subtree_control */
};

/* Nothing made yet. */
void sbio_cgroups_init(struct sbio_cgroups *cg);

/* Make (or find, when this process made it already) the group NAME of h's hierarchy for
 * this process: <base>/sbio.PID/NAME, or <base>/sbio.PID itself when name is NULL, with base
 * the own group on v1 and the root on v2. On v2 the controller ctrl is enabled in the
 * subtree_control of every folder on the way (recorded, put back by sbio_cgroups_remove).
 * The folder's path into path. 0 or -errno (the message is the caller's). */
int sbio_cgroups_make(struct sbio_cgroups *cg, const struct sbio_cgroup_hier *h, const char *ctrl,
                      const char *name, char *path, size_t len);

/* What to add to the message of rc, an error of sbio_cgroups_make on a hierarchy of version:
 * why the kernel refused it when that is not plain from strerror, else "". */
const char *sbio_cgroup_hint(int rc, int version);

/* Write value to dir/file. 0 or -errno as the kernel answered. */
int sbio_cgroup_write(const char *dir, const char *file, const char *value);

/* Read dir/file (whole, up to len - 1 bytes, trailing newline removed). 0 or -errno. */
int sbio_cgroup_read(const char *dir, const char *file, char *buf, size_t len);

/* Move thread tid (0: the calling one) into dir: v1 `tasks`. 0 or -errno. */
int sbio_cgroup_enter_thread(const char *dir, pid_t tid);

/* Move process pid (0: this one), all its threads, into dir: `cgroup.procs`. 0 or -errno. */
int sbio_cgroup_enter_process(const char *dir, pid_t pid);

/* The group (path under the hierarchy's mount, "/sbio.12/reader") of thread tid of process
 * pid on hierarchy h, from <procfs>/PID/task/TID/cgroup. 0 or -errno. */
int sbio_cgroup_of(const struct sbio_cgroup_hier *h, pid_t pid, pid_t tid, char *buf, size_t len);

/* Move every task still in the groups back to the folder it came from, remove the folders
 * (deepest first), disable what was enabled, remove the state file. Safe to call when
 * nothing was made, and again. 0, or the first -errno (with a warning for each failure; the
 * state file is then kept for the next command). */
int sbio_cgroups_remove(struct sbio_cgroups *cg);

/* The folders made before mark (cg->ndirs when a phase began) stay; the later ones are
 * removed as sbio_cgroups_remove does (a phase's job groups). 0 or the first -errno. */
int sbio_cgroups_remove_to(struct sbio_cgroups *cg, unsigned mark);

/* --memory-limit: the run's memory group. */
#define SBIO_MEMORY_LIMIT_MIN (16ULL << 20)

struct sbio_memgroup {
    int version;         /* enum sbio_cgroup_version; SBIO_CGROUP_NONE: no limit */
    uint64_t limit;      /* bytes, as the kernel reads the limit back */
    char file[24];       /* the file that holds it: "memory.max" (v2), "memory.limit_in_bytes" */
    char dir[PATH_MAX];  /* the group that holds the limit: sbio.PID */
    char leaf[PATH_MAX]; /* the group the process is in: v2 sbio.PID/main, v1 sbio.PID */
};

/* Whether --memory-limit can be set here: root (or a fake root), a memory controller on
 * either hierarchy. 0, or -SBIO_EUSAGE after one line on stderr (which is missing). Touches
 * nothing. */
int sbio_cgroup_memory_check(void);

/* Make the group sbio.PID in the memory hierarchy with limit bytes and move this process, all
 * its threads, into it: on v1 into sbio.PID itself, after memory.limit_in_bytes; on v2 into
 * sbio.PID/main (no process may sit beside child groups), after +memory in sbio.PID's
 * subtree_control and memory.max on sbio.PID. memory.high, and the swap limits
 * (memory.memsw.limit_in_bytes, memory.swap.max), are left as they are. Pages charged
 * elsewhere before the move stay charged there. sbio_cgroups_remove moves the process back
 * and removes the groups. mg describes what was made. 0 or -errno (the message is the
 * caller's; what was made before the failure is in cg, for sbio_cgroups_remove). */
int sbio_cgroup_memory_limit(struct sbio_cgroups *cg, uint64_t bytes, struct sbio_memgroup *mg);

/* The page-cache figures of a group's memory.stat, in bytes. */
struct sbio_memstat {
    uint64_t file, dirty, writeback;
};

/* Read dir's memory.stat: v2 file, file_dirty, file_writeback; v1 total_cache, total_dirty,
 * total_writeback (cache, dirty, writeback where the totals are missing). 0, -errno, or
 * -EBADMSG when a figure is missing. */
int sbio_cgroup_memstat(const char *dir, struct sbio_memstat *ms);

/* Remove what sbio processes that died left: every cgroup state file whose lock is free,
 * with the next version of it (".tmp") a process killed while writing it left, alone or
 * beside it. The number of folders removed, or -errno. */
int sbio_cgroup_recover(bool verbose);

/* The kernel's own I/O counters of a group, summed over devices, and the files they come
 * from: v2 io.stat rbytes, wbytes, rios, wios; v1 blkio.throttle.io_service_bytes /
 * io_serviced (bios as they enter the block layer, whatever the scheduler; since Linux 6.9
 * only on a device whose throttling a limit, in any group, has turned on), else, where those
 * show nothing for the devices, blkio.bfq.io_service_bytes / io_serviced (requests bfq
 * dispatched: only under bfq). */
struct sbio_cgroup_io {
    uint64_t rbytes, wbytes, rios, wios;
    char source[64];
};

/* A job's group as made for a phase: where it is and the devices its limits name and its
 * counters are summed over. */
struct sbio_cgroup_job {
    int version; /* enum sbio_cgroup_version; SBIO_CGROUP_NONE: the job has no group */
    char dir[PATH_MAX];
    unsigned ndev;
    unsigned major[SBIO_MAX_DEVS], minor[SBIO_MAX_DEVS];
};

/* Check a job's group g before anything runs, against the set's devices t (who: how the
 * messages name the job, "FILE:LINE: job NAME"): root, the io
 * (v2) or blkio (v1) controller, each weight in its hierarchy's range and its file present
 * (v1 blkio.weight is CFQ's; blkio.bfq.weight exists once bfq is loaded), latency only on
 * v2, the device of `max` one of t's (its name, /dev/NAME or MAJ:MIN). 0, or -SBIO_EUSAGE
 * (util.h) with one line said. Nothing is made. */
int sbio_cgroup_spec_check(const struct sbio_cgroup_spec *g, const char *who,
                           const struct sbio_target *t);

/* Make job's group (named after it, sanitized) in cg and write g's settings: v1
 * blkio.bfq.weight, blkio.weight, blkio.throttle.{read,write}_{bps,iops}_device; v2 io.weight,
 * io.bfq.weight, io.max, io.latency; limits for the named device, else each of t's scheduler
 * devices. What the kernel then shows is described into desc ("/sys/fs/cgroup/blkio/sbio.1/
 * reader (cgroup v1 blkio): bfq_weight 800, rbps 20 MiB/s on 7:0"; with nothing set, "…: the
 * kernel's defaults"). 0 or -errno, with one line said. */
int sbio_cgroup_job_make(struct sbio_cgroups *cg, const struct sbio_cgroup_spec *g, const char *job,
                         const struct sbio_target *t, struct sbio_cgroup_job *out, char *desc,
                         size_t len);

/* The group's counters now, summed over its devices. On v1 a file with no line for the
 * devices has counted nothing (yet): when none has one, io is zeros with source "". 0 or
 * -errno. */
int sbio_cgroup_io_read(const struct sbio_cgroup_job *g, struct sbio_cgroup_io *io);

#endif
