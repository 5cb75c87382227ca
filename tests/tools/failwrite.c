/* failwrite.so: a test tool preloaded into one sbio process (LD_PRELOAD). From the Nth
 * pwrite() on a file whose path contains a given string, every such pwrite() fails: a disk
 * that dies in the middle of a run, at a point the test chooses.
 *
 *   FAILWRITE_MATCH  substring of the file's resolved path (/proc/self/fd/N: no symlinks,
 *                    so pass a realpath) that is counted
 *   FAILWRITE_AFTER  the first failing call, counted from 1 (both required)
 *   FAILWRITE_ERRNO  the errno it fails with (default 5, EIO)
 *   FAILWRITE_LOSE   set: the Nth such call alone is lost instead (it reports every byte
 *                    written and writes none), as a device that drops a write does
 *
 * Why not libfiu's fiu-run, which faults.sh uses: its preload wraps malloc and the string
 * functions and resolves the real ones lazily, with dlsym, on first use. Under mpirun, Open
 * MPI's progress thread and MPI_Init's dlopen of its components then deadlock: one thread
 * holds libfiu's failure-point cache lock and waits for the dynamic loader's lock in dlsym,
 * the other holds the loader's lock (in dlopen) and waits for the cache lock in malloc. The
 * rank never leaves MPI_Init (seen in mpi.sh under load, 1 run in 37). This tool wraps
 * pwrite only and resolves it before main() runs, so it takes no lock at all. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static const char *match;
static long after;
static int fail_errno = EIO;
static atomic_long calls;
static bool lose;

__attribute__((constructor)) static void failwrite_init(void)
{
    real_pwrite = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    const char *a = getenv("FAILWRITE_AFTER"), *e = getenv("FAILWRITE_ERRNO");
    match = getenv("FAILWRITE_MATCH");
    lose = getenv("FAILWRITE_LOSE") != NULL;
    after = a ? strtol(a, NULL, 10) : 0;
    if (e)
        fail_errno = (int)strtol(e, NULL, 10);
    if (!real_pwrite || !match || !*match || after < 1 || fail_errno < 1) {
        fprintf(stderr, "failwrite.so: needs FAILWRITE_MATCH and FAILWRITE_AFTER >= 1 "
                        "(FAILWRITE_ERRNO >= 1)\n");
        _exit(2);
    }
}

static bool counted(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n < 0)
        return false;
    path[n] = 0;
    return strstr(path, match) != NULL;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    if (counted(fd)) {
        long n = atomic_fetch_add(&calls, 1) + 1;
        if (lose && n == after)
            return (ssize_t)len;
        if (!lose && n >= after) {
            errno = fail_errno;
            return -1;
        }
    }
    return real_pwrite(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
    return pwrite(fd, buf, len, off);
}
