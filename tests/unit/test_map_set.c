/* test_map_set.c - map sets: JSON reading and its errors, selectors, saving, applying. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "timemap/map_set.h"
#include "trace/trace.h"
#include "tracesync/timemap.h"

#define EVENTS 1000

/* Four locations, ids 0..3, in two clock domains: node1 = {0, 1}, node2 = {2, 3}.
 * Location i has EVENTS events at times 1000 * j + i (j = 0, 1, ...). */
static tsync_trace *make_trace(void)
{
    struct tsync_trace *t = tsync__trace_alloc("test.otf2");
    assert_non_null(t);
    t->timer_resolution = 1000000000;
    t->n_nodes = t->n_domains = 2;
    t->nodes = calloc(2, sizeof(*t->nodes));
    t->domains = calloc(2, sizeof(*t->domains));
    assert_non_null(t->nodes);
    assert_non_null(t->domains);
    for (uint32_t d = 0; d < 2; d++) {
        t->nodes[d].name = strdup(d ? "node2" : "node1");
        t->domains[d].name = strdup(d ? "node2" : "node1");
        t->domains[d].node = d;
    }
    t->n_locations = 4;
    t->locations = calloc(4, sizeof(*t->locations));
    assert_non_null(t->locations);
    for (uint32_t i = 0; i < 4; i++) {
        struct tsync_location *l = &t->locations[i];
        char name[32];
        snprintf(name, sizeof(name), "rank %u", i);
        l->ref = i;
        l->name = strdup(name);
        l->rank = i;
        l->node = l->domain = i / 2;
        l->n_events = EVENTS;
        l->time = malloc(EVENTS * sizeof(*l->time));
        l->kind = calloc(EVENTS, 1);
        assert_non_null(l->time);
        for (uint64_t j = 0; j < EVENTS; j++)
            l->time[j] = (tsync_time)(1000 * j + i);
    }
    return t;
}

static char path_buf[4096];

/* A file in the scratch directory. */
static const char *tmp_path(const char *name)
{
    const char *dir = getenv("TSYNC_TEST_TMP");
    if (!dir)
        dir = ".";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        fail_msg("cannot create %s", dir);
    snprintf(path_buf, sizeof(path_buf), "%s/%s", dir, name);
    return path_buf;
}

static const char *write_file(const char *name, const char *text)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define HEAD "{\"format\": \"tracesync-maps\", \"version\": 1, \"timer_resolution\": 1000000000, \"maps\": ["

/* Loads `maps` (the inside of the "maps" list) and expects failure with `code`
 * and a message that starts with the path and contains `expect`. */
static void expect_error(const char *maps, int code, const char *expect)
{
    char text[4096], want[8192];
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    tsync_ctx *ctx;
    const char *path;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    snprintf(text, sizeof(text), HEAD "%s]}\n", maps);
    path = write_file("map_set_err.json", text);
    assert_int_equal(tsync_map_set_load(&set, path, t, ctx), code);
    assert_null(set);
    snprintf(want, sizeof(want), "%s: %s", path, expect);
    if (!strstr(tsync_ctx_error(ctx), want))
        fail_msg("message \"%s\" does not contain \"%s\"", tsync_ctx_error(ctx), want);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

static void test_load_example(void **state)
{
    /* The example of docs/maps.md, on this trace. */
    const char *path = write_file("map_set_example.json",
        "{\n"
        "  \"format\": \"tracesync-maps\",\n"
        "  \"version\": 1,\n"
        "  \"timer_resolution\": 1000000000,\n"
        "  \"maps\": [\n"
        "    { \"domain\": \"node1\", \"offset\": -25000 },\n"
        "    { \"location\": 2, \"offset\": 1200, \"drift\": 1.5e-6, \"origin\": 0 },\n"
        "    { \"location\": 3, \"points\": [[0, 100], [1000000, 1000150]] },\n"
        "    { \"default\": true, \"offset\": 0 }\n"
        "  ]\n"
        "}\n");
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    if (tsync_map_set_load(&set, path, t, ctx))
        fail_msg("%s", tsync_ctx_error(ctx));
    assert_ptr_equal(tsync_map_set_get(set, 0), tsync_map_set_get(set, 1)); /* one domain map */
    assert_int_equal(tsync_time_map_eval(tsync_map_set_get(set, 0), 30000), 5000);
    assert_int_equal(tsync_time_map_kind(tsync_map_set_get(set, 2)), TSYNC_MAP_DRIFT);
    assert_int_equal(tsync_time_map_eval(tsync_map_set_get(set, 2), 1000000000), 1000002700);
    assert_int_equal(tsync_time_map_eval(tsync_map_set_get(set, 3), 500000), 500125);
    assert_null(tsync_map_set_get(set, 4)); /* out of range */
    tsync_map_set_free(set);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

static void test_precedence(void **state)
{
    /* location over domain over default; the default takes what is left. */
    const char *path = write_file("map_set_prec.json", HEAD
        "{\"default\": true, \"offset\": 1, \"name\": \"everyone else\"},"
        "{\"location\": 3, \"points\": [[0, 50]], \"bounds\": [4]},"
        "{\"domain\": \"node2\", \"offset\": 7, \"bound\": 2}]}");
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    (void)state;
    assert_int_equal(tsync_map_set_load(&set, path, t, NULL), 0);
    assert_int_equal(tsync_time_map_eval(tsync_map_set_get(set, 0), 100), 101);
    assert_int_equal(tsync_time_map_eval(tsync_map_set_get(set, 1), 100), 101);
    assert_int_equal(tsync_time_map_eval(tsync_map_set_get(set, 2), 100), 107);
    assert_int_equal(tsync_time_map_bounds(tsync_map_set_get(set, 2))[0], 2);
    assert_int_equal(tsync_time_map_eval(tsync_map_set_get(set, 3), 100), 150);
    assert_int_equal(tsync_time_map_bounds(tsync_map_set_get(set, 3))[0], 4);
    tsync_map_set_free(set);

    /* No default: unnamed locations keep their time; unused maps are freed. */
    path = write_file("map_set_prec.json", HEAD
        "{\"location\": 1, \"offset\": -5}, {\"location\": 0, \"offset\": 5}]}");
    assert_int_equal(tsync_map_set_load(&set, path, t, NULL), 0);
    assert_non_null(tsync_map_set_get(set, 0));
    assert_non_null(tsync_map_set_get(set, 1));
    assert_null(tsync_map_set_get(set, 2));
    assert_null(tsync_map_set_get(set, 3));
    tsync_map_set_free(set);

    /* An empty list, and no timer_resolution. */
    path = write_file("map_set_prec.json", "{\"format\": \"tracesync-maps\", \"version\": 1, \"maps\": []}");
    assert_int_equal(tsync_map_set_load(&set, path, t, NULL), 0);
    for (tsync_loc i = 0; i < 4; i++)
        assert_null(tsync_map_set_get(set, i));
    tsync_map_set_free(set);
    tsync_trace_free(t);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("{\"location\": 77, \"offset\": 1}", TSYNC_EINVAL,
                 "map 0: location 77 is not in the trace (ids: 0, 1, 2, 3)");
    expect_error("{\"offset\": 1, \"default\": true}, {\"location\": 1, \"offset\": 1},"
                 "{\"location\": 77, \"offset\": 1}", TSYNC_EINVAL,
                 "map 2: location 77 is not in the trace (ids: 0, 1, 2, 3)");
    expect_error("{\"location\": 2, \"offset\": 1}, {\"location\": 2, \"offset\": 5}", TSYNC_EINVAL,
                 "map 1: location 2 is already named by map 0");
    expect_error("{\"domain\": \"node2\", \"offset\": 1}, {\"domain\": \"node2\", \"offset\": 5}", TSYNC_EINVAL,
                 "map 1: domain \"node2\" is already named by map 0");
    expect_error("{\"default\": true, \"offset\": 1}, {\"default\": true, \"offset\": 5}", TSYNC_EINVAL,
                 "map 1: a default map is already given by map 0");
    expect_error("{\"domain\": \"node9\", \"offset\": 1}", TSYNC_EINVAL,
                 "map 0: domain \"node9\" is not in the trace (domains: node1, node2)");
    expect_error("{\"location\": 1, \"ofset\": 1}", TSYNC_EFORMAT, "map 0: unknown key \"ofset\"");
    expect_error("{\"location\": 1, \"points\": []}", TSYNC_EINVAL,
                 "map 0: \"points\" is empty (a map needs at least one point)");
    expect_error("{\"location\": 1, \"points\": [[0, 10], [5, 9]]}", TSYNC_EINVAL,
                 "map 0: point 1: global time 9 goes back from 10 of point 0");
    expect_error("{\"location\": 1, \"points\": [[0, 10], [0, 19]]}", TSYNC_EINVAL,
                 "map 0: point 1: local time 0 does not increase");
    expect_error("{\"location\": 1, \"points\": [[0, 10], [5]]}", TSYNC_EFORMAT,
                 "map 0: point 1 must be [local, global] in integer ticks");
    expect_error("{\"location\": 1, \"points\": [[0, 10.5]]}", TSYNC_EFORMAT,
                 "map 0: point 0 must be [local, global] in integer ticks");
    expect_error("{\"location\": 1, \"offset\": 1, \"drift\": -1}", TSYNC_EINVAL,
                 "map 0: drift -1 must be greater than -1");
    expect_error("{\"location\": 1, \"offset\": 1.5}", TSYNC_EFORMAT, "map 0: \"offset\" must be an integer");
    expect_error("{\"location\": 1, \"offset\": 1, \"origin\": 5}", TSYNC_EFORMAT,
                 "map 0: \"origin\" needs \"drift\"");
    expect_error("{\"location\": 1}", TSYNC_EFORMAT, "map 0: needs \"offset\" or \"points\"");
    expect_error("{\"offset\": 1}", TSYNC_EFORMAT,
                 "map 0: needs exactly one of \"location\", \"domain\" and \"default\" (has 0)");
    expect_error("{\"location\": 1, \"domain\": \"node1\", \"offset\": 1}", TSYNC_EFORMAT,
                 "map 0: needs exactly one of \"location\", \"domain\" and \"default\" (has 2)");
    expect_error("{\"default\": false, \"offset\": 1}", TSYNC_EFORMAT, "map 0: \"default\" must be true");
    expect_error("{\"location\": 1, \"points\": [[0, 1]], \"offset\": 3}", TSYNC_EFORMAT,
                 "map 0: \"offset\" cannot go with \"points\"");
    expect_error("{\"location\": 1, \"points\": [[0, 1], [2, 3]], \"bounds\": [1]}", TSYNC_EFORMAT,
                 "map 0: \"bounds\" must be a list of 2 integers, one per point");
    expect_error("{\"location\": 1, \"points\": [[0, 1], [2, 3]], \"bounds\": [1, -1]}", TSYNC_EINVAL,
                 "map 0: point 1: error bound -1 is negative");
    expect_error("{\"location\": 1, \"offset\": 1, \"bounds\": [1]}", TSYNC_EFORMAT,
                 "map 0: \"bounds\" goes with \"points\" (use \"bound\")");
    expect_error("{\"location\": -1, \"offset\": 1}", TSYNC_EFORMAT,
                 "map 0: \"location\" must be a location id");
    expect_error("[1]", TSYNC_EFORMAT, "map 0: must be an object");
}

/* Whole-file errors: loads `text` and expects `code` and `expect` after the path. */
static void expect_file_error(const char *text, int code, const char *expect)
{
    char want[8192];
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    tsync_ctx *ctx;
    const char *path = write_file("map_set_file.json", text);
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_map_set_load(&set, path, t, ctx), code);
    assert_null(set);
    snprintf(want, sizeof(want), "%s: %s", path, expect);
    if (!strstr(tsync_ctx_error(ctx), want))
        fail_msg("message \"%s\" does not contain \"%s\"", tsync_ctx_error(ctx), want);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

static void test_file_errors(void **state)
{
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    tsync_ctx *ctx;
    (void)state;
    /* A missing comma at the end of line 3. */
    expect_file_error("{\n  \"format\": \"tracesync-maps\",\n  \"version\": 1\n  \"maps\": []\n}\n",
                      TSYNC_EFORMAT, "line 4, column ");
    expect_file_error("{\"format\": \"tracesync-maps\", \"version\": 1, \"maps\": [], \"maps\": []}",
                      TSYNC_EFORMAT, "line 1");
    expect_file_error(HEAD "]", TSYNC_EFORMAT, "line 1");
    expect_file_error("{\"format\": \"tracesync-maps\", \"version\": 1, \"timer_resolution\": 1000000, "
                      "\"maps\": []}", TSYNC_EINVAL,
                      "timer_resolution 1000000 differs from the trace's 1000000000 ticks per second");
    expect_file_error("{\"format\": \"tracesync-maps\", \"version\": 2, \"maps\": []}", TSYNC_EUNSUPPORTED,
                      "version 2 is not supported");
    expect_file_error("{\"format\": \"other\", \"version\": 1, \"maps\": []}", TSYNC_EFORMAT,
                      "not a tracesync-maps file");
    expect_file_error("[]", TSYNC_EFORMAT, "not a tracesync-maps file");
    expect_file_error("{\"format\": \"tracesync-maps\", \"version\": 1, \"map\": []}", TSYNC_EFORMAT,
                      "unknown key \"map\"");
    expect_file_error("{\"format\": \"tracesync-maps\", \"version\": 1}", TSYNC_EFORMAT,
                      "\"maps\" must be a list");

    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_map_set_load(&set, tmp_path("map_set_missing.json"), t, ctx), TSYNC_EIO);
    assert_null(set);
    assert_non_null(strstr(tsync_ctx_error(ctx), "map_set_missing.json"));
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

static void assert_same_maps(const tsync_map_set *a, const tsync_map_set *b)
{
    for (tsync_loc i = 0; i < 4; i++) {
        const tsync_time_map *ma = tsync_map_set_get(a, i), *mb = tsync_map_set_get(b, i);
        if (!ma) {
            assert_null(mb);
            continue;
        }
        assert_non_null(mb);
        assert_int_equal(tsync_time_map_kind(ma), tsync_time_map_kind(mb));
        assert_true(tsync_time_map_drift(ma) == tsync_time_map_drift(mb));
        assert_int_equal(tsync_time_map_point_count(ma), tsync_time_map_point_count(mb));
        if (tsync_time_map_bounds(ma))
            assert_memory_equal(tsync_time_map_bounds(ma), tsync_time_map_bounds(mb),
                                tsync_time_map_point_count(ma) * sizeof(int64_t));
        else
            assert_null(tsync_time_map_bounds(mb));
        for (tsync_time x = -5000000; x <= 5000000; x += 997)
            assert_int_equal(tsync_time_map_eval(ma, x), tsync_time_map_eval(mb, x));
        assert_int_equal(tsync_time_map_eval(ma, INT64_MAX / 2), tsync_time_map_eval(mb, INT64_MAX / 2));
    }
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = calloc(1, 1 << 16);
    assert_non_null(f);
    assert_non_null(buf);
    assert_true(fread(buf, 1, (1 << 16) - 1, f) > 0);
    fclose(f);
    return buf;
}

static void test_round_trip(void **state)
{
    const char *in = write_file("map_set_rt_in.json", HEAD
        "{\"domain\": \"node1\", \"offset\": -25000},"
        "{\"location\": 2, \"offset\": 1200, \"drift\": 1.5e-6, \"origin\": 7, \"bound\": 9},"
        "{\"location\": 3, \"points\": [[0, 100], [1000000, 1000150], [4611686018427387904, "
        "4611686018427398904]], \"bounds\": [1, 2, 3]}]}");
    char out[4096], tmp[4200];
    tsync_trace *t = make_trace();
    tsync_map_set *a = NULL, *b = NULL, *empty = NULL;
    tsync_ctx *ctx;
    char *text;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_map_set_load(&a, in, t, ctx), 0);
    snprintf(out, sizeof(out), "%s", tmp_path("map_set_rt_out.json"));
    if (tsync_map_set_save(a, t, out, ctx))
        fail_msg("%s", tsync_ctx_error(ctx));
    if (tsync_map_set_load(&b, out, t, ctx))
        fail_msg("%s", tsync_ctx_error(ctx));
    assert_same_maps(a, b);

    /* The written text: one map per location, by id, drift in its shortest form. */
    text = read_all(out);
    assert_non_null(strstr(text, "\"format\": \"tracesync-maps\""));
    assert_non_null(strstr(text, "\"timer_resolution\": 1000000000"));
    assert_non_null(strstr(text, "{\"location\": 0, \"name\": \"rank 0\", \"offset\": -25000}"));
    assert_non_null(strstr(text, "{\"location\": 1, \"name\": \"rank 1\", \"offset\": -25000}"));
    assert_true(strstr(text, "\"offset\": 1200, \"drift\": 1.5e-6, \"origin\": 7, \"bound\": 9}") ||
                strstr(text, "\"offset\": 1200, \"drift\": 1.5e-06, \"origin\": 7, \"bound\": 9}"));
    assert_non_null(strstr(text, "\"bounds\": [1, 2, 3]"));
    free(text);

    /* Saving again from the reloaded set gives the same file. */
    tsync_map_set_free(a);
    a = b;
    b = NULL;
    snprintf(tmp, sizeof(tmp), "%s", tmp_path("map_set_rt_out2.json"));
    assert_int_equal(tsync_map_set_save(a, t, tmp, ctx), 0);
    {
        char *x = read_all(out), *y = read_all(tmp);
        assert_string_equal(x, y);
        free(x);
        free(y);
    }

    /* An empty set writes an empty list, which reads back. */
    assert_int_equal(tsync_map_set_new_empty(&empty, t, ctx), 0);
    assert_int_equal(tsync_map_set_save(empty, t, out, ctx), 0);
    assert_int_equal(tsync_map_set_load(&b, out, t, ctx), 0);
    assert_same_maps(empty, b);

    /* Writing where no directory can be made (below a file) fails and leaves
     * nothing; a missing directory is made, as for every output. */
    snprintf(tmp, sizeof(tmp), "%s/maps.json", out);
    assert_int_equal(tsync_map_set_save(a, t, tmp, ctx), TSYNC_EIO);
    snprintf(tmp, sizeof(tmp), "%s", tmp_path("map_set_new_dir/maps.json"));
    assert_int_equal(tsync_map_set_save(a, t, tmp, ctx), 0);
    assert_int_equal(access(tmp, F_OK), 0);

    tsync_map_set_free(a);
    tsync_map_set_free(b);
    tsync_map_set_free(empty);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

static void test_json_embedding(void **state)
{
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    tsync_time_map *m = NULL;
    json_t *j;
    (void)state;
    assert_int_equal(tsync_map_set_new_empty(&set, t, NULL), 0);
    assert_int_equal(tsync_time_map_new_offset(&m, 42, NULL), 0);
    assert_int_equal(tsync_map_set_assign(set, 1, m, NULL), 0);
    j = tsync__map_set_to_json(set, t, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "format")), "tracesync-maps");
    assert_int_equal(json_array_size(json_object_get(j, "maps")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "maps"), 0),
                                                        "offset")), 42);
    json_decref(j);
    tsync_map_set_free(set);
    tsync_trace_free(t);
}

/* An entry's text, points and bounds written directly, is what jansson writes for
 * the entry of the document: maps of points with and without bounds, an offset, a
 * drift. */
static void test_entry_text(void **state)
{
    const size_t flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12);
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    tsync_time_map *m[4] = { NULL, NULL, NULL, NULL };
    tsync_time local[500], global[500];
    int64_t bounds[500];
    json_t *j;
    (void)state;
    for (int i = 0; i < 500; i++) {
        local[i] = -3000000000000ll + 7919ll * i * i;
        global[i] = local[i] + 12345678 - i;
        bounds[i] = i % 7 ? i * 1000003ll : INT64_MAX;
    }
    assert_int_equal(tsync_map_set_new_empty(&set, t, NULL), 0);
    assert_int_equal(tsync_time_map_new_points(&m[0], local, global, 500, NULL), 0);
    assert_int_equal(tsync_time_map_set_bounds(m[0], bounds, 500, NULL), 0);
    assert_int_equal(tsync_time_map_new_points(&m[1], local, global, 1, NULL), 0);
    assert_int_equal(tsync_time_map_new_offset(&m[2], -42, NULL), 0);
    assert_int_equal(tsync_time_map_set_bounds(m[2], bounds + 3, 1, NULL), 0);
    assert_int_equal(tsync_time_map_new_drift(&m[3], 7, 1.25e-7, 99, NULL), 0);
    for (uint32_t loc = 0; loc < 4; loc++)
        assert_int_equal(tsync_map_set_assign(set, loc, m[loc], NULL), 0);
    assert_int_equal(tsync__map_set_writable(set, t, NULL), 0);
    assert_non_null(j = tsync__map_set_to_json(set, t, NULL));
    for (uint32_t loc = 0; loc < 4; loc++) {
        struct tsync__text text = { NULL, 0, 0, 0 };
        char *want = json_dumps(json_array_get(json_object_get(j, "maps"), loc), flags);
        tsync__map_entry_text(&text, t, loc, m[loc], flags);
        assert_false(text.bad);
        assert_string_equal(text.s, want);
        free(want);
        tsync__text_free(&text);
    }
    json_decref(j);
    tsync_map_set_free(set);
    tsync_trace_free(t);
}

static void test_assign(void **state)
{
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    tsync_time_map *shared = NULL, *other = NULL, *lost = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_map_set_new_empty(&set, t, ctx), 0);
    assert_int_equal(tsync_time_map_new_offset(&shared, 10, ctx), 0);
    assert_int_equal(tsync_time_map_new_drift(&other, 0, 1e-6, 0, ctx), 0);
    assert_int_equal(tsync_time_map_new_offset(&lost, 1, ctx), 0);
    /* One map on three locations, then replaced on two of them. */
    assert_int_equal(tsync_map_set_assign(set, 0, shared, ctx), 0);
    assert_int_equal(tsync_map_set_assign(set, 1, shared, ctx), 0);
    assert_int_equal(tsync_map_set_assign(set, 2, shared, ctx), 0);
    assert_int_equal(tsync_map_set_assign(set, 2, shared, ctx), 0); /* the same again */
    assert_int_equal(tsync_map_set_assign(set, 0, other, ctx), 0);
    assert_int_equal(tsync_map_set_assign(set, 1, other, ctx), 0);
    assert_ptr_equal(tsync_map_set_get(set, 2), shared);
    assert_ptr_equal(tsync_map_set_get(set, 1), other);
    assert_null(tsync_map_set_get(set, 3));
    /* Out of range: the map is taken (freed) anyway. */
    assert_int_equal(tsync_map_set_assign(set, 4, lost, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "location index 4 is out of range"));
    assert_int_equal(tsync_map_set_assign(set, 0, NULL, ctx), TSYNC_EINVAL);
    tsync_map_set_free(set); /* ASan: nothing leaked or freed twice */
    tsync_map_set_free(NULL);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

static void test_apply(void **state)
{
    const char *path = write_file("map_set_apply.json", HEAD
        "{\"location\": 0, \"offset\": -25000},"
        "{\"location\": 1, \"offset\": 0, \"drift\": 0.5, \"origin\": 1},"
        "{\"location\": 2, \"points\": [[2, 2], [500002, 1000002], [999002, 1000012]]}]}");
    tsync_trace *t = make_trace();
    tsync_map_set *set = NULL;
    tsync_timeline *tl = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_map_set_load(&set, path, t, ctx), 0);
    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    tsync_timeline_times(tl, 3)[5] = -1; /* overwritten with the raw time */
    if (tsync_map_set_apply(set, t, tl, ctx))
        fail_msg("%s", tsync_ctx_error(ctx));
    for (uint64_t j = 0; j < EVENTS; j++) {
        tsync_time raw0 = t->locations[0].time[j], raw1 = t->locations[1].time[j];
        tsync_time raw2 = t->locations[2].time[j], raw3 = t->locations[3].time[j];
        assert_int_equal(tsync_timeline_times(tl, 0)[j], raw0 - 25000);
        assert_int_equal(tsync_timeline_times(tl, 1)[j], raw1 + (raw1 - 1) / 2); /* 500 j: exact */
        assert_int_equal(tsync_timeline_times(tl, 2)[j],
                         tsync_time_map_eval(tsync_map_set_get(set, 2), raw2));
        assert_int_equal(tsync_timeline_times(tl, 3)[j], raw3);
    }
    assert_int_equal(tsync_timeline_times(tl, 2)[500], 1000002);     /* 500002 */
    assert_int_equal(tsync_timeline_times(tl, 2)[999], 1000012);     /* 999002 */
    assert_int_equal(tsync_timeline_times(tl, 2)[250], 500002);      /* 250002 */
    assert_int_equal(tsync_timeline_times(tl, 2)[750], 1000002 + 5); /* 750002 */

    /* A map broken behind the constructor's back is caught, naming location and event. */
    {
        struct tsync_time_map *m = (struct tsync_time_map *)tsync_map_set_get(set, 2);
        m->global[2] = 0; /* the second segment now goes down */
        assert_int_equal(tsync_map_set_apply(set, t, tl, ctx), TSYNC_EINCONSISTENT);
        assert_non_null(strstr(tsync_ctx_error(ctx), "test.otf2: location 2 (rank 2): event "));
        assert_non_null(strstr(tsync_ctx_error(ctx), "not monotone"));
    }

    /* Set and timeline of another trace. */
    {
        tsync_trace *t3 = make_trace();
        tsync_map_set *s3 = NULL;
        t3->n_locations = 3; /* pretend; restored before freeing */
        assert_int_equal(tsync_map_set_new_empty(&s3, t3, ctx), 0);
        t3->n_locations = 4;
        assert_int_equal(tsync_map_set_apply(s3, t, tl, ctx), TSYNC_EINVAL);
        tsync_map_set_free(s3);
        tsync_trace_free(t3);
    }
    tsync_timeline_free(tl);
    tsync_map_set_free(set);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_example),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_json_embedding),
        cmocka_unit_test(test_entry_text),
        cmocka_unit_test(test_assign),
        cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
