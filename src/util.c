#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

static void util_vmsg(const char *prefix, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    fprintf(stderr, "sbio: %s%s\n", prefix, buf);
}

void sbio_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    util_vmsg("", fmt, ap);
    va_end(ap);
}

void sbio_note(const char *fmt, ...)
{
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
