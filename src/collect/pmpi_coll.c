/* pmpi_coll.c - collective wrappers: Enter, MpiCollectiveBegin, the call,
 * MpiCollectiveEnd with communicator, root and bytes, Leave.
 *
 * Bytes follow the data (Score-P's convention): a member that contributes data
 * has sent > 0, one that gets data has received > 0, so that readers (tracesync's
 * collective matching, seed 002 section 4.1) see each member's role. */
#include <otf2/otf2.h>

#include "collect/collect_mpi.h"

static void coll_end(OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t received)
{
    struct tsc_rec *r = tsc_record_now(TSC_COLL_END);
    r->op = (uint8_t)op;
    r->comm = tsc_comm_id(comm);
    r->peer = root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root;
    r->a = sent;
    r->b = received;
}

static int comm_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

static int comm_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

#define BEGIN(REGION, CALL)                                                                                \
    if (!tsc.active)                                                                                       \
        return CALL;                                                                                       \
    tsc_enter(REGION);                                                                                     \
    tsc_record_now(TSC_COLL_BEGIN);                                                                        \
    int rc = CALL;                                                                                         \
    tsc_tick();
#define END(REGION)                                                                                        \
    tsc_leave_now(REGION);                                                                                 \
    return rc;

int MPI_Barrier(MPI_Comm comm)
{
    BEGIN(TSC_R_BARRIER, PMPI_Barrier(comm))
    coll_end(OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
    END(TSC_R_BARRIER)
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    BEGIN(TSC_R_BCAST, PMPI_Bcast(buf, count, type, root, comm))
    uint64_t b = tsc_bytes(count, type);
    bool is_root = comm_rank(comm) == root;
    coll_end(OTF2_COLLECTIVE_OP_BCAST, comm, root, is_root ? b * (uint64_t)comm_size(comm) : 0, is_root ? 0 : b);
    END(TSC_R_BCAST)
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    BEGIN(TSC_R_REDUCE, PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm))
    uint64_t b = tsc_bytes(count, type);
    bool is_root = comm_rank(comm) == root;
    coll_end(OTF2_COLLECTIVE_OP_REDUCE, comm, root, b, is_root ? b * (uint64_t)comm_size(comm) : 0);
    END(TSC_R_REDUCE)
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    BEGIN(TSC_R_ALLREDUCE, PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm))
    uint64_t b = tsc_bytes(count, type);
    coll_end(OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, b, b);
    END(TSC_R_ALLREDUCE)
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    BEGIN(TSC_R_GATHER, PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
    bool is_root = comm_rank(comm) == root;
    coll_end(OTF2_COLLECTIVE_OP_GATHER, comm, root, tsc_bytes(sendcount, sendtype),
             is_root ? tsc_bytes(recvcount, recvtype) * (uint64_t)comm_size(comm) : 0);
    END(TSC_R_GATHER)
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    BEGIN(TSC_R_SCATTER, PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
    bool is_root = comm_rank(comm) == root;
    coll_end(OTF2_COLLECTIVE_OP_SCATTER, comm, root,
             is_root ? tsc_bytes(sendcount, sendtype) * (uint64_t)comm_size(comm) : 0,
             tsc_bytes(recvcount, recvtype));
    END(TSC_R_SCATTER)
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    BEGIN(TSC_R_ALLGATHER, PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
    coll_end(OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1, tsc_bytes(sendcount, sendtype),
             tsc_bytes(recvcount, recvtype) * (uint64_t)comm_size(comm));
    END(TSC_R_ALLGATHER)
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    BEGIN(TSC_R_ALLTOALL, PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
    uint64_t n = (uint64_t)comm_size(comm);
    coll_end(OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1, tsc_bytes(sendcount, sendtype) * n,
             tsc_bytes(recvcount, recvtype) * n);
    END(TSC_R_ALLTOALL)
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    BEGIN(TSC_R_SCAN, PMPI_Scan(sendbuf, recvbuf, count, type, op, comm))
    uint64_t b = tsc_bytes(count, type);
    coll_end(OTF2_COLLECTIVE_OP_SCAN, comm, -1, b, b);
    END(TSC_R_SCAN)
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    BEGIN(TSC_R_EXSCAN, PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm))
    uint64_t b = tsc_bytes(count, type);
    /* rank 0 gets nothing: it only sends */
    coll_end(OTF2_COLLECTIVE_OP_EXSCAN, comm, -1, b, comm_rank(comm) == 0 ? 0 : b);
    END(TSC_R_EXSCAN)
}
