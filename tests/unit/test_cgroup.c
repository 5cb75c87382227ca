/* Unit tests for control groups (src/cgroup.c) on fake cgroup trees (SBIO_CGROUP_ROOT),
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_v2_find, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v2_make_and_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v2_enabled_left_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recover_after_kill, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mountinfo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cgroup_of, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v2_memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1_memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memstat, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
