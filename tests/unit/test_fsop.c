/* A tree job's threads (src/core/fsop.c): the choice of a file stays within the thread's own
 * slots, the existing/free lists stay right through creates, unlinks and renames, draws that
 * cannot be served are skipped, and each operation does on a real temporary tree what it
 * says (files appear, disappear, grow; cur_size follows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsop.h"
#include "helpers.h"
#include "job.h"
#include "mix.h"
#include "tree.h"
#include "util.h"
#include "workload.h"

#define FILES 40
#define WIDTH 4
#define FSIZE 5000

struct fixture {
    char dir[PATH_MAX];
    struct sbio_tree tree;
    struct sbio_script_job job;
    struct sbio_mix mix;
    struct sbio_fsop f;
    char buf[65536];
    struct sbio_io io;
    uint64_t rng;
};

static void fx_job(struct fixture *x, int pattern, double a)
{
    memset(&x->job, 0, sizeof(x->job));
    x->job.weight[SBIO_MIX_STAT] = 1;
    x->job.nblocks = 1;
    x->job.block[0] = 4096;
    x->job.block_weight[0] = 1;
    x->job.nappend = 1;
    x->job.append[0] = 1000;
    x->job.append_weight[0] = 1;
    x->job.pattern = pattern;
    x->job.pa = a;
    sbio_mix_init(&x->mix, &x->job, FILES);
}

/* A tree of FILES slots, WIDTH per folder, prealloc of them made on disk (disk: false
 * leaves the disk alone: choice only). */
static void fx_tree(struct fixture *x, double prealloc, bool disk)
{
    struct sbio_tree_decl d = {.set = true,
                               .files = FILES,
                               .dirwidth = WIDTH,
                               .size = {.law = SBIO_SIZE_FIXED, .a = FSIZE},
                               .prealloc = prealloc,
                               .line = 1};
    assert_int_equal(sbio_tree_shape(&x->tree, &d, x->dir, 7, "t.lua"), 0);
    x->tree.cur_size = malloc(FILES * sizeof(uint64_t));
    assert_non_null(x->tree.cur_size);
    for (uint64_t s = 0; s < FILES; s++)
        x->tree.cur_size[s] = s < x->tree.prealloc_files ? FSIZE : SBIO_TREE_NONE;
    if (!disk)
        return;
    char p[PATH_MAX * 2], q[PATH_MAX * 4];
    snprintf(p, sizeof(p), "%s/%s", x->dir, SBIO_TREE_ROOT);
    assert_int_equal(mkdir(p, 0755), 0);
    x->tree.rootfd = open(p, O_RDONLY | O_DIRECTORY);
    assert_true(x->tree.rootfd >= 0);
    for (uint64_t l = 0; l < x->tree.leaves; l++) {
        sbio_tree_leaf_path(&x->tree, l, p, sizeof(p));
        for (char *c = p; *c; c++)
            if (*c == '/') {
                *c = 0;
                mkdirat(x->tree.rootfd, p, 0755);
                *c = '/';
            }
        mkdirat(x->tree.rootfd, p, 0755);
    }
    memset(x->buf, 'x', sizeof(x->buf));
    for (uint64_t s = 0; s < x->tree.prealloc_files; s++) {
        sbio_tree_path(&x->tree, s, p, sizeof(p));
        snprintf(q, sizeof(q), "%s/%s/%s", x->dir, SBIO_TREE_ROOT, p);
        int fd = open(q, O_CREAT | O_WRONLY, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, x->buf, FSIZE), FSIZE);
        close(fd);
    }
}

static int setup(void **state)
{
    struct fixture *x = calloc(1, sizeof(*x));
    if (!x || tmpdir_make(x->dir, sizeof(x->dir), "/tmp", "fsop"))
        return -1;
    x->tree.rootfd = -1;
    x->f.cur_fd = -1;
    x->rng = 42;
    x->io.buf = x->buf;
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *x = *state;
    sbio_fsop_fini(&x->f);
    if (x->tree.rootfd >= 0)
        close(x->tree.rootfd);
    free(x->tree.cur_size);
    tmpdir_remove(x->dir);
    free(x);
    return 0;
}

/* Size of slot s on disk, or -1 when it has no file. */
static long long disk_size(const struct fixture *x, uint64_t s)
{
    char p[PATH_MAX];
    struct stat st;
    sbio_tree_path(&x->tree, s, p, sizeof(p));
    return fstatat(x->tree.rootfd, p, &st, AT_SYMLINK_NOFOLLOW) ? -1 : (long long)st.st_size;
}

/* Pick mop and run it through the tree engine; returns io.res (-1000: skipped). */
static int64_t run_op(struct fixture *x, enum sbio_mix_op mop)
{
    if (!sbio_fsop_pick(&x->f, mop, &x->rng, &x->io))
        return -1000;
    void *priv;
    struct sbio_engine_params params = {.thread_state = &x->f};
    sbio_engine_fstree.init(&priv, &params);
    assert_int_equal(sbio_engine_fstree.queue(priv, NULL, &x->io), SBIO_Q_DONE);
    return x->io.res;
}

/* The thread's lists against cur_size: every own rank in one list, at its position. */
static void check_lists(const struct fixture *x)
{
    const struct sbio_fsop *f = &x->f;
    uint64_t exist = 0;
    for (uint64_t r = 0; r < f->m; r++) {
        assert_int_equal(f->rank[f->pos[r]], r);
        bool e = x->tree.cur_size[sbio_fsop_slot(f, r)] != SBIO_TREE_NONE;
        assert_int_equal(f->pos[r] < f->nexist, e);
        exist += e;
    }
    assert_int_equal(exist, f->nexist);
}

/* Thread 1 of 3 chooses only its own slots (s % 3 == 1), whatever the pattern and op. */
static void test_choice_own_slots(void **state)
{
    struct fixture *x = *state;
    const int pats[] = {SBIO_PAT_UNIFORM, SBIO_PAT_ZIPF, SBIO_PAT_SEQ, SBIO_PAT_HOT};
    for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
        fx_job(x, pats[p], pats[p] == SBIO_PAT_ZIPF ? 1.2 : 0.2);
        x->job.pb = 0.8;
        sbio_mix_init(&x->mix, &x->job, FILES);
        free(x->tree.cur_size);
        fx_tree(x, 0.5, false);
        assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 1, 3, 0, 0), 0);
        assert_int_equal(x->f.m, 13); /* slots 1, 4, …, 37 */
        const enum sbio_mix_op ops[] = {SBIO_MIX_STAT, SBIO_MIX_CREATE, SBIO_MIX_RENAME};
        for (int i = 0; i < 3000; i++) {
            assert_int_equal(sbio_fsop_pick(&x->f, ops[i % 3], &x->rng, &x->io), 1);
            assert_int_equal(x->io.file % 3, 1);
            bool want_free = ops[i % 3] == SBIO_MIX_CREATE;
            assert_int_equal(x->tree.cur_size[x->io.file] == SBIO_TREE_NONE, want_free);
            if (ops[i % 3] == SBIO_MIX_RENAME) {
                assert_int_equal(x->io.offset % 3, 1);
                assert_int_equal(x->tree.cur_size[x->io.offset], SBIO_TREE_NONE);
            }
        }
        check_lists(x);
        sbio_fsop_fini(&x->f);
    }
}

/* seq walks the existing slots in order and creates in the free ones in order. */
static void test_seq_order(void **state)
{
    struct fixture *x = *state;
    fx_job(x, SBIO_PAT_SEQ, 0);
    fx_tree(x, 0.5, false);
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, 2, 0, 0), 0);
    /* Thread 0 of 2: slots 0, 2, …; the existing ones 0 .. 18, the free ones 20 .. 38. */
    for (uint64_t k = 0; k < 25; k++) {
        assert_int_equal(sbio_fsop_pick(&x->f, SBIO_MIX_STAT, &x->rng, &x->io), 1);
        assert_int_equal(x->io.file, (k % 10) * 2);
    }
    for (uint64_t k = 0; k < 10; k++) {
        assert_int_equal(sbio_fsop_pick(&x->f, SBIO_MIX_CREATE, &x->rng, &x->io), 1);
        assert_int_equal(x->io.file, 20 + k * 2);
    }
}

/* Draws that cannot be served are skipped: no file, no free slot, no current file. */
static void test_skip(void **state)
{
    struct fixture *x = *state;
    fx_job(x, SBIO_PAT_UNIFORM, 0);
    fx_tree(x, 0, false);
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, 1, 0, 0), 0);
    const enum sbio_mix_op none[] = {SBIO_MIX_STAT,      SBIO_MIX_UNLINK,   SBIO_MIX_OPEN,
                                     SBIO_MIX_READWHOLE, SBIO_MIX_APPEND,   SBIO_MIX_READ,
                                     SBIO_MIX_WRITE,     SBIO_MIX_RENAME,   SBIO_MIX_CLOSE,
                                     SBIO_MIX_FSYNC,     SBIO_MIX_FDATASYNC};
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
        assert_int_equal(sbio_fsop_pick(&x->f, none[i], &x->rng, &x->io), 0);
    assert_int_equal(sbio_fsop_pick(&x->f, SBIO_MIX_CREATE, &x->rng, &x->io), 1);
    assert_int_equal(sbio_fsop_pick(&x->f, SBIO_MIX_MKDIR, &x->rng, &x->io), 1);
    assert_true(x->io.offset < x->tree.leaves);
    char why[160];
    assert_has(sbio_fsop_skip_why(&x->f, SBIO_MIX_CLOSE, why, sizeof(why)), "no current file");
    assert_has(sbio_fsop_skip_why(&x->f, SBIO_MIX_STAT, why, sizeof(why)), "no file");
    sbio_fsop_fini(&x->f);
    free(x->tree.cur_size);
    fx_tree(x, 1, false);
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, 1, 0, 0), 0);
    assert_int_equal(sbio_fsop_pick(&x->f, SBIO_MIX_CREATE, &x->rng, &x->io), 0);
    assert_int_equal(sbio_fsop_pick(&x->f, SBIO_MIX_RENAME, &x->rng, &x->io), 0);
    assert_has(sbio_fsop_skip_why(&x->f, SBIO_MIX_CREATE, why, sizeof(why)), "no free slot");
}

/* Each operation on a real tree: what is on disk and cur_size agree with what it did. */
static void test_ops_on_disk(void **state)
{
    struct fixture *x = *state;
    fx_job(x, SBIO_PAT_UNIFORM, 0);
    fx_tree(x, 0.5, true);
    x->mix.nflow = 1; /* a flow: the ops on a file act on the current one */
    x->mix.flow[0] = SBIO_MIX_STAT;
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, 1, 3, 0), 0);
    /* create: a free slot's file of its size, left open as the current file. */
    assert_int_equal(run_op(x, SBIO_MIX_CREATE), FSIZE);
    uint64_t c = x->io.file;
    assert_true(c >= 20);
    assert_int_equal(disk_size(x, c), FSIZE);
    assert_int_equal(x->tree.cur_size[c], FSIZE);
    assert_int_equal(x->f.cur_slot, c);
    /* append: 1000 bytes at its end. */
    assert_int_equal(run_op(x, SBIO_MIX_APPEND), 1000);
    assert_int_equal(x->io.file, c);
    assert_int_equal(disk_size(x, c), FSIZE + 1000);
    assert_int_equal(x->tree.cur_size[c], FSIZE + 1000);
    /* readwhole / writewhole: the whole file, which keeps its size. */
    assert_int_equal(run_op(x, SBIO_MIX_READWHOLE), FSIZE + 1000);
    assert_int_equal(run_op(x, SBIO_MIX_WRITEWHOLE), FSIZE + 1000);
    assert_int_equal(disk_size(x, c), FSIZE + 1000);
    /* read / write: one block at a whole-block offset inside it. */
    assert_int_equal(run_op(x, SBIO_MIX_READ), 4096);
    assert_int_equal(x->io.offset % 4096, 0);
    assert_int_equal(run_op(x, SBIO_MIX_FDATASYNC), 0);
    assert_int_equal(run_op(x, SBIO_MIX_CLOSE), 0);
    assert_int_equal(x->f.cur_slot, UINT64_MAX);
    /* stat, open. */
    assert_int_equal(run_op(x, SBIO_MIX_STAT), 0);
    assert_int_equal(run_op(x, SBIO_MIX_OPEN), 0);
    uint64_t o = x->io.file;
    assert_int_equal(x->f.cur_slot, o);
    /* unlink of the current file: closed first, gone from disk and from the lists. */
    x->io.file = (unsigned)o;
    assert_int_equal(sbio_fsop_pick(&x->f, SBIO_MIX_UNLINK, &x->rng, &x->io), 1);
    x->io.file = (unsigned)o;
    void *priv;
    struct sbio_engine_params params = {.thread_state = &x->f};
    sbio_engine_fstree.init(&priv, &params);
    sbio_engine_fstree.queue(priv, NULL, &x->io);
    assert_int_equal(x->io.res, 0);
    assert_int_equal(disk_size(x, o), -1);
    assert_int_equal(x->tree.cur_size[o], SBIO_TREE_NONE);
    assert_int_equal(x->f.cur_slot, UINT64_MAX);
    check_lists(x);
    /* rename: the file moves to a free slot, with its size. */
    assert_int_equal(run_op(x, SBIO_MIX_RENAME), 0);
    uint64_t a = x->io.file, b = x->io.offset;
    assert_int_equal(disk_size(x, a), -1);
    assert_int_equal(disk_size(x, b), (long long)x->tree.cur_size[b]);
    assert_int_equal(x->tree.cur_size[a], SBIO_TREE_NONE);
    check_lists(x);
    /* mkdir: m<phase>_<thread>_<k> in a leaf; readdir lists a leaf. */
    assert_int_equal(run_op(x, SBIO_MIX_MKDIR), 0);
    char p[PATH_MAX];
    int n = sbio_tree_leaf_path(&x->tree, x->io.offset, p, sizeof(p));
    snprintf(p + n, sizeof(p) - (size_t)n, "%sm3_0_0", n ? "/" : "");
    struct stat st;
    assert_int_equal(fstatat(x->tree.rootfd, p, &st, AT_SYMLINK_NOFOLLOW), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(x->tree.mkdirs, 1);
    assert_int_equal(run_op(x, SBIO_MIX_READDIR), 0);
    /* In a mix each op chooses its file: a write makes its file current, a readwhole of
     * another file reads it through a descriptor of its own and leaves the current one. */
    x->mix.nflow = 0;
    assert_int_equal(run_op(x, SBIO_MIX_OPEN), 0);
    uint64_t cur = x->f.cur_slot;
    int fd = x->f.cur_fd;
    for (int i = 0; i < 50; i++) {
        assert_true(run_op(x, SBIO_MIX_READWHOLE) >= 0);
        assert_int_equal(x->f.cur_slot, cur);
        assert_int_equal(x->f.cur_fd, fd);
    }
    int tries = 0;
    do
        assert_int_equal(run_op(x, SBIO_MIX_APPEND), 1000);
    while (x->io.file == cur && ++tries < 50);
    assert_int_not_equal(x->io.file, cur);
    assert_int_equal(x->f.cur_slot, x->io.file);
    assert_int_equal(run_op(x, SBIO_MIX_FSYNC), 0);
    check_lists(x);
}

/* open of the file that is current already opens it again (closing it first): one openat
 * per open, as the kernel counts them. Shown by removing the file behind the thread's back:
 * the second open must fail where a kept descriptor would have served it. */
static void test_open_current(void **state)
{
    struct fixture *x = *state;
    fx_job(x, SBIO_PAT_UNIFORM, 0);
    fx_tree(x, 1, true);
    /* Thread 0 of FILES: its one slot, 0. */
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, FILES, 0, 0), 0);
    assert_int_equal(run_op(x, SBIO_MIX_OPEN), 0);
    assert_int_equal(x->f.cur_slot, 0);
    char p[PATH_MAX];
    sbio_tree_path(&x->tree, 0, p, sizeof(p));
    assert_int_equal(unlinkat(x->tree.rootfd, p, 0), 0);
    assert_int_equal(run_op(x, SBIO_MIX_OPEN), -ENOENT);
    assert_int_equal(x->f.cur_slot, UINT64_MAX);
    assert_int_equal(x->f.cur_fd, -1);
}

/* readdir lists a leaf whatever the job's block: one of 16 bytes is smaller than a folder
 * entry, which getdents64 refuses. */
static void test_readdir_small_block(void **state)
{
    struct fixture *x = *state;
    fx_job(x, SBIO_PAT_UNIFORM, 0);
    x->job.block[0] = 16;
    sbio_mix_init(&x->mix, &x->job, FILES);
    fx_tree(x, 1, true);
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, 1, 0, 0), 0);
    for (int i = 0; i < 20; i++)
        assert_int_equal(run_op(x, SBIO_MIX_READDIR), 0);
}

/* Many random operations: the lists and cur_size match the disk all along. */
static void test_random_ops(void **state)
{
    struct fixture *x = *state;
    fx_job(x, SBIO_PAT_ZIPF, 1.1);
    fx_tree(x, 0.5, true);
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 1, 2, 0, 0), 0);
    const enum sbio_mix_op ops[] = {SBIO_MIX_CREATE, SBIO_MIX_UNLINK,     SBIO_MIX_RENAME,
                                    SBIO_MIX_APPEND, SBIO_MIX_WRITEWHOLE, SBIO_MIX_OPEN,
                                    SBIO_MIX_CLOSE,  SBIO_MIX_STAT,       SBIO_MIX_WRITE};
    uint64_t served = 0;
    for (int i = 0; i < 3000; i++) {
        int64_t res = run_op(x, ops[sbio_rand_below(&x->rng, 9)]);
        assert_true(res >= 0 || res == -1000);
        served += res >= 0;
    }
    assert_true(served > 2000);
    check_lists(x);
    for (uint64_t s = 0; s < FILES; s++) {
        long long want =
            x->tree.cur_size[s] == SBIO_TREE_NONE ? -1 : (long long)x->tree.cur_size[s];
        if (s % 2 == 1)
            assert_int_equal(disk_size(x, s), want);
        else /* the other thread's: untouched */
            assert_int_equal(disk_size(x, s), s < 20 ? FSIZE : -1);
    }
}

/* The paths the engine makes are sbio_tree_path's, for every slot of several shapes (no
 * folder level, W >= N, N not a multiple of W, deep trees). */
static void test_paths(void **state)
{
    struct fixture *x = *state;
    const uint64_t shape[][2] = {{5, 10}, {40, 4}, {101, 10}, {1000, 2}, {10000, 20}, {7, 7}};
    fx_job(x, SBIO_PAT_UNIFORM, 0);
    for (size_t k = 0; k < sizeof(shape) / sizeof(shape[0]); k++) {
        struct sbio_tree_decl d = {.set = true,
                                   .files = shape[k][0],
                                   .dirwidth = shape[k][1],
                                   .size = {.law = SBIO_SIZE_FIXED, .a = 1},
                                   .prealloc = 1};
        assert_int_equal(sbio_tree_shape(&x->tree, &d, x->dir, 1, "t.lua"), 0);
        x->tree.cur_size = calloc(d.files, sizeof(uint64_t));
        assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, 1, 0, 0), 0);
        for (uint64_t s = 0; s < d.files; s++) {
            char want[PATH_MAX], got[PATH_MAX];
            sbio_tree_path(&x->tree, s, want, sizeof(want));
            assert_string_equal(sbio_fsop_path(&x->f, s, got), want);
        }
        sbio_fsop_fini(&x->f);
        free(x->tree.cur_size);
        x->tree.cur_size = NULL;
    }
}

/* The generator of a tree job (workload.c): a flow's order, its skipped entries counted and
 * passed over; a thread that can serve nothing more ends its stream, or fails when it
 * served nothing. */
static void test_generator(void **state)
{
    struct fixture *x = *state;
    fx_job(x, SBIO_PAT_UNIFORM, 0);
    x->job.nflow = 3;
    x->job.flow[0] = SBIO_MIX_CLOSE; /* never served: nothing is ever opened here */
    x->job.flow[1] = SBIO_MIX_STAT;
    x->job.flow[2] = SBIO_MIX_CREATE;
    sbio_mix_init(&x->mix, &x->job, FILES);
    fx_tree(x, 0.5, false);
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, 1, 0, 0), 0);
    struct sbio_job job = {.threads = 1, .mix = &x->mix};
    struct sbio_layout lay = {0};
    struct sbio_wl_shared sh;
    struct sbio_wl w;
    uint64_t skipped = 0;
    sbio_wl_shared_init(&sh, &job, &lay, 5);
    assert_int_equal(sbio_wl_init(&w, &sh, 0), 0);
    w.fsop = &x->f;
    w.skipped = &skipped;
    for (int i = 0; i < 10; i++) {
        assert_int_equal(sbio_wl_next(&w, &x->io), 1);
        assert_int_equal(x->io.op, i % 2 ? SBIO_CREATE : SBIO_STAT);
    }
    assert_int_equal(skipped, 5); /* a close before each stat */
    x->mix.nflow = 1;             /* close alone: never served */
    w.flow_pos = 0;
    /* The thread served some: its stream ends at the first draw that finds nothing to do. */
    assert_int_equal(sbio_wl_next(&w, &x->io), 0);
    assert_int_equal(skipped, 6);
    sbio_wl_fini(&w);
    /* A thread that served none fails, saying why. */
    assert_int_equal(sbio_wl_init(&w, &sh, 0), 0);
    w.fsop = &x->f;
    w.skipped = &skipped;
    assert_int_equal(sbio_wl_next(&w, &x->io), -1);
    assert_int_equal(skipped, 7);
    assert_has(w.hook_err,
               "thread 0: none of its job's operations can be served (the last drawn: close");
    sbio_wl_fini(&w);
}

/* A failure names the call, the path and the error. */
static void test_error_message(void **state)
{
    struct fixture *x = *state;
    fx_job(x, SBIO_PAT_UNIFORM, 0);
    fx_tree(x, 0.5, true);
    assert_int_equal(sbio_fsop_init(&x->f, &x->tree, &x->mix, 0, 1, 0, 0), 0);
    assert_int_equal(sbio_fsop_pick(&x->f, SBIO_MIX_UNLINK, &x->rng, &x->io), 1);
    char p[PATH_MAX], msg[PATH_MAX + 300];
    sbio_tree_path(&x->tree, x->io.file, p, sizeof(p));
    assert_int_equal(unlinkat(x->tree.rootfd, p, 0), 0); /* gone behind its back */
    void *priv;
    struct sbio_engine_params params = {.thread_state = &x->f};
    sbio_engine_fstree.init(&priv, &params);
    sbio_engine_fstree.queue(priv, NULL, &x->io);
    assert_int_equal(x->io.res, -ENOENT);
    sbio_fsop_error(&x->f, &x->io, msg, sizeof(msg));
    assert_has(msg, "sbio.tree/");
    assert_has(msg, p);
    assert_has(msg, "unlinkat: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_choice_own_slots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seq_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_skip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ops_on_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_current, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readdir_small_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_ops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_generator, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
