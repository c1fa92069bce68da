/* pmpi_comm.c - communicator wrappers: MPI_Comm_split and MPI_Comm_dup name the
 * new communicator (comms.c) so that the archive defines it; MPI_Comm_free forgets
 * the handle, which MPI may reuse. */
#include "collect/collect_mpi.h"

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    if (!tsc.active)
        return PMPI_Comm_split(comm, color, key, newcomm);
    tsc_enter(TSC_R_COMM_SPLIT);
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS)
        tsc_comm_created(comm, *newcomm);
    tsc_leave(TSC_R_COMM_SPLIT);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    if (!tsc.active)
        return PMPI_Comm_dup(comm, newcomm);
    tsc_enter(TSC_R_COMM_DUP);
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS)
        tsc_comm_created(comm, *newcomm);
    tsc_leave(TSC_R_COMM_DUP);
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (!tsc.active)
        return PMPI_Comm_free(comm);
    tsc_enter(TSC_R_COMM_FREE);
    tsc_comm_freed(*comm);
    int rc = PMPI_Comm_free(comm);
    tsc_leave(TSC_R_COMM_FREE);
    return rc;
}
