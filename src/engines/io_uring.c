/* io_uring (liburing): one ring per thread, many SQEs per io_uring_submit, completions
 * from the CQ ring. --uring-fixed registers the files and the buffers; --uring-sqpoll lets a
 * kernel thread poll the submission queue. An fsync is submitted only when the ring is
 * empty (the runner drains before it), so it covers every write before it.
 *
 * A request the kernel cannot start without blocking (every read or write on a device with
 * no NOWAIT support, such as zram; buffered writes) goes to an io-wq worker, whose
 * completion is posted by task work on the submitting thread. How that task work runs is
 * most of the cost of a fast device: by default it interrupts the thread for each
 * completion; DEFER_TASKRUN queues it until the thread asks for completions, then posts
 * them in one batch. So the ring is set up as fio sets up its own, and every submit also
 * asks for completions, so that a reap finds them in the CQ ring without another call. */
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
    bool disabled;   /* created disabled: the worker thread that uses it enables it */
    unsigned queued; /* SQEs prepared since the last submit */
};

/* The setups tried in order, the first the kernel accepts (a kernel that lacks a flag says
 * -EINVAL): DEFER_TASKRUN (6.1) needs SINGLE_ISSUER, and a single issuer is the task that
 * creates the ring unless it is created disabled: init() runs in the runner's thread, the
 * worker thread enables it (uring_post_open). COOP_TASKRUN (5.19): no interrupt per
 * completion. SQPOLL rings keep the default: their poller is the issuer. */
static const unsigned uring_setups[] = {
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED,
    IORING_SETUP_COOP_TASKRUN,
    0,
};
#define URING_NSETUPS (sizeof(uring_setups) / sizeof(uring_setups[0]))

/* Completions taken from the CQ ring per peek. */
#define URING_BATCH 32u

static int uring_init(void **priv, const struct sbio_engine_params *params)
{
    struct uring_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->depth = params->iodepth;
    p->datasync = params->datasync;
    p->fixed = params->uring_fixed;
    p->sqpoll = params->uring_sqpoll;
    int rc = -EINVAL;
    for (unsigned i = p->sqpoll ? URING_NSETUPS - 1 : 0; rc == -EINVAL && i < URING_NSETUPS; i++) {
        struct io_uring_params up;
        memset(&up, 0, sizeof(up));
        up.flags = uring_setups[i];
        if (p->sqpoll) {
            up.flags |= IORING_SETUP_SQPOLL;
            up.sq_thread_idle = 100; /* ms before the poller sleeps */
        }
        rc = io_uring_queue_init_params(p->depth, &p->ring, &up);
        p->disabled = !rc && (up.flags & IORING_SETUP_R_DISABLED);
    }
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
    /* This runs in the thread that submits and reaps: it becomes the ring's single issuer.
     * (liburing 2.3 declares io_uring_enable_rings but does not export it.) */
    if (p->disabled) {
        int rc = io_uring_register(p->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
        if (rc)
            return rc;
        p->disabled = false;
    }
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
        /* With GETEVENTS the same call runs the deferred task work: the completions so far
         * are in the CQ ring for the next reap. The poller's ring needs no call to submit. */
        int n = p->sqpoll ? io_uring_submit(&p->ring) : io_uring_submit_and_get_events(&p->ring);
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

/* Take up to max completions that are in the CQ ring now, without a system call. */
static unsigned uring_take(struct uring_priv *p, struct sbio_io **done, unsigned max)
{
    struct io_uring_cqe *cqes[URING_BATCH];
    unsigned n = 0, got;
    do {
        got =
            io_uring_peek_batch_cqe(&p->ring, cqes, max - n < URING_BATCH ? max - n : URING_BATCH);
        for (unsigned i = 0; i < got; i++) {
            struct sbio_io *io = io_uring_cqe_get_data(cqes[i]);
            io->res = cqes[i]->res;
            done[n++] = io;
        }
        io_uring_cq_advance(&p->ring, got);
    } while (got == URING_BATCH && n < max);
    return n;
}

/* Take what completed; wait (one call, which also runs the deferred task work) while fewer
 * than min did. */
static int uring_reap(void *priv, unsigned min, struct sbio_io **done, unsigned max,
                      uint64_t timeout_ns)
{
    struct uring_priv *p = priv;
    unsigned n = 0;
    for (;;) {
        n += uring_take(p, done + n, max - n);
        if (n >= min || n >= max)
            break;
        struct io_uring_cqe *cqe;
        int rc;
        if (timeout_ns == UINT64_MAX) {
            rc = io_uring_wait_cqe(&p->ring, &cqe);
        } else {
            struct __kernel_timespec ts = {.tv_sec = (long long)(timeout_ns / 1000000000ULL),
                                           .tv_nsec = (long long)(timeout_ns % 1000000000ULL)};
            rc = io_uring_wait_cqe_timeout(&p->ring, &cqe, &ts);
            if (rc == -ETIME)
                break;
        }
        if (rc < 0 && rc != -EINTR)
            return n ? (int)n : rc;
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
