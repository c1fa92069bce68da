/* transport.c - the clc's transport over MPI (clc.h): values to the processes that
 * wait for them in one MPI_Alltoallv per round, maxima and sums by MPI_Allreduce,
 * and the agreement on a step's result. */
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"
#include "util/ctx.h"

int tsync__replay_agree(MPI_Comm comm, int rc, tsync_ctx *ctx)
{
    int failed = rc != TSYNC_OK, any = failed;
    if (MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS && !rc)
        return tsync__fail(ctx, TSYNC_EIO, "MPI_Allreduce failed");
    if (any && rc == TSYNC_OK)
        rc = tsync__fail(ctx, TSYNC_EIO, "%s", TSYNC_REPLAY_OTHERS);
    return rc;
}

static int exchange(void *arg, const struct clc_msg *msg, const uint32_t *dest, size_t n,
                    struct clc_msg **in, size_t *n_in)
{
    struct tsync__replay_link *link = arg;
    MPI_Comm comm = link->comm;
    int size, *count, *rcount, *displ, *rdispl, e, total = 0;
    struct clc_msg *sbuf = NULL, *rbuf = NULL;
    const int unit = (int)sizeof(*msg);

    MPI_Comm_size(comm, &size);
    count = calloc((size_t)size * 4, sizeof(*count));
    sbuf = malloc((n ? n : 1) * sizeof(*sbuf));
    if (!count || !sbuf) {
        free(count);
        free(sbuf);
        return TSYNC_ENOMEM;
    }
    rcount = count + size;
    displ = rcount + size;
    rdispl = displ + size;
    /* By destination, each destination's values in the order they were posted. */
    for (size_t i = 0; i < n; i++)
        count[dest[i]]++;
    for (int r = 1; r < size; r++)
        displ[r] = displ[r - 1] + count[r - 1];
    for (size_t i = 0; i < n; i++)
        sbuf[displ[dest[i]]++] = msg[i];
    for (int r = 0; r < size; r++) {
        displ[r] -= count[r];
        displ[r] *= unit;
        count[r] *= unit;
    }
    e = MPI_Alltoall(count, 1, MPI_INT, rcount, 1, MPI_INT, comm);
    for (int r = 0; r < size; r++) {
        rdispl[r] = total;
        total += rcount[r];
    }
    if (e == MPI_SUCCESS && !(rbuf = malloc(total ? (size_t)total : 1)))
        e = MPI_ERR_NO_MEM;
    if (e == MPI_SUCCESS)
        e = MPI_Alltoallv(sbuf, count, displ, MPI_BYTE, rbuf, rcount, rdispl, MPI_BYTE, comm);
    link->exchanges++;
    link->values += n;
    free(count);
    free(sbuf);
    if (e != MPI_SUCCESS) {
        free(rbuf);
        return e == MPI_ERR_NO_MEM ? TSYNC_ENOMEM : TSYNC_EIO;
    }
    *in = rbuf;
    *n_in = (size_t)total / sizeof(*rbuf);
    return TSYNC_OK;
}

static int reduce(void *arg, int64_t *v, int n, int sum)
{
    struct tsync__replay_link *link = arg;
    link->reductions++;
    return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, sum ? MPI_SUM : MPI_MAX, link->comm) ==
                   MPI_SUCCESS ? TSYNC_OK : TSYNC_EIO;
}

void tsync__replay_transport(struct tsync__clc_transport *tr, struct tsync__replay_link *link)
{
    int rank, size;
    MPI_Comm_rank(link->comm, &rank);
    MPI_Comm_size(link->comm, &size);
    memset(tr, 0, sizeof(*tr));
    tr->rank = (uint32_t)rank;
    tr->n_ranks = (uint32_t)size;
    tr->exchange = exchange;
    tr->reduce = reduce;
    tr->arg = link;
}
