/* pipeline.h - the one job every command runs: a set of stages in a fixed order,
 *
 *   read -> check (as recorded) -> estimate or maps from a file, applied, or the
 *        ClockOffset pre-synchronization -> check (after the maps) -> controlled
 *        logical clock -> shift -> check (after) -> deviation -> write
 *
 * `tracesync sync` runs them all, `clc` reads, pre-synchronizes, checks, runs the
 * CLC and writes, `estimate` reads and estimates, `check` reads and checks,
 * `apply` reads, applies a maps file and writes. The pipeline decides which steps
 * run beside each other on threads of their own and how the output is named
 * (OUTDIR/<the input's file name>); the result holds what every stage made, and
 * renders as the sync or the clc report (text or JSON).
 */
#ifndef TRACESYNC_PIPELINE_H
#define TRACESYNC_PIPELINE_H

#include <stdio.h>

#include "tracesync/check.h"
#include "tracesync/clc.h"
#include "tracesync/common.h"
#include "tracesync/estimate.h"
#include "tracesync/metrics.h"
#include "tracesync/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The stages; a run names the ones it wants (bitwise or). */
enum {
    TSYNC_STAGE_CHECK = 1u << 0,     /* the clock condition of every set of times made */
    TSYNC_STAGE_ESTIMATE = 1u << 1,  /* time maps from the messages */
    TSYNC_STAGE_MAPS = 1u << 2,      /* time maps from opts.maps_file */
    TSYNC_STAGE_CLC = 1u << 3,       /* the controlled logical clock (with opts.clc.presync
                                      * its pre-synchronization first, unless maps were
                                      * applied: they used the ClockOffset records) */
    TSYNC_STAGE_SHIFT = 1u << 4,     /* every time moved so that none is negative */
    TSYNC_STAGE_DEVIATION = 1u << 5, /* the output's local intervals against the input's */
    TSYNC_STAGE_WRITE = 1u << 6      /* the output into opts.outdir */
};
/** The stage set of each command. */
#define TSYNC_STAGES_SYNC                                                                    \
    (TSYNC_STAGE_CHECK | TSYNC_STAGE_ESTIMATE | TSYNC_STAGE_CLC | TSYNC_STAGE_SHIFT |         \
     TSYNC_STAGE_DEVIATION | TSYNC_STAGE_WRITE)
#define TSYNC_STAGES_CLC (TSYNC_STAGE_CHECK | TSYNC_STAGE_CLC | TSYNC_STAGE_WRITE)
#define TSYNC_STAGES_ESTIMATE TSYNC_STAGE_ESTIMATE
#define TSYNC_STAGES_CHECK TSYNC_STAGE_CHECK
#define TSYNC_STAGES_APPLY (TSYNC_STAGE_MAPS | TSYNC_STAGE_WRITE)

/** Options of every stage; initialize with TSYNC_PIPELINE_OPTS_INIT. The minimum
 * latencies of `check` and its latency file (or else clc.latency_file) are those of
 * every stage: every check, the estimate and the CLC, and they set the limit for splitting
 * clock domains (open->split_reversal_s is replaced by TSYNC_SPLIT_LATENCIES x the
 * larger). `open` NULL reads every node as one clock domain (TSYNC_DOMAIN_NODE, as
 * tsync_trace_open with NULL options). */
typedef struct {
    unsigned version;
    unsigned stages;                 /* TSYNC_STAGE_* */
    const tsync_open_opts *open;
    tsync_estimate_opts estimate;
    tsync_clc_opts clc;              /* its latencies are taken from `check` */
    tsync_check_opts check;
    const char *maps_file;           /* TSYNC_STAGE_MAPS: a maps file (tsync_map_set_load) */
    const char *outdir;              /* TSYNC_STAGE_WRITE: the output's directory */
} tsync_pipeline_opts;
#define TSYNC_PIPELINE_OPTS_VERSION 1
#define TSYNC_PIPELINE_OPTS_INIT                                                             \
    { TSYNC_PIPELINE_OPTS_VERSION, 0, NULL, TSYNC_ESTIMATE_OPTS_INIT, TSYNC_CLC_OPTS_INIT,    \
      TSYNC_CHECK_OPTS_INIT, NULL, NULL }

/** What the stages made; a stage that did not run leaves its part NULL (or 0). */
typedef struct tsync_pipeline_result {
    const tsync_trace *trace;            /* the input, as read; for the estimate
                                          * alone with an estimator that needs no
                                          * exchanges, a CSV is read without its
                                          * events and messages: its locations,
                                          * domains and event count only */
    char *output;                        /* the file written */
    const tsync_estimate *estimate;
    const tsync_clc_result *clc;
    const tsync_check_report *before;    /* the times as recorded */
    const tsync_check_report *after_maps;/* after the maps or the pre-synchronization:
                                          * the CLC's input; NULL when none mapped them */
    const tsync_check_report *after;     /* the output's times (when a stage changed them) */
    tsync_deviation position, distance;  /* output against as recorded: Table 4 of seed 002 */
    int64_t shift_ticks;                 /* added to every time so that none is negative */
} tsync_pipeline_result;

/**
 * Runs the stages opts->stages on the trace at `input`. A failure is that of the
 * first stage in the order above that failed (as if they ran one by one), with
 * nothing written.
 * @return 0, or the first stage's error; *out is set only on success.
 */
TSYNC_API int tsync_pipeline_run(tsync_pipeline_result **out, const char *input,
                                 const tsync_pipeline_opts *opts, tsync_ctx *ctx);
TSYNC_API void tsync_pipeline_result_free(tsync_pipeline_result *r);

/** The reports a result renders as. */
typedef enum {
    TSYNC_REPORT_SYNC, /* the stages one line each (tracesync sync) */
    TSYNC_REPORT_CLC   /* the clock condition before and after, the CLC, Table 4 */
} tsync_report_kind;

/** The report for people, with units. */
TSYNC_API void tsync_pipeline_report_print(const tsync_pipeline_result *r, tsync_report_kind kind,
                                           FILE *out);
/** The report as JSON text (malloc'ed; NULL, with the context saying so, when out of
 * memory). The sync report: input, output, grouping, estimate (maps in the `apply`
 * format, graph, reference), clc, check before / after_maps / after, deviation,
 * shift_ticks, consistent. The clc report: trace, output, before (the CLC's input),
 * after, clc, deviation, and recorded when the ClockOffset records mapped the times. */
TSYNC_API char *tsync_pipeline_report_json(const tsync_pipeline_result *r, tsync_report_kind kind,
                                           tsync_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
