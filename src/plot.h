/* sbio plot: charts of JSON results through gnuplot. */
#ifndef SBIO_PLOT_H
#define SBIO_PLOT_H

#include "options.h"

/* Chart the results named by cfg->args (JSON files written by `sbio run -o X.json`, or one
 * written by `sbio compare -o X.json`) into cfg->output (PNG, or SVG when the name ends in
 * .svg; 1200x800 unless --size). One result: throughput over time and latency percentiles
 * per op type (log scale); several: side-by-side bars of ops/s and p99 per run, each named
 * by the device settings that differ between the runs (scheduler, queue files, tunables:
 * "scheduler=bfq nr_requests=64"), by its file name when none do. A compare result, alone: one slot
 * per setting, named after it, from the settings' summaries (failed runs are already left out of
 * them) — on top, ops/s as bars with ±stddev error bars, the baseline (first setting) grey, each
 * other bar marked with its difference to the baseline, "*" when Welch's test finds it significant,
 * and its number of runs; below, p99 per op type with ±stddev error bars (log scale); a setting
 * without a successful run is an empty slot saying so. --keep-data DIR keeps the data files
 * (settings.dat for a compare) and the gnuplot script. Nothing goes to stdout (hence no FILE*
 * as the other commands take): the chart and the kept files are the output. Returns 0 (util.h's
 * codes); -SBIO_EUSAGE (message printed) for bad input (a file that is not an sbio result, a
 * compare result mixed with other results, no output name, gnuplot missing: the message names
 * the Debian package); -EIO when gnuplot fails; -errno when the data folder, a file or
 * gnuplot's process cannot be made. */
int sbio_plot(const struct sbio_config *cfg);

#endif
