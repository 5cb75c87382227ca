/* The manifest of a file set: sbio.manifest in the set's folder.
 *
 * Plain key=value text, one key a line, '#' lines are comments. prepare writes it first with
 * state=incomplete and marks it complete once every file is written and fsynced, so an
 * interrupted prepare is known. Only the files a manifest names are ever written or removed.
 * Keys: format, state, file_num, total_size, block_size, fill, prealloc, seed, verify,
 * adopted=1 for files prepare --adopt took over (their content is not sbio's fill), and
 * file.N=NAME SIZE for each file; unknown keys are skipped (a newer sbio may add some).
 * A set a seqwr run left short (it empties the files and rewrites them; a run that ends
 * before the set is whole leaves the rest for the next command) is state=incomplete with
 * short=seqwr (before the file entries) and rewrite.N=OFFSET (after them) for each file
 * whose bytes from OFFSET to its end are still to be written. appended.N=1 (after the file
 * entries) marks a file a script's appends may have made longer than its size.
 *
 * A file tree's manifest (tree.h) has format, set=tree, state, seed and its rule instead of
 * the files: tree.files=N, tree.dirwidth=W, tree.size=LAW A B P (fixed, uniform, lognormal or
 * gamma, decl.h's struct sbio_size_dist, P exact to the bit), tree.prealloc=F. The rule names
 * every entry the tree may hold, so no list of files is kept. */
#ifndef SBIO_MANIFEST_H
#define SBIO_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "decl.h"

#define SBIO_MANIFEST        "sbio.manifest"
#define SBIO_MANIFEST_FORMAT 1

/* One file of a flat set. */
struct sbio_fileset_file {
    char name[256]; /* relative to the folder, or a raw device's absolute path */
    uint64_t size;
    uint64_t unwritten; /* a short set (seqwr_short): the bytes at the file's end still to be
                           written (from size - unwritten on), 0 when it is whole */
    bool appended;      /* a script's appends may have grown it past size (appended.N=1): its
                           bytes past size are no part of the set, cut by the next command that
                           writes */
};

/* Room for what a damaged manifest's reader found ("line N: why"). */
#define SBIO_MANIFEST_DAMAGE_LEN 128

/* A flat file set as its manifest describes it, and where it is open (fileset.h shapes,
 * opens and locks it; prepare.h writes it). */
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
    uint64_t bytes;   /* sum of the file sizes */
    bool raw;         /* a raw block device (--filename): no manifest, nothing to prepare */
    bool adopted;     /* files made by another program (prepare --adopt): their content is
                       * unknown, so a verified run checks only the blocks it writes */
    bool seqwr_short; /* with !complete: a seqwr run left the set short, each file's unwritten
                       * bytes to be written before anything reads it (a set left incomplete
                       * otherwise is an interrupted prepare's) */
    char damage[SBIO_MANIFEST_DAMAGE_LEN]; /* what sbio_manifest_read found damaged: "line N:
                                            * why" (with -EBADMSG) */
};

/* Whether sbio may trust the entry name of a set's folder dir (the manifest, or a file of the
 * set), whose fstat is st: a regular file owned by the user running sbio or by root (as ssh's
 * StrictModes trusts a key file). A file another user planted in a shared folder must not make sbio
 * write or remove what it names. 0, or -SBIO_EUSAGE after one line naming the file and its owner.
 */
int sbio_manifest_trusted(const char *dir, const char *name, const struct stat *st);

/* Write fs as the manifest of dirfd, atomically (temporary file, fsync, rename, fsync of
 * the folder). Returns 0 or -errno. */
int sbio_manifest_write(int dirfd, const struct sbio_fileset *fs);

/* Read dirfd's manifest into fs (allocates fs->files). Returns 0, -ENOENT when there is
 * none, -EMEDIUMTYPE when it is a file tree's (nothing said), -EBADMSG when it is malformed (a
 * message names the line) or not a regular file, -EPERM when it belongs to another user than
 * the one running sbio and root (a message names its owner: such a manifest is never
 * trusted), or -errno. Lines are at most 511 bytes of text; every file.N of file_num is there
 * once, each name once, without '/'. Keys a manifest lacks get their defaults (state:
 * incomplete), and on an error fs->files is NULL. */
int sbio_manifest_read(int dirfd, struct sbio_fileset *fs);

/* Whether dirfd's manifest says a seqwr run left the set short (state=incomplete and
 * short=seqwr among its first lines), read silently and trusting nothing: the choice of a
 * lock (a run that will complete the set takes it alone), never of what is written; the
 * manifest is read and checked when the set is opened. */
bool sbio_manifest_left_short(int dirfd);

/* A file tree's manifest: its rule (decl: files, dirwidth, size, prealloc; set and line are
 * not kept), seed and state. */
struct sbio_manifest_tree {
    bool complete;
    struct sbio_tree_decl decl;
    uint64_t seed;
    char damage[SBIO_MANIFEST_DAMAGE_LEN]; /* with -EBADMSG: "line N: why" */
};

/* Write m as the manifest of dirfd, atomically as sbio_manifest_write. 0 or -errno. */
int sbio_manifest_write_tree(int dirfd, const struct sbio_manifest_tree *m);

/* Read dirfd's manifest as a tree's into m. Returns 0, -ENOENT when there is none,
 * -EMEDIUMTYPE when it is a flat set's (nothing said), -EBADMSG when it is malformed or its
 * rule is out of range (a message names the line), -EPERM when another user owns it (said, as
 * sbio_manifest_read), or -errno. */
int sbio_manifest_read_tree(int dirfd, struct sbio_manifest_tree *m);

#endif
