/* transport.c - the clc's transport over MPI (clc.h): values to the processes that
 * wait for them in a sparse exchange per round, maxima and sums by MPI_Allreduce,
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

/* A value's destination and its place among the values posted. */
struct slot { uint32_t dest; size_t i; };

static int slot_cmp(const void *pa, const void *pb)
{
    const struct slot *a = pa, *b = pb;
    if (a->dest != b->dest)
        return a->dest < b->dest ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* The values of one round to the processes they are for, and theirs here, in the
 * sparse exchange of Hoefler et al.'s NBX: a synchronous send to each process with
 * values, receives of whatever arrives, and once this process's sends are all
 * received, a non-blocking barrier; the round is over when the barrier is, since by
 * then every send of the round was received. No process talks to one it has nothing
 * for: a round costs about a barrier, not O(processes) as MPI_Alltoall would. */
static int exchange(void *arg, const struct clc_msg *msg, const uint32_t *dest, size_t n,
                    struct clc_msg **in, size_t *n_in)
{
    struct tsync__replay_link *link = arg;
    MPI_Comm comm = link->comm;
    const int tag = 0x7e5c, unit = (int)sizeof(*msg);
    struct clc_msg *sbuf = malloc((n ? n : 1) * sizeof(*sbuf)), *rbuf = NULL;
    struct slot *order = malloc((n ? n : 1) * sizeof(*order));
    size_t n_r = 0, cap_r = 0, n_req = 0;
    MPI_Request *req = malloc((n ? n : 1) * sizeof(*req)), barrier = MPI_REQUEST_NULL;
    int e = MPI_SUCCESS, done = 0;

    if (!sbuf || !order || !req) {
        free(sbuf);
        free(order);
        free(req);
        return TSYNC_ENOMEM;
    }
    /* By destination, each destination's values in the order they were posted, then
     * one send per destination. */
    for (size_t i = 0; i < n; i++)
        order[i] = (struct slot){ dest[i], i };
    if (n)
        qsort(order, n, sizeof(*order), slot_cmp);
    for (size_t i = 0; i < n; i++)
        sbuf[i] = msg[order[i].i];
    for (size_t i = 0, j; i < n && e == MPI_SUCCESS; i = j) {
        for (j = i + 1; j < n && order[j].dest == order[i].dest; j++)
            ;
        e = MPI_Issend(sbuf + i, (int)(j - i) * unit, MPI_BYTE, (int)order[i].dest, tag, comm,
                       &req[n_req++]);
    }
    while (e == MPI_SUCCESS && !done) {
        MPI_Status st;
        int flag = 0, bytes;
        if ((e = MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st)) != MPI_SUCCESS)
            break;
        if (flag) {
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            if (n_r + (size_t)bytes / sizeof(*rbuf) > cap_r) {
                size_t c = 2 * (n_r + (size_t)bytes / sizeof(*rbuf)) + 64;
                struct clc_msg *grown = realloc(rbuf, c * sizeof(*rbuf));
                if (!grown) {
                    e = MPI_ERR_NO_MEM;
                    break;
                }
                rbuf = grown;
                cap_r = c;
            }
            e = MPI_Recv(rbuf + n_r, bytes, MPI_BYTE, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
            n_r += (size_t)bytes / sizeof(*rbuf);
        } else if (barrier == MPI_REQUEST_NULL) {
            int sent = 0;
            e = MPI_Testall((int)n_req, req, &sent, MPI_STATUSES_IGNORE);
            if (e == MPI_SUCCESS && sent)
                e = MPI_Ibarrier(comm, &barrier);
        } else {
            e = MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        }
    }
    link->exchanges++;
    link->values += n;
    free(sbuf);
    free(order);
    free(req);
    if (e != MPI_SUCCESS) {
        free(rbuf);
        return e == MPI_ERR_NO_MEM ? TSYNC_ENOMEM : TSYNC_EIO;
    }
    *in = rbuf ? rbuf : malloc(1);
    *n_in = n_r;
    return *in ? TSYNC_OK : TSYNC_ENOMEM;
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
