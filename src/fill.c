#include "fill.h"

#include <string.h>

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
        fill_chunks4(fs, file, off / SBIO_FILL_CHUNK, out, zeros);
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
