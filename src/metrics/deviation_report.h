/* deviation_report.h (internal) - Table 4 of seed 002 as text and as a jansson
 * value, for the reports of the commands that change timestamps (clc, sync, eval). */
#ifndef TSYNC_METRICS_DEVIATION_REPORT_H
#define TSYNC_METRICS_DEVIATION_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "tracesync/metrics.h"

/* {intervals, avg, max, max_abs_s, thresholds, share_intervals, share_time}: all
 * fractions; max is null when infinite (an interval of length 0 that changed).
 * NULL when out of memory. */
json_t *tsync__deviation_to_json(const tsync_deviation *d);

/* The two kinds side by side, in percent as Table 4 shows them, indented by two
 * spaces, 12 lines. */
void tsync__deviation_print(const tsync_deviation *position, const tsync_deviation *distance,
                            FILE *out);

#endif
