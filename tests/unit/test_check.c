/* test_check.c - the clock condition report (src/check): counts on hand-made
 * traces, collective mapping of seed 002 section 4.1, a brute-force property
 * test of the counting (with and without a latency file), the --latency parser, the text and the JSON output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "tmpfile.h"
#include "report/report.h"
#include "tracesync/check.h"
#include "trace/trace.h"

/* ---- building traces by hand ------------------------------------------------------ */

#define RES 1000000000ull /* 1 tick = 1 ns: 0.3 us intra = 300 ticks, 1 us inter = 1000 */

static uint64_t add_event(tsync_trace *t, tsync_loc loc, tsync_time time, uint8_t kind);

/* A trace of n locations "rank i" (id i); location i runs on node node_of[i]. */
static tsync_trace *new_trace(uint32_t n, const uint32_t *node_of)
{
    tsync_trace *t = tsync__trace_alloc("t.otf2");
    uint32_t nn = 0;
    assert_non_null(t);
    t->timer_resolution = RES;
    for (uint32_t i = 0; i < n; i++)
        if (node_of[i] + 1 > nn)
            nn = node_of[i] + 1;
    t->n_locations = n;
    t->locations = calloc(n ? n : 1, sizeof(*t->locations));
    t->n_nodes = t->n_domains = nn;
    t->nodes = calloc(nn ? nn : 1, sizeof(*t->nodes));
    t->domains = calloc(nn ? nn : 1, sizeof(*t->domains));
    assert_true(t->locations && t->nodes && t->domains);
    for (uint32_t i = 0; i < nn; i++) {
        char name[32];
        snprintf(name, sizeof(name), "node%u", i);
        t->nodes[i].name = strdup(name);
        t->domains[i].name = strdup(name);
        t->domains[i].node = i;
    }
    for (uint32_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "rank %u", i);
        t->locations[i].ref = i;
        t->locations[i].name = strdup(name);
        t->locations[i].rank = i;
        t->locations[i].node = t->locations[i].domain = node_of[i];
    }
    /* Every location gets a first event: tsync_timeline_new memcpy's from a NULL
     * time array otherwise (reported, not ours to change). */
    for (uint32_t i = 0; i < n; i++)
        add_event(t, i, 0, TSYNC_EV_OTHER);
    return t;
}

/* Appends an event to a location; returns its index. */
static uint64_t add_event(tsync_trace *t, tsync_loc loc, tsync_time time, uint8_t kind)
{
    struct tsync_location *l = &t->locations[loc];
    l->time = realloc(l->time, (l->n_events + 1) * sizeof(*l->time));
    l->kind = realloc(l->kind, (l->n_events + 1) * sizeof(*l->kind));
    assert_true(l->time && l->kind);
    l->time[l->n_events] = time;
    l->kind[l->n_events] = kind;
    return l->n_events++;
}

static void add_msg(tsync_trace *t, tsync_loc s, tsync_time ts, tsync_loc r, tsync_time tr)
{
    struct tsync_message m;
    m.send_loc = s;
    m.recv_loc = r;
    m.send_idx = add_event(t, s, ts, TSYNC_EV_SEND);
    m.recv_idx = add_event(t, r, tr, TSYNC_EV_RECV);
    t->messages = realloc(t->messages, (t->n_messages + 1) * sizeof(*t->messages));
    assert_non_null(t->messages);
    t->messages[t->n_messages++] = m;
}

/* One member of a collective as a test writes it. */
struct mspec {
    tsync_loc loc;
    tsync_time begin, end;
    int sends, recvs;
};

/* Adds a collective instance; member i has comm rank i. */
static void add_coll(tsync_trace *t, enum tsync_coll_class cls, uint32_t root, uint32_t n,
                     const struct mspec *ms)
{
    struct tsync_collective c;
    memset(&c, 0, sizeof(c));
    c.cls = (uint8_t)cls;
    c.root = root;
    c.n_members = n;
    c.first_member = t->n_members;
    t->members = realloc(t->members, (t->n_members + n) * sizeof(*t->members));
    t->collectives = realloc(t->collectives, (t->n_collectives + 1) * sizeof(*t->collectives));
    assert_true(t->members && t->collectives);
    for (uint32_t i = 0; i < n; i++) {
        struct tsync_coll_member *m = &t->members[t->n_members + i];
        m->loc = ms[i].loc;
        m->comm_rank = i;
        m->begin_idx = add_event(t, ms[i].loc, ms[i].begin, TSYNC_EV_COLL_BEGIN);
        m->end_idx = add_event(t, ms[i].loc, ms[i].end, TSYNC_EV_COLL_END);
        m->sends = (uint8_t)ms[i].sends;
        m->recvs = (uint8_t)ms[i].recvs;
    }
    t->n_members += n;
    t->collectives[t->n_collectives++] = c;
}

/* Runs the check with the given options (NULL: defaults); asserts success. */
static tsync_check_report *run(const tsync_trace *t, const tsync_check_opts *o)
{
    tsync_timeline *tl = NULL;
    tsync_check_report *r = NULL;
    tsync_ctx *ctx = NULL;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    if (tsync_check_run(&r, t, tl, o, ctx) != 0)
        fail_msg("tsync_check_run: %s", tsync_ctx_error(ctx));
    tsync_timeline_free(tl);
    tsync_ctx_free(ctx);
    return r;
}

static void assert_close(double a, double b)
{
    if (!(fabs(a - b) <= 1e-12 * fabs(b) + 1e-18))
        fail_msg("%.17g != %.17g", a, b);
}

static const uint32_t NODES_2x2[] = { 0, 0, 1, 1 };  /* ranks 0,1 on node0; 2,3 on node1 */
static const uint32_t NODES_ALL[] = { 0, 1, 2, 3 };  /* every rank on its own node */

/* ---- point-to-point -------------------------------------------------------------- */

static void test_p2p_reversed(void **state)
{
    tsync_trace *t = new_trace(2, NODES_ALL);
    tsync_check_report *r;
    (void)state;
    add_msg(t, 0, 10000, 1, 9000); /* received 1 us before it was sent */
    r = run(t, NULL);
    assert_int_equal(r->messages, 1);
    assert_int_equal(r->logical_messages, 0);
    assert_int_equal(r->reversed, 1);
    assert_int_equal(r->violations, 1);
    assert_int_equal(r->p2p.reversed, 1);
    assert_int_equal(r->collective.messages, 0);
    assert_close(r->displacement_avg_s, 1e-6);
    assert_close(r->displacement_max_s, 1e-6);
    assert_false(tsync_check_report_consistent(r));
    assert_int_equal(r->n_worst_pairs, 1);
    assert_int_equal(r->worst_pairs[0].send_loc, 0);
    assert_int_equal(r->worst_pairs[0].recv_loc, 1);
    assert_int_equal(r->worst_pairs[0].violations, 1);
    assert_close(r->worst_pairs[0].displacement_max_s, 1e-6);
    assert_int_equal(r->latency_intra_ticks, 300);
    assert_int_equal(r->latency_inter_ticks, 1000);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

/* In order but sooner than the minimum latency: a violation, not reversed. Exactly
 * the minimum latency is fine (Eq. 2 allows equality). */
static void test_p2p_within_latency(void **state)
{
    tsync_trace *t = new_trace(2, NODES_ALL);
    tsync_check_report *r;
    (void)state;
    add_msg(t, 0, 10000, 1, 10500); /* 0.5 us < 1 us inter-node */
    add_msg(t, 0, 20000, 1, 21000); /* exactly 1 us: consistent */
    add_msg(t, 1, 30000, 0, 30999); /* 1 tick short */
    r = run(t, NULL);
    assert_int_equal(r->messages, 3);
    assert_int_equal(r->reversed, 0);
    assert_int_equal(r->violations, 2);
    assert_close(r->displacement_avg_s, 0);
    assert_close(r->displacement_max_s, 0);
    assert_int_equal(r->n_worst_pairs, 2);
    /* Worst first: 0 -> 1 (displacement -500 ticks) before 1 -> 0 (-999). */
    assert_int_equal(r->worst_pairs[0].send_loc, 0);
    assert_close(r->worst_pairs[0].displacement_max_s, -500e-9);
    assert_int_equal(r->worst_pairs[1].send_loc, 1);
    assert_close(r->worst_pairs[1].displacement_max_s, -999e-9);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

static void test_intra_vs_inter(void **state)
{
    tsync_trace *t = new_trace(4, NODES_2x2);
    tsync_check_opts o = TSYNC_CHECK_OPTS_INIT;
    tsync_check_report *r;
    (void)state;
    add_msg(t, 0, 1000, 1, 1500); /* same node, 500 ns >= 300 ns: fine */
    add_msg(t, 0, 1000, 2, 1500); /* other node, 500 ns < 1 us: violation */
    add_msg(t, 3, 1000, 2, 1299); /* same node, 299 ns < 300 ns: violation */
    r = run(t, NULL);
    assert_int_equal(r->violations, 2);
    assert_int_equal(r->reversed, 0);
    tsync_check_report_free(r);

    o.latency_intra_s = 0; /* latency 0 checks the order only */
    o.latency_inter_s = 0;
    r = run(t, &o);
    assert_int_equal(r->violations, 0);
    assert_true(tsync_check_report_consistent(r));
    tsync_check_report_free(r);

    o.latency_intra_s = 0.6e-6; /* now the first message violates too */
    o.latency_inter_s = 0.4e-6; /* ... and the second one does not */
    r = run(t, &o);
    assert_int_equal(r->violations, 2);
    assert_int_equal(r->latency_intra_ticks, 600);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

/* ---- collectives (seed 002, section 4.1) ------------------------------------------- */

/* 1-to-N: S is the root's begin only, even when other members say they send. */
static void test_bcast(void **state)
{
    tsync_trace *t = new_trace(4, NODES_2x2);
    const struct mspec ms[] = {
        { 0, 100, 900, 1, 1 },   /* reversed by 100 ns, same node as the root: violation */
        { 1, 1000, 1100, 1, 1 }, /* root (comm rank 1): its own pair is left out */
        { 2, 200, 1500, 1, 1 },  /* other node, 500 ns after: violation, not reversed */
        { 3, 300, 2500, 1, 1 },  /* 1.5 us after: fine */
    };
    tsync_check_report *r;
    (void)state;
    add_coll(t, TSYNC_COLL_ONE_TO_N, 1, 4, ms);
    r = run(t, NULL);
    assert_int_equal(r->logical_messages, 3);
    assert_int_equal(r->reversed, 1);
    assert_int_equal(r->violations, 2);
    assert_int_equal(r->collective.violations, 2);
    assert_int_equal(r->p2p.messages, 0);
    assert_close(r->displacement_avg_s, 100e-9);
    assert_close(r->displacement_max_s, 100e-9);
    assert_int_equal(r->n_worst_pairs, 2);
    assert_int_equal(r->worst_pairs[0].send_loc, 1);
    assert_int_equal(r->worst_pairs[0].recv_loc, 0);
    assert_close(r->worst_pairs[0].displacement_max_s, 100e-9);
    assert_int_equal(r->worst_pairs[1].recv_loc, 2);
    assert_int_equal(r->worst_pairs[1].violations, 1);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

/* N-to-1: R is the root's end only; S the members that send. */
static void test_reduce(void **state)
{
    tsync_trace *t = new_trace(4, NODES_2x2);
    struct mspec ms[] = {
        { 0, 100, 4000, 1, 1 },  /* root; its own begin is left out */
        { 1, 5000, 5100, 1, 1 }, /* reversed by 1 us */
        { 2, 3000, 3100, 1, 1 }, /* exactly the 1 us inter-node latency before: fine */
        { 3, 6000, 6100, 1, 1 }, /* reversed by 2 us */
    };
    tsync_check_report *r;
    (void)state;
    add_coll(t, TSYNC_COLL_N_TO_ONE, 0, 4, ms);
    r = run(t, NULL);
    assert_int_equal(r->logical_messages, 3);
    assert_int_equal(r->reversed, 2);
    assert_int_equal(r->violations, 2);
    assert_close(r->displacement_avg_s, 1.5e-6);
    assert_close(r->displacement_max_s, 2e-6);
    assert_int_equal(r->worst_pairs[0].send_loc, 3);
    assert_close(r->worst_pairs[0].displacement_max_s, 2e-6);
    tsync_check_report_free(r);
    tsync_trace_free(t);

    /* Members without data (sends = 0) are no logical senders. */
    t = new_trace(4, NODES_2x2);
    ms[3].sends = 0;
    add_coll(t, TSYNC_COLL_N_TO_ONE, 0, 4, ms);
    r = run(t, NULL);
    assert_int_equal(r->logical_messages, 2);
    assert_int_equal(r->reversed, 1);
    assert_int_equal(r->violations, 1);
    assert_close(r->displacement_max_s, 1e-6);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

/* N-to-N: every sender to every receiver but itself. */
static void test_allreduce(void **state)
{
    static const uint32_t nodes[] = { 0, 0, 1 };
    tsync_trace *t = new_trace(3, nodes);
    const struct mspec ms[] = {
        { 0, 1000, 1500, 1, 1 },
        { 1, 1200, 2100, 1, 1 },
        { 2, 2000, 2050, 1, 1 },
    };
    tsync_check_report *r;
    (void)state;
    /* 1->0: 1500 >= 1200 + 300 fine      2->0: reversed by 500, violation
     * 0->1: 2100 >= 1000 + 300 fine      2->1: 2100 < 2000 + 1000, violation
     * 0->2: 2050 >= 1000 + 1000 fine     1->2: 2050 < 1200 + 1000, violation */
    add_coll(t, TSYNC_COLL_N_TO_N, TSYNC_NONE, 3, ms);
    r = run(t, NULL);
    assert_int_equal(r->logical_messages, 6);
    assert_int_equal(r->reversed, 1);
    assert_int_equal(r->violations, 3);
    assert_close(r->displacement_avg_s, 500e-9);
    assert_close(r->displacement_max_s, 500e-9);
    assert_int_equal(r->n_worst_pairs, 3);
    assert_int_equal(r->worst_pairs[0].send_loc, 2);
    assert_int_equal(r->worst_pairs[0].recv_loc, 0);
    assert_int_equal(r->worst_pairs[1].send_loc, 2);
    assert_int_equal(r->worst_pairs[1].recv_loc, 1);
    assert_close(r->worst_pairs[1].displacement_max_s, -100e-9);
    assert_int_equal(r->worst_pairs[2].send_loc, 1);
    assert_int_equal(r->worst_pairs[2].recv_loc, 2);
    assert_close(r->worst_pairs[2].displacement_max_s, -850e-9);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

/* An allgatherv-like N-to-N where one member only sends and one only receives,
 * and a collective without data flow. */
static void test_n_to_n_roles_and_none(void **state)
{
    tsync_trace *t = new_trace(4, NODES_ALL);
    const struct mspec ms[] = {
        { 0, 0, 5000, 1, 1 },
        { 1, 0, 5000, 1, 0 }, /* sends only */
        { 2, 0, 5000, 0, 1 }, /* receives only */
        { 3, 9000, 9100, 0, 0 },
    };
    tsync_check_report *r;
    (void)state;
    add_coll(t, TSYNC_COLL_N_TO_N, TSYNC_NONE, 4, ms);
    add_coll(t, TSYNC_COLL_NONE, TSYNC_NONE, 4, ms); /* ignored entirely */
    r = run(t, NULL);
    /* S = {0, 1}, R = {0, 2}: 0->2, 1->0, 1->2. */
    assert_int_equal(r->logical_messages, 3);
    assert_int_equal(r->violations, 0);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

/* Scan: rank i receives from ranks 0..i; exscan from 0..i-1. Without pairs on
 * one location both are the same set; N-to-N has all 12 pairs, and the direction
 * of the seed's misprinted formula (rank k sending to the ranks below it) would
 * count 3 -> 0 instead of 0 -> 3, 1 -> 3 and 2 -> 3. Every rank on its own node. */
static void test_scan_exscan(void **state)
{
    const struct mspec ms[] = {
        { 0, 0, 1000, 1, 1 },    /* 3 -> 0: 1000 < 400 + 1000 violates (N-to-N only) */
        { 1, 0, 20000, 1, 1 },
        { 2, 0, 20000, 1, 1 },
        { 3, 400, 500, 1, 1 },   /* 0, 1, 2 -> 3: 500 < 0 + 1000 violates */
    };
    enum tsync_coll_class cls[] = { TSYNC_COLL_SCAN, TSYNC_COLL_EXSCAN, TSYNC_COLL_N_TO_N };
    uint64_t logical[] = { 6, 6, 12 }, viol[] = { 3, 3, 4 };
    (void)state;
    for (int i = 0; i < 3; i++) {
        tsync_trace *t = new_trace(4, NODES_ALL);
        tsync_check_report *r;
        add_coll(t, cls[i], TSYNC_NONE, 4, ms);
        r = run(t, NULL);
        assert_int_equal(r->logical_messages, logical[i]);
        assert_int_equal(r->violations, viol[i]);
        assert_int_equal(r->reversed, 0);
        assert_int_equal(r->n_worst_pairs, viol[i]);
        assert_int_equal(r->worst_pairs[0].send_loc, 0); /* ties (-500) by location */
        assert_int_equal(r->worst_pairs[0].recv_loc, 3);
        if (cls[i] == TSYNC_COLL_N_TO_N) {
            assert_int_equal(r->worst_pairs[3].send_loc, 3); /* -600 */
            assert_close(r->worst_pairs[3].displacement_max_s, -600e-9);
        }
        tsync_check_report_free(r);
        tsync_trace_free(t);
    }
}

/* ---- property test: counting equals the S x R loop -------------------------------- */

/* A tiny deterministic generator (xorshift64*), so the seed reproduces the run. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static uint32_t rnd_below(uint32_t n) { return (uint32_t)(rnd() % n); }

struct bf_pair { uint64_t key, viol; int64_t max_d; };
struct brute {
    uint64_t msgs, rev, viol;
    int64_t disp_sum, disp_max;
    struct bf_pair *p;
    size_t np;
};

static void bf_pair(struct brute *b, tsync_loc s, tsync_loc r, int64_t d)
{
    uint64_t key = (uint64_t)s << 32 | r;
    for (size_t i = 0; i < b->np; i++) {
        if (b->p[i].key == key) {
            b->p[i].viol++;
            if (d > b->p[i].max_d)
                b->p[i].max_d = d;
            return;
        }
    }
    b->p = realloc(b->p, (b->np + 1) * sizeof(*b->p));
    assert_non_null(b->p);
    b->p[b->np].key = key;
    b->p[b->np].viol = 1;
    b->p[b->np].max_d = d;
    b->np++;
}

/* mu[from node * n_nodes + to node], ticks: the latencies and a latency file's pairs. */
static void bf_one(struct brute *b, const tsync_trace *t, tsync_loc s, tsync_time ts, tsync_loc r,
                   tsync_time tr, const int64_t *mu_of)
{
    int64_t mu = mu_of[t->locations[s].node * t->n_nodes + t->locations[r].node];
    b->msgs++;
    if (tr < ts) {
        b->rev++;
        b->disp_sum += ts - tr;
        if (ts - tr > b->disp_max)
            b->disp_max = ts - tr;
    }
    if (tr < ts + mu) {
        b->viol++;
        bf_pair(b, s, r, ts - tr);
    }
}

/* The definition of section 4.1, written out plainly: all of S x R. */
static void brute_force(struct brute *b, const tsync_trace *t, const int64_t *mu)
{
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        bf_one(b, t, m->send_loc, t->locations[m->send_loc].time[m->send_idx], m->recv_loc,
               t->locations[m->recv_loc].time[m->recv_idx], mu);
    }
    for (size_t q = 0; q < t->n_collectives; q++) {
        const struct tsync_collective *c = &t->collectives[q];
        const struct tsync_coll_member *m = &t->members[c->first_member];
        for (uint32_t si = 0; si < c->n_members; si++) {
            int in_s = c->cls == TSYNC_COLL_ONE_TO_N ? m[si].comm_rank == c->root : m[si].sends;
            if (c->cls == TSYNC_COLL_NONE || !in_s)
                continue;
            for (uint32_t ri = 0; ri < c->n_members; ri++) {
                int in_r = c->cls == TSYNC_COLL_N_TO_ONE ? m[ri].comm_rank == c->root : m[ri].recvs;
                if (!in_r || m[si].loc == m[ri].loc)
                    continue;
                if (c->cls == TSYNC_COLL_SCAN && m[si].comm_rank > m[ri].comm_rank)
                    continue;
                if (c->cls == TSYNC_COLL_EXSCAN && m[si].comm_rank >= m[ri].comm_rank)
                    continue;
                bf_one(b, t, m[si].loc, t->locations[m[si].loc].time[m[si].begin_idx], m[ri].loc,
                       t->locations[m[ri].loc].time[m[ri].end_idx], mu);
            }
        }
    }
}

static int bf_cmp(const void *pa, const void *pb)
{
    const struct bf_pair *a = pa, *b = pb;
    if (a->max_d != b->max_d)
        return a->max_d > b->max_d ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* A random trace: NLOC locations on a few nodes, random messages and collective
 * instances of every class with random roles; times in a narrow window so that
 * ties, both latencies and the own-location exclusion all matter. */
static tsync_trace *random_trace(uint32_t nloc, uint32_t nnodes, int ncoll, int nmsg, int span)
{
    uint32_t *nodes = malloc(nloc * sizeof(*nodes));
    tsync_loc *perm = malloc(nloc * sizeof(*perm));
    struct mspec *ms = malloc(nloc * sizeof(*ms));
    tsync_trace *t;
    assert_true(nodes && perm && ms);
    for (uint32_t i = 0; i < nloc; i++)
        nodes[i] = rnd_below(nnodes);
    nodes[0] = nnodes - 1; /* every node index up to nnodes - 1 exists */
    t = new_trace(nloc, nodes);
    for (int i = 0; i < nmsg; i++) {
        tsync_loc s = rnd_below(nloc), r = rnd_below(nloc);
        add_msg(t, s, rnd_below((uint32_t)span), r, rnd_below((uint32_t)span));
    }
    for (int q = 0; q < ncoll; q++) {
        uint32_t n = 1 + rnd_below(nloc);
        enum tsync_coll_class cls = (enum tsync_coll_class)rnd_below(TSYNC_COLL_NONE + 1);
        uint32_t root = rnd_below(n);
        for (uint32_t i = 0; i < nloc; i++)
            perm[i] = i;
        for (uint32_t i = 0; i < n; i++) { /* n distinct locations */
            uint32_t j = i + rnd_below(nloc - i);
            tsync_loc tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
            ms[i].loc = perm[i];
            ms[i].begin = rnd_below((uint32_t)span);
            ms[i].end = ms[i].begin + rnd_below((uint32_t)span);
            ms[i].sends = rnd_below(4) != 0;
            ms[i].recvs = rnd_below(4) != 0;
        }
        add_coll(t, cls, root, n, ms);
    }
    free(nodes);
    free(perm);
    free(ms);
    return t;
}

/* A latency file giving a random latency (0 to 2 us) to about half the pairs of
 * nodes, both directions, into mu too; its path (malloc'ed). */
static char *random_latency_file(const tsync_trace *t, int64_t *mu)
{
    char text[4096];
    size_t len = 0;
    text[0] = '\0';
    for (uint32_t a = 0; a < t->n_nodes; a++)
        for (uint32_t b = a; b < t->n_nodes; b++) {
            uint32_t ns = rnd_below(2001);
            if (rnd_below(2))
                continue;
            len += (size_t)snprintf(text + len, sizeof(text) - len, "node%u node%u %uns\n", a, b,
                                    ns);
            assert_true(len < sizeof(text));
            mu[a * t->n_nodes + b] = mu[b * t->n_nodes + a] = ns;
        }
    return tmp_write("check", "latency.txt", text);
}

static void test_property_brute_force(void **state)
{
    static const double lat[][2] = { { 0.3e-6, 1e-6 }, { 1e-6, 0.3e-6 }, { 0, 0 }, { 0.5e-6, 0.5e-6 } };
    uint64_t seed = 20090121;
    (void)state;
    printf("test_property_brute_force: seed %llu\n", (unsigned long long)seed);
    rng_state = seed;
    for (int round = 0; round < 300; round++) {
        static const int spans[] = { 3, 50, 1500, 5000 }; /* small spans: many ties */
        tsync_check_opts o = TSYNC_CHECK_OPTS_INIT;
        uint32_t nloc = 2 + rnd_below(40);
        tsync_trace *t = random_trace(nloc, 1 + rnd_below(5), 1 + (int)rnd_below(30),
                                      (int)rnd_below(50), spans[rnd_below(4)] * (1 + round % 3));
        struct brute b;
        tsync_check_report *r;
        int64_t *mu = malloc(t->n_nodes * t->n_nodes * sizeof(*mu));
        char *file = NULL;
        memset(&b, 0, sizeof(b));
        assert_non_null(mu);
        o.latency_intra_s = lat[round % 4][0];
        o.latency_inter_s = lat[round % 4][1];
        o.worst_pairs = 1 + rnd_below(8);
        for (uint32_t i = 0; i < t->n_nodes * t->n_nodes; i++)
            mu[i] = llround((i / t->n_nodes == i % t->n_nodes ? o.latency_intra_s
                                                               : o.latency_inter_s) * RES);
        if (round % 3 == 2) /* every third round some pairs of nodes from a latency file */
            o.latency_file = file = random_latency_file(t, mu);
        r = run(t, &o);
        free(file);
        brute_force(&b, t, mu);
        free(mu);

        if (r->messages + r->logical_messages != b.msgs || r->reversed != b.rev ||
            r->violations != b.viol)
            fail_msg("round %d: messages %llu/%llu reversed %llu/%llu violations %llu/%llu", round,
                     (unsigned long long)(r->messages + r->logical_messages),
                     (unsigned long long)b.msgs, (unsigned long long)r->reversed,
                     (unsigned long long)b.rev, (unsigned long long)r->violations,
                     (unsigned long long)b.viol);
        assert_close(r->displacement_avg_s, b.rev ? (double)b.disp_sum / (double)b.rev / RES : 0);
        assert_close(r->displacement_max_s, (double)b.disp_max / RES);

        if (b.np)
            qsort(b.p, b.np, sizeof(*b.p), bf_cmp);
        assert_int_equal(r->n_worst_pairs, b.np < o.worst_pairs ? b.np : o.worst_pairs);
        for (uint32_t i = 0; i < r->n_worst_pairs; i++) {
            const tsync_check_pair *p = &r->worst_pairs[i];
            if (p->send_loc != (tsync_loc)(b.p[i].key >> 32) ||
                p->recv_loc != (tsync_loc)b.p[i].key || p->violations != b.p[i].viol)
                fail_msg("round %d: worst pair %u: %u->%u (%llu) where brute force has %u->%u (%llu)",
                         round, i, p->send_loc, p->recv_loc, (unsigned long long)p->violations,
                         (tsync_loc)(b.p[i].key >> 32), (tsync_loc)b.p[i].key,
                         (unsigned long long)b.p[i].viol);
            assert_close(p->displacement_max_s, (double)b.p[i].max_d / RES);
        }
        free(b.p);
        tsync_check_report_free(r);
        tsync_trace_free(t);
    }
}

/* ---- edges ------------------------------------------------------------------------- */

static void test_empty_trace(void **state)
{
    tsync_trace *t = new_trace(0, NULL);
    tsync_check_report *r;
    char *json;
    (void)state;
    r = run(t, NULL);
    assert_int_equal(r->locations, 0);
    assert_int_equal(r->messages + r->logical_messages + r->reversed + r->violations, 0);
    assert_int_equal(r->n_worst_pairs, 0);
    assert_true(tsync_check_report_consistent(r));
    json = tsync_check_report_json(r, t);
    assert_non_null(json);
    free(json);
    tsync_check_report_free(r);
    tsync_check_report_free(NULL);
    assert_false(tsync_check_report_consistent(NULL));
    tsync_trace_free(t);
}

static void test_bad_input(void **state)
{
    tsync_trace *t = new_trace(2, NODES_ALL);
    tsync_timeline *tl = NULL;
    tsync_check_report *r = NULL;
    tsync_check_opts o = TSYNC_CHECK_OPTS_INIT;
    tsync_ctx *ctx = NULL;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    add_msg(t, 0, 10, 1, 20);
    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    o.latency_inter_s = -1e-6;
    assert_int_equal(tsync_check_run(&r, t, tl, &o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "inter-node minimum latency"));
    o = (tsync_check_opts)TSYNC_CHECK_OPTS_INIT;
    o.version = 99;
    assert_int_equal(tsync_check_run(&r, t, tl, &o, ctx), TSYNC_EINVAL);
    t->messages[0].recv_idx = 7; /* no such event */
    assert_int_equal(tsync_check_run(&r, t, tl, NULL, ctx), TSYNC_EINVAL);
    assert_string_equal(tsync_ctx_error(ctx),
                        "t.otf2: check: message 0 refers to an event that does not exist");
    assert_null(r);
    tsync_timeline_free(tl);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

/* ---- --latency --------------------------------------------------------------------- */

static void test_parse_latency_good(void **state)
{
    tsync_check_opts o = TSYNC_CHECK_OPTS_INIT;
    (void)state;
    assert_close(o.latency_intra_s, 0.3e-6);
    assert_close(o.latency_inter_s, 1e-6);
    assert_int_equal(o.worst_pairs, 5);
    assert_int_equal(tsync_check_parse_latency(&o, "intra=1us,inter=4us", NULL), 0);
    assert_close(o.latency_intra_s, 1e-6);
    assert_close(o.latency_inter_s, 4e-6);
    assert_int_equal(tsync_check_parse_latency(&o, "inter=250ns", NULL), 0);
    assert_close(o.latency_intra_s, 1e-6); /* untouched */
    assert_close(o.latency_inter_s, 250e-9);
    assert_int_equal(tsync_check_parse_latency(&o, "inter=2s,intra=0.5ms", NULL), 0);
    assert_close(o.latency_intra_s, 0.5e-3);
    assert_close(o.latency_inter_s, 2.0);
    assert_int_equal(tsync_check_parse_latency(&o, "intra=0ns", NULL), 0);
    assert_close(o.latency_intra_s, 0);
    assert_int_equal(tsync_check_parse_latency(&o, "intra=1.5e3ns", NULL), 0);
    assert_close(o.latency_intra_s, 1.5e-6);
}

static void test_parse_latency_bad(void **state)
{
    static const struct { const char *spec, *msg; } bad[] = {
        { "inter=4xs", "--latency: unknown unit \"xs\" in \"inter=4xs\" (use ns, us, ms or s)" },
        { "intra=1", "--latency: missing unit in \"intra=1\" (use ns, us, ms or s)" },
        { "foo=1us", "--latency: unknown key \"foo\" in \"foo=1us\" (use intra or inter)" },
        { "intra", "--latency: expected key=value in \"intra\" (e.g. intra=1us,inter=4us)" },
        { "intra=-1us", "--latency: negative latency in \"intra=-1us\"" },
        { "intra=us", "--latency: expected a number in \"intra=us\"" },
        { "intra=1us,intra=2us", "--latency: \"intra\" given twice" },
        { "intra=1us,,inter=2us", "--latency: empty item in \"intra=1us,,inter=2us\"" },
        { "", "--latency: empty specification (e.g. intra=1us,inter=4us)" },
        { "inter=1e9s", "--latency: latency too large in \"inter=1e9s\"" },
    };
    tsync_ctx *ctx = NULL;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tsync_check_opts o = TSYNC_CHECK_OPTS_INIT;
        assert_int_equal(tsync_check_parse_latency(&o, bad[i].spec, ctx), TSYNC_EINVAL);
        assert_string_equal(tsync_ctx_error(ctx), bad[i].msg);
        assert_close(o.latency_intra_s, 0.3e-6); /* nothing changed */
        assert_close(o.latency_inter_s, 1e-6);
    }
    /* A good item before a bad one leaves the options as they were. */
    {
        tsync_check_opts o = TSYNC_CHECK_OPTS_INIT;
        assert_int_equal(tsync_check_parse_latency(&o, "intra=5us,inter=x", ctx), TSYNC_EINVAL);
        assert_close(o.latency_intra_s, 0.3e-6);
    }
    tsync_ctx_free(ctx);
}

/* ---- output ------------------------------------------------------------------------ */

/* A small inconsistent trace: a reversed message 2 -> 0 and an allreduce. */
static tsync_trace *sample_trace(void)
{
    static const uint32_t nodes[] = { 0, 0, 1 };
    tsync_trace *t = new_trace(3, nodes);
    const struct mspec ms[] = {
        { 0, 1000, 1500, 1, 1 },
        { 1, 1200, 2100, 1, 1 },
        { 2, 2000, 2050, 1, 1 },
    };
    add_coll(t, TSYNC_COLL_N_TO_N, TSYNC_NONE, 3, ms);
    add_msg(t, 2, 30000000, 0, 5000000); /* reversed by 25 ms */
    t->unmatched_sends = 2;
    return t;
}

static void test_json(void **state)
{
    static const char *keys[] = { "trace", "locations", "domains", "domain_rule", "timer_resolution",
                                  "messages", "logical_messages", "reversed", "violations",
                                  "displacement_avg_s", "displacement_max_s", "p2p", "collective",
                                  "worst_pairs", "unmatched", "latency_intra_s", "latency_inter_s",
                                  "consistent" };
    tsync_trace *t = sample_trace();
    tsync_check_report *r = run(t, NULL);
    char *text = tsync_check_report_json(r, t);
    json_error_t err;
    json_t *j, *p, *w;
    (void)state;
    assert_non_null(text);
    j = json_loads(text, 0, &err);
    if (!j)
        fail_msg("bad JSON: %s\n%s", err.text, text);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (!json_object_get(j, keys[i]))
            fail_msg("key %s missing in\n%s", keys[i], text);
    assert_int_equal(json_integer_value(json_object_get(j, "locations")), 3);
    assert_int_equal(json_integer_value(json_object_get(j, "messages")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "logical_messages")), 6);
    assert_int_equal(json_integer_value(json_object_get(j, "reversed")), 2);
    assert_int_equal(json_integer_value(json_object_get(j, "violations")), 4);
    assert_true(json_is_false(json_object_get(j, "consistent")));
    assert_string_equal(json_string_value(json_object_get(j, "domain_rule")), "node");
    assert_close(json_real_value(json_object_get(j, "displacement_max_s")), 25e-3);
    assert_close(json_real_value(json_object_get(j, "latency_inter_s")), 1e-6);
    p = json_object_get(j, "unmatched");
    assert_int_equal(json_integer_value(json_object_get(p, "sends")), 2);
    assert_int_equal(json_integer_value(json_object_get(p, "receives")), 0);
    p = json_object_get(j, "p2p");
    assert_int_equal(json_integer_value(json_object_get(p, "violations")), 1);
    p = json_object_get(j, "collective");
    assert_int_equal(json_integer_value(json_object_get(p, "messages")), 6);
    assert_int_equal(json_integer_value(json_object_get(p, "violations")), 3);
    w = json_object_get(j, "worst_pairs");
    assert_true(json_is_array(w));
    assert_int_equal(json_array_size(w), 3);
    p = json_array_get(w, 0);
    assert_int_equal(json_integer_value(json_object_get(p, "send_location")), 2);
    assert_int_equal(json_integer_value(json_object_get(p, "recv_location")), 0);
    assert_int_equal(json_integer_value(json_object_get(p, "violations")), 2);
    assert_close(json_real_value(json_object_get(p, "displacement_max_s")), 25e-3);
    json_decref(j);
    free(text);

    j = tsync__check_report_to_json(r, t); /* the embeddable form */
    assert_non_null(j);
    assert_true(json_is_object(json_object_get(j, "p2p")));
    json_decref(j);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

static void test_print(void **state)
{
    tsync_trace *t = sample_trace();
    tsync_check_report *r = run(t, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    (void)state;
    assert_non_null(f);
    tsync_check_report_print(r, t, f);
    fclose(f);
    printf("%s", buf);
    assert_non_null(strstr(buf, "check: t.otf2\n"));
    assert_non_null(strstr(buf, "  locations            3 (clock domains by node: 2)\n"));
    assert_non_null(strstr(buf, "  messages             1 point-to-point, 6 logical (collectives)\n"));
    assert_non_null(strstr(buf, "  reversed             2 (28.57 %): 1 point-to-point, 1 logical\n"));
    assert_non_null(strstr(buf, "  violations           4 (57.14 %) with minimum latency 300 ns "
                                "intra-node, 1 us inter-node\n"));
    assert_non_null(strstr(buf, "  displacement         avg 12.5 ms, max 25 ms (reversed messages)\n"));
    assert_non_null(strstr(buf, "  worst pairs          rank 2 (id 2) -> rank 0 (id 0): 2 violations, "
                                "max 25 ms\n"));
    assert_non_null(strstr(buf, "  unmatched            2 sends, 0 receives\n"));
    assert_non_null(strstr(buf, "  result               INCONSISTENT\n"));
    free(buf);
    tsync_check_report_free(r);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p2p_reversed),
        cmocka_unit_test(test_p2p_within_latency),
        cmocka_unit_test(test_intra_vs_inter),
        cmocka_unit_test(test_bcast),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_allreduce),
        cmocka_unit_test(test_n_to_n_roles_and_none),
        cmocka_unit_test(test_scan_exscan),
        cmocka_unit_test(test_property_brute_force),
        cmocka_unit_test(test_empty_trace),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_parse_latency_good),
        cmocka_unit_test(test_parse_latency_bad),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
