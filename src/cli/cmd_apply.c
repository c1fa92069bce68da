/* cmd_apply.c - `tracesync apply`: time maps from JSON onto a trace, written anew (the
 * pipeline's apply stages). */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "tracesync/pipeline.h"

int cmd_apply(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'q' },
        { NULL, 0, NULL, 0 }
    };
    tsync_pipeline_opts po = TSYNC_PIPELINE_OPTS_INIT;
    tsync_pipeline_result *r = NULL;
    tsync_ctx *ctx;
    int quiet = 0, c, rc = EXIT_OK;

    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:q", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': po.outdir = optarg; break;
        case 'q': quiet = 1; break;
        default: return cli_bad_option("apply", c, argv);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("apply", "expected MAPS.json and one INPUT, got %d argument(s)",
                               argc - optind);
    if (!po.outdir)
        return cli_usage_error("apply", "no output directory: add -o OUTDIR");
    po.stages = TSYNC_STAGES_APPLY;
    po.maps_file = argv[optind];
    ctx = cli_context(quiet);
    if (tsync_pipeline_run(&r, argv[optind + 1], &po, ctx)) {
        rc = cli_fail(ctx, "apply");
        goto out;
    }
    if (!quiet) {
        uint64_t events = tsync_trace_event_count(r->trace);
        uint32_t locations = tsync_trace_location_count(r->trace);
        fprintf(stderr, "tracesync apply: wrote %s: %llu event%s of %u location%s\n", po.outdir,
                (unsigned long long)events, events == 1 ? "" : "s", locations,
                locations == 1 ? "" : "s");
    }
out:
    tsync_pipeline_result_free(r);
    tsync_ctx_free(ctx);
    return rc;
}
