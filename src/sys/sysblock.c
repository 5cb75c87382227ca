#include "sysblock.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

static const char *root_of(const char *env, const char *def)
{
    const char *r = getenv(env);
    return r && *r ? r : def;
}

static const char *sysfs_root(void)
{
    return root_of("SBIO_SYSFS_ROOT", "/sys");
}

bool sbio_sysfs_is_fake(void)
{
    return strcmp(sysfs_root(), "/sys") != 0;
}

const char *sbio_procfs_root(void)
{
    return root_of("SBIO_PROCFS_ROOT", "/proc");
}

bool sbio_procfs_is_fake(void)
{
    return strcmp(sbio_procfs_root(), "/proc") != 0;
}

const char *sbio_state_dir(void)
{
    return root_of("SBIO_STATE_DIR", "/run/sbio");
}

int sbio_sysblock_read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, len - 1);
    int e = errno;
    close(fd);
    if (n < 0)
        return -e;
    buf[n] = 0;
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = 0;
    return 0;
}

static int write_text(const char *path, const char *value)
{
    /* O_TRUNC is a no-op on sysfs and makes a fake tree behave like it. */
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, value, strlen(value));
    int e = errno;
    if (close(fd) && n >= 0)
        return -errno;
    return n < 0 ? -e : 0;
}

int sbio_sysblock_read(const struct sbio_blockdev *d, const char *knob, char *buf, size_t len)
{
    char path[PATH_MAX + 512];
    snprintf(path, sizeof(path), "%s/queue/%s", d->dir, knob);
    return sbio_sysblock_read_file(path, buf, len);
}

int sbio_sysblock_write(const struct sbio_blockdev *d, const char *knob, const char *value)
{
    char path[PATH_MAX + 512];
    snprintf(path, sizeof(path), "%s/queue/%s", d->dir, knob);
    return write_text(path, value);
}

int sbio_sched_parse(const char *line, char names[][32], int max, int *current)
{
    int n = 0;
    *current = -1;
    const char *p = line;
    while (*p && n < max) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        bool cur = *p == '[';
        if (cur)
            p++;
        size_t l = strcspn(p, " \t\n]");
        snprintf(names[n], 32, "%.*s", (int)(l < 31 ? l : 31), p);
        p += l;
        if (*p == ']')
            p++;
        if (cur)
            *current = n;
        n++;
    }
    /* A plain file (a fake tree) holds just the name written to it. */
    if (*current < 0 && n == 1)
        *current = 0;
    return n;
}

/* The single-queue schedulers left Linux in 5.0 (anticipatory already in 2.6.33); each has a
 * multi-queue heir. "deadline" is also the kernel's own alias of mq-deadline. */
static const struct {
    const char *old, *heir;
} sched_heirs[] = {
    {"cfq", "bfq"}, {"noop", "none"}, {"deadline", "mq-deadline"}, {"anticipatory", "bfq"}};
#define SCHED_NHEIRS (sizeof(sched_heirs) / sizeof(sched_heirs[0]))
#define SCHED_LIST   64 /* names in one list */

const char *sbio_sched_canonical(const char *name)
{
    for (size_t i = 0; i < SCHED_NHEIRS; i++)
        if (!strcmp(name, sched_heirs[i].old))
            return sched_heirs[i].heir;
    return name;
}

/* The comma-separated names of list (empty ones skipped), each cut to 31 bytes. */
static int sched_split(const char *list, char names[][32], int max)
{
    int n = 0;
    for (const char *p = list; *p && n < max;) {
        size_t l = strcspn(p, ",");
        if (l)
            snprintf(names[n++], 32, "%.*s", (int)(l < 31 ? l : 31), p);
        p += l + (p[l] == ',');
    }
    return n;
}

/* "a", "a and b", "a, b and c" of the names marked in pick, a historical one with its heir. */
static void sched_join(char *buf, size_t len, char names[][32], const bool *pick, int n)
{
    int total = 0, k = 0;
    for (int i = 0; i < n; i++)
        total += pick[i];
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        if (!pick[i])
            continue;
        const char *heir = sbio_sched_canonical(names[i]);
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", k == 0 ? "" : k + 1 == total ? " and " : ", ", names[i]);
        l = strlen(buf);
        if (strcmp(heir, names[i]))
            snprintf(buf + l, len - l, " (taken as %.31s)", heir);
        k++;
    }
}

/* Two names of one scheduler in names (cfq and bfq): one line, -SBIO_EUSAGE. One name given
 * again (none,bfq,bfq) is not refused: it is an A/A comparison, the same scheduler run as a
 * setting of its own (bfq#2), as any value --vary repeats. */
static int sched_check_twice(const char *opt, const char *list, char names[][32], int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const char *c = sbio_sched_canonical(names[i]);
            if (strcmp(c, sbio_sched_canonical(names[j])) || !strcmp(names[i], names[j]))
                continue;
            sbio_err("%s=%s: %s and %s are one scheduler, %s: given twice (to run one scheduler "
                     "twice, an A/A comparison, give the same name twice)",
                     opt, list, names[i], names[j], c);
            return -SBIO_EUSAGE;
        }
    return 0;
}

/* Every name d does not offer, in one line with what it offers. 0 or -SBIO_EUSAGE. */
static int sched_check_offered(const struct sbio_blockdev *d, const char *opt, const char *list,
                               char names[][32], int n)
{
    char line[256], offered[SBIO_MAX_SCHED][32];
    int cur;
    if (sbio_sysblock_read(d, "scheduler", line, sizeof(line))) {
        sbio_err("%s=%s: %s has no scheduler file", opt, list, d->name);
        return -SBIO_EUSAGE;
    }
    int no = sbio_sched_parse(line, offered, SBIO_MAX_SCHED, &cur);
    bool bad[SCHED_LIST] = {false};
    int nbad = 0;
    for (int i = 0; i < n; i++) {
        bad[i] = true;
        for (int k = 0; k < no; k++)
            bad[i] &= strcmp(offered[k], sbio_sched_canonical(names[i])) != 0;
        nbad += bad[i];
    }
    if (!nbad)
        return 0;
    char which[SCHED_LIST * 48], offers[SBIO_MAX_SCHED * 34] = "";
    sched_join(which, sizeof(which), names, bad, n);
    for (int k = 0; k < no; k++)
        snprintf(offers + strlen(offers), sizeof(offers) - strlen(offers), "%s%s", k ? ", " : "",
                 offered[k]);
    sbio_err("%s=%s: %s %s not offered by %s, which offers %s", opt, list, which,
             nbad == 1 ? "is" : "are", d->name, no ? offers : "no scheduler");
    return -SBIO_EUSAGE;
}

int sbio_sched_check_list(const struct sbio_target *t, const char *opt, const char *list)
{
    char names[SCHED_LIST][32];
    int n = sched_split(list, names, SCHED_LIST);
    if (!n || sbio_list_has_empty(list)) {
        sbio_err("%s=%s: %s; accepted: NAME[,NAME…] (e.g. none,bfq)", opt, list,
                 n ? "an empty name" : "no scheduler named");
        return -SBIO_EUSAGE;
    }
    int rc = sched_check_twice(opt, list, names, n);
    for (unsigned i = 0; t && !rc && i < t->ndev; i++)
        rc = sched_check_offered(&t->dev[i], opt, list, names, n);
    return rc;
}

void sbio_sched_note(const char *opt, const char *list)
{
    char names[SCHED_LIST][32], map[SCHED_LIST * 40] = "";
    int n = sched_split(list, names, SCHED_LIST);
    bool single = false, anticipatory = false;
    for (int i = 0; i < n; i++) {
        const char *heir = sbio_sched_canonical(names[i]);
        if (!strcmp(heir, names[i]))
            continue;
        bool ant = !strcmp(names[i], "anticipatory");
        anticipatory |= ant;
        single |= !ant;
        snprintf(map + strlen(map), sizeof(map) - strlen(map), "%s%s → %.31s", map[0] ? ", " : "",
                 names[i], heir);
    }
    if (!map[0])
        return;
    sbio_note("%s: %s (%s%s%s%s)", opt, map,
              single ? "the single-queue schedulers left Linux in 5.0" : "",
              single && anticipatory ? ", " : "",
              anticipatory ? (single ? "anticipatory already in 2.6.33"
                                     : "anticipatory left Linux in 2.6.33")
                           : "",
              anticipatory ? "; bfq's idling is the anticipation's heir" : "");
}

/* Fill d from a device's sysfs folder (a partition is replaced by its disk). */
static int dev_from_dir(const char *dir, struct sbio_blockdev *d)
{
    char real[PATH_MAX], buf[64], path[PATH_MAX + 32];
    if (!realpath(dir, real))
        return -errno;
    snprintf(path, sizeof(path), "%s/partition", real);
    if (!access(path, F_OK)) {
        char *slash = strrchr(real, '/');
        if (slash)
            *slash = 0;
    }
    memset(d, 0, sizeof(*d));
    snprintf(d->dir, sizeof(d->dir), "%s", real);
    const char *base = strrchr(real, '/');
    snprintf(d->name, sizeof(d->name), "%.63s", base ? base + 1 : real);
    snprintf(path, sizeof(path), "%s/dev", real);
    if (sbio_sysblock_read_file(path, buf, sizeof(buf)) ||
        sscanf(buf, "%u:%u", &d->major, &d->minor) != 2)
        return -ENODEV;
    snprintf(path, sizeof(path), "%s/diskseq", real);
    if (sbio_sysblock_read_file(path, d->diskseq, sizeof(d->diskseq)))
        d->diskseq[0] = 0;
    return 0;
}

static int dev_from_majmin(unsigned maj, unsigned min, struct sbio_blockdev *d)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/dev/block/%u:%u", sysfs_root(), maj, min);
    return dev_from_dir(path, d);
}

/* Decode mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '7' && p[2] && p[3]) {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
}

/* One entry of mountinfo, its mount point unescaped. */
struct mount_entry {
    unsigned major, minor;
    char mountpoint[PATH_MAX];
    char opts[512];
    char fstype[64];
    char source[256];
};

/* The one reader of <procfs>/self/mountinfo: fn sees its entries in order until it returns
 * true. Lines that do not parse are skipped. Returns whether fn returned true. */
static bool mountinfo_find(bool (*fn)(const struct mount_entry *m, void *ctx), void *ctx)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/self/mountinfo", sbio_procfs_root());
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    struct mount_entry m;
    while (!found && fgets(line, sizeof(line), f)) {
        char *sep = strstr(line, " - ");
        if (!sep ||
            sscanf(line, "%*d %*d %u:%u %*s %4095s %511s", &m.major, &m.minor, m.mountpoint,
                   m.opts) != 4 ||
            sscanf(sep + 3, "%63s %255s", m.fstype, m.source) != 2)
            continue;
        unescape(m.mountpoint);
        found = fn(&m, ctx);
    }
    fclose(f);
    return found;
}

/* What find_mount looks for, and the length of the best mount point so far. */
struct mount_query {
    const char *real;
    dev_t dev;
    struct sbio_target *t;
    size_t best;
};

/* Takes m when it holds the path as well as the best so far or better; never stops the walk. */
static bool mount_holds(const struct mount_entry *m, void *ctx)
{
    struct mount_query *q = ctx;
    size_t l = strlen(m->mountpoint);
    bool prefix =
        !strncmp(q->real, m->mountpoint, l) && (q->real[l] == '/' || q->real[l] == 0 || l == 1);
    if (makedev(m->major, m->minor) != q->dev || !prefix || l < q->best)
        return false;
    q->best = l;
    struct sbio_target *t = q->t;
    snprintf(t->mountpoint, sizeof(t->mountpoint), "%s", m->mountpoint);
    snprintf(t->mount_opts, sizeof(t->mount_opts), "%s", m->opts);
    snprintf(t->fstype, sizeof(t->fstype), "%s", m->fstype);
    snprintf(t->source, sizeof(t->source), "%s", m->source);
    return false;
}

/* The mount that holds a file of device dev under real path: the last mountinfo entry
 * with that device whose mount point is a prefix of the path. */
static void find_mount(const char *real, dev_t dev, struct sbio_target *t)
{
    struct mount_query q = {.real = real, .dev = dev, .t = t};
    mountinfo_find(mount_holds, &q);
}

/* A mount of the device (a partition counts as its disk's: its sysfs folder is under it). */
static bool mount_on(const struct mount_entry *m, void *ctx)
{
    const struct sbio_blockdev *disk = ctx;
    struct sbio_blockdev d;
    if (m->major == disk->major && m->minor == disk->minor)
        return true;
    return !dev_from_majmin(m->major, m->minor, &d) && d.major == disk->major &&
           d.minor == disk->minor;
}

bool sbio_sysblock_mounted(unsigned major, unsigned minor)
{
    struct sbio_blockdev disk = {.major = major, .minor = minor};
    return mountinfo_find(mount_on, &disk);
}

/* dm/md: the scheduler sits on the slaves (recursively); a plain disk carries its own. */
static void add_sched_devs(struct sbio_target *t, const struct sbio_blockdev *d, int depth)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/slaves", d->dir);
    DIR *dir = opendir(path);
    bool any = false;
    if (dir && depth < 8) {
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (e->d_name[0] == '.')
                continue;
            char sub[PATH_MAX * 2];
            struct sbio_blockdev s;
            snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
            if (dev_from_dir(sub, &s))
                continue;
            any = true;
            add_sched_devs(t, &s, depth + 1);
        }
    }
    if (dir)
        closedir(dir);
    if (any || t->ndev >= SBIO_MAX_DEVS)
        return;
    for (unsigned i = 0; i < t->ndev; i++)
        if (!strcmp(t->dev[i].name, d->name))
            return;
    t->dev[t->ndev++] = *d;
}

/* The block device under a path of stat st (t: its mount, found): its device number, or for
 * an anonymous one (btrfs, or no device at all) the mount's source. false when there is none. */
static bool path_dev(const struct stat *st, const struct sbio_target *t, struct sbio_blockdev *d)
{
    dev_t dev = st->st_dev;
    if (major(dev) == 0) {
        struct stat ss;
        if (strncmp(t->source, "/dev/", 5) || stat(t->source, &ss) || !S_ISBLK(ss.st_mode))
            return false;
        dev = ss.st_rdev;
    }
    return !dev_from_majmin(major(dev), minor(dev), d);
}

/* Whether the devices t tunes (--queue-device's, and its slaves) carry the I/O of a file system
 * on own: own itself, or a device own stacks on (a dm or md device's slaves). */
static bool queue_reaches(const struct sbio_target *t, const struct sbio_blockdev *own)
{
    if (!strcmp(t->top.name, own->name))
        return true;
    struct sbio_target *under = calloc(1, sizeof(*under));
    if (!under)
        return true; /* unknown: say nothing */
    add_sched_devs(under, own, 0);
    bool hit = false;
    for (unsigned i = 0; i < under->ndev && !hit; i++)
        for (unsigned k = 0; k < t->ndev && !hit; k++)
            hit = !strcmp(under->dev[i].name, t->dev[k].name);
    free(under);
    return hit;
}

int sbio_sysblock_resolve(const char *path, const char *queue_device, struct sbio_target *t)
{
    memset(t, 0, sizeof(*t));
    struct stat st;
    char real[PATH_MAX];
    if (stat(path, &st) || !realpath(path, real))
        return -errno;
    find_mount(real, st.st_dev, t);
    if (!t->fstype[0])
        snprintf(t->fstype, sizeof(t->fstype), "unknown");
    int rc;
    struct sbio_blockdev own; /* the folder's own device */
    bool has_own = path_dev(&st, t, &own);
    if (queue_device) {
        unsigned maj, min;
        char p[PATH_MAX + 64];
        struct stat ds;
        if (sscanf(queue_device, "%u:%u", &maj, &min) == 2) {
            rc = dev_from_majmin(maj, min, &t->top);
        } else if (queue_device[0] == '/') {
            if (stat(queue_device, &ds) || !S_ISBLK(ds.st_mode))
                return -ENODEV;
            rc = dev_from_majmin(major(ds.st_rdev), minor(ds.st_rdev), &t->top);
        } else {
            /* /sys/block lists disks only; a partition's name is in /sys/class/block. */
            snprintf(p, sizeof(p), "%s/block/%s", sysfs_root(), queue_device);
            rc = dev_from_dir(p, &t->top);
            if (rc) {
                snprintf(p, sizeof(p), "%s/class/block/%s", sysfs_root(), queue_device);
                rc = dev_from_dir(p, &t->top);
            }
        }
        if (rc)
            return -ENODEV;
    } else if (has_own) {
        t->top = own;
    } else {
        return 0;
    }
    t->has_top = true;
    add_sched_devs(t, &t->top, 0);
    if (queue_device && has_own && !queue_reaches(t, &own))
        snprintf(t->set_dev, sizeof(t->set_dev), "%s", own.name);
    return 0;
}

/* Knobs --queue may set; iosched/<tunable> is checked against the scheduler in effect. */
static const char *const knobs[] = {"read_ahead_kb", "max_sectors_kb", "nr_requests", "nomerges",
                                    "rotational",    "wbt_lat_usec",   "rq_affinity", "add_random"};

bool sbio_sysblock_knob_allowed(const char *k)
{
    if (!strncmp(k, "iosched/", 8))
        return k[8] && !strchr(k + 8, '/') && strcmp(k + 8, "..");
    for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
        if (!strcmp(k, knobs[i]))
            return true;
    return false;
}

/* The devices a knob applies to: readahead is the top device's (it drives the file
 * system's readahead); everything else sits on the scheduler's devices. */
static unsigned knob_devs(const struct sbio_target *t, const char *knob,
                          const struct sbio_blockdev **out)
{
    if (!strcmp(knob, "read_ahead_kb")) {
        out[0] = &t->top;
        return 1;
    }
    for (unsigned i = 0; i < t->ndev; i++)
        out[i] = &t->dev[i];
    return t->ndev;
}

static const struct sbio_blockdev *find_dev(const struct sbio_target *t, const char *name)
{
    if (!strcmp(t->top.name, name))
        return &t->top;
    for (unsigned i = 0; i < t->ndev; i++)
        if (!strcmp(t->dev[i].name, name))
            return &t->dev[i];
    return NULL;
}

int sbio_boot_id(char *buf, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id", sbio_procfs_root());
    return sbio_sysblock_read_file(path, buf, len);
}

int sbio_state_commit(FILE *f, const char *tmp, const char *path)
{
    int rc = 0;
    if (fflush(f) || fsync(fileno(f)))
        rc = -errno;
    if (fclose(f) && !rc)
        rc = -errno;
    if (!rc && rename(tmp, path))
        rc = -errno;
    return rc;
}

/* The state file: written before the first change and after each, so a crash at any point
 * leaves enough to restore. */
static int state_write(const struct sbio_tune *tu)
{
    char tmp[PATH_MAX + 8], boot[64] = "";
    sbio_boot_id(boot, sizeof(boot));
    snprintf(tmp, sizeof(tmp), "%s.tmp", tu->state_path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -errno;
    fprintf(f, "format=1\nboot_id=%s\npid=%d\n", boot, (int)getpid());
    const struct sbio_target *t = tu->t;
    fprintf(f, "dev=%s %u:%u %s\n", t->top.name, t->top.major, t->top.minor,
            t->top.diskseq[0] ? t->top.diskseq : "-");
    for (unsigned i = 0; i < t->ndev; i++)
        if (strcmp(t->dev[i].name, t->top.name))
            fprintf(f, "dev=%s %u:%u %s\n", t->dev[i].name, t->dev[i].major, t->dev[i].minor,
                    t->dev[i].diskseq[0] ? t->dev[i].diskseq : "-");
    for (unsigned i = 0; i < tu->nitems; i++)
        fprintf(f, "item=%s %s %s %s\n", tu->items[i].dev, tu->items[i].knob, tu->items[i].orig,
                tu->items[i].set[0] ? tu->items[i].set : "-");
    return sbio_state_commit(f, tmp, tu->state_path);
}

static int lock_dev(struct sbio_tune *tu, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s.lock", sbio_state_dir(), name);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        sbio_err("%s: open: %s", path, strerror(e));
        return -e;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        sbio_err("another sbio is tuning %s (lock %s held): wait for it, or run the two on "
                 "different devices",
                 name, path);
        return -SBIO_EUSAGE;
    }
    tu->lock_fd[tu->nlocks++] = fd;
    return 0;
}

static void unlock_all(struct sbio_tune *tu)
{
    for (unsigned i = 0; i < tu->nlocks; i++)
        close(tu->lock_fd[i]);
    tu->nlocks = 0;
}

/* Current value of an item in the form restore compares: the bracketed scheduler. */
static int item_current(const struct sbio_target *t, const struct sbio_tune_item *it, char *buf,
                        size_t len)
{
    const struct sbio_blockdev *d = find_dev(t, it->dev);
    if (!d)
        return -ENODEV;
    int rc = sbio_sysblock_read(d, it->knob, buf, len);
    if (rc || strcmp(it->knob, "scheduler"))
        return rc;
    char names[SBIO_MAX_SCHED][32];
    int cur;
    sbio_sched_parse(buf, names, SBIO_MAX_SCHED, &cur);
    snprintf(buf, len, "%.31s", cur >= 0 ? names[cur] : "");
    return 0;
}

/* Whether setting scheduler on d switches it: writing the one in effect changes nothing (the
 * kernel keeps its iosched/ tunables and nr_requests). */
static bool sched_switches(const struct sbio_blockdev *d, const char *scheduler)
{
    char line[256], names[SBIO_MAX_SCHED][32];
    int cur;
    if (!scheduler)
        return false;
    if (sbio_sysblock_read(d, "scheduler", line, sizeof(line)))
        return true;
    sbio_sched_parse(line, names, SBIO_MAX_SCHED, &cur);
    return cur < 0 || strcmp(names[cur], sbio_sched_canonical(scheduler));
}

/* Plan one setting: record the value before any change (an iosched/ tunable of a scheduler
 * about to be set has none: "-"). */
static int add_item(struct sbio_tune *tu, const struct sbio_blockdev *d, const char *knob,
                    const char *want, bool absent)
{
    if (tu->nitems >= sizeof(tu->items) / sizeof(tu->items[0])) {
        sbio_err("too many queue settings (at most %zu)", sizeof(tu->items) / sizeof(tu->items[0]));
        return -SBIO_EUSAGE;
    }
    struct sbio_tune_item *it = &tu->items[tu->nitems];
    memset(it, 0, sizeof(*it));
    snprintf(it->dev, sizeof(it->dev), "%s", d->name);
    snprintf(it->knob, sizeof(it->knob), "%s", knob);
    snprintf(it->want, sizeof(it->want), "%s", want);
    if (absent) {
        snprintf(it->orig, sizeof(it->orig), "-");
    } else {
        int rc = item_current(tu->t, it, it->orig, sizeof(it->orig));
        if (rc)
            return rc;
    }
    tu->nitems++;
    return 0;
}

/* Write one item, read it back, record and print the value in effect. */
static int apply_item(struct sbio_tune *tu, struct sbio_tune_item *it, FILE *out)
{
    const struct sbio_blockdev *d = find_dev(tu->t, it->dev);
    const char *value = it->want;
    char before[sizeof(it->set)];
    if (!value[0])
        return 0; /* not asked for: nr_requests as the scheduler switch left it, recorded then */
    /* Record the intent first, marked pending ("?value"): after a crash between the write
     * and the next state update, recovery restores the original whenever the knob moved
     * from it — even to a value the kernel capped, which is not the one asked for. */
    memcpy(before, it->set, sizeof(before));
    it->set[0] = '?';
    memcpy(it->set + 1, it->want, sizeof(it->set) - 1);
    it->set[sizeof(it->set) - 1] = 0;
    int rc = state_write(tu);
    if (rc) {
        sbio_err("%s: write: %s", tu->state_path, strerror(-rc));
        return rc;
    }
    rc = sbio_sysblock_write(d, it->knob, value);
    if (rc) {
        sbio_err("%s/queue/%s: the kernel refused '%s': %s", d->dir, it->knob, value,
                 strerror(-rc));
        memcpy(it->set, before, sizeof(it->set)); /* unchanged by this write */
        state_write(tu);
        return -SBIO_EUSAGE;
    }
    char now[128];
    rc = item_current(tu->t, it, now, sizeof(now));
    if (rc)
        return rc;
    snprintf(it->set, sizeof(it->set), "%s", now);
    bool sched = !strcmp(it->knob, "scheduler");
    /* The switch reset nr_requests: restore must put the original back even when sbio's own
     * nr_requests write never happens (refused, or an earlier failure). */
    for (unsigned k = 0; sched && k < tu->nitems; k++) {
        struct sbio_tune_item *o = &tu->items[k];
        if (!o->set[0] && !strcmp(o->dev, it->dev) && !strcmp(o->knob, "nr_requests") &&
            item_current(tu->t, o, o->set, sizeof(o->set)))
            o->set[0] = 0;
    }
    if ((rc = state_write(tu)))
        return rc;
    if (sched && strcmp(now, sbio_sched_canonical(value))) {
        sbio_err("%s/queue/scheduler: wrote '%s' but '%s' is in effect", d->dir, value, now);
        return -SBIO_EUSAGE;
    }
    if (out) {
        fprintf(out, "%s %s: %s (was %s)", it->dev, it->knob, now, it->orig);
        if (!sched && strcmp(now, value))
            fprintf(out, " — asked %s, the kernel capped it", value);
        fputc('\n', out);
    }
    return 0;
}

int sbio_tune_check(const struct sbio_target *t, const char *scheduler, const char *const *queue,
                    int nqueue)
{
    if (!scheduler && !nqueue)
        return 0;
    const char *what = scheduler ? "--scheduler" : "--queue";
    if (geteuid() != 0 && !sbio_sysfs_is_fake()) {
        sbio_err("%s changes kernel settings and needs root", what);
        return -SBIO_EUSAGE;
    }
    if (!t->has_top) {
        sbio_err("%s: the set is on %s (%s), which has no block device queue: nothing can be "
                 "tuned; name a device with --queue-device",
                 what, t->fstype, t->source[0] ? t->source : "no source");
        return -SBIO_EUSAGE;
    }
    /* Validate everything before the first change. */
    if (scheduler && strchr(scheduler, ',')) {
        sbio_err("--scheduler=%s: one scheduler per run (sbio compare --schedulers=LIST runs "
                 "several)",
                 scheduler);
        return -SBIO_EUSAGE;
    }
    if (scheduler && sbio_sched_check_list(t, "--scheduler", scheduler))
        return -SBIO_EUSAGE;
    for (int q = 0; q < nqueue; q++) {
        const char *eq = strchr(queue[q], '=');
        char key[64];
        snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - queue[q]) : 0, queue[q]);
        if (!eq || !sbio_sysblock_knob_allowed(key) || !eq[1] || strpbrk(eq + 1, " \n")) {
            sbio_err("--queue %s: accepted: KEY=VALUE with KEY one of read_ahead_kb, "
                     "max_sectors_kb, nr_requests, nomerges, rotational, wbt_lat_usec, "
                     "rq_affinity, add_random, iosched/TUNABLE",
                     queue[q]);
            return -SBIO_EUSAGE;
        }
        /* Two values for one knob: the second's saved value would be the first's, and the
         * restore would find neither. */
        for (int p = 0; p < q; p++)
            if (!strncmp(queue[p], queue[q], (size_t)(eq - queue[q]) + 1)) {
                sbio_err("--queue %s: %s is already set by --queue %s; accepted: one value per "
                         "knob",
                         queue[q], key, queue[p]);
                return -SBIO_EUSAGE;
            }
        const struct sbio_blockdev *devs[SBIO_MAX_DEVS];
        unsigned nd = knob_devs(t, key, devs);
        for (unsigned i = 0; i < nd; i++) {
            char v[128];
            /* iosched/ tunables of a scheduler about to be set only exist after the switch. */
            if (!strncmp(key, "iosched/", 8) && sched_switches(devs[i], scheduler))
                continue;
            if (sbio_sysblock_read(devs[i], key, v, sizeof(v))) {
                sbio_err("--queue %s: %s/queue/%s does not exist", queue[q], devs[i]->dir, key);
                return -SBIO_EUSAGE;
            }
        }
    }

    return 0;
}

/* The state folder, and a lock on every device the settings touch. 0 or -errno. */
static int tune_lock(struct sbio_tune *tu, const struct sbio_target *t)
{
    int rc = mkdir(sbio_state_dir(), 0700);
    if (rc && errno != EEXIST) {
        sbio_err("%s: mkdir: %s", sbio_state_dir(), strerror(errno));
        return -errno;
    }
    if ((rc = lock_dev(tu, t->top.name)))
        return rc;
    for (unsigned i = 0; i < t->ndev; i++)
        if (strcmp(t->dev[i].name, t->top.name) && (rc = lock_dev(tu, t->dev[i].name))) {
            unlock_all(tu);
            return rc;
        }
    snprintf(tu->state_path, sizeof(tu->state_path), "%s/%s.state", sbio_state_dir(), t->top.name);
    tu->active = true;
    return 0;
}

/* A knob's place in the order of application: iosched/ tunables, nr_requests, the limits
 * that move other values (writing max_sectors_kb raises read_ahead_kb to twice it, on 6.x
 * kernels), the rest. */
static int knob_pass(const char *key)
{
    if (!strncmp(key, "iosched/", 8))
        return 0;
    if (!strcmp(key, "nr_requests"))
        return 1;
    return !strcmp(key, "max_sectors_kb") ? 2 : 3;
}

/* Plan every setting and record every original before the first change: the scheduler
 * switch resets nr_requests, so its original must be read before it. Order of application:
 * scheduler, then knob_pass's. 0 or -errno. */
static int tune_plan(struct sbio_tune *tu, const struct sbio_target *t, const char *scheduler,
                     const char *const *queue, int nqueue)
{
    int rc = 0;
    bool asked_nr = false;
    for (int q = 0; q < nqueue; q++)
        asked_nr |= !strncmp(queue[q], "nr_requests=", 12);
    if (scheduler)
        for (unsigned i = 0; i < t->ndev && !rc; i++)
            rc = add_item(tu, &t->dev[i], "scheduler", sbio_sched_canonical(scheduler), false);
    for (int pass = 0; pass < 4 && !rc; pass++) {
        for (int q = 0; q < nqueue && !rc; q++) {
            const char *eq = strchr(queue[q], '=');
            char key[64];
            snprintf(key, sizeof(key), "%.*s", (int)(eq - queue[q]), queue[q]);
            bool iosched = !strncmp(key, "iosched/", 8);
            if (knob_pass(key) != pass)
                continue;
            const struct sbio_blockdev *devs[SBIO_MAX_DEVS];
            unsigned nd = knob_devs(t, key, devs);
            for (unsigned i = 0; i < nd && !rc; i++)
                rc = add_item(tu, devs[i], key, eq + 1,
                              iosched && sched_switches(devs[i], scheduler));
        }
        /* A switch resets nr_requests: put it back after even when not asked to set it. */
        for (unsigned i = 0; pass == 1 && !asked_nr && i < t->ndev && !rc; i++) {
            char v[128];
            if (sched_switches(&t->dev[i], scheduler) &&
                !sbio_sysblock_read(&t->dev[i], "nr_requests", v, sizeof(v)))
                rc = add_item(tu, &t->dev[i], "nr_requests", "", false);
        }
    }
    return rc;
}

/* Every setting read back once all are written: each must still be what its own write left
 * (a later write can move another knob), or the run would be labelled with a value it does
 * not have. 0, -SBIO_EUSAGE (said) or -errno. */
static int tune_read_back(struct sbio_tune *tu, const struct sbio_target *t)
{
    for (unsigned i = 0; i < tu->nitems; i++) {
        const struct sbio_tune_item *it = &tu->items[i];
        char now[128];
        if (!it->want[0] || !it->set[0])
            continue;
        int rc = item_current(t, it, now, sizeof(now));
        if (rc)
            return rc;
        if (strcmp(now, it->set)) {
            sbio_err("%s/queue/%s: %s once every setting was written (it was %s after its own "
                     "write): another setting moved it; nothing run",
                     find_dev(t, it->dev)->dir, it->knob, now, it->set);
            /* sbio's own writes moved it: the restore must know it as sbio's. */
            snprintf(tu->items[i].set, sizeof(tu->items[i].set), "%s", now);
            state_write(tu);
            return -SBIO_EUSAGE;
        }
    }
    return 0;
}

/* Apply the planned items in order; a tunable of a scheduler switched to by this run is
 * checked once the switch happened; then every one read back. 0, -SBIO_EUSAGE or -errno. */
static int tune_apply_items(struct sbio_tune *tu, const struct sbio_target *t, FILE *out)
{
    int rc = 0;
    for (unsigned i = 0; i < tu->nitems && !rc; i++) {
        struct sbio_tune_item *it = &tu->items[i];
        if (!strcmp(it->orig, "-")) {
            const struct sbio_blockdev *d = find_dev(t, it->dev);
            char v[128], line[256] = "";
            if (sbio_sysblock_read(d, it->knob, v, sizeof(v))) {
                sbio_sysblock_read(d, "scheduler", line, sizeof(line));
                sbio_err("--queue %s=%s: %s/queue/%s does not exist under the scheduler in "
                         "effect (%s)",
                         it->knob, it->want, d->dir, it->knob, line);
                return -SBIO_EUSAGE;
            }
        }
        rc = apply_item(tu, it, out);
    }
    return rc ? rc : tune_read_back(tu, t);
}

int sbio_tune_apply(struct sbio_tune *tu, struct sbio_target *t, const char *scheduler,
                    const char *const *queue, int nqueue, FILE *out)
{
    memset(tu, 0, sizeof(*tu));
    tu->t = t;
    if (!scheduler && !nqueue)
        return 0;
    int rc = sbio_tune_check(t, scheduler, queue, nqueue);
    if (!rc && scheduler)
        sbio_sched_note("--scheduler", scheduler);
    if (!rc)
        rc = tune_lock(tu, t);
    if (rc)
        return rc;
    rc = tune_plan(tu, t, scheduler, queue, nqueue);
    if (!rc && (rc = state_write(tu)))
        sbio_err("%s: write: %s", tu->state_path, strerror(-rc));
    if (!rc)
        rc = tune_apply_items(tu, t, out);
    if (rc) {
        /* Nothing stays changed when the settings cannot all be applied. */
        sbio_tune_restore(tu);
        return rc;
    }
    return 0;
}

/* Restore items given which of them are still as sbio left them; *nrestored counts the
 * writes. */
static int restore_items(const struct sbio_target *t, struct sbio_tune_item *items, unsigned n,
                         FILE *log, unsigned *nrestored)
{
    bool ours[64] = {false};
    int rc = 0;
    *nrestored = 0;
    for (unsigned i = 0; i < n && i < 64; i++) {
        char now[128];
        if (!items[i].set[0] || !strcmp(items[i].orig, "-"))
            continue; /* never written, or came with sbio's scheduler and leave with it */
        if (item_current(t, &items[i], now, sizeof(now))) {
            sbio_err("warning: %s %s cannot be read any more; not restored", items[i].dev,
                     items[i].knob);
            continue;
        }
        ours[i] =
            items[i].set[0] == '?' ? strcmp(now, items[i].orig) != 0 : !strcmp(now, items[i].set);
        if (!ours[i] && strcmp(now, items[i].orig))
            sbio_err("warning: %s %s is %s, not the %s sbio set: someone changed it since; "
                     "left alone",
                     items[i].dev, items[i].knob, now, items[i].set);
    }
    /* Scheduler first (it resets nr_requests and drops iosched/), then the rest in reverse. */
    bool sched_restored[64] = {false};
    for (unsigned i = 0; i < n && i < 64; i++) {
        if (!ours[i] || strcmp(items[i].knob, "scheduler"))
            continue;
        const struct sbio_blockdev *d = find_dev(t, items[i].dev);
        int e = d ? sbio_sysblock_write(d, "scheduler", items[i].orig) : -ENODEV;
        if (e) {
            sbio_err("restoring %s scheduler to %s: %s", items[i].dev, items[i].orig, strerror(-e));
            rc = e;
            continue;
        }
        /* Only a real switch drops the iosched/ tunables: the same name again changes nothing. */
        sched_restored[i] = strcmp(items[i].orig, items[i].set) != 0;
        ++*nrestored;
        if (log)
            fprintf(log, "restored %s scheduler: %s\n", items[i].dev, items[i].orig);
    }
    /* max_sectors_kb before the rest (writing it raises read_ahead_kb), then the rest in
     * reverse. */
    for (unsigned k = 0; k < 2 * n; k++) {
        unsigned j = k < n ? n - 1 - k : 2 * n - 1 - k;
        if (j >= 64 || !ours[j] || !strcmp(items[j].knob, "scheduler") ||
            (knob_pass(items[j].knob) == 2) != (k < n))
            continue;
        bool gone = false;
        for (unsigned i = 0; i < n && i < 64; i++)
            if (sched_restored[i] && !strcmp(items[i].dev, items[j].dev) &&
                !strncmp(items[j].knob, "iosched/", 8))
                gone = true; /* the tunables left with the scheduler that had them */
        if (gone)
            continue;
        const struct sbio_blockdev *d = find_dev(t, items[j].dev);
        int e = d ? sbio_sysblock_write(d, items[j].knob, items[j].orig) : -ENODEV;
        if (e) {
            sbio_err("restoring %s %s to %s: %s", items[j].dev, items[j].knob, items[j].orig,
                     strerror(-e));
            rc = e;
            continue;
        }
        ++*nrestored;
        if (log)
            fprintf(log, "restored %s %s: %s\n", items[j].dev, items[j].knob, items[j].orig);
    }
    return rc;
}

int sbio_tune_restore(struct sbio_tune *tu)
{
    if (!tu->active)
        return 0;
    unsigned nrestored;
    int rc = restore_items(tu->t, tu->items, tu->nitems, NULL, &nrestored);
    if (!rc) {
        unlink(tu->state_path);
        tu->active = false;
    }
    unlock_all(tu);
    return rc;
}

/* Parse a state file into t (devices) and items. 0, or -EBADMSG. */
static int state_read(const char *path, char *boot, size_t blen, struct sbio_target *t,
                      struct sbio_tune_item *items, unsigned *n, char seqs[][32])
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    char line[512];
    unsigned nd = 0;
    *n = 0;
    boot[0] = 0;
    memset(t, 0, sizeof(*t));
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "boot_id=", 8)) {
            snprintf(boot, blen, "%.63s", line + 8);
        } else if (!strncmp(line, "dev=", 4) && nd < SBIO_MAX_DEVS) {
            struct sbio_blockdev *d = nd == 0 ? &t->top : &t->dev[nd];
            if (sscanf(line + 4, "%63s %u:%u %31s", d->name, &d->major, &d->minor, seqs[nd]) != 4)
                continue;
            if (nd == 0)
                t->dev[0] = t->top;
            nd++;
        } else if (!strncmp(line, "item=", 5) && *n < 64) {
            struct sbio_tune_item *it = &items[*n];
            if (sscanf(line + 5, "%63s %63s %127s %127s", it->dev, it->knob, it->orig, it->set) ==
                4) {
                if (!strcmp(it->set, "-"))
                    it->set[0] = 0;
                (*n)++;
            }
        }
    }
    fclose(f);
    t->ndev = nd;
    t->has_top = nd > 0;
    return nd ? 0 : -EBADMSG;
}

int sbio_tune_recover(bool verbose)
{
    DIR *dir = opendir(sbio_state_dir());
    if (!dir)
        return errno == ENOENT ? 0 : -errno;
    int restored = 0;
    struct dirent *e;
    char boot_now[64] = "";
    sbio_boot_id(boot_now, sizeof(boot_now));
    while ((e = readdir(dir))) {
        size_t l = strlen(e->d_name);
        if (l < 7 || strcmp(e->d_name + l - 6, ".state"))
            continue;
        char path[PATH_MAX + 256], lockp[PATH_MAX + 256], name[256];
        snprintf(name, sizeof(name), "%.*s", (int)(l - 6), e->d_name);
        snprintf(path, sizeof(path), "%s/%s", sbio_state_dir(), e->d_name);
        snprintf(lockp, sizeof(lockp), "%s/%s.lock", sbio_state_dir(), name);
        int lfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lfd < 0)
            continue;
        if (flock(lfd, LOCK_EX | LOCK_NB)) {
            close(lfd); /* a live sbio owns it */
            continue;
        }
        struct sbio_target t;
        struct sbio_tune_item items[64];
        unsigned n = 0;
        char boot[64], seqs[SBIO_MAX_DEVS][32];
        int rc = state_read(path, boot, sizeof(boot), &t, items, &n, seqs);
        if (rc) {
            sbio_note("%s is damaged; removed without restoring", path);
            unlink(path);
            close(lfd);
            continue;
        }
        if (strcmp(boot, boot_now)) {
            sbio_note("%s is from an earlier boot (settings were reset by the reboot); removed",
                      path);
            unlink(path);
            close(lfd);
            continue;
        }
        /* The device must still be the one tuned: same numbers, same disk sequence. */
        bool same = true;
        for (unsigned i = 0; i < t.ndev; i++) {
            struct sbio_blockdev *d = i == 0 ? &t.top : &t.dev[i];
            struct sbio_blockdev now;
            if (dev_from_majmin(d->major, d->minor, &now) || strcmp(now.name, d->name) ||
                (strcmp(seqs[i], "-") && strcmp(now.diskseq, seqs[i]))) {
                same = false;
                break;
            }
            *d = now;
            if (i == 0)
                t.dev[0] = now;
        }
        if (!same) {
            sbio_note("%s: device %s is gone or was re-attached since; nothing to restore; "
                      "removed",
                      path, t.top.name);
            unlink(path);
            close(lfd);
            continue;
        }
        sbio_note("an earlier sbio (killed or crashed) left settings on %s: restoring them",
                  t.top.name);
        unsigned nrestored;
        rc = restore_items(&t, items, n, verbose ? stdout : NULL, &nrestored);
        restored += (int)nrestored;
        if (!rc)
            unlink(path);
        close(lfd);
    }
    closedir(dir);
    return restored;
}

int sbio_diskstat_read(const struct sbio_blockdev *d, struct sbio_diskstat *s)
{
    char path[PATH_MAX + 8], buf[512];
    memset(s, 0, sizeof(*s));
    snprintf(path, sizeof(path), "%s/stat", d->dir);
    int rc = sbio_sysblock_read_file(path, buf, sizeof(buf));
    if (rc)
        return rc;
    char *p = buf;
    for (int i = 0; i < 17; i++) {
        char *end;
        s->f[i] = strtoull(p, &end, 10);
        if (end == p)
            break;
        p = end;
    }
    return 0;
}

int sbio_cachestat_add(int fd, struct sbio_cachestat *cs)
{
    struct {
        uint64_t off, len;
    } range = {0, 0};
    struct {
        uint64_t cached, dirty, writeback, evicted, recently_evicted;
    } st;
    if (syscall(__NR_cachestat, fd, &range, &st, 0))
        return -errno;
    cs->cached += st.cached;
    cs->dirty += st.dirty;
    cs->writeback += st.writeback;
    cs->evicted += st.evicted;
    cs->recently_evicted += st.recently_evicted;
    return 0;
}

int sbio_drop_caches(void)
{
    if (geteuid() != 0 && !sbio_procfs_is_fake()) {
        sbio_err("--drop-caches needs root (it writes /proc/sys/vm/drop_caches)");
        return -SBIO_EUSAGE;
    }
    /* Without the sync, dirty pages stay cached. */
    sync();
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/sys/vm/drop_caches", sbio_procfs_root());
    int rc = write_text(path, "3");
    if (rc)
        sbio_err("%s: write: %s", path, strerror(-rc));
    return rc;
}

uint64_t sbio_direct_alignment(int dirfd, const char *name, const struct sbio_target *t)
{
#ifdef STATX_DIOALIGN
    struct statx stx;
    if (!statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_DIOALIGN, &stx) &&
        (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align)
        return stx.stx_dio_offset_align;
#else
    (void)dirfd, (void)name;
#endif
    char v[32];
    if (t && t->has_top && !sbio_sysblock_read(&t->top, "logical_block_size", v, sizeof(v)) &&
        strtoull(v, NULL, 10))
        return strtoull(v, NULL, 10);
    return t && !t->has_top && !strcmp(t->fstype, "tmpfs") ? 1 : 512;
}

uint64_t sbio_physical_sector(const struct sbio_target *t)
{
    char v[32];
    if (!t || !t->has_top || sbio_sysblock_read(&t->top, "physical_block_size", v, sizeof(v)))
        return 0;
    return strtoull(v, NULL, 10);
}
