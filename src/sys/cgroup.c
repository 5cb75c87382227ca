#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sysblock.h"
#include "util.h"

static const char *cgroup_fake_root(void)
{
    const char *r = getenv("SBIO_CGROUP_ROOT");
    return r && *r ? r : NULL;
}

const char *sbio_cgroup_v1_name(const char *ctrl)
{
    return strcmp(ctrl, "io") ? ctrl : "blkio";
}

static bool cgroup_exists(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Whether the space-separated list has word. */
static bool cgroup_has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ' ' || p[-1] == ',') &&
            (p[n] == 0 || p[n] == ' ' || p[n] == ',' || p[n] == '\n'))
            return true;
    return false;
}

/* The group path of the line of a cgroup file (<procfs>/self/cgroup,
 * <procfs>/PID/task/TID/cgroup) whose controllers list v1name, or of v2's line "0::" when
 * v1name is NULL. 0, -ENOENT (no such line) or -errno. */
static int cgroup_line_of(const char *path, const char *v1name, char *buf, size_t len)
{
    char line[PATH_MAX + 128];
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    int rc = -ENOENT;
    while (rc && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        if (v1name ? cgroup_has_word(c1 + 1, v1name) : !strcmp(line, "0:")) {
            snprintf(buf, len, "%s", c2 + 1);
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

/* The process's own group in the hierarchy of v1name (NULL: v2). */
static int cgroup_own(const char *v1name, char *own, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/self/cgroup", sbio_procfs_root());
    return cgroup_line_of(path, v1name, own, len);
}

/* h->own from the mount and the own group's path; a group that is not in the mount (a
 * fake tree, a namespace) is the mount's root. */
static void cgroup_set_own(struct sbio_cgroup_hier *h, const char *v1name)
{
    char rel[PATH_MAX] = "/";
    cgroup_own(v1name, rel, sizeof(rel));
    int n = snprintf(h->own, sizeof(h->own), "%s%s", h->mount, strcmp(rel, "/") ? rel : "");
    if (n < 0 || (size_t)n >= sizeof(h->own) || !cgroup_exists(h->own))
        snprintf(h->own, sizeof(h->own), "%s", h->mount);
}

/* The fields of a mountinfo line: the mount point (5th) and, after " - ", the type and
 * the super options. */
static bool cgroup_mount_line(char *line, char **mnt, char **type, char **opts)
{
    char *sep = strstr(line, " - ");
    if (!sep)
        return false;
    *sep = 0;
    char *save = NULL, *tok = strtok_r(line, " ", &save);
    for (int i = 1; tok && i < 5; i++)
        tok = strtok_r(NULL, " ", &save);
    *mnt = tok;
    save = NULL;
    *type = strtok_r(sep + 3, " ", &save);
    char *src = strtok_r(NULL, " ", &save);
    *opts = src ? strtok_r(NULL, " \n", &save) : NULL;
    return *mnt && *type && *opts;
}

/* Find the mounts: the v2 one when it has ctrl, else the v1 mount of it. */
static int cgroup_find_mounts(const char *ctrl, struct sbio_cgroup_hier *h)
{
    char path[PATH_MAX], line[4096], v1[PATH_MAX] = "", v2[PATH_MAX] = "";
    snprintf(path, sizeof(path), "%s/self/mountinfo", sbio_procfs_root());
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    const char *name = sbio_cgroup_v1_name(ctrl);
    while (fgets(line, sizeof(line), f)) {
        char *mnt, *type, *opts;
        if (!cgroup_mount_line(line, &mnt, &type, &opts))
            continue;
        if (!strcmp(type, "cgroup2") && !v2[0])
            snprintf(v2, sizeof(v2), "%s", mnt);
        else if (!strcmp(type, "cgroup") && !v1[0]) {
            for (char *p = opts; *p; p++)
                if (*p == ',')
                    *p = ' ';
            if (cgroup_has_word(opts, name))
                snprintf(v1, sizeof(v1), "%s", mnt);
        }
    }
    fclose(f);
    char have[512];
    if (v2[0] && !sbio_cgroup_read(v2, "cgroup.controllers", have, sizeof(have)) &&
        cgroup_has_word(have, ctrl)) {
        h->version = SBIO_CGROUP_V2;
        snprintf(h->mount, sizeof(h->mount), "%s", v2);
        cgroup_set_own(h, NULL);
    } else if (v1[0]) {
        h->version = SBIO_CGROUP_V1;
        snprintf(h->mount, sizeof(h->mount), "%s", v1);
        cgroup_set_own(h, name);
    }
    return h->version ? 0 : -ENOENT;
}

int sbio_cgroup_find(const char *ctrl, struct sbio_cgroup_hier *h)
{
    memset(h, 0, sizeof(*h));
    const char *fake = cgroup_fake_root();
    if (!fake)
        return cgroup_find_mounts(ctrl, h);
    char have[512];
    if (!sbio_cgroup_read(fake, "cgroup.controllers", have, sizeof(have))) {
        if (!cgroup_has_word(have, ctrl))
            return -ENOENT;
        h->version = SBIO_CGROUP_V2;
        snprintf(h->mount, sizeof(h->mount), "%s", fake);
        cgroup_set_own(h, NULL);
        return 0;
    }
    snprintf(h->mount, sizeof(h->mount), "%s/%s", fake, sbio_cgroup_v1_name(ctrl));
    if (!cgroup_exists(h->mount))
        return -ENOENT;
    h->version = SBIO_CGROUP_V1;
    cgroup_set_own(h, sbio_cgroup_v1_name(ctrl));
    return 0;
}

static int cgroup_write_flags(const char *dir, const char *file, const char *value, int flags)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    /* A fake tree starts without the kernel's files: writes make them, for tests to read. */
    int fd = open(path, O_WRONLY | O_CLOEXEC | flags | (cgroup_fake_root() ? O_CREAT : 0), 0644);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, value, strlen(value));
    int e = errno;
    if (close(fd) && n >= 0)
        return -errno;
    return n < 0 ? -e : 0;
}

/* O_TRUNC is a no-op on cgroupfs and makes a fake tree hold the last value written. */
int sbio_cgroup_write(const char *dir, const char *file, const char *value)
{
    return cgroup_write_flags(dir, file, value, O_TRUNC);
}

int sbio_cgroup_read(const char *dir, const char *file, char *buf, size_t len)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    return sbio_sysblock_read_file(path, buf, len);
}

/* A task list (tasks, cgroup.procs) is appended to: a fake tree then keeps every id. */
static int cgroup_enter(const char *dir, const char *file, pid_t id)
{
    char v[32];
    snprintf(v, sizeof(v), "%d\n", (int)id);
    return cgroup_write_flags(dir, file, v, O_APPEND);
}

int sbio_cgroup_enter_thread(const char *dir, pid_t tid)
{
    return cgroup_enter(dir, "tasks", tid ? tid : gettid());
}

int sbio_cgroup_enter_process(const char *dir, pid_t pid)
{
    return cgroup_enter(dir, "cgroup.procs", pid ? pid : getpid());
}

int sbio_cgroup_of(const struct sbio_cgroup_hier *h, pid_t pid, pid_t tid, char *buf, size_t len)
{
    char path[PATH_MAX], want[64];
    snprintf(path, sizeof(path), "%s/%d/task/%d/cgroup", sbio_procfs_root(), (int)pid, (int)tid);
    if (h->version == SBIO_CGROUP_V2)
        return cgroup_line_of(path, NULL, buf, len);
    /* The v1 mount's folder name is its controllers ("blkio", "cpu,cpuacct"). */
    const char *base = strrchr(h->mount, '/');
    snprintf(want, sizeof(want), "%.63s", base ? base + 1 : h->mount);
    return cgroup_line_of(path, want, buf, len);
}

void sbio_cgroups_init(struct sbio_cgroups *cg)
{
    memset(cg, 0, sizeof(*cg));
    cg->state_fd = -1;
}

/* The state file, rewritten whole before each change: a crash at any point leaves a list
 * of everything that may exist. */
static int cgroup_state_write(const struct sbio_cgroups *cg, const char *next_dir,
                              const char *next_home, const char *next_enabled)
{
    char tmp[PATH_MAX + 8], boot[64] = "";
    sbio_boot_id(boot, sizeof(boot));
    snprintf(tmp, sizeof(tmp), "%s.tmp", cg->state_path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -errno;
    fprintf(f, "format=1\nboot_id=%s\npid=%d\n", boot, (int)getpid());
    for (unsigned i = 0; i < cg->nenabled; i++)
        fprintf(f, "enabled=%s\n", cg->enabled[i]);
    if (next_enabled)
        fprintf(f, "enabled=%s\n", next_enabled);
    for (unsigned i = 0; i < cg->ndirs; i++)
        fprintf(f, "dir=%s\t%s\n", cg->dirs[i], cg->home[i]);
    if (next_dir)
        fprintf(f, "dir=%s\t%s\n", next_dir, next_home);
    return sbio_state_commit(f, tmp, cg->state_path);
}

static void cgroup_lock_path(char *buf, size_t len, const char *state_path)
{
    size_t n = strlen(state_path) - strlen(".cgroups");
    snprintf(buf, len, "%.*s.cglock", (int)n, state_path);
}

/* The state file's lock, held while this process lives. */
static int cgroup_state_open(struct sbio_cgroups *cg)
{
    if (cg->state_fd >= 0)
        return 0;
    if (mkdir(sbio_state_dir(), 0700) && errno != EEXIST)
        return -errno;
    char lock[PATH_MAX + 16];
    snprintf(cg->state_path, sizeof(cg->state_path), "%s/sbio.%d.cgroups", sbio_state_dir(),
             (int)getpid());
    cgroup_lock_path(lock, sizeof(lock), cg->state_path);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        int e = errno;
        close(fd);
        return -e;
    }
    cg->state_fd = fd;
    return 0;
}

/* Enable ctrl in dir's subtree_control (v2), recorded first when sbio did not make dir. */
static int cgroup_enable(struct sbio_cgroups *cg, const char *dir, const char *ctrl, bool ours)
{
    char have[512], rec[PATH_MAX + 16];
    if (!sbio_cgroup_read(dir, "cgroup.subtree_control", have, sizeof(have)) &&
        cgroup_has_word(have, ctrl))
        return 0;
    char v[64];
    snprintf(v, sizeof(v), "+%s", ctrl);
    if (!ours) {
        if (cg->nenabled == sizeof(cg->enabled) / sizeof(cg->enabled[0]))
            return -ENOSPC;
        snprintf(rec, sizeof(rec), "%s %s", dir, v);
        int rc = cgroup_state_write(cg, NULL, NULL, rec);
        if (rc)
            return rc;
        snprintf(cg->enabled[cg->nenabled++], sizeof(cg->enabled[0]), "%s", rec);
    }
    return sbio_cgroup_write(dir, "cgroup.subtree_control", v);
}

static bool cgroup_made(const struct sbio_cgroups *cg, const char *dir)
{
    for (unsigned i = 0; i < cg->ndirs; i++)
        if (!strcmp(cg->dirs[i], dir))
            return true;
    return false;
}

/* mkdir dir, recorded first; home is where its tasks go back to. */
static int cgroup_mkdir(struct sbio_cgroups *cg, const char *dir, const char *home)
{
    if (cgroup_made(cg, dir))
        return 0;
    if (cg->ndirs == SBIO_CGROUP_MAX_DIRS)
        return -ENOSPC;
    int rc = cgroup_state_write(cg, dir, home, NULL);
    if (rc)
        return rc;
    if (mkdir(dir, 0755) && errno != EEXIST)
        return -errno;
    snprintf(cg->dirs[cg->ndirs], PATH_MAX, "%s", dir);
    snprintf(cg->home[cg->ndirs++], PATH_MAX, "%s", home);
    return 0;
}

const char *sbio_cgroup_hint(int rc, int version)
{
    if (rc == -EBUSY && version == SBIO_CGROUP_V2)
        return " (cgroup v2 enables a controller only for the children of a group without "
               "processes of its own: in a container or cgroup namespace the hierarchy's root "
               "has them)";
    if (rc == -EACCES || rc == -EPERM)
        return " (the hierarchy is not writable: read-only, or delegated to another user)";
    return "";
}

int sbio_cgroups_make(struct sbio_cgroups *cg, const struct sbio_cgroup_hier *h, const char *ctrl,
                      const char *name, char *path, size_t len)
{
    int rc = cgroup_state_open(cg);
    if (rc)
        return rc;
    bool v2 = h->version == SBIO_CGROUP_V2;
    char top[PATH_MAX + 32];
    snprintf(top, sizeof(top), "%s/sbio.%d", v2 ? h->mount : h->own, (int)getpid());
    if (v2 && (rc = cgroup_enable(cg, h->mount, ctrl, false)))
        return rc;
    if ((rc = cgroup_mkdir(cg, top, h->own)))
        return rc;
    if (!name) {
        snprintf(path, len, "%s", top);
        return 0;
    }
    if (v2 && (rc = cgroup_enable(cg, top, ctrl, true)))
        return rc;
    char dir[PATH_MAX * 2];
    snprintf(dir, sizeof(dir), "%s/%s", top, name);
    if ((rc = cgroup_mkdir(cg, dir, h->own)))
        return rc;
    snprintf(path, len, "%s", dir);
    return 0;
}

/* Move every task of dir back to home: v1 threads by `tasks`, v2 processes by
 * `cgroup.procs` (a v2 folder without cgroup.threads lists no threads). */
static int cgroup_evacuate(const char *dir, const char *home)
{
    char path[PATH_MAX + 32];
    bool v1 = true;
    snprintf(path, sizeof(path), "%s/tasks", dir);
    if (access(path, F_OK)) {
        v1 = false;
        snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
    }
    FILE *f = fopen(path, "re");
    if (!f)
        return errno == ENOENT ? 0 : -errno;
    int rc = 0, id;
    while (fscanf(f, "%d", &id) == 1) {
        int e = cgroup_enter(home, v1 ? "tasks" : "cgroup.procs", id);
        if (e && e != -ESRCH && !rc)
            rc = e;
    }
    fclose(f);
    return rc;
}

/* A fake tree's folders hold the files a test made: remove those first. */
static void cgroup_clear_fake(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_type == DT_REG)
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

/* Undo one record: a folder (tasks moved home, removed) or an enabled controller. */
static int cgroup_undo_dir(const char *dir, const char *home)
{
    if (!cgroup_exists(dir))
        return 0;
    int rc = cgroup_evacuate(dir, home);
    if (cgroup_fake_root())
        cgroup_clear_fake(dir);
    /* A thread that was joined may not have left its group yet (the kernel clears its tid,
     * which pthread_join waits for, before it takes the task out of its cgroup): the folder
     * is busy for that moment. Up to a second, moving out what is still listed. */
    for (int tries = 0; rmdir(dir) && errno == EBUSY && tries < 100; tries++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        cgroup_evacuate(dir, home);
    }
    if (cgroup_exists(dir) && rmdir(dir) && errno != ENOENT) {
        rc = -errno;
        sbio_err("warning: could not remove the group %s: %s", dir, strerror(errno));
    }
    return rc;
}

static int cgroup_undo_enabled(const char *rec)
{
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof(dir), "%s", rec);
    char *sp = strrchr(dir, ' ');
    if (!sp || sp[1] != '+')
        return 0;
    *sp = 0;
    sp[1] = '-';
    int rc = sbio_cgroup_write(dir, "cgroup.subtree_control", sp + 1);
    if (rc && rc != -EBUSY && rc != -ENOENT)
        sbio_err("warning: could not write %s to %s/cgroup.subtree_control: %s", sp + 1, dir,
                 strerror(-rc));
    return rc == -EBUSY ? 0 : rc; /* another group uses the controller now: it stays */
}

/* Remove the folders made after mark, deepest first; stop at the first that stays. */
static int cgroup_undo_dirs(struct sbio_cgroups *cg, unsigned mark)
{
    while (cg->ndirs > mark) {
        unsigned i = cg->ndirs - 1;
        int rc = cgroup_undo_dir(cg->dirs[i], cg->home[i]);
        if (rc)
            return rc;
        cg->ndirs--;
    }
    return 0;
}

int sbio_cgroups_remove_to(struct sbio_cgroups *cg, unsigned mark)
{
    int rc = cgroup_undo_dirs(cg, mark);
    int e = cg->state_fd >= 0 ? cgroup_state_write(cg, NULL, NULL, NULL) : 0;
    return rc ? rc : e;
}

int sbio_cgroups_remove(struct sbio_cgroups *cg)
{
    int rc = cgroup_undo_dirs(cg, 0);
    while (!rc && cg->nenabled > 0) {
        int e = cgroup_undo_enabled(cg->enabled[cg->nenabled - 1]);
        if (e && e != -ENOENT)
            rc = e;
        cg->nenabled--;
    }
    if (cg->state_fd >= 0) {
        if (!rc) {
            char lock[PATH_MAX + 16];
            cgroup_lock_path(lock, sizeof(lock), cg->state_path);
            unlink(cg->state_path);
            unlink(lock);
        } else {
            cgroup_state_write(cg, NULL, NULL, NULL);
        }
        close(cg->state_fd);
        cg->state_fd = -1;
    }
    return rc;
}

/* Read a state file into cg (dirs and enabled in their order). 0 or -EBADMSG. */
static int cgroup_state_read(const char *path, struct sbio_cgroups *cg, char *boot, size_t blen)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    char line[PATH_MAX * 2 + 16];
    bool format = false;
    boot[0] = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = 0;
        char *tab = strchr(line, '\t');
        if (!strcmp(line, "format=1"))
            format = true;
        else if (!strncmp(line, "boot_id=", 8))
            snprintf(boot, blen, "%.63s", line + 8);
        else if (!strncmp(line, "enabled=", 8) && cg->nenabled < 4)
            snprintf(cg->enabled[cg->nenabled++], sizeof(cg->enabled[0]), "%.*s",
                     (int)sizeof(cg->enabled[0]) - 1, line + 8);
        else if (!strncmp(line, "dir=", 4) && tab && cg->ndirs < SBIO_CGROUP_MAX_DIRS) {
            *tab = 0;
            snprintf(cg->dirs[cg->ndirs], PATH_MAX, "%.*s", PATH_MAX - 1, line + 4);
            snprintf(cg->home[cg->ndirs++], PATH_MAX, "%.*s", PATH_MAX - 1, tab + 1);
        }
    }
    fclose(f);
    return format ? 0 : -EBADMSG;
}

/* Recover one state file whose lock this process holds (lfd, closed here). The number of
 * folders removed, or -errno. */
static int cgroup_recover_one(const char *path, const char *lock, int lfd, bool verbose)
{
    struct sbio_cgroups cg;
    sbio_cgroups_init(&cg);
    char boot[64], now[64] = "", tmp[PATH_MAX + 8];
    /* The next version of the state, when the process died while writing it: what it adds
     * was not made yet (each record is written before its change). */
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    unlink(tmp);
    sbio_boot_id(now, sizeof(now));
    int rc = cgroup_state_read(path, &cg, boot, sizeof(boot));
    if (rc || strcmp(boot, now)) {
        /* Damaged, or from an earlier boot: the reboot removed every group. */
        unlink(path);
        unlink(lock);
        close(lfd);
        return 0;
    }
    unsigned n = cg.ndirs;
    snprintf(cg.state_path, sizeof(cg.state_path), "%s", path);
    cg.state_fd = lfd;
    sbio_note("an earlier sbio (killed or crashed) left control groups (%s): removing them", path);
    rc = sbio_cgroups_remove(&cg);
    if (verbose && !rc)
        printf("Removed %u control group%s an earlier sbio left\n", n, n == 1 ? "" : "s");
    return rc ? rc : (int)n;
}

int sbio_cgroup_recover(bool verbose)
{
    DIR *dir = opendir(sbio_state_dir());
    if (!dir)
        return errno == ENOENT ? 0 : -errno;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        /* A state file, or the next version of one a process left alone, killed during its
         * first write: both name the lock. */
        size_t l = strlen(e->d_name);
        if (l > 12 && !strcmp(e->d_name + l - 12, ".cgroups.tmp"))
            l -= 4;
        else if (l < 9 || strcmp(e->d_name + l - 8, ".cgroups"))
            continue;
        char path[PATH_MAX + 256], lock[PATH_MAX + 256];
        snprintf(path, sizeof(path), "%s/%.*s", sbio_state_dir(), (int)l, e->d_name);
        cgroup_lock_path(lock, sizeof(lock), path);
        int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lfd < 0)
            continue;
        if (flock(lfd, LOCK_EX | LOCK_NB)) {
            close(lfd); /* a live sbio owns it */
            continue;
        }
        int n = cgroup_recover_one(path, lock, lfd, verbose);
        if (n > 0)
            removed += n;
    }
    closedir(dir);
    return removed;
}

/* Whether s names device d: its name, /dev/NAME or MAJ:MIN. */
static bool cgroup_names_dev(const char *s, const struct sbio_blockdev *d)
{
    char mm[32];
    snprintf(mm, sizeof(mm), "%u:%u", d->major, d->minor);
    return !strcmp(s, d->name) || (!strncmp(s, "/dev/", 5) && !strcmp(s + 5, d->name)) ||
           !strcmp(s, mm);
}

/* The device of t that s names (the top device or a scheduler device), or NULL. */
static const struct sbio_blockdev *cgroup_named_dev(const char *s, const struct sbio_target *t)
{
    if (t->has_top && cgroup_names_dev(s, &t->top))
        return &t->top;
    for (unsigned i = 0; i < t->ndev; i++)
        if (cgroup_names_dev(s, &t->dev[i]))
            return &t->dev[i];
    return NULL;
}

/* Whether dir/file, or the hierarchy root's, exists: v1 files are the same in every group,
 * but some (the weights) only exist outside the root. */
static bool cgroup_has_file(const struct sbio_cgroup_hier *h, const char *file)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/%s", h->own, file);
    if (!access(p, F_OK))
        return true;
    snprintf(p, sizeof(p), "%s/%s", h->mount, file);
    return !access(p, F_OK);
}

static bool cgroup_spec_limits(const struct sbio_cgroup_spec *g)
{
    return g->rbps || g->wbps || g->riops || g->wiops || g->latency_us;
}

/* The devices of t as the message of a wrong `max` device lists them. */
static void cgroup_dev_list(const struct sbio_target *t, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < t->ndev + 1 && at < len; i++) {
        const struct sbio_blockdev *d = i == 0 ? (t->has_top ? &t->top : NULL) : &t->dev[i - 1];
        if (!d || (i > 0 && t->has_top && !strcmp(d->name, t->top.name)))
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s%s (%u:%u)", at ? ", " : "", d->name,
                               d->major, d->minor);
    }
}

/* The hierarchy's own checks: weights in range with their files, latency on v2. */
static int cgroup_check_hier(const struct sbio_cgroup_spec *g, const char *who,
                             const struct sbio_cgroup_hier *h)
{
    bool v1 = h->version == SBIO_CGROUP_V1;
    unsigned wmax = v1 ? 1000 : 10000;
    if (g->weight > wmax) {
        sbio_err("%s: group weight %u is out of range; accepted: 1 to %u (%s)", who, g->weight,
                 wmax, v1 ? "cgroup v1 blkio.weight" : "cgroup v2 io.weight");
        return -SBIO_EUSAGE;
    }
    if (g->weight && v1 && !cgroup_has_file(h, "blkio.weight")) {
        sbio_err("%s: group weight: this kernel's blkio controller (cgroup v1) has no "
                 "blkio.weight (CFQ's, gone since Linux 5.0); use bfq_weight (blkio.bfq.weight, "
                 "1 to 1000) with the bfq scheduler",
                 who);
        return -SBIO_EUSAGE;
    }
    if (g->bfq_weight > 1000) {
        sbio_err("%s: group bfq_weight %u is out of range; accepted: 1 to 1000", who,
                 g->bfq_weight);
        return -SBIO_EUSAGE;
    }
    if (g->bfq_weight && v1 && !cgroup_has_file(h, "blkio.bfq.weight") &&
        !cgroup_has_file(h, "blkio.bfq.io_service_bytes")) {
        sbio_err("%s: group bfq_weight: bfq is not loaded (%s has no blkio.bfq.weight); "
                 "modprobe bfq, or select it with --scheduler=bfq",
                 who, h->mount);
        return -SBIO_EUSAGE;
    }
    if (g->latency_us && v1) {
        sbio_err("%s: group latency needs cgroup v2 (io.latency); this kernel's io "
                 "controller is cgroup v1 blkio",
                 who);
        return -SBIO_EUSAGE;
    }
    return 0;
}

int sbio_cgroup_spec_check(const struct sbio_cgroup_spec *g, const char *who,
                           const struct sbio_target *t)
{
    if (!g->set)
        return 0;
    if (geteuid() != 0 && !cgroup_fake_root()) {
        sbio_err("%s: a group needs root (sbio makes a control group for the job)", who);
        return -SBIO_EUSAGE;
    }
    struct sbio_cgroup_hier h;
    if (sbio_cgroup_find("io", &h)) {
        sbio_err("%s: group: this kernel mounts no blkio (cgroup v1) or io (cgroup v2) "
                 "controller",
                 who);
        return -SBIO_EUSAGE;
    }
    int rc = cgroup_check_hier(g, who, &h);
    if (rc)
        return rc;
    char devs[512];
    cgroup_dev_list(t, devs, sizeof(devs));
    if (cgroup_spec_limits(g) && !t->ndev) {
        sbio_err("%s: group max and latency need a block device; the set is on %s", who,
                 t->fstype[0] ? t->fstype : "none");
        return -SBIO_EUSAGE;
    }
    if (g->max_dev[0] && !cgroup_named_dev(g->max_dev, t)) {
        sbio_err("%s: group max device '%s' is not one of the set's; accepted: the name, "
                 "/dev/NAME or MAJ:MIN of %s",
                 who, g->max_dev, devs);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* A group's settings: how descriptions name each, the file each hierarchy writes it to, and
 * (per device) its key in a v2 file. */
enum { CG_WEIGHT, CG_BFQ, CG_RBPS, CG_WBPS, CG_RIOPS, CG_WIOPS, CG_LATENCY, CG_NSET };
static const struct {
    const char *name, *v1, *v2, *key;
} cgroup_set[CG_NSET] = {
    {"weight", "blkio.weight", "io.weight", NULL},
    {"bfq_weight", "blkio.bfq.weight", "io.bfq.weight", NULL},
    {"rbps", "blkio.throttle.read_bps_device", "io.max", "rbps"},
    {"wbps", "blkio.throttle.write_bps_device", "io.max", "wbps"},
    {"riops", "blkio.throttle.read_iops_device", "io.max", "riops"},
    {"wiops", "blkio.throttle.write_iops_device", "io.max", "wiops"},
    {"latency", NULL, "io.latency", "target"},
};

static uint64_t cgroup_set_value(const struct sbio_cgroup_spec *g, int k)
{
    const uint64_t v[CG_NSET] = {g->weight, g->bfq_weight, g->rbps,      g->wbps,
                                 g->riops,  g->wiops,      g->latency_us};
    return v[k];
}

/* What file shows for setting k (on device mm "MAJ:MIN", or its default): v1 "N" or
 * "MAJ:MIN N", v2 "default N" or "MAJ:MIN key=N". 0, -ENOENT when it shows none, or the
 * read's -errno. */
static int cgroup_shown(const char *dir, const char *file, const char *mm, const char *key,
                        uint64_t *v)
{
    char buf[4096];
    int rc = sbio_cgroup_read(dir, file, buf, sizeof(buf));
    if (rc)
        return rc;
    size_t n = mm ? strlen(mm) : 0;
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        const char *p = NULL;
        if (mm && !strncmp(l, mm, n) && l[n] == ' ')
            p = l + n + 1;
        else if (!mm)
            p = !strncmp(l, "default ", 8) ? l + 8 : l;
        if (p && key) {
            char k[32];
            snprintf(k, sizeof(k), "%s=", key);
            p = strstr(p, k) ? strstr(p, k) + strlen(k) : NULL;
        }
        if (p && *p >= '0' && *p <= '9') {
            *v = strtoull(p, NULL, 10);
            return 0;
        }
    }
    return -ENOENT;
}

/* Write setting k of g to dir for each of the devices (MAJ:MIN strings). 0 or -errno (the
 * message said). */
static int cgroup_write_set(const char *dir, bool v1, const struct sbio_cgroup_spec *g, int k,
                            char (*mm)[24], unsigned ndev, const char *job)
{
    const char *file = v1 ? cgroup_set[k].v1 : cgroup_set[k].v2;
    uint64_t v = cgroup_set_value(g, k);
    char line[256];
    int rc = 0;
    for (unsigned d = 0; d < (cgroup_set[k].key ? ndev : 1) && !rc; d++) {
        if (!cgroup_set[k].key)
            snprintf(line, sizeof(line), v1 ? "%" PRIu64 : "default %" PRIu64, v);
        else if (v1)
            snprintf(line, sizeof(line), "%s %" PRIu64, mm[d], v);
        else if (k == CG_LATENCY)
            snprintf(line, sizeof(line), "%s target=%" PRIu64, mm[d], v);
        else { /* io.max: every limit of the device in one line */
            size_t at = (size_t)snprintf(line, sizeof(line), "%s", mm[d]);
            for (int i = CG_RBPS; i <= CG_WIOPS; i++)
                if (cgroup_set_value(g, i))
                    at += (size_t)snprintf(line + at, sizeof(line) - at, " %s=%" PRIu64,
                                           cgroup_set[i].key, cgroup_set_value(g, i));
        }
        rc = sbio_cgroup_write(dir, file, line);
        if (rc)
            sbio_err("job %s: writing \"%s\" to %s/%s: %s%s", job, line, dir, file, strerror(-rc),
                     rc == -ENOENT && k == CG_BFQ ? " (bfq is not loaded: modprobe bfq)" : "");
    }
    return rc;
}

/* Setting k as the kernel shows it for the first device, appended to desc. 0, or -EIO when
 * it shows another value than was written (said). */
static int cgroup_read_set(const char *dir, bool v1, const struct sbio_cgroup_spec *g, int k,
                           const char *mm, const char *job, char *desc, size_t len)
{
    const char *file = v1 ? cgroup_set[k].v1 : cgroup_set[k].v2;
    uint64_t want = cgroup_set_value(g, k), shown = want;
    bool dev = cgroup_set[k].key != NULL;
    int rc = cgroup_shown(dir, file, dev ? mm : NULL, v1 ? NULL : cgroup_set[k].key, &shown);
    if (!rc && shown != want) {
        sbio_err("job %s: wrote %s %" PRIu64 " to %s/%s, but the kernel shows %" PRIu64, job,
                 cgroup_set[k].name, want, dir, file, shown);
        return -EIO;
    }
    size_t at = strlen(desc);
    char b[32];
    const char *sep = at && desc[at - 1] != ' ' ? ", " : "";
    if (k == CG_RBPS || k == CG_WBPS)
        snprintf(desc + at, len - at, "%s%s %s/s", sep, cgroup_set[k].name,
                 sbio_fmt_bytes(b, sizeof(b), shown));
    else if (k == CG_LATENCY)
        snprintf(desc + at, len - at, "%slatency %s", sep, sbio_fmt_ns(b, sizeof(b), shown * 1e3));
    else
        snprintf(desc + at, len - at, "%s%s %" PRIu64 "%s", sep, cgroup_set[k].name, shown,
                 k == CG_RIOPS || k == CG_WIOPS ? "/s" : "");
    return 0;
}

/* A job name as a folder name: letters, digits, '-', '_' and '.' kept, the rest '_'; a
 * name another job of this process made already ("a b" and "a_b") gets "-2", "-3", …. */
static void cgroup_folder_name(const struct sbio_cgroups *cg, const struct sbio_cgroup_hier *h,
                               const char *job, char *out, size_t len)
{
    size_t i = 0;
    for (; job[i] && i + 8 < len; i++) {
        char c = job[i];
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || (c == '.' && i > 0);
        out[i] = keep ? c : '_';
    }
    out[i] = 0;
    if (!i)
        snprintf(out, len, "job");
    char path[PATH_MAX * 2];
    size_t n = strlen(out);
    for (unsigned k = 2;; k++) {
        snprintf(path, sizeof(path), "%s/sbio.%d/%s",
                 h->version == SBIO_CGROUP_V2 ? h->mount : h->own, (int)getpid(), out);
        if (!cgroup_made(cg, path) || k > 99)
            return;
        snprintf(out + n, len - n, "-%u", k);
    }
}

/* The settings written and read back, described into desc. */
static int cgroup_job_settings(const struct sbio_cgroup_job *j, const struct sbio_cgroup_spec *g,
                               const struct sbio_target *t, const char *job, char *desc, size_t len)
{
    bool v1 = j->version == SBIO_CGROUP_V1;
    char mm[SBIO_MAX_DEVS][24];
    unsigned nlim = 0;
    const struct sbio_blockdev *named = g->max_dev[0] ? cgroup_named_dev(g->max_dev, t) : NULL;
    for (unsigned i = 0; i < (named ? 1 : t->ndev); i++) {
        const struct sbio_blockdev *d = named ? named : &t->dev[i];
        snprintf(mm[nlim++], sizeof(mm[0]), "%u:%u", d->major, d->minor);
    }
    int rc = 0;
    bool iomax = false; /* v2: io.max holds every limit, written once */
    for (int k = 0; k < CG_NSET && !rc; k++) {
        if (!cgroup_set_value(g, k) || (!v1 && k >= CG_RBPS && k <= CG_WIOPS && iomax))
            continue;
        iomax = iomax || (k >= CG_RBPS && k <= CG_WIOPS);
        rc = cgroup_write_set(j->dir, v1, g, k, mm, nlim, job);
    }
    for (int k = 0; k < CG_NSET && !rc; k++)
        if (cgroup_set_value(g, k))
            rc = cgroup_read_set(j->dir, v1, g, k, nlim ? mm[0] : "", job, desc, len);
    for (unsigned d = 0; d < nlim && cgroup_spec_limits(g) && !rc; d++) {
        size_t at = strlen(desc);
        snprintf(desc + at, len - at, "%s%s", d ? ", " : " on ", mm[d]);
    }
    return rc;
}

/* bfq_weight acts only where bfq schedules: a device of the set under another scheduler is
 * said after desc. */
static void cgroup_note_bfq(const struct sbio_cgroup_spec *g, const struct sbio_target *t,
                            char *desc, size_t len)
{
    for (unsigned i = 0; g->bfq_weight && i < t->ndev; i++) {
        char line[512], names[SBIO_MAX_SCHED][32];
        int cur = -1;
        if (sbio_sysblock_read(&t->dev[i], "scheduler", line, sizeof(line)))
            continue;
        int n = sbio_sched_parse(line, names, SBIO_MAX_SCHED, &cur);
        if (cur < 0 || cur >= n || !strcmp(names[cur], "bfq"))
            continue;
        size_t at = strlen(desc);
        snprintf(desc + at, len - at, " (bfq_weight acts only under bfq: %s runs %s)",
                 t->dev[i].name, names[cur]);
        return;
    }
}

int sbio_cgroup_job_make(struct sbio_cgroups *cg, const struct sbio_cgroup_spec *g, const char *job,
                         const struct sbio_target *t, struct sbio_cgroup_job *out, char *desc,
                         size_t len)
{
    memset(out, 0, sizeof(*out));
    struct sbio_cgroup_hier h;
    char name[72];
    int rc = sbio_cgroup_find("io", &h);
    if (!rc) {
        cgroup_folder_name(cg, &h, job, name, sizeof(name));
        rc = sbio_cgroups_make(cg, &h, "io", name, out->dir, sizeof(out->dir));
    }
    if (rc) {
        sbio_err("job %s: making its control group in %s: %s%s", job,
                 h.mount[0] ? h.mount : "the io controller's hierarchy", strerror(-rc),
                 sbio_cgroup_hint(rc, h.version));
        return rc;
    }
    out->version = h.version;
    for (unsigned i = 0; i < t->ndev; i++) {
        out->major[out->ndev] = t->dev[i].major;
        out->minor[out->ndev++] = t->dev[i].minor;
    }
    snprintf(desc, len, "%s (cgroup %s): ", out->dir,
             h.version == SBIO_CGROUP_V1 ? "v1 blkio" : "v2 io");
    rc = cgroup_job_settings(out, g, t, job, desc, len);
    size_t at = strlen(desc);
    if (!rc && at < len - 1 && desc[at - 1] == ' ') /* group = {}: nothing written */
        snprintf(desc + at, len - at, "the kernel's defaults");
    if (!rc)
        cgroup_note_bfq(g, t, desc, len);
    return rc;
}

/* v1: the "MAJ:MIN Read N" and "MAJ:MIN Write N" lines of file, summed over g's devices.
 * 0, -ENODATA when the file has no line of theirs (or is not there), or the read's -errno. */
static int cgroup_io_v1(const struct sbio_cgroup_job *g, const char *file, uint64_t *rd,
                        uint64_t *wr)
{
    char buf[8192];
    int rc = sbio_cgroup_read(g->dir, file, buf, sizeof(buf));
    bool seen = false;
    *rd = *wr = 0;
    for (char *save = NULL, *l = rc ? NULL : strtok_r(buf, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        unsigned ma, mi;
        char op[16];
        unsigned long long v;
        if (sscanf(l, "%u:%u %15s %llu", &ma, &mi, op, &v) != 4)
            continue;
        for (unsigned d = 0; d < g->ndev; d++)
            if (g->major[d] == ma && g->minor[d] == mi) {
                *rd += strcmp(op, "Read") ? 0 : v;
                *wr += strcmp(op, "Write") ? 0 : v;
                seen = true;
            }
    }
    if (rc == -ENOENT) /* blkio.bfq.* without bfq */
        rc = -ENODATA;
    return rc ? rc : seen ? 0 : -ENODATA;
}

/* v2: io.stat's rbytes, wbytes, rios, wios of g's devices, summed. */
static int cgroup_io_v2(const struct sbio_cgroup_job *g, struct sbio_cgroup_io *io)
{
    char buf[8192];
    int rc = sbio_cgroup_read(g->dir, "io.stat", buf, sizeof(buf));
    for (char *save = NULL, *l = rc ? NULL : strtok_r(buf, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        unsigned ma, mi;
        unsigned long long rb, wb, ri, wi;
        if (sscanf(l, "%u:%u rbytes=%llu wbytes=%llu rios=%llu wios=%llu", &ma, &mi, &rb, &wb, &ri,
                   &wi) != 6)
            continue;
        for (unsigned d = 0; d < g->ndev; d++)
            if (g->major[d] == ma && g->minor[d] == mi) {
                io->rbytes += rb;
                io->wbytes += wb;
                io->rios += ri;
                io->wios += wi;
            }
    }
    return rc;
}

int sbio_cgroup_io_read(const struct sbio_cgroup_job *g, struct sbio_cgroup_io *io)
{
    memset(io, 0, sizeof(*io));
    if (g->version == SBIO_CGROUP_V2) {
        snprintf(io->source, sizeof(io->source), "io.stat");
        return cgroup_io_v2(g, io);
    }
    static const char *const from[] = {"throttle", "bfq"};
    int rc = -ENODATA;
    for (unsigned i = 0; i < 2 && rc == -ENODATA; i++) {
        char b[40], n[40];
        snprintf(b, sizeof(b), "blkio.%s.io_service_bytes", from[i]);
        snprintf(n, sizeof(n), "blkio.%s.io_serviced", from[i]);
        snprintf(io->source, sizeof(io->source), "%s, io_serviced", b);
        rc = cgroup_io_v1(g, b, &io->rbytes, &io->wbytes);
        if (!rc)
            rc = cgroup_io_v1(g, n, &io->rios, &io->wios);
    }
    if (rc == -ENODATA) /* no line for the devices yet: nothing counted */
        io->source[0] = 0;
    return rc == -ENODATA ? 0 : rc;
}

int sbio_cgroup_memory_check(void)
{
    if (geteuid() != 0 && !cgroup_fake_root()) {
        sbio_err("--memory-limit needs root (it makes a memory control group and moves sbio "
                 "into it)");
        return -SBIO_EUSAGE;
    }
    struct sbio_cgroup_hier h;
    if (sbio_cgroup_find("memory", &h)) {
        sbio_err("--memory-limit: this kernel offers no memory controller (no cgroup v2 "
                 "hierarchy lists memory, no cgroup v1 hierarchy has it); a limit cannot be set");
        return -SBIO_EUSAGE;
    }
    return 0;
}

int sbio_cgroup_memory_limit(struct sbio_cgroups *cg, uint64_t bytes, struct sbio_memgroup *mg)
{
    struct sbio_cgroup_hier h;
    memset(mg, 0, sizeof(*mg));
    int rc = sbio_cgroup_find("memory", &h);
    if (rc)
        return rc;
    /* v2: a group with processes cannot have child groups with controllers, and job groups
     * (processes) go beside "main" in sbio.PID; the limit on sbio.PID covers them all. */
    bool v2 = h.version == SBIO_CGROUP_V2;
    if ((rc = sbio_cgroups_make(cg, &h, "memory", v2 ? "main" : NULL, mg->leaf, sizeof(mg->leaf))))
        return rc;
    snprintf(mg->dir, sizeof(mg->dir), "%s", mg->leaf);
    char *slash = strrchr(mg->dir, '/');
    if (v2 && slash)
        *slash = 0;
    char v[32], back[64];
    const char *file = v2 ? "memory.max" : "memory.limit_in_bytes";
    snprintf(v, sizeof(v), "%" PRIu64, bytes);
    if ((rc = sbio_cgroup_write(mg->dir, file, v)) ||
        (rc = sbio_cgroup_read(mg->dir, file, back, sizeof(back))))
        return rc;
    /* The kernel keeps whole pages: what it holds is what the report shows. */
    if (sbio_parse_u64(back, &mg->limit))
        return -EBADMSG;
    if ((rc = sbio_cgroup_enter_process(mg->leaf, 0)))
        return rc;
    mg->version = h.version;
    snprintf(mg->file, sizeof(mg->file), "%s", file);
    return 0;
}

int sbio_cgroup_memstat(const char *dir, struct sbio_memstat *ms)
{
    /* Per figure, its names in order of preference: v2's, v1's hierarchical total, v1's own. */
    static const char *const keys[3][3] = {{"file", "total_cache", "cache"},
                                           {"file_dirty", "total_dirty", "dirty"},
                                           {"file_writeback", "total_writeback", "writeback"}};
    char path[PATH_MAX + 16], line[256], key[64];
    snprintf(path, sizeof(path), "%s/memory.stat", dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    uint64_t val[3] = {0, 0, 0};
    unsigned best[3] = {3, 3, 3};
    unsigned long long n;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%63s %llu", key, &n) != 2)
            continue;
        for (unsigned i = 0; i < 3; i++)
            for (unsigned k = 0; k < best[i]; k++)
                if (!strcmp(key, keys[i][k])) {
                    best[i] = k;
                    val[i] = n;
                }
    }
    fclose(f);
    if (best[0] == 3 || best[1] == 3 || best[2] == 3)
        return -EBADMSG;
    *ms = (struct sbio_memstat){.file = val[0], .dirty = val[1], .writeback = val[2]};
    return 0;
}
