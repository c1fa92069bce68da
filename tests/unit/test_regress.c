/* test_regress.c - the regression estimator (src/estimate/regress.c): seed 003's
 * Eqs. 4 to 8 in their closed form, the 90 % interval that drops delayed exchanges,
 * segmentation where a line fails, and the fallback without exchanges. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "estimate/estimator.h"

static void assert_rel(long double got, long double want, long double rel)
{
    if (!(fabsl(got - want) <= rel * fabsl(want) + 1e-12L))
        fail_msg("%.15Lg differs from %.15Lg by more than %Lg relative", got, want, rel);
}

/* An exchange sample: offset d at time t (origin 0), error margin err. */
static struct tsync__sample exch(tsync_time t, tsync_time d, int64_t err)
{
    struct tsync__sample s = { t, t + d, err, TSYNC__EXCHANGE, 0 };
    return s;
}

static void test_closed_form(void **state)
{
    static const int noise[] = { 3, -2, 0, 4, -5, 1, -1, 2, -3, 0, 2, -4 };
    struct tsync__sample v[12];
    struct tsync__regress_fit f;
    double st = 0, sd = 0, std = 0, st2 = 0, n = 12, den, x, d0, res = 0, er;
    (void)state;
    for (int k = 0; k < 12; k++) {
        tsync_time t = 1000 + 250 * k;
        v[k] = exch(t, 40 + t / 100 + noise[k], 7);
    }
    tsync__regress_fit(&f, v, 12, 0, 0);
    /* The seed's formulas, as printed, in raw sums. */
    for (int k = 0; k < 12; k++) {
        double t = (double)v[k].x, d = (double)(v[k].y - v[k].x);
        st += t;
        sd += d;
        std += t * d;
        st2 += t * t;
    }
    den = n * st2 - st * st;
    x = (n * std - st * sd) / den;                         /* Eq. 4 */
    d0 = (st2 * sd - st * std) / den;                      /* Eq. 5 */
    for (int k = 0; k < 12; k++) {
        double t = (double)v[k].x, d = (double)(v[k].y - v[k].x);
        res += (d - x * t - d0) * (d - x * t - d0);
    }
    er = sqrt(res / (n - 2));                              /* Eq. 6 */
    assert_int_equal(f.n, 12);
    assert_rel(f.drift, x, 1e-9L);
    assert_rel(f.offset, d0, 1e-9L);
    assert_rel(f.er, er, 1e-9L);
    /* Eq. 8's expression is the drift's standard error, Eq. 7's the offset's. */
    assert_rel(f.err_drift, er * sqrt(n / den), 1e-9L);
    assert_rel(f.err_offset, er * sqrt(st2 / den), 1e-9L);
}

static void test_small_samples(void **state)
{
    struct tsync__sample v[2] = { exch(100, 50, 9), exch(300, 54, 4) };
    struct tsync__regress_fit f;
    (void)state;
    tsync__regress_fit(&f, v, 1, 0, 0);
    assert_rel(f.drift, 0, 0);
    assert_rel(f.offset, 50, 1e-15L);
    assert_rel(f.er, 9, 0);             /* E_r of one sample: its error margin */
    tsync__regress_fit(&f, v, 2, 0, 0);
    assert_rel(f.drift, 4.0L / 200, 1e-15L);
    assert_rel(f.er, 9, 0);
}

/* Seed 003, section 12: exchanges whose error margin is far above the others'
 * (delayed messages) are left out; measured samples stay. */
static void test_drop_delayed(void **state)
{
    struct tsync__sample v[23];
    size_t kept;
    (void)state;
    for (int k = 0; k < 20; k++)
        v[k] = exch(k * 10, 5, 10 + (k % 3));
    v[20] = exch(205, 5, 100);
    v[21] = exch(215, 5, 120);
    v[22] = exch(225, 5, 1000);
    v[22].measured = 1;
    kept = tsync__regress_drop_delayed(v, 23);
    assert_int_equal(kept, 21);
    for (size_t k = 0; k < kept; k++)
        assert_true(v[k].err <= 12 || v[k].measured);
    assert_int_equal(v[20].err, 1000);
}

/* Exchanges, and one-way constraints of the pair over the same times (n_way each
 * way), through the segment driver. */
static void fit_with_band(struct tsync__pair_fit *f, struct tsync__sample *v, size_t n,
                          struct tsync__pt *up, struct tsync__pt *down, size_t n_way,
                          int segment, int64_t max_segment)
{
    struct tsync__pair_samples s;
    struct tsync__est_params p;
    memset(&s, 0, sizeof(s));
    memset(&p, 0, sizeof(p));
    s.exch = v;
    s.n_exch = n;
    s.above = up;
    s.below = down;
    s.n_above = s.n_below = n_way;
    p.max_drift = 1e-3;
    p.segment = segment;
    p.min_segment = 100000;
    p.max_segment = max_segment;
    assert_int_equal(tsync__fit_pair(f, &tsync__regress_estimator, &p, &s), 0);
}

static void fit_exchanges(struct tsync__pair_fit *f, struct tsync__sample *v, size_t n,
                          int segment)
{
    fit_with_band(f, v, n, NULL, NULL, 0, segment, 0);
}

static void test_estimator_line(void **state)
{
    struct tsync__sample v[30];
    struct tsync__pair_fit f;
    long double lo, hi;
    (void)state;
    for (int k = 0; k < 30; k++) {
        tsync_time t = k * 100000;
        v[k] = exch(t, 1200 + t / 5000 + (k % 2 ? 1 : -1), 50);   /* drift 200 ppm */
    }
    fit_exchanges(&f, v, 30, 1);
    assert_int_equal(f.pieces.n, 1);
    assert_int_equal(f.pieces.v[0].kind, TSYNC_BOUND_BOUNDED);
    assert_rel(f.pieces.v[0].a, 1 + 2e-4L, 1e-7L);
    assert_rel(f.pieces.v[0].b, 1200, 1e-3L);
    f.pieces.v[0].range(&f.pieces.v[0], 1500000, &lo, &hi);
    assert_true(lo < 1500000 + 1500 && 1500000 + 1500 < hi);
    assert_true(hi - lo < 20);
    tsync__pair_fit_free(&f);
}

/* A drift that changes halfway (a bend in the offsets): two pieces; a straight
 * line: one. */
static void test_segmentation(void **state)
{
    struct tsync__sample v[200];
    struct tsync__pair_fit f;
    (void)state;
    for (int k = 0; k < 200; k++) {
        tsync_time t = (tsync_time)k * 10000, noise = (k * 7) % 5 - 2;
        tsync_time d = k < 100 ? t / 2000 : 495 - (t - 990000) * 3 / 10000;
        v[k] = exch(t, d + noise, 20);
    }
    fit_exchanges(&f, v, 200, 1);
    assert_int_equal(f.pieces.n, 2);
    assert_rel(f.pieces.v[0].a, 1 + 5e-4L, 1e-6L);
    assert_rel(f.pieces.v[1].a, 1 - 3e-4L, 1e-6L);
    assert_true(f.pieces.v[0].x_last < f.pieces.v[1].x_first);
    tsync__pair_fit_free(&f);

    fit_exchanges(&f, v, 200, 0);        /* segmentation off: one bent line */
    assert_int_equal(f.pieces.n, 1);
    tsync__pair_fit_free(&f);

    for (int k = 0; k < 200; k++)
        v[k] = exch((tsync_time)k * 10000, k * 5 + (k * 7) % 5 - 2, 20);
    fit_exchanges(&f, v, 200, 1);
    assert_int_equal(f.pieces.n, 1);
    tsync__pair_fit_free(&f);
}

/* No exchange, only one-way constraints: no drift, no two-sided bound. */
static void test_fallback(void **state)
{
    static const struct tsync__pt up[] = { { 0, 1000 }, { 100, 1090 } };
    struct tsync__pair_samples s;
    struct tsync__est_params p;
    struct tsync__pair_fit f;
    (void)state;
    memset(&s, 0, sizeof(s));
    memset(&p, 0, sizeof(p));
    s.above = (struct tsync__pt *)up;
    s.n_above = 2;
    p.max_drift = 1e-3;
    assert_int_equal(tsync__fit_pair(&f, &tsync__regress_estimator, &p, &s), 0);
    assert_int_equal(f.pieces.n, 1);
    assert_int_equal(f.pieces.v[0].kind, TSYNC_BOUND_FALLBACK);
    assert_rel(f.pieces.v[0].a, 1, 0);
    assert_rel(f.pieces.v[0].b, 990, 1e-15L);
    assert_true(isinf(tsync__piece_bound_at(&f.pieces.v[0], 50, 1040)));
    tsync__pair_fit_free(&f);
}

/* Exchanges that say offset 1500 (receives that waited) where the one-way
 * constraints allow 1000 to 1200 (1250 and 950 every other time): the line stays
 * in the band, at its edge. */
static void test_clamp_to_band(void **state)
{
    struct tsync__sample v[40];
    struct tsync__pt up[40], down[40];
    struct tsync__pair_fit f;
    (void)state;
    for (int k = 0; k < 40; k++) {
        tsync_time t = (tsync_time)k * 1000000;
        v[k] = exch(t + 500, 1500 + (k % 3) - 1, 30);
        up[k] = (struct tsync__pt){ t, t + 1200 + (k % 2) * 50 };   /* line <= x + 1200 */
        down[k] = (struct tsync__pt){ t + 300, t + 300 + 1000 - (k % 2) * 50 }; /* >= x + 1000 */
    }
    fit_with_band(&f, v, 40, up, down, 40, 1, 0);
    assert_int_equal(f.pieces.n, 1);
    assert_int_equal(f.pieces.v[0].kind, TSYNC_BOUND_BOUNDED);
    for (int k = 0; k < 40; k++) {                      /* every constraint holds */
        assert_true(tsync__piece_eval(&f.pieces.v[0], up[k].x) <= (long double)up[k].y + 1e-6L);
        assert_true(tsync__piece_eval(&f.pieces.v[0], down[k].x) >= (long double)down[k].y - 1e-6L);
    }
    assert_rel(tsync__piece_eval(&f.pieces.v[0], 20000000) - 20000000, 1200, 1e-4L);
    tsync__pair_fit_free(&f);
}

/* A linear clock (20 ppm) over an hour, an exchange and a message each way every
 * 10 s, is one piece, whatever the longest piece the hull would be cut at. */
static void test_linear_one_piece(void **state)
{
    enum { N = 360 };
    static struct tsync__sample v[N];
    static struct tsync__pt up[N], down[N];
    struct tsync__pair_fit f;
    (void)state;
    for (int k = 0; k < N; k++) {
        tsync_time t = (tsync_time)k * 10000000000LL, d = 5000 + t / 50000;
        v[k] = exch(t + 100000, d + 2 + (k * 7) % 5 - 2, 40);
        up[k] = (struct tsync__pt){ t, t + d + 30 + (k * 13) % 40 };
        down[k] = (struct tsync__pt){ t + 200000, t + 200000 + d - 30 - (k * 11) % 40 };
    }
    fit_with_band(&f, v, N, up, down, N, 1, 30000000000LL);
    assert_int_equal(f.pieces.n, 1);
    assert_rel(f.pieces.v[0].a, 1 + 2e-5L, 1e-9L);
    tsync__pair_fit_free(&f);
}

/* Fewer exchanges than a fit needs: the hull over the one-way constraints. */
static void test_few_exchanges_hull(void **state)
{
    struct tsync__sample v[2];
    struct tsync__pt up[4], down[4];
    struct tsync__pair_fit f;
    long double a_lo, b_lo, a_hi, b_hi;
    (void)state;
    for (int k = 0; k < 4; k++) {
        tsync_time t = (tsync_time)k * 1000000;
        up[k] = (struct tsync__pt){ t, t + 1200 };
        down[k] = (struct tsync__pt){ t + 300, t + 300 + 1000 };
    }
    v[0] = exch(500, 1500, 30);
    v[1] = exch(2000500, 1500, 30);
    fit_with_band(&f, v, 2, up, down, 4, 1, 0);
    assert_int_equal(f.pieces.n, 1);
    assert_int_equal(tsync__hull_lines(&f.pieces.v[0], &a_lo, &b_lo, &a_hi, &b_hi), 0);
    assert_rel(tsync__piece_eval(&f.pieces.v[0], 1000000) - 1000000, 1100, 1e-5L);
    tsync__pair_fit_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_form),
        cmocka_unit_test(test_small_samples),
        cmocka_unit_test(test_drop_delayed),
        cmocka_unit_test(test_estimator_line),
        cmocka_unit_test(test_segmentation),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_clamp_to_band),
        cmocka_unit_test(test_linear_one_piece),
        cmocka_unit_test(test_few_exchanges_hull),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
