/* clc_api.h (internal) - the controlled logical clock for callers that keep its
 * input: the pipeline (src/pipeline/), which reports the clock condition of the
 * input next to the result and reads the input from another thread meanwhile.
 */
#ifndef TSYNC_CLC_CLC_API_H
#define TSYNC_CLC_CLC_API_H

#include "tracesync/clc.h"
#include "tracesync/trace.h"

/* tsync_clc_run without changing `in`: LC' goes into a new timeline *out_tl (free
 * it with tsync_timeline_free). opts->presync must be 0 (pre-synchronize with
 * tsync__clc_presync_new first). `in` is only read, so other threads may read it
 * meanwhile. Returns what tsync_clc_run returns; *out and *out_tl are set only on
 * success. */
int tsync__clc_run_new(tsync_clc_result **out, tsync_timeline **out_tl, const tsync_trace *t,
                       const tsync_timeline *in, const tsync_clc_opts *opts, tsync_ctx *ctx);

/* tsync_clc_presync into a new timeline: *out gets src's times mapped by the
 * ClockOffset interpolation (copied where a location has no records), or NULL
 * when the trace has no ClockOffset records (src is then the pre-synchronized
 * input as it is). `src` is only read. Returns what tsync_clc_presync returns. */
int tsync__clc_presync_new(tsync_timeline **out, uint32_t *out_locations, uint64_t *out_records,
                           const tsync_trace *t, const tsync_timeline *src, tsync_ctx *ctx);

#endif
