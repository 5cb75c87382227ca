/* sbio survey: the command (its battery, plan and matrix: matrix.h). */
#ifndef SBIO_SURVEY_H
#define SBIO_SURVEY_H

#include <stdio.h>

#include "matrix.h"
#include "options.h"

/* The survey command. 0; -SBIO_EUSAGE (one line, nothing touched); -SBIO_EFAILED (a
 * workload failed; the others are reported); -EINTR (interrupted: what was measured is
 * reported, the settings restored by each compare). */
int sbio_survey(const struct sbio_config *cfg, FILE *out);

#endif
