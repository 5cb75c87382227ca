/* The environment a run measured in, read once while sbio's settings are in effect: the
 * kernel and machine, the file system under the set, every block device it goes through
 * with its queue settings and scheduler tunables, and the VM's writeback ratios. The text
 * report and the JSON document only render this snapshot. */
#ifndef SBIO_ENVIRONMENT_H
#define SBIO_ENVIRONMENT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "sysblock.h"

#define SBIO_ENV_KNOBS   13 /* the queue settings shown (sbio_environment_knob_names) */
#define SBIO_ENV_IOSCHED 32 /* scheduler tunables kept per device */

struct sbio_env_value {
    bool ok; /* read; otherwise absent */
    char v[256];
};

struct sbio_env_dev {
    char name[64];
    unsigned major, minor;
    const char *role; /* "top", "top+scheduler" or "scheduler" */
    bool top;         /* the device the file system sits on (its readahead counts) */
    struct sbio_env_value model, loop_backing;
    char model_padded[256]; /* the model as sysfs has it, padding kept (the JSON's) */
    struct sbio_env_value knob[SBIO_ENV_KNOBS];
    unsigned niosched; /* the scheduler's tunables, in the kernel's order */
    char iosched_name[SBIO_ENV_IOSCHED][64];
    char iosched_value[SBIO_ENV_IOSCHED][128];
};

struct sbio_environment {
    bool have_uname;
    char kernel[sizeof(((struct utsname *)0)->release)];
    char machine[sizeof(((struct utsname *)0)->machine)];
    char hostname[256];
    long cpus, page_size;
    bool have_target; /* false: the file system and devices are unknown */
    char fstype[64], source[256], mountpoint[PATH_MAX], mount_opts[512];
    bool has_top; /* a block device under the set */
    unsigned ndev;
    struct sbio_env_dev dev[SBIO_MAX_DEVS + 1];
    struct sbio_env_value dirty_ratio, dirty_background_ratio;
};

/* The names of the queue settings in sbio_env_dev.knob, in order. */
extern const char *const sbio_environment_knob_names[SBIO_ENV_KNOBS];

/* Read the environment of target t (NULL: the machine only) into e. */
void sbio_environment_read(struct sbio_environment *e, const struct sbio_target *t);

/* The text report's description of the file system, devices and VM settings. */
void sbio_environment_print(FILE *out, const struct sbio_environment *e);

#endif
