/* sbio: parse the command line, dispatch the command; the only place that exits. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileset.h"
#include "options.h"
#include "report.h"
#include "runner.h"
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
    bool created;
    int rc = sbio_fileset_open(&fs, cfg, cfg->mode == SBIO_MODE_SEQWR, &created);
    if (rc) {
        sbio_fileset_close(&fs);
        return exit_code(rc);
    }
    if (created)
        printf("No file set in %s: seqwr creates one (%u files)\n", cfg->dir, fs.nfiles);
    /* The seed is drawn by the runner; print the header once it is known. */
    struct sbio_config c = *cfg;
    if (!c.rand_seed)
        c.rand_seed = sbio_mix64(sbio_now_ns() ^ (uint64_t)(uintptr_t)&c);
    sbio_report_header(stdout, cfg, &fs, c.rand_seed);
    rc = sbio_runner_run(&c, &fs, created, &res);
    if (rc) {
        sbio_fileset_close(&fs);
        return exit_code(rc);
    }
    sbio_report_text(stdout, cfg, &fs, &res);
    int code = EXIT_OK;
    if (res.error) {
        sbio_err("%s", res.error_msg);
        code = EXIT_FAILED;
    } else if (res.stop_signal) {
        code = EXIT_INTERRUPTED;
    }
    sbio_run_result_free(&res);
    sbio_fileset_close(&fs);
    return code;
}

int main(int argc, char **argv)
{
    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    if (sbio_options_parse(&cfg, argc, argv) || sbio_options_validate(&cfg))
        return EXIT_USAGE;

    switch (cfg.cmd) {
    case SBIO_CMD_HELP:
        return sbio_options_help(stdout, cfg.nargs ? cfg.args[0] : NULL) ? EXIT_USAGE : EXIT_OK;
    case SBIO_CMD_VERSION: printf("sbio %s\n", SBIO_VERSION); return EXIT_OK;
    default: break;
    }
    install_signals();
    switch (cfg.cmd) {
    case SBIO_CMD_PREPARE: return exit_code(sbio_fileset_prepare(&cfg));
    case SBIO_CMD_CLEANUP: return exit_code(sbio_fileset_cleanup(&cfg));
    case SBIO_CMD_RUN: return cmd_run(&cfg);
    default: sbio_err("%s: not implemented yet", sbio_cmd_name(cfg.cmd)); return EXIT_USAGE;
    }
}
