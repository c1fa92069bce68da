/* report.c - a pipeline result rendered as the report of its kind, for people or as
 * JSON text. */
#include "report/report.h"
#include "util/ctx.h"

void tsync_pipeline_report_print(const tsync_pipeline_result *r, tsync_report_kind kind,
                                 FILE *out)
{
    if (kind == TSYNC_REPORT_CLC)
        tsync__report_clc_print(r, out);
    else
        tsync__report_sync_print(r, out);
}

char *tsync_pipeline_report_json(const tsync_pipeline_result *r, tsync_report_kind kind,
                                 tsync_ctx *ctx)
{
    /* The clc report has always shown 15 significant digits, the sync report 17. */
    json_t *j = kind == TSYNC_REPORT_CLC ? tsync__report_clc_json(r)
                                         : tsync__report_sync_json(r, ctx);
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                       (kind == TSYNC_REPORT_CLC ? JSON_REAL_PRECISION(15) : 0))
                   : NULL;
    json_decref(j);
    if (!text)
        tsync__oom(ctx);
    return text;
}
