/* A random order that visits every index of 0 .. n-1 once: a keyed bijection in O(1) memory,
 * for --random-order=once (fio's random map, without the map).
 *
 * The index is enciphered by a four-round Feistel network over the smallest even number of
 * bits that holds n - 1, and re-enciphered while it falls outside the range (cycle-walking):
 * the result is a permutation of 0 .. n-1 for every key, a different one for each key. The
 * domain is at most 4n, so fewer than four rounds of walking are needed on average. */
#ifndef SBIO_PERM_H
#define SBIO_PERM_H

#include <stdint.h>

#define SBIO_PERM_ROUNDS 4

/* One permutation, its round keys derived once (a thread keeps the current pass's). */
struct sbio_perm {
    uint64_t n, mask;
    unsigned half;
    uint64_t round[SBIO_PERM_ROUNDS];
};

/* The permutation of 0 .. n-1 chosen by key. n >= 1. */
void sbio_perm_init(struct sbio_perm *p, uint64_t n, uint64_t key);

/* Its i-th index (i < n). */
uint64_t sbio_perm_map(const struct sbio_perm *p, uint64_t i);

/* sbio_perm_map of a permutation made for the one call. */
uint64_t sbio_perm_at(uint64_t n, uint64_t key, uint64_t i);

/* The key of pass number pass over a set, from the run's seed: each pass its own order. */
uint64_t sbio_perm_pass_key(uint64_t seed, uint64_t pass);

#endif
