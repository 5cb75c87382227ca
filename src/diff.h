/* sbio diff: per-metric differences between two saved results. */
#ifndef SBIO_DIFF_H
#define SBIO_DIFF_H

#include <stdio.h>

#include "options.h"

/* Compare cfg->args[0] (A, the baseline) with cfg->args[1] (B): each a JSON written by
 * `sbio run -o` (schema sbio-result/1) or `sbio compare -o` (sbio-compare/1). Writes to out,
 * for two run results first every device setting that differs (scheduler, queue files,
 * scheduler tunables; older results too), then one row per metric: A, B and the %
 * difference, marked worse/better. Returns 0;
 * -SBIO_EFAILED when --threshold=P is given explicitly and a throughput metric (ops/s, MiB/s)
 * of B is more than P% below A's (each named in one line on stderr after the table);
 * -SBIO_EUSAGE for bad input (a file that is not an sbio result, two results of different
 * kinds, not exactly two files) with one line on stderr and nothing written to out. */
int sbio_diff(const struct sbio_config *cfg, FILE *out);

#endif
