/* cmd_check.c - `tracesync check`: the clock condition report of each input. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tracesync/pipeline.h"

/* Checks one input; returns 0 consistent, 1 violated, 2 error. */
static int check_one(const char *path, const tsync_pipeline_opts *po, int json, int first,
                     tsync_ctx *ctx)
{
    tsync_pipeline_result *r = NULL;
    const tsync_check_report *report;
    const tsync_trace *trace;
    int rc;
    if (tsync_pipeline_run(&r, path, po, ctx)) {
        rc = cli_fail(ctx, "check");
        goto out;
    }
    report = r->before;
    trace = r->trace;
    if (json) {
        char *text = tsync_check_report_json(report, trace);
        if (!text) {
            fprintf(stderr, "tracesync check: out of memory\n");
            rc = EXIT_USAGE;
            goto out;
        }
        printf("%s%s", first ? "" : ",\n", text);
        free(text);
    } else {
        tsync_check_report_print(report, trace, stdout);
    }
    rc = tsync_check_report_consistent(report) ? EXIT_OK : EXIT_INCONSISTENT;
out:
    tsync_pipeline_result_free(r);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },     { "latency", required_argument, NULL, 'l' },
        { "domains", required_argument, NULL, 'd' }, { "quiet", no_argument, NULL, 'q' },
        { "name", required_argument, NULL, 'N' },    { "latency-file", required_argument, NULL, 'L' },
        { NULL, 0, NULL, 0 }
    };
    tsync_open_opts oo = TSYNC_OPEN_OPTS_INIT;
    tsync_pipeline_opts po = TSYNC_PIPELINE_OPTS_INIT;
    tsync_ctx *ctx;
    const char *latency = NULL;
    int json = 0, quiet = 0, c, worst = EXIT_OK, traces;

    optind = 1;
    while ((c = getopt_long(argc, argv, ":ql:d:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'q': quiet = 1; break;
        case 'l': latency = optarg; break;
        case 'L': po.check.latency_file = optarg; break;
        case 'd':
            if (cli_parse_domains(optarg, &oo))
                return cli_usage_error("check", "--domains: expected node, location or a "
                                                "domain file");
            break;
        case 'N':
            if (cli_parse_name(optarg, &oo))
                return cli_usage_error("check", "--name: expected FILE=HOST");
            break;
        default: return cli_bad_option("check", c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error("check", "no input given (%s)", tsync_trace_formats());
    ctx = cli_context(quiet);
    po.stages = TSYNC_STAGES_CHECK;
    po.open = &oo;
    if (cli_parse_latency("check", latency, &po.check, ctx)) {
        tsync_ctx_free(ctx);
        return EXIT_USAGE;
    }
    traces = cli_trace_count(argc, argv, optind);
    if (json && traces > 1)
        printf("[\n");
    for (int i = optind, used; i < argc; i += used) {
        int rc;
        used = cli_trace_inputs(argc, argv, i, &oo);
        rc = check_one(argv[i], &po, json, i == optind, ctx);
        if (rc == EXIT_USAGE) {
            worst = EXIT_USAGE;
            break;
        }
        if (rc > worst)
            worst = rc;
    }
    if (json)
        printf("%s\n", traces > 1 ? "\n]" : "");
    tsync_ctx_free(ctx);
    return worst;
}
