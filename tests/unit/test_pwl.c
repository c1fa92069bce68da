/* test_pwl.c - piecewise-linear functions with bounds (timemap/pwl.c): the inverse
 * of a function with its bounds carried into the other clock's ticks, on hand-made
 * cases (points swapped, ends rounded, a flat run, beyond the values) and against
 * a brute force on random monotone functions (seed printed): every x a true
 * function could reach y at lies within the inverse's bound at y. Bounds lowered
 * segment by segment: constant, crossing the old line, or left. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "timemap/pwl.h"

/* f from n points (x, y) with bounds b. */
static void make(struct tsync__pwl *f, size_t n, const tsync_time *x, const tsync_time *y,
                 const double *b)
{
    assert_int_equal(tsync__pwl_alloc(f, n), 0);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(tsync__pwl_push(f, x[i], y[i]), 1);
        f->bound[i] = b[i];
    }
}

/* The points swapped, each bound over the least slope; the ends inside segments
 * interpolated, rounded to a tick, the rounding in their bounds. */
static void test_invert_points(void **state)
{
    static const tsync_time x[] = { 0, 1000, 3000 }, y[] = { 100, 1100, 2100 };
    static const double b[] = { 10, 20, 40 };
    struct tsync__pwl f, g;
    (void)state;
    make(&f, 3, x, y, b);
    assert_int_equal(tsync__pwl_invert(&g, &f, 100, 2100, 0.5L), 0);
    assert_int_equal(g.n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(g.x[i], y[i]);
        assert_int_equal(g.y[i], x[i]);
        assert_true(g.bound[i] == 2 * b[i]);
    }
    tsync__pwl_free(&g);
    /* At 351 the inverse reads 251, at 1601 1000 + 501 * 2 = 2002, both exact; at
     * 1100 a point. */
    assert_int_equal(tsync__pwl_invert(&g, &f, 351, 1601, 0.5L), 0);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.x[0], 351);
    assert_int_equal(g.y[0], 251);
    assert_true(fabs(g.bound[0] - (20 + 0.251 * 20)) < 1e-9);
    assert_int_equal(g.y[2], 2002);
    tsync__pwl_free(&g);
    /* A slope of 3/2 after 1100 of y: at 1101 the inverse reads 2/3 of a tick past
     * 1000, rounded to 1001, the third of a tick in its bound. */
    f.y[2] = 4100;
    assert_int_equal(tsync__pwl_invert(&g, &f, 1101, 1101, 1), 0);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.y[0], 1001);
    assert_true(fabs(g.bound[0] - (20 + 20.0 / 3000 + 1.0 / 3)) < 1e-9);
    tsync__pwl_free(&g);
    tsync__pwl_free(&f);
}

/* A flat run (a clock step): one point at its middle, the bound widened by half
 * the run; beyond the values, the ends unbounded. */
static void test_invert_flat_and_beyond(void **state)
{
    static const tsync_time x[] = { 0, 100, 300, 400 }, y[] = { 0, 100, 100, 200 };
    static const double b[] = { 5, 5, 7, 5 };
    struct tsync__pwl f, g;
    (void)state;
    make(&f, 4, x, y, b);
    assert_int_equal(tsync__pwl_invert(&g, &f, 0, 200, 1), 0);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.x[1], 100);
    assert_int_equal(g.y[1], 200);
    assert_true(g.bound[1] == 107);
    tsync__pwl_free(&g);
    assert_int_equal(tsync__pwl_invert(&g, &f, -50, 250, 1), 0);
    assert_int_equal(g.x[0], -50);
    assert_int_equal(g.x[g.n - 1], 250);
    assert_true(isinf(g.bound[0]) && isinf(g.bound[g.n - 1]));
    assert_true(g.bound[1] == 5);
    tsync__pwl_free(&g);
    tsync__pwl_free(&f);
}

/* Whether a true function T with slope >= s everywhere and |T - f| <= bound over
 * f's points can read y at x: at every point x_k of f beyond x, f + bound leaves T
 * room to rise from y at slope s (before x, f - bound to fall), and at x itself y
 * lies in the band. Between the points everything is linear, so that is all. */
static int reachable(const struct tsync__pwl *f, long double s, long double x, tsync_time y)
{
    for (size_t k = 0; k < f->n; k++) {
        long double xk = (long double)f->x[k], fk = (long double)f->y[k], bk = f->bound[k];
        if (xk > x && fk + bk < (long double)y + s * (xk - x))
            return 0;
        if (xk < x && fk - bk > (long double)y - s * (x - xk))
            return 0;
    }
    if (x >= (long double)f->x[0] && x <= (long double)f->x[f->n - 1])
        return fabsl(tsync__pwl_eval(f, x) - (long double)y) <= tsync__pwl_bound(f, x);
    return 1;
}

static void test_invert_brute_force(void **state)
{
    const char *env = getenv("TSYNC_TEST_SEED");
    unsigned seed = env ? (unsigned)atoi(env) : (unsigned)time(NULL);
    static const long double slopes[] = { 0.999L, 0.9L, 0.6L };
    (void)state;
    printf("test_invert_brute_force: seed %u (TSYNC_TEST_SEED to repeat)\n", seed);
    srand(seed);
    for (int round = 0; round < 400; round++) {
        struct tsync__pwl f, g;
        size_t n = 2 + (size_t)(rand() % 8);
        long double s = slopes[rand() % 3];
        tsync_time x = rand() % 1000 - 500, y = rand() % 1000 - 500, from, to;
        assert_int_equal(tsync__pwl_alloc(&f, n), 0);
        for (size_t i = 0; i < n; i++) {
            tsync_time dx = 1 + rand() % 200;
            tsync__pwl_push(&f, x, y);
            f.bound[i] = rand() % 5 ? rand() % 40 : 0;
            x += dx;
            /* A clock step now and then, else a rate between 1/2 and 2. */
            y += rand() % 6 ? (tsync_time)llround((double)dx * (0.5 + 1.5 * rand() / RAND_MAX)) : 0;
        }
        from = f.y[0] + rand() % (f.y[n - 1] - f.y[0] + 1);
        to = from + rand() % (f.y[n - 1] - from + 1);
        assert_int_equal(tsync__pwl_invert(&g, &f, from, to, s), 0);
        assert_int_equal(g.x[0], from);
        assert_int_equal(g.x[g.n - 1], to);
        for (size_t i = 1; i < g.n; i++)
            assert_true(g.x[i] > g.x[i - 1] && g.y[i] >= g.y[i - 1]);
        for (int q = 0; q < 16; q++) {
            tsync_time u = from + rand() % (to - from + 1);
            long double at = tsync__pwl_eval(&g, (long double)u), c = tsync__pwl_bound(&g, (long double)u);
            for (long double xs = at - c - 20; xs <= at + c + 20; xs += 0.25L)
                if (fabsl(xs - at) > c + 1e-9L && reachable(&f, s, xs, u))
                    fail_msg("seed %u round %d: y %lld reached at %.2Lf, the inverse reads "
                             "%.2Lf +- %.2Lf", seed, round, (long long)u, xs, at, c);
        }
        tsync__pwl_free(&g);
        tsync__pwl_free(&f);
    }
}

/* A segment bound per segment, from the test's table. */
static long double table_bound(void *ctx, const struct tsync__pwl *f, size_t k)
{
    (void)f;
    return ((const long double *)ctx)[k];
}

/* Segment 0 (900 -> 300) lowered to 505 crosses the old line at 658 (900 - 600 t =
 * 505): a point there, 505 before it, the old line after, so that point 1 keeps
 * 300; segment 1 (300 -> 500) lowered to 5 throughout; segment 2 (500 -> 600) to
 * 599, within two ticks of its larger end, stays as it was. */
static void test_lower(void **state)
{
    static const tsync_time x[] = { 0, 1000, 2000, 3000 }, y[] = { 95, 1095, 2095, 3095 };
    static const double b[] = { 900, 300, 500, 600 };
    long double seg[] = { 504.2L, 5, 599 };
    struct tsync__pwl f;
    (void)state;
    make(&f, 4, x, y, b);
    assert_int_equal(tsync__pwl_lower(&f, table_bound, seg), 0);
    assert_int_equal(f.n, 5);
    assert_true(f.x[0] == 0 && f.bound[0] == 505);
    assert_true(f.x[1] == 658 && f.y[1] == 753);
    assert_true(f.bound[1] == 507);     /* the old line there, 505.2, and a tick of rounding */
    assert_true(f.x[2] == 1000 && f.bound[2] == 300);
    assert_true(f.x[3] == 2000 && f.bound[3] == 500);   /* segment 2 needs its own */
    assert_true(f.x[4] == 3000 && f.bound[4] == 600);
    tsync__pwl_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invert_points),
        cmocka_unit_test(test_invert_flat_and_beyond),
        cmocka_unit_test(test_invert_brute_force),
        cmocka_unit_test(test_lower),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
