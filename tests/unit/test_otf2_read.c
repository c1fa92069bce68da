/* test_otf2_read.c - the OTF2 reader: the same trace, the same warnings and the
 * same first error whatever the number of threads that read it, and the same
 * trace when read in two halves (events, then matching). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "io/formats.h"
#include "io/otf2_build.h"
#include "trace/trace.h"
#include "util/ctx.h"
#include "util/fs.h"
#include "tmpfile.h"

#define RANKS 6

/* A fresh directory $TSYNC_TEST_TMP/otf2_read/<name>; *anchor is its traces.otf2. */
static void scratch(const char *name, char *dir, size_t n, char *anchor, size_t m)
{
    tmp_fresh_dir("otf2_read", name, dir, n);
    snprintf(anchor, m, "%s/traces.otf2", dir);
}

/* Six ranks on three nodes, each with a number of events of its own: rings of
 * blocking and non-blocking messages (receives posted before they complete, and
 * completed out of posting order), collectives on the world and on a
 * sub-communicator, ClockOffset records, and on ranks 2 and 4 messages to a rank
 * that does not exist and a collective on a communicator that does not (reading
 * warns about each). `bad` ranks get a timestamp beyond what a tsync_time holds. */
static void build(const char *anchor, const int *bad, size_t n_bad)
{
    static const char *const nodes[] = { "n0", "n1", "n2" };
    static const uint32_t rank_node[RANKS] = { 0, 0, 1, 1, 2, 2 };
    static const uint32_t members[] = { 1, 3, 5 };
    const struct tsync_otf2_build_comm odd = { 1, 3, members };
    struct tsync_otf2_build_layout l = {
        .anchor = anchor, .timer_resolution = 1000000000, .n_nodes = 3, .nodes = nodes,
        .n_ranks = RANKS, .rank_node = rank_node, .n_comms = 1, .comms = &odd,
    };
    struct tsync_otf2_builder *b;
    assert_int_equal(tsync__otf2_build_open(&b, &l, NULL), 0);
    for (uint32_t r = 0; r < RANKS; r++) {
        uint64_t t = 1000 + 10 * r, req = 1;
        uint32_t next = (r + 1) % RANKS, prev = (r + RANKS - 1) % RANKS;
        assert_int_equal(tsync__otf2_build_clock_offset(b, r, 500, 100 * (int64_t)r, 3.0), 0);
        for (uint32_t i = 0; i < 40 + 7 * r; i++, t += 1000) {
            if (i >= 40) { /* more events on later ranks, none of them messages */
                assert_int_equal(tsync__otf2_build_enter(b, r, t, "compute"), 0);
                assert_int_equal(tsync__otf2_build_leave(b, r, t + 1, "compute"), 0);
                continue;
            }
            assert_int_equal(tsync__otf2_build_enter(b, r, t, "MPI_Send"), 0);
            assert_int_equal(tsync__otf2_build_send(b, r, t + 1, 0, next, i % 3, 8), 0);
            assert_int_equal(tsync__otf2_build_send(b, r, t + 1, 0, next, i % 3, 16), 0);
            assert_int_equal(tsync__otf2_build_leave(b, r, t + 2, "MPI_Send"), 0);
            assert_int_equal(tsync__otf2_build_irecv_request(b, r, t + 3, req), 0);
            assert_int_equal(tsync__otf2_build_irecv_request(b, r, t + 4, req + 1), 0);
            /* the second posted completes first */
            assert_int_equal(tsync__otf2_build_irecv(b, r, t + 5, 0, prev, i % 3, 16, req + 1), 0);
            assert_int_equal(tsync__otf2_build_irecv(b, r, t + 6, 0, prev, i % 3, 8, req), 0);
            req += 2;
            if (i % 5 == 0) {
                assert_int_equal(tsync__otf2_build_coll_begin(b, r, t + 7), 0);
                assert_int_equal(tsync__otf2_build_coll_end(b, r, t + 8, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                            0, OTF2_UNDEFINED_UINT32, 8, 8), 0);
            }
            if (r % 2 && i % 7 == 0) {
                assert_int_equal(tsync__otf2_build_coll_begin(b, r, t + 9), 0);
                assert_int_equal(tsync__otf2_build_coll_end(b, r, t + 10, OTF2_COLLECTIVE_OP_BCAST,
                                                            1, 0, 8, 8), 0);
            }
            if ((r == 2 || r == 4) && i % 9 == 0) {
                assert_int_equal(tsync__otf2_build_send(b, r, t + 11, 0, 40 + r, 1, 8), 0);
                assert_int_equal(tsync__otf2_build_coll_begin(b, r, t + 12), 0);
                assert_int_equal(tsync__otf2_build_coll_end(b, r, t + 13, OTF2_COLLECTIVE_OP_BARRIER,
                                                            9, OTF2_UNDEFINED_UINT32, 0, 0), 0);
            }
        }
        /* Two sends that nobody receives, one completed. */
        assert_int_equal(tsync__otf2_build_isend(b, r, t, 0, next, 5, 8, 99), 0);
        assert_int_equal(tsync__otf2_build_isend(b, r, t + 1, 0, next, 5, 8, 100), 0);
        assert_int_equal(tsync__otf2_build_isend_complete(b, r, t + 2, 100), 0);
        for (size_t k = 0; k < n_bad; k++)
            if (bad[k] == (int)r)
                assert_int_equal(tsync__otf2_build_enter(b, r, (uint64_t)INT64_MAX + 5, "late"), 0);
    }
    assert_int_equal(tsync__otf2_build_close(b), 0);
}

/* Warnings as one text, in the order they came. */
struct log { char text[1 << 16]; size_t n; };

static void keep(enum tsync_log_level level, const char *message, void *payload)
{
    struct log *g = payload;
    (void)level;
    g->n += (size_t)snprintf(g->text + g->n, sizeof(g->text) - g->n, "%s\n", message);
    assert_true(g->n < sizeof(g->text));
}

/* Opens the trace with `threads` threads; returns the error code, the trace in
 * *out (success) or the message in err (failure), the warnings in g. */
static int open_with(const char *anchor, unsigned threads, tsync_trace **out, struct log *g,
                     char *err, size_t n)
{
    tsync_ctx *ctx;
    int rc;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync_ctx_set_threads(ctx, threads);
    memset(g, 0, sizeof(*g));
    tsync_ctx_set_log(ctx, keep, g);
    rc = tsync_trace_open(out, anchor, NULL, ctx);
    snprintf(err, n, "%s", rc ? tsync_ctx_error(ctx) : "");
    tsync_ctx_free(ctx);
    return rc;
}

#define SAME_ARRAY(a, b, n) assert_memory_equal((a), (b), (n) * sizeof(*(a)))
#define SAME(field) assert_int_equal(x->field, y->field)

static void assert_same_trace(const struct tsync_trace *a, const struct tsync_trace *b)
{
    assert_int_equal(a->n_locations, b->n_locations);
    for (uint32_t i = 0; i < a->n_locations; i++) {
        const struct tsync_location *x = &a->locations[i], *y = &b->locations[i];
        assert_int_equal(x->ref, y->ref);
        assert_int_equal(x->n_events, y->n_events);
        SAME_ARRAY(x->time, y->time, x->n_events);
        SAME_ARRAY(x->kind, y->kind, x->n_events);
    }
    assert_int_equal(a->n_messages, b->n_messages);
    SAME_ARRAY(a->messages, b->messages, a->n_messages);
    assert_int_equal(a->n_collectives, b->n_collectives);
    /* Field by field: padding inside these structs is not written. */
    for (size_t q = 0; q < a->n_collectives; q++) {
        const struct tsync_collective *x = &a->collectives[q], *y = &b->collectives[q];
        SAME(comm), SAME(op), SAME(root), SAME(cls), SAME(n_members), SAME(first_member);
    }
    assert_int_equal(a->n_members, b->n_members);
    for (size_t k = 0; k < a->n_members; k++) {
        const struct tsync_coll_member *x = &a->members[k], *y = &b->members[k];
        SAME(loc), SAME(comm_rank), SAME(begin_idx), SAME(end_idx), SAME(sends), SAME(recvs);
    }
    assert_int_equal(a->n_offsets, b->n_offsets);
    for (size_t k = 0; k < a->n_offsets; k++) {
        const struct tsync_clock_offset *x = &a->offsets[k], *y = &b->offsets[k];
        SAME(loc), SAME(time), SAME(offset);
    }
    assert_int_equal(a->unmatched_sends, b->unmatched_sends);
    assert_int_equal(a->unmatched_recvs, b->unmatched_recvs);
}

/* 1 thread is the reference; 2, 3, 4, 8 (more than locations) and 0 (one per
 * processor) give the same trace and the same warnings in the same order. */
static void test_threads_same_trace(void **state)
{
    static const unsigned threads[] = { 2, 3, 4, 8, 0 };
    char dir[4096], anchor[4200], err[1024];
    static struct log g1, g;
    tsync_trace *ref, *t;
    (void)state;

    scratch("same", dir, sizeof(dir), anchor, sizeof(anchor));
    build(anchor, NULL, 0);
    assert_int_equal(open_with(anchor, 1, &ref, &g1, err, sizeof(err)), 0);
    assert_int_equal(ref->n_locations, RANKS);
    assert_true(ref->n_messages > 200);
    assert_true(ref->n_collectives > 10);
    assert_int_equal(ref->n_offsets, RANKS);
    /* Unknown peers (5 on ranks 2 and 4), found reading; lone isends, matching. */
    assert_int_equal(ref->unmatched_sends, 2 * 5 + 2 * RANKS);
    assert_non_null(strstr(g1.text, "rank 42 of communicator 0 is not a known location"));
    assert_non_null(strstr(g1.text, "rank 44 of communicator 0 is not a known location"));
    assert_non_null(strstr(g1.text, "collective on undefined communicator 9"));
    /* Location 2's warnings come before location 4's. */
    assert_true(strstr(g1.text, "rank 42") < strstr(g1.text, "rank 44"));
    for (size_t k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
        for (int again = 0; again < 3; again++) { /* other schedules, same result */
            assert_int_equal(open_with(anchor, threads[k], &t, &g, err, sizeof(err)), 0);
            assert_same_trace(ref, t);
            assert_string_equal(g1.text, g.text);
            tsync_trace_free(t);
        }
    }
    tsync_trace_free(ref);
    tsync__remove_tree(dir);
}

/* Two locations fail (1 and 3): every number of threads reports location 1's
 * error, the one a reader in order meets first, with the warnings before it. */
static void test_threads_first_error(void **state)
{
    static const int bad[] = { 3, 1 };
    char dir[4096], anchor[4200], err1[1024], err[1024];
    static struct log g1, g;
    tsync_trace *t = NULL;
    (void)state;

    scratch("error", dir, sizeof(dir), anchor, sizeof(anchor));
    build(anchor, bad, 2);
    assert_int_equal(open_with(anchor, 1, &t, &g1, err1, sizeof(err1)), TSYNC_EFORMAT);
    assert_non_null(strstr(err1, "location 1 "));
    assert_non_null(strstr(err1, "is out of range"));
    assert_non_null(strstr(err1, anchor));
    for (unsigned threads = 2; threads <= RANKS; threads++) {
        for (int again = 0; again < 3; again++) {
            assert_int_equal(open_with(anchor, threads, &t, &g, err, sizeof(err)), TSYNC_EFORMAT);
            assert_string_equal(err1, err);
            assert_string_equal(g1.text, g.text);
        }
    }
    tsync__remove_tree(dir);
}

/* Reading in two halves gives what tsync_trace_open gives. */
static void test_open_then_match(void **state)
{
    char dir[4096], anchor[4200], err[1024];
    static struct log g;
    struct tsync_match_input match;
    tsync_trace *ref, *t;
    tsync_ctx *ctx;
    (void)state;

    scratch("halves", dir, sizeof(dir), anchor, sizeof(anchor));
    build(anchor, NULL, 0);
    assert_int_equal(open_with(anchor, 1, &ref, &g, err, sizeof(err)), 0);
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync_ctx_set_threads(ctx, 2);
    assert_int_equal(tsync__trace_open_unmatched(&t, &match, anchor, NULL, ctx), 0);
    assert_int_equal(t->n_messages, 0);
    assert_int_equal(t->n_collectives, 0);
    assert_int_equal(match.n_sends, ref->n_messages + 2 * RANKS);
    assert_int_equal(tsync__trace_match(t, &match, ctx), 0);
    assert_null(match.sends);
    assert_same_trace(ref, t);
    tsync_trace_free(t);
    /* A failed first half leaves nothing to free. */
    assert_int_equal(tsync__trace_open_unmatched(&t, &match, "missing/traces.otf2", NULL, ctx),
                     TSYNC_EIO);
    assert_null(match.sends);
    assert_null(match.colls);
    tsync_ctx_free(ctx);
    tsync_trace_free(ref);
    tsync__remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_same_trace),
        cmocka_unit_test(test_threads_first_error),
        cmocka_unit_test(test_open_then_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
