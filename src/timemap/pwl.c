/* pwl.c - piecewise-linear functions of ticks with a bound per point: what a
 * pair of clocks and a domain's map become (struct tsync__pwl). Storage,
 * evaluation, bounds, composition along a path, inversion, lowering of bounds.
 *
 * Composition. g o h has a breakpoint wherever h has one and wherever h reaches a
 * breakpoint of g, so it is exact on those points; values are computed in long
 * double from both functions and rounded once. The bound of the composition at x is
 *
 *     bound_g(h(x)) + slope_g(h(x)) * bound_h(x) + 1
 *
 * (an error of h moves the argument of g; one tick for rounding), linear between
 * the points like both terms.
 *
 * Inversion. A pair estimated with one clock as x serves paths from either end: the
 * other end's function is the inverse, f's points with x and y swapped. If the true
 * function T is within b of f at x = f^-1(y) and its slope is at least s, then T
 * reaches y within b / s of x: |T(x) - T(x*)| = |T(x) - y| <= b with T(x*) = y. On a
 * segment both x and b are linear in y, so the points' bounds b / s cover it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timemap/pwl.h"
#include "util/vec.h"

void tsync__pwl_free(struct tsync__pwl *f)
{
    free(f->x);
    free(f->y);
    free(f->bound);
    memset(f, 0, sizeof(*f));
}

int tsync__pwl_alloc(struct tsync__pwl *f, size_t cap)
{
    memset(f, 0, sizeof(*f));
    f->x = tsync__alloc_array(cap, sizeof(*f->x));
    f->y = tsync__alloc_array(cap, sizeof(*f->y));
    f->bound = tsync__alloc_array(cap, sizeof(*f->bound));
    if (!f->x || !f->y || !f->bound) {
        tsync__pwl_free(f);
        return TSYNC_ENOMEM;
    }
    return 0;
}

int tsync__pwl_push(struct tsync__pwl *f, tsync_time x, tsync_time y)
{
    if (f->n && x <= f->x[f->n - 1])
        return 0;
    f->x[f->n] = x;
    f->y[f->n] = f->n && y < f->y[f->n - 1] ? f->y[f->n - 1] : y;
    f->n++;
    return 1;
}

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

/* f at x in segment k (segment_of's or segment_from's answer for x). */
static long double value_in(const struct tsync__pwl *f, size_t k, long double x)
{
    if (f->n == 1)
        return (long double)f->y[0] + (x - (long double)f->x[0]);
    return (long double)f->y[k] + seg_slope(f, k) * (x - (long double)f->x[k]);
}

long double tsync__pwl_eval(const struct tsync__pwl *f, long double x)
{
    return value_in(f, f->n == 1 ? 0 : segment_of(f, x), x);
}

/* segment_of(f, x) for x at or after point k of f: from k on, for increasing x
 * without a search each. */
static size_t segment_from(const struct tsync__pwl *f, size_t k, long double x)
{
    if (f->n < 2)
        return 0;
    if (k + 2 > f->n)
        k = f->n - 2;
    while (k + 2 < f->n && (long double)f->x[k + 1] <= x)
        k++;
    return k;
}

long double tsync__pwl_eval_from(const struct tsync__pwl *f, size_t k, long double x)
{
    return value_in(f, segment_from(f, k, x), x);
}

/* The bound at x in segment k of f (segment_of's answer for x). */
static double bound_in(const struct tsync__pwl *f, size_t k, long double x)
{
    long double w;
    if (f->n == 1 || x <= (long double)f->x[0])
        return f->bound[0];
    if (x >= (long double)f->x[f->n - 1])
        return f->bound[f->n - 1];
    if (!isfinite(f->bound[k]) || !isfinite(f->bound[k + 1]))
        return INFINITY;
    w = (x - (long double)f->x[k]) / (long double)(f->x[k + 1] - f->x[k]);
    return (double)((1 - w) * f->bound[k] + w * f->bound[k + 1]);
}

double tsync__pwl_bound(const struct tsync__pwl *f, long double x)
{
    return bound_in(f, segment_of(f, x), x);
}

/* The steepest slope of f at x in segment k (both sides at a breakpoint). */
static long double slope_in(const struct tsync__pwl *f, size_t k, long double x)
{
    long double s;
    if (f->n == 1)
        return 1;
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

/* Appends the point of g o h at x, at or after point k of h (skipped unless right of
 * the last one). */
static void put(struct tsync__pwl *out, const struct tsync__pwl *g, const struct tsync__pwl *h,
                size_t k, tsync_time x)
{
    size_t kh = segment_from(h, k, (long double)x), kg;
    long double u = value_in(h, kh, (long double)x);
    double bh = bound_in(h, kh, (long double)x), bg;
    kg = g->n == 1 ? 0 : segment_of(g, u);      /* one search for g's value, bound, slope */
    bg = bound_in(g, kg, u);
    if (tsync__pwl_push(out, x, (tsync_time)llroundl(value_in(g, kg, u))))
        out->bound[out->n - 1] =
            isfinite(bh) && isfinite(bg)
                ? (double)((long double)bg + slope_in(g, kg, u) * (long double)bh) + 1
                : INFINITY;
}

int tsync__pwl_compose(struct tsync__pwl *out, const struct tsync__pwl *g,
                       const struct tsync__pwl *h)
{
    size_t j = 0;
    if (tsync__pwl_alloc(out, h->n + g->n + 1))
        return TSYNC_ENOMEM;
    for (size_t k = 0; k < h->n; k++) {
        put(out, g, h, k, h->x[k]);
        if (k + 1 == h->n || h->y[k + 1] <= h->y[k])
            continue;
        /* g's breakpoints that h reaches inside this segment. */
        while (j < g->n && g->x[j] <= h->y[k])
            j++;
        for (; j < g->n && g->x[j] < h->y[k + 1]; j++) {
            long double f = (long double)(g->x[j] - h->y[k]) / (long double)(h->y[k + 1] - h->y[k]);
            tsync_time x = h->x[k] + (tsync_time)llroundl(f * (long double)(h->x[k + 1] - h->x[k]));
            if (x > h->x[k] && x < h->x[k + 1])
                put(out, g, h, k, x);
        }
    }
    return 0;
}

/* Beyond its ends a map is inverted along its end segment, unless that segment is
 * flatter than 1/MAX_RATE or steeper than MAX_RATE: no clock runs at such a rate
 * against another (max_drift < 0.5); it is a clock step (a joint raised to keep the
 * map monotone where a clock jumped: a fuzzed CSV's map ran 10^15 ns of its clock
 * in 3 us of the reference's), and extrapolating it put times at -2^63. There, as
 * where no data tell the drift, both clocks run at the same rate. */
#define MAX_RATE 2.0L

tsync_time tsync__pwl_inverse(const struct tsync__pwl *f, tsync_time y)
{
    size_t lo = 0, hi;
    long double s;
    if (f->n == 0)
        return y;
    if (f->n == 1)
        return f->x[0] + (y - f->y[0]);
    if (y < f->y[0] || y > f->y[f->n - 1]) {
        size_t k = y < f->y[0] ? 0 : f->n - 2;
        long double dx = (long double)f->x[k + 1] - f->x[k];
        long double dy = (long double)f->y[k + 1] - f->y[k];
        if (!(dy * MAX_RATE >= dx && dx * MAX_RATE >= dy)) {
            k = y < f->y[0] ? 0 : f->n - 1;
            return (tsync_time)llroundl((long double)f->x[k] + ((long double)y - f->y[k]));
        }
    }
    hi = f->n - 1;
    while (lo + 1 < hi) {               /* the last segment whose start is <= y */
        size_t mid = lo + (hi - lo) / 2;
        if (f->y[mid] <= y)
            lo = mid;
        else
            hi = mid;
    }
    if (f->y[lo + 1] == f->y[lo])
        return f->x[lo];
    s = (long double)(f->x[lo + 1] - f->x[lo]) / (long double)(f->y[lo + 1] - f->y[lo]);
    return f->x[lo] + (tsync_time)llroundl(s * (long double)(y - f->y[lo]));
}

/* ---- the inverse with its bounds ------------------------------------------------------ */

/* v as a double no smaller: a bound stays a promise. */
static double rounded_up(long double v)
{
    double d = (double)v;
    return (long double)d < v ? nextafter(d, INFINITY) : d;
}

/* A point of f^-1: at u it reads g, give or take c ticks. */
struct inv_pt {
    tsync_time u, g;
    long double c;
};

/* The point of f^-1 for f's run [i, j] of one value, at the run's middle: the
 * segments on either side of it are off the exact inverse by up to half the run. */
static struct inv_pt inv_point(const struct tsync__pwl *f, size_t i, size_t j, long double s)
{
    struct inv_pt p;
    long double c_i, c_j;
    p.u = f->y[i];
    p.g = f->x[i] + (f->x[j] - f->x[i]) / 2;
    c_i = (long double)(p.g - f->x[i]) + (long double)f->bound[i] / s;
    c_j = (long double)(f->x[j] - p.g) + (long double)f->bound[j] / s;
    p.c = c_i > c_j ? c_i : c_j;
    return p;
}

static void put_inv(struct tsync__pwl *out, tsync_time u, tsync_time g, long double c)
{
    if (tsync__pwl_push(out, u, g))
        out->bound[out->n - 1] = rounded_up(c);
}

/* The point of f^-1 at u between its points a and b (a.u < u < b.u), rounded to a
 * tick; the bound covers the rounding. */
static void put_between(struct tsync__pwl *out, const struct inv_pt *a, const struct inv_pt *b,
                        tsync_time u)
{
    long double w = (long double)(u - a->u) / (long double)(b->u - a->u);
    long double d = w * (long double)(b->g - a->g);
    tsync_time g = (tsync_time)llroundl(d);
    long double c = isfinite(a->c) && isfinite(b->c) ? a->c + (b->c - a->c) * w : INFINITY;
    put_inv(out, u, a->g + g, c + fabsl((long double)g - d));
}

/* The point of f^-1 at u, where u lies between a and b or, without a (beyond f's
 * values), unbounded. */
static void put_end(struct tsync__pwl *out, const struct tsync__pwl *f, const struct inv_pt *a,
                    const struct inv_pt *b, tsync_time u)
{
    if (b->u == u)
        put_inv(out, u, b->g, b->c);
    else if (a)
        put_between(out, a, b, u);
    else
        put_inv(out, u, tsync__pwl_inverse(f, u), INFINITY);
}

int tsync__pwl_invert(struct tsync__pwl *out, const struct tsync__pwl *f, tsync_time from,
                      tsync_time to, long double min_slope)
{
    struct inv_pt prev = { 0, 0, 0 }, p;
    int have_prev = 0, started = 0;
    if (tsync__pwl_alloc(out, f->n + 2))
        return TSYNC_ENOMEM;
    for (size_t i = 0, j; i < f->n; i = j + 1, prev = p, have_prev = 1) {
        for (j = i; j + 1 < f->n && f->y[j + 1] == f->y[i]; j++)
            ;
        p = inv_point(f, i, j, min_slope);
        if (p.u < from)
            continue;
        if (!started) {
            put_end(out, f, have_prev ? &prev : NULL, &p, from);
            started = 1;
        }
        if (p.u >= to) {
            put_end(out, f, have_prev ? &prev : NULL, &p, to);
            return 0;
        }
        put_inv(out, p.u, p.g, p.c);
    }
    if (!started)
        put_inv(out, from, tsync__pwl_inverse(f, from), INFINITY);
    put_inv(out, to, tsync__pwl_inverse(f, to), INFINITY);
    return 0;
}

/* ---- lowering and raising the bounds ----------------------------------------------------------- */

/* Where segment k's bound drops to b over part of it: b lies between the bounds at
 * its ends, n0 + (n1 - n0) t, more than CROSSING_GAIN ticks from either, and
 * crosses them at a tick xc inside it. The bound is then the smaller of the two at
 * every x: b on the side of the larger end, the old line on the other, with a point
 * at xc (its value rounded to a tick, which moves f by half a tick at most there:
 * one tick more of bound at xc). A constant b over the whole segment would raise
 * the smaller end to b, and with it the next segment's bound at that point: the
 * first event of a dense trace, milliseconds from where one side's messages begin,
 * took microseconds more than its neighbours need. *yc and *bc: the point's value
 * and bound. */
#define CROSSING_GAIN 2.0
static int crossing(const struct tsync__pwl *f, size_t k, double b, tsync_time *xc,
                    tsync_time *yc, double *bc)
{
    double n0 = f->bound[k], n1 = f->bound[k + 1];
    long double span = (long double)(f->x[k + 1] - f->x[k]), at;
    if (!isfinite(n0) || !isfinite(n1) || !(b > fmin(n0, n1) + CROSSING_GAIN) ||
        !(b < fmax(n0, n1) - CROSSING_GAIN))
        return 0;
    *xc = f->x[k] + (tsync_time)llroundl(span * (n0 - b) / (n0 - n1));
    if (*xc <= f->x[k] || *xc >= f->x[k + 1])
        return 0;
    at = (long double)n0 + (long double)(n1 - n0) * (long double)(*xc - f->x[k]) / span;
    *yc = (tsync_time)llroundl(tsync__pwl_eval_from(f, k, (long double)*xc));
    *bc = (double)ceill(at > b ? at : b) + 1;
    return 1;
}

int tsync__pwl_lower(struct tsync__pwl *f, tsync__segment_bound_fn seg, void *ctx)
{
    struct tsync__pwl g, *out = f;
    double *b, left = 0;   /* left: what the segment before needs at point k */
    size_t extra = 0, j = 0;
    tsync_time xc, yc;
    double bc;
    if (f->n < 2)
        return 0;
    if (!(b = malloc((f->n - 1) * sizeof(*b))))
        return TSYNC_ENOMEM;
    /* Every segment's bound first, on f as it is; NAN where the old one stays. */
    for (size_t k = 0; k + 1 < f->n; k++) {
        double s = (double)ceill(seg(ctx, f, k));
        b[k] = s < fmax(f->bound[k], f->bound[k + 1]) - CROSSING_GAIN ||
                       s <= fmin(f->bound[k], f->bound[k + 1])
                   ? s : NAN;
        extra += !isnan(b[k]) && crossing(f, k, b[k], &xc, &yc, &bc);
    }
    if (extra && tsync__pwl_alloc(out = &g, f->n + extra)) {
        free(b);
        return TSYNC_ENOMEM;
    }
    /* In place when no point is added: point j is point k, read before written. */
    for (size_t k = 0; k + 1 < f->n; k++) {
        double n0 = f->bound[k], n1 = f->bound[k + 1];
        int cut = !isnan(b[k]) && crossing(f, k, b[k], &xc, &yc, &bc);
        if (cut && n0 > n1)
            n0 = b[k];
        else if (cut)
            n1 = b[k];
        else if (!isnan(b[k]))
            n0 = n1 = b[k];
        out->x[j] = f->x[k];
        out->y[j] = f->y[k];
        out->bound[j++] = fmax(left, n0);
        if (cut) {
            out->x[j] = xc;
            out->y[j] = yc;
            out->bound[j++] = bc;
        }
        left = n1;
    }
    out->x[j] = f->x[f->n - 1];
    out->y[j] = f->y[f->n - 1];
    out->bound[j++] = left;
    out->n = j;
    free(b);
    if (out != f) {
        tsync__pwl_free(f);
        *f = g;
    }
    return 0;
}

void tsync__pwl_raise(struct tsync__pwl *f, tsync__segment_bound_fn seg, void *ctx)
{
    for (size_t k = 0; k + 1 < f->n; k++) {
        long double b = seg(ctx, f, k);
        /* The old bounds are linear between the points: both ends at b or more
         * cover b over the whole segment. */
        if (isfinite(b)) {
            f->bound[k] = fmax(f->bound[k], (double)ceill(b));
            f->bound[k + 1] = fmax(f->bound[k + 1], (double)ceill(b));
        }
    }
}
