/* Unit tests for the JSON result document and the CSV line (src/report/report_json.c), on real
 * runs: a small set is prepared in a temporary folder, every mode runs with the sync engine, and
 * the document is dumped, read back with jansson and checked against doc/json.md: every
 * documented field with its documented type (and no undocumented one), the relations
 * between the figures (totals = sums over threads, events = reads + writes + periodic
 * fsyncs, percentiles from the histogram, bytes = ops x block, rates = figure / time), the
 * time series, and the CSV line's values against the JSON's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "fileset.h"
#include "helpers.h"
#include "hist.h"
#include "options.h"
#include "prepare.h"
#include "report.h"
#include "runner.h"
#include "sysblock.h"
#include "util.h"
#include "version.h"
#include "workload.h"

/* The set: 4 files of 256 KiB, 16 KiB blocks: 64 whole blocks, no short tail, so every
 * request of every mode moves exactly one block. */
#define NFILES    4
#define FILE_SIZE (256 * 1024ULL)
#define BLOCK     (16 * 1024ULL)
#define SEED      4242

static char g_dir[64];

#define FAILF(ctx, ...)                                                                            \
    do {                                                                                           \
        char m_[512];                                                                              \
        snprintf(m_, sizeof(m_), __VA_ARGS__);                                                     \
        fail_msg("%s: %s", (ctx), m_);                                                             \
    } while (0)
#define CHECK(ctx, cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond))                                                                               \
            FAILF(ctx, __VA_ARGS__);                                                               \
    } while (0)

static bool near_rel(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fmax(fabs(got), fabs(want)) + 1e-12;
}

/* ---- JSON access ---- */

/* Value at a '/'-separated path ("result/op_types/read/ops"; numbers index arrays), or NULL.
 * '/' and not '.': percentile keys contain a dot. */
static json_t *jat(json_t *doc, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    json_t *cur = doc;
    char *save = NULL;
    for (char *k = strtok_r(buf, "/", &save); k && cur; k = strtok_r(NULL, "/", &save))
        cur = json_is_array(cur)    ? json_array_get(cur, strtoul(k, NULL, 10))
              : json_is_object(cur) ? json_object_get(cur, k)
                                    : NULL;
    return cur;
}

static int64_t jint(const char *ctx, json_t *o, const char *path)
{
    json_t *v = jat(o, path);
    CHECK(ctx, json_is_integer(v), "%s: not an integer", path);
    return (int64_t)json_integer_value(v);
}

static double jnum(const char *ctx, json_t *o, const char *path)
{
    json_t *v = jat(o, path);
    CHECK(ctx, json_is_number(v), "%s: not a number", path);
    return json_number_value(v);
}

static const char *jstr(const char *ctx, json_t *o, const char *path)
{
    json_t *v = jat(o, path);
    CHECK(ctx, json_is_string(v), "%s: not a string", path);
    return json_string_value(v);
}

/* ---- the documented fields and types (doc/json.md) ---- */

enum jt {
    JT_STR,
    JT_INT,
    JT_NUM,
    JT_BOOL,
    JT_OBJ,
    JT_ARR,
    JT_ARR_STR,
    JT_STR_NULL,
    JT_OBJ_NULL,
    JT_INT_NULL,
    JT_NUM_NULL,
    JT_INT_STR
};

static const char *const jt_doc[] = {"string",           "integer",        "number",
                                     "boolean",          "object",         "array",
                                     "array of strings", "string or null", "object or null",
                                     "integer or null",  "number or null", "integer or string"};

static bool jt_ok(json_t *v, enum jt t)
{
    switch (t) {
    case JT_STR: return json_is_string(v);
    case JT_INT: return json_is_integer(v);
    case JT_NUM: return json_is_number(v);
    case JT_BOOL: return json_is_boolean(v);
    case JT_OBJ: return json_is_object(v);
    case JT_ARR: return json_is_array(v);
    case JT_ARR_STR: {
        if (!json_is_array(v))
            return false;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) if (!json_is_string(e)) return false;
        return true;
    }
    case JT_STR_NULL: return json_is_string(v) || json_is_null(v);
    case JT_OBJ_NULL: return json_is_object(v) || json_is_null(v);
    case JT_INT_NULL: return json_is_integer(v) || json_is_null(v);
    case JT_NUM_NULL: return json_is_number(v) || json_is_null(v);
    case JT_INT_STR: return json_is_integer(v) || json_is_string(v);
    }
    return false;
}

struct fspec {
    const char *name;
    enum jt type;
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct fspec root_spec[] = {
    {"schema", JT_STR},      {"sbio_version", JT_STR}, {"command_line", JT_ARR_STR},
    {"command", JT_STR},     {"finished_utc", JT_STR}, {"config", JT_OBJ},
    {"environment", JT_OBJ}, {"result", JT_OBJ},
};
static const struct fspec config_spec[] = {
    {"file_test_mode", JT_STR},
    {"threads", JT_INT},
    {"time_s", JT_INT},
    {"events", JT_INT},
    {"warmup_time_s", JT_INT},
    {"warmup", JT_INT_STR},
    {"rate_ops_per_s", JT_INT},
    {"ioengine", JT_STR},
    {"iodepth", JT_INT},
    {"iodepth_batch", JT_INT},
    {"file_extra_flags", JT_STR},
    {"block_size_bytes", JT_INT},
    {"file_num", JT_INT},
    {"file_size_bytes", JT_INT},
    {"total_size_bytes", JT_INT},
    {"file_fsync_freq", JT_INT},
    {"file_fsync_all", JT_BOOL},
    {"file_fsync_end", JT_BOOL},
    {"file_fsync_mode", JT_STR},
    {"file_fsync_scope", JT_STR},
    {"file_merged_requests", JT_INT},
    {"file_rw_ratio", JT_NUM},
    {"seq_stream", JT_STR},
    {"rand_seed", JT_STR},
    {"dir", JT_STR},
    {"cpus", JT_STR_NULL},
    {"scheduler", JT_STR_NULL},
    {"queue", JT_ARR_STR},
    {"drop_caches", JT_BOOL},
    {"invalidate", JT_BOOL},
    {"invalidate_pass", JT_BOOL},
    {"file_service", JT_STR},
    {"fadvise", JT_STR},
    {"random_order", JT_STR},
    {"ioprio", JT_STR},
    {"percentile", JT_INT},
    {"memory_limit_bytes", JT_INT},
};
static const struct fspec env_spec[] = {
    {"kernel", JT_STR},  {"machine", JT_STR},   {"hostname", JT_STR},
    {"cpus", JT_INT},    {"page_size", JT_INT}, {"filesystem", JT_OBJ},
    {"devices", JT_ARR}, {"vm", JT_OBJ},        {"scheduler", JT_STR_NULL},
};
static const struct fspec env_fs_spec[] = {
    {"type", JT_STR_NULL},
    {"source", JT_STR_NULL},
    {"mountpoint", JT_STR_NULL},
    {"options", JT_STR_NULL},
};
static const struct fspec env_dev_spec[] = {
    {"name", JT_STR},       {"major", JT_INT},          {"minor", JT_INT},
    {"model", JT_STR_NULL}, {"role", JT_STR},           {"queue", JT_OBJ},
    {"iosched", JT_OBJ},    {"scheduler", JT_STR_NULL}, {"settings", JT_OBJ},
};
static const struct fspec env_vm_spec[] = {{"dirty_ratio", JT_INT},
                                           {"dirty_background_ratio", JT_INT}};
static const struct fspec result_spec[] = {
    {"interrupted", JT_BOOL},
    {"signal", JT_STR_NULL},
    {"errors", JT_ARR},
    {"elapsed_s", JT_NUM},
    {"events", JT_INT},
    {"ops", JT_INT},
    {"op_types", JT_OBJ},
    {"latency_all", JT_OBJ},
    {"threads", JT_ARR},
    {"descriptors", JT_STR},
    {"cpu", JT_OBJ},
    {"queue_depth", JT_OBJ_NULL},
    {"verify", JT_OBJ_NULL},
    {"devices", JT_ARR},
    {"process_io", JT_OBJ_NULL},
    {"ioprio", JT_STR},
    {"group", JT_OBJ_NULL},
    {"invalidation", JT_OBJ_NULL},
    {"page_cache", JT_OBJ_NULL},
    {"memory_group", JT_OBJ_NULL},
    {"reads_from_page_cache", JT_BOOL},
    {"samples", JT_ARR},
    {"seqwr_completed_bytes", JT_INT},
    {"seqwr_left_bytes", JT_INT},
    {"direct_skipped_tail_bytes", JT_INT},
    {"warmup", JT_OBJ_NULL},
};
/* What a result with file-system operations adds (doc/json.md, "`result` of a tree job"). */
static const struct fspec result_fs_spec[] = {{"skipped", JT_INT}};
static const struct fspec warmup_spec[] = {
    {"auto", JT_BOOL},    {"settled", JT_BOOL},   {"measured_from_s", JT_NUM},
    {"window_s", JT_NUM}, {"spread_pct", JT_NUM}, {"slope_pct_per_s", JT_NUM},
};
static const struct fspec error_spec[] = {{"kind", JT_STR}, {"message", JT_STR}, {"errno", JT_INT}};
/* The op types of a run without file-system operations (a built-in mode's): its document has
 * these four only. */
#define NOPK SBIO_OP_FS_FIRST
static const struct fspec optypes_spec[] = {
    {"read", JT_OBJ}, {"write", JT_OBJ}, {"fsync", JT_OBJ}, {"rmw", JT_OBJ}};
/* op_types.TYPE; the last three are fsync's only. */
static const struct fspec optype_spec[] = {
    {"ops", JT_INT},     {"bytes", JT_INT},    {"ops_per_s", JT_NUM}, {"mib_per_s", JT_NUM},
    {"latency", JT_OBJ}, {"periodic", JT_INT}, {"end", JT_INT},       {"in_writes", JT_INT},
};
#define OPTYPE_COMMON 5
/* latency; histogram only in op_types (the last entry). */
static const struct fspec latency_spec[] = {
    {"count", JT_INT},  {"min_ns", JT_INT}, {"mean_ns", JT_NUM},        {"stddev_ns", JT_NUM},
    {"max_ns", JT_INT}, {"sum_ns", JT_INT}, {"percentiles_ns", JT_OBJ}, {"histogram", JT_ARR},
};
static const char *const pct_keys[] = {"1",  "5",  "10", "25",   "50",   "75",
                                       "90", "95", "99", "99.9", "99.99"};
static const double pct_vals[] = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99};
static const struct fspec thread_spec[] = {
    {"thread", JT_INT},     {"events", JT_INT},     {"ops", JT_INT},
    {"read_ops", JT_INT},   {"write_ops", JT_INT},  {"fsync_ops", JT_INT},
    {"rmw_ops", JT_INT},    {"bytes_read", JT_INT}, {"bytes_written", JT_INT},
    {"duration_s", JT_NUM}, {"ops_per_s", JT_NUM},  {"mib_per_s", JT_NUM},
    {"busy_s", JT_NUM},     {"latency", JT_OBJ},
};
static const struct fspec cpu_spec[] = {{"user_s", JT_NUM},       {"system_s", JT_NUM},
                                        {"user_pct", JT_NUM},     {"system_pct", JT_NUM},
                                        {"minor_faults", JT_INT}, {"major_faults", JT_INT}};
static const struct fspec qdepth_spec[] = {{"avg", JT_NUM}, {"max", JT_INT}};
static const struct fspec group_spec[] = {
    {"path", JT_STR}, {"hierarchy", JT_STR}, {"kernel", JT_OBJ_NULL}};
static const struct fspec group_kernel_spec[] = {{"source", JT_STR},
                                                 {"read_bytes", JT_INT},
                                                 {"write_bytes", JT_INT},
                                                 {"reads", JT_INT},
                                                 {"writes", JT_INT}};
static const struct fspec verify_spec[] = {{"scope", JT_STR},
                                           {"blocks_checked", JT_INT},
                                           {"mismatches", JT_INT},
                                           {"first_mismatch", JT_STR_NULL}};
static const struct fspec res_dev_spec[] = {
    {"name", JT_STR},          {"reads", JT_INT},           {"reads_merged", JT_INT},
    {"sectors_read", JT_INT},  {"read_ms", JT_INT},         {"writes", JT_INT},
    {"writes_merged", JT_INT}, {"sectors_written", JT_INT}, {"write_ms", JT_INT},
    {"in_flight", JT_INT},     {"io_ms", JT_INT},           {"time_in_queue_ms", JT_INT},
    {"discards", JT_INT},      {"discards_merged", JT_INT}, {"sectors_discarded", JT_INT},
    {"discard_ms", JT_INT},    {"flushes", JT_INT},         {"flush_ms", JT_INT},
    {"bytes_read", JT_INT},    {"bytes_written", JT_INT},   {"util_pct", JT_NUM},
    {"avg_queue", JT_NUM},
};
static const struct fspec cache_spec[] = {{"start", JT_OBJ}, {"end", JT_OBJ}};
static const struct fspec cache_state_spec[] = {
    {"cached_pages", JT_INT},           {"dirty_pages", JT_INT},
    {"writeback_pages", JT_INT},        {"evicted_pages", JT_INT},
    {"recently_evicted_pages", JT_INT},
};
static const struct fspec memgroup_spec[] = {
    {"limit_bytes", JT_INT}, {"cgroup", JT_STR},     {"limit_file", JT_STR},
    {"group", JT_STR},       {"start", JT_OBJ_NULL}, {"end", JT_OBJ_NULL},
};
static const struct fspec memstat_spec[] = {
    {"file_bytes", JT_INT}, {"dirty_bytes", JT_INT}, {"writeback_bytes", JT_INT}};
static const struct fspec sample_spec[] = {{"t_s", JT_NUM},   {"duration_s", JT_NUM},
                                           {"read", JT_OBJ},  {"write", JT_OBJ},
                                           {"fsync", JT_OBJ}, {"rmw", JT_OBJ}};
static const struct fspec sample_op_spec[] = {
    {"ops", JT_INT},     {"bytes", JT_INT},  {"ops_per_s", JT_NUM}, {"mib_per_s", JT_NUM},
    {"mean_ns", JT_NUM}, {"p50_ns", JT_INT}, {"p99_ns", JT_INT},    {"max_ns", JT_INT},
};

/* A script phase's shares (sbio_json_shares), and each job's in it. */
static const struct fspec shares_spec[] = {
    {"weighted", JT_BOOL},
    {"jain_index", JT_NUM},
    {"jain_over", JT_STR},
    {"jobs", JT_ARR},
};
static const struct fspec share_job_spec[] = {
    {"name", JT_STR},
    {"ops_per_s", JT_NUM},
    {"mib_per_s", JT_NUM},
    {"ops_share", JT_NUM_NULL},
    {"bytes_share", JT_NUM_NULL},
    {"read_ops_share", JT_NUM_NULL},
    {"write_ops_share", JT_NUM_NULL},
    {"read_bytes_share", JT_NUM_NULL},
    {"write_bytes_share", JT_NUM_NULL},
    {"weight", JT_INT_NULL},
    {"asked_share", JT_NUM_NULL},
    {"ratio", JT_NUM_NULL},
};

/* Fields the document has and doc/json.md does not list ("result.queue_depth"): collected
 * over every run, failed by test_no_undocumented_field at the end so that the other checks
 * still run. */
static char g_undoc[4096];

static void note_undocumented(const char *where, const char *key)
{
    char item[160];
    snprintf(item, sizeof(item), " %s.%s", where, key);
    size_t len = strlen(g_undoc);
    if (!strstr(g_undoc, item) && len + strlen(item) < sizeof(g_undoc))
        memcpy(g_undoc + len, item, strlen(item) + 1);
}

/* o is an object holding exactly the n fields of spec (exact: no undocumented key), each
 * with its documented type. */
static void check_fields(const char *ctx, json_t *o, const char *where, const struct fspec *spec,
                         size_t n, bool exact)
{
    CHECK(ctx, json_is_object(o), "%s: not an object", where);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(o, spec[i].name);
        CHECK(ctx, v, "%s.%s: missing", where, spec[i].name);
        CHECK(ctx, jt_ok(v, spec[i].type), "%s.%s: not of the documented type (%s)", where,
              spec[i].name, jt_doc[spec[i].type]);
    }
    if (!exact)
        return;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        size_t i = 0;
        while (i < n && strcmp(spec[i].name, k))
            i++;
        if (i == n)
            note_undocumented(where, k);
    }
}

/* ---- one run ---- */

struct run_spec {
    int mode;
    unsigned threads;
    uint64_t events, time_s, log_ms;
    bool fsync_all;
    bool target; /* resolve the set's devices for the environment and the device counters */
};

struct ran {
    struct sbio_config cfg;
    struct sbio_fileset fs;
    struct sbio_run_result res;
    char *argv[4];
    json_t *doc;  /* as sbio_json_result made it */
    json_t *back; /* json_dumps, then json_loads */
    char ctx[96];
};

static void run_spec(struct ran *r, const struct run_spec *s)
{
    static char a0[] = "sbio", a1[] = "run", a2[] = "--test";
    memset(r, 0, sizeof(*r));
    struct sbio_config *cfg = &r->cfg;
    sbio_options_defaults(cfg);
    cfg->cmd = SBIO_CMD_RUN;
    cfg->argv = r->argv;
    r->argv[0] = a0, r->argv[1] = a1, r->argv[2] = a2;
    cfg->argc = 3;
    cfg->dir = g_dir;
    cfg->file_num = NFILES;
    cfg->total_size = NFILES * FILE_SIZE;
    cfg->block_size = BLOCK;
    cfg->rand_seed = SEED;
    cfg->ioengine = sbio_engine_id("sync");
    cfg->mode = s->mode;
    cfg->threads = s->threads;
    cfg->events = s->events;
    cfg->time_s = s->time_s;
    cfg->log_interval_ms = s->log_ms;
    cfg->fsync_all = s->fsync_all;
    snprintf(r->ctx, sizeof(r->ctx), "%s, %u threads%s%s", sbio_mode_name(s->mode), s->threads,
             s->log_ms ? ", log interval" : "", s->fsync_all ? ", fsync-all" : "");

    struct sbio_target target, *tp = NULL;
    if (s->target && !sbio_sysblock_resolve(g_dir, NULL, &target))
        tp = &target;
    bool created = true;
    assert_int_equal(sbio_fileset_open(&r->fs, TS(cfg), s->mode == SBIO_MODE_SEQWR, &created), 0);
    assert_false(created);
    static struct sbio_environment snap;
    sbio_environment_read(&snap, tp);
    json_t *env = sbio_json_environment(&snap);
    assert_non_null(env);
    struct sbio_job job;
    test_job_from_config(&job, cfg);
    struct sbio_interim samples = {.log_ns = cfg->log_interval_ms * 1000000ULL};
    struct sbio_runner_env renv = {.fs = &r->fs, .target = tp, .interim = &samples};
    assert_int_equal(sbio_runner_run(&job, &renv, &r->res), 0);
    fflush(stdout);
    CHECK(r->ctx, r->res.error == 0, "run failed: %s", r->res.error_msg);
    r->doc = sbio_json_result(TOF(cfg), &r->fs, &r->res, env);
    json_decref(env);
    assert_non_null(r->doc);
    char *text = json_dumps(r->doc, 0);
    assert_non_null(text);
    json_error_t err;
    r->back = json_loads(text, 0, &err);
    CHECK(r->ctx, r->back, "the dumped document does not parse: %s (line %d)", err.text, err.line);
    free(text);
}

static void ran_free(struct ran *r)
{
    json_decref(r->doc);
    json_decref(r->back);
    sbio_run_result_free(&r->res);
    sbio_fileset_close(&r->fs);
}

/* ---- checks ---- */

/* The latency object: types, consistency, and percentiles recomputed from the histogram. */
static void check_latency(const char *ctx, json_t *l, const char *where, bool histogram)
{
    check_fields(ctx, l, where, latency_spec, N(latency_spec) - (histogram ? 0 : 1), true);
    int64_t count = jint(ctx, l, "count"), min = jint(ctx, l, "min_ns");
    int64_t max = jint(ctx, l, "max_ns"), sum = jint(ctx, l, "sum_ns");
    double mean = jnum(ctx, l, "mean_ns"), sd = jnum(ctx, l, "stddev_ns");
    json_t *p = json_object_get(l, "percentiles_ns");
    CHECK(ctx, json_object_size(p) == N(pct_keys), "%s.percentiles_ns: %zu keys, want %zu", where,
          json_object_size(p), N(pct_keys));
    int64_t pv[N(pct_keys)];
    for (size_t i = 0; i < N(pct_keys); i++) {
        json_t *v = json_object_get(p, pct_keys[i]);
        CHECK(ctx, json_is_integer(v), "%s.percentiles_ns.%s: missing or not an integer", where,
              pct_keys[i]);
        pv[i] = (int64_t)json_integer_value(v);
    }
    CHECK(ctx, count >= 0 && min >= 0 && sum >= 0 && sd >= 0, "%s: negative figure", where);
    if (count == 0) {
        CHECK(ctx, min == 0 && max == 0 && sum == 0 && mean == 0 && sd == 0,
              "%s: empty but min %" PRId64 " max %" PRId64 " sum %" PRId64 " mean %g sd %g", where,
              min, max, sum, mean, sd);
        for (size_t i = 0; i < N(pct_keys); i++)
            CHECK(ctx, pv[i] == 0, "%s: empty but p%s = %" PRId64, where, pct_keys[i], pv[i]);
    } else {
        CHECK(ctx, min <= max, "%s: min %" PRId64 " > max %" PRId64, where, min, max);
        CHECK(ctx, near_rel(mean, (double)sum / (double)count, 1e-9),
              "%s: mean_ns %.3f, sum_ns / count %.3f", where, mean, (double)sum / (double)count);
        CHECK(ctx, mean >= (double)min - 1e-6 && mean <= (double)max + 1e-6,
              "%s: mean %.1f outside [%" PRId64 ", %" PRId64 "]", where, mean, min, max);
        CHECK(ctx, sd <= (double)(max - min) + 1e-6, "%s: stddev %.1f > max - min", where, sd);
        CHECK(ctx, (double)sum >= (double)count * (double)min && sum <= count * max,
              "%s: sum_ns %" PRId64 " does not fit count x [min, max]", where, sum);
        for (size_t i = 0; i < N(pct_keys); i++) {
            CHECK(ctx, pv[i] >= min && pv[i] <= max,
                  "%s: p%s = %" PRId64 " outside [min %" PRId64 ", max %" PRId64 "]", where,
                  pct_keys[i], pv[i], min, max);
            if (i)
                CHECK(ctx, pv[i] >= pv[i - 1], "%s: p%s = %" PRId64 " < p%s = %" PRId64, where,
                      pct_keys[i], pv[i], pct_keys[i - 1], pv[i - 1]);
        }
    }
    if (!histogram)
        return;

    /* The histogram: increasing, non-overlapping inclusive buckets that hold every value. */
    json_t *h = json_object_get(l, "histogram");
    size_t nb = json_array_size(h);
    int64_t(*b)[3] = calloc(nb ? nb : 1, sizeof(*b));
    assert_non_null(b);
    int64_t total = 0;
    for (size_t i = 0; i < nb; i++) {
        json_t *e = json_array_get(h, i);
        CHECK(ctx, json_is_array(e) && json_array_size(e) == 3,
              "%s.histogram[%zu]: not [lower, upper, count]", where, i);
        for (int k = 0; k < 3; k++) {
            CHECK(ctx, json_is_integer(json_array_get(e, k)),
                  "%s.histogram[%zu][%d]: not an integer", where, i, k);
            b[i][k] = (int64_t)json_integer_value(json_array_get(e, k));
        }
        CHECK(ctx, b[i][0] >= 0 && b[i][0] <= b[i][1],
              "%s.histogram[%zu]: lower %" PRId64 " > upper %" PRId64, where, i, b[i][0], b[i][1]);
        CHECK(ctx, b[i][2] > 0, "%s.histogram[%zu]: empty bucket listed", where, i);
        /* The histogram's own buckets (hist.h), so two results merge bucket by bucket. */
        unsigned idx = sbio_hist_bucket_index((uint64_t)b[i][0]);
        CHECK(ctx,
              (uint64_t)b[i][0] == sbio_hist_bucket_lower(idx) &&
                  (uint64_t)b[i][1] == sbio_hist_bucket_upper(idx),
              "%s.histogram[%zu]: [%" PRId64 ", %" PRId64 "] is not a bucket of hist.h", where, i,
              b[i][0], b[i][1]);
        if (i)
            CHECK(ctx, b[i][0] > b[i - 1][1],
                  "%s.histogram[%zu]: [%" PRId64 ", %" PRId64 "] overlaps or precedes [%" PRId64
                  ", %" PRId64 "]",
                  where, i, b[i][0], b[i][1], b[i - 1][0], b[i - 1][1]);
        total += b[i][2];
    }
    CHECK(ctx, total == count, "%s.histogram: buckets hold %" PRId64 " values, count %" PRId64,
          where, total, count);
    if (count) {
        CHECK(ctx, min >= b[0][0] && min <= b[0][1],
              "%s: min_ns %" PRId64 " not in the first bucket", where, min);
        if (max <= (int64_t)SBIO_HIST_MAX_NS)
            CHECK(ctx, max >= b[nb - 1][0] && max <= b[nb - 1][1],
                  "%s: max_ns %" PRId64 " not in the last bucket", where, max);
        /* Every value is within 1/128 of its bucket's midpoint (hist.h), so the mean and
         * the standard deviation of the midpoints are within 1/128 of the values' root mean
         * square of the documented ones. */
        if (max <= (int64_t)SBIO_HIST_MAX_NS) {
            double m1 = 0, m2 = 0;
            for (size_t i = 0; i < nb; i++)
                m1 += (double)b[i][2] * (double)(b[i][0] + (b[i][1] - b[i][0] + 1) / 2);
            m1 /= (double)count;
            for (size_t i = 0; i < nb; i++) {
                double d = (double)(b[i][0] + (b[i][1] - b[i][0] + 1) / 2) - m1;
                m2 += (double)b[i][2] * d * d;
            }
            double tol = sqrt(mean * mean + sd * sd) / 128 * 1.001 + 1;
            CHECK(ctx, fabs(mean - m1) <= tol, "%s: mean_ns %.1f, the histogram's %.1f", where,
                  mean, m1);
            CHECK(ctx, fabs(sd - sqrt(m2 / (double)count)) <= tol,
                  "%s: stddev_ns %.1f, the histogram's %.1f", where, sd, sqrt(m2 / (double)count));
        }
        /* Nearest rank, reported at the bucket's midpoint clamped to [min, max] (hist.h). The
         * rank is taken on both sides of a rounding edge of pct x count / 100. */
        for (size_t i = 0; i < N(pct_keys); i++) {
            double x = pct_vals[i] * (double)count / 100;
            int64_t want[2];
            for (int side = 0; side < 2; side++) {
                int64_t rank = (int64_t)ceil(side ? x + 1e-6 : x - 1e-6);
                rank = rank < 1 ? 1 : rank > count ? count : rank;
                int64_t cum = 0;
                size_t j = 0;
                for (; j < nb; j++)
                    if ((cum += b[j][2]) >= rank)
                        break;
                int64_t mid = b[j][0] + (b[j][1] - b[j][0] + 1) / 2;
                want[side] = mid < min ? min : mid > max ? max : mid;
            }
            CHECK(ctx, pv[i] == want[0] || pv[i] == want[1],
                  "%s: p%s = %" PRId64 ", the histogram gives %" PRId64, where, pct_keys[i], pv[i],
                  want[0]);
        }
    }
    free(b);
}

static void check_config(struct ran *r)
{
    const char *ctx = r->ctx;
    json_t *c = jat(r->back, "config");
    check_fields(ctx, c, "config", config_spec, N(config_spec), true);
    char seed[32];
    snprintf(seed, sizeof(seed), "%" PRIu64, r->res.seed);
    assert_int_equal(r->res.seed, SEED);
    assert_string_equal(jstr(ctx, c, "file_test_mode"), sbio_mode_name(r->cfg.mode));
    assert_int_equal(jint(ctx, c, "threads"), r->cfg.threads);
    assert_int_equal(jint(ctx, c, "time_s"), r->cfg.time_s);
    assert_int_equal(jint(ctx, c, "events"), r->cfg.events);
    assert_int_equal(jint(ctx, c, "warmup_time_s"), 0);
    assert_int_equal(jint(ctx, c, "rate_ops_per_s"), 0);
    assert_string_equal(jstr(ctx, c, "ioengine"), "sync");
    /* The depth in effect: the sync engine has one request in flight, whatever --iodepth
     * (128 by default) says. */
    assert_int_equal(jint(ctx, c, "iodepth"), 1);
    assert_int_equal(jint(ctx, c, "iodepth_batch"), 1);
    assert_string_equal(jstr(ctx, c, "file_extra_flags"), "(none)");
    assert_int_equal(jint(ctx, c, "block_size_bytes"), BLOCK);
    assert_int_equal(jint(ctx, c, "file_num"), NFILES);
    assert_int_equal(jint(ctx, c, "file_size_bytes"), FILE_SIZE);
    assert_int_equal(jint(ctx, c, "total_size_bytes"), NFILES * FILE_SIZE);
    assert_int_equal(jint(ctx, c, "file_fsync_freq"), r->cfg.fsync_freq);
    assert_true(json_is_true(json_object_get(c, "file_fsync_all")) == r->cfg.fsync_all);
    assert_true(json_is_true(json_object_get(c, "file_fsync_end")) == r->cfg.fsync_end);
    assert_string_equal(jstr(ctx, c, "file_fsync_mode"), "fsync");
    assert_string_equal(jstr(ctx, c, "file_fsync_scope"), "all");
    assert_int_equal(jint(ctx, c, "file_merged_requests"), r->cfg.merged_requests);
    assert_true(jnum(ctx, c, "file_rw_ratio") == r->cfg.rw_ratio);
    assert_string_equal(jstr(ctx, c, "seq_stream"), "shared");
    assert_string_equal(jstr(ctx, c, "rand_seed"), seed);
    assert_string_equal(jstr(ctx, c, "dir"), g_dir);
    assert_true(json_is_null(json_object_get(c, "cpus")));
    assert_true(json_is_null(json_object_get(c, "scheduler")));
    assert_int_equal(json_array_size(json_object_get(c, "queue")), 0);
    assert_true(json_is_false(json_object_get(c, "drop_caches")));
    assert_true(json_is_false(json_object_get(c, "invalidate")));
    assert_string_equal(jstr(ctx, c, "fadvise"), "none");
    assert_string_equal(jstr(ctx, c, "random_order"), "draw");
    assert_string_equal(jstr(ctx, c, "ioprio"), "none");
    assert_int_equal(jint(ctx, c, "percentile"), r->cfg.percentile);
}

static int64_t proc_int(const char *path)
{
    FILE *f = fopen(path, "re");
    long long v = -1;
    if (f) {
        if (fscanf(f, "%lld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

static void check_environment(struct ran *r, bool target)
{
    const char *ctx = r->ctx;
    json_t *e = jat(r->back, "environment");
    check_fields(ctx, e, "environment", env_spec, N(env_spec), true);
    struct utsname u;
    assert_int_equal(uname(&u), 0);
    assert_string_equal(jstr(ctx, e, "kernel"), u.release);
    assert_string_equal(jstr(ctx, e, "machine"), u.machine);
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    assert_string_equal(jstr(ctx, e, "hostname"), host);
    assert_int_equal(jint(ctx, e, "cpus"), sysconf(_SC_NPROCESSORS_ONLN));
    assert_int_equal(jint(ctx, e, "page_size"), sysconf(_SC_PAGESIZE));
    json_t *fsj = json_object_get(e, "filesystem");
    check_fields(ctx, fsj, "environment.filesystem", env_fs_spec, N(env_fs_spec), true);
    json_t *devs = json_object_get(e, "devices");
    if (!target) {
        /* No target: nothing known about the file system or its devices. */
        for (size_t i = 0; i < N(env_fs_spec); i++)
            CHECK(ctx, json_is_null(json_object_get(fsj, env_fs_spec[i].name)),
                  "environment.filesystem.%s: not null without a target", env_fs_spec[i].name);
        CHECK(ctx, json_array_size(devs) == 0, "environment.devices: not empty without a target");
    }
    size_t i;
    json_t *d, *sched = NULL;
    json_array_foreach(devs, i, d)
    {
        check_fields(ctx, d, "environment.devices[]", env_dev_spec, N(env_dev_spec), true);
        const char *role = jstr(ctx, d, "role");
        CHECK(ctx,
              !strcmp(role, "top") || !strcmp(role, "scheduler") || !strcmp(role, "top+scheduler"),
              "environment.devices[%zu].role: '%s'", i, role);
        CHECK(ctx, i == 0 || !strcmp(role, "scheduler"),
              "environment.devices[%zu].role '%s': only the first is the top device", i, role);
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(d, "queue"), k, v)
            CHECK(ctx, json_is_string(v), "environment.devices[%zu].queue.%s: not a string", i, k);
        json_object_foreach(json_object_get(d, "iosched"), k, v) CHECK(
            ctx, json_is_string(v), "environment.devices[%zu].iosched.%s: not a string", i, k);
        /* The parsed settings are the raw ones, read again. */
        json_t *set = sbio_json_device_settings(d);
        CHECK(ctx, json_equal(set, json_object_get(d, "settings")),
              "environment.devices[%zu].settings: not its queue and iosched parsed", i);
        CHECK(ctx, json_equal(json_object_get(set, "scheduler"), json_object_get(d, "scheduler")),
              "environment.devices[%zu].scheduler: not the one in brackets", i);
        if (!sched && strcmp(role, "top"))
            sched = json_object_get(d, "scheduler");
        json_decref(set);
    }
    CHECK(ctx,
          sched ? json_equal(sched, json_object_get(e, "scheduler"))
                : json_is_null(json_object_get(e, "scheduler")),
          "environment.scheduler: not the first scheduler device's");
    json_t *vm = json_object_get(e, "vm");
    check_fields(ctx, vm, "environment.vm", env_vm_spec, N(env_vm_spec), true);
    assert_int_equal(jint(ctx, vm, "dirty_ratio"), proc_int("/proc/sys/vm/dirty_ratio"));
    assert_int_equal(jint(ctx, vm, "dirty_background_ratio"),
                     proc_int("/proc/sys/vm/dirty_background_ratio"));
}

/* The time series: contiguous increasing intervals summing to the totals but for the last
 * partial interval. */
static void check_samples(struct ran *r)
{
    const char *ctx = r->ctx;
    json_t *res = jat(r->back, "result");
    json_t *sm = json_object_get(res, "samples");
    size_t n = json_array_size(sm);
    if (!r->cfg.log_interval_ms && !r->cfg.report_interval_s) {
        CHECK(ctx, n == 0, "%zu samples without an interval", n);
        return;
    }
    double interval = (double)r->cfg.log_interval_ms / 1e3;
    double elapsed = jnum(ctx, res, "elapsed_s"), prev_t = 0;
    int64_t sum_ops[NOPK] = {0}, sum_bytes[NOPK] = {0};
    double max_rate = 0;
    static const char *const opk[NOPK] = {"read", "write", "fsync", "rmw"};
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(sm, i);
        char where[64];
        snprintf(where, sizeof(where), "result.samples[%zu]", i);
        check_fields(ctx, s, where, sample_spec, N(sample_spec), true);
        double t = jnum(ctx, s, "t_s"), dur = jnum(ctx, s, "duration_s");
        CHECK(ctx, t > prev_t, "%s.t_s %.9f not after %.9f", where, t, prev_t);
        CHECK(ctx, dur > 0 && fabs(t - prev_t - dur) < 1e-6,
              "%s: duration_s %.9f, but t_s %.9f follows %.9f", where, dur, t, prev_t);
        /* The ticker never fires early: the k-th sample ends at k intervals or later. */
        CHECK(ctx, t >= (double)(i + 1) * interval - 1e-6, "%s.t_s %.6f before %zu intervals",
              where, t, i + 1);
        CHECK(ctx, t <= elapsed, "%s.t_s %.6f after the end (%.6f)", where, t, elapsed);
        prev_t = t;
        int64_t all_ops = 0;
        for (int op = 0; op < NOPK; op++) {
            char w2[80];
            snprintf(w2, sizeof(w2), "%s.%s", where, opk[op]);
            json_t *x = json_object_get(s, opk[op]);
            check_fields(ctx, x, w2, sample_op_spec, N(sample_op_spec), true);
            int64_t ops = jint(ctx, x, "ops"), bytes = jint(ctx, x, "bytes");
            CHECK(ctx, ops >= 0 && bytes >= 0, "%s: negative", w2);
            /* One block per op exactly: a snapshot's counts and bytes are one moment's. */
            CHECK(ctx, bytes == (op == SBIO_FSYNC ? 0 : ops * (int64_t)BLOCK),
                  "%s: bytes %" PRId64 " != ops %" PRId64 " x block", w2, bytes, ops);
            CHECK(ctx, near_rel(jnum(ctx, x, "ops_per_s"), (double)ops / dur, 1e-9),
                  "%s.ops_per_s %g, ops / duration_s %g", w2, jnum(ctx, x, "ops_per_s"),
                  (double)ops / dur);
            CHECK(ctx,
                  near_rel(jnum(ctx, x, "mib_per_s"), (double)bytes / (double)SBIO_MIB / dur, 1e-9),
                  "%s.mib_per_s", w2);
            int64_t p50 = jint(ctx, x, "p50_ns"), p99 = jint(ctx, x, "p99_ns");
            int64_t mx = jint(ctx, x, "max_ns");
            double mean = jnum(ctx, x, "mean_ns");
            CHECK(ctx, 0 <= p50 && p50 <= p99 && p99 <= mx && mean <= (double)mx + 1e-6,
                  "%s: p50 %" PRId64 " p99 %" PRId64 " max %" PRId64 " mean %.1f out of order", w2,
                  p50, p99, mx, mean);
            char path[80];
            snprintf(path, sizeof(path), "op_types/%s/latency/max_ns", opk[op]);
            CHECK(ctx, mx <= jint(ctx, res, path), "%s.max_ns above the run's", w2);
            sum_ops[op] += ops;
            sum_bytes[op] += bytes;
            all_ops += ops;
        }
        if ((double)all_ops / dur > max_rate)
            max_rate = (double)all_ops / dur;
    }
    /* Everything but the last, partial interval (no sample: it ends with the run). Samples
     * are taken until the time limit: what the threads do after it (rndrw's end fsyncs, a
     * second on a loaded machine) is in the totals, not in a sample. */
    double uncovered = elapsed - prev_t;
    double until =
        r->cfg.time_s && (double)r->cfg.time_s < elapsed ? (double)r->cfg.time_s : elapsed;
    CHECK(ctx, until - prev_t <= 2 * interval,
          "%zu samples, the last at %.3f s, sampled until %.3f s (the run ended at %.3f s): a "
          "sample is missing",
          n, prev_t, until, elapsed);
    int64_t total_all = 0, sum_all = 0;
    for (int op = 0; op < NOPK; op++) {
        char path[64];
        snprintf(path, sizeof(path), "op_types/%s/ops", opk[op]);
        int64_t total = jint(ctx, res, path);
        snprintf(path, sizeof(path), "op_types/%s/bytes", opk[op]);
        int64_t tbytes = jint(ctx, res, path);
        CHECK(ctx, sum_ops[op] <= total && sum_bytes[op] <= tbytes,
              "%s: the samples hold %" PRId64 " ops / %" PRId64
              " bytes, more than the totals %" PRId64 " / %" PRId64,
              opk[op], sum_ops[op], sum_bytes[op], total, tbytes);
        CHECK(ctx, sum_bytes[op] == (op == SBIO_FSYNC ? 0 : sum_ops[op] * (int64_t)BLOCK),
              "%s: the samples' bytes %" PRId64 " != their ops %" PRId64 " x block", opk[op],
              sum_bytes[op], sum_ops[op]);
        total_all += total;
        sum_all += sum_ops[op];
    }
    /* What is missing is the last partial interval's: at most about one interval's worth at
     * the highest rate seen (x2: the rate of a small set on a real disk swings), plus the
     * end fsyncs, which come after it. */
    int64_t missing = total_all - sum_all;
    int64_t end = jint(ctx, res, "op_types/fsync/end");
    double bound = 2 * max_rate * fmax(uncovered, interval) + (double)end + (double)r->cfg.threads;
    CHECK(ctx, (double)missing <= bound,
          "the samples hold %" PRId64 " of %" PRId64 " ops: %" PRId64
          " missing, more than one interval's worth (%.0f at the highest rate seen)",
          sum_all, total_all, missing, bound);
}

static bool mode_reads(int m)
{
    return m == SBIO_MODE_SEQRD || m == SBIO_MODE_RNDRD || m == SBIO_MODE_RNDRW;
}
static bool mode_writes(int m)
{
    return !mode_reads(m) || m == SBIO_MODE_RNDRW;
}

static void check_result(struct ran *r)
{
    const char *ctx = r->ctx;
    const struct sbio_config *cfg = &r->cfg;
    json_t *res = jat(r->back, "result");
    check_fields(ctx, res, "result", result_spec, N(result_spec), true);
    CHECK(ctx, json_is_false(json_object_get(res, "interrupted")), "interrupted");
    CHECK(ctx, json_is_null(json_object_get(res, "signal")), "signal not null");
    CHECK(ctx, json_array_size(json_object_get(res, "errors")) == 0, "errors not empty");
    double elapsed = jnum(ctx, res, "elapsed_s");
    CHECK(ctx, near_rel(elapsed, (double)r->res.elapsed_ns / 1e9, 1e-12), "elapsed_s %.9f",
          elapsed);
    CHECK(ctx, elapsed > 0, "elapsed_s %g", elapsed);
    if (cfg->time_s)
        CHECK(ctx, elapsed >= (double)cfg->time_s * 0.999 && elapsed < (double)cfg->time_s + 1,
              "elapsed_s %.3f for --time=%" PRIu64, elapsed, cfg->time_s);

    /* op_types */
    json_t *ot = json_object_get(res, "op_types");
    check_fields(ctx, ot, "result.op_types", optypes_spec, N(optypes_spec), true);
    static const char *const opk[NOPK] = {"read", "write", "fsync", "rmw"};
    int64_t ops[NOPK], bytes[NOPK], cnt[NOPK], mins[NOPK], maxs[NOPK], sums[NOPK];
    for (int op = 0; op < NOPK; op++) {
        char where[48];
        snprintf(where, sizeof(where), "result.op_types.%s", opk[op]);
        json_t *o = json_object_get(ot, opk[op]);
        check_fields(ctx, o, where, optype_spec, op == SBIO_FSYNC ? N(optype_spec) : OPTYPE_COMMON,
                     true);
        ops[op] = jint(ctx, o, "ops");
        bytes[op] = jint(ctx, o, "bytes");
        CHECK(ctx, near_rel(jnum(ctx, o, "ops_per_s"), (double)ops[op] / elapsed, 1e-9),
              "%s.ops_per_s %g, ops / elapsed_s %g", where, jnum(ctx, o, "ops_per_s"),
              (double)ops[op] / elapsed);
        CHECK(ctx,
              near_rel(jnum(ctx, o, "mib_per_s"), (double)bytes[op] / (double)SBIO_MIB / elapsed,
                       1e-9),
              "%s.mib_per_s %g, bytes / 2^20 / elapsed_s %g", where, jnum(ctx, o, "mib_per_s"),
              (double)bytes[op] / (double)SBIO_MIB / elapsed);
        /* Fixed-size requests: every read and write moves one block. */
        CHECK(ctx, bytes[op] == (op == SBIO_FSYNC ? 0 : ops[op] * (int64_t)BLOCK),
              "%s: bytes %" PRId64 " != ops %" PRId64 " x %llu", where, bytes[op], ops[op], BLOCK);
        char lw[64];
        snprintf(lw, sizeof(lw), "%s.latency", where);
        json_t *l = json_object_get(o, "latency");
        check_latency(ctx, l, lw, true);
        cnt[op] = jint(ctx, l, "count");
        mins[op] = jint(ctx, l, "min_ns");
        maxs[op] = jint(ctx, l, "max_ns");
        sums[op] = jint(ctx, l, "sum_ns");
        if (op != SBIO_FSYNC)
            CHECK(ctx, cnt[op] == ops[op], "%s: latency.count %" PRId64 " != ops %" PRId64, where,
                  cnt[op], ops[op]);
    }
    int64_t periodic = jint(ctx, ot, "fsync/periodic"), end = jint(ctx, ot, "fsync/end");
    int64_t in_writes = jint(ctx, ot, "fsync/in_writes");
    CHECK(ctx, ops[SBIO_FSYNC] == periodic + end + in_writes,
          "fsync.ops %" PRId64 " != periodic %" PRId64 " + end %" PRId64 " + in_writes %" PRId64,
          ops[SBIO_FSYNC], periodic, end, in_writes);
    CHECK(ctx, cnt[SBIO_FSYNC] == periodic + end,
          "fsync latency.count %" PRId64 " != periodic + end %" PRId64, cnt[SBIO_FSYNC],
          periodic + end);
    int64_t events = jint(ctx, res, "events"), all = jint(ctx, res, "ops");
    CHECK(ctx, events == ops[SBIO_READ] + ops[SBIO_WRITE] + ops[SBIO_RMW] + periodic,
          "events %" PRId64 " != reads %" PRId64 " + writes %" PRId64 " + rmws %" PRId64
          " + periodic fsyncs %" PRId64,
          events, ops[SBIO_READ], ops[SBIO_WRITE], ops[SBIO_RMW], periodic);
    CHECK(ctx, all == events + end + in_writes,
          "ops %" PRId64 " != events + end fsyncs + fsyncs in writes %" PRId64, all,
          events + end + in_writes);
    CHECK(ctx, all == ops[0] + ops[1] + ops[2] + ops[3], "ops %" PRId64 " != sum over op types",
          all);
    if (cfg->events)
        CHECK(ctx, events == (int64_t)cfg->events, "events %" PRId64 ", --events=%" PRIu64, events,
              cfg->events);
    /* What the mode does. */
    CHECK(ctx, (ops[SBIO_READ] > 0) == mode_reads(cfg->mode), "read ops %" PRId64, ops[SBIO_READ]);
    CHECK(ctx, (ops[SBIO_WRITE] > 0) == mode_writes(cfg->mode), "write ops %" PRId64,
          ops[SBIO_WRITE]);
    if (mode_writes(cfg->mode)) {
        CHECK(ctx, in_writes == (cfg->fsync_all ? ops[SBIO_WRITE] : 0),
              "in_writes %" PRId64 " with %" PRId64 " writes", in_writes, ops[SBIO_WRITE]);
        /* --file-fsync-all replaces the end fsyncs (workload.c); otherwise each thread
         * fsyncs the set at the end. */
        CHECK(ctx,
              cfg->fsync_all
                  ? end == 0
                  : end > 0 && end <= (int64_t)(cfg->threads * NFILES) && end % NFILES == 0,
              "end fsyncs %" PRId64, end);
        /* Periodic fsyncs every --file-fsync-freq requests of a thread, when each thread
         * gets that many. */
        if (!cfg->fsync_all && (cfg->time_s || cfg->events >= 4 * cfg->threads * cfg->fsync_freq))
            CHECK(ctx, periodic > 0, "no periodic fsync");
    } else {
        CHECK(ctx, ops[SBIO_FSYNC] == 0, "a read-only mode fsynced %" PRId64 " times",
              ops[SBIO_FSYNC]);
    }

    /* latency_all: the op types together. */
    json_t *la = json_object_get(res, "latency_all");
    check_latency(ctx, la, "result.latency_all", false);
    int64_t lmin = INT64_MAX, lmax = 0;
    for (int op = 0; op < NOPK; op++)
        if (cnt[op]) {
            lmin = mins[op] < lmin ? mins[op] : lmin;
            lmax = maxs[op] > lmax ? maxs[op] : lmax;
        }
    CHECK(ctx, jint(ctx, la, "count") == cnt[0] + cnt[1] + cnt[2] + cnt[3], "latency_all.count");
    CHECK(ctx, jint(ctx, la, "sum_ns") == sums[0] + sums[1] + sums[2] + sums[3],
          "latency_all.sum_ns");
    CHECK(ctx, jint(ctx, la, "min_ns") == lmin && jint(ctx, la, "max_ns") == lmax,
          "latency_all min/max %" PRId64 "/%" PRId64 ", op types' %" PRId64 "/%" PRId64,
          jint(ctx, la, "min_ns"), jint(ctx, la, "max_ns"), lmin, lmax);

    /* threads: the totals are their sums. */
    json_t *th = json_object_get(res, "threads");
    CHECK(ctx, json_array_size(th) == cfg->threads, "%zu threads, want %" PRIu64,
          json_array_size(th), cfg->threads);
    int64_t s_events = 0, s_ops = 0, s_type[NOPK] = {0}, s_br = 0, s_bw = 0, s_cnt = 0, s_sum = 0,
            t_max = 0;
    size_t i;
    json_t *t;
    json_array_foreach(th, i, t)
    {
        char where[48];
        snprintf(where, sizeof(where), "result.threads[%zu]", i);
        check_fields(ctx, t, where, thread_spec, N(thread_spec), true);
        CHECK(ctx, jint(ctx, t, "thread") == (int64_t)i, "%s.thread", where);
        int64_t te = jint(ctx, t, "events"), to = jint(ctx, t, "ops");
        int64_t tr = jint(ctx, t, "read_ops"), tw = jint(ctx, t, "write_ops");
        int64_t tf = jint(ctx, t, "fsync_ops"), tm = jint(ctx, t, "rmw_ops");
        int64_t br = jint(ctx, t, "bytes_read"), bw = jint(ctx, t, "bytes_written");
        CHECK(ctx, to == tr + tw + tf + tm, "%s: ops %" PRId64 " != read + write + fsync + rmw ops",
              where, to);
        CHECK(ctx, te >= tr + tw + tm && te <= tr + tw + tf + tm,
              "%s: events %" PRId64 " outside [reads + writes + rmws, ops]", where, te);
        /* A read-modify-write reads and writes its block. */
        CHECK(ctx, br == (tr + tm) * (int64_t)BLOCK && bw == (tw + tm) * (int64_t)BLOCK,
              "%s: bytes %" PRId64 "/%" PRId64 " != ops x block", where, br, bw);
        double dur = jnum(ctx, t, "duration_s");
        CHECK(ctx, dur > 0 && dur <= elapsed + 1e-9, "%s.duration_s %.9f (elapsed %.9f)", where,
              dur, elapsed);
        CHECK(ctx, near_rel(jnum(ctx, t, "ops_per_s"), (double)to / dur, 1e-9), "%s.ops_per_s",
              where);
        CHECK(ctx,
              near_rel(jnum(ctx, t, "mib_per_s"), (double)(br + bw) / (double)SBIO_MIB / dur, 1e-9),
              "%s.mib_per_s", where);
        char lw[64];
        snprintf(lw, sizeof(lw), "%s.latency", where);
        json_t *l = json_object_get(t, "latency");
        check_latency(ctx, l, lw, false);
        int64_t lc = jint(ctx, l, "count");
        CHECK(ctx, cfg->fsync_all ? lc == to - tw : lc == to,
              "%s: latency.count %" PRId64 " with %" PRId64 " ops", where, lc, to);
        CHECK(ctx, near_rel(jnum(ctx, t, "busy_s"), dur, 1e-9),
              "%s.busy_s %.9f != its wall time %.9f", where, jnum(ctx, t, "busy_s"), dur);
        s_events += te, s_ops += to, s_br += br, s_bw += bw, s_cnt += lc;
        s_type[0] += tr, s_type[1] += tw, s_type[2] += tf, s_type[3] += tm;
        s_sum += jint(ctx, l, "sum_ns");
        if (jint(ctx, l, "max_ns") > t_max)
            t_max = jint(ctx, l, "max_ns");
    }
    CHECK(ctx, s_ops == all, "result.ops %" PRId64 " != sum over threads %" PRId64, all, s_ops);
    CHECK(ctx, s_events == events, "result.events %" PRId64 " != sum over threads %" PRId64, events,
          s_events);
    for (int op = 0; op < NOPK; op++)
        CHECK(ctx, s_type[op] == ops[op], "op_types.%s.ops %" PRId64 " != threads' %" PRId64,
              opk[op], ops[op], s_type[op]);
    CHECK(ctx,
          s_br == bytes[SBIO_READ] + bytes[SBIO_RMW] && s_bw == bytes[SBIO_WRITE] + bytes[SBIO_RMW],
          "threads' bytes");
    CHECK(ctx, s_cnt == jint(ctx, la, "count") && s_sum == jint(ctx, la, "sum_ns") && t_max == lmax,
          "threads' latency does not add up to latency_all");

    /* cpu */
    json_t *cpu = json_object_get(res, "cpu");
    check_fields(ctx, cpu, "result.cpu", cpu_spec, N(cpu_spec), true);
    double us = jnum(ctx, cpu, "user_s"), ss = jnum(ctx, cpu, "system_s");
    CHECK(ctx, us >= 0 && ss >= 0 && us + ss > 0, "cpu %g + %g s", us, ss);
    CHECK(ctx, near_rel(jnum(ctx, cpu, "user_pct"), 100 * us / elapsed, 1e-9), "cpu.user_pct");
    CHECK(ctx, near_rel(jnum(ctx, cpu, "system_pct"), 100 * ss / elapsed, 1e-9), "cpu.system_pct");

    CHECK(ctx, jint(ctx, cpu, "minor_faults") >= 0 && jint(ctx, cpu, "major_faults") >= 0,
          "cpu: negative fault count");

    /* queue_depth: for queued engines only */
    json_t *qd = json_object_get(res, "queue_depth");
    if (cfg->ioengine == sbio_engine_id("sync"))
        CHECK(ctx, json_is_null(qd), "queue_depth not null with the sync engine");
    if (!json_is_null(qd)) {
        check_fields(ctx, qd, "result.queue_depth", qdepth_spec, N(qdepth_spec), true);
        CHECK(ctx, jnum(ctx, qd, "avg") <= (double)jint(ctx, qd, "max"), "queue_depth avg > max");
    }

    /* group: a script job's (these runs have none) */
    CHECK(ctx, json_is_null(json_object_get(res, "group")), "group not null without a group");

    /* verify: only with --verify (these runs have it off) */
    json_t *vf = json_object_get(res, "verify");
    if (!cfg->verify)
        CHECK(ctx, json_is_null(vf), "verify not null without --verify");
    else
        check_fields(ctx, vf, "result.verify", verify_spec, N(verify_spec), true);

    /* devices: deltas; bytes from sectors */
    json_t *devs = json_object_get(res, "devices");
    json_t *d;
    json_array_foreach(devs, i, d)
    {
        check_fields(ctx, d, "result.devices[]", res_dev_spec, N(res_dev_spec), true);
        CHECK(ctx, jint(ctx, d, "bytes_read") == 512 * jint(ctx, d, "sectors_read"),
              "devices[%zu].bytes_read", i);
        CHECK(ctx, jint(ctx, d, "bytes_written") == 512 * jint(ctx, d, "sectors_written"),
              "devices[%zu].bytes_written", i);
        for (size_t k = 1; k < N(res_dev_spec); k++)
            if (res_dev_spec[k].type == JT_INT)
                CHECK(ctx, jint(ctx, d, res_dev_spec[k].name) >= 0, "devices[%zu].%s < 0", i,
                      res_dev_spec[k].name);
        CHECK(ctx,
              near_rel(jnum(ctx, d, "util_pct"),
                       fmin(100.0, 100.0 * (double)jint(ctx, d, "io_ms") / 1e3 / elapsed), 1e-9),
              "devices[%zu].util_pct", i);
        CHECK(ctx,
              near_rel(jnum(ctx, d, "avg_queue"),
                       (double)jint(ctx, d, "time_in_queue_ms") / 1e3 / elapsed, 1e-9),
              "devices[%zu].avg_queue", i);
        CHECK(ctx, !strcmp(jstr(ctx, d, "name"), r->res.probe.devices.name[i]), "devices[%zu].name",
              i);
    }
    CHECK(ctx, json_array_size(devs) == r->res.probe.devices.ndisk,
          "%zu devices, the run measured %u", json_array_size(devs), r->res.probe.devices.ndisk);

    /* page_cache */
    json_t *pc = json_object_get(res, "page_cache");
    CHECK(ctx, json_is_null(pc) == !r->res.probe.page_cache.have,
          "page_cache null: %d, have_cache %d", json_is_null(pc), r->res.probe.page_cache.have);
    if (!json_is_null(pc)) {
        check_fields(ctx, pc, "result.page_cache", cache_spec, N(cache_spec), true);
        check_fields(ctx, json_object_get(pc, "start"), "result.page_cache.start", cache_state_spec,
                     N(cache_state_spec), true);
        check_fields(ctx, json_object_get(pc, "end"), "result.page_cache.end", cache_state_spec,
                     N(cache_state_spec), true);
        int64_t pages = (int64_t)(NFILES * FILE_SIZE) / sysconf(_SC_PAGESIZE);
        CHECK(ctx, jint(ctx, pc, "end/cached_pages") <= pages, "more pages cached than the set");
    }

    /* seqwr leaves what its shared stream did not reach on its first pass to the next
     * command (the set is marked short), and completes nothing after the measured phase. */
    int64_t completed = jint(ctx, res, "seqwr_completed_bytes");
    int64_t left = jint(ctx, res, "seqwr_left_bytes");
    int64_t set = (int64_t)(NFILES * FILE_SIZE);
    if (cfg->mode == SBIO_MODE_SEQWR)
        CHECK(ctx, left == (bytes[SBIO_WRITE] < set ? set - bytes[SBIO_WRITE] : 0),
              "seqwr_left_bytes %" PRId64 " after writing %" PRId64 " of %" PRId64, left,
              bytes[SBIO_WRITE], set);
    else
        CHECK(ctx, left == 0, "seqwr_left_bytes %" PRId64 " outside seqwr", left);
    CHECK(ctx, completed == 0, "seqwr_completed_bytes %" PRId64 " of a run that did not fail",
          completed);
    CHECK(ctx, jint(ctx, res, "direct_skipped_tail_bytes") == 0, "direct_skipped_tail_bytes");

    check_samples(r);
}

static void check_document(struct ran *r)
{
    const char *ctx = r->ctx;
    json_t *doc = r->back;
    check_fields(ctx, doc, "(document)", root_spec, N(root_spec), true);
    assert_string_equal(jstr(ctx, doc, "schema"), "sbio-result/1");
    assert_string_equal(jstr(ctx, doc, "sbio_version"), SBIO_VERSION);
    assert_string_equal(jstr(ctx, doc, "command"), "run");
    json_t *argv = json_object_get(doc, "command_line");
    assert_int_equal(json_array_size(argv), r->cfg.argc);
    for (int i = 0; i < r->cfg.argc; i++)
        assert_string_equal(json_string_value(json_array_get(argv, i)), r->cfg.argv[i]);
    /* ISO 8601 UTC, made just now. */
    struct tm tm = {0};
    const char *when = jstr(ctx, doc, "finished_utc");
    const char *endp = strptime(when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    CHECK(ctx, endp && !*endp, "finished_utc '%s' is not YYYY-MM-DDTHH:MM:SSZ", when);
    double age = difftime(time(NULL), timegm(&tm));
    CHECK(ctx, age >= -1 && age < 120, "finished_utc '%s' is %.0f s away from now", when, age);
    check_config(r);
    check_environment(r, false);
    check_result(r);
}

/* ---- CSV ---- */

/* The columns and their JSON paths, as doc/json.md's CSV table lists them. */
/* The columns and their JSON paths, as doc/json.md's CSV table lists them: the head's, each
 * file-system op type's (csv_map_fs: OP_ops, …; MiB/s for those that move data), the tail's. */
static const char *const csv_map_head[][2] = {
    {"sbio_version", "sbio_version"},
    {"finished_utc", "finished_utc"},
    {"file_test_mode", "config/file_test_mode"},
    {"threads", "config/threads"},
    {"ioengine", "config/ioengine"},
    {"file_extra_flags", "config/file_extra_flags"},
    {"block_size_bytes", "config/block_size_bytes"},
    {"file_num", "config/file_num"},
    {"total_size_bytes", "config/total_size_bytes"},
    {"scheduler", "environment/scheduler"},
    {"rand_seed", "config/rand_seed"},
    {"elapsed_s", "result/elapsed_s"},
    {"events", "result/events"},
    {"interrupted", "result/interrupted"},
    {"read_ops", "result/op_types/read/ops"},
    {"write_ops", "result/op_types/write/ops"},
    {"fsync_ops", "result/op_types/fsync/ops"},
    {"read_ops_per_s", "result/op_types/read/ops_per_s"},
    {"write_ops_per_s", "result/op_types/write/ops_per_s"},
    {"fsync_ops_per_s", "result/op_types/fsync/ops_per_s"},
    {"read_mib_per_s", "result/op_types/read/mib_per_s"},
    {"write_mib_per_s", "result/op_types/write/mib_per_s"},
    {"read_lat_mean_ns", "result/op_types/read/latency/mean_ns"},
    {"read_lat_p50_ns", "result/op_types/read/latency/percentiles_ns/50"},
    {"read_lat_p95_ns", "result/op_types/read/latency/percentiles_ns/95"},
    {"read_lat_p99_ns", "result/op_types/read/latency/percentiles_ns/99"},
    {"read_lat_max_ns", "result/op_types/read/latency/max_ns"},
    {"write_lat_mean_ns", "result/op_types/write/latency/mean_ns"},
    {"write_lat_p50_ns", "result/op_types/write/latency/percentiles_ns/50"},
    {"write_lat_p95_ns", "result/op_types/write/latency/percentiles_ns/95"},
    {"write_lat_p99_ns", "result/op_types/write/latency/percentiles_ns/99"},
    {"write_lat_max_ns", "result/op_types/write/latency/max_ns"},
    {"fsync_lat_mean_ns", "result/op_types/fsync/latency/mean_ns"},
    {"fsync_lat_p99_ns", "result/op_types/fsync/latency/percentiles_ns/99"},
};
static const char *const csv_map_fs[][2] = {
    {"ops", "ops"},
    {"ops_per_s", "ops_per_s"},
    {"mib_per_s", "mib_per_s"},
    {"lat_mean_ns", "latency/mean_ns"},
    {"lat_p99_ns", "latency/percentiles_ns/99"},
};
static const char *const csv_map_tail[][2] = {
    {"skipped", "result/skipped"},
    {"cpu_user_pct", "result/cpu/user_pct"},
    {"cpu_system_pct", "result/cpu/system_pct"},
    {"error", "result/errors/0/message"},
};
/* The four file-system op types that move data (a MiB/s column), then the seven others. */
#define CSV_FS_COLS (4 * N(csv_map_fs) + 7 * (N(csv_map_fs) - 1))
static char csv_map_names[CSV_FS_COLS][2][64];
static const char *csv_map[N(csv_map_head) + CSV_FS_COLS + N(csv_map_tail)][2];

/* Fill csv_map from its three parts (group_setup). */
static void csv_map_build(void)
{
    size_t at = 0, f = 0;
    for (size_t i = 0; i < N(csv_map_head); i++, at++)
        csv_map[at][0] = csv_map_head[i][0], csv_map[at][1] = csv_map_head[i][1];
    for (int op = SBIO_OP_FS_FIRST; op < SBIO_OP_NR; op++)
        for (size_t k = 0; k < N(csv_map_fs); k++) {
            if (k == 2 && op > SBIO_WRITEWHOLE)
                continue;
            assert_true(f < CSV_FS_COLS);
            snprintf(csv_map_names[f][0], 64, "%s_%s", sbio_op_name(op), csv_map_fs[k][0]);
            snprintf(csv_map_names[f][1], 64, "result/op_types/%s/%s", sbio_op_name(op),
                     csv_map_fs[k][1]);
            csv_map[at][0] = csv_map_names[f][0], csv_map[at++][1] = csv_map_names[f++][1];
        }
    assert_int_equal(f, CSV_FS_COLS);
    for (size_t i = 0; i < N(csv_map_tail); i++, at++)
        csv_map[at][0] = csv_map_tail[i][0], csv_map[at][1] = csv_map_tail[i][1];
}

#define CSV_MAX 128

/* Split one CSV line (RFC 4180 quoting, no newline inside fields) in place. Returns the
 * field count; *next is set after the line. */
static int csv_split(char *line, char **fields, int max, char **next)
{
    int n = 0;
    char *r = line, *w = line;
    for (;;) {
        if (n == max)
            return -1;
        fields[n++] = w;
        if (*r == '"') {
            r++;
            for (;;) {
                if (!*r)
                    return -1;
                if (*r == '"' && r[1] == '"')
                    *w++ = '"', r += 2;
                else if (*r == '"') {
                    r++;
                    break;
                } else
                    *w++ = *r++;
            }
        } else {
            while (*r && *r != ',' && *r != '\n')
                *w++ = *r++;
        }
        if (*r == ',') {
            *w++ = 0;
            r++;
            continue;
        }
        if (*r != '\n')
            return -1; /* junk after a quoted field, or no newline at the end */
        *w = 0;
        *next = r + 1;
        return n;
    }
}

/* One cell against the JSON value at the column's path. */
static void check_cell(const char *ctx, const char *col, const char *cell, json_t *v)
{
    char *end;
    if (!v || json_is_null(v)) {
        CHECK(ctx, !*cell, "CSV %s = '%s', JSON null", col, cell);
    } else if (json_is_string(v)) {
        CHECK(ctx, !strcmp(cell, json_string_value(v)), "CSV %s = '%s', JSON '%s'", col, cell,
              json_string_value(v));
    } else if (json_is_integer(v)) {
        errno = 0;
        long long x = strtoll(cell, &end, 10);
        CHECK(ctx, *cell && !*end && !errno && x == json_integer_value(v),
              "CSV %s = '%s', JSON %" JSON_INTEGER_FORMAT, col, cell, json_integer_value(v));
    } else if (json_is_real(v)) {
        double x = strtod(cell, &end), want = json_real_value(v);
        /* One format per kind of column: whole nanoseconds, else three decimals; no exponent. */
        bool ns = strlen(col) > 3 && !strcmp(col + strlen(col) - 3, "_ns");
        const char *dot = strchr(cell, '.');
        CHECK(ctx, *cell && !*end && !strpbrk(cell, "eE") && fabs(x - want) <= (ns ? 0.5 : 5e-4),
              "CSV %s = '%s', JSON %.17g", col, cell, want);
        CHECK(ctx, ns ? !dot : dot && strlen(dot) == 4, "CSV %s = '%s': not in its column's format",
              col, cell);
    } else if (json_is_boolean(v)) {
        CHECK(ctx, !strcmp(cell, json_is_true(v) ? "true" : "false"), "CSV %s = '%s', JSON %s", col,
              cell, json_is_true(v) ? "true" : "false");
    } else {
        FAILF(ctx, "CSV %s: the JSON value is an object or array", col);
    }
}

/* What sbio_report_csv writes of doc, with the header or without; the caller frees it. */
static char *csv_of(json_t *doc, bool header)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(sbio_report_csv(f, doc, header), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* sbio_report_csv of doc (with and without the header), every value checked against back. */
static void check_csv(const char *ctx, json_t *doc, json_t *back)
{
    char *buf = csv_of(doc, true), *line_only = csv_of(doc, false);

    /* Without the header: the same line alone. */
    char *second = strchr(buf, '\n');
    assert_non_null(second);
    CHECK(ctx, !strcmp(second + 1, line_only), "CSV without header:\n%s\nwith:\n%s", line_only,
          buf);

    /* The header a file appended to is checked against (main.c) is the one written. */
    char head[SBIO_CSV_HEADER_MAX];
    assert_int_equal(sbio_report_csv_header(head, sizeof(head), false), 0);
    CHECK(ctx, !strncmp(buf, head, strlen(head)) && buf[strlen(head)] == '\n',
          "CSV header: not the one sbio_report_csv_header gives");
    char *hdr[CSV_MAX], *val[CSV_MAX], *next;
    int nh = csv_split(buf, hdr, CSV_MAX, &next);
    CHECK(ctx, nh == (int)N(csv_map), "CSV header: %d columns, doc/json.md lists %zu", nh,
          N(csv_map));
    int nv = csv_split(next, val, CSV_MAX, &next);
    CHECK(ctx, nv == nh, "CSV line: %d values for %d columns", nv, nh);
    CHECK(ctx, !*next, "CSV: more than one header and one line: '%s'", next);
    for (int i = 0; i < nh; i++) {
        size_t k = 0;
        while (k < N(csv_map) && strcmp(csv_map[k][0], hdr[i]))
            k++;
        CHECK(ctx, k < N(csv_map), "CSV column '%s' is not in doc/json.md", hdr[i]);
        for (int j = 0; j < i; j++)
            CHECK(ctx, strcmp(hdr[j], hdr[i]), "CSV column '%s' twice", hdr[i]);
        /* In the documented order. */
        CHECK(ctx, k == (size_t)i, "CSV column %d is '%s', doc/json.md has '%s' there", i, hdr[i],
              csv_map[i][0]);
        check_cell(ctx, hdr[i], val[i], jat(back, csv_map[k][1]));
    }
    free(buf);
    free(line_only);
}

/* The written form (sbio_report_json: indented, 10 significant digits) reads back to the
 * same document, reals within 1e-9. */
static bool json_close(json_t *a, json_t *b)
{
    if (json_is_real(a) || json_is_real(b))
        return json_is_number(a) && json_is_number(b) &&
               near_rel(json_number_value(a), json_number_value(b), 1e-9);
    if (json_is_object(a)) {
        if (!json_is_object(b) || json_object_size(a) != json_object_size(b))
            return false;
        const char *k;
        json_t *v;
        json_object_foreach(a, k, v) if (!json_close(v, json_object_get(b, k))) return false;
        return true;
    }
    if (json_is_array(a)) {
        if (!json_is_array(b) || json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!json_close(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    return json_equal(a, b);
}

static void check_written(const char *ctx, json_t *doc, json_t *back)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(sbio_report_json(f, doc), 0);
    assert_int_equal(fclose(f), 0);
    CHECK(ctx, len > 2 && buf[len - 1] == '\n', "sbio_report_json: no final newline");
    json_error_t err;
    json_t *w = json_loads(buf, 0, &err);
    CHECK(ctx, w, "sbio_report_json's output does not parse: %s (line %d)", err.text, err.line);
    CHECK(ctx, json_close(w, back), "sbio_report_json's output differs from the document");
    json_decref(w);
    free(buf);
}

/* ---- the tests ---- */

static void run_and_check(const struct run_spec *s)
{
    struct ran *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    run_spec(r, s);
    check_document(r);
    check_csv(r->ctx, r->doc, r->back);
    check_written(r->ctx, r->doc, r->back);
    if (s->mode == SBIO_MODE_SEQWR) {
        /* What the run did not reach is left to the next command, which writes it first (as
         * a run's pipeline does): the set is whole again. */
        uint64_t left = sbio_fileset_unwritten(&r->fs), written = 0;
        assert_int_equal(left ? sbio_fileset_finish_short(&r->fs, &written) : 0, 0);
        assert_int_equal(written, left);
        for (int i = 0; i < NFILES; i++) {
            char p[128];
            struct stat st;
            snprintf(p, sizeof(p), "%s/test_file.%d", g_dir, i);
            assert_int_equal(stat(p, &st), 0);
            assert_int_equal(st.st_size, FILE_SIZE);
        }
    }
    ran_free(r);
    free(r);
}

static void test_seqwr(void **state)
{
    (void)state;
    run_and_check(&(struct run_spec){.mode = SBIO_MODE_SEQWR, .threads = 1, .events = 3000});
    /* Stopped before the first pass ends: the rest is left to the next command. */
    run_and_check(&(struct run_spec){.mode = SBIO_MODE_SEQWR, .threads = 2, .events = 40});
}

static void test_seqrewr(void **state)
{
    (void)state;
    run_and_check(&(struct run_spec){.mode = SBIO_MODE_SEQREWR, .threads = 2, .events = 3000});
    /* fsync after every write: in_writes, no end fsyncs. */
    run_and_check(&(struct run_spec){
        .mode = SBIO_MODE_SEQREWR, .threads = 2, .events = 1000, .fsync_all = true});
}

static void test_seqrd(void **state)
{
    (void)state;
    run_and_check(&(struct run_spec){.mode = SBIO_MODE_SEQRD, .threads = 3, .events = 5000});
}

static void test_rndrd(void **state)
{
    (void)state;
    run_and_check(&(struct run_spec){.mode = SBIO_MODE_RNDRD, .threads = 1, .events = 5000});
}

static void test_rndwr(void **state)
{
    (void)state;
    run_and_check(&(struct run_spec){.mode = SBIO_MODE_RNDWR, .threads = 3, .events = 3000});
}

static void test_rndrw(void **state)
{
    (void)state;
    run_and_check(&(struct run_spec){.mode = SBIO_MODE_RNDRW, .threads = 2, .events = 4000});
}

/* A time-limited run with --log-interval: the time series. */
static void test_log_interval(void **state)
{
    (void)state;
    run_and_check(
        &(struct run_spec){.mode = SBIO_MODE_RNDRW, .threads = 3, .time_s = 1, .log_ms = 100});
}

/* The environment and the device counters when the set's devices are known (whatever this
 * machine has: a block device, or none on tmpfs/overlay). */
static void test_with_target(void **state)
{
    (void)state;
    struct ran *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    run_spec(r, &(struct run_spec){
                    .mode = SBIO_MODE_RNDRD, .threads = 2, .events = 2000, .target = true});
    check_environment(r, true);
    check_result(r);
    check_csv(r->ctx, r->doc, r->back);
    struct sbio_target t;
    if (!sbio_sysblock_resolve(g_dir, NULL, &t)) {
        json_t *fsj = jat(r->back, "environment/filesystem");
        assert_string_equal(jstr(r->ctx, fsj, "type"), t.fstype);
        assert_string_equal(jstr(r->ctx, fsj, "mountpoint"), t.mountpoint);
        json_t *devs = jat(r->back, "environment/devices");
        assert_int_equal(json_array_size(devs) > 0, t.has_top);
        if (t.has_top)
            assert_string_equal(jstr(r->ctx, devs, "0/name"), t.top.name);
    }
    ran_free(r);
    free(r);
}

/* An interrupted run with an I/O error: the result says so in both formats, and the error
 * message survives CSV quoting. The figures are a real run's; the outcome is set by hand. */
/* Read-modify-writes (a script's mix makes them; added here to a real rndrd run's figures,
 * 300 of a block and 2 ms on thread 0): op_types.rmw with its block's bytes once, rmw_ops per
 * thread, their bytes in the thread's bytes_read and bytes_written, the CSV as the document; the
 * document's sums still hold. */
static void test_rmw(void **state)
{
    (void)state;
    struct ran *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    run_spec(r, &(struct run_spec){.mode = SBIO_MODE_RNDRD, .threads = 2, .events = 1000});
    struct sbio_io io = {.op = SBIO_RMW, .len = BLOCK};
    for (int i = 0; i < 300; i++) {
        sbio_stats_record_io(&r->res.per_thread[0], &io, 2000000);
        sbio_stats_record_io(&r->res.total, &io, 2000000);
    }
    r->cfg.events = 1300; /* the run's events and the rmws: the document's checks count both */
    json_decref(r->doc);
    json_decref(r->back);
    r->doc = sbio_json_result(TOF(&r->cfg), &r->fs, &r->res, NULL);
    assert_non_null(r->doc);
    r->back = json_deep_copy(r->doc);
    check_result(r);
    check_csv(r->ctx, r->doc, r->back);
    const char *ctx = "rmw";
    json_t *res = jat(r->back, "result");
    double elapsed = jnum(ctx, res, "elapsed_s");
    assert_int_equal(jint(ctx, res, "op_types/rmw/ops"), 300);
    assert_int_equal(jint(ctx, res, "op_types/rmw/bytes"), 300 * BLOCK);
    assert_int_equal(jint(ctx, res, "op_types/rmw/latency/count"), 300);
    assert_true(near_rel(jnum(ctx, res, "op_types/rmw/mib_per_s"),
                         300.0 * BLOCK / SBIO_MIB / elapsed, 1e-9));
    assert_int_equal(jint(ctx, res, "events"), 1300);
    assert_int_equal(jint(ctx, res, "threads/0/rmw_ops"), 300);
    assert_int_equal(jint(ctx, res, "threads/1/rmw_ops"), 0);
    int64_t reads0 = jint(ctx, res, "threads/0/read_ops");
    assert_int_equal(jint(ctx, res, "threads/0/bytes_read"), (reads0 + 300) * (int64_t)BLOCK);
    assert_int_equal(jint(ctx, res, "threads/0/bytes_written"), 300 * BLOCK);
    ran_free(r);
    free(r);
}

static void test_error_and_signal(void **state)
{
    (void)state;
    struct ran *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    run_spec(r, &(struct run_spec){.mode = SBIO_MODE_RNDRD, .threads = 1, .events = 500});
    const char *msg = "pread test_file.1 at 16384: \"Input/output error\", stopping";
    r->res.stop_signal = SIGTERM;
    r->res.error = -EIO;
    snprintf(r->res.error_msg, sizeof(r->res.error_msg), "%s", msg);
    static struct sbio_environment snap;
    sbio_environment_read(&snap, NULL);
    json_t *env = sbio_json_environment(&snap);
    json_t *doc = sbio_json_result(TOF(&r->cfg), &r->fs, &r->res, env);
    json_decref(env);
    char *text = json_dumps(doc, 0);
    json_t *back = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(back);
    json_t *res = json_object_get(back, "result");
    check_fields(r->ctx, res, "result", result_spec, N(result_spec), true);
    assert_true(json_is_true(json_object_get(res, "interrupted")));
    assert_string_equal(jstr(r->ctx, res, "signal"), "SIGTERM");
    json_t *errs = json_object_get(res, "errors");
    assert_int_equal(json_array_size(errs), 1);
    check_fields(r->ctx, json_array_get(errs, 0), "result.errors[0]", error_spec, N(error_spec),
                 true);
    assert_string_equal(jstr(r->ctx, errs, "0/message"), msg);
    assert_int_equal(jint(r->ctx, errs, "0/errno"), EIO);
    assert_string_equal(jstr(r->ctx, errs, "0/kind"), "io");
    check_csv(r->ctx, doc, back);
    json_decref(doc);
    json_decref(back);

    r->res.stop_signal = SIGINT;
    r->res.error = 0;
    doc = sbio_json_result(TOF(&r->cfg), &r->fs, &r->res, NULL);
    assert_string_equal(jstr(r->ctx, doc, "result/signal"), "SIGINT");
    assert_int_equal(json_array_size(jat(doc, "result/errors")), 0);
    json_decref(doc);
    ran_free(r);
    free(r);
}

/* A job's group (set by hand on a real run's result): result.group with its path, hierarchy
 * and the kernel's counters; null counters when they could not be read. */
static void test_group(void **state)
{
    (void)state;
    struct ran *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    run_spec(r, &(struct run_spec){.mode = SBIO_MODE_RNDRD, .threads = 1, .events = 100});
    snprintf(r->res.probe.group_io.dir, sizeof(r->res.probe.group_io.dir),
             "/sys/fs/cgroup/blkio/sbio.1/reader");
    r->res.probe.group_io.version = SBIO_CGROUP_V1;
    r->res.probe.group_io.have = true;
    r->res.probe.group_io.io = (struct sbio_cgroup_io){
        .rbytes = 409600, .wbytes = 0, .rios = 100, .wios = 0, .source = "io.stat"};
    json_t *doc = sbio_json_result(TOF(&r->cfg), &r->fs, &r->res, NULL);
    json_t *g = jat(doc, "result/group");
    check_fields(r->ctx, g, "result.group", group_spec, N(group_spec), true);
    check_fields(r->ctx, json_object_get(g, "kernel"), "result.group.kernel", group_kernel_spec,
                 N(group_kernel_spec), true);
    assert_string_equal(jstr(r->ctx, g, "path"), "/sys/fs/cgroup/blkio/sbio.1/reader");
    assert_string_equal(jstr(r->ctx, g, "hierarchy"), "cgroup v1 blkio");
    assert_string_equal(jstr(r->ctx, g, "kernel/source"), "io.stat");
    assert_int_equal(jint(r->ctx, g, "kernel/read_bytes"), 409600);
    assert_int_equal(jint(r->ctx, g, "kernel/reads"), 100);
    json_decref(doc);
    r->res.probe.group_io.have = false;
    r->res.probe.group_io.version = SBIO_CGROUP_V2;
    doc = sbio_json_result(TOF(&r->cfg), &r->fs, &r->res, NULL);
    assert_string_equal(jstr(r->ctx, doc, "result/group/hierarchy"), "cgroup v2 io");
    assert_true(json_is_null(jat(doc, "result/group/kernel")));
    json_decref(doc);
    ran_free(r);
    free(r);
}

/* --warmup=auto: config.warmup is "auto" (an integer otherwise), result.warmup says how the
 * warm-up ended (null without auto). */
static void test_warmup_auto(void **state)
{
    (void)state;
    struct ran *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    run_spec(r, &(struct run_spec){.mode = SBIO_MODE_RNDRD, .threads = 1, .events = 100});
    json_t *doc = sbio_json_result(TOF(&r->cfg), &r->fs, &r->res, NULL);
    assert_int_equal(json_integer_value(jat(doc, "config/warmup")), 0);
    assert_true(json_is_null(jat(doc, "result/warmup")));
    json_decref(doc);
    r->cfg.warmup_auto = true;
    r->res.warmup = (struct sbio_warmup_result){.is_auto = true,
                                                .measured_from_s = 60.01,
                                                .window_s = 5.0,
                                                .spread_pct = 12.5,
                                                .slope_pct_per_s = -0.75};
    doc = sbio_json_result(TOF(&r->cfg), &r->fs, &r->res, NULL);
    assert_string_equal(json_string_value(jat(doc, "config/warmup")), "auto");
    json_t *w = jat(doc, "result/warmup");
    check_fields(r->ctx, w, "result.warmup", warmup_spec, N(warmup_spec), true);
    assert_true(json_is_true(json_object_get(w, "auto")));
    assert_true(json_is_false(json_object_get(w, "settled")));
    assert_true(jnum(r->ctx, w, "measured_from_s") == 60.01);
    assert_true(jnum(r->ctx, w, "spread_pct") == 12.5);
    assert_true(jnum(r->ctx, w, "slope_pct_per_s") == -0.75);
    json_decref(doc);
    ran_free(r);
    free(r);
}

/* A device as sysfs shows it: its settings parsed (the scheduler by its name, integers as
 * integers, text as text), the run's scheduler in environment.scheduler and in the CSV
 * column whatever --scheduler said; an older document's device (no "settings") gives the
 * same. */
static void test_settings_parsed(void **state)
{
    (void)state;
    static struct sbio_environment e;
    memset(&e, 0, sizeof(e));
    e.have_target = e.has_top = true;
    e.ndev = 2;
    struct sbio_env_dev *dm = &e.dev[0], *sd = &e.dev[1];
    snprintf(dm->name, sizeof(dm->name), "dm-0");
    dm->role = "top";
    dm->knob[0].ok = true; /* scheduler */
    snprintf(dm->knob[0].v, sizeof(dm->knob[0].v), "none");
    snprintf(sd->name, sizeof(sd->name), "sda");
    sd->role = "scheduler";
    for (unsigned i = 0; i < SBIO_ENV_KNOBS; i++) {
        const char *k = sbio_environment_knob_names[i];
        sd->knob[i].ok = true;
        snprintf(sd->knob[i].v, sizeof(sd->knob[i].v), "%s",
                 !strcmp(k, "scheduler")     ? "mq-deadline kyber [bfq] none"
                 : !strcmp(k, "write_cache") ? "write back"
                                             : "64");
    }
    sd->niosched = 2;
    snprintf(sd->iosched_name[0], sizeof(sd->iosched_name[0]), "slice_idle");
    snprintf(sd->iosched_value[0], sizeof(sd->iosched_value[0]), "8");
    snprintf(sd->iosched_name[1], sizeof(sd->iosched_name[1]), "low_latency");
    snprintf(sd->iosched_value[1], sizeof(sd->iosched_value[1]), "1");
    json_t *env = sbio_json_environment(&e);
    assert_string_equal(jstr("", env, "scheduler"), "bfq");
    assert_string_equal(jstr("", env, "devices/0/scheduler"), "none");
    assert_string_equal(jstr("", env, "devices/1/scheduler"), "bfq");
    json_t *set = jat(env, "devices/1/settings");
    assert_string_equal(jstr("", set, "scheduler"), "bfq");
    assert_int_equal(jint("", set, "nr_requests"), 64);
    assert_int_equal(jint("", set, "read_ahead_kb"), 64);
    assert_string_equal(jstr("", set, "write_cache"), "write back");
    /* Keys with a slash: read whole. */
    assert_int_equal(json_integer_value(json_object_get(set, "iosched/slice_idle")), 8);
    assert_int_equal(json_integer_value(json_object_get(set, "iosched/low_latency")), 1);
    assert_int_equal(json_object_size(set), SBIO_ENV_KNOBS + 2);
    /* An older document: queue and iosched only. */
    json_t *old = json_deep_copy(jat(env, "devices/1"));
    json_object_del(old, "settings");
    json_object_del(old, "scheduler");
    json_t *again = sbio_json_device_settings(old);
    assert_true(json_equal(again, set));
    json_decref(again);
    json_decref(old);
    /* The CSV's scheduler column: the one in effect, without --scheduler. */
    json_t *doc = json_pack("{s:{s:n},s:O,s:{s:f,s:{s:{s:{s:f}}}}}", "config", "scheduler",
                            "environment", env, "result", "elapsed_s", 10.00049, "op_types", "read",
                            "latency", "mean_ns", 1234567.6);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(sbio_report_csv(f, doc, false), 0);
    fclose(f);
    /* sbio_version, finished_utc, 7 of config: the scheduler is the 10th; elapsed_s the 12th;
     * read_lat_mean_ns the 23rd. */
    char want[256];
    size_t n = (size_t)snprintf(want, sizeof(want), ",,,,,,,,,bfq,,10.000,,,,,,,,,,,1234568");
    for (size_t i = 23; i < N(csv_map); i++)
        want[n++] = ',';
    snprintf(want + n, sizeof(want) - n, "\n");
    assert_string_equal(buf, want);
    free(buf);
    json_decref(doc);
    json_decref(env);
}

/* The figure at path of job k's document, as a share of the jobs' sum. */
static double doc_share(struct ran *const *r, unsigned n, unsigned k, const char *path)
{
    double sum = 0;
    for (unsigned j = 0; j < n; j++)
        sum += jnum(r[j]->ctx, r[j]->back, path);
    return jnum(r[k]->ctx, r[k]->back, path) / sum;
}

/* Job k's entry of a shares document against its run's own document: each share is the
 * job's figure over the jobs' sum, and each kind sums to 1. */
static void check_share_job(json_t *sj, struct ran *const *r, unsigned n, unsigned k)
{
    const char *ctx = "shares";
    check_fields(ctx, sj, "shares.jobs[]", share_job_spec, N(share_job_spec), true);
    static const char *const pairs[][2] = {
        {"ops_share", "result/ops"},
        {"read_ops_share", "result/op_types/read/ops"},
        {"write_ops_share", "result/op_types/write/ops"},
        {"read_bytes_share", "result/op_types/read/bytes"},
        {"write_bytes_share", "result/op_types/write/bytes"},
    };
    for (size_t i = 0; i < N(pairs); i++) {
        double want = doc_share(r, n, k, pairs[i][1]), got = jnum(ctx, sj, pairs[i][0]);
        CHECK(ctx, near_rel(got, want, 1e-9), "job %u: %s %.9f, its run's %s gives %.9f", k,
              pairs[i][0], got, pairs[i][1], want);
    }
    double bytes = 0, all = 0;
    for (unsigned j = 0; j < n; j++) {
        double b = jnum(ctx, r[j]->back, "result/op_types/read/bytes") +
                   jnum(ctx, r[j]->back, "result/op_types/write/bytes");
        all += b;
        bytes = j == k ? b : bytes;
    }
    CHECK(ctx, near_rel(jnum(ctx, sj, "bytes_share"), bytes / all, 1e-9), "job %u: bytes_share", k);
    double secs = jnum(ctx, r[k]->back, "result/elapsed_s");
    CHECK(ctx, near_rel(jnum(ctx, sj, "mib_per_s"), bytes / SBIO_MIB / secs, 1e-6),
          "job %u: mib_per_s", k);
}

/* The shares of real runs side by side as a phase's jobs: unweighted (weights and asked
 * shares null, the index over bytes/s), then weighted 100 (bfq_weight) : 800 (weight). */
static void test_shares_document(void **state)
{
    (void)state;
    struct ran *r[2] = {calloc(1, sizeof(struct ran)), calloc(1, sizeof(struct ran))};
    assert_true(r[0] && r[1]);
    run_spec(r[0], &(struct run_spec){.mode = SBIO_MODE_RNDRW, .threads = 1, .events = 900});
    run_spec(r[1], &(struct run_spec){.mode = SBIO_MODE_RNDRW, .threads = 2, .events = 2000});
    const struct sbio_run_result *res[2] = {&r[0]->res, &r[1]->res};
    const char *names[2] = {"small", "big"};
    struct sbio_cgroup_spec g[2] = {{.set = true, .bfq_weight = 100, .weight = 9000},
                                    {.set = true, .weight = 800}};
    for (int weighted = 0; weighted < 2; weighted++) {
        struct sbio_shares sh;
        assert_int_equal(sbio_result_shares(&sh, res, weighted ? g : NULL, 2), 0);
        json_t *doc = sbio_json_shares(&sh, names);
        char *text = json_dumps(doc, 0);
        json_t *back = json_loads(text, 0, NULL);
        assert_non_null(back);
        check_fields("shares", back, "shares", shares_spec, N(shares_spec), true);
        assert_string_equal(jstr("shares", back, "jain_over"),
                            weighted ? "bytes_per_s_per_asked_share" : "bytes_per_s");
        assert_true(fabs(jnum("shares", back, "jain_index") - sh.jain) < 1e-9);
        json_t *jobs = json_object_get(back, "jobs");
        assert_int_equal(json_array_size(jobs), 2);
        for (unsigned k = 0; k < 2; k++) {
            json_t *sj = json_array_get(jobs, k);
            check_share_job(sj, r, 2, k);
            assert_string_equal(jstr("shares", sj, "name"), names[k]);
            if (!weighted) {
                assert_true(json_is_null(json_object_get(sj, "weight")));
                assert_true(json_is_null(json_object_get(sj, "asked_share")));
                assert_true(json_is_null(json_object_get(sj, "ratio")));
                continue;
            }
            assert_int_equal(jint("shares", sj, "weight"), k ? 800 : 100);
            double asked = k ? 8.0 / 9 : 1.0 / 9;
            assert_true(fabs(jnum("shares", sj, "asked_share") - asked) < 1e-9);
            assert_true(near_rel(jnum("shares", sj, "ratio"),
                                 jnum("shares", sj, "bytes_share") / asked, 1e-9));
        }
        json_decref(back);
        json_decref(doc);
        free(text);
    }
    for (int k = 0; k < 2; k++) {
        ran_free(r[k]);
        free(r[k]);
    }
}

/* ---- a script's CSV ---- */

/* A line the script's CSV must have: its phase and job, and the run document its columns are
 * read from (NULL: every column empty but the error). */
struct script_line {
    const char *phase, *job;
    json_t *back;
    const char *error;
};

/* One line of a script's CSV (fields split) against what it must hold. */
static void check_script_line(char **val, int nv, const struct script_line *w)
{
    char ctx[96];
    snprintf(ctx, sizeof(ctx), "script CSV, phase %s, job '%s'", w->phase, w->job);
    CHECK(ctx, nv == 2 + (int)N(csv_map), "%d values for %zu columns", nv, 2 + N(csv_map));
    CHECK(ctx, !strcmp(val[0], w->phase) && !strcmp(val[1], w->job), "line of %s, '%s'", val[0],
          val[1]);
    for (size_t k = 0; k < N(csv_map); k++) {
        const char *cell = val[2 + k];
        if (w->back)
            check_cell(ctx, csv_map[k][0], cell, jat(w->back, csv_map[k][1]));
        else if (!strcmp(csv_map[k][0], "error"))
            CHECK(ctx, !strcmp(cell, w->error), "error '%s', want '%s'", cell, w->error);
        else
            CHECK(ctx, !*cell, "%s = '%s' without a result", csv_map[k][0], cell);
    }
}

/* A script's document (sbio-script/1, as pipeline.c builds it) of real runs: phase "load" of
 * two jobs and their total, phase "direct" refused, phase "late" of a job and one that
 * failed to start. Its CSV: phase and job, then the built-in columns of each job's, or the
 * total's, document; a line per job, one for the total, one for the refused phase. */
static void test_script_csv(void **state)
{
    (void)state;
    const struct run_spec specs[3] = {
        {.mode = SBIO_MODE_RNDRD, .threads = 1, .events = 400},
        {.mode = SBIO_MODE_RNDWR, .threads = 2, .events = 600},
        {.mode = SBIO_MODE_RNDRW, .threads = 3, .events = 900},
    };
    struct ran *r[3];
    for (int i = 0; i < 3; i++) {
        r[i] = calloc(1, sizeof(*r[i]));
        assert_non_null(r[i]);
        run_spec(r[i], &specs[i]);
    }
    const char *msg = "open test_file.9: \"No such file\", stopping";
    json_t *doc = json_pack(
        "{s:s,s:s,s:s,s:[{s:s,s:[{s:s,s:{},s:O},{s:s,s:{},s:O}],s:O},{s:s,s:b,s:[]},"
        "{s:s,s:[{s:s,s:{},s:O},{s:s,s:{},s:s}]}]}",
        "schema", "sbio-script/1", "sbio_version", SBIO_VERSION, "script", "x.lua", "phases",
        "name", "load", "jobs", "name", "readers", "declared", "result", r[0]->doc, "name",
        "writer, 8K", "declared", "result", r[1]->doc, "total", r[2]->doc, "name", "direct",
        "refused", true, "jobs", "name", "late", "jobs", "name", "one", "declared", "result",
        r[0]->doc, "name", "two", "declared", "error", msg);
    assert_non_null(doc);
    const struct script_line want[] = {
        {"load", "readers", r[0]->back, NULL}, {"load", "writer, 8K", r[1]->back, NULL},
        {"load", "total", r[2]->back, NULL},   {"direct", "", NULL, "phase refused"},
        {"late", "one", r[0]->back, NULL},     {"late", "two", NULL, msg},
    };
    char *buf = NULL, *lines = NULL, head[2048];
    size_t len = 0, len2 = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(sbio_report_csv(f, doc, true), 0);
    assert_int_equal(fclose(f), 0);
    f = open_memstream(&lines, &len2);
    assert_int_equal(sbio_report_csv(f, doc, false), 0);
    assert_int_equal(fclose(f), 0);
    /* The header, first and once: phase, job, then the built-in columns in their order. */
    assert_int_equal(sbio_report_csv_header(head, sizeof(head), true), 0);
    assert_int_equal(strncmp(buf, head, strlen(head)), 0);
    assert_int_equal(buf[strlen(head)], '\n');
    assert_string_equal(buf + strlen(head) + 1, lines);
    assert_int_equal(sbio_report_csv_header(head, 40, true), -ENOSPC);
    char *hdr[CSV_MAX], *val[CSV_MAX], *next;
    assert_int_equal(csv_split(buf, hdr, CSV_MAX, &next), 2 + (int)N(csv_map));
    assert_string_equal(hdr[0], "phase");
    assert_string_equal(hdr[1], "job");
    for (size_t k = 0; k < N(csv_map); k++)
        assert_string_equal(hdr[2 + k], csv_map[k][0]);
    for (size_t i = 0; i < N(want); i++) {
        CHECK("script CSV", *next, "%zu lines, want %zu", i, N(want));
        check_script_line(val, csv_split(next, val, CSV_MAX, &next), &want[i]);
    }
    CHECK("script CSV", !*next, "a line more: '%s'", next);
    free(buf);
    free(lines);
    json_decref(doc);
    for (int i = 0; i < 3; i++) {
        ran_free(r[i]);
        free(r[i]);
    }
}

/* Every field of every document above is in doc/json.md. */
static void test_no_undocumented_field(void **state)
{
    (void)state;
    if (g_undoc[0])
        fail_msg("the document has fields doc/json.md does not describe:%s", g_undoc);
}

/* A tree job's result: its file-system operations recorded as the tree engine records them,
 * over two threads in 2 s, 3 draws skipped. */
static struct sbio_stats g_fs_threads[2];
static void fs_result(struct sbio_run_result *res)
{
    memset(res, 0, sizeof(*res));
    for (int t = 0; t < 2; t++) {
        struct sbio_stats *s = &g_fs_threads[t];
        sbio_stats_init(s);
        for (int i = 0; i < 10; i++)
            sbio_stats_record(s, SBIO_CREATE, 40000 + 1000 * t, 16384, 1);
        for (int i = 0; i < 30; i++)
            sbio_stats_record(s, SBIO_STAT, 2000, 0, 1);
        for (int i = 0; i < 5; i++)
            sbio_stats_record(s, SBIO_READWHOLE, 100000, 65536, 1);
        sbio_stats_record(s, SBIO_READ, 9000, BLOCK, 1);
        s->skipped = t ? 2 : 1;
        s->start_ns = 1000000000, s->end_ns = 3000000000;
    }
    sbio_stats_init(&res->total);
    for (int t = 0; t < 2; t++)
        sbio_stats_merge(&res->total, &g_fs_threads[t]);
    res->threads = 2;
    res->per_thread = g_fs_threads;
    res->measured = true;
    res->elapsed_ns = 2000000000;
}

/* Its document: an op_types entry per type done, with the same fields as read's and the right
 * figures, none for the types not done; skipped; per thread the types' ops and skipped; ops
 * and bytes counting them. Its CSV line: their columns filled, the others empty. */
static void test_fs_document(void **state)
{
    (void)state;
    const char *ctx = "fs ops";
    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    cfg.dir = g_dir;
    struct sbio_fileset fs = {0};
    struct sbio_run_result res;
    fs_result(&res);
    json_t *doc = sbio_json_result(TOF(&cfg), &fs, &res, NULL);
    json_t *r = jat(doc, "result");
    check_fields(ctx, r, "result", result_spec, N(result_spec), false);
    check_fields(ctx, r, "result", result_fs_spec, N(result_fs_spec), false);
    CHECK(ctx, jint(ctx, r, "skipped") == 3, "skipped");
    CHECK(ctx, jint(ctx, r, "ops") == 2 * (10 + 30 + 5 + 1), "ops");
    json_t *ot = json_object_get(r, "op_types");
    CHECK(ctx, json_object_size(ot) == 4 + 3, "op_types: %zu types", json_object_size(ot));
    for (const char *const *no = (const char *const[]){"append", "rename", "unlink", "readdir",
                                                       "open", "close", "mkdir", NULL};
         *no; no++)
        CHECK(ctx, !json_object_get(ot, *no), "op_types.%s without one done", *no);
    check_fields(ctx, json_object_get(ot, "create"), "create", optype_spec, OPTYPE_COMMON, true);
    check_fields(ctx, json_object_get(ot, "stat"), "stat", optype_spec, OPTYPE_COMMON, true);
    check_latency(ctx, jat(ot, "stat/latency"), "stat.latency", true);
    CHECK(ctx, jint(ctx, ot, "create/ops") == 20 && jint(ctx, ot, "create/bytes") == 20 * 16384,
          "create ops/bytes");
    CHECK(ctx, near_rel(jnum(ctx, ot, "create/ops_per_s"), 10, 1e-12), "create ops_per_s");
    CHECK(ctx, near_rel(jnum(ctx, ot, "create/latency/mean_ns"), 40500, 1e-12), "create mean");
    CHECK(ctx, jint(ctx, ot, "create/latency/min_ns") == 40000, "create min");
    CHECK(ctx, jint(ctx, ot, "stat/ops") == 60 && jint(ctx, ot, "stat/bytes") == 0, "stat");
    CHECK(ctx, jint(ctx, ot, "stat/latency/percentiles_ns/99") == 2000, "stat p99");
    CHECK(ctx, jint(ctx, ot, "readwhole/bytes") == 10 * 65536, "readwhole bytes");
    CHECK(ctx, near_rel(jnum(ctx, ot, "readwhole/mib_per_s"), 10 * 65536 / 1048576.0 / 2, 1e-12),
          "readwhole mib_per_s");
    json_t *t1 = jat(r, "threads/1");
    CHECK(ctx, jint(ctx, t1, "create_ops") == 10 && jint(ctx, t1, "stat_ops") == 30, "thread ops");
    CHECK(ctx, !json_object_get(t1, "rename_ops"), "threads[1].rename_ops without one done");
    CHECK(ctx, jint(ctx, t1, "skipped") == 2, "threads[1].skipped");
    CHECK(ctx, jint(ctx, t1, "bytes_read") == (int64_t)(5 * 65536 + BLOCK), "thread bytes read");
    CHECK(ctx, jint(ctx, t1, "bytes_written") == 10 * 16384, "thread bytes written");

    char *buf = csv_of(doc, true);
    char *hdr[CSV_MAX], *val[CSV_MAX], *next;
    int nh = csv_split(buf, hdr, CSV_MAX, &next);
    assert_int_equal(csv_split(next, val, CSV_MAX, &next), nh);
    const char *want[][2] = {{"create_ops", "20"},
                             {"create_ops_per_s", "10.000"},
                             {"create_lat_mean_ns", "40500"},
                             {"stat_lat_p99_ns", "2000"},
                             {"readwhole_mib_per_s", "0.312"},
                             {"skipped", "3"},
                             {"rename_ops", ""},
                             {"append_lat_p99_ns", ""}};
    for (size_t w = 0; w < N(want); w++) {
        int i = 0;
        while (i < nh && strcmp(hdr[i], want[w][0]))
            i++;
        CHECK(ctx, i < nh, "CSV: no column %s", want[w][0]);
        CHECK(ctx, !strcmp(val[i], want[w][1]), "CSV %s = '%s', want '%s'", want[w][0], val[i],
              want[w][1]);
    }
    free(buf);
    json_decref(doc);
}

/* ---- doc/json.md: the tables above are the document's ---- */

static char *read_doc(void)
{
    char path[512];
    const char *cands[3] = {getenv("SBIO_DOC_JSON"), "doc/json.md", NULL};
    /* Next to this source file, when run from elsewhere. */
    char src[256];
    snprintf(src, sizeof(src), "%s", __FILE__);
    char *slash = strrchr(src, '/');
    if (slash) {
        *slash = 0;
        snprintf(path, sizeof(path), "%s/../doc/json.md", src);
        cands[2] = path;
    }
    for (int i = 0; i < 3; i++) {
        if (!cands[i])
            continue;
        FILE *f = fopen(cands[i], "re");
        if (!f)
            continue;
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)))
            fwrite(chunk, 1, n, m);
        fclose(f);
        fclose(m);
        return buf;
    }
    fail_msg("doc/json.md not found (run from the repository's top folder)");
    return NULL;
}

/* The fields of nested objects, which doc/json.md lists in the meaning column of the row. */
static const struct {
    const char *heading, *field;
    const struct fspec *spec;
    size_t n;
} doc_nested[] = {
    {"### `environment`", "filesystem", env_fs_spec, N(env_fs_spec)},
    {"### `environment`", "devices", env_dev_spec, N(env_dev_spec)},
    {"### `environment`", "vm", env_vm_spec, N(env_vm_spec)},
    {"### `result`", "errors", error_spec, N(error_spec)},
    {"### `result`", "op_types", optypes_spec, N(optypes_spec)},
    {"### `result`", "threads", thread_spec, N(thread_spec)},
    {"### `result`", "cpu", cpu_spec, N(cpu_spec)},
    {"### `result`", "queue_depth", qdepth_spec, N(qdepth_spec)},
    {"### `result`", "warmup", warmup_spec, N(warmup_spec)},
    {"### `result`", "group", group_spec, N(group_spec)},
    {"### `result`", "group", group_kernel_spec, N(group_kernel_spec)},
    {"### `result`", "verify", verify_spec, N(verify_spec)},
    /* "per device (as in `environment.devices`)": the name is implied */
    {"### `result`", "devices", res_dev_spec + 1, N(res_dev_spec) - 1},
    {"### `result`", "page_cache", cache_spec, N(cache_spec)},
    {"### `result`", "page_cache", cache_state_spec, N(cache_state_spec)},
    {"### `result`", "memory_group", memgroup_spec, N(memgroup_spec)},
    {"### `result`", "memory_group", memstat_spec, N(memstat_spec)},
    {"### `result`", "samples", sample_spec, N(sample_spec)},
    {"### `result`", "samples", sample_op_spec, N(sample_op_spec)},
    {"### `op_types.", "latency", latency_spec, N(latency_spec)},
    {"### `shares`", "jobs", share_job_spec, N(share_job_spec)},
};

/* name occurs in text as a whole word. */
static bool has_word(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return true;
    }
    return false;
}

struct doc_table {
    const char *heading; /* the section's heading line starts with this */
    const struct fspec *spec;
    size_t n;
    bool seen[64];
};

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
    size_t k = strspn(s, " \t");
    memmove(s, s + k, strlen(s + k) + 1);
}

/* Every field row of doc/json.md's JSON tables is in the test's tables with the same type,
 * and every field the test knows is documented; the CSV table lists the test's columns. */
static void test_doc_tables(void **state)
{
    (void)state;
    struct doc_table tabs[] = {
        {"## JSON document", root_spec, N(root_spec), {0}},
        {"### `config`", config_spec, N(config_spec), {0}},
        {"### `environment`", env_spec, N(env_spec), {0}},
        {"### `result`", result_spec, N(result_spec), {0}},
        {"### `result` of a tree job", result_fs_spec, N(result_fs_spec), {0}},
        {"### `op_types.", optype_spec, N(optype_spec), {0}},
        {"### `shares`", shares_spec, N(shares_spec), {0}},
    };
    char *doc = read_doc();
    struct doc_table *cur = NULL;
    bool in_csv = false;
    bool csv_seen[N(csv_map)] = {0};
    int rows = 0;
    char *save = NULL;
    for (char *line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') {
            cur = NULL;
            in_csv = !strncmp(line, "## CSV", 6);
            for (size_t t = 0; t < N(tabs); t++)
                if (!strncmp(line, tabs[t].heading, strlen(tabs[t].heading)))
                    cur = &tabs[t];
            continue;
        }
        if (line[0] != '|' || !strncmp(line, "|---", 4))
            continue;
        char *cols[4] = {0};
        int nc = 0;
        for (char *p = line + 1; *p && nc < 4;) {
            char *e = strchr(p, '|');
            if (!e)
                break;
            *e = 0;
            cols[nc++] = p;
            p = e + 1;
        }
        if (nc < 2)
            continue;
        trim(cols[0]);
        trim(cols[1]);
        if (cur && cols[0][0] == '`') {
            /* "`kernel`, `machine`, `hostname`" | type */
            int t = -1;
            for (size_t k = 0; k < N(jt_doc); k++)
                if (!strcmp(cols[1], jt_doc[k]))
                    t = (int)k;
            CHECK("doc/json.md", t >= 0, "unknown type '%s' for %s", cols[1], cols[0]);
            for (char *p = strchr(cols[0], '`'); p; p = strchr(p, '`')) {
                char *e = strchr(p + 1, '`');
                assert_non_null(e);
                *e = 0;
                const char *name = p + 1;
                size_t k = 0;
                while (k < cur->n && strcmp(cur->spec[k].name, name))
                    k++;
                CHECK("doc/json.md", k < cur->n, "%s: field %s is not checked by this test",
                      cur->heading, name);
                CHECK("doc/json.md", (int)cur->spec[k].type == t,
                      "%s: %s is documented as %s, the test checks %s", cur->heading, name,
                      jt_doc[t], jt_doc[cur->spec[k].type]);
                cur->seen[k] = true;
                rows++;
                for (size_t d = 0; d < N(doc_nested); d++)
                    if (!strcmp(doc_nested[d].heading, cur->heading) &&
                        !strcmp(doc_nested[d].field, name))
                        for (size_t j = 0; j < doc_nested[d].n; j++)
                            CHECK("doc/json.md",
                                  nc >= 3 && has_word(cols[2], doc_nested[d].spec[j].name),
                                  "%s: %s: the test checks %s, the row does not mention it",
                                  cur->heading, name, doc_nested[d].spec[j].name);
                p = e + 1;
            }
        } else if (in_csv && strcmp(cols[0], "column")) {
            /* "read_lat_mean_ns, read_lat_p50_ns, … (and write_…)" */
            bool and_write = strstr(cols[0], "(and write_") != NULL;
            char *paren = strchr(cols[0], '(');
            if (paren)
                *paren = 0;
            char *s2 = NULL;
            for (char *name = strtok_r(cols[0], ", ", &s2); name; name = strtok_r(NULL, ", ", &s2))
                for (int w = 0; w < (and_write ? 2 : 1); w++) {
                    char full[64];
                    if (!strncmp(name, "OP_", 3)) {
                        /* OP_x: the column x of every file-system op type that has it */
                        for (int op = SBIO_OP_FS_FIRST; op < SBIO_OP_NR; op++) {
                            snprintf(full, sizeof(full), "%s_%s", sbio_op_name(op), name + 3);
                            for (size_t k = 0; k < N(csv_map); k++)
                                csv_seen[k] |= !strcmp(csv_map[k][0], full);
                        }
                        continue;
                    }
                    if (w)
                        snprintf(full, sizeof(full), "write_%s",
                                 !strncmp(name, "read_", 5) ? name + 5 : name);
                    else
                        snprintf(full, sizeof(full), "%s", name);
                    size_t k = 0;
                    while (k < N(csv_map) && strcmp(csv_map[k][0], full))
                        k++;
                    CHECK("doc/json.md", k < N(csv_map), "CSV column %s is not checked", full);
                    csv_seen[k] = true;
                }
        }
    }
    for (size_t t = 0; t < N(tabs); t++)
        for (size_t k = 0; k < tabs[t].n; k++)
            CHECK("doc/json.md", tabs[t].seen[k],
                  "%s: the test checks %s, the doc does not list it", tabs[t].heading,
                  tabs[t].spec[k].name);
    for (size_t k = 0; k < N(csv_map); k++)
        CHECK("doc/json.md", csv_seen[k], "CSV column %s is not in the doc's table", csv_map[k][0]);
    assert_true(rows > 50);
    free(doc);
}

/* ---- set-up: one small set for every run ---- */

static int group_setup(void **state)
{
    (void)state;
    csv_map_build();
    if (tmpdir_make(g_dir, sizeof(g_dir), "/tmp", "report-json"))
        return -1;
    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    cfg.cmd = SBIO_CMD_PREPARE;
    cfg.dir = g_dir;
    cfg.file_num = NFILES;
    cfg.total_size = NFILES * FILE_SIZE;
    cfg.block_size = BLOCK;
    cfg.rand_seed = SEED;
    int rc = sbio_fileset_prepare(TS(&cfg), NULL, stdout);
    fflush(stdout);
    return rc ? -1 : 0;
}

static int group_teardown(void **state)
{
    (void)state;
    tmpdir_remove(g_dir);
    return 0;
}

/* %util: io_ms over the elapsed time, never above 100 (io_ticks counts whole jiffies at
 * both ends of a busy period). */
static void test_util_cap(void **state)
{
    (void)state;
    assert_true(fabs(sbio_util_pct(500, 1.0) - 50.0) < 1e-9);
    assert_true(fabs(sbio_util_pct(1008, 1.0) - 100.0) < 1e-9);
    assert_true(fabs(sbio_util_pct(260, 0.25) - 100.0) < 1e-9);
    assert_true(sbio_util_pct(100, 0) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_tables),
        cmocka_unit_test(test_util_cap),
        cmocka_unit_test(test_seqwr),
        cmocka_unit_test(test_seqrewr),
        cmocka_unit_test(test_seqrd),
        cmocka_unit_test(test_rndrd),
        cmocka_unit_test(test_rndwr),
        cmocka_unit_test(test_rndrw),
        cmocka_unit_test(test_rmw),
        cmocka_unit_test(test_log_interval),
        cmocka_unit_test(test_with_target),
        cmocka_unit_test(test_error_and_signal),
        cmocka_unit_test(test_group),
        cmocka_unit_test(test_warmup_auto),
        cmocka_unit_test(test_settings_parsed),
        cmocka_unit_test(test_shares_document),
        cmocka_unit_test(test_script_csv),
        cmocka_unit_test(test_fs_document),
        cmocka_unit_test(test_no_undocumented_field),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
