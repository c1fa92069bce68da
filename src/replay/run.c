/* run.c - `tracesync-mpi clc` and `sync` as jobs of the library: the trace split
 * over the processes (distribute.c), for sync the time maps estimated on process 0
 * and applied there, each process getting its locations' mapped times, the
 * controlled logical clock replayed (src/clc/ with transport.c), for sync every time
 * shifted so that none is negative, the corrected archive written by all (write.c).
 * The stages of `tracesync clc` and `sync` (pipeline.c) that change the times, in
 * their order and with their options, without the checks and the report: the output
 * is the same archive, to the bit. */
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"
#include "tracesync/pipeline.h"
#include "tracesync/timemap.h"
#include "util/ctx.h"

/* Process 0: the serial estimate of the whole trace (the pipeline's read and
 * estimate, with sync's options), its maps applied; every process gets the mapped
 * times of the locations it holds into tl. */
static int mapped_times(tsync_timeline *tl, const tsync_trace *t, const char *input,
                        const tsync_sync_opts *o, MPI_Comm comm, tsync_ctx *ctx)
{
    tsync_pipeline_result *res = NULL;
    tsync_timeline *mapped = NULL;
    int rank, rc = TSYNC_OK;

    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        tsync_pipeline_opts p = TSYNC_PIPELINE_OPTS_INIT;
        p.stages = TSYNC_STAGE_ESTIMATE;
        p.open = &o->open;
        p.estimate = o->estimate;
        p.clc = o->clc_opts;
        p.check = o->check;
        if ((rc = tsync_pipeline_run(&res, input, &p, ctx)) == TSYNC_OK &&
            (rc = tsync_timeline_new(&mapped, res->trace, ctx)) == TSYNC_OK)
            rc = tsync_map_set_apply(tsync_estimate_maps(res->estimate), res->trace, mapped, ctx);
        for (tsync_loc l = 0; rc == TSYNC_OK && l < t->n_locations; l++)
            if (res->trace->n_locations != t->n_locations ||
                res->trace->locations[l].n_events != t->locations[l].n_events)
                rc = tsync__fail(ctx, TSYNC_EFORMAT, "%s: location %llu: the trace changed "
                                 "while it was read", input,
                                 (unsigned long long)t->locations[l].ref);
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK) {
        /* Location by location, in order: each holder receives its own in order. */
        int size;
        MPI_Comm_size(comm, &size);
        for (tsync_loc l = 0; l < t->n_locations; l++) {
            int h = (int)tsync__location_holder(l, t->n_locations, (uint32_t)size);
            int n = (int)t->locations[l].n_events;
            if (rank == 0 && h == 0)
                memcpy(tl->time[l], mapped->time[l], (size_t)n * sizeof(tsync_time));
            else if (rank == 0)
                MPI_Send(mapped->time[l], n, MPI_INT64_T, h, 0, comm);
            else if (rank == h)
                MPI_Recv(tl->time[l], n, MPI_INT64_T, 0, 0, comm, MPI_STATUS_IGNORE);
        }
    }
    tsync_timeline_free(mapped);
    tsync_pipeline_result_free(res);
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
    tsync_clc_opts o = opts->clc_opts;
    struct tsync__clc_transport tr;
    tsync_trace *t = NULL;
    tsync_timeline *tl = NULL;
    tsync_clc_result *r = NULL;
    int rc;

    /* As the pipeline: the check's latencies are every stage's; the ClockOffset
     * interpolation only without an estimate, which uses the records itself. */
    o.latency_intra_s = opts->check.latency_intra_s;
    o.latency_inter_s = opts->check.latency_inter_s;
    if (opts->check.latency_file)
        o.latency_file = opts->check.latency_file;
    o.presync = o.presync && !estimate;
    if ((rc = tsync__replay_open(&t, input, comm, ctx)))
        return rc;
    if ((rc = tsync__replay_agree(comm, tsync_timeline_new(&tl, t, ctx), ctx)) ||
        (estimate && (rc = mapped_times(tl, t, input, opts, comm, ctx))))
        goto out;
    tsync__replay_transport(&tr, link);
    if (opts->clc &&
        (rc = tsync__replay_agree(comm, tsync__clc_run_replay(&r, t, tl, &o, &tr, ctx), ctx)))
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
