/* Unit tests for block devices, schedulers, queue knobs and their restore (src/sys/sysblock.c),
 * on a fake sysfs/procfs tree built under a temporary folder per test (SBIO_SYSFS_ROOT,
 * SBIO_PROCFS_ROOT, SBIO_STATE_DIR point into it; the machine's own /sys is never written).
 *
 * Plain files do not behave like sysfs: writing a scheduler does not reset nr_requests, nor
 * swap queue/iosched/, nor read back bracketed; a refused value does not stay unchanged. A
 * "fake kernel" does that: this file defines write(), which sysblock.o links against, and
 * while fk.on, a write to a file under the fake sysfs is handled as the kernel would (see
 * fk_write). It also logs every accepted write, so the order of writes is checked, not
 * guessed from the values left behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "environment.h"
#include "helpers.h"
#include "sysblock.h"
#include "util.h"

#define BOOT_ID "0b5e5a1d-7e57-4b10-8c0d-5b10c0ffee01"

/* snprintf that fails the test when it would cut (and that the compiler does not second-guess:
 * the folders here are short). */
/* The text report's environment section for t. */
static void describe(FILE *m, const struct sbio_target *t)
{
    static struct sbio_environment e;
    sbio_environment_read(&e, t);
    sbio_environment_print(m, &e);
}

static void fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t len, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(buf, len, f, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < len);
}

/* Where the fake devices sit, relative to the fake sysfs root. */
#define VDA   "devices/pci0000:00/0000:00:05.0/virtio2/block/vda"
#define SDA   "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda"
#define SDB   "devices/pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0/block/sdb"
#define DM0   "devices/virtual/block/dm-0"
#define DM1   "devices/virtual/block/dm-1"
#define LOOP0 "devices/virtual/block/loop0"

/* ---- the fake kernel ---------------------------------------------------------------------- */

static struct {
    bool on;
    char sys[PATH_MAX];        /* real path of the fake sysfs root */
    char state_path[PATH_MAX]; /* when set: must exist at every write (counted when not) */
    unsigned writes_without_state;
    unsigned nlog;
    char log[64][160]; /* "DEV KNOB=VALUE" of each accepted write, in order */
    unsigned nshadow;
    struct {
        char path[PATH_MAX];
        char value[64];
    } shadow[256]; /* last value of each file: what a refused write leaves in place */
    /* A kernel whose write of moves[0] sets moves[1] to moves[2] (none when moves[0] is ""):
     * what the read-back after all writes must catch. */
    const char *moves[3];
} fk;

static const char *const fk_scheds[] = {"none", "mq-deadline", "kyber", "bfq"};

static void shadow_set(const char *path, const char *value)
{
    unsigned i;
    for (i = 0; i < fk.nshadow; i++)
        if (!strcmp(fk.shadow[i].path, path))
            break;
    if (i == fk.nshadow) {
        if (fk.nshadow == sizeof(fk.shadow) / sizeof(fk.shadow[0]))
            return;
        fk.nshadow++;
    }
    snprintf(fk.shadow[i].path, sizeof(fk.shadow[i].path), "%s", path);
    snprintf(fk.shadow[i].value, sizeof(fk.shadow[i].value), "%s", value);
}

static const char *shadow_get(const char *path)
{
    for (unsigned i = 0; i < fk.nshadow; i++)
        if (!strcmp(fk.shadow[i].path, path))
            return fk.shadow[i].value;
    return "";
}

static void mkdir_p(const char *path)
{
    char p[PATH_MAX];
    fmt(p, sizeof(p), "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

/* Write "value\n" as sysfs shows it, creating folders (stdio: not through write() below). */
static void put_abs(const char *path, const char *value)
{
    char dir[PATH_MAX];
    fmt(dir, sizeof(dir), "%s", path);
    *strrchr(dir, '/') = 0;
    mkdir_p(dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", value);
    assert_int_equal(fclose(f), 0);
    shadow_set(path, value);
}

static void read_trim(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        fmt(buf, len, "<missing>");
        return;
    }
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = 0;
}

static void sched_line(const char *cur, char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t i = 0; i < sizeof(fk_scheds) / sizeof(fk_scheds[0]); i++) {
        bool c = !strcmp(fk_scheds[i], cur);
        fmt(buf + strlen(buf), len - strlen(buf), "%s%s%s%s", i ? " " : "", c ? "[" : "",
            fk_scheds[i], c ? "]" : "");
    }
}

/* queue/iosched/ holds the tunables of the scheduler in effect, at their defaults. */
static void fk_iosched(const char *devdir, const char *sched)
{
    static const struct {
        const char *sched, *knob, *value;
    } tun[] = {
        {"mq-deadline", "fifo_batch", "16"},
        {"mq-deadline", "read_expire", "500"},
        {"kyber", "read_lat_nsec", "2000000"},
        {"kyber", "write_lat_nsec", "10000000"},
        {"bfq", "slice_idle", "8"},
        {"bfq", "low_latency", "1"},
    };
    char path[PATH_MAX];
    fmt(path, sizeof(path), "%s/queue/iosched", devdir);
    tmpdir_remove(path);
    for (size_t i = 0; i < sizeof(tun) / sizeof(tun[0]); i++)
        if (!strcmp(tun[i].sched, sched)) {
            fmt(path, sizeof(path), "%s/queue/iosched/%s", devdir, tun[i].knob);
            put_abs(path, tun[i].value);
        }
}

/* A switch resets nr_requests (none: the queue depth; a scheduler: twice that, capped). */
static void fk_switch(const char *devdir, const char *sched)
{
    char path[PATH_MAX];
    fmt(path, sizeof(path), "%s/fake_sched", devdir);
    put_abs(path, sched);
    fmt(path, sizeof(path), "%s/queue/nr_requests", devdir);
    put_abs(path, strcmp(sched, "none") ? "256" : "128");
    fk_iosched(devdir, sched);
}

/* One write to queue/KNOB as the kernel answers it. The file was opened with O_TRUNC, so the
 * value in place is rewritten whatever happens. */
static ssize_t fk_write(const char *path, const void *buf, size_t n)
{
    char value[128], devdir[PATH_MAX], prev[64], line[128], p[PATH_MAX];
    fmt(value, sizeof(value), "%.*s", (int)(n < 127 ? n : 127), (const char *)buf);
    value[strcspn(value, "\n")] = 0;
    const char *q = strstr(path, "/queue/");
    if (!q) {
        put_abs(path, value);
        return (ssize_t)n;
    }
    fmt(devdir, sizeof(devdir), "%.*s", (int)(q - path), path);
    const char *knob = q + 7, *dev = strrchr(devdir, '/') + 1;
    if (fk.state_path[0] && access(fk.state_path, F_OK))
        fk.writes_without_state++;
    if (!strcmp(knob, "scheduler")) {
        fmt(p, sizeof(p), "%s/fake_sched", devdir);
        read_trim(p, prev, sizeof(prev));
        const char *want = strcmp(value, "deadline") ? value : "mq-deadline";
        bool known = false;
        for (size_t i = 0; i < sizeof(fk_scheds) / sizeof(fk_scheds[0]); i++)
            known |= !strcmp(fk_scheds[i], want);
        if (!known) {
            sched_line(prev, line, sizeof(line));
            put_abs(path, line);
            errno = EINVAL;
            return -1;
        }
        if (strcmp(want, prev)) /* the same scheduler again changes nothing */
            fk_switch(devdir, want);
        sched_line(want, line, sizeof(line));
        put_abs(path, line);
    } else if (!value[0] || strspn(value, "0123456789") != strlen(value)) {
        put_abs(path, shadow_get(path));
        errno = EINVAL;
        return -1;
    } else if (!strcmp(knob, "max_sectors_kb")) {
        char hw[64];
        fmt(p, sizeof(p), "%s/queue/max_hw_sectors_kb", devdir);
        read_trim(p, hw, sizeof(hw));
        const char *in = strtoull(value, NULL, 10) > strtoull(hw, NULL, 10) ? hw : value;
        put_abs(path, in);
        /* As 6.x kernels do: read_ahead_kb is raised to twice max_sectors_kb. */
        char ra[64];
        fmt(p, sizeof(p), "%s/queue/read_ahead_kb", devdir);
        read_trim(p, ra, sizeof(ra));
        if (strtoull(ra, NULL, 10) < 2 * strtoull(in, NULL, 10)) {
            fmt(ra, sizeof(ra), "%llu", 2 * strtoull(in, NULL, 10));
            put_abs(p, ra);
        }
    } else {
        put_abs(path, value);
    }
    if (fk.moves[0] && !strcmp(knob, fk.moves[0])) {
        fmt(p, sizeof(p), "%s/queue/%s", devdir, fk.moves[1]);
        put_abs(p, fk.moves[2]);
    }
    if (fk.nlog < sizeof(fk.log) / sizeof(fk.log[0]))
        fmt(fk.log[fk.nlog++], sizeof(fk.log[0]), "%s %s=%s", dev, knob, value);
    return (ssize_t)n;
}

/* sysblock.o's write() resolves here; everything not under the fake sysfs passes through. */
ssize_t write(int fd, const void *buf, size_t n)
{
    if (fk.on && fk.sys[0]) {
        char link[64], path[PATH_MAX];
        fmt(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t l = readlink(link, path, sizeof(path) - 1);
        size_t rl = strlen(fk.sys);
        if (l > 0) {
            path[l] = 0;
            if (!strncmp(path, fk.sys, rl) && path[rl] == '/')
                return fk_write(path, buf, n);
        }
    }
    return syscall(SYS_write, fd, buf, n);
}

static void log_reset(void)
{
    fk.nlog = 0;
    fk.writes_without_state = 0;
}

/* The accepted writes so far, one "DEV KNOB=VALUE" a line. */
static const char *log_text(void)
{
    static char buf[64 * 161];
    buf[0] = 0;
    for (unsigned i = 0; i < fk.nlog; i++)
        fmt(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s\n", fk.log[i]);
    return buf;
}

/* ---- the fake tree ------------------------------------------------------------------------ */

struct fx {
    char root[128]; /* real path of the temporary folder */
    char state[160];
    char data[160]; /* a real folder (with a space in its name) for mountinfo */
};

static void put(struct fx *f, const char *rel, const char *value)
{
    char path[PATH_MAX];
    fmt(path, sizeof(path), "%s/%s", f->root, rel);
    put_abs(path, value);
}

/* Value of a file relative to the fake sysfs root, trailing newline removed. */
static const char *sysv(struct fx *f, const char *rel)
{
    static char buf[4][256];
    static int k;
    char path[PATH_MAX];
    k = (k + 1) % 4;
    fmt(path, sizeof(path), "%s/sys/%s", f->root, rel);
    read_trim(path, buf[k], sizeof(buf[k]));
    return buf[k];
}

static void sysput(struct fx *f, const char *rel, const char *value)
{
    char path[PATH_MAX];
    fmt(path, sizeof(path), "%s/sys/%s", f->root, rel);
    put_abs(path, value);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A symlink at link (relative to the sysfs root) to target (relative to it too), relative as
 * the kernel makes them. */
static void sys_link(struct fx *f, const char *link, const char *target)
{
    char rel[PATH_MAX] = "", path[PATH_MAX], dir[PATH_MAX];
    for (const char *s = link; *s; s++)
        if (*s == '/')
            strcat(rel, "../");
    strcat(rel, target);
    fmt(path, sizeof(path), "%s/sys/%s", f->root, link);
    fmt(dir, sizeof(dir), "%s", path);
    *strrchr(dir, '/') = 0;
    mkdir_p(dir);
    assert_int_equal(symlink(rel, path), 0);
}

static void dev_links(struct fx *f, const char *path, const char *name, unsigned maj, unsigned min,
                      bool disk)
{
    char l[128];
    fmt(l, sizeof(l), "dev/block/%u:%u", maj, min);
    sys_link(f, l, path);
    fmt(l, sizeof(l), "class/block/%s", name);
    sys_link(f, l, path);
    if (disk) {
        fmt(l, sizeof(l), "block/%s", name);
        sys_link(f, l, path);
    }
}

/* A disk with a queue: scheduler mq-deadline (bracketed, as the kernel shows it), its iosched
 * tunables, nr_requests 77 (not what a switch resets it to) and the usual knobs. */
static void mk_disk(struct fx *f, const char *path, unsigned maj, unsigned min, const char *seq)
{
    char rel[PATH_MAX], v[64], devdir[PATH_MAX];
    static const char *const kv[][2] = {
        {"read_ahead_kb", "128"},
        {"nr_requests", "77"},
        {"max_sectors_kb", "1280"},
        {"max_hw_sectors_kb", "2048"},
        {"nomerges", "0"},
        {"rotational", "1"},
        {"wbt_lat_usec", "2000"},
        {"rq_affinity", "1"},
        {"add_random", "0"},
        {"logical_block_size", "512"},
        {"physical_block_size", "4096"},
        {"write_cache", "write back"},
    };
    const char *name = strrchr(path, '/') + 1;
    fmt(v, sizeof(v), "%u:%u", maj, min);
    fmt(rel, sizeof(rel), "%s/dev", path);
    sysput(f, rel, v);
    if (seq) {
        fmt(rel, sizeof(rel), "%s/diskseq", path);
        sysput(f, rel, seq);
    }
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
        fmt(rel, sizeof(rel), "%s/queue/%s", path, kv[i][0]);
        sysput(f, rel, kv[i][1]);
    }
    fmt(rel, sizeof(rel), "%s/queue/scheduler", path);
    sysput(f, rel, "none [mq-deadline] kyber bfq");
    fmt(rel, sizeof(rel), "%s/fake_sched", path);
    sysput(f, rel, "mq-deadline");
    fmt(devdir, sizeof(devdir), "%s/sys/%s", f->root, path);
    fk_iosched(devdir, "mq-deadline");
    fmt(rel, sizeof(rel), "%s/stat", path);
    sysput(f, rel, "1 0 8 0 0 0 0 0 0 0 0");
    dev_links(f, path, name, maj, min, true);
}

static void mk_part(struct fx *f, const char *disk, const char *pname, unsigned maj, unsigned min)
{
    char path[PATH_MAX], rel[PATH_MAX], v[32];
    fmt(path, sizeof(path), "%s/%s", disk, pname);
    fmt(rel, sizeof(rel), "%s/partition", path);
    sysput(f, rel, "1");
    fmt(rel, sizeof(rel), "%s/dev", path);
    fmt(v, sizeof(v), "%u:%u", maj, min);
    sysput(f, rel, v);
    dev_links(f, path, pname, maj, min, false);
}

/* A dm device: bio-based, no scheduler of its own ("none"), its own read_ahead_kb. */
static void mk_dm(struct fx *f, const char *path, unsigned maj, unsigned min, const char *seq,
                  const char *const *slaves, int nslaves)
{
    char rel[PATH_MAX], v[32];
    const char *name = strrchr(path, '/') + 1;
    fmt(v, sizeof(v), "%u:%u", maj, min);
    fmt(rel, sizeof(rel), "%s/dev", path);
    sysput(f, rel, v);
    fmt(rel, sizeof(rel), "%s/diskseq", path);
    sysput(f, rel, seq);
    fmt(rel, sizeof(rel), "%s/queue/scheduler", path);
    sysput(f, rel, "none");
    fmt(rel, sizeof(rel), "%s/queue/read_ahead_kb", path);
    sysput(f, rel, "4096");
    fmt(rel, sizeof(rel), "%s/queue/max_sectors_kb", path);
    sysput(f, rel, "512");
    fmt(rel, sizeof(rel), "%s/slaves", path);
    char d[PATH_MAX];
    fmt(d, sizeof(d), "%s/sys/%s", f->root, rel);
    mkdir_p(d);
    for (int i = 0; i < nslaves; i++) {
        fmt(rel, sizeof(rel), "%s/slaves/%s", path, strrchr(slaves[i], '/') + 1);
        sys_link(f, rel, slaves[i]);
    }
    dev_links(f, path, name, maj, min, true);
}

static void write_mountinfo(struct fx *f, const char *text)
{
    put(f, "proc/self/mountinfo", text);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    char tmpl[64], real[PATH_MAX], v[192];
    if (!f || tmpdir_make(tmpl, sizeof(tmpl), "/tmp", "sysblock") || !realpath(tmpl, real) ||
        strlen(real) >= sizeof(f->root))
        return -1;
    fmt(f->root, sizeof(f->root), "%s", real);
    fmt(v, sizeof(v), "%s/sys", f->root);
    mkdir(v, 0755);
    setenv("SBIO_SYSFS_ROOT", v, 1);
    fmt(fk.sys, sizeof(fk.sys), "%s", v);
    fmt(v, sizeof(v), "%s/proc", f->root);
    setenv("SBIO_PROCFS_ROOT", v, 1);
    /* Not created: sbio_tune_apply makes it. */
    fmt(f->state, sizeof(f->state), "%s/state", f->root);
    setenv("SBIO_STATE_DIR", f->state, 1);
    fmt(f->data, sizeof(f->data), "%s/my data", f->root);
    mkdir(f->data, 0755);
    put(f, "proc/sys/kernel/random/boot_id", BOOT_ID);
    put(f, "proc/sys/vm/dirty_ratio", "20");
    put(f, "proc/sys/vm/dirty_background_ratio", "10");
    put(f, "proc/sys/vm/drop_caches", "");
    write_mountinfo(f, "");
    fk.on = true;
    fk.state_path[0] = 0;
    log_reset();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    cap_abandoned();
    fk.on = false;
    fk.nshadow = 0;
    int rc = tmpdir_remove(f->root);
    free(f);
    return rc;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static int resolve(const char *path, const char *qdev, struct sbio_target *t)
{
    return sbio_sysblock_resolve(path, qdev, t);
}

static int check(const struct sbio_target *t, const char *sched, const char *const *q, int nq,
                 char *err)
{
    struct capture c;
    cap_begin(&c);
    int rc = sbio_tune_check(t, sched, q, nq);
    cap_end(&c, err, MSG_MAX);
    return rc;
}

/* sbio_tune_apply with its printed lines in out and its messages in err. */
static int apply(struct sbio_tune *tu, struct sbio_target *t, const char *sched,
                 const char *const *q, int nq, char *out, char *err)
{
    char *mem = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&mem, &len);
    assert_non_null(m);
    struct capture c;
    cap_begin(&c);
    int rc = sbio_tune_apply(tu, t, sched, q, nq, m);
    cap_end(&c, err, MSG_MAX);
    fclose(m);
    fmt(out, MSG_MAX, "%s", mem);
    free(mem);
    return rc;
}

static int restore(struct sbio_tune *tu, char *err)
{
    struct capture c;
    cap_begin(&c);
    int rc = sbio_tune_restore(tu);
    cap_end(&c, err, MSG_MAX);
    return rc;
}

/* sbio_tune_recover(true): its notes in err, what it restored (stdout) in out. */
static int recover(char *out, char *err)
{
    struct capture c, o;
    cap_begin(&c);
    cap_begin_fd(&o, STDOUT_FILENO);
    int rc = sbio_tune_recover(true);
    cap_end(&o, out, MSG_MAX);
    cap_end(&c, err, MSG_MAX);
    return rc;
}

static void state_file(struct fx *f, const char *dev, char *path, size_t len)
{
    fmt(path, len, "%s/%s.%s", f->state, dev, "state");
}

static void read_file(const char *path, char *buf, size_t len)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t n = fread(buf, 1, len - 1, fp);
    buf[n] = 0;
    fclose(fp);
}

/* Another process's view of the lock: true when someone holds it. */
static bool lock_held(struct fx *f, const char *dev)
{
    char path[PATH_MAX + 32];
    fmt(path, sizeof(path), "%s/%s.lock", f->state, dev);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_EX | LOCK_NB) != 0;
    close(fd);
    return held;
}

/* Every regular file under the fake sysfs with its content, sorted (a folder the fake kernel
 * re-creates may list in another order): "nothing changed" is equality. */
static char snap_lines[512][PATH_MAX / 8];
static unsigned snap_n;

static int snap_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_F && snap_n < sizeof(snap_lines) / sizeof(snap_lines[0])) {
        char v[128];
        read_trim(path, v, sizeof(v));
        fmt(snap_lines[snap_n++], sizeof(snap_lines[0]), "%s=%s\n", path, v);
    }
    return 0;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(a, b);
}

static char *snapshot(struct fx *f)
{
    char *mem = NULL, path[PATH_MAX];
    size_t len = 0;
    snap_n = 0;
    fmt(path, sizeof(path), "%s/sys", f->root);
    assert_int_equal(nftw(path, snap_entry, 16, FTW_PHYS), 0);
    assert_true(snap_n < sizeof(snap_lines) / sizeof(snap_lines[0]));
    qsort(snap_lines, snap_n, sizeof(snap_lines[0]), cmp_line);
    FILE *m = open_memstream(&mem, &len);
    assert_non_null(m);
    for (unsigned i = 0; i < snap_n; i++)
        fputs(snap_lines[i], m);
    fclose(m);
    return mem;
}

/* Some real block device node, for the paths that stat one (none: NULL). */
static const char *real_blockdev(dev_t *rdev)
{
    static char path[300];
    DIR *d = opendir("/dev");
    if (!d)
        return NULL;
    struct dirent *e;
    const char *found = NULL;
    while (!found && (e = readdir(d))) {
        struct stat st;
        fmt(path, sizeof(path), "/dev/%s", e->d_name);
        if (!lstat(path, &st) && S_ISBLK(st.st_mode)) {
            *rdev = st.st_rdev;
            found = path;
        }
    }
    closedir(d);
    return found;
}

/* A plain disk vda (254:0) under a mount of f->data. */
static void vda_target(struct fx *f, struct sbio_target *t)
{
    mk_disk(f, VDA, 254, 0, "3");
    sysput(f, VDA "/device/model", "FakeDisk 2000");
    assert_int_equal(resolve(f->data, "vda", t), 0);
    assert_true(t->has_top);
}

/* ---- scheduler line ----------------------------------------------------------------------- */

/* A scheduler line as the kernel (or a plain file) shows it, parsed into at most max names:
 * how many, the current one's index (-1: none), and the names wanted (NULL: not checked). */
static const struct {
    const char *line;
    int max, n, cur;
    const char *names[4];
} parse_cases[] = {
    {"none [mq-deadline] kyber bfq", SBIO_MAX_SCHED, 4, 1, {"none", "mq-deadline", "kyber", "bfq"}},
    {"[none] mq-deadline\n", SBIO_MAX_SCHED, 2, 0, {"none", "mq-deadline"}},
    /* A plain file holds the one name written to it. */
    {"bfq", SBIO_MAX_SCHED, 1, 0, {"bfq"}},
    {"  \tkyber \n", SBIO_MAX_SCHED, 1, 0, {"kyber"}},
    {"none  mq-deadline\tkyber\n", SBIO_MAX_SCHED, 3, -1, {NULL, NULL, "kyber"}},
    {"mq-deadline kyber [bfq]\n", SBIO_MAX_SCHED, 3, 2, {NULL, NULL, "bfq"}},
    {"", SBIO_MAX_SCHED, 0, -1, {NULL}},
    {" \n", SBIO_MAX_SCHED, 0, -1, {NULL}},
    /* At most max names; the bracketed one past them is not current. */
    {"none kyber [bfq]", 2, 2, -1, {NULL, "kyber"}},
    /* A name too long for the table is cut, not overflowed. */
    {"[abcdefghijklmnopqrstuvwxyz0123456789] x",
     SBIO_MAX_SCHED,
     2,
     0,
     {"abcdefghijklmnopqrstuvwxyz01234", "x"}},
};

static void test_sched_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        char names[SBIO_MAX_SCHED][32];
        int cur = 99;
        int n = sbio_sched_parse(parse_cases[i].line, names, parse_cases[i].max, &cur);
        if (n != parse_cases[i].n || cur != parse_cases[i].cur)
            fail_msg("'%s': %d names, current %d; want %d and %d", parse_cases[i].line, n, cur,
                     parse_cases[i].n, parse_cases[i].cur);
        for (int k = 0; k < 4; k++)
            if (parse_cases[i].names[k] && strcmp(names[k], parse_cases[i].names[k]))
                fail_msg("'%s': name %d is '%s', want '%s'", parse_cases[i].line, k, names[k],
                         parse_cases[i].names[k]);
    }
}

static void test_sched_canonical(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"deadline", "mq-deadline"},
        {"mq-deadline", "mq-deadline"},
        {"bfq", "bfq"},
        {"none", "none"},
        {"deadline2", "deadline2"},
        /* The schedulers that left Linux, by their heirs. */
        {"cfq", "bfq"},
        {"noop", "none"},
        {"anticipatory", "bfq"},
        {"kyber", "kyber"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (strcmp(sbio_sched_canonical(cases[i][0]), cases[i][1]))
            fail_msg("%s is taken as %s, want %s", cases[i][0], sbio_sched_canonical(cases[i][0]),
                     cases[i][1]);
}

/* The lines on stderr of sbio_sched_check_list, into err; its code. */
static int check_list(const struct sbio_target *t, const char *opt, const char *list, char *err)
{
    struct capture c;
    cap_begin(&c);
    int rc = sbio_sched_check_list(t, opt, list);
    cap_end(&c, err, MSG_MAX);
    return rc;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Lists of names: two names of one scheduler are refused, every name the device lacks is
 * named in one line, the option as typed. Each case: on vda or no device, what vda offers
 * from then on (NULL: as it was), the return code and what is said: the whole of it (exact),
 * or one line holding it. */
static const struct {
    bool vda;
    const char *offers;
    const char *opt, *list;
    int rc;
    bool exact;
    const char *says;
} list_cases[] = {
    {false, NULL, "--schedulers", "cfq,deadline,noop,anticipatory", -SBIO_EUSAGE, true,
     "sbio: --schedulers=cfq,deadline,noop,anticipatory: cfq and anticipatory are one "
     "scheduler, bfq: given twice (to run one scheduler twice, an A/A comparison, give the same "
     "name twice)\n"},
    {true, NULL, "--schedulers", "deadline,bfq,mq-deadline", -SBIO_EUSAGE, true,
     "sbio: --schedulers=deadline,bfq,mq-deadline: deadline and mq-deadline are one scheduler, "
     "mq-deadline: given twice (to run one scheduler twice, an A/A comparison, give the same "
     "name twice)\n"},
    /* The same name again: an A/A comparison, not refused. */
    {false, NULL, "--vary scheduler", "bfq,none,bfq", 0, true, ""},
    {false, NULL, "--schedulers", ",", -SBIO_EUSAGE, false, "no scheduler named"},
    /* Every name vda lacks, in one line. */
    {true, NULL, "--schedulers", "foo,none,cfq,bar,kyber", -SBIO_EUSAGE, true,
     "sbio: --schedulers=foo,none,cfq,bar,kyber: foo and bar are not offered by vda, which "
     "offers none, mq-deadline, kyber, bfq\n"},
    {true, NULL, "--scheduler", "foo", -SBIO_EUSAGE, true,
     "sbio: --scheduler=foo: foo is not offered by vda, which offers none, mq-deadline, kyber, "
     "bfq\n"},
    /* The historical names, all accepted where their heirs are offered. */
    {true, NULL, "--schedulers", "cfq,noop,deadline,kyber", 0, true, ""},
    /* Without bfq, cfq and anticipatory are lacking, said with what they are taken as. */
    {true, "none [mq-deadline] kyber", "--schedulers", "cfq,none,x", -SBIO_EUSAGE, true,
     "sbio: --schedulers=cfq,none,x: cfq (taken as bfq) and x are not offered by vda, which "
     "offers none, mq-deadline, kyber\n"},
    {true, NULL, "--schedulers", "a,b,c", -SBIO_EUSAGE, false,
     ": a, b and c are not offered by vda"},
};

static void test_sched_lists(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    char err[MSG_MAX];
    vda_target(f, &t);
    for (size_t i = 0; i < sizeof(list_cases) / sizeof(list_cases[0]); i++) {
        const char *opt = list_cases[i].opt, *list = list_cases[i].list;
        if (list_cases[i].offers)
            sysput(f, VDA "/queue/scheduler", list_cases[i].offers);
        int rc = check_list(list_cases[i].vda ? &t : NULL, opt, list, err);
        if (rc != list_cases[i].rc)
            fail_msg("%s=%s: %d, want %d (%s)", opt, list, rc, list_cases[i].rc, err);
        if (list_cases[i].exact ? strcmp(err, list_cases[i].says)
                                : !strstr(err, list_cases[i].says) || lines(err) != 1)
            fail_msg("%s=%s said '%s', want %s'%s'", opt, list, err,
                     list_cases[i].exact ? "" : "one line with ", list_cases[i].says);
    }
}

/* The note maps each historical name once, with when it left Linux; none for current names.
 * Each case: what is said, whole (exact) or a part of it. */
static void test_sched_note(void **state)
{
    (void)state;
    static const struct {
        const char *opt, *list;
        bool exact;
        const char *says;
    } cases[] = {
        {"--schedulers", "cfq,kyber,noop,anticipatory", true,
         "sbio: note: --schedulers: cfq → bfq, noop → none, anticipatory → bfq (the "
         "single-queue schedulers left Linux in 5.0, anticipatory already in 2.6.33; bfq's "
         "idling is the anticipation's heir)\n"},
        {"--scheduler", "deadline", true,
         "sbio: note: --scheduler: deadline → mq-deadline (the single-queue schedulers left "
         "Linux in 5.0)\n"},
        {"--scheduler", "anticipatory", false,
         "anticipatory → bfq (anticipatory left Linux in 2.6.33; bfq's idling"},
        {"--schedulers", "bfq,none,mq-deadline", true, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[MSG_MAX];
        struct capture c;
        cap_begin(&c);
        sbio_sched_note(cases[i].opt, cases[i].list);
        cap_end(&c, err, MSG_MAX);
        if (cases[i].exact ? strcmp(err, cases[i].says) : !strstr(err, cases[i].says))
            fail_msg("%s=%s noted '%s', want %s'%s'", cases[i].opt, cases[i].list, err,
                     cases[i].exact ? "" : "a note with ", cases[i].says);
    }
}

/* ---- resolve ------------------------------------------------------------------------------ */

static void test_resolve_partition(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    mk_disk(f, SDA, 8, 0, "7");
    mk_part(f, SDA, "sda1", 8, 1);
    const char *forms[] = {"8:1", "8:0", "sda", "sda1"};
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        memset(&t, 0x5a, sizeof(t));
        assert_int_equal(resolve(f->data, forms[i], &t), 0);
        assert_true(t.has_top);
        assert_string_equal(t.top.name, "sda");
        assert_int_equal(t.top.major, 8);
        assert_int_equal(t.top.minor, 0);
        assert_string_equal(t.top.diskseq, "7");
        char want[PATH_MAX + 8];
        fmt(want, sizeof(want), "%s/sys/%s", f->root, SDA);
        assert_string_equal(t.top.dir, want);
        assert_int_equal(t.ndev, 1);
        assert_string_equal(t.dev[0].name, "sda");
        assert_string_equal(t.dev[0].dir, want);
    }
    /* The partition's queue is the disk's. */
    char v[128];
    assert_int_equal(sbio_sysblock_read(&t.top, "scheduler", v, sizeof(v)), 0);
    assert_string_equal(v, "none [mq-deadline] kyber bfq");
    assert_int_equal(sbio_sysblock_read(&t.top, "iosched/fifo_batch", v, sizeof(v)), 0);
    assert_string_equal(v, "16");
    /* What an O_DIRECT request that is not whole physical sectors is noted against. */
    assert_int_equal(sbio_physical_sector(&t), 4096);
    t.has_top = false;
    assert_int_equal(sbio_physical_sector(&t), 0);
    assert_int_equal(sbio_physical_sector(NULL), 0);
}

static bool has_dev(const struct sbio_target *t, const char *name)
{
    for (unsigned i = 0; i < t->ndev; i++)
        if (!strcmp(t->dev[i].name, name))
            return true;
    return false;
}

/* sda (whole disk) and sdb1 (a partition) under dm-0; dm-1 on dm-0. */
static void mk_dm_stack(struct fx *f)
{
    mk_disk(f, SDA, 8, 0, "1");
    mk_disk(f, SDB, 8, 16, "2");
    mk_part(f, SDB, "sdb1", 8, 17);
    const char *s0[] = {SDA, SDB "/sdb1"};
    mk_dm(f, DM0, 253, 0, "9", s0, 2);
    const char *s1[] = {DM0};
    mk_dm(f, DM1, 253, 1, "10", s1, 1);
}

static void test_resolve_dm(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    mk_dm_stack(f);
    const char *forms[] = {"dm-0", "253:0", "dm-1"};
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        assert_int_equal(resolve(f->data, forms[i], &t), 0);
        assert_true(t.has_top);
        assert_string_equal(t.top.name, i == 2 ? "dm-1" : "dm-0");
        assert_int_equal(t.top.major, 253);
        assert_int_equal(t.top.minor, i == 2 ? 1 : 0);
        /* The scheduler sits on the slaves (a partition counts as its disk), recursively. */
        assert_int_equal(t.ndev, 2);
        assert_true(has_dev(&t, "sda"));
        assert_true(has_dev(&t, "sdb"));
        assert_false(has_dev(&t, "dm-0"));
    }

    /* read_ahead_kb is the top device's; the scheduler and nr_requests the slaves'. */
    assert_int_equal(resolve(f->data, "dm-0", &t), 0);
    const char *q[] = {"read_ahead_kb=8192", "nr_requests=64"};
    struct sbio_tune tu;
    char out[MSG_MAX], err[MSG_MAX], sp[PATH_MAX + 16], st[MSG_MAX];
    assert_int_equal(apply(&tu, &t, "kyber", q, 2, out, err), 0);
    assert_string_equal(sysv(f, DM0 "/queue/read_ahead_kb"), "8192");
    assert_string_equal(sysv(f, SDA "/queue/read_ahead_kb"), "128");
    assert_string_equal(sysv(f, SDB "/queue/read_ahead_kb"), "128");
    assert_string_equal(sysv(f, DM0 "/queue/scheduler"), "none");
    assert_string_equal(sysv(f, SDA "/queue/scheduler"), "none mq-deadline [kyber] bfq");
    assert_string_equal(sysv(f, SDB "/queue/scheduler"), "none mq-deadline [kyber] bfq");
    assert_string_equal(sysv(f, SDA "/queue/nr_requests"), "64");
    assert_string_equal(sysv(f, SDB "/queue/nr_requests"), "64");
    assert_int_equal(fk.nlog, 5);
    assert_has(log_text(), "dm-0 read_ahead_kb=8192\n");
    assert_string_equal(fk.log[4], "dm-0 read_ahead_kb=8192");
    assert_true(lock_held(f, "dm-0"));
    assert_true(lock_held(f, "sda"));
    assert_true(lock_held(f, "sdb"));
    state_file(f, "dm-0", sp, sizeof(sp));
    read_file(sp, st, sizeof(st));
    assert_has(st, "dev=dm-0 253:0 9\n");
    assert_has(st, "dev=sda 8:0 1\n");
    assert_has(st, "dev=sdb 8:16 2\n");
    assert_has(st, "item=dm-0 read_ahead_kb 4096 8192\n");
    assert_has(st, "item=sda scheduler mq-deadline kyber\n");
    assert_has(st, "item=sdb nr_requests 77 64\n");

    /* A device under it is locked too: tuning sda directly waits for this run. */
    struct sbio_target t2;
    struct sbio_tune tu2;
    assert_int_equal(resolve(f->data, "sda", &t2), 0);
    const char *q2[] = {"nomerges=2"};
    log_reset();
    assert_int_equal(apply(&tu2, &t2, NULL, q2, 1, out, err), -SBIO_EUSAGE);
    assert_has(err, "another sbio is tuning sda");
    assert_int_equal(fk.nlog, 0);
    assert_string_equal(sysv(f, SDA "/queue/nomerges"), "0");

    assert_int_equal(restore(&tu, err), 0);
    assert_string_equal(sysv(f, DM0 "/queue/read_ahead_kb"), "4096");
    assert_string_equal(sysv(f, SDA "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, SDB "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, SDA "/queue/nr_requests"), "77");
    assert_string_equal(sysv(f, SDB "/queue/nr_requests"), "77");
    assert_false(exists(sp));
    assert_false(lock_held(f, "sda"));
}

static void test_resolve_missing(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    char v[64], err[MSG_MAX];
    mk_disk(f, VDA, 254, 0, NULL); /* no diskseq (older kernels) */
    assert_int_equal(resolve(f->data, "nosuch", &t), -ENODEV);
    assert_int_equal(resolve(f->data, "9:9", &t), -ENODEV);
    assert_int_equal(resolve(f->data, "/dev/null", &t), -ENODEV);
    assert_int_equal(resolve(f->data, "/nonexistent/sbio", &t), -ENODEV);
    char missing[PATH_MAX + 16];
    fmt(missing, sizeof(missing), "%s/nonexistent", f->root);
    assert_int_equal(resolve(missing, NULL, &t), -ENOENT);

    assert_int_equal(resolve(f->data, "vda", &t), 0);
    assert_string_equal(t.top.diskseq, "");
    assert_int_equal(sbio_sysblock_read(&t.top, "nosuch", v, sizeof(v)), -ENOENT);
    assert_int_equal(sbio_sysblock_read(&t.top, "iosched/slice_idle", v, sizeof(v)), -ENOENT);
    assert_int_equal(sbio_sysblock_write(&t.top, "nosuch", "1"), -ENOENT);

    /* A device folder without its dev file is no device. */
    char p[PATH_MAX + 64];
    fmt(p, sizeof(p), "%s/sys/%s/dev", f->root, VDA);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(resolve(f->data, "vda", &t), -ENODEV);
    sysput(f, VDA "/dev", "254:0");

    /* Missing knob files are refused by name, before anything is written. */
    fmt(p, sizeof(p), "%s/sys/%s/queue/nomerges", f->root, VDA);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(resolve(f->data, "vda", &t), 0);
    const char *q[] = {"nomerges=2"};
    assert_int_equal(check(&t, NULL, q, 1, err), -SBIO_EUSAGE);
    assert_has(err, "--queue nomerges=2");
    assert_has(err, "/queue/nomerges does not exist");
    fmt(p, sizeof(p), "%s/sys/%s/queue/scheduler", f->root, VDA);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(check(&t, "bfq", NULL, 0, err), -SBIO_EUSAGE);
    assert_has(err, "--scheduler=bfq: vda has no scheduler file");
    assert_int_equal(fk.nlog, 0);
}

/* The mount of f->data: its numbers map to a fake disk vdz. */
static void test_resolve_mountinfo(void **state)
{
    struct fx *f = *state;
    struct stat st;
    assert_int_equal(stat(f->data, &st), 0);
    unsigned maj = major(st.st_dev), min = minor(st.st_dev);
    char mi[4 * PATH_MAX], esc[PATH_MAX], source[300] = "/dev/vdz";
    /* mountinfo escapes the space in the mount point. */
    fmt(esc, sizeof(esc), "%.*s\\040data", (int)(strlen(f->data) - 5), f->data);
    if (maj == 0) {
        /* An anonymous device: sbio goes through the mount's source, which must be a real
         * block device node; map its numbers to the fake disk. */
        dev_t rdev;
        const char *node = real_blockdev(&rdev);
        if (!node)
            skip();
        fmt(source, sizeof(source), "%s", node);
        mk_disk(f, "devices/virtual/block/vdz", major(rdev), minor(rdev), "5");
    } else {
        mk_disk(f, "devices/virtual/block/vdz", maj, min, "5");
    }
    fmt(mi, sizeof(mi),
        "22 1 %u:%u / / rw,relatime shared:1 - ext4 /dev/root rw\n"
        "30 22 %u:%u / %s rw,noatime shared:2 - ext4 %s rw,discard\n"
        "31 30 %u:%u / %s/inner rw,relatime - ext4 /dev/other rw\n"
        "32 22 %u:%u / %s/sub rw - tmpfs tmpfs rw\n",
        maj, min, maj, min, esc, source, maj, min, esc, maj, min + 1, esc);
    write_mountinfo(f, mi);
    char sub[PATH_MAX + 8];
    fmt(sub, sizeof(sub), "%s/sub", f->data);
    mkdir(sub, 0755);
    struct sbio_target t;
    assert_int_equal(resolve(sub, NULL, &t), 0);
    assert_string_equal(t.fstype, "ext4");
    assert_string_equal(t.source, source);
    assert_string_equal(t.mountpoint, f->data);
    assert_string_equal(t.mount_opts, "rw,noatime");
    assert_true(t.has_top);
    assert_string_equal(t.top.name, "vdz");
    assert_string_equal(t.top.diskseq, "5");
    assert_int_equal(t.ndev, 1);
}

/* tmpfs, NFS, overlay: no queue, which the target says, and tuning is refused. */
static void test_resolve_no_blockdev(void **state)
{
    struct fx *f = *state;
    struct stat st;
    char mi[2 * PATH_MAX], err[MSG_MAX];
    assert_int_equal(stat(f->data, &st), 0);
    struct sbio_target t;

    /* Not in mountinfo: "unknown". */
    assert_int_equal(resolve(f->data, NULL, &t), 0);
    assert_false(t.has_top);
    assert_string_equal(t.fstype, "unknown");

    fmt(mi, sizeof(mi), "40 1 %u:%u / %s rw,nosuid - tmpfs tmpfs rw,size=1024k\n", major(st.st_dev),
        minor(st.st_dev), f->root);
    write_mountinfo(f, mi);
    assert_int_equal(resolve(f->data, NULL, &t), 0);
    assert_false(t.has_top);
    assert_int_equal(t.ndev, 0);
    assert_string_equal(t.fstype, "tmpfs");
    assert_string_equal(t.source, "tmpfs");
    assert_string_equal(t.mountpoint, f->root);
    assert_string_equal(t.mount_opts, "rw,nosuid");

    assert_int_equal(check(&t, NULL, NULL, 0, err), 0);
    assert_int_equal(check(&t, "bfq", NULL, 0, err), -SBIO_EUSAGE);
    assert_has(err, "--scheduler: the set is on tmpfs (tmpfs)");
    assert_has(err, "--queue-device");
    const char *q[] = {"read_ahead_kb=64"};
    assert_int_equal(check(&t, NULL, q, 1, err), -SBIO_EUSAGE);
    assert_has(err, "--queue: the set is on tmpfs");

    char *mem = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&mem, &len);
    describe(m, &t);
    fclose(m);
    assert_has(mem, "File system: tmpfs on tmpfs, mounted at ");
    assert_has(mem, "No block device under the set (tmpfs): no queue settings apply\n");
    assert_lacks(mem, "Device ");
    free(mem);

    /* --queue-device names the device to tune. */
    mk_disk(f, LOOP0, 7, 0, "11");
    assert_int_equal(resolve(f->data, "loop0", &t), 0);
    assert_true(t.has_top);
    assert_string_equal(t.fstype, "tmpfs");
    assert_string_equal(t.top.name, "loop0");
    assert_int_equal(check(&t, "bfq", q, 1, err), 0);
}

/* Major 0 (btrfs): the mount's source names the device. /proc stands in for the anonymous
 * device: only its numbers are used, and the fake mountinfo says what it is. */
static void test_resolve_anon_major0(void **state)
{
    struct fx *f = *state;
    struct stat st;
    dev_t rdev;
    const char *node = real_blockdev(&rdev);
    if (!node || stat("/proc/sys", &st) || major(st.st_dev) != 0)
        skip();
    mk_disk(f, "devices/virtual/block/fakebtr", major(rdev), minor(rdev), "21");
    char mi[1024];
    fmt(mi, sizeof(mi), "22 1 0:%u / /proc rw,relatime - btrfs %s rw,ssd,space_cache=v2\n",
        minor(st.st_dev), node);
    write_mountinfo(f, mi);
    struct sbio_target t;
    assert_int_equal(resolve("/proc/sys", NULL, &t), 0);
    assert_string_equal(t.fstype, "btrfs");
    assert_string_equal(t.source, node);
    assert_true(t.has_top);
    assert_string_equal(t.top.name, "fakebtr");
    assert_int_equal(t.top.major, major(rdev));
    assert_int_equal(t.top.minor, minor(rdev));

    /* A source that is no block device: nothing to tune, not an error. */
    fmt(mi, sizeof(mi), "22 1 0:%u / /proc rw - btrfs /dev/null rw\n", minor(st.st_dev));
    write_mountinfo(f, mi);
    assert_int_equal(resolve("/proc/sys", NULL, &t), 0);
    assert_false(t.has_top);
    assert_string_equal(t.fstype, "btrfs");

    /* The /dev/NAME form of --queue-device. */
    assert_int_equal(resolve(f->data, node, &t), 0);
    assert_true(t.has_top);
    assert_string_equal(t.top.name, "fakebtr");
}

/* A raw device's write refusal: the disk counts as mounted when it or a partition of it is
 * the device of a mount; a device stacked on it (dm) does not (its exclusive claim does). */
static void test_mounted(void **state)
{
    struct fx *f = *state;
    mk_dm_stack(f); /* sda; sdb with sdb1; dm-0 on sda and sdb1 */
    mk_part(f, SDA, "sda1", 8, 1);
    /* Each case: the mountinfo from then on (NULL: as it was; gone: none at all), a device's
     * numbers and whether it counts as mounted. */
    static const char mi_sda1[] = "22 1 0:21 / /proc rw - proc proc rw\n"
                                  "not a mountinfo line\n"
                                  "30 22 8:1 / /mnt/my\\040data rw,relatime - ext4 /dev/sda1 rw\n",
                      mi_sdb1_dm[] = "31 22 8:17 / /a rw - xfs /dev/sdb1 rw\n"
                                     "32 22 253:0 / /b rw - ext4 /dev/mapper/x rw\n";
    static const struct {
        const char *mountinfo;
        bool gone;
        unsigned maj, min;
        bool mounted;
    } cases[] = {
        {NULL, false, 8, 0, false},  {mi_sda1, false, 8, 1, true}, {NULL, false, 8, 0, true},
        {NULL, false, 8, 16, false}, {NULL, false, 8, 17, false},  {mi_sdb1_dm, false, 8, 16, true},
        {NULL, false, 253, 0, true}, {NULL, false, 8, 0, false},   {NULL, false, 8, 1, false},
        {NULL, true, 8, 17, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (cases[i].mountinfo)
            write_mountinfo(f, cases[i].mountinfo);
        if (cases[i].gone) {
            char p[PATH_MAX];
            fmt(p, sizeof(p), "%s/proc/self/mountinfo", f->root);
            assert_int_equal(unlink(p), 0);
        }
        if (sbio_sysblock_mounted(cases[i].maj, cases[i].min) != cases[i].mounted)
            fail_msg("case %zu: %u:%u %s, want %s", i, cases[i].maj, cases[i].min,
                     cases[i].mounted ? "not mounted" : "mounted",
                     cases[i].mounted ? "mounted" : "not");
    }
}

static void test_queue_device_forms(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    mk_disk(f, LOOP0, 7, 0, "11");
    const char *forms[] = {"loop0", "7:0"};
    for (size_t i = 0; i < 2; i++) {
        memset(&t, 0, sizeof(t));
        assert_int_equal(resolve(f->data, forms[i], &t), 0);
        assert_true(t.has_top);
        assert_string_equal(t.top.name, "loop0");
        assert_int_equal(t.top.major, 7);
        assert_int_equal(t.top.minor, 0);
        assert_string_equal(t.top.diskseq, "11");
        assert_int_equal(t.ndev, 1);
        assert_string_equal(t.dev[0].name, "loop0");
    }
    assert_int_equal(resolve(f->data, "7:1", &t), -ENODEV);
    assert_int_equal(resolve(f->data, "loop1", &t), -ENODEV);
}

/* ---- check / apply / restore -------------------------------------------------------------- */

static void test_refusals(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX], sp[PATH_MAX + 16];
    vda_target(f, &t);
    char *before = snapshot(f);
    state_file(f, "vda", sp, sizeof(sp));

    /* --scheduler: its return code and what it says (NULL: not checked). */
    static const struct {
        const char *sched;
        int rc;
        const char *says;
    } scheds[] = {
        /* A scheduler this kernel lacks: the device's list in the message. */
        {"cfq2", -SBIO_EUSAGE,
         "--scheduler=cfq2: cfq2 is not offered by vda, which offers none, mq-deadline, kyber, "
         "bfq"},
        /* One scheduler per run. */
        {"bfq,none", -SBIO_EUSAGE, "--scheduler=bfq,none: one scheduler per run"},
        /* The alias and the historical names are accepted. */
        {"deadline", 0, NULL},
        {"cfq", 0, NULL},
        {"noop", 0, NULL},
        {"anticipatory", 0, NULL},
    };
    for (size_t i = 0; i < sizeof(scheds) / sizeof(scheds[0]); i++) {
        int rc = check(&t, scheds[i].sched, NULL, 0, err);
        if (rc != scheds[i].rc || (scheds[i].says && !strstr(err, scheds[i].says)))
            fail_msg("--scheduler=%s: %d, '%s'; want %d, '%s'", scheds[i].sched, rc, err,
                     scheds[i].rc, scheds[i].says ? scheds[i].says : "");
    }
    assert_int_equal(apply(&tu, &t, "cfq2", NULL, 0, out, err), -SBIO_EUSAGE);
    assert_has(err, "vda, which offers none, mq-deadline, kyber, bfq");
    assert_false(tu.active);

    static const char *const bad[] = {
        "foo=1",          /* no such knob */
        "scheduler=bfq",  /* not through --queue */
        "read_ahead_kb=", /* no value */
        "read_ahead_kb=1 2",
        "iosched/=1",
        "iosched/../scheduler=bfq",
        "iosched/a/b=1",
        "read_ahead_kb", /* no '=' at all */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *q[] = {"read_ahead_kb=256", bad[i]};
        assert_int_equal(check(&t, NULL, q, 2, err), -SBIO_EUSAGE);
        assert_has(err, bad[i]);
        assert_has(err, "accepted: KEY=VALUE with KEY one of read_ahead_kb");
        assert_int_equal(apply(&tu, &t, "bfq", q, 2, out, err), -SBIO_EUSAGE);
        assert_false(tu.active);
    }
    /* An iosched/ tunable the scheduler in effect lacks (without --scheduler). */
    const char *q[] = {"iosched/slice_idle=0"};
    assert_int_equal(check(&t, NULL, q, 1, err), -SBIO_EUSAGE);
    assert_has(err, "/queue/iosched/slice_idle does not exist");

    /* Nothing was written, no state file is left, no lock is held. */
    assert_int_equal(fk.nlog, 0);
    char *after = snapshot(f);
    assert_string_equal(before, after);
    free(before);
    free(after);
    assert_false(exists(sp));
    assert_false(lock_held(f, "vda"));
}

/* --scheduler=cfq: bfq written and in effect, the note said once, mq-deadline restored. */
static void test_historical_apply(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX];
    vda_target(f, &t);
    assert_int_equal(apply(&tu, &t, "cfq", NULL, 0, out, err), 0);
    assert_string_equal(log_text(), "vda scheduler=bfq\n");
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none mq-deadline kyber [bfq]");
    assert_has(out, "vda scheduler: bfq (was mq-deadline)\n");
    assert_string_equal(err, "sbio: note: --scheduler: cfq → bfq (the single-queue schedulers "
                             "left Linux in 5.0)\n");
    assert_int_equal(restore(&tu, err), 0);
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none [mq-deadline] kyber bfq");
}

/* --scheduler, iosched/, nr_requests, max_sectors_kb and the rest: written in that order,
 * every original recorded in the state file before the first write, every one put back by
 * restore. */
static void test_cycle(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX], sp[PATH_MAX + 16], st[MSG_MAX], want[MSG_MAX];
    vda_target(f, &t);
    state_file(f, "vda", sp, sizeof(sp));
    fmt(fk.state_path, sizeof(fk.state_path), "%s", sp);
    const char *q[] = {"read_ahead_kb=2048", "max_sectors_kb=4096", "nr_requests=32",
                       "iosched/slice_idle=0"};

    assert_int_equal(apply(&tu, &t, "bfq", q, 4, out, err), 0);
    assert_string_equal(err, "");
    assert_true(tu.active);
    assert_string_equal(log_text(), "vda scheduler=bfq\n"
                                    "vda iosched/slice_idle=0\n"
                                    "vda nr_requests=32\n"
                                    "vda max_sectors_kb=4096\n"
                                    "vda read_ahead_kb=2048\n");
    assert_int_equal(fk.writes_without_state, 0);

    /* In effect: nr_requests survived the switch because it came after it. */
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none mq-deadline kyber [bfq]");
    assert_string_equal(sysv(f, VDA "/queue/iosched/slice_idle"), "0");
    assert_string_equal(sysv(f, VDA "/queue/nr_requests"), "32");
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "2048");
    assert_string_equal(sysv(f, VDA "/queue/max_sectors_kb"), "2048"); /* capped */

    /* What apply printed: the value in effect, the cap said. */
    assert_has(out, "vda scheduler: bfq (was mq-deadline)\n");
    assert_has(out, "vda nr_requests: 32 (was 77)\n");
    assert_has(out, "vda read_ahead_kb: 2048 (was 128)\n");
    assert_has(out, "vda max_sectors_kb: 2048 (was 1280)");
    assert_has(out, "asked 4096, the kernel capped it");

    /* The originals are the ones before the switch (nr_requests 77, not the 256 the switch
     * left), the set values the ones in effect. */
    read_file(sp, st, sizeof(st));
    fmt(want, sizeof(want),
        "format=1\nboot_id=%s\npid=%d\ndev=vda 254:0 3\n"
        "item=vda scheduler mq-deadline bfq\n"
        "item=vda iosched/slice_idle - 0\n"
        "item=vda nr_requests 77 32\n"
        "item=vda max_sectors_kb 1280 2048\n"
        "item=vda read_ahead_kb 128 2048\n",
        BOOT_ID, (int)getpid());
    assert_string_equal(st, want);
    assert_true(lock_held(f, "vda"));

    log_reset();
    fk.state_path[0] = 0;
    assert_int_equal(restore(&tu, err), 0);
    assert_string_equal(err, "");
    /* The scheduler first (it resets nr_requests), then the rest; slice_idle left with bfq. */
    assert_string_equal(log_text(), "vda scheduler=mq-deadline\n"
                                    "vda max_sectors_kb=1280\n"
                                    "vda read_ahead_kb=128\n"
                                    "vda nr_requests=77\n");
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, VDA "/queue/nr_requests"), "77");
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "128");
    assert_string_equal(sysv(f, VDA "/queue/max_sectors_kb"), "1280");
    assert_string_equal(sysv(f, VDA "/queue/iosched/fifo_batch"), "16");
    assert_false(tu.active);
    assert_false(exists(sp));
    assert_false(lock_held(f, "vda"));

    /* Restoring again, or what was never applied, does nothing. */
    log_reset();
    assert_int_equal(restore(&tu, err), 0);
    assert_int_equal(fk.nlog, 0);
    assert_int_equal(apply(&tu, &t, NULL, NULL, 0, out, err), 0);
    assert_false(tu.active);
    assert_int_equal(restore(&tu, err), 0);
    assert_int_equal(fk.nlog, 0);
    assert_false(exists(f->state) && exists(sp));
}

/* Knobs that move each other: max_sectors_kb is written before read_ahead_kb (writing it
 * raises read_ahead_kb, as 6.x kernels do), so both are in effect as asked, and restored
 * likewise; a knob another write moved is caught by the read-back after all writes: refused,
 * everything put back. */
static void test_knob_order(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX];
    vda_target(f, &t);
    const char *q[] = {"read_ahead_kb=128", "max_sectors_kb=512"};
    put(f, "sys/" VDA "/queue/read_ahead_kb", "4096");
    assert_int_equal(apply(&tu, &t, NULL, q, 2, out, err), 0);
    assert_string_equal(log_text(), "vda max_sectors_kb=512\n"
                                    "vda read_ahead_kb=128\n");
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "128");
    assert_string_equal(sysv(f, VDA "/queue/max_sectors_kb"), "512");
    log_reset();
    assert_int_equal(restore(&tu, err), 0);
    assert_string_equal(err, "");
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "4096");
    assert_string_equal(sysv(f, VDA "/queue/max_sectors_kb"), "1280");

    /* A kernel where writing nomerges moves read_ahead_kb. */
    const char *q2[] = {"read_ahead_kb=256", "nomerges=1"};
    fk.moves[0] = "nomerges", fk.moves[1] = "read_ahead_kb", fk.moves[2] = "8192";
    log_reset();
    assert_int_equal(apply(&tu, &t, NULL, q2, 2, out, err), -SBIO_EUSAGE);
    fk.moves[0] = NULL;
    assert_has(err, "/queue/read_ahead_kb: 8192 once every setting was written (it was 256 "
                    "after its own write): another setting moved it; nothing run");
    assert_false(tu.active);
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "4096");
    assert_string_equal(sysv(f, VDA "/queue/nomerges"), "0");
}

/* Plain files (no fake kernel): the scheduler reads back as the single name written. */
static void test_cycle_plain_files(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX], sp[PATH_MAX + 16];
    vda_target(f, &t);
    fk.on = false;
    state_file(f, "vda", sp, sizeof(sp));
    const char *q[] = {"nomerges=2", "wbt_lat_usec=0", "rotational=0"};
    assert_int_equal(apply(&tu, &t, "deadline", q, 3, out, err), 0);
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "mq-deadline");
    assert_has(out, "vda scheduler: mq-deadline (was mq-deadline)\n");
    assert_string_equal(sysv(f, VDA "/queue/nomerges"), "2");
    assert_string_equal(sysv(f, VDA "/queue/wbt_lat_usec"), "0");
    assert_string_equal(sysv(f, VDA "/queue/rotational"), "0");
    assert_true(exists(sp));
    assert_int_equal(restore(&tu, err), 0);
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "mq-deadline");
    assert_string_equal(sysv(f, VDA "/queue/nomerges"), "0");
    assert_string_equal(sysv(f, VDA "/queue/wbt_lat_usec"), "2000");
    assert_string_equal(sysv(f, VDA "/queue/rotational"), "1");
    assert_false(exists(sp));
}

/* --scheduler alone: the switch resets nr_requests, which restore puts back too. */
static void test_scheduler_resets_nr_requests(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX];
    vda_target(f, &t);
    assert_int_equal(apply(&tu, &t, "kyber", NULL, 0, out, err), 0);
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none mq-deadline [kyber] bfq");
    assert_string_equal(sysv(f, VDA "/queue/nr_requests"), "256");
    assert_int_equal(restore(&tu, err), 0);
    assert_string_equal(err, "");
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, VDA "/queue/nr_requests"), "77");
}

/* --scheduler naming the scheduler already in effect: the kernel changes nothing, so its
 * tunables are the device's own and must be put back. */
static void test_same_scheduler_iosched(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX];
    vda_target(f, &t);
    sysput(f, VDA "/queue/iosched/fifo_batch", "24"); /* tuned by its owner */
    const char *q[] = {"iosched/fifo_batch=32"};
    assert_int_equal(apply(&tu, &t, "deadline", q, 1, out, err), 0);
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, VDA "/queue/iosched/fifo_batch"), "32");
    assert_has(out, "vda iosched/fifo_batch: 32 (was 24)\n");
    assert_int_equal(restore(&tu, err), 0);
    assert_string_equal(err, "");
    assert_string_equal(sysv(f, VDA "/queue/iosched/fifo_batch"), "24");
    assert_string_equal(sysv(f, VDA "/queue/nr_requests"), "77");

    /* A tunable the scheduler in effect lacks is refused before anything is written. */
    log_reset();
    const char *q2[] = {"iosched/slice_idle=0"};
    assert_int_equal(apply(&tu, &t, "mq-deadline", q2, 1, out, err), -SBIO_EUSAGE);
    assert_has(err, "iosched/slice_idle");
    assert_int_equal(fk.nlog, 0);
}

/* The kernel refuses a value after the switch: everything goes back, nr_requests included
 * (the switch had reset it). */
static void test_refused_value(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX], sp[PATH_MAX + 16];
    vda_target(f, &t);
    char *before = snapshot(f);
    state_file(f, "vda", sp, sizeof(sp));
    const char *q[] = {"read_ahead_kb=512", "nr_requests=lots"};
    assert_int_equal(apply(&tu, &t, "bfq", q, 2, out, err), -SBIO_EUSAGE);
    assert_has(err, "/queue/nr_requests: the kernel refused 'lots'");
    assert_string_equal(fk.log[0], "vda scheduler=bfq");
    assert_false(tu.active);
    assert_false(exists(sp));
    assert_false(lock_held(f, "vda"));
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, VDA "/queue/nr_requests"), "77");
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "128");
    char *after = snapshot(f);
    assert_string_equal(before, after);
    free(before);
    free(after);

    /* An iosched/ tunable the new scheduler lacks: named, with the scheduler in effect. */
    const char *q2[] = {"nr_requests=16", "iosched/fifo_batch=8"};
    assert_int_equal(apply(&tu, &t, "kyber", q2, 2, out, err), -SBIO_EUSAGE);
    assert_has(err, "--queue iosched/fifo_batch=8");
    assert_has(err, "does not exist under the scheduler in effect (none mq-deadline [kyber] bfq)");
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, VDA "/queue/nr_requests"), "77");
    assert_string_equal(sysv(f, VDA "/queue/iosched/fifo_batch"), "16");
    assert_false(exists(sp));
}

static void test_changed_by_someone_else(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char err[MSG_MAX], out[MSG_MAX], sp[PATH_MAX + 16];
    vda_target(f, &t);
    state_file(f, "vda", sp, sizeof(sp));
    const char *q[] = {"read_ahead_kb=2048", "nomerges=2", "rq_affinity=2"};
    assert_int_equal(apply(&tu, &t, "kyber", q, 3, out, err), 0);
    sysput(f, VDA "/queue/read_ahead_kb", "512");
    sysput(f, VDA "/queue/scheduler", "none mq-deadline kyber [bfq]");
    log_reset();
    assert_int_equal(restore(&tu, err), 0);
    assert_has(err, "warning: vda read_ahead_kb is 512, not the 2048 sbio set: someone changed "
                    "it since; left alone");
    assert_has(err, "warning: vda scheduler is bfq, not the kyber sbio set");
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "512");
    assert_string_equal(sysv(f, VDA "/queue/scheduler"), "none mq-deadline kyber [bfq]");
    assert_string_equal(sysv(f, VDA "/queue/nomerges"), "0");
    assert_string_equal(sysv(f, VDA "/queue/rq_affinity"), "1");
    assert_lacks(log_text(), "read_ahead_kb");
    assert_lacks(log_text(), "scheduler");
    assert_false(exists(sp));
    assert_false(lock_held(f, "vda"));
}

static void test_lock(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu, tu2;
    char err[MSG_MAX], out[MSG_MAX], sp[PATH_MAX + 16], st[MSG_MAX], st2[MSG_MAX];
    vda_target(f, &t);
    state_file(f, "vda", sp, sizeof(sp));
    const char *q[] = {"read_ahead_kb=2048"};
    assert_int_equal(apply(&tu, &t, NULL, q, 1, out, err), 0);
    read_file(sp, st, sizeof(st));

    log_reset();
    const char *q2[] = {"read_ahead_kb=64", "nomerges=1"};
    assert_int_equal(apply(&tu2, &t, "bfq", q2, 2, out, err), -SBIO_EUSAGE);
    assert_has(err, "another sbio is tuning vda");
    assert_false(tu2.active);
    assert_int_equal(fk.nlog, 0);
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "2048");
    read_file(sp, st2, sizeof(st2));
    assert_string_equal(st, st2); /* the first run's originals are intact */
    assert_int_equal(restore(&tu2, err), 0);
    assert_true(lock_held(f, "vda"));

    assert_int_equal(restore(&tu, err), 0);
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "128");
    assert_false(lock_held(f, "vda"));
    /* Free again. */
    assert_int_equal(apply(&tu2, &t, "bfq", q2, 2, out, err), 0);
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "64");
    assert_int_equal(restore(&tu2, err), 0);
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "128");
    assert_string_equal(sysv(f, VDA "/queue/nomerges"), "0");
}

/* ---- recover ------------------------------------------------------------------------------ */

static void put_state(struct fx *f, const char *dev, const char *text)
{
    char sp[PATH_MAX + 16];
    mkdir(f->state, 0700);
    state_file(f, dev, sp, sizeof(sp));
    put_abs(sp, text);
}

static void test_recover_stale(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    char out[MSG_MAX], err[MSG_MAX], sp[PATH_MAX + 16];
    vda_target(f, &t);
    state_file(f, "vda", sp, sizeof(sp));

    /* No state folder at all. */
    assert_int_equal(recover(out, err), 0);

    /* From another boot: the reboot reset the settings; nothing is written. */
    sysput(f, VDA "/queue/read_ahead_kb", "2048");
    put_state(f, "vda",
              "format=1\nboot_id=11111111-2222-3333-4444-555555555555\npid=1\n"
              "dev=vda 254:0 3\nitem=vda read_ahead_kb 128 2048");
    assert_int_equal(recover(out, err), 0);
    assert_has(err, "earlier boot");
    assert_false(exists(sp));
    assert_int_equal(fk.nlog, 0);
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "2048");

    /* The device was re-attached since (another disk sequence number). */
    put_state(f, "vda",
              "format=1\nboot_id=" BOOT_ID "\npid=1\n"
              "dev=vda 254:0 2\nitem=vda read_ahead_kb 128 2048");
    assert_int_equal(recover(out, err), 0);
    assert_has(err, "device vda is gone or was re-attached since");
    assert_false(exists(sp));
    assert_int_equal(fk.nlog, 0);

    /* The numbers now belong to another device, or to none. */
    put_state(f, "vdb", "boot_id=" BOOT_ID "\ndev=vdb 254:0 3\nitem=vdb read_ahead_kb 128 2048");
    assert_int_equal(recover(out, err), 0);
    assert_has(err, "re-attached");
    put_state(f, "vdc", "boot_id=" BOOT_ID "\ndev=vdc 254:16 -\nitem=vdc read_ahead_kb 128 2048");
    assert_int_equal(recover(out, err), 0);
    assert_has(err, "gone");
    assert_int_equal(fk.nlog, 0);
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "2048");

    /* Damaged: removed, nothing written. */
    put_state(f, "vda", "garbage\n\x01\x02 item=\n");
    assert_int_equal(recover(out, err), 0);
    assert_has(err, "is damaged; removed without restoring");
    assert_false(exists(sp));
    put_state(f, "vda", "");
    assert_int_equal(recover(out, err), 0);
    assert_has(err, "damaged");
    assert_false(exists(sp));
    put_state(f, "vda", "boot_id=" BOOT_ID "\ndev=vda\nitem=vda read_ahead_kb 128 2048\n");
    assert_int_equal(recover(out, err), 0);
    assert_has(err, "damaged");
    assert_false(exists(sp));
    assert_int_equal(fk.nlog, 0);
    assert_string_equal(sysv(f, VDA "/queue/read_ahead_kb"), "2048");
}

/* A killed sbio: its lock is free, its state file restored by the next one. */
static void test_recover_orphan(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char out[MSG_MAX], err[MSG_MAX], sp[PATH_MAX + 16];
    mk_dm_stack(f);
    assert_int_equal(resolve(f->data, "dm-0", &t), 0);
    state_file(f, "dm-0", sp, sizeof(sp));
    const char *q[] = {"read_ahead_kb=8192", "nr_requests=64", "iosched/read_lat_nsec=1000"};
    assert_int_equal(apply(&tu, &t, "kyber", q, 3, out, err), 0);
    assert_string_equal(sysv(f, SDA "/queue/iosched/read_lat_nsec"), "1000");

    /* While the owner lives, its state is left alone. */
    log_reset();
    assert_int_equal(recover(out, err), 0);
    assert_true(exists(sp));
    assert_int_equal(fk.nlog, 0);

    /* The owner dies: its locks go with it. */
    for (unsigned i = 0; i < tu.nlocks; i++)
        close(tu.lock_fd[i]);
    assert_false(lock_held(f, "dm-0"));
    /* Someone changed one setting since: left alone. */
    sysput(f, SDB "/queue/nr_requests", "100");

    /* Restored: 2 schedulers, sda's nr_requests, dm-0's read_ahead_kb; not the iosched/
     * tunables (they left with kyber), not sdb's nr_requests. */
    assert_int_equal(recover(out, err), 4);
    assert_has(err, "an earlier sbio (killed or crashed) left settings on dm-0");
    assert_has(err, "warning: sdb nr_requests is 100, not the 64 sbio set");
    assert_has(out, "restored sda scheduler: mq-deadline\n");
    assert_has(out, "restored sdb scheduler: mq-deadline\n");
    assert_has(out, "restored sda nr_requests: 77\n");
    assert_has(out, "restored dm-0 read_ahead_kb: 4096\n");
    assert_string_equal(sysv(f, DM0 "/queue/read_ahead_kb"), "4096");
    assert_string_equal(sysv(f, SDA "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, SDB "/queue/scheduler"), "none [mq-deadline] kyber bfq");
    assert_string_equal(sysv(f, SDA "/queue/nr_requests"), "77");
    assert_string_equal(sysv(f, SDA "/queue/iosched/fifo_batch"), "16");
    assert_false(exists(sp));

    log_reset();
    assert_int_equal(recover(out, err), 0);
    assert_int_equal(fk.nlog, 0);
}

/* A crash between a knob's write and the state update that records the value in effect:
 * the state says "?asked" (pending), the kernel holds a capped value. Recovery restores the
 * original, because the knob moved from it. */
static void test_recover_pending(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_tune tu;
    char out[MSG_MAX], err[MSG_MAX], sp[PATH_MAX + 16];
    mk_dm_stack(f);
    assert_int_equal(resolve(f->data, "dm-0", &t), 0);
    state_file(f, "dm-0", sp, sizeof(sp));
    const char *q[] = {"read_ahead_kb=8192"};
    assert_int_equal(apply(&tu, &t, NULL, q, 1, out, err), 0);
    for (unsigned i = 0; i < tu.nlocks; i++)
        close(tu.lock_fd[i]);
    /* Rewrite the state as the crash left it, and the knob as a capping kernel would. */
    FILE *fp = fopen(sp, "r");
    assert_non_null(fp);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[n] = 0;
    char *it = strstr(buf, "item=dm-0 read_ahead_kb 4096 8192\n");
    assert_non_null(it);
    char fixed[4200];
    snprintf(fixed, sizeof(fixed), "%.*sitem=dm-0 read_ahead_kb 4096 ?8192\n%s", (int)(it - buf),
             buf, it + strlen("item=dm-0 read_ahead_kb 4096 8192\n"));
    fp = fopen(sp, "w");
    assert_non_null(fp);
    fputs(fixed, fp);
    fclose(fp);
    sysput(f, DM0 "/queue/read_ahead_kb", "6000");
    assert_int_equal(recover(out, err), 1);
    assert_has(out, "restored dm-0 read_ahead_kb: 4096\n");
    assert_string_equal(sysv(f, DM0 "/queue/read_ahead_kb"), "4096");
    assert_false(exists(sp));
}

/* ---- counters, caches, report ------------------------------------------------------------- */

static void test_diskstat(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct sbio_diskstat s;
    vda_target(f, &t);

    sysput(f, VDA "/stat",
           "     100        2      800       30       50        1      400       20 "
           "       3       40       55");
    assert_int_equal(sbio_diskstat_read(&t.top, &s), 0);
    const uint64_t w11[17] = {100, 2, 800, 30, 50, 1, 400, 20, 3, 40, 55};
    for (int i = 0; i < 17; i++)
        assert_int_equal(s.f[i], w11[i]);

    sysput(f, VDA "/stat", "18446744073709551615 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16");
    assert_int_equal(sbio_diskstat_read(&t.top, &s), 0);
    assert_true(s.f[0] == UINT64_MAX);
    for (int i = 1; i < 17; i++)
        assert_int_equal(s.f[i], (uint64_t)i);

    char p[PATH_MAX + 64];
    fmt(p, sizeof(p), "%s/sys/%s/stat", f->root, VDA);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(sbio_diskstat_read(&t.top, &s), -ENOENT);
    assert_int_equal(s.f[0], 0);
}

static void test_drop_caches(void **state)
{
    struct fx *f = *state;
    char p[PATH_MAX + 64], v[16], err[MSG_MAX];
    fmt(p, sizeof(p), "%s/proc/sys/vm/drop_caches", f->root);
    assert_int_equal(sbio_drop_caches(), 0);
    read_trim(p, v, sizeof(v));
    assert_string_equal(v, "3");

    assert_int_equal(unlink(p), 0);
    struct capture c;
    cap_begin(&c);
    int rc = sbio_drop_caches();
    cap_end(&c, err, sizeof(err));
    assert_int_equal(rc, -ENOENT);
    assert_has(err, "drop_caches: write: No such file or directory");
}

static void test_describe(void **state)
{
    struct fx *f = *state;
    struct sbio_target t;
    struct stat st;
    char mi[PATH_MAX * 2];
    mk_dm_stack(f);
    sysput(f, SDA "/device/model", "FakeDisk 2000");
    assert_int_equal(stat(f->data, &st), 0);
    fmt(mi, sizeof(mi), "30 1 %u:%u / %s rw,noatime - xfs /dev/mapper/vg-lv rw,attr2\n",
        major(st.st_dev), minor(st.st_dev), f->root);
    write_mountinfo(f, mi);
    assert_int_equal(resolve(f->data, "dm-0", &t), 0);

    char *mem = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&mem, &len);
    describe(m, &t);
    fclose(m);
    char want[PATH_MAX * 2];
    fmt(want, sizeof(want), "File system: xfs on /dev/mapper/vg-lv, mounted at %s (rw,noatime)\n",
        f->root);
    assert_has(mem, want);
    assert_has(mem, "Device dm-0 (253:0)\n  scheduler: none\n  read_ahead_kb=4096 "
                    "max_sectors_kb=512\n");
    assert_has(mem, "Device sda (8:0), model FakeDisk 2000, sectors 512/4096 (logical/physical), "
                    "write cache: write back\n");
    assert_has(mem, "Device sdb (8:16), sectors 512/4096");
    assert_has(mem, "  scheduler: none [mq-deadline] kyber bfq\n");
    /* The slaves' readahead is not what drives the file system's: not shown. */
    assert_has(mem, "\n  max_sectors_kb=1280 max_hw_sectors_kb=2048 nr_requests=77 nomerges=0 "
                    "rotational=1 wbt_lat_usec=2000 rq_affinity=1\n");
    assert_lacks(mem, "read_ahead_kb=128");
    assert_has(mem, "  iosched:");
    assert_has(mem, " fifo_batch=16");
    assert_has(mem, " read_expire=500");
    assert_has(mem, "vm.dirty_ratio=20 vm.dirty_background_ratio=10\n");
    free(mem);

    /* A plain disk shows its own readahead; the scheduler after a switch is in the report. */
    assert_int_equal(resolve(f->data, "sdb", &t), 0);
    sysput(f, SDB "/queue/scheduler", "none mq-deadline kyber [bfq]");
    m = open_memstream(&mem, &len);
    describe(m, &t);
    fclose(m);
    assert_has(mem, "  scheduler: none mq-deadline kyber [bfq]\n");
    assert_has(mem, "  read_ahead_kb=128 max_sectors_kb=1280");
    free(mem);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_sched_parse),
        T(test_sched_canonical),
        T(test_sched_lists),
        T(test_sched_note),
        T(test_historical_apply),
        T(test_resolve_partition),
        T(test_resolve_dm),
        T(test_resolve_missing),
        T(test_resolve_mountinfo),
        T(test_resolve_no_blockdev),
        T(test_resolve_anon_major0),
        T(test_mounted),
        T(test_queue_device_forms),
        T(test_refusals),
        T(test_cycle),
        T(test_knob_order),
        T(test_cycle_plain_files),
        T(test_scheduler_resets_nr_requests),
        T(test_same_scheduler_iosched),
        T(test_refused_value),
        T(test_changed_by_someone_else),
        T(test_lock),
        T(test_recover_stale),
        T(test_recover_orphan),
        T(test_recover_pending),
        T(test_diskstat),
        T(test_drop_caches),
        T(test_describe),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
