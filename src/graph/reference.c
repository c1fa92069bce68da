/* reference.c - the reference clock of each connected component of the domain
 * graph. By default the trace's own global time base where it has one: the clock of
 * the master its ClockOffset records refer to, else of MPI rank 0 (seed 000: "one
 * process is treated as the master and its clock becomes the global clock"; Score-P
 * does the same). Elsewhere, the domain whose shortest paths to all others have the
 * smallest sum of errors (seed 003, section 10: Dijkstra from every vertex,
 * O(|V| (|E| + |V|) log |V|)), or the one the user names. Beyond EXACT_LIMIT domains
 * only the best connected ones are tried.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "trace/trace.h"

/* Components up to this many domains try every domain as the reference; larger ones
 * (one clock per location on thousands of ranks: a Dijkstra from each would cost
 * |V|^2 log |V|) try their MAX_CANDIDATES best connected domains. */
#define EXACT_LIMIT 1024
#define MAX_CANDIDATES 32

/* A binary min-heap of (distance, domain), with lazy deletion. */
struct heap_ent {
    double d;
    uint32_t v;
};

static void heap_push(struct heap_ent *h, size_t *n, double d, uint32_t v)
{
    size_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].d > d) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i].d = d;
    h[i].v = v;
}

static struct heap_ent heap_pop(struct heap_ent *h, size_t *n)
{
    struct heap_ent top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].d < h[c].d)
            c++;
        if (h[c].d >= last.d)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

int tsync__shortest_paths(const struct tsync__graph *g, uint32_t src, double *dist,
                          uint32_t *parent_edge, uint32_t *order, uint32_t *n_order)
{
    /* Each edge relaxes at most twice: 2 |E| + 1 heap entries at most. */
    struct heap_ent *h = malloc((2 * g->n_edges + 1) * sizeof(*h));
    unsigned char *done = calloc(g->n_domains ? g->n_domains : 1, 1);
    size_t n = 0;
    if (!h || !done) {
        free(h);
        free(done);
        return TSYNC_ENOMEM;
    }
    for (uint32_t d = 0; d < g->n_domains; d++) {
        dist[d] = INFINITY;
        parent_edge[d] = TSYNC__NONE;
    }
    *n_order = 0;
    dist[src] = 0;
    heap_push(h, &n, 0, src);
    while (n) {
        struct heap_ent top = heap_pop(h, &n);
        uint32_t u = top.v;
        if (done[u])
            continue;
        done[u] = 1;
        order[(*n_order)++] = u;
        for (size_t k = g->adj_start[u]; k < g->adj_start[u + 1]; k++) {
            uint32_t v = g->adj[k].to;
            double nd = dist[u] + tsync__edge_weight(&g->e[g->adj[k].edge]);
            if (!done[v] && nd < dist[v]) {
                dist[v] = nd;
                parent_edge[v] = g->adj[k].edge;
                heap_push(h, &n, nd, v);
            }
        }
    }
    free(h);
    free(done);
    return 0;
}

/* More central first: more pairs, then a smaller sum of their errors. */
struct candidate {
    uint32_t d, degree;
    double weight;
};

static int candidate_cmp(const void *pa, const void *pb)
{
    const struct candidate *a = pa, *b = pb;
    if (a->degree != b->degree)
        return a->degree > b->degree ? -1 : 1;
    if (a->weight != b->weight)
        return a->weight < b->weight ? -1 : 1;
    return a->d < b->d ? -1 : a->d > b->d;
}

/* Marks the domains to run Dijkstra from: all of a component up to EXACT_LIMIT
 * domains, else its MAX_CANDIDATES most central by degree. */
static int pick_candidates(const struct tsync__graph *g, unsigned char *is_cand)
{
    uint32_t *size = calloc(g->n_comp ? g->n_comp : 1, sizeof(*size)), *left = size;
    struct candidate *c = malloc((g->n_domains ? g->n_domains : 1) * sizeof(*c));
    if (!size || !c) {
        free(size);
        free(c);
        return TSYNC_ENOMEM;
    }
    for (uint32_t d = 0; d < g->n_domains; d++) {
        size[g->comp[d]]++;
        c[d].d = d;
        c[d].degree = (uint32_t)(g->adj_start[d + 1] - g->adj_start[d]);
        c[d].weight = 0;
        for (size_t k = g->adj_start[d]; k < g->adj_start[d + 1]; k++)
            c[d].weight += tsync__edge_weight(&g->e[g->adj[k].edge]);
    }
    qsort(c, g->n_domains, sizeof(*c), candidate_cmp);
    for (uint32_t k = 0; k < g->n_comp; k++)    /* now: how many more to try */
        left[k] = size[k] <= EXACT_LIMIT ? size[k] : MAX_CANDIDATES;
    for (uint32_t i = 0; i < g->n_domains; i++) {
        uint32_t comp = g->comp[c[i].d];
        if (left[comp]) {
            is_cand[c[i].d] = 1;
            left[comp]--;
        }
    }
    free(size);
    free(c);
    return 0;
}

int tsync__choose_references(const struct tsync__graph *g, uint32_t forced, uint32_t preferred,
                             uint32_t *comp_ref)
{
    size_t nd = g->n_domains ? g->n_domains : 1;
    double *dist = malloc(nd * sizeof(*dist)), *best = malloc(g->n_comp * sizeof(*best) + 1);
    uint32_t *parent = malloc(nd * sizeof(*parent)), *order = malloc(nd * sizeof(*order));
    unsigned char *is_cand = calloc(nd, 1), *fixed = calloc(g->n_comp + 1, 1);
    int rc = 0;
    if (!dist || !best || !parent || !order || !is_cand || !fixed) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    for (uint32_t c = 0; c < g->n_comp; c++) {
        comp_ref[c] = TSYNC__NONE;
        best[c] = INFINITY;
    }
    if (preferred != TSYNC__NONE) {
        comp_ref[g->comp[preferred]] = preferred;
        fixed[g->comp[preferred]] = 1;
    }
    if (forced != TSYNC__NONE) {
        comp_ref[g->comp[forced]] = forced;
        fixed[g->comp[forced]] = 1;
    }
    if ((rc = pick_candidates(g, is_cand)))
        goto out;
    for (uint32_t d = 0; d < g->n_domains; d++) {
        uint32_t c = g->comp[d], n_order;
        double sum = 0;
        if (fixed[c] || !is_cand[d])
            continue;
        if (g->adj_start[d] == g->adj_start[d + 1]) {   /* alone: its own reference */
            comp_ref[c] = d;
            continue;
        }
        if ((rc = tsync__shortest_paths(g, d, dist, parent, order, &n_order)))
            goto out;
        for (uint32_t k = 0; k < n_order; k++)
            sum += dist[order[k]];
        if (sum < best[c]) {    /* strictly: ties keep the lowest index */
            best[c] = sum;
            comp_ref[c] = d;
        }
    }
out:
    free(dist);
    free(best);
    free(parent);
    free(order);
    free(is_cand);
    free(fixed);
    return rc;
}

int tsync__time_base_location(const struct tsync_trace *t, uint32_t *loc, int *by_offsets)
{
    uint32_t rank0 = t->n_ranks && t->rank_loc && t->rank_loc[0] < t->n_locations
                         ? t->rank_loc[0] : TSYNC__NONE;
    uint32_t n_zero = 0;
    /* Per location: 1 it has records, 2 one of them is not 0. */
    unsigned char *seen;
    *loc = rank0;
    *by_offsets = 0;
    if (!t->n_offsets)
        return 0;
    if (!(seen = calloc(t->n_locations ? t->n_locations : 1, 1)))
        return TSYNC_ENOMEM;
    for (size_t i = 0; i < t->n_offsets; i++)
        if (t->offsets[i].loc < t->n_locations)
            seen[t->offsets[i].loc] |= (unsigned char)(1 | (t->offsets[i].offset != 0) << 1);
    if (rank0 != TSYNC__NONE && !(seen[rank0] & 2)) {
        *by_offsets = 1;         /* rank 0 records no offset but 0: it is the master */
    } else {
        /* Rank 0 measured an offset: the master is the one location that records 0. */
        for (uint32_t l = 0; l < t->n_locations; l++)
            if (seen[l] == 1 && n_zero++ == 0)
                *loc = l;
        if (n_zero == 1)
            *by_offsets = 1;
        else
            *loc = rank0;
    }
    free(seen);
    return 0;
}
