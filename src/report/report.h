/* report.h (internal) - the reports of a pipeline result, built as data (jansson
 * values) and rendered as text: one file per report kind. */
#ifndef TSYNC_REPORT_REPORT_H
#define TSYNC_REPORT_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "tracesync/pipeline.h"

/* The sync report (report_sync.c): a line per stage; the JSON value, or NULL with
 * the context saying so. */
void tsync__report_sync_print(const tsync_pipeline_result *r, FILE *out);
json_t *tsync__report_sync_json(const tsync_pipeline_result *r, tsync_ctx *ctx);

/* The clc report (report_clc.c): the clock condition table, the CLC, Table 4; the
 * JSON value, or NULL when out of memory. */
void tsync__report_clc_print(const tsync_pipeline_result *r, FILE *out);
json_t *tsync__report_clc_json(const tsync_pipeline_result *r);

#endif
