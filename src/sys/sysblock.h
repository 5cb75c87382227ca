/* Block devices, queue settings and the page cache.
 *
 * Maps a path to the block device(s) under it, reads and sets the I/O scheduler and queue
 * knobs, and guarantees that every setting sbio changes is put back: a state file is
 * written before the first change (boot id, device identity, original and set values),
 * a lock keeps two sbio processes from tuning one device, and the state is restored on
 * normal exit, on error, on SIGINT/SIGTERM, and by the next sbio command (or `sbio
 * restore`) after a crash or SIGKILL. Also: device counters (/sys/block/DEV/stat), page
 * cache state (cachestat), dropping caches, and the environment the report shows.
 *
 * Roots can be redirected for tests: SBIO_SYSFS_ROOT (default /sys), SBIO_PROCFS_ROOT
 * (default /proc), SBIO_STATE_DIR (default /run/sbio). */
#ifndef SBIO_SYSBLOCK_H
#define SBIO_SYSBLOCK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SBIO_MAX_DEVS  16
#define SBIO_MAX_SCHED 16

struct sbio_blockdev {
    char name[64]; /* kernel name: sda, vda, loop0, dm-0 */
    unsigned major, minor;
    char diskseq[32];   /* identity across detach/re-attach; "" when the kernel has none */
    char dir[PATH_MAX]; /* the device's sysfs folder (resolved) */
};

/* Where a path's I/O goes. */
struct sbio_target {
    char fstype[64];
    char source[256]; /* the mount's source, e.g. /dev/vda or tmpfs */
    char mountpoint[PATH_MAX];
    char mount_opts[512];
    bool has_top;             /* false: no block device (tmpfs, NFS, overlay...) */
    struct sbio_blockdev top; /* the device the file system sits on: its read_ahead_kb
                                 drives the file system's readahead */
    unsigned ndev;            /* devices that carry a scheduler: the top device itself, or the
                                 slaves of a dm/md device */
    struct sbio_blockdev dev[SBIO_MAX_DEVS];
    char set_dev[64]; /* --queue-device names a device the path's I/O does not reach: the
                         path's own device (its name); "" otherwise */
};

/* Map path (or, when queue_device is given, that device: "sda", "sda1", "/dev/sda" or "8:0")
 * to its devices. A partition maps to its disk; dm/md to their slaves for the scheduler; major 0
 * (btrfs, …) through the mount's source in mountinfo. A path with no block device is not an
 * error: t->has_top is false and fstype says what it is. Returns 0 or -errno. */
int sbio_sysblock_resolve(const char *path, const char *queue_device, struct sbio_target *t);

/* Whether the block device major:minor, or a partition of it, is the device of a mount in
 * mountinfo (a partition of it: by its sysfs folder). Unreadable mountinfo: false. */
bool sbio_sysblock_mounted(unsigned major, unsigned minor);

/* Read knob (a path under the device's queue/, e.g. "scheduler", "read_ahead_kb",
 * "iosched/fifo_batch"; or "../stat" style paths relative to queue/) into buf, trailing
 * newline removed. Returns 0 or -errno (-ENOENT: no such knob). */
int sbio_sysblock_read(const struct sbio_blockdev *d, const char *knob, char *buf, size_t len);
/* Write value to knob. Returns 0 or -errno as the kernel answered (EINVAL: refused). */
int sbio_sysblock_write(const struct sbio_blockdev *d, const char *knob, const char *value);

/* Whether --queue may set knob: read_ahead_kb, max_sectors_kb, nr_requests, nomerges,
 * rotational, wbt_lat_usec, rq_affinity, add_random, or iosched/TUNABLE. */
bool sbio_sysblock_knob_allowed(const char *knob);

/* Parse a scheduler line ("none [mq-deadline] kyber bfq") into names; *current is the index
 * of the bracketed one (or of the only name, as a plain file reads), -1 if none. Returns the
 * number of names. */
int sbio_sched_parse(const char *line, char names[][32], int max, int *current);
/* The kernel's name for a scheduler as a user may name it: the single-queue schedulers that
 * left Linux in 5.0 by their multi-queue heirs (cfq is bfq, noop is none, deadline is
 * mq-deadline, as the kernel's own alias has it) and anticipatory, gone since 2.6.33, by bfq,
 * whose idling is the anticipation's heir. Any other name is returned as it is. */
const char *sbio_sched_canonical(const char *name);

/* Check the scheduler names of list ("bfq" or "cfq,none,kyber") given to the option opt,
 * named as the user typed it ("--scheduler", "--schedulers", "--vary scheduler"): historical
 * names count as their heirs (sbio_sched_canonical), so two names of one scheduler
 * ("deadline,mq-deadline", "cfq,anticipatory") are refused as given twice; with a target t,
 * every name one of its scheduler devices does not offer is listed in one line with what the
 * device offers. 0, or -SBIO_EUSAGE after one line on stderr. */
int sbio_sched_check_list(const struct sbio_target *t, const char *opt, const char *list);

/* One note on stderr mapping list's historical names to their heirs ("cfq → bfq, …" with
 * when they left Linux); nothing when list has none. */
void sbio_sched_note(const char *opt, const char *list);

/* One setting sbio changed. */
struct sbio_tune_item {
    char dev[64];   /* device name */
    char knob[64];  /* under queue/ */
    char orig[128]; /* value before sbio touched it (the scheduler's bracketed name) */
    char set[128];  /* value in effect after sbio's write (what restore expects) */
    char want[128]; /* value asked for (not in the state file) */
};

struct sbio_tune {
    struct sbio_target *t;
    unsigned nitems;
    struct sbio_tune_item items[64];
    int lock_fd[SBIO_MAX_DEVS + 1];
    unsigned nlocks;
    char state_path[PATH_MAX];
    bool active; /* a state file exists and restore is owed */
};

/* Validate then apply --scheduler and --queue KEY=VALUE settings to t's devices:
 * root, an existing knob, a scheduler the device offers (the message lists them) — any
 * refusal before the first change is -SBIO_EUSAGE with one line and nothing changed. Then
 * takes the devices' locks (-SBIO_EUSAGE when another sbio holds one), writes the state file,
 * sets the scheduler first and everything else after it (the switch resets nr_requests: a
 * switch records it for restore even when not asked to set it), reads each value back and
 * prints the value in effect (silent kernel caps included) to out. A value the kernel refuses,
 * or an iosched/ tunable the new scheduler lacks, restores what was set and returns
 * -SBIO_EUSAGE naming the file and value. */
/* The validation part of sbio_tune_apply alone: nothing is written. 0 or -SBIO_EUSAGE. */
int sbio_tune_check(const struct sbio_target *t, const char *scheduler, const char *const *queue,
                    int nqueue);

int sbio_tune_apply(struct sbio_tune *tu, struct sbio_target *t, const char *scheduler,
                    const char *const *queue, int nqueue, FILE *out);

/* Put back every setting still as sbio left it (a setting someone else changed since is
 * left alone with a warning), remove the state file, release the locks. Safe to call when
 * nothing was applied. Returns 0, or -errno when a write failed (the state file is then
 * kept so `sbio restore` can retry). */
int sbio_tune_restore(struct sbio_tune *tu);

/* Restore what an sbio that died left behind: every state file whose lock is free. A state
 * file from an earlier boot, or for a device that is gone or was re-attached, is removed
 * with a note. Prints what it did when verbose. Returns the number of settings restored,
 * or -errno. */
int sbio_tune_recover(bool verbose);

/* /sys/block/DEV/stat. */
struct sbio_diskstat {
    uint64_t f[17]; /* reads, reads merged, sectors read, read ms, writes, writes merged,
                       sectors written, write ms, in flight, io ms, time in queue ms,
                       discards…, flushes, flush ms (0 when the kernel lacks a field) */
};
int sbio_diskstat_read(const struct sbio_blockdev *d, struct sbio_diskstat *s);

/* Page cache state of a file (cachestat(2)), in pages. */
struct sbio_cachestat {
    uint64_t cached, dirty, writeback, evicted, recently_evicted;
};
/* Add fd's whole-file state into cs. Returns 0, or -ENOSYS when the kernel lacks cachestat. */
int sbio_cachestat_add(int fd, struct sbio_cachestat *cs);

/* sync(), then write 3 to <procfs>/sys/vm/drop_caches. Not root: -SBIO_EUSAGE with a message. */
int sbio_drop_caches(void);

/* The folder of sbio's state files (SBIO_STATE_DIR, default /run/sbio). */
const char *sbio_state_dir(void);

/* A state file written whole to tmp (f, open on it) made durable and put in place of path
 * at once: flushed, fsynced, closed (always), renamed. 0 or -errno. */
int sbio_state_commit(FILE *f, const char *tmp, const char *path);

/* This boot's id (<procfs>/sys/kernel/random/boot_id): state files from an earlier boot
 * describe settings the reboot reset. 0 or -errno. */
int sbio_boot_id(char *buf, size_t len);

/* Read a small text file (sysfs, procfs), trailing whitespace removed. 0 or -errno. */
int sbio_sysblock_read_file(const char *path, char *buf, size_t len);

/* Where procfs and sysfs are: /proc and /sys, or the fake trees tests point SBIO_PROCFS_ROOT
 * and SBIO_SYSFS_ROOT at (then nothing needs root). */
const char *sbio_procfs_root(void);
bool sbio_procfs_is_fake(void);
bool sbio_sysfs_is_fake(void);

/* The O_DIRECT alignment of file name in dirfd: statx's dio_offset_align where the file
 * system reports it; else the logical block size of t's top device; with no device at all,
 * tmpfs takes any alignment (1) and anything else gets the classic 512. t may be NULL. */
uint64_t sbio_direct_alignment(int dirfd, const char *name, const struct sbio_target *t);

/* The physical sector size of t's top device in bytes (what the device writes whole), or 0
 * when there is no block device or it does not say. */
uint64_t sbio_physical_sector(const struct sbio_target *t);

#endif
