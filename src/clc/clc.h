/* clc.h (internal) - the working state of the controlled logical clock, shared by
 * its parts: index.c (per-location event lists), collective.c
 * (collective bounds), forward.c (Eq. 4 / 4'), gamma.c (the controller),
 * backward.c (Fig. 2) and clc.c (the stage).
 *
 * Memory per event of the trace: 8 bytes for LC' (the input C stays in the
 * caller's timeline until the end); per point-to-point message 20 bytes of receive
 * list (and 20 bytes for a send inside an amortization interval); per collective
 * member 12 bytes of list, 1 of role, 4 of instance and 8 of bound (and 8 of racc
 * in a replay, whose processes hold their own members only). While the
 * lists are built, a bit per event and 4 bytes per 64 events (index.c), freed
 * before LC' is allocated.
 */
#ifndef TSYNC_CLC_CLC_H
#define TSYNC_CLC_CLC_H

#include "tracesync/clc.h"
#include "tracesync/timemap.h"
#include "latency/latency.h"
#include "match/match.h"
#include "trace/trace.h"

/* Roles of a collective member (seed 002, section 4.1; tsync__coll_role). */
#define CLC_SEND TSYNC_COLL_SENDS  /* its begin is a logical send (member of S) */
#define CLC_RECV TSYNC_COLL_RECVS  /* its end is a logical receive (member of R) */

#define CLC_NONE INT64_MIN  /* no bound: no send reaches this receive */
#define CLC_TIME_MAX ((int64_t)1 << 60) /* |times| accepted; sums stay far from overflow */

/* ---- index.c: per-location lists of events, sorted by event index ------------------ */

struct clc_list {
    size_t *first;     /* n_locations + 1: location l owns entries [first[l], first[l+1]) */
    uint64_t *idx;     /* event index on the location */
    uint32_t *id;      /* message or member */
    uint64_t *val;     /* a second payload, or NULL */
    size_t n, cap;
    /* While building (index.c). */
    const struct tsync_trace *t;
    uint32_t n_locations;
    uint64_t **bits;   /* per location: a bit per event with an entry */
    uint32_t **rank;   /* per location: entries before each 64-bit word of bits */
    tsync_loc *loc;    /* the fallback (an event with two entries): each entry's location */
    int dup, oom;
};

/* A list is built in two passes over the same entries: tsync__clc_list_mark for
 * each, tsync__clc_list_ready, tsync__clc_list_put for each (in the same order),
 * tsync__clc_list_finish. The result is sorted by (location, index), entries of
 * one event in the order they were put. */

/* Prepares a list of up to `cap` entries for trace t, with a second payload `val`
 * when with_val. Returns 0 or -1 (no memory). */
int tsync__clc_list_init(struct clc_list *l, const struct tsync_trace *t, size_t cap, int with_val);
/* First pass: an entry at event idx of location loc (both valid, checked by the
 * caller). */
void tsync__clc_list_mark(struct clc_list *l, tsync_loc loc, uint64_t idx);
/* Between the passes: fills `first`. Returns 0 or -1 (no memory). */
int tsync__clc_list_ready(struct clc_list *l);
/* Second pass: the entry again, with its payloads. */
void tsync__clc_list_put(struct clc_list *l, tsync_loc loc, uint64_t idx, uint32_t id,
                         uint64_t val);
/* Completes the list. Returns 0 or -1 (no memory). */
int tsync__clc_list_finish(struct clc_list *l);
void tsync__clc_list_free(struct clc_list *l);
/* First entry of location loc whose index is >= idx. */
size_t tsync__clc_list_seek(const struct clc_list *l, tsync_loc loc, uint64_t idx);

/* ---- collective.c: scratch for per-instance maxima ------------------------------------ */

struct clc_agg {
    uint64_t epoch;      /* per aggregation; a node's entries are valid when stamp == epoch */
    uint64_t *stamp;     /* per node */
    int64_t *b1, *b2;    /* per node: best value, best from another location than b1's */
    tsync_loc *b1_loc;
    uint32_t *touched;   /* nodes with a value in this aggregation */
    size_t n_touched;
    int64_t top1, top2;  /* best b1 over nodes, best b1 over nodes other than top1's */
    uint32_t top1_node;
};

/* ---- the replay: the stage on several processes (replay.c, src/replay/) ------------- */

/* A value one process sends another during the replay; the top two bits of key say
 * what it is (CLC_KEY_*), the rest which message or collective instance it is for
 * (its index in the whole trace); a member's value names the member by its
 * location and rank (for the latency and, in scan and exscan, the direction). */
struct clc_msg {
    uint64_t key;
    int64_t value;
    uint32_t loc, rank;
};

#define CLC_KEY_SEND ((uint64_t)0 << 62)    /* forward: LC' of the send of message */
#define CLC_KEY_BEGIN ((uint64_t)1 << 62)   /* forward: LC' of a sending member's begin */
#define CLC_KEY_RECV ((uint64_t)2 << 62)    /* backward: LC' of the receive of message */
#define CLC_KEY_END ((uint64_t)3 << 62)     /* backward: LC' of a receiving member's end */
#define CLC_KEY_KIND ((uint64_t)3 << 62)

/* How the processes of a replay talk: given by the caller (src/replay/ over MPI).
 * Each process holds the locations t->held says, the messages of those locations
 * (t->message_ids: their indices in the whole trace, the keys of their values) and
 * the members of those locations of the collective instances (t->coll_ids,
 * t->coll_parts: the instances' indices, the processes of their other members); its
 * lists are of its own receives and members. Both calls are made by every process
 * together, in the same order. */
struct tsync__clc_transport {
    uint32_t rank, n_ranks;
    /* Sends msg[i] to process dest[i]; *in gets (malloc'ed) what the others sent
     * this process, *n_in of them. 0 or a negative TSYNC_E* code. */
    int (*exchange)(void *arg, const struct clc_msg *msg, const uint32_t *dest, size_t n,
                    struct clc_msg **in, size_t *n_in);
    /* v[0..n) becomes its maximum (sum = 0) or its sum (sum = 1) over the processes.
     * 0 or a negative TSYNC_E* code. */
    int (*reduce)(void *arg, int64_t *v, int n, int sum);
    void *arg;
};

/* ---- the stage ------------------------------------------------------------------------- */

/* A receive put forward by the message term: its jump dt (Fig. 2). */
struct clc_jump {
    uint64_t idx;
    int64_t dt;
    tsync_loc loc;
};

struct clc {
    const struct tsync_trace *t;
    const tsync_time **in;   /* C, per location (the caller's timeline, or presync'ed) */
    tsync_time **out;        /* LC', per location */
    struct tsync__latency lat;
    int64_t delta;
    double max_slope;
    tsync_ctx *ctx;

    struct clc_list recvs;   /* point-to-point receives; id = sender location, val = send
                              * event (not the message: no random access to messages) */
    struct clc_list membs;   /* collective members with a role, by begin; id = member */
    uint8_t *role;           /* per member: CLC_SEND | CLC_RECV */
    uint32_t *inst;          /* per member: its collective instance */
    int64_t *bound;          /* per member: forward, the bound of a receiving member;
                              * backward, the limit of a sending member */
    struct clc_agg agg;

    unsigned pass;           /* forward passes run so far; warnings come from the first */
    /* Results of the last forward pass. */
    struct clc_jump *jumps;
    size_t n_jumps, cap_jumps;
    uint64_t receives, corrected_p2p, corrected_coll, ignored;
    int64_t max_jump;
    /* Results of backward amortization. */
    uint64_t amortized, limited;
    int64_t max_shift;       /* the largest LC' - C (verify) */

    size_t memory;           /* bytes of working memory held */

    /* The replay (replay.c); all NULL when one process holds every location. */
    const struct tsync__clc_transport *tr;
    const uint8_t *held;     /* t->held */
    int64_t *ghost;          /* per receive entry: LC' of its send, held elsewhere */
    uint64_t *ghost_ready;   /* a bit per receive entry: ghost is there */
    struct clc_list sends;   /* sends held here whose receive is elsewhere; id = message,
                              * val = the receive's location */
    int64_t *racc;           /* per member: what the members of its instance held
                              * elsewhere gave so far (forward, a receiving member: the
                              * largest LC'(begin) + mu of their sends; backward, a
                              * sending member: the largest -LC'(end) + mu of their
                              * receives), as collective.c aggregates; CLC_NONE if none */
    int64_t *recv_lc;        /* per message whose send is held here: LC' of its receive */
};

/* Whether location l is held by this process. */
static inline int clc_held(const struct clc *c, tsync_loc l)
{
    return !c->held || c->held[l];
}

/* How far delta moves an event beyond its predecessor, apart ticks after it in the
 * input (Eq. 4's delta term, forward.c): delta, or less where the input advanced
 * less (events that share a tick keep sharing it). */
static inline int64_t clc_delta_step(int64_t delta, int64_t apart)
{
    return apart < delta ? (apart > 0 ? apart : 0) : delta;
}

/* LC' of member k's begin (end: its end); a process holds only its own members. */
static inline int64_t clc_member_lc(const struct clc *c, size_t k, int end)
{
    const struct tsync_coll_member *m = &c->t->members[k];
    return c->out[m->loc][end ? m->end_idx : m->begin_idx];
}

/* clc.c: tsync_clc_run as one process of a replay (tr NULL: alone): t->held says
 * which locations' times tl holds (the others' are NULL and stay so). Every process
 * calls it together and gets the same result (but Table 4, position and distance,
 * which is of its own locations); a failure anywhere fails all. */
int tsync__clc_run_replay(tsync_clc_result **out, const tsync_trace *t, tsync_timeline *tl,
                          const tsync_clc_opts *opts, const struct tsync__clc_transport *tr,
                          tsync_ctx *ctx);

/* replay.c: message i's index in the whole trace (the key of its values), and the
 * receive entry of the message of that index held here. */
uint64_t tsync__clc_message_id(const struct clc *c, size_t i);
size_t tsync__clc_replay_entry(const struct clc *c, uint64_t id);

/* replay.c: the replay's state once the lists are built (nothing without c->tr).
 * Returns 0 or TSYNC_ENOMEM. */
int tsync__clc_replay_init(struct clc *c);
void tsync__clc_replay_free(struct clc *c);
/* Every process's rc agreed: the first failure anywhere fails them all (this one's
 * own error kept, the others told that another process failed). rc without c->tr. */
int tsync__clc_agree(struct clc *c, int rc);
/* The error of a process told that another one failed (whose own error says why):
 * TSYNC_OTHERS_FAILED, as every step of the replay says it, so that the command
 * prints the error of the process whose own it was. */
int tsync__clc_others_failed(struct clc *c);
/* Sends the values every other process needs before backward amortization: the LC'
 * of each receive held here whose send is elsewhere, and of each receiving member's
 * end, to the processes of its instance's sending members, which keep in racc the
 * minimum each sending member needs (seed 002, Table 2: "min (all exits)"). 0 or an
 * error. */
int tsync__clc_replay_backward(struct clc *c);
/* The stage's counts (c's, r's events moved, largest shift and pre-synchronized
 * locations and records) summed, or their maximum taken, over the processes. 0 or an error of the transport. */
int tsync__clc_replay_counts(struct clc *c, tsync_clc_result *r);
/* Appends value m for process `to` to the outbox. 0 or -1 (no memory). */
int tsync__clc_post(struct clc_msg **out, uint32_t **dest, size_t *n, size_t *cap,
                    struct clc_msg m, uint32_t to);
/* Posts member k's LC' to every other process that holds a member of its instance on
 * the other side: forward (end = 0) its begin to the receiving members' processes,
 * backward its end to the sending members'. 0 or -1 (no memory). */
int tsync__clc_post_member(struct clc *c, size_t k, int end, struct clc_msg **out, uint32_t **dest,
                           size_t *n, size_t *cap);
/* A member's value from another process (tsync__clc_post_member) into the racc of
 * the members here that it reaches (Eq. 4'a forward, section 4.2 backward; in scan
 * and exscan only upward in rank); returns the index here of its instance. */
size_t tsync__clc_take_member(struct clc *c, const struct clc_msg *m);

/* presync.c: the ClockOffset interpolation map of each location held here (NULL where
 * it has no records); *out is NULL when the trace has none. Returns 0 or TSYNC_EINVAL /
 * TSYNC_EINCONSISTENT / TSYNC_EUNSUPPORTED / TSYNC_ENOMEM. */
int tsync__clc_presync_maps(tsync_time_map ***out, uint32_t *n_mapped, const struct tsync_trace *t,
                           tsync_ctx *ctx);
void tsync__clc_presync_free(tsync_time_map **maps, uint32_t n_locations);

/* collective.c */
int tsync__clc_agg_init(struct clc_agg *a, uint32_t n_nodes);
void tsync__clc_agg_free(struct clc_agg *a);
/* Forward (backward = 0): c->bound[m] of every receiving member m of instance q,
 * the maximum over its sends of LC'(begin) + mu (Eq. 4'a), CLC_NONE if none.
 * Backward (backward = 1): c->bound[m] of every sending member, the minimum over
 * its receives of LC'(end) - mu (section 4.2), INT64_MAX if none. In a replay, the
 * members here, and racc for those held elsewhere. O(members). */
void tsync__clc_coll_bounds(struct clc *c, size_t q, int backward);
/* The forward bound of one receiving member m of instance q by looking at every
 * member: only sends whose location has passed them (pos[loc] > begin) count when
 * `pos` is given; in a replay, with what the members held elsewhere gave so far
 * (racc). CLC_NONE if none. O(members). */
int64_t tsync__clc_coll_bound_one(const struct clc *c, size_t q, size_t m, const uint64_t *pos);

/* forward.c: one forward pass with the given gamma into c->out; fills jumps and
 * counts. Returns 0 or TSYNC_ENOMEM / TSYNC_EUNSUPPORTED. */
int tsync__clc_forward(struct clc *c, double gamma);

/* gamma.c: the controller of section 5.2. The error of the last pass into *error
 * (over every process); 0 or an error of the replay's transport. */
int tsync__clc_error(const struct clc *c, double *error);
double tsync__clc_next_gamma(double gamma);
/* Whether a pass with error `now` is worth its smaller gamma over one with `before`. */
int tsync__clc_improved(double before, double now);

/* backward.c: amortizes every jump of the last forward pass in c->out. Returns 0
 * or TSYNC_ENOMEM. */
int tsync__clc_backward(struct clc *c);

#endif
