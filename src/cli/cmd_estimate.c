/* cmd_estimate.c - `tracesync estimate`: time maps from the messages of each input,
 * as a summary for people or as a maps file that `tracesync apply` reads. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tracesync/pipeline.h"

/* Estimates one input; prints the summary or the JSON. 0 or 2. */
static int estimate_one(const char *path, const tsync_pipeline_opts *po, int json, int first,
                        const char *outfile, tsync_ctx *ctx)
{
    tsync_pipeline_result *r = NULL;
    const tsync_estimate *e;
    const tsync_trace *trace;
    char *text = NULL;
    int rc = EXIT_OK;
    if (tsync_pipeline_run(&r, path, po, ctx)) {
        rc = cli_fail(ctx, "estimate");
        goto out;
    }
    e = r->estimate;
    trace = r->trace;
    if ((json || outfile) && !(text = tsync_estimate_json(e, trace, ctx))) {
        rc = cli_fail(ctx, "estimate");
        goto out;
    }
    /* The file with the text's own newline: no copy of a maps file to add one. */
    if (outfile && cli_write_report("estimate", "-o", text, outfile, ctx)) {
        rc = EXIT_USAGE;
        goto out;
    }
    if (json) {
        size_t len = strlen(text);
        if (len && text[len - 1] == '\n')  /* printed with its own */
            text[len - 1] = '\0';
        printf("%s%s\n", first ? "" : ",\n", text);
    }
    else
        tsync_estimate_print(e, trace, stdout);
out:
    free(text);
    tsync_pipeline_result_free(r);
    return rc;
}

int cmd_estimate(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },          { "estimator", required_argument, NULL, 'e' },
        { "reference", required_argument, NULL, 'R' }, { "domains", required_argument, NULL, 'd' },
        { "global-lsq", no_argument, NULL, 'g' },    { "latency", required_argument, NULL, 'l' },
        { "output", required_argument, NULL, 'o' },  { "quiet", no_argument, NULL, 'q' },
        { "name", required_argument, NULL, 'N' },    { "latency-file", required_argument, NULL, 'L' },
        { NULL, 0, NULL, 0 }
    };
    tsync_open_opts oo = TSYNC_OPEN_OPTS_INIT;
    tsync_pipeline_opts po = TSYNC_PIPELINE_OPTS_INIT;
    tsync_estimate_opts *eo = &po.estimate;
    const char *latency = NULL, *outfile = NULL;
    tsync_ctx *ctx;
    int json = 0, quiet = 0, c, k, rc = EXIT_OK, traces;

    const struct option *opts = cli_options(longopts, cli_estimate_options, NULL);

    optind = 1;
    while ((c = getopt_long(argc, argv, ":qo:", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'q': quiet = 1; break;
        case 'o': outfile = optarg; break;
        case 'R': cli_parse_reference(optarg, eo); break;
        case 'g': eo->global_lsq = 1; break;
        case 'l': latency = optarg; break;
        case 'L': po.check.latency_file = optarg; break;
        case 'e':
            if (cli_parse_estimator("estimate", optarg, eo))
                return 2;
            break;
        case 'd':
            if (cli_parse_domains(optarg, &oo))
                return cli_usage_error("estimate", "--domains: expected node, location or a "
                                                   "domain file");
            break;
        case 'N':
            if (cli_parse_name(optarg, &oo))
                return cli_usage_error("estimate", "--name: expected FILE=HOST");
            break;
        default:
            if ((k = cli_estimate_option("estimate", c, optarg, eo)) != 0) {
                if (k < 0)
                    return EXIT_USAGE;
                break;
            }
            return cli_bad_option("estimate", c, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error("estimate", "no input given (%s)", tsync_trace_formats());
    traces = cli_trace_count(argc, argv, optind);
    if (outfile && traces > 1)
        return cli_usage_error("estimate", "-o takes the maps of one input, got %d inputs",
                               traces);
    if (outfile && cli_prepare_output("estimate", "-o", outfile))
        return EXIT_USAGE;
    ctx = cli_context(quiet);
    po.stages = TSYNC_STAGES_ESTIMATE;
    po.open = &oo;
    if (cli_parse_latency("estimate", latency, &po.check, ctx)) {
        tsync_ctx_free(ctx);
        return EXIT_USAGE;
    }
    if (json && traces > 1)
        printf("[\n");
    for (int i = optind, used; i < argc && rc == EXIT_OK; i += used) {
        used = cli_trace_inputs(argc, argv, i, &oo);
        rc = estimate_one(argv[i], &po, json, i == optind, outfile, ctx);
    }
    if (json && rc == EXIT_OK && traces > 1)
        printf("]\n");
    tsync_ctx_free(ctx);
    return rc;
}
