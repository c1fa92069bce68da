/* test_match.c - point-to-point matching and collective grouping (match/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <otf2/otf2.h>

#include "match/match.h"
#include "util/ctx.h"
#include "util/vec.h"

/* A trace of n locations, rank i = location i, all on one node, one world comm. */
static struct tsync_trace *make_trace(uint32_t n)
{
    struct tsync_trace *t = tsync__trace_alloc("test.otf2");
    assert_non_null(t);
    t->n_locations = n;
    t->locations = calloc(n, sizeof(*t->locations));
    t->rank_loc = calloc(n, sizeof(*t->rank_loc));
    t->n_ranks = n;
    for (uint32_t i = 0; i < n; i++) {
        t->locations[i].ref = 100 + i;
        t->locations[i].name = strdup("rank");
        t->locations[i].rank = i;
        t->rank_loc[i] = i;
    }
    t->n_comms = 1;
    t->comms = calloc(1, sizeof(*t->comms));
    t->comms[0].name = strdup("MPI_COMM_WORLD");
    t->comms[0].size = n;
    t->comms[0].world_rank = malloc(n * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++)
        t->comms[0].world_rank[i] = i;
    return t;
}

static void add_p2p(struct tsync_match_input *in, int send, tsync_loc s, tsync_loc r, uint32_t tag,
                    uint64_t idx, uint64_t order)
{
    struct tsync_p2p_rec rec = { 0, s, r, tag, idx, order };
    if (send)
        assert_int_equal(TSYNC_PUSH(in->sends, in->n_sends, in->cap_sends, rec), 0);
    else
        assert_int_equal(TSYNC_PUSH(in->recvs, in->n_recvs, in->cap_recvs, rec), 0);
}

/* Returns the receive index matched to the send (sender, idx), or UINT64_MAX. */
static uint64_t recv_of(const struct tsync_trace *t, tsync_loc sender, uint64_t send_idx)
{
    for (size_t i = 0; i < t->n_messages; i++)
        if (t->messages[i].send_loc == sender && t->messages[i].send_idx == send_idx)
            return t->messages[i].recv_idx;
    return UINT64_MAX;
}

/* First send to first receive per (comm, sender, receiver, tag); tags separate. */
static void test_non_overtaking(void **state)
{
    struct tsync_trace *t = make_trace(2);
    struct tsync_match_input in = { 0 };
    (void)state;
    add_p2p(&in, 1, 0, 1, 7, 10, 10);
    add_p2p(&in, 1, 0, 1, 9, 11, 11);  /* other tag, received first */
    add_p2p(&in, 1, 0, 1, 7, 12, 12);
    add_p2p(&in, 0, 0, 1, 9, 3, 3);
    add_p2p(&in, 0, 0, 1, 7, 5, 5);
    add_p2p(&in, 0, 0, 1, 7, 8, 8);
    assert_int_equal(tsync__match_p2p(t, &in, NULL), 0);
    assert_int_equal(t->n_messages, 3);
    assert_int_equal(recv_of(t, 0, 10), 5);
    assert_int_equal(recv_of(t, 0, 12), 8);
    assert_int_equal(recv_of(t, 0, 11), 3);
    assert_int_equal(t->unmatched_sends, 0);
    assert_int_equal(t->unmatched_recvs, 0);
    tsync__match_input_free(&in);
    tsync_trace_free(t);
}

/* A non-blocking receive matches in posting order, not completion order. */
static void test_irecv_posting_order(void **state)
{
    struct tsync_trace *t = make_trace(2);
    struct tsync_match_input in = { 0 };
    (void)state;
    add_p2p(&in, 1, 0, 1, 1, 20, 20);
    add_p2p(&in, 1, 0, 1, 1, 21, 21);
    /* Posted as events 2 and 3 (MpiIrecvRequest), completed as 9 then 6. */
    add_p2p(&in, 0, 0, 1, 1, 9, 2);
    add_p2p(&in, 0, 0, 1, 1, 6, 3);
    assert_int_equal(tsync__match_p2p(t, &in, NULL), 0);
    assert_int_equal(recv_of(t, 0, 20), 9);
    assert_int_equal(recv_of(t, 0, 21), 6);
    tsync__match_input_free(&in);
    tsync_trace_free(t);
}

/* Any-source receives carry the real sender: two senders to one receiver. */
static void test_any_source(void **state)
{
    struct tsync_trace *t = make_trace(3);
    struct tsync_match_input in = { 0 };
    (void)state;
    add_p2p(&in, 1, 2, 0, 5, 4, 4);
    add_p2p(&in, 1, 1, 0, 5, 4, 4);
    add_p2p(&in, 0, 2, 0, 5, 10, 10); /* MPI_ANY_SOURCE matched rank 2 first */
    add_p2p(&in, 0, 1, 0, 5, 11, 11);
    assert_int_equal(tsync__match_p2p(t, &in, NULL), 0);
    assert_int_equal(t->n_messages, 2);
    assert_int_equal(recv_of(t, 2, 4), 10);
    assert_int_equal(recv_of(t, 1, 4), 11);
    tsync__match_input_free(&in);
    tsync_trace_free(t);
}

/* Messages on a tracer's session communicator (TSYNC_SESSION_COMM) are listed, in
 * order of message index, whether the channels come in posting order or not. */
static void test_session_messages(void **state)
{
    (void)state;
    for (int late = 0; late < 2; late++) {
        struct tsync_trace *t = make_trace(2);
        struct tsync_match_input in = { 0 };
        t->comms = realloc(t->comms, 2 * sizeof(*t->comms));
        t->comms[1] = t->comms[0];
        t->comms[1].name = strdup(TSYNC_SESSION_COMM);
        t->comms[1].world_rank = malloc(2 * sizeof(uint32_t));
        t->comms[1].world_rank[0] = 0, t->comms[1].world_rank[1] = 1;
        t->n_comms = 2;
        for (uint64_t k = 0; k < 6; k++) {   /* sends 0..5 on comms 1, 0, 1, 0, 1, 0 */
            struct tsync_p2p_rec snd = { (uint32_t)(k % 2 == 0), 0, 1, 3, k, k };
            struct tsync_p2p_rec rcv = { (uint32_t)(k % 2 == 0), 0, 1, 3, 10 + k, 10 + k };
            if (late && k == 4)
                rcv.order = 1;            /* posted early, completed late: regrouped */
            assert_int_equal(TSYNC_PUSH(in.sends, in.n_sends, in.cap_sends, snd), 0);
            assert_int_equal(TSYNC_PUSH(in.recvs, in.n_recvs, in.cap_recvs, rcv), 0);
        }
        assert_int_equal(tsync__match_p2p(t, &in, NULL), 0);
        assert_int_equal(t->n_messages, 6);
        assert_int_equal(t->n_session_messages, 3);
        for (size_t i = 0; i < 3; i++) {
            assert_true(i == 0 || t->session_messages[i] > t->session_messages[i - 1]);
            assert_int_equal(t->messages[t->session_messages[i]].send_idx % 2, 0);
        }
        tsync__match_input_free(&in);
        tsync_trace_free(t);
    }
    /* no such communicator: none */
    struct tsync_trace *t = make_trace(2);
    struct tsync_match_input in = { 0 };
    add_p2p(&in, 1, 0, 1, 7, 10, 10);
    add_p2p(&in, 0, 0, 1, 7, 5, 5);
    assert_int_equal(tsync__match_p2p(t, &in, NULL), 0);
    assert_int_equal(t->n_session_messages, 0);
    tsync__match_input_free(&in);
    tsync_trace_free(t);
}

static int same_channel(const struct tsync_p2p_rec *a, const struct tsync_p2p_rec *b)
{
    return a->comm == b->comm && a->sender == b->sender && a->receiver == b->receiver &&
           a->tag == b->tag;
}

/* The messages by brute force: channels in order of first appearance (sends, then
 * receives); per channel the k-th send with the k-th receive in posting order. */
static size_t reference(const struct tsync_match_input *in, struct tsync_message *want)
{
    const struct tsync_p2p_rec **s = malloc(in->n_sends * sizeof(*s));
    const struct tsync_p2p_rec **r = malloc(in->n_recvs * sizeof(*r));
    size_t n = 0;
    for (size_t x = 0; x < in->n_sends + in->n_recvs; x++) {
        const struct tsync_p2p_rec *key = x < in->n_sends ? &in->sends[x] : &in->recvs[x - in->n_sends];
        size_t ns = 0, nr = 0, seen = 0;
        for (size_t h = 0; h < x && !seen; h++)
            seen = same_channel(h < in->n_sends ? &in->sends[h] : &in->recvs[h - in->n_sends], key);
        if (seen)
            continue;
        for (size_t h = 0; h < in->n_sends; h++)
            if (same_channel(&in->sends[h], key))
                s[ns++] = &in->sends[h];
        for (size_t h = 0; h < in->n_recvs; h++) {
            size_t k = nr++;
            if (!same_channel(&in->recvs[h], key)) {
                nr--;
                continue;
            }
            for (; k > 0 && r[k - 1]->order > in->recvs[h].order; k--) /* stable */
                r[k] = r[k - 1];
            r[k] = &in->recvs[h];
        }
        for (size_t k = 0; k < ns && k < nr; k++) {
            struct tsync_message m = { s[k]->sender, r[k]->receiver, s[k]->idx, r[k]->idx };
            want[n++] = m;
        }
    }
    free(s);
    free(r);
    return n;
}

/* Many channels between 4 locations, each location's records in event order as a
 * reader appends them: the matcher's way for records in posting order already
 * (every channel complete) and its grouping (a receive posted out of order, or a
 * send unmatched) both give the reference. */
static void test_channels_in_order(void **state)
{
    enum { LOCS = 4, PER = 300 };
    static struct tsync_message want[LOCS * PER];
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        struct tsync_trace *t = make_trace(LOCS);
        struct tsync_match_input in = { 0 };
        uint64_t next_idx[LOCS] = { 0 };
        size_t n_want;
        /* Location s sends PER messages to (s + 1 + k % 3) % LOCS with tag k % 2 ... */
        for (tsync_loc s = 0; s < LOCS; s++)
            for (uint32_t k = 0; k < PER; k++) {
                uint64_t idx = next_idx[s]++;
                add_p2p(&in, 1, s, (s + 1 + k % 3) % LOCS, k % 2, idx, idx);
            }
        /* ... and location r receives them, sender after sender. */
        for (tsync_loc r = 0; r < LOCS; r++)
            for (tsync_loc s = 0; s < LOCS; s++)
                for (uint32_t k = 0; k < PER; k++)
                    if ((s + 1 + k % 3) % LOCS == r) {
                        uint64_t idx = next_idx[r]++;
                        add_p2p(&in, 0, s, r, k % 2, idx, idx);
                    }
        if (variant == 1) /* the first receive posted after the second of its channel */
            in.recvs[0].order = in.recvs[1].order + 1;
        if (variant == 2)
            add_p2p(&in, 1, 0, 3, 5, next_idx[0], next_idx[0]);
        n_want = reference(&in, want);
        assert_int_equal(tsync__match_p2p(t, &in, NULL), 0);
        assert_int_equal(t->n_messages, n_want);
        assert_int_equal(n_want, LOCS * PER);
        assert_int_equal(t->unmatched_sends, variant == 2);
        for (size_t i = 0; i < n_want; i++) {
            assert_int_equal(t->messages[i].send_loc, want[i].send_loc);
            assert_int_equal(t->messages[i].send_idx, want[i].send_idx);
            assert_int_equal(t->messages[i].recv_loc, want[i].recv_loc);
            assert_int_equal(t->messages[i].recv_idx, want[i].recv_idx);
        }
        tsync__match_input_free(&in);
        tsync_trace_free(t);
    }
}

static int warnings;
static void count_warning(enum tsync_log_level l, const char *m, void *p)
{
    (void)l, (void)p;
    assert_non_null(strstr(m, "test.otf2"));
    warnings++;
}

/* Unmatched sends and receives are counted and reported, not fatal. */
static void test_unmatched(void **state)
{
    struct tsync_trace *t = make_trace(2);
    struct tsync_match_input in = { 0 };
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync_ctx_set_log(ctx, count_warning, NULL);
    warnings = 0;
    add_p2p(&in, 1, 0, 1, 1, 1, 1);
    add_p2p(&in, 1, 0, 1, 1, 2, 2);
    add_p2p(&in, 0, 0, 1, 1, 3, 3);
    add_p2p(&in, 0, 1, 0, 4, 5, 5);
    assert_int_equal(tsync__match_p2p(t, &in, ctx), 0);
    assert_int_equal(t->n_messages, 1);
    assert_int_equal(recv_of(t, 0, 1), 3);
    assert_int_equal(t->unmatched_sends, 1);
    assert_int_equal(t->unmatched_recvs, 1);
    assert_true(warnings >= 2);
    tsync__match_input_free(&in);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
}

static void add_coll(struct tsync_match_input *in, tsync_loc loc, uint32_t op, uint32_t root,
                     uint64_t begin, uint64_t end, uint64_t sent, uint64_t recvd)
{
    struct tsync_coll_rec r = { 0, loc, op, root, begin, end, sent, recvd };
    assert_int_equal(TSYNC_PUSH(in->colls, in->n_colls, in->cap_colls, r), 0);
}

/* The k-th call of each member is instance k; members sorted by comm rank; roles
 * from the class and the recorded sizes. */
static void test_collective_instances(void **state)
{
    struct tsync_trace *t = make_trace(3);
    struct tsync_match_input in = { 0 };
    const struct tsync_coll_member *m;
    (void)state;
    /* Records arrive location by location, as a reader produces them. */
    for (tsync_loc l = 3; l-- > 0;) {
        add_coll(&in, l, OTF2_COLLECTIVE_OP_BCAST, 1, 10 * l, 10 * l + 1, l == 1 ? 8 : 0, 8);
        add_coll(&in, l, OTF2_COLLECTIVE_OP_REDUCE, 0, 10 * l + 2, 10 * l + 3, 8, l == 0 ? 8 : 0);
    }
    assert_int_equal(tsync__match_collectives(t, &in, NULL), 0);
    assert_int_equal(t->n_collectives, 2);
    assert_int_equal(t->n_members, 6);
    assert_int_equal(t->collectives[0].op, OTF2_COLLECTIVE_OP_BCAST);
    assert_int_equal(t->collectives[0].cls, TSYNC_COLL_ONE_TO_N);
    assert_int_equal(t->collectives[0].root, 1);
    m = &t->members[t->collectives[0].first_member];
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(m[i].comm_rank, i);
        assert_int_equal(m[i].loc, i);
        assert_int_equal(m[i].begin_idx, 10 * i);
        assert_int_equal(m[i].end_idx, 10 * i + 1);
        assert_int_equal(m[i].sends, i == 1);
        assert_int_equal(m[i].recvs, 1);
    }
    assert_int_equal(t->collectives[1].cls, TSYNC_COLL_N_TO_ONE);
    m = &t->members[t->collectives[1].first_member];
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(m[i].sends, 1);
        assert_int_equal(m[i].recvs, i == 0);
    }
    tsync__match_input_free(&in);
    tsync_trace_free(t);
}

/* A barrier has no data but everyone sends and receives; no sizes at all means
 * the class decides; a rooted operation without a root is N-to-N. */
static void test_collective_roles_without_sizes(void **state)
{
    struct tsync_trace *t = make_trace(2);
    struct tsync_match_input in = { 0 };
    const struct tsync_coll_member *m;
    (void)state;
    for (tsync_loc l = 0; l < 2; l++) {
        add_coll(&in, l, OTF2_COLLECTIVE_OP_BARRIER, TSYNC_NONE, 0, 1, 0, 0);
        add_coll(&in, l, OTF2_COLLECTIVE_OP_GATHER, TSYNC_NONE, 2, 3, 0, 0);
    }
    assert_int_equal(tsync__match_collectives(t, &in, NULL), 0);
    assert_int_equal(t->n_collectives, 2);
    m = &t->members[t->collectives[0].first_member];
    assert_true(m[0].sends && m[0].recvs && m[1].sends && m[1].recvs);
    assert_int_equal(t->collectives[1].cls, TSYNC_COLL_N_TO_N);
    tsync__match_input_free(&in);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_non_overtaking),
        cmocka_unit_test(test_irecv_posting_order),
        cmocka_unit_test(test_any_source),
        cmocka_unit_test(test_session_messages),
        cmocka_unit_test(test_channels_in_order),
        cmocka_unit_test(test_unmatched),
        cmocka_unit_test(test_collective_instances),
        cmocka_unit_test(test_collective_roles_without_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
