/* The tree on disk (tree.h's rule): prepare, cleanup, a run's open (with its repair) and
 * scan, never through a symlink. */
#ifndef SBIO_TREE_IO_H
#define SBIO_TREE_IO_H

#include <stdio.h>

#include "decl.h"
#include "tree.h"

/* prepare: make the tree in set->dir (its folders, slots 0 .. prealloc_files - 1 with their
 * sizes of fill bytes, made durable with one syncfs) and its manifest, state=incomplete until
 * every file is written; complete an incomplete one, and put a complete one back as prepared.
 * out gets the shape in one line. Refused (-SBIO_EUSAGE, nothing touched) when the folder
 * holds another set, an entry the rule does not name, or too little room or too few inodes.
 * -EINTR when a signal stopped it (the manifest stays incomplete). */
int sbio_tree_prepare(const struct sbio_settings *set, const struct sbio_tree_decl *d, FILE *out);

/* cleanup: remove what the manifest's rule names (see tree.h), then the manifest; out says
 * how many files and folders. */
int sbio_tree_cleanup(const struct sbio_settings *set, FILE *out);

/* run: open the tree prepare made (the manifest must be complete and its rule the
 * declaration's, else -SBIO_EUSAGE with the difference named; with no manifest, a declaration
 * that prepares no file has its empty tree made here, as sbio_tree_prepare makes it, saying so
 * on out first), scan it and repair it to
 * prepare's state outside any measured time — free slots prepare filled are made again,
 * files in slots prepare left free removed, sizes put back, m… folders removed — saying on
 * out what it repaired (nothing when there was nothing). Leaves t open with cur_size; on
 * an error t is closed. */
int sbio_tree_open(struct sbio_tree *t, const struct sbio_settings *set,
                   const struct sbio_tree_decl *d, const char *script, FILE *out);

/* Before a run: would sbio_tree_open accept the tree in set->dir for declaration d (its
 * manifest there, complete, of d's rule; or none, for a declaration that prepares no file,
 * with no sbio.tree in the way)? Reads only, changes nothing. 0 or
 * -SBIO_EUSAGE after the message a run would print. */
int sbio_tree_ready(const struct sbio_settings *set, const struct sbio_tree_decl *d,
                    const char *script);

/* Fill t->cur_size from what is on disk now (a phase's start: another rank may have
 * changed the tree); mkdirs back to 0. Returns 0, -SBIO_EUSAGE for an entry the rule does
 * not name (said), or -errno. */
int sbio_tree_scan(struct sbio_tree *t);

void sbio_tree_close(struct sbio_tree *t);

#endif
