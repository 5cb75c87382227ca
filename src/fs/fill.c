#include "fill.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "manifest.h" /* struct sbio_fileset */
#include "util.h"
#include "vocab.h"

/* The xorshift state a chunk's bytes start from. */
static uint64_t fill_state(const struct sbio_fileset *fs, unsigned file, uint64_t chunk)
{
    return sbio_mix64(fs->seed ^ sbio_mix64(((uint64_t)file << 40) ^ chunk));
}

/* Four whole chunks from `chunk` on, straight into out: four independent xorshift chains
 * keep the CPU busy where one serial chain leaves it waiting (prepare is bound by this
 * loop). The bytes are those fill_chunk gives each chunk. */
static void fill_chunks4(const struct sbio_fileset *fs, unsigned file, uint64_t chunk,
                         unsigned char *out, uint64_t zeros)
{
    uint64_t st[4];
    for (int k = 0; k < 4; k++)
        st[k] = fill_state(fs, file, chunk + k);
    for (size_t w = 0; w < SBIO_FILL_CHUNK / 8; w++)
        for (int k = 0; k < 4; k++) {
            uint64_t v = sbio_rand64(&st[k]);
            memcpy(out + k * SBIO_FILL_CHUNK + w * 8, &v, 8);
        }
    if (zeros)
        for (int k = 0; k < 4; k++)
            memset(out + k * SBIO_FILL_CHUNK, 0, zeros);
}

#if defined(__x86_64__)
/* The four-chain fill with the chains in AVX2 registers, four chunks (one group) to a
 * register: the xorshift steps are vector shifts and xors, the 64-bit multiply is made of
 * three 32-bit ones, and every four steps a 4 x 4 transpose gives each chunk 32 contiguous
 * bytes. Two groups are stepped side by side when there are eight chunks: one group's steps
 * wait on each other, two fill the wait. Same bytes as fill_chunks4, about a quarter of its
 * CPU time (prepare's helper thread competes with the writer for the CPU). */
#define FILL_AVX2 __attribute__((target("avx2")))

FILL_AVX2 static inline __m256i fill_avx2_step(__m256i *s)
{
    const __m256i mlo = _mm256_set1_epi64x(0x4F6CDD1DLL), mhi = _mm256_set1_epi64x(0x2545F491LL);
    __m256i x = *s;
    x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 12));
    x = _mm256_xor_si256(x, _mm256_slli_epi64(x, 25));
    x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 27));
    *s = x;
    __m256i cross =
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), mlo), _mm256_mul_epu32(x, mhi));
    return _mm256_add_epi64(_mm256_mul_epu32(x, mlo), _mm256_slli_epi64(cross, 32));
}

/* Four steps of a group (v[j]: step j of chunks 0-3) as 32 bytes of each of its chunks. */
FILL_AVX2 static inline void fill_avx2_store(const __m256i v[4], unsigned char *o)
{
    __m256i t0 = _mm256_unpacklo_epi64(v[0], v[1]), t1 = _mm256_unpackhi_epi64(v[0], v[1]);
    __m256i t2 = _mm256_unpacklo_epi64(v[2], v[3]), t3 = _mm256_unpackhi_epi64(v[2], v[3]);
    _mm256_storeu_si256((__m256i *)o, _mm256_permute2x128_si256(t0, t2, 0x20));
    _mm256_storeu_si256((__m256i *)(o + SBIO_FILL_CHUNK), _mm256_permute2x128_si256(t1, t3, 0x20));
    _mm256_storeu_si256((__m256i *)(o + 2 * SBIO_FILL_CHUNK),
                        _mm256_permute2x128_si256(t0, t2, 0x31));
    _mm256_storeu_si256((__m256i *)(o + 3 * SBIO_FILL_CHUNK),
                        _mm256_permute2x128_si256(t1, t3, 0x31));
}

FILL_AVX2 static inline __m256i fill_avx2_states(const struct sbio_fileset *fs, unsigned file,
                                                 uint64_t chunk)
{
    return _mm256_set_epi64x(
        (long long)fill_state(fs, file, chunk + 3), (long long)fill_state(fs, file, chunk + 2),
        (long long)fill_state(fs, file, chunk + 1), (long long)fill_state(fs, file, chunk));
}

/* Four whole chunks from `chunk` on. */
FILL_AVX2 static void fill_chunks4_avx2(const struct sbio_fileset *fs, unsigned file,
                                        uint64_t chunk, unsigned char *out)
{
    __m256i s = fill_avx2_states(fs, file, chunk), v[4];
    for (size_t off = 0; off < SBIO_FILL_CHUNK; off += 32) {
        for (int j = 0; j < 4; j++)
            v[j] = fill_avx2_step(&s);
        fill_avx2_store(v, out + off);
    }
}

/* Eight whole chunks from `chunk` on: two groups side by side. */
FILL_AVX2 static void fill_chunks8_avx2(const struct sbio_fileset *fs, unsigned file,
                                        uint64_t chunk, unsigned char *out)
{
    __m256i a = fill_avx2_states(fs, file, chunk), b = fill_avx2_states(fs, file, chunk + 4);
    __m256i va[4], vb[4];
    for (size_t off = 0; off < SBIO_FILL_CHUNK; off += 32) {
        for (int j = 0; j < 4; j++) {
            va[j] = fill_avx2_step(&a);
            vb[j] = fill_avx2_step(&b);
        }
        fill_avx2_store(va, out + off);
        fill_avx2_store(vb, out + 4 * SBIO_FILL_CHUNK + off);
    }
}
#endif

/* n (4 or 8) whole chunks from `chunk` on, by the fastest path this CPU has. */
static void fill_chunks_any(const struct sbio_fileset *fs, unsigned file, uint64_t chunk,
                            unsigned char *out, uint64_t zeros, unsigned n)
{
#if defined(__x86_64__)
    /* Racing first calls store the same answer; relaxed atomics keep that defined. */
    static int avx2 = -1;
    int have = __atomic_load_n(&avx2, __ATOMIC_RELAXED);
    if (have < 0) {
        have = __builtin_cpu_supports("avx2");
        __atomic_store_n(&avx2, have, __ATOMIC_RELAXED);
    }
    if (have) {
        if (n == 8)
            fill_chunks8_avx2(fs, file, chunk, out);
        else
            fill_chunks4_avx2(fs, file, chunk, out);
        if (zeros)
            for (unsigned k = 0; k < n; k++)
                memset(out + k * SBIO_FILL_CHUNK, 0, zeros);
        return;
    }
#endif
    for (unsigned k = 0; k < n; k += 4)
        fill_chunks4(fs, file, chunk + k, out + k * SBIO_FILL_CHUNK, zeros);
}

/* Bytes [in, in + n) of chunk `chunk` into out. */
static void fill_chunk(const struct sbio_fileset *fs, unsigned file, uint64_t chunk, uint64_t in,
                       uint64_t n, unsigned char *out, uint64_t zeros)
{
    uint64_t words[SBIO_FILL_CHUNK / 8];
    uint64_t st = fill_state(fs, file, chunk);
    for (size_t w = 0; w < SBIO_FILL_CHUNK / 8; w++)
        words[w] = sbio_rand64(&st);
    if (zeros)
        memset(words, 0, zeros);
    memcpy(out, (unsigned char *)words + in, n);
}

void sbio_fill_range(const struct sbio_fileset *fs, unsigned file, uint64_t off, void *buf,
                     uint64_t len)
{
    unsigned char *out = buf;
    if (fs->fill == SBIO_FILL_ZERO) {
        memset(out, 0, len);
        return;
    }
    uint64_t zeros = fs->fill == SBIO_FILL_COMPRESSIBLE ? SBIO_FILL_CHUNK * fs->fill_pct / 100 : 0;
    while (len >= 4 * SBIO_FILL_CHUNK && off % SBIO_FILL_CHUNK == 0) {
        unsigned n = len >= 8 * SBIO_FILL_CHUNK ? 8 : 4;
        fill_chunks_any(fs, file, off / SBIO_FILL_CHUNK, out, zeros, n);
        out += n * SBIO_FILL_CHUNK;
        off += n * SBIO_FILL_CHUNK;
        len -= n * SBIO_FILL_CHUNK;
    }
    while (len) {
        uint64_t in = off % SBIO_FILL_CHUNK;
        uint64_t n = SBIO_FILL_CHUNK - in < len ? SBIO_FILL_CHUNK - in : len;
        fill_chunk(fs, file, off / SBIO_FILL_CHUNK, in, n, out, zeros);
        out += n;
        off += n;
        len -= n;
    }
}
