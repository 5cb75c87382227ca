/* sbio compare: one workload under every combination of settings, repeated and interleaved,
 * with a table per phase and job of each metric's mean ± sd and its difference to the first
 * setting, with a confidence interval and a test corrected for the table's many (table.h).
 *
 * Axes come from --schedulers=LIST (the key "scheduler") and --vary KEY=LIST (repeatable;
 * KEY is an option of the script, a queue knob, an iosched/ tunable, or any option of sbio
 * run); the settings are their cartesian product, first axis slowest. Runs go in rounds:
 * every round runs each setting still running once before the next round starts (drift is
 * not mistaken for a setting); --order=random shuffles the settings within each round.
 * --repeat=N makes N rounds; --repeat=auto goes on until every CI of a setting is within
 * --target-ci of its mean (that setting stops), or --max-repeat rounds; --max-compare-time
 * starts no run that would end after it. */
#ifndef SBIO_COMPARE_H
#define SBIO_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"

/* The run order: out[k] = setting index of the k-th run, for repeat-major interleaving of
 * nsettings settings repeated `repeat` times; with random, each repeat's order is a
 * permutation drawn from seed. out has nsettings * repeat entries. */
void sbio_compare_order(size_t nsettings, unsigned repeat, bool random, uint64_t seed, size_t *out);

/* Setting index -> the value index on each axis (first axis slowest). */
void sbio_compare_unrank(size_t setting, const size_t *axis_len, size_t naxes, size_t *idx);

/* What the KEY of --vary KEY=LIST sets. A key is looked for in this order, the first match
 * taken: an option the script declares (option(name, default, help); it shadows any other key
 * of the same name, as a script option shadows a built-in option on the command line), the
 * scheduler, a queue knob or iosched/TUNABLE, an option of sbio run. */
enum sbio_compare_axis { SBIO_AXIS_SCRIPT, SBIO_AXIS_SCHEDULER, SBIO_AXIS_QUEUE, SBIO_AXIS_OPTION };

/* KEY's kind into *kind; script (may be NULL) is the compare's script. 0, or -EINVAL with one
 * line on stderr: a run option that defines the file set, the output or the compare, or a key
 * that is nothing compare can vary (the line says what can, the script's options among it). */
struct sbio_script;
int sbio_compare_axis_kind(const char *key, const struct sbio_script *script,
                           enum sbio_compare_axis *kind);

/* --repeat=auto: the rounds every setting runs before its CIs are looked at. */
#define SBIO_COMPARE_MIN_AUTO 3

/* The compare command: its progress lines and tables go to out, the runs' own reports
 * nowhere; with cfg->output (rank 0) the sbio-compare/1 document goes there. script (may be
 * NULL): run the script under every setting; one table per phase. A script whose options are
 * axes is loaded again for each setting with that setting's option values; each must declare
 * the phases and the file set the command line's values do. Returns 0; -SBIO_EUSAGE
 * (message printed, nothing changed) for bad input; -SBIO_EFAILED when a run failed (it is
 * marked and left out of the table) or the document could not be written; -EINTR when
 * interrupted (the table so far is printed, settings restored); -ENOMEM. */
struct sbio_topology;
int sbio_compare(const struct sbio_config *cfg, const struct sbio_topology *topo,
                 const struct sbio_script *script, FILE *out);

#endif
