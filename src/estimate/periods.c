/* periods.c - busy periods (MPI_Init, the main phase, MPI_Finalize): each gets its
 * own shortest paths and maps, joined across the idle gaps between them.
 */
#include <math.h>
#include <stdlib.h>

#include "estimate/run.h"

/* More busy periods than this keep the one tree of the whole run (a Dijkstra and a
 * composition per period and domain). */
#define MAX_PERIODS 64

int64_t tsync__est_period_gap(const struct tsync__run *r)
{
    return r->params.max_gap > 1 ? r->params.max_gap / 2 : r->params.max_gap;
}

/* One busy period: the edges weighed by their costs over it, shortest paths, and
 * every domain's map over the period (lo[d], hi[d]: its ends on d's clock) into out[]. */
static int compose_period(struct tsync__run *r, const uint32_t *comp_ref,
                          const struct tsync__epoch *ep, tsync_time *lo, tsync_time *hi,
                          double *w, struct tsync__pwl *out)
{
    int rc;
    for (uint32_t d = 0; d < r->g.n_domains; d++) {
        lo[d] = tsync__pwl_inverse(&r->maps[d], ep->from);
        hi[d] = tsync__pwl_inverse(&r->maps[d], ep->to);
    }
    /* A pair with messages one way in the main phase may be bounded at MPI_Init. */
    if ((rc = tsync__est_errors_over(r, lo, hi, w)))
        return rc;
    for (size_t i = 0; i < r->g.n_edges; i++)
        if (tsync__pair_of(&r->g.e[i])->sum.pieces)
            r->g.e[i].weight = isfinite(w[i]) ? w[i] / (double)r->t->timer_resolution : INFINITY;
    if ((rc = tsync__est_build_tree(r, comp_ref)))
        return rc;
    return tsync__est_compose(r, lo, hi, out);
}

/* Appends f over [lo, hi] to out: its ends and the points between. */
static void append_part(struct tsync__pwl *out, const struct tsync__pwl *f, tsync_time lo,
                        tsync_time hi)
{
    if (tsync__pwl_push(out, lo, (tsync_time)llroundl(tsync__pwl_eval(f, (long double)lo))))
        out->bound[out->n - 1] = tsync__pwl_bound(f, (long double)lo);
    for (size_t i = 0; i < f->n; i++)
        if (f->x[i] > lo && f->x[i] < hi && tsync__pwl_push(out, f->x[i], f->y[i]))
            out->bound[out->n - 1] = f->bound[i];
    if (tsync__pwl_push(out, hi, (tsync_time)llroundl(tsync__pwl_eval(f, (long double)hi))))
        out->bound[out->n - 1] = tsync__pwl_bound(f, (long double)hi);
}

/* Where the trace has busy periods separated by more than half the maximum gap
 * (MPI_Init, the main phase, MPI_Finalize), each period gets its own shortest paths
 * and maps (epochs.c), joined by straight lines across the idle gaps. r->maps holds
 * the maps of the whole-run tree on entry and the joined maps on return; the tree
 * left in r->parent is that of the busiest period, which the report shows. */
int tsync__est_compose_periods(struct tsync__run *r, const uint32_t *comp_ref)
{
    uint32_t nd = r->g.n_domains;
    struct tsync__epochs ep;
    struct tsync__pwl *part = NULL;
    tsync_time *lo = NULL, *hi = NULL;
    double *weight = NULL, *w = NULL;
    size_t busiest = 0, np;
    int rc;

    if ((rc = tsync__find_epochs(&ep, &r->spans, r->t, r->maps, tsync__est_period_gap(r))))
        return rc;
    r->e->periods = 1;
    r->e->period_gap_s = (double)tsync__est_period_gap(r) / (double)r->t->timer_resolution;
    if (ep.n < 2 || ep.n > MAX_PERIODS || r->params.max_gap <= 0 || !nd)
        goto out;
    r->e->periods = ep.n;
    np = ep.n * nd;
    part = calloc(np, sizeof(*part));
    lo = malloc(np * sizeof(*lo));
    hi = malloc(np * sizeof(*hi));
    weight = malloc((r->g.n_edges ? r->g.n_edges : 1) * sizeof(*weight));
    w = malloc((r->g.n_edges ? r->g.n_edges : 1) * sizeof(*w));
    rc = TSYNC_ENOMEM;
    if (!part || !lo || !hi || !weight || !w)
        goto out;
    for (size_t i = 0; i < r->g.n_edges; i++)
        weight[i] = r->g.e[i].weight;
    for (size_t k = 1; k < ep.n; k++)
        busiest = ep.v[k].events > ep.v[busiest].events ? k : busiest;
    /* The busiest period last, so that its tree is the one left for the report. */
    for (size_t j = 0; j < ep.n; j++) {
        size_t k = j + 1 == ep.n ? busiest : j < busiest ? j : j + 1;
        if ((rc = compose_period(r, comp_ref, &ep.v[k], lo + k * nd, hi + k * nd, w,
                                 part + k * nd)))
            goto out;
    }
    for (uint32_t d = 0; d < nd; d++) {
        size_t cap = 0;
        for (size_t k = 0; k < ep.n; k++)
            cap += part[k * nd + d].n + 2;
        tsync__pwl_free(&r->maps[d]);
        if (tsync__pwl_alloc(&r->maps[d], cap))
            goto out;
        for (size_t k = 0; k < ep.n; k++)
            append_part(&r->maps[d], &part[k * nd + d], lo[k * nd + d], hi[k * nd + d]);
    }
    for (size_t i = 0; i < r->g.n_edges; i++)
        r->g.e[i].weight = weight[i];
    rc = 0;
out:
    if (part)
        for (size_t i = 0; i < np; i++)
            tsync__pwl_free(&part[i]);
    free(part);
    free(lo);
    free(hi);
    free(weight);
    free(w);
    tsync__epochs_free(&ep);
    return rc;
}
