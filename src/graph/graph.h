/* graph.h (internal) - the graph of clock domains: estimated pairs as weighted
 * edges, components, references, and the composition of maps along paths.
 *
 *   domains.c     the graph: edges found by pair, adjacency, components
 *   reference.c   Dijkstra; the reference of each component: the trace's time base
 *                 (seed 000) or the smallest sum of path errors (seed 003, section 10)
 *   compose.c     piecewise-linear maps composed along shortest paths, bounds added
 *   global_lsq.c  weighted least squares over every edge (loops)
 */
#ifndef TSYNC_GRAPH_GRAPH_H
#define TSYNC_GRAPH_GRAPH_H

#include "estimate/estimator.h"

#define TSYNC__NONE UINT32_MAX

/* Dijkstra's weight of an edge without a two-sided bound: such edges are used only
 * where nothing better connects (seconds). */
#define TSYNC__FALLBACK_WEIGHT 1e6

/* An edge: the samples and the estimate of one pair of domains, lo < hi, estimated
 * with lo's clock as x. */
struct tsync__edge {
    uint32_t lo, hi;
    struct tsync__pair_samples s;
    struct tsync__pair_fit fit;
    double weight;                 /* seconds; INFINITY when FALLBACK */
    enum tsync_bound_kind kind;    /* BOUNDED, or FALLBACK if any piece is */
    tsync_estimate_sources from;   /* what the samples came from */
    int in_tree;
};

/* Adjacency entry. */
struct tsync__adj {
    uint32_t to;
    uint32_t edge;
};

struct tsync__graph {
    uint32_t n_domains;
    size_t n_edges, cap_edges;
    struct tsync__edge *e;
    size_t slots;                  /* pair index: open addressing, power of two */
    uint32_t *slot;                /* edge index + 1, 0 = free */
    size_t *adj_start;             /* n_domains + 1, after tsync__graph_link */
    struct tsync__adj *adj;
    uint32_t n_comp;
    uint32_t *comp;                /* component of each domain */
};

/* An empty graph of n domains. 0 or TSYNC_ENOMEM. */
int tsync__graph_init(struct tsync__graph *g, uint32_t n_domains);
/* Frees the graph with every edge's samples and fit. */
void tsync__graph_free(struct tsync__graph *g);
/* The edge of the pair {a, b} (a != b), created empty if new; *idx is its index
 * (stable until tsync__graph_link). 0 or TSYNC_ENOMEM. */
int tsync__graph_edge(struct tsync__graph *g, uint32_t a, uint32_t b, size_t *idx);
/* Sorts the edges by (lo, hi), builds the adjacency and the components.
 * 0 or TSYNC_ENOMEM. */
int tsync__graph_link(struct tsync__graph *g);
/* Dijkstra's weight of edge i. */
double tsync__edge_weight(const struct tsync__edge *e);

/* Shortest paths from `src` within its component: dist (seconds, INFINITY if
 * unreachable), the edge to each domain's parent (TSYNC__NONE for src and the
 * unreachable), and the order in which domains were settled (parents first;
 * *n_order of them). Arrays of n_domains. 0 or TSYNC_ENOMEM. */
int tsync__shortest_paths(const struct tsync__graph *g, uint32_t src, double *dist,
                          uint32_t *parent_edge, uint32_t *order, uint32_t *n_order);

/* The reference of every component: `forced` (a domain, or TSYNC__NONE) for its
 * own component, `preferred` (a domain, or TSYNC__NONE) for its own unless forced
 * is there, and for every other the domain with the smallest sum of shortest-path
 * errors to the rest of its component, ties to the lowest index. comp_ref has
 * g->n_comp entries. 0 or TSYNC_ENOMEM. */
int tsync__choose_references(const struct tsync__graph *g, uint32_t forced, uint32_t preferred,
                             uint32_t *comp_ref);

struct tsync_trace;
/* The location whose clock is the trace's own global time base (seed 000: the
 * master's clock becomes the global clock): the one the ClockOffset records refer
 * to, which records offset 0 for itself (Score-P measures against rank 0 and writes
 * 0 for it), else MPI rank 0. *by_offsets is 1 when the trace has ClockOffset records
 * and they agree (the location's own records, if any, are all 0). *loc is
 * TSYNC__NONE when the trace has neither (a CSV of messages). 0 or TSYNC_ENOMEM. */
int tsync__time_base_location(const struct tsync_trace *t, uint32_t *loc, int *by_offsets);

/* ---- piecewise-linear functions (compose.c) ---------------------------------------- */

/* f(x) by linear interpolation, the end segments' slopes outside (slope 1 for a
 * single point). */
long double tsync__pwl_eval(const struct tsync__pwl *f, long double x);
/* The bound at x: linear between points, the end values outside. */
double tsync__pwl_bound(const struct tsync__pwl *f, long double x);
/* The identity over [from, to], bound 0. 0 or TSYNC_ENOMEM. */
int tsync__pwl_identity(struct tsync__pwl *out, tsync_time from, tsync_time to);
/* out = g o h, on the points of h and the points of h^-1 (points of g); bound
 * bound_g(h(x)) + slope_g * bound_h(x) + 1 tick of rounding. 0 or TSYNC_ENOMEM. */
int tsync__pwl_compose(struct tsync__pwl *out, const struct tsync__pwl *g,
                       const struct tsync__pwl *h);

/* What the composition of a forest of shortest paths needs per domain. */
struct tsync__tree {
    uint32_t n;                    /* domains */
    const uint32_t *order;         /* all domains, parents before children */
    const uint32_t *parent;        /* TSYNC__NONE for roots (references, isolated) */
    const struct tsync__pair_fit *const *up;  /* per child: its clock as x, parent's as y */
    const tsync_time *ev_first;    /* per domain: first and last event time, */
    const tsync_time *ev_last;     /* ev_first > ev_last when it has none */
};

/* One map per domain onto its root's clock: the identity for roots, the parent's
 * map composed with the pair's function for the others. Each map covers the
 * domain's events and every time its children map into it. maps[] has t->n
 * entries. 0 or TSYNC_ENOMEM (maps freed). */
int tsync__compose_tree(struct tsync__pwl *maps, const struct tsync__tree *t);

/* ---- busy periods (epochs.c) ---------------------------------------------------------- */

/* A busy period: reference time [from, to] and the events in it. */
struct tsync__epoch {
    tsync_time from, to;
    uint64_t events;
};

struct tsync__epochs {
    size_t n, cap;
    struct tsync__epoch *v;      /* in order of time */
};

/* x with f(x) = y for a non-decreasing f (the end segments' slopes outside, or 1
 * where an end segment is a clock step; x itself when f is empty). */
tsync_time tsync__pwl_inverse(const struct tsync__pwl *f, tsync_time y);
/* The busy periods of trace t on the reference axis of `maps` (one per domain; an
 * empty map is the identity): intervals in which no location is idle for longer
 * than max_gap ticks. 0 or TSYNC_ENOMEM. */
int tsync__find_epochs(struct tsync__epochs *ep, const struct tsync_trace *t,
                       const struct tsync__pwl *maps, int64_t max_gap);
void tsync__epochs_free(struct tsync__epochs *ep);

/* ---- global least squares (global_lsq.c) ------------------------------------------- */

/* Corrects the maps of every non-reference domain by a line in reference time,
 * delta_d + eps_d (u - center), chosen by weighted least squares so that every
 * bounded edge's estimate agrees with the two maps at the ends of its pieces and of
 * its lower domain's events (weights: 1 / half the width of the pair's range
 * there, squared). Bounds grow by the size of the correction. 0 or TSYNC_ENOMEM. */
int tsync__global_lsq(struct tsync__pwl *maps, const struct tsync__graph *g,
                      const uint32_t *comp_ref, const tsync_time *ev_first,
                      const tsync_time *ev_last);

#endif
