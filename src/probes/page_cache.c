/* The page cache of the set (cachestat, summed over its files) as the measured phase starts
 * and ends. The jobs of a phase share one set: the first job's figures are the phase's.
 * Ranks keep their own. */
#include <fcntl.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "fileset.h"
#include "probe.h"
#include "util.h"

_Static_assert(sizeof(struct sbio_cachestat) <= sizeof(struct sbio_probe_page_cache),
               "a snapshot of the page cache fits in its slot");

/* False when the kernel lacks cachestat, or a file cannot be opened. */
static bool page_cache_snap(void *snap, const struct sbio_probe_env *env)
{
    struct sbio_cachestat *cs = snap;
    const struct sbio_fileset *fs = env->fs;
    if (!fs || fs->dirfd < 0)
        return false;
    for (unsigned i = 0; i < fs->nfiles; i++) {
        int fd = openat(fs->dirfd, fs->files[i].name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return false;
        int rc = sbio_cachestat_add(fd, cs);
        close(fd);
        if (rc)
            return false;
    }
    return true;
}

static void page_cache_delta(void *fig, const void *s0, const void *s1, bool ok,
                             const struct sbio_probe_env *env)
{
    struct sbio_probe_page_cache *c = fig;
    (void)env;
    c->have = ok;
    if (!ok)
        return;
    c->c0 = *(const struct sbio_cachestat *)s0;
    c->c1 = *(const struct sbio_cachestat *)s1;
}

static void page_cache_merge(void *out, const void *part, unsigned i, enum sbio_merge_kind kind)
{
    if (!i && kind == SBIO_MERGE_JOBS)
        memcpy(out, part, sizeof(struct sbio_probe_page_cache));
}

static void page_cache_text(FILE *out, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_page_cache *pc = fig;
    (void)run;
    if (!pc->have)
        return;
    long pg = sysconf(_SC_PAGESIZE);
    char c[5][32];
    fprintf(out,
            "Page cache of the set: at start %s cached, %s dirty; at end %s cached, %s dirty,"
            " %s under writeback\n",
            sbio_fmt_bytes(c[0], sizeof(c[0]), pc->c0.cached * (uint64_t)pg),
            sbio_fmt_bytes(c[1], sizeof(c[1]), pc->c0.dirty * (uint64_t)pg),
            sbio_fmt_bytes(c[2], sizeof(c[2]), pc->c1.cached * (uint64_t)pg),
            sbio_fmt_bytes(c[3], sizeof(c[3]), pc->c1.dirty * (uint64_t)pg),
            sbio_fmt_bytes(c[4], sizeof(c[4]), pc->c1.writeback * (uint64_t)pg));
}

static json_t *page_cache_state(const struct sbio_cachestat *c)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I}", "cached_pages", (json_int_t)c->cached, "dirty_pages",
                     (json_int_t)c->dirty, "writeback_pages", (json_int_t)c->writeback,
                     "evicted_pages", (json_int_t)c->evicted, "recently_evicted_pages",
                     (json_int_t)c->recently_evicted);
}

static void page_cache_json(json_t *obj, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_page_cache *pc = fig;
    (void)run;
    json_object_set_new(obj, "page_cache",
                        pc->have ? json_pack("{s:o,s:o}", "start", page_cache_state(&pc->c0), "end",
                                             page_cache_state(&pc->c1))
                                 : json_null());
}

const struct sbio_probe_ops sbio_probe_page_cache = {.name = "page_cache",
                                                     .snap = page_cache_snap,
                                                     .delta = page_cache_delta,
                                                     .merge = page_cache_merge,
                                                     .text = page_cache_text,
                                                     .json = page_cache_json};
