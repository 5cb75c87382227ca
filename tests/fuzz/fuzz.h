/* Helpers shared by the fuzz harnesses (tests/fuzz/fuzz_*.c).
 *
 * Each harness is one LLVMFuzzerTestOneInput, built two ways: with clang's libFuzzer for
 * `make fuzz`, and with replay.c's main() for `make test` (tests/integration/fuzz_replay.sh),
 * which runs every file of the corpus once and needs no clang runtime.
 *
 * The code under test talks through the stdio streams stdout and stderr. A harness points
 * those FILE pointers elsewhere (/dev/null, or a memory stream it checks) and never touches
 * file descriptors 1 and 2: libFuzzer keeps its own copy of the stderr pointer taken at
 * start-up, and the sanitizers write their reports to fd 2, so both stay visible. */
#ifndef SBIO_FUZZ_H
#define SBIO_FUZZ_H

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A broken invariant: say which on fd 2 (stderr may be a memory stream) and abort, which
 * both libFuzzer and the replay count as a crash, with the input saved. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            dprintf(2, "fuzz: %s:%d: invariant broken: %s: ", __FILE__, __LINE__, #cond);          \
            dprintf(2, __VA_ARGS__);                                                               \
            dprintf(2, "\n");                                                                      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* /dev/null as a FILE, opened once. */
static inline FILE *fuzz_devnull(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    FUZZ_CHECK(f != NULL, "fopen /dev/null: %s", strerror(errno));
    return f;
}

/* What the code under test prints, captured for one call. */
struct fuzz_capture {
    FILE *saved;
    char *text;
    size_t len;
    FILE *mem;
};

/* Point *stream (&stdout or &stderr) at a fresh memory stream. */
static inline void fuzz_capture_start(struct fuzz_capture *c, FILE **stream)
{
    c->text = NULL;
    c->len = 0;
    c->mem = open_memstream(&c->text, &c->len);
    FUZZ_CHECK(c->mem != NULL, "open_memstream: %s", strerror(errno));
    c->saved = *stream;
    *stream = c->mem;
}

/* Put *stream back; c->text holds what was printed (NUL-terminated), free it with
 * fuzz_capture_free. */
static inline void fuzz_capture_stop(struct fuzz_capture *c, FILE **stream)
{
    fclose(c->mem);
    *stream = c->saved;
}

static inline void fuzz_capture_free(struct fuzz_capture *c)
{
    free(c->text);
    c->text = NULL;
}

/* Error lines in captured stderr: lines that start "sbio: " but are not notes. Every line
 * must start "sbio: " (util.c's sbio_err / sbio_note): anything else was printed some other
 * way. */
static inline int fuzz_error_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p;) {
        FUZZ_CHECK(!strncmp(p, "sbio: ", 6), "a line on stderr not from sbio_err/sbio_note: %.200s",
                   p);
        if (strncmp(p, "sbio: note: ", 12))
            n++;
        const char *nl = strchr(p, '\n');
        FUZZ_CHECK(nl != NULL, "a message without a newline: %.200s", p);
        p = nl + 1;
    }
    return n;
}

/* A private folder for the harness's files, removed at exit: under $SBIO_FUZZ_TMPDIR when
 * set (the replay puts it in its own folder, so that a crashed harness leaves nothing behind),
 * else tmpfs (/dev/shm) when there is one: the manifest writer fsyncs, and on a disk that
 * would cost milliseconds an input. */
static char fuzz_tmp[256];

static inline int fuzz_tmp_unlink(const char *path, const struct stat *st, int type,
                                  struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

static inline void fuzz_tmp_remove(void)
{
    if (fuzz_tmp[0] && nftw(fuzz_tmp, fuzz_tmp_unlink, 8, FTW_DEPTH | FTW_PHYS))
        dprintf(2, "fuzz: could not remove %s\n", fuzz_tmp);
}

static inline const char *fuzz_tmp_dir(const char *name)
{
    const char *base = getenv("SBIO_FUZZ_TMPDIR");
    if (!base || !*base)
        base = !access("/dev/shm", W_OK) ? "/dev/shm" : getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(fuzz_tmp, sizeof(fuzz_tmp), "%s/sbio-%s.XXXXXX", base, name);
    FUZZ_CHECK(mkdtemp(fuzz_tmp) != NULL, "mkdtemp %s: %s", fuzz_tmp, strerror(errno));
    atexit(fuzz_tmp_remove);
    return fuzz_tmp;
}

/* Write len bytes as the whole content of path. */
static inline void fuzz_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "w");
    FUZZ_CHECK(f != NULL, "fopen %s: %s", path, strerror(errno));
    FUZZ_CHECK(fwrite(data, 1, len, f) == len || len == 0, "write %s", path);
    FUZZ_CHECK(fclose(f) == 0, "close %s: %s", path, strerror(errno));
}

#endif
