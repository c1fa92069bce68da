/* collect_mpi.h (internal) - the collector's MPI-side state: communicators and
 * requests by handle, the clock synchronization sessions, writing the archives. */
#ifndef TSYNC_COLLECT_MPI_H
#define TSYNC_COLLECT_MPI_H

#include <mpi.h>

#include "collect/collect.h"
#include "collect/sessions.h"

/* Communicators (comms.c). The OTF2 CommRef of a handle: TSC_COMM_WORLD, an id
 * given by tsc_comm_created, or OTF2_UNDEFINED_COMM (MPI_COMM_SELF, untraced). */
uint32_t tsc_comm_id(MPI_Comm c);
/* After a communicator was created from parent (collective over newcomm, may be
 * MPI_COMM_NULL): its rank 0 names it and owns its definition. */
void tsc_comm_created(MPI_Comm parent, MPI_Comm newcomm);
void tsc_comm_freed(MPI_Comm c);

/* The definitions this rank owns: created communicators whose rank 0 it is. */
struct tsc_comm_def {
    uint32_t id, parent, size;
    uint32_t *members;      /* world ranks */
};
extern struct tsc_comm_def *tsc_comm_defs;
extern size_t tsc_n_comm_defs;
/* Frees the communicators' and the requests' memory. */
void tsc_comms_free(void);

/* Non-blocking requests (comms.c): a request id per posted request, kept with its
 * handle until it completes. MPI may give one handle to several pending requests
 * (Open MPI: to every small MPI_Isend, complete when posted); a completion or a
 * free of the handle is then the oldest one's. */
uint64_t tsc_request_add(MPI_Request handle, uint32_t comm, bool recv);
/* After handle completed with status (which must not be MPI_STATUS_IGNORE):
 * records MpiIsendComplete, MpiIrecv or MpiRequestCancelled if it is ours, at the
 * last reading (tsc_tick after the call). */
void tsc_request_done(MPI_Request handle, const MPI_Status *status);
/* After MPI_Request_free of handle: forgets it (nothing is recorded: the request
 * completes out of the program's sight). */
void tsc_request_freed(MPI_Request handle);

/* Bytes in count items of type. */
static inline uint64_t tsc_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* Clock synchronization (timesync.c, seed 000). */
int tsc_timesync_init(void);       /* at MPI_Init, after the state is set up */
int tsc_timesync_session(void);    /* collective over MPI_COMM_WORLD */
/* The run's correction for the global stamps, after the last session. */
void tsc_timesync_global_map(struct tsc_global_map *out);
extern struct tsc_session *tsc_sessions;    /* this rank's sessions, in order */
extern size_t tsc_n_sessions;
extern char (*tsc_hosts)[64];               /* host name per world rank */
void tsc_timesync_free(void);

/* Writes the archives (write.c): traces.otf2 with local stamps, global.otf2 with
 * global ones (TRACESYNC_GLOBAL), truth.otf2 in test mode. Collective. */
int tsc_write_archives(void);

#endif
