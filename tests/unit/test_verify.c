/* Unit tests for block verification (src/base/verify.c): CRC32C against its published check
 * values, a stamped block checks clean at every length, and each kind of damage is told
 * apart: another file's, another offset's or another set's block, a stale generation, a
 * changed byte anywhere, no header at all; SBIO_VERIFY_ANY accepts any generation. */
#include <stdlib.h>

#include "helpers.h"
#include "util.h"
#include "verify.h"

#define SEED   0x5b10c0ffee01ULL
#define FILE_I 3u
#define OFF    (7 * 16384ULL)
#define GEN    0x00a50002u /* nonce 0xa5, the block's second write of the run */

/* A block of len bytes of fill (a fixed pattern) stamped as (SEED, FILE_I, OFF, GEN). */
static unsigned char *stamped(size_t len)
{
    unsigned char *b = malloc(len);
    assert_non_null(b);
    uint64_t s = 99;
    for (size_t i = 0; i < len; i++)
        b[i] = (unsigned char)sbio_rand64(&s);
    sbio_verify_stamp(b, len, SEED, FILE_I, OFF, GEN);
    return b;
}

static enum sbio_verify_err check(const unsigned char *b, size_t len, uint64_t seed, uint32_t file,
                                  uint64_t off, uint32_t gen, struct sbio_vhdr *found)
{
    return sbio_verify_check(b, len, seed, file, off, gen, found);
}

/* The check values of CRC-32C (RFC 3720 B.4 and the usual "123456789"); a CRC continued over
 * pieces equals the CRC of the whole. */
static void test_crc32c(void **state)
{
    (void)state;
    assert_int_equal(sbio_crc32c(0, "", 0), 0);
    assert_int_equal(sbio_crc32c(0, "123456789", 9), 0xE3069283u);
    unsigned char zeros[32] = {0}, ones[32], inc[32];
    for (int i = 0; i < 32; i++) {
        ones[i] = 0xff;
        inc[i] = (unsigned char)i;
    }
    assert_int_equal(sbio_crc32c(0, zeros, 32), 0x8A9136AAu);
    assert_int_equal(sbio_crc32c(0, ones, 32), 0x62A8AB43u);
    assert_int_equal(sbio_crc32c(0, inc, 32), 0x46DD794Eu);

    unsigned char *b = stamped(4099);
    uint32_t whole = sbio_crc32c(0, b, 4099);
    for (size_t cut = 0; cut <= 4099; cut += 373)
        assert_int_equal(sbio_crc32c(sbio_crc32c(0, b, cut), b + cut, 4099 - cut), whole);
    free(b);
}

/* Stamp then check: clean, the header read back as written, the fill after the header
 * untouched; at lengths around the header size and odd ones. A block shorter than the header
 * carries none: stamp leaves it alone and any check passes. */
static void test_round_trip(void **state)
{
    (void)state;
    static const size_t lens[] = {SBIO_VERIFY_HDR, SBIO_VERIFY_HDR + 1, 512, 4096, 4099, 65536};
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        size_t len = lens[k];
        unsigned char *b = stamped(len), *fill = malloc(len);
        assert_non_null(fill);
        uint64_t s = 99;
        for (size_t i = 0; i < len; i++)
            fill[i] = (unsigned char)sbio_rand64(&s);
        struct sbio_vhdr h;
        assert_int_equal(check(b, len, SEED, FILE_I, OFF, GEN, &h), SBIO_VERIFY_OK);
        assert_int_equal(h.magic, SBIO_VERIFY_MAGIC);
        assert_true(h.seed == SEED);
        assert_int_equal(h.file, FILE_I);
        assert_true(h.offset == OFF);
        assert_int_equal(h.gen, GEN);
        assert_memory_equal(b + SBIO_VERIFY_HDR, fill + SBIO_VERIFY_HDR, len - SBIO_VERIFY_HDR);
        free(fill);
        free(b);
    }
    unsigned char short_b[SBIO_VERIFY_HDR - 1], before[sizeof(short_b)];
    memset(short_b, 0x5a, sizeof(short_b));
    memcpy(before, short_b, sizeof(short_b));
    sbio_verify_stamp(short_b, sizeof(short_b), SEED, FILE_I, OFF, GEN);
    assert_memory_equal(short_b, before, sizeof(short_b));
    struct sbio_vhdr h;
    assert_int_equal(check(short_b, sizeof(short_b), 1, 2, 3, 4, &h), SBIO_VERIFY_OK);
}

/* A whole block read from the wrong place names the mismatch, and *found says what was read. */
static void test_wrong_block(void **state)
{
    (void)state;
    unsigned char *b = stamped(4096);
    struct sbio_vhdr h;
    assert_int_equal(check(b, 4096, SEED, FILE_I + 1, OFF, GEN, &h), SBIO_VERIFY_BAD_FILE);
    assert_int_equal(h.file, FILE_I);
    assert_int_equal(check(b, 4096, SEED, FILE_I, OFF + 4096, GEN, &h), SBIO_VERIFY_BAD_OFFSET);
    assert_true(h.offset == OFF);
    assert_int_equal(check(b, 4096, SEED + 1, FILE_I, OFF, GEN, &h), SBIO_VERIFY_BAD_SEED);
    assert_true(h.seed == SEED);
    /* The block as prepare left it (generation 0) where this run wrote generation GEN. */
    sbio_verify_stamp(b, 4096, SEED, FILE_I, OFF, 0);
    assert_int_equal(check(b, 4096, SEED, FILE_I, OFF, GEN, &h), SBIO_VERIFY_BAD_GEN);
    assert_int_equal(h.gen, 0);
    /* An earlier write of this run: same nonce, lower count. */
    sbio_verify_stamp(b, 4096, SEED, FILE_I, OFF, GEN - 1);
    assert_int_equal(check(b, 4096, SEED, FILE_I, OFF, GEN, &h), SBIO_VERIFY_BAD_GEN);
    assert_int_equal(h.gen, GEN - 1);
    free(b);
}

/* SBIO_VERIFY_ANY: a block this run has not written may carry any generation, but it must
 * still be the right block, whole. */
static void test_any_generation(void **state)
{
    (void)state;
    unsigned char *b = stamped(4096);
    struct sbio_vhdr h;
    static const uint32_t gens[] = {0, 1, GEN, 0xfffffffeu};
    for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
        sbio_verify_stamp(b, 4096, SEED, FILE_I, OFF, gens[i]);
        assert_int_equal(check(b, 4096, SEED, FILE_I, OFF, SBIO_VERIFY_ANY, &h), SBIO_VERIFY_OK);
        assert_int_equal(h.gen, gens[i]);
    }
    assert_int_equal(check(b, 4096, SEED, FILE_I + 1, OFF, SBIO_VERIFY_ANY, &h),
                     SBIO_VERIFY_BAD_FILE);
    assert_int_equal(check(b, 4096, SEED, FILE_I, OFF + 1, SBIO_VERIFY_ANY, &h),
                     SBIO_VERIFY_BAD_OFFSET);
    b[100] ^= 1;
    assert_int_equal(check(b, 4096, SEED, FILE_I, OFF, SBIO_VERIFY_ANY, &h), SBIO_VERIFY_BAD_CRC);
    free(b);
}

/* One flipped bit anywhere, header fields included, is a CRC mismatch, reported before what
 * the damaged header would claim. No magic: not an sbio block at all. */
static void test_damage(void **state)
{
    (void)state;
    static const size_t at[] = {4, 8, 16, 20, 24, SBIO_VERIFY_HDR, 2048, 4095};
    struct sbio_vhdr h;
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
        for (int bit = 0; bit < 8; bit += 7) {
            unsigned char *b = stamped(4096);
            b[at[i]] ^= (unsigned char)(1u << bit);
            enum sbio_verify_err e = check(b, 4096, SEED, FILE_I, OFF, GEN, &h);
            if (e != SBIO_VERIFY_BAD_CRC)
                fail_msg("bit %d of byte %zu flipped: %s, want a checksum mismatch", bit, at[i],
                         sbio_verify_strerror(e));
            free(b);
        }
    unsigned char *b = stamped(4096);
    b[1] ^= 0x10; /* in the magic */
    assert_int_equal(check(b, 4096, SEED, FILE_I, OFF, GEN, &h), SBIO_VERIFY_BAD_MAGIC);
    memset(b, 0, 4096); /* a hole, or a file written by someone else */
    assert_int_equal(check(b, 4096, SEED, FILE_I, OFF, SBIO_VERIFY_ANY, &h), SBIO_VERIFY_BAD_MAGIC);
    assert_int_equal(h.magic, 0);
    free(b);
}

/* Each kind has its own words (they go into the run's first-mismatch message). */
static void test_strerror(void **state)
{
    (void)state;
    const char *s[SBIO_VERIFY_BAD_GEN + 1];
    for (int e = SBIO_VERIFY_OK; e <= SBIO_VERIFY_BAD_GEN; e++) {
        s[e] = sbio_verify_strerror((enum sbio_verify_err)e);
        assert_non_null(s[e]);
        for (int k = 0; k < e; k++)
            assert_string_not_equal(s[k], s[e]);
    }
    assert_string_equal(s[SBIO_VERIFY_OK], "ok");
    assert_string_equal(s[SBIO_VERIFY_BAD_CRC], "checksum mismatch");
    assert_string_equal(s[SBIO_VERIFY_BAD_GEN], "stale generation (a lost write)");
    assert_string_equal(sbio_verify_strerror((enum sbio_verify_err)99), "?");
}

/* The bad blocks a map check reports. */
static void count_bad(void *ctx, enum sbio_verify_err e, uint32_t file, uint64_t offset,
                      uint32_t want, const struct sbio_vhdr *got)
{
    (void)e, (void)file, (void)offset, (void)want, (void)got;
    (*(unsigned *)ctx)++;
}

/* A set prepared without verification: only the blocks this run wrote are checked, and a
 * block written and then lost (old bytes read back) is bad. */
static void test_written_only(void **state)
{
    (void)state;
    const uint64_t sizes[1] = {4 * 4096};
    struct sbio_verify_map m;
    assert_int_equal(sbio_verify_map_init(&m, 1, sizes, 4096, 42, true), 0);
    static char buf[2 * 4096];
    memset(buf, 0x5a, sizeof(buf));
    uint64_t checked = 0;
    unsigned bad = 0;
    sbio_verify_map_check(&m, buf, 0, 0, sizeof(buf), &checked, count_bad, &bad);
    assert_int_equal(checked, 0);
    assert_int_equal(bad, 0);
    sbio_verify_map_stamp(&m, buf, 0, 4096, 4096); /* block 1 written */
    sbio_verify_map_check(&m, buf, 0, 4096, 4096, &checked, count_bad, &bad);
    assert_int_equal(checked, 1);
    assert_int_equal(bad, 0);
    memset(buf, 0x5a, 4096); /* the old bytes: the write was lost */
    sbio_verify_map_check(&m, buf, 0, 4096, 2 * 4096, &checked, count_bad, &bad);
    assert_int_equal(checked, 2); /* block 1 again; block 2 was never written */
    assert_int_equal(bad, 1);
    sbio_verify_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c),       cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_wrong_block),  cmocka_unit_test(test_any_generation),
        cmocka_unit_test(test_damage),       cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_written_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
