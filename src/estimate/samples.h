/* samples.h (internal) - from a trace's messages and ClockOffset records to the
 * samples of every pair of clock domains (see samples.c). */
#ifndef TSYNC_ESTIMATE_SAMPLES_H
#define TSYNC_ESTIMATE_SAMPLES_H

#include "estimate/estimator.h"
#include "graph/graph.h"
#include "latency/latency.h"
#include "trace/trace.h"

/* What the estimate keeps of a pair of domains: the data of its edge in the graph
 * (lo's clock as x). */
struct tsync__pair {
    struct tsync__pair_samples s;
    struct tsync__pair_fit fit;
    tsync_estimate_sources from;   /* what the samples came from */
};

/* The pair of edge e. */
static inline struct tsync__pair *tsync__pair_of(const struct tsync__edge *e)
{
    return e->pair;
}

/* Frees a pair with its samples and fit; NULL is fine. The graph's free_pair. */
void tsync__pair_free(void *pair);

struct tsync__sample_opts {
    struct tsync__latency lat;   /* minimum latencies, ticks */
    int exchanges;               /* also build exchange samples (the regression needs them) */
    int offsets;                 /* ClockOffset records as samples */
    double max_drift;            /* |rate difference| of two clocks at most this */
    int64_t session;             /* ClockOffset records of one domain this close (ticks)
                                  * are checked against each other */
};

/* Messages between two locations of one clock domain: they say whether the
 * locations really share a clock. */
struct tsync__intra {
    uint64_t messages, reversed, contradicting;
    int64_t max_reversal;        /* ticks */
    uint32_t worst_domain;
};

/* Adds every sample of the trace to the pairs of g's edges (created as needed; g
 * made with tsync__pair_free), each kind sorted by x: from its messages, and from
 * `lists` (n_lists message lists of a trace read as lists; taken and freed, also on
 * failure; NULL for none). 0 or TSYNC_ENOMEM. */
int tsync__collect_samples(struct tsync__graph *g, const struct tsync_trace *t,
                           struct tsync_message_list *lists, size_t n_lists,
                           const struct tsync__sample_opts *o, struct tsync__intra *intra);

/* The same samples seen from the other domain, in place: x and y swapped, ABOVE
 * and BELOW exchanged, sorted again (as a copy would be: the order of equal x is
 * that of the other side's arrays). 0 or TSYNC_ENOMEM (then not sorted). */
int tsync__pair_samples_reflect(struct tsync__pair_samples *s);

void tsync__pair_samples_free(struct tsync__pair_samples *s);

/* Sorts points by x (from 4096 points stable: in place while they come nearly in
 * order, else radix). 0 or TSYNC_ENOMEM. */
int tsync__sort_points(struct tsync__pt *v, size_t n);

#endif
