/* estimate_api.h (internal) - the estimate for the pipeline (src/pipeline/), which
 * reads a trace for the estimate alone as message lists where its format lists
 * messages (io/formats.h) and hands the lists over, so that each message is held
 * once, as the sample it becomes; and for the MPI replay (src/replay/), whose
 * processes each hold a part of the trace (estimate/parts.c).
 */
#ifndef TSYNC_ESTIMATE_ESTIMATE_API_H
#define TSYNC_ESTIMATE_ESTIMATE_API_H

#include "tracesync/estimate.h"
#include "tracesync/timemap.h"
#include "tracesync/trace.h"

/* Whether the estimate with these options can work from message lists: its
 * estimator needs no exchanges (a message and its answer, found among the
 * messages of every location). */
int tsync__estimate_takes_lists(const tsync_estimate_opts *opts);

/* tsync_estimate_run that takes t's message lists (trace/trace.h; t has none
 * afterwards, also on failure): their messages become the samples in place. On a
 * trace without lists the same as tsync_estimate_run. */
int tsync__estimate_run_lists(tsync_estimate **out, tsync_trace *t, const tsync_estimate_opts *opts,
                              tsync_ctx *ctx);

/* How the processes that hold a trace in parts reach each other (the MPI replay's
 * transport, src/replay/). Every function but ask, serve and done is called by
 * every process together, in the same order; each returns 0 or a negative TSYNC_E*
 * code. */
struct tsync__est_transport {
    uint32_t rank, n_ranks;
    /* Element i of v (n elements of `size` bytes) to process dest[i]; *in gets
     * (malloc'ed) the *n_in elements the processes sent this one, in no particular
     * order. */
    int (*exchange)(void *arg, const void *v, size_t size, const uint32_t *dest, size_t n,
                    void **in, size_t *n_in);
    /* v[0..n) becomes its maximum (sum = 0) or its sum (sum = 1) over the processes. */
    int (*reduce)(void *arg, int64_t *v, int n, int sum);
    /* Process 0's *n bytes at *buf to every process: on the others *buf (malloc'ed,
     * the caller's) and *n. */
    int (*broadcast)(void *arg, void **buf, size_t *n);
    /* Process 0 only: question q (n bytes) to process `to` (not 0), which answers
     * it with serve's `answer`; *a (malloc'ed, *n_a bytes) the answer, none
     * (n_a = 0) when `to` could not make one. */
    int (*ask)(void *arg, uint32_t to, const void *q, size_t n, void **a, size_t *n_a);
    /* Every process but 0: answers process 0's questions by answer(ctx, ...) (*a
     * malloc'ed; nonzero: none) until process 0 calls done, whose rc it returns. */
    int (*serve)(void *arg, int (*answer)(void *ctx, const void *q, size_t n, void **a,
                                          size_t *n_a),
                 void *ctx);
    /* Process 0 only: no more questions; every serve returns rc. */
    int (*done)(void *arg, int rc);
    void *arg;
};

/* tsync_estimate_run on one process of several that hold the trace in parts
 * (t->held, t->message_ids, t->send_time; every ClockOffset record): the samples
 * of the messages each process receives, of its share of the collective
 * instances, each pair's gathered to the process that holds the pair (its index
 * modulo the processes), which fits it; process 0 decides the graph, the
 * references, the trees and the busy periods and composes the maps, asking the
 * pairs' processes for what it needs of their fits; the maps go to every process.
 * *out (every process): the maps of every location, as tsync_estimate_maps gives
 * them. Process 0 warns as tsync_estimate_run does. Every process calls it
 * together; a failure anywhere fails every process (its own error where it
 * happened). Takes t->whole, the collective instances whose samples this process
 * collects, and frees them once they are collected (also on failure). */
int tsync__estimate_run_part(tsync_map_set **out, tsync_trace *t,
                             const tsync_estimate_opts *opts,
                             const struct tsync__est_transport *tr, tsync_ctx *ctx);

#endif
