/* test_deviation.c - Table 4 of seed 002 (src/metrics/deviation.c and its report):
 * event position and event distance deviations on hand-made timelines, with every
 * number computed by hand below. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "report/report.h"
#include "tracegen.h"
#include "tracesync/metrics.h"

/* Reference times as in the spec; `mod` gives the modified times of every event,
 * location after location. */
static tsync_timeline *modified(const tsync_trace *t, const tsync_time *mod)
{
    tsync_timeline *tl = NULL;
    assert_int_equal(tsync_timeline_new(&tl, t, NULL), 0);
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        tsync_time *v = tsync_timeline_times(tl, l);
        for (uint64_t j = 0; j < t->locations[l].n_events; j++)
            v[j] = *mod++;
    }
    return tl;
}

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * fabs(want) + 1e-15))
        fail_msg("%.17g != %.17g", got, want);
}

/*   L0  ref 0 100 300 600   mod 0 110 300 600
 *   L1  ref 10 10 50        mod 10 12 50        (an interval of length 0 grows by 2)
 *   L2  ref 7               mod 9               (no interval)
 * Position, t / dt: L0 100/10, 300/0, 600/0; L1 0/2, 40/0.
 *   5 intervals, sum |t| = 1040, sum |dt| = 12: average 12/1040; deviations 0.1, 0,
 *   0, inf, 0: max inf; above 0 .. 1 %: 2 of 5 (time 100 + 0 of 1040); above 10 %
 *   and 100 %: only the infinite one (0.1 is not above 0.1), time 0.
 * Distance: L0 100/10, 200/10, 300/0; L1 0/2, 40/2.
 *   5 intervals, sum |t| = 640, sum |dt| = 24: average 0.0375; deviations 0.1, 0.05,
 *   0, inf, 0.05: above 0 .. 1 %: 4 of 5 (time 100 + 200 + 0 + 40 = 340 of 640);
 *   above 10 % and 100 %: 1 of 5, time 0. Largest |dt| 10 ticks = 10 ns. */
static void test_table4(void **state)
{
    static const tsync_time mod[] = { 0, 110, 300, 600, 10, 12, 50, 9 };
    tsync_trace *t = tg_parse("L0@a: 0 100 300 600; L1@a: 10 10 50; L2@b: 7");
    tsync_timeline *ref = NULL, *m = modified(t, mod);
    tsync_deviation p, d;
    (void)state;
    assert_int_equal(tsync_timeline_new(&ref, t, NULL), 0);
    assert_int_equal(tsync_deviation_compute(&p, &d, t, ref, m, NULL), 0);

    assert_int_equal(p.intervals, 5);
    near(p.avg, 12.0 / 1040.0);
    assert_true(isinf(p.max));
    near(p.max_abs_s, 10e-9);
    for (int k = 0; k < 4; k++) {
        near(p.share_intervals[k], 0.4);
        near(p.share_time[k], 100.0 / 1040.0);
    }
    for (int k = 4; k < 6; k++) {
        near(p.share_intervals[k], 0.2);
        near(p.share_time[k], 0.0);
    }

    assert_int_equal(d.intervals, 5);
    near(d.avg, 0.0375);
    assert_true(isinf(d.max));
    near(d.max_abs_s, 10e-9);
    for (int k = 0; k < 4; k++) {
        near(d.share_intervals[k], 0.8);
        near(d.share_time[k], 340.0 / 640.0);
    }
    for (int k = 4; k < 6; k++) {
        near(d.share_intervals[k], 0.2);
        near(d.share_time[k], 0.0);
    }
    tsync_timeline_free(ref);
    tsync_timeline_free(m);
    tsync_trace_free(t);
}

/* Finite maxima and the thresholds between them: one location, ref 0 1000 1500 1600,
 * mod 0 1000 1501 1610 (distances 1000/0, 500/1, 100/9: 0, 0.002, 0.09).
 *   distance: max 0.09; above 0: 2 of 3; above 0.01 %: 2; 0.1 %: 2 (0.002 > 0.001);
 *             1 %: 1 (0.09); 10 %: 0. Time above 0.1 %: 600 of 1600, above 1 %: 100.
 *   position: 1000/0, 1500/1, 1600/10: max 10/1600 = 0.00625, avg 11/4100; 1/1500 is
 *             above 0.01 % but not above 0.1 %. */
static void test_thresholds(void **state)
{
    static const tsync_time mod[] = { 0, 1000, 1501, 1610 };
    tsync_trace *t = tg_parse("L0@a: 0 1000 1500 1600");
    tsync_timeline *ref = NULL, *m = modified(t, mod);
    tsync_deviation p, d;
    (void)state;
    assert_int_equal(tsync_timeline_new(&ref, t, NULL), 0);
    assert_int_equal(tsync_deviation_compute(&p, &d, t, ref, m, NULL), 0);
    near(d.max, 0.09);
    near(d.avg, 10.0 / 1600.0);
    near(d.share_intervals[0], 2.0 / 3.0);
    near(d.share_intervals[2], 2.0 / 3.0);
    near(d.share_intervals[3], 1.0 / 3.0);
    near(d.share_intervals[4], 0.0);
    near(d.share_time[2], 600.0 / 1600.0);
    near(d.share_time[3], 100.0 / 1600.0);
    near(p.max, 10.0 / 1600.0);
    near(p.avg, 11.0 / 4100.0);
    near(p.share_intervals[3], 0.0);   /* 0.625 % is not above 1 % */
    near(p.share_intervals[2], 1.0 / 3.0); /* 1/1500 = 0.067 % is not above 0.1 %; 0.625 % is */
    /* NULL outputs are fine; unchanged timelines deviate nowhere. */
    assert_int_equal(tsync_deviation_compute(NULL, &d, t, ref, ref, NULL), 0);
    assert_int_equal(d.intervals, 3);
    near(d.avg, 0.0);
    near(d.max, 0.0);
    near(d.share_intervals[0], 0.0);
    tsync_timeline_free(ref);
    tsync_timeline_free(m);
    tsync_trace_free(t);
}

static void test_bad(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 0 1");
    tsync_trace *u = tg_parse("L0@a: 0; L1@a: 0");
    tsync_timeline *a = NULL, *b = NULL;
    tsync_deviation p, d;
    tsync_ctx *ctx = NULL;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_timeline_new(&a, t, ctx), 0);
    assert_int_equal(tsync_timeline_new(&b, u, ctx), 0);
    assert_int_equal(tsync_deviation_compute(&p, &d, t, a, b, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "do not belong"));
    assert_int_equal(tsync_deviation_compute(&p, &d, t, NULL, a, ctx), TSYNC_EINVAL);
    tsync_timeline_free(a);
    tsync_timeline_free(b);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
    tsync_trace_free(u);
}

/* The report: JSON with null for an infinite maximum, text in percent. */
static void test_report(void **state)
{
    tsync_deviation p, d;
    json_t *j;
    char buf[4096];
    FILE *f;
    (void)state;
    memset(&p, 0, sizeof(p));
    memset(&d, 0, sizeof(d));
    p.intervals = d.intervals = 5;
    p.avg = 0.0115;
    p.max = INFINITY;
    d.max = 0.25;
    d.share_intervals[0] = 0.8;
    j = tsync__deviation_to_json(&p);
    assert_non_null(j);
    assert_true(json_is_null(json_object_get(j, "max")));
    assert_int_equal(json_array_size(json_object_get(j, "thresholds")), TSYNC_DEVIATION_THRESHOLDS);
    assert_true(json_real_value(json_array_get(json_object_get(j, "thresholds"), 3)) == 0.01);
    json_decref(j);
    j = tsync__deviation_to_json(&d);
    assert_true(json_real_value(json_object_get(j, "max")) == 0.25);
    json_decref(j);
    f = fmemopen(buf, sizeof(buf), "w");
    assert_non_null(f);
    tsync__deviation_print(&p, &d, f);
    fclose(f);
    assert_non_null(strstr(buf, "1.15"));   /* average position, % */
    assert_non_null(strstr(buf, "inf"));
    assert_non_null(strstr(buf, "25"));     /* maximum distance, % */
    assert_non_null(strstr(buf, "80.00"));  /* share of intervals above 0 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table4),
        cmocka_unit_test(test_thresholds),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
