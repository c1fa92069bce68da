/* collect.h (internal) - the MPI collector's shared state and its parts.
 *
 * libtracesync-collect.so is a PMPI library: every wrapped MPI call appends
 * fixed-size records to a per-process buffer (buffer.c) with a seed 001 stamp
 * (stamp.c). Clock synchronization sessions (timesync.c, seed 000) run at MPI_Init,
 * MPI_Finalize and on tracesync_timesync(). At MPI_Finalize the records are written
 * as OTF2 (write.c): the local archive, the global one (seed 001) and, in test mode,
 * the truth.
 *
 * Nothing here is thread-safe: the collector records the thread that calls MPI
 * (MPI_THREAD_FUNNELED at most), as one OTF2 location per process.
 */
#ifndef TSYNC_COLLECT_H
#define TSYNC_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tracesync/collect_core.h"
#include "collect/stamp.h"

/* Regions: one per wrapped MPI function, RegionRef = index (identical on every
 * rank, so the definitions need no unification). */
#define TSC_REGIONS(X)                                                                                  \
    X(INIT, "MPI_Init", OTF2_REGION_ROLE_FUNCTION) X(INIT_THREAD, "MPI_Init_thread", OTF2_REGION_ROLE_FUNCTION) \
    X(FINALIZE, "MPI_Finalize", OTF2_REGION_ROLE_FUNCTION)                                               \
    X(SEND, "MPI_Send", OTF2_REGION_ROLE_POINT2POINT) X(SSEND, "MPI_Ssend", OTF2_REGION_ROLE_POINT2POINT) \
    X(RSEND, "MPI_Rsend", OTF2_REGION_ROLE_POINT2POINT) X(BSEND, "MPI_Bsend", OTF2_REGION_ROLE_POINT2POINT) \
    X(RECV, "MPI_Recv", OTF2_REGION_ROLE_POINT2POINT) X(ISEND, "MPI_Isend", OTF2_REGION_ROLE_POINT2POINT) \
    X(ISSEND, "MPI_Issend", OTF2_REGION_ROLE_POINT2POINT) X(IRECV, "MPI_Irecv", OTF2_REGION_ROLE_POINT2POINT) \
    X(SENDRECV, "MPI_Sendrecv", OTF2_REGION_ROLE_POINT2POINT)                                            \
    X(SENDRECV_REPLACE, "MPI_Sendrecv_replace", OTF2_REGION_ROLE_POINT2POINT)                            \
    X(WAIT, "MPI_Wait", OTF2_REGION_ROLE_POINT2POINT) X(WAITALL, "MPI_Waitall", OTF2_REGION_ROLE_POINT2POINT) \
    X(WAITANY, "MPI_Waitany", OTF2_REGION_ROLE_POINT2POINT)                                              \
    X(WAITSOME, "MPI_Waitsome", OTF2_REGION_ROLE_POINT2POINT) X(TEST, "MPI_Test", OTF2_REGION_ROLE_POINT2POINT) \
    X(TESTALL, "MPI_Testall", OTF2_REGION_ROLE_POINT2POINT)                                              \
    X(TESTANY, "MPI_Testany", OTF2_REGION_ROLE_POINT2POINT)                                              \
    X(TESTSOME, "MPI_Testsome", OTF2_REGION_ROLE_POINT2POINT)                                            \
    X(REQUEST_FREE, "MPI_Request_free", OTF2_REGION_ROLE_FUNCTION)                                       \
    X(BARRIER, "MPI_Barrier", OTF2_REGION_ROLE_BARRIER) X(BCAST, "MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL) \
    X(REDUCE, "MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE)                                               \
    X(ALLREDUCE, "MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL)                                         \
    X(GATHER, "MPI_Gather", OTF2_REGION_ROLE_COLL_ALL2ONE)                                               \
    X(SCATTER, "MPI_Scatter", OTF2_REGION_ROLE_COLL_ONE2ALL)                                             \
    X(ALLGATHER, "MPI_Allgather", OTF2_REGION_ROLE_COLL_ALL2ALL)                                         \
    X(ALLTOALL, "MPI_Alltoall", OTF2_REGION_ROLE_COLL_ALL2ALL) X(SCAN, "MPI_Scan", OTF2_REGION_ROLE_COLL_OTHER) \
    X(EXSCAN, "MPI_Exscan", OTF2_REGION_ROLE_COLL_OTHER)                                                 \
    X(COMM_SPLIT, "MPI_Comm_split", OTF2_REGION_ROLE_COLL_ALL2ALL)                                       \
    X(COMM_DUP, "MPI_Comm_dup", OTF2_REGION_ROLE_COLL_ALL2ALL)                                           \
    X(COMM_FREE, "MPI_Comm_free", OTF2_REGION_ROLE_FUNCTION)                                             \
    X(TIMESYNC, "tracesync_timesync", OTF2_REGION_ROLE_FUNCTION)

enum tsc_region {
#define TSC_REGION_ENUM(id, name, role) TSC_R_##id,
    TSC_REGIONS(TSC_REGION_ENUM)
#undef TSC_REGION_ENUM
    TSC_N_REGIONS
};
extern const char *const tsc_region_names[TSC_N_REGIONS];

/* One recorded event, 48 bytes. */
enum tsc_kind {
    TSC_ENTER, TSC_LEAVE, TSC_SEND, TSC_ISEND, TSC_ISEND_COMPLETE, TSC_IRECV_REQUEST, TSC_IRECV,
    TSC_RECV, TSC_COLL_BEGIN, TSC_COLL_END, TSC_REQUEST_CANCELLED
};
struct tsc_rec {
    uint64_t stamp;    /* local stamp (51 + 13 bits, seed 001) */
    uint64_t truth;    /* test mode: the true time in ns; else 0 */
    uint8_t kind;      /* enum tsc_kind */
    uint8_t op;        /* OTF2_CollectiveOp of COLL_END */
    uint16_t region;   /* enum tsc_region of ENTER/LEAVE */
    uint32_t comm;     /* OTF2 CommRef */
    uint32_t peer;     /* rank in comm; root of COLL_END */
    uint32_t tag;
    uint64_t a;        /* bytes (sent, for COLL_END) */
    uint64_t b;        /* request id; bytes received of COLL_END */
};

/* Communicator ids (OTF2 CommRef): world 0, the timesync sessions' 1, created
 * ones ((creator's world rank + 1) << 16 | its counter), so that every member
 * names a communicator alike without a unification pass. */
#define TSC_COMM_WORLD 0u
#define TSC_COMM_TIMESYNC 1u

/* The collector's state of this process. */
struct tsc_state {
    bool active;           /* recording (MPI_Init done, MPI_Finalize not begun) */
    struct tsc_config cfg;
    struct tsc_clock clock;
    int rank, size;

    struct tsc_rec *buf;   /* records in memory */
    size_t n_buf, cap_buf;
    FILE *spill;           /* records flushed when the buffer was full */
    char spill_path[512];
    uint64_t n_events, n_flushes;
    uint64_t first_stamp;  /* of MPI_Init's Enter */

    uint64_t now_local, now_truth; /* the last clock reading (tsc_tick) */
    uint64_t next_request; /* request ids */
};
extern struct tsc_state tsc;

/* Appends a record stamped now (buffer.c), and keeps that clock reading. Flushes
 * the buffer to the spill file when full; a failed flush stops recording with a
 * message (never the program). */
struct tsc_rec *tsc_record(enum tsc_kind kind);
/* The same for a clock read earlier (local and true ns). */
struct tsc_rec *tsc_record_at(enum tsc_kind kind, uint64_t local_ns, uint64_t truth_ns);
void tsc_enter(enum tsc_region r);
void tsc_leave(enum tsc_region r);

/* The events of one wrapped call share two clock readings: at its entry (Enter and
 * what is recorded before the call) and once the call returned (tsc_tick: what it
 * completed, and Leave). A reading costs about as much as the rest of an event;
 * the stamps' event counter keeps events on one tick distinct and in order (seed
 * 001). tsc_record_now and tsc_leave_now take the last reading. */
void tsc_tick(void);
struct tsc_rec *tsc_record_now(enum tsc_kind kind);
void tsc_leave_now(enum tsc_region r);

/* Calls fn on every record in order, spilled ones first (buffer.c). */
int tsc_records_each(int (*fn)(const struct tsc_rec *r, void *payload), void *payload);
void tsc_records_free(void);

/* Prints "tracesync-collect: ..." on stderr, prefixed with the rank. */
void tsc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
