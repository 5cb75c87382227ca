/* The fill data of a file set: what prepare writes, and what a write mode's buffers start as.
 *
 * The bytes are a function of (seed, file, 4 KiB chunk) alone: any range of any file can be
 * made again, in any pieces, and gives the bytes prepare gave it. Random fill is an xorshift
 * stream per chunk; compressible:P zeroes the first P% of every chunk; zero is all zeros. */
#ifndef SBIO_FILL_H
#define SBIO_FILL_H

#include <stdint.h>

#define SBIO_FILL_CHUNK 4096 /* fill data is a function of (seed, file, 4 KiB chunk) */

struct sbio_fileset;

/* Write the fill bytes of file `file` of fs for [off, off + len) into buf: deterministic in
 * (fs->seed, fs->fill, fs->fill_pct, file, off), so an extended or completed file has the
 * content prepare gives. Nothing past buf + len is written. */
void sbio_fill_range(const struct sbio_fileset *fs, unsigned file, uint64_t off, void *buf,
                     uint64_t len);

#endif
