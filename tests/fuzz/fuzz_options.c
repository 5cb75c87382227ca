/* Fuzz the command line: sbio_options_parse, then sbio_options_validate, as main.c does, and
 * sbio_options_set on each --vary value, as compare does.
 *
 * Input: the argv words after the program name, one a line ('\n' separates; a word cannot
 * hold a newline, so that every message is one line and can be counted). At most
 * FUZZ_MAX_WORDS words are used.
 *
 * Invariants: parse and validate return 0 or -EINVAL; -EINVAL comes with exactly one error
 * line on stderr and 0 with none (notes are free); everything on stderr comes through
 * sbio_err / sbio_note; a parsed configuration has every value within its option's range;
 * nothing crashes or leaks. */
#include <math.h>

#include "engine.h"
#include "fuzz.h"
#include "options.h"

#define FUZZ_MAX_WORDS 128

/* What the option table promises of any configuration that parsed. */
static void options_check_ranges(const struct sbio_config *c)
{
    FUZZ_CHECK(c->threads >= 1 && c->threads <= 100000, "threads %llu",
               (unsigned long long)c->threads);
    FUZZ_CHECK(c->percentile <= 100, "percentile %llu", (unsigned long long)c->percentile);
    FUZZ_CHECK(c->file_num >= 1 && c->file_num <= 1000000, "file_num %llu",
               (unsigned long long)c->file_num);
    FUZZ_CHECK(c->block_size >= 1 && c->block_size <= (1ULL << 30), "block_size %llu",
               (unsigned long long)c->block_size);
    FUZZ_CHECK(c->total_size >= 1 && c->total_size <= (UINT64_MAX >> 1), "total_size %llu",
               (unsigned long long)c->total_size);
    FUZZ_CHECK(c->mode >= 0 && c->mode <= SBIO_MODE_NONE, "mode %d", c->mode);
    FUZZ_CHECK(c->io_mode >= 0 && c->io_mode <= SBIO_IOMODE_MMAP, "io_mode %d", c->io_mode);
    FUZZ_CHECK(sbio_engine_find(c->ioengine), "ioengine %d", c->ioengine);
    FUZZ_CHECK(c->iodepth >= 1 && c->iodepth <= 65536, "iodepth %llu",
               (unsigned long long)c->iodepth);
    FUZZ_CHECK(c->extra_flags < 8, "extra_flags %u", c->extra_flags);
    FUZZ_CHECK(isfinite(c->rw_ratio) && c->rw_ratio >= 0, "rw_ratio %g", c->rw_ratio);
    FUZZ_CHECK(c->fill_pct <= 100, "fill_pct %llu", (unsigned long long)c->fill_pct);
    FUZZ_CHECK(c->nargs >= 0 && c->nargs <= SBIO_MAX_ARGS, "nargs %d", c->nargs);
    FUZZ_CHECK(c->nvary >= 0 && c->nvary <= SBIO_MAX_LIST, "nvary %d", c->nvary);
    FUZZ_CHECK(c->nqueue >= 0 && c->nqueue <= SBIO_MAX_LIST, "nqueue %d", c->nqueue);
    FUZZ_CHECK(c->cmd >= SBIO_CMD_NONE && c->cmd < SBIO_CMD_NR, "cmd %d", (int)c->cmd);
    FUZZ_CHECK(c->threshold <= 100, "threshold %llu", (unsigned long long)c->threshold);
    FUZZ_CHECK(c->repeat >= 1 && c->repeat <= 10000, "repeat %llu", (unsigned long long)c->repeat);
}

/* Call fn's result rc and the stderr it printed against the one-line contract. */
static void options_check_message(const char *what, int rc, struct fuzz_capture *err)
{
    int lines = fuzz_error_lines(err->text);
    FUZZ_CHECK(rc == 0 || rc == -EINVAL, "%s returned %d", what, rc);
    FUZZ_CHECK(rc ? lines == 1 : lines == 0, "%s returned %d after %d error lines: %.300s", what,
               rc, lines, err->text);
}

/* compare's --vary KEY=V1,V2: each value set on a copy of the configuration. */
static void options_try_vary(const struct sbio_config *cfg, const char *vary)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", vary);
    char *eq = strchr(buf, '=');
    if (!eq)
        return;
    *eq = 0;
    char *save = NULL;
    for (char *v = strtok_r(eq + 1, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
        struct sbio_config copy = *cfg;
        struct fuzz_capture err;
        fuzz_capture_start(&err, &stderr);
        int rc = sbio_options_set(&copy, buf, v, SBIO_C(SBIO_CMD_RUN));
        fuzz_capture_stop(&err, &stderr);
        options_check_message("sbio_options_set", rc, &err);
        fuzz_capture_free(&err);
        if (!rc)
            options_check_ranges(&copy);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    FUZZ_CHECK(text != NULL, "malloc");
    memcpy(text, data, size);
    text[size] = 0;
    char *argv[FUZZ_MAX_WORDS + 2] = {"sbio"};
    int argc = 1;
    for (char *w = text; argc <= FUZZ_MAX_WORDS;) {
        char *nl = strchr(w, '\n');
        argv[argc++] = w;
        if (!nl)
            break;
        *nl = 0;
        w = nl + 1;
    }
    /* A trailing newline ends the last word; it does not start an empty one. */
    if (argc > 1 && !argv[argc - 1][0] && size && data[size - 1] == '\n')
        argc--;
    argv[argc] = NULL;

    struct sbio_config cfg;
    sbio_options_defaults(&cfg);
    struct fuzz_capture err;
    fuzz_capture_start(&err, &stderr);
    int rc = sbio_options_parse(&cfg, argc, argv);
    fuzz_capture_stop(&err, &stderr);
    options_check_message("sbio_options_parse", rc, &err);
    fuzz_capture_free(&err);
    if (rc)
        goto out;
    options_check_ranges(&cfg);

    fuzz_capture_start(&err, &stderr);
    rc = sbio_options_validate(&cfg, 1);
    fuzz_capture_stop(&err, &stderr);
    options_check_message("sbio_options_validate", rc, &err);
    fuzz_capture_free(&err);
    if (rc)
        goto out;
    options_check_ranges(&cfg);
    /* A script's jobs bring their own modes: --script needs no --file-test-mode. */
    if (cfg.cmd == SBIO_CMD_RUN && !cfg.script)
        FUZZ_CHECK(cfg.mode != SBIO_MODE_NONE, "run validated without a mode");
    if (cfg.cmd == SBIO_CMD_DIFF)
        FUZZ_CHECK(cfg.nargs == 2, "diff validated with %d files", cfg.nargs);

    for (int i = 0; i < cfg.nvary; i++)
        options_try_vary(&cfg, cfg.vary[i]);
    /* The names reports print must be there for whatever was parsed. */
    char flags[64];
    FUZZ_CHECK(sbio_cmd_name(cfg.cmd) && sbio_mode_name(cfg.mode) &&
                   sbio_engine_name(cfg.ioengine) && sbio_fill_name(cfg.fill) &&
                   sbio_extra_flags_str(flags, sizeof(flags), cfg.extra_flags),
               "a name is NULL");
    if (cfg.cmd == SBIO_CMD_HELP) {
        fuzz_capture_start(&err, &stderr);
        rc = sbio_options_help(fuzz_devnull(), cfg.nargs ? cfg.args[0] : NULL);
        fuzz_capture_stop(&err, &stderr);
        options_check_message("sbio_options_help", rc, &err);
        fuzz_capture_free(&err);
    }
out:
    free(text);
    return 0;
}
