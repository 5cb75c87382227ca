#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileset.h"
#include "mpi.h"
#include "report.h"
#include "runner.h"
#include "sysblock.h"
#include "util.h"

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
static int session_agree(const struct sbio_config *cfg, int rc, const char *what)
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
    rc = session_agree(cfg, rc, "could not start the run");
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
    int arc = session_agree(cfg, ran ? 0 : rc, "could not start its threads");
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
