/* null: completes every operation at once without I/O. Tests the whole runner without
 * touching a disk and measures sbio's own cost per operation. */
#include "engine.h"

static int null_init(void **priv, const struct sbio_engine_params *params)
{
    (void)params;
    *priv = NULL;
    return 0;
}

static void null_cleanup(void *priv)
{
    (void)priv;
}

static int null_open(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags)
{
    (void)priv, (void)dirfd, (void)name, (void)oflags;
    f->fd = -1;
    return 0;
}

static int null_close(void *priv, struct sbio_file *f)
{
    (void)priv, (void)f;
    return 0;
}

static int null_queue(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    (void)priv, (void)files;
    io->res = io->op == SBIO_FSYNC ? 0 : io->len;
    return SBIO_Q_DONE;
}

const struct sbio_engine_ops sbio_engine_null = {
    .name = "null",
    .kind = "null (no I/O)",
    .flags = SBIO_ENG_SYNC | SBIO_ENG_NO_IO,
    .init = null_init,
    .cleanup = null_cleanup,
    .open_file = null_open,
    .close_file = null_close,
    .queue = null_queue,
};
