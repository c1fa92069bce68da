/* bench_accuracy.c - accuracy of clock estimation and of the main job against the
 * simulator's truth, per trace class of issue 11, and the test of that accuracy.
 *
 * Usage: bench_accuracy [--test] [--seed N] [--set KEY=VALUE]... [DIR] [CLASS...]
 *        (default DIR ./bench-accuracy; every class of the table below; seed 1)
 *
 * One table (`classes`) says what each class is (a simulator scenario and parameter
 * changes: the same as `tracesync simulate --scenario S --set K=V ...`, printed on
 * the class's first line), the latencies its estimator is told, and what the test
 * requires of it. Per class: simulate into DIR/CLASS (trace.otf2 and truth.otf2, or
 * trace.csv and truth.csv: the same events per location, truth in true time), then
 *
 *   stage=baseline  Score-P's linear interpolation of the ClockOffset records alone
 *                   (tsync_clc_presync); without records the uncorrected input
 *                   (baseline=uncorrected)
 *   per estimator configuration: default (tracesync sync as it comes: hull, assumed
 *   latencies 0.3 / 1 us), hull and regression (the class's latencies),
 *   stage=maps      tsync_estimate_run and its maps alone (no CLC), with the share
 *                   of events inside the bound each map carries
 *   stage=sync      tsync_sync_run (read, estimate, maps, CLC, check, write) into
 *                   DIR/CLASS/sync-ESTIMATOR, the output read back
 *
 * The error is measured on the time axis of one clock, which needs no fitting: the
 * reference location's (the first location of component 0's reference domain; for
 * the baseline rank 0's, the master whose clock ClockOffset records refer to). Its
 * events, true time against time in the result, give that clock's reading at any
 * true time by linear interpolation (before the first and after the last event, the
 * slope over all of them). Then
 *
 *     error(event) = time in the result(event) - refclock(true time of event),
 *
 * zero on the reference location itself: one constant (and the reference clock's
 * own drift against true time) removed. For sync also clock_max_ns: the error on the
 * reference clock itself (raw times through the sync's maps and shift: what the
 * CLC moved counts as error), and master_max_ns on rank 0's axis (a reference
 * other than the master puts its skew into this number).
 *
 * Only locations of component 0 count for maps and sync (left_out: the events of
 * other components); the baseline counts all. Reported: max, p99 (nearest rank),
 * mean of |error| in ns, and main_max_ns over the events of the main phase alone;
 * for the maps the share of events whose |error| is within their map's bound (per
 * point, interpolated between the points as the estimator does, the outermost
 * point's bound beyond them; reference domain: 0), the largest |error| / bound, the
 * largest bound and the mean bound (the reference domain's events count 0), how many
 * events have a map without a bound; asymmetry_ns: half the
 * largest difference between the minimum true delays of the two directions of a
 * pair of locations (the offset error that no estimator can see), path_asymmetry_ns
 * the same added along the default maps' paths (the largest over the domains).
 *
 * --set changes every class's simulation after its own parameters (those of
 * tracesync simulate --set): the classes on clock and network models nobody tuned
 * for, with the same scores (every event against its bound, the baseline).
 *
 * --test runs each class at its small size (the table's test parameters), the
 * default configuration and the baseline only, prints one line per class with the
 * measured values and the thresholds, and exits 1 when a class misses one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "lttv_hull.h"
#include "trace/trace.h"
#include "tracesync/check.h"
#include "tracesync/clc.h"
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
 * points it is linear; before the first and after the last the slope over all points
 * continues. */
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
    double main_max;       /* max over the events of the main phase */
    double max_bound;      /* largest bound at an event, ticks */
    double sum_bound;      /* of the bounds at events that have one, ticks */
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


/* ---- the trace classes of issue 11 --------------------------------------------------- */

/* One class: how it is simulated, what the estimator is told, what the test requires.
 * Thresholds hold today with margin for the test's small size; `target` is issue 11's
 * goal, so that fixes tighten rows toward it. */
struct trace_class {
    const char *id;
    const char *what;
    const char *scenario;
    const char *sets;          /* KEY=VALUE ... after the scenario: the bench's size */
    const char *test_sets;     /* ... and after these: the test's small size (NULL: the
                                * class is not in the test) */
    double latency_intra_s;    /* told to hull and regression (0 and 0: the true minima) */
    double latency_inter_s;
    double max_ns;             /* test: the default sync's max error below this */
    double inside_pct;         /* test: at least this share inside the default's bound */
    int beat_baseline;         /* test: the default sync's max below the baseline's, and
                                * (2) LTTV's hull's on the same messages too */
    const char *target;        /* issue 11's target for the class */
    const char *data;          /* a recorded trace under tests/data instead of a simulation, */
    const char *data_truth;    /* ... and the maps of its ground truth (apply format) */
};

#define LINEAR "clock.temp_amp_min_ppm=0 clock.temp_amp_max_ppm=0 clock.allan_1s=0 "
#define OUTLIERS "net.outlier_fraction=0.1 net.outlier_min_s=10us net.outlier_max_s=5ms "
#define THERMAL "clock.temp_amp_min_ppm=0.8 clock.temp_amp_max_ppm=1"

static const struct trace_class classes[] = {
    /* id, what, scenario, bench parameters, test parameters, told latencies,
     * test: max error (ns), share inside the bound (%), must beat the baseline,
     * issue 11's target. */
    { "a", "seed 002: offsets 10 min away from a 60 s main phase", "sleeps", "",
      "app.duration_s=10s", 0, 0, 1e3, 100, 1, "max < 1 us; 100 % inside; beats baseline", NULL, NULL },
    { "b", "(a) without ClockOffset records", "sleeps", "offsets.enabled=off",
      "app.duration_s=10s", 0, 0, 800e3, 100, 1, "main phase max < 1 us; 100 % inside", NULL, NULL },
    { "c", "16 nodes of one rank, temperature-driven clocks, 30 min", "thermal",
      "ranks=16 nodes=16 app.duration_s=30min", "app.duration_s=5min", 0, 0, 8e3, 100, 1,
      "max < 1 us; 100 % inside; beats baseline", NULL, NULL },
    { "d", "10 % delayed messages (10 us - 5 ms), noisy ClockOffset records", "sleeps",
      OUTLIERS "net.excess_inter_s=5us offsets.pingpongs=2", "app.duration_s=10s", 0, 0, 7e3, 100, 1,
      "100 % inside; beats baseline", NULL, NULL },
    { "d2", "(d) on seed 2: two ClockOffset records of one node 29 us apart at MPI_Init",
      "sleeps", OUTLIERS "net.excess_inter_s=5us offsets.pingpongs=2 seed=2", "app.duration_s=10s",
      0, 0, 20e3, 100, 1, "100 % inside; beats baseline", NULL, NULL },
    { "e", "true minimum latency 4 us (+0-3 us per direction), assumed 1 us", "sleeps",
      "net.latency_inter_s=4us net.asymmetry_max_s=3us app.duration_s=70s",
      "app.duration_s=10s", 0.3e-6, 1e-6, 5e3, 100, 1, "100 % inside; beats baseline", NULL, NULL },
    { "f", "cyclic rank placement", "sleeps", "cyclic=on", "app.duration_s=10s", 0, 0, 2.5e3, 100,
      1, "max < 1 us; 100 % inside; beats baseline", NULL, NULL },
    { "g", "collectives only", "sleeps", "app.patterns=none app.collective_every=1",
      "app.duration_s=10s", 0, 0, 1e3, 100, 1, "100 % inside; beats baseline", NULL, NULL },
    { "h", "per-rank clock origins 25-40 ms apart (EZTrace), no ClockOffset records", "eztrace",
      "", "app.duration_s=10s", 0, 0, 2e3, 100, 1,
      "within the delays' asymmetry; 100 % inside; beats baseline", NULL, NULL },
    { "j-pair", "hosts: 2, 20000 messages each way, 1 h, 50 us + exponential", "hosts", "",
      "hosts.messages=2000", 0, 0, 20e3, 100, 1, "max < 1 us (same minima both ways); 100 % inside", NULL, NULL },
    { "j-chain", "hosts: chain of 4, temperature-driven clocks", "hosts",
      "ranks=4 nodes=4 hosts.topology=chain " THERMAL, "hosts.messages=2000", 0, 0, 30e3, 100, 1,
      "max < 1 us (same minima both ways); 100 % inside", NULL, NULL },
    { "j-star", "hosts: star of 4", "hosts", "ranks=4 nodes=4 hosts.topology=star",
      "hosts.messages=2000", 0, 0, 20e3, 100, 1, "max < 1 us (same minima both ways); 100 % inside", NULL, NULL },
    { "j-ring", "hosts: ring of 4, temperature-driven clocks", "hosts",
      "ranks=4 nodes=4 hosts.topology=ring " THERMAL, "hosts.messages=2000", 0, 0, 40e3, 100, 1,
      "max < 1 us (same minima both ways); 100 % inside", NULL, NULL },
    { "j-mesh", "hosts: mesh of 4", "hosts", "ranks=4 nodes=4 hosts.topology=mesh",
      "hosts.messages=2000", 0, 0, 30e3, 100, 1, "max < 1 us (same minima both ways); 100 % inside", NULL, NULL },
    { "i", "the shipped EZTrace sample (4 ranks, one host, origins up to 220 ms apart)", NULL,
      "", "", 0.3e-6, 1e-6, 200e3, 100, 1, "within the delays' asymmetry; 100 % inside",
      "eztrace-pingring/eztrace_log.otf2", "eztrace-pingring/measured-offsets.json" },
    { "k", "hosts: ten messages in all", "hosts", "hosts.messages=5", "", 0, 0, 1.5e6, 100, 1,
      "as good as LTTV's hull (6-70 us); 100 % inside", NULL, NULL },
    { "m", "hosts: 200 messages in an hour", "hosts", "hosts.messages=100", "", 0, 0, 150e3, 100,
      2, "better than LTTV's hull; 100 % inside", NULL, NULL },
    { "n", "hosts: 1000 messages in an hour", "hosts", "hosts.messages=500", "", 0, 0, 40e3, 100,
      2, "better than LTTV's hull; 100 % inside", NULL, NULL },
    { "l", "linear clocks (no wander, no noise)", "sleeps", LINEAR, "app.duration_s=10s", 0, 0,
      1e3, 100, 1, "as good as LTTV's hull; 100 % inside", NULL, NULL },
    { "l-pair", "hosts: 2, linear clocks", "hosts", LINEAR, "hosts.messages=2000", 0, 0, 100,
      100, 2, "as good as LTTV's hull (52-197 ns); 100 % inside", NULL, NULL },
    /* The named scenarios at their own sizes: the bench only. */
    { "marenostrum", "seed 002's MareNostrum", "marenostrum", "", NULL, 0, 0, 0, 0, 0, "", NULL, NULL },
    { "cacau", "seed 002's Cacau", "cacau", "", NULL, 0, 0, 0, 0, 0, "", NULL, NULL },
    { "thermal", "an hour of strong temperature wander", "thermal", "", NULL, 0, 0, 0, 0, 0, "", NULL, NULL },
    { "lan", "Fast Ethernet, asymmetric, outliers", "lan", "", NULL, 0, 0, 0, 0, 0, "", NULL, NULL },
};
#define N_CLASSES (sizeof(classes) / sizeof(classes[0]))

#define PATH_LEN 4200

/* The simulator's seed of every class (--seed): the thresholds are set on seed 1, the
 * other seeds are traces nobody tuned for. */
static uint64_t sim_seed = 1;

/* The --set options, "KEY=VALUE KEY=VALUE ...", applied after each class's own. */
static char extra_sets[1024];

/* Applies "KEY=VALUE KEY=VALUE ..." to the simulator's options. */
static void apply_sets(tsync_sim_opts *o, const char *sets, const char *id, tsync_ctx *ctx)
{
    char buf[1024], *save = NULL;
    snprintf(buf, sizeof(buf), "%s", sets);
    for (char *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            die(NULL, id, "a class's parameter is not KEY=VALUE");
        *eq = '\0';
        if (tsync_sim_set(o, kv, eq + 1, ctx))
            die(ctx, id, "class parameters");
    }
}

/* The same as --set options of tracesync simulate. */
static void print_sets(const char *sets)
{
    for (const char *p = sets; *p;) {
        size_t len = strcspn(p, " ");
        if (len)
            printf(" --set %.*s", (int)len, p);
        p += len + (p[len] == ' ');
    }
}

/* ---- what counts, and the reference clock ---------------------------------------------- */

struct setup {
    const struct tsync_trace *trace, *truth;
    uint32_t *truth_loc;      /* trace location -> truth location */
    unsigned char *counted;   /* the location counts */
    uint64_t left_out;        /* events of the locations that do not */
    tsync_time main_lo, main_hi; /* the main phase in truth ticks */
};

/* The points of the locations `use` selects: true times against times in the result
 * (`times` of trace `on`, by file id, when given, else raw times through `maps`
 * plus `shift`), sorted by true time, one point per true time. 0, or -1 when the
 * result's times go back somewhere: the locations do not read one clock. */
static int axis_points(struct axis *a, const struct setup *su, const tsync_trace *on,
                       const tsync_time *const *times, const tsync_map_set *maps, int64_t shift,
                       const unsigned char *use)
{
    const tsync_trace *tr = su->trace, *tt = su->truth;
    uint64_t n = 0, m = 0, j;
    struct pair *p;
    memset(a, 0, sizeof(*a));
    for (tsync_loc i = 0; i < tsync_trace_location_count(tr); i++)
        n += use[i] ? loc_events(tr, i) : 0;
    if (!n)
        die(NULL, tsync_trace_path(tr), "no events at the reference location");
    p = xcalloc(n, sizeof(*p));
    for (tsync_loc i = 0; i < tsync_trace_location_count(tr); i++) {
        const tsync_time *raw = loc_times(tr, i), *t = loc_times(tt, su->truth_loc[i]);
        const tsync_time_map *map = maps ? tsync_map_set_get(maps, i) : NULL;
        const tsync_time *mine = NULL;
        uint64_t n_ev = loc_events(tr, i);
        tsync_loc o;
        if (!use[i])
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
    for (j = 0; j < n; j++) {
        if (a->n && p[j].t == a->T[a->n - 1])
            continue;
        if (a->n && p[j].m < a->M[a->n - 1]) {
            free(p);
            axis_free(a);
            return -1;
        }
        a->T[a->n] = p[j].t;
        a->M[a->n++] = p[j].m;
    }
    free(p);
    return 0;
}

/* The reference clock on the axis of a result: the events of location `ref` and,
 * with `whole_domain`, of every location of its domain (all read one clock), their
 * true times against their times in the result. Where the domain's locations do not
 * read one clock (per-rank origins, h), `ref` alone. */
static void axis_build(struct axis *a, const struct setup *su, const tsync_trace *on,
                       const tsync_time *const *times, const tsync_map_set *maps, int64_t shift,
                       tsync_loc ref, int whole_domain)
{
    const tsync_trace *tr = su->trace;
    tsync_loc n_loc = tsync_trace_location_count(tr);
    uint64_t res = tsync_trace_timer_resolution(su->truth);
    unsigned char *use = xcalloc(n_loc, 1);
    uint32_t d = tsync_trace_location_domain(tr, ref);
    for (tsync_loc i = 0; i < n_loc; i++)
        use[i] = whole_domain ? tsync_trace_location_domain(tr, i) == d : i == ref;
    if (axis_points(a, su, on, times, maps, shift, use)) {
        memset(use, 0, n_loc);
        use[ref] = 1;
        if (axis_points(a, su, on, times, maps, shift, use))
            die(NULL, tsync_trace_path(tr), "the reference location's times go back");
    }
    free(use);
    if (a->n == 1) {
        a->slope_lo = a->slope_hi = (double)tsync_trace_timer_resolution(tr) / (double)res;
        return;
    }
    /* Beyond the ends the slope over all points: the last millisecond's may be what
     * the CLC stretched (a recorded trace's reference may stop long before the rest). */
    a->slope_lo = a->slope_hi = (double)(a->M[a->n - 1] - a->M[0]) / (double)(a->T[a->n - 1] - a->T[0]);
}

/* The first location of a domain. */
static tsync_loc domain_location(const tsync_trace *t, uint32_t domain)
{
    for (tsync_loc i = 0; i < tsync_trace_location_count(t); i++)
        if (tsync_trace_location_domain(t, i) == domain)
            return i;
    die(NULL, tsync_trace_path(t), "a domain without locations");
}

/* Rank 0's location (the master of ClockOffset records), or location 0 (CSV). */
static tsync_loc master_location(const tsync_trace *t)
{
    return t->n_ranks && t->rank_loc[0] < t->n_locations ? t->rank_loc[0] : 0;
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
            if (truth[j] >= su->main_lo && truth[j] <= su->main_hi && err > s->main_max)
                s->main_max = err;
            if (!maps)
                continue;
            if (has_bound) {
                double b = bound_at(&bc, raw[j]);
                s->inside += err <= b;
                s->sum_bound += b;
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

static void print_stats(const char *id, const char *est, const char *stage, const struct stats *s,
                        double ns_per_tick)
{
    printf("class=%s estimator=%s stage=%s events=%llu left_out=%llu max_ns=%.1f p99_ns=%.1f "
           "mean_ns=%.1f main_max_ns=%.1f", id, est, stage, (unsigned long long)s->events,
           (unsigned long long)s->left_out, s->max * ns_per_tick, s->p99 * ns_per_tick,
           s->events ? s->sum / (double)s->events * ns_per_tick : 0.0, s->main_max * ns_per_tick);
}

/* The smallest true delay of the messages from group a to group b at [a * n + b]
 * (INT64_MAX where there are none), the truth's locations in n groups (`group` of
 * each, or each its own where NULL). malloc'ed. */
static tsync_time *min_delays(const tsync_trace *tt, const uint32_t *group, uint32_t n)
{
    tsync_time *lo = xcalloc((size_t)n * n, sizeof(*lo));
    for (size_t i = 0; i < (size_t)n * n; i++)
        lo[i] = INT64_MAX;
    for (size_t k = 0; k < tt->n_messages; k++) {
        const struct tsync_message *m = &tt->messages[k];
        tsync_time d = tt->locations[m->recv_loc].time[m->recv_idx] -
                       tt->locations[m->send_loc].time[m->send_idx];
        size_t at = group ? (size_t)group[m->send_loc] * n + group[m->recv_loc]
                          : (size_t)m->send_loc * n + m->recv_loc;
        if (d < lo[at])
            lo[at] = d;
    }
    return lo;
}

/* Half the largest difference between the minimum true delays of the two directions
 * of a pair of locations, truth ticks (0 when no pair has messages both ways). */
static double asymmetry(const tsync_trace *tt)
{
    uint32_t n = tt->n_locations;
    tsync_time *lo = min_delays(tt, NULL, n);
    double worst = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++) {
            tsync_time x = lo[(size_t)a * n + b], y = lo[(size_t)b * n + a];
            if (x != INT64_MAX && y != INT64_MAX && fabs((double)(x - y)) / 2 > worst)
                worst = fabs((double)(x - y)) / 2;
        }
    free(lo);
    return worst;
}

/* The offset error the delays' direction asymmetry leaves along the maps' paths:
 * a hop from domain a to b puts b half the difference between the minimum true
 * delays a -> b and b -> a (over their locations' messages) off, whatever the
 * estimator (the middle of the band the two directions leave), and the hops of a
 * path add up. The largest |sum| over the domains of component 0, truth ticks; a
 * hop with messages one way only adds nothing. */
static double path_asymmetry(const struct setup *su, const tsync_estimate *e)
{
    const tsync_trace *tr = su->trace, *tt = su->truth;
    uint32_t nd = tsync_estimate_domain_count(e);
    uint32_t *dom = xcalloc(tt->n_locations, sizeof(*dom));
    tsync_time *lo;
    double worst = 0;
    for (tsync_loc i = 0; i < tsync_trace_location_count(tr); i++)
        dom[su->truth_loc[i]] = tsync_trace_location_domain(tr, i);
    lo = min_delays(tt, dom, nd);
    for (uint32_t d = 0; d < nd; d++) {
        const tsync_estimate_domain *ed = tsync_estimate_get_domain(e, d);
        double sum = 0;
        for (uint32_t h = 0; ed->component == 0 && h < ed->path_length; h++) {
            tsync_time ab = lo[(size_t)ed->path[h] * nd + ed->path[h + 1]];
            tsync_time ba = lo[(size_t)ed->path[h + 1] * nd + ed->path[h]];
            if (ab != INT64_MAX && ba != INT64_MAX)
                sum += (double)(ab - ba) / 2;
        }
        worst = fabs(sum) > worst ? fabs(sum) : worst;
    }
    free(dom);
    free(lo);
    return worst;
}

/* ---- one class ------------------------------------------------------------------------- */

struct config {
    const char *name;
    enum tsync_estimator estimator;
    int global_lsq;
    int class_latency;        /* told the class's latencies (else the defaults) */
};

static const struct config configs[] = {
    { "default", TSYNC_ESTIMATOR_HULL, 0, 0 },
    { "hull", TSYNC_ESTIMATOR_HULL, 0, 1 },
    { "hull-global", TSYNC_ESTIMATOR_HULL, 1, 1 },
    { "regression", TSYNC_ESTIMATOR_REGRESSION, 0, 1 },
};
#define N_CONFIGS (sizeof(configs) / sizeof(configs[0]))

/* What the test and the summary need of the default configuration. */
struct outcome {
    double baseline_ns, sync_ns, sync_main_ns, maps_ns, inside_pct, asym_ns;
    double path_asym_ns;       /* asymmetry along the default maps' paths */
    double lttv_ns;            /* LTTV's hull on the same messages; NAN: not measured */
    int has_offsets;
};

/* How far the ClockOffset records are from the truth: a record at local time x with
 * offset o says the master's clock read x + o at that moment; the master's raw
 * clock at the record's true time (the truth has the same records, with true times,
 * in the same order) says what it did read. The largest |difference|, ticks. */
static double offset_error(const struct setup *su, tsync_loc master)
{
    const tsync_trace *tr = su->trace, *tt = su->truth;
    const tsync_time *raw[1] = { loc_times(tr, master) };
    const tsync_time **times = xcalloc(tr->n_locations, sizeof(*times));
    struct axis ax;
    double worst = 0;
    if (tt->n_offsets != tr->n_offsets)
        die(NULL, tsync_trace_path(tt), "ClockOffset records differ from the trace's");
    if (!tr->n_offsets) {
        free(times);
        return 0;
    }
    times[master] = raw[0];
    axis_build(&ax, su, tr, times, NULL, 0, master, 0);
    for (size_t k = 0; k < tr->n_offsets; k++) {
        uint64_t cur = axis_start(&ax, tt->offsets[k].time);
        double e = fabs(axis_error(&ax, &cur, tt->offsets[k].time,
                                   tr->offsets[k].time + tr->offsets[k].offset));
        if (e > worst)
            worst = e;
    }
    axis_free(&ax);
    free(times);
    return worst;
}

static struct stats baseline(struct setup *su, const char *id, tsync_ctx *ctx, double ns_per_tick)
{
    const tsync_trace *trace = su->trace;
    tsync_loc n_loc = tsync_trace_location_count(trace), master = master_location(trace);
    const tsync_time **times = xcalloc(n_loc, sizeof(*times));
    tsync_timeline *tl;
    uint32_t mapped = 0;
    struct axis ax;
    struct stats s;
    if (tsync_timeline_new(&tl, trace, ctx) || tsync_clc_presync(&mapped, NULL, trace, tl, ctx))
        die(ctx, id, "baseline");
    for (tsync_loc i = 0; i < n_loc; i++) {
        times[i] = tsync_timeline_times(tl, i);
        su->counted[i] = 1;
    }
    su->left_out = 0;
    axis_build(&ax, su, trace, times, NULL, 0, master, 0);
    measure(&s, su, &ax, trace, times, NULL, NULL);
    axis_free(&ax);
    print_stats(id, mapped ? "interpolation" : "uncorrected", "baseline", &s, ns_per_tick);
    printf(" baseline=%s reference=%s offset_records=%zu offset_error_max_ns=%.1f\n",
           mapped ? "clockoffset-interpolation" : "uncorrected",
           tsync_trace_location_name(trace, master), trace->n_offsets,
           offset_error(su, master) * ns_per_tick);
    fflush(stdout);
    free(s.abs);
    tsync_timeline_free(tl);
    free(times);
    return s;
}

/* LTTV's hull on a trace of two locations (lttv_hull.c): the second location's times
 * through its factors onto the first's clock, measured as the baseline is. Prints
 * nothing for other traces; the line says which of LTTV's approximations it was.
 * Returns the max error in ns, NAN where LTTV gives no factors. */
static double lttv_reference(struct setup *su, const char *id, double ns_per_tick)
{
    const tsync_trace *tr = su->trace;
    struct tsync__pt *dir[2];
    size_t n[2] = { 0, 0 };
    const tsync_time **times;
    tsync_time *second;
    long double drift, offset;
    enum lttv_kind kind;
    struct axis ax;
    struct stats s;
    if (tsync_trace_location_count(tr) != 2 || !tr->n_messages)
        return NAN;
    dir[0] = xcalloc(tr->n_messages, sizeof(**dir));
    dir[1] = xcalloc(tr->n_messages, sizeof(**dir));
    for (size_t k = 0; k < tr->n_messages; k++) {
        const struct tsync_message *m = &tr->messages[k];
        tsync_time ts = loc_times(tr, m->send_loc)[m->send_idx];
        tsync_time tv = loc_times(tr, m->recv_loc)[m->recv_idx];
        int back = m->send_loc == 1;
        dir[back][n[back]++] = back ? (struct tsync__pt){ tv, ts } : (struct tsync__pt){ ts, tv };
    }
    kind = lttv_hull_factors(dir[0], n[0], dir[1], n[1], &drift, &offset);
    free(dir[0]);
    free(dir[1]);
    if (kind == LTTV_INCOMPLETE) {
        printf("class=%s estimator=lttv-hull stage=reference kind=%s\n", id, lttv_kind_name(kind));
        return NAN;
    }
    times = xcalloc(2, sizeof(*times));
    second = xcalloc(loc_events(tr, 1), sizeof(*second));
    for (uint64_t j = 0; j < loc_events(tr, 1); j++)
        second[j] = (tsync_time)llroundl(((long double)loc_times(tr, 1)[j] - offset) / drift);
    times[0] = loc_times(tr, 0);
    times[1] = second;
    su->counted[0] = su->counted[1] = 1;
    su->left_out = 0;
    axis_build(&ax, su, tr, times, NULL, 0, 0, 0);
    measure(&s, su, &ax, tr, times, NULL, NULL);
    print_stats(id, "lttv-hull", "reference", &s, ns_per_tick);
    printf(" kind=%s drift_ppm=%.3Lf\n", lttv_kind_name(kind), (drift - 1) * 1e6L);
    fflush(stdout);
    axis_free(&ax);
    free(s.abs);
    free(second);
    free(times);
    return s.max * ns_per_tick;
}

/* Simulates class c into simdir: the trace's and the truth's paths, what the run made. */
static void simulate(const struct trace_class *c, int test, tsync_sim_opts *so, const char *simdir,
                     char *anchor, char *truth_path, tsync_sim_result *sr, tsync_ctx *ctx)
{
    const char *ext;
    double t0;
    if (tsync_sim_scenario(so, c->scenario, ctx))
        die(ctx, c->id, "scenario");
    apply_sets(so, c->sets, c->id, ctx);
    if (test)
        apply_sets(so, c->test_sets, c->id, ctx);
    apply_sets(so, extra_sets, c->id, ctx);
    ext = so->format == TSYNC_SIM_CSV ? "csv" : "otf2";
    snprintf(anchor, PATH_LEN, "%s/trace.%s", simdir, ext);
    snprintf(truth_path, PATH_LEN, "%s/truth.%s", simdir, ext);
    t0 = bench_now();
    if (tsync_sim_run(sr, so, simdir, ctx))
        die(ctx, c->id, "simulate");
    printf("class=%s what=\"%s\" simulate=\"--scenario %s", c->id, c->what, c->scenario);
    print_sets(c->sets);
    if (test)
        print_sets(c->test_sets);
    print_sets(extra_sets);
    printf("\"\n");
    printf("class=%s stage=simulate events=%llu messages=%llu latency_intra_ns=%.0f "
           "latency_inter_ns=%.0f seconds=%.3f\n", c->id, (unsigned long long)sr->events,
           (unsigned long long)sr->messages, so->net.latency_intra_s * 1e9,
           so->net.latency_inter_s * 1e9, bench_now() - t0);
}

/* A recorded trace (TSYNC_DATA_DIR/c->data) and its truth: the trace with the ground
 * truth's maps applied, written into simdir. The whole run is its main phase. */
static void recorded(const struct trace_class *c, const char *simdir, char *anchor,
                     char *truth_path, tsync_sim_result *sr, tsync_ctx *ctx)
{
    char maps_path[PATH_LEN];
    const char *base = strrchr(c->data, '/');
    tsync_map_set *maps;
    tsync_timeline *tl;
    tsync_trace *t;
    snprintf(anchor, PATH_LEN, "%s/%s", TSYNC_DATA_DIR, c->data);
    snprintf(maps_path, sizeof(maps_path), "%s/%s", TSYNC_DATA_DIR, c->data_truth);
    snprintf(truth_path, PATH_LEN, "%s/%s", simdir, base ? base + 1 : c->data);
    if (tsync_trace_open(&t, anchor, NULL, ctx) || tsync_map_set_load(&maps, maps_path, t, ctx) ||
        tsync_timeline_new(&tl, t, ctx) || tsync_map_set_apply(maps, t, tl, ctx) ||
        tsync_trace_write(t, tl, simdir, ctx))
        die(ctx, c->id, "the recorded trace's truth");
    memset(sr, 0, sizeof(*sr));
    sr->events = tsync_trace_event_count(t);
    sr->messages = t->n_messages;
    sr->main_end_s = 1e9; /* every event */
    printf("class=%s what=\"%s\" data=\"%s\" truth=\"%s\"\n", c->id, c->what, c->data,
           c->data_truth);
    printf("class=%s stage=recorded events=%llu messages=%llu\n", c->id,
           (unsigned long long)sr->events, (unsigned long long)sr->messages);
    tsync_timeline_free(tl);
    tsync_map_set_free(maps);
    tsync_trace_free(t);
}

static void run_class(const char *dir, const struct trace_class *c, int test, tsync_ctx *ctx,
                      struct outcome *out)
{
    char simdir[4096], anchor[PATH_LEN], truth_path[PATH_LEN], outdir[PATH_LEN];
    const tsync_open_opts open_opts = TSYNC_OPEN_OPTS_INIT;
    tsync_sim_opts so = TSYNC_SIM_OPTS_INIT;
    so.seed = sim_seed;
    tsync_sim_result sr;
    tsync_trace *trace, *truth;
    const tsync_time **times;
    struct setup su;
    struct stats bs;
    tsync_loc n_loc;
    double t0, ns_per_tick, truth_res;

    snprintf(simdir, sizeof(simdir), "%s/%s", dir, c->id);
    if (c->data)
        recorded(c, simdir, anchor, truth_path, &sr, ctx);
    else
        simulate(c, test, &so, simdir, anchor, truth_path, &sr, ctx);
    fflush(stdout);
    /* Grouped as sync groups it (nodes split where their messages contradict them). */
    if (tsync_trace_open(&trace, anchor, &open_opts, ctx))
        die(ctx, c->id, "read trace");
    if (tsync_trace_open(&truth, truth_path, NULL, ctx))
        die(ctx, c->id, "read truth");
    ns_per_tick = 1e9 / (double)tsync_trace_timer_resolution(trace);
    truth_res = (double)tsync_trace_timer_resolution(truth);

    memset(&su, 0, sizeof(su));
    su.trace = trace;
    su.truth = truth;
    su.main_lo = (tsync_time)(sr.main_start_s * truth_res);
    su.main_hi = (tsync_time)(sr.main_end_s * truth_res) + 1;
    n_loc = tsync_trace_location_count(trace);
    su.truth_loc = xcalloc(n_loc, sizeof(*su.truth_loc));
    su.counted = xcalloc(n_loc, 1);
    times = xcalloc(n_loc, sizeof(*times));
    for (tsync_loc i = 0; i < n_loc; i++)
        if (tsync_trace_find_location(truth, tsync_trace_location_ref(trace, i), &su.truth_loc[i]) ||
            loc_events(truth, su.truth_loc[i]) != loc_events(trace, i))
            die(NULL, c->id, "trace and truth do not correspond");

    out->asym_ns = asymmetry(truth) * 1e9 / truth_res;
    out->has_offsets = trace->n_offsets > 0;
    bs = baseline(&su, c->id, ctx, ns_per_tick);
    out->baseline_ns = bs.max * ns_per_tick;
    out->lttv_ns = lttv_reference(&su, c->id, ns_per_tick);

    for (size_t k = 0; k < (test ? 1 : N_CONFIGS); k++) {
        const struct config *cf = &configs[k];
        tsync_estimate_opts eo = TSYNC_ESTIMATE_OPTS_INIT;
        tsync_sync_opts yo = TSYNC_SYNC_OPTS_INIT;
        tsync_check_opts co = TSYNC_CHECK_OPTS_INIT;
        tsync_check_report *chk;
        tsync_sync_result *res;
        tsync_estimate *e;
        tsync_timeline *tl;
        tsync_trace *synced;
        struct stats s, clock_s, master_s;
        struct axis ax, clock_ax, master_ax;
        tsync_loc ref, sync_ref;
        uint64_t after_maps, violations;
        double t_est, t_sync;

        eo.estimator = cf->estimator;
        eo.global_lsq = cf->global_lsq;
        if (cf->class_latency) {
            int told = c->latency_intra_s > 0 || c->latency_inter_s > 0;
            eo.latency_intra_s = co.latency_intra_s = told ? c->latency_intra_s : so.net.latency_intra_s;
            eo.latency_inter_s = co.latency_inter_s = told ? c->latency_inter_s : so.net.latency_inter_s;
        }
        warnings = 0;
        t0 = bench_now();
        if (tsync_estimate_run(&e, trace, &eo, ctx))
            die(ctx, c->id, "estimate");
        t_est = bench_now() - t0;

        /* Component 0 and its reference. */
        ref = domain_location(trace, tsync_estimate_component_reference(e, 0));
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
            die(ctx, c->id, "apply maps");
        after_maps = chk->violations;
        tsync_check_report_free(chk);
        axis_build(&ax, &su, NULL, NULL, tsync_estimate_maps(e), 0, ref, 1);
        for (tsync_loc i = 0; i < n_loc; i++)
            times[i] = tsync_timeline_times(tl, i);
        measure(&s, &su, &ax, trace, times, tsync_estimate_maps(e), e);
        axis_free(&ax);
        print_stats(c->id, cf->name, "maps", &s, ns_per_tick);
        printf(" inside_bound=%.4f%% outside_bound=%llu max_error_of_bound=%.1f%% "
               "max_bound_ns=%.1f mean_bound_ns=%.1f unbounded=%llu violations=%llu reference=%s "
               "components=%u seconds=%.3f\n",
               s.events ? 100.0 * (double)s.inside / (double)s.events : 0.0,
               (unsigned long long)(s.events - s.inside - s.unbounded), 100.0 * s.max_ratio,
               s.max_bound * ns_per_tick,
               s.events > s.unbounded ? s.sum_bound / (double)(s.events - s.unbounded) * ns_per_tick
                                      : 0.0,
               (unsigned long long)s.unbounded,
               (unsigned long long)after_maps, tsync_trace_location_name(trace, ref),
               tsync_estimate_component_count(e), t_est);
        fflush(stdout);
        if (k == 0) {
            out->maps_ns = s.max * ns_per_tick;
            out->inside_pct = s.events ? 100.0 * (double)s.inside / (double)s.events : 0.0;
            out->path_asym_ns = path_asymmetry(&su, e) * 1e9 / truth_res;
        }
        free(s.abs);
        tsync_timeline_free(tl);
        tsync_estimate_free(e);

        /* The main job, and its output read back. */
        yo.estimate = eo;
        yo.check = co;
        snprintf(outdir, sizeof(outdir), "%s/sync-%s", simdir, cf->name);
        t0 = bench_now();
        if (tsync_sync_run(&res, anchor, outdir, &yo, ctx))
            die(ctx, c->id, "sync");
        t_sync = bench_now() - t0;
        violations = res->after->violations;
        if (tsync_trace_location_count(res->trace) != n_loc)
            die(NULL, c->id, "sync read other locations");
        for (tsync_loc i = 0; i < n_loc; i++)
            if (tsync_trace_location_ref(res->trace, i) != tsync_trace_location_ref(trace, i))
                die(NULL, c->id, "sync read the locations in another order");
        sync_ref = domain_location(trace, tsync_estimate_component_reference(res->estimate, 0));
        axis_build(&clock_ax, &su, NULL, NULL, tsync_estimate_maps(res->estimate), res->shift_ticks,
                   sync_ref, 1);
        snprintf(outdir, sizeof(outdir), "%s", res->output);
        tsync_sync_result_free(res);
        if (tsync_trace_open(&synced, outdir, NULL, ctx))
            die(ctx, c->id, "read the output");
        if (tsync_trace_location_count(synced) != n_loc)
            die(NULL, c->id, "the output has other locations");
        for (tsync_loc i = 0; i < n_loc; i++)
            times[i] = loc_times(synced, i);
        axis_build(&ax, &su, synced, times, NULL, 0, sync_ref, 1);
        axis_build(&master_ax, &su, synced, times, NULL, 0, master_location(trace), 1);
        measure(&clock_s, &su, &clock_ax, synced, times, NULL, NULL);
        free(clock_s.abs);
        measure(&master_s, &su, &master_ax, synced, times, NULL, NULL);
        free(master_s.abs);
        measure(&s, &su, &ax, synced, times, NULL, NULL);
        print_stats(c->id, cf->name, "sync", &s, ns_per_tick);
        printf(" violations=%llu seconds=%.3f clock_max_ns=%.1f master_max_ns=%.1f "
               "baseline_max_ns=%.1f asymmetry_ns=%.1f path_asymmetry_ns=%.1f\n",
               (unsigned long long)violations, t_sync, clock_s.max * ns_per_tick,
               master_s.max * ns_per_tick, out->baseline_ns, out->asym_ns, out->path_asym_ns);
        fflush(stdout);
        if (k == 0) {
            out->sync_ns = s.max * ns_per_tick;
            out->sync_main_ns = s.main_max * ns_per_tick;
        }
        free(s.abs);
        axis_free(&ax);
        axis_free(&clock_ax);
        axis_free(&master_ax);
        tsync_trace_free(synced);
    }
    free(times);
    free(su.truth_loc);
    free(su.counted);
    tsync_trace_free(trace);
    tsync_trace_free(truth);
}

/* The test's verdict on one class: 0 when every threshold holds. */
static int judge(const struct trace_class *c, const struct outcome *o)
{
    int bad_max = !(o->sync_ns < c->max_ns), bad_in = o->inside_pct < c->inside_pct;
    int bad_base = c->beat_baseline && !(o->sync_ns < o->baseline_ns);
    int bad_lttv = c->beat_baseline == 2 && !(o->sync_ns < o->lttv_ns);
    printf("test class=%s sync_max_ns=%.1f limit_ns=%.0f inside_bound=%.4f%% required=%.2f%% "
           "baseline_max_ns=%.1f baseline=%s must_beat=%s lttv_max_ns=%.1f asymmetry_ns=%.1f %s "
           "target=\"%s\"\n",
           c->id, o->sync_ns, c->max_ns, o->inside_pct, c->inside_pct, o->baseline_ns,
           o->has_offsets ? "interpolation" : "uncorrected",
           c->beat_baseline == 2 ? "yes+lttv" : c->beat_baseline ? "yes" : "no", o->lttv_ns,
           o->asym_ns, bad_max || bad_in || bad_base || bad_lttv ? "FAIL" : "ok", c->target);
    return bad_max || bad_in || bad_base || bad_lttv;
}

int main(int argc, char **argv)
{
    int test = argc > 1 && !strcmp(argv[1], "--test"), failed = 0;
    int first = 1 + test;
    if (argc > first + 1 && !strcmp(argv[first], "--seed")) {
        char *end;
        sim_seed = strtoull(argv[first + 1], &end, 10);
        if (*end || end == argv[first + 1])
            die(NULL, argv[first + 1], "--seed takes a number");
        first += 2;
    }
    for (; argc > first + 1 && !strcmp(argv[first], "--set"); first += 2) {
        const char *kv = argv[first + 1];
        size_t used = strlen(extra_sets), len = strlen(kv);
        if (!strchr(kv, '=') || strchr(kv, ' ') || used + len + 2 > sizeof(extra_sets))
            die(NULL, kv, "--set takes KEY=VALUE");
        if (used)
            extra_sets[used++] = ' ';
        memcpy(extra_sets + used, kv, len + 1);
    }
    const char *dir = argc > first ? argv[first] : "bench-accuracy";
    const struct trace_class **run = xcalloc(N_CLASSES + (size_t)argc, sizeof(*run));
    struct outcome *out = xcalloc(N_CLASSES + (size_t)argc, sizeof(*out));
    size_t n = 0;
    tsync_ctx *ctx;

    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: bench_accuracy [--test] [--seed N] [--set KEY=VALUE]... [DIR] "
               "[CLASS...]\n"
               "  default DIR bench-accuracy, every class:");
        for (size_t i = 0; i < N_CLASSES; i++)
            printf(" %s", classes[i].id);
        printf("\n  --test: the small sizes, the default configuration, thresholds checked\n"
               "  --seed N: the simulator's seed (default 1)\n"
               "  --set KEY=VALUE: changes every class's simulation (as tracesync simulate's\n"
               "  --set), after the class's own parameters\n");
        return 0;
    }
    /* The classes named, or all (in the test: all that have a test size). */
    for (size_t i = 0; i < N_CLASSES; i++) {
        int named = argc <= first + 1;
        for (int a = first + 1; a < argc; a++)
            named |= !strcmp(classes[i].id, argv[a]);
        if (named && (!test || classes[i].test_sets))
            run[n++] = &classes[i];
    }
    if (!n)
        die(NULL, argc > first + 1 ? argv[first + 1] : "", test ? "no such class with a test size"
                                                               : "no such class");
    if (tsync_ctx_new(&ctx))
        return 2;
    tsync_ctx_set_log(ctx, on_log, NULL);
    for (size_t i = 0; i < n; i++)
        run_class(dir, run[i], test, ctx, &out[i]);
    printf("summary: class | baseline max | default maps max | inside bound | default sync max "
           "| main phase max | asymmetry | LTTV's hull max | asymmetry along paths\n");
    for (size_t i = 0; i < n; i++) {
        printf("summary: %s | %.1f us (%s) | %.1f us | %.2f %% | %.1f us | %.1f us | %.1f us | ",
               run[i]->id, out[i].baseline_ns / 1e3,
               out[i].has_offsets ? "interpolation" : "uncorrected", out[i].maps_ns / 1e3,
               out[i].inside_pct, out[i].sync_ns / 1e3, out[i].sync_main_ns / 1e3,
               out[i].asym_ns / 1e3);
        if (isnan(out[i].lttv_ns))
            printf("- | ");
        else
            printf("%.1f us | ", out[i].lttv_ns / 1e3);
        printf("%.1f us\n", out[i].path_asym_ns / 1e3);
        if (test)
            failed |= judge(run[i], &out[i]);
    }
    free(out);
    free(run);
    tsync_ctx_free(ctx);
    return failed;
}
