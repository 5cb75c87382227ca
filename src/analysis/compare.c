#include "compare.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "report.h"
#include "script.h"
#include "pipeline.h"
#include "sysblock.h"
#include "table.h"
#include "topology.h"
#include "util.h"
#include "version.h"

#define MAX_AXES   8
#define MAX_VALUES 64

void sbio_compare_order(size_t nsettings, unsigned repeat, bool random, uint64_t seed, size_t *out)
{
    uint64_t st = sbio_mix64(seed);
    for (unsigned r = 0; r < repeat; r++) {
        size_t *o = out + (size_t)r * nsettings;
        for (size_t i = 0; i < nsettings; i++)
            o[i] = i;
        if (!random)
            continue;
        for (size_t i = nsettings; i > 1; i--) { /* Fisher–Yates */
            size_t j = (size_t)sbio_rand_below(&st, i);
            size_t tmp = o[i - 1];
            o[i - 1] = o[j];
            o[j] = tmp;
        }
    }
}

void sbio_compare_unrank(size_t setting, const size_t *axis_len, size_t naxes, size_t *idx)
{
    for (size_t a = naxes; a-- > 0;) {
        idx[a] = setting % axis_len[a];
        setting /= axis_len[a];
    }
}

struct axis {
    char key[64];
    enum sbio_compare_axis kind;
    size_t n;
    char *vals[MAX_VALUES];
};

/* Options that define the set, the output or compare itself cannot vary per setting. */
static const char *const fixed_opts[] = {
    "file-num", "file-total-size", "dir",   "filename",     "output", "output-format", "schedulers",
    "vary",     "repeat",          "order", "log-interval", "script", "file-per-rank", "metrics"};

/* Whether script (may be NULL) declares an option named key. */
static bool script_declares(const struct sbio_script *script, const char *key)
{
    for (unsigned i = 0; script && i < script->nopts; i++)
        if (!strcmp(script->opts[i].name, key))
            return true;
    return false;
}

/* The script's file name, for messages. */
static const char *script_name(const struct sbio_script *script)
{
    const char *base = strrchr(script->path, '/');
    return base ? base + 1 : script->path;
}

/* What --vary can set, for the message of a key it cannot: the script's options by name. */
static void vary_accepted(char *buf, size_t len, const struct sbio_script *script)
{
    snprintf(buf, len,
             "scheduler, a queue knob such as read_ahead_kb or nr_requests, iosched/TUNABLE, "
             "an option of sbio run such as file-block-size, file-test-mode, ioengine, threads");
    if (!script || !script->nopts) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, ", or, with --script, an option the script declares%s",
                 script ? " (this one declares none)" : "");
        return;
    }
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, ", or an option of %.200s: ", script_name(script));
    for (unsigned i = 0; i < script->nopts; i++) {
        l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", i ? ", " : "", script->opts[i].name);
    }
}

int sbio_compare_axis_kind(const char *key, const struct sbio_script *script,
                           enum sbio_compare_axis *kind)
{
    char acc[SBIO_SCRIPT_MAX_OPTS * 66 + 256]; /* every option's name */
    *kind = script_declares(script, key)      ? SBIO_AXIS_SCRIPT
            : !strcmp(key, "scheduler")       ? SBIO_AXIS_SCHEDULER
            : sbio_sysblock_knob_allowed(key) ? SBIO_AXIS_QUEUE
                                              : SBIO_AXIS_OPTION;
    if (*kind != SBIO_AXIS_OPTION)
        return 0;
    bool fixed = false;
    for (size_t i = 0; i < sizeof(fixed_opts) / sizeof(fixed_opts[0]); i++)
        fixed |= !strcmp(key, fixed_opts[i]);
    if (!fixed && sbio_options_known(key, SBIO_C(SBIO_CMD_RUN)))
        return 0;
    vary_accepted(acc, sizeof(acc), script);
    if (fixed)
        sbio_err("--vary %s: cannot vary between runs of one compare (it defines the file set, "
                 "the output or the compare); accepted: %s",
                 key, acc);
    else
        sbio_err("--vary %s: nothing compare can vary has that name; accepted: %s", key, acc);
    return -EINVAL;
}

/* One value v of --vary KEY=LIST into ax. 0, -EINVAL (message printed) or -ENOMEM. */
static int axis_value(struct axis *ax, const char *v)
{
    if (ax->n >= MAX_VALUES) {
        sbio_err("--vary %s: at most %d values", ax->key, MAX_VALUES);
        return -EINVAL;
    }
    ax->vals[ax->n] = strdup(v);
    return ax->vals[ax->n++] ? 0 : -ENOMEM;
}

/* The values of LIST ("V1,V2,…") into ax. 0, -EINVAL (message printed) or -ENOMEM. */
static int axis_values(struct axis *ax, const char *list)
{
    if (sbio_list_has_empty(list)) {
        sbio_err("--vary %s=%s: an empty value; accepted: KEY=V1,V2,…", ax->key, list);
        return -EINVAL;
    }
    char *copy = strdup(list);
    if (!copy)
        return -ENOMEM;
    char *save = NULL;
    int rc = 0;
    for (char *v = strtok_r(copy, ",", &save); v && !rc; v = strtok_r(NULL, ",", &save))
        rc = axis_value(ax, v);
    free(copy);
    if (!rc && !ax->n) {
        sbio_err("--vary %s=: no values; accepted: KEY=V1,V2,…", ax->key);
        rc = -EINVAL;
    }
    return rc;
}

static int axis_add(struct axis *axes, size_t *naxes, const char *key, const char *list,
                    const struct sbio_script *script)
{
    if (*naxes >= MAX_AXES) {
        sbio_err("--vary: at most %d axes", MAX_AXES);
        return -EINVAL;
    }
    for (size_t i = 0; i < *naxes; i++)
        if (!strcmp(axes[i].key, key)) {
            sbio_err("--vary %s: given twice (put all its values in one list)", key);
            return -EINVAL;
        }
    struct axis *ax = &axes[(*naxes)++];
    memset(ax, 0, sizeof(*ax));
    snprintf(ax->key, sizeof(ax->key), "%s", key);
    int rc = sbio_compare_axis_kind(key, script, &ax->kind);
    return rc ? rc : axis_values(ax, list);
}

static void axes_free(struct axis *axes, size_t naxes)
{
    for (size_t a = 0; a < naxes; a++)
        for (size_t i = 0; i < axes[a].n; i++)
            free(axes[a].vals[i]);
}

/* A script option's value in cfg, as --NAME=VALUE on the command line would give it (in place
 * of the command line's own). name and value must outlive cfg. 0 or -EINVAL (message
 * printed). */
static int setting_script_opt(struct sbio_config *cfg, const char *name, const char *value)
{
    int i = 0;
    while (i < cfg->nxopt && strcmp(cfg->xname[i], name))
        i++;
    if (i == SBIO_MAX_LIST) {
        sbio_err("--vary %s: too many script options set (at most %d)", name, SBIO_MAX_LIST);
        return -EINVAL;
    }
    cfg->xname[i] = name;
    cfg->xvalue[i] = value;
    if (i == cfg->nxopt)
        cfg->nxopt++;
    return 0;
}

/* The configuration of one setting: the base with the setting's values applied. Queue
 * strings are formatted into qbuf, which must outlive the configuration. */
static int setting_cfg(const struct sbio_config *base, unsigned nranks, const struct axis *axes,
                       size_t naxes, const size_t *idx, struct sbio_config *out, char qbuf[][160],
                       char *name, size_t nlen)
{
    *out = *base;
    out->cmd = SBIO_CMD_RUN;
    /* compare's own options (--metrics, shared with diff; --schedulers, with survey) */
    sbio_options_forget(out,
                        SBIO_C(SBIO_CMD_COMPARE) | SBIO_C(SBIO_CMD_DIFF) | SBIO_C(SBIO_CMD_SURVEY));
    out->output = NULL;
    out->output_format = SBIO_OUT_TEXT;
    out->report_interval_s = 0;
    name[0] = 0;
    int nq = 0;
    for (size_t a = 0; a < naxes; a++) {
        const char *v = axes[a].vals[idx[a]];
        size_t l = strlen(name);
        /* A value given again (an A/A test: --vary rate=3000,3000) is the setting's #2, so
         * that every setting has a name of its own in the table, the JSON and diff. */
        unsigned copy = 1;
        for (size_t j = 0; j < idx[a]; j++)
            copy += !strcmp(axes[a].vals[j], v);
        snprintf(name + l, nlen - l, copy > 1 ? "%s%s=%s#%u" : "%s%s=%s", l ? " " : "", axes[a].key,
                 v, copy);
        switch (axes[a].kind) {
        case SBIO_AXIS_SCRIPT:
            if (setting_script_opt(out, axes[a].key, v))
                return -EINVAL;
            break;
        case SBIO_AXIS_SCHEDULER: out->scheduler = v; break;
        case SBIO_AXIS_QUEUE:
            if (out->nqueue >= SBIO_MAX_LIST) {
                sbio_err("too many queue settings");
                return -EINVAL;
            }
            snprintf(qbuf[nq], 160, "%.*s=%s", (int)sizeof(axes[a].key), axes[a].key, v);
            out->queue[out->nqueue++] = qbuf[nq++];
            break;
        case SBIO_AXIS_OPTION:
            if (sbio_options_set(out, axes[a].key, v, SBIO_C(SBIO_CMD_RUN)))
                return -EINVAL;
            break;
        }
    }
    /* Resolve what depends on the values (sysbench's --file-io-mode, the test mode). */
    return sbio_options_validate(out, nranks);
}

static json_t *num_json(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* Why a setting's runs ended. */
enum compare_stop {
    STOP_RUNNING, /* not yet */
    STOP_TARGET,  /* --repeat=auto: every CI within --target-ci */
    STOP_MAX,     /* --repeat=auto: --max-repeat runs, a CI still wider */
    STOP_TIME,    /* --max-compare-time: no time for another run */
    STOP_REPEAT,  /* --repeat=N: N runs */
    STOP_INTR,    /* interrupted */
};

/* One compare, from its axes to its table. A script of several phases gets one table per
 * phase, each with a block per job. */
struct compare {
    const struct sbio_config *cfg;
    const struct sbio_topology *topo;
    const struct sbio_script *script; /* NULL: the workload of sbio run's options */
    /* With script options among the axes: the script as the setting last made loaded it */
    struct sbio_script *cur;
    struct sbio_script *plain; /* without a script: the command line's declaration */
    FILE *out;
    struct axis axes[MAX_AXES];
    size_t naxes, alen[MAX_AXES];
    size_t ns, np;           /* settings; phases (1 without a script) */
    unsigned repeat;         /* runs per setting: --repeat=N, or --max-repeat with --repeat=auto */
    bool automatic;          /* --repeat=auto */
    struct sbio_config base; /* cfg with compare's own defaults */
    char (*names)[512];      /* ns: "key=value key=value" */
    const char **namep;      /* ns: names[s], for the table */
    size_t *order, *perm;    /* ns: the settings of the round being run; their run order */
    struct sbio_table tab;   /* every run's figures per phase, job and metric */
    enum compare_stop *stop; /* ns */
    double *widest;          /* ns: the widest CI when the setting stopped, % of its mean */
    char (*widest_at)[256];  /* ns: where it was */
    json_t **runs;           /* ns: each setting's runs[] for the JSON (with --output) */
    /* With --output, each run's result as the JSON will print it, kept in a temporary file
     * rather than in memory, so that a compare's memory does not grow with its runs; the
     * runs[] entries hold a placeholder string ("\001sbio-run-NONCE-K") that compare_write
     * replaces by stored result K. */
    FILE *store;
    struct compare_stored {
        long off;
        size_t len;
    } * stored;
    size_t nstored, capstored;
    uint64_t nonce;
    char (*qbuf)[160];                     /* queue strings of the setting being run */
    FILE *devnull;                         /* the runs' own text reports go there */
    uint64_t seed, t0;                     /* the order's seed; when the first run started */
    size_t made, done;                     /* runs made; runs measured */
    size_t met[SBIO_TABLE_MAX_COLS], nmet; /* --metrics, or the default columns */
    bool interrupted, failed;
    int outfd; /* --output, opened before the first run (rank 0), or -1 */
};

/* The list of schedulers as typed (--schedulers=LIST or --vary scheduler=LIST, unless the
 * script has an option of that name) and the option's name, or NULL. */
static const char *compare_sched_list(const struct compare *c, const char **opt)
{
    const struct sbio_config *cfg = c->cfg;
    *opt = "--schedulers";
    if (cfg->schedulers)
        return cfg->schedulers;
    *opt = "--vary scheduler";
    for (int i = 0; i < cfg->nvary && !script_declares(c->script, "scheduler"); i++)
        if (!strncmp(cfg->vary[i], "scheduler=", 10))
            return cfg->vary[i] + 10;
    return NULL;
}

/* A scheduler axis: its names checked as typed (two names of one scheduler), then each value
 * by the kernel's name, so settings and results name what ran. 0 or -SBIO_EUSAGE. */
static int compare_sched_axis(struct compare *c, const char *key, const char *list)
{
    const char *opt;
    if (!strcmp(key, "scheduler") && list == compare_sched_list(c, &opt) &&
        sbio_sched_check_list(NULL, opt, list))
        return -SBIO_EUSAGE;
    if (axis_add(c->axes, &c->naxes, key, list, c->script))
        return -SBIO_EUSAGE;
    struct axis *ax = &c->axes[c->naxes - 1];
    for (size_t i = 0; ax->kind == SBIO_AXIS_SCHEDULER && i < ax->n; i++) {
        char *canon = strdup(sbio_sched_canonical(ax->vals[i]));
        if (!canon)
            return -ENOMEM;
        free(ax->vals[i]);
        ax->vals[i] = canon;
    }
    return 0;
}

/* --target-ci and --max-repeat belong to --repeat=auto; a target is a percentage. 0 or
 * -SBIO_EUSAGE (message printed). */
static int compare_repeat_options(const struct compare *c)
{
    const struct sbio_config *cfg = c->cfg;
    static const char *const auto_only[] = {"target-ci", "max-repeat"};
    for (size_t i = 0; !c->automatic && i < sizeof(auto_only) / sizeof(auto_only[0]); i++)
        if (sbio_options_given(cfg, auto_only[i])) {
            sbio_err("--%s applies to --repeat=auto, not --repeat=%" PRIu64, auto_only[i],
                     cfg->repeat);
            return -SBIO_EUSAGE;
        }
    if (c->automatic && !(cfg->target_ci > 0 && cfg->target_ci < 100)) {
        sbio_err("--target-ci=%g: accepted: a percentage above 0 and below 100, e.g. 5%%",
                 cfg->target_ci);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* --metrics, or the default columns. 0 or -SBIO_EUSAGE (message printed). */
static int compare_metrics(struct compare *c)
{
    if (c->cfg->metrics)
        return sbio_table_metrics_parse(c->cfg->metrics, c->met, &c->nmet) ? -SBIO_EUSAGE : 0;
    sbio_table_metrics_default(c->met, &c->nmet);
    return 0;
}

/* The axes from --schedulers and --vary, and the number of settings they make. 0 or
 * -SBIO_EUSAGE (message printed). */
static int compare_axes(struct compare *c)
{
    const struct sbio_config *cfg = c->cfg;
    if (cfg->schedulers && compare_sched_axis(c, "scheduler", cfg->schedulers))
        return -SBIO_EUSAGE;
    for (int i = 0; i < cfg->nvary; i++) {
        const char *eq = strchr(cfg->vary[i], '=');
        char key[64];
        snprintf(key, sizeof(key), "%.*s", (int)(eq - cfg->vary[i]), cfg->vary[i]);
        if (compare_sched_axis(c, key, eq + 1))
            return -SBIO_EUSAGE;
    }
    if (!c->naxes) {
        sbio_err("compare needs --schedulers=LIST or --vary KEY=LIST (e.g. --schedulers=none,bfq)");
        return -SBIO_EUSAGE;
    }
    c->ns = 1;
    for (size_t a = 0; a < c->naxes; a++) {
        c->alen[a] = c->axes[a].n;
        c->ns *= c->axes[a].n;
    }
    if (c->ns > 4096) {
        sbio_err("--vary: %zu settings is too many (at most 4096)", c->ns);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* The table's phases: the script's, each with its jobs and their total, or one of one. */
static void compare_phases(const struct compare *c, struct sbio_table_phase *ph)
{
    memset(ph, 0, c->np * sizeof(*ph));
    ph[0].nb = 1;
    for (size_t i = 0; c->script && i < c->np; i++) {
        const struct sbio_script_phase *p = &c->script->phases[i];
        snprintf(ph[i].name, sizeof(ph[i].name), "%s", p->name);
        ph[i].nb = 0;
        for (unsigned j = 0; j < p->njobs; j++)
            snprintf(ph[i].block[ph[i].nb++], sizeof(ph[i].block[0]), "%s", p->jobs[j].name);
        if (p->njobs > 1)
            snprintf(ph[i].block[ph[i].nb++], sizeof(ph[i].block[0]), "total");
    }
}

static int compare_alloc(struct compare *c)
{
    size_t ns = c->ns;
    c->names = calloc(ns, sizeof(*c->names));
    c->namep = calloc(ns, sizeof(*c->namep));
    c->order = calloc(ns, sizeof(size_t));
    c->perm = calloc(ns, sizeof(size_t));
    c->stop = calloc(ns, sizeof(*c->stop));
    c->widest = calloc(ns, sizeof(double));
    c->widest_at = calloc(ns, sizeof(*c->widest_at));
    c->runs = calloc(ns, sizeof(json_t *));
    c->qbuf = calloc(SBIO_MAX_LIST, 160);
    c->devnull = fopen("/dev/null", "w");
    struct sbio_table_phase *ph = calloc(c->np, sizeof(*ph));
    bool script_axes = false;
    for (size_t a = 0; a < c->naxes; a++)
        script_axes |= c->axes[a].kind == SBIO_AXIS_SCRIPT;
    if (script_axes)
        c->cur = calloc(1, sizeof(*c->cur));
    if (!c->script)
        c->plain = malloc(sizeof(*c->plain));
    int rc = -ENOMEM;
    if (ph) {
        compare_phases(c, ph);
        rc = sbio_table_init(&c->tab, ns, c->repeat, ph, c->np, c->met, c->nmet);
        c->tab.planned = c->automatic ? 0 : c->repeat;
        free(ph);
    }
    if (rc || !c->names || !c->namep || !c->order || !c->perm || !c->stop || !c->widest ||
        !c->widest_at || !c->runs || !c->qbuf || !c->devnull || (script_axes && !c->cur) ||
        (!c->script && !c->plain)) {
        sbio_err("compare: out of memory");
        return -ENOMEM;
    }
    for (size_t s = 0; s < ns; s++)
        c->namep[s] = c->names[s];
    return 0;
}

static void compare_free(struct compare *c)
{
    for (size_t s = 0; c->runs && s < c->ns; s++)
        json_decref(c->runs[s]);
    free(c->names);
    free(c->namep);
    free(c->order);
    free(c->perm);
    free(c->stop);
    free(c->widest);
    free(c->widest_at);
    free(c->runs);
    free(c->stored);
    if (c->store)
        fclose(c->store);
    free(c->qbuf);
    sbio_table_free(&c->tab);
    if (c->cur)
        sbio_script_free(c->cur);
    free(c->cur);
    free(c->plain);
    if (c->devnull)
        fclose(c->devnull);
    axes_free(c->axes, c->naxes);
}

/* A script's file set in words: "2 files, 8 MiB" or "no file set". */
static const char *script_set(char *buf, size_t len, const struct sbio_script *script)
{
    uint64_t bytes = 0;
    char b[32];
    for (unsigned i = 0; i < script->nfiles; i++)
        bytes += script->file_size[i];
    if (!script->nfiles)
        snprintf(buf, len, "no file set");
    else
        snprintf(buf, len, "%u file%s, %s", script->nfiles, script->nfiles == 1 ? "" : "s",
                 sbio_fmt_bytes(b, sizeof(b), bytes));
    return buf;
}

/* Phase ph of a script as a message names it: "name" in quotes, or none. */
static const char *phase_name(char *buf, size_t len, const struct sbio_script *script, unsigned ph)
{
    if (ph < script->nphases)
        snprintf(buf, len, "\"%s\"", script->phases[ph].name);
    else
        snprintf(buf, len, "none");
    return buf;
}

/* Whether the script as setting `name` loaded it (c->cur) declares the phases and the file set
 * it declares with the command line's options: compare tables each phase across the settings,
 * and runs them all on one set. 0 or -EINVAL (message printed). */
static int compare_same_shape(const struct compare *c, const char *name)
{
    const struct sbio_script *a = c->script, *b = c->cur;
    unsigned ph = 0;
    while (ph < a->nphases && ph < b->nphases && !strcmp(a->phases[ph].name, b->phases[ph].name))
        ph++;
    if (ph < a->nphases || ph < b->nphases) {
        char x[80], y[80];
        sbio_err("--vary, setting %s: phase %u of %s is %s (of %u), with the command line's "
                 "options %s (of %u); compare tables each phase across the settings: vary "
                 "options that keep the phases",
                 name, ph + 1, script_name(a), phase_name(x, sizeof(x), b, ph), b->nphases,
                 phase_name(y, sizeof(y), a, ph), a->nphases);
        return -EINVAL;
    }
    bool same = a->nfiles == b->nfiles;
    for (unsigned i = 0; same && i < a->nfiles; i++)
        same = a->file_size[i] == b->file_size[i];
    if (same)
        return 0;
    char x[64], y[64];
    sbio_err("--vary, setting %s: %s declares %s, with the command line's options %s; every "
             "setting runs on one set: vary options that keep it",
             name, script_name(a), script_set(x, sizeof(x), b), script_set(y, sizeof(y), a));
    return -EINVAL;
}

/* Setting s's configuration into *conf (its queue strings in c->qbuf, its name in
 * c->names[s]) and the run's settings from it into *set; with script options among the
 * axes, the script loaded with the setting's values into c->cur, where the script's own
 * option() checks each value against its type. 0 or -EINVAL (message printed). */
static int compare_setting(struct compare *c, size_t s, struct sbio_config *conf,
                           struct sbio_settings *set)
{
    size_t idx[MAX_AXES];
    char err[512];
    sbio_compare_unrank(s, c->alen, c->naxes, idx);
    int rc = setting_cfg(&c->base, c->topo->nranks, c->axes, c->naxes, idx, conf, c->qbuf,
                         c->names[s], sizeof(c->names[s]));
    sbio_options_settings(conf, set);
    if (rc || !c->cur)
        return rc;
    sbio_script_free(c->cur);
    if (sbio_script_load(c->script->path, conf->xname, conf->xvalue, conf->nxopt,
                         c->script->trusted, c->cur, err, sizeof(err))) {
        sbio_err("--vary, setting %s: %s", c->names[s], err);
        return -EINVAL;
    }
    if (sbio_script_select(c->cur, conf->phase, conf->nphase, err, sizeof(err))) {
        sbio_err("--vary, setting %s: %s", c->names[s], err);
        return -EINVAL;
    }
    return compare_same_shape(c, c->names[s]);
}

/* Every setting is checked before anything changes: a typo in the last one must not be found
 * after an hour of runs. 0 or -SBIO_EUSAGE (message printed). */
static int compare_check(struct compare *c)
{
    /* Every scheduler the device lacks, named in one line as the option was typed. A folder
     * that does not resolve is left to the settings' own check, which says why. */
    const char *opt, *list = compare_sched_list(c, &opt);
    struct sbio_target t;
    const struct sbio_config *cfg = c->cfg;
    int rc = list && !sbio_sysblock_resolve(cfg->filename ? "/" : cfg->dir,
                                            cfg->filename ? cfg->filename : cfg->queue_device, &t)
                 ? sbio_sched_check_list(&t, opt, list)
                 : 0;
    if (sbio_mpi_agree(rc, NULL))
        return -SBIO_EUSAGE;
    if (list)
        sbio_sched_note(opt, list);
    /* First, before any setting is tried: every setting's values (pass 0; a script's options
     * too, and its jobs' priorities and groups), then what its run would refuse (pass 1): its
     * file set (a script's as it declares it), and the command line's job against it (a block
     * larger than the files, O_DIRECT the file system refuses, …). Else every run would fail
     * after its setting was applied, one after the other. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t s = 0; s < c->ns; s++) {
            struct sbio_config conf;
            struct sbio_settings set;
            int rc = compare_setting(c, s, &conf, &set) ? -SBIO_EUSAGE : 0;
            if (!rc && pass == 0) {
                rc = sbio_pipeline_check(&set);
                if (!rc && c->script) /* as this setting loaded it */
                    rc = sbio_pipeline_check_script(&set, c->cur ? c->cur : c->script);
            } else if (!rc) {
                if (!c->script)
                    sbio_options_declare(&set, &conf, c->plain);
                rc = sbio_pipeline_check_run(
                    &set, c->script ? (c->cur ? c->cur : c->script) : c->plain, c->topo);
            }
            if (sbio_mpi_agree(rc, NULL))
                return -SBIO_EUSAGE;
        }
    for (size_t s = 0; s < c->ns; s++) {
        struct sbio_config conf;
        struct sbio_settings set;
        /* The message of the check names the value; the kernel's refusals are found by
         * trying each setting once (applied, read back, restored). Under MPI every rank
         * checks (each host's leader tries) and all stop when one refuses. */
        int rc = compare_setting(c, s, &conf, &set) ? -SBIO_EUSAGE : 0;
        if (!rc)
            rc = sbio_pipeline_check(&set);
        if (!rc)
            rc = sbio_pipeline_try_settings(&set, c->topo);
        if (sbio_mpi_agree(rc, NULL))
            return -SBIO_EUSAGE;
        c->runs[s] = json_array();
    }
    return 0;
}

/* Whether the option `name` (drop-caches or invalidate) was given or is an axis. */
static bool compare_cache_given(const struct compare *c, const char *name)
{
    if (sbio_options_given(c->cfg, name))
        return true;
    for (size_t a = 0; a < c->naxes; a++)
        if (c->axes[a].kind == SBIO_AXIS_OPTION && !strcmp(c->axes[a].key, name))
            return true;
    return false;
}

/* Whether a setting says how the page cache is dropped. */
static bool compare_cache_varied(const struct compare *c)
{
    for (size_t a = 0; a < c->naxes; a++)
        if (c->axes[a].kind == SBIO_AXIS_OPTION &&
            (!strcmp(c->axes[a].key, "drop-caches") || !strcmp(c->axes[a].key, "invalidate")))
            return true;
    return false;
}

/* What is dropped before each run (a script's: before its first phase): its name in the JSON's
 * cache_drop (*words: as the first line says it). A script's phases and jobs may drop more
 * (a phase's drop_caches, a job's invalidate). */
static const char *compare_cache(const struct compare *c, const char **words)
{
    if (compare_cache_varied(c)) {
        *words = ", the page cache dropped as each setting's --drop-caches and --invalidate say";
        return "setting";
    }
    if (c->base.drop_caches) {
        *words = ", the whole page cache dropped before each run (--drop-caches: every process's)";
        return "drop_caches";
    }
    if (c->base.invalidate) {
        *words = ", the set's pages dropped before each run (--invalidate)";
        return "invalidate";
    }
    *words = c->script ? ", nothing dropped between runs but what the script's phases and jobs "
                         "drop"
                       : ", the page cache kept between runs";
    return "none";
}

/* The lines that announce the compare; the seed of the run order (every rank runs the
 * settings in rank 0's). */
static void compare_start(struct compare *c)
{
    const struct sbio_config *cfg = c->cfg;
    c->seed = cfg->rand_seed ? cfg->rand_seed : sbio_mix64(sbio_now_ns());
    sbio_mpi_bcast_u64(&c->seed);
    const char *order = cfg->order == 1 ? "random" : "interleaved";
    const char *drop;
    compare_cache(c, &drop);
    if (c->automatic)
        fprintf(c->out,
                "sbio %s compare: %zu settings, each run until every 95%% confidence interval is "
                "within ±%g%% of its mean (%u to %u runs), %s order%s\n",
                SBIO_VERSION, c->ns, cfg->target_ci,
                SBIO_COMPARE_MIN_AUTO < c->repeat ? SBIO_COMPARE_MIN_AUTO : c->repeat, c->repeat,
                order, drop);
    else
        fprintf(c->out, "sbio %s compare: %zu settings x %u repeats = %zu runs, %s order%s\n",
                SBIO_VERSION, c->ns, c->repeat, c->ns * c->repeat, order, drop);
    if (cfg->max_compare_time_s)
        fprintf(c->out, "No run starts that would end after %" PRIu64 " s (--max-compare-time)\n",
                cfg->max_compare_time_s);
    const struct sbio_topology *t = c->topo;
    if (t->nranks > 1)
        fprintf(c->out,
                "MPI: %u ranks on %u host%s run each setting together; each host's first rank "
                "changes its settings\n",
                t->nranks, t->nhosts, t->nhosts == 1 ? "" : "s");
    c->t0 = sbio_now_ns();
}

/* How a run ended, as its progress line and the JSON name it, from its code and whether it
 * happened (it has a document): a run that could not start failed. */
static const char *compare_status(int rc, const json_t *doc)
{
    /* A script whose phases the system refused in part: its other phases are measured. */
    if (!rc || (rc == -SBIO_EUSAGE && doc))
        return "ok";
    return rc == -EINTR && doc ? "interrupted" : "failed";
}

/* A measured run: its figures into the table, and its progress line ended: a script's
 * phases measured (a refused phase has no figures), or a run's own. */
static void compare_record(struct compare *c, size_t s, unsigned round, json_t *doc)
{
    int okp = sbio_table_add(&c->tab, s, round, doc);
    if (c->script) {
        fprintf(c->out, "%d of %zu phases measured\n", okp < 0 ? 0 : okp, c->np);
    } else {
        char line[512];
        sbio_table_run_text(&c->tab, s, line, sizeof(line));
        fprintf(c->out, "%s\n", line);
    }
    c->done++;
}

/* A script's run under conf (as the setting made last loaded it). Its report() prints to the run's
 * text stream (nowhere here); its event() prints with Lua's own print, to standard output: that
 * goes nowhere too, so the progress lines and the tables stay readable. */
static int compare_run_script(struct compare *c, const struct sbio_settings *set, json_t **doc)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved >= 0)
        dup2(fileno(c->devnull), STDOUT_FILENO);
    int rc =
        sbio_pipeline_run(set, c->cur ? c->cur : c->script, c->topo, c->devnull, c->devnull, doc);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    return rc;
}

/* The placeholder of stored result k, as a JSON string's text (what json_dumps writes). */
static void compare_placeholder(const struct compare *c, size_t k, char *buf, size_t len)
{
    snprintf(buf, len, "\001sbio-run-%016" PRIx64 "-%zu", c->nonce, k);
}

/* With --output, setting s's run of round `round` in its runs[]: its result (the caller keeps
 * its reference) written to the store, or kept in memory when there is no store. */
static void compare_keep(struct compare *c, size_t s, unsigned round, const char *st, json_t *doc)
{
    if (!c->cfg->output || c->topo->rank != 0)
        return;
    json_t *res = doc ? json_incref(doc) : json_null();
    if (doc && c->store && c->nstored == c->capstored) {
        size_t cap = c->capstored ? 2 * c->capstored : 64;
        struct compare_stored *n = realloc(c->stored, cap * sizeof(*n));
        if (n) {
            c->stored = n;
            c->capstored = cap;
        }
    }
    if (doc && c->store && c->nstored < c->capstored && !fseek(c->store, 0, SEEK_END)) {
        long off = ftell(c->store);
        if (off >= 0 && !json_dumpf(doc, c->store, JSON_INDENT(2) | JSON_REAL_PRECISION(10))) {
            char ph[64];
            compare_placeholder(c, c->nstored, ph, sizeof(ph));
            c->stored[c->nstored].off = off;
            c->stored[c->nstored].len = (size_t)(ftell(c->store) - off);
            c->nstored++;
            json_decref(res);
            res = json_string(ph);
        }
    }
    json_array_append_new(c->runs[s],
                          json_pack("{s:i,s:s,s:o}", "repeat", round, "status", st, "result", res));
}

/* Setting s's run of round `round`: run it, keep its document and figures, end its progress
 * line. 0 or -SBIO_EUSAGE (message printed); c->interrupted when every rank is to stop. */
static int compare_run(struct compare *c, size_t s, unsigned round)
{
    struct sbio_config conf;
    struct sbio_settings set;
    /* A script reloaded for the setting may fail on one rank only (its environment): every
     * rank stops then. */
    if (sbio_mpi_agree(compare_setting(c, s, &conf, &set) ? -SBIO_EUSAGE : 0, NULL))
        return -SBIO_EUSAGE;
    if (c->automatic)
        fprintf(c->out, "[%zu] round %u, %s: ", c->made + 1, round, c->names[s]);
    else
        fprintf(c->out, "[%zu/%zu] repeat %u, %s: ", c->made + 1, c->ns * c->repeat, round,
                c->names[s]);
    fflush(c->out);
    c->made++;
    json_t *doc = NULL;
    if (!c->script)
        sbio_options_declare(&set, &conf, c->plain);
    int rc = c->script ? compare_run_script(c, &set, &doc)
                       : sbio_pipeline_run(&set, c->plain, c->topo, c->devnull, c->devnull, &doc);
    const char *st = compare_status(rc, doc);
    compare_keep(c, s, round, st, doc);
    sbio_table_tried(&c->tab, s);
    if (strcmp(st, "ok")) {
        /* Marked and left out of the statistics. */
        fprintf(c->out, "%s — excluded\n", st);
        c->failed |= strcmp(st, "interrupted") != 0;
    } else if (doc) {
        compare_record(c, s, round, doc);
    }
    json_decref(doc);
    /* The ranks stop together: one rank's signal stops them all. */
    if (sbio_mpi_agree(rc == -EINTR || sbio_stop_requested() ? -EINTR : 0, NULL))
        c->interrupted = true;
    return 0;
}

/* --max-compare-time: whether another run, as long as the runs so far on average, would end
 * after it. Every rank stops when one says so. */
static bool compare_out_of_time(const struct compare *c)
{
    uint64_t budget = c->cfg->max_compare_time_s * 1000000000ULL, used = sbio_now_ns() - c->t0;
    bool over = budget && (used >= budget || (c->made && used + used / c->made > budget));
    return sbio_mpi_agree(over ? -ETIME : 0, NULL) != 0;
}

/* --repeat=auto, after a round: each running setting whose widest CI is within the target
 * stops (rank 0 decides for every rank). */
static void compare_settle(struct compare *c, unsigned round)
{
    sbio_table_compute(&c->tab);
    for (size_t s = 0; s < c->ns; s++) {
        c->widest[s] = sbio_table_widest(&c->tab, s, c->widest_at[s], sizeof(c->widest_at[s]));
        uint64_t stop = c->stop[s] == STOP_RUNNING && round >= SBIO_COMPARE_MIN_AUTO &&
                        c->widest[s] <= c->cfg->target_ci;
        sbio_mpi_bcast_u64(&stop);
        if (stop)
            c->stop[s] = STOP_TARGET;
    }
}

/* Round after round, each the running settings once in the order's turn, until each setting
 * has its runs (--repeat=N), or is settled or at --max-repeat (--repeat=auto), or time is up.
 * 0 or -SBIO_EUSAGE. */
static int compare_rounds(struct compare *c)
{
    int rc = 0;
    for (unsigned round = 1; round <= c->repeat && !c->interrupted && !rc; round++) {
        size_t n = 0;
        for (size_t s = 0; s < c->ns; s++)
            if (c->stop[s] == STOP_RUNNING)
                c->order[n++] = s;
        if (!n)
            break;
        sbio_compare_order(n, 1, c->cfg->order == 1, c->seed + round, c->perm);
        for (size_t k = 0; k < n && !c->interrupted && !rc; k++) {
            if (compare_out_of_time(c)) {
                for (size_t s = 0; s < c->ns; s++)
                    c->stop[s] = c->stop[s] == STOP_RUNNING ? STOP_TIME : c->stop[s];
                return 0;
            }
            rc = compare_run(c, c->order[c->perm[k]], round);
        }
        if (c->automatic && !c->interrupted && !rc)
            compare_settle(c, round);
    }
    for (size_t s = 0; s < c->ns; s++)
        if (c->stop[s] == STOP_RUNNING)
            c->stop[s] = c->interrupted ? STOP_INTR : c->automatic ? STOP_MAX : STOP_REPEAT;
    return rc;
}

/* The table's figures, and the widest CI of each setting. */
static void compare_summarize(struct compare *c)
{
    sbio_table_compute(&c->tab);
    for (size_t s = 0; s < c->ns; s++)
        c->widest[s] = sbio_table_widest(&c->tab, s, c->widest_at[s], sizeof(c->widest_at[s]));
}

static const char *const stop_names[] = {
    [STOP_RUNNING] = "running",       [STOP_TARGET] = "target", [STOP_MAX] = "max-repeat",
    [STOP_TIME] = "max-compare-time", [STOP_REPEAT] = "repeat", [STOP_INTR] = "interrupted",
};

/* The widest CI of setting s in words: "±4.1% (job readers, read p99)". */
static const char *widest_text(const struct compare *c, size_t s, char *buf, size_t len)
{
    if (isnan(c->widest[s]))
        snprintf(buf, len, "none yet (%s has fewer than 2 runs)", c->widest_at[s]);
    else
        snprintf(buf, len, "±%.3g%% (%s)", c->widest[s], c->widest_at[s]);
    return buf;
}

/* --repeat=auto: how many runs each setting took and why it stopped. */
static void compare_print_stops(const struct compare *c)
{
    fprintf(c->out, "\nRuns per setting (--repeat=auto, target ±%g%%, at most %u runs):\n",
            c->cfg->target_ci, c->repeat);
    for (size_t s = 0; s < c->ns; s++) {
        char w[320];
        const char *why = c->stop[s] == STOP_TARGET ? "settled; the last CI to get within the "
                                                      "target"
                          : c->stop[s] == STOP_MAX  ? "stopped at --max-repeat; widest CI"
                          : c->stop[s] == STOP_TIME ? "stopped by --max-compare-time; widest CI"
                                                    : "interrupted; widest CI";
        fprintf(c->out, "  %s: %zu run%s, %s: %s\n", c->names[s], c->tab.tried[s],
                c->tab.tried[s] == 1 ? "" : "s", why, widest_text(c, s, w, sizeof(w)));
    }
}

static void compare_print(const struct compare *c)
{
    char of[32] = "";
    if (!c->automatic) /* the runs planned */
        snprintf(of, sizeof(of), " of %zu", c->ns * c->repeat);
    if (c->interrupted)
        fprintf(c->out,
                "\n*** Interrupted after %zu%s runs: the table covers the runs done; every "
                "setting was restored ***\n",
                c->done, of);
    sbio_table_print(&c->tab, c->out, c->namep);
    if (c->automatic)
        compare_print_stops(c);
    else if (c->stop[0] == STOP_TIME)
        fprintf(c->out, "\n--max-compare-time reached after %zu runs\n", c->made);
}

/* settings[s] of the JSON: its name and values, its runs, why they ended, and the table's
 * figures of each phase, job and metric. */
static json_t *compare_setting_json(const struct compare *c, size_t s)
{
    size_t idx[MAX_AXES];
    sbio_compare_unrank(s, c->alen, c->naxes, idx);
    json_t *vals = json_object();
    for (size_t a = 0; a < c->naxes; a++)
        json_object_set_new(vals, c->axes[a].key, json_string(c->axes[a].vals[idx[a]]));
    json_t *stop = json_pack("{s:s,s:o,s:s}", "reason", stop_names[c->stop[s]], "widest_ci_pct",
                             num_json(c->widest[s]), "widest", c->widest_at[s]);
    return json_pack("{s:s,s:o,s:O,s:o,s:o}", "name", c->names[s], "values", vals, "runs",
                     c->runs[s], "stop", stop, "phases", sbio_table_json(&c->tab, s));
}

/* The sbio-compare/1 document: how the compare was made, then every setting. */
static json_t *compare_json(const struct compare *c)
{
    const struct sbio_config *cfg = c->cfg;
    json_t *docs = json_object();
    json_object_set_new(docs, "schema", json_string("sbio-compare/1"));
    json_object_set_new(docs, "sbio_version", json_string(SBIO_VERSION));
    json_t *argv = json_array();
    for (int i = 0; i < cfg->argc; i++)
        json_array_append_new(argv, json_string(cfg->argv[i]));
    json_object_set_new(docs, "command_line", argv);
    json_t *ja = json_array();
    for (size_t a = 0; a < c->naxes; a++) {
        json_t *vals = json_array();
        for (size_t i = 0; i < c->axes[a].n; i++)
            json_array_append_new(vals, json_string(c->axes[a].vals[i]));
        json_array_append_new(ja, json_pack("{s:s,s:o}", "key", c->axes[a].key, "values", vals));
    }
    json_object_set_new(docs, "axes", ja);
    json_object_set_new(docs, "repeat",
                        c->automatic ? json_string("auto") : json_integer(c->repeat));
    if (c->automatic) {
        json_object_set_new(docs, "target_ci_pct", json_real(cfg->target_ci));
        json_object_set_new(docs, "max_repeat", json_integer(c->repeat));
    }
    json_object_set_new(docs, "max_compare_time_s",
                        cfg->max_compare_time_s ? json_integer((json_int_t)cfg->max_compare_time_s)
                                                : json_null());
    json_t *mets = json_array();
    for (size_t k = 0; k < c->nmet; k++)
        json_array_append_new(mets, json_string(sbio_table_metric_name(c->met[k])));
    json_object_set_new(docs, "metrics", mets);
    json_object_set_new(docs, "statistics", sbio_table_stats_json(&c->tab));
    json_object_set_new(docs, "order", json_string(cfg->order == 1 ? "random" : "interleaved"));
    const char *words, *cache = compare_cache(c, &words);
    json_object_set_new(docs, "cache_drop", json_string(cache));
    bool by_runs = !compare_cache_varied(c);
    json_object_set_new(docs, "drop_caches", json_boolean(by_runs && c->base.drop_caches));
    json_object_set_new(docs, "invalidate", json_boolean(by_runs && c->base.invalidate));
    json_object_set_new(docs, "interrupted", json_boolean(c->interrupted));
    json_t *sets = json_array();
    for (size_t s = 0; s < c->ns; s++)
        json_array_append_new(sets, compare_setting_json(c, s));
    json_object_set_new(docs, "settings", sets);
    return docs;
}

/* Stored result k into f, each of its lines after the first indented by indent bytes (the
 * depth of the placeholder it replaces), as json_dumpf would have written it in place.
 * 0 or -errno. */
static int compare_put_stored(const struct compare *c, size_t k, size_t indent, FILE *f)
{
    char buf[65536];
    const struct compare_stored *st = &c->stored[k];
    if (fseek(c->store, st->off, SEEK_SET))
        return -errno;
    for (size_t left = st->len; left;) {
        size_t n = fread(buf, 1, left < sizeof(buf) ? left : sizeof(buf), c->store);
        if (!n)
            return ferror(c->store) ? -EIO : -ENODATA;
        for (size_t i = 0, from = 0; i <= n; i++) {
            if (i < n && buf[i] != '\n')
                continue;
            if (fwrite(buf + from, 1, i - from, f) != i - from)
                return -errno;
            if (i < n && (fputc('\n', f) == EOF || fprintf(f, "%*s", (int)indent, "") < 0))
                return -errno;
            from = i + 1;
        }
        left -= n;
    }
    return 0;
}

/* The document into f, each placeholder replaced by its stored result. 0 or -errno. */
static int compare_dump(const struct compare *c, json_t *docs, FILE *f)
{
    char *text = json_dumps(docs, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    if (!text)
        return -ENOMEM;
    char mark[64];
    int rc = 0;
    size_t ml = (size_t)snprintf(mark, sizeof(mark), "\"\\u0001sbio-run-%016" PRIx64 "-", c->nonce);
    const char *p = text;
    for (const char *m; !rc && (m = strstr(p, mark));) {
        char *end;
        unsigned long long k = strtoull(m + ml, &end, 10);
        const char *line = m;
        while (line > text && line[-1] != '\n')
            line--;
        size_t indent = strspn(line, " ");
        if (*end != '"' || k >= c->nstored) {
            rc = -EINVAL;
            break;
        }
        if (fwrite(p, 1, (size_t)(m - p), f) != (size_t)(m - p))
            rc = -errno;
        if (!rc)
            rc = compare_put_stored(c, (size_t)k, indent, f);
        p = end + 1;
    }
    if (!rc && fputs(p, f) == EOF)
        rc = -errno;
    free(text);
    return rc;
}

/* --output, opened before any run (sbio_util_open_output: no planted link, no file of
 * another user's in a sticky folder), so that a path that cannot be written is told before
 * hours of runs, not after. 0 or -SBIO_EUSAGE (message printed, by the rank that writes). */
static int compare_open_output(struct compare *c)
{
    char why[512];
    int rc = 0;
    if (c->cfg->output && c->topo->rank == 0) {
        c->outfd =
            sbio_util_open_output(AT_FDCWD, c->cfg->output, SBIO_OUTPUT_TRUNCATE, why, sizeof(why));
        if (c->outfd < 0) {
            sbio_err("--output %s: %s", c->cfg->output, why);
            rc = -SBIO_EUSAGE;
        }
    }
    return sbio_mpi_agree(rc, NULL) ? -SBIO_EUSAGE : 0;
}

/* --output: the document, and where it went; a failed write fails the compare. */
static void compare_write(struct compare *c)
{
    json_t *docs = compare_json(c);
    int err = 0;
    FILE *f = sbio_util_stream(c->outfd, "w", &err);
    if (!f)
        err = errno;
    else
        c->outfd = -1; /* the stream closes it */
    int rc = f ? compare_dump(c, docs, f) : 0;
    if (rc && !err)
        err = rc == -ENOMEM || rc == -EINVAL ? -rc : EIO;
    if (f && (fclose(f) || err) && !err)
        err = EIO;
    if (err) {
        sbio_err("%s: write: %s", c->cfg->output, strerror(err));
        c->failed = true;
    }
    json_decref(docs);
    if (!c->failed)
        fprintf(c->out, "\nEvery run's result and the table's figures: %s\n", c->cfg->output);
}

int sbio_compare(const struct sbio_config *cfg, const struct sbio_topology *topo,
                 const struct sbio_script *script, FILE *out)
{
    struct compare c = {.cfg = cfg,
                        .topo = topo,
                        .script = script,
                        .out = out,
                        .np = script ? script->nphases : 1,
                        .automatic = cfg->repeat == 0,
                        .outfd = -1,
                        .repeat = (unsigned)(cfg->repeat ? cfg->repeat : cfg->max_repeat)};
    int rc = compare_repeat_options(&c);
    if (!rc)
        rc = compare_metrics(&c);
    if (!rc)
        rc = compare_axes(&c);
    if (!rc) {
        c.base = *cfg;
        /* --scheduler under every setting: an old name noted once, not at every run. */
        if (c.base.scheduler) {
            sbio_sched_note("--scheduler", c.base.scheduler);
            c.base.scheduler = sbio_sched_canonical(c.base.scheduler);
        }
        /* Each run starts from the device: by default the set's own pages are dropped before
         * it (--invalidate, as fio does), not the whole machine's page cache, which every other
         * process on the box would have to read back; --drop-caches asks for that. Either
         * option given, or varied, says what the user wants instead (--drop-caches=off: a
         * warm set). */
        if (!compare_cache_given(&c, "drop-caches") && !compare_cache_given(&c, "invalidate"))
            c.base.invalidate = true;
        rc = compare_alloc(&c);
    }
    if (!rc && cfg->output && topo->rank == 0) {
        /* Without a temporary file the results stay in memory, as they always could. */
        c.store = tmpfile();
        c.nonce = sbio_mix64(sbio_now_ns() ^ (uint64_t)getpid());
    }
    if (!rc)
        rc = compare_check(&c);
    if (!rc)
        rc = compare_open_output(&c);
    if (!rc) {
        compare_start(&c);
        rc = compare_rounds(&c);
    }
    if (!rc) {
        compare_summarize(&c);
        compare_print(&c);
        if (c.outfd >= 0)
            compare_write(&c);
        rc = c.interrupted ? -EINTR : c.failed ? -SBIO_EFAILED : 0;
    }
    if (c.outfd >= 0)
        close(c.outfd);
    compare_free(&c);
    return rc;
}
