/* Op generators: the built-in modes (seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw) produce the
 * next operation of a thread. Lua mixes (script.c, mix.c) produce the same ops.
 *
 * Semantics (sysbench-compatible by default; doc/sysbench.md lists the differences):
 *  - sequential modes walk the concatenated set in requests of block * max(1, merged)
 *    bytes, a file's tail as a short request (skipped under O_DIRECT when misaligned);
 *    one shared stream taken with an atomic counter, or per-thread slices of whole
 *    requests (the remainder to the last thread); both wrap at the end;
 *  - random modes draw whole blocks uniformly over the set; a tail shorter than a block
 *    is never drawn; with --random-order=once (random modes and a mix's uniform pattern)
 *    the blocks come in a random order that visits each once per pass (perm.h), a new order
 *    each pass, taken by the job's threads from one atomic counter (under --verify each
 *    thread walks its own blocks in such an order);
 *  - rndrw reads when (reads + 1) / (writes + 1) < ratio, per thread, as sysbench (ratio 0:
 *    writes only, the same ops as rndwr);
 *  - periodic fsync: when the thread has written and its request count is a multiple
 *    of --file-fsync-freq, it fsyncs every file (or, with --file-fsync-scope=dirty, every
 *    file it wrote since), one fsync per event, before its next request. */
#ifndef SBIO_WORKLOAD_H
#define SBIO_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "io.h"
#include "vocab.h"
#include "perm.h"

/* The set as the generators see it; shared by all threads, read-only once built. */
struct sbio_layout {
    unsigned nfiles;
    uint64_t block;      /* bytes per random request */
    uint64_t req;        /* bytes per sequential request (block * merged) */
    uint64_t *size;      /* [nfiles] */
    uint64_t *seq_first; /* [nfiles + 1] first sequential request of each file */
    uint64_t *rnd_first; /* [nfiles + 1] first whole block of each file */
    uint64_t seq_units, rnd_blocks;
    bool uniform;           /* every file the same size: division instead of a search */
    unsigned skipped_tails; /* O_DIRECT: misaligned tails left out */
    uint64_t skipped_bytes;
    /* A job on some of the set's files (sbio_layout_only): in[f] says whether file f is one
     * of them (the others have size 0 here: nothing is drawn in them, no fsync round reaches
     * them), own lists them; NULL: every file. */
    unsigned char *in;
    unsigned *own;
    unsigned nown;
    /* The sequential requests of each of the job's files when they all have as many (the
     * round-robin file service needs it), 0 when they differ. */
    uint64_t rr_units;
};

/* Build the layout. direct_align is the O_DIRECT alignment (0 without O_DIRECT).
 * Returns 0 or -ENOMEM. */
int sbio_layout_init(struct sbio_layout *l, unsigned nfiles, const uint64_t *sizes, uint64_t block,
                     uint64_t merged, uint64_t direct_align);
void sbio_layout_free(struct sbio_layout *l);
/* A layout of the job's files only, those with in[f] set (nfiles flags): the others count as
 * files of size 0 (sizes is not changed). Returns 0 or -ENOMEM (l left empty). */
int sbio_layout_init_only(struct sbio_layout *l, unsigned nfiles, const uint64_t *sizes,
                          const unsigned char *in, uint64_t block, uint64_t merged,
                          uint64_t direct_align);
/* Whether the layout's job works on file f. */
static inline bool sbio_layout_has(const struct sbio_layout *l, unsigned f)
{
    return !l->in || l->in[f];
}
/* Map a sequential request index to file, offset and length. */
void sbio_layout_seq(const struct sbio_layout *l, uint64_t unit, unsigned *file, uint64_t *off,
                     uint32_t *len);
/* The round-robin file service (fio's file_service_type=roundrobin): request pos of a pass
 * is request pos / n of the job's file pos % n (n files, rr_units set), as a sequential
 * request index for sbio_layout_seq. */
static inline uint64_t sbio_layout_rr(const struct sbio_layout *l, uint64_t pos)
{
    unsigned n = l->own ? l->nown : l->nfiles;
    unsigned f = l->own ? l->own[pos % n] : (unsigned)(pos % n);
    return l->seq_first[f] + pos / n;
}
/* Map a whole-block index to file and offset. */
void sbio_layout_block(const struct sbio_layout *l, uint64_t blk, unsigned *file, uint64_t *off);

/* A per-event hook (a script's event(ctx)): C asks it for every operation. new() makes a
 * thread's state (NULL on error, message in err); stop is the run's stop flag (non-zero: the
 * phase is ending), which a call that does not return must heed. next() fills io and returns
 * 1, 0 at the end of the stream, or -1 on error (message in err). */
struct sbio_hook_ops {
    void *(*create)(const void *arg, unsigned thread, uint64_t seed, const int *stop, char *err,
                    size_t len);
    int (*next)(void *state, struct sbio_io *io, char *err, size_t len);
    void (*destroy)(void *state);
    const void *arg;
};

/* What all threads of one run share. */
struct sbio_wl_shared {
    const struct sbio_layout *lay;
    int mode;
    int seq_stream;
    unsigned threads;
    uint64_t fsync_freq;
    bool fsync_all;
    bool fsync_end;
    int fsync_scope;
    double rw_ratio;
    uint64_t seed;
    bool partition; /* --verify: random blocks of thread t are those with block % threads == t */
    bool once;      /* --random-order=once */
    bool once_own;  /* once: each thread walks its own blocks (see partition), as under --verify
                       or when several processes share the set */
    /* invalidate = "pass": a sequential request that starts a file's pass after the first is
     * flagged SBIO_IO_DROP, a random block that starts a pass of the once order after the
     * first SBIO_IO_DROP_ALL (not under O_DIRECT, as fio) */
    bool drop_pass;
    bool rr; /* file_service = "roundrobin": sequential requests one file after the other */
    const struct sbio_mix *mix;       /* a script's mix: op, size and block drawn per op */
    const struct sbio_hook_ops *hook; /* a script's event(ctx), called per op */
    const int *stop;                  /* the run's stop flag, for the hook; may be NULL */
    /* A mix's appends on a flat set: each file's end, where the next append writes (taken
     * with an atomic add, so that threads appending to one file never overlap); NULL when
     * the mix has none. */
    uint64_t *append_end;
    /* The shared sequential stream, alone on its cache line. */
    _Alignas(64) uint64_t seq_next;
    char pad[56];
    /* --random-order=once: the random blocks taken so far (pass = taken / blocks). */
    _Alignas(64) uint64_t once_next;
    char once_pad[56];
};

struct sbio_job;
struct sbio_fsop;
/* What the threads of job share, on layout lay, drawing from seed. */
void sbio_wl_shared_init(struct sbio_wl_shared *sh, const struct sbio_job *job,
                         const struct sbio_layout *lay, uint64_t seed);

/* One thread's generator state. */
struct sbio_wl {
    const struct sbio_wl_shared *sh;
    struct sbio_wl_shared *shw; /* for the atomic stream counter */
    unsigned thread;
    uint64_t rng;
    uint64_t reads, writes; /* completed, for the rndrw ratio */
    uint64_t requests;      /* reads + writes issued, for the fsync cadence */
    bool dirty;
    bool ending;         /* end fsyncs being issued */
    int64_t fsync_next;  /* next file of the current fsync round, -1: none */
    uint64_t *dirty_map; /* scope=dirty: files written since the last round */
    uint64_t slice_first, slice_units, slice_pos; /* per-thread sequential slice */
    uint64_t last_unit; /* the sequential request of the last draw (sbio_layout_seq's unit) */
    uint64_t once_pos;  /* --random-order=once under --verify: this thread's blocks taken */
    uint64_t once_pass; /* the pass once_perm is for (UINT64_MAX: none yet) */
    struct sbio_perm once_perm;
    unsigned last_file; /* a mix's fsync goes to the file the thread last wrote */
    void *hook;         /* the thread's event() state */
    char hook_err[512]; /* why the hook failed, or why a tree job's thread stopped */
    /* A tree job: the thread's slots and current file (set by the runner after
     * sbio_wl_init), its count of skipped draws (the thread's stats), its place in a flow. */
    struct sbio_fsop *fsop;
    uint64_t *skipped;
    unsigned flow_pos;
};

/* 0, -ENOMEM, or -ERANGE when per-thread slices would be empty (more threads than
 * requests in the set). */
int sbio_wl_init(struct sbio_wl *w, struct sbio_wl_shared *sh, unsigned thread);

/* --random-order=once: the thread's next block starts a new pass, as at the start (after a
 * warm-up; called for every thread while none runs). */
void sbio_wl_once_restart(struct sbio_wl *w);
void sbio_wl_fini(struct sbio_wl *w);

/* Fill io (op, file, offset, len, flags) with the thread's next operation. Returns 1, or 0
 * when there is nothing more (after sbio_wl_begin_end, or when a script's event() ends the
 * stream), or -1 when the script's event() failed (w->hook_err says why). Built-in modes
 * and mixes never allocate or lock.
 * A tree job (w->fsop set): the next operation from the mix's weights, or the flow's next
 * entry, acting on the file(s) fsop.h chooses; a draw that cannot be served now is skipped
 * (counted in *w->skipped) and the next drawn; after SBIO_FSOP_MAX_SKIP in a row, -1 with
 * w->hook_err naming why. */
int sbio_wl_next(struct sbio_wl *w, struct sbio_io *io);

/* Account a completed operation (the rndrw ratio counts completions, as sysbench). */
static inline void sbio_wl_complete(struct sbio_wl *w, const struct sbio_io *io)
{
    if (io->op == SBIO_READ)
        w->reads++;
    else if (io->op == SBIO_WRITE)
        w->writes++;
}

/* Switch to the end of the run: next() then yields the --file-fsync-end fsyncs (flagged
 * SBIO_IO_NOT_EVENT) and then 0. Read-only modes have none, as in sysbench; a mix has them
 * when its job asks (fsync_end). */
void sbio_wl_begin_end(struct sbio_wl *w);

/* Sequential requests this thread's stream has issued, for seqwr completion: with the
 * shared stream the caller uses sh->seq_next instead. */
static inline uint64_t sbio_wl_slice_done(const struct sbio_wl *w)
{
    return w->slice_pos;
}

#endif
