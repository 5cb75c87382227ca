/* The set's pages in the page cache, file by file: dropping them before a run (--invalidate,
 * a job's invalidate = true: fio's invalidate=1), measuring how much of a file is resident
 * (mincore), and the access hints a run gives its descriptors and mappings (--fadvise, fio's
 * fadvise_hint). None of it needs root. */
#ifndef SBIO_CACHE_H
#define SBIO_CACHE_H

#include <stdint.h>

/* Write fd's dirty pages back (fdatasync, when it has any or when the kernel cannot say:
 * POSIX_FADV_DONTNEED leaves dirty pages cached), then drop its pages from the page cache.
 * Pages mapped by a process stay. 0 or -errno. */
int sbio_cache_invalidate(int fd);

/* The bytes of fd's first size bytes that are resident in the page cache, by mincore over a
 * read-only shared mapping, a window at a time. 0 or -errno. */
int sbio_cache_resident(int fd, uint64_t size, uint64_t *bytes);

/* --invalidate of one file of a set: name opened in dirfd (never through a symbolic link),
 * its pages dropped (sbio_cache_invalidate); with resident, then the bytes of its first
 * size bytes still resident (sbio_cache_resident). 0 or -errno. */
int sbio_cache_invalidate_at(int dirfd, const char *name, uint64_t size, uint64_t *resident);

/* The posix_fadvise and posix_madvise advice of an enum sbio_fadvise (auto resolved first,
 * sbio_job_fadvise), or -1 for none. */
int sbio_cache_fadv(int hint);
int sbio_cache_madv(int hint);

/* posix_fadvise(fd, 0, 0, advice) unless advice is -1 or fd is not open. 0 or -errno. */
int sbio_cache_advise(int fd, int advice);

#endif
