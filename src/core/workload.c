#include "workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsop.h"
#include "job.h"
#include "mix.h"
#include "perm.h"
#include "util.h"

/* l->rr_units: the sequential requests of every one of the job's files, if all have as
 * many. */
static void layout_rr(struct sbio_layout *l)
{
    uint64_t u = UINT64_MAX;
    l->rr_units = 0;
    for (unsigned f = 0; f < l->nfiles; f++) {
        if (!sbio_layout_has(l, f))
            continue;
        uint64_t k = l->seq_first[f + 1] - l->seq_first[f];
        if (u != UINT64_MAX && k != u)
            return;
        u = k;
    }
    l->rr_units = u == UINT64_MAX ? 0 : u;
}

int sbio_layout_init(struct sbio_layout *l, unsigned nfiles, const uint64_t *sizes, uint64_t block,
                     uint64_t merged, uint64_t direct_align)
{
    memset(l, 0, sizeof(*l));
    l->nfiles = nfiles;
    l->block = block;
    l->req = block * (merged > 1 ? merged : 1);
    l->size = calloc(nfiles, sizeof(uint64_t));
    l->seq_first = calloc(nfiles + 1, sizeof(uint64_t));
    l->rnd_first = calloc(nfiles + 1, sizeof(uint64_t));
    if (!l->size || !l->seq_first || !l->rnd_first) {
        sbio_layout_free(l);
        return -ENOMEM;
    }
    l->uniform = true;
    for (unsigned i = 0; i < nfiles; i++) {
        uint64_t s = sizes[i];
        l->size[i] = s;
        if (s != sizes[0])
            l->uniform = false;
        uint64_t units = s / l->req, tail = s % l->req;
        if (tail) {
            /* O_DIRECT cannot issue a misaligned tail: skip it and say so. */
            if (direct_align && tail % direct_align) {
                l->skipped_tails++;
                l->skipped_bytes += tail;
            } else {
                units++;
            }
        }
        l->seq_first[i + 1] = l->seq_first[i] + units;
        l->rnd_first[i + 1] = l->rnd_first[i] + s / block;
    }
    l->seq_units = l->seq_first[nfiles];
    l->rnd_blocks = l->rnd_first[nfiles];
    layout_rr(l);
    return 0;
}

void sbio_layout_free(struct sbio_layout *l)
{
    free(l->size);
    free(l->seq_first);
    free(l->rnd_first);
    free(l->in);
    free(l->own);
    l->size = l->seq_first = l->rnd_first = NULL;
    l->in = NULL;
    l->own = NULL;
}

int sbio_layout_init_only(struct sbio_layout *l, unsigned nfiles, const uint64_t *sizes,
                          const unsigned char *in, uint64_t block, uint64_t merged,
                          uint64_t direct_align)
{
    uint64_t *only = calloc(nfiles ? nfiles : 1, sizeof(uint64_t));
    if (!only)
        return -ENOMEM;
    for (unsigned i = 0; i < nfiles; i++)
        only[i] = in[i] ? sizes[i] : 0;
    int rc = sbio_layout_init(l, nfiles, only, block, merged, direct_align);
    free(only);
    if (rc)
        return rc;
    l->in = malloc(nfiles);
    l->own = calloc(nfiles, sizeof(unsigned));
    if (!l->in || !l->own) {
        sbio_layout_free(l);
        return -ENOMEM;
    }
    memcpy(l->in, in, nfiles);
    for (unsigned i = 0; i < nfiles; i++)
        if (in[i])
            l->own[l->nown++] = i;
    layout_rr(l);
    return 0;
}

/* Largest i with first[i] <= x (first is non-decreasing, first[0] = 0). */
static unsigned layout_search(const uint64_t *first, unsigned n, uint64_t x)
{
    unsigned lo = 0, hi = n; /* invariant: first[lo] <= x < first[hi] */
    while (hi - lo > 1) {
        unsigned mid = lo + (hi - lo) / 2;
        if (first[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    /* Files with no unit share a first[] value: move past them. */
    while (lo + 1 < n && first[lo + 1] <= x)
        lo++;
    return lo;
}

/* The file of unit x in first[] (sequential requests or whole blocks): a division when every
 * file has the same number of units, a search otherwise. */
static inline unsigned layout_file(const struct sbio_layout *l, const uint64_t *first, uint64_t x)
{
    uint64_t per = first[1];
    if (l->uniform && per)
        return (unsigned)(x / per);
    return layout_search(first, l->nfiles, x);
}

void sbio_layout_seq(const struct sbio_layout *l, uint64_t unit, unsigned *file, uint64_t *off,
                     uint32_t *len)
{
    unsigned f = layout_file(l, l->seq_first, unit);
    uint64_t o = (unit - l->seq_first[f]) * l->req;
    uint64_t left = l->size[f] - o;
    *file = f;
    *off = o;
    *len = (uint32_t)(left < l->req ? left : l->req);
}

void sbio_layout_block(const struct sbio_layout *l, uint64_t blk, unsigned *file, uint64_t *off)
{
    unsigned f = layout_file(l, l->rnd_first, blk);
    *file = f;
    *off = (blk - l->rnd_first[f]) * l->block;
}

void sbio_wl_shared_init(struct sbio_wl_shared *sh, const struct sbio_job *job,
                         const struct sbio_layout *lay, uint64_t seed)
{
    /* As sysbench: --file-fsync-all replaces the periodic and the end fsyncs. */
    *sh = (struct sbio_wl_shared){
        .lay = lay,
        .mode = job->mode,
        .seq_stream = job->seq_stream,
        .threads = job->threads,
        .fsync_freq = job->fsync_all ? 0 : job->fsync_freq,
        .fsync_all = job->fsync_all,
        .fsync_end = job->fsync_all ? false : job->fsync_end,
        .fsync_scope = job->fsync_scope,
        .rw_ratio = job->rw_ratio,
        .seed = seed,
        .once = job->random_order == SBIO_ORDER_ONCE,
        .rr = job->file_rr,
        .drop_pass = job->invalidate_pass &&
                     (sbio_mode_sequential(job->mode) || !(job->extra_flags & SBIO_XF_DIRECT)),
        .mix = job->mix,
        .hook = job->hook};
}

int sbio_wl_init(struct sbio_wl *w, struct sbio_wl_shared *sh, unsigned thread)
{
    memset(w, 0, sizeof(*w));
    w->sh = sh;
    w->shw = sh;
    w->thread = thread;
    w->rng = sbio_mix64(sh->seed ^ sbio_mix64(thread + 1));
    w->fsync_next = -1;
    w->once_pass = UINT64_MAX;
    /* A mix's fsync before any write goes to a file of the job's. */
    w->last_file = sh->lay && sh->lay->own ? sh->lay->own[0] : 0;
    if (sh->fsync_scope == SBIO_SCOPE_DIRTY && sh->lay) {
        w->dirty_map = calloc((sh->lay->nfiles + 63) / 64, sizeof(uint64_t));
        if (!w->dirty_map)
            return -ENOMEM;
    }
    if (sbio_mode_sequential(sh->mode) && sh->seq_stream == SBIO_SEQ_PER_THREAD) {
        uint64_t per = sh->lay->seq_units / sh->threads;
        if (!per) {
            free(w->dirty_map);
            w->dirty_map = NULL;
            return -ERANGE;
        }
        w->slice_first = per * thread;
        w->slice_units = thread + 1 == sh->threads ? sh->lay->seq_units - w->slice_first : per;
    }
    if (sh->hook) {
        w->hook = sh->hook->create(sh->hook->arg, thread, w->rng, sh->stop, w->hook_err,
                                   sizeof(w->hook_err));
        if (!w->hook) {
            free(w->dirty_map);
            w->dirty_map = NULL;
            return -EINVAL;
        }
    }
    return 0;
}

void sbio_wl_fini(struct sbio_wl *w)
{
    if (w->hook && w->sh->hook)
        w->sh->hook->destroy(w->hook);
    w->hook = NULL;
    free(w->dirty_map);
    w->dirty_map = NULL;
}

/* The first file at or after `from` that the current fsync round covers, or -1. */
static int64_t wl_fsync_find(const struct sbio_wl *w, uint64_t from)
{
    const struct sbio_layout *lay = w->sh->lay;
    unsigned n = lay->nfiles;
    while (!w->dirty_map && from < n && !sbio_layout_has(lay, (unsigned)from))
        from++;
    if (!w->dirty_map)
        return from < n ? (int64_t)from : -1;
    for (uint64_t i = from; i < n;) {
        uint64_t word = w->dirty_map[i / 64] >> (i % 64);
        if (word)
            return (int64_t)(i + (uint64_t)__builtin_ctzll(word));
        i = (i / 64 + 1) * 64;
    }
    return -1;
}

/* Emit the next fsync of the current round; ends the round after its last file. */
static int wl_emit_fsync(struct sbio_wl *w, struct sbio_io *io)
{
    unsigned f = (unsigned)w->fsync_next;
    io->op = SBIO_FSYNC;
    io->flags = w->ending ? SBIO_IO_NOT_EVENT : 0;
    io->file = f;
    io->offset = 0;
    io->len = 0;
    if (w->dirty_map)
        w->dirty_map[f / 64] &= ~(1ULL << (f % 64));
    w->fsync_next = wl_fsync_find(w, (uint64_t)f + 1);
    if (w->fsync_next < 0)
        w->dirty = false;
    return 1;
}

static void wl_mark_dirty(struct sbio_wl *w, unsigned f)
{
    w->dirty = true;
    if (w->dirty_map)
        w->dirty_map[f / 64] |= 1ULL << (f % 64);
}

/* --random-order=once: the next block of n in this pass's order. Shared by the job's
 * threads through one counter; under --verify's partition, or when several processes share
 * the set (each has its own counter), each thread walks its own blocks (those with
 * block % threads == thread, threads numbered across processes) in an order of its own. The
 * thread keeps the current pass's permutation: its round keys are made once a pass. */
static uint64_t wl_once_block(struct sbio_wl *w, uint64_t n, bool *new_pass)
{
    const struct sbio_wl_shared *sh = w->sh;
    uint64_t t = sh->threads, k, m = n, seed = sh->seed;
    if (sh->once_own) {
        m = (n - w->thread + t - 1) / t;
        k = w->once_pos++;
        seed ^= sbio_mix64(w->thread + 1);
    } else {
        k = __atomic_fetch_add(&w->shw->once_next, 1, __ATOMIC_RELAXED);
    }
    *new_pass = k >= m && k % m == 0;
    if (k / m != w->once_pass) {
        w->once_pass = k / m;
        sbio_perm_init(&w->once_perm, m, sbio_perm_pass_key(seed, w->once_pass));
    }
    uint64_t i = sbio_perm_map(&w->once_perm, k % m);
    return sh->once_own ? i * t + w->thread : i;
}

void sbio_wl_once_restart(struct sbio_wl *w)
{
    w->shw->once_next = 0;
    w->once_pos = 0;
    w->once_pass = UINT64_MAX;
}

/* --verify's partition: the random blocks this thread owns, those with
 * block % threads == thread. */
static uint64_t wl_own_blocks(const struct sbio_wl *w)
{
    uint64_t t = w->sh->threads;
    return (w->sh->lay->rnd_blocks - w->thread + t - 1) / t;
}

/* A mix's block: under --verify's partition the pattern draws among the thread's own blocks
 * (index i of them is block i * threads + thread), so its shape over the set holds (zipf's
 * and pareto's hot blocks stay at the start) while no block is another thread's. */
static uint64_t wl_mix_block(struct sbio_wl *w, const struct sbio_mix *m)
{
    const struct sbio_wl_shared *sh = w->sh;
    bool new_pass;
    if (sh->once && m->pattern == SBIO_PAT_UNIFORM)
        return wl_once_block(w, sh->lay->rnd_blocks, &new_pass);
    if (!sh->partition)
        return sbio_mix_block(m, &w->rng, sh->lay->rnd_blocks, &w->slice_pos);
    return sbio_mix_block(m, &w->rng, wl_own_blocks(w), &w->slice_pos) * sh->threads + w->thread;
}

/* A mix's append on a flat set: the append size at the end of one of the job's files, drawn
 * uniformly, where no other append of the run writes (sh->append_end). A write. */
static int wl_mix_append(struct sbio_wl *w, const struct sbio_mix *m, struct sbio_io *io)
{
    const struct sbio_layout *lay = w->sh->lay;
    unsigned n = lay->own ? lay->nown : lay->nfiles;
    unsigned k = (unsigned)sbio_rand_below(&w->rng, n);
    unsigned f = lay->own ? lay->own[k] : k;
    uint64_t len = sbio_mix_append_size(m, &w->rng);
    io->op = SBIO_WRITE;
    io->flags = 0;
    io->file = f;
    io->offset = __atomic_fetch_add(&w->shw->append_end[f], len, __ATOMIC_RELAXED);
    io->len = (uint32_t)len;
    w->last_file = f;
    wl_mark_dirty(w, f);
    return 1;
}

/* A script's mix: the operation by weight, the size from its distribution, the block from
 * its pattern (in units of the job's smallest size), clipped at the end of the file. */
static int wl_mix_next(struct sbio_wl *w, struct sbio_io *io)
{
    const struct sbio_mix *m = w->sh->mix;
    const struct sbio_layout *lay = w->sh->lay;
    enum sbio_mix_op mop = sbio_mix_op(m, &w->rng);
    w->requests++;
    if (mop == SBIO_MIX_FSYNC || mop == SBIO_MIX_FDATASYNC) {
        io->op = SBIO_FSYNC;
        io->flags = mop == SBIO_MIX_FDATASYNC ? SBIO_IO_DATASYNC : 0;
        io->file = w->last_file;
        io->offset = 0;
        io->len = 0;
        return 1;
    }
    if (mop == SBIO_MIX_APPEND && w->sh->append_end)
        return wl_mix_append(w, m, io);
    uint64_t len = sbio_mix_size(m, &w->rng);
    sbio_layout_block(lay, wl_mix_block(w, m), &io->file, &io->offset);
    if (io->offset + len > lay->size[io->file])
        len = lay->size[io->file] - io->offset;
    io->op = mop == SBIO_MIX_READ ? SBIO_READ : mop == SBIO_MIX_RMW ? SBIO_RMW : SBIO_WRITE;
    io->flags = 0;
    io->len = (uint32_t)len;
    if (io->op != SBIO_READ) { /* a read-modify-write writes too */
        w->last_file = io->file;
        wl_mark_dirty(w, io->file); /* for fsync_end under --file-fsync-scope=dirty */
    }
    return 1;
}

/* The first operation of the tree job that can be served now, or SBIO_MIX_NR when none. */
static enum sbio_mix_op wl_tree_servable(const struct sbio_wl *w)
{
    const struct sbio_mix *m = w->sh->mix;
    for (unsigned i = 0; i < m->nflow; i++)
        if (sbio_fsop_can(w->fsop, (enum sbio_mix_op)m->flow[i]))
            return (enum sbio_mix_op)m->flow[i];
    for (int op = 0; !m->nflow && op < SBIO_MIX_NR; op++)
        if (m->op_cum[op] - (op ? m->op_cum[op - 1] : 0) > 1e-12 && sbio_fsop_can(w->fsop, op))
            return (enum sbio_mix_op)op;
    return SBIO_MIX_NR;
}

/* A tree job's next operation (fsop.h): by weight or in the flow's order; draws that
 * cannot be served are skipped, up to SBIO_FSOP_MAX_SKIP in a row. When none of the job's
 * operations can be served, none ever will be (the thread's slots change by its own
 * operations only): a thread that served some ends its stream (a delete-all phase); one
 * that served none fails, saying why. */
static int wl_tree_next(struct sbio_wl *w, struct sbio_io *io)
{
    const struct sbio_mix *m = w->sh->mix;
    enum sbio_mix_op mop = SBIO_MIX_READ;
    for (unsigned skips = 0; skips < SBIO_FSOP_MAX_SKIP; skips++) {
        /* Nothing changes the thread's slots between two draws: asked once, at the first
         * skip. */
        if (skips == 1 && wl_tree_servable(w) == SBIO_MIX_NR) {
            if (w->requests)
                return 0;
            char why[160];
            snprintf(w->hook_err, sizeof(w->hook_err),
                     "thread %u: none of its job's operations can be served (the last drawn: %s)",
                     w->thread, sbio_fsop_skip_why(w->fsop, mop, why, sizeof(why)));
            return -1;
        }
        if (m->nflow) {
            mop = (enum sbio_mix_op)m->flow[w->flow_pos];
            w->flow_pos = w->flow_pos + 1 < m->nflow ? w->flow_pos + 1 : 0;
        } else {
            mop = sbio_mix_op(m, &w->rng);
        }
        if (sbio_fsop_pick(w->fsop, mop, &w->rng, io)) {
            w->requests++;
            return 1;
        }
        __atomic_store_n(w->skipped, *w->skipped + 1, __ATOMIC_RELAXED);
    }
    char why[160];
    snprintf(w->hook_err, sizeof(w->hook_err),
             "thread %u: %d operations in a row could not be served, the last %s", w->thread,
             SBIO_FSOP_MAX_SKIP, sbio_fsop_skip_why(w->fsop, mop, why, sizeof(why)));
    return -1;
}

int sbio_wl_next(struct sbio_wl *w, struct sbio_io *io)
{
    const struct sbio_wl_shared *sh = w->sh;
    const struct sbio_layout *lay = sh->lay;

    if (w->fsync_next >= 0)
        return wl_emit_fsync(w, io);
    if (w->ending)
        return 0;
    if (sh->hook) {
        w->requests++;
        return sh->hook->next(w->hook, io, w->hook_err, sizeof(w->hook_err));
    }
    if (w->fsop)
        return wl_tree_next(w, io);
    if (sh->mix)
        return wl_mix_next(w, io);
    enum sbio_op op;
    switch (sh->mode) {
    case SBIO_MODE_SEQRD:
    case SBIO_MODE_RNDRD: op = SBIO_READ; break;
    case SBIO_MODE_RNDRW:
        op = ((double)w->reads + 1.0) / ((double)w->writes + 1.0) < sh->rw_ratio ? SBIO_READ
                                                                                 : SBIO_WRITE;
        break;
    default: op = SBIO_WRITE; break;
    }

    /* The periodic fsync round, as sysbench: it starts before the next request once the
     * thread has written and its request count is a multiple of the frequency. Sequential
     * modes only check when the next request is a write, as sysbench does. */
    if (sh->fsync_freq && w->dirty && w->requests % sh->fsync_freq == 0 &&
        (op == SBIO_WRITE || !sbio_mode_sequential(sh->mode))) {
        w->fsync_next = wl_fsync_find(w, 0);
        if (w->fsync_next >= 0)
            return wl_emit_fsync(w, io);
        w->dirty = false;
    }

    io->op = op;
    io->flags = op == SBIO_WRITE && sh->fsync_all ? SBIO_IO_FSYNC_AFTER : 0;
    if (sbio_mode_sequential(sh->mode)) {
        uint64_t unit, k;
        if (w->slice_units) {
            k = w->slice_pos++;
            unit = w->slice_first + k % w->slice_units;
        } else {
            k = __atomic_fetch_add(&w->shw->seq_next, 1, __ATOMIC_RELAXED);
            unit = k % lay->seq_units;
        }
        bool slice_start = w->slice_units && unit == w->slice_first;
        if (sh->rr)
            unit = sbio_layout_rr(lay, unit);
        w->last_unit = unit;
        sbio_layout_seq(lay, unit, &io->file, &io->offset, &io->len);
        if (sh->drop_pass && k >= (w->slice_units ? w->slice_units : lay->seq_units) &&
            (io->offset == 0 || slice_start))
            io->flags |= SBIO_IO_DROP;
    } else {
        uint64_t blk;
        if (sh->once) {
            bool new_pass;
            blk = wl_once_block(w, lay->rnd_blocks, &new_pass);
            if (new_pass && sh->drop_pass)
                io->flags |= SBIO_IO_DROP_ALL;
        } else if (sh->partition) {
            /* A block belongs to one thread, so no two threads race on it. */
            blk = sbio_rand_below(&w->rng, wl_own_blocks(w)) * sh->threads + w->thread;
        } else {
            blk = sbio_rand_below(&w->rng, lay->rnd_blocks);
        }
        sbio_layout_block(lay, blk, &io->file, &io->offset);
        io->len = (uint32_t)lay->block;
    }
    w->requests++;
    if (op == SBIO_WRITE)
        wl_mark_dirty(w, io->file);
    return 1;
}

void sbio_wl_begin_end(struct sbio_wl *w)
{
    /* A periodic round in progress is left unfinished: the end round covers it. */
    w->fsync_next = -1;
    w->ending = true;
    /* A mix asks for its end fsync itself (fsync_end), whatever it drew. */
    if (!w->sh->fsync_end || !(w->sh->mix || sbio_mode_writes(w->sh->mode)))
        return;
    w->fsync_next = wl_fsync_find(w, 0); /* the first file: dirty, or the job's */
}
