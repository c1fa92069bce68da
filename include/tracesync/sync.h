/* sync.h - the main job: read, estimate, apply the maps, run the controlled
 * logical clock for what remains, check, write, report: the pipeline
 * (pipeline.h) with every stage, as `tracesync sync` runs it.
 *
 * Each stage can be switched off (estimator NONE, clc off). The result keeps every
 * stage's report, before and after, so that a person or a script can see what each
 * stage did and how good the outcome is.
 */
#ifndef TRACESYNC_SYNC_H
#define TRACESYNC_SYNC_H

#include <stdio.h>

#include "tracesync/check.h"
#include "tracesync/clc.h"
#include "tracesync/common.h"
#include "tracesync/estimate.h"
#include "tracesync/metrics.h"
#include "tracesync/pipeline.h"
#include "tracesync/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of every stage; initialize with TSYNC_SYNC_OPTS_INIT. The minimum latencies
 * of the check options are used by estimation and the CLC too, and set the limit for
 * splitting clock domains (open.split_reversal_s: TSYNC_SPLIT_LATENCIES x the larger). */
typedef struct {
    unsigned version;
    tsync_open_opts open;
    tsync_estimate_opts estimate;   /* estimator TSYNC_ESTIMATOR_NONE: no maps */
    int clc;                        /* run the controlled logical clock (1) or not (0) */
    tsync_clc_opts clc_opts;        /* presync is used only without estimation: the
                                     * estimator already uses ClockOffset records */
    tsync_check_opts check;
} tsync_sync_opts;
#define TSYNC_SYNC_OPTS_VERSION 1
#define TSYNC_SYNC_OPTS_INIT                                                                 \
    { TSYNC_SYNC_OPTS_VERSION, TSYNC_OPEN_OPTS_INIT, TSYNC_ESTIMATE_OPTS_INIT, 1,             \
      TSYNC_CLC_OPTS_INIT, TSYNC_CHECK_OPTS_INIT }

/** What the main job did, stage by stage (pipeline.h). */
typedef tsync_pipeline_result tsync_sync_result;

/**
 * Synchronizes the trace at `input` and writes it into `outdir` (same file name).
 * @return 0, or the first stage's error (TSYNC_EIO, TSYNC_EFORMAT, ...) with
 *         nothing written; *out is set only on success.
 */
TSYNC_API int tsync_sync_run(tsync_sync_result **out, const char *input, const char *outdir,
                             const tsync_sync_opts *opts, tsync_ctx *ctx);
TSYNC_API void tsync_sync_result_free(tsync_sync_result *r);

/** A short summary for people, with units (the TSYNC_REPORT_SYNC report). */
TSYNC_API void tsync_sync_result_print(const tsync_sync_result *r, FILE *out);
/** The full report as JSON text (tsync_pipeline_report_json, TSYNC_REPORT_SYNC). */
TSYNC_API char *tsync_sync_result_json(const tsync_sync_result *r, tsync_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
