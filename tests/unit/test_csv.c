/* test_csv.c - the CSV of messages as a trace (io/csv.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tmpfile.h"
#include "io/formats.h"
#include "trace/trace.h"

static char *write_csv(const char *name, const char *text)
{
    return tmp_write("csv", name, text);
}

/* Locations in order of appearance; each location's events sorted by time;
 * messages in line order. */
static void test_read(void **state)
{
    char *path = write_csv("ok.csv", "send_location,send_time_ns,recv_location,recv_time_ns\n"
                                     "a,500,b,700\r\n"
                                     "b,100,a,50\n"
                                     "\n"
                                     "a,20,c,-5\n");
    tsync_trace *t;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&t, path, NULL, ctx), 0);
    assert_int_equal(t->format, TSYNC_FORMAT_CSV);
    assert_int_equal(t->n_locations, 3);
    assert_string_equal(t->locations[0].name, "a");
    assert_string_equal(t->locations[2].name, "c");
    assert_int_equal(t->n_domains, 3);
    assert_int_equal(t->timer_resolution, 1000000000);
    /* a: send 20, recv 50, send 500 */
    assert_int_equal(t->locations[0].n_events, 3);
    assert_int_equal(t->locations[0].time[0], 20);
    assert_int_equal(t->locations[0].time[1], 50);
    assert_int_equal(t->locations[0].time[2], 500);
    assert_int_equal(t->locations[0].kind[1], TSYNC_EV_RECV);
    assert_int_equal(t->n_messages, 3);
    assert_int_equal(t->messages[0].send_loc, 0);
    assert_int_equal(t->messages[0].send_idx, 2);
    assert_int_equal(t->messages[1].recv_loc, 0);
    assert_int_equal(t->messages[1].recv_idx, 1);
    assert_int_equal(t->locations[2].time[0], -5);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
    free(path);
}

/* For the estimate alone: a list per ordered pair of locations in order of its
 * first message, (send, receive) in line order, the extents of each location
 * (also of one that sends to itself); no events, no messages. */
static void test_lists(void **state)
{
    char *path = write_csv("lists.csv", "send_location,send_time_ns,recv_location,recv_time_ns\n"
                                        "a,500,b,700\r\n"
                                        "b,100,a,50\n"
                                        "\n"
                                        "a,20,b,-5\n"
                                        "a,9,c,12\n"
                                        "c,30,c,1000\n");
    tsync_trace *t;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__trace_open_lists(&t, path, NULL, ctx), 0);
    assert_int_equal(t->n_locations, 3);
    assert_int_equal(t->n_messages, 0);
    assert_int_equal(t->locations[0].n_events, 0);
    assert_int_equal(t->n_lists, 4);
    assert_int_equal(t->lists[0].send_loc, 0);
    assert_int_equal(t->lists[0].recv_loc, 1);
    assert_int_equal(t->lists[0].n, 2);
    assert_int_equal(t->lists[0].v[0].x, 500);
    assert_int_equal(t->lists[0].v[0].y, 700);
    assert_int_equal(t->lists[0].v[1].x, 20);
    assert_int_equal(t->lists[0].v[1].y, -5);
    assert_int_equal(t->lists[1].send_loc, 1);
    assert_int_equal(t->lists[1].v[0].y, 50);
    assert_int_equal(t->lists[2].recv_loc, 2);
    /* a: sends 500, 20, 9, receive 50 */
    assert_int_equal(t->extents[0].first, 9);
    assert_int_equal(t->extents[0].last, 500);
    assert_int_equal(t->extents[0].events, 4);
    assert_int_equal(t->extents[1].first, -5);
    assert_int_equal(t->extents[1].last, 700);
    /* c: receive 12, send 30, receive 1000 */
    assert_int_equal(t->extents[2].first, 12);
    assert_int_equal(t->extents[2].last, 1000);
    assert_int_equal(t->extents[2].events, 3);
    assert_int_equal(tsync_trace_event_count(t), 10);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
    free(path);
}

/* Errors name the file. */
static void expect_error(const char *name, const char *text, int code, const char *message)
{
    char *path = write_csv(name, text);
    expect_trace_error(path, code, message);
    expect_trace_error(path, code, name);
    expect_error_of(tsync__trace_open_lists, path, code, message);  /* for the estimate alone */
    free(path);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("empty.csv", "", TSYNC_EFORMAT, "the file is empty");
    expect_error("header.csv", "a,b,c,d\n", TSYNC_EFORMAT, "line 1: expected the header");
    expect_error("nomsg.csv", "send_location,send_time_ns,recv_location,recv_time_ns\n",
                 TSYNC_EFORMAT, "empty trace");
    expect_error("fields.csv", "send_location,send_time_ns,recv_location,recv_time_ns\na,1,b\n",
                 TSYNC_EFORMAT, "line 2: expected 4 fields");
    expect_error("time.csv", "send_location,send_time_ns,recv_location,recv_time_ns\na,1,b,2\n"
                             "a,1.5,b,2\n", TSYNC_EFORMAT, "line 3: send_time_ns \"1.5\"");
    expect_error("name.csv", "send_location,send_time_ns,recv_location,recv_time_ns\n,1,b,2\n",
                 TSYNC_EFORMAT, "line 2: a location name is empty");
}

static void test_missing(void **state)
{
    tsync_trace *t = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&t, "/nonexistent/m.csv", NULL, ctx), TSYNC_EIO);
    assert_non_null(strstr(tsync_ctx_error(ctx), "/nonexistent/m.csv"));
    tsync_ctx_free(ctx);
}

/* Many locations: the name table grows. */
static void test_many_locations(void **state)
{
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    char *path;
    tsync_trace *t;
    (void)state;
    n += (size_t)snprintf(text + n, cap - n, "send_location,send_time_ns,recv_location,recv_time_ns\n");
    for (int i = 0; i < 1000; i++)
        n += (size_t)snprintf(text + n, cap - n, "h%d,%d,h%d,%d\n", i, i, (i + 1) % 1000, i + 10);
    path = write_csv("many.csv", text);
    assert_int_equal(tsync_trace_open(&t, path, NULL, NULL), 0);
    assert_int_equal(t->n_locations, 1000);
    for (uint32_t l = 0; l < 1000; l++)
        assert_int_equal(t->locations[l].n_events, 2);
    tsync_trace_free(t);
    free(text);
    free(path);
}

/* Growing text for the tests below. */
struct text {
    char *s;
    size_t n, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int k;
    for (;;) {
        va_start(ap, fmt);
        k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if ((size_t)k < t->cap - t->n)
            break;
        t->cap = 2 * t->cap + (size_t)k + 1;
        assert_non_null(t->s = realloc(t->s, t->cap));
    }
    t->n += (size_t)k;
}

static tsync_trace *open_lists(const char *name, const char *text)
{
    char *path = write_csv(name, text);
    tsync_trace *t = NULL;
    tsync_ctx *ctx;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    if (tsync__trace_open_lists(&t, path, NULL, ctx))
        fail_msg("%s: %s", name, tsync_ctx_error(ctx));
    tsync_ctx_free(ctx);
    free(path);
    return t;
}

/* Every spelling a row may have (the common one read in one pass, the others field
 * by field) gives the same messages: line ends \n and \r\n, blank lines, spaces at
 * the end, no newline at the end of the file, times with a plus, leading zeros or
 * a blank before them, of 1 to 19 digits, negative; names of up to and beyond 16
 * bytes, one a prefix of another, with blanks inside. */
static void test_spellings(void **state)
{
    static const char *names[] = { "a", "ab", "fifteen-chars-x", "sixteen-chars-xy",
                                   "a name of forty bytes with blanks in it..", "a b" };
    static const char *heads[] = { "", "+", "000", " " };
    struct text plain = { NULL, 0, 0 }, odd = { NULL, 0, 0 };
    uint64_t x = 88172645463325252ull;
    tsync_trace *a, *b;
    (void)state;
    put(&plain, "send_location,send_time_ns,recv_location,recv_time_ns\n");
    put(&odd, "send_location,send_time_ns,recv_location,recv_time_ns\r\n");
    for (int i = 0; i < 3000; i++) {
        const char *s, *r;
        long long ts, tr;
        int digits;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        s = names[x % 6];
        r = names[(x >> 8) % 6];
        digits = 1 + (int)((x >> 16) % 19);
        ts = (long long)((x >> 24) % 1000000000000000000ull);
        for (int k = digits; k < 18; k++)
            ts /= 10;
        if (digits == 19)
            ts += 1000000000000000000ll;       /* 19 digits, below 2^62 */
        if ((x >> 40) % 5 == 0)
            ts = -ts;
        tr = ts + (long long)((x >> 44) % 100000);
        put(&plain, "%s,%lld,%s,%lld\n", s, ts, r, tr);
        put(&odd, "%s,%s%lld,%s,%s%lld%s%s", s, ts < 0 ? "" : heads[(x >> 50) % 4], ts, r,
            tr < 0 ? "" : heads[(x >> 52) % 4], tr, (x >> 54) % 3 ? "" : "  ",
            (x >> 56) % 2 ? "\r\n" : "\n");
        if ((x >> 58) % 16 == 0)
            put(&odd, "\n");
    }
    odd.s[--odd.n] = '\0';                    /* no newline at the end */
    a = open_lists("plain.csv", plain.s);
    b = open_lists("odd.csv", odd.s);
    assert_int_equal(a->n_locations, b->n_locations);
    for (uint32_t l = 0; l < a->n_locations; l++)
        assert_string_equal(a->locations[l].name, b->locations[l].name);
    assert_int_equal(a->n_lists, b->n_lists);
    for (size_t i = 0; i < a->n_lists; i++) {
        assert_int_equal(a->lists[i].send_loc, b->lists[i].send_loc);
        assert_int_equal(a->lists[i].recv_loc, b->lists[i].recv_loc);
        assert_int_equal(a->lists[i].n, b->lists[i].n);
        assert_memory_equal(a->lists[i].v, b->lists[i].v, a->lists[i].n * sizeof(*a->lists[i].v));
    }
    tsync_trace_free(a);
    tsync_trace_free(b);
    free(plain.s);
    free(odd.s);
}

/* Each block of a list has the extents of its messages, where they come in order
 * and where one send or one receive comes early, at every place of a block. */
static void test_block_extents(void **state)
{
    (void)state;
    for (int bad = 0; bad < 4 * TSYNC__LIST_BLOCK + 6; bad++) {
        struct text t = { NULL, 0, 0 };
        tsync_trace *tr;
        int at = bad / 2, send = bad % 2;
        put(&t, "send_location,send_time_ns,recv_location,recv_time_ns\n");
        for (int i = 0; i < 2 * TSYNC__LIST_BLOCK + 3; i++)
            put(&t, "a,%d,b,%d\n", i == at && send ? 10 * i - 15 : 10 * i,
                i == at && !send ? 10 * i - 15 : 10 * i + 5);
        tr = open_lists("blocks.csv", t.s);
        assert_int_equal(tr->n_lists, 1);
        for (size_t j0 = 0; j0 < tr->lists[0].n; j0 += TSYNC__LIST_BLOCK) {
            const struct tsync__list_block *k = &tr->lists[0].blocks[j0 / TSYNC__LIST_BLOCK];
            struct tsync__list_block want = { INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN };
            for (size_t j = j0; j < tr->lists[0].n && j < j0 + TSYNC__LIST_BLOCK; j++) {
                const struct tsync__pt *v = &tr->lists[0].v[j];
                want.x_lo = v->x < want.x_lo ? v->x : want.x_lo;
                want.x_hi = v->x > want.x_hi ? v->x : want.x_hi;
                want.y_lo = v->y < want.y_lo ? v->y : want.y_lo;
                want.y_hi = v->y > want.y_hi ? v->y : want.y_hi;
            }
            assert_memory_equal(k, &want, sizeof(want));
        }
        tsync_trace_free(tr);
        free(t.s);
    }
}

/* A line longer than the read buffer (1 MiB) and a mapped chunk (4 MiB) between
 * ordinary ones. */
static void test_long_line(void **state)
{
    struct text t = { NULL, 0, 0 };
    size_t len = (5u << 20) + 3;
    char *name = malloc(len + 1);
    tsync_trace *tr;
    (void)state;
    assert_non_null(name);
    memset(name, 'q', len);
    name[len] = '\0';
    put(&t, "send_location,send_time_ns,recv_location,recv_time_ns\n");
    for (int i = 0; i < 100; i++)
        put(&t, "a,%d,b,%d\n", i, i + 5);
    put(&t, "%s,7,a,9\n", name);
    for (int i = 0; i < 100; i++)
        put(&t, "b,%d,a,%d\n", i, i + 5);
    tr = open_lists("long.csv", t.s);
    assert_int_equal(tr->n_locations, 3);
    assert_int_equal(strlen(tr->locations[2].name), len);
    assert_int_equal(tr->n_lists, 3);
    assert_int_equal(tr->lists[0].n, 100);
    assert_int_equal(tr->lists[1].v[0].x, 7);
    assert_int_equal(tr->lists[2].n, 100);
    tsync_trace_free(tr);
    free(name);
    free(t.s);
}

/* A file of several chunks that the reader maps (4 MiB each): every row as written,
 * those across a chunk's end and those of the general way (a blank, a plus) too. */
static void test_mapped(void **state)
{
    struct text t = { NULL, 0, 0 };
    const int rows = 300000;   /* 11 MiB */
    tsync_trace *tr;
    (void)state;
    put(&t, "send_location,send_time_ns,recv_location,recv_time_ns\n");
    for (int i = 0; i < rows; i++) {
        long long ts = (long long)i * 7919 * (i % 7 + 1) * (i % 13 ? 1 : 1000003);
        put(&t, i % 1000 == 999 ? "a, %lld,b,+%lld\r\n" : "a,%lld,b,%lld\n", ts, ts + i % 97);
    }
    tr = open_lists("mapped.csv", t.s);
    assert_int_equal(tr->n_lists, 1);
    assert_int_equal(tr->lists[0].n, rows);
    for (int i = 0; i < rows; i++) {
        long long ts = (long long)i * 7919 * (i % 7 + 1) * (i % 13 ? 1 : 1000003);
        if (tr->lists[0].v[i].x != ts || tr->lists[0].v[i].y != ts + i % 97)
            fail_msg("row %d: %lld,%lld", i, (long long)tr->lists[0].v[i].x,
                     (long long)tr->lists[0].v[i].y);
    }
    tsync_trace_free(tr);
    free(t.s);
}

/* A bad line after many good ones: the error names the file, the line and the
 * field, as on its own. */
static void test_errors_later(void **state)
{
    static const struct {
        const char *line;
        size_t len;           /* with the NUL bytes inside */
        const char *message;
    } bad[] = {
        { "a,1,b,2\0x", 9, "line 202: contains a NUL byte" },
        { "a\0,1,b,2", 8, "line 202: contains a NUL byte" },
        { "a,1,b", 5, "line 202: expected 4 fields" },
        { "a,1,b,2,", 8, "line 202: expected 4 fields" },
        { "a,,b,2", 6, "line 202: send_time_ns \"\" is not a whole number" },
        { "a,1,b,2x", 8, "line 202: recv_time_ns \"2x\" is not a whole number" },
        { "a,-,b,2", 7, "line 202: send_time_ns \"-\" is not a whole number" },
        { "a,4611686018427387905,b,2", 25, "line 202: send_time_ns 4611686018427387905 is beyond +-2^62" },
        { "a,1,b,-99999999999999999999", 27, "line 202: recv_time_ns \"-99999999999999999999\"" },
        { "a,1,,2", 6, "line 202: a location name is empty" },
    };
    (void)state;
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        struct text t = { NULL, 0, 0 };
        char *path = write_csv("later.csv", "");
        FILE *f;
        put(&t, "send_location,send_time_ns,recv_location,recv_time_ns\n");
        for (int i = 0; i < 200; i++)
            put(&t, "%s,%d,%s,%d\n", i % 2 ? "a" : "b", i, i % 2 ? "b" : "a", i + 5);
        assert_non_null(f = fopen(path, "wb"));
        assert_int_equal(fwrite(t.s, 1, t.n, f), t.n);
        assert_int_equal(fwrite(bad[k].line, 1, bad[k].len, f), bad[k].len);
        fputs("\nb,5,a,6\n", f);
        fclose(f);
        expect_trace_error(path, TSYNC_EFORMAT, bad[k].message);
        expect_trace_error(path, TSYNC_EFORMAT, "later.csv");
        free(path);
        free(t.s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_block_extents),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_many_locations),
        cmocka_unit_test(test_spellings),
        cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_mapped),
        cmocka_unit_test(test_errors_later),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
