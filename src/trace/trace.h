/* trace.h (internal) - the in-memory trace model that every stage works on.
 *
 * Memory per event is a design decision: a location keeps 8 bytes of raw time and
 * 1 byte of kind per event; a matched message costs 24 bytes (12 per event), a
 * collective member 32 bytes (16 per event). Everything else stays in the file.
 */
#ifndef TSYNC_TRACE_TRACE_H
#define TSYNC_TRACE_TRACE_H

#include <stdbool.h>
#include "tracesync/trace.h"

#define TSYNC_NONE UINT32_MAX /* no rank, no node, no root */

/* The communicator of libtracesync-collect's clock synchronization sessions (seed
 * 000): its messages are ping-pong exchanges made to measure offsets. */
#define TSYNC_SESSION_COMM "tracesync timesync"

/* What a process of the MPI replay (src/replay/) says when another one failed. */
#define TSYNC_OTHERS_FAILED "another process of the replay failed"

/* What an event means to synchronization; everything else is TSYNC_EV_OTHER. */
enum tsync_event_kind {
    TSYNC_EV_OTHER = 0,
    TSYNC_EV_SEND,        /* MpiSend, MpiIsend: a message leaves */
    TSYNC_EV_SEND_DONE,   /* MpiIsendComplete */
    TSYNC_EV_RECV_POST,   /* MpiIrecvRequest */
    TSYNC_EV_RECV,        /* MpiRecv, MpiIrecv: a message has arrived */
    TSYNC_EV_COLL_BEGIN,  /* MpiCollectiveBegin */
    TSYNC_EV_COLL_END     /* MpiCollectiveEnd */
};

struct tsync_location {
    uint64_t ref;       /* id in the file (OTF2 LocationRef) */
    char *name;
    uint32_t rank;      /* rank in MPI_COMM_WORLD, or TSYNC_NONE */
    uint32_t node;      /* index into trace->nodes */
    uint32_t domain;    /* index into trace->domains */
    uint64_t n_events;
    tsync_time *time;   /* raw local timestamps, non-decreasing */
    uint8_t *kind;      /* enum tsync_event_kind */
};

struct tsync_node { char *name; };
struct tsync_domain { char *name; uint32_t node; };

/* A point of a plane of two clocks: x on the one, y on the other (a message's send
 * and receive time; estimate/estimator.h's samples). */
struct tsync__pt {
    tsync_time x, y;
};

/* Each end's earliest and latest time over a block of TSYNC__LIST_BLOCK messages
 * of a list (the last block may hold fewer). */
#define TSYNC__LIST_BLOCK 64
struct tsync__list_block {
    tsync_time x_lo, x_hi, y_lo, y_hi;
};

/* The messages from one location to another, as a file that lists messages with
 * both their times gives them to the estimate alone (io/format.h, open_lists): x
 * the send time, y the receive time, in the file's order, and the extents of their
 * blocks in turn (the busy intervals read those instead of the times). Such a
 * trace keeps no events and no tsync_message: 16.5 bytes a message. */
struct tsync_message_list {
    tsync_loc send_loc, recv_loc;
    size_t n, cap;
    struct tsync__pt *v;
    struct tsync__list_block *blocks;   /* (n + TSYNC__LIST_BLOCK - 1) / TSYNC__LIST_BLOCK */
};

/* A location's events in a trace read as message lists: the earliest and latest
 * time, and how many (sends and receives). */
struct tsync_extent {
    tsync_time first, last;
    uint64_t events;
};

/* A point-to-point message: send event and receive event. */
struct tsync_message {
    tsync_loc send_loc, recv_loc;
    uint64_t send_idx, recv_idx;
};

/* MPI collective classes of seed 002, section 4.1. */
enum tsync_coll_class {
    TSYNC_COLL_ONE_TO_N,  /* bcast, scatter(v) */
    TSYNC_COLL_N_TO_ONE,  /* reduce, gather(v) */
    TSYNC_COLL_N_TO_N,    /* allreduce, allgather(v), alltoall(v/w), reduce_scatter, barrier */
    TSYNC_COLL_SCAN,      /* scan: rank i receives from ranks 0..i */
    TSYNC_COLL_EXSCAN,    /* exscan: rank i receives from ranks 0..i-1 */
    TSYNC_COLL_NONE       /* no data flows (e.g. create/destroy handles) */
};

/* One member's part in a collective instance. */
struct tsync_coll_member {
    tsync_loc loc;
    uint32_t comm_rank;
    uint64_t begin_idx, end_idx; /* MpiCollectiveBegin / MpiCollectiveEnd */
    uint8_t sends;               /* contributes data (logical send at begin) */
    uint8_t recvs;               /* obtains data (logical receive at end) */
};

/* One call of a collective on one communicator: members are consecutive in
 * trace->members, sorted by comm_rank. */
struct tsync_collective {
    uint32_t comm;         /* index into trace->comms */
    uint32_t op;           /* OTF2_CollectiveOp */
    uint32_t root;         /* rank in the communicator, or TSYNC_NONE */
    uint8_t cls;           /* enum tsync_coll_class */
    uint32_t n_members;
    uint64_t first_member;
};

/* What a process of the MPI replay (src/replay/) holds of a collective instance
 * besides the members of its own locations (trace->members): the instance's name
 * and the processes of its other members (match/coll_part.c). */
struct tsync_coll_part {
    uint32_t senders;      /* its sending members held by other processes */
    uint32_t to_recvs;     /* offsets into trace->proc_sets: the processes that hold */
    uint32_t to_sends;     /* its receiving (sending) members, this one among them or not */
};

/* Collective instances with every member, and the members' begin and end times as
 * recorded: those whose samples a process of sync's replay collects. */
struct tsync_coll_whole {
    size_t n_collectives, n_members;
    struct tsync_collective *collectives;
    struct tsync_coll_member *members;
    uint64_t *ids;         /* per instance: its index among the whole trace's */
    tsync_time *times;     /* per member: begin, end */
};

/* A communicator: its members as world ranks (index = rank in the comm). */
struct tsync_comm {
    uint64_t ref;          /* OTF2 CommRef */
    char *name;
    uint32_t size;
    uint32_t *world_rank;  /* size entries */
};

/* A measured clock offset (OTF2 ClockOffset): global = local + offset at time. */
struct tsync_clock_offset {
    tsync_loc loc;
    tsync_time time;
    int64_t offset;
    double stddev;
};

/* How a trace's file names its locations and what its events are, as its reader
 * declares (io/format.h, `shape`): the stages that print locations or judge a
 * receive ask this, never which reader it was. The values carry the name of the
 * first format of each shape; a new format takes the shape it has. */
enum tsync_format {
    TSYNC_FORMAT_OTF2,  /* locations have ids in the file; every event of the run is kept */
    TSYNC_FORMAT_CSV    /* locations are known by name only; the events are messages' ends */
};

struct tsync__format;

/* What packet pairing (match/packets.c) made of two captures p < q, for the report:
 * packets paired (p_to_q of them sent by p), seed 003's exchanges among them (a
 * packet and the next one back), keys seen twice in one of them and left out, and
 * packets whose direction the stamps did not decide; then the pipeline's check
 * (check/pairings.c): the paired packets received before they were sent, as
 * recorded and as written (-1 where that check did not run). */
struct tsync__packet_pairing {
    tsync_loc p, q;
    uint64_t paired, p_to_q, exchanges, ambiguous, undecided;
    int64_t reversed_before, reversed_after;
};

struct tsync_trace {
    char *path;                 /* anchor file as given */
    const struct tsync__format *io; /* the format it was read in and is written back in */
    enum tsync_format format;   /* its shape, the format's */
    uint64_t timer_resolution;  /* ticks per second */
    uint64_t global_offset;     /* ClockProperties as read */
    uint64_t trace_length;
    uint64_t realtime;
    enum tsync_domain_rule domain_rule;
    char *domain_file;          /* the domain file (TSYNC_DOMAIN_FILE), else NULL */
    size_t n_splits;            /* domains of the node rule split by the data (AUTO) */
    tsync_domain_split *splits; /* each owning its name and parts */

    uint32_t n_locations;
    struct tsync_location *locations;
    uint32_t n_nodes;
    struct tsync_node *nodes;
    uint32_t n_domains;
    struct tsync_domain *domains;
    uint32_t n_comms;
    struct tsync_comm *comms;
    tsync_loc *rank_loc;        /* world rank -> location, n_ranks entries */
    uint32_t n_ranks;
    uint8_t *held;              /* per location: its events are read here; NULL: all are.
                                 * A process of the MPI replay (src/replay/) holds its own
                                 * locations only; the others keep their definitions and
                                 * event count, without times or kinds */

    size_t n_messages;
    struct tsync_message *messages;
    uint64_t *message_ids;      /* per message: its index among the whole trace's, when
                                 * the trace holds only those of its held locations (a
                                 * process of the replay, ascending); NULL: the same */
    tsync_time *send_time;      /* per message: where its receiver is held here and its
                                 * sender elsewhere, the send's time (a process of the
                                 * replay); NULL: none */
    size_t n_collectives;
    struct tsync_collective *collectives;
    size_t n_members;
    struct tsync_coll_member *members;
    uint64_t *coll_ids;         /* per instance: its index among the whole trace's, when
                                 * the trace holds only the members of its held
                                 * locations (a process of the replay, ascending);
                                 * NULL: every member */
    struct tsync_coll_part *coll_parts; /* per instance, with coll_ids */
    uint32_t *proc_sets;        /* the sets of processes coll_parts name: at an offset, a
                                 * count n, then n runs of processes (first, last) */
    struct tsync_coll_whole *whole; /* a process of sync's replay: the instances whose
                                 * samples it collects, until the estimate takes
                                 * them; NULL otherwise */
    size_t n_offsets;
    struct tsync_clock_offset *offsets;
    size_t n_pairings;          /* packet captures: per pair of captures that share traffic */
    struct tsync__packet_pairing *pairings;
    size_t n_lists;             /* read as message lists (no events, no messages): */
    struct tsync_message_list *lists; /* per ordered pair of locations, in order of */
                                /* their first message; taken by the estimate */
    struct tsync_extent *extents; /* per location, of a trace read as message lists */
    size_t n_session_messages;  /* messages on TSYNC_SESSION_COMM: a tracer's */
    size_t *session_messages;   /* synchronization sessions; indices, ascending */

    uint64_t unmatched_sends, unmatched_recvs;
};

struct tsync_timeline {
    uint32_t n_locations;
    tsync_time **time;          /* per location, as many as it has events */
};

/* The process that holds location l when n_ranks processes share n_locations (the
 * MPI replay, src/replay/): contiguous blocks of about n_locations / n_ranks, in
 * location order, so that the processes in rank order hold the locations in order. */
uint32_t tsync__location_holder(tsync_loc l, uint32_t n_locations, uint32_t n_ranks);

/* The index here of the message of index `id` in the whole trace, which this
 * process holds (t->message_ids ascend; without them, id). */
size_t tsync__message_at(const struct tsync_trace *t, uint64_t id);

/* The index here of the collective instance of index `id` in the whole trace, which
 * this process holds members of (t->coll_ids ascend; without them, id). */
size_t tsync__coll_at(const struct tsync_trace *t, uint64_t id);

void tsync__coll_whole_free(struct tsync_coll_whole *w);

/* Message i's send time as recorded, also where another process holds the sender
 * (t->send_time). */
static inline tsync_time tsync__message_send_time(const struct tsync_trace *t, size_t i)
{
    const struct tsync_message *m = &t->messages[i];
    if (t->held && !t->held[m->send_loc])
        return t->send_time[i];
    return t->locations[m->send_loc].time[m->send_idx];
}

/* The begin (end = 0) or end time of member i of collective instance co: from the
 * instances w a process of the replay holds whole with their members' times, or
 * (w NULL) from the member's location. */
static inline tsync_time tsync__member_time(const struct tsync_trace *t,
                                            const struct tsync_coll_whole *w,
                                            const struct tsync_collective *co, uint32_t i, int end)
{
    const struct tsync_coll_member *m;
    if (w)
        return w->times[2 * (co->first_member + i) + (end != 0)];
    m = &t->members[co->first_member + i];
    return t->locations[m->loc].time[end ? m->end_idx : m->begin_idx];
}

/* Whether this process holds location l (every process does outside the replay). */
static inline int tsync__held(const struct tsync_trace *t, tsync_loc l)
{
    return !t->held || t->held[l];
}

/* Frees message lists and the array that holds them. */
void tsync__message_lists_free(struct tsync_message_list *lists, size_t n);

/* Allocates an empty trace for a reader to fill; NULL when out of memory. */
struct tsync_trace *tsync__trace_alloc(const char *path);
/* The name of a location's own clock domain (TSYNC_DOMAIN_LOCATION): "location ID"
 * in OTF2, the location's name in a CSV. Malloc'ed; NULL when out of memory. */
char *tsync__own_domain_name(const struct tsync_trace *t, tsync_loc loc);
/* A reduction over the processes of the MPI replay: v[0..n) becomes its maximum
 * (sum = 0) or its sum (sum = 1) over them. 0 or a negative TSYNC_E* code. */
struct tsync__reducer {
    int (*reduce)(void *arg, int64_t *v, int n, int sum);
    void *arg;
};

/* TSYNC_DOMAIN_AUTO (domain_split.c): splits every domain whose messages between
 * its own locations arrive more than `limit` ticks before they were sent into the
 * groups of locations the messages support, renumbers the domains, records the
 * splits, warns for each, and sets the rule to TSYNC_DOMAIN_AUTO. With `red`, every
 * process of the replay calls it together, counting the messages its locations
 * receive, and all decide the same (NULL: alone). 0, TSYNC_ENOMEM, or TSYNC_EIO
 * when another process failed (the trace is then only fit to be freed). */
int tsync__split_domains(struct tsync_trace *t, int64_t limit, const struct tsync__reducer *red,
                         tsync_ctx *ctx);
/* Class of an OTF2_CollectiveOp (seed 002, section 4.1). */
enum tsync_coll_class tsync__coll_class(uint32_t otf2_op);
/* Seconds between two tick values, for people. */
double tsync__seconds(const struct tsync_trace *t, int64_t ticks);

/* A location as its file names it, for reports and maps files: its id (OTF2
 * LocationRef) where the format has ids, its name where names are all it has (CSV,
 * whose names are often numbers other than our indices). NULL when out of memory. */
struct json_t;
struct json_t *tsync__location_json(const struct tsync_trace *t, tsync_loc loc);

#endif
