/* cmd_sync.c - `tracesync sync`: the main job, input by input. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tracesync/sync.h"

/* The name an input's output gets in OUTDIR. */
static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int cli_sync_parse(const char *cmd, int argc, char **argv, struct cli_sync_args *a)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },   { "report", required_argument, NULL, 'r' },
        { "json", no_argument, NULL, 'j' },           { "estimator", required_argument, NULL, 'e' },
        { "no-clc", no_argument, NULL, 'n' },         { "reference", required_argument, NULL, 'R' },
        { "domains", required_argument, NULL, 'd' },  { "latency", required_argument, NULL, 'l' },
        { "global-lsq", no_argument, NULL, 'g' },     { "quiet", no_argument, NULL, 'q' },
        { "name", required_argument, NULL, 'N' },     { NULL, 0, NULL, 0 }
    };
    const struct option *opts = cli_options(longopts, cli_estimate_options, cli_clc_options);
    tsync_sync_opts init = TSYNC_SYNC_OPTS_INIT;
    int c, k;

    memset(a, 0, sizeof(*a));
    a->o = init;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': a->outdir = optarg; break;
        case 'r': a->report = optarg; break;
        case 'j': a->json = 1; break;
        case 'n': a->o.clc = 0; break;
        case 'R': cli_parse_reference(optarg, &a->o.estimate); break;
        case 'g': a->o.estimate.global_lsq = 1; break;
        case 'l': a->latency = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'e':
            if (cli_parse_estimator(cmd, optarg, &a->o.estimate))
                return EXIT_USAGE;
            break;
        case 'd':
            if (cli_parse_domains(optarg, &a->o.open))
                return cli_usage_error(cmd, "--domains: expected node, location or a "
                                            "domain file");
            break;
        case 'N':
            if (cli_parse_name(optarg, &a->o.open))
                return cli_usage_error(cmd, "--name: expected FILE=HOST");
            break;
        default:
            /* The options of the stages sync runs, parsed as the stages' commands do. */
            if ((k = cli_estimate_option(cmd, c, optarg, &a->o.estimate)) == 0)
                k = cli_clc_option(cmd, c, optarg, &a->o.clc_opts, &a->threads);
            if (k < 0)
                return EXIT_USAGE;
            if (k > 0)
                break;
            return cli_bad_option(cmd, c, argv);
        }
    }
    return -1;
}

int cmd_sync(int argc, char **argv)
{
    struct cli_sync_args a;
    int inconsistent = 0, rc = cli_sync_parse("sync", argc, argv, &a);
    tsync_ctx *ctx;

    if (rc >= 0)
        return rc;
    rc = EXIT_OK;
    if (optind >= argc)
        return cli_usage_error("sync", "no input given (%s)", tsync_trace_formats());
    if (!a.outdir)
        return cli_usage_error("sync", "no output directory: add -o OUTDIR");
    if (a.report && cli_trace_count(argc, argv, optind) > 1)
        return cli_usage_error("sync", "--report takes one input; run sync once per input");
    for (int i = optind; i < argc; i++)
        for (int j = optind; j < i; j++)
            if (strcmp(file_name(argv[i]), file_name(argv[j])) == 0)
                return cli_usage_error("sync", "%s and %s have the same file name: both would be "
                                       "written to %s/%s; run sync once per input, each with "
                                       "its own -o", argv[j], argv[i], a.outdir, file_name(argv[i]));
    if (a.report && cli_prepare_output("sync", "--report", a.report))
        return EXIT_USAGE;
    ctx = cli_context(a.quiet);
    tsync_ctx_set_threads(ctx, a.threads);
    if (cli_parse_latency("sync", a.latency, &a.o.check, ctx)) {
        tsync_ctx_free(ctx);
        return EXIT_USAGE;
    }
    for (int i = optind, used; i < argc && rc == EXIT_OK; i += used) {
        tsync_sync_result *r = NULL;
        char *text = NULL;
        used = cli_trace_inputs(argc, argv, i, &a.o.open);
        /* Each input's corrected trace and the report land together, or neither. */
        if (tsync_ctx_hold_outputs(ctx) || tsync_sync_run(&r, argv[i], a.outdir, &a.o, ctx)) {
            rc = cli_fail(ctx, "sync");
            break;
        }
        if ((a.json || a.report) && !(text = tsync_sync_result_json(r, ctx)))
            rc = cli_fail(ctx, "sync");
        else if (a.report && cli_write_report("sync", "--report", text, a.report, ctx))
            rc = EXIT_USAGE;
        else if (tsync_ctx_commit_outputs(ctx))
            rc = cli_fail(ctx, "sync");
        else if (a.json)
            printf("%s\n", text);
        else
            tsync_sync_result_print(r, stdout);
        /* As check: the result line says INCONSISTENT (e.g. --no-clc), the exit says 1. */
        if (rc == EXIT_OK && !tsync_check_report_consistent(r->after))
            inconsistent = 1;
        free(text);
        tsync_sync_result_free(r);
    }
    tsync_ctx_free(ctx);
    return rc == EXIT_OK && inconsistent ? EXIT_INCONSISTENT : rc;
}
