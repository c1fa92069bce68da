/* transport.c - the clc's and the estimate's transports over MPI (clc.h,
 * estimate/estimate_api.h): values to the processes that wait for them in a
 * sparse exchange per round, maxima and sums by MPI_Allreduce, process 0's bytes to
 * all by MPI_Bcast, process 0's questions to the others and their answers by
 * point-to-point messages, and the agreement on a step's result. */
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"
#include "util/ctx.h"
#include "util/vec.h"

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

/* Elements of `size` bytes at v, element i to process dest[i], and the others'
 * here (*in, *n_in), in the sparse exchange of Hoefler et al.'s NBX: a synchronous
 * send to each process with elements, receives of whatever arrives, and once this
 * process's sends are all received, a non-blocking barrier; the exchange is over
 * when the barrier is, since by then every send was received. No process talks to
 * one it has nothing for: a round costs about a barrier, not O(processes) as
 * MPI_Alltoall would. Elements for this process are copied. A process whose
 * barrier is over may send the next exchange's elements while another still
 * waits for its own to end: consecutive exchanges use two tags in turn (the one
 * after next cannot start before every process left this one). */
static int sparse_exchange(struct tsync__replay_link *link, const void *v, size_t size,
                           const uint32_t *dest, size_t n, void **in, size_t *n_in)
{
    MPI_Comm comm = link->comm;
    const int tag = 0x7e5c + (int)(link->sparse++ & 1);
    char *sbuf = malloc(n ? n * size : 1), *rbuf = NULL;
    struct slot *order = malloc((n ? n : 1) * sizeof(*order));
    size_t n_r = 0, cap_r = 0, n_req = 0;
    MPI_Request *req = malloc((n ? n : 1) * sizeof(*req)), barrier = MPI_REQUEST_NULL;
    int e = MPI_SUCCESS, done = 0, rank;

    MPI_Comm_rank(comm, &rank);
    if (!sbuf || !order || !req) {
        free(sbuf);
        free(order);
        free(req);
        return TSYNC_ENOMEM;
    }
    /* By destination, each destination's elements in the order they were given,
     * then one send per destination. */
    for (size_t i = 0; i < n; i++)
        order[i] = (struct slot){ dest[i], i };
    if (n)
        qsort(order, n, sizeof(*order), slot_cmp);
    for (size_t i = 0; i < n; i++)
        memcpy(sbuf + i * size, (const char *)v + order[i].i * size, size);
    for (size_t i = 0, j; i < n && e == MPI_SUCCESS; i = j) {
        for (j = i + 1; j < n && order[j].dest == order[i].dest; j++)
            ;
        if (order[i].dest == (uint32_t)rank) {
            if (tsync__reserve((void **)&rbuf, &cap_r, n_r + (j - i), size))
                e = MPI_ERR_NO_MEM;
            else
                memcpy(rbuf + n_r * size, sbuf + i * size, (j - i) * size);
            n_r += j - i;
            continue;
        }
        e = MPI_Issend(sbuf + i * size, (int)((j - i) * size), MPI_BYTE, (int)order[i].dest, tag,
                       comm, &req[n_req++]);
    }
    while (e == MPI_SUCCESS && !done) {
        MPI_Status st;
        int flag = 0, bytes;
        if ((e = MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st)) != MPI_SUCCESS)
            break;
        if (flag) {
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            if (tsync__reserve((void **)&rbuf, &cap_r, n_r + (size_t)bytes / size, size)) {
                e = MPI_ERR_NO_MEM;
                break;
            }
            e = MPI_Recv(rbuf + n_r * size, bytes, MPI_BYTE, st.MPI_SOURCE, tag, comm,
                         MPI_STATUS_IGNORE);
            n_r += (size_t)bytes / size;
        } else if (barrier == MPI_REQUEST_NULL) {
            int sent = 0;
            e = MPI_Testall((int)n_req, req, &sent, MPI_STATUSES_IGNORE);
            if (e == MPI_SUCCESS && sent)
                e = MPI_Ibarrier(comm, &barrier);
        } else {
            e = MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        }
    }
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

static int allreduce(void *arg, int64_t *v, int n, int sum)
{
    const struct tsync__replay_link *link = arg;
    return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, sum ? MPI_SUM : MPI_MAX, link->comm) ==
                   MPI_SUCCESS ? TSYNC_OK : TSYNC_EIO;
}

/* The clc's values of one round to the processes they are for, and theirs here;
 * its rounds and reductions are counted (the scaling model, README). */
static int exchange(void *arg, const struct clc_msg *msg, const uint32_t *dest, size_t n,
                    struct clc_msg **in, size_t *n_in)
{
    struct tsync__replay_link *link = arg;
    link->exchanges++;
    link->values += n;
    return sparse_exchange(link, msg, sizeof(*msg), dest, n, (void **)in, n_in);
}

static int reduce(void *arg, int64_t *v, int n, int sum)
{
    struct tsync__replay_link *link = arg;
    link->reductions++;
    return allreduce(arg, v, n, sum);
}


/* ---- the estimate's ------------------------------------------------------------------------ */

/* Tags of process 0's questions, the answers and the end of the questions. */
enum { TAG_ASK = 0x7e60, TAG_ANSWER, TAG_DONE };

static int est_exchange(void *arg, const void *v, size_t size, const uint32_t *dest, size_t n,
                        void **in, size_t *n_in)
{
    return sparse_exchange(arg, v, size, dest, n, in, n_in);
}

static int est_broadcast(void *arg, void **buf, size_t *n)
{
    struct tsync__replay_link *link = arg;
    unsigned long long len = *n;
    int rank, ok = 1, all;
    MPI_Comm_rank(link->comm, &rank);
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, link->comm);
    if (rank != 0) {
        free(*buf);
        ok = (*buf = malloc(len ? (size_t)len : 1)) != NULL;
        *n = (size_t)len;
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, link->comm);
    if (!all)
        return TSYNC_ENOMEM;
    return MPI_Bcast(*buf, (int)len, MPI_BYTE, 0, link->comm) == MPI_SUCCESS ? TSYNC_OK
                                                                            : TSYNC_EIO;
}

/* A message of `tag` from process `from` into *buf (malloc'ed), *n bytes. */
static int receive(MPI_Comm comm, int from, int tag, void **buf, size_t *n)
{
    MPI_Status st;
    int bytes;
    if (MPI_Probe(from, tag, comm, &st) != MPI_SUCCESS)
        return TSYNC_EIO;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    if (!(*buf = malloc(bytes ? (size_t)bytes : 1))) {
        MPI_Recv(NULL, 0, MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);   /* truncated */
        return TSYNC_ENOMEM;
    }
    *n = (size_t)bytes;
    return MPI_Recv(*buf, bytes, MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS
               ? TSYNC_OK : TSYNC_EIO;
}

static int est_ask(void *arg, uint32_t to, const void *q, size_t n, void **a, size_t *n_a)
{
    struct tsync__replay_link *link = arg;
    if (MPI_Send(q, (int)n, MPI_BYTE, (int)to, TAG_ASK, link->comm) != MPI_SUCCESS)
        return TSYNC_EIO;
    return receive(link->comm, (int)to, TAG_ANSWER, a, n_a);
}

/* Answers each question until process 0's TAG_DONE; an answer that could not be
 * made is sent empty. */
static int est_serve(void *arg, int (*answer)(void *ctx, const void *q, size_t n, void **a,
                                              size_t *n_a),
                     void *ctx)
{
    struct tsync__replay_link *link = arg;
    for (;;) {
        MPI_Status st;
        void *q = NULL, *a = NULL;
        size_t n = 0, n_a = 0;
        int rc;
        if (MPI_Probe(0, MPI_ANY_TAG, link->comm, &st) != MPI_SUCCESS)
            return TSYNC_EIO;
        if (st.MPI_TAG == TAG_DONE) {
            int done = TSYNC_EIO;
            MPI_Recv(&done, 1, MPI_INT, 0, TAG_DONE, link->comm, MPI_STATUS_IGNORE);
            return done;
        }
        if ((rc = receive(link->comm, 0, TAG_ASK, &q, &n)) == TSYNC_OK &&
            answer(ctx, q, n, &a, &n_a) != 0)
            n_a = 0;
        rc = MPI_Send(a, (int)n_a, MPI_BYTE, 0, TAG_ANSWER, link->comm);
        free(q);
        free(a);
        if (rc != MPI_SUCCESS)
            return TSYNC_EIO;
    }
}

static int est_done(void *arg, int rc)
{
    struct tsync__replay_link *link = arg;
    int size;
    MPI_Comm_size(link->comm, &size);
    for (int p = 1; p < size; p++)
        MPI_Send(&rc, 1, MPI_INT, p, TAG_DONE, link->comm);
    return rc;
}

void tsync__replay_transports(struct tsync__clc_transport *clc, struct tsync__est_transport *est,
                              struct tsync__replay_link *link)
{
    int rank, size;
    MPI_Comm_rank(link->comm, &rank);
    MPI_Comm_size(link->comm, &size);
    memset(clc, 0, sizeof(*clc));
    clc->rank = (uint32_t)rank;
    clc->n_ranks = (uint32_t)size;
    clc->exchange = exchange;
    clc->reduce = reduce;
    clc->arg = link;
    memset(est, 0, sizeof(*est));
    est->rank = (uint32_t)rank;
    est->n_ranks = (uint32_t)size;
    est->exchange = est_exchange;
    est->reduce = allreduce;
    est->broadcast = est_broadcast;
    est->ask = est_ask;
    est->serve = est_serve;
    est->done = est_done;
    est->arg = link;
}
