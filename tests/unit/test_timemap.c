/* test_timemap.c - time maps: exact evaluation, rounding, extremes, rejection, monotonicity. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "timemap/map.h"
#include "tracesync/timemap.h"

__extension__ typedef __int128 i128;

#define P62 ((int64_t)1 << 62)

static tsync_time_map *points(const tsync_time *l, const tsync_time *g, size_t n)
{
    tsync_time_map *m = NULL;
    assert_int_equal(tsync_time_map_new_points(&m, l, g, n, NULL), 0);
    return m;
}

static tsync_time_map *drift(int64_t offset, double d, tsync_time origin)
{
    tsync_time_map *m = NULL;
    assert_int_equal(tsync_time_map_new_drift(&m, offset, d, origin, NULL), 0);
    return m;
}

static void test_offset(void **state)
{
    tsync_time_map *m = NULL;
    (void)state;
    assert_int_equal(tsync_time_map_new_offset(&m, -25000, NULL), 0);
    assert_int_equal(tsync_time_map_kind(m), TSYNC_MAP_OFFSET);
    assert_int_equal(tsync_time_map_offset(m), -25000);
    assert_int_equal(tsync_time_map_eval(m, 1000), -24000);
    assert_int_equal(tsync_time_map_eval(m, 0), -25000);
    assert_int_equal(tsync_time_map_eval(m, P62 + 3), P62 + 3 - 25000);
    assert_int_equal(tsync_time_map_eval(m, INT64_MIN + 10), INT64_MIN); /* saturates */
    assert_int_equal(tsync_time_map_point_count(m), 1);
    assert_null(tsync_time_map_bounds(m));
    tsync_time_map_free(m);

    assert_int_equal(tsync_time_map_new_offset(&m, 10, NULL), 0);
    assert_int_equal(tsync_time_map_eval(m, INT64_MAX - 5), INT64_MAX);
    assert_int_equal(tsync_time_map_eval(m, INT64_MAX - 10), INT64_MAX);
    assert_int_equal(tsync_time_map_eval(m, INT64_MAX - 11), INT64_MAX - 1);
    tsync_time_map_free(m);
    tsync_time_map_free(NULL);
}

static void test_drift(void **state)
{
    tsync_time_map *m;
    (void)state;
    /* 5 + 1e-3 * (local - 1000) */
    m = drift(5, 1e-3, 1000);
    assert_int_equal(tsync_time_map_kind(m), TSYNC_MAP_DRIFT);
    assert_int_equal(tsync_time_map_origin(m), 1000);
    assert_true(tsync_time_map_drift(m) == 1e-3);
    assert_int_equal(tsync_time_map_eval(m, 1000), 1005);
    assert_int_equal(tsync_time_map_eval(m, 3000), 3007); /* + 2 */
    assert_int_equal(tsync_time_map_eval(m, 0), 4);       /* - 1 */
    assert_int_equal(tsync_time_map_eval(m, 1499), 1504); /* 0.499 -> 0 */
    assert_int_equal(tsync_time_map_local(m)[0], 1000);
    assert_int_equal(tsync_time_map_global(m)[0], 1005);
    tsync_time_map_free(m);

    /* Example of the docs: 1200 + 1.5e-6 * local. */
    m = drift(1200, 1.5e-6, 0);
    assert_int_equal(tsync_time_map_eval(m, 1000000000), 1000000000 + 1200 + 1500);
    assert_int_equal(tsync_time_map_eval(m, -1000000000), -1000000000 + 1200 - 1500);
    tsync_time_map_free(m);

    /* 2^-20 is exact in binary: halves round away from zero. */
    m = drift(0, ldexp(1.0, -20), 0);
    assert_int_equal(tsync_time_map_eval(m, 1 << 19), (1 << 19) + 1);
    assert_int_equal(tsync_time_map_eval(m, -(1 << 19)), -(1 << 19) - 1);
    assert_int_equal(tsync_time_map_eval(m, (1 << 19) - 1), (1 << 19) - 1);
    assert_int_equal(tsync_time_map_eval(m, 3 << 19), (3 << 19) + 2); /* 1.5 -> 2 */
    tsync_time_map_free(m);

    /* Huge values, exact: -0.5 at 2^62 and +0.25 near 2^62. */
    m = drift(0, -0.5, 0);
    assert_int_equal(tsync_time_map_eval(m, P62), P62 / 2);
    /* 2^62 + 1 + round(-2^61 - 0.5) = 2^62 + 1 - 2^61 - 1 */
    assert_int_equal(tsync_time_map_eval(m, P62 + 1), P62 / 2);
    assert_int_equal(tsync_time_map_eval(m, P62 + 2), P62 / 2 + 1);
    /* -2^62 - 1 + round(2^61 + 0.5) = -2^62 - 1 + 2^61 + 1 */
    assert_int_equal(tsync_time_map_eval(m, -P62 - 1), -P62 / 2);
    tsync_time_map_free(m);
    m = drift(-7, 0.25, P62);
    assert_int_equal(tsync_time_map_eval(m, P62 + 1000), P62 + 1000 - 7 + 250);
    assert_int_equal(tsync_time_map_eval(m, INT64_MAX), INT64_MAX); /* saturates */
    assert_int_equal(tsync_time_map_eval(m, 0), -7 - P62 / 4);
    tsync_time_map_free(m);
}

static void test_points_interior(void **state)
{
    const tsync_time l1[] = { 0, 1000000 }, g1[] = { 100, 1000150 };
    const tsync_time l2[] = { 0, 10, 20 }, g2[] = { 0, 20, 25 };
    const tsync_time l3[] = { 0, 10, 20 }, g3[] = { 0, 0, 10 };
    tsync_time_map *m;
    (void)state;
    m = points(l1, g1, 2);
    assert_int_equal(tsync_time_map_kind(m), TSYNC_MAP_POINTS);
    assert_int_equal(tsync_time_map_eval(m, 0), 100);
    assert_int_equal(tsync_time_map_eval(m, 1000000), 1000150);
    assert_int_equal(tsync_time_map_eval(m, 500000), 500125); /* 100 + 1000050 / 2 */
    assert_int_equal(tsync_time_map_eval(m, 1), 101);         /* 1.00005 -> 1 */
    assert_int_equal(tsync_time_map_eval(m, 10), 110);        /* 10.0005 -> 10 */
    assert_int_equal(tsync_time_map_eval(m, 9999), 100 + 9999); /* 9999.49995 -> 9999 */
    tsync_time_map_free(m);

    m = points(l2, g2, 3);
    assert_int_equal(tsync_time_map_eval(m, 5), 10);
    assert_int_equal(tsync_time_map_eval(m, 10), 20);
    assert_int_equal(tsync_time_map_eval(m, 15), 23); /* 20 + 2.5 -> 23 */
    assert_int_equal(tsync_time_map_eval(m, 19), 25); /* 20 + 4.5 -> 25 */
    assert_int_equal(tsync_time_map_eval(m, 20), 25);
    tsync_time_map_free(m);

    m = points(l3, g3, 3); /* a flat segment is monotone */
    assert_int_equal(tsync_time_map_eval(m, 5), 0);
    assert_int_equal(tsync_time_map_eval(m, 15), 5);
    tsync_time_map_free(m);
}

static void test_points_rounding(void **state)
{
    const tsync_time l[] = { 0, 2 }, g[] = { 0, 1 };
    const tsync_time l3[] = { 0, 3 }, g3[] = { 0, 1 };
    tsync_time_map *m;
    (void)state;
    m = points(l, g, 2); /* slope 1/2 */
    assert_int_equal(tsync_time_map_eval(m, 1), 1);   /* 0.5 -> 1 */
    assert_int_equal(tsync_time_map_eval(m, 3), 2);   /* 1 + 0.5 -> 2 */
    assert_int_equal(tsync_time_map_eval(m, -1), -1); /* -0.5 -> -1 */
    assert_int_equal(tsync_time_map_eval(m, -3), -2); /* -1.5 -> -2 */
    assert_int_equal(tsync_time_map_eval(m, -4), -2);
    tsync_time_map_free(m);

    m = points(l3, g3, 2); /* slope 1/3 */
    assert_int_equal(tsync_time_map_eval(m, 1), 0);   /* 1/3 */
    assert_int_equal(tsync_time_map_eval(m, 2), 1);   /* 2/3 */
    assert_int_equal(tsync_time_map_eval(m, -1), 0);  /* -1/3 */
    assert_int_equal(tsync_time_map_eval(m, -2), -1); /* -2/3 */
    assert_int_equal(tsync_time_map_eval(m, 4), 1);   /* 1 + 1/3 */
    assert_int_equal(tsync_time_map_eval(m, 5), 2);   /* 1 + 2/3 */
    tsync_time_map_free(m);
}

static void test_points_extrapolated(void **state)
{
    const tsync_time l1[] = { 0, 1000000 }, g1[] = { 100, 1000150 };
    const tsync_time l2[] = { 0, 10, 20 }, g2[] = { 0, 20, 25 };
    const tsync_time ls[] = { 10 }, gs[] = { 20 };
    const tsync_time lf[] = { 0, 10 }, gf[] = { 5, 5 };
    tsync_time_map *m;
    (void)state;
    m = points(l1, g1, 2);
    assert_int_equal(tsync_time_map_eval(m, -1000000), 100 - 1000050);
    assert_int_equal(tsync_time_map_eval(m, 2000000), 1000150 + 1000050);
    assert_int_equal(tsync_time_map_eval(m, -1), 99);
    tsync_time_map_free(m);

    m = points(l2, g2, 3); /* slope 2 before, 1/2 after */
    assert_int_equal(tsync_time_map_eval(m, -5), -10);
    assert_int_equal(tsync_time_map_eval(m, 30), 30);
    assert_int_equal(tsync_time_map_eval(m, 21), 26); /* 25 + 0.5 -> 26 */
    tsync_time_map_free(m);

    m = points(ls, gs, 1); /* one point: slope 1 */
    assert_int_equal(tsync_time_map_eval(m, 0), 10);
    assert_int_equal(tsync_time_map_eval(m, 15), 25);
    assert_int_equal(tsync_time_map_eval(m, INT64_MAX), INT64_MAX);
    assert_int_equal(tsync_time_map_eval(m, INT64_MIN), INT64_MIN + 10);
    tsync_time_map_free(m);

    m = points(lf, gf, 2); /* flat: constant outside too */
    assert_int_equal(tsync_time_map_eval(m, INT64_MIN), 5);
    assert_int_equal(tsync_time_map_eval(m, INT64_MAX), 5);
    tsync_time_map_free(m);
}

static void test_huge(void **state)
{
    const tsync_time l1[] = { P62, P62 + 1000000000000 };
    const tsync_time g1[] = { P62 + 1000, P62 + 1000 + 1000000000123 };
    const tsync_time l2[] = { INT64_MIN, INT64_MAX }, g2[] = { INT64_MIN, INT64_MAX };
    const tsync_time l3[] = { INT64_MIN, INT64_MAX }, g3[] = { 0, 1 };
    const tsync_time l4[] = { 0, 1 }, g4[] = { 0, 2 };
    const tsync_time l5[] = { -P62, P62 }, g5[] = { -P62 - 3, P62 + 3 };
    tsync_time_map *m;
    (void)state;
    m = points(l1, g1, 2);
    /* 1000 + 1000000000123 * 5e11 / 1e12 = 1000 + 500000000061.5 -> 500000000062 */
    assert_int_equal(tsync_time_map_eval(m, P62 + 500000000000), P62 + 1000 + 500000000062);
    assert_int_equal(tsync_time_map_eval(m, P62 + 2000000000000), P62 + 1000 + 2000000000246);
    assert_int_equal(tsync_time_map_eval(m, P62 - 1000000000000), P62 + 1000 - 1000000000123);
    tsync_time_map_free(m);

    m = points(l2, g2, 2); /* the identity over the whole range: run = rise = 2^64 - 1 */
    assert_int_equal(tsync_time_map_eval(m, 0), 0);
    assert_int_equal(tsync_time_map_eval(m, -7), -7);
    assert_int_equal(tsync_time_map_eval(m, P62 + 12345), P62 + 12345);
    assert_int_equal(tsync_time_map_eval(m, INT64_MAX), INT64_MAX);
    tsync_time_map_free(m);

    m = points(l3, g3, 2);
    assert_int_equal(tsync_time_map_eval(m, -1), 0); /* (2^63 - 1) / (2^64 - 1) < 1/2 */
    assert_int_equal(tsync_time_map_eval(m, 0), 1);  /* 2^63 / (2^64 - 1) > 1/2 */
    tsync_time_map_free(m);

    m = points(l4, g4, 2); /* slope 2 saturates far out */
    assert_int_equal(tsync_time_map_eval(m, INT64_MAX), INT64_MAX);
    assert_int_equal(tsync_time_map_eval(m, INT64_MIN), INT64_MIN);
    assert_int_equal(tsync_time_map_eval(m, P62 - 1), INT64_MAX - 1);
    tsync_time_map_free(m);

    /* rise 2^63 + 6 and run 2^63: products beyond 2^64 take the 128-bit path. */
    m = points(l5, g5, 2);
    assert_int_equal(tsync_time_map_eval(m, 0), 0);
    assert_int_equal(tsync_time_map_eval(m, P62 / 2), P62 / 2 + 2); /* 1.5 -> 2 */
    /* -2^61 - 1.5 on the line: 2^61 + 1.5 above the left point, rounded up */
    assert_int_equal(tsync_time_map_eval(m, -P62 / 2), -P62 / 2 - 1);
    tsync_time_map_free(m);
}

static void test_reject(void **state)
{
    const tsync_time l_dup[] = { 0, 5, 5 }, g_dup[] = { 0, 1, 2 };
    const tsync_time l_back[] = { 0, 5, 9 }, g_back[] = { 10, 5, 20 };
    tsync_time_map *m = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);

    assert_int_equal(tsync_time_map_new_points(&m, l_dup, g_dup, 3, ctx), TSYNC_EINVAL);
    assert_null(m);
    assert_string_equal(tsync_ctx_error(ctx),
                        "time map: point 2: local time 5 does not increase after 5 of point 1");
    assert_int_equal(tsync_time_map_new_points(&m, l_back, g_back, 3, ctx), TSYNC_EINVAL);
    assert_null(m);
    assert_string_equal(tsync_ctx_error(ctx),
                        "time map: point 1: global time 5 goes back from 10 of point 0 "
                        "(negative slope; a map must be monotone)");
    assert_int_equal(tsync_time_map_new_points(&m, l_back, g_back, 0, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "at least one point"));

    assert_int_equal(tsync_time_map_new_drift(&m, 0, -1.0, 0, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "time map: drift -1 must be greater than -1"));
    assert_int_equal(tsync_time_map_new_drift(&m, 0, -2.5, 0, ctx), TSYNC_EINVAL);
    assert_int_equal(tsync_time_map_new_drift(&m, 0, NAN, 0, ctx), TSYNC_EINVAL);
    assert_int_equal(tsync_time_map_new_drift(&m, 0, INFINITY, 0, ctx), TSYNC_EINVAL);
    assert_int_equal(tsync_time_map_new_drift(&m, INT64_MAX, 0.0, 1, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "beyond the 64-bit tick range"));
    assert_null(m);
    /* just above -1 is fine */
    assert_int_equal(tsync_time_map_new_drift(&m, 0, -0.999999, 0, ctx), 0);
    assert_int_equal(tsync_time_map_eval(m, 1000000), 1);
    tsync_time_map_free(m);
    tsync_ctx_free(ctx);
}

static void test_bounds_clone(void **state)
{
    const tsync_time l[] = { 0, 10, 20 }, g[] = { 0, 20, 25 };
    const int64_t b[] = { 3, 0, 7 }, neg[] = { 3, -1, 7 };
    tsync_time_map *m = points(l, g, 3), *c = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_null(tsync_time_map_bounds(m));
    assert_int_equal(tsync_time_map_set_bounds(m, b, 2, ctx), TSYNC_EINVAL);
    assert_string_equal(tsync_ctx_error(ctx), "time map: 2 error bounds for 3 points");
    assert_int_equal(tsync_time_map_set_bounds(m, neg, 3, ctx), TSYNC_EINVAL);
    assert_string_equal(tsync_ctx_error(ctx), "time map: point 1: error bound -1 is negative");
    assert_int_equal(tsync_time_map_set_bounds(m, b, 3, ctx), 0);
    assert_int_equal(tsync_time_map_set_bounds(m, b, 3, ctx), 0); /* replaces */
    assert_memory_equal(tsync_time_map_bounds(m), b, sizeof(b));
    assert_int_equal(tsync_time_map_clone(&c, m, ctx), 0);
    assert_memory_equal(tsync_time_map_bounds(c), b, sizeof(b));
    for (tsync_time x = -50; x < 50; x++)
        assert_int_equal(tsync_time_map_eval(c, x), tsync_time_map_eval(m, x));
    tsync_time_map_free(m);
    tsync_time_map_free(c);

    m = drift(3, 2e-6, 100);
    assert_int_equal(tsync_time_map_set_bounds(m, b, 1, ctx), 0);
    assert_int_equal(tsync_time_map_clone(&c, m, ctx), 0);
    assert_int_equal(tsync_time_map_kind(c), TSYNC_MAP_DRIFT);
    assert_int_equal(tsync_time_map_bounds(c)[0], 3);
    assert_int_equal(tsync_time_map_eval(c, 1000000100), tsync_time_map_eval(m, 1000000100));
    tsync_time_map_free(m);
    tsync_time_map_free(c);
    tsync_ctx_free(ctx);
}

/* ---- random monotonicity ------------------------------------------------------ */

#define SEED 0x5eed2024u

static uint64_t rng_state;
static uint64_t rnd(void) /* xorshift64*: the same sequence everywhere */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }

static int cmp_time(const void *a, const void *b)
{
    tsync_time x = *(const tsync_time *)a, y = *(const tsync_time *)b;
    return x < y ? -1 : x > y;
}

/* A random step: often tiny, sometimes up to 2^bits. */
static uint64_t rnd_step(int bits)
{
    switch (rnd_below(4)) {
    case 0: return rnd_below(3);
    case 1: return rnd_below(1000);
    default: return rnd_below((uint64_t)1 << bits);
    }
}

static tsync_time_map *random_map(tsync_time base)
{
    if (rnd_below(4) == 0) {
        double d = ((double)rnd_below(2000001) - 1000000.0) * 1e-6; /* [-1, 1] */
        if (d <= -1.0)
            d = -0.9999999;
        if (rnd_below(3) == 0)
            d *= 1e-3;
        return drift((int64_t)rnd_below(1u << 30) - (1 << 29), d,
                     base + (tsync_time)rnd_below(1u << 30));
    } else {
        size_t n = 1 + (size_t)rnd_below(20);
        tsync_time l[20], g[20];
        l[0] = base + (tsync_time)rnd_below(1000);
        g[0] = base + (tsync_time)rnd_below(1u << 30) - (1 << 29);
        for (size_t i = 1; i < n; i++) {
            l[i] = l[i - 1] + 1 + (tsync_time)rnd_step(36);
            g[i] = g[i - 1] + (tsync_time)rnd_step(36);
        }
        return points(l, g, n);
    }
}

/* Independent reference for small segments: g0 + floor((2 rise dx + run) / (2 run)). */
static tsync_time reference_interior(const tsync_time *l, const tsync_time *g, size_t k,
                                     tsync_time x)
{
    i128 run = (i128)l[k] - l[k - 1], rise = (i128)g[k] - g[k - 1], dx = (i128)x - l[k - 1];
    return (tsync_time)(g[k - 1] + (2 * rise * dx + run) / (2 * run));
}

static void test_random_monotone(void **state)
{
    enum { MAPS = 300, N = 2000 };
    tsync_time *in = malloc(N * sizeof(*in)), *out = malloc(N * sizeof(*out));
    (void)state;
    assert_non_null(in);
    assert_non_null(out);
    rng_state = SEED;
    print_message("random seed 0x%x\n", SEED);
    for (int r = 0; r < MAPS; r++) {
        /* Bases near 0, near +2^62 and near -2^62. */
        tsync_time base = (tsync_time[]){ 0, P62, -P62 }[r % 3];
        tsync_time_map *m = random_map(base);
        const tsync_time *l = tsync_time_map_local(m), *g = tsync_time_map_global(m);
        size_t n = tsync_time_map_point_count(m);
        tsync_time lo = l[0] - (tsync_time)rnd_below(1ull << 40);
        tsync_time hi = l[n - 1] + (tsync_time)rnd_below(1ull << 40);
        for (size_t i = 0; i < N; i++) {
            switch (rnd_below(5)) {
            case 0: in[i] = l[rnd_below(n)] + (tsync_time)rnd_below(3) - 1; break; /* at points */
            case 1: in[i] = (tsync_time)rnd(); break;                              /* anywhere */
            default: in[i] = lo + (tsync_time)rnd_below((uint64_t)(hi - lo) + 1); break;
            }
        }
        if (r % 10 == 0) { /* the extremes */
            in[0] = INT64_MIN;
            in[1] = INT64_MAX;
        }
        qsort(in, N, sizeof(*in), cmp_time);
        tsync_time_map_eval_array(m, in, out, N);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(out[i], tsync_time_map_eval(m, in[i]));
            if (i > 0 && out[i] < out[i - 1])
                fail_msg("map %d: not monotone: f(%lld) = %lld > f(%lld) = %lld (seed 0x%x)", r,
                         (long long)in[i - 1], (long long)out[i - 1], (long long)in[i],
                         (long long)out[i], SEED);
            if (tsync_time_map_kind(m) == TSYNC_MAP_POINTS && in[i] > l[0] && in[i] < l[n - 1]) {
                size_t k = 1;
                while (l[k] <= in[i])
                    k++;
                assert_int_equal(out[i], reference_interior(l, g, k, in[i]));
                assert_true(out[i] >= g[k - 1] && out[i] <= g[k]);
            }
        }
        /* Unsorted input gives the same values as one by one. */
        for (size_t i = 0; i + 1 < N; i += 2) {
            tsync_time t = in[i];
            in[i] = in[i + 1];
            in[i + 1] = t;
        }
        tsync_time_map_eval_array(m, in, in, N); /* in place */
        for (size_t i = 0; i + 1 < N; i += 2) {
            assert_int_equal(in[i], out[i + 1]);
            assert_int_equal(in[i + 1], out[i]);
        }
        tsync_time_map_free(m);
    }
    free(in);
    free(out);
}

/* Long segments: slopes near 1 (ClockOffset interpolation, where rise * dx needs
 * more than 64 bits but (rise - run) * dx does not), any slope up to and beyond
 * the limits of the evaluation of many times without division (rise 2^50, run
 * 2^62). Many times and one at a time agree with the exact reference. */
static void test_long_segments(void **state)
{
    enum { MAPS = 400, N = 500 };
    tsync_time in[N], out[N];
    (void)state;
    rng_state = SEED ^ 0x10c0u;
    print_message("random seed 0x%x\n", SEED ^ 0x10c0u);
    for (int r = 0; r < MAPS; r++) {
        int bits = 20 + (int)rnd_below(42);                         /* run up to 2^62 */
        uint64_t run = ((uint64_t)1 << bits) - 2 * rnd_below(1u << 15), rise;
        tsync_time base = r % 2 ? -P62 : 0, l[3], g[3];
        tsync_time_map *m;
        switch (r % 3) {
        case 0: /* near 1; every other map 1 +- 1 / run, with ties */
            rise = r % 4 ? run + rnd_below(2000001) - 1000000 : run + (r % 8 ? 1 : -1);
            break;
        case 1: /* around the limit of the estimate */
            rise = ((uint64_t)1 << 50) - 8 + rnd_below(16);
            break;
        default:
            rise = rnd_below((uint64_t)1 << (1 + rnd_below(62)));
            break;
        }
        if (rise > (uint64_t)P62)
            rise = (uint64_t)P62;
        l[0] = base, l[1] = base + (tsync_time)run, l[2] = l[1] + (tsync_time)run;
        g[0] = base, g[1] = base + (tsync_time)rise, g[2] = g[1] + (tsync_time)(rise / 2);
        m = points(l, g, 3);
        for (size_t i = 0; i < N; i++)
            in[i] = l[0] + (tsync_time)rnd_below(2 * run + 2) - 1;
        in[0] = l[0] + (tsync_time)(run / 2); /* a tie when rise - run is odd and run even */
        qsort(in, N, sizeof(*in), cmp_time);
        tsync_time_map_eval_array(m, in, out, N);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(out[i], tsync_time_map_eval(m, in[i]));
            if (in[i] > l[0] && in[i] < l[2]) {
                size_t k = in[i] < l[1] ? 1 : 2;
                assert_int_equal(out[i], reference_interior(l, g, k, in[i]));
            }
        }
        tsync_time_map_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offset),
        cmocka_unit_test(test_drift),
        cmocka_unit_test(test_points_interior),
        cmocka_unit_test(test_points_rounding),
        cmocka_unit_test(test_points_extrapolated),
        cmocka_unit_test(test_huge),
        cmocka_unit_test(test_reject),
        cmocka_unit_test(test_bounds_clone),
        cmocka_unit_test(test_random_monotone),
        cmocka_unit_test(test_long_segments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
