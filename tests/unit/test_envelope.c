/* test_envelope.c - the maps' bounds beyond the pieces' own: the one-way
 * constraints as a point-by-point bound (src/estimate/envelope.c): on curves whose
 * drift wanders within max_wander the bound holds at every point and is far tighter
 * than the pieces' own; where the constraints contradict each other the pieces'
 * bounds stay, beyond them the sides go on as max_drift allows, and a constraint
 * that another implies under max_drift is left out. And pieces whose slope the data
 * leave open, bounded by their neighbour's extrapolation (tsync__pwl_open_bounds,
 * segment.c). */
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
#include "graph/graph.h"

#define SECOND 1000000000LL
#define WANDER (1e-8 / 1e9)          /* 0.01 ppm/s, per tick */
#define HOUR (3600 * SECOND)

/* A clock pair over an hour: offset 2 ms, drift 12 ppm, and a temperature-like
 * wander of the drift by 0.3 ppm with a period of 20 minutes (seed 004), whose
 * second derivative stays below max_wander. */
static long double curve(tsync_time x)
{
    long double period = 1200.0L * SECOND, w = 2 * 3.14159265358979L / period;
    long double amp = 0.3e-6L / w;
    return 2000000.0L + 1.000012L * (long double)x + amp * sinl(w * (long double)x);
}

static uint64_t rng = 88172645463325252ULL;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* n messages each way over the hour, 50 us of minimum latency that the estimate
 * is told is 1 us, exponential excess of mean 20 us: ABOVE (send, receive - mu),
 * BELOW (receive - mu, send). */
static void messages(struct tsync__pair_samples *s, size_t n)
{
    memset(s, 0, sizeof(*s));
    s->above = calloc(n, sizeof(*s->above));
    s->below = calloc(n, sizeof(*s->below));
    assert_non_null(s->above);
    assert_non_null(s->below);
    for (size_t i = 0; i < n; i++) {
        tsync_time x = (tsync_time)((i + uniform()) * (double)HOUR / (double)n);
        double delay = 49000 - 20000 * log(1 - uniform());
        s->above[s->n_above].x = x;
        s->above[s->n_above++].y = (tsync_time)ceill(curve(x) + delay);
        x = (tsync_time)((i + uniform()) * (double)HOUR / (double)n);
        delay = 49000 - 20000 * log(1 - uniform());
        s->below[s->n_below].x = x;
        s->below[s->n_below++].y = (tsync_time)floorl(curve(x) - delay);
    }
}

static struct tsync__est_params params(void)
{
    struct tsync__est_params p;
    memset(&p, 0, sizeof(p));
    p.max_drift = 1e-3;
    p.segment = 1;
    p.min_segment = SECOND;
    p.wander = WANDER;
    return p;
}

/* The mean bound over the hour, at a thousand points. */
static double mean_bound(const struct tsync__pwl *f)
{
    double sum = 0;
    for (int i = 0; i <= 1000; i++)
        sum += tsync__pwl_bound(f, (long double)HOUR / 1000 * i);
    return sum / 1001;
}

static void test_holds_and_tightens(void **state)
{
    struct tsync__pair_samples s;
    struct tsync__est_params p = params();
    struct tsync__pair_fit fit;
    struct tsync__pwl f;
    double before, worst = 0;
    (void)state;
    messages(&s, 20000);
    assert_int_equal(tsync__fit_pair(&fit, &tsync__hull_estimator, &p, &s), 0);
    assert_true(fit.guaranteed);
    assert_true(fit.envelope.up.n > 2 && fit.envelope.up.n < s.n_above / 8);
    assert_int_equal(tsync__pwl_from_fit(&f, &fit, 0, HOUR), 0);
    before = mean_bound(&f);
    assert_int_equal(tsync__envelope_bound(&fit, &f), 0);
    /* The true curve inside the bound everywhere, at a million points. */
    for (tsync_time x = 0; x <= HOUR; x += HOUR / 1000000) {
        double err = fabs((double)(curve(x) - tsync__pwl_eval(&f, (long double)x)));
        double b = tsync__pwl_bound(&f, (long double)x);
        if (err > b)
            fail_msg("at %.6f s the error %.0f ns is outside the bound %.0f ns", (double)x / 1e9,
                     err, b);
        worst = err / b > worst ? err / b : worst;
    }
    /* The band the assumed latency leaves is +-49 us, and the pieces' lines are
     * tens of microseconds off the bending curve; the pieces' bound adds the
     * wander over their whole length. */
    print_message("mean bound %.0f ns -> %.0f ns, largest error / bound %.2f\n", before,
                  mean_bound(&f), worst);
    assert_true(mean_bound(&f) < 250000);
    assert_true(mean_bound(&f) < before / 3);
    tsync__pwl_free(&f);
    tsync__pair_fit_free(&fit);
    free(s.above);
    free(s.below);
}

/* The knots as they were picked one point at a time in long double: the first, the
 * last, and of every 16 the first whose sign (y - line of its piece) is greatest. */
static void want_knots(const struct tsync__pt *pts, size_t n, const struct tsync__pieces *ps,
                       int sign, struct tsync__pt *out, size_t *m)
{
    size_t k = 0;
    *m = 0;
    out[(*m)++] = pts[0];
    for (size_t g = 1; g + 1 < n; g += 16) {
        size_t end = g + 16 < n - 1 ? g + 16 : n - 1, best = g;
        long double bv = 0;
        for (size_t i = g; i < end; i++) {
            const struct tsync__piece *pc;
            long double v;
            while (k + 1 < ps->n && pts[i].x > ps->v[k].x_last && pts[i].x >= ps->v[k + 1].x_first)
                k++;
            pc = &ps->v[k];
            v = sign * ((long double)(pts[i].y - pc->y0) - pc->b -
                        pc->a * (long double)(pts[i].x - pc->x0));
            if (i == g || v > bv) {
                bv = v;
                best = i;
            }
        }
        out[(*m)++] = pts[best];
    }
    out[(*m)++] = pts[n - 1];
}

/* Knots m[0, *n) without those another one implies under max_drift d, found pair by
 * pair: upper (+1) knot p goes where some q has y_q + (1 + d)(x_p - x_q) < y_p
 * (q before p) or y_q - (1 - d)(x_q - x_p) < y_p (q after p); lower (-1) mirrored. */
static void undominated(struct tsync__pt *m, size_t *n, int side, double d)
{
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        int out = 0;
        for (size_t j = 0; j < *n && !out; j++) {
            long double dx = (long double)(m[i].x - m[j].x);
            long double slope = (dx >= 0) == (side > 0) ? 1 + (long double)d : 1 - (long double)d;
            long double reach = (long double)m[j].y + slope * dx;
            out = j != i && side * ((long double)m[i].y - reach) > 0 &&
                  (dx != 0 || side * (m[i].y - m[j].y) > 0);
        }
        if (!out)
            m[kept++] = m[i];
    }
    *n = kept;
}

/* The knots found in double first are those of long double: on the bending pair
 * (pieces of at most a minute, groups across their ends) and on points whose values
 * tie; of them, those no other implies under max_drift. */
static void test_knots_exact(void **state)
{
    struct tsync__pair_samples s;
    struct tsync__est_params p = params();
    struct tsync__pair_fit fit;
    struct tsync__pt *want;
    size_t m;
    (void)state;
    messages(&s, 20000);
    for (size_t i = 100; i < 400; i++)      /* runs of equal values */
        s.above[i].y = s.above[i - i % 5].y + (s.above[i].x - s.above[i - i % 5].x);
    p.max_segment = 60 * SECOND;
    assert_int_equal(tsync__fit_pair(&fit, &tsync__hull_estimator, &p, &s), 0);
    assert_true(fit.pieces.n >= 4);
    assert_non_null(want = malloc(s.n_above * sizeof(*want)));
    want_knots(s.above, s.n_above, &fit.pieces, -1, want, &m);
    undominated(want, &m, 1, p.max_drift);
    assert_int_equal(fit.envelope.up.n, m);
    assert_memory_equal(fit.envelope.up.v, want, m * sizeof(*want));
    want_knots(s.below, s.n_below, &fit.pieces, 1, want, &m);
    undominated(want, &m, -1, p.max_drift);
    assert_int_equal(fit.envelope.lo.n, m);
    assert_memory_equal(fit.envelope.lo.v, want, m * sizeof(*want));
    free(want);
    tsync__pair_fit_free(&fit);
    free(s.above);
    free(s.below);
}

/* Evaluation from a point on is the evaluation: at the points, between them, past
 * the last, from every point at or before x. */
static void test_eval_from(void **state)
{
    struct tsync__pwl f;
    (void)state;
    assert_int_equal(tsync__pwl_alloc(&f, 50), 0);
    for (int i = 0; i < 50; i++)
        assert_int_equal(tsync__pwl_push(&f, 1000 * i + i * i, 3 * i * i + 7 * i), 1);
    for (long double x = -500; x < 52000; x += 333.25L) {
        long double want = tsync__pwl_eval(&f, x);
        for (size_t k = 0; k < f.n && (k == 0 || (long double)f.x[k] <= x); k++)
            assert_true(tsync__pwl_eval_from(&f, k, x) == want);
    }
    tsync__pwl_free(&f);
}

/* A statistical estimator's bounds (the regression's) are raised to the envelope's
 * where the envelope brackets a segment (tsync__pwl_raise): both ends of a segment
 * reach its guaranteed bound, a segment it does not bracket keeps its own. */
static long double raise_seg(void *ctx, const struct tsync__pwl *f, size_t k)
{
    (void)ctx;
    (void)f;
    return k == 0 ? 100.5L : k == 1 ? 3 : INFINITY;
}

static void test_statistical_raised(void **state)
{
    struct tsync__pwl f;
    (void)state;
    assert_int_equal(tsync__pwl_alloc(&f, 4), 0);
    for (int i = 0; i < 4; i++) {
        assert_true(tsync__pwl_push(&f, i * SECOND, i * SECOND));
        f.bound[i] = 10;
    }
    tsync__pwl_raise(&f, raise_seg, NULL);
    assert_true(f.bound[0] == 101 && f.bound[1] == 101);  /* raised, rounded up */
    assert_true(f.bound[2] == 10 && f.bound[3] == 10);    /* 3 < 10; none beyond */
    tsync__pwl_free(&f);
}

/* Constraints that contradict each other (an ABOVE point below a BELOW point at
 * the same time: a latency assumed too large) leave the bounds alone there. */
static void test_contradiction_keeps_bounds(void **state)
{
    struct tsync__pt up[] = { { 0, 100 }, { 1000, 1100 }, { 2000, 2100 } };
    struct tsync__pt lo[] = { { 0, 90 }, { 1000, 1200 }, { 2000, 2090 } };
    struct tsync__pwl f;
    struct tsync__pair_fit fit;
    tsync_time fx[] = { 0, 1000, 2000 }, fy[] = { 95, 1150, 2095 };
    double fb[] = { 500, 500, 500 };
    (void)state;
    memset(&fit, 0, sizeof(fit));
    fit.guaranteed = 1;
    fit.envelope.up = (struct tsync__knots){ 3, up };
    fit.envelope.lo = (struct tsync__knots){ 3, lo };
    f = (struct tsync__pwl){ 3, fx, fy, fb };
    assert_int_equal(tsync__envelope_bound(&fit, &f), 0);
    for (size_t k = 0; k < 3; k++)
        assert_true(fb[k] == 500);
    /* Consistent constraints: the bound is the distance to the farther side. */
    lo[1].y = 1090;
    fy[1] = 1095;
    assert_int_equal(tsync__envelope_bound(&fit, &f), 0);
    for (size_t k = 0; k < 3; k++)
        assert_true(fb[k] == 5);
    /* A statistical fit keeps its own. */
    fb[0] = fb[1] = fb[2] = 500;
    fit.guaranteed = 0;
    assert_int_equal(tsync__envelope_bound(&fit, &f), 0);
    assert_true(fb[1] == 500);
}

/* Beyond the constraints on either side, the envelope goes on as steeply as
 * max_drift lets the clock run: the bound where that is tighter than the pieces',
 * theirs where it is not. */
static void test_beyond_knots(void **state)
{
    struct tsync__pt up[] = { { 1000, 1100 }, { 2000, 2100 } };
    struct tsync__pt lo[] = { { 1000, 1090 }, { 2000, 2090 } };
    tsync_time fx[] = { 0, 1000, 2000 }, fy[] = { 95, 1095, 2095 };
    double fb[] = { 900, 700, 500 };
    struct tsync__pwl f = { 3, fx, fy, fb };
    struct tsync__pair_fit fit;
    (void)state;
    memset(&fit, 0, sizeof(fit));
    fit.guaranteed = 1;
    fit.envelope.up = (struct tsync__knots){ 2, up };
    fit.envelope.lo = (struct tsync__knots){ 2, lo };
    /* At x = 0 the sides reach 1100 - 0.1 * 1000 = 1000 and 1090 - 1.9 * 1000 =
     * -810, 905 from f: the pieces' 900 stays. */
    fit.max_drift = 0.9;
    assert_int_equal(tsync__envelope_bound(&fit, &f), 0);
    assert_true(fb[0] == 900);
    assert_true(fb[1] == 700);   /* the segment before still needs it */
    assert_true(fb[2] == 5);
    /* With 0.5: 600 and -410, 505 from f at x = 0, and 5 at x = 1000. */
    fb[0] = 900, fb[1] = 700, fb[2] = 500;
    fit.max_drift = 0.5;
    assert_int_equal(tsync__envelope_bound(&fit, &f), 0);
    assert_true(fb[0] == 505);
    assert_true(fb[1] == 505);
    assert_true(fb[2] == 5);
}

/* A constraint that waited (a collective's, 30 us above the clock) 1 ms before a
 * ClockOffset record (+-1 us) is left out of the envelope: the record, carried
 * back along max_drift, is tighter there. Kept, it made the chord between it and
 * the record the bound of every point near the record (27 us where 2 us hold). */
static void test_dominated_knots(void **state)
{
    struct tsync__pt above[] = { { 0, 1000 }, { 9000000, 9030000 }, { 10000000, 10001000 } };
    struct tsync__pt below[] = { { 0, -1000 }, { 10000000, 9999000 } };
    struct tsync__pair_samples s;
    struct tsync__piece pc;
    struct tsync__pieces ps = { 1, 1, &pc };
    struct tsync__pair_fit fit;
    tsync_time fx[] = { 0, 9000000, 10000000 }, fy[] = { 0, 9000000, 10000000 };
    double fb[] = { 50000, 50000, 50000 };
    struct tsync__pwl f = { 3, fx, fy, fb };
    (void)state;
    memset(&s, 0, sizeof(s));
    memset(&pc, 0, sizeof(pc));
    memset(&fit, 0, sizeof(fit));
    s.above = above;
    s.n_above = 3;
    s.below = below;
    s.n_below = 2;
    assert_int_equal(tsync__envelope_build(&fit.envelope, &s, &ps, 1e-3), 0);
    assert_int_equal(fit.envelope.up.n, 2);
    assert_true(fit.envelope.up.v[1].x == 10000000);
    fit.guaranteed = 1;
    fit.max_drift = 1e-3;
    assert_int_equal(tsync__envelope_bound(&fit, &f), 0);
    /* At 9 ms the sides are 10 000 +- 1000 (the chords, no wander). */
    if (!(fb[1] <= 1001 && fb[2] <= 1001))
        fail_msg("bounds %.0f and %.0f ns", fb[1], fb[2]);
    /* With a drift of 0.5 allowed, the record says less there than the wait. */
    tsync__envelope_free(&fit.envelope);
    assert_int_equal(tsync__envelope_build(&fit.envelope, &s, &ps, 0.5), 0);
    assert_int_equal(fit.envelope.up.n, 3);
    tsync__envelope_free(&fit.envelope);
}

/* Dense messages both ways for 100 s, then three one way over 15 minutes: the
 * last pieces see one direction (no bound at all), the first piece's extrapolation
 * with the wander margin bounds them to milliseconds. */
static void test_open_piece(void **state)
{
    struct tsync__pair_samples s;
    struct tsync__est_params p = params();
    struct tsync__pair_fit fit;
    struct tsync__pwl f;
    tsync_time end = 1000 * SECOND;
    double before;
    (void)state;
    p.max_gap = 10 * SECOND;
    messages(&s, 2000);
    /* Keep the first 100 s of both ways, then three BELOW points. */
    while (s.n_above && s.above[s.n_above - 1].x > 100 * SECOND)
        s.n_above--;
    while (s.n_below && s.below[s.n_below - 1].x > 100 * SECOND)
        s.n_below--;
    for (int i = 1; i <= 3; i++) {
        tsync_time x = (tsync_time)i * 300 * SECOND;
        s.below[s.n_below].x = x;
        s.below[s.n_below++].y = (tsync_time)floorl(curve(x) - 60000);
    }
    assert_int_equal(tsync__fit_pair(&fit, &tsync__hull_estimator, &p, &s), 0);
    assert_true(fit.pieces.n >= 2 && fit.pieces.v[fit.pieces.n - 1].open);
    assert_int_equal(tsync__pwl_from_fit(&f, &fit, 0, end), 0);
    before = f.bound[f.n - 1];
    tsync__pwl_open_bounds(&fit, &f);
    for (tsync_time x = 0; x <= end; x += end / 100000) {
        double err = fabs((double)(curve(x) - tsync__pwl_eval(&f, (long double)x)));
        if (err > tsync__pwl_bound(&f, (long double)x))
            fail_msg("at %.3f s the error %.0f ns is outside the bound %.0f ns", (double)x / 1e9,
                     err, tsync__pwl_bound(&f, (long double)x));
    }
    print_message("bound at 1000 s: %.0f ns -> %.0f ns\n", before, f.bound[f.n - 1]);
    assert_true(isinf(before) && f.bound[f.n - 1] < 20e6);
    tsync__pwl_free(&f);
    tsync__pair_fit_free(&fit);
    free(s.above);
    free(s.below);
}

/* The envelope's range at a point: the true curve inside it at every point where
 * both sides bracket it, the same asked in order of x with one cursor as asked
 * afresh each time, and as asked backward; each knot's own value is its bound
 * there (no bulge); beyond a side's knots that side is open. */
static void test_range_at(void **state)
{
    struct tsync__pair_samples s;
    struct tsync__est_params p = params();
    struct tsync__pair_fit fit;
    struct tsync__envelope_cursor ahead = { 0, 0 }, back = { 0, 0 };
    const struct tsync__envelope *env;
    struct tsync__pt *all;
    size_t n_all;
    long double lo, hi, lo1, hi1;
    (void)state;
    messages(&s, 3000);
    assert_int_equal(tsync__fit_pair(&fit, &tsync__hull_estimator, &p, &s), 0);
    env = &fit.envelope;
    /* 3000: every one a knot but those another implies */
    assert_non_null(all = malloc(s.n_above * sizeof(*all)));
    memcpy(all, s.above, s.n_above * sizeof(*all));
    n_all = s.n_above;
    undominated(all, &n_all, 1, p.max_drift);
    free(all);
    assert_int_equal(env->up.n, n_all);
    assert_true(n_all > s.n_above - 30);
    for (tsync_time x = 0; x <= HOUR; x += HOUR / 100000) {
        struct tsync__envelope_cursor fresh = { 0, 0 };
        int in = tsync__envelope_at(env, &ahead, x, WANDER, &lo, &hi);
        assert_int_equal(tsync__envelope_at(env, &fresh, x, WANDER, &lo1, &hi1), in);
        assert_true(lo == lo1 && hi == hi1);
        if (in && !(curve(x) >= lo && curve(x) <= hi))
            fail_msg("at %.6f s the curve lies outside [%.0Lf, %.0Lf]", (double)x / 1e9,
                     lo - curve(x), hi - curve(x));
    }
    for (tsync_time x = HOUR; x >= 0; x -= HOUR / 1000) {
        struct tsync__envelope_cursor fresh = { 0, 0 };
        tsync__envelope_at(env, &back, x, WANDER, &lo, &hi);
        tsync__envelope_at(env, &fresh, x, WANDER, &lo1, &hi1);
        assert_true(lo == lo1 && hi == hi1);
    }
    for (size_t i = 1; i + 1 < env->up.n; i += 97) {
        struct tsync__envelope_cursor fresh = { 0, 0 };
        tsync__envelope_at(env, &fresh, env->up.v[i].x, WANDER, &lo, &hi);
        assert_true(hi == (long double)env->up.v[i].y);
    }
    assert_true(tsync__envelope_at(env, &ahead, env->up.v[0].x < env->lo.v[0].x
                                                     ? env->up.v[0].x : env->lo.v[0].x,
                                   WANDER, &lo, &hi));
    assert_true(isinf(lo) || isinf(hi));
    tsync__pair_fit_free(&fit);
    free(s.above);
    free(s.below);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_holds_and_tightens),
        cmocka_unit_test(test_statistical_raised),
        cmocka_unit_test(test_contradiction_keeps_bounds),
        cmocka_unit_test(test_beyond_knots),
        cmocka_unit_test(test_dominated_knots),
        cmocka_unit_test(test_open_piece),
        cmocka_unit_test(test_knots_exact),
        cmocka_unit_test(test_eval_from),
        cmocka_unit_test(test_range_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
