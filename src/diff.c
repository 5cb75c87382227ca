#include "diff.h"

#include "util.h"

int sbio_diff(const struct sbio_config *cfg)
{
    (void)cfg;
    sbio_err("diff: not implemented yet");
    return 2;
}
