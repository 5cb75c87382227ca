#include "fsop.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

#define NONE UINT64_MAX

int sbio_fsop_init(struct sbio_fsop *f, struct sbio_tree *t, const struct sbio_mix *mix,
                   unsigned thread, unsigned threads, unsigned phase, int oflags)
{
    memset(f, 0, sizeof(*f));
    f->tree = t;
    f->mix = mix;
    f->thread = thread;
    f->threads = threads;
    f->phase = phase;
    f->oflags = oflags;
    f->cur_slot = NONE;
    f->cur_fd = -1;
    /* The value of each base-W digit of a leaf's number, for sbio_fsop_path. */
    for (unsigned i = 0; i < t->depth && i < 64; i++)
        f->place[i] = i ? f->place[i - 1] * t->dirwidth : 1;
    f->m = thread < t->files ? (t->files - thread + threads - 1) / threads : 0;
    f->rank = malloc((f->m ? f->m : 1) * sizeof(uint64_t));
    f->pos = malloc((f->m ? f->m : 1) * sizeof(uint64_t));
    if (!f->rank || !f->pos) {
        sbio_fsop_fini(f);
        return -ENOMEM;
    }
    /* Existing ranks from the front, free ones from the back. */
    uint64_t front = 0, back = f->m;
    for (uint64_t r = 0; r < f->m; r++) {
        uint64_t i = t->cur_size[sbio_fsop_slot(f, r)] != SBIO_TREE_NONE ? front++ : --back;
        f->rank[i] = r;
        f->pos[r] = i;
    }
    f->nexist = front;
    return 0;
}

void sbio_fsop_end(struct sbio_fsop *f)
{
    if (f->cur_fd >= 0)
        close(f->cur_fd);
    f->cur_fd = -1;
    f->cur_slot = NONE;
}

void sbio_fsop_fini(struct sbio_fsop *f)
{
    sbio_fsop_end(f);
    free(f->rank);
    free(f->pos);
    f->rank = f->pos = NULL;
}

static bool fsop_exists(const struct sbio_fsop *f, uint64_t r)
{
    return f->pos[r] < f->nexist;
}

/* Swap ranks at indexes i and k of rank[]. */
static void fsop_swap(struct sbio_fsop *f, uint64_t i, uint64_t k)
{
    uint64_t a = f->rank[i], b = f->rank[k];
    f->rank[i] = b;
    f->rank[k] = a;
    f->pos[b] = i;
    f->pos[a] = k;
}

/* Rank r now holds a file (it was free), or not (it held one). */
static void fsop_set_exists(struct sbio_fsop *f, uint64_t r, bool exists)
{
    if (exists == fsop_exists(f, r))
        return;
    if (exists)
        fsop_swap(f, f->pos[r], f->nexist++);
    else
        fsop_swap(f, f->pos[r], --f->nexist);
}

/* An existing rank by the job's pattern; the thread has at least one. */
static uint64_t fsop_pick_existing(struct sbio_fsop *f, uint64_t *rng)
{
    const struct sbio_mix *m = f->mix;
    if (m->pattern == SBIO_PAT_SEQ) {
        while (!fsop_exists(f, f->seq_exist % f->m))
            f->seq_exist++;
        return f->seq_exist++ % f->m;
    }
    if (m->pattern != SBIO_PAT_UNIFORM)
        for (int i = 0; i < SBIO_FSOP_REDRAWS; i++) {
            uint64_t r = sbio_mix_block(m, rng, f->m, &f->pat_seq);
            if (fsop_exists(f, r))
                return r;
        }
    return f->rank[sbio_rand_below(rng, f->nexist)];
}

/* A free rank: uniform, or the next in order under seq; the thread has at least one. */
static uint64_t fsop_pick_free(struct sbio_fsop *f, uint64_t *rng)
{
    if (f->mix->pattern == SBIO_PAT_SEQ) {
        while (fsop_exists(f, f->seq_free % f->m))
            f->seq_free++;
        return f->seq_free++ % f->m;
    }
    return f->rank[f->nexist + sbio_rand_below(rng, f->m - f->nexist)];
}

/* The file append, readwhole, writewhole, read or write acts on: in a flow the current one
 * when there is one, else an existing one by the pattern (sbio_fsop_can said there is). */
static void fsop_target(struct sbio_fsop *f, uint64_t *rng, struct sbio_io *io)
{
    io->file = f->cur_slot != NONE && f->mix->nflow
                   ? (unsigned)f->cur_slot
                   : (unsigned)sbio_fsop_slot(f, fsop_pick_existing(f, rng));
}

/* read / write: a whole block of the file, drawn uniformly; a file shorter than a block is
 * read or written whole at 0. */
static void fsop_block(const struct sbio_fsop *f, uint64_t *rng, struct sbio_io *io)
{
    uint64_t size = f->tree->cur_size[io->file];
    if (size <= io->len) {
        io->offset = 0;
        io->len = (uint32_t)size;
        return;
    }
    io->offset = sbio_rand_below(rng, size / io->len) * io->len;
}

static const enum sbio_op mix_to_op[SBIO_MIX_NR] = {
    [SBIO_MIX_READ] = SBIO_READ,
    [SBIO_MIX_WRITE] = SBIO_WRITE,
    [SBIO_MIX_FSYNC] = SBIO_FSYNC,
    [SBIO_MIX_FDATASYNC] = SBIO_FSYNC,
    [SBIO_MIX_RMW] = SBIO_RMW,
    [SBIO_MIX_CREATE] = SBIO_CREATE,
    [SBIO_MIX_APPEND] = SBIO_APPEND,
    [SBIO_MIX_READWHOLE] = SBIO_READWHOLE,
    [SBIO_MIX_WRITEWHOLE] = SBIO_WRITEWHOLE,
    [SBIO_MIX_OPEN] = SBIO_OPEN,
    [SBIO_MIX_CLOSE] = SBIO_CLOSE,
    [SBIO_MIX_STAT] = SBIO_STAT,
    [SBIO_MIX_UNLINK] = SBIO_UNLINK,
    [SBIO_MIX_RENAME] = SBIO_RENAME,
    [SBIO_MIX_MKDIR] = SBIO_MKDIR,
    [SBIO_MIX_READDIR] = SBIO_READDIR,
};

bool sbio_fsop_can(const struct sbio_fsop *f, enum sbio_mix_op mop)
{
    switch (mop) {
    case SBIO_MIX_READ:
    case SBIO_MIX_WRITE:
    case SBIO_MIX_APPEND:
    case SBIO_MIX_READWHOLE:
    case SBIO_MIX_WRITEWHOLE: return f->nexist || (f->mix->nflow && f->cur_slot != NONE);
    case SBIO_MIX_FSYNC:
    case SBIO_MIX_FDATASYNC:
    case SBIO_MIX_CLOSE: return f->cur_slot != NONE;
    case SBIO_MIX_CREATE: return f->nexist < f->m;
    case SBIO_MIX_RENAME: return f->nexist && f->nexist < f->m;
    case SBIO_MIX_OPEN:
    case SBIO_MIX_STAT:
    case SBIO_MIX_UNLINK: return f->nexist;
    case SBIO_MIX_MKDIR:
    case SBIO_MIX_READDIR: return true;
    default: return false; /* rmw: never in a tree job (the script is refused) */
    }
}

int sbio_fsop_pick(struct sbio_fsop *f, enum sbio_mix_op mop, uint64_t *rng, struct sbio_io *io)
{
    if (!sbio_fsop_can(f, mop))
        return 0;
    io->op = mix_to_op[mop];
    io->flags = mop == SBIO_MIX_FDATASYNC ? SBIO_IO_DATASYNC : 0;
    io->offset = 0;
    io->len = (uint32_t)sbio_mix_size(f->mix, rng);
    switch (mop) {
    case SBIO_MIX_READ:
    case SBIO_MIX_WRITE:
        fsop_target(f, rng, io);
        fsop_block(f, rng, io);
        return 1;
    case SBIO_MIX_APPEND:
        io->len = (uint32_t)sbio_mix_append_size(f->mix, rng);
        fsop_target(f, rng, io);
        return 1;
    case SBIO_MIX_READWHOLE:
    case SBIO_MIX_WRITEWHOLE: fsop_target(f, rng, io); return 1;
    case SBIO_MIX_FSYNC:
    case SBIO_MIX_FDATASYNC:
    case SBIO_MIX_CLOSE: io->file = (unsigned)f->cur_slot; return 1;
    case SBIO_MIX_CREATE: io->file = (unsigned)sbio_fsop_slot(f, fsop_pick_free(f, rng)); return 1;
    case SBIO_MIX_RENAME:
        io->file = (unsigned)sbio_fsop_slot(f, fsop_pick_existing(f, rng));
        io->offset = sbio_fsop_slot(f, f->rank[f->nexist + sbio_rand_below(rng, f->m - f->nexist)]);
        return 1;
    case SBIO_MIX_OPEN:
    case SBIO_MIX_STAT:
    case SBIO_MIX_UNLINK:
        io->file = (unsigned)sbio_fsop_slot(f, fsop_pick_existing(f, rng));
        return 1;
    default: io->offset = sbio_rand_below(rng, f->tree->leaves); return 1; /* mkdir, readdir */
    }
}

const char *sbio_fsop_skip_why(const struct sbio_fsop *f, enum sbio_mix_op mop, char *buf,
                               size_t len)
{
    const char *op = sbio_op_name(mix_to_op[mop]);
    if (mop == SBIO_MIX_FDATASYNC)
        op = "fdatasync";
    if (mop == SBIO_MIX_FSYNC || mop == SBIO_MIX_FDATASYNC || mop == SBIO_MIX_CLOSE)
        snprintf(buf, len, "%s: no current file (nothing created or opened)", op);
    else if ((mop == SBIO_MIX_CREATE || mop == SBIO_MIX_RENAME) && f->nexist == f->m)
        snprintf(buf, len, "%s: no free slot (all %" PRIu64 " of the thread's slots hold a file)",
                 op, f->m);
    else
        snprintf(buf, len, "%s: no file in the thread's %" PRIu64 " slot%s", op, f->m,
                 f->m == 1 ? "" : "s");
    return buf;
}

const char *sbio_fsop_error(const struct sbio_fsop *f, const struct sbio_io *io, char *buf,
                            size_t len)
{
    const char *call = f->err_call ? f->err_call : sbio_op_name(io->op);
    if (io->res < 0)
        snprintf(buf, len, "%.200s/%s/%.200s: %s: %s", f->tree->dir, SBIO_TREE_ROOT, f->err_path,
                 call, strerror((int)-io->res));
    else
        snprintf(buf, len, "%.200s/%s/%.200s: %s: short transfer (%" PRId64 " of %u bytes)",
                 f->tree->dir, SBIO_TREE_ROOT, f->err_path, call, io->res, io->len);
    return buf;
}

/* ---- the tree engine ---- */

/* A failure of call on path: remembered for the message; returns -errno. */
static int fsop_fail(struct sbio_fsop *f, const char *call, const char *path)
{
    int e = errno ? errno : EIO;
    f->err_call = call;
    snprintf(f->err_path, sizeof(f->err_path), "%s", path);
    return -e;
}

/* v in decimal at p; returns the end. */
static char *fsop_utoa(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10));
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* Slot s's path as sbio_tree_path writes it (tree.h's rule: the leaf's base-W digits as d…
 * folders, then f<s>), without printf: formatting was a tenth of a stat's cost. The shape
 * fits PATH_MAX (sbio_tree_shape refused any other). */
const char *sbio_fsop_path(struct sbio_fsop *f, uint64_t slot, char *buf)
{
    const struct sbio_tree *t = f->tree;
    uint64_t leaf = slot / t->dirwidth;
    char *p = buf;
    for (unsigned i = t->depth; i > 0; i--) {
        *p++ = 'd';
        p = fsop_utoa(p, leaf / f->place[i - 1] % t->dirwidth);
        *p++ = '/';
    }
    *p++ = 'f';
    *fsop_utoa(p, slot) = '\0';
    return buf;
}

/* Close the current file, inside the op that needs it closed. */
static int fsop_close_current(struct sbio_fsop *f)
{
    if (f->cur_slot == NONE)
        return 0;
    int fd = f->cur_fd;
    uint64_t slot = f->cur_slot;
    f->cur_fd = -1;
    f->cur_slot = NONE;
    return close(fd) ? fsop_fail(f, "close", sbio_fsop_path(f, slot, f->path)) : 0;
}

/* Make slot the current file: close the current one, open slot's (created: O_CREAT). */
static int fsop_open(struct sbio_fsop *f, uint64_t slot, bool create)
{
    if (f->cur_slot == slot && !create)
        return 0;
    int rc = fsop_close_current(f);
    if (rc)
        return rc;
    const char *p = sbio_fsop_path(f, slot, f->path);
    int fl = O_RDWR | O_NOFOLLOW | O_CLOEXEC | f->oflags | (create ? O_CREAT | O_EXCL : 0);
    int fd = openat(f->tree->rootfd, p, fl, 0644);
    if (fd < 0)
        return fsop_fail(f, create ? "openat (O_CREAT)" : "openat", p);
    f->cur_fd = fd;
    f->cur_slot = slot;
    return 0;
}

/* [off, off + total) of the current file in requests of req bytes from buf: pread or
 * pwrite. Returns the bytes moved, or -errno. */
static int64_t fsop_transfer(struct sbio_fsop *f, int fd, uint64_t slot, bool write, void *buf,
                             uint64_t req, uint64_t off, uint64_t total)
{
    uint64_t done = 0;
    while (done < total) {
        size_t n = total - done < req ? (size_t)(total - done) : (size_t)req;
        ssize_t got = write ? pwrite(fd, buf, n, (off_t)(off + done))
                            : pread(fd, buf, n, (off_t)(off + done));
        if (got < 0)
            return fsop_fail(f, write ? "pwrite" : "pread", sbio_fsop_path(f, slot, f->path));
        if ((size_t)got < n) {
            f->err_call = write ? "pwrite" : "pread";
            sbio_fsop_path(f, slot, f->err_path);
            return (int64_t)(done + (uint64_t)got);
        }
        done += n;
    }
    return (int64_t)done;
}

/* An op that moves bytes (create, append, readwhole, writewhole, read, write): io->len is
 * the request size on the way in, the bytes on the way out. */
static int64_t fsop_data(struct sbio_fsop *f, struct sbio_io *io)
{
    struct sbio_tree *t = f->tree;
    uint64_t slot = io->file, req = io->len ? io->len : 1, off = 0, total;
    bool write = io->op != SBIO_READWHOLE && io->op != SBIO_READ;
    /* A mix's read of another file than the current one: a descriptor of its own, opened
     * and closed inside the operation, so that the file a write left current stays so. */
    int fd = -1;
    if (!write && !f->mix->nflow && slot != f->cur_slot) {
        const char *p = sbio_fsop_path(f, slot, f->path);
        fd = openat(f->tree->rootfd, p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | f->oflags);
        if (fd < 0)
            return fsop_fail(f, "openat", p);
    } else {
        int rc = fsop_open(f, slot, io->op == SBIO_CREATE);
        if (rc)
            return rc;
    }
    switch (io->op) {
    case SBIO_CREATE:
        total = sbio_tree_size(t, slot);
        t->cur_size[slot] = 0;
        fsop_set_exists(f, slot / f->threads, true);
        break;
    case SBIO_APPEND:
        off = t->cur_size[slot];
        total = io->len;
        break;
    case SBIO_READ:
    case SBIO_WRITE:
        off = io->offset;
        total = io->len;
        break;
    default: total = t->cur_size[slot]; break;
    }
    int64_t got = fsop_transfer(f, fd >= 0 ? fd : f->cur_fd, slot, write, io->buf, req, off, total);
    if (fd >= 0 && close(fd) && got >= 0)
        got = fsop_fail(f, "close", sbio_fsop_path(f, slot, f->path));
    if (got > 0 && write && off + (uint64_t)got > t->cur_size[slot])
        t->cur_size[slot] = off + (uint64_t)got;
    /* The bytes the op was to move, in io->len: a short transfer returns fewer. */
    io->len = (uint32_t)(total > UINT32_MAX ? UINT32_MAX : total);
    if (got < 0 || (uint64_t)got == total)
        return got < 0 ? got : (int64_t)io->len;
    return (uint64_t)got < io->len ? got : (int64_t)io->len - 1;
}

/* A readdir's getdents64 buffer: glibc's readdir's size, whatever the job's block (a block
 * smaller than one entry would make getdents64 fail with EINVAL). */
#define FSOP_DENTS (32u << 10)

static int fsop_readdir(struct sbio_fsop *f, uint64_t leaf)
{
    char buf[FSOP_DENTS];
    sbio_tree_leaf_path(f->tree, leaf, f->path, sizeof(f->path));
    const char *p = f->path[0] ? f->path : ".";
    int fd = openat(f->tree->rootfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return fsop_fail(f, "openat (O_DIRECTORY)", p);
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
        ;
    int rc = n < 0 ? fsop_fail(f, "getdents64", p) : 0;
    close(fd);
    return rc;
}

static int fsop_mkdir(struct sbio_fsop *f, uint64_t leaf)
{
    int n = sbio_tree_leaf_path(f->tree, leaf, f->path, sizeof(f->path));
    snprintf(f->path + n, sizeof(f->path) - (size_t)n, "%sm%u_%u_%" PRIu64, n ? "/" : "", f->phase,
             f->thread, f->mkdirs);
    if (mkdirat(f->tree->rootfd, f->path, 0755))
        return fsop_fail(f, "mkdirat", f->path);
    f->mkdirs++;
    __atomic_add_fetch(&f->tree->mkdirs, 1, __ATOMIC_RELAXED);
    return 0;
}

static int fsop_unlink(struct sbio_fsop *f, uint64_t slot)
{
    int rc = f->cur_slot == slot ? fsop_close_current(f) : 0;
    const char *p = sbio_fsop_path(f, slot, f->path);
    if (!rc && unlinkat(f->tree->rootfd, p, 0))
        rc = fsop_fail(f, "unlinkat", p);
    if (!rc) {
        f->tree->cur_size[slot] = SBIO_TREE_NONE;
        fsop_set_exists(f, slot / f->threads, false);
    }
    return rc;
}

static int fsop_rename(struct sbio_fsop *f, uint64_t a, uint64_t b)
{
    struct sbio_tree *t = f->tree;
    int rc = f->cur_slot == a ? fsop_close_current(f) : 0;
    const char *pa = sbio_fsop_path(f, a, f->path), *pb = sbio_fsop_path(f, b, f->path2);
    if (!rc && renameat(t->rootfd, pa, t->rootfd, pb))
        rc = fsop_fail(f, "renameat", pa);
    if (!rc) {
        t->cur_size[b] = t->cur_size[a];
        t->cur_size[a] = SBIO_TREE_NONE;
        fsop_set_exists(f, a / f->threads, false);
        fsop_set_exists(f, b / f->threads, true);
    }
    return rc;
}

/* One op of any kind: the bytes it moved, or -errno. */
static int64_t fsop_run(struct sbio_fsop *f, struct sbio_io *io)
{
    struct stat st;
    switch (io->op) {
    case SBIO_CREATE:
    case SBIO_APPEND:
    case SBIO_READWHOLE:
    case SBIO_WRITEWHOLE:
    case SBIO_READ:
    case SBIO_WRITE: return fsop_data(f, io);
    case SBIO_OPEN: { /* the current file too: closed and opened again, one openat per open */
        int rc = fsop_close_current(f);
        return rc ? rc : fsop_open(f, io->file, false);
    }
    case SBIO_CLOSE: return fsop_close_current(f);
    case SBIO_FSYNC: {
        int rc = sbio_engine_sync_file(f->cur_fd, io->flags & SBIO_IO_DATASYNC);
        if (rc) {
            errno = -rc;
            rc = fsop_fail(f, io->flags & SBIO_IO_DATASYNC ? "fdatasync" : "fsync",
                           sbio_fsop_path(f, f->cur_slot, f->path));
        }
        return rc;
    }
    case SBIO_STAT: {
        const char *p = sbio_fsop_path(f, io->file, f->path);
        return fstatat(f->tree->rootfd, p, &st, AT_SYMLINK_NOFOLLOW) ? fsop_fail(f, "fstatat", p)
                                                                     : 0;
    }
    case SBIO_UNLINK: return fsop_unlink(f, io->file);
    case SBIO_RENAME: return fsop_rename(f, io->file, io->offset);
    case SBIO_MKDIR: return fsop_mkdir(f, io->offset);
    case SBIO_READDIR: return fsop_readdir(f, io->offset);
    default: errno = EINVAL; return fsop_fail(f, sbio_op_name(io->op), "");
    }
}

void sbio_fsop_do(struct sbio_fsop *f, struct sbio_io *io)
{
    bool moves = io->op == SBIO_CREATE || io->op == SBIO_APPEND || io->op == SBIO_READWHOLE ||
                 io->op == SBIO_WRITEWHOLE || io->op == SBIO_READ || io->op == SBIO_WRITE;
    f->err_call = NULL;
    io->res = fsop_run(f, io);
    if (!moves && io->res >= 0)
        io->len = 0; /* moves no bytes: complete at res 0 */
}
