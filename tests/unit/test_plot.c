/* Unit tests for sbio plot (src/analysis/plot.c) without gnuplot: a stand-in "gnuplot" first on the
 * PATH records where it ran and can fail on demand, so what is checked is what sbio writes
 * for gnuplot, from hand-written JSON results: the data files (the JSON's numbers unscaled,
 * NaN where a figure is absent or untimed), run labels taken from file names, the brief and
 * long run descriptions, the tick labels of a compare chart shortened to values when the
 * names do not fit, its annotations and command line, the terminal and output lines, --size,
 * and the errors: gnuplot missing or failing, bad input. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "infer.h"
#include "options.h"
#include "plot.h"
#include "util.h"

static char g_dir[64];
static char *g_path_saved;

/* The stand-in: it runs where sbio starts gnuplot, in gnuplot's sandbox (it may write
 * nothing but its standard output, the chart sbio opened), records that folder and its
 * arguments in the chart, and exits STUB_EXIT with a gnuplot-like message when that is set. */
static const char stub[] = "#!/bin/sh\n"
                           "pwd\n"
                           "echo \"$@\"\n"
                           "if [ -n \"$STUB_EXIT\" ]; then\n"
                           "    echo 'gnuplot> plot x' >&2\n"
                           "    echo '\"plot.gp\" line 30: undefined variable: x' >&2\n"
                           "    exit \"$STUB_EXIT\"\n"
                           "fi\n";

static char *at(const char *name)
{
    static char buf[8][256]; /* a ring: a test holds a few paths at once */
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 256, "%s/%s", g_dir, name);
    return p;
}

/* The whole file, or NULL when there is none; the caller frees it. */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)))
        fwrite(chunk, 1, n, m);
    fclose(f);
    assert_int_equal(fclose(m), 0);
    return buf;
}

/* The data lines of a data file (its # comment lines left out). */
static char *data_rows(const char *path)
{
    char *text = read_all(path);
    if (!text)
        fail_msg("%s was not written", path);
    size_t l = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n") + (strchr(p, '\n') ? 1 : 0);
        if (*p != '#') {
            memmove(text + l, p, n);
            l += n;
        }
        p += n;
    }
    text[l] = 0;
    return text;
}

/* sbio plot ARGS…: its return code, and its stderr in err. */
#define PLOT(err, ...) plot_args(err, ARGV("plot", __VA_ARGS__))
static int plot_args(char *err, char **argv)
{
    struct sbio_config cfg;
    if (parse_args(&cfg, argv, err, MSG_MAX))
        fail_msg("parse: %s", err);
    struct capture c;
    cap_begin(&c);
    int rc = sbio_plot(TPLOT(&cfg));
    cap_end(&c, err, MSG_MAX);
    return rc;
}

/* A run result: rndrw, 2 threads, 16 KiB, sync with O_DIRECT; reads and writes, no fsync;
 * two samples, the first over 10 000 ops/s. */
static const char run_rw[] =
    "{\"schema\": \"sbio-result/1\",\n"
    " \"config\": {\"file_test_mode\": \"rndrw\", \"threads\": 2, \"block_size_bytes\": 16384,\n"
    "            \"ioengine\": \"sync\", \"file_extra_flags\": \"direct\"},\n"
    " \"result\": {\"elapsed_s\": 10.04, \"op_types\": {\n"
    "   \"read\": {\"ops\": 15000, \"ops_per_s\": 1500.5, \"latency\": {\"count\": 15000,\n"
    "            \"percentiles_ns\": {\"50\": 1000, \"90\": 2000, \"99\": 5000, \"99.9\": "
    "9000}}},\n"
    "   \"write\": {\"ops\": 8000, \"ops_per_s\": 800, \"latency\": {\"count\": 8000,\n"
    "            \"percentiles_ns\": {\"50\": 3000, \"90\": 4000, \"99\": 9000, \"99.9\": "
    "12000}}},\n"
    "   \"fsync\": {\"ops\": 0, \"ops_per_s\": 0, \"latency\": {\"count\": 0,\n"
    "            \"percentiles_ns\": {\"50\": 0, \"90\": 0, \"99\": 0, \"99.9\": 0}}}},\n"
    "  \"samples\": [{\"t_s\": 1, \"read\": {\"ops_per_s\": 25000}, \"write\": {\"ops_per_s\": "
    "500.25}},\n"
    "              {\"t_s\": 2.5, \"read\": {\"ops_per_s\": 1000}, \"write\": {\"ops_per_s\": "
    "0}}]}}\n";

/* A read-only run without a time series and without fsync at all. */
static const char run_rd[] =
    "{\"schema\": \"sbio-result/1\",\n"
    " \"config\": {\"file_test_mode\": \"seqrd\", \"threads\": 1, \"block_size_bytes\": 4096,\n"
    "            \"ioengine\": \"io_uring\", \"file_extra_flags\": \"(none)\"},\n"
    " \"result\": {\"elapsed_s\": 2, \"op_types\": {\n"
    "   \"read\": {\"ops\": 60000, \"ops_per_s\": 30000, \"latency\": {\"count\": 60000,\n"
    "            \"percentiles_ns\": {\"50\": 300, \"90\": 500, \"99\": 800, \"99.9\": "
    "2000}}}}}}\n";

/* One result: the time series and the percentiles, as in the JSON; the script's title says
 * which run it is and how it ran, its throughput axis in thousands. */
static void test_one_run(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_file(at("r1.json"), run_rw);
    assert_int_equal(mkdir(at("k1"), 0755), 0);
    assert_int_equal(PLOT(err, at("r1.json"), "-o", at("one.png"), "--keep-data", at("k1/deep")),
                     0);
    assert_string_equal(err, "");
    char *rows = data_rows(at("k1/deep/throughput.dat"));
    assert_string_equal(rows, "1 25000 500.25 NaN\n2.5 1000 0 NaN\n");
    free(rows);
    rows = data_rows(at("k1/deep/percentiles.dat"));
    assert_string_equal(rows, "p50 1000 3000 NaN\np90 2000 4000 NaN\np99 5000 9000 NaN\n"
                              "p99.9 9000 12000 NaN\n");
    free(rows);

    char *gp = read_all(at("k1/deep/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "set terminal pngcairo size 1200,800 ");
    char want[512];
    snprintf(want, sizeof(want),
             "\nif (!exists('sbio_chart_on_stdout')) {\n    set output '%s'\n}\n", at("one.png"));
    assert_has(gp, want);
    assert_has(gp, "set multiplot layout 2,1 title 'sbio: r1 (rndrw, 2 threads, 16 KiB blocks, "
                   "sync direct, 10.0 s)' font ',13'\n");
    assert_has(gp, "set ylabel 'thousand operations/s'\n");
    assert_has(gp, "plot 'throughput.dat' using 1:($2/1000) with linespoints");
    assert_has(gp, "'throughput.dat' using 1:($3/1000) with linespoints");
    assert_lacks(gp, "($4/1000)"); /* no fsync line: none was done */
    assert_has(gp, "title 'write'");
    assert_lacks(gp, "title 'fsync'");
    free(gp);

    char *log = read_all(at("one.png"));
    snprintf(want, sizeof(want), "%s\n-e sbio_chart_on_stdout = 1 plot.gp\n", at("k1/deep"));
    assert_non_null(log);
    assert_string_equal(log, want); /* gnuplot ran in the data folder */
    free(log);
}

/* Without --keep-data the files go to a private folder under TMPDIR, removed afterwards;
 * without a time series a note says why the throughput panel is empty. A relative -o is
 * made absolute (gnuplot runs elsewhere); .svg picks the svg terminal; --size is obeyed. */
static void test_private_folder_svg_size(void **state)
{
    (void)state;
    char err[MSG_MAX], cwd[256];
    write_file(at("rd.json"), run_rd);
    mkdir(at("tmp"), 0700);
    setenv("TMPDIR", at("tmp"), 1);
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(g_dir), 0);
    int rc = PLOT(err, "rd.json", "-o", "chart.SVG", "--size", "800x600");
    assert_int_equal(chdir(cwd), 0);
    unsetenv("TMPDIR");
    assert_int_equal(rc, 0);
    assert_string_equal(err, "sbio: note: rd.json: no time series: run with --report-interval "
                             "or --log-interval (the throughput panel is empty)\n");
    char *log = read_all(at("chart.SVG"));
    assert_non_null(log);
    char want[256];
    snprintf(want, sizeof(want), "%s/sbio-plot.", at("tmp"));
    if (strncmp(log, want, strlen(want)))
        fail_msg("gnuplot ran in %s, want a folder %s…", log, want);
    free(log);
    assert_int_equal(rmdir(at("tmp")), 0); /* empty: the private folder is gone */

    /* The same with --keep-data, to read what was written. */
    assert_int_equal(chdir(g_dir), 0);
    rc = PLOT(err, "rd.json", "-o", "chart.SVG", "--size", "800x600", "--keep-data", "k2");
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rc, 0);
    assert_null(read_all(at("k2/throughput.dat")));
    char *rows = data_rows(at("k2/percentiles.dat"));
    assert_string_equal(rows, "p50 300 NaN NaN\np90 500 NaN NaN\np99 800 NaN NaN\n"
                              "p99.9 2000 NaN NaN\n");
    free(rows);
    char *gp = read_all(at("k2/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "\nset terminal svg size 800,600 ");
    snprintf(want, sizeof(want), "\n    set output '%s'\n", at("chart.SVG"));
    assert_has(gp, want);
    assert_has(gp, "'sbio: rd (seqrd, 1 thread, 4 KiB blocks, io_uring, 2.0 s)'");
    assert_has(gp, "no time series: run with --report-interval or --log-interval");
    free(gp);
}

/* Several results: one row each, named after the file (".json" dropped whatever its case,
 * a double quote turned into a single one), with the brief description, ops/s then p99
 * per op type; NaN for what a run did not do. */
static void test_several_runs(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_file(at("r1.json"), run_rw);
    write_file(at("say \"hi\".JSON"), run_rd);
    assert_int_equal(PLOT(err, at("r1.json"), at("say \"hi\".JSON"), "-o", at("two.png"),
                          "--keep-data", at("k3")),
                     0);
    assert_string_equal(err, "");
    char *rows = data_rows(at("k3/compare.dat"));
    assert_string_equal(rows,
                        "\"r1\" \"rndrw, 2 thr, 16 KiB, sync direct\" 1500.5 800 0 5000 9000 NaN\n"
                        "\"say 'hi'\" \"seqrd, 1 thr, 4 KiB, io_uring\" 30000 NaN NaN 800 NaN "
                        "NaN\n");
    free(rows);
    char *gp = read_all(at("k3/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "title 'sbio: 2 runs, throughput and p99 latency per op type'");
    assert_has(gp, "set ylabel 'thousand operations/s'\n");
    free(gp);

    /* A name with a single quote: doubled inside gnuplot's single-quoted title. */
    write_file(at("it's.json"), run_rd);
    assert_int_equal(PLOT(err, at("it's.json"), "-o", at("q.png"), "--keep-data", at("k4")), 0);
    gp = read_all(at("k4/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "title \"sbio: it\\047s (seqrd,"); /* never '' in a string: see plot.c */
    free(gp);
}

/* A tree job's run: creates and stats besides reads, a create in one sample only. */
static const char run_fs[] =
    "{\"schema\": \"sbio-result/1\",\n"
    " \"config\": {\"file_test_mode\": \"rndrd\", \"threads\": 1, \"block_size_bytes\": 4096,\n"
    "            \"ioengine\": \"sync\", \"file_extra_flags\": \"(none)\"},\n"
    " \"result\": {\"elapsed_s\": 2, \"op_types\": {\n"
    "   \"read\": {\"ops\": 100, \"ops_per_s\": 50, \"latency\": {\"count\": 100,\n"
    "            \"percentiles_ns\": {\"50\": 300, \"90\": 500, \"99\": 800, \"99.9\": 900}}},\n"
    "   \"create\": {\"ops\": 40, \"ops_per_s\": 20, \"latency\": {\"count\": 40,\n"
    "            \"percentiles_ns\": {\"50\": 40000, \"90\": 50000, \"99\": 70000, \"99.9\": "
    "90000}}},\n"
    "   \"stat\": {\"ops\": 600, \"ops_per_s\": 300, \"latency\": {\"count\": 600,\n"
    "            \"percentiles_ns\": {\"50\": 2000, \"90\": 2500, \"99\": 4000, \"99.9\": "
    "6000}}}},\n"
    "  \"samples\": [{\"t_s\": 1, \"read\": {\"ops_per_s\": 60}, \"create\": {\"ops_per_s\": 40}, "
    "\"stat\": {\"ops_per_s\": 280}},\n"
    "              {\"t_s\": 2, \"read\": {\"ops_per_s\": 40}, \"stat\": {\"ops_per_s\": "
    "320}}]}}\n";

/* File-system op types have their series where the runs have them: a column and a line each
 * after read, write and fsync, in every data file and panel; a run without them keeps its
 * columns (the other tests). */
static void test_fs_ops(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_file(at("fs.json"), run_fs);
    assert_int_equal(PLOT(err, at("fs.json"), "-o", at("fs.png"), "--keep-data", at("kf")), 0);
    assert_string_equal(err, "");
    char *text = read_all(at("kf/throughput.dat"));
    assert_non_null(text);
    assert_has(text, "# t_s read_ops_per_s write_ops_per_s fsync_ops_per_s create_ops_per_s "
                     "stat_ops_per_s\n");
    free(text);
    char *rows = data_rows(at("kf/throughput.dat"));
    assert_string_equal(rows, "1 60 NaN NaN 40 280\n2 40 NaN NaN NaN 320\n");
    free(rows);
    rows = data_rows(at("kf/percentiles.dat"));
    assert_string_equal(rows, "p50 300 NaN NaN 40000 2000\np90 500 NaN NaN 50000 2500\n"
                              "p99 800 NaN NaN 70000 4000\np99.9 900 NaN NaN 90000 6000\n");
    free(rows);
    char *gp = read_all(at("kf/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "'throughput.dat' using 1:($5/1) with linespoints");
    assert_has(gp, "title 'create'");
    assert_has(gp, "'percentiles.dat' using 0:($6/1000.0):xtic(1) with linespoints");
    assert_has(gp, "title 'stat'");
    assert_lacks(gp, "title 'rename'");
    free(gp);

    /* Beside a run without them: their bars, the p99 columns after every ops/s one. */
    write_file(at("rd.json"), run_rd);
    assert_int_equal(
        PLOT(err, at("fs.json"), at("rd.json"), "-o", at("fs2.png"), "--keep-data", at("kf2")), 0);
    rows = data_rows(at("kf2/compare.dat"));
    assert_has(rows, "\" 50 NaN NaN 20 300 800 NaN NaN 70000 4000\n");
    assert_has(rows, "\" 30000 NaN NaN NaN NaN 800 NaN NaN NaN NaN\n");
    free(rows);
    gp = read_all(at("kf2/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "'compare.dat' using ($7/1000):xtic(strcol(1).\"\\n\".strcol(2)) lc rgb "
                   "'#aec7e8' title 'stat'");
    assert_has(gp, "'compare.dat' using ($12/1000.0):xtic(strcol(1).\"\\n\".strcol(2)) lc rgb "
                   "'#aec7e8' title 'stat'");
    free(gp);
}

/* Read, write and fsync alike at every percentile: each point's value label at its own
 * place, so no two labels of one percentile sit on each other; the y range in whole decades
 * with room under the lowest point. */
static void test_labels_apart(void **state)
{
    (void)state;
    char err[MSG_MAX];
    const char *doc =
        "{\"schema\": \"sbio-result/1\", \"config\": {\"file_test_mode\": \"rndrw\"},\n"
        " \"result\": {\"elapsed_s\": 10, \"op_types\": {\n"
        "  \"read\": {\"ops\": 9, \"latency\": {\"count\": 9, \"percentiles_ns\": {\"50\": "
        "100000, \"90\": 120000, \"99\": 150000, \"99.9\": 200000}}},\n"
        "  \"write\": {\"ops\": 9, \"latency\": {\"count\": 9, \"percentiles_ns\": {\"50\": "
        "100000, \"90\": 120000, \"99\": 150000, \"99.9\": 200000}}},\n"
        "  \"fsync\": {\"ops\": 9, \"latency\": {\"count\": 9, \"percentiles_ns\": {\"50\": "
        "100000, \"90\": 120000, \"99\": 150000, \"99.9\": 200000}}}}}}\n";
    write_file(at("same.json"), doc);
    assert_int_equal(PLOT(err, at("same.json"), "-o", at("same.png"), "--keep-data", at("ks")), 0);
    char *gp = read_all(at("ks/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "set yrange [10:1000]\n");
    char place[12][128];
    int n = 0;
    for (const char *p = strstr(gp, "\nset label '"); p; p = strstr(p + 1, "\nset label '")) {
        unsigned pct;
        char text[32], rest[96];
        assert_true(n < 12);
        assert_int_equal(
            sscanf(p, "\nset label '%31[^']' at first %u, first %*s %95[^\n]", text, &pct, rest),
            3);
        *strstr(rest, " tc ") = 0; /* the place without the colour */
        snprintf(place[n], sizeof(place[n]), "%u %s", pct, rest);
        for (int k = 0; k < n; k++)
            if (!strcmp(place[k], place[n]))
                fail_msg("two labels of p-index %u at one place: %s", pct, rest);
        n++;
    }
    assert_int_equal(n, 12); /* a label per point */
    free(gp);
}

/* run_rd on a device as sysfs showed it (queue files and tunables as the kernel printed
 * them, as every sbio wrote them), into path. */
static void write_on_device(const char *path, const char *sched, const char *nr,
                            const char *tunables)
{
    char doc[2048];
    snprintf(doc, sizeof(doc),
             "{\"schema\": \"sbio-result/1\", \"environment\": {\"devices\": [{\"name\": "
             "\"loop0\", \"queue\": {\"scheduler\": \"%s\", \"nr_requests\": \"%s\", "
             "\"read_ahead_kb\": \"128\"}, \"iosched\": {%s}}]},%s",
             sched, nr, tunables, strchr(run_rd, ',') + 1);
    write_file(path, doc);
}

/* Runs compared by hand: each bar group named by the settings that differ between the runs
 * (a tunable only one scheduler has does not make the others differ), the file name added
 * where two runs share a label; by file name when nothing differs. */
static void test_labels_by_settings(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_on_device(at("mq.json"), "none [mq-deadline] kyber bfq", "64", "\"fifo_batch\": \"16\"");
    write_on_device(at("bfq.json"), "none mq-deadline kyber [bfq]", "64", "\"slice_idle\": \"8\"");
    write_on_device(at("bfq0.json"), "none mq-deadline kyber [bfq]", "64", "\"slice_idle\": \"0\"");
    write_on_device(at("bfq0b.json"), "none mq-deadline kyber [bfq]", "64",
                    "\"slice_idle\": \"0\"");
    assert_int_equal(
        PLOT(err, at("mq.json"), at("bfq.json"), "-o", at("l.png"), "--keep-data", at("kl1")), 0);
    char *rows = data_rows(at("kl1/compare.dat"));
    assert_non_null(rows);
    assert_true(!strncmp(rows, "\"scheduler=mq-deadline\" ", 24));
    assert_has(rows, "\n\"scheduler=bfq\" ");
    free(rows);
    assert_int_equal(PLOT(err, at("mq.json"), at("bfq.json"), at("bfq0.json"), at("bfq0b.json"),
                          "-o", at("l.png"), "--keep-data", at("kl2")),
                     0);
    rows = data_rows(at("kl2/compare.dat"));
    assert_true(!strncmp(rows, "\"scheduler=mq-deadline\" ", 24));
    assert_has(rows, "\n\"scheduler=bfq iosched/slice_idle=8\" ");
    assert_has(rows, "\n\"scheduler=bfq iosched/slice_idle=0 (bfq0)\" ");
    assert_has(rows, "\n\"scheduler=bfq iosched/slice_idle=0 (bfq0b)\" ");
    free(rows);
    /* Nothing differs: the file names. */
    assert_int_equal(
        PLOT(err, at("bfq0.json"), at("bfq0b.json"), "-o", at("l.png"), "--keep-data", at("kl3")),
        0);
    rows = data_rows(at("kl3/compare.dat"));
    assert_true(!strncmp(rows, "\"bfq0\" ", 7));
    assert_has(rows, "\n\"bfq0b\" ");
    free(rows);
}

/* A synthetic compare result of a script's one phase, "mixed", of two jobs: "readers" (reads
 * only) and "writer" (reads and writes), and their total; three settings of three runs each, the
 * third's runs all failed. Each run's document has the latency percentiles of its jobs; each
 * setting's phases[] the compare's figures of ops/s, made up so that every column differs. */
static const char *const cmp_names[3] = {"file-block-size=4K threads=1",
                                         "file-block-size=64K threads=1",
                                         "file-block-size=4K threads=8"};
static const char *const cmp_q[4] = {"50", "95", "99", "99.9"};

/* The percentile q (0..3) of op (0 read, 1 write) in run k of setting s, in ns. */
static double cmp_pct(size_t s, size_t k, int op, size_t q)
{
    return (op ? 3000.0 : 1000.0) * (double)(1u << (2 * q)) * (1.0 + (double)s) + 100.0 * k;
}

static json_t *cmp_job_result(size_t s, size_t k, bool reads, bool writes)
{
    json_t *ops = json_object();
    for (int op = 0; op < 2; op++) {
        bool did = op ? writes : reads;
        json_t *pct = json_object();
        for (size_t q = 0; q < 4; q++)
            json_object_set_new(pct, cmp_q[q], json_real(did ? cmp_pct(s, k, op, q) : 0));
        json_object_set_new(ops, op ? "write" : "read",
                            json_pack("{s:i,s:{s:i,s:o}}", "ops", did ? 500 : 0, "latency", "count",
                                      did ? 500 : 0, "percentiles_ns", pct));
    }
    return json_pack("{s:s,s:{s:f,s:i,s:o}}", "schema", "sbio-result/1", "result", "elapsed_s", 1.0,
                     "ops", (reads + writes) * 500, "op_types", ops);
}

static json_t *cmp_run(size_t s, size_t k)
{
    if (s == 2)
        return json_pack("{s:i,s:s,s:n}", "repeat", (int)k + 1, "status", "failed", "result");
    json_t *doc =
        json_pack("{s:s,s:[{s:s,s:[{s:s,s:o},{s:s,s:o}],s:o}]}", "schema", "sbio-script/1",
                  "phases", "name", "mixed", "jobs", "name", "readers", "result",
                  cmp_job_result(s, k, true, false), "name", "writer", "result",
                  cmp_job_result(s, k, true, true), "total", cmp_job_result(s, k, true, true));
    return json_pack("{s:i,s:s,s:o}", "repeat", (int)k + 1, "status", "ok", "result", doc);
}

/* The compare's throughput (in unit) of block b in setting s: its own figures (CI,
 * difference, test). */
static json_t *cmp_metric(size_t s, size_t b, const char *unit)
{
    double m = 1000.0 * (double)(b + 1) * (s ? 1.5 : 1);
    if (s == 2)
        return json_pack("{s:s,s:i,s:[],s:[],s:[],s:n,s:n,s:[n,n],s:n,s:n,s:b,s:n,s:n,s:s}", "unit",
                         unit, "n", 0, "values", "repeats", "outliers", "mean", "stddev", "ci95",
                         "diff_pct", "diff_ci95_pct", "ci_unbounded", 0, "p_value", "p_holm",
                         "verdict", "no runs");
    json_t *o = json_pack("{s:s,s:i,s:[f,f,f],s:[i,i,i],s:[i],s:f,s:f,s:[f,f],s:s}", "unit", unit,
                          "n", 3, "values", m - 10, m, m + 1000.25, "repeats", 1, 2, 3, "outliers",
                          3, "mean", m + 330.0833, "stddev", 25.5, "ci95", m + 250.5, m + 400.75,
                          "verdict", s ? "significant" : "baseline");
    if (s)
        json_object_update_new(o, json_pack("{s:f,s:[f,f],s:b,s:f,s:f}", "diff_pct", 50.0,
                                            "diff_ci95_pct", 40.0, 60.0, "ci_unbounded", 0,
                                            "p_value", 0.001, "p_holm", 0.004));
    return o;
}

/* The document, its bars' metric `metric` ("ops" or "mib"), in `unit`. */
static void write_compare_doc(const char *path, const char *metric, const char *unit)
{
    json_t *sets = json_array();
    for (size_t s = 0; s < 3; s++) {
        json_t *runs = json_array(), *jobs = json_array();
        for (size_t k = 0; k < 3; k++)
            json_array_append_new(runs, cmp_run(s, k));
        static const char *const job[3] = {"readers", "writer", "total"};
        for (size_t b = 0; b < 3; b++)
            json_array_append_new(jobs,
                                  json_pack("{s:s,s:b,s:{s:o}}", "name", job[b], "total", b == 2,
                                            "metrics", metric, cmp_metric(s, b, unit)));
        json_array_append_new(sets, json_pack("{s:s,s:o,s:[{s:s,s:i,s:i,s:o}]}", "name",
                                              cmp_names[s], "runs", runs, "phases", "name", "mixed",
                                              "runs_ok", s == 2 ? 0 : 3, "runs", 3, "jobs", jobs));
    }
    json_t *doc = json_pack(
        "{s:s,s:i,s:s,s:b,s:[s,s,s,s,s,s,s,s,s],s:[s,s,s],s:{s:f,s:[i],s:s,s:s},s:o}", "schema",
        "sbio-compare/1", "repeat", 3, "order", "interleaved", "drop_caches", 1, "command_line",
        "sbio", "compare", "--vary", "file-block-size=4K,64K", "--vary", "threads=1,8", "-o",
        "x.json", "--time=5", "metrics", metric, "read.p99", "write.p99", "statistics", "alpha",
        0.05, "comparisons", 7, "test", "welch-log-ratio", "ci", "log-ratio", "settings", sets);
    assert_int_equal(json_dump_file(doc, path, JSON_REAL_PRECISION(17)), 0);
    json_decref(doc);
}

/* The numbers of data row `row` (0-based, comment lines skipped) of block `index` (blocks are
 * two blank lines apart, as gnuplot's index counts them) of a data file, from field `from`
 * (1-based) on, into v (at most n); how many. */
static size_t data_nums(const char *path, int index, int row, int from, double *v, size_t n)
{
    char *text = read_all(path);
    if (!text)
        fail_msg("%s was not written", path);
    int idx = 0, r = 0, empty = 0;
    size_t got = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (!*line) {
            if (++empty == 2) {
                idx++;
                r = 0;
            }
            continue;
        }
        empty = 0;
        if (*line == '#' || idx != index || r++ != row)
            continue;
        char *save = NULL;
        int field = 0;
        for (char *t = strtok_r(line, " ", &save); t && got < n; t = strtok_r(NULL, " ", &save))
            if (++field >= from)
                v[got++] = !strcmp(t, "NaN") ? NAN : strtod(t, NULL);
        break;
    }
    free(text);
    return got;
}

/* Block `index` of a latency file is op's percentiles in setting s, the means over its runs'
 * documents with their 95% CI (NaN without a run) and the number of runs. */
static void check_latency(const char *path, int index, size_t s, int op)
{
    for (size_t q = 0; q < 4; q++) {
        double v[4], x[3], mean, sd;
        assert_int_equal(data_nums(path, index, (int)q, 3, v, 4), 4);
        if (s == 2) {
            assert_true(isnan(v[0]) && isnan(v[1]) && isnan(v[2]));
            assert_true(v[3] == 0);
            continue;
        }
        for (size_t k = 0; k < 3; k++)
            x[k] = cmp_pct(s, k, op, q);
        sbio_infer_mean_sd(x, 3, &mean, &sd);
        double half = sbio_infer_halfwidth(sd, 3, 0.95);
        assert_float_equal(v[0], mean, mean * 1e-9);
        assert_float_equal(v[1], mean - half, fabs(mean) * 1e-9);
        assert_float_equal(v[2], mean + half, fabs(mean) * 1e-9);
        assert_true(v[3] == 3);
    }
}

/* A compare of two jobs: a panel pair per job and the total. The bars' data file holds the
 * compare's figures of each setting as the document has them (values, CI, difference, tests,
 * verdict) and every run's value with its outlier mark; the latency files the means and CIs
 * of the runs' percentiles, of the op types each job did only. */
static void test_compare_result(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_compare_doc(at("cmp.json"), "ops", "ops/s");
    assert_int_equal(PLOT(err, at("cmp.json"), "-o", at("cmp.png"), "--keep-data", at("k5")), 0);
    assert_string_equal(err, "");
    char *rows = data_rows(at("k5/phase1-job1-throughput.dat"));
    assert_string_equal(rows, "0 3 3 3 1330.0833 25.5 1250.5 1400.75 NaN NaN NaN NaN NaN -1 "
                              "\"baseline\" \"file-block-size=4K threads=1\"\n"
                              "1 3 3 3 1830.0833 25.5 1750.5 1900.75 50 40 60 0.001 0.004 1 "
                              "\"significant\" \"file-block-size=64K threads=1\"\n"
                              "2 0 3 0 NaN NaN NaN NaN NaN NaN NaN NaN NaN -1 \"no runs\" "
                              "\"file-block-size=4K threads=8\"\n\n\n"
                              "0 990 1 0\n0 1000 2 0\n0 2000.25 3 1\n"
                              "1 1490 1 0\n1 1500 2 0\n1 2500.25 3 1\n");
    free(rows);
    double v[4];
    assert_int_equal(data_nums(at("k5/phase1-total-throughput.dat"), 0, 1, 5, v, 1), 1);
    assert_float_equal(v[0], 4830.0833, 1e-9);
    const char *rd = at("k5/phase1-job1-latency.dat"), *wr = at("k5/phase1-job2-latency.dat");
    const char *tot = at("k5/phase1-total-latency.dat");
    for (size_t s = 0; s < 3; s++) {
        check_latency(rd, (int)s, s, 0);
        check_latency(wr, (int)s, s, 0);
        check_latency(wr, 3 + (int)s, s, 1);
        check_latency(tot, (int)s, s, 0);
    }
    /* The readers did no writes: no block of those. The total leaves out the writes, which
     * only the writer did (its panel has them), as compare's table does. */
    assert_int_equal(data_nums(rd, 3, 0, 1, v, 1), 0);
    assert_int_equal(data_nums(wr, 6, 0, 1, v, 1), 0);
    assert_int_equal(data_nums(tot, 3, 0, 1, v, 1), 0);
    char *text = read_all(rd);
    assert_lacks(text, ": write, setting");
    free(text);
    text = read_all(tot);
    assert_lacks(text, ": write, setting");
    free(text);

    char *gp = read_all(at("k5/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "set multiplot layout 2,3 title \"sbio compare: 3 settings × 3 repeats, "
                   "interleaved, caches dropped before each run\\n\\n\"");
    assert_has(gp, "set label 99 'sbio compare --vary file-block-size=4K,64K --vary threads=1,8 "
                   "--time=5' ");
    assert_has(gp, "over the 7 comparisons (Welch, log ratio), pale: not");
    assert_has(gp, "set title \"job readers: ops/s\"");
    assert_has(gp, "set title \"job readers: read latency\"");
    assert_has(gp, "set title \"job writer: latency\"");
    assert_has(gp, "set title \"all jobs: read latency\"");
    assert_has(gp, "plot 'phase1-job2-throughput.dat' index 0 using 1:");
    assert_has(gp, "'' index 1 using 1:($4 == 1 ? $2/1 : 1/0) with points");
    assert_has(gp, "'phase1-job2-latency.dat' index 5 using");
    assert_lacks(gp, "'phase1-total-latency.dat' index 3 ");
    assert_lacks(gp, "'phase1-job1-latency.dat' index 3 ");
    assert_has(gp,
               "keyentry with lines lw 2 lc rgb '#7f7f7f' title 'file-block-size=4K threads=1'");
    assert_has(gp, "title 'read'");
    assert_has(gp, "title 'write'");
    /* Wide enough for upright values under the keys, not for the whole names. */
    assert_has(gp, "set xtics nomirror scale 0 norotate (\"4K / 1\" 0, \"64K / 1\" 1, \"4K / 8\" "
                   "2)\n");
    assert_has(gp, "\nset xlabel 'file-block-size / threads'\n");
    assert_has(gp, "set label 'baseline' at first 0, first 2000.25 ");
    assert_has(gp, "set label '+50.0% *' at first 1, first 2500.25 ");
    assert_has(gp, "set label '[+40.0%, +60.0%]' at first 1,");
    assert_has(gp, "set label 'n=3' at first 1,");
    assert_has(gp, "set label \"no successful run\\n(0 of 3)\" at first 2, graph 0.5 center");
    free(gp);
    /* A compare that dropped the set's pages alone says so, whatever drop_caches says. */
    json_t *doc = json_load_file(at("cmp.json"), 0, NULL);
    assert_non_null(doc);
    json_object_set_new(doc, "cache_drop", json_string("invalidate"));
    json_object_set_new(doc, "drop_caches", json_false());
    assert_int_equal(json_dump_file(doc, at("inv.json"), JSON_REAL_PRECISION(17)), 0);
    json_decref(doc);
    assert_int_equal(PLOT(err, at("inv.json"), "-o", at("inv.png"), "--keep-data", at("k5i")), 0);
    gp = read_all(at("k5i/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "title \"sbio compare: 3 settings × 3 repeats, interleaved, the set\\047s pages "
                   "dropped before each run\\n\\n\"");
    free(gp);
}

/* A compare written by an older sbio, whose difference intervals were Fieller's and could reach
 * below -100% ("-90.1% [-103.1%, -76.2%]" on a chart): the chart's intervals are computed
 * again from each cell's mean, sd and runs as compare computes them now, with a note that says
 * so; the file's verdicts stay. */
static void test_compare_old_ci(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_compare_doc(at("old.json"), "ops", "ops/s");
    json_error_t e;
    json_t *doc = json_load_file(at("old.json"), 0, &e);
    assert_non_null(doc);
    json_t *st = json_object_get(doc, "statistics");
    json_object_set_new(st, "ci", json_string("fieller"));
    json_object_set_new(st, "test", json_string("welch"));
    json_t *cell = sbio_json_get(doc, "settings.1.phases.0.jobs.0.metrics.ops");
    json_object_set_new(cell, "diff_ci95_pct", json_pack("[f,f]", -103.1, -76.2));
    assert_int_equal(json_dump_file(doc, at("old.json"), JSON_REAL_PRECISION(17)), 0);
    json_decref(doc);
    assert_int_equal(PLOT(err, at("old.json"), "-o", at("old.png"), "--keep-data", at("ko")), 0);
    assert_has(err, "old.json: its differences' 95% intervals are fieller (an older sbio's): the "
                    "chart's are computed again");
    /* Setting 1 of job 1: 1830.0833 sd 25.5 against 1330.0833 sd 25.5, 3 runs each. */
    double lo, hi, v[5];
    assert_int_equal(sbio_infer_diff_ci(1830.0833, 25.5, 3, 1330.0833, 25.5, 3, 0.95, &lo, &hi), 0);
    assert_true(lo > 30 && hi < 50);
    assert_int_equal(data_nums(at("ko/phase1-job1-throughput.dat"), 0, 1, 9, v, 5), 5);
    assert_float_equal(v[0], 50, 1e-9); /* the file's point difference */
    assert_float_equal(v[1], lo, 1e-6);
    assert_float_equal(v[2], hi, 1e-6);
    assert_float_equal(v[4], 0.004, 1e-12); /* its verdict's Holm p, as the file has it */
    char *gp = read_all(at("ko/plot.gp"));
    assert_non_null(gp);
    assert_lacks(gp, "-103.1%");
    assert_has(gp, "set label '+50.0% *' at first 1,");
    assert_has(gp, "over the 7 comparisons (Welch\\047s t-test)");
    free(gp);
}

/* A narrow chart (13 px a setting): slanted values, the annotations upright on one line, the
 * command line cut with "…". */
static void test_compare_narrow(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_compare_doc(at("cmp.json"), "ops", "ops/s");
    assert_int_equal(PLOT(err, at("cmp.json"), "-o", at("cmp.png"), "--size", "420x400",
                          "--keep-data", at("k6")),
                     0);
    char *gp = read_all(at("k6/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "set xtics nomirror scale 0 rotate by -60 (\"4K / 1\" 0, \"64K / 1\" 1, "
                   "\"4K / 8\" 2)\n");
    assert_has(gp, "set label '+50.0% *, n=3' at first 1,");
    assert_has(gp, "\"no successful run (0 of 3)\" at first 2, graph 0.5 center rotate by 90");
    /* (420 - 40) / 6 = 63 bytes at most, cut on a character boundary. */
    assert_has(gp, "set label 99 'sbio compare --vary file-block-size=4K,64K --vary "
                   "threads=1,8 …' ");
    free(gp);
}

/* A compare of --metrics=mib,…: the bars are MiB/s, in the document's figures. */
static void test_compare_mib(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_compare_doc(at("mib.json"), "mib", "MiB/s");
    assert_int_equal(PLOT(err, at("mib.json"), "-o", at("mib.png"), "--keep-data", at("km")), 0);
    char *rows = data_rows(at("km/phase1-job2-throughput.dat"));
    assert_true(!strncmp(rows, "0 3 3 3 2330.0833 25.5 2250.5 2400.75 NaN ", 41));
    free(rows);
    char *gp = read_all(at("km/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "set title \"job writer: MiB/s\"");
    assert_has(gp, "set ylabel 'MiB/s'\n");
    assert_lacks(gp, "operations/s");
    free(gp);
    char *text = read_all(at("km/phase1-job2-throughput.dat"));
    assert_has(text, "jobs[1].metrics.mib (");
    free(text);
}

/* p (a phase of the compare's or of a run's document) as a phase "solo" of its first job. */
static json_t *solo_phase(json_t *p)
{
    json_t *q = json_deep_copy(p);
    json_object_set_new(q, "name", json_string("solo"));
    json_array_remove(json_object_get(q, "jobs"), 2);
    json_array_remove(json_object_get(q, "jobs"), 1);
    json_object_del(q, "total");
    json_object_set_new(json_array_get(json_object_get(q, "jobs"), 0), "total", json_false());
    return q;
}

/* Two phases, the second of one job: two rows of panels each, the second phase's row with its
 * job's panel only (the other places left empty), its files named after its place. */
static void test_compare_phases(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_compare_doc(at("two.json"), "ops", "ops/s");
    json_t *doc = json_load_file(at("two.json"), 0, NULL), *set, *run;
    size_t s, k;
    assert_non_null(doc);
    json_array_foreach(json_object_get(doc, "settings"), s, set)
    {
        json_t *phases = json_object_get(set, "phases");
        json_array_append_new(phases, solo_phase(json_array_get(phases, 0)));
        json_array_foreach(json_object_get(set, "runs"), k, run)
        {
            json_t *rp = json_object_get(json_object_get(run, "result"), "phases");
            if (rp)
                json_array_append_new(rp, solo_phase(json_array_get(rp, 0)));
        }
    }
    json_array_append_new(json_object_get(json_object_get(doc, "statistics"), "comparisons"),
                          json_integer(2));
    assert_int_equal(json_dump_file(doc, at("two.json"), JSON_REAL_PRECISION(17)), 0);
    json_decref(doc);
    assert_int_equal(PLOT(err, at("two.json"), "-o", at("two.png"), "--keep-data", at("kp")), 0);
    assert_string_equal(err, "");
    char *gp = read_all(at("kp/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "set multiplot layout 4,3 title");
    assert_has(gp, "over each phase\\047s comparisons (7, 2)");
    assert_has(gp, "set title \"phase mixed, job readers: ops/s\"");
    assert_has(gp, "set title \"phase solo, job readers: read latency\"");
    /* After the second phase's bar panel and after its latency panel, two empty places. */
    assert_has(gp, "set multiplot next\nset multiplot next\nunset errorbars\n");
    assert_has(gp, "set multiplot next\nset multiplot next\nunset multiplot\n");
    free(gp);
    check_latency(at("kp/phase2-job1-latency.dat"), 1, 1, 0);
    char *rows = data_rows(at("kp/phase2-job1-throughput.dat"));
    assert_true(!strncmp(rows, "0 3 3 3 1330.0833 25.5 ", 23));
    free(rows);
    assert_null(read_all(at("kp/phase2-total-throughput.dat")));
}

/* --size WIDTHxHEIGHT, each 100..20000: anything else is refused before a file is read. */
static void test_size(void **state)
{
    (void)state;
    char err[MSG_MAX], want[256];
    static char *const bad[] = {"99x800",   "800x20001", "800",     "x600",     "800x",
                                "-800x600", "800x-600",  "800*600", "800x600x2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(PLOT(err, at("none.json"), "-o", at("s.png"), "--size", bad[i]),
                         -SBIO_EUSAGE);
        snprintf(want, sizeof(want),
                 "sbio: --size %s: expected WIDTHxHEIGHT in pixels, each 100..20000 (e.g. "
                 "1200x800)\n",
                 bad[i]);
        assert_string_equal(err, want);
    }
    write_file(at("r1.json"), run_rw);
    assert_int_equal(
        PLOT(err, at("r1.json"), "-o", at("s.png"), "--size", "100X20000", "--keep-data", at("k7")),
        0);
    char *gp = read_all(at("k7/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "set terminal pngcairo size 100,20000 ");
    free(gp);
}

/* gnuplot failing: its last line is the message, the half-drawn chart is removed, -EIO.
 * gnuplot missing: the message names the package to install. */
static void test_gnuplot_errors(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_file(at("r1.json"), run_rw);
    setenv("STUB_EXIT", "3", 1);
    int rc = PLOT(err, at("r1.json"), "-o", at("bad.png"));
    unsetenv("STUB_EXIT");
    assert_int_equal(rc, -EIO);
    assert_string_equal(
        err, "sbio: plot: gnuplot exited with status 3: \"plot.gp\" line 30: undefined variable: "
             "x\n");
    assert_int_equal(access(at("bad.png"), F_OK), -1);

    char *path = strdup(getenv("PATH"));
    assert_non_null(path);
    setenv("PATH", at("empty"), 1);
    rc = PLOT(err, at("r1.json"), "-o", at("none.png"));
    setenv("PATH", path, 1);
    free(path);
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_string_equal(err, "sbio: gnuplot not found: install the Debian package gnuplot-nox\n");
}

/* Bad input: one line naming the file and what is wrong; nothing written, gnuplot not run. */
static void test_bad_input(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_file(at("r1.json"), run_rw);
    write_compare_doc(at("cmp.json"), "ops", "ops/s");
    write_file(at("old.json"),
               "{\"schema\": \"sbio-compare/1\", \"settings\": [{\"name\": \"a=1\", "
               "\"summary\": {\"runs\": 1}}]}\n");
    write_file(at("text.json"), "not json\n");
    write_file(at("fio.json"), "{\"schema\": \"fio-result/3\"}\n");
    write_file(at("noops.json"), "{\"schema\": \"sbio-result/1\", \"result\": {}}\n");
    static const struct {
        char *a, *b;
        const char *msg;
    } cases[] = {
        {"text.json", NULL, "text.json: not JSON (line 1 column "},
        {"fio.json", NULL,
         "fio.json: not an sbio result (\"schema\" is \"fio-result/3\", want \"sbio-result/1\", "
         "\"sbio-compare/1\" or \"sbio-survey/1\")\n"},
        {"noops.json", NULL,
         "noops.json: an sbio result without result.op_types: the file is "
         "truncated or was edited\n"},
        {"r1.json", "cmp.json", "cmp.json is a compare result: chart it on its own"},
        {"old.json", NULL,
         "old.json: an sbio compare result without settings[] (each a name and the same "
         "phases[] of jobs[]): the file is truncated, was edited or was written by an older "
         "sbio\n"},
        {"missing.json", NULL, "missing.json: No such file or directory\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = cases[i].b ? PLOT(err, at(cases[i].a), at(cases[i].b), "-o", at("x.png"),
                                   "--keep-data", at("k8"))
                            : PLOT(err, at(cases[i].a), "-o", at("x.png"), "--keep-data", at("k8"));
        assert_int_equal(rc, -SBIO_EUSAGE);
        assert_true(!strncmp(err, "sbio: plot: ", 12));
        assert_has(err, cases[i].msg);
        assert_int_equal(strchr(err, '\n') - err, (long)strlen(err) - 1);
    }
    assert_int_equal(access(at("k8"), F_OK), -1);
    assert_int_equal(access(at("x.png"), F_OK), -1);
}

/* A survey of two schedulers, two rows: throughput where b is clearly lower, a latency (ns)
 * where they are alike; its cells' figures in the file are wrong on purpose (plot computes
 * them again from the values). */
static void write_survey_doc(const char *path, const char *row1_cells)
{
    char doc[4096];
    snprintf(
        doc, sizeof(doc),
        "{\"schema\": \"sbio-survey/1\", \"device\": \"loop7\", \"budget_s\": 600, "
        "\"took_s\": 512, \"environment\": {\"hostname\": \"box\", \"kernel\": \"6.1\"},\n"
        " \"matrix\": {\"schedulers\": [\"mq-deadline\", \"none\"], \"rows\": [\n"
        "  {\"workload\": \"seq\", \"job\": null, \"metric\": \"read.mib\", \"better\": "
        "\"higher\", \"cells\": [\n"
        "    {\"scheduler\": \"mq-deadline\", \"values\": [100, 102, 98, 101, 99], \"mean\": "
        "1},\n"
        "    {\"scheduler\": \"none\", \"values\": [50, 51, 49, 50, 50], \"mean\": 1e9}]},\n"
        "  {\"workload\": \"mix\", \"job\": \"readers\", \"metric\": \"read.p99\", \"better\": "
        "\"lower\", \"cells\": %s}]}}\n",
        row1_cells);
    write_file(path, doc);
}

static const char survey_row1[] =
    "[{\"scheduler\": \"mq-deadline\", \"values\": [2000000, 2100000, 1900000]},\n"
    " {\"scheduler\": \"none\", \"values\": [2050000, 1950000, 2060000]}]";

/* One data line of rowN.dat: slot, mean, CI low, CI high, kind. */
static void check_survey_line(const char *rows, size_t s, const double *v, size_t n, double div,
                              int kind)
{
    double mean, sd;
    sbio_infer_mean_sd(v, n, &mean, &sd);
    double h = sbio_infer_halfwidth(sd, n, 0.95);
    char want[256];
    snprintf(want, sizeof(want), "%zu %.10g %.10g %.10g %d\n", s, mean / div, (mean - h) / div,
             (mean + h) / div, kind);
    assert_has(rows, want);
}

/* A survey: a panel per row, a bar per scheduler; the data files hold each cell's mean and
 * 95% CI computed from its values (not the file's figures), in the panel's unit; the best
 * green, a significantly different one red, a like one blue. */
static void test_survey_chart(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_survey_doc(at("sv.json"), survey_row1);
    assert_int_equal(PLOT(err, at("sv.json"), "-o", at("sv.png"), "--keep-data", at("ks")), 0);
    char *r0 = data_rows(at("ks/row0.dat")), *r1 = data_rows(at("ks/row1.dat"));
    static const double a[] = {100, 102, 98, 101, 99}, b[] = {50, 51, 49, 50, 50};
    static const double c[] = {2000000, 2100000, 1900000}, d[] = {2050000, 1950000, 2060000};
    check_survey_line(r0, 0, a, 5, 1, 0);
    check_survey_line(r0, 1, b, 5, 1, 1);
    check_survey_line(r1, 0, c, 3, 1e6, 0);
    check_survey_line(r1, 1, d, 3, 1e6, 2);
    assert_has(r0, "\n1 50\n1 51\n1 49\n");
    assert_has(r1, "\n0 2\n0 2.1\n0 1.9\n");
    char *gp = read_all(at("ks/plot.gp"));
    assert_has(gp, "set multiplot layout 1,2 title \"sbio survey of loop7 on box, Linux 6.1: 2 "
                   "rows \303\227 2 schedulers, took 512 s of a 600 s budget\\n\\n\"");
    assert_has(gp, "set title 'seq: read MiB/s'");
    assert_has(gp, "set ylabel 'ms, lower is better'");
    assert_has(gp, "set label \"-50% *\\nn=5\" at first 1,");
    assert_has(gp, "set label \"best\\nn=5\" at first 0,");
    assert_has(gp, "set xtics nomirror scale 0 norotate ('mq-deadline' 0, 'none' 1)");
    free(r0);
    free(r1);
    free(gp);
}

/* A survey's matrix read from a file is checked field by field: one line naming the field,
 * nothing written. */
static void test_survey_bad(void **state)
{
    (void)state;
    char err[MSG_MAX];
    static const struct {
        const char *cells, *msg;
    } cases[] = {
        {"[{\"scheduler\": \"mq-deadline\", \"values\": [1, \"2\"]}, {\"scheduler\": \"none\", "
         "\"values\": []}]",
         "matrix.rows[1].cells[0].values[1] is not a figure sbio measures"},
        {"[{\"scheduler\": \"bfq\", \"values\": [1]}, {\"scheduler\": \"none\", \"values\": []}]",
         "matrix.rows[1].cells[0] is not mq-deadline's cell with its values"},
        {"[{\"scheduler\": \"mq-deadline\", \"values\": [1]}]", "matrix.rows[1].cells is not"},
        {"[{\"scheduler\": \"mq-deadline\", \"values\": [1, -2]}, {\"scheduler\": \"none\", "
         "\"values\": []}]",
         "matrix.rows[1].cells[0].values[1] is not a figure sbio measures (a number from 0 to "
         "1e15)"},
        {"[{\"scheduler\": \"mq-deadline\", \"values\": [1, 1e300]}, {\"scheduler\": \"none\", "
         "\"values\": []}]",
         "values[1] is not a figure sbio measures"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        write_survey_doc(at("bad.json"), cases[i].cells);
        assert_int_equal(PLOT(err, at("bad.json"), "-o", at("x.png"), "--keep-data", at("k9")),
                         -SBIO_EUSAGE);
        assert_has(err, cases[i].msg);
        assert_int_equal(strchr(err, '\n') - err, (long)strlen(err) - 1);
    }
    write_survey_doc(at("sv.json"), survey_row1);
    write_file(at("r1.json"), run_rw);
    assert_int_equal(PLOT(err, at("r1.json"), at("sv.json"), "-o", at("x.png")), -SBIO_EUSAGE);
    assert_has(err, "sv.json is a survey result: chart it on its own");
    assert_int_equal(access(at("k9"), F_OK), -1);
    assert_int_equal(access(at("x.png"), F_OK), -1);
}

/* -o report.html: a report, written by sbio itself (gnuplot is not run: the stand-in would
 * fail), every text of the document escaped. */
static void test_html_report(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_survey_doc(at("sv.json"), survey_row1);
    char *doc = read_all(at("sv.json"));
    char *p = strstr(doc, "\"seq\"");
    assert_non_null(p);
    char evil[8192];
    snprintf(evil, sizeof(evil), "%.*s\"<b>&'x\"%s", (int)(p - doc), doc, p + 5);
    write_file(at("ev.json"), evil);
    free(doc);
    setenv("STUB_EXIT", "3", 1);
    int rc = PLOT(err, at("ev.json"), "-o", at("r.html"));
    unsetenv("STUB_EXIT");
    assert_int_equal(rc, 0);
    char *html = read_all(at("r.html"));
    assert_non_null(html);
    assert_true(!strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 31));
    assert_has(html, "&lt;b&gt;&amp;&#39;x");
    assert_null(strstr(html, "<b>"));
    assert_has(html, "<td class=\"n best\">100 ± ");
    assert_has(html, "</html>\n");
    free(html);
    /* A device name longer than any buffer, of two-byte characters: the settings read back
     * are keyed whole (a name cut there once crashed the report). */
    char longrun[4096], name[700] = "";
    for (int i = 0; i < 300; i++)
        strcat(name, "\xc3\xa9");
    snprintf(longrun, sizeof(longrun),
             "{\"schema\": \"sbio-result/1\", \"environment\": {\"devices\": [{\"name\": "
             "\"%s\", \"queue\": {\"scheduler\": \"[none] mq-deadline\", \"nr_requests\": "
             "\"64\"}}]},\n \"result\": {\"elapsed_s\": 1, \"op_types\": {\"read\": {\"ops\": "
             "10, \"ops_per_s\": 10}}}}\n",
             name);
    write_file(at("long.json"), longrun);
    assert_int_equal(PLOT(err, at("long.json"), "-o", at("long.html")), 0);
    html = read_all(at("long.html"));
    assert_non_null(html);
    assert_has(html, "<td>nr_requests</td><td>64</td>");
    assert_has(html, "</html>\n");
    free(html);
    /* --output-format=html under another name. */
    assert_int_equal(PLOT(err, at("sv.json"), "-o", at("r.out"), "--output-format=html"), 0);
    html = read_all(at("r.out"));
    assert_non_null(html);
    assert_true(!strncmp(html, "<!DOCTYPE html>", 15));
    free(html);
}

static int setup(void **state)
{
    (void)state;
    char bin[128];
    if (tmpdir_make(g_dir, sizeof(g_dir), "/tmp", "plot"))
        return -1;
    snprintf(bin, sizeof(bin), "%s/bin", g_dir);
    if (mkdir(bin, 0700) || mkdir(at("empty"), 0700))
        return -1;
    FILE *f = fopen(at("bin/gnuplot"), "w");
    if (!f || fputs(stub, f) < 0 || fclose(f) || chmod(at("bin/gnuplot"), 0700))
        return -1;
    g_path_saved = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", bin, 1);
    return g_path_saved ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (g_path_saved)
        setenv("PATH", g_path_saved, 1);
    free(g_path_saved);
    return tmpdir_remove(g_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_run),        cmocka_unit_test(test_private_folder_svg_size),
        cmocka_unit_test(test_several_runs),   cmocka_unit_test(test_compare_result),
        cmocka_unit_test(test_compare_old_ci), cmocka_unit_test(test_compare_narrow),
        cmocka_unit_test(test_compare_mib),    cmocka_unit_test(test_compare_phases),
        cmocka_unit_test(test_size),           cmocka_unit_test(test_gnuplot_errors),
        cmocka_unit_test(test_bad_input),      cmocka_unit_test(test_labels_by_settings),
        cmocka_unit_test(test_labels_apart),   cmocka_unit_test(test_fs_ops),
        cmocka_unit_test(test_survey_chart),   cmocka_unit_test(test_survey_bad),
        cmocka_unit_test(test_html_report),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
