/* estimate.c - tsync_estimate_run: samples, pairwise estimates, the graph of
 * domains, references, composed maps, and the result's getters. The stages are in
 * their own files; this one only runs them in order and keeps the results.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimate_int.h"
#include "estimate/samples.h"
#include "graph/graph.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/units.h"

/* Everything the run holds until the result is built. */
struct run {
    const struct tsync_trace *t;
    tsync_estimate *e;
    tsync_ctx *ctx;
    const struct tsync__estimator *est;
    struct tsync__est_params params;
    struct tsync__graph g;
    struct tsync__intra intra;
    uint32_t forced;                  /* the reference asked for, or TSYNC__NONE */
    uint32_t base;                    /* the domain of the trace's time base, or TSYNC__NONE */
    uint8_t base_how;                 /* TSYNC__REF_MASTER or TSYNC__REF_RANK0 */
    uint32_t *parent_edge, *parent, *order;
    struct tsync__pair_fit *rfit;     /* per edge: the fit from hi's side, when a path needs it */
    uint8_t *rdone;
    uint8_t *cuts;                    /* per edge: the cuts its fit makes (CUTS_...) */
    const struct tsync__pair_fit **up;
    uint8_t *fallback;                /* per domain: a path of some period has a FALLBACK edge */
    tsync_time *ev_first, *ev_last;
    struct tsync__pwl *maps;
};

/* ---- options ------------------------------------------------------------------------- */

/* Longest window of windowed minimum delays (window.c): a drift changing by 0.01
 * ppm/s bends a 5-second window by 30 ns. */
#define WINDOW_S 5.0

static int to_ticks(const struct tsync_trace *t, double s, const char *what, int64_t *out,
                    tsync_ctx *ctx)
{
    double ticks = s * (double)t->timer_resolution;
    if (!isfinite(s) || s < 0 || !(ticks < 9.0e18))
        return tsync__fail(ctx, TSYNC_EINVAL, "estimate: %s %g s is out of range", what, s);
    *out = (int64_t)llround(ticks);
    return 0;
}

static int check_opts(struct run *r, const tsync_estimate_opts *o,
                      struct tsync__sample_opts *so)
{
    const struct tsync_trace *t = r->t;
    int rc;
    if (o->version == 0 || o->version > TSYNC_ESTIMATE_OPTS_VERSION)
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: options of unknown version %u "
                           "(use TSYNC_ESTIMATE_OPTS_INIT)", o->version);
    if ((unsigned)o->estimator > TSYNC_ESTIMATOR_NONE)
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: unknown estimator %d",
                           (int)o->estimator);
    if (o->version >= 2 && (unsigned)o->reference_rule > TSYNC_REFERENCE_AUTO)
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: unknown reference rule %d",
                           (int)o->reference_rule);
    if (!(o->max_drift > 0 && o->max_drift < 0.5))
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: maximum drift %g is not in (0, 0.5)",
                           o->max_drift);
    if (o->version >= 2 && !(o->max_wander >= 0 && o->max_wander < 1e-3))
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: maximum wander %g per second is not "
                           "in [0, 1e-3)", o->max_wander);
    if (t->timer_resolution == 0)
        return tsync__fail(r->ctx, TSYNC_EINVAL, "%s: estimate: timer resolution is 0", t->path);
    if ((rc = to_ticks(t, o->latency_intra_s, "intra-node minimum latency", &so->mu_intra,
                       r->ctx)) ||
        (rc = to_ticks(t, o->latency_inter_s, "inter-node minimum latency", &so->mu_inter,
                       r->ctx)) ||
        (rc = to_ticks(t, o->min_segment_s, "minimum segment", &r->params.min_segment, r->ctx)) ||
        (rc = to_ticks(t, o->max_gap_s, "maximum gap", &r->params.max_gap, r->ctx)) ||
        (rc = to_ticks(t, o->max_segment_s, "maximum segment", &r->params.max_segment, r->ctx)))
        return rc;
    r->forced = TSYNC__NONE;
    if (o->reference && tsync_trace_find_domain(t, o->reference, &r->forced))
        return tsync__fail(r->ctx, TSYNC_EINVAL, "%s: estimate: reference domain \"%s\" is not in "
                           "the trace (its domains are named by %s; see tracesync check)",
                           t->path, o->reference, tsync_trace_domain_rule(t));
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (m->send_loc >= t->n_locations || m->recv_loc >= t->n_locations ||
            m->send_idx >= t->locations[m->send_loc].n_events ||
            m->recv_idx >= t->locations[m->recv_loc].n_events)
            return tsync__fail(r->ctx, TSYNC_EINVAL, "%s: estimate: message %zu refers to an "
                               "event that does not exist", t->path, i);
    }
    for (size_t q = 0; q < t->n_collectives; q++) {
        const struct tsync_collective *co = &t->collectives[q];
        for (uint32_t i = 0; i < co->n_members; i++) {
            const struct tsync_coll_member *m = &t->members[co->first_member + i];
            if (co->first_member + i >= t->n_members || m->loc >= t->n_locations ||
                m->begin_idx >= t->locations[m->loc].n_events ||
                m->end_idx >= t->locations[m->loc].n_events)
                return tsync__fail(r->ctx, TSYNC_EINVAL, "%s: estimate: collective %zu refers "
                                   "to an event that does not exist", t->path, q);
        }
    }
    so->exchanges = o->estimator == TSYNC_ESTIMATOR_REGRESSION;
    so->offsets = o->use_clock_offsets;
    r->params.max_drift = o->max_drift;
    r->params.wander = (o->version >= 2 ? o->max_wander : 1e-8) / (double)t->timer_resolution;
    r->params.window = (int64_t)llround(WINDOW_S * (double)t->timer_resolution);
    r->params.segment = o->segment;
    return 0;
}

/* The reference rule: with TSYNC_REFERENCE_GLOBAL, the domain of the trace's own time
 * base (seed 000) is the reference of its component; the others, and every component
 * with TSYNC_REFERENCE_AUTO, take the smallest sum of shortest-path errors. */
static int time_base(struct run *r, const tsync_estimate_opts *o)
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

/* ---- the stages ----------------------------------------------------------------------- */

/* The first sample of a pair: its origin for the geometry. */
static void origin(const struct tsync__pair_samples *s, struct tsync__est_params *p)
{
    p->x0 = p->y0 = 0;
    if (s->n_above) {
        p->x0 = s->above[0].x;
        p->y0 = s->above[0].y;
    } else if (s->n_below) {
        p->x0 = s->below[0].x;
        p->y0 = s->below[0].y;
    } else if (s->n_exch) {
        p->x0 = s->exch[0].x;
        p->y0 = s->exch[0].y;
    }
}

/* Sparse data. The cuts at gaps longer than max_gap and at max_segment are made
 * for dense data, where each stretch fixes its own line. A pair with a handful of
 * messages, or with sleeps between a message and its answer, is cut by them into
 * pieces that see one direction each (a fallback without a two-sided bound, where
 * the run as a whole has messages both ways) or that leave their slope open:
 * ten messages over an hour made ten one-sided pieces. Such a pair is fitted again
 * without the gap rule, and if a one-sided piece remains, without the length rule
 * too: over the whole run, split only where the hulls cross. Busy periods then
 * only choose paths (compose_period weighs the pair over each period). */
enum { CUTS_ALL, CUTS_NO_GAP, CUTS_NONE };
#define SPARSE_PER_PIECE 8  /* samples a piece, on average, below which cuts are too fine */

static void pair_params(const struct run *r, const struct tsync__pair_samples *s, uint8_t cuts,
                        struct tsync__est_params *p)
{
    *p = r->params;
    origin(s, p);
    if (cuts >= CUTS_NO_GAP)
        p->max_gap = 0;
    if (cuts >= CUTS_NONE)
        p->max_segment = 0;
}

/* Whether a piece leaves its slope open to the drift assumed where the data do
 * not fix it (a measured offset alone, a message and its answer): its range widens
 * by max_drift or more per tick beyond its last sample (the hull's by a_hi - a_lo,
 * the regression's by three standard errors of its drift). */
static int slope_open(const struct tsync__piece *pc, double max_drift, int64_t step)
{
    long double lo0, hi0, lo1, hi1;
    pc->range(pc, pc->x_last, &lo0, &hi0);
    pc->range(pc, pc->x_last + step, &lo1, &hi1);
    if (!isfinite(hi1 - lo1))
        return 1;
    return ((hi1 - lo1) - (hi0 - lo0)) / (long double)step >= (long double)max_drift;
}

/* Whether a fit of a pair with samples both ways has the trouble above: a one-sided
 * piece (fallback), or more samples in pieces that leave their slope open than in
 * pieces whose data fix it (the Init and Finalize phases' few samples beside a
 * main phase's thousands do not count; a ping-pong with sleeps between its
 * iterations does). */
static int cut_too_fine(const struct run *r, const struct tsync__pair_fit *f,
                        const struct tsync__pair_samples *s, int *one_sided)
{
    uint64_t fixed = 0, open = 0, all = 0;
    int64_t second = (int64_t)r->t->timer_resolution;
    *one_sided = 0;
    if (f->pieces.n < 2 || !((s->n_above && s->n_below) || s->n_exch))
        return 0;
    for (size_t k = 0; k < f->pieces.n; k++) {
        const struct tsync__piece *pc = &f->pieces.v[k];
        all += pc->samples;
        if (pc->kind != TSYNC_BOUND_BOUNDED)
            *one_sided = 1;
        else if (slope_open(pc, r->params.max_drift, second))
            open += pc->samples;
        else
            fixed += pc->samples;
    }
    /* Only where the cuts left a handful of samples a piece: a one-sided main phase
     * of hundreds of messages between measured offsets is data, not a cut too fine,
     * and joined across the sleeps around it its piece would widen by the wander. */
    if (all / f->pieces.n >= SPARSE_PER_PIECE)
        return *one_sided = 0;
    return *one_sided || open > fixed;
}

/* Fits edge ei's samples s (its own, first; or reflected, for hi's side) with the
 * cuts the pair needs, found on the first fit and kept for the other. */
static int fit_with_cuts(struct run *r, size_t ei, const struct tsync__pair_samples *s,
                         struct tsync__pair_fit *fit, int first)
{
    struct tsync__edge *e = &r->g.e[ei];
    struct tsync__est_params p;
    int rc, one_sided;
    for (;;) {
        pair_params(r, s, r->cuts[ei], &p);
        if ((rc = tsync__fit_pair(fit, r->est, &p, s)))
            return rc;
        if (!first || r->cuts[ei] == CUTS_NONE ||
            !cut_too_fine(r, fit, &e->s, &one_sided))
            return 0;
        if (r->cuts[ei] == CUTS_NO_GAP && !one_sided)
            return 0;
        tsync__pair_fit_free(fit);
        r->cuts[ei]++;
    }
}

/* Where x (lo's clock) reads when hi's clock reads y, by the nearest piece. */
static tsync_time piece_inverse(const struct tsync__piece *p, tsync_time y)
{
    return p->x0 + (tsync_time)llroundl(((long double)(y - p->y0) - p->b) / p->a);
}

/* The largest bound of a pair's function over [from, to] of lo's clock; -1 when
 * out of memory. */
static double pair_error_over(const struct tsync__edge *e, tsync_time from, tsync_time to)
{
    struct tsync__pwl f;
    double worst;
    if (tsync__pwl_from_fit(&f, &e->fit, from, to))
        return -1;
    worst = 0;
    for (size_t i = 0; i < f.n; i++)
        worst = f.bound[i] > worst ? f.bound[i] : worst;
    tsync__pwl_free(&f);
    return worst;
}

/* The largest bound of a pair's function over the events of both its domains:
 * what the pair can cost a path, not only where its samples are. A pair whose
 * messages all fall in a 4-second main phase is no better than its extrapolation
 * to the MPI_Init events 10 minutes earlier. */
static double pair_error(const struct run *r, const struct tsync__edge *e)
{
    const struct tsync__pieces *ps = &e->fit.pieces;
    tsync_time from = INT64_MAX, to = INT64_MIN;
    if (r->ev_first[e->lo] <= r->ev_last[e->lo]) {
        from = r->ev_first[e->lo];
        to = r->ev_last[e->lo];
    }
    if (r->ev_first[e->hi] <= r->ev_last[e->hi]) {
        tsync_time a = piece_inverse(&ps->v[0], r->ev_first[e->hi]);
        tsync_time b = piece_inverse(&ps->v[ps->n - 1], r->ev_last[e->hi]);
        from = a < from ? a : from;
        to = b > to ? b : to;
    }
    if (from > to)
        from = to = ps->v[0].x_first;
    return pair_error_over(e, from, to);
}

/* Estimates every pair with the lower domain's clock as x; its weight is its
 * error over both domains' events. */
static int fit_edges(struct run *r)
{
    for (size_t i = 0; i < r->g.n_edges; i++) {
        struct tsync__edge *e = &r->g.e[i];
        double worst = 0;
        int rc;
        if ((rc = fit_with_cuts(r, i, &e->s, &e->fit, 1)))
            return rc;
        e->kind = TSYNC_BOUND_BOUNDED;
        for (size_t k = 0; k < e->fit.pieces.n; k++) {
            const struct tsync__piece *pc = &e->fit.pieces.v[k];
            if (pc->kind != TSYNC_BOUND_BOUNDED)
                e->kind = TSYNC_BOUND_FALLBACK;
            if (pc->error > worst)
                worst = pc->error;
        }
        if (e->kind == TSYNC_BOUND_BOUNDED && e->fit.pieces.n) {
            double over = pair_error(r, e);
            if (over < 0)
                return TSYNC_ENOMEM;
            worst = over > worst ? over : worst;
        }
        e->weight = e->kind == TSYNC_BOUND_BOUNDED ? worst / (double)r->t->timer_resolution
                                                   : INFINITY;
        if ((i & 0xff) == 0)
            tsync__progress(r->ctx, "estimate pairs", i, r->g.n_edges);
    }
    return 0;
}

/* The pair function of edge ei with domain d's clock as x: the edge's own fit, or
 * the fit re-done from hi's side (once per edge). */
static int up_fit(struct run *r, uint32_t d, uint32_t ei, const struct tsync__pair_fit **out)
{
    struct tsync__edge *e = &r->g.e[ei];
    if (e->lo == d) {
        *out = &e->fit;
        return 0;
    }
    if (!r->rdone[ei]) {
        struct tsync__pair_samples refl;
        int rc;
        if ((rc = tsync__pair_samples_reflect(&refl, &e->s)))
            return rc;
        rc = fit_with_cuts(r, ei, &refl, &r->rfit[ei], 0);
        tsync__pair_samples_free(&refl);
        if (rc)
            return rc;
        r->rdone[ei] = 1;
    }
    *out = &r->rfit[ei];
    return 0;
}

/* Shortest-path trees from the references under the edges' current weights; each
 * domain's pair function toward its parent. */
static int build_tree(struct run *r, const uint32_t *comp_ref)
{
    uint32_t nd = r->g.n_domains, n_order = 0, got;
    double *dist = malloc((nd ? nd : 1) * sizeof(*dist));
    uint32_t *pe = malloc((nd ? nd : 1) * sizeof(*pe));
    int rc = 0;
    if (!dist || !pe) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    for (uint32_t d = 0; d < nd; d++) {
        r->parent_edge[d] = r->parent[d] = TSYNC__NONE;
        r->up[d] = NULL;
    }
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
        if ((rc = up_fit(r, d, r->parent_edge[d], &r->up[d])))
            goto out;
    }
    for (uint32_t d = 0; d < nd; d++)
        for (uint32_t v = d; r->parent[v] != TSYNC__NONE; v = r->parent[v])
            if (!isfinite(r->g.e[r->parent_edge[v]].weight))
                r->fallback[d] = 1;
out:
    free(dist);
    free(pe);
    return rc;
}

/* First and last event time of every domain (first > last when it has none). */
static void event_ranges(struct run *r)
{
    const struct tsync_trace *t = r->t;
    for (uint32_t d = 0; d < t->n_domains; d++) {
        r->ev_first[d] = INT64_MAX;
        r->ev_last[d] = INT64_MIN;
    }
    for (uint32_t i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        if (!l->n_events || l->domain >= t->n_domains)
            continue;
        if (l->time[0] < r->ev_first[l->domain])
            r->ev_first[l->domain] = l->time[0];
        if (l->time[l->n_events - 1] > r->ev_last[l->domain])
            r->ev_last[l->domain] = l->time[l->n_events - 1];
    }
}

/* ---- busy periods ------------------------------------------------------------------------ */

/* More busy periods than this keep the one tree of the whole run (a Dijkstra and a
 * composition per period and domain). */
#define MAX_PERIODS 64

/* One busy period: the edges weighed by their bounds over it, shortest paths, and
 * every domain's map over the period (lo[d], hi[d]: its ends on d's clock) into out[]. */
static int compose_period(struct run *r, const uint32_t *comp_ref, const struct tsync__epoch *ep,
                          tsync_time *lo, tsync_time *hi, struct tsync__pwl *out)
{
    struct tsync__tree tree;
    int rc;
    for (uint32_t d = 0; d < r->g.n_domains; d++) {
        lo[d] = tsync__pwl_inverse(&r->maps[d], ep->from);
        hi[d] = tsync__pwl_inverse(&r->maps[d], ep->to);
    }
    for (size_t i = 0; i < r->g.n_edges; i++) {
        struct tsync__edge *e = &r->g.e[i];
        double w;
        if (!e->fit.pieces.n)
            continue;
        /* A pair with messages one way in the main phase may be bounded at MPI_Init. */
        if ((w = pair_error_over(e, lo[e->lo], hi[e->lo])) < 0)
            return TSYNC_ENOMEM;
        e->weight = isfinite(w) ? w / (double)r->t->timer_resolution : INFINITY;
    }
    if ((rc = build_tree(r, comp_ref)))
        return rc;
    tree.n = r->g.n_domains;
    tree.order = r->order;
    tree.parent = r->parent;
    tree.up = r->up;
    tree.ev_first = lo;
    tree.ev_last = hi;
    return tsync__compose_tree(out, &tree);
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

/* Where the trace has busy periods separated by more than the maximum gap (MPI_Init,
 * the main phase, MPI_Finalize), each period gets its own shortest paths and maps
 * (epochs.c), joined by straight lines across the idle gaps. r->maps holds the maps
 * of the whole-run tree on entry and the joined maps on return; the tree left in
 * r->parent is that of the busiest period, which the report shows. */
static int compose_periods(struct run *r, const uint32_t *comp_ref)
{
    uint32_t nd = r->g.n_domains;
    struct tsync__epochs ep;
    struct tsync__pwl *part = NULL;
    tsync_time *lo = NULL, *hi = NULL;
    double *weight = NULL;
    size_t busiest = 0, np;
    int rc;

    if ((rc = tsync__find_epochs(&ep, r->t, r->maps, r->params.max_gap)))
        return rc;
    r->e->periods = 1;
    if (ep.n < 2 || ep.n > MAX_PERIODS || r->params.max_gap <= 0 || !nd)
        goto out;
    r->e->periods = ep.n;
    np = ep.n * nd;
    part = calloc(np, sizeof(*part));
    lo = malloc(np * sizeof(*lo));
    hi = malloc(np * sizeof(*hi));
    weight = malloc((r->g.n_edges ? r->g.n_edges : 1) * sizeof(*weight));
    rc = TSYNC_ENOMEM;
    if (!part || !lo || !hi || !weight)
        goto out;
    for (size_t i = 0; i < r->g.n_edges; i++)
        weight[i] = r->g.e[i].weight;
    for (size_t k = 1; k < ep.n; k++)
        busiest = ep.v[k].events > ep.v[busiest].events ? k : busiest;
    /* The busiest period last, so that its tree is the one left for the report. */
    for (size_t j = 0; j < ep.n; j++) {
        size_t k = j + 1 == ep.n ? busiest : j < busiest ? j : j + 1;
        if ((rc = compose_period(r, comp_ref, &ep.v[k], lo + k * nd, hi + k * nd, part + k * nd)))
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
    tsync__epochs_free(&ep);
    return rc;
}

/* OTF2 cannot store negative times. When a component's maps would put an event
 * before 0 (a reference that started its clock after the others, as EZTrace's
 * ranks do), every map of the component moves by the same constant so that its
 * earliest event keeps the earliest raw time: times stay comparable within the
 * component, and the reference's map becomes that constant. */
static int shift_components(struct run *r)
{
    tsync_estimate *e = r->e;
    tsync_time *low = malloc((e->n_comp ? e->n_comp : 1) * 2 * sizeof(*low)), *raw;
    if (!low)
        return TSYNC_ENOMEM;
    raw = low + e->n_comp;
    for (uint32_t c = 0; c < e->n_comp; c++)
        low[c] = raw[c] = INT64_MAX;
    for (uint32_t d = 0; d < e->n_domains; d++) {
        uint32_t c = r->g.comp[d];
        tsync_time at;
        if (r->ev_first[d] > r->ev_last[d] || !r->maps[d].n)
            continue;
        at = (tsync_time)llroundl(tsync__pwl_eval(&r->maps[d], (long double)r->ev_first[d]));
        low[c] = at < low[c] ? at : low[c];
        raw[c] = r->ev_first[d] < raw[c] ? r->ev_first[d] : raw[c];
    }
    for (uint32_t c = 0; c < e->n_comp; c++)
        e->comp_shift[c] = low[c] < 0 && raw[c] >= 0 ? raw[c] - low[c] : 0;
    for (uint32_t d = 0; d < e->n_domains; d++)
        for (size_t i = 0; i < r->maps[d].n; i++)
            r->maps[d].y[i] += e->comp_shift[r->g.comp[d]];
    free(low);
    return 0;
}

/* ---- the result ------------------------------------------------------------------------- */

/* Kind of domain d: the reference is exact; a path with a fallback edge or an
 * unbounded point makes a fallback. */
static enum tsync_bound_kind domain_kind(const struct run *r, uint32_t d, const struct tsync__pwl *f)
{
    if (r->parent[d] == TSYNC__NONE)
        return r->g.adj_start[d] == r->g.adj_start[d + 1] ? TSYNC_BOUND_ABSENT : TSYNC_BOUND_EXACT;
    if (r->fallback[d])
        return TSYNC_BOUND_FALLBACK;
    for (size_t i = 0; i < f->n; i++)
        if (!isfinite(f->bound[i]))
            return TSYNC_BOUND_FALLBACK;
    return TSYNC_BOUND_BOUNDED;
}

/* The time map of a domain from its function. */
static int make_map(struct run *r, const struct tsync__pwl *f, enum tsync_bound_kind kind,
                    tsync_time_map **out)
{
    int64_t *b;
    int rc;
    if (kind == TSYNC_BOUND_EXACT) {
        int64_t zero = 0;
        if ((rc = tsync_time_map_new_offset(out, f->y[0] - f->x[0], r->ctx)) == 0)
            rc = tsync_time_map_set_bounds(*out, &zero, 1, r->ctx);
    } else if ((rc = tsync_time_map_new_points(out, f->x, f->y, f->n, r->ctx)) == 0 &&
               kind == TSYNC_BOUND_BOUNDED) {
        if (!(b = malloc(f->n * sizeof(*b)))) {
            rc = tsync__oom(r->ctx);
        } else {
            for (size_t i = 0; i < f->n; i++)
                b[i] = f->bound[i] < 9e18 ? (int64_t)ceil(f->bound[i]) : INT64_MAX;
            rc = tsync_time_map_set_bounds(*out, b, f->n, r->ctx);
            free(b);
        }
    }
    if (rc) {
        tsync_time_map_free(*out);
        *out = NULL;
    }
    return rc;
}

/* The per-domain results: maps given to the set, paths, summaries. */
static int fill_domains(struct run *r)
{
    const struct tsync_trace *t = r->t;
    tsync_estimate *e = r->e;
    size_t hops = 0;
    uint32_t *p;
    for (uint32_t d = 0; d < e->n_domains; d++)
        for (uint32_t v = d; r->parent[v] != TSYNC__NONE; v = r->parent[v])
            hops++;
    if (!(e->paths = malloc((hops + e->n_domains) * sizeof(*e->paths))))
        return tsync__oom(r->ctx);
    p = e->paths;
    for (uint32_t d = 0; d < e->n_domains; d++) {
        tsync_estimate_domain *dom = &e->dom[d];
        const struct tsync__pwl *f = &r->maps[d];
        tsync_time_map *map = NULL;
        uint32_t len = 0, users = 0;
        int rc;

        for (uint32_t v = d; r->parent[v] != TSYNC__NONE; v = r->parent[v])
            len++;
        dom->path_length = len;
        dom->path = p;
        for (uint32_t v = d, k = len + 1; k-- > 0; v = r->parent[v])
            p[k] = v;
        p += len + 1;
        dom->component = r->g.comp[d];
        dom->reference = e->comp_ref[dom->component];
        dom->kind = domain_kind(r, d, f);
        dom->samples = r->parent_edge[d] == TSYNC__NONE ? 0 : r->up[d]->stats.samples;
        for (uint32_t v = d; r->parent[v] != TSYNC__NONE; v = r->parent[v]) {
            const tsync_estimate_sources *s = &r->g.e[r->parent_edge[v]].from;
            dom->sources.messages += s->messages;
            dom->sources.collectives += s->collectives;
            dom->sources.sessions += s->sessions;
            dom->sources.offsets += s->offsets;
        }
        dom->bound_s = dom->kind == TSYNC_BOUND_EXACT ? 0 : INFINITY;
        dom->pieces = r->up[d] ? (uint32_t)r->up[d]->pieces.n : 1;
        if (dom->kind == TSYNC_BOUND_ABSENT || !f->n)
            continue;
        if ((rc = make_map(r, f, dom->kind, &map)))
            return rc;
        if (dom->kind == TSYNC_BOUND_BOUNDED) {
            double worst = 0;
            for (size_t i = 0; i < f->n; i++)
                worst = f->bound[i] > worst ? f->bound[i] : worst;
            dom->bound_s = worst / (double)t->timer_resolution;
        }
        if (f->n > 1 && f->x[f->n - 1] > f->x[0])
            dom->drift = (double)(f->y[f->n - 1] - f->y[0]) / (double)(f->x[f->n - 1] - f->x[0]) - 1;
        {
            tsync_time mid = r->ev_first[d] <= r->ev_last[d]
                                 ? r->ev_first[d] + (r->ev_last[d] - r->ev_first[d]) / 2
                                 : f->x[0];
            dom->offset_s = (double)(tsync_time_map_eval(map, mid) - mid -
                                     e->comp_shift[dom->component]) /
                            (double)t->timer_resolution;
        }
        dom->map = map;
        for (uint32_t i = 0; i < t->n_locations; i++) {
            if (t->locations[i].domain != d)
                continue;
            if ((rc = tsync_map_set_assign(e->maps, i, map, r->ctx)))
                return rc;
            users++;
        }
        if (!users) {                   /* a domain without locations: nobody holds it */
            tsync_time_map_free(map);
            dom->map = NULL;
        }
    }
    return 0;
}

static int fill_edges(struct run *r)
{
    tsync_estimate *e = r->e;
    e->n_edges = r->g.n_edges;
    if (!(e->edges = calloc(e->n_edges ? e->n_edges : 1, sizeof(*e->edges))))
        return tsync__oom(r->ctx);
    for (size_t i = 0; i < e->n_edges; i++) {
        const struct tsync__edge *g = &r->g.e[i];
        tsync_estimate_edge *x = &e->edges[i];
        x->a = g->lo;
        x->b = g->hi;
        x->weight_s = g->weight;
        x->kind = g->kind;
        x->samples = g->fit.stats.samples;
        x->rejected = g->fit.rejected + g->fit.stats.dropped;
        x->pieces = (uint32_t)g->fit.pieces.n;
        x->in_tree = g->in_tree;
        x->sources = g->from;
        e->rejected += g->fit.rejected;
    }
    return 0;
}

/* The grouping and whether the messages inside domains agree with it. */
static int fill_grouping(struct run *r)
{
    tsync_estimate *e = r->e;
    tsync_estimate_grouping *gr = &e->grouping;
    const char *file = tsync_trace_domain_file(r->t);
    const struct tsync_trace *t = r->t;
    char a[32], b[32];
    char *how = file ? tsync__strfmt("the locations share clocks as the domain file %s says", file)
              : t->domain_rule == TSYNC_DOMAIN_LOCATION
                  ? tsync__strfmt("every location has its own clock")
              : t->domain_rule == TSYNC_DOMAIN_NODE
                  ? tsync__strfmt("all locations of a node share one clock (as asked)")
              : !t->n_splits
                  ? tsync__strfmt("all locations of a node share one clock (the default)")
                  : tsync__strfmt("all locations of a node share one clock (the default), except "
                                  "where their own messages contradict it: %zu node%s split "
                                  "(\"%s\" into %u domains: %llu of %llu messages between its "
                                  "locations arrive before they were sent, up to %s, more than "
                                  "%s)", t->n_splits, tsync__plural(t->n_splits, "s"),
                                  t->splits[0].name, t->splits[0].n_parts,
                                  (unsigned long long)t->splits[0].contradicting,
                                  (unsigned long long)t->splits[0].messages,
                                  tsync__fmt_seconds(a, sizeof(a), t->splits[0].max_reversal_s),
                                  tsync__fmt_seconds(b, sizeof(b), t->splits[0].limit_s));
    if (!how)
        return tsync__oom(r->ctx);
    gr->rule = tsync_trace_domain_rule(r->t);
    gr->messages = r->intra.messages;
    gr->reversed = r->intra.reversed;
    gr->contradicting = r->intra.contradicting;
    gr->max_reversal_s = tsync__seconds(r->t, r->intra.max_reversal);
    gr->worst_domain = r->intra.worst_domain;
    if (gr->contradicting)
        e->reason = tsync__strfmt(
            "%s, but contradicted: %llu of %llu messages inside one domain arrive before they "
            "were sent, up to %.3g s (domain \"%s\"), far more than any latency; those "
            "locations do not share a clock: %s", how,
            (unsigned long long)gr->contradicting, (unsigned long long)gr->messages,
            gr->max_reversal_s, e->names[gr->worst_domain],
            file ? "correct the domain file" : "make every location its own domain");
    else if (gr->messages)
        e->reason = tsync__strfmt("%s; the %llu messages inside domains agree with it", how,
                                  (unsigned long long)gr->messages);
    else
        e->reason = tsync__strfmt("%s", how);
    free(how);
    if (!e->reason)
        return tsync__oom(r->ctx);
    gr->reason = e->reason;
    if (gr->contradicting)
        tsync__warn(r->ctx, "%s: %s", r->t->path, e->reason);
    return 0;
}

static void warn_results(const struct run *r)
{
    const tsync_estimate *e = r->e;
    if (e->n_comp > 1) {
        char list[512];
        size_t len = 0;
        for (uint32_t c = 0; c < e->n_comp && len < sizeof(list) - 64; c++)
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s\"%s\"", c ? ", " : "",
                                    e->names[e->comp_ref[c]]);
        tsync__warn(r->ctx, "%s: the messages connect the %u clock domains in %u unrelated "
                    "groups, each with its own reference (%s%s): times in different groups "
                    "cannot be compared", r->t->path, e->n_domains, e->n_comp, list,
                    len >= sizeof(list) - 64 ? ", ..." : "");
    }
    for (size_t i = 0; i < r->g.n_edges; i++) {
        const struct tsync__edge *g = &r->g.e[i];
        if (g->fit.rejected)
            tsync__warn(r->ctx, "%s: domains \"%s\" and \"%s\": %llu of %llu samples contradict "
                        "linear clocks within the minimum segment and were left out (a message "
                        "faster than the minimum latency, a clock step, or a drift beyond "
                        "--max-drift)", r->t->path,
                        e->names[g->lo], e->names[g->hi], (unsigned long long)g->fit.rejected,
                        (unsigned long long)(g->fit.rejected + g->fit.stats.samples));
        if (g->in_tree && g->kind == TSYNC_BOUND_FALLBACK)
            tsync__warn(r->ctx, "%s: domains \"%s\" and \"%s\" are related only by messages in "
                        "one direction (or samples without exchanges): an estimate without a "
                        "two-sided bound", r->t->path, e->names[g->lo], e->names[g->hi]);
    }
}

static void run_free(struct run *r)
{
    if (r->rfit)
        for (size_t i = 0; i < r->g.n_edges; i++)
            tsync__pair_fit_free(&r->rfit[i]);
    if (r->maps)
        for (uint32_t d = 0; d < r->g.n_domains; d++)
            tsync__pwl_free(&r->maps[d]);
    tsync__graph_free(&r->g);
    free(r->rfit);
    free(r->rdone);
    free(r->cuts);
    free(r->fallback);
    free(r->up);
    free(r->maps);
    free(r->parent_edge);
    free(r->parent);
    free(r->order);
    free(r->ev_first);
    free(r->ev_last);
}

static int alloc_run(struct run *r)
{
    size_t n = r->t->n_domains ? r->t->n_domains : 1;
    tsync_estimate *e = r->e;
    r->parent_edge = malloc(n * sizeof(*r->parent_edge));
    r->parent = malloc(n * sizeof(*r->parent));
    r->order = malloc(n * sizeof(*r->order));
    r->fallback = calloc(n, sizeof(*r->fallback));
    r->up = calloc(n, sizeof(*r->up));
    r->maps = calloc(n, sizeof(*r->maps));
    r->ev_first = malloc(n * sizeof(*r->ev_first));
    r->ev_last = malloc(n * sizeof(*r->ev_last));
    e->dom = calloc(n, sizeof(*e->dom));
    e->names = calloc(n, sizeof(*e->names));
    if (!r->parent_edge || !r->parent || !r->order || !r->fallback || !r->up || !r->maps ||
        !r->ev_first || !r->ev_last || !e->dom || !e->names)
        return tsync__oom(r->ctx);
    for (uint32_t d = 0; d < r->t->n_domains; d++) {
        const char *name = r->t->domains[d].name ? r->t->domains[d].name : "";
        if (!(e->names[d] = strdup(name)))
            return tsync__oom(r->ctx);
        e->dom[d].name = e->names[d];
    }
    for (uint32_t i = 0; i < r->t->n_locations; i++)
        if (r->t->locations[i].domain < r->t->n_domains)
            e->dom[r->t->locations[i].domain].locations++;
    return tsync__graph_init(&r->g, r->t->n_domains) ? tsync__oom(r->ctx) : 0;
}

int tsync_estimate_run(tsync_estimate **out, const tsync_trace *t, const tsync_estimate_opts *opts,
                       tsync_ctx *ctx)
{
    static const tsync_estimate_opts defaults = TSYNC_ESTIMATE_OPTS_INIT;
    struct tsync__sample_opts so;
    struct run r;
    tsync_estimate *e;
    struct tsync__tree tree;
    int rc;

    if (!out || !t)
        return tsync__fail(ctx, TSYNC_EINVAL, "estimate: no trace");
    if (!opts)
        opts = &defaults;
    memset(&r, 0, sizeof(r));
    memset(&so, 0, sizeof(so));
    r.t = t;
    r.ctx = ctx;
    if ((rc = check_opts(&r, opts, &so)))
        return rc;
    if (!(e = r.e = calloc(1, sizeof(*e))))
        return tsync__oom(ctx);
    e->opts = *opts;
    e->opts.reference = NULL;
    e->opts.reference_rule = opts->version >= 2 ? opts->reference_rule : TSYNC_REFERENCE_AUTO;
    e->opts.max_wander = opts->version >= 2 ? opts->max_wander : 1e-8;
    e->reference_given = r.forced != TSYNC__NONE;
    e->resolution = t->timer_resolution;
    e->n_domains = t->n_domains;
    r.est = tsync__estimator_for(opts->estimator);

    if ((rc = alloc_run(&r)) || (rc = time_base(&r, opts)) ||
        (rc = tsync_map_set_new_empty(&e->maps, t, ctx)))
        goto fail;
    if ((rc = tsync__collect_samples(&r.g, t, &so, &r.intra)))
        goto oom;
    if (!r.est) {                     /* estimator none: nothing relates the domains */
        for (size_t i = 0; i < r.g.n_edges; i++)
            tsync__pair_samples_free(&r.g.e[i].s);
        r.g.n_edges = 0;
    }
    event_ranges(&r);
    if ((rc = tsync__graph_link(&r.g)) || !(r.cuts = calloc(r.g.n_edges ? r.g.n_edges : 1, 1)) ||
        (r.est && (rc = fit_edges(&r))))
        goto oom;
    e->n_comp = r.g.n_comp;
    if (!(e->comp_ref = malloc((e->n_comp ? e->n_comp : 1) * sizeof(*e->comp_ref))) ||
        !(e->comp_shift = calloc(e->n_comp ? e->n_comp : 1, sizeof(*e->comp_shift))) ||
        !(r.rfit = calloc(r.g.n_edges ? r.g.n_edges : 1, sizeof(*r.rfit))) ||
        !(r.rdone = calloc(r.g.n_edges ? r.g.n_edges : 1, 1)) ||
        !(e->comp_how = calloc(e->n_comp ? e->n_comp : 1, sizeof(*e->comp_how))) ||
        (rc = tsync__choose_references(&r.g, r.forced, r.base, e->comp_ref)) ||
        (rc = build_tree(&r, e->comp_ref)))
        goto oom;
    for (uint32_t c = 0; c < e->n_comp; c++)
        e->comp_how[c] = e->comp_ref[c] == r.forced ? TSYNC__REF_GIVEN
                       : e->comp_ref[c] == r.base   ? r.base_how
                                                    : TSYNC__REF_AUTO;
    tree.n = t->n_domains;
    tree.order = r.order;
    tree.parent = r.parent;
    tree.up = r.up;
    tree.ev_first = r.ev_first;
    tree.ev_last = r.ev_last;
    if ((rc = tsync__compose_tree(r.maps, &tree)) || (rc = compose_periods(&r, e->comp_ref)) ||
        (opts->global_lsq &&
         (rc = tsync__global_lsq(r.maps, &r.g, e->comp_ref, r.ev_first, r.ev_last))) ||
        (rc = shift_components(&r)))
        goto oom;
    if ((rc = fill_domains(&r)) || (rc = fill_edges(&r)) || (rc = fill_grouping(&r)))
        goto fail;
    warn_results(&r);
    tsync__progress(ctx, "estimate pairs", r.g.n_edges, r.g.n_edges);
    run_free(&r);
    *out = e;
    return 0;
oom:
    rc = tsync__oom(ctx);
fail:
    run_free(&r);
    tsync_estimate_free(e);
    return rc;
}

/* ---- getters ------------------------------------------------------------------------------- */

void tsync_estimate_free(tsync_estimate *e)
{
    if (!e)
        return;
    tsync_map_set_free(e->maps);
    if (e->names)
        for (uint32_t d = 0; d < e->n_domains; d++)
            free(e->names[d]);
    free(e->names);
    free(e->dom);
    free(e->paths);
    free(e->edges);
    free(e->comp_ref);
    free(e->comp_shift);
    free(e->comp_how);
    free(e->base_why);
    free(e->reason);
    free(e);
}

const tsync_map_set *tsync_estimate_maps(const tsync_estimate *e) { return e->maps; }

const char *tsync_estimate_estimator_name(const tsync_estimate *e)
{
    const struct tsync__estimator *est = tsync__estimator_for(e->opts.estimator);
    return est ? est->name : "none";
}

int tsync_estimator_parse(const char *name, enum tsync_estimator *out)
{
    static const enum tsync_estimator all[] = { TSYNC_ESTIMATOR_HULL, TSYNC_ESTIMATOR_REGRESSION };
    for (size_t i = 0; name && i < sizeof(all) / sizeof(all[0]); i++)
        if (strcmp(name, tsync__estimator_for(all[i])->name) == 0) {
            *out = all[i];
            return 0;
        }
    if (name && strcmp(name, "none") == 0) {
        *out = TSYNC_ESTIMATOR_NONE;
        return 0;
    }
    return TSYNC_EINVAL;
}

const char *tsync_bound_kind_name(enum tsync_bound_kind kind)
{
    switch (kind) {
    case TSYNC_BOUND_EXACT: return "exact";
    case TSYNC_BOUND_BOUNDED: return "bounded";
    case TSYNC_BOUND_FALLBACK: return "fallback";
    default: return "absent";
    }
}

uint32_t tsync_estimate_domain_count(const tsync_estimate *e) { return e->n_domains; }

const tsync_estimate_domain *tsync_estimate_get_domain(const tsync_estimate *e, uint32_t d)
{
    return d < e->n_domains ? &e->dom[d] : NULL;
}

size_t tsync_estimate_edge_count(const tsync_estimate *e) { return e->n_edges; }

const tsync_estimate_edge *tsync_estimate_get_edge(const tsync_estimate *e, size_t i)
{
    return i < e->n_edges ? &e->edges[i] : NULL;
}

uint32_t tsync_estimate_component_count(const tsync_estimate *e) { return e->n_comp; }

size_t tsync_estimate_period_count(const tsync_estimate *e) { return e->periods; }

uint32_t tsync_estimate_component_reference(const tsync_estimate *e, uint32_t c)
{
    return c < e->n_comp ? e->comp_ref[c] : UINT32_MAX;
}

const char *tsync_estimate_reference_rule(const tsync_estimate *e, uint32_t c, const char **why)
{
    static const char *const name[] = { "auto", "given", "master", "rank0" };
    uint8_t how;
    if (c >= e->n_comp)
        return NULL;
    how = e->comp_how[c];
    if (why)
        *why = how == TSYNC__REF_AUTO ? e->auto_why : how == TSYNC__REF_GIVEN ? "as given"
                                                                                : e->base_why;
    return name[how];
}

int64_t tsync_estimate_component_shift(const tsync_estimate *e, uint32_t c)
{
    return c < e->n_comp ? e->comp_shift[c] : 0;
}

const tsync_estimate_grouping *tsync_estimate_get_grouping(const tsync_estimate *e)
{
    return &e->grouping;
}
