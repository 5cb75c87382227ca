/* Device counters (/sys/block/DEV/stat) of the set's devices as the measured phase starts and
 * ends: the top device first, then the scheduler devices that differ from it (dm/md slaves).
 * They count every process's I/O. The jobs of a phase share the first job's; ranks keep
 * their own (each host's are printed once, as its first rank saw them). */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "probe.h"
#include "util.h"

struct devices_snap {
    unsigned ndisk;
    char name[SBIO_MAX_DEVS + 1][64];
    struct sbio_diskstat ds[SBIO_MAX_DEVS + 1];
};
_Static_assert(sizeof(struct devices_snap) <= sizeof(struct sbio_probe_devices),
               "a snapshot of the devices fits in their slot");

/* None without a target; false when a counter could not be read. */
static bool devices_snap(void *snap, const struct sbio_probe_env *env)
{
    struct devices_snap *s = snap;
    const struct sbio_target *t = env->target;
    if (!t || !t->has_top)
        return true;
    bool ok = !sbio_diskstat_read(&t->top, &s->ds[0]);
    snprintf(s->name[0], sizeof(s->name[0]), "%s", t->top.name);
    s->ndisk = 1;
    for (unsigned i = 0; i < t->ndev; i++) {
        if (!strcmp(t->dev[i].name, t->top.name))
            continue;
        ok = !sbio_diskstat_read(&t->dev[i], &s->ds[s->ndisk]) && ok;
        snprintf(s->name[s->ndisk], sizeof(s->name[0]), "%s", t->dev[i].name);
        s->ndisk++;
    }
    return ok;
}

/* A counter read that failed (no descriptor left, a device gone) would turn the other
 * snapshot into figures since boot: no device figures then. */
static void devices_delta(void *fig, const void *s0, const void *s1, bool ok,
                          const struct sbio_probe_env *env)
{
    const struct devices_snap *a = s0, *b = s1;
    struct sbio_probe_devices *d = fig;
    (void)env;
    if (!ok)
        return;
    d->ndisk = b->ndisk;
    memcpy(d->name, b->name, sizeof(d->name));
    memcpy(d->d0, a->ds, sizeof(d->d0));
    memcpy(d->d1, b->ds, sizeof(d->d1));
}

/* The jobs ran on one set at one time: the counters any job saw are the phase's. */
static void devices_merge(void *out, const void *part, unsigned i, enum sbio_merge_kind kind)
{
    if (!i && kind == SBIO_MERGE_JOBS)
        memcpy(out, part, sizeof(struct sbio_probe_devices));
}

/* Deltas over the measured phase; merges counted too. */
static void devices_lines(FILE *out, const struct sbio_probe_devices *dev, double secs,
                          const char *where)
{
    char a[32], b[32];
    for (unsigned i = 0; i < dev->ndisk; i++) {
        const uint64_t *d0 = dev->d0[i].f, *d1 = dev->d1[i].f;
        uint64_t d[17];
        for (int k = 0; k < 17; k++)
            d[k] = d1[k] - d0[k];
        fprintf(out,
                "Device %s%s over the run: reads %" PRIu64 " (merged %" PRIu64
                ", %s), writes %" PRIu64 " (merged %" PRIu64 ", %s), flushes %" PRIu64
                ", util %.1f%%, avg queue %.2f\n",
                dev->name[i], where, d[0], d[1], sbio_fmt_bytes(a, sizeof(a), d[2] * 512), d[4],
                d[5], sbio_fmt_bytes(b, sizeof(b), d[6] * 512), d[15], sbio_util_pct(d[9], secs),
                secs > 0 ? (double)d[10] / 1e3 / secs : 0);
    }
}

/* Under MPI a host's devices once, as its first rank saw them. */
static void devices_text(FILE *out, const void *fig, const struct sbio_probe_run *run)
{
    devices_lines(out, fig, run->secs, "");
    for (unsigned r = 0; r < run->nranks; r++) {
        double secs;
        const char *host;
        const struct sbio_probe_figs *f = run->rank(run->ctx, r, &secs, &host);
        if (f) {
            char on[128];
            snprintf(on, sizeof(on), " (%.64s, rank %u)", host, r);
            devices_lines(out, &f->devices, secs, on);
        }
    }
}

static void devices_json(json_t *obj, const void *fig, const struct sbio_probe_run *run)
{
    static const char *const f[] = {"reads",
                                    "reads_merged",
                                    "sectors_read",
                                    "read_ms",
                                    "writes",
                                    "writes_merged",
                                    "sectors_written",
                                    "write_ms",
                                    "in_flight",
                                    "io_ms",
                                    "time_in_queue_ms",
                                    "discards",
                                    "discards_merged",
                                    "sectors_discarded",
                                    "discard_ms",
                                    "flushes",
                                    "flush_ms"};
    const struct sbio_probe_devices *dev = fig;
    double secs = run->secs;
    json_t *a = json_array();
    for (unsigned i = 0; i < dev->ndisk; i++) {
        const uint64_t *d0 = dev->d0[i].f, *d1 = dev->d1[i].f;
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(dev->name[i]));
        for (int k = 0; k < 17; k++) {
            /* in_flight is a gauge: its value at the end, not a delta. */
            uint64_t v = k == 8 ? d1[k] : d1[k] - d0[k];
            json_object_set_new(o, f[k], json_integer((json_int_t)v));
        }
        json_object_set_new(o, "bytes_read", json_integer((json_int_t)((d1[2] - d0[2]) * 512)));
        json_object_set_new(o, "bytes_written", json_integer((json_int_t)((d1[6] - d0[6]) * 512)));
        json_object_set_new(o, "util_pct", json_real(sbio_util_pct(d1[9] - d0[9], secs)));
        json_object_set_new(o, "avg_queue",
                            json_real(secs > 0 ? (double)(d1[10] - d0[10]) / 1e3 / secs : 0));
        json_array_append_new(a, o);
    }
    json_object_set_new(obj, "devices", a);
}

bool sbio_probe_devices_read(const struct sbio_probe_figs *figs, const char **name, uint64_t *bytes)
{
    const struct sbio_probe_devices *dev = &figs->devices;
    if (!dev->ndisk)
        return false;
    *name = dev->name[0];
    *bytes = (dev->d1[0].f[2] - dev->d0[0].f[2]) * 512; /* sectors read */
    return true;
}

const struct sbio_probe_ops sbio_probe_devices = {.name = "devices",
                                                  .snap = devices_snap,
                                                  .delta = devices_delta,
                                                  .merge = devices_merge,
                                                  .text = devices_text,
                                                  .json = devices_json};
