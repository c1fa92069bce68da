/* mpi_isends.c - an MPI program for the collector's tests: several small
 * MPI_Isend pending at once (Open MPI completes them when posted and gives them
 * all one shared handle), completed by MPI_Wait, Waitall, Waitany, Waitsome,
 * Test, Testall, Testany and Testsome, alone and together with receives; then
 * MPI_Request_free of a small and of a large send, whose handle MPI may give to
 * the next request. Any number of ranks >= 2; each rank sends to its next ring
 * neighbour and receives from its previous one. Prints "mpi_isends: ok".
 *
 * Argument: a directory. Each rank writes DIR/expect.RANK: one line per call
 * that completed (or freed) requests, "REGION TOKEN..." with a token per
 * request: sN for the Nth MPI_Isend of the rank (counting from 0), rN for its
 * Nth MPI_Irecv, or s? and r? when another pending request of the rank had the
 * same handle (then the request is known only up to its handle). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K 4         /* requests pending at once */
#define LARGE 65536 /* ints: above every Open MPI eager limit, a handle of its own */

#define CHECK(call)                                                                                        \
    do {                                                                                                   \
        if ((call) != MPI_SUCCESS) {                                                                       \
            fprintf(stderr, "mpi_isends: %s failed\n", #call);                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                  \
        }                                                                                                  \
    } while (0)

static int next, prev;
static FILE *expect;

/* The pending requests of this rank, each with its kind and ordinal. */
struct pending {
    MPI_Request h;
    char kind; /* 's' or 'r' */
    int ordinal;
};
static struct pending pend[4 * K];
static int n_pend, n_sends, n_recvs;
static int sendbuf[2 * K], recvbuf[2 * K];

static MPI_Request post(char kind, int i, int tag)
{
    MPI_Request h;
    if (kind == 's')
        CHECK(MPI_Isend(&sendbuf[i], 1, MPI_INT, next, tag, MPI_COMM_WORLD, &h));
    else
        CHECK(MPI_Irecv(&recvbuf[i], 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &h));
    pend[n_pend++] = (struct pending){ h, kind, kind == 's' ? n_sends++ : n_recvs++ };
    return h;
}

/* Its token, then forgets the oldest pending request of handle h. */
static void take(MPI_Request h, char *line, size_t cap)
{
    int first = -1, same = 0;
    for (int i = 0; i < n_pend; i++)
        if (pend[i].h == h) {
            if (first < 0)
                first = i;
            same++;
        }
    if (first < 0) {
        fprintf(stderr, "mpi_isends: completed a request not posted\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    size_t len = strlen(line);
    if (same > 1)
        snprintf(line + len, cap - len, " %c?", pend[first].kind);
    else
        snprintf(line + len, cap - len, " %c%d", pend[first].kind, pend[first].ordinal);
    memmove(&pend[first], &pend[first + 1], (size_t)(n_pend - first - 1) * sizeof *pend);
    n_pend--;
}

/* Writes the line of one call that completed n requests, handles h[idx[k]]. */
static void completed(const char *region, int n, const MPI_Request *h, const int *idx)
{
    char line[512];
    snprintf(line, sizeof line, "%s", region);
    for (int k = 0; k < n; k++)
        take(h[idx ? idx[k] : k], line, sizeof line);
    if (n > 0)
        fprintf(expect, "%s\n", line);
}

/* Posts K small sends (and K receives when with_recvs) into rq, in order;
 * returns how many. */
static int post_phase(MPI_Request *rq, int tag, int with_recvs)
{
    int n = 0;
    for (int i = 0; i < K; i++) {
        if (with_recvs)
            rq[n++] = post('r', i, tag);
        rq[n++] = post('s', i, tag);
    }
    return n;
}

/* The K messages of a phase without receives. */
static void receive(int tag)
{
    for (int i = 0; i < K; i++)
        CHECK(MPI_Recv(&recvbuf[i], 1, MPI_INT, prev, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char path[4096];
    snprintf(path, sizeof path, "%s/expect.%d", argc > 1 ? argv[1] : ".", rank);
    if (!(expect = fopen(path, "w"))) {
        fprintf(stderr, "mpi_isends: cannot write %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < 2 * K; i++)
        sendbuf[i] = rank * 100 + i;
    MPI_Request rq[2 * K], h[2 * K];
    int idx[2 * K], n, tag = 0;

    /* sends only, then sends and receives together: each completion function */
    for (int with_recvs = 0; with_recvs <= 1; with_recvs++) {
        /* MPI_Wait, one by one */
        n = post_phase(rq, ++tag, with_recvs);
        if (!with_recvs)
            receive(tag);
        for (int i = 0; i < n; i++) {
            h[0] = rq[i];
            CHECK(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
            completed("MPI_Wait", 1, h, NULL);
        }
        /* MPI_Waitall */
        n = post_phase(rq, ++tag, with_recvs);
        if (!with_recvs)
            receive(tag);
        memcpy(h, rq, sizeof h);
        CHECK(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
        completed("MPI_Waitall", n, h, NULL);
        /* MPI_Waitany until none is left */
        n = post_phase(rq, ++tag, with_recvs);
        if (!with_recvs)
            receive(tag);
        for (int left = n; left > 0; left--) {
            memcpy(h, rq, sizeof h);
            CHECK(MPI_Waitany(n, rq, &idx[0], MPI_STATUS_IGNORE));
            completed("MPI_Waitany", 1, h, idx);
        }
        /* MPI_Waitsome until none is left */
        n = post_phase(rq, ++tag, with_recvs);
        if (!with_recvs)
            receive(tag);
        for (int left = n, out; left > 0; left -= out) {
            memcpy(h, rq, sizeof h);
            CHECK(MPI_Waitsome(n, rq, &out, idx, MPI_STATUSES_IGNORE));
            completed("MPI_Waitsome", out, h, idx);
        }
        /* MPI_Test on each until it completes */
        n = post_phase(rq, ++tag, with_recvs);
        if (!with_recvs)
            receive(tag);
        for (int i = 0; i < n; i++)
            for (int flag = 0; !flag;) {
                h[0] = rq[i];
                CHECK(MPI_Test(&rq[i], &flag, MPI_STATUS_IGNORE));
                completed("MPI_Test", flag, h, NULL);
            }
        /* MPI_Testall until all completed */
        n = post_phase(rq, ++tag, with_recvs);
        if (!with_recvs)
            receive(tag);
        for (int flag = 0; !flag;) {
            memcpy(h, rq, sizeof h);
            CHECK(MPI_Testall(n, rq, &flag, MPI_STATUSES_IGNORE));
            completed("MPI_Testall", flag ? n : 0, h, NULL);
        }
        /* MPI_Testany until none is left */
        n = post_phase(rq, ++tag, with_recvs);
        if (!with_recvs)
            receive(tag);
        for (int left = n; left > 0;) {
            int flag;
            memcpy(h, rq, sizeof h);
            CHECK(MPI_Testany(n, rq, &idx[0], &flag, MPI_STATUS_IGNORE));
            int done = flag && idx[0] != MPI_UNDEFINED;
            completed("MPI_Testany", done, h, idx);
            left -= done;
        }
        /* MPI_Testsome until none is left */
        n = post_phase(rq, ++tag, with_recvs);
        if (!with_recvs)
            receive(tag);
        for (int left = n, out; left > 0;) {
            memcpy(h, rq, sizeof h);
            CHECK(MPI_Testsome(n, rq, &out, idx, MPI_STATUSES_IGNORE));
            out = out == MPI_UNDEFINED ? 0 : out;
            completed("MPI_Testsome", out, h, idx);
            left -= out;
        }
    }

    /* MPI_Request_free: a small send freed among small ones waited for, then a
     * large send freed and the next large one waited for (MPI may give it the
     * freed one's handle). Freed sends have no completion. */
    n = post_phase(rq, ++tag, 0);
    receive(tag);
    h[0] = rq[1];
    CHECK(MPI_Request_free(&rq[1]));
    completed("MPI_Request_free", 1, h, NULL);
    rq[1] = rq[--n];
    memcpy(h, rq, sizeof h);
    CHECK(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    completed("MPI_Waitall", n, h, NULL);
    int *large = calloc(2 * LARGE, sizeof *large), ack = 0;
    if (!large)
        MPI_Abort(MPI_COMM_WORLD, 1);
    tag++;
    for (int k = 0; k < 2; k++) {
        CHECK(MPI_Isend(large, LARGE, MPI_INT, next, tag, MPI_COMM_WORLD, &rq[0]));
        pend[n_pend++] = (struct pending){ rq[0], 's', n_sends++ };
        h[0] = rq[0];
        if (k == 0) {
            CHECK(MPI_Request_free(&rq[0]));
            completed("MPI_Request_free", 1, h, NULL);
        }
        CHECK(MPI_Recv(large + LARGE, LARGE, MPI_INT, prev, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* the freed send is done once its receiver acknowledged it */
        CHECK(MPI_Sendrecv(&ack, 1, MPI_INT, prev, tag + 1, &ack, 1, MPI_INT, next, tag + 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        if (k == 1) {
            CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
            completed("MPI_Wait", 1, h, NULL);
        }
    }
    free(large);

    fclose(expect);
    MPI_Finalize();
    if (rank == 0)
        printf("mpi_isends: ok\n");
    return 0;
}
