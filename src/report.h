/* Reports: the text report of a run and the interim lines. (JSON and CSV come with the
 * results work.) */
#ifndef SBIO_REPORT_H
#define SBIO_REPORT_H

#include <stdio.h>

#include "fileset.h"
#include "options.h"
#include "stats.h"

struct sbio_run_result;

/* The header printed before the run starts: configuration, set, seed. */
void sbio_report_header(FILE *out, const struct sbio_config *cfg, const struct sbio_fileset *fs,
                        uint64_t seed);

/* One interim line: the interval between prev and cur (both totals over all threads). */
void sbio_report_interval(FILE *out, const struct sbio_config *cfg, double t_s, double interval_s,
                          const struct sbio_stats *cur, const struct sbio_stats *prev);

/* The final text report. */
void sbio_report_text(FILE *out, const struct sbio_config *cfg, const struct sbio_fileset *fs,
                      const struct sbio_run_result *res);

#endif
