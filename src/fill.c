#include "fill.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "fileset.h"
#include "util.h"

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
/* fill_chunks4 with the four chains in one AVX2 register: the xorshift steps are vector
 * shifts and xors, the 64-bit multiply is made of three 32-bit ones, and every four steps
 * a 4 x 4 transpose gives each chunk 32 contiguous bytes. Same bytes, about a third of the
 * CPU time (prepare's helper thread competes with the writer for the CPU). */
__attribute__((target("avx2"))) static void
fill_chunks4_avx2(const struct sbio_fileset *fs, unsigned file, uint64_t chunk, unsigned char *out)
{
    __m256i s = _mm256_set_epi64x(
        (long long)fill_state(fs, file, chunk + 3), (long long)fill_state(fs, file, chunk + 2),
        (long long)fill_state(fs, file, chunk + 1), (long long)fill_state(fs, file, chunk));
    const __m256i mlo = _mm256_set1_epi64x(0x4F6CDD1DLL), mhi = _mm256_set1_epi64x(0x2545F491LL);
    for (size_t off = 0; off < SBIO_FILL_CHUNK; off += 32) {
        __m256i v[4];
        for (int j = 0; j < 4; j++) {
            s = _mm256_xor_si256(s, _mm256_srli_epi64(s, 12));
            s = _mm256_xor_si256(s, _mm256_slli_epi64(s, 25));
            s = _mm256_xor_si256(s, _mm256_srli_epi64(s, 27));
            __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(s, 32), mlo),
                                             _mm256_mul_epu32(s, mhi));
            v[j] = _mm256_add_epi64(_mm256_mul_epu32(s, mlo), _mm256_slli_epi64(cross, 32));
        }
        __m256i t0 = _mm256_unpacklo_epi64(v[0], v[1]), t1 = _mm256_unpackhi_epi64(v[0], v[1]);
        __m256i t2 = _mm256_unpacklo_epi64(v[2], v[3]), t3 = _mm256_unpackhi_epi64(v[2], v[3]);
        unsigned char *o = out + off;
        _mm256_storeu_si256((__m256i *)o, _mm256_permute2x128_si256(t0, t2, 0x20));
        _mm256_storeu_si256((__m256i *)(o + SBIO_FILL_CHUNK),
                            _mm256_permute2x128_si256(t1, t3, 0x20));
        _mm256_storeu_si256((__m256i *)(o + 2 * SBIO_FILL_CHUNK),
                            _mm256_permute2x128_si256(t0, t2, 0x31));
        _mm256_storeu_si256((__m256i *)(o + 3 * SBIO_FILL_CHUNK),
                            _mm256_permute2x128_si256(t1, t3, 0x31));
    }
}
#endif

/* Four whole chunks, by the fastest path this CPU has. */
static void fill_chunks4_any(const struct sbio_fileset *fs, unsigned file, uint64_t chunk,
                             unsigned char *out, uint64_t zeros)
{
#if defined(__x86_64__)
    static int avx2 = -1;
    if (avx2 < 0)
        avx2 = __builtin_cpu_supports("avx2");
    if (avx2) {
        fill_chunks4_avx2(fs, file, chunk, out);
        if (zeros)
            for (int k = 0; k < 4; k++)
                memset(out + k * SBIO_FILL_CHUNK, 0, zeros);
        return;
    }
#endif
    fill_chunks4(fs, file, chunk, out, zeros);
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
        fill_chunks4_any(fs, file, off / SBIO_FILL_CHUNK, out, zeros);
        out += 4 * SBIO_FILL_CHUNK;
        off += 4 * SBIO_FILL_CHUNK;
        len -= 4 * SBIO_FILL_CHUNK;
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
