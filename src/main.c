/* sbio: parse the command line, dispatch the command; the only place that exits. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileset.h"
#include "options.h"
#include "plot.h"
#include "report.h"
#include "runner.h"
#include "sysblock.h"
#include "util.h"
#include "version.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

static void on_signal(int sig)
{
    /* A second signal while stopping is ignored: the report is still being made. */
    __atomic_store_n(&sbio_stop_signal, sig, __ATOMIC_RELAXED);
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int exit_code(int rc)
{
    if (rc == 0)
        return EXIT_OK;
    if (rc == -SBIO_EUSAGE)
        return EXIT_USAGE;
    if (rc == -EINTR)
        return EXIT_INTERRUPTED;
    return EXIT_FAILED;
}

static int cmd_run(const struct sbio_config *cfg)
{
    struct sbio_fileset fs;
    struct sbio_run_result res;
    struct sbio_target target;
    struct sbio_tune tune = {0};
    bool created;
    if (cfg->drop_caches && geteuid() != 0 && !getenv("SBIO_PROCFS_ROOT")) {
        sbio_err("--drop-caches needs root (it writes /proc/sys/vm/drop_caches)");
        return EXIT_USAGE;
    }
    /* Everything that can refuse the settings is checked before the set is touched. */
    if ((cfg->scheduler || cfg->nqueue) && geteuid() != 0 && !getenv("SBIO_SYSFS_ROOT")) {
        sbio_err("%s changes kernel settings and needs root",
                 cfg->scheduler ? "--scheduler" : "--queue");
        return EXIT_USAGE;
    }
    /* A raw device is its own target: its queue is the one tuned. */
    const char *qdev = cfg->filename ? cfg->filename : cfg->queue_device;
    int rc = sbio_sysblock_resolve(cfg->filename ? "/" : cfg->dir, qdev, &target);
    if (rc) {
        if (qdev)
            sbio_err("--%s=%s: no such block device", cfg->filename ? "filename" : "queue-device",
                     qdev);
        else
            sbio_err("--dir %s: %s%s", cfg->dir, strerror(-rc),
                     rc == -ENOENT ? "; create the folder first" : "");
        return EXIT_USAGE;
    }
    if (cfg->filename) {
        snprintf(target.fstype, sizeof(target.fstype), "(raw device)");
        snprintf(target.source, sizeof(target.source), "%.200s", cfg->filename);
        target.mountpoint[0] = target.mount_opts[0] = 0;
    }
    if ((rc = sbio_tune_check(&target, cfg->scheduler, cfg->queue, cfg->nqueue)))
        return exit_code(rc);
    /* The output's folder must exist before the set is touched (seqwr may create it). */
    if (cfg->output) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", cfg->output);
        char *slash = strrchr(dir, '/');
        const char *d = slash ? (slash == dir ? "/" : (*slash = 0, dir)) : ".";
        if (access(d, W_OK)) {
            sbio_err("--output %s: %s: %s", cfg->output, d, strerror(errno));
            return EXIT_USAGE;
        }
    }
    created = false;
    rc = cfg->filename ? sbio_fileset_open_device(&fs, cfg)
                       : sbio_fileset_open(&fs, cfg, cfg->mode == SBIO_MODE_SEQWR, &created);
    if (rc) {
        sbio_fileset_close(&fs);
        return exit_code(rc);
    }
    /* Where each format goes: the machine format to --output (or to stdout, the text then
     * being silent); the text report to the terminal (or to --output when it is text). */
    FILE *text = stdout, *machine = NULL, *devnull = NULL;
    bool csv_header = true;
    if (cfg->output) {
        bool csv = cfg->output_format == SBIO_OUT_CSV;
        FILE *f = fopen(cfg->output, csv ? "a" : "w");
        if (!f) {
            sbio_err("--output %s: %s", cfg->output, strerror(errno));
            sbio_fileset_close(&fs);
            return EXIT_USAGE;
        }
        /* CSV appends one line per run under a single header. */
        csv_header = !csv || ftell(f) == 0;
        if (cfg->output_format == SBIO_OUT_TEXT)
            text = f;
        else
            machine = f;
    } else if (cfg->output_format != SBIO_OUT_TEXT) {
        machine = stdout;
        devnull = fopen("/dev/null", "w");
        text = devnull ? devnull : stderr;
    }
    FILE *interim = text == devnull && cfg->report_interval_s ? stderr : text;
    if (created)
        fprintf(text, "No file set in %s: seqwr creates one (%u files)\n", cfg->dir, fs.nfiles);
    /* The seed is drawn here so the header can print it before the run. */
    struct sbio_config c = *cfg;
    if (!c.rand_seed)
        c.rand_seed = sbio_mix64(sbio_now_ns() ^ (uint64_t)(uintptr_t)&c);
    json_t *env = NULL;
    rc = sbio_tune_apply(&tune, &target, cfg->scheduler, cfg->queue, cfg->nqueue, text);
    if (!rc) {
        sbio_report_header(text, cfg, &fs, c.rand_seed);
        sbio_sysblock_describe(text, &target);
        /* The environment is read now, while sbio's settings are in effect. */
        if (machine)
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
    }
    /* Settings go back before anything else can fail. */
    int rrc = sbio_tune_restore(&tune);
    if (rrc)
        sbio_err("some settings could not be restored; run sbio restore as root");
    int code = EXIT_OK;
    if (rc) {
        code = exit_code(rc);
        goto out;
    }
    sbio_report_text(text, cfg, &fs, &res);
    if (machine) {
        json_t *doc = sbio_json_result(cfg, &fs, &res, env);
        int wrc = cfg->output_format == SBIO_OUT_JSON ? sbio_report_json(machine, doc)
                                                      : sbio_report_csv(machine, doc, csv_header);
        json_decref(doc);
        if (wrc || fflush(machine)) {
            sbio_err("--output %s: write: %s", cfg->output ? cfg->output : "(stdout)",
                     strerror(errno));
            code = EXIT_FAILED;
        }
    }
    if (res.error) {
        sbio_err("%s", res.error_msg);
        code = EXIT_FAILED;
    } else if (res.stop_signal) {
        code = EXIT_INTERRUPTED;
    } else if (rrc && code == EXIT_OK) {
        code = EXIT_FAILED;
    }
    sbio_run_result_free(&res);
out:
    json_decref(env);
    if (machine && machine != stdout)
        fclose(machine);
    if (text != stdout && text != stderr)
        fclose(text);
    sbio_fileset_close(&fs);
    return code;
}

static int cmd_restore(void)
{
    int n = sbio_tune_recover(true);
    if (n < 0) {
        sbio_err("restore: %s", strerror(-n));
        return EXIT_FAILED;
    }
    if (n == 0)
        printf("Nothing to restore\n");
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    if (sbio_options_parse(&cfg, argc, argv) || sbio_options_validate(&cfg))
        return EXIT_USAGE;

    /* Whatever a killed sbio left changed is put back by the next command, whichever. */
    if (cfg.cmd != SBIO_CMD_RESTORE && (geteuid() == 0 || getenv("SBIO_STATE_DIR")))
        sbio_tune_recover(false);
    switch (cfg.cmd) {
    case SBIO_CMD_HELP:
        return sbio_options_help(stdout, cfg.nargs ? cfg.args[0] : NULL) ? EXIT_USAGE : EXIT_OK;
    case SBIO_CMD_VERSION: printf("sbio %s\n", SBIO_VERSION); return EXIT_OK;
    default: break;
    }
    install_signals();
    switch (cfg.cmd) {
    case SBIO_CMD_RESTORE: return cmd_restore();
    case SBIO_CMD_PLOT: return exit_code(sbio_plot(&cfg));
    case SBIO_CMD_PREPARE: return exit_code(sbio_fileset_prepare(&cfg));
    case SBIO_CMD_CLEANUP: return exit_code(sbio_fileset_cleanup(&cfg));
    case SBIO_CMD_RUN: return cmd_run(&cfg);
    default: sbio_err("%s: not implemented yet", sbio_cmd_name(cfg.cmd)); return EXIT_USAGE;
    }
}
