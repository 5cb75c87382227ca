#include "mix.h"

#include <math.h>
#include <string.h>

#include "io.h"
#include "util.h"

const char *sbio_mix_op_name(int op)
{
    static const char *const own[SBIO_MIX_FS_FIRST] = {"read", "write", "fsync", "fdatasync",
                                                       "rmw"};
    if (op >= 0 && op < SBIO_MIX_FS_FIRST)
        return own[op];
    return op < SBIO_MIX_NR ? sbio_op_name(op - SBIO_MIX_FS_FIRST + SBIO_OP_FS_FIRST) : "?";
}

double sbio_mix_rand01(uint64_t *rng)
{
    return (double)(sbio_rand64(rng) >> 11) * 0x1.0p-53;
}

/* Zipf by rejection-inversion: H is an integral of the density x^-s, h the density. */
static double zipf_h(double s, double x)
{
    return exp(-s * log(x));
}

static double zipf_H(double s, double x)
{
    double lx = log(x);
    return expm1((1 - s) * lx) / (1 - s); /* (x^(1-s) - 1) / (1-s), accurate near s = 1 */
}

static double zipf_Hinv(double s, double y)
{
    double t = y * (1 - s);
    if (t < -1)
        t = -1; /* rounding at the end of the range */
    return exp(log1p(t) / (1 - s));
}

/* A size distribution: sizes and their cumulative shares, normalised to 1. Returns n. */
static unsigned mix_sizes(uint64_t *size, double *cum, const uint64_t *sizes, const double *weight,
                          unsigned n)
{
    double total = 0, acc = 0;
    for (unsigned i = 0; i < n; i++)
        total += weight[i];
    for (unsigned i = 0; i < n; i++) {
        size[i] = sizes[i];
        acc += weight[i];
        cum[i] = acc / total;
    }
    if (n)
        cum[n - 1] = 1;
    return n;
}

void sbio_mix_init(struct sbio_mix *m, const struct sbio_script_job *j, uint64_t n)
{
    memset(m, 0, sizeof(*m));
    double total = 0, acc = 0;
    for (int i = 0; i < SBIO_MIX_NR; i++)
        total += j->weight[i];
    for (int i = 0; i < SBIO_MIX_NR; i++) {
        acc += j->weight[i];
        m->op_cum[i] = total > 0 ? acc / total : (i == SBIO_MIX_READ);
    }
    m->op_cum[SBIO_MIX_NR - 1] = 1; /* rounding must not leave a gap */
    m->single = -1;
    for (int i = 0; i < SBIO_MIX_NR && m->single < 0; i++)
        if (m->op_cum[i] >= 1 && (i == 0 || m->op_cum[i - 1] <= 0))
            m->single = i;
    m->nblocks = mix_sizes(m->block, m->block_cum, j->block, j->block_weight, j->nblocks);
    if (j->nappend)
        m->nappend = mix_sizes(m->append, m->append_cum, j->append, j->append_weight, j->nappend);
    else
        m->nappend = mix_sizes(m->append, m->append_cum, j->block, j->block_weight, j->nblocks);
    m->nflow = j->nflow;
    memcpy(m->flow, j->flow, sizeof(m->flow));
    m->pattern = j->pattern;
    m->pa = j->pa;
    m->pb = j->pb;
    sbio_mix_set_blocks(m, n);
    if (m->pattern == SBIO_PAT_PARETO)
        m->pareto_k = log(m->pa) / log(1 - m->pa);
}

void sbio_mix_set_blocks(struct sbio_mix *m, uint64_t n)
{
    if (m->pattern != SBIO_PAT_ZIPF || !n)
        return;
    double s = m->pa;
    m->zn = n;
    m->z_hx1 = zipf_H(s, 1.5) - 1;
    m->z_hn = zipf_H(s, (double)n + 0.5);
    m->z_s = 2 - zipf_Hinv(s, zipf_H(s, 2.5) - zipf_h(s, 2));
}

enum sbio_mix_op sbio_mix_op(const struct sbio_mix *m, uint64_t *rng)
{
    /* One operation only: no draw, so the block is the thread's first draw per op. */
    if (m->single >= 0)
        return (enum sbio_mix_op)m->single;
    double u = sbio_mix_rand01(rng);
    for (int i = 0; i < SBIO_MIX_NR - 1; i++)
        if (u < m->op_cum[i])
            return (enum sbio_mix_op)i;
    return SBIO_MIX_NR - 1;
}

/* A draw from n sizes with cumulative shares cum. */
static uint64_t mix_draw_size(const uint64_t *size, const double *cum, unsigned n, uint64_t *rng)
{
    if (n <= 1)
        return size[0];
    double u = sbio_mix_rand01(rng);
    for (unsigned i = 0; i + 1 < n; i++)
        if (u < cum[i])
            return size[i];
    return size[n - 1];
}

uint64_t sbio_mix_size(const struct sbio_mix *m, uint64_t *rng)
{
    return mix_draw_size(m->block, m->block_cum, m->nblocks, rng);
}

uint64_t sbio_mix_append_size(const struct sbio_mix *m, uint64_t *rng)
{
    return mix_draw_size(m->append, m->append_cum, m->nappend, rng);
}

uint64_t sbio_mix_max_len(const struct sbio_mix *m)
{
    uint64_t big = 0;
    for (unsigned i = 0; i < m->nblocks; i++)
        big = m->block[i] > big ? m->block[i] : big;
    for (unsigned i = 0; i < m->nappend; i++)
        big = m->append[i] > big ? m->append[i] : big;
    return big;
}

static uint64_t zipf_sample(const struct sbio_mix *m, uint64_t *rng)
{
    double s = m->pa;
    for (;;) {
        double u = m->z_hn + sbio_mix_rand01(rng) * (m->z_hx1 - m->z_hn);
        double x = zipf_Hinv(s, u);
        double k = floor(x + 0.5);
        if (k < 1)
            k = 1;
        else if (k > (double)m->zn)
            k = (double)m->zn;
        if (k - x <= m->z_s || u >= zipf_H(s, k + 0.5) - zipf_h(s, k))
            return (uint64_t)k - 1;
    }
}

uint64_t sbio_mix_block(const struct sbio_mix *m, uint64_t *rng, uint64_t n, uint64_t *seq)
{
    uint64_t b;
    switch (m->pattern) {
    case SBIO_PAT_SEQ: b = (*seq)++ % n; return b;
    case SBIO_PAT_ZIPF:
        /* Ranks past n are drawn again: the law truncated to its first n ranks is the same
         * power law over n blocks. */
        do
            b = zipf_sample(m, rng);
        while (b >= n && b < m->zn);
        return b;
    case SBIO_PAT_PARETO:
        b = (uint64_t)((double)n * pow(sbio_mix_rand01(rng), m->pareto_k));
        return b < n ? b : n - 1;
    case SBIO_PAT_GAUSSIAN:
        for (;;) {
            /* Box–Muller; outside the set is redrawn (a truncated normal). */
            double u1 = sbio_mix_rand01(rng), u2 = sbio_mix_rand01(rng);
            double z = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
            double x = (double)n / 2 + z * m->pa * (double)n;
            if (x >= 0 && x < (double)n)
                return (uint64_t)x;
        }
    case SBIO_PAT_HOT: {
        /* The nearest whole number of blocks: truncating would make 0.57 of 100 blocks 56
         * (0.57 * 100 is 56.99999999999999 in doubles). */
        uint64_t hot = (uint64_t)(m->pa * (double)n + 0.5);
        if (hot < 1)
            hot = 1;
        if (hot >= n)
            return sbio_rand_below(rng, n);
        if (sbio_mix_rand01(rng) < m->pb)
            return sbio_rand_below(rng, hot);
        return hot + sbio_rand_below(rng, n - hot);
    }
    default: return sbio_rand_below(rng, n);
    }
}

const char *sbio_pattern_name(int pattern)
{
    static const char *const n[] = {"uniform", "seq", "zipf", "pareto", "gaussian", "hot"};
    return pattern >= 0 && pattern <= SBIO_PAT_HOT ? n[pattern] : "?";
}
