#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The table: one line per engine, NAME for the engine src/engines/NAME.c defines as
 * sbio_engine_NAME. The order is the engines' ids, and so the order in which help and
 * messages list them; the internal engines (SBIO_ENG_INTERNAL) come last. The engines this
 * build has are exactly those listed here. */
#define ENGINE_TABLE(X)                                                                            \
    X(sync)                                                                                        \
    X(libaio)                                                                                      \
    X(io_uring)                                                                                    \
    X(mmap)                                                                                        \
    X(null)                                                                                        \
    X(fstree)

#define ENGINE_DECLARE(NAME) extern const struct sbio_engine_ops sbio_engine_##NAME;
#define ENGINE_ENTRY(NAME)   &sbio_engine_##NAME,
ENGINE_TABLE(ENGINE_DECLARE)
static const struct sbio_engine_ops *const engines[] = {ENGINE_TABLE(ENGINE_ENTRY)};
#define NENGINES ((int)(sizeof(engines) / sizeof(engines[0])))

int sbio_engine_count(void)
{
    int n = 0;
    while (n < NENGINES && !(engines[n]->flags & SBIO_ENG_INTERNAL))
        n++;
    return n;
}

const struct sbio_engine_ops *sbio_engine_find(int id)
{
    return id >= 0 && id < NENGINES ? engines[id] : NULL;
}

int sbio_engine_id(const char *name)
{
    for (int i = 0; i < sbio_engine_count(); i++)
        if (!strcmp(engines[i]->name, name))
            return i;
    return -ENOENT;
}

int sbio_engine_with(unsigned flags)
{
    for (int i = 0; i < NENGINES; i++)
        if ((engines[i]->flags & flags) == flags)
            return i;
    return -ENOENT;
}

bool sbio_engine_has(int id, unsigned flags)
{
    const struct sbio_engine_ops *e = sbio_engine_find(id);
    return e && (e->flags & flags) == flags;
}

const struct sbio_engine_option *sbio_engine_option(unsigned slot, int *id)
{
    unsigned s = 0;
    for (int i = 0; i < NENGINES; i++)
        for (const struct sbio_engine_option *o = engines[i]->options; o && o->name; o++, s++) {
            if (s >= SBIO_ENGINE_MAX_OPTS)
                abort(); /* the option slots (SBIO_ENGINE_MAX_OPTS) are too few */
            if (s == slot) {
                *id = i;
                return o;
            }
        }
    return NULL;
}

unsigned sbio_engine_option_base(int id)
{
    unsigned s = 0;
    for (int i = 0; i < id && i < NENGINES; i++)
        for (const struct sbio_engine_option *o = engines[i]->options; o && o->name; o++)
            s++;
    return s;
}

const char *sbio_engine_name(int id)
{
    const struct sbio_engine_ops *e = sbio_engine_find(id);
    return e ? e->name : "?";
}

const char *sbio_engine_kind(int id)
{
    const struct sbio_engine_ops *e = sbio_engine_find(id);
    return e ? e->kind : "?";
}

char *sbio_engine_names(char *buf, size_t len, const char *sep, unsigned without)
{
    size_t l = 0;
    buf[0] = 0;
    for (int i = 0; i < sbio_engine_count() && l < len; i++) {
        if (engines[i]->flags & without)
            continue;
        int n = snprintf(buf + l, len - l, "%s%s", l ? sep : "", engines[i]->name);
        l += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

static char engine_list[128];

static void engine_list_build(void)
{
    sbio_engine_names(engine_list, sizeof(engine_list), ", ", 0);
}

const char *sbio_engine_list(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, engine_list_build);
    return engine_list;
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
