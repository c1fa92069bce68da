/* report.h (internal) - every report of libtracesync in one place: the results of
 * the stages (plain data: tsync_check_report, tsync_clc_result, tsync_deviation,
 * tsync_estimate, tsync_eval_report, tsync_pipeline_result) rendered as text for
 * people and as JSON (jansson values, so that a report embeds another's as it is;
 * JSON text only at the end). One file per report:
 *
 *   report_check.c         the clock condition (tsync_check_report_print/_json)
 *   report_clc_result.c    what the CLC did (tsync_clc_result_print/_json)
 *   report_deviation.c     Table 4 of seed 002
 *   report_eval.c          a corrected trace against the truth
 *   report_sync.c          the sync report of a pipeline result
 *   report_pairs.c         its part for packet captures, per pair of captures and hosts
 *   report_clc.c           the clc report of a pipeline result
 *   report.c               a pipeline result as the report of its kind
 *   report_estimate.c      an estimate as a summary for people
 *
 * An estimate as JSON is the maps file that `apply` reads (docs/maps.md), a format
 * of its own: it stays with the estimate (estimate/estimate_json.c), and
 * tsync__estimate_to_json gives it as data for the reports that embed it.
 */
#ifndef TSYNC_REPORT_REPORT_H
#define TSYNC_REPORT_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "tracesync/check.h"
#include "tracesync/clc.h"
#include "tracesync/metrics.h"
#include "tracesync/pipeline.h"

/* A new JSON object with the keys listed at tsync_check_report_json up to
 * `consistent` (not the grouping: the sync report has it in its estimate), or NULL
 * when out of memory. `trace` is the one the report was made from. */
json_t *tsync__check_report_to_json(const tsync_check_report *r, const tsync_trace *trace);

/* A new JSON object with the keys listed at tsync_clc_result_json, or NULL when
 * out of memory. */
json_t *tsync__clc_result_to_json(const tsync_clc_result *r);

/* Table 4: {intervals, avg, max, max_abs_s, thresholds, share_intervals,
 * share_time}: all fractions; max is null when infinite (an interval of length 0
 * that changed). NULL when out of memory. */
json_t *tsync__deviation_to_json(const tsync_deviation *d);
/* The two kinds side by side, in percent as Table 4 shows them, indented by two
 * spaces, 12 lines. */
void tsync__deviation_print(const tsync_deviation *position, const tsync_deviation *distance,
                            FILE *out);

/* The sync report (report_sync.c): a line per stage; the JSON value, or NULL with
 * the context saying so. */
void tsync__report_sync_print(const tsync_pipeline_result *r, FILE *out);
json_t *tsync__report_sync_json(const tsync_pipeline_result *r, tsync_ctx *ctx);

/* The sync report's part for packet captures (report_pairs.c): the `packets` and
 * `host pairs` lines; packet_pairs and host_pairs set in o (0, or -1 when out of
 * memory). */
void tsync__report_pairs_print(const tsync_pipeline_result *r, FILE *out);
int tsync__report_pairs_json(const tsync_pipeline_result *r, json_t *o);

/* The clc report (report_clc.c): the clock condition table, the CLC, Table 4; the
 * JSON value, or NULL when out of memory. */
void tsync__report_clc_print(const tsync_pipeline_result *r, FILE *out);
json_t *tsync__report_clc_json(const tsync_pipeline_result *r);

#endif
