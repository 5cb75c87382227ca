/* Small helpers shared by every module: value parsing, clocks, messages, formatting. */
#ifndef SBIO_UTIL_H
#define SBIO_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#define SBIO_KIB 1024ULL
#define SBIO_MIB (1024ULL * 1024)
#define SBIO_GIB (1024ULL * 1024 * 1024)

/* Monotonic clock in ns. Costs one vDSO call (~20 ns here). */
static inline uint64_t sbio_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Parse a size: plain bytes or a number with K/M/G/T (either case, binary multiples),
 * optionally followed by B or iB ("16K", "16KiB", "16kb", "2G", "4096").
 * Returns 0, -EINVAL when malformed, -ERANGE on overflow. */
int sbio_parse_size(const char *s, uint64_t *out);

/* Parse a non-negative decimal integer (no sign, no suffix). 0, -EINVAL or -ERANGE. */
int sbio_parse_u64(const char *s, uint64_t *out);

/* Parse a finite non-negative decimal number. 0 or -EINVAL. */
int sbio_parse_double(const char *s, double *out);

/* Parse on/off, true/false, yes/no, 1/0 (case-insensitive). 0 or -EINVAL. */
int sbio_parse_bool(const char *s, bool *out);

/* Whether a comma-separated list has an empty item (",a", "a,,b", "a,"). Lists with one are
 * refused, as --cpus always did, rather than read as if the item were not there. */
bool sbio_list_has_empty(const char *list);

/* "sbio: " + message + newline on stderr. The one way modules talk to the user about
 * errors; they still return -errno and let main.c decide the exit code. */
void sbio_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sbio: note: " + message, for things that are accepted but worth knowing; said only at
 * a verbosity of 2 or more (sbio_util_set_verbosity). */
void sbio_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* sysbench's --verbosity for the process (3 until set): set once by main, before any thread
 * starts; errors are said at every level. */
void sbio_util_set_verbosity(unsigned level);
unsigned sbio_util_verbosity(void);

/* Format a duration in ns with a unit that fits: "850 ns", "12.3 us", "4.56 ms", "1.20 s".
 * Never prints "0.00 ms" for a non-zero value. Returns buf. */
char *sbio_fmt_ns(char *buf, size_t len, double ns);

/* The columns a UTF-8 string takes: its characters (bytes less continuation bytes), so
 * that "±" and "µ" count once when text is aligned. */
size_t sbio_text_cols(const char *s);
/* Format a byte count: "512 B", "16 KiB", "1.5 GiB" (exact integers printed without
 * decimals). Returns buf. */
char *sbio_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/* bytes as sbio_fmt_bytes says it when that is exact (a whole KiB) and tells it from other,
 * else as "N bytes" (65539 is not "64.00 KiB"): for messages that name two sizes that
 * differ. */
char *sbio_fmt_bytes_beside(char *buf, size_t len, uint64_t bytes, uint64_t other);

/* Write all of buf at off with pwrite, retrying short writes and EINTR.
 * Returns 0 or -errno. */
int sbio_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);
/* The same; on failure *fail_off (when not NULL) is the offset of the write that failed. */
int sbio_pwrite_all_at(int fd, const void *buf, size_t len, uint64_t off, uint64_t *fail_off);

/* xorshift64* : fast, good enough for offsets and fill data; never returns the same
 * stream for different non-zero seeds. State must be non-zero. */
static inline uint64_t sbio_rand64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* A device's %util over secs from its io_ticks delta (ms busy), at most 100: the kernel
 * counts io_ticks in whole jiffies at both ends of a busy period, so a device busy the
 * whole of a short run can show more busy time than the run lasted. */
static inline double sbio_util_pct(uint64_t io_ms, double secs)
{
    double u = secs > 0 ? 100.0 * (double)io_ms / 1e3 / secs : 0;
    return u < 100 ? u : 100;
}

/* splitmix64: turns (seed, thread id) into well-spread non-zero PRNG states. */
uint64_t sbio_mix64(uint64_t x);

/* Uniform integer in [0, n) without modulo bias worth measuring (Lemire's multiply). */
static inline uint64_t sbio_rand_below(uint64_t *state, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)sbio_rand64(state) * n) >> 64);
}

/* What a command function returns, and the exit status main.c makes of it (in one place):
 *   0                  done                                                       exit 0
 *   -SBIO_EUSAGE       bad usage or bad input: nothing on disk was touched        exit 2
 *   -SBIO_EFAILED      it ran and failed: a run's I/O error, a setting not
 *                      restored, a result not written, diff's --threshold passed  exit 1
 *   -EINTR             interrupted by a signal (SIGINT, SIGTERM, SIGHUP): what
 *                      was done is reported, every setting restored               exit 130
 *   any other -errno   it could not do its work, for that reason                  exit 1
 * The command has said why before it returns a non-zero code (a message on stderr, or its
 * report); main.c adds nothing. The two codes of sbio's own sit above every errno value. */
#define SBIO_EUSAGE  4095
#define SBIO_EFAILED 4094

/* The stop flag: set by a signal handler (SIGINT/SIGTERM) or the runner's timer; long
 * loops poll it with a relaxed load. The one mutable global: everything else is passed. */
extern volatile int sbio_stop_signal; /* the signal number that asked us to stop, or 0 */
static inline int sbio_stop_requested(void)
{
    return __atomic_load_n(&sbio_stop_signal, __ATOMIC_RELAXED);
}

#define SBIO_MAX_CPUS 4096 /* CPU numbers a list may name: 0 .. SBIO_MAX_CPUS - 1 */

/* Parse a CPU list ("0-3,6") into cpus (at most max entries). Returns the count, or -EINVAL
 * when malformed. */
int sbio_parse_cpus(const char *s, int *cpus, int max);

/* The length of the character at s (1 to 4 bytes; 0 at the end) into *n, and whether a
 * terminal could act on it: a C0 control (newline and tab included), DEL, a C1 control
 * (U+0080..U+009F, which some terminals read as ESC [) or a byte that is not UTF-8. */
bool sbio_util_control_at(const char *s, size_t *n);

/* The first character of s that sbio_util_control_at calls a control, or NULL: text from a
 * file that is refused when it would end up in a script or on a terminal. */
const char *sbio_util_control(const char *s);

/* "NAME (uid N)" for uid, or "uid N" when it has no name, into buf (len bytes). Returns buf. */
char *sbio_util_user(char *buf, size_t len, uid_t uid);

/* At most max bytes of s (cut on a character, then "…") into buf (len bytes), each control
 * character written as \n, \r, \t or \xNN: text read from a file another user may have
 * written, made safe to print on a terminal and one line long. Returns buf. */
char *sbio_util_escape(char *buf, size_t len, const char *s, size_t max);

/* What sbio_util_open_output does with a file already at the path. */
enum sbio_output_mode {
    SBIO_OUTPUT_TRUNCATE, /* written from its start: a report, a JSON document */
    SBIO_OUTPUT_LATER,    /* as TRUNCATE, but left as it is until the first write of its
                           * sbio_util_stream_later stream, which empties it first */
    SBIO_OUTPUT_APPEND,   /* appended to: CSV lines under one header */
    SBIO_OUTPUT_NEW,      /* a new file: one there already is removed first when it is a
                           * regular file of this user's with no other name, else refused */
};

/* Opens path (relative to dirfd, or AT_FDCWD) for writing an output sbio makes, so that
 * nobody else's link or file turns the write against a file of theirs choosing:
 * - a symbolic link as the last component is followed only when it belongs to root or to
 *   the user running sbio (-o /dev/stdout, a link of one's own), never one another user
 *   planted; a path through it is checked to lead to the file opened;
 * - in a sticky world-writable folder (/tmp), an existing file is written only when it
 *   belongs to the user running sbio and has no other name (a hard link), as the kernel's
 *   fs.protected_regular would have it;
 * - a FIFO without a reader is refused (ENXIO) rather than waited on;
 * - SBIO_OUTPUT_NEW writes only a file it creates (O_EXCL).
 * A device (/dev/null) is opened as it is; a regular file is truncated only after these
 * checks. Returns a close-on-exec descriptor, or -errno with why (len bytes) saying why in
 * words that follow "PATH: " in a message. */
int sbio_util_open_output(int dirfd, const char *path, enum sbio_output_mode mode, char *why,
                          size_t len);

/* A stdio stream over fd (mode as fdopen's) that keeps the errno of its first failed
 * write in *err (which must outlive the stream; 0 until then): a report written in many
 * calls can name what went wrong when it is closed, where ferror() says only that something
 * did and errno has long moved on. Closing the stream closes fd, unless it is one of the
 * standard descriptors (0, 1, 2), which stay open. NULL with errno set. */
FILE *sbio_util_stream(int fd, const char *mode, int *err);

/* As sbio_util_stream, for fd opened with SBIO_OUTPUT_LATER: a regular file is emptied just
 * before the stream's first write, so that a command refused before it wrote anything leaves
 * the file as it was. */
FILE *sbio_util_stream_later(int fd, const char *mode, int *err);

#endif
