/* prepare and cleanup of a file set (fileset.h), and the writer that gives a file prepare's
 * content, with which a run completes a set its seqwr left short. */
#ifndef SBIO_PREPARE_H
#define SBIO_PREPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "decl.h"
#include "fileset.h"

/* Polled by prepare between its writes: true when another process of the job failed (under
 * mpirun), and this one should stop instead of finishing its set. */
struct sbio_fileset_poll {
    bool (*stopped)(void *ctx);
    void *ctx;
};

/* prepare: create or complete the set in set->dir, reporting to out (the
 * shape, a line per file written or, when out is a terminal, one updating progress line, and
 * the rate). A new set's files get total/num bytes rounded up to a whole --file-block-size,
 * as sysbench writes them. With set->adopt the test_file.N already there (a set sysbench made)
 * become the set when their count and sizes are those the options give, and nothing is
 * written but the manifest. Nothing is touched when a foreign file or a symlink is in the
 * way, the shape disagrees or the file system lacks the room (-SBIO_EUSAGE). -EINTR when stopped by
 * a signal, -ECANCELED when poll (may be NULL) said stop (the manifest stays incomplete either
 * way), other -errno on I/O errors (message printed with file, offset and call). */
int sbio_fileset_prepare(const struct sbio_settings *set, const struct sbio_fileset_poll *poll,
                         FILE *out);

/* prepare for script (NULL: sbio_fileset_prepare): with --verify the set is stamped at the
 * block size its jobs use (each job's smallest block, as a run takes it), for the runs of
 * the script to verify it. Refused (-SBIO_EUSAGE, one line, nothing written) when its jobs
 * use several, when --file-block-size says another, or when a verified set in the folder
 * was stamped at another. */
int sbio_fileset_prepare_script(const struct sbio_settings *set, const struct sbio_script *script,
                                const struct sbio_fileset_poll *poll, FILE *out);

/* cleanup: remove the files the manifest names, then the manifest; out says how many were
 * there, or that there is no set (not an error when no test_file.N is there either).
 * test_file.N that no manifest names (a set sysbench made) are left: -SBIO_EUSAGE after one
 * line advising prepare --adopt. */
int sbio_fileset_cleanup(const struct sbio_settings *set, FILE *out);

/* Complete files shorter than their size (after a seqwr run stopped early), fsync them and
 * mark the manifest complete. Returns 0 or -errno (message printed). */
int sbio_fileset_complete(struct sbio_fileset *fs, uint64_t *written_bytes);

/* The bytes a set a seqwr run left short still lacks (its files' unwritten bytes); 0 for
 * any other set. */
uint64_t sbio_fileset_unwritten(const struct sbio_fileset *fs);

/* Complete a set a seqwr run left short: each file's unwritten bytes written with prepare's
 * content (and fsynced), then as sbio_fileset_complete. Refused when the file system lacks
 * the room (-ENOSPC, said). *written_bytes: what was written. 0 or -errno (message printed
 * with file, offset and call). */
int sbio_fileset_finish_short(struct sbio_fileset *fs, uint64_t *written_bytes);

/* Write the fill bytes of [off, off + len) of file `file` and fsync it (seqwr completion).
 * Returns 0 or -errno (message printed with file, offset and call). */
int sbio_fileset_write_range(struct sbio_fileset *fs, unsigned file, uint64_t off, uint64_t len);

/* Whether the file system of fs has the room its files still need to reach their sizes
 * (allocated blocks count as written; a hole needs room), plus the manifest's: 0 when it
 * has (or cannot tell), -ENOSPC when not; *need and *avail in bytes. */
int sbio_fileset_room(const struct sbio_fileset *fs, uint64_t *need, uint64_t *avail);

/* Where the written content of file `file` (open as fd, have bytes long, capped at its size)
 * ends: at its first hole (an interrupted run can leave one), rounded down to a whole block
 * in a verified set. A fallocate set's files are trusted to their size. */
uint64_t sbio_fileset_written_end(const struct sbio_fileset *fs, unsigned file, int fd,
                                  uint64_t have);

/* Write [off, end) of file `file` (open for writing as fd) with prepare's bytes — the fill,
 * and in a verified set a generation-0 header in every block (off is then block-aligned) —
 * then fsync it. With allocate, a fallocate set's range is allocated (fallocate) instead of
 * written, as prepare does. Goes on through signals. Returns 0 or -errno (message printed
 * with file, offset and call). */
int sbio_fileset_write_fd(const struct sbio_fileset *fs, unsigned file, int fd, uint64_t off,
                          uint64_t end, bool allocate);

#endif
