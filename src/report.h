/* Reports: the text report of a run and the interim lines. (JSON and CSV come with the
 * results work.) */
#ifndef SBIO_REPORT_H
#define SBIO_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "environment.h"
#include "fileset.h"
#include "options.h"
#include "stats.h"
#include "sysblock.h"
#include "topology.h"

struct sbio_run_result;

/* The header printed before the run starts: configuration, set, seed. */
void sbio_report_header(FILE *out, const struct sbio_config *cfg, const struct sbio_topology *topo,
                        const struct sbio_fileset *fs, uint64_t seed);

/* One interim line: the interval between prev and cur (both totals over all threads). */
void sbio_report_interval(FILE *out, const struct sbio_config *cfg, double t_s, double interval_s,
                          const struct sbio_stats *cur, const struct sbio_stats *prev);

/* The final text report. */
void sbio_report_text(FILE *out, const struct sbio_config *cfg, const struct sbio_fileset *fs,
                      const struct sbio_run_result *res);

/* The environment part of the JSON document, from the snapshot taken before the run, while
 * the settings sbio applied were still in effect. */
json_t *sbio_json_environment(const struct sbio_environment *e);

/* The settings of a device object of environment.devices as one flat object: each queue
 * file and each iosched tunable ("iosched/NAME"), an integer when the kernel printed one,
 * the scheduler by its name ("mq-deadline", not the kernel's whole line). Built from the
 * device's queue and iosched objects, so a document without "settings" gives them too.
 * A new reference. */
json_t *sbio_json_device_settings(json_t *dev);

/* The whole result document (schema sbio-result/1, see doc/json.md). env is referenced,
 * not stolen. The caller json_decref()s the result. */
json_t *sbio_json_result(const struct sbio_config *cfg, const struct sbio_fileset *fs,
                         const struct sbio_run_result *res, json_t *env);

/* The value at a dotted path ("result.op_types.read.latency.percentiles_ns.99.9"; array
 * elements by index), or NULL. Keys containing dots are found whole. */
json_t *sbio_json_get(json_t *doc, const char *path);

/* Write the document, indented. 0 or -EIO. */
int sbio_report_json(FILE *out, json_t *doc);

/* One CSV line of the document's main figures (with the header line first when asked):
 * every value is taken from the JSON document, so the two agree. 0 or -EIO. */
int sbio_report_csv(FILE *out, json_t *doc, bool header);

#endif
