/* Unit tests for the file set (src/fs/fileset.c), its manifest (src/fs/manifest.c), its fill data
 * (src/fs/fill.c), prepare and cleanup (src/fs/prepare.c), on real temporary folders under /tmp.
 * The safety rules (never write through a symlink, never touch a file no manifest names) are
 * checked by looking at the files afterwards, not at return codes only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileset.h"
#include "fill.h"
#include "manifest.h"
#include "helpers.h"
#include "options.h"
#include "prepare.h"
#include "util.h"

/* One temporary folder per test, removed by the teardown whatever the test left. */
static int setup_dir(void **state)
{
    return tdir_setup(state, "fileset");
}

static int teardown_dir(void **state)
{
    return tdir_teardown(state);
}

/* A configuration as the command line gives it, so "given" is real: cmd, --dir, then the
 * NULL-terminated extra options. */
static void make_cfg_(struct sbio_config *cfg, struct tdir *t, const char *cmd, ...)
{
    char *argv[32] = {"sbio", (char *)cmd, t->dirarg};
    int argc = 3;
    va_list ap;
    va_start(ap, cmd);
    for (const char *a; (a = va_arg(ap, const char *)) && argc < 31;)
        argv[argc++] = (char *)a;
    va_end(ap);
    char err[MSG_MAX];
    if (parse_args(cfg, argv, err, sizeof(err)))
        fail_msg("parse: %s", err);
}
#define make_cfg(cfg, t, ...) make_cfg_(cfg, t, __VA_ARGS__, (const char *)NULL)

/* The small set most tests use: 4 files of 16 KiB; 3 bytes of remainder are dropped. */
#define SMALL_SET  "--file-num=4", "--file-total-size=65539", "--rand-seed=42"
#define SMALL_FILE 16384

static void write_text(int dfd, const char *name, const char *text)
{
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* Whole content of a file (at most len bytes); returns the byte count or -1. */
static ssize_t read_all(int dfd, const char *name, void *buf, size_t len)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    ssize_t n = pread(fd, buf, len, 0);
    close(fd);
    return n;
}

static bool exists(int dfd, const char *name)
{
    struct stat st;
    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int64_t size_of(int dfd, const char *name)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return -1;
    return (int64_t)st.st_size;
}

static int count_entries(const char *path)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static int prepare(const struct sbio_config *cfg, char *err, size_t errlen)
{
    struct capture c;
    cap_begin(&c);
    int rc = sbio_fileset_prepare(TS(cfg), NULL, stdout);
    cap_end(&c, err, errlen);
    return rc;
}

/* prepare or cleanup (as cfg->cmd says) with its report in *out (to free) and stderr in err. */
static int set_cmd_to(const struct sbio_config *cfg, char **out, char *err, size_t errlen)
{
    size_t len = 0;
    FILE *f = open_memstream(out, &len);
    assert_non_null(f);
    struct capture c;
    cap_begin(&c);
    int rc = cfg->cmd == SBIO_CMD_PREPARE ? sbio_fileset_prepare(TS(cfg), NULL, f)
                                          : sbio_fileset_cleanup(TS(cfg), f);
    cap_end(&c, err, errlen);
    fclose(f);
    return rc;
}

static int open_set(struct sbio_fileset *fs, const struct sbio_config *cfg, bool allow_create,
                    bool *created, char *err, size_t errlen)
{
    struct capture c;
    cap_begin(&c);
    int rc = sbio_fileset_open(fs, TS(cfg), allow_create, created);
    cap_end(&c, err, errlen);
    return rc;
}

static int read_manifest(int dfd, struct sbio_fileset *fs, char *err, size_t errlen)
{
    struct capture c;
    memset(fs, 0x5a, sizeof(*fs)); /* stale values must not survive a read */
    fs->dirfd = -1;
    fs->dir = NULL; /* the manifest's messages find the folder themselves */
    cap_begin(&c);
    int rc = sbio_manifest_read(dfd, fs);
    cap_end(&c, err, errlen);
    return rc;
}

/* Every file of the set on disk holds exactly the fill bytes of its manifest. */
static void assert_set_content(int dfd, const struct sbio_fileset *fs)
{
    for (unsigned i = 0; i < fs->nfiles; i++) {
        size_t sz = fs->files[i].size;
        unsigned char *got = malloc(sz + 1), *want = malloc(sz + 1);
        assert_non_null(got);
        assert_non_null(want);
        assert_int_equal(read_all(dfd, fs->files[i].name, got, sz + 1), (ssize_t)sz);
        sbio_fill_range(fs, i, 0, want, sz);
        if (memcmp(got, want, sz))
            fail_msg("%s does not hold its fill bytes", fs->files[i].name);
        free(got);
        free(want);
    }
}

/* ---- shape and manifest ---- */

static void test_shape(void **state)
{
    struct sbio_config cfg;
    struct sbio_fileset fs = {.dirfd = -1};
    make_cfg(&cfg, *state, "prepare", "--file-num=3", "--file-total-size=10000",
             "--file-block-size=512", "--file-fill=compressible:30", "--file-prealloc=fallocate");
    assert_int_equal(sbio_fileset_shape(&fs, TS(&cfg), 1234), 0);
    assert_int_equal(fs.nfiles, 3);
    for (unsigned i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof(name), "test_file.%u", i);
        assert_string_equal(fs.files[i].name, name);
        assert_int_equal(fs.files[i].size, 3333); /* 10000 / 3, the remainder dropped */
    }
    assert_int_equal(fs.bytes, 9999);
    assert_int_equal(fs.total_size, 10000);
    assert_int_equal(fs.block_size, 512);
    assert_int_equal(fs.seed, 1234);
    assert_int_equal(fs.fill, SBIO_FILL_COMPRESSIBLE);
    assert_int_equal(fs.fill_pct, 30);
    assert_int_equal(fs.prealloc, SBIO_PREALLOC_FALLOCATE);
    assert_false(fs.complete);
    sbio_fileset_close(&fs);

    /* Fewer bytes than files would make empty files: refused, nothing allocated. */
    make_cfg(&cfg, *state, "prepare", "--file-num=8", "--file-total-size=7");
    struct capture c;
    char err[MSG_MAX];
    cap_begin(&c);
    int rc = sbio_fileset_shape(&fs, TS(&cfg), 1);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_null(fs.files);
    assert_has(err, "--file-total-size=7 over --file-num=8 files gives empty files");
    /* One byte a file is enough: prepare makes each a whole block. */
    make_cfg(&cfg, *state, "prepare", "--file-num=8", "--file-total-size=8");
    assert_int_equal(sbio_fileset_shape(&fs, TS(&cfg), 1), 0);
    assert_int_equal(fs.files[7].size, 1);
    sbio_fileset_close(&fs);
}

static void test_manifest_roundtrip(void **state)
{
    struct tdir *t = *state;
    struct sbio_fileset_file files[3] = {
        {"test_file.0", 1000, 0, false},
        {"test_file.1", 0, 0, true}, /* appended.1=1: a script's appends may have grown it */
        {"test_file.2", 1ULL << 50, 0, false}};
    struct sbio_fileset w = {
        .dirfd = -1,
        .complete = true,
        .total_size = 1000 + (1ULL << 50),
        .block_size = 4096,
        .fill = SBIO_FILL_COMPRESSIBLE,
        .fill_pct = 37,
        .seed = 0xdeadbeefcafef00dULL,
        .verify = true,
        .prealloc = SBIO_PREALLOC_FALLOCATE,
        .nfiles = 3,
        .files = files,
    };
    assert_int_equal(sbio_manifest_write(t->dfd, &w), 0);
    assert_false(exists(t->dfd, SBIO_MANIFEST ".tmp"));

    struct sbio_fileset r;
    char err[MSG_MAX];
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), 0);
    assert_string_equal(err, "");
    assert_true(r.complete);
    assert_int_equal(r.total_size, 1000 + (1ULL << 50));
    assert_int_equal(r.block_size, 4096);
    assert_int_equal(r.fill, SBIO_FILL_COMPRESSIBLE);
    assert_int_equal(r.fill_pct, 37);
    assert_true(r.seed == 0xdeadbeefcafef00dULL);
    assert_true(r.verify);
    assert_int_equal(r.prealloc, SBIO_PREALLOC_FALLOCATE);
    assert_int_equal(r.nfiles, 3);
    for (unsigned i = 0; i < 3; i++) {
        assert_string_equal(r.files[i].name, files[i].name);
        assert_true(r.files[i].size == files[i].size);
        assert_true(r.files[i].appended == files[i].appended);
    }
    assert_true(r.bytes == 1000 + (1ULL << 50));
    free(r.files);

    /* The other value of every two-state field, and a rewrite replacing the first. */
    w.complete = false;
    w.fill = SBIO_FILL_ZERO;
    w.fill_pct = 0;
    w.verify = false;
    w.prealloc = SBIO_PREALLOC_WRITE;
    w.seed = 1;
    w.nfiles = 2;
    files[1].size = 77;
    w.total_size = 1077;
    assert_int_equal(sbio_manifest_write(t->dfd, &w), 0);
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), 0);
    assert_false(r.complete);
    assert_int_equal(r.fill, SBIO_FILL_ZERO);
    assert_int_equal(r.fill_pct, 0);
    assert_false(r.verify);
    assert_int_equal(r.prealloc, SBIO_PREALLOC_WRITE);
    assert_int_equal(r.seed, 1);
    assert_int_equal(r.nfiles, 2);
    assert_int_equal(r.files[1].size, 77);
    assert_int_equal(r.bytes, 1077);
    free(r.files);

    w.fill = SBIO_FILL_RANDOM;
    assert_int_equal(sbio_manifest_write(t->dfd, &w), 0);
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), 0);
    assert_int_equal(r.fill, SBIO_FILL_RANDOM);
    assert_false(r.seqwr_short);
    free(r.files);
    assert_false(sbio_manifest_left_short(t->dfd));

    /* A set a seqwr run left short: which bytes of each file are still to be written. */
    w.seqwr_short = true;
    files[0].unwritten = 600; /* from 400 on */
    files[1].unwritten = 77;  /* all of it */
    assert_int_equal(sbio_manifest_write(t->dfd, &w), 0);
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), 0);
    assert_false(r.complete);
    assert_true(r.seqwr_short);
    assert_int_equal(r.files[0].unwritten, 600);
    assert_int_equal(r.files[1].unwritten, 77);
    free(r.files);
    assert_true(sbio_manifest_left_short(t->dfd));
    /* Complete, it says nothing of it (whatever the fields held). */
    w.complete = true;
    assert_int_equal(sbio_manifest_write(t->dfd, &w), 0);
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), 0);
    assert_false(r.seqwr_short);
    assert_int_equal(r.files[0].unwritten, 0);
    free(r.files);
    assert_false(sbio_manifest_left_short(t->dfd));
}

static void test_manifest_defaults(void **state)
{
    struct tdir *t = *state;
    struct sbio_fileset r;
    char err[MSG_MAX];
    /* Only what is required; a newer sbio's unknown key is skipped. */
    write_text(t->dfd, SBIO_MANIFEST,
               "# comment\n\nformat=1\nfile_num=1\nfuture_key=x\nfile.0=test_file.0 5\n");
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), 0);
    assert_false(r.complete); /* no state= is not a complete set */
    assert_int_equal(r.fill, SBIO_FILL_RANDOM);
    assert_int_equal(r.fill_pct, 0);
    assert_false(r.verify);
    assert_int_equal(r.prealloc, SBIO_PREALLOC_WRITE);
    assert_int_equal(r.total_size, 0);
    assert_int_equal(r.nfiles, 1);
    assert_int_equal(r.bytes, 5);
    free(r.files);

    write_text(t->dfd, SBIO_MANIFEST,
               "format=1\nstate=complete\nfile_num=1\n"
               "file.0=test_file.0 5\n");
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), 0);
    assert_true(r.complete);
    free(r.files);
    write_text(t->dfd, SBIO_MANIFEST,
               "format=1\nstate=incomplete\nfile_num=1\n"
               "file.0=test_file.0 5\n");
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), 0);
    assert_false(r.complete);
    free(r.files);
}

static void test_manifest_damaged(void **state)
{
    struct tdir *t = *state;
    static const struct {
        const char *what, *text;
        int line;
    } bad[] = {
        {"missing format", "state=complete\nfile_num=1\nfile.0=test_file.0 5\n", 3},
        {"unknown format", "format=2\nfile_num=1\nfile.0=test_file.0 5\n", 1},
        {"format not a number", "format=one\nfile_num=1\nfile.0=test_file.0 5\n", 1},
        {"bad state", "format=1\nstate=done\nfile_num=1\nfile.0=test_file.0 5\n", 2},
        {"not key=value", "format=1\nfile_num=1\nfile.0=test_file.0 5\ngarbage\n", 4},
        {"file_num 0", "format=1\nfile_num=0\n", 2},
        {"file_num twice", "format=1\nfile_num=1\nfile_num=1\nfile.0=test_file.0 5\n", 3},
        {"entry without size", "format=1\nfile_num=1\nfile.0=test_file.0\n", 3},
        {"entry with a bad size", "format=1\nfile_num=1\nfile.0=test_file.0 5x\n", 3},
        {"entry with a negative size", "format=1\nfile_num=1\nfile.0=test_file.0 -1\n", 3},
        {"entry with trailing words", "format=1\nfile_num=1\nfile.0=test_file.0 5 6\n", 3},
        {"name with '/'", "format=1\nfile_num=1\nfile.0=../etc/passwd 5\n", 3},
        {"name too long", "format=1\nfile_num=1\nfile.0=' + 'x' * 300 + ' 5\n", 3},
        {"index out of range", "format=1\nfile_num=2\nfile.0=test_file.0 1\nfile.2=test_file.2 1\n",
         4},
        {"index not a number", "format=1\nfile_num=1\nfile.x=test_file.0 1\n", 3},
        {"entry before file_num", "format=1\nfile.0=test_file.0 1\nfile_num=1\n", 2},
        {"missing file entry", "format=1\nfile_num=3\nfile.0=test_file.0 1\nfile.2=test_file.2 1\n",
         4},
        {"repeated file entry",
         "format=1\nfile_num=2\nfile.0=test_file.0 1\nfile.0=test_file.0 1\n", 4},
        {"a name twice", "format=1\nfile_num=2\nfile.0=test_file.0 1\nfile.1=test_file.0 1\n", 4},
        {"another name", "format=1\nfile_num=1\nfile.0=victim.db 1\n", 3},
        {"the folder's parent", "format=1\nfile_num=1\nfile.0=.. 1\n", 3},
        {"the manifest itself", "format=1\nfile_num=1\nfile.0=sbio.manifest 1\n", 3},
        {"missing file_num", "format=1\nstate=complete\n", 2},
        {"unknown fill", "format=1\nfill=ones\nfile_num=1\nfile.0=test_file.0 1\n", 2},
        {"block_size 0", "format=1\nblock_size=0\nfile_num=1\nfile.0=test_file.0 1\n", 2},
        {"block_size above 1 GiB",
         "format=1\nblock_size=2147483648\nfile_num=1\nfile.0=test_file.0 1\n", 2},
        {"verify 7", "format=1\nverify=7\nfile_num=1\nfile.0=test_file.0 1\n", 2},
        {"adopted yes", "format=1\nadopted=yes\nfile_num=1\nfile.0=test_file.0 1\n", 2},
        {"unknown prealloc", "format=1\nprealloc=magic\nfile_num=1\nfile.0=test_file.0 1\n", 2},
        {"short by what", "format=1\nshort=prepare\nfile_num=1\nfile.0=test_file.0 1\n", 2},
        {"rewrite before its file", "format=1\nfile_num=1\nrewrite.0=0\nfile.0=test_file.0 1\n", 3},
        {"rewrite from its end", "format=1\nfile_num=1\nfile.0=test_file.0 1\nrewrite.0=1\n", 4},
        {"rewrite twice", "format=1\nfile_num=1\nfile.0=test_file.0 9\nrewrite.0=1\nrewrite.0=2\n",
         5},
        {"rewrite of no file", "format=1\nfile_num=1\nfile.0=test_file.0 9\nrewrite.1=0\n", 4},
        {"empty", "", 0},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sbio_fileset r;
        char err[MSG_MAX], want[64];
        write_text(t->dfd, SBIO_MANIFEST, bad[i].text);
        int rc = read_manifest(t->dfd, &r, err, sizeof(err));
        if (rc != -EBADMSG)
            fail_msg("%s: rc %d, want -EBADMSG", bad[i].what, rc);
        assert_null(r.files);
        /* Nothing said: the reason, naming the line, is the caller's to say in its one line. */
        snprintf(want, sizeof(want), "line %d: ", bad[i].line);
        if (err[0] || strncmp(r.damage, want, strlen(want)))
            fail_msg("%s: said [%s], damage [%s], want nothing said and [%s…]", bad[i].what, err,
                     r.damage, want);
    }
}

static void test_manifest_missing(void **state)
{
    struct tdir *t = *state;
    struct sbio_fileset r;
    char err[MSG_MAX];
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), -ENOENT);
    assert_null(r.files);
    assert_string_equal(err, ""); /* the caller decides what to say */
}

static void test_check_shape(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    struct sbio_fileset fs = {.dirfd = -1, .dir = t->path};
    make_cfg(&cfg, t, "run", "--file-num=4", "--file-total-size=64K");
    assert_int_equal(sbio_fileset_shape(&fs, TS(&cfg), 1), 0);
    char err[MSG_MAX];
    struct capture c;

    /* Not given: the set's shape wins, whatever the defaults say. */
    make_cfg(&cfg, t, "run");
    assert_int_equal(sbio_fileset_check_shape(&fs, TS(&cfg)), 0);
    /* Given and equal, in any spelling of the size. */
    make_cfg(&cfg, t, "run", "--file-num=4", "--file-total-size=65536");
    assert_int_equal(sbio_fileset_check_shape(&fs, TS(&cfg)), 0);
    make_cfg(&cfg, t, "run", "--file-total-size", "64KiB");
    assert_int_equal(sbio_fileset_check_shape(&fs, TS(&cfg)), 0);

    make_cfg(&cfg, t, "run", "--file-num=8");
    cap_begin(&c);
    int rc = sbio_fileset_check_shape(&fs, TS(&cfg));
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "--file-num=8");
    assert_has(err, "has 4 files");
    assert_has(err, t->path);

    make_cfg(&cfg, t, "run", "--file-num=4", "--file-total-size=1M");
    cap_begin(&c);
    rc = sbio_fileset_check_shape(&fs, TS(&cfg));
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "--file-total-size is 1 MiB");
    assert_has(err, "prepared with 64 KiB");
    sbio_fileset_close(&fs);
}

/* ---- fill ---- */

static struct sbio_fileset fill_set(int fill, uint64_t pct, uint64_t seed)
{
    return (struct sbio_fileset){.dirfd = -1, .fill = fill, .fill_pct = pct, .seed = seed};
}

#define FILL_LEN (5 * SBIO_FILL_CHUNK + 123)

static void test_fill_deterministic(void **state)
{
    (void)state;
    static unsigned char a[FILL_LEN], b[FILL_LEN];
    struct sbio_fileset fs = fill_set(SBIO_FILL_RANDOM, 0, 42);
    sbio_fill_range(&fs, 3, 8192, a, FILL_LEN);
    sbio_fill_range(&fs, 3, 8192, b, FILL_LEN);
    assert_memory_equal(a, b, FILL_LEN);

    /* Other file, other offset, other seed: other bytes, in every chunk. */
    sbio_fill_range(&fs, 4, 8192, b, FILL_LEN);
    for (size_t off = 0; off < FILL_LEN; off += SBIO_FILL_CHUNK)
        assert_memory_not_equal(a + off, b + off, 64);
    sbio_fill_range(&fs, 3, 8192 + SBIO_FILL_CHUNK, b, FILL_LEN);
    assert_memory_not_equal(a, b, SBIO_FILL_CHUNK);
    /* Chunks of one file differ from each other (no repeated 4 KiB pattern). */
    assert_memory_not_equal(a, a + SBIO_FILL_CHUNK, SBIO_FILL_CHUNK);
    struct sbio_fileset other = fill_set(SBIO_FILL_RANDOM, 0, 43);
    sbio_fill_range(&other, 3, 8192, b, FILL_LEN);
    assert_memory_not_equal(a, b, SBIO_FILL_CHUNK);

    /* Random-looking: about half the bits set. */
    size_t ones = 0;
    for (size_t i = 0; i < FILL_LEN; i++)
        ones += (size_t)__builtin_popcount(a[i]);
    assert_in_range(ones, FILL_LEN * 4 - FILL_LEN / 8, FILL_LEN * 4 + FILL_LEN / 8);
}

static void test_fill_unaligned(void **state)
{
    (void)state;
    static unsigned char whole[FILL_LEN], part[FILL_LEN];
    struct sbio_fileset fs = fill_set(SBIO_FILL_RANDOM, 0, 7);
    sbio_fill_range(&fs, 1, 0, whole, FILL_LEN);
    static const struct {
        uint64_t off, len;
    } cut[] = {
        {1, 10},   {4095, 2},    {4095, 4098},  {4097, 3 * 4096},  {5000, 1},
        {0, 4097}, {8191, 8193}, {12345, 6789}, {FILL_LEN - 1, 1}, {100, FILL_LEN - 100},
    };
    for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
        memset(part, 0xee, sizeof(part));
        sbio_fill_range(&fs, 1, cut[i].off, part, cut[i].len);
        if (memcmp(part, whole + cut[i].off, cut[i].len))
            fail_msg("fill at %llu+%llu differs from the aligned fill",
                     (unsigned long long)cut[i].off, (unsigned long long)cut[i].len);
        assert_int_equal(part[cut[i].len], 0xee); /* nothing written past len */
    }
    /* The same holds for compressible data. */
    fs = fill_set(SBIO_FILL_COMPRESSIBLE, 25, 7);
    sbio_fill_range(&fs, 1, 0, whole, FILL_LEN);
    sbio_fill_range(&fs, 1, 1000, part, 9000);
    assert_memory_equal(part, whole + 1000, 9000);
}

static void test_fill_zero_and_compressible(void **state)
{
    (void)state;
    static unsigned char buf[FILL_LEN], zero[FILL_LEN];
    struct sbio_fileset fs = fill_set(SBIO_FILL_ZERO, 0, 42);
    memset(buf, 0xff, sizeof(buf));
    sbio_fill_range(&fs, 2, 777, buf, FILL_LEN - 1);
    assert_memory_equal(buf, zero, FILL_LEN - 1);
    assert_int_equal(buf[FILL_LEN - 1], 0xff);

    fs = fill_set(SBIO_FILL_COMPRESSIBLE, 50, 42);
    sbio_fill_range(&fs, 2, 0, buf, 5 * SBIO_FILL_CHUNK);
    for (int c = 0; c < 5; c++) {
        const unsigned char *chunk = buf + c * SBIO_FILL_CHUNK;
        assert_memory_equal(chunk, zero, SBIO_FILL_CHUNK / 2);
        /* The second half is the random fill, not zeros (no zero word in it). */
        for (size_t w = SBIO_FILL_CHUNK / 2; w < SBIO_FILL_CHUNK; w += 8)
            assert_memory_not_equal(chunk + w, zero, 8);
    }
    /* Only the zeroed part differs from the random fill of the same seed. */
    static unsigned char rnd[FILL_LEN];
    struct sbio_fileset r = fill_set(SBIO_FILL_RANDOM, 0, 42);
    sbio_fill_range(&r, 2, 0, rnd, SBIO_FILL_CHUNK);
    assert_memory_equal(buf + SBIO_FILL_CHUNK / 2, rnd + SBIO_FILL_CHUNK / 2, SBIO_FILL_CHUNK / 2);

    fs = fill_set(SBIO_FILL_COMPRESSIBLE, 100, 42);
    sbio_fill_range(&fs, 0, 0, buf, 2 * SBIO_FILL_CHUNK);
    assert_memory_equal(buf, zero, 2 * SBIO_FILL_CHUNK);
}

/* Any cut of a range into pieces gives the bytes of the range filled at once: pieces that
 * start or end inside a chunk, and whole chunks taken four at a time from any chunk on (not
 * only from a multiple of four). */
/* Whole runs of four or eight chunks take the four-chain path (vectorised where the CPU can,
 * eight chunks as two groups side by side); single chunks the one-chain path: the bytes must
 * be the same, in every lane, at every offset. */
static void test_fill_four_chains(void **state)
{
    (void)state;
    static unsigned char whole[16 * SBIO_FILL_CHUNK], part[sizeof(whole)];
    const struct sbio_fileset sets[] = {fill_set(SBIO_FILL_RANDOM, 0, 1),
                                        fill_set(SBIO_FILL_RANDOM, 0, 0x9e3779b97f4a7c15ULL),
                                        fill_set(SBIO_FILL_COMPRESSIBLE, 50, 3)};
    for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++)
        for (uint64_t base = 0; base < (1ULL << 40); base = base * 977 + 4096 * 13) {
            sbio_fill_range(&sets[s], (unsigned)s + 2, base, whole, sizeof(whole));
            for (uint64_t off = 0; off < sizeof(whole); off += SBIO_FILL_CHUNK)
                sbio_fill_range(&sets[s], (unsigned)s + 2, base + off, part + off, SBIO_FILL_CHUNK);
            assert_memory_equal(part, whole, sizeof(whole));
        }
}

static void test_fill_pieces(void **state)
{
    (void)state;
    static unsigned char whole[9 * SBIO_FILL_CHUNK + 123], part[sizeof(whole)];
    static const uint64_t lens[] = {1,
                                    SBIO_FILL_CHUNK - 1,
                                    4 * SBIO_FILL_CHUNK,
                                    3,
                                    5 * SBIO_FILL_CHUNK - 3,
                                    SBIO_FILL_CHUNK,
                                    4 * SBIO_FILL_CHUNK + 1};
    const struct sbio_fileset sets[] = {fill_set(SBIO_FILL_RANDOM, 0, 11),
                                        fill_set(SBIO_FILL_COMPRESSIBLE, 30, 11)};
    for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
        sbio_fill_range(&sets[s], 5, 0, whole, sizeof(whole));
        memset(part, 0xee, sizeof(part));
        uint64_t off = 0;
        for (size_t k = 0; off < sizeof(whole); k++) {
            uint64_t n = lens[k % (sizeof(lens) / sizeof(lens[0]))];
            if (n > sizeof(whole) - off)
                n = sizeof(whole) - off;
            sbio_fill_range(&sets[s], 5, off, part + off, n);
            off += n;
        }
        assert_memory_equal(part, whole, sizeof(whole));
    }
}

/* ---- prepare, open, cleanup ---- */

/* prepare and cleanup report to the FILE they are given (here no terminal: a line per file)
 * and nothing to stderr when all goes well. */
static void test_prepare_output(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX], want[512];
    char *out = NULL;
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(set_cmd_to(&cfg, &out, err, sizeof(err)), 0);
    assert_string_equal(err, "");
    static const char created[] = "4 files, 16 KiB each, 64 KiB total\n"
                                  "Extra file open flags: (none)\n"
                                  "Creating file test_file.0 (16 KiB)\n"
                                  "Creating file test_file.1 (16 KiB)\n"
                                  "Creating file test_file.2 (16 KiB)\n"
                                  "Creating file test_file.3 (16 KiB)\n"
                                  "65536 bytes written in ";
    assert_memory_equal(out, created, strlen(created));
    assert_has(out + strlen(created), " MiB/sec).\n");
    free(out);

    assert_int_equal(set_cmd_to(&cfg, &out, err, sizeof(err)), 0);
    snprintf(want, sizeof(want),
             "4 files, 16 KiB each, 64 KiB total\n"
             "Extra file open flags: (none)\n"
             "Reusing the set in %s (complete); checking sizes\n"
             "No bytes written: every file already had its size.\n",
             t->path);
    assert_string_equal(out, want);
    assert_string_equal(err, "");
    free(out);

    make_cfg(&cfg, t, "cleanup");
    assert_int_equal(set_cmd_to(&cfg, &out, err, sizeof(err)), 0);
    snprintf(want, sizeof(want), "Removing 4 test files from %s\n", t->path);
    assert_string_equal(out, want);
    free(out);
    assert_int_equal(set_cmd_to(&cfg, &out, err, sizeof(err)), 0);
    snprintf(want, sizeof(want), "No sbio file set in %s (no %s); nothing removed\n", t->path,
             SBIO_MANIFEST);
    assert_string_equal(out, want);
    assert_string_equal(err, "");
    free(out);

    make_cfg(&cfg, t, "prepare", SMALL_SET, "--file-prealloc=fallocate");
    assert_int_equal(set_cmd_to(&cfg, &out, err, sizeof(err)), 0);
    assert_has(out, "\nPreallocating with fallocate: fast, but blocks read as zeros until "
                    "written and reads of them may not reach the device\n"
                    "Creating file test_file.0 (16 KiB)\n");
    free(out);
}

/* Files of several 1 MiB write chunks and a partial last one: the chunk written while the
 * helper thread fills the next must land at its own offset, with its own bytes. */
static void test_prepare_many_chunks(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    /* 2 files of 3.5 MiB + 1 byte each (1-byte blocks: no rounding up to a whole block). */
    make_cfg(&cfg, t, "prepare", "--file-num=2", "--file-total-size=7340034", "--rand-seed=7",
             "--file-block-size=1");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    struct sbio_fileset fs;
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_true(fs.complete);
    assert_int_equal(fs.files[1].size, 3670017);
    assert_set_content(t->dfd, &fs);
    free(fs.files);
}

static void test_prepare_open_cleanup(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    assert_string_equal(err, "");
    assert_int_equal(count_entries(t->path), 5);
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof(name), "test_file.%d", i);
        assert_int_equal(size_of(t->dfd, name), SMALL_FILE);
    }

    struct sbio_fileset fs;
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_true(fs.complete);
    assert_int_equal(fs.nfiles, 4);
    assert_int_equal(fs.total_size, 65539);
    assert_int_equal(fs.block_size, 16384);
    assert_int_equal(fs.seed, 42);
    assert_int_equal(fs.bytes, 4 * SMALL_FILE);
    assert_set_content(t->dfd, &fs);
    free(fs.files);

    bool created = true;
    make_cfg(&cfg, t, "run", "--file-test-mode=rndrd");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), 0);
    assert_false(created);
    assert_true(fs.dirfd >= 0);
    assert_true(fs.complete);
    assert_int_equal(fs.nfiles, 4);
    assert_int_equal(fs.files[3].size, SMALL_FILE);
    assert_string_equal(fs.dir, t->path);
    sbio_fileset_close(&fs);
    assert_int_equal(fs.dirfd, -1);
    assert_null(fs.files);

    /* Cleanup removes the set and only the set. Again, the test file no manifest names is
     * what is left to remove: refused, nothing touched. Without it, twice is fine. */
    write_text(t->dfd, "keep.txt", "mine");
    write_text(t->dfd, "test_file.4", "not in the manifest");
    make_cfg(&cfg, t, "cleanup");
    assert_int_equal(sbio_fileset_cleanup(TS(&cfg), stdout), 0);
    assert_int_equal(count_entries(t->path), 2);
    assert_true(exists(t->dfd, "keep.txt"));
    assert_true(exists(t->dfd, "test_file.4"));
    assert_int_equal(sbio_fileset_cleanup(TS(&cfg), stdout), -SBIO_EUSAGE);
    assert_int_equal(count_entries(t->path), 2);
    assert_int_equal(unlinkat(t->dfd, "test_file.4", 0), 0);
    assert_int_equal(sbio_fileset_cleanup(TS(&cfg), stdout), 0);
    assert_int_equal(sbio_fileset_cleanup(TS(&cfg), stdout), 0);
    assert_int_equal(count_entries(t->path), 1);
}

static void test_prepare_foreign_file(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX], buf[64];
    write_text(t->dfd, "test_file.1", "precious data");
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "test_file.1");
    assert_has(err, "belongs to no sbio file set");
    /* Nothing touched: the foreign file as it was, nothing created. */
    assert_int_equal(read_all(t->dfd, "test_file.1", buf, sizeof(buf)), 13);
    assert_memory_equal(buf, "precious data", 13);
    assert_int_equal(count_entries(t->path), 1);

    /* Neither does a seqwr run create a set over it. */
    struct sbio_fileset fs;
    bool created = true;
    make_cfg(&cfg, t, "run", "--file-test-mode=seqwr", SMALL_SET);
    assert_int_equal(open_set(&fs, &cfg, true, &created, err, sizeof(err)), -SBIO_EUSAGE);
    sbio_fileset_close(&fs);
    assert_false(created);
    assert_int_equal(count_entries(t->path), 1);
    assert_int_equal(read_all(t->dfd, "test_file.1", buf, sizeof(buf)), 13);

    /* Nor does cleanup remove it: it says so and fails. */
    make_cfg(&cfg, t, "cleanup");
    char *out = NULL;
    assert_int_equal(set_cmd_to(&cfg, &out, err, sizeof(err)), -SBIO_EUSAGE);
    assert_string_equal(out, "");
    free(out);
    assert_has(err, "1 test_file.* file (made by sysbench?): nothing removed; sbio prepare "
                    "--adopt");
    assert_true(exists(t->dfd, "test_file.1"));
    assert_int_equal(read_all(t->dfd, "test_file.1", buf, sizeof(buf)), 13);
}

static void test_prepare_symlink(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX], buf[64];
    struct stat st;
    write_text(t->dfd, "target", "keep me");
    assert_int_equal(symlinkat("target", t->dfd, "test_file.0"), 0);
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "test_file.0 is a symbolic link");
    assert_int_equal(read_all(t->dfd, "target", buf, sizeof(buf)), 7);
    assert_memory_equal(buf, "keep me", 7);
    assert_int_equal(fstatat(t->dfd, "test_file.0", &st, AT_SYMLINK_NOFOLLOW), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_false(exists(t->dfd, SBIO_MANIFEST));
    assert_int_equal(count_entries(t->path), 2);

    /* A symlink put in place of a file of a prepared set: refused the same way. */
    assert_int_equal(unlinkat(t->dfd, "test_file.0", 0), 0);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    assert_int_equal(unlinkat(t->dfd, "test_file.2", 0), 0);
    assert_int_equal(symlinkat("target", t->dfd, "test_file.2"), 0);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "test_file.2 is a symbolic link");
    assert_int_equal(read_all(t->dfd, "target", buf, sizeof(buf)), 7);
    assert_memory_equal(buf, "keep me", 7);

    struct sbio_fileset fs;
    bool created;
    make_cfg(&cfg, t, "run", "--file-test-mode=rndwr");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "test_file.2");
    sbio_fileset_close(&fs);

    /* Cleanup removes the link, not what it points to. */
    make_cfg(&cfg, t, "cleanup");
    assert_int_equal(sbio_fileset_cleanup(TS(&cfg), stdout), 0);
    assert_false(exists(t->dfd, "test_file.2"));
    assert_int_equal(read_all(t->dfd, "target", buf, sizeof(buf)), 7);
    assert_int_equal(count_entries(t->path), 1);
}

static void test_prepare_reuse(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    struct stat before[4], after;
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof(name), "test_file.%d", i);
        assert_int_equal(fstatat(t->dfd, name, &before[i], 0), 0);
    }

    /* Again, without shape options and with another seed: the set is reused as it is. */
    make_cfg(&cfg, t, "prepare", "--rand-seed=99");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    struct sbio_fileset fs;
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_true(fs.complete);
    assert_int_equal(fs.nfiles, 4);
    assert_int_equal(fs.seed, 42);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(fstatat(t->dfd, fs.files[i].name, &after, 0), 0);
        assert_int_equal(after.st_ino, before[i].st_ino);
        assert_int_equal(after.st_mtim.tv_sec, before[i].st_mtim.tv_sec);
        assert_int_equal(after.st_mtim.tv_nsec, before[i].st_mtim.tv_nsec);
    }

    /* A shortened and a lengthened file are brought back to the same content. */
    char path[128];
    snprintf(path, sizeof(path), "%s/test_file.1", t->path);
    assert_int_equal(truncate(path, 5000), 0);
    snprintf(path, sizeof(path), "%s/test_file.3", t->path);
    assert_int_equal(truncate(path, 3 * SMALL_FILE), 0);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    assert_int_equal(size_of(t->dfd, "test_file.1"), SMALL_FILE);
    assert_int_equal(size_of(t->dfd, "test_file.3"), SMALL_FILE);
    assert_set_content(t->dfd, &fs);
    free(fs.files);

    /* An explicit shape that disagrees is refused, naming both values; nothing changes. */
    make_cfg(&cfg, t, "prepare", "--file-num=5");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "--file-num=5");
    assert_has(err, "has 4 files");
    make_cfg(&cfg, t, "prepare", "--file-total-size=1G");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "--file-total-size is 1 GiB");
    assert_has(err, "prepared with 65539 bytes"); /* not a whole KiB: in bytes */
    make_cfg(&cfg, t, "prepare", "--file-fill=zero");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "--file-fill");
    assert_int_equal(count_entries(t->path), 5);
    assert_false(exists(t->dfd, "test_file.4"));
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_true(fs.complete);
    assert_int_equal(fs.nfiles, 4);
    assert_set_content(t->dfd, &fs);
    free(fs.files);
}

static void test_prepare_zero_fill(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    static unsigned char buf[SMALL_FILE + 1], zero[SMALL_FILE];
    make_cfg(&cfg, t, "prepare", "--file-num=2", "--file-total-size=32K", "--file-fill=zero");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    assert_int_equal(read_all(t->dfd, "test_file.1", buf, sizeof(buf)), SMALL_FILE);
    assert_memory_equal(buf, zero, SMALL_FILE);
    struct sbio_fileset fs;
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_int_equal(fs.fill, SBIO_FILL_ZERO);
    assert_int_equal(fs.nfiles, 2);
    assert_int_equal(fs.files[0].size, SMALL_FILE);
    free(fs.files);
}

static void test_prepare_damaged_manifest(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    static const char text[] = "format=9\nfile_num=1\nfile.0=test_file.0 5\n";
    write_text(t->dfd, SBIO_MANIFEST, text);
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "damaged");
    make_cfg(&cfg, t, "cleanup");
    struct capture c;
    cap_begin(&c);
    int rc = sbio_fileset_cleanup(TS(&cfg), stdout);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "damaged (line 1: unknown format version), so sbio cannot tell which files are "
                    "the set's and touches none");
    struct sbio_fileset fs;
    bool created;
    make_cfg(&cfg, t, "run", "--file-test-mode=seqwr");
    assert_int_equal(open_set(&fs, &cfg, true, &created, err, sizeof(err)), -SBIO_EUSAGE);
    sbio_fileset_close(&fs);
    /* The manifest as it was, and nothing else. */
    char buf[128];
    assert_int_equal(read_all(t->dfd, SBIO_MANIFEST, buf, sizeof(buf)), sizeof(text) - 1);
    assert_memory_equal(buf, text, sizeof(text) - 1);
    assert_int_equal(count_entries(t->path), 1);
}

static void test_interrupted_prepare(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    /* As if SIGINT arrived before the first write: the manifest stays incomplete. */
    __atomic_store_n(&sbio_stop_signal, SIGINT, __ATOMIC_RELAXED);
    int rc = prepare(&cfg, err, sizeof(err));
    __atomic_store_n(&sbio_stop_signal, 0, __ATOMIC_RELAXED);
    assert_int_equal(rc, -EINTR);
    assert_has(err, "incomplete");
    struct sbio_fileset fs;
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_false(fs.complete);
    assert_int_equal(fs.nfiles, 4);
    free(fs.files);

    /* run refuses an incomplete set, seqwr included. */
    bool created = true;
    make_cfg(&cfg, t, "run", "--file-test-mode=seqrd");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "incomplete");
    assert_false(created);
    sbio_fileset_close(&fs);
    make_cfg(&cfg, t, "run", "--file-test-mode=seqwr");
    assert_int_equal(open_set(&fs, &cfg, true, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_false(created);
    sbio_fileset_close(&fs);

    /* prepare again finishes it, with the seed it started with. */
    make_cfg(&cfg, t, "prepare");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_true(fs.complete);
    assert_int_equal(fs.seed, 42);
    assert_set_content(t->dfd, &fs);
    free(fs.files);
    make_cfg(&cfg, t, "run", "--file-test-mode=seqrd");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), 0);
    sbio_fileset_close(&fs);

    /* The same refusal for a set marked incomplete later (seqwr truncating). */
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), 0);
    assert_int_equal(sbio_fileset_mark(&fs, false), 0);
    sbio_fileset_close(&fs);
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), -SBIO_EUSAGE);
    sbio_fileset_close(&fs);
}

static void test_open_checks(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    struct sbio_fileset fs;
    bool created = true;

    /* An empty folder: only seqwr may create a set. */
    make_cfg(&cfg, t, "run", "--file-test-mode=rndrd");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "prepare first");
    assert_false(created);
    sbio_fileset_close(&fs);
    assert_int_equal(count_entries(t->path), 0);

    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);

    /* An explicit --file-num that differs from the set's. */
    make_cfg(&cfg, t, "run", "--file-test-mode=rndrd", "--file-num=3");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "--file-num=3");
    sbio_fileset_close(&fs);

    /* A file of the wrong size, then a missing one. */
    char path[128];
    snprintf(path, sizeof(path), "%s/test_file.2", t->path);
    assert_int_equal(truncate(path, 100), 0);
    make_cfg(&cfg, t, "run", "--file-test-mode=rndrd");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "test_file.2 is 100 bytes");
    assert_has(err, "16384");
    sbio_fileset_close(&fs);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "test_file.2");
    sbio_fileset_close(&fs);

    /* No such folder. */
    struct sbio_config bad;
    sbio_options_defaults(&bad);
    bad.dir = "/nonexistent/sbio-test";
    assert_int_equal(open_set(&fs, &bad, true, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "/nonexistent/sbio-test");
    sbio_fileset_close(&fs);
}

static void test_open_seqwr_creates(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    struct sbio_fileset fs;
    bool created = false;
    make_cfg(&cfg, t, "run", "--file-test-mode=seqwr", "--file-num=3", "--file-total-size=30K",
             "--rand-seed=5");
    assert_int_equal(open_set(&fs, &cfg, true, &created, err, sizeof(err)), 0);
    assert_true(created);
    assert_true(fs.dirfd >= 0);
    assert_false(fs.complete);
    assert_int_equal(fs.nfiles, 3);
    assert_int_equal(fs.files[2].size, 10240);
    assert_int_equal(fs.seed, 5);
    sbio_fileset_close(&fs);
    /* Empty files and an incomplete manifest of the shape asked. */
    assert_int_equal(count_entries(t->path), 4);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof(name), "test_file.%d", i);
        assert_int_equal(size_of(t->dfd, name), 0);
    }
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_false(fs.complete);
    assert_int_equal(fs.nfiles, 3);
    assert_int_equal(fs.total_size, 30720);
    assert_int_equal(fs.files[0].size, 10240);
    assert_int_equal(fs.seed, 5);
    free(fs.files);

    /* Completing the set gives what prepare would have written. */
    assert_int_equal(open_set(&fs, &cfg, true, &created, err, sizeof(err)), -SBIO_EUSAGE);
    sbio_fileset_close(&fs);
    struct capture c;
    uint64_t written = 0;
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    fs.dirfd = t->dfd;
    fs.dir = t->path;
    cap_begin(&c);
    int rc = sbio_fileset_complete(&fs, &written);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_int_equal(written, 30720);
    assert_set_content(t->dfd, &fs);
    free(fs.files);
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_true(fs.complete);
    free(fs.files);
}

/* seqwr repair: a range written again (across write chunks, in a verified set: headers
 * and all) gets exactly the bytes prepare gave it; the bytes around it are not touched. */
static void test_write_range(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    const size_t size = 3 * 1024 * 1024 + 5 * 4096, off = 1024 * 1024 - 8192,
                 len = 1024 * 1024 + 12288;
    make_cfg(&cfg, t, "prepare", "--file-num=1", "--file-total-size=3166208", "--verify=on",
             "--file-block-size=4096", "--rand-seed=3");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    unsigned char *orig = malloc(size + 1), *got = malloc(size + 1), *junk = malloc(len + 4096);
    assert_non_null(orig);
    assert_non_null(got);
    assert_non_null(junk);
    assert_int_equal(read_all(t->dfd, "test_file.0", orig, size + 1), (ssize_t)size);
    memset(junk, 0xab, len + 4096);
    int fd = openat(t->dfd, "test_file.0", O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, junk, len + 4096, (off_t)(off - 4096)), (ssize_t)(len + 4096));
    close(fd);

    struct sbio_fileset fs;
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    fs.dirfd = t->dfd;
    fs.dir = t->path;
    struct capture c;
    cap_begin(&c);
    int rc = sbio_fileset_write_range(&fs, 0, off, len);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    assert_int_equal(read_all(t->dfd, "test_file.0", got, size + 1), (ssize_t)size);
    assert_memory_equal(got, orig, off - 4096);
    assert_memory_equal(got + off - 4096, junk, 4096);
    assert_memory_equal(got + off, orig + off, size - off);
    free(fs.files);
    free(orig);
    free(got);
    free(junk);
}

/* Completing a set resumes each file where its written data ends: at a hole below its size
 * (an interrupted run can leave one), not at its size. */
static void test_complete_from_hole(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX], path[128];
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/test_file.2", t->path);
    assert_int_equal(truncate(path, 8192), 0);
    assert_int_equal(truncate(path, SMALL_FILE), 0);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    off_t hole = lseek(fd, 0, SEEK_HOLE);
    close(fd);
    if (hole != 8192)
        skip(); /* a file system that reports no holes */

    struct sbio_fileset fs;
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    fs.dirfd = t->dfd;
    fs.dir = t->path;
    assert_int_equal(sbio_fileset_mark(&fs, false), 0);
    uint64_t written = 0;
    struct capture c;
    cap_begin(&c);
    int rc = sbio_fileset_complete(&fs, &written);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_int_equal(written, SMALL_FILE - 8192);
    assert_set_content(t->dfd, &fs);
    free(fs.files);
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_true(fs.complete);
    free(fs.files);
}

/* A set sysbench made: test_file.N of whole blocks and no manifest. run and prepare refuse
 * it with the advice to adopt it, prepare --adopt checks the count and sizes and writes only
 * the manifest; a verified run of an adopted set opens it unverified; cleanup counts what is there.
 */
static void test_adopt(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    struct sbio_fileset fs;
    char err[MSG_MAX], name[32], body[SMALL_FILE];
    bool created;
    char *out = NULL;
    for (unsigned i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "test_file.%u", i);
        memset(body, 'a' + (int)i, sizeof(body));
        int fd = openat(t->dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, body, sizeof(body)), (ssize_t)sizeof(body));
        close(fd);
    }
    write_text(t->dfd, "test_file.x", "not a set's name");
    unsigned n = 99;
    assert_int_equal(sbio_fileset_strays(t->dfd, &n), 0);
    assert_int_equal(n, 4);
    unlinkat(t->dfd, "test_file.x", 0);

    make_cfg(&cfg, t, "run", "--file-test-mode=rndrd", SMALL_SET);
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "prepare --adopt");
    sbio_fileset_close(&fs);
    make_cfg(&cfg, t, "prepare", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "prepare --adopt");
    make_cfg(&cfg, t, "prepare", "--adopt", "--file-num=5", "--file-total-size=81920");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "4 test_file.* files");
    make_cfg(&cfg, t, "prepare", "--adopt", "--file-num=4", "--file-total-size=1M");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), -SBIO_EUSAGE);
    assert_has(err, "256 KiB");
    assert_false(exists(t->dfd, SBIO_MANIFEST));

    make_cfg(&cfg, t, "prepare", "--adopt", SMALL_SET);
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    assert_int_equal(read_manifest(t->dfd, &fs, err, sizeof(err)), 0);
    assert_true(fs.complete && fs.adopted && !fs.verify);
    assert_int_equal(fs.files[3].size, SMALL_FILE);
    free(fs.files);
    memset(body, 'c', sizeof(body));
    char got[SMALL_FILE + 1];
    assert_int_equal(read_all(t->dfd, "test_file.2", got, sizeof(got)), SMALL_FILE);
    assert_memory_equal(got, body, SMALL_FILE);

    /* --verify opens it too: the runner then checks only the blocks the run writes. */
    make_cfg(&cfg, t, "run", "--file-test-mode=rndrd", "--verify");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), 0);
    assert_false(fs.verify);
    sbio_fileset_close(&fs);
    make_cfg(&cfg, t, "run", "--file-test-mode=rndrd");
    assert_int_equal(open_set(&fs, &cfg, false, &created, err, sizeof(err)), 0);
    sbio_fileset_close(&fs);

    unlinkat(t->dfd, "test_file.1", 0);
    make_cfg(&cfg, t, "cleanup");
    assert_int_equal(set_cmd_to(&cfg, &out, err, sizeof(err)), 0);
    char want[512];
    snprintf(want, sizeof(want),
             "Removing 3 test files from %s (1 of the set's 4 was already gone)\n", t->path);
    assert_string_equal(out, want);
    free(out);
    assert_int_equal(count_entries(t->path), 0);
}

/* As sysbench writes whole blocks: 100 KiB in 3 files of 16 KiB blocks is 3 x 48 KiB. */
static void test_prepare_whole_blocks(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    char err[MSG_MAX];
    make_cfg(&cfg, t, "prepare", "--file-num=3", "--file-total-size=100K");
    assert_int_equal(prepare(&cfg, err, sizeof(err)), 0);
    for (unsigned i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof(name), "test_file.%u", i);
        assert_int_equal(size_of(t->dfd, name), 49152);
    }
}

/* A manifest or a file another user owns is never trusted; root's and one's own are. */
static void test_trusted(void **state)
{
    struct tdir *t = *state;
    struct stat st = {.st_uid = geteuid(), .st_mode = S_IFREG | 0644};
    char err[MSG_MAX];
    struct capture c;
    assert_int_equal(sbio_manifest_trusted(t->path, "x", &st), 0);
    st.st_uid = 0;
    assert_int_equal(sbio_manifest_trusted(t->path, "x", &st), 0);
    st.st_uid = 54321;
    cap_begin(&c);
    int rc = sbio_manifest_trusted(t->path, "x", &st);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "/x belongs to uid 54321, not to you");
    if (geteuid() != 0)
        skip(); /* giving a manifest to another user needs root */
    write_text(t->dfd, SBIO_MANIFEST, "format=1\nfile_num=1\nfile.0=a 1\n");
    assert_int_equal(fchownat(t->dfd, SBIO_MANIFEST, 54321, 54321, 0), 0);
    struct sbio_fileset r;
    assert_int_equal(read_manifest(t->dfd, &r, err, sizeof(err)), -EPERM);
    assert_null(r.files);
    assert_has(err, "sbio.manifest belongs to uid 54321, not to you");
    assert_has(err, t->path); /* the folder, found from the descriptor */
}

/* The set's lock: held exclusively by another descriptor, refused naming the holder; shared
 * locks (readers) go side by side, an exclusive one (a writer) not beside them. */
static void test_lock(void **state)
{
    struct tdir *t = *state;
    struct sbio_config rd, wr;
    char err[MSG_MAX], want[64];
    struct capture c;
    make_cfg(&rd, t, "run", "--file-test-mode=rndrd");
    make_cfg(&wr, t, "run", "--file-test-mode=rndwr");
    int other = open(t->path, O_RDONLY | O_DIRECTORY);
    assert_true(other >= 0);
    assert_int_equal(flock(other, LOCK_EX), 0);
    int fd = -1;
    cap_begin(&c);
    int rc = sbio_fileset_lock(TS(&rd), NULL, &fd);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EFAILED);
    assert_int_equal(fd, -1);
    snprintf(want, sizeof(want), "is in use (pid %d: ", (int)getpid());
    assert_has(err, want);
    close(other);
    int fd2 = -1;
    assert_int_equal(sbio_fileset_lock(TS(&rd), NULL, &fd), 0);
    assert_int_equal(sbio_fileset_lock(TS(&rd), NULL, &fd2), 0);
    assert_true(fd >= 0 && fd2 >= 0);
    cap_begin(&c);
    rc = sbio_fileset_lock(TS(&wr), NULL, &other);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EFAILED);
    close(fd);
    close(fd2);
    assert_int_equal(sbio_fileset_lock(TS(&wr), NULL, &fd), 0);
    close(fd);
    /* No folder: nothing to lock, the command says so itself. */
    wr.dir = "/nonexistent/sbio";
    assert_int_equal(sbio_fileset_lock(TS(&wr), NULL, &fd), 0);
    assert_int_equal(fd, -1);
}

/* The set's sizes in words: sysbench's "N files, X each" for one size, each size counted
 * otherwise (in the files' order), a range past four sizes. */
static void test_sizes_str(void **state)
{
    (void)state;
    struct sbio_fileset_file f[9];
    struct sbio_fileset fs = {.files = f, .nfiles = 9};
    char buf[160];
    for (unsigned i = 0; i < 9; i++)
        f[i].size = 32 << 20;
    sbio_fileset_sizes_str(&fs, buf, sizeof(buf));
    assert_string_equal(buf, "9 files, 32 MiB each");
    f[8].size = 64 << 20;
    sbio_fileset_sizes_str(&fs, buf, sizeof(buf));
    assert_string_equal(buf, "9 files: 8 of 32 MiB, 1 of 64 MiB");
    f[0].size = 4096;
    f[1].size = 1 << 20;
    sbio_fileset_sizes_str(&fs, buf, sizeof(buf));
    assert_string_equal(buf, "9 files: 1 of 4 KiB, 1 of 1 MiB, 6 of 32 MiB, 1 of 64 MiB");
    f[2].size = 1 << 30;
    sbio_fileset_sizes_str(&fs, buf, sizeof(buf));
    assert_string_equal(buf, "9 files of 4 KiB to 1 GiB");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_dir, teardown_dir)
    const struct CMUnitTest tests[] = {
        T(test_shape),
        T(test_manifest_roundtrip),
        T(test_manifest_defaults),
        T(test_manifest_damaged),
        T(test_manifest_missing),
        T(test_check_shape),
        T(test_fill_deterministic),
        T(test_fill_unaligned),
        T(test_fill_zero_and_compressible),
        T(test_fill_pieces),
        T(test_fill_four_chains),
        T(test_prepare_output),
        T(test_prepare_open_cleanup),
        T(test_prepare_many_chunks),
        T(test_prepare_foreign_file),
        T(test_prepare_symlink),
        T(test_prepare_reuse),
        T(test_prepare_zero_fill),
        T(test_prepare_damaged_manifest),
        T(test_interrupted_prepare),
        T(test_open_checks),
        T(test_open_seqwr_creates),
        T(test_write_range),
        T(test_complete_from_hole),
        T(test_adopt),
        T(test_prepare_whole_blocks),
        T(test_trusted),
        T(test_lock),
        T(test_sizes_str),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
