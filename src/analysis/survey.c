#include "survey.h"

#include <ctype.h>
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

#include "infer.h"
#include "report.h"
#include "script.h"
#include "sysblock.h"
#include "table.h"
#include "util.h"
#include "version.h"

/* ---- the battery ---- */

/* Options a battery line may not give: the survey sets them for each workload (its folder,
 * its document, the schedulers, the repeats and their budget), or they reach beyond the
 * survey's folder (a raw device, another file of options, the script's sandbox): a battery is
 * a file like any other, never trusted to widen what the command line allowed. */
static const char *const refused_opts[] = {
    "dir",           "output",         "output-format",
    "schedulers",    "scheduler",      "vary",
    "repeat",        "metrics",        "max-compare-time",
    "script",        "script-trusted", "target-ci",
    "max-repeat",    "order",          "filename",
    "allow-destroy", "config-file",    "queue-device",
    "file-per-rank", "verbosity",
};

static int berr(char *err, size_t len, const char *path, unsigned ln, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int berr(char *err, size_t len, const char *path, unsigned ln, const char *fmt, ...)
{
    int k = snprintf(err, len, "%s:%u: ", path, ln);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < len)
        vsnprintf(err + k, len - (size_t)k, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static bool name_ok(const char *s, const char *extra)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
            return false;
    return true;
}

/* One METRICS item, "[JOB/]METRIC:higher|lower", into m. 0 or -EINVAL (err written). */
static int parse_metric(char *item, struct sbio_survey_metric *m, const char *path, unsigned ln,
                        char *err, size_t len)
{
    const char *use = "accepted: [JOB/]METRIC:higher|lower, METRIC one of --metrics' names "
                      "(e.g. read.p99:lower, writer/write.mib:higher)";
    char *colon = strrchr(item, ':');
    if (!colon)
        return berr(err, len, path, ln, "metric '%s' has no direction; %s", item, use);
    *colon = 0;
    const char *dir = colon + 1;
    m->better = !strcmp(dir, "higher") ? 1 : !strcmp(dir, "lower") ? -1 : 0;
    if (!m->better)
        return berr(err, len, path, ln, "metric '%s': direction '%s'; %s", item, dir, use);
    char *slash = strchr(item, '/');
    const char *name = item;
    if (slash) {
        *slash = 0;
        name = slash + 1;
        if (!name_ok(item, "._-") || strlen(item) >= sizeof(m->job))
            return berr(err, len, path, ln,
                        "metric's job '%s': accepted: a job's name "
                        "(letters, digits, '.', '_', '-', at most 63)",
                        item);
        snprintf(m->job, sizeof(m->job), "%s", item);
    }
    int idx = sbio_table_metric_index(name);
    if (idx < 0)
        return berr(err, len, path, ln, "no metric '%s'; %s", name, use);
    m->metric = (size_t)idx;
    return 0;
}

/* An OPTION word: --NAME=VALUE, NAME not one the survey sets. */
static int check_opt(const char *w, const char *path, unsigned ln, char *err, size_t len)
{
    const char *eq = strchr(w, '=');
    if (strncmp(w, "--", 2) || !eq || eq == w + 2 || !eq[1])
        return berr(err, len, path, ln, "'%s': accepted: options as --NAME=VALUE", w);
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)(eq - w - 2), w + 2);
    if (!name_ok(name, "-"))
        return berr(err, len, path, ln, "'%s': accepted: options as --NAME=VALUE", w);
    for (size_t i = 0; i < sizeof(refused_opts) / sizeof(refused_opts[0]); i++)
        if (!strcmp(name, refused_opts[i]))
            return berr(err, len, path, ln,
                        "--%s: the survey sets it (or it reaches beyond the survey's folder); "
                        "a line takes its workload's own options",
                        name);
    for (const char *p = eq + 1; *p; p++)
        if (iscntrl((unsigned char)*p))
            return berr(err, len, path, ln, "'%s': a control character in the value", w);
    return 0;
}

/* The words of one line (tokens split on blanks, NUL-terminated in place). */
static size_t split_words(char *s, char **w, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(s, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save))
        if (n < max)
            w[n++] = t;
        else
            return max + 1;
    return n;
}

static int parse_line(char *s, const char *path, unsigned ln, struct sbio_survey_battery *b,
                      char *err, size_t len)
{
    const char *use = "accepted: NAME SCRIPT SECONDS METRICS [--OPTION=VALUE ...]";
    char *w[4 + SBIO_SURVEY_MAX_OPTS];
    size_t n = split_words(s, w, sizeof(w) / sizeof(w[0]));
    if (n > sizeof(w) / sizeof(w[0]))
        return berr(err, len, path, ln, "more than %d options", SBIO_SURVEY_MAX_OPTS);
    if (n < 4)
        return berr(err, len, path, ln, "%zu word%s; %s", n, n == 1 ? "" : "s", use);
    if (b->n == SBIO_SURVEY_MAX_LINES)
        return berr(err, len, path, ln, "more than %d workloads", SBIO_SURVEY_MAX_LINES);
    struct sbio_survey_line *l = &b->line[b->n];
    if (!name_ok(w[0], "._-") || strlen(w[0]) >= sizeof(l->name))
        return berr(err, len, path, ln,
                    "name '%s': accepted: letters, digits, '.', '_', '-' "
                    "(at most 47)",
                    w[0]);
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->line[i].name, w[0]))
            return berr(err, len, path, ln, "name '%s' given twice (line %zu's)", w[0], i + 1);
    if (strlen(w[1]) >= sizeof(l->script) || !*w[1] || (w[1][0] == '-' && w[1][1]))
        return berr(err, len, path, ln,
                    "script '%s': accepted: a script's path or name, or "
                    "'-' for the built-in modes",
                    w[1]);
    char *end;
    errno = 0;
    double sec = strtod(w[2], &end);
    if (errno || *end || !(sec > 0 && sec <= 86400))
        return berr(err, len, path, ln,
                    "seconds '%s': accepted: a number above 0, at most "
                    "86400",
                    w[2]);
    snprintf(l->name, sizeof(l->name), "%s", w[0]);
    snprintf(l->script, sizeof(l->script), "%s", w[1]);
    l->seconds = sec;
    char *save = NULL;
    for (char *t = strtok_r(w[3], ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (l->nm == SBIO_SURVEY_MAX_METRICS)
            return berr(err, len, path, ln, "more than %d metrics", SBIO_SURVEY_MAX_METRICS);
        if (parse_metric(t, &l->m[l->nm++], path, ln, err, len))
            return -EINVAL;
    }
    for (size_t i = 4; i < n; i++) {
        if (check_opt(w[i], path, ln, err, len))
            return -EINVAL;
        if (!(l->opt[l->nopt++] = strdup(w[i])))
            return -ENOMEM;
    }
    b->nrows += l->nm;
    b->n++;
    return 0;
}

int sbio_survey_battery_parse(const char *text, const char *path, struct sbio_survey_battery *b,
                              char *err, size_t errlen)
{
    memset(b, 0, sizeof(*b));
    unsigned ln = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        ln++;
        char buf[4096];
        if (n >= sizeof(buf))
            return berr(err, errlen, path, ln, "line longer than %zu bytes", sizeof(buf) - 1);
        memcpy(buf, p, n);
        buf[n] = 0;
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        char *s = buf;
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        int rc = *s ? parse_line(s, path, ln, b, err, errlen) : 0;
        if (rc) {
            sbio_survey_battery_free(b);
            return rc;
        }
        p = nl ? nl + 1 : p + n;
    }
    if (!b->n)
        return berr(err, errlen, path, ln, "no workload; %s",
                    "accepted: lines NAME SCRIPT SECONDS METRICS [--OPTION=VALUE ...]");
    return 0;
}

void sbio_survey_battery_free(struct sbio_survey_battery *b)
{
    for (size_t i = 0; i < SBIO_SURVEY_MAX_LINES; i++)
        for (size_t k = 0; k < b->line[i].nopt; k++) {
            free(b->line[i].opt[k]);
            b->line[i].opt[k] = NULL;
        }
}

/* ---- the plan ---- */

int sbio_survey_parse_budget(const char *s, double *out)
{
    double total = 0;
    const char *p = s;
    char last = 0;
    if (!*s)
        return -EINVAL;
    while (*p) {
        if (!isdigit((unsigned char)*p))
            return -EINVAL;
        char *end;
        double v = strtod(p, &end);
        char u = *end;
        double mult = u == 'h' ? 3600 : u == 'm' ? 60 : u == 's' || !u ? 1 : 0;
        /* Units in falling order, each once: 1h30m, 2m30s. */
        if (!mult || (last && (!u || mult >= (last == 'h' ? 3600 : last == 'm' ? 60 : 1))))
            return -EINVAL;
        total += v * mult;
        last = u ? u : 's';
        p = u ? end + 1 : end;
    }
    if (!(total > 0 && total <= 7 * 86400.0))
        return -EINVAL;
    *out = total;
    return 0;
}

int sbio_survey_plan(const struct sbio_survey_battery *b, size_t nsched, double budget_s,
                     struct sbio_survey_plan *p)
{
    memset(p, 0, sizeof(*p));
    p->budget = budget_s;
    for (size_t i = 0; i < b->n; i++) {
        p->least[i] =
            (double)nsched * SBIO_SURVEY_MIN_RUNS * (b->line[i].seconds + SBIO_SURVEY_OVERHEAD_S);
        p->least_total += p->least[i];
    }
    for (size_t i = 0; i < b->n; i++) {
        double s = p->least_total > 0 ? budget_s * p->least[i] / p->least_total : 0;
        p->share[i] = s > p->least[i] ? s : p->least[i];
    }
    return p->least_total > budget_s ? -ERANGE : 0;
}

double sbio_survey_share(const struct sbio_survey_plan *p, size_t n, size_t i, double left_s)
{
    /* With every line before i at its share, what is left is shared among i.. as the plan
     * shares the whole budget among them all. */
    double rest = 0;
    for (size_t j = i; j < n; j++)
        rest += p->least[j];
    double s = rest > 0 ? left_s * p->least[i] / rest : 0;
    return s > p->least[i] ? s : p->least[i];
}

/* ---- the matrix ---- */

int sbio_survey_cell_set(struct sbio_survey_matrix *m, size_t r, size_t s, const double *v,
                         size_t n)
{
    struct sbio_survey_cell *c = &m->row[r].cell[s];
    free(c->val);
    c->val = NULL;
    c->n = 0;
    if (!n)
        return 0;
    if (!(c->val = malloc(n * sizeof(*v))))
        return -ENOMEM;
    memcpy(c->val, v, n * sizeof(*v));
    c->n = n;
    return 0;
}

void sbio_survey_matrix_free(struct sbio_survey_matrix *m)
{
    for (size_t r = 0; r < SBIO_SURVEY_MAX_ROWS; r++)
        for (size_t s = 0; s < SBIO_SURVEY_MAX_SCHEDS; s++) {
            free(m->row[r].cell[s].val);
            m->row[r].cell[s].val = NULL;
            m->row[r].cell[s].n = 0;
        }
}

/* Row r's cells' means, their CIs and the best of them (SIZE_MAX: none has a value). */
static void row_means(struct sbio_survey_row *row, size_t ns)
{
    row->best = SIZE_MAX;
    for (size_t s = 0; s < ns; s++) {
        struct sbio_survey_cell *c = &row->cell[s];
        c->mean = c->sd = c->half = c->diff_pct = c->lo = c->hi = NAN;
        c->p = c->p_holm = -1;
        c->best = c->sig = false;
        if (!c->n)
            continue;
        sbio_infer_mean_sd(c->val, c->n, &c->mean, &c->sd);
        c->half = sbio_infer_halfwidth(c->sd, c->n, 0.95);
        if (row->best == SIZE_MAX || (row->better > 0 ? c->mean > row->cell[row->best].mean
                                                      : c->mean < row->cell[row->best].mean))
            row->best = s;
    }
    if (row->best != SIZE_MAX)
        row->cell[row->best].best = true;
}

/* The index of the pair (a, b), a < b, among a row's ns * (ns - 1) / 2 pairs. */
static size_t pair_index(size_t a, size_t b, size_t ns)
{
    return a * ns - a * (a + 1) / 2 + (b - a - 1);
}

/* The family Holm corrects is every pair of schedulers of every row, not each cell against
 * its row's best alone: the best is picked as the extreme mean, and tests against it alone
 * find a difference between identical schedulers far more often than 5% of the time. A cell
 * is significant when its pair with the best is, after the correction over all pairs. */
void sbio_survey_matrix_compute(struct sbio_survey_matrix *m)
{
    enum { PAIRS = SBIO_SURVEY_MAX_SCHEDS * (SBIO_SURVEY_MAX_SCHEDS - 1) / 2 };
    double p[SBIO_SURVEY_MAX_ROWS * PAIRS], adj[SBIO_SURVEY_MAX_ROWS * PAIRS];
    size_t np = m->ns * (m->ns - 1) / 2;
    for (size_t r = 0; r < m->nrows; r++) {
        struct sbio_survey_row *row = &m->row[r];
        row_means(row, m->ns);
        for (size_t a = 0; a < m->ns; a++)
            for (size_t b = a + 1; b < m->ns; b++) {
                const struct sbio_survey_cell *x = &row->cell[a], *y = &row->cell[b];
                p[r * np + pair_index(a, b, m->ns)] =
                    x->n && y->n ? sbio_infer_ratio_p(x->mean, x->sd, x->n, y->mean, y->sd, y->n)
                                 : -1;
            }
    }
    m->ntests = sbio_infer_holm(p, m->nrows * np, adj);
    for (size_t r = 0; r < m->nrows; r++) {
        struct sbio_survey_row *row = &m->row[r];
        for (size_t s = 0; s < m->ns && row->best != SIZE_MAX; s++) {
            struct sbio_survey_cell *c = &row->cell[s], *b = &row->cell[row->best];
            if (!c->n || s == row->best) {
                c->diff_pct = c->n ? 0 : NAN;
                continue;
            }
            c->diff_pct = b->mean != 0 ? 100 * (c->mean / b->mean - 1) : NAN;
            if (sbio_infer_diff_ci(c->mean, c->sd, c->n, b->mean, b->sd, b->n, 0.95, &c->lo,
                                   &c->hi))
                c->lo = c->hi = NAN;
            size_t k = r * np + (s < row->best ? pair_index(s, row->best, m->ns)
                                               : pair_index(row->best, s, m->ns));
            c->p = p[k];
            c->p_holm = adj[k];
            c->sig = adj[k] >= 0 && adj[k] < 0.05;
        }
    }
}

/* Row r's label: "readers read p99" (the job, when the row names one, and the metric). */
void sbio_survey_row_label(const struct sbio_survey_row *row, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", row->job, row->job[0] ? " " : "",
             sbio_table_metric_header(row->metric));
}

/* "12x" or "35%": how far a from b (a further from 0 than b in the direction asked). */
static void fmt_far(char *buf, size_t len, double worse, double best, int better)
{
    double r = better > 0 ? best / worse : worse / best;
    if (!(r > 0) || isinf(r))
        snprintf(buf, len, "%s", better > 0 ? "higher" : "lower");
    else if (r >= 2)
        snprintf(buf, len, "%.*fx %s", r >= 10 ? 0 : 1, r, better > 0 ? "higher" : "lower");
    else
        snprintf(buf, len, "%.0f%% %s", fabs(better > 0 ? 100 * (r - 1) : 100 * (1 - 1 / r)),
                 better > 0 ? "higher" : "lower");
}

/* The names of the cells of row whose flag (sig or not) is `which`, "a, b and c". */
static size_t list_cells(const struct sbio_survey_matrix *m, const struct sbio_survey_row *row,
                         bool which, char *buf, size_t len)
{
    size_t n = 0, total = 0;
    for (size_t s = 0; s < m->ns; s++)
        total += row->cell[s].n && row->cell[s].sig == which;
    buf[0] = 0;
    for (size_t s = 0; s < m->ns; s++) {
        if (!row->cell[s].n || row->cell[s].sig != which)
            continue;
        size_t k = strlen(buf);
        snprintf(buf + k, len - k, "%s%s",
                 n == 0           ? ""
                 : n + 1 == total ? " and "
                                  : ", ",
                 m->sched[s]);
        n++;
    }
    return n;
}

void sbio_survey_verdict(const struct sbio_survey_matrix *m, size_t r, char *buf, size_t len)
{
    const struct sbio_survey_row *row = &m->row[r];
    char label[160], same[256], worse[256];
    sbio_survey_row_label(row, label, sizeof(label));
    if (row->best == SIZE_MAX) {
        snprintf(buf, len, "%s, %s: no figures", row->workload, label);
        return;
    }
    size_t nsame = list_cells(m, row, false, same, sizeof(same));
    size_t nworse = list_cells(m, row, true, worse, sizeof(worse));
    if (!nworse) {
        snprintf(buf, len, "%s, %s: %s", row->workload, label,
                 nsame > 1 ? "no significant difference between " : "only ");
        size_t k = strlen(buf);
        snprintf(buf + k, len - k, "%s", same);
        return;
    }
    /* The nearest of the worse ones: how far the best is from it at least. */
    size_t near = SIZE_MAX;
    for (size_t s = 0; s < m->ns; s++)
        if (row->cell[s].n && row->cell[s].sig &&
            (near == SIZE_MAX || fabs(row->cell[s].diff_pct) < fabs(row->cell[near].diff_pct)))
            near = s;
    char far[48];
    fmt_far(far, sizeof(far), row->cell[near].mean, row->cell[row->best].mean, row->better);
    snprintf(buf, len, "%s, %s: %s best%s, %s than %s%s%s", row->workload, label, same,
             nsame > 1 ? " (no significant difference between them)" : "", far, m->sched[near],
             nworse > 1 ? " (the nearest of " : "", nworse > 1 ? worse : "");
    if (nworse > 1) {
        size_t k = strlen(buf);
        snprintf(buf + k, len - k, ")");
    }
}

/* ---- text ---- */

/* A row's unit as its cells show it, and the divisor from the JSON's unit: durations in the
 * unit that fits the row's best mean. */
const char *sbio_survey_row_unit(const struct sbio_survey_row *row, double *div)
{
    const char *u = sbio_table_metric_unit(row->metric);
    *div = 1;
    if (strcmp(u, "ns") || row->best == SIZE_MAX)
        return u;
    double v = row->cell[row->best].mean;
    static const struct {
        double div;
        const char *name;
    } scale[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    for (size_t i = 0; i < sizeof(scale) / sizeof(scale[0]); i++)
        if (v >= scale[i].div || scale[i].div == 1) {
            *div = scale[i].div;
            return scale[i].name;
        }
    return u;
}

/* A number in three significant digits or so. */
static void fmt_num(char *buf, size_t len, double v)
{
    double a = fabs(v);
    snprintf(buf, len, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
}

static void fmt_pct(char *buf, size_t len, double v)
{
    snprintf(buf, len, fabs(v) >= 10 ? "%+.0f%%" : "%+.1f%%", v);
}

/* Cell's two lines: "3.38 ± 0.41" and "best", or "+15% [+5,+26]*" (*: significant). */
static void fmt_cell(const struct sbio_survey_cell *c, double div, char *l1, char *l2, size_t len)
{
    char a[32], b[32];
    l1[0] = l2[0] = 0;
    if (!c->n) {
        snprintf(l1, len, "-");
        return;
    }
    fmt_num(a, sizeof(a), c->mean / div);
    fmt_num(b, sizeof(b), c->half / div);
    snprintf(l1, len, isnan(c->half) ? "%s" : "%s ± %s", a, b);
    if (c->best) {
        snprintf(l2, len, "best");
        return;
    }
    if (isnan(c->diff_pct))
        return;
    fmt_pct(a, sizeof(a), c->diff_pct);
    if (isnan(c->lo))
        snprintf(l2, len, "%s", a);
    else
        snprintf(l2, len, "%s [%+.0f,%+.0f]%s", a, c->lo, c->hi, c->sig ? "*" : "");
}

static int text_cols(const char *s);

/* Print s padded to w display columns (none after the last). */
static void put_col(FILE *out, const char *s, int w, bool last)
{
    int cols = text_cols(s);
    fputs(s, out);
    for (; !last && cols < w; cols++)
        fputc(' ', out);
}

#define SURVEY_INDENT 4
#define SURVEY_COL    17
#define SURVEY_WIDTH  72

/* Display columns of s (the "±" is two bytes, one column). */
static int text_cols(const char *s)
{
    int cols = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        cols += (*p & 0xc0) != 0x80;
    return cols;
}

/* A table of rows × schedulers as the survey prints it: a heading line per row, then up to
 * two lines of cells, a column per scheduler. The matrix and the difference of two surveys
 * fill it through these. */
struct grid {
    const void *ctx;
    size_t nrows, ns;
    const char *const *names; /* the columns' headings */
    void (*head)(const void *ctx, size_t r, char *buf, size_t len);
    void (*cell)(const void *ctx, size_t r, size_t s, char *l1, char *l2, size_t len);
};

/* The columns' width: SURVEY_COL, or the widest cell's text and a space. */
static int col_width(const struct grid *g)
{
    int w = SURVEY_COL;
    for (size_t r = 0; r < g->nrows; r++)
        for (size_t s = 0; s < g->ns; s++) {
            char l1[64], l2[64];
            g->cell(g->ctx, r, s, l1, l2, sizeof(l1));
            int c = (text_cols(l1) > text_cols(l2) ? text_cols(l1) : text_cols(l2)) + 1;
            w = c > w ? c : w;
        }
    for (size_t s = 0; s < g->ns; s++) {
        int c = text_cols(g->names[s]) + 1;
        w = c > w ? c : w;
    }
    return w;
}

/* Columns s0..s1 of every row, each w wide. */
static void print_block(const struct grid *g, size_t s0, size_t s1, int w, FILE *out)
{
    fprintf(out, "%*s", SURVEY_INDENT, "");
    for (size_t s = s0; s < s1; s++)
        put_col(out, g->names[s], w, s + 1 == s1);
    fputc('\n', out);
    for (size_t r = 0; r < g->nrows; r++) {
        char head[320], l1[SBIO_SURVEY_MAX_SCHEDS][64], l2[SBIO_SURVEY_MAX_SCHEDS][64];
        g->head(g->ctx, r, head, sizeof(head));
        fprintf(out, "%s\n", head);
        for (size_t s = s0; s < s1; s++)
            g->cell(g->ctx, r, s, l1[s], l2[s], sizeof(l1[s]));
        for (int line = 0; line < 2; line++) {
            bool any = false;
            for (size_t s = s0; s < s1; s++)
                any |= (line ? l2[s] : l1[s])[0] != 0;
            if (!any)
                continue;
            fprintf(out, "%*s", SURVEY_INDENT, "");
            for (size_t s = s0; s < s1; s++)
                put_col(out, line ? l2[s] : l1[s], w, s + 1 == s1);
            fputc('\n', out);
        }
    }
}

/* The grid in blocks of as many columns as fit in 72 (mail), else in one. */
static void print_grid(const struct grid *g, bool mail, FILE *out)
{
    int w = col_width(g);
    size_t per = mail ? (size_t)((SURVEY_WIDTH - SURVEY_INDENT) / w) : g->ns;
    per = per ? per : 1;
    for (size_t s0 = 0; s0 < g->ns; s0 += per) {
        fputc('\n', out);
        print_block(g, s0, s0 + per < g->ns ? s0 + per : g->ns, w, out);
    }
}

/* A row's heading: "seq-read: read MiB/s (higher is better)", the unit added unless the
 * metric's header says it ("write MiB/s"). */
static void row_head(const struct sbio_survey_row *row, char *buf, size_t len)
{
    char label[160];
    double div;
    const char *unit = sbio_survey_row_unit(row, &div);
    sbio_survey_row_label(row, label, sizeof(label));
    size_t hl = strlen(label), ul = strlen(unit);
    bool said = (hl >= ul && !strcmp(label + hl - ul, unit)) ||
                (!strcmp(unit, "ops/s") && hl > 2 && !strcmp(label + hl - 2, "/s"));
    snprintf(buf, len, "%s: %s%s%s (%s is better)", row->workload, label, said ? "" : ", ",
             said ? "" : unit, row->better > 0 ? "higher" : "lower");
}

static void matrix_head(const void *ctx, size_t r, char *buf, size_t len)
{
    row_head(&((const struct sbio_survey_matrix *)ctx)->row[r], buf, len);
}

static void matrix_cell(const void *ctx, size_t r, size_t s, char *l1, char *l2, size_t len)
{
    const struct sbio_survey_row *row = &((const struct sbio_survey_matrix *)ctx)->row[r];
    double div;
    sbio_survey_row_unit(row, &div);
    fmt_cell(&row->cell[s], div, l1, l2, len);
}

/* text, wrapped at width (0: not) after a first line's prefix, the next lines indented. */
static void print_wrapped(FILE *out, const char *prefix, const char *text, int width, int indent)
{
    int col = fprintf(out, "%s", prefix);
    const char *p = text;
    int gap = 0; /* the spaces before this word, kept unless the line breaks there */
    while (*p) {
        const char *sp = strchr(p, ' ');
        int n = sp ? (int)(sp - p) : (int)strlen(p);
        if (width && col > indent && col + gap + n > width)
            col = fprintf(out, "\n%*s", indent, "") - 1;
        else
            col += fprintf(out, "%*s", gap, "");
        col += fprintf(out, "%.*s", n, p);
        p += n;
        for (gap = 0; *p == ' '; p++)
            gap++;
    }
    fputc('\n', out);
}

void sbio_survey_print(const struct sbio_survey_matrix *m, const char *head, bool mail, FILE *out)
{
    if (head)
        fputs(head, out);
    const char *names[SBIO_SURVEY_MAX_SCHEDS];
    for (size_t i = 0; i < m->ns; i++)
        names[i] = m->sched[i];
    struct grid g = {m, m->nrows, m->ns, names, matrix_head, matrix_cell};
    print_grid(&g, mail, out);
    size_t nmin = SIZE_MAX, nmax = 0;
    for (size_t r = 0; r < m->nrows; r++)
        for (size_t s = 0; s < m->ns; s++) {
            size_t n = m->row[r].cell[s].n;
            nmin = n && n < nmin ? n : nmin;
            nmax = n > nmax ? n : nmax;
        }
    char legend[512], runs[48];
    nmin = nmin == SIZE_MAX ? 0 : nmin;
    snprintf(runs, sizeof(runs), nmin == nmax ? "%zu" : "%zu to %zu", nmin, nmax);
    snprintf(legend, sizeof(legend),
             "Each cell: the mean ± the half-width of its 95%% confidence interval over "
             "%s runs; below it the difference to the row's best mean [its 95%% CI, "
             "%%]; * significant at 5%% after Holm-Bonferroni over the %zu tests of the "
             "matrix (Welch's t-test of the log ratio of the means).",
             runs, m->ntests);
    fputc('\n', out);
    print_wrapped(out, "", legend, mail ? SURVEY_WIDTH : 0, 0);
    fputs("\nVerdicts:\n", out);
    for (size_t r = 0; r < m->nrows; r++) {
        char v[1024];
        sbio_survey_verdict(m, r, v, sizeof(v));
        print_wrapped(out, "- ", v, mail ? SURVEY_WIDTH : 0, 2);
    }
}

/* ---- two surveys ---- */

static json_t *num_or_null(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/* Row r of B's matrix with a's row's workload, job and metric, or SIZE_MAX. */
static size_t find_row(const struct sbio_survey_matrix *m, const struct sbio_survey_row *a)
{
    for (size_t r = 0; r < m->nrows; r++)
        if (!strcmp(m->row[r].workload, a->workload) && !strcmp(m->row[r].job, a->job) &&
            m->row[r].metric == a->metric)
            return r;
    return SIZE_MAX;
}

static size_t find_sched(const struct sbio_survey_matrix *m, const char *name)
{
    for (size_t s = 0; s < m->ns; s++)
        if (!strcmp(m->sched[s], name))
            return s;
    return SIZE_MAX;
}

/* Cell (r, s) of the difference: A's and B's cells, B's change from A. */
static void change_compute(struct sbio_survey_change *c)
{
    const struct sbio_survey_cell *a = c->a, *b = c->b;
    c->pct = c->lo = c->hi = NAN;
    c->p = c->p_holm = -1;
    if (!a->n || !b->n)
        return;
    c->pct = a->mean != 0 ? 100 * (b->mean / a->mean - 1) : NAN;
    if (a->n >= 2 && b->n >= 2) {
        if (sbio_infer_diff_ci(b->mean, b->sd, b->n, a->mean, a->sd, a->n, 0.95, &c->lo, &c->hi))
            c->lo = c->hi = NAN;
        c->p = sbio_infer_ratio_p(b->mean, b->sd, b->n, a->mean, a->sd, a->n);
    }
}

int sbio_survey_diff_compute(const struct sbio_survey_matrix *a, const struct sbio_survey_matrix *b,
                             struct sbio_survey_diff *d)
{
    memset(d, 0, sizeof(*d));
    d->a = a;
    d->b = b;
    for (size_t s = 0; s < a->ns; s++)
        if (find_sched(b, a->sched[s]) != SIZE_MAX)
            d->sa[d->ns++] = s;
    for (size_t r = 0; r < a->nrows; r++) {
        size_t rb = find_row(b, &a->row[r]);
        if (rb == SIZE_MAX)
            continue;
        d->ra[d->nrows] = r;
        d->rb[d->nrows] = rb;
        for (size_t k = 0; k < d->ns; k++) {
            struct sbio_survey_change *c = &d->c[d->nrows][k];
            c->a = &a->row[r].cell[d->sa[k]];
            c->b = &b->row[rb].cell[find_sched(b, a->sched[d->sa[k]])];
            change_compute(c);
        }
        d->nrows++;
    }
    double p[SBIO_SURVEY_MAX_ROWS * SBIO_SURVEY_MAX_SCHEDS], adj[sizeof(p) / sizeof(p[0])];
    for (size_t r = 0; r < d->nrows; r++)
        for (size_t k = 0; k < d->ns; k++)
            p[r * d->ns + k] = d->c[r][k].p;
    d->ntests = sbio_infer_holm(p, d->nrows * d->ns, adj);
    for (size_t r = 0; r < d->nrows; r++)
        for (size_t k = 0; k < d->ns; k++) {
            struct sbio_survey_change *c = &d->c[r][k];
            c->p_holm = adj[r * d->ns + k];
            c->sig = c->p_holm >= 0 && c->p_holm < 0.05;
            c->worse = !isnan(c->pct) && (a->row[d->ra[r]].better > 0 ? c->pct < 0 : c->pct > 0);
        }
    return d->nrows && d->ns ? 0 : -ENOENT;
}

static void diff_head(const void *ctx, size_t r, char *buf, size_t len)
{
    const struct sbio_survey_diff *d = ctx;
    row_head(&d->a->row[d->ra[r]], buf, len);
}

/* "1170 -> 1102" (the row's unit, as A shows it) and "-5.8% [-12,+1]*". */
static void diff_cell(const void *ctx, size_t r, size_t k, char *l1, char *l2, size_t len)
{
    const struct sbio_survey_diff *d = ctx;
    const struct sbio_survey_change *c = &d->c[r][k];
    char x[32] = "-", y[32] = "-";
    double div;
    sbio_survey_row_unit(&d->a->row[d->ra[r]], &div);
    if (c->a->n)
        fmt_num(x, sizeof(x), c->a->mean / div);
    if (c->b->n)
        fmt_num(y, sizeof(y), c->b->mean / div);
    snprintf(l1, len, "%s -> %s", x, y);
    l2[0] = 0;
    if (isnan(c->pct))
        return;
    fmt_pct(x, sizeof(x), c->pct);
    if (isnan(c->lo))
        snprintf(l2, len, "%s", x);
    else
        snprintf(l2, len, "%s [%+.0f,%+.0f]%s", x, c->lo, c->hi, c->sig ? "*" : "");
}

void sbio_survey_diff_print(const struct sbio_survey_diff *d, bool mail, FILE *out)
{
    const char *names[SBIO_SURVEY_MAX_SCHEDS];
    for (size_t k = 0; k < d->ns; k++)
        names[k] = d->a->sched[d->sa[k]];
    struct grid g = {d, d->nrows, d->ns, names, diff_head, diff_cell};
    print_grid(&g, mail, out);
    char legend[512];
    snprintf(legend, sizeof(legend),
             "Each cell: A's mean -> B's mean; below it B's change from A [its 95%% CI, %%]; "
             "* significant at 5%% after Holm-Bonferroni over the %zu tests of the table "
             "(Welch's t-test of the log ratio of the means).",
             d->ntests);
    fputc('\n', out);
    print_wrapped(out, "", legend, mail ? SURVEY_WIDTH : 0, 0);
    fputs("\nSignificant changes:\n", out);
    size_t n = 0;
    for (size_t r = 0; r < d->nrows; r++)
        for (size_t k = 0; k < d->ns; k++) {
            const struct sbio_survey_change *c = &d->c[r][k];
            char label[160], v[512], pct[32];
            if (!c->sig)
                continue;
            const struct sbio_survey_row *row = &d->a->row[d->ra[r]];
            sbio_survey_row_label(row, label, sizeof(label));
            fmt_pct(pct, sizeof(pct), c->pct);
            snprintf(v, sizeof(v), "%s, %s, %s: %s [%+.0f%%, %+.0f%%] in B, %s", row->workload,
                     label, names[k], pct, c->lo, c->hi, c->worse ? "worse" : "better");
            print_wrapped(out, "- ", v, mail ? SURVEY_WIDTH : 0, 2);
            n++;
        }
    if (!n)
        fputs("- none\n", out);
}

json_t *sbio_survey_diff_json(const struct sbio_survey_diff *d)
{
    json_t *rows = json_array();
    for (size_t r = 0; r < d->nrows; r++) {
        const struct sbio_survey_row *row = &d->a->row[d->ra[r]];
        json_t *cells = json_array();
        for (size_t k = 0; k < d->ns; k++) {
            const struct sbio_survey_change *c = &d->c[r][k];
            json_t *j = json_pack(
                "{s:s,s:I,s:o,s:I,s:o,s:o}", "scheduler", d->a->sched[d->sa[k]], "a_n",
                (json_int_t)c->a->n, "a_mean", num_or_null(c->a->n ? c->a->mean : NAN), "b_n",
                (json_int_t)c->b->n, "b_mean", num_or_null(c->b->n ? c->b->mean : NAN),
                "change_pct", num_or_null(c->pct));
            json_object_set_new(j, "change_ci95_pct",
                                isnan(c->lo) ? json_null() : json_pack("[f,f]", c->lo, c->hi));
            json_object_set_new(j, "p", c->p < 0 ? json_null() : json_real(c->p));
            json_object_set_new(j, "p_holm", c->p_holm < 0 ? json_null() : json_real(c->p_holm));
            json_object_set_new(j, "significant", json_boolean(c->sig));
            json_object_set_new(j, "worse", json_boolean(c->worse));
            json_array_append_new(cells, j);
        }
        json_array_append_new(rows,
                              json_pack("{s:s,s:o,s:s,s:s,s:s,s:o}", "workload", row->workload,
                                        "job", row->job[0] ? json_string(row->job) : json_null(),
                                        "metric", sbio_table_metric_name(row->metric), "unit",
                                        sbio_table_metric_unit(row->metric), "better",
                                        row->better > 0 ? "higher" : "lower", "cells", cells));
    }
    return json_pack("{s:I,s:f,s:o}", "tests", (json_int_t)d->ntests, "alpha", 0.05, "rows", rows);
}

/* ---- JSON ---- */

static json_t *cell_json(const struct sbio_survey_matrix *m, const struct sbio_survey_cell *c,
                         size_t s)
{
    json_t *vals = json_array();
    for (size_t i = 0; i < c->n; i++)
        json_array_append_new(vals, json_real(c->val[i]));
    json_t *j = json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:b}", "scheduler", m->sched[s], "n",
                          (json_int_t)c->n, "values", vals, "mean", num_or_null(c->mean), "stddev",
                          num_or_null(c->sd), "ci95_half", num_or_null(c->half), "best", c->best);
    json_object_set_new(j, "diff_pct", num_or_null(c->diff_pct));
    json_object_set_new(j, "diff_ci95_pct",
                        isnan(c->lo) ? json_null() : json_pack("[f,f]", c->lo, c->hi));
    json_object_set_new(j, "p", c->p < 0 ? json_null() : json_real(c->p));
    json_object_set_new(j, "p_holm", c->p_holm < 0 ? json_null() : json_real(c->p_holm));
    json_object_set_new(j, "significant", json_boolean(c->sig));
    return j;
}

json_t *sbio_survey_matrix_json(const struct sbio_survey_matrix *m)
{
    json_t *rows = json_array(), *sched = json_array();
    for (size_t s = 0; s < m->ns; s++)
        json_array_append_new(sched, json_string(m->sched[s]));
    for (size_t r = 0; r < m->nrows; r++) {
        const struct sbio_survey_row *row = &m->row[r];
        json_t *cells = json_array();
        for (size_t s = 0; s < m->ns; s++)
            json_array_append_new(cells, cell_json(m, &row->cell[s], s));
        char v[1024];
        sbio_survey_verdict(m, r, v, sizeof(v));
        json_array_append_new(
            rows, json_pack("{s:s,s:o,s:s,s:s,s:s,s:o,s:s}", "workload", row->workload, "job",
                            row->job[0] ? json_string(row->job) : json_null(), "metric",
                            sbio_table_metric_name(row->metric), "unit",
                            sbio_table_metric_unit(row->metric), "better",
                            row->better > 0 ? "higher" : "lower", "cells", cells, "verdict", v));
    }
    return json_pack("{s:o,s:I,s:f,s:o}", "schedulers", sched, "tests", (json_int_t)m->ntests,
                     "alpha", 0.05, "rows", rows);
}

/* A string field of o: the text, or NULL when absent, not a string, or longer than max - 1. */
static const char *doc_str(json_t *o, const char *key, size_t max)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v && strlen(v) < max ? v : NULL;
}

/* Row r's fields from its JSON (the cells' values set by the caller). 0 or -EINVAL (err). */
static int row_from_json(struct sbio_survey_matrix *m, size_t r, json_t *row, char *err, size_t len)
{
    struct sbio_survey_row *o = &m->row[r];
    const char *w = doc_str(row, "workload", sizeof(o->workload));
    const char *met = json_string_value(json_object_get(row, "metric"));
    const char *bet = json_string_value(json_object_get(row, "better"));
    json_t *job = json_object_get(row, "job");
    int idx = met ? sbio_table_metric_index(met) : -1;
    const char *bad = !w                                                           ? "workload"
                      : idx < 0                                                    ? "metric"
                      : !bet || (strcmp(bet, "higher") && strcmp(bet, "lower"))    ? "better"
                      : !json_is_null(job) && !doc_str(row, "job", sizeof(o->job)) ? "job"
                      : json_array_size(json_object_get(row, "cells")) != m->ns    ? "cells"
                                                                                   : NULL;
    if (bad) {
        snprintf(err, len, "matrix.rows[%zu].%s is not what sbio writes there", r, bad);
        return -EINVAL;
    }
    snprintf(o->workload, sizeof(o->workload), "%s", w);
    snprintf(o->job, sizeof(o->job), "%s", json_is_null(job) ? "" : json_string_value(job));
    o->metric = (size_t)idx;
    o->better = !strcmp(bet, "higher") ? 1 : -1;
    return 0;
}

/* Cell s of row r from its JSON: its scheduler's name must be the matrix's, its values finite
 * numbers. 0, -EINVAL (err) or -ENOMEM. */
static int cell_from_json(struct sbio_survey_matrix *m, size_t r, size_t s, json_t *cell, char *err,
                          size_t len)
{
    json_t *vals = json_object_get(cell, "values"), *v;
    const char *name = json_string_value(json_object_get(cell, "scheduler"));
    size_t n = json_array_size(vals), i;
    if (!name || strcmp(name, m->sched[s]) || !json_is_array(vals) || n > 100000) {
        snprintf(err, len, "matrix.rows[%zu].cells[%zu] is not %s's cell with its values", r, s,
                 m->sched[s]);
        return -EINVAL;
    }
    double *x = malloc((n ? n : 1) * sizeof(*x));
    if (!x)
        return -ENOMEM;
    json_array_foreach(vals, i, v)
    {
        x[i] = json_is_number(v) ? json_number_value(v) : NAN;
        if (!isfinite(x[i])) {
            snprintf(err, len, "matrix.rows[%zu].cells[%zu].values[%zu] is not a number", r, s, i);
            free(x);
            return -EINVAL;
        }
    }
    int rc = sbio_survey_cell_set(m, r, s, x, n);
    free(x);
    return rc;
}

int sbio_survey_matrix_from_json(json_t *doc, struct sbio_survey_matrix *m, char *err, size_t len)
{
    json_t *mat = json_object_get(doc, "matrix");
    json_t *sched = json_object_get(mat, "schedulers"), *rows = json_object_get(mat, "rows");
    memset(m, 0, sizeof(*m));
    m->ns = json_array_size(sched);
    m->nrows = json_array_size(rows);
    if (!json_is_array(sched) || !m->ns || m->ns > SBIO_SURVEY_MAX_SCHEDS || !json_is_array(rows) ||
        m->nrows > SBIO_SURVEY_MAX_ROWS) {
        snprintf(err, len,
                 "matrix.schedulers (1 to %d names) or matrix.rows (at most %d) is not what sbio "
                 "writes there",
                 SBIO_SURVEY_MAX_SCHEDS, SBIO_SURVEY_MAX_ROWS);
        m->ns = m->nrows = 0;
        return -EINVAL;
    }
    for (size_t s = 0; s < m->ns; s++) {
        const char *n = json_string_value(json_array_get(sched, s));
        if (!n || !*n || strlen(n) >= sizeof(m->sched[s])) {
            snprintf(err, len, "matrix.schedulers[%zu] is not a scheduler's name", s);
            return -EINVAL;
        }
        snprintf(m->sched[s], sizeof(m->sched[s]), "%s", n);
    }
    int rc = 0;
    for (size_t r = 0; r < m->nrows && !rc; r++) {
        json_t *row = json_array_get(rows, r);
        rc = row_from_json(m, r, row, err, len);
        for (size_t s = 0; s < m->ns && !rc; s++)
            rc =
                cell_from_json(m, r, s, json_array_get(json_object_get(row, "cells"), s), err, len);
    }
    if (rc) {
        sbio_survey_matrix_free(m);
        return rc;
    }
    sbio_survey_matrix_compute(m);
    return 0;
}

/* ---- the command ---- */

struct survey {
    const struct sbio_config *cfg;
    FILE *out, *json;
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
    int w = s->mail ? SURVEY_WIDTH : 0;
    char where[900];
    survey_where(s, where, sizeof(where));
    snprintf(line, sizeof(line), "of %s: %zu schedulers (%s), %zu workloads of %s", where, s->m.ns,
             s->list, s->b.n, s->battery);
    print_wrapped(s->out, "Survey ", line, w, 2);
    snprintf(line, sizeof(line),
             "%s (at least %s: each workload %d runs per scheduler); the "
             "plan:",
             b, l, SBIO_SURVEY_MIN_RUNS);
    print_wrapped(s->out, "Budget ", line, w, 2);
    for (size_t i = 0; i < s->b.n; i++) {
        fmt_dur(b, sizeof(b), s->plan.share[i]);
        fmt_dur(l, sizeof(l), s->plan.least[i]);
        snprintf(line, sizeof(line), "%-18s %-18s about %s (at least %s)", s->b.line[i].name,
                 strcmp(s->b.line[i].script, "-") ? s->b.line[i].script : "(built-in modes)", b, l);
        print_wrapped(s->out, "  ", line, w, 4);
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
    bool passed = false;
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
        print_wrapped(s->out, pre, line, s->mail ? SURVEY_WIDTH : 0, 2);
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
    print_wrapped(s->out, pre, line, s->mail ? SURVEY_WIDTH : 0, 2);
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
    int w = s->mail ? SURVEY_WIDTH : 0;
    char buf[1024], d1[32], d2[32];
    json_t *dev = sbio_json_get(env, "devices.0");
    snprintf(buf, sizeof(buf), "%s, %" JSON_INTEGER_FORMAT " CPUs, Linux %s",
             json_string_value(json_object_get(env, "hostname")) ?: "?",
             json_integer_value(json_object_get(env, "cpus")),
             json_string_value(json_object_get(env, "kernel")) ?: "?");
    fputc('\n', s->out);
    print_wrapped(s->out, "Machine: ", buf, w, 2);
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
    print_wrapped(s->out, "Device: ", buf, w, 2);
    fmt_dur(d1, sizeof(d1), s->plan.budget);
    fmt_dur(d2, sizeof(d2), since(s));
    snprintf(buf, sizeof(buf), "%s, took %s%s; schedulers %s", d1, d2,
             s->interrupted ? " (interrupted)" : "", s->list);
    print_wrapped(s->out, "Budget: ", buf, w, 2);
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
    if (!rc && s->cfg->output && !(s->json = fopen(s->cfg->output, "w"))) {
        sbio_err("-o %s: %s", s->cfg->output, strerror(errno));
        rc = -SBIO_EUSAGE;
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
            if (sbio_report_json(s->json, d) || fclose(s->json)) {
                sbio_err("-o %s: %s", cfg->output, strerror(errno));
                s->failed = true;
            } else {
                fputc('\n', out);
                print_wrapped(out, "Every workload's runs and the matrix: ", cfg->output,
                              s->mail ? SURVEY_WIDTH : 0, 2);
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
