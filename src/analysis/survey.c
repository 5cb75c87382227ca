/* sbio survey, the command: plans a battery within --budget, runs each workload's compare as
 * a child under every scheduler, and prints and writes the matrix (matrix.h). */
#include "survey.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"
#include "script.h"
#include "sysblock.h"
#include "table.h"
#include "util.h"
#include "version.h"

/* ---- the command ---- */

struct survey {
    const struct sbio_config *cfg;
    FILE *out, *json;
    int json_err; /* the first failed write's errno of json */
    bool mail;
    struct sbio_survey_battery b;
    struct sbio_survey_plan plan;
    struct sbio_survey_matrix m;
    struct sbio_target t;
    char list[SBIO_SURVEY_MAX_SCHEDS * 33]; /* the schedulers, "none,mq-deadline,…" */
    char tmp[PATH_MAX];                     /* the compares' documents and logs */
    char battery[PATH_MAX];
    json_t *doc[SBIO_SURVEY_MAX_LINES]; /* each workload's sbio-compare/1, or NULL */
    const char *status[SBIO_SURVEY_MAX_LINES];
    double took[SBIO_SURVEY_MAX_LINES], share[SBIO_SURVEY_MAX_LINES];
    uint64_t t0;
    bool interrupted, failed, kept_logs, made_tmp;
};

/* "1 h 5 min", "5 min 24 s", "40 s". */
static void fmt_dur(char *buf, size_t len, double s)
{
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%lu h %lu min", t / 3600, t % 3600 / 60);
    else if (t >= 60)
        snprintf(buf, len, t % 60 ? "%lu min %lu s" : "%lu min", t / 60, t % 60);
    else
        snprintf(buf, len, "%lu s", t);
}

static double since(const struct survey *s)
{
    return (double)(sbio_now_ns() - s->t0) / 1e9;
}

/* The battery file (at most 1 MiB) into s->b. 0 or -SBIO_EUSAGE (one line printed). */
static int survey_battery(struct survey *s)
{
    char why[PATH_MAX + 256];
    const char *path = sbio_workload_find(s->cfg->battery, ".battery", why, sizeof(why));
    if (!path) {
        sbio_err("--battery=%s: no such battery; %s", s->cfg->battery, why);
        return -SBIO_EUSAGE;
    }
    snprintf(s->battery, sizeof(s->battery), "%s", path);
    FILE *f = fopen(s->battery, "r");
    char *text = malloc(1 << 20);
    size_t n = f && text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    int bad = !f || !text || ferror(f) || !feof(f) || memchr(text, 0, n);
    int e = errno;
    if (f)
        fclose(f);
    if (bad) {
        sbio_err("--battery=%s: %s; accepted: a text file of at most 1 MiB", s->battery,
                 !f || !text ? strerror(e) : "not a text file of at most 1 MiB");
        free(text);
        return -SBIO_EUSAGE;
    }
    text[n] = 0;
    int rc = sbio_survey_battery_parse(text, s->battery, &s->b, why, sizeof(why));
    free(text);
    if (rc == -ENOMEM)
        return rc;
    if (rc) {
        sbio_err("%s", why);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* Whether line l only reads: a built-in mode that reads (seqrd, rndrd). A script's workload
 * has files of its own and may write. */
static bool line_reads_only(const struct sbio_survey_line *l)
{
    if (strcmp(l->script, "-"))
        return false;
    for (size_t k = 0; k < l->nopt; k++)
        if (!strcmp(l->opt[k], "--file-test-mode=seqrd") ||
            !strcmp(l->opt[k], "--file-test-mode=rndrd"))
            return true;
    return false;
}

/* A raw device (--filename) is surveyed read-only: of the shipped battery, the lines that
 * write are left out (a note names them); a battery of the user's that has one is refused.
 * 0 or -SBIO_EUSAGE (one line). */
static int survey_raw_battery(struct survey *s)
{
    struct sbio_survey_battery *b = &s->b;
    char left[512] = "";
    bool own = sbio_options_given(s->cfg, "battery");
    for (size_t i = 0; i < b->n;) {
        struct sbio_survey_line *l = &b->line[i];
        if (line_reads_only(l)) {
            i++;
            continue;
        }
        if (own) {
            sbio_err("--filename=%s: %s line %s %s; a raw device is surveyed read-only: "
                     "accepted: built-in modes that read (SCRIPT '-', --file-test-mode=seqrd or "
                     "rndrd)",
                     s->cfg->filename, s->battery, l->name,
                     strcmp(l->script, "-") ? "runs a script" : "writes");
            return -SBIO_EUSAGE;
        }
        size_t k = strlen(left);
        snprintf(left + k, sizeof(left) - k, "%s%s", k ? ", " : "", l->name);
        for (size_t o = 0; o < l->nopt; o++)
            free(l->opt[o]);
        b->nrows -= l->nm;
        memmove(l, l + 1, (b->n - i - 1) * sizeof(*l));
        memset(&b->line[--b->n], 0, sizeof(*l));
    }
    if (!b->n) {
        sbio_err("--filename=%s: no line of %s only reads; accepted: built-in modes that read "
                 "(SCRIPT '-', --file-test-mode=seqrd or rndrd)",
                 s->cfg->filename, s->battery);
        return -SBIO_EUSAGE;
    }
    if (left[0])
        sbio_note("--filename=%s: a raw device is surveyed read-only: %s (which write) left out",
                  s->cfg->filename, left);
    return 0;
}

/* The schedulers: --schedulers (checked against what the device offers), or every one the
 * device offers. 0 or -SBIO_EUSAGE. */
static int survey_schedulers(struct survey *s)
{
    const struct sbio_config *cfg = s->cfg;
    /* A raw device is its own target, as run takes it. */
    int rc = sbio_sysblock_resolve(cfg->filename ? "/" : cfg->dir,
                                   cfg->filename ? cfg->filename : cfg->queue_device, &s->t);
    if (cfg->filename && (rc || !s->t.has_top || !s->t.ndev)) {
        sbio_err("--filename=%s: no such block device; accepted: a device node such as "
                 "/dev/sdb (surveyed read-only)",
                 cfg->filename);
        return -SBIO_EUSAGE;
    }
    if (rc || !s->t.has_top || !s->t.ndev) {
        sbio_err("--dir=%s: %s; accepted: a folder on a block device's file system (a survey "
                 "compares the device's I/O schedulers)",
                 cfg->dir, rc ? strerror(-rc) : "its file system has no block device");
        return -SBIO_EUSAGE;
    }

    char line[512], names[SBIO_MAX_SCHED][32];
    int cur, n = 0;
    if (!sbio_sysblock_read(&s->t.dev[0], "scheduler", line, sizeof(line)))
        n = sbio_sched_parse(line, names, SBIO_MAX_SCHED, &cur);
    if (cfg->schedulers) {
        if (sbio_sched_check_list(&s->t, "--schedulers", cfg->schedulers))
            return -SBIO_EUSAGE;
        char copy[512], *save = NULL;
        snprintf(copy, sizeof(copy), "%s", cfg->schedulers);
        n = 0;
        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
            if (n < SBIO_MAX_SCHED)
                snprintf(names[n++], sizeof(names[0]), "%s", sbio_sched_canonical(w));
    }
    if (n < 2 || n > SBIO_SURVEY_MAX_SCHEDS) {
        sbio_err("%s: %d scheduler%s; accepted: 2 to %d (a survey compares them)",
                 cfg->schedulers ? "--schedulers" : s->t.dev[0].name, n, n == 1 ? "" : "s",
                 SBIO_SURVEY_MAX_SCHEDS);
        return -SBIO_EUSAGE;
    }
    s->m.ns = (size_t)n;
    for (int i = 0; i < n; i++) {
        /* A scheduler given again is an A/A column of its own, named as compare names its
         * setting: mq-deadline#2. */
        unsigned copy = 1;
        for (int j = 0; j < i; j++)
            copy += !strcmp(names[j], names[i]);
        snprintf(s->m.sched[i], sizeof(s->m.sched[i]), copy > 1 ? "%.24s#%u" : "%.31s", names[i],
                 copy);
        size_t k = strlen(s->list);
        snprintf(s->list + k, sizeof(s->list) - k, "%s%s", i ? "," : "", names[i]);
    }
    return 0;
}

/* The plan, checked against --budget. 0 or -SBIO_EUSAGE (one line). */
static int survey_plan(struct survey *s)
{
    double budget;
    if (sbio_survey_parse_budget(s->cfg->budget, &budget)) {
        sbio_err("--budget=%s: accepted: a time as 90s, 10m, 1h30m or seconds (above 0, at "
                 "most 7 days)",
                 s->cfg->budget);
        return -SBIO_EUSAGE;
    }
    if (sbio_survey_plan(&s->b, s->m.ns, budget, &s->plan)) {
        char need[32], have[32];
        fmt_dur(need, sizeof(need), ceil(s->plan.least_total));
        fmt_dur(have, sizeof(have), budget);
        sbio_err("--budget=%s (%s) is below the least this survey needs, %s (%zu workloads x "
                 "%zu schedulers x %d runs of each line's seconds + %.1f s); accepted: a budget "
                 "of at least %s, fewer schedulers or a shorter battery",
                 s->cfg->budget, have, need, s->b.n, s->m.ns, SBIO_SURVEY_MIN_RUNS,
                 SBIO_SURVEY_OVERHEAD_S, need);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* What is surveyed: "loop0 (ext4 on /dev/loop0 at /mnt/sv)", or "loop2 (raw device
 * /dev/loop2, read-only)". */
static void survey_where(const struct survey *s, char *buf, size_t len)
{
    if (s->cfg->filename)
        snprintf(buf, len, "%.63s (raw device %.255s, read-only)", s->t.dev[0].name,
                 s->cfg->filename);
    else
        snprintf(buf, len, "%.63s (%.63s on %.255s at %.500s)", s->t.dev[0].name, s->t.fstype,
                 s->t.source, s->t.mountpoint);
}

static void survey_print_plan(const struct survey *s)
{
    char b[32], l[32];
    fmt_dur(b, sizeof(b), s->plan.budget);
    fmt_dur(l, sizeof(l), s->plan.least_total);
    char line[PATH_MAX * 3];
    int w = s->mail ? SBIO_SURVEY_WIDTH : 0;
    char where[900];
    survey_where(s, where, sizeof(where));
    snprintf(line, sizeof(line), "of %s: %zu schedulers (%s), %zu workloads of %s", where, s->m.ns,
             s->list, s->b.n, s->battery);
    sbio_survey_wrap(s->out, "Survey ", line, w, 2);
    snprintf(line, sizeof(line),
             "%s (at least %s: each workload %d runs per scheduler); the "
             "plan:",
             b, l, SBIO_SURVEY_MIN_RUNS);
    sbio_survey_wrap(s->out, "Budget ", line, w, 2);
    for (size_t i = 0; i < s->b.n; i++) {
        fmt_dur(b, sizeof(b), s->plan.share[i]);
        fmt_dur(l, sizeof(l), s->plan.least[i]);
        snprintf(line, sizeof(line), "%-18s %-18s about %s (at least %s)", s->b.line[i].name,
                 strcmp(s->b.line[i].script, "-") ? s->b.line[i].script : "(built-in modes)", b, l);
        sbio_survey_wrap(s->out, "  ", line, w, 4);
    }
    fflush(s->out);
}

/* A child's command line: this sbio, cmd, the workload's script and folder, its options, then
 * extra (NULL-terminated). Strings allocated; argv_free frees them. */
struct args {
    char *v[64];
    size_t n;
};

static int args_add(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int args_add(struct args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *w = NULL;
    int rc = a->n + 1 < sizeof(a->v) / sizeof(a->v[0]) ? vasprintf(&w, fmt, ap) : -1;
    va_end(ap);
    if (rc < 0)
        return -ENOMEM;
    a->v[a->n++] = w;
    a->v[a->n] = NULL;
    return 0;
}

static void args_free(struct args *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    a->n = 0;
}

static int line_args(const struct survey *s, size_t i, const char *cmd, struct args *a)
{
    const struct sbio_survey_line *l = &s->b.line[i];
    int rc = args_add(a, "sbio") || args_add(a, "%s", cmd) ||
             (s->cfg->filename ? args_add(a, "--filename=%s", s->cfg->filename)
                               : args_add(a, "--dir=%s/%s", s->cfg->dir, l->name));
    if (!rc && strcmp(l->script, "-"))
        rc = args_add(a, "--script=%s", l->script);
    if (!rc && s->cfg->queue_device)
        rc = args_add(a, "--queue-device=%s", s->cfg->queue_device);
    for (size_t k = 0; !rc && k < l->nopt; k++)
        rc = args_add(a, "%s", l->opt[k]);
    return rc ? -ENOMEM : 0;
}

/* Run argv as a child of its own (its own process group, killed when the survey dies, its
 * standard output to log): a signal the survey gets is passed on to it, and the survey waits
 * for it to finish (it restores what it changed and writes what it measured). Returns its
 * exit status (128 + signal when killed), or -errno when it could not start. */
static int run_child(struct survey *s, char **argv, const char *log)
{
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    setpgid(pid, pid);
    /* A stop asked before this child started (the cleanup after an interrupted compare) is
     * not passed on: a SIGINT landing before the child's own handler would kill it half done
     * and leave its set behind. */
    bool passed = sbio_stop_requested() != 0;
    int st;
    for (;;) {
        int sig = sbio_stop_requested();
        if (sig && !passed) {
            kill(-pid, sig == SIGHUP ? SIGINT : sig);
            passed = true;
            s->interrupted = true;
        }
        /* Polled: a signal that comes between the look at the flag and a blocking wait
         * would be passed on only when the child is done. */
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return -errno;
        usleep(20000);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One step (prepare, compare, cleanup) of workload i, extra words after its options. The
 * child's exit status, or -errno. */
static int line_step(struct survey *s, size_t i, const char *cmd, const char *extra[])
{
    struct args a = {0};
    char log[PATH_MAX + 64];
    snprintf(log, sizeof(log), "%s/%s.log", s->tmp, s->b.line[i].name);
    int rc = line_args(s, i, cmd, &a);
    for (size_t k = 0; !rc && extra && extra[k]; k++)
        rc = args_add(&a, "%s", extra[k]);
    if (!rc)
        rc = run_child(s, a.v, log);
    args_free(&a);
    return rc;
}

/* The --metrics=LIST of workload i's compare: its metrics' names, each once. */
static void line_metrics(const struct sbio_survey_line *l, char *buf, size_t len)
{
    snprintf(buf, len, "--metrics=");
    for (size_t k = 0; k < l->nm; k++) {
        const char *name = sbio_table_metric_name(l->m[k].metric);
        bool seen = false;
        for (size_t j = 0; j < k; j++)
            seen |= l->m[j].metric == l->m[k].metric;
        if (!seen) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, "%s%s", buf[n - 1] == '=' ? "" : ",", name);
        }
    }
}

/* The compare document workload i wrote, or NULL (a line on stderr). */
static json_t *line_doc(const struct survey *s, size_t i, const char *path)
{
    json_error_t jerr;
    json_t *d = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    const char *schema = json_string_value(json_object_get(d, "schema"));
    if (!d || !schema || strcmp(schema, "sbio-compare/1")) {
        sbio_err("%s: its compare wrote no document%s%s", s->b.line[i].name, d ? "" : ": ",
                 d ? "" : jerr.text);
        json_decref(d);
        return NULL;
    }
    return d;
}

/* Workload i: its folder, its set prepared, its compare within its share of what is left of
 * the budget, its set removed. */
static void line_run(struct survey *s, size_t i)
{
    const struct sbio_survey_line *l = &s->b.line[i];
    char dir[PATH_MAX], json[PATH_MAX + 64], d1[32], d2[32];
    /* A raw device needs no set made and none removed: it is the set. */
    bool raw = s->cfg->filename != NULL;
    snprintf(dir, sizeof(dir), "%s/%s", s->cfg->dir, l->name);
    bool made = !raw && !mkdir(dir, 0755);
    if (!raw && !made && errno != EEXIST) {
        sbio_err("%s: %s", dir, strerror(errno));
        s->status[i] = "failed";
        return;
    }
    double start = since(s);
    const char *step = "prepare";
    int rc = raw ? 0 : line_step(s, i, step, NULL);
    if (!rc && !s->interrupted) {
        size_t left = s->b.n - i;
        double share =
            sbio_survey_share(&s->plan, s->b.n, i, s->plan.budget - since(s) - (double)left);
        char mt[48], met[256], out[PATH_MAX + 80], sch[sizeof(s->list) + 16], tci[48], mr[48],
            ord[48];
        snprintf(mt, sizeof(mt), "--max-compare-time=%.0f", floor(share > 1 ? share : 1));
        line_metrics(l, met, sizeof(met));
        snprintf(json, sizeof(json), "%s/%s.json", s->tmp, l->name);
        snprintf(out, sizeof(out), "--output=%s", json);
        snprintf(sch, sizeof(sch), "--schedulers=%s", s->list);
        snprintf(tci, sizeof(tci), "--target-ci=%g", s->cfg->target_ci);
        snprintf(mr, sizeof(mr), "--max-repeat=%" PRIu64, s->cfg->max_repeat);
        snprintf(ord, sizeof(ord), "--order=%s", s->cfg->order ? "random" : "sequential");
        const char *extra[] = {sch, "--repeat=auto", tci, mr, ord, mt, met, out, NULL};
        /* What is left of the plan once this one has had its share: the survey's ETA. */
        double eta = since(s) + share;
        for (size_t j = i + 1; j < s->b.n; j++)
            eta += s->plan.share[j];
        fmt_dur(d1, sizeof(d1), share);
        fmt_dur(d2, sizeof(d2), eta > s->plan.budget ? s->plan.budget : eta);
        char pre[80], line[160];
        snprintf(pre, sizeof(pre), "[%zu/%zu] ", i + 1, s->b.n);
        snprintf(line, sizeof(line), "%s: comparing for at most %s (the survey ends at about %s)",
                 l->name, d1, d2);
        sbio_survey_wrap(s->out, pre, line, s->mail ? SBIO_SURVEY_WIDTH : 0, 2);
        fflush(s->out);
        s->share[i] = share;
        step = "compare";
        rc = line_step(s, i, step, extra);
        s->doc[i] = rc == 0 || rc == 1 || rc == 130 ? line_doc(s, i, json) : NULL;
    }
    s->status[i] = s->interrupted ? "interrupted" : rc || !s->doc[i] ? "failed" : "ok";
    if (rc && !s->interrupted)
        sbio_err("%s: sbio %s exited with status %d (its output: %s/%s.log)", l->name, step, rc,
                 s->tmp, l->name);
    if (!raw && line_step(s, i, "cleanup", NULL))
        sbio_err("%s: cleanup of %s failed (its output: %s/%s.log)", l->name, dir, s->tmp, l->name);
    else if (made)
        rmdir(dir);
    s->took[i] = since(s) - start;
    s->failed |= strcmp(s->status[i], "ok") != 0 && !s->interrupted;
    s->kept_logs |= s->failed;
    fmt_dur(d1, sizeof(d1), s->took[i]);
    fmt_dur(d2, sizeof(d2), since(s));
    char pre[80], line[160];
    snprintf(pre, sizeof(pre), "[%zu/%zu] ", i + 1, s->b.n);
    snprintf(line, sizeof(line), "%s: %s in %s (%s of the survey)", l->name, s->status[i], d1, d2);
    sbio_survey_wrap(s->out, pre, line, s->mail ? SBIO_SURVEY_WIDTH : 0, 2);
    fflush(s->out);
}

/* The block of a compare's phase a metric of the battery reads: the job named, or with no
 * job the phase's only job, else the jobs' total. */
static json_t *phase_block(json_t *phase, const char *job)
{
    json_t *jobs = json_object_get(phase, "jobs"), *j, *only = NULL, *total = NULL;
    size_t k, njobs = 0;
    json_array_foreach(jobs, k, j)
    {
        const char *name = json_string_value(json_object_get(j, "name"));
        bool is_total = json_is_true(json_object_get(j, "total"));
        if (job[0] && name && !is_total && !strcmp(name, job))
            return j;
        if (is_total)
            total = j;
        else {
            only = j;
            njobs++;
        }
    }
    return job[0] ? NULL : njobs == 1 ? only : total;
}

/* The values of metric m under setting s of a compare document: the first phase whose block
 * has them. */
static json_t *doc_values(json_t *set, const struct sbio_survey_metric *m)
{
    json_t *phases = json_object_get(set, "phases"), *ph;
    size_t k;
    json_array_foreach(phases, k, ph)
    {
        json_t *b = phase_block(ph, m->job);
        json_t *v = json_object_get(
            json_object_get(json_object_get(b, "metrics"), sbio_table_metric_name(m->metric)),
            "values");
        if (json_is_array(v) && json_array_size(v))
            return v;
    }
    return NULL;
}

/* The matrix's rows from the workloads' documents (a workload without one: empty cells). */
static int survey_rows(struct survey *s)
{
    size_t r = 0;
    for (size_t i = 0; i < s->b.n; i++)
        for (size_t k = 0; k < s->b.line[i].nm; k++, r++) {
            struct sbio_survey_row *row = &s->m.row[r];
            const struct sbio_survey_metric *m = &s->b.line[i].m[k];
            snprintf(row->workload, sizeof(row->workload), "%s", s->b.line[i].name);
            snprintf(row->job, sizeof(row->job), "%s", m->job);
            row->metric = m->metric;
            row->better = m->better;
            json_t *sets = json_object_get(s->doc[i], "settings"), *set;
            size_t j;
            json_array_foreach(sets, j, set)
            {
                /* The setting's name, "scheduler=NAME" (or NAME#2 for a scheduler given again),
                 * says its column. */
                const char *sched = json_string_value(json_object_get(set, "name"));
                sched = sched && !strncmp(sched, "scheduler=", 10) ? sched + 10 : NULL;
                json_t *v = doc_values(set, m), *x;
                double val[1024];
                size_t n = 0, q;
                json_array_foreach(v, q, x)
                {
                    if (json_is_number(x) && n < sizeof(val) / sizeof(val[0]))
                        val[n++] = json_number_value(x);
                }
                for (size_t c = 0; sched && c < s->m.ns; c++)
                    if (!strcmp(s->m.sched[c], sched) && sbio_survey_cell_set(&s->m, r, c, val, n))
                        return -ENOMEM;
            }
        }
    s->m.nrows = r;
    sbio_survey_matrix_compute(&s->m);
    return 0;
}

/* The environment of the first run measured: a run's result, or a script's first job's. */
static json_t *survey_env(const struct survey *s)
{
    for (size_t i = 0; i < s->b.n; i++) {
        json_t *sets = json_object_get(s->doc[i], "settings"), *set, *run;
        size_t j, k;
        json_array_foreach(sets, j, set) json_array_foreach(json_object_get(set, "runs"), k, run)
        {
            json_t *res = json_object_get(run, "result");
            json_t *env = json_object_get(res, "environment");
            if (!env)
                env = sbio_json_get(res, "phases.0.jobs.0.result.environment");
            if (json_is_object(env))
                return env;
        }
    }
    return NULL;
}

/* The lines above the matrix: the machine, its kernel, the device, its file system and its
 * settings as read back by the first run. */
static void survey_head(const struct survey *s, json_t *env)
{
    int w = s->mail ? SBIO_SURVEY_WIDTH : 0;
    char buf[1024], d1[32], d2[32];
    json_t *dev = sbio_json_get(env, "devices.0");
    snprintf(buf, sizeof(buf), "%s, %" JSON_INTEGER_FORMAT " CPUs, Linux %s",
             json_string_value(json_object_get(env, "hostname")) ?: "?",
             json_integer_value(json_object_get(env, "cpus")),
             json_string_value(json_object_get(env, "kernel")) ?: "?");
    fputc('\n', s->out);
    sbio_survey_wrap(s->out, "Machine: ", buf, w, 2);
    survey_where(s, buf, sizeof(buf));
    static const char *const knobs[] = {"rotational",  "read_ahead_kb", "max_sectors_kb",
                                        "nr_requests", "nomerges",      "wbt_lat_usec",
                                        "write_cache"};
    json_t *set = json_object_get(dev, "settings");
    for (size_t k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++) {
        json_t *v = json_object_get(set, knobs[k]);
        size_t n = strlen(buf);
        if (json_is_integer(v))
            snprintf(buf + n, sizeof(buf) - n, ", %s %" JSON_INTEGER_FORMAT, knobs[k],
                     json_integer_value(v));
        else if (json_is_string(v))
            snprintf(buf + n, sizeof(buf) - n, ", %s %s", knobs[k], json_string_value(v));
    }
    sbio_survey_wrap(s->out, "Device: ", buf, w, 2);
    fmt_dur(d1, sizeof(d1), s->plan.budget);
    fmt_dur(d2, sizeof(d2), since(s));
    snprintf(buf, sizeof(buf), "%s, took %s%s; schedulers %s", d1, d2,
             s->interrupted ? " (interrupted)" : "", s->list);
    sbio_survey_wrap(s->out, "Budget: ", buf, w, 2);
}

/* The sbio-survey/1 document: how it was planned, each workload (its compare's document
 * whole: every run's result and the settings read back), the matrix. */
static json_t *survey_json(const struct survey *s, json_t *env)
{
    const struct sbio_config *cfg = s->cfg;
    json_t *argv = json_array(), *lines = json_array();
    for (int i = 0; i < cfg->argc; i++)
        json_array_append_new(argv, json_string(cfg->argv[i]));
    for (size_t i = 0; i < s->b.n; i++) {
        const struct sbio_survey_line *l = &s->b.line[i];
        json_t *opts = json_array(), *mets = json_array();
        for (size_t k = 0; k < l->nopt; k++)
            json_array_append_new(opts, json_string(l->opt[k]));
        for (size_t k = 0; k < l->nm; k++)
            json_array_append_new(mets,
                                  json_pack("{s:o,s:s,s:s}", "job",
                                            l->m[k].job[0] ? json_string(l->m[k].job) : json_null(),
                                            "metric", sbio_table_metric_name(l->m[k].metric),
                                            "better", l->m[k].better > 0 ? "higher" : "lower"));
        json_array_append_new(
            lines, json_pack("{s:s,s:s,s:f,s:o,s:o,s:f,s:f,s:f,s:s,s:O}", "name", l->name, "script",
                             l->script, "seconds", l->seconds, "metrics", mets, "options", opts,
                             "least_s", s->plan.least[i], "share_s", s->share[i], "took_s",
                             s->took[i], "status", s->status[i] ? s->status[i] : "not run",
                             "compare", s->doc[i] ? s->doc[i] : json_null()));
    }
    json_t *d = json_pack("{s:s,s:s,s:o,s:s,s:s,s:f,s:f,s:f,s:b}", "schema", "sbio-survey/1",
                          "sbio_version", SBIO_VERSION, "command_line", argv, "battery", s->battery,
                          "device", s->t.dev[0].name, "budget_s", s->plan.budget, "least_s",
                          s->plan.least_total, "took_s", since(s), "interrupted", s->interrupted);
    json_object_set_new(d, "filename", cfg->filename ? json_string(cfg->filename) : json_null());
    json_object_set(d, "environment", env ? env : json_null());
    json_object_set_new(d, "workloads", lines);
    json_object_set_new(d, "matrix", sbio_survey_matrix_json(&s->m));
    return d;
}

/* Everything checked before anything is touched: the battery, the device and its
 * schedulers, the budget, the output's file. 0 or -SBIO_EUSAGE. */
static int survey_start(struct survey *s)
{
    int rc = survey_battery(s);
    if (!rc && s->cfg->filename)
        rc = survey_raw_battery(s);
    if (!rc)
        rc = survey_schedulers(s);
    if (!rc)
        rc = survey_plan(s);
    /* -o: opened now (never through another user's link), left as it is until the document
     * is written, so that a survey refused or killed does not empty a file that was there. */
    if (!rc && s->cfg->output) {
        char why[512];
        int fd =
            sbio_util_open_output(AT_FDCWD, s->cfg->output, SBIO_OUTPUT_LATER, why, sizeof(why));
        if (fd < 0 || !(s->json = sbio_util_stream_later(fd, "w", &s->json_err))) {
            sbio_err("-o %s: %s", s->cfg->output, fd < 0 ? why : strerror(errno));
            if (fd >= 0)
                close(fd);
            rc = -SBIO_EUSAGE;
        }
    }
    const char *t = getenv("TMPDIR");
    snprintf(s->tmp, sizeof(s->tmp), "%s/sbio-survey.XXXXXX", t && *t ? t : "/tmp");
    if (!rc && !(s->made_tmp = mkdtemp(s->tmp) != NULL)) {
        sbio_err("%s: %s", s->tmp, strerror(errno));
        rc = -SBIO_EFAILED;
    }
    return rc;
}

/* The temporary folder's files, and it (kept when a workload failed: its logs are there). */
static void survey_tidy(const struct survey *s)
{
    for (size_t i = 0; i < s->b.n; i++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof(p), "%s/%s.json", s->tmp, s->b.line[i].name);
        unlink(p);
        if (!s->kept_logs) {
            snprintf(p, sizeof(p), "%s/%s.log", s->tmp, s->b.line[i].name);
            unlink(p);
        }
    }
    if (!s->kept_logs)
        rmdir(s->tmp);
}

int sbio_survey(const struct sbio_config *cfg, FILE *out)
{
    struct survey *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    s->cfg = cfg;
    s->out = out;
    s->mail = cfg->survey_format == 1;
    s->t0 = sbio_now_ns();
    int rc = survey_start(s);
    if (!rc) {
        survey_print_plan(s);
        for (size_t i = 0; i < s->b.n && !s->interrupted && !sbio_stop_requested(); i++)
            line_run(s, i);
        s->interrupted |= sbio_stop_requested() != 0;
        rc = survey_rows(s);
    }
    if (!rc) {
        json_t *env = survey_env(s);
        survey_head(s, env);
        sbio_survey_print(&s->m, NULL, s->mail, out);
        if (s->json) {
            json_t *d = survey_json(s, env);
            int bad = sbio_report_json(s->json, d);
            if (fclose(s->json) || bad) {
                sbio_err("-o %s: %s", cfg->output, strerror(s->json_err ? s->json_err : EIO));
                s->failed = true;
            } else {
                fputc('\n', out);
                sbio_survey_wrap(out, "Every workload's runs and the matrix: ", cfg->output,
                                 s->mail ? SBIO_SURVEY_WIDTH : 0, 2);
            }
            s->json = NULL;
            json_decref(d);
        }
        rc = s->interrupted ? -EINTR : s->failed ? -SBIO_EFAILED : 0;
    }
    if (s->json)
        fclose(s->json);
    if (s->made_tmp)
        survey_tidy(s);
    for (size_t i = 0; i < SBIO_SURVEY_MAX_LINES; i++)
        json_decref(s->doc[i]);
    sbio_survey_matrix_free(&s->m);
    sbio_survey_battery_free(&s->b);
    free(s);
    return rc;
}
