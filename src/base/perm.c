#include "perm.h"

#include "util.h"

void sbio_perm_init(struct sbio_perm *p, uint64_t n, uint64_t key)
{
    /* Bits for n - 1, rounded up to even so that both halves have the same width. */
    unsigned bits = n > 1 ? 64u - (unsigned)__builtin_clzll(n - 1) : 0;
    bits += bits & 1u;
    p->n = n;
    p->half = bits / 2;
    p->mask = (1ULL << p->half) - 1;
    for (unsigned k = 0; k < SBIO_PERM_ROUNDS; k++)
        p->round[k] = sbio_mix64(key + k);
}

uint64_t sbio_perm_map(const struct sbio_perm *p, uint64_t i)
{
    if (p->n <= 1)
        return 0;
    uint64_t x = i;
    do {
        uint64_t l = x >> p->half, r = x & p->mask;
        for (unsigned k = 0; k < SBIO_PERM_ROUNDS; k++) {
            uint64_t t = r;
            r = l ^ (sbio_mix64(r ^ p->round[k]) & p->mask);
            l = t;
        }
        x = (l << p->half) | r;
    } while (x >= p->n); /* walking the cycle ends: x < n started it */
    return x;
}

uint64_t sbio_perm_at(uint64_t n, uint64_t key, uint64_t i)
{
    struct sbio_perm p;
    sbio_perm_init(&p, n, key);
    return sbio_perm_map(&p, i);
}

uint64_t sbio_perm_pass_key(uint64_t seed, uint64_t pass)
{
    return sbio_mix64(seed ^ sbio_mix64(pass + 0x9e3779b97f4a7c15ULL));
}
