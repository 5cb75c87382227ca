/* sbio: parse the command line, dispatch the command; the only place that exits. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "diff.h"
#include "fileset.h"
#include "mpi.h"
#include "options.h"
#include "plot.h"
#include "report.h"
#include "runner.h"
#include "script.h"
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
    /* A closed terminal stops the run like ^C (settings restored, report printed); a closed
     * pipe is an error on that write, not a death with settings left changed. */
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
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

static int cmd_run(const struct sbio_config *cfg, const struct sbio_script *script)
{
    /* Where each format goes: the machine format to --output (or to stdout, the text then
     * being silent); the text report to the terminal (or to --output when it is text). Under
     * MPI only rank 0 writes: the others' stdout is /dev/null. */
    FILE *text = stdout, *machine = NULL, *devnull = NULL;
    bool csv_header = true, writer = cfg->rank == 0;
    int rc = 0;
    /* The output's folder must exist before the set is touched (seqwr may create it). */
    if (cfg->output && writer) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", cfg->output);
        char *slash = strrchr(dir, '/');
        const char *d = slash ? (slash == dir ? "/" : (*slash = 0, dir)) : ".";
        if (access(d, W_OK)) {
            sbio_err("--output %s: %s: %s", cfg->output, d, strerror(errno));
            rc = -SBIO_EUSAGE;
        }
    }
    if (!rc)
        rc = sbio_session_check(cfg);
    if (!rc && writer && cfg->output) {
        bool csv = cfg->output_format == SBIO_OUT_CSV;
        FILE *f = fopen(cfg->output, csv ? "a" : "w");
        if (!f) {
            sbio_err("--output %s: %s", cfg->output, strerror(errno));
            rc = -SBIO_EUSAGE;
        } else {
            /* CSV appends one line per run under a single header. */
            csv_header = !csv || ftell(f) == 0;
            if (cfg->output_format == SBIO_OUT_TEXT)
                text = f;
            else
                machine = f;
        }
    } else if (!rc && writer && cfg->output_format != SBIO_OUT_TEXT) {
        machine = stdout;
        devnull = fopen("/dev/null", "w");
        text = devnull ? devnull : stderr;
    }
    /* Every rank got here, its checks passed or not. */
    rc = sbio_session_agree(cfg, rc, "failed its checks");
    int code = exit_code(rc);
    if (!rc) {
        FILE *interim = text == devnull && cfg->report_interval_s ? stderr : text;
        json_t *doc = NULL;
        int status = 0;
        rc = script ? sbio_session_run_script(cfg, script, text, machine ? &doc : NULL, &status)
                    : sbio_session_run(cfg, text, interim, machine ? &doc : NULL, &status);
        code = rc ? exit_code(rc) : status;
        if (!rc && machine && doc) {
            int wrc = cfg->output_format == SBIO_OUT_JSON
                          ? sbio_report_json(machine, doc)
                          : sbio_report_csv(machine, doc, csv_header);
            if (wrc || fflush(machine)) {
                sbio_err("--output %s: write: %s", cfg->output ? cfg->output : "(stdout)",
                         strerror(errno));
                code = EXIT_FAILED;
            }
        }
        json_decref(doc);
    }
    if (machine && machine != stdout)
        fclose(machine);
    if (text != stdout && text != stderr)
        fclose(text);
    return code;
}

/* --file-per-rank: this rank's folder, DIR/rank.N, made by prepare when missing. */
static int rank_dir(struct sbio_config *cfg, char *buf, size_t len)
{
    if (snprintf(buf, len, "%s/rank.%u", cfg->dir, cfg->rank) >= (int)len) {
        sbio_err("--dir %s: too long for --file-per-rank", cfg->dir);
        return -SBIO_EUSAGE;
    }
    cfg->dir = buf;
    return 0;
}

/* prepare and cleanup under MPI: with --file-per-rank every rank its own set, else rank 0
 * alone the shared one; the ranks meet before and after. */
static int cmd_set(const struct sbio_config *cfg)
{
    bool mine = cfg->file_per_rank || cfg->rank == 0;
    int rc = 0;
    if (mine && cfg->file_per_rank && cfg->cmd == SBIO_CMD_PREPARE && mkdir(cfg->dir, 0755) &&
        errno != EEXIST) {
        sbio_err("--dir %s: mkdir: %s", cfg->dir, strerror(errno));
        rc = -SBIO_EUSAGE;
    }
    rc = sbio_session_agree(cfg, rc, "could not start");
    /* Under mpirun a rank whose prepare fails tells the others, which stop at their next
     * write instead of finishing their sets (the watch's first meeting arms it). */
    struct sbio_runner_sync sync = {0};
    struct sbio_mpi_watch *watch = rc ? NULL : sbio_mpi_watch_new(&sync, 1, false);
    if (watch)
        sync.agree(sync.ctx, 0);
    if (!rc && mine) {
        struct sbio_fileset_poll poll = {.stopped = sync.stopped, .ctx = sync.ctx};
        rc = cfg->cmd == SBIO_CMD_PREPARE ? sbio_fileset_prepare(cfg, watch ? &poll : NULL)
                                          : sbio_fileset_cleanup(cfg);
        /* Stopped by another rank: that rank's status is the job's. */
        if (rc == -ECANCELED)
            rc = -EINTR;
        /* The rank's folder goes with its set (kept when something else is in it). */
        if (!rc && cfg->file_per_rank && cfg->cmd == SBIO_CMD_CLEANUP && rmdir(cfg->dir) &&
            errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
            sbio_note("--dir %s: rmdir: %s", cfg->dir, strerror(errno));
    }
    if (!rc && cfg->nranks > 1 && cfg->rank == 0)
        printf("Rank 0 done; %s\n", cfg->file_per_rank ? "every rank works on its own set"
                                                       : "the set is shared by every rank");
    if (watch) {
        sync.agree(sync.ctx, rc); /* tells the others, if this rank failed */
        sbio_mpi_watch_free(watch);
    }
    rc = sbio_session_agree(cfg, rc,
                            cfg->cmd == SBIO_CMD_PREPARE ? "failed to prepare its set"
                                                         : "failed to clean up its set");
    if (!rc && cfg->nranks > 1 && cfg->rank == 0)
        printf("All %u ranks done\n", cfg->nranks);
    return exit_code(rc);
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

static int sbio_main_with(int argc, char **argv, struct sbio_script *script,
                          struct sbio_script *decl)
{
    struct sbio_config cfg;
    char dir[PATH_MAX];
    unsigned rank = sbio_mpi_rank();
    /* Under MPI rank 0 speaks for all: the other ranks' stdout goes nowhere, and the option
     * checks every rank repeats alike are reported by rank 0 alone. Their stderr stays
     * otherwise: a rank that fails on its own says why. */
    int err_fd = -1;
    if (rank) {
        if (!freopen("/dev/null", "w", stdout))
            sbio_note("rank %u: /dev/null: %s", rank, strerror(errno));
        fflush(stderr);
        int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        err_fd = null_fd >= 0 ? dup(STDERR_FILENO) : -1;
        if (err_fd >= 0)
            dup2(null_fd, STDERR_FILENO);
        if (null_fd >= 0)
            close(null_fd);
    }
    sbio_options_defaults(&cfg);
    /* A script's own options parse like built-in ones: the script is read once first, for
     * their names and types, and again with their values once the line is parsed. */
    bool have_script = false;
    const char *spath = NULL;
    char sbuf[PATH_MAX], serr[512];
    for (int i = 1; i < argc && !spath; i++) {
        if (!strncmp(argv[i], "--script=", 9))
            spath = argv[i] + 9;
        else if (!strcmp(argv[i], "--script") && i + 1 < argc)
            spath = argv[i + 1];
    }
    if (spath) {
        const char *p = sbio_script_find(spath, sbuf, sizeof(sbuf));
        if (!p) {
            sbio_err("--script %s: no such script (a path, or a name in the workloads folder)",
                     spath);
            return EXIT_USAGE;
        }
        if (sbio_script_load(p, NULL, NULL, 0, decl, serr, sizeof(serr))) {
            sbio_err("%s", serr);
            return EXIT_USAGE;
        }
        for (unsigned i = 0; i < decl->nopts && i < SBIO_MAX_LIST; i++) {
            cfg.xdecl[cfg.nxdecl] = decl->opts[i].name;
            cfg.xdecl_bool[cfg.nxdecl++] = decl->opts[i].type == 'b';
        }
    }
    int rc = sbio_options_parse(&cfg, argc, argv);
    if (!rc && spath) {
        if (sbio_script_load(sbuf, cfg.xname, cfg.xvalue, cfg.nxopt, script, serr, sizeof(serr))) {
            sbio_err("%s", serr);
            rc = -EINVAL;
        } else {
            have_script = true;
            cfg.script = script->path;
            if (script->nfiles) {
                cfg.nfile_sizes = script->nfiles;
                cfg.file_sizes = script->file_size;
            }
        }
    }
    if (!rc) {
        char host[SBIO_MPI_HOST_LEN];
        cfg.rank = rank;
        cfg.nranks = sbio_mpi_size();
        rc = sbio_mpi_hosts(host, &cfg.host_leader, &cfg.nhosts);
        unsigned set_cmds = SBIO_C(SBIO_CMD_PREPARE) | SBIO_C(SBIO_CMD_RUN) |
                            SBIO_C(SBIO_CMD_CLEANUP) | SBIO_C(SBIO_CMD_COMPARE);
        if (!rc && cfg.file_per_rank && (SBIO_C(cfg.cmd) & set_cmds))
            rc = rank_dir(&cfg, dir, sizeof(dir));
        if (!rc)
            rc = sbio_options_validate(&cfg);
    }
    if (err_fd >= 0) {
        fflush(stderr);
        dup2(err_fd, STDERR_FILENO);
        close(err_fd);
    }
    if (rc)
        return EXIT_USAGE;

    /* Whatever a killed sbio left changed is put back by the next command, whichever (under
     * MPI by each host's leader, before any rank goes on). */
    if (cfg.cmd != SBIO_CMD_RESTORE && (geteuid() == 0 || getenv("SBIO_STATE_DIR")) &&
        cfg.host_leader)
        sbio_tune_recover(false);
    sbio_mpi_agree(0, NULL);
    char lib[128];
    switch (cfg.cmd) {
    case SBIO_CMD_HELP:
        if (sbio_options_help(stdout, cfg.nargs ? cfg.args[0] : NULL))
            return EXIT_USAGE;
        if (spath) {
            printf("\nOptions of the script %s:\n", decl->path);
            for (unsigned i = 0; i < decl->nopts; i++) {
                char left[96];
                snprintf(left, sizeof(left), "--%s=%s", decl->opts[i].name,
                         decl->opts[i].type == 'n'   ? "N"
                         : decl->opts[i].type == 'b' ? "on|off"
                                                     : "VALUE");
                printf("  %-30s %s [%s]\n", left, decl->opts[i].help, decl->opts[i].def);
            }
        }
        return EXIT_OK;
    case SBIO_CMD_VERSION:
        if (sbio_mpi_library(lib, sizeof(lib)))
            printf("sbio %s (MPI: %s)\n", SBIO_VERSION, lib);
        else
            printf("sbio %s\n", SBIO_VERSION);
        return EXIT_OK;
    default: break;
    }
    install_signals();
    switch (cfg.cmd) {
    case SBIO_CMD_RESTORE: return cfg.host_leader ? cmd_restore() : EXIT_OK;
    case SBIO_CMD_PLOT: return cfg.rank ? EXIT_OK : exit_code(sbio_plot(&cfg));
    case SBIO_CMD_PREPARE:
    case SBIO_CMD_CLEANUP: return cmd_set(&cfg);
    case SBIO_CMD_RUN: return cmd_run(&cfg, have_script ? script : NULL);
    case SBIO_CMD_COMPARE:
        return exit_code(sbio_compare(&cfg, have_script ? script : NULL, stdout));
    case SBIO_CMD_DIFF: return cfg.rank ? EXIT_OK : exit_code(sbio_diff(&cfg, stdout));
    default: sbio_err("%s: not implemented yet", sbio_cmd_name(cfg.cmd)); return EXIT_USAGE;
    }
}

/* The script's declarations live as long as the command; freed here, whichever way it
 * ended. */
static int sbio_main(int argc, char **argv)
{
    struct sbio_script script = {0}, decl = {0};
    int code = sbio_main_with(argc, argv, &script, &decl);
    sbio_script_free(&script);
    sbio_script_free(&decl);
    return code;
}

int main(int argc, char **argv)
{
    /* Under mpirun every rank runs the whole command; see mpi.h. */
    if (sbio_mpi_init(&argc, &argv))
        return EXIT_FAILED;
    int code = sbio_main(argc, argv);
    sbio_mpi_finalize();
    return code;
}
