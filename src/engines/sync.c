/* sync: pread/pwrite/fsync, one system call per operation. */
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

static int sync_queue(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    const struct sync_priv *p = priv;
    int fd = files[io->file].fd;
    ssize_t n;
    switch (io->op) {
    case SBIO_READ:
        n = pread(fd, io->buf, io->len, (off_t)io->offset);
        io->res = n < 0 ? -errno : n;
        break;
    case SBIO_WRITE:
        n = pwrite(fd, io->buf, io->len, (off_t)io->offset);
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
    .open_file = sbio_engine_open_fd,
    .close_file = sbio_engine_close_fd,
    .queue = sync_queue,
};
