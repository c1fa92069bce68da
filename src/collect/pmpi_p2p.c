/* pmpi_p2p.c - point-to-point wrappers: blocking and non-blocking sends and
 * receives, MPI_Sendrecv (both halves). Peers are ranks in the communicator,
 * as OTF2 wants them. */
#include "collect/collect_mpi.h"

static void record_send(enum tsc_kind kind, int dest, int tag, MPI_Comm comm, uint64_t bytes, uint64_t request)
{
    struct tsc_rec *r = tsc_record_now(kind); /* after Enter, at its reading */
    r->comm = tsc_comm_id(comm);
    r->peer = (uint32_t)dest;
    r->tag = (uint32_t)tag;
    r->a = bytes;
    r->b = request;
}

static void record_recv(MPI_Comm comm, const MPI_Status *st)
{
    if (st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    int bytes = 0;
    PMPI_Get_count(st, MPI_BYTE, &bytes);
    struct tsc_rec *r = tsc_record_now(TSC_RECV); /* after tsc_tick */
    r->comm = tsc_comm_id(comm);
    r->peer = (uint32_t)st->MPI_SOURCE;
    r->tag = (uint32_t)st->MPI_TAG;
    r->a = bytes > 0 ? (uint64_t)bytes : 0;
}

#define BLOCKING_SEND(NAME, REGION)                                                                        \
    int NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)              \
    {                                                                                                      \
        if (!tsc.active)                                                                                   \
            return P##NAME(buf, count, type, dest, tag, comm);                                             \
        tsc_enter(REGION);                                                                                 \
        if (dest != MPI_PROC_NULL)                                                                         \
            record_send(TSC_SEND, dest, tag, comm, tsc_bytes(count, type), 0);                             \
        int rc = P##NAME(buf, count, type, dest, tag, comm);                                               \
        tsc_leave(REGION);                                                                                 \
        return rc;                                                                                         \
    }
BLOCKING_SEND(MPI_Send, TSC_R_SEND)
BLOCKING_SEND(MPI_Ssend, TSC_R_SSEND)
BLOCKING_SEND(MPI_Rsend, TSC_R_RSEND)
BLOCKING_SEND(MPI_Bsend, TSC_R_BSEND)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!tsc.active)
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    tsc_enter(TSC_R_RECV);
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    tsc_tick();
    if (rc == MPI_SUCCESS)
        record_recv(comm, st);
    tsc_leave_now(TSC_R_RECV);
    return rc;
}

#define NONBLOCKING_SEND(NAME, REGION)                                                                     \
    int NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,             \
             MPI_Request *request)                                                                         \
    {                                                                                                      \
        if (!tsc.active)                                                                                   \
            return P##NAME(buf, count, type, dest, tag, comm, request);                                    \
        tsc_enter(REGION);                                                                                 \
        uint64_t t_bytes = tsc_bytes(count, type);                                                         \
        struct tsc_rec *r = dest != MPI_PROC_NULL ? tsc_record_now(TSC_ISEND) : NULL;                      \
        int rc = P##NAME(buf, count, type, dest, tag, comm, request);                                      \
        if (r) { /* the record is the send's, stamped before the call; the id comes after */              \
            r->comm = tsc_comm_id(comm);                                                                   \
            r->peer = (uint32_t)dest;                                                                      \
            r->tag = (uint32_t)tag;                                                                        \
            r->a = t_bytes;                                                                                \
            r->b = rc == MPI_SUCCESS ? tsc_request_add(*request, r->comm, false) : tsc.next_request++;     \
        }                                                                                                  \
        tsc_leave(REGION);                                                                                 \
        return rc;                                                                                         \
    }
NONBLOCKING_SEND(MPI_Isend, TSC_R_ISEND)
NONBLOCKING_SEND(MPI_Issend, TSC_R_ISSEND)

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    if (!tsc.active)
        return PMPI_Irecv(buf, count, type, source, tag, comm, request);
    tsc_enter(TSC_R_IRECV);
    struct tsc_rec *r = source != MPI_PROC_NULL ? tsc_record_now(TSC_IRECV_REQUEST) : NULL;
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    if (r)
        r->b = rc == MPI_SUCCESS ? tsc_request_add(*request, tsc_comm_id(comm), true) : tsc.next_request++;
    tsc_leave(TSC_R_IRECV);
    return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (!tsc.active)
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                             recvtag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    tsc_enter(TSC_R_SENDRECV);
    if (dest != MPI_PROC_NULL)
        record_send(TSC_SEND, dest, sendtag, comm, tsc_bytes(sendcount, sendtype), 0);
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                           recvtag, comm, st);
    tsc_tick();
    if (rc == MPI_SUCCESS)
        record_recv(comm, st);
    tsc_leave_now(TSC_R_SENDRECV);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!tsc.active)
        return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    tsc_enter(TSC_R_SENDRECV_REPLACE);
    if (dest != MPI_PROC_NULL)
        record_send(TSC_SEND, dest, sendtag, comm, tsc_bytes(count, type), 0);
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
    tsc_tick();
    if (rc == MPI_SUCCESS)
        record_recv(comm, st);
    tsc_leave_now(TSC_R_SENDRECV_REPLACE);
    return rc;
}
