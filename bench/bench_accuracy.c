/* bench_accuracy.c - accuracy of clock estimation and of the main job against the
 * simulator's truth.
 *
 * Usage: bench_accuracy [DIR] [SCENARIO...]
 *        (default DIR ./bench-accuracy; scenarios marenostrum cacau thermal lan; seed 1,
 *        each scenario's default size)
 *
 * Per scenario: simulate into DIR/SCENARIO (trace.otf2, truth.otf2: the same events in
 * the same order per location, truth in true time), then for each estimator
 * configuration (hull, hull with global least squares, regression), with the
 * scenario's own minimum latencies:
 *
 *   stage=maps   tsync_estimate_run and its maps alone (no CLC); seconds: the estimate
 *   stage=sync   tsync_sync_run (read, estimate, maps, CLC, check, write) into
 *                DIR/SCENARIO/sync-ESTIMATOR, the output read back; seconds: the run
 *
 * The error is measured on the reference clock's own time axis, which needs no
 * fitting. The reference domain of component 0 is one clock read by all its
 * locations: its events, true time against time in the result, sampled densely, give
 * the reference clock's reading at any true time by linear interpolation (before the
 * first and after the last event, the slope over the outermost millisecond). Then
 *
 *     error(event) = time in the result(event) - refclock(true time of event).
 *
 * In the maps stage the reference domain's times are its mapped times (identity plus
 * the component's shift), so its own events have error 0. For the sync stage two axes:
 * max_ns, p99_ns, mean_ns on the reference domain's corrected times (relative to the
 * reference domain after the CLC), and clock_max_ns ... on the reference clock itself
 * (the reference domain's raw times through the sync's own maps and shift: what the CLC
 * moved, the reference domain's events included, counts as error).
 *
 * Only locations of component 0 count (left_out: the events of the other components).
 * Reported: max, p99 (nearest rank) and mean of |error| in ns; for the maps the share
 * of events whose |error| is within the bound the map carries (per point, interpolated
 * between the points as the estimator does, the outermost point's bound beyond them;
 * reference domain: 0), the largest |error| / bound, the largest bound, how many events
 * have a map without a bound, and the clock condition violations (tsync_check_run with
 * the scenario's latencies); for sync the violations of its output. At the end one line
 * per target scenario (marenostrum, cacau, thermal): max error after sync with the hull
 * under 1 us and no violation (met=yes|no), and how many events lie outside the hull's
 * bound (must be 0: its bound is guaranteed for linear clocks and true latencies).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "trace/trace.h"
#include "tracesync/check.h"
#include "tracesync/estimate.h"
#include "tracesync/sim.h"
#include "tracesync/sync.h"
#include "tracesync/timemap.h"
#include "tracesync/trace.h"

static _Noreturn void die(tsync_ctx *ctx, const char *scenario, const char *what)
{
    fprintf(stderr, "bench_accuracy: %s: %s: %s\n", scenario, what, ctx ? tsync_ctx_error(ctx) : "");
    exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "bench_accuracy: out of memory\n");
        exit(2);
    }
    return p;
}

/* Per-location events and raw times: the public API has only totals and timelines
 * (copies), so these two come from the internal model, as in bench_estimate. */
static uint64_t loc_events(const tsync_trace *t, tsync_loc i) { return t->locations[i].n_events; }
static const tsync_time *loc_times(const tsync_trace *t, tsync_loc i) { return t->locations[i].time; }

/* Warnings of the library, to stderr, at most a few per stage. */
static unsigned warnings;
static void on_log(enum tsync_log_level level, const char *message, void *payload)
{
    (void)payload;
    if (level == TSYNC_LOG_WARNING && warnings++ < 3)
        fprintf(stderr, "bench_accuracy: warning: %s\n", message);
}

/* ---- the reference clock as a function of true time ---------------------------------- */

/* The reference clock's reading on the axis of a result, at the true times of the
 * events of the reference domain (every location of it reads the same clock): true
 * times T (truth ticks) strictly increasing, readings M (trace ticks). Between two
 * points it is linear; before the first and after the last the slope over at least
 * 1 ms of points continues (two points 20 ns apart give a slope off by 5 %). */
struct axis {
    tsync_time *T, *M;
    uint64_t n;
    double slope_lo, slope_hi;
};

struct pair {
    tsync_time t, m;
};

static int by_time(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* mapped - refclock(t) for an event at true time t with time `mapped`; *k is a cursor
 * (the last point at or before t), kept between the calls for one location, whose
 * true times do not decrease. */
static double axis_error(const struct axis *a, uint64_t *k, tsync_time t, tsync_time mapped)
{
    uint64_t lo = *k;
    if (t <= a->T[0])
        return (double)(mapped - a->M[0]) - a->slope_lo * (double)(t - a->T[0]);
    if (t >= a->T[a->n - 1])
        return (double)(mapped - a->M[a->n - 1]) - a->slope_hi * (double)(t - a->T[a->n - 1]);
    while (a->T[lo + 1] <= t)
        lo++;
    *k = lo;
    return (double)(mapped - a->M[lo]) - (double)(a->M[lo + 1] - a->M[lo]) /
                                             (double)(a->T[lo + 1] - a->T[lo]) *
                                             (double)(t - a->T[lo]);
}

/* First cursor for true time t: the last point at or before t (0 before all). */
static uint64_t axis_start(const struct axis *a, tsync_time t)
{
    uint64_t lo = 0, hi = a->n; /* first index with T > t, in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (a->T[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : 0;
}

static void axis_free(struct axis *a)
{
    free(a->T);
    free(a->M);
    memset(a, 0, sizeof(*a));
}

/* ---- the bound of a map at a local time ------------------------------------------- */

struct bound_cursor {
    const tsync_time *local;
    const int64_t *bound;
    size_t n, k;
};

static double bound_at(struct bound_cursor *c, tsync_time x)
{
    if (x <= c->local[0])
        return (double)c->bound[0];
    while (c->k + 1 < c->n && c->local[c->k + 1] <= x)
        c->k++;
    if (c->k + 1 == c->n)
        return (double)c->bound[c->n - 1];
    return (double)c->bound[c->k] + (double)(c->bound[c->k + 1] - c->bound[c->k]) *
                                        (double)(x - c->local[c->k]) /
                                        (double)(c->local[c->k + 1] - c->local[c->k]);
}

/* ---- statistics ----------------------------------------------------------------------- */

struct stats {
    uint64_t events, left_out, inside, unbounded;
    double max, sum, p99;  /* ticks */
    double max_bound;      /* largest bound at an event, ticks */
    double max_ratio;      /* largest |error| / bound over events with a bound > 0 */
    double *abs;           /* |error| of every counted event (for the percentile) */
};

/* The k-th smallest (0-based) of a[0..n-1], reordering a: quickselect with a median
 * of three and a three-way partition. */
static double select_kth(double *a, uint64_t n, uint64_t k)
{
    uint64_t lo = 0, hi = n; /* the k-th lies in [lo, hi) */
    while (hi - lo > 1) {
        double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1], p, t;
        uint64_t lt = lo, i = lo, gt = hi;
        p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        while (i < gt) { /* [lo, lt) < p, [lt, i) == p, [gt, hi) > p */
            if (a[i] < p) {
                t = a[lt], a[lt++] = a[i], a[i++] = t;
            } else if (a[i] > p) {
                t = a[--gt], a[gt] = a[i], a[i] = t;
            } else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return p;
    }
    return a[k];
}

static void finish(struct stats *s)
{
    if (s->events) {
        uint64_t rank = (uint64_t)ceil(0.99 * (double)s->events); /* nearest rank, 1-based */
        s->p99 = select_kth(s->abs, s->events, (rank ? rank : 1) - 1);
    }
}

/* ---- what counts, and the reference clock ---------------------------------------------- */

struct setup {
    const struct tsync_trace *trace, *truth;
    uint32_t *truth_loc;      /* trace location -> truth location */
    unsigned char *counted;   /* the location's domain is in component 0 */
    uint64_t left_out;        /* events of the other components */
};

/* The reference clock on the axis of a result: every event of the reference domain,
 * its true time against its time in the result. That time is `times` of trace `on`
 * (the trace's locations, by file id) when given, else the trace's raw time through
 * the map set (a location without a map keeps its time) plus `shift` ticks. */
static void axis_build(struct axis *a, const struct setup *su, const tsync_trace *on,
                       const tsync_time *const *times, const tsync_map_set *maps, int64_t shift,
                       uint32_t ref_domain)
{
    const tsync_trace *tr = su->trace, *tt = su->truth;
    uint64_t res = tsync_trace_timer_resolution(tt), n = 0, m = 0, j;
    tsync_time ms = (tsync_time)(res / 1000 ? res / 1000 : 1);
    struct pair *p;
    memset(a, 0, sizeof(*a));
    for (tsync_loc i = 0; i < tsync_trace_location_count(tr); i++)
        if (tsync_trace_location_domain(tr, i) == ref_domain)
            n += loc_events(tr, i);
    if (!n)
        die(NULL, tsync_trace_path(tr), "no events in the reference domain");
    p = xcalloc(n, sizeof(*p));
    for (tsync_loc i = 0; i < tsync_trace_location_count(tr); i++) {
        const tsync_time *raw = loc_times(tr, i), *t = loc_times(tt, su->truth_loc[i]);
        const tsync_time_map *map = maps ? tsync_map_set_get(maps, i) : NULL;
        const tsync_time *mine = NULL;
        uint64_t n_ev = loc_events(tr, i);
        tsync_loc o;
        if (tsync_trace_location_domain(tr, i) != ref_domain)
            continue;
        if (times) {
            if (tsync_trace_find_location(on, tsync_trace_location_ref(tr, i), &o) ||
                loc_events(on, o) != n_ev)
                die(NULL, tsync_trace_path(on), "locations differ from the input");
            mine = times[o];
        }
        for (uint64_t k = 0; k < n_ev; k++, m++) {
            p[m].t = t[k];
            p[m].m = mine ? mine[k] : (map ? tsync_time_map_eval(map, raw[k]) : raw[k]) + shift;
        }
    }
    qsort(p, n, sizeof(*p), by_time);
    a->T = xcalloc(n, sizeof(*a->T));
    a->M = xcalloc(n, sizeof(*a->M));
    for (j = 0; j < n; j++)
        if (!a->n || p[j].t != a->T[a->n - 1]) {
            a->T[a->n] = p[j].t;
            a->M[a->n++] = p[j].m;
        }
    free(p);
    if (a->n == 1) {
        a->slope_lo = a->slope_hi = (double)tsync_trace_timer_resolution(tr) / (double)res;
        return;
    }
    for (j = 1; j + 1 < a->n && a->T[j] - a->T[0] < ms; j++)
        ;
    a->slope_lo = (double)(a->M[j] - a->M[0]) / (double)(a->T[j] - a->T[0]);
    for (j = a->n - 2; j > 0 && a->T[a->n - 1] - a->T[j] < ms; j--)
        ;
    a->slope_hi = (double)(a->M[a->n - 1] - a->M[j]) / (double)(a->T[a->n - 1] - a->T[j]);
}

/* Errors of `times` (per location of `on`, which has the trace's locations by file id)
 * against the truth, on the axis `ax`. With a map set (the trace's), also whether the
 * bound of each event's map at its raw time covers its error. */
static void measure(struct stats *s, const struct setup *su, const struct axis *ax,
                    const tsync_trace *on, const tsync_time *const *times, const tsync_map_set *maps,
                    const tsync_estimate *e)
{
    const tsync_trace *tr = su->trace, *tt = su->truth;
    memset(s, 0, sizeof(*s));
    s->left_out = su->left_out;
    for (tsync_loc i = 0; i < tsync_trace_location_count(tr); i++)
        if (su->counted[i])
            s->events += loc_events(tr, i);
    s->abs = xcalloc(s->events, sizeof(*s->abs));
    s->events = 0;
    for (tsync_loc i = 0; i < tsync_trace_location_count(tr); i++) {
        const tsync_time *raw = loc_times(tr, i), *truth = loc_times(tt, su->truth_loc[i]);
        uint64_t n_ev = loc_events(tr, i), k;
        struct bound_cursor bc = { NULL, NULL, 0, 0 };
        int has_bound = 0, exact = 0;
        tsync_loc o;
        if (!su->counted[i] || !n_ev)
            continue;
        if (tsync_trace_find_location(on, tsync_trace_location_ref(tr, i), &o) ||
            loc_events(on, o) != n_ev)
            die(NULL, tsync_trace_path(on), "locations differ from the input");
        if (maps) {
            const tsync_time_map *m = tsync_map_set_get(maps, i);
            uint32_t d = tsync_trace_location_domain(tr, i);
            exact = tsync_estimate_get_domain(e, d)->kind == TSYNC_BOUND_EXACT;
            if (m && tsync_time_map_bounds(m)) {
                bc.local = tsync_time_map_local(m);
                bc.bound = tsync_time_map_bounds(m);
                bc.n = tsync_time_map_point_count(m);
                has_bound = 1;
            }
        }
        k = axis_start(ax, truth[0]);
        for (uint64_t j = 0; j < n_ev; j++) {
            double err = fabs(axis_error(ax, &k, truth[j], times[o][j]));
            s->abs[s->events++] = err;
            s->sum += err;
            if (err > s->max)
                s->max = err;
            if (!maps)
                continue;
            if (has_bound) {
                double b = bound_at(&bc, raw[j]);
                s->inside += err <= b;
                if (b > s->max_bound)
                    s->max_bound = b;
                if (b > 0 && err / b > s->max_ratio)
                    s->max_ratio = err / b;
            } else if (exact)
                s->inside += err == 0; /* the reference: the axis itself */
            else
                s->unbounded++;
        }
    }
    finish(s);
}

static void print_stats(const char *scenario, const char *est, const char *stage,
                        const struct stats *s, double ns_per_tick)
{
    printf("scenario=%s estimator=%s stage=%s events=%llu left_out=%llu max_ns=%.1f p99_ns=%.1f "
           "mean_ns=%.1f", scenario, est, stage, (unsigned long long)s->events,
           (unsigned long long)s->left_out, s->max * ns_per_tick, s->p99 * ns_per_tick,
           s->events ? s->sum / (double)s->events * ns_per_tick : 0.0);
}

/* ---- one scenario --------------------------------------------------------------------- */

struct config {
    const char *name;
    enum tsync_estimator estimator;
    int global_lsq;
};

static const struct config configs[] = {
    { "hull", TSYNC_ESTIMATOR_HULL, 0 },
    { "hull-global", TSYNC_ESTIMATOR_HULL, 1 },
    { "regression", TSYNC_ESTIMATOR_REGRESSION, 0 },
};
#define N_CONFIGS (sizeof(configs) / sizeof(configs[0]))

struct outcome {
    double hull_sync_max_ns;
    uint64_t hull_sync_violations;
    uint64_t hull_maps_outside;   /* events outside the hull's bound (must be 0) */
};

static void run_scenario(const char *dir, const char *name, tsync_ctx *ctx, struct outcome *out)
{
    char simdir[4096], anchor[4200], truth_path[4200], outdir[4200];
    tsync_sim_opts so = TSYNC_SIM_OPTS_INIT;
    tsync_sim_result sr;
    tsync_trace *trace, *truth;
    const tsync_time **times;
    struct setup su;
    tsync_loc n_loc;
    double t0, ns_per_tick;

    if (tsync_sim_scenario(&so, name, ctx))
        die(ctx, name, "scenario");
    snprintf(simdir, sizeof(simdir), "%s/%s", dir, name);
    snprintf(anchor, sizeof(anchor), "%s/trace.otf2", simdir);
    snprintf(truth_path, sizeof(truth_path), "%s/truth.otf2", simdir);
    t0 = bench_now();
    if (tsync_sim_run(&sr, &so, simdir, ctx))
        die(ctx, name, "simulate");
    printf("scenario=%s stage=simulate events=%llu messages=%llu latency_intra_ns=%.0f "
           "latency_inter_ns=%.0f seconds=%.3f\n", name, (unsigned long long)sr.events,
           (unsigned long long)sr.messages, so.net.latency_intra_s * 1e9,
           so.net.latency_inter_s * 1e9, bench_now() - t0);
    fflush(stdout);
    if (tsync_trace_open(&trace, anchor, NULL, ctx))
        die(ctx, name, "read trace");
    if (tsync_trace_open(&truth, truth_path, NULL, ctx))
        die(ctx, name, "read truth");
    ns_per_tick = 1e9 / (double)tsync_trace_timer_resolution(trace);

    memset(&su, 0, sizeof(su));
    su.trace = trace;
    su.truth = truth;
    n_loc = tsync_trace_location_count(trace);
    su.truth_loc = xcalloc(n_loc, sizeof(*su.truth_loc));
    su.counted = xcalloc(n_loc, 1);
    times = xcalloc(n_loc, sizeof(*times));
    for (tsync_loc i = 0; i < n_loc; i++)
        if (tsync_trace_find_location(truth, tsync_trace_location_ref(trace, i), &su.truth_loc[i]) ||
            loc_events(truth, su.truth_loc[i]) != loc_events(trace, i))
            die(NULL, name, "trace and truth do not correspond");

    for (size_t c = 0; c < N_CONFIGS; c++) {
        const struct config *cf = &configs[c];
        tsync_estimate_opts eo = TSYNC_ESTIMATE_OPTS_INIT;
        tsync_sync_opts yo = TSYNC_SYNC_OPTS_INIT;
        tsync_check_opts co = TSYNC_CHECK_OPTS_INIT;
        tsync_check_report *chk;
        tsync_sync_result *res;
        tsync_estimate *e;
        tsync_timeline *tl;
        tsync_trace *synced;
        struct stats s;
        struct axis ax, clock_ax;
        struct stats clock_s;
        uint32_t ref_domain, sync_ref;
        uint64_t after_maps, violations;
        double t_est, t_sync;

        eo.estimator = cf->estimator;
        eo.global_lsq = cf->global_lsq;
        eo.latency_intra_s = co.latency_intra_s = so.net.latency_intra_s;
        eo.latency_inter_s = co.latency_inter_s = so.net.latency_inter_s;
        warnings = 0;
        t0 = bench_now();
        if (tsync_estimate_run(&e, trace, &eo, ctx))
            die(ctx, name, "estimate");
        t_est = bench_now() - t0;

        /* Component 0 and its reference. */
        ref_domain = tsync_estimate_component_reference(e, 0);
        su.left_out = 0;
        for (tsync_loc i = 0; i < n_loc; i++) {
            uint32_t d = tsync_trace_location_domain(trace, i);
            su.counted[i] = tsync_estimate_get_domain(e, d)->component == 0;
            if (!su.counted[i])
                su.left_out += loc_events(trace, i);
        }

        /* The maps alone. */
        if (tsync_timeline_new(&tl, trace, ctx) ||
            tsync_map_set_apply(tsync_estimate_maps(e), trace, tl, ctx) ||
            tsync_check_run(&chk, trace, tl, &co, ctx))
            die(ctx, name, "apply maps");
        after_maps = chk->violations;
        tsync_check_report_free(chk);
        axis_build(&ax, &su, NULL, NULL, tsync_estimate_maps(e), 0, ref_domain);
        for (tsync_loc i = 0; i < n_loc; i++)
            times[i] = tsync_timeline_times(tl, i);
        measure(&s, &su, &ax, trace, times, tsync_estimate_maps(e), e);
        axis_free(&ax);
        print_stats(name, cf->name, "maps", &s, ns_per_tick);
        printf(" inside_bound=%.4f%% outside_bound=%llu max_error_of_bound=%.1f%% "
               "max_bound_ns=%.1f unbounded=%llu violations=%llu reference=%s components=%u "
               "seconds=%.3f\n",
               s.events ? 100.0 * (double)s.inside / (double)s.events : 0.0,
               (unsigned long long)(s.events - s.inside - s.unbounded), 100.0 * s.max_ratio,
               s.max_bound * ns_per_tick, (unsigned long long)s.unbounded,
               (unsigned long long)after_maps,
               tsync_trace_domain_name(trace, ref_domain), tsync_estimate_component_count(e),
               t_est);
        fflush(stdout);
        if (!strcmp(cf->name, "hull"))
            out->hull_maps_outside = s.events - s.inside - s.unbounded;
        free(s.abs);
        tsync_timeline_free(tl);
        tsync_estimate_free(e);

        /* The main job, and its output read back. */
        yo.estimate = eo;
        yo.check = co;
        snprintf(outdir, sizeof(outdir), "%s/sync-%s", simdir, cf->name);
        t0 = bench_now();
        if (tsync_sync_run(&res, anchor, outdir, &yo, ctx))
            die(ctx, name, "sync");
        t_sync = bench_now() - t0;
        violations = res->after->violations;
        if (res->after_maps && res->after_maps->violations != after_maps)
            fprintf(stderr, "bench_accuracy: %s %s: sync saw %llu violations after the maps, "
                    "the estimate alone %llu\n", name, cf->name,
                    (unsigned long long)res->after_maps->violations,
                    (unsigned long long)after_maps);
        /* Two axes for the output: the reference domain's corrected times (what the
         * CLC did to the reference domain moves the axis with it), and the reference
         * clock itself: the reference domain's raw times through the sync's own maps
         * and shift, without the CLC (what the CLC moved counts as error, also where
         * it moved every location alike). */
        if (tsync_trace_location_count(res->trace) != n_loc)
            die(NULL, name, "sync read other locations");
        for (tsync_loc i = 0; i < n_loc; i++)
            if (tsync_trace_location_ref(res->trace, i) != tsync_trace_location_ref(trace, i))
                die(NULL, name, "sync read the locations in another order");
        sync_ref = tsync_estimate_component_reference(res->estimate, 0);
        axis_build(&clock_ax, &su, NULL, NULL, tsync_estimate_maps(res->estimate), res->shift_ticks,
                   sync_ref);
        snprintf(outdir, sizeof(outdir), "%s", res->output);
        tsync_sync_result_free(res);
        if (tsync_trace_open(&synced, outdir, NULL, ctx))
            die(ctx, name, "read the output");
        if (tsync_trace_location_count(synced) != n_loc)
            die(NULL, name, "the output has other locations");
        for (tsync_loc i = 0; i < n_loc; i++)
            times[i] = loc_times(synced, i);
        axis_build(&ax, &su, synced, times, NULL, 0, sync_ref);
        measure(&clock_s, &su, &clock_ax, synced, times, NULL, NULL);
        free(clock_s.abs);
        measure(&s, &su, &ax, synced, times, NULL, NULL);
        print_stats(name, cf->name, "sync", &s, ns_per_tick);
        printf(" violations=%llu seconds=%.3f clock_max_ns=%.1f clock_p99_ns=%.1f "
               "clock_mean_ns=%.1f\n", (unsigned long long)violations, t_sync,
               clock_s.max * ns_per_tick, clock_s.p99 * ns_per_tick,
               clock_s.events ? clock_s.sum / (double)clock_s.events * ns_per_tick : 0.0);
        fflush(stdout);
        if (!strcmp(cf->name, "hull")) {
            out->hull_sync_max_ns = s.max * ns_per_tick;
            out->hull_sync_violations = violations;
        }
        free(s.abs);
        axis_free(&ax);
        axis_free(&clock_ax);
        tsync_trace_free(synced);
    }
    free(times);
    free(su.truth_loc);
    free(su.counted);
    tsync_trace_free(trace);
    tsync_trace_free(truth);
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = { "marenostrum", "cacau", "thermal", "lan" };
    static const char *const targets[] = { "marenostrum", "cacau", "thermal" };
    const char *dir = argc > 1 ? argv[1] : "bench-accuracy";
    const char *const *names = argc > 2 ? (const char *const *)argv + 2 : defaults;
    size_t n = argc > 2 ? (size_t)argc - 2 : sizeof(defaults) / sizeof(defaults[0]);
    struct outcome *out = xcalloc(n, sizeof(*out));
    tsync_ctx *ctx;

    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: bench_accuracy [DIR] [SCENARIO...]\n"
               "  default DIR bench-accuracy, scenarios marenostrum cacau thermal lan\n");
        return 0;
    }
    if (tsync_ctx_new(&ctx))
        return 2;
    tsync_ctx_set_log(ctx, on_log, NULL);
    for (size_t i = 0; i < n; i++)
        run_scenario(dir, names[i], ctx, &out[i]);
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
            if (!strcmp(names[i], targets[t])) {
                int met = out[i].hull_sync_max_ns < 1000 && out[i].hull_sync_violations == 0;
                printf("target scenario=%s estimator=hull stage=sync max_ns=%.1f target_max_ns=1000 "
                       "violations=%llu target_violations=0 met=%s maps_outside_bound=%llu\n",
                       names[i], out[i].hull_sync_max_ns,
                       (unsigned long long)out[i].hull_sync_violations, met ? "yes" : "no",
                       (unsigned long long)out[i].hull_maps_outside);
            }
    free(out);
    tsync_ctx_free(ctx);
    return 0;
}
