/* The tree on disk (tree.h): the walk that checks every entry against the layout rule, and
 * on it prepare, cleanup, a run's open (with its repair) and scan. Never through a symlink:
 * folders are opened with openat(O_DIRECTORY | O_NOFOLLOW), files with O_NOFOLLOW, every
 * entry is looked at with fstatat(AT_SYMLINK_NOFOLLOW) before anything is done to it. */
#include "tree_io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileset.h"
#include "fill.h"
#include "manifest.h"
#include "tree.h"
#include "util.h"

#define TREE_CHUNK (1u << 20) /* files are written in requests of at most 1 MiB */

/* What a walk does to the entries the rule names (all of them checked first by a CHECK). */
enum tree_act {
    TREE_CHECK,  /* refuse a foreign entry; fill cur_size; count */
    TREE_RMDIRS, /* remove the m… folders */
    TREE_REMOVE  /* remove everything (cleanup), folders once empty */
};

struct tree_walk {
    struct sbio_tree *t;
    int act;
    uint64_t files, folders, mdirs; /* seen (CHECK) or removed */
    char path[PATH_MAX];            /* the folder walked, relative to sbio.tree */
};

/* s as a decimal number written the one way the rule writes it (no sign, no leading zero). */
static bool tree_num(const char *s, uint64_t *out)
{
    size_t n = strspn(s, "0123456789");
    if (!n || n > 18 || (s[0] == '0' && n > 1))
        return false;
    *out = strtoull(s, NULL, 10);
    return true;
}

/* A run's mkdir name: m<phase>_<thread>_<k>. */
static bool tree_mname(const char *s)
{
    uint64_t v;
    if (*s++ != 'm')
        return false;
    for (int part = 0; part < 3; part++) {
        if (!tree_num(s, &v))
            return false;
        s += strspn(s, "0123456789");
        if (*s != (part < 2 ? '_' : '\0'))
            return false;
        s++;
    }
    return true;
}

/* Whether folder p at depth level (1 .. depth) holds a leaf: its first leaf exists. */
static bool tree_reaches(const struct sbio_tree *t, unsigned level, uint64_t p)
{
    uint64_t span = 1;
    for (unsigned i = level; i < t->depth; i++)
        span *= t->dirwidth;
    return p * span < t->leaves;
}

/* How many folders depth level holds (level 0: sbio.tree itself). */
static uint64_t tree_level_folders(const struct sbio_tree *t, unsigned level)
{
    uint64_t span = 1;
    for (unsigned i = level; i < t->depth; i++)
        span *= t->dirwidth;
    return (t->leaves + span - 1) / span;
}

/* Every folder of the tree, sbio.tree included. */
static uint64_t tree_folders(const struct sbio_tree *t)
{
    uint64_t n = 0;
    for (unsigned l = 0; l <= t->depth; l++)
        n += tree_level_folders(t, l);
    return n;
}

/* An entry the rule does not name: said, and nothing is touched. */
static int tree_foreign(const struct tree_walk *w, const char *name, const char *what)
{
    sbio_err("%s/%s/%s%s%s is %s, not part of the sbio file tree (which holds only d… folders, "
             "f<slot> files in their leaf and a run's empty m… folders); nothing was touched: "
             "remove it, or use another --dir",
             w->t->dir, SBIO_TREE_ROOT, w->path, w->path[0] ? "/" : "", name, what);
    return -SBIO_EUSAGE;
}

static const char *tree_kind(mode_t m)
{
    return S_ISLNK(m)   ? "a symlink"
           : S_ISDIR(m) ? "a folder"
           : S_ISREG(m) ? "a file"
                        : "a special file";
}

static int tree_io_err(const struct tree_walk *w, const char *name, const char *call, int e)
{
    sbio_err("%s/%s/%s%s%s: %s: %s", w->t->dir, SBIO_TREE_ROOT, w->path, w->path[0] ? "/" : "",
             name, call, strerror(e));
    return -e;
}

/* Folder name in dfd opened to be read, never through a symlink. */
static int tree_opendir(int dfd, const char *name)
{
    return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The first entry of folder fd (taken) other than . and .., into name; 0 when it is empty,
 * 1 when it is not, or -errno. */
static int tree_first_entry(int fd, char *name, size_t len)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return -e;
    }
    int rc = 0;
    for (struct dirent *e; !rc && (errno = 0, e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(name, len, "%s", e->d_name);
            rc = 1;
        }
    if (!rc && errno)
        rc = -errno;
    closedir(d);
    return rc;
}

/* A run's m… folder: empty (anything in it is foreign), removed unless checking. */
static int tree_mdir(struct tree_walk *w, int dfd, const char *name)
{
    if (w->act != TREE_CHECK) {
        if (unlinkat(dfd, name, AT_REMOVEDIR))
            return tree_io_err(w, name, "rmdir", errno);
        w->mdirs++;
        return 0;
    }
    char inner[NAME_MAX + 1], both[2 * NAME_MAX + 2];
    int fd = tree_opendir(dfd, name);
    int rc = fd < 0 ? -errno : tree_first_entry(fd, inner, sizeof(inner));
    if (rc < 0)
        return tree_io_err(w, name, "open", -rc);
    if (rc > 0) {
        snprintf(both, sizeof(both), "%s/%s", name, inner);
        return tree_foreign(w, both, "in a run's m… folder");
    }
    w->mdirs++;
    return 0;
}

static int tree_walk_dir(struct tree_walk *w, int fd, unsigned level, uint64_t prefix);

/* Folder d<k> (number p at depth level): walked, then removed when removing. */
static int tree_descend(struct tree_walk *w, int dfd, const char *name, unsigned level, uint64_t p)
{
    int fd = tree_opendir(dfd, name);
    if (fd < 0)
        return tree_io_err(w, name, "open", errno);
    size_t plen = strlen(w->path);
    snprintf(w->path + plen, sizeof(w->path) - plen, "%s%s", plen ? "/" : "", name);
    int rc = tree_walk_dir(w, fd, level, p);
    w->path[plen] = '\0';
    if (!rc && w->act == TREE_REMOVE && unlinkat(dfd, name, AT_REMOVEDIR))
        rc = tree_io_err(w, name, "rmdir", errno);
    if (!rc && (w->act == TREE_CHECK || w->act == TREE_REMOVE))
        w->folders++;
    return rc;
}

/* One entry of a folder at depth level whose number is prefix (a leaf at depth D). */
static int tree_entry(struct tree_walk *w, int dfd, const char *name, unsigned level,
                      uint64_t prefix)
{
    struct sbio_tree *t = w->t;
    struct stat st;
    uint64_t k;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return tree_io_err(w, name, "stat", errno);
    if (level < t->depth) {
        if (name[0] == 'd' && tree_num(name + 1, &k) && k < t->dirwidth && S_ISDIR(st.st_mode) &&
            tree_reaches(t, level + 1, prefix * t->dirwidth + k))
            return tree_descend(w, dfd, name, level + 1, prefix * t->dirwidth + k);
        return tree_foreign(w, name, tree_kind(st.st_mode));
    }
    if (name[0] == 'f' && tree_num(name + 1, &k) && k < t->files && k / t->dirwidth == prefix &&
        S_ISREG(st.st_mode)) {
        if (w->act == TREE_CHECK)
            t->cur_size[k] = (uint64_t)st.st_size;
        if (w->act == TREE_REMOVE && unlinkat(dfd, name, 0))
            return tree_io_err(w, name, "unlink", errno);
        w->files += w->act != TREE_RMDIRS;
        return 0;
    }
    if (tree_mname(name) && S_ISDIR(st.st_mode))
        return tree_mdir(w, dfd, name);
    return tree_foreign(w, name, tree_kind(st.st_mode));
}

/* Every entry of folder fd (taken), at depth level, number prefix. */
static int tree_walk_dir(struct tree_walk *w, int fd, unsigned level, uint64_t prefix)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return tree_io_err(w, ".", "opendir", e);
    }
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno)
                rc = tree_io_err(w, ".", "readdir", errno);
            break;
        }
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            (rc = tree_entry(w, dirfd(d), e->d_name, level, prefix)))
            break;
    }
    closedir(d);
    return rc;
}

/* Walk the whole tree from t->rootfd. A check first marks every slot free. */
static int tree_walk(struct sbio_tree *t, int act, struct tree_walk *w)
{
    memset(w, 0, sizeof(*w));
    w->t = t;
    w->act = act;
    if (act == TREE_CHECK)
        for (uint64_t s = 0; s < t->files; s++)
            t->cur_size[s] = SBIO_TREE_NONE;
    int fd = tree_opendir(t->rootfd, ".");
    if (fd < 0)
        return tree_io_err(w, ".", "open", errno);
    return tree_walk_dir(w, fd, 0, 0);
}

/* Open DIR/sbio.tree as t->rootfd: 0, -ENOENT when there is none, -SBIO_EUSAGE when it is
 * not a folder (said), or -errno. */
static int tree_open_root(struct sbio_tree *t, int dirfd)
{
    struct stat st;
    if (fstatat(dirfd, SBIO_TREE_ROOT, &st, AT_SYMLINK_NOFOLLOW))
        return -errno;
    if (!S_ISDIR(st.st_mode)) {
        sbio_err("%s/%s is %s, not the sbio file tree's folder; nothing was touched: remove it, "
                 "or use another --dir",
                 t->dir, SBIO_TREE_ROOT, tree_kind(st.st_mode));
        return -SBIO_EUSAGE;
    }
    t->rootfd = tree_opendir(dirfd, SBIO_TREE_ROOT);
    if (t->rootfd < 0) {
        int e = errno;
        sbio_err("%s/%s: open: %s", t->dir, SBIO_TREE_ROOT, strerror(e));
        return -e;
    }
    return 0;
}

/* ---- the rule, as messages say it ---- */

/* "gamma, mean 16 KiB, cvar 1.5" */
static const char *tree_law_str(const struct sbio_size_dist *z, char *buf, size_t len)
{
    char a[32], b[32];
    sbio_fmt_bytes(a, sizeof(a), z->a);
    switch (z->law) {
    case SBIO_SIZE_UNIFORM:
        snprintf(buf, len, "uniform from %s to %s", a, sbio_fmt_bytes(b, sizeof(b), z->b));
        break;
    case SBIO_SIZE_LOGNORMAL: snprintf(buf, len, "log-normal, mean %s, sigma %g", a, z->p); break;
    case SBIO_SIZE_GAMMA: snprintf(buf, len, "gamma, mean %s, cvar %g", a, z->p); break;
    default: snprintf(buf, len, "%s each", a); break;
    }
    return buf;
}

/* "2000 files, dirwidth 10, size gamma, mean 16 KiB, cvar 1.5, prealloc 0.5" */
static const char *tree_rule_str(const struct sbio_tree_decl *d, char *buf, size_t len)
{
    char law[96];
    snprintf(buf, len, "%" PRIu64 " files, dirwidth %" PRIu64 ", size %s, prealloc %g", d->files,
             d->dirwidth, tree_law_str(&d->size, law, sizeof(law)), d->prealloc);
    return buf;
}

static bool tree_same_rule(const struct sbio_tree_decl *a, const struct sbio_tree_decl *b)
{
    return a->files == b->files && a->dirwidth == b->dirwidth && a->size.law == b->size.law &&
           a->size.a == b->size.a && a->size.b == b->size.b && a->size.p == b->size.p &&
           a->prealloc == b->prealloc;
}

/* DIR's manifest as a tree's into m: 0, -ENOENT (none), or -SBIO_EUSAGE when it is a flat
 * set's or damaged (said), or -errno (said). */
static int tree_read_manifest(int dirfd, const char *dir, struct sbio_manifest_tree *m)
{
    int rc = sbio_manifest_read_tree(dirfd, m);
    if (rc == -EMEDIUMTYPE)
        sbio_err("%s holds a flat file set (test_file.N), not a file tree; run sbio cleanup "
                 "--dir %s first, or use another --dir",
                 dir, dir);
    else if (rc == -EBADMSG)
        sbio_err("%s/%s is damaged (%s); remove the tree by hand or use another --dir", dir,
                 SBIO_MANIFEST, m->damage);
    else if (rc && rc != -ENOENT && rc != -EPERM)
        sbio_err("%s/%s: open: %s", dir, SBIO_MANIFEST, strerror(-rc));
    return rc == -EMEDIUMTYPE || rc == -EBADMSG || rc == -EPERM ? -SBIO_EUSAGE : rc;
}

/* The manifest's rule and seed for t, with its state. */
static int tree_mark(const struct sbio_tree *t, int dirfd, bool complete)
{
    struct sbio_manifest_tree m = {.complete = complete, .seed = t->seed};
    m.decl = (struct sbio_tree_decl){.set = true,
                                     .files = t->files,
                                     .dirwidth = t->dirwidth,
                                     .size = t->size,
                                     .prealloc = t->prealloc};
    int rc = sbio_manifest_write_tree(dirfd, &m);
    if (rc)
        sbio_err("%s/%s: write: %s", t->dir, SBIO_MANIFEST, strerror(-rc));
    return rc;
}

/* ---- bringing the tree to prepare's state ---- */

/* What a restore did. */
struct tree_fix {
    uint64_t folders, made, resized, removed, mdirs, bytes;
};

/* Every folder of the rule, made when missing. */
static int tree_make_folders(struct sbio_tree *t, struct tree_fix *fx)
{
    char path[PATH_MAX];
    for (unsigned level = 1; level <= t->depth; level++) {
        uint64_t n = tree_level_folders(t, level), span = 1;
        for (unsigned i = level; i < t->depth; i++)
            span *= t->dirwidth;
        for (uint64_t p = 0; p < n; p++) {
            /* Folder p at this level is the prefix of leaf p * span. */
            int len = sbio_tree_leaf_path(t, p * span, path, sizeof(path));
            if (len < 0)
                return len;
            for (unsigned i = level; i < t->depth; i++)
                *strrchr(path, '/') = '\0';
            if (!mkdirat(t->rootfd, path, 0755))
                fx->folders++;
            else if (errno != EEXIST) {
                int e = errno;
                sbio_err("%s/%s/%s: mkdir: %s", t->dir, SBIO_TREE_ROOT, path, strerror(e));
                return -e;
            }
        }
    }
    return 0;
}

/* Write slot s's fill bytes over [from, to) of fd, a request of at most 1 MiB at a time. */
static int tree_fill(const struct sbio_tree *t, uint64_t s, int fd, uint64_t from, uint64_t to,
                     char *buf)
{
    struct sbio_fileset fill = {.seed = t->seed, .fill = SBIO_FILL_RANDOM};
    for (uint64_t off = from; off < to;) {
        uint64_t n = to - off < TREE_CHUNK ? to - off : TREE_CHUNK, at;
        sbio_fill_range(&fill, (unsigned)s, off, buf, n);
        int rc = sbio_pwrite_all_at(fd, buf, n, off, &at);
        if (rc)
            return rc;
        off += n;
    }
    return 0;
}

/* Slot s back to prepare's state: its file made, cut or completed, or removed. */
static int tree_fix_slot(struct sbio_tree *t, uint64_t s, struct tree_fix *fx, char *buf)
{
    uint64_t want = s < t->prealloc_files ? sbio_tree_size(t, s) : SBIO_TREE_NONE;
    uint64_t have = t->cur_size[s];
    char path[PATH_MAX];
    if (want == have)
        return 0;
    int rc = sbio_tree_path(t, s, path, sizeof(path)), fd = -1;
    const char *call = "unlink";
    if (rc >= 0 && want == SBIO_TREE_NONE) {
        rc = unlinkat(t->rootfd, path, 0) ? -errno : 0;
        fx->removed++;
    } else if (rc >= 0) {
        bool fresh = have == SBIO_TREE_NONE;
        uint64_t from = fresh ? 0 : have;
        call = "write";
        fd = openat(t->rootfd, path,
                    O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (fresh ? O_CREAT | O_EXCL : 0), 0644);
        rc = fd < 0 ? -errno : 0;
        if (!rc && from > want)
            rc = ftruncate(fd, (off_t)want) ? -errno : 0;
        else if (!rc)
            rc = tree_fill(t, s, fd, from, want, buf);
        fx->bytes += !rc && from < want ? want - from : 0;
        *(fresh ? &fx->made : &fx->resized) += 1;
    }
    if (fd >= 0)
        close(fd);
    if (rc) {
        sbio_err("%s/%s/%s: %s: %s", t->dir, SBIO_TREE_ROOT, path, call, strerror(-rc));
        return rc;
    }
    t->cur_size[s] = want;
    return 0;
}

/* The tree as prepare leaves it, from what the last check found (cur_size, mdirs): every
 * folder, slots below prealloc_files with their sizes, no other file, no m… folder; then
 * made durable with one syncfs when anything changed. Stops between files on a signal
 * (-EINTR). */
static int tree_restore(struct sbio_tree *t, uint64_t mdirs, struct tree_fix *fx)
{
    memset(fx, 0, sizeof(*fx));
    char *buf = malloc(TREE_CHUNK);
    if (!buf)
        return -ENOMEM;
    int rc = tree_make_folders(t, fx);
    for (uint64_t s = 0; s < t->files && !rc; s++) {
        if (sbio_stop_requested())
            rc = -EINTR;
        else
            rc = tree_fix_slot(t, s, fx, buf);
    }
    free(buf);
    struct tree_walk w;
    if (!rc && mdirs && !(rc = tree_walk(t, TREE_RMDIRS, &w)))
        fx->mdirs = w.mdirs;
    bool changed = fx->folders || fx->made || fx->resized || fx->removed || fx->mdirs;
    if (changed && syncfs(t->rootfd)) {
        rc = rc ? rc : -errno;
        sbio_err("%s/%s: syncfs: %s", t->dir, SBIO_TREE_ROOT, strerror(errno));
    }
    return rc;
}

/* ---- prepare ---- */

/* Refuse before anything is written when the file system lacks the room (bytes or inodes)
 * for what is still to make. 0 or -SBIO_EUSAGE (said). */
static int tree_room(const struct sbio_tree *t, int dirfd)
{
    struct statvfs sv;
    if (fstatvfs(dirfd, &sv))
        return 0; /* unknown: the writes will say */
    uint64_t unit = sv.f_frsize ? sv.f_frsize : sv.f_bsize, folders = tree_folders(t);
    uint64_t need = (folders + 1) * unit, inodes = folders;
    for (uint64_t s = 0; s < t->prealloc_files; s++) {
        uint64_t size = sbio_tree_size(t, s), have = t->cur_size[s];
        inodes += have == SBIO_TREE_NONE;
        have = have == SBIO_TREE_NONE ? 0 : have;
        if (have < size)
            need += (size - have + unit - 1) / unit * unit;
    }
    uint64_t avail = (uint64_t)sv.f_bavail * unit;
    char n[32], a[32];
    if (need > avail) {
        sbio_err("not enough free space in %s: the tree needs %s, the file system has %s "
                 "available; declare fewer or smaller files, or use another --dir",
                 t->dir, sbio_fmt_bytes(n, sizeof(n), need), sbio_fmt_bytes(a, sizeof(a), avail));
        return -SBIO_EUSAGE;
    }
    if (sv.f_files && inodes > sv.f_favail) { /* f_files 0: no fixed inode count (btrfs) */
        sbio_err("not enough free inodes in %s: the tree needs %" PRIu64 ", the file system "
                 "has %" PRIu64 " available; declare fewer files, or use another --dir",
                 t->dir, inodes, (uint64_t)sv.f_favail);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* The tree's shape in one line: slots, folders, files, made now, total, the size law. */
static void tree_announce(const struct sbio_tree *t, const struct tree_fix *fx, FILE *out)
{
    uint64_t total = 0;
    for (uint64_t s = 0; s < t->prealloc_files; s++)
        total += sbio_tree_size(t, s);
    char tot[32], law[96];
    uint64_t folders = tree_folders(t), now = fx->made + fx->resized;
    fprintf(out,
            "Tree %s/%s: %" PRIu64 " slot%s in %" PRIu64 " folder%s (%" PRIu64
            " per folder, %u level%s deep); %" PRIu64 " file%s (prealloc %g), %" PRIu64
            " made now, %s in all; sizes %s\n",
            t->dir, SBIO_TREE_ROOT, t->files, t->files == 1 ? "" : "s", folders,
            folders == 1 ? "" : "s", t->dirwidth, t->depth, t->depth == 1 ? "" : "s",
            t->prealloc_files, t->prealloc_files == 1 ? "" : "s", t->prealloc, now,
            sbio_fmt_bytes(tot, sizeof(tot), total), tree_law_str(&t->size, law, sizeof(law)));
}

/* The manifest in dirfd, checked for a prepare of d: 0 with *had, or -SBIO_EUSAGE (said). */
static int tree_prep_manifest(int dirfd, const struct sbio_settings *set,
                              const struct sbio_tree_decl *d, struct sbio_manifest_tree *m,
                              bool *had)
{
    int rc = tree_read_manifest(dirfd, set->dir, m);
    *had = !rc;
    if (rc == -ENOENT)
        return 0;
    if (rc)
        return rc;
    if (!tree_same_rule(&m->decl, d)) {
        char a[192], b[192];
        sbio_err("%s:%d: %s holds another tree (%s); the script declares %s: run sbio cleanup "
                 "--dir %s first",
                 set->script, d->line, set->dir, tree_rule_str(&m->decl, a, sizeof(a)),
                 tree_rule_str(d, b, sizeof(b)), set->dir);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* The tree as it is in dirfd, checked (cur_size filled), and the room for the rest. had: a
 * manifest names it (else a sbio.tree there is not sbio's). *mdirs: the m… folders found. */
static int tree_prep_check(struct sbio_tree *t, int dirfd, bool had, uint64_t *mdirs)
{
    struct tree_walk w = {0};
    for (uint64_t s = 0; s < t->files; s++)
        t->cur_size[s] = SBIO_TREE_NONE;
    int rc = tree_open_root(t, dirfd);
    if (!rc && !had) {
        sbio_err("%s/%s is there but no %s names it; nothing was touched: remove it, or use "
                 "another --dir",
                 t->dir, SBIO_TREE_ROOT, SBIO_MANIFEST);
        return -SBIO_EUSAGE;
    }
    if (!rc)
        rc = tree_walk(t, TREE_CHECK, &w);
    else if (rc == -ENOENT)
        rc = 0;
    *mdirs = w.mdirs;
    return rc ? rc : tree_room(t, dirfd);
}

/* The tree made (or completed) after the checks: manifest first (incomplete), folders and
 * files, then the manifest complete. */
static int tree_prep_make(struct sbio_tree *t, int dirfd, uint64_t mdirs, FILE *out)
{
    int rc = tree_mark(t, dirfd, false);
    if (rc)
        return rc;
    if (t->rootfd < 0) {
        if (mkdirat(dirfd, SBIO_TREE_ROOT, 0755) && errno != EEXIST) {
            rc = -errno;
            sbio_err("%s/%s: mkdir: %s", t->dir, SBIO_TREE_ROOT, strerror(errno));
            return rc;
        }
        if ((rc = tree_open_root(t, dirfd)))
            return rc;
    }
    uint64_t start = sbio_now_ns();
    struct tree_fix fx;
    rc = tree_restore(t, mdirs, &fx);
    if (rc == -EINTR)
        sbio_err("prepare interrupted: the tree in %s is incomplete; run sbio prepare again "
                 "to finish it, or sbio cleanup",
                 t->dir);
    if (rc || (rc = tree_mark(t, dirfd, true)))
        return rc;
    tree_announce(t, &fx, out);
    double secs = (double)(sbio_now_ns() - start) / 1e9;
    char b[32];
    if (fx.bytes)
        fprintf(out, "%s written in %.2f seconds (%.2f MiB/sec), made durable with syncfs\n",
                sbio_fmt_bytes(b, sizeof(b), fx.bytes), secs,
                secs > 0 ? (double)fx.bytes / SBIO_MIB / secs : 0.0);
    if (fx.removed || fx.mdirs)
        fprintf(out, "Removed %" PRIu64 " file%s and %" PRIu64 " folder%s prepare does not make\n",
                fx.removed, fx.removed == 1 ? "" : "s", fx.mdirs, fx.mdirs == 1 ? "" : "s");
    return 0;
}

int sbio_tree_prepare(const struct sbio_settings *set, const struct sbio_tree_decl *d, FILE *out)
{
    struct sbio_tree t = {.rootfd = -1};
    struct sbio_manifest_tree m;
    bool had = false;
    int dirfd = sbio_fileset_open_dir(set, true);
    if (dirfd < 0)
        return dirfd;
    int rc = tree_prep_manifest(dirfd, set, d, &m, &had);
    uint64_t seed = had ? m.seed : set->rand_seed ? set->rand_seed : sbio_mix64(sbio_now_ns());
    if (!rc)
        rc = sbio_tree_shape(&t, d, set->dir, seed, set->script);
    if (!rc && !(t.cur_size = malloc(t.files * sizeof(*t.cur_size))))
        rc = -ENOMEM;
    uint64_t mdirs = 0;
    if (!rc)
        rc = tree_prep_check(&t, dirfd, had, &mdirs);
    if (!rc)
        rc = tree_prep_make(&t, dirfd, mdirs, out);
    sbio_tree_close(&t);
    close(dirfd);
    return rc;
}

/* ---- cleanup ---- */

int sbio_tree_cleanup(const struct sbio_settings *set, FILE *out)
{
    struct sbio_tree t = {.rootfd = -1};
    struct sbio_manifest_tree m;
    struct tree_walk w = {0};
    int dirfd = sbio_fileset_open_dir(set, true);
    if (dirfd < 0)
        return dirfd;
    int rc = tree_read_manifest(dirfd, set->dir, &m);
    if (!rc)
        rc = sbio_tree_shape(&t, &m.decl, set->dir, m.seed, SBIO_MANIFEST);
    if (!rc && !(t.cur_size = malloc(t.files * sizeof(*t.cur_size))))
        rc = -ENOMEM;
    bool root = false;
    if (!rc) {
        rc = tree_open_root(&t, dirfd);
        root = !rc;
        rc = rc == -ENOENT ? 0 : rc;
    }
    /* Everything checked before anything is removed. */
    if (root && !rc)
        rc = tree_walk(&t, TREE_CHECK, &w);
    if (!rc) {
        fprintf(
            out, "Removing the file tree in %s/%s: %" PRIu64 " file%s, %" PRIu64 " folder%s%s\n",
            set->dir, SBIO_TREE_ROOT, w.files, w.files == 1 ? "" : "s", w.folders + w.mdirs + root,
            w.folders + w.mdirs + root == 1 ? "" : "s", m.complete ? "" : " (incomplete tree)");
        if (root)
            rc = tree_walk(&t, TREE_REMOVE, &w);
    }
    if (!rc && root && unlinkat(dirfd, SBIO_TREE_ROOT, AT_REMOVEDIR)) {
        rc = -errno;
        sbio_err("%s/%s: rmdir: %s", set->dir, SBIO_TREE_ROOT, strerror(errno));
    }
    if (!rc && unlinkat(dirfd, SBIO_MANIFEST, 0)) {
        rc = -errno;
        sbio_err("%s/%s: unlink: %s", set->dir, SBIO_MANIFEST, strerror(errno));
    }
    if (!rc)
        fsync(dirfd);
    sbio_tree_close(&t);
    close(dirfd);
    return rc;
}

/* ---- a run's open and scan ---- */

/* The manifest a run's tree must have: there, complete, d's rule. 0, TREE_RUN_MAKES when
 * there is none and d prepares no file (prealloc 0: the run makes the empty tree itself, as
 * seqwr makes a flat set), or -SBIO_EUSAGE (said). */
#define TREE_RUN_MAKES 1
static int tree_run_manifest(int dirfd, const struct sbio_settings *set,
                             const struct sbio_tree_decl *d, const char *script,
                             struct sbio_manifest_tree *m)
{
    int rc = tree_read_manifest(dirfd, set->dir, m);
    if (rc == -ENOENT && !sbio_tree_decl_made(d))
        return TREE_RUN_MAKES;
    if (rc == -ENOENT) {
        sbio_err("no file tree in %s (no %s); run sbio prepare --script %s --dir %s first",
                 set->dir, SBIO_MANIFEST, script, set->dir);
        return -SBIO_EUSAGE;
    }
    if (rc)
        return rc == -SBIO_EUSAGE ? rc : -SBIO_EUSAGE;
    if (!m->complete) {
        sbio_err("the file tree in %s is incomplete (prepare was interrupted); run sbio prepare "
                 "again to finish it, or sbio cleanup",
                 set->dir);
        return -SBIO_EUSAGE;
    }
    if (!tree_same_rule(&m->decl, d)) {
        char a[192], b[192];
        sbio_err("%s:%d: the tree in %s was prepared as %s; the script declares %s: prepare "
                 "with the same script options, or run sbio cleanup first",
                 script, d->line, set->dir, tree_rule_str(&m->decl, a, sizeof(a)),
                 tree_rule_str(d, b, sizeof(b)));
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* Say what a run's open put back (nothing when nothing was). */
static void tree_say_repair(const struct sbio_tree *t, const struct tree_fix *fx, FILE *out)
{
    if (!(fx->folders || fx->made || fx->resized || fx->removed || fx->mdirs))
        return;
    fprintf(out,
            "Tree %s/%s put back as prepared (before the run, not measured): %" PRIu64
            " file%s made again, %" PRIu64 " resized, %" PRIu64 " removed, %" PRIu64
            " folder%s made, %" PRIu64 " of a run's folders removed\n",
            t->dir, SBIO_TREE_ROOT, fx->made, fx->made == 1 ? "" : "s", fx->resized, fx->removed,
            fx->folders, fx->folders == 1 ? "" : "s", fx->mdirs);
}

/* A run's tree that prepare would make empty (TREE_RUN_MAKES): made now, as prepare makes
 * it (its checks, its manifest, its line), saying why first; then its manifest, in m. 0 or
 * what prepare or the reading returned. */
static int tree_run_make(int dirfd, const struct sbio_settings *set, const struct sbio_tree_decl *d,
                         const char *script, struct sbio_manifest_tree *m, FILE *out)
{
    fprintf(out,
            "No file tree in %s: the script's tree has no file to prepare (prealloc %g), so "
            "the run makes it, as prepare would (not measured)\n",
            set->dir, d->prealloc);
    fflush(out);
    int rc = sbio_tree_prepare(set, d, out);
    if (!rc && (rc = tree_run_manifest(dirfd, set, d, script, m)) == TREE_RUN_MAKES)
        rc = -EIO; /* prepare wrote no manifest: not expected */
    return rc;
}

int sbio_tree_open(struct sbio_tree *t, const struct sbio_settings *set,
                   const struct sbio_tree_decl *d, const char *script, FILE *out)
{
    struct sbio_manifest_tree m;
    memset(t, 0, sizeof(*t));
    t->rootfd = -1;
    int dirfd = sbio_fileset_open_dir(set, true);
    if (dirfd < 0)
        return dirfd;
    int rc = tree_run_manifest(dirfd, set, d, script, &m);
    if (rc == TREE_RUN_MAKES)
        rc = tree_run_make(dirfd, set, d, script, &m, out);
    if (!rc)
        rc = sbio_tree_shape(t, d, set->dir, m.seed, script);
    if (!rc && !(t->cur_size = malloc(t->files * sizeof(*t->cur_size))))
        rc = -ENOMEM;
    if (!rc && (rc = tree_open_root(t, dirfd)) == -ENOENT) {
        sbio_err("%s/%s is missing; run sbio cleanup and prepare again", set->dir, SBIO_TREE_ROOT);
        rc = -SBIO_EUSAGE;
    }
    struct tree_walk w;
    struct tree_fix fx;
    if (!rc)
        rc = tree_walk(t, TREE_CHECK, &w);
    if (!rc && !(rc = tree_restore(t, w.mdirs, &fx)))
        tree_say_repair(t, &fx, out);
    close(dirfd);
    if (rc)
        sbio_tree_close(t);
    return rc;
}

int sbio_tree_ready(const struct sbio_settings *set, const struct sbio_tree_decl *d,
                    const char *script)
{
    struct sbio_manifest_tree m;
    int dirfd = sbio_fileset_open_dir(set, true);
    if (dirfd < 0)
        return dirfd;
    int rc = tree_run_manifest(dirfd, set, d, script, &m);
    if (rc == TREE_RUN_MAKES) {
        /* The run would make it: as prepare would, refused when something is in its way. */
        struct sbio_tree t = {.rootfd = -1, .dir = set->dir};
        rc = tree_open_root(&t, dirfd);
        if (!rc) {
            sbio_err("%s/%s is there but no %s names it; nothing was touched: remove it, or use "
                     "another --dir",
                     set->dir, SBIO_TREE_ROOT, SBIO_MANIFEST);
            rc = -SBIO_EUSAGE;
        } else if (rc == -ENOENT) {
            rc = 0;
        }
        sbio_tree_close(&t);
    }
    close(dirfd);
    return rc;
}

int sbio_tree_scan(struct sbio_tree *t)
{
    struct tree_walk w;
    int rc = tree_walk(t, TREE_CHECK, &w);
    t->mkdirs = 0;
    return rc;
}

void sbio_tree_close(struct sbio_tree *t)
{
    if (t->rootfd >= 0)
        close(t->rootfd);
    t->rootfd = -1;
    free(t->cur_size);
    t->cur_size = NULL;
}
