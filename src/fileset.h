/* The file set: test_file.N under --dir and its manifest, sbio.manifest.
 *
 * The manifest is plain key=value text. prepare writes it first with state=incomplete and
 * marks it complete once every file is written and fsynced, so an interrupted prepare is
 * known. Only the files a manifest names are ever written or removed. */
#ifndef SBIO_FILESET_H
#define SBIO_FILESET_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"

#define SBIO_MANIFEST        "sbio.manifest"
#define SBIO_MANIFEST_FORMAT 1
#define SBIO_FILL_CHUNK      4096 /* fill data is a function of (seed, file, 4 KiB chunk) */

struct sbio_fileset_file {
    char name[256]; /* relative to the folder, or a raw device's absolute path */
    uint64_t size;
};

struct sbio_fileset {
    int dirfd; /* -1 when not open */
    const char *dir;
    bool complete;
    uint64_t total_size; /* as requested: file sizes are total_size / file_num */
    uint64_t block_size; /* the block size the set was prepared with */
    int fill;            /* enum sbio_fill */
    uint64_t fill_pct;
    uint64_t seed;
    bool verify;
    int prealloc; /* enum sbio_prealloc */
    unsigned nfiles;
    struct sbio_fileset_file *files;
    uint64_t bytes; /* sum of the file sizes */
    bool raw;       /* a raw block device (--filename): no manifest, nothing to prepare */
};

/* Shape the set from cfg (no I/O): nfiles files of total_size / file_num bytes. */
int sbio_fileset_shape(struct sbio_fileset *fs, const struct sbio_config *cfg, uint64_t seed);

/* Write fs as the manifest of dirfd, atomically (temporary file, fsync, rename, fsync of
 * the folder). Returns 0 or -errno. */
int sbio_manifest_write(int dirfd, const struct sbio_fileset *fs);

/* Read dirfd's manifest into fs (allocates fs->files). Returns 0, -ENOENT when there is
 * none, -EBADMSG when it is malformed (a message names the line), or -errno. */
int sbio_manifest_read(int dirfd, struct sbio_fileset *fs);

/* Compare the explicitly given --file-num / --file-total-size with the manifest's.
 * Returns 0 or -SBIO_EUSAGE after a message naming both values. */
int sbio_fileset_check_shape(const struct sbio_fileset *fs, const struct sbio_config *cfg);

/* Polled by prepare between its writes: true when another process of the job failed (under
 * mpirun), and this one should stop instead of finishing its set. */
struct sbio_fileset_poll {
    bool (*stopped)(void *ctx);
    void *ctx;
};

/* prepare: create or complete the set in cfg->dir. Nothing is touched when a foreign file
 * or a symlink is in the way or the shape disagrees (-SBIO_EUSAGE). -EINTR when stopped by
 * a signal, -ECANCELED when poll (may be NULL) said stop (the manifest stays incomplete
 * either way), other -errno on I/O errors (message printed with file, offset and call). */
int sbio_fileset_prepare(const struct sbio_config *cfg, const struct sbio_fileset_poll *poll);

/* cleanup: remove the files the manifest names, then the manifest. */
int sbio_fileset_cleanup(const struct sbio_config *cfg);

/* run: open the folder and load a complete set whose files all have their sizes.
 * With allow_create (seqwr) an empty folder gets a new set of empty files, marked
 * incomplete, and *created is set. Returns 0, -SBIO_EUSAGE (message printed) or -errno. */
int sbio_fileset_open(struct sbio_fileset *fs, const struct sbio_config *cfg, bool allow_create,
                      bool *created);

/* run --filename=DEV: the "set" is the block device itself, its size from the kernel. Refused
 * (-SBIO_EUSAGE, message printed) when DEV is not a block device, or for a write mode when
 * --allow-destroy is off or the device (or a partition of it) is mounted or otherwise held
 * exclusively. */
int sbio_fileset_open_device(struct sbio_fileset *fs, const struct sbio_config *cfg);

/* Write the fill bytes of file `file` for [off, off + len) into buf: deterministic in
 * (fs->seed, file, off), so an extended or completed file has the content prepare gives. */
void sbio_fileset_fill(const struct sbio_fileset *fs, unsigned file, uint64_t off, void *buf,
                       uint64_t len);

/* Complete files shorter than their size (after a seqwr run stopped early), fsync them and
 * mark the manifest complete. Returns 0 or -errno (message printed). */
int sbio_fileset_complete(struct sbio_fileset *fs, uint64_t *written_bytes);

/* Write the fill bytes of [off, off + len) of file `file` and fsync it (seqwr completion).
 * Returns 0 or -errno (message printed with file, offset and call). */
int sbio_fileset_write_range(struct sbio_fileset *fs, unsigned file, uint64_t off, uint64_t len);

/* Mark the manifest incomplete or complete (before truncating for seqwr, after). */
int sbio_fileset_mark(struct sbio_fileset *fs, bool complete);

void sbio_fileset_close(struct sbio_fileset *fs);

#endif
