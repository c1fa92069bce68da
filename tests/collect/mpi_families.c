/* mpi_families.c - an MPI program for the collector's tests: every completion
 * family (Waitall, Waitany, Waitsome, Testall, Testany, Testsome), Sendrecv and
 * Sendrecv_replace, Issend, Ssend, MPI_PROC_NULL, Comm_dup, every collective of
 * the collector, and a mid-run tracesync_timesync(). Any number of ranks >= 2;
 * each rank exchanges with its ring neighbours. Prints "mpi_families: ok".
 * Argument: seconds to sleep before and after the mid-run session (default 0),
 * so that the synchronization sessions span more than MPI_Init takes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tracesync/collect.h"

#define CHECK(call)                                                                                        \
    do {                                                                                                   \
        if ((call) != MPI_SUCCESS) {                                                                       \
            fprintf(stderr, "mpi_families: %s failed\n", #call);                                          \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                  \
        }                                                                                                  \
    } while (0)

static void pause_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

/* Weak: without the collector (not preloaded), the program still runs. */
__attribute__((weak)) int tracesync_timesync(void);

int main(int argc, char **argv)
{
    int rank, size;
    double pause = argc > 1 ? atof(argv[1]) : 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[4] = { rank, rank, rank, rank }, in[4] = { 0 };
    MPI_Request rq[4];
    MPI_Status st[4];

    /* Waitall: two receives, two sends */
    CHECK(MPI_Irecv(&in[0], 1, MPI_INT, prev, 1, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Irecv(&in[1], 1, MPI_INT, next, 2, MPI_COMM_WORLD, &rq[1]));
    CHECK(MPI_Isend(&out[0], 1, MPI_INT, next, 1, MPI_COMM_WORLD, &rq[2]));
    CHECK(MPI_Issend(&out[1], 1, MPI_INT, prev, 2, MPI_COMM_WORLD, &rq[3]));
    CHECK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));

    /* Waitany until all done */
    CHECK(MPI_Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Isend(&out[0], 1, MPI_INT, next, 3, MPI_COMM_WORLD, &rq[1]));
    for (int k = 0; k < 2; k++) {
        int idx;
        CHECK(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE));
    }

    /* Waitsome until all done */
    CHECK(MPI_Irecv(&in[0], 2, MPI_INT, prev, 4, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Isend(out, 2, MPI_INT, next, 4, MPI_COMM_WORLD, &rq[1]));
    for (int done = 0; done < 2;) {
        int n, idx[2];
        CHECK(MPI_Waitsome(2, rq, &n, idx, st));
        done += n;
    }

    /* Testall, Testany, Testsome polling */
    CHECK(MPI_Irecv(&in[0], 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Isend(&out[0], 1, MPI_INT, next, 5, MPI_COMM_WORLD, &rq[1]));
    for (int flag = 0; !flag;)
        CHECK(MPI_Testall(2, rq, &flag, st));
    CHECK(MPI_Irecv(&in[0], 1, MPI_INT, prev, 6, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Isend(&out[0], 1, MPI_INT, next, 6, MPI_COMM_WORLD, &rq[1]));
    for (int done = 0; done < 2;) {
        int flag, idx;
        CHECK(MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE));
        done += flag && idx != MPI_UNDEFINED;
    }
    CHECK(MPI_Irecv(&in[0], 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Isend(&out[0], 1, MPI_INT, next, 7, MPI_COMM_WORLD, &rq[1]));
    for (int done = 0; done < 2;) {
        int n, idx[2];
        CHECK(MPI_Testsome(2, rq, &n, idx, MPI_STATUSES_IGNORE));
        done += n == MPI_UNDEFINED ? 0 : n;
    }

    /* Sendrecv, Sendrecv_replace, Ssend/Recv, and nothing for MPI_PROC_NULL */
    CHECK(MPI_Sendrecv(&out[0], 1, MPI_INT, next, 8, &in[0], 1, MPI_INT, prev, 8, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    CHECK(MPI_Sendrecv_replace(&out[2], 1, MPI_INT, prev, 9, next, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank == 0)
        CHECK(MPI_Ssend(&out[0], 1, MPI_INT, 1, 10, MPI_COMM_WORLD));
    else if (rank == 1)
        CHECK(MPI_Recv(&in[0], 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(MPI_Send(&out[0], 1, MPI_INT, MPI_PROC_NULL, 11, MPI_COMM_WORLD));

    pause_s(pause);
    if (tracesync_timesync && tracesync_timesync() != 0) {
        fprintf(stderr, "mpi_families: tracesync_timesync failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    pause_s(pause);

    /* collectives on a duplicate of MPI_COMM_WORLD */
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int one = rank + 1, sum = 0, *all = malloc((size_t)size * 2 * sizeof *all);
    for (int i = 0; i < 2 * size; i++)
        all[i] = i;
    CHECK(MPI_Barrier(dup));
    CHECK(MPI_Bcast(&one, 1, MPI_INT, size - 1, dup));
    CHECK(MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, dup));
    CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 0, dup));
    CHECK(MPI_Scatter(all, 1, MPI_INT, &one, 1, MPI_INT, 0, dup));
    CHECK(MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, dup));
    CHECK(MPI_Alltoall(all, 1, MPI_INT, all + size, 1, MPI_INT, dup));
    CHECK(MPI_Scan(&one, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(MPI_Exscan(&one, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(MPI_Comm_free(&dup));
    free(all);

    MPI_Finalize();
    if (rank == 0)
        printf("mpi_families: ok\n");
    return 0;
}
