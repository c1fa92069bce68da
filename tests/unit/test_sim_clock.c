/* test_sim_clock.c - the simulator's clocks (src/sim/clock.c) against closed forms:
 * offset after T seconds for a given skew, the integral of the temperature sinusoid,
 * slewed steps, readings that never go back, the Allan deviation of the random walk,
 * replays of the walk; and the random numbers they are drawn from (src/sim/rng.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/clock.h"
#include "sim/rng.h"

#define PI 3.14159265358979323846
#define NS 1000000000ull

/* A clock with only the given model terms, read in ns (or `res` ticks). */
static struct tsync_sim_clock *make_clock(const struct tsync_sim_clock_model *m, uint64_t res)
{
    struct tsync_sim_clock *c = malloc(sizeof(*c));
    assert_non_null(c);
    tsync__clock_init(c, m, NS, res, 42, 7);
    return c;
}

static void test_offset_and_skew(void **state)
{
    struct tsync_sim_clock_model m;
    struct tsync_sim_clock *c;
    (void)state;
    memset(&m, 0, sizeof(m));
    m.offset_s = 2.5e-3;
    m.skew = 12e-6;             /* gains 12 us per second */
    c = make_clock(&m, NS);
    /* After T seconds the clock is o + s T ahead. */
    for (double T = 0; T <= 7200; T += 600) {
        double want = 2.5e-3 + 12e-6 * T;
        assert_true(fabs(tsync__clock_error(c, T) - want) < 1e-15 * (1 + T));
    }
    /* One hour: 2.5 ms + 43.2 ms; the reading is T + floor(error) in ns. */
    assert_int_equal(tsync__clock_read(c, 3600 * (int64_t)NS), 3600 * (int64_t)NS + 45700000);
    /* A clock that loses 50 ppm reads 50 us less per second. */
    m.offset_s = 0;
    m.skew = -50e-6;
    free(c);
    c = make_clock(&m, NS);
    assert_int_equal(tsync__clock_read(c, 10 * (int64_t)NS), 10 * (int64_t)NS - 500000);
    free(c);
}

/* Simpson's rule over [0, t] of a sin(2 pi u / P + phi). */
static double simpson_sine(double a, double P, double phi, double t)
{
    int n = 20000;
    double h = t / n, sum = 0;
    for (int i = 0; i <= n; i++) {
        double w = i == 0 || i == n ? 1 : i % 2 ? 4 : 2;
        sum += w * a * sin(2 * PI * (i * h) / P + phi);
    }
    return sum * h / 3;
}

static void test_temperature_integral(void **state)
{
    struct tsync_sim_clock_model m;
    struct tsync_sim_clock *c;
    (void)state;
    memset(&m, 0, sizeof(m));
    m.temp_amp = 1e-6;
    m.temp_period_s = 1800;
    m.temp_phase = 0.7;
    c = make_clock(&m, NS);
    for (double t = 100; t <= 5400; t += 433) {
        double num = simpson_sine(1e-6, 1800, 0.7, t);
        assert_true(fabs(tsync__clock_error(c, t) - num) < 1e-13);
    }
    /* Over a whole period the frequency averages out: back to zero. */
    assert_true(fabs(tsync__clock_error(c, 1800)) < 1e-15);
    assert_true(fabs(tsync__clock_error(c, 3600)) < 1e-15);
    /* The largest excursion is 2 a P / 2 pi (573 us for 1 ppm over 30 min). */
    {
        double peak = 0;
        for (double t = 0; t < 1800; t += 1)
            peak = fmax(peak, fabs(tsync__clock_error(c, t)));
        assert_true(peak <= 2 * 1e-6 * 1800 / (2 * PI) + 1e-12);
        assert_true(peak > 0.99 * 2 * 1e-6 * 1800 / (2 * PI) * fabs(cos(0.7)) * 0.5);
    }
    free(c);
}

static void test_step_slewed(void **state)
{
    struct tsync_sim_clock_model m;
    struct tsync_sim_clock *c;
    int64_t prev = INT64_MIN;
    (void)state;
    memset(&m, 0, sizeof(m));
    m.n_steps = 1;
    m.step_t[0] = 10;
    m.step_d[0] = -1e-3;        /* NTP takes 1 ms back ... */
    m.slew = 500e-6;            /* ... at 500 ppm: over 2 s */
    c = make_clock(&m, NS);
    assert_true(fabs(tsync__clock_error(c, 10)) < 1e-18);
    assert_true(fabs(tsync__clock_error(c, 11) + 0.5e-3) < 1e-15);
    assert_true(fabs(tsync__clock_error(c, 12) + 1e-3) < 1e-15);
    assert_true(fabs(tsync__clock_error(c, 100) + 1e-3) < 1e-15);
    /* The clock slows down during the step but never goes back. */
    for (int64_t t = 9 * (int64_t)NS; t < 13 * (int64_t)NS; t += 999983) {
        int64_t r = tsync__clock_read(c, t);
        assert_true(r >= prev);
        prev = r;
    }
    free(c);
}

/* Every term at the limit of what the options allow, read at a coarse and a fine
 * resolution, tick by tick and at random increasing times: never backward. */
static void test_monotone(void **state)
{
    static const uint64_t resolutions[] = { NS, 1000000, 1000 };
    tsync_sim_clock_params p = { .offset_max_s = 1, .skew_sd_ppm = 10, .skew_max_ppm = 50,
        .temp_amp_min_ppm = 1, .temp_amp_max_ppm = 1, .temp_period_min_s = 600,
        .temp_period_max_s = 600, .allan_1s = 1e-8, .daily_amp_ppm = 1, .steps = 8,
        .step_max_s = 5e-3, .step_window_s = 50, .slew_ppm = 500 };
    struct tsync_rng rng;
    (void)state;
    tsync__rng_seed(&rng, 3, 1);
    for (size_t k = 0; k < 3; k++) {
        for (int trial = 0; trial < 4; trial++) {
            struct tsync_sim_clock_model m;
            struct tsync_sim_clock *c;
            int64_t prev = INT64_MIN, t = 2 * (int64_t)NS;
            tsync__clock_draw(&m, &p, &rng);
            m.skew = trial % 2 ? -50e-6 : 50e-6;
            c = make_clock(&m, resolutions[k]);
            for (int i = 0; i < 200000; i++) {
                int64_t r = tsync__clock_read(c, t);
                assert_true(r >= prev);
                prev = r;
                t += i % 1000 == 0 ? (int64_t)tsync__rng_below(&rng, 300 * NS) + 1
                                   : (int64_t)tsync__rng_below(&rng, 3) + 1;
            }
            free(c);
        }
    }
}

/* Overlapping Allan deviation from phase samples x[i] taken tau0 apart, at m * tau0. */
static double adev(const double *x, size_t n, size_t m, double tau0)
{
    double sum = 0, tau = (double)m * tau0;
    size_t k = 0;
    for (size_t i = 0; i + 2 * m < n; i++, k++) {
        double d = x[i + 2 * m] - 2 * x[i + m] + x[i];
        sum += d * d;
    }
    return sqrt(sum / (2.0 * tau * tau * (double)k));
}

static void test_allan_deviation(void **state)
{
    struct tsync_sim_clock_model m;
    struct tsync_sim_clock *c;
    size_t n = 40000;
    double *x = malloc(n * sizeof(*x));
    (void)state;
    assert_non_null(x);
    for (int seed = 0; seed < 3; seed++) {
        memset(&m, 0, sizeof(m));
        m.rw_q = 3.0 * 1e-9 * 1e-9;   /* Allan deviation 1e-9 at 1 s */
        c = malloc(sizeof(*c));
        assert_non_null(c);
        tsync__clock_init(c, &m, NS, NS, 100 + (uint64_t)seed, 5);
        for (size_t i = 0; i < n; i++)
            x[i] = tsync__clock_error(c, (double)i);
        /* Random walk FM: sigma_y(tau) = A sqrt(tau); within a factor of 1.5. */
        for (size_t tau = 1; tau <= 100; tau *= 10) {
            double got = adev(x, n, tau, 1.0), want = 1e-9 * sqrt((double)tau);
            printf("seed %d tau %3zu s: Allan deviation %.3g (target %.3g)\n", seed, tau, got, want);
            assert_true(got > want / 1.5 && got < want * 1.5);
        }
        assert_int_equal(c->replays, 0);
        free(c);
    }
    free(x);
}

/* A time older than the kept knots replays the walk: same value, counted. */
static void test_walk_replay(void **state)
{
    struct tsync_sim_clock_model m;
    struct tsync_sim_clock *c;
    double early, late;
    (void)state;
    memset(&m, 0, sizeof(m));
    m.rw_q = 3e-16;
    c = make_clock(&m, NS);
    early = tsync__clock_walk(c, 12.3);
    late = tsync__clock_walk(c, 12.3 + TSYNC_CLOCK_RING * TSYNC_CLOCK_KNOT_S * 3);
    assert_int_equal(c->replays, 0);
    assert_true(tsync__clock_walk(c, 12.3) == early);
    assert_int_equal(c->replays, 1);
    assert_true(tsync__clock_walk(c, 12.3 + TSYNC_CLOCK_RING * TSYNC_CLOCK_KNOT_S * 3) == late);
    /* Going back within the window is free. */
    assert_true(tsync__clock_walk(c, 12.3 + TSYNC_CLOCK_RING * TSYNC_CLOCK_KNOT_S * 2.5) != 0);
    assert_int_equal(c->replays, 1);
    free(c);
}

static void test_draw(void **state)
{
    tsync_sim_clock_params p = { .offset_max_s = 5e-3, .skew_sd_ppm = 10, .skew_max_ppm = 50,
        .temp_amp_min_ppm = 0.1, .temp_amp_max_ppm = 1, .temp_period_min_s = 600,
        .temp_period_max_s = 3600, .allan_1s = 2e-9, .steps = 3, .step_max_s = 1e-3,
        .step_window_s = 100, .slew_ppm = 500 };
    struct tsync_rng rng;
    double sum2 = 0;
    int n = 20000, clipped = 0;
    (void)state;
    tsync__rng_seed(&rng, 9, 1);
    for (int i = 0; i < n; i++) {
        struct tsync_sim_clock_model m;
        tsync__clock_draw(&m, &p, &rng);
        assert_true(fabs(m.offset_s) <= 5e-3);
        assert_true(fabs(m.skew) <= 50e-6);
        clipped += fabs(m.skew) == 50e-6;
        sum2 += m.skew * m.skew;
        assert_true(m.temp_amp >= 0.1e-6 && m.temp_amp <= 1e-6);
        assert_true(m.temp_period_s >= 600 && m.temp_period_s <= 3600);
        assert_true(fabs(m.rw_q - 12e-18) < 1e-30);
        assert_int_equal(m.n_steps, 3);
        assert_true(m.step_t[2] >= 0 && m.step_t[2] <= 100 && fabs(m.step_d[2]) <= 1e-3);
    }
    /* 10 ppm standard deviation; beyond 5 sd is (almost) never reached. */
    assert_true(fabs(sqrt(sum2 / n) - 10e-6) < 0.3e-6);
    assert_true(clipped <= 1);
}

static void test_rng(void **state)
{
    struct tsync_rng a, b;
    double se = 0, sg = 0, sg2 = 0, sl = 0, sn = 0, sn2 = 0;
    int n = 200000, below[7] = { 0 };
    (void)state;
    tsync__rng_seed(&a, 1, 2);
    tsync__rng_seed(&b, 1, 2);
    for (int i = 0; i < 100; i++)
        assert_true(tsync__rng_next(&a) == tsync__rng_next(&b));
    tsync__rng_seed(&b, 1, 3); /* another stream differs */
    assert_true(tsync__rng_next(&a) != tsync__rng_next(&b));
    for (int i = 0; i < n; i++) {
        double g = tsync__rng_gamma(&a, 2.0, 15e-6), z = tsync__rng_normal(&a);
        double l = tsync__rng_log_uniform(&a, 10e-6, 1000e-6);
        se += tsync__rng_exponential(&a, 3.0);
        sg += g;
        sg2 += g * g;
        sn += z;
        sn2 += z * z;
        sl += log10(l);
        assert_true(l >= 10e-6 && l <= 1000e-6);
        below[tsync__rng_below(&a, 7)]++;
    }
    assert_true(fabs(se / n - 3.0) < 0.03);
    assert_true(fabs(sg / n - 15e-6) < 0.2e-6);
    /* Gamma(k = 2, mean m): variance m^2 / k. */
    assert_true(fabs((sg2 / n - (sg / n) * (sg / n)) - 15e-6 * 15e-6 / 2) < 5e-12);
    assert_true(fabs(sn / n) < 0.01 && fabs(sn2 / n - 1) < 0.02);
    assert_true(fabs(sl / n + 4.0) < 0.01); /* log-uniform: log10 uniform in [-5, -3] */
    for (int k = 0; k < 7; k++)
        assert_true(abs(below[k] - n / 7) < n / 70);
    /* Shape below 1 keeps the mean. */
    sg = 0;
    for (int i = 0; i < n; i++)
        sg += tsync__rng_gamma(&a, 0.5, 1.0);
    assert_true(fabs(sg / n - 1.0) < 0.02);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset_and_skew),
        cmocka_unit_test(test_temperature_integral),
        cmocka_unit_test(test_step_slewed),
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_allan_deviation),
        cmocka_unit_test(test_walk_replay),
        cmocka_unit_test(test_draw),
        cmocka_unit_test(test_rng),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
