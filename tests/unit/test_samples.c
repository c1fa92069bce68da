/* test_samples.c - the samples of pairs of clock domains (src/estimate/samples.c):
 * the roles of collective members (seed 002, section 4.1) and the one-way
 * constraints their logical messages give, one per instance and ordered pair of
 * domains (the latest begin against the earliest end), scan and exscan upward only;
 * exchange samples only from prompt receives; ClockOffset records that another record
 * of their clock contradicts widened to cover it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "estimate/samples.h"
#include "match/match.h"
#include "util/vec.h"

#include "coll_split.h"
#include "est_fixture.h"

#define MU_INTRA 300
#define MU_INTER 1000

static const uint32_t TWO_NODES_OF_TWO[] = { 0, 0, 1, 1 };

/* Four locations, each with a collective begin at b[i] and end at e[i] (ticks),
 * one instance of class cls with root `root` (comm rank = location). */
static tsync_trace *one_instance(const uint32_t *node_of, int per_location, enum tsync_coll_class cls,
                                 uint32_t root, const tsync_time *b, const tsync_time *e)
{
    struct fx *f = fx_new(4, node_of, per_location);
    tsync_trace *t;
    for (tsync_loc l = 0; l < 4; l++) {
        fx_event(f, l, b[l]);
        fx_event(f, l, e[l]);
    }
    t = fx_done(f);
    t->collectives = calloc(1, sizeof(*t->collectives));
    t->members = calloc(4, sizeof(*t->members));
    assert_true(t->collectives && t->members);
    t->n_collectives = 1;
    t->n_members = 4;
    t->collectives[0] = (struct tsync_collective){ 0, 0, root, (uint8_t)cls, 4, 0 };
    for (tsync_loc l = 0; l < 4; l++)   /* every member records data both ways */
        t->members[l] = (struct tsync_coll_member){ l, l, 0, 1, 1, 1 };
    return t;
}

struct collected {
    struct tsync__graph g;
    struct tsync__intra intra;
};

static void collect_opts(struct collected *c, const tsync_trace *t, const struct tsync__sample_opts *o)
{
    assert_int_equal(tsync__graph_init(&c->g, t->n_domains, tsync__pair_free), 0);
    assert_int_equal(tsync__collect_samples(&c->g, t, NULL, 0, o, &c->intra), 0);
}

static void collect(struct collected *c, const tsync_trace *t)
{
    struct tsync__sample_opts o = { { MU_INTRA, MU_INTER, MU_INTER, 0, NULL }, 0, 0, 0, 0 };
    collect_opts(c, t, &o);
}

/* The samples of edge i. */
static const struct tsync__pair_samples *samples(const struct collected *c, size_t i)
{
    return &tsync__pair_of(&c->g.e[i])->s;
}

/* The pair of domains lo < hi. */
static const struct tsync__pair *edge(const struct collected *c, uint32_t lo, uint32_t hi)
{
    for (size_t i = 0; i < c->g.n_edges; i++)
        if (c->g.e[i].lo == lo && c->g.e[i].hi == hi)
            return tsync__pair_of(&c->g.e[i]);
    return NULL;
}

static const tsync_time B[] = { 100, 300, 200, 250 };
static const tsync_time E[] = { 1000, 900, 1100, 950 };

static void test_roles(void **state)
{
    struct tsync_collective co = { 0, 0, 2, TSYNC_COLL_ONE_TO_N, 4, 0 };
    struct tsync_coll_member m = { 0, 1, 0, 1, 1, 1 }, root = { 0, 2, 0, 1, 1, 1 };
    (void)state;
    assert_int_equal(tsync__coll_role(&co, &m), TSYNC_COLL_RECVS);
    assert_int_equal(tsync__coll_role(&co, &root), TSYNC_COLL_SENDS | TSYNC_COLL_RECVS);
    co.cls = TSYNC_COLL_N_TO_ONE;
    assert_int_equal(tsync__coll_role(&co, &m), TSYNC_COLL_SENDS);
    assert_int_equal(tsync__coll_role(&co, &root), TSYNC_COLL_SENDS | TSYNC_COLL_RECVS);
    co.root = TSYNC_NONE;              /* no root recorded: the recorded data decide */
    m.recvs = 0;
    assert_int_equal(tsync__coll_role(&co, &m), TSYNC_COLL_SENDS);
    co.cls = TSYNC_COLL_N_TO_N;
    m.recvs = 1;
    m.sends = 0;                       /* a member without data is left out of S */
    assert_int_equal(tsync__coll_role(&co, &m), TSYNC_COLL_RECVS);
    co.cls = TSYNC_COLL_NONE;
    assert_int_equal(tsync__coll_role(&co, &root), 0);
    co.cls = TSYNC_COLL_SCAN;
    assert_true(tsync__scan_flows(&co, 1, 1) && tsync__scan_flows(&co, 0, 3));
    assert_false(tsync__scan_flows(&co, 2, 1));
    co.cls = TSYNC_COLL_EXSCAN;
    assert_false(tsync__scan_flows(&co, 1, 1));
    assert_true(tsync__scan_flows(&co, 0, 1));
}

/* N-to-N over two nodes of two ranks: the four logical messages each way reduce to
 * the latest begin against the earliest end, one constraint per direction. */
static void test_n_to_n_reduced(void **state)
{
    tsync_trace *t = one_instance(TWO_NODES_OF_TWO, 0, TSYNC_COLL_N_TO_N, TSYNC_NONE, B, E);
    struct collected c;
    const struct tsync__pair *e;
    (void)state;
    collect(&c, t);
    assert_int_equal(c.g.n_edges, 1);
    assert_non_null(e = edge(&c, 0, 1));
    assert_int_equal(e->s.n_above, 1);   /* node 0 -> node 1: begin 300 (L1), end 950 (L3) */
    assert_int_equal(e->s.above[0].x, 300);
    assert_int_equal(e->s.above[0].y, 950 - MU_INTER);
    assert_int_equal(e->s.n_below, 1);   /* node 1 -> node 0: begin 250 (L3), end 900 (L1) */
    assert_int_equal(e->s.below[0].x, 900 - MU_INTER);
    assert_int_equal(e->s.below[0].y, 250);
    assert_int_equal(e->from.collectives, 2);
    assert_int_equal(e->from.messages + e->from.sessions + e->from.offsets, 0);
    tsync__graph_free(&c.g);
    tsync_trace_free(t);
}

/* One rank per domain: N-to-N gives every ordered pair once. */
static void test_n_to_n_per_location(void **state)
{
    tsync_trace *t = one_instance(TWO_NODES_OF_TWO, 1, TSYNC_COLL_N_TO_N, TSYNC_NONE, B, E);
    struct collected c;
    const struct tsync__pair *e;
    (void)state;
    collect(&c, t);
    assert_int_equal(c.g.n_edges, 6);
    for (size_t i = 0; i < c.g.n_edges; i++)
        assert_true(samples(&c, i)->n_above == 1 && samples(&c, i)->n_below == 1);
    assert_non_null(e = edge(&c, 0, 1));       /* same node: the intra-node latency */
    assert_int_equal(e->s.above[0].y, E[1] - MU_INTRA);
    assert_non_null(e = edge(&c, 1, 2));
    assert_int_equal(e->s.above[0].x, B[1]);
    assert_int_equal(e->s.above[0].y, E[2] - MU_INTER);
    tsync__graph_free(&c.g);
    tsync_trace_free(t);
}

/* 1-to-N sends from the root only, N-to-1 receives at the root only. */
static void test_rooted(void **state)
{
    tsync_trace *t = one_instance(TWO_NODES_OF_TWO, 0, TSYNC_COLL_ONE_TO_N, 0, B, E);
    struct collected c;
    const struct tsync__pair *e;
    (void)state;
    collect(&c, t);
    assert_non_null(e = edge(&c, 0, 1));
    assert_int_equal(e->s.n_above, 1);    /* root L0's begin 100 against node 1's end 950 */
    assert_int_equal(e->s.above[0].x, 100);
    assert_int_equal(e->s.above[0].y, 950 - MU_INTER);
    assert_int_equal(e->s.n_below, 0);
    tsync__graph_free(&c.g);
    tsync_trace_free(t);

    t = one_instance(TWO_NODES_OF_TWO, 0, TSYNC_COLL_N_TO_ONE, 2, B, E);
    collect(&c, t);
    assert_non_null(e = edge(&c, 0, 1));
    assert_int_equal(e->s.n_above, 1);    /* node 0's latest begin 300 against root L2's end */
    assert_int_equal(e->s.above[0].x, 300);
    assert_int_equal(e->s.above[0].y, 1100 - MU_INTER);
    assert_int_equal(e->s.n_below, 0);
    tsync__graph_free(&c.g);
    tsync_trace_free(t);
}

/* Scan and exscan deliver upward in comm rank only: node 1 (ranks 2, 3) never
 * sends to node 0 (ranks 0, 1); each of node 1's receives is held against node 0's
 * latest send. */
static void test_scan(void **state)
{
    static const enum tsync_coll_class cls[] = { TSYNC_COLL_SCAN, TSYNC_COLL_EXSCAN };
    (void)state;
    for (int k = 0; k < 2; k++) {
        tsync_trace *t = one_instance(TWO_NODES_OF_TWO, 0, cls[k], TSYNC_NONE, B, E);
        struct collected c;
        const struct tsync__pair *e;
        collect(&c, t);
        assert_non_null(e = edge(&c, 0, 1));
        assert_int_equal(e->s.n_below, 0);
        assert_int_equal(e->s.n_above, 2);
        assert_true(e->s.above[0].x == 300 && e->s.above[1].x == 300);
        assert_int_equal(e->s.above[0].y + e->s.above[1].y, 950 + 1100 - 2 * MU_INTER);
        assert_true(e->s.above[0].y == 950 - MU_INTER || e->s.above[1].y == 950 - MU_INTER);
        tsync__graph_free(&c.g);
        tsync_trace_free(t);

        /* One rank per domain: k -> i for k < i, six pairs, all upward. */
        t = one_instance(TWO_NODES_OF_TWO, 1, cls[k], TSYNC_NONE, B, E);
        collect(&c, t);
        assert_int_equal(c.g.n_edges, 6);
        for (size_t i = 0; i < c.g.n_edges; i++) {
            assert_int_equal(samples(&c, i)->n_above, 1);
            assert_int_equal(samples(&c, i)->n_below, 0);
            assert_int_equal(samples(&c, i)->above[0].x, B[c.g.e[i].lo]);
        }
        tsync__graph_free(&c.g);
        tsync_trace_free(t);
    }
}

/* Prompt receives: three ping-pongs between two nodes, each receive after an Enter.
 * In the first both receive calls wait for their message; in the second location 1
 * enters its receive after the ping arrived (the record follows the Enter by the
 * call's cost, 200 ticks), in the third location 0 does so for the pong. Only
 * exchanges whose two receives waited are formed: ping 1 and its answer, and (from
 * location 1's side) pong 2 and the ping that answers it. Without the Enter
 * events' story (a CSV) every exchange counts: five. */
static void test_prompt_exchanges(void **state)
{
    static const uint32_t two[] = { 0, 1 };
    struct tsync__sample_opts o = { { MU_INTRA, MU_INTER, MU_INTER, 0, NULL }, 1, 0, 0, 0 };
    struct collected c;
    struct fx *f = fx_new(2, two, 0);
    tsync_trace *t;
    (void)state;
    fx_event(f, 1, 5000);                 /* 1: ping waited for, pong waited for */
    fx_msg(f, 0, 10000, 1, 30000);
    fx_event(f, 0, 10100);
    fx_msg(f, 1, 31000, 0, 60000);
    fx_event(f, 1, 150000);               /* 2: ping there before the receive */
    fx_msg(f, 0, 100000, 1, 150200);
    fx_event(f, 0, 100100);
    fx_msg(f, 1, 151000, 0, 160000);
    fx_event(f, 1, 200000);               /* 3: pong there before the receive */
    fx_msg(f, 0, 205000, 1, 210000);
    fx_event(f, 0, 250000);
    fx_msg(f, 1, 211000, 0, 250200);
    t = fx_done(f);
    assert_int_equal(tsync__graph_init(&c.g, t->n_domains, tsync__pair_free), 0);
    assert_int_equal(tsync__collect_samples(&c.g, t, NULL, 0, &o, &c.intra), 0);
    assert_int_equal(c.g.n_edges, 1);
    assert_int_equal(samples(&c, 0)->n_exch, 2);
    assert_int_equal(samples(&c, 0)->exch[0].x, 10000 + (60000 - 10000) / 2);  /* (T1 + T4) / 2 */
    assert_int_equal(samples(&c, 0)->exch[0].y, 30000 + (31000 - 30000) / 2);  /* (T2 + T3) / 2 */
    assert_int_equal(samples(&c, 0)->n_above + samples(&c, 0)->n_below, 6);   /* all one-way */
    tsync__graph_free(&c.g);
    t->format = TSYNC_FORMAT_CSV;
    assert_int_equal(tsync__graph_init(&c.g, t->n_domains, tsync__pair_free), 0);
    assert_int_equal(tsync__collect_samples(&c.g, t, NULL, 0, &o, &c.intra), 0);
    assert_int_equal(samples(&c, 0)->n_exch, 5);
    tsync__graph_free(&c.g);
    tsync_trace_free(t);
}

/* ClockOffset records of node 1 (locations 2 and 3) against the master, each with a
 * recorded deviation of 100 (uncertainty 300): two of one session 2 us apart whose
 * offsets differ by 30 us, more than their uncertainties and a drift of 1000 ppm
 * allow (30 000 - 2 > 600), so one of them is off by more than its uncertainty:
 * each is widened to the other's distance plus its uncertainty and the drift,
 * 30 302. A third record 10 minutes later is not compared; with the second record
 * 200 ticks from the first, nothing is widened. */
static void test_contradicting_offsets(void **state)
{
    struct tsync__sample_opts o = { { MU_INTRA, MU_INTER, MU_INTER, 0, NULL }, 0, 1, 1e-3, 1000000000 };
    (void)state;
    for (int agree = 0; agree < 2; agree++) {
        struct fx *f = fx_new(4, TWO_NODES_OF_TWO, 0);
        const struct tsync__pair_samples *s;
        int64_t err = agree ? 300 : 30302;
        struct collected c;
        tsync_trace *t;
        fx_offset(f, 0, 1000000, 0, 0);
        fx_offset(f, 2, 1000000, -20000, 100);
        fx_offset(f, 3, 1002000, agree ? -19800 : 10000, 100);
        fx_offset(f, 2, 600000000000, -20000, 100);
        t = fx_done(f);
        assert_int_equal(tsync__graph_init(&c.g, t->n_domains, tsync__pair_free), 0);
        assert_int_equal(tsync__collect_samples(&c.g, t, NULL, 0, &o, &c.intra), 0);
        assert_int_equal(c.g.n_edges, 1);
        s = samples(&c, 0);                /* x: the master's clock, y: node 1's */
        assert_int_equal(s->n_above, 3);
        assert_int_equal(s->n_below, 3);
        assert_int_equal(s->above[0].x, 1000000 - 20000);
        assert_int_equal(s->above[0].y, 1000000 + err);
        assert_int_equal(s->below[0].y, 1000000 - err);
        assert_int_equal(s->above[1].y, 1002000 + err);
        assert_int_equal(s->below[1].y, 1002000 - err);
        assert_int_equal(s->above[2].y, 600000000000 + 300);
        assert_int_equal(s->below[2].y, 600000000000 - 300);
        tsync__graph_free(&c.g);
        tsync_trace_free(t);
    }
}

/* ---- sorting ------------------------------------------------------------------------ */

/* Keys x with their input position in y: the stable order is by (x, y). */
static int by_x_then_y(const void *pa, const void *pb)
{
    const struct tsync__pt *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->y < b->y ? -1 : a->y > b->y;
}

/* n points, x from `key`, y their position; sorted by tsync__sort_points and
 * compared with the stable order. */
static void check_sort(size_t n, tsync_time (*key)(size_t i, uint64_t *rng))
{
    struct tsync__pt *v = malloc(n * sizeof(*v)), *ref = malloc(n * sizeof(*ref));
    uint64_t rng = 7;
    assert_non_null(v);
    assert_non_null(ref);
    for (size_t i = 0; i < n; i++)
        v[i] = ref[i] = (struct tsync__pt){ key(i, &rng), (tsync_time)i };
    qsort(ref, n, sizeof(*ref), by_x_then_y);
    assert_int_equal(tsync__sort_points(v, n), 0);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(v[i].x, ref[i].x);
        assert_int_equal(v[i].y, ref[i].y);
    }
    free(v);
    free(ref);
}

static uint64_t step(uint64_t *rng)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return *rng;
}

/* Receive times among sends: in order but for a jitter of a few places, with
 * repeated times. */
static tsync_time nearly(size_t i, uint64_t *rng)
{
    return (tsync_time)(i * 10 + step(rng) % 40) / 4;
}

static tsync_time random_key(size_t i, uint64_t *rng)
{
    (void)i;
    return (tsync_time)(step(rng) % 50000) - 25000;
}

/* Nearly in order for the first half, then at random: the insertion sort gives up
 * halfway and the radix sort finishes from what it left. */
static tsync_time half_random(size_t i, uint64_t *rng)
{
    return i < 50000 ? nearly(i, rng) : random_key(i, rng) + 1000000;
}

static void test_sort_points(void **state)
{
    (void)state;
    check_sort(100000, nearly);
    check_sort(100000, random_key);
    check_sort(100000, half_random);
}

/* ---- in parts ---------------------------------------------------------------------- */

static int i64_order(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

static int keyed_order(const void *pa, const void *pb)
{
    const struct tsync__keyed *a = pa, *b = pb;
    if (a->lo != b->lo || a->hi != b->hi)
        return a->lo != b->lo ? (a->lo < b->lo ? -1 : 1) : (a->hi < b->hi ? -1 : 1);
    if (a->s.kind != b->s.kind)
        return a->s.kind < b->s.kind ? -1 : 1;
    if (a->key[0] != b->key[0])
        return a->key[0] < b->key[0] ? -1 : 1;
    return a->key[1] < b->key[1] ? -1 : a->key[1] > b->key[1];
}

/* The keyed samples v[0, n) of every part, put in the order of their keys, against
 * the serial pairs; the parts' sources (g[]) and messages inside domains (in[])
 * summed against the serial ones. */
static void check_parts(const struct collected *serial, struct tsync__keyed *v, size_t n,
                        const struct tsync__graph *g, const struct tsync__intra *in, uint32_t parts)
{
    size_t placed = 0;
    uint64_t messages = 0, reversed = 0, contradicting = 0;
    int64_t worst = 0;
    qsort(v, n, sizeof(*v), keyed_order);
    for (size_t e = 0; e < serial->g.n_edges; e++) {
        const struct tsync__edge *edge = &serial->g.e[e];
        const struct tsync__pair *want = tsync__pair_of(edge);
        struct tsync__pair_samples got;
        tsync_estimate_sources from = { 0, 0, 0, 0 };
        memset(&got, 0, sizeof(got));
        for (size_t i = 0; i < n; i++) {
            struct tsync__pt pt = { v[i].s.x, v[i].s.y };
            if (v[i].lo != edge->lo || v[i].hi != edge->hi)
                continue;
            placed++;
            if (v[i].s.kind == TSYNC__ABOVE)
                assert_int_equal(TSYNC_PUSH(got.above, got.n_above, got.cap_above, pt), 0);
            else if (v[i].s.kind == TSYNC__BELOW)
                assert_int_equal(TSYNC_PUSH(got.below, got.n_below, got.cap_below, pt), 0);
            else if (v[i].s.kind == TSYNC__RECORD)
                assert_int_equal(TSYNC_PUSH(got.rec, got.n_rec, got.cap_rec, v[i].s), 0);
            else
                assert_int_equal(TSYNC_PUSH(got.exch, got.n_exch, got.cap_exch, v[i].s), 0);
        }
        assert_int_equal(tsync__pair_samples_sort(&got), 0);
        assert_int_equal(got.n_above, want->s.n_above);
        assert_int_equal(got.n_below, want->s.n_below);
        assert_int_equal(got.n_exch, want->s.n_exch);
        assert_int_equal(got.n_rec, want->s.n_rec);
        assert_memory_equal(got.above, want->s.above, got.n_above * sizeof(*got.above));
        assert_memory_equal(got.below, want->s.below, got.n_below * sizeof(*got.below));
        for (size_t i = 0; i < got.n_exch; i++) {
            assert_int_equal(got.exch[i].x, want->s.exch[i].x);
            assert_int_equal(got.exch[i].y, want->s.exch[i].y);
            assert_int_equal(got.exch[i].err, want->s.exch[i].err);
            assert_int_equal(got.exch[i].measured, want->s.exch[i].measured);
        }
        for (size_t i = 0; i < got.n_rec; i++) {
            assert_int_equal(got.rec[i].x, want->s.rec[i].x);
            assert_int_equal(got.rec[i].y, want->s.rec[i].y);
            assert_int_equal(got.rec[i].err, want->s.rec[i].err);
        }
        for (uint32_t p = 0; p < parts; p++)
            for (size_t k = 0; k < g[p].n_edges; k++)
                if (g[p].e[k].lo == edge->lo && g[p].e[k].hi == edge->hi) {
                    const tsync_estimate_sources *f = &tsync__pair_of(&g[p].e[k])->from;
                    from.messages += f->messages;
                    from.collectives += f->collectives;
                    from.sessions += f->sessions;
                    from.offsets += f->offsets;
                }
        assert_memory_equal(&from, &want->from, sizeof(from));
        tsync__pair_samples_free(&got);
    }
    assert_int_equal(placed, n);
    for (uint32_t p = 0; p < parts; p++) {
        messages += in[p].messages;
        reversed += in[p].reversed;
        contradicting += in[p].contradicting;
        worst = in[p].max_reversal > worst ? in[p].max_reversal : worst;
    }
    assert_int_equal(messages, serial->intra.messages);
    assert_int_equal(reversed, serial->intra.reversed);
    assert_int_equal(contradicting, serial->intra.contradicting);
    assert_int_equal(worst, serial->intra.max_reversal);
}

/* The index of location l's event at time `at`. */
static uint64_t event_at(const tsync_trace *t, tsync_loc l, tsync_time at)
{
    for (uint64_t i = 0; i < t->locations[l].n_events; i++)
        if (t->locations[l].time[i] == at)
            return i;
    fail_msg("no event of location %u at %lld", l, (long long)at);
    return 0;
}

/* Six locations on three nodes: ping-pongs (each receive after an event of its
 * own, some waited for), messages inside nodes (one reversed), three collective
 * instances over all (N-to-N, rooted, scan), ClockOffset records. */
static tsync_trace *mixed_trace(void)
{
    static const uint32_t nodes[] = { 0, 0, 1, 1, 2, 2 };
    static const enum tsync_coll_class cls[] = { TSYNC_COLL_N_TO_N, TSYNC_COLL_ONE_TO_N,
                                                 TSYNC_COLL_SCAN };
    struct fx *f = fx_new(6, nodes, 0);
    uint64_t rng = 11;
    tsync_trace *t;
    for (int k = 0; k < 120; k++) {
        tsync_loc a = (tsync_loc)(step(&rng) % 6), b = (tsync_loc)(step(&rng) % 6);
        tsync_time at = 100000 + 20000 * k, wait = step(&rng) % 2 ? 3000 : 10;
        if (a == b)
            b = (b + 1) % 6;
        fx_event(f, b, at + 2000 - wait);
        fx_msg(f, a, at, b, at + 2000);
        fx_event(f, a, at + 5000 - wait);
        fx_msg(f, b, at + 3000, a, at + 5000 + (tsync_time)(step(&rng) % 500));
    }
    for (tsync_loc l = 0; l < 6; l++)
        for (int q = 0; q < 3; q++) {
            fx_event(f, l, 5000000 + 100000 * q + 100 * l);              /* begin */
            fx_event(f, l, 5000000 + 100000 * q + 50000 - 900 * l);      /* end */
        }
    fx_msg(f, 0, 9000000, 1, 8999000);                 /* inside node 0, reversed */
    fx_offset(f, 0, 50000, 0, 0);
    fx_offset(f, 2, 50000, -1500, 0);
    fx_offset(f, 4, 60000, 800, 0);
    fx_offset(f, 2, 6000000, -1400, 0);
    t = fx_done(f);
    t->collectives = calloc(3, sizeof(*t->collectives));
    t->members = calloc(18, sizeof(*t->members));
    assert_true(t->collectives && t->members);
    t->n_collectives = 3;
    t->n_members = 18;
    for (int q = 0; q < 3; q++) {
        t->collectives[q] = (struct tsync_collective){ 0, 0, q == 1 ? 2 : TSYNC_NONE,
                                                       (uint8_t)cls[q], 6, (uint64_t)q * 6 };
        for (tsync_loc l = 0; l < 6; l++)
            t->members[q * 6 + l] = (struct tsync_coll_member){
                l, l, event_at(t, l, 5000000 + 100000 * q + 100 * l),
                event_at(t, l, 5000000 + 100000 * q + 50000 - 900 * l), 1, 1 };
    }
    return t;
}


/* The samples of mixed_trace collected in n parts, as estimate/parts.c collects
 * them (each process the messages its locations receive, its share of the
 * instances, the hops of a pair of locations on the lower one's process, the 10th
 * percentile of all margins), then put in the order of their keys and sorted: the
 * serial samples, to the bit, with the same sources and the same messages inside
 * domains. */
static void test_parts(void **state)
{
    struct tsync__sample_opts o = { { MU_INTRA, MU_INTER, MU_INTER, 0, NULL }, 1, 1, 1e-3, 1000000000 };
    tsync_trace *t = mixed_trace();
    tsync_time *send = malloc(t->n_messages * sizeof(*send));
    struct collected serial;
    assert_non_null(send);
    for (size_t i = 0; i < t->n_messages; i++)
        send[i] = t->locations[t->messages[i].send_loc].time[t->messages[i].send_idx];
    size_t exchanges = 0, measured = 0;
    collect_opts(&serial, t, &o);
    assert_int_equal(serial.g.n_edges, 3);
    assert_true(serial.intra.messages > 0 && serial.intra.reversed > 0);
    for (size_t e = 0; e < serial.g.n_edges; e++)
        for (size_t i = 0; i < samples(&serial, e)->n_exch; i++) {
            exchanges += !samples(&serial, e)->exch[i].measured;
            measured += samples(&serial, e)->exch[i].measured;
        }
    (void)state;
    assert_true(exchanges > 10 && measured == 3);
    for (uint32_t n = 1; n <= 4; n++) {
        struct tsync_trace part[4];
        struct tsync__sample_part sp[4];
        struct tsync__collector *c[4];
        struct tsync__graph g[4];
        struct tsync__intra in[4];
        struct tsync__hop *hops[4], *all = NULL;
        struct tsync__keyed *keyed = NULL;
        struct tsync_coll_whole *whole[4];
        int64_t *margins = NULL;
        size_t n_hops[4], n_all = 0, n_margins = 0, n_keyed = 0;
        for (uint32_t p = 0; p < n; p++) {
            part[p] = *t;
            part[p].send_time = send;
            assert_non_null(part[p].held = calloc(t->n_locations, 1));
            for (tsync_loc l = 0; l < t->n_locations; l++)
                part[p].held[l] = tsync__location_holder(l, t->n_locations, n) == p;
            whole[p] = cs_whole(t, p, n);
            sp[p] = (struct tsync__sample_part){ p, n, whole[p], NULL, 0, 0 };
            assert_int_equal(tsync__graph_init(&g[p], t->n_domains, tsync__pair_free), 0);
            assert_int_equal(tsync__part_collector_new(&c[p], &g[p], &part[p], &o, &in[p], &sp[p]), 0);
            assert_int_equal(tsync__collect_part_messages(c[p], &hops[p], &n_hops[p]), 0);
            all = realloc(all, (n_all + n_hops[p] + 1) * sizeof(*all));
            assert_non_null(all);
            memcpy(all + n_all, hops[p], n_hops[p] * sizeof(*all));
            n_all += n_hops[p];
            free(hops[p]);
        }
        for (uint32_t p = 0; p < n; p++) {          /* each pair's hops on its lower end's */
            int64_t *m = NULL;
            size_t nm = 0;
            n_hops[p] = 0;
            assert_non_null(hops[p] = malloc((n_all + 1) * sizeof(*all)));
            for (size_t i = n_all; i-- > 0;)
                if (tsync__location_holder(all[i].a, t->n_locations, n) == p)
                    hops[p][n_hops[p]++] = all[i];
            assert_int_equal(tsync__collect_part_exchanges(c[p], hops[p], n_hops[p], &m, &nm), 0);
            margins = realloc(margins, (n_margins + nm + 1) * sizeof(*margins));
            assert_non_null(margins);
            memcpy(margins + n_margins, m, nm * sizeof(*m));
            n_margins += nm;
            free(m);
            free(hops[p]);
        }
        qsort(margins, n_margins, sizeof(*margins), i64_order);
        for (uint32_t p = 0; p < n; p++) {
            assert_int_equal(tsync__collect_part_offsets(c[p], n_margins > 0,
                                                         n_margins ? margins[n_margins / 10] : 0), 0);
            keyed = realloc(keyed, (n_keyed + sp[p].n_out + 1) * sizeof(*keyed));
            assert_non_null(keyed);
            memcpy(keyed + n_keyed, sp[p].out, sp[p].n_out * sizeof(*keyed));
            n_keyed += sp[p].n_out;
        }
        check_parts(&serial, keyed, n_keyed, g, in, n);
        for (uint32_t p = 0; p < n; p++) {
            tsync__part_collector_free(c[p]);
            tsync__graph_free(&g[p]);
            free(sp[p].out);
            tsync__coll_whole_free(whole[p]);
            free(part[p].held);
        }
        free(all);
        free(margins);
        free(keyed);
    }
    tsync__graph_free(&serial.g);
    free(send);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roles),
        cmocka_unit_test(test_n_to_n_reduced),
        cmocka_unit_test(test_n_to_n_per_location),
        cmocka_unit_test(test_rooted),
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_prompt_exchanges),
        cmocka_unit_test(test_contradicting_offsets),
        cmocka_unit_test(test_sort_points),
        cmocka_unit_test(test_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
