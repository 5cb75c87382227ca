#include "fileset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "manifest.h"
#include "sysblock.h"
#include "util.h"

int sbio_fileset_shape(struct sbio_fileset *fs, const struct sbio_settings *set, uint64_t seed)
{
    /* As sysbench, each file gets total/num bytes: fewer bytes than files would make empty
     * files, a set nothing can be read from or written to. */
    if (!set->nfile_sizes && set->total_size / set->file_num == 0) {
        sbio_err("--file-total-size=%" PRIu64 " over --file-num=%" PRIu64 " files gives empty "
                 "files; give --file-total-size at least %" PRIu64 " bytes (one per file, which "
                 "makes each a whole --file-block-size block), or fewer --file-num",
                 set->total_size, set->file_num, set->file_num);
        fs->files = NULL;
        return -SBIO_EUSAGE;
    }
    fs->nfiles = set->nfile_sizes ? set->nfile_sizes : (unsigned)set->file_num;
    fs->files = calloc(fs->nfiles, sizeof(*fs->files));
    if (!fs->files)
        return -ENOMEM;
    fs->complete = false;
    fs->total_size = set->total_size;
    fs->block_size = set->block_size;
    fs->fill = set->fill;
    fs->fill_pct = set->fill_pct;
    fs->seed = seed;
    fs->verify = set->verify;
    fs->prealloc = set->prealloc;
    fs->bytes = 0; /* As sysbench: every file gets total/num bytes, the remainder is dropped —
                    * unless a script lists its files' sizes. */
    for (unsigned i = 0; i < fs->nfiles; i++) {
        snprintf(fs->files[i].name, sizeof(fs->files[i].name), "test_file.%u", i);
        fs->files[i].size = set->nfile_sizes ? set->file_sizes[i] : set->total_size / set->file_num;
        fs->bytes += fs->files[i].size;
    }
    if (set->nfile_sizes)
        fs->total_size = fs->bytes;
    return 0;
}

void sbio_fileset_sizes_str(const struct sbio_fileset *fs, char *buf, size_t len)
{
    enum { SHOWN = 4 };
    uint64_t size[SHOWN], lo = UINT64_MAX, hi = 0;
    unsigned count[SHOWN], k = 0;
    bool more = false;
    for (unsigned i = 0; i < fs->nfiles; i++) {
        uint64_t s = fs->files[i].size;
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
        unsigned j = 0;
        while (j < k && size[j] != s)
            j++;
        if (j < k)
            count[j]++;
        else if (k < SHOWN)
            size[k] = s, count[k++] = 1;
        else
            more = true;
    }
    char a[32], b[32];
    if (k <= 1) {
        snprintf(buf, len, "%u files, %s each", fs->nfiles, sbio_fmt_bytes(a, sizeof(a), hi));
        return;
    }
    if (more) {
        snprintf(buf, len, "%u files of %s to %s", fs->nfiles, sbio_fmt_bytes(a, sizeof(a), lo),
                 sbio_fmt_bytes(b, sizeof(b), hi));
        return;
    }
    size_t n = (size_t)snprintf(buf, len, "%u files:", fs->nfiles);
    for (unsigned j = 0; j < k && n < len; j++)
        n += (size_t)snprintf(buf + n, len - n, "%s %u of %s", j ? "," : "", count[j],
                              sbio_fmt_bytes(a, sizeof(a), size[j]));
}

int sbio_fileset_check_shape(const struct sbio_fileset *fs, const struct sbio_settings *set)
{
    if (set->file_num_given && set->file_num != fs->nfiles) {
        sbio_err("--file-num=%" PRIu64 " but the set in %s has %u file%s; run sbio cleanup "
                 "and prepare again, or use another --dir",
                 set->file_num, fs->dir, fs->nfiles, fs->nfiles == 1 ? "" : "s");
        return -SBIO_EUSAGE;
    }
    if (set->total_size_given && set->total_size != fs->total_size) {
        char a[32], b[32];
        sbio_err("--file-total-size is %s but the set in %s was prepared with %s; run sbio "
                 "cleanup and prepare again, or use another --dir",
                 sbio_fmt_bytes_beside(a, sizeof(a), set->total_size, fs->total_size), fs->dir,
                 sbio_fmt_bytes_beside(b, sizeof(b), fs->total_size, set->total_size));
        return -SBIO_EUSAGE;
    }
    return 0;
}

int sbio_fileset_open_dir(const struct sbio_settings *set, bool for_write)
{
    int dfd = open(set->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        int e = errno;
        sbio_err("--dir %s: %s%s", set->dir, strerror(e),
                 e == ENOENT ? "; create the folder first" : "");
        return -SBIO_EUSAGE;
    }
    /* Root passes every permission check but not a read-only mount: access() says EROFS. */
    if (for_write && faccessat(dfd, ".", W_OK, AT_EACCESS) && errno == EROFS) {
        sbio_err("--dir %s is on a read-only file system: choose a writable --dir (or "
                 "remount it read-write)",
                 set->dir);
        close(dfd);
        return -SBIO_EUSAGE;
    }
    return dfd;
}

void sbio_fileset_damaged(const char *dir, const char *why)
{
    sbio_err("%s/%s is damaged (%s), so sbio cannot tell which files are the set's and "
             "touches none: remove the set by hand (rm %s/%s %s/test_file.*) or use another "
             "--dir",
             dir, SBIO_MANIFEST, why, dir, SBIO_MANIFEST, dir);
}

int sbio_fileset_check_names(const struct sbio_fileset *fs, bool manifest_names_them)
{
    for (unsigned i = 0; i < fs->nfiles; i++) {
        struct stat st;
        const char *name = fs->files[i].name;
        if (fstatat(fs->dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
            if (errno == ENOENT)
                continue;
            sbio_err("%s/%s: stat: %s", fs->dir, name, strerror(errno));
            return -SBIO_EUSAGE;
        }
        if (S_ISLNK(st.st_mode)) {
            sbio_err("%s/%s is a symbolic link; sbio never writes through one: remove it", fs->dir,
                     name);
            return -SBIO_EUSAGE;
        }
        if (!S_ISREG(st.st_mode)) {
            sbio_err("%s/%s is not a regular file: remove it or use another --dir", fs->dir, name);
            return -SBIO_EUSAGE;
        }
        if (manifest_names_them && sbio_manifest_trusted(fs->dir, name, &st))
            return -SBIO_EUSAGE;
        if (!manifest_names_them) {
            sbio_err("%s/%s exists and belongs to no sbio file set (no %s): if sysbench made "
                     "it, sbio prepare --adopt takes the set over; else remove it or use "
                     "another --dir",
                     fs->dir, name, SBIO_MANIFEST);
            return -SBIO_EUSAGE;
        }
    }
    return 0;
}

int sbio_fileset_strays(int dirfd, unsigned *count)
{
    *count = 0;
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return -e;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *n = de->d_name;
        if (!strncmp(n, "test_file.", 10) && n[10] &&
            strspn(n + 10, "0123456789") == strlen(n + 10))
            (*count)++;
    }
    closedir(d);
    return 0;
}

void sbio_fileset_strays_refused(const char *dir, unsigned strays, bool cleanup)
{
    sbio_err("no sbio file set in %s (no %s), but %u test_file.* file%s (made by sysbench?): "
             "%ssbio prepare --adopt with the --file-num, --file-total-size and "
             "--file-block-size they were made with takes %s over%s",
             dir, SBIO_MANIFEST, strays, strays == 1 ? "" : "s", cleanup ? "nothing removed; " : "",
             strays == 1 ? "it" : "them",
             cleanup ? (strays == 1 ? " (then cleanup removes it), or remove it by hand"
                                    : " (then cleanup removes them), or remove them by hand")
                     : "");
}

/* seqwr on a folder without a set makes the set itself, as sysbench does: an incomplete
 * manifest and empty files, which the run writes and completes. */
static int fileset_create(struct sbio_fileset *fs, const struct sbio_settings *set)
{
    uint64_t seed = set->rand_seed ? set->rand_seed : sbio_mix64(sbio_now_ns());
    int rc;
    if ((rc = sbio_fileset_shape(fs, set, seed)))
        return rc;
    if ((rc = sbio_fileset_check_names(fs, false)))
        return rc;
    if ((rc = sbio_fileset_mark(fs, false)))
        return rc;
    for (unsigned i = 0; i < fs->nfiles; i++) {
        const char *name = fs->files[i].name;
        int fd = openat(fs->dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            rc = -errno;
            sbio_err("%s/%s: open: %s", fs->dir, name, strerror(errno));
            return rc;
        }
        close(fd);
    }
    return 0;
}

/* A file of the set a writing run cannot open for writing (EACCES: its mode; root passes):
 * said before the run, with what to do, instead of an open error once threads start. */
static int fileset_check_writable(const struct sbio_fileset *fs, const char *name,
                                  const struct stat *st, const struct sbio_settings *set)
{
    if (!faccessat(fs->dirfd, name, W_OK, AT_EACCESS) || (errno != EACCES && errno != EROFS))
        return 0;
    char owner[96];
    sbio_err("%s/%s is not writable by you (mode %04o, owner %s), and --file-test-mode=%s "
             "writes to the set: give its files write permission (chmod u+w %s/test_file.*) "
             "or run as their owner",
             fs->dir, name, (unsigned)(st->st_mode & 07777),
             sbio_util_user(owner, sizeof(owner), st->st_uid), sbio_mode_name(set->mode), fs->dir);
    return -SBIO_EUSAGE;
}

/* Every file of the set is a regular file of the size its manifest gives. */
static int fileset_check_files(const struct sbio_fileset *fs, const struct sbio_settings *set)
{
    for (unsigned i = 0; i < fs->nfiles; i++) {
        struct stat st;
        const struct sbio_fileset_file *f = &fs->files[i];
        if (fstatat(fs->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW)) {
            sbio_err("%s/%s: %s; run sbio prepare again", fs->dir, f->name, strerror(errno));
            return -SBIO_EUSAGE;
        }
        if (!S_ISREG(st.st_mode)) {
            sbio_err("%s/%s is not a regular file; run sbio cleanup and prepare again", fs->dir,
                     f->name);
            return -SBIO_EUSAGE;
        }
        if (sbio_manifest_trusted(fs->dir, f->name, &st))
            return -SBIO_EUSAGE;
        if (!set->script && sbio_mode_writes(set->mode) &&
            fileset_check_writable(fs, f->name, &st, set))
            return -SBIO_EUSAGE;
        /* A short set's files get their sizes back before use (or seqwr empties them); a
         * file a script appended to may be longer (sbio_fileset_appends). */
        if ((uint64_t)st.st_size != f->size && !(fs->seqwr_short && !fs->complete) &&
            !(f->appended && (uint64_t)st.st_size > f->size)) {
            sbio_err("%s/%s is %" PRIu64 " bytes, the manifest says %" PRIu64
                     "; run sbio prepare again",
                     fs->dir, f->name, (uint64_t)st.st_size, f->size);
            return -SBIO_EUSAGE;
        }
    }
    return 0;
}

int sbio_fileset_open(struct sbio_fileset *fs, const struct sbio_settings *set, bool allow_create,
                      bool *created)
{
    *created = false;
    fs->dirfd = -1;
    fs->dir = set->dir;
    fs->files = NULL;
    /* Write modes need a writable folder (seqwr empties and completes files; every write
     * mode marks the manifest or writes the files): say so before anything starts. */
    int dfd = sbio_fileset_open_dir(set, sbio_mode_writes(set->mode));
    if (dfd < 0)
        return dfd;
    fs->dirfd = dfd;
    int rc = sbio_manifest_read(dfd, fs);
    unsigned strays = 0;
    if (rc == -ENOENT && !sbio_fileset_strays(dfd, &strays) && strays) {
        sbio_fileset_strays_refused(set->dir, strays, false);
        return -SBIO_EUSAGE;
    }
    if (rc == -ENOENT && allow_create) {
        if ((rc = fileset_create(fs, set)))
            return rc;
        *created = true;
        return 0;
    }
    if (rc == -ENOENT) {
        sbio_err("no file set in %s (no %s); run sbio prepare first", set->dir, SBIO_MANIFEST);
        return -SBIO_EUSAGE;
    }
    if (rc == -EMEDIUMTYPE) {
        sbio_err("%s holds a file tree, for the script that declares it; run that script, or "
                 "sbio cleanup first",
                 set->dir);
        return -SBIO_EUSAGE;
    }
    if (rc == -EBADMSG) {
        sbio_fileset_damaged(set->dir, fs->damage);
        return -SBIO_EUSAGE;
    }
    if (rc == -EPERM)
        return -SBIO_EUSAGE; /* said */
    if (rc) {
        sbio_err("%s/%s: open: %s", set->dir, SBIO_MANIFEST, strerror(-rc));
        return rc;
    }
    if (!fs->complete && !fs->seqwr_short) {
        sbio_err("the file set in %s is incomplete (prepare was interrupted); run sbio "
                 "prepare again to finish it, or sbio cleanup",
                 set->dir);
        return -SBIO_EUSAGE;
    }
    if ((rc = sbio_fileset_check_shape(fs, set)))
        return rc;
    return fileset_check_files(fs, set);
}

void sbio_fileset_discard(struct sbio_fileset *fs)
{
    for (unsigned i = 0; i < fs->nfiles; i++)
        unlinkat(fs->dirfd, fs->files[i].name, 0);
    unlinkat(fs->dirfd, SBIO_MANIFEST, 0);
}

int sbio_fileset_ready(const struct sbio_settings *set, bool may_create, struct sbio_fileset *fs)
{
    *fs = (struct sbio_fileset){.dirfd = -1, .dir = set->dir};
    int dfd = sbio_fileset_open_dir(set, false);
    if (dfd < 0)
        return dfd;
    int rc = sbio_manifest_read(dfd, fs);
    if (rc == -EPERM) { /* said */
        close(dfd);
        sbio_fileset_close(fs);
        return -SBIO_EUSAGE;
    }
    unsigned strays = 0;
    bool fresh = rc == -ENOENT && !sbio_fileset_strays(dfd, &strays) && !strays;
    close(dfd);
    sbio_fileset_close(fs);
    *fs = (struct sbio_fileset){.dirfd = -1, .dir = set->dir};
    /* seqwr makes its own set in an empty folder. */
    if (fresh && may_create)
        return 0;
    bool created;
    rc = sbio_fileset_open(fs, set, false, &created);
    if (rc)
        sbio_fileset_close(fs);
    return rc ? -SBIO_EUSAGE : 0;
}

int sbio_fileset_mark(struct sbio_fileset *fs, bool complete)
{
    fs->complete = complete;
    int rc = sbio_manifest_write(fs->dirfd, fs);
    if (rc)
        sbio_err("%s/%s: write: %s", fs->dir, SBIO_MANIFEST, strerror(-rc));
    return rc;
}

/* A write mode may write to the device: --allow-destroy says so, and nothing holds it. */
static int device_writable(const struct sbio_settings *set, const char *real, dev_t rdev)
{
    if (!set->allow_destroy) {
        sbio_err("--filename=%s with --file-test-mode=%s overwrites the device; add "
                 "--allow-destroy if its data may be destroyed",
                 set->filename, sbio_mode_name(set->mode));
        return -SBIO_EUSAGE;
    }
    if (sbio_sysblock_mounted(major(rdev), minor(rdev))) {
        sbio_err("--filename=%s is mounted (or a partition of it is): sbio never writes "
                 "to a mounted device",
                 set->filename);
        return -SBIO_EUSAGE;
    }
    /* O_EXCL on a block device is an exclusive claim: it fails while anyone (a file system,
     * md, dm) holds it. */
    int fd = open(real, O_RDONLY | O_EXCL | O_CLOEXEC);
    if (fd < 0) {
        sbio_err("--filename=%s is in use (%s): sbio never writes to a device something "
                 "else holds",
                 set->filename, strerror(errno));
        return -SBIO_EUSAGE;
    }
    close(fd);
    return 0;
}

/* The device real (--filename resolved), checked for the run: its size in *size. */
static int device_check(const struct sbio_settings *set, const char *real, uint64_t *size)
{
    struct stat st;
    if (stat(real, &st)) {
        sbio_err("--filename=%s: %s", set->filename, strerror(errno));
        return -SBIO_EUSAGE;
    }
    if (!S_ISBLK(st.st_mode)) {
        sbio_err("--filename=%s is not a block device; accepted: a device node such as "
                 "/dev/sdb (files go in --dir)",
                 set->filename);
        return -SBIO_EUSAGE;
    }
    int rc;
    if (sbio_mode_writes(set->mode) && (rc = device_writable(set, real, st.st_rdev)))
        return rc;
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ioctl(fd, BLKGETSIZE64, size)) {
        int e = errno;
        sbio_err("--filename=%s: size: %s", set->filename, strerror(e));
        if (fd >= 0)
            close(fd);
        return -SBIO_EUSAGE;
    }
    close(fd);
    return 0;
}

int sbio_fileset_open_device(struct sbio_fileset *fs, const struct sbio_settings *set)
{
    memset(fs, 0, sizeof(*fs));
    fs->dirfd = -1;
    fs->dir = set->dir;
    fs->raw = true;
    char real[PATH_MAX];
    uint64_t size = 0;
    if (!realpath(set->filename, real)) {
        sbio_err("--filename=%s: %s", set->filename, strerror(errno));
        return -SBIO_EUSAGE;
    }
    int rc = device_check(set, real, &size);
    if (rc)
        return rc;
    if (strlen(real) >= sizeof(fs->files[0].name)) {
        sbio_err("--filename=%s: the path is too long", set->filename);
        return -SBIO_EUSAGE;
    }
    fs->files = calloc(1, sizeof(*fs->files));
    if (!fs->files)
        return -ENOMEM;
    fs->nfiles = 1;
    memcpy(fs->files[0].name, real, strlen(real) + 1);
    fs->files[0].size = size;
    fs->bytes = size;
    fs->total_size = size;
    fs->block_size = set->block_size;
    fs->complete = true;
    fs->seed = set->rand_seed;
    return 0;
}

void sbio_fileset_close(struct sbio_fileset *fs)
{
    if (fs->dirfd >= 0)
        close(fs->dirfd);
    fs->dirfd = -1;
    free(fs->files);
    fs->files = NULL;
}

/* The pid holding a lock on the inode of st, from /proc/locks ("1: FLOCK ADVISORY WRITE PID
 * MAJ:MIN:INODE 0 EOF", the device numbers in hex); 0 when not found
 * (a lock of another mount namespace, or a file system whose inode the kernel names by
 * another device number). */
static pid_t lock_holder(const struct stat *st)
{
    FILE *f = fopen("/proc/locks", "re");
    if (!f)
        return 0;
    char line[256];
    pid_t found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        char kind[16];
        int pid;
        unsigned maj, min;
        unsigned long long ino;
        /* Waiters' lines start with "->" after the number: the sscanf fails on them. */
        if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", kind, &pid, &maj, &min, &ino) == 5 &&
            maj == major(st->st_dev) && min == minor(st->st_dev) &&
            ino == (unsigned long long)st->st_ino && pid > 0)
            found = pid;
    }
    fclose(f);
    return found;
}

/* "pid N: ARGV" for pid, its command line cut to fit and made printable (it is another
 * user's text), or "pid N" when it is gone or unreadable. */
static void lock_describe(pid_t pid, char *buf, size_t len)
{
    char path[64], cmd[160];
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, cmd, sizeof(cmd) - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0) {
        snprintf(buf, len, "pid %d", (int)pid);
        return;
    }
    for (ssize_t i = 0; i < n; i++)
        if (cmd[i] == 0)
            cmd[i] = ' ';
        else if ((unsigned char)cmd[i] < 0x20 || (unsigned char)cmd[i] >= 0x7f)
            cmd[i] = '?';
    while (n > 0 && cmd[n - 1] == ' ')
        n--;
    cmd[n] = 0;
    snprintf(buf, len, "pid %d: %s%s", (int)pid, cmd, n == (ssize_t)sizeof(cmd) - 1 ? "..." : "");
}

bool sbio_fileset_cmd_writes(const struct sbio_settings *set, const struct sbio_script *script)
{
    if (set->cmd == SBIO_CMD_PREPARE || set->cmd == SBIO_CMD_CLEANUP)
        return true;
    if (!script)
        return sbio_mode_writes(set->mode);
    static const int reads[] = {SBIO_MIX_READ,  SBIO_MIX_READWHOLE, SBIO_MIX_OPEN,
                                SBIO_MIX_CLOSE, SBIO_MIX_STAT,      SBIO_MIX_READDIR};
    for (unsigned p = 0; p < script->nphases; p++)
        for (unsigned k = 0; k < script->phases[p].njobs; k++) {
            const struct sbio_script_job *j = &script->phases[p].jobs[k];
            if (j->mode != SBIO_MODE_NONE) {
                if (sbio_mode_writes(j->mode))
                    return true;
                continue;
            }
            if (j->event)
                return true;
            double rd = 0, all = 0;
            for (int o = 0; o < SBIO_MIX_NR; o++)
                all += j->weight[o];
            for (size_t o = 0; o < sizeof(reads) / sizeof(reads[0]); o++)
                rd += j->weight[reads[o]];
            if (all > rd)
                return true;
        }
    return false;
}

int sbio_fileset_lock(const struct sbio_settings *set, const struct sbio_script *script, int *fd)
{
    *fd = -1;
    bool exclusive = set->cmd == SBIO_CMD_COMPARE || sbio_fileset_cmd_writes(set, script);
    const char *what = set->filename ? set->filename : set->dir;
    /* A device node opened read-only (no O_EXCL: a mounted device stays a refusal of its
     * own); the folder itself, so that no file is created for the lock. */
    int lfd = set->filename ? open(set->filename, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                            : open(set->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lfd < 0)
        return 0;
    /* A run that reads a set a seqwr run left short writes the rest first: alone. (The
     * manifest changes only under an exclusive lock, which this one waits behind.) */
    if (!exclusive && !set->filename && set->cmd == SBIO_CMD_RUN)
        exclusive = sbio_manifest_left_short(lfd);
    int e = 0;
    pid_t pid = 0;
    /* A holder gone from /proc/locks by the time it is looked up has let go: try again. */
    for (int tries = 0; tries < 3; tries++) {
        if (!flock(lfd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB)) {
            *fd = lfd;
            return 0;
        }
        e = errno;
        struct stat st;
        pid = e == EWOULDBLOCK && !fstat(lfd, &st) ? lock_holder(&st) : 0;
        if (pid || e != EWOULDBLOCK)
            break;
    }
    close(lfd);
    if (e != EWOULDBLOCK) {
        /* A file system without flock: nothing to coordinate with. */
        return 0;
    }
    char who[200];
    if (pid)
        lock_describe(pid, who, sizeof(who));
    else
        snprintf(who, sizeof(who), "a process this one cannot see");
    sbio_err("%s %s is in use (%s): prepare, cleanup, compare and runs that write take a set "
             "alone; wait for that one to end, or use another %s",
             set->filename ? "--filename" : "--dir", what, who, set->filename ? "device" : "--dir");
    return -SBIO_EFAILED;
}

/* File i of fs, marked appended, cut back to its size when longer: *bytes grows by what was
 * cut. 0 or -errno (said). */
static int fileset_cut(struct sbio_fileset *fs, unsigned i, uint64_t *bytes)
{
    struct sbio_fileset_file *f = &fs->files[i];
    int fd = openat(fs->dirfd, f->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    int rc = fd < 0 || fstat(fd, &st) ? -errno : 0;
    if (!rc && (uint64_t)st.st_size > f->size) {
        if (ftruncate(fd, (off_t)f->size))
            rc = -errno;
        else
            *bytes += (uint64_t)st.st_size - f->size;
    }
    if (fd >= 0)
        close(fd);
    if (rc)
        sbio_err("%s/%s: cutting back to %" PRIu64 " bytes: %s", fs->dir, f->name, f->size,
                 strerror(-rc));
    return rc;
}

int sbio_fileset_appends(struct sbio_fileset *fs, bool cut, const bool *grow, FILE *out)
{
    bool changed = false;
    unsigned files = 0;
    uint64_t bytes = 0;
    for (unsigned i = 0; i < fs->nfiles; i++) {
        struct sbio_fileset_file *f = &fs->files[i];
        uint64_t before = bytes;
        if (cut && f->appended) {
            int rc = fileset_cut(fs, i, &bytes);
            if (rc)
                return rc;
            files += bytes > before;
        }
        bool mark = grow ? grow[i] : false;
        if ((cut || mark) && f->appended != mark) {
            f->appended = mark;
            changed = true;
        }
    }
    if (files) {
        char b[32];
        fprintf(out,
                "Set in %s put back as prepared (before the run, not measured): %u file%s cut "
                "back to %s size, %s appended by an earlier run removed\n",
                fs->dir, files, files == 1 ? "" : "s", files == 1 ? "its" : "their",
                sbio_fmt_bytes(b, sizeof(b), bytes));
        fflush(out);
    }
    return changed ? sbio_fileset_mark(fs, fs->complete) : 0;
}
