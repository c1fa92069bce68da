/* result.c - the estimate's result: per-domain maps, paths and summaries, the
 * edges, the grouping and the warnings, built from the run; and the getters.
 */
#include <math.h>
#include <stdlib.h>

#include "estimate/run.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/units.h"

/* Kind of domain d: the reference is exact; a path with a fallback edge or an
 * unbounded point makes a fallback. */
static enum tsync_bound_kind domain_kind(const struct tsync__run *r, uint32_t d,
                                         const struct tsync__pwl *f)
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
static int make_map(struct tsync__run *r, const struct tsync__pwl *f, enum tsync_bound_kind kind,
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
static int fill_domains(struct tsync__run *r)
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
        /* What the pair toward the parent rests on (one fit serves both ends). */
        const struct tsync__fit_sum *up = r->parent_edge[d] == TSYNC__NONE
                                              ? NULL
                                              : &tsync__pair_of(&r->g.e[r->parent_edge[d]])->sum;
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
        dom->samples = r->parent_edge[d] == TSYNC__NONE ? 0 : up->samples;
        for (uint32_t v = d; r->parent[v] != TSYNC__NONE; v = r->parent[v]) {
            const tsync_estimate_sources *s = &tsync__pair_of(&r->g.e[r->parent_edge[v]])->from;
            dom->sources.messages += s->messages;
            dom->sources.collectives += s->collectives;
            dom->sources.sessions += s->sessions;
            dom->sources.offsets += s->offsets;
        }
        dom->bound_s = dom->kind == TSYNC_BOUND_EXACT ? 0 : INFINITY;
        dom->pieces = r->parent_edge[d] == TSYNC__NONE ? 1 : up->pieces;
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
            dom->drift =
                (double)(f->y[f->n - 1] - f->y[0]) / (double)(f->x[f->n - 1] - f->x[0]) - 1;
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

static int fill_edges(struct tsync__run *r)
{
    tsync_estimate *e = r->e;
    e->n_edges = r->g.n_edges;
    if (!(e->edges = calloc(e->n_edges ? e->n_edges : 1, sizeof(*e->edges))))
        return tsync__oom(r->ctx);
    for (size_t i = 0; i < e->n_edges; i++) {
        const struct tsync__edge *g = &r->g.e[i];
        const struct tsync__pair *p = tsync__pair_of(g);
        tsync_estimate_edge *x = &e->edges[i];
        x->a = g->lo;
        x->b = g->hi;
        x->weight_s = g->weight;
        x->kind = g->kind;
        x->samples = p->sum.samples;
        x->rejected = p->sum.rejected + p->sum.dropped;
        x->pieces = p->sum.pieces;
        x->in_tree = g->in_tree;
        x->sources = p->from;
        e->rejected += p->sum.rejected;
    }
    return 0;
}

/* The grouping and whether the messages inside domains agree with it. */
static int fill_grouping(struct tsync__run *r)
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
                                  "(\"%s\" into %u domains: %llu of %llu messages "
                                  "(collectives' logical ones too) between its locations "
                                  "arrive before they were sent, up to %s, more than %s)",
                                  t->n_splits, tsync__plural(t->n_splits, "s"),
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

int tsync__est_fill_result(struct tsync__run *r)
{
    int rc;
    if ((rc = fill_domains(r)) || (rc = fill_edges(r)) || (rc = fill_grouping(r)))
        return rc;
    return 0;
}

void tsync__est_warn(const struct tsync__run *r)
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
        const struct tsync__pair *p = tsync__pair_of(g);
        if (p->sum.rejected)
            tsync__warn(r->ctx, "%s: domains \"%s\" and \"%s\": %llu of %llu samples contradict "
                        "linear clocks within the minimum segment and were left out (a message "
                        "faster than the minimum latency, a clock step, or a drift beyond "
                        "--max-drift)", r->t->path,
                        e->names[g->lo], e->names[g->hi], (unsigned long long)p->sum.rejected,
                        (unsigned long long)(p->sum.rejected + p->sum.samples));
        if (g->in_tree && g->kind == TSYNC_BOUND_FALLBACK)
            tsync__warn(r->ctx, "%s: domains \"%s\" and \"%s\" are related only by messages in "
                        "one direction (or samples without exchanges): an estimate without a "
                        "two-sided bound", r->t->path, e->names[g->lo], e->names[g->hi]);
    }
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
    return tsync_estimator_name(e->opts.estimator);
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
