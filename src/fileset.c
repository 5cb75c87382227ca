#include "fileset.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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
    sbio_fileset_fill(fs, file, off, buf, n);
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

int sbio_fileset_shape(struct sbio_fileset *fs, const struct sbio_config *cfg, uint64_t seed)
{
    fs->nfiles = cfg->nfile_sizes ? cfg->nfile_sizes : (unsigned)cfg->file_num;
    fs->files = calloc(fs->nfiles, sizeof(*fs->files));
    if (!fs->files)
        return -ENOMEM;
    fs->complete = false;
    fs->total_size = cfg->total_size;
    fs->block_size = cfg->block_size;
    fs->fill = cfg->fill;
    fs->fill_pct = cfg->fill_pct;
    fs->seed = seed;
    fs->verify = cfg->verify;
    fs->prealloc = cfg->prealloc;
    fs->bytes = 0; /* As sysbench: every file gets total/num bytes, the remainder is dropped —
                    * unless a script lists its files' sizes. */
    for (unsigned i = 0; i < fs->nfiles; i++) {
        snprintf(fs->files[i].name, sizeof(fs->files[i].name), "test_file.%u", i);
        fs->files[i].size = cfg->nfile_sizes ? cfg->file_sizes[i] : cfg->total_size / cfg->file_num;
        fs->bytes += fs->files[i].size;
    }
    if (cfg->nfile_sizes)
        fs->total_size = fs->bytes;
    return 0;
}

int sbio_manifest_write(int dirfd, const struct sbio_fileset *fs)
{
    static const char tmp[] = SBIO_MANIFEST ".tmp";
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = -errno;
        close(fd);
        return e;
    }
    fprintf(f, "# sbio file set; written by sbio, read by sbio run and sbio cleanup\n");
    fprintf(f, "format=%d\n", SBIO_MANIFEST_FORMAT);
    fprintf(f, "state=%s\n", fs->complete ? "complete" : "incomplete");
    fprintf(f, "file_num=%u\n", fs->nfiles);
    fprintf(f, "total_size=%" PRIu64 "\n", fs->total_size);
    fprintf(f, "block_size=%" PRIu64 "\n", fs->block_size);
    if (fs->fill == SBIO_FILL_COMPRESSIBLE)
        fprintf(f, "fill=compressible:%" PRIu64 "\n", fs->fill_pct);
    else
        fprintf(f, "fill=%s\n", sbio_fill_name(fs->fill));
    fprintf(f, "prealloc=%s\n", fs->prealloc == SBIO_PREALLOC_FALLOCATE ? "fallocate" : "write");
    fprintf(f, "seed=%" PRIu64 "\n", fs->seed);
    fprintf(f, "verify=%d\n", fs->verify ? 1 : 0);
    for (unsigned i = 0; i < fs->nfiles; i++)
        fprintf(f, "file.%u=%s %" PRIu64 "\n", i, fs->files[i].name, fs->files[i].size);
    int rc = 0;
    if (fflush(f) || fsync(fd))
        rc = -errno;
    if (fclose(f) && !rc)
        rc = -errno;
    if (!rc && renameat(dirfd, tmp, dirfd, SBIO_MANIFEST))
        rc = -errno;
    if (!rc && fsync(dirfd))
        rc = -errno;
    if (rc)
        unlinkat(dirfd, tmp, 0);
    return rc;
}

static int manifest_bad(int line, const char *why)
{
    sbio_err("%s: line %d: %s", SBIO_MANIFEST, line, why);
    return -EBADMSG;
}

int sbio_manifest_read(int dirfd, struct sbio_fileset *fs)
{
    /* Keys a manifest lacks must not keep the caller's stale or uninitialised values (a
     * set without state= is not complete), and on any error there is nothing to free. */
    fs->files = NULL;
    fs->nfiles = 0;
    fs->bytes = 0;
    fs->complete = false;
    fs->total_size = 0;
    fs->block_size = 0;
    fs->fill = SBIO_FILL_RANDOM;
    fs->fill_pct = 0;
    fs->seed = 0;
    fs->verify = false;
    fs->prealloc = SBIO_PREALLOC_WRITE;
    int fd = openat(dirfd, SBIO_MANIFEST, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        int e = -errno;
        close(fd);
        return e;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int n = 0, rc = 0;
    bool have_format = false, have_num = false;
    unsigned seen = 0;
    while ((got = getline(&line, &cap, f)) >= 0) {
        n++;
        /* Each line read whole and as text: cut in two, its tail would be taken for a key
         * of its own; a NUL byte would hide the rest of it. sbio writes short lines. */
        size_t len = (size_t)got - (line[got - 1] == '\n');
        if (len > 511 || memchr(line, 0, len)) {
            rc = manifest_bad(n, len > 511 ? "line too long" : "NUL byte in the line");
            break;
        }
        line[strcspn(line, "\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *eq = strchr(line, '=');
        if (!eq) {
            rc = manifest_bad(n, "not key=value");
            break;
        }
        *eq = 0;
        const char *k = line, *v = eq + 1;
        uint64_t u = 0;
        if (!strcmp(k, "format")) {
            if (sbio_parse_u64(v, &u) || u != SBIO_MANIFEST_FORMAT) {
                rc = manifest_bad(n, "unknown format version");
                break;
            }
            have_format = true;
        } else if (!strcmp(k, "state")) {
            if (strcmp(v, "complete") && strcmp(v, "incomplete")) {
                rc = manifest_bad(n, "state is neither complete nor incomplete");
                break;
            }
            fs->complete = !strcmp(v, "complete");
        } else if (!strcmp(k, "file_num")) {
            if (sbio_parse_u64(v, &u) || u == 0 || u > 1000000 || fs->files) {
                rc = manifest_bad(n, "bad file_num");
                break;
            }
            fs->nfiles = (unsigned)u;
            fs->files = calloc(fs->nfiles, sizeof(*fs->files));
            if (!fs->files) {
                rc = -ENOMEM;
                break;
            }
            have_num = true;
        } else if (!strcmp(k, "total_size") || !strcmp(k, "block_size") || !strcmp(k, "seed")) {
            if (sbio_parse_u64(v, &u)) {
                rc = manifest_bad(n, "not a number");
                break;
            }
            *(k[0] == 't' ? &fs->total_size : k[0] == 'b' ? &fs->block_size : &fs->seed) = u;
        } else if (!strcmp(k, "fill")) {
            if (!strcmp(v, "random"))
                fs->fill = SBIO_FILL_RANDOM;
            else if (!strcmp(v, "zero"))
                fs->fill = SBIO_FILL_ZERO;
            else if (!strncmp(v, "compressible:", 13) && !sbio_parse_u64(v + 13, &u) && u <= 100) {
                fs->fill = SBIO_FILL_COMPRESSIBLE;
                fs->fill_pct = u;
            } else {
                rc = manifest_bad(n, "unknown fill");
                break;
            }
        } else if (!strcmp(k, "prealloc")) {
            fs->prealloc = strcmp(v, "fallocate") ? SBIO_PREALLOC_WRITE : SBIO_PREALLOC_FALLOCATE;
        } else if (!strcmp(k, "verify")) {
            fs->verify = !strcmp(v, "1");
        } else if (!strncmp(k, "file.", 5)) {
            char name[64], num[32], extra[2];
            uint64_t idx, size;
            int name_end = 0;
            /* The size as strictly as any number ("-1" or "12x" are damage), and each
             * index once: a repeated entry would leave another one unnamed. A name too long
             * for name[] must not be cut, the rest of it read as the size. */
            if (!have_num || sbio_parse_u64(k + 5, &idx) || idx >= fs->nfiles ||
                fs->files[idx].name[0] ||
                sscanf(v, "%63s%n %31s %1s", name, &name_end, num, extra) != 2 ||
                !isspace((unsigned char)v[name_end]) || sbio_parse_u64(num, &size) ||
                strchr(name, '/') || strlen(name) >= sizeof(fs->files[0].name)) {
                rc = manifest_bad(n, "bad file entry");
                break;
            }
            snprintf(fs->files[idx].name, sizeof(fs->files[idx].name), "%s", name);
            fs->files[idx].size = size;
            fs->bytes += size;
            seen++;
        }
        /* Unknown keys are skipped: a newer sbio may add some. */
    }
    free(line);
    fclose(f);
    if (!rc && (!have_format || !have_num || seen != fs->nfiles))
        rc = manifest_bad(n, "missing format, file_num or a file entry");
    if (rc) {
        free(fs->files);
        fs->files = NULL;
    }
    return rc;
}

int sbio_fileset_check_shape(const struct sbio_fileset *fs, const struct sbio_config *cfg)
{
    if (sbio_options_given(cfg, "file-num") && cfg->file_num != fs->nfiles) {
        sbio_err("--file-num=%" PRIu64 " but the set in %s has %u files; run sbio cleanup "
                 "and prepare again, or use another --dir",
                 cfg->file_num, fs->dir, fs->nfiles);
        return -SBIO_EUSAGE;
    }
    if (sbio_options_given(cfg, "file-total-size") && cfg->total_size != fs->total_size) {
        sbio_err("--file-total-size=%" PRIu64 " but the set in %s was prepared with %" PRIu64
                 " bytes; run sbio cleanup and prepare again, or use another --dir",
                 cfg->total_size, fs->dir, fs->total_size);
        return -SBIO_EUSAGE;
    }
    return 0;
}

void sbio_fileset_fill(const struct sbio_fileset *fs, unsigned file, uint64_t off, void *buf,
                       uint64_t len)
{
    unsigned char *out = buf;
    if (fs->fill == SBIO_FILL_ZERO) {
        memset(out, 0, len);
        return;
    }
    uint64_t zeros = fs->fill == SBIO_FILL_COMPRESSIBLE ? SBIO_FILL_CHUNK * fs->fill_pct / 100 : 0;
    /* Whole chunks four at a time, straight into the output: four independent xorshift
     * chains keep the CPU busy where one serial chain leaves it waiting (prepare is bound by
     * this loop). The bytes are those of the chunk-by-chunk path below. */
    while (len >= 4 * SBIO_FILL_CHUNK && off % SBIO_FILL_CHUNK == 0) {
        uint64_t chunk = off / SBIO_FILL_CHUNK, st[4];
        for (int k = 0; k < 4; k++)
            st[k] = sbio_mix64(fs->seed ^ sbio_mix64(((uint64_t)file << 40) ^ (chunk + k)));
        for (size_t w = 0; w < SBIO_FILL_CHUNK / 8; w++)
            for (int k = 0; k < 4; k++) {
                uint64_t v = sbio_rand64(&st[k]);
                memcpy(out + k * SBIO_FILL_CHUNK + w * 8, &v, 8);
            }
        if (zeros)
            for (int k = 0; k < 4; k++)
                memset(out + k * SBIO_FILL_CHUNK, 0, zeros);
        out += 4 * SBIO_FILL_CHUNK;
        off += 4 * SBIO_FILL_CHUNK;
        len -= 4 * SBIO_FILL_CHUNK;
    }
    while (len) {
        uint64_t chunk = off / SBIO_FILL_CHUNK, in = off % SBIO_FILL_CHUNK;
        uint64_t n = SBIO_FILL_CHUNK - in < len ? SBIO_FILL_CHUNK - in : len;
        uint64_t words[SBIO_FILL_CHUNK / 8];
        uint64_t st = sbio_mix64(fs->seed ^ sbio_mix64(((uint64_t)file << 40) ^ chunk));
        for (size_t w = 0; w < SBIO_FILL_CHUNK / 8; w++)
            words[w] = sbio_rand64(&st);
        if (zeros)
            memset(words, 0, zeros);
        memcpy(out, (unsigned char *)words + in, n);
        out += n;
        off += n;
        len -= n;
    }
}

/* Progress of prepare: one line per file when stdout is not a terminal; on a terminal
 * one updating line with bytes, rate and ETA. */
struct progress {
    bool tty;
    bool keep_going;                      /* completing a set: a signal must not leave it short */
    const struct sbio_fileset_poll *poll; /* another process's failure stops prepare too */
    uint64_t total, done, start_ns, last_ns;
};

/* Where a file's written data ends: its size, or the first hole below it. A written set
 * has none, but an interrupted run with a queued engine (out-of-order completions) or mmap
 * (files given their size as a hole) can leave one; resuming at st_size would mark the set
 * complete over it. fallocate sets are all "holes" to SEEK_HOLE: their size is trusted. */
static uint64_t data_end(const struct sbio_fileset *fs, int fd, uint64_t size)
{
    if (fs->prealloc == SBIO_PREALLOC_FALLOCATE)
        return size;
    off_t hole = lseek(fd, 0, SEEK_HOLE);
    return hole >= 0 && (uint64_t)hole < size ? (uint64_t)hole : size;
}

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
    printf("\r%" PRIu64 " / %" PRIu64 " MiB  %.1f MiB/s  ETA %.0f s   ", p->done >> 20,
           p->total >> 20, rate / SBIO_MIB, eta);
    fflush(stdout);
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

/* Write [off, end) of a file with prepare's bytes in chunk-sized writes, the next chunk
 * filled while this one is written. buf holds two chunks. p (may be NULL) counts progress
 * and decides whether a stop request interrupts. */
static int prep_range(const struct sbio_fileset *fs, unsigned i, int fd, uint64_t off, uint64_t end,
                      void *buf, struct progress *p)
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
        if (p && !p->keep_going) {
            if (sbio_stop_requested())
                rc = -EINTR;
            else if (p->poll && p->poll->stopped(p->poll->ctx))
                rc = -ECANCELED;
            if (rc)
                break;
        }
        uint64_t n = end - off < chunk ? end - off : chunk;
        uint64_t next = off + n, nn = end - next < chunk ? end - next : chunk;
        if (helper && nn) {
            pf.buf = bufs[cur ^ 1];
            pf.off = next;
            pf.n = nn;
            sem_post(&pf.go);
        }
        uint64_t at = off;
        rc = sbio_pwrite_all_at(fd, bufs[cur], n, off, &at);
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

/* Bring one file to its size: write [from, size) (or fallocate it), then fsync. buf holds
 * two chunks. */
static int prep_file(struct sbio_fileset *fs, unsigned i, int fd, uint64_t from, void *buf,
                     struct progress *p)
{
    const struct sbio_fileset_file *f = &fs->files[i];
    if (fs->prealloc == SBIO_PREALLOC_FALLOCATE && f->size > from) {
        if (fallocate(fd, 0, (off_t)from, (off_t)(f->size - from))) {
            int e = errno;
            sbio_err("%s/%s: fallocate at offset %" PRIu64 ": %s", fs->dir, f->name, from,
                     strerror(e));
            return -e;
        }
        p->done += f->size - from;
        from = f->size;
    }
    return prep_range(fs, i, fd, from, f->size, buf, p);
}

static int open_dir(const struct sbio_config *cfg, bool for_write)
{
    int dfd = open(cfg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        int e = errno;
        sbio_err("--dir %s: %s%s", cfg->dir, strerror(e),
                 e == ENOENT ? "; create the folder first" : "");
        return -SBIO_EUSAGE;
    }
    /* Root passes every permission check but not a read-only mount: access() says EROFS. */
    if (for_write && faccessat(dfd, ".", W_OK, AT_EACCESS) && errno == EROFS) {
        sbio_err("--dir %s is on a read-only file system: choose a writable --dir (or "
                 "remount it read-write)",
                 cfg->dir);
        close(dfd);
        return -SBIO_EUSAGE;
    }
    return dfd;
}

/* Check every name the set will use before anything is written: a file that no manifest
 * names is foreign; a symlink or a non-regular file is never written through. */
static int prep_check_names(int dfd, const struct sbio_fileset *fs, bool manifest_names_them,
                            const char *dir)
{
    for (unsigned i = 0; i < fs->nfiles; i++) {
        struct stat st;
        if (fstatat(dfd, fs->files[i].name, &st, AT_SYMLINK_NOFOLLOW)) {
            if (errno == ENOENT)
                continue;
            sbio_err("%s/%s: stat: %s", dir, fs->files[i].name, strerror(errno));
            return -SBIO_EUSAGE;
        }
        if (S_ISLNK(st.st_mode)) {
            sbio_err("%s/%s is a symbolic link; sbio never writes through one: remove it", dir,
                     fs->files[i].name);
            return -SBIO_EUSAGE;
        }
        if (!S_ISREG(st.st_mode)) {
            sbio_err("%s/%s is not a regular file: remove it or use another --dir", dir,
                     fs->files[i].name);
            return -SBIO_EUSAGE;
        }
        if (!manifest_names_them) {
            sbio_err("%s/%s exists and belongs to no sbio file set (no %s): remove it or "
                     "use another --dir",
                     dir, fs->files[i].name, SBIO_MANIFEST);
            return -SBIO_EUSAGE;
        }
    }
    return 0;
}

int sbio_fileset_prepare(const struct sbio_config *cfg, const struct sbio_fileset_poll *poll)
{
    struct sbio_fileset fs = {.dirfd = -1, .dir = cfg->dir};
    void *buf = NULL;
    int rc;
    int dfd = open_dir(cfg, true);
    if (dfd < 0)
        return dfd;
    fs.dirfd = dfd;

    rc = sbio_manifest_read(dfd, &fs);
    bool had_manifest = rc == 0;
    if (rc == -EBADMSG) {
        sbio_err("%s/%s is damaged; remove the set by hand or use another --dir", cfg->dir,
                 SBIO_MANIFEST);
        rc = -SBIO_EUSAGE;
        goto out;
    }
    if (rc && rc != -ENOENT) {
        sbio_err("%s/%s: open: %s", cfg->dir, SBIO_MANIFEST, strerror(-rc));
        goto out;
    }
    if (had_manifest) {
        fs.dir = cfg->dir;
        if ((rc = sbio_fileset_check_shape(&fs, cfg)))
            goto out;
        if (sbio_options_given(cfg, "file-fill") &&
            (cfg->fill != fs.fill || cfg->fill_pct != fs.fill_pct)) {
            sbio_err("--file-fill differs from the set's (%s%s); run sbio cleanup first",
                     sbio_fill_name(fs.fill), fs.fill == SBIO_FILL_COMPRESSIBLE ? ":P" : "");
            rc = -SBIO_EUSAGE;
            goto out;
        }
        if (sbio_options_given(cfg, "verify") && cfg->verify != fs.verify) {
            sbio_err("--verify=%s but the set in %s was prepared %s it; run sbio cleanup first",
                     cfg->verify ? "on" : "off", cfg->dir, fs.verify ? "with" : "without");
            rc = -SBIO_EUSAGE;
            goto out;
        }
        /* A verified set keeps the block size its headers were written at. */
        if (fs.verify && sbio_options_given(cfg, "file-block-size") &&
            cfg->block_size != fs.block_size) {
            sbio_err("--file-block-size=%" PRIu64 " but the verified set in %s has %" PRIu64
                     "-byte blocks; run sbio cleanup first",
                     cfg->block_size, cfg->dir, fs.block_size);
            rc = -SBIO_EUSAGE;
            goto out;
        }
        if (!fs.verify)
            fs.block_size = cfg->block_size;
        fs.prealloc = cfg->prealloc;
    } else {
        uint64_t seed = cfg->rand_seed ? cfg->rand_seed : sbio_mix64(sbio_now_ns());
        if ((rc = sbio_fileset_shape(&fs, cfg, seed)))
            goto out;
    }
    if ((rc = prep_check_names(dfd, &fs, had_manifest, cfg->dir)))
        goto out;

    char sz[32];
    printf("%u files, %s each, %s total\n", fs.nfiles,
           sbio_fmt_bytes(sz, sizeof(sz), fs.nfiles ? fs.files[0].size : 0),
           sbio_fmt_bytes((char[32]){0}, 32, fs.bytes));
    if (had_manifest && fs.complete)
        printf("Reusing the set in %s (complete); checking sizes\n", cfg->dir);
    if (fs.prealloc == SBIO_PREALLOC_FALLOCATE)
        printf("Preallocating with fallocate: fast, but blocks read as zeros until written "
               "and reads of them may not reach the device\n");

    /* The manifest comes first, so an interrupted prepare is known and cleanable. */
    bool was_complete = fs.complete;
    fs.complete = false;
    if ((rc = sbio_manifest_write(dfd, &fs))) {
        sbio_err("%s/%s: write: %s", cfg->dir, SBIO_MANIFEST, strerror(-rc));
        goto out;
    }
    if (posix_memalign(&buf, 4096, 2 * prep_chunk(&fs))) {
        rc = -ENOMEM;
        goto out;
    }
    struct progress p = {.tty = isatty(STDOUT_FILENO), .start_ns = sbio_now_ns(), .poll = poll};
    for (unsigned i = 0; i < fs.nfiles; i++)
        p.total += fs.files[i].size;
    uint64_t written = 0;
    for (unsigned i = 0; i < fs.nfiles; i++) {
        const struct sbio_fileset_file *f = &fs.files[i];
        int fd = openat(dfd, f->name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            rc = -errno;
            sbio_err("%s/%s: open: %s", cfg->dir, f->name, strerror(errno));
            goto out;
        }
        struct stat st;
        fstat(fd, &st);
        uint64_t have = (uint64_t)st.st_size;
        if (have > f->size) {
            if (ftruncate(fd, (off_t)f->size)) {
                rc = -errno;
                sbio_err("%s/%s: ftruncate: %s", cfg->dir, f->name, strerror(errno));
                close(fd);
                goto out;
            }
            have = f->size;
        }
        have = data_end(&fs, fd, have);
        /* A verified set is written in whole, stamped blocks. */
        if (fs.verify && have < f->size)
            have -= have % fs.block_size;
        p.done += have;
        if (have == f->size && was_complete) {
            close(fd);
            continue;
        }
        if (!p.tty)
            printf("Creating file %s (%s)\n", f->name,
                   sbio_fmt_bytes(sz, sizeof(sz), f->size - have));
        rc = prep_file(&fs, i, fd, have, buf, &p);
        close(fd);
        if (rc)
            goto out;
        written += f->size - have;
    }
    progress_tick(&p, true);
    if (p.tty)
        putchar('\n');
    fs.complete = true;
    if ((rc = sbio_manifest_write(dfd, &fs))) {
        sbio_err("%s/%s: write: %s", cfg->dir, SBIO_MANIFEST, strerror(-rc));
        goto out;
    }
    double secs = (double)(sbio_now_ns() - p.start_ns) / 1e9;
    if (!written)
        printf("No bytes written: every file already had its size.\n");
    else
        printf("%" PRIu64 " bytes written in %.2f seconds (%.2f MiB/sec).\n", written, secs,
               secs > 0 ? (double)written / SBIO_MIB / secs : 0.0);
out:
    if (rc == -EINTR || rc == -ECANCELED) {
        if (isatty(STDOUT_FILENO))
            putchar('\n');
        sbio_err("prepare %s: the set in %s is incomplete; run sbio prepare again to finish "
                 "it, or sbio cleanup",
                 rc == -EINTR
                     ? "interrupted"
                     : "stopped because another rank stopped (it failed or was interrupted)",
                 cfg->dir);
    }
    free(buf);
    sbio_fileset_close(&fs);
    return rc;
}

int sbio_fileset_cleanup(const struct sbio_config *cfg)
{
    struct sbio_fileset fs = {.dirfd = -1, .dir = cfg->dir};
    int dfd = open_dir(cfg, true);
    if (dfd < 0)
        return dfd;
    fs.dirfd = dfd;
    int rc = sbio_manifest_read(dfd, &fs);
    if (rc == -ENOENT) {
        /* Idempotent: scripts run cleanup twice; no manifest means nothing of ours. */
        printf("No sbio file set in %s (no %s); nothing removed\n", cfg->dir, SBIO_MANIFEST);
        rc = 0;
        goto out;
    }
    if (rc) {
        if (rc != -EBADMSG)
            sbio_err("%s/%s: open: %s", cfg->dir, SBIO_MANIFEST, strerror(-rc));
        else
            sbio_err("%s/%s is damaged; nothing removed", cfg->dir, SBIO_MANIFEST);
        rc = -SBIO_EUSAGE;
        goto out;
    }
    printf("Removing %u test files from %s%s\n", fs.nfiles, cfg->dir,
           fs.complete ? "" : " (incomplete set)");
    for (unsigned i = 0; i < fs.nfiles; i++) {
        if (unlinkat(dfd, fs.files[i].name, 0) && errno != ENOENT) {
            rc = -errno;
            sbio_err("%s/%s: unlink: %s", cfg->dir, fs.files[i].name, strerror(errno));
            goto out;
        }
    }
    if (unlinkat(dfd, SBIO_MANIFEST, 0)) {
        rc = -errno;
        sbio_err("%s/%s: unlink: %s", cfg->dir, SBIO_MANIFEST, strerror(errno));
        goto out;
    }
    fsync(dfd);
out:
    sbio_fileset_close(&fs);
    return rc;
}

int sbio_fileset_open(struct sbio_fileset *fs, const struct sbio_config *cfg, bool allow_create,
                      bool *created)
{
    *created = false;
    fs->dirfd = -1;
    fs->dir = cfg->dir;
    fs->files = NULL;
    /* Write modes need a writable folder (seqwr empties and completes files; every write
     * mode marks the manifest or writes the files): say so before anything starts. */
    bool writes = cfg->mode == SBIO_MODE_SEQWR || cfg->mode == SBIO_MODE_SEQREWR ||
                  cfg->mode == SBIO_MODE_RNDWR || cfg->mode == SBIO_MODE_RNDRW;
    int dfd = open_dir(cfg, writes);
    if (dfd < 0)
        return dfd;
    fs->dirfd = dfd;
    int rc = sbio_manifest_read(dfd, fs);
    fs->dir = cfg->dir;
    if (rc == -ENOENT && allow_create) {
        /* As sysbench, seqwr on an empty folder makes the set itself. */
        uint64_t seed = cfg->rand_seed ? cfg->rand_seed : sbio_mix64(sbio_now_ns());
        if ((rc = sbio_fileset_shape(fs, cfg, seed)))
            return rc;
        if ((rc = prep_check_names(dfd, fs, false, cfg->dir)))
            return rc;
        if ((rc = sbio_manifest_write(dfd, fs))) {
            sbio_err("%s/%s: write: %s", cfg->dir, SBIO_MANIFEST, strerror(-rc));
            return rc;
        }
        for (unsigned i = 0; i < fs->nfiles; i++) {
            int fd =
                openat(dfd, fs->files[i].name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd < 0) {
                rc = -errno;
                sbio_err("%s/%s: open: %s", cfg->dir, fs->files[i].name, strerror(errno));
                return rc;
            }
            close(fd);
        }
        *created = true;
        return 0;
    }
    if (rc == -ENOENT) {
        sbio_err("no file set in %s (no %s); run sbio prepare first", cfg->dir, SBIO_MANIFEST);
        return -SBIO_EUSAGE;
    }
    if (rc == -EBADMSG) {
        sbio_err("%s/%s is damaged; run sbio cleanup and prepare again", cfg->dir, SBIO_MANIFEST);
        return -SBIO_EUSAGE;
    }
    if (rc) {
        sbio_err("%s/%s: open: %s", cfg->dir, SBIO_MANIFEST, strerror(-rc));
        return rc;
    }
    if (!fs->complete) {
        sbio_err("the file set in %s is incomplete (prepare was interrupted); run sbio "
                 "prepare again to finish it, or sbio cleanup",
                 cfg->dir);
        return -SBIO_EUSAGE;
    }
    if ((rc = sbio_fileset_check_shape(fs, cfg)))
        return rc;
    for (unsigned i = 0; i < fs->nfiles; i++) {
        struct stat st;
        const struct sbio_fileset_file *f = &fs->files[i];
        if (fstatat(dfd, f->name, &st, AT_SYMLINK_NOFOLLOW)) {
            sbio_err("%s/%s: %s; run sbio prepare again", cfg->dir, f->name, strerror(errno));
            return -SBIO_EUSAGE;
        }
        if (!S_ISREG(st.st_mode)) {
            sbio_err("%s/%s is not a regular file; run sbio cleanup and prepare again", cfg->dir,
                     f->name);
            return -SBIO_EUSAGE;
        }
        if ((uint64_t)st.st_size != f->size) {
            sbio_err("%s/%s is %" PRIu64 " bytes, the manifest says %" PRIu64
                     "; run sbio prepare again",
                     cfg->dir, f->name, (uint64_t)st.st_size, f->size);
            return -SBIO_EUSAGE;
        }
    }
    return 0;
}

int sbio_fileset_mark(struct sbio_fileset *fs, bool complete)
{
    fs->complete = complete;
    int rc = sbio_manifest_write(fs->dirfd, fs);
    if (rc)
        sbio_err("%s/%s: write: %s", fs->dir, SBIO_MANIFEST, strerror(-rc));
    return rc;
}

int sbio_fileset_complete(struct sbio_fileset *fs, uint64_t *written_bytes)
{
    void *buf = NULL;
    int rc = 0;
    *written_bytes = 0;
    if (posix_memalign(&buf, 4096, 2 * prep_chunk(fs)))
        return -ENOMEM;
    struct progress p = {.tty = false, .keep_going = true};
    for (unsigned i = 0; i < fs->nfiles; i++) {
        const struct sbio_fileset_file *f = &fs->files[i];
        int fd = openat(fs->dirfd, f->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            rc = -errno;
            sbio_err("%s/%s: open: %s", fs->dir, f->name, strerror(errno));
            break;
        }
        struct stat st;
        fstat(fd, &st);
        uint64_t have = (uint64_t)st.st_size < f->size ? (uint64_t)st.st_size : f->size;
        have = data_end(fs, fd, have);
        if (fs->verify && have < f->size)
            have -= have % fs->block_size;
        if (have < f->size) {
            /* Completing goes on through a signal (p.keep_going): the set must end up valid. */
            rc = prep_file(fs, i, fd, have, buf, &p);
            *written_bytes += f->size - have;
        }
        close(fd);
        if (rc)
            break;
    }
    free(buf);
    if (!rc)
        rc = sbio_fileset_mark(fs, true);
    return rc;
}

int sbio_fileset_write_range(struct sbio_fileset *fs, unsigned file, uint64_t off, uint64_t len)
{
    const char *name = fs->files[file].name;
    void *buf = NULL;
    int rc = 0;
    int fd = openat(fs->dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        sbio_err("%s/%s: open: %s", fs->dir, name, strerror(errno));
        return rc;
    }
    if (posix_memalign(&buf, 4096, 2 * prep_chunk(fs))) {
        close(fd);
        return -ENOMEM;
    }
    rc = prep_range(fs, file, fd, off, off + len, buf, NULL);
    free(buf);
    close(fd);
    return rc;
}

/* Is the whole disk `disk` (or a partition of it) the device of a mount? */
static bool device_mounted(dev_t disk, const char *disk_name)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned maj, min;
        if (sscanf(line, "%*d %*d %u:%u", &maj, &min) != 2)
            continue;
        if (makedev(maj, min) == disk) {
            found = true;
            break;
        }
        /* A partition: /sys/dev/block/MAJ:MIN resolves under the disk's folder. */
        char link[64], real[PATH_MAX];
        snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
        if (realpath(link, real)) {
            char *slash = strrchr(real, '/');
            if (slash && slash > real) {
                *slash = 0;
                const char *parent = strrchr(real, '/');
                found = parent && !strcmp(parent + 1, disk_name);
            }
        }
    }
    fclose(f);
    return found;
}

int sbio_fileset_open_device(struct sbio_fileset *fs, const struct sbio_config *cfg)
{
    memset(fs, 0, sizeof(*fs));
    fs->dirfd = -1;
    fs->dir = cfg->dir;
    fs->raw = true;
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(cfg->filename, real) || stat(real, &st)) {
        sbio_err("--filename=%s: %s", cfg->filename, strerror(errno));
        return -SBIO_EUSAGE;
    }
    if (!S_ISBLK(st.st_mode)) {
        sbio_err("--filename=%s is not a block device; accepted: a device node such as "
                 "/dev/sdb (files go in --dir)",
                 cfg->filename);
        return -SBIO_EUSAGE;
    }
    bool writes = cfg->mode == SBIO_MODE_SEQWR || cfg->mode == SBIO_MODE_SEQREWR ||
                  cfg->mode == SBIO_MODE_RNDWR || cfg->mode == SBIO_MODE_RNDRW;
    if (writes) {
        if (!cfg->allow_destroy) {
            sbio_err("--filename=%s with --file-test-mode=%s overwrites the device; add "
                     "--allow-destroy if its data may be destroyed",
                     cfg->filename, sbio_mode_name(cfg->mode));
            return -SBIO_EUSAGE;
        }
        const char *base = strrchr(real, '/');
        if (device_mounted(st.st_rdev, base ? base + 1 : real)) {
            sbio_err("--filename=%s is mounted (or a partition of it is): sbio never writes "
                     "to a mounted device",
                     cfg->filename);
            return -SBIO_EUSAGE;
        }
        /* O_EXCL on a block device is an exclusive claim: it fails while anyone (a file
         * system, md, dm) holds it. */
        int fd = open(real, O_RDONLY | O_EXCL | O_CLOEXEC);
        if (fd < 0) {
            sbio_err("--filename=%s is in use (%s): sbio never writes to a device something "
                     "else holds",
                     cfg->filename, strerror(errno));
            return -SBIO_EUSAGE;
        }
        close(fd);
    }
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    uint64_t size = 0;
    if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size)) {
        int e = errno;
        sbio_err("--filename=%s: size: %s", cfg->filename, strerror(e));
        if (fd >= 0)
            close(fd);
        return -SBIO_EUSAGE;
    }
    close(fd);
    if (strlen(real) >= sizeof(fs->files[0].name)) {
        sbio_err("--filename=%s: the path is too long", cfg->filename);
        return -SBIO_EUSAGE;
    }
    fs->files = calloc(1, sizeof(*fs->files));
    if (!fs->files)
        return -ENOMEM;
    fs->nfiles = 1;
    memcpy(fs->files[0].name, real, strlen(real) + 1);
    fs->files[0].size = size;
    fs->bytes = size;
    fs->total_size = size;
    fs->block_size = cfg->block_size;
    fs->complete = true;
    fs->seed = cfg->rand_seed;
    return 0;
}

void sbio_fileset_close(struct sbio_fileset *fs)
{
    if (fs->dirfd >= 0)
        close(fs->dirfd);
    fs->dirfd = -1;
    free(fs->files);
    fs->files = NULL;
}
