/* sbio: parse the command line, dispatch the command; the only place that exits. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "compare.h"
#include "decl_check.h"
#include "diff.h"
#include "fileset.h"
#include "mpi.h"
#include "options.h"
#include "plot.h"
#include "prepare.h"
#include "report.h"
#include "runner.h"
#include "script.h"
#include "survey.h"
#include "tree_io.h"
#include "pipeline.h"
#include "topology.h"
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

/* The one place a command's code (util.h) becomes sbio's exit status. */
static int exit_status(int rc)
{
    if (rc == 0)
        return EXIT_OK;
    if (rc == -SBIO_EUSAGE)
        return EXIT_USAGE;
    if (rc == -EINTR)
        return EXIT_INTERRUPTED;
    return EXIT_FAILED; /* -SBIO_EFAILED, or any other -errno */
}

/* The folder of --output must exist before the set is touched (seqwr may create it). 0 or
 * -SBIO_EUSAGE (message printed). */
static int check_output_dir(const char *output)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", output);
    char *slash = strrchr(dir, '/');
    const char *d = slash ? (slash == dir ? "/" : (*slash = 0, dir)) : ".";
    if (access(d, W_OK)) {
        sbio_err("--output %s: %s: %s", output, d, strerror(errno));
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* A CSV file is appended to under its one header: a file that has lines already must start
 * with the header this run's lines go under (a script's have phase and job first), else
 * they would land under the wrong columns. Only a regular file is read (-o /dev/stdout is
 * not), and not through a link (which open_outputs judges): its first line is quoted in the
 * message, short and escaped. 0 or -SBIO_EUSAGE (message printed). */
static int check_csv_header(const struct sbio_config *cfg, bool script)
{
    struct stat st;
    if (cfg->output_format != SBIO_OUT_CSV || !cfg->output || lstat(cfg->output, &st) ||
        !S_ISREG(st.st_mode) || st.st_size == 0)
        return 0;
    char want[SBIO_CSV_HEADER_MAX], other[SBIO_CSV_HEADER_MAX], line[SBIO_CSV_HEADER_MAX] = "";
    char shown[128];
    int fd = open(cfg->output, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f && fd >= 0)
        close(fd);
    if (f) {
        if (!fgets(line, sizeof(line), f))
            line[0] = 0;
        fclose(f);
    }
    line[strcspn(line, "\r\n")] = 0;
    if (sbio_report_csv_header(want, sizeof(want), script) ||
        sbio_report_csv_header(other, sizeof(other), !script) || !strcmp(line, want))
        return 0;
    const char *who = script ? "script" : "run";
    if (!strcmp(line, other))
        sbio_err("--output %s holds %s (its header starts %s); a %s's lines have %s: give the "
                 "%s another file",
                 cfg->output, script ? "built-in runs' lines" : "a script's lines",
                 script ? "sbio_version,…" : "phase,job,…", who,
                 script ? "phase and job first" : "no phase and job", who);
    else
        sbio_err("--output %s: its first line (%s) is not the header of a %s's CSV lines; "
                 "give the %s another file",
                 cfg->output, sbio_util_escape(shown, sizeof(shown), line, 24), who, who);
    return -SBIO_EUSAGE;
}

/* Where each format of a run goes: the machine format (JSON, CSV) to --output, or to out (the
 * text then being silent); the text report to out, or to --output when it is text. Under MPI
 * only rank 0 writes: the others' stdout is /dev/null. */
struct run_outputs {
    FILE *text, *machine, *devnull;
    int err;         /* the first write error of --output's stream (sbio_util_stream) */
    bool csv_header; /* CSV appends one line per run under a single header */
    bool made;       /* --output did not exist: this command made it */
};

static int open_outputs(const struct sbio_config *cfg, unsigned rank, FILE *out,
                        struct run_outputs *o)
{
    *o = (struct run_outputs){.text = out, .csv_header = true};
    if (rank != 0)
        return 0;
    if (cfg->output) {
        bool csv = cfg->output_format == SBIO_OUT_CSV;
        char why[512];
        struct stat st;
        o->made = lstat(cfg->output, &st) && errno == ENOENT;
        /* A report or a document replaces the file at its first write: a run refused before
         * (a script's job the system cannot serve…) leaves it as it was. */
        int fd = sbio_util_open_output(
            AT_FDCWD, cfg->output, csv ? SBIO_OUTPUT_APPEND : SBIO_OUTPUT_LATER, why, sizeof(why));
        FILE *f = fd < 0 ? NULL
                  : csv  ? sbio_util_stream(fd, "a", &o->err)
                         : sbio_util_stream_later(fd, "w", &o->err);
        if (!f) {
            sbio_err("--output %s: %s", cfg->output, fd < 0 ? why : strerror(errno));
            if (fd >= 0)
                close(fd);
            return -SBIO_EUSAGE;
        }
        /* Lines go under a header already there; a pipe (no offset) gets none, as before. */
        o->csv_header = !csv || lseek(fd, 0, SEEK_END) == 0;
        if (cfg->output_format == SBIO_OUT_TEXT)
            o->text = f;
        else
            o->machine = f;
    } else if (cfg->output_format != SBIO_OUT_TEXT) {
        o->machine = out;
        o->devnull = fopen("/dev/null", "w");
        o->text = o->devnull ? o->devnull : stderr;
    }
    /* Below sysbench's verbosity 3 the report is not printed; one asked into a file is. */
    if (cfg->verbosity < 3 && o->text == out) {
        o->devnull = fopen("/dev/null", "w");
        if (!o->devnull) {
            sbio_err("/dev/null: %s", strerror(errno));
            return -SBIO_EFAILED;
        }
        o->text = o->devnull;
    }
    return 0;
}

/* Closes f (a sbio_util_stream keeping its first write error in *err), written as path: a
 * write that failed on the way or at the last flush is one line. 0 or -SBIO_EFAILED. */
static int close_output(FILE *f, const int *err, const char *path)
{
    int bad = fflush(f) || ferror(f);
    bad |= fclose(f) != 0;
    if (!bad && !*err)
        return 0;
    sbio_err("%s: write: %s", path, strerror(*err ? *err : EIO));
    return -SBIO_EFAILED;
}

/* The files open_outputs opened, closed: -SBIO_EFAILED when the text report could not be
 * written whole (the machine format's writes are checked by write_machine). */
static int close_outputs(const struct sbio_config *cfg, struct run_outputs *o, FILE *out)
{
    int rc = 0;
    /* A machine format's failed write was told by write_machine; a failed close is told here. */
    if (o->machine && o->machine != out && fclose(o->machine) && !o->err) {
        sbio_err("%s: write: %s", cfg->output, strerror(errno));
        rc = -SBIO_EFAILED;
    }
    if (o->text == o->devnull && o->devnull)
        fclose(o->devnull);
    else if (o->text != out && o->text != stderr)
        rc = close_output(o->text, &o->err, cfg->output);
    return rc;
}

/* The machine format of the run's document; -SBIO_EFAILED (message printed) when it could
 * not be written. */
static int write_machine(const struct sbio_config *cfg, const struct run_outputs *o, json_t *doc)
{
    int rc = cfg->output_format == SBIO_OUT_JSON ? sbio_report_json(o->machine, doc)
                                                 : sbio_report_csv(o->machine, doc, o->csv_header);
    if (rc || fflush(o->machine) || o->err) {
        int e = o->err && o->machine != stdout ? o->err : errno;
        sbio_err("--output %s: write: %s", cfg->output ? cfg->output : "(stdout)", strerror(e));
        return -SBIO_EFAILED;
    }
    return 0;
}

/* The ranks of one job work on one set (no --file-per-rank): rank 0 locks it for the job,
 * so that they never exclude each other. */
static bool ranks_share(const struct sbio_config *cfg, const struct sbio_topology *topo)
{
    return topo->nranks > 1 && !cfg->file_per_rank;
}

static int cmd_run(const struct sbio_config *cfg, const struct sbio_settings *set,
                   const struct sbio_topology *topo, const struct sbio_script *script,
                   const struct sbio_script *decl, FILE *out)
{
    struct run_outputs o = {.text = out};
    int rc = cfg->output && topo->rank == 0 ? check_output_dir(cfg->output) : 0;
    if (!rc && topo->rank == 0)
        rc = check_csv_header(cfg, script != NULL);
    if (!rc)
        rc = sbio_pipeline_check(set);
    int lock = -1;
    if (!rc && (!ranks_share(cfg, topo) || topo->rank == 0))
        rc = sbio_fileset_lock(set, script, &lock);
    if (!rc)
        rc = open_outputs(cfg, topo->rank, out, &o);
    /* Every rank got here, its checks passed or not. */
    rc = sbio_pipeline_agree(topo, rc, "failed its checks");
    if (!rc) {
        FILE *interim =
            o.text == o.devnull && cfg->report_interval_s && cfg->verbosity >= 3 ? stderr : o.text;
        json_t *doc = NULL, **docp = o.machine ? &doc : NULL;
        rc = sbio_pipeline_run(set, decl, topo, o.text, interim, docp);
        /* The document of a failed or interrupted run is written all the same. */
        if (doc && write_machine(cfg, &o, doc))
            rc = -SBIO_EFAILED;
        json_decref(doc);
    }
    int crc = close_outputs(cfg, &o, out);
    /* Refused: an --output this command made and never wrote goes, nothing else is left. */
    struct stat st;
    if (rc == -SBIO_EUSAGE && o.made && !lstat(cfg->output, &st) && S_ISREG(st.st_mode) &&
        st.st_size == 0)
        unlink(cfg->output);
    if (lock >= 0)
        close(lock);
    return rc ? rc : crc;
}

/* --file-per-rank: this rank's folder, DIR/rank.N, made by prepare when missing. */
static int rank_dir(struct sbio_config *cfg, unsigned rank, char *buf, size_t len)
{
    if (snprintf(buf, len, "%s/rank.%u", cfg->dir, rank) >= (int)len) {
        sbio_err("--dir %s: too long for --file-per-rank", cfg->dir);
        return -SBIO_EUSAGE;
    }
    cfg->dir = buf;
    return 0;
}

/* prepare and cleanup under MPI: with --file-per-rank every rank its own set, else rank 0
 * alone the shared one; the ranks meet before and after. */
static int cmd_set(const struct sbio_settings *cfg, const struct sbio_topology *topo,
                   const struct sbio_script *script, FILE *out)
{
    const struct sbio_tree_decl *tree = script && script->tree.set ? &script->tree : NULL;
    bool mine = cfg->file_per_rank || topo->rank == 0;
    int rc = 0;
    if (mine && cfg->file_per_rank && cfg->cmd == SBIO_CMD_PREPARE && mkdir(cfg->dir, 0755) &&
        errno != EEXIST) {
        sbio_err("--dir %s: mkdir: %s", cfg->dir, strerror(errno));
        rc = -SBIO_EUSAGE;
    }
    int lock = -1;
    if (!rc && mine)
        rc = sbio_fileset_lock(cfg, script, &lock);
    rc = sbio_pipeline_agree(topo, rc, "could not start");
    /* Under mpirun a rank whose prepare fails tells the others, which stop at their next
     * write instead of finishing their sets (the watch's first meeting arms it). */
    struct sbio_runner_sync sync = {0};
    struct sbio_mpi_watch *watch = rc ? NULL : sbio_mpi_watch_new(&sync);
    if (watch)
        sync.agree(sync.ctx, 0);
    if (!rc && mine) {
        struct sbio_fileset_poll poll = {.stopped = sync.stopped, .ctx = sync.ctx};
        if (cfg->cmd == SBIO_CMD_PREPARE)
            rc = tree ? sbio_tree_prepare(cfg, tree, out)
                      : sbio_fileset_prepare_script(cfg, script, watch ? &poll : NULL, out);
        else /* a tree's manifest sends cleanup to sbio_tree_cleanup */
            rc = sbio_fileset_cleanup(cfg, out);
        /* Stopped by another rank: that rank's status is the job's. */
        if (rc == -ECANCELED)
            rc = -EINTR;
        /* The rank's folder goes with its set (kept when something else is in it). */
        if (!rc && cfg->file_per_rank && cfg->cmd == SBIO_CMD_CLEANUP && rmdir(cfg->dir) &&
            errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
            sbio_note("--dir %s: rmdir: %s", cfg->dir, strerror(errno));
    }
    if (!rc && topo->nranks > 1 && topo->rank == 0)
        fprintf(out, "Rank 0 done; %s\n",
                cfg->file_per_rank ? "every rank works on its own set"
                                   : "the set is shared by every rank");
    if (watch) {
        sync.agree(sync.ctx, rc); /* tells the others, if this rank failed */
        sbio_mpi_watch_free(watch);
    }
    rc = sbio_pipeline_agree(topo, rc,
                             cfg->cmd == SBIO_CMD_PREPARE ? "failed to prepare its set"
                                                          : "failed to clean up its set");
    if (!rc && topo->nranks > 1 && topo->rank == 0)
        fprintf(out, "All %u ranks done\n", topo->nranks);
    if (lock >= 0)
        close(lock);
    return rc;
}

/* compare holds the set's lock over all its runs. */
static int cmd_compare(const struct sbio_config *cfg, const struct sbio_settings *set,
                       const struct sbio_topology *topo, const struct sbio_script *script,
                       FILE *out)
{
    int lock = -1;
    int rc = !ranks_share(cfg, topo) || topo->rank == 0 ? sbio_fileset_lock(set, script, &lock) : 0;
    rc = sbio_pipeline_agree(topo, rc, "found its set in use");
    if (!rc)
        rc = sbio_compare(cfg, topo, script, out);
    if (lock >= 0)
        close(lock);
    return rc;
}

static int cmd_restore(FILE *out)
{
    int n = sbio_tune_recover(true);
    if (n < 0) {
        sbio_err("restore: %s", strerror(-n));
        return n;
    }
    int g = sbio_cgroup_recover(true);
    if (g < 0) {
        sbio_err("restore: control groups: %s", strerror(-g));
        return g;
    }
    if (n == 0 && g == 0)
        fprintf(out, "Nothing to restore\n");
    return 0;
}

/* help [COMMAND]; with --script, the script's own options first, the ones its user came to
 * see (decl NULL without). */
static int cmd_help(const struct sbio_config *cfg, const struct sbio_script *decl, FILE *out)
{
    const char *topic = cfg->nargs ? cfg->args[0] : NULL;
    if (decl) {
        fprintf(out, "Options of the script %s:\n", decl->path);
        for (unsigned i = 0; i < decl->nopts; i++) {
            char left[96];
            snprintf(left, sizeof(left), "--%s=%s", decl->opts[i].name,
                     decl->opts[i].type == 'n'   ? "N"
                     : decl->opts[i].type == 'b' ? "on|off"
                                                 : "VALUE");
            fprintf(out, "  %-30s %s [%s]\n", left, decl->opts[i].help, decl->opts[i].def);
        }
        if (!decl->nopts)
            fprintf(out, "  (none)\n");
        fputc('\n', out);
    }
    return sbio_options_help(out, topic) ? -SBIO_EUSAGE : 0;
}

static int cmd_version(FILE *out)
{
    char lib[128];
    if (sbio_mpi_library(lib, sizeof(lib)))
        fprintf(out, "sbio %s (MPI: %s)\n", SBIO_VERSION, lib);
    else
        fprintf(out, "sbio %s\n", SBIO_VERSION);
    return 0;
}

/* Under MPI rank 0 speaks for all: the other ranks' stdout goes nowhere, and the option
 * checks every rank repeats alike are reported by rank 0 alone: the others' stderr is held
 * back (into *held, a memory file) until unmute_checks, which says it only when that rank
 * alone refused (a script that reads its environment, a file one host lacks). Their stderr
 * stays otherwise: a rank that fails on its own says why. Returns the saved stderr to hand
 * to unmute_checks, or -1. */
static int mute_checks(unsigned rank, int *held)
{
    *held = -1;
    if (!rank)
        return -1;
    if (!freopen("/dev/null", "w", stdout))
        sbio_note("rank %u: /dev/null: %s", rank, strerror(errno));
    fflush(stderr);
    *held = memfd_create("sbio-checks", MFD_CLOEXEC);
    int err_fd = *held >= 0 ? dup(STDERR_FILENO) : -1;
    if (err_fd >= 0)
        dup2(*held, STDERR_FILENO);
    return err_fd;
}

static void unmute_checks(int err_fd, int held, bool say)
{
    if (err_fd >= 0) {
        fflush(stderr);
        dup2(err_fd, STDERR_FILENO);
        close(err_fd);
    }
    char buf[4096];
    ssize_t n;
    if (held >= 0 && say && !lseek(held, 0, SEEK_SET))
        while ((n = read(held, buf, sizeof(buf))) > 0 && write(STDERR_FILENO, buf, (size_t)n) == n)
            ;
    if (held >= 0)
        close(held);
}

/* The value of --script on the command line, or NULL: needed before the options are parsed. */
static const char *script_arg(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--script=", 9))
            return argv[i] + 9;
        if (!strcmp(argv[i], "--script") && i + 1 < argc)
            return argv[i + 1];
    }
    return NULL;
}

/* Whether the script is to run trusted (--script-trusted on the command line), needed before
 * the options are parsed: never to show its help (help, --help, -h anywhere on the line),
 * which must run nothing of the script's outside the sandbox. */
static bool script_trusted_arg(int argc, char **argv)
{
    bool trusted = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "help") || !strcmp(a, "-h") || !strncmp(a, "--help", 6))
            return false;
        bool on = true;
        if (!strcmp(a, "--script-trusted") ||
            (!strncmp(a, "--script-trusted=", 17) && !sbio_parse_bool(a + 17, &on)))
            trusted = on;
    }
    return trusted;
}

/* A script's own options parse like built-in ones: the script is read once first, for their
 * names and types (into decl and cfg), and again with their values once the line is parsed
 * (load_script). path gets the script's file. 0 or -SBIO_EUSAGE (message printed). */
static int declare_script(const char *name, bool trusted, struct sbio_config *cfg,
                          struct sbio_script *decl, char *path, size_t len)
{
    char serr[PATH_MAX + 512];
    if (!sbio_script_find(name, path, len)) {
        sbio_err("--script %s: no such script; %s", name, path);
        return -SBIO_EUSAGE;
    }
    if (sbio_script_load(path, NULL, NULL, 0, trusted, decl, serr, sizeof(serr))) {
        sbio_err("%s", serr);
        return -SBIO_EUSAGE;
    }
    for (unsigned i = 0; i < decl->nopts && i < SBIO_MAX_LIST; i++) {
        cfg->xdecl[cfg->nxdecl] = decl->opts[i].name;
        cfg->xdecl_bool[cfg->nxdecl++] = decl->opts[i].type == 'b';
    }
    return 0;
}

static int load_script(struct sbio_config *cfg, const char *path, struct sbio_script *script)
{
    char serr[PATH_MAX + 512];
    /* Its help shows what the sandbox's declarations say, whatever the trust. */
    bool trusted = cfg->script_trusted && cfg->cmd != SBIO_CMD_HELP;
    if (sbio_script_load(path, cfg->xname, cfg->xvalue, cfg->nxopt, trusted, script, serr,
                         sizeof(serr))) {
        sbio_err("%s", serr);
        return -SBIO_EUSAGE;
    }
    if (sbio_script_select(script, cfg->phase, cfg->nphase, serr, sizeof(serr))) {
        sbio_err("%s", serr);
        sbio_script_free(script);
        return -SBIO_EUSAGE;
    }
    cfg->script = script->path;
    if (script->nfiles) {
        cfg->nfile_sizes = script->nfiles;
        cfg->file_sizes = script->file_size;
    }
    return 0;
}

/* What only a whole configuration decides: --file-per-rank's folder (into dir), the checks
 * across options. 0 or non-zero (message printed). */
static int configure(struct sbio_config *cfg, struct sbio_topology *topo, char *dir, size_t len)
{
    int rc = 0;
    unsigned set_cmds = SBIO_C(SBIO_CMD_PREPARE) | SBIO_C(SBIO_CMD_RUN) | SBIO_C(SBIO_CMD_CLEANUP) |
                        SBIO_C(SBIO_CMD_COMPARE);
    if (cfg->file_per_rank && (SBIO_C(cfg->cmd) & set_cmds))
        rc = rank_dir(cfg, topo->rank, dir, len);
    if (!rc)
        rc = sbio_options_validate(cfg, topo->nranks);
    return rc;
}

/* A command as main.c runs it: the options, this process's place among the ranks, the script
 * and its declarations (zeroed without --script), and --file-per-rank's folder. */
struct command {
    struct sbio_config cfg;
    struct sbio_settings set; /* the run's, from cfg */
    struct sbio_topology topo;
    /* The script with the options' values (without --script: the command line's declaration,
     * made by run_command), and its declarations alone, for help. */
    struct sbio_script script, decl;
    char dir[PATH_MAX];
};

/* A fingerprint of the words of argv after the program's name (FNV-1a, each word ended by a
 * zero byte). */
static uint64_t argv_hash(int argc, char **argv)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 1; i < argc; i++)
        for (const char *p = argv[i];; p++) {
            h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
            if (!*p)
                break;
        }
    return h;
}

/* The command line into c: the script's declarations, the options, the script with their
 * values (when --script is given), the whole configuration. 0 or -SBIO_EUSAGE (message
 * printed, by rank 0 alone under MPI). */
static int parse_command_line(int argc, char **argv, struct command *c)
{
    sbio_util_set_verbosity(sbio_options_verbosity(argc, argv));
    c->topo = SBIO_TOPOLOGY_ALONE;
    c->topo.rank = sbio_mpi_rank();
    int held, err_fd = mute_checks(c->topo.rank, &held);
    /* Collective: every rank gets here, whatever its command line. */
    char host[SBIO_MPI_HOST_LEN];
    c->topo.nranks = sbio_mpi_size();
    int hrc = sbio_mpi_hosts(host, &c->topo.host_leader, &c->topo.nhosts);
    /* Every rank runs rank 0's command: an MPMD launch (mpirun … : …) that gives ranks other
     * options would be merged as if they had been the same. */
    uint64_t mine = argv_hash(argc, argv), first = mine;
    sbio_mpi_bcast_u64(&first);
    if (!hrc && mine != first) {
        sbio_err("rank %u's command line differs from rank 0's; accepted: the same command line "
                 "on every rank (one mpirun program, no per-rank options)",
                 c->topo.rank);
        hrc = -SBIO_EUSAGE;
    }
    const char *spath = script_arg(argc, argv);
    char path[PATH_MAX];
    sbio_options_defaults(&c->cfg);
    int rc = hrc     ? hrc
             : spath ? declare_script(spath, script_trusted_arg(argc, argv), &c->cfg, &c->decl,
                                      path, sizeof(path))
                     : 0;
    if (!rc)
        rc = sbio_options_parse(&c->cfg, argc, argv);
    if (!rc)
        sbio_util_set_verbosity((unsigned)c->cfg.verbosity);
    if (!rc && spath)
        rc = load_script(&c->cfg, path, &c->script);
    if (!rc && spath && (c->cfg.cmd == SBIO_CMD_RUN || c->cfg.cmd == SBIO_CMD_COMPARE)) {
        sbio_options_settings(&c->cfg, &c->set);
        rc = sbio_decl_check(&c->set, &c->script, c->topo.nranks);
    }
    if (!rc)
        rc = configure(&c->cfg, &c->topo, c->dir, sizeof(c->dir));
    /* Every rank's verdict: a rank that alone refused says why, then rank 0 names it. */
    unsigned who = 0, me = c->topo.rank;
    int g = sbio_mpi_agree(rc ? -SBIO_EUSAGE : 0, &who);
    unmute_checks(err_fd, held, rc && who == me);
    if (g && sbio_mpi_agree(0, NULL) == 0 && who != me && me == 0)
        sbio_err("rank %u of %u refused the command line (its message above); every rank "
                 "stopped",
                 who, sbio_mpi_size());
    return g ? -SBIO_EUSAGE : 0;
}

/* diff and plot, given their own options. */
static int diff_cmd(const struct sbio_config *cfg, FILE *out)
{
    struct sbio_diff_opts o = {.nargs = cfg->nargs,
                               .args = cfg->args,
                               .diff_split = cfg->diff_split,
                               .metrics = cfg->metrics,
                               .output = cfg->output,
                               .threshold = cfg->threshold,
                               .threshold_given = sbio_options_given(cfg, "threshold"),
                               .argc = cfg->argc,
                               .argv = cfg->argv};
    return sbio_diff(&o, out);
}

static int plot_cmd(const struct sbio_config *cfg)
{
    struct sbio_plot_opts o = {.nargs = cfg->nargs,
                               .args = cfg->args,
                               .output = cfg->output,
                               .plot_size = cfg->plot_size,
                               .keep_data = cfg->keep_data,
                               .format = sbio_options_plot_format(cfg)};
    return sbio_plot(&o);
}

/* prepare and cleanup, their lines on out unless --verbosity is below 3. */
static int quiet_set(struct command *c, const struct sbio_script *script, FILE *out)
{
    if (c->cfg.verbosity >= 3)
        return cmd_set(&c->set, &c->topo, script, out);
    FILE *null = fopen("/dev/null", "w");
    if (!null) {
        sbio_err("/dev/null: %s", strerror(errno));
        return -SBIO_EFAILED;
    }
    int rc = cmd_set(&c->set, &c->topo, script, null);
    fclose(null);
    return rc;
}

/* The command of c. Returns the command's code (util.h). */
static int run_command(struct command *c, FILE *out)
{
    const struct sbio_config *cfg = &c->cfg;
    const struct sbio_topology *topo = &c->topo;
    /* A script loaded has its path; without --script both stay zeroed. */
    const struct sbio_script *script = c->script.path[0] ? &c->script : NULL;
    sbio_options_settings(cfg, &c->set);
    if (!script)
        sbio_options_declare(&c->set, cfg, &c->script);
    /* Whatever a killed sbio left changed is put back by the next command, whichever (under
     * MPI by each host's leader, before any rank goes on). */
    if (cfg->cmd != SBIO_CMD_RESTORE && (geteuid() == 0 || getenv("SBIO_STATE_DIR")) &&
        topo->host_leader) {
        sbio_tune_recover(false);
        sbio_cgroup_recover(false);
    }
    sbio_mpi_agree(0, NULL);
    if (cfg->cmd == SBIO_CMD_HELP)
        return cmd_help(cfg, c->decl.path[0] ? &c->decl : NULL, out);
    if (cfg->cmd == SBIO_CMD_VERSION)
        return cmd_version(out);
    install_signals();
    switch (cfg->cmd) {
    case SBIO_CMD_RESTORE: return topo->host_leader ? cmd_restore(out) : 0;
    case SBIO_CMD_PLOT: return topo->rank ? 0 : plot_cmd(cfg);
    case SBIO_CMD_PREPARE:
    case SBIO_CMD_CLEANUP: return quiet_set(c, script, out);
    case SBIO_CMD_RUN: return cmd_run(cfg, &c->set, topo, script, &c->script, out);
    case SBIO_CMD_COMPARE: return cmd_compare(cfg, &c->set, topo, script, out);
    case SBIO_CMD_DIFF: return topo->rank ? 0 : diff_cmd(cfg, out);
    case SBIO_CMD_SURVEY: return topo->rank ? 0 : sbio_survey(cfg, out);
    default: sbio_err("%s: not implemented yet", sbio_cmd_name(cfg->cmd)); return -SBIO_EUSAGE;
    }
}

/* The script and its declarations live as long as the command; freed here, whichever way
 * it ended. */
static int sbio_main(int argc, char **argv)
{
    struct command c = {0};
    int rc = parse_command_line(argc, argv, &c);
    /* What goes to standard output (a report, a table) must get there: a full disk or a
     * device error behind a redirection is a failure, not a silent success. Standard output
     * is written through a stream that keeps the cause of its first failed write, line
     * buffered on a terminal as before, and put back once the command is done. Its
     * descriptor stays 1, which compare points elsewhere while a script's run prints. */
    FILE *std = stdout, *mine = NULL;
    int out_err = 0;
    if (!rc && !fflush(stdout) && (mine = sbio_util_stream(STDOUT_FILENO, "w", &out_err))) {
        setvbuf(mine, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
        stdout = mine;
    }
    if (!rc)
        rc = run_command(&c, stdout);
    if (mine) {
        int bad = fflush(mine) || ferror(mine);
        bad |= fclose(mine) != 0;
        stdout = std;
        if (bad || out_err) {
            sbio_err("standard output: write: %s", strerror(out_err ? out_err : EIO));
            rc = rc ? rc : -SBIO_EFAILED;
        }
    }
    sbio_script_free(&c.script);
    sbio_script_free(&c.decl);
    return rc;
}

int main(int argc, char **argv)
{
    /* Under mpirun every rank runs the whole command; see mpi.h. */
    int rc = sbio_mpi_init(&argc, &argv);
    if (rc)
        return exit_status(rc);
    rc = sbio_main(argc, argv);
    sbio_mpi_finalize();
    return exit_status(rc);
}
