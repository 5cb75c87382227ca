/* Unit tests for the page-cache helpers (src/sys/cache.c) against real files: what mincore says is
 * resident after a read, after a drop (dirty pages written back first, the data intact), over
 * more than one window of a sparse file and with the random hint (no readahead); the hints'
 * advice values; the refusals. The folder is under /var/tmp: a tmpfs /tmp keeps its pages. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cache.h"
#include "helpers.h"
#include "vocab.h"

#define TMPFS_MAGIC 0x01021994

static char g_dir[64];

static int dir_setup(void **state)
{
    (void)state;
    return tmpdir_make(g_dir, sizeof(g_dir), "/var/tmp", "cache") ? -1 : 0;
}

static int dir_teardown(void **state)
{
    (void)state;
    cap_abandoned();
    return tmpdir_remove(g_dir);
}

/* A new file NAME in the test's folder, opened read-write. */
static int new_file(const char *name)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", g_dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    return fd;
}

/* The folder's file system drops clean pages on POSIX_FADV_DONTNEED (tmpfs does not). */
static void need_droppable(int fd)
{
    struct statfs sf;
    assert_int_equal(fstatfs(fd, &sf), 0);
    if (sf.f_type == TMPFS_MAGIC)
        skip();
}

static uint64_t resident(int fd, uint64_t size)
{
    uint64_t bytes = 12345;
    assert_int_equal(sbio_cache_resident(fd, size, &bytes), 0);
    return bytes;
}

/* size bytes of a pattern that depends on the offset, written by pwrite. */
static void write_pattern(int fd, uint64_t size)
{
    unsigned char *b = malloc(size);
    assert_non_null(b);
    for (uint64_t i = 0; i < size; i++)
        b[i] = (unsigned char)(i * 7 + i / 4096);
    assert_int_equal(pwrite(fd, b, size, 0), (ssize_t)size);
    free(b);
}

static void read_all(int fd, uint64_t size, bool check)
{
    unsigned char *b = malloc(size);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, size, 0), (ssize_t)size);
    for (uint64_t i = 0; check && i < size; i++)
        if (b[i] != (unsigned char)(i * 7 + i / 4096))
            fail_msg("byte %llu: %u", (unsigned long long)i, b[i]);
    free(b);
}

/* Dirty pages (written, never synced) are written back and dropped: nothing stays resident
 * and the data reads back intact; a file read whole is resident whole, its last partial page
 * counted for the file's part of it only. */
static void test_invalidate_dirty(void **state)
{
    (void)state;
    const uint64_t size = 1024 * 1024 + 100;
    int fd = new_file("dirty");
    need_droppable(fd);
    write_pattern(fd, size);
    assert_int_equal(resident(fd, size), size);
    assert_int_equal(sbio_cache_invalidate(fd), 0);
    assert_int_equal(resident(fd, size), 0);
    read_all(fd, size, true);
    assert_int_equal(resident(fd, size), size);
    /* Clean pages: dropped the same way. */
    assert_int_equal(sbio_cache_invalidate(fd), 0);
    assert_int_equal(resident(fd, size), 0);
    /* Only the first size bytes are counted. */
    read_all(fd, size, false);
    assert_int_equal(resident(fd, 8192), 8192);
    assert_int_equal(resident(fd, 100), 100);
    assert_int_equal(resident(fd, 0), 0);
    close(fd);
}

/* The random hint turns readahead off: reading 64 KiB after a drop brings in those 64 KiB,
 * where the sequential hint reads ahead past them (on a device that reads ahead at all). */
static void test_advise_random(void **state)
{
    (void)state;
    const uint64_t size = 4 * 1024 * 1024, part = 64 * 1024;
    int fd = new_file("random");
    need_droppable(fd);
    write_pattern(fd, size);
    assert_int_equal(fsync(fd), 0);
    char *b = malloc(part);
    assert_non_null(b);

    assert_int_equal(sbio_cache_advise(fd, sbio_cache_fadv(SBIO_FADV_SEQUENTIAL)), 0);
    assert_int_equal(sbio_cache_invalidate(fd), 0);
    assert_int_equal(pread(fd, b, part, 0), (ssize_t)part);
    uint64_t ahead = resident(fd, size);
    assert_true(ahead >= part);

    assert_int_equal(sbio_cache_advise(fd, sbio_cache_fadv(SBIO_FADV_RANDOM)), 0);
    assert_int_equal(sbio_cache_invalidate(fd), 0);
    assert_int_equal(pread(fd, b, part, 0), (ssize_t)part);
    assert_int_equal(resident(fd, size), part);
    if (ahead == part)
        print_message("the device reads nothing ahead: the hints cannot be told apart\n");
    free(b);
    close(fd);
}

/* A sparse file of 1 GiB and 12 KiB: the window after the first counts at its own offset. */
static void test_resident_windows(void **state)
{
    (void)state;
    const uint64_t gib = 1ULL << 30, size = gib + 12288;
    int fd = new_file("sparse");
    need_droppable(fd);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    char b[8192];
    memset(b, 'x', sizeof(b));
    assert_int_equal(pwrite(fd, b, sizeof(b), (off_t)gib + 4096), (ssize_t)sizeof(b));
    assert_int_equal(pwrite(fd, b, 4096, 8192), 4096);
    assert_int_equal(resident(fd, size), 8192 + 4096);
    assert_int_equal(resident(fd, gib), 4096);
    assert_int_equal(sbio_cache_invalidate(fd), 0);
    assert_int_equal(resident(fd, size), 0);
    close(fd);
}

/* The hints' advice: none and auto give none (auto is resolved before), the rest theirs. */
static void test_advice_values(void **state)
{
    (void)state;
    static const struct {
        int hint, fadv, madv;
    } cases[] = {
        {SBIO_FADV_NONE, -1, -1},
        {SBIO_FADV_AUTO, -1, -1},
        {SBIO_FADV_NORMAL, POSIX_FADV_NORMAL, POSIX_MADV_NORMAL},
        {SBIO_FADV_RANDOM, POSIX_FADV_RANDOM, POSIX_MADV_RANDOM},
        {SBIO_FADV_SEQUENTIAL, POSIX_FADV_SEQUENTIAL, POSIX_MADV_SEQUENTIAL},
        {99, -1, -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(sbio_cache_fadv(cases[i].hint), cases[i].fadv);
        assert_int_equal(sbio_cache_madv(cases[i].hint), cases[i].madv);
    }
}

/* No advice or no descriptor: nothing to do; a closed descriptor, bad advice or an object
 * without pages: the -errno. */
static void test_refusals(void **state)
{
    (void)state;
    int fd = new_file("refusals");
    assert_int_equal(sbio_cache_advise(-1, POSIX_FADV_RANDOM), 0);
    assert_int_equal(sbio_cache_advise(fd, -1), 0);
    assert_int_equal(sbio_cache_advise(fd, 12345), -EINVAL);
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(sbio_cache_advise(p[0], POSIX_FADV_RANDOM), -ESPIPE);
    assert_int_equal(sbio_cache_invalidate(p[0]), -ESPIPE);
    uint64_t bytes = 1;
    assert_int_equal(sbio_cache_resident(p[0], 4096, &bytes), -ENODEV);
    close(p[0]);
    close(p[1]);
    close(fd);
    assert_int_equal(sbio_cache_advise(fd, POSIX_FADV_RANDOM), -EBADF);
    assert_int_equal(sbio_cache_invalidate(fd), -EBADF);
    assert_int_equal(sbio_cache_resident(fd, 4096, &bytes), -EBADF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalidate_dirty), cmocka_unit_test(test_advise_random),
        cmocka_unit_test(test_resident_windows), cmocka_unit_test(test_advice_values),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
