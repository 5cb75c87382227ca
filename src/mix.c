#include "mix.h"

#include <math.h>
#include <string.h>

#include "util.h"

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
    double btotal = 0, bacc = 0;
    m->nblocks = j->nblocks;
    for (unsigned i = 0; i < j->nblocks; i++)
        btotal += j->block_weight[i];
    for (unsigned i = 0; i < j->nblocks; i++) {
        m->block[i] = j->block[i];
        bacc += j->block_weight[i];
        m->block_cum[i] = bacc / btotal;
    }
    if (m->nblocks)
        m->block_cum[m->nblocks - 1] = 1;
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
    for (int i = 0; i < SBIO_MIX_NR; i++)
        if (m->op_cum[i] >= 1 && (i == 0 || m->op_cum[i - 1] <= 0))
            return (enum sbio_mix_op)i;
    double u = sbio_mix_rand01(rng);
    for (int i = 0; i < SBIO_MIX_NR - 1; i++)
        if (u < m->op_cum[i])
            return (enum sbio_mix_op)i;
    return SBIO_MIX_NR - 1;
}

uint64_t sbio_mix_size(const struct sbio_mix *m, uint64_t *rng)
{
    if (m->nblocks <= 1)
        return m->block[0];
    double u = sbio_mix_rand01(rng);
    for (unsigned i = 0; i + 1 < m->nblocks; i++)
        if (u < m->block_cum[i])
            return m->block[i];
    return m->block[m->nblocks - 1];
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
