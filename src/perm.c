#include "perm.h"

#include "util.h"

#define PERM_ROUNDS 4

uint64_t sbio_perm_at(uint64_t n, uint64_t key, uint64_t i)
{
    if (n <= 1)
        return 0;
    /* Bits for n - 1, rounded up to even so that both halves have the same width. */
    unsigned bits = 64u - (unsigned)__builtin_clzll(n - 1);
    bits += bits & 1u;
    unsigned half = bits / 2;
    uint64_t mask = (1ULL << half) - 1;
    uint64_t x = i;
    do {
        uint64_t l = x >> half, r = x & mask;
        for (unsigned k = 0; k < PERM_ROUNDS; k++) {
            uint64_t f = sbio_mix64(r ^ sbio_mix64(key + k)) & mask;
            uint64_t t = r;
            r = l ^ f;
            l = t;
        }
        x = (l << half) | r;
    } while (x >= n); /* walking the cycle ends: x < n started it */
    return x;
}

uint64_t sbio_perm_pass_key(uint64_t seed, uint64_t pass)
{
    return sbio_mix64(seed ^ sbio_mix64(pass + 0x9e3779b97f4a7c15ULL));
}
