/* test_sink.c - the sink readers emit into (io/sink.c) and the match stage that
 * pairs what it collected (match/match.c, match/ends.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "io/sink.h"

/* Two nodes: n0 with locations x (id 7) and y (id 9), n1 with z (id 11). */
static struct tsync_trace *define(struct tsync_sink *s, tsync_ctx *ctx)
{
    struct tsync_trace *t = tsync__trace_alloc("run/traces.otf2");
    uint32_t n0, n1;
    assert_non_null(t);
    tsync__sink_init(s, t, ctx);
    tsync__sink_clock(s, 1000, 5, 6, 7);
    assert_int_equal(tsync__sink_node(s, "n0", &n0), 0);
    assert_int_equal(tsync__sink_node(s, "n1", &n1), 0);
    assert_int_equal(tsync__sink_location(s, 7, "x", n0), 0);
    assert_int_equal(tsync__sink_location(s, 9, "y", n0), 0);
    assert_int_equal(tsync__sink_location(s, 11, "z", n1), 0);
    return t;
}

static void test_definitions(void **state)
{
    static const uint32_t members[] = { 2, 0 };
    struct tsync_sink s;
    struct tsync_trace *t = define(&s, NULL);
    (void)state;
    assert_int_equal(t->timer_resolution, 1000);
    assert_int_equal(t->global_offset, 5);
    assert_int_equal(t->n_nodes, 2);
    assert_int_equal(t->n_locations, 3);
    assert_int_equal(t->locations[2].node, 1);
    assert_int_equal(t->locations[1].rank, TSYNC_NONE);
    assert_int_equal(tsync__sink_rank(&s, 2), 0);
    assert_int_equal(tsync__sink_rank(&s, TSYNC_NONE), 0);
    assert_int_equal(t->n_ranks, 2);
    assert_int_equal(t->locations[2].rank, 0);
    assert_int_equal(t->rank_loc[1], TSYNC_NONE);
    assert_int_equal(tsync__sink_comm(&s, 42, "pair", 2, members), 0);
    assert_int_equal(tsync__sink_comm(&s, 43, "self", 1, NULL), 0);
    assert_int_equal(t->n_comms, 2);
    assert_string_equal(t->comms[0].name, "pair");
    assert_int_equal(t->comms[0].world_rank[0], 2);
    assert_null(t->comms[1].world_rank);

    /* By node: one domain per node, named as it. */
    assert_int_equal(tsync__sink_domains(&s, TSYNC_DOMAIN_NODE), 0);
    assert_int_equal(t->n_domains, 2);
    assert_string_equal(t->domains[1].name, "n1");
    assert_int_equal(t->locations[1].domain, 0);
    assert_int_equal(t->locations[2].domain, 1);
    tsync__sink_free(&s);
    tsync_trace_free(t);

    /* By location: "location ID" in a file with ids. */
    t = define(&s, NULL);
    assert_int_equal(tsync__sink_domains(&s, TSYNC_DOMAIN_LOCATION), 0);
    assert_int_equal(t->n_domains, 3);
    assert_string_equal(t->domains[1].name, "location 9");
    assert_int_equal(t->domains[2].node, 1);
    assert_int_equal(t->locations[2].domain, 2);
    tsync__sink_free(&s);
    tsync_trace_free(t);
}

/* Events past the hint grow the arrays; a time going backward names the file,
 * the location and both events. */
static void test_events(void **state)
{
    struct tsync_sink s;
    tsync_ctx *ctx;
    struct tsync_trace *t;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    t = define(&s, ctx);
    assert_int_equal(tsync__sink_begin_location(&s, 0, 2), 0);
    assert_int_equal(tsync__sink_event(&s, -5, TSYNC_EV_SEND), 0);
    assert_int_equal(tsync__sink_event(&s, -5, TSYNC_EV_OTHER), 0);
    assert_int_equal(tsync__sink_event(&s, 10, TSYNC_EV_RECV), 0);
    assert_int_equal(tsync__sink_last(&s), 2);
    assert_int_equal(t->locations[0].n_events, 3);
    assert_int_equal(t->locations[0].time[2], 10);
    assert_int_equal(t->locations[0].kind[2], TSYNC_EV_RECV);
    assert_int_equal(tsync__sink_event(&s, 9, TSYNC_EV_OTHER), TSYNC_EINCONSISTENT);
    assert_string_equal(tsync_ctx_error(ctx), "run/traces.otf2: location 7 (x): event 3 at 9 "
                        "ticks is earlier than event 2 at 10 ticks; a location's timestamps "
                        "must not go backward");
    assert_int_equal(t->locations[0].n_events, 3);
    /* Without a hint. */
    assert_int_equal(tsync__sink_begin_location(&s, 2, 0), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(tsync__sink_event(&s, i, TSYNC_EV_OTHER), 0);
    assert_int_equal(t->locations[2].time[99], 99);
    tsync__sink_free(&s);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
}

static void end_at(struct tsync_sink *s, tsync_time time, uint64_t id, int is_recv)
{
    assert_int_equal(tsync__sink_event(s, time, is_recv ? TSYNC_EV_RECV : TSYNC_EV_SEND), 0);
    assert_int_equal(tsync__sink_end(s, id, is_recv), 0);
}

/* Two parts (threads) joined in location order, whatever order they were read in;
 * the match stage pairs the ends by id, in id order, and counts the lone ends. */
static void test_parts_and_ends(void **state)
{
    struct tsync_sink s, p0, p1;
    struct tsync_match_input in;
    tsync_ctx *ctx;
    struct tsync_trace *t;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    t = define(&s, ctx);
    tsync__sink_part(&p0, &s, ctx);
    tsync__sink_part(&p1, &s, ctx);
    /* Part 1 (location z) first. */
    assert_int_equal(tsync__sink_begin_location(&p1, 2, 4), 0);
    end_at(&p1, 10, 1, 1);      /* message 1 arrives at z */
    end_at(&p1, 20, 0, 1);      /* message 0 arrives at z */
    end_at(&p1, 30, 5, 0);      /* message 5: never received */
    assert_int_equal(tsync__sink_offset(&p1, 2, 30, -4, 0.5), 0);
    tsync__sink_unmatched(&p1, 1);
    assert_int_equal(tsync__sink_begin_location(&p0, 0, 0), 0);
    end_at(&p0, 1, 0, 0);       /* message 0 leaves x */
    end_at(&p0, 2, 1, 0);       /* message 1 leaves x */
    assert_int_equal(tsync__sink_offset(&p0, 0, 1, 3, 0.25), 0);
    assert_int_equal(tsync__sink_join(&s, &p0), 0);
    assert_int_equal(tsync__sink_join(&s, &p1), 0);
    assert_int_equal(p1.rec.n_ends, 0);
    assert_int_equal(s.rec.n_ends, 5);
    assert_int_equal(s.rec.ends[0].loc, 0);
    assert_int_equal(s.rec.ends[2].loc, 2);
    tsync__sink_finish(&s, &in);
    assert_int_equal(t->n_offsets, 2);
    assert_int_equal(t->offsets[0].loc, 0);
    assert_int_equal(t->offsets[1].offset, -4);
    assert_int_equal(t->unmatched_sends, 1);

    assert_int_equal(tsync__trace_match(t, &in, ctx), 0);
    assert_null(in.ends);
    assert_int_equal(t->n_messages, 2);
    assert_int_equal(t->messages[0].send_loc, 0);
    assert_int_equal(t->messages[0].send_idx, 0);
    assert_int_equal(t->messages[0].recv_loc, 2);
    assert_int_equal(t->messages[0].recv_idx, 1);
    assert_int_equal(t->messages[1].send_idx, 1);
    assert_int_equal(t->messages[1].recv_idx, 0);
    assert_int_equal(t->unmatched_sends, 2);
    assert_int_equal(t->unmatched_recvs, 0);
    tsync__sink_free(&p0);
    tsync__sink_free(&p1);
    tsync__sink_free(&s);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definitions),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_parts_and_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
