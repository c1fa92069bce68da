/* test_format_registry.c - the format registry (io/registry.c): a format registered from
 * here, a plain text event list, is read through tsync_trace_open like the built-in
 * ones, and check and estimate run on it; a file of no known format names them; the
 * pipeline refuses, before reading, stages a format's capabilities cannot serve. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tmpfile.h"
#include "io/format.h"
#include "tracesync/check.h"
#include "tracesync/estimate.h"
#include "tracesync/pipeline.h"
#include "tracesync/timemap.h"

/* The toy format: a first line "toy-events", then lines
 *     node NODE LOCATION...          the locations of a node, in order
 *     LOCATION TIME send|recv ID     one end of message ID
 *     LOCATION TIME other            any other event
 * in nanoseconds, each location's events in time order. */
#define TOY_MAX 64

struct toy_event { int loc; long long time; int kind; unsigned long long id; };

struct toy {
    char node[TOY_MAX][16];
    char loc[TOY_MAX][16];
    int loc_node[TOY_MAX];
    int n_nodes, n_locs, n_events;
    struct toy_event ev[TOY_MAX];
};

static int toy_probe(const unsigned char *head, size_t n)
{
    return n >= 11 && memcmp(head, "toy-events\n", 11) == 0;
}

static int toy_loc(const struct toy *y, const char *name)
{
    for (int i = 0; i < y->n_locs; i++)
        if (strcmp(y->loc[i], name) == 0)
            return i;
    return -1;
}

static int toy_open(void **out, const char *path, tsync_ctx *ctx)
{
    FILE *f = fopen(path, "r");
    struct toy *y = calloc(1, sizeof(*y));
    char line[256], what[16], name[16];
    if (!f || !y) {
        free(y);
        if (f)
            fclose(f);
        return tsync__fail(ctx, TSYNC_EIO, "%s: cannot read", path);
    }
    while (fgets(line, sizeof(line), f)) {
        struct toy_event *e = &y->ev[y->n_events];
        int at, n;
        if (sscanf(line, "node %15s%n", y->node[y->n_nodes], &at) == 1) {
            while (sscanf(line + at, "%15s%n", y->loc[y->n_locs], &n) == 1) {
                y->loc_node[y->n_locs++] = y->n_nodes;
                at += n;
            }
            y->n_nodes++;
        } else if (sscanf(line, "%15s %lld %15s %llu", name, &e->time, what, &e->id) >= 3) {
            e->loc = toy_loc(y, name);
            e->kind = strcmp(what, "send") == 0 ? TSYNC_EV_SEND
                      : strcmp(what, "recv") == 0 ? TSYNC_EV_RECV : TSYNC_EV_OTHER;
            y->n_events++;
        }
    }
    fclose(f);
    *out = y;
    return TSYNC_OK;
}

static int toy_definitions(void *r, struct tsync_sink *sink)
{
    struct toy *y = r;
    uint32_t node[TOY_MAX];
    tsync__sink_clock(sink, 1000000000, 0, 0, 0);
    for (int n = 0; n < y->n_nodes; n++)
        if (tsync__sink_node(sink, y->node[n], &node[n]))
            return TSYNC_ENOMEM;
    for (int i = 0; i < y->n_locs; i++)
        if (tsync__sink_location(sink, (uint64_t)i, y->loc[i], node[y->loc_node[i]]))
            return TSYNC_ENOMEM;
    return TSYNC_OK;
}

static int toy_events(void *r, struct tsync_sink *sink)
{
    struct toy *y = r;
    int rc = TSYNC_OK;
    for (int i = 0; i < y->n_locs && rc == TSYNC_OK; i++) {
        rc = tsync__sink_begin_location(sink, (tsync_loc)i, 0);
        for (int k = 0; k < y->n_events && rc == TSYNC_OK; k++) {
            const struct toy_event *e = &y->ev[k];
            if (e->loc != i)
                continue;
            rc = tsync__sink_event(sink, e->time, (uint8_t)e->kind);
            if (rc == TSYNC_OK && e->kind != TSYNC_EV_OTHER)
                rc = tsync__sink_end(sink, e->id, e->kind == TSYNC_EV_RECV);
        }
    }
    return rc;
}

static void toy_close(void *r) { free(r); }

static const struct tsync__format toy_format = {
    .name = "toy",
    .what = "a toy event list",
    .caps = TSYNC_CAP_MESSAGES | TSYNC_CAP_NODES,
    .shape = TSYNC_FORMAT_CSV,
    .probe = toy_probe,
    .open = toy_open,
    .definitions = toy_definitions,
    .events = toy_events,
    .close = toy_close,
};

static int bare_probe(const unsigned char *head, size_t n)
{
    return n >= 9 && memcmp(head, "toy-bare\n", 9) == 0;
}

/* The toy reader for files that declare events only: no messages, collectives or
 * offsets, no nodes, no writer (toy_format with these changes, made in setup). */
static struct tsync__format bare_format;

/* Node n1's clock reads 1 ms behind n0's; every message takes 5 us. */
static const char TOY[] = "toy-events\n"
                          "node n0 a\n"
                          "node n1 b\n"
                          "a 1000000 send 0\n"
                          "b 5000 recv 0\n"
                          "b 2000000 send 1\n"
                          "a 3005000 recv 1\n"
                          "a 4000000 other\n"
                          "a 5000000 send 2\n"
                          "b 4005000 recv 2\n"
                          "b 6000000 send 3\n"
                          "a 7005000 recv 3\n";

static int setup(void **state)
{
    tsync_ctx *ctx;
    int rc;
    (void)state;
    if (tsync_ctx_new(&ctx))
        return -1;
    bare_format = toy_format;
    bare_format.name = "toy-bare";
    bare_format.what = "a bare event list";
    bare_format.caps = 0;
    bare_format.probe = bare_probe;
    rc = tsync__format_register(&toy_format, ctx);
    if (rc == 0)
        rc = tsync__format_register(&bare_format, ctx);
    tsync_ctx_free(ctx);
    return rc;
}

static void test_register_twice(void **state)
{
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync__format_register(&toy_format, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "\"toy\" is known already"));
    assert_string_equal(tsync_trace_formats(),
                        "an OTF2 anchor file, a CSV of messages, packet captures (pcap, "
                        "pcapng), a toy event list or a bare event list");
    tsync_ctx_free(ctx);
}

/* The toy trace through tsync_trace_open, picked by its content (its name says
 * nothing), matched by the match stage; check sees the message that arrives before
 * it was sent, estimate finds n1's clock 1 ms behind. */
static void test_toy_trace(void **state)
{
    char *path = tmp_write("registry", "run.events", TOY);
    tsync_trace *t;
    tsync_timeline *tl;
    tsync_check_report *rep;
    tsync_estimate *e;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&t, path, NULL, ctx), 0);
    assert_ptr_equal(t->io, &toy_format);
    assert_int_equal(tsync_trace_location_count(t), 2);
    assert_int_equal(tsync_trace_domain_count(t), 2);
    assert_string_equal(tsync_trace_domain_rule(t), "node");
    assert_string_equal(tsync_trace_domain_name(t, 1), "n1");
    assert_int_equal(tsync_trace_event_count(t), 9);
    assert_int_equal(tsync_trace_message_count(t), 4);
    assert_int_equal(t->messages[0].send_loc, 0);
    assert_int_equal(t->messages[0].recv_loc, 1);
    assert_int_equal(t->messages[1].recv_idx, 1);   /* a: send, recv 3100, ... */
    assert_int_equal(t->messages[3].recv_idx, 4);
    assert_int_equal(tsync_trace_unmatched_sends(t), 0);

    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    assert_int_equal(tsync_check_run(&rep, t, tl, NULL, ctx), 0);
    assert_int_equal(rep->messages, 4);
    assert_int_equal(rep->reversed, 2);              /* both messages a -> b */
    tsync_check_report_free(rep);

    assert_int_equal(tsync_estimate_run(&e, t, NULL, ctx), 0);
    assert_int_equal(tsync_estimate_domain_count(e), 2);
    /* Corrected, every message takes its 100 ns again. */
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        const tsync_map_set *maps = tsync_estimate_maps(e);
        tsync_time s = tsync_time_map_eval(tsync_map_set_get(maps, m->send_loc),
                                           t->locations[m->send_loc].time[m->send_idx]);
        tsync_time r = tsync_time_map_eval(tsync_map_set_get(maps, m->recv_loc),
                                           t->locations[m->recv_loc].time[m->recv_idx]);
        assert_true(r - s > 4950 && r - s < 5050);
    }
    tsync_estimate_free(e);

    /* The toy format is read-only. */
    assert_int_equal(tsync_trace_write(t, tl, "unused-outdir", ctx), TSYNC_EUNSUPPORTED);
    assert_non_null(strstr(tsync_ctx_error(ctx), "traces in toy are read, not written"));
    tsync_timeline_free(tl);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
    free(path);
}

/* A file that no format recognizes, by content or name: named, with the formats. */
static void test_unknown_format(void **state)
{
    char *path = tmp_write("registry", "mystery.dat", "hello\n");
    tsync_trace *t = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&t, path, NULL, ctx), TSYNC_EFORMAT);
    assert_null(t);
    assert_non_null(strstr(tsync_ctx_error(ctx), "mystery.dat: not a trace of a known format "
                                                 "(tracesync reads an OTF2 anchor file, a CSV of "
                                                 "messages, packet captures (pcap, pcapng), a "
                                                 "toy event list or a bare event list)"));
    tsync_ctx_free(ctx);
    free(path);
}

/* A CSV under any name is read by its header; a broken one named .csv still gets
 * the CSV reader's own message. */
static void test_by_content_then_name(void **state)
{
    char *csv = tmp_write("registry", "msgs.txt", "send_location,send_time_ns,recv_location,"
                                                  "recv_time_ns\nx,1,y,2\n");
    char *bad = tmp_write("registry", "bad.csv", "a,b,c,d\n");
    tsync_trace *t = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_trace_open(&t, csv, NULL, ctx), 0);
    assert_int_equal(t->format, TSYNC_FORMAT_CSV);
    assert_int_equal(tsync_trace_message_count(t), 1);
    tsync_trace_free(t);
    t = NULL;
    assert_int_equal(tsync_trace_open(&t, bad, NULL, ctx), TSYNC_EFORMAT);
    assert_non_null(strstr(tsync_ctx_error(ctx), "line 1: expected the header"));
    tsync_ctx_free(ctx);
    free(csv);
    free(bad);
}

/* The pipeline checks the format's capabilities before reading: apply on the
 * read-only toy format fails naming it before the maps file (missing) is read or
 * the output directory made; stages that need messages fail on a format without
 * them; the check runs on the toy format, which has them. */
static void test_pipeline_capabilities(void **state)
{
    char *toy = tmp_write("registry", "caps.events", TOY);
    char *bare = tmp_write("registry", "bare.events", "toy-bare\nnode n0 a\na 5 other\n");
    char *outdir = tmp_write("registry", "caps-out-unused", "");
    tsync_pipeline_opts o = TSYNC_PIPELINE_OPTS_INIT;
    tsync_pipeline_result *r = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    remove(outdir);
    o.stages = TSYNC_STAGES_APPLY;
    o.maps_file = "no-such-maps.json";
    o.outdir = outdir;
    assert_int_equal(tsync_pipeline_run(&r, toy, &o, ctx), TSYNC_EUNSUPPORTED);
    assert_null(r);
    assert_non_null(strstr(tsync_ctx_error(ctx), "caps.events: traces in toy are read, not "
                                                 "written"));
    assert_int_equal(access(outdir, F_OK), -1);

    o.stages = TSYNC_STAGES_CHECK;
    assert_int_equal(tsync_pipeline_run(&r, bare, &o, ctx), TSYNC_EUNSUPPORTED);
    assert_non_null(strstr(tsync_ctx_error(ctx), "bare.events: check needs messages or "
                                                 "collectives; a bare event list (toy-bare) "
                                                 "holds none of them"));
    o.stages = TSYNC_STAGES_ESTIMATE;
    assert_int_equal(tsync_pipeline_run(&r, bare, &o, ctx), TSYNC_EUNSUPPORTED);
    assert_non_null(strstr(tsync_ctx_error(ctx), "estimate needs messages, collectives or "
                                                 "clock offsets"));
    o.stages = TSYNC_STAGES_CHECK;
    if (tsync_pipeline_run(&r, toy, &o, ctx))
        fail_msg("%s", tsync_ctx_error(ctx));
    assert_int_equal(r->before->reversed, 2);
    tsync_pipeline_result_free(r);
    tsync_ctx_free(ctx);
    free(toy);
    free(bare);
    free(outdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register_twice),
        cmocka_unit_test(test_toy_trace),
        cmocka_unit_test(test_unknown_format),
        cmocka_unit_test(test_by_content_then_name),
        cmocka_unit_test(test_pipeline_capabilities),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
