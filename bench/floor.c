/* The system-call floor: random block-sized preads of one file (meant to be in the page
 * cache), the clock read once per call as sbio does, N threads with their own descriptor.
 * Prints "ops/s" over all threads. Usage: floor FILE SECONDS [BLOCK] [THREADS]
 * With --stat, the floor of a tree's stat: fstatat(AT_SYMLINK_NOFOLLOW) of files drawn
 * uniformly among those under TREE (their paths listed once, beforehand), one thread.
 * Usage: floor --stat TREE SECONDS */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct job {
    const char *path;
    uint64_t block, blocks, deadline_ns, ops, seed;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *loop(void *arg)
{
    struct job *j = arg;
    int fd = open(j->path, O_RDONLY);
    char *buf = aligned_alloc(4096, j->block);
    if (fd < 0 || !buf) {
        perror(j->path);
        exit(1);
    }
    uint64_t x = j->seed, t = now_ns(), ops = 0, sum = 0;
    while (t < j->deadline_ns) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        uint64_t blk =
            (uint64_t)(((unsigned __int128)(x * 0x2545F4914F6CDD1DULL) * j->blocks) >> 64);
        if (pread(fd, buf, j->block, (off_t)(blk * j->block)) != (ssize_t)j->block) {
            perror("pread");
            exit(1);
        }
        uint64_t t2 = now_ns();
        sum += t2 - t; /* what a latency histogram would be fed */
        t = t2;
        ops++;
    }
    j->ops = ops + (sum == 0);
    close(fd);
    free(buf);
    return NULL;
}

struct paths {
    char **p;
    size_t n, cap;
};

/* Every regular file under dirfd's folder rel, relative to the tree's root, into ps. */
static void list_files(int rootfd, const char *rel, struct paths *ps)
{
    int fd = openat(rootfd, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        perror(rel);
        exit(1);
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        /* Relative to the root as sbio's paths are: "d0/d3/f12", not "./d0/d3/f12". */
        char *path = malloc(strlen(rel) + strlen(e->d_name) + 2);
        sprintf(path, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        if (e->d_type == DT_DIR) {
            list_files(rootfd, path, ps);
            free(path);
            continue;
        }
        if (ps->n == ps->cap) {
            ps->cap = ps->cap ? ps->cap * 2 : 1024;
            ps->p = realloc(ps->p, ps->cap * sizeof(char *));
        }
        ps->p[ps->n++] = path;
    }
    closedir(d);
}

/* fstatat of uniformly drawn files of the tree, one thread, the clock read per call. */
static int stat_floor(const char *tree, double secs)
{
    int rootfd = open(tree, O_RDONLY | O_DIRECTORY);
    struct paths ps = {0};
    if (rootfd < 0) {
        perror(tree);
        return 1;
    }
    list_files(rootfd, "", &ps);
    if (!ps.n) {
        fprintf(stderr, "%s: no files\n", tree);
        return 1;
    }
    uint64_t x = 0x9E3779B97F4A7C15ULL, start = now_ns(), t = start, ops = 0;
    uint64_t deadline = start + (uint64_t)(secs * 1e9);
    struct stat st;
    while (t < deadline) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        uint64_t i = (uint64_t)(((unsigned __int128)(x * 0x2545F4914F6CDD1DULL) * ps.n) >> 64);
        if (fstatat(rootfd, ps.p[i], &st, AT_SYMLINK_NOFOLLOW)) {
            perror(ps.p[i]);
            return 1;
        }
        t = now_ns(); /* as sbio reads the clock once per operation */
        ops++;
    }
    printf("%.0f\n", (double)ops / ((double)(now_ns() - start) / 1e9));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--stat"))
        return stat_floor(argv[2], atof(argv[3]));
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE SECONDS [BLOCK] [THREADS], or %s --stat TREE SECONDS\n",
                argv[0], argv[0]);
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st)) {
        perror(argv[1]);
        return 1;
    }
    double secs = atof(argv[2]);
    uint64_t block = argc > 3 ? strtoull(argv[3], NULL, 10) : 4096;
    int n = argc > 4 ? atoi(argv[4]) : 1;
    pthread_t tid[256];
    struct job jobs[256];
    uint64_t start = now_ns(), deadline = start + (uint64_t)(secs * 1e9);
    for (int i = 0; i < n && i < 256; i++) {
        jobs[i] = (struct job){argv[1],  block, (uint64_t)st.st_size / block,
                               deadline, 0,     0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1)};
        pthread_create(&tid[i], NULL, loop, &jobs[i]);
    }
    uint64_t ops = 0;
    for (int i = 0; i < n && i < 256; i++) {
        pthread_join(tid[i], NULL);
        ops += jobs[i].ops;
    }
    printf("%.0f\n", (double)ops / ((double)(now_ns() - start) / 1e9));
    return 0;
}
