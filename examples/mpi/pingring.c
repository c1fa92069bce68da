/*
 * pingring.c - small, deterministic MPI program used to record the
 * tracesync demo/test sample (tests/data/eztrace-pingring/) with EZTrace.
 *
 * Run on exactly 4 ranks. Each phase is separated by a few ms of busy
 * compute so that the trace has realistic gaps. It exercises:
 *   1. blocking MPI_Send/MPI_Recv ping-pong between pairs (0<->1, 2<->3);
 *   2. a ring with MPI_Isend/MPI_Irecv, completed by one MPI_Wait per
 *      request (no MPI_Waitall), then one ring completed by MPI_Test loops;
 *   3. MPI_Recv with MPI_ANY_SOURCE (rank 0 collects from 1, 2, 3) and
 *      MPI_Recv with MPI_ANY_TAG (rank 3 receives from rank 0);
 *   4. collectives on MPI_COMM_WORLD: Barrier, Bcast (root 1),
 *      Reduce (root 2), Allreduce, Gather (root 0), Scatter (root 3),
 *      Allgather, Alltoall, Scan, Exscan (EZTrace 2.0 records Scan as
 *      Enter/Leave only and Exscan not at all, see the sample's README);
 *   5. an even/odd sub-communicator from MPI_Comm_split with an
 *      MPI_Allreduce and a Send/Recv (sub-rank 0 -> sub-rank 1) on it.
 * The ANY_SOURCE senders use MPI_Isend + MPI_Wait, so that the trace also
 * has non-blocking sends matched by blocking receives.
 *
 * Point-to-point message count is fixed (for NITER = 4):
 *   ping-pong 16, Isend/Wait ring 16, Test ring 4, ANY_SOURCE 3,
 *   ANY_TAG 1, sub-communicator 2  => 42 messages.
 *
 * Ground truth for clock synchronization: when run under EZTrace, each rank
 * prints one "pingring-clock" line at start and one at end giving the value
 * to add to its EZTrace timestamps (ns) to get the host's CLOCK_MONOTONIC
 * (ns). It reads EZTrace's exported `first_timestamp` (EZTrace 2.0 stamps
 * events with MPI_Wtime()*1e9 - first_timestamp); without EZTrace nothing
 * is printed.
 *
 * Build: mpicc -std=c11 -Wall -Wextra -Werror -O1 -o pingring pingring.c
 * Run:   mpirun -np 4 ./pingring
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NITER 4
#define NRANKS 4

enum {
    TAG_PING = 10,
    TAG_PONG = 11,
    TAG_RING = 20,
    TAG_TEST_RING = 21,
    TAG_ANY_SOURCE = 30,
    TAG_ANY_TAG = 31,
    TAG_SUB = 40
};

static volatile double sink;

/* Spin for about `ms` milliseconds without calling into the network. */
static void busy_compute(double ms)
{
    double t0 = MPI_Wtime();
    double acc = 0.0;
    unsigned long i = 0;
    while ((MPI_Wtime() - t0) * 1000.0 < ms) {
        for (int k = 0; k < 1000; k++) {
            acc += (double)((i++ % 7u) + 1u) * 0.5;
        }
    }
    sink = acc;
}

/*
 * Print the offset (ns) such that CLOCK_MONOTONIC = EZTrace timestamp +
 * offset, for this rank, if EZTrace's first_timestamp is visible.
 */
static void print_clock_ground_truth(int rank, const char *when)
{
    void *self = dlopen(NULL, RTLD_LAZY);
    const volatile uint64_t *first = NULL;
    struct timespec ts;

    if (self == NULL) {
        return;
    }
    first = (const volatile uint64_t *)dlsym(self, "first_timestamp");
    if (first != NULL && *first != 0) {
        double wtime = MPI_Wtime();
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t ezt_ts = (uint64_t)(wtime * 1e9) - *first;
        uint64_t mono = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        printf("pingring-clock rank=%d when=%s ezt_ts_ns=%llu monotonic_ns=%llu "
               "offset_ns=%lld\n",
               rank, when, (unsigned long long)ezt_ts, (unsigned long long)mono,
               (long long)(mono - ezt_ts));
        fflush(stdout);
    }
    dlclose(self);
}

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "pingring: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void phase_pingpong(int rank)
{
    int buf[4] = { 0, 0, 0, 0 };
    int peer = rank ^ 1; /* 0<->1, 2<->3 */

    for (int it = 0; it < NITER; it++) {
        if (rank % 2 == 0) {
            buf[0] = rank * 100 + it;
            check(MPI_Send(buf, 4, MPI_INT, peer, TAG_PING, MPI_COMM_WORLD), "Send ping");
            check(MPI_Recv(buf, 4, MPI_INT, peer, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "Recv pong");
        } else {
            check(MPI_Recv(buf, 4, MPI_INT, peer, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "Recv ping");
            buf[1] = rank;
            check(MPI_Send(buf, 4, MPI_INT, peer, TAG_PONG, MPI_COMM_WORLD), "Send pong");
        }
    }
}

static void phase_ring(int rank, int size)
{
    int next = (rank + 1) % size;
    int prev = (rank + size - 1) % size;
    double out[8], in[8];

    for (int it = 0; it < NITER; it++) {
        MPI_Request rreq, sreq;
        for (int k = 0; k < 8; k++) {
            out[k] = rank + it * 0.25 + k;
        }
        check(MPI_Irecv(in, 8, MPI_DOUBLE, prev, TAG_RING, MPI_COMM_WORLD, &rreq), "Irecv");
        check(MPI_Isend(out, 8, MPI_DOUBLE, next, TAG_RING, MPI_COMM_WORLD, &sreq), "Isend");
        check(MPI_Wait(&sreq, MPI_STATUS_IGNORE), "Wait send");
        check(MPI_Wait(&rreq, MPI_STATUS_IGNORE), "Wait recv");
        busy_compute(1.0);
    }

    /* One more ring, completed by polling with MPI_Test. */
    {
        MPI_Request rreq, sreq;
        int rdone = 0, sdone = 0;
        check(MPI_Irecv(in, 8, MPI_DOUBLE, prev, TAG_TEST_RING, MPI_COMM_WORLD, &rreq), "Irecv");
        check(MPI_Isend(out, 8, MPI_DOUBLE, next, TAG_TEST_RING, MPI_COMM_WORLD, &sreq), "Isend");
        while (!rdone || !sdone) {
            if (!rdone) {
                check(MPI_Test(&rreq, &rdone, MPI_STATUS_IGNORE), "Test recv");
            }
            if (!sdone) {
                check(MPI_Test(&sreq, &sdone, MPI_STATUS_IGNORE), "Test send");
            }
            if (!rdone || !sdone) {
                busy_compute(0.05); /* bound the number of MPI_Test events */
            }
        }
    }
}

static void phase_wildcards(int rank)
{
    int v = rank;
    MPI_Status st;

    /* ANY_SOURCE: ranks 1..3 each send one message to rank 0. */
    if (rank == 0) {
        for (int i = 1; i < NRANKS; i++) {
            check(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_ANY_SOURCE, MPI_COMM_WORLD, &st),
                  "Recv ANY_SOURCE");
        }
    } else {
        MPI_Request req;
        busy_compute(0.5 * rank); /* stagger arrivals */
        check(MPI_Isend(&v, 1, MPI_INT, 0, TAG_ANY_SOURCE, MPI_COMM_WORLD, &req),
              "Isend ANY_SOURCE");
        check(MPI_Wait(&req, MPI_STATUS_IGNORE), "Wait ANY_SOURCE");
    }

    /* ANY_TAG: rank 0 sends one message to rank 3. */
    if (rank == 0) {
        check(MPI_Send(&v, 1, MPI_INT, 3, TAG_ANY_TAG, MPI_COMM_WORLD), "Send ANY_TAG");
    } else if (rank == 3) {
        check(MPI_Recv(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "Recv ANY_TAG");
        if (st.MPI_TAG != TAG_ANY_TAG) {
            fprintf(stderr, "pingring: unexpected tag %d\n", st.MPI_TAG);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

static void phase_collectives(int rank, int size)
{
    int one = rank + 1, sum = 0, scan = 0, exscan = 0;
    int bval = (rank == 1) ? 42 : 0;
    int gathered[NRANKS], scattered = 0, all[NRANKS];
    int a2a_out[NRANKS], a2a_in[NRANKS];

    for (int i = 0; i < size; i++) {
        gathered[i] = 0;
        all[i] = 0;
        a2a_out[i] = rank * 10 + i;
        a2a_in[i] = 0;
    }

    check(MPI_Barrier(MPI_COMM_WORLD), "Barrier");
    busy_compute(1.0);
    check(MPI_Bcast(&bval, 1, MPI_INT, 1, MPI_COMM_WORLD), "Bcast");
    check(MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD), "Reduce");
    check(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Allreduce");
    busy_compute(1.0);
    check(MPI_Gather(&one, 1, MPI_INT, gathered, 1, MPI_INT, 0, MPI_COMM_WORLD), "Gather");
    for (int i = 0; i < size; i++) {
        gathered[i] = i * 3;
    }
    check(MPI_Scatter(gathered, 1, MPI_INT, &scattered, 1, MPI_INT, 3, MPI_COMM_WORLD), "Scatter");
    check(MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD), "Allgather");
    check(MPI_Alltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD), "Alltoall");
    busy_compute(1.0);
    check(MPI_Scan(&one, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Scan");
    check(MPI_Exscan(&one, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Exscan");

    if (sum != size * (size + 1) / 2 || scan != (rank + 1) * (rank + 2) / 2) {
        fprintf(stderr, "pingring: bad collective result on rank %d\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void phase_subcomm(int rank)
{
    MPI_Comm sub;
    int subrank = -1, subsize = 0, v = rank, sum = 0;

    check(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub), "Comm_split");
    check(MPI_Comm_rank(sub, &subrank), "Comm_rank");
    check(MPI_Comm_size(sub, &subsize), "Comm_size");

    check(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, sub), "sub Allreduce");
    busy_compute(0.5);
    /* world 0 -> world 2 (even comm), world 1 -> world 3 (odd comm) */
    if (subrank == 0) {
        check(MPI_Send(&v, 1, MPI_INT, 1, TAG_SUB, sub), "sub Send");
    } else if (subrank == 1) {
        check(MPI_Recv(&v, 1, MPI_INT, 0, TAG_SUB, sub, MPI_STATUS_IGNORE), "sub Recv");
    }
    check(MPI_Comm_free(&sub), "Comm_free");
}

int main(int argc, char **argv)
{
    int rank = 0, size = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != NRANKS) {
        if (rank == 0) {
            fprintf(stderr, "pingring: needs exactly %d ranks, got %d\n", NRANKS, size);
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    print_clock_ground_truth(rank, "start");
    busy_compute(2.0);
    phase_pingpong(rank);
    busy_compute(2.0);
    phase_ring(rank, size);
    busy_compute(2.0);
    phase_wildcards(rank);
    busy_compute(2.0);
    phase_collectives(rank, size);
    busy_compute(2.0);
    phase_subcomm(rank);
    busy_compute(1.0);
    print_clock_ground_truth(rank, "end");

    MPI_Finalize();
    if (rank == 0) {
        printf("pingring: done on %d ranks\n", size);
    }
    return 0;
}
