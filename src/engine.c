#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

extern const struct sbio_engine_ops sbio_engine_sync;
extern const struct sbio_engine_ops sbio_engine_null;
extern const struct sbio_engine_ops sbio_engine_libaio;
extern const struct sbio_engine_ops sbio_engine_io_uring;
extern const struct sbio_engine_ops sbio_engine_mmap;

/* Indexed by enum sbio_ioengine; NULL where this build has no such engine yet. */
/* clang-format off */
static const struct sbio_engine_ops *const engines[] = {
    [SBIO_ENGINE_SYNC] = &sbio_engine_sync,
    [SBIO_ENGINE_LIBAIO] = &sbio_engine_libaio,
    [SBIO_ENGINE_IO_URING] = &sbio_engine_io_uring,
    [SBIO_ENGINE_MMAP] = &sbio_engine_mmap,
    [SBIO_ENGINE_NULL] = &sbio_engine_null,
};
/* clang-format on */

const struct sbio_engine_ops *sbio_engine_find(int engine)
{
    if (engine < 0 || (unsigned)engine >= sizeof(engines) / sizeof(engines[0]))
        return NULL;
    return engines[engine];
}

const char *sbio_engine_list(void)
{
    static char list[128];
    if (!list[0])
        for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
            if (engines[i])
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                         list[0] ? ", " : "", engines[i]->name);
    return list;
}

int sbio_engine_sync_file(int fd, bool datasync)
{
    int rc = datasync ? fdatasync(fd) : fsync(fd);
    return rc ? -errno : 0;
}

int sbio_engine_open_fd(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags)
{
    (void)priv;
    f->fd = openat(dirfd, name, oflags | O_NOFOLLOW | O_CLOEXEC);
    return f->fd < 0 ? -errno : 0;
}

int sbio_engine_close_fd(void *priv, struct sbio_file *f)
{
    (void)priv;
    int rc = close(f->fd) ? -errno : 0;
    f->fd = -1;
    return rc;
}
