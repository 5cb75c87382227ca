/* prepare and cleanup of a file set, and the writer that gives a file prepare's content,
 * with which a run completes a set its seqwr left short. */
#include "prepare.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileset.h"
#include "fill.h"
#include "manifest.h"
#include "sysblock.h"
#include "tree.h"
#include "tree_io.h"
#include "util.h"
#include "verify.h"

#define PREP_CHUNK (1u << 20) /* prepare writes in 1 MiB requests */

/* Bytes per prepare write: 1 MiB, a whole number of blocks for a verified set (each block
 * is stamped whole). */
static uint64_t prep_chunk(const struct sbio_fileset *fs)
{
    if (!fs->verify || !fs->block_size)
        return PREP_CHUNK;
    uint64_t n = PREP_CHUNK / fs->block_size;
    return (n ? n : 1) * fs->block_size;
}

/* Fill [off, off + n) of a file as prepare writes it: the fill bytes, and for a verified
 * set a generation-0 header in every block (off is then block-aligned). */
static void prep_fill(const struct sbio_fileset *fs, unsigned file, uint64_t off, void *buf,
                      uint64_t n)
{
    sbio_fill_range(fs, file, off, buf, n);
    if (!fs->verify)
        return;
    uint64_t bs = fs->block_size, size = fs->files[file].size;
    for (uint64_t b = off; b < off + n; b += bs) {
        uint64_t len = bs;
        if (b + len > size)
            len = size - b;
        if (b + len > off + n)
            len = off + n - b;
        sbio_verify_stamp((char *)buf + (b - off), len, fs->seed, file, b, 0);
    }
}

/* Where a file's written data ends: its size, or the first hole below it. A written set
 * has none, but an interrupted run with a queued engine (out-of-order completions) or mmap
 * (files given their size as a hole) can leave one; resuming at st_size would mark the set
 * complete over it. fallocate sets are all "holes" to SEEK_HOLE: their size is trusted. A
 * verified set is written in whole, stamped blocks. */
uint64_t sbio_fileset_written_end(const struct sbio_fileset *fs, unsigned file, int fd,
                                  uint64_t have)
{
    if (fs->prealloc != SBIO_PREALLOC_FALLOCATE) {
        off_t hole = lseek(fd, 0, SEEK_HOLE);
        if (hole >= 0 && (uint64_t)hole < have)
            have = (uint64_t)hole;
    }
    if (fs->verify && have < fs->files[file].size)
        have -= have % fs->block_size;
    return have;
}

/* Progress of prepare: one line per file when out is not a terminal; on a terminal one
 * updating line with bytes, rate and ETA. poll: another process's failure stops prepare. */
struct progress {
    FILE *out;
    bool tty;
    const struct sbio_fileset_poll *poll;
    uint64_t total, done, start_ns, last_ns;
};

static void progress_tick(struct progress *p, bool force)
{
    if (!p->tty)
        return;
    uint64_t now = sbio_now_ns();
    if (!force && now - p->last_ns < 200000000ULL)
        return;
    p->last_ns = now;
    double s = (double)(now - p->start_ns) / 1e9;
    double rate = s > 0 ? (double)p->done / s : 0;
    double eta = rate > 0 ? (double)(p->total - p->done) / rate : 0;
    fprintf(p->out, "\r%" PRIu64 " / %" PRIu64 " MiB  %.1f MiB/s  ETA %.0f s   ", p->done >> 20,
            p->total >> 20, rate / SBIO_MIB, eta);
    fflush(p->out);
}

/* -EINTR after a signal, -ECANCELED when another process said stop, else 0. */
static int progress_stopped(const struct progress *p)
{
    if (sbio_stop_requested())
        return -EINTR;
    if (p->poll && p->poll->stopped(p->poll->ctx))
        return -ECANCELED;
    return 0;
}

/* While prepare writes one chunk, a helper thread fills the next (double buffering): the
 * fill then overlaps the copy into the page cache, which bounds prepare as it bounds dd
 * (1 GiB on tmpfs: 64% of the CPU samples in that copy, 13% in the fill). Without a helper
 * (one chunk to write, or no thread to be had) prepare fills inline. */
struct prep_filler {
    const struct sbio_fileset *fs;
    unsigned file;
    void *buf;
    uint64_t off, n;
    bool quit;
    sem_t go, done;
    pthread_t tid;
};

static void *filler_main(void *arg)
{
    struct prep_filler *pf = arg;
    for (;;) {
        while (sem_wait(&pf->go) && errno == EINTR)
            ;
        if (pf->quit)
            return NULL;
        prep_fill(pf->fs, pf->file, pf->off, pf->buf, pf->n);
        sem_post(&pf->done);
    }
}

static bool filler_start(struct prep_filler *pf, const struct sbio_fileset *fs, unsigned file)
{
    memset(pf, 0, sizeof(*pf));
    pf->fs = fs;
    pf->file = file;
    if (sem_init(&pf->go, 0, 0))
        return false;
    if (sem_init(&pf->done, 0, 0)) {
        sem_destroy(&pf->go);
        return false;
    }
    /* Signals stay with the main thread, which checks for a stop between chunks. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&pf->tid, NULL, filler_main, pf);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        sem_destroy(&pf->go);
        sem_destroy(&pf->done);
        return false;
    }
    return true;
}

static void filler_stop(struct prep_filler *pf)
{
    pf->quit = true;
    sem_post(&pf->go);
    pthread_join(pf->tid, NULL);
    sem_destroy(&pf->go);
    sem_destroy(&pf->done);
}

/* One write of prepare. O_DIRECT (align: its alignment, 0 without it) takes only whole
 * aligned requests: a file's last partial block, or a resumed file's unaligned start, goes
 * through the page cache instead (O_DIRECT cleared for that write), and prep_range's fsync
 * makes it durable like the rest. */
static int prep_pwrite(int fd, const void *buf, uint64_t n, uint64_t off, uint64_t align,
                       uint64_t *at)
{
    bool cached = align && (off % align || n % align);
    int fl = cached ? fcntl(fd, F_GETFL) : 0;
    if (cached && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT))) {
        *at = off;
        return -errno;
    }
    int rc = sbio_pwrite_all_at(fd, buf, n, off, at);
    if (cached && fcntl(fd, F_SETFL, fl) && !rc)
        rc = -errno;
    return rc;
}

/* Write [off, end) of a file with prepare's bytes in chunk-sized writes, the next chunk
 * filled while this one is written. buf holds two chunks. p (NULL: go on through signals)
 * counts progress and decides whether a stop request interrupts. align: as prep_pwrite. */
static int prep_range(const struct sbio_fileset *fs, unsigned i, int fd, uint64_t off, uint64_t end,
                      uint64_t align, void *buf, struct progress *p)
{
    const char *name = fs->files[i].name;
    uint64_t chunk = prep_chunk(fs);
    char *bufs[2] = {buf, (char *)buf + chunk};
    struct prep_filler pf;
    bool helper = end > off && end - off > chunk && filler_start(&pf, fs, i);
    unsigned cur = 0;
    int rc = 0;
    if (off < end)
        prep_fill(fs, i, off, bufs[0], end - off < chunk ? end - off : chunk);
    while (off < end) {
        if (p && (rc = progress_stopped(p)))
            break;
        uint64_t n = end - off < chunk ? end - off : chunk;
        uint64_t next = off + n, nn = end - next < chunk ? end - next : chunk;
        if (helper && nn) {
            pf.buf = bufs[cur ^ 1];
            pf.off = next;
            pf.n = nn;
            sem_post(&pf.go);
        }
        uint64_t at = off;
        rc = prep_pwrite(fd, bufs[cur], n, off, align, &at);
        if (helper && nn)
            while (sem_wait(&pf.done) && errno == EINTR)
                ;
        else if (nn && !rc)
            prep_fill(fs, i, next, bufs[cur ^ 1], nn);
        if (rc) {
            sbio_err("%s/%s: pwrite at offset %" PRIu64 ": %s", fs->dir, name, at, strerror(-rc));
            break;
        }
        off = next;
        cur ^= 1;
        if (p) {
            p->done += n;
            progress_tick(p, false);
        }
    }
    if (helper)
        filler_stop(&pf);
    if (!rc && fsync(fd)) {
        rc = -errno;
        sbio_err("%s/%s: fsync: %s", fs->dir, name, strerror(errno));
    }
    return rc;
}

/* prep_range, a fallocate set's range allocated instead when allocate. */
static int prep_write(const struct sbio_fileset *fs, unsigned i, int fd, uint64_t off, uint64_t end,
                      bool allocate, uint64_t align, void *buf, struct progress *p)
{
    if (allocate && fs->prealloc == SBIO_PREALLOC_FALLOCATE && end > off) {
        if (fallocate(fd, 0, (off_t)off, (off_t)(end - off))) {
            int e = errno;
            sbio_err("%s/%s: fallocate at offset %" PRIu64 ": %s", fs->dir, fs->files[i].name, off,
                     strerror(e));
            return -e;
        }
        if (p)
            p->done += end - off;
        off = end;
    }
    return prep_range(fs, i, fd, off, end, align, buf, p);
}

int sbio_fileset_write_fd(const struct sbio_fileset *fs, unsigned file, int fd, uint64_t off,
                          uint64_t end, bool allocate)
{
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, 2 * prep_chunk(fs)))
        return -ENOMEM;
    int rc = prep_write(fs, file, fd, off, end, allocate, 0, buf, NULL);
    free(buf);
    return rc;
}

int sbio_fileset_complete(struct sbio_fileset *fs, uint64_t *written_bytes)
{
    int rc = 0;
    *written_bytes = 0;
    for (unsigned i = 0; i < fs->nfiles && !rc; i++) {
        const struct sbio_fileset_file *f = &fs->files[i];
        int fd = openat(fs->dirfd, f->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            rc = -errno;
            sbio_err("%s/%s: open: %s", fs->dir, f->name, strerror(errno));
            break;
        }
        struct stat st;
        if (fstat(fd, &st) || sbio_manifest_trusted(fs->dir, f->name, &st)) {
            rc = -SBIO_EUSAGE;
            close(fd);
            break;
        }
        uint64_t have = (uint64_t)st.st_size < f->size ? (uint64_t)st.st_size : f->size;
        have = sbio_fileset_written_end(fs, i, fd, have);
        if (have < f->size) {
            /* Completing goes on through a signal: the set must end up valid. */
            rc = sbio_fileset_write_fd(fs, i, fd, have, f->size, true);
            if (!rc)
                *written_bytes += f->size - have;
        }
        close(fd);
    }
    if (!rc)
        rc = sbio_fileset_mark(fs, true);
    return rc;
}

uint64_t sbio_fileset_unwritten(const struct sbio_fileset *fs)
{
    uint64_t n = 0;
    for (unsigned i = 0; fs->seqwr_short && !fs->complete && i < fs->nfiles; i++)
        n += fs->files[i].unwritten;
    return n;
}

int sbio_fileset_finish_short(struct sbio_fileset *fs, uint64_t *written_bytes)
{
    *written_bytes = 0;
    uint64_t need, avail;
    if (sbio_fileset_room(fs, &need, &avail)) {
        char n[32], f[32];
        sbio_err("%s: the set a seqwr run left short cannot be completed: it needs %s more, the "
                 "file system has %s free; free some space and run again, or sbio cleanup",
                 fs->dir, sbio_fmt_bytes(n, sizeof(n), need), sbio_fmt_bytes(f, sizeof(f), avail));
        return -ENOSPC;
    }
    int rc = 0;
    for (unsigned i = 0; i < fs->nfiles && !rc; i++) {
        struct sbio_fileset_file *f = &fs->files[i];
        if (!f->unwritten)
            continue;
        rc = sbio_fileset_write_range(fs, i, f->size - f->unwritten, f->unwritten);
        if (!rc) {
            *written_bytes += f->unwritten;
            f->unwritten = 0;
        }
    }
    uint64_t more = 0;
    if (!rc)
        rc = sbio_fileset_complete(fs, &more); /* skipped tails, fsync, manifest complete */
    *written_bytes += more;
    return rc;
}

int sbio_fileset_write_range(struct sbio_fileset *fs, unsigned file, uint64_t off, uint64_t len)
{
    const char *name = fs->files[file].name;
    int fd = openat(fs->dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int rc = -errno;
        sbio_err("%s/%s: open: %s", fs->dir, name, strerror(errno));
        return rc;
    }
    struct stat st;
    int rc = fstat(fd, &st) || sbio_manifest_trusted(fs->dir, name, &st) ? -SBIO_EUSAGE : 0;
    if (!rc)
        rc = sbio_fileset_write_fd(fs, file, fd, off, off + len, false);
    close(fd);
    return rc;
}

/* One prepare: the set, where it reports, and how far it got. */
struct prep {
    const struct sbio_settings *set;
    FILE *out;
    struct sbio_fileset fs;
    bool had_manifest; /* the set was in the folder already */
    bool was_complete; /* ... and complete: files that have their size are left alone */
    void *buf;         /* two write chunks */
    struct progress p;
    uint64_t written;
};

/* A set found in the folder is prepared as it was made: what the options give explicitly
 * must agree with its shape, fill and verification. Its block size (unless verified: the
 * headers were written at it) and preallocation are this prepare's. */
static int prep_reuse(const struct sbio_settings *set, struct sbio_fileset *fs)
{
    int rc = sbio_fileset_check_shape(fs, set);
    if (rc)
        return rc;
    if (set->fill_given && (set->fill != fs->fill || set->fill_pct != fs->fill_pct)) {
        sbio_err("--file-fill differs from the set's (%s%s); run sbio cleanup first",
                 sbio_fill_name(fs->fill), fs->fill == SBIO_FILL_COMPRESSIBLE ? ":P" : "");
        return -SBIO_EUSAGE;
    }
    if (set->verify_given && set->verify != fs->verify) {
        sbio_err("--verify=%s but the set in %s was prepared %s it; run sbio cleanup first",
                 set->verify ? "on" : "off", set->dir, fs->verify ? "with" : "without");
        return -SBIO_EUSAGE;
    }
    bool by_script = set->script && set->verify; /* the jobs' block size (prep_script_block) */
    if (fs->verify && (set->block_size_given || by_script) && set->block_size != fs->block_size) {
        char a[32];
        sbio_err("%s %s but the verified set in %s has %" PRIu64 "-byte blocks; run sbio "
                 "cleanup first",
                 by_script ? "the jobs of the script use blocks of" : "--file-block-size is",
                 sbio_fmt_bytes(a, sizeof(a), set->block_size), set->dir, fs->block_size);
        return -SBIO_EUSAGE;
    }
    if (!fs->verify)
        fs->block_size = set->block_size;
    fs->prealloc = set->prealloc;
    return 0;
}

/* sysbench writes whole --file-block-size blocks until a file has at least total/num bytes:
 * a new set's files get that size, so that sbio and sysbench make the same set (3 files of
 * 100 KiB / 3 are 3 x 48 KiB with 16 KiB blocks). Sizes a script lists are kept as given. */
static void prep_whole_blocks(struct sbio_fileset *fs, const struct sbio_settings *set)
{
    if (set->nfile_sizes || !set->block_size)
        return;
    fs->bytes = 0;
    for (unsigned i = 0; i < fs->nfiles; i++) {
        uint64_t *size = &fs->files[i].size;
        *size = (*size + set->block_size - 1) / set->block_size * set->block_size;
        fs->bytes += *size;
    }
}

/* --adopt: the test_file.N in the folder are the set the options describe, by sysbench's
 * sizing (prep_whole_blocks) — as many, each a regular file of its size. Their data is kept;
 * its pattern is unknown, so a verified run checks only the blocks it writes. 0 or
 * -SBIO_EUSAGE (message). */
static int prep_adopt_check(struct prep *pr)
{
    const struct sbio_settings *set = pr->set;
    struct sbio_fileset *fs = &pr->fs;
    unsigned have = 0;
    char a[32], b[32];
    if (set->verify) {
        sbio_err("--adopt with --verify: the adopted files' content is unknown, so nothing "
                 "could be verified; prepare a new set with --verify instead");
        return -SBIO_EUSAGE;
    }
    int rc = sbio_fileset_strays(fs->dirfd, &have);
    if (rc || have != fs->nfiles) {
        sbio_err("--adopt: %s holds %u test_file.* file%s, --file-num gives %u: give the "
                 "--file-num the set was prepared with",
                 set->dir, have, have == 1 ? "" : "s", fs->nfiles);
        return -SBIO_EUSAGE;
    }
    for (unsigned i = 0; i < fs->nfiles; i++) {
        struct stat st;
        const struct sbio_fileset_file *f = &fs->files[i];
        if (fstatat(fs->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) {
            sbio_err("--adopt: %s/%s is missing or not a regular file: only a whole set of "
                     "test_file.0 to test_file.%u can be adopted",
                     set->dir, f->name, fs->nfiles - 1);
            return -SBIO_EUSAGE;
        }
        if ((uint64_t)st.st_size != f->size) {
            sbio_err("--adopt: %s/%s is %s, the options give %s (--file-total-size / "
                     "--file-num in whole --file-block-size blocks): give the options the "
                     "set was prepared with",
                     set->dir, f->name,
                     sbio_fmt_bytes_beside(a, sizeof(a), (uint64_t)st.st_size, f->size),
                     sbio_fmt_bytes_beside(b, sizeof(b), f->size, (uint64_t)st.st_size));
            return -SBIO_EUSAGE;
        }
    }
    fs->adopted = true;
    fs->verify = false;
    fs->prealloc = SBIO_PREALLOC_WRITE;
    return 0;
}

/* The set to prepare: the folder's (checked against the options), or a new one. */
static int prep_load(struct prep *pr)
{
    const struct sbio_settings *set = pr->set;
    int rc = sbio_manifest_read(pr->fs.dirfd, &pr->fs);
    pr->had_manifest = rc == 0;
    if (rc == -EMEDIUMTYPE) {
        sbio_err("%s holds a file tree (prepared by a script with fileset { dirwidth = ... }), "
                 "not a flat set; run sbio cleanup --dir %s first, or use another --dir",
                 set->dir, set->dir);
        return -SBIO_EUSAGE;
    }
    if (rc == -EBADMSG) {
        sbio_fileset_damaged(set->dir, pr->fs.damage);
        return -SBIO_EUSAGE;
    }
    if (rc == -EPERM)
        return -SBIO_EUSAGE; /* said */
    if (rc && rc != -ENOENT) {
        sbio_err("%s/%s: open: %s", set->dir, SBIO_MANIFEST, strerror(-rc));
        return rc;
    }
    if (pr->had_manifest && set->adopt)
        sbio_note("--adopt: %s already holds an sbio file set (%s); it is prepared as usual",
                  set->dir, SBIO_MANIFEST);
    if (pr->had_manifest)
        return prep_reuse(set, &pr->fs);
    uint64_t seed = set->rand_seed ? set->rand_seed : sbio_mix64(sbio_now_ns());
    if ((rc = sbio_fileset_shape(&pr->fs, set, seed)))
        return rc;
    prep_whole_blocks(&pr->fs, set);
    return set->adopt ? prep_adopt_check(pr) : 0;
}

static void prep_announce(const struct prep *pr)
{
    const struct sbio_fileset *fs = &pr->fs;
    char each[32], total[32], files[160];
    sbio_fileset_sizes_str(fs, files, sizeof(files));
    fprintf(pr->out, "%s, %s total\n", files, sbio_fmt_bytes(total, sizeof(total), fs->bytes));
    fprintf(pr->out, "Extra file open flags: %s\n",
            sbio_extra_flags_str(each, sizeof(each), pr->set->extra_flags));
    if (pr->had_manifest && fs->complete)
        fprintf(pr->out, "Reusing the set in %s (complete); checking sizes\n", pr->set->dir);
    if (fs->prealloc == SBIO_PREALLOC_FALLOCATE)
        fprintf(pr->out, "Preallocating with fallocate: fast, but blocks read as zeros until "
                         "written and reads of them may not reach the device\n");
}

/* Open file i for prepare's writes with the --file-extra-flags, as sysbench fills its files;
 * *align is the O_DIRECT alignment (0 without it). The descriptor or -errno (message). */
static int prep_open(const struct prep *pr, unsigned i, uint64_t *align)
{
    const struct sbio_fileset *fs = &pr->fs;
    unsigned xf = pr->set->extra_flags;
    int fl = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
    fl |= sbio_extra_sync_oflags(xf) | (xf & SBIO_XF_DIRECT ? O_DIRECT : 0);
    int fd = openat(fs->dirfd, fs->files[i].name, fl, 0644);
    if (fd < 0) {
        int e = errno;
        sbio_err("%s/%s: open: %s%s", fs->dir, fs->files[i].name, strerror(e),
                 e == EINVAL && (fl & O_DIRECT)
                     ? " (the file system refuses O_DIRECT: prepare without "
                       "--file-extra-flags=direct)"
                     : "");
        return -e;
    }
    *align = fl & O_DIRECT ? sbio_direct_alignment(fs->dirfd, fs->files[i].name, NULL) : 0;
    return fd;
}

/* Bring file i to its size: created when missing, cut when longer, written on from where
 * its written content ends. */
static int prep_one(struct prep *pr, unsigned i)
{
    const struct sbio_fileset *fs = &pr->fs;
    const struct sbio_fileset_file *f = &fs->files[i];
    uint64_t align = 0;
    int fd = prep_open(pr, i, &align);
    if (fd < 0)
        return fd;
    int rc = 0;
    struct stat st;
    /* Checked on the descriptor opened (O_NOFOLLOW): the file written is the file checked. */
    if (fstat(fd, &st) || sbio_manifest_trusted(fs->dir, f->name, &st)) {
        close(fd);
        return -SBIO_EUSAGE;
    }
    uint64_t have = (uint64_t)st.st_size;
    if (have > f->size) {
        if (ftruncate(fd, (off_t)f->size)) {
            rc = -errno;
            sbio_err("%s/%s: ftruncate: %s", fs->dir, f->name, strerror(errno));
            close(fd);
            return rc;
        }
        have = f->size;
    }
    have = sbio_fileset_written_end(fs, i, fd, have);
    /* A set a seqwr run left short says where its files' unwritten bytes start: a hole in
     * a fallocate set, or a slice another thread wrote beyond it, would hide it. */
    if (f->unwritten && f->size - f->unwritten < have)
        have = f->size - f->unwritten;
    pr->p.done += have;
    if (have < f->size || !pr->was_complete) {
        char sz[32];
        if (!pr->p.tty)
            fprintf(pr->out, "Creating file %s (%s)\n", f->name,
                    sbio_fmt_bytes(sz, sizeof(sz), f->size - have));
        rc = prep_write(fs, i, fd, have, f->size, true, align, pr->buf, &pr->p);
        if (!rc)
            pr->written += f->size - have;
    }
    close(fd);
    return rc;
}

/* Mark the set complete and say what it took. */
static int prep_finish(struct prep *pr)
{
    progress_tick(&pr->p, true);
    if (pr->p.tty)
        fputc('\n', pr->out);
    /* The rate is the files' (creation to their fsync, as sysbench and dd measure), not
     * the manifest's two fsyncs after them. */
    double secs = (double)(sbio_now_ns() - pr->p.start_ns) / 1e9;
    int rc = sbio_fileset_mark(&pr->fs, true);
    if (rc)
        return rc;
    if (!pr->written)
        fprintf(pr->out, "No bytes written: every file already had its size.\n");
    else
        fprintf(pr->out, "%" PRIu64 " bytes written in %.2f seconds (%.2f MiB/sec).\n", pr->written,
                secs, secs > 0 ? (double)pr->written / SBIO_MIB / secs : 0.0);
    return 0;
}

int sbio_fileset_room(const struct sbio_fileset *fs, uint64_t *need, uint64_t *avail)
{
    struct statvfs sv;
    *need = *avail = 0;
    if (fstatvfs(fs->dirfd, &sv))
        return 0; /* unknown: the writes will say */
    uint64_t unit = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
    *need = unit; /* the manifest */
    for (unsigned i = 0; i < fs->nfiles; i++) {
        struct stat st;
        uint64_t have = 0, size = fs->files[i].size;
        if (!fstatat(fs->dirfd, fs->files[i].name, &st, AT_SYMLINK_NOFOLLOW))
            have = (uint64_t)st.st_blocks * 512; /* allocated: a hole needs room */
        if (have < size)
            *need += (size - have + unit - 1) / unit * unit;
    }
    *avail = (uint64_t)sv.f_bavail * unit;
    return *need <= *avail ? 0 : -ENOSPC;
}

/* Refuse before anything is written when the file system lacks the room for what is still
 * to write (a full file system is no state to leave behind). 0 or -SBIO_EUSAGE (message). */
static int prep_room(const struct prep *pr)
{
    uint64_t need, avail;
    if (!sbio_fileset_room(&pr->fs, &need, &avail))
        return 0;
    char n[32], a[32];
    sbio_err("not enough free space in %s: prepare needs %s, the file system has %s available; "
             "choose a smaller --file-total-size or another --dir",
             pr->set->dir, sbio_fmt_bytes(n, sizeof(n), need), sbio_fmt_bytes(a, sizeof(a), avail));
    return -SBIO_EUSAGE;
}

/* --adopt: the files stay as they are; the manifest makes them a complete set. */
static int prep_adopt_finish(struct prep *pr)
{
    int rc = sbio_fileset_mark(&pr->fs, true);
    if (!rc)
        fprintf(pr->out,
                "Adopted the %u files in %s as they are (nothing written); their "
                "content is not sbio's, so --verify checks only the blocks a run writes\n",
                pr->fs.nfiles, pr->set->dir);
    return rc;
}

static int prep_files(struct prep *pr)
{
    /* No room is bad input: refused before a line is printed. */
    int rc = pr->fs.adopted && !pr->had_manifest ? 0 : prep_room(pr);
    if (rc)
        return rc;
    prep_announce(pr);
    if (pr->fs.adopted && !pr->had_manifest)
        return prep_adopt_finish(pr);
    /* The manifest comes first, so an interrupted prepare is known and cleanable. */
    pr->was_complete = pr->fs.complete;
    rc = sbio_fileset_mark(&pr->fs, false);
    if (rc)
        return rc;
    if (posix_memalign(&pr->buf, 4096, 2 * prep_chunk(&pr->fs)))
        return -ENOMEM;
    pr->p.start_ns = sbio_now_ns();
    for (unsigned i = 0; i < pr->fs.nfiles; i++)
        pr->p.total += pr->fs.files[i].size;
    for (unsigned i = 0; i < pr->fs.nfiles; i++)
        if ((rc = prep_one(pr, i)))
            return rc;
    return prep_finish(pr);
}

/* A job's block size as its runs take it: the smallest of its blocks. */
static uint64_t prep_job_block(const struct sbio_script_job *j)
{
    uint64_t small = j->block[0];
    for (unsigned b = 1; b < j->nblocks; b++)
        small = j->block[b] < small ? j->block[b] : small;
    return small;
}

/* The one block size the jobs of script use, into *block (left alone without jobs). 0 or
 * -SBIO_EUSAGE after one line naming two jobs that differ, or the option that does. */
static int prep_script_block(const struct sbio_settings *set, const struct sbio_script *script,
                             uint64_t *block)
{
    const struct sbio_script_job *first = NULL;
    char a[32], b[32];
    for (unsigned p = 0; p < script->nphases; p++)
        for (unsigned k = 0; k < script->phases[p].njobs; k++) {
            const struct sbio_script_job *j = &script->phases[p].jobs[k];
            if (!j->nblocks)
                continue;
            if (!first) {
                first = j;
                continue;
            }
            if (prep_job_block(j) != prep_job_block(first)) {
                sbio_err("--verify: %s stamps every block of a set at one size, but job \"%s\" "
                         "uses blocks of %s and job \"%s\" of %s: give its jobs one block size, "
                         "or prepare without --verify",
                         script->path, first->name,
                         sbio_fmt_bytes(a, sizeof(a), prep_job_block(first)), j->name,
                         sbio_fmt_bytes(b, sizeof(b), prep_job_block(j)));
                return -SBIO_EUSAGE;
            }
        }
    if (!first)
        return 0;
    uint64_t want = prep_job_block(first);
    if (set->block_size_given && set->block_size != want) {
        sbio_err("--verify: --file-block-size=%s but the jobs of %s use blocks of %s, the size "
                 "the set's stamps must have: leave --file-block-size out",
                 sbio_fmt_bytes(a, sizeof(a), set->block_size), script->path,
                 sbio_fmt_bytes(b, sizeof(b), want));
        return -SBIO_EUSAGE;
    }
    *block = want;
    return 0;
}

int sbio_fileset_prepare(const struct sbio_settings *set, const struct sbio_fileset_poll *poll,
                         FILE *out)
{
    return sbio_fileset_prepare_script(set, NULL, poll, out);
}

int sbio_fileset_prepare_script(const struct sbio_settings *set, const struct sbio_script *script,
                                const struct sbio_fileset_poll *poll, FILE *out)
{
    /* A script's verified set is stamped at its jobs' block size: a copy of the options
     * carries it through prepare. */
    struct sbio_settings sset;
    if (script && set->verify) {
        sset = *set;
        int rc = prep_script_block(set, script, &sset.block_size);
        if (rc)
            return rc;
        set = &sset;
    }
    struct prep pr = {.set = set, .out = out, .fs = {.dirfd = -1, .dir = set->dir}};
    pr.p = (struct progress){.out = out, .tty = isatty(fileno(out)), .poll = poll};
    int rc = sbio_fileset_open_dir(set, true);
    if (rc < 0)
        return rc;
    pr.fs.dirfd = rc;
    if (!(rc = prep_load(&pr)) &&
        !(rc = sbio_fileset_check_names(&pr.fs, pr.had_manifest || pr.fs.adopted)))
        rc = prep_files(&pr);
    if (rc == -EINTR || rc == -ECANCELED) {
        if (pr.p.tty)
            fputc('\n', out);
        sbio_err("prepare %s: the set in %s is incomplete; run sbio prepare again to finish "
                 "it, or sbio cleanup",
                 rc == -EINTR
                     ? "interrupted"
                     : "stopped because another rank stopped (it failed or was interrupted)",
                 set->dir);
    }
    free(pr.buf);
    sbio_fileset_close(&pr.fs);
    return rc;
}

/* What cleanup removes: the files of the set that are there, counted. */
static void cleanup_announce(const struct sbio_fileset *fs, const struct sbio_settings *set,
                             FILE *out)
{
    unsigned there = 0;
    struct stat st;
    for (unsigned i = 0; i < fs->nfiles; i++)
        there += !fstatat(fs->dirfd, fs->files[i].name, &st, AT_SYMLINK_NOFOLLOW);
    fprintf(out, "Removing %u test file%s from %s", there, there == 1 ? "" : "s", set->dir);
    if (there < fs->nfiles)
        fprintf(out, " (%u of the set's %u %s already gone)", fs->nfiles - there, fs->nfiles,
                fs->nfiles - there == 1 ? "was" : "were");
    fprintf(out, "%s\n", fs->complete ? "" : " (incomplete set)");
}

int sbio_fileset_cleanup(const struct sbio_settings *set, FILE *out)
{
    struct sbio_fileset fs = {.dirfd = -1, .dir = set->dir};
    int dfd = sbio_fileset_open_dir(set, true);
    if (dfd < 0)
        return dfd;
    fs.dirfd = dfd;
    int rc = sbio_manifest_read(dfd, &fs);
    if (rc == -EMEDIUMTYPE) { /* a file tree's manifest: its own cleanup */
        sbio_fileset_close(&fs);
        return sbio_tree_cleanup(set, out);
    }
    if (rc == -ENOENT) {
        /* Idempotent where there is nothing to remove (scripts run cleanup twice); test
         * files no manifest names (a sysbench set) are what the user asked to remove, and a
         * cleanup that leaves them must not pass for one that worked: refused as run and
         * prepare refuse that folder, nothing touched. */
        unsigned left = 0;
        sbio_fileset_strays(dfd, &left);
        if (left) {
            sbio_fileset_strays_refused(set->dir, left, true);
            rc = -SBIO_EUSAGE;
            goto out;
        }
        fprintf(out, "No sbio file set in %s (no %s); nothing removed\n", set->dir, SBIO_MANIFEST);
        rc = 0;
        goto out;
    }
    if (rc) {
        if (rc == -EBADMSG)
            sbio_fileset_damaged(set->dir, fs.damage);
        else if (rc != -EPERM)
            sbio_err("%s/%s: open: %s", set->dir, SBIO_MANIFEST, strerror(-rc));
        rc = -SBIO_EUSAGE;
        goto out;
    }
    /* Every file checked before any is removed: a refusal removes nothing. */
    for (unsigned i = 0; i < fs.nfiles; i++) {
        struct stat st;
        if (!fstatat(dfd, fs.files[i].name, &st, AT_SYMLINK_NOFOLLOW) &&
            sbio_manifest_trusted(set->dir, fs.files[i].name, &st)) {
            rc = -SBIO_EUSAGE;
            goto out;
        }
    }
    cleanup_announce(&fs, set, out);
    for (unsigned i = 0; i < fs.nfiles; i++) {
        if (unlinkat(dfd, fs.files[i].name, 0) && errno != ENOENT) {
            rc = -errno;
            sbio_err("%s/%s: unlink: %s", set->dir, fs.files[i].name, strerror(errno));
            goto out;
        }
    }
    if (unlinkat(dfd, SBIO_MANIFEST, 0)) {
        rc = -errno;
        sbio_err("%s/%s: unlink: %s", set->dir, SBIO_MANIFEST, strerror(errno));
        goto out;
    }
    fsync(dfd);
out:
    sbio_fileset_close(&fs);
    return rc;
}
