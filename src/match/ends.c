/* ends.c - messages whose file pairs them itself: the two ends of one id.
 *
 * A CSV row is one message with both its ends; a packet capture that numbers its
 * packets does the same. There is nothing to infer: the send and the receive that
 * carry the same id are one message. Messages come out in id order (the file's). */
#include <stdint.h>
#include <stdlib.h>

#include "match/match.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"

int tsync__match_ends(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx)
{
    uint64_t n_ids = 0, us = 0, ur = 0;
    size_t *end_of = NULL; /* per id: its send's and its receive's record + 1, 0 = none */
    size_t cap = t->n_messages;
    int rc = TSYNC_OK;

    for (size_t i = 0; i < in->n_ends; i++)
        if (in->ends[i].id >= n_ids)
            n_ids = in->ends[i].id + 1;
    if (n_ids > SIZE_MAX / 2 || !(end_of = calloc(2 * n_ids, sizeof(*end_of))) ||
        tsync__reserve((void **)&t->messages, &cap, t->n_messages + in->n_ends / 2,
                       sizeof(*t->messages))) {
        free(end_of);
        return tsync__oom(ctx);
    }
    for (size_t i = 0; i < in->n_ends; i++)
        end_of[2 * in->ends[i].id + in->ends[i].is_recv] = i + 1;
    for (uint64_t id = 0; id < n_ids; id++) {
        size_t s = end_of[2 * id], r = end_of[2 * id + 1];
        if (s && r) {
            const struct tsync_end_rec *a = &in->ends[s - 1], *b = &in->ends[r - 1];
            struct tsync_message m = { a->loc, b->loc, a->idx, b->idx };
            if (TSYNC_PUSH(t->messages, t->n_messages, cap, m)) {
                rc = tsync__oom(ctx);
                break;
            }
        } else {
            us += s != 0;
            ur += r != 0;
        }
    }
    t->unmatched_sends += us;
    t->unmatched_recvs += ur;
    if (us || ur)
        tsync__warn(ctx, "%s: %llu message%s without a receive and %llu without a send",
                    t->path, (unsigned long long)us, tsync__plural(us, "s"), (unsigned long long)ur);
    free(end_of);
    return rc;
}
