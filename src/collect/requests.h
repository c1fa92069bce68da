/* requests.h (internal) - the collector's pending non-blocking requests, found by
 * the value of their MPI handle, several per value.
 *
 * MPI may give one handle value to several pending requests: Open MPI (ob1)
 * completes a small MPI_Isend when it is posted and returns one shared, complete
 * request for all such sends. So a value holds its requests in posting order, and
 * the completion (or MPI_Request_free) of a handle takes the oldest: requests
 * behind one value cannot be told apart by the program either. MPI-free (handles
 * as integers), so that unit tests drive it without MPI. */
#ifndef TSYNC_COLLECT_REQUESTS_H
#define TSYNC_COLLECT_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the collector keeps of a pending request. */
struct tsc_request {
    uint64_t id;   /* OTF2 request id, in posting order */
    uint32_t comm; /* OTF2 CommRef */
    bool recv;     /* MPI_Irecv; else a send */
};

/* The table. All zero is an empty table; tsc_requests_free empties it. */
struct tsc_requests {
    struct tsc_requests_slot *slots; /* open addressing on the handle value */
    size_t n_slots, cap_slots;       /* values held; cap a power of 2 */
    struct tsc_requests_node *nodes; /* the requests, linked per value */
    uint32_t n_nodes, cap_nodes, free_node;
};

/* Adds a request posted with handle value h, after those pending with it.
 * Returns 0, or -1 when out of memory (then the table is unchanged). */
int tsc_requests_add(struct tsc_requests *t, uint64_t h, struct tsc_request r);

/* Takes the oldest pending request of handle value h into *out and removes it.
 * Returns false (and leaves *out alone) when none is pending. Cannot fail. */
bool tsc_requests_take(struct tsc_requests *t, uint64_t h, struct tsc_request *out);

/* Frees the memory; the table is then empty. */
void tsc_requests_free(struct tsc_requests *t);

#endif
