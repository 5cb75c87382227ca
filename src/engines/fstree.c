/* fstree: carries out a tree job's file-system operations (fsop.h), each by its system calls,
 * on the files and folders the thread's fsop state chose. Internal: a tree job names the
 * sync engine (its operations are system calls too) and the runner runs it with this one. */
#include "engine.h"
#include "fsop.h"

static int tree_init(void **priv, const struct sbio_engine_params *params)
{
    *priv = params->thread_state;
    return 0;
}

static void tree_cleanup(void *priv)
{
    (void)priv; /* the runner owns the thread's state */
}

static int tree_queue(void *priv, struct sbio_file *files, struct sbio_io *io)
{
    (void)files;
    sbio_fsop_do(priv, io);
    return SBIO_Q_DONE;
}

const struct sbio_engine_ops sbio_engine_fstree = {
    .name = "fstree",
    .kind = "synchronous",
    .flags = SBIO_ENG_SYNC | SBIO_ENG_NO_DIRECT | SBIO_ENG_INTERNAL | SBIO_ENG_FSOPS,
    .init = tree_init,
    .cleanup = tree_cleanup,
    .open_file = sbio_engine_open_fd,
    .close_file = sbio_engine_close_fd,
    .queue = tree_queue,
};
