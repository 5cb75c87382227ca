/* sbio plot: charts of JSON results through gnuplot. */
#ifndef SBIO_PLOT_H
#define SBIO_PLOT_H

/* What plot is given: its files, where the chart goes, its size, where gnuplot's data is kept. */
struct sbio_plot_opts {
    int nargs;
    const char *const *args;
    const char *output;
    const char *plot_size; /* WIDTHxHEIGHT, or NULL */
    const char *keep_data; /* a folder, or NULL */
    const char *format;    /* "png", "svg" or "html"; NULL: -o's extension says */
};

/* Chart the results named by opt->args (JSON files written by `sbio run -o X.json`, or one
 * written by `sbio compare -o X.json`) into opt->output (PNG, or SVG when the name ends in
 * .svg; 1200x800 unless --size). One result: throughput over time and latency percentiles
 * per op type (log scale); several: side-by-side bars of ops/s and p99 per run, each named
 * by the device settings that differ between the runs (scheduler, queue files, tunables:
 * "scheduler=bfq nr_requests=64"), by its file name when none do. A compare result, alone: per
 * phase a row of panels per job (and the jobs' total when there are several) — above, each
 * setting's bar of the compare's throughput metric (ops/s, or MiB/s when its --metrics put mib
 * before ops) with its 95% CI, the baseline (first setting) grey, each other bar marked with its
 * difference to the baseline and the difference's CI, "*" when significant after Holm's
 * correction, pale when not, every run a point and a marked outlier a cross; below, each
 * setting's p50/p95/p99/p99.9 of each op type the job did, means over the runs with their CIs,
 * on a log scale. The bars are the compare's own figures; the percentiles come from the runs'
 * documents through table.h, as compare computes its columns. A setting without a successful
 * run is an empty slot saying so. --keep-data DIR keeps the data files (a compare's:
 * phaseP-jobJ-throughput.dat and phaseP-jobJ-latency.dat per job, phaseP-total-… for the
 * total) and the gnuplot script. Nothing goes to stdout (hence no FILE* as the other commands
 * take): the chart and the kept files are the output. Returns 0 (util.h's codes); -SBIO_EUSAGE
 * (message printed) for bad input (a file that is not an sbio result, a compare result without
 * its settings' phases and jobs, or mixed with other results, no output name, gnuplot missing:
 * the message names the Debian package); -EIO when gnuplot fails; -errno when the data folder, a
 * file or gnuplot's process cannot be made. */
int sbio_plot(const struct sbio_plot_opts *opt);

#endif
