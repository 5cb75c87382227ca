/* The figures each measurement probe keeps in a result: its slot of struct sbio_probe_figs
 * (probe.h), which its ops fill over the measured phase, merge and print. Plain data without
 * pointers: a result crosses pipes (jobproc.c) and MPI gathers (mpi.c) byte for byte.
 *
 * Each figure's struct is the probe's own; other modules read one only where a rule needs it
 * (sbio_probe_devices_read), and tests build results from them. */
#ifndef SBIO_PROBES_H
#define SBIO_PROBES_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "sysblock.h"

/* Page faults of the job's worker threads over their measured phase (mmap's data path). */
struct sbio_probe_faults {
    uint64_t minor, major;
};

/* Device counters at the start and end of the measured phase: [0] is the top device, [1..]
 * the scheduler devices when they differ (dm/md slaves). ndisk 0: none (no block device, or a
 * counter could not be read). */
struct sbio_probe_devices {
    unsigned ndisk;
    char name[SBIO_MAX_DEVS + 1][64];
    struct sbio_diskstat d0[SBIO_MAX_DEVS + 1], d1[SBIO_MAX_DEVS + 1];
};

/* Storage bytes this process caused over the measured phase (/proc/self/io read_bytes and
 * write_bytes, deltas): beside the device counters, which count every process. A buffered
 * write counts when it dirties the page cache. Summed over ranks. */
struct sbio_probe_proc_io {
    bool have;
    uint64_t read_bytes, write_bytes;
};

/* Page cache state of the set (cachestat) before and after the measured phase. */
struct sbio_probe_page_cache {
    bool have;
    struct sbio_cachestat c0, c1;
};

/* --memory-limit: the run's memory group (version SBIO_CGROUP_NONE: no limit) and the
 * page-cache figures of its memory.stat at the start and end of the measured phase. */
struct sbio_probe_memstat {
    int version; /* enum sbio_cgroup_version */
    uint64_t limit;
    char file[24];
    char dir[PATH_MAX];
    bool have;
    struct sbio_memstat m0, m1;
};

/* The job's I/O group (cgroup.h): its folder, hierarchy, and the kernel's own counters of it
 * over the measured phase (deltas; have false when they could not be read). dir "": the job
 * has no group. A merge keeps none. */
struct sbio_probe_group_io {
    char dir[256];
    int version;
    bool have;
    struct sbio_cgroup_io io;
};

#endif
