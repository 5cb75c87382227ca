#include "environment.h"

#include <ctype.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>

const char *const sbio_environment_knob_names[SBIO_ENV_KNOBS] = {
    "scheduler",   "read_ahead_kb",      "max_sectors_kb",     "max_hw_sectors_kb", "nr_requests",
    "nomerges",    "rotational",         "wbt_lat_usec",       "rq_affinity",       "add_random",
    "write_cache", "logical_block_size", "physical_block_size"};

/* The settings the text report lists on a device's second line, in its order. */
static const char *const text_knobs[] = {"read_ahead_kb", "max_sectors_kb", "max_hw_sectors_kb",
                                         "nr_requests",   "nomerges",       "rotational",
                                         "wbt_lat_usec",  "rq_affinity"};

static void env_file(struct sbio_env_value *val, const char *dir, const char *rel)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    val->ok = !sbio_sysblock_read_file(path, val->v, sizeof(val->v));
}

static void env_dev(struct sbio_env_dev *e, const struct sbio_blockdev *d, const char *role)
{
    memset(e, 0, sizeof(*e));
    snprintf(e->name, sizeof(e->name), "%s", d->name);
    e->major = d->major;
    e->minor = d->minor;
    e->role = role;
    e->top = strncmp(role, "top", 3) == 0;
    /* Read once: the JSON keeps the padding sysfs has, the text shows it trimmed. */
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/device/model", d->dir);
    FILE *f = fopen(path, "re");
    if (f) {
        if (fgets(e->model_padded, sizeof(e->model_padded), f))
            e->model_padded[strcspn(e->model_padded, "\n")] = 0;
        fclose(f);
        size_t n = strlen(e->model_padded);
        while (n && isspace((unsigned char)e->model_padded[n - 1]))
            n--;
        snprintf(e->model.v, sizeof(e->model.v), "%.*s", (int)n, e->model_padded);
        e->model.ok = true;
    }
    env_file(&e->loop_backing, d->dir, "loop/backing_file");
    for (unsigned i = 0; i < SBIO_ENV_KNOBS; i++)
        e->knob[i].ok = !sbio_sysblock_read(d, sbio_environment_knob_names[i], e->knob[i].v,
                                            sizeof(e->knob[i].v));
    snprintf(path, sizeof(path), "%s/queue/iosched", d->dir);
    DIR *dir = opendir(path);
    if (!dir)
        return;
    struct dirent *de;
    while ((de = readdir(dir)) && e->niosched < SBIO_ENV_IOSCHED) {
        char k[300];
        if (de->d_name[0] == '.')
            continue;
        snprintf(k, sizeof(k), "iosched/%s", de->d_name);
        char *v = e->iosched_value[e->niosched];
        if (!sbio_sysblock_read(d, k, v, sizeof(e->iosched_value[0])))
            snprintf(e->iosched_name[e->niosched++], sizeof(e->iosched_name[0]), "%.63s",
                     de->d_name);
    }
    closedir(dir);
}

static void env_target(struct sbio_environment *e, const struct sbio_target *t)
{
    e->have_target = true;
    snprintf(e->fstype, sizeof(e->fstype), "%s", t->fstype);
    snprintf(e->source, sizeof(e->source), "%s", t->source);
    snprintf(e->mountpoint, sizeof(e->mountpoint), "%s", t->mountpoint);
    snprintf(e->mount_opts, sizeof(e->mount_opts), "%s", t->mount_opts);
    e->has_top = t->has_top;
    if (!t->has_top)
        return;
    struct sbio_env_dev *top = &e->dev[e->ndev++];
    env_dev(top, &t->top, "top");
    for (unsigned i = 0; i < t->ndev; i++) {
        if (!strcmp(t->dev[i].name, t->top.name))
            top->role = "top+scheduler";
        else
            env_dev(&e->dev[e->ndev++], &t->dev[i], "scheduler");
    }
}

void sbio_environment_read(struct sbio_environment *e, const struct sbio_target *t)
{
    memset(e, 0, sizeof(*e));
    struct utsname u;
    if (!uname(&u)) {
        e->have_uname = true;
        snprintf(e->kernel, sizeof(e->kernel), "%s", u.release);
        snprintf(e->machine, sizeof(e->machine), "%s", u.machine);
    }
    gethostname(e->hostname, sizeof(e->hostname) - 1);
    e->cpus = sysconf(_SC_NPROCESSORS_ONLN);
    e->page_size = sysconf(_SC_PAGESIZE);
    if (t)
        env_target(e, t);
    env_file(&e->dirty_ratio, sbio_procfs_root(), "sys/vm/dirty_ratio");
    env_file(&e->dirty_background_ratio, sbio_procfs_root(), "sys/vm/dirty_background_ratio");
}

static const struct sbio_env_value *env_knob(const struct sbio_env_dev *d, const char *name)
{
    for (unsigned i = 0; i < SBIO_ENV_KNOBS; i++)
        if (!strcmp(sbio_environment_knob_names[i], name))
            return &d->knob[i];
    return NULL;
}

static void env_print_dev(FILE *out, const struct sbio_env_dev *d)
{
    const struct sbio_env_value *lbs = env_knob(d, "logical_block_size"),
                                *pbs = env_knob(d, "physical_block_size"),
                                *wc = env_knob(d, "write_cache"), *sched = env_knob(d, "scheduler");
    fprintf(out, "Device %s (%u:%u)", d->name, d->major, d->minor);
    if (d->model.ok)
        fprintf(out, ", model %s", d->model.v);
    if (d->loop_backing.ok)
        fprintf(out, ", loop on %s", d->loop_backing.v);
    if (lbs->ok && pbs->ok)
        fprintf(out, ", sectors %s/%s (logical/physical)", lbs->v, pbs->v);
    if (wc->ok)
        fprintf(out, ", write cache: %s", wc->v);
    fputc('\n', out);
    if (sched->ok)
        fprintf(out, "  scheduler: %s\n", sched->v);
    fprintf(out, " ");
    for (size_t i = 0; i < sizeof(text_knobs) / sizeof(text_knobs[0]); i++) {
        const struct sbio_env_value *k = env_knob(d, text_knobs[i]);
        if ((d->top || strcmp(text_knobs[i], "read_ahead_kb")) && k->ok)
            fprintf(out, " %s=%s", text_knobs[i], k->v);
    }
    fputc('\n', out);
    for (unsigned i = 0; i < d->niosched; i++)
        fprintf(out, "%s %s=%s", i ? "" : "  iosched:", d->iosched_name[i], d->iosched_value[i]);
    if (d->niosched)
        fputc('\n', out);
}

void sbio_environment_print(FILE *out, const struct sbio_environment *e)
{
    fprintf(out, "File system: %s on %s, mounted at %s (%s)\n", e->fstype,
            e->source[0] ? e->source : "?", e->mountpoint[0] ? e->mountpoint : "?",
            e->mount_opts[0] ? e->mount_opts : "?");
    if (!e->has_top)
        fprintf(out, "No block device under the set (%s): no queue settings apply\n", e->fstype);
    for (unsigned i = 0; i < e->ndev; i++)
        env_print_dev(out, &e->dev[i]);
    fprintf(out, "vm.dirty_ratio=%s vm.dirty_background_ratio=%s\n",
            e->dirty_ratio.ok ? e->dirty_ratio.v : "?",
            e->dirty_background_ratio.ok ? e->dirty_background_ratio.v : "?");
}
