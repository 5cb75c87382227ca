/* Declarative mixes compiled for the C hot path: the operation by weight, the request size
 * from a distribution, and the block from an access pattern — no Lua call per operation.
 *
 * Patterns over n blocks (index 0 .. n-1):
 *  - uniform: every block equally likely;
 *  - seq: blocks in order, wrapping (per thread);
 *  - zipf:THETA (THETA > 0, not 1): P(rank k) ∝ k^-THETA, rank 1 = block 0 (the hot blocks
 *    sit at the start of the set), sampled in O(1) by rejection-inversion (Hörmann and
 *    Derflinger), so a set of any size costs nothing to prepare;
 *  - pareto:H (0 < H < 1): the power law under which a fraction H of the blocks (the first
 *    ones) take a fraction 1-H of the accesses (pareto:0.2 is the 80/20 rule);
 *  - gaussian:SIGMA: normal around the middle of the set, SIGMA a fraction of the set;
 *  - hot:F:S: a fraction S of the accesses go uniformly to the first fraction F of the
 *    blocks, the rest uniformly to the others. */
#ifndef SBIO_MIX_H
#define SBIO_MIX_H

#include <stdint.h>

#include "decl.h"

struct sbio_mix {
    double op_cum[SBIO_MIX_NR]; /* cumulative weights, normalised to 1 */
    int single;                 /* the only operation with a weight, or -1 */
    unsigned nblocks;
    uint64_t block[SBIO_SCRIPT_MAX_BLOCKS];
    double block_cum[SBIO_SCRIPT_MAX_BLOCKS];
    int pattern;
    double pa, pb;
    /* zipf: constants of the rejection-inversion sampler for n blocks */
    uint64_t zn;
    double z_hx1, z_hn, z_s;
    /* pareto: the exponent giving P(index < H n) = 1 - H */
    double pareto_k;
    /* A tree job (fsop.h): the append sizes (the block sizes when the job declares none),
     * and the flow, its operations in order (nflow 0: drawn by weight). */
    unsigned nappend;
    uint64_t append[SBIO_SCRIPT_MAX_BLOCKS];
    double append_cum[SBIO_SCRIPT_MAX_BLOCKS];
    unsigned nflow;
    unsigned char flow[SBIO_SCRIPT_MAX_FLOW]; /* enum sbio_mix_op */
};

/* Compile job j for a set of n blocks (of the job's smallest block size). */
void sbio_mix_init(struct sbio_mix *m, const struct sbio_script_job *j, uint64_t n);

/* Set up the pattern for sets of up to n blocks (zipf's sampler is built for its n): a
 * thread that draws among fewer (its own blocks under --verify) passes its count to
 * sbio_mix_block. */
void sbio_mix_set_blocks(struct sbio_mix *m, uint64_t n);

/* The next operation, size and block (0 .. n-1, n at most the blocks the mix was set up
 * for). rng: the thread's PRNG state; seq: the thread's position for the seq pattern. */
enum sbio_mix_op sbio_mix_op(const struct sbio_mix *m, uint64_t *rng);
uint64_t sbio_mix_size(const struct sbio_mix *m, uint64_t *rng);
uint64_t sbio_mix_append_size(const struct sbio_mix *m, uint64_t *rng);

/* The largest request the mix makes: its largest block, or append size. */
uint64_t sbio_mix_max_len(const struct sbio_mix *m);
uint64_t sbio_mix_block(const struct sbio_mix *m, uint64_t *rng, uint64_t n, uint64_t *seq);

/* How a script names mix operation op (enum sbio_mix_op): "read", "write", "fsync",
 * "fdatasync", "rmw", then the file-system operations as sbio_op_name says them. */
const char *sbio_mix_op_name(int op);

/* A uniform double in [0, 1) from the thread's PRNG. */
double sbio_mix_rand01(uint64_t *rng);

/* The name of an access pattern (enum sbio_pattern), as scripts spell it. */
const char *sbio_pattern_name(int pattern);

#endif
