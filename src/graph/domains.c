/* domains.c - the graph of clock domains: one edge per pair of domains that share
 * samples, found by pair through a small hash index, then sorted, linked into
 * adjacency lists and split into connected components.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "util/vec.h"

int tsync__graph_init(struct tsync__graph *g, uint32_t n_domains, void (*free_pair)(void *pair))
{
    memset(g, 0, sizeof(*g));
    g->n_domains = n_domains;
    g->free_pair = free_pair;
    g->comp = calloc(n_domains ? n_domains : 1, sizeof(*g->comp));
    return g->comp ? 0 : TSYNC_ENOMEM;
}

void tsync__graph_free(struct tsync__graph *g)
{
    for (size_t i = 0; g->free_pair && i < g->n_edges; i++)
        g->free_pair(g->e[i].pair);
    free(g->e);
    free(g->slot);
    free(g->adj_start);
    free(g->adj);
    free(g->comp);
    memset(g, 0, sizeof(*g));
}

static size_t pair_hash(uint32_t lo, uint32_t hi, size_t mask)
{
    uint64_t k = ((uint64_t)lo << 32 | hi) * 0x9E3779B97F4A7C15ull;
    return (size_t)(k >> 29) & mask;
}

/* The slot of pair (lo, hi): its edge's, or the free one where it would go. */
static size_t find_slot(const struct tsync__graph *g, uint32_t lo, uint32_t hi)
{
    size_t mask = g->slots - 1, i = pair_hash(lo, hi, mask);
    for (;; i = (i + 1) & mask) {
        uint32_t s = g->slot[i];
        if (s == 0 || (g->e[s - 1].lo == lo && g->e[s - 1].hi == hi))
            return i;
    }
}

/* Doubles the index (kept at most half full) and puts every edge back. */
static int grow_index(struct tsync__graph *g)
{
    size_t n = g->slots ? g->slots * 2 : 64;
    uint32_t *old = g->slot;
    g->slot = calloc(n, sizeof(*g->slot));
    if (!g->slot) {
        g->slot = old;
        return TSYNC_ENOMEM;
    }
    free(old);
    g->slots = n;
    for (size_t i = 0; i < g->n_edges; i++)
        g->slot[find_slot(g, g->e[i].lo, g->e[i].hi)] = (uint32_t)(i + 1);
    return 0;
}

int tsync__graph_edge(struct tsync__graph *g, uint32_t a, uint32_t b, size_t *idx)
{
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    struct tsync__edge e;
    size_t s;
    if ((g->n_edges + 1) * 2 > g->slots && grow_index(g))
        return TSYNC_ENOMEM;
    s = find_slot(g, lo, hi);
    if (g->slot[s]) {
        *idx = g->slot[s] - 1;
        return 0;
    }
    memset(&e, 0, sizeof(e));
    e.lo = lo;
    e.hi = hi;
    if (g->n_edges >= UINT32_MAX - 1 || TSYNC_PUSH(g->e, g->n_edges, g->cap_edges, e))
        return TSYNC_ENOMEM;
    g->slot[s] = (uint32_t)g->n_edges;
    *idx = g->n_edges - 1;
    return 0;
}

double tsync__edge_weight(const struct tsync__edge *e)
{
    return isfinite(e->weight) ? e->weight : TSYNC__FALLBACK_WEIGHT;
}

static int edge_cmp(const void *pa, const void *pb)
{
    const struct tsync__edge *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* Components by breadth-first search over the adjacency. */
static int find_components(struct tsync__graph *g)
{
    uint32_t *queue = malloc((g->n_domains ? g->n_domains : 1) * sizeof(*queue));
    if (!queue)
        return TSYNC_ENOMEM;
    for (uint32_t d = 0; d < g->n_domains; d++)
        g->comp[d] = TSYNC__NONE;
    g->n_comp = 0;
    for (uint32_t d = 0; d < g->n_domains; d++) {
        uint32_t head = 0, tail = 0;
        if (g->comp[d] != TSYNC__NONE)
            continue;
        g->comp[d] = g->n_comp;
        queue[tail++] = d;
        while (head < tail) {
            uint32_t u = queue[head++];
            for (size_t k = g->adj_start[u]; k < g->adj_start[u + 1]; k++) {
                uint32_t v = g->adj[k].to;
                if (g->comp[v] == TSYNC__NONE) {
                    g->comp[v] = g->n_comp;
                    queue[tail++] = v;
                }
            }
        }
        g->n_comp++;
    }
    free(queue);
    return 0;
}

int tsync__graph_link(struct tsync__graph *g)
{
    size_t *fill;
    if (g->n_edges > 1)
        qsort(g->e, g->n_edges, sizeof(*g->e), edge_cmp);
    free(g->slot);           /* indices changed; nothing looks pairs up any more */
    g->slot = NULL;
    g->slots = 0;
    g->adj_start = calloc((size_t)g->n_domains + 1, sizeof(*g->adj_start));
    g->adj = malloc((g->n_edges ? g->n_edges : 1) * 2 * sizeof(*g->adj));
    fill = calloc((size_t)g->n_domains + 1, sizeof(*fill));
    if (!g->adj_start || !g->adj || !fill) {
        free(fill);
        return TSYNC_ENOMEM;
    }
    for (size_t i = 0; i < g->n_edges; i++) {
        g->adj_start[g->e[i].lo + 1]++;
        g->adj_start[g->e[i].hi + 1]++;
    }
    for (uint32_t d = 0; d < g->n_domains; d++)
        g->adj_start[d + 1] += g->adj_start[d];
    for (size_t i = 0; i < g->n_edges; i++) {
        uint32_t lo = g->e[i].lo, hi = g->e[i].hi;
        g->adj[g->adj_start[lo] + fill[lo]++] = (struct tsync__adj){ hi, (uint32_t)i };
        g->adj[g->adj_start[hi] + fill[hi]++] = (struct tsync__adj){ lo, (uint32_t)i };
    }
    free(fill);
    return find_components(g);
}
