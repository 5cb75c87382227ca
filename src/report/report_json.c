/* The JSON result document (jansson) and the CSV line derived from it: one source of
 * values, so the two formats cannot disagree. doc/json.md describes every field. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "ioprio.h"
#include "mix.h"
#include "report.h"
#include "runner.h"
#include "util.h"
#include "version.h"
#include "workload.h"

#define SBIO_SCHEMA        "sbio-result/1"
#define SBIO_SCRIPT_SCHEMA "sbio-script/1" /* pipeline.c's document of a script run */

static const double pcts[] = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99};

static json_t *jstr_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

static json_t *env_int(const struct sbio_env_value *v)
{
    return v->ok ? json_integer(strtoll(v->v, NULL, 10)) : json_null();
}

/* A setting's value: an integer when the kernel printed one ("128"), else its text ("write
 * back"). */
static json_t *settings_value(const char *v)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    bool whole = *v && !isspace((unsigned char)*v) && !*end && !errno;
    return whole ? json_integer(n) : json_string(v);
}

json_t *sbio_json_device_settings(json_t *dev)
{
    json_t *set = json_object(), *v;
    const char *k;
    json_object_foreach(json_object_get(dev, "queue"), k, v)
    {
        const char *txt = json_string_value(v);
        char names[SBIO_MAX_SCHED][32];
        int cur;
        if (!txt)
            continue;
        /* The scheduler by its name: "none [mq-deadline] kyber bfq" is mq-deadline. */
        if (!strcmp(k, "scheduler") && sbio_sched_parse(txt, names, SBIO_MAX_SCHED, &cur) &&
            cur >= 0)
            json_object_set_new(set, k, json_string(names[cur]));
        else
            json_object_set_new(set, k, settings_value(txt));
    }
    json_object_foreach(json_object_get(dev, "iosched"), k, v)
    {
        char key[128];
        snprintf(key, sizeof(key), "iosched/%s", k);
        if (json_is_string(v))
            json_object_set_new(set, key, settings_value(json_string_value(v)));
    }
    return set;
}

static json_t *device_json(const struct sbio_env_dev *d)
{
    json_t *o = json_object(), *q = json_object(), *io = json_object();
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(o, "major", json_integer(d->major));
    json_object_set_new(o, "minor", json_integer(d->minor));
    json_object_set_new(o, "model", jstr_or_null(d->model_padded));
    for (unsigned i = 0; i < SBIO_ENV_KNOBS; i++)
        if (d->knob[i].ok)
            json_object_set_new(q, sbio_environment_knob_names[i], json_string(d->knob[i].v));
    json_object_set_new(o, "queue", q);
    /* The scheduler's tunables, whatever they are called. */
    for (unsigned i = 0; i < d->niosched; i++)
        json_object_set_new(io, d->iosched_name[i], json_string(d->iosched_value[i]));
    json_object_set_new(o, "iosched", io);
    json_object_set_new(o, "role", json_string(d->role));
    /* The same settings parsed, the scheduler by its name: what diff and plot compare. */
    json_t *set = sbio_json_device_settings(o);
    json_t *sched = json_object_get(set, "scheduler");
    json_object_set(o, "scheduler", sched ? sched : json_null());
    json_object_set_new(o, "settings", set);
    return o;
}

json_t *sbio_json_environment(const struct sbio_environment *e)
{
    json_t *env = json_object();
    if (e->have_uname) {
        json_object_set_new(env, "kernel", json_string(e->kernel));
        json_object_set_new(env, "machine", json_string(e->machine));
    }
    json_object_set_new(env, "hostname", json_string(e->hostname));
    json_object_set_new(env, "cpus", json_integer(e->cpus));
    json_object_set_new(env, "page_size", json_integer(e->page_size));
    json_t *fsj = json_object();
    json_object_set_new(fsj, "type", jstr_or_null(e->fstype));
    json_object_set_new(fsj, "source", jstr_or_null(e->source));
    json_object_set_new(fsj, "mountpoint", jstr_or_null(e->mountpoint));
    json_object_set_new(fsj, "options", jstr_or_null(e->mount_opts));
    json_object_set_new(env, "filesystem", fsj);
    json_t *devs = json_array(), *sched = NULL;
    for (unsigned i = 0; i < e->ndev; i++) {
        json_t *d = device_json(&e->dev[i]);
        /* The run's scheduler: its first scheduler device's (a dm device on top has none). */
        if (!sched && strcmp(e->dev[i].role, "top"))
            sched = json_object_get(d, "scheduler");
        json_array_append_new(devs, d);
    }
    json_object_set(env, "scheduler", sched ? sched : json_null());
    json_object_set_new(env, "devices", devs);
    json_t *vm = json_object();
    json_object_set_new(vm, "dirty_ratio", env_int(&e->dirty_ratio));
    json_object_set_new(vm, "dirty_background_ratio", env_int(&e->dirty_background_ratio));
    json_object_set_new(env, "vm", vm);
    return env;
}

static json_t *config_json(const struct sbio_report_of *of, const struct sbio_fileset *fs,
                           uint64_t seed)
{
    json_t *c = json_object();
    char buf[64];
    json_object_set_new(c, "file_test_mode",
                        json_string(sbio_mode_name(sbio_report_mode(of->job))));
    json_object_set_new(c, "threads", json_integer((json_int_t)of->job->threads));
    json_object_set_new(c, "time_s", json_integer((json_int_t)of->job->time_s));
    json_object_set_new(c, "events", json_integer((json_int_t)of->job->events));
    json_object_set_new(c, "warmup_time_s", json_integer((json_int_t)of->job->warmup_s));
    json_object_set_new(c, "warmup",
                        of->job->warmup_auto ? json_string("auto")
                                             : json_integer((json_int_t)of->job->warmup_s));
    json_object_set_new(c, "rate_ops_per_s", json_integer((json_int_t)of->job->rate));
    json_object_set_new(c, "ioengine", json_string(sbio_engine_name(of->job->engine)));
    /* The depth in effect: a synchronous engine has one request in flight per thread,
     * whatever --iodepth says (so two sync runs never differ in it). */
    bool queues = !sbio_engine_has(of->job->engine, SBIO_ENG_SYNC);
    json_object_set_new(c, "iodepth", json_integer(queues ? (json_int_t)of->job->iodepth : 1));
    json_object_set_new(c, "iodepth_batch",
                        json_integer(queues ? (json_int_t)sbio_job_iodepth_batch(of->job) : 1));
    json_object_set_new(c, "file_extra_flags",
                        json_string(sbio_extra_flags_str(buf, sizeof(buf), of->job->extra_flags)));
    json_object_set_new(c, "block_size_bytes", json_integer((json_int_t)of->job->block_size));
    json_object_set_new(c, "file_num", json_integer(fs->nfiles));
    json_object_set_new(c, "file_size_bytes",
                        json_integer((json_int_t)(fs->nfiles ? fs->files[0].size : 0)));
    json_object_set_new(c, "total_size_bytes", json_integer((json_int_t)fs->bytes));
    json_object_set_new(c, "file_fsync_freq", json_integer((json_int_t)of->job->fsync_freq));
    json_object_set_new(c, "file_fsync_all", json_boolean(of->job->fsync_all));
    json_object_set_new(c, "file_fsync_end", json_boolean(of->job->fsync_end));
    json_object_set_new(
        c, "file_fsync_mode",
        json_string(of->job->fsync_mode == SBIO_FSYNC_FDATASYNC ? "fdatasync" : "fsync"));
    json_object_set_new(c, "file_fsync_scope",
                        json_string(of->job->fsync_scope == SBIO_SCOPE_DIRTY ? "dirty" : "all"));
    json_object_set_new(c, "file_merged_requests",
                        json_integer((json_int_t)of->job->merged_requests));
    json_object_set_new(c, "file_rw_ratio", json_real(of->job->rw_ratio));
    json_object_set_new(
        c, "seq_stream",
        json_string(of->job->seq_stream == SBIO_SEQ_SHARED ? "shared" : "per-thread"));
    snprintf(buf, sizeof(buf), "%" PRIu64, seed);
    /* A string: seeds use all 64 bits, more than a JSON number keeps exactly. */
    json_object_set_new(c, "rand_seed", json_string(buf));
    json_object_set_new(c, "dir", json_string(of->set->dir));
    json_object_set_new(c, "cpus", jstr_or_null(of->job->cpus));
    json_object_set_new(c, "scheduler", jstr_or_null(of->set->scheduler));
    json_t *q = json_array();
    for (int i = 0; i < of->set->nqueue; i++)
        json_array_append_new(q, json_string(of->set->queue[i]));
    json_object_set_new(c, "queue", q);
    json_object_set_new(c, "drop_caches", json_boolean(of->set->drop_caches));
    json_object_set_new(c, "invalidate", json_boolean(of->job->invalidate));
    json_object_set_new(c, "invalidate_pass", json_boolean(of->job->invalidate_pass));
    json_object_set_new(c, "file_service", json_string(of->job->file_rr ? "roundrobin" : "set"));
    json_object_set_new(c, "fadvise", json_string(sbio_fadvise_name(of->job->fadvise)));
    json_object_set_new(c, "random_order",
                        json_string(sbio_random_order_name(of->job->random_order)));
    json_object_set_new(c, "ioprio",
                        json_string(sbio_ioprio_name(buf, sizeof(buf), of->job->ioprio)));
    json_object_set_new(c, "percentile", json_integer((json_int_t)of->set->percentile));
    json_object_set_new(c, "memory_limit_bytes", json_integer((json_int_t)of->set->memory_limit));
    return c;
}

static json_t *latency_json(const struct sbio_hist *h, bool buckets)
{
    json_t *l = json_object();
    json_object_set_new(l, "count", json_integer((json_int_t)h->count));
    json_object_set_new(l, "min_ns", json_integer(h->count ? (json_int_t)h->min_ns : 0));
    json_object_set_new(l, "mean_ns", json_real(sbio_hist_mean(h)));
    json_object_set_new(l, "stddev_ns", json_real(sbio_hist_stddev(h)));
    json_object_set_new(l, "max_ns", json_integer((json_int_t)h->max_ns));
    json_object_set_new(l, "sum_ns", json_integer((json_int_t)h->sum_ns));
    json_t *p = json_object();
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        char k[16];
        snprintf(k, sizeof(k), "%g", pcts[i]);
        json_object_set_new(p, k, json_integer((json_int_t)sbio_hist_percentile(h, pcts[i])));
    }
    json_object_set_new(l, "percentiles_ns", p);
    if (buckets) {
        /* Non-empty buckets as [lower_ns, upper_ns, count]: enough to merge results. */
        json_t *b = json_array();
        for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++)
            if (h->buckets[i])
                json_array_append_new(b, json_pack("[I,I,I]", (json_int_t)sbio_hist_bucket_lower(i),
                                                   (json_int_t)sbio_hist_bucket_upper(i),
                                                   (json_int_t)h->buckets[i]));
        json_object_set_new(l, "histogram", b);
    }
    return l;
}

static double per_s(double v, double secs)
{
    return secs > 0 ? v / secs : 0;
}

static json_t *optype_json(const struct sbio_stats *t, int op, double secs)
{
    json_t *o = json_object();
    uint64_t ops = t->lat[op].count + (op == SBIO_FSYNC ? t->write_fsyncs : 0);
    json_object_set_new(o, "ops", json_integer((json_int_t)ops));
    json_object_set_new(o, "bytes", json_integer((json_int_t)t->bytes[op]));
    json_object_set_new(o, "ops_per_s", json_real(per_s((double)ops, secs)));
    json_object_set_new(o, "mib_per_s", json_real(per_s((double)t->bytes[op] / SBIO_MIB, secs)));
    json_object_set_new(o, "latency", latency_json(&t->lat[op], true));
    if (op == SBIO_FSYNC) {
        json_object_set_new(o, "periodic",
                            json_integer((json_int_t)(t->lat[op].count - t->end_fsyncs)));
        json_object_set_new(o, "end", json_integer((json_int_t)t->end_fsyncs));
        json_object_set_new(o, "in_writes", json_integer((json_int_t)t->write_fsyncs));
    }
    return o;
}

/* Whether the document has op type op: the four of a run always, a file-system operation
 * when the run counted some (a run without any has a document as before they existed). */
static bool op_shown(const struct sbio_stats *total, int op)
{
    return op < SBIO_OP_FS_FIRST || total->lat[op].count;
}

static json_t *threads_json(const struct sbio_run_result *res)
{
    json_t *a = json_array();
    unsigned rank = 0, rank_end = res->nranks ? res->ranks[0].threads : 0;
    for (unsigned i = 0; i < res->threads; i++) {
        const struct sbio_stats *s = &res->per_thread[i];
        struct sbio_hist h;
        sbio_stats_all_lat(s, &h);
        double ts = sbio_stats_secs(s);
        json_t *o = json_object();
        json_object_set_new(o, "thread", json_integer(i));
        if (res->nranks) {
            while (i >= rank_end && rank + 1 < res->nranks)
                rank_end += res->ranks[++rank].threads;
            json_object_set_new(o, "rank", json_integer(rank));
        }
        json_object_set_new(o, "events", json_integer((json_int_t)s->events));
        json_object_set_new(o, "ops", json_integer((json_int_t)sbio_stats_ops(s)));
        for (int op = 0; op < SBIO_OP_NR; op++) {
            if (!op_shown(&res->total, op))
                continue;
            char k[32];
            snprintf(k, sizeof(k), "%s_ops", sbio_op_name(op));
            json_object_set_new(
                o, k,
                json_integer(
                    (json_int_t)(s->lat[op].count + (op == SBIO_FSYNC ? s->write_fsyncs : 0))));
        }
        if (sbio_stats_has_fs(&res->total))
            json_object_set_new(o, "skipped", json_integer((json_int_t)s->skipped));
        json_object_set_new(o, "bytes_read", json_integer((json_int_t)sbio_stats_bytes_read(s)));
        json_object_set_new(o, "bytes_written",
                            json_integer((json_int_t)sbio_stats_bytes_written(s)));
        json_object_set_new(o, "duration_s", json_real(ts));
        json_object_set_new(o, "ops_per_s", json_real(per_s((double)sbio_stats_ops(s), ts)));
        json_object_set_new(
            o, "mib_per_s",
            json_real(per_s(
                (double)(sbio_stats_bytes_read(s) + sbio_stats_bytes_written(s)) / SBIO_MIB, ts)));
        json_object_set_new(o, "busy_s", json_real((double)sbio_stats_busy_ns(s) / 1e9));
        json_object_set_new(o, "latency", latency_json(&h, false));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *samples_json(const struct sbio_run_result *res)
{
    json_t *a = json_array();
    for (size_t i = 0; i < res->nsamples; i++) {
        const struct sbio_sample *sm = &res->samples[i];
        json_t *o = json_object();
        json_object_set_new(o, "t_s", json_real(sm->t_s));
        json_object_set_new(o, "duration_s", json_real(sm->dur_s));
        for (int op = 0; op < SBIO_OP_NR; op++) {
            if (!op_shown(&res->total, op))
                continue;
            json_t *x = json_object();
            json_object_set_new(x, "ops", json_integer((json_int_t)sm->ops[op]));
            json_object_set_new(x, "bytes", json_integer((json_int_t)sm->bytes[op]));
            json_object_set_new(x, "ops_per_s", json_real(per_s((double)sm->ops[op], sm->dur_s)));
            json_object_set_new(x, "mib_per_s",
                                json_real(per_s((double)sm->bytes[op] / SBIO_MIB, sm->dur_s)));
            json_object_set_new(x, "mean_ns", json_real(sm->mean_ns[op]));
            json_object_set_new(x, "p50_ns", json_integer((json_int_t)sm->p50_ns[op]));
            json_object_set_new(x, "p99_ns", json_integer((json_int_t)sm->p99_ns[op]));
            json_object_set_new(x, "max_ns", json_integer((json_int_t)sm->max_ns[op]));
            json_object_set_new(o, sbio_op_name(op), x);
        }
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *signal_json(int sig)
{
    return sig == SIGINT    ? json_string("SIGINT")
           : sig == SIGTERM ? json_string("SIGTERM")
           : sig            ? json_integer(sig)
                            : json_null();
}

/* Under MPI: each rank's own figures over its own time, its CPU and its host's devices. */
static json_t *ranks_json(const struct sbio_run_result *res)
{
    json_t *a = json_array();
    unsigned first = 0;
    for (unsigned r = 0; r < res->nranks; r++) {
        const struct sbio_run_result *x = &res->ranks[r];
        const struct sbio_stats *s = &x->total;
        double secs = (double)x->elapsed_ns / 1e9;
        struct sbio_hist h;
        sbio_stats_all_lat(s, &h);
        bool leader = sbio_result_host_first(res, r);
        json_t *o = json_object();
        json_object_set_new(o, "rank", json_integer(r));
        json_object_set_new(o, "hostname", json_string(res->rank_host[r]));
        json_object_set_new(o, "host_leader", json_boolean(leader));
        json_object_set_new(o, "threads", json_integer(x->threads));
        json_object_set_new(o, "first_thread", json_integer(first));
        first += x->threads;
        json_object_set_new(o, "elapsed_s", json_real(secs));
        json_object_set_new(o, "events", json_integer((json_int_t)s->events));
        json_object_set_new(o, "ops", json_integer((json_int_t)sbio_stats_ops(s)));
        json_object_set_new(o, "bytes_read", json_integer((json_int_t)sbio_stats_bytes_read(s)));
        json_object_set_new(o, "bytes_written",
                            json_integer((json_int_t)sbio_stats_bytes_written(s)));
        json_object_set_new(o, "ops_per_s", json_real(per_s((double)sbio_stats_ops(s), secs)));
        json_object_set_new(
            o, "mib_per_s",
            json_real(
                per_s((double)(sbio_stats_bytes_read(s) + sbio_stats_bytes_written(s)) / SBIO_MIB,
                      secs)));
        json_object_set_new(o, "latency", latency_json(&h, false));
        json_object_set_new(o, "scheduler", jstr_or_null(x->scheduler));
        json_t *cpu =
            json_pack("{s:f,s:f,s:f,s:f}", "user_s", x->user_s, "system_s", x->sys_s, "user_pct",
                      per_s(100 * x->user_s, secs), "system_pct", per_s(100 * x->sys_s, secs));
        sbio_result_probe_json(cpu, x, SBIO_PROBE_FAULTS);
        json_object_set_new(o, "cpu", cpu);
        sbio_result_probe_json(o, x, SBIO_PROBE_DEVICES);
        sbio_result_probe_json(o, x, SBIO_PROBE_PAGE_CACHE);
        json_object_set_new(o, "interrupted", json_boolean(x->stop_signal != 0));
        json_object_set_new(o, "signal", signal_json(x->stop_signal));
        json_object_set_new(o, "error", x->error ? json_string(x->error_msg) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

json_t *sbio_json_errors(const struct sbio_run_result *res)
{
    json_t *errs = json_array();
    if (res->error)
        json_array_append_new(errs, json_pack("{s:s,s:s,s:i}", "kind",
                                              sbio_error_kind_name(res->error_kind), "message",
                                              res->error_msg, "errno", -res->error));
    return errs;
}

/* How the run ended: its signal and errors. */
static void result_end_json(json_t *r, const struct sbio_run_result *res)
{
    json_object_set_new(r, "interrupted", json_boolean(res->stop_signal != 0));
    json_object_set_new(r, "signal",
                        res->stop_signal == SIGINT    ? json_string("SIGINT")
                        : res->stop_signal == SIGTERM ? json_string("SIGTERM")
                        : res->stop_signal            ? json_integer(res->stop_signal)
                                                      : json_null());
    json_object_set_new(r, "errors", sbio_json_errors(res));
}

static json_t *cpu_json(const struct sbio_run_result *res, double secs)
{
    json_t *cpu = json_object();
    json_object_set_new(cpu, "user_s", json_real(res->user_s));
    json_object_set_new(cpu, "system_s", json_real(res->sys_s));
    json_object_set_new(cpu, "user_pct", json_real(per_s(100 * res->user_s, secs)));
    json_object_set_new(cpu, "system_pct", json_real(per_s(100 * res->sys_s, secs)));
    sbio_result_probe_json(cpu, res, SBIO_PROBE_FAULTS);
    return cpu;
}

/* The operations: counts, per type, all together, per thread. */
static void result_ops_json(json_t *r, const struct sbio_run_result *res, double secs)
{
    const struct sbio_stats *t = &res->total;
    json_object_set_new(r, "events", json_integer((json_int_t)t->events));
    json_object_set_new(r, "ops", json_integer((json_int_t)sbio_stats_ops(t)));
    json_t *ops = json_object();
    for (int op = 0; op < SBIO_OP_NR; op++)
        if (op_shown(t, op))
            json_object_set_new(ops, sbio_op_name(op), optype_json(t, op, secs));
    json_object_set_new(r, "op_types", ops);
    if (sbio_stats_has_fs(t))
        json_object_set_new(r, "skipped", json_integer((json_int_t)t->skipped));
    struct sbio_hist all;
    sbio_stats_all_lat(t, &all);
    json_object_set_new(r, "latency_all", latency_json(&all, false));
    json_object_set_new(r, "threads", threads_json(res));
    json_object_set_new(r, "descriptors", json_string(res->fds_shared ? "shared" : "per-thread"));
}

/* The device, cache and verification figures, and what only some runs have. */
static void result_more_json(json_t *r, const struct sbio_report_of *of,
                             const struct sbio_run_result *res)
{
    const struct sbio_stats *t = &res->total;
    json_object_set_new(r, "queue_depth",
                        res->depth_max ? json_pack("{s:f,s:I}", "avg", res->depth_avg, "max",
                                                   (json_int_t)res->depth_max)
                                       : json_null());
    sbio_result_probe_json(r, res, SBIO_PROBE_DEVICES);
    sbio_result_probe_json(r, res, SBIO_PROBE_PROC_IO);
    sbio_result_probe_json(r, res, SBIO_PROBE_PAGE_CACHE);
    json_object_set_new(r, "invalidation",
                        res->invalidated
                            ? json_pack("{s:I,s:I,s:I,s:I}", "files", (json_int_t)res->invalidated,
                                        "resident_bytes", (json_int_t)res->resident_bytes,
                                        "set_bytes", (json_int_t)res->set_bytes, "pass_drops",
                                        (json_int_t)res->pass_drops)
                            : json_null());
    char prio[24];
    json_object_set_new(r, "ioprio",
                        json_string(sbio_ioprio_name(prio, sizeof(prio), res->ioprio)));
    sbio_result_probe_json(r, res, SBIO_PROBE_MEMSTAT);
    sbio_result_probe_json(r, res, SBIO_PROBE_GROUP_IO);
    json_object_set_new(r, "reads_from_page_cache", json_boolean(sbio_report_cached_reads(res)));
    json_object_set_new(
        r, "verify",
        of->job->verify
            ? json_pack("{s:s,s:I,s:I,s:o}", "scope", res->verify_written_only ? "written" : "all",
                        "blocks_checked", (json_int_t)t->verify_checked, "mismatches",
                        (json_int_t)t->verify_failed, "first_mismatch",
                        res->verify_msg[0] ? json_string(res->verify_msg) : json_null())
            : json_null());
    json_object_set_new(r, "samples", samples_json(res));
    const struct sbio_warmup_result *w = &res->warmup;
    json_object_set_new(r, "warmup",
                        w->is_auto ? json_pack("{s:b,s:b,s:f,s:f,s:f,s:f}", "auto", 1, "settled",
                                               w->settled, "measured_from_s", w->measured_from_s,
                                               "window_s", w->window_s, "spread_pct", w->spread_pct,
                                               "slope_pct_per_s", w->slope_pct_per_s)
                                   : json_null());
    json_object_set_new(r, "seqwr_completed_bytes", json_integer((json_int_t)res->completed_bytes));
    json_object_set_new(r, "seqwr_left_bytes", json_integer((json_int_t)res->left_bytes));
    json_object_set_new(r, "direct_skipped_tail_bytes",
                        json_integer((json_int_t)res->skipped_bytes));
    if (res->nranks) {
        /* A multi-rank run: the totals above are every rank's, elapsed_s the longest rank's. */
        json_object_set_new(r, "mpi",
                            json_pack("{s:i,s:i,s:b}", "ranks", res->nranks, "hosts",
                                      sbio_result_hosts(res), "file_per_rank",
                                      of->set->file_per_rank));
        json_object_set_new(r, "ranks", ranks_json(res));
    }
}

json_t *sbio_json_result(const struct sbio_report_of *of, const struct sbio_fileset *fs,
                         const struct sbio_run_result *res, json_t *env)
{
    json_t *doc = json_object();
    double secs = (double)res->elapsed_ns / 1e9;
    json_object_set_new(doc, "schema", json_string(SBIO_SCHEMA));
    json_object_set_new(doc, "sbio_version", json_string(SBIO_VERSION));
    json_t *argv = json_array();
    for (int i = 0; i < of->set->argc; i++)
        json_array_append_new(argv, json_string(of->set->argv[i]));
    json_object_set_new(doc, "command_line", argv);
    json_object_set_new(doc, "command", json_string(sbio_cmd_name(of->set->cmd)));
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    json_object_set_new(doc, "finished_utc", json_string(when));
    json_object_set_new(doc, "config", config_json(of, fs, res->seed));
    json_object_set(doc, "environment", env ? env : json_null());
    json_t *r = json_object();
    result_end_json(r, res);
    json_object_set_new(r, "elapsed_s", json_real(secs));
    result_ops_json(r, res, secs);
    json_object_set_new(r, "cpu", cpu_json(res, secs));
    result_more_json(r, of, res);
    json_object_set_new(doc, "result", r);
    return doc;
}

/* A share, or null where the phase had none of the figure (NAN). */
static json_t *share_json(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

json_t *sbio_json_shares(const struct sbio_shares *sh, const char *const *names)
{
    json_t *jobs = json_array();
    for (unsigned k = 0; k < sh->n; k++) {
        const struct sbio_share *j = &sh->job[k];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(names[k]));
        json_object_set_new(o, "ops_per_s", json_real(j->ops_per_s));
        json_object_set_new(o, "mib_per_s", json_real(j->bytes_per_s / SBIO_MIB));
        json_object_set_new(o, "ops_share", share_json(j->ops));
        json_object_set_new(o, "bytes_share", share_json(j->bytes));
        json_object_set_new(o, "read_ops_share", share_json(j->read_ops));
        json_object_set_new(o, "write_ops_share", share_json(j->write_ops));
        json_object_set_new(o, "read_bytes_share", share_json(j->read_bytes));
        json_object_set_new(o, "write_bytes_share", share_json(j->write_bytes));
        json_object_set_new(o, "weight", j->weight ? json_integer(j->weight) : json_null());
        json_object_set_new(o, "asked_share", share_json(j->asked));
        json_object_set_new(o, "ratio", share_json(j->ratio));
        json_array_append_new(jobs, o);
    }
    char over[40];
    snprintf(over, sizeof(over), "%s%s", sh->over_ops ? "ops_per_s" : "bytes_per_s",
             sh->weighted ? "_per_asked_share" : "");
    return json_pack("{s:b,s:f,s:s,s:o}", "weighted", sh->weighted, "jain_index", sh->jain,
                     "jain_over", over, "jobs", jobs);
}

int sbio_report_json(FILE *out, json_t *doc)
{
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    return rc ? -EIO : 0;
}

/* CSV columns: a name and a JSON path into the result document. The head's, then for each
 * file-system op type the fs columns (csv_fs: "create_ops" from "…op_types.create.ops"; the
 * MiB/s of those that move data only), then the tail's: every run's line has them all, empty
 * where its document has no such op type. */
static const char *const csv_head[][2] = {
    {"sbio_version", "sbio_version"},
    {"finished_utc", "finished_utc"},
    {"file_test_mode", "config.file_test_mode"},
    {"threads", "config.threads"},
    {"ioengine", "config.ioengine"},
    {"file_extra_flags", "config.file_extra_flags"},
    {"block_size_bytes", "config.block_size_bytes"},
    {"file_num", "config.file_num"},
    {"total_size_bytes", "config.total_size_bytes"},
    {"scheduler", "environment.scheduler"},
    {"rand_seed", "config.rand_seed"},
    {"elapsed_s", "result.elapsed_s"},
    {"events", "result.events"},
    {"interrupted", "result.interrupted"},
    {"read_ops", "result.op_types.read.ops"},
    {"write_ops", "result.op_types.write.ops"},
    {"fsync_ops", "result.op_types.fsync.ops"},
    {"read_ops_per_s", "result.op_types.read.ops_per_s"},
    {"write_ops_per_s", "result.op_types.write.ops_per_s"},
    {"fsync_ops_per_s", "result.op_types.fsync.ops_per_s"},
    {"read_mib_per_s", "result.op_types.read.mib_per_s"},
    {"write_mib_per_s", "result.op_types.write.mib_per_s"},
    {"read_lat_mean_ns", "result.op_types.read.latency.mean_ns"},
    {"read_lat_p50_ns", "result.op_types.read.latency.percentiles_ns.50"},
    {"read_lat_p95_ns", "result.op_types.read.latency.percentiles_ns.95"},
    {"read_lat_p99_ns", "result.op_types.read.latency.percentiles_ns.99"},
    {"read_lat_max_ns", "result.op_types.read.latency.max_ns"},
    {"write_lat_mean_ns", "result.op_types.write.latency.mean_ns"},
    {"write_lat_p50_ns", "result.op_types.write.latency.percentiles_ns.50"},
    {"write_lat_p95_ns", "result.op_types.write.latency.percentiles_ns.95"},
    {"write_lat_p99_ns", "result.op_types.write.latency.percentiles_ns.99"},
    {"write_lat_max_ns", "result.op_types.write.latency.max_ns"},
    {"fsync_lat_mean_ns", "result.op_types.fsync.latency.mean_ns"},
    {"fsync_lat_p99_ns", "result.op_types.fsync.latency.percentiles_ns.99"},
};
static const char *const csv_fs[][2] = {
    {"ops", "ops"},
    {"ops_per_s", "ops_per_s"},
    {"mib_per_s", "mib_per_s"},
    {"lat_mean_ns", "latency.mean_ns"},
    {"lat_p99_ns", "latency.percentiles_ns.99"},
};
#define CSV_FS_MIB 2 /* csv_fs's MiB/s: for the op types that move data only */
static const char *const csv_tail[][2] = {
    {"skipped", "result.skipped"},
    {"cpu_user_pct", "result.cpu.user_pct"},
    {"cpu_system_pct", "result.cpu.system_pct"},
    {"error", "result.errors.0.message"},
};
#define CSV_NHEAD (sizeof(csv_head) / sizeof(csv_head[0]))
#define CSV_NFS   (sizeof(csv_fs) / sizeof(csv_fs[0]))
#define CSV_NTAIL (sizeof(csv_tail) / sizeof(csv_tail[0]))

/* Column i's name and JSON path into name and path (each 64 bytes); false past the last. */
static bool csv_col(size_t i, char *name, char *path)
{
    if (i < CSV_NHEAD) {
        snprintf(name, 64, "%s", csv_head[i][0]);
        snprintf(path, 64, "%s", csv_head[i][1]);
        return true;
    }
    i -= CSV_NHEAD;
    for (int op = SBIO_OP_FS_FIRST; op < SBIO_OP_NR; op++)
        for (size_t k = 0; k < CSV_NFS; k++) {
            if (k == CSV_FS_MIB && !sbio_report_op_bytes(op))
                continue;
            if (i--)
                continue;
            snprintf(name, 64, "%s_%s", sbio_op_name(op), csv_fs[k][0]);
            snprintf(path, 64, "result.op_types.%s.%s", sbio_op_name(op), csv_fs[k][1]);
            return true;
        }
    if (i >= CSV_NTAIL)
        return false;
    snprintf(name, 64, "%s", csv_tail[i][0]);
    snprintf(path, 64, "%s", csv_tail[i][1]);
    return true;
}

json_t *sbio_json_get(json_t *doc, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", path);
    json_t *cur = doc;
    char *save = NULL;
    for (char *k = strtok_r(buf, ".", &save); k && cur; k = strtok_r(NULL, ".", &save)) {
        if (json_is_array(cur))
            cur = json_array_get(cur, strtoul(k, NULL, 10));
        else if (json_is_object(cur)) {
            /* Percentile keys contain a dot ("99.9"): try the rest of the path whole. */
            json_t *whole = save && *save ? json_object_get(cur, path + (k - buf)) : NULL;
            if (whole)
                return whole;
            cur = json_object_get(cur, k);
        } else
            cur = NULL;
    }
    return cur;
}

double sbio_json_num(json_t *doc, const char *path)
{
    json_t *v = sbio_json_get(doc, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A string cell, quoted when it holds a comma, a quote or a line break (quotes doubled). */
static void csv_str(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* Numbers in one format per kind of column, whatever the JSON holds: nanoseconds as whole
 * numbers (a mean rounded), seconds, rates and percentages with three decimals, counts and
 * bytes as integers; never an exponent. */
static void csv_value(FILE *out, const char *col, json_t *v)
{
    size_t n = strlen(col);
    bool ns = n > 3 && !strcmp(col + n - 3, "_ns");
    if (!v || json_is_null(v))
        return;
    if (json_is_string(v))
        csv_str(out, json_string_value(v));
    else if (json_is_integer(v))
        fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        fprintf(out, ns ? "%.0f" : "%.3f", json_real_value(v));
    else if (json_is_boolean(v))
        fputs(json_is_true(v) ? "true" : "false", out);
}

int sbio_report_csv_header(char *buf, size_t len, bool script)
{
    char name[64], path[64];
    size_t at = (size_t)snprintf(buf, len, "%s", script ? "phase,job" : "");
    for (size_t i = 0; csv_col(i, name, path) && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", name);
    return at < len ? 0 : -ENOSPC;
}

/* One line: a script's phase and job first (phase NULL: a built-in run's line, without
 * them), then every column read from the result document res. Without one (a refused phase,
 * a job that failed to start) every column is empty but the error, which says why. */
static void csv_line(FILE *out, const char *phase, const char *job, json_t *res, const char *error)
{
    char name[64], path[64];
    if (phase) {
        csv_str(out, phase);
        fputc(',', out);
        csv_str(out, job);
        fputc(',', out);
    }
    for (size_t i = 0; csv_col(i, name, path); i++) {
        if (i)
            fputc(',', out);
        if (res)
            csv_value(out, name, sbio_json_get(res, path));
        else if (!strcmp(name, "error"))
            csv_str(out, error);
    }
    fputc('\n', out);
}

/* A script's lines: per phase each job's, then the total's (job "total") when the phase has
 * one; a refused phase one line with an empty job. */
static void csv_script(FILE *out, json_t *doc)
{
    size_t i, k;
    json_t *p, *j;
    json_array_foreach(json_object_get(doc, "phases"), i, p)
    {
        const char *phase = json_string_value(json_object_get(p, "name"));
        phase = phase ? phase : "";
        if (json_is_true(json_object_get(p, "refused")))
            csv_line(out, phase, "", NULL, "phase refused");
        json_array_foreach(json_object_get(p, "jobs"), k, j)
        {
            const char *name = json_string_value(json_object_get(j, "name"));
            const char *err = json_string_value(json_object_get(j, "error"));
            csv_line(out, phase, name ? name : "", json_object_get(j, "result"),
                     err ? err : "no result");
        }
        if (json_object_get(p, "total"))
            csv_line(out, phase, "total", json_object_get(p, "total"), NULL);
    }
}

int sbio_report_csv(FILE *out, json_t *doc, bool header)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    bool script = schema && !strcmp(schema, SBIO_SCRIPT_SCHEMA);
    char head[SBIO_CSV_HEADER_MAX];
    if (header) {
        if (sbio_report_csv_header(head, sizeof(head), script))
            return -ENOSPC;
        fprintf(out, "%s\n", head);
    }
    if (script)
        csv_script(out, doc);
    else
        csv_line(out, NULL, NULL, doc, NULL);
    return ferror(out) ? -EIO : 0;
}

/* A job's group as declared (0: not set), null without one. */
static json_t *group_declared(const struct sbio_cgroup_spec *g)
{
    if (!g->set)
        return json_null();
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:I}", "weight", (json_int_t)g->weight,
                     "bfq_weight", (json_int_t)g->bfq_weight, "rbps", (json_int_t)g->rbps, "wbps",
                     (json_int_t)g->wbps, "riops", (json_int_t)g->riops, "wiops",
                     (json_int_t)g->wiops, "device",
                     g->max_dev[0] ? json_string(g->max_dev) : json_null(), "latency_us",
                     (json_int_t)g->latency_us);
}

/* A tree job's declaration beyond a flat mix's: the weights of its file-system operations
 * (those above 0) in "mix", its "flow" and "appends" when it has them. */
static void job_declared_tree(json_t *d, const struct sbio_script_job *sj)
{
    json_t *mix = json_object_get(d, "mix"), *flow = json_array(), *app = json_array();
    for (int op = SBIO_MIX_FS_FIRST; op < SBIO_MIX_NR; op++)
        if (sj->weight[op] > 0)
            json_object_set_new(mix, sbio_mix_op_name(op), json_real(sj->weight[op]));
    for (unsigned i = 0; i < sj->nflow; i++)
        json_array_append_new(flow, json_string(sbio_mix_op_name(sj->flow[i])));
    for (unsigned k = 0; k < sj->nappend; k++)
        json_array_append_new(app, json_pack("{s:I,s:f}", "bytes", (json_int_t)sj->append[k],
                                             "weight", sj->append_weight[k]));
    if (sj->nflow)
        json_object_set_new(d, "flow", flow);
    else
        json_decref(flow);
    if (sj->nappend)
        json_object_set_new(d, "appends", app);
    else
        json_decref(app);
}

/* A job as the script declared it, for the JSON beside its result (the result's config
 * describes the run, and a mix is no sysbench mode). */
json_t *sbio_json_declared(const struct sbio_script_job *sj)
{
    char fl[64];
    json_t *d = json_object(), *blocks = json_array();
    json_object_set_new(d, "threads", json_integer(sj->threads));
    json_object_set_new(d, "ioengine", json_string(sbio_engine_name(sj->engine)));
    json_object_set_new(d, "iodepth", json_integer(sj->iodepth));
    json_object_set_new(d, "file_extra_flags",
                        json_string(sbio_extra_flags_str(fl, sizeof(fl), sj->flags)));
    json_object_set_new(d, "rate_ops_per_s", json_integer((json_int_t)sj->rate));
    json_object_set_new(d, "think_us", json_integer((json_int_t)sj->think_us));
    json_object_set_new(d, "invalidate", json_boolean(sj->invalidate));
    json_object_set_new(d, "invalidate_pass", json_boolean(sj->invalidate_pass));
    json_object_set_new(d, "file_service", json_string(sj->file_rr ? "roundrobin" : "set"));
    json_object_set_new(d, "fadvise", json_string(sbio_fadvise_name(sj->fadvise)));
    json_object_set_new(d, "random_order", json_string(sbio_random_order_name(sj->random_order)));
    char prio[24];
    json_object_set_new(d, "ioprio", json_string(sbio_ioprio_name(prio, sizeof(prio), sj->ioprio)));
    json_object_set_new(d, "group", group_declared(&sj->group));
    if (sj->nfrange) { /* a flat set's files the job works on: [first, last] ranges */
        json_t *files = json_array();
        for (unsigned r = 0; r < sj->nfrange; r++)
            json_array_append_new(files, json_pack("[I,I]", (json_int_t)sj->frange_first[r],
                                                   (json_int_t)sj->frange_last[r]));
        json_object_set_new(d, "files", files);
    }
    for (unsigned k = 0; k < sj->nblocks; k++)
        json_array_append_new(blocks, json_pack("{s:I,s:f}", "bytes", (json_int_t)sj->block[k],
                                                "weight", sj->block_weight[k]));
    json_object_set_new(d, "blocks", blocks);
    if (sj->mode != SBIO_MODE_NONE) {
        json_object_set_new(d, "kind", json_string("mode"));
        json_object_set_new(d, "mode", json_string(sbio_mode_name(sj->mode)));
        json_object_set_new(d, "fsync_freq", json_integer((json_int_t)sj->fsync_freq));
        json_object_set_new(d, "fsync_end", json_boolean(sj->fsync_end));
        json_object_set_new(d, "rw_ratio", json_real(sj->rw_ratio));
        json_object_set_new(
            d, "stream", json_string(sj->stream == SBIO_SEQ_PER_THREAD ? "per-thread" : "shared"));
    } else if (sj->event) {
        json_object_set_new(d, "kind", json_string("event"));
    } else {
        json_object_set_new(d, "kind", json_string("mix"));
        json_object_set_new(
            d, "mix",
            json_pack("{s:f,s:f,s:f,s:f,s:f}", "read", sj->weight[SBIO_MIX_READ], "write",
                      sj->weight[SBIO_MIX_WRITE], "fsync", sj->weight[SBIO_MIX_FSYNC], "fdatasync",
                      sj->weight[SBIO_MIX_FDATASYNC], "rmw", sj->weight[SBIO_MIX_RMW]));
        job_declared_tree(d, sj);
        json_object_set_new(d, "pattern", json_string(sbio_pattern_name(sj->pattern)));
        json_object_set_new(d, "fsync_end", json_boolean(sj->fsync_end));
        json_object_set_new(d, "pattern_a", json_real(sj->pa));
        json_object_set_new(d, "pattern_b", json_real(sj->pb));
    }
    return d;
}

void sbio_json_text(char *buf, size_t len, json_t *v)
{
    if (json_is_null(v))
        snprintf(buf, len, "-");
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(buf, len, "%s", s ? s : "?");
        free(s);
    }
}
