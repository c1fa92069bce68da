/* estimate.c - tsync_estimate_run: samples, pairwise estimates, the graph of
 * domains, references, composed maps, busy periods, shifts and the result. The
 * stages are in their own files (see run.h); this one only runs them in order, on
 * one process or, with parts.c between them, on several that hold the trace in
 * parts (tsync__estimate_run_part).
 */
#include <stdlib.h>
#include <string.h>

#include "estimate/estimate_api.h"
#include "estimate/run.h"
#include "util/ctx.h"

static void run_free(struct tsync__run *r)
{
    if (r->maps)
        for (uint32_t d = 0; d < r->g.n_domains; d++)
            tsync__pwl_free(&r->maps[d]);
    tsync__graph_free(&r->g);
    free(r->cuts);
    free(r->fallback);
    free(r->maps);
    free(r->parent_edge);
    free(r->parent);
    free(r->order);
    free(r->ev_first);
    free(r->ev_last);
    tsync__spans_free(&r->spans);
    tsync__message_lists_free(r->lists, r->n_lists);
    tsync__coll_whole_free(r->whole);
}

static int alloc_run(struct tsync__run *r)
{
    size_t n = r->t->n_domains ? r->t->n_domains : 1;
    tsync_estimate *e = r->e;
    r->parent_edge = malloc(n * sizeof(*r->parent_edge));
    r->parent = malloc(n * sizeof(*r->parent));
    r->order = malloc(n * sizeof(*r->order));
    r->fallback = calloc(n, sizeof(*r->fallback));
    r->maps = calloc(n, sizeof(*r->maps));
    r->ev_first = malloc(n * sizeof(*r->ev_first));
    r->ev_last = malloc(n * sizeof(*r->ev_last));
    e->dom = calloc(n, sizeof(*e->dom));
    e->names = calloc(n, sizeof(*e->names));
    if (!r->parent_edge || !r->parent || !r->order || !r->fallback || !r->maps ||
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
    return tsync__graph_init(&r->g, r->t->n_domains, tsync__pair_free) ? tsync__oom(r->ctx) : 0;
}

/* First and last event time of every domain (first > last when it has none), from
 * its locations' events held here or, read as message lists, their extents. */
static void event_ranges(struct tsync__run *r)
{
    const struct tsync_trace *t = r->t;
    for (uint32_t d = 0; d < t->n_domains; d++) {
        r->ev_first[d] = INT64_MAX;
        r->ev_last[d] = INT64_MIN;
    }
    for (uint32_t i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        const struct tsync_extent *x = t->extents ? &t->extents[i] : NULL;
        tsync_time first, last;
        if (!(x ? x->events : l->n_events) || l->domain >= t->n_domains || !tsync__held(t, i))
            continue;
        first = x ? x->first : l->time[0];
        last = x ? x->last : l->time[l->n_events - 1];
        if (first < r->ev_first[l->domain])
            r->ev_first[l->domain] = first;
        if (last > r->ev_last[l->domain])
            r->ev_last[l->domain] = last;
    }
}

/* Every location's busy intervals, for the busy periods (none without max_gap). */
static int location_spans(struct tsync__run *r)
{
    int64_t g = tsync__est_period_gap(r);
    if (g <= 0)
        return 0;
    return r->lists ? tsync__spans_of_lists(&r->spans, r->t, r->lists, r->n_lists, g)
                    : tsync__spans_of_events(&r->spans, r->t, g);
}

/* The weighted least squares over every pair, at the pairs' anchors. 0 or
 * TSYNC_ENOMEM. */
static int global_lsq(struct tsync__run *r)
{
    size_t n = r->g.n_edges;
    struct tsync__anchors *an = calloc(n ? n : 1, sizeof(*an));
    int rc = an ? tsync__est_anchors(r, an) : TSYNC_ENOMEM;
    if (rc == 0)
        rc = tsync__global_lsq(r->maps, &r->g, r->e->comp_ref, an);
    for (size_t i = 0; an && i < n; i++)
        free(an[i].v);
    free(an);
    return rc;
}

int tsync__estimate_takes_lists(const tsync_estimate_opts *opts)
{
    const struct tsync__estimator *est = tsync__estimator_get(opts->estimator);
    return est && !(est->needs & TSYNC__NEEDS_EXCHANGES);
}

/* The run's options and what it holds, before the samples: *so the samples'
 * options; r->e the result being made. Takes `lists` (n of them) where t was read as
 * message lists (freed on failure). 0 or a negative TSYNC_E* code (run_free and
 * tsync_estimate_free clean up). */
static int setup(struct tsync__run *r, struct tsync__sample_opts *so, const tsync_trace *t,
                 struct tsync_message_list *lists, size_t n_lists, const tsync_estimate_opts *opts,
                 tsync_ctx *ctx)
{
    tsync_estimate *e;
    int rc;

    memset(r, 0, sizeof(*r));
    memset(so, 0, sizeof(*so));
    r->t = t;
    r->ctx = ctx;
    r->lists = lists;
    r->n_lists = n_lists;
    if ((rc = tsync__est_check_opts(r, opts, so)))
        return rc;
    if (!(e = r->e = calloc(1, sizeof(*e))))
        return tsync__oom(ctx);
    e->opts = *opts;
    e->opts.reference = NULL;
    e->opts.latency_file = NULL;  /* borrowed by the run only */
    e->opts.reference_rule = opts->version >= 2 ? opts->reference_rule : TSYNC_REFERENCE_AUTO;
    e->opts.max_wander = opts->version >= 2 ? opts->max_wander : 1e-8;
    e->reference_given = r->forced != TSYNC__NONE;
    e->resolution = t->timer_resolution;
    e->latency_pairs = (uint32_t)so->lat.n;
    e->n_domains = t->n_domains;
    r->est = tsync__estimator_for(opts->estimator);
    if ((rc = alloc_run(r)) || (rc = tsync__est_time_base(r, opts)) ||
        (rc = tsync_map_set_new_empty(&e->maps, t, ctx)))
        return rc;
    return location_spans(r) ? tsync__oom(ctx) : 0;
}

/* The pairs, their samples collected: fitted (those held here), the graph linked. */
static int fit(struct tsync__run *r)
{
    if (!r->est) {                    /* estimator none: nothing relates the domains */
        for (size_t i = 0; i < r->g.n_edges; i++)
            tsync__pair_free(r->g.e[i].pair);
        r->g.n_edges = 0;
    }
    if (tsync__graph_link(&r->g) || !(r->cuts = calloc(r->g.n_edges ? r->g.n_edges : 1, 1)) ||
        (r->est && tsync__est_fit_edges(r)))
        return tsync__oom(r->ctx);
    return 0;
}

/* From the pairs' weights to the result: references, trees, maps, busy periods,
 * the global least squares, shifts, warnings. */
static int compose(struct tsync__run *r)
{
    tsync_estimate *e = r->e;
    int rc;
    e->n_comp = r->g.n_comp;
    if (!(e->comp_ref = malloc((e->n_comp ? e->n_comp : 1) * sizeof(*e->comp_ref))) ||
        !(e->comp_shift = calloc(e->n_comp ? e->n_comp : 1, sizeof(*e->comp_shift))) ||
        !(e->comp_how = calloc(e->n_comp ? e->n_comp : 1, sizeof(*e->comp_how))))
        return tsync__oom(r->ctx);
    if ((rc = tsync__choose_references(&r->g, r->forced, r->base, e->comp_ref)) ||
        (rc = tsync__est_build_tree(r, e->comp_ref)))
        goto out;
    for (uint32_t c = 0; c < e->n_comp; c++)
        e->comp_how[c] = e->comp_ref[c] == r->forced ? TSYNC__REF_GIVEN
                       : e->comp_ref[c] == r->base   ? r->base_how
                                                     : TSYNC__REF_AUTO;
    if ((rc = tsync__est_compose(r, r->ev_first, r->ev_last, r->maps)) ||
        (rc = tsync__est_compose_periods(r, e->comp_ref)) ||
        (e->opts.global_lsq && (rc = global_lsq(r))) || (rc = tsync__est_shift_components(r)))
        goto out;
    if ((rc = tsync__est_fill_result(r)))
        return rc;
    tsync__est_warn(r);
    tsync__progress(r->ctx, "estimate pairs", r->g.n_edges, r->g.n_edges);
out:
    /* The stages say only ENOMEM; another process's failure was reported. */
    return rc == TSYNC_ENOMEM ? tsync__oom(r->ctx) : rc;
}

/* tsync_estimate_run, taking `lists` (n of them) where t was read as message lists. */
static int run(tsync_estimate **out, const tsync_trace *t, struct tsync_message_list *lists,
               size_t n_lists, const tsync_estimate_opts *opts, tsync_ctx *ctx)
{
    static const tsync_estimate_opts defaults = TSYNC_ESTIMATE_OPTS_INIT;
    struct tsync__sample_opts so;
    struct tsync__run r;
    int rc;

    if (!out || !t) {
        tsync__message_lists_free(lists, n_lists);
        return tsync__fail(ctx, TSYNC_EINVAL, "estimate: no trace");
    }
    if ((rc = setup(&r, &so, t, lists, n_lists, opts ? opts : &defaults, ctx)) == 0) {
        rc = tsync__collect_samples(&r.g, t, r.lists, r.n_lists, &so, &r.intra);
        r.lists = NULL;               /* taken, also on failure */
        if (rc)
            rc = tsync__oom(ctx);
    }
    if (rc == 0) {
        event_ranges(&r);
        if ((rc = fit(&r)) == 0)
            rc = compose(&r);
    }
    run_free(&r);
    tsync__latency_free(&so.lat);
    if (rc) {
        tsync_estimate_free(r.e);
        return rc;
    }
    *out = r.e;
    return 0;
}

int tsync__estimate_run_part(tsync_map_set **out, tsync_trace *t,
                             const tsync_estimate_opts *opts,
                             const struct tsync__est_transport *tr, tsync_ctx *ctx)
{
    static const tsync_estimate_opts defaults = TSYNC_ESTIMATE_OPTS_INIT;
    struct tsync_coll_whole *whole = t->whole;
    struct tsync__sample_opts so;
    struct tsync__run r;
    int rc;

    *out = NULL;
    t->whole = NULL;
    rc = tsync__parts_agree(tr, setup(&r, &so, t, NULL, 0, opts ? opts : &defaults, ctx), ctx);
    r.tr = tr;
    r.whole = whole;
    if (rc == 0 && (rc = tsync__parts_collect(&r, &so)) == 0) {
        event_ranges(&r);
        if ((rc = tsync__parts_ranges(&r)) == 0 &&
            (rc = tsync__parts_agree(tr, fit(&r), ctx)) == 0 &&
            (rc = tsync__parts_gather(&r)) == 0)
            rc = tr->rank == 0 ? tr->done(tr->arg, compose(&r)) : tsync__parts_serve(&r);
    }
    if (rc == 0)
        rc = tsync__parts_maps(out, &r);
    run_free(&r);
    tsync__latency_free(&so.lat);
    tsync_estimate_free(r.e);
    return rc;
}

int tsync_estimate_run(tsync_estimate **out, const tsync_trace *t, const tsync_estimate_opts *opts,
                       tsync_ctx *ctx)
{
    return run(out, t, NULL, 0, opts, ctx);
}

int tsync__estimate_run_lists(tsync_estimate **out, tsync_trace *t, const tsync_estimate_opts *opts,
                              tsync_ctx *ctx)
{
    struct tsync_message_list *lists = t ? t->lists : NULL;
    size_t n = t ? t->n_lists : 0;
    if (t) {
        t->lists = NULL;
        t->n_lists = 0;
    }
    return run(out, t, lists, n, opts, ctx);
}
