/* check.h - the clock condition report: how many messages a set of timestamps
 * shows arriving before they were sent (seed 002, sections 3, 4.1 and 6).
 *
 * A message, point-to-point or logical (derived from a collective operation),
 * satisfies the clock condition when its receive is at least a minimum latency
 * after its send (Eq. 2 of Becker et al. 2009):
 *
 *     t_recv >= t_send + mu     where mu is the minimum message latency.
 *
 * The report counts, for the timestamps of a tsync_timeline:
 *   - messages:   point-to-point messages (as matched) and logical messages
 *                 (collectives mapped onto send/receive pairs, section 4.1);
 *   - reversed:   messages with t_recv < t_send (they point backward in time);
 *   - violations: messages with t_recv < t_send + mu (Eq. 2); every reversed
 *                 message is a violation;
 *   - displacement of reversed messages, t_send - t_recv, average and maximum
 *                 (Table 3 of the seed);
 *   - the location pairs with the largest displacement.
 *
 * Typical use:
 *
 *     tsync_check_opts o = TSYNC_CHECK_OPTS_INIT;
 *     tsync_check_report *r;
 *     if (tsync_check_parse_latency(&o, "intra=1us,inter=4us", ctx) == 0 &&
 *         tsync_check_run(&r, trace, timeline, &o, ctx) == 0) {
 *         tsync_check_report_print(r, trace, stdout);
 *         tsync_check_report_free(r);
 *     }
 */
#ifndef TRACESYNC_CHECK_H
#define TRACESYNC_CHECK_H

#include <stdio.h>

#include "tracesync/common.h"
#include "tracesync/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Options for tsync_check_run; initialize with TSYNC_CHECK_OPTS_INIT.
 *
 * The minimum latencies are lower bounds on how long a message takes between two
 * locations on the same node (intra) and on different nodes (inter). The defaults,
 * 0.3 us and 1 us, lie below the smallest latencies measured on current hardware
 * (about 0.35 us through shared memory, about 1 us over InfiniBand), so a message
 * flagged with them arrived sooner than any real network could carry it. Scalasca
 * uses 1 us for both. A latency of 0 checks only the order of send and receive.
 * A latency file overrides them per pair of nodes, as for the CLC and the estimate.
 */
typedef struct {
    unsigned version;
    double latency_intra_s;  /* minimum latency, same node, seconds (>= 0) */
    double latency_inter_s;  /* minimum latency, different nodes, seconds (>= 0) */
    unsigned worst_pairs;    /* how many worst location pairs to list (0: none) */
    const char *latency_file;/* per node pair latencies (the format of tsync_clc_opts),
                              * or NULL (version 2 on) */
} tsync_check_opts;
#define TSYNC_CHECK_OPTS_VERSION 2
#define TSYNC_CHECK_OPTS_INIT { TSYNC_CHECK_OPTS_VERSION, 0.3e-6, 1.0e-6, 5, NULL }

/** Counts for one kind of message (point-to-point or collective). */
typedef struct {
    uint64_t messages;          /* send/receive pairs examined */
    uint64_t reversed;          /* t_recv < t_send */
    uint64_t violations;        /* t_recv < t_send + mu (Eq. 2) */
    double displacement_avg_s;  /* mean of t_send - t_recv over reversed; 0 if none */
    double displacement_max_s;  /* max of t_send - t_recv over reversed; 0 if none */
} tsync_check_counts;

/**
 * A sender location -> receiver location pair with violations. Its displacement is
 * the maximum of t_send - t_recv over the pair's violating messages: positive when
 * some message is reversed, zero or negative when the messages arrive in order but
 * sooner than the minimum latency.
 */
typedef struct {
    tsync_loc send_loc, recv_loc;  /* dense location indices of the trace */
    uint64_t violations;           /* point-to-point and logical together */
    double displacement_max_s;
} tsync_check_pair;

/** The report. Plain data, owned by the caller; free with tsync_check_report_free. */
typedef struct tsync_check_report {
    uint32_t locations;
    uint32_t domains;               /* clock domains of the trace */
    uint64_t messages;              /* point-to-point messages (= p2p.messages) */
    uint64_t logical_messages;      /* from collectives (= collective.messages) */
    uint64_t reversed;              /* both kinds */
    uint64_t violations;            /* both kinds */
    double displacement_avg_s;      /* both kinds, over reversed messages; 0 if none */
    double displacement_max_s;
    tsync_check_counts p2p;
    tsync_check_counts collective;
    uint32_t n_worst_pairs;         /* at most opts->worst_pairs */
    tsync_check_pair *worst_pairs;  /* by displacement, largest first */
    uint64_t unmatched_sends;       /* messages whose other half is missing */
    uint64_t unmatched_recvs;
    double latency_intra_s;         /* the minimum latencies used, as given */
    double latency_inter_s;
    int64_t latency_intra_ticks;    /* ... and as rounded to clock ticks */
    int64_t latency_inter_ticks;
    uint64_t timer_resolution;      /* ticks per second of the trace */
    uint32_t latency_pairs;         /* (node, node) pairs from the latency file, each
                                     * direction counted; 0 without a file */
} tsync_check_report;

/**
 * Reads minimum latencies from a specification such as "intra=1us,inter=4us":
 * comma-separated key=value items, keys "intra" and "inter" (either may be
 * omitted, neither repeated), values a non-negative number with a unit ns, us, ms
 * or s. On error nothing in *o changes and the context says what is wrong, e.g.
 * `--latency: unknown unit "xs" in "inter=4xs" (use ns, us, ms or s)`.
 * @return 0, or TSYNC_EINVAL.
 */
TSYNC_API int tsync_check_parse_latency(tsync_check_opts *o, const char *spec, tsync_ctx *ctx);

/**
 * Checks the clock condition for the timestamps in `timeline` (the trace's raw
 * ones for an uncorrected trace). Locations are on the same node when the trace
 * says so; the minimum latency of a pair is then the intra-node one, else the
 * inter-node one, rounded to the nearest clock tick. `opts` may be NULL for the
 * defaults.
 * @return 0, or TSYNC_EINVAL (bad options, a timeline of another trace, an event
 *         index out of range) or TSYNC_ENOMEM; *out is set only on success.
 */
TSYNC_API int tsync_check_run(tsync_check_report **out, const tsync_trace *trace,
                              const tsync_timeline *timeline, const tsync_check_opts *opts,
                              tsync_ctx *ctx);

/** Frees a report; NULL is fine. */
TSYNC_API void tsync_check_report_free(tsync_check_report *r);

/** 1 when no message violates the clock condition (violations == 0), else 0. */
TSYNC_API int tsync_check_report_consistent(const tsync_check_report *r);

/** Writes a short human summary (a dozen lines, with units) to `out`. `trace` is
 * the one the report was made from; it names the file and the locations. */
TSYNC_API void tsync_check_report_print(const tsync_check_report *r, const tsync_trace *trace,
                                        FILE *out);

/**
 * The report as JSON text, malloc'ed (free with free()), or NULL when out of
 * memory. Keys: trace, locations, domains, domain_rule, timer_resolution,
 * messages, logical_messages, reversed, violations, displacement_avg_s,
 * displacement_max_s, p2p and collective (each {messages, reversed, violations,
 * displacement_avg_s, displacement_max_s}), worst_pairs (array of
 * {send_location, recv_location, send_name, recv_name, violations,
 * displacement_max_s}; locations by their file id), unmatched ({sends,
 * receives}), latency_intra_s, latency_inter_s, consistent, latency_pairs (only
 * with a latency file); then domain_file (the domain file, or null) and
 * clock_domains (every clock domain: {name, locations: [{id, name, node, rank}]},
 * rank null when unknown), which show the grouping.
 */
TSYNC_API char *tsync_check_report_json(const tsync_check_report *r, const tsync_trace *trace);

#ifdef __cplusplus
}
#endif
#endif
