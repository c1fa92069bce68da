/* match.c - the match stage: each record stream of a trace to its matcher. */
#include <stdlib.h>
#include <string.h>

#include "match/match.h"

void tsync__match_input_free(struct tsync_match_input *in)
{
    free(in->sends);
    free(in->recvs);
    free(in->ends);
    free(in->colls);
    free(in->packets);
    memset(in, 0, sizeof(*in));
}

int tsync__trace_match(struct tsync_trace *t, struct tsync_match_input *in, tsync_ctx *ctx)
{
    int rc = TSYNC_OK;
    if (in->n_sends || in->n_recvs)
        rc = tsync__match_p2p(t, in, ctx);
    if (rc == TSYNC_OK && in->n_ends)
        rc = tsync__match_ends(t, in, ctx);
    if (rc == TSYNC_OK && in->n_packets)
        rc = tsync__match_packets(t, in, ctx);
    if (rc == TSYNC_OK && in->n_colls)
        rc = tsync__match_collectives(t, in, ctx);
    tsync__match_input_free(in);
    return rc;
}
