/* test_estimate_api.c - the estimate on a trace read as message lists
 * (estimate/estimate_api.h): the same result as on the trace read as events and
 * messages, byte for byte in the maps file, for a CSV of three hosts with a sleep
 * between two busy phases (two busy periods), a pair of locations as one domain
 * (a domain file) and pairs of more than 4096 samples; the lists are taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tmpfile.h"
#include "estimate/estimate_api.h"
#include "io/formats.h"
#include "trace/trace.h"
#include "tracesync/estimate.h"

static uint64_t rng = 99;

static uint64_t next(void)      /* xorshift64 */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Host h's clock at true time t (ns): offset and drift of its own. */
static long long local(int h, double t)
{
    static const double off[] = { 0, 3.2e6, -1.7e6, 5e5 }, drift[] = { 0, 4e-6, -9e-6, 2e-6 };
    return (long long)(off[h] + (1 + drift[h]) * t);
}

/* 24000 messages among host0..host3 in two phases of 40 s, 100 s apart. */
static char *make_csv(void)
{
    size_t cap = 2 << 20, len = 0;
    char *text = malloc(cap), *path;
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "send_location,send_time_ns,recv_location,recv_time_ns\n");
    for (int i = 0; i < 24000; i++) {
        double t = 1e9 + (i < 12000 ? i : i + 30000) * 3.3e6 / 1.0;
        int s = (int)(next() % 4), r = (s + 1 + (int)(next() % 3)) % 4;
        double d = 20000 + (double)(next() % 30000);
        len += (size_t)snprintf(text + len, cap - len, "host%d,%lld,host%d,%lld\n", s, local(s, t), r,
                                local(r, t + d));
    }
    assert_true(len < cap);
    path = tmp_write("estimate-api", "hosts.csv", text);
    free(text);
    return path;
}

/* The maps file of the estimate on the trace at path, read as events (lists 0)
 * or as message lists; its busy periods into *periods. */
static char *estimate_text(const char *path, const tsync_open_opts *oo, int lists,
                           size_t *periods)
{
    tsync_estimate_opts eo = TSYNC_ESTIMATE_OPTS_INIT;
    tsync_estimate *e;
    tsync_trace *t;
    tsync_ctx *ctx;
    char *text;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    if (lists) {
        assert_int_equal(tsync__trace_open_lists(&t, path, oo, ctx), 0);
        assert_true(t->n_lists > 0);
        assert_int_equal(t->n_messages, 0);
        assert_int_equal(tsync__estimate_run_lists(&e, t, &eo, ctx), 0);
        assert_int_equal(t->n_lists, 0);           /* taken */
        assert_null(t->lists);
    } else {
        assert_int_equal(tsync_trace_open(&t, path, oo, ctx), 0);
        assert_int_equal(t->n_messages, 24000);
        assert_int_equal(tsync_estimate_run(&e, t, &eo, ctx), 0);
    }
    assert_non_null(text = tsync_estimate_json(e, t, ctx));
    *periods = tsync_estimate_period_count(e);
    tsync_estimate_free(e);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
    return text;
}

static void same_both_ways(const char *path, const tsync_open_opts *oo)
{
    size_t pe, pl;
    char *events = estimate_text(path, oo, 0, &pe), *lists = estimate_text(path, oo, 1, &pl);
    assert_string_equal(lists, events);
    assert_int_equal(pe, 2);
    assert_int_equal(pl, 2);
    free(events);
    free(lists);
}

static void test_same_as_events(void **state)
{
    char *path = make_csv();
    (void)state;
    same_both_ways(path, NULL);
    free(path);
}

static void test_same_with_domain_file(void **state)
{
    char *path = make_csv(), *file = tmp_write("estimate-api", "domains.txt", "pair host1 host3\n");
    tsync_open_opts oo = TSYNC_OPEN_OPTS_INIT;
    (void)state;
    oo.domains = TSYNC_DOMAIN_FILE;
    oo.domain_file = file;
    same_both_ways(path, &oo);
    free(path);
    free(file);
}

/* The hull takes lists; the regression pairs exchanges among events. */
static void test_takes_lists(void **state)
{
    tsync_estimate_opts eo = TSYNC_ESTIMATE_OPTS_INIT;
    (void)state;
    assert_true(tsync__estimate_takes_lists(&eo));
    eo.estimator = TSYNC_ESTIMATOR_REGRESSION;
    assert_false(tsync__estimate_takes_lists(&eo));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_events),
        cmocka_unit_test(test_same_with_domain_file),
        cmocka_unit_test(test_takes_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
