/* test_eval.c - scoring against the truth (src/metrics/eval.c, src/report/report_eval.c):
 * truth against itself is zero, a shifted copy is zero after the median, errors and
 * percentiles on hand-made archives, different timer resolutions, reversed messages,
 * changed event order, events that do not correspond, the JSON keys, and a simulated
 * trace scored against its truth giving exactly the injected clock errors. Relative
 * to the time axis: a time axis bent by one smooth function (a quadratic, a
 * sinusoid) common to all locations is no error there, within a bound computed
 * from its curvature; one location 5 us off the others keeps its 5 us; the bin
 * option, its cap on the number of bins, and bad values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "io/otf2_build.h"
#include "trace/trace.h"
#include "tracesync/eval.h"
#include "tracesync/sim.h"
#include "util/fs.h"

static tsync_ctx *ctx;

/* ---- archives from a list of records -------------------------------------------- */

enum rec_kind { R_ENTER, R_LEAVE, R_SEND, R_RECV };

struct rec {
    uint32_t rank;
    int64_t time;
    enum rec_kind kind;
    uint32_t peer;
};

/* Writes $TSYNC_TEST_TMP/eval/<name>/traces.otf2: ranks 0 and 1 on node a, 2 on b. */
static tsync_trace *archive(const char *name, uint64_t res, const struct rec *r, size_t n)
{
    static const char *const nodes[] = { "a", "b" };
    static const uint32_t rank_node[] = { 0, 0, 1 };
    const char *tmp = getenv("TSYNC_TEST_TMP");
    char dir[4096], anchor[4200];
    struct tsync_otf2_build_layout l;
    struct tsync_otf2_builder *b;
    tsync_trace *t = NULL;
    snprintf(dir, sizeof(dir), "%s/eval/%s", tmp && *tmp ? tmp : "/tmp/tsync-test", name);
    tsync__remove_tree(dir);
    snprintf(anchor, sizeof(anchor), "%s/traces.otf2", dir);
    memset(&l, 0, sizeof(l));
    l.anchor = anchor;
    l.timer_resolution = res;
    l.n_nodes = 2;
    l.nodes = nodes;
    l.n_ranks = 3;
    l.rank_node = rank_node;
    l.rank_names = true;
    assert_int_equal(tsync__otf2_build_open(&b, &l, ctx), 0);
    for (size_t i = 0; i < n; i++) {
        uint64_t at = (uint64_t)r[i].time;
        switch (r[i].kind) {
        case R_ENTER: assert_int_equal(tsync__otf2_build_enter(b, r[i].rank, at, "f"), 0); break;
        case R_LEAVE: assert_int_equal(tsync__otf2_build_leave(b, r[i].rank, at, "f"), 0); break;
        case R_SEND:
            assert_int_equal(tsync__otf2_build_send(b, r[i].rank, at, 0, r[i].peer, 1, 8), 0);
            break;
        case R_RECV:
            assert_int_equal(tsync__otf2_build_recv(b, r[i].rank, at, 0, r[i].peer, 1, 8), 0);
            break;
        }
    }
    assert_int_equal(tsync__otf2_build_close(b), 0);
    assert_int_equal(tsync_trace_open(&t, anchor, NULL, ctx), 0);
    return t;
}

/* A small run in ns: rank 0 sends to 1 (same node) and 2 (other node). `shift`
 * moves every time of rank r by shift[r] ns. */
static tsync_trace *small_run(const char *name, uint64_t res, const int64_t shift[3])
{
    struct rec r[] = {
        { 0, 1000, R_ENTER, 0 }, { 0, 2000, R_SEND, 1 }, { 0, 3000, R_SEND, 2 },
        { 0, 4000, R_LEAVE, 0 },
        { 1, 1500, R_ENTER, 0 }, { 1, 4000, R_RECV, 0 }, { 1, 6000, R_LEAVE, 0 },
        { 2, 1200, R_ENTER, 0 }, { 2, 9000, R_RECV, 0 }, { 2, 9500, R_LEAVE, 0 },
    };
    /* 100 us of headroom keeps shifted times positive. */
    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
        r[i].time = (100000 + r[i].time + shift[r[i].rank]) * (int64_t)res / 1000000000;
    return archive(name, res, r, sizeof(r) / sizeof(r[0]));
}

static tsync_eval_report *eval(const tsync_trace *c, const tsync_trace *t)
{
    tsync_eval_report *r = NULL;
    int rc = tsync_eval_run(&r, c, NULL, t, NULL, ctx);
    if (rc)
        fprintf(stderr, "eval: %s\n", tsync_ctx_error(ctx));
    assert_int_equal(rc, 0);
    return r;
}

static void test_truth_against_itself(void **state)
{
    static const int64_t zero[3] = { 0, 0, 0 };
    tsync_trace *t = small_run("self", 1000000000, zero);
    tsync_eval_report *r = eval(t, t);
    (void)state;
    assert_int_equal(r->events, 10);
    assert_int_equal(r->locations, 3);
    assert_true(r->offset_s == 0 && r->max_abs_error_s == 0 && r->p99_abs_error_s == 0 &&
                r->mean_abs_error_s == 0);
    assert_true(r->relative_max_abs_error_s == 0 && r->relative_p99_abs_error_s == 0 &&
                r->relative_mean_abs_error_s == 0 && r->relative_bin_s == 1.0);
    assert_int_equal(r->messages, 2);
    assert_int_equal(r->reversed + r->violations, 0);
    assert_int_equal(r->order_changed, 0);
    assert_true(r->position.avg == 0 && r->distance.max == 0);
    tsync_eval_report_free(r);
    tsync_trace_free(t);
}

/* Every clock shifted by the same amount: no error after the median. One clock
 * shifted: the error is that clock's shift, and the message into it reverses. */
static void test_shifts(void **state)
{
    static const int64_t zero[3] = { 0, 0, 0 }, all[3] = { 500, 500, 500 }, one[3] = { 0, 0, -7000 };
    tsync_trace *t = small_run("truth", 1000000000, zero);
    tsync_trace *c = small_run("all", 1000000000, all);
    tsync_eval_report *r = eval(c, t);
    (void)state;
    assert_true(fabs(r->offset_s - 500e-9) < 1e-18);
    assert_true(r->max_abs_error_s == 0 && r->mean_abs_error_s == 0);
    assert_int_equal(r->reversed, 0);
    tsync_eval_report_free(r);
    tsync_trace_free(c);

    /* 7 of 10 events are right, so the median is 0 and rank 2 is off by 7 us. */
    c = small_run("one", 1000000000, one);
    r = eval(c, t);
    assert_true(r->offset_s == 0);
    assert_true(fabs(r->max_abs_error_s - 7e-6) < 1e-18);
    assert_true(fabs(r->mean_abs_error_s - 3 * 7e-6 / 10) < 1e-18);
    assert_true(fabs(r->p99_abs_error_s - 7e-6) < 1e-18);
    assert_true(r->per_location[0].max_abs_error_s == 0);
    assert_true(fabs(r->per_location[2].mean_abs_error_s - 7e-6) < 1e-18);
    assert_int_equal(r->per_location[2].events, 3);
    /* All ten events in one bin: c is the median there, 0, and rank 2 keeps its
     * 7 us relative to the time axis too. */
    assert_true(fabs(r->relative_max_abs_error_s - 7e-6) < 1e-18);
    assert_true(fabs(r->per_location[2].relative_mean_abs_error_s - 7e-6) < 1e-18);
    assert_true(r->per_location[0].relative_max_abs_error_s == 0);
    /* 0 -> 2 sent at 3000, received at 9000 - 7000 = 2000: reversed. */
    assert_int_equal(r->reversed, 1);
    assert_int_equal(r->violations, 1);
    assert_int_equal(r->order_changed, 0);
    /* Rank 2's intervals are unchanged: shifting is no local deviation. */
    assert_true(r->distance.max == 0);
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);
}

/* A corrected trace at 1 us resolution against a truth in ns. */
static void test_resolutions(void **state)
{
    static const int64_t zero[3] = { 0, 0, 0 }, one[3] = { 0, 2000, 0 };
    tsync_trace *t = small_run("truth-ns", 1000000000, zero);
    tsync_trace *c = small_run("corr-us", 1000000, one);
    tsync_eval_report *r = eval(c, t);
    (void)state;
    assert_int_equal(r->corrected_resolution, 1000000);
    assert_int_equal(r->truth_resolution, 1000000000);
    /* Times like 1500 ns floor to 1 us: errors up to -0.5 us from the resolution;
     * rank 1 is 2 us late on top. */
    assert_true(fabs(r->per_location[1].max_abs_error_s - 2e-6) <= 0.5e-6 + 1e-15);
    assert_true(r->per_location[1].max_abs_error_s >= 1.5e-6 - 1e-15);
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);
}

/* The 99th percentile by nearest rank, on 200 events of one location. */
static void test_percentile(void **state)
{
    struct rec tr[200], cr[200];
    tsync_trace *t, *c;
    tsync_eval_report *r;
    (void)state;
    for (int i = 0; i < 200; i++) {
        tr[i] = (struct rec){ 0, 1000 * (int64_t)i, i % 2 ? R_LEAVE : R_ENTER, 0 };
        cr[i] = tr[i];
        /* Errors 0 .. 199 ns, in a scrambled order; the events stay in order. */
        cr[i].time += (i * 37) % 200;
    }
    t = archive("p-truth", 1000000000, tr, 200);
    c = archive("p-corr", 1000000000, cr, 200);
    r = eval(c, t);
    /* Lower median of 0..199 is 99; |e - 99| has the values 0..100 (and 1..99 twice). */
    assert_true(fabs(r->offset_s - 99e-9) < 1e-18);
    assert_true(fabs(r->max_abs_error_s - 100e-9) < 1e-18);
    /* Sorted |e|: 0, 1, 1, ..., 99, 99, 100: rank ceil(198) = 198 is 99. */
    assert_true(fabs(r->p99_abs_error_s - 99e-9) < 1e-18);
    assert_true(fabs(r->mean_abs_error_s - 50e-9) < 1e-18);
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);
}

/* Ten records against the truth `t`: the order changed first at (location, event). */
static void expect_order_change(const tsync_trace *t, const char *name, const struct rec *recs,
                                uint64_t location, uint64_t event)
{
    tsync_trace *c = archive(name, 1000000000, recs, 10);
    tsync_eval_report *r = eval(c, t);
    assert_int_equal(r->order_changed, 1);
    assert_int_equal(r->order_location, location);
    assert_int_equal(r->order_event, event);
    tsync_eval_report_free(r);
    tsync_trace_free(c);
}

static void test_mismatch(void **state)
{
    static const int64_t zero[3] = { 0, 0, 0 };
    struct rec fewer[] = { { 0, 1000, R_ENTER, 0 }, { 1, 1000, R_ENTER, 0 }, { 2, 1000, R_ENTER, 0 } };
    struct rec swapped[] = {
        { 0, 1000, R_ENTER, 0 }, { 0, 2000, R_SEND, 2 }, { 0, 3000, R_SEND, 1 },
        { 0, 4000, R_LEAVE, 0 },
        { 1, 1500, R_ENTER, 0 }, { 1, 4000, R_RECV, 0 }, { 1, 6000, R_LEAVE, 0 },
        { 2, 1200, R_ENTER, 0 }, { 2, 9000, R_RECV, 0 }, { 2, 9500, R_LEAVE, 0 },
    };
    struct rec kinds[] = {
        { 0, 1000, R_ENTER, 0 }, { 0, 2000, R_SEND, 1 }, { 0, 3000, R_SEND, 2 },
        { 0, 4000, R_LEAVE, 0 },
        { 1, 1500, R_ENTER, 0 }, { 1, 4000, R_RECV, 0 }, { 1, 6000, R_LEAVE, 0 },
        { 2, 1200, R_ENTER, 0 }, { 2, 1300, R_LEAVE, 0 }, { 2, 9000, R_RECV, 0 },
    };
    tsync_trace *t = small_run("m-truth", 1000000000, zero), *c;
    tsync_eval_report *r = NULL;
    (void)state;
    c = archive("m-fewer", 1000000000, fewer, 3);
    assert_int_equal(tsync_eval_run(&r, c, NULL, t, NULL, ctx), TSYNC_EINVAL);
    assert_null(r);
    assert_non_null(strstr(tsync_ctx_error(ctx), "location 0 (Rank 0): 1 events in the corrected"));
    assert_non_null(strstr(tsync_ctx_error(ctx), "4 in the truth"));
    tsync_trace_free(c);

    /* Sends to 1 and 2 swapped: same kinds, other partners. */
    expect_order_change(t, "m-swapped", swapped, 0, 1);
    /* Rank 2 leaves before it receives. */
    expect_order_change(t, "m-kinds", kinds, 2, 1);
    tsync_trace_free(t);
}

/* The JSON report has the keys the CLI promises, and the text has units. */
static void test_report_output(void **state)
{
    static const int64_t zero[3] = { 0, 0, 0 }, one[3] = { 0, 0, -7000 };
    static const char *const keys[] = { "events", "max_abs_error_s", "p99_abs_error_s",
                                        "mean_abs_error_s", "reversed", "violations",
                                        "per_location", "order_changed", "deviation", "offset_s",
                                        "relative_max_abs_error_s", "relative_p99_abs_error_s",
                                        "relative_mean_abs_error_s", "relative_bin_s" };
    tsync_trace *t = small_run("j-truth", 1000000000, zero), *c = small_run("j-corr", 1000000000, one);
    tsync_eval_report *r = eval(c, t);
    char *text = tsync_eval_report_json(r, c, t), buf[8192];
    json_error_t err;
    json_t *doc;
    FILE *f;
    (void)state;
    assert_non_null(text);
    doc = json_loads(text, 0, &err);
    assert_non_null(doc);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        assert_non_null(json_object_get(doc, keys[i]));
    assert_int_equal(json_integer_value(json_object_get(doc, "events")), 10);
    assert_int_equal(json_integer_value(json_object_get(doc, "reversed")), 1);
    assert_int_equal(json_array_size(json_object_get(doc, "per_location")), 3);
    assert_non_null(json_object_get(json_object_get(doc, "deviation"), "distance"));
    assert_true(json_real_value(json_object_get(doc, "relative_bin_s")) == 1.0);
    {
        json_t *l2 = json_array_get(json_object_get(doc, "per_location"), 2);
        assert_true(fabs(json_real_value(json_object_get(l2, "relative_max_abs_error_s")) - 7e-6) <
                    1e-15);
        assert_non_null(json_object_get(l2, "relative_p99_abs_error_s"));
        assert_non_null(json_object_get(l2, "relative_mean_abs_error_s"));
    }
    json_decref(doc);
    free(text);
    f = fmemopen(buf, sizeof(buf), "w");
    assert_non_null(f);
    tsync_eval_report_print(r, c, t, f);
    fclose(f);
    assert_non_null(strstr(buf, "max 7 us"));
    assert_non_null(strstr(buf, "reversed             1"));
    assert_non_null(strstr(buf, "relative to the time axis: max 7 us"));
    assert_non_null(strstr(buf, "bins of 1 s"));
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);
}

/* An uncorrected simulated trace against its truth: the errors are exactly the
 * clocks' readings minus the true times, less their median. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_simulated(void **state)
{
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
    const char *tmp = getenv("TSYNC_TEST_TMP");
    char dir[4096], path[4200];
    tsync_trace *c, *t;
    tsync_eval_report *r;
    int64_t *e, med, max = 0;
    double sum = 0;
    size_t n = 0;
    (void)state;
    assert_int_equal(tsync_sim_scenario(&o, "smoke", ctx), 0);
    o.seed = 4;
    snprintf(dir, sizeof(dir), "%s/eval/sim", tmp && *tmp ? tmp : "/tmp/tsync-test");
    assert_int_equal(tsync_sim_run(NULL, &o, dir, ctx), 0);
    snprintf(path, sizeof(path), "%s/trace.otf2", dir);
    assert_int_equal(tsync_trace_open(&c, path, NULL, ctx), 0);
    snprintf(path, sizeof(path), "%s/truth.otf2", dir);
    assert_int_equal(tsync_trace_open(&t, path, NULL, ctx), 0);
    r = eval(c, t);
    e = malloc(r->events * sizeof(*e));
    assert_non_null(e);
    for (uint32_t i = 0; i < t->n_locations; i++)
        for (uint64_t k = 0; k < t->locations[i].n_events; k++, n++)
            e[n] = c->locations[i].time[k] - t->locations[i].time[k];
    qsort(e, n, sizeof(*e), cmp_i64);
    med = e[(n - 1) / 2];
    for (size_t i = 0; i < n; i++) {
        int64_t a = llabs(e[i] - med);
        max = a > max ? a : max;
        sum += (double)a;
    }
    assert_true(r->offset_s == (double)med / 1e9);
    assert_true(r->max_abs_error_s == (double)max / 1e9);
    assert_true(fabs(r->mean_abs_error_s - sum / (double)n / 1e9) < 1e-15);
    /* Two nodes with offsets of a few ms: the error is their difference. */
    assert_true(r->max_abs_error_s > 1e-4);
    assert_int_equal(r->order_changed, 0);
    assert_true(r->reversed > 0);
    free(e);
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);
}

/* ---- relative to the time axis ---------------------------------------------------- */

/* A run of 60 s in ns: each of the 3 ranks enters and leaves every STEP_NS, the
 * ranks staggered by a third of that, starting at 1.6 s of true time (so that the
 * first and last bins of 1 s are only partly filled: c's points there must sit
 * where the events are, not at the bins' centers). The truth, and
 * a "corrected" copy whose times are truth + axis(u) + shift[rank] rounded to the
 * nanosecond, u the true time in seconds since the start: a time axis bent by one
 * function common to all locations, and a per-rank offset on top. */
#define RUN_S 60
#define RUN_START_NS 1600000000
#define STEP_NS 2000000
#define RUN_EVENTS (RUN_S * (1000000000 / STEP_NS))

typedef double (*axis_fn)(double u);

static void bent_run(tsync_trace **truth, tsync_trace **corrected, const char *name, axis_fn axis,
                     const double shift_s[3])
{
    struct rec *tr = malloc(3 * RUN_EVENTS * sizeof(*tr)), *cr = malloc(3 * RUN_EVENTS * sizeof(*cr));
    char tname[64], cname[64];
    size_t n = 0;
    assert_non_null(tr);
    assert_non_null(cr);
    for (uint32_t rank = 0; rank < 3; rank++)
        for (int64_t k = 0; k < RUN_EVENTS; k++, n++) {
            int64_t at = RUN_START_NS + k * STEP_NS + (int64_t)rank * (STEP_NS / 3);
            double u = (double)(at - RUN_START_NS) * 1e-9;
            tr[n] = (struct rec){ rank, at, k % 2 ? R_LEAVE : R_ENTER, 0 };
            cr[n] = tr[n];
            cr[n].time = at + (int64_t)llround((axis(u) + shift_s[rank]) * 1e9);
        }
    snprintf(tname, sizeof(tname), "%s-truth", name);
    snprintf(cname, sizeof(cname), "%s-corr", name);
    *truth = archive(tname, 1000000000, tr, n);
    *corrected = archive(cname, 1000000000, cr, n);
    free(tr);
    free(cr);
}

static tsync_eval_report *eval_bin(const tsync_trace *c, const tsync_trace *t, double bin_s)
{
    tsync_eval_opts o = TSYNC_EVAL_OPTS_INIT;
    tsync_eval_report *r = NULL;
    int rc;
    o.bin_s = bin_s;
    rc = tsync_eval_run(&r, c, NULL, t, &o, ctx);
    if (rc)
        fprintf(stderr, "eval: %s\n", tsync_ctx_error(ctx));
    assert_int_equal(rc, 0);
    return r;
}

/* The bound on |corrected - true - c(true)| when the axis is a smooth function f
 * with |f''| <= curv (1/s) and the bins are w seconds wide, in seconds:
 *  - rounding: the event's own time 0.5 ns, and each point of c, a median of
 *    rounded values, 0.5 ns from the median of the unrounded ones; a line through
 *    two points continued by up to half its length (the first and last half bin)
 *    doubles the points' error: 0.5 + 2 x 0.5 = 1.5 ns;
 *  - curvature: a chord between points w apart is within curv w^2 / 8 of f; the
 *    line continued by w / 2 beyond its points within curv (w/2)(3w/2) / 2 =
 *    3 curv w^2 / 8; the refinement of the points (medians of residuals that vary
 *    by up to curv w^2 / 8 within a bin) moves them by at most that much: in all
 *    curv w^2 / 2. (The median of an even count averages two neighbors 2/3 ms
 *    apart: curv x (2/3 ms)^2 / 8, far below a nanosecond here.) */
static double axis_bound(double curv, double w)
{
    return 1.5e-9 + curv * w * w / 2;
}

/* 3 ms + 10 ppm of skew + a drift changing by 0.04 ppm/s: |f''| = 4e-8 / s. */
#define QUAD_CURV 4e-8
static double quadratic(double u)
{
    return 3e-3 + 10e-6 * u + 0.5 * QUAD_CURV * u * u;
}

#define PI 3.14159265358979323846

/* 200 us of wander with a period of 40 s: |f''| <= 200e-6 (2 pi / 40)^2 / s. */
#define SINE_AMP 200e-6
#define SINE_PERIOD 40.0
static double sinusoid(double u)
{
    return SINE_AMP * sin(2 * PI * u / SINE_PERIOD);
}

static void test_relative_bent_axis(void **state)
{
    static const double none[3] = { 0, 0, 0 };
    double curv = SINE_AMP * (2 * PI / SINE_PERIOD) * (2 * PI / SINE_PERIOD);
    tsync_trace *t, *c;
    tsync_eval_report *r;
    (void)state;

    bent_run(&t, &c, "quad", quadratic, none);
    r = eval(c, t);
    /* After the constant: the skew alone leaves some 300 us at the ends. */
    assert_true(r->max_abs_error_s > 2.5e-4);
    assert_true(r->relative_bin_s == 1.0);
    assert_true(r->relative_max_abs_error_s <= axis_bound(QUAD_CURV, 1.0));
    assert_true(r->relative_mean_abs_error_s <= r->relative_max_abs_error_s);
    for (int i = 0; i < 3; i++)
        assert_true(r->per_location[i].relative_max_abs_error_s <= axis_bound(QUAD_CURV, 1.0));
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);

    /* The sinusoid bends within a second by far more (curv w^2 / 2 = 2.5 us at
     * 1 s): bins of 100 ms. */
    bent_run(&t, &c, "sine", sinusoid, none);
    r = eval_bin(c, t, 0.1);
    assert_true(r->max_abs_error_s > 1.5e-4);
    assert_true(r->relative_bin_s == 0.1);
    assert_true(r->relative_max_abs_error_s <= axis_bound(curv, 0.1));
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);
}

/* Rank 2 is 5 us off the others: relative to the axis it keeps its 5 us, and the
 * others stay near 0. The bin's plain median would not do: the axis moves by 10 us
 * within a bin, so a third of the values 5 us higher lift the median of the bin by
 * 5/3 us (eval.c, "Refinement"). */
static void test_relative_one_off(void **state)
{
    static const double off[3] = { 0, 0, 5e-6 };
    double bound = axis_bound(QUAD_CURV, 1.0);
    tsync_trace *t, *c;
    tsync_eval_report *r;
    (void)state;
    bent_run(&t, &c, "off", quadratic, off);
    r = eval(c, t);
    fprintf(stderr, "DBG rel max %.3e | %.3e %.3e %.3e\n", r->relative_max_abs_error_s, r->per_location[0].relative_max_abs_error_s, r->per_location[1].relative_max_abs_error_s, r->per_location[2].relative_mean_abs_error_s);
    assert_true(r->max_abs_error_s > 2.5e-4);
    assert_true(r->per_location[0].relative_max_abs_error_s <= bound);
    assert_true(r->per_location[1].relative_max_abs_error_s <= bound);
    assert_true(fabs(r->per_location[2].relative_mean_abs_error_s - 5e-6) <= bound);
    assert_true(fabs(r->per_location[2].relative_max_abs_error_s - 5e-6) <= bound);
    assert_true(fabs(r->per_location[2].relative_p99_abs_error_s - 5e-6) <= bound);
    assert_true(fabs(r->relative_max_abs_error_s - 5e-6) <= bound);
    assert_true(fabs(r->relative_mean_abs_error_s - 5e-6 / 3) <= bound);
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);
}

/* A bin of 1 ns over 60 s would be 6 x 10^10 bins: widened to at most
 * TSYNC_EVAL_MAX_BINS. Bad bins are refused; version 1 options get 1 s. */
static void test_relative_bins(void **state)
{
    static const double none[3] = { 0, 0, 0 };
    tsync_eval_opts o = TSYNC_EVAL_OPTS_INIT;
    tsync_trace *t, *c;
    tsync_eval_report *r = NULL;
    double range = RUN_S - STEP_NS * 1e-9 / 3 * 2; /* last event of rank 2 */
    (void)state;
    bent_run(&t, &c, "bins", quadratic, none);
    r = eval_bin(c, t, 1e-9);
    assert_true(r->relative_bin_s >= range / TSYNC_EVAL_MAX_BINS);
    assert_true(r->relative_bin_s < 2 * range / TSYNC_EVAL_MAX_BINS);
    /* At most one event per bin: c passes through every event. */
    assert_true(r->relative_max_abs_error_s < 1e-12);
    tsync_eval_report_free(r);
    r = NULL;

    o.bin_s = 0;
    assert_int_equal(tsync_eval_run(&r, c, NULL, t, &o, ctx), TSYNC_EINVAL);
    assert_null(r);
    assert_non_null(strstr(tsync_ctx_error(ctx), "bin"));
    o.bin_s = NAN;
    assert_int_equal(tsync_eval_run(&r, c, NULL, t, &o, ctx), TSYNC_EINVAL);
    o.version = 1;
    o.bin_s = 0; /* not part of version 1 */
    r = NULL;
    assert_int_equal(tsync_eval_run(&r, c, NULL, t, &o, ctx), 0);
    assert_true(r->relative_bin_s == 1.0);
    tsync_eval_report_free(r);
    tsync_trace_free(c);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truth_against_itself),
        cmocka_unit_test(test_shifts),
        cmocka_unit_test(test_resolutions),
        cmocka_unit_test(test_percentile),
        cmocka_unit_test(test_mismatch),
        cmocka_unit_test(test_report_output),
        cmocka_unit_test(test_simulated),
        cmocka_unit_test(test_relative_bent_axis),
        cmocka_unit_test(test_relative_one_off),
        cmocka_unit_test(test_relative_bins),
    };
    int failed;
    if (tsync_ctx_new(&ctx))
        return 1;
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    tsync_ctx_free(ctx);
    return failed;
}
