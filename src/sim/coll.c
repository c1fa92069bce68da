/* coll.c - simulated MPI collective operations on MPI_COMM_WORLD.
 *
 * Every member enters the operation's region, writes MpiCollectiveBegin, and
 * later MpiCollectiveEnd and leaves. When a member may end follows the data flow of
 * its class, as tsync_check_run reads it (seed 002, section 4.1; check.c):
 *
 *   N-to-N  (barrier, allreduce, allgather, alltoall): every member ends after
 *           every other member's begin plus the latency between them;
 *   1-to-N  (bcast, scatter): every member ends after the root's begin plus latency;
 *   N-to-1  (gather, reduce): the root ends after every member's begin plus latency;
 *           the others end as soon as their data is out;
 *   scan / exscan: member i ends after the begins of members 0 .. i-1 plus latency.
 *
 * On top of the latest such arrival come ceil(log2 N) tree levels of coll_step_s
 * (a binomial tree, as most MPI libraries use) and one random network excess per
 * member. Latencies are the network's floors (minimum plus node delays, network.c)
 * rounded up to whole ticks, so the truth never violates the clock condition.
 *
 * The latest begin "plus the latency between them" over N members would cost N^2
 * for N-to-N. Latency depends only on the two nodes: min_intra within a node, and
 * min_inter + send(a) + recv(b) across, so it is enough to know, per node, the two
 * latest begins (to leave out the member itself) and, over nodes, the two largest
 * values of "latest begin + send(node)" (to leave out the member's own node).
 */
#include <stdlib.h>

#include <otf2/otf2.h>

#include "sim/sim.h"
#include "util/ctx.h"

enum coll_class { N_TO_N, ONE_TO_N, N_TO_ONE, SCAN, EXSCAN };

static const struct coll_def {
    uint32_t bit;
    const char *region;
    OTF2_CollectiveOp op;
    enum coll_class cls;
} defs[] = {
    { TSYNC_SIM_BARRIER, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, N_TO_N },
    { TSYNC_SIM_BCAST, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, ONE_TO_N },
    { TSYNC_SIM_SCATTER, "MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER, ONE_TO_N },
    { TSYNC_SIM_GATHER, "MPI_Gather", OTF2_COLLECTIVE_OP_GATHER, N_TO_ONE },
    { TSYNC_SIM_REDUCE, "MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE, N_TO_ONE },
    { TSYNC_SIM_ALLREDUCE, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, N_TO_N },
    { TSYNC_SIM_ALLGATHER, "MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, N_TO_N },
    { TSYNC_SIM_ALLTOALL, "MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, N_TO_N },
    { TSYNC_SIM_SCAN, "MPI_Scan", OTF2_COLLECTIVE_OP_SCAN, SCAN },
    { TSYNC_SIM_EXSCAN, "MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN, EXSCAN },
};

#define NONE INT64_MIN

/* The two latest begins on one node. */
struct dep_node {
    int64_t v1, v2;
    uint32_t r1;
};

struct scratch {
    int64_t *b, *e;             /* per rank: begin record, end record */
    struct dep_node *node;      /* per node */
    int64_t *send_t, *recv_t;   /* per node delays, ticks (rounded up) */
    int64_t intra, inter;       /* minimum latencies, ticks (rounded up) */
    int64_t g1, g2;             /* two largest v1 + send over nodes ... */
    uint32_t n1;                /* ... and the node of the largest */
};

static struct scratch *scratch_of(struct tsync_sim *s)
{
    struct scratch *x = s->coll_scratch;
    uint32_t n = s->n_ranks, m = s->n_nodes;
    if (x)
        return x;
    x = calloc(1, sizeof(*x));
    if (!x || !(x->b = calloc(n, sizeof(*x->b))) || !(x->e = calloc(n, sizeof(*x->e))) ||
        !(x->node = calloc(m, sizeof(*x->node))) || !(x->send_t = calloc(m, sizeof(*x->send_t))) ||
        !(x->recv_t = calloc(m, sizeof(*x->recv_t)))) {
        s->coll_scratch = x;
        tsync__coll_free(s);
        s->rc = tsync__oom(s->ctx);
        return NULL;
    }
    for (uint32_t k = 0; k < m; k++) {
        x->send_t[k] = tsync__net_ticks(&s->net, s->net.send_s[k]);
        x->recv_t[k] = tsync__net_ticks(&s->net, s->net.recv_s[k]);
    }
    x->intra = tsync__net_ticks(&s->net, s->net.p.latency_intra_s);
    x->inter = tsync__net_ticks(&s->net, s->net.p.latency_inter_s);
    s->coll_scratch = x;
    s->coll_scratch_bytes = sizeof(*x) + n * 2 * sizeof(int64_t) +
                            m * (sizeof(struct dep_node) + 2 * sizeof(int64_t));
    return x;
}

void tsync__coll_free(struct tsync_sim *s)
{
    struct scratch *x = s->coll_scratch;
    if (!x)
        return;
    free(x->b);
    free(x->e);
    free(x->node);
    free(x->send_t);
    free(x->recv_t);
    free(x);
    s->coll_scratch = NULL;
}

/* ---- the latest arrival over a set of senders ----------------------------- */

static void deps_clear(struct tsync_sim *s, struct scratch *x)
{
    for (uint32_t k = 0; k < s->n_nodes; k++)
        x->node[k].v1 = x->node[k].v2 = NONE;
    x->g1 = x->g2 = NONE;
    x->n1 = UINT32_MAX;
}

/* Adds rank r, begun at b, to the senders. */
static void deps_add(struct tsync_sim *s, struct scratch *x, uint32_t r, int64_t b)
{
    uint32_t k = s->rank_node[r];
    struct dep_node *d = &x->node[k];
    int64_t w;
    if (b > d->v1) {
        d->v2 = d->v1;
        d->v1 = b;
        d->r1 = r;
    } else if (b > d->v2) {
        d->v2 = b;
    }
    /* Node values only grow: keep the two largest over distinct nodes. */
    w = d->v1 + x->send_t[k];
    if (k == x->n1) {
        x->g1 = w;
    } else if (w > x->g1) {
        x->g2 = x->g1;
        x->g1 = w;
        x->n1 = k;
    } else if (w > x->g2) {
        x->g2 = w;
    }
}

/* The latest arrival at rank r from the senders other than r; NONE if none. */
static int64_t deps_arrival(struct tsync_sim *s, const struct scratch *x, uint32_t r)
{
    uint32_t k = s->rank_node[r];
    const struct dep_node *d = &x->node[k];
    int64_t intra = d->r1 == r && d->v1 != NONE ? d->v2 : d->v1;
    int64_t inter = k == x->n1 ? x->g2 : x->g1, a = NONE;
    if (intra != NONE)
        a = intra + x->intra;
    if (inter != NONE && inter + x->inter + x->recv_t[k] > a)
        a = inter + x->inter + x->recv_t[k];
    return a;
}

/* ---- one operation --------------------------------------------------------- */

static void sizes(const struct coll_def *d, uint32_t r, uint32_t root, uint32_t n, uint64_t B,
                  uint64_t *sent, uint64_t *recvd)
{
    int is_root = r == root;
    *sent = *recvd = 0;
    switch (d->bit) {
    case TSYNC_SIM_BARRIER: break;
    case TSYNC_SIM_BCAST: *sent = is_root ? B * (n - 1) : 0; *recvd = is_root ? 0 : B; break;
    case TSYNC_SIM_SCATTER: *sent = is_root ? B * n : 0; *recvd = B; break;
    case TSYNC_SIM_GATHER: *sent = B; *recvd = is_root ? B * n : 0; break;
    case TSYNC_SIM_REDUCE: *sent = B; *recvd = is_root ? B : 0; break;
    case TSYNC_SIM_ALLGATHER: *sent = B; *recvd = B * n; break;
    case TSYNC_SIM_ALLTOALL: *sent = *recvd = B * n; break;
    case TSYNC_SIM_EXSCAN: *sent = B; *recvd = r == 0 ? 0 : B; break;
    default: *sent = *recvd = B; break; /* allreduce, scan */
    }
}

/* When rank r may end, given the latest arrival it depends on (NONE: none). */
static int64_t end_after(struct tsync_sim *s, struct scratch *x, uint32_t r, int64_t arrival,
                         int64_t tree)
{
    int64_t e = x->b[r] + s->overhead;
    if (arrival != NONE) {
        double excess = tsync__net_excess_class_s(&s->net, s->n_nodes > 1);
        int64_t a = arrival + tree + tsync__net_ticks(&s->net, excess);
        if (a > e)
            e = a;
    }
    return e;
}

int tsync__coll_run(struct tsync_sim *s, uint32_t which, uint32_t root)
{
    const struct coll_def *d = NULL;
    struct scratch *x;
    uint32_t n = s->n_ranks, depth = 0;
    int64_t step, tree;

    for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
        if (defs[i].bit == which)
            d = &defs[i];
    if (!d)
        return s->rc = tsync__fail(s->ctx, TSYNC_EINVAL, "simulator: unknown collective %#x", which);
    if (s->rc || !(x = scratch_of(s)))
        return s->rc;
    while (depth < 32 && (1u << depth) < n)
        depth++;
    step = tsync__sim_ticks(s, s->o->app.coll_step_s);
    tree = (int64_t)depth * step;

    for (uint32_t r = 0; r < n; r++) {
        int64_t t = tsync__sim_enter(s, r, s->now[r], d->region);
        x->b[r] = tsync__sim_coll_begin(s, r, t + s->overhead);
    }
    switch (d->cls) {
    case N_TO_N:
        deps_clear(s, x);
        for (uint32_t r = 0; r < n; r++)
            deps_add(s, x, r, x->b[r]);
        for (uint32_t r = 0; r < n; r++)
            x->e[r] = end_after(s, x, r, deps_arrival(s, x, r), tree);
        break;
    case ONE_TO_N:
        for (uint32_t r = 0; r < n; r++) {
            uint32_t a = s->rank_node[root], b = s->rank_node[r];
            int64_t lat = a == b ? x->intra : x->inter + x->send_t[a] + x->recv_t[b];
            x->e[r] = r == root ? x->b[r] + s->overhead + tree
                                : end_after(s, x, r, x->b[root] + lat, tree);
        }
        break;
    case N_TO_ONE:
        deps_clear(s, x);
        for (uint32_t r = 0; r < n; r++) {
            deps_add(s, x, r, x->b[r]);
            x->e[r] = x->b[r] + s->overhead + step;
        }
        x->e[root] = end_after(s, x, root, deps_arrival(s, x, root), tree);
        break;
    case SCAN:
    case EXSCAN:
        deps_clear(s, x);
        for (uint32_t r = 0; r < n; r++) {
            x->e[r] = end_after(s, x, r, deps_arrival(s, x, r), tree);
            deps_add(s, x, r, x->b[r]);
        }
        break;
    }
    for (uint32_t r = 0; r < n; r++) {
        uint64_t sent, recvd;
        int rooted = d->cls == ONE_TO_N || d->cls == N_TO_ONE;
        int64_t t;
        sizes(d, r, root, n, s->o->app.message_bytes, &sent, &recvd);
        t = tsync__sim_coll_end(s, r, x->e[r], d->op, rooted ? root : OTF2_UNDEFINED_UINT32, sent,
                                recvd);
        tsync__sim_leave(s, r, t + s->overhead, d->region);
    }
    s->collectives++;
    s->coll_count++;
    return s->rc;
}
