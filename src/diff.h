/* sbio diff: per-metric differences between two saved results. */
#ifndef SBIO_DIFF_H
#define SBIO_DIFF_H

#include "options.h"

/* Compare cfg->args[0] (A, the baseline) with cfg->args[1] (B): each a JSON written by
 * `sbio run -o` (schema sbio-result/1) or `sbio compare -o` (sbio-compare/1). Prints one row
 * per metric: A, B and the % difference, marked worse/better. With --threshold=P (given
 * explicitly), returns 1 when any throughput metric (ops/s, MiB/s) of B is more than P%
 * below A's. Returns 0, 1, or 2 for bad input (a file that is not an sbio result, two
 * results of different kinds, not exactly two files) with one line on stderr. */
int sbio_diff(const struct sbio_config *cfg);

#endif
