/* mpi_sessions.c - an MPI program for the collector's tests of mid-run clock
 * synchronization: SESSIONS calls of tracesync_timesync(), SECONDS apart, and
 * between them a ring exchange (MPI_Sendrecv with both neighbours) every fifth of
 * that, so that events lie between the sessions as well as next to them. Any
 * number of ranks >= 2. Prints "mpi_sessions: ok".
 * Arguments: SESSIONS (default 8), SECONDS (default 0.25). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tracesync/collect.h"

#define STEPS 5

/* Weak: without the collector (not preloaded), the program still runs. */
__attribute__((weak)) int tracesync_timesync(void);

static void pause_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    int rank, size, sessions = argc > 1 ? atoi(argv[1]) : 8;
    double seconds = argc > 2 ? atof(argv[2]) : 0.25;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, out = rank, in = -1;
    for (int k = 0; k <= sessions; k++) {
        for (int s = 0; s < STEPS; s++) {
            pause_s(seconds / STEPS);
            if (MPI_Sendrecv(&out, 1, MPI_INT, next, s, &in, 1, MPI_INT, prev, s, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                MPI_Sendrecv(&out, 1, MPI_INT, prev, s, &in, 1, MPI_INT, next, s, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                fprintf(stderr, "mpi_sessions: MPI_Sendrecv failed\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        if (k < sessions && tracesync_timesync && tracesync_timesync() != 0) {
            fprintf(stderr, "mpi_sessions: tracesync_timesync failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Finalize();
    if (rank == 0)
        printf("mpi_sessions: ok\n");
    return 0;
}
