/* test_collect_stamp.c - seed 001 stamps, the test mode's clocks and the global
 * stamps of the collector (collect/stamp.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "collect/stamp.h"
#include "timemap/spline.h"

static struct tsc_clock clock_at(uint64_t origin)
{
    struct tsc_clock c;
    tsc_clock_init(&c, CLOCK_MONOTONIC, NULL, origin);
    return c;
}

/* Tick in the high 51 bits, counter in the low 13; the counter counts events on
 * one tick; a reading behind the last tick counts on the last tick. */
static void test_counter(void **state)
{
    (void)state;
    struct tsc_clock c = clock_at(1000);
    assert_int_equal(c.origin_ns, 1000);
    assert_int_equal(tsc_stamp(&c, 1000), 0);
    assert_int_equal(tsc_stamp(&c, 1000), 1);
    assert_int_equal(tsc_stamp(&c, 1000), 2);
    assert_int_equal(tsc_stamp(&c, 1001), UINT64_C(1) << 13);
    assert_int_equal(tsc_stamp(&c, 999), (UINT64_C(1) << 13) | 1);
    assert_int_equal(tsc_stamp(&c, 1000 + 5000), UINT64_C(5000) << 13);
    assert_int_equal(tsc_stamp_tick(UINT64_C(5000) << 13 | 77), 5000);
    assert_int_equal(c.max_counter, 2);
    assert_int_equal(c.overflows, 0);
}

/* The 8192nd event on one tick overflows into the next tick; stamps keep rising. */
static void test_overflow(void **state)
{
    (void)state;
    struct tsc_clock c = clock_at(0);
    uint64_t prev = tsc_stamp(&c, 10);
    for (int i = 1; i < 20000; i++) {
        uint64_t s = tsc_stamp(&c, 10);
        assert_true(s > prev);
        prev = s;
    }
    assert_int_equal(c.overflows, 2);
    assert_int_equal(c.max_counter, 8191);
    /* 20000 = 8192 + 8192 + 3616: the last on tick 12 with counter 3615 */
    assert_int_equal(prev, (UINT64_C(12) << 13) | 3615);
    /* a later reading on tick 11 still counts on tick 12 */
    assert_int_equal(tsc_stamp(&c, 11), (UINT64_C(12) << 13) | 3616);
    assert_int_equal(tsc_stamp(&c, 13), UINT64_C(13) << 13);
}

/* local = true + offset + skew t + wander P / 2 pi sin(2 pi t / P) */
static void test_distort(void **state)
{
    (void)state;
    struct tsc_test_clock d = { .offset_s = 5e-3, .skew_ppm = 20, .wander_ppm = 1, .period_s = 4 };
    struct tsc_clock c;
    uint64_t t0 = UINT64_C(1000000000000);
    tsc_clock_init(&c, CLOCK_MONOTONIC, &d, t0);
    assert_true(c.test);
    assert_int_equal(c.origin_ns, t0 + 5000000);
    /* t = 1 s: sin(pi / 2) = 1, 1e-6 x 4 / 2 pi s = 636.6 ns */
    assert_int_equal(tsc_clock_distort(&c, t0 + 1000000000), t0 + 1000000000 + 5000000 + 20000 + 637);
    /* t = 2 s: sin(pi) = 0 */
    assert_int_equal(tsc_clock_distort(&c, t0 + 2000000000), t0 + 2000000000 + 5000000 + 40000);
}

/* Global stamps: master tick x scale x 2, from the origin; the counter stays. */
static void test_global(void **state)
{
    (void)state;
    struct tsc_global_map m = { .a = 1.0, .b = 100.0, .scale = 1.0, .origin = 200.0 };
    assert_true(tsc_global_map_check(&m));
    assert_int_equal(tsc_global_stamp(&m, (UINT64_C(1000) << 13) | 5), (UINT64_C(2000) << 13) | 5);
    m.scale = 1.0 + 0x1p-20; /* the master's wall clock ran about 1 ppm faster */
    m.b = 0, m.origin = 0;
    assert_int_equal(tsc_stamp_tick(tsc_global_stamp(&m, UINT64_C(1000000000) << 13)), 2000001907); /* 2e9 (1 + 2^-20) = 2000001907.35 */
    /* a slope that would let distinct local ticks meet is refused */
    struct tsc_global_map bad = { .a = 0.49, .b = 0, .scale = 1.0, .origin = 0 };
    assert_false(tsc_global_map_check(&bad));
}

/* Property: with any accepted map, stamps that rise stay rising. */
static void test_global_monotone(void **state)
{
    (void)state;
    srand(7);
    for (int trial = 0; trial < 20; trial++) {
        struct tsc_global_map m = { .a = 1.0 + ((rand() % 2001) - 1000) * 1e-6, .b = (double)(rand() % 100000),
                                    .scale = 1.0 + ((rand() % 201) - 100) * 1e-6, .origin = 0 };
        assert_true(tsc_global_map_check(&m));
        struct tsc_clock c = clock_at(0);
        uint64_t t = 0, prev = 0;
        for (int i = 0; i < 5000; i++) {
            t += (uint64_t)(rand() % 3); /* often the same tick */
            uint64_t g = tsc_global_stamp(&m, tsc_stamp(&c, t));
            if (i)
                assert_true(g > prev);
            prev = g;
        }
    }
}

/* With mid-run sessions, the spline through their pairs: exact at the sessions,
 * stamps that rise stay rising across the knots, even where the rate jumps. */
static void test_global_spline(void **state)
{
    (void)state;
    /* sessions 1 ms apart; the clock 100 ppm fast, then 300 ppm slow */
    double x[4] = { 1000, 1001000, 2001000, 3001000 }, y[4] = { 5000, 1005100, 2004800, 3004500 }, d[4];
    struct tsc_global_map m = { .a = 1.0, .scale = 1.0 };
    assert_int_equal(tsync__spline_slopes(x, y, 4, tsc_global_min_slope(&m), d), 0);
    m.n = 4, m.x = x, m.y = y, m.d = d;
    assert_true(tsc_global_map_check(&m));
    for (int i = 0; i < 4; i++)
        assert_true(tsc_global_tick(&m, x[i]) == 2 * y[i]);
    struct tsc_clock c = clock_at(0);
    uint64_t prev = 0;
    for (uint64_t t = 0; t < 4000000; t += 7) {
        uint64_t g = tsc_global_stamp(&m, tsc_stamp(&c, t));
        assert_true(t == 0 || g > prev);
        prev = g;
    }
    /* a knot slope below what keeps ticks apart is refused */
    d[2] = 0.4;
    assert_false(tsc_global_map_check(&m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter),   cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_distort),   cmocka_unit_test(test_global),
        cmocka_unit_test(test_global_monotone), cmocka_unit_test(test_global_spline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
