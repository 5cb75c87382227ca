/* Page faults of the job's worker threads over their measured phase: each thread records its
 * own usage as its measured phase starts and ends (struct sbio_thread_usage), so the figures
 * cover that time and those threads only. The jobs of a phase and the ranks of a run add up. */
#include <inttypes.h>
#include <jansson.h>

#include "probe.h"

/* The faults the threads counted so far: 0 before any thread has ended its phase. */
static bool faults_snap(void *snap, const struct sbio_probe_env *env)
{
    struct sbio_probe_faults *s = snap;
    for (unsigned i = 0; i < env->nthreads; i++) {
        const struct sbio_thread_usage *u = &env->threads[i];
        if (!u->taken)
            continue;
        s->minor += (uint64_t)(u->ru1.ru_minflt - u->ru0.ru_minflt);
        s->major += (uint64_t)(u->ru1.ru_majflt - u->ru0.ru_majflt);
    }
    return true;
}

static void faults_delta(void *fig, const void *s0, const void *s1, bool ok,
                         const struct sbio_probe_env *env)
{
    const struct sbio_probe_faults *a = s0, *b = s1;
    struct sbio_probe_faults *f = fig;
    (void)env;
    if (!ok)
        return;
    f->minor = b->minor - a->minor;
    f->major = b->major - a->major;
}

static void faults_merge(void *out, const void *part, unsigned i, enum sbio_merge_kind kind)
{
    struct sbio_probe_faults *o = out;
    const struct sbio_probe_faults *p = part;
    (void)i, (void)kind;
    o->minor += p->minor;
    o->major += p->major;
}

static void faults_text(FILE *out, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_faults *f = fig;
    (void)run;
    fprintf(out, "Page faults: %" PRIu64 " minor, %" PRIu64 " major\n", f->minor, f->major);
}

/* Beside the CPU figures, in the object "cpu". */
static void faults_json(json_t *obj, const void *fig, const struct sbio_probe_run *run)
{
    const struct sbio_probe_faults *f = fig;
    (void)run;
    json_object_set_new(obj, "minor_faults", json_integer((json_int_t)f->minor));
    json_object_set_new(obj, "major_faults", json_integer((json_int_t)f->major));
}

const struct sbio_probe_ops sbio_probe_faults = {.name = "faults",
                                                 .snap = faults_snap,
                                                 .delta = faults_delta,
                                                 .merge = faults_merge,
                                                 .text = faults_text,
                                                 .json = faults_json};
