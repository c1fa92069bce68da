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
 * first message, (send, receive) in line order, the extents of each location;
 * no events, no messages. */
static void test_lists(void **state)
{
    char *path = write_csv("lists.csv", "send_location,send_time_ns,recv_location,recv_time_ns\n"
                                        "a,500,b,700\r\n"
                                        "b,100,a,50\n"
                                        "\n"
                                        "a,20,b,-5\n"
                                        "a,9,c,12\n");
    tsync_trace *t;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__trace_open_lists(&t, path, NULL, ctx), 0);
    assert_int_equal(t->n_locations, 3);
    assert_int_equal(t->n_messages, 0);
    assert_int_equal(t->locations[0].n_events, 0);
    assert_int_equal(t->n_lists, 3);
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
    assert_int_equal(tsync_trace_event_count(t), 8);
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

/* A line longer than the read buffer (4 MiB) between ordinary ones. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_many_locations),
        cmocka_unit_test(test_long_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
