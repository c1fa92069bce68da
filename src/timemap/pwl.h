/* pwl.h (internal) - piecewise-linear functions of ticks with a bound per point
 * (pwl.c): a pair's function, a domain's map onto its reference, their
 * composition along a path. */
#ifndef TSYNC_TIMEMAP_PWL_H
#define TSYNC_TIMEMAP_PWL_H

#include <stddef.h>

#include "tracesync/common.h"

/* x strictly increasing, y non-decreasing; bound in ticks of y, INFINITY when
 * unbounded. */
struct tsync__pwl {
    size_t n;
    tsync_time *x, *y;
    double *bound;
};

/* Room for cap points, none yet. 0 or TSYNC_ENOMEM. */
int tsync__pwl_alloc(struct tsync__pwl *f, size_t cap);
void tsync__pwl_free(struct tsync__pwl *f);
/* Appends (x, y) when x lies right of the last point (else drops it: returns 0),
 * y raised to the last value if lower, so f stays a monotone function. Returns 1
 * when appended; the caller sets its bound, f->bound[f->n - 1]. */
int tsync__pwl_push(struct tsync__pwl *f, tsync_time x, tsync_time y);

/* f(x) by linear interpolation, the end segments' slopes outside (slope 1 for a
 * single point). */
long double tsync__pwl_eval(const struct tsync__pwl *f, long double x);
/* tsync__pwl_eval(f, x) for x at or after point k of f (k = 0: any x), the segment
 * found from k on: for increasing x, without a search each. */
long double tsync__pwl_eval_from(const struct tsync__pwl *f, size_t k, long double x);
/* The bound at x: linear between points, the end values outside. */
double tsync__pwl_bound(const struct tsync__pwl *f, long double x);
/* x with f(x) = y for a non-decreasing f (the end segments' slopes outside, or 1
 * where an end segment is a clock step; x itself when f is empty). */
tsync_time tsync__pwl_inverse(const struct tsync__pwl *f, tsync_time y);

/* out = f^-1 over [from, to] of f's values, for f an estimate of a function whose
 * slope is at least min_slope > 0 (a clock against another: 1 - max_drift). A true
 * value within b of f(x) is reached within b / min_slope of x, so the bound at y is
 * f's bound at f^-1(y) over min_slope, plus what rounding the ends to ticks moves;
 * a flat run of f (a clock step) becomes one point at its middle, its bound
 * widened by half the run. Where [from, to] reaches beyond f's values, out goes on
 * as tsync__pwl_inverse does, unbounded. f is not empty; 0 or TSYNC_ENOMEM. */
int tsync__pwl_invert(struct tsync__pwl *out, const struct tsync__pwl *f, tsync_time from,
                      tsync_time to, long double min_slope);

/* The identity over [from, to], bound 0. 0 or TSYNC_ENOMEM. */
int tsync__pwl_identity(struct tsync__pwl *out, tsync_time from, tsync_time to);
/* out = g o h, on the points of h and the points of h^-1 (points of g); bound
 * bound_g(h(x)) + slope_g * bound_h(x) + 1 tick of rounding. 0 or TSYNC_ENOMEM. */
int tsync__pwl_compose(struct tsync__pwl *out, const struct tsync__pwl *g,
                       const struct tsync__pwl *h);

/* Lowers f's bounds segment by segment to seg(ctx, f, k) where that is smaller
 * than the segment's own (INFINITY: no other bound), seg asked of every segment of f
 * as it is, in order: a lowered segment's bound is constant over it, or where it
 * crosses the old line, that line up to a point added at the crossing and the
 * constant beyond, so that linear interpolation covers every segment and no
 * bound rises by more than two ticks (a constant within two ticks of the smaller
 * end's bound; an added point's rounding). 0 or TSYNC_ENOMEM (f unchanged). */
typedef long double (*tsync__segment_bound_fn)(void *ctx, const struct tsync__pwl *f, size_t k);
int tsync__pwl_lower(struct tsync__pwl *f, tsync__segment_bound_fn seg, void *ctx);

/* Raises f's bounds so that they cover, over every segment k, what seg(ctx, f, k)
 * returns for it where that is finite (an infinite one leaves the segment as it is). */
void tsync__pwl_raise(struct tsync__pwl *f, tsync__segment_bound_fn seg, void *ctx);

#endif
