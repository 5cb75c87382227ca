/* The I/O engine interface (fio's ioengine_ops, cut down).
 *
 * One engine per file in src/engines/, listed in the table in engine.c. The interface is
 * shaped for queued engines: queue() may complete an I/O at once (SBIO_Q_DONE, synchronous
 * engines) or accept it (SBIO_Q_QUEUED) for commit() and reap() to finish later. */
#ifndef SBIO_ENGINE_H
#define SBIO_ENGINE_H

#include <stdint.h>

#include "options.h"

enum sbio_op { SBIO_READ, SBIO_WRITE, SBIO_FSYNC, SBIO_OP_NR };

/* An open file of one worker thread: each thread opens its own descriptors. */
struct sbio_file {
    int fd;
    uint64_t size;
};

#define SBIO_IO_FSYNC_AFTER 1u /* --file-fsync-all: sync the file after the write */
#define SBIO_IO_NOT_EVENT   2u /* an end fsync: reported with the fsyncs, not an event */

struct sbio_io {
    enum sbio_op op;
    unsigned flags;
    unsigned file; /* index into the thread's file array */
    uint32_t len;
    uint64_t offset;
    void *buf;
    uint64_t start_ns; /* submission, or the intended start under --rate */
    int64_t res;       /* bytes transferred (0 for fsync), or -errno */
};

enum { SBIO_Q_DONE, SBIO_Q_QUEUED, SBIO_Q_BUSY };

#define SBIO_ENG_SYNC        1u /* queue() always completes: one clock read per op */
#define SBIO_ENG_NEEDS_ALIGN 2u /* buffers and offsets must be aligned even without O_DIRECT */
#define SBIO_ENG_NO_IO       4u /* does no I/O at all (null) */

struct sbio_engine_ops {
    const char *name;
    unsigned flags;
    /* Per-thread engine state. Returns 0 or -errno. */
    int (*init)(void **priv, const struct sbio_config *cfg);
    void (*cleanup)(void *priv);
    /* Open f->name relative to dirfd with oflags (O_RDWR plus extra flags); sets f->fd.
     * Returns 0 or -errno. */
    int (*open_file)(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags);
    int (*close_file)(void *priv, struct sbio_file *f);
    /* Start io on files[io->file]. SBIO_Q_DONE with io->res set, SBIO_Q_QUEUED, or
     * SBIO_Q_BUSY when the queue is full (reap first). */
    int (*queue)(void *priv, struct sbio_file *files, struct sbio_io *io);
    /* Async engines only: submit what queue() accepted. Returns 0 or -errno. */
    int (*commit)(void *priv);
    /* Async engines only: wait for at least min completions, return up to max in done.
     * Returns the number reaped or -errno. */
    int (*reap)(void *priv, unsigned min, struct sbio_io **done, unsigned max);
};

/* The engine for an enum sbio_ioengine value, or NULL when this build lacks it. */
const struct sbio_engine_ops *sbio_engine_find(int engine);

/* Engine-independent helper for synchronous engines: do one fsync or fdatasync. */
int sbio_engine_sync_file(int fd, int fsync_mode);

#endif
