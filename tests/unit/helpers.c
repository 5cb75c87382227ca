/* Helpers shared by the unit tests; see helpers.h. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hist.h"

/* The capture open on each of stdout and stderr, for cap_abandoned. */
static struct capture *cap_open[3];

void cap_begin_fd(struct capture *c, int fd)
{
    assert_true(fd == STDOUT_FILENO || fd == STDERR_FILENO);
    fflush(stdout);
    fflush(stderr);
    c->fd = fd;
    c->tmp = tmpfile();
    assert_non_null(c->tmp);
    c->saved = dup(fd);
    assert_true(c->saved >= 0);
    assert_true(dup2(fileno(c->tmp), fd) >= 0);
    cap_open[fd] = c;
}

void cap_begin(struct capture *c)
{
    cap_begin_fd(c, STDERR_FILENO);
}

void cap_end(struct capture *c, char *buf, size_t len)
{
    fflush(stdout);
    fflush(stderr);
    dup2(c->saved, c->fd);
    close(c->saved);
    cap_open[c->fd] = NULL;
    rewind(c->tmp);
    size_t n = fread(buf, 1, len - 1, c->tmp);
    buf[n] = 0;
    fclose(c->tmp);
}

void cap_abandoned(void)
{
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
        if (cap_open[fd]) {
            char buf[MSG_MAX];
            cap_end(cap_open[fd], buf, sizeof(buf));
            fprintf(stderr, "%s", buf);
        }
}

void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

int tmpdir_make(char *path, size_t len, const char *parent, const char *name)
{
    int n = snprintf(path, len, "%s/sbio-test-%s.XXXXXX", parent, name);
    if (n < 0 || (size_t)n >= len) {
        if (len)
            path[0] = 0;
        return -ENAMETOOLONG;
    }
    if (!mkdtemp(path)) {
        int rc = -errno;
        path[0] = 0;
        return rc;
    }
    return 0;
}

static int tmpdir_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int tmpdir_remove(const char *path)
{
    if (!path[0])
        return 0;
    /* FTW_DEPTH: a folder's entries go before the folder; FTW_PHYS: a link is removed, not
     * followed. */
    if (nftw(path, tmpdir_rm_entry, 16, FTW_DEPTH | FTW_PHYS))
        return errno == ENOENT ? 0 : -errno;
    return 0;
}

int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void assert_hist_equal(const struct sbio_hist *a, const struct sbio_hist *b)
{
    assert_memory_equal(a->buckets, b->buckets, sizeof(a->buckets));
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->sum_ns, b->sum_ns);
    assert_int_equal(a->min_ns, b->min_ns);
    assert_int_equal(a->max_ns, b->max_ns);
    assert_true(fabs(a->sumsq - b->sumsq) <= 1e-12 * fabs(b->sumsq));
}

int tdir_setup(void **state, const char *name)
{
    struct tdir *t = calloc(1, sizeof(*t));
    if (!t || tmpdir_make(t->path, sizeof(t->path), "/tmp", name)) {
        free(t);
        return -1;
    }
    snprintf(t->dirarg, sizeof(t->dirarg), "--dir=%s", t->path);
    t->dfd = open(t->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    *state = t;
    return t->dfd < 0 ? -1 : 0;
}

int tdir_teardown(void **state)
{
    struct tdir *t = *state;
    cap_abandoned();
    close(t->dfd);
    int rc = tmpdir_remove(t->path);
    free(t);
    return rc;
}

#define SLOTS 8
static unsigned slot_next;

const struct sbio_settings *TS(const struct sbio_config *cfg)
{
    static struct sbio_settings set[SLOTS];
    struct sbio_settings *s = &set[slot_next++ % SLOTS];
    sbio_options_settings(cfg, s);
    return s;
}

void test_job_from_config(struct sbio_job *job, const struct sbio_config *cfg)
{
    static struct sbio_script decl;
    const struct sbio_settings *set = TS(cfg);
    sbio_options_declare(set, cfg, &decl);
    sbio_job_declare(job, &decl.phases[0], 0, cfg->events, set);
    job->seed = cfg->rand_seed;
    job->block_what = "--file-block-size";
}

const struct sbio_report_of *TOF(const struct sbio_config *cfg)
{
    static struct sbio_job job[SLOTS];
    static struct sbio_report_of of[SLOTS];
    unsigned k = slot_next % SLOTS;
    of[k].set = TS(cfg);
    test_job_from_config(&job[k], cfg);
    of[k].job = &job[k];
    return &of[k];
}

const struct sbio_diff_opts *TDIFF(const struct sbio_config *cfg)
{
    static struct sbio_diff_opts o[SLOTS];
    struct sbio_diff_opts *d = &o[slot_next++ % SLOTS];
    *d = (struct sbio_diff_opts){.nargs = cfg->nargs,
                                 .args = cfg->args,
                                 .diff_split = cfg->diff_split,
                                 .metrics = cfg->metrics,
                                 .output = cfg->output,
                                 .threshold = cfg->threshold,
                                 .threshold_given = sbio_options_given(cfg, "threshold"),
                                 .argc = cfg->argc,
                                 .argv = cfg->argv};
    return d;
}

const struct sbio_plot_opts *TPLOT(const struct sbio_config *cfg)
{
    static struct sbio_plot_opts o[SLOTS];
    struct sbio_plot_opts *d = &o[slot_next++ % SLOTS];
    *d = (struct sbio_plot_opts){.nargs = cfg->nargs,
                                 .args = cfg->args,
                                 .output = cfg->output,
                                 .plot_size = cfg->plot_size,
                                 .keep_data = cfg->keep_data,
                                 .format = sbio_options_plot_format(cfg)};
    return d;
}

uint64_t tu_iodepth_batch(const struct sbio_config *cfg)
{
    return sbio_iodepth_batch_of(cfg->iodepth_batch, cfg->iodepth,
                                 cfg->extra_flags & SBIO_XF_DIRECT);
}
