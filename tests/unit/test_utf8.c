/* test_utf8.c - names with any bytes as JSON strings (util/utf8.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/utf8.h"

#define R "\xEF\xBF\xBD" /* U+FFFD */

/* The repair of `raw` is `want`, and the comparison agrees with it. */
static void expect(const char *raw, const char *want)
{
    char *got = tsync__utf8_repair(raw);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_true(tsync__utf8_repaired_eq(raw, want));
    free(got);
}

/* Valid UTF-8 stays byte for byte, from ASCII to the last code point. */
static void test_valid_unchanged(void **state)
{
    (void)state;
    expect("", "");
    expect("node-0", "node-0");
    expect("n\xC3\xA9ud", "n\xC3\xA9ud");                   /* U+00E9 */
    expect("\xE2\x82\xAC \xED\x9F\xBF", "\xE2\x82\xAC \xED\x9F\xBF"); /* U+20AC, U+D7FF */
    expect("\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80");         /* U+1F600 */
    expect("\xF4\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF");         /* U+10FFFF */
    expect(R, R);
}

/* A byte that starts no sequence, or continues none, is one U+FFFD. */
static void test_invalid_bytes(void **state)
{
    (void)state;
    expect("n\xFF", "n" R);
    expect("\xFF\xFE", R R);
    expect("a\x80" "b", "a" R "b");
    expect("\xC0\xC1\xF5\xF8", R R R R);
}

/* A valid start cut short is one U+FFFD, and the next byte is read afresh. */
static void test_truncated(void **state)
{
    (void)state;
    expect("\xC3", R);
    expect("\xE2\x82", R);
    expect("\xE2\x82" "A", R "A");
    expect("\xF0\x9F\x98", R);
    expect("\xF0\x9F\x98\xC3\xA9", R "\xC3\xA9");
}

/* Overlong encodings and surrogates are invalid, byte by byte after the lead. */
static void test_overlong_and_surrogates(void **state)
{
    (void)state;
    expect("\xC0\xAF", R R);             /* '/' in two bytes */
    expect("\xE0\x80\xAF", R R R);       /* '/' in three */
    expect("\xF0\x80\x80\xAF", R R R R); /* '/' in four */
    expect("\xED\xA0\x80", R R R);       /* U+D800 */
    expect("\xED\xBF\xBF", R R R);       /* U+DFFF */
    expect("\xF4\x90\x80\x80", R R R R); /* above U+10FFFF */
}

/* The comparison is the repair's: other strings differ, also by length. */
static void test_repaired_eq(void **state)
{
    (void)state;
    assert_false(tsync__utf8_repaired_eq("n\xFF", "n\xFF"));
    assert_false(tsync__utf8_repaired_eq("n\xFF", "n"));
    assert_false(tsync__utf8_repaired_eq("n\xFF", "n" R "x"));
    assert_false(tsync__utf8_repaired_eq("n", "n" R));
    assert_false(tsync__utf8_repaired_eq("\xE2\x82", "\xE2\x82"));
}

/* JSON strings: the repaired text, "" for NULL. */
static void test_json_text(void **state)
{
    json_t *j = tsync__json_text("n\xFF");
    (void)state;
    assert_non_null(j);
    assert_string_equal(json_string_value(j), "n" R);
    json_decref(j);
    j = tsync__json_text(NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(j), "");
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_unchanged),
        cmocka_unit_test(test_invalid_bytes),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_overlong_and_surrogates),
        cmocka_unit_test(test_repaired_eq),
        cmocka_unit_test(test_json_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
