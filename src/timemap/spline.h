/* spline.h (internal) - a monotone C1 time map through measured (local, reference)
 * points: seed 000's "constrained spline which goes through all of the condensed
 * points and has a contiguous first derivative at each of these joints".
 *
 * Piecewise cubic Hermite interpolation with Fritsch and Carlson's monotone slopes
 * (SIAM J. Numer. Anal. 17(2), 1980), outside the points linear with the end
 * slopes. Plain arithmetic on doubles without allocation, so that the collector
 * (src/collect, global.otf2) builds it in as well. */
#ifndef TSYNC_TIMEMAP_SPLINE_H
#define TSYNC_TIMEMAP_SPLINE_H

#include <stddef.h>

/* The slopes d[0..n) at n >= 2 points (x strictly increasing) of the interpolant
 * whose slope is at least min_slope everywhere, which needs every secant
 * (y[i+1] - y[i]) / (x[i+1] - x[i]) >= min_slope. Interior slopes are the
 * three-point (parabola) estimates, the end slopes the end secants; each interval's
 * pair is then limited to Fritsch and Carlson's circle (alpha^2 + beta^2 <= 9) for
 * the line y - min_slope x, so that it stays non-decreasing. Collinear points give
 * their line. Returns 0, or -1 (d unchanged) when n < 2, x does not increase or a
 * secant is below min_slope or not finite. */
int tsync__spline_slopes(const double *x, const double *y, size_t n, double min_slope, double *d);

/* The interpolant at t: exact at the points, the cubic of t's interval between
 * them, the line with slope d[0] (d[n-1]) before the first (after the last). */
double tsync__spline_eval(const double *x, const double *y, const double *d, size_t n, double t);

#endif
