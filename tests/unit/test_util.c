/* Unit tests for the helpers every module shares (src/base/util.c): the value parsers, the
 * message lines, the formatting of durations and sizes, full positional writes and the
 * PRNG helpers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "util.h"

/* ---- value parsers ---- */

static void test_parse_size_suffixes(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        uint64_t v;
    } ok[] = {
        {"0", 0},
        {"4096", 4096},
        {"4096B", 4096},
        {"4096b", 4096},
        {"16K", 16 * SBIO_KIB},
        {"16k", 16 * SBIO_KIB},
        {"16KB", 16 * SBIO_KIB},
        {"16kb", 16 * SBIO_KIB},
        {"16KiB", 16 * SBIO_KIB},
        {"16kib", 16 * SBIO_KIB},
        {"3M", 3 * SBIO_MIB},
        {"3m", 3 * SBIO_MIB},
        {"3MB", 3 * SBIO_MIB},
        {"3MiB", 3 * SBIO_MIB},
        {"2G", 2 * SBIO_GIB},
        {"2g", 2 * SBIO_GIB},
        {"2GB", 2 * SBIO_GIB},
        {"2GiB", 2 * SBIO_GIB},
        {"5T", 5 * 1024 * SBIO_GIB},
        {"5t", 5 * 1024 * SBIO_GIB},
        {"5TB", 5 * 1024 * SBIO_GIB},
        {"5TiB", 5 * 1024 * SBIO_GIB},
        {"18446744073709551615", UINT64_MAX},
        /* The largest count of T that fits in 64 bits. */
        {"16777215T", 16777215ULL << 40},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        uint64_t v = 12345;
        int rc = sbio_parse_size(ok[i].s, &v);
        if (rc || v != ok[i].v)
            fail_msg("%s: rc %d value %llu, want %llu", ok[i].s, rc, (unsigned long long)v,
                     (unsigned long long)ok[i].v);
    }
}

static void test_parse_size_bad(void **state)
{
    (void)state;
    static const char *const garbage[] = {
        "",     "K",    "B",    "x",     "-1",   "+1",   " 1",  "1 ",   "1.5G", "16X",
        "16KK", "16Ki", "16iB", "16KBB", "16Bi", "0x10", "1e3", "16 K", "G16",
    };
    for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
        uint64_t v = 777;
        int rc = sbio_parse_size(garbage[i], &v);
        if (rc != -EINVAL)
            fail_msg("'%s': rc %d, want -EINVAL", garbage[i], rc);
        assert_int_equal(v, 777); /* untouched on error */
    }
    static const char *const overflow[] = {
        "18446744073709551616", "16777216T",          "17179869184G",
        "17592186044416M",      "18014398509481984K", "99999999999999999999999",
    };
    for (size_t i = 0; i < sizeof(overflow) / sizeof(overflow[0]); i++) {
        uint64_t v = 777;
        int rc = sbio_parse_size(overflow[i], &v);
        if (rc != -ERANGE)
            fail_msg("'%s': rc %d, want -ERANGE", overflow[i], rc);
        assert_int_equal(v, 777);
    }
}

static void test_parse_u64(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_int_equal(sbio_parse_u64("0", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(sbio_parse_u64("42", &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(sbio_parse_u64("18446744073709551615", &v), 0);
    assert_true(v == UINT64_MAX);
    v = 5;
    assert_int_equal(sbio_parse_u64("18446744073709551616", &v), -ERANGE);
    assert_int_equal(sbio_parse_u64("", &v), -EINVAL);
    assert_int_equal(sbio_parse_u64("-1", &v), -EINVAL);
    assert_int_equal(sbio_parse_u64("+1", &v), -EINVAL);
    assert_int_equal(sbio_parse_u64(" 1", &v), -EINVAL);
    assert_int_equal(sbio_parse_u64("1 ", &v), -EINVAL);
    assert_int_equal(sbio_parse_u64("16K", &v), -EINVAL); /* no suffix for counts */
    assert_int_equal(sbio_parse_u64("1.0", &v), -EINVAL);
    assert_int_equal(sbio_parse_u64("abc", &v), -EINVAL);
    assert_int_equal(v, 5);
}

static void test_parse_bool(void **state)
{
    (void)state;
    static const char *const yes[] = {"on", "true", "yes", "1", "ON", "True", "YES"};
    static const char *const no[] = {"off", "false", "no", "0", "OFF", "False", "nO"};
    static const char *const bad[] = {"", "2", "y", "n", "enable", "onn", "of", "01", " on"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        bool b = false;
        assert_int_equal(sbio_parse_bool(yes[i], &b), 0);
        assert_true(b);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        bool b = true;
        assert_int_equal(sbio_parse_bool(no[i], &b), 0);
        assert_false(b);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        bool b = true;
        if (sbio_parse_bool(bad[i], &b) != -EINVAL)
            fail_msg("'%s' accepted as a boolean", bad[i]);
        assert_true(b);
    }
}

static void test_parse_double(void **state)
{
    (void)state;
    double d = 0;
    assert_int_equal(sbio_parse_double("1.5", &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(sbio_parse_double(".25", &d), 0);
    assert_true(d == 0.25);
    assert_int_equal(sbio_parse_double("3", &d), 0);
    assert_true(d == 3.0);
    assert_int_equal(sbio_parse_double("0", &d), 0);
    assert_true(d == 0.0);
    d = 9;
    static const char *const bad[] = {"", "-1", "+1", "abc", "1.5x", "inf", "nan", "1e999", " 1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (sbio_parse_double(bad[i], &d) != -EINVAL)
            fail_msg("'%s' accepted as a number", bad[i]);
    assert_true(d == 9.0);
}

/* ---- messages ---- */

/* One "sbio: " line for an error, one "sbio: note: " line for a note, on stderr. */
static void test_messages(void **state)
{
    (void)state;
    char err[MSG_MAX];
    struct capture c;
    cap_begin(&c);
    sbio_err("--threads: '%s' is not a number", "x");
    cap_end(&c, err, sizeof(err));
    assert_string_equal(err, "sbio: --threads: 'x' is not a number\n");
    cap_begin(&c);
    sbio_note("--%s is ignored", "tx-rate");
    cap_end(&c, err, sizeof(err));
    assert_string_equal(err, "sbio: note: --tx-rate is ignored\n");
}

/* ---- formatting ---- */

static void test_fmt_ns(void **state)
{
    (void)state;
    static const struct {
        double ns;
        const char *want;
    } cases[] = {
        {0, "0 ns"},           {850, "850 ns"},       {999.4, "999 ns"}, {1000, "1.00 us"},
        {9994, "9.99 us"},     {12345, "12.3 us"},    {1e6, "1.00 ms"},  {4.56e6, "4.56 ms"},
        {12.34e6, "12.3 ms"},  {999.9e6, "999.9 ms"}, {1e9, "1.00 s"},   {1.2e9, "1.20 s"},
        {3600e9, "3600.00 s"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_ptr_equal(sbio_fmt_ns(buf, sizeof(buf), cases[i].ns), buf);
        if (strcmp(buf, cases[i].want))
            fail_msg("%.1f ns: got '%s', want '%s'", cases[i].ns, buf, cases[i].want);
    }
}

static void test_fmt_bytes(void **state)
{
    (void)state;
    static const struct {
        uint64_t bytes;
        const char *want;
    } cases[] = {
        {0, "0 B"},
        {512, "512 B"},
        {1023, "1023 B"},
        {1024, "1 KiB"},
        {1536, "1.50 KiB"},
        {16 * SBIO_KIB, "16 KiB"},
        {SBIO_MIB + 1, "1.00 MiB"}, /* not whole: decimals, even when they round to .00 */
        {3 * SBIO_GIB / 2, "1.50 GiB"},
        {5 * 1024 * SBIO_GIB, "5 TiB"},
        {2048ULL << 50, "2048 PiB"}, /* PiB is the largest unit */
    };
    char buf[32];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_ptr_equal(sbio_fmt_bytes(buf, sizeof(buf), cases[i].bytes), buf);
        if (strcmp(buf, cases[i].want))
            fail_msg("%llu bytes: got '%s', want '%s'", (unsigned long long)cases[i].bytes, buf,
                     cases[i].want);
    }
}

/* Two sizes in one message: units where they are exact and tell the two apart. */
static void test_fmt_bytes_beside(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(sbio_fmt_bytes_beside(buf, sizeof(buf), SBIO_GIB, 65539), "1 GiB");
    assert_string_equal(sbio_fmt_bytes_beside(buf, sizeof(buf), 65539, SBIO_GIB), "65539 bytes");
    assert_string_equal(sbio_fmt_bytes_beside(buf, sizeof(buf), 2 * SBIO_MIB, 2 * SBIO_MIB + 1000),
                        "2 MiB");
    assert_string_equal(sbio_fmt_bytes_beside(buf, sizeof(buf), 2 * SBIO_MIB + 1000, 2 * SBIO_MIB),
                        "2098152 bytes");
}

/* ---- writes ---- */

/* The whole buffer lands at the offset; a write that fails returns -errno and says where. */
static void test_pwrite_all(void **state)
{
    (void)state;
    char dir[64], path[96], back[8192], data[8192];
    assert_int_equal(tmpdir_make(dir, sizeof(dir), "/tmp", "util"), 0);
    snprintf(path, sizeof(path), "%s/f", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (char)(i * 7 + 1);
    assert_int_equal(sbio_pwrite_all(fd, data, sizeof(data), 4096), 0);
    assert_int_equal(pread(fd, back, sizeof(back), 4096), (ssize_t)sizeof(back));
    assert_memory_equal(back, data, sizeof(data));
    assert_int_equal(lseek(fd, 0, SEEK_END), 4096 + (off_t)sizeof(data));
    close(fd);

    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    uint64_t fail_off = 0;
    assert_int_equal(sbio_pwrite_all_at(fd, data, 100, 12345, &fail_off), -EBADF);
    assert_int_equal(fail_off, 12345);
    close(fd);
    assert_int_equal(tmpdir_remove(dir), 0);
}

/* ---- PRNG helpers ---- */

/* sbio_mix64 spreads consecutive inputs (no repeats, never 0); sbio_rand_below stays below
 * n and reaches every value of a small range. */
static void test_rand(void **state)
{
    (void)state;
    enum { N = 4096 };
    uint64_t *v = malloc(N * sizeof(*v));
    assert_non_null(v);
    for (uint64_t i = 0; i < N; i++) {
        v[i] = sbio_mix64(i);
        assert_true(v[i] != 0);
    }
    qsort(v, N, sizeof(*v), cmp_u64);
    for (size_t i = 1; i < N; i++)
        assert_true(v[i] != v[i - 1]);
    free(v);

    uint64_t s = sbio_mix64(42), seen[7] = {0};
    for (int i = 0; i < 7000; i++) {
        uint64_t r = sbio_rand_below(&s, 7);
        assert_true(r < 7);
        seen[r]++;
    }
    for (int k = 0; k < 7; k++)
        if (seen[k] < 800 || seen[k] > 1200)
            fail_msg("value %d drawn %llu times of 7000", k, (unsigned long long)seen[k]);
    assert_int_equal(sbio_rand_below(&s, 1), 0);
}

/* ---- text from files, and the files sbio writes ---- */

static void test_control(void **state)
{
    (void)state;
    size_t n;
    assert_null(sbio_util_control("rndrw, 2 threads µs ±"));
    assert_non_null(sbio_util_control("a\nb"));
    assert_non_null(sbio_util_control("a\tb"));
    assert_non_null(sbio_util_control("\x1b[31m"));
    assert_non_null(sbio_util_control("del\x7f"));
    assert_non_null(sbio_util_control("csi \xc2\x9b")); /* U+009B, a C1 control */
    assert_null(sbio_util_control("nbsp \xc2\xa0"));    /* U+00A0 is text */
    assert_non_null(sbio_util_control("lone \x9b"));    /* not UTF-8 */
    assert_non_null(sbio_util_control("overlong \xc0\xaf"));
    assert_non_null(sbio_util_control("cut \xe2\x80"));
    assert_false(sbio_util_control_at("\xe2\x80\xa6", &n));
    assert_int_equal(n, 3);
    assert_true(sbio_util_control_at("\x1b", &n));
    assert_int_equal(n, 1);
}

static void test_escape(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(sbio_util_escape(buf, sizeof(buf), "plain µs", 100), "plain µs");
    assert_string_equal(sbio_util_escape(buf, sizeof(buf), "a\nb\tc\r", 100), "a\\nb\\tc\\r");
    assert_string_equal(sbio_util_escape(buf, sizeof(buf), "\x1b[2J", 100), "\\x1B[2J");
    assert_string_equal(sbio_util_escape(buf, sizeof(buf),
                                         "\xc2\x9b"
                                         "1m",
                                         100),
                        "\\xC2\\x9B1m");
    /* Cut at max bytes of the input, on a character, with "…". */
    assert_string_equal(sbio_util_escape(buf, sizeof(buf), "root:$6$salt$hash", 5), "root:…");
    assert_string_equal(sbio_util_escape(buf, sizeof(buf), "ab±cd", 3), "ab…");
    assert_string_equal(sbio_util_escape(buf, sizeof(buf), "abc", 3), "abc");
    /* A small buffer still ends in "…" and a NUL. */
    char small[8];
    sbio_util_escape(small, sizeof(small), "0123456789", 100);
    assert_string_equal(small, "0123…");
}

static void test_open_output(void **state)
{
    (void)state;
    char dir[] = "/tmp/sbio-test-util.XXXXXX", path[128], link[128], why[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/out", dir);
    snprintf(link, sizeof(link), "%s/link", dir);
    /* A new file; then truncated when written again. */
    int fd = sbio_util_open_output(AT_FDCWD, path, SBIO_OUTPUT_TRUNCATE, why, sizeof(why));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "hello", 5), 5);
    close(fd);
    fd = sbio_util_open_output(AT_FDCWD, path, SBIO_OUTPUT_APPEND, why, sizeof(why));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "!", 1), 1);
    close(fd);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 6);
    /* A link of the user's own is followed, to its file. */
    assert_int_equal(symlink("out", link), 0);
    fd = sbio_util_open_output(AT_FDCWD, link, SBIO_OUTPUT_TRUNCATE, why, sizeof(why));
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
    /* A new file is never written through a link, and replaces only a plain file. */
    assert_int_equal(sbio_util_open_output(AT_FDCWD, link, SBIO_OUTPUT_NEW, why, sizeof(why)),
                     -EEXIST);
    assert_non_null(strstr(why, "not a file of this user's"));
    int dfd = open(dir, O_PATH | O_DIRECTORY), old = open(path, O_RDONLY);
    assert_true(dfd >= 0 && old >= 0);
    assert_int_equal(fstat(old, &st), 0); /* held open: its inode number is not reused */
    fd = sbio_util_open_output(dfd, "out", SBIO_OUTPUT_NEW, why, sizeof(why));
    assert_true(fd >= 0);
    struct stat nst;
    assert_int_equal(fstat(fd, &nst), 0);
    close(fd);
    assert_int_not_equal(nst.st_ino, st.st_ino); /* a new file, not the old one written */
    close(old);
    /* A FIFO nothing reads is refused, not waited on. */
    char fifo[128];
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(sbio_util_open_output(AT_FDCWD, fifo, SBIO_OUTPUT_TRUNCATE, why, sizeof(why)),
                     -ENXIO);
    /* A missing folder is named. */
    assert_int_equal(
        sbio_util_open_output(AT_FDCWD, "/nonexistent/x", SBIO_OUTPUT_TRUNCATE, why, sizeof(why)),
        -ENOENT);
    assert_non_null(strstr(why, "folder /nonexistent"));
    /* /dev/null stays usable. */
    fd = sbio_util_open_output(AT_FDCWD, "/dev/null", SBIO_OUTPUT_TRUNCATE, why, sizeof(why));
    assert_true(fd >= 0);
    close(fd);
    close(dfd);
    unlink(fifo);
    unlink(link);
    unlink(path);
    rmdir(dir);
}

/* A stream that keeps the cause of its first failed write: /dev/full says ENOSPC at the
 * flush, long after errno could have told it. */
static void test_stream(void **state)
{
    (void)state;
    int err = -1, fd = open("/dev/full", O_WRONLY);
    assert_true(fd >= 0);
    FILE *f = sbio_util_stream(fd, "w", &err);
    assert_non_null(f);
    assert_int_equal(err, 0);
    fprintf(f, "a report line\n");
    errno = 0;
    assert_int_not_equal(fflush(f), 0);
    errno = 0; /* whatever errno says later, the stream kept the cause */
    assert_int_equal(err, ENOSPC);
    assert_true(ferror(f));
    fclose(f);
    assert_int_equal(fcntl(fd, F_GETFD), -1); /* closed with the stream */
    fd = open("/dev/null", O_WRONLY);
    f = sbio_util_stream(fd, "w", &err);
    assert_non_null(f);
    fprintf(f, "fine\n");
    assert_int_equal(fclose(f), 0);
    assert_int_equal(err, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_bytes_beside),
        cmocka_unit_test(test_parse_size_suffixes),
        cmocka_unit_test(test_parse_size_bad),
        cmocka_unit_test(test_parse_u64),
        cmocka_unit_test(test_parse_bool),
        cmocka_unit_test(test_parse_double),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_fmt_ns),
        cmocka_unit_test(test_fmt_bytes),
        cmocka_unit_test(test_pwrite_all),
        cmocka_unit_test(test_rand),
        cmocka_unit_test(test_control),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_open_output),
        cmocka_unit_test(test_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
