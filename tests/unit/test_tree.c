/* Unit tests for file trees: the layout rule and sizes (src/fs/tree.c), the tree's manifest
 * (src/fs/manifest.c), and prepare, a run's open (its repair) and cleanup (src/fs/tree_io.c) on
 * real temporary folders under /tmp, checked by looking at the files afterwards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "manifest.h"
#include "script.h"
#include "tree.h"
#include "tree_io.h"
#include "util.h"

static struct sbio_tree_decl decl(uint64_t files, uint64_t width, int law, uint64_t a, uint64_t b,
                                  double p, double prealloc)
{
    return (struct sbio_tree_decl){.set = true,
                                   .files = files,
                                   .dirwidth = width,
                                   .size = {.law = law, .a = a, .b = b, .p = p},
                                   .prealloc = prealloc,
                                   .line = 7};
}

static void shape(struct sbio_tree *t, uint64_t files, uint64_t width)
{
    struct sbio_tree_decl d = decl(files, width, SBIO_SIZE_FIXED, 4096, 4096, 0, 1);
    assert_int_equal(sbio_tree_shape(t, &d, "/tmp", 1, "t.lua"), 0);
}

static void assert_path(const struct sbio_tree *t, uint64_t s, const char *want)
{
    char buf[PATH_MAX];
    int n = sbio_tree_path(t, s, buf, sizeof(buf));
    assert_int_equal(n, (int)strlen(want));
    assert_string_equal(buf, want);
}

/* The header's example, W >= N (one leaf: sbio.tree itself), N not a multiple of W, and a
 * leaf count one past a power of W (one more level). */
static void test_paths(void **state)
{
    (void)state;
    struct sbio_tree t;
    shape(&t, 10000, 20);
    assert_int_equal(t.leaves, 500);
    assert_int_equal(t.depth, 3);
    assert_path(&t, 1234, "d0/d3/d1/f1234");
    assert_path(&t, 9999, "d1/d4/d19/f9999");
    shape(&t, 10, 20);
    assert_int_equal(t.depth, 0);
    assert_path(&t, 7, "f7");
    shape(&t, 10, 10);
    assert_int_equal(t.depth, 0);
    assert_int_equal(t.leaves, 1);
    shape(&t, 21, 10);
    assert_int_equal(t.leaves, 3);
    assert_int_equal(t.depth, 1);
    assert_path(&t, 20, "d2/f20");
    shape(&t, 100, 10);
    assert_int_equal(t.depth, 1);
    shape(&t, 101, 10);
    assert_int_equal(t.depth, 2);
    assert_path(&t, 100, "d1/d0/f100");
    assert_path(&t, 99, "d0/d9/f99");
    char small[4];
    assert_int_equal(sbio_tree_path(&t, 100, small, sizeof(small)), -ENAMETOOLONG);
}

/* Every leaf of an odd shape has its own path of depth digits below W, and every slot sits
 * in its leaf. */
static void test_paths_distinct(void **state)
{
    (void)state;
    struct sbio_tree t;
    shape(&t, 1000, 7); /* 143 leaves: 7^3 = 343 >= 143 > 49 */
    assert_int_equal(t.depth, 3);
    char(*leaf)[32] = calloc(t.leaves, 32);
    assert_non_null(leaf);
    for (uint64_t l = 0; l < t.leaves; l++) {
        assert_true(sbio_tree_leaf_path(&t, l, leaf[l], 32) > 0);
        unsigned digits = 0, d;
        for (const char *p = leaf[l]; p; p = strchr(p, '/'), p = p ? p + 1 : NULL) {
            assert_int_equal(sscanf(p, "d%u", &d), 1);
            assert_true(d < 7);
            digits++;
        }
        assert_int_equal(digits, 3);
        for (uint64_t k = 0; k < l; k++)
            assert_string_not_equal(leaf[k], leaf[l]);
    }
    for (uint64_t s = 0; s < t.files; s++) {
        char p[64], want[64];
        sbio_tree_path(&t, s, p, sizeof(p));
        snprintf(want, sizeof(want), "%s/f%" PRIu64, leaf[s / 7], s);
        assert_string_equal(p, want);
    }
    free(leaf);
}

/* A folder too long for the tree's deepest path is refused, naming the script's line. */
static void test_path_max(void **state)
{
    (void)state;
    char dir[PATH_MAX], err[MSG_MAX];
    memset(dir, 'a', sizeof(dir));
    dir[0] = '/';
    dir[PATH_MAX - 40] = '\0';
    struct sbio_tree t;
    struct sbio_tree_decl d = decl(1000000, 2, SBIO_SIZE_FIXED, 1, 1, 0, 1);
    struct capture c;
    cap_begin(&c);
    int rc = sbio_tree_shape(&t, &d, dir, 1, "deep.lua");
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "deep.lua:7: fileset");
    assert_has(err, "PATH_MAX");
    d.dirwidth = 1000; /* two levels: fits */
    assert_int_equal(sbio_tree_shape(&t, &d, dir, 1, "deep.lua"), 0);
}

/* mean and coefficient of variation of n slots' sizes under t. */
static void size_stats(const struct sbio_tree *t, uint64_t n, double *mean, double *cv,
                       uint64_t *lo, uint64_t *hi)
{
    double sum = 0, sq = 0;
    *lo = UINT64_MAX;
    *hi = 0;
    for (uint64_t s = 0; s < n; s++) {
        uint64_t v = sbio_tree_size(t, s);
        sum += (double)v;
        sq += (double)v * (double)v;
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
    }
    *mean = sum / (double)n;
    *cv = sqrt(sq / (double)n - *mean * *mean) / *mean;
}

static void law(struct sbio_tree *t, int l, uint64_t a, uint64_t b, double p, uint64_t seed)
{
    struct sbio_tree_decl d = decl(100000, 20, l, a, b, p, 1);
    assert_int_equal(sbio_tree_shape(t, &d, "/tmp", seed, "t.lua"), 0);
}

static void test_sizes(void **state)
{
    (void)state;
    struct sbio_tree t;
    double mean, cv;
    uint64_t lo, hi, n = 100000;
    law(&t, SBIO_SIZE_FIXED, 16384, 16384, 0, 3);
    size_stats(&t, n, &mean, &cv, &lo, &hi);
    assert_int_equal(lo, 16384);
    assert_int_equal(hi, 16384);
    law(&t, SBIO_SIZE_UNIFORM, 4096, 65536, 0, 3);
    size_stats(&t, n, &mean, &cv, &lo, &hi);
    assert_true(lo >= 4096 && hi <= 65536);
    assert_true(lo < 4200 && hi > 65400); /* the whole range is drawn */
    assert_true(fabs(mean / 34816.0 - 1) < 0.02);
    law(&t, SBIO_SIZE_LOGNORMAL, 16384, 16384, 0.5, 3);
    size_stats(&t, n, &mean, &cv, &lo, &hi);
    assert_true(fabs(mean / 16384.0 - 1) < 0.02);
    assert_true(fabs(cv / sqrt(exp(0.25) - 1) - 1) < 0.05);
    double cvars[] = {0.5, 1.5};
    for (int i = 0; i < 2; i++) {
        law(&t, SBIO_SIZE_GAMMA, 131072, 131072, cvars[i], 3);
        size_stats(&t, n, &mean, &cv, &lo, &hi);
        if (fabs(mean / 131072.0 - 1) >= 0.02 || fabs(cv / cvars[i] - 1) >= 0.05)
            fail_msg("gamma cvar %g: mean %.0f, cv %.3f", cvars[i], mean, cv);
        assert_true(lo >= 1);
    }
}

/* A slot's size is the same for the same seed, whatever else was drawn; another seed gives
 * other sizes. */
static void test_sizes_deterministic(void **state)
{
    (void)state;
    struct sbio_tree a, b;
    law(&a, SBIO_SIZE_GAMMA, 16384, 16384, 1.5, 42);
    law(&b, SBIO_SIZE_GAMMA, 16384, 16384, 1.5, 42);
    unsigned differ = 0;
    for (uint64_t s = 99999; s + 1 > 0; s--)
        assert_int_equal(sbio_tree_size(&a, s), sbio_tree_size(&b, s));
    law(&b, SBIO_SIZE_GAMMA, 16384, 16384, 1.5, 43);
    for (uint64_t s = 0; s < 1000; s++)
        differ += sbio_tree_size(&a, s) != sbio_tree_size(&b, s);
    assert_true(differ > 990);
}

/* The prelude's tree fileset reaches C whole: the rule, the law's parameters, the line. */
static void test_declaration(void **state)
{
    (void)state;
    char dir[64], path[128], err[512];
    assert_int_equal(tmpdir_make(dir, sizeof(dir), "/tmp", "treedecl"), 0);
    snprintf(path, sizeof(path), "%s/t.lua", dir);
    write_file(path, "-- a tree\n"
                     "fileset { files = 2000, dirwidth = 10, prealloc = 0.25,\n"
                     "          size = { law = \"gamma\", mean = \"16k\", cvar = 1.5 } }\n"
                     "phase \"p\" { time = 1, job \"j\" { block = \"4k\" } }\n");
    struct sbio_script sc;
    assert_int_equal(sbio_script_load(path, NULL, NULL, 0, false, &sc, err, sizeof(err)), 0);
    assert_true(sc.tree.set);
    assert_int_equal(sc.nfiles, 0); /* the flat set's paths are not taken */
    assert_int_equal(sc.tree.files, 2000);
    assert_int_equal(sc.tree.dirwidth, 10);
    assert_true(sc.tree.prealloc == 0.25);
    assert_int_equal(sc.tree.size.law, SBIO_SIZE_GAMMA);
    assert_int_equal(sc.tree.size.a, 16384);
    assert_true(sc.tree.size.p == 1.5);
    assert_int_equal(sc.tree.line, 2);
    sbio_script_free(&sc);
    write_file(path, "fileset { files = 9, dirwidth = 3, size = { law = \"uniform\", min = 1, "
                     "max = \"2k\" } }\nphase \"p\" { job \"j\" { } }\n");
    assert_int_equal(sbio_script_load(path, NULL, NULL, 0, false, &sc, err, sizeof(err)), 0);
    assert_int_equal(sc.tree.size.law, SBIO_SIZE_UNIFORM);
    assert_int_equal(sc.tree.size.a, 1);
    assert_int_equal(sc.tree.size.b, 2048);
    assert_true(sc.tree.prealloc == 1); /* the default */
    sbio_script_free(&sc);
    write_file(path, "fileset { files = 4, size = \"4M\" }\nphase \"p\" { job \"j\" { } }\n");
    assert_int_equal(sbio_script_load(path, NULL, NULL, 0, false, &sc, err, sizeof(err)), 0);
    assert_false(sc.tree.set);
    assert_int_equal(sc.nfiles, 4);
    sbio_script_free(&sc);
    assert_int_equal(tmpdir_remove(dir), 0);
}

/* ---- on disk ---- */

static int setup_dir(void **state)
{
    return tdir_setup(state, "tree");
}

static int teardown_dir(void **state)
{
    return tdir_teardown(state);
}

static void make_cfg(struct sbio_config *cfg, struct tdir *t, const char *cmd)
{
    char err[MSG_MAX];
    if (parse_args(cfg, ARGV((char *)cmd, t->dirarg), err, sizeof(err)))
        fail_msg("parse: %s", err);
    cfg->script = "t.lua";
}

static void test_manifest_roundtrip(void **state)
{
    struct tdir *t = *state;
    struct sbio_manifest_tree m = {.complete = true, .seed = 12345}, r;
    m.decl = decl(2000, 10, SBIO_SIZE_LOGNORMAL, 16384, 16384, 0.1, 0.3);
    assert_int_equal(sbio_manifest_write_tree(t->dfd, &m), 0);
    assert_int_equal(sbio_manifest_read_tree(t->dfd, &r), 0);
    assert_true(r.complete);
    assert_int_equal(r.seed, 12345);
    assert_int_equal(r.decl.files, 2000);
    assert_int_equal(r.decl.dirwidth, 10);
    assert_int_equal(r.decl.size.law, SBIO_SIZE_LOGNORMAL);
    assert_int_equal(r.decl.size.a, 16384);
    assert_true(r.decl.size.p == 0.1); /* to the bit */
    assert_true(r.decl.prealloc == 0.3);
    /* A flat reader knows it is a tree's, and says nothing. */
    struct sbio_fileset fs;
    char err[MSG_MAX];
    struct capture c;
    cap_begin(&c);
    assert_int_equal(sbio_manifest_read(t->dfd, &fs), -EMEDIUMTYPE);
    cap_end(&c, err, sizeof(err));
    assert_string_equal(err, "");
    /* And a tree's reader knows a flat set's, or a damaged one. */
    int fd = openat(t->dfd, SBIO_MANIFEST, O_WRONLY | O_TRUNC);
    dprintf(fd, "format=1\nstate=complete\nfile_num=1\nfile.0=test_file.0 4096\n");
    close(fd);
    assert_int_equal(sbio_manifest_read_tree(t->dfd, &r), -EMEDIUMTYPE);
    fd = openat(t->dfd, SBIO_MANIFEST, O_WRONLY | O_TRUNC);
    dprintf(fd, "format=1\nset=tree\ntree.files=0\n");
    close(fd);
    cap_begin(&c);
    assert_int_equal(sbio_manifest_read_tree(t->dfd, &r), -EBADMSG);
    cap_end(&c, err, sizeof(err));
    assert_string_equal(err, ""); /* the caller says it, in one line */
    assert_string_equal(r.damage, "line 3: bad tree.files");
}

/* Slot s's file in the tree under dir, stat'ed: 0 or -errno. */
static int slot_stat(const struct tdir *t, const struct sbio_tree *tr, uint64_t s, struct stat *st)
{
    char rel[PATH_MAX], path[PATH_MAX + 128];
    sbio_tree_path(tr, s, rel, sizeof(rel));
    snprintf(path, sizeof(path), "%s/%s/%s", t->path, SBIO_TREE_ROOT, rel);
    return lstat(path, st) ? -errno : 0;
}

/* Every slot as prepare leaves it: the first prealloc_files with their sizes, no others. */
static void assert_prepared(const struct tdir *t, const struct sbio_tree *tr)
{
    for (uint64_t s = 0; s < tr->files; s++) {
        struct stat st;
        int rc = slot_stat(t, tr, s, &st);
        if (s < tr->prealloc_files && (rc || (uint64_t)st.st_size != sbio_tree_size(tr, s)))
            fail_msg("slot %" PRIu64 ": %d, %lld bytes, want %" PRIu64, s, rc,
                     (long long)st.st_size, sbio_tree_size(tr, s));
        if (s >= tr->prealloc_files && rc != -ENOENT)
            fail_msg("slot %" PRIu64 " is there, prepare leaves it free", s);
    }
}

static void sh(const char *fmt, const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), fmt, dir, dir, dir);
    if (system(cmd))
        fail_msg("%s failed", cmd);
}

/* prepare, then what runs do (files removed, made in free slots, grown, an m… folder), then
 * a run's open puts it back and says so; cleanup leaves the folder empty. */
static void test_prepare_open_cleanup(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    make_cfg(&cfg, t, "prepare");
    struct sbio_tree_decl d = decl(300, 10, SBIO_SIZE_UNIFORM, 1, 9000, 0, 0.5);
    char out[MSG_MAX];
    struct capture c;
    cap_begin_fd(&c, STDOUT_FILENO);
    int rc = sbio_tree_prepare(TS(&cfg), &d, stdout);
    fflush(stdout);
    cap_end(&c, out, sizeof(out));
    assert_int_equal(rc, 0);
    assert_has(out, "300 slots in 34 folders"); /* 30 leaves, 3 above them, sbio.tree */
    assert_has(out, "150 files (prealloc 0.5), 150 made now");
    struct sbio_tree tr;
    make_cfg(&cfg, t, "run");
    cap_begin_fd(&c, STDOUT_FILENO);
    rc = sbio_tree_open(&tr, TS(&cfg), &d, "t.lua", stdout);
    fflush(stdout);
    cap_end(&c, out, sizeof(out));
    assert_int_equal(rc, 0);
    assert_string_equal(out, ""); /* nothing to repair */
    assert_prepared(t, &tr);
    sbio_tree_close(&tr);
    sh("rm %s/sbio.tree/d0/d0/f1 && echo x >%s/sbio.tree/d2/d9/f299 && "
       "echo more >>%s/sbio.tree/d0/d0/f2",
       t->path);
    sh("mkdir %s/sbio.tree/d0/d1/m1_0_0", t->path);
    cap_begin_fd(&c, STDOUT_FILENO);
    rc = sbio_tree_open(&tr, TS(&cfg), &d, "t.lua", stdout);
    fflush(stdout);
    cap_end(&c, out, sizeof(out));
    assert_int_equal(rc, 0);
    assert_has(out, "1 file made again, 1 resized, 1 removed, 0 folders made, 1 of a run's");
    assert_prepared(t, &tr);
    for (uint64_t s = 0; s < tr.files; s++)
        assert_int_equal(tr.cur_size[s], s < 150 ? sbio_tree_size(&tr, s) : SBIO_TREE_NONE);
    assert_int_equal(sbio_tree_scan(&tr), 0);
    sbio_tree_close(&tr);
    make_cfg(&cfg, t, "cleanup");
    cap_begin_fd(&c, STDOUT_FILENO);
    rc = sbio_tree_cleanup(TS(&cfg), stdout);
    fflush(stdout);
    cap_end(&c, out, sizeof(out));
    assert_int_equal(rc, 0);
    assert_has(out, "150 files, 34 folders");
    struct stat st;
    assert_int_equal(fstatat(t->dfd, SBIO_TREE_ROOT, &st, AT_SYMLINK_NOFOLLOW), -1);
    assert_int_equal(fstatat(t->dfd, SBIO_MANIFEST, &st, AT_SYMLINK_NOFOLLOW), -1);
}

/* A symlink or a foreign file in the tree stops a run's open and cleanup, nothing touched;
 * another declaration is refused by the open and by prepare. */
static void test_foreign(void **state)
{
    struct tdir *t = *state;
    struct sbio_config cfg;
    make_cfg(&cfg, t, "prepare");
    struct sbio_tree_decl d = decl(50, 10, SBIO_SIZE_FIXED, 100, 100, 0, 1);
    char out[MSG_MAX], err[MSG_MAX];
    struct capture c;
    cap_begin_fd(&c, STDOUT_FILENO);
    assert_int_equal(sbio_tree_prepare(TS(&cfg), &d, stdout), 0);
    fflush(stdout);
    cap_end(&c, out, sizeof(out));
    sh("ln -s /etc %s/sbio.tree/d1/f5 && rm %s/sbio.tree/d0/f3", t->path);
    struct sbio_tree tr;
    make_cfg(&cfg, t, "run");
    cap_begin(&c);
    int rc = sbio_tree_open(&tr, TS(&cfg), &d, "t.lua", stdout);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "sbio.tree/d1/f5 is a symlink");
    struct stat st;
    assert_int_equal(slot_stat(t, &tr, 3, &st), -ENOENT); /* not repaired */
    make_cfg(&cfg, t, "cleanup");
    cap_begin(&c);
    rc = sbio_tree_cleanup(TS(&cfg), stdout);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_int_equal(slot_stat(t, &tr, 4, &st), 0); /* not removed */
    sh("rm %s/sbio.tree/d1/f5", t->path);
    struct sbio_tree_decl other = decl(50, 10, SBIO_SIZE_FIXED, 200, 200, 0, 1);
    make_cfg(&cfg, t, "run");
    cap_begin(&c);
    rc = sbio_tree_open(&tr, TS(&cfg), &other, "t.lua", stdout);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "t.lua:7: the tree in");
    assert_has(err, "size 100 B each");
    make_cfg(&cfg, t, "prepare");
    cap_begin(&c);
    rc = sbio_tree_prepare(TS(&cfg), &other, stdout);
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(err, "holds another tree");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_dir, teardown_dir)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_paths_distinct),
        cmocka_unit_test(test_path_max),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_sizes_deterministic),
        cmocka_unit_test(test_declaration),
        T(test_manifest_roundtrip),
        T(test_prepare_open_cleanup),
        T(test_foreign),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
