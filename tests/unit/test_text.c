/* test_text.c - growing text (util/text.c): strings and numbers appended, the
 * numbers as printf writes them, the text growing past its first allocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util/text.h"

static void test_numbers(void **state)
{
    static const int64_t v[] = { 0, 1, -1, 9, 10, -10, 123456789012345678, INT64_MAX, INT64_MIN,
                                 INT64_MIN + 1, 1000000000, -4611686018427387904 };
    struct tsync__text t = { NULL, 0, 0, 0 };
    char want[512];
    size_t n = 0;
    (void)state;
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        tsync__text_i64(&t, v[i]);
        tsync__text_put(&t, ",");
        n += (size_t)snprintf(want + n, sizeof(want) - n, "%lld,", (long long)v[i]);
    }
    assert_false(t.bad);
    assert_string_equal(t.s, want);
    assert_int_equal(t.n, n);
    tsync__text_free(&t);
    assert_null(t.s);
    assert_int_equal(t.n, 0);
}

static void expect_i64(int64_t x)
{
    struct tsync__text t = { NULL, 0, 0, 0 };
    char want[32];
    snprintf(want, sizeof(want), "%lld", (long long)x);
    tsync__text_i64(&t, x);
    assert_string_equal(t.s, want);
    tsync__text_free(&t);
}

/* Every number up to 10^5 in magnitude, the powers of ten and their neighbours,
 * the extremes, and numbers of every length with random digits; no byte written
 * more than TSYNC__I64_CHARS before the end. */
static void test_many_numbers(void **state)
{
    uint64_t x = 88172645463325252ull;
    (void)state;
    for (int64_t v = -100000; v <= 100000; v++)
        expect_i64(v);
    for (int64_t p = 10; p > 0 && p <= INT64_MAX / 10; p *= 10)
        for (int64_t d = -1; d <= 1; d++) {
            expect_i64(p + d);
            expect_i64(-(p + d));
        }
    expect_i64(INT64_MAX);
    expect_i64(INT64_MIN);
    for (int i = 0; i < 200000; i++) {
        char b[TSYNC__I64_CHARS + 8];
        int64_t v;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v = (int64_t)(x >> (x % 63 + 1));      /* 1 to 63 bits */
        v = x % 2 ? -v : v;
        expect_i64(v);
        memset(b, 'x', sizeof(b));
        tsync__i64_text(b + sizeof(b), v);
        for (size_t k = 0; k < sizeof(b) - TSYNC__I64_CHARS; k++)
            assert_int_equal(b[k], 'x');
    }
}

static void test_growth(void **state)
{
    struct tsync__text t = { NULL, 0, 0, 0 };
    (void)state;
    for (int i = 0; i < 100000; i++)
        tsync__text_putn(&t, "abcdefgh", i % 9);
    assert_false(t.bad);
    assert_int_equal(t.n, 100000 / 9 * 36 + (100000 % 9) * ((100000 % 9) - 1) / 2);
    assert_int_equal(strlen(t.s), t.n);
    assert_memory_equal(t.s, "aababcabcd", 10);
    tsync__text_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_many_numbers),
        cmocka_unit_test(test_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
