/* collective.c - the message term of Eq. 4'a for collective operations, and the
 * limits of collective sends in backward amortization (seed 002, sections 4.1,
 * 4.2 and Table 2), in O(members) per instance instead of O(|S| x |R|).
 *
 * Forward, a receiving member i gets max over its sends k of LC'(begin_k) +
 * mu(node_k, node_i), leaving out sends on i's own location. With one latency
 * within a node and one between nodes this needs, per instance, the best send of
 * each node (and the best from another location of that node) and the best two
 * nodes: then i's bound is max(best of i's node from another location + mu_intra,
 * best of the other nodes + mu_inter), O(1) per receive. With a per node pair
 * latency table every node with a send is visited per receive (O(R x nodes)).
 *
 * Backward, a sending member k gets min over its receives i of LC'(end_i) -
 * mu(node_k, node_i) = -max(-LC'(end_i) + mu): the same computation with the
 * roles swapped and the values negated.
 *
 * Scan and exscan deliver to ranks at or above (scan) or above (exscan) the
 * sender, so the same structure is filled rank by rank while the receives are
 * asked in between: a running maximum over ranks 0..i (Table 2: "max (some
 * enters)"); backward it runs from the highest rank down (the reversed
 * communicator of Table 2: "min (some exits)").
 *
 * In a replay a process holds only its own members of an instance: the structure
 * holds theirs, and each bound takes the larger of its answer and what the members
 * held elsewhere gave (racc, replay.c): the maximum over all of them.
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"

int tsync__clc_agg_init(struct clc_agg *a, uint32_t n_nodes)
{
    size_t n = n_nodes ? n_nodes : 1;
    memset(a, 0, sizeof(*a));
    a->stamp = calloc(n, sizeof(*a->stamp));
    a->b1 = malloc(n * sizeof(*a->b1));
    a->b2 = malloc(n * sizeof(*a->b2));
    a->b1_loc = malloc(n * sizeof(*a->b1_loc));
    a->touched = malloc(n * sizeof(*a->touched));
    if (!a->stamp || !a->b1 || !a->b2 || !a->b1_loc || !a->touched) {
        tsync__clc_agg_free(a);
        return -1;
    }
    return 0;
}

void tsync__clc_agg_free(struct clc_agg *a)
{
    free(a->stamp);
    free(a->b1);
    free(a->b2);
    free(a->b1_loc);
    free(a->touched);
    memset(a, 0, sizeof(*a));
}

static void agg_clear(struct clc_agg *a)
{
    a->epoch++;
    a->n_touched = 0;
    a->top1 = a->top2 = CLC_NONE;
    a->top1_node = UINT32_MAX;
}

/* Adds value v of a source on `loc`, node `node`. */
static void agg_add(struct clc_agg *a, uint32_t node, tsync_loc loc, int64_t v)
{
    int64_t old = CLC_NONE;
    if (a->stamp[node] != a->epoch) {
        a->stamp[node] = a->epoch;
        a->b1[node] = v;
        a->b1_loc[node] = loc;
        a->b2[node] = CLC_NONE;
        a->touched[a->n_touched++] = node;
    } else {
        old = a->b1[node];
        if (loc == a->b1_loc[node]) {
            if (v > old)
                a->b1[node] = v;
        } else if (v > old) {           /* the old best is from another location */
            a->b2[node] = old;
            a->b1[node] = v;
            a->b1_loc[node] = loc;
        } else if (v > a->b2[node]) {
            a->b2[node] = v;
        }
    }
    v = a->b1[node];
    if (v == old)
        return;
    if (node == a->top1_node) {
        a->top1 = v;
    } else if (v > a->top1) {           /* the old top node is another node */
        a->top2 = a->top1;
        a->top1 = v;
        a->top1_node = node;
    } else if (v > a->top2) {
        a->top2 = v;
    }
}

/* max over the sources added, except those on `loc`, of value + mu; the message
 * goes source -> target forward and target -> source backward. */
static int64_t agg_query(const struct clc_agg *a, const struct tsync__latency *lat, uint32_t node,
                         tsync_loc loc, int backward)
{
    int64_t best = CLC_NONE, v;
    if (a->stamp[node] == a->epoch) {
        v = a->b1_loc[node] != loc ? a->b1[node] : a->b2[node];
        if (v != CLC_NONE)
            best = v + tsync__latency_mu(lat, node, node);
    }
    if (!lat->n) {
        v = a->top1_node != node ? a->top1 : a->top2;
        if (v != CLC_NONE && v + lat->inter > best)
            best = v + lat->inter;
        return best;
    }
    for (size_t k = 0; k < a->n_touched; k++) {
        uint32_t g = a->touched[k];
        if (g == node)
            continue;
        v = a->b1[g] + (backward ? tsync__latency_mu(lat, node, g) : tsync__latency_mu(lat, g, node));
        if (v > best)
            best = v;
    }
    return best;
}

/* Adds the sources among members [b, e) of the instance starting at member f. */
static void add_range(struct clc *c, size_t f, uint32_t b, uint32_t e, int backward)
{
    const struct tsync_trace *t = c->t;
    unsigned want = backward ? CLC_RECV : CLC_SEND;
    for (uint32_t i = b; i < e; i++) {
        const struct tsync_coll_member *m = &t->members[f + i];
        if (c->role[f + i] & want)
            agg_add(&c->agg, t->locations[m->loc].node, m->loc,
                    backward ? -clc_member_lc(c, f + i, 1) : clc_member_lc(c, f + i, 0));
    }
}

/* Sets the bounds of the targets among members [b, e). */
static void query_range(struct clc *c, size_t f, uint32_t b, uint32_t e, int backward)
{
    const struct tsync_trace *t = c->t;
    unsigned want = backward ? CLC_SEND : CLC_RECV;
    for (uint32_t i = b; i < e; i++) {
        const struct tsync_coll_member *m = &t->members[f + i];
        int64_t v;
        if (!(c->role[f + i] & want))
            continue;
        v = agg_query(&c->agg, &c->lat, t->locations[m->loc].node, m->loc, backward);
        if (c->racc && c->racc[f + i] > v)    /* the members held elsewhere (replay.c) */
            v = c->racc[f + i];
        if (backward)
            v = v == CLC_NONE ? INT64_MAX : -v;
        c->bound[f + i] = v;
    }
}

void tsync__clc_coll_bounds(struct clc *c, size_t q, int backward)
{
    const struct tsync_collective *co = &c->t->collectives[q];
    const struct tsync_coll_member *m = &c->t->members[co->first_member];
    size_t f = co->first_member;
    uint32_t n = co->n_members;
    int inclusive = co->cls == TSYNC_COLL_SCAN;

    agg_clear(&c->agg);
    if (co->cls != TSYNC_COLL_SCAN && co->cls != TSYNC_COLL_EXSCAN) {
        add_range(c, f, 0, n, backward);
        query_range(c, f, 0, n, backward);
        return;
    }
    /* Runs of one comm rank (members are sorted by it), from rank 0 up forward,
     * from the top down backward; within a run, scan delivers to itself. */
    for (uint32_t k = 0; k < n;) {
        uint32_t b, e;
        if (!backward) {
            b = k;
            for (e = b + 1; e < n && m[e].comm_rank == m[b].comm_rank; e++)
                ;
        } else {
            e = n - k;
            for (b = e - 1; b > 0 && m[b - 1].comm_rank == m[e - 1].comm_rank; b--)
                ;
        }
        if (inclusive)
            add_range(c, f, b, e, backward);
        query_range(c, f, b, e, backward);
        if (!inclusive)
            add_range(c, f, b, e, backward);
        k += e - b;
    }
}

int64_t tsync__clc_coll_bound_one(const struct clc *c, size_t q, size_t mi, const uint64_t *pos)
{
    const struct tsync_trace *t = c->t;
    const struct tsync_collective *co = &t->collectives[q];
    const struct tsync_coll_member *r = &t->members[mi];
    uint32_t rnode = t->locations[r->loc].node;
    int64_t best = CLC_NONE;
    for (uint32_t i = 0; i < co->n_members; i++) {
        size_t k = co->first_member + i;
        const struct tsync_coll_member *s = &t->members[k];
        int64_t v;
        if (!(c->role[k] & CLC_SEND) || s->loc == r->loc ||
            (co->cls == TSYNC_COLL_SCAN && s->comm_rank > r->comm_rank) ||
            (co->cls == TSYNC_COLL_EXSCAN && s->comm_rank >= r->comm_rank) ||
            (pos && pos[s->loc] <= s->begin_idx))
            continue;
        v = clc_member_lc(c, k, 0) + tsync__latency_mu(&c->lat, t->locations[s->loc].node, rnode);
        if (v > best)
            best = v;
    }
    if (c->racc && c->racc[mi] > best)
        best = c->racc[mi];
    return best;
}
