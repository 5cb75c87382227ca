/* Unit tests for compare (src/analysis/compare.c): the round-major (and random) run order, the
 * cartesian product of the axes, and what a key of --vary sets (a script's option first, then
 * the scheduler, a queue knob, a run option; anything else refused with what can be varied).
 * The statistics are tested in tests/unit/test_infer.c, the table in tests/unit/test_table.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "decl.h"
#include "helpers.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the run order ---- */

/* Each repeat's slice of out is a permutation of 0..ns-1. */
static void assert_permutation_per_repeat(const size_t *out, size_t ns, unsigned repeat)
{
    bool *seen = calloc(ns, sizeof(bool));
    assert_non_null(seen);
    for (unsigned r = 0; r < repeat; r++) {
        memset(seen, 0, ns * sizeof(bool));
        for (size_t i = 0; i < ns; i++) {
            size_t s = out[(size_t)r * ns + i];
            if (s >= ns)
                fail_msg("repeat %u position %zu: setting %zu out of range (%zu)", r, i, s, ns);
            if (seen[s])
                fail_msg("repeat %u: setting %zu twice", r, s);
            seen[s] = true;
        }
    }
    free(seen);
}

static void test_order_interleaved(void **state)
{
    (void)state;
    /* Repeat-major: repeat 1 of every setting, then repeat 2, …, each in setting order. */
    size_t out[5 * 3];
    memset(out, 0xff, sizeof(out));
    sbio_compare_order(5, 3, false, 12345, out);
    for (unsigned r = 0; r < 3; r++)
        for (size_t i = 0; i < 5; i++)
            assert_int_equal(out[r * 5 + i], i);
    assert_permutation_per_repeat(out, 5, 3);

    /* The seed plays no part without random. */
    size_t out2[5 * 3];
    sbio_compare_order(5, 3, false, 999, out2);
    assert_memory_equal(out, out2, sizeof(out));

    /* One setting, one repeat; and one repeat of many. */
    size_t one[1] = {7};
    sbio_compare_order(1, 1, false, 1, one);
    assert_int_equal(one[0], 0);
    size_t many[8];
    sbio_compare_order(8, 1, false, 1, many);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(many[i], i);
}

static void test_order_random(void **state)
{
    (void)state;
    enum { NS = 12, REP = 4 };
    size_t a[NS * REP], b[NS * REP], c[NS * REP];
    sbio_compare_order(NS, REP, true, 42, a);
    assert_permutation_per_repeat(a, NS, REP);

    /* Same seed, same order. */
    sbio_compare_order(NS, REP, true, 42, b);
    assert_memory_equal(a, b, sizeof(a));

    /* A different seed, a different order (12! orders per repeat: a tie is no chance). */
    sbio_compare_order(NS, REP, true, 43, c);
    assert_permutation_per_repeat(c, NS, REP);
    assert_memory_not_equal(a, c, sizeof(a));

    /* Shuffled: not every repeat in setting order, and not every repeat the same. */
    bool some_shuffled = false, repeats_differ = false;
    for (unsigned r = 0; r < REP; r++) {
        for (size_t i = 0; i < NS; i++)
            some_shuffled |= a[r * NS + i] != i;
        if (r)
            repeats_differ |= memcmp(a + r * NS, a, NS * sizeof(size_t)) != 0;
    }
    assert_true(some_shuffled);
    assert_true(repeats_differ);

    /* Over many seeds every setting comes first sometimes (the shuffle reaches every
     * position), and a 2-setting compare is not always in the same order. */
    size_t firsts[NS] = {0};
    for (uint64_t seed = 1; seed <= 2000; seed++) {
        size_t o[NS];
        sbio_compare_order(NS, 1, true, seed, o);
        firsts[o[0]]++;
    }
    for (size_t i = 0; i < NS; i++)
        if (firsts[i] < 2000 / NS / 3)
            fail_msg("setting %zu came first %zu times in 2000 seeds", i, firsts[i]);
    size_t swapped = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        size_t o[2];
        sbio_compare_order(2, 1, true, seed, o);
        assert_true((o[0] == 0 && o[1] == 1) || (o[0] == 1 && o[1] == 0));
        swapped += o[0] == 1;
    }
    assert_true(swapped > 50 && swapped < 150);

    /* One setting: trivially itself. */
    size_t one[3];
    sbio_compare_order(1, 3, true, 7, one);
    for (int i = 0; i < 3; i++)
        assert_int_equal(one[i], 0);
}

/* ---- the cartesian product ---- */

static void test_unrank_first_axis_slowest(void **state)
{
    (void)state;
    const size_t len[] = {2, 3, 4};
    size_t idx[3];
    static const struct {
        size_t s, i[3];
    } t[] = {
        {0, {0, 0, 0}},  {1, {0, 0, 1}},  {3, {0, 0, 3}},  {4, {0, 1, 0}},
        {11, {0, 2, 3}}, {12, {1, 0, 0}}, {13, {1, 0, 1}}, {23, {1, 2, 3}},
    };
    for (size_t k = 0; k < ARRAY_LEN(t); k++) {
        sbio_compare_unrank(t[k].s, len, 3, idx);
        for (int a = 0; a < 3; a++)
            if (idx[a] != t[k].i[a])
                fail_msg("setting %zu: axis %d index %zu, want %zu", t[k].s, a, idx[a], t[k].i[a]);
    }

    /* One axis: the identity. */
    const size_t one[] = {5};
    for (size_t s = 0; s < 5; s++) {
        sbio_compare_unrank(s, one, 1, idx);
        assert_int_equal(idx[0], s);
    }

    /* Axes of one value contribute index 0 and do not change the others. */
    const size_t with1[] = {1, 3, 1, 2};
    size_t idx4[4];
    sbio_compare_unrank(5, with1, 4, idx4);
    assert_int_equal(idx4[0], 0);
    assert_int_equal(idx4[1], 2);
    assert_int_equal(idx4[2], 0);
    assert_int_equal(idx4[3], 1);
}

static void test_unrank_enumerates_product(void **state)
{
    (void)state;
    /* The 2x2x2 grid of the integration test, experiment 5's 2x2x7 and an uneven one. */
    static const struct {
        size_t n;
        size_t len[4];
    } grids[] = {{3, {2, 2, 2}}, {3, {2, 2, 7}}, {4, {3, 1, 4, 5}}, {1, {4}}};
    for (size_t g = 0; g < ARRAY_LEN(grids); g++) {
        size_t n = grids[g].n, total = 1;
        const size_t *len = grids[g].len;
        for (size_t a = 0; a < n; a++)
            total *= len[a];
        bool *seen = calloc(total, sizeof(bool));
        assert_non_null(seen);
        size_t prev[4] = {0};
        for (size_t s = 0; s < total; s++) {
            size_t idx[4];
            sbio_compare_unrank(s, len, n, idx);
            /* In range, and the combination's own mixed-radix rank (first axis most
             * significant) is s itself: every combination exactly once, in order. */
            size_t rank = 0;
            for (size_t a = 0; a < n; a++) {
                if (idx[a] >= len[a])
                    fail_msg("grid %zu setting %zu: axis %zu index %zu >= %zu", g, s, a, idx[a],
                             len[a]);
                rank = rank * len[a] + idx[a];
            }
            assert_int_equal(rank, s);
            assert_false(seen[rank]);
            seen[rank] = true;
            /* The last axis changes fastest: from one setting to the next, every axis before
             * the last that changed is one whose later axes all wrapped to 0. */
            if (s) {
                size_t first_changed = n;
                for (size_t a = 0; a < n && first_changed == n; a++)
                    if (idx[a] != prev[a])
                        first_changed = a;
                assert_true(first_changed < n);
                assert_int_equal(idx[first_changed], prev[first_changed] + 1);
                for (size_t a = first_changed + 1; a < n; a++)
                    assert_int_equal(idx[a], 0);
            }
            memcpy(prev, idx, sizeof(idx));
        }
        for (size_t s = 0; s < total; s++)
            assert_true(seen[s]);
        free(seen);
    }
}

/* A script as its declarations read: options named threads, scheduler and weight. */
static struct sbio_script opt_script = {
    .path = "/x/groups.lua",
    .nopts = 3,
    .opts = {{.name = "threads", .type = 'n'},
             {.name = "scheduler", .type = 's'},
             {.name = "weight", .type = 'n'}},
};

/* sbio_compare_axis_kind(key, script) with stderr captured into err (MSG_MAX bytes). */
static int axis_kind(const char *key, const struct sbio_script *script,
                     enum sbio_compare_axis *kind, char *err)
{
    struct capture c;
    cap_begin(&c);
    int rc = sbio_compare_axis_kind(key, script, kind);
    cap_end(&c, err, MSG_MAX);
    return rc;
}

static void test_axis_kind(void **state)
{
    (void)state;
    char err[MSG_MAX];
    enum sbio_compare_axis k;
    const struct {
        const char *key;
        const struct sbio_script *script;
        enum sbio_compare_axis want;
    } cases[] = {
        /* The script's options shadow sbio's own of the same name, the scheduler too. */
        {"weight", &opt_script, SBIO_AXIS_SCRIPT},
        {"threads", &opt_script, SBIO_AXIS_SCRIPT},
        {"scheduler", &opt_script, SBIO_AXIS_SCRIPT},
        /* Without the script, or a name it does not declare: sbio's own. */
        {"threads", NULL, SBIO_AXIS_OPTION},
        {"scheduler", NULL, SBIO_AXIS_SCHEDULER},
        {"read_ahead_kb", &opt_script, SBIO_AXIS_QUEUE},
        {"iosched/slice_idle", &opt_script, SBIO_AXIS_QUEUE},
        {"file-block-size", &opt_script, SBIO_AXIS_OPTION},
        {"ioengine", NULL, SBIO_AXIS_OPTION},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        if (axis_kind(cases[i].key, cases[i].script, &k, err))
            fail_msg("--vary %s refused: %s", cases[i].key, err);
        if (k != cases[i].want)
            fail_msg("--vary %s%s: kind %d, want %d", cases[i].key,
                     cases[i].script ? " with a script" : "", (int)k, (int)cases[i].want);
        assert_string_equal(err, "");
    }
    /* Unknown: one line that lists what can be varied, the script's options by name. */
    assert_int_equal(axis_kind("wieght", &opt_script, &k, err), -EINVAL);
    assert_has(err, "--vary wieght: nothing compare can vary has that name; accepted: scheduler, "
                    "a queue knob");
    assert_has(err, "an option of sbio run such as file-block-size");
    assert_has(err, "or an option of groups.lua: threads, scheduler, weight\n");
    assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err));
    assert_int_equal(axis_kind("wieght", NULL, &k, err), -EINVAL);
    assert_has(err, "or, with --script, an option the script declares\n");
    /* What defines the set or the compare cannot vary, unless the script declares it. */
    assert_int_equal(axis_kind("file-num", &opt_script, &k, err), -EINVAL);
    assert_has(err, "--vary file-num: cannot vary between runs of one compare");
    assert_has(err, "groups.lua: threads, scheduler, weight");
    assert_int_equal(axis_kind("repeat", NULL, &k, err), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_interleaved),
        cmocka_unit_test(test_order_random),
        cmocka_unit_test(test_unrank_first_axis_slowest),
        cmocka_unit_test(test_unrank_enumerates_product),
        cmocka_unit_test(test_axis_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
