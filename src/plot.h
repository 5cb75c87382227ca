/* sbio plot: charts of JSON results through gnuplot. */
#ifndef SBIO_PLOT_H
#define SBIO_PLOT_H

#include "options.h"

/* Chart the results named by cfg->args (JSON files written by `sbio run -o X.json`) into
 * cfg->output (PNG, or SVG when the name ends in .svg; 1200x800 unless --size). One result:
 * throughput over time and latency percentiles per op type (log scale); several: side-by-side
 * bars of ops/s and p99 per run, named after the files. --keep-data DIR keeps the data files
 * and the gnuplot script. Returns 0; -SBIO_EUSAGE (message printed) for bad input (a file
 * that is not an sbio result, no output name, gnuplot missing: the message names the Debian
 * package); -errno when gnuplot fails. */
int sbio_plot(const struct sbio_config *cfg);

#endif
