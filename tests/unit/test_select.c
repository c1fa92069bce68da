/* test_select.c - the k-th smallest (util/select.c) against sorting: random values,
 * many equal ones, sorted and reversed input, every k of short arrays, NaNs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/select.h"

static int ld_cmp(const void *pa, const void *pb)
{
    long double a = *(const long double *)pa, b = *(const long double *)pb;
    return a < b ? -1 : a > b;
}

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Every k of v[0, n) against the sorted copy. */
static void check_all(const long double *v, size_t n)
{
    long double *sorted = malloc(n * sizeof(*v)), *w = malloc(n * sizeof(*v));
    assert_non_null(sorted);
    assert_non_null(w);
    memcpy(sorted, v, n * sizeof(*v));
    qsort(sorted, n, sizeof(*v), ld_cmp);
    for (size_t k = 0; k < n; k++) {
        memcpy(w, v, n * sizeof(*v));
        assert_true(tsync__select_ld(w, n, k) == sorted[k]);
    }
    free(sorted);
    free(w);
}

static void test_short(void **state)
{
    uint64_t x = 88172645463325252ull;
    long double v[300];
    (void)state;
    for (size_t n = 1; n <= 300; n += (n < 40 ? 1 : 37))
        for (int kind = 0; kind < 5; kind++) {
            for (size_t i = 0; i < n; i++)
                v[i] = kind == 0   ? (long double)(next(&x) % 1000000) / 7
                       : kind == 1 ? (long double)(next(&x) % 3)        /* many equal */
                       : kind == 2 ? (long double)i                     /* sorted */
                       : kind == 3 ? (long double)(n - i)               /* reversed */
                                   : 5;                                  /* all equal */
            check_all(v, n);
        }
}

static void test_long(void **state)
{
    uint64_t x = 1;
    size_t n = 200001;
    long double *v = malloc(n * sizeof(*v)), *sorted = malloc(n * sizeof(*v));
    (void)state;
    assert_non_null(v);
    assert_non_null(sorted);
    for (int kind = 0; kind < 4; kind++) {
        for (size_t i = 0; i < n; i++)
            v[i] = kind == 0   ? (long double)next(&x) * 1e-9L
                   : kind == 1 ? (long double)(next(&x) % 10)
                   : kind == 2 ? (long double)(i % 1000) + (long double)i * 1e-3L
                               : (long double)((i * 7919) % n);          /* organ pipe-ish */
        memcpy(sorted, v, n * sizeof(*v));
        qsort(sorted, n, sizeof(*v), ld_cmp);
        for (size_t k = 0; k < n; k += n / 7) {
            long double *w = malloc(n * sizeof(*v));
            assert_non_null(w);
            memcpy(w, v, n * sizeof(*v));
            assert_true(tsync__select_ld(w, n, k) == sorted[k]);
            free(w);
        }
    }
    free(v);
    free(sorted);
}

/* NaNs go to qsort, as sorting would have taken them. */
static void test_nan(void **state)
{
    long double v[5] = { 3, NAN, 1, 2, 0 }, w[5], r;
    (void)state;
    memcpy(w, v, sizeof(v));
    qsort(w, 5, sizeof(*w), ld_cmp);
    r = tsync__select_ld(v, 5, 2);
    assert_true(r == w[2] || (isnan(r) && isnan(w[2])));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short),
        cmocka_unit_test(test_long),
        cmocka_unit_test(test_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
