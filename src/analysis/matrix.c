/* The survey's pure parts: the battery, the plan, the matrix and its statistics, the
 * difference of two surveys, and their text and JSON (matrix.h); the command is survey.c. */
#include "matrix.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "table.h"

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

/* A change as a cell's second line: "+15%", or "+15% [+5,+26]*" with its CI (* significant). */
static void fmt_change(char *buf, size_t len, double pct, double lo, double hi, bool sig)
{
    char a[32];
    fmt_pct(a, sizeof(a), pct);
    if (isnan(lo))
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%s [%+.0f,%+.0f]%s", a, lo, hi, sig ? "*" : "");
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
    fmt_change(l2, len, c->diff_pct, c->lo, c->hi, c->sig);
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
static void print_block(const struct grid *g, size_t s0, size_t s1, int w, bool mail, FILE *out)
{
    fprintf(out, "%*s", SURVEY_INDENT, "");
    for (size_t s = s0; s < s1; s++)
        put_col(out, g->names[s], w, s + 1 == s1);
    fputc('\n', out);
    for (size_t r = 0; r < g->nrows; r++) {
        char head[320], l1[SBIO_SURVEY_MAX_SCHEDS][64], l2[SBIO_SURVEY_MAX_SCHEDS][64];
        g->head(g->ctx, r, head, sizeof(head));
        sbio_survey_wrap(out, "", head, mail ? SBIO_SURVEY_WIDTH : 0, SURVEY_INDENT);
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
    size_t per = mail ? (size_t)((SBIO_SURVEY_WIDTH - SURVEY_INDENT) / w) : g->ns;
    per = per ? per : 1;
    for (size_t s0 = 0; s0 < g->ns; s0 += per) {
        fputc('\n', out);
        print_block(g, s0, s0 + per < g->ns ? s0 + per : g->ns, w, mail, out);
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
void sbio_survey_wrap(FILE *out, const char *prefix, const char *text, int width, int indent)
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
    sbio_survey_wrap(out, "", legend, mail ? SBIO_SURVEY_WIDTH : 0, 0);
    fputs("\nVerdicts:\n", out);
    for (size_t r = 0; r < m->nrows; r++) {
        char v[1024];
        sbio_survey_verdict(m, r, v, sizeof(v));
        sbio_survey_wrap(out, "- ", v, mail ? SBIO_SURVEY_WIDTH : 0, 2);
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
    fmt_change(l2, len, c->pct, c->lo, c->hi, c->sig);
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
    sbio_survey_wrap(out, "", legend, mail ? SBIO_SURVEY_WIDTH : 0, 0);
    fputs("\nSignificant changes:\n", out);
    size_t n = 0;
    for (size_t r = 0; r < d->nrows; r++)
        for (size_t k = 0; k < d->ns; k++) {
            const struct sbio_survey_change *c = &d->c[r][k];
            char label[160], v[512], pct[32], ci[64] = "";
            if (!c->sig)
                continue;
            const struct sbio_survey_row *row = &d->a->row[d->ra[r]];
            sbio_survey_row_label(row, label, sizeof(label));
            fmt_pct(pct, sizeof(pct), c->pct);
            if (!isnan(c->lo) && !isnan(c->hi))
                snprintf(ci, sizeof(ci), " [%+.0f%%, %+.0f%%]", c->lo, c->hi);
            snprintf(v, sizeof(v), "%s, %s, %s: %s%s in B, %s", row->workload, label, names[k], pct,
                     ci, c->worse ? "worse" : "better");
            sbio_survey_wrap(out, "- ", v, mail ? SBIO_SURVEY_WIDTH : 0, 2);
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
    if (!name || strcmp(name, m->sched[s]) || !json_is_array(vals) || n > 1024) {
        snprintf(err, len, "matrix.rows[%zu].cells[%zu] is not %s's cell with its values", r, s,
                 m->sched[s]);
        return -EINVAL;
    }
    double *x = malloc((n ? n : 1) * sizeof(*x));
    if (!x)
        return -ENOMEM;
    json_array_foreach(vals, i, v)
    {
        /* What a run measures: a rate, a size or a time, never below 0 nor past 1e15. */
        x[i] = json_is_number(v) ? json_number_value(v) : NAN;
        if (!(x[i] >= 0 && x[i] <= 1e15)) {
            snprintf(err, len,
                     "matrix.rows[%zu].cells[%zu].values[%zu] is not a figure sbio measures (a "
                     "number from 0 to 1e15)",
                     r, s, i);
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
        for (size_t t = 0; t < s; t++)
            if (!strcmp(m->sched[t], n)) {
                snprintf(err, len, "matrix.schedulers[%zu] is %s again (sbio names a repeat #2)", s,
                         n);
                return -EINVAL;
            }
    }
    int rc = 0;
    for (size_t r = 0; r < m->nrows && !rc; r++) {
        json_t *row = json_array_get(rows, r);
        rc = row_from_json(m, r, row, err, len);
        for (size_t q = 0; !rc && q < r; q++)
            if (!strcmp(m->row[q].workload, m->row[r].workload) &&
                !strcmp(m->row[q].job, m->row[r].job) && m->row[q].metric == m->row[r].metric) {
                snprintf(err, len,
                         "matrix.rows[%zu] repeats rows[%zu] (its workload, job and metric)", r, q);
                rc = -EINVAL;
            }
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
