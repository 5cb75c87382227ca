/* The manifest of a file set: sbio.manifest in the set's folder.
 *
 * Plain key=value text, one key a line, '#' lines are comments. prepare writes it first with
 * state=incomplete and marks it complete once every file is written and fsynced, so an
 * interrupted prepare is known. Only the files a manifest names are ever written or removed.
 * Keys: format, state, file_num, total_size, block_size, fill, prealloc, seed, verify,
 * adopted=1 for files prepare --adopt took over (their content is not sbio's fill), and
 * file.N=NAME SIZE for each file; unknown keys are skipped (a newer sbio may add some). */
#ifndef SBIO_MANIFEST_H
#define SBIO_MANIFEST_H

#include "fileset.h"

#define SBIO_MANIFEST        "sbio.manifest"
#define SBIO_MANIFEST_FORMAT 1

/* Write fs as the manifest of dirfd, atomically (temporary file, fsync, rename, fsync of
 * the folder). Returns 0 or -errno. */
int sbio_manifest_write(int dirfd, const struct sbio_fileset *fs);

/* Read dirfd's manifest into fs (allocates fs->files). Returns 0, -ENOENT when there is
 * none, -EBADMSG when it is malformed (a message names the line), or -errno. Lines are at
 * most 511 bytes of text; every file.N of file_num is there once, its name without '/'. Keys
 * a manifest lacks get their defaults (state: incomplete), and on an error fs->files is NULL. */
int sbio_manifest_read(int dirfd, struct sbio_fileset *fs);

#endif
