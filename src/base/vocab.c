#include "vocab.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

const char *sbio_vocab_word(const char *choices, int n, char *buf, size_t len)
{
    const char *p = choices;
    for (int i = 0; i < n && p; i++) {
        p = strchr(p, '|');
        if (p)
            p++;
    }
    if (!p || n < 0)
        return NULL;
    size_t l = strcspn(p, "|");
    if (l >= len)
        l = len - 1;
    memcpy(buf, p, l);
    buf[l] = 0;
    return buf;
}

/* Word v of choices in one of a few buffers used in turn: one message may hold several
 * names, and a single buffer would print the last one twice. */
static const char *vocab_name(const char *choices, int v)
{
    static _Thread_local char bufs[4][32];
    static _Thread_local unsigned next;
    char *buf = bufs[next++ % 4];
    return sbio_vocab_word(choices, v, buf, sizeof(bufs[0])) ? buf : "?";
}

const char *sbio_mode_name(int mode)
{
    return mode == SBIO_MODE_NONE ? "(none)" : vocab_name(SBIO_MODE_CHOICES, mode);
}

bool sbio_mode_writes(int mode)
{
    return mode == SBIO_MODE_SEQWR || mode == SBIO_MODE_SEQREWR || mode == SBIO_MODE_RNDWR ||
           mode == SBIO_MODE_RNDRW;
}

bool sbio_mode_reads(int mode)
{
    return mode == SBIO_MODE_SEQRD || mode == SBIO_MODE_RNDRD || mode == SBIO_MODE_RNDRW;
}

bool sbio_mode_sequential(int mode)
{
    return mode == SBIO_MODE_SEQWR || mode == SBIO_MODE_SEQREWR || mode == SBIO_MODE_SEQRD;
}

const char *sbio_fill_name(int fill)
{
    static const char *const n[] = {"random", "zero", "compressible"};
    return fill >= 0 && fill < 3 ? n[fill] : "?";
}

const char *sbio_fadvise_name(int hint)
{
    return vocab_name(SBIO_FADVISE_CHOICES, hint);
}

const char *sbio_random_order_name(int order)
{
    return vocab_name(SBIO_RANDOM_ORDER_CHOICES, order);
}

const char *const sbio_cmd_names[SBIO_CMD_NR] = {
    [SBIO_CMD_NONE] = "",           [SBIO_CMD_PREPARE] = "prepare", [SBIO_CMD_RUN] = "run",
    [SBIO_CMD_CLEANUP] = "cleanup", [SBIO_CMD_COMPARE] = "compare", [SBIO_CMD_DIFF] = "diff",
    [SBIO_CMD_SURVEY] = "survey",   [SBIO_CMD_PLOT] = "plot",       [SBIO_CMD_RESTORE] = "restore",
    [SBIO_CMD_HELP] = "help",       [SBIO_CMD_VERSION] = "version",
};

const char *sbio_cmd_name(enum sbio_cmd cmd)
{
    return cmd < SBIO_CMD_NR ? sbio_cmd_names[cmd] : "?";
}

const char *const sbio_extra_flag_names[SBIO_XF_NR] = {"sync", "dsync", "direct"};

int sbio_extra_flag(const char *name)
{
    for (unsigned i = 0; i < SBIO_XF_NR; i++)
        if (!strcmp(name, sbio_extra_flag_names[i]))
            return (int)(1u << i);
    return 0;
}

int sbio_extra_sync_oflags(unsigned flags)
{
    return (flags & SBIO_XF_SYNC ? O_SYNC : 0) | (flags & SBIO_XF_DSYNC ? O_DSYNC : 0);
}

char *sbio_extra_flags_str(char *buf, size_t len, unsigned flags)
{
    buf[0] = 0;
    for (unsigned i = 0; i < SBIO_XF_NR; i++) {
        if (!(flags & (1u << i)))
            continue;
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", l ? "," : "", sbio_extra_flag_names[i]);
    }
    if (!buf[0])
        snprintf(buf, len, "(none)");
    return buf;
}
