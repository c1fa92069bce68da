/* tracesync.h - the whole public API of libtracesync: every header below.
 *
 * Every call takes a tsync_ctx for error detail and returns 0 or a negative TSYNC_E*
 * code; objects returned through `**out` belong to the caller and have a NULL-safe
 * `_free`. See examples/api/check_trace.c for a complete program.
 */
#ifndef TRACESYNC_H
#define TRACESYNC_H

#include "tracesync/version.h"
#include "tracesync/common.h"
#include "tracesync/trace.h"
#include "tracesync/check.h"
#include "tracesync/timemap.h"
#include "tracesync/metrics.h"
#include "tracesync/estimate.h"
#include "tracesync/clc.h"
#include "tracesync/eval.h"
#include "tracesync/pipeline.h"
#include "tracesync/sync.h"
#include "tracesync/sim.h"

/* libtracesync-collect has headers of its own: collect.h (the MPI collector's call)
 * and collect_core.h (its settings and launcher, for `tracesync record`). */

#endif
