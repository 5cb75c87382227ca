/* Unit tests for seqwr's emptying and completion (src/core/seqwr.c) on real files in a temporary
 * folder: three files of 41 960 bytes walked in requests of 8 KiB (six each, the last of
 * 1 000 bytes). Emptied files have size 0, or their size as a hole; a range of requests
 * written back puts the set's fill bytes exactly there, across a file boundary, and nowhere
 * else; a missing file or a symlink in the set is refused, its target untouched. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fill.h"
#include "helpers.h"
#include "seqwr.h"

#define NFILES 3
#define FSIZE  41960ULL /* five requests of 8 KiB and one of 1 000 bytes */
#define BLOCK  4096ULL
#define MERGED 2 /* blocks per request */

struct fx {
    struct tdir *t;
    struct sbio_fileset fs;
    struct sbio_fileset_file files[NFILES];
    struct sbio_layout lay;
};

static int fx_setup(void **state)
{
    if (tdir_setup(state, "seqwr"))
        return -1;
    struct fx *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    f->t = *state;
    f->fs = (struct sbio_fileset){.dirfd = f->t->dfd,
                                  .dir = f->t->path,
                                  .complete = true,
                                  .block_size = BLOCK,
                                  .fill = SBIO_FILL_RANDOM,
                                  .seed = 99,
                                  .nfiles = NFILES,
                                  .files = f->files,
                                  .bytes = NFILES * FSIZE,
                                  .total_size = NFILES * FSIZE};
    uint64_t sizes[NFILES];
    for (unsigned i = 0; i < NFILES; i++) {
        snprintf(f->files[i].name, sizeof(f->files[i].name), "test_file.%u", i);
        f->files[i].size = sizes[i] = FSIZE;
    }
    if (sbio_layout_init(&f->lay, NFILES, sizes, BLOCK, MERGED, 0))
        return -1;
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;
    sbio_layout_free(&f->lay);
    *state = f->t;
    free(f);
    return tdir_teardown(state);
}

/* File i's content as the set's fill gives it. */
static void fill_of(const struct fx *f, unsigned i, unsigned char *buf)
{
    sbio_fill_range(&f->fs, i, 0, buf, FSIZE);
}

/* Every file made anew, written whole with its fill, as prepare leaves it. */
static void make_set(struct fx *f)
{
    unsigned char buf[FSIZE];
    for (unsigned i = 0; i < NFILES; i++) {
        fill_of(f, i, buf);
        unlinkat(f->fs.dirfd, f->files[i].name, 0); /* a link a test left: not followed */
        int fd =
            openat(f->fs.dirfd, f->files[i].name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, buf, FSIZE), (ssize_t)FSIZE);
        assert_int_equal(close(fd), 0);
    }
}

static struct stat stat_of(const struct fx *f, unsigned i)
{
    struct stat st;
    assert_int_equal(fstatat(f->fs.dirfd, f->files[i].name, &st, AT_SYMLINK_NOFOLLOW), 0);
    return st;
}

/* File i's bytes [a, b) are its fill, and every other byte of it is zero (a hole or an
 * emptied file's extension); its size is FSIZE. */
static void assert_filled_only(const struct fx *f, unsigned i, uint64_t a, uint64_t b)
{
    unsigned char want[FSIZE], got[FSIZE];
    fill_of(f, i, want);
    memset(want, 0, a);
    memset(want + b, 0, FSIZE - b);
    int fd = openat(f->fs.dirfd, f->files[i].name, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, got, FSIZE, 0), (ssize_t)FSIZE);
    close(fd);
    for (uint64_t k = 0; k < FSIZE; k++)
        if (got[k] != want[k])
            fail_msg("%s byte %llu: %#x, want %#x (fill only in [%llu, %llu))", f->files[i].name,
                     (unsigned long long)k, got[k], want[k], (unsigned long long)a,
                     (unsigned long long)b);
}

/* Emptied: size 0; with keep_size the size back as a hole (no block allocated). */
static void test_truncate(void **state)
{
    struct fx *f = *state;
    assert_int_equal(f->lay.seq_units, NFILES * 6);
    make_set(f);
    assert_int_equal(sbio_seqwr_truncate(&f->fs, false), 0);
    for (unsigned i = 0; i < NFILES; i++) {
        struct stat st = stat_of(f, i);
        assert_int_equal(st.st_size, 0);
        assert_int_equal(st.st_blocks, 0);
    }
    make_set(f);
    assert_int_equal(sbio_seqwr_truncate(&f->fs, true), 0);
    for (unsigned i = 0; i < NFILES; i++) {
        struct stat st = stat_of(f, i);
        assert_int_equal(st.st_size, FSIZE);
        assert_int_equal(st.st_blocks, 0);
        assert_filled_only(f, i, 0, 0);
    }
}

/* The whole stream written back: every byte of the set is its fill again, and counted. */
static void test_fill_all(void **state)
{
    struct fx *f = *state;
    make_set(f);
    assert_int_equal(sbio_seqwr_truncate(&f->fs, false), 0);
    uint64_t bytes = 7;
    assert_int_equal(sbio_seqwr_fill(&f->fs, &f->lay, 0, f->lay.seq_units, &bytes), 0);
    assert_int_equal(bytes, 7 + NFILES * FSIZE);
    for (unsigned i = 0; i < NFILES; i++)
        assert_filled_only(f, i, 0, FSIZE);
}

/* Requests [3, 9): the last three of file 0 (from 24 576 to its end, the short tail
 * included) and the first three of file 1; file 2 is not touched. An empty range writes
 * nothing. */
static void test_fill_range(void **state)
{
    struct fx *f = *state;
    make_set(f);
    assert_int_equal(sbio_seqwr_truncate(&f->fs, true), 0);
    uint64_t bytes = 0;
    assert_int_equal(sbio_seqwr_fill(&f->fs, &f->lay, 3, 9, &bytes), 0);
    assert_int_equal(bytes, (FSIZE - 3 * 8192) + 3 * 8192);
    assert_filled_only(f, 0, 3 * 8192, FSIZE);
    assert_filled_only(f, 1, 0, 3 * 8192);
    assert_filled_only(f, 2, 0, 0);
    assert_int_equal(stat_of(f, 2).st_blocks, 0);

    assert_int_equal(sbio_seqwr_fill(&f->fs, &f->lay, 12, 12, &bytes), 0);
    assert_int_equal(sbio_seqwr_fill(&f->fs, &f->lay, 5, 5, &bytes), 0);
    assert_int_equal(bytes, FSIZE);
    assert_filled_only(f, 2, 0, 0);
    /* The last request of the set alone: file 2's tail. */
    assert_int_equal(sbio_seqwr_fill(&f->fs, &f->lay, 17, 18, &bytes), 0);
    assert_int_equal(bytes, FSIZE + 1000);
    assert_filled_only(f, 2, FSIZE - 1000, FSIZE);
}

/* A file of the set missing: emptying stops there with its -errno and names it; completing
 * it fails the same way. A symlink in the set's place is not followed: its target keeps its
 * content. */
static void test_refused(void **state)
{
    struct fx *f = *state;
    make_set(f);
    char err[MSG_MAX];
    assert_int_equal(unlinkat(f->fs.dirfd, "test_file.1", 0), 0);
    struct capture c;
    cap_begin(&c);
    int rc = sbio_seqwr_truncate(&f->fs, false);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -ENOENT);
    char want[160];
    snprintf(want, sizeof(want), "sbio: %s/test_file.1: truncate: No such file or directory\n",
             f->t->path);
    assert_string_equal(err, want);
    assert_int_equal(stat_of(f, 0).st_size, 0);
    assert_int_equal(stat_of(f, 2).st_size, FSIZE); /* after the missing one: untouched */
    uint64_t bytes = 0;
    cap_begin(&c);
    rc = sbio_seqwr_fill(&f->fs, &f->lay, 6, 7, &bytes);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -ENOENT);
    assert_int_equal(bytes, 0);
    assert_has(err, "/test_file.1: open: No such file or directory");

    make_set(f);
    assert_int_equal(unlinkat(f->fs.dirfd, "test_file.2", 0), 0);
    assert_int_equal(symlinkat("test_file.0", f->fs.dirfd, "test_file.2"), 0);
    assert_int_equal(sbio_seqwr_fill(&f->fs, &f->lay, 0, 1, &bytes), 0); /* file 0 itself */
    cap_begin(&c);
    rc = sbio_seqwr_truncate(&f->fs, false);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -ELOOP);
    assert_has(err, "/test_file.2: truncate: ");
    assert_int_equal(stat_of(f, 0).st_size, 0); /* emptied as the first of the set */
    make_set(f);
    assert_int_equal(unlinkat(f->fs.dirfd, "test_file.2", 0), 0);
    assert_int_equal(symlinkat("test_file.0", f->fs.dirfd, "test_file.2"), 0);
    cap_begin(&c);
    rc = sbio_seqwr_fill(&f->fs, &f->lay, 12, 18, &bytes);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -ELOOP);
    assert_filled_only(f, 0, 0, FSIZE); /* the link's target as it was */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_truncate, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_fill_all, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_fill_range, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_refused, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
