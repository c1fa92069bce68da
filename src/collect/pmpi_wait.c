/* pmpi_wait.c - completion wrappers: MPI_Wait and MPI_Test and their -all, -any
 * and -some forms, and MPI_Request_free. The handles are copied before the call
 * (MPI sets completed ones to MPI_REQUEST_NULL) and the statuses kept even when the
 * program ignores them, so that every completed receive is recorded with its
 * sender, tag and size. */
#include <stdlib.h>

#include "collect/collect_mpi.h"

#define SMALL 16

/* Handles and statuses of one multiple-completion call. */
struct completion {
    MPI_Request small_h[SMALL];
    MPI_Status small_st[SMALL];
    MPI_Request *h;
    MPI_Status *st;
};

/* Copies n handles; *statuses becomes the array to pass to MPI. Returns -1 when
 * out of memory (then the call is made unrecorded). */
static int completion_begin(struct completion *c, int n, const MPI_Request *req, MPI_Status **statuses)
{
    c->h = n <= SMALL ? c->small_h : malloc((size_t)n * sizeof *c->h);
    c->st = *statuses != MPI_STATUSES_IGNORE ? *statuses
            : n <= SMALL                     ? c->small_st
                                             : malloc((size_t)n * sizeof *c->st);
    if (!c->h || !c->st) {
        if (c->h != c->small_h)
            free(c->h);
        if (c->st != c->small_st && c->st != *statuses)
            free(c->st);
        return -1;
    }
    for (int i = 0; i < n; i++)
        c->h[i] = req[i];
    *statuses = c->st;
    return 0;
}

static void completion_end(struct completion *c, const MPI_Status *user)
{
    if (c->h != c->small_h)
        free(c->h);
    if (c->st != c->small_st && c->st != user)
        free(c->st);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!tsc.active)
        return PMPI_Wait(request, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request h = *request;
    tsc_enter(TSC_R_WAIT);
    int rc = PMPI_Wait(request, st);
    tsc_tick();
    if (rc == MPI_SUCCESS)
        tsc_request_done(h, st);
    tsc_leave_now(TSC_R_WAIT);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!tsc.active)
        return PMPI_Test(request, flag, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request h = *request;
    tsc_enter(TSC_R_TEST);
    int rc = PMPI_Test(request, flag, st);
    tsc_tick();
    if (rc == MPI_SUCCESS && *flag)
        tsc_request_done(h, st);
    tsc_leave_now(TSC_R_TEST);
    return rc;
}

/* -all: every handle completed (Waitall; Testall when flag is set). */
static int all(enum tsc_region region, int n, MPI_Request *req, int *flag, MPI_Status *statuses)
{
    struct completion c;
    MPI_Status *user = statuses;
    if (completion_begin(&c, n, req, &statuses) != 0)
        return flag ? PMPI_Testall(n, req, flag, user) : PMPI_Waitall(n, req, user);
    tsc_enter(region);
    int rc = flag ? PMPI_Testall(n, req, flag, statuses) : PMPI_Waitall(n, req, statuses);
    tsc_tick();
    if (rc == MPI_SUCCESS && (!flag || *flag))
        for (int i = 0; i < n; i++)
            tsc_request_done(c.h[i], &statuses[i]);
    tsc_leave_now(region);
    completion_end(&c, user);
    return rc;
}

int MPI_Waitall(int n, MPI_Request req[], MPI_Status statuses[])
{
    if (!tsc.active)
        return PMPI_Waitall(n, req, statuses);
    return all(TSC_R_WAITALL, n, req, NULL, statuses);
}

int MPI_Testall(int n, MPI_Request req[], int *flag, MPI_Status statuses[])
{
    if (!tsc.active)
        return PMPI_Testall(n, req, flag, statuses);
    return all(TSC_R_TESTALL, n, req, flag, statuses);
}

/* -any: one handle completed, at *index (Waitany; Testany when flag is set). */
static int any(enum tsc_region region, int n, MPI_Request *req, int *index, int *flag, MPI_Status *status)
{
    struct completion c;
    MPI_Status *st = status; /* one status, not n: completion_begin copies handles only */
    MPI_Status *none = MPI_STATUSES_IGNORE;
    if (completion_begin(&c, n, req, &none) != 0)
        return flag ? PMPI_Testany(n, req, index, flag, status) : PMPI_Waitany(n, req, index, status);
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE)
        st = &own;
    tsc_enter(region);
    int rc = flag ? PMPI_Testany(n, req, index, flag, st) : PMPI_Waitany(n, req, index, st);
    tsc_tick();
    if (rc == MPI_SUCCESS && (!flag || *flag) && *index != MPI_UNDEFINED)
        tsc_request_done(c.h[*index], st);
    tsc_leave_now(region);
    completion_end(&c, NULL);
    return rc;
}

int MPI_Waitany(int n, MPI_Request req[], int *index, MPI_Status *status)
{
    if (!tsc.active)
        return PMPI_Waitany(n, req, index, status);
    return any(TSC_R_WAITANY, n, req, index, NULL, status);
}

int MPI_Testany(int n, MPI_Request req[], int *index, int *flag, MPI_Status *status)
{
    if (!tsc.active)
        return PMPI_Testany(n, req, index, flag, status);
    return any(TSC_R_TESTANY, n, req, index, flag, status);
}

/* -some: *outcount handles completed, at indices. */
static int some(enum tsc_region region, int n, MPI_Request *req, int *outcount, int *indices,
                MPI_Status *statuses, bool test)
{
    struct completion c;
    MPI_Status *user = statuses;
    if (completion_begin(&c, n, req, &statuses) != 0)
        return test ? PMPI_Testsome(n, req, outcount, indices, user)
                    : PMPI_Waitsome(n, req, outcount, indices, user);
    tsc_enter(region);
    int rc = test ? PMPI_Testsome(n, req, outcount, indices, statuses)
                  : PMPI_Waitsome(n, req, outcount, indices, statuses);
    tsc_tick();
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (int k = 0; k < *outcount; k++)
            tsc_request_done(c.h[indices[k]], &statuses[k]);
    tsc_leave_now(region);
    completion_end(&c, user);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request req[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!tsc.active)
        return PMPI_Waitsome(n, req, outcount, indices, statuses);
    return some(TSC_R_WAITSOME, n, req, outcount, indices, statuses, false);
}

int MPI_Testsome(int n, MPI_Request req[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!tsc.active)
        return PMPI_Testsome(n, req, outcount, indices, statuses);
    return some(TSC_R_TESTSOME, n, req, outcount, indices, statuses, true);
}

/* A freed request completes unseen: it has no completion event (as in Score-P),
 * and its handle may come back for the next request. */
int MPI_Request_free(MPI_Request *request)
{
    if (!tsc.active)
        return PMPI_Request_free(request);
    MPI_Request h = *request;
    tsc_enter(TSC_R_REQUEST_FREE);
    int rc = PMPI_Request_free(request);
    if (rc == MPI_SUCCESS)
        tsc_request_freed(h);
    tsc_leave(TSC_R_REQUEST_FREE);
    return rc;
}
