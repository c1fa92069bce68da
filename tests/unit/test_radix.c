/* test_radix.c - the in-place radix sort (util/radix.c) against qsort: hashed keys,
 * small keys, runs of equal keys longer than the insertion sort takes, and the
 * short and empty cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/radix.h"

/* A record of the size of a packet's: key, then a tie-breaker. */
struct rec {
    uint64_t key;
    uint64_t tie;
    uint32_t pad[4];
};

static uint64_t key_of(const void *r, const void *arg)
{
    (void)arg;
    return ((const struct rec *)r)->key;
}

static int rec_cmp(const void *pa, const void *pb)
{
    const struct rec *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->tie < b->tie ? -1 : a->tie > b->tie;
}

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* n records with keys from make(i, random): sorted equal to qsort's order. */
static void check(size_t n, uint64_t (*make)(size_t, uint64_t))
{
    struct rec *a = calloc(n ? n : 1, sizeof(*a)), *b = calloc(n ? n : 1, sizeof(*b));
    uint64_t x = 88172645463325252ull;
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) {
        a[i].key = make(i, next(&x));
        a[i].tie = next(&x);   /* the order before is random, also among equal keys */
        a[i].pad[0] = (uint32_t)i;
    }
    memcpy(b, a, n * sizeof(*a));
    tsync__radix_sort(a, n, sizeof(*a), key_of, NULL, rec_cmp);
    qsort(b, n, sizeof(*b), rec_cmp);
    assert_memory_equal(a, b, (n ? n : 1) * sizeof(*a));
    free(a);
    free(b);
}

static uint64_t hashed(size_t i, uint64_t r) { (void)i; return r; }
static uint64_t small(size_t i, uint64_t r) { (void)i; return r % 5000; }
static uint64_t few(size_t i, uint64_t r) { (void)i; return r % 3 << 40; }
static uint64_t zero(size_t i, uint64_t r) { (void)i, (void)r; return 0; }
static uint64_t descending(size_t i, uint64_t r) { (void)r; return UINT64_MAX - i; }

static void test_hashed_keys(void **state)
{
    (void)state;
    check(100000, hashed);
    check(33, hashed);
}

static void test_small_keys(void **state)
{
    (void)state;
    check(100000, small);
    check(20000, descending);
}

static void test_equal_keys(void **state)
{
    (void)state;
    check(10000, few);    /* runs of about 3300 equal keys: qsort orders them */
    check(5000, zero);
}

static void test_short(void **state)
{
    (void)state;
    check(0, hashed);
    check(1, hashed);
    check(2, small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hashed_keys),
        cmocka_unit_test(test_small_keys),
        cmocka_unit_test(test_equal_keys),
        cmocka_unit_test(test_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
