/* compose.c - maps composed along shortest paths: a domain's map onto its
 * reference is its parent's map after the pair's function (seed 003, Eq. 10:
 * D_13(t) = D_12(t) + D_23(t)), and the errors add up along the path, as the seed's
 * E_r does.
 *
 * Functions are piecewise linear on integer ticks with a bound per point
 * (tsync__pwl). g o h has a breakpoint wherever h has one and wherever h reaches a
 * breakpoint of g, so it is exact on those points; values are computed in long
 * double from both functions and rounded once. The bound of the composition at x is
 *
 *     bound_g(h(x)) + slope_g(h(x)) * bound_h(x) + 1
 *
 * (an error of h moves the argument of g; one tick for rounding), linear between
 * the points like both terms.
 *
 * Ranges. A map must cover every time it is asked for: its domain's events, and
 * every time its children's pair functions land on. The ranges are found from the
 * leaves up before the maps are composed from the references down.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

/* The segment of f for x: the last k < n - 1 with x_k <= x, 0 before the first. */
static size_t segment_of(const struct tsync__pwl *f, long double x)
{
    size_t lo = 0, hi = f->n - 1;
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((long double)f->x[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static long double seg_slope(const struct tsync__pwl *f, size_t k)
{
    return (long double)(f->y[k + 1] - f->y[k]) / (long double)(f->x[k + 1] - f->x[k]);
}

long double tsync__pwl_eval(const struct tsync__pwl *f, long double x)
{
    size_t k;
    if (f->n == 1)
        return (long double)f->y[0] + (x - (long double)f->x[0]);
    k = segment_of(f, x);
    return (long double)f->y[k] + seg_slope(f, k) * (x - (long double)f->x[k]);
}

double tsync__pwl_bound(const struct tsync__pwl *f, long double x)
{
    size_t k;
    long double w;
    if (f->n == 1 || x <= (long double)f->x[0])
        return f->bound[0];
    if (x >= (long double)f->x[f->n - 1])
        return f->bound[f->n - 1];
    k = segment_of(f, x);
    if (!isfinite(f->bound[k]) || !isfinite(f->bound[k + 1]))
        return INFINITY;
    w = (x - (long double)f->x[k]) / (long double)(f->x[k + 1] - f->x[k]);
    return (double)((1 - w) * f->bound[k] + w * f->bound[k + 1]);
}

/* The steepest slope of f at x (both sides at a breakpoint). */
static long double slope_at(const struct tsync__pwl *f, long double x)
{
    size_t k;
    long double s;
    if (f->n == 1)
        return 1;
    k = segment_of(f, x);
    s = seg_slope(f, k);
    if (k + 2 < f->n && (long double)f->x[k + 1] == x && seg_slope(f, k + 1) > s)
        s = seg_slope(f, k + 1);
    return s;
}

int tsync__pwl_identity(struct tsync__pwl *out, tsync_time from, tsync_time to)
{
    if (tsync__pwl_alloc(out, 2))
        return TSYNC_ENOMEM;
    out->x[0] = out->y[0] = from;
    out->bound[0] = 0;
    out->n = 1;
    if (to > from) {
        out->x[1] = out->y[1] = to;
        out->bound[1] = 0;
        out->n = 2;
    }
    return 0;
}

/* Appends the point of g o h at x (skipped unless right of the last one). */
static void put(struct tsync__pwl *out, const struct tsync__pwl *g, const struct tsync__pwl *h,
                tsync_time x)
{
    long double u = tsync__pwl_eval(h, (long double)x);
    double bh = tsync__pwl_bound(h, (long double)x), bg = tsync__pwl_bound(g, u);
    if (tsync__pwl_push(out, x, (tsync_time)llroundl(tsync__pwl_eval(g, u))))
        out->bound[out->n - 1] =
            isfinite(bh) && isfinite(bg)
                ? (double)((long double)bg + slope_at(g, u) * (long double)bh) + 1
                : INFINITY;
}

int tsync__pwl_compose(struct tsync__pwl *out, const struct tsync__pwl *g,
                       const struct tsync__pwl *h)
{
    size_t j = 0;
    if (tsync__pwl_alloc(out, h->n + g->n + 1))
        return TSYNC_ENOMEM;
    for (size_t k = 0; k < h->n; k++) {
        put(out, g, h, h->x[k]);
        if (k + 1 == h->n || h->y[k + 1] <= h->y[k])
            continue;
        /* g's breakpoints that h reaches inside this segment. */
        while (j < g->n && g->x[j] <= h->y[k])
            j++;
        for (; j < g->n && g->x[j] < h->y[k + 1]; j++) {
            long double f = (long double)(g->x[j] - h->y[k]) / (long double)(h->y[k + 1] - h->y[k]);
            tsync_time x = h->x[k] + (tsync_time)llroundl(f * (long double)(h->x[k + 1] - h->x[k]));
            if (x > h->x[k] && x < h->x[k + 1])
                put(out, g, h, x);
        }
    }
    return 0;
}

/* ---- a forest of paths ----------------------------------------------------------------- */

int tsync__compose_tree(struct tsync__pwl *maps, const struct tsync__tree *t)
{
    size_t n = t->n ? t->n : 1;
    tsync_time *lo = malloc(n * sizeof(*lo)), *hi = malloc(n * sizeof(*hi));
    struct tsync__pwl *up = calloc(n, sizeof(*up));
    int rc = 0;

    memset(maps, 0, t->n * sizeof(*maps));
    if (!lo || !hi || !up) {
        rc = TSYNC_ENOMEM;
        goto out;
    }
    for (uint32_t d = 0; d < t->n; d++) {
        lo[d] = t->ev_first[d];
        hi[d] = t->ev_last[d];
    }
    /* Leaves up: each pair function over its child's range, which widens the
     * parent's by where it lands. */
    for (uint32_t i = t->n; i-- > 0;) {
        uint32_t d = t->order[i], p = t->parent[d];
        const struct tsync__pair_fit *fit = t->up[d];
        tsync_time a, b;
        if (p == TSYNC__NONE || !fit || fit->pieces.n == 0)
            continue;
        if (lo[d] > hi[d]) {        /* no events: the samples' own span */
            lo[d] = fit->pieces.v[0].x_first;
            hi[d] = fit->pieces.v[fit->pieces.n - 1].x_last;
        }
        if ((rc = tsync__pwl_from_fit(&up[d], fit, lo[d], hi[d])))
            goto out;
        tsync__pwl_open_bounds(fit, &up[d]);
        if ((rc = tsync__envelope_bound(fit, &up[d])))
            goto out;
        a = (tsync_time)floorl(tsync__pwl_eval(&up[d], (long double)lo[d])) - 1;
        b = (tsync_time)ceill(tsync__pwl_eval(&up[d], (long double)hi[d])) + 1;
        if (lo[p] > hi[p]) {
            lo[p] = a;
            hi[p] = b;
        } else {
            lo[p] = a < lo[p] ? a : lo[p];
            hi[p] = b > hi[p] ? b : hi[p];
        }
    }
    /* References down. */
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t d = t->order[i], p = t->parent[d];
        if (p == TSYNC__NONE || up[d].n == 0)
            rc = tsync__pwl_identity(&maps[d], lo[d] <= hi[d] ? lo[d] : 0,
                                     lo[d] <= hi[d] ? hi[d] : 0);
        else
            rc = tsync__pwl_compose(&maps[d], &maps[p], &up[d]);
        if (rc)
            goto out;
    }
out:
    if (up)
        for (uint32_t d = 0; d < t->n; d++)
            tsync__pwl_free(&up[d]);
    free(up);
    free(lo);
    free(hi);
    if (rc)
        for (uint32_t d = 0; d < t->n; d++)
            tsync__pwl_free(&maps[d]);
    return rc;
}
