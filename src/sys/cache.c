#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vocab.h"
#include "sysblock.h"

/* mincore's vector for 1 GiB of 4 KiB pages is 256 KiB: a set of any size costs that. */
#define CACHE_WINDOW (1ULL << 30)

int sbio_cache_invalidate(int fd)
{
    struct sbio_cachestat cs = {0};
    /* cachestat says whether there is anything to write; without it, write back anyway. */
    if (sbio_cachestat_add(fd, &cs) || cs.dirty || cs.writeback)
        if (fdatasync(fd))
            return -errno;
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    return -rc;
}

int sbio_cache_invalidate_at(int dirfd, const char *name, uint64_t size, uint64_t *resident)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = sbio_cache_invalidate(fd);
    if (!rc && resident)
        rc = sbio_cache_resident(fd, size, resident);
    close(fd);
    return rc;
}

int sbio_cache_resident(int fd, uint64_t size, uint64_t *bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *vec = malloc(CACHE_WINDOW / (uint64_t)page);
    if (!vec)
        return -ENOMEM;
    int rc = 0;
    *bytes = 0;
    for (uint64_t off = 0; off < size && !rc; off += CACHE_WINDOW) {
        uint64_t len = size - off < CACHE_WINDOW ? size - off : CACHE_WINDOW;
        void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
        if (map == MAP_FAILED) {
            rc = -errno;
            break;
        }
        if (mincore(map, len, vec))
            rc = -errno;
        uint64_t pages = (len + (uint64_t)page - 1) / (uint64_t)page;
        for (uint64_t i = 0; i < pages && !rc; i++)
            if (vec[i] & 1) /* the last page counts only for its part of the file */
                *bytes += i + 1 < pages ? (uint64_t)page : len - i * (uint64_t)page;
        munmap(map, len);
    }
    free(vec);
    return rc;
}

int sbio_cache_fadv(int hint)
{
    switch (hint) {
    case SBIO_FADV_NORMAL: return POSIX_FADV_NORMAL;
    case SBIO_FADV_RANDOM: return POSIX_FADV_RANDOM;
    case SBIO_FADV_SEQUENTIAL: return POSIX_FADV_SEQUENTIAL;
    default: return -1;
    }
}

int sbio_cache_madv(int hint)
{
    switch (hint) {
    case SBIO_FADV_NORMAL: return POSIX_MADV_NORMAL;
    case SBIO_FADV_RANDOM: return POSIX_MADV_RANDOM;
    case SBIO_FADV_SEQUENTIAL: return POSIX_MADV_SEQUENTIAL;
    default: return -1;
    }
}

int sbio_cache_advise(int fd, int advice)
{
    if (advice < 0 || fd < 0)
        return 0;
    return -posix_fadvise(fd, 0, 0, advice);
}
