/* test_digits.c - decimal digits eight bytes at a time (util/digits.h) against a
 * byte-by-byte reading: every count of digits, every kind of byte after them, and
 * the bytes after the first that is no digit left unread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/digits.h"

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* What tsync__digits8 should answer, a byte at a time. */
static unsigned slow(const char *p, uint64_t *v)
{
    unsigned n = 0;
    *v = 0;
    while (n < 8 && p[n] >= '0' && p[n] <= '9')
        *v = *v * 10 + (uint64_t)(p[n++] - '0');
    return n;
}

static void test_counts(void **state)
{
    /* Bytes next to '0' and '9' in value, bytes that overflow a lane when 6 is added,
     * bytes of every high nibble. */
    static const unsigned char stop[] = { '/', ':', ',', '\n', '\r', 0, ' ', '-', '+', 'a',
                                          0x80, 0xFA, 0xFF, 0x3A, 0x2F, 0x10, 0xC0 };
    uint64_t x = 88172645463325252ull;
    (void)state;
    for (unsigned n = 0; n <= 8; n++)
        for (size_t s = 0; s < sizeof(stop); s++)
            for (int round = 0; round < 50; round++) {
                char b[16];
                uint64_t v, want;
                for (unsigned i = 0; i < 16; i++)
                    b[i] = (char)(next(&x) & 0xFF);     /* the tail: anything */
                for (unsigned i = 0; i < n; i++)
                    b[i] = (char)('0' + next(&x) % 10);
                if (n < 8)
                    b[n] = (char)stop[s];
                assert_int_equal(tsync__digits8(b, &v), slow(b, &want));
                assert_int_equal(v, want);
            }
}

static void test_values(void **state)
{
    uint64_t v;
    (void)state;
    assert_int_equal(tsync__digits8("12345678", &v), 8);
    assert_int_equal(v, 12345678);
    assert_int_equal(tsync__digits8("00000001x", &v), 8);
    assert_int_equal(v, 1);
    assert_int_equal(tsync__digits8("99999999", &v), 8);
    assert_int_equal(v, 99999999);
    assert_int_equal(tsync__digits8("907,1234", &v), 3);
    assert_int_equal(v, 907);
    assert_int_equal(tsync__digits8(",1234567", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(tsync__digits8("0\n999999", &v), 1);
    assert_int_equal(v, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
