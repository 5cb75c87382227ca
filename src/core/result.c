#include "result.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *sbio_error_kind_name(int kind)
{
    return kind == SBIO_ERROR_SCRIPT ? "script" : "io";
}

void sbio_run_result_free(struct sbio_run_result *res)
{
    free(res->per_thread);
    res->per_thread = NULL;
    free(res->samples);
    res->samples = NULL;
    free(res->ranks);
    res->ranks = NULL;
    free(res->rank_host);
    res->rank_host = NULL;
    res->nranks = 0;
}

bool sbio_result_host_first(const struct sbio_run_result *res, unsigned r)
{
    for (unsigned q = 0; q < r; q++)
        if (!strcmp(res->rank_host[q], res->rank_host[r]))
            return false;
    return true;
}

unsigned sbio_result_hosts(const struct sbio_run_result *res)
{
    unsigned n = 0;
    for (unsigned r = 0; r < res->nranks; r++)
        n += sbio_result_host_first(res, r);
    return n;
}

/* Rank r's probe figures for a probe's report, when r is its host's first rank. */
static const struct sbio_probe_figs *result_rank(const void *ctx, unsigned r, double *secs,
                                                 const char **host)
{
    const struct sbio_run_result *res = ctx;
    if (!sbio_result_host_first(res, r))
        return NULL;
    *secs = (double)res->ranks[r].elapsed_ns / 1e9;
    *host = res->rank_host[r];
    return &res->ranks[r].probe;
}

static struct sbio_probe_run result_probe_run(const struct sbio_run_result *res)
{
    return (struct sbio_probe_run){.secs = (double)res->elapsed_ns / 1e9,
                                   .total = &res->total,
                                   .nranks = res->nranks,
                                   .rank = result_rank,
                                   .ctx = res};
}

void sbio_result_probe_text(FILE *out, const struct sbio_run_result *res, enum sbio_probe_id id)
{
    struct sbio_probe_run run = result_probe_run(res);
    sbio_probe_text(out, &res->probe, &run, id);
}

void sbio_result_probe_json(struct json_t *obj, const struct sbio_run_result *res,
                            enum sbio_probe_id id)
{
    struct sbio_probe_run run = result_probe_run(res);
    sbio_probe_json(obj, &res->probe, &run, id);
}

static uint64_t max_u(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* "rank N (HOST): " before a part's message when the parts are ranks. */
static void result_msg(char *dst, size_t len, const char *msg, unsigned i,
                       char (*hosts)[SBIO_HOST_LEN])
{
    if (hosts)
        snprintf(dst, len, "rank %u (%.40s): %.230s", i, hosts[i], msg);
    else
        snprintf(dst, len, "%s", msg);
}

/* Add part i to out. */
static void result_fold(struct sbio_run_result *out, const struct sbio_run_result *r, unsigned i,
                        enum sbio_merge_kind kind, char (*hosts)[SBIO_HOST_LEN])
{
    bool sum = kind == SBIO_MERGE_RANKS; /* process-wide figures: one per process */
    out->threads += r->threads;
    sbio_stats_merge(&out->total, &r->total);
    out->elapsed_ns = max_u(out->elapsed_ns, r->elapsed_ns);
    out->limit_ns = max_u(out->limit_ns, r->limit_ns);
    /* CPU time is each job's own threads' (runner.c): it adds up. */
    out->user_s += r->user_s;
    out->sys_s += r->sys_s;
    out->completed_bytes += r->completed_bytes;
    out->left_bytes += r->left_bytes;
    /* Jobs of a phase share the set: its tails are skipped once. */
    out->skipped_tails = sum ? out->skipped_tails + r->skipped_tails
                             : (unsigned)max_u(out->skipped_tails, r->skipped_tails);
    out->skipped_bytes =
        sum ? out->skipped_bytes + r->skipped_bytes : max_u(out->skipped_bytes, r->skipped_bytes);
    out->direct_align = max_u(out->direct_align, r->direct_align);
    out->depth_max = max_u(out->depth_max, r->depth_max);
    out->fds_shared |= r->fds_shared;
    sbio_probes_merge(&out->probe, &r->probe, i, kind);
    out->verify_written_only |= r->verify_written_only;
    out->measured = (i == 0 || out->measured) && r->measured;
    if (r->stop_signal && !out->stop_signal)
        out->stop_signal = r->stop_signal;
    if (r->error && !out->error) {
        out->error = r->error;
        out->error_kind = r->error_kind;
        result_msg(out->error_msg, sizeof(out->error_msg), r->error_msg, i, hosts);
    }
    if (r->verify_msg[0] && !out->verify_msg[0])
        result_msg(out->verify_msg, sizeof(out->verify_msg), r->verify_msg, i, hosts);
}

/* What the first part alone gives the merge. */
static void result_first(struct sbio_run_result *out, const struct sbio_run_result *r)
{
    out->seed = r->seed;
    out->ncpus = r->ncpus;
    out->ioprio = r->ioprio;
    snprintf(out->scheduler, sizeof(out->scheduler), "%s", r->scheduler);
    out->invalidated = r->invalidated; /* one set: the first part's view of it */
    out->resident_bytes = r->resident_bytes;
    out->set_bytes = r->set_bytes;
}

/* The parts' --warmup=auto ends, as struct sbio_warmup_result says a merge keeps them. */
static void result_warmup(struct sbio_warmup_result *w, const struct sbio_run_result *parts,
                          unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct sbio_warmup_result *p = &parts[i].warmup;
        if (!p->is_auto)
            continue;
        w->settled = (w->is_auto ? w->settled : true) && p->settled;
        w->is_auto = true;
        w->measured_from_s = fmax(w->measured_from_s, p->measured_from_s);
        w->window_s = fmax(w->window_s, p->window_s);
        w->spread_pct = fmax(w->spread_pct, p->spread_pct);
        if (fabs(p->slope_pct_per_s) > fabs(w->slope_pct_per_s))
            w->slope_pct_per_s = p->slope_pct_per_s;
    }
}

int sbio_result_merge(struct sbio_run_result *out, const struct sbio_run_result *parts, unsigned n,
                      enum sbio_merge_kind kind, struct sbio_stats *per_thread,
                      char (*hosts)[SBIO_HOST_LEN])
{
    struct sbio_sample *samples = out->samples;
    size_t nsamples = out->nsamples, cap = out->samples_cap;
    memset(out, 0, sizeof(*out));
    out->samples = samples;
    out->nsamples = nsamples;
    out->samples_cap = cap;
    if (!per_thread) {
        unsigned all = 0;
        for (unsigned i = 0; i < n; i++)
            all += parts[i].threads;
        per_thread = aligned_alloc(64, sizeof(struct sbio_stats) * (all ? all : 1));
        if (!per_thread)
            return -ENOMEM;
        /* Copied op type by op type: the pages of the types nobody did stay unwritten. */
        for (unsigned i = 0, t = 0; i < n; t += parts[i].threads, i++)
            for (unsigned k = 0; k < parts[i].threads; k++)
                sbio_stats_copy(per_thread + t + k, parts[i].per_thread + k);
    }
    out->per_thread = per_thread;
    sbio_stats_init(&out->total);
    double depth = 0;
    unsigned queued = 0;
    for (unsigned i = 0; i < n; i++) {
        result_fold(out, &parts[i], i, kind, kind == SBIO_MERGE_RANKS ? hosts : NULL);
        out->pass_drops += parts[i].pass_drops;
        if (parts[i].depth_max) {
            depth += parts[i].depth_avg;
            queued++;
        }
    }
    out->depth_avg = queued ? depth / queued : 0;
    if (n)
        result_first(out, &parts[0]);
    for (unsigned i = 1; i < n; i++)
        if (parts[i].ioprio != out->ioprio)
            out->ioprio = SBIO_IOPRIO_MIXED;
    result_warmup(&out->warmup, parts, n);
    if (kind == SBIO_MERGE_RANKS) {
        /* Clocks of different hosts are not comparable: the merged phase is as long as the
         * longest rank's, measured on that rank's clock. */
        out->total.start_ns = 0;
        out->total.end_ns = out->elapsed_ns;
    }
    return 0;
}

void sbio_result_snap_sched(struct sbio_run_result *res, const struct sbio_target *t)
{
    char line[512], names[SBIO_MAX_SCHED][32];
    int cur = -1;
    res->scheduler[0] = 0;
    if (!t || !t->ndev || sbio_sysblock_read(&t->dev[0], "scheduler", line, sizeof(line)))
        return;
    int n = sbio_sched_parse(line, names, SBIO_MAX_SCHED, &cur);
    if (cur >= 0 && cur < n)
        snprintf(res->scheduler, sizeof(res->scheduler), "%s", names[cur]);
}

/* The figures a job's shares are taken of. */
enum { SHARE_OPS, SHARE_BYTES, SHARE_READS, SHARE_WRITES, SHARE_RBYTES, SHARE_WBYTES, SHARE_NR };

static void share_figures(const struct sbio_stats *t, uint64_t *v)
{
    v[SHARE_OPS] = sbio_stats_ops(t);
    v[SHARE_RBYTES] = sbio_stats_bytes_read(t);
    v[SHARE_WBYTES] = sbio_stats_bytes_written(t);
    v[SHARE_BYTES] = v[SHARE_RBYTES] + v[SHARE_WBYTES];
    v[SHARE_READS] = t->lat[SBIO_READ].count;
    v[SHARE_WRITES] = t->lat[SBIO_WRITE].count;
}

/* A fraction of the phase's figure: NAN when the phase has none of it, rather than a 0 that
 * would read as "this job got none". */
static double share_of(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : NAN;
}

/* The weight a declared group sets, 0 for none: bfq_weight first, since that is the one a
 * device under bfq divides its time by. */
static unsigned share_weight(const struct sbio_cgroup_spec *g)
{
    if (!g || !g->set)
        return 0;
    return g->bfq_weight ? g->bfq_weight : g->weight;
}

static double share_jain(const double *x, unsigned n)
{
    double sum = 0, sq = 0;
    for (unsigned k = 0; k < n; k++) {
        sum += x[k];
        sq += x[k] * x[k];
    }
    return sq > 0 ? sum * sum / ((double)n * sq) : 1;
}

int sbio_result_shares(struct sbio_shares *out, const struct sbio_run_result *const *jobs,
                       const struct sbio_cgroup_spec *groups, unsigned n)
{
    if (!n || n > SBIO_SHARES_MAX)
        return -EINVAL;
    uint64_t v[SBIO_SHARES_MAX][SHARE_NR], tot[SHARE_NR] = {0};
    memset(out, 0, sizeof(*out));
    out->n = n;
    for (unsigned k = 0; k < n; k++) {
        share_figures(&jobs[k]->total, v[k]);
        for (int i = 0; i < SHARE_NR; i++)
            tot[i] += v[k][i];
        out->job[k].weight = share_weight(groups ? &groups[k] : NULL);
        out->weighted |= out->job[k].weight != 0;
    }
    out->over_ops = !tot[SHARE_BYTES];
    uint64_t wsum = 0;
    for (unsigned k = 0; out->weighted && k < n; k++) {
        if (!out->job[k].weight)
            out->job[k].weight = SBIO_SHARES_DEFAULT_WEIGHT;
        wsum += out->job[k].weight;
    }
    double x[SBIO_SHARES_MAX];
    for (unsigned k = 0; k < n; k++) {
        struct sbio_share *s = &out->job[k];
        double secs = (double)jobs[k]->elapsed_ns / 1e9;
        s->ops = share_of(v[k][SHARE_OPS], tot[SHARE_OPS]);
        s->bytes = share_of(v[k][SHARE_BYTES], tot[SHARE_BYTES]);
        s->read_ops = share_of(v[k][SHARE_READS], tot[SHARE_READS]);
        s->write_ops = share_of(v[k][SHARE_WRITES], tot[SHARE_WRITES]);
        s->read_bytes = share_of(v[k][SHARE_RBYTES], tot[SHARE_RBYTES]);
        s->write_bytes = share_of(v[k][SHARE_WBYTES], tot[SHARE_WBYTES]);
        s->ops_per_s = secs > 0 ? (double)v[k][SHARE_OPS] / secs : 0;
        s->bytes_per_s = secs > 0 ? (double)v[k][SHARE_BYTES] / secs : 0;
        x[k] = out->over_ops ? s->ops_per_s : s->bytes_per_s;
        s->asked = s->ratio = NAN;
        if (out->weighted) {
            s->asked = (double)s->weight / (double)wsum;
            s->ratio = (out->over_ops ? s->ops : s->bytes) / s->asked;
            x[k] /= s->asked;
        }
    }
    out->jain = share_jain(x, n);
    return 0;
}
