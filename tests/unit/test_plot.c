/* Unit tests for sbio plot (src/plot.c) without gnuplot: a stand-in "gnuplot" first on the
 * PATH records where it ran and can fail on demand, so what is checked is what sbio writes
 * for gnuplot, from hand-written JSON results: the data files (the JSON's numbers unscaled,
 * NaN where a figure is absent or untimed), run labels taken from file names, the brief and
 * long run descriptions, the tick labels of a compare chart shortened to values when the
 * names do not fit, its annotations and command line, the terminal and output lines, --size,
 * and the errors: gnuplot missing or failing, bad input. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "options.h"
#include "plot.h"
#include "util.h"

static char g_dir[64];
static char *g_path_saved;

/* The stand-in: it runs where sbio starts gnuplot, records that folder and its arguments,
 * empties the chart sbio named (STUB_OUTPUT), and exits STUB_EXIT with a gnuplot-like
 * message when that is set. */
static const char stub[] = "#!/bin/sh\n"
                           "pwd >\"$STUB_LOG\"\n"
                           "echo \"$@\" >>\"$STUB_LOG\"\n"
                           "[ -n \"$STUB_OUTPUT\" ] && : >\"$STUB_OUTPUT\"\n"
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
    int rc = sbio_plot(&cfg);
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
    setenv("STUB_OUTPUT", at("one.png"), 1);
    assert_int_equal(PLOT(err, at("r1.json"), "-o", at("one.png"), "--keep-data", at("k1/deep")),
                     0);
    unsetenv("STUB_OUTPUT");
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
    snprintf(want, sizeof(want), "\nset output '%s'\n", at("one.png"));
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

    char *log = read_all(at("stub.log"));
    snprintf(want, sizeof(want), "%s\nplot.gp\n", at("k1/deep"));
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
    char *log = read_all(at("stub.log"));
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
    snprintf(want, sizeof(want), "\nset output '%s'\n", at("chart.SVG"));
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
    assert_has(gp, "title 'sbio: it''s (seqrd,");
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

/* A compare result with three settings: the baseline, a significant +50 %, and one without
 * a successful run. */
static const char compare_doc[] =
    "{\"schema\": \"sbio-compare/1\", \"repeat\": 3, \"order\": \"interleaved\",\n"
    " \"drop_caches\": true,\n"
    " \"command_line\": [\"sbio\", \"compare\", \"--vary\", \"file-block-size=4K,64K\",\n"
    "                  \"--vary\", \"threads=1,8\", \"-o\", \"x.json\", \"--time=5\"],\n"
    " \"settings\": [\n"
    "  {\"name\": \"file-block-size=4K threads=1\", \"summary\": {\"runs\": 3, \"runs_ok\": 3,\n"
    "    \"ops_per_s\": {\"mean\": 1000, \"stddev\": 10},\n"
    "    \"read\": {\"p99_ns\": {\"mean\": 5000, \"stddev\": 100}}}},\n"
    "  {\"name\": \"file-block-size=64K threads=1\", \"summary\": {\"runs\": 3, \"runs_ok\": 2,\n"
    "    \"ops_per_s\": {\"mean\": 1500, \"stddev\": 20}, \"diff_pct\": 50, \"p_value\": 0.001,\n"
    "    \"significant\": true, \"read\": {\"p99_ns\": {\"mean\": 7000, \"stddev\": 0}}}},\n"
    "  {\"name\": \"file-block-size=4K threads=8\", \"summary\": {\"runs\": 3, \"runs_ok\": 0,\n"
    "    \"ops_per_s\": {\"mean\": 0, \"stddev\": 0}}}]}\n";

/* One settings.dat row per setting in the JSON's units; the labels over the bars; the
 * command line without its -o. */
static void test_compare_result(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_file(at("cmp.json"), compare_doc);
    assert_int_equal(PLOT(err, at("cmp.json"), "-o", at("cmp.png"), "--keep-data", at("k5")), 0);
    assert_string_equal(err, "");
    char *rows = data_rows(at("k5/settings.dat"));
    assert_string_equal(rows, "0 3 3 1000 10 NaN NaN -1 5000 100 NaN NaN NaN NaN "
                              "\"file-block-size=4K threads=1\"\n"
                              "1 2 3 1500 20 50 0.001 1 7000 0 NaN NaN NaN NaN "
                              "\"file-block-size=64K threads=1\"\n"
                              "2 0 3 NaN NaN NaN NaN -1 NaN NaN NaN NaN NaN NaN "
                              "\"file-block-size=4K threads=8\"\n");
    free(rows);
    char *gp = read_all(at("k5/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "\"sbio compare: 3 settings × 3 repeats, interleaved, caches dropped before "
                   "each run\\n\"");
    assert_has(gp, "set label 99 'sbio compare --vary file-block-size=4K,64K --vary threads=1,8 "
                   "--time=5' ");
    /* Wide enough: the whole names, one key=value a line. */
    assert_has(gp, "set xtics nomirror scale 0 norotate (\"file-block-size=4K\\nthreads=1\" 0, "
                   "\"file-block-size=64K\\nthreads=1\" 1, \"file-block-size=4K\\nthreads=8\" 2)");
    assert_lacks(gp, "set xlabel");
    assert_has(gp, "set label 'baseline' at first 0,");
    assert_has(gp, "set label 'n=3' at first 0,");
    assert_has(gp, "set label '+50.0% *' at first 1,");
    assert_has(gp, "set label 'n=2 of 3' at first 1,");
    assert_has(gp, "set label \"no successful\\nrun (0 of 3)\" at first 2, graph 0.5 center");
    free(gp);
}

/* A narrow chart (40 px a setting): the tick labels are the values alone under an axis label naming
 * the keys, slanted; the annotations turn upright; the command line is cut with "…". */
static void test_compare_narrow(void **state)
{
    (void)state;
    char err[MSG_MAX];
    write_file(at("cmp.json"), compare_doc);
    assert_int_equal(PLOT(err, at("cmp.json"), "-o", at("cmp.png"), "--size", "420x400",
                          "--keep-data", at("k6")),
                     0);
    char *gp = read_all(at("k6/plot.gp"));
    assert_non_null(gp);
    assert_has(gp, "set xtics nomirror scale 0 rotate by -45 (\"4K / 1\" 0, \"64K / 1\" 1, "
                   "\"4K / 8\" 2)\n");
    assert_has(gp, "\nset xlabel 'file-block-size / threads'\n");
    assert_has(gp, "set label '+50.0% *, n=2 of 3' at first 1,");
    assert_has(gp, "\"no successful run (0 of 3)\" at first 2, graph 0.5 center rotate by 90");
    /* (420 - 40) / 6 = 63 bytes at most, cut on a character boundary. */
    assert_has(gp, "set label 99 'sbio compare --vary file-block-size=4K,64K --vary "
                   "threads=1,8 …' ");
    free(gp);
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
    setenv("STUB_OUTPUT", at("bad.png"), 1);
    int rc = PLOT(err, at("r1.json"), "-o", at("bad.png"));
    unsetenv("STUB_EXIT");
    unsetenv("STUB_OUTPUT");
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
    write_file(at("cmp.json"), compare_doc);
    write_file(at("text.json"), "not json\n");
    write_file(at("fio.json"), "{\"schema\": \"fio-result/3\"}\n");
    write_file(at("noops.json"), "{\"schema\": \"sbio-result/1\", \"result\": {}}\n");
    unlink(at("stub.log"));
    static const struct {
        char *a, *b;
        const char *msg;
    } cases[] = {
        {"text.json", NULL, "text.json: not JSON (line 1 column "},
        {"fio.json", NULL,
         "fio.json: not an sbio result (\"schema\" is \"fio-result/3\", want \"sbio-result/1\" "
         "or \"sbio-compare/1\")\n"},
        {"noops.json", NULL,
         "noops.json: an sbio result without result.op_types: the file is "
         "truncated or was edited\n"},
        {"r1.json", "cmp.json", "cmp.json is a compare result: chart it on its own"},
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
    assert_int_equal(access(at("stub.log"), F_OK), -1);
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
    setenv("STUB_LOG", at("stub.log"), 1);
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
        cmocka_unit_test(test_one_run),
        cmocka_unit_test(test_private_folder_svg_size),
        cmocka_unit_test(test_several_runs),
        cmocka_unit_test(test_compare_result),
        cmocka_unit_test(test_compare_narrow),
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_gnuplot_errors),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_labels_by_settings),
        cmocka_unit_test(test_labels_apart),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
