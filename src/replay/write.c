/* write.c - the corrected archive written by every process of the replay: the
 * range of the corrected times agreed by a reduction (it goes into ClockProperties),
 * the temporary directory made by process 0 (util/outdir.h) and named to all, each
 * process's locations copied by the serial writer's code (io/otf2_write.c) into one
 * archive through libotf2's MPI collectives, and the archive moved into OUTDIR by
 * process 0 only when every process succeeded, else removed. */
#include <stdlib.h>
#include <string.h>

#include <otf2/OTF2_MPI_Collectives.h>

#include "io/otf2_read.h"
#include "replay/replay.h"
#include "util/ctx.h"

static OTF2_ErrorCode mpi_collectives(OTF2_Archive *archive, void *arg)
{
    return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, *(MPI_Comm *)arg, MPI_COMM_NULL);
}

int tsync__replay_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir,
                        MPI_Comm comm, tsync_ctx *ctx)
{
    struct tsync__otf2_part part;
    char *tmpdir = NULL, *name = NULL;
    int64_t range[3];
    int rank, rc, changed = 0;
    unsigned long long len = 0;

    MPI_Comm_rank(comm, &rank);
    memset(&part, 0, sizeof(part));
    rc = tsync__otf2_scan_times(t, tl, &part.t_min, &part.t_max, &changed, ctx);
    if ((rc = tsync__replay_agree(comm, rc, ctx)))
        return rc;
    range[0] = part.t_min == INT64_MAX ? INT64_MIN : -part.t_min;
    range[1] = part.t_max;
    range[2] = changed;
    MPI_Allreduce(MPI_IN_PLACE, range, 3, MPI_INT64_T, MPI_MAX, comm);
    part.t_min = -range[0];
    part.t_max = range[1];
    part.changed = range[2] != 0;

    if (rank == 0 && (rc = tsync__otf2_out_begin(&tmpdir, &name, t, outdir, ctx)) == TSYNC_OK)
        len = strlen(tmpdir) + 1;
    if ((rc = tsync__replay_agree(comm, rc, ctx)))
        return rc;
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    if (rank != 0 && !(tmpdir = malloc(len)))
        rc = tsync__oom(ctx);
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK) {
        MPI_Bcast(tmpdir, (int)len, MPI_CHAR, 0, comm);
        part.root = rank == 0;
        part.tmpdir = tmpdir;
        part.collectives = mpi_collectives;
        part.arg = &comm;
        rc = tsync__replay_agree(comm, tsync__otf2_write_part(t, tl, &part, ctx), ctx);
    }
    if (rank != 0) {
        free(tmpdir);
    } else {
        int done = tsync__otf2_out_finish(rc, tmpdir, name, outdir, ctx);
        if (rc == TSYNC_OK)
            rc = done;
    }
    return tsync__replay_agree(comm, rc, ctx);
}
