/* p2p.c - point-to-point matching: sends to receives as MPI matches them.
 *
 * MPI guarantees that messages between one sender and one receiver on one
 * communicator with one tag do not overtake each other: the first send posted
 * matches the first receive posted. Receives with MPI_ANY_SOURCE or MPI_ANY_TAG
 * are recorded with the sender and tag that actually matched, so keying every
 * record by (comm, sender, receiver, tag) and pairing in posting order reproduces
 * MPI's matching.
 */
#include <stdlib.h>
#include <string.h>

#include "match/match.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"

/* A channel is what MPI matches within: (comm, sender, receiver, tag). Channels
 * get dense ids through an open-addressing hash table, so that records can be
 * grouped by a stable counting sort in O(n) instead of a comparison sort. */
struct channels {
    uint32_t *slot;                /* channel id + 1, 0 = empty */
    const struct tsync_p2p_rec **key; /* a record of each channel, by id */
    size_t mask, n;
};

static int same_channel(const struct tsync_p2p_rec *a, const struct tsync_p2p_rec *b)
{
    return a->comm == b->comm && a->sender == b->sender && a->receiver == b->receiver &&
           a->tag == b->tag;
}

static uint64_t channel_hash(const struct tsync_p2p_rec *r)
{
    uint64_t h = ((uint64_t)r->comm << 32 | r->tag) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)r->sender << 32 | r->receiver) + 0xBF58476D1CE4E5B9ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    return h * 0x94D049BB133111EBull;
}

/* The channel id of a record, adding the channel if new. Never fails: the table
 * is sized for every record up front. */
static uint32_t channel_of(struct channels *c, const struct tsync_p2p_rec *r)
{
    size_t i = channel_hash(r) & c->mask;
    while (c->slot[i]) {
        if (same_channel(c->key[c->slot[i] - 1], r))
            return c->slot[i] - 1;
        i = (i + 1) & c->mask;
    }
    c->key[c->n] = r;
    c->slot[i] = (uint32_t)++c->n;
    return (uint32_t)(c->n - 1);
}

/* Groups records by channel (stable), each channel in posting order. `first` gets
 * n_channels + 1 offsets into `perm`. */
static void group(const struct tsync_p2p_rec *rec, size_t n, const uint32_t *id, size_t n_channels,
                  size_t *first, size_t *perm)
{
    memset(first, 0, (n_channels + 1) * sizeof(*first));
    for (size_t i = 0; i < n; i++)
        first[id[i] + 1]++;
    for (size_t c = 0; c < n_channels; c++)
        first[c + 1] += first[c];
    for (size_t i = 0; i < n; i++)
        perm[first[id[i]]++] = i;
    for (size_t c = n_channels; c > 0; c--)
        first[c] = first[c - 1];
    first[0] = 0;
    /* Records of a location arrive in event order, so a channel is almost always
     * in posting order already; non-blocking receives may complete out of order. */
    for (size_t c = 0; c < n_channels; c++) {
        for (size_t i = first[c] + 1; i < first[c + 1]; i++) {
            size_t x = perm[i], k = i;
            while (k > first[c] && rec[perm[k - 1]].order > rec[x].order) {
                perm[k] = perm[k - 1];
                k--;
            }
            perm[k] = x;
        }
    }
}

/* Counts the records of each channel (counts[c], n_channels entries, zeroed) and
 * says whether each channel's records are in posting order already. */
static int count_in_order(const struct tsync_p2p_rec *rec, size_t n, const uint32_t *id,
                          size_t *counts, uint64_t *last)
{
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = id[i];
        sorted &= counts[c] == 0 || last[c] <= rec[i].order;
        last[c] = rec[i].order;
        counts[c]++;
    }
    return sorted;
}

/* The common case, without grouping: every channel has as many sends as
 * receives, each in posting order already (a location's records come in event
 * order). Each record goes straight to its message, channel after channel as the
 * grouping would place it, while the records are read in order. Returns 0, or 1
 * (nothing done) when the case does not apply. */
static int match_in_order(struct tsync_trace *t, const struct tsync_match_input *in,
                          const uint32_t *id, size_t n_channels, size_t *pos, uint64_t *last,
                          uint32_t session_comm)
{
    size_t *n_r = pos + n_channels, next = t->n_messages;
    if (!count_in_order(in->sends, in->n_sends, id, pos, last) ||
        !count_in_order(in->recvs, in->n_recvs, id + in->n_sends, n_r, last))
        return 1;
    for (size_t c = 0; c < n_channels; c++) {
        size_t k = pos[c];
        if (k != n_r[c])
            return 1;
        pos[c] = n_r[c] = next;
        next += k;
    }
    for (size_t i = 0; i < in->n_sends; i++) {
        struct tsync_message *m = &t->messages[pos[id[i]]];
        m->send_loc = in->sends[i].sender;
        m->send_idx = in->sends[i].idx;
        if (session_comm != TSYNC_NONE && in->sends[i].comm == session_comm)
            t->session_messages[t->n_session_messages++] = pos[id[i]];
        pos[id[i]]++;
    }
    for (size_t j = 0; j < in->n_recvs; j++) {
        struct tsync_message *m = &t->messages[n_r[id[in->n_sends + j]]++];
        m->recv_loc = in->recvs[j].receiver;
        m->recv_idx = in->recvs[j].idx;
    }
    t->n_messages = next;
    return 0;
}

/* The communicator of a tracer's synchronization sessions (TSYNC_SESSION_COMM),
 * or TSYNC_NONE. */
static uint32_t session_comm_of(const struct tsync_trace *t)
{
    for (uint32_t c = 0; c < t->n_comms; c++)
        if (t->comms[c].name && strcmp(t->comms[c].name, TSYNC_SESSION_COMM) == 0)
            return c;
    return TSYNC_NONE;
}

static int index_cmp(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return a < b ? -1 : a > b;
}

/* Warns about the first few unmatched messages, naming where they are. */
static void warn_unmatched(struct tsync_trace *t, const struct tsync_p2p_rec *r, int is_send,
                           uint64_t count, tsync_ctx *ctx)
{
    tsync_loc here = is_send ? r->sender : r->receiver;
    tsync_loc there = is_send ? r->receiver : r->sender;
    if (count > 3)
        return;
    tsync__warn(ctx, "%s: location %llu (%s): event %llu: %s location %llu (tag %u) has no "
                "matching %s%s", t->path, (unsigned long long)t->locations[here].ref,
                t->locations[here].name, (unsigned long long)r->idx, is_send ? "send to" : "receive from",
                (unsigned long long)t->locations[there].ref, r->tag,
                is_send ? "receive" : "send", count == 3 ? " (further unmatched messages not listed)" : "");
}

int tsync__match_p2p(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx)
{
    size_t n = in->n_sends + in->n_recvs, size = 16, cap = 0, n_session = 0;
    uint64_t us = t->unmatched_sends, ur = t->unmatched_recvs;
    uint32_t sc = session_comm_of(t);
    struct channels ch = { 0 };
    uint32_t *id = NULL;
    size_t *first_s = NULL, *first_r = NULL, *perm = NULL;
    uint64_t *last = NULL;
    int rc = TSYNC_OK;

    while (size < 2 * n)
        size *= 2;
    ch.mask = size - 1;
    ch.slot = calloc(size, sizeof(*ch.slot));
    ch.key = tsync__alloc_array(n, sizeof(*ch.key));
    id = tsync__alloc_array(n, sizeof(*id));
    if (!ch.slot || !ch.key || !id ||
        tsync__reserve((void **)&t->messages, &cap,
                       in->n_sends < in->n_recvs ? in->n_sends : in->n_recvs, sizeof(*t->messages))) {
        rc = tsync__oom(ctx);
        goto out;
    }
    for (size_t i = 0; i < in->n_sends; i++) {
        id[i] = channel_of(&ch, &in->sends[i]);
        n_session += sc != TSYNC_NONE && in->sends[i].comm == sc;
    }
    /* room for every session send: nothing fails while messages are placed */
    if (n_session) {
        size_t *room = realloc(t->session_messages, (t->n_session_messages + n_session) * sizeof(*room));
        if (!room) {
            rc = tsync__oom(ctx);
            goto out;
        }
        t->session_messages = room;
    }
    for (size_t j = 0; j < in->n_recvs; j++)
        id[in->n_sends + j] = channel_of(&ch, &in->recvs[j]);
    first_s = calloc(2 * (ch.n + 1), sizeof(*first_s));
    first_r = malloc((ch.n + 1) * sizeof(*first_r));
    last = malloc((ch.n + 1) * sizeof(*last));
    if (!first_s || !first_r || !last) {
        rc = tsync__oom(ctx);
        goto out;
    }
    if (match_in_order(t, in, id, ch.n, first_s, last, sc) == 0)
        goto out;
    if (!(perm = tsync__alloc_array(n, sizeof(*perm)))) {
        rc = tsync__oom(ctx);
        goto out;
    }
    group(in->sends, in->n_sends, id, ch.n, first_s, perm);
    group(in->recvs, in->n_recvs, id + in->n_sends, ch.n, first_r, perm + in->n_sends);

    /* Per channel, the k-th send posted matches the k-th receive posted. */
    for (size_t c = 0; c < ch.n; c++) {
        size_t ns = first_s[c + 1] - first_s[c], nr = first_r[c + 1] - first_r[c];
        size_t both = ns < nr ? ns : nr;
        const size_t *ps = perm + first_s[c], *pr = perm + in->n_sends + first_r[c];
        for (size_t k = 0; k < both; k++) {
            const struct tsync_p2p_rec *snd = &in->sends[ps[k]], *rcv = &in->recvs[pr[k]];
            struct tsync_message m = { snd->sender, rcv->receiver, snd->idx, rcv->idx };
            if (sc != TSYNC_NONE && snd->comm == sc)
                t->session_messages[t->n_session_messages++] = t->n_messages;
            t->messages[t->n_messages++] = m;
        }
        for (size_t k = both; k < ns; k++)
            warn_unmatched(t, &in->sends[ps[k]], 1, ++t->unmatched_sends, ctx);
        for (size_t k = both; k < nr; k++)
            warn_unmatched(t, &in->recvs[pr[k]], 0, ++t->unmatched_recvs, ctx);
    }
    if (t->unmatched_sends > us || t->unmatched_recvs > ur)
        tsync__warn(ctx, "%s: %llu send%s and %llu receive%s are unmatched (a tracer that "
                    "does not record receives completed in MPI_Wait or MPI_Sendrecv leaves "
                    "sends alone)",
                    t->path, (unsigned long long)t->unmatched_sends,
                    tsync__plural(t->unmatched_sends, "s"), (unsigned long long)t->unmatched_recvs,
                    tsync__plural(t->unmatched_recvs, "s"));
out:
    if (rc == TSYNC_OK && t->n_session_messages > 1)
        qsort(t->session_messages, t->n_session_messages, sizeof(*t->session_messages), index_cmp);
    free(ch.slot);
    free(ch.key);
    free(id);
    free(perm);
    free(first_s);
    free(first_r);
    free(last);
    return rc;
}
