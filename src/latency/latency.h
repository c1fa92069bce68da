/* latency.h (internal) - the minimum message latency mu, one model for every
 * stage: one value within a node and one between nodes (from the options, in
 * seconds, rounded to ticks), overridden per pair of nodes by a latency file
 * (seed 002, sections 3 and 5.2: mu_{k,i} depends on the pair of processes).
 * Every stage that needs mu (the check, the estimate's samples, the CLC) builds it
 * with tsync__latency_init from its options: the same seconds, the same file. */
#ifndef TSYNC_LATENCY_LATENCY_H
#define TSYNC_LATENCY_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "tracesync/common.h"

struct tsync_trace;

struct tsync__latency_pair { uint32_t from, to; int64_t mu; };

struct tsync__latency {
    int64_t intra, inter;               /* ticks */
    int64_t max;                        /* the largest mu of any pair of nodes */
    size_t n;                           /* pairs from the latency file, both directions */
    struct tsync__latency_pair *pairs;  /* sorted by (from, to) */
};

/* lat from the minimum latencies in seconds (rounded to ticks; at or beyond
 * max_ticks refused) and, when `file` is not NULL, the latency file's pairs: one
 * pair per line, "NODE_A NODE_B LATENCY" with a unit (ns, us, ms, s), both
 * directions; '#' starts a comment. Errors
 * name `stage` ("check: inter-node minimum latency -1e-06 s is not a usable
 * latency"). Returns 0 or TSYNC_EINVAL / TSYNC_EIO / TSYNC_EFORMAT / TSYNC_ENOMEM,
 * lat without pairs then; tsync__latency_free frees it either way. */
int tsync__latency_init(struct tsync__latency *lat, const struct tsync_trace *t, double intra_s,
                        double inter_s, const char *file, double max_ticks, const char *stage,
                        tsync_ctx *ctx);
void tsync__latency_free(struct tsync__latency *lat);
/* mu of a message from a location on node `from` to one on node `to`, through the
 * pair table (only when lat->n > 0; tsync__latency_mu is the fast path). */
int64_t tsync__latency_lookup(const struct tsync__latency *lat, uint32_t from, uint32_t to);

static inline int64_t tsync__latency_mu(const struct tsync__latency *lat, uint32_t from,
                                        uint32_t to)
{
    if (lat->n)
        return tsync__latency_lookup(lat, from, to);
    return from == to ? lat->intra : lat->inter;
}

#endif
