/* exec.c - runs one step of point-to-point operations across all ranks.
 *
 * A step is a small program per rank (app.c writes it): blocking sends and
 * receives, non-blocking sends and receives, and "wait for all of them". Sends are
 * eager: they never wait. A receive waits for its message: the rank is parked on
 * the message and woken when the sender has sent it. Ranks run from a work list
 * until every one has finished its program, so the cost is linear in the number of
 * operations, and the order of work is fixed, so runs are deterministic.
 *
 * Events of a blocking operation: Enter MPI_Send, MpiSend, Leave (likewise
 * MPI_Recv / MpiRecv). Non-blocking: Enter MPI_Isend, MpiIsend, Leave; Enter
 * MPI_Irecv, MpiIrecvRequest, Leave; then Enter MPI_Waitall, one MpiIsendComplete or
 * MpiIrecv per request in the order they complete, Leave. A receive record is
 * never earlier than its message's arrival = send + latency (network.c): this is
 * where causality of point-to-point messages is made.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "util/ctx.h"
#include "util/vec.h"

#define NO_RANK UINT32_MAX

void tsync__prog_reset(struct tsync_sim *s)
{
    s->prog.n_ops = 0;
    s->prog.n_msgs = 0;
}

void tsync__prog_free(struct tsync_sim_prog *p)
{
    free(p->ops);
    free(p->msgs);
    free(p->first);
    memset(p, 0, sizeof(*p));
}

uint32_t tsync__prog_msg(struct tsync_sim *s, uint32_t src, uint32_t dst, uint32_t tag)
{
    struct tsync_sim_msg m;
    memset(&m, 0, sizeof(m));
    m.src = src;
    m.dst = dst;
    m.tag = tag;
    m.sent = -1;
    m.waiter = NO_RANK;
    if (TSYNC_PUSH(s->prog.msgs, s->prog.n_msgs, s->prog.cap_msgs, m)) {
        if (!s->rc)
            s->rc = tsync__oom(s->ctx);
        return UINT32_MAX;
    }
    return (uint32_t)(s->prog.n_msgs - 1);
}

void tsync__prog_rank(struct tsync_sim *s, uint32_t r)
{
    s->prog.first[r] = (uint32_t)s->prog.n_ops;
}

void tsync__prog_op(struct tsync_sim *s, enum tsync_sim_op_kind kind, uint32_t msg)
{
    struct tsync_sim_op op;
    op.kind = (uint8_t)kind;
    op.msg = msg;
    if (msg == UINT32_MAX && kind != SIM_WAITALL)
        return; /* the message could not be made: s->rc says why */
    if (TSYNC_PUSH(s->prog.ops, s->prog.n_ops, s->prog.cap_ops, op) && !s->rc)
        s->rc = tsync__oom(s->ctx);
}

/* Per rank execution state, in scratch arrays of the run. */
struct runner {
    struct tsync_sim *s;
    uint32_t *pc;          /* next operation */
    uint32_t *seg;         /* first operation since the last MPI_Waitall */
    int64_t *entered;      /* true time the rank entered its current blocking call, or -1 */
    uint32_t *work;        /* ranks that can run */
    uint32_t n_work;
};

static void send_now(struct runner *x, uint32_t r, struct tsync_sim_msg *m, int nb)
{
    struct tsync_sim *s = x->s;
    int64_t t = tsync__sim_enter(s, r, s->now[r], nb ? "MPI_Isend" : "MPI_Send");
    if (nb)
        m->send_req = s->next_request[r]++;
    t = tsync__sim_message(s, r, t + s->overhead, m, nb);
    m->sent = t;
    m->arrival = t + tsync__net_latency(&s->net, s->rank_node[m->src], s->rank_node[m->dst]);
    tsync__sim_leave(s, r, t + s->overhead, nb ? "MPI_Isend" : "MPI_Send");
    s->messages++;
    if (m->waiter != NO_RANK) {
        x->work[x->n_work++] = m->waiter;
        m->waiter = NO_RANK;
    }
}

/* A request completing inside MPI_Waitall: when, and which operation. */
struct completion { int64_t at; uint32_t op; };

/* MPI_Waitall over the operations [seg, pc) of rank r; 1 if it must wait. */
static int wait_all(struct runner *x, uint32_t r)
{
    struct tsync_sim *s = x->s;
    const struct tsync_sim_op *ops = s->prog.ops;
    struct completion done[64];
    uint32_t n = 0;
    int64_t t;

    if (x->entered[r] < 0)
        x->entered[r] = tsync__sim_enter(s, r, s->now[r], "MPI_Waitall");
    for (uint32_t i = x->seg[r]; i < x->pc[r]; i++) {
        struct tsync_sim_msg *m = &s->prog.msgs[ops[i].msg];
        if (ops[i].kind == SIM_IRECV && m->sent < 0) {
            m->waiter = r;
            return 1;
        }
    }
    if (x->pc[r] - x->seg[r] > 64)
        return s->rc = tsync__fail(s->ctx, TSYNC_EINCONSISTENT, "simulator: rank %u: more than "
                                   "64 requests in one MPI_Waitall (a bug in app.c)", r), 0;
    /* Everything has arrived: complete in time order (insertion sort: few requests). */
    for (uint32_t i = x->seg[r]; i < x->pc[r]; i++) {
        int64_t at;
        uint32_t j;
        if (ops[i].kind == SIM_ISEND)
            at = x->entered[r];
        else if (ops[i].kind == SIM_IRECV)
            at = s->prog.msgs[ops[i].msg].arrival;
        else
            continue;
        for (j = n; j > 0 && done[j - 1].at > at; j--)
            done[j] = done[j - 1];
        done[j].at = at;
        done[j].op = i;
        n++;
    }
    t = x->entered[r] + s->overhead;
    for (uint32_t j = 0; j < n; j++) {
        const struct tsync_sim_op *op = &ops[done[j].op];
        struct tsync_sim_msg *m = &s->prog.msgs[op->msg];
        int64_t at = done[j].at > t ? done[j].at : t;
        t = op->kind == SIM_ISEND ? tsync__sim_isend_complete(s, r, at, m->send_req)
                                  : tsync__sim_message(s, r, at, m, 1);
    }
    tsync__sim_leave(s, r, t + s->overhead, "MPI_Waitall");
    x->entered[r] = -1;
    x->seg[r] = x->pc[r] + 1;
    return 0;
}

/* Runs rank r until it finishes or waits for a message. */
static void run_rank(struct runner *x, uint32_t r)
{
    struct tsync_sim *s = x->s;
    uint32_t end = s->prog.first[r + 1];
    while (x->pc[r] < end && !s->rc) {
        const struct tsync_sim_op *op = &s->prog.ops[x->pc[r]];
        struct tsync_sim_msg *m = &s->prog.msgs[op->msg];
        int64_t t;
        switch (op->kind) {
        case SIM_SEND:
        case SIM_ISEND:
            send_now(x, r, m, op->kind == SIM_ISEND);
            break;
        case SIM_IRECV:
            t = tsync__sim_enter(s, r, s->now[r], "MPI_Irecv");
            m->recv_req = s->next_request[r]++;
            t = tsync__sim_irecv_request(s, r, t + s->overhead, m->recv_req);
            tsync__sim_leave(s, r, t + s->overhead, "MPI_Irecv");
            break;
        case SIM_RECV:
            if (x->entered[r] < 0)
                x->entered[r] = tsync__sim_enter(s, r, s->now[r], "MPI_Recv");
            if (m->sent < 0) {
                m->waiter = r;
                return;
            }
            t = x->entered[r] + s->overhead;
            t = tsync__sim_message(s, r, m->arrival > t ? m->arrival : t, m, 0);
            tsync__sim_leave(s, r, t + s->overhead, "MPI_Recv");
            x->entered[r] = -1;
            break;
        case SIM_WAITALL:
            if (wait_all(x, r))
                return;
            break;
        }
        x->pc[r]++;
    }
}

int tsync__prog_run(struct tsync_sim *s)
{
    uint32_t n = s->n_ranks;
    struct runner x;
    size_t bytes = (size_t)n * (3 * sizeof(uint32_t) + sizeof(int64_t)) + 64;
    char *mem;

    if (s->rc)
        return s->rc;
    s->prog.first[n] = (uint32_t)s->prog.n_ops;
    /* The work list holds each rank at most once per message sent to it, plus once
     * at the start: n + messages entries. */
    bytes += s->prog.n_msgs * sizeof(uint32_t);
    if (!(mem = calloc(1, bytes)))
        return s->rc = tsync__oom(s->ctx);
    x.s = s;
    x.entered = (int64_t *)(void *)mem;
    x.pc = (uint32_t *)(void *)(x.entered + n);
    x.seg = x.pc + n;
    x.work = x.seg + n;
    x.n_work = 0;
    for (uint32_t r = n; r-- > 0;) {
        x.pc[r] = x.seg[r] = s->prog.first[r];
        x.entered[r] = -1;
        x.work[x.n_work++] = r;
    }
    while (x.n_work > 0 && !s->rc)
        run_rank(&x, x.work[--x.n_work]);
    for (uint32_t r = 0; r < n && !s->rc; r++)
        if (x.pc[r] != s->prog.first[r + 1])
            s->rc = tsync__fail(s->ctx, TSYNC_EINCONSISTENT, "simulator: rank %u waits for a "
                                "message nobody sends (a bug in the program of the step)", r);
    free(mem);
    return s->rc;
}
