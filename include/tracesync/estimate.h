/* estimate.h - offline clock estimation: from the messages a trace already holds,
 * one time map per clock domain onto a reference clock, with an error bound.
 *
 * The stages, each in its own file:
 *
 *   samples   every message between two clock domains is a one-way constraint
 *             (the receive comes at least the minimum latency after the send); a
 *             message and the answer that follows it is an exchange sample (seed
 *             003, Eq. 3); ClockOffset records are measured samples of the same kind
 *   pairs     per pair of domains, an estimator (`hull` or `regression`) finds the
 *             line relating their clocks, split into pieces where one line cannot
 *             hold (segmentation), with the range of values the data allow
 *   graph     domains are vertices, estimated pairs edges weighted by their error;
 *             each connected component gets a reference (by default the trace's
 *             own global time base: the clock of the ClockOffset master, else of MPI
 *             rank 0, seed 000; or the smallest sum of shortest-path errors, seed 003
 *             section 10; or the one given), and every domain's map is composed
 *             along its best path, bounds added up
 *   global    optionally, a weighted least-squares correction over every edge, so
 *             that the inconsistencies of loops cancel instead of accumulating
 *
 * Typical use:
 *
 *     tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
 *     tsync_estimate *e;
 *     if (tsync_estimate_run(&e, trace, &o, ctx) == 0) {
 *         tsync_map_set_apply(tsync_estimate_maps(e), trace, timeline, ctx);
 *         tsync_estimate_print(e, trace, stdout);
 *         tsync_estimate_free(e);
 *     }
 *
 * Bounds. A result says how good it is (tsync_bound_kind). The hull's bound is
 * guaranteed at every point in time, provided no drift changes faster than
 * max_wander (the bound grows with the distance from the samples), no message is
 * faster than the minimum latency, and the drift is at most max_drift where the
 * messages leave it open; the regression's bound is
 * statistical (three standard errors of the fitted line plus the residual standard
 * deviation). Bounds add up along a path.
 */
#ifndef TRACESYNC_ESTIMATE_H
#define TRACESYNC_ESTIMATE_H

#include <stdio.h>

#include "tracesync/common.h"
#include "tracesync/timemap.h"
#include "tracesync/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The pairwise estimator: an id in the library's table of estimators
 *  (src/estimate/registry.c), which lists these three first; tsync_estimator_parse
 *  finds any by name, tsync_estimator_count says how many there are. */
enum tsync_estimator {
    TSYNC_ESTIMATOR_HULL = 0,        /* convex hull (Duda; Jabbarifar and Dagenais), default */
    TSYNC_ESTIMATOR_REGRESSION = 1,  /* least squares over exchanges (seed 003, Eqs. 2-8) */
    TSYNC_ESTIMATOR_NONE = 2         /* no estimation: every domain keeps its time */
};

/** How the reference clock of each connected component of domains is chosen. */
enum tsync_reference_rule {
    TSYNC_REFERENCE_GLOBAL = 0,  /* the trace's own global time base (default): the domain
                                  * of the ClockOffset master (the location the records'
                                  * offsets refer to), else of MPI rank 0 (seed 000: the
                                  * master's clock becomes the global clock); a component
                                  * without it falls back to AUTO */
    TSYNC_REFERENCE_AUTO = 1     /* the smallest sum of shortest-path errors to the others
                                  * (seed 003, section 10) */
};

/** How good an estimate is. */
enum tsync_bound_kind {
    TSYNC_BOUND_EXACT = 0,     /* the reference itself: error 0 */
    TSYNC_BOUND_BOUNDED = 1,   /* a finite bound on both sides */
    TSYNC_BOUND_FALLBACK = 2,  /* an estimate without a two-sided bound: messages in one
                                * direction only, or samples contradicting linear clocks */
    TSYNC_BOUND_ABSENT = 3     /* nothing relates the domain to another: time kept */
};

/**
 * Options for tsync_estimate_run; initialize with TSYNC_ESTIMATE_OPTS_INIT.
 * The minimum latencies are those of tsync_check_opts, with the same defaults:
 * within a node (intra) and between nodes (inter), in seconds, overridden per pair
 * of nodes by `latency_file`.
 */
typedef struct {
    unsigned version;
    enum tsync_estimator estimator;
    const char *reference;   /* name of the reference domain, or NULL: reference_rule */
    double latency_intra_s;  /* minimum message latency within a node, s (>= 0) */
    double latency_inter_s;  /* minimum message latency between nodes, s (>= 0) */
    int segment;             /* split where one line cannot hold (1) or never (0) */
    double min_segment_s;    /* shortest piece, s; a sample that contradicts a shorter
                              * piece is dropped instead (and counted) */
    int global_lsq;          /* weighted least squares over all pairs (loops) */
    double max_drift;        /* |rate difference| assumed at most this where the data
                              * leave the drift open (1e-3 = 1000 ppm) */
    int use_clock_offsets;   /* ClockOffset records as samples (1) or ignored (0) */
    double max_gap_s;        /* longest time without samples a piece spans, s: across a
                              * longer gap the drift may have changed unseen (0: any) */
    double max_segment_s;    /* longest piece with samples in both directions, s: drift
                              * that changes with temperature bends the clocks within a
                              * piece by less than the latencies show (0: any) */
    enum tsync_reference_rule reference_rule; /* where `reference` is NULL, and in the
                              * other components (version 2 on; version 1: AUTO) */
    double max_wander;       /* how fast a drift may change, per second (1e-8 = 0.01 ppm/s):
                              * a bound grows with the distance t from the samples by
                              * max_wander t^2 / 2, and inside a piece of length L by
                              * max_wander L^2 / 8 (see segment.c); 0: linear clocks
                              * (version 2 on; version 1: 1e-8) */
    const char *latency_file;/* per node pair minimum latencies (the format of
                              * tsync_clc_opts), or NULL (version 3 on) */
} tsync_estimate_opts;
#define TSYNC_ESTIMATE_OPTS_VERSION 3
#define TSYNC_ESTIMATE_OPTS_INIT                                                             \
    { TSYNC_ESTIMATE_OPTS_VERSION, TSYNC_ESTIMATOR_HULL, NULL, 0.3e-6, 1.0e-6, 1, 1.0, 0, 1e-3, \
      1, 10.0, 30.0, TSYNC_REFERENCE_GLOBAL, 1e-8, NULL }

typedef struct tsync_estimate tsync_estimate;

/** What the samples of a pair of domains came from, counted (a message gives a one-way
 *  constraint and may be part of an exchange sample; a ClockOffset record two
 *  constraints around its point). */
typedef struct {
    uint64_t messages;     /* point-to-point messages of the program */
    uint64_t collectives;  /* logical messages of collective operations (seed 002, 4.1) */
    uint64_t sessions;     /* messages of a tracer's clock synchronization sessions (seed
                            * 000; libtracesync-collect's communicator "tracesync timesync") */
    uint64_t offsets;      /* ClockOffset records (measured offsets) */
} tsync_estimate_sources;

/** The result for one clock domain. All pointers are borrowed from the estimate. */
typedef struct {
    const char *name;
    const tsync_time_map *map;   /* local ticks -> reference ticks (plus the component's
                                  * shift), with per-point bounds when bounded; NULL when
                                  * ABSENT */
    enum tsync_bound_kind kind;
    double bound_s;              /* largest bound of the map over its points, seconds: 0 for
                                  * the reference, INFINITY for FALLBACK and ABSENT */
    uint64_t samples;            /* samples of the pair on its path's last hop (0 for a
                                  * reference) */
    uint32_t pieces;             /* pieces of the pair on its path's last hop: more than one
                                  * where the drift changed (segmentation) */
    uint32_t component;          /* connected component of the graph */
    uint32_t reference;          /* the reference domain of that component */
    uint32_t path_length;        /* hops to the reference */
    const uint32_t *path;        /* path_length + 1 domains: reference first, this one last */
    double offset_s;             /* map(t) - t - shift in the middle of the domain's events:
                                  * its offset to the reference, s */
    double drift;                /* average slope of the map minus 1 (1e-6 = 1 ppm) */
    uint32_t locations;          /* locations in the domain */
    tsync_estimate_sources sources; /* what the samples of every hop of its path came
                                  * from, summed (zero for a reference) */
} tsync_estimate_domain;

/** An estimated pair of domains: an edge of the graph. */
typedef struct {
    uint32_t a, b;               /* domains, a < b */
    double weight_s;             /* what a path through it costs: its largest bound
                                  * (hull width or E_r), or three times the scatter of
                                  * the windowed minima its curve follows, seconds;
                                  * INFINITY for FALLBACK */
    enum tsync_bound_kind kind;  /* BOUNDED or FALLBACK */
    uint64_t samples;            /* one-way constraints and exchanges used */
    uint64_t rejected;           /* samples dropped: contradicting a short piece, or
                                  * outside the 90 % interval (regression) */
    uint32_t pieces;             /* linear pieces */
    int in_tree;                 /* on some domain's path to its reference */
    tsync_estimate_sources sources; /* what its samples came from */
} tsync_estimate_edge;

/** How locations were grouped into clock domains, and whether the data agree. */
typedef struct {
    const char *rule;            /* "node", "location" or "file" (tsync_trace_domain_rule) */
    const char *reason;          /* why, in words */
    uint64_t messages;           /* messages between two locations of one domain */
    uint64_t reversed;           /* ... received before they were sent */
    uint64_t contradicting;      /* ... by more than 10 x the larger minimum latency: the
                                  * locations cannot share a clock */
    double max_reversal_s;       /* largest send - receive among them, s */
    uint32_t worst_domain;       /* the domain with that message (if reversed > 0) */
} tsync_estimate_grouping;

/**
 * Estimates a map for every clock domain of `trace`. `opts` may be NULL for the
 * defaults. Warnings go to the context's log: components that are unrelated to
 * each other, samples contradicting a linear clock, domains whose messages
 * contradict the grouping.
 * @return 0, or TSYNC_EINVAL (bad options, unknown reference domain, timer
 *         resolution 0) or TSYNC_ENOMEM; *out is set only on success.
 */
TSYNC_API int tsync_estimate_run(tsync_estimate **out, const tsync_trace *trace,
                                 const tsync_estimate_opts *opts, tsync_ctx *ctx);

/** Frees an estimate; NULL is fine. */
TSYNC_API void tsync_estimate_free(tsync_estimate *e);

/** The maps, one per location (its domain's map). Borrowed. */
TSYNC_API const tsync_map_set *tsync_estimate_maps(const tsync_estimate *e);

/** "hull", "regression" or "none": the name of the estimator that made e. */
TSYNC_API const char *tsync_estimate_estimator_name(const tsync_estimate *e);
/** An estimator by its name ("hull", "regression", "none", ...): 0, or TSYNC_EINVAL
 *  with *out unchanged. */
TSYNC_API int tsync_estimator_parse(const char *name, enum tsync_estimator *out);
/** How many estimators there are: their ids are 0 .. count - 1. */
TSYNC_API unsigned tsync_estimator_count(void);
/** The name of estimator `which`, or NULL when no estimator has that id. */
TSYNC_API const char *tsync_estimator_name(enum tsync_estimator which);
/** What estimator `which` does, for people ("mean of the extreme separating lines;
 *  bounds guaranteed"), or NULL when it estimates nothing or no estimator has that
 *  id. */
TSYNC_API const char *tsync_estimator_summary(enum tsync_estimator which);
/** "exact", "bounded", "fallback" or "absent". */
TSYNC_API const char *tsync_bound_kind_name(enum tsync_bound_kind kind);

TSYNC_API uint32_t tsync_estimate_domain_count(const tsync_estimate *e);
/** Domain `d` (0 .. count-1, as in the trace), or NULL when out of range. */
TSYNC_API const tsync_estimate_domain *tsync_estimate_get_domain(const tsync_estimate *e,
                                                                 uint32_t d);

TSYNC_API size_t tsync_estimate_edge_count(const tsync_estimate *e);
/** Edge `i`, ordered by (a, b), or NULL when out of range. */
TSYNC_API const tsync_estimate_edge *tsync_estimate_get_edge(const tsync_estimate *e, size_t i);

/** Connected components and their references (domain indices). */
TSYNC_API uint32_t tsync_estimate_component_count(const tsync_estimate *e);
TSYNC_API uint32_t tsync_estimate_component_reference(const tsync_estimate *e, uint32_t c);
/** How component c's reference was chosen: "master" (the ClockOffset master's domain),
 *  "rank0" (MPI rank 0's domain, without ClockOffset records), "auto" (the smallest
 *  sum of shortest-path errors) or "given" (opts.reference); NULL when c is out of
 *  range. *why, when not NULL, gets the same in words (borrowed from the estimate). */
TSYNC_API const char *tsync_estimate_reference_rule(const tsync_estimate *e, uint32_t c,
                                                    const char **why);

/** Busy periods of the trace (MPI_Init, the main phase, MPI_Finalize, separated by
 *  more than half of max_gap_s without events): each has its own shortest paths,
 *  since the pair that relates two clocks best in one period may not in another; a
 *  domain's path is that of the busiest period. 1 when the trace has no such gap. */
TSYNC_API size_t tsync_estimate_period_count(const tsync_estimate *e);

/** Ticks added to every map of component c so that no corrected time is negative
 *  (OTF2 cannot store one): the earliest event keeps the earliest raw time. 0 when
 *  no time would be negative; the reference's map is then the identity. */
TSYNC_API int64_t tsync_estimate_component_shift(const tsync_estimate *e, uint32_t c);

TSYNC_API const tsync_estimate_grouping *tsync_estimate_get_grouping(const tsync_estimate *e);

/**
 * The maps as JSON text in the format of docs/maps.md, which `tracesync apply`
 * reads, plus an "estimate" object: estimator, latencies, grouping, references,
 * components, per-domain results (kind, bound, samples, pieces with their bounds,
 * path) and the graph. malloc'ed (free with free()), or NULL with the error in ctx.
 */
TSYNC_API char *tsync_estimate_json(const tsync_estimate *e, const tsync_trace *trace,
                                    tsync_ctx *ctx);

/** A short summary for people: per domain the map, its bound, samples, pieces and path;
 *  the grouping and why; the references. */
TSYNC_API void tsync_estimate_print(const tsync_estimate *e, const tsync_trace *trace, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
