/* run.c - `tracesync-mpi clc` as a job of the library: the trace split over the
 * processes (distribute.c), the controlled logical clock replayed (src/clc/ with
 * transport.c), the corrected archive written by all (write.c). The same stages
 * as `tracesync clc` (pipeline.c) without its checks: the output is the same
 * archive, to the bit. */
#include <stdlib.h>

#include "replay/replay.h"
#include "util/ctx.h"

int tsync__replay_clc(tsync_clc_result **out, struct tsync__replay_link *link, const char *input,
                      const char *outdir, const tsync_clc_opts *clc,
                      const tsync_check_opts *check, tsync_ctx *ctx)
{
    MPI_Comm comm = link->comm;
    tsync_clc_opts o = *clc, *opts = &o;
    struct tsync__clc_transport tr;
    tsync_trace *t = NULL;
    tsync_timeline *tl = NULL;
    tsync_clc_result *r = NULL;
    int rc;

    /* The check's minimum latencies are every stage's, as in the pipeline. */
    o.latency_intra_s = check->latency_intra_s;
    o.latency_inter_s = check->latency_inter_s;
    if (check->latency_file)
        o.latency_file = check->latency_file;
    if ((rc = tsync__replay_open(&t, input, comm, ctx)))
        return rc;
    if ((rc = tsync__replay_agree(comm, tsync_timeline_new(&tl, t, ctx), ctx)))
        goto out;
    tsync__replay_transport(&tr, link);
    if ((rc = tsync__replay_agree(comm, tsync__clc_run_replay(&r, t, tl, opts, &tr, ctx), ctx)) ||
        (rc = tsync__replay_write(t, tl, outdir, comm, ctx)))
        goto out;
    *out = r;
    r = NULL;
out:
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);
    tsync_trace_free(t);
    return rc;
}
