#include "manifest.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree.h"
#include "util.h"
#include "vocab.h"

/* The temporary manifest of dirfd, created afresh (never through a symlink, never another's
 * file: a stale or planted one is removed first, and O_EXCL fails if one comes back), as a
 * stream for writing; NULL with errno set. */
static FILE *manifest_create_tmp(int dirfd, const char *name)
{
    unlinkat(dirfd, name, 0);
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

int sbio_manifest_trusted(const char *dir, const char *name, const struct stat *st)
{
    uid_t me = geteuid();
    if (st->st_uid == me || st->st_uid == 0)
        return 0;
    char owner[96], self[96];
    sbio_err("%s/%s belongs to %s, not to you (%s) or root: sbio works only on a set of its own "
             "user's files, so nothing was done; remove it as its owner, or use another --dir",
             dir, name, sbio_util_user(owner, sizeof(owner), st->st_uid),
             sbio_util_user(self, sizeof(self), me));
    return -SBIO_EUSAGE;
}

static int manifest_commit(int dirfd, FILE *f);
/* The manifest of dirfd opened for reading: a regular file that its owner may trust
 * (sbio_manifest_trusted), checked on the descriptor opened, so the file checked is the file
 * read. Its folder's path, for the message, comes from the kernel: the reader relies on none
 * of its caller's fields. 0 with *out, -EPERM (message printed) or -errno. */
static int manifest_open_read(int dirfd, FILE **out)
{
    const char *dir = NULL;
    *out = NULL;
    int fd = openat(dirfd, SBIO_MANIFEST, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    char path[PATH_MAX], link[64];
    int rc = 0;
    if (fstat(fd, &st))
        rc = -errno;
    else if (!S_ISREG(st.st_mode))
        rc = -EBADMSG;
    if (!rc && !dir) {
        snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
        ssize_t n = readlink(link, path, sizeof(path) - 1);
        path[n > 0 ? n : 0] = 0;
        dir = n > 0 ? path : ".";
    }
    if (!rc && sbio_manifest_trusted(dir, SBIO_MANIFEST, &st))
        rc = -EPERM;
    if (!rc && !(*out = fdopen(fd, "r")))
        rc = -errno;
    if (rc)
        close(fd);
    return rc;
}

int sbio_manifest_write(int dirfd, const struct sbio_fileset *fs)
{
    FILE *f = manifest_create_tmp(dirfd, SBIO_MANIFEST ".tmp");
    if (!f)
        return -errno;
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
    if (fs->adopted)
        fprintf(f, "adopted=1\n");
    bool short_set = !fs->complete && fs->seqwr_short;
    if (short_set) /* early: sbio_manifest_left_short reads the start alone */
        fprintf(f, "short=seqwr\n");
    for (unsigned i = 0; i < fs->nfiles; i++)
        fprintf(f, "file.%u=%s %" PRIu64 "\n", i, fs->files[i].name, fs->files[i].size);
    for (unsigned i = 0; short_set && i < fs->nfiles; i++)
        if (fs->files[i].unwritten)
            fprintf(f, "rewrite.%u=%" PRIu64 "\n", i, fs->files[i].size - fs->files[i].unwritten);
    for (unsigned i = 0; i < fs->nfiles; i++)
        if (fs->files[i].appended)
            fprintf(f, "appended.%u=1\n", i);
    return manifest_commit(dirfd, f);
}

/* f, written as the temporary manifest of dirfd, made the manifest: flushed, fsynced,
 * renamed over the old one, the folder fsynced. 0 or -errno (the temporary file removed). */
static int manifest_commit(int dirfd, FILE *f)
{
    static const char tmp[] = SBIO_MANIFEST ".tmp";
    int rc = 0;
    if (fflush(f) || fsync(fileno(f)))
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

/* The largest block --file-block-size takes. */
#define MANIFEST_MAX_BLOCK (1ULL << 30)

/* Damage found at line `line`: why, kept in damage for the caller's one message. */
static int manifest_bad(char *damage, int line, const char *why)
{
    snprintf(damage, SBIO_MANIFEST_DAMAGE_LEN, "line %d: %s", line, why);
    return -EBADMSG;
}

/* What a read has met so far, for the checks at the end. */
struct manifest_seen {
    bool format, num;
    unsigned files;
};

/* Keys a manifest lacks must not keep the caller's stale or uninitialised values (a set
 * without state= is not complete), and on any error there is nothing to free. */
static void manifest_defaults(struct sbio_fileset *fs)
{
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
    fs->adopted = false;
    fs->seqwr_short = false;
    fs->prealloc = SBIO_PREALLOC_WRITE;
    fs->damage[0] = 0;
}

/* file.N=NAME SIZE (line n). */
static int manifest_file(struct sbio_fileset *fs, struct manifest_seen *seen, int n, const char *k,
                         const char *v)
{
    char name[64], num[32], extra[2];
    uint64_t idx, size;
    int name_end = 0;
    /* The size as strictly as any number ("-1" or "12x" are damage), and each index once: a
     * repeated entry would leave another one unnamed. A name too long for name[] must not be
     * cut, the rest of it read as the size. */
    if (!seen->num || sbio_parse_u64(k + 5, &idx) || idx >= fs->nfiles || fs->files[idx].name[0] ||
        sscanf(v, "%63s%n %31s %1s", name, &name_end, num, extra) != 2 ||
        !isspace((unsigned char)v[name_end]) || sbio_parse_u64(num, &size) || strchr(name, '/') ||
        strlen(name) >= sizeof(fs->files[0].name))
        return manifest_bad(fs->damage, n, "bad file entry");
    /* sbio names file N test_file.N and nothing else: a manifest that names another file
     * (the manifest itself, "..", a victim's file) is no set of sbio's. */
    char want[32];
    snprintf(want, sizeof(want), "test_file.%" PRIu64, idx);
    if (strcmp(name, want))
        return manifest_bad(fs->damage, n, "bad file entry (file.N names test_file.N)");
    snprintf(fs->files[idx].name, sizeof(fs->files[idx].name), "%s", name);
    fs->files[idx].size = size;
    fs->bytes += size;
    seen->files++;
    return 0;
}

/* appended.N=1 (line n), after file.N: file N may be longer than its size. */
static int manifest_appended(struct sbio_fileset *fs, int n, const char *k, const char *v)
{
    uint64_t idx;
    if (sbio_parse_u64(k + 9, &idx) || idx >= fs->nfiles || !fs->files[idx].name[0] ||
        strcmp(v, "1"))
        return manifest_bad(fs->damage, n, "bad appended entry");
    fs->files[idx].appended = true;
    return 0;
}

/* rewrite.N=OFFSET (line n), after file.N: where file N's unwritten bytes start. */
static int manifest_rewrite(struct sbio_fileset *fs, int n, const char *k, const char *v)
{
    uint64_t idx, off;
    if (sbio_parse_u64(k + 8, &idx) || idx >= fs->nfiles || !fs->files[idx].name[0] ||
        sbio_parse_u64(v, &off) || off >= fs->files[idx].size || fs->files[idx].unwritten)
        return manifest_bad(fs->damage, n, "bad rewrite entry");
    fs->files[idx].unwritten = fs->files[idx].size - off;
    return 0;
}

/* fill=random|zero|compressible:P (line n). */
static int manifest_fill(struct sbio_fileset *fs, int n, const char *v)
{
    uint64_t u = 0;
    if (!strcmp(v, "random")) {
        fs->fill = SBIO_FILL_RANDOM;
    } else if (!strcmp(v, "zero")) {
        fs->fill = SBIO_FILL_ZERO;
    } else if (!strncmp(v, "compressible:", 13) && !sbio_parse_u64(v + 13, &u) && u <= 100) {
        fs->fill = SBIO_FILL_COMPRESSIBLE;
        fs->fill_pct = u;
    } else {
        return manifest_bad(fs->damage, n, "unknown fill");
    }
    return 0;
}

/* Take the value v of key k (line n) into fs. 0, -EBADMSG after a message, -EMEDIUMTYPE (a
 * tree's manifest) or -ENOMEM. */
static int manifest_key(struct sbio_fileset *fs, struct manifest_seen *seen, int n, const char *k,
                        const char *v)
{
    uint64_t u = 0;
    if (!strcmp(k, "format")) {
        if (sbio_parse_u64(v, &u) || u != SBIO_MANIFEST_FORMAT)
            return manifest_bad(fs->damage, n, "unknown format version");
        seen->format = true;
    } else if (!strcmp(k, "state")) {
        if (strcmp(v, "complete") && strcmp(v, "incomplete"))
            return manifest_bad(fs->damage, n, "state is neither complete nor incomplete");
        fs->complete = !strcmp(v, "complete");
    } else if (!strcmp(k, "file_num")) {
        if (sbio_parse_u64(v, &u) || u == 0 || u > 1000000 || fs->files)
            return manifest_bad(fs->damage, n, "bad file_num");
        fs->nfiles = (unsigned)u;
        fs->files = calloc(fs->nfiles, sizeof(*fs->files));
        if (!fs->files)
            return -ENOMEM;
        seen->num = true;
    } else if (!strcmp(k, "total_size") || !strcmp(k, "block_size") || !strcmp(k, "seed")) {
        if (sbio_parse_u64(v, &u))
            return manifest_bad(fs->damage, n, "not a number");
        if (k[0] == 'b' && (u == 0 || u > MANIFEST_MAX_BLOCK))
            return manifest_bad(fs->damage, n, "block_size out of range");
        *(k[0] == 't' ? &fs->total_size : k[0] == 'b' ? &fs->block_size : &fs->seed) = u;
    } else if (!strcmp(k, "fill")) {
        return manifest_fill(fs, n, v);
    } else if (!strcmp(k, "prealloc")) {
        if (strcmp(v, "write") && strcmp(v, "fallocate"))
            return manifest_bad(fs->damage, n, "prealloc is neither write nor fallocate");
        fs->prealloc = strcmp(v, "fallocate") ? SBIO_PREALLOC_WRITE : SBIO_PREALLOC_FALLOCATE;
    } else if (!strcmp(k, "verify") || !strcmp(k, "adopted")) {
        if (strcmp(v, "0") && strcmp(v, "1"))
            return manifest_bad(fs->damage, n,
                                k[0] == 'v' ? "verify is neither 0 nor 1"
                                            : "adopted is neither 0 nor 1");
        *(k[0] == 'v' ? &fs->verify : &fs->adopted) = !strcmp(v, "1");
    } else if (!strncmp(k, "file.", 5)) {
        return manifest_file(fs, seen, n, k, v);
    } else if (!strcmp(k, "short")) {
        if (strcmp(v, "seqwr"))
            return manifest_bad(fs->damage, n, "short is not seqwr");
        fs->seqwr_short = true;
    } else if (!strncmp(k, "rewrite.", 8)) {
        return manifest_rewrite(fs, n, k, v);
    } else if (!strncmp(k, "appended.", 9)) {
        return manifest_appended(fs, n, k, v);
    } else if (!strcmp(k, "set") && !strcmp(v, "tree")) {
        return -EMEDIUMTYPE; /* a file tree's: the caller says what that means to it */
    }
    /* Unknown keys are skipped: a newer sbio may add some. */
    return 0;
}

/* The reader of one key=value line (n): 0 or a negative errno that stops the read. */
typedef int (*manifest_key_fn)(void *ctx, int n, const char *k, const char *v);

/* Read the lines of f, each key to key(ctx, …); *n counts them. */
static int manifest_lines(FILE *f, manifest_key_fn key, void *ctx, int *n, char *damage)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = 0;
    while (!rc && (got = getline(&line, &cap, f)) >= 0) {
        (*n)++;
        /* Each line read whole and as text: cut in two, its tail would be taken for a key
         * of its own; a NUL byte would hide the rest of it. sbio writes short lines. */
        size_t len = (size_t)got - (line[got - 1] == '\n');
        if (len > 511 || memchr(line, 0, len)) {
            rc = manifest_bad(damage, *n, len > 511 ? "line too long" : "NUL byte in the line");
            break;
        }
        line[strcspn(line, "\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *eq = strchr(line, '=');
        if (!eq) {
            rc = manifest_bad(damage, *n, "not key=value");
            break;
        }
        *eq = 0;
        rc = key(ctx, *n, line, eq + 1);
    }
    free(line);
    return rc;
}

struct manifest_flat {
    struct sbio_fileset *fs;
    struct manifest_seen seen;
};

static int manifest_flat_key(void *ctx, int n, const char *k, const char *v)
{
    struct manifest_flat *c = ctx;
    return manifest_key(c->fs, &c->seen, n, k, v);
}

static int manifest_name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each name once: a set naming a file twice counts it as two files, and cleanup, having
 * removed it, would stop at the second (a damaged manifest). 0, -EBADMSG (said) or -ENOMEM. */
static int manifest_unique(struct sbio_fileset *fs, int n)
{
    const char **names = malloc(fs->nfiles * sizeof(*names));
    if (!names)
        return -ENOMEM;
    for (unsigned i = 0; i < fs->nfiles; i++)
        names[i] = fs->files[i].name;
    qsort(names, fs->nfiles, sizeof(*names), manifest_name_cmp);
    int rc = 0;
    for (unsigned i = 1; i < fs->nfiles && !rc; i++)
        if (!strcmp(names[i - 1], names[i]))
            rc = manifest_bad(fs->damage, n, "a file is named twice");
    free(names);
    return rc;
}

bool sbio_manifest_left_short(int dirfd)
{
    /* state= and short= come before the file entries: the first lines are enough. */
    char buf[4096];
    int fd = openat(dirfd, SBIO_MANIFEST, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    ssize_t n = !fstat(fd, &st) && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf) - 1) : -1;
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    return strstr(buf, "\nstate=incomplete\n") && strstr(buf, "\nshort=seqwr\n");
}

int sbio_manifest_read(int dirfd, struct sbio_fileset *fs)
{
    manifest_defaults(fs);
    FILE *f;
    int orc = manifest_open_read(dirfd, &f);
    if (orc)
        return orc;
    struct manifest_flat ctx = {.fs = fs};
    int n = 0;
    int rc = manifest_lines(f, manifest_flat_key, &ctx, &n, fs->damage);
    const struct manifest_seen seen = ctx.seen;
    fclose(f);
    if (!rc && (!seen.format || !seen.num || seen.files != fs->nfiles))
        rc = manifest_bad(fs->damage, n, "missing format, file_num or a file entry");
    if (!rc)
        rc = manifest_unique(fs, n);
    /* Only a short set's files have bytes to write; a complete set's count for nothing. */
    for (unsigned i = 0; !rc && i < fs->nfiles && !(fs->seqwr_short && !fs->complete); i++)
        fs->files[i].unwritten = 0;
    if (rc) {
        free(fs->files);
        fs->files = NULL;
    }
    return rc;
}

/* ---- a file tree's manifest ---- */

static const char *const manifest_laws[] = {"fixed", "uniform", "lognormal", "gamma"};

int sbio_manifest_write_tree(int dirfd, const struct sbio_manifest_tree *m)
{
    const struct sbio_tree_decl *d = &m->decl;
    FILE *f = manifest_create_tmp(dirfd, SBIO_MANIFEST ".tmp");
    if (!f)
        return -errno;
    fprintf(f, "# sbio file tree; written by sbio, read by sbio run and sbio cleanup\n");
    fprintf(f, "format=%d\n", SBIO_MANIFEST_FORMAT);
    fprintf(f, "set=tree\n");
    fprintf(f, "state=%s\n", m->complete ? "complete" : "incomplete");
    fprintf(f, "seed=%" PRIu64 "\n", m->seed);
    fprintf(f, "tree.files=%" PRIu64 "\n", d->files);
    fprintf(f, "tree.dirwidth=%" PRIu64 "\n", d->dirwidth);
    /* %a: the law's parameter and the share back to the bit (the sizes depend on them). */
    fprintf(f, "tree.size=%s %" PRIu64 " %" PRIu64 " %a\n", manifest_laws[d->size.law], d->size.a,
            d->size.b, d->size.p);
    fprintf(f, "tree.prealloc=%a\n", d->prealloc);
    return manifest_commit(dirfd, f);
}

/* What a tree's read has met: a bit per key that must be there. */
enum { MT_FORMAT = 1, MT_SET = 2, MT_FILES = 4, MT_WIDTH = 8, MT_SIZE = 16, MT_PREALLOC = 32 };
#define MT_ALL 63

struct manifest_tree_read {
    struct sbio_manifest_tree *m;
    unsigned seen;
};

/* A finite number, the whole of s. */
static int manifest_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end == s || *end || errno || !isfinite(*out) ? -EINVAL : 0;
}

/* tree.size=LAW A B P, in the ranges the prelude accepts. */
static int manifest_tree_size(struct sbio_size_dist *z, const char *v)
{
    char law[16], a[32], b[32], p[64], extra[2];
    if (sscanf(v, "%15s %31s %31s %63s %1s", law, a, b, p, extra) != 4 ||
        sbio_parse_u64(a, &z->a) || sbio_parse_u64(b, &z->b) || manifest_double(p, &z->p) ||
        !z->a || z->a > z->b)
        return -EINVAL;
    for (int i = SBIO_SIZE_FIXED; i <= SBIO_SIZE_GAMMA; i++)
        if (!strcmp(law, manifest_laws[i])) {
            z->law = i;
            return i >= SBIO_SIZE_LOGNORMAL && !(z->p > 0) ? -EINVAL : 0;
        }
    return -EINVAL;
}

static int manifest_tree_key(void *ctx, int n, const char *k, const char *v)
{
    struct manifest_tree_read *r = ctx;
    struct sbio_tree_decl *d = &r->m->decl;
    uint64_t u;
    int bad = 0, bit = 0;
    if (!strcmp(k, "format")) {
        bad = sbio_parse_u64(v, &u) || u != SBIO_MANIFEST_FORMAT;
        bit = MT_FORMAT;
    } else if (!strcmp(k, "set")) {
        if (strcmp(v, "tree"))
            return -EMEDIUMTYPE;
        bit = MT_SET;
    } else if (!strcmp(k, "file_num")) {
        return -EMEDIUMTYPE; /* a flat set's */
    } else if (!strcmp(k, "state")) {
        bad = strcmp(v, "complete") && strcmp(v, "incomplete");
        r->m->complete = !strcmp(v, "complete");
    } else if (!strcmp(k, "seed")) {
        bad = sbio_parse_u64(v, &r->m->seed);
    } else if (!strcmp(k, "tree.files") || !strcmp(k, "tree.dirwidth")) {
        bool files = k[5] == 'f';
        bad = sbio_parse_u64(v, &u) || u < (files ? 1 : 2) || u > SBIO_TREE_MAX_FILES;
        *(files ? &d->files : &d->dirwidth) = u;
        bit = files ? MT_FILES : MT_WIDTH;
    } else if (!strcmp(k, "tree.size")) {
        bad = manifest_tree_size(&d->size, v);
        bit = MT_SIZE;
    } else if (!strcmp(k, "tree.prealloc")) {
        bad = manifest_double(v, &d->prealloc) || d->prealloc < 0 || d->prealloc > 1;
        bit = MT_PREALLOC;
    }
    if (bad) {
        char why[80];
        snprintf(why, sizeof(why), "bad %.40s", k);
        return manifest_bad(r->m->damage, n, why);
    }
    r->seen |= (unsigned)bit;
    return 0;
}

int sbio_manifest_read_tree(int dirfd, struct sbio_manifest_tree *m)
{
    memset(m, 0, sizeof(*m));
    FILE *f;
    int orc = manifest_open_read(dirfd, &f);
    if (orc)
        return orc;
    struct manifest_tree_read r = {.m = m};
    int n = 0;
    int rc = manifest_lines(f, manifest_tree_key, &r, &n, m->damage);
    fclose(f);
    if (!rc && !(r.seen & MT_SET))
        rc = -EMEDIUMTYPE;
    if (!rc && r.seen != MT_ALL)
        rc = manifest_bad(m->damage, n, "missing format or a tree.* key");
    m->decl.set = !rc;
    return rc;
}
