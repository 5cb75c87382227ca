#include "seqwr.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prepare.h"
#include "util.h"

int sbio_seqwr_truncate(const struct sbio_fileset *fs, bool keep_size)
{
    for (unsigned i = 0; i < fs->nfiles; i++) {
        int fd = openat(fs->dirfd, fs->files[i].name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        /* Checked on the descriptor: the file emptied is the file checked. */
        if (fd >= 0 && (fstat(fd, &st) || sbio_manifest_trusted(fs->dir, fs->files[i].name, &st))) {
            close(fd);
            return -SBIO_EUSAGE;
        }
        if (fd < 0 || ftruncate(fd, 0) || (keep_size && ftruncate(fd, (off_t)fs->files[i].size))) {
            int e = errno;
            sbio_err("%s/%s: truncate: %s", fs->dir, fs->files[i].name, strerror(e));
            if (fd >= 0)
                close(fd);
            return -e;
        }
        close(fd);
    }
    return 0;
}

int sbio_seqwr_fill(struct sbio_fileset *fs, const struct sbio_layout *lay, uint64_t a, uint64_t b,
                    uint64_t *bytes)
{
    /* A file system the run filled cannot take the rest: writing it anyway would only repeat
     * the run's ENOSPC at another offset. */
    uint64_t need, avail;
    if (a < b && sbio_fileset_room(fs, &need, &avail)) {
        char n[32], f[32];
        sbio_err("%s: the set cannot be completed after seqwr: it needs %s more, the file "
                 "system has %s free; it stays incomplete: free some space and run sbio "
                 "prepare to finish it, or sbio cleanup",
                 fs->dir, sbio_fmt_bytes(n, sizeof(n), need), sbio_fmt_bytes(f, sizeof(f), avail));
        return -ENOSPC;
    }
    int rc = 0;
    while (a < b && !rc) {
        unsigned f, f2;
        uint64_t off, off2;
        uint32_t len, len2;
        sbio_layout_seq(lay, a, &f, &off, &len);
        /* Extend the piece to the end of the range or of the file. */
        uint64_t last = b - 1 < lay->seq_first[f + 1] - 1 ? b - 1 : lay->seq_first[f + 1] - 1;
        sbio_layout_seq(lay, last, &f2, &off2, &len2);
        rc = sbio_fileset_write_range(fs, f, off, off2 + len2 - off);
        if (!rc) /* only what reached the file: a failed range is not written */
            *bytes += off2 + len2 - off;
        a = last + 1;
    }
    return rc;
}
