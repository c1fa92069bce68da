/* otf2_build.h (internal) - writes a new OTF2 archive from scratch, event by event.
 *
 * The builder lays out an MPI run the way Score-P records one: a system tree with
 * one "machine" root and one "node" per host, a PROCESS location group and one
 * CPU_THREAD location per rank, MPI_COMM_WORLD (comm 0) plus any extra
 * communicators, and regions made on first use. Events stream straight into one
 * libotf2 event writer per rank, so memory does not grow with the number of events;
 * the global definitions (with the real event counts and the time range) are
 * written by close.
 *
 * The builder writes what it is told, so that tests can write corrupt traces: ranks
 * may be written in any order, a message may be received before it is sent, peers
 * and comms need not exist, collectives need not match. It refuses a rank outside
 * the layout (TSYNC_EINVAL: there is no location to write to). libotf2 itself
 * refuses an event earlier than the previous event of the same rank (TSYNC_EIO,
 * "Passed timestamp is smaller than last written one"); that cannot be written.
 *
 * Errors: every call returns 0 or a negative TSYNC_E* code and records the detail in
 * the ctx given to open. The first error sticks: later event calls return it again
 * without writing, and close returns it after cleaning up.
 */
#ifndef TSYNC_IO_OTF2_BUILD_H
#define TSYNC_IO_OTF2_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <otf2/otf2.h>
#include "tracesync/common.h"

struct tsync_otf2_builder;

/* An extra communicator: OTF2 CommRef `id` (not 0, which is MPI_COMM_WORLD) and
 * its members as world ranks, index = rank in the communicator. */
struct tsync_otf2_build_comm {
    uint32_t id;
    uint32_t size;
    const uint32_t *members;
};

/* What the archive holds. The builder copies all of it; the caller's arrays need
 * not outlive open. */
struct tsync_otf2_build_layout {
    const char *anchor;              /* "dir/traces.otf2": archive dir/, name traces */
    uint64_t timer_resolution;       /* ticks per second, > 0 */
    uint32_t n_nodes;
    const char *const *nodes;        /* n_nodes host names */
    uint32_t n_ranks;                /* world ranks 0..n_ranks-1, > 0 */
    const uint32_t *rank_node;       /* n_ranks indices into nodes */
    const uint64_t *rank_location;   /* n_ranks OTF2 LocationRefs, distinct; NULL: = rank */
    uint32_t n_comms;
    const struct tsync_otf2_build_comm *comms; /* n_comms extra communicators */
    bool rank_names;                 /* locations named "Rank N", else "Master thread" */
};

/* Creates the archive (its directory must not hold an archive of that name yet;
 * missing parent directories are made) and one event writer per rank. On success
 * *out is the builder, which keeps ctx for all later calls. On failure *out is NULL
 * and nothing needs closing. TSYNC_EINVAL for a bad layout, TSYNC_EIO when libotf2
 * fails, TSYNC_ENOMEM. */
int tsync__otf2_build_open(struct tsync_otf2_builder **out, const struct tsync_otf2_build_layout *layout,
                           tsync_ctx *ctx);

/* Events of world rank `rank` at `time` ticks. `comm` is an OTF2 CommRef, `peer`
 * a rank in that communicator, `request` an MPI request id. */
int tsync__otf2_build_enter(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                            const char *region);
int tsync__otf2_build_leave(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                            const char *region);
int tsync__otf2_build_send(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time, uint32_t comm,
                           uint32_t peer, uint32_t tag, uint64_t len);
int tsync__otf2_build_isend(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time, uint32_t comm,
                            uint32_t peer, uint32_t tag, uint64_t len, uint64_t request);
int tsync__otf2_build_isend_complete(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                                     uint64_t request);
int tsync__otf2_build_irecv_request(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                                    uint64_t request);
int tsync__otf2_build_recv(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time, uint32_t comm,
                           uint32_t peer, uint32_t tag, uint64_t len);
int tsync__otf2_build_irecv(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time, uint32_t comm,
                            uint32_t peer, uint32_t tag, uint64_t len, uint64_t request);
int tsync__otf2_build_coll_begin(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time);
/* `root` is a rank in `comm`, or OTF2_UNDEFINED_UINT32 when the operation has none. */
int tsync__otf2_build_coll_end(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                               OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t sent,
                               uint64_t received);

/* A ClockOffset measured on rank's clock at `time`: global = local + offset. It is
 * a local definition of the rank's location, as Score-P writes it; its time does
 * not count towards the trace's time range. */
int tsync__otf2_build_clock_offset(struct tsync_otf2_builder *b, uint32_t rank, uint64_t time,
                                   int64_t offset, double stddev);

/* Number of events written so far for a rank (0 for a rank outside the layout). */
uint64_t tsync__otf2_build_count(const struct tsync_otf2_builder *b, uint32_t rank);

/* Writes the global definitions (ClockProperties: global offset = smallest event
 * time, length = largest - smallest; both 0 without events), closes the archive
 * and frees b, also after an error. Returns 0 or the first error of the builder's
 * life. NULL is fine. */
int tsync__otf2_build_close(struct tsync_otf2_builder *b);

/* Closes and frees b after a failure elsewhere (another archive of the same run,
 * whose files go too), without a word in the ctx: libotf2 reports its errors
 * process-wide, so b would report the other archive's failure as its own. Writes
 * no global definitions. NULL is fine. */
void tsync__otf2_build_abandon(struct tsync_otf2_builder *b);

#endif
