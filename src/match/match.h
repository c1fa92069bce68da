/* match.h - from MPI event records to messages and collective instances.
 *
 * Readers collect one record per point-to-point send or receive and per collective
 * end while they read; match_p2p and match_collectives turn them into the trace's
 * messages and collective instances. The records are freed afterwards: they are the
 * transient part of reading, not part of the model.
 */
#ifndef TSYNC_MATCH_MATCH_H
#define TSYNC_MATCH_MATCH_H

#include "trace/trace.h"

/* A send or a receive, keyed the way MPI matches: (comm, sender, receiver, tag). */
struct tsync_p2p_rec {
    uint32_t comm;       /* index into trace->comms */
    tsync_loc sender;
    tsync_loc receiver;
    uint32_t tag;
    uint64_t idx;        /* the send or receive event */
    uint64_t order;      /* posting order on its location: the event itself, or the
                          * MpiIrecvRequest of a non-blocking receive */
};

/* One member's MpiCollectiveEnd (with the Begin before it). */
struct tsync_coll_rec {
    uint32_t comm;
    tsync_loc loc;
    uint32_t op;
    uint32_t root;
    uint64_t begin_idx, end_idx;
    uint64_t sent, received;
};

struct tsync_match_input {
    struct tsync_p2p_rec *sends, *recvs;
    size_t n_sends, cap_sends, n_recvs, cap_recvs;
    struct tsync_coll_rec *colls;
    size_t n_colls, cap_colls;
};

void tsync__match_input_free(struct tsync_match_input *in);

/* Pairs sends with receives: per key, first send to first receive (MPI's
 * non-overtaking rule). Fills trace->messages and the unmatched counts, warns
 * about unmatched messages. Sorts the records in place. Fails only on ENOMEM. */
int tsync__match_p2p(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx);

/* Groups collective ends into instances: per communicator, the k-th call of every
 * member is instance k. Fills trace->collectives and trace->members. Warns about
 * members with missing calls or differing operations. Fails only on ENOMEM. */
int tsync__match_collectives(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx);

#endif
