/* test_packets.c - packets seen in two captures paired into messages
 * (match/packets.c): the ambiguity rule, captures of one host, packets seen once,
 * and which capture sent a packet, decided from the stamps alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "io/sink.h"

/* One packet as a capture saw it: its time there, key and addresses. */
struct pkt {
    tsync_time time;
    uint64_t key;
    uint32_t src, dst;
};

/* Captures on hosts host[i], each with its packets in time order; matched. */
static struct tsync_trace *captures(const char *const *host, const struct pkt *const *pkts,
                                    const size_t *n, size_t n_caps, tsync_ctx *ctx)
{
    struct tsync_trace *t = tsync__trace_alloc("a.pcap");
    struct tsync_match_input in;
    struct tsync_sink s;
    assert_non_null(t);
    tsync__sink_init(&s, t, ctx);
    tsync__sink_clock(&s, 1000000000, 0, 0, 0);
    for (size_t i = 0; i < n_caps; i++) {
        uint32_t node = 0;
        while (node < t->n_nodes && strcmp(t->nodes[node].name, host[i]) != 0)
            node++;
        if (node == t->n_nodes)
            assert_int_equal(tsync__sink_node(&s, host[i], &node), 0);
        assert_int_equal(tsync__sink_location(&s, i, host[i], node), 0);
    }
    assert_int_equal(tsync__sink_domains(&s, TSYNC_DOMAIN_NODE), 0);
    for (size_t i = 0; i < n_caps; i++) {
        assert_int_equal(tsync__sink_begin_location(&s, (tsync_loc)i, n[i]), 0);
        for (size_t k = 0; k < n[i]; k++) {
            assert_int_equal(tsync__sink_event(&s, pkts[i][k].time, TSYNC_EV_OTHER), 0);
            assert_int_equal(tsync__sink_packet(&s, pkts[i][k].key, pkts[i][k].src,
                                                pkts[i][k].dst), 0);
        }
    }
    tsync__sink_finish(&s, &in);
    tsync__sink_free(&s);
    assert_int_equal(tsync__trace_match(t, &in, ctx), 0);
    return t;
}

/* Host A (address 0) and B (address 1); B's clock 1 s ahead, delays 50 ns. Each
 * packet's key is its number. A sends 1, 3; B sends 2, 4. */
#define AHEAD 1000000000
static const struct pkt at_a[] = { { 100, 1, 0, 1 }, { 300, 2, 1, 0 }, { 400, 3, 0, 1 },
                                   { 700, 4, 1, 0 } };
static const struct pkt at_b[] = { { 150 + AHEAD, 1, 0, 1 }, { 250 + AHEAD, 2, 1, 0 },
                                   { 450 + AHEAD, 3, 0, 1 }, { 650 + AHEAD, 4, 1, 0 } };

/* Every packet paired, from the capture of its source's host to the other, although
 * B's clock puts every packet of A's after its receive there. */
static void test_direction(void **state)
{
    const char *hosts[] = { "b", "a" };     /* B's capture first: order is no hint */
    const struct pkt *pkts[] = { at_b, at_a };
    size_t n[] = { 4, 4 };
    struct tsync_trace *t = captures(hosts, pkts, n, 2, NULL);
    (void)state;
    assert_int_equal(t->n_messages, 4);
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        tsync_time send = t->locations[m->send_loc].time[m->send_idx];
        tsync_time recv = t->locations[m->recv_loc].time[m->recv_idx];
        /* A's packets are the even events of a (location 1) and B's the odd ones of b. */
        assert_int_equal(m->send_idx, m->recv_idx);
        assert_int_equal(m->send_loc, m->send_idx % 2 ? 0 : 1);
        assert_int_equal(recv - send + (m->send_loc == 0 ? AHEAD : -AHEAD), 50);
    }
    /* Exchanges: 1 answered by 2 and 3 by 4 (A pings), 2 answered by 3 (B pings). */
    assert_int_equal(t->n_pairings, 1);
    assert_int_equal(t->pairings[0].paired, 4);
    assert_int_equal(t->pairings[0].exchanges, 3);
    assert_ptr_equal(tsync__packet_pairing_of(t, 1, 0), &t->pairings[0]);
    assert_null(tsync__packet_pairing_of(t, 0, 0));
    tsync_trace_free(t);
}

/* A key twice in one capture (a retransmission) is left out; the others pair. */
static void test_ambiguous(void **state)
{
    static const struct pkt a2[] = { { 100, 1, 0, 1 }, { 300, 2, 1, 0 }, { 400, 3, 0, 1 },
                                     { 500, 3, 0, 1 }, { 700, 4, 1, 0 } };
    const char *hosts[] = { "a", "b" };
    const struct pkt *pkts[] = { a2, at_b };
    size_t n[] = { 5, 4 };
    struct tsync_trace *t = captures(hosts, pkts, n, 2, NULL);
    (void)state;
    assert_int_equal(t->n_messages, 3);
    for (size_t i = 0; i < t->n_messages; i++) {   /* a's events 2 and 3 are in none */
        const struct tsync_message *m = &t->messages[i];
        uint64_t at = m->send_loc == 0 ? m->send_idx : m->recv_idx;
        assert_true(at != 2 && at != 3);
    }
    /* Key 3 ambiguous: 1 answered by 2 is the only exchange left. */
    assert_int_equal(t->pairings[0].ambiguous, 1);
    assert_int_equal(t->pairings[0].exchanges, 1);
    tsync_trace_free(t);
}

/* Captures of one host pair nothing; a packet seen once pairs with nothing. */
static void test_same_host_and_once(void **state)
{
    static const struct pkt b3[] = { { 150, 1, 0, 1 }, { 250, 2, 1, 0 }, { 260, 9, 1, 5 } };
    const char *one[] = { "a", "a" }, *two[] = { "a", "b" };
    const struct pkt *pkts[] = { at_a, b3 };
    size_t n[] = { 4, 3 };
    struct tsync_trace *t = captures(one, pkts, n, 2, NULL);
    (void)state;
    assert_int_equal(t->n_messages, 0);
    tsync_trace_free(t);
    t = captures(two, pkts, n, 2, NULL);
    assert_int_equal(t->n_messages, 2);
    tsync_trace_free(t);
}

/* Traffic one way only between addresses no two-way traffic placed: undecided. */
static void test_one_way(void **state)
{
    static const struct pkt a1[] = { { 100, 1, 0, 1 }, { 200, 5, 0, 1 } };
    static const struct pkt b1[] = { { 150, 1, 0, 1 }, { 250, 5, 0, 1 } };
    const char *hosts[] = { "a", "b" };
    const struct pkt *pkts[] = { a1, b1 };
    size_t n[] = { 2, 2 };
    struct tsync_trace *t = captures(hosts, pkts, n, 2, NULL);
    (void)state;
    assert_int_equal(t->n_messages, 0);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_direction),
        cmocka_unit_test(test_ambiguous),
        cmocka_unit_test(test_same_host_and_once),
        cmocka_unit_test(test_one_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
