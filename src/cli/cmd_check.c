/* cmd_check.c - `tracesync check`: the clock condition report of each input. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tracesync/check.h"
#include "tracesync/trace.h"

/* Checks one input; returns 0 consistent, 1 violated, 2 error. */
static int check_one(const char *path, const tsync_open_opts *oo, const tsync_check_opts *co,
                     int json, int first, tsync_ctx *ctx)
{
    tsync_trace *trace = NULL;
    tsync_timeline *tl = NULL;
    tsync_check_report *report = NULL;
    int rc;
    if (tsync_trace_open(&trace, path, oo, ctx) || tsync_timeline_new(&tl, trace, ctx) ||
        tsync_check_run(&report, trace, tl, co, ctx)) {
        rc = cli_fail(ctx, "check");
        goto out;
    }
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
    tsync_check_report_free(report);
    tsync_timeline_free(tl);
    tsync_trace_free(trace);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },     { "latency", required_argument, NULL, 'l' },
        { "domains", required_argument, NULL, 'd' }, { "quiet", no_argument, NULL, 'q' },
        { "name", required_argument, NULL, 'N' },    { NULL, 0, NULL, 0 }
    };
    tsync_open_opts oo = TSYNC_OPEN_OPTS_INIT;
    tsync_check_opts co = TSYNC_CHECK_OPTS_INIT;
    tsync_ctx *ctx;
    const char *latency = NULL;
    int json = 0, quiet = 0, c, worst = EXIT_OK, traces;

    optind = 1;
    while ((c = getopt_long(argc, argv, ":ql:d:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'q': quiet = 1; break;
        case 'l': latency = optarg; break;
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
    if (latency && tsync_check_parse_latency(&co, latency, ctx)) {
        cli_usage_error("check", "%s", tsync_ctx_error(ctx));
        tsync_ctx_free(ctx);
        return EXIT_USAGE;
    }
    oo.split_reversal_s = TSYNC_SPLIT_LATENCIES * fmax(co.latency_intra_s, co.latency_inter_s);
    traces = cli_trace_count(argc, argv, optind);
    if (json && traces > 1)
        printf("[\n");
    for (int i = optind, used; i < argc; i += used) {
        int rc;
        used = cli_trace_inputs(argc, argv, i, &oo);
        rc = check_one(argv[i], &oo, &co, json, i == optind, ctx);
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
