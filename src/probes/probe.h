/* Measurement probes: counters read around a job's measured phase (page faults, device
 * counters, the process's storage I/O, the set's page cache, the memory group's page cache,
 * the I/O group's counters), each in one file of src/probes/ behind one ops struct and listed
 * in one table below.
 *
 * A probe snaps its counters as the measured phase starts and as it ends, turns the two
 * snapshots into its figures (delta), merges the figures of the parts of a merged result
 * (merge), and prints them (text, json). Its figures live in its slot of the result (struct
 * sbio_probe_figs, probes/probes.h): no allocation, so results are copied, sent through a
 * pipe and gathered across MPI ranks whole. The reports call a probe's text and json where
 * its lines and keys go. */
#ifndef SBIO_PROBE_H
#define SBIO_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "probes.h"

/* The table: one line per probe, its id and NAME, for the probe src/probes/NAME.c defines as
 * sbio_probe_NAME, whose figures are struct sbio_probe_NAME. The order is the ids', in which
 * the probes are snapped and merged. */
#define SBIO_PROBE_TABLE(X)                                                                        \
    X(FAULTS, faults)                                                                              \
    X(DEVICES, devices)                                                                            \
    X(PROC_IO, proc_io)                                                                            \
    X(PAGE_CACHE, page_cache)                                                                      \
    X(MEMSTAT, memstat)                                                                            \
    X(GROUP_IO, group_io)

#define SBIO_PROBE_ID_(ID, NAME) SBIO_PROBE_##ID,
enum sbio_probe_id { SBIO_PROBE_TABLE(SBIO_PROBE_ID_) SBIO_PROBE_NR };
#undef SBIO_PROBE_ID_

/* Every probe's figures, one slot each, by the probe's name. */
#define SBIO_PROBE_SLOT_(ID, NAME) struct sbio_probe_##NAME NAME;
struct sbio_probe_figs {
    SBIO_PROBE_TABLE(SBIO_PROBE_SLOT_)
};
#undef SBIO_PROBE_SLOT_

/* How the parts of a merge ran. */
enum sbio_merge_kind {
    /* Side by side in this process (a script phase's jobs): one clock, one set, one process,
     * so device, page-cache and the process's storage counters are the first part's; CPU
     * time and page faults, each job's own threads', add up. */
    SBIO_MERGE_JOBS,
    /* In separate processes, maybe on other hosts (MPI ranks): clocks are not comparable, so
     * the merged phase lasts as long as the longest part (start 0, end elapsed); CPU time and
     * faults are summed; device and page-cache counters stay per part (none merged);
     * messages are prefixed "rank N (HOST): ". */
    SBIO_MERGE_RANKS,
};

/* A worker thread's own CPU time and usage at the start and the end of its measured phase,
 * recorded by the thread itself (taken: both were). CLOCK_THREAD_CPUTIME_ID gives the time
 * exactly; getrusage(RUSAGE_THREAD) the faults and how the time splits between user and
 * system (its own times are tick samples). */
struct sbio_thread_usage {
    struct rusage ru0, ru1;
    uint64_t cpu0_ns, cpu1_ns;
    bool taken;
};

struct sbio_fileset;
struct sbio_target;
struct sbio_memgroup;
struct sbio_cgroup_job;
struct sbio_stats;
struct json_t;

/* What a probe's report reads beside its own figures: the measured phase's length and sbio's
 * own counts over it; for a result merged across MPI ranks, rank r's figures, phase length
 * and host (rank(ctx, r, …)), NULL when rank r is not its host's first (a host's devices are
 * shown once). The result (result.h) fills it. */
struct sbio_probe_run {
    double secs;
    const struct sbio_stats *total;
    unsigned nranks;
    const struct sbio_probe_figs *(*rank)(const void *ctx, unsigned r, double *secs,
                                          const char **host);
    const void *ctx;
};

/* What the probes look at: each may be NULL (fs, target, memgroup, group) when the job has
 * none of it. */
struct sbio_probe_env {
    const struct sbio_fileset *fs;           /* the set (its page cache) */
    const struct sbio_target *target;        /* its devices */
    const struct sbio_memgroup *memgroup;    /* --memory-limit's group; version NONE: none */
    const struct sbio_cgroup_job *group;     /* the job's I/O group */
    const struct sbio_thread_usage *threads; /* [nthreads], the job's worker threads */
    unsigned nthreads;
};

struct sbio_probe_ops {
    const char *name;
    /* Read the counters now into snap (zeroed): the probe's own slot of a struct
     * sbio_probe_figs, so a snapshot is at most the size of its figures (its file checks
     * that). False when they could not be read; the end's snapshot is then not taken. */
    bool (*snap)(void *snap, const struct sbio_probe_env *env);
    /* The figures over the measured phase into fig (zeroed), from the start's snapshot s0
     * and the end's s1; ok: both were read (else s1 is zeroes). */
    void (*delta)(void *fig, const void *s0, const void *s1, bool ok,
                  const struct sbio_probe_env *env);
    /* Fold part i's figures into out; called for i = 0, 1, … in order, out zeroed first. */
    void (*merge)(void *out, const void *part, unsigned i, enum sbio_merge_kind kind);
    /* The text report's lines of fig, run's (nothing when there is nothing to say). */
    void (*text)(FILE *out, const void *fig, const struct sbio_probe_run *run);
    /* fig's keys into the JSON object obj (null values when there is nothing to say). */
    void (*json)(struct json_t *obj, const void *fig, const struct sbio_probe_run *run);
};

/* The probe of id, or NULL past the table. */
const struct sbio_probe_ops *sbio_probe_find(int id);

/* The snapshots of every probe at one moment: each in its probe's slot. */
struct sbio_probe_snaps {
    struct sbio_probe_figs slot;
    bool ok[SBIO_PROBE_NR];
};

/* Snap every probe into s (overwritten). start: the snapshots of the phase's start, or NULL
 * when these are those; a probe whose start snapshot failed is not read again. */
void sbio_probes_snap(struct sbio_probe_snaps *s, const struct sbio_probe_env *env,
                      const struct sbio_probe_snaps *start);

/* Every probe's figures over the phase, from its snapshots s0 and s1, into figs (zeroed
 * first). */
void sbio_probes_delta(struct sbio_probe_figs *figs, const struct sbio_probe_snaps *s0,
                       const struct sbio_probe_snaps *s1, const struct sbio_probe_env *env);

/* Fold part i's figures into out, every probe's by its merge (out zeroed before part 0). */
void sbio_probes_merge(struct sbio_probe_figs *out, const struct sbio_probe_figs *part, unsigned i,
                       enum sbio_merge_kind kind);

/* Probe id's text lines of figs, and its keys into the JSON object obj. */
void sbio_probe_text(FILE *out, const struct sbio_probe_figs *figs,
                     const struct sbio_probe_run *run, enum sbio_probe_id id);
void sbio_probe_json(struct json_t *obj, const struct sbio_probe_figs *figs,
                     const struct sbio_probe_run *run, enum sbio_probe_id id);

/* The top device of figs' devices: its name and the bytes it read over the phase. False when
 * there are no device figures (both then untouched). */
bool sbio_probe_devices_read(const struct sbio_probe_figs *figs, const char **name,
                             uint64_t *bytes);

#endif
