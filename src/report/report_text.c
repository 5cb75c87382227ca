#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "ioprio.h"
#include "mix.h"
#include "job.h"
#include "report.h"
#include "runner.h"
#include "version.h"
#include "util.h"
#include "workload.h"

/* How the text report names a read-modify-write (results and JSON: sbio_op_name, "rmw"). */
#define TEXT_RMW "read-modify-write"

/* The call that makes the syncs, as --file-fsync-mode chose it. */
static const char *sync_name(const struct sbio_report_of *of)
{
    return of->job->fsync_mode == SBIO_FSYNC_FDATASYNC ? "fdatasync" : "fsync";
}

/* sysbench's words for each mode (enum sbio_mode): "Doing random r/w test". */
static const char *mode_long(int mode)
{
    static const char *const n[SBIO_MODE_NONE] = {"sequential write (creation)",
                                                  "sequential rewrite",
                                                  "sequential read",
                                                  "random read",
                                                  "random write",
                                                  "random r/w"};
    return mode >= 0 && mode < SBIO_MODE_NONE ? n[mode] : "?";
}
/* How the run meets the page cache: --invalidate, --fadvise (auto resolved), --random-order;
 * nothing for sysbench's defaults. */
static void text_access(FILE *out, const struct sbio_report_of *of)
{
    if (of->job->file_rr)
        fprintf(out, "File service: one request per file in turn, each file from its start on "
                     "(file_service = \"roundrobin\")\n");
    if (of->job->invalidate_pass)
        fprintf(out,
                "Page cache: the set's pages dropped before the run and each file's again at "
                "each new pass over it (%s)\n",
                of->job->name ? "invalidate = \"pass\"" : "--invalidate=pass");
    else if (of->job->invalidate)
        fprintf(out, "Page cache: the set's pages dropped before the run (--invalidate)\n");
    if (of->job->fadvise != SBIO_FADV_NONE)
        fprintf(out, "Access hint: %s%s on every descriptor%s\n",
                sbio_fadvise_name(sbio_job_fadvise(of->job)),
                of->job->fadvise == SBIO_FADV_AUTO ? " (--fadvise=auto)" : "",
                sbio_engine_has(of->job->engine, SBIO_ENG_MAPS) ? " and mapping" : "");
    if (of->job->random_order == SBIO_ORDER_ONCE &&
        !sbio_mode_sequential(sbio_report_mode(of->job)))
        fprintf(out, "Random order: every block once per pass, a new order each pass\n");
    char p[24];
    if (of->job->ioprio != SBIO_IOPRIO_NONE)
        fprintf(out, "I/O priority: %s (ioprio_set per worker thread)\n",
                sbio_ioprio_name(p, sizeof(p), of->job->ioprio));
}

void sbio_report_memgroup(FILE *out, const struct sbio_memgroup *mg, bool cold)
{
    if (mg->version == SBIO_CGROUP_NONE)
        return;
    char b[32];
    fprintf(out, "Memory limit: %s (cgroup %s %s, %s)\n", sbio_fmt_bytes(b, sizeof(b), mg->limit),
            mg->version == SBIO_CGROUP_V2 ? "v2" : "v1", mg->file, mg->dir);
    if (!cold)
        fprintf(out, "Memory limit: the set's pages cached before the run stay charged outside "
                     "the group; --invalidate or --drop-caches makes the limit hold for them\n");
}

/* A size as sysbench prints it (sb_print_value_size, then "B"): "16KiB", "1.5GiB", "512B". */
static char *sysbench_size(char *buf, size_t len, uint64_t bytes)
{
    static const char mods[] = "KMGTPE";
    double v = (double)bytes;
    unsigned i = 0;
    for (; i < sizeof(mods) - 1 && v >= 1024; i++)
        v /= 1024;
    if (i)
        snprintf(buf, len, "%.5g%ciB", v, mods[i - 1]);
    else
        snprintf(buf, len, "%.5gB", v);
    return buf;
}

/* sysbench's words for the open flags: "(none)", "sync ", "dsync ", "directio". */
static char *sysbench_flags(char *buf, size_t len, unsigned xf)
{
    snprintf(buf, len, "%s%s%s%s", xf ? "" : "(none)", xf & SBIO_XF_SYNC ? "sync " : "",
             xf & SBIO_XF_DSYNC ? "dsync " : "", xf & SBIO_XF_DIRECT ? "directio" : "");
    return buf;
}

/* sysbench 1.0's "Running the test with following options" block, line for line. */
static void header_sysbench_general(FILE *out, const struct sbio_report_of *of)
{
    fprintf(out, "Running the test with following options:\n");
    fprintf(out, "Number of threads: %u\n", of->job->threads);
    if (of->job->rate)
        fprintf(out, "Target transaction rate: %" PRIu64 "/sec\n", of->job->rate);
    if (of->set->report_interval_s)
        fprintf(out, "Report intermediate results every %" PRIu64 " second(s)\n",
                of->set->report_interval_s);
    if (of->job->verify)
        fprintf(out, "Validation checks: on.\n\n");
    if (of->set->rand_seed)
        fprintf(out, "Initializing random number generator from seed (%" PRIu64 ").\n\n",
                of->set->rand_seed);
    else
        fprintf(out, "Initializing random number generator from current time\n\n");
    fputc('\n', out);
}

/* The file block sysbench's fileio test prints (file_print_mode), line for line; where
 * sysbench's words would be wrong for this run (a read mode has no fsyncs) the line is left
 * out, and what sbio adds follows in header_sbio. */
static void header_sysbench_files(FILE *out, const struct sbio_report_of *of,
                                  const struct sbio_fileset *fs)
{
    char a[32];
    int mode = sbio_report_mode(of->job);
    fprintf(out, "Extra file open flags: %s\n", sysbench_flags(a, sizeof(a), of->job->extra_flags));
    fprintf(out, "%u files, %s each\n", fs->nfiles,
            sysbench_size(a, sizeof(a), fs->nfiles ? fs->files[0].size : 0));
    fprintf(out, "%s total file size\n", sysbench_size(a, sizeof(a), fs->bytes));
    fprintf(out, "Block size %s\n", sysbench_size(a, sizeof(a), of->job->block_size));
    if (of->job->merged_requests)
        fprintf(out, "Merging requests up to %s for sequential IO.\n",
                sysbench_size(a, sizeof(a), of->job->block_size * of->job->merged_requests));
    if (!sbio_mode_sequential(mode)) {
        fprintf(out, "Number of IO requests: %" PRIu64 "\n", of->job->events);
        fprintf(out, "Read/Write ratio for combined random IO test: %2.2f\n", of->job->rw_ratio);
    }
    if (of->job->fsync_all)
        fprintf(out, "Calling %s() after each write operation.\n", sync_name(of));
    else if (sbio_mode_writes(mode)) {
        if (of->job->fsync_freq)
            fprintf(out, "Periodic FSYNC enabled, calling %s() each %" PRIu64 " requests.\n",
                    sync_name(of), of->job->fsync_freq);
        if (of->job->fsync_end)
            fprintf(out, "Calling %s() at the end of test, Enabled.\n", sync_name(of));
    }
    fprintf(out, "Using %s I/O mode\n", sbio_engine_kind(of->job->engine));
    if (of->job->verify)
        fprintf(out, "Using checksums validation.\n");
    fprintf(out, "Doing %s test\n", mode_long(mode));
}

/* What sbio says beyond sysbench's header: the seed to repeat the run, the engine, and the
 * settings sysbench does not have. */
static void header_sbio(FILE *out, const struct sbio_report_of *of,
                        const struct sbio_topology *topo, const struct sbio_fileset *fs,
                        uint64_t seed)
{
    char a[32], b[32];
    fprintf(out, "Random seed: %" PRIu64 "%s (repeat with --rand-seed=%" PRIu64 ")\n", seed,
            of->set->rand_seed ? "" : " (from the clock)", seed);
    if (fs->nfiles > 1 && fs->files[fs->nfiles - 1].size != fs->files[0].size)
        fprintf(out, "Last file: %s (the others %s)\n",
                sbio_fmt_bytes(a, sizeof(a), fs->files[fs->nfiles - 1].size),
                sbio_fmt_bytes(b, sizeof(b), fs->files[0].size));
    const struct sbio_engine_ops *eng = sbio_engine_find(of->job->engine);
    fprintf(out, "I/O engine: %s", sbio_engine_name(of->job->engine));
    if (eng && !(eng->flags & SBIO_ENG_SYNC))
        fprintf(out, ", iodepth %" PRIu64 ", batch %" PRIu64, of->job->iodepth,
                sbio_job_iodepth_batch(of->job));
    fputc('\n', out);
    if (eng && (eng->flags & SBIO_ENG_BUFFERED_INLINE) && !(of->job->extra_flags & SBIO_XF_DIRECT))
        fprintf(out, "Note: without O_DIRECT libaio runs most requests synchronously inside "
                     "io_submit; see the depth reached below\n");
    if (topo->nranks > 1)
        fprintf(out,
                "MPI: %u ranks on %u host%s, %" PRIu64 " threads in all; %s; --events and --rate "
                "are split across ranks\n",
                topo->nranks, topo->nhosts, topo->nhosts == 1 ? "" : "s",
                (uint64_t)of->job->threads * topo->nranks,
                of->set->file_per_rank ? "each rank its own file set in DIR/rank.N"
                                       : "one file set shared by every rank");
    if (of->job->warmup_s)
        fprintf(out, "Warm-up: %" PRIu64 " s, not counted\n", of->job->warmup_s);
    if (of->job->warmup_auto)
        fprintf(out,
                "Warm-up: auto, not counted, until the last %u s are within ±%g%% "
                "(at most %" PRIu64 " s)\n",
                SBIO_WARMUP_WINDOW, of->job->warmup_tol_pct, of->job->warmup_max_s);
    if (of->job->rate)
        fprintf(out, "Target rate: %" PRIu64 " ops/s (latency from each op's intended start)\n",
                of->job->rate);
    if (of->job->cpus)
        fprintf(out, "Threads pinned to CPUs %s\n", of->job->cpus);
    if (sbio_mode_sequential(sbio_report_mode(of->job)))
        fprintf(out, "Sequential stream: %s\n",
                of->job->seq_stream == SBIO_SEQ_SHARED ? "one shared by all threads"
                                                       : "one slice of the set per thread");
    if (!of->job->fsync_all && of->job->fsync_freq && of->job->fsync_scope == SBIO_SCOPE_DIRTY &&
        sbio_mode_writes(sbio_report_mode(of->job)))
        fprintf(out, "Periodic fsync: only the files the thread wrote since its last round\n");
    text_access(out, of);
}

void sbio_report_header(FILE *out, const struct sbio_report_of *of,
                        const struct sbio_topology *topo, const struct sbio_fileset *fs,
                        uint64_t seed)
{
    fprintf(out, "sbio %s\n\n", SBIO_VERSION);
    header_sysbench_general(out, of);
    header_sysbench_files(out, of, fs);
    header_sbio(out, of, topo, fs, seed);
    fflush(out);
}

/* Which op types an interim line shows: a mode's, and a tree job's file-system operations
 * once it has done some. */
static bool mode_has(const struct sbio_report_of *of, const struct sbio_stats *cur, int op)
{
    if (op >= SBIO_OP_FS_FIRST)
        return cur->lat[op].count > 0;
    if (op == SBIO_READ)
        return sbio_mode_reads(sbio_report_mode(of->job));
    if (op == SBIO_WRITE)
        return sbio_mode_writes(sbio_report_mode(of->job));
    if (op == SBIO_RMW)
        return false; /* only a script's mix makes them */
    return sbio_mode_writes(sbio_report_mode(of->job)) &&
           (of->job->fsync_freq || of->job->fsync_all || of->job->fsync_end);
}

/* sysbench's interim line: "[ 1s ] reads: 1.23 MiB/s writes: 0.00 MiB/s fsyncs: 0.00/s
 * latency (ms,95%): 0.006" (every event: all operations but the end fsyncs, --percentile's), then
 * sbio's per operation type on an indented line of its own, so that no sysbench label is repeated.
 */
void sbio_report_interval(FILE *out, const struct sbio_report_of *of, double t_s, double interval_s,
                          const struct sbio_stats *cur, const struct sbio_stats *prev)
{
    char l[32];
    double per_s = interval_s > 0 ? 1 / interval_s : 0;
    uint64_t syncs = cur->lat[SBIO_FSYNC].count - prev->lat[SBIO_FSYNC].count + cur->write_fsyncs -
                     prev->write_fsyncs;
    struct sbio_hist all_cur, all_prev, all;
    sbio_stats_event_lat(cur, &all_cur);
    sbio_stats_event_lat(prev, &all_prev);
    sbio_hist_sub(&all, &all_cur, &all_prev);
    uint64_t pct = of->set->percentile;
    fprintf(
        out,
        "[ %.0fs ] reads: %4.2f MiB/s writes: %4.2f MiB/s fsyncs: %4.2f/s latency "
        "(ms,%" PRIu64 "%%): %4.3f\n",
        t_s, (double)(sbio_stats_bytes_read(cur) - sbio_stats_bytes_read(prev)) / SBIO_MIB * per_s,
        (double)(sbio_stats_bytes_written(cur) - sbio_stats_bytes_written(prev)) / SBIO_MIB * per_s,
        (double)syncs * per_s, pct,
        all.count ? (double)sbio_hist_percentile(&all, (double)pct) / 1e6 : 0.0);
    fprintf(out, "      per op:");
    for (int op = 0; op < SBIO_OP_NR; op++) {
        if (!mode_has(of, cur, op))
            continue;
        struct sbio_hist d;
        sbio_hist_sub(&d, &cur->lat[op], &prev->lat[op]);
        uint64_t ops = d.count;
        if (op == SBIO_FSYNC)
            ops += cur->write_fsyncs - prev->write_fsyncs;
        fprintf(out, " %s %.2f/s", sbio_op_name(op), (double)ops * per_s);
        if (sbio_report_op_bytes(op))
            fprintf(out, " %.2f MiB/s",
                    (double)(cur->bytes[op] - prev->bytes[op]) / SBIO_MIB * per_s);
        if (d.count)
            fprintf(out, " p99 %s",
                    sbio_fmt_ns(l, sizeof(l), (double)sbio_hist_percentile(&d, 99)));
        fprintf(out, ";");
    }
    fputc('\n', out);
    fflush(out);
}

static void print_lat_row(FILE *out, int w, const char *name, const struct sbio_hist *h,
                          uint64_t ops, uint64_t bytes, double secs, uint64_t extra_pct)
{
    char v[8][24];
    fprintf(out, "  %-*s %10" PRIu64 " %11.2f %9.2f", w, name, ops,
            secs > 0 ? (double)ops / secs : 0, secs > 0 ? (double)bytes / SBIO_MIB / secs : 0);
    if (!h->count) {
        fprintf(out, "\n");
        return;
    }
    static const double pcts[] = {50, 95, 99, 99.9};
    sbio_fmt_ns(v[0], sizeof(v[0]), (double)h->min_ns);
    sbio_fmt_ns(v[1], sizeof(v[1]), sbio_hist_mean(h));
    for (int i = 0; i < 4; i++)
        sbio_fmt_ns(v[2 + i], sizeof(v[0]), (double)sbio_hist_percentile(h, pcts[i]));
    sbio_fmt_ns(v[6], sizeof(v[0]), (double)h->max_ns);
    fprintf(out, " %10s %10s %10s %10s %10s %10s %10s", v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    if (extra_pct)
        fprintf(
            out, " %10s",
            sbio_fmt_ns(v[7], sizeof(v[7]), (double)sbio_hist_percentile(h, (double)extra_pct)));
    fputc('\n', out);
}

/* sysbench's --histogram block, every event together (not the end fsyncs): a row per bucket that
 * has any, its value in milliseconds (the bucket's midpoint), a bar scaled to the fullest
 * (rounded), the count; then sysbench's line of one space. */
static void text_sysbench_histogram(FILE *out, const struct sbio_stats *t)
{
    struct sbio_hist h;
    sbio_stats_event_lat(t, &h);
    uint64_t maxc = 0;
    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++)
        if (h.buckets[i] > maxc)
            maxc = h.buckets[i];
    fprintf(out, "Latency histogram (values are in milliseconds)\n");
    if (maxc)
        fprintf(out, "       value  ------------- distribution ------------- count\n");
    for (unsigned i = 0; maxc && i < SBIO_HIST_NBUCKETS; i++) {
        if (!h.buckets[i])
            continue;
        int bar = (int)floor((double)h.buckets[i] * 40.0 / (double)maxc + 0.5);
        fprintf(out, "%12.3f |%-40.*s %" PRIu64 "\n", (double)sbio_hist_bucket_mid(i) / 1e6, bar,
                "****************************************", h.buckets[i]);
    }
    fprintf(out, " \n");
}

static void print_histogram(FILE *out, const char *name, const struct sbio_hist *h)
{
    if (!h->count)
        return;
    uint64_t maxc = 0;
    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++)
        if (h->buckets[i] > maxc)
            maxc = h->buckets[i];
    fprintf(out,
            "\nPer-operation latency histogram, %s (bucket midpoint, count; %" PRIu64 " op%s):\n",
            name, h->count, h->count == 1 ? "" : "s");
    for (unsigned i = 0; i < SBIO_HIST_NBUCKETS; i++) {
        if (!h->buckets[i])
            continue;
        char v[24];
        int bar = (int)(40.0 * (double)h->buckets[i] / (double)maxc);
        fprintf(out, "  %12s |%-40.*s %" PRIu64 "\n",
                sbio_fmt_ns(v, sizeof(v), (double)sbio_hist_bucket_mid(i)), bar,
                "****************************************", h->buckets[i]);
    }
}

static void mean_stddev(const double *x, unsigned n, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (unsigned i = 0; i < n; i++)
        s += x[i];
    *mean = n ? s / n : 0;
    for (unsigned i = 0; i < n; i++)
        q += (x[i] - *mean) * (x[i] - *mean);
    *sd = n ? sqrt(q / n) : 0;
}

/* Under MPI: one line per rank, each over its own measured time. */
static void print_ranks(FILE *out, const struct sbio_run_result *res)
{
    size_t w = 4;
    for (unsigned r = 0; r < res->nranks; r++)
        if (strlen(res->rank_host[r]) > w)
            w = strlen(res->rank_host[r]);
    fprintf(out, "\nPer rank (each over its own time):\n  %4s %-*s %7s %9s %11s %9s %10s %6s\n",
            "rank", (int)w, "host", "threads", "time, s", "ops/s", "MiB/s", "p99", "CPU%");
    for (unsigned r = 0; r < res->nranks; r++) {
        const struct sbio_run_result *x = &res->ranks[r];
        const struct sbio_stats *s = &x->total;
        struct sbio_hist h;
        sbio_stats_all_lat(s, &h);
        double ts = (double)x->elapsed_ns / 1e9;
        char p99[24], cpu[16];
        /* getrusage has tick granularity: a percentage of a run this short means nothing. */
        if (ts < 0.1)
            snprintf(cpu, sizeof(cpu), "-");
        else
            snprintf(cpu, sizeof(cpu), "%.1f", 100 * (x->user_s + x->sys_s) / ts);
        fprintf(out, "  %4u %-*s %7u %9.3f %11.2f %9.2f %10s %6s%s%s\n", r, (int)w,
                res->rank_host[r], x->threads, ts, ts > 0 ? (double)sbio_stats_ops(s) / ts : 0,
                ts > 0 ? (double)(sbio_stats_bytes_read(s) + sbio_stats_bytes_written(s)) /
                             SBIO_MIB / ts
                       : 0,
                sbio_fmt_ns(p99, sizeof(p99), (double)sbio_hist_percentile(&h, 99)), cpu,
                x->error ? "  failed: " : "", x->error ? x->error_msg : "");
    }
}

/* Why the figures stop where they do: a signal or an I/O error. */
static void text_stopped(FILE *out, const struct sbio_run_result *res, double secs)
{
    if (res->stop_signal)
        fprintf(out,
                "\n*** Interrupted by %s after %.2f s: the figures cover the time measured "
                "***\n",
                res->stop_signal == SIGINT    ? "SIGINT"
                : res->stop_signal == SIGTERM ? "SIGTERM"
                                              : "a signal",
                secs);
    if (res->error)
        fprintf(out, "\n*** Stopped by %s: %s ***\n",
                res->error_kind == SBIO_ERROR_SCRIPT ? "the script's error" : "an I/O error",
                res->error_msg);
    /* Every thread stops at its first completion past the limit: one operation's latency
     * late, unless the device or the CPU kept a thread (a loaded machine). Past 1% (at least
     * 10 ms), the time measured is said to be more than the limit. */
    double limit = (double)res->limit_ns / 1e9, over = secs - limit;
    if (res->limit_ns && !res->stop_signal && !res->error && over > 0.01 && over > 0.01 * limit)
        fprintf(out,
                "\nNote: the measured phase lasted %.4f s, %.4f s past its limit of %.0f s: a "
                "thread's last operation ended late (it waited for the device, or for a CPU on "
                "a busy machine); the figures cover the %.4f s\n",
                secs, over, limit, secs);
}

/* sysbench's lines, line for line: operations and throughput per second, the general
 * statistics, the latency of every event in milliseconds (sb_report_cumulative): the end
 * fsyncs (--file-fsync-end) are no events, and sysbench times events only. */
static void text_sysbench(FILE *out, const struct sbio_report_of *of,
                          const struct sbio_run_result *res, double secs)
{
    const struct sbio_stats *t = &res->total;
    double per_s = secs > 0 ? 1 / secs : 0;
    uint64_t fsyncs = t->lat[SBIO_FSYNC].count + t->write_fsyncs;
    fprintf(out, "\nFile operations:\n");
    fprintf(out, "    reads/s:                      %4.2f\n", (double)sbio_stats_reads(t) * per_s);
    fprintf(out, "    writes/s:                     %4.2f\n", (double)sbio_stats_writes(t) * per_s);
    fprintf(out, "    fsyncs/s:                     %4.2f\n", (double)fsyncs * per_s);
    fprintf(out, "\nThroughput:\n");
    fprintf(out, "    read, MiB/s:                  %4.2f\n",
            (double)sbio_stats_bytes_read(t) / SBIO_MIB * per_s);
    fprintf(out, "    written, MiB/s:               %4.2f\n",
            (double)sbio_stats_bytes_written(t) / SBIO_MIB * per_s);
    fprintf(out, "\nGeneral statistics:\n");
    fprintf(out, "    total time:                          %.4fs\n", secs);
    fprintf(out, "    total number of events:              %" PRIu64 "\n", t->events);
    struct sbio_hist all;
    sbio_stats_event_lat(t, &all);
    fprintf(out, "\nLatency (ms):\n");
    fprintf(out, "         min: %39.2f\n", all.count ? (double)all.min_ns / 1e6 : 0.0);
    fprintf(out, "         avg: %39.2f\n", sbio_hist_mean(&all) / 1e6);
    fprintf(out, "         max: %39.2f\n", (double)all.max_ns / 1e6);
    if (of->set->percentile)
        fprintf(out, "        %3" PRIu64 "th percentile: %27.2f\n", of->set->percentile,
                (double)sbio_hist_percentile(&all, (double)of->set->percentile) / 1e6);
    else
        fprintf(out, "         percentile stats:               disabled\n");
    fprintf(out, "         sum: %39.2f\n", (double)all.sum_ns / 1e6);
}

/* sbio's counts beside sysbench's rates: the calls, the syncs by kind, the bytes. */
static void text_counts(FILE *out, const struct sbio_run_result *res)
{
    const struct sbio_stats *t = &res->total;
    char a[32], b[32];
    uint64_t fsyncs = t->lat[SBIO_FSYNC].count + t->write_fsyncs, rmw = t->lat[SBIO_RMW].count;
    fprintf(out, "\nOperations counted:\n");
    fprintf(out, "    reads, writes, syncs done:           %" PRIu64 ", %" PRIu64 ", %" PRIu64 "\n",
            sbio_stats_reads(t), sbio_stats_writes(t), fsyncs);
    if (rmw)
        fprintf(out, "    read-modify-writes done:             %" PRIu64 " (%.2f a second)\n", rmw,
                res->elapsed_ns ? (double)rmw * 1e9 / (double)res->elapsed_ns : 0);
    if (fsyncs)
        fprintf(out,
                "    syncs periodic, at end, in writes:   %" PRIu64 ", %" PRIu64 ", %" PRIu64 "\n",
                t->lat[SBIO_FSYNC].count - t->end_fsyncs, t->end_fsyncs, t->write_fsyncs);
    fprintf(out, "    bytes read, written:                 %s, %s\n",
            sbio_fmt_bytes(a, sizeof(a), sbio_stats_bytes_read(t)),
            sbio_fmt_bytes(b, sizeof(b), sbio_stats_bytes_written(t)));
}

/* The syncs as the reports show them, one or two rows: under --file-fsync-mode=fdatasync
 * every sync is an fdatasync; otherwise the fdatasyncs a script's mix or event() asked for
 * have their own row and the fsync row has the rest, the difference of the histograms
 * (exact in counts, sums and buckets; min and max from the bucket bounds, hist.h). rest holds
 * that difference. Returns the number of rows. */
static unsigned sync_rows(const struct sbio_report_of *of, const struct sbio_stats *t,
                          struct sbio_hist *rest, const char *name[2], const struct sbio_hist *h[2])
{
    name[0] = sync_name(of);
    h[0] = &t->lat[SBIO_FSYNC];
    if (of->job->fsync_mode == SBIO_FSYNC_FDATASYNC || !t->datasync.count)
        return 1;
    sbio_hist_sub(rest, &t->lat[SBIO_FSYNC], &t->datasync);
    /* Exact where the union tells: its extreme is an fsync's when no fdatasync reached it. */
    if (t->lat[SBIO_FSYNC].min_ns < t->datasync.min_ns)
        rest->min_ns = t->lat[SBIO_FSYNC].min_ns;
    if (t->lat[SBIO_FSYNC].max_ns > t->datasync.max_ns)
        rest->max_ns = t->lat[SBIO_FSYNC].max_ns;
    h[0] = rest;
    name[1] = "fdatasync";
    h[1] = &t->datasync;
    return 2;
}

/* A table per operation type, with --percentile's column when it is not one of them. */
static void text_per_op(FILE *out, const struct sbio_report_of *of,
                        const struct sbio_run_result *res, double secs)
{
    const struct sbio_stats *t = &res->total;
    uint64_t extra = of->set->percentile;
    if (extra == 50 || extra == 95 || extra == 99)
        extra = 0;
    /* The op column widens for a read-modify-write row only: other reports keep their layout. */
    int w = t->lat[SBIO_RMW].count ? (int)strlen(TEXT_RMW) : 9;
    for (int op = SBIO_OP_FS_FIRST; op < SBIO_OP_NR; op++)
        if (t->lat[op].count && (int)strlen(sbio_op_name(op)) > w)
            w = (int)strlen(sbio_op_name(op));
    fprintf(out, "\nPer operation type:\n  %-*s %10s %11s %9s %10s %10s %10s %10s %10s %10s %10s",
            w, "op", "ops", "ops/s", "MiB/s", "min", "avg", "p50", "p95", "p99", "p99.9", "max");
    if (extra)
        fprintf(out, " %9s%" PRIu64, "p", extra);
    fputc('\n', out);
    for (int op = 0; op < SBIO_FSYNC; op++)
        if (t->lat[op].count)
            print_lat_row(out, w, sbio_op_name(op), &t->lat[op], t->lat[op].count, t->bytes[op],
                          secs, extra);
    if (t->lat[SBIO_RMW].count)
        print_lat_row(out, w, TEXT_RMW, &t->lat[SBIO_RMW], t->lat[SBIO_RMW].count,
                      t->bytes[SBIO_RMW], secs, extra);
    struct sbio_hist rest;
    const char *name[2];
    const struct sbio_hist *h[2];
    unsigned n = sync_rows(of, t, &rest, name, h);
    for (unsigned i = 0; i < n; i++) {
        /* --file-fsync-all's syncs are inside the writes' latency: counted, not timed. */
        uint64_t ops = h[i]->count + (i ? 0 : t->write_fsyncs);
        if (ops)
            print_lat_row(out, w, name[i], h[i], ops, 0, secs, extra);
    }
    if (t->write_fsyncs)
        fprintf(out,
                "  (--file-fsync-all: %" PRIu64 " of them after writes, inside the writes' "
                "latency)\n",
                t->write_fsyncs);
    for (int op = SBIO_OP_FS_FIRST; op < SBIO_OP_NR; op++)
        if (t->lat[op].count)
            print_lat_row(out, w, sbio_op_name(op), &t->lat[op], t->lat[op].count, t->bytes[op],
                          secs, extra);
    if (t->skipped)
        fprintf(out,
                "  %" PRIu64 " operation%s skipped: drawn when %s could not be served (no free "
                "slot for a create or rename, no file, no current file to close or sync); no "
                "system call, in no count above\n",
                t->skipped, t->skipped == 1 ? "" : "s", t->skipped == 1 ? "it" : "they");
}

/* Fairness, as sysbench: events and busy time per thread. */
static void text_fairness(FILE *out, const struct sbio_run_result *res)
{
    unsigned n = res->threads;
    double em = 0, es = 0, bm = 0, bs = 0;
    double *ev = calloc(n ? n : 1, sizeof(double)), *busy = calloc(n ? n : 1, sizeof(double));
    if (ev && busy) {
        for (unsigned i = 0; i < n; i++) {
            ev[i] = (double)res->per_thread[i].events;
            busy[i] = (double)sbio_stats_busy_ns(&res->per_thread[i]) / 1e9;
        }
        mean_stddev(ev, n, &em, &es);
        mean_stddev(busy, n, &bm, &bs);
    }
    free(ev);
    free(busy);
    fprintf(out, "\nThreads fairness:\n");
    fprintf(out, "    events (avg/stddev):           %.4f/%3.2f\n", em, es);
    fprintf(out, "    execution time (avg/stddev):   %.4f/%3.2f\n", bm, bs);
}

/* Per thread, or per rank under MPI. */
static void text_threads(FILE *out, const struct sbio_run_result *res)
{
    unsigned n = res->threads;
    if (res->nranks)
        print_ranks(out, res);
    else
        fprintf(out, "\nPer thread:\n  %6s %10s %11s %9s %10s %10s %10s\n", "thread", "events",
                "ops/s", "MiB/s", "avg", "p99", "max");
    for (unsigned i = 0; !res->nranks && i < n; i++) {
        const struct sbio_stats *s = &res->per_thread[i];
        struct sbio_hist h;
        sbio_stats_all_lat(s, &h);
        double ts = sbio_stats_secs(s);
        char v[3][24];
        fprintf(out, "  %6u %10" PRIu64 " %11.2f %9.2f %10s %10s %10s\n", i, s->events,
                ts > 0 ? (double)sbio_stats_ops(s) / ts : 0,
                ts > 0 ? (double)(sbio_stats_bytes_read(s) + sbio_stats_bytes_written(s)) /
                             SBIO_MIB / ts
                       : 0,
                sbio_fmt_ns(v[0], sizeof(v[0]), sbio_hist_mean(&h)),
                sbio_fmt_ns(v[1], sizeof(v[1]), (double)sbio_hist_percentile(&h, 99)),
                sbio_fmt_ns(v[2], sizeof(v[2]), (double)h.max_ns));
    }
}

/* CPU time of the worker threads over their measured phase (of every rank under MPI). */
static void text_cpu(FILE *out, const struct sbio_run_result *res, double secs)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    /* The split between user and system time comes from the kernel's tick samples:
     * percentages of a run this short mean nothing. */
    if (res->nranks)
        fprintf(out, "\nCPU of all %u ranks: %.2f s user, %.2f s system (per rank above)\n",
                res->nranks, res->user_s, res->sys_s);
    else if (secs < 0.1)
        fprintf(out, "\nCPU: %.3f s user, %.3f s system (run too short for percentages)\n",
                res->user_s, res->sys_s);
    else
        fprintf(out,
                "\nCPU: user %.1f%%, system %.1f%% of one CPU (%.2f s user, %.2f s system over "
                "%.2f s; %.1f%% of the machine's %ld CPUs)\n",
                secs > 0 ? 100 * res->user_s / secs : 0, secs > 0 ? 100 * res->sys_s / secs : 0,
                res->user_s, res->sys_s, secs,
                secs > 0 && ncpu > 0 ? 100 * (res->user_s + res->sys_s) / secs / (double)ncpu : 0,
                ncpu);
}

/* What only some runs have: verification, faults, queue depth, skipped tails, seqwr completion. */
static void text_extras(FILE *out, const struct sbio_report_of *of,
                        const struct sbio_run_result *res)
{
    const struct sbio_stats *t = &res->total;
    char a[32];
    if (res->ioprio == SBIO_IOPRIO_MIXED)
        fprintf(out, "I/O priority: each job's own (see the jobs above)\n");
    else if (res->ioprio != SBIO_IOPRIO_NONE)
        fprintf(out,
                "I/O priority: %s on every worker thread (set, then read back with "
                "ioprio_get)\n",
                sbio_ioprio_name(a, sizeof(a), res->ioprio));
    sbio_result_probe_text(out, res, SBIO_PROBE_GROUP_IO);
    if (of->job->verify)
        fprintf(out, "Verification: %" PRIu64 " block%s checked%s, %" PRIu64 " bad%s%s\n",
                t->verify_checked, t->verify_checked == 1 ? "" : "s",
                res->verify_written_only
                    ? " (those this run wrote: the set was prepared without --verify)"
                    : "",
                t->verify_failed, res->verify_msg[0] ? "; first: " : "", res->verify_msg);
    if (res->depth_max)
        fprintf(out,
                "Queue depth reached: avg %.1f, max %" PRIu64
                " in flight per thread (iodepth %" PRIu64 ")\n",
                res->depth_avg, res->depth_max, of->job->iodepth);
    if (res->skipped_tails)
        fprintf(out,
                "O_DIRECT: %u file tail%s (%s) not a multiple of the %" PRIu64
                "-byte alignment %s skipped\n",
                res->skipped_tails, res->skipped_tails == 1 ? "" : "s",
                sbio_fmt_bytes(a, sizeof(a), res->skipped_bytes), res->direct_align,
                res->skipped_tails == 1 ? "was" : "were");
    if (res->completed_bytes)
        fprintf(out,
                "seqwr: the run ended before the set was whole again; %s were written "
                "outside the measured time to complete it\n",
                sbio_fmt_bytes(a, sizeof(a), res->completed_bytes));
    if (res->left_bytes)
        fprintf(out,
                "seqwr: the run ended before the set was whole again: %s of it left unwritten "
                "(sbio.manifest says so); the next run, or sbio prepare, writes it first\n",
                sbio_fmt_bytes(a, sizeof(a), res->left_bytes));
}

/* Page-cache state of the set around the measured phase. */
static void text_cache(FILE *out, const struct sbio_run_result *res)
{
    if (res->invalidated) {
        char r[32], t[32];
        fprintf(out,
                "Page cache before the run: %.1f%% of the set resident, %s of %s (invalidated %u "
                "file%s)\n",
                res->set_bytes ? 100.0 * (double)res->resident_bytes / (double)res->set_bytes : 0.0,
                sbio_fmt_bytes(r, sizeof(r), res->resident_bytes),
                sbio_fmt_bytes(t, sizeof(t), res->set_bytes), res->invalidated,
                res->invalidated == 1 ? "" : "s");
    }
    if (res->pass_drops)
        fprintf(out,
                "Page cache at each new pass: %" PRIu64 " drop%s of a file's pages, outside "
                "the requests' latencies\n",
                res->pass_drops, res->pass_drops == 1 ? "" : "s");
    sbio_result_probe_text(out, res, SBIO_PROBE_PAGE_CACHE);
    sbio_result_probe_text(out, res, SBIO_PROBE_MEMSTAT);
}

/* --histogram: one per operation type, the syncs split as in the table. */
static void text_histograms(FILE *out, const struct sbio_report_of *of, const struct sbio_stats *t)
{
    struct sbio_hist rest;
    const char *name[2];
    const struct sbio_hist *h[2];
    for (int op = 0; op < SBIO_FSYNC; op++)
        print_histogram(out, sbio_op_name(op), &t->lat[op]);
    print_histogram(out, TEXT_RMW, &t->lat[SBIO_RMW]);
    for (unsigned i = 0, n = sync_rows(of, t, &rest, name, h); i < n; i++)
        print_histogram(out, name[i], h[i]);
    for (int op = SBIO_OP_FS_FIRST; op < SBIO_OP_NR; op++)
        print_histogram(out, sbio_op_name(op), &t->lat[op]);
}

/* A read run the device did not serve: what it measured is the page cache, and how to
 * measure the device instead. */
static void text_cached_reads(FILE *out, const struct sbio_report_of *of,
                              const struct sbio_run_result *res)
{
    const char *dev;
    uint64_t dev_read;
    if (!sbio_report_cached_reads(res) || !sbio_probe_devices_read(&res->probe, &dev, &dev_read))
        return;
    char a[32], b[32], c[32];
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    /* A script says it per job and phase; caches dropped before a run were filled again
     * during it. A tree job cannot use O_DIRECT (the tails of its files). */
    const char *direct = (of->job->tree != NULL) ? ""
                         : of->set->script       ? "flags = \"direct\", "
                                                 : "--file-extra-flags=direct, ";
    const char *drop = of->set->script        ? "drop_caches = true in the phase, "
                       : of->set->drop_caches ? ""
                                              : "--drop-caches, ";
    fprintf(out,
            "Note: the reads came from the page cache: the run read %s, device %s read %s. "
            "To measure the device: %s%sor a set larger than the RAM (%s)\n",
            sbio_fmt_bytes(a, sizeof(a), sbio_stats_bytes_read(&res->total)), dev,
            sbio_fmt_bytes(b, sizeof(b), dev_read), direct, drop,
            sbio_fmt_bytes(c, sizeof(c), ram));
}

/* --rate: the rate reached (events over the measured time) against the target; a shortfall
 * of more than 5% said. */
static void text_rate(FILE *out, const struct sbio_report_of *of, const struct sbio_run_result *res,
                      double secs)
{
    if (!of->job->rate)
        return;
    double got = secs > 0 ? (double)res->total.events / secs : 0;
    double pct = 100 * got / (double)of->job->rate;
    fprintf(out, "Rate: %.2f ops/s reached of the %" PRIu64 " ops/s asked (%.1f%%)\n", got,
            of->job->rate, pct);
    if (pct < 95)
        fprintf(out,
                "Note: the rate fell %.1f%% short of its target: the operations could not be "
                "issued as fast as asked (each one's latency counts from its intended start)\n",
                100 - pct);
}

/* What is the process's rather than the run's: page faults, devices, page cache. */
static void text_process(FILE *out, const struct sbio_report_of *of,
                         const struct sbio_run_result *res)
{
    sbio_result_probe_text(out, res, SBIO_PROBE_FAULTS);
    sbio_result_probe_text(out, res, SBIO_PROBE_DEVICES);
    sbio_result_probe_text(out, res, SBIO_PROBE_PROC_IO);
    text_cache(out, res);
    text_cached_reads(out, of, res);
}

/* --warmup=auto: when measuring began, and how settled the throughput was then. */
static void text_warmup(FILE *out, const struct sbio_run_result *res)
{
    const struct sbio_warmup_result *w = &res->warmup;
    if (!w->is_auto)
        return;
    fprintf(out,
            "Warm-up: auto, %s after %.1f s (last %.0f s within ±%.1f%%, slope %+.1f%%/s); "
            "measuring from there\n",
            w->settled ? "settled" : "not settled", w->measured_from_s, w->window_s, w->spread_pct,
            w->slope_pct_per_s);
}

void sbio_report_text_scope(FILE *out, const struct sbio_report_of *of,
                            const struct sbio_fileset *fs, const struct sbio_run_result *res,
                            enum sbio_report_scope scope)
{
    double secs = (double)res->elapsed_ns / 1e9;
    (void)fs;
    text_warmup(out, res);
    text_stopped(out, res, secs);
    if (of->set->histogram)
        text_sysbench_histogram(out, &res->total);
    text_sysbench(out, of, res, secs);
    text_fairness(out, res);
    text_counts(out, res);
    text_per_op(out, of, res, secs);
    text_threads(out, res);
    text_cpu(out, res, secs);
    if (scope != SBIO_REPORT_WHOLE) {
        sbio_result_probe_text(out, res, SBIO_PROBE_FAULTS);
        fprintf(out, "Device and page-cache figures: the process's, in the phase's total below\n");
    }
    text_extras(out, of, res);
    text_rate(out, of, res, secs);
    if (scope == SBIO_REPORT_WHOLE)
        text_process(out, of, res);
    if (of->set->histogram)
        text_histograms(out, of, &res->total);
    fflush(out);
}

void sbio_report_text(FILE *out, const struct sbio_report_of *of, const struct sbio_fileset *fs,
                      const struct sbio_run_result *res)
{
    sbio_report_text_scope(out, of, fs, res, SBIO_REPORT_WHOLE);
}

/* A share as the table prints it: "-" where the phase had none of the figure. */
static const char *share_cell(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v))
        return "-";
    snprintf(buf, len, fmt, v);
    return buf;
}

void sbio_report_shares(FILE *out, const struct sbio_shares *sh, const char *const *names)
{
    bool rw = false; /* a job that both read and wrote: the shares of each are worth a column */
    int w = 3;
    for (unsigned k = 0; k < sh->n; k++) {
        rw |= sh->job[k].read_ops > 0 && sh->job[k].write_ops > 0;
        w = (int)strlen(names[k]) > w ? (int)strlen(names[k]) : w;
    }
    fprintf(out, "\nHow the jobs shared the phase (each job's part of the jobs' total):\n");
    fprintf(out, "  %-*s %10s %10s %12s", w, "job", "MiB/s", "ops share", "bytes share");
    if (rw)
        fprintf(out, " %12s %13s", "reads share", "writes share");
    fprintf(out, " %7s %12s %6s\n", "weight", "asked share", "ratio");
    for (unsigned k = 0; k < sh->n; k++) {
        const struct sbio_share *j = &sh->job[k];
        char c[7][24];
        fprintf(out, "  %-*s %10.2f %10s %12s", w, names[k], j->bytes_per_s / SBIO_MIB,
                share_cell(c[0], sizeof(c[0]), j->ops, "%.3f"),
                share_cell(c[1], sizeof(c[1]), j->bytes, "%.3f"));
        if (rw)
            fprintf(out, " %12s %13s", share_cell(c[2], sizeof(c[2]), j->read_ops, "%.3f"),
                    share_cell(c[3], sizeof(c[3]), j->write_ops, "%.3f"));
        if (j->weight)
            snprintf(c[4], sizeof(c[4]), "%u", j->weight);
        fprintf(out, " %7s %12s %6s\n", j->weight ? c[4] : "-",
                share_cell(c[5], sizeof(c[5]), j->asked, "%.3f"),
                share_cell(c[6], sizeof(c[6]), j->ratio, "%.2f"));
    }
    fprintf(out, "  Jain's fairness index: %.3f (over %s%s, %u jobs)\n", sh->jain,
            sh->over_ops ? "ops/s" : "bytes/s", sh->weighted ? " per asked share" : "", sh->n);
    fflush(out);
}

int sbio_report_phase_add(struct sbio_phase_table *t, const char *name, unsigned jobs,
                          const struct sbio_run_result *res)
{
    if (t->n == t->cap) {
        unsigned cap = t->cap ? 2 * t->cap : 8;
        struct sbio_phase_row *r = realloc(t->rows, cap * sizeof(*r));
        if (!r)
            return -ENOMEM;
        t->rows = r;
        t->cap = cap;
    }
    struct sbio_phase_row *row = &t->rows[t->n++];
    *row = (struct sbio_phase_row){.name = name, .jobs = jobs, .measured = res && res->measured};
    if (!row->measured)
        return 0;
    struct sbio_hist all;
    sbio_stats_all_lat(&res->total, &all);
    row->threads = res->threads;
    row->secs = (double)res->elapsed_ns / 1e9;
    row->ops = sbio_stats_ops(&res->total);
    row->bytes_read = sbio_stats_bytes_read(&res->total);
    row->bytes_written = sbio_stats_bytes_written(&res->total);
    row->avg_ns = (uint64_t)sbio_hist_mean(&all);
    row->p99_ns = sbio_hist_percentile(&all, 99);
    row->error = res->error;
    row->error_kind = res->error_kind;
    row->stop_signal = res->stop_signal;
    return 0;
}

/* One row of the phases' table: its figures over its own time, or why it has none. */
static void phase_row(FILE *out, const struct sbio_phase_row *r, int w)
{
    if (!r->measured) {
        fprintf(out, "  %-*s %5u  measured nothing (see the message above)\n", w, r->name, r->jobs);
        return;
    }
    double s = r->secs;
    char avg[24], p99[24];
    fprintf(out, "  %-*s %5u %8u %8.2f %11.2f %12.2f %12.2f %10s %10s%s\n", w, r->name, r->jobs,
            r->threads, s, s > 0 ? (double)r->ops / s : 0,
            s > 0 ? (double)r->bytes_read / SBIO_MIB / s : 0,
            s > 0 ? (double)r->bytes_written / SBIO_MIB / s : 0,
            sbio_fmt_ns(avg, sizeof(avg), (double)r->avg_ns),
            sbio_fmt_ns(p99, sizeof(p99), (double)r->p99_ns),
            r->error && r->error_kind == SBIO_ERROR_SCRIPT ? "  stopped by the script's error"
            : r->error                                     ? "  stopped by an I/O error"
            : r->stop_signal                               ? "  interrupted"
                                                           : "");
}

void sbio_report_phases(FILE *out, struct sbio_phase_table *t)
{
    if (t->n > 1) {
        int w = 5;
        for (unsigned i = 0; i < t->n; i++)
            w = (int)strlen(t->rows[i].name) > w ? (int)strlen(t->rows[i].name) : w;
        fprintf(out,
                "\nPhases (each its jobs together, over its own time):\n  %-*s %5s %8s %8s %11s "
                "%12s %12s %10s %10s\n",
                w, "phase", "jobs", "threads", "time, s", "ops/s", "read MiB/s", "write MiB/s",
                "avg", "p99");
        for (unsigned i = 0; i < t->n; i++)
            phase_row(out, &t->rows[i], w);
        fflush(out);
    }
    free(t->rows);
    *t = (struct sbio_phase_table){0};
}

/* ", on the tree: stat 4, create 1" (a tree job's mix weights) or ", on the tree: flow open,
 * readwhole, close", cut short with "…" if it is too long. */
void sbio_report_tree_ops(char *buf, size_t len, const struct sbio_script_job *sj)
{
    size_t n = (size_t)snprintf(buf, len, ", on the tree: %s", sj->nflow ? "flow " : "");
    for (unsigned i = 0; i < (sj->nflow ? sj->nflow : SBIO_MIX_NR) && n < len; i++) {
        int op = sj->nflow ? sj->flow[i] : (int)i;
        if (!sj->nflow && !(sj->weight[op] > 0))
            continue;
        int w = sj->nflow ? snprintf(buf + n, len - n, "%s%s", i ? ", " : "", sbio_mix_op_name(op))
                          : snprintf(buf + n, len - n, "%s%s %g", buf[n - 1] == ' ' ? "" : ", ",
                                     sbio_mix_op_name(op), sj->weight[op]);
        n += w > 0 ? (size_t)w : 0;
    }
    if (n >= len)
        snprintf(buf + len - 5, 5, "\u2026");
}
