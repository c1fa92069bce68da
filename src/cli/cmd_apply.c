/* cmd_apply.c - `tracesync apply`: time maps from JSON onto a trace, written anew. */
#include <getopt.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "util/str.h"
#include "tracesync/timemap.h"
#include "tracesync/trace.h"

int cmd_apply(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'q' },
        { NULL, 0, NULL, 0 }
    };
    const char *outdir = NULL;
    tsync_trace *trace = NULL;
    tsync_timeline *tl = NULL;
    tsync_map_set *maps = NULL;
    tsync_ctx *ctx;
    int quiet = 0, c, rc = EXIT_OK;

    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:q", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': outdir = optarg; break;
        case 'q': quiet = 1; break;
        default: return cli_bad_option("apply", c, argv);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("apply", "expected MAPS.json and one INPUT, got %d argument(s)",
                               argc - optind);
    if (!outdir)
        return cli_usage_error("apply", "no output directory: add -o OUTDIR");
    ctx = cli_context(quiet);
    if (tsync_trace_open(&trace, argv[optind + 1], NULL, ctx) ||
        tsync_map_set_load(&maps, argv[optind], trace, ctx) ||
        tsync_timeline_new(&tl, trace, ctx) || tsync_map_set_apply(maps, trace, tl, ctx) ||
        tsync_trace_write(trace, tl, outdir, ctx)) {
        rc = cli_fail(ctx, "apply");
        goto out;
    }
    if (!quiet)
        fprintf(stderr, "tracesync apply: wrote %s: %llu event%s of %u location%s\n", outdir,
                (unsigned long long)tsync_trace_event_count(trace),
                tsync__plural(tsync_trace_event_count(trace), "s"), tsync_trace_location_count(trace),
                tsync__plural(tsync_trace_location_count(trace), "s"));
out:
    tsync_map_set_free(maps);
    tsync_timeline_free(tl);
    tsync_trace_free(trace);
    tsync_ctx_free(ctx);
    return rc;
}
