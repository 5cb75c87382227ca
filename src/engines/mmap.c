/* mmap: each thread maps every file MAP_SHARED; reads and writes are memcpy, an fsync is
 * msync(MS_SYNC) of the whole mapping (--file-fsync-all: of the write's range). The data path makes
 * no system call: the page faults (reported by the runner) are the I/O. When the open-file
 * limit cannot give every thread its own descriptors, the runner maps each file once and the
 * threads share the mappings (SBIO_ENG_SHARED_FD): a mapping's state is only read after it
 * is made, and msync of a shared mapping writes back the file's dirty pages as any thread's
 * own mapping would. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine.h"
#include "sanitize.h"

struct mmap_file {
    char *map;
    uint64_t len;
    bool rw; /* mapped writable: the file was opened O_RDWR */
};

struct mmap_priv {
    long page;
    int madvise; /* advice for every mapping (--fadvise), -1: none */
};

/* A page the kernel cannot back — no space left for a hole being filled, an I/O error on a
 * page-in — is a SIGBUS at the memcpy. The copy runs under a per-thread jump buffer so the
 * fault becomes an error on that io, as pwrite's would be, instead of killing the run.
 * SA_NODEFER and sigsetjmp(…, 0): no signal-mask system call on the hot path. */
/* volatile: memcpy is a builtin the compiler knows cannot read it, and would otherwise drop
 * the store before it as dead. */
static __thread sigjmp_buf *volatile mm_jmp;
static pthread_once_t mm_once = PTHREAD_ONCE_INIT;

static void mm_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)si, (void)uc;
    if (mm_jmp)
        siglongjmp(*mm_jmp, 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void mm_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = mm_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* memcpy that returns -ENOSPC or -EIO instead of dying on SIGBUS. */
static int mm_copy(void *dst, const void *src, size_t len, int fd)
{
    sigjmp_buf jb;
    if (sigsetjmp(jb, 0)) {
        /* No sbio_race_payload_end() here: ThreadSanitizer clears a thread's ignores while it
         * runs a signal handler and restores them when the handler returns, which this jump
         * skips, so they are already off. */
        mm_jmp = NULL;
        struct statvfs vfs;
        return !fstatvfs(fd, &vfs) && vfs.f_bavail == 0 ? -ENOSPC : -EIO;
    }
    mm_jmp = &jb;
    /* Threads sharing one mapping copy the same offsets as they would with pread/pwrite. */
    sbio_race_payload_begin();
    memcpy(dst, src, len);
    sbio_race_payload_end();
    mm_jmp = NULL;
    return 0;
}

static int mm_init(void **priv, const struct sbio_engine_params *params)
{
    pthread_once(&mm_once, mm_install);
    struct mmap_priv *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    /* msync has no data-only form: --file-fsync-mode changes nothing. */
    p->page = sysconf(_SC_PAGESIZE);
    p->madvise = params->madvise;
    *priv = p;
    return 0;
}

static void mm_cleanup(void *priv)
{
    free(priv);
}

static int mm_open(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags)
{
    const struct mmap_priv *p = priv;
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
        /* The hint is what makes a fault read one page rather than a readahead window. */
        int e = m->map == MAP_FAILED ? -errno
                : p->madvise >= 0    ? -posix_madvise(m->map, m->len, p->madvise)
                                     : 0;
        if (e) {
            if (m->map != MAP_FAILED)
                munmap(m->map, m->len);
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

/* invalidate = "pass": the mapping's pages unmapped (MADV_DONTNEED: a dirty page stays dirty
 * in the page cache), as fio's munmap at the end of a pass, then the file's pages dropped. */
static int mm_drop(void *priv, struct sbio_file *f)
{
    (void)priv;
    const struct mmap_file *m = f->eng;
    if (m && m->map && madvise(m->map, m->len, MADV_DONTNEED))
        return -errno;
    return -posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
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
    int rc;
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
        rc = mm_copy(io->buf, m->map + io->offset, io->len, files[io->file].fd);
        io->res = rc ? rc : (int64_t)io->len;
        break;
    case SBIO_WRITE:
        rc = mm_copy(m->map + io->offset, io->buf, io->len, files[io->file].fd);
        io->res = rc ? rc : (int64_t)io->len;
        if (rc)
            break;
        if (io->flags & SBIO_IO_FSYNC_AFTER) {
            int rc = mm_sync(p, m, io->offset, io->offset + io->len);
            if (rc) {
                io->res = rc;
                io->flags |= SBIO_IO_SYNC_FAILED;
            }
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
    .kind = "fast mmaped",
    .flags = SBIO_ENG_SYNC | SBIO_ENG_NO_DIRECT | SBIO_ENG_MAPS | SBIO_ENG_SHARED_FD,
    .init = mm_init,
    .cleanup = mm_cleanup,
    .open_file = mm_open,
    .close_file = mm_close,
    .drop = mm_drop,
    .queue = mm_queue,
};
