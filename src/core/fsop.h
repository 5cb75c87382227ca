/* The file-system operations of a tree job (a script's fileset with dirwidth, tree.h): each
 * thread's own slots, the choice of a file, and the tree engine that carries out each
 * operation with system calls.
 *
 * Which file. A phase's tree-job threads are numbered t = 0 .. T-1 over all its jobs (and
 * every rank's). Thread t owns the slots s with s % T == t, its m slots ranked r = 0 .. m-1
 * (slot r * T + t), and acts on no other: no two threads ever touch one file, so there is
 * no lock and no race. It keeps its ranks in one array, the existing ones first and the free
 * ones after them, with each rank's position: taking, adding and removing one is O(1)
 * (swap-remove), as filebench's free list, per thread.
 *  - A file that must exist is chosen by the job's pattern over the thread's ranks: uniform
 *    picks among the existing ones; zipf, pareto, gaussian and hot draw a rank as mix.h
 *    draws a block, drawing again (up to 16 times, then uniform among the existing) when
 *    that slot is free; seq walks the existing ones in order.
 *  - create takes a free slot: uniform among the free ones, or the next in order under seq;
 *    rename moves an existing file (the pattern) to a free slot (uniform).
 *  - mkdir and readdir act on a leaf folder, uniform over all leaves.
 * A draw that cannot be served now (no free slot, no file, no current file for close or
 * fsync) is skipped: no system call, not an event.
 *
 * The current file. A thread has at most one file open, as filebench's flowops keep an fd:
 * create and open make it; close, fsync and fdatasync need it; unlink and rename close it
 * first when it is their file. In a flow, append, readwhole, writewhole, read and write act
 * on it (with none they choose a file and open it first, inside the operation, and it
 * becomes current). In a mix each of them chooses its file: append, writewhole and write
 * make theirs current (what a later fsync syncs); readwhole and read of another file than
 * the current one open and close a descriptor of their own inside the operation.
 *
 * The operations, each one event whose latency runs from its first system call to its
 * last (the tree's folder is open: paths are relative to it):
 *  - create: openat(O_CREAT | O_EXCL | O_RDWR), then the slot's size (tree.h) in pwrites of
 *    the block size; left open as the current file;
 *  - open: openat(O_RDWR); close: close;
 *  - append: a pwrite of the append size at the end of the file;
 *  - readwhole / writewhole: preads / pwrites of the block size from 0 to the file's size;
 *  - read / write: one pread / pwrite of a block at a whole-block offset drawn uniformly in
 *    the file (a file shorter than a block: its whole size at 0);
 *  - fsync / fdatasync of the current file;
 *  - stat: fstatat(AT_SYMLINK_NOFOLLOW); unlink: unlinkat; rename: renameat;
 *  - mkdir: mkdirat(<leaf>/m<phase>_<thread>_<k>, 0755);
 *  - readdir: openat(<leaf>, O_DIRECTORY), getdents64 until it returns 0, close.
 * Every file is opened with O_NOFOLLOW and the job's sync flags. The slots' sizes are kept
 * in the tree's cur_size[] (each slot by its owner only). */
#ifndef SBIO_FSOP_H
#define SBIO_FSOP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "decl.h"
#include "engine.h"
#include "io.h"
#include "mix.h"
#include "tree.h"

#define SBIO_FSOP_REDRAWS  16    /* a pattern's draws of a free slot before uniform */
#define SBIO_FSOP_MAX_SKIP 10000 /* draws in a row that cannot be served: the thread stops */

/* One thread's state: its slots, its current file, what failed last. */
struct sbio_fsop {
    struct sbio_tree *tree;
    const struct sbio_mix *mix; /* the job's pattern, block and append sizes */
    unsigned thread, threads;   /* t and T above */
    unsigned phase;             /* for mkdir's names */
    int oflags;                 /* the job's O_SYNC / O_DSYNC */
    uint64_t m;                 /* the thread's slots */
    uint64_t *rank;             /* [m]: existing ranks in [0, nexist), free ranks after */
    uint64_t *pos;              /* [m]: rank r's index in rank[] */
    uint64_t nexist;
    uint64_t seq_exist, seq_free; /* seq: the next rank to look at */
    uint64_t pat_seq;             /* a pattern's own position (unused but by seq) */
    uint64_t mkdirs;              /* this thread's mkdir folders so far */
    uint64_t cur_slot;            /* the current file's slot, UINT64_MAX: none */
    int cur_fd;
    /* What failed last: the system call and the path relative to the tree's folder. */
    const char *err_call;
    char err_path[PATH_MAX];
    char path[PATH_MAX], path2[PATH_MAX]; /* scratch */
    uint64_t place[64]; /* W^i: the value of a leaf number's digit i (depth <= 64) */
};

/* Thread `thread` of `threads` on tree t (its cur_size[] as the phase starts), drawing by
 * mix, opening files with oflags. 0 or -ENOMEM. */
int sbio_fsop_init(struct sbio_fsop *f, struct sbio_tree *t, const struct sbio_mix *mix,
                   unsigned thread, unsigned threads, unsigned phase, int oflags);

/* Close the current file, if any (the thread's end: not an operation). */
void sbio_fsop_end(struct sbio_fsop *f);

/* sbio_fsop_end, then free the arrays. */
void sbio_fsop_fini(struct sbio_fsop *f);

/* The slot of rank r of this thread, and the rank of one of its slots. */
static inline uint64_t sbio_fsop_slot(const struct sbio_fsop *f, uint64_t r)
{
    return r * f->threads + f->thread;
}

/* Choose what mix operation mop acts on, into io (op, flags, file = the slot, offset = a
 * rename's free slot, a read's or write's offset, or mkdir's and readdir's leaf; len = the
 * request size). 1: io is ready for the tree engine; 0: it cannot be served now (skipped).
 * rng: the thread's generator. */
int sbio_fsop_pick(struct sbio_fsop *f, enum sbio_mix_op mop, uint64_t *rng, struct sbio_io *io);

/* Whether mop can be served now (sbio_fsop_pick would return 1). A thread's slots change
 * only by its own operations: when none of its job's operations can be served, none ever
 * will be. */
bool sbio_fsop_can(const struct sbio_fsop *f, enum sbio_mix_op mop);

/* Slot s's path relative to the tree's folder, as sbio_tree_path writes it, into buf of
 * PATH_MAX bytes. Returns buf. */
const char *sbio_fsop_path(struct sbio_fsop *f, uint64_t slot, char *buf);

/* Why mop could not be served now, for the message of a thread that skipped too many. */
const char *sbio_fsop_skip_why(const struct sbio_fsop *f, enum sbio_mix_op mop, char *buf,
                               size_t len);

/* A failed operation as "DIR/sbio.tree/PATH: CALL: ERROR" (io->res the -errno, or a short
 * transfer). Returns buf. */
const char *sbio_fsop_error(const struct sbio_fsop *f, const struct sbio_io *io, char *buf,
                            size_t len);

/* Carry out the op sbio_fsop_pick prepared in io: io->len and io->res set to the bytes it
 * moved (0 for the others; -errno on failure, with err_call and err_path set). */
void sbio_fsop_do(struct sbio_fsop *f, struct sbio_io *io);

/* The file-tree engine (src/engines/fstree.c): synchronous (SBIO_ENG_SYNC); init() takes the
 * thread's struct sbio_fsop from params->thread_state; queue() is sbio_fsop_do. In the
 * engine registry as internal (SBIO_ENG_INTERNAL | SBIO_ENG_FSOPS): no --ioengine selects it,
 * the runner takes it for a tree job. */
extern const struct sbio_engine_ops sbio_engine_fstree;

#endif
