/* comms.c - communicators and non-blocking requests by MPI handle.
 *
 * A created communicator is named by its rank 0 ((world rank + 1) << 16 | a
 * counter of that rank), broadcast over the new communicator, so every member
 * writes the same CommRef and only rank 0 keeps the definition (its members as
 * world ranks) for the archive. Requests get ids in posting order; the table of
 * requests.c finds them by handle when they complete, the oldest first when
 * several pending requests share a handle. */
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect_mpi.h"
#include "collect/requests.h"

struct comm_entry {
    MPI_Comm handle;
    uint32_t id;
};
static struct comm_entry *comms;
static size_t n_comms, cap_comms;
static uint32_t comm_counter;
static struct tsc_requests pending; /* keyed by the handle's value */

struct tsc_comm_def *tsc_comm_defs;
size_t tsc_n_comm_defs;

uint32_t tsc_comm_id(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD)
        return TSC_COMM_WORLD;
    for (size_t i = n_comms; i-- > 0;)
        if (comms[i].handle == c)
            return comms[i].id;
    return OTF2_UNDEFINED_COMM;
}

static int push_comm(MPI_Comm handle, uint32_t id)
{
    if (n_comms == cap_comms) {
        size_t cap = cap_comms ? 2 * cap_comms : 16;
        struct comm_entry *p = realloc(comms, cap * sizeof *p);
        if (!p)
            return -1;
        comms = p, cap_comms = cap;
    }
    comms[n_comms++] = (struct comm_entry){ handle, id };
    return 0;
}

static int own_definition(MPI_Comm newcomm, uint32_t id, uint32_t parent)
{
    MPI_Group g, world;
    int size;
    PMPI_Comm_size(newcomm, &size);
    struct tsc_comm_def *p = realloc(tsc_comm_defs, (tsc_n_comm_defs + 1) * sizeof *p);
    int *ranks = malloc((size_t)size * sizeof *ranks), *wranks = malloc((size_t)size * sizeof *wranks);
    uint32_t *members = malloc((size_t)size * sizeof *members);
    if (p)
        tsc_comm_defs = p;
    if (!p || !ranks || !wranks || !members) {
        free(ranks), free(wranks), free(members);
        return -1;
    }
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    PMPI_Comm_group(newcomm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(g, size, ranks, world, wranks);
    PMPI_Group_free(&g);
    PMPI_Group_free(&world);
    for (int i = 0; i < size; i++)
        members[i] = (uint32_t)wranks[i];
    free(ranks), free(wranks);
    tsc_comm_defs[tsc_n_comm_defs++] = (struct tsc_comm_def){ id, parent, (uint32_t)size, members };
    return 0;
}

void tsc_comm_created(MPI_Comm parent, MPI_Comm newcomm)
{
    int inter = 0, rank;
    if (newcomm == MPI_COMM_NULL || PMPI_Comm_test_inter(newcomm, &inter) != MPI_SUCCESS || inter)
        return; /* intercommunicators are not defined: their events name no comm */
    PMPI_Comm_rank(newcomm, &rank);
    uint32_t id = 0;
    if (rank == 0)
        id = comm_counter < 0xffff ? ((uint32_t)(tsc.rank + 1) << 16) | ++comm_counter : OTF2_UNDEFINED_COMM;
    PMPI_Bcast(&id, 1, MPI_UINT32_T, 0, newcomm);
    if (id == OTF2_UNDEFINED_COMM)
        return;
    if (push_comm(newcomm, id) != 0 || (rank == 0 && own_definition(newcomm, id, tsc_comm_id(parent)) != 0))
        tsc_warn("out of memory: communicator %u is not defined", id);
}

void tsc_comm_freed(MPI_Comm c)
{
    for (size_t i = n_comms; i-- > 0;)
        if (comms[i].handle == c) {
            memmove(&comms[i], &comms[i + 1], (n_comms - i - 1) * sizeof *comms);
            n_comms--;
            return;
        }
}

void tsc_comms_free(void)
{
    for (size_t i = 0; i < tsc_n_comm_defs; i++)
        free(tsc_comm_defs[i].members);
    free(tsc_comm_defs);
    free(comms);
    tsc_comm_defs = NULL, comms = NULL;
    tsc_n_comm_defs = n_comms = cap_comms = 0;
    tsc_requests_free(&pending);
}

static uint64_t handle_value(MPI_Request h)
{
    return (uint64_t)(uintptr_t)h;
}

uint64_t tsc_request_add(MPI_Request handle, uint32_t comm, bool recv)
{
    uint64_t id = tsc.next_request++;
    tsc_requests_add(&pending, handle_value(handle), (struct tsc_request){ id, comm, recv });
    return id; /* out of memory, its completion is not recorded */
}

void tsc_request_done(MPI_Request handle, const MPI_Status *status)
{
    struct tsc_request e;
    if (handle == MPI_REQUEST_NULL || !tsc_requests_take(&pending, handle_value(handle), &e))
        return;
    int cancelled = 0;
    PMPI_Test_cancelled(status, &cancelled);
    if (cancelled) {
        tsc_record_now(TSC_REQUEST_CANCELLED)->b = e.id;
    } else if (e.recv) { /* the status names the sender */
        int bytes = 0;
        PMPI_Get_count(status, MPI_BYTE, &bytes);
        if (status->MPI_SOURCE != MPI_PROC_NULL) {
            struct tsc_rec *r = tsc_record_now(TSC_IRECV);
            r->comm = e.comm;
            r->peer = (uint32_t)status->MPI_SOURCE;
            r->tag = (uint32_t)status->MPI_TAG;
            r->a = bytes > 0 ? (uint64_t)bytes : 0;
            r->b = e.id;
        }
    } else {
        tsc_record_now(TSC_ISEND_COMPLETE)->b = e.id;
    }
}

void tsc_request_freed(MPI_Request handle)
{
    struct tsc_request e;
    if (handle != MPI_REQUEST_NULL)
        tsc_requests_take(&pending, handle_value(handle), &e);
}
