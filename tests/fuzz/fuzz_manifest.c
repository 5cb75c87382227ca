/* Fuzz the manifest reader: the input is written as sbio.manifest in a private folder
 * (made once per process), then sbio_manifest_read reads it through a folder descriptor, as
 * run, prepare and cleanup do.
 *
 * Invariants: the result is 0 or -EBADMSG (with it, fs.damage says the line and the reason;
 * nothing is printed either way: the caller says it; a manifest is never missing here); on
 * failure nothing is left allocated; on success nfiles > 0, file N is named test_file.N and
 * stands whole in the input
 * (followed there by white space: not cut short), it had no line over 511 bytes and no
 * NUL byte (either would have been split or cut short), bytes is the sum of the sizes; and what
 * sbio_manifest_write makes of the set reads back the same. */
#include <fcntl.h>
#include <sys/stat.h>

#include "manifest.h"
#include "vocab.h"
#include "fuzz.h"

static int manifest_dir = -1;  /* the input's folder */
static int roundtrip_dir = -1; /* where the set is written back */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_tmp_dir("fuzz-manifest");
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/in", dir);
    FUZZ_CHECK(!mkdir(sub, 0700), "mkdir %s: %s", sub, strerror(errno));
    manifest_dir = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(sub, sizeof(sub), "%s/back", dir);
    FUZZ_CHECK(!mkdir(sub, 0700), "mkdir %s: %s", sub, strerror(errno));
    roundtrip_dir = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    FUZZ_CHECK(manifest_dir >= 0 && roundtrip_dir >= 0, "open %s: %s", dir, strerror(errno));
    return 0;
}

/* Does name occur in the input followed by white space? */
static int manifest_name_whole(const uint8_t *data, size_t size, const char *name)
{
    size_t n = strlen(name);
    for (const uint8_t *p = data; p + n < data + size;) {
        const uint8_t *hit = memmem(p, (size_t)(data + size - p), name, n);
        if (!hit || hit + n >= data + size)
            return 0;
        if (strchr(" \t\n\v\f\r", hit[n]) && hit[n])
            return 1;
        p = hit + 1;
    }
    return 0;
}

static void manifest_check_same(const struct sbio_fileset *a, const struct sbio_fileset *b)
{
    FUZZ_CHECK(a->complete == b->complete && a->total_size == b->total_size &&
                   a->block_size == b->block_size && a->fill == b->fill && a->seed == b->seed &&
                   a->verify == b->verify && a->prealloc == b->prealloc && a->nfiles == b->nfiles &&
                   a->bytes == b->bytes,
               "the written-back manifest reads differently");
    FUZZ_CHECK(a->fill != SBIO_FILL_COMPRESSIBLE || a->fill_pct == b->fill_pct,
               "compressible:%llu read back as %llu", (unsigned long long)a->fill_pct,
               (unsigned long long)b->fill_pct);
    for (unsigned i = 0; i < a->nfiles; i++)
        FUZZ_CHECK(!strcmp(a->files[i].name, b->files[i].name) &&
                       a->files[i].size == b->files[i].size,
                   "file.%u read back as '%s' %llu, was '%s' %llu", i, b->files[i].name,
                   (unsigned long long)b->files[i].size, a->files[i].name,
                   (unsigned long long)a->files[i].size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (manifest_dir < 0)
        LLVMFuzzerInitialize(NULL, NULL);
    int fd = openat(manifest_dir, SBIO_MANIFEST, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0, "create the manifest: %s", strerror(errno));
    FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "write the manifest: %s", strerror(errno));
    close(fd);

    struct sbio_fileset fs;
    memset(&fs, 0xa5, sizeof(fs)); /* the reader must not rely on the caller's values */
    struct fuzz_capture err;
    fuzz_capture_start(&err, &stderr);
    int rc = sbio_manifest_read(manifest_dir, &fs);
    fuzz_capture_stop(&err, &stderr);
    int lines = fuzz_error_lines(err.text);
    FUZZ_CHECK(rc == 0 || rc == -EBADMSG, "sbio_manifest_read returned %d", rc);
    FUZZ_CHECK(lines == 0, "returned %d after %d error lines: %.300s", rc, lines, err.text);
    FUZZ_CHECK(!rc || !strncmp(fs.damage, "line ", 5), "returned %d, damage '%.100s'", rc,
               fs.damage);
    fuzz_capture_free(&err);
    if (rc) {
        FUZZ_CHECK(fs.files == NULL, "files left allocated after an error");
        return 0;
    }

    FUZZ_CHECK(fs.nfiles > 0 && fs.files != NULL, "a set of %u files", fs.nfiles);
    /* Lines of up to 511 bytes, text only: a longer line or a NUL byte must be refused, not
     * split or cut short. */
    FUZZ_CHECK(!memchr(data, 0, size), "a manifest with a NUL byte was accepted");
    for (const uint8_t *p = data, *end = data + size; p < end;) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)((nl ? nl : end) - p);
        FUZZ_CHECK(len <= 511, "a line of %zu bytes was accepted", len);
        p = nl ? nl + 1 : end;
    }
    uint64_t sum = 0;
    for (unsigned i = 0; i < fs.nfiles; i++) {
        const char *name = fs.files[i].name;
        FUZZ_CHECK(name[0], "file.%u has no name", i);
        char want[32];
        snprintf(want, sizeof(want), "test_file.%u", i);
        FUZZ_CHECK(!strcmp(name, want), "file.%u is '%s'", i, name);
        FUZZ_CHECK(strlen(name) < sizeof(fs.files[i].name), "file.%u name unterminated", i);
        FUZZ_CHECK(manifest_name_whole(data, size, name), "file.%u is '%s', not whole in the input",
                   i, name);
        sum += fs.files[i].size;
    }
    FUZZ_CHECK(sum == fs.bytes, "bytes %llu, sizes add up to %llu", (unsigned long long)fs.bytes,
               (unsigned long long)sum);

    FUZZ_CHECK(!sbio_manifest_write(roundtrip_dir, &fs), "sbio_manifest_write: %s",
               strerror(errno));
    struct sbio_fileset back;
    fuzz_capture_start(&err, &stderr);
    rc = sbio_manifest_read(roundtrip_dir, &back);
    fuzz_capture_stop(&err, &stderr);
    FUZZ_CHECK(rc == 0, "the written-back manifest does not read (%d): %.300s", rc, err.text);
    fuzz_capture_free(&err);
    manifest_check_same(&fs, &back);
    free(back.files);
    free(fs.files);
    return 0;
}
