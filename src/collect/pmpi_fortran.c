/* pmpi_fortran.c - the Fortran bindings of the recorded MPI calls. Open MPI's
 * Fortran bindings (mpif.h and `use mpi`: mpi_send_; `use mpi_f08`: mpi_send_f08_,
 * which calls the former's C helpers) call PMPI_* themselves, so a Fortran
 * program would pass the C wrappers by. Each subroutine here converts the
 * Fortran handles, calls the C MPI_* function, whose wrapper records the call,
 * and converts the results back, as Open MPI's own bindings do. Names are
 * gfortran's (lowercase, one underscore). */
#include <stdlib.h>

#include "collect/collect_mpi.h"
#include "tracesync/collect.h"

typedef MPI_Fint fint;

/* Open MPI's Fortran sentinels are common blocks, told apart by address (its
 * OMPI_IS_FORTRAN_STATUS_IGNORE, OMPI_F2C_IN_PLACE, OMPI_F2C_BOTTOM); mpif.h,
 * `use mpi` and `use mpi_f08` share them. */
extern fint mpi_fortran_status_ignore_[], mpi_fortran_statuses_ignore_[];
extern char mpi_fortran_in_place_, mpi_fortran_bottom_;

/* Fortran's MPI_STATUS_SIZE: the C status, in Fortran integers. */
#define STATUS_SIZE (sizeof(MPI_Status) / sizeof(fint))
#define SMALL 16

static void *buf_f2c(void *buf)
{
    if (buf == &mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    return buf == &mpi_fortran_bottom_ ? MPI_BOTTOM : buf;
}

/* The C status to pass for Fortran's status f: c, or MPI_STATUS_IGNORE. */
static MPI_Status *status_f2c(const fint *f, MPI_Status *c)
{
    return f == mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : c;
}

static void status_c2f(int rc, const MPI_Status *c, fint *f)
{
    if (rc == MPI_SUCCESS && c != MPI_STATUS_IGNORE)
        MPI_Status_c2f(c, f);
}

/* The C handles and statuses of a call on an array of Fortran requests. */
struct requests {
    MPI_Request small_r[SMALL], *r;
    MPI_Status small_st[SMALL], *st;
};

/* Converts n handles; st becomes MPI_STATUSES_IGNORE when fst is Fortran's.
 * Returns MPI_SUCCESS, or MPI_ERR_NO_MEM (nothing to free then). */
static int requests_f2c(struct requests *q, int n, const fint *freq, const fint *fst)
{
    size_t m = n > 0 ? (size_t)n : 0;
    bool ignore = fst == mpi_fortran_statuses_ignore_;
    q->r = m <= SMALL ? q->small_r : malloc(m * sizeof *q->r);
    q->st = ignore ? MPI_STATUSES_IGNORE : m <= SMALL ? q->small_st : malloc(m * sizeof *q->st);
    if (!q->r || (!ignore && !q->st)) { /* Open MPI's MPI_STATUSES_IGNORE is NULL */
        if (q->r != q->small_r)
            free(q->r);
        if (q->st != q->small_st && q->st != MPI_STATUSES_IGNORE)
            free(q->st);
        return MPI_ERR_NO_MEM;
    }
    for (size_t i = 0; i < m; i++)
        q->r[i] = MPI_Request_f2c(freq[i]);
    return MPI_SUCCESS;
}

/* After a successful call: the n handles back (completed ones are null) and the
 * first nst statuses; then frees q. */
static void requests_c2f(struct requests *q, int rc, int n, fint *freq, int nst, fint *fst)
{
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        freq[i] = MPI_Request_c2f(q->r[i]);
    for (int i = 0; rc == MPI_SUCCESS && q->st != MPI_STATUSES_IGNORE && i < nst; i++)
        MPI_Status_c2f(&q->st[i], fst + (size_t)i * STATUS_SIZE);
    if (q->r != q->small_r)
        free(q->r);
    if (q->st != q->small_st && q->st != MPI_STATUSES_IGNORE)
        free(q->st);
}

/* C indices to Fortran's, which count from 1. */
static void indices_c2f(int rc, int n, fint *indices)
{
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        indices[i] += indices[i] >= 0;
}

/* Defines the subroutine NAME_ (mpif.h, `use mpi`) and its alias NAME_f08_ (`use
 * mpi_f08`: the same arguments, handles being one integer, and ierr optional):
 * PARAMS end with ierr, BODY sets int rc. */
#define FORTRAN(NAME, PARAMS, ...)                                                                         \
    TRACESYNC_COLLECT_API void NAME##_ PARAMS;                                                             \
    void NAME##_ PARAMS                                                                                    \
    {                                                                                                      \
        __VA_ARGS__;                                                                                       \
        if (ierr)                                                                                          \
            *ierr = (fint)rc;                                                                              \
    }                                                                                                      \
    TRACESYNC_COLLECT_API void NAME##_f08_ PARAMS __attribute__((alias(#NAME "_")));

#define COMM(f) MPI_Comm_f2c(*(f))
#define TYPE(f) MPI_Type_f2c(*(f))
#define OP(f) MPI_Op_f2c(*(f))
/* A new handle back, when the call succeeded. */
#define OUT(f, c2f, c)                                                                                     \
    if (rc == MPI_SUCCESS)                                                                                 \
    *(f) = c2f(c)

/* Life */
FORTRAN(mpi_init, (fint * ierr), int rc = MPI_Init(NULL, NULL))
FORTRAN(mpi_init_thread, (const fint *required, fint *provided, fint *ierr), int p = 0;
        int rc = MPI_Init_thread(NULL, NULL, *required, &p); OUT(provided, (fint), p))
FORTRAN(mpi_finalize, (fint * ierr), int rc = MPI_Finalize())

/* Point to point: sends, and Irecv, which has Isend's arguments */
#define SEND(NAME, CALL)                                                                                   \
    FORTRAN(NAME, (void *buf, const fint *count, const fint *type, const fint *peer, const fint *tag,      \
                   const fint *comm, fint *ierr),                                                          \
            int rc = CALL(buf_f2c(buf), *count, TYPE(type), *peer, *tag, COMM(comm)))
SEND(mpi_send, MPI_Send)
SEND(mpi_ssend, MPI_Ssend)
SEND(mpi_rsend, MPI_Rsend)
SEND(mpi_bsend, MPI_Bsend)
#define START(NAME, CALL)                                                                                  \
    FORTRAN(NAME, (void *buf, const fint *count, const fint *type, const fint *peer, const fint *tag,      \
                   const fint *comm, fint *request, fint *ierr),                                           \
            MPI_Request r; int rc = CALL(buf_f2c(buf), *count, TYPE(type), *peer, *tag, COMM(comm), &r);   \
            OUT(request, MPI_Request_c2f, r))
START(mpi_isend, MPI_Isend)
START(mpi_issend, MPI_Issend)
START(mpi_irecv, MPI_Irecv)
FORTRAN(mpi_recv, (void *buf, const fint *count, const fint *type, const fint *source, const fint *tag,
                   const fint *comm, fint *status, fint *ierr),
        MPI_Status s, *st = status_f2c(status, &s);
        int rc = MPI_Recv(buf_f2c(buf), *count, TYPE(type), *source, *tag, COMM(comm), st);
        status_c2f(rc, st, status))
FORTRAN(mpi_sendrecv, (void *sendbuf, const fint *sendcount, const fint *sendtype, const fint *dest,
                       const fint *sendtag, void *recvbuf, const fint *recvcount, const fint *recvtype,
                       const fint *source, const fint *recvtag, const fint *comm, fint *status, fint *ierr),
        MPI_Status s, *st = status_f2c(status, &s);
        int rc = MPI_Sendrecv(buf_f2c(sendbuf), *sendcount, TYPE(sendtype), *dest, *sendtag, buf_f2c(recvbuf),
                              *recvcount, TYPE(recvtype), *source, *recvtag, COMM(comm), st);
        status_c2f(rc, st, status))
FORTRAN(mpi_sendrecv_replace, (void *buf, const fint *count, const fint *type, const fint *dest,
                               const fint *sendtag, const fint *source, const fint *recvtag, const fint *comm,
                               fint *status, fint *ierr),
        MPI_Status s, *st = status_f2c(status, &s);
        int rc = MPI_Sendrecv_replace(buf_f2c(buf), *count, TYPE(type), *dest, *sendtag, *source, *recvtag,
                                      COMM(comm), st);
        status_c2f(rc, st, status))

/* Completion */
FORTRAN(mpi_wait, (fint * request, fint *status, fint *ierr), MPI_Request r = MPI_Request_f2c(*request);
        MPI_Status s, *st = status_f2c(status, &s); int rc = MPI_Wait(&r, st);
        OUT(request, MPI_Request_c2f, r); status_c2f(rc, st, status))
FORTRAN(mpi_test, (fint * request, fint *flag, fint *status, fint *ierr), MPI_Request r = MPI_Request_f2c(*request);
        MPI_Status s, *st = status_f2c(status, &s); int f = 0; int rc = MPI_Test(&r, &f, st);
        OUT(request, MPI_Request_c2f, r); OUT(flag, (fint), f); status_c2f(rc, st, status))
FORTRAN(mpi_waitall, (const fint *n, fint *requests, fint *statuses, fint *ierr), struct requests q;
        int rc = requests_f2c(&q, *n, requests, statuses);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Waitall(*n, q.r, q.st);
            requests_c2f(&q, rc, *n, requests, *n, statuses);
        })
FORTRAN(mpi_testall, (const fint *n, fint *requests, fint *flag, fint *statuses, fint *ierr), struct requests q;
        int f = 0; int rc = requests_f2c(&q, *n, requests, statuses);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Testall(*n, q.r, &f, q.st);
            requests_c2f(&q, rc, *n, requests, f ? *n : 0, statuses);
            OUT(flag, (fint), f);
        })
FORTRAN(mpi_waitany, (const fint *n, fint *requests, fint *index, fint *status, fint *ierr), struct requests q;
        MPI_Status s, *st = status_f2c(status, &s); int rc = requests_f2c(&q, *n, requests, mpi_fortran_statuses_ignore_);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Waitany(*n, q.r, index, st);
            requests_c2f(&q, rc, *n, requests, 0, NULL);
            indices_c2f(rc, 1, index);
            status_c2f(rc, st, status);
        })
FORTRAN(mpi_testany, (const fint *n, fint *requests, fint *index, fint *flag, fint *status, fint *ierr),
        struct requests q; MPI_Status s, *st = status_f2c(status, &s); int f = 0;
        int rc = requests_f2c(&q, *n, requests, mpi_fortran_statuses_ignore_);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Testany(*n, q.r, index, &f, st);
            requests_c2f(&q, rc, *n, requests, 0, NULL);
            indices_c2f(rc, 1, index);
            OUT(flag, (fint), f);
            status_c2f(rc, st, status);
        })
#define SOME(NAME, CALL)                                                                                   \
    FORTRAN(NAME, (const fint *n, fint *requests, fint *outcount, fint *indices, fint *statuses, fint *ierr), \
            struct requests q; int rc = requests_f2c(&q, *n, requests, statuses); if (rc == MPI_SUCCESS) {   \
                rc = CALL(*n, q.r, outcount, indices, q.st);                                               \
                int done = rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0;                \
                requests_c2f(&q, rc, *n, requests, done, statuses);                                        \
                indices_c2f(rc, done, indices);                                                            \
            })
SOME(mpi_waitsome, MPI_Waitsome)
SOME(mpi_testsome, MPI_Testsome)
FORTRAN(mpi_request_free, (fint * request, fint *ierr), MPI_Request r = MPI_Request_f2c(*request);
        int rc = MPI_Request_free(&r); OUT(request, MPI_Request_c2f, r))

/* Collectives */
FORTRAN(mpi_barrier, (const fint *comm, fint *ierr), int rc = MPI_Barrier(COMM(comm)))
FORTRAN(mpi_bcast, (void *buf, const fint *count, const fint *type, const fint *root, const fint *comm, fint *ierr),
        int rc = MPI_Bcast(buf_f2c(buf), *count, TYPE(type), *root, COMM(comm)))
FORTRAN(mpi_reduce, (void *sendbuf, void *recvbuf, const fint *count, const fint *type, const fint *op,
                     const fint *root, const fint *comm, fint *ierr),
        int rc = MPI_Reduce(buf_f2c(sendbuf), buf_f2c(recvbuf), *count, TYPE(type), OP(op), *root, COMM(comm)))
#define ALLREDUCE(NAME, CALL)                                                                              \
    FORTRAN(NAME, (void *sendbuf, void *recvbuf, const fint *count, const fint *type, const fint *op,      \
                   const fint *comm, fint *ierr),                                                          \
            int rc = CALL(buf_f2c(sendbuf), buf_f2c(recvbuf), *count, TYPE(type), OP(op), COMM(comm)))
ALLREDUCE(mpi_allreduce, MPI_Allreduce)
ALLREDUCE(mpi_scan, MPI_Scan)
ALLREDUCE(mpi_exscan, MPI_Exscan)
#define ROOTED(NAME, CALL)                                                                                 \
    FORTRAN(NAME, (void *sendbuf, const fint *sendcount, const fint *sendtype, void *recvbuf,              \
                   const fint *recvcount, const fint *recvtype, const fint *root, const fint *comm, fint *ierr), \
            int rc = CALL(buf_f2c(sendbuf), *sendcount, TYPE(sendtype), buf_f2c(recvbuf), *recvcount,      \
                          TYPE(recvtype), *root, COMM(comm)))
ROOTED(mpi_gather, MPI_Gather)
ROOTED(mpi_scatter, MPI_Scatter)
#define ALLTOALL(NAME, CALL)                                                                               \
    FORTRAN(NAME, (void *sendbuf, const fint *sendcount, const fint *sendtype, void *recvbuf,              \
                   const fint *recvcount, const fint *recvtype, const fint *comm, fint *ierr),             \
            int rc = CALL(buf_f2c(sendbuf), *sendcount, TYPE(sendtype), buf_f2c(recvbuf), *recvcount,      \
                          TYPE(recvtype), COMM(comm)))
ALLTOALL(mpi_allgather, MPI_Allgather)
ALLTOALL(mpi_alltoall, MPI_Alltoall)

/* Communicators */
FORTRAN(mpi_comm_split, (const fint *comm, const fint *color, const fint *key, fint *newcomm, fint *ierr),
        MPI_Comm c; int rc = MPI_Comm_split(COMM(comm), *color, *key, &c); OUT(newcomm, MPI_Comm_c2f, c))
FORTRAN(mpi_comm_dup, (const fint *comm, fint *newcomm, fint *ierr), MPI_Comm c;
        int rc = MPI_Comm_dup(COMM(comm), &c); OUT(newcomm, MPI_Comm_c2f, c))
FORTRAN(mpi_comm_free, (fint * comm, fint *ierr), MPI_Comm c = MPI_Comm_f2c(*comm); int rc = MPI_Comm_free(&c);
        OUT(comm, MPI_Comm_c2f, c))

/* CALL TRACESYNC_TIMESYNC(IERR): 0, or -1 when not recording (Fortran's
 * MPI_Init is recorded too, so a Fortran program is). */
TRACESYNC_COLLECT_API void tracesync_timesync_(fint *ierr);
void tracesync_timesync_(fint *ierr)
{
    *ierr = (fint)tracesync_timesync();
}
