/* check_json.h (internal) - the clock condition report as a jansson value, for
 * reports that embed it (the sync report). */
#ifndef TSYNC_CHECK_CHECK_JSON_H
#define TSYNC_CHECK_CHECK_JSON_H

#include <jansson.h>

#include "tracesync/check.h"

/* A new JSON object with the keys listed at tsync_check_report_json up to
 * `consistent` (not the grouping: the sync report has it in its estimate), or NULL
 * when out of memory. `trace` is the one the report was made from. */
json_t *tsync__check_report_to_json(const tsync_check_report *r, const tsync_trace *trace);

#endif
