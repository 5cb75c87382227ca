/* The file set: test_file.N under --dir, described by its manifest (manifest.h), or a
 * raw block device (--filename).
 *
 * Only the files a manifest names are ever written or removed, never through a symlink.
 * Their content is the fill data (fill.h), with a generation-0 header in every block of
 * a verified set. fileset.c shapes, opens and locks a set for a run; prepare.c (prepare.h)
 * writes it (prepare, and completing it after a seqwr run) and removes it
 * (cleanup). */
#ifndef SBIO_FILESET_H
#define SBIO_FILESET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "decl.h"
#include "manifest.h" /* struct sbio_fileset */

/* Shape the set from set (no I/O): nfiles files of total_size / file_num bytes. 0, -ENOMEM,
 * or -SBIO_EUSAGE after one line when that is 0 bytes (fewer bytes than files). */
int sbio_fileset_shape(struct sbio_fileset *fs, const struct sbio_settings *set, uint64_t seed);

/* The set's files and their sizes in words: "9 files, 32 MiB each" when they are all one
 * size (sysbench's line, which scripts parse), else "9 files: 8 of 32 MiB, 1 of 64 MiB" (each
 * size in the order the files have it), or "100 files of 4 KiB to 64 MiB" past four sizes. */
void sbio_fileset_sizes_str(const struct sbio_fileset *fs, char *buf, size_t len);

/* Compare the explicitly given --file-num / --file-total-size with the manifest's.
 * Returns 0 or -SBIO_EUSAGE after a message naming both values. */
int sbio_fileset_check_shape(const struct sbio_fileset *fs, const struct sbio_settings *set);

/* How many entries named test_file.N (N decimal) dirfd holds, in *count: a set made by
 * sysbench, or what is left of one, when no manifest names them. Returns 0 or -errno. */
int sbio_fileset_strays(int dirfd, unsigned *count);

/* Say in one line that dir has no manifest but strays (> 0) test_file.* files, made by
 * sysbench perhaps, and how sbio takes them over (prepare --adopt); for cleanup also that it
 * removed nothing and how they go. The callers refuse (-SBIO_EUSAGE): every command meets
 * such a folder the same way. */
void sbio_fileset_strays_refused(const char *dir, unsigned strays, bool cleanup);

/* Before a run: would it find its set? (a complete set of the right shape; with may_create,
 * as for seqwr, also an empty folder, which the run fills). Opens the set into *fs, for the
 * run's checks against it, and writes nothing; fs->nfiles is 0 when the run would make the
 * set. Returns 0 (close fs with sbio_fileset_close) or -SBIO_EUSAGE after the message a run
 * would print (nothing left open). */
int sbio_fileset_ready(const struct sbio_settings *set, bool may_create, struct sbio_fileset *fs);

/* run: open the folder and load a complete set whose files all have their sizes, or a set a
 * seqwr run left short (fs->seqwr_short, !fs->complete: its files' sizes unchecked), which
 * the caller completes (sbio_fileset_finish_short) before anything reads it, unless its run
 * is a seqwr that empties it anyway. With allow_create (seqwr) an empty folder gets a new
 * set of empty files, marked incomplete, and *created is set. Returns 0, -SBIO_EUSAGE
 * (message printed) or -errno. */
int sbio_fileset_open(struct sbio_fileset *fs, const struct sbio_settings *set, bool allow_create,
                      bool *created);

/* Remove a set sbio_fileset_open has just created (its empty files, then its manifest),
 * for a run refused before it wrote anything. Best effort: what cannot be removed stays,
 * an incomplete set that cleanup removes. */
void sbio_fileset_discard(struct sbio_fileset *fs);

/* run --filename=DEV: the "set" is the block device itself, its size from the kernel. Refused
 * (-SBIO_EUSAGE, message printed) when DEV is not a block device, or for a write mode when
 * --allow-destroy is off or the device (or a partition of it) is mounted or otherwise held
 * exclusively. */
int sbio_fileset_open_device(struct sbio_fileset *fs, const struct sbio_settings *set);

/* A script's appends (a flat set): with cut (a command that writes), each file marked
 * appended that is longer than its size is cut back to it, and out says so in one line; then
 * the files of grow (nfiles flags, or NULL) are marked appended, the others unmarked when cut.
 * The manifest is written when a mark changes. 0 or -errno (said). */
int sbio_fileset_appends(struct sbio_fileset *fs, bool cut, const bool *grow, FILE *out);

/* Mark the manifest incomplete or complete (before truncating for seqwr, after). */
int sbio_fileset_mark(struct sbio_fileset *fs, bool complete);

void sbio_fileset_close(struct sbio_fileset *fs);

/* Whether the command of set (with script, NULL without) may write the set's files: prepare
 * and cleanup, a write mode, a script with a job that writes (a mode that writes, a mix with
 * a weight other than a read's, an event job). */
bool sbio_fileset_cmd_writes(const struct sbio_settings *set, const struct sbio_script *script);

/* Lock the set of set against other sbio processes for as long as *fd stays open: an
 * flock (LOCK_NB) on the --dir folder itself (no lock file another user could plant), or
 * on the --filename device. Exclusive for prepare, cleanup, compare and a run that writes
 * (sbio_fileset_cmd_writes): those never overlap another command on the set. Shared for a
 * run that only reads, so readers may run side by side. (Under mpirun the ranks sharing a
 * set leave the lock to rank 0, which takes it for the job.) *fd is -1 when there is nothing
 * to lock (a missing folder: the command says so itself). Returns 0, or -SBIO_EFAILED after
 * one line naming the process that holds the lock (pid and command line, from /proc/locks),
 * nothing touched. */
int sbio_fileset_lock(const struct sbio_settings *set, const struct sbio_script *script, int *fd);

/* Shared by prepare and cleanup (prepare.c, tree_io.c) and the opening of a set (fileset.c). */

/* Open set->dir as a folder (for_write: refused on a read-only file system). Returns the
 * descriptor or -SBIO_EUSAGE after a message. */
int sbio_fileset_open_dir(const struct sbio_settings *set, bool for_write);

/* Check every name of fs in fs->dirfd before anything is written: a symlink or a non-regular
 * file is never written through, and an existing file is foreign unless manifest_names_them.
 * Returns 0 or -SBIO_EUSAGE after a message naming the file. */
int sbio_fileset_check_names(const struct sbio_fileset *fs, bool manifest_names_them);

/* Say in one line that dir's manifest is damaged, where and why (why: the reader's
 * fs->damage, sbio's own words, never the file's), and what to do (the same advice from
 * every command: no command can tell which files a damaged manifest named). */
void sbio_fileset_damaged(const char *dir, const char *why);

#endif
