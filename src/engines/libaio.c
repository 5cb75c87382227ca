/* libaio: Linux native AIO. A context per thread, up to iodepth iocbs in flight, one
 * io_submit for everything queued since the last commit, completions by io_getevents.
 * Without O_DIRECT the kernel runs most requests synchronously inside io_submit: the runner
 * says so and reports the depth actually reached. */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

struct aio_priv {
    io_context_t ctx;
    unsigned depth;
    bool datasync;
    struct iocb *iocbs;    /* [depth], indexed by io->slot */
    struct iocb **pending; /* queued, not yet submitted */
    unsigned npending;
    struct io_event *events; /* [depth] */
    struct sbio_io **failed; /* refused by io_submit, for the next reap to return */
    unsigned nfailed;
};

static int aio_init(void **priv, const struct sbio_engine_params *params)
{
    struct aio_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->depth = params->iodepth;
    p->datasync = params->datasync;
    p->iocbs = calloc(p->depth, sizeof(*p->iocbs));
    p->pending = calloc(p->depth, sizeof(*p->pending));
    p->events = calloc(p->depth, sizeof(*p->events));
    p->failed = calloc(p->depth, sizeof(*p->failed));
    int rc = p->iocbs && p->pending && p->events && p->failed ? io_setup((int)p->depth, &p->ctx)
                                                              : -ENOMEM;
    if (rc) {
        /* io_setup returns -errno; EAGAIN: fs.aio-max-nr is exhausted. */
        free(p->iocbs);
        free(p->pending);
        free(p->events);
        free(p->failed);
        free(p);
        return rc;
    }
    *priv = p;
    return 0;
}

static void aio_cleanup(void *priv)
{
    struct aio_priv *p = priv;
    io_destroy(p->ctx);
    free(p->iocbs);
    free(p->pending);
    free(p->events);
    free(p->failed);
    free(p);
}

static int aio_queue(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    struct aio_priv *p = priv;
    if (io->slot >= p->depth || p->npending >= p->depth)
        return SBIO_Q_BUSY;
    struct iocb *cb = &p->iocbs[io->slot];
    int fd = files[io->file].fd;
    switch (io->op) {
    case SBIO_READ: io_prep_pread(cb, fd, io->buf, io->len, (long long)io->offset); break;
    case SBIO_WRITE: io_prep_pwrite(cb, fd, io->buf, io->len, (long long)io->offset); break;
    default:
        if (p->datasync || (io->flags & SBIO_IO_DATASYNC))
            io_prep_fdsync(cb, fd);
        else
            io_prep_fsync(cb, fd);
        break;
    }
    cb->data = io;
    p->pending[p->npending++] = cb;
    return SBIO_Q_QUEUED;
}

static int aio_commit(void *priv)
{
    struct aio_priv *p = priv;
    unsigned done = 0;
    while (done < p->npending) {
        int n = io_submit(p->ctx, (long)(p->npending - done), p->pending + done);
        if (n == -EAGAIN || n == -EINTR)
            continue;
        if (n < 0) {
            /* The first iocb was refused (a bad descriptor or offset, or no aio fsync on this
             * file system): that io fails with the errno and comes back from the next reap
             * like any other, so the caller sees it exactly once; go on with the rest. */
            struct sbio_io *io = p->pending[done++]->data;
            io->res = n;
            p->failed[p->nfailed++] = io;
            continue;
        }
        done += (unsigned)n;
    }
    p->npending = 0;
    return 0;
}

static int aio_reap(void *priv, unsigned min, struct sbio_io **done, unsigned max,
                    uint64_t timeout_ns)
{
    struct aio_priv *p = priv;
    struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000ULL),
                          .tv_nsec = (long)(timeout_ns % 1000000000ULL)};
    unsigned n = 0;
    while (p->nfailed && n < max)
        done[n++] = p->failed[--p->nfailed];
    if (n == max)
        return (int)n;
    unsigned want = max - n > p->depth ? p->depth : max - n;
    int got;
    do
        got = io_getevents(p->ctx, n >= min ? 0 : (long)(min - n), (long)want, p->events,
                           timeout_ns == UINT64_MAX ? NULL : &ts);
    while (got == -EINTR);
    if (got < 0)
        return n ? (int)n : got;
    for (int i = 0; i < got; i++) {
        struct sbio_io *io = p->events[i].data;
        long res = (long)p->events[i].res;
        io->res = res;
        done[n++] = io;
    }
    return (int)n;
}

const struct sbio_engine_ops sbio_engine_libaio = {
    .name = "libaio",
    .kind = "asynchronous",
    .flags = SBIO_ENG_SHARED_FD | SBIO_ENG_BUFFERED_INLINE | SBIO_ENG_AIO_MAX_NR,
    .init = aio_init,
    .cleanup = aio_cleanup,
    .open_file = sbio_engine_open_fd,
    .close_file = sbio_engine_close_fd,
    .queue = aio_queue,
    .commit = aio_commit,
    .reap = aio_reap,
};
