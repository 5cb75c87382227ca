/* The kernel's own I/O counters of the job's group (cgroup.h) over the measured phase,
 * beside what sbio counted. A merge keeps none: each job has its own group. */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "probe.h"
#include "stats.h"
#include "util.h"

_Static_assert(sizeof(struct sbio_cgroup_io) <= sizeof(struct sbio_probe_group_io),
               "a snapshot of the group's counters fits in its slot");

static bool group_io_snap(void *snap, const struct sbio_probe_env *env)
{
    return env->group && !sbio_cgroup_io_read(env->group, snap);
}

/* The end's read minus the start's. A v1 group shows lines only once something was counted:
 * none at the start is zeros. */
static void group_io_delta(void *fig, const void *s0, const void *s1, bool ok,
                           const struct sbio_probe_env *env)
{
    const struct sbio_cgroup_io *g0 = s0, *g1 = s1;
    struct sbio_probe_group_io *g = fig;
    if (!env->group)
        return;
    snprintf(g->dir, sizeof(g->dir), "%.255s", env->group->dir);
    g->version = env->group->version;
    g->have = ok && g1->source[0] && (!g0->source[0] || !strcmp(g0->source, g1->source));
    if (g->have)
        g->io = (struct sbio_cgroup_io){.rbytes = g1->rbytes - g0->rbytes,
                                        .wbytes = g1->wbytes - g0->wbytes,
                                        .rios = g1->rios - g0->rios,
                                        .wios = g1->wios - g0->wios};
    snprintf(g->io.source, sizeof(g->io.source), "%s", g1->source);
}

static void group_io_merge(void *out, const void *part, unsigned i, enum sbio_merge_kind kind)
{
    (void)out, (void)part, (void)i, (void)kind;
}

static void group_io_text(FILE *out, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_group_io *grp = fig;
    if (!grp->dir[0])
        return;
    const struct sbio_cgroup_io *g = &grp->io;
    const struct sbio_stats *t = run->total;
    char a[32], b[32], c[32], d[32];
    if (!grp->have) {
        fprintf(out, "Group counters: none for the set's devices (%s)\n",
                grp->version == SBIO_CGROUP_V1 ? "blkio.throttle.* count once a limit has turned "
                                                 "throttling on, blkio.bfq.* under bfq"
                                               : "io.stat");
        return;
    }
    uint64_t rops = t->lat[SBIO_READ].count + t->lat[SBIO_RMW].count;
    uint64_t wops = t->lat[SBIO_WRITE].count + t->lat[SBIO_RMW].count;
    fprintf(out,
            "Group counters (%s): read %s in %" PRIu64 " request%s, written %s in %" PRIu64
            " request%s; sbio: read %s in %" PRIu64 " op%s, wrote %s in %" PRIu64 " op%s\n",
            g->source, sbio_fmt_bytes(a, sizeof(a), g->rbytes), g->rios, g->rios == 1 ? "" : "s",
            sbio_fmt_bytes(b, sizeof(b), g->wbytes), g->wios, g->wios == 1 ? "" : "s",
            sbio_fmt_bytes(c, sizeof(c), sbio_stats_bytes_read(t)), rops, rops == 1 ? "" : "s",
            sbio_fmt_bytes(d, sizeof(d), sbio_stats_bytes_written(t)), wops, wops == 1 ? "" : "s");
}

/* The job's group and the kernel's own counters of it; null without a group. */
static void group_io_json(json_t *obj, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_group_io *grp = fig;
    const struct sbio_cgroup_io *g = &grp->io;
    (void)run;
    json_object_set_new(
        obj, "group",
        !grp->dir[0]
            ? json_null()
            : json_pack(
                  "{s:s,s:s,s:o}", "path", grp->dir, "hierarchy",
                  grp->version == SBIO_CGROUP_V1 ? "cgroup v1 blkio" : "cgroup v2 io", "kernel",
                  grp->have ? json_pack("{s:s,s:I,s:I,s:I,s:I}", "source", g->source, "read_bytes",
                                        (json_int_t)g->rbytes, "write_bytes", (json_int_t)g->wbytes,
                                        "reads", (json_int_t)g->rios, "writes", (json_int_t)g->wios)
                            : json_null()));
}

const struct sbio_probe_ops sbio_probe_group_io = {.name = "group_io",
                                                   .snap = group_io_snap,
                                                   .delta = group_io_delta,
                                                   .merge = group_io_merge,
                                                   .text = group_io_text,
                                                   .json = group_io_json};
