/* mmap: each thread maps every file MAP_SHARED; reads and writes are memcpy, an fsync is
 * msync(MS_SYNC) of the whole mapping (--file-fsync-all: of the write's range). The data path makes
 * no system call: the page faults (reported by the runner) are the I/O. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../engine.h"

struct mmap_file {
    char *map;
    uint64_t len;
    bool rw; /* mapped writable: the file was opened O_RDWR */
};

struct mmap_priv {
    int fsync_mode;
    long page;
};

static int mm_init(void **priv, const struct sbio_config *cfg)
{
    struct mmap_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->fsync_mode = cfg->fsync_mode;
    p->page = sysconf(_SC_PAGESIZE);
    *priv = p;
    return 0;
}

static void mm_cleanup(void *priv)
{
    free(priv);
}

static int mm_open(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags)
{
    (void)priv;
    struct mmap_file *m = calloc(1, sizeof(*m));
    if (!m)
        return -ENOMEM;
    f->fd = openat(dirfd, name, (oflags & ~O_DIRECT) | O_NOFOLLOW | O_CLOEXEC);
    if (f->fd < 0) {
        int e = -errno;
        free(m);
        return e;
    }
    bool rw = (oflags & O_ACCMODE) == O_RDWR;
    m->len = f->size;
    m->rw = rw;
    /* A zero-length file cannot be mapped; it is never accessed either. */
    if (m->len) {
        m->map = mmap(NULL, m->len, PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED, f->fd, 0);
        if (m->map == MAP_FAILED) {
            int e = -errno;
            close(f->fd);
            f->fd = -1;
            free(m);
            return e;
        }
    }
    f->eng = m;
    return 0;
}

static int mm_close(void *priv, struct sbio_file *f)
{
    (void)priv;
    struct mmap_file *m = f->eng;
    if (m && m->map)
        munmap(m->map, m->len);
    free(m);
    f->eng = NULL;
    int rc = f->fd >= 0 && close(f->fd) ? -errno : 0;
    f->fd = -1;
    return rc;
}

/* msync(MS_SYNC) of [lo, hi), widened to whole pages as msync needs. */
static int mm_sync(const struct mmap_priv *p, struct mmap_file *m, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return 0;
    uint64_t start = lo & ~((uint64_t)p->page - 1);
    if (msync(m->map + start, hi - start, MS_SYNC))
        return -errno;
    return 0;
}

static int mm_queue(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    const struct mmap_priv *p = priv;
    struct mmap_file *m = files[io->file].eng;
    /* What pread/pwrite would refuse is refused here too, before it becomes a signal: a
     * closed file (no mapping state), a write through a read-only mapping (SIGSEGV). */
    if (!m || (io->op == SBIO_WRITE && !m->rw)) {
        io->res = -EBADF;
        return SBIO_Q_DONE;
    }
    /* Beyond the mapping (SIGBUS), written so that offset + len cannot wrap. */
    if (io->op != SBIO_FSYNC && (!m->map || io->offset > m->len || io->len > m->len - io->offset)) {
        io->res = -EINVAL;
        return SBIO_Q_DONE;
    }
    switch (io->op) {
    case SBIO_READ:
        memcpy(io->buf, m->map + io->offset, io->len);
        io->res = io->len;
        break;
    case SBIO_WRITE:
        memcpy(m->map + io->offset, io->buf, io->len);
        io->res = io->len;
        if (io->flags & SBIO_IO_FSYNC_AFTER) {
            int rc = mm_sync(p, m, io->offset, io->offset + io->len);
            if (rc)
                io->res = rc;
        }
        break;
    default:
        /* Like fsync(fd), cover the whole file: other threads' writes through their own
         * mappings are dirty pages of the same file. MS_SYNC writes back only dirty pages,
         * so a clean range costs no I/O — but the call is always made, and counted. */
        io->res = m->map ? mm_sync(p, m, 0, m->len) : 0;
        break;
    }
    return SBIO_Q_DONE;
}

const struct sbio_engine_ops sbio_engine_mmap = {
    .name = "mmap",
    .flags = SBIO_ENG_SYNC | SBIO_ENG_NO_DIRECT,
    .init = mm_init,
    .cleanup = mm_cleanup,
    .open_file = mm_open,
    .close_file = mm_close,
    .queue = mm_queue,
};
