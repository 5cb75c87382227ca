#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileset.h"
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
    if (!cfg->scheduler && !cfg->nqueue)
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

int sbio_session_run(const struct sbio_config *cfg, FILE *text, FILE *interim, json_t **doc,
                     int *status)
{
    struct sbio_fileset fs;
    struct sbio_run_result res;
    struct sbio_target target;
    struct sbio_tune tune = {0};
    bool created = false;
    *status = 0;
    if (doc)
        *doc = NULL;
    int rc = sbio_session_check(cfg);
    if (!rc)
        rc = session_target(cfg, &target);
    if (rc)
        return rc;
    rc = cfg->filename ? sbio_fileset_open_device(&fs, cfg)
                       : sbio_fileset_open(&fs, cfg, cfg->mode == SBIO_MODE_SEQWR, &created);
    if (rc) {
        sbio_fileset_close(&fs);
        return rc;
    }
    if (created)
        fprintf(text, "No file set in %s: seqwr creates one (%u files)\n", cfg->dir, fs.nfiles);
    /* The seed is drawn here so the header can print it before the run. */
    struct sbio_config c = *cfg;
    if (!c.rand_seed)
        c.rand_seed = sbio_mix64(sbio_now_ns() ^ (uint64_t)(uintptr_t)&c);
    json_t *env = NULL;
    bool ran = false;
    rc = sbio_tune_apply(&tune, &target, cfg->scheduler, cfg->queue, cfg->nqueue, text);
    if (!rc) {
        sbio_report_header(text, cfg, &fs, c.rand_seed);
        sbio_sysblock_describe(text, &target);
        /* The environment is read now, while sbio's settings are in effect. */
        if (doc)
            env = sbio_json_environment(&target);
        if (cfg->drop_caches) {
            rc = sbio_drop_caches();
            if (!rc)
                fprintf(text, "Page cache dropped (sync, then drop_caches=3)\n");
        }
        fprintf(text, "\nThreads started!\n\n");
        fflush(text);
        if (!rc)
            rc = sbio_runner_run(&c, &fs, created, &target, interim, &res);
        ran = !rc;
    }
    /* Settings go back before anything else can fail. */
    int rrc = sbio_tune_restore(&tune);
    if (rrc)
        sbio_err("some settings could not be restored; run sbio restore as root");
    if (ran) {
        sbio_report_text(text, cfg, &fs, &res);
        if (doc)
            *doc = sbio_json_result(cfg, &fs, &res, env);
        if (res.error) {
            sbio_err("%s", res.error_msg);
            *status = 1;
        } else if (res.total.verify_failed) {
            sbio_err("--verify: %" PRIu64 " bad blocks; first: %s", res.total.verify_failed,
                     res.verify_msg);
            *status = 1;
        } else if (res.stop_signal) {
            *status = 130;
        } else if (rrc) {
            *status = 1;
        }
        sbio_run_result_free(&res);
    }
    json_decref(env);
    sbio_fileset_close(&fs);
    return rc;
}
