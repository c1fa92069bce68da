/* clc_report.h (internal) - the clc result as a jansson value, for reports that
 * embed it (the clc command, the sync report). */
#ifndef TSYNC_CLC_CLC_REPORT_H
#define TSYNC_CLC_CLC_REPORT_H

#include <stddef.h>
#include <jansson.h>

#include "tracesync/clc.h"

/* A new JSON object with the keys listed at tsync_clc_result_json, or NULL when
 * out of memory. */
json_t *tsync__clc_result_to_json(const tsync_clc_result *r);

#endif
