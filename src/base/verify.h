/* Data verification (--verify, sysbench's --validate).
 *
 * Every block of a verified set (at the block size it was prepared with) starts with a
 * header — magic, CRC32C of the block, the set's seed, file index, block offset and write
 * generation — followed by fill bytes. prepare writes generation 0; each write of a run
 * stamps a generation whose high 16 bits are a nonce of the run and low 16 bits count that
 * block's writes in the run, so a read can tell the block it expects from a stale one. A read
 * checks every block it covers; a block this run has not written may carry any generation.
 *
 * A block belongs to one thread at a time: random modes and a script's mixes partition blocks
 * by thread (block % threads == thread, threads numbered across a phase's jobs); the
 * sequential stream hands each request to one thread. Each job keeps its own map: no block of
 * it is another job's. */
#ifndef SBIO_VERIFY_H
#define SBIO_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBIO_VERIFY_MAGIC 0x46564253u /* "SBVF" */
#define SBIO_VERIFY_HDR   32u         /* bytes; a block shorter than this carries no header */
#define SBIO_VERIFY_ANY   UINT32_MAX  /* expected generation: not written by this run */

struct sbio_vhdr {
    uint32_t magic;
    uint32_t crc; /* CRC32C of the block with this field zero */
    uint64_t seed;
    uint32_t file;
    uint32_t gen;
    uint64_t offset;
};
_Static_assert(sizeof(struct sbio_vhdr) == SBIO_VERIFY_HDR, "header layout");

/* CRC32C (Castagnoli) of buf, continuing from crc (start with 0). */
uint32_t sbio_crc32c(uint32_t crc, const void *buf, size_t len);

/* Write the header of the block at buf (len bytes, the block's length) and its CRC. */
void sbio_verify_stamp(void *buf, size_t len, uint64_t seed, uint32_t file, uint64_t offset,
                       uint32_t gen);

/* What a check found. */
enum sbio_verify_err {
    SBIO_VERIFY_OK,
    SBIO_VERIFY_BAD_MAGIC,
    SBIO_VERIFY_BAD_CRC,
    SBIO_VERIFY_BAD_SEED,
    SBIO_VERIFY_BAD_FILE,
    SBIO_VERIFY_BAD_OFFSET,
    SBIO_VERIFY_BAD_GEN,
};

/* Check the block at buf. expect_gen SBIO_VERIFY_ANY accepts any generation. On a mismatch
 * *found describes what was read (for the message). */
enum sbio_verify_err sbio_verify_check(const void *buf, size_t len, uint64_t seed, uint32_t file,
                                       uint64_t offset, uint32_t expect_gen,
                                       struct sbio_vhdr *found);

const char *sbio_verify_strerror(enum sbio_verify_err e);

/* The generation each block of a set was last written with by this run (SBIO_VERIFY_ANY
 * until then). Threads own disjoint blocks, so entries are read and written with relaxed
 * atomics only to keep the interim reader's view defined. */
struct sbio_verify_map {
    uint32_t *gens;
    uint64_t *first; /* [nfiles + 1]: first block of each file */
    uint64_t block;  /* bytes per verified block: the set's prepared block size */
    uint64_t seed;   /* the set's seed */
    uint32_t nonce;  /* this run's: its generations differ from any earlier run's */
    /* The set was prepared without verification: a block this run has not written carries
     * no header and is not checked. */
    bool written_only;
};

/* For nfiles files of sizes[] bytes in blocks of block bytes; written_only for a set prepared
 * without verification. 0 or -ENOMEM. */
int sbio_verify_map_init(struct sbio_verify_map *m, unsigned nfiles, const uint64_t *sizes,
                         uint64_t block, uint64_t seed, bool written_only);
void sbio_verify_map_free(struct sbio_verify_map *m);

/* Stamp every block of a write of len bytes at offset of file (buf) with its next
 * generation. */
void sbio_verify_map_stamp(struct sbio_verify_map *m, void *buf, uint32_t file, uint64_t offset,
                           uint64_t len);

/* Check every block of a read of len bytes at offset of file (buf): ceil(len / m->block) of
 * them, or under written_only those this run wrote. Each is counted in *checked (a counter
 * of the calling thread's, stored with a relaxed atomic) before bad(ctx, ...) is called for
 * it when it is bad, with what was expected and found: a reader never sees more bad blocks
 * than checked ones. */
void sbio_verify_map_check(const struct sbio_verify_map *m, const void *buf, uint32_t file,
                           uint64_t offset, uint64_t len, uint64_t *checked,
                           void (*bad)(void *ctx, enum sbio_verify_err e, uint32_t file,
                                       uint64_t offset, uint32_t want, const struct sbio_vhdr *got),
                           void *ctx);

#endif
