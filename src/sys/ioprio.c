#include "ioprio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

/* The kernel's encoding (include/uapi/linux/ioprio.h), spelled here: glibc has no wrapper
 * and older headers lack the file. */
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_WHO_PROCESS 1
enum { IOPRIO_RT = 1, IOPRIO_BE = 2, IOPRIO_IDLE = 3 };
#define IOPRIO_LEVELS 8

static const struct {
    const char *name, *alias;
    int cls;
} ioprio_classes[] = {
    {"rt", "realtime", IOPRIO_RT}, {"be", "best-effort", IOPRIO_BE}, {"idle", NULL, IOPRIO_IDLE}};

/* The class named by the len bytes at s, 0: none. */
static int ioprio_class(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof(ioprio_classes) / sizeof(ioprio_classes[0]); i++) {
        const char *a = ioprio_classes[i].alias;
        if ((strlen(ioprio_classes[i].name) == len && !strncmp(s, ioprio_classes[i].name, len)) ||
            (a && strlen(a) == len && !strncmp(s, a, len)))
            return ioprio_classes[i].cls;
    }
    return 0;
}

int sbio_ioprio_parse(const char *s, int *prio, const char **why)
{
    if (!strcmp(s, "none")) {
        *prio = SBIO_IOPRIO_NONE;
        return 0;
    }
    const char *colon = strchr(s, ':');
    int cls = ioprio_class(s, colon ? (size_t)(colon - s) : strlen(s));
    if (!cls) {
        *why = "has an unknown class";
        return -EINVAL;
    }
    int level = cls == IOPRIO_IDLE ? 0 : 4;
    if (colon && cls == IOPRIO_IDLE) {
        *why = "has a level, which the idle class does not take";
        return -EINVAL;
    }
    if (colon) {
        const char *l = colon + 1;
        if (!(l[0] >= '0' && l[0] <= '9') || (l[1] && !(l[1] >= '0' && l[1] <= '9' && !l[2]))) {
            *why = l[0] ? "has a level that is not a number" : "has an empty level";
            return -EINVAL;
        }
        level = l[1] ? 10 * (l[0] - '0') + (l[1] - '0') : l[0] - '0';
        if (level >= IOPRIO_LEVELS) {
            *why = "has a level out of 0-7";
            return -EINVAL;
        }
    }
    *prio = cls << IOPRIO_CLASS_SHIFT | level;
    return 0;
}

char *sbio_ioprio_name(char *buf, size_t len, int prio)
{
    int cls = prio >> IOPRIO_CLASS_SHIFT, level = prio & ((1 << IOPRIO_CLASS_SHIFT) - 1);
    if (prio == SBIO_IOPRIO_NONE || prio == SBIO_IOPRIO_MIXED)
        snprintf(buf, len, "%s", prio ? "mixed" : "none");
    else if (cls == IOPRIO_IDLE && !level)
        snprintf(buf, len, "idle");
    else if (cls == IOPRIO_RT || cls == IOPRIO_BE)
        snprintf(buf, len, "%s:%d", cls == IOPRIO_RT ? "rt" : "be", level);
    else
        snprintf(buf, len, "class%d:%d", cls, level);
    return buf;
}

bool sbio_ioprio_rt(int prio)
{
    return prio >> IOPRIO_CLASS_SHIFT == IOPRIO_RT;
}

int sbio_ioprio_set_thread(pid_t tid, int prio)
{
    return syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, (int)tid, prio) ? -errno : 0;
}

int sbio_ioprio_get_thread(pid_t tid, int *prio)
{
    long v = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, (int)tid);
    if (v < 0)
        return -errno;
    *prio = (int)v;
    return 0;
}

int sbio_ioprio_check(int prio)
{
    int old = SBIO_IOPRIO_NONE;
    if (prio == SBIO_IOPRIO_NONE)
        return 0;
    int rc = sbio_ioprio_get_thread(0, &old);
    if (!rc && !(rc = sbio_ioprio_set_thread(0, prio)))
        rc = sbio_ioprio_set_thread(0, old);
    if (!rc)
        return 0;
    char n[24];
    sbio_ioprio_name(n, sizeof(n), prio);
    if (rc == -EPERM && sbio_ioprio_rt(prio))
        sbio_err("I/O priority %s: the realtime class needs CAP_SYS_ADMIN or CAP_SYS_NICE "
                 "(ioprio_set: %s); accepted without them: be:0 to be:7, idle, none",
                 n, strerror(-rc));
    else
        sbio_err("I/O priority %s: the kernel refuses it (ioprio_set: %s); accepted: %s", n,
                 strerror(-rc), SBIO_IOPRIO_ACCEPTED);
    return -SBIO_EUSAGE;
}
