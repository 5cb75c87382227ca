/* sbio plot R.json -o report.html: one self-contained HTML file of a run, a compare or a
 * survey — its tables, inline SVG charts, the machine and every device setting read back —
 * that a person can open in a browser or attach to a mail. No script, no file or address
 * outside it (its Content-Security-Policy allows none); every text of a document is escaped,
 * as a document is untrusted. */
#ifndef SBIO_HTML_H
#define SBIO_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_t;
struct sbio_survey_matrix;

/* One document plot has read and checked: a run's result (sbio-result/1), a compare's
 * (sbio-compare/1: compare true) or a survey's (sbio-survey/1: its matrix, computed again). */
struct sbio_html_doc {
    const char *path;
    struct json_t *doc;
    bool compare;
    const struct sbio_survey_matrix *survey;
};

/* The report of docs[0..n) (several runs, or one compare, or one survey) to out. 0, or -EIO
 * when out could not be written. */
int sbio_html_report(const struct sbio_html_doc *docs, size_t n, FILE *out);

#endif
