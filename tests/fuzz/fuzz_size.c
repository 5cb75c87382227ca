/* Fuzz the value parsers of util.c: sbio_parse_size, sbio_parse_u64, sbio_parse_double and
 * sbio_parse_bool, on the input as a C string (it ends at the first NUL byte), and the
 * formatters sbio_fmt_bytes / sbio_fmt_ns on what they parse.
 *
 * Invariants:
 * - every parser returns 0, -EINVAL or -ERANGE (only the integer ones -ERANGE) and leaves
 *   the output alone on failure;
 * - a u64 is also a size, of the same value;
 * - a parsed size printed back, in bytes and with each suffix that divides it exactly
 *   (K, KiB, kb, M, …, T), parses to the same value; and with a suffix that does not fit
 *   in 64 bits, -ERANGE;
 * - a size that sbio_fmt_bytes prints as a whole number of B, KiB … TiB parses back too;
 * - a parsed double is written in decimal (digits, '.', an exponent), is finite and >= 0,
 *   and prints back (%.17g) to the same value;
 * - a parsed bool is one of the words, and the word of its value parses to it. */
#include <math.h>
#include <stdbool.h>
#include <strings.h>

#include "fuzz.h"
#include "util.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

static void size_reparse(const char *text, uint64_t want)
{
    uint64_t got = SENTINEL;
    int rc = sbio_parse_size(text, &got);
    FUZZ_CHECK(rc == 0 && got == want, "'%s' parsed to %d, %llu; want %llu", text, rc,
               (unsigned long long)got, (unsigned long long)want);
}

static void check_size(const char *s)
{
    static const char suffix[] = "KMGT";
    static const char *const tails[] = {"", "B", "iB", "ib", "b"};
    uint64_t v = SENTINEL;
    int rc = sbio_parse_size(s, &v);
    FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE, "sbio_parse_size('%s') = %d", s, rc);
    if (rc) {
        FUZZ_CHECK(v == SENTINEL, "sbio_parse_size('%s') failed but wrote %llu", s,
                   (unsigned long long)v);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
    size_reparse(buf, v);
    snprintf(buf, sizeof(buf), "%lluB", (unsigned long long)v);
    size_reparse(buf, v);
    for (unsigned i = 0; i < 4; i++) {
        unsigned shift = 10 * (i + 1);
        uint64_t n = v >> shift;
        if (n << shift != v)
            continue;
        for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
            /* "ib" (lower-case b after i) and a bare "b" are accepted spellings too. */
            char c = t % 2 ? suffix[i] : (char)(suffix[i] + 'a' - 'A');
            snprintf(buf, sizeof(buf), "%llu%c%s", (unsigned long long)n, c, tails[t]);
            size_reparse(buf, v);
        }
    }
    /* One step past what fits: the number with a suffix that overflows is -ERANGE. */
    if (v) {
        for (unsigned i = 0; i < 4; i++) {
            unsigned shift = 10 * (i + 1);
            if (v <= (UINT64_MAX >> shift))
                continue;
            uint64_t got = SENTINEL;
            snprintf(buf, sizeof(buf), "%llu%c", (unsigned long long)v, suffix[i]);
            rc = sbio_parse_size(buf, &got);
            FUZZ_CHECK(rc == -ERANGE && got == SENTINEL, "'%s' parsed to %d, %llu", buf, rc,
                       (unsigned long long)got);
        }
    }
    /* What the reports print, back: "16 KiB" without its space is "16KiB". */
    char pretty[64];
    sbio_fmt_bytes(pretty, sizeof(pretty), v);
    char *sp = strchr(pretty, ' ');
    FUZZ_CHECK(sp != NULL, "sbio_fmt_bytes(%llu) = '%s'", (unsigned long long)v, pretty);
    if (!strchr(pretty, '.') && strcmp(sp + 1, "PiB")) {
        memmove(sp, sp + 1, strlen(sp));
        size_reparse(pretty, v);
    }
}

static void check_u64(const char *s)
{
    uint64_t v = SENTINEL;
    int rc = sbio_parse_u64(s, &v);
    FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE, "sbio_parse_u64('%s') = %d", s, rc);
    if (rc) {
        FUZZ_CHECK(v == SENTINEL, "sbio_parse_u64('%s') failed but wrote", s);
        return;
    }
    uint64_t sz = SENTINEL;
    FUZZ_CHECK(sbio_parse_size(s, &sz) == 0 && sz == v, "u64 '%s' = %llu is not a size of it", s,
               (unsigned long long)v);
    char buf[32];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
    uint64_t back = SENTINEL;
    FUZZ_CHECK(sbio_parse_u64(buf, &back) == 0 && back == v, "'%s' does not parse back", buf);
}

static void check_double(const char *s)
{
    double v = -1;
    int rc = sbio_parse_double(s, &v);
    FUZZ_CHECK(rc == 0 || rc == -EINVAL, "sbio_parse_double('%s') = %d", s, rc);
    if (rc) {
        FUZZ_CHECK(v == -1, "sbio_parse_double('%s') failed but wrote %g", s, v);
        return;
    }
    FUZZ_CHECK(isfinite(v) && v >= 0, "sbio_parse_double('%s') = %g", s, v);
    FUZZ_CHECK(strspn(s, "0123456789.eE+-") == strlen(s), "'%s' is not a decimal number", s);
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", v);
    double back = -1;
    FUZZ_CHECK(sbio_parse_double(buf, &back) == 0 && back == v, "'%s' (%.17g) does not parse back",
               buf, v);
    char ns[32];
    sbio_fmt_ns(ns, sizeof(ns), v);
    FUZZ_CHECK(ns[0] && strlen(ns) < sizeof(ns), "sbio_fmt_ns(%g)", v);
}

static void check_bool(const char *s)
{
    static const char *const words[] = {"on", "off", "true", "false", "yes", "no", "1", "0"};
    bool v = false, back = !v;
    int rc = sbio_parse_bool(s, &v);
    FUZZ_CHECK(rc == 0 || rc == -EINVAL, "sbio_parse_bool('%s') = %d", s, rc);
    if (rc)
        return;
    bool known = false;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        known |= !strcasecmp(s, words[i]);
    FUZZ_CHECK(known, "sbio_parse_bool accepted '%s'", s);
    FUZZ_CHECK(sbio_parse_bool(v ? "on" : "off", &back) == 0 && back == v, "'%s' round trip", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(s != NULL, "malloc");
    memcpy(s, data, size);
    s[size] = 0;
    check_size(s);
    check_u64(s);
    check_double(s);
    check_bool(s);
    free(s);
    return 0;
}
