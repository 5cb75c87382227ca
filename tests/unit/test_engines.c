/* Engine conformance (src/engines/): one suite run for every engine the build has, buffered
 * and, where the engine can, with O_DIRECT; io_uring also with --uring-fixed (registered
 * files and buffers). Each test drives the engine as the runner does: init with a config,
 * open_file for every file, post_open with all files and ios, then queue (commit and reap
 * for queued engines). Files live in a folder made with mkdtemp under /var/tmp (ext4 here:
 * O_DIRECT must mean something, tmpfs accepts any alignment).
 *
 * The null engine does no I/O: its requests can only be checked for the res values they come
 * back with (and for leaving the files alone); tails, fsync coverage and error paths have no
 * meaning for it, so it runs the pattern test alone. The batch test is for queued engines:
 * a synchronous engine never has more than one io in flight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "helpers.h"
#include "sysblock.h"
#include "util.h"

#define MAX_IOS         32          /* the deepest iodepth tested */
#define BUF_BYTES       (64 * 1024) /* each io's buffer */
#define FILE_BYTES      (1024 * 1024)
#define MAX_FILES       4
#define PAGE            4096
#define REAP_TIMEOUT_NS 5000000000ULL /* a lost completion fails the test, never hangs it */
#define RES_UNSET       INT64_MIN     /* set before queue(): the engine must overwrite it */

/* One variant of the suite: an engine, buffered or O_DIRECT, io_uring's fixed mode. */
struct eng_case {
    int engine; /* its id in the registry */
    const struct sbio_engine_ops *eng;
    bool direct, fixed;
};

struct fx {
    const struct eng_case *c;
    const struct sbio_engine_ops *eng;
    struct sbio_engine_params params;
    uint64_t opts[SBIO_ENGINE_MAX_OPTS]; /* params.options */
    void *priv;                          /* NULL: the engine is not initialised */
    char dir[64];
    int dirfd;
    unsigned nfiles;
    struct sbio_file files[MAX_FILES];
    bool open[MAX_FILES];
    uint8_t *model[MAX_FILES]; /* what each file must hold */
    uint64_t size[MAX_FILES];
    unsigned nios; /* params.iodepth */
    struct sbio_io ios[MAX_IOS];
    uint8_t *bufs;
};

static bool is_mmap(const struct fx *f)
{
    return !strcmp(f->eng->name, "mmap");
}

/* The index of the engine's own option called name (engine.h), or -1. */
static int eng_option(const struct sbio_engine_ops *eng, const char *name)
{
    for (int i = 0; eng->options && eng->options[i].name; i++)
        if (!strcmp(eng->options[i].name, name))
            return i;
    return -1;
}

static bool is_queued(const struct fx *f)
{
    return !(f->eng->flags & SBIO_ENG_SYNC);
}

static bool ci(void)
{
    const char *v = getenv("CI");
    return v && !strcmp(v, "true");
}

/* The byte at off of file in generation seed: 8 bytes per splitmix64 word. */
static void fill_pat(uint8_t *dst, uint64_t seed, unsigned file, uint64_t off, size_t n)
{
    uint64_t word = UINT64_MAX, x = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t o = off + j;
        if (o >> 3 != word) {
            word = o >> 3;
            x = sbio_mix64(seed << 40 ^ (uint64_t)file << 32 ^ word);
        }
        dst[j] = (uint8_t)(x >> 8 * (o & 7));
    }
}

static void file_name(unsigned i, char *buf, size_t len)
{
    snprintf(buf, len, "f%u", i);
}

/* ---- fixture ---- */

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->c = *state;
    f->eng = f->c->eng;
    f->dirfd = -1;
    assert_int_equal(tmpdir_make(f->dir, sizeof(f->dir), "/var/tmp", "engines"), 0);
    f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(f->dirfd >= 0);
    assert_int_equal(posix_memalign((void **)&f->bufs, 4096, (size_t)MAX_IOS * BUF_BYTES), 0);
    for (unsigned i = 0; i < MAX_FILES; i++)
        f->files[i].fd = -1;
    *state = f;
    return 0;
}

/* Close the files through the engine and free its state (any ios still in flight go with
 * it: cleanup comes before the buffers are freed). */
static void fx_stop(struct fx *f)
{
    for (unsigned i = 0; i < f->nfiles; i++)
        if (f->open[i]) {
            f->eng->close_file(f->priv, &f->files[i]);
            f->open[i] = false;
        }
    if (f->priv)
        f->eng->cleanup(f->priv);
    f->priv = NULL;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;
    fx_stop(f);
    for (unsigned i = 0; i < MAX_FILES; i++)
        free(f->model[i]);
    close(f->dirfd);
    tmpdir_remove(f->dir);
    free(f->bufs);
    free(f);
    return 0;
}

/* Create file i of size bytes: the generation-1 pattern, or a hole when !fill (no page in
 * the cache, nothing dirty). */
static void mk_file(struct fx *f, unsigned i, uint64_t size, bool fill)
{
    char name[16];
    file_name(i, name, sizeof(name));
    free(f->model[i]);
    f->model[i] = calloc(1, size + 1);
    assert_non_null(f->model[i]);
    if (fill)
        fill_pat(f->model[i], 1, i, 0, size);
    int fd = openat(f->dirfd, name, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    if (fill)
        assert_int_equal(sbio_pwrite_all(fd, f->model[i], size, 0), 0);
    close(fd);
    f->size[i] = size;
    if (i >= f->nfiles)
        f->nfiles = i + 1;
}

/* The kernel or a policy refuses the engine: skip, or fail under CI=true. */
static void refused(const struct fx *f, const char *what, int rc)
{
    if (ci())
        fail_msg("%s: %s: %s (CI=true: a skip is a failure)", f->eng->name, what, strerror(-rc));
    print_message("%s: %s: %s: skipped\n", f->eng->name, what, strerror(-rc));
    skip();
}

/* As the runner: init with the parameters (iodepth ios), open every file made with mk_file through
 * the engine (O_RDONLY where bit i of rdonly is set, else O_RDWR; O_DIRECT in direct variants),
 * close those in bit i of closed again (their fd is then invalid), then post_open with all
 * files and ios, each io's len the size of its buffer. */
static void fx_start(struct fx *f, unsigned iodepth, bool datasync, unsigned rdonly,
                     unsigned closed)
{
    assert_true(iodepth <= MAX_IOS);
    if (f->c->fixed)
        f->opts[eng_option(f->eng, "uring-fixed")] = 1;
    f->params =
        (struct sbio_engine_params){.iodepth = iodepth, .datasync = datasync, .options = f->opts};
    f->nios = iodepth;
    if (f->c->direct) {
        int fd = openat(f->dirfd, "f0", O_RDONLY | O_DIRECT | O_CLOEXEC);
        if (fd < 0)
            refused(f, "O_DIRECT in /var/tmp", -errno);
        close(fd);
    }
    int rc = f->eng->init(&f->priv, &f->params);
    if (rc == -ENOSYS || rc == -EPERM) {
        f->priv = NULL;
        refused(f, "init", rc);
    }
    assert_int_equal(rc, 0);
    for (unsigned i = 0; i < f->nfiles; i++) {
        char name[16];
        file_name(i, name, sizeof(name));
        f->files[i] = (struct sbio_file){.fd = -1, .size = f->size[i]};
        int oflags = (rdonly >> i & 1 ? O_RDONLY : O_RDWR) | (f->c->direct ? O_DIRECT : 0);
        assert_int_equal(f->eng->open_file(f->priv, &f->files[i], f->dirfd, name, oflags), 0);
        f->open[i] = true;
        if (closed >> i & 1) {
            assert_int_equal(f->eng->close_file(f->priv, &f->files[i]), 0);
            f->open[i] = false;
        }
    }
    for (unsigned k = 0; k < MAX_IOS; k++)
        f->ios[k] =
            (struct sbio_io){.slot = k, .len = BUF_BYTES, .buf = f->bufs + (size_t)k * BUF_BYTES};
    if (f->eng->post_open)
        assert_int_equal(f->eng->post_open(f->priv, f->files, f->nfiles, f->ios, f->nios), 0);
}

/* ---- ios ---- */

static struct sbio_io *set_io(struct fx *f, unsigned k, enum sbio_op op, unsigned file,
                              uint64_t off, uint32_t len, unsigned flags)
{
    assert_true(k < f->nios && len <= BUF_BYTES);
    struct sbio_io *io = &f->ios[k];
    io->op = op;
    io->flags = flags;
    io->file = file;
    io->offset = off;
    io->len = len;
    io->res = RES_UNSET;
    return io;
}

/* A write of generation seed's pattern. */
static void wr(struct fx *f, unsigned k, unsigned file, uint64_t off, uint32_t len, uint64_t seed,
               unsigned flags)
{
    struct sbio_io *io = set_io(f, k, SBIO_WRITE, file, off, len, flags);
    fill_pat(io->buf, seed, file, off, len);
}

/* A read into a buffer holding the complement of what the file must hold: every byte the
 * engine does not transfer shows. */
static void rd(struct fx *f, unsigned k, unsigned file, uint64_t off, uint32_t len)
{
    struct sbio_io *io = set_io(f, k, SBIO_READ, file, off, len, 0);
    uint8_t *b = io->buf;
    for (uint32_t j = 0; j < len; j++)
        b[j] = off + j < f->size[file] ? (uint8_t)~f->model[file][off + j] : 0x5a;
}

static void fs(struct fx *f, unsigned k, unsigned file)
{
    set_io(f, k, SBIO_FSYNC, file, 0, 0, 0);
}

/* Queue ios[from, to): a synchronous engine completes each at once; a queued engine may too,
 * or accepts it (never busy: at most iodepth are queued and not reaped). Returns how many
 * were accepted. */
static unsigned queue_ios(struct fx *f, unsigned from, unsigned to, bool *accepted)
{
    unsigned n = 0;
    for (unsigned k = from; k < to; k++) {
        int q = f->eng->queue(f->priv, f->files, &f->ios[k]);
        if (!is_queued(f) || q == SBIO_Q_DONE) {
            assert_int_equal(q, SBIO_Q_DONE);
            if (f->ios[k].res == RES_UNSET)
                fail_msg("io %u completed at queue() without res", k);
            continue;
        }
        assert_int_equal(q, SBIO_Q_QUEUED);
        accepted[k] = true;
        n++;
    }
    return n;
}

/* Reap n accepted ios, at most max per call: each must be one of those accepted, come back
 * exactly once with res set, and nothing may come back after them. */
static void reap_ios(struct fx *f, unsigned n, bool *accepted, unsigned max)
{
    struct sbio_io *done[MAX_IOS];
    unsigned got = 0;
    while (got < n) {
        int r = f->eng->reap(f->priv, 1, done, max, REAP_TIMEOUT_NS);
        if (r <= 0)
            fail_msg("reap returned %d with %u of %u ios outstanding", r, n - got, n);
        assert_true((unsigned)r <= max);
        for (int i = 0; i < r; i++) {
            ptrdiff_t k = done[i] - f->ios;
            if (k < 0 || k >= (ptrdiff_t)f->nios || !accepted[k])
                fail_msg("reap returned an io that was not in flight (index %td)", k);
            accepted[k] = false;
            if (done[i]->res == RES_UNSET)
                fail_msg("io %td reaped without res", k);
        }
        got += (unsigned)r;
    }
    /* A poll (no minimum, no wait) finds nothing left. */
    assert_int_equal(f->eng->reap(f->priv, 0, done, MAX_IOS, 0), 0);
}

/* Run ios[0, n) to completion as one batch: all queued, one commit, reaped max at a time. */
static void run_batch(struct fx *f, unsigned n, unsigned max)
{
    bool accepted[MAX_IOS] = {false};
    unsigned q = queue_ios(f, 0, n, accepted);
    if (!q)
        return;
    assert_int_equal(f->eng->commit(f->priv), 0);
    reap_ios(f, q, accepted, max);
}

static void run(struct fx *f, unsigned n)
{
    run_batch(f, n, MAX_IOS);
}

static void expect_res(const struct fx *f, unsigned k, int64_t want)
{
    const struct sbio_io *io = &f->ios[k];
    if (io->res != want)
        fail_msg("%s: io %u (op %d, file %u, offset %" PRIu64 ", len %u): res %" PRId64
                 ", expected %" PRId64 " (%s)",
                 f->eng->name, k, io->op, io->file, io->offset, io->len, io->res, want,
                 want < 0 ? strerror((int)-want) : "bytes");
}

/* A read came back with want bytes, each what the file holds. */
static void expect_read(const struct fx *f, unsigned k, int64_t want)
{
    expect_res(f, k, want);
    const struct sbio_io *io = &f->ios[k];
    const uint8_t *b = io->buf, *m = f->model[io->file] + io->offset;
    for (int64_t j = 0; j < want; j++)
        if (b[j] != m[j])
            fail_msg("%s: file %u byte %" PRIu64 ": read 0x%02x, expected 0x%02x", f->eng->name,
                     io->file, io->offset + (uint64_t)j, b[j], m[j]);
}

/* A write came back whole: the file now holds its bytes. */
static void expect_written(struct fx *f, unsigned k)
{
    const struct sbio_io *io = &f->ios[k];
    expect_res(f, k, io->len);
    assert_true(io->offset + io->len <= f->size[io->file]);
    memcpy(f->model[io->file] + io->offset, io->buf, io->len);
}

/* Read file i outside the engine (a buffered descriptor of its own): size and every byte. */
static void check_file(const struct fx *f, unsigned i)
{
    char name[16];
    file_name(i, name, sizeof(name));
    int fd = openat(f->dirfd, name, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_size, f->size[i]);
    uint8_t *b = malloc(f->size[i] + 1);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, f->size[i], 0), (ssize_t)f->size[i]);
    close(fd);
    for (uint64_t j = 0; j < f->size[i]; j++)
        if (b[j] != f->model[i][j]) {
            uint8_t got = b[j];
            free(b);
            fail_msg("%s: file %u byte %" PRIu64 " on disk: 0x%02x, expected 0x%02x", f->eng->name,
                     i, j, got, f->model[i][j]);
        }
    free(b);
}

/* Dirty pages of file i (cachestat), writeback included. */
static uint64_t dirty_pages(const struct fx *f, unsigned i)
{
    char name[16];
    file_name(i, name, sizeof(name));
    int fd = openat(f->dirfd, name, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    struct sbio_cachestat cs = {0};
    int rc = sbio_cachestat_add(fd, &cs);
    close(fd);
    if (rc)
        refused(f, "cachestat", rc);
    return cs.dirty + cs.writeback;
}

/* Dirty file i's page pg through a buffered descriptor of its own. */
static void dirty_outside(struct fx *f, unsigned i, uint64_t pg)
{
    char name[16];
    file_name(i, name, sizeof(name));
    int fd = openat(f->dirfd, name, O_WRONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    fill_pat(f->model[i] + pg * PAGE, 9, i, pg * PAGE, PAGE);
    assert_int_equal(sbio_pwrite_all(fd, f->model[i] + pg * PAGE, PAGE, pg * PAGE), 0);
    close(fd);
}

/* ---- the suite ---- */

/* Writes of generation 2 at known offsets in three files, then reads of the same ranges and
 * of ranges across them, every byte checked; then the files on disk, every byte. Buffered:
 * any offset and length, 6k and 1-byte requests included; direct: 4 KiB multiples. Queued
 * engines get each phase as one batch. */
static void test_pattern(void **state)
{
    struct fx *f = *state;
    static const struct {
        unsigned file;
        uint64_t off;
        uint32_t len;
    } buffered[] = {{0, 0, 4096},          {0, 8192, 6144},           {0, 20000, 1},
                    {0, 30001, 18432},     {0, 65536 + 77, 65536},    {1, 0, 512},
                    {1, 40960 + 123, 100}, {1, 300000, 60000},        {2, FILE_BYTES - 700, 700},
                    {2, 500000, 4096},     {2, FILE_BYTES / 2, 8191}, {2, 4095, 2}},
      direct[] = {{0, 0, 4096},
                  {0, 8192, 8192},
                  {0, 65536, 65536},
                  {1, 4096 * 37, 4096},
                  {1, 524288, 32768},
                  {1, 4096 * 3, 12288},
                  {2, FILE_BYTES - 4096, 4096},
                  {2, 4096 * 100, 12288},
                  {2, 4096, 4096}};
    const bool d = f->c->direct;
    const unsigned nw =
        d ? sizeof(direct) / sizeof(direct[0]) : sizeof(buffered) / sizeof(buffered[0]);
    for (unsigned i = 0; i < 3; i++)
        mk_file(f, i, FILE_BYTES, true);
    fx_start(f, MAX_IOS, false, 0, 0);

    for (unsigned k = 0; k < nw; k++) {
        unsigned file = d ? direct[k].file : buffered[k].file;
        wr(f, k, file, d ? direct[k].off : buffered[k].off, d ? direct[k].len : buffered[k].len, 2,
           0);
    }
    run(f, nw);
    if (f->eng->flags & SBIO_ENG_NO_IO) {
        for (unsigned k = 0; k < nw; k++)
            expect_res(f, k, f->ios[k].len);
    } else {
        for (unsigned k = 0; k < nw; k++)
            expect_written(f, k);
    }

    /* The same ranges, then whole 64 KiB windows across written and unwritten bytes. */
    unsigned n = 0;
    for (unsigned k = 0; k < nw; k++, n++)
        rd(f, n, f->ios[k].file, f->ios[k].offset, f->ios[k].len);
    for (unsigned i = 0; i < 3; i++)
        for (uint64_t off = 0; off < 3 * 65536; off += 65536)
            rd(f, n++, i, off, 65536);
    rd(f, n++, 2, FILE_BYTES - 65536, 65536);
    run(f, n);
    for (unsigned k = 0; k < n; k++)
        if (f->eng->flags & SBIO_ENG_NO_IO)
            expect_res(f, k, f->ios[k].len);
        else
            expect_read(f, k, f->ios[k].len);

    fs(f, 0, 0);
    run(f, 1);
    expect_res(f, 0, 0);
    fx_stop(f);
    /* The null engine wrote nothing: its model was never updated. */
    for (unsigned i = 0; i < 3; i++)
        check_file(f, i);
}

/* Queued engines at depth 16 and 32: a full batch of writes in flight at once, reaped five
 * at a time; then reads of everything in two commits reaped together; each io returned
 * exactly once with its own res. */
static void test_batch(void **state)
{
    struct fx *f = *state;
    static const unsigned depths[] = {16, 32};
    for (unsigned t = 0; t < 2; t++) {
        unsigned depth = depths[t];
        uint32_t len = f->c->direct ? 8192 : 8192 - 13 * t; /* 8179: odd tails, buffered */
        mk_file(f, 0, FILE_BYTES, true);
        fx_start(f, depth, false, 0, 0);
        for (unsigned k = 0; k < depth; k++)
            wr(f, k, 0, (uint64_t)k * 32768, len, 3 + t, 0);
        run_batch(f, depth, 5);
        for (unsigned k = 0; k < depth; k++)
            expect_written(f, k);

        bool accepted[MAX_IOS] = {false};
        for (unsigned k = 0; k < depth; k++)
            rd(f, k, 0, (uint64_t)k * 32768, 32768);
        unsigned q = queue_ios(f, 0, depth / 2, accepted);
        assert_int_equal(f->eng->commit(f->priv), 0);
        q += queue_ios(f, depth / 2, depth, accepted);
        assert_int_equal(f->eng->commit(f->priv), 0);
        reap_ios(f, q, accepted, depth);
        for (unsigned k = 0; k < depth; k++)
            expect_read(f, k, 32768);

        /* Nothing in flight: a reap with a timeout returns none. */
        struct sbio_io *done[MAX_IOS];
        assert_int_equal(f->eng->reap(f->priv, 1, done, depth, 1000000), 0);
        fx_stop(f);
        check_file(f, 0);
    }
}

/* The last block: file 0 is 3 blocks and 1000 bytes, file 1 a short file of 1000 bytes,
 * file 2 empty. A read across the end returns the short count, a read at or past the end 0.
 * mmap maps f->size bytes: a request beyond the mapping is -EINVAL, never SIGBUS, and a
 * write there changes nothing; the tail inside the mapping reads and writes normally. */
static void test_tail(void **state)
{
    struct fx *f = *state;
    const uint64_t tail = 3 * PAGE, size = tail + 1000;
    const bool d = f->c->direct, m = is_mmap(f);
    mk_file(f, 0, size, true);
    mk_file(f, 1, 1000, true);
    mk_file(f, 2, 0, true);
    fx_start(f, MAX_IOS, false, 0, 0);

    unsigned n = 0;
    rd(f, n++, 0, tail, PAGE);            /* across the end */
    rd(f, n++, 0, tail + PAGE, PAGE);     /* past it */
    rd(f, n++, 1, 0, PAGE);               /* a short file */
    rd(f, n++, 2, 0, PAGE);               /* an empty one */
    rd(f, n++, 0, tail - PAGE, 2 * PAGE); /* the last whole block and the tail */
    if (!d) {
        rd(f, n++, 0, tail, 1000); /* exactly the tail */
        rd(f, n++, 0, size, 100);  /* at the end */
        rd(f, n++, 1, 999, 1);     /* the last byte of a short file */
    }
    run(f, n);
    expect_read(f, 0, m ? -EINVAL : 1000);
    expect_read(f, 1, m ? -EINVAL : 0);
    expect_read(f, 2, m ? -EINVAL : 1000);
    expect_read(f, 3, m ? -EINVAL : 0);
    expect_read(f, 4, m ? -EINVAL : PAGE + 1000);
    if (!d) {
        expect_read(f, 5, 1000);
        expect_read(f, 6, m ? -EINVAL : 0);
        expect_read(f, 7, 1);
    }

    /* Writes in the last block: inside the file (buffered only: 1000 bytes are not aligned),
     * and for mmap across the end of the mapping as well. */
    n = 0;
    if (!d)
        wr(f, n++, 0, tail, 1000, 4, 0);
    if (m)
        wr(f, n++, 1, 500, 1000, 4, 0);
    run(f, n);
    if (!d)
        expect_written(f, 0);
    if (m)
        expect_res(f, 1, -EINVAL);
    if (!d) {
        rd(f, 0, 0, tail, 1000);
        run(f, 1);
        expect_read(f, 0, 1000);
    }
    fx_stop(f);
    for (unsigned i = 0; i < 3; i++)
        check_file(f, i);
}

/* After the engine's fsync completes, cachestat finds no dirty (or writeback) page in the
 * file; before it, it found some, so the test can fail. Buffered: the engine's own writes
 * dirty the pages; direct: its writes leave none, so a buffered descriptor of the test's
 * dirties them (an fsync covers the file, whoever wrote). Both fsync modes. */
static void test_fsync(void **state)
{
    struct fx *f = *state;
    for (unsigned t = 0; t < 2; t++) {
        mk_file(f, 0, FILE_BYTES, false);
        fx_start(f, MAX_IOS, t, 0, 0);
        for (unsigned k = 0; k < 8; k++)
            wr(f, k, 0, (uint64_t)k * 8 * PAGE, PAGE, 5, 0);
        run(f, 8);
        for (unsigned k = 0; k < 8; k++)
            expect_written(f, k);
        if (f->c->direct)
            for (uint64_t pg = 3; pg < 64; pg += 8)
                dirty_outside(f, 0, pg);
        if (!dirty_pages(f, 0))
            fail_msg("%s: no dirty page before the fsync: the test cannot tell", f->eng->name);
        fs(f, 0, 0);
        run(f, 1);
        expect_res(f, 0, 0);
        assert_int_equal(dirty_pages(f, 0), 0);
        fx_stop(f);
        check_file(f, 0);
    }
}

/* --file-fsync-all: a write flagged SBIO_IO_FSYNC_AFTER leaves no dirty page once it is
 * returned (synchronous engines; for queued ones the runner syncs each write as it reaps it,
 * checked by tests/integration/engines.sh). First a control: the same engine's unflagged write
 * (buffered), or a buffered descriptor's (direct), leaves dirty pages; the engine's fsync cleans
 * them; then a batch of flagged writes, and for direct variants dirt from outside that the flagged
 * write's fsync must cover. */
static void test_fsync_after(void **state)
{
    struct fx *f = *state;
    for (unsigned t = 0; t < 2; t++) {
        mk_file(f, 0, FILE_BYTES, false);
        fx_start(f, MAX_IOS, t, 0, 0);
        if (f->c->direct) {
            dirty_outside(f, 0, 100);
        } else {
            wr(f, 0, 0, 100 * PAGE, PAGE, 6, 0);
            run(f, 1);
            expect_written(f, 0);
        }
        if (!dirty_pages(f, 0))
            fail_msg("%s: an unflagged write left no dirty page: the test cannot tell",
                     f->eng->name);
        fs(f, 0, 0);
        run(f, 1);
        expect_res(f, 0, 0);
        assert_int_equal(dirty_pages(f, 0), 0);

        if (f->c->direct)
            dirty_outside(f, 0, 200);
        for (unsigned k = 0; k < 4; k++)
            wr(f, k, 0, (uint64_t)k * 16 * PAGE, 2 * PAGE, 7, SBIO_IO_FSYNC_AFTER);
        run(f, 4);
        for (unsigned k = 0; k < 4; k++)
            expect_written(f, k);
        assert_int_equal(dirty_pages(f, 0), 0);
        fx_stop(f);
        check_file(f, 0);
    }
}

/* Failed requests come back as -errno on the io, in a batch with good ones that still
 * complete: file 1 is open read-only (a write is EBADF), file 2 was closed through the
 * engine before post_open (its fd is -1: EBADF for a read, a write and an fsync), an offset
 * whose end wraps past 2^64 is EINVAL (mmap must not compute an address from it), and with
 * O_DIRECT a misaligned offset or length is EINVAL. Nothing is written. */
static void test_errors(void **state)
{
    struct fx *f = *state;
    const uint64_t wrap = UINT64_MAX - PAGE + 1; /* -4096 as an off_t, aligned */
    for (unsigned i = 0; i < 3; i++)
        mk_file(f, i, FILE_BYTES, true);
    fx_start(f, MAX_IOS, false, 1u << 1, 1u << 2);

    unsigned n = 0;
    rd(f, n++, 0, 0, PAGE);
    rd(f, n++, 2, 0, PAGE);
    wr(f, n++, 1, 0, PAGE, 8, 0);
    fs(f, n++, 2);
    set_io(f, n++, SBIO_READ, 0, wrap, 2 * PAGE, 0);
    wr(f, n++, 0, wrap, 2 * PAGE, 8, 0);
    rd(f, n++, 0, PAGE, PAGE);
    wr(f, n++, 2, 0, PAGE, 8, 0);
    if (f->c->direct) {
        rd(f, n++, 0, 100, PAGE);
        rd(f, n++, 0, 0, 1000);
        wr(f, n++, 0, 100, PAGE, 8, 0);
        wr(f, n++, 0, 8 * PAGE, 1000, 8, 0);
        rd(f, n++, 0, 2 * PAGE, PAGE);
    }
    run(f, n);
    expect_read(f, 0, PAGE);
    expect_res(f, 1, -EBADF);
    expect_res(f, 2, -EBADF);
    expect_res(f, 3, -EBADF);
    expect_res(f, 4, -EINVAL);
    expect_res(f, 5, -EINVAL);
    expect_read(f, 6, PAGE);
    expect_res(f, 7, -EBADF);
    if (f->c->direct) {
        for (unsigned k = 8; k < 12; k++)
            expect_res(f, k, -EINVAL);
        expect_read(f, 12, PAGE);
    }

    /* The engine goes on: a good batch after the failures. */
    rd(f, 0, 0, 3 * PAGE, PAGE);
    wr(f, 1, 0, 4 * PAGE, PAGE, 10, 0);
    run(f, 2);
    expect_read(f, 0, PAGE);
    expect_written(f, 1);
    fx_stop(f);
    for (unsigned i = 0; i < 3; i++)
        check_file(f, i);
}

/* ---- the registry ---- */

/* Ids, names and kinds agree every way round, in the table's order; the lists keep that
 * order; unknown names and ids are refused; every engine of the table is in this build. */
static void test_registry(void **state)
{
    (void)state;
    static const char *const names[] = {"sync", "libaio", "io_uring", "mmap", "null"};
    static const char *const kinds[] = {"synchronous", "asynchronous", "asynchronous",
                                        "fast mmaped", "null (no I/O)"};
    assert_int_equal(sbio_engine_count(), 5);
    for (int e = 0; e < 5; e++) {
        assert_non_null(sbio_engine_find(e));
        assert_string_equal(sbio_engine_find(e)->name, names[e]);
        assert_string_equal(sbio_engine_name(e), names[e]);
        assert_string_equal(sbio_engine_kind(e), kinds[e]);
        assert_int_equal(sbio_engine_id(names[e]), e);
    }
    assert_int_equal(sbio_engine_id("posixaio"), -ENOENT);
    assert_int_equal(sbio_engine_id(""), -ENOENT);
    assert_null(sbio_engine_find(-1));
    assert_null(sbio_engine_find(6));
    assert_string_equal(sbio_engine_name(6), "?");
    assert_string_equal(sbio_engine_kind(-1), "?");
    assert_string_equal(sbio_engine_list(), "sync, libaio, io_uring, mmap, null");
    char buf[64];
    assert_string_equal(sbio_engine_names(buf, sizeof(buf), ",", 0),
                        "sync,libaio,io_uring,mmap,null");
    assert_string_equal(
        sbio_engine_names(buf, sizeof(buf), ", ", SBIO_ENG_NO_DIRECT | SBIO_ENG_NO_IO),
        "sync, libaio, io_uring");
    assert_string_equal(sbio_engine_names(buf, sizeof(buf), " ", SBIO_ENG_SYNC), "libaio io_uring");
    /* A short buffer: cut, still terminated. */
    assert_string_equal(sbio_engine_names(buf, 8, ",", 0), "sync,li");
}

/* The tree engine is in the table, after the engines a user may choose, and no name
 * reaches it: the runner takes it by its flags. */
static void test_registry_internal(void **state)
{
    (void)state;
    int tree = sbio_engine_with(SBIO_ENG_FSOPS);
    assert_int_equal(tree, 5);
    assert_string_equal(sbio_engine_find(tree)->name, "fstree");
    assert_true(sbio_engine_has(tree, SBIO_ENG_INTERNAL | SBIO_ENG_SYNC));
    assert_int_equal(sbio_engine_id("fstree"), -ENOENT);
    assert_int_equal(sbio_engine_with(SBIO_ENG_INTERNAL), tree);
    char buf[64];
    assert_string_equal(sbio_engine_names(buf, sizeof(buf), ",", SBIO_ENG_SHARED_FD), "null");
    assert_int_equal(sbio_engine_with(SBIO_ENG_FSOPS | SBIO_ENG_NO_IO), -ENOENT);
    assert_false(sbio_engine_has(-1, 0));
}

/* What callers ask of an engine, by flag, not by its name: each flag names the engines that
 * have it. */
static void test_registry_flags(void **state)
{
    (void)state;
    static const struct {
        unsigned flag;
        const char *engines;
    } want[] = {
        {SBIO_ENG_MAPS, "mmap"},
        {SBIO_ENG_SHARED_FD, "sync,libaio,io_uring,mmap"},
        {SBIO_ENG_BUFFERED_INLINE, "libaio"},
        {SBIO_ENG_AIO_MAX_NR, "libaio"},
        {SBIO_ENG_PSYNC, "sync"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        char got[64] = "";
        for (int e = 0; e < sbio_engine_count(); e++)
            if (sbio_engine_has(e, want[i].flag))
                snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", got[0] ? "," : "",
                         sbio_engine_name(e));
        assert_string_equal(got, want[i].engines);
    }
}

/* The engines' own options take the slots in engine order, each engine's in its table's
 * order: io_uring's two are slots 0 and 1, its options from base 0. */
static void test_registry_options(void **state)
{
    (void)state;
    int id = -1;
    const struct sbio_engine_option *o = sbio_engine_option(0, &id);
    assert_non_null(o);
    assert_string_equal(o->name, "uring-fixed");
    assert_int_equal(id, sbio_engine_id("io_uring"));
    assert_int_equal(o->type, SBIO_EOPT_BOOL);
    o = sbio_engine_option(1, &id);
    assert_non_null(o);
    assert_string_equal(o->name, "uring-sqpoll");
    assert_null(sbio_engine_option(2, &id));
    assert_int_equal(sbio_engine_option_base(sbio_engine_id("io_uring")), 0);
    assert_int_equal(sbio_engine_option_base(sbio_engine_id("mmap")), 2);
    assert_int_equal(eng_option(sbio_engine_find(sbio_engine_id("io_uring")), "uring-sqpoll"), 1);
    assert_int_equal(eng_option(sbio_engine_find(sbio_engine_id("sync")), "uring-fixed"), -1);
}

/* ---- registration ---- */

enum { T_QUEUED = 1, T_IO = 2, T_SYNC = 4 };

static const struct {
    const char *name;
    CMUnitTestFunction fn;
    unsigned needs; /* T_QUEUED / T_SYNC: queued / synchronous engines only; T_IO: engines
                     * that do I/O */
} suite[] = {
    {"pattern", test_pattern, 0},
    {"batch", test_batch, T_QUEUED | T_IO},
    {"tail", test_tail, T_IO},
    {"fsync", test_fsync, T_IO},
    {"fsync_after", test_fsync_after, T_SYNC | T_IO},
    {"errors", test_errors, T_IO},
};

#define NSUITE    (sizeof(suite) / sizeof(suite[0]))
#define MAX_CASES 16
#define NSTATIC   4 /* tests that are not per engine: test_registry* */

int main(void)
{
    static struct eng_case cases[MAX_CASES];
    static char names[MAX_CASES * NSUITE][64];
    static struct CMUnitTest tests[NSTATIC + MAX_CASES * NSUITE];
    unsigned nc = 0, nt = 0;
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_registry);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_registry_internal);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_registry_flags);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_registry_options);

    for (int e = 0; e < sbio_engine_count(); e++) {
        const struct sbio_engine_ops *eng = sbio_engine_find(e);
        if (!eng)
            continue;
        bool direct = !(eng->flags & (SBIO_ENG_NO_DIRECT | SBIO_ENG_NO_IO));
        for (int fixed = 0; fixed <= (eng_option(eng, "uring-fixed") >= 0); fixed++)
            for (int d = 0; d <= direct; d++)
                cases[nc++] = (struct eng_case){e, eng, d, fixed};
    }
    for (unsigned c = 0; c < nc; c++) {
        const struct eng_case *ec = &cases[c];
        unsigned have = (ec->eng->flags & SBIO_ENG_SYNC ? T_SYNC : T_QUEUED) |
                        (ec->eng->flags & SBIO_ENG_NO_IO ? 0 : T_IO);
        for (unsigned s = 0; s < NSUITE; s++) {
            if ((suite[s].needs & have) != suite[s].needs)
                continue;
            snprintf(names[nt], sizeof(names[nt]), "%s%s/%s: %s", ec->eng->name,
                     ec->fixed ? "+fixed" : "", ec->direct ? "direct" : "buffered", suite[s].name);
            tests[nt] =
                (struct CMUnitTest){names[nt], suite[s].fn, fx_setup, fx_teardown, (void *)ec};
            nt++;
        }
    }
    return _cmocka_run_group_tests("engines", tests, nt, NULL, NULL);
}
