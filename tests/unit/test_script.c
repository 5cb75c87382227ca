/* The Lua loader: declarations read into C, options and overrides, and every bad script
 * refused with one line naming the file and line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine.h"
#include "helpers.h"
#include "ioprio.h"
#include "options.h"
#include "script.h"
#include "workload.h"

static char dir[64];

static const char *write_script(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    write_file(path, text);
    return path;
}

static const char *good =
    "option(\"size\", \"64M\", \"size of the set\")\n"
    "option(\"hot\", 0.1, \"hot fraction\")\n"
    "option(\"direct\", false, \"use O_DIRECT\")\n"
    "fileset { files = 4, size = options.size }\n"
    "phase \"mixed\" {\n"
    "  time = 3,\n"
    "  job \"readers\" { threads = 4, mix = { read = 3, write = 1, fdatasync = 0.1 },\n"
    "                   block = { [\"4k\"] = 50, [\"64k\"] = 50 },\n"
    "                   pattern = \"hot:\" .. options.hot .. \":0.9\",\n"
    "                   flags = options.direct and \"direct\" or \"\" },\n"
    "  job \"writer\" { engine = \"libaio\", iodepth = 8, mix = { write = 1 }, block = \"16k\",\n"
    "                  pattern = \"sequential\", rate = 100 },\n"
    "}\n"
    "phase \"read\" { job \"r\" { pattern = \"zipf:1.2\" } }\n"
    "phase \"sysbench\" { job \"s\" { mode = \"rndrw\", threads = 16, fsync_freq = 50 } }\n";

static void test_good_script(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p = write_script("good.lua", good);
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    assert_int_equal(s.nopts, 3);
    assert_string_equal(s.opts[0].name, "size");
    assert_int_equal(s.opts[0].type, 's');
    assert_string_equal(s.opts[0].def, "64M");
    assert_int_equal(s.opts[1].type, 'n');
    assert_int_equal(s.opts[2].type, 'b');
    assert_string_equal(s.opts[2].def, "off");
    assert_int_equal(s.nfiles, 4);
    assert_int_equal(s.file_size[0], 16 << 20);
    assert_int_equal(s.nphases, 3);
    assert_int_equal(s.phases[2].jobs[0].mode, SBIO_MODE_RNDRW);
    assert_int_equal(s.phases[2].jobs[0].fsync_freq, 50);
    assert_int_equal(s.phases[2].jobs[0].threads, 16);
    assert_int_equal(s.phases[0].jobs[0].mode, SBIO_MODE_NONE);
    const struct sbio_script_phase *ph = &s.phases[0];
    assert_string_equal(ph->name, "mixed");
    assert_int_equal(ph->time_s, 3);
    assert_int_equal(ph->njobs, 2);
    const struct sbio_script_job *j = &ph->jobs[0];
    assert_string_equal(j->name, "readers");
    assert_int_equal(j->threads, 4);
    assert_true(j->weight[SBIO_MIX_READ] == 3 && j->weight[SBIO_MIX_WRITE] == 1);
    assert_true(j->weight[SBIO_MIX_FDATASYNC] > 0.09 && j->weight[SBIO_MIX_FSYNC] == 0);
    assert_int_equal(j->nblocks, 2);
    assert_int_equal(j->block[0], 4096);
    assert_int_equal(j->block[1], 65536);
    assert_int_equal(j->pattern, SBIO_PAT_HOT);
    assert_true(j->pa > 0.099 && j->pa < 0.101 && j->pb > 0.899 && j->pb < 0.901);
    assert_int_equal(j->flags, 0);
    const struct sbio_script_job *w = &ph->jobs[1];
    assert_int_equal(w->engine, sbio_engine_id("libaio"));
    assert_int_equal(w->iodepth, 8);
    assert_int_equal(w->pattern, SBIO_PAT_SEQ);
    assert_int_equal(w->rate, 100);
    assert_int_equal(s.phases[1].jobs[0].pattern, SBIO_PAT_ZIPF);
    assert_false(s.has_event);
    sbio_script_free(&s);
}

static void test_overrides(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p = write_script("good.lua", good);
    const char *names[] = {"size", "hot", "direct"};
    const char *values[] = {"8M", "0.25", "on"};
    assert_int_equal(sbio_script_load(p, names, values, 3, false, &s, err, sizeof(err)), 0);
    assert_int_equal(s.file_size[0], 2 << 20);
    assert_true(s.phases[0].jobs[0].pa > 0.249 && s.phases[0].jobs[0].pa < 0.251);
    assert_int_equal(s.phases[0].jobs[0].flags, SBIO_XF_DIRECT);
    /* The default stays the declared one: help shows it. */
    assert_string_equal(s.opts[0].def, "64M");
    sbio_script_free(&s);
    const char *bad[] = {"abc"};
    assert_int_equal(sbio_script_load(p, names + 1, bad, 1, false, &s, err, sizeof(err)), -EINVAL);
    assert_has(err, "--hot: 'abc' is not a number");
    assert_has(err, "good.lua:2:");
}

/* Each bad script: the line it fails on and a fragment of the message. */
static const struct {
    const char *text;
    int line;
    const char *msg;
} bad[] = {
    {"phase \"p\" {\n  job \"j\" { mix = { read = 1 }\n", 3, "expected"},           /* syntax */
    {"local x = nil\nx.y = 1\n", 2, "attempt to index"},                            /* runtime */
    {"phase \"p\" {\n  job \"j\" { thread = 4 } }\n", 2, "unknown field 'thread'"}, /* typo */
    {"phase \"p\" { job \"j\" { mix = { read = \"lots\" } } }\n", 1, "must be a number"},
    {"phase \"p\" { job \"j\" { mix = { erase = 1 } } }\n", 1, "unknown operation 'erase'"},
    {"fileset { files = 2, size = \"-4k\" }\n", 1, "is not a size"},
    {"fileset { files = 2, size = 0 }\n", 1, "positive"},
    {"phase \"p\" { job \"j\" { block = \"12q\" } }\n", 1, "is not a size"},
    {"phase \"p\" { job \"j\" { pattern = \"zipf:1\" } }\n", 1,
     "accepted: uniform, seq (or sequential), zipf"},
    {"phase \"p\" { job \"j\" { engine = \"posixaio\" } }\n", 1, "engine 'posixaio'"},
    {"phase \"p\" { job \"j\" { threads = 0 } }\n", 1, "threads must be"},
    {"phase \"p\" { job \"j\" { mix = { read = 0 } } }\n", 1, "all weights are zero"},
    {"phase \"p\" { }\n", 1, "no jobs"},
    {"phase \"p\" { tim = 3, job \"j\" {} }\n", 1, "unknown field 'tim'"},
    {"option(\"x\", {}, \"\")\n", 1, "must be a number, a string or a boolean"},
    {"option(\"x\", 1)\noption(\"x\", 2)\n", 2, "declared twice"},
    {"fileset { files = 1 }\nfileset { files = 2 }\n", 2, "declared twice"},
    {"phase \"p\" { job \"j\" { flags = \"direct,fast\" } }\n", 1, "flag 'fast'"},
    {"error(\"custom failure\")\n", 1, "custom failure"},
    {"phase \"p\" { job \"j\" { mode = \"randread\" } }\n", 1, "mode 'randread'"},
    {"phase \"p\" { job \"j\" { mode = \"rndrd\", pattern = \"seq\" } }\n", 1, "not both"},
    {"phase \"p\" { { mix = { read = 1 } } }\n", 1, "list jobs made with job"},
    {"phase \"p\" { job \"j\" { mode = \"seqwr\", fsync_end = \"yes\" } }\n", 1,
     "job j: fsync_end 'yes': accepted: true, false"},
    {"phase \"p\" { job \"j\" { mode = \"seqwr\", fsync_end = 1 } }\n", 1,
     "job j: fsync_end '1': accepted: true, false"},
    {"phase \"p\" { job \"j\" { mix = { write = 1 }, fsync_freq = 10 } }\n", 1,
     "fsync_freq and rw_ratio go with mode = ..."},
    {"phase \"p\" { job \"j\" { event = true, fsync_end = true } }\n", 1,
     "fsync_end goes with mode = ... or a mix"},
    {"phase \"p\" { job \"j\" { mode = \"rndrd\", invalidate = 1 } }\n", 1,
     "job j: invalidate '1': accepted: true or \"once\", \"pass\", false"},
    {"phase \"p\" { job \"j\" { mode = \"rndrd\", invalidate = \"pass\" } }\n", 1,
     "job j: invalidate = \"pass\" goes with a sequential mode (seqwr, seqrewr, seqrd) or a "
     "random one with random_order = \"once\""},
    {"phase \"p\" { job \"j\" { mode = \"seqwr\", file_service = \"roundrobin\" } }\n", 1,
     "job j: file_service = \"roundrobin\" goes with mode seqrd or seqrewr"},
    {"phase \"p\" { job \"j\" { mode = \"seqrd\", file_service = \"random\" } }\n", 1,
     "job j: file_service 'random': accepted: set, roundrobin"},
    {"phase \"p\" { job \"j\" { fadvise = \"willneed\" } }\n", 1,
     "job j: fadvise 'willneed': accepted: none, auto, normal, random, sequential"},
    {"phase \"p\" { job \"j\" { random_order = \"shuffle\" } }\n", 1,
     "job j: random_order 'shuffle': accepted: draw, once"},
    {"phase \"p\" { job \"j\" { mode = \"seqrd\", random_order = \"once\" } }\n", 1,
     "goes with a random mode (rndrd, rndwr, rndrw) or a mix's uniform pattern"},
    {"phase \"p\" { job \"j\" { pattern = \"zipf:0.9\", random_order = \"once\" } }\n", 1,
     "goes with a random mode"},
    {"phase \"p\" { job \"j\" { ioprio = 3 } }\n", 1,
     "job j: ioprio '3' is not a string; accepted: \"rt:0\" to \"rt:7\""},
    {"phase \"p\" { job \"j\" { group = { weigth = 100 } } }\n", 1,
     "job j: group: unknown field 'weigth'; accepted: bfq_weight, latency, max, weight"},
    {"phase \"p\" { job \"j\" { group = { max = { bps = 1 } } } }\n", 1,
     "job j: group max: unknown field 'bps'; accepted: device, rbps, riops, wbps, wiops"},
    {"phase \"p\" { job \"j\" { group = 800 } }\n", 1, "job j: group takes a table"},
    /* The command line's caps hold for a script's values, before anything is built. */
    {"phase \"p\" { job \"j\" { threads = 1e9 } }\n", 1,
     "job j: threads 1000000000 is out of range; accepted: a whole number from 1 to 100000 "
     "(as --threads)"},
    {"phase \"p\" {\n job \"j\" { iodepth = 1/0 } }\n", 2, "iodepth inf is out of range"},
    {"phase \"p\" { events = 0/0, job \"j\" {} }\n", 1, "phase p: events"},
    {"phase \"p\" { time = 2^40, job \"j\" {} }\n", 1, "phase p: time 1099511627776"},
    {"fileset { files = 1e300 }\n", 1, "fileset: files 1e+300: accepted: a whole number from 1"},
    {"fileset { size = \"99999999999T\" }\n", 1, "is above"},
    {"phase \"p\" { job \"j\" { block = \"2G\" } }\n", 1, "block 2147483648 is out of range"},
    {"fileset { files = 2, size = \"256K\", sizes = { \"1M\" } }\n", 1, "not both"},
    {"local a = job \"j\" {}\nlocal b = job \"j\" {}\nphase \"p\" { a, b }\n", 3,
     "two jobs named j (lines 1 and 2)"},
    {"local a = job \"j\" {}\nphase \"p\" { a, a }\n", 2, "job j (line 1) is listed twice"},
    {"local a = job \"j\" {}\na.threads = 1e9\n", 2, "read-only"},
    {"phase \"p\" {\n job \"j\" { event = true } }\n", 2,
     "job j: event = true, but the script defines no event(ctx) function"},
    {"event = true\nphase \"p\" {\n job \"j\" { event = true } }\n", 3,
     "no event(ctx) function (event is a boolean)"},
    /* An error about one job of a phase names that job's line, not the phase's. */
    {"phase \"p\" {\n  job \"a\" {},\n  job \"j\" {\n    mode = \"seqwr\",\n  },\n}\n", 3,
     "phase p: job j is a seqwr job, which empties the files the other jobs use"},
    {"local w = job \"w\" { mode = \"seqwr\" }\nphase \"p\" {\n  job \"a\" {},\n  w,\n}\n", 1,
     "phase p: job w is a seqwr job"},
};

static void test_bad_scripts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sbio_script s;
        char err[512] = "", name[32], want[600];
        snprintf(name, sizeof(name), "bad%zu.lua", i);
        const char *p = write_script(name, bad[i].text);
        int rc = sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err));
        if (rc != -EINVAL)
            fail_msg("bad script %zu loaded (rc %d)", i, rc);
        snprintf(want, sizeof(want), "%s:%d:", p, bad[i].line);
        if (strncmp(err, want, strlen(want)) || !strstr(err, bad[i].msg))
            fail_msg("bad script %zu: got '%s', want '%s … %s'", i, err, want, bad[i].msg);
        if (strchr(err, '\n'))
            fail_msg("bad script %zu: more than one line: %s", i, err);
    }
}

/* A job or phase field that is an option's counterpart defaults to the option's default (the
 * option table, options.c), and the names a script may give are C's: the registry's engines
 * and the option table's modes, listed in the same words when one is wrong. */
static void test_names_and_defaults_from_c(void **state)
{
    (void)state;
    struct sbio_config def;
    sbio_options_defaults(&def);
    struct sbio_script s;
    char err[512] = "", want[256];
    const char *p = write_script("bare.lua", "phase \"p\" { job \"j\" {} }\n"
                                             "phase \"q\" { job \"k\" { mode = \"seqrd\" } }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    assert_int_equal(s.phases[0].time_s, def.time_s);
    const struct sbio_script_job *j = &s.phases[1].jobs[0];
    assert_int_equal(j->threads, def.threads);
    assert_int_equal(j->engine, def.ioengine);
    assert_int_equal(j->nblocks, 1);
    assert_int_equal(j->block[0], def.block_size);
    assert_int_equal(j->fsync_freq, def.fsync_freq);
    assert_int_equal(j->fsync_end, def.fsync_end);
    assert_false(s.phases[0].jobs[0].fsync_end); /* a mix has no end fsync */
    assert_true(j->rw_ratio == def.rw_ratio);
    assert_int_equal(j->mode, SBIO_MODE_SEQRD);
    sbio_script_free(&s);

    p = write_script("engine.lua", "phase \"p\" { job \"j\" { engine = \"aio\" } }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "job j: engine 'aio': accepted: %s", sbio_engine_list());
    if (!strstr(err, want))
        fail_msg("got '%s', want '%s'", err, want);
    p = write_script("mode.lua", "phase \"p\" { job \"j\" { mode = \"rnd\" } }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "job j: mode 'rnd': accepted: seqwr, seqrewr, seqrd, rndrd, "
                                "rndwr, rndrw"));
}

/* A mix's rmw weight (a read-modify-write), and a mix's own end fsync: off unless it asks. */
static void test_mix_rmw(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p = write_script(
        "rmw.lua", "phase \"a\" { job \"rw\" { mix = { rmw = 2, read = 1 }, pattern = \"seq\" } }\n"
                   "phase \"b\" { job \"close\" { mix = { rmw = 1 }, fsync_end = true } }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    const struct sbio_script_job *j = &s.phases[0].jobs[0];
    assert_true(j->weight[SBIO_MIX_RMW] == 2 && j->weight[SBIO_MIX_READ] == 1);
    assert_true(j->weight[SBIO_MIX_WRITE] == 0 && j->weight[SBIO_MIX_FSYNC] == 0);
    assert_int_equal(j->pattern, SBIO_PAT_SEQ);
    assert_false(j->fsync_end);
    assert_true(s.phases[1].jobs[0].weight[SBIO_MIX_RMW] == 1);
    assert_true(s.phases[1].jobs[0].fsync_end);
    sbio_script_free(&s);
    p = write_script("rmw_bad.lua", "phase \"a\" { job \"j\" { mix = { rmv = 1 } } }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), -EINVAL);
    assert_has(err, "mix: unknown operation 'rmv'; accepted: read, write, fsync, fdatasync, rmw");
}

/* files = "…" or {…}: the indexes and ranges sorted and merged into ranges, in C as
 * frange_first/last; bad values one line naming the job and what is accepted. */
static void test_files_field(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p =
        write_script("files.lua", "phase \"a\" { job \"r\" { files = \" 9, 0-3,2-5 ,7\" },\n"
                                  "  job \"l\" { files = { 8, 1, 2, 3 }, mix = { append = 1 } },\n"
                                  "  job \"all\" { } }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    const struct sbio_script_job *r = &s.phases[0].jobs[0], *l = &s.phases[0].jobs[1];
    assert_int_equal(r->nfrange, 3);
    assert_true(r->frange_first[0] == 0 && r->frange_last[0] == 5);
    assert_true(r->frange_first[1] == 7 && r->frange_last[1] == 7);
    assert_true(r->frange_first[2] == 9 && r->frange_last[2] == 9);
    assert_int_equal(l->nfrange, 2);
    assert_true(l->frange_first[0] == 1 && l->frange_last[0] == 3);
    assert_true(l->frange_first[1] == 8 && l->frange_last[1] == 8);
    assert_true(l->weight[SBIO_MIX_APPEND] == 1);
    assert_int_equal(s.phases[0].jobs[2].nfrange, 0);
    sbio_script_free(&s);
    static const char *const bad[][2] = {
        {"files = \"3-1\"", "job j: files range 3-1 ends before it starts; accepted: the set's "
                            "files numbered from 0"},
        {"files = \"1,,2\"", "job j: files '1,,2': '' is not an index or a range"},
        {"files = { 1.5 }", "job j: files {...}: 1.5 is not a file's index"},
        {"files = { a = 1 }", "job j: files is a list, not a table with keys"},
        {"files = true", "job j: files (a boolean)"},
        {"files = \"0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32\"",
         "job j: files makes 17 separate ranges, at most 16"},
        {"mode = \"seqwr\", files = \"1\"", "job j: files goes with a mix or a mode other than "
                                            "seqwr (seqwr writes the whole set)"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[256];
        snprintf(text, sizeof(text), "phase \"a\" {\n job \"j\" { %s } }\n", bad[i][0]);
        p = write_script("files_bad.lua", text);
        err[0] = '\0';
        assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), -EINVAL);
        assert_has(err, "files_bad.lua:2: ");
        assert_has(err, bad[i][1]);
    }
}

/* fsync_end is the job's own: true and false as declared, on when a mode job is silent (the
 * option table's default, as sysbench). */
static void test_fsync_end(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p = write_script(
        "fsync_end.lua", "phase \"a\" { job \"on\" { mode = \"seqwr\", fsync_end = true } }\n"
                         "phase \"b\" { job \"off\" { mode = \"rndwr\", fsync_end = false } }\n"
                         "phase \"c\" { job \"silent\" { mode = \"rndrw\" } }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    assert_true(s.phases[0].jobs[0].fsync_end);
    assert_false(s.phases[1].jobs[0].fsync_end);
    assert_true(s.phases[2].jobs[0].fsync_end);
    sbio_script_free(&s);
}

/* invalidate, fadvise and random_order: as declared, and the option table's defaults when a
 * job is silent (off, none, draw: sysbench's). */
static void test_access_fields(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p = write_script(
        "access.lua",
        "phase \"a\" { job \"set\" { mode = \"rndrd\", invalidate = true,\n"
        "  fadvise = \"auto\", random_order = \"once\" } }\n"
        "phase \"b\" { job \"mix\" { fadvise = \"sequential\", random_order = \"once\" } }\n"
        "phase \"c\" { job \"silent\" { mode = \"rndrd\" } }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    const struct sbio_script_job *a = &s.phases[0].jobs[0], *b = &s.phases[1].jobs[0];
    const struct sbio_script_job *c = &s.phases[2].jobs[0];
    assert_true(a->invalidate);
    assert_int_equal(a->fadvise, SBIO_FADV_AUTO);
    assert_int_equal(a->random_order, SBIO_ORDER_ONCE);
    assert_false(b->invalidate);
    assert_int_equal(b->fadvise, SBIO_FADV_SEQUENTIAL);
    assert_int_equal(b->random_order, SBIO_ORDER_ONCE);
    assert_false(c->invalidate);
    assert_int_equal(c->fadvise, SBIO_FADV_NONE);
    assert_int_equal(c->random_order, SBIO_ORDER_DRAW);
    sbio_script_free(&s);
}

/* ioprio: the kernel's value (ioprio.h) as declared, 0 (the command line's) when a job is
 * silent; a class or level the kernel has not is refused with the job's name and the
 * accepted forms, on one line. */
static void test_ioprio_field(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p = write_script("prio.lua", "phase \"a\" { job \"rt\" { ioprio = \"rt:0\" },\n"
                                             "  job \"idle\" { ioprio = \"idle\" },\n"
                                             "  job \"be\" { ioprio = \"best-effort\" },\n"
                                             "  job \"silent\" {} }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    assert_int_equal(s.phases[0].jobs[0].ioprio, 1 << 13);
    assert_int_equal(s.phases[0].jobs[1].ioprio, 3 << 13);
    assert_int_equal(s.phases[0].jobs[2].ioprio, 2 << 13 | 4);
    assert_int_equal(s.phases[0].jobs[3].ioprio, SBIO_IOPRIO_NONE);
    sbio_script_free(&s);
    static const char *const bad[][2] = {{"be:8", "job j: ioprio 'be:8' has a level out of 0-7"},
                                         {"urgent", "job j: ioprio 'urgent' has an unknown class"},
                                         {"idle:2", "job j: ioprio 'idle:2' has a level, which"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[128];
        snprintf(text, sizeof(text), "phase \"p\" { job \"j\" { ioprio = \"%s\" } }\n", bad[i][0]);
        p = write_script("badprio.lua", text);
        assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), -EINVAL);
        assert_has(err, bad[i][1]);
        assert_has(err, "accepted: rt:0 to rt:7, be:0 to be:7");
        assert_null(strchr(err, '\n'));
    }
}

/* group: each value as declared (sizes as the command line reads them, latency in
 * microseconds); a value out of what any hierarchy accepts is refused on one line. */
static void test_group_field(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p = write_script(
        "group.lua", "phase \"a\" { job \"g\" { group = { weight = 5000, bfq_weight = 800,\n"
                     "  max = { rbps = \"20M\", wbps = 4096, riops = 300, wiops = 7,\n"
                     "  device = \"loop0\" }, latency = \"2.5ms\" } },\n"
                     "  job \"none\" {} }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    const struct sbio_cgroup_spec *g = &s.phases[0].jobs[0].group;
    assert_true(g->set);
    assert_int_equal(g->weight, 5000);
    assert_int_equal(g->bfq_weight, 800);
    assert_int_equal(g->rbps, 20 * 1024 * 1024);
    assert_int_equal(g->wbps, 4096);
    assert_int_equal(g->riops, 300);
    assert_int_equal(g->wiops, 7);
    assert_string_equal(g->max_dev, "loop0");
    assert_int_equal(g->latency_us, 2500);
    assert_false(s.phases[0].jobs[1].group.set);
    sbio_script_free(&s);
    static const char *const bad[][2] = {
        {"weight = 0", "job j: group weight '0' is not valid; accepted: 1 to 1000 (cgroup v1"},
        {"bfq_weight = 2.5", "job j: group bfq_weight '2.5' is not valid; accepted: 1 to 1000"},
        {"max = { rbps = \"20Q\" }", "job j: group rbps '20Q' is not valid; accepted: a size"},
        {"max = { riops = 0 }", "job j: group riops '0' is not valid; accepted: a whole number"},
        {"latency = \"5\"", "job j: group latency '5' is not valid; accepted: a time with its"},
        {"latency = \"-1ms\"", "job j: group latency '-1ms' is not valid"},
        {"latency = \"nanus\"", "job j: group latency 'nanus' is not valid"},
        {"latency = \"infms\"", "job j: group latency 'infms' is not valid"},
        {"latency = \"1e300s\"", "job j: group latency '1e300s' is not valid"},
        {"max = { riops = 1e300 }", "job j: group riops '1e+300' is not valid"},
        {"weight = 2^64", "job j: group weight '1.844674407371e+19' is not valid"},
        {"max = { rbps = \"9000000T\" }", "job j: group rbps '9000000T' is not valid"},
        {"max = { wiops = 1e19 }", "job j: group wiops '1e+19' is not valid"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[160];
        snprintf(text, sizeof(text), "phase \"p\" { job \"j\" { group = { %s } } }\n", bad[i][0]);
        p = write_script("badgroup.lua", text);
        assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), -EINVAL);
        assert_has(err, bad[i][1]);
        assert_null(strchr(err, '\n'));
    }
}

static void test_no_phase_and_missing(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512], buf[512];
    const char *p = write_script("empty.lua", "option(\"x\", 1)\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), -EINVAL);
    assert_has(err, "declares no phase");
    assert_null(sbio_script_find("/nonexistent/x.lua", buf, sizeof(buf)));
    assert_string_equal(buf, "cannot read /nonexistent/x.lua: No such file or directory");
    /* A bare name not found: every folder searched is named (the installed one is
     * $(PREFIX)/share/sbio/workloads). */
    unsetenv("SBIO_WORKLOADS");
    assert_null(sbio_script_find("nosuch", buf, sizeof(buf)));
    assert_true(!strncmp(buf, "looked for nosuch.lua in /", 26));
    assert_has(buf, "/share/sbio/workloads and ./workloads (set $SBIO_WORKLOADS to look in "
                    "another folder)");
    setenv("SBIO_WORKLOADS", dir, 1);
    assert_null(sbio_script_find("nosuch.lua", buf, sizeof(buf)));
    char want[512];
    snprintf(want, sizeof(want), "looked for nosuch.lua in %s ($SBIO_WORKLOADS), /", dir);
    assert_true(!strncmp(buf, want, strlen(want)));
    assert_has(buf, "/share/sbio/workloads and ./workloads");
    assert_lacks(buf, "another folder");
    assert_non_null(sbio_script_find("empty", buf, sizeof(buf)));
    assert_has(buf, "/empty.lua");
    assert_non_null(sbio_script_find("empty.lua", buf, sizeof(buf)));
}

/* event() asking for what the set cannot give: the message gives the sizes in units and
 * words a one-file set right. */
static void test_event_out_of_set(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p =
        write_script("outside.lua", "fileset { files = 1, size = \"16M\" }\n"
                                    "phase \"p\" { job \"j\" { block = \"4k\", event = true } }\n"
                                    "function event(ctx)\n"
                                    "    ctx.op = sbio.READ\n"
                                    "    ctx.file = ctx.seq == 0 and 0 or 3\n"
                                    "    ctx.offset, ctx.len = 16777216, 4096\n"
                                    "    return true\n"
                                    "end\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    uint64_t size = 16 << 20;
    struct sbio_script_hook hook = {.s = &s, .nfiles = 1, .file_sizes = &size, .max_len = 4096};
    const struct sbio_hook_ops *ops = sbio_script_hook_ops(&hook);
    assert_non_null(ops);
    void *st = ops->create(ops->arg, 0, 1, NULL, err, sizeof(err));
    assert_non_null(st);
    struct sbio_io io;
    char want[700]; /* the script path (up to 511 bytes) and the message */
    assert_int_equal(ops->next(st, &io, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "%s: event(): ctx.offset 16777216 + ctx.len 4096 is outside file 0 (16 MiB) or "
             "longer than the job's block (4 KiB)",
             p);
    assert_string_equal(err, want);
    assert_int_equal(ops->next(st, &io, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s: event(): ctx.file 3: the set has one file, 0", p);
    assert_string_equal(err, want);
    ops->destroy(st);
    free((void *)ops);
    sbio_script_free(&s);
}

/* ctx's fields are Lua numbers: math.floor, % and string.format("%d") take ctx.seq and
 * ctx.offset as they come (64-bit cdata would make math.floor fail), and what event() derives
 * from them is the operation sbio issues. An offset that is not a whole number of bytes >= 0
 * is the script's error, named. */
static void test_event_ctx_numbers(void **state)
{
    (void)state;
    struct sbio_script s;
    char err[512] = "";
    const char *p = write_script(
        "ctxnum.lua", "fileset { files = 2, size = \"16M\" }\n"
                      "phase \"p\" { job \"j\" { block = \"4k\", event = true } }\n"
                      "function event(ctx)\n"
                      "    assert(type(ctx.seq) == 'number' and type(ctx.offset) == 'number')\n"
                      "    assert(string.format('%d', ctx.seq) == tostring(ctx.seq))\n"
                      "    ctx.op = (ctx.seq % 10 == 9) and sbio.WRITE or sbio.READ\n"
                      "    ctx.file = math.floor(ctx.seq / 5) % 2\n"
                      "    ctx.offset = math.floor(ctx.seq / 2) * 4096\n"
                      "    ctx.len = 4096\n"
                      "    if ctx.seq == 20 then ctx.offset = 0.5 end\n"
                      "    if ctx.seq == 21 then ctx.offset = -4096 end\n"
                      "    return true\n"
                      "end\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)), 0);
    uint64_t size[2] = {16 << 20, 16 << 20};
    struct sbio_script_hook hook = {.s = &s, .nfiles = 2, .file_sizes = size, .max_len = 4096};
    const struct sbio_hook_ops *ops = sbio_script_hook_ops(&hook);
    assert_non_null(ops);
    void *st = ops->create(ops->arg, 0, 1, NULL, err, sizeof(err));
    assert_non_null(st);
    struct sbio_io io;
    for (unsigned seq = 0; seq < 20; seq++) {
        if (ops->next(st, &io, err, sizeof(err)) != 1)
            fail_msg("event %u: %s", seq, err);
        assert_int_equal(io.op, seq % 10 == 9 ? SBIO_WRITE : SBIO_READ);
        assert_int_equal(io.file, seq / 5 % 2);
        assert_int_equal(io.offset, (uint64_t)(seq / 2) * 4096);
        assert_int_equal(io.len, 4096);
    }
    char want[700];
    assert_int_equal(ops->next(st, &io, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s: event(): ctx.offset 0.5 is not a whole number of bytes >= 0",
             p);
    assert_string_equal(err, want);
    assert_int_equal(ops->next(st, &io, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "%s: event(): ctx.offset -4096 is not a whole number of bytes >= 0", p);
    assert_string_equal(err, want);
    ops->destroy(st);
    free((void *)ops);
    sbio_script_free(&s);
}

static int setup(void **state)
{
    (void)state;
    return tmpdir_make(dir, sizeof(dir), "/tmp", "script");
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(dir);
}

/* A script runs sandboxed unless trusted: io, os.execute, ffi, require, debug, load, getfenv
 * and string.dump are not there (the strings' metatable is hidden, so dump cannot be reached
 * through it); trusted, they are, but os.exit raises an error. A precompiled file is refused
 * either way. */
static void test_sandbox(void **state)
{
    (void)state;
    static const char *const absent[] = {"io",
                                         "require('ffi').C",
                                         "jit",
                                         "debug",
                                         "require",
                                         "package",
                                         "load",
                                         "loadstring",
                                         "dofile",
                                         "loadfile",
                                         "getfenv",
                                         "setfenv",
                                         "collectgarbage",
                                         "newproxy",
                                         "string.dump",
                                         "os.execute",
                                         "os.exit",
                                         "os.remove",
                                         "os.getenv",
                                         "getmetatable('').__index"};
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
        char text[256], err[512] = "";
        struct sbio_script s;
        snprintf(text, sizeof(text),
                 "local ok, v = pcall(function() return %s end)\n"
                 "if ok and v then error('reachable') end\n"
                 "phase \"p\" { job \"j\" {} }\n",
                 absent[i]);
        const char *p = write_script("sandbox.lua", text);
        if (sbio_script_load(p, NULL, NULL, 0, false, &s, err, sizeof(err)))
            fail_msg("%s reachable in the sandbox: %s", absent[i], err);
        sbio_script_free(&s);
        bool must = strcmp(absent[i], "getmetatable('').__index") != 0;
        int rc = sbio_script_load(p, NULL, NULL, 0, true, &s, err, sizeof(err));
        if (must && rc != -EINVAL)
            fail_msg("%s not reachable when trusted", absent[i]);
        if (!rc)
            sbio_script_free(&s);
    }
    char err[512] = "";
    struct sbio_script s;
    const char *p = write_script("exit.lua", "os.exit(0)\nphase \"p\" { job \"j\" {} }\n");
    assert_int_equal(sbio_script_load(p, NULL, NULL, 0, true, &s, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "os.exit is not available to a script"));
    /* LuaJIT bytecode: "\x1bLJ" and a version byte. */
    p = write_script("bc.lua", "\x1bLJ\x02\x00");
    for (int trusted = 0; trusted < 2; trusted++) {
        assert_int_equal(sbio_script_load(p, NULL, NULL, 0, trusted, &s, err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "bc.lua: a precompiled (bytecode) script"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_script),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_bad_scripts),
        cmocka_unit_test(test_names_and_defaults_from_c),
        cmocka_unit_test(test_fsync_end),
        cmocka_unit_test(test_mix_rmw),
        cmocka_unit_test(test_files_field),
        cmocka_unit_test(test_access_fields),
        cmocka_unit_test(test_no_phase_and_missing),
        cmocka_unit_test(test_ioprio_field),
        cmocka_unit_test(test_group_field),
        cmocka_unit_test(test_event_out_of_set),
        cmocka_unit_test(test_sandbox),
        cmocka_unit_test(test_event_ctx_numbers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
