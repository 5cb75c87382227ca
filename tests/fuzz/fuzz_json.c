/* Fuzz the readers of saved results: sbio diff and sbio plot through their public entry
 * points (their loaders, diff_load and plot_load, are static), and the CSV line
 * (sbio_report_csv, every column read with sbio_json_get).
 *
 * Input: document A, optionally a NUL byte and document B (B is A when there is no NUL:
 * a JSON text cannot hold a raw NUL, so the seeds stay plain result files). A and B are
 * written to a private folder; per input:
 * - sbio diff A B with --threshold=5;
 * - sbio plot A -o chart.png, and sbio plot A B when B differs. plot ends by running
 *   gnuplot: here fork() fails instead (defined below for this program only), so an input
 *   costs some file writes, not a process; everything before, reading, checking and
 *   writing the data files and the gnuplot script, runs as in sbio;
 * - sbio_report_csv of A, when A is JSON.
 *
 * Invariants (the contracts in diff.h, plot.h and diff.c's header):
 * - diff returns 0, 1 or 2; 2 with exactly one error line on stderr and nothing on stdout;
 *   0 with no error line; 1 only with the rows below the threshold named on stderr;
 * - a result diffed with itself returns 0 or 2 and marks no row better or worse;
 * - plot returns -SBIO_EUSAGE with exactly one error line, or the fork failure after
 *   writing its files; and leaves nothing behind in the folder.
 * Nothing crashes, leaks or trips the sanitizers. */
#include <dirent.h>
#include <jansson.h>
#include <sys/types.h>

#include "diff.h"
#include "fuzz.h"
#include "options.h"
#include "plot.h"
#include "report.h"
#include "util.h"

static char path_a[512], path_b[512], path_out[512];

/* plot's last step runs gnuplot. Failing the fork keeps the fuzzer at thousands of inputs a
 * second and tests the error path of plot_gnuplot on the way. */
pid_t fork(void)
{
    errno = EAGAIN;
    return -1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_tmp_dir("fuzz-json");
    snprintf(path_a, sizeof(path_a), "%s/a.json", dir);
    snprintf(path_b, sizeof(path_b), "%s/b.json", dir);
    snprintf(path_out, sizeof(path_out), "%s/chart.png", dir);
    /* plot makes its data folder under $TMPDIR: ours, so a leftover is seen. */
    setenv("TMPDIR", dir, 1);
    return 0;
}

/* The folder holds a.json and b.json only: plot removed its data folder and made no
 * chart. */
static void json_check_no_trace(void)
{
    DIR *d = opendir(fuzz_tmp);
    FUZZ_CHECK(d != NULL, "opendir %s: %s", fuzz_tmp, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)))
        FUZZ_CHECK(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
                       !strcmp(e->d_name, "a.json") || !strcmp(e->d_name, "b.json"),
                   "plot left %s/%s", fuzz_tmp, e->d_name);
    closedir(d);
}

/* A line of the table that ends with a mark. */
static int json_marked_rows(const char *out)
{
    int n = 0;
    for (const char *p = out; (p = strchr(p, '\n')); p++) {
        size_t k = (size_t)(p - out);
        n +=
            (k >= 7 && !strncmp(p - 7, "  worse", 7)) || (k >= 8 && !strncmp(p - 8, "  better", 8));
    }
    return n;
}

static void json_diff(const char *a, const char *b, bool same)
{
    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    cfg.cmd = SBIO_CMD_DIFF;
    cfg.nargs = 2;
    cfg.args[0] = a;
    cfg.args[1] = b;
    FUZZ_CHECK(!sbio_options_set(&cfg, "threshold", "5", SBIO_C(SBIO_CMD_DIFF)), "--threshold");

    struct sbio_diff_opts o = {.nargs = cfg.nargs,
                               .args = cfg.args,
                               .diff_split = cfg.diff_split,
                               .metrics = cfg.metrics,
                               .threshold = cfg.threshold,
                               .threshold_given = sbio_options_given(&cfg, "threshold")};
    struct fuzz_capture out, err;
    fuzz_capture_start(&out, &stdout);
    fuzz_capture_start(&err, &stderr);
    int rc = sbio_diff(&o, stdout);
    fuzz_capture_stop(&err, &stderr);
    fuzz_capture_stop(&out, &stdout);
    int lines = fuzz_error_lines(err.text);
    FUZZ_CHECK(rc == 0 || rc == -SBIO_EFAILED || rc == -SBIO_EUSAGE, "sbio_diff returned %d", rc);
    if (rc == -SBIO_EUSAGE) {
        FUZZ_CHECK(lines == 1, "diff: bad input with %d error lines: %.300s", lines, err.text);
        FUZZ_CHECK(out.len == 0, "diff: bad input but a table: %.300s", out.text);
    } else {
        FUZZ_CHECK(rc ? lines >= 1 : lines == 0, "diff returned %d after %d error lines: %.300s",
                   rc, lines, err.text);
        FUZZ_CHECK(!strncmp(out.text, "sbio diff: ", 11), "diff: no table: %.300s", out.text);
    }
    if (same) {
        FUZZ_CHECK(rc != -SBIO_EFAILED, "a result is below itself: %.300s", err.text);
        FUZZ_CHECK(json_marked_rows(out.text) == 0, "a row of a self-diff is marked: %.2000s",
                   out.text);
    }
    fuzz_capture_free(&out);
    fuzz_capture_free(&err);
}

static void json_plot(int nargs)
{
    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    cfg.cmd = SBIO_CMD_PLOT;
    cfg.nargs = nargs;
    cfg.args[0] = path_a;
    cfg.args[1] = path_b;
    cfg.output = path_out;

    struct sbio_plot_opts o = {.nargs = cfg.nargs, .args = cfg.args, .output = cfg.output};
    struct fuzz_capture err;
    fuzz_capture_start(&err, &stderr);
    int rc = sbio_plot(&o);
    fuzz_capture_stop(&err, &stderr);
    int lines = fuzz_error_lines(err.text);
    /* The fork failure is the one way past the checks here: files written, no gnuplot. */
    FUZZ_CHECK(rc == -SBIO_EUSAGE || rc == -EAGAIN, "sbio_plot returned %d: %.300s", rc, err.text);
    FUZZ_CHECK(lines == 1, "plot returned %d after %d error lines: %.300s", rc, lines, err.text);
    if (rc == -EAGAIN)
        FUZZ_CHECK(strstr(err.text, "fork") != NULL, "plot failed otherwise: %.300s", err.text);
    fuzz_capture_free(&err);
    json_check_no_trace();
}

static void json_csv(const uint8_t *data, size_t len)
{
    json_t *doc = json_loadb((const char *)data, len, 0, NULL);
    if (!doc)
        return;
    FUZZ_CHECK(!sbio_report_csv(fuzz_devnull(), doc, true), "sbio_report_csv");
    json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path_a[0])
        LLVMFuzzerInitialize(NULL, NULL);
    const uint8_t *nul = memchr(data, 0, size);
    size_t len_a = nul ? (size_t)(nul - data) : size;
    fuzz_write_file(path_a, data, len_a);
    if (nul)
        fuzz_write_file(path_b, nul + 1, size - len_a - 1);

    json_diff(path_a, nul ? path_b : path_a, !nul);
    json_plot(1);
    if (nul)
        json_plot(2);
    json_csv(data, len_a);
    if (nul)
        unlink(path_b);
    return 0;
}
