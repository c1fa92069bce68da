/* cmd_clc.c - `tracesync clc`: the controlled logical clock on one trace, written
 * anew, with the clc report (the pipeline's clc stages, pipeline.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tracesync/pipeline.h"

/* Runs everything but the argument parsing; returns the exit code. */
static int run(const char *input, tsync_pipeline_opts *po, const char *report_path, int json,
               const char *latency, unsigned threads, int quiet)
{
    tsync_ctx *ctx = cli_context(quiet);
    tsync_pipeline_result *r = NULL;
    char *text = NULL;
    int rc = EXIT_USAGE;

    tsync_ctx_set_threads(ctx, threads);
    if (report_path && cli_prepare_output("clc", "--report", report_path))
        goto out;
    /* The corrected trace and the report land together, or neither. */
    if (tsync_ctx_hold_outputs(ctx)) {
        fprintf(stderr, "tracesync clc: out of memory\n");
        goto out;
    }
    if (cli_parse_latency("clc", latency, &po->check, ctx))
        goto out;
    if (tsync_pipeline_run(&r, input, po, ctx) ||
        ((json || report_path) && !(text = tsync_pipeline_report_json(r, TSYNC_REPORT_CLC, ctx)))) {
        rc = cli_fail(ctx, "clc");
        goto out;
    }
    if (report_path && cli_write_report("clc", "--report", text, report_path, ctx))
        goto out;
    if (tsync_ctx_commit_outputs(ctx)) {
        rc = cli_fail(ctx, "clc");
        goto out;
    }
    if (json)
        printf("%s\n", text);
    else
        tsync_pipeline_report_print(r, TSYNC_REPORT_CLC, stdout);
    if (!tsync_check_report_consistent(r->after) && !quiet)
        fprintf(stderr, "tracesync clc: warning: %llu violation%s left\n",
                (unsigned long long)r->after->violations, r->after->violations == 1 ? "" : "s");
    rc = EXIT_OK;
out:
    free(text);
    tsync_pipeline_result_free(r);
    tsync_ctx_free(ctx);
    return rc;
}

int cli_clc_parse(const char *cmd, int argc, char **argv, struct cli_clc_args *a)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },     { "report", required_argument, NULL, 'r' },
        { "latency", required_argument, NULL, 'l' },    { "json", no_argument, NULL, 'j' },
        { "quiet", no_argument, NULL, 'q' },            { NULL, 0, NULL, 0 }
    };
    const struct option *opts = cli_options(longopts, cli_clc_options, NULL);
    tsync_pipeline_opts init = TSYNC_PIPELINE_OPTS_INIT;
    int c, k;

    memset(a, 0, sizeof(*a));
    a->po = init;
    a->po.stages = TSYNC_STAGES_CLC;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': a->po.outdir = optarg; break;
        case 'r': a->report = optarg; break;
        case 'l': a->latency = optarg; break;
        case 'j': a->json = 1; break;
        case 'q': a->quiet = 1; break;
        default:
            if ((k = cli_clc_option(cmd, c, optarg, &a->po.clc, &a->threads)) != 0) {
                if (k < 0)
                    return EXIT_USAGE;
                break;
            }
            return cli_bad_option(cmd, c, argv);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(cmd, "expected one INPUT (an OTF2 anchor file), got %d",
                               argc - optind);
    if (!a->po.outdir)
        return cli_usage_error(cmd, "no output directory: add -o OUTDIR");
    return -1;
}

int cmd_clc(int argc, char **argv)
{
    struct cli_clc_args a;
    int rc = cli_clc_parse("clc", argc, argv, &a);
    if (rc >= 0)
        return rc;
    return run(argv[optind], &a.po, a.report, a.json, a.latency, a.threads, a.quiet);
}
