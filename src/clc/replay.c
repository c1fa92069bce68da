/* replay.c - what the controlled logical clock needs when it runs as a replay on
 * several processes (seed 002, section 5; clc.h): the values received from other
 * processes, the sends whose receive another process holds, the agreement on every
 * step's result, the values exchanged before backward amortization, and the counts
 * summed over the processes. The transport is the caller's (src/replay/ over MPI):
 * nothing here knows MPI.
 *
 * A message's value is sent with the message's index in the whole trace as its key
 * (t->message_ids). A process holds of a collective instance only its own members:
 * a member's value goes, keyed by the instance's index (t->coll_ids), to the
 * processes of the instance's other side (t->coll_parts), each of which keeps for
 * each of its own members the maximum over the values that reach it (racc), so
 * that the instance's bounds are those of the members here and racc (collective.c):
 * Table 2's "max (all enters)" forward and "min (all exits)" backward, reduced
 * where the members are, as the values arrive.
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"
#include "util/ctx.h"
#include "util/vec.h"

int tsync__clc_post(struct clc_msg **out, uint32_t **dest, size_t *n, size_t *cap,
                    struct clc_msg m, uint32_t to)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        struct clc_msg *o = realloc(*out, c * sizeof(**out));
        uint32_t *d;
        if (o)
            *out = o;
        if (!o || !(d = realloc(*dest, c * sizeof(**dest))))
            return -1;
        *dest = d;
        *cap = c;
    }
    (*out)[*n] = m;
    (*dest)[(*n)++] = to;
    return 0;
}

int tsync__clc_post_member(struct clc *c, size_t k, int end, struct clc_msg **out, uint32_t **dest,
                           size_t *n, size_t *cap)
{
    const struct tsync_trace *t = c->t;
    const struct tsync_coll_part *p = &t->coll_parts[c->inst[k]];
    const uint32_t *set = t->proc_sets + (end ? p->to_sends : p->to_recvs);
    struct clc_msg m = { (end ? CLC_KEY_END : CLC_KEY_BEGIN) | t->coll_ids[c->inst[k]],
                         clc_member_lc(c, k, end), t->members[k].loc, t->members[k].comm_rank };
    for (uint32_t r = 0; r < set[0]; r++)
        for (uint32_t to = set[1 + 2 * r]; to <= set[2 + 2 * r]; to++)
            if (to != c->tr->rank && tsync__clc_post(out, dest, n, cap, m, to))
                return -1;
    return 0;
}

size_t tsync__clc_take_member(struct clc *c, const struct clc_msg *m)
{
    const struct tsync_trace *t = c->t;
    int backward = (m->key & CLC_KEY_KIND) == CLC_KEY_END;
    size_t q = tsync__coll_at(t, m->key & ~CLC_KEY_KIND);
    const struct tsync_collective *co = &t->collectives[q];
    int scan = co->cls == TSYNC_COLL_SCAN || co->cls == TSYNC_COLL_EXSCAN;
    uint32_t node = t->locations[m->loc].node;
    int64_t v = backward ? -m->value : m->value;
    for (uint32_t i = 0; i < co->n_members; i++) {
        size_t k = co->first_member + i;
        const struct tsync_coll_member *h = &t->members[k];
        uint32_t hn = t->locations[h->loc].node;
        int64_t w;
        if (!(c->role[k] & (backward ? CLC_SEND : CLC_RECV)) ||
            (scan && !(backward ? tsync__scan_flows(co, h->comm_rank, m->rank)
                                : tsync__scan_flows(co, m->rank, h->comm_rank))))
            continue;
        w = v + (backward ? tsync__latency_mu(&c->lat, hn, node)
                          : tsync__latency_mu(&c->lat, node, hn));
        if (w > c->racc[k])
            c->racc[k] = w;
    }
    return q;
}

uint64_t tsync__clc_message_id(const struct clc *c, size_t i)
{
    return c->t->message_ids ? c->t->message_ids[i] : i;
}

size_t tsync__clc_replay_entry(const struct clc *c, uint64_t id)
{
    const struct tsync_message *m = &c->t->messages[tsync__message_at(c->t, id)];
    size_t k = tsync__clc_list_seek(&c->recvs, m->recv_loc, m->recv_idx);
    /* Another receive at the same event (a mis-matched trace): the one of this send. */
    while (c->recvs.id[k] != m->send_loc || c->recvs.val[k] != m->send_idx)
        k++;
    return k;
}

/* The sends held here whose receive is held elsewhere, by (location, event). */
static int build_sends(struct clc *c)
{
    const struct tsync_trace *t = c->t;
    size_t n = 0;
    for (size_t i = 0; i < t->n_messages; i++)
        n += clc_held(c, t->messages[i].send_loc) && !clc_held(c, t->messages[i].recv_loc);
    if (tsync__clc_list_init(&c->sends, t, n, 1))
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < t->n_messages; i++) {
            const struct tsync_message *m = &t->messages[i];
            if (!clc_held(c, m->send_loc) || clc_held(c, m->recv_loc))
                continue;
            if (pass == 0)
                tsync__clc_list_mark(&c->sends, m->send_loc, m->send_idx);
            else
                tsync__clc_list_put(&c->sends, m->send_loc, m->send_idx, (uint32_t)i, m->recv_loc);
        }
        if (pass == 0 && tsync__clc_list_ready(&c->sends))
            return -1;
    }
    return tsync__clc_list_finish(&c->sends);
}

int tsync__clc_replay_init(struct clc *c)
{
    const struct tsync_trace *t = c->t;
    size_t nr = c->recvs.n ? c->recvs.n : 1, nm = t->n_members ? t->n_members : 1;
    if (!c->tr)
        return TSYNC_OK;
    c->ghost = malloc(nr * sizeof(*c->ghost));
    c->ghost_ready = calloc(nr / 64 + 1, sizeof(*c->ghost_ready));
    c->racc = malloc(nm * sizeof(*c->racc));
    c->recv_lc = malloc((t->n_messages ? t->n_messages : 1) * sizeof(*c->recv_lc));
    if (!c->ghost || !c->ghost_ready || !c->racc || !c->recv_lc || build_sends(c))
        return tsync__oom(c->ctx);
    c->memory += nr * (sizeof(*c->ghost) + 1) + t->n_members * sizeof(*c->racc) +
                 t->n_messages * sizeof(*c->recv_lc) + c->sends.n * 20;
    return TSYNC_OK;
}

void tsync__clc_replay_free(struct clc *c)
{
    free(c->ghost);
    free(c->ghost_ready);
    free(c->racc);
    free(c->recv_lc);
    tsync__clc_list_free(&c->sends);
}

int tsync__clc_others_failed(struct clc *c)
{
    return tsync__fail(c->ctx, TSYNC_EIO, "%s", TSYNC_OTHERS_FAILED);
}

int tsync__clc_agree(struct clc *c, int rc)
{
    int64_t failed = rc != TSYNC_OK;
    int e;
    if (!c->tr)
        return rc;
    if ((e = c->tr->reduce(c->tr->arg, &failed, 1, 0)))
        return rc ? rc : e;
    if (failed && rc == TSYNC_OK)
        rc = tsync__clc_others_failed(c);
    return rc;
}

int tsync__clc_replay_backward(struct clc *c)
{
    const struct tsync_trace *t = c->t;
    struct clc_msg *out = NULL, *in = NULL;
    uint32_t *dest = NULL;
    size_t n = 0, cap = 0, n_in = 0;
    int rc = TSYNC_OK;

    for (size_t i = 0; i < t->n_messages && rc == TSYNC_OK; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (clc_held(c, m->recv_loc) && !clc_held(c, m->send_loc) &&
            tsync__clc_post(&out, &dest, &n, &cap,
                            (struct clc_msg){ CLC_KEY_RECV | tsync__clc_message_id(c, i),
                                              c->out[m->recv_loc][m->recv_idx], 0, 0 },
                            tsync__location_holder(m->send_loc, t->n_locations, c->tr->n_ranks)))
            rc = tsync__oom(c->ctx);
    }
    for (size_t k = 0; k < t->n_members; k++) {
        c->racc[k] = CLC_NONE;
        if (rc == TSYNC_OK && (c->role[k] & CLC_RECV) &&
            tsync__clc_post_member(c, k, 1, &out, &dest, &n, &cap))
            rc = tsync__oom(c->ctx);
    }
    if ((rc = tsync__clc_agree(c, rc)) == TSYNC_OK &&
        (rc = c->tr->exchange(c->tr->arg, out, dest, n, &in, &n_in)) == TSYNC_OK) {
        for (size_t i = 0; i < n_in; i++) {
            if ((in[i].key & CLC_KEY_KIND) == CLC_KEY_RECV)
                c->recv_lc[tsync__message_at(c->t, in[i].key & ~CLC_KEY_KIND)] = in[i].value;
            else
                tsync__clc_take_member(c, &in[i]);
        }
    }
    free(out);
    free(dest);
    free(in);
    return rc;
}

int tsync__clc_replay_counts(struct clc *c, tsync_clc_result *r)
{
    int64_t sum[9] = { (int64_t)c->receives, (int64_t)c->corrected_p2p, (int64_t)c->corrected_coll,
                       (int64_t)c->ignored, (int64_t)c->amortized, (int64_t)c->limited,
                       (int64_t)r->moved_events, r->presync_locations,
                       (int64_t)r->offset_records };
    int64_t max[2] = { c->max_jump, c->max_shift };
    int rc;
    if (!c->tr)
        return TSYNC_OK;
    if ((rc = c->tr->reduce(c->tr->arg, sum, 9, 1)) || (rc = c->tr->reduce(c->tr->arg, max, 2, 0)))
        return rc;
    c->receives = (uint64_t)sum[0];
    c->corrected_p2p = (uint64_t)sum[1];
    c->corrected_coll = (uint64_t)sum[2];
    c->ignored = (uint64_t)sum[3];
    c->amortized = (uint64_t)sum[4];
    c->limited = (uint64_t)sum[5];
    r->moved_events = (uint64_t)sum[6];
    r->presync_locations = (uint32_t)sum[7];   /* each process maps its own locations */
    r->offset_records = (uint64_t)sum[8];
    c->max_jump = max[0];
    c->max_shift = max[1];
    r->max_shift_s = tsync__seconds(c->t, max[1]);
    return TSYNC_OK;
}
