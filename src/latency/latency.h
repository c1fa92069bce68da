/* latency.h (internal) - the minimum message latency mu, one model for every
 * stage: one value within a node and one between nodes (from the options, in
 * seconds, rounded to ticks), overridden per pair of nodes by a latency file
 * (seed 002, sections 3 and 5.2: mu_{k,i} depends on the pair of processes).
 * The CLC reads the file; the check and the estimate have no file to give. */
#ifndef TSYNC_LATENCY_LATENCY_H
#define TSYNC_LATENCY_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "tracesync/common.h"

struct tsync_trace;

struct tsync__latency_pair { uint32_t from, to; int64_t mu; };

struct tsync__latency {
    int64_t intra, inter;               /* ticks */
    size_t n;                           /* pairs from the latency file, both directions */
    struct tsync__latency_pair *pairs;  /* sorted by (from, to) */
};

/* Reads the latency file `path` into lat (whose intra and inter are set): one pair
 * per line, "NODE_A NODE_B LATENCY" with a unit (ns, us, ms, s), both directions;
 * '#' starts a comment. Latencies at or beyond max_ticks are refused. Returns 0 or
 * TSYNC_EINVAL / TSYNC_EIO / TSYNC_EFORMAT / TSYNC_ENOMEM, lat without pairs then. */
int tsync__latency_read_file(struct tsync__latency *lat, const struct tsync_trace *t,
                             const char *path, double max_ticks, tsync_ctx *ctx);
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
