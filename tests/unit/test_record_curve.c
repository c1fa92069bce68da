/* test_record_curve.c - ClockOffset records as a pair's curve
 * (src/estimate/record_curve.c): the points, their slopes and scatter, records
 * close together merged, none where records lie farther apart than the reach or
 * leave the samples' ends; and through the segment driver, a wandering clock
 * followed through its records within their noise where the hull's lines over
 * the same samples are microseconds off, inside the same bounds. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "est_params.h"
#include "estimate/estimator.h"
#include "pwl_check.h"

#define NS 1000000000LL
#define REACH (60 * NS)
#define ERR 1000             /* a record's uncertainty, ns */

/* Offset 3 ms, drift 5 ppm, and a drift that swings by 0.6 ppm over 20 minutes
 * (seed 004's temperature), within max_wander. */
static long double truth(long double x)
{
    long double w = 2 * 3.14159265358979L / (1200.0L * NS);
    return 3000000.0L + 1.000005L * x + 0.3e-6L / w * sinl(w * x);
}

static uint32_t lcg(uint32_t *r)
{
    *r = *r * 1664525u + 1013904223u;
    return *r >> 8;
}

/* n one-way constraints each way over [0, end], delays of 5 us over the assumed
 * minimum plus up to 40 us, and a record every `every` ns from `first` on, off by
 * up to 300 ns (a ping-pong's asymmetry), as samples.c makes them: two
 * constraints at +-ERR and the record itself. */
static void samples(struct tsync__pair_samples *s, size_t n, tsync_time end, tsync_time first,
                    tsync_time every)
{
    uint32_t r = 7;
    size_t n_rec = first <= end ? (size_t)((end - first) / every) + 1 : 0;
    memset(s, 0, sizeof(*s));
    s->above = calloc(n + n_rec, sizeof(*s->above));
    s->below = calloc(n + n_rec, sizeof(*s->below));
    s->rec = calloc(n_rec ? n_rec : 1, sizeof(*s->rec));
    assert_true(s->above && s->below && s->rec);
    for (size_t i = 0, k = 0; i < n || k < n_rec;) {
        tsync_time x = i < n ? (tsync_time)(i * (end / (tsync_time)n)) : INT64_MAX, up, down;
        tsync_time xr = k < n_rec ? first + (tsync_time)k * every : INT64_MAX;
        if (xr <= x) {
            tsync_time y = (tsync_time)llroundl(truth(xr)) + (tsync_time)(lcg(&r) % 601) - 300;
            s->above[s->n_above++] = (struct tsync__pt){ xr, y + ERR };
            s->below[s->n_below++] = (struct tsync__pt){ xr, y - ERR };
            s->rec[s->n_rec++] = (struct tsync__sample){ xr, y, ERR, TSYNC__RECORD, 1 };
            k++;
            continue;
        }
        up = 5000 + (tsync_time)(lcg(&r) % 40000);
        down = 5000 + (tsync_time)(lcg(&r) % 40000);
        s->above[s->n_above++] = (struct tsync__pt){ x, (tsync_time)ceill(truth(x)) + up };
        s->below[s->n_below++] =
            (struct tsync__pt){ x + 1000, (tsync_time)floorl(truth(x + 1000)) - down };
        i++;
    }
}

static void samples_free(struct tsync__pair_samples *s)
{
    free(s->above);
    free(s->below);
    free(s->rec);
}

/* Records every 30 s over 5 minutes: a point at each, its slope the chord across
 * its neighbours, the scatter half the RMS of each inner record about that chord. */
static void test_points(void **state)
{
    struct tsync__pair_samples s;
    struct tsync__windows w;
    long double sq = 0;
    (void)state;
    samples(&s, 300, 300 * NS, 0, 30 * NS);
    assert_int_equal(tsync__record_curve(&w, &s, REACH, NS), 0);
    assert_int_equal(w.n, 11);
    assert_true(w.local);
    for (size_t i = 0; i < w.n; i++) {
        size_t l = i ? i - 1 : 0, r = i + 1 < w.n ? i + 1 : i;
        long double a = (long double)(s.rec[r].y - s.rec[l].y) /
                        (long double)(s.rec[r].x - s.rec[l].x);
        assert_true(w.v[i].x == s.rec[i].x && w.v[i].y == (long double)s.rec[i].y);
        assert_true(fabsl(w.v[i].a - a) < 1e-15L);
        assert_true(w.v[i].width == 2 * ERR);
        if (i && i + 1 < w.n) {
            long double off = (long double)(s.rec[i].y - s.rec[l].y) -
                              a * (long double)(s.rec[i].x - s.rec[l].x);
            sq += off * off;
        }
    }
    assert_true(fabsl(w.scatter - sqrtl(sq / 9) / 2) < 1e-6L);
    assert_true(w.scatter > 0 && w.scatter < 1000);
    tsync__windows_free(&w);
    samples_free(&s);
}

/* Records closer than `near` are one point, at their mean, as wide as the widest. */
static void test_merged(void **state)
{
    struct tsync__pair_samples s;
    struct tsync__windows w;
    (void)state;
    samples(&s, 300, 300 * NS, 0, 30 * NS);
    s.rec[3].x = s.rec[2].x + NS / 5;
    s.rec[3].y = s.rec[2].y + NS / 5 + 400;
    s.rec[3].err = 3 * ERR;
    assert_int_equal(tsync__record_curve(&w, &s, REACH, NS), 0);
    assert_int_equal(w.n, 10);
    assert_true(w.v[2].x == s.rec[2].x + NS / 10);
    assert_true(fabsl(w.v[2].y - ((long double)s.rec[2].y + NS / 10 + 200)) < 1e-6L);
    assert_true(w.v[2].width == 6 * ERR);
    assert_true(w.v[3].x == s.rec[4].x);
    tsync__windows_free(&w);
    samples_free(&s);
}

/* No curve where records lie farther apart than the reach, where the samples go on
 * farther than it beyond the first or last record, with one record, or with no
 * reach. */
static void test_none(void **state)
{
    struct tsync__pair_samples s;
    struct tsync__windows w;
    (void)state;
    samples(&s, 300, 300 * NS, 0, 30 * NS);
    s.rec[5] = s.rec[6];                    /* 30 -> 60 s ... */
    s.rec[5].x -= 1;
    assert_int_equal(tsync__record_curve(&w, &s, REACH, NS), 0);
    assert_int_equal(w.n, 10);              /* ... within the reach */
    tsync__windows_free(&w);
    assert_int_equal(tsync__record_curve(&w, &s, 59 * NS, NS), 0);
    assert_int_equal(w.n, 0);
    assert_null(w.v);
    assert_int_equal(tsync__record_curve(&w, &s, 0, NS), 0);
    assert_int_equal(w.n, 0);
    samples_free(&s);

    samples(&s, 300, 300 * NS, 0, 30 * NS);
    s.n_rec = 1;
    assert_int_equal(tsync__record_curve(&w, &s, REACH, NS), 0);
    assert_int_equal(w.n, 0);
    samples_free(&s);

    samples(&s, 600, 600 * NS, 0, 30 * NS);  /* the records stop at 300 s */
    s.n_rec = 11;
    assert_int_equal(tsync__record_curve(&w, &s, REACH, NS), 0);
    assert_int_equal(w.n, 0);
    s.n_rec = 19;                           /* 540 s: 60 s before the last sample */
    assert_int_equal(tsync__record_curve(&w, &s, REACH, NS), 0);
    assert_int_equal(w.n, 19);
    tsync__windows_free(&w);
    samples_free(&s);
}

/* A dozen messages between records every 30 s on a clock whose drift swings: the
 * pair's function passes the records, within their 300 ns of noise, where the
 * hull's lines over the same samples are microseconds off; the truth inside the
 * bound in both. */
static void test_fit_follows_records(void **state)
{
    struct tsync__pair_samples s;
    struct tsync__est_params p = est_defaults();
    struct tsync__pair_fit fit;
    struct tsync__pwl f;
    long double with = 0, without = 0;
    (void)state;
    samples(&s, 120, 600 * NS, 0, 30 * NS);
    for (int reach = 1; reach >= 0; reach--) {
        p.record_reach = reach ? REACH : 0;
        assert_int_equal(tsync__fit_pair(&fit, &tsync__hull_estimator, &p, &s), 0);
        assert_true(!reach || (fit.windows.local && fit.windows.n == s.n_rec));
        assert_int_equal(tsync__pwl_from_fit(&f, &fit, 0, 600 * NS), 0);
        *(reach ? &with : &without) = check_inside(&f, truth, 0, 600 * NS, NS / 10);
        tsync__pwl_free(&f);
        tsync__pair_fit_free(&fit);
    }
    print_message("largest error: %.0Lf ns through the records, %.0Lf ns without\n", with,
                  without);
    assert_true(with < 800);
    assert_true(with < without / 2);
    samples_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_merged),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_fit_follows_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
