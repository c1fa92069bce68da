/* test_sim.c - the simulator as a whole (tsync_sim_run): determinism per seed,
 * causality of every scenario's truth (tsync_check_run), readings that are exactly
 * the clock model applied to the true times, Score-P offsets close to the truth,
 * bounded memory, options, scenario.json round trip, output replacement, cyclic
 * placement, per-rank clock origins, and message lists between hosts (format csv). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim/clock.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "trace/trace.h"
#include "tracesync/check.h"
#include "tracesync/sim.h"
#include "util/fs.h"

static tsync_ctx *ctx;

/* dir = $TSYNC_TEST_TMP/sim/<name>, emptied. */
static void scratch(char *dir, size_t n, const char *name)
{
    const char *tmp = getenv("TSYNC_TEST_TMP");
    snprintf(dir, n, "%s/sim/%s", tmp && *tmp ? tmp : "/tmp/tsync-test", name);
    tsync__remove_tree(dir);
}

static tsync_sim_opts smoke(uint64_t seed)
{
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
    o.seed = seed;
    assert_int_equal(tsync_sim_scenario(&o, "smoke", ctx), 0);
    return o;
}

static void run(const tsync_sim_opts *o, const char *dir, tsync_sim_result *r)
{
    int rc = tsync_sim_run(r, o, dir, ctx);
    if (rc)
        fprintf(stderr, "tsync_sim_run: %s\n", tsync_ctx_error(ctx));
    assert_int_equal(rc, 0);
}

static tsync_trace *open_trace(const char *dir, const char *name)
{
    char path[4200];
    tsync_trace *t = NULL;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (tsync_trace_open(&t, path, NULL, ctx))
        fprintf(stderr, "%s: %s\n", path, tsync_ctx_error(ctx));
    assert_non_null(t);
    return t;
}

/* The bytes of a file; *n its size. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long len;
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* Every file of both archives but the anchors (libotf2 puts a random trace id in
 * those), and scenario.json. */
static int same_output(const char *d1, const char *d2, uint32_t ranks)
{
    static const char *const fixed[] = { "trace.def", "truth.def", "scenario.json" };
    char a[4200], b[4200];
    for (size_t i = 0; i < 3; i++) {
        snprintf(a, sizeof(a), "%s/%s", d1, fixed[i]);
        snprintf(b, sizeof(b), "%s/%s", d2, fixed[i]);
        if (!same_file(a, b))
            return 0;
    }
    for (uint32_t r = 0; r < ranks; r++)
        for (int k = 0; k < 4; k++) {
            const char *arch = k < 2 ? "trace" : "truth", *ext = k % 2 ? "def" : "evt";
            snprintf(a, sizeof(a), "%s/%s/%u.%s", d1, arch, r, ext);
            snprintf(b, sizeof(b), "%s/%s/%u.%s", d2, arch, r, ext);
            if (!same_file(a, b))
                return 0;
        }
    return 1;
}

static void test_determinism(void **state)
{
    tsync_sim_opts o = smoke(5);
    tsync_sim_result r1, r2;
    char d1[4096], d2[4096], d3[4096];
    (void)state;
    scratch(d1, sizeof(d1), "det1");
    scratch(d2, sizeof(d2), "det2");
    scratch(d3, sizeof(d3), "det3");
    run(&o, d1, &r1);
    run(&o, d2, &r2);
    assert_true(r1.events == r2.events && r1.messages == r2.messages);
    assert_true(same_output(d1, d2, o.ranks));
    o.seed = 6;
    run(&o, d3, &r2);
    assert_false(same_output(d1, d3, o.ranks));
}

/* The scenario, shrunk to a few thousand events and short gaps. */
static tsync_sim_opts small(const char *name)
{
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
    assert_int_equal(tsync_sim_scenario(&o, name, ctx), 0);
    o.app.events = 4000;
    o.app.duration_s = 0;
    if (o.app.compute_mean_s > 5e-3)
        o.app.compute_mean_s = 5e-3;
    o.app.sleep_before_s = o.app.sleep_after_s = 0.2;
    if (o.ranks > 16) { /* keep the blocks of ranks per node */
        o.nodes = o.nodes * 16 / o.ranks;
        o.ranks = 16;
    }
    return o;
}

/* Causality: the truth of every scenario has no reversed message and no violation
 * of the scenario's own minimum latencies, nor of zero latency. */
static void test_causality(void **state)
{
    (void)state;
    for (size_t i = 0; i < tsync_sim_scenario_count(); i++) {
        const char *name = tsync_sim_scenario_name(i);
        tsync_sim_opts o = small(name);
        tsync_check_opts co = TSYNC_CHECK_OPTS_INIT;
        tsync_check_report *rep = NULL;
        tsync_timeline *tl = NULL;
        tsync_trace *t;
        tsync_sim_result r;
        char dir[4096];
        if (o.format == TSYNC_SIM_CSV)
            continue; /* messages between hosts: test_hosts_csv */
        scratch(dir, sizeof(dir), name);
        o.offsets.session_interval_s = 0.1; /* sessions cut the gaps too */
        run(&o, dir, &r);
        t = open_trace(dir, "truth.otf2");
        assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
        for (int pass = 0; pass < 2; pass++) {
            co.latency_intra_s = pass ? o.net.latency_intra_s : 0;
            co.latency_inter_s = pass ? o.net.latency_inter_s : 0;
            assert_int_equal(tsync_check_run(&rep, t, tl, &co, ctx), 0);
            printf("%-12s %llu events, %llu messages, %llu logical: %llu reversed, %llu violations\n",
                   name, (unsigned long long)tsync_trace_event_count(t),
                   (unsigned long long)rep->messages, (unsigned long long)rep->logical_messages,
                   (unsigned long long)rep->reversed, (unsigned long long)rep->violations);
            assert_true(rep->messages > 0 && rep->logical_messages > 0);
            assert_int_equal(rep->reversed, 0);
            assert_int_equal(rep->violations, 0);
            assert_int_equal(rep->unmatched_sends + rep->unmatched_recvs, 0);
            assert_int_equal(rep->messages, r.messages);
            tsync_check_report_free(rep);
        }
        assert_int_equal(tsync_trace_event_count(t), r.events);
        assert_true(r.events >= 4000);
        tsync_timeline_free(tl);
        tsync_trace_free(t);
    }
}

/* The clocks of a run, drawn as simulate.c draws them (its streams). */
static struct tsync_sim_clock *clocks_of(const tsync_sim_opts *o, uint32_t *n)
{
    uint64_t true_res = o->timer_resolution > 1000000000 ? o->timer_resolution : 1000000000;
    struct tsync_sim_clock *c;
    *n = o->clock_per_rank ? o->ranks : o->nodes;
    c = calloc(*n, sizeof(*c));
    assert_non_null(c);
    for (uint32_t k = 0; k < *n; k++) {
        struct tsync_sim_clock_model m;
        struct tsync_rng rng;
        tsync__rng_seed(&rng, o->seed, TSYNC_SIM_CLOCK_STREAM + k);
        tsync__clock_draw(&m, &o->clock, &rng);
        tsync__clock_init(&c[k], &m, true_res, o->timer_resolution, o->seed,
                          TSYNC_SIM_WALK_STREAM + k);
    }
    return c;
}

/* trace.otf2 holds exactly the clock model applied to truth.otf2's times, event by
 * event, for shared and per-rank clocks and a coarse timer. */
static void check_readings(const tsync_sim_opts *o, const char *dir)
{
    tsync_trace *tr = open_trace(dir, "trace.otf2"), *tt = open_trace(dir, "truth.otf2");
    uint32_t nc;
    struct tsync_sim_clock *c = clocks_of(o, &nc);
    assert_int_equal(tr->n_locations, tt->n_locations);
    assert_int_equal(tr->timer_resolution, o->timer_resolution);
    for (uint32_t i = 0; i < tr->n_locations; i++) {
        const struct tsync_location *a = &tr->locations[i], *b = &tt->locations[i];
        uint32_t rank = a->rank, node = (uint32_t)((uint64_t)rank * o->nodes / o->ranks);
        struct tsync_sim_clock *ck = &c[o->clock_per_rank ? rank : node];
        assert_int_equal(a->ref, b->ref);
        assert_int_equal(a->n_events, b->n_events);
        assert_int_equal(strcmp(tr->nodes[a->node].name, tt->nodes[b->node].name), 0);
        for (uint64_t k = 0; k < a->n_events; k++) {
            assert_int_equal(a->kind[k], b->kind[k]);
            assert_int_equal(a->time[k], tsync__clock_read(ck, b->time[k]));
        }
    }
    /* Same messages, matched the same way. */
    assert_int_equal(tr->n_messages, tt->n_messages);
    for (size_t m = 0; m < tr->n_messages; m++)
        assert_memory_equal(&tr->messages[m], &tt->messages[m], sizeof(tr->messages[m]));
    free(c);
    tsync_trace_free(tr);
    tsync_trace_free(tt);
}

static void test_readings_exact(void **state)
{
    tsync_sim_opts o = smoke(11);
    tsync_sim_result r;
    char dir[4096];
    (void)state;
    /* Every clock term on, steps during the run. */
    o.clock.steps = 2;
    o.clock.step_window_s = 2;
    o.clock.daily_amp_ppm = 0.37;
    scratch(dir, sizeof(dir), "exact");
    run(&o, dir, &r);
    check_readings(&o, dir);
    /* A coarse timer (1 us) and a clock per rank. */
    o.timer_resolution = 1000000;
    o.clock_per_rank = 1;
    o.seed = 12;
    scratch(dir, sizeof(dir), "exact-us");
    run(&o, dir, &r);
    check_readings(&o, dir);
    /* A timer finer than 1 ns: the truth takes its resolution. */
    o.timer_resolution = 10000000000ull;
    scratch(dir, sizeof(dir), "exact-ps");
    run(&o, dir, &r);
    check_readings(&o, dir);
}

/* Score-P offsets: one record per rank at MPI_Init and at MPI_Finalize, plus one
 * per session; each close to the true difference between rank 0's clock and the
 * rank's at that moment. truth.otf2 has the same records with offset 0. */
static void test_clock_offsets(void **state)
{
    tsync_sim_opts o = smoke(21);
    tsync_sim_result r;
    tsync_trace *tr, *tt;
    uint32_t nc;
    struct tsync_sim_clock *c;
    char dir[4096];
    (void)state;
    o.offsets.session_interval_s = 0.3; /* sessions in each 0.5 s gap */
    scratch(dir, sizeof(dir), "offsets");
    run(&o, dir, &r);
    tr = open_trace(dir, "trace.otf2");
    tt = open_trace(dir, "truth.otf2");
    c = clocks_of(&o, &nc);
    assert_int_equal(tr->n_offsets, tt->n_offsets);
    assert_int_equal(tr->n_offsets, r.clock_offsets);
    assert_true(r.clock_offsets >= 3 * o.ranks); /* init, finalize and sessions */
    for (size_t i = 0; i < tr->n_offsets; i++) {
        const struct tsync_clock_offset *a = &tr->offsets[i], *b = &tt->offsets[i];
        uint32_t rank = tr->locations[a->loc].rank, node = rank * o.nodes / o.ranks;
        /* The truth's record: at the true time of the measurement, offset 0. */
        int64_t truth_offset = tsync__clock_read(&c[0], b->time) - tsync__clock_read(&c[node], b->time);
        assert_int_equal(a->loc, b->loc);
        assert_int_equal(b->offset, 0);
        assert_int_equal(a->time, tsync__clock_read(&c[node], b->time));
        /* Latency ~5 us plus excess: the half round trip bounds the error. */
        assert_true(llabs(a->offset - truth_offset) < 10000);
        if (rank == 0)
            assert_int_equal(a->offset, 0);
    }
    free(c);
    tsync_trace_free(tr);
    tsync_trace_free(tt);
}

/* Memory: the simulator's own state does not grow with the number of events. */
static void test_memory_bounded(void **state)
{
    tsync_sim_opts o = smoke(3);
    tsync_sim_result r1, r2;
    char dir[4096];
    (void)state;
    o.offsets.enabled = 0;
    o.app.events = 20000;
    scratch(dir, sizeof(dir), "mem");
    run(&o, dir, &r1);
    o.app.events = 200000;
    run(&o, dir, &r2); /* the same directory: the earlier output is replaced */
    assert_true(r1.events >= 20000 && r2.events >= 200000);
    assert_int_equal(r1.state_bytes, r2.state_bytes);
    assert_int_equal(r2.clock_offsets, 0);
}

/* Options: setting by key, errors that name the key, validation, scenarios. */
/* The options do not validate, and the message names `word`. */
static void assert_invalid(const tsync_sim_opts *o, const char *word)
{
    assert_int_equal(tsync_sim_validate(o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), word));
}

static void test_options(void **state)
{
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT, before;
    (void)state;
    assert_int_equal(tsync_sim_set(&o, "net.latency_inter_s", "7.7us", ctx), 0);
    assert_true(fabs(o.net.latency_inter_s - 7.7e-6) < 1e-18);
    assert_int_equal(tsync_sim_set(&o, "app.duration_s", "10min", ctx), 0);
    assert_true(o.app.duration_s == 600);
    assert_int_equal(tsync_sim_set(&o, "app.events", "1e7", ctx), 0);
    assert_int_equal(o.app.events, 10000000);
    assert_int_equal(tsync_sim_set(&o, "app.patterns", "ring,halo3d", ctx), 0);
    assert_int_equal(o.app.patterns, TSYNC_SIM_RING | TSYNC_SIM_HALO3D);
    assert_int_equal(tsync_sim_set(&o, "app.collectives", "none", ctx), 0);
    assert_int_equal(o.app.collectives, 0);
    assert_int_equal(tsync_sim_set(&o, "offsets.enabled", "off", ctx), 0);
    assert_int_equal(o.offsets.enabled, 0);
    assert_int_equal(tsync_sim_set(&o, "net.excess", "gamma", ctx), 0);
    assert_int_equal(o.net.excess, TSYNC_SIM_GAMMA);
    before = o;
    assert_int_equal(tsync_sim_set(&o, "net.latency_inter", "1us", ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "net.latency_inter_s"));
    assert_int_equal(tsync_sim_set(&o, "ranks", "-3", ctx), TSYNC_EINVAL);
    assert_int_equal(tsync_sim_set(&o, "app.patterns", "ring,star", ctx), TSYNC_EINVAL);
    assert_int_equal(tsync_sim_set(&o, "read_cost_s", "3 parsecs", ctx), TSYNC_EINVAL);
    assert_memory_equal(&o, &before, sizeof(o));
    assert_int_equal(tsync_sim_scenario(&o, "nostrum", ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "marenostrum"));

    o = (tsync_sim_opts)TSYNC_SIM_OPTS_INIT;
    assert_int_equal(tsync_sim_validate(&o, ctx), 0);
    o.nodes = 9;
    assert_invalid(&o, "nodes");
    o = (tsync_sim_opts)TSYNC_SIM_OPTS_INIT;
    o.app.events = 0;
    assert_int_equal(tsync_sim_validate(&o, ctx), TSYNC_EINVAL);
    o = (tsync_sim_opts)TSYNC_SIM_OPTS_INIT;
    o.clock.skew_max_ppm = 1e5;
    assert_int_equal(tsync_sim_validate(&o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "backward"));
    o = (tsync_sim_opts)TSYNC_SIM_OPTS_INIT;
    o.net.outlier_min_s = 1e-3;
    o.net.outlier_max_s = 1e-5;
    assert_int_equal(tsync_sim_validate(&o, ctx), TSYNC_EINVAL);
    assert_int_equal(tsync_sim_run(NULL, &o, "/nonexistent/x", ctx), TSYNC_EINVAL);

    /* The seed 002 platforms. */
    assert_int_equal(tsync_sim_scenario(&o, "marenostrum", ctx), 0);
    assert_true(o.net.latency_intra_s == 1.3e-6 && o.net.latency_inter_s == 7.7e-6);
    assert_true(o.app.sleep_before_s == 600 && o.app.sleep_after_s == 600);
    assert_int_equal(o.ranks / o.nodes, 4);
    assert_int_equal(tsync_sim_scenario(&o, "cacau", ctx), 0);
    assert_true(o.net.latency_intra_s == 1.0e-6 && o.net.latency_inter_s == 4.7e-6);
    assert_int_equal(o.ranks / o.nodes, 2);
    for (size_t i = 0; i < tsync_sim_scenario_count(); i++) {
        assert_int_equal(tsync_sim_scenario(&o, tsync_sim_scenario_name(i), ctx), 0);
        assert_int_equal(tsync_sim_validate(&o, ctx), 0);
        assert_string_equal(o.scenario, tsync_sim_scenario_name(i));
    }
}

/* scenario.json gives back the parameters of the run (--config). */
static void test_scenario_json(void **state)
{
    tsync_sim_opts o = smoke(77), back = TSYNC_SIM_OPTS_INIT;
    tsync_sim_result r;
    char dir[4096], path[4200];
    json_t *a, *b, *doc;
    json_error_t err;
    (void)state;
    o.app.patterns = TSYNC_SIM_HALO2D | TSYNC_SIM_RANDOM;
    o.net.excess = TSYNC_SIM_GAMMA;
    o.net.latency_inter_s = 7.7e-6;
    o.app.events = 1500;
    scratch(dir, sizeof(dir), "json");
    run(&o, dir, &r);
    snprintf(path, sizeof(path), "%s/scenario.json", dir);
    assert_int_equal(tsync_sim_load(&back, path, ctx), 0);
    a = tsync__sim_params_json(&o);
    b = tsync__sim_params_json(&back);
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    doc = json_load_file(path, 0, &err);
    assert_non_null(doc);
    assert_int_equal(json_array_size(json_object_get(doc, "clocks")), o.nodes);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "result"), "events")),
                     r.events);
    json_decref(doc);
    /* Not a scenario.json. */
    snprintf(path, sizeof(path), "%s/trace.def", dir);
    assert_int_equal(tsync_sim_load(&back, path, ctx), TSYNC_EFORMAT);
}

/* A failed run leaves nothing behind and keeps an earlier output. */
static void test_failure_leaves_nothing(void **state)
{
    tsync_sim_opts o = smoke(1);
    tsync_sim_result r;
    char dir[4096], file[4200];
    FILE *f;
    (void)state;
    scratch(dir, sizeof(dir), "fail");
    assert_int_equal(tsync__mkdirs(dir, ctx), 0);
    snprintf(file, sizeof(file), "%s/plain-file", dir);
    f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(tsync_sim_run(&r, &o, file, ctx), TSYNC_EIO);
}

/* Cyclic placement puts rank r on node r % nodes; per-rank origins make ranks of one
 * node read their node's oscillator 25 to 40 ms apart per rank before them. */
static void test_cyclic_origins(void **state)
{
    tsync_sim_opts o = smoke(5);
    tsync_trace *t, *tt;
    char dir[4096];
    (void)state;
    scratch(dir, sizeof(dir), "origins");
    assert_int_equal(tsync_sim_set(&o, "cyclic", "on", ctx), 0);
    assert_int_equal(tsync_sim_set(&o, "clock.origin_gap_min_s", "25ms", ctx), 0);
    assert_int_equal(tsync_sim_set(&o, "clock.origin_gap_max_s", "40ms", ctx), 0);
    run(&o, dir, NULL);
    t = open_trace(dir, "trace.otf2");
    tt = open_trace(dir, "truth.otf2");
    assert_int_equal(t->n_ranks, 4);
    for (uint32_t r = 0; r < 4; r++)
        assert_int_equal(t->locations[t->rank_loc[r]].node, r % 2);
    for (uint32_t r = 0; r < 2; r++) {
        /* Rank r + 2 started its clock one gap after rank r, on the same oscillator. */
        const struct tsync_location *a = &t->locations[t->rank_loc[r]],
                                    *b = &t->locations[t->rank_loc[r + 2]];
        const struct tsync_location *ta = &tt->locations[tt->rank_loc[r]],
                                    *tb = &tt->locations[tt->rank_loc[r + 2]];
        double gap = (double)((a->time[0] - ta->time[0]) - (b->time[0] - tb->time[0])) / 1e9;
        assert_true(gap > 25e-3 - 1e-4 && gap < 40e-3 + 1e-4);
    }
    tsync_trace_free(t);
    tsync_trace_free(tt);
}

/* Format csv: every link of the topology carries the messages each way; the truth
 * has the same rows, is causal at the minimum latency, and the readings are the
 * hosts' clocks. */
static void test_hosts_csv(void **state)
{
    static const char *const topo[] = { "chain", "star", "ring", "mesh" };
    static const size_t links[] = { 3, 3, 4, 6 };
    tsync_check_opts co = TSYNC_CHECK_OPTS_INIT;
    (void)state;
    for (size_t k = 0; k < 4; k++) {
        tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
        tsync_sim_result r;
        tsync_check_report *chk;
        tsync_timeline *tl;
        tsync_trace *t, *tt;
        char dir[4096];
        scratch(dir, sizeof(dir), topo[k]);
        assert_int_equal(tsync_sim_scenario(&o, "hosts", ctx), 0);
        assert_int_equal(tsync_sim_set(&o, "nodes", "4", ctx), 0);
        assert_int_equal(tsync_sim_set(&o, "ranks", "4", ctx), 0);
        assert_int_equal(tsync_sim_set(&o, "hosts.topology", topo[k], ctx), 0);
        assert_int_equal(tsync_sim_set(&o, "hosts.messages", "7", ctx), 0);
        assert_int_equal(tsync_sim_set(&o, "app.duration_s", "10min", ctx), 0);
        run(&o, dir, &r);
        assert_int_equal(r.messages, 2 * 7 * links[k]);
        assert_true(tsync_sim_estimate_events(&o) == (double)r.events);
        assert_true(r.end_s - r.start_s < 600.1);
        t = open_trace(dir, "trace.csv");
        tt = open_trace(dir, "truth.csv");
        assert_int_equal(t->n_messages, r.messages);
        assert_int_equal(tt->n_messages, r.messages);
        assert_int_equal(tt->n_locations, 4);
        co.latency_inter_s = 50e-6;
        assert_int_equal(tsync_timeline_new(&tl, tt, ctx), 0);
        assert_int_equal(tsync_check_run(&chk, tt, tl, &co, ctx), 0);
        assert_int_equal(chk->violations, 0);
        tsync_check_report_free(chk);
        tsync_timeline_free(tl);
        /* Each host's local minus true time: its clock, off by at most 5 ms and
         * 50 ppm of 10 minutes. */
        for (uint32_t i = 0; i < t->n_locations; i++)
            for (uint64_t j = 0; j < t->locations[i].n_events; j++)
                assert_true(llabs(t->locations[i].time[j] - tt->locations[i].time[j]) < 5000000 + 30000000);
        tsync_trace_free(t);
        tsync_trace_free(tt);
    }
}

static void test_hosts_options(void **state)
{
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
    (void)state;
    assert_int_equal(tsync_sim_scenario(&o, "hosts", ctx), 0);
    assert_int_equal(o.format, TSYNC_SIM_CSV);
    assert_int_equal(tsync_sim_validate(&o, ctx), 0);
    assert_int_equal(tsync_sim_set(&o, "hosts.topology", "tree", ctx), TSYNC_EINVAL);
    assert_int_equal(tsync_sim_set(&o, "format", "pcap", ctx), TSYNC_EINVAL);
    o.nodes = o.ranks = 3; /* a pair is two hosts */
    assert_invalid(&o, "pair");
    o.hosts.topology = TSYNC_SIM_TOPO_RING;
    assert_int_equal(tsync_sim_validate(&o, ctx), 0);
    o.timer_resolution = 1000000;
    assert_invalid(&o, "nanoseconds");
    o = (tsync_sim_opts)TSYNC_SIM_OPTS_INIT;
    o.clock.origin_gap_min_s = 2;
    o.clock.origin_gap_max_s = 1;
    assert_invalid(&o, "origin_gap");
}

static int setup(void **state)
{
    (void)state;
    return tsync_ctx_new(&ctx);
}

static int teardown(void **state)
{
    (void)state;
    tsync_ctx_free(ctx);
    return 0;
}

/* The size a run will write, from its options: within a factor of 2 of the run's
 * (by --duration: smoke for 0.2 s; by --events: 5000), and far above the 2 GB
 * warning for smoke over ten hours, without running it. */
static void test_estimate_size(void **state)
{
    tsync_sim_opts o = smoke(5);
    tsync_sim_result r;
    struct stat sb;
    char dir[4096], path[4200];
    double bytes;
    (void)state;
    o.app.events = 0;
    o.app.duration_s = 0.2;
    scratch(dir, sizeof(dir), "estimate");
    run(&o, dir, &r);
    assert_true(tsync_sim_estimate_events(&o) > 0.5 * (double)r.events);
    assert_true(tsync_sim_estimate_events(&o) < 2.0 * (double)r.events);
    bytes = 0;
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "%s/%s/%d.evt", dir, "trace", i);
        assert_int_equal(stat(path, &sb), 0);
        bytes += 2.0 * (double)sb.st_size; /* trace and truth hold the same events */
    }
    assert_true(tsync_sim_estimate_bytes(&o) > 0.5 * bytes);
    assert_true(tsync_sim_estimate_bytes(&o) < 2.0 * bytes);
    o.app.events = 5000;
    assert_true(tsync_sim_estimate_events(&o) == 5000.0);
    o.app.events = 0;
    o.app.duration_s = 36000;
    assert_true(tsync_sim_estimate_bytes(&o) > 2e9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_causality),
        cmocka_unit_test(test_readings_exact),
        cmocka_unit_test(test_clock_offsets),
        cmocka_unit_test(test_memory_bounded),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_scenario_json),
        cmocka_unit_test(test_failure_leaves_nothing),
        cmocka_unit_test(test_cyclic_origins),
        cmocka_unit_test(test_hosts_csv),
        cmocka_unit_test(test_hosts_options),
        cmocka_unit_test(test_estimate_size),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
