/* estimate_api.h (internal) - the estimate for the pipeline (src/pipeline/), which
 * reads a trace for the estimate alone as message lists where its format lists
 * messages (io/formats.h) and hands the lists over, so that each message is held
 * once, as the sample it becomes.
 */
#ifndef TSYNC_ESTIMATE_ESTIMATE_API_H
#define TSYNC_ESTIMATE_ESTIMATE_API_H

#include "tracesync/estimate.h"
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

#endif
