/* io_uring (liburing): one ring per thread, many SQEs per io_uring_submit, completions
 * from the CQ ring. --uring-fixed registers the files and the buffers; --uring-sqpoll lets a
 * kernel thread poll the submission queue. An fsync is submitted only when the ring is
 * empty (the runner drains before it), so it covers every write before it. */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../engine.h"

struct uring_priv {
    struct io_uring ring;
    unsigned depth;
    bool datasync;
    bool fixed, sqpoll;
    unsigned queued; /* SQEs prepared since the last submit */
};

static int uring_init(void **priv, const struct sbio_engine_params *params)
{
    struct uring_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->depth = params->iodepth;
    p->datasync = params->datasync;
    p->fixed = params->uring_fixed;
    p->sqpoll = params->uring_sqpoll;
    struct io_uring_params up;
    memset(&up, 0, sizeof(up));
    if (p->sqpoll) {
        up.flags |= IORING_SETUP_SQPOLL;
        up.sq_thread_idle = 100; /* ms before the poller sleeps */
    }
    int rc = io_uring_queue_init_params(p->depth, &p->ring, &up);
    if (rc) {
        free(p);
        return rc; /* -ENOSYS, -EPERM (seccomp, io_uring_disabled): the caller says so */
    }
    *priv = p;
    return 0;
}

static void uring_cleanup(void *priv)
{
    struct uring_priv *p = priv;
    io_uring_queue_exit(&p->ring);
    free(p);
}

static int uring_post_open(void *priv, struct sbio_file *files, unsigned nfiles,
                           struct sbio_io *ios, unsigned nios)
{
    struct uring_priv *p = priv;
    if (!p->fixed)
        return 0;
    int *fds = malloc(nfiles * sizeof(int));
    struct iovec *iov = malloc(nios * sizeof(*iov));
    int rc = -ENOMEM;
    if (fds && iov) {
        for (unsigned i = 0; i < nfiles; i++)
            fds[i] = files[i].fd;
        for (unsigned i = 0; i < nios; i++) {
            iov[ios[i].slot].iov_base = ios[i].buf;
            /* Every slot's buffer has the request size: the largest len it will carry. */
            iov[ios[i].slot].iov_len = ios[i].len ? ios[i].len : 0;
        }
        rc = io_uring_register_files(&p->ring, fds, nfiles);
        if (!rc)
            rc = io_uring_register_buffers(&p->ring, iov, nios);
    }
    free(fds);
    free(iov);
    return rc;
}

static int uring_queue(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    struct uring_priv *p = priv;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
    if (!sqe)
        return SBIO_Q_BUSY;
    /* Registered files are addressed by index, the others by descriptor. */
    int fd = p->fixed ? (int)io->file : files[io->file].fd;
    switch (io->op) {
    case SBIO_READ:
        if (p->fixed)
            io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->offset, (int)io->slot);
        else
            io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
        break;
    case SBIO_WRITE:
        if (p->fixed)
            io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->offset, (int)io->slot);
        else
            io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
        break;
    default:
        io_uring_prep_fsync(
            sqe, fd, p->datasync || (io->flags & SBIO_IO_DATASYNC) ? IORING_FSYNC_DATASYNC : 0);
        /* No IOSQE_IO_DRAIN: the runner queues an fsync only when nothing is in flight, and
         * a drain would also hold back every io after it (libaio does not). */
        break;
    }
    if (p->fixed)
        sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, io);
    p->queued++;
    return SBIO_Q_QUEUED;
}

static int uring_commit(void *priv)
{
    struct uring_priv *p = priv;
    while (p->queued) {
        int n = io_uring_submit(&p->ring);
        if (n == -EINTR || n == -EAGAIN)
            continue;
        if (n < 0)
            return n;
        p->queued -= (unsigned)n < p->queued ? (unsigned)n : p->queued;
        if (p->sqpoll)
            p->queued = 0; /* the poller takes them; submit returned what it saw */
    }
    return 0;
}

static int uring_reap(void *priv, unsigned min, struct sbio_io **done, unsigned max,
                      uint64_t timeout_ns)
{
    struct uring_priv *p = priv;
    unsigned n = 0;
    while (n < max) {
        struct io_uring_cqe *cqe;
        int rc;
        if (n >= min) {
            rc = io_uring_peek_cqe(&p->ring, &cqe);
            if (rc == -EAGAIN)
                break;
        } else if (timeout_ns == UINT64_MAX) {
            rc = io_uring_wait_cqe(&p->ring, &cqe);
        } else {
            struct __kernel_timespec ts = {.tv_sec = (long long)(timeout_ns / 1000000000ULL),
                                           .tv_nsec = (long long)(timeout_ns % 1000000000ULL)};
            rc = io_uring_wait_cqe_timeout(&p->ring, &cqe, &ts);
            if (rc == -ETIME)
                break;
        }
        if (rc == -EINTR)
            continue;
        if (rc < 0)
            return n ? (int)n : rc;
        struct sbio_io *io = io_uring_cqe_get_data(cqe);
        io->res = cqe->res;
        io_uring_cqe_seen(&p->ring, cqe);
        done[n++] = io;
    }
    return (int)n;
}

const struct sbio_engine_ops sbio_engine_io_uring = {
    .name = "io_uring",
    .kind = "asynchronous",
    .flags = SBIO_ENG_SHARED_FD,
    .thread_fds = 1,
    .init = uring_init,
    .cleanup = uring_cleanup,
    .open_file = sbio_engine_open_fd,
    .close_file = sbio_engine_close_fd,
    .post_open = uring_post_open,
    .queue = uring_queue,
    .commit = uring_commit,
    .reap = uring_reap,
};
