/* io_uring (liburing): one ring per thread, many SQEs per io_uring_submit, completions
 * from the CQ ring. --uring-fixed registers the files and the buffers; --uring-sqpoll lets a
 * kernel thread poll the submission queue. An fsync is submitted only when the ring is
 * empty (the runner drains before it), so it covers every write before it.
 *
 * A request the kernel cannot start without blocking (every read or write on a device with
 * no NOWAIT support, such as zram; buffered writes) goes to an io-wq worker, which posts
 * its completion in the CQ ring itself; a request completed by an interrupt posts it by
 * task work on the submitting thread. With O_DIRECT both are most of the cost of a fast
 * device, and the ring is set up so that neither interrupts the thread (uring_setups), and
 * every submit also asks for completions, so that a reap finds them without another call.
 *
 * With O_DIRECT, waiting for a completion first polls the CQ ring for a short while: where
 * completions come from io-wq every few microseconds, a sleep and wake-up per completion cost more
 * than the request (measured on zram: doc/performance.md). A poll that finds nothing makes the next
 * waits sleep at once, more of them each time it misses, so a device whose completions take
 * longer costs no polling. */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"
#include "util.h"

struct uring_priv {
    struct io_uring ring;
    unsigned depth;
    bool datasync;
    bool fixed, sqpoll;
    bool disabled;   /* created disabled: the worker thread that uses it enables it */
    unsigned queued; /* SQEs prepared since the last submit */
    bool poll;       /* a wait polls the CQ ring first (not with DEFER_TASKRUN or SQPOLL) */
    unsigned misses; /* polls in a row that found nothing */
    unsigned skip;   /* waits left that sleep at once */
};

/* The setups tried in order, the first the kernel accepts (a kernel that lacks a flag says
 * -EINVAL). SINGLE_ISSUER (6.0) makes the thread that creates the ring its only submitter
 * unless the ring is created disabled: init() runs in the runner's thread, the worker thread
 * enables it (uring_post_open). With O_DIRECT the device completes requests after the
 * submit: COOP_TASKRUN and TASKRUN_FLAG (5.19) run the task work without interrupting the
 * thread and say in the SQ ring when some waits, and io-wq's completions land in the CQ ring
 * where a poll finds them. Buffered requests mostly complete inside the submit (the page
 * cache): DEFER_TASKRUN (6.1) posts them without the CQ ring's lock (a poll would find
 * nothing: its task work waits for the thread to enter the kernel, so it does not poll).
 * SQPOLL rings keep the default: their poller is the issuer. */
#define URING_SINGLE (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_R_DISABLED)
static const unsigned uring_setups[] = {
    URING_SINGLE | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
    0,
};
static const unsigned uring_setups_buffered[] = {
    URING_SINGLE | IORING_SETUP_DEFER_TASKRUN,
    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
    0,
};
#define URING_NSETUPS (sizeof(uring_setups) / sizeof(uring_setups[0]))

/* How long a wait polls the CQ ring before it sleeps; after n misses in a row the next
 * n * URING_SPIN_BACKOFF waits (at most URING_SPIN_SKIP_MAX) sleep at once. */
#define URING_SPIN_NS       10000u
#define URING_SPIN_BACKOFF  16u
#define URING_SPIN_SKIP_MAX 1024u

/* Completions taken from the CQ ring per peek. */
#define URING_BATCH 32u

/* Its options (engine.h): the index of each is where init() finds its value. */
enum { URING_OPT_FIXED, URING_OPT_SQPOLL };
static const struct sbio_engine_option uring_options[] = {
    [URING_OPT_FIXED] = {"uring-fixed", SBIO_EOPT_BOOL, "off", 0, 0, "on|off",
                         "io_uring: register the files and buffers"},
    [URING_OPT_SQPOLL] = {"uring-sqpoll", SBIO_EOPT_BOOL, "off", 0, 0, "on|off",
                          "io_uring: a kernel thread polls the submission queue"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

static int uring_init(void **priv, const struct sbio_engine_params *params)
{
    struct uring_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->depth = params->iodepth;
    p->datasync = params->datasync;
    p->fixed = params->options[URING_OPT_FIXED];
    p->sqpoll = params->options[URING_OPT_SQPOLL];
    int rc = -EINVAL;
    const unsigned *setups = params->direct ? uring_setups : uring_setups_buffered;
    for (unsigned i = p->sqpoll ? URING_NSETUPS - 1 : 0; rc == -EINVAL && i < URING_NSETUPS; i++) {
        struct io_uring_params up;
        memset(&up, 0, sizeof(up));
        up.flags = setups[i];
        if (p->sqpoll) {
            up.flags |= IORING_SETUP_SQPOLL;
            up.sq_thread_idle = 100; /* ms before the poller sleeps */
        }
        rc = io_uring_queue_init_params(p->depth, &p->ring, &up);
        p->disabled = !rc && (up.flags & IORING_SETUP_R_DISABLED);
        p->poll = !rc && !p->sqpoll && !(up.flags & IORING_SETUP_DEFER_TASKRUN);
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
        /* With GETEVENTS the same call runs the task work waiting: the completions so far
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

static inline void uring_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Poll for up to URING_SPIN_NS until a completion is in the CQ ring, or task work that would
 * post one waits (then run it, in a call that does not wait). true: something to take. */
static bool uring_spin(struct uring_priv *p)
{
    if (!p->poll || p->skip) {
        p->skip -= p->skip ? 1 : 0;
        return false;
    }
    uint64_t end = sbio_now_ns() + URING_SPIN_NS;
    do {
        if (io_uring_cq_ready(&p->ring)) {
            p->misses = 0;
            return true;
        }
        if (IO_URING_READ_ONCE(*p->ring.sq.kflags) & IORING_SQ_TASKRUN) {
            p->misses = 0;
            return io_uring_get_events(&p->ring) == 0;
        }
        uring_relax();
    } while (sbio_now_ns() < end);
    if (p->misses < URING_SPIN_SKIP_MAX / URING_SPIN_BACKOFF)
        p->misses++;
    p->skip = p->misses * URING_SPIN_BACKOFF;
    return false;
}

/* Take what completed; poll, then wait (one call, which also runs the task work) while fewer
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
        if (uring_spin(p))
            continue;
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
    .options = uring_options,
    .init = uring_init,
    .cleanup = uring_cleanup,
    .open_file = sbio_engine_open_fd,
    .close_file = sbio_engine_close_fd,
    .post_open = uring_post_open,
    .queue = uring_queue,
    .commit = uring_commit,
    .reap = uring_reap,
};
