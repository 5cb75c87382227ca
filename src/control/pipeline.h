/* One run as `sbio run` does it, for run and compare alike: check the settings before the set
 * is touched, open the set (or the raw device), apply the scheduler and queue knobs, drop
 * caches, run, put every setting back, and make the text report and the JSON document. */
#ifndef SBIO_PIPELINE_H
#define SBIO_PIPELINE_H

#include <jansson.h>
#include <stdio.h>

#include "decl.h"
#include "topology.h"

/* The checks that need no change to anything: root for settings and --drop-caches, the
 * folder or device, the scheduler and knobs against the device. 0 or -SBIO_EUSAGE. */
int sbio_pipeline_check(const struct sbio_settings *set);

/* Meet the other ranks (no-op alone) with this one's status rc; rank 0 names the rank that
 * stopped everyone ("rank N of M <what>") when it was another one. The agreed status. */
int sbio_pipeline_agree(const struct sbio_topology *topo, int rc, const char *what);

/* Apply set's scheduler and queue settings and put them back at once: what only the kernel
 * can refuse (a value out of range, a tunable the scheduler lacks) is found before a long
 * compare starts (by host leaders only; 0 elsewhere). 0, -SBIO_EUSAGE (message printed,
 * nothing left changed) or -errno. */
int sbio_pipeline_try_settings(const struct sbio_settings *set, const struct sbio_topology *topo);

/* Run a declaration: the command line's (one job, decl->plain) or a script's. The text
 * report goes to text, interim lines (a plain run's) to interim; *doc (when doc is not NULL)
 * gets the JSON result document of a run that happened, however it ended: schema sbio-run/1
 * for the command line's job, sbio-script/1 for a script (phases[], each with its jobs'
 * result documents and the total). A plain run prints sysbench's header once its threads are
 * up and one report; a script's phases run in order, each phase's jobs side by side on their
 * own threads, one text report per job and, for phases of several jobs, one for the phase.
 * Settings (--scheduler, --queue) hold for the whole run.
 * Returns a command code (util.h): 0; -SBIO_EFAILED when the run failed (an I/O error, a bad
 * block, a setting not restored); -EINTR when a signal stopped it; or, when it could not
 * start, -SBIO_EUSAGE (message printed, nothing changed) or -errno; and -SBIO_EUSAGE when the
 * system refused a script's phase (the others ran and *doc is set; a run's failure or a
 * signal is returned first).
 * Under MPI (topo->nranks > 1) every rank calls it with the same declaration and all get the
 * same code: rank 0 alone writes text and gets *doc, for every rank's merged result; only
 * host leaders apply settings and drop caches (see mpi.h). */
int sbio_pipeline_run(const struct sbio_settings *set, const struct sbio_script *decl,
                      const struct sbio_topology *topo, FILE *text, FILE *interim, json_t **doc);

struct sbio_script;

/* The checks of a script under set that change nothing (decl_check.h): what its phases allow
 * under this job's MPI ranks, each job's I/O priority and group (against the set's devices).
 * compare makes them for every setting before the first runs. 0 or -SBIO_EUSAGE (message printed).
 */
int sbio_pipeline_check_script(const struct sbio_settings *set, const struct sbio_script *s);

/* What a run of decl under set would refuse before it changes anything, found without
 * changing anything (nothing made, written or put back; no setting applied): the checks
 * above, the set (there and complete, of the shape the options or the script declare; a
 * tree's manifest of the script's rule) and, for the command line's job, the job's own
 * checks against the set (block size, O_DIRECT, the engine, descriptors). A set seqwr would
 * make is not there to be checked. compare makes it for every setting before the first run.
 * 0 or -SBIO_EUSAGE (message printed). */
int sbio_pipeline_check_run(const struct sbio_settings *set, const struct sbio_script *decl,
                            const struct sbio_topology *topo);

#endif
