#include "engine.h"

#include <errno.h>
#include <unistd.h>

extern const struct sbio_engine_ops sbio_engine_sync;
extern const struct sbio_engine_ops sbio_engine_null;

/* Indexed by enum sbio_ioengine; NULL where this build has no such engine yet. */
static const struct sbio_engine_ops *const engines[] = {
    [SBIO_ENGINE_SYNC] = &sbio_engine_sync, [SBIO_ENGINE_LIBAIO] = NULL,
    [SBIO_ENGINE_IO_URING] = NULL,          [SBIO_ENGINE_MMAP] = NULL,
    [SBIO_ENGINE_NULL] = &sbio_engine_null,
};

const struct sbio_engine_ops *sbio_engine_find(int engine)
{
    if (engine < 0 || (unsigned)engine >= sizeof(engines) / sizeof(engines[0]))
        return NULL;
    return engines[engine];
}

int sbio_engine_sync_file(int fd, int fsync_mode)
{
    int rc = fsync_mode == SBIO_FSYNC_FDATASYNC ? fdatasync(fd) : fsync(fd);
    return rc ? -errno : 0;
}
