/* Unit tests for control groups (src/sys/cgroup.c) on fake cgroup trees (SBIO_CGROUP_ROOT),
 * a fake procfs (SBIO_PROCFS_ROOT: self/cgroup, self/mountinfo, boot_id) and a state folder
 * (SBIO_STATE_DIR), all under a temporary folder per test: the machine's own groups are
 * never touched. Every file the module writes is read back, and everything it makes is gone
 * after sbio_cgroups_remove or, for a process that died, sbio_cgroup_recover. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "helpers.h"
#include "sysblock.h"
#include "util.h"

struct fake {
    char dir[512];        /* the test's folder */
    char cg[PATH_MAX];    /* fake cgroup root */
    char proc[PATH_MAX];  /* fake procfs */
    char state[PATH_MAX]; /* state folder */
};

static void pathf(char *buf, size_t len, const char *f, const char *a, const char *b)
{
    int n = snprintf(buf, len, f, a, b);
    assert_true(n > 0 && (size_t)n < len);
}

static void mkdir_p(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
    assert_true(!mkdir(tmp, 0755) || errno == EEXIST);
}

static void put(const char *dir, const char *file, const char *text)
{
    char p[PATH_MAX * 2];
    pathf(p, sizeof(p), "%s/%s", dir, file);
    write_file(p, text);
}

static void get(const char *dir, const char *file, char *buf, size_t len)
{
    assert_int_equal(sbio_cgroup_read(dir, file, buf, len), 0);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* A fake procfs whose process is in the groups self_cgroup lists. */
static int setup(void **state)
{
    static struct fake f;
    memset(&f, 0, sizeof(f));
    if (tmpdir_make(f.dir, sizeof(f.dir), "/tmp", "cgroup"))
        return -1;
    snprintf(f.cg, sizeof(f.cg), "%s/cg", f.dir);
    snprintf(f.proc, sizeof(f.proc), "%s/proc", f.dir);
    snprintf(f.state, sizeof(f.state), "%s/state", f.dir);
    mkdir(f.cg, 0755);
    mkdir(f.proc, 0755);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof(p), "%s/self", f.proc);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/sys/kernel/random", f.proc);
    mkdir_p(p);
    put(p, "boot_id", "0b5e5a1d-7e57-4b10-8c0d-5b10c0ffee01\n");
    setenv("SBIO_CGROUP_ROOT", f.cg, 1);
    setenv("SBIO_PROCFS_ROOT", f.proc, 1);
    setenv("SBIO_STATE_DIR", f.state, 1);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fake *f = *state;
    unsetenv("SBIO_CGROUP_ROOT");
    unsetenv("SBIO_PROCFS_ROOT");
    unsetenv("SBIO_STATE_DIR");
    return tmpdir_remove(f->dir);
}

static void self_cgroup(const struct fake *f, const char *text)
{
    char p[PATH_MAX * 2];
    pathf(p, sizeof(p), "%s/%s", f->proc, "self");
    put(p, "cgroup", text);
}

/* A v2 root offering io and memory, with memory already enabled below it. */
static void v2_root(const struct fake *f)
{
    put(f->cg, "cgroup.controllers", "cpuset cpu io memory pids\n");
    put(f->cg, "cgroup.subtree_control", "memory\n");
    put(f->cg, "cgroup.procs", "");
    self_cgroup(f, "0::/\n");
}

static void test_v2_find(void **state)
{
    struct fake *f = *state;
    v2_root(f);
    struct sbio_cgroup_hier h;
    assert_int_equal(sbio_cgroup_find("io", &h), 0);
    assert_int_equal(h.version, SBIO_CGROUP_V2);
    assert_string_equal(h.mount, f->cg);
    assert_string_equal(h.own, f->cg);
    assert_int_equal(sbio_cgroup_find("rdma", &h), -ENOENT);
    assert_int_equal(h.version, SBIO_CGROUP_NONE);
}

/* Make a job's group: io enabled at the root (recorded, as sbio changed a folder it did not
 * make) and in sbio's own folder; the state file lists both before they exist. */
static void test_v2_make_and_remove(void **state)
{
    struct fake *f = *state;
    v2_root(f);
    struct sbio_cgroup_hier h;
    assert_int_equal(sbio_cgroup_find("io", &h), 0);
    struct sbio_cgroups cg;
    sbio_cgroups_init(&cg);
    char dir[PATH_MAX], buf[4096], top[PATH_MAX * 2];
    assert_int_equal(sbio_cgroups_make(&cg, &h, "io", "reader", dir, sizeof(dir)), 0);
    snprintf(top, sizeof(top), "%s/sbio.%d", f->cg, (int)getpid());
    char want[PATH_MAX * 2];
    pathf(want, sizeof(want), "%s/%s", top, "reader");
    assert_string_equal(dir, want);
    assert_true(is_dir(dir));
    get(f->cg, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "+io");
    get(top, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "+io");
    /* The state file names everything made and changed. */
    char sp[PATH_MAX * 2];
    snprintf(sp, sizeof(sp), "sbio.%d.cgroups", (int)getpid());
    get(f->state, sp, buf, sizeof(buf));
    assert_has(buf, "enabled=");
    assert_has(buf, " +io");
    assert_has(buf, dir);
    /* The same name again is the same folder; a process moves in by cgroup.procs. */
    assert_int_equal(sbio_cgroups_make(&cg, &h, "io", "reader", dir, sizeof(dir)), 0);
    assert_int_equal(cg.ndirs, 2);
    assert_int_equal(sbio_cgroup_write(dir, "io.bfq.weight", "800"), 0);
    assert_int_equal(sbio_cgroup_enter_process(dir, 4242), 0);
    get(dir, "cgroup.procs", buf, sizeof(buf));
    assert_string_equal(buf, "4242");
    /* Remove: the task goes back home, the folders go, io is disabled again, no state. */
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
    assert_false(is_dir(dir));
    assert_false(is_dir(top));
    get(f->cg, "cgroup.procs", buf, sizeof(buf));
    assert_string_equal(buf, "4242");
    get(f->cg, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "-io");
    pathf(want, sizeof(want), "%s/%s", f->state, sp);
    assert_int_equal(access(want, F_OK), -1);
    assert_int_equal(sbio_cgroups_remove(&cg), 0); /* again: nothing to do */
}

/* A controller the root enables already is not recorded, and not disabled afterwards. */
static void test_v2_enabled_left_alone(void **state)
{
    struct fake *f = *state;
    v2_root(f);
    struct sbio_cgroup_hier h;
    assert_int_equal(sbio_cgroup_find("memory", &h), 0);
    struct sbio_cgroups cg;
    sbio_cgroups_init(&cg);
    char dir[PATH_MAX], buf[256];
    assert_int_equal(sbio_cgroups_make(&cg, &h, "memory", NULL, dir, sizeof(dir)), 0);
    assert_int_equal(cg.nenabled, 0);
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
    get(f->cg, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "memory");
}

/* v1: a folder per controller, the process's own group from self/cgroup, threads by tid. */
static void test_v1_threads(void **state)
{
    struct fake *f = *state;
    char blk[PATH_MAX * 2], mem[PATH_MAX * 2], buf[256];
    pathf(blk, sizeof(blk), "%s/%s", f->cg, "blkio");
    pathf(mem, sizeof(mem), "%s/%s", f->cg, "memory/api/x");
    mkdir_p(blk);
    mkdir_p(mem);
    self_cgroup(f, "9:name=systemd:/\n7:blkio:/\n4:memory:/api/x\n2:cpu,cpuacct:/\n0::/\n");
    struct sbio_cgroup_hier h, m;
    assert_int_equal(sbio_cgroup_find("io", &h), 0);
    assert_int_equal(h.version, SBIO_CGROUP_V1);
    assert_string_equal(h.own, blk);
    assert_int_equal(sbio_cgroup_find("memory", &m), 0);
    assert_string_equal(m.own, mem);
    struct sbio_cgroups cg;
    sbio_cgroups_init(&cg);
    char a[PATH_MAX], b[PATH_MAX], top[PATH_MAX];
    assert_int_equal(sbio_cgroups_make(&cg, &h, "io", "a", a, sizeof(a)), 0);
    assert_int_equal(sbio_cgroups_make(&cg, &h, "io", "b", b, sizeof(b)), 0);
    assert_int_equal(sbio_cgroups_make(&cg, &m, "memory", NULL, top, sizeof(top)), 0);
    assert_int_equal(cg.ndirs, 4);
    assert_int_equal(cg.nenabled, 0);
    /* A phase's groups go, what was made before it stays. */
    char c[PATH_MAX];
    unsigned mark = cg.ndirs;
    assert_int_equal(sbio_cgroups_make(&cg, &h, "io", "c", c, sizeof(c)), 0);
    assert_int_equal(sbio_cgroups_remove_to(&cg, mark), 0);
    assert_false(is_dir(c));
    assert_true(is_dir(a));
    assert_non_null(strstr(top, "/memory/api/x/sbio."));
    assert_int_equal(sbio_cgroup_enter_thread(a, 101), 0);
    assert_int_equal(sbio_cgroup_enter_thread(a, 102), 0);
    get(a, "tasks", buf, sizeof(buf));
    assert_string_equal(buf, "101\n102");
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
    assert_false(is_dir(a));
    assert_false(is_dir(b));
    assert_false(is_dir(top));
    get(blk, "tasks", buf, sizeof(buf));
    assert_string_equal(buf, "101\n102");
}

/* A process that dies holding groups: the next command's recover removes them. */
static void test_recover_after_kill(void **state)
{
    struct fake *f = *state;
    v2_root(f);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct sbio_cgroup_hier h;
        struct sbio_cgroups cg;
        char dir[PATH_MAX];
        sbio_cgroups_init(&cg);
        int ok = !sbio_cgroup_find("io", &h) &&
                 !sbio_cgroups_make(&cg, &h, "io", "j1", dir, sizeof(dir)) &&
                 !sbio_cgroups_make(&cg, &h, "io", "j2", dir, sizeof(dir));
        ssize_t w = write(fds[1], ok ? "y" : "n", 1);
        _exit(w == 1 && ok ? 0 : 1); /* dies without removing anything */
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(fds[0]);
    close(fds[1]);
    char top[PATH_MAX * 2], buf[256];
    snprintf(top, sizeof(top), "%s/sbio.%d", f->cg, (int)pid);
    assert_true(is_dir(top));
    struct capture c;
    cap_begin(&c);
    int n = sbio_cgroup_recover(false);
    cap_end(&c, buf, sizeof(buf));
    assert_int_equal(n, 3);
    assert_has(buf, "left control groups");
    assert_false(is_dir(top));
    get(f->cg, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "-io");
    assert_int_equal(sbio_cgroup_recover(false), 0);
}

/* A process killed while it rewrote its state file leaves the next version beside it
 * (sbio.PID.cgroups.tmp), or, on its first write, only that and its lock: the next command
 * removes those too, and leaves a live process's alone. */
static void test_recover_tmp_left(void **state)
{
    struct fake *f = *state;
    v2_root(f);
    char boot[64], text[PATH_MAX * 5], dir[PATH_MAX * 2], p[PATH_MAX * 3];
    assert_int_equal(sbio_boot_id(boot, sizeof(boot)), 0);
    mkdir_p(f->state);
    /* Process 999999 died with a group and a half-written next state. */
    pathf(dir, sizeof(dir), "%s/%s", f->cg, "sbio.999999");
    mkdir_p(dir);
    snprintf(text, sizeof(text), "format=1\nboot_id=%s\npid=999999\ndir=%s\t%s\n", boot, dir,
             f->cg);
    put(f->state, "sbio.999999.cgroups", text);
    put(f->state, "sbio.999999.cgroups.tmp", "format=1\n");
    put(f->state, "sbio.999999.cglock", "");
    /* Process 999998 died during its first write: no state file yet. */
    put(f->state, "sbio.999998.cgroups.tmp", "format=1\n");
    put(f->state, "sbio.999998.cglock", "");
    /* This process is alive and writing. */
    struct sbio_cgroup_hier h;
    struct sbio_cgroups cg;
    sbio_cgroups_init(&cg);
    char mine[PATH_MAX], tmp[PATH_MAX + 32];
    assert_int_equal(sbio_cgroup_find("io", &h), 0);
    assert_int_equal(sbio_cgroups_make(&cg, &h, "io", "j", mine, sizeof(mine)), 0);
    snprintf(tmp, sizeof(tmp), "sbio.%d.cgroups.tmp", (int)getpid());
    put(f->state, tmp, "format=1\n");
    struct capture c;
    char buf[512];
    cap_begin(&c);
    int n = sbio_cgroup_recover(false);
    cap_end(&c, buf, sizeof(buf));
    assert_int_equal(n, 1);
    assert_false(is_dir(dir));
    static const char *const gone[] = {"sbio.999999.cgroups", "sbio.999999.cgroups.tmp",
                                       "sbio.999999.cglock", "sbio.999998.cgroups.tmp",
                                       "sbio.999998.cglock"};
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
        pathf(p, sizeof(p), "%s/%s", f->state, gone[i]);
        if (!access(p, F_OK))
            fail_msg("%s is left", gone[i]);
    }
    pathf(p, sizeof(p), "%s/%s", f->state, tmp);
    assert_int_equal(access(p, F_OK), 0); /* a live process's */
    assert_true(is_dir(mine));
    unlink(p);
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
}

/* Without a fake root the mounts are read from mountinfo: a v2 mount without io and a v1
 * blkio mount give v1; the v2 mount is taken once it offers io. */
static void test_mountinfo(void **state)
{
    struct fake *f = *state;
    unsetenv("SBIO_CGROUP_ROOT");
    char v2[PATH_MAX * 2], v1[PATH_MAX * 2], mi[PATH_MAX * 8], self[PATH_MAX * 2];
    pathf(v2, sizeof(v2), "%s/%s", f->cg, "unified");
    pathf(v1, sizeof(v1), "%s/%s", f->cg, "blkio");
    mkdir_p(v2);
    mkdir_p(v1);
    put(v2, "cgroup.controllers", "");
    snprintf(mi, sizeof(mi),
             "30 25 0:26 / %s rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
             "31 25 0:27 / %s rw,nosuid shared:10 - cgroup cgroup rw,blkio\n"
             "32 25 0:28 / /x rw shared:11 - cgroup cgroup rw,cpu,cpuacct\n",
             v2, v1);
    pathf(self, sizeof(self), "%s/%s", f->proc, "self");
    put(self, "mountinfo", mi);
    self_cgroup(f, "7:blkio:/\n0::/\n");
    struct sbio_cgroup_hier h;
    assert_int_equal(sbio_cgroup_find("io", &h), 0);
    assert_int_equal(h.version, SBIO_CGROUP_V1);
    assert_string_equal(h.mount, v1);
    assert_int_equal(sbio_cgroup_find("memory", &h), -ENOENT);
    put(v2, "cgroup.controllers", "io memory");
    assert_int_equal(sbio_cgroup_find("io", &h), 0);
    assert_int_equal(h.version, SBIO_CGROUP_V2);
    assert_string_equal(h.mount, v2);
}

/* A thread's group as procfs tells it, on either hierarchy. */
static void test_cgroup_of(void **state)
{
    struct fake *f = *state;
    char task[PATH_MAX * 2], buf[256];
    pathf(task, sizeof(task), "%s/%s", f->proc, "77/task/78");
    mkdir_p(task);
    put(task, "cgroup", "7:blkio:/sbio.77/reader\n4:memory:/api/x/sbio.77\n0::/sbio.77/w\n");
    struct sbio_cgroup_hier h = {.version = SBIO_CGROUP_V1};
    snprintf(h.mount, sizeof(h.mount), "/sys/fs/cgroup/blkio");
    assert_int_equal(sbio_cgroup_of(&h, 77, 78, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "/sbio.77/reader");
    snprintf(h.mount, sizeof(h.mount), "/sys/fs/cgroup/memory");
    assert_int_equal(sbio_cgroup_of(&h, 77, 78, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "/api/x/sbio.77");
    h.version = SBIO_CGROUP_V2;
    assert_int_equal(sbio_cgroup_of(&h, 77, 78, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "/sbio.77/w");
    assert_int_equal(sbio_cgroup_of(&h, 77, 79, buf, sizeof(buf)), -ENOENT);
}

/* --memory-limit on v2: memory enabled at the root (recorded: sbio changed a folder it did not
 * make) and in sbio.PID, memory.max on sbio.PID, the process in sbio.PID/main; all of it
 * undone by remove. */
static void test_v2_memory_limit(void **state)
{
    struct fake *f = *state;
    put(f->cg, "cgroup.controllers", "cpu io memory pids\n");
    put(f->cg, "cgroup.subtree_control", "cpu\n");
    put(f->cg, "cgroup.procs", "");
    self_cgroup(f, "0::/\n");
    assert_int_equal(sbio_cgroup_memory_check(), 0);
    struct sbio_cgroups cg;
    struct sbio_memgroup mg;
    sbio_cgroups_init(&cg);
    assert_int_equal(sbio_cgroup_memory_limit(&cg, 256ULL << 20, &mg), 0);
    char top[PATH_MAX * 2], main_dir[PATH_MAX * 3], buf[256], pid[32];
    snprintf(top, sizeof(top), "%s/sbio.%d", f->cg, (int)getpid());
    pathf(main_dir, sizeof(main_dir), "%s/%s", top, "main");
    assert_int_equal(mg.version, SBIO_CGROUP_V2);
    assert_string_equal(mg.dir, top);
    assert_string_equal(mg.leaf, main_dir);
    assert_int_equal(mg.limit, 256ULL << 20);
    assert_string_equal(mg.file, "memory.max");
    get(top, "memory.max", buf, sizeof(buf));
    assert_string_equal(buf, "268435456");
    get(f->cg, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "+memory");
    get(top, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "+memory");
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    get(main_dir, "cgroup.procs", buf, sizeof(buf));
    assert_string_equal(buf, pid);
    /* memory.high is the kernel's: not written. */
    pathf(buf, sizeof(buf), "%s/%s", top, "memory.high");
    assert_int_equal(access(buf, F_OK), -1);
    assert_int_equal(cg.nenabled, 1);
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
    assert_false(is_dir(top));
    get(f->cg, "cgroup.procs", buf, sizeof(buf));
    assert_string_equal(buf, pid);
    get(f->cg, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "-memory");
}

/* --memory-limit on v1: sbio.PID under the process's own memory group, memory.limit_in_bytes
 * on it, the process in it; the swap limit left alone. */
static void test_v1_memory_limit(void **state)
{
    struct fake *f = *state;
    char own[PATH_MAX * 2], buf[256], pid[32];
    pathf(own, sizeof(own), "%s/%s", f->cg, "memory/process_api/x");
    mkdir_p(own);
    self_cgroup(f, "7:blkio:/\n4:memory:/process_api/x\n0::/\n");
    struct sbio_cgroups cg;
    struct sbio_memgroup mg;
    sbio_cgroups_init(&cg);
    assert_int_equal(sbio_cgroup_memory_limit(&cg, 16ULL << 20, &mg), 0);
    assert_int_equal(mg.version, SBIO_CGROUP_V1);
    char top[PATH_MAX * 3];
    snprintf(top, sizeof(top), "%s/sbio.%d", own, (int)getpid());
    assert_string_equal(mg.dir, top);
    assert_string_equal(mg.leaf, top);
    assert_string_equal(mg.file, "memory.limit_in_bytes");
    get(top, "memory.limit_in_bytes", buf, sizeof(buf));
    assert_string_equal(buf, "16777216");
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    get(top, "cgroup.procs", buf, sizeof(buf));
    assert_string_equal(buf, pid);
    pathf(buf, sizeof(buf), "%s/%s", top, "memory.memsw.limit_in_bytes");
    assert_int_equal(access(buf, F_OK), -1);
    assert_int_equal(cg.nenabled, 0);
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
    assert_false(is_dir(top));
    get(own, "cgroup.procs", buf, sizeof(buf));
    assert_string_equal(buf, pid);
}

/* Without a memory controller the check says which one is missing, and nothing is made. */
static void test_memory_missing(void **state)
{
    struct fake *f = *state;
    put(f->cg, "cgroup.controllers", "cpu io pids\n");
    self_cgroup(f, "0::/\n");
    struct capture c;
    char buf[512];
    cap_begin(&c);
    int rc = sbio_cgroup_memory_check();
    cap_end(&c, buf, sizeof(buf));
    assert_int_equal(rc, -SBIO_EUSAGE);
    assert_has(buf, "no memory controller");
    assert_int_equal(access(f->state, F_OK), -1);
}

/* memory.stat's page-cache figures: v2's names, v1's totals before its own figures. */
static void test_memstat(void **state)
{
    struct fake *f = *state;
    struct sbio_memstat ms;
    put(f->cg, "memory.stat",
        "anon 4096\nfile 1048576\nkernel 0\nfile_mapped 0\nfile_dirty 8192\n"
        "file_writeback 4096\nshmem 0\n");
    assert_int_equal(sbio_cgroup_memstat(f->cg, &ms), 0);
    assert_int_equal(ms.file, 1048576);
    assert_int_equal(ms.dirty, 8192);
    assert_int_equal(ms.writeback, 4096);
    put(f->cg, "memory.stat",
        "cache 100\nrss 5\ndirty 7\nwriteback 1\ntotal_cache 200\ntotal_rss 5\n"
        "total_dirty 14\ntotal_writeback 2\n");
    assert_int_equal(sbio_cgroup_memstat(f->cg, &ms), 0);
    assert_int_equal(ms.file, 200);
    assert_int_equal(ms.dirty, 14);
    assert_int_equal(ms.writeback, 2);
    put(f->cg, "memory.stat", "cache 100\nrss 5\ndirty 7\nwriteback 1\n");
    assert_int_equal(sbio_cgroup_memstat(f->cg, &ms), 0);
    assert_int_equal(ms.file, 100);
    assert_int_equal(ms.dirty, 7);
    put(f->cg, "memory.stat", "anon 4096\nfile 1\n");
    assert_int_equal(sbio_cgroup_memstat(f->cg, &ms), -EBADMSG);
}

/* A set on one device, vdz (254:7), as sbio_sysblock_resolve would give it. */
static void one_dev(struct sbio_target *t)
{
    memset(t, 0, sizeof(*t));
    t->has_top = true;
    snprintf(t->fstype, sizeof(t->fstype), "ext4");
    snprintf(t->top.name, sizeof(t->top.name), "vdz");
    t->top.major = 254;
    t->top.minor = 7;
    t->ndev = 1;
    t->dev[0] = t->top;
}

/* v2: a job's group gets every setting in its file, in the kernel's format, and describes
 * what it read back; its folder is the job's name made safe. */
static void test_v2_job_group(void **state)
{
    struct fake *f = *state;
    v2_root(f);
    struct sbio_target t;
    one_dev(&t);
    struct sbio_cgroup_spec g = {.set = true,
                                 .weight = 5000,
                                 .bfq_weight = 300,
                                 .rbps = 20 * SBIO_MIB,
                                 .wbps = 1 * SBIO_MIB,
                                 .riops = 900,
                                 .wiops = 100,
                                 .latency_us = 5000};
    assert_int_equal(sbio_cgroup_spec_check(&g, "in grp/x", &t), 0);
    struct sbio_cgroups cg;
    sbio_cgroups_init(&cg);
    struct sbio_cgroup_job j;
    char desc[PATH_MAX + 256], buf[256], want[PATH_MAX * 2];
    assert_int_equal(sbio_cgroup_job_make(&cg, &g, "in grp/x", &t, &j, desc, sizeof(desc)), 0);
    snprintf(want, sizeof(want), "%s/sbio.%d/in_grp_x", f->cg, (int)getpid());
    assert_string_equal(j.dir, want);
    assert_int_equal(j.version, SBIO_CGROUP_V2);
    assert_int_equal(j.ndev, 1);
    get(j.dir, "io.weight", buf, sizeof(buf));
    assert_string_equal(buf, "default 5000");
    get(j.dir, "io.bfq.weight", buf, sizeof(buf));
    assert_string_equal(buf, "default 300");
    get(j.dir, "io.max", buf, sizeof(buf));
    assert_string_equal(buf, "254:7 rbps=20971520 wbps=1048576 riops=900 wiops=100");
    get(j.dir, "io.latency", buf, sizeof(buf));
    assert_string_equal(buf, "254:7 target=5000");
    snprintf(want, sizeof(want),
             "%s (cgroup v2 io): weight 5000, bfq_weight 300, rbps 20 MiB/s, wbps 1 MiB/s, "
             "riops 900/s, wiops 100/s, latency 5.00 ms on 254:7",
             j.dir);
    assert_string_equal(desc, want);
    /* Only what the job sets is written. */
    struct sbio_cgroup_spec one = {.set = true, .bfq_weight = 800};
    assert_int_equal(sbio_cgroup_job_make(&cg, &one, "other", &t, &j, desc, sizeof(desc)), 0);
    assert_int_equal(sbio_cgroup_read(j.dir, "io.max", buf, sizeof(buf)), -ENOENT);
    assert_int_equal(sbio_cgroup_read(j.dir, "io.weight", buf, sizeof(buf)), -ENOENT);
    assert_non_null(strstr(desc, "(cgroup v2 io): bfq_weight 800"));
    /* A group of nothing set (group = {}): no setting written, the kernel's defaults said. */
    struct sbio_cgroup_spec none = {.set = true};
    assert_int_equal(sbio_cgroup_job_make(&cg, &none, "plain", &t, &j, desc, sizeof(desc)), 0);
    assert_int_equal(sbio_cgroup_read(j.dir, "io.bfq.weight", buf, sizeof(buf)), -ENOENT);
    snprintf(want, sizeof(want), "%s (cgroup v2 io): the kernel's defaults", j.dir);
    assert_string_equal(desc, want);
    /* Another job whose name makes the same folder name gets one of its own. */
    struct sbio_cgroup_job k;
    assert_int_equal(sbio_cgroup_job_make(&cg, &one, "in_grp_x", &t, &k, desc, sizeof(desc)), 0);
    snprintf(want, sizeof(want), "%s/sbio.%d/in_grp_x-2", f->cg, (int)getpid());
    assert_string_equal(k.dir, want);
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
    assert_false(is_dir(j.dir));
}

/* v2, --memory-limit and a job's group together: sbio sits in sbio.PID/main (as the kernel
 * then shows in self/cgroup), so sbio.PID itself never holds a process and +io can be enabled
 * in it beside +memory; the job's folder goes beside main, its process back to main when the
 * phase ends, and everything back to the root at the end. */
static void test_v2_memory_then_job_group(void **state)
{
    struct fake *f = *state;
    put(f->cg, "cgroup.controllers", "io memory\n");
    put(f->cg, "cgroup.subtree_control", "\n");
    put(f->cg, "cgroup.procs", "");
    self_cgroup(f, "0::/\n");
    struct sbio_cgroups cg;
    struct sbio_memgroup mg;
    sbio_cgroups_init(&cg);
    assert_int_equal(sbio_cgroup_memory_limit(&cg, 64ULL << 20, &mg), 0);
    char top[PATH_MAX * 2], main_dir[PATH_MAX * 3], rel[128], buf[4096], want[PATH_MAX * 8];
    snprintf(top, sizeof(top), "%s/sbio.%d", f->cg, (int)getpid());
    pathf(main_dir, sizeof(main_dir), "%s/%s", top, "main");
    snprintf(rel, sizeof(rel), "0::/sbio.%d/main\n", (int)getpid());
    self_cgroup(f, rel);
    struct sbio_target t;
    one_dev(&t);
    struct sbio_cgroup_spec g = {.set = true, .weight = 800};
    struct sbio_cgroup_job j;
    char desc[PATH_MAX + 256];
    unsigned mark = cg.ndirs;
    assert_int_equal(sbio_cgroup_job_make(&cg, &g, "reader", &t, &j, desc, sizeof(desc)), 0);
    pathf(want, sizeof(want), "%s/%s", top, "reader");
    assert_string_equal(j.dir, want);
    /* No process was ever written into sbio.PID itself; +io followed +memory there. */
    assert_int_equal(sbio_cgroup_read(top, "cgroup.procs", buf, sizeof(buf)), -ENOENT);
    get(top, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "+io");
    get(main_dir, "cgroup.procs", buf, sizeof(buf));
    snprintf(want, sizeof(want), "%d", (int)getpid());
    assert_string_equal(buf, want);
    /* The state file sends the job's tasks back to main, main's to the root. */
    snprintf(want, sizeof(want), "sbio.%d.cgroups", (int)getpid());
    get(f->state, want, buf, sizeof(buf));
    snprintf(want, sizeof(want), "dir=%s\t%s", j.dir, main_dir); /* the last line */
    assert_has(buf, want);
    snprintf(want, sizeof(want), "dir=%s\t%s\n", main_dir, f->cg);
    assert_has(buf, want);
    /* The phase ends: the job's process (4242) goes back to main, main stays. */
    assert_int_equal(sbio_cgroup_enter_process(j.dir, 4242), 0);
    assert_int_equal(sbio_cgroups_remove_to(&cg, mark), 0);
    assert_false(is_dir(j.dir));
    assert_true(is_dir(main_dir));
    get(main_dir, "cgroup.procs", buf, sizeof(buf));
    snprintf(want, sizeof(want), "%d\n4242", (int)getpid());
    assert_string_equal(buf, want);
    /* The end: both back at the root, the folders gone, io then memory disabled. */
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
    assert_false(is_dir(top));
    get(f->cg, "cgroup.procs", buf, sizeof(buf));
    snprintf(want, sizeof(want), "%d\n4242", (int)getpid());
    assert_string_equal(buf, want);
    get(f->cg, "cgroup.subtree_control", buf, sizeof(buf));
    assert_string_equal(buf, "-memory");
}

/* v1: the blkio files, a limit per device line; the device named by max alone. */
static void test_v1_job_group(void **state)
{
    struct fake *f = *state;
    char blk[PATH_MAX * 2], buf[256];
    pathf(blk, sizeof(blk), "%s/%s", f->cg, "blkio");
    mkdir_p(blk);
    put(blk, "blkio.bfq.io_service_bytes", "Total 0\n");
    self_cgroup(f, "7:blkio:/\n0::/\n");
    struct sbio_target t;
    one_dev(&t);
    t.ndev = 2;
    snprintf(t.dev[1].name, sizeof(t.dev[1].name), "sdq");
    t.dev[1].major = 8;
    t.dev[1].minor = 16;
    struct sbio_cgroup_spec g = {.set = true, .bfq_weight = 100, .rbps = 20 * SBIO_MIB};
    assert_int_equal(sbio_cgroup_spec_check(&g, "r", &t), 0);
    struct sbio_cgroups cg;
    sbio_cgroups_init(&cg);
    struct sbio_cgroup_job j;
    char desc[PATH_MAX + 256], want[PATH_MAX * 2];
    assert_int_equal(sbio_cgroup_job_make(&cg, &g, "r", &t, &j, desc, sizeof(desc)), 0);
    assert_int_equal(j.version, SBIO_CGROUP_V1);
    get(j.dir, "blkio.bfq.weight", buf, sizeof(buf));
    assert_string_equal(buf, "100");
    get(j.dir, "blkio.throttle.read_bps_device", buf, sizeof(buf));
    assert_string_equal(buf, "8:16 20971520"); /* a fake file keeps the last line written */
    snprintf(want, sizeof(want),
             "%s (cgroup v1 blkio): bfq_weight 100, rbps 20 MiB/s on 254:7, 8:16", j.dir);
    assert_string_equal(desc, want);
    snprintf(g.max_dev, sizeof(g.max_dev), "/dev/sdq");
    assert_int_equal(sbio_cgroup_job_make(&cg, &g, "s", &t, &j, desc, sizeof(desc)), 0);
    assert_non_null(strstr(desc, "rbps 20 MiB/s on 8:16"));
    assert_int_equal(sbio_cgroups_remove(&cg), 0);
}

/* Each refusal before anything is made. */
static void test_job_group_checks(void **state)
{
    struct fake *f = *state;
    struct sbio_target t;
    one_dev(&t);
    v2_root(f);
    struct sbio_cgroup_spec g = {.set = true, .weight = 10000};
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), 0);
    g.weight = 10001;
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), -SBIO_EUSAGE);
    g = (struct sbio_cgroup_spec){.set = true, .bfq_weight = 1001};
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), -SBIO_EUSAGE);
    g = (struct sbio_cgroup_spec){.set = true, .rbps = 1, .max_dev = "sda"};
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), -SBIO_EUSAGE);
    snprintf(g.max_dev, sizeof(g.max_dev), "254:7");
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), 0);
    snprintf(g.max_dev, sizeof(g.max_dev), "/dev/vdz");
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), 0);
    struct sbio_target none = {.fstype = "tmpfs"};
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &none), -SBIO_EUSAGE);
    put(f->cg, "cgroup.controllers", "cpu memory\n");
    g = (struct sbio_cgroup_spec){.set = true, .bfq_weight = 100};
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), -SBIO_EUSAGE);
    /* v1: no blkio.weight (CFQ is gone), bfq not loaded, no io.latency. */
    char p[PATH_MAX * 2], blk[PATH_MAX * 2];
    pathf(p, sizeof(p), "%s/%s", f->cg, "cgroup.controllers");
    unlink(p);
    pathf(blk, sizeof(blk), "%s/%s", f->cg, "blkio");
    mkdir_p(blk);
    self_cgroup(f, "7:blkio:/\n0::/\n");
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), -SBIO_EUSAGE);
    put(blk, "blkio.bfq.io_service_bytes", "Total 0\n");
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), 0);
    g = (struct sbio_cgroup_spec){.set = true, .weight = 500};
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), -SBIO_EUSAGE);
    put(blk, "blkio.weight", "500\n");
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), 0);
    g.weight = 1001;
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), -SBIO_EUSAGE);
    g = (struct sbio_cgroup_spec){.set = true, .latency_us = 5000};
    assert_int_equal(sbio_cgroup_spec_check(&g, "j", &t), -SBIO_EUSAGE);
    assert_int_equal(access(f->state, F_OK), -1); /* nothing was made: not even the state */
}

/* The kernel's counters: summed over the group's devices, other devices' lines left out;
 * v1 from the throttle files where they count, else bfq's; none yet is zeros. */
static void test_group_counters(void **state)
{
    struct fake *f = *state;
    struct sbio_cgroup_job j = {.version = SBIO_CGROUP_V1, .ndev = 2};
    j.major[0] = 254, j.minor[0] = 7, j.major[1] = 8, j.minor[1] = 16;
    snprintf(j.dir, sizeof(j.dir), "%s", f->cg);
    struct sbio_cgroup_io io;
    put(f->cg, "blkio.throttle.io_service_bytes", "Total 0\n");
    put(f->cg, "blkio.throttle.io_serviced", "Total 0\n");
    assert_int_equal(sbio_cgroup_io_read(&j, &io), 0);
    assert_string_equal(io.source, "");
    assert_true(io.rbytes == 0 && io.rios == 0);
    put(f->cg, "blkio.bfq.io_service_bytes",
        "254:7 Read 4096\n254:7 Write 512\n254:7 Total 4608\n7:0 Read 99\nTotal 4707\n");
    put(f->cg, "blkio.bfq.io_serviced", "254:7 Read 1\n254:7 Write 1\n7:0 Read 1\n");
    assert_int_equal(sbio_cgroup_io_read(&j, &io), 0);
    assert_string_equal(io.source, "blkio.bfq.io_service_bytes, io_serviced");
    assert_true(io.rbytes == 4096 && io.wbytes == 512 && io.rios == 1 && io.wios == 1);
    put(f->cg, "blkio.throttle.io_service_bytes",
        "254:7 Read 8192\n8:16 Read 8192\n8:16 Write 4096\n7:0 Read 5\nTotal 20485\n");
    put(f->cg, "blkio.throttle.io_serviced", "254:7 Read 2\n8:16 Read 2\n8:16 Write 1\n");
    assert_int_equal(sbio_cgroup_io_read(&j, &io), 0);
    assert_string_equal(io.source, "blkio.throttle.io_service_bytes, io_serviced");
    assert_true(io.rbytes == 16384 && io.wbytes == 4096 && io.rios == 4 && io.wios == 1);
    j.version = SBIO_CGROUP_V2;
    put(f->cg, "io.stat",
        "254:7 rbytes=100 wbytes=200 rios=3 wios=4 dbytes=0 dios=0\n"
        "7:0 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=0 dios=0\n");
    assert_int_equal(sbio_cgroup_io_read(&j, &io), 0);
    assert_string_equal(io.source, "io.stat");
    assert_true(io.rbytes == 100 && io.wbytes == 200 && io.rios == 3 && io.wios == 4);
}

/* A refusal's message says why where strerror does not: EBUSY on v2 is the rule that a
 * controller is enabled only below a group without processes. */
static void test_hint(void **state)
{
    (void)state;
    assert_has(sbio_cgroup_hint(-EBUSY, SBIO_CGROUP_V2), "without processes of its own");
    assert_string_equal(sbio_cgroup_hint(-EBUSY, SBIO_CGROUP_V1), "");
    assert_string_equal(sbio_cgroup_hint(-ENOENT, SBIO_CGROUP_V2), "");
    assert_has(sbio_cgroup_hint(-EACCES, SBIO_CGROUP_V1), "not writable");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hint),
        cmocka_unit_test_setup_teardown(test_v2_find, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v2_make_and_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v2_enabled_left_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recover_after_kill, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recover_tmp_left, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mountinfo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cgroup_of, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v2_memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memstat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v2_job_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v2_memory_then_job_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_job_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_group_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_counters, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
