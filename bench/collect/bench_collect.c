/* bench_collect.c - the loops the collector's overhead is measured on: a
 * point-to-point loop of one int (2 ranks: a blocking ping-pong, 6 events an
 * iteration and rank; 1 rank: MPI_Sendrecv to itself, 4 events) and a loop of small
 * collectives (MPI_Allreduce of one int, 4 events). On one rank nothing waits for
 * another process, so the difference with and without a tracer is the tracer's
 * cost alone. Rank 0 prints each loop's seconds, timed with MPI_Wtime between
 * barriers, so MPI_Init, MPI_Finalize and the trace writing are not in them, and
 * the CPU seconds of its thread in each loop (what other processes on a shared
 * machine take from it is not in those).
 * Usage: bench_collect ITERATIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int v = rank, sum = 0;
    if (size > 2) {
        if (rank == 0)
            fprintf(stderr, "bench_collect: run on 1 or 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), c0 = cpu_s();
    for (long i = 0; i < n; i++) {
        if (size == 1) {
            MPI_Sendrecv(&v, 1, MPI_INT, 0, 0, &sum, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 0) {
            MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime(), c1 = cpu_s();
    for (long i = 0; i < n; i++)
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime(), c2 = cpu_s();
    if (rank == 0)
        printf("pingpong_s=%.6f collectives_s=%.6f pingpong_cpu_s=%.6f collectives_cpu_s=%.6f iterations=%ld\n",
               t1 - t0, t2 - t1, c1 - c0, c2 - c1, n);
    MPI_Finalize();
    return 0;
}
