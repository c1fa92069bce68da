/* test_spline.c - the monotone C1 interpolant (timemap/spline.c): exact at the
 * points, C1 at the joints, monotone with the slope bound, a line from collinear
 * points, linear outside, refused input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "timemap/spline.h"

/* Clock-like points: ticks of ns over 10 s, a rate wandering by 40 ppm. */
#define N 9
static void wander_points(double *x, double *y)
{
    for (int i = 0; i < N; i++) {
        x[i] = 1e10 + 1.25e9 * i + (i % 3) * 1.7e8; /* uneven spacing */
        y[i] = x[i] + 2e6 + 40e-6 * 3e9 / 6.283185307 * sin(x[i] / 3e9 * 6.283185307);
    }
}

static double slope_at(const double *x, const double *y, const double *d, double t, double dt)
{
    return (tsync__spline_eval(x, y, d, N, t + dt) - tsync__spline_eval(x, y, d, N, t - dt)) / (2 * dt);
}

static void test_exact_at_points(void **state)
{
    (void)state;
    double x[N], y[N], d[N];
    wander_points(x, y);
    assert_int_equal(tsync__spline_slopes(x, y, N, 0.5, d), 0);
    for (int i = 0; i < N; i++)
        assert_true(tsync__spline_eval(x, y, d, N, x[i]) == y[i]);
}

/* The slope just left and right of every joint agrees with d there (C1). */
static void test_c1_at_joints(void **state)
{
    (void)state;
    double x[N], y[N], d[N];
    wander_points(x, y);
    assert_int_equal(tsync__spline_slopes(x, y, N, 0.5, d), 0);
    for (int i = 0; i < N; i++) {
        double h = 1e5; /* ticks */
        double left = (y[i] - tsync__spline_eval(x, y, d, N, x[i] - h)) / h;
        double right = (tsync__spline_eval(x, y, d, N, x[i] + h) - y[i]) / h;
        /* the curvature moves one-sided slopes by 4e-9 at most; the secants on
         * the two sides of a joint differ by 1e-5 */
        assert_true(fabs(left - d[i]) < 1e-8);
        assert_true(fabs(right - d[i]) < 1e-8);
        if (i > 0 && i + 1 < N)
            assert_true(fabs((y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1])) > 1e-6);
    }
}

/* Steps and flat stretches: never decreasing, never below the slope bound, no
 * overshoot beyond the neighbouring points. */
static void test_monotone(void **state)
{
    (void)state;
    double x[N] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    double y[N] = { 0, 0.5, 1, 11, 11.5, 12, 40, 40.5, 41 }; /* secants 0.5 and steep steps */
    double d[N];
    assert_int_equal(tsync__spline_slopes(x, y, N, 0.5, d), 0);
    double prev = -INFINITY;
    for (double t = -1; t <= 9; t += 1e-3) {
        double v = tsync__spline_eval(x, y, d, N, t);
        assert_true(v >= prev);
        if (t > -1)
            assert_true(slope_at(x, y, d, t, 1e-5) >= 0.5 - 1e-6);
        prev = v;
    }
    for (int i = 0; i + 1 < N; i++)
        for (double t = x[i]; t < x[i + 1]; t += 1e-2) {
            double v = tsync__spline_eval(x, y, d, N, t);
            assert_true(v >= y[i] - 1e-12 && v <= y[i + 1] + 1e-12);
        }
    /* without the bound (0), the same points: still monotone */
    assert_int_equal(tsync__spline_slopes(x, y, N, 0, d), 0);
    prev = -INFINITY;
    for (double t = -1; t <= 9; t += 1e-3) {
        double v = tsync__spline_eval(x, y, d, N, t);
        assert_true(v >= prev);
        prev = v;
    }
}

/* Collinear points give their line, inside and outside. */
static void test_collinear(void **state)
{
    (void)state;
    double x[N], y[N], d[N];
    for (int i = 0; i < N; i++) {
        x[i] = 5e9 + 1e9 * i * i;   /* uneven */
        y[i] = 1.00003 * x[i] - 7e5;
    }
    assert_int_equal(tsync__spline_slopes(x, y, N, 0.5, d), 0);
    for (int i = 0; i < N; i++)
        assert_true(fabs(d[i] - 1.00003) < 1e-12);
    for (double t = 0; t < 1e11; t += 3.3e8)
        assert_true(fabs(tsync__spline_eval(x, y, d, N, t) - (1.00003 * t - 7e5)) < 1e-3);
}

/* Outside the points: the end slopes (the end secants, for clock-like points). */
static void test_linear_outside(void **state)
{
    (void)state;
    double x[N], y[N], d[N];
    wander_points(x, y);
    assert_int_equal(tsync__spline_slopes(x, y, N, 0.5, d), 0);
    assert_true(fabs(d[0] - (y[1] - y[0]) / (x[1] - x[0])) < 1e-15);
    assert_true(fabs(d[N - 1] - (y[N - 1] - y[N - 2]) / (x[N - 1] - x[N - 2])) < 1e-15);
    assert_true(tsync__spline_eval(x, y, d, N, x[0] - 1e9) == y[0] - d[0] * 1e9);
    assert_true(tsync__spline_eval(x, y, d, N, x[N - 1] + 1e9) == y[N - 1] + d[N - 1] * 1e9);
}

/* A sinusoidal wander between the points is followed far better than by a line:
 * the reason for the spline (seed 000's mid-run sessions). */
static void test_follows_wander(void **state)
{
    (void)state;
    double x[N], y[N], d[N], worst = 0;
    for (int i = 0; i < N; i++) {
        x[i] = 1e9 * i;
        y[i] = x[i] + 20e3 * sin(x[i] / 4e9 * 6.283185307);   /* 20 us amplitude, 4 s */
    }
    assert_int_equal(tsync__spline_slopes(x, y, N, 0.5, d), 0);
    for (double t = 0; t <= 8e9; t += 1e7) {
        double err = fabs(tsync__spline_eval(x, y, d, N, t) - (t + 20e3 * sin(t / 4e9 * 6.283185307)));
        worst = err > worst ? err : worst;
    }
    assert_true(worst < 2e3); /* 2 us of 20 */
}

static void test_refused(void **state)
{
    (void)state;
    double x[3] = { 0, 1, 1 }, y[3] = { 0, 1, 2 }, d[3] = { 7, 7, 7 };
    assert_int_equal(tsync__spline_slopes(x, y, 1, 0, d), -1);        /* one point */
    assert_int_equal(tsync__spline_slopes(x, y, 3, 0, d), -1);        /* x repeats */
    double x2[3] = { 0, 1, 2 }, y2[3] = { 0, 1, 1.25 };
    assert_int_equal(tsync__spline_slopes(x2, y2, 3, 0.5, d), -1);    /* secant 0.25 < 0.5 */
    assert_true(d[0] == 7 && d[1] == 7 && d[2] == 7);
    assert_int_equal(tsync__spline_slopes(x2, y2, 3, 0.25, d), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_at_points), cmocka_unit_test(test_c1_at_joints),
        cmocka_unit_test(test_monotone),        cmocka_unit_test(test_collinear),
        cmocka_unit_test(test_linear_outside),  cmocka_unit_test(test_follows_wander),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
