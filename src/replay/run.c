/* run.c - `tracesync-mpi clc` and `sync` as jobs of the library: the trace split
 * over the processes (distribute.c), for sync the time maps estimated by all of
 * them (estimate/parts.c) and applied to each process's locations, the controlled
 * logical clock replayed (src/clc/ with transport.c), for sync every time shifted
 * so that none is negative, the corrected archive written by all (write.c). The
 * stages of `tracesync clc` and `sync` (pipeline.c) that change the times, in
 * their order and with their options (pipeline/derive.h), without the checks and
 * the report: the output is the same archive, to the bit. */
#include <stdlib.h>
#include <string.h>

#include "pipeline/derive.h"
#include "replay/replay.h"
#include "tracesync/timemap.h"
#include "util/ctx.h"

/* The time maps estimated by every process together, each applying them to its
 * own locations' times in tl (the estimate takes t->whole). */
static int mapped_times(tsync_timeline *tl, tsync_trace *t, const tsync_estimate_opts *o,
                        const struct tsync__est_transport *tr, MPI_Comm comm, tsync_ctx *ctx)
{
    tsync_map_set *maps = NULL;
    int rc;
    if ((rc = tsync__estimate_run_part(&maps, t, o, tr, ctx)) == TSYNC_OK)
        rc = tsync__replay_agree(comm, tsync_map_set_apply(maps, t, tl, ctx), ctx);
    tsync_map_set_free(maps);
    return rc;
}

/* Every time moved by the same amount so that none is negative (OTF2 times are
 * unsigned), as the pipeline's shift stage: by the earliest first event anywhere. */
static void shift_to_positive(const tsync_trace *t, tsync_timeline *tl, MPI_Comm comm)
{
    int64_t lo = 0;
    for (tsync_loc l = 0; l < t->n_locations; l++)
        if (t->held[l] && t->locations[l].n_events && tl->time[l][0] < lo)
            lo = tl->time[l][0];
    lo = -lo;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT64_T, MPI_MAX, comm);
    for (tsync_loc l = 0; lo && l < t->n_locations; l++)
        for (uint64_t k = 0; t->held[l] && k < t->locations[l].n_events; k++)
            tl->time[l][k] += lo;
}

/* The job: sync's stages that change times (shift: the shift stage, which clc has
 * not). */
static int job(tsync_clc_result **out, struct tsync__replay_link *link, const char *input,
               const char *outdir, const tsync_sync_opts *opts, int shift, tsync_ctx *ctx)
{
    MPI_Comm comm = link->comm;
    int estimate = opts->estimate.estimator != TSYNC_ESTIMATOR_NONE;
    tsync_pipeline_opts p = TSYNC_PIPELINE_OPTS_INIT;
    tsync_open_opts open;
    struct tsync__clc_transport tr;
    struct tsync__est_transport est;
    tsync_trace *t = NULL;
    tsync_timeline *tl = NULL;
    tsync_clc_result *r = NULL;
    int rc;

    /* As the pipeline: the options every stage gets from the others'; the
     * ClockOffset interpolation only without an estimate, which uses the records
     * itself. */
    p.open = &opts->open;
    p.estimate = opts->estimate;
    p.clc = opts->clc_opts;
    p.check = opts->check;
    tsync__pipeline_derive(&p, &open);
    p.clc.presync = p.clc.presync && !estimate;
    tsync__replay_transports(&tr, &est, link);
    if ((rc = tsync__replay_open(&t, input, estimate ? p.open : NULL, comm, ctx)))
        return rc;
    if ((rc = tsync__replay_agree(comm, tsync_timeline_new(&tl, t, ctx), ctx)) ||
        (estimate && (rc = mapped_times(tl, t, &p.estimate, &est, comm, ctx))))
        goto out;
    if (opts->clc &&
        (rc = tsync__replay_agree(comm, tsync__clc_run_replay(&r, t, tl, &p.clc, &tr, ctx), ctx)))
        goto out;
    if (shift)
        shift_to_positive(t, tl, comm);
    if ((rc = tsync__replay_write(t, tl, outdir, comm, ctx)))
        goto out;
    *out = r;
    r = NULL;
out:
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);
    tsync_trace_free(t);
    return rc;
}

int tsync__replay_sync(tsync_clc_result **out, struct tsync__replay_link *link, const char *input,
                       const char *outdir, const tsync_sync_opts *opts, tsync_ctx *ctx)
{
    return job(out, link, input, outdir, opts, 1, ctx);
}

int tsync__replay_clc(tsync_clc_result **out, struct tsync__replay_link *link, const char *input,
                      const char *outdir, const tsync_clc_opts *clc,
                      const tsync_check_opts *check, tsync_ctx *ctx)
{
    tsync_sync_opts o = TSYNC_SYNC_OPTS_INIT;
    o.estimate.estimator = TSYNC_ESTIMATOR_NONE;
    o.clc_opts = *clc;
    o.check = *check;
    return job(out, link, input, outdir, &o, 0, ctx);
}
