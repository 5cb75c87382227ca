/* The tree's layout rule and its files' sizes (tree.h): pure functions, no I/O. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mix.h"
#include "tree.h"
#include "util.h"

uint64_t sbio_tree_decl_made(const struct sbio_tree_decl *d)
{
    uint64_t made = (uint64_t)llround(d->prealloc * (double)d->files);
    return made < d->files ? made : d->files;
}

int sbio_tree_shape(struct sbio_tree *t, const struct sbio_tree_decl *d, const char *dir,
                    uint64_t seed, const char *script)
{
    memset(t, 0, sizeof(*t));
    t->rootfd = -1;
    t->dir = dir;
    t->files = d->files;
    t->dirwidth = d->dirwidth;
    t->size = d->size;
    t->prealloc = d->prealloc;
    t->seed = seed;
    t->leaves = (d->files + d->dirwidth - 1) / d->dirwidth;
    t->prealloc_files = sbio_tree_decl_made(d);
    /* The fewest base-W digits that number every leaf: none for one leaf. */
    for (uint64_t reach = 1; reach < t->leaves; t->depth++)
        reach = reach > UINT64_MAX / d->dirwidth ? UINT64_MAX : reach * d->dirwidth;
    /* The longest path: DIR/sbio.tree/, then D folders d<W-1>/, then f<N-1>. */
    char num[32];
    size_t wdig = (size_t)snprintf(num, sizeof(num), "%" PRIu64, d->dirwidth - 1);
    size_t fdig = (size_t)snprintf(num, sizeof(num), "%" PRIu64, d->files - 1);
    size_t longest =
        strlen(dir) + 1 + strlen(SBIO_TREE_ROOT) + 1 + t->depth * (wdig + 2) + 1 + fdig;
    if (longest >= PATH_MAX) {
        /* --dir is not repeated: a message is cut at 1 KiB, and the folder can be long. */
        sbio_err("%s:%d: fileset: a tree of %" PRIu64 " files, %" PRIu64
                 " per folder, is %u folders deep: its longest path in --dir is %zu bytes, "
                 "above PATH_MAX (%d); make dirwidth larger or use a shorter --dir",
                 script, d->line, d->files, d->dirwidth, t->depth, longest, PATH_MAX);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* A standard normal draw (Box-Muller). */
static double tree_normal(uint64_t *rng)
{
    double u1 = sbio_mix_rand01(rng), u2 = sbio_mix_rand01(rng);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
}

/* A gamma draw of shape k, scale 1 (Marsaglia and Tsang; shape below 1 boosted by U^(1/k)). */
static double tree_gamma(uint64_t *rng, double k)
{
    double boost = 1.0;
    if (k < 1.0) {
        boost = pow(1.0 - sbio_mix_rand01(rng), 1.0 / k);
        k += 1.0;
    }
    double dd = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * dd);
    for (;;) {
        double x = tree_normal(rng), v = 1.0 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = 1.0 - sbio_mix_rand01(rng);
        if (log(u) < 0.5 * x * x + dd - dd * v + dd * log(v))
            return boost * dd * v;
    }
}

uint64_t sbio_tree_size(const struct sbio_tree *t, uint64_t s)
{
    const struct sbio_size_dist *z = &t->size;
    uint64_t rng = sbio_mix64(t->seed ^ sbio_mix64(s + 1));
    double v;
    switch (z->law) {
    case SBIO_SIZE_UNIFORM: return z->a + sbio_rand_below(&rng, z->b - z->a + 1);
    case SBIO_SIZE_LOGNORMAL:
        v = exp(log((double)z->a) - z->p * z->p / 2 + z->p * tree_normal(&rng));
        break;
    case SBIO_SIZE_GAMMA: {
        double k = 1.0 / (z->p * z->p);
        v = tree_gamma(&rng, k) * (double)z->a / k;
        break;
    }
    default: return z->a;
    }
    /* Whole bytes, at least one: a law's draw of 0.3 bytes is a file of 1. */
    return v < 1.0 ? 1 : v >= 0x1p62 ? (UINT64_C(1) << 62) : (uint64_t)llround(v);
}

int sbio_tree_leaf_path(const struct sbio_tree *t, uint64_t l, char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (unsigned i = t->depth; i > 0; i--) {
        uint64_t div = 1;
        for (unsigned k = 1; k < i; k++)
            div *= t->dirwidth;
        int w = snprintf(buf + n, n < len ? len - n : 0, "%sd%" PRIu64, n ? "/" : "",
                         l / div % t->dirwidth);
        if (w < 0 || (size_t)w >= (n < len ? len - n : 0))
            return -ENAMETOOLONG;
        n += (size_t)w;
    }
    return (int)n;
}

int sbio_tree_path(const struct sbio_tree *t, uint64_t s, char *buf, size_t len)
{
    int n = sbio_tree_leaf_path(t, s / t->dirwidth, buf, len);
    if (n < 0)
        return n;
    int w = snprintf(buf + n, len - (size_t)n, "%sf%" PRIu64, n ? "/" : "", s);
    if (w < 0 || (size_t)w >= len - (size_t)n)
        return -ENAMETOOLONG;
    return n + w;
}
