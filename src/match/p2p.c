/* p2p.c - point-to-point matching: sends to receives as MPI matches them.
 *
 * MPI guarantees that messages between one sender and one receiver on one
 * communicator with one tag do not overtake each other: the first send posted
 * matches the first receive posted. Receives with MPI_ANY_SOURCE or MPI_ANY_TAG
 * are recorded with the sender and tag that actually matched, so keying every
 * record by (comm, sender, receiver, tag) and pairing in posting order reproduces
 * MPI's matching. Both record arrays are sorted by that key, then merged.
 */
#include <stdlib.h>

#include "match/match.h"
#include "util/ctx.h"
#include "util/vec.h"

void tsync__match_input_free(struct tsync_match_input *in)
{
    free(in->sends);
    free(in->recvs);
    free(in->colls);
    in->sends = in->recvs = NULL;
    in->colls = NULL;
}

static int key_cmp(const struct tsync_p2p_rec *a, const struct tsync_p2p_rec *b)
{
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->sender != b->sender)
        return a->sender < b->sender ? -1 : 1;
    if (a->receiver != b->receiver)
        return a->receiver < b->receiver ? -1 : 1;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return 0;
}

static int rec_cmp(const void *pa, const void *pb)
{
    const struct tsync_p2p_rec *a = pa, *b = pb;
    int c = key_cmp(a, b);
    if (c)
        return c;
    return a->order < b->order ? -1 : a->order > b->order;
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
    size_t i = 0, j = 0, cap = 0;
    uint64_t us = t->unmatched_sends, ur = t->unmatched_recvs;
    if (in->n_sends)
        qsort(in->sends, in->n_sends, sizeof(*in->sends), rec_cmp);
    if (in->n_recvs)
        qsort(in->recvs, in->n_recvs, sizeof(*in->recvs), rec_cmp);
    if (tsync__reserve((void **)&t->messages, &cap,
                       in->n_sends < in->n_recvs ? in->n_sends : in->n_recvs, sizeof(*t->messages)))
        return tsync__oom(ctx);
    while (i < in->n_sends || j < in->n_recvs) {
        int c = i == in->n_sends ? 1 : j == in->n_recvs ? -1 : key_cmp(&in->sends[i], &in->recvs[j]);
        if (c == 0) {
            struct tsync_message m = { in->sends[i].sender, in->recvs[j].receiver,
                                       in->sends[i].idx, in->recvs[j].idx };
            t->messages[t->n_messages++] = m;
            i++, j++;
        } else if (c < 0) {
            warn_unmatched(t, &in->sends[i++], 1, ++t->unmatched_sends, ctx);
        } else {
            warn_unmatched(t, &in->recvs[j++], 0, ++t->unmatched_recvs, ctx);
        }
    }
    if (t->unmatched_sends > us || t->unmatched_recvs > ur)
        tsync__warn(ctx, "%s: %llu sends and %llu receives are unmatched (a tracer that does not "
                    "record receives completed in MPI_Wait or MPI_Sendrecv leaves sends alone)",
                    t->path, (unsigned long long)t->unmatched_sends,
                    (unsigned long long)t->unmatched_recvs);
    return TSYNC_OK;
}
