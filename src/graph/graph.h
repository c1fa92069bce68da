/* graph.h (internal) - the graph of clock domains: estimated pairs as weighted
 * edges, components, references, and the composition of maps along paths.
 *
 *   domains.c     the graph: edges found by pair, adjacency, components
 *   reference.c   Dijkstra; the reference of each component: the trace's time base
 *                 (seed 000) or the smallest sum of path errors (seed 003, section 10)
 *   compose.c     piecewise-linear maps composed along shortest paths, bounds added
 *   epochs.c      busy periods on the reference's time axis
 *   global_lsq.c  weighted least squares over every edge (loops)
 *
 * The graph knows the pairs only through their weights, their functions (a
 * callback, struct tsync__tree) and their anchors (struct tsync__anchors): it
 * includes nothing of the estimators (src/estimate uses it, not the reverse).
 */
#ifndef TSYNC_GRAPH_GRAPH_H
#define TSYNC_GRAPH_GRAPH_H

#include <stdint.h>

#include "timemap/pwl.h"
#include "tracesync/estimate.h"

#define TSYNC__NONE UINT32_MAX

/* Dijkstra's weight of an edge without a two-sided bound: such edges are used only
 * where nothing better connects (seconds). */
#define TSYNC__FALLBACK_WEIGHT 1e6

/* An edge: a pair of domains, lo < hi, related by an estimate with lo's clock as
 * x. What the estimate keeps of the pair (its samples and fit) is the caller's,
 * behind `pair`; the graph knows only the weight and the kind. */
struct tsync__edge {
    uint32_t lo, hi;
    void *pair;                    /* the caller's, freed by the graph's free_pair */
    double weight;                 /* seconds; INFINITY when FALLBACK */
    enum tsync_bound_kind kind;    /* BOUNDED, or FALLBACK if any piece is */
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
    void (*free_pair)(void *pair); /* frees an edge's pair (NULL: nothing to free) */
};

/* An empty graph of n domains whose edges' pairs free_pair frees (NULL: the edges
 * own none). 0 or TSYNC_ENOMEM. */
int tsync__graph_init(struct tsync__graph *g, uint32_t n_domains, void (*free_pair)(void *pair));
/* Frees the graph with every edge's pair. */
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
struct tsync_message_list;
/* The location whose clock is the trace's own global time base (seed 000: the
 * master's clock becomes the global clock): the one the ClockOffset records refer
 * to, which records offset 0 for itself (Score-P measures against rank 0 and writes
 * 0 for it), else MPI rank 0. *by_offsets is 1 when the trace has ClockOffset records
 * and they agree (the location's own records, if any, are all 0). *loc is
 * TSYNC__NONE when the trace has neither (a CSV of messages). 0 or TSYNC_ENOMEM. */
int tsync__time_base_location(const struct tsync_trace *t, uint32_t *loc, int *by_offsets);

/* ---- composition along paths (compose.c) ------------------------------------------ */

/* The function of child d's pair toward its parent (d's clock as x, the parent's as
 * y) over [*from, *to] of d's clock; *from > *to: over the pair's own samples, which
 * it then sets. out is left empty (and the range as it was) when d has no pair
 * function. 0 or TSYNC_ENOMEM. */
typedef int (*tsync__pair_fn)(void *ctx, uint32_t d, tsync_time *from, tsync_time *to,
                              struct tsync__pwl *out);

/* What the composition of a forest of shortest paths needs per domain. */
struct tsync__tree {
    uint32_t n;                    /* domains */
    const uint32_t *order;         /* all domains, parents before children */
    const uint32_t *parent;        /* TSYNC__NONE for roots (references, isolated) */
    tsync__pair_fn up;             /* each child's pair function */
    void *up_ctx;
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

/* A busy interval of one location on its own clock: events at most max_gap apart. */
struct tsync__span {
    tsync_loc loc;
    tsync_time from, to;
    uint64_t events;
};

struct tsync__spans {
    size_t n, cap;
    struct tsync__span *v;       /* by location, each location's in order of time */
};

/* The busy intervals of every location of trace t held here (max_gap > 0 ticks), from its
 * events, or, for a trace read as message lists, from the lists (n of them, with
 * the extents of their blocks; each location's times in buckets max_gap wide: no
 * event is kept). 0 or TSYNC_ENOMEM (sp empty). */
int tsync__spans_of_events(struct tsync__spans *sp, const struct tsync_trace *t, int64_t max_gap);
int tsync__spans_of_lists(struct tsync__spans *sp, const struct tsync_trace *t,
                          const struct tsync_message_list *lists, size_t n, int64_t max_gap);
void tsync__spans_free(struct tsync__spans *sp);

/* The busy periods on the reference axis of `maps` (one per domain of t; an empty
 * map is the identity) of the locations' busy intervals sp: intervals in which no
 * location is idle for longer than max_gap ticks. 0 or TSYNC_ENOMEM. */
int tsync__find_epochs(struct tsync__epochs *ep, const struct tsync__spans *sp,
                       const struct tsync_trace *t, const struct tsync__pwl *maps, int64_t max_gap);
void tsync__epochs_free(struct tsync__epochs *ep);

/* ---- global least squares (global_lsq.c) ------------------------------------------- */

/* A point of an edge's estimate: at x (lo's clock) the estimate reads y (hi's
 * clock), and the pair's range there is y give or take half (finite). */
struct tsync__anchor {
    tsync_time x;
    long double y, half;
};
/* The anchors of one edge, those where the global correction weighs it. */
struct tsync__anchors {
    size_t n, cap;
    struct tsync__anchor *v;
};

/* Corrects the maps of every non-reference domain by a line in reference time,
 * delta_d + eps_d (u - center), chosen by weighted least squares so that every
 * bounded edge's estimate agrees with the two maps at its anchors (anchors[i] for
 * edge i: the caller's choice, the ends of its pieces and of the domains' events;
 * weights: 1 / half the width of the pair's range there, squared; the anchors of
 * one edge weigh as two). Bounds grow by the size of the correction. 0 or
 * TSYNC_ENOMEM. */
int tsync__global_lsq(struct tsync__pwl *maps, const struct tsync__graph *g,
                      const uint32_t *comp_ref, const struct tsync__anchors *anchors);

#endif
