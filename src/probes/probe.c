#include "probe.h"

#include <string.h>

#define PROBE_DECLARE(ID, NAME) extern const struct sbio_probe_ops sbio_probe_##NAME;
#define PROBE_ENTRY(ID, NAME)   [SBIO_PROBE_##ID] = &sbio_probe_##NAME,
#define PROBE_OFFSET(ID, NAME)  [SBIO_PROBE_##ID] = offsetof(struct sbio_probe_figs, NAME),
SBIO_PROBE_TABLE(PROBE_DECLARE)
static const struct sbio_probe_ops *const probes[] = {SBIO_PROBE_TABLE(PROBE_ENTRY)};
/* Where each probe's slot is in struct sbio_probe_figs. */
static const size_t slots[] = {SBIO_PROBE_TABLE(PROBE_OFFSET)};

const struct sbio_probe_ops *sbio_probe_find(int id)
{
    return id >= 0 && id < SBIO_PROBE_NR ? probes[id] : NULL;
}

static void *probe_slot(struct sbio_probe_figs *figs, int id)
{
    return (char *)figs + slots[id];
}

static const void *probe_slot_const(const struct sbio_probe_figs *figs, int id)
{
    return (const char *)figs + slots[id];
}

void sbio_probes_snap(struct sbio_probe_snaps *s, const struct sbio_probe_env *env,
                      const struct sbio_probe_snaps *start)
{
    memset(s, 0, sizeof(*s));
    for (int id = 0; id < SBIO_PROBE_NR; id++)
        if (!start || start->ok[id])
            s->ok[id] = probes[id]->snap(probe_slot(&s->slot, id), env);
}

void sbio_probes_delta(struct sbio_probe_figs *figs, const struct sbio_probe_snaps *s0,
                       const struct sbio_probe_snaps *s1, const struct sbio_probe_env *env)
{
    memset(figs, 0, sizeof(*figs));
    for (int id = 0; id < SBIO_PROBE_NR; id++)
        probes[id]->delta(probe_slot(figs, id), probe_slot_const(&s0->slot, id),
                          probe_slot_const(&s1->slot, id), s0->ok[id] && s1->ok[id], env);
}

void sbio_probes_merge(struct sbio_probe_figs *out, const struct sbio_probe_figs *part, unsigned i,
                       enum sbio_merge_kind kind)
{
    if (!i)
        memset(out, 0, sizeof(*out));
    for (int id = 0; id < SBIO_PROBE_NR; id++)
        probes[id]->merge(probe_slot(out, id), probe_slot_const(part, id), i, kind);
}

void sbio_probe_text(FILE *out, const struct sbio_probe_figs *figs,
                     const struct sbio_probe_run *run, enum sbio_probe_id id)
{
    probes[id]->text(out, probe_slot_const(figs, id), run);
}

void sbio_probe_json(struct json_t *obj, const struct sbio_probe_figs *figs,
                     const struct sbio_probe_run *run, enum sbio_probe_id id)
{
    probes[id]->json(obj, probe_slot_const(figs, id), run);
}
