/* sync.c - the main job (sync.h): the pipeline with every stage, its options
 * gathered in one place. */
#include "tracesync/sync.h"

int tsync_sync_run(tsync_sync_result **out, const char *input, const char *outdir,
                   const tsync_sync_opts *opts, tsync_ctx *ctx)
{
    tsync_sync_opts o = TSYNC_SYNC_OPTS_INIT;
    tsync_pipeline_opts p = TSYNC_PIPELINE_OPTS_INIT;
    if (opts)
        o = *opts;
    p.stages = TSYNC_STAGES_SYNC;
    if (o.estimate.estimator == TSYNC_ESTIMATOR_NONE)
        p.stages &= ~(unsigned)TSYNC_STAGE_ESTIMATE;
    if (!o.clc)
        p.stages &= ~(unsigned)TSYNC_STAGE_CLC;
    p.open = &o.open;
    p.estimate = o.estimate;
    p.clc = o.clc_opts;
    p.check = o.check;
    p.outdir = outdir;
    return tsync_pipeline_run(out, input, &p, ctx);
}

void tsync_sync_result_free(tsync_sync_result *r) { tsync_pipeline_result_free(r); }

void tsync_sync_result_print(const tsync_sync_result *r, FILE *out)
{
    tsync_pipeline_report_print(r, TSYNC_REPORT_SYNC, out);
}

char *tsync_sync_result_json(const tsync_sync_result *r, tsync_ctx *ctx)
{
    return tsync_pipeline_report_json(r, TSYNC_REPORT_SYNC, ctx);
}
