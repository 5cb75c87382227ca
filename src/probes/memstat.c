/* --memory-limit: the page cache of the run's memory group (its memory.stat) as the measured
 * phase starts and ends, beside the group's limit. The jobs of a phase share the group: the
 * first job's figures are the phase's. Ranks keep their own. */
#include <jansson.h>
#include <string.h>

#include "probe.h"
#include "util.h"

_Static_assert(sizeof(struct sbio_memstat) <= sizeof(struct sbio_probe_memstat),
               "a snapshot of memory.stat fits in its slot");

static bool memstat_on(const struct sbio_probe_env *env)
{
    return env->memgroup && env->memgroup->version != SBIO_CGROUP_NONE;
}

/* False without a limit, or when memory.stat cannot be read. */
static bool memstat_snap(void *snap, const struct sbio_probe_env *env)
{
    return memstat_on(env) && !sbio_cgroup_memstat(env->memgroup->dir, snap);
}

static void memstat_delta(void *fig, const void *s0, const void *s1, bool ok,
                          const struct sbio_probe_env *env)
{
    struct sbio_probe_memstat *m = fig;
    if (!memstat_on(env))
        return;
    const struct sbio_memgroup *mg = env->memgroup;
    m->version = mg->version;
    m->limit = mg->limit;
    snprintf(m->file, sizeof(m->file), "%s", mg->file);
    snprintf(m->dir, sizeof(m->dir), "%s", mg->dir);
    m->have = ok;
    if (!ok)
        return;
    m->m0 = *(const struct sbio_memstat *)s0;
    m->m1 = *(const struct sbio_memstat *)s1;
}

static void memstat_merge(void *out, const void *part, unsigned i, enum sbio_merge_kind kind)
{
    if (!i && kind == SBIO_MERGE_JOBS)
        memcpy(out, part, sizeof(struct sbio_probe_memstat));
}

static void memstat_text(FILE *out, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_memstat *m = fig;
    (void)run;
    if (!m->have)
        return;
    char c[6][32];
    fprintf(out,
            "Page cache of the memory group (limit %s): at start %s, %s dirty; at end %s, %s "
            "dirty, %s under writeback\n",
            sbio_fmt_bytes(c[5], sizeof(c[5]), m->limit),
            sbio_fmt_bytes(c[0], sizeof(c[0]), m->m0.file),
            sbio_fmt_bytes(c[1], sizeof(c[1]), m->m0.dirty),
            sbio_fmt_bytes(c[2], sizeof(c[2]), m->m1.file),
            sbio_fmt_bytes(c[3], sizeof(c[3]), m->m1.dirty),
            sbio_fmt_bytes(c[4], sizeof(c[4]), m->m1.writeback));
}

static json_t *memstat_state(const struct sbio_memstat *m)
{
    return json_pack("{s:I,s:I,s:I}", "file_bytes", (json_int_t)m->file, "dirty_bytes",
                     (json_int_t)m->dirty, "writeback_bytes", (json_int_t)m->writeback);
}

/* The group and its page cache at the start and the end; null without a limit. */
static void memstat_json(json_t *obj, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_memstat *m = fig;
    (void)run;
    json_object_set_new(
        obj, "memory_group",
        m->version == SBIO_CGROUP_NONE
            ? json_null()
            : json_pack("{s:I,s:s,s:s,s:s,s:o,s:o}", "limit_bytes", (json_int_t)m->limit, "cgroup",
                        m->version == SBIO_CGROUP_V2 ? "v2" : "v1", "limit_file", m->file, "group",
                        m->dir, "start", m->have ? memstat_state(&m->m0) : json_null(), "end",
                        m->have ? memstat_state(&m->m1) : json_null()));
}

const struct sbio_probe_ops sbio_probe_memstat = {.name = "memstat",
                                                  .snap = memstat_snap,
                                                  .delta = memstat_delta,
                                                  .merge = memstat_merge,
                                                  .text = memstat_text,
                                                  .json = memstat_json};
