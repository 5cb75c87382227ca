#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cgroup.h"
#include "environment.h"
#include "fileset.h"
#include "job.h"
#include "jobproc.h"
#include "meet.h"
#include "mix.h"
#include "mpi.h"
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
static int session_target(const struct sbio_settings *set, struct sbio_target *t)
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

int sbio_session_check(const struct sbio_settings *set)
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
    int rc = session_target(set, &t);
    if (!rc)
        rc = sbio_tune_check(&t, set->scheduler, set->queue, set->nqueue);
    return rc;
}

int sbio_session_try_settings(const struct sbio_settings *set, const struct sbio_topology *topo)
{
    if ((!set->scheduler && !set->nqueue) || !topo->host_leader)
        return 0;
    struct sbio_target t;
    struct sbio_tune tune;
    int rc = session_target(set, &t);
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
static int session_status(const struct sbio_run_result *res, int rrc, bool report, const char *who)
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
static int session_agree_said(const struct sbio_topology *topo, int rc, const char *what,
                              const char *then)
{
    unsigned who = 0;
    int g = sbio_mpi_agree(rc, &who);
    if (g && g != -EINTR && who != topo->rank && topo->rank == 0)
        sbio_err("rank %u of %u %s (its message above)%s", who, topo->nranks, what, then);
    return g;
}

int sbio_session_agree(const struct sbio_topology *topo, int rc, const char *what)
{
    return session_agree_said(topo, rc, what, "; every rank stopped");
}

/* One session: the set opened, the device settings applied for its duration, and put back
 * at the end whatever happened. Every command that runs a workload (run, compare, a script,
 * each MPI rank) goes through it. */
struct session {
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
    uint64_t seed;     /* rank 0's, on every rank */
    char fd_note[256]; /* how the phase's files are opened ("" when as usual) */
};

/* The script's set must be the one it declares (with these option values). */
static int session_check_declared(const struct session *s, const char *script)
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

/* Whether this process opens (and so repairs) its tree in session_open: alone, on a tree of
 * its own (--file-per-rank), or as rank 0 of ranks that share one; the others open it once
 * rank 0 has (session_tree_shared), so that no two put it back at once. */
static bool session_tree_mine(const struct session *s)
{
    return s->topo->nranks == 1 || s->set->file_per_rank || s->topo->rank == 0;
}

/* The ranks sharing a tree, but rank 0, open it after rank 0 (which repaired it), every rank
 * then agreeing. 0 or the worst rank's failure. */
static int session_tree_shared(struct session *s, const struct sbio_script *script)
{
    int rc = 0;
    if (!session_tree_mine(s))
        rc = sbio_tree_open(&s->tree, s->set, &script->tree, script->path, s->text);
    return sbio_session_agree(s->topo, rc, "could not open the file tree");
}

/* Check and open the set (script: the one it declares; seqwr may create one). A tree (the
 * script's, when tree is not NULL) is checked against its manifest and put back as prepared
 * here, before any setting is changed: nothing a run measures. 0, -SBIO_EUSAGE (message
 * printed, nothing changed) or -errno. */
static int session_open(struct session *s, const struct sbio_settings *set,
                        const struct sbio_script *decl, const struct sbio_topology *topo,
                        FILE *text)
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
    int rc = sbio_session_check(set);
    if (!rc)
        rc = session_target(set, &s->target);
    if (!rc && decl->tree.set)
        return session_tree_mine(s) ? sbio_tree_open(&s->tree, set, &decl->tree, script, text) : 0;
    if (!rc && set->filename && !script)
        rc = sbio_fileset_open_device(&s->fs, set);
    else if (!rc)
        rc = sbio_fileset_open(&s->fs, set, !script && set->mode == SBIO_MODE_SEQWR, &s->created);
    if (!rc && script && set->nfile_sizes)
        rc = session_check_declared(s, script);
    return rc;
}

/* --memory-limit: this process, every thread, into a memory group with the limit, before the
 * set's pages are dropped and the run starts (pages cached before stay charged where they
 * were). 0 or -errno (message printed, the groups made removed). */
static int session_memory_limit(struct session *s)
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
static int session_apply(struct session *s)
{
    if (s->created)
        fprintf(s->text, "No file set in %s: seqwr creates one (%u files)\n", s->set->dir,
                s->fs.nfiles);
    const struct sbio_settings *set = s->set;
    int rc = sbio_tune_apply(&s->tune, &s->target, s->topo->host_leader ? set->scheduler : NULL,
                             set->queue, s->topo->host_leader ? set->nqueue : 0, s->text);
    if (!rc && set->memory_limit && (rc = session_memory_limit(s)))
        sbio_tune_restore(&s->tune);
    s->applied = !rc;
    return rc;
}

/* A run that may write without --verify leaves blocks without stamps: the set's promise that
 * every block carries one (verify=1 in its manifest) is withdrawn before the first write, so
 * that no later --verify run, nor a kill in the middle, finds a false one. --verify then
 * checks the blocks its run writes, as on a set prepared without it. Under MPI the ranks
 * sharing a set drop it alike, rank 0 alone writing the manifest. 0 or -errno (said). */
static int session_scope_verify(struct session *s, const struct sbio_script *script)
{
    if (s->set->verify || !s->fs.verify || s->fs.raw || s->fs.dirfd < 0 ||
        !sbio_fileset_cmd_writes(s->set, script))
        return 0;
    s->fs.verify = false;
    bool writer = s->set->file_per_rank || s->topo->rank == 0;
    return writer ? sbio_fileset_mark(&s->fs, s->fs.complete) : 0;
}

/* The environment, read once while sbio's settings are in effect: described in the text and
 * (want_env) kept for the JSON documents. */
static void session_describe(struct session *s, bool want_env)
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
static int session_restore(struct session *s)
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
static void session_close(struct session *s)
{
    json_decref(s->env);
    s->env = NULL;
    sbio_fileset_close(&s->fs);
    sbio_tree_close(&s->tree);
}

/* sync, then drop the page cache. 0 or -errno (message printed). */
static int session_drop_caches(const struct session *s)
{
    int rc = sbio_drop_caches();
    if (!rc)
        fprintf(s->text, "Page cache dropped (sync, then drop_caches=3)\n");
    return rc;
}

/* A plain run as it starts: where its header and interim lines go, and how they are
 * worded. */
struct session_lines {
    FILE *out;
    struct sbio_report_of of; /* what the reports describe: the job, the settings */
    struct session *s;
    uint64_t seed;
    bool want_env;    /* the environment is kept for the JSON document */
    const char *note; /* said after the header (how the files are opened) */
};

/* One job of a phase: what it runs, how the reports describe it, where it runs, and what it
 * measured. A plain run is a phase of one job. */
struct session_job {
    struct sbio_job job;
    struct sbio_job whole; /* the job over every rank, as the reports describe it */
    struct sbio_mix mix;
    struct sbio_script_hook hook; /* event = true: the script's event(ctx) per op */
    const struct sbio_hook_ops *hook_ops;
    uint64_t *sizes;
    struct sbio_interim interim;
    struct session_lines lines; /* a plain run's */
    struct sbio_runner_env env;
    struct sbio_run_result res;
    int rc;
    pthread_t tid;
    char block_what[160];            /* which declaration set the block size */
    struct sbio_cgroup_job group;    /* its I/O group for the phase (version NONE: none) */
    char group_desc[PATH_MAX + 256]; /* the group as the kernel shows it, for the report */
    struct sbio_jobproc proc;        /* a job in a v2 group: its process */
};

/* The threads are up, their files open: the header and the environment, then the caches
 * dropped. Printed only now, so that a run that cannot start says its error alone. */
static int session_ready(void *ctx)
{
    const struct session_lines *l = ctx;
    struct session *s = l->s;
    sbio_report_header(s->text, &l->of, s->topo, &s->fs, l->seed);
    fputs(l->note, s->text);
    sbio_report_memgroup(s->text, &s->mem, l->of.job->invalidate || s->set->drop_caches);
    session_describe(s, l->want_env);
    int rc = s->set->drop_caches && s->topo->host_leader ? session_drop_caches(s) : 0;
    fflush(s->text);
    return rc;
}

static void session_started(void *ctx)
{
    const struct session_lines *l = ctx;
    fprintf(l->out, "\nThreads started!\n\n");
    fflush(l->out);
}

static void session_line(void *ctx, double t_s, double interval_s, const struct sbio_stats *cur,
                         const struct sbio_stats *prev)
{
    const struct session_lines *l = ctx;
    sbio_report_interval(l->out, &l->of, t_s, interval_s, cur, prev);
}

/* The samples of the result's time series: every --log-interval, else every
 * --report-interval; lines (lines not NULL) every --report-interval. */
static void session_interim(struct session_job *j, const struct sbio_settings *set,
                            struct session_lines *lines)
{
    uint64_t print_ns = lines ? set->report_interval_s * 1000000000ULL : 0;
    j->interim = (struct sbio_interim){
        .print_ns = print_ns,
        .log_ns = set->log_interval_ms ? set->log_interval_ms * 1000000ULL : print_ns,
        .ctx = lines,
        .ready = lines ? session_ready : NULL,
        .started = lines ? session_started : NULL,
        .line = lines ? session_line : NULL,
    };
    j->env.interim = &j->interim;
}

/* Descriptors this process has open now. */
static uint64_t session_open_fds(void)
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
static int session_plan_fds(struct session_job *jobs, unsigned n, unsigned nfiles, char *note,
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
    uint64_t base = session_open_fds() + SESSION_FD_SLACK;
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

static void *session_job_main(void *arg)
{
    struct session_job *j = arg;
    j->rc = sbio_runner_run(&j->job, &j->env, &j->res);
    return NULL;
}

/* A job in a cgroup v2 group runs in a process of its own (jobproc.h). */
static bool session_job_forks(const struct session_job *j)
{
    return j->group.version == SBIO_CGROUP_V2;
}

/* Run a phase's jobs side by side, each on its own threads (or process); they start
 * together. A job in a v2 group is forked before any thread job starts (a fork copies only
 * the forking thread). Alone, a single thread job runs on this thread; under meet (the jobs
 * meeting other processes, meet.h) every job runs on threads of its own while this thread
 * serves their meetings, whose MPI calls must come from it. 0, or -EAGAIN when a job could
 * not be started (*started: its index; n when all were). */
static int session_run_jobs(struct session_job *jobs, unsigned n, unsigned *started,
                            struct sbio_meet *meet)
{
    unsigned nthr = 0, ran = 0; /* ran: a bit per job started on a thread or process */
    int rc = 0;
    for (unsigned k = 0; k < n; k++)
        nthr += !session_job_forks(&jobs[k]);
    *started = n;
    for (unsigned k = 0; k < n && !rc; k++) {
        struct session_job *j = &jobs[k];
        if (!session_job_forks(j))
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
        struct session_job *j = &jobs[k];
        if (session_job_forks(j))
            continue;
        if (nthr == 1 && !meet) { /* alone, on this thread */
            session_job_main(j);
        } else if (pthread_create(&j->tid, NULL, session_job_main, j)) {
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
        if (session_job_forks(&jobs[k]))
            sbio_jobproc_finish(&jobs[k].proc, jobs[k].job.name, &jobs[k].res, &jobs[k].rc);
        else
            pthread_join(jobs[k].tid, NULL);
    }
    return rc;
}

/* What a phase's jobs hold once the phase is reported: every job's, since a forked job
 * after the one that could not start has its result too (a job never started has a zeroed
 * one). */
static void session_jobs_free(struct session_job *jobs, unsigned njobs)
{
    for (unsigned k = 0; k < njobs; k++) {
        if (!jobs[k].rc)
            sbio_run_result_free(&jobs[k].res);
        free((void *)jobs[k].hook_ops);
        free(jobs[k].sizes);
    }
}

/* The phase's total: every job's threads side by side, merged. */
static int session_merge_jobs(struct session_job *jobs, unsigned n, struct sbio_run_result *tot)
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

/* A job's group as declared (0: not set), null without one. */
static json_t *group_declared(const struct sbio_cgroup_spec *g)
{
    if (!g->set)
        return json_null();
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:I}", "weight", (json_int_t)g->weight,
                     "bfq_weight", (json_int_t)g->bfq_weight, "rbps", (json_int_t)g->rbps, "wbps",
                     (json_int_t)g->wbps, "riops", (json_int_t)g->riops, "wiops",
                     (json_int_t)g->wiops, "device",
                     g->max_dev[0] ? json_string(g->max_dev) : json_null(), "latency_us",
                     (json_int_t)g->latency_us);
}

/* A tree job's declaration beyond a flat mix's: the weights of its file-system operations
 * (those above 0) in "mix", its "flow" and "appends" when it has them. */
static void job_declared_tree(json_t *d, const struct sbio_script_job *sj)
{
    json_t *mix = json_object_get(d, "mix"), *flow = json_array(), *app = json_array();
    for (int op = SBIO_MIX_FS_FIRST; op < SBIO_MIX_NR; op++)
        if (sj->weight[op] > 0)
            json_object_set_new(mix, sbio_mix_op_name(op), json_real(sj->weight[op]));
    for (unsigned i = 0; i < sj->nflow; i++)
        json_array_append_new(flow, json_string(sbio_mix_op_name(sj->flow[i])));
    for (unsigned k = 0; k < sj->nappend; k++)
        json_array_append_new(app, json_pack("{s:I,s:f}", "bytes", (json_int_t)sj->append[k],
                                             "weight", sj->append_weight[k]));
    if (sj->nflow)
        json_object_set_new(d, "flow", flow);
    else
        json_decref(flow);
    if (sj->nappend)
        json_object_set_new(d, "appends", app);
    else
        json_decref(app);
}

/* A job as the script declared it, for the JSON beside its result (the result's config
 * describes the run, and a mix is no sysbench mode). */
static json_t *job_declared(const struct sbio_script_job *sj)
{
    char fl[64];
    json_t *d = json_object(), *blocks = json_array();
    json_object_set_new(d, "threads", json_integer(sj->threads));
    json_object_set_new(d, "ioengine", json_string(sbio_engine_name(sj->engine)));
    json_object_set_new(d, "iodepth", json_integer(sj->iodepth));
    json_object_set_new(d, "file_extra_flags",
                        json_string(sbio_extra_flags_str(fl, sizeof(fl), sj->flags)));
    json_object_set_new(d, "rate_ops_per_s", json_integer((json_int_t)sj->rate));
    json_object_set_new(d, "think_us", json_integer((json_int_t)sj->think_us));
    json_object_set_new(d, "invalidate", json_boolean(sj->invalidate));
    json_object_set_new(d, "fadvise", json_string(sbio_fadvise_name(sj->fadvise)));
    json_object_set_new(d, "random_order", json_string(sbio_random_order_name(sj->random_order)));
    char prio[24];
    json_object_set_new(d, "ioprio", json_string(sbio_ioprio_name(prio, sizeof(prio), sj->ioprio)));
    json_object_set_new(d, "group", group_declared(&sj->group));
    for (unsigned k = 0; k < sj->nblocks; k++)
        json_array_append_new(blocks, json_pack("{s:I,s:f}", "bytes", (json_int_t)sj->block[k],
                                                "weight", sj->block_weight[k]));
    json_object_set_new(d, "blocks", blocks);
    if (sj->mode != SBIO_MODE_NONE) {
        json_object_set_new(d, "kind", json_string("mode"));
        json_object_set_new(d, "mode", json_string(sbio_mode_name(sj->mode)));
        json_object_set_new(d, "fsync_freq", json_integer((json_int_t)sj->fsync_freq));
        json_object_set_new(d, "fsync_end", json_boolean(sj->fsync_end));
        json_object_set_new(d, "rw_ratio", json_real(sj->rw_ratio));
        json_object_set_new(
            d, "stream", json_string(sj->stream == SBIO_SEQ_PER_THREAD ? "per-thread" : "shared"));
    } else if (sj->event) {
        json_object_set_new(d, "kind", json_string("event"));
    } else {
        json_object_set_new(d, "kind", json_string("mix"));
        json_object_set_new(
            d, "mix",
            json_pack("{s:f,s:f,s:f,s:f,s:f}", "read", sj->weight[SBIO_MIX_READ], "write",
                      sj->weight[SBIO_MIX_WRITE], "fsync", sj->weight[SBIO_MIX_FSYNC], "fdatasync",
                      sj->weight[SBIO_MIX_FDATASYNC], "rmw", sj->weight[SBIO_MIX_RMW]));
        job_declared_tree(d, sj);
        json_object_set_new(d, "pattern", json_string(sbio_pattern_name(sj->pattern)));
        json_object_set_new(d, "fsync_end", json_boolean(sj->fsync_end));
        json_object_set_new(d, "pattern_a", json_real(sj->pa));
        json_object_set_new(d, "pattern_b", json_real(sj->pb));
    }
    return d;
}

/* Where a job's threads stand among all those that share its set (runner.h): the other
 * ranks' on a set they share and, under --verify, the other jobs' of its phase, whose blocks
 * must be disjoint from its own. before: the threads of the phase's jobs before it; phase:
 * all the phase's threads on this rank (a plain run's are its job's). */
static void session_place(struct session_job *j, const struct session *s, unsigned before,
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
static uint64_t session_rank_share(uint64_t total, const struct sbio_topology *t)
{
    return total / t->nranks + (t->rank < total % t->nranks);
}

/* A mix or an event job: offsets in units of its smallest block, buffers as large as its
 * largest. 0 or -ENOMEM. */
static int session_job_ops(struct session_job *j, const struct session *s,
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

/* A tree job (fsop.h): its mix's operations on the session's tree, phase pi's, by the tree
 * engine's system calls; its buffers as large as its largest block or append; none of the
 * flat set's end fsyncs or page dropping. */
static void session_job_tree(struct session_job *j, unsigned pi, struct sbio_tree *tree)
{
    struct sbio_job *job = &j->whole;
    job->tree = tree;
    job->phase = pi;
    job->max_len = sbio_mix_max_len(&j->mix);
    job->fsync_end = false;
    job->invalidate = false;
}

/* Job k's share of phase p's events, in proportion to its threads, exactly: its threads'
 * share of the cumulative count, floor to floor. */
static uint64_t session_job_events(const struct sbio_script_phase *p, unsigned k,
                                   unsigned total_threads, unsigned threads_before)
{
    return (uint64_t)((unsigned __int128)p->events * (threads_before + p->jobs[k].threads) /
                          total_threads -
                      (unsigned __int128)p->events * threads_before / total_threads);
}

/* Job k of phase pi of the session's declaration, ready for this rank: j->whole as declared
 * over every rank (what the reports describe), j->job this rank's share of it. --events and
 * --rate are totals, of which each rank takes its share; ranks with sets of their own draw
 * different offsets (ranks sharing one differ by their threads' numbers). The command
 * line's job draws from the session's seed itself, a script's jobs from seeds of their own
 * (the job's index, not its address: --rand-seed must repeat a run). 0 or -ENOMEM. */
static int session_job_build(struct session_job *j, struct session *s, unsigned pi, unsigned k,
                             unsigned total_threads, unsigned threads_before, uint64_t seed)
{
    const struct sbio_script *d = s->decl;
    const struct sbio_script_phase *p = &d->phases[pi];
    const struct sbio_script_job *sj = &p->jobs[k];
    struct sbio_job *w = &j->whole;
    sbio_job_declare(w, p, k, session_job_events(p, k, total_threads, threads_before), s->set);
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
        snprintf(j->block_what, sizeof(j->block_what), "phase \"%s\", job \"%s\": block", p->name,
                 sj->name);
        w->block_what = j->block_what;
    }
    int rc = sj->mode == SBIO_MODE_NONE ? session_job_ops(j, s, sj) : 0;
    if (d->tree.set)
        session_job_tree(j, pi, &s->tree);
    j->job = *w;
    j->job.events = session_rank_share(w->events, s->topo);
    j->job.rate = session_rank_share(w->rate, s->topo);
    if (s->set->file_per_rank && s->topo->rank)
        j->job.seed = sbio_mix64(w->seed ^ s->topo->rank);
    j->env = (struct sbio_runner_env){.fs = &s->fs, .target = &s->target, .memgroup = &s->mem};
    session_place(j, s, threads_before, total_threads);
    return rc;
}

/* A run's status (0 ok, 1 failed, 130 interrupted) as a command code. */
static int session_code(int status)
{
    return status == 130 ? -EINTR : status ? -SBIO_EFAILED : 0;
}

/* How the phase's jobs shared it: a table after their total, and the phase's JSON `shares`.
 * A job's weight is its declared group's. */
static void session_shares(struct session *ses, const struct sbio_script_phase *p,
                           const struct session_job *jobs, json_t *pj, bool want_doc)
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
static const char *session_threads(char *buf, size_t len, unsigned n, const struct sbio_topology *t)
{
    int l = snprintf(buf, len, "%u thread%s", n, n == 1 ? "" : "s");
    if (t->nranks > 1 && l > 0 && (size_t)l < len)
        snprintf(buf + l, len - (size_t)l, " on each of %u ranks", t->nranks);
    return buf;
}

/* ", on the tree: stat 4, create 1" (a tree job's mix weights) or ", on the tree: flow open,
 * readwhole, close", cut short with "…" if it is too long. */
static void session_tree_ops(char *buf, size_t len, const struct sbio_script_job *sj)
{
    size_t n = (size_t)snprintf(buf, len, ", on the tree: %s", sj->nflow ? "flow " : "");
    for (unsigned i = 0; i < (sj->nflow ? sj->nflow : SBIO_MIX_NR) && n < len; i++) {
        int op = sj->nflow ? sj->flow[i] : (int)i;
        if (!sj->nflow && !(sj->weight[op] > 0))
            continue;
        int w = sj->nflow ? snprintf(buf + n, len - n, "%s%s", i ? ", " : "", sbio_mix_op_name(op))
                          : snprintf(buf + n, len - n, "%s%s %g", buf[n - 1] == ' ' ? "" : ", ",
                                     sbio_mix_op_name(op), sj->weight[op]);
        n += w > 0 ? (size_t)w : 0;
    }
    if (n >= len)
        snprintf(buf + len - 5, 5, "\u2026");
}

/* The text report of each job of a phase and, for several jobs, of their total (tot, NULL
 * when there is none); their JSON into pj. The worst job's status into *status. */
static void session_report_phase(struct session *ses, const struct sbio_script_phase *p,
                                 struct session_job *jobs, struct sbio_run_result *tot, json_t *pj,
                                 bool want_doc, int *status)
{
    json_t *jj = json_array();
    bool measured = true;
    for (unsigned k = 0; k < p->njobs; k++) {
        char who[160]; /* two names of 64 bytes at most (decl.h) */
        snprintf(who, sizeof(who), "phase \"%s\", job \"%s\": ", p->name, p->jobs[k].name);
        int st = session_status(&jobs[k].res, 0, true, who);
        *status = st > *status ? st : *status;
        /* A job that failed while starting measured nothing: its error (above) alone. */
        measured = measured && jobs[k].res.measured;
        if (!jobs[k].res.measured) {
            if (want_doc)
                json_array_append_new(jj, json_pack("{s:s,s:o,s:s}", "name", p->jobs[k].name,
                                                    "declared", job_declared(&p->jobs[k]), "error",
                                                    jobs[k].res.error_msg));
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
            session_tree_ops(ops, sizeof(ops), &p->jobs[k]);
        fprintf(ses->text, "\n--- Job %s (%s, %s%s%s%s) ---\n", p->jobs[k].name,
                session_threads(thr, sizeof(thr), p->jobs[k].threads, ses->topo),
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
                              job_declared(&p->jobs[k]), "result",
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
    session_shares(ses, p, jobs, pj, want_doc);
}

/* The phase's job groups, made under the session's sbio.PID folder (recorded in its state
 * file) with their settings written and read back. 0 or -errno (said). */
static int session_make_groups(struct session *ses, const struct sbio_script_phase *p,
                               struct session_job *jobs)
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

/* Phase pi's jobs declared and checked, their groups made: ready to run. 0, -SBIO_EUSAGE
 * (the phase is refused; message printed) or -errno. */
static int session_phase_ready(struct session *ses, const struct sbio_script *s, unsigned pi,
                               uint64_t seed, struct session_job *jobs)
{
    const struct sbio_script_phase *p = &s->phases[pi];
    unsigned total = 0, before = 0;
    for (unsigned k = 0; k < p->njobs; k++)
        total += p->jobs[k].threads;
    int rc = 0;
    for (unsigned k = 0; k < p->njobs && !rc; k++) {
        struct session_job *j = &jobs[k];
        rc = session_job_build(j, ses, pi, k, total, before, seed);
        before += p->jobs[k].threads;
        /* A plain run prints its header and interim lines as its job runs. */
        j->lines = (struct session_lines){.out = ses->interim,
                                          .of = {.set = ses->set, .job = &j->whole},
                                          .s = ses,
                                          .seed = seed,
                                          .want_env = ses->want_doc,
                                          .note = ses->fd_note};
        session_interim(j, ses->set, s->plain ? &j->lines : NULL);
    }
    /* Each job's checks before any starts: a refused job refuses its phase. */
    for (unsigned k = 0; k < p->njobs && !rc; k++)
        rc = sbio_runner_check(&jobs[k].job, &jobs[k].env);
    ses->fd_note[0] = 0;
    if (!rc)
        rc = session_plan_fds(jobs, p->njobs, ses->fs.nfiles, ses->fd_note, sizeof(ses->fd_note));
    return rc ? rc : session_make_groups(ses, p, jobs);
}

/* Every rank's status at a meeting of phase p (session_phase_run), as sbio_session_agree;
 * the script goes on after a refused phase, so no rank is said to have stopped. */
static int session_phase_agree(const struct session *ses, const struct sbio_script_phase *p, int rc,
                               const char *what)
{
    if (ses->decl->plain) /* the run is its one phase: a rank that stops it stops them all */
        return sbio_session_agree(ses->topo, rc,
                                  !strcmp(what, "refused")         ? "refused the run"
                                  : !strcmp(what, "could not run") ? "could not start its threads"
                                                                   : "measured nothing in the run");
    char said[160]; /* a phase name of 64 bytes at most (decl.h) */
    snprintf(said, sizeof(said), "%s phase \"%s\"", what, p->name);
    return session_agree_said(ses->topo, rc, said, "");
}

/* Run phase p's ready jobs (rc: whether they are), meeting the other ranks before and after;
 * under MPI the jobs meet them through this rank's main thread (meet.h). 0, -SBIO_EUSAGE
 * (refused here or on another rank) or the first failure to start, the same on every rank. */
static int session_phase_run(struct session *ses, const struct sbio_script_phase *p,
                             struct session_job *jobs, int rc)
{
    struct sbio_runner_sync up;
    struct sbio_mpi_watch *watch = rc ? NULL : sbio_mpi_watch_new(&up);
    struct sbio_meet *meet = watch ? sbio_meet_new(p->njobs, &up) : NULL;
    if (watch && !meet)
        rc = -ENOMEM;
    rc = session_phase_agree(ses, p, rc, "refused");
    fflush(ses->text);
    for (unsigned k = 0; k < p->njobs; k++)
        jobs[k].env.sync = meet ? sbio_meet_sync(meet, k) : NULL;
    /* --warmup=auto: the jobs start measuring together (runner.h). */
    struct sbio_warmup_phase *wph =
        !rc && p->jobs[0].warmup_auto && p->njobs > 1 ? sbio_warmup_phase_new(p->njobs) : NULL;
    for (unsigned k = 0; k < p->njobs; k++)
        jobs[k].env.warmup_phase = wph;
    unsigned started = 0;
    if (!rc && (rc = session_run_jobs(jobs, p->njobs, &started, meet)))
        sbio_err("phase %s: cannot start job %s", p->name, p->jobs[started].name);
    for (unsigned k = 0; k < started && !rc; k++)
        rc = jobs[k].rc;
    sbio_warmup_phase_free(wph);
    sbio_meet_free(meet);
    sbio_mpi_watch_free(watch);
    return session_phase_agree(ses, p, rc, "could not run");
}

/* The phase's results as rank 0 reports them: each job's merged across ranks and, for several
 * jobs, their total into *tot (this rank's jobs merged, then merged across ranks: its per-rank
 * table is each rank's total). Alone, the jobs' own and their merge. Collective. *have_tot
 * false: no total. 0 or -ENOMEM / -EIO, the same on every rank. */
static int session_phase_results(struct session *ses, const struct sbio_script_phase *p,
                                 struct session_job *jobs, struct sbio_run_result *tot,
                                 bool *have_tot)
{
    bool measured = true;
    for (unsigned k = 0; k < p->njobs; k++)
        measured = measured && jobs[k].res.measured;
    /* A job that measured nothing on one rank is reported without a total everywhere. */
    measured = !session_phase_agree(ses, p, measured ? 0 : -EIO, "measured nothing in");
    int rc = p->njobs > 1 && measured ? session_merge_jobs(jobs, p->njobs, tot) : 0;
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
static json_t *session_script_doc(const struct sbio_script *s, json_t *phases)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string("sbio-script/1"));
    json_object_set_new(doc, "sbio_version", json_string(SBIO_VERSION));
    json_object_set_new(doc, "script", json_string(s->path));
    json_object_set_new(doc, "phases", phases);
    return doc;
}

/* Why job k of phase p cannot be verified beside other threads (of its phase, or of other
 * ranks on the same set), or NULL. Random modes and mixes draw from their threads' own
 * blocks (block % threads == thread, workload.c), sequential modes walk per-thread slices:
 * one rule or the other for all of a phase's jobs. */
static const char *session_verify_clash(const struct sbio_script_phase *p, unsigned k, char *why,
                                        size_t len)
{
    const struct sbio_script_job *j = &p->jobs[k];
    if (j->event)
        return "event(ctx) chooses its offsets itself, which may be blocks other threads read "
               "or write; under --verify an event job must be its phase's only thread";
    uint64_t small = j->block[0], big = j->block[0];
    for (unsigned b = 1; b < j->nblocks && j->mode == SBIO_MODE_NONE; b++) {
        small = j->block[b] < small ? j->block[b] : small;
        big = j->block[b] > big ? j->block[b] : big;
    }
    if (big > small) {
        char a[32], c[32];
        snprintf(why, len,
                 "requests of %s to %s would cover other threads' blocks (each thread owns "
                 "blocks of %s); under --verify a mix of several sizes must be its phase's "
                 "only thread",
                 sbio_fmt_bytes(a, sizeof(a), small), sbio_fmt_bytes(c, sizeof(c), big), a);
        return why;
    }
    for (unsigned o = 0; o < p->njobs; o++) {
        const struct sbio_script_job *q = &p->jobs[o];
        uint64_t qs = q->block[0];
        for (unsigned b = 1; b < q->nblocks && q->mode == SBIO_MODE_NONE; b++)
            qs = q->block[b] < qs ? q->block[b] : qs;
        if (!q->event && qs != small) { /* block i of one is not block i of the other */
            char a[32], c[32];
            snprintf(why, len,
                     "its blocks of %s and job \"%s\"'s of %s overlap; under --verify a "
                     "phase's jobs have one block size",
                     sbio_fmt_bytes(a, sizeof(a), small), q->name,
                     sbio_fmt_bytes(c, sizeof(c), qs));
            return why;
        }
    }
    bool seq = sbio_mode_sequential(j->mode);
    for (unsigned o = 0; o < p->njobs; o++)
        if (!p->jobs[o].event && sbio_mode_sequential(p->jobs[o].mode) != seq) {
            snprintf(why, len,
                     "it %s while job \"%s\" %s, so their blocks overlap; under --verify a "
                     "phase's jobs are all sequential modes or none",
                     seq ? "walks per-thread slices of the set"
                         : "draws blocks spread over the set",
                     p->jobs[o].name,
                     seq ? "draws blocks spread over it" : "walks per-thread slices of it");
            return why;
        }
    return NULL;
}

/* --verify needs each block read and written by one thread of a phase (verify.h): a phase's
 * jobs partition the set's blocks among all its threads (session_place numbers them across
 * the jobs, and across the ranks that share the set: sharing of them); a phase of one thread
 * verifies any job. 0 or -SBIO_EUSAGE (message printed). */
static int session_check_verify(const struct sbio_script *s, unsigned sharing)
{
    for (unsigned pi = 0; pi < s->nphases; pi++) {
        const struct sbio_script_phase *p = &s->phases[pi];
        unsigned threads = 0;
        for (unsigned k = 0; k < p->njobs; k++)
            threads += p->jobs[k].threads;
        for (unsigned k = 0; k < p->njobs && threads * sharing > 1; k++) {
            char buf[320];
            const char *why = session_verify_clash(p, k, buf, sizeof(buf));
            if (why) {
                sbio_err("--verify: phase \"%s\", job \"%s\": %s", p->name, p->jobs[k].name, why);
                return -SBIO_EUSAGE;
            }
        }
    }
    return 0;
}

/* Every job's group checked against the set's devices t before anything is made (cgroup.h).
 * 0 or -SBIO_EUSAGE (message printed). */
static int session_check_groups(const struct sbio_target *t, const struct sbio_script *s)
{
    int rc = 0;
    for (unsigned pi = 0; pi < s->nphases && !rc; pi++)
        for (unsigned k = 0; k < s->phases[pi].njobs && !rc; k++) {
            const struct sbio_script_job *j = &s->phases[pi].jobs[k];
            rc = sbio_cgroup_spec_check(&j->group, j->name, t);
        }
    return rc;
}

/* Every job's I/O priority (its own, else the command line's) tried before the header: the
 * realtime class without the privilege is refused then, not phase by phase. 0 or
 * -SBIO_EUSAGE (message printed). */
static int session_check_ioprio(const struct sbio_settings *set, const struct sbio_script *s)
{
    int rc = 0;
    for (unsigned pi = 0; pi < s->nphases && !rc; pi++)
        for (unsigned k = 0; k < s->phases[pi].njobs && !rc; k++) {
            int prio = s->phases[pi].jobs[k].ioprio;
            rc = sbio_ioprio_check(prio != SBIO_IOPRIO_NONE ? prio : set->job.ioprio);
        }
    return rc;
}

/* Whether the script starts on a cold set: its first phase drops the page cache, or all its
 * jobs drop the set's pages. Pages cached before it are then gone, and every page the script
 * reads afterwards is charged to its memory group. */
static bool session_script_cold(const struct sbio_script *s)
{
    if (!s->nphases)
        return false;
    const struct sbio_script_phase *p = &s->phases[0];
    bool inval = p->njobs > 0;
    for (unsigned k = 0; k < p->njobs; k++)
        inval = inval && p->jobs[k].invalidate;
    return p->drop_caches || inval;
}

/* Under n MPI ranks every rank runs a share of each job's events and rate (a share of 0
 * would be no limit: refused), and a set the ranks share cannot take a seqwr job (it
 * empties the files every rank writes). 0 or -SBIO_EUSAGE (message printed). */
static int session_check_ranks(const struct sbio_settings *set, const struct sbio_script *s,
                               unsigned n)
{
    for (unsigned pi = 0; pi < s->nphases && n > 1; pi++) {
        const struct sbio_script_phase *p = &s->phases[pi];
        unsigned total = 0, before = 0;
        for (unsigned k = 0; k < p->njobs; k++)
            total += p->jobs[k].threads;
        for (unsigned k = 0; k < p->njobs; before += p->jobs[k++].threads) {
            const struct sbio_script_job *j = &p->jobs[k];
            uint64_t ev = session_job_events(p, k, total, before);
            if ((ev && ev < n) || (j->rate && j->rate < n)) {
                bool events = ev && ev < n;
                sbio_err("phase \"%s\", job \"%s\": %s %" PRIu64 "%s over %u ranks leaves some "
                         "ranks none; accepted: at least %u (one per rank)",
                         p->name, j->name,
                         events ? "its share of the phase's events," : "a rate of",
                         events ? ev : j->rate, events ? "" : " ops/s", n, n);
                return -SBIO_EUSAGE;
            }
            if (j->mode == SBIO_MODE_SEQWR && !set->file_per_rank) {
                sbio_err("phase \"%s\", job \"%s\": seqwr on a set shared by %u ranks empties "
                         "the files every rank writes; accepted: --file-per-rank, or seqrewr",
                         p->name, j->name, n);
                return -SBIO_EUSAGE;
            }
        }
    }
    return 0;
}

/* Whether job j does op (enum sbio_mix_op): a weight above 0, or a place in its flow. */
static bool job_does(const struct sbio_script_job *j, int op)
{
    for (unsigned i = 0; i < j->nflow; i++)
        if (j->flow[i] == op)
            return true;
    return !j->nflow && j->weight[op] > 0;
}

/* Whether a job of phases 0 .. pi does op: what they did is on disk when phase pi runs. */
static bool phases_do(const struct sbio_script *s, unsigned pi, int op)
{
    for (unsigned p = 0; p <= pi; p++)
        for (unsigned k = 0; k < s->phases[p].njobs; k++)
            if (job_does(&s->phases[p].jobs[k], op))
                return true;
    return false;
}

/* Job j of a script without a tree: none of a tree's operations, flow or append. 0 or
 * -SBIO_EUSAGE (message printed). */
static int session_check_flat_job(const struct sbio_script *s, const struct sbio_script_job *j)
{
    const char *what = j->nflow ? "flow" : j->nappend ? "append" : NULL;
    for (int op = SBIO_MIX_FS_FIRST; op < SBIO_MIX_NR && !what; op++)
        what = job_does(j, op) ? sbio_mix_op_name(op) : NULL;
    if (!what)
        return 0;
    sbio_err("%s:%d: job %s: %s needs a file tree; declare one with fileset { files = N, "
             "dirwidth = W, size = ... }",
             s->path, j->line, j->name, what);
    return -SBIO_EUSAGE;
}

/* The operations that make a file the thread's current one (fsop.h): create and open; in
 * a mix the writes, in a flow every operation on a file's content. */
static const int make_current[] = {SBIO_MIX_CREATE,     SBIO_MIX_OPEN,  SBIO_MIX_APPEND,
                                   SBIO_MIX_WRITEWHOLE, SBIO_MIX_WRITE, SBIO_MIX_READWHOLE,
                                   SBIO_MIX_READ};
#define MAKE_CURRENT_MIX 5 /* the first five make it in a mix too */

/* close, fsync and fdatasync act on the thread's current file: a job without an operation
 * that makes one can never serve them. what is set to why ("" when it can). */
static void job_check_current(const struct sbio_script_job *j, char *what, size_t len)
{
    int needs = job_does(j, SBIO_MIX_CLOSE)       ? SBIO_MIX_CLOSE
                : job_does(j, SBIO_MIX_FSYNC)     ? SBIO_MIX_FSYNC
                : job_does(j, SBIO_MIX_FDATASYNC) ? SBIO_MIX_FDATASYNC
                                                  : -1;
    size_t n = j->nflow ? sizeof(make_current) / sizeof(make_current[0]) : MAKE_CURRENT_MIX;
    for (size_t i = 0; i < n && needs >= 0; i++)
        if (job_does(j, make_current[i]))
            return;
    if (needs >= 0)
        snprintf(what, len,
                 "%s needs the thread's current file, which only create, open, append, "
                 "write and writewhole make (in a flow read and readwhole too); add one",
                 sbio_mix_op_name(needs));
}

/* Job j of a tree script: a mix or flow of operations on the tree, by system calls. 0 or
 * -SBIO_EUSAGE (message printed). */
static int session_check_tree_job(const struct sbio_script *s, const struct sbio_script_job *j)
{
    char what[192] = "";
    if (j->mode != SBIO_MODE_NONE || j->event)
        snprintf(what, sizeof(what), "%s%s%s: a tree's jobs take a mix or a flow",
                 j->event ? "event = true" : "mode = \"", j->event ? "" : sbio_mode_name(j->mode),
                 j->event ? "" : "\"");
    else if (job_does(j, SBIO_MIX_RMW))
        snprintf(what, sizeof(what),
                 "rmw works on a flat fileset; accepted in a tree job: read, "
                 "write and the file-system operations");
    else if (!sbio_engine_has(j->engine, SBIO_ENG_PSYNC))
        snprintf(what, sizeof(what),
                 "engine '%s': a tree's operations are system calls; "
                 "accepted: sync",
                 sbio_engine_name(j->engine));
    else if (j->flags & SBIO_XF_DIRECT)
        snprintf(what, sizeof(what),
                 "flags \"direct\": O_DIRECT fails at the tails of files "
                 "of any size; accepted: sync, dsync");
    else
        job_check_current(j, what, sizeof(what));
    if (!what[0])
        return 0;
    sbio_err("%s:%d: job %s: %s", s->path, j->line, j->name, what);
    return -SBIO_EUSAGE;
}

/* The operations that act on an existing file of the thread's own. */
static const int need_file[] = {SBIO_MIX_READ,      SBIO_MIX_WRITE,      SBIO_MIX_APPEND,
                                SBIO_MIX_READWHOLE, SBIO_MIX_WRITEWHOLE, SBIO_MIX_OPEN,
                                SBIO_MIX_STAT,      SBIO_MIX_UNLINK,     SBIO_MIX_RENAME};
#define NEED_FILE (sizeof(need_file) / sizeof(need_file[0]))

/* Whether job j of phase pi, or a job of an earlier phase, does op: a job's threads own
 * their own slots (fsop.h), so another job of the same phase never frees or fills them;
 * an earlier phase's jobs, numbered otherwise, may have. */
static bool job_served(const struct sbio_script *s, unsigned pi, const struct sbio_script_job *j,
                       int op)
{
    return job_does(j, op) || (pi > 0 && phases_do(s, pi - 1, op));
}

/* Job j of phase pi asks for an operation it can never be served: a free slot when prepare
 * fills every one and neither the job nor an earlier phase unlinks, a file when prepare
 * makes none and neither creates. 0 or -SBIO_EUSAGE (message printed). */
static int session_check_serve(const struct sbio_script *s, unsigned pi,
                               const struct sbio_script_job *j)
{
    const struct sbio_tree_decl *t = &s->tree;
    uint64_t made = sbio_tree_decl_made(t);
    const char *p = s->phases[pi].name;
    int op = job_does(j, SBIO_MIX_CREATE) ? SBIO_MIX_CREATE : SBIO_MIX_RENAME;
    if (made >= t->files && job_does(j, op) && !job_served(s, pi, j, SBIO_MIX_UNLINK)) {
        sbio_err("%s:%d: job %s: %s needs a free slot, but the fileset (line %d) has prealloc "
                 "= 1 and neither the job nor one of a phase before \"%s\" unlinks (the "
                 "phase's other jobs own other slots); lower prealloc or add unlink",
                 s->path, j->line, j->name, sbio_mix_op_name(op), t->line, p);
        return -SBIO_EUSAGE;
    }
    for (size_t i = 0; i < NEED_FILE && !made; i++)
        if (job_does(j, need_file[i]) && !job_served(s, pi, j, SBIO_MIX_CREATE)) {
            sbio_err("%s:%d: job %s: %s needs a file, but the fileset (line %d) has prealloc "
                     "= 0 and neither the job nor one of a phase before \"%s\" creates (the "
                     "phase's other jobs own other slots); raise prealloc or add create",
                     s->path, j->line, j->name, sbio_mix_op_name(need_file[i]), t->line, p);
            return -SBIO_EUSAGE;
        }
    return 0;
}

/* The first operation of job j that needs a slot of the thread's own (any but mkdir and
 * readdir), and of those the first that needs a file (*file; -1 when none), or -1. */
static int job_slot_op(const struct sbio_script_job *j, int *file)
{
    *file = -1;
    for (size_t i = 0; i < NEED_FILE && *file < 0; i++)
        *file = job_does(j, need_file[i]) ? need_file[i] : -1;
    for (int op = 0; op < SBIO_MIX_NR; op++)
        if (op != SBIO_MIX_MKDIR && op != SBIO_MIX_READDIR && job_does(j, op))
            return op;
    return -1;
}

/* Phase pi's jobs that create or rename, when neither they nor an earlier phase unlinks (nor
 * renames: an earlier phase's threads own other slots): the free slots then are at most
 * those prepare leaves, [made, files), and a thread that owns none of them (more threads than
 * free slots) never creates. width: the phase's threads per rank, sharing: the ranks sharing
 * the tree. 0 or -SBIO_EUSAGE (message printed). */
static int session_check_free(const struct sbio_script *s, unsigned pi, unsigned sharing,
                              uint64_t width)
{
    const struct sbio_script_phase *p = &s->phases[pi];
    uint64_t files = s->tree.files, all = width * sharing;
    uint64_t made = sbio_tree_decl_made(&s->tree);
    uint64_t free = files - made;
    if (free >= all || (pi > 0 && phases_do(s, pi - 1, SBIO_MIX_RENAME)))
        return 0; /* every thread owns a free slot, or one may be freed */
    for (unsigned k = 0, before = 0; k < p->njobs; before += p->jobs[k++].threads) {
        const struct sbio_script_job *j = &p->jobs[k];
        int op = job_does(j, SBIO_MIX_CREATE) ? SBIO_MIX_CREATE : SBIO_MIX_RENAME;
        if (!job_does(j, op) || job_served(s, pi, j, SBIO_MIX_UNLINK))
            continue;
        /* Thread t owns a free slot when some s in [made, files) has s mod all = t. */
        for (uint64_t r = 0; r < sharing; r++)
            for (uint64_t t = r * width + before; t < r * width + before + j->threads; t++) {
                if ((t + all - made % all) % all < free)
                    continue;
                sbio_err("%s:%d: job %s: %s: thread %" PRIu64 " of the %" PRIu64
                         " of phase \"%s\"%s owns none of the tree's %" PRIu64
                         " free slots (%" PRIu64 " to %" PRIu64 "; thread t owns the slots s "
                         "with s mod %" PRIu64 " = t), and neither the job nor a phase before "
                         "frees one; use fewer threads, lower prealloc or add unlink (fileset, "
                         "line %d)",
                         s->path, j->line, j->name, sbio_mix_op_name(op), t, all, p->name,
                         sharing > 1 ? " over its ranks" : "", free, made, files - 1, all,
                         s->tree.line);
                return -SBIO_EUSAGE;
            }
    }
    return 0;
}

/* Phase pi's threads on the tree: thread t of T (every job's, numbered job after job, rank
 * after rank sharing the tree) owns the slots s with s % T == t (fsop.h). A job whose last
 * thread's number is the tree's slots or more has threads that own none; one whose last
 * thread's number is prepare's files or more, threads that own none of them, and so never a
 * file unless the job or an earlier phase creates. 0 or -SBIO_EUSAGE (message printed). */
static int session_check_slots(const struct sbio_script *s, unsigned pi, unsigned sharing)
{
    const struct sbio_script_phase *p = &s->phases[pi];
    uint64_t width = 0, before = 0, files = s->tree.files;
    uint64_t made = sbio_tree_decl_made(&s->tree);
    for (unsigned k = 0; k < p->njobs; k++)
        width += p->jobs[k].threads;
    for (unsigned k = 0; k < p->njobs; k++) {
        const struct sbio_script_job *j = &p->jobs[k];
        uint64_t last = (sharing - 1) * width + before + j->threads - 1;
        before += j->threads;
        int file, op = job_slot_op(j, &file);
        bool unmade = file >= 0 && last >= made && !job_served(s, pi, j, SBIO_MIX_CREATE);
        if (op < 0 || (last < files && !unmade))
            continue;
        char why[96];
        snprintf(why, sizeof(why),
                 last < files ? "files prepare makes (%" PRIu64 ")" : "slots (%" PRIu64 ")",
                 last < files ? made : files);
        sbio_err("%s:%d: job %s: %s: thread %" PRIu64 " of the %" PRIu64 " of phase \"%s\"%s "
                 "owns none of the tree's %s (thread t owns the slots s with s mod %" PRIu64
                 " = t); use fewer threads, or more files or prealloc (fileset, line %d)",
                 s->path, j->line, j->name, sbio_mix_op_name(last < files ? file : op), last,
                 width * sharing, p->name, sharing > 1 ? " over its ranks" : "", why,
                 width * sharing, s->tree.line);
        return -SBIO_EUSAGE;
    }
    return session_check_free(s, pi, sharing, width);
}

/* Every job's operations against the script's file set (a tree, or a flat set); --verify
 * (set) has nothing to check on a tree. 0 or -SBIO_EUSAGE (message printed). */
static int session_check_ops(const struct sbio_settings *set, const struct sbio_script *s,
                             unsigned sharing)
{
    int rc = 0;
    if (set->verify && s->tree.set) {
        sbio_err("--verify: %s declares a file tree (line %d), whose files carry no "
                 "verification stamps; run it without --verify",
                 s->path, s->tree.line);
        return -SBIO_EUSAGE;
    }
    for (unsigned pi = 0; pi < s->nphases && !rc; pi++)
        for (unsigned k = 0; k < s->phases[pi].njobs && !rc; k++) {
            const struct sbio_script_job *j = &s->phases[pi].jobs[k];
            if (!s->tree.set)
                rc = session_check_flat_job(s, j);
            else if (!(rc = session_check_tree_job(s, j)))
                rc = session_check_serve(s, pi, j);
        }
    for (unsigned pi = 0; pi < s->nphases && !rc && s->tree.set; pi++)
        rc = session_check_slots(s, pi, sharing);
    return rc;
}

int sbio_session_check_decl(const struct sbio_settings *set, const struct sbio_script *s,
                            unsigned nranks)
{
    /* The ranks sharing the set (1 alone) number their threads as one phase's. */
    unsigned sharing = set->file_per_rank ? 1 : nranks;
    if (session_check_ops(set, s, sharing))
        return -SBIO_EUSAGE;
    if ((set->verify && session_check_verify(s, sharing)) || session_check_ranks(set, s, nranks))
        return -SBIO_EUSAGE;
    return 0;
}

int sbio_session_check_script(const struct sbio_settings *set, const struct sbio_script *s)
{
    struct sbio_target t;
    if (sbio_session_check_decl(set, s, sbio_mpi_size()) || session_check_ioprio(set, s) ||
        session_target(set, &t) || session_check_groups(&t, s))
        return -SBIO_EUSAGE;
    return 0;
}

/* "a tree of 2000 slots (1000 files, 15.3 MiB)" */
static void session_tree_desc(const struct sbio_tree *t, char *buf, size_t len)
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
static void session_script_header(struct session *ses, const struct sbio_script *s, uint64_t seed)
{
    const struct sbio_topology *t = ses->topo;
    char b[32], on[160];
    if (ses->tree.rootfd >= 0)
        session_tree_desc(&ses->tree, on, sizeof(on));
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
    sbio_report_memgroup(ses->text, &ses->mem, session_script_cold(s));
}

/* The script's end: its report() hook (rank 0's, with the merged document), and the run's
 * status, the same on every rank: the worst of every rank's. */
static int session_script_end(struct session *ses, const struct sbio_script *s, json_t *mine,
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
    int g = sbio_mpi_agree(st == 130 ? -EINTR : st ? -EIO : 0, NULL);
    return g == -EINTR ? 130 : g ? 1 : 0;
}

/* How a session runs its kind of declaration, at the steps of the one pipeline
 * (sbio_session_run): the command line's one job as sysbench runs and reports it, or a
 * script's phases. */
struct session_kind {
    /* After the set is opened (rc: how): a script's settings applied and its header printed.
     * False: the session stops there (rc says why). */
    bool (*begin)(struct session *s, int *rc);
    /* Phase pi is about to start: a script's banner. */
    void (*phase)(struct session *s, unsigned pi);
    /* Its jobs built and checked (rc: how): the command line's run applies the settings only
     * now, so that a refused run changes nothing. rc, or why the phase cannot run. */
    int (*ready)(struct session *s, int rc);
    /* Phase p ran (rc: how; 0: its results are merged across ranks): reported (rank 0),
     * statuses kept. The session's code, 0 to go on. */
    int (*done)(struct session *s, const struct sbio_script_phase *p, struct session_job *jobs,
                struct sbio_run_result *tot, int rc);
    /* After the last phase, the settings put back (rrc: how): the session's code. */
    int (*end)(struct session *s, int rc, int rrc);
};

/* Phase pi: its jobs side by side, then their reports (rank 0's, under MPI). rc: whether the
 * session can run it. Returns 0 or what stops the session. */
static int session_phase(struct session *ses, const struct session_kind *kind, unsigned pi, int rc)
{
    const struct sbio_script_phase *p = &ses->decl->phases[pi];
    struct session_job jobs[SBIO_SCRIPT_MAX_JOBS];
    memset(jobs, 0, sizeof(jobs));
    kind->phase(ses, pi);
    unsigned mark = ses->cg.ndirs; /* the phase's groups are made after it */
    /* A tree as the phase finds it (earlier phases, other ranks changed it). */
    int ready = rc ? rc : ses->tree.rootfd >= 0 ? sbio_tree_scan(&ses->tree) : 0;
    ready = ready ? ready : session_phase_ready(ses, ses->decl, pi, ses->seed, jobs);
    rc = session_phase_run(ses, p, jobs, kind->ready(ses, ready));
    if (sbio_cgroups_remove_to(&ses->cg, mark))
        sbio_err("some control groups could not be removed; run sbio restore as root");
    struct sbio_run_result tot;
    bool have_tot = false;
    if (!rc)
        rc = session_phase_results(ses, p, jobs, &tot, &have_tot);
    rc = kind->done(ses, p, jobs, have_tot ? &tot : NULL, rc);
    if (have_tot)
        sbio_run_result_free(&tot);
    session_jobs_free(jobs, p->njobs);
    return rc;
}

/* The command line's run: nothing before its phase (its header is printed once its threads
 * are up, session_ready). */
static bool plain_begin(struct session *s, int *rc)
{
    (void)s;
    (void)rc;
    return true;
}

static void plain_phase(struct session *s, unsigned pi)
{
    (void)s;
    (void)pi;
}

/* Its job checked: a set seqwr made for a run refused here is taken back (bad input leaves
 * no trace); else the settings applied. */
static int plain_ready(struct session *s, int rc)
{
    if (rc == -SBIO_EUSAGE && s->created)
        sbio_fileset_discard(&s->fs);
    if (!rc)
        rc = session_scope_verify(s, s->decl);
    if (!rc)
        rc = session_apply(s);
    return rc;
}

/* Rank 0 reports the merged result (text, and the JSON document when asked for); every rank
 * keeps its status. */
static int plain_done(struct session *s, const struct sbio_script_phase *p,
                      struct session_job *jobs, struct sbio_run_result *tot, int rc)
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
    s->st = session_status(res, 0, report, NULL);
    s->ran = true;
    return 0;
}

/* The run's status, the same on every rank: the worst of every rank's, a setting not put
 * back a failure. */
static int plain_end(struct session *s, int rc, int rrc)
{
    if (!s->ran)
        return rc;
    int st = s->st ? s->st : rrc ? 1 : 0;
    st = sbio_mpi_agree(st == 130 ? -EINTR : st ? -EIO : 0, NULL);
    return session_code(st == -EINTR ? 130 : st ? 1 : 0);
}

static const struct session_kind plain_kind = {
    .begin = plain_begin,
    .phase = plain_phase,
    .ready = plain_ready,
    .done = plain_done,
    .end = plain_end,
};

/* A script: its settings applied for all its phases, its tree opened by every rank, its header
 * and the environment printed. */
static bool script_begin(struct session *s, int *rc)
{
    if (!*rc)
        *rc = session_scope_verify(s, s->decl);
    if (!*rc)
        *rc = session_apply(s);
    *rc = sbio_session_agree(s->topo, *rc, "refused the script");
    if (!*rc && s->decl->tree.set && (*rc = session_tree_shared(s, s->decl)))
        session_restore(s);
    if (*rc)
        return false;
    session_script_header(s, s->decl, s->seed);
    session_describe(s, s->want_doc);
    s->phases = json_array();
    return true;
}

/* "=== Phase 1/3: load (2 jobs, 5 threads) ===", and its page cache dropped when it asks. */
static void script_phase(struct session *s, unsigned pi)
{
    const struct sbio_script_phase *p = &s->decl->phases[pi];
    unsigned total = 0;
    for (unsigned k = 0; k < p->njobs; k++)
        total += p->jobs[k].threads;
    char thr[64];
    fprintf(s->text, "\n=== Phase %u/%u: %s (%u job%s, %s) ===\n", pi + 1, s->decl->nphases,
            p->name, p->njobs, p->njobs == 1 ? "" : "s",
            session_threads(thr, sizeof(thr), total, s->topo));
    if (p->drop_caches && s->topo->host_leader && (geteuid() != 0 || session_drop_caches(s)))
        fprintf(s->text, "Page cache not dropped: that needs root\n");
    fflush(s->text);
}

/* Its jobs checked: how their files are opened, said now. */
static int script_ready(struct session *s, int rc)
{
    if (!rc)
        fputs(s->fd_note, s->text);
    return rc;
}

/* A phase the system refuses (an O_DIRECT size the device cannot do, …) is reported as
 * refused, with the reason printed above, counted, and the script goes on. */
static int script_done(struct session *s, const struct sbio_script_phase *p,
                       struct session_job *jobs, struct sbio_run_result *tot, int rc)
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
        session_report_phase(s, p, jobs, tot, pj, s->want_doc, &s->st);
    } else if (!rc) { /* rank 0 reports; the others know their own status */
        for (unsigned k = 0; k < p->njobs; k++) {
            int st = session_status(&jobs[k].res, 0, false, NULL);
            s->st = st > s->st ? st : s->st;
        }
    } else {
        json_object_set_new(pj, "jobs", json_array());
    }
    json_array_append_new(s->phases, pj);
    return rc;
}

/* The phases' table, the document, report(), and the status: a refused phase is the script's
 * input that cannot run here, exit 2 even when the other phases ran, unless a run failed (1)
 * or was interrupted (130). */
static int script_end(struct session *s, int rc, int rrc)
{
    const struct sbio_script *d = s->decl;
    if (!s->phases) /* refused before its first phase */
        return rc;
    sbio_report_phases(s->text, &s->summary);
    int st = s->st ? s->st : rrc ? 1 : 0;
    json_t *mine = !rc && s->want_doc ? session_script_doc(d, s->phases) : NULL;
    if (!mine)
        json_decref(s->phases);
    st = session_script_end(s, d, mine, st);
    if (s->doc)
        *s->doc = mine;
    else
        json_decref(mine);
    if (!rc && !st && s->refused) {
        sbio_err("%s: %u of %u phase%s refused (the reasons above)", d->path, s->refused,
                 d->nphases, d->nphases == 1 ? "" : "s");
        return -SBIO_EUSAGE;
    }
    return rc ? rc : session_code(st);
}

static const struct session_kind script_kind = {
    .begin = script_begin,
    .phase = script_phase,
    .ready = script_ready,
    .done = script_done,
    .end = script_end,
};

int sbio_session_run(const struct sbio_settings *set, const struct sbio_script *decl,
                     const struct sbio_topology *topo, FILE *text, FILE *interim, json_t **doc)
{
    const struct session_kind *kind = decl->plain ? &plain_kind : &script_kind;
    struct session s;
    if (doc)
        *doc = NULL;
    int rc = decl->plain ? 0 : sbio_session_check_script(set, decl);
    if (rc)
        return rc;
    rc = session_open(&s, set, decl, topo, text);
    s.interim = interim;
    s.doc = doc;
    /* The report hook reads the same document JSON output writes; rank 0's is the merged one. */
    s.want_doc = topo->rank == 0 && (doc || decl->has_report);
    /* The seed is drawn before any header prints it; rank 0's is every rank's, so
     * --rand-seed repeats a multi-rank run too. */
    s.seed = set->rand_seed ? set->rand_seed : sbio_mix64(sbio_now_ns());
    sbio_mpi_bcast_u64(&s.seed);
    if (!kind->begin(&s, &rc)) {
        session_close(&s);
        return rc;
    }
    /* Every rank starts the next phase or none: a signal on one rank stops them all (a plain
     * run's one phase sees it as its run starts). */
    int first = rc; /* a plain run's first phase meets the other ranks with it */
    rc = 0;
    for (unsigned pi = 0; pi < decl->nphases && !rc; pi++) {
        if ((pi || !decl->plain) &&
            sbio_mpi_agree(sbio_stop_requested() || s.st == 130 ? -EINTR : 0, NULL))
            break;
        rc = session_phase(&s, kind, pi, pi ? 0 : first);
    }
    int rrc = session_restore(&s);
    rc = kind->end(&s, rc, rrc);
    session_close(&s);
    return rc;
}
