/* match.h - the match stage: record streams in, messages and collective instances out.
 *
 * Readers emit one record per point-to-point send or receive, per end of a message
 * the file pairs itself, and per collective end into their sink (io/sink.h) while
 * they read; tsync__trace_match hands each stream to its matcher, side by side:
 * MPI matching (p2p.c), ends paired by the file's own message id (ends.c),
 * collective instances (collective.c), packets seen in two captures (packets.c). The records are freed afterwards: they are
 * the transient part of reading, not part of the model.
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

/* One end of a message that the file itself identifies (a CSV row): the send and
 * the receive with the same id are one message. */
struct tsync_end_rec {
    uint64_t id;
    uint64_t idx;        /* the send or receive event */
    tsync_loc loc;
    uint8_t is_recv;
};

/* A packet of a capture that may have been seen in another capture too: its pairing
 * key (a hash of what identifies the packet on the wire, match/packets.c) and its
 * source and destination addresses (ids, the same in every capture of the trace). */
struct tsync_packet_rec {
    uint64_t key;
    uint64_t idx;        /* the packet's event */
    tsync_loc loc;       /* its capture */
    uint32_t src, dst;
    uint32_t flow;       /* the matcher's own (0 from the reader): match/packets.c */
};

struct tsync_match_input {
    struct tsync_p2p_rec *sends, *recvs;
    size_t n_sends, cap_sends, n_recvs, cap_recvs;
    struct tsync_end_rec *ends;
    size_t n_ends, cap_ends;
    struct tsync_coll_rec *colls;
    size_t n_colls, cap_colls;
    struct tsync_packet_rec *packets;
    size_t n_packets, cap_packets;
};

void tsync__match_input_free(struct tsync_match_input *in);

/* The match stage (match.c): every stream of *in to its matcher, then *in freed,
 * also on failure. Messages of MPI matching come first, then those the file paired,
 * in id order. Fails only on ENOMEM, leaving t to the caller. */
int tsync__trace_match(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx);

/* A member's part in the logical messages of its collective instance (seed 002,
 * section 4.1): its begin is a logical send (member of S), its end a logical
 * receive (member of R). 1-to-N sends from the root only, N-to-1 receives at the
 * root only; the recorded roles decide the rest (members without data are left
 * out). The one rule of check, the CLC and estimate. */
#define TSYNC_COLL_SENDS 1u
#define TSYNC_COLL_RECVS 2u
unsigned tsync__coll_role(const struct tsync_collective *co, const struct tsync_coll_member *m);

/* Whether, in a scan or exscan instance, the member of comm rank k sends to the
 * member of comm rank i: MPI_Scan delivers to rank i the data of ranks 0..i,
 * MPI_Exscan of ranks 0..i-1 (MPI 4.0, section 6.11). The seed's formula in
 * section 4.1, {(e_k, e_i) | i = 0..k-x} with "x = 0 for MPI_Exscan() and x = 1
 * for MPI_Exscan()", has a typo (exscan twice) and reads as if rank k sent to the
 * ranks below it; MPI's semantics are implemented instead. */
int tsync__scan_flows(const struct tsync_collective *co, uint32_t k, uint32_t i);

/* Pairs sends with receives: per key, first send to first receive (MPI's
 * non-overtaking rule). Fills trace->messages and the unmatched counts, warns
 * about unmatched messages. Sorts the records in place. Fails only on ENOMEM. */
int tsync__match_p2p(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx);

/* Pairs the ends of messages the file identifies (ends.c): the send and the receive
 * of one id are a message, appended in id order; an id with one end only is counted
 * unmatched and warned about once in all. Fails only on ENOMEM. */
int tsync__match_ends(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx);

/* Pairs the packets that two captures of different hosts both saw (packets.c):
 * each becomes a message from the capture of its source address's host to the
 * other. Keys seen twice in one capture or in more than two captures are left out;
 * each pair of hosts is summarized in a warning. Fails only on ENOMEM. */
int tsync__match_packets(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx);

/* The pairing stats of captures a and b, in either order (t->pairings, which
 * tsync__match_packets leaves sorted by captures), or NULL when they share no
 * traffic. */
struct tsync__packet_pairing *tsync__packet_pairing_of(struct tsync_trace *t, tsync_loc a,
                                                       tsync_loc b);

/* Groups collective ends into instances: per communicator, the k-th call of every
 * member is instance k. Fills trace->collectives and trace->members. Warns about
 * members with missing calls or differing operations. Fails only on ENOMEM. */
int tsync__match_collectives(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx);

/* The order tsync__match_collectives sorts the records in: by communicator, location
 * and end event (a location's calls on a communicator in call order). */
int tsync__coll_rec_cmp(const void *a, const void *b);

/* A member's record with its rank in the communicator, for ordering by rank. */
struct tsync__ranked_rec { uint32_t comm_rank; const struct tsync_coll_rec *rec; };

/* Call k of communicator `comm` as an instance, from its members' records recs[0, nm)
 * in location order (nl: how many locations record calls on comm; ranked: room for
 * nm): *c (its first_member kept) and its members m[0, nm), sorted by rank, with
 * their roles; recs end in the members' order. Warns about members missing and
 * operations that differ. Cannot fail. */
void tsync__coll_instance(const struct tsync_trace *t, uint32_t comm, uint64_t k, size_t nl,
                          const struct tsync_coll_rec **recs, uint32_t nm,
                          struct tsync__ranked_rec *ranked, struct tsync_collective *c,
                          struct tsync_coll_member *m, tsync_ctx *ctx);

/* ---- coll_part.c: collective instances held in parts (the MPI replay) -------------- */

/* A member of a collective instance on its way from the process that matched the
 * instance to the one that holds the member's location: the instance's index in
 * the whole trace and the member's place among its members. */
struct tsync__held_member {
    uint64_t id;
    struct tsync_coll_member m;
    uint32_t pos;
};

/* What names an instance and reaches its other members' processes, once to each
 * process that holds a member: its header, how many of its members send, and the
 * first run of processes (first, last) of the set of those that hold its receiving
 * members (runs[0]) and of those that hold its sending members (runs[1]), first >
 * last for an empty set; further runs come as tsync__proc_run. */
struct tsync__held_instance {
    uint64_t id;
    uint32_t comm, op, root, senders;
    uint32_t runs[2][2];
    uint8_t cls;
};

/* Processes first .. last hold members of instance id: a further run of its set
 * `set` (0: of the receiving members, 1: of the sending ones). */
struct tsync__proc_run {
    uint64_t id;
    uint32_t set, first, last;
};

/* What the processes that hold an instance's members get: records and their
 * destination processes. */
struct tsync__coll_routes {
    struct tsync__held_member *held;
    struct tsync__held_instance *inst;
    struct tsync__proc_run *runs;
    int *held_to, *inst_to, *runs_to;
    size_t n_held, n_inst, n_runs;
    size_t cap_held, cap_held_to, cap_inst, cap_inst_to, cap_runs, cap_runs_to;
    uint64_t *pairs;             /* scratch */
    uint32_t *procs;
    size_t cap_pairs, cap_procs;
};

/* Appends to *r what the processes that hold the members of whole instance `id`
 * (co, its members m) need, when n_ranks processes hold blocks of the trace's
 * locations (tsync__location_holder): each its own members, the instance's header
 * and the sets of processes that hold the receiving and the sending members. 0 or
 * TSYNC_ENOMEM. */
int tsync__coll_route(struct tsync__coll_routes *r, const struct tsync_trace *t, uint64_t id,
                      const struct tsync_collective *co, const struct tsync_coll_member *m,
                      uint32_t n_ranks);
void tsync__coll_routes_free(struct tsync__coll_routes *r);

/* This process's part of the collective instances, from every record
 * tsync__coll_route made for it (in any order; the arrays are sorted here):
 * t->collectives (n_members: those held here), t->members, t->coll_ids,
 * t->coll_parts and t->proc_sets, each set once however many instances name it.
 * 0 or TSYNC_ENOMEM (t then holds none). */
int tsync__coll_part_build(struct tsync_trace *t, struct tsync__held_member *held, size_t n_held,
                           struct tsync__held_instance *inst, size_t n_inst,
                           struct tsync__proc_run *runs, size_t n_runs);

#endif
