/* sbio: parse the command line, dispatch the command; the only place that exits. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "diff.h"
#include "fileset.h"
#include "options.h"
#include "plot.h"
#include "report.h"
#include "runner.h"
#include "session.h"
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
    int rc = sbio_session_check(cfg);
    if (rc)
        return exit_code(rc);
    /* Where each format goes: the machine format to --output (or to stdout, the text then
     * being silent); the text report to the terminal (or to --output when it is text). */
    FILE *text = stdout, *machine = NULL, *devnull = NULL;
    bool csv_header = true;
    if (cfg->output) {
        bool csv = cfg->output_format == SBIO_OUT_CSV;
        FILE *f = fopen(cfg->output, csv ? "a" : "w");
        if (!f) {
            sbio_err("--output %s: %s", cfg->output, strerror(errno));
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
    json_t *doc = NULL;
    int status = 0;
    rc = sbio_session_run(cfg, text, interim, machine ? &doc : NULL, &status);
    int code = rc ? exit_code(rc) : status;
    if (!rc && machine && doc) {
        int wrc = cfg->output_format == SBIO_OUT_JSON ? sbio_report_json(machine, doc)
                                                      : sbio_report_csv(machine, doc, csv_header);
        if (wrc || fflush(machine)) {
            sbio_err("--output %s: write: %s", cfg->output ? cfg->output : "(stdout)",
                     strerror(errno));
            code = EXIT_FAILED;
        }
    }
    json_decref(doc);
    if (machine && machine != stdout)
        fclose(machine);
    if (text != stdout && text != stderr)
        fclose(text);
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
    case SBIO_CMD_COMPARE: return sbio_compare(&cfg);
    case SBIO_CMD_DIFF: return sbio_diff(&cfg);
    default: sbio_err("%s: not implemented yet", sbio_cmd_name(cfg.cmd)); return EXIT_USAGE;
    }
}
