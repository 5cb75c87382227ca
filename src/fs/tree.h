/* A file set as a directory tree: a script's fileset { files = N, dirwidth = W, size = …,
 * prealloc = F } (decl.h, struct sbio_tree_decl).
 *
 * The tree lives in DIR/sbio.tree. It has N slots, numbered 0 .. N-1; slot s is the file
 * f<s> in leaf folder s / W. With L = ceil(N / W) leaves, leaf l's path is its number
 * written in base W with D digits, each a folder d<digit>, D the fewest digits that number
 * L leaves (W^D >= L); D is 0 when one leaf holds every file (the files sit in sbio.tree
 * itself). So N = 10000, W = 20: 500 leaves, D = 3, slot 1234 is d0/d3/d1/f1234.
 *
 * Slot s's file has size sbio_tree_size(t, s), drawn once from the set's seed and s;
 * prepare makes slots 0 .. round(F × N) - 1 and leaves the others free, for create.
 * A run's mkdir makes folders m<phase>_<thread>_<k> inside leaves; nothing else ever
 * lives in the tree. The manifest (DIR/sbio.manifest) records the rule (N, W, the size
 * law, F, the seed), and cleanup removes exactly what the rule names — files f<s> in their
 * leaf, the m… folders (when empty), the d… folders and sbio.tree — never following a
 * symlink and never anything else: an entry the rule does not name stops prepare, a run and
 * cleanup before they touch anything (exit 2, naming it).
 *
 * tree.c holds the rule (no I/O); tree_io.c (tree_io.h) the tree on disk: every folder
 * opened with O_DIRECTORY | O_NOFOLLOW, every file with O_NOFOLLOW, every entry looked at with
 * AT_SYMLINK_NOFOLLOW before anything is done to it. */
#ifndef SBIO_TREE_H
#define SBIO_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "decl.h"

#define SBIO_TREE_ROOT "sbio.tree"
#define SBIO_TREE_NONE UINT64_MAX /* cur_size of a free slot */
/* The most slots, and the widest folders, a tree may have (lua/sbio.lua says the same). */
#define SBIO_TREE_MAX_FILES 100000000

struct sbio_tree {
    int rootfd;      /* DIR/sbio.tree opened O_RDONLY | O_DIRECTORY, -1 when not open */
    const char *dir; /* DIR */
    uint64_t files, dirwidth, leaves;
    unsigned depth; /* D above */
    struct sbio_size_dist size;
    double prealloc;
    uint64_t prealloc_files; /* round(prealloc × files) */
    uint64_t seed;
    /* Each slot as the last scan found it and the runs since left it: its size in bytes, or
     * SBIO_TREE_NONE when it holds no file. During a phase slot s is read and written only
     * by the thread that owns it (fsop.h); between phases by the pipeline. */
    uint64_t *cur_size; /* [files] */
    uint64_t mkdirs;    /* m… folders made since the last scan */
};

/* The files prepare makes of declaration d: round(prealloc × files), at most files. */
uint64_t sbio_tree_decl_made(const struct sbio_tree_decl *d);

/* Shape t from the declaration and seed (no I/O): depth, leaves, prealloc_files. Refuses
 * (-SBIO_EUSAGE, one line naming the script's line) a path deeper than PATH_MAX under dir.
 * t->cur_size is not allocated yet (sbio_tree_scan does). */
int sbio_tree_shape(struct sbio_tree *t, const struct sbio_tree_decl *d, const char *dir,
                    uint64_t seed, const char *script);

/* The size of slot s's file as prepare makes it: deterministic in (seed, s). */
uint64_t sbio_tree_size(const struct sbio_tree *t, uint64_t s);

/* Slot s's path relative to sbio.tree ("d0/d3/d1/f1234"), and leaf l's ("d0/d3/d1", or ""
 * when depth is 0). Return the length, or -ENAMETOOLONG when len is too small. */
int sbio_tree_path(const struct sbio_tree *t, uint64_t s, char *buf, size_t len);
int sbio_tree_leaf_path(const struct sbio_tree *t, uint64_t l, char *buf, size_t len);

#endif
