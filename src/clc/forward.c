/* forward.c - forward amortization, Eq. 4 and 4' of seed 002: one pass over all
 * locations in causal order, from the input times C into LC'.
 *
 * A receive can be computed only when the LC' of every send it waits for is
 * final. Locations are run one at a time, each as far as it can go: internal
 * events and sends in a tight loop (Eq. 4b), receives with the message term
 * (Eq. 4a, 4'a). A receive whose send is not final yet stops its location, which
 * waits on the sender's location (point-to-point) or on the collective instance
 * (whose bounds are computed for all its receives at once, collective.c, when its
 * last send becomes final). A location that advances wakes those waiting on it.
 * The result does not depend on the order locations are run in: every LC' is a
 * function of final values only.
 *
 * If every unfinished location waits, the messages form a cycle (a receive that
 * depends on a later event of its own location); the waiting location with the
 * lowest index then computes its receive without the sends that are not final,
 * with a warning, and the pass goes on.
 *
 * In a replay (seed 002, section 5.2; clc.h) each process runs the locations it
 * holds in the same way; a send whose receive is held elsewhere has its LC' sent
 * there, a sending member's begin to every process that holds a receiving member of
 * its instance (which keeps the maximum of what reaches each of its members), and
 * what arrives wakes the locations that wait for it, as a location advancing here
 * does. When no process can go further, they exchange what they computed; when
 * nothing is left to exchange, every process agrees on the lowest location still
 * waiting, which goes on as above: the same values to the bit as on one process.
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"
#include "util/ctx.h"
#include "util/vec.h"

#define NO_LOC UINT32_MAX
#define PROGRESS_STEP (1u << 22)

enum { RUNNABLE, WAIT_LOC, WAIT_INST, DONE };

struct loc_state {
    int64_t prev_lc, prev_c;  /* LC' and C of the last event computed */
    double frac;              /* fraction of a tick of gamma's decrement carried */
    size_t rcur, mcur;        /* next entry of the receive list and of the member list */
    uint8_t mphase;           /* 0: the member's begin is next, 1: its end */
    uint8_t state, queued, forced;
    uint32_t wait_next;       /* next location waiting on the same location */
    size_t wait_on;           /* the location or instance waited on */
};

struct fwd {
    struct clc *c;
    struct loc_state *L;
    uint64_t *pos;            /* per location: next event to compute */
    uint32_t *wait_head;      /* per location: first location waiting on it */
    uint32_t *queue;          /* ring of runnable locations, each at most once */
    size_t qhead, qlen;
    uint32_t *pending;        /* per instance: sends not final yet */
    /* The replay: values for other processes, and per location the next send of
     * c->sends to post. */
    struct clc_msg *out;
    uint32_t *dest;
    size_t n_out, cap_out, *scur;
    int64_t delta;
    double omg;               /* 1 - gamma */
    uint64_t done, reported, total;
};

/* The local terms of Eq. 4 for an event at input time cj after an event with LC'
 * p and input time pc: max(p + min(delta, cj - pc), p + gamma (cj - pc), cj).
 * delta keeps the clock advancing where gamma is near 0 (seed 002); events that
 * share a tick in the input may share one in LC' too: forced apart by a tick each,
 * a 10 MHz timer's runs of events within 100 ns pushed a location 430 us ahead of
 * its clock over 20 minutes, and the CLC had nothing to correct. gamma * interval
 * is d - (1 - gamma) d; the decrement (1 - gamma) d is taken in whole ticks and
 * its fraction carried in *frac to the next interval, so that a gamma just below 1
 * still lets a correction fade over many short intervals (Eq. 4, seed 002). The
 * carry restarts when the clock is back on C. */
static inline int64_t step(int64_t p, int64_t pc, int64_t cj, int64_t delta, double omg,
                           double *frac)
{
    int64_t d = cj - pc, v = p + clc_delta_step(delta, d);
    if (d > 0) {
        /* x >= 0. Mostly below one tick: then dec is 0 and x is the new fraction
         * (x - 0.0 == x), which keeps two conversions off the chain of fractions. */
        double x = (double)d * omg + *frac;
        int64_t dec = x < 1.0 ? 0 : (int64_t)x, w = p + d - dec;
        if (w >= v) {
            v = w;
            *frac = dec ? x - (double)dec : x;
        }
    }
    if (cj >= v) {
        *frac = 0;
        return cj;
    }
    return v;
}

static void enqueue(struct fwd *f, tsync_loc l)
{
    uint32_t n = f->c->t->n_locations;
    if (f->L[l].queued)
        return;
    f->L[l].queued = 1;
    f->L[l].state = RUNNABLE;
    f->queue[(f->qhead + f->qlen++) % n] = l;
}

/* Wakes every location waiting on location s. */
static void wake(struct fwd *f, tsync_loc s)
{
    uint32_t x = f->wait_head[s];
    f->wait_head[s] = NO_LOC;
    while (x != NO_LOC) {
        uint32_t next = f->L[x].wait_next;
        enqueue(f, x);
        x = next;
    }
}

/* Takes location l out of the waiters of the location it waits on. */
static void unwait(struct fwd *f, tsync_loc l)
{
    uint32_t *p = &f->wait_head[f->L[l].wait_on];
    while (*p != NO_LOC && *p != l)
        p = &f->L[*p].wait_next;
    if (*p == l)
        *p = f->L[l].wait_next;
}

/* The last send of instance q is final: bounds for all its receives (Eq. 4'a),
 * and the locations waiting on it may go on. */
static void instance_ready(struct fwd *f, size_t q)
{
    const struct tsync_collective *co = &f->c->t->collectives[q];
    tsync__clc_coll_bounds(f->c, q, 0);
    for (uint32_t i = 0; i < co->n_members; i++) {
        tsync_loc l = f->c->t->members[co->first_member + i].loc;
        if (f->L[l].state == WAIT_INST && f->L[l].wait_on == q)
            enqueue(f, l);
    }
}

/* The event index of the next member event of location l with a role, UINT64_MAX
 * if none; skips roles the members do not have. */
static uint64_t member_event(struct fwd *f, tsync_loc l)
{
    const struct clc *c = f->c;
    struct loc_state *L = &f->L[l];
    size_t end = c->membs.first[l + 1];
    while (L->mcur < end) {
        uint32_t m = c->membs.id[L->mcur];
        if (L->mphase == 0) {
            if (c->role[m] & CLC_SEND)
                return c->t->members[m].begin_idx;
            L->mphase = 1;
        }
        if (c->role[m] & CLC_RECV)
            return c->t->members[m].end_idx;
        L->mcur++;
        L->mphase = 0;
    }
    return UINT64_MAX;
}

/* Whether the send of receive entry k is final, and its LC': this process's, or
 * as received from the process that holds the sender. */
static inline int send_final(const struct fwd *f, size_t k)
{
    const struct clc *c = f->c;
    tsync_loc s = c->recvs.id[k];
    if (clc_held(c, s))
        return f->pos[s] > c->recvs.val[k];
    return (int)(c->ghost_ready[k / 64] >> (k % 64) & 1);
}

static inline int64_t send_lc(const struct fwd *f, size_t k)
{
    const struct clc *c = f->c;
    tsync_loc s = c->recvs.id[k];
    return clc_held(c, s) ? c->out[s][c->recvs.val[k]] : c->ghost[k];
}

static void warn_cycle(struct fwd *f, tsync_loc l, uint64_t j)
{
    const struct tsync_location *loc = &f->c->t->locations[l];
    if (f->c->ignored > 3 || f->c->pass > 0)
        return;
    tsync__warn(f->c->ctx, "%s: location %llu (%s): event %llu: this receive waits, through "
                "other messages, on a later event of its own location (a cycle of messages); it "
                "is corrected without the sends it cannot wait for%s", f->c->t->path,
                (unsigned long long)loc->ref, loc->name ? loc->name : "", (unsigned long long)j,
                f->c->ignored == 3 ? " (further cycles not listed)" : "");
}

/* Computes the special event j of location l (a receive, a collective begin or
 * end). Returns 0 when done, 1 when l must wait, or a negative error. */
static int special(struct fwd *f, tsync_loc l, uint64_t j, uint64_t member_j)
{
    struct clc *c = f->c;
    const struct tsync_trace *t = c->t;
    struct loc_state *L = &f->L[l];
    size_t r0 = L->rcur, r1 = r0, rend = c->recvs.first[l + 1];
    uint32_t node = t->locations[l].node, mm = 0;
    int m_begin = 0, m_end = 0, dropped = 0;
    int64_t bound = CLC_NONE, local, v;
    size_t q = 0;

    /* Point-to-point receives at j: their sends must be final (Eq. 4a). */
    while (r1 < rend && c->recvs.idx[r1] == j)
        r1++;
    for (size_t k = r0; k < r1; k++) {
        tsync_loc s = c->recvs.id[k];
        if (!send_final(f, k)) {
            if (!L->forced) {
                L->state = WAIT_LOC;
                L->wait_on = s;
                L->wait_next = f->wait_head[s];
                f->wait_head[s] = l;
                return 1;
            }
            dropped = 1;
            continue;
        }
        v = send_lc(f, k) + tsync__latency_mu(&c->lat, t->locations[s].node, node);
        if (v > bound)
            bound = v;
    }
    /* A collective member's end: the maximum over its sends (Eq. 4'a). */
    if (member_j == j) {
        mm = c->membs.id[L->mcur];
        q = c->inst[mm];
        m_begin = L->mphase == 0;
        m_end = (c->role[mm] & CLC_RECV) && (L->mphase == 1 || t->members[mm].end_idx == j);
    }
    if (m_end) {
        if (f->pending[q] == 0) {
            v = c->bound[mm];
        } else if (f->pending[q] == 1 && m_begin) {
            v = tsync__clc_coll_bound_one(c, q, mm, NULL); /* only its own send is missing */
        } else if (!L->forced) {
            L->state = WAIT_INST;
            L->wait_on = q;
            return 1;
        } else {
            v = tsync__clc_coll_bound_one(c, q, mm, f->pos);
            dropped = 1;
        }
        if (v > bound)
            bound = v;
    }
    if (dropped) {
        warn_cycle(f, l, j);
        c->ignored++;
    }
    L->forced = 0;

    local = j == 0 ? c->in[l][0]
                   : step(L->prev_lc, L->prev_c, c->in[l][j], f->delta, f->omg, &L->frac);
    v = local;
    if (r1 > r0 || m_end)
        c->receives++;
    if (bound != CLC_NONE && bound > local) {    /* explicitly corrected: a jump */
        struct clc_jump jp = { j, bound - local, l };
        if (bound > 2 * CLC_TIME_MAX)
            return tsync__fail(c->ctx, TSYNC_EUNSUPPORTED, "%s: location %llu: event %llu: the "
                               "corrected time leaves the supported range", t->path,
                               (unsigned long long)t->locations[l].ref, (unsigned long long)j);
        if (TSYNC_PUSH(c->jumps, c->n_jumps, c->cap_jumps, jp))
            return tsync__oom(c->ctx);
        if (r1 > r0)
            c->corrected_p2p++;
        else
            c->corrected_coll++;
        if (jp.dt > c->max_jump)
            c->max_jump = jp.dt;
        v = bound;
    }
    c->out[l][j] = v;
    L->prev_lc = v;
    L->prev_c = c->in[l][j];
    f->pos[l] = j + 1;
    L->rcur = r1;
    if (m_begin && c->tr &&
        tsync__clc_post_member(c, mm, 0, &f->out, &f->dest, &f->n_out, &f->cap_out))
        return tsync__oom(c->ctx);
    if (m_begin && --f->pending[q] == 0)
        instance_ready(f, q);
    if (m_end) {
        L->mcur++;
        L->mphase = 0;
    } else if (m_begin) {
        L->mphase = 1;
    }
    return 0;
}

/* Runs location l as far as it can go. Returns 0 or a negative error. */
static int run(struct fwd *f, tsync_loc l)
{
    struct clc *c = f->c;
    struct loc_state *L = &f->L[l];
    const tsync_time *in = c->in[l];
    tsync_time *out = c->out[l];
    uint64_t n = c->t->locations[l].n_events;
    size_t rend = c->recvs.first[l + 1];
    int64_t delta = f->delta;

    for (;;) {
        uint64_t j = f->pos[l], nr = L->rcur < rend ? c->recvs.idx[L->rcur] : UINT64_MAX;
        uint64_t nm = member_event(f, l), stop = nr < nm ? nr : nm;
        int64_t p = L->prev_lc, pc = L->prev_c;
        double frac = L->frac;
        int rc;
        if (stop > n)
            stop = n;
        if (j < stop && j == 0) {
            out[0] = p = pc = in[0];
            j = 1;
        }
        for (; j < stop; j++) {               /* Eq. 4b */
            int64_t cj = in[j];
            if (p == pc && cj >= pc) {
                /* On C: step() gives cj (its other terms are at most cj). */
                out[j] = p = pc = cj;
                frac = 0;
                continue;
            }
            out[j] = p = step(p, pc, cj, delta, f->omg, &frac);
            pc = cj;
        }
        L->frac = frac;
        L->prev_lc = p;
        L->prev_c = pc;
        f->done += stop - f->pos[l];
        f->pos[l] = stop;
        if (f->done - f->reported >= PROGRESS_STEP) {
            tsync__progress(c->ctx, "controlled logical clock", f->done, f->total);
            f->reported = f->done;
        }
        if (stop == n) {
            L->state = DONE;
            return 0;
        }
        if ((rc = special(f, l, stop, nm)) != 0)
            return rc < 0 ? rc : 0;
        f->done++;
    }
}

/* Resets the per-pass state. */
static void start(struct fwd *f)
{
    struct clc *c = f->c;
    const struct tsync_trace *t = c->t;
    memset(f->pending, 0, (t->n_collectives ? t->n_collectives : 1) * sizeof(*f->pending));
    for (size_t k = 0; k < t->n_members; k++)
        c->bound[k] = CLC_NONE;     /* stays so in instances without sends */
    for (size_t k = 0; k < t->n_members; k++)
        if (c->role[k] & CLC_SEND)
            f->pending[c->inst[k]]++;
    for (size_t q = 0; c->tr && q < t->n_collectives; q++)
        f->pending[q] += t->coll_parts[q].senders;   /* held elsewhere, in a replay */
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        struct loc_state *L = &f->L[l];
        memset(L, 0, sizeof(*L));
        L->rcur = c->recvs.first[l];
        L->mcur = c->membs.first[l];
        L->wait_next = NO_LOC;
        f->pos[l] = 0;
        f->wait_head[l] = NO_LOC;
        if (f->scur)
            f->scur[l] = c->sends.first[l];
        if (t->locations[l].n_events && clc_held(c, l))
            enqueue(f, l);
        else
            L->state = DONE;
    }
    if (c->tr) {
        memset(c->ghost_ready, 0, (c->recvs.n / 64 + 1) * sizeof(*c->ghost_ready));
        for (size_t k = 0; k < t->n_members; k++)
            c->racc[k] = CLC_NONE;
    }
    c->n_jumps = 0;
    c->receives = c->corrected_p2p = c->corrected_coll = c->ignored = 0;
    c->max_jump = 0;
    f->total = tsync_trace_event_count(t);
}

/* The replay: posts the LC' of every send computed since the last round whose
 * receive is held elsewhere. 0 or TSYNC_ENOMEM. */
static int post_sends(struct fwd *f)
{
    struct clc *c = f->c;
    const struct tsync_trace *t = c->t;
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        size_t *k = &f->scur[l], e = c->sends.first[l + 1];
        for (; *k < e && c->sends.idx[*k] < f->pos[l]; (*k)++)
            if (tsync__clc_post(&f->out, &f->dest, &f->n_out, &f->cap_out,
                                (struct clc_msg){ CLC_KEY_SEND |
                                                      tsync__clc_message_id(c, c->sends.id[*k]),
                                                  c->out[l][c->sends.idx[*k]], 0, 0 },
                                tsync__location_holder((tsync_loc)c->sends.val[*k],
                                                       t->n_locations, c->tr->n_ranks)))
                return tsync__oom(c->ctx);
    }
    return TSYNC_OK;
}

/* The replay: what other processes sent, taken as if their locations had advanced
 * here (a send, a sending member's begin). */
static void take(struct fwd *f, const struct clc_msg *in, size_t n)
{
    struct clc *c = f->c;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = in[i].key & ~CLC_KEY_KIND;
        if ((in[i].key & CLC_KEY_KIND) == CLC_KEY_SEND) {
            k = tsync__clc_replay_entry(c, k);
            c->ghost[k] = in[i].value;
            c->ghost_ready[k / 64] |= (uint64_t)1 << (k % 64);
            wake(f, c->recvs.id[k]);
        } else {
            size_t q = tsync__clc_take_member(c, &in[i]);
            if (--f->pending[q] == 0)
                instance_ready(f, q);
        }
    }
}

/* The replay, when this process can go no further (rc: its result so far): every
 * process posts what it computed and takes what the others did; when nothing is
 * left to send anywhere, the pass is over or, as on one process, the lowest
 * location still waiting goes on without what it waits for. Returns 1 when the
 * pass is over (*rc: the result every process agreed on), else 0. */
static int replay_round(struct fwd *f, int *rc)
{
    struct clc *c = f->c;
    const struct tsync__clc_transport *tr = c->tr;
    uint32_t n = c->t->n_locations;
    struct clc_msg *in = NULL;
    size_t n_in = 0;
    int64_t v[3];
    tsync_loc low = 0;
    int e;

    while (low < n && f->L[low].state == DONE)
        low++;
    if (*rc == TSYNC_OK)
        *rc = post_sends(f);
    v[0] = *rc != TSYNC_OK;
    v[1] = f->n_out > 0;
    v[2] = low < n ? -(int64_t)low : INT64_MIN;
    if ((e = tr->reduce(tr->arg, v, 3, 0)) || v[0]) {
        if (*rc == TSYNC_OK)
            *rc = e ? e : tsync__clc_others_failed(c);
        return 1;
    }
    if (v[1]) {
        e = tr->exchange(tr->arg, f->out, f->dest, f->n_out, &in, &n_in);
        f->n_out = 0;
        if (e == TSYNC_OK)
            take(f, in, n_in);
        free(in);
        *rc = e;
        return e != TSYNC_OK;
    }
    if (v[2] == INT64_MIN)
        return 1;
    low = (tsync_loc)-v[2];
    if (clc_held(c, low)) {     /* a cycle: the lowest location left goes on without */
        if (f->L[low].state == WAIT_LOC)
            unwait(f, low);
        f->L[low].forced = 1;
        enqueue(f, low);
    }
    return 0;
}

static int schedule(struct fwd *f)
{
    uint32_t n = f->c->t->n_locations, scan = 0;
    int rc = TSYNC_OK;
    for (;;) {
        while (f->qlen && rc == TSYNC_OK) {
            tsync_loc l = f->queue[f->qhead];
            uint64_t before = f->pos[l];
            f->qhead = (f->qhead + 1) % n;
            f->qlen--;
            f->L[l].queued = 0;
            if ((rc = run(f, l)))
                break;
            if (f->pos[l] != before)
                wake(f, l);
        }
        if (f->c->tr) {
            if (replay_round(f, &rc))
                return rc;
            continue;
        }
        if (rc)
            return rc;
        while (scan < n && f->L[scan].state == DONE)
            scan++;
        if (scan == n)
            return TSYNC_OK;
        /* Everyone left waits: a cycle. The first one goes on without. */
        if (f->L[scan].state == WAIT_LOC)
            unwait(f, scan);
        f->L[scan].forced = 1;
        enqueue(f, scan);
    }
}

int tsync__clc_forward(struct clc *c, double gamma)
{
    const struct tsync_trace *t = c->t;
    size_t nl = t->n_locations ? t->n_locations : 1;
    struct fwd f;
    int rc;

    memset(&f, 0, sizeof(f));
    f.c = c;
    f.delta = c->delta;
    f.omg = 1.0 - gamma;
    f.L = malloc(nl * sizeof(*f.L));
    f.pos = malloc(nl * sizeof(*f.pos));
    f.wait_head = malloc(nl * sizeof(*f.wait_head));
    f.queue = malloc(nl * sizeof(*f.queue));
    f.pending = malloc((t->n_collectives ? t->n_collectives : 1) * sizeof(*f.pending));
    if (c->tr)
        f.scur = malloc(nl * sizeof(*f.scur));
    rc = !f.L || !f.pos || !f.wait_head || !f.queue || !f.pending || (c->tr && !f.scur)
             ? tsync__oom(c->ctx) : TSYNC_OK;
    if ((rc = tsync__clc_agree(c, rc)))
        goto out;
    start(&f);
    rc = schedule(&f);
    tsync__progress(c->ctx, "controlled logical clock", f.total, f.total);
out:
    free(f.L);
    free(f.pos);
    free(f.wait_head);
    free(f.queue);
    free(f.pending);
    free(f.scur);
    free(f.out);
    free(f.dest);
    return rc;
}
