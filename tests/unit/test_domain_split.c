/* test_domain_split.c - clock domains split where their own messages contradict one
 * clock (src/trace/domain_split.c): EZTrace-like ranks of one node with their own
 * clock origins, groups that the messages support, one-way messages that support
 * nothing, the constraint that keeps contradicting locations apart, and domains the
 * messages agree with, left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "est_fixture.h"
#include "util/ctx.h"

#define LIMIT 10000     /* ticks (ns): 10 minimum latencies of 1 us */

/* n ping-pongs between a and b at true times start + k * 1 ms, 2 us each way; off[]
 * is each location's clock minus the true time. */
static void pingpong(struct fx *f, tsync_loc a, tsync_loc b, const int64_t *off, int n,
                     tsync_time start)
{
    for (int k = 0; k < n; k++) {
        tsync_time t = start + k * 1000000;
        fx_msg(f, a, t + off[a], b, t + 2000 + off[b]);
        fx_msg(f, b, t + 2500 + off[b], a, t + 4500 + off[a]);
    }
}

static struct fx_warnings split(tsync_trace *t)
{
    struct fx_warnings w = { 0, "" };
    tsync_ctx *ctx;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync_ctx_set_log(ctx, fx_collect, &w);
    assert_int_equal(tsync__split_domains(t, LIMIT, NULL, ctx), 0);
    tsync_ctx_free(ctx);
    return w;
}

static const char *domain_of(const tsync_trace *t, tsync_loc l)
{
    return tsync_trace_domain_name(t, tsync_trace_location_domain(t, l));
}

/* Node n0 holds locations 0-3; 0 and 1 share a clock, 2 and 3 (EZTrace: their own
 * origins, milliseconds apart) do not. Node n1 (locations 4, 5) is consistent. */
static void test_split_origins(void **state)
{
    static const uint32_t nodes[] = { 0, 0, 0, 0, 1, 1 };
    static const int64_t off[] = { 0, 0, 25000000, -32000000, 7000, 7000 };
    struct fx *f = fx_new(6, nodes, 0);
    const tsync_domain_split *sp;
    struct fx_warnings w;
    tsync_trace *t;
    (void)state;
    for (tsync_loc a = 0; a < 4; a++)
        for (tsync_loc b = a + 1; b < 4; b++)
            pingpong(f, a, b, off, 5, 1000000 + 100000 * (a * 4 + b));
    pingpong(f, 0, 4, off, 5, 9000000);
    pingpong(f, 4, 5, off, 5, 9500000);
    t = fx_done(f);
    w = split(t);
    assert_int_equal(tsync_trace_split_count(t), 1);
    assert_string_equal(tsync_trace_domain_rule(t), "node");
    sp = tsync_trace_get_split(t, 0);
    assert_string_equal(sp->name, "n0");
    assert_int_equal(sp->n_parts, 3);
    assert_int_equal(sp->messages, 60);
    /* Half the messages of every pair with 2 or 3 run backward. */
    assert_int_equal(sp->contradicting, 25);
    assert_true(fabs(sp->max_reversal_s - 0.056998) < 1e-9);
    assert_true(fabs(sp->limit_s - 1e-5) < 1e-12);
    assert_int_equal(tsync_trace_domain_count(t), 4);
    assert_string_equal(domain_of(t, 0), "n0.1");
    assert_string_equal(domain_of(t, 1), "n0.1");
    assert_string_equal(domain_of(t, 2), "location 2");
    assert_string_equal(domain_of(t, 3), "location 3");
    assert_string_equal(domain_of(t, 4), "n1");
    assert_string_equal(domain_of(t, 5), "n1");
    assert_string_equal(tsync_trace_domain_name(t, sp->parts[0]), "n0.1");
    /* Nodes keep their places in the order; the parts come where the node was. */
    assert_string_equal(tsync_trace_domain_name(t, 3), "n1");
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.all, "\"n0\" split into 3"));
    assert_non_null(strstr(w.all, "do not share one clock"));
    tsync_trace_free(t);
}

/* Messages one way only say nothing for a shared clock: location 1, 30 ms ahead,
 * looks consistent to 0 -> 1 messages. With 2 contradicting 0, the node is split and
 * 1, supported by nothing, gets a clock of its own. */
static void test_one_way_supports_nothing(void **state)
{
    static const uint32_t nodes[] = { 0, 0, 0 };
    static const int64_t off[] = { 0, 30000000, -5000000 };
    struct fx *f = fx_new(3, nodes, 0);
    tsync_trace *t;
    (void)state;
    for (int k = 0; k < 5; k++)
        fx_msg(f, 0, 1000000 + k * 1000000, 1, 1002000 + k * 1000000 + off[1]);
    pingpong(f, 0, 2, off, 5, 1500000);
    t = fx_done(f);
    split(t);
    assert_int_equal(tsync_trace_split_count(t), 1);
    assert_int_equal(tsync_trace_domain_count(t), 3);
    assert_string_equal(domain_of(t, 0), "location 0");
    assert_string_equal(domain_of(t, 1), "location 1");
    assert_string_equal(domain_of(t, 2), "location 2");
    tsync_trace_free(t);
}

/* 0 - 1 and 1 - 2 are each consistent with one clock (8 us apart), 0 - 2 is not (16
 * us): the pair with the most messages joins first, and 2 stays out. */
static void test_contradicting_kept_apart(void **state)
{
    static const uint32_t nodes[] = { 0, 0, 0 };
    static const int64_t off[] = { 0, 8000, 16000 };
    struct fx *f = fx_new(3, nodes, 0);
    tsync_trace *t;
    (void)state;
    pingpong(f, 0, 1, off, 8, 1000000);
    pingpong(f, 1, 2, off, 5, 1300000);
    pingpong(f, 0, 2, off, 5, 1600000);
    t = fx_done(f);
    split(t);
    assert_int_equal(tsync_trace_split_count(t), 1);
    assert_int_equal(tsync_trace_get_split(t, 0)->n_parts, 2);
    assert_string_equal(domain_of(t, 0), "n0.1");
    assert_string_equal(domain_of(t, 1), "n0.1");
    assert_string_equal(domain_of(t, 2), "location 2");
    tsync_trace_free(t);
}

/* A node whose messages agree with one clock, and reversals within the limit (two
 * cores whose clocks differ by a few microseconds): nothing is split. */
static void test_consistent_kept(void **state)
{
    static const uint32_t nodes[] = { 0, 0, 1, 1 };
    static const int64_t off[] = { 0, 0, 5000, 11000 };
    struct fx *f = fx_new(4, nodes, 0);
    struct fx_warnings w;
    tsync_trace *t;
    (void)state;
    pingpong(f, 0, 1, off, 5, 1000000);
    pingpong(f, 2, 3, off, 5, 1000000);    /* reversed by up to 4 us < 10 us */
    pingpong(f, 1, 2, off, 5, 2000000);
    t = fx_done(f);
    w = split(t);
    assert_int_equal(tsync_trace_split_count(t), 0);
    assert_null(tsync_trace_get_split(t, 0));
    assert_int_equal(tsync_trace_domain_count(t), 2);
    assert_string_equal(domain_of(t, 3), "n1");
    assert_int_equal(w.n, 0);
    tsync_trace_free(t);
}

/* After the split the estimate relates the parts: the offsets of 2 and 3 are found. */
static void test_estimate_after_split(void **state)
{
    static const uint32_t nodes[] = { 0, 0, 0, 0 };
    static const int64_t off[] = { 0, 0, 25000000, -32000000 };
    struct fx *f = fx_new(4, nodes, 0);
    tsync_estimate *e;
    tsync_trace *t;
    (void)state;
    for (tsync_loc a = 0; a < 4; a++)
        for (tsync_loc b = a + 1; b < 4; b++)
            pingpong(f, a, b, off, 5, 1000000 + 100000 * (a * 4 + b));
    t = fx_done(f);
    split(t);
    e = fx_estimate(t, NULL, NULL);
    assert_int_equal(tsync_estimate_component_count(e), 1);
    assert_string_equal(tsync_estimate_get_domain(e, tsync_estimate_component_reference(e, 0))
                            ->name, "n0.1");          /* MPI rank 0's */
    for (tsync_loc l = 2; l < 4; l++) {
        const tsync_estimate_domain *d = tsync_estimate_get_domain(e, t->locations[l].domain);
        assert_int_equal(d->kind, TSYNC_BOUND_BOUNDED);
        assert_true(fabs(d->offset_s + (double)off[l] * 1e-9) < 1e-6);
    }
    assert_int_equal(tsync_estimate_get_grouping(e)->contradicting, 0);
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_origins),
        cmocka_unit_test(test_one_way_supports_nothing),
        cmocka_unit_test(test_contradicting_kept_apart),
        cmocka_unit_test(test_consistent_kept),
        cmocka_unit_test(test_estimate_after_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
