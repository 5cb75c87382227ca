/* A main() for a fuzz harness without libFuzzer: runs LLVMFuzzerTestOneInput once on every
 * file named on the command line or found in a folder named there (sorted by name, not
 * recursive), each in a buffer of exactly its size so that AddressSanitizer sees a read past
 * the end. Before each input its path goes to stdout, so that the last path printed names
 * the input that crashed. Ends with "N inputs" on stdout; exit 0, or 1 when a file cannot
 * be read. tests/integration/fuzz_replay.sh builds it with gcc for `make test`. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path, size_t *count)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        dprintf(2, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st)) {
        fclose(f);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf || fread(buf, 1, size, f) != size) {
        dprintf(2, "replay: %s: short read\n", path);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    /* fd 1, not stdout: a harness may point stdout elsewhere. */
    dprintf(1, "input: %s\n", path);
    LLVMFuzzerTestOneInput(buf, size);
    free(buf);
    (*count)++;
    return 0;
}

static int replay_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st)) {
        dprintf(2, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path, count);
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        dprintf(2, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char sub[4096];
        snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
        struct stat sst;
        if (names[i]->d_name[0] != '.' && !stat(sub, &sst) && S_ISREG(sst.st_mode))
            rc |= replay_file(sub, count);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    size_t count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= replay_path(argv[i], &count);
    dprintf(1, "%zu inputs\n", count);
    return rc ? 1 : 0;
}
