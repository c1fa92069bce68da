/* check_trace.c - libtracesync in a few lines: read a trace, report its clock
 * condition violations, shift one location by a constant, write the result.
 *
 * Usage: check_trace INPUT.otf2 OUTDIR LOCATION_ID OFFSET_TICKS
 */
#include <stdio.h>
#include <stdlib.h>

#include <tracesync/tracesync.h>

int main(int argc, char **argv)
{
    tsync_ctx *ctx = NULL;
    tsync_trace *trace = NULL;
    tsync_timeline *timeline = NULL;
    tsync_check_report *report = NULL;
    tsync_map_set *maps = NULL;
    tsync_time_map *shift = NULL;
    tsync_loc loc;
    int rc = 2;

    if (argc != 5) {
        fprintf(stderr, "usage: %s INPUT.otf2 OUTDIR LOCATION_ID OFFSET_TICKS\n", argv[0]);
        return 2;
    }
    if (tsync_ctx_new(&ctx))
        return 2;
    if (tsync_trace_open(&trace, argv[1], NULL, ctx) ||
        tsync_timeline_new(&timeline, trace, ctx) ||
        tsync_check_run(&report, trace, timeline, NULL, ctx))
        goto out;
    printf("%llu messages, %llu violations before\n", (unsigned long long)report->messages,
           (unsigned long long)report->violations);

    if (tsync_trace_find_location(trace, strtoull(argv[3], NULL, 10), &loc)) {
        fprintf(stderr, "no location %s in %s\n", argv[3], argv[1]);
        goto out;
    }
    if (tsync_map_set_new_empty(&maps, trace, ctx) ||
        tsync_time_map_new_offset(&shift, strtoll(argv[4], NULL, 10), ctx) ||
        tsync_map_set_assign(maps, loc, shift, ctx) || /* the set takes the map */
        tsync_map_set_apply(maps, trace, timeline, ctx) ||
        tsync_trace_write(trace, timeline, argv[2], ctx))
        goto out;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "%s\n", tsync_ctx_error(ctx));
    tsync_map_set_free(maps);
    tsync_check_report_free(report);
    tsync_timeline_free(timeline);
    tsync_trace_free(trace);
    tsync_ctx_free(ctx);
    return rc;
}
