/* eval.h - scoring a corrected trace against the truth (the simulator's
 * truth.otf2, or a trace whose true times are known otherwise).
 *
 * Events correspond one to one: same locations (by file id), same number of events
 * per location, in the same order. For each event the error is
 *
 *     e = corrected - true - c        (seconds)
 *
 * where c, one constant for the whole trace, is the median of corrected - true over
 * all events: the reference clock of a correction is arbitrary, so a common shift
 * is no error. Reported: the maximum, the 99th percentile (nearest rank) and the
 * mean of |e|, per location and overall; reversed messages and clock condition
 * violations of the corrected times (tsync_check_run); whether any location's events
 * come in another order than in the truth; and the deviation of local intervals of
 * the corrected times from the true ones (seed 002, Table 4, tsync_deviation_compute).
 *
 * Relative to the time axis. The reference clock is arbitrary in more than its
 * offset: a synchronized trace runs on the time axis of one real clock (a node's,
 * or a master's), with that clock's skew (some 10 ppm) and its temperature wander
 * against true time. Synchronization cannot know and does not control that; what it
 * controls is where the events of all locations lie relative to each other on the
 * common axis. Over a 20-minute run the axis alone puts milliseconds into e, the
 * same on every location, and hides sub-microsecond relative accuracy. So the
 * report has a second set of numbers,
 *
 *     e_rel = corrected - true - c(true),
 *
 * with c(t) the common-mode error of the whole time axis as a function of true
 * time: true time is cut into bins (opts.bin_s, 1 s by default, made wider when
 * the run would need more than TSYNC_EVAL_MAX_BINS bins); each bin that holds
 * events gives one point, the median true time of its events against the median
 * of corrected - true over all events of all locations in it, and c is linear
 * between the points (details and refinements in eval.c). Errors that all
 * locations share at one moment vanish from e_rel; a location off by 5 us against
 * the others keeps its 5 us. The maximum, 99th percentile and mean of |e_rel| are
 * reported per location and overall, with the bin width used.
 *
 * Typical use:
 *
 *     tsync_eval_report *r;
 *     if (tsync_eval_run(&r, corrected, NULL, truth, NULL, ctx) == 0) {
 *         tsync_eval_report_print(r, corrected, truth, stdout);
 *         tsync_eval_report_free(r);
 *     }
 */
#ifndef TRACESYNC_EVAL_H
#define TRACESYNC_EVAL_H

#include <stdio.h>

#include "tracesync/check.h"
#include "tracesync/common.h"
#include "tracesync/metrics.h"
#include "tracesync/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options for tsync_eval_run; initialize with TSYNC_EVAL_OPTS_INIT. */
typedef struct {
    unsigned version;
    tsync_check_opts check;     /* minimum latencies for counting violations */
    double bin_s;               /* bin of true time for the common-mode error c(t),
                                   seconds, > 0; version 2 on (version 1: 1 s) */
} tsync_eval_opts;
#define TSYNC_EVAL_OPTS_VERSION 2
#define TSYNC_EVAL_OPTS_INIT { TSYNC_EVAL_OPTS_VERSION, TSYNC_CHECK_OPTS_INIT, 1.0 }

/** At most this many bins over the true time range; the bin is widened to fit. */
#define TSYNC_EVAL_MAX_BINS 1000000

/** Errors of one location, seconds. */
typedef struct {
    tsync_loc loc;              /* the location in the truth trace */
    uint64_t events;
    double max_abs_error_s;
    double p99_abs_error_s;
    double mean_abs_error_s;
    double relative_max_abs_error_s;  /* the same relative to the time axis: */
    double relative_p99_abs_error_s;  /* common-mode error c(true) removed */
    double relative_mean_abs_error_s;
} tsync_eval_location;

/** The report. Plain data, owned by the caller; free with tsync_eval_report_free. */
typedef struct tsync_eval_report {
    uint32_t locations;
    uint64_t events;
    double offset_s;            /* the constant removed: median of corrected - true */
    double max_abs_error_s;     /* over all events */
    double p99_abs_error_s;
    double mean_abs_error_s;
    tsync_eval_location *per_location; /* `locations` entries, in the truth's order */
    uint64_t messages;          /* point-to-point messages of the corrected trace */
    uint64_t logical_messages;  /* ... and logical ones (collectives) */
    uint64_t reversed;          /* corrected receive before its send */
    uint64_t violations;        /* corrected receive before send + minimum latency */
    double latency_intra_s;     /* the minimum latencies used */
    double latency_inter_s;
    int order_changed;          /* 1: some location's events differ in kind or matching */
    uint64_t order_location;    /* if so: file id of the first such location ... */
    uint64_t order_event;       /* ... and the index of its first differing event */
    tsync_deviation position;   /* Table 4: event position (from a location's start) */
    tsync_deviation distance;   /* Table 4: event distance (adjacent events) */
    uint64_t corrected_resolution; /* ticks per second of each trace */
    uint64_t truth_resolution;
    /* Relative to the time axis (see the top of this file): |corrected - true -
     * c(true)| over all events, and the bin width of c actually used. */
    double relative_max_abs_error_s;
    double relative_p99_abs_error_s;
    double relative_mean_abs_error_s;
    double relative_bin_s;
} tsync_eval_report;

/**
 * Scores the timestamps `times` of trace `corrected` (NULL: its own raw times)
 * against the raw times of `truth`. The two traces may have different timer
 * resolutions. `opts` may be NULL for the defaults.
 * @return 0, or TSYNC_EINVAL when the events do not correspond (the message says
 *         which location and how: "location 3 (Rank 3): 1200 events in the corrected
 *         trace, 1201 in the truth"), or a timeline of another trace, or a bin that
 *         is not a positive finite number of seconds, or TSYNC_ENOMEM;
 *         *out is set only on success.
 */
TSYNC_API int tsync_eval_run(tsync_eval_report **out, const tsync_trace *corrected,
                             const tsync_timeline *times, const tsync_trace *truth,
                             const tsync_eval_opts *opts, tsync_ctx *ctx);

/** Frees a report; NULL is fine. */
TSYNC_API void tsync_eval_report_free(tsync_eval_report *r);

/** Writes a summary for people, with units, to `out`: about 25 lines plus one per
 *  location; the errors relative to the time axis on a line of their own
 *  ("relative to the time axis: max ..., p99 ..., mean ...") and at the end of each
 *  location's line. The traces are the ones the report was made from. */
TSYNC_API void tsync_eval_report_print(const tsync_eval_report *r, const tsync_trace *corrected,
                                       const tsync_trace *truth, FILE *out);

/**
 * The report as JSON text, malloc'ed (free with free()), or NULL when out of memory.
 * Keys: corrected, truth (paths), locations, events, offset_s, max_abs_error_s,
 * p99_abs_error_s, mean_abs_error_s, relative_max_abs_error_s,
 * relative_p99_abs_error_s, relative_mean_abs_error_s, relative_bin_s, per_location
 * (array of {location (file id), name, events, max_abs_error_s, p99_abs_error_s,
 * mean_abs_error_s, relative_max_abs_error_s, relative_p99_abs_error_s,
 * relative_mean_abs_error_s}), messages,
 * logical_messages, reversed, violations, latency_intra_s, latency_inter_s,
 * order_changed (and, when true, order_location and order_event), deviation
 * ({position, distance}, each as in tsync_deviation: intervals, avg, max, max_abs_s,
 * thresholds, share_intervals, share_time), corrected_resolution, truth_resolution.
 */
TSYNC_API char *tsync_eval_report_json(const tsync_eval_report *r, const tsync_trace *corrected,
                                       const tsync_trace *truth);

#ifdef __cplusplus
}
#endif
#endif
