/* Keep a file in the page cache: map it, mlock the mapping (which reads it in) and wait
 * for SIGTERM. Locked pages stay cached through others' drop_caches and proactive reclaim
 * (DAMON), which empty an idle page cache here within about a minute. Writes READY_FILE once
 * the file is locked. Needs CAP_IPC_LOCK or RLIMIT_MEMLOCK of the file's size; without,
 * says so and exits 1. Usage: mlockfile FILE READY_FILE */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s FILE READY_FILE\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        perror(argv[1]);
        return 1;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED || mlock(p, (size_t)st.st_size)) {
        perror("mlockfile: mmap/mlock");
        return 1;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    FILE *f = fopen(argv[2], "w");
    if (!f || fclose(f)) {
        perror(argv[2]);
        return 1;
    }
    int sig;
    sigwait(&set, &sig);
    return 0;
}
