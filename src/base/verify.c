#include "verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Slice-by-8 tables, built once from the reflected Castagnoli polynomial. */
static uint32_t crc_tab[8][256];
static int crc_ready;

__attribute__((constructor)) static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_tab[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
    __atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t sbio_crc32c(uint32_t crc, const void *buf, size_t len)
{
    /* Racing initialisations write the same values; the flag orders them for readers. */
    if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
        crc_init();
    const unsigned char *p = buf;
    crc = ~crc;
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        v ^= crc;
        crc = crc_tab[7][v & 0xff] ^ crc_tab[6][(v >> 8) & 0xff] ^ crc_tab[5][(v >> 16) & 0xff] ^
              crc_tab[4][(v >> 24) & 0xff] ^ crc_tab[3][(v >> 32) & 0xff] ^
              crc_tab[2][(v >> 40) & 0xff] ^ crc_tab[1][(v >> 48) & 0xff] ^ crc_tab[0][v >> 56];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
    return ~crc;
}

void sbio_verify_stamp(void *buf, size_t len, uint64_t seed, uint32_t file, uint64_t offset,
                       uint32_t gen)
{
    if (len < SBIO_VERIFY_HDR)
        return;
    struct sbio_vhdr h = {SBIO_VERIFY_MAGIC, 0, seed, file, gen, offset};
    memcpy(buf, &h, sizeof(h));
    h.crc = sbio_crc32c(0, buf, len);
    memcpy((char *)buf + offsetof(struct sbio_vhdr, crc), &h.crc, sizeof(h.crc));
}

enum sbio_verify_err sbio_verify_check(const void *buf, size_t len, uint64_t seed, uint32_t file,
                                       uint64_t offset, uint32_t expect_gen,
                                       struct sbio_vhdr *found)
{
    if (len < SBIO_VERIFY_HDR)
        return SBIO_VERIFY_OK;
    struct sbio_vhdr h;
    memcpy(&h, buf, sizeof(h));
    *found = h;
    if (h.magic != SBIO_VERIFY_MAGIC)
        return SBIO_VERIFY_BAD_MAGIC;
    /* The CRC covers the block with its own field zero: recompute it around that field. */
    uint32_t zero = 0;
    uint32_t c = sbio_crc32c(0, buf, offsetof(struct sbio_vhdr, crc));
    c = sbio_crc32c(c, &zero, sizeof(zero));
    c = sbio_crc32c(c, (const char *)buf + offsetof(struct sbio_vhdr, crc) + sizeof(zero),
                    len - offsetof(struct sbio_vhdr, crc) - sizeof(zero));
    if (c != h.crc)
        return SBIO_VERIFY_BAD_CRC;
    if (h.seed != seed)
        return SBIO_VERIFY_BAD_SEED;
    if (h.file != file)
        return SBIO_VERIFY_BAD_FILE;
    if (h.offset != offset)
        return SBIO_VERIFY_BAD_OFFSET;
    if (expect_gen != SBIO_VERIFY_ANY && h.gen != expect_gen)
        return SBIO_VERIFY_BAD_GEN;
    return SBIO_VERIFY_OK;
}

const char *sbio_verify_strerror(enum sbio_verify_err e)
{
    static const char *const s[] = {"ok",
                                    "no sbio header (magic)",
                                    "checksum mismatch",
                                    "another set's data (seed)",
                                    "another file's block",
                                    "another offset's block",
                                    "stale generation (a lost write)"};
    return (unsigned)e < sizeof(s) / sizeof(s[0]) ? s[e] : "?";
}

int sbio_verify_map_init(struct sbio_verify_map *m, unsigned nfiles, const uint64_t *sizes,
                         uint64_t block, uint64_t seed, bool written_only)
{
    memset(m, 0, sizeof(*m));
    m->block = block;
    m->seed = seed;
    m->written_only = written_only;
    m->first = calloc(nfiles + 1, sizeof(uint64_t));
    if (!m->first)
        return -ENOMEM;
    for (unsigned i = 0; i < nfiles; i++)
        m->first[i + 1] = m->first[i] + (sizes[i] + block - 1) / block;
    m->gens = malloc(m->first[nfiles] * sizeof(uint32_t) + 1);
    if (!m->gens) {
        sbio_verify_map_free(m);
        return -ENOMEM;
    }
    memset(m->gens, 0xff, m->first[nfiles] * sizeof(uint32_t)); /* SBIO_VERIFY_ANY */
    m->nonce = (uint32_t)(sbio_mix64(sbio_now_ns() ^ (uint64_t)getpid()) % 0xfffeu) + 1;
    return 0;
}

void sbio_verify_map_free(struct sbio_verify_map *m)
{
    free(m->gens);
    free(m->first);
    m->gens = NULL;
    m->first = NULL;
}

void sbio_verify_map_stamp(struct sbio_verify_map *m, void *buf, uint32_t file, uint64_t offset,
                           uint64_t len)
{
    for (uint64_t o = 0; o < len; o += m->block) {
        uint64_t n = len - o < m->block ? len - o : m->block;
        uint64_t idx = m->first[file] + (offset + o) / m->block;
        uint32_t g = __atomic_load_n(&m->gens[idx], __ATOMIC_RELAXED);
        uint32_t next =
            g == SBIO_VERIFY_ANY || (g >> 16) != m->nonce ? 1 : ((g & 0xffff) + 1) & 0xffff;
        g = m->nonce << 16 | (next ? next : 1);
        __atomic_store_n(&m->gens[idx], g, __ATOMIC_RELAXED);
        sbio_verify_stamp((char *)buf + o, n, m->seed, file, offset + o, g);
    }
}

void sbio_verify_map_check(const struct sbio_verify_map *m, const void *buf, uint32_t file,
                           uint64_t offset, uint64_t len, uint64_t *checked,
                           void (*bad)(void *ctx, enum sbio_verify_err e, uint32_t file,
                                       uint64_t offset, uint32_t want, const struct sbio_vhdr *got),
                           void *ctx)
{
    for (uint64_t o = 0; o < len; o += m->block) {
        uint64_t n = len - o < m->block ? len - o : m->block;
        uint64_t off = offset + o;
        uint32_t want =
            __atomic_load_n(&m->gens[m->first[file] + off / m->block], __ATOMIC_RELAXED);
        if (m->written_only && want == SBIO_VERIFY_ANY)
            continue;
        __atomic_store_n(checked, *checked + 1, __ATOMIC_RELAXED);
        struct sbio_vhdr got;
        enum sbio_verify_err e =
            sbio_verify_check((const char *)buf + o, n, m->seed, file, off, want, &got);
        if (e != SBIO_VERIFY_OK)
            bad(ctx, e, file, off, want, &got);
    }
}
