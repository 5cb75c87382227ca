#include "plot.h"

#include <errno.h>

#include "util.h"

int sbio_plot(const struct sbio_config *cfg)
{
    (void)cfg;
    sbio_err("plot: not implemented yet");
    return -SBIO_EUSAGE;
}
