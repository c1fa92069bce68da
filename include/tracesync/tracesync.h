/* tracesync.h - the whole public API of libtracesync.
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

#endif
