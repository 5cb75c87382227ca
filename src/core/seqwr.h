/* seqwr measures writing into emptied files: the set is truncated before the measured phase.
 * What a run that ended early did not rewrite is left to the next command (the manifest
 * marks the set short, prepare.h completes it); after a failed run everything is written
 * back here, outside the measured time, so that the set stays whole and valid. */
#ifndef SBIO_SEQWR_H
#define SBIO_SEQWR_H

#include <stdbool.h>
#include <stdint.h>

#include "fileset.h"
#include "workload.h"

/* Empty every file of the set. keep_size (mmap writes into a mapping of the file's size):
 * give each file its size back as a hole, as sysbench does, so the writes still allocate.
 * 0 or -errno (message printed). */
int sbio_seqwr_truncate(const struct sbio_fileset *fs, bool keep_size);

/* Write back the fill data of the sequential requests [a, b) of lay, file piece by file
 * piece, adding the bytes written to *bytes. 0 or -errno (message printed). */
int sbio_seqwr_fill(struct sbio_fileset *fs, const struct sbio_layout *lay, uint64_t a, uint64_t b,
                    uint64_t *bytes);

#endif
