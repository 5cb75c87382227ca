/* The domain's vocabulary: sysbench's modes and the settings every layer names (fsync modes,
 * access hints, extra open flags, how files are filled), with their names. No state, nothing
 * else included: the low modules include this, never the command line's options.h. */
#ifndef SBIO_VOCAB_H
#define SBIO_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

/* The commands (the command line's first word). */
enum sbio_cmd {
    SBIO_CMD_NONE,
    SBIO_CMD_PREPARE,
    SBIO_CMD_RUN,
    SBIO_CMD_CLEANUP,
    SBIO_CMD_COMPARE,
    SBIO_CMD_DIFF,
    SBIO_CMD_SURVEY,
    SBIO_CMD_PLOT,
    SBIO_CMD_RESTORE,
    SBIO_CMD_HELP,
    SBIO_CMD_VERSION,
    SBIO_CMD_NR
};
/* The commands' words, as typed ("" for SBIO_CMD_NONE). */
extern const char *const sbio_cmd_names[SBIO_CMD_NR];
const char *sbio_cmd_name(enum sbio_cmd cmd);

enum sbio_mode {
    SBIO_MODE_SEQWR,
    SBIO_MODE_SEQREWR,
    SBIO_MODE_SEQRD,
    SBIO_MODE_RNDRD,
    SBIO_MODE_RNDWR,
    SBIO_MODE_RNDRW,
    SBIO_MODE_NONE /* not given: run requires one */
};

enum sbio_io_mode { SBIO_IOMODE_SYNC, SBIO_IOMODE_ASYNC, SBIO_IOMODE_MMAP };
enum sbio_extra_flag { SBIO_XF_SYNC = 1, SBIO_XF_DSYNC = 2, SBIO_XF_DIRECT = 4 };
#define SBIO_XF_NR 3
/* The flags' names, bit i named sbio_extra_flag_names[i]: sync, dsync, direct. */
extern const char *const sbio_extra_flag_names[SBIO_XF_NR];
/* The flag's bit, or 0 for a name that is none. */
int sbio_extra_flag(const char *name);
/* The open(2) flags of the flags' sync and dsync bits (O_SYNC, O_DSYNC); direct is the
 * caller's, which checks it first. */
int sbio_extra_sync_oflags(unsigned flags);
enum sbio_fsync_mode { SBIO_FSYNC_FSYNC, SBIO_FSYNC_FDATASYNC };
enum sbio_fsync_scope { SBIO_SCOPE_ALL, SBIO_SCOPE_DIRTY };
enum sbio_seq_stream { SBIO_SEQ_SHARED, SBIO_SEQ_PER_THREAD };
/* --fadvise: the access hint given for every descriptor (and mmap mapping) of a run; auto is
 * random for random modes and patterns, sequential for sequential ones (fio's fadvise_hint). */
enum sbio_fadvise {
    SBIO_FADV_NONE,
    SBIO_FADV_AUTO,
    SBIO_FADV_NORMAL,
    SBIO_FADV_RANDOM,
    SBIO_FADV_SEQUENTIAL
};
/* --random-order: independent draws (sysbench), or every block once per pass (fio). */
enum sbio_random_order { SBIO_ORDER_DRAW, SBIO_ORDER_ONCE };
enum sbio_prealloc { SBIO_PREALLOC_WRITE, SBIO_PREALLOC_FALLOCATE };
enum sbio_fill { SBIO_FILL_RANDOM, SBIO_FILL_ZERO, SBIO_FILL_COMPRESSIBLE };

/* --warmup=auto: one throughput sample a second, settled over this many. */
#define SBIO_WARMUP_WINDOW 5

/* The command line's limits: words after a command, items of a list option. */
#define SBIO_MAX_ARGS 64
#define SBIO_MAX_LIST 32

/* The enums' words, as the command line and scripts spell them: index = value. */
#define SBIO_MODE_CHOICES         "seqwr|seqrewr|seqrd|rndrd|rndwr|rndrw"
#define SBIO_FADVISE_CHOICES      "none|auto|normal|random|sequential"
#define SBIO_RANDOM_ORDER_CHOICES "draw|once"

/* Word n of a '|'-separated list into buf (cut to len), or NULL when there is no word n. */
const char *sbio_vocab_word(const char *choices, int n, char *buf, size_t len);

const char *sbio_mode_name(int mode); /* "rndrd", "(none)" for SBIO_MODE_NONE */
/* What a sysbench mode does: writes, reads, walks the set in order. */
bool sbio_mode_writes(int mode);
bool sbio_mode_reads(int mode);
bool sbio_mode_sequential(int mode);

const char *sbio_fill_name(int fill);
const char *sbio_fadvise_name(int hint);       /* enum sbio_fadvise: "none", "auto", … */
const char *sbio_random_order_name(int order); /* "draw", "once" */
/* "direct,sync" or "(none)"; returns buf. */
char *sbio_extra_flags_str(char *buf, size_t len, unsigned flags);

#endif
