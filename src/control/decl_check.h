/* The checks of a declaration (a script's, or the command line's one job) that change
 * nothing: what its phases allow under the run's settings and a number of MPI ranks
 * (pure), and what the system must allow (each job's I/O priority and group). The pipeline
 * makes them before anything is opened; compare makes them for every setting before its first
 * run. */
#ifndef SBIO_DECL_CHECK_H
#define SBIO_DECL_CHECK_H

#include "decl.h"

struct sbio_target;

/* What a script's declarations allow with set under nranks MPI ranks, before anything is
 * opened: --verify's partition (a phase's jobs must not share a block), the ranks' shares
 * (each job's share of a phase's events and its rate split across ranks: a share of 0 would
 * be no limit; no seqwr job on a set the ranks share), and each phase's operations against
 * what the set can serve (a tree job's files and slots). The same on every rank. Pure; 0 or
 * -SBIO_EUSAGE (message printed). */
int sbio_decl_check(const struct sbio_settings *set, const struct sbio_script *s, unsigned nranks);

/* What the system must allow: each job's I/O priority, and its I/O group against the set's
 * devices t. 0 or -SBIO_EUSAGE (message printed). */
int sbio_decl_check_system(const struct sbio_settings *set, const struct sbio_script *s,
                           const struct sbio_target *t);

#endif
