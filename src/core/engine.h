/* The I/O engine interface (fio's ioengine_ops, cut down) and the registry of engines.
 *
 * One engine per file in src/engines/, listed by one line in the table in engine.c, with
 * what callers need to know of it as capability flags (SBIO_ENG_*) and its own options as a
 * table in that file (struct sbio_engine_option). The interface is shaped for queued
 * engines: queue() may complete an I/O at once (SBIO_Q_DONE, synchronous engines) or accept
 * it (SBIO_Q_QUEUED) for commit() and reap() to finish later. */
#ifndef SBIO_ENGINE_H
#define SBIO_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decl.h"
#include "io.h"

/* An open file of one worker thread: each thread opens its own descriptors. */
struct sbio_file {
    int fd;
    uint64_t size;
    void *eng; /* engine-private per-file state (mmap: the mapping) */
    /* sync's read-modify-writes go by the descriptor's file position (bonnie++'s rewrite's
     * read, lseek back, write): where the thread's last one left it (pos_known), so the next
     * read at that offset needs no lseek. A descriptor the threads share (shared) has no
     * position of one thread's: pread and pwrite there. */
    uint64_t pos;
    bool pos_known, shared;
};

enum { SBIO_Q_DONE, SBIO_Q_QUEUED, SBIO_Q_BUSY };

#define SBIO_ENG_SYNC        1u /* queue() always completes: one clock read per op */
#define SBIO_ENG_NEEDS_ALIGN 2u /* buffers and offsets must be aligned even without O_DIRECT */
#define SBIO_ENG_NO_IO       4u /* does no I/O at all (null) */
#define SBIO_ENG_NO_DIRECT   8u /* O_DIRECT means nothing to it (mmap) */
/* Its files carry no per-thread state — plain descriptors (sbio_engine_open_fd), or a
 * mapping every thread may use (mmap) — so the threads of a run can share one per file when
 * each cannot have its own. Shared files are opened and closed by the runner, with a NULL
 * priv, or with an engine state of their own when the engine maps them (SBIO_ENG_MAPS: the
 * mappings' access hint is in that state). */
#define SBIO_ENG_SHARED_FD 16u
#define SBIO_ENG_MAPS      32u /* maps the files: the access hint is given to the mappings too */
/* Without O_DIRECT the kernel runs most of its submissions synchronously (libaio): the text
 * report says so beside the depth reached. */
#define SBIO_ENG_BUFFERED_INLINE 64u
/* Its contexts count against fs.aio-max-nr: -EAGAIN from init() means threads x iodepth is
 * over it. */
#define SBIO_ENG_AIO_MAX_NR 128u
/* Each request is one pread or pwrite (fio's psync): a tree job, whose operations are system
 * calls of their own, may name it. */
#define SBIO_ENG_PSYNC 256u
/* No name chooses it: left out of --ioengine, a script's engine =, help and the lists in
 * messages; the runner takes it by its flags (sbio_engine_with). */
#define SBIO_ENG_INTERNAL 512u
/* Carries out a tree job's file-system operations (fsop.h); internal. */
#define SBIO_ENG_FSOPS 1024u

/* An option of an engine's own (fio's ioengine options), declared in its file: the table its
 * ops' .options point at, ended by a NULL name. The command line, --config-file, help and
 * compare's --vary take it as one of sbio's options (options.c lists the engines' options
 * after --ioengine, in engine id order); init() reads its value at the option's index in the
 * table, in params->options. Any engine's option may be given with any engine: the others do
 * not read it. */
enum sbio_engine_opt_type {
    SBIO_EOPT_BOOL, /* on|off: 0 or 1 */
    SBIO_EOPT_UINT, /* an integer from min to max */
};

struct sbio_engine_option {
    const char *name;  /* --NAME */
    int type;          /* enum sbio_engine_opt_type */
    const char *def;   /* the default, as the user would write it */
    uint64_t min, max; /* SBIO_EOPT_UINT: the range accepted */
    const char *arg;   /* the value's placeholder in help: "on|off", "N" */
    const char *help;
};

/* What init() is told of the run; the runner fills it from the configuration. */
struct sbio_engine_params {
    unsigned iodepth;   /* at most this many ios are ever queued and not yet reaped */
    bool datasync;      /* sync with fdatasync, not fsync (--file-fsync-mode) */
    bool direct;        /* the files are opened with O_DIRECT */
    int madvise;        /* mmap: posix_madvise advice for every mapping, -1: none */
    void *thread_state; /* the tree engine (fsop.h): the thread's struct sbio_fsop */
    /* The values of the engine's own options (struct sbio_engine_option), by their index in
     * its .options table; an engine without options does not read it. */
    const uint64_t *options;
};

/* The contract, for synchronous and queued engines alike:
 *  - init() gets the run's parameters (struct sbio_engine_params), in any thread;
 *  - open_file() for every file, then post_open() (optional) once with all files and all
 *    ios (their buffers fixed for the run: an engine may register them), in the thread that
 *    then queues, commits and reaps: an engine may bind its state to that thread (io_uring
 *    makes it its ring's single issuer), and an engine that has post_open() is unusable
 *    until it ran;
 *  - queue() an io: a synchronous engine completes it (SBIO_Q_DONE, res set); a queued
 *    engine accepts it (SBIO_Q_QUEUED) and keeps the pointer until reap() returns it;
 *  - commit() submits everything queued since the last commit (one system call for many
 *    ios where the interface allows); an io the kernel refuses comes back from the next
 *    reap() with its -errno; a -errno from commit() itself means the engine is unusable
 *    (the ios it held will not come back);
 *  - reap() waits until at least min ios completed or timeout_ns passed (UINT64_MAX: no
 *    timeout), and returns up to max of them in done with res set;
 *  - a failed request is res = -errno on that io, never a crash or an exit. */
struct sbio_engine_ops {
    const char *name;    /* what --ioengine and a script's engine = call it */
    const char *kind;    /* how the text report names its I/O mode: "synchronous", "fast mmaped"
                            (sysbench's words) */
    unsigned flags;      /* SBIO_ENG_* */
    unsigned thread_fds; /* descriptors init() holds per thread (io_uring: its ring) */
    const struct sbio_engine_option *options; /* its own options, or NULL */
    /* Per-thread engine state. Returns 0 or -errno (-ENOSYS/-EPERM: the kernel or a policy
     * refuses the interface). */
    int (*init)(void **priv, const struct sbio_engine_params *params);
    void (*cleanup)(void *priv);
    /* Open name relative to dirfd with oflags (O_RDWR or O_RDONLY plus extra flags); sets
     * f->fd; f->size is already set. Returns 0 or -errno. */
    int (*open_file)(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags);
    int (*close_file)(void *priv, struct sbio_file *f);
    /* Optional: drop f's pages from the page cache at the start of a sequential pass over it
     * (invalidate = "pass"; mmap: the mapping's pages unmapped first, as fio unmaps the file
     * it closes at the end of a pass). Without it, POSIX_FADV_DONTNEED of f->fd. 0 or -errno. */
    int (*drop)(void *priv, struct sbio_file *f);
    /* Optional: after all files are open (register files and buffers). 0 or -errno. */
    int (*post_open)(void *priv, struct sbio_file *files, unsigned nfiles, struct sbio_io *ios,
                     unsigned nios);
    /* Start io on files[io->file]: SBIO_Q_DONE with io->res set, SBIO_Q_QUEUED, or
     * SBIO_Q_BUSY when the engine cannot take it now (reap first). */
    int (*queue)(void *priv, struct sbio_file *files, struct sbio_io *io);
    /* Queued engines only: submit what queue() accepted. Returns 0 or -errno. */
    int (*commit)(void *priv);
    /* Queued engines only: see above. Returns the number reaped (0 on timeout) or -errno. */
    int (*reap)(void *priv, unsigned min, struct sbio_io **done, unsigned max, uint64_t timeout_ns);
};

/* The registry: the engines this build has, those the table in engine.c lists. An engine's
 * id (a job's engine, from --ioengine or a script job's) is the index of its line there.
 * The engines a user may choose have the ids 0 to sbio_engine_count() - 1; the internal ones
 * (SBIO_ENG_INTERNAL) follow them, found by their flags (sbio_engine_with). */
int sbio_engine_count(void);

/* The engine with this id, or NULL for a number that is no engine's id. */
const struct sbio_engine_ops *sbio_engine_find(int id);

/* The id of the engine a user may choose (not SBIO_ENG_INTERNAL) called name, or -ENOENT
 * when this build has none of that name. */
int sbio_engine_id(const char *name);

/* The id of the first engine that has every flag in flags (SBIO_ENG_*), or -ENOENT. */
int sbio_engine_with(unsigned flags);

/* Whether engine id has every flag in flags (SBIO_ENG_*); false for no engine's id. */
bool sbio_engine_has(int id, unsigned flags);

/* The engines' own options, every engine's in id order, each engine's in its table's order:
 * slot s of a job's engine_opt (the command line's, a declaration's, the runner's) holds the value
 * of the option sbio_engine_option(s, &id) returns (and *id its engine's id), NULL past the last
 * one. Aborts when they are more than SBIO_ENGINE_MAX_OPTS. */
const struct sbio_engine_option *sbio_engine_option(unsigned slot, int *id);

/* The slot of engine id's first option: its params->options is engine_opt from there. */
unsigned sbio_engine_option_base(int id);

/* The engine's name and its kind (struct sbio_engine_ops), or "?" for a number that is no
 * engine's id. */
const char *sbio_engine_name(int id);
const char *sbio_engine_kind(int id);

/* The names of the engines a user may choose that have none of the flags in without
 * (SBIO_ENG_*), in id order and separated by sep, into buf (cut short if it is too small).
 * Returns buf. */
char *sbio_engine_names(char *buf, size_t len, const char *sep, unsigned without);

/* "sync, libaio, …": every engine of this build a user may choose. */
const char *sbio_engine_list(void);

/* Engine-independent helper for synchronous engines: do one fsync, or fdatasync. 0 or
 * -errno. */
int sbio_engine_sync_file(int fd, bool datasync);

/* open_file()/close_file() for the engines that keep a plain descriptor per file (sync,
 * libaio, io_uring): openat() with O_NOFOLLOW|O_CLOEXEC, close(). 0 or -errno. */
int sbio_engine_open_fd(void *priv, struct sbio_file *f, int dirfd, const char *name, int oflags);
int sbio_engine_close_fd(void *priv, struct sbio_file *f);

#endif
