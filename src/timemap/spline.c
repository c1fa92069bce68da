/* spline.c - the monotone C1 interpolant of spline.h: Fritsch and Carlson's
 * piecewise cubic Hermite interpolation (1980), with a lower bound on the slope. */
#include <math.h>

#include "timemap/spline.h"

int tsync__spline_slopes(const double *x, const double *y, size_t n, double min_slope, double *d)
{
    if (n < 2 || !isfinite(min_slope))
        return -1;
    for (size_t i = 0; i + 1 < n; i++) {
        double h = x[i + 1] - x[i], s = (y[i + 1] - y[i]) / h;
        if (!(h > 0) || !isfinite(s) || s < min_slope)
            return -1;
    }
    /* Work on g = y - min_slope x: non-decreasing, and a non-decreasing
     * interpolant of g is one of y with slope >= min_slope. */
    double prev = (y[1] - y[0]) / (x[1] - x[0]) - min_slope, h_prev = x[1] - x[0];
    d[0] = prev;
    for (size_t i = 1; i + 1 < n; i++) {
        double h = x[i + 1] - x[i], s = (y[i + 1] - y[i]) / h - min_slope;
        /* the slope at x[i] of the parabola through three points: exact for
         * quadratics; a flat side keeps the joint flat (Fritsch-Carlson, step 2) */
        d[i] = prev > 0 && s > 0 ? (h * prev + h_prev * s) / (h_prev + h) : 0;
        prev = s, h_prev = h;
    }
    d[n - 1] = prev;
    /* Fritsch-Carlson, steps 3-5: per interval, alpha = d_i / s and beta = d_i+1 / s
     * within the circle of radius 3 keep the cubic monotone. */
    for (size_t i = 0; i + 1 < n; i++) {
        double s = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - min_slope;
        if (s <= 0) {
            d[i] = d[i + 1] = 0;
            continue;
        }
        double a = d[i] / s, b = d[i + 1] / s, r = a * a + b * b;
        if (r > 9) {
            double tau = 3 / sqrt(r);
            d[i] = tau * a * s, d[i + 1] = tau * b * s;
        }
    }
    for (size_t i = 0; i < n; i++)
        d[i] += min_slope;
    return 0;
}

double tsync__spline_eval(const double *x, const double *y, const double *d, size_t n, double t)
{
    if (t < x[0])
        return y[0] + d[0] * (t - x[0]);
    if (t >= x[n - 1])
        return y[n - 1] + d[n - 1] * (t - x[n - 1]);
    size_t lo = 0, hi = n - 1; /* x[lo] <= t < x[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    double h = x[hi] - x[lo], s = (y[hi] - y[lo]) / h, u = t - x[lo];
    /* Hermite cubic y_lo + u (d_lo + u (c2 + u c3)) with slopes d_lo, d_hi at the ends */
    double c2 = (3 * s - 2 * d[lo] - d[hi]) / h, c3 = (d[lo] + d[hi] - 2 * s) / (h * h);
    return y[lo] + u * (d[lo] + u * (c2 + u * c3));
}
