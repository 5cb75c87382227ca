#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pthread.h>

#include "fileset.h"
#include "mix.h"
#include "mpi.h"
#include "report.h"
#include "runner.h"
#include "sysblock.h"
#include "util.h"
#include "version.h"
/* Resolve the target of cfg: the raw device, or the folder's device(s). */
static int session_target(const struct sbio_config *cfg, struct sbio_target *t)
{
    /* A raw device is its own target: its queue is the one tuned. */
    const char *qdev = cfg->filename ? cfg->filename : cfg->queue_device;
    int rc = sbio_sysblock_resolve(cfg->filename ? "/" : cfg->dir, qdev, t);
    if (rc) {
        if (qdev)
            sbio_err("--%s=%s: no such block device", cfg->filename ? "filename" : "queue-device",
                     qdev);
        else
            sbio_err("--dir %s: %s%s", cfg->dir, strerror(-rc),
                     rc == -ENOENT ? "; create the folder first" : "");
        return -SBIO_EUSAGE;
    }
    if (cfg->filename) {
        snprintf(t->fstype, sizeof(t->fstype), "(raw device)");
        snprintf(t->source, sizeof(t->source), "%.200s", cfg->filename);
        t->mountpoint[0] = t->mount_opts[0] = 0;
    }
    return 0;
}

int sbio_session_check(const struct sbio_config *cfg)
{
    if (cfg->drop_caches && geteuid() != 0 && !getenv("SBIO_PROCFS_ROOT")) {
        sbio_err("--drop-caches needs root (it writes /proc/sys/vm/drop_caches)");
        return -SBIO_EUSAGE;
    }
    if ((cfg->scheduler || cfg->nqueue) && geteuid() != 0 && !getenv("SBIO_SYSFS_ROOT")) {
        sbio_err("%s changes kernel settings and needs root",
                 cfg->scheduler ? "--scheduler" : "--queue");
        return -SBIO_EUSAGE;
    }
    struct sbio_target t;
    int rc = session_target(cfg, &t);
    if (!rc)
        rc = sbio_tune_check(&t, cfg->scheduler, cfg->queue, cfg->nqueue);
    return rc;
}

int sbio_session_try_settings(const struct sbio_config *cfg)
{
    if ((!cfg->scheduler && !cfg->nqueue) || !cfg->host_leader)
        return 0;
    struct sbio_target t;
    struct sbio_tune tune;
    int rc = session_target(cfg, &t);
    if (!rc)
        rc = sbio_tune_apply(&tune, &t, cfg->scheduler, cfg->queue, cfg->nqueue, NULL);
    if (!rc && sbio_tune_restore(&tune)) {
        sbio_err("some settings could not be restored; run sbio restore as root");
        rc = -EIO;
    }
    return rc;
}

/* The status of a run that happened, from its (merged) result: 1 an I/O error, a bad block
 * or a setting not restored, 130 interrupted, else 0. The reporting process says why. */
static int session_status(const struct sbio_run_result *res, int rrc, bool report)
{
    if (res->error) {
        if (report)
            sbio_err("%s", res->error_msg);
        return 1;
    }
    if (res->total.verify_failed) {
        if (report)
            sbio_err("--verify: %" PRIu64 " bad blocks; first: %s", res->total.verify_failed,
                     res->verify_msg);
        return 1;
    }
    if (res->stop_signal)
        return 130;
    return rrc ? 1 : 0;
}

/* Meet the other processes of the run (no-op alone) with this one's status; rank 0 says
 * which rank stopped everyone when it was another one (that rank printed why). */
int sbio_session_agree(const struct sbio_config *cfg, int rc, const char *what)
{
    unsigned who = 0;
    int g = sbio_mpi_agree(rc, &who);
    if (g && g != -EINTR && who != cfg->rank && cfg->rank == 0)
        sbio_err("rank %u of %u %s (its message above); every rank stopped", who, cfg->nranks,
                 what);
    return g;
}

int sbio_session_run(const struct sbio_config *cfg, FILE *text, FILE *interim, json_t **doc,
                     int *status)
{
    struct sbio_fileset fs = {.dirfd = -1};
    struct sbio_run_result res;
    struct sbio_target target;
    struct sbio_tune tune = {0};
    bool created = false;
    /* Under MPI rank 0 prints and writes for all; each host's leader alone changes the host's
     * device settings and drops its caches. Alone, this process is both. */
    bool report = cfg->rank == 0;
    const char *sched = cfg->host_leader ? cfg->scheduler : NULL;
    int nqueue = cfg->host_leader ? cfg->nqueue : 0;
    *status = 0;
    if (doc)
        *doc = NULL;
    int rc = sbio_session_check(cfg);
    if (!rc)
        rc = session_target(cfg, &target);
    if (!rc)
        rc = cfg->filename ? sbio_fileset_open_device(&fs, cfg)
                           : sbio_fileset_open(&fs, cfg, cfg->mode == SBIO_MODE_SEQWR, &created);
    if (!rc && created)
        fprintf(text, "No file set in %s: seqwr creates one (%u files)\n", cfg->dir, fs.nfiles);
    /* What the reports show: a shared set under several ranks is walked in per-thread
     * slices (the runner numbers threads across ranks). */
    struct sbio_config v = *cfg;
    bool shared = cfg->nranks > 1 && !cfg->file_per_rank;
    if (shared && sbio_mode_sequential(cfg->mode))
        v.seq_stream = SBIO_SEQ_PER_THREAD;
    /* The seed is drawn here so the header can print it before the run; rank 0's is every
     * rank's, so --rand-seed repeats a multi-rank run too. */
    struct sbio_config c = v;
    if (!c.rand_seed)
        c.rand_seed = sbio_mix64(sbio_now_ns() ^ (uint64_t)(uintptr_t)&c);
    sbio_mpi_bcast_u64(&c.rand_seed);
    json_t *env = NULL;
    bool ran = false, applied = false;
    if (!rc) {
        rc = sbio_tune_apply(&tune, &target, sched, cfg->queue, nqueue, text);
        applied = !rc;
    }
    if (applied) {
        sbio_report_header(text, &v, &fs, c.rand_seed);
        sbio_sysblock_describe(text, &target);
        /* The environment is read now, while sbio's settings are in effect. */
        if (doc && report)
            env = sbio_json_environment(&target);
        if (cfg->drop_caches && cfg->host_leader) {
            rc = sbio_drop_caches();
            if (!rc)
                fprintf(text, "Page cache dropped (sync, then drop_caches=3)\n");
        }
    }
    /* Every process has its set open, its settings applied and its caches dropped, or says
     * why not: all run, or none. */
    rc = sbio_session_agree(cfg, rc, "could not start the run");
    fflush(text);
    if (!rc) {
        unsigned n = cfg->nranks, me = cfg->rank;
        /* Ranks with sets of their own draw different offsets from one seed; ranks sharing a
         * set differ by their threads' numbers. --events and --rate are totals: each rank
         * takes its share. */
        if (cfg->file_per_rank && me)
            c.rand_seed = sbio_mix64(c.rand_seed ^ me);
        c.events = cfg->events / n + (me < cfg->events % n);
        c.rate = cfg->rate / n + (me < cfg->rate % n);
        struct sbio_runner_sync sync;
        struct sbio_mpi_watch *watch = sbio_mpi_watch_new(&sync, (unsigned)cfg->threads, shared);
        rc = sbio_runner_run_sync(&c, &fs, created, &target, interim, watch ? &sync : NULL, &res);
        sbio_mpi_watch_free(watch);
        ran = !rc;
    }
    /* Settings go back before anything else can fail. */
    int rrc = sbio_tune_restore(&tune);
    if (rrc)
        sbio_err("some settings could not be restored; run sbio restore as root");
    /* A process that could not start its threads printed why; then nobody reports. */
    int arc = sbio_session_agree(cfg, ran ? 0 : rc, "could not start its threads");
    if (ran && arc) {
        sbio_run_result_free(&res);
        ran = false;
        rc = arc;
    }
    if (ran && (rc = sbio_mpi_reduce_result(&res))) {
        sbio_run_result_free(&res);
        ran = false;
    }
    if (ran) {
        if (report) {
            sbio_report_text(text, &v, &fs, &res);
            if (doc)
                *doc = sbio_json_result(&v, &fs, &res, env);
        }
        int st = session_status(&res, rrc, report);
        /* The run's status is the worst of every rank's. */
        st = sbio_mpi_agree(st == 130 ? -EINTR : st ? -EIO : 0, NULL);
        *status = st == -EINTR ? 130 : st ? 1 : 0;
        sbio_run_result_free(&res);
    }
    json_decref(env);
    sbio_fileset_close(&fs);
    return rc;
}

/* One job of a script's phase, run on its own thread beside the phase's other jobs. */
struct session_job {
    struct sbio_config cfg;
    struct sbio_mix mix;
    struct sbio_script_hook hook; /* event = true: the script's event(ctx) per op */
    const struct sbio_hook_ops *hook_ops;
    uint64_t *sizes;
    struct sbio_fileset *fs;
    const struct sbio_target *target;
    struct sbio_run_result res;
    int rc;
    pthread_t tid;
    char block_what[160]; /* cfg.block_what: which declaration set the block size */
};

static void *session_job_main(void *arg)
{
    struct session_job *j = arg;
    j->rc = sbio_runner_run(&j->cfg, j->fs, false, j->target, NULL, &j->res);
    return NULL;
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
    for (unsigned k = 0; k < sj->nblocks; k++)
        json_array_append_new(blocks, json_pack("{s:I,s:f}", "bytes", (json_int_t)sj->block[k],
                                                "weight", sj->block_weight[k]));
    json_object_set_new(d, "blocks", blocks);
    if (sj->mode != SBIO_MODE_NONE) {
        json_object_set_new(d, "kind", json_string("mode"));
        json_object_set_new(d, "mode", json_string(sbio_mode_name(sj->mode)));
        json_object_set_new(d, "fsync_freq", json_integer((json_int_t)sj->fsync_freq));
        json_object_set_new(d, "rw_ratio", json_real(sj->rw_ratio));
        json_object_set_new(
            d, "stream", json_string(sj->stream == SBIO_SEQ_PER_THREAD ? "per-thread" : "shared"));
    } else if (sj->event) {
        json_object_set_new(d, "kind", json_string("event"));
    } else {
        json_object_set_new(d, "kind", json_string("mix"));
        json_object_set_new(d, "mix",
                            json_pack("{s:f,s:f,s:f,s:f}", "read", sj->weight[SBIO_MIX_READ],
                                      "write", sj->weight[SBIO_MIX_WRITE], "fsync",
                                      sj->weight[SBIO_MIX_FSYNC], "fdatasync",
                                      sj->weight[SBIO_MIX_FDATASYNC]));
        json_object_set_new(d, "pattern", json_string(sbio_pattern_name(sj->pattern)));
        json_object_set_new(d, "pattern_a", json_real(sj->pa));
        json_object_set_new(d, "pattern_b", json_real(sj->pb));
    }
    return d;
}

/* The configuration of one job: the command line's, with the job's threads, engine, flags,
 * rate, sizes and (for a mix) the compiled mix. */
static void session_job_cfg(struct session_job *j, const struct sbio_config *base,
                            const struct sbio_script *script, const struct sbio_script_phase *p,
                            const struct sbio_script_job *sj, unsigned total_threads,
                            unsigned threads_before, uint64_t seed, const struct sbio_fileset *fs)
{
    struct sbio_config *c = &j->cfg;
    *c = *base;
    c->threads = sj->threads;
    c->ioengine = sj->engine;
    c->iodepth = sj->iodepth;
    c->extra_flags = sj->flags;
    c->rate = sj->rate;
    c->think_us = sj->think_us;
    c->time_s = p->time_s;
    /* The phase's event budget is shared by its jobs in proportion to their threads. */
    /* Exactly the phase's total: job k gets its threads' share of the cumulative count,
     * floor to floor. */
    c->events =
        (uint64_t)((unsigned __int128)p->events * (threads_before + sj->threads) / total_threads -
                   (unsigned __int128)p->events * threads_before / total_threads);
    if (p->events && !c->events && !c->time_s)
        c->time_s = 1; /* a job with no share of the events idles for a second */
    c->seq_stream = sj->stream;
    c->report_interval_s = 0; /* several jobs' interim lines would interleave */
    /* The job's index, not its address: --rand-seed must repeat a run. */
    c->rand_seed = sbio_mix64(seed ^ (uint64_t)(sj - p->jobs + 1));
    uint64_t small = sj->block[0], big = sj->block[0];
    for (unsigned k = 1; k < sj->nblocks; k++) {
        small = sj->block[k] < small ? sj->block[k] : small;
        big = sj->block[k] > big ? sj->block[k] : big;
    }
    c->block_size = small;
    snprintf(j->block_what, sizeof(j->block_what), "phase \"%s\", job \"%s\": block", p->name,
             sj->name);
    c->block_what = j->block_what;
    if (sj->mode != SBIO_MODE_NONE) {
        c->mode = sj->mode;
        c->fsync_freq = sj->fsync_freq;
        c->rw_ratio = sj->rw_ratio;
        c->mix = NULL;
        return;
    }
    /* A mix: offsets in units of its smallest size; buffers as large as its largest. */
    c->mode = SBIO_MODE_RNDRW;
    c->merged_requests = (big + small - 1) / small;
    c->fsync_freq = 0;
    c->fsync_end = false;
    c->fsync_all = false;
    if (sj->event) {
        /* event(ctx) chooses every operation: its requests may be as long as the job's
         * largest block. */
        j->sizes = calloc(fs->nfiles, sizeof(uint64_t));
        for (unsigned f = 0; j->sizes && f < fs->nfiles; f++)
            j->sizes[f] = fs->files[f].size;
        j->hook = (struct sbio_script_hook){.s = script,
                                            .names = base->xname,
                                            .values = base->xvalue,
                                            .nover = base->nxopt,
                                            .nfiles = fs->nfiles,
                                            .file_sizes = j->sizes,
                                            .max_len = big};
        j->hook_ops = j->sizes ? sbio_script_hook_ops(&j->hook) : NULL;
        c->hook = j->hook_ops;
        return;
    }
    uint64_t n = 0;
    for (unsigned f = 0; f < fs->nfiles; f++)
        n += fs->files[f].size / small;
    sbio_mix_init(&j->mix, sj, n);
    c->mix = &j->mix;
}

/* What a phase's jobs hold once the phase is reported. */
static void session_jobs_free(struct session_job *jobs, unsigned started, unsigned njobs)
{
    for (unsigned k = 0; k < started; k++)
        if (!jobs[k].rc)
            sbio_run_result_free(&jobs[k].res);
    for (unsigned k = 0; k < njobs; k++) {
        free((void *)jobs[k].hook_ops);
        free(jobs[k].sizes);
    }
}

/* The phase's total: every job's threads side by side, merged. */
static int session_merge_jobs(struct session_job *jobs, unsigned n, struct sbio_run_result *tot)
{
    struct sbio_run_result parts[SBIO_SCRIPT_MAX_JOBS];
    for (unsigned k = 0; k < n; k++)
        parts[k] = jobs[k].res;
    memset(tot, 0, sizeof(*tot));
    return sbio_result_merge(tot, parts, n, SBIO_MERGE_JOBS, NULL, NULL);
}

int sbio_session_run_script(const struct sbio_config *cfg, const struct sbio_script *s, FILE *text,
                            json_t **doc, int *status)
{
    struct sbio_fileset fs = {.dirfd = -1};
    struct sbio_target target;
    struct sbio_tune tune = {0};
    bool created = false;
    *status = 0;
    if (doc)
        *doc = NULL;
    if (cfg->nranks > 1) {
        sbio_err("--script under mpirun: not implemented yet (run the script on one host)");
        return -SBIO_EUSAGE;
    }
    int rc = sbio_session_check(cfg);
    if (!rc)
        rc = session_target(cfg, &target);
    if (!rc)
        rc = sbio_fileset_open(&fs, cfg, false, &created);
    /* The set must be the one the script declares (with these option values). */
    if (!rc && cfg->nfile_sizes) {
        bool same = fs.nfiles == cfg->nfile_sizes;
        for (unsigned i = 0; same && i < fs.nfiles; i++)
            same = fs.files[i].size == cfg->file_sizes[i];
        if (!same) {
            char a[32], b[32];
            uint64_t want = 0;
            for (unsigned i = 0; i < cfg->nfile_sizes; i++)
                want += cfg->file_sizes[i];
            sbio_err("%s declares %u files, %s, but the set in %s has %u files, %s: run sbio "
                     "prepare with the same script options, or cleanup first",
                     s->path, cfg->nfile_sizes, sbio_fmt_bytes(a, sizeof(a), want), cfg->dir,
                     fs.nfiles, sbio_fmt_bytes(b, sizeof(b), fs.bytes));
            rc = -SBIO_EUSAGE;
        }
    }
    if (!rc)
        rc = sbio_tune_apply(&tune, &target, cfg->scheduler, cfg->queue, cfg->nqueue, text);
    if (rc) {
        sbio_fileset_close(&fs);
        return rc;
    }
    uint64_t seed = cfg->rand_seed ? cfg->rand_seed : sbio_mix64(sbio_now_ns());
    char b[32];
    fprintf(text,
            "sbio %s: script %s, %u phase%s on %u files (%s)\nRandom seed: %" PRIu64
            " (repeat with --rand-seed=%" PRIu64 ")\n",
            SBIO_VERSION, s->path, s->nphases, s->nphases == 1 ? "" : "s", fs.nfiles,
            sbio_fmt_bytes(b, sizeof(b), fs.bytes), seed, seed);
    sbio_sysblock_describe(text, &target);
    /* The report hook reads the same document JSON output writes. */
    json_t *mine = NULL;
    if (!doc && s->has_report)
        doc = &mine;
    json_t *env = doc ? sbio_json_environment(&target) : NULL;
    json_t *phases = json_array();
    for (unsigned pi = 0; pi < s->nphases && !rc && !sbio_stop_requested(); pi++) {
        const struct sbio_script_phase *p = &s->phases[pi];
        struct session_job jobs[SBIO_SCRIPT_MAX_JOBS];
        unsigned total = 0;
        for (unsigned k = 0; k < p->njobs; k++)
            total += p->jobs[k].threads;
        memset(jobs, 0, sizeof(jobs));
        fprintf(text, "\n=== Phase %u/%u: %s (%u job%s, %u threads) ===\n", pi + 1, s->nphases,
                p->name, p->njobs, p->njobs == 1 ? "" : "s", total);
        if (p->drop_caches) {
            if (geteuid() == 0 && !sbio_drop_caches())
                fprintf(text, "Page cache dropped (sync, then drop_caches=3)\n");
            else
                fprintf(text, "Page cache not dropped: that needs root\n");
        }
        fflush(text);
        unsigned before = 0;
        for (unsigned k = 0; k < p->njobs; k++) {
            jobs[k].fs = &fs;
            jobs[k].target = &target;
            session_job_cfg(&jobs[k], cfg, s, p, &p->jobs[k], total, before, seed + pi, &fs);
            before += p->jobs[k].threads;
        }
        /* The jobs start together and run side by side. */
        unsigned started = 0;
        for (; started < p->njobs; started++)
            if (pthread_create(&jobs[started].tid, NULL, session_job_main, &jobs[started])) {
                sbio_err("phase %s: cannot start job %s", p->name, p->jobs[started].name);
                rc = -EAGAIN;
                break;
            }
        for (unsigned k = 0; k < started; k++)
            pthread_join(jobs[k].tid, NULL);
        int prc = 0;
        for (unsigned k = 0; k < started && !prc; k++)
            if (jobs[k].rc)
                prc = jobs[k].rc;
        json_t *pj = json_object(), *jj = json_array();
        json_object_set_new(pj, "name", json_string(p->name));
        /* A phase the system refuses (an O_DIRECT size the device cannot do, …) is reported
         * as refused, with the reason printed above, and the script goes on. */
        if (prc == -SBIO_EUSAGE) {
            fprintf(text, "Phase %s refused (see the message above); going on\n", p->name);
            json_object_set_new(pj, "refused", json_true());
            session_jobs_free(jobs, started, p->njobs);
            json_object_set_new(pj, "jobs", jj);
            json_array_append_new(phases, pj);
            continue;
        }
        rc = prc;
        for (unsigned k = 0; !rc && k < p->njobs; k++) {
            fprintf(text, "\n--- Job %s (%u thread%s, %s) ---\n", p->jobs[k].name,
                    p->jobs[k].threads, p->jobs[k].threads == 1 ? "" : "s",
                    sbio_engine_name(p->jobs[k].engine));
            sbio_report_text(text, &jobs[k].cfg, &fs, &jobs[k].res);
            if (doc)
                json_array_append_new(
                    jj, json_pack("{s:s,s:o,s:o}", "name", p->jobs[k].name, "declared",
                                  job_declared(&p->jobs[k]), "result",
                                  sbio_json_result(&jobs[k].cfg, &fs, &jobs[k].res, env)));
            int st = session_status(&jobs[k].res, 0, true);
            *status = st > *status ? st : *status;
        }
        json_object_set_new(pj, "jobs", jj);
        if (!rc && p->njobs > 1) {
            struct sbio_run_result tot;
            if (!session_merge_jobs(jobs, p->njobs, &tot)) {
                /* The total's configuration: the first job's, with every job's threads. */
                struct sbio_config all = jobs[0].cfg;
                all.threads = tot.threads;
                fprintf(text, "\n--- Phase %s, all jobs ---\n", p->name);
                sbio_report_text(text, &all, &fs, &tot);
                if (doc)
                    json_object_set_new(pj, "total", sbio_json_result(&all, &fs, &tot, env));
                free(tot.per_thread);
            }
        }
        json_array_append_new(phases, pj);
        session_jobs_free(jobs, started, p->njobs);
        if (*status == 130)
            break;
    }
    int rrc = sbio_tune_restore(&tune);
    if (rrc) {
        sbio_err("some settings could not be restored; run sbio restore as root");
        *status = *status ? *status : 1;
    }
    if (doc && !rc) {
        *doc = json_object();
        json_object_set_new(*doc, "schema", json_string("sbio-script/1"));
        json_object_set_new(*doc, "sbio_version", json_string(SBIO_VERSION));
        json_object_set_new(*doc, "script", json_string(s->path));
        json_object_set_new(*doc, "phases", phases);
    } else {
        json_decref(phases);
    }
    if (!rc && s->has_report && *doc) {
        char err[512];
        fprintf(text, "\n=== report() of %s ===\n", s->path);
        fflush(text);
        if (sbio_script_report(s, cfg->xname, cfg->xvalue, cfg->nxopt, *doc, err, sizeof(err))) {
            sbio_err("report(): %s", err);
            *status = *status ? *status : 1;
        }
    }
    json_decref(mine);
    json_decref(env);
    sbio_fileset_close(&fs);
    return rc;
}
