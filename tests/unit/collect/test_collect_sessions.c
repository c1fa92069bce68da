/* test_collect_sessions.c - seed 000's session reduction and regression
 * (collect/sessions.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collect/sessions.h"

/* Master = local + 1000, 50 ticks each way; one exchange delayed 10000 ticks on
 * its way back is among the 10 % slowest and is dropped. */
static void test_reduce_drops_slowest(void **state)
{
    (void)state;
    struct tsc_exchange x[10];
    bool keep[10];
    for (int i = 0; i < 10; i++) {
        uint64_t t = 100000 + 1000 * (uint64_t)i;
        x[i] = (struct tsc_exchange){ t, t + 50 + 1000, t + 100 };
    }
    x[4].t_recv += 10000; /* the reply waited: rtt 10100, midpoint off by 5000 */
    struct tsc_session s;
    assert_int_equal(tsc_session_reduce(x, 10, keep, &s), 0);
    assert_int_equal(s.n, 10);
    assert_int_equal(s.kept, 9);
    assert_false(keep[4]);
    assert_true(keep[0] && keep[9]);
    assert_true(s.offset == 1000.0);
    /* equal offsets: only the asymmetry each round trip of 100 allows, 100 / sqrt(12) */
    assert_true(fabs(s.stddev - 100 / sqrt(12)) < 1e-9);
    assert_true(s.master - s.local == 1000.0);
    assert_true(s.local == (100000 + 1000 * (0 + 1 + 2 + 3 + 5 + 6 + 7 + 8 + 9) / 9.0) + 50);
}

/* Fewer than 10 exchanges: none dropped; the offset is the mean. */
static void test_reduce_small(void **state)
{
    (void)state;
    struct tsc_exchange x[3] = { { 0, 60, 100 }, { 1000, 1040, 1100 }, { 2000, 2080, 2100 } };
    struct tsc_session s;
    assert_int_equal(tsc_session_reduce(x, 3, NULL, &s), 0);
    assert_int_equal(s.kept, 3);
    /* midpoints 50, 1050, 2050: offsets +10, -10, +30 */
    assert_true(s.offset == 10.0);
    assert_true(s.local == 1050.0);
    /* variance 800 / 3 (offsets +10, -10, +30), round trips 100: plus 100^2 / 12 */
    assert_true(fabs(s.stddev - sqrt(800.0 / 3 + 10000.0 / 12)) < 1e-9);
    assert_int_equal(tsc_session_reduce(x, 0, NULL, &s), -1);
}

/* A loaded machine: half the exchanges waited (the child descheduled after its
 * send stamp, or the master before its reply), their round trips stretched by 20
 * to 380 us, one way only. Dropping the slowest 10 % left 8 of them: the mean
 * was 35 us off. Kept: the exchanges within twice the fastest round trip plus
 * the slack, each exact here. */
static void test_reduce_loaded(void **state)
{
    (void)state;
    struct tsc_exchange x[20];
    bool keep[20];
    for (int i = 0; i < 20; i++) {
        uint64_t t = 1000000 + 100000 * (uint64_t)i, rtt = 1500 + 37 * (uint64_t)(i % 5);
        x[i] = (struct tsc_exchange){ t, t + rtt / 2 + 5000, t + rtt };
        if (i % 2) /* a late reply: the master's stamp, taken late, is late too */
            x[i].t_master += 20000 * (uint64_t)i, x[i].t_recv += 20000 * (uint64_t)i;
    }
    struct tsc_session s;
    assert_int_equal(tsc_session_reduce(x, 20, keep, &s), 0);
    assert_int_equal(s.kept, 10);
    for (int i = 0; i < 20; i++)
        assert_true(keep[i] == !(i % 2));
    assert_true(fabs(s.offset - 5000) < 1);
    /* the kept round trips (1500 to 1648) say how far a shared asymmetry could be */
    assert_true(s.stddev > 1500 / sqrt(12) && s.stddev < 1648 / sqrt(12));
}

/* A machine so loaded that every reply waits about 4 ms for the child to be
 * scheduled again: the ten exchanges agree with one another (a spread of
 * microseconds) and all are 2 ms off. Three standard deviations cover that. */
static void test_reduce_shared_delay(void **state)
{
    (void)state;
    struct tsc_exchange x[10];
    for (int i = 0; i < 10; i++) {
        uint64_t t = 1000000 + 5000000 * (uint64_t)i, back = 4000000 + 1000 * (uint64_t)(i % 3);
        x[i] = (struct tsc_exchange){ t, t + 500 + 7000, t + 1000 + back };
    }
    struct tsc_session s;
    assert_int_equal(tsc_session_reduce(x, 10, NULL, &s), 0);
    double off = fabs(s.offset - 7000);
    assert_true(off > 1.9e6);
    assert_true(3 * s.stddev >= off);
}

/* Least squares through exact points, and one point (a = 1). */
static void test_fit_line(void **state)
{
    (void)state;
    double l[5], m[5], a, b;
    for (int i = 0; i < 5; i++) {
        l[i] = 1e9 * i + 12345;
        m[i] = 1.00002 * l[i] + 500;
    }
    assert_int_equal(tsc_fit_line(l, m, 5, &a, &b), 0);
    assert_true(a > 1.00002 - 1e-12 && a < 1.00002 + 1e-12);
    assert_true(b > 499.99 && b < 500.01);
    assert_int_equal(tsc_fit_line(l, m, 1, &a, &b), 0);
    assert_true(a == 1.0);
    assert_true(b == m[0] - l[0]);
    assert_int_equal(tsc_fit_line(l, m, 0, &a, &b), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_drops_slowest),
        cmocka_unit_test(test_reduce_small),
        cmocka_unit_test(test_reduce_loaded),
        cmocka_unit_test(test_reduce_shared_delay),
        cmocka_unit_test(test_fit_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
