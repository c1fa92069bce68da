/* test_vec.c - growing arrays and large arrays (util/vec.c). */
#define _DEFAULT_SOURCE /* access */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/vec.h"

/* Capacity doubles from 16; an impossible size fails and leaves the array as it was. */
static void test_reserve(void **state)
{
    int *a = NULL;
    size_t cap = 0, n = 0;
    (void)state;
    assert_int_equal(tsync__reserve((void **)&a, &cap, 1, sizeof(*a)), 0);
    assert_int_equal(cap, 16);
    assert_int_equal(tsync__reserve((void **)&a, &cap, 17, sizeof(*a)), 0);
    assert_int_equal(cap, 32);
    assert_int_equal(tsync__reserve((void **)&a, &cap, 5, sizeof(*a)), 0);
    assert_int_equal(cap, 32);
    for (int i = 0; i < 100; i++)
        assert_int_equal(TSYNC_PUSH(a, n, cap, i), 0);
    assert_int_equal(n, 100);
    assert_int_equal(cap, 128);
    assert_int_equal(a[99], 99);
    assert_int_equal(tsync__reserve((void **)&a, &cap, SIZE_MAX / 2, sizeof(*a)), -1);
    assert_int_equal(cap, 128);
    assert_int_equal(a[42], 42);
    free(a);
}

/* The VmFlags of the mapping that holds p, from /proc/self/smaps ("" if none). */
static void vm_flags(const void *p, char *out, size_t size)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0;
    out[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(out, size, "%s", line + 8);
            break;
        }
    }
    fclose(f);
}

/* Large arrays are usable like malloc's, and where Linux has transparent huge
 * pages their mapping asks for them (VmFlags "hg"); zero elements give one. */
static void test_alloc_array(void **state)
{
    size_t n = (size_t)16 << 20;
    char *big = tsync__alloc_array(n, 1), flags[512];
    int64_t *one = tsync__alloc_array(0, sizeof(int64_t));
    (void)state;
    assert_non_null(big);
    assert_non_null(one);
    *one = 7;
    memset(big, 1, n);
    assert_int_equal(big[n - 1], 1);
    vm_flags(big + n / 2, flags, sizeof(flags));
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
        assert_non_null(strstr(flags, " hg"));
    assert_null(tsync__alloc_array(SIZE_MAX / 4, 8));
    free(big);
    free(one);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_alloc_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
