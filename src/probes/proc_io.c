/* This process's storage bytes over the measured phase (/proc/self/io read_bytes and
 * write_bytes). The jobs of a phase are one process: the first job's figures are the
 * phase's. Ranks are processes of their own: their bytes add up. */
#include <jansson.h>

#include "probe.h"
#include "stats.h"
#include "util.h"

struct proc_io_snap {
    uint64_t read_bytes, write_bytes;
};
_Static_assert(sizeof(struct proc_io_snap) <= sizeof(struct sbio_probe_proc_io),
               "a snapshot of /proc/self/io fits in its slot");

/* False when the kernel does not give them (no task I/O accounting, no /proc). */
static bool proc_io_snap(void *snap, const struct sbio_probe_env *env)
{
    struct proc_io_snap *s = snap;
    (void)env;
    FILE *f = fopen("/proc/self/io", "re");
    if (!f)
        return false;
    char line[128];
    int seen = 0;
    unsigned long long v;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "read_bytes: %llu", &v) == 1 && ++seen)
            s->read_bytes = v;
        else if (sscanf(line, "write_bytes: %llu", &v) == 1 && ++seen)
            s->write_bytes = v;
    }
    fclose(f);
    return seen == 2;
}

static void proc_io_delta(void *fig, const void *s0, const void *s1, bool ok,
                          const struct sbio_probe_env *env)
{
    const struct proc_io_snap *a = s0, *b = s1;
    struct sbio_probe_proc_io *p = fig;
    (void)env;
    p->have = ok;
    if (!ok)
        return;
    p->read_bytes = b->read_bytes - a->read_bytes;
    p->write_bytes = b->write_bytes - a->write_bytes;
}

static void proc_io_merge(void *out, const void *part, unsigned i, enum sbio_merge_kind kind)
{
    struct sbio_probe_proc_io *o = out;
    const struct sbio_probe_proc_io *p = part;
    if (kind == SBIO_MERGE_JOBS) {
        if (!i)
            *o = *p;
        return;
    }
    o->have = (i == 0 || o->have) && p->have;
    o->read_bytes += p->read_bytes;
    o->write_bytes += p->write_bytes;
}

static void proc_io_text(FILE *out, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_proc_io *p = fig;
    if (!p->have)
        return;
    char a[32], b[32], c[32];
    uint64_t wrote = sbio_stats_bytes_written(run->total);
    fprintf(out, "Storage I/O of sbio itself over the run: read %s, written %s (/proc/self/io; ",
            sbio_fmt_bytes(a, sizeof(a), p->read_bytes),
            sbio_fmt_bytes(b, sizeof(b), p->write_bytes));
    /* write_bytes counts the page cache a process dirties, and this kernel counts a large
     * folio whole however little of it was written: with fsyncs between writes it reads
     * tens of times the bytes written. */
    if (p->write_bytes > 2 * wrote)
        fprintf(out,
                "written counts whole page-cache folios dirtied, not bytes: the run wrote %s; ",
                sbio_fmt_bytes(c, sizeof(c), wrote));
    fprintf(out, "the device lines count every process)\n");
}

static void proc_io_json(json_t *obj, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_proc_io *p = fig;
    (void)run;
    json_object_set_new(obj, "process_io",
                        p->have ? json_pack("{s:I,s:I}", "read_bytes", (json_int_t)p->read_bytes,
                                            "write_bytes", (json_int_t)p->write_bytes)
                                : json_null());
}

const struct sbio_probe_ops sbio_probe_proc_io = {.name = "proc_io",
                                                  .snap = proc_io_snap,
                                                  .delta = proc_io_delta,
                                                  .merge = proc_io_merge,
                                                  .text = proc_io_text,
                                                  .json = proc_io_json};
