/* sync: pread/pwrite/fsync, one system call per operation; a read-modify-write as bonnie++'s
 * rewrite makes it: read(2) at the file position, lseek(2) back one block, write(2). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "engine.h"

struct sync_priv {
    bool datasync;
};

static int sync_init(void **priv, const struct sbio_engine_params *params)
{
    static struct sync_priv modes[2] = {{false}, {true}};
    /* Read-only and shared: nothing per thread to allocate. */
    *priv = &modes[params->datasync];
    return 0;
}

static void sync_cleanup(void *priv)
{
    (void)priv;
}

/* A thread's own descriptor starts at position 0, known; the runner opens the shared ones
 * (priv NULL), whose position belongs to no thread. */
static int sync_open_file(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags)
{
    f->shared = priv == NULL;
    f->pos = 0;
    f->pos_known = !f->shared;
    return sbio_engine_open_fd(priv, f, dirfd, name, oflags);
}

/* A read-modify-write's half at the file position: the read where the last one left it (an
 * lseek first when elsewhere), the write after an lseek back over what the read just read.
 * Returns what read(2) or write(2) returned, or -1 with errno. */
static ssize_t sync_rmw_half(struct sbio_file *f, struct sbio_io *io)
{
    off_t off = (off_t)io->offset, back = -(off_t)io->len;
    bool wr = io->op == SBIO_WRITE;
    off_t rc = 0;
    if (wr && f->pos_known && f->pos == io->offset + io->len)
        rc = lseek(f->fd, back, SEEK_CUR);
    else if (!f->pos_known || f->pos != io->offset)
        rc = lseek(f->fd, off, SEEK_SET);
    f->pos_known = false;
    if (rc < 0)
        return -1;
    ssize_t n = wr ? write(f->fd, io->buf, io->len) : read(f->fd, io->buf, io->len);
    if (n >= 0) {
        f->pos = io->offset + (uint64_t)n;
        f->pos_known = true;
    }
    return n;
}

static int sync_queue(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    const struct sync_priv *p = priv;
    struct sbio_file *f = &files[io->file];
    int fd = f->fd;
    bool at_pos = (io->flags & SBIO_IO_RMW) && !f->shared;
    ssize_t n;
    switch (io->op) {
    case SBIO_READ:
        n = at_pos ? sync_rmw_half(f, io) : pread(fd, io->buf, io->len, (off_t)io->offset);
        io->res = n < 0 ? -errno : n;
        break;
    case SBIO_WRITE:
        n = at_pos ? sync_rmw_half(f, io) : pwrite(fd, io->buf, io->len, (off_t)io->offset);
        io->res = n < 0 ? -errno : n;
        if (n == (ssize_t)io->len && (io->flags & SBIO_IO_FSYNC_AFTER)) {
            int rc = sbio_engine_sync_file(fd, p->datasync);
            if (rc) {
                io->res = rc;
                io->flags |= SBIO_IO_SYNC_FAILED;
            }
        }
        break;
    default:
        io->res = sbio_engine_sync_file(fd, (io->flags & SBIO_IO_DATASYNC) || p->datasync);
        break;
    }
    return SBIO_Q_DONE;
}

const struct sbio_engine_ops sbio_engine_sync = {
    .name = "sync",
    .kind = "synchronous",
    .flags = SBIO_ENG_SYNC | SBIO_ENG_SHARED_FD | SBIO_ENG_PSYNC,
    .init = sync_init,
    .cleanup = sync_cleanup,
    .open_file = sync_open_file,
    .close_file = sbio_engine_close_fd,
    .queue = sync_queue,
};
