/* metrics.h - how much a correction changed local intervals (Becker et al. 2009,
 * section 6.2 and Table 4).
 *
 * Two kinds of interval per location, compared between a reference set of
 * timestamps (the original trace, or the truth) and a modified one (the corrected
 * trace): the event position, from the location's first event to each event, and
 * the event distance, between adjacent events. For each interval of length t whose
 * length changed by dt, the relative deviation is |dt| / |t|.
 */
#ifndef TRACESYNC_METRICS_H
#define TRACESYNC_METRICS_H

#include "tracesync/common.h"
#include "tracesync/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The thresholds of Table 4, as fractions: 0, 0.01 %, 0.1 %, 1 %, 10 %, 100 %. */
#define TSYNC_DEVIATION_THRESHOLDS 6
TSYNC_API extern const double tsync_deviation_threshold[TSYNC_DEVIATION_THRESHOLDS];

/** Deviation of one kind of interval (all fractions, not percent). */
typedef struct {
    uint64_t intervals;        /* intervals compared */
    double avg;                /* sum |dt| / sum |t| (Table 4 "Average") */
    double max;                /* max |dt| / |t|; an interval of length 0 that changed counts
                                * as infinitely deviated and is reported here as +inf */
    double max_abs_s;          /* max |dt| in seconds */
    /* share of intervals, and of their total length, whose deviation is above each
     * threshold (Table 4 middle and bottom) */
    double share_intervals[TSYNC_DEVIATION_THRESHOLDS];
    double share_time[TSYNC_DEVIATION_THRESHOLDS];
} tsync_deviation;

/**
 * Compares `modified` with `reference`, both timelines of `trace` (same events).
 * @return 0, or TSYNC_EINVAL when the timelines do not belong to the trace.
 */
TSYNC_API int tsync_deviation_compute(tsync_deviation *position, tsync_deviation *distance,
                                      const tsync_trace *trace, const tsync_timeline *reference,
                                      const tsync_timeline *modified, tsync_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
