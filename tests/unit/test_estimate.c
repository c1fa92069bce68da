/* test_estimate.c - tsync_estimate_run end to end on traces built by hand: the
 * truth within the reported bound on random linear clocks (property test, seed
 * printed), a pair's two directions agreeing, ClockOffset records as samples, exchange samples for the regression,
 * the grouping contradicted by the data, the JSON that `apply` reads, options. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "tracesync/estimate.h"

#include "est_fixture.h"

static const uint32_t TWO_NODES[] = { 0, 1 };

/* ---- random linear clocks ----------------------------------------------------------- */

/* local = offset + (1 + drift) true, per domain. */
struct clock {
    double offset, drift;
};

static tsync_time local_of(const struct clock *c, double truth, int up)
{
    double v = c->offset + (1 + c->drift) * truth;
    return (tsync_time)(up ? ceil(v) : floor(v));
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)rand() / RAND_MAX);
}

/* A trace of `nd` domains (one node each, 1 or 2 locations) on random clocks, with
 * messages of random delays >= the minimum latency plus 2 ticks (for rounding),
 * every domain linked to the next, and events between them. */
static tsync_trace *random_trace(unsigned nd, struct clock *clk, double span)
{
    uint32_t node_of[12], n_loc = 0, first[7];
    struct fx *f;
    for (uint32_t d = 0; d < nd; d++) {
        uint32_t k = 1 + (uint32_t)(rand() % 2);
        first[d] = n_loc;
        for (uint32_t i = 0; i < k; i++)
            node_of[n_loc++] = d;
        clk[d].offset = uniform(-5e6, 5e6);
        clk[d].drift = uniform(-50e-6, 50e-6);
    }
    first[nd] = n_loc;
    f = fx_new(n_loc, node_of, 0);
    for (int m = 0; m < 400; m++) {
        uint32_t a = (uint32_t)(rand() % (int)nd), b;
        tsync_loc s, r;
        double ts = uniform(0, span), delay = 1002 + (rand() % 8 ? uniform(0, 3000)
                                                                 : uniform(0, 3e5));
        if (m < 40) {                       /* a connected chain first */
            a = (uint32_t)(m / 2) % (nd - 1);
            b = a + 1;
            if (m % 2) {
                b = a;
                a = a + 1;
            }
        } else {
            do
                b = (uint32_t)(rand() % (int)nd);
            while (b == a);
        }
        s = first[a] + (tsync_loc)(rand() % (int)(first[a + 1] - first[a]));
        r = first[b] + (tsync_loc)(rand() % (int)(first[b + 1] - first[b]));
        fx_msg(f, s, local_of(&clk[a], ts, 0), r, local_of(&clk[b], ts + delay, 1));
    }
    for (tsync_loc loc = 0; loc < n_loc; loc++)
        for (int k = 0; k < 20; k++)
            fx_event(f, loc, local_of(&clk[node_of[loc]], uniform(-0.1 * span, 1.1 * span), 0));
    return fx_done(f);
}

/* Property: on linear clocks with messages no faster than the minimum latency, the
 * true map lies within the reported bound at every event. */
static void test_truth_within_bound(void **state)
{
    unsigned seed = fx_seed("test_truth_within_bound");
    (void)state;
    for (int round = 0; round < 12; round++) {
        unsigned nd = 2 + (unsigned)(rand() % 5);
        struct clock clk[7];
        tsync_trace *t = random_trace(nd, clk, uniform(1e7, 5e9));
        tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
        tsync_estimate *e;
        uint32_t ref;
        o.global_lsq = round % 3 == 2;
        e = fx_estimate(t, &o, NULL);
        assert_int_equal(tsync_estimate_component_count(e), 1);
        ref = tsync_estimate_component_reference(e, 0);
        for (tsync_loc loc = 0; loc < t->n_locations; loc++) {
            const struct tsync_location *l = &t->locations[loc];
            const tsync_estimate_domain *dom = tsync_estimate_get_domain(e, l->domain);
            assert_int_equal(dom->kind, l->domain == ref ? TSYNC_BOUND_EXACT : TSYNC_BOUND_BOUNDED);
            for (uint64_t i = 0; i < l->n_events; i++) {
                tsync_time x = l->time[i];
                const struct clock *c = &clk[l->domain], *cr = &clk[ref];
                double truth = cr->offset + (1 + cr->drift) * ((double)x - c->offset) / (1 + c->drift);
                double got = (double)tsync_time_map_eval(dom->map, x) -
                             (double)tsync_estimate_component_shift(e, 0);
                double bound = fx_map_bound(dom->map, x);
                if (!(fabs(got - truth) <= bound + 1))
                    fail_msg("seed %u round %d: domain %u at %lld: map %.1f, truth %.1f, "
                             "bound %.1f", seed, round, l->domain, (long long)x, got, truth,
                             bound);
            }
        }
        tsync_estimate_free(e);
        tsync_trace_free(t);
    }
}

/* The true offset of domain `to` at x of domain `from`'s clock, on its clock. */
static double truth_of(const struct clock *clk, uint32_t from, uint32_t to, tsync_time x)
{
    return clk[to].offset + (1 + clk[to].drift) * ((double)x - clk[from].offset) / (1 + clk[from].drift);
}

/* One fit serves both ends of a pair: with either domain as the reference, the
 * truth lies within both maps and, among the messages (beyond them each map's
 * last segment reaches its own domain's events), the two maps are inverses of each
 * other to the ticks they are rounded to, their bounds the same band, one in each
 * clock's ticks (the inverse's divided by the least rate, 1 - max_drift). */
static void test_two_directions(void **state)
{
    unsigned seed = fx_seed("test_two_directions");
    (void)state;
    for (int round = 0; round < 12; round++) {
        struct clock clk[7];
        double span = uniform(1e7, 5e9);
        tsync_trace *t = random_trace(2, clk, span);
        tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
        const tsync_estimate_domain *up, *down;
        tsync_estimate *e[2];
        int64_t shift[2];
        for (uint32_t r = 0; r < 2; r++) {
            o.reference = t->domains[r].name;
            e[r] = fx_estimate(t, &o, NULL);
            shift[r] = tsync_estimate_component_shift(e[r], 0);
        }
        up = tsync_estimate_get_domain(e[0], 1);     /* from the pair's hi side */
        down = tsync_estimate_get_domain(e[1], 0);   /* its lo side */
        assert_int_equal(up->kind, TSYNC_BOUND_BOUNDED);
        assert_int_equal(down->kind, TSYNC_BOUND_BOUNDED);
        assert_int_equal(up->pieces, down->pieces);
        assert_int_equal(up->samples, down->samples);
        for (tsync_loc loc = 0; loc < t->n_locations; loc++) {
            const struct tsync_location *l = &t->locations[loc];
            for (uint64_t i = 0; l->domain == 1 && i < l->n_events; i++) {
                tsync_time x = l->time[i], y = tsync_time_map_eval(up->map, x) - shift[0];
                tsync_time back = tsync_time_map_eval(down->map, y) - shift[1];
                double bu = fx_map_bound(up->map, x), bd = fx_map_bound(down->map, y);
                double at = ((double)x - clk[1].offset) / (1 + clk[1].drift);
                int among = at > 0.1 * span && at < 0.9 * span;
                /* down's bound holds over domain 0's events, where its points are. */
                int covered = y >= tsync_time_map_local(down->map)[0] &&
                              y <= tsync_time_map_local(down->map)[tsync_time_map_point_count(down->map) - 1];
                if ((among && (llabs(back - x) > 2 ||
                               fabs((bu - 1) * (1 - o.max_drift) - (bd - 1)) > 3)) ||
                    !(fabs((double)y - truth_of(clk, 1, 0, x)) <= bu + 1) ||
                    (covered && !(fabs((double)back - truth_of(clk, 0, 1, y)) <= bd + 1)))
                    fail_msg("seed %u round %d: at %lld: %lld on the other clock (truth %.1f, "
                             "bound %.1f), back at %lld (truth %.1f, bound %.1f)", seed, round,
                             (long long)x, (long long)y, truth_of(clk, 1, 0, x), bu,
                             (long long)back, truth_of(clk, 0, 1, y), bd);
            }
        }
        tsync_estimate_free(e[0]);
        tsync_estimate_free(e[1]);
        tsync_trace_free(t);
    }
}

/* ---- the JSON that apply reads -------------------------------------------------------- */

static void test_json_round_trip(void **state)
{
    struct clock clk[7];
    const char *tmp = getenv("TSYNC_TEST_TMP");
    char path[512];
    tsync_trace *t;
    tsync_estimate *e;
    tsync_map_set *loaded = NULL;
    tsync_ctx *ctx;
    char *text;
    FILE *fp;
    (void)state;
    srand(7);
    t = random_trace(4, clk, 1e9);
    e = fx_estimate(t, NULL, NULL);
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    text = tsync_estimate_json(e, t, ctx);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"estimator\": \"hull\""));
    assert_non_null(strstr(text, "\"segments\""));
    assert_non_null(strstr(text, "\"graph\""));
    mkdir(tmp ? tmp : ".", 0777);
    snprintf(path, sizeof(path), "%s/estimate-round-trip.json", tmp ? tmp : ".");
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    if (tsync_map_set_load(&loaded, path, t, ctx))
        fail_msg("tsync_map_set_load: %s", tsync_ctx_error(ctx));
    for (tsync_loc loc = 0; loc < t->n_locations; loc++) {
        const tsync_time_map *a = tsync_map_set_get(tsync_estimate_maps(e), loc);
        const tsync_time_map *b = tsync_map_set_get(loaded, loc);
        assert_non_null(a);
        assert_non_null(b);
        for (uint64_t i = 0; i < t->locations[loc].n_events; i++)
            assert_int_equal(tsync_time_map_eval(a, t->locations[loc].time[i]),
                             tsync_time_map_eval(b, t->locations[loc].time[i]));
        if (tsync_time_map_bounds(a))
            assert_int_equal(tsync_time_map_bounds(a)[0], tsync_time_map_bounds(b)[0]);
    }
    remove(path);
    free(text);
    tsync_map_set_free(loaded);
    tsync_ctx_free(ctx);
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

/* ---- samples ---------------------------------------------------------------------------- */

/* ClockOffset records alone relate two domains; with messages they add samples. */
static void test_clock_offsets(void **state)
{
    struct fx *f = fx_new(2, TWO_NODES, 0);
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    tsync_trace *t;
    tsync_estimate *e;
    const tsync_estimate_domain *d1;
    (void)state;
    /* Location 1's clock is 20000 ahead: global = local - 20000. */
    fx_offset(f, 0, 0, 0, 0);
    fx_offset(f, 1, 20000, -20000, 100);
    fx_offset(f, 1, 1000020000, -20000, 100);
    fx_event(f, 1, 20000);
    fx_event(f, 1, 1000020000);
    t = fx_done(f);
    d1 = tsync_estimate_get_domain(e = fx_estimate(t, &o, NULL), 1);
    assert_int_equal(d1->kind, TSYNC_BOUND_BOUNDED);
    assert_int_equal(d1->samples, 4);                  /* two constraints per record */
    assert_true(llabs(tsync_time_map_eval(d1->map, 500020000) - 500000000) <= 1);
    /* 3 stddev, a drift changing by 0.01 ppm/s over the 1 s between the records
     * (1e-8 x (1 s)^2 / 8 = 1.25 ns), and rounding */
    if (!(fx_map_bound(d1->map, 500020000) <= 304))
        fail_msg("bound %.1f", fx_map_bound(d1->map, 500020000));
    tsync_estimate_free(e);
    o.use_clock_offsets = 0;
    e = fx_estimate(t, &o, NULL);
    assert_int_equal(tsync_estimate_get_domain(e, 1)->kind, TSYNC_BOUND_ABSENT);
    assert_int_equal(tsync_estimate_component_count(e), 2);
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

/* ---- busy periods -------------------------------------------------------------------- */

/* Seed 002's runs: offsets measured at MPI_Init (at `init`) and MPI_Finalize (at
 * `fin`), messages only in a 4-second main phase from `main` on. Domain 1 sends to
 * the master's domain 0 only one way in the main phase, but exchanges with domain 2
 * both ways; at MPI_Init only the measured offsets relate the clocks. */
static const struct clock PERIOD_CLOCKS[3] = { { 0, 0 }, { 20000, 10e-6 }, { -30000, -5e-6 } };

static tsync_trace *phases_trace(double init, double main, double fin)
{
    static const uint32_t nodes[] = { 0, 1, 2 };
    const struct clock *clk = PERIOD_CLOCKS;
    struct fx *f = fx_new(3, nodes, 0);
    for (int k = 0; k < 2; k++) {                       /* MPI_Init, MPI_Finalize */
        double at = k ? fin : init;
        for (tsync_loc l = 0; l < 3; l++) {
            tsync_time local = local_of(&clk[l], at, 0);
            fx_offset(f, l, local, local_of(&clk[0], at, 0) - local, l ? 100 : 0);
            fx_event(f, l, local_of(&clk[l], at - 1e5, 0));
            fx_event(f, l, local_of(&clk[l], at + 1e5, 0));
        }
    }
    for (double at = main; at < main + 4e9; at += 1e7) {
        fx_msg(f, 0, local_of(&clk[0], at, 0), 2, local_of(&clk[2], at + 1500, 1));
        fx_msg(f, 2, local_of(&clk[2], at + 2e6, 0), 0, local_of(&clk[0], at + 2e6 + 1500, 1));
        fx_msg(f, 2, local_of(&clk[2], at + 4e6, 0), 1, local_of(&clk[1], at + 4e6 + 1500, 1));
        fx_msg(f, 1, local_of(&clk[1], at + 6e6, 0), 2, local_of(&clk[2], at + 6e6 + 1500, 1));
        fx_msg(f, 1, local_of(&clk[1], at + 8e6, 0), 0, local_of(&clk[0], at + 8e6 + 40000, 1));
    }
    return fx_done(f);
}

/* The truth within the bound at every event of phases_trace; near the MPI_Init
 * events (before init_end) location 1's bound is that of its measured offset, not
 * of the main phase's pairs extrapolated back. */
static void check_phases(const tsync_trace *t, const tsync_estimate *e, tsync_time init_end)
{
    const struct clock *clk = PERIOD_CLOCKS;
    uint32_t ref = tsync_estimate_component_reference(e, 0);
    for (tsync_loc l = 1; l < 3; l++) {
        const struct tsync_location *loc = &t->locations[l];
        const tsync_estimate_domain *dom = tsync_estimate_get_domain(e, loc->domain);
        assert_int_equal(dom->kind, TSYNC_BOUND_BOUNDED);
        for (uint64_t i = 0; i < loc->n_events; i++) {
            tsync_time x = loc->time[i];
            double truth = clk[ref].offset + (1 + clk[ref].drift) * ((double)x - clk[l].offset) /
                                                 (1 + clk[l].drift);
            double got = (double)tsync_time_map_eval(dom->map, x) -
                         (double)tsync_estimate_component_shift(e, 0);
            double bound = fx_map_bound(dom->map, x);
            if (!(fabs(got - truth) <= bound + 1))
                fail_msg("location %u event %llu: map %.1f, truth %.1f, bound %.1f", l,
                         (unsigned long long)i, got, truth, bound);
            if (x < init_end && l == 1 && !(bound <= 1000))
                fail_msg("MPI_Init event %llu of location 1: bound %.1f, not from the "
                         "measured offsets", (unsigned long long)i, bound);
        }
    }
}

/* phases_trace's estimate with the default options: its busy periods counted and
 * checked (check_phases); the trace freed. */
static void expect_periods(tsync_trace *t, size_t periods, tsync_time init_end)
{
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    tsync_estimate *e = fx_estimate(t, &o, NULL);
    assert_int_equal(tsync_estimate_period_count(e), periods);
    check_phases(t, e, init_end);
    tsync_estimate_free(e);
    o.max_gap_s = 0;                                    /* one period, one tree */
    e = fx_estimate(t, &o, NULL);
    assert_int_equal(tsync_estimate_period_count(e), 1);
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

/* MPI_Init, main phase and MPI_Finalize 10 minutes apart: each period takes its own
 * paths, and near the MPI_Init events domain 1's map rests on its measured offset (a
 * bound of a few hundred ticks), not on the main phase's pairs extrapolated ten
 * minutes back. */
static void test_busy_periods(void **state)
{
    (void)state;
    expect_periods(phases_trace(1e6, 600e9, 1200e9), 3, 1000000000);
}

/* A sleep of 9.9 s after MPI_Init and before MPI_Finalize, just under the 10 s gap
 * a piece spans (a clock running slow reads a 10 s sleep so): still three periods
 * (busy periods part at half the maximum gap), each with its own paths. */
static void test_sleep_of_max_gap(void **state)
{
    (void)state;
    expect_periods(phases_trace(1e6, 9.901e9, 23.8e9), 3, INT64_MIN);
}

/* Ten messages in an hour between two hosts (item (k) of the trace classes: one-way
 * minimum delay 50 us, exponential excess): each busy period holds one message,
 * yet the pair has messages both ways, so it is estimated over the whole run, two
 * sided, without a warning, the truth inside the bound, by both estimators. */
static void test_ten_messages(void **state)
{
    static const struct clock clk[2] = { { 0, 0 }, { 4.5e6, 27e-6 } };
    static const double at[10] = { 129, 203, 1550, 1601, 2092, 2181, 2411, 2602, 3007, 3417 };
    static const double excess[10] = { 12e3, 80e3, 3e3, 41e3, 150e3, 22e3, 7e3, 66e3, 30e3, 9e3 };
    static const enum tsync_estimator est[2] = { TSYNC_ESTIMATOR_HULL,
                                                 TSYNC_ESTIMATOR_REGRESSION };
    struct fx *f = fx_new(2, TWO_NODES, 0);
    tsync_trace *t;
    (void)state;
    for (int k = 0; k < 10; k++) {
        int a = k % 3 == 0, b = !a;
        double ts = at[k] * 1e9, tr = ts + 50e3 + excess[k];
        fx_msg(f, (tsync_loc)a, local_of(&clk[a], ts, 0), (tsync_loc)b, local_of(&clk[b], tr, 1));
    }
    t = fx_done(f);
    for (int i = 0; i < 2; i++) {
        tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
        struct fx_warnings w = { 0, "" };
        tsync_estimate *e;
        const tsync_estimate_domain *dom;
        uint32_t ref, other;
        o.estimator = est[i];
        e = fx_estimate(t, &o, &w);
        assert_int_equal(w.n, 0);
        ref = tsync_estimate_component_reference(e, 0);
        other = !ref;
        dom = tsync_estimate_get_domain(e, other);
        assert_int_equal(dom->kind, TSYNC_BOUND_BOUNDED);
        assert_int_equal(dom->pieces, 1);
        for (uint64_t j = 0; j < t->locations[other].n_events; j++) {
            tsync_time x = t->locations[other].time[j];
            double truth = clk[ref].offset + (1 + clk[ref].drift) *
                                                 ((double)x - clk[other].offset) /
                                                 (1 + clk[other].drift);
            double got = (double)tsync_time_map_eval(dom->map, x) -
                         (double)tsync_estimate_component_shift(e, 0);
            if (!(fabs(got - truth) <= fx_map_bound(dom->map, x) + 1) ||
                !(fabs(got - truth) < 70e3))
                fail_msg("%s: event %llu: map %.1f, truth %.1f, bound %.1f",
                         tsync_estimate_estimator_name(e), (unsigned long long)j, got, truth,
                         fx_map_bound(dom->map, x));
        }
        tsync_estimate_free(e);
    }
    tsync_trace_free(t);
}

/* Ping-pongs give exchange samples (Eq. 3) for the regression. */
static void test_regression_exchanges(void **state)
{
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    struct fx *f = fx_new(2, TWO_NODES, 0);
    const tsync_estimate_domain *d1;
    tsync_estimate *e;
    tsync_trace *t;
    (void)state;
    /* Clock 1 = true + 300000 + 20 ppm; delays 1500 and 1700 ns. */
    for (int k = 0; k < 50; k++) {
        double t0 = 1e6 + k * 2e7;
        fx_msg(f, 0, (tsync_time)t0, 1, (tsync_time)(300000 + 1.00002 * (t0 + 1500)));
        fx_msg(f, 1, (tsync_time)(300000 + 1.00002 * (t0 + 5000)), 0,
               (tsync_time)(t0 + 6700));
    }
    t = fx_done(f);
    o.estimator = TSYNC_ESTIMATOR_REGRESSION;
    e = fx_estimate(t, &o, NULL);
    d1 = tsync_estimate_get_domain(e, 1);
    assert_int_equal(d1->kind, TSYNC_BOUND_BOUNDED);
    assert_true(d1->samples >= 49);
    assert_true(fabs(d1->drift + 20e-6) < 1e-7);     /* map slope 1 / 1.00002 */
    /* Asymmetry 200 ns: the offset is off by 100 ns. */
    {
        double x = 300000 + 1.00002 * 5e8;
        double got = (double)tsync_time_map_eval(d1->map, (tsync_time)x);
        assert_true(fabs(got - 5e8) < 150);
    }
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

/* All ranks below one node, each with its own clock (EZTrace): the messages inside
 * the domain contradict the grouping, and the result says so. */
static void test_grouping_contradicted(void **state)
{
    static const uint32_t nodes[] = { 0, 0 };
    struct fx_warnings w = { 0, "" };
    const tsync_estimate_grouping *g;
    struct fx *f = fx_new(2, nodes, 0);
    tsync_estimate *e;
    tsync_trace *t;
    (void)state;
    fx_msg(f, 0, 5000000, 1, 1000);          /* 5 ms "early" */
    fx_msg(f, 1, 2000, 0, 5001500);
    t = fx_done(f);
    e = fx_estimate(t, NULL, &w);
    g = tsync_estimate_get_grouping(e);
    assert_string_equal(g->rule, "node");
    assert_int_equal(g->messages, 2);
    assert_int_equal(g->reversed, 1);
    assert_int_equal(g->contradicting, 1);
    assert_true(fabs(g->max_reversal_s - 4.999e-3) < 1e-12);
    assert_non_null(strstr(g->reason, "contradicted"));
    assert_non_null(strstr(w.all, "do not share a clock"));
    assert_int_equal(tsync_estimate_get_domain(e, 0)->kind, TSYNC_BOUND_ABSENT);
    tsync_estimate_free(e);
    tsync_trace_free(t);
}

static void test_options(void **state)
{
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    struct fx *f = fx_new(2, TWO_NODES, 0);
    tsync_estimate *e = NULL;
    tsync_ctx *ctx;
    tsync_trace *t;
    enum tsync_estimator which = TSYNC_ESTIMATOR_HULL;
    (void)state;
    fx_msg(f, 0, 100, 1, 5000);
    t = fx_done(f);
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    o.version = 99;
    assert_int_equal(tsync_estimate_run(&e, t, &o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "version"));
    o.version = TSYNC_ESTIMATE_OPTS_VERSION;
    o.reference = "nowhere";
    assert_int_equal(tsync_estimate_run(&e, t, &o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "\"nowhere\""));
    o.reference = NULL;
    o.latency_inter_s = -1;
    assert_int_equal(tsync_estimate_run(&e, t, &o, ctx), TSYNC_EINVAL);
    assert_null(e);
    /* Estimator none: every domain keeps its time. */
    o = (tsync_estimate_opts)TSYNC_ESTIMATE_OPTS_INIT;
    o.estimator = TSYNC_ESTIMATOR_NONE;
    assert_int_equal(tsync_estimate_run(&e, t, &o, ctx), 0);
    assert_string_equal(tsync_estimate_estimator_name(e), "none");
    assert_int_equal(tsync_estimate_get_domain(e, 1)->kind, TSYNC_BOUND_ABSENT);
    assert_null(tsync_map_set_get(tsync_estimate_maps(e), 1));
    assert_int_equal(tsync_estimate_edge_count(e), 0);
    tsync_estimate_free(e);
    /* One message: one direction, fallback with a one-sided bound. */
    assert_int_equal(tsync_estimate_run(&e, t, NULL, ctx), 0);
    assert_int_equal(tsync_estimate_get_domain(e, 1)->kind, TSYNC_BOUND_FALLBACK);
    assert_true(isinf(tsync_estimate_get_domain(e, 1)->bound_s));
    assert_int_equal(tsync_estimate_get_edge(e, 0)->kind, TSYNC_BOUND_FALLBACK);
    assert_null(tsync_time_map_bounds(tsync_estimate_get_domain(e, 1)->map));
    tsync_estimate_free(e);
    assert_int_equal(tsync_estimator_parse("regression", &which), 0);
    assert_int_equal(which, TSYNC_ESTIMATOR_REGRESSION);
    assert_int_equal(tsync_estimator_parse("chull", &which), TSYNC_EINVAL);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truth_within_bound),
        cmocka_unit_test(test_two_directions),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_clock_offsets),
        cmocka_unit_test(test_busy_periods),
        cmocka_unit_test(test_sleep_of_max_gap),
        cmocka_unit_test(test_ten_messages),
        cmocka_unit_test(test_regression_exchanges),
        cmocka_unit_test(test_grouping_contradicted),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
