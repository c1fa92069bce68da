/* test_epochs.c - busy intervals and periods (graph/epochs.c): the intervals made
 * from a trace's message lists (buckets max_gap wide, no event kept) are those made
 * from its events, for dense and sparse locations and gaps on a bucket's edge; the
 * periods join the locations' intervals on the reference axis. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tmpfile.h"
#include "graph/graph.h"
#include "io/formats.h"
#include "trace/trace.h"

#define GAP 20000

static uint64_t rng = 12345;

static uint64_t next(void)      /* xorshift64 */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A CSV of three locations: a and b busy in bursts (times in steps below and
 * above GAP, some exactly GAP or GAP + 1 apart; more than 8 events a bucket), c
 * with a message every 10 GAP (sparse: fewer events than buckets). */
static char *make_csv(void)
{
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap), *path;
    long long ta = 0, tc = 0;
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "send_location,send_time_ns,recv_location,recv_time_ns\n");
    for (int i = 0; i < 4000; i++) {
        uint64_t r = next();
        int step = r % 64 == 0 ? (int)(3 * GAP + r % 5000) : r % 64 == 1 ? GAP : r % 64 == 2 ? GAP + 1
                                                                                       : (int)(r % 300);
        ta += step;
        if (r % 3 == 0)
            len += (size_t)snprintf(text + len, cap - len, "a,%lld,b,%lld\n", ta, ta + 50);
        else
            len += (size_t)snprintf(text + len, cap - len, "b,%lld,a,%lld\n", ta - 7, ta);
        if (i % 40 == 0) {
            tc += 10 * GAP + (long long)(r % 7);
            len += (size_t)snprintf(text + len, cap - len, "c,%lld,a,%lld\n", tc, ta + 3);
        }
    }
    path = tmp_write("epochs", "bursts.csv", text);
    free(text);
    return path;
}

static void test_spans_of_lists(void **state)
{
    char *path = make_csv();
    tsync_trace *te, *tl;
    struct tsync__spans se, sl;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&te, path, NULL, ctx), 0);
    assert_int_equal(tsync__trace_open_lists(&tl, path, NULL, ctx), 0);
    assert_int_equal(tsync__spans_of_events(&se, te, GAP), 0);
    assert_int_equal(tsync__spans_of_lists(&sl, tl, tl->lists, tl->n_lists, GAP), 0);
    assert_true(se.n > 20);
    assert_int_equal(sl.n, se.n);
    for (size_t i = 0; i < se.n; i++) {
        assert_int_equal(sl.v[i].loc, se.v[i].loc);
        assert_int_equal(sl.v[i].from, se.v[i].from);
        assert_int_equal(sl.v[i].to, se.v[i].to);
        assert_int_equal(sl.v[i].events, se.v[i].events);
    }
    tsync__spans_free(&se);
    tsync__spans_free(&sl);
    tsync_trace_free(te);
    tsync_trace_free(tl);
    tsync_ctx_free(ctx);
    free(path);
}

/* Intervals of two locations on identity maps: those within 1000 of each other
 * make one period, with their events added up. */
static void test_find_epochs(void **state)
{
    struct tsync__span v[] = { { 0, 0, 100, 5 }, { 0, 5000, 6000, 7 }, { 1, 1050, 2000, 3 },
                               { 1, 9000, 9000, 1 } };
    struct tsync__spans sp = { 4, 4, v };
    struct tsync_location loc[2] = { { .domain = 0 }, { .domain = 0 } };
    struct tsync_trace t = { .n_locations = 2, .locations = loc, .n_domains = 1 };
    struct tsync__pwl maps[1] = { { 0 } };
    struct tsync__epochs ep;
    (void)state;
    assert_int_equal(tsync__find_epochs(&ep, &sp, &t, maps, 1000), 0);
    assert_int_equal(ep.n, 3);
    assert_int_equal(ep.v[0].from, 0);
    assert_int_equal(ep.v[0].to, 2000);
    assert_int_equal(ep.v[0].events, 8);
    assert_int_equal(ep.v[1].from, 5000);
    assert_int_equal(ep.v[1].events, 7);
    assert_int_equal(ep.v[2].to, 9000);
    tsync__epochs_free(&ep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spans_of_lists),
        cmocka_unit_test(test_find_epochs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
