/* references.c - the reference of each component and the shortest-path trees
 * toward it: the trace's own time base (seed 000) where the rule asks for it, and
 * each domain's parent and pair function on its path.
 */
#include <math.h>
#include <stdlib.h>

#include "estimate/run.h"
#include "util/ctx.h"
#include "util/str.h"

/* The reference rule: with TSYNC_REFERENCE_GLOBAL, the domain of the trace's own time
 * base (seed 000) is the reference of its component; the others, and every component
 * with TSYNC_REFERENCE_AUTO, take the smallest sum of shortest-path errors. */
int tsync__est_time_base(struct tsync__run *r, const tsync_estimate_opts *o)
{
    const struct tsync_trace *t = r->t;
    tsync_estimate *e = r->e;
    enum tsync_reference_rule rule = o->version >= 2 ? o->reference_rule : TSYNC_REFERENCE_AUTO;
    uint32_t loc;
    int by_offsets, rc;
    r->base = TSYNC__NONE;
    e->auto_why = "smallest sum of shortest-path errors";
    if (rule == TSYNC_REFERENCE_AUTO)
        return 0;
    if ((rc = tsync__time_base_location(t, &loc, &by_offsets)))
        return tsync__oom(r->ctx);
    if (loc == TSYNC__NONE || t->locations[loc].domain >= t->n_domains) {
        e->auto_why = "smallest sum of shortest-path errors: the trace has no ClockOffset "
                      "master and no MPI rank 0";
        return 0;
    }
    r->base = t->locations[loc].domain;
    r->base_how = by_offsets ? TSYNC__REF_MASTER : TSYNC__REF_RANK0;
    e->auto_why = by_offsets ? "smallest sum of shortest-path errors: the ClockOffset master "
                               "is not in this group"
                             : "smallest sum of shortest-path errors: MPI rank 0 is not in "
                               "this group";
    if (by_offsets && t->n_ranks && t->rank_loc && t->rank_loc[0] == loc)
        e->base_why = tsync__strfmt("MPI rank 0, the ClockOffset master");
    else if (by_offsets)
        e->base_why = tsync__strfmt("the ClockOffset master, %s",
                                    t->locations[loc].name ? t->locations[loc].name : "");
    else
        e->base_why = tsync__strfmt("MPI rank 0%s", t->n_offsets ? " (the ClockOffset records "
                                                                   "name no master)" : "");
    return e->base_why ? 0 : tsync__oom(r->ctx);
}

/* Shortest-path trees from the references under the edges' current weights; each
 * domain's pair function toward its parent. */
int tsync__est_build_tree(struct tsync__run *r, const uint32_t *comp_ref)
{
    uint32_t nd = r->g.n_domains, n_order = 0, got;
    double *dist = malloc((nd ? nd : 1) * sizeof(*dist));
    uint32_t *pe = malloc((nd ? nd : 1) * sizeof(*pe));
    int rc = 0;
    if (!dist || !pe) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    for (uint32_t d = 0; d < nd; d++)
        r->parent_edge[d] = r->parent[d] = TSYNC__NONE;
    for (uint32_t c = 0; c < r->g.n_comp; c++) {
        if ((rc = tsync__shortest_paths(&r->g, comp_ref[c], dist, pe, r->order + n_order, &got)))
            goto out;
        for (uint32_t k = 0; k < got; k++) {
            uint32_t d = r->order[n_order + k];
            r->parent_edge[d] = pe[d];
        }
        n_order += got;
    }
    for (uint32_t d = 0; d < nd; d++) {
        struct tsync__edge *e;
        if (r->parent_edge[d] == TSYNC__NONE)
            continue;
        e = &r->g.e[r->parent_edge[d]];
        e->in_tree = 1;
        r->parent[d] = e->lo == d ? e->hi : e->lo;
    }
    /* A path over a pair whose pieces all see one direction has no two-sided bound;
     * one over a pair weighed infinite for a one-sided piece among two-sided ones
     * gets its bound from their neighbours (tsync__est_up_pwl), if they give one. */
    for (uint32_t d = 0; d < nd; d++)
        for (uint32_t v = d; r->parent[v] != TSYNC__NONE; v = r->parent[v])
            if (r->g.e[r->parent_edge[v]].kind == TSYNC_BOUND_FALLBACK)
                r->fallback[d] = 1;
out:
    free(dist);
    free(pe);
    return rc;
}

int tsync__est_compose(struct tsync__run *r, const tsync_time *lo, const tsync_time *hi,
                       struct tsync__pwl *maps)
{
    struct tsync__tree tree;
    tree.n = r->g.n_domains;
    tree.order = r->order;
    tree.parent = r->parent;
    tree.up = tsync__est_up_pwl;
    tree.up_ctx = r;
    tree.ev_first = lo;
    tree.ev_last = hi;
    return tsync__compose_tree(maps, &tree);
}
