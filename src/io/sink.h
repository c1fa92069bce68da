/* sink.h - what a trace reader emits into: definitions, events and the records
 * that matching (match/) turns into messages and collective instances.
 *
 * A reader never fills the trace model itself: it tells the sink about the clock,
 * nodes, locations, ranks and communicators (definitions), then each location's
 * events in order, and with each event that takes part in a message or a collective
 * the record that says how (a send, a receive, one end of a message the file pairs
 * itself, a collective member), and the clock offsets it measured. The sink keeps
 * per event only its 8 bytes of time and 1 byte of kind (trace/trace.h); records
 * are transient and go to the match stage once the trace is read.
 *
 * A reader that reads locations on several threads gives each thread a part
 * (tsync__sink_part) and joins the parts in location order: the records are then the
 * same whatever the threads. Every call returns 0 or a negative TSYNC_E* code with
 * the detail in the sink's context; after a failure the trace is only fit to be freed.
 */
#ifndef TSYNC_IO_SINK_H
#define TSYNC_IO_SINK_H

#include "match/match.h"
#include "trace/trace.h"
#include "util/ctx.h"
#include "util/vec.h"

struct tsync_sink {
    struct tsync_trace *t;      /* the trace being read (its locations' events) */
    tsync_ctx *ctx;
    size_t cap_nodes, cap_locations, cap_ranks, cap_comms; /* room in the trace's arrays */
    tsync_loc cur;              /* the location whose events come now */
    size_t cap_events;          /* room in its two event arrays */
    struct tsync_match_input rec;                /* records for match/, in event order */
    struct tsync_clock_offset *offsets; size_t n_offsets, cap_offsets;
    uint64_t unmatched_sends, unmatched_recvs;   /* ends whose other end is unknown */
};

/* A sink that reads into t (which it does not own), errors to ctx. */
void tsync__sink_init(struct tsync_sink *s, struct tsync_trace *t, tsync_ctx *ctx);
/* A part of `s` for one thread's locations, errors to ctx (the thread's own). */
void tsync__sink_part(struct tsync_sink *part, const struct tsync_sink *s, tsync_ctx *ctx);
/* Appends the part's records, offsets and counts to s, and empties it (freed). */
int tsync__sink_join(struct tsync_sink *s, struct tsync_sink *part);
/* Frees what the sink holds (not the trace). */
void tsync__sink_free(struct tsync_sink *s);

/* ---- definitions ---- */

/* Clock ticks per second (> 0) and, as the file records them, its global offset,
 * time range and real-time anchor (0 where it has none). */
void tsync__sink_clock(struct tsync_sink *s, uint64_t resolution, uint64_t global_offset,
                       uint64_t length, uint64_t realtime);
/* A node (host); *out its index. The name is copied. */
int tsync__sink_node(struct tsync_sink *s, const char *name, uint32_t *out);
/* A location on node `node`: its id in the file and its name (copied). Locations
 * get indices 0, 1, ... in the order they are added. */
int tsync__sink_location(struct tsync_sink *s, uint64_t ref, const char *name, uint32_t node);
/* World rank `rank` is location `loc` (TSYNC_NONE: not a location of the trace).
 * Ranks are added 0, 1, ... in order. */
int tsync__sink_rank(struct tsync_sink *s, tsync_loc loc);
/* A communicator: its id in the file, name (copied) and members as world ranks
 * (size entries, copied; NULL: its ranks are world ranks, or with size 1 the calling
 * process alone). Communicators get indices 0, 1, ... in order. */
int tsync__sink_comm(struct tsync_sink *s, uint64_t ref, const char *name, uint32_t size,
                     const uint32_t *world_rank);

/* Clock domains by `rule` once every location is defined: TSYNC_DOMAIN_NODE one
 * per node, named as it; TSYNC_DOMAIN_LOCATION one per location (named by
 * tsync__own_domain_name). Called by the open pipeline (io/formats.c), not readers. */
int tsync__sink_domains(struct tsync_sink *s, enum tsync_domain_rule rule);

/* ---- events, in order per location ---- */

/* The events of location `loc` come next; about `hint` of them (0: unknown). */
int tsync__sink_begin_location(struct tsync_sink *s, tsync_loc loc, uint64_t hint);
/* The next event of the current location: raw time and kind (enum
 * tsync_event_kind). TSYNC_EINCONSISTENT for a time earlier than the event before. */
int tsync__sink_event_slow(struct tsync_sink *s, tsync_time time, uint8_t kind);

static inline int tsync__sink_event(struct tsync_sink *s, tsync_time time, uint8_t kind)
{
    struct tsync_location *l = &s->t->locations[s->cur];
    if (l->n_events == s->cap_events || (l->n_events && time < l->time[l->n_events - 1]))
        return tsync__sink_event_slow(s, time, kind);
    l->time[l->n_events] = time;
    l->kind[l->n_events++] = kind;
    return TSYNC_OK;
}

/* The index of the current location's latest event. */
static inline uint64_t tsync__sink_last(const struct tsync_sink *s)
{
    return s->t->locations[s->cur].n_events - 1;
}

/* ---- records of the latest event ---- */

/* A point-to-point send or receive, keyed as MPI matches (match/p2p.c). */
int tsync__sink_send(struct tsync_sink *s, const struct tsync_p2p_rec *r);
int tsync__sink_recv(struct tsync_sink *s, const struct tsync_p2p_rec *r);
/* A send or receive whose peer is not a location of the trace: counted unmatched. */
void tsync__sink_unmatched(struct tsync_sink *s, int is_send);
/* One end of message `id` as the file numbers its messages (match/ends.c). */
int tsync__sink_end(struct tsync_sink *s, uint64_t id, int is_recv);
/* A packet with pairing key `key` from address id src to dst (match/packets.c). */
int tsync__sink_packet(struct tsync_sink *s, uint64_t key, uint32_t src, uint32_t dst);
/* A collective member (match/collective.c). */
int tsync__sink_collective(struct tsync_sink *s, const struct tsync_coll_rec *r);
/* A clock offset measured at location `loc`: global = local + offset at `time`. */
int tsync__sink_offset(struct tsync_sink *s, tsync_loc loc, tsync_time time, int64_t offset,
                       double stddev);

/* ---- a trace read as message lists (io/format.h, open_lists) ---- */

/* Takes the reader's messages, per ordered pair of locations (n lists, each
 * location defined, each list with a message), instead of events and records, and
 * the locations' extents (trace/trace.h; one per location, found while reading,
 * NULL when that ran out of memory). 0, or TSYNC_ENOMEM with both freed. */
int tsync__sink_message_lists(struct tsync_sink *s, struct tsync_message_list *lists, size_t n,
                              struct tsync_extent *extents);

/* Hands the records to *match and the offsets and counts to the trace; the sink is
 * empty afterwards. */
void tsync__sink_finish(struct tsync_sink *s, struct tsync_match_input *match);

#endif
