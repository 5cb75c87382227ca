/* Helpers shared by the unit tests (tests/unit/helpers.c): substring assertions, capture of
 * stderr or stdout around a call, a temporary folder per test or group, comparisons. The
 * functions that cannot do their job fail the running test through cmocka, unless said
 * otherwise. */
#ifndef SBIO_TEST_HELPERS_H
#define SBIO_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "fileset.h"
#include "job.h"
#include "options.h"
#include "vocab.h"

/* Room for what one call prints (messages, a short report). */
#define MSG_MAX 8192

/* fail_msg shows both strings, where assert_non_null(strstr()) would only say "0". */
#define assert_has(hay, needle)                                                                    \
    do {                                                                                           \
        if (!strstr((hay), (needle)))                                                              \
            fail_msg("'%s' not found in: %s", (needle), (hay));                                    \
    } while (0)
#define assert_lacks(hay, needle)                                                                  \
    do {                                                                                           \
        if (strstr((hay), (needle)))                                                               \
            fail_msg("'%s' unexpectedly in: %s", (needle), (hay));                                 \
    } while (0)

/* A file descriptor (stderr or stdout) sent to a temporary file from cap_begin to cap_end. */
struct capture {
    FILE *tmp;
    int fd, saved;
};

/* Start capturing stderr (cap_begin) or fd (cap_begin_fd: STDOUT_FILENO or STDERR_FILENO).
 * c must stay valid until its cap_end. */
void cap_begin(struct capture *c);
void cap_begin_fd(struct capture *c, int fd);
/* Stop: the fd is back where it was, buf holds what was written (NUL-terminated, cut to
 * len - 1 bytes). */
void cap_end(struct capture *c, char *buf, size_t len);
/* For a teardown: end the captures a failed test left open and print what they held on
 * stderr, so that the next test writes where it should and the failure's output is seen. */
void cap_abandoned(void);

/* An argv for parse_args: compound literals live until the end of the block, so the
 * pointers the parser keeps (cfg->args, cfg->dir) stay valid within a test. */
#define ARGV(...) ((char *[]){"sbio", __VA_ARGS__, NULL})

/* Defaults, then argv (NULL-terminated, from "sbio") parsed into cfg as on the command
 * line; what the parser printed is in err. Returns the parser's 0 or -errno. Inline, so
 * that only the tests that parse options link the option table. */
static inline int parse_args(struct sbio_config *cfg, char **argv, char *err, size_t errlen)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    sbio_options_defaults(cfg);
    struct capture c;
    cap_begin(&c);
    int rc = sbio_options_parse(cfg, argc, argv);
    cap_end(&c, err, errlen);
    return rc;
}

/* Make a fresh folder PARENT/sbio-test-NAME.XXXXXX (mkdtemp) and put its path in
 * path[len]. Returns 0 or -errno; fails no test, so that group setups may call it. */
int tmpdir_make(char *path, size_t len, const char *parent, const char *name);
/* Remove path and everything below it, following no symbolic link. An empty path (never
 * made) or a missing folder is fine. Returns 0 or -errno. */
int tmpdir_remove(const char *path);

/* A test's own folder for a group of tests on a file set: its path, "--dir=PATH" (a parsed
 * cfg->dir points into it) and the folder opened. */
struct tdir {
    char path[64];
    char dirarg[80];
    int dfd;
};
/* A cmocka setup: a fresh struct tdir in *state, its folder /tmp/sbio-test-NAME.XXXXXX
 * made and opened. 0 or -1. */
int tdir_setup(void **state, const char *name);
/* Its teardown: captures a failed test left open ended (cap_abandoned), the folder removed
 * with everything below it. 0 or -errno. */
int tdir_teardown(void **state);

/* Create or replace the file at path with text; fails the test when it cannot. */
void write_file(const char *path, const char *text);

/* qsort comparison of two uint64_t. */
int cmp_u64(const void *a, const void *b);

/* A file set described by hand: nfiles files test_file.N of size bytes each in the open
 * folder dirfd (dir names it in messages), or with dirfd -1 in no folder (the null engine
 * opens nothing). Blocks of 4 KiB, seed 1, random fill, complete. */
#define TEST_SET_MAX 16
struct test_set {
    struct sbio_fileset fs;
    struct sbio_fileset_file files[TEST_SET_MAX];
};
static inline void test_set_init(struct test_set *s, unsigned nfiles, uint64_t size, int dirfd,
                                 const char *dir)
{
    assert_true(nfiles <= TEST_SET_MAX);
    memset(s, 0, sizeof(*s));
    s->fs.dirfd = dirfd;
    s->fs.dir = dir ? dir : "(memory)";
    s->fs.complete = true;
    s->fs.block_size = 4096;
    s->fs.seed = 1;
    s->fs.nfiles = nfiles;
    s->fs.files = s->files;
    for (unsigned i = 0; i < nfiles; i++) {
        snprintf(s->files[i].name, sizeof(s->files[i].name), "test_file.%u", i);
        s->files[i].size = size;
        s->fs.bytes += size;
    }
    s->fs.total_size = s->fs.bytes;
}

/* The job a plain run of mode on the engine named engine gives with the command line's
 * defaults (blocks of 4 KiB, read/write ratio 1.5, one queue slot, no fsync at all, seed 7),
 * with threads threads and a budget of events events (0: none). Inline, as parse_args: only
 * the tests that run jobs link the engine table. */
static inline struct sbio_job test_job(const char *engine, int mode, unsigned threads,
                                       uint64_t events)
{
    int id = sbio_engine_id(engine);
    assert_true(id >= 0);
    return (struct sbio_job){.threads = threads,
                             .engine = id,
                             .iodepth = 1,
                             .mode = mode,
                             .block_size = 4096,
                             .block_what = "--file-block-size",
                             .fadvise = SBIO_FADV_NONE,
                             .rw_ratio = 1.5,
                             .events = events,
                             .warmup_max_s = 60,
                             .warmup_tol_pct = 5,
                             .seed = 7};
}

struct sbio_hist;
/* Two histograms hold the same values: buckets, count, sum, min and max equal, the sums of
 * squares equal up to rounding (values summed in another order). */
void assert_hist_equal(const struct sbio_hist *a, const struct sbio_hist *b);

/* The command line's configuration as the layers below main see it: the run's settings,
 * the report's description (the command line's one job, with cfg's --events and seed),
 * diff's and plot's options, the job the runner gets. Each points into cfg and into one of
 * a few slots used in turn: good for the call it is written in. */
#include "decl.h"
#include "diff.h"
#include "job.h"
#include "options.h"
#include "plot.h"
#include "report.h"
const struct sbio_settings *TS(const struct sbio_config *cfg);
const struct sbio_report_of *TOF(const struct sbio_config *cfg);
const struct sbio_diff_opts *TDIFF(const struct sbio_config *cfg);
const struct sbio_plot_opts *TPLOT(const struct sbio_config *cfg);
void test_job_from_config(struct sbio_job *job, const struct sbio_config *cfg);
uint64_t tu_iodepth_batch(const struct sbio_config *cfg);

#endif
