/* Unit tests for the text report (src/report/report_text.c): a run result built by hand, with
 * latencies chosen so that every figure is known (reads of 850 ns and 100 us, writes of 2 ms,
 * fsyncs of 1.2 s over a 2 s run on 2 threads), printed with a configuration parsed from a
 * real command line; the lines are checked for their values and units: rates, totals, the
 * latency block and its percentile, the per-operation and per-thread tables (the histogram
 * reports bucket midpoints: 99 840 ns for 100 us), an I/O error, a signal, an empty run,
 * the header and an interim line; the fdatasync row, the page-cache note, --rate's line, a
 * job's share of a phase and the phases' table. Most tests are tables of cases (struct
 * text_case: the arguments, a change to the result, the values, rows and texts wanted) that
 * check_case runs; every report, header and interim line is made by report_text, header_text
 * or interval_text, the only callers of the report functions. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"
#include "options.h"
#include "report.h"
#include "tree.h"
#include "runner.h"
#include "util.h"

#define BLK (16 * SBIO_KIB)
#define SEC 1000000000ULL

/* The result and what it points to; static: struct sbio_stats is cache-line aligned. */
static struct sbio_stats g_threads[2];
static struct sbio_run_result g_res;
static struct sbio_fileset_file g_files[2];
static struct sbio_fileset g_fs;

static void rec(struct sbio_stats *s, enum sbio_op op, unsigned n, uint64_t lat, bool event)
{
    for (unsigned i = 0; i < n; i++)
        sbio_stats_record(s, op, lat, op == SBIO_FSYNC ? 0 : BLK, event);
}

/* Thread 0: 384 reads of 100 us, 96 writes of 2 ms, 4 periodic fsyncs of 1.2 s; thread 1:
 * 128 reads of 850 ns, 32 writes of 2 ms, 2 end fsyncs of 1.2 s. Both ran from 1 s to 3 s. */
static struct sbio_run_result *two_threads(void)
{
    memset(&g_res, 0, sizeof(g_res));
    for (int t = 0; t < 2; t++)
        sbio_stats_init(&g_threads[t]);
    rec(&g_threads[0], SBIO_READ, 384, 100000, true);
    rec(&g_threads[0], SBIO_WRITE, 96, 2000000, true);
    rec(&g_threads[0], SBIO_FSYNC, 4, 1200000000, true);
    rec(&g_threads[1], SBIO_READ, 128, 850, true);
    rec(&g_threads[1], SBIO_WRITE, 32, 2000000, true);
    rec(&g_threads[1], SBIO_FSYNC, 2, 1200000000, false);
    sbio_stats_init(&g_res.total);
    for (int t = 0; t < 2; t++) {
        g_threads[t].start_ns = 1 * SEC;
        g_threads[t].end_ns = 3 * SEC;
        sbio_stats_merge(&g_res.total, &g_threads[t]);
    }
    g_res.threads = 2;
    g_res.measured = true;
    g_res.per_thread = g_threads;
    g_res.seed = 42;
    g_res.elapsed_ns = 2 * SEC;
    g_res.user_s = 0.5;
    g_res.sys_s = 0.1;
    g_res.probe.faults.minor = 10;
    g_res.probe.faults.major = 1;
    return &g_res;
}

/* How a report is asked for: the run's arguments after BASE_ARGS (2 files of 4 MiB, 16 KiB
 * blocks, rndrw, 2 threads, seed 42), and what no option sets alone. Every report, header and
 * interim line of these tests is made from one by report_text, header_text or interval_text,
 * the only callers of the report functions. */
#define BASE_ARGS                                                                                  \
    "--threads=2", "--file-test-mode=rndrw", "--file-block-size=16K", "--file-num=2",              \
        "--file-total-size=8M", "--rand-seed=42"
#define HOW_ARGS 4
struct how {
    const char *args[HOW_ARGS + 1]; /* NULL-terminated */
    unsigned nfiles;                /* the set's files of 4 MiB; 0: 2 */
    bool verify;                    /* verification on, without --verify's own header line */
    const char *script;             /* a script's run of that name */
    bool tree_job;                  /* ... whose job is a tree job */
};

/* The configuration h gives, parsed from a real command line into cfg (argv holds the
 * command line: the parsed configuration points into it), and the set. */
static void make_cfg(struct sbio_config *cfg, const struct how *h, const char **argv)
{
    static const char *const base[] = {"sbio", "run", BASE_ARGS};
    size_t n = 0;
    for (; n < sizeof(base) / sizeof(base[0]); n++)
        argv[n] = base[n];
    for (int i = 0; i < HOW_ARGS && h->args[i]; i++)
        argv[n++] = h->args[i];
    argv[n] = NULL;
    char err[MSG_MAX];
    if (parse_args(cfg, (char **)argv, err, sizeof(err)))
        fail_msg("parse: %s", err);
    if (h->verify)
        cfg->verify = true;
    if (h->script)
        cfg->script = h->script;
    g_fs.nfiles = h->nfiles ? h->nfiles : 2;
    g_fs.files = g_files;
    g_files[0].size = g_files[1].size = 4 * SBIO_MIB;
    g_fs.bytes = g_fs.nfiles * 4 * SBIO_MIB;
}
#define HOW_ARGV 16

/* The report's description of the run h describes: its settings and its job (a tree job when
 * h says so), from a configuration made into cfg and job. */
static struct sbio_report_of how_of(const struct how *h, struct sbio_config *cfg, const char **argv,
                                    struct sbio_job *job)
{
    static struct sbio_tree tree;
    make_cfg(cfg, h, argv);
    struct sbio_report_of of = *TOF(cfg);
    *job = *of.job;
    job->tree = h->tree_job ? &tree : NULL;
    of.job = job;
    return of;
}

/* A stream into memory, and its text once closed (NUL-terminated; the caller frees it). */
struct text_out {
    char *text;
    size_t len;
    FILE *m;
};

static FILE *out_open(struct text_out *o)
{
    *o = (struct text_out){0};
    o->m = open_memstream(&o->text, &o->len);
    assert_non_null(o->m);
    return o->m;
}

static char *out_close(struct text_out *o)
{
    assert_int_equal(fclose(o->m), 0);
    return o->text;
}

/* What the report of this scope prints for res. */
static char *report_text(const struct how *h, const struct sbio_run_result *res,
                         enum sbio_report_scope scope)
{
    const char *argv[HOW_ARGV];
    struct sbio_config cfg;
    struct sbio_job job;
    struct sbio_report_of of = how_of(h, &cfg, argv, &job);
    struct text_out o;
    sbio_report_text_scope(out_open(&o), &of, &g_fs, res, scope);
    return out_close(&o);
}

/* What the header prints for a run alone with seed 42. */
static char *header_text(const struct how *h)
{
    const char *argv[HOW_ARGV];
    struct sbio_config cfg;
    struct sbio_job job;
    struct sbio_report_of of = how_of(h, &cfg, argv, &job);
    const struct sbio_topology alone = SBIO_TOPOLOGY_ALONE;
    struct text_out o;
    sbio_report_header(out_open(&o), &of, &alone, &g_fs, 42);
    return out_close(&o);
}

/* n interim lines, line i over the interval of interval_s[i] ending t_s[i], between prev[i]
 * and cur[i]. */
static char *interval_text(const struct how *h, unsigned n, const double *t_s,
                           const double *interval_s, const struct sbio_stats *const *cur,
                           const struct sbio_stats *const *prev)
{
    const char *argv[HOW_ARGV];
    struct sbio_config cfg;
    struct sbio_job job;
    struct sbio_report_of of = how_of(h, &cfg, argv, &job);
    struct text_out o;
    FILE *m = out_open(&o);
    for (unsigned i = 0; i < n; i++)
        sbio_report_interval(m, &of, t_s[i], interval_s[i], cur[i], prev[i]);
    return out_close(&o);
}

/* The rest of the first line holding label, with the blanks around it trimmed. */
static const char *value(const char *text, const char *label)
{
    static char buf[256];
    const char *p = strstr(text, label);
    if (!p)
        fail_msg("no '%s' in:\n%s", label, text);
    p += strlen(label);
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, "\n");
    while (n && p[n - 1] == ' ')
        n--;
    snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
    return buf;
}

/* The line of a table that starts with two blanks and name: its columns (separated by two
 * blanks or more; a value and its unit keep their one blank) joined by '|'. */
static const char *row(const char *text, const char *name)
{
    static char buf[512];
    char head[64];
    snprintf(head, sizeof(head), "\n  %s ", name);
    const char *p = strstr(text, head);
    if (!p) {
        snprintf(head, sizeof(head), "\n  %*s ", 6, name); /* right-aligned (thread numbers) */
        p = strstr(text, head);
    }
    if (!p)
        fail_msg("no row '%s' in:\n%s", name, text);
    p += strlen(head);
    size_t l = 0;
    while (*p == ' ')
        p++;
    while (*p && *p != '\n' && l + 2 < sizeof(buf)) {
        if (p[0] == ' ' && p[1] == ' ') {
            while (*p == ' ')
                p++;
            if (*p && *p != '\n')
                buf[l++] = '|';
            continue;
        }
        buf[l++] = *p++;
    }
    buf[l] = 0;
    return buf;
}

/* The histogram line of the bucket whose midpoint prints as mid: a bar of stars, then count. */
static void assert_bar(const char *text, const char *mid, size_t stars, const char *count)
{
    char label[64];
    snprintf(label, sizeof(label), " %s |", mid);
    const char *v = value(text, label);
    size_t n = strspn(v, "*"), k = strlen(v);
    while (k && v[k - 1] != ' ')
        k--;
    if (n != stars || strcmp(v + k, count))
        fail_msg("bucket %s: '%s', want %zu stars and %s", mid, v, stars, count);
}

/* The per-operation table's header: its op column w wide. */
static void assert_op_width(const char *text, int w)
{
    char head[64];
    snprintf(head, sizeof(head), "\n  %-*s %10s %11s", w, "op", "ops", "ops/s");
    assert_has(text, head);
}

/* Device counters for r: the set's device read sectors sectors over the run. */
static void disk_read(struct sbio_run_result *r, uint64_t sectors)
{
    r->probe.devices.ndisk = 1;
    snprintf(r->probe.devices.name[0], sizeof(r->probe.devices.name[0]), "vda");
    memset(r->probe.devices.d0, 0, sizeof(r->probe.devices.d0));
    memset(r->probe.devices.d1, 0, sizeof(r->probe.devices.d1));
    r->probe.devices.d0[0].f[2] = 1000;
    r->probe.devices.d1[0].f[2] = 1000 + sectors;
}

/* ---- the cases ---------------------------------------------------------------------------- */

/* One report (or header) and what it must say: each value (the rest of the line of its label),
 * each table row (its columns joined by '|'), the texts it holds and those it lacks, and the
 * checks a case has of its own (also, given the text and the result reported). The result is
 * two_threads() changed by result (NULL: as it is). */
struct label_want {
    const char *label, *want;
};
struct text_case {
    const char *what;
    struct how how;
    enum { OF_REPORT, OF_HEADER } of;
    enum sbio_report_scope scope;
    void (*result)(struct sbio_run_result *r);
    struct label_want values[12], rows[4];
    const char *has[10], *lacks[4];
    void (*also)(const char *text, const struct sbio_run_result *r);
};

static void check_case(const struct text_case *c)
{
    struct sbio_run_result *r = two_threads();
    if (c->result)
        c->result(r);
    char *t = c->of == OF_HEADER ? header_text(&c->how) : report_text(&c->how, r, c->scope);
    for (const struct label_want *v = c->values; v < c->values + 12 && v->label; v++)
        if (strcmp(value(t, v->label), v->want))
            fail_msg("%s: '%s' %s, want %s", c->what, v->label, value(t, v->label), v->want);
    for (const struct label_want *v = c->rows; v < c->rows + 4 && v->label; v++)
        if (strcmp(row(t, v->label), v->want))
            fail_msg("%s: row '%s' is %s, want %s", c->what, v->label, row(t, v->label), v->want);
    for (int i = 0; i < 10 && c->has[i]; i++)
        if (!strstr(t, c->has[i]))
            fail_msg("%s: '%s' not found in:\n%s", c->what, c->has[i], t);
    for (int i = 0; i < 4 && c->lacks[i]; i++)
        if (strstr(t, c->lacks[i]))
            fail_msg("%s: '%s' unexpectedly in:\n%s", c->what, c->lacks[i], t);
    if (c->also)
        c->also(t, r);
    free(t);
}

#define CHECK_CASES(cases)                                                                         \
    do {                                                                                           \
        for (size_t i_ = 0; i_ < sizeof(cases) / sizeof(cases[0]); i_++)                           \
            check_case(&(cases)[i_]);                                                              \
    } while (0)

/* Rates and totals: 512 reads, 128 writes, 6 fsyncs (4 periodic, 2 at the end) in 2 s. */
static void test_totals(void **state)
{
    (void)state;
    static const struct text_case cases[] = {{
        .what = "totals",
        .values = {{"reads/s:", "256.00"},
                   {"writes/s:", "64.00"},
                   {"fsyncs/s:", "3.00"},
                   {"read, MiB/s:", "4.00"},
                   {"written, MiB/s:", "1.00"},
                   {"total time:", "2.0000s"},
                   {"total number of events:", "644"},
                   {"reads, writes, syncs done:", "512, 128, 6"},
                   {"syncs periodic, at end, in writes:", "4, 2, 0"},
                   {"bytes read, written:", "8 MiB, 2 MiB"},
                   /* Fairness: 484 and 160 events; each thread's wall time, 2 s (its
                    * latencies sum to 5.0304 s and 2.4641 s: not an execution time). */
                   {"events (avg/stddev):", "322.0000/162.00"},
                   {"execution time (avg/stddev):", "2.0000/0.00"}},
        .has = {"\nCPU: user 25.0%, system 5.0% of one CPU (0.50 s user, 0.10 s system over "
                "2.00 s; ",
                "\nPage faults: 10 minor, 1 major\n"},
        .lacks = {"***", "Verification:", "Queue depth", "atency histogram"},
    }};
    CHECK_CASES(cases);
}

/* sysbench's block: every figure in ms with two decimals, the asked percentile over all
 * operations. */
static void test_latency_block(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "latency",
         /* The 644 events (not thread 1's 2 end fsyncs): 5 094 508 800 ns; rank 612 of 644
          * is a write, whose bucket's midpoint is 2 007 040 ns; max, thread 0's periodic
          * fsyncs. */
         .values = {{"min:", "0.00"},
                    {"avg:", "7.91"},
                    {"max:", "1200.00"},
                    {" 95th percentile:", "2.01"},
                    {"sum:", "5094.51"}},
         .has = {"\nLatency (ms):\n         min:                                    0.00\n"}},
        {.what = "--percentile=50",
         .how = {.args = {"--percentile=50"}},
         .values = {{" 50th percentile:", "0.10"}}}, /* rank 323: a 100 us read */
        {.what = "--percentile=0",
         .how = {.args = {"--percentile=0"}},
         .has = {"\n         percentile stats:               disabled\n"},
         .lacks = {"th percentile:"}},
    };
    CHECK_CASES(cases);
}

/* One row per op type: ops, ops/s, MiB/s, min, avg, p50, p95, p99, p99.9, max. A percentile
 * outside the table gets its own column. */
static void test_per_op_table(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "per op",
         .rows = {{"op", "ops|ops/s|MiB/s|min|avg|p50|p95|p99|p99.9|max"},
                  {"read",
                   "512|256.00|4.00|850 ns|75.2 us|99.8 us|99.8 us|99.8 us|99.8 us|100.0 us"},
                  /* Every value is 2 ms: the midpoint (2.007 ms) is held to the largest value
                   * seen. */
                  {"write",
                   "128|64.00|1.00|2.00 ms|2.00 ms|2.00 ms|2.00 ms|2.00 ms|2.00 ms|2.00 ms"},
                  {"fsync", "6|3.00|0.00|1.20 s|1.20 s|1.20 s|1.20 s|1.20 s|1.20 s|1.20 s"}}},
        {.what = "per op, --percentile=90",
         .how = {.args = {"--percentile=90"}},
         .rows = {{"op", "ops|ops/s|MiB/s|min|avg|p50|p95|p99|p99.9|max|p90"},
                  {"read", "512|256.00|4.00|850 ns|75.2 us|99.8 us|99.8 us|99.8 us|99.8 us|100.0 "
                           "us|99.8 us"}}},
    };
    CHECK_CASES(cases);
}

/* One row per thread: events, ops/s and MiB/s over its own time, avg, p99, max. */
static void test_per_thread_table(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "per thread",
         .rows = {{"thread", "events|ops/s|MiB/s|avg|p99|max"},
                  {"0", "484|242.00|3.75|10.4 ms|2.01 ms|1.20 s"},
                  {"1", "160|81.00|1.25|15.2 ms|1.20 s|1.20 s"}}},
    };
    CHECK_CASES(cases);
}

static void io_error(struct sbio_run_result *r)
{
    r->error = -EIO;
    snprintf(r->error_msg, sizeof(r->error_msg),
             "write of test_file.1 at 65536: Input/output error");
}
static void io_error_first(const char *t, const struct sbio_run_result *r)
{
    (void)r;
    const char *first = "\n*** Stopped by an I/O error: write of test_file.1 at 65536: "
                        "Input/output error ***\n\nFile operations:\n";
    if (strncmp(t, first, strlen(first)))
        fail_msg("the report starts: %.120s", t);
}
static void sigterm(struct sbio_run_result *r)
{
    r->stop_signal = SIGTERM;
}
static void nothing_done(struct sbio_run_result *r)
{
    memset(r, 0, sizeof(*r));
    sbio_stats_init(&r->total);
    r->threads = 0;
}

/* An I/O error and a signal are said first; a run that did nothing prints zeros, never a
 * division by zero, and no op rows. */
static void test_error_result(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "an I/O error",
         .result = io_error,
         .values = {{"reads/s:", "256.00"}}, /* what was measured still counts */
         .also = io_error_first},
        {.what = "SIGTERM",
         .result = sigterm,
         .has = {"\n*** Interrupted by SIGTERM after 2.00 s: the figures cover the time "
                 "measured ***\n"},
         .lacks = {"Stopped by an I/O error"}},
        {.what = "nothing done",
         .result = nothing_done,
         .values = {{"reads/s:", "0.00"},
                    {"read, MiB/s:", "0.00"},
                    {"total time:", "0.0000s"},
                    {"reads, writes, syncs done:", "0, 0, 0"},
                    {"min:", "0.00"},
                    {"events (avg/stddev):", "0.0000/0.00"}},
         .has = {"\nCPU: 0.000 s user, 0.000 s system (run too short for percentages)\n"},
         .lacks = {"syncs periodic", "\n  read ", "\n  write "}},
    };
    CHECK_CASES(cases);
}

static void optional_lines(struct sbio_run_result *r)
{
    r->total.verify_checked = 512;
    r->total.verify_failed = 1;
    snprintf(r->verify_msg, sizeof(r->verify_msg), "test_file.0 at 16384: checksum mismatch");
    r->depth_avg = 3.5;
    r->depth_max = 8;
    r->skipped_tails = 2;
    r->skipped_bytes = 1000;
    r->direct_align = 4096;
    r->completed_bytes = 3 * SBIO_MIB;
    r->left_bytes = 5 * SBIO_MIB;
    r->probe.devices.ndisk = 1;
    snprintf(r->probe.devices.name[0], sizeof(r->probe.devices.name[0]), "vda");
    uint64_t d[17] = {100, 5, 2048, 0, 50, 0, 4096, 0, 0, 1000, 3000, 0, 0, 0, 0, 3, 0};
    for (int k = 0; k < 17; k++) {
        r->probe.devices.d0[0].f[k] = 7;
        r->probe.devices.d1[0].f[k] = 7 + d[k];
    }
}
/* 128 reads of 850 ns (bucket midpoint 852 ns) and 384 of 100 us: bars of 13 and 40. */
static void read_bars(const char *t, const struct sbio_run_result *r)
{
    (void)r;
    assert_bar(t, "852 ns", 13, "128");
    assert_bar(t, "99.8 us", 40, "384");
}

/* The optional lines: verification, queue depth, O_DIRECT tails, seqwr completion, device
 * counters, page cache; and the histogram. */
static void test_optional_lines(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "optional lines",
         .how = {.args = {"--verify=on", "--histogram=on", "--iodepth=16"}},
         .result = optional_lines,
         .has = {"\nVerification: 512 blocks checked, 1 bad; first: test_file.0 at 16384: "
                 "checksum mismatch\n",
                 "\nQueue depth reached: avg 3.5, max 8 in flight per thread (iodepth 16)\n",
                 "\nO_DIRECT: 2 file tails (1000 B) not a multiple of the 4096-byte alignment "
                 "were skipped\n",
                 "\nseqwr: the run ended before the set was whole again; 3 MiB were written "
                 "outside the measured time to complete it\n",
                 "\nDevice vda over the run: reads 100 (merged 5, 1 MiB), writes 50 (merged 0, "
                 "2 MiB), flushes 3, util 50.0%, avg queue 1.50\n",
                 "\nPer-operation latency histogram, read (bucket midpoint, count; 512 ops):\n",
                 "\nPer-operation latency histogram, fsync (bucket midpoint, count; 6 ops):\n",
                 "Latency histogram (values are in milliseconds)\n       value  "
                 "------------- distribution ------------- count\n",
                 "\nseqwr: the run ended before the set was whole again: 5 MiB of it left "
                 "unwritten (sbio.manifest says so); the next run, or sbio prepare, writes it "
                 "first\n"},
         .also = read_bars},
    };
    CHECK_CASES(cases);
}

static void singular(struct sbio_run_result *r)
{
    r->skipped_tails = 1;
    r->skipped_bytes = 1000;
    r->direct_align = 4096;
    r->total.verify_checked = 1;
    r->probe.page_cache.have = true;
    r->probe.page_cache.c1.writeback = 2;
    sbio_hist_init(&r->total.lat[SBIO_WRITE]);
    sbio_hist_record(&r->total.lat[SBIO_WRITE], 2000000);
}
static void writeback_pages(const char *t, const struct sbio_run_result *r)
{
    (void)r;
    char pages[32], wb[64];
    snprintf(wb, sizeof(wb), " dirty, %s under writeback\n",
             sbio_fmt_bytes(pages, sizeof(pages), 2 * (uint64_t)sysconf(_SC_PAGESIZE)));
    assert_has(t, wb);
}

/* One of a thing is said in the singular, and pages under writeback as a size. */
static void test_singular(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "singular",
         .how = {.args = {"--histogram=on", "--file-fsync-freq=1"}, .verify = true},
         .result = singular,
         .has = {"\nO_DIRECT: 1 file tail (1000 B) not a multiple of the 4096-byte alignment "
                 "was skipped\n",
                 "\nVerification: 1 block checked, 0 bad\n",
                 "\nPer-operation latency histogram, write (bucket midpoint, count; 1 op):\n"},
         .also = writeback_pages},
        {.what = "singular header",
         .how = {.args = {"--histogram=on", "--file-fsync-freq=1"}, .nfiles = 1, .verify = true},
         .of = OF_HEADER,
         .has = {"\n1 files, 4MiB each\n4MiB total file size\n",
                 "\nPeriodic FSYNC enabled, calling fsync() each 1 requests.\n"}},
    };
    CHECK_CASES(cases);
}

static void starts_sbio(const char *t, const struct sbio_run_result *r)
{
    (void)r;
    assert_true(!strncmp(t, "sbio ", 5));
}

/* The header: what the run is about to do, in the words sysbench uses. */
static void test_header(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "header",
         .how = {.args = {"--file-fsync-freq=10"}},
         .of = OF_HEADER,
         .has = {"\nNumber of threads: 2\n", "\nRandom seed: 42 (repeat with --rand-seed=42)\n",
                 "\n2 files, 4MiB each\n8MiB total file size\nBlock size 16KiB\n",
                 "\nNumber of IO requests: 0\nRead/Write ratio for combined random IO test: 1.50\n",
                 "\nPeriodic FSYNC enabled, calling fsync() each 10 requests.\n",
                 "\nUsing synchronous I/O mode\nDoing random r/w test\n", "\nI/O engine: sync\n",
                 "\nInitializing random number generator from seed (42).\n\n\nExtra file open "
                 "flags: (none)\n"},
         .lacks = {"Sequential stream", "Validation"},
         .also = starts_sbio},
    };
    CHECK_CASES(cases);
}

/* --validate (sysbench's name for --verify) is announced in sysbench's words, after the
 * threads. */
static void test_header_validate(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "--validate",
         .how = {.args = {"--validate=on"}},
         .of = OF_HEADER,
         .has = {"\nNumber of threads: 2\nValidation checks: on.\n"}},
    };
    CHECK_CASES(cases);
}

static void fdatasyncs(struct sbio_run_result *r)
{
    struct sbio_io sync = {.op = SBIO_FSYNC}, dsync = {.op = SBIO_FSYNC, .flags = SBIO_IO_DATASYNC};
    for (int i = 0; i < 3; i++)
        sbio_stats_record_io(&r->total, &sync, 1000000);
    for (int i = 0; i < 5; i++)
        sbio_stats_record_io(&r->total, &dsync, 300000);
}

/* The fdatasyncs a script asked for (SBIO_IO_DATASYNC) have their own row: thread 0 adds 3
 * fsyncs of 1 ms and 5 fdatasyncs of 300 us to the 6 fsyncs of 1.2 s; the fsync row keeps
 * the rest. Under --file-fsync-mode=fdatasync every sync is an fdatasync: one row. */
static void test_fdatasync_row(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "fdatasync row",
         .how = {.args = {"--histogram=on"}},
         .result = fdatasyncs,
         /* The fsyncs' histogram is the union's less the fdatasyncs': its min, which no
          * other figure pins down, is the lower bound of 1 ms's bucket (999 424 ns, within
          * 1/128). */
         .rows = {{"fsync", "9|4.50|0.00|999.4 us|800.3 ms|1.20 s|1.20 s|1.20 s|1.20 s|1.20 s"},
                  {"fdatasync",
                   "5|2.50|0.00|300.0 us|300.0 us|300.0 us|300.0 us|300.0 us|300.0 us|300.0 us"}},
         .values = {{"reads, writes, syncs done:", "512, 128, 14"}, /* every sync */
                    {"fsyncs/s:", "7.00"}},                         /* sysbench's */
         .has = {"\nPer-operation latency histogram, fsync (bucket midpoint, count; 9 ops):\n",
                 "\nPer-operation latency histogram, fdatasync (bucket midpoint, count; 5 "
                 "ops):\n"}},
        {.what = "--file-fsync-mode=fdatasync",
         .how = {.args = {"--file-fsync-mode=fdatasync"}},
         .result = fdatasyncs,
         .rows = {{"fdatasync",
                   "14|7.00|0.00|300.0 us|514.6 ms|1.00 ms|1.20 s|1.20 s|1.20 s|1.20 s"}},
         .lacks = {"\n  fsync "}},
    };
    CHECK_CASES(cases);
}

static void rmws(struct sbio_run_result *r)
{
    struct sbio_io rmw = {.op = SBIO_RMW, .len = BLK};
    for (int i = 0; i < 40; i++)
        sbio_stats_record_io(&r->total, &rmw, 4000000);
}
static void op_width_9(const char *t, const struct sbio_run_result *r)
{
    (void)r;
    assert_op_width(t, 9);
}
static void op_width_17(const char *t, const struct sbio_run_result *r)
{
    (void)r;
    assert_op_width(t, 17);
}

/* Read-modify-writes: 40 of 16 KiB and 4 ms added to the run. Their own row, named in full
 * (the op column widens to hold it), MiB/s of their blocks once; their lines among sysbench's;
 * their bytes in the bytes read and in the bytes written; their histogram. A run without them
 * keeps its layout and never names them. */
static void test_rmw_row(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "no read-modify-write",
         .how = {.args = {"--histogram=on"}},
         .lacks = {"read-modify-write"},
         .also = op_width_9},
        {.what = "read-modify-writes",
         .how = {.args = {"--histogram=on"}},
         .result = rmws,
         .rows = {{"read-modify-write",
                   "40|20.00|0.31|4.00 ms|4.00 ms|4.00 ms|4.00 ms|4.00 ms|4.00 ms|4.00 ms"},
                  {"read",
                   "512|256.00|4.00|850 ns|75.2 us|99.8 us|99.8 us|99.8 us|99.8 us|100.0 us"}},
         /* 8 MiB + 640 KiB read and 2 MiB + 640 KiB written, over 2 s. */
         .values = {{"read-modify-writes done:", "40 (20.00 a second)"},
                    {"reads, writes, syncs done:", "512, 128, 6"},
                    {"total number of events:", "684"},
                    {"read, MiB/s:", "4.31"},
                    {"written, MiB/s:", "1.31"},
                    {"bytes read, written:", "8.62 MiB, 2.62 MiB"}},
         .has = {"\nPer-operation latency histogram, read-modify-write (bucket midpoint, count; 40 "
                 "ops):\n"},
         .also = op_width_17},
    };
    CHECK_CASES(cases);
}

static void read_0(struct sbio_run_result *r)
{
    disk_read(r, 0);
}
static void read_163(struct sbio_run_result *r)
{
    disk_read(r, 163); /* 83 456 bytes: under 1% */
}
static void read_164(struct sbio_run_result *r)
{
    disk_read(r, 164); /* 83 968 bytes: 1% */
}
static void cached(const char *t, const struct sbio_run_result *r)
{
    (void)t;
    assert_true(sbio_report_cached_reads(r));
}
static void not_cached(const char *t, const struct sbio_run_result *r)
{
    (void)t;
    assert_false(sbio_report_cached_reads(r));
}

/* A run that read 8 MiB while the device read less than 1% of it (83 886 bytes): its reads
 * came from the page cache, said in one line with the ways to measure the device. */
static void test_cached_reads(void **state)
{
    (void)state;
    assert_false(sbio_report_cached_reads(two_threads())); /* no device counters: nothing */
    static const struct text_case cases[] = {
        {.what = "cached reads",
         .result = read_0,
         .has = {"\nNote: the reads came from the page cache: the run read 8 MiB, device vda "
                 "read 0 B. To measure the device: --file-extra-flags=direct, --drop-caches, or "
                 "a set larger than the RAM ("},
         .also = cached},
        {.what = "cached reads, --drop-caches",
         .how = {.args = {"--drop-caches"}},
         .result = read_163,
         .has = {"device vda read 81.50 KiB. To measure the device: --file-extra-flags=direct, "
                 "or a set larger than the RAM ("},
         .also = cached},
        /* A script's tree job cannot take O_DIRECT: the note does not offer it. */
        {.what = "cached reads, a tree job",
         .how = {.script = "varmail.lua", .tree_job = true},
         .result = read_163,
         .has = {"device vda read 81.50 KiB. To measure the device: drop_caches = true in the "
                 "phase, or a set larger than the RAM ("}},
        {.what = "cached reads, a script",
         .how = {.script = "varmail.lua"},
         .result = read_163,
         .has = {"To measure the device: flags = \"direct\", drop_caches = true in the phase, "
                 "or a set larger than the RAM ("}},
        {.what = "1% from the device",
         .how = {.script = "varmail.lua"},
         .result = read_164,
         .lacks = {"page cache:"},
         .also = not_cached},
    };
    CHECK_CASES(cases);
    /* A run that read nothing has nothing to say. */
    struct sbio_run_result *r = two_threads();
    r->total.bytes[SBIO_READ] = 0;
    disk_read(r, 0);
    assert_false(sbio_report_cached_reads(r));
}

/* --rate: the rate reached (644 events in 2 s) against the one asked; a shortfall of more
 * than 5% noted. */
static void test_rate(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "--rate=400",
         .how = {.args = {"--rate=400"}},
         .has = {"\nRate: 322.00 ops/s reached of the 400 ops/s asked (80.5%)\nNote: the rate "
                 "fell 19.5% short of its target: "}},
        {.what = "--rate=330",
         .how = {.args = {"--rate=330"}},
         .has = {"\nRate: 322.00 ops/s reached of the 330 ops/s asked (97.6%)\n"},
         .lacks = {"short of its target"}},
        {.what = "no --rate", .lacks = {"Rate:"}},
    };
    CHECK_CASES(cases);
}

static void share(struct sbio_run_result *r)
{
    disk_read(r, 0);
    r->probe.page_cache.have = true;
}

/* A job's share of a phase: its threads' CPU and page faults, no device or page-cache lines of
 * its own. */
static void test_job_share(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "a job's share",
         .scope = SBIO_REPORT_JOB_SHARE,
         .result = share,
         .has = {"\nDevice and page-cache figures: the process's, in the phase's total below\n",
                 "\nCPU:", "\nPage faults:"},
         .lacks = {"Device vda", "Page cache of the set", "Note: the reads came"},
         .values = {{"reads/s:", "256.00"}}}, /* the job's own figures stay */
        {.what = "the whole",
         .result = share,
         .has = {"\nCPU: ", "\nDevice vda over the run: ", "\nPage cache of the set: "}},
    };
    CHECK_CASES(cases);
}

/* The phases' table: a row per phase, those that measured nothing (refused, or a job that did
 * not start) and failed ones said; none for one phase. */
static void test_phase_table(void **state)
{
    (void)state;
    struct sbio_phase_table tab = {0};
    assert_int_equal(sbio_report_phase_add(&tab, "load", 2, two_threads()), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    assert_non_null(m);
    sbio_report_phases(m, &tab);
    assert_int_equal(fflush(m), 0);
    assert_int_equal(len, 0);
    assert_int_equal(tab.n, 0);
    struct sbio_run_result *r = two_threads();
    for (unsigned i = 0; i < 10; i++) /* past the first allocation */
        assert_int_equal(sbio_report_phase_add(&tab, i ? "more" : "load", 2, r), 0);
    assert_int_equal(sbio_report_phase_add(&tab, "odirect-66k", 1, NULL), 0);
    struct sbio_run_result unstarted = {.error = -EMFILE};
    assert_int_equal(sbio_report_phase_add(&tab, "unstarted", 2, &unstarted), 0);
    r->error = -EIO;
    assert_int_equal(sbio_report_phase_add(&tab, "broken", 1, r), 0);
    sbio_report_phases(m, &tab);
    assert_int_equal(fclose(m), 0);
    assert_string_equal(row(text, "phase"),
                        "jobs|threads|time, s|ops/s|read MiB/s|write MiB/s|avg|p99");
    assert_string_equal(row(text, "load"), "2|2|2.00|323.00|4.00|1.00|11.6 ms|2.01 ms");
    assert_string_equal(row(text, "odirect-66k"), "1|measured nothing (see the message above)");
    assert_string_equal(row(text, "unstarted"), "2|measured nothing (see the message above)");
    assert_string_equal(row(text, "broken"),
                        "1|2|2.00|323.00|4.00|1.00|11.6 ms|2.01 ms|stopped by an I/O error");
    assert_has(text, "\nPhases (each its jobs together, over its own time):\n");
    free(text);
}

/* An interim line: sysbench's, over the interval between two snapshots, then each op type
 * the mode does. */
static void test_interval(void **state)
{
    (void)state;
    two_threads();
    static struct sbio_stats zero;
    sbio_stats_init(&zero);
    const struct how how = {0};
    const double t_s[] = {3.0, 4.0}, dt_s[] = {2.0, 1.0};
    const struct sbio_stats *cur[] = {&g_threads[0], &g_threads[0]},
                            *prev[] = {&zero, &g_threads[0]};
    char *text = interval_text(&how, 2, t_s, dt_s, cur, prev);
    assert_string_equal(text, "[ 3s ] reads: 3.00 MiB/s writes: 0.75 MiB/s fsyncs: 2.00/s "
                              "latency (ms,95%): 2.007\n"
                              "      per op: read 192.00/s 3.00 MiB/s p99 100.0 us; write 48.00/s "
                              "0.75 MiB/s p99 2.00 ms; fsync 2.00/s p99 1.20 s;\n"
                              "[ 4s ] reads: 0.00 MiB/s writes: 0.00 MiB/s fsyncs: 0.00/s "
                              "latency (ms,95%): 0.000\n"
                              "      per op: read 0.00/s 0.00 MiB/s; write 0.00/s 0.00 MiB/s; "
                              "fsync 0.00/s;\n");
    free(text);
    /* --percentile=0, as sysbench: the least latency's bucket, not 0 (a 100 us read). */
    const struct how p0 = {.args = {"--percentile=0"}};
    text = interval_text(&p0, 1, t_s, dt_s, cur, prev);
    assert_non_null(strstr(text, "latency (ms,0%): 0.100\n"));
    free(text);
}

/* Records n ops of type op, bytes and latency each, into s. */
static void rec_fs(struct sbio_stats *s, enum sbio_op op, unsigned n, uint64_t lat, uint64_t bytes)
{
    for (unsigned i = 0; i < n; i++)
        sbio_stats_record(s, op, lat, bytes, 1);
}

static void fs_ops(struct sbio_run_result *r)
{
    rec_fs(&r->total, SBIO_CREATE, 20, 5000000, BLK);
    rec_fs(&r->total, SBIO_STAT, 100, 2000, 0);
    rec_fs(&r->total, SBIO_READWHOLE, 10, 1000000, 4 * BLK);
    rec_fs(&r->total, SBIO_WRITEWHOLE, 8, 3000000, 4 * BLK);
    r->total.skipped = 7;
}
static void fs_ops_one_skipped(struct sbio_run_result *r)
{
    fs_ops(r);
    r->total.skipped = 1;
}
static void fs_layout(const char *t, const struct sbio_run_result *r)
{
    (void)r;
    assert_op_width(t, 10); /* "writewhole" */
    assert_true(strstr(t, "\n  fsync ") < strstr(t, "\n  create "));
}

/* A tree job's operations: a row each for those counted, after the syncs, the op column as
 * wide as "writewhole"; their counts and bytes in sysbench's totals; skipped draws said; a
 * histogram each; an interim line shows them once counted. Without them none of it is there. */
static void test_fs_rows(void **state)
{
    (void)state;
    static const struct text_case cases[] = {
        {.what = "no fs ops",
         .how = {.args = {"--histogram=on"}},
         .lacks = {"skipped:", "create", "\n  stat "}},
        {.what = "fs ops",
         .how = {.args = {"--histogram=on"}},
         .result = fs_ops,
         .rows =
             {{"create", "20|10.00|0.16|5.00 ms|5.00 ms|5.00 ms|5.00 ms|5.00 ms|5.00 ms|5.00 ms"},
              {"stat", "100|50.00|0.00|2.00 us|2.00 us|2.00 us|2.00 us|2.00 us|2.00 us|2.00 us"},
              {"readwhole", "10|5.00|0.31|1.00 ms|1.00 ms|1.00 ms|1.00 ms|1.00 ms|1.00 ms|1.00 ms"},
              {"writewhole",
               "8|4.00|0.25|3.00 ms|3.00 ms|3.00 ms|3.00 ms|3.00 ms|3.00 ms|3.00 ms"}},
         .lacks = {"\n  rename ", "\n  unlink "},
         .has = {"\n  7 operations skipped: drawn when they could not be served",
                 "\nPer-operation latency histogram, stat (bucket midpoint, count; 100 ops):\n"},
         /* sysbench's counts take the readwholes as reads, the creates and writewholes as
          * writes, as its bytes do. */
         .values = {{"reads, writes, syncs done:", "522, 156, 6"},
                    {"bytes read, written:", "8.62 MiB, 2.81 MiB"}},
         .also = fs_layout},
        {.what = "one skipped",
         .how = {.args = {"--histogram=on"}},
         .result = fs_ops_one_skipped,
         .has = {"\n  1 operation skipped: drawn when it could not be served"}},
    };
    CHECK_CASES(cases);

    struct sbio_run_result *r = two_threads();
    fs_ops(r);
    static struct sbio_stats zero;
    sbio_stats_init(&zero);
    const struct how how = {.args = {"--histogram=on"}};
    const double t_s = 2.0, dt_s = 2.0;
    const struct sbio_stats *cur = &r->total, *prev = &zero;
    char *text = interval_text(&how, 1, &t_s, &dt_s, &cur, &prev);
    assert_has(text, "; create 10.00/s 0.16 MiB/s p99 5.00 ms; readwhole 5.00/s 0.31 MiB/s p99 "
                     "1.00 ms; writewhole 4.00/s 0.25 MiB/s p99 3.00 ms; stat 50.00/s p99 "
                     "2.00 us;\n");
    assert_lacks(text, "rename");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals),          cmocka_unit_test(test_latency_block),
        cmocka_unit_test(test_per_op_table),    cmocka_unit_test(test_per_thread_table),
        cmocka_unit_test(test_error_result),    cmocka_unit_test(test_optional_lines),
        cmocka_unit_test(test_header),          cmocka_unit_test(test_interval),
        cmocka_unit_test(test_header_validate), cmocka_unit_test(test_fdatasync_row),
        cmocka_unit_test(test_cached_reads),    cmocka_unit_test(test_rate),
        cmocka_unit_test(test_job_share),       cmocka_unit_test(test_phase_table),
        cmocka_unit_test(test_singular),        cmocka_unit_test(test_rmw_row),
        cmocka_unit_test(test_fs_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
