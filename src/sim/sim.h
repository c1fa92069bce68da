/* sim.h (internal) - the state of one simulator run, shared by its parts:
 *
 *   emit.c      writes each event twice, local time to trace.otf2, true time to
 *               truth.otf2, and checks that readings never go back
 *   exec.c      runs one step of point-to-point operations (blocking and not)
 *   app.c       the program: compute phases, the patterns, idle gaps
 *   coll.c      collective operations and when each member may leave
 *   offsets.c   Score-P style offset measurements (ClockOffset records)
 *   simulate.c  the driver: phases of the run, files, scenario.json
 *
 * Time inside the simulator is true time in integer "simulator ticks" (true_res per
 * second: 1 ns, or the timer resolution if that is finer). Each rank has a clock
 * `now`: the earliest true time of its next event. Errors are sticky in `rc`:
 * after the first one, emitting does nothing and every step returns early.
 */
#ifndef TSYNC_SIM_SIM_H
#define TSYNC_SIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sim/clock.h"
#include "sim/network.h"
#include "sim/rng.h"
#include "tracesync/sim.h"

struct tsync_otf2_builder;

/* Program streams (clocks use CLOCK_STREAM + clock index). */
#define TSYNC_SIM_APP_STREAM 1
#define TSYNC_SIM_ORIGIN_STREAM 3  /* network.c uses 2 */
#define TSYNC_SIM_CLOCK_STREAM 1000
#define TSYNC_SIM_WALK_STREAM 100000

/* A point-to-point operation of one step. */
enum tsync_sim_op_kind { SIM_SEND, SIM_RECV, SIM_ISEND, SIM_IRECV, SIM_WAITALL };

struct tsync_sim_op {
    uint8_t kind;
    uint32_t msg;               /* index into the step's messages; unused by WAITALL */
};

struct tsync_sim_msg {
    uint32_t src, dst, tag;
    int64_t sent;               /* true time of the send record, -1 until sent */
    int64_t arrival;            /* sent + latency */
    uint64_t send_req, recv_req;/* request ids of the non-blocking forms */
    uint32_t waiter;            /* rank blocked on this message, or UINT32_MAX */
};

/* One step's operations: rank r's are ops[first[r] .. first[r + 1]). Reused. */
struct tsync_sim_prog {
    struct tsync_sim_op *ops;
    size_t n_ops, cap_ops;
    struct tsync_sim_msg *msgs;
    size_t n_msgs, cap_msgs;
    uint32_t *first;            /* n_ranks + 1 */
};

struct tsync_sim {
    const tsync_sim_opts *o;
    tsync_ctx *ctx;
    int rc;                     /* first error, sticky */

    uint64_t true_res;          /* simulator ticks per second */
    uint32_t n_ranks, n_nodes, n_clocks;
    uint32_t *rank_node;        /* rank -> node */
    uint32_t *rank_clock;       /* rank -> clock */
    int64_t *origin;            /* rank -> start of its clock on the clock's scale, ticks */
    struct tsync_sim_clock *clocks;
    struct tsync_sim_net net;
    struct tsync_rng rng;       /* the program's draws */
    struct tsync_otf2_builder *out[2]; /* [0] trace.otf2 (local), [1] truth.otf2 (true) */

    int64_t *now;               /* per rank: earliest true time of its next event */
    int64_t *last_local;        /* per rank: last reading written (must not go back) */
    uint64_t *next_request;     /* per rank: next request id */
    double *load;               /* per rank: compute load factor */
    int64_t gap;                /* true ticks between two events of a rank (read cost) */
    int64_t overhead;           /* true ticks from entering an MPI call to its record */

    uint64_t events, messages, collectives, offsets;
    uint64_t iterations, coll_count;

    struct tsync_sim_prog prog; /* scratch of exec.c */
    uint32_t *perm;             /* scratch of app.c: 2 x n_ranks */
    void *coll_scratch;         /* scratch of coll.c */
    size_t coll_scratch_bytes;
};

/* ---- emit.c: every call writes one event to both archives and returns the true
 * time it got: `t`, or later if the rank's previous event was less than one clock
 * read ago. The rank's `now` moves past it. */
int64_t tsync__sim_enter(struct tsync_sim *s, uint32_t rank, int64_t t, const char *region);
int64_t tsync__sim_leave(struct tsync_sim *s, uint32_t rank, int64_t t, const char *region);
/* The record of message m on `rank`: MpiSend / MpiIsend when rank is its sender,
 * MpiRecv / MpiIrecv when it is the receiver. */
int64_t tsync__sim_message(struct tsync_sim *s, uint32_t rank, int64_t t,
                           const struct tsync_sim_msg *m, int nonblocking);
int64_t tsync__sim_isend_complete(struct tsync_sim *s, uint32_t rank, int64_t t, uint64_t request);
int64_t tsync__sim_irecv_request(struct tsync_sim *s, uint32_t rank, int64_t t, uint64_t request);
int64_t tsync__sim_coll_begin(struct tsync_sim *s, uint32_t rank, int64_t t);
int64_t tsync__sim_coll_end(struct tsync_sim *s, uint32_t rank, int64_t t, uint32_t otf2_op,
                            uint32_t root, uint64_t sent, uint64_t received);
/* A ClockOffset record of `rank`: measured at true time t, where the rank's clock
 * read `local` and rank 0's clock is estimated to be `offset` ticks ahead. The
 * truth archive gets (t, 0): true time needs no correction. */
void tsync__sim_clock_offset(struct tsync_sim *s, uint32_t rank, int64_t t, int64_t local,
                             int64_t offset);
/* The reading of rank's clock at true time t, in timer ticks. */
int64_t tsync__sim_read(struct tsync_sim *s, uint32_t rank, int64_t t);
/* Seconds to simulator ticks, rounded to nearest. */
int64_t tsync__sim_ticks(const struct tsync_sim *s, double seconds);

/* ---- exec.c */
/* Clears the program for a new step. */
void tsync__prog_reset(struct tsync_sim *s);
/* Adds message src -> dst with `tag`; returns its index, or UINT32_MAX when out of
 * memory (recorded in s->rc). */
uint32_t tsync__prog_msg(struct tsync_sim *s, uint32_t src, uint32_t dst, uint32_t tag);
/* Starts rank r's operations (ranks must be started in order 0, 1, ...). */
void tsync__prog_rank(struct tsync_sim *s, uint32_t r);
/* Appends an operation to the rank started last. */
void tsync__prog_op(struct tsync_sim *s, enum tsync_sim_op_kind kind, uint32_t msg);
/* Runs the program: every rank from its `now`, receives waiting for their sends. */
int tsync__prog_run(struct tsync_sim *s);
void tsync__prog_free(struct tsync_sim_prog *p);

/* ---- app.c */
/* Every rank computes for a while (log-normal around compute_mean_s x its load). */
int tsync__app_compute(struct tsync_sim *s);
/* One exchange of a pattern (TSYNC_SIM_PINGPONG ...), blocking or not. */
int tsync__app_exchange(struct tsync_sim *s, uint32_t pattern, int nonblocking);
/* One main-phase iteration: compute, an exchange, maybe a collective. */
int tsync__app_iteration(struct tsync_sim *s);
/* Every rank idles in region "sleep" until true time `until` (at least). */
int tsync__app_sleep(struct tsync_sim *s, int64_t until);

/* ---- coll.c */
/* One collective (TSYNC_SIM_BARRIER ...) on MPI_COMM_WORLD with root `root`. */
int tsync__coll_run(struct tsync_sim *s, uint32_t which, uint32_t root);
void tsync__coll_free(struct tsync_sim *s);

/* ---- hosts.c */
/* The run of format csv: writes DIR/trace.csv and DIR/truth.csv; sets the events,
 * messages and the true time span in `res`. */
/* Link i of the topology on n hosts as (a, b); the number of links. */
uint32_t tsync__hosts_links(enum tsync_sim_topology t, uint32_t n, uint32_t i, uint32_t *a,
                            uint32_t *b);
int tsync__hosts_run(struct tsync_sim *s, tsync_sim_result *res, const char *dir);

/* ---- offsets.c */
/* Every rank enters `region`; rank 0 measures the offset of every other rank with
 * ping-pongs (Score-P style) and ClockOffset records are written; every rank leaves. */
int tsync__offsets_measure(struct tsync_sim *s, const char *region);

#endif
