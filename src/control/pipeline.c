#include "pipeline.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cache.h"
#include "cgroup.h"
#include "decl_check.h"
#include "environment.h"
#include "fileset.h"
#include "job.h"
#include "jobproc.h"
#include "meet.h"
#include "mix.h"
#include "mpi.h"
#include "prepare.h"
#include "engine.h"
#include "ioprio.h"
#include "report.h"
#include "runner.h"
#include "script.h"
#include "sysblock.h"
#include "tree.h"
#include "tree_io.h"
#include "util.h"
#include "version.h"

/* Resolve the target of set: the raw device, or the folder's device(s). */
static int pipeline_target(const struct sbio_settings *set, struct sbio_target *t)
{
    /* A raw device is its own target: its queue is the one tuned. */
    const char *qdev = set->filename ? set->filename : set->queue_device;
    int rc = sbio_sysblock_resolve(set->filename ? "/" : set->dir, qdev, t);
    if (rc) {
        if (qdev)
            sbio_err("--%s=%s: no such block device", set->filename ? "filename" : "queue-device",
                     qdev);
        else
            sbio_err("--dir %s: %s%s", set->dir, strerror(-rc),
                     rc == -ENOENT ? "; create the folder first" : "");
        return -SBIO_EUSAGE;
    }
    if (t->set_dev[0] && !set->filename)
        sbio_note("--queue-device=%s tunes %s, but the set in %s is on %s: the settings do not "
                  "apply to the set's I/O",
                  set->queue_device, t->top.name, set->dir, t->set_dev);
    if (set->filename) {
        snprintf(t->fstype, sizeof(t->fstype), "(raw device)");
        snprintf(t->source, sizeof(t->source), "%.200s", set->filename);
        t->mountpoint[0] = t->mount_opts[0] = 0;
    }
    return 0;
}

int sbio_pipeline_check(const struct sbio_settings *set)
{
    if (set->memory_limit && sbio_cgroup_memory_check())
        return -SBIO_EUSAGE;
    if (set->drop_caches && geteuid() != 0 && !sbio_procfs_is_fake()) {
        sbio_err("--drop-caches needs root (it writes /proc/sys/vm/drop_caches)");
        return -SBIO_EUSAGE;
    }
    if ((set->scheduler || set->nqueue) && geteuid() != 0 && !sbio_sysfs_is_fake()) {
        sbio_err("%s changes kernel settings and needs root",
                 set->scheduler ? "--scheduler" : "--queue");
        return -SBIO_EUSAGE;
    }
    struct sbio_target t;
    int rc = pipeline_target(set, &t);
    if (!rc)
        rc = sbio_tune_check(&t, set->scheduler, set->queue, set->nqueue);
    return rc;
}

int sbio_pipeline_try_settings(const struct sbio_settings *set, const struct sbio_topology *topo)
{
    if ((!set->scheduler && !set->nqueue) || !topo->host_leader)
        return 0;
    struct sbio_target t;
    struct sbio_tune tune;
    int rc = pipeline_target(set, &t);
    if (!rc)
        rc = sbio_tune_apply(&tune, &t, set->scheduler, set->queue, set->nqueue, NULL);
    if (!rc && sbio_tune_restore(&tune)) {
        sbio_err("some settings could not be restored; run sbio restore as root");
        rc = -EIO;
    }
    return rc;
}

/* The status of a run that happened, from its (merged) result: 1 an I/O error, a bad block
 * or a setting not restored, 130 interrupted, else 0. The reporting process says why, of
 * who (a script's job: "phase \"P\", job \"J\": ") when not NULL. */
static int pipeline_status(const struct sbio_run_result *res, int rrc, bool report, const char *who)
{
    if (res->error) {
        if (report && res->error_msg[0])
            sbio_err("%s", res->error_msg);
        return 1;
    }
    if (res->total.verify_failed) {
        if (report)
            sbio_err("--verify: %s%" PRIu64 " bad block%s; first: %s", who ? who : "",
                     res->total.verify_failed, res->total.verify_failed == 1 ? "" : "s",
                     res->verify_msg);
        return 1;
    }
    if (res->stop_signal)
        return 130;
    return rrc ? 1 : 0;
}

/* Meet the other processes (no-op alone) with this one's status; rank 0 names the rank that
 * decided when it was another one (that rank printed why): "rank N of M WHAT (its message
 * above)THEN". */
static int pipeline_agree_said(const struct sbio_topology *topo, int rc, const char *what,
                               const char *then)
{
    unsigned who = 0;
    int g = sbio_mpi_agree(rc, &who);
    if (g && g != -EINTR && who != topo->rank && topo->rank == 0)
        sbio_err("rank %u of %u %s (its message above)%s", who, topo->nranks, what, then);
    return g;
}

int sbio_pipeline_agree(const struct sbio_topology *topo, int rc, const char *what)
{
    return pipeline_agree_said(topo, rc, what, "; every rank stopped");
}

/* One run of a declaration: the set opened, the device settings applied for its duration, and put
 * back at the end whatever happened. Every command that runs a workload (run, compare, a script,
 * each MPI rank) goes through it. */
struct pipeline {
    const struct sbio_settings *set;
    const struct sbio_script *decl; /* what it runs */
    const struct sbio_topology *topo;
    FILE *text;
    struct sbio_fileset fs;
    struct sbio_tree tree; /* a tree script's file set (rootfd -1 otherwise; fs is then empty) */
    struct sbio_target target;
    struct sbio_tune tune;
    struct sbio_cgroups cg;          /* the run's control groups (job groups, memory limit) */
    struct sbio_memgroup mem;        /* --memory-limit's group, once made */
    bool created;                    /* seqwr made the set for this run */
    bool applied;                    /* the settings are in effect */
    bool ran;                        /* a plain run's job ran and was reported */
    json_t *env;                     /* the environment, read while the settings are in effect */
    struct sbio_phase_table summary; /* a script's phases, one row each */
    /* What the run hands back as it goes. */
    FILE *interim;     /* a plain run's interim lines */
    json_t **doc;      /* the caller's document, or NULL */
    bool want_doc;     /* rank 0 builds JSON: the caller's document, a script's report() */
    json_t *phases;    /* a script's phases[] */
    int st;            /* the worst of the jobs' statuses: 0, 1 failed, 130 interrupted */
    unsigned refused;  /* a script's phases refused (the same on every rank) */
    bool script_error; /* a job of this rank's stopped by the script's event(): no more phases */
    uint64_t seed;     /* rank 0's, on every rank */
    char fd_note[256]; /* how the phase's files are opened ("" when as usual) */
};

/* The script's set must be the one it declares (with these option values). */
static int pipeline_check_declared(const struct pipeline *s, const char *script)
{
    const struct sbio_settings *set = s->set;
    bool same = s->fs.nfiles == set->nfile_sizes;
    for (unsigned i = 0; same && i < s->fs.nfiles; i++)
        same = s->fs.files[i].size == set->file_sizes[i];
    if (same)
        return 0;
    char a[32], b[32];
    uint64_t want = 0;
    for (unsigned i = 0; i < set->nfile_sizes; i++)
        want += set->file_sizes[i];
    sbio_err("%s declares %u files, %s, but the set in %s has %u files, %s: run sbio "
             "prepare with the same script options, or cleanup first",
             script, set->nfile_sizes, sbio_fmt_bytes(a, sizeof(a), want), set->dir, s->fs.nfiles,
             sbio_fmt_bytes(b, sizeof(b), s->fs.bytes));
    return -SBIO_EUSAGE;
}

/* Whether this process opens (and so repairs) its tree in pipeline_open: alone, on a tree of
 * its own (--file-per-rank), or as rank 0 of ranks that share one; the others open it once
 * rank 0 has (pipeline_tree_shared), so that no two put it back at once. */
static bool pipeline_tree_mine(const struct pipeline *s)
{
    return s->topo->nranks == 1 || s->set->file_per_rank || s->topo->rank == 0;
}

/* The ranks sharing a tree, but rank 0, open it after rank 0 (which repaired it), every rank
 * then agreeing. 0 or the worst rank's failure. */
static int pipeline_tree_shared(struct pipeline *s, const struct sbio_script *script)
{
    int rc = 0;
    if (!pipeline_tree_mine(s))
        rc = sbio_tree_open(&s->tree, s->set, &script->tree, script->path, s->text);
    return sbio_pipeline_agree(s->topo, rc, "could not open the file tree");
}

/* A set a seqwr run left short is completed before a run that reads it (a plain seqwr run
 * empties it anyway), once the run's job is checked (a refused run writes nothing) and
 * before any setting is changed, outside anything measured, saying so. Ranks sharing a set
 * would complete it side by side: refused, with what to do. 0, -SBIO_EUSAGE or -errno
 * (said). */
static int pipeline_finish_short(struct pipeline *s, bool seqwr)
{
    struct sbio_fileset *fs = &s->fs;
    if (seqwr || fs->dirfd < 0 || fs->raw || !sbio_manifest_left_short(fs->dirfd))
        return 0;
    /* The manifest says what is left, whoever left it: an earlier phase's job may have run
     * in a process of its own. */
    free(fs->files);
    int rc = sbio_manifest_read(fs->dirfd, fs);
    if (rc) {
        if (rc == -EBADMSG)
            sbio_fileset_damaged(s->set->dir, fs->damage);
        else if (rc != -EPERM)
            sbio_err("%s/%s: open: %s", s->set->dir, SBIO_MANIFEST, strerror(-rc));
        return -SBIO_EUSAGE;
    }
    if (fs->complete || !fs->seqwr_short)
        return 0;
    if (s->topo->nranks > 1 && !s->set->file_per_rank) {
        if (s->topo->rank == 0)
            sbio_err("the set in %s was left short by a seqwr run and is shared by %u ranks: "
                     "complete it first with sbio prepare --dir %s",
                     s->set->dir, s->topo->nranks, s->set->dir);
        return -SBIO_EUSAGE;
    }
    char b[32];
    fprintf(s->text,
            "Completing the set in %s, left short by a seqwr run: writing the %s it "
            "lacks (not measured)\n",
            s->set->dir, sbio_fmt_bytes(b, sizeof(b), sbio_fileset_unwritten(fs)));
    fflush(s->text);
    uint64_t written;
    return sbio_fileset_finish_short(fs, &written);
}

/* Check and open the set (script: the one it declares; seqwr may create one). A tree (the
 * script's, when tree is not NULL) is checked against its manifest and put back as prepared
 * here, before any setting is changed: nothing a run measures. With check, only what the run
 * would find is checked and nothing is made or put back: the set opened as it is (none when
 * seqwr would make it), a tree's manifest read. 0, -SBIO_EUSAGE (message printed, nothing
 * changed) or -errno. */
static int pipeline_open(struct pipeline *s, const struct sbio_settings *set,
                         const struct sbio_script *decl, const struct sbio_topology *topo,
                         FILE *text, bool check)
{
    memset(s, 0, sizeof(*s));
    s->set = set;
    s->decl = decl;
    s->topo = topo;
    s->text = text;
    s->fs.dirfd = -1;
    s->tree.rootfd = -1;
    sbio_cgroups_init(&s->cg);
    /* A script's set is the one it declares: no raw device, never made by its run. */
    const char *script = decl->plain ? NULL : decl->path;
    int rc = sbio_pipeline_check(set);
    if (!rc)
        rc = pipeline_target(set, &s->target);
    if (!rc && decl->tree.set && check)
        return sbio_tree_ready(set, &decl->tree, script);
    if (!rc && decl->tree.set)
        return pipeline_tree_mine(s) ? sbio_tree_open(&s->tree, set, &decl->tree, script, text) : 0;
    bool create = !script && set->mode == SBIO_MODE_SEQWR;
    if (!rc && set->filename && !script)
        rc = sbio_fileset_open_device(&s->fs, set);
    else if (!rc && check)
        rc = sbio_fileset_ready(set, create, &s->fs);
    else if (!rc)
        rc = sbio_fileset_open(&s->fs, set, create, &s->created);
    if (!rc && script && set->nfile_sizes)
        rc = pipeline_check_declared(s, script);
    return rc;
}

/* --memory-limit: this process, every thread, into a memory group with the limit, before the
 * set's pages are dropped and the run starts (pages cached before stay charged where they
 * were). 0 or -errno (message printed, the groups made removed). */
static int pipeline_memory_limit(struct pipeline *s)
{
    int rc = sbio_cgroup_memory_limit(&s->cg, s->set->memory_limit, &s->mem);
    if (!rc)
        return 0;
    char b[32];
    struct sbio_cgroup_hier h;
    sbio_cgroup_find("memory", &h);
    sbio_err("--memory-limit=%s: cannot set the limit%s%s: %s%s",
             sbio_fmt_bytes(b, sizeof(b), s->set->memory_limit), s->mem.dir[0] ? " on " : "",
             s->mem.dir, strerror(-rc), sbio_cgroup_hint(rc, h.version));
    sbio_cgroups_remove(&s->cg);
    s->mem.version = SBIO_CGROUP_NONE;
    return rc;
}

/* Apply this host's settings, once every check passed. Under MPI each host's leader alone
 * changes the host's device settings and drops its caches; alone, this process is the
 * leader. 0 or -errno (message printed, nothing left changed). */
static int pipeline_apply(struct pipeline *s)
{
    if (s->created)
        fprintf(s->text, "No file set in %s: seqwr creates one (%u files)\n", s->set->dir,
                s->fs.nfiles);
    const struct sbio_settings *set = s->set;
    int rc = sbio_tune_apply(&s->tune, &s->target, s->topo->host_leader ? set->scheduler : NULL,
                             set->queue, s->topo->host_leader ? set->nqueue : 0, s->text);
    if (!rc && set->memory_limit && (rc = pipeline_memory_limit(s)))
        sbio_tune_restore(&s->tune);
    s->applied = !rc;
    return rc;
}

/* A run that may write without --verify leaves blocks without stamps: the set's promise that
 * every block carries one (verify=1 in its manifest) is withdrawn before the first write, so
 * that no later --verify run, nor a kill in the middle, finds a false one. --verify then
 * checks the blocks its run writes, as on a set prepared without it. Under MPI the ranks
 * sharing a set drop it alike, rank 0 alone writing the manifest. 0 or -errno (said). */
static int pipeline_scope_verify(struct pipeline *s, const struct sbio_script *script)
{
    if (s->set->verify || !s->fs.verify || s->fs.raw || s->fs.dirfd < 0 ||
        !sbio_fileset_cmd_writes(s->set, script))
        return 0;
    s->fs.verify = false;
    bool writer = s->set->file_per_rank || s->topo->rank == 0;
    return writer ? sbio_fileset_mark(&s->fs, s->fs.complete) : 0;
}

/* ", on files 0-7,9" for a job on some of a flat set's files; "" for one on all. */
static void pipeline_files_desc(char *buf, size_t len, const struct sbio_script_job *j)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned r = 0; r < j->nfrange && n < len; r++) {
        int w = j->frange_first[r] == j->frange_last[r]
                    ? snprintf(buf + n, len - n, "%s%" PRIu64,
                               r                 ? ","
                               : j->nfrange == 1 ? ", on file "
                                                 : ", on files ",
                               j->frange_first[r])
                    : snprintf(buf + n, len - n, "%s%" PRIu64 "-%" PRIu64, r ? "," : ", on files ",
                               j->frange_first[r], j->frange_last[r]);
        n += w > 0 ? (size_t)w : 0;
    }
}

/* A script's appends on a flat set (a mix with an append weight): the files appended to by an
 * earlier run are cut back to their sizes when this run writes, then the files this script's
 * jobs may append to are marked in the manifest before any is written, so that no later
 * command takes them for damaged. Under MPI on a shared set rank 0 alone. 0 or -errno (said). */
static int pipeline_appends(struct pipeline *s, const struct sbio_script *script)
{
    struct sbio_fileset *fs = &s->fs;
    if (script->tree.set || fs->raw || fs->dirfd < 0 || !fs->nfiles ||
        !(s->set->file_per_rank || s->topo->rank == 0))
        return 0;
    bool *grow = calloc(fs->nfiles, sizeof(bool)), any = false;
    if (!grow)
        return -ENOMEM;
    for (unsigned pi = 0; pi < script->nphases; pi++)
        for (unsigned k = 0; k < script->phases[pi].njobs; k++) {
            const struct sbio_script_job *j = &script->phases[pi].jobs[k];
            if (j->mode != SBIO_MODE_NONE || j->event || !(j->weight[SBIO_MIX_APPEND] > 0))
                continue;
            for (unsigned f = 0; f < fs->nfiles; f++)
                for (unsigned r = 0; r < (j->nfrange ? j->nfrange : 1) && !grow[f]; r++)
                    grow[f] = !j->nfrange || (f >= j->frange_first[r] && f <= j->frange_last[r]);
            any = true;
        }
    int rc = sbio_fileset_cmd_writes(s->set, script) || any
                 ? sbio_fileset_appends(fs, sbio_fileset_cmd_writes(s->set, script),
                                        any ? grow : NULL, s->text)
                 : 0;
    free(grow);
    return rc;
}

/* The environment, read once while sbio's settings are in effect: described in the text and
 * (want_env) kept for the JSON documents. */
static void pipeline_describe(struct pipeline *s, bool want_env)
{
    struct sbio_environment *e = malloc(sizeof(*e));
    if (!e) {
        sbio_err("no memory to describe the environment");
        return;
    }
    sbio_environment_read(e, &s->target);
    sbio_environment_print(s->text, e);
    if (want_env)
        s->env = sbio_json_environment(e);
    free(e);
}

/* Put every setting back, before anything else can fail. 0, or -EIO when a setting could
 * not be restored (said on stderr). */
static int pipeline_restore(struct pipeline *s)
{
    int rrc = sbio_tune_restore(&s->tune);
    if (rrc)
        sbio_err("some settings could not be restored; run sbio restore as root");
    if (sbio_cgroups_remove(&s->cg)) {
        sbio_err("some control groups could not be removed; run sbio restore as root");
        rrc = rrc ? rrc : -EIO;
    }
    return rrc;
}

/* Once reported: close the set. */
static void pipeline_close(struct pipeline *s)
{
    json_decref(s->env);
    s->env = NULL;
    sbio_fileset_close(&s->fs);
    sbio_tree_close(&s->tree);
}

/* sync, then drop the page cache. 0 or -errno (message printed). */
static int pipeline_drop_caches(const struct pipeline *s)
{
    int rc = sbio_drop_caches();
    if (!rc)
        fprintf(s->text, "Page cache dropped (sync, then drop_caches=3)\n");
    return rc;
}

/* A plain run as it starts: where its header and interim lines go, and how they are
 * worded. */
struct pipeline_lines {
    FILE *out;
    struct sbio_report_of of; /* what the reports describe: the job, the settings */
    struct pipeline *s;
    uint64_t seed;
    bool want_env;    /* the environment is kept for the JSON document */
    const char *note; /* said after the header (how the files are opened) */
};

/* One job of a phase: what it runs, how the reports describe it, where it runs, and what it
 * measured. A plain run is a phase of one job. */
struct pipeline_job {
    struct sbio_job job;
    struct sbio_job whole; /* the job over every rank, as the reports describe it */
    struct sbio_mix mix;
    struct sbio_script_hook hook; /* event = true: the script's event(ctx) per op */
    const struct sbio_hook_ops *hook_ops;
    uint64_t *sizes;
    struct sbio_interim interim;
    struct pipeline_lines lines; /* a plain run's */
    struct sbio_runner_env env;
    struct sbio_run_result res;
    int rc;
    pthread_t tid;
    char block_what[PATH_MAX + 160]; /* which declaration set the block size */
    struct sbio_cgroup_job group;    /* its I/O group for the phase (version NONE: none) */
    char group_desc[PATH_MAX + 256]; /* the group as the kernel shows it, for the report */
    struct sbio_jobproc proc;        /* a job in a v2 group: its process */
};

/* The threads are up, their files open: the header and the environment, then the caches
 * dropped. Printed only now, so that a run that cannot start says its error alone. */
static int pipeline_ready(void *ctx)
{
    const struct pipeline_lines *l = ctx;
    struct pipeline *s = l->s;
    sbio_report_header(s->text, &l->of, s->topo, &s->fs, l->seed);
    fputs(l->note, s->text);
    sbio_report_memgroup(s->text, &s->mem, l->of.job->invalidate || s->set->drop_caches);
    pipeline_describe(s, l->want_env);
    int rc = s->set->drop_caches && s->topo->host_leader ? pipeline_drop_caches(s) : 0;
    fflush(s->text);
    return rc;
}

static void pipeline_started(void *ctx)
{
    const struct pipeline_lines *l = ctx;
    fprintf(l->out, "Initializing worker threads...\n\nThreads started!\n\n");
    fflush(l->out);
}

static void pipeline_line(void *ctx, double t_s, double interval_s, const struct sbio_stats *cur,
                          const struct sbio_stats *prev)
{
    const struct pipeline_lines *l = ctx;
    sbio_report_interval(l->out, &l->of, t_s, interval_s, cur, prev);
}

/* The samples of the result's time series: every --log-interval, else every
 * --report-interval; lines (lines not NULL) every --report-interval. */
static void pipeline_interim(struct pipeline_job *j, const struct sbio_settings *set,
                             struct pipeline_lines *lines)
{
    uint64_t print_ns = lines ? set->report_interval_s * 1000000000ULL : 0;
    j->interim = (struct sbio_interim){
        .print_ns = print_ns,
        .log_ns = set->log_interval_ms ? set->log_interval_ms * 1000000ULL : print_ns,
        .ctx = lines,
        .ready = lines ? pipeline_ready : NULL,
        .started = lines ? pipeline_started : NULL,
        .line = lines ? pipeline_line : NULL,
    };
    j->env.interim = &j->interim;
}

/* Descriptors this process has open now. */
static uint64_t pipeline_open_fds(void)
{
    uint64_t n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 64; /* no /proc: a generous guess */
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own */
}

/* Beside the set: the report, device and cache counters, logs, a script's files. */
#define SESSION_FD_SLACK 32

/* Descriptors for n jobs side by side on a set of nfiles files: each thread its own where
 * the open-file limit allows (the soft limit raised toward the hard one), else one per
 * file shared by the threads of each job whose engine can, else refused before anything
 * starts. Sets each job's env.share_fds; note gets what was done ("" when nothing). 0 or
 * -SBIO_EUSAGE (message printed). */
static int pipeline_plan_fds(struct pipeline_job *jobs, unsigned n, unsigned nfiles, char *note,
                             size_t len)
{
    uint64_t own = 0, shared = 0, threads = 0;
    const char *own_eng = NULL; /* an engine that gives each thread its own (mmap) */
    for (unsigned k = 0; k < n; k++) {
        uint64_t o, sh;
        sbio_runner_fds(&jobs[k].job, nfiles, &o, &sh);
        own += o;
        shared += sh ? sh : o;
        own_eng = !sh && o ? sbio_engine_name(jobs[k].job.engine) : own_eng;
        threads += jobs[k].job.threads;
    }
    uint64_t base = pipeline_open_fds() + SESSION_FD_SLACK;
    struct rlimit rl;
    note[0] = 0;
    if (getrlimit(RLIMIT_NOFILE, &rl))
        return 0;
    /* Jobs whose engines cannot share keep their own even then: need counts them so. */
    bool share = base + own > rl.rlim_max && shared < own;
    uint64_t need = base + (share ? shared : own), soft = rl.rlim_cur;
    if (need > rl.rlim_max) {
        char why[64] = "";
        if (own_eng)
            snprintf(why, sizeof(why), " (the %s engine gives each thread its own)", own_eng);
        sbio_err("%" PRIu64 " thread%s on %u file%s need%s %" PRIu64 " open descriptors%s; the "
                 "hard limit is %" PRIu64 " (ulimit -Hn): raise it (ulimit -n %" PRIu64 ") or "
                 "use fewer threads or files",
                 threads, threads == 1 ? "" : "s", nfiles, nfiles == 1 ? "" : "s",
                 threads == 1 ? "s" : "", need, why, (uint64_t)rl.rlim_max, need);
        return -SBIO_EUSAGE;
    }
    if (need > soft) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl)) {
            sbio_err("raising the open-file limit from %" PRIu64 " to %" PRIu64 ": %s", soft, need,
                     strerror(errno));
            return -SBIO_EUSAGE;
        }
        snprintf(note, len, "Open-file limit raised from %" PRIu64 " to %" PRIu64 "\n", soft, need);
    }
    if (share)
        snprintf(note + strlen(note), len - strlen(note),
                 "Files opened once and shared by the threads: each thread its own would need "
                 "%" PRIu64 " descriptors, the hard limit (ulimit -Hn) is %" PRIu64 "\n",
                 base + own, (uint64_t)rl.rlim_max);
    for (unsigned k = 0; k < n; k++)
        jobs[k].env.share_fds = share;
    return 0;
}

static void *pipeline_job_main(void *arg)
{
    struct pipeline_job *j = arg;
    j->rc = sbio_runner_run(&j->job, &j->env, &j->res);
    return NULL;
}

/* A job in a cgroup v2 group runs in a process of its own (jobproc.h). */
static bool pipeline_job_forks(const struct pipeline_job *j)
{
    return j->group.version == SBIO_CGROUP_V2;
}

/* Run a phase's jobs side by side, each on its own threads (or process); they start
 * together. A job in a v2 group is forked before any thread job starts (a fork copies only
 * the forking thread). Alone, a single thread job runs on this thread; under meet (the jobs
 * meeting other processes, meet.h) every job runs on threads of its own while this thread
 * serves their meetings, whose MPI calls must come from it. 0, or -EAGAIN when a job could
 * not be started (*started: its index; n when all were). */
static int pipeline_run_jobs(struct pipeline_job *jobs, unsigned n, unsigned *started,
                             struct sbio_meet *meet)
{
    unsigned nthr = 0, ran = 0; /* ran: a bit per job started on a thread or process */
    int rc = 0;
    for (unsigned k = 0; k < n; k++)
        nthr += !pipeline_job_forks(&jobs[k]);
    *started = n;
    for (unsigned k = 0; k < n && !rc; k++) {
        struct pipeline_job *j = &jobs[k];
        if (!pipeline_job_forks(j))
            continue;
        if ((rc = sbio_jobproc_start(&j->proc, &j->job, &j->env, j->group.dir))) {
            sbio_err("job %s: fork: %s", j->job.name, strerror(-rc));
            *started = k;
        } else {
            ran |= 1u << k;
            if (meet)
                sbio_meet_forked(meet, k, j->proc.pid);
        }
    }
    for (unsigned k = 0; k < n && !rc; k++) {
        struct pipeline_job *j = &jobs[k];
        if (pipeline_job_forks(j))
            continue;
        if (nthr == 1 && !meet) { /* alone, on this thread */
            pipeline_job_main(j);
        } else if (pthread_create(&j->tid, NULL, pipeline_job_main, j)) {
            rc = -EAGAIN;
            *started = k;
        } else {
            ran |= 1u << k;
        }
    }
    if (rc && n) /* --warmup=auto: the jobs started do not wait for those that never will */
        sbio_warmup_phase_release(jobs[0].env.warmup_phase);
    for (unsigned k = 0; meet && rc && k < n; k++)
        if (!(ran & (1u << k)))
            sbio_meet_abandon(meet, k, rc);
    if (meet)
        sbio_meet_serve(meet);
    for (unsigned k = 0; k < n; k++) {
        if (!(ran & (1u << k)))
            continue;
        if (pipeline_job_forks(&jobs[k]))
            sbio_jobproc_finish(&jobs[k].proc, jobs[k].job.name, &jobs[k].res, &jobs[k].rc);
        else
            pthread_join(jobs[k].tid, NULL);
    }
    return rc;
}

/* What a phase's jobs hold once the phase is reported: every job's, since a forked job
 * after the one that could not start has its result too (a job never started has a zeroed
 * one). */
static void pipeline_jobs_free(struct pipeline_job *jobs, unsigned njobs)
{
    for (unsigned k = 0; k < njobs; k++) {
        if (!jobs[k].rc)
            sbio_run_result_free(&jobs[k].res);
        free((void *)jobs[k].hook_ops);
        free(jobs[k].sizes);
    }
}

/* The phase's total: every job's threads side by side, merged. */
static int pipeline_merge_jobs(struct pipeline_job *jobs, unsigned n, struct sbio_run_result *tot)
{
    /* On the heap: a result is about 100 KiB (its histograms), a phase has up to 8. */
    struct sbio_run_result *parts = malloc(n * sizeof(*parts));
    memset(tot, 0, sizeof(*tot));
    if (!parts)
        return -ENOMEM;
    for (unsigned k = 0; k < n; k++)
        parts[k] = jobs[k].res;
    int rc = sbio_result_merge(tot, parts, n, SBIO_MERGE_JOBS, NULL, NULL);
    free(parts);
    return rc;
}

/* Where a job's threads stand among all those that share its set (runner.h): the other
 * ranks' on a set they share and, under --verify, the other jobs' of its phase, whose blocks
 * must be disjoint from its own. before: the threads of the phase's jobs before it; phase:
 * all the phase's threads on this rank (a plain run's are its job's). */
static void pipeline_place(struct pipeline_job *j, const struct pipeline *s, unsigned before,
                           unsigned phase)
{
    bool shared = s->topo->nranks > 1 && !s->set->file_per_rank;
    unsigned ranks = shared ? s->topo->nranks : 1;
    /* A tree's slots are owned by all the phase's threads (a tree script's jobs are all
     * tree jobs, fsop.h), as --verify's blocks are. */
    bool all = s->set->verify || j->job.tree;
    unsigned width = all ? phase : j->job.threads;
    if (ranks * width == j->job.threads)
        return; /* its threads alone */
    j->env.first_thread = (shared ? s->topo->rank : 0) * width + (all ? before : 0);
    j->env.all_threads = ranks * width;
}

/* This rank's share of a total that the ranks split (--events, --rate). */
static uint64_t pipeline_rank_share(uint64_t total, const struct sbio_topology *t)
{
    return total / t->nranks + (t->rank < total % t->nranks);
}

/* A mix or an event job: offsets in units of its smallest block, buffers as large as its
 * largest. 0 or -ENOMEM. */
static int pipeline_job_ops(struct pipeline_job *j, const struct pipeline *s,
                            const struct sbio_script_job *sj)
{
    struct sbio_job *job = &j->whole;
    const struct sbio_fileset *fs = &s->fs;
    job->mode = SBIO_MODE_NONE;
    if (!sj->event) {
        uint64_t n = 0;
        for (unsigned f = 0; f < fs->nfiles; f++)
            n += fs->files[f].size / job->block_size;
        sbio_mix_init(&j->mix, sj, n);
        job->mix = &j->mix;
        return 0;
    }
    /* event(ctx) chooses every operation: its requests may be as long as the job's largest
     * block. */
    j->sizes = calloc(fs->nfiles, sizeof(uint64_t));
    if (!j->sizes)
        return -ENOMEM;
    for (unsigned f = 0; f < fs->nfiles; f++)
        j->sizes[f] = fs->files[f].size;
    j->hook = (struct sbio_script_hook){.s = s->decl,
                                        .names = s->set->xname,
                                        .values = s->set->xvalue,
                                        .nover = s->set->nxopt,
                                        .nfiles = fs->nfiles,
                                        .file_sizes = j->sizes,
                                        .max_len = job->max_len,
                                        .verify_block = s->set->verify ? job->block_size : 0};
    j->hook_ops = sbio_script_hook_ops(&j->hook);
    job->hook = j->hook_ops;
    return j->hook_ops ? 0 : -ENOMEM;
}

/* A tree job (fsop.h): its mix's operations on the run's tree, phase pi's, by the tree
 * engine's system calls; its buffers as large as its largest block or append; none of the
 * flat set's end fsyncs or page dropping. */
static void pipeline_job_tree(struct pipeline_job *j, unsigned pi, struct sbio_tree *tree)
{
    struct sbio_job *job = &j->whole;
    job->tree = tree;
    job->phase = pi;
    job->max_len = sbio_mix_max_len(&j->mix);
    job->fsync_end = false;
    job->invalidate = false;
}

/* Job k of phase pi of the declaration, ready for this rank: j->whole as declared
 * over every rank (what the reports describe), j->job this rank's share of it. --events and
 * --rate are totals, of which each rank takes its share; ranks with sets of their own draw
 * different offsets (ranks sharing one differ by their threads' numbers). The command
 * line's job draws from the run's seed itself, a script's jobs from seeds of their own
 * (the job's index, not its address: --rand-seed must repeat a run). 0 or -ENOMEM. */
static int pipeline_job_build(struct pipeline_job *j, struct pipeline *s, unsigned pi, unsigned k,
                              unsigned total_threads, unsigned threads_before, uint64_t seed)
{
    const struct sbio_script *d = s->decl;
    const struct sbio_script_phase *p = &d->phases[pi];
    const struct sbio_script_job *sj = &p->jobs[k];
    struct sbio_job *w = &j->whole;
    sbio_job_declare(w, p, k, sbio_job_events(p, k, total_threads, threads_before), s->set);
    if (d->plain) {
        w->seed = seed;
        w->block_what = "--file-block-size";
        /* A shared set under several ranks is walked in per-thread slices (the runner
         * numbers threads across ranks). */
        if (s->topo->nranks > 1 && !s->set->file_per_rank && sbio_mode_sequential(w->mode))
            w->seq_stream = SBIO_SEQ_PER_THREAD;
    } else {
        w->name = sj->name;
        w->seed = sbio_mix64((seed + pi) ^ (uint64_t)(k + 1));
        snprintf(j->block_what, sizeof(j->block_what), "%s:%d: phase \"%s\", job \"%s\": block",
                 d->path, sj->line, p->name, sj->name);
        w->block_what = j->block_what;
    }
    int rc = sj->mode == SBIO_MODE_NONE ? pipeline_job_ops(j, s, sj) : 0;
    if (d->tree.set)
        pipeline_job_tree(j, pi, &s->tree);
    j->job = *w;
    j->job.events = pipeline_rank_share(w->events, s->topo);
    j->job.rate = pipeline_rank_share(w->rate, s->topo);
    if (s->set->file_per_rank && s->topo->rank)
        j->job.seed = sbio_mix64(w->seed ^ s->topo->rank);
    j->env = (struct sbio_runner_env){
        .fs = &s->fs, .target = &s->target, .memgroup = &s->mem, .created = s->created};
    pipeline_place(j, s, threads_before, total_threads);
    return rc;
}

/* A run's status (0 ok, 1 failed, 130 interrupted) as a command code. */
static int pipeline_code(int status)
{
    return status == 130 ? -EINTR : status ? -SBIO_EFAILED : 0;
}

/* The run's status, the same on every rank: the worst of every rank's (an interruption first). */
static int pipeline_status_agree(int st)
{
    int g = sbio_mpi_agree(st == 130 ? -EINTR : st ? -EIO : 0, NULL);
    return g == -EINTR ? 130 : g ? 1 : 0;
}

/* How the phase's jobs shared it: a table after their total, and the phase's JSON `shares`.
 * A job's weight is its declared group's. */
static void pipeline_shares(struct pipeline *ses, const struct sbio_script_phase *p,
                            const struct pipeline_job *jobs, json_t *pj, bool want_doc)
{
    _Static_assert(SBIO_SCRIPT_MAX_JOBS <= SBIO_SHARES_MAX, "a phase's jobs fit the shares");
    const struct sbio_run_result *res[SBIO_SCRIPT_MAX_JOBS];
    struct sbio_cgroup_spec groups[SBIO_SCRIPT_MAX_JOBS];
    const char *names[SBIO_SCRIPT_MAX_JOBS];
    struct sbio_shares sh;
    for (unsigned k = 0; k < p->njobs; k++) {
        res[k] = &jobs[k].res;
        groups[k] = p->jobs[k].group;
        names[k] = p->jobs[k].name;
    }
    if (sbio_result_shares(&sh, res, groups, p->njobs))
        return;
    sbio_report_shares(ses->text, &sh, names);
    if (want_doc)
        json_object_set_new(pj, "shares", sbio_json_shares(&sh, names));
}

/* "3 threads", or under MPI "3 threads on each of 2 ranks". */
static const char *pipeline_threads(char *buf, size_t len, unsigned n,
                                    const struct sbio_topology *t)
{
    int l = snprintf(buf, len, "%u thread%s", n, n == 1 ? "" : "s");
    if (t->nranks > 1 && l > 0 && (size_t)l < len)
        snprintf(buf + l, len - (size_t)l, " on each of %u ranks", t->nranks);
    return buf;
}

/* Why job k measured nothing when it has no error of its own: the phase never started,
 * stopped by a sibling's failure (named), a signal, or another rank. Into buf. */
static const char *pipeline_unstarted_why(char *buf, size_t len, const struct pipeline_job *jobs,
                                          unsigned n, unsigned k, const char *name)
{
    const char *cause =
        jobs[k].res.stop_signal ? "a signal stopped the run" : "another rank of the run failed";
    for (unsigned i = 0; i < n; i++)
        if (i != k && jobs[i].res.error_msg[0]) {
            cause = jobs[i].res.error_msg;
            break;
        }
    snprintf(buf, len, "job %s: measured nothing: the phase stopped before its start (%s)", name,
             cause);
    return buf;
}

/* The text report of each job of a phase and, for several jobs, of their total (tot, NULL
 * when there is none); their JSON into pj. The worst job's status into *status. */
static void pipeline_report_phase(struct pipeline *ses, const struct sbio_script_phase *p,
                                  struct pipeline_job *jobs, struct sbio_run_result *tot,
                                  json_t *pj, bool want_doc, int *status)
{
    json_t *jj = json_array();
    bool measured = true;
    for (unsigned k = 0; k < p->njobs; k++) {
        char who[160]; /* two names of 64 bytes at most (decl.h) */
        snprintf(who, sizeof(who), "phase \"%s\", job \"%s\": ", p->name, p->jobs[k].name);
        int st = pipeline_status(&jobs[k].res, 0, true, who);
        *status = st > *status ? st : *status;
        /* A job that failed while starting measured nothing: its error (above) alone. */
        measured = measured && jobs[k].res.measured;
        if (!jobs[k].res.measured) {
            char why[sizeof(jobs[k].res.error_msg) + 160];
            const char *msg = jobs[k].res.error_msg;
            if (!msg[0])
                sbio_note("%s", msg = pipeline_unstarted_why(why, sizeof(why), jobs, p->njobs, k,
                                                             p->jobs[k].name));
            if (want_doc)
                json_array_append_new(jj, json_pack("{s:s,s:o,s:s,s:o}", "name", p->jobs[k].name,
                                                    "declared", sbio_json_declared(&p->jobs[k]),
                                                    "error", msg, "errors",
                                                    sbio_json_errors(&jobs[k].res)));
            continue;
        }
        bool wr = p->jobs[k].mode != SBIO_MODE_NONE ? sbio_mode_writes(p->jobs[k].mode)
                                                    : p->jobs[k].fsync_end;
        char prio[24], with[48] = "";
        if (jobs[k].whole.ioprio != SBIO_IOPRIO_NONE)
            snprintf(with, sizeof(with), ", I/O priority %s",
                     sbio_ioprio_name(prio, sizeof(prio), jobs[k].whole.ioprio));
        char thr[64], ops[320] = "";
        if (jobs[k].job.tree)
            sbio_report_tree_ops(ops, sizeof(ops), &p->jobs[k]);
        else
            pipeline_files_desc(ops, sizeof(ops), &p->jobs[k]);
        fprintf(ses->text, "\n--- Job %s (%s, %s%s%s%s) ---\n", p->jobs[k].name,
                pipeline_threads(thr, sizeof(thr), p->jobs[k].threads, ses->topo),
                sbio_engine_name(p->jobs[k].engine), ops,
                !wr                    ? ""
                : p->jobs[k].fsync_end ? ", fsync at end"
                                       : ", no fsync at end",
                with);
        if (jobs[k].group_desc[0])
            fprintf(ses->text, "Group: %s\n", jobs[k].group_desc);
        struct sbio_report_of of = {.set = ses->set, .job = &jobs[k].whole};
        sbio_report_text_scope(ses->text, &of, &ses->fs, &jobs[k].res,
                               p->njobs > 1 ? SBIO_REPORT_JOB_SHARE : SBIO_REPORT_WHOLE);
        if (want_doc)
            json_array_append_new(
                jj, json_pack("{s:s,s:o,s:o}", "name", p->jobs[k].name, "declared",
                              sbio_json_declared(&p->jobs[k]), "result",
                              sbio_json_result(&of, &ses->fs, &jobs[k].res, ses->env)));
    }
    json_object_set_new(pj, "jobs", jj);
    if (!tot) { /* one job, or one that measured nothing: the phase's row is the job's */
        sbio_report_phase_add(&ses->summary, p->name, p->njobs, measured ? &jobs[0].res : NULL);
        return;
    }
    /* The total's configuration: the first job's, with every job's threads and the deepest
     * queue. */
    struct sbio_job all = jobs[0].whole;
    all.threads = tot->threads / ses->topo->nranks; /* per rank, as a plain run's */
    all.rate = 0;                                   /* each job's --rate is reported with the job */
    all.ioprio = tot->ioprio;                       /* the jobs' own when they differ */
    for (unsigned k = 1; k < p->njobs; k++)
        all.iodepth = jobs[k].whole.iodepth > all.iodepth ? jobs[k].whole.iodepth : all.iodepth;
    struct sbio_report_of of = {.set = ses->set, .job = &all};
    fprintf(ses->text, "\n--- Phase %s, all jobs ---\n", p->name);
    sbio_report_text(ses->text, &of, &ses->fs, tot);
    sbio_report_phase_add(&ses->summary, p->name, p->njobs, tot);
    if (want_doc)
        json_object_set_new(pj, "total", sbio_json_result(&of, &ses->fs, tot, ses->env));
    pipeline_shares(ses, p, jobs, pj, want_doc);
}

/* The phase's job groups, made under the run's sbio.PID folder (recorded in its state
 * file) with their settings written and read back. 0 or -errno (said). */
static int pipeline_make_groups(struct pipeline *ses, const struct sbio_script_phase *p,
                                struct pipeline_job *jobs)
{
    for (unsigned k = 0; k < p->njobs; k++) {
        if (!p->jobs[k].group.set)
            continue;
        int rc =
            sbio_cgroup_job_make(&ses->cg, &p->jobs[k].group, p->jobs[k].name, &ses->target,
                                 &jobs[k].group, jobs[k].group_desc, sizeof(jobs[k].group_desc));
        if (rc)
            return rc;
        jobs[k].env.group = &jobs[k].group;
    }
    return 0;
}

/* Phase pi's jobs declared and checked, how their files are opened planned: ready for the kind's
 * ready step and their groups. 0, -SBIO_EUSAGE (the phase is refused; message printed) or -errno.
 */
static int pipeline_phase_ready(struct pipeline *ses, const struct sbio_script *s, unsigned pi,
                                uint64_t seed, struct pipeline_job *jobs)
{
    const struct sbio_script_phase *p = &s->phases[pi];
    unsigned total = 0, before = 0;
    for (unsigned k = 0; k < p->njobs; k++)
        total += p->jobs[k].threads;
    int rc = 0;
    for (unsigned k = 0; k < p->njobs && !rc; k++) {
        struct pipeline_job *j = &jobs[k];
        rc = pipeline_job_build(j, ses, pi, k, total, before, seed);
        before += p->jobs[k].threads;
        /* A plain run prints its header and interim lines as its job runs. */
        j->lines = (struct pipeline_lines){.out = ses->interim,
                                           .of = {.set = ses->set, .job = &j->whole},
                                           .s = ses,
                                           .seed = seed,
                                           .want_env = ses->want_doc,
                                           .note = ses->fd_note};
        pipeline_interim(j, ses->set, s->plain ? &j->lines : NULL);
    }
    /* Each job's checks before any starts: a refused job refuses its phase. */
    for (unsigned k = 0; k < p->njobs && !rc; k++)
        rc = sbio_runner_check(&jobs[k].job, &jobs[k].env);
    ses->fd_note[0] = 0;
    if (!rc)
        rc = pipeline_plan_fds(jobs, p->njobs, ses->fs.nfiles, ses->fd_note, sizeof(ses->fd_note));
    return rc;
}

/* Every rank's status at a meeting of phase p (pipeline_phase_run), as sbio_pipeline_agree: a
 * script's words what, with the phase named (the script goes on after a refused phase, so no
 * rank is said to have stopped); a plain run's, whole, the run being its one phase (a rank
 * that stops it stops them all; NULL: they agree without a word). */
static int pipeline_phase_agree(const struct pipeline *ses, const struct sbio_script_phase *p,
                                int rc, const char *what, const char *whole)
{
    if (ses->decl->plain)
        return whole ? sbio_pipeline_agree(ses->topo, rc, whole) : sbio_mpi_agree(rc, NULL);
    char said[160]; /* a phase name of 64 bytes at most (decl.h) */
    snprintf(said, sizeof(said), "%s phase \"%s\"", what, p->name);
    return pipeline_agree_said(ses->topo, rc, said, "");
}

/* Run phase p's ready jobs (rc: whether they are), meeting the other ranks before and after;
 * under MPI the jobs meet them through this rank's main thread (meet.h). A phase of several
 * jobs meets too, alone: a job that fails (an I/O error, the script's event()) stops its
 * siblings at once, not at the end of their time. 0, -SBIO_EUSAGE (refused here or on
 * another rank) or the first failure to start, the same on every rank. */
static int pipeline_phase_run(struct pipeline *ses, const struct sbio_script_phase *p,
                              struct pipeline_job *jobs, int rc)
{
    struct sbio_runner_sync up;
    struct sbio_mpi_watch *watch = rc ? NULL : sbio_mpi_watch_new(&up);
    bool meets = !rc && (watch || p->njobs > 1);
    struct sbio_meet *meet = meets ? sbio_meet_new(p->njobs, watch ? &up : NULL) : NULL;
    if (meets && !meet)
        rc = -ENOMEM;
    rc = pipeline_phase_agree(ses, p, rc, "refused", "refused the run");
    fflush(ses->text);
    for (unsigned k = 0; k < p->njobs; k++)
        jobs[k].env.sync = meet ? sbio_meet_sync(meet, k) : NULL;
    /* --warmup=auto: the jobs start measuring together (runner.h). */
    struct sbio_warmup_phase *wph =
        !rc && jobs[0].job.warmup_auto && p->njobs > 1 ? sbio_warmup_phase_new(p->njobs) : NULL;
    for (unsigned k = 0; k < p->njobs; k++)
        jobs[k].env.warmup_phase = wph;
    unsigned started = 0;
    if (!rc && (rc = pipeline_run_jobs(jobs, p->njobs, &started, meet)))
        sbio_err(ses->decl->plain ? "cannot start the run's threads%s%s"
                                  : "phase %s: cannot start job %s",
                 ses->decl->plain ? "" : p->name, ses->decl->plain ? "" : p->jobs[started].name);
    for (unsigned k = 0; k < started && !rc; k++)
        rc = jobs[k].rc;
    sbio_warmup_phase_free(wph);
    sbio_meet_free(meet);
    sbio_mpi_watch_free(watch);
    return pipeline_phase_agree(ses, p, rc, "could not run", "could not start its threads");
}

/* The phase's results as rank 0 reports them: each job's merged across ranks and, for several
 * jobs, their total into *tot (this rank's jobs merged, then merged across ranks: its per-rank
 * table is each rank's total). Alone, the jobs' own and their merge. Collective. *have_tot
 * false: no total. 0 or -ENOMEM / -EIO, the same on every rank. */
static int pipeline_phase_results(struct pipeline *ses, const struct sbio_script_phase *p,
                                  struct pipeline_job *jobs, struct sbio_run_result *tot,
                                  bool *have_tot)
{
    bool measured = true;
    for (unsigned k = 0; k < p->njobs; k++)
        measured = measured && jobs[k].res.measured;
    /* A job that measured nothing on one rank is reported without a total everywhere (a plain
     * run has no total: its ranks agree without a word). */
    measured = !pipeline_phase_agree(ses, p, measured ? 0 : -EIO, "measured nothing in", NULL);
    int rc = p->njobs > 1 && measured ? pipeline_merge_jobs(jobs, p->njobs, tot) : 0;
    *have_tot = p->njobs > 1 && measured && !rc;
    if (sbio_mpi_agree(rc, NULL)) {
        if (*have_tot)
            sbio_run_result_free(tot);
        *have_tot = false;
    }
    rc = 0;
    for (unsigned k = 0; k < p->njobs && !rc; k++)
        rc = sbio_mpi_reduce_result(&jobs[k].res);
    if (!rc && *have_tot)
        rc = sbio_mpi_reduce_result(tot);
    return rc;
}

/* The script's JSON document (schema sbio-script/1) from its phases, which it takes. */
static json_t *pipeline_script_doc(const struct sbio_script *s, json_t *phases)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string("sbio-script/1"));
    json_object_set_new(doc, "sbio_version", json_string(SBIO_VERSION));
    json_object_set_new(doc, "script", json_string(s->path));
    json_object_set_new(doc, "phases", phases);
    return doc;
}

/* Whether the script starts on a cold set: its first phase drops the page cache, or all its
 * jobs drop the set's pages. Pages cached before it are then gone, and every page the script
 * reads afterwards is charged to its memory group. */
static bool pipeline_script_cold(const struct sbio_script *s)
{
    if (!s->nphases)
        return false;
    const struct sbio_script_phase *p = &s->phases[0];
    bool inval = p->njobs > 0;
    for (unsigned k = 0; k < p->njobs; k++)
        inval = inval && p->jobs[k].invalidate;
    return p->drop_caches || inval;
}

int sbio_pipeline_check_script(const struct sbio_settings *set, const struct sbio_script *s)
{
    struct sbio_target t;
    if (sbio_decl_check(set, s, sbio_mpi_size()) || pipeline_target(set, &t) ||
        sbio_decl_check_system(set, s, &t))
        return -SBIO_EUSAGE;
    return 0;
}

int sbio_pipeline_check_run(const struct sbio_settings *set, const struct sbio_script *decl,
                            const struct sbio_topology *topo)
{
    struct pipeline s;
    int rc = decl->plain ? 0 : sbio_pipeline_check_script(set, decl);
    if (rc)
        return rc;
    rc = pipeline_open(&s, set, decl, topo, NULL, true);
    /* The command line's job as its run checks it against the set before applying anything;
     * a set seqwr would make is not there to check it against. (A script's phase refused at
     * that check is one the script goes on without: its run is not refused.) */
    if (!rc && decl->plain && s.fs.nfiles) {
        struct pipeline_job jobs[SBIO_SCRIPT_MAX_JOBS];
        memset(jobs, 0, sizeof(jobs));
        rc = pipeline_phase_ready(&s, decl, 0, 0, jobs);
        pipeline_jobs_free(jobs, decl->phases[0].njobs);
    }
    pipeline_close(&s);
    return rc == -SBIO_EUSAGE || !rc ? rc : -SBIO_EUSAGE;
}

/* "a tree of 2000 slots (1000 files, 15.3 MiB)" */
static void pipeline_tree_desc(const struct sbio_tree *t, char *buf, size_t len)
{
    uint64_t files = 0, bytes = 0;
    for (uint64_t i = 0; i < t->files; i++)
        if (t->cur_size[i] != SBIO_TREE_NONE) {
            files++;
            bytes += t->cur_size[i];
        }
    char b[32];
    snprintf(buf, len, "a tree of %" PRIu64 " slot%s (%" PRIu64 " file%s, %s)", t->files,
             t->files == 1 ? "" : "s", files, files == 1 ? "" : "s",
             sbio_fmt_bytes(b, sizeof(b), bytes));
}

/* The script's header: what runs where, and the seed (rank 0's, on every rank). */
static void pipeline_script_header(struct pipeline *ses, const struct sbio_script *s, uint64_t seed)
{
    const struct sbio_topology *t = ses->topo;
    char b[32], on[160];
    if (ses->tree.rootfd >= 0)
        pipeline_tree_desc(&ses->tree, on, sizeof(on));
    else
        snprintf(on, sizeof(on), "%u files (%s)", ses->fs.nfiles,
                 sbio_fmt_bytes(b, sizeof(b), ses->fs.bytes));
    fprintf(ses->text,
            "sbio %s: script %s, %u phase%s on %s\nRandom seed: %" PRIu64
            " (repeat with --rand-seed=%" PRIu64 ")\n",
            SBIO_VERSION, s->path, s->nphases, s->nphases == 1 ? "" : "s", on, seed, seed);
    if (t->nranks > 1)
        fprintf(ses->text,
                "MPI: %u ranks on %u host%s, each running every job's threads; %s; a phase's "
                "events and a job's rate are split across ranks\n",
                t->nranks, t->nhosts, t->nhosts == 1 ? "" : "s",
                ses->set->file_per_rank ? "each rank its own file set in DIR/rank.N"
                                        : "one file set shared by every rank");
    sbio_report_memgroup(ses->text, &ses->mem,
                         pipeline_script_cold(s) || ses->set->drop_caches || ses->set->invalidate);
}

/* The script's end: its report() hook (rank 0's, with the merged document), and the run's
 * status, the same on every rank: the worst of every rank's. */
static int pipeline_script_end(struct pipeline *ses, const struct sbio_script *s, json_t *mine,
                               int st)
{
    const struct sbio_settings *set = ses->set;
    if (mine && s->has_report) {
        char err[512];
        fprintf(ses->text, "\n=== report() of %s ===\n", s->path);
        fflush(ses->text);
        if (sbio_script_report(s, set->xname, set->xvalue, set->nxopt, mine, ses->text, err,
                               sizeof(err))) {
            sbio_err("report(): %s", err);
            st = st ? st : 1;
        }
    }
    return pipeline_status_agree(st);
}

/* How the pipeline runs its kind of declaration, at the steps of the one pipeline
 * (sbio_pipeline_run): the command line's one job as sysbench runs and reports it, or a
 * script's phases. */
struct pipeline_kind {
    /* After the set is opened (rc: how): a script's settings applied and its header printed.
     * False: the run stops there (rc says why). */
    bool (*begin)(struct pipeline *s, int *rc);
    /* Phase pi is about to start: a script's banner. */
    void (*phase)(struct pipeline *s, unsigned pi);
    /* Its jobs built and checked (rc: how): the command line's run applies the settings only
     * now, so that a refused run changes nothing. rc, or why the phase cannot run. */
    int (*ready)(struct pipeline *s, int rc);
    /* Phase p ran (rc: how; 0: its results are merged across ranks): reported (rank 0),
     * statuses kept. The run's code, 0 to go on. */
    int (*done)(struct pipeline *s, const struct sbio_script_phase *p, struct pipeline_job *jobs,
                struct sbio_run_result *tot, int rc);
    /* After the last phase, the settings put back (rrc: how): the run's code. */
    int (*end)(struct pipeline *s, int rc, int rrc);
};

/* Phase pi: its jobs side by side, then their reports (rank 0's, under MPI). rc: whether the
 * run can go on to it. Returns 0 or what stops the run. */
static int pipeline_phase(struct pipeline *ses, const struct pipeline_kind *kind, unsigned pi,
                          int rc)
{
    const struct sbio_script_phase *p = &ses->decl->phases[pi];
    struct pipeline_job jobs[SBIO_SCRIPT_MAX_JOBS];
    memset(jobs, 0, sizeof(jobs));
    kind->phase(ses, pi);
    /* A phase starts on a whole set: what an earlier phase's seqwr left is written first. */
    if (!rc && pi > 0)
        rc = pipeline_finish_short(ses, false);
    unsigned mark = ses->cg.ndirs; /* the phase's groups are made after it */
    /* A tree as the phase finds it (earlier phases, other ranks changed it). */
    int ready = rc ? rc : ses->tree.rootfd >= 0 ? sbio_tree_scan(&ses->tree) : 0;
    ready = ready ? ready : pipeline_phase_ready(ses, ses->decl, pi, ses->seed, jobs);
    ready = kind->ready(ses, ready);
    rc = pipeline_phase_run(ses, p, jobs, ready ? ready : pipeline_make_groups(ses, p, jobs));
    if (sbio_cgroups_remove_to(&ses->cg, mark))
        sbio_err("some control groups could not be removed; run sbio restore as root");
    struct sbio_run_result tot;
    bool have_tot = false;
    if (!rc)
        rc = pipeline_phase_results(ses, p, jobs, &tot, &have_tot);
    rc = kind->done(ses, p, jobs, have_tot ? &tot : NULL, rc);
    if (have_tot)
        sbio_run_result_free(&tot);
    pipeline_jobs_free(jobs, p->njobs);
    return rc;
}

/* The command line's run: nothing before its phase (its header is printed once its threads
 * are up, pipeline_ready). */
static bool plain_begin(struct pipeline *s, int *rc)
{
    (void)s;
    (void)rc;
    return true;
}

static void plain_phase(struct pipeline *s, unsigned pi)
{
    (void)s;
    (void)pi;
}

/* Its job checked: a set seqwr made for a run refused here is taken back (bad input leaves
 * no trace); else the settings applied. */
static int plain_ready(struct pipeline *s, int rc)
{
    if (rc == -SBIO_EUSAGE && s->created)
        sbio_fileset_discard(&s->fs);
    if (!rc)
        rc = pipeline_finish_short(s, s->set->mode == SBIO_MODE_SEQWR);
    if (!rc)
        rc = pipeline_scope_verify(s, s->decl);
    if (!rc)
        rc = pipeline_appends(s, s->decl);
    if (!rc)
        rc = pipeline_apply(s);
    return rc;
}

/* Rank 0 reports the merged result (text, and the JSON document when asked for); every rank
 * keeps its status. */
static int plain_done(struct pipeline *s, const struct sbio_script_phase *p,
                      struct pipeline_job *jobs, struct sbio_run_result *tot, int rc)
{
    (void)p;
    (void)tot;
    if (rc)
        return rc;
    struct sbio_run_result *res = &jobs[0].res;
    bool report = s->topo->rank == 0;
    /* A run that failed while starting measured nothing: its error alone is said. */
    if (report && res->measured) {
        sbio_report_text(s->text, &jobs[0].lines.of, &s->fs, res);
        if (s->doc)
            *s->doc = sbio_json_result(&jobs[0].lines.of, &s->fs, res, s->env);
    } else if (report && !res->error && res->stop_signal) {
        sbio_err("stopped by a signal before the run started");
    }
    s->st = pipeline_status(res, 0, report, NULL);
    s->ran = true;
    return 0;
}

/* The run's status, the same on every rank: the worst of every rank's, a setting not put
 * back a failure. */
static int plain_end(struct pipeline *s, int rc, int rrc)
{
    if (!s->ran)
        return rc;
    return pipeline_code(pipeline_status_agree(s->st ? s->st : rrc ? 1 : 0));
}

static const struct pipeline_kind plain_kind = {
    .begin = plain_begin,
    .phase = plain_phase,
    .ready = plain_ready,
    .done = plain_done,
    .end = plain_end,
};

/* A script's run under --drop-caches or --invalidate (compare's default) starts from the
 * device as a plain run does: before its first phase the whole page cache is dropped (host
 * leaders), or each file of the set written back and its pages dropped; a phase's drop_caches
 * and a job's invalidate add their own. A tree's files are left, as its jobs leave them. 0 or
 * -errno (message printed). */
static int script_cold_start(struct pipeline *s)
{
    const struct sbio_settings *set = s->set;
    if (set->drop_caches)
        return s->topo->host_leader ? pipeline_drop_caches(s) : 0;
    if (!set->invalidate || s->fs.dirfd < 0)
        return 0;
    for (unsigned i = 0; i < s->fs.nfiles; i++) {
        const char *name = s->fs.files[i].name;
        int rc = sbio_cache_invalidate_at(s->fs.dirfd, name, 0, NULL);
        if (rc) {
            sbio_err("--invalidate: %s/%s: %s", set->dir, name, strerror(-rc));
            return rc;
        }
    }
    fprintf(s->text,
            "Page cache: the set's pages dropped before the first phase (--invalidate, %u "
            "file%s)\n",
            s->fs.nfiles, s->fs.nfiles == 1 ? "" : "s");
    return 0;
}

/* A script: its settings applied for all its phases, its tree opened by every rank, its header
 * and the environment printed, the page cache dropped as the command line says. */
static bool script_begin(struct pipeline *s, int *rc)
{
    if (!*rc)
        *rc = pipeline_finish_short(s, false);
    if (!*rc)
        *rc = pipeline_scope_verify(s, s->decl);
    if (!*rc)
        *rc = pipeline_appends(s, s->decl);
    if (!*rc)
        *rc = pipeline_apply(s);
    *rc = sbio_pipeline_agree(s->topo, *rc, "refused the script");
    if (!*rc && s->decl->tree.set)
        *rc = pipeline_tree_shared(s, s->decl);
    if (*rc)
        return false;
    pipeline_script_header(s, s->decl, s->seed);
    pipeline_describe(s, s->want_doc);
    *rc = sbio_pipeline_agree(s->topo, script_cold_start(s), "could not drop the page cache");
    if (*rc)
        return false;
    s->phases = json_array();
    return true;
}

/* "=== Phase 1/3: load (2 jobs, 5 threads) ===", and its page cache dropped when it asks. */
static void script_phase(struct pipeline *s, unsigned pi)
{
    const struct sbio_script_phase *p = &s->decl->phases[pi];
    unsigned total = 0;
    for (unsigned k = 0; k < p->njobs; k++)
        total += p->jobs[k].threads;
    char thr[64];
    fprintf(s->text, "\n=== Phase %u/%u: %s (%u job%s, %s) ===\n", pi + 1, s->decl->nphases,
            p->name, p->njobs, p->njobs == 1 ? "" : "s",
            pipeline_threads(thr, sizeof(thr), total, s->topo));
    if (p->drop_caches && s->topo->host_leader && (geteuid() != 0 || pipeline_drop_caches(s)))
        fprintf(s->text, "Page cache not dropped: that needs root\n");
    fflush(s->text);
}

/* Its jobs checked: how their files are opened, said now. */
static int script_ready(struct pipeline *s, int rc)
{
    if (!rc)
        fputs(s->fd_note, s->text);
    return rc;
}

/* A phase the system refuses (an O_DIRECT size the device cannot do, …) is reported as
 * refused, with the reason printed above, counted, and the script goes on. */
static int script_done(struct pipeline *s, const struct sbio_script_phase *p,
                       struct pipeline_job *jobs, struct sbio_run_result *tot, int rc)
{
    json_t *pj = json_pack("{s:s}", "name", p->name);
    if (rc == -SBIO_EUSAGE) {
        fprintf(s->text, "Phase %s refused (see the message above); going on\n", p->name);
        json_object_set_new(pj, "refused", json_true());
        sbio_report_phase_add(&s->summary, p->name, p->njobs, NULL);
        json_object_set_new(pj, "jobs", json_array());
        s->refused++;
        rc = 0;
    } else if (!rc && s->topo->rank == 0) {
        pipeline_report_phase(s, p, jobs, tot, pj, s->want_doc, &s->st);
    } else if (!rc) { /* rank 0 reports; the others know their own status */
        for (unsigned k = 0; k < p->njobs; k++) {
            int st = pipeline_status(&jobs[k].res, 0, false, NULL);
            s->st = st > s->st ? st : s->st;
        }
    } else {
        json_object_set_new(pj, "jobs", json_array());
    }
    for (unsigned k = 0; k < p->njobs && !rc; k++)
        s->script_error =
            s->script_error || (jobs[k].res.error && jobs[k].res.error_kind == SBIO_ERROR_SCRIPT);
    json_array_append_new(s->phases, pj);
    return rc;
}

/* The phases' table, the document, report(), and the status: a refused phase is the script's
 * input that cannot run here, exit 2 even when the other phases ran, unless a run failed (1)
 * or was interrupted (130). */
static int script_end(struct pipeline *s, int rc, int rrc)
{
    const struct sbio_script *d = s->decl;
    if (!s->phases) /* refused before its first phase */
        return rc;
    sbio_report_phases(s->text, &s->summary);
    int st = s->st ? s->st : rrc ? 1 : 0;
    json_t *mine = !rc && s->want_doc ? pipeline_script_doc(d, s->phases) : NULL;
    if (!mine)
        json_decref(s->phases);
    st = pipeline_script_end(s, d, mine, st);
    if (s->doc)
        *s->doc = mine;
    else
        json_decref(mine);
    if (!rc && !st && s->refused) {
        sbio_err("%s: %u of %u phase%s refused (the reasons above)", d->path, s->refused,
                 d->nphases, d->nphases == 1 ? "" : "s");
        return -SBIO_EUSAGE;
    }
    return rc ? rc : pipeline_code(st);
}

static const struct pipeline_kind script_kind = {
    .begin = script_begin,
    .phase = script_phase,
    .ready = script_ready,
    .done = script_done,
    .end = script_end,
};

/* The phases from pi on are not run: after the script's error in event() (a bug that the
 * next phases would meet again; go -EINVAL, here or on another rank) they are named. */
static void pipeline_not_run(struct pipeline *s, unsigned pi, int go)
{
    if (go != -EINVAL || s->topo->rank != 0)
        return;
    fprintf(s->text, "\nNot run after the script's error:");
    for (unsigned i = pi; i < s->decl->nphases; i++)
        fprintf(s->text, "%s phase %s", i > pi ? "," : "", s->decl->phases[i].name);
    fputc('\n', s->text);
}

int sbio_pipeline_run(const struct sbio_settings *set, const struct sbio_script *decl,
                      const struct sbio_topology *topo, FILE *text, FILE *interim, json_t **doc)
{
    const struct pipeline_kind *kind = decl->plain ? &plain_kind : &script_kind;
    struct pipeline s;
    if (doc)
        *doc = NULL;
    int rc = decl->plain ? 0 : sbio_pipeline_check_script(set, decl);
    if (rc)
        return rc;
    rc = pipeline_open(&s, set, decl, topo, text, false);
    s.interim = interim;
    s.doc = doc;
    /* The report hook reads the same document JSON output writes; rank 0's is the merged one. */
    s.want_doc = topo->rank == 0 && (doc || decl->has_report);
    /* The seed is drawn before any header prints it; rank 0's is every rank's, so
     * --rand-seed repeats a multi-rank run too. */
    s.seed = set->rand_seed ? set->rand_seed : sbio_mix64(sbio_now_ns());
    sbio_mpi_bcast_u64(&s.seed);
    if (!kind->begin(&s, &rc)) {
        /* What this rank applied before another refused is put back (nothing, when nothing
         * was applied). */
        if (pipeline_restore(&s))
            rc = rc ? rc : -SBIO_EFAILED;
        pipeline_close(&s);
        return rc;
    }
    /* Every rank starts the next phase or none: a signal on one rank stops them all (a plain
     * run's one phase sees it as its run starts). */
    int first = rc; /* a plain run's first phase meets the other ranks with it */
    rc = 0;
    for (unsigned pi = 0; pi < decl->nphases && !rc; pi++) {
        int go = sbio_stop_requested() || s.st == 130 ? -EINTR : s.script_error ? -EINVAL : 0;
        if ((pi || !decl->plain) && (go = sbio_mpi_agree(go, NULL))) {
            pipeline_not_run(&s, pi, go);
            break;
        }
        rc = pipeline_phase(&s, kind, pi, pi ? 0 : first);
    }
    int rrc = pipeline_restore(&s);
    rc = kind->end(&s, rc, rrc);
    pipeline_close(&s);
    return rc;
}
