/* One I/O request: what a workload generator (workload.h) makes, an engine (engine.h) carries
 * out and the statistics (stats.h) count. Includes nothing of sbio's, so that those three
 * share it without depending on each other or on the configuration (options.h). */
#ifndef SBIO_IO_H
#define SBIO_IO_H

#include <stdint.h>

/* SBIO_RMW, a read-modify-write: read a block, change it, write it back at the same offset;
 * one event whose latency spans both. A generator makes it; engines never see it: the worker
 * carries it out as a read and then a write of the same io (flagged SBIO_IO_RMW). */
/* The file-system operations of a tree job (a script's fileset with dirwidth, tree.h),
 * each a type of its own, come after them; an engine sees them only in a tree job, where
 * the tree engine (fsop.h) carries them out with system calls:
 *  - CREATE: open a free slot's file with O_CREAT|O_EXCL, write its whole size; it becomes
 *    the thread's current file (left open);
 *  - APPEND: write a request at the end of the current file (or of a chosen one);
 *  - READWHOLE, WRITEWHOLE: read or write a file from 0 to its size, in requests;
 *  - OPEN, CLOSE: the thread's current file;
 *  - STAT, UNLINK, RENAME (to a free slot), MKDIR, READDIR (list one directory).
 * A tree job's READ, WRITE and FSYNC act on its current file. SBIO_OP_FS_FIRST is the first
 * of them: reports give rows to these only when they were counted. */
enum sbio_op {
    SBIO_READ,
    SBIO_WRITE,
    SBIO_FSYNC,
    SBIO_RMW,
    SBIO_CREATE,
    SBIO_APPEND,
    SBIO_READWHOLE,
    SBIO_WRITEWHOLE,
    SBIO_OPEN,
    SBIO_CLOSE,
    SBIO_STAT,
    SBIO_UNLINK,
    SBIO_RENAME,
    SBIO_MKDIR,
    SBIO_READDIR,
    SBIO_OP_NR
};
#define SBIO_OP_FS_FIRST SBIO_CREATE

/* How results and charts name an operation type: "read", "write", "fsync", "rmw" (the text
 * report's rows say "read-modify-write"), "create", "append", … as in the enum, lower case;
 * the same names are a script's mix and flow keys. */
static inline const char *sbio_op_name(int op)
{
    static const char *const names[SBIO_OP_NR] = {
        "read", "write", "fsync", "rmw",    "create", "append", "readwhole", "writewhole",
        "open", "close", "stat",  "unlink", "rename", "mkdir",  "readdir"};
    return op >= 0 && op < SBIO_OP_NR ? names[op] : "?";
}

#define SBIO_IO_FSYNC_AFTER                                                                        \
    1u                       /* --file-fsync-all: sync the file after the write, inside the        \
                                write's latency: synchronous engines in queue(); for queued        \
                                engines the runner, as it takes the io from reap() */
#define SBIO_IO_NOT_EVENT 2u /* an end fsync: reported with the fsyncs, not an event */
#define SBIO_IO_DATASYNC  4u /* this fsync is an fdatasync (a script's mix asks per op) */
#define SBIO_IO_SYNC_FAILED                                                                        \
    8u /* with res < 0: the write itself succeeded, its SBIO_IO_FSYNC_AFTER sync failed */
#define SBIO_IO_RMW                                                                                \
    16u /* a read-modify-write under way: op is SBIO_READ for its read, then SBIO_WRITE for        \
           the write back (start_ns stays the read's) */

/* A job's invalidate = "pass": before this io is issued (outside its latency), drop the
 * pages of its file (it starts a new pass over it), or of every file of the job's. */
#define SBIO_IO_DROP     32u
#define SBIO_IO_DROP_ALL 64u

struct sbio_io {
    enum sbio_op op;
    unsigned flags;
    unsigned file; /* index into the thread's file array */
    uint32_t len;
    uint64_t offset;
    void *buf;         /* aligned for O_DIRECT; the runner owns it */
    unsigned slot;     /* index of this io in the thread's array of iodepth ios (registered
                          buffer index for io_uring's --uring-fixed) */
    uint64_t start_ns; /* submission, or the intended start under --rate */
    int64_t res;       /* bytes transferred (0 for fsync), or -errno */
};

#endif
