/* failreap.so: a test tool preloaded into sbio (LD_PRELOAD). From the Nth call on, libaio's
 * io_getevents fails with -EIO, as the engine's wait for completions would if the kernel
 * refused it: a failure of the engine itself, with no io to blame.
 *
 *   FAILREAP_AFTER  the first failing call, counted from 1 (required)
 *
 * The real io_getevents is resolved before main() runs, so the wrapper takes no lock. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libaio.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*getevents_fn)(io_context_t, long, long, struct io_event *, struct timespec *);
static getevents_fn real_getevents;
static long after;
static atomic_long calls;

__attribute__((constructor)) static void failreap_init(void)
{
    const char *a = getenv("FAILREAP_AFTER");
    after = a ? strtol(a, NULL, 10) : 0;
    if (after < 1) {
        fprintf(stderr, "failreap.so: needs FAILREAP_AFTER >= 1\n");
        _exit(2);
    }
    /* A process without libaio (a wrapper such as timeout) is left alone. */
    real_getevents = (getevents_fn)dlsym(RTLD_NEXT, "io_getevents");
}

int io_getevents(io_context_t ctx, long min_nr, long nr, struct io_event *events,
                 struct timespec *timeout)
{
    if (!real_getevents)
        return -ENOSYS;
    if (atomic_fetch_add(&calls, 1) + 1 >= after)
        return -EIO;
    return real_getevents(ctx, min_nr, nr, events, timeout);
}
