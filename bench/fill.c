/* The fill data's generation alone: sbio_fill_range (src/fs/fill.c) over 1 GiB of one file, in
 * prepare's 1 MiB pieces, into one buffer. Prints MiB/s of wall-clock and the process's CPU
 * time (on a shared machine the CPU time is the steadier figure), and a hash of the last
 * piece (the bytes must not change between builds).
 *   gcc -O2 -D_GNU_SOURCE $(find src -mindepth 1 -type d -printf '-iquote %p ') \
 *       -o fill bench/fill.c src/fs/fill.c src/base/util.c -lm && ./fill */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fill.h"
#include "manifest.h"
#include "vocab.h"

static double secs(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    struct sbio_fileset fs = {.seed = 42, .fill = SBIO_FILL_RANDOM};
    size_t n = 1 << 20;
    unsigned char *buf = aligned_alloc(4096, n);
    if (!buf)
        return 1;
    double t0 = secs();
    for (uint64_t i = 0; i < 1024; i++)
        sbio_fill_range(&fs, 0, i * n, buf, n);
    double t1 = secs();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ buf[i]) * 1099511628211ULL;
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    printf("1 GiB of fill: %.0f MiB/s, %.0f ms CPU; last MiB's hash %016" PRIx64 "\n",
           1024 / (t1 - t0), cpu * 1000, h);
    free(buf);
    return 0;
}
