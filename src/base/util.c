#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The leading decimal digits of s into *v, *end after them. 0, -EINVAL (no digit first) or
 * -ERANGE. */
static int parse_digits(const char *s, unsigned long long *v, char **end)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -EINVAL;
    errno = 0;
    *v = strtoull(s, end, 10);
    return errno == ERANGE ? -ERANGE : 0;
}

int sbio_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    int rc = parse_digits(s, &v, &end);
    if (rc == -EINVAL || *end)
        return -EINVAL;
    if (rc)
        return rc;
    *out = v;
    return 0;
}

int sbio_parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    int rc = parse_digits(s, &v, &end);
    if (rc)
        return rc;
    unsigned shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    case 't':
    case 'T':
        shift = 40;
        end++;
        break;
    default: break;
    }
    /* Accept an optional "B" or "iB" after a suffix, and a bare "B" after plain bytes. */
    if (shift && (end[0] == 'i' || end[0] == 'I') && (end[1] == 'b' || end[1] == 'B'))
        end += 2;
    else if (end[0] == 'b' || end[0] == 'B')
        end++;
    if (*end)
        return -EINVAL;
    if (shift && v > (UINT64_MAX >> shift))
        return -ERANGE;
    *out = (uint64_t)v << shift;
    return 0;
}

int sbio_parse_double(const char *s, double *out)
{
    /* strtod also reads hexadecimal ("0x1p4" is 16): decimal only, as documented. */
    if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.') || strpbrk(s, "xX"))
        return -EINVAL;
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v) || v < 0)
        return -EINVAL;
    *out = v;
    return 0;
}

int sbio_parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"on", "true", "yes", "1"};
    static const char *const no[] = {"off", "false", "no", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = true;
            return 0;
        }
        if (!strcasecmp(s, no[i])) {
            *out = false;
            return 0;
        }
    }
    return -EINVAL;
}

bool sbio_list_has_empty(const char *list)
{
    size_t n = strlen(list);
    return n && (list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,"));
}

/* Every message is one line of text whatever it quotes (a name from a script, a file's
 * line): a control character that reached it is written escaped, never sent to the
 * terminal. */
static void util_vmsg(const char *prefix, const char *fmt, va_list ap)
{
    char buf[1024], shown[4 * sizeof(buf)];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    fprintf(stderr, "sbio: %s%s\n", prefix,
            sbio_util_escape(shown, sizeof(shown), buf, sizeof(buf)));
}

void sbio_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    util_vmsg("", fmt, ap);
    va_end(ap);
}

/* The one setting of the process kept here: every module says notes through sbio_note,
 * and threading a level through each would change every signature for one number. Written
 * once, before threads. */
static unsigned util_verbosity = 3;

void sbio_util_set_verbosity(unsigned level)
{
    util_verbosity = level;
}

unsigned sbio_util_verbosity(void)
{
    return util_verbosity;
}

void sbio_note(const char *fmt, ...)
{
    if (util_verbosity < 2)
        return;
    va_list ap;
    va_start(ap, fmt);
    util_vmsg("note: ", fmt, ap);
    va_end(ap);
}

char *sbio_fmt_ns(char *buf, size_t len, double ns)
{
    if (ns < 1000)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.*f us", ns < 1e4 ? 2 : 1, ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.*f ms", ns < 1e7 ? 2 : 1, ns / 1e6);
    else
        snprintf(buf, len, "%.2f s", ns / 1e9);
    return buf;
}

size_t sbio_text_cols(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

char *sbio_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    unsigned u = 0;
    double v = (double)bytes;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u == 0 || bytes % (1ULL << (10 * u)) == 0)
        snprintf(buf, len, "%.0f %s", v, unit[u]);
    else
        snprintf(buf, len, "%.2f %s", v, unit[u]);
    return buf;
}

char *sbio_fmt_bytes_beside(char *buf, size_t len, uint64_t bytes, uint64_t other)
{
    char o[32];
    if (bytes % 1024 == 0 &&
        strcmp(sbio_fmt_bytes(buf, len, bytes), sbio_fmt_bytes(o, sizeof(o), other)))
        return buf;
    snprintf(buf, len, "%" PRIu64 " bytes", bytes);
    return buf;
}

int sbio_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
    return sbio_pwrite_all_at(fd, buf, len, off, NULL);
}

int sbio_pwrite_all_at(int fd, const void *buf, size_t len, uint64_t off, uint64_t *fail_off)
{
    const char *p = buf;
    while (len) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (fail_off)
                *fail_off = off; /* where it failed, not where the request began */
            return n < 0 ? -errno : -EIO;
        }
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

uint64_t sbio_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x ? x : 0x9E3779B97F4A7C15ULL;
}

volatile int sbio_stop_signal;

int sbio_parse_cpus(const char *s, int *cpus, int max)
{
    int n = 0;
    const char *p = s;
    if (!*p)
        return -EINVAL;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9')
            return -EINVAL;
        long a = strtol(p, &end, 10), b = a;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                return -EINVAL;
            b = strtol(end + 1, &end, 10);
        }
        if (a > b || b >= SBIO_MAX_CPUS)
            return -EINVAL;
        for (long c = a; c <= b; c++) {
            if (n >= max)
                return -EINVAL;
            cpus[n++] = (int)c;
        }
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            return -EINVAL;
        p = end;
    }
    return n;
}

bool sbio_util_control_at(const char *s, size_t *n)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    size_t need = c >= 0xF0 && c <= 0xF4   ? 4
                  : c >= 0xE0 && c <= 0xEF ? 3
                  : c >= 0xC2 && c <= 0xDF ? 2
                                           : 1;
    *n = c ? 1 : 0;
    if (c < 0x80)
        return c && (c < 0x20 || c == 0x7F);
    if (need == 1)
        return true; /* a continuation byte alone, or a byte UTF-8 never uses */
    for (size_t i = 1; i < need; i++)
        if ((p[i] & 0xC0) != 0x80)
            return true;
    /* Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8. */
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0) || (c == 0xF0 && p[1] < 0x90) ||
        (c == 0xF4 && p[1] >= 0x90))
        return true;
    *n = need;
    return c == 0xC2 && p[1] < 0xA0; /* C1 controls */
}

const char *sbio_util_control(const char *s)
{
    size_t n;
    for (; *s; s += n)
        if (sbio_util_control_at(s, &n))
            return s;
    return NULL;
}

char *sbio_util_escape(char *buf, size_t len, const char *s, size_t max)
{
    static const char cut[] = "…";
    size_t o = 0, i = 0, n;
    if (!len)
        return buf;
    while (s[i]) {
        char e[8 * 4 + 1] = "";
        bool ctl = sbio_util_control_at(s + i, &n);
        if (!ctl) {
            memcpy(e, s + i, n);
            e[n] = 0;
        } else if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
            snprintf(e, sizeof(e), "\\%c", s[i] == '\n' ? 'n' : s[i] == '\r' ? 'r' : 't');
        } else {
            for (size_t k = 0, l = 0; k < n; k++)
                l += (size_t)snprintf(e + l, sizeof(e) - l, "\\x%02X", (unsigned char)s[i + k]);
        }
        size_t el = strlen(e);
        bool last = !s[i + n];
        /* Room for the character and, unless it is the last, for the "…" that may follow. */
        if (i + n > max || o + el + (last ? 0 : sizeof(cut) - 1) >= len) {
            if (o + sizeof(cut) - 1 < len) {
                memcpy(buf + o, cut, sizeof(cut) - 1);
                o += sizeof(cut) - 1;
            }
            break;
        }
        memcpy(buf + o, e, el);
        o += el;
        i += n;
    }
    buf[o] = 0;
    return buf;
}

char *sbio_util_user(char *buf, size_t len, uid_t uid)
{
    struct passwd pw, *res = NULL;
    char tmp[1024];
    if (!getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) && res)
        snprintf(buf, len, "%.64s (uid %u)", res->pw_name, (unsigned)uid);
    else
        snprintf(buf, len, "uid %u", (unsigned)uid);
    return buf;
}

/* "user nobody (uid 65534)", or "uid 1234" for a uid without a name. */
static void util_owner(char *buf, size_t len, uid_t uid)
{
    char who[96];
    sbio_util_user(who, sizeof(who), uid);
    snprintf(buf, len, "%s%s", strncmp(who, "uid ", 4) ? "user " : "", who);
}

/* A symbolic link the user may write through (lfd: the link itself, opened O_PATH): one of
 * root's or the user's. fd is what opening through it gave: it must be where the link leads
 * now, or the link was swapped while it was opened. 0 or -ELOOP with why. */
static int util_link_check(int pfd, int lfd, int fd, char *why, size_t len)
{
    struct stat ls, ts, fs;
    char target[PATH_MAX], who[160];
    if (fstat(lfd, &ls) || !S_ISLNK(ls.st_mode))
        goto swapped;
    if (ls.st_uid != 0 && ls.st_uid != geteuid()) {
        util_owner(who, sizeof(who), ls.st_uid);
        snprintf(why, len,
                 "a symbolic link of %s: sbio writes through a link only when it belongs to "
                 "root or to the user running sbio",
                 who);
        return -ELOOP;
    }
    if (fd < 0)
        return 0;
    ssize_t n = readlinkat(lfd, "", target, sizeof(target) - 1);
    if (n <= 0)
        goto swapped;
    target[n] = 0;
    if (!fstatat(pfd, target, &ts, 0) && !fstat(fd, &fs) && ts.st_dev == fs.st_dev &&
        ts.st_ino == fs.st_ino)
        return 0;
swapped:
    snprintf(why, len, "a symbolic link that changed while it was opened");
    return -ELOOP;
}

/* path's folder into parent (PATH_MAX bytes) and its last component into *base. 0, or
 * -ENAMETOOLONG or -EISDIR (a path ending in '/'). */
static int util_split_path(const char *path, char *parent, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (snprintf(parent, PATH_MAX, "%s", path) >= PATH_MAX)
        return -ENAMETOOLONG;
    if (slash) {
        parent[slash == path ? 1 : slash - path] = 0;
        *base = slash + 1;
    } else {
        snprintf(parent, PATH_MAX, ".");
        *base = path;
    }
    return **base ? 0 : -EISDIR;
}

/* Why an output could not be opened (errno e, mode) into why. */
static void util_open_why(int e, enum sbio_output_mode mode, char *why, size_t len)
{
    if (e == EEXIST && mode == SBIO_OUTPUT_NEW)
        snprintf(why, len,
                 "there already, and not a file of this user's to replace (a link, "
                 "a folder, another user's file or one with other names)");
    else if (e == ELOOP)
        snprintf(why, len, "a symbolic link: sbio creates this file itself");
    else if (e == ENXIO)
        snprintf(why, len, "a FIFO that nothing reads");
    else
        snprintf(why, len, "%s", strerror(e));
}

/* A sticky world-writable folder (ds): anyone may have made the file (st), or a hard link to
 * someone's file under this name, before sbio came. 0, or EPERM with why said. */
static int util_sticky_refuse(const struct stat *ds, const struct stat *st, char *why, size_t len)
{
    if (!S_ISREG(st->st_mode) || !(ds->st_mode & S_ISVTX) || !(ds->st_mode & S_IWOTH) ||
        (st->st_uid == geteuid() && st->st_nlink == 1))
        return 0;
    char who[160];
    util_owner(who, sizeof(who), st->st_uid);
    if (st->st_uid != geteuid())
        snprintf(why, len,
                 "a file of %s in a folder everyone may write (sticky): sbio does not write "
                 "another user's file there; remove it or give another path",
                 who);
    else
        snprintf(why, len,
                 "a file with %lu names (hard links) in a folder everyone may write (sticky): "
                 "sbio does not write a file others may have linked there",
                 (unsigned long)st->st_nlink);
    return EPERM;
}

int sbio_util_open_output(int dirfd, const char *path, enum sbio_output_mode mode, char *why,
                          size_t len)
{
    char parent[PATH_MAX];
    const char *base;
    int src = util_split_path(path, parent, &base);
    if (src) {
        snprintf(why, len, "%s", strerror(-src));
        return src;
    }
    int pfd = openat(dirfd, parent, O_PATH | O_DIRECTORY | O_CLOEXEC), fd = -1, lfd = -1, e = 0;
    struct stat ds, st;
    if (pfd < 0 || fstat(pfd, &ds)) {
        e = errno;
        snprintf(why, len, "folder %s: %s", parent, strerror(e));
        goto out;
    }
    int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    flags |= mode == SBIO_OUTPUT_APPEND ? O_APPEND : mode == SBIO_OUTPUT_NEW ? O_EXCL : 0;
    fd = openat(pfd, base, flags, 0666);
    if (fd < 0 && errno == EEXIST && mode == SBIO_OUTPUT_NEW) {
        /* A file of an earlier run of the user's is replaced by a new one, never written
         * into: whatever else is there (a link, a file of another's) stays as it is. */
        if (!fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid() && st.st_nlink == 1 && !unlinkat(pfd, base, 0))
            fd = openat(pfd, base, flags, 0666);
        else
            errno = EEXIST;
    }
    /* A link is ELOOP, or EACCES in a sticky folder when it is someone else's. */
    struct stat ls;
    if (fd < 0 && (errno == ELOOP || errno == EACCES) && mode != SBIO_OUTPUT_NEW &&
        !fstatat(pfd, base, &ls, AT_SYMLINK_NOFOLLOW) && S_ISLNK(ls.st_mode)) {
        lfd = openat(pfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (lfd < 0) {
            e = errno;
            snprintf(why, len, "%s", strerror(e));
            goto out;
        }
        if ((e = -util_link_check(pfd, lfd, -1, why, len)))
            goto out;
        fd = openat(pfd, base, flags & ~O_NOFOLLOW, 0666);
        if (fd >= 0 && (e = -util_link_check(pfd, lfd, fd, why, len)))
            goto out;
    }
    if (fd < 0) {
        util_open_why(e = errno, mode, why, len);
        goto out;
    }
    if (fstat(fd, &st)) {
        e = errno;
        snprintf(why, len, "%s", strerror(e));
        goto out;
    }
    if (lfd < 0 && (e = util_sticky_refuse(&ds, &st, why, len)))
        goto out;
    if (mode == SBIO_OUTPUT_TRUNCATE && S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
        e = errno;
        snprintf(why, len, "truncate: %s", strerror(e));
        goto out;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
        e = errno;
        snprintf(why, len, "%s", strerror(e));
    }
out:
    if (e && fd >= 0)
        close(fd);
    if (lfd >= 0)
        close(lfd);
    if (pfd >= 0)
        close(pfd);
    return e ? -e : fd;
}

struct util_stream {
    int fd;
    int *err;
    bool empty_first; /* SBIO_OUTPUT_LATER: the file emptied before the first write */
};

static ssize_t util_stream_write(void *cookie, const char *buf, size_t len)
{
    struct util_stream *u = cookie;
    size_t done = 0;
    if (u->empty_first) {
        u->empty_first = false;
        if (ftruncate(u->fd, 0) || lseek(u->fd, 0, SEEK_SET) < 0) {
            if (!*u->err)
                *u->err = errno;
            return -1;
        }
    }
    while (done < len) {
        ssize_t n = write(u->fd, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!*u->err)
                *u->err = n < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)len;
}

static int util_stream_close(void *cookie)
{
    struct util_stream *u = cookie;
    int rc = u->fd > STDERR_FILENO ? close(u->fd) : 0;
    if (rc && errno != EINTR && !*u->err)
        *u->err = errno;
    free(u);
    return rc && errno != EINTR ? -1 : 0;
}

static FILE *util_stream_new(int fd, const char *mode, int *err, bool empty_first)
{
    struct util_stream *u = malloc(sizeof(*u));
    if (!u)
        return NULL;
    *u = (struct util_stream){.fd = fd, .err = err, .empty_first = empty_first};
    *err = 0;
    FILE *f = fopencookie(
        u, mode, (cookie_io_functions_t){.write = util_stream_write, .close = util_stream_close});
    if (!f)
        free(u);
    return f;
}

FILE *sbio_util_stream(int fd, const char *mode, int *err)
{
    return util_stream_new(fd, mode, err, false);
}

FILE *sbio_util_stream_later(int fd, const char *mode, int *err)
{
    struct stat st;
    return util_stream_new(fd, mode, err, !fstat(fd, &st) && S_ISREG(st.st_mode));
}
