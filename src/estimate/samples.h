/* samples.h (internal) - from a trace's messages and ClockOffset records to the
 * samples of every pair of clock domains (see samples.c). */
#ifndef TSYNC_ESTIMATE_SAMPLES_H
#define TSYNC_ESTIMATE_SAMPLES_H

#include "estimate/estimator.h"
#include "graph/graph.h"
#include "latency/latency.h"
#include "trace/trace.h"

/* What the graph's stages read of a fit (a process that does not hold the pair gets
 * it from the one that does: estimate/parts.c). */
struct tsync__fit_sum {
    uint64_t samples, dropped, rejected;
    uint32_t pieces;
};

/* What the estimate keeps of a pair of domains: the data of its edge in the graph
 * (lo's clock as x). */
struct tsync__pair {
    struct tsync__pair_samples s;
    struct tsync__pair_fit fit;
    struct tsync__fit_sum sum;     /* of fit */
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
    uint64_t worst_message;      /* the first message reversed by max_reversal (its index
                                  * in the whole trace) */
};

/* Adds every sample of the trace to the pairs of g's edges (created as needed; g
 * made with tsync__pair_free), each kind sorted by x: from its messages, and from
 * `lists` (n_lists message lists of a trace read as lists; taken and freed, also on
 * failure; NULL for none). 0 or TSYNC_ENOMEM. */
int tsync__collect_samples(struct tsync__graph *g, const struct tsync_trace *t,
                           struct tsync_message_list *lists, size_t n_lists,
                           const struct tsync__sample_opts *o, struct tsync__intra *intra);

/* Whether the trace's ClockOffset records become samples (then the exchanges'
 * error margins give their uncertainty). */
int tsync__samples_use_offsets(const struct tsync_trace *t, const struct tsync__sample_opts *o);

/* ---- a trace held in parts (estimate/parts.c) ----------------------------------------- */

/* A message between locations of different domains, for the exchanges: a < b its
 * locations, id its index in the whole trace (t->message_ids). */
struct tsync__hop {
    tsync_loc a, b;
    uint8_t a_to_b;
    uint8_t prompt;          /* its receive was recorded at its arrival */
    tsync_time send, recv;
    uint64_t id;
};

/* A sample collected by one process of several, for the owner of its pair {lo, hi}:
 * its key orders it among the pair's samples of its kind as one process collecting
 * them all would have (source after source: messages by index, collective instances
 * in order, ClockOffset records, exchanges by pair of locations; then the samples of
 * one source), so that the owner puts them back in that order. */
struct tsync__keyed {
    uint64_t key[2];
    uint32_t lo, hi;
    struct tsync__sample s;  /* kind ABOVE, BELOW or EXCHANGE */
};

/* One process's part of the samples when several processes hold the trace in parts
 * (t->held): the messages its locations receive (t->send_time gives the sends held
 * elsewhere), the collective instances it matched, whole with their members' times
 * (t->whole; NULL: none), and on process 0 the ClockOffset records. Each sample
 * goes to out[] (n_out of them) with its key instead of into its pair; g gets the
 * pairs with their sources. */
struct tsync__sample_part {
    uint32_t rank, n_ranks;
    const struct tsync_coll_whole *whole;
    struct tsync__keyed *out;
    size_t n_out, cap_out;
};

struct tsync__collector;

/* A collector of this process's part into g (made with tsync__pair_free), with o
 * and intra as tsync__collect_samples; part is borrowed. 0 or TSYNC_ENOMEM. */
int tsync__part_collector_new(struct tsync__collector **out, struct tsync__graph *g,
                              const struct tsync_trace *t, const struct tsync__sample_opts *o,
                              struct tsync__intra *intra, struct tsync__sample_part *part);
void tsync__part_collector_free(struct tsync__collector *c);
/* The samples of the part's messages and collective instances; *hops (malloc'ed,
 * *n of them) the hops of its messages. 0 or TSYNC_ENOMEM. */
int tsync__collect_part_messages(struct tsync__collector *c, struct tsync__hop **hops,
                                 size_t *n);
/* From every hop of the pairs of locations whose lower one this process holds (the
 * hops of every process, in any order; sorted here): the exchange samples when the
 * estimator needs them, and *margins (malloc'ed, *n_margins) their error margins
 * E_ij when the ClockOffset records are samples. 0 or TSYNC_ENOMEM. */
int tsync__collect_part_exchanges(struct tsync__collector *c, struct tsync__hop *hops, size_t n,
                                  int64_t **margins, size_t *n_margins);
/* The round trips of the part's N-to-N collective instances between the records'
 * master and another domain (*trips malloc'ed, *n of them; the caller frees them):
 * the records' uncertainty from their least where no process has margins. */
void tsync__collect_part_trips(struct tsync__collector *c, int64_t **trips, size_t *n);
/* The ClockOffset records' samples (process 0), their uncertainty from half_rtt,
 * the 10th percentile of every process's margins, or where none has any, the least
 * of their trips (have = 0: there are none). 0 or TSYNC_ENOMEM. */
int tsync__collect_part_offsets(struct tsync__collector *c, int have, int64_t half_rtt);

/* Sorts a pair's samples by x, each kind (as tsync__collect_samples leaves them). 0
 * or TSYNC_ENOMEM. */
int tsync__pair_samples_sort(struct tsync__pair_samples *s);

void tsync__pair_samples_free(struct tsync__pair_samples *s);

/* Sorts points by x (from 4096 points stable: in place while they come nearly in
 * order, else radix). 0 or TSYNC_ENOMEM. */
int tsync__sort_points(struct tsync__pt *v, size_t n);

#endif
