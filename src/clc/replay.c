/* replay.c - what the controlled logical clock needs when it runs as a replay on
 * several processes (seed 002, section 5; clc.h): the values received from other
 * processes, the sends whose receive another process holds, the agreement on every
 * step's result, the values exchanged before backward amortization, and the counts
 * summed over the processes. The transport is the caller's (src/replay/ over MPI):
 * nothing here knows MPI.
 *
 * A message's value is sent with the message's index in the whole trace as its key
 * (t->message_ids), a member's with its index: every process holds every collective
 * instance.
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"
#include "util/ctx.h"
#include "util/vec.h"

int tsync__clc_post(struct clc_msg **out, uint32_t **dest, size_t *n, size_t *cap, uint64_t key,
                    int64_t value, uint32_t to)
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
    (*out)[*n] = (struct clc_msg){ key, value };
    (*dest)[(*n)++] = to;
    return 0;
}

int tsync__clc_post_instance(struct clc *c, size_t q, unsigned role, uint64_t key, int64_t value,
                             struct clc_msg **out, uint32_t **dest, size_t *n, size_t *cap)
{
    const struct tsync_trace *t = c->t;
    const struct tsync_collective *co = &t->collectives[q];
    if (++c->epoch == 0) {      /* the stamps wrapped: start them again */
        memset(c->stamp, 0, c->tr->n_ranks * sizeof(*c->stamp));
        c->epoch = 1;
    }
    for (uint32_t i = 0; i < co->n_members; i++) {
        size_t k = co->first_member + i;
        uint32_t to;
        if (!(c->role[k] & role) || clc_held(c, t->members[k].loc))
            continue;
        to = tsync__location_holder(t->members[k].loc, t->n_locations, c->tr->n_ranks);
        if (c->stamp[to] == c->epoch)
            continue;
        c->stamp[to] = c->epoch;
        if (tsync__clc_post(out, dest, n, cap, key, value, to))
            return -1;
    }
    return 0;
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
    c->mval = malloc(nm * sizeof(*c->mval));
    c->mready = calloc(nm, 1);
    c->recv_lc = malloc((t->n_messages ? t->n_messages : 1) * sizeof(*c->recv_lc));
    c->stamp = calloc(c->tr->n_ranks, sizeof(*c->stamp));
    if (!c->ghost || !c->ghost_ready || !c->mval || !c->mready || !c->recv_lc || !c->stamp ||
        build_sends(c))
        return tsync__oom(c->ctx);
    c->memory += nr * (sizeof(*c->ghost) + 1) + nm * (sizeof(*c->mval) + 1) +
                 t->n_messages * sizeof(*c->recv_lc) + c->sends.n * 20;
    return TSYNC_OK;
}

void tsync__clc_replay_free(struct clc *c)
{
    free(c->ghost);
    free(c->ghost_ready);
    free(c->mval);
    free(c->mready);
    free(c->recv_lc);
    free(c->stamp);
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
            tsync__clc_post(&out, &dest, &n, &cap, CLC_KEY_RECV | tsync__clc_message_id(c, i),
                            c->out[m->recv_loc][m->recv_idx],
                            tsync__location_holder(m->send_loc, t->n_locations, c->tr->n_ranks)))
            rc = tsync__oom(c->ctx);
    }
    for (size_t k = 0; k < t->n_members && rc == TSYNC_OK; k++) {
        const struct tsync_coll_member *m = &t->members[k];
        if ((c->role[k] & CLC_RECV) && clc_held(c, m->loc) &&
            tsync__clc_post_instance(c, c->inst[k], CLC_SEND, CLC_KEY_END | k,
                                     c->out[m->loc][m->end_idx], &out, &dest, &n, &cap))
            rc = tsync__oom(c->ctx);
    }
    if ((rc = tsync__clc_agree(c, rc)) == TSYNC_OK &&
        (rc = c->tr->exchange(c->tr->arg, out, dest, n, &in, &n_in)) == TSYNC_OK) {
        for (size_t i = 0; i < n_in; i++) {
            uint64_t k = in[i].key & ~CLC_KEY_KIND;
            if ((in[i].key & CLC_KEY_KIND) == CLC_KEY_RECV)
                c->recv_lc[tsync__message_at(c->t, k)] = in[i].value;
            else
                c->mval[k] = in[i].value;
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
