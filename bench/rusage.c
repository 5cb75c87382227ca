/* What a command cost: runs it, waits with wait4 and writes to FILE one line
 * "MAXRSS_KIB CPU_NS": the kernel's ru_maxrss (GNU time -v's "Maximum resident set size")
 * and the user + system CPU time of the command and all its threads (io_uring's kernel
 * workers included). The command's output passes through; exits with its status.
 * Usage: rusage FILE COMMAND [ARG]... */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE COMMAND [ARG]...\n", argv[0]);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("wait4");
        return 1;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    long long ns = ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                   ((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
    fprintf(f, "%ld %lld\n", ru.ru_maxrss, ns);
    if (fclose(f)) {
        perror(argv[1]);
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
