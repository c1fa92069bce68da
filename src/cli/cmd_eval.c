/* cmd_eval.c - `tracesync eval`: a corrected trace scored against the truth. */
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "tracesync/eval.h"
#include "tracesync/trace.h"

int cmd_eval(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' }, { "latency", required_argument, NULL, 'l' },
        { "quiet", no_argument, NULL, 'q' }, { "bin", required_argument, NULL, 'b' },
        { NULL, 0, NULL, 0 }
    };
    tsync_eval_opts eo = TSYNC_EVAL_OPTS_INIT;
    tsync_trace *corrected = NULL, *truth = NULL;
    tsync_eval_report *r = NULL;
    const char *latency = NULL;
    tsync_ctx *ctx;
    int json = 0, quiet = 0, c, rc = EXIT_OK;

    optind = 1;
    while ((c = getopt_long(argc, argv, ":ql:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'q': quiet = 1; break;
        case 'l': latency = optarg; break;
        case 'b':
            /* The bin of true time for the common-mode error of the time axis. */
            if (tsync_parse_seconds(optarg, &eo.bin_s) || !(eo.bin_s > 0))
                return cli_usage_error("eval", "--bin %s: expected a positive duration, "
                                       "e.g. 1s or 200ms", optarg);
            break;
        default: return cli_bad_option("eval", c, argv);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("eval", "expected CORRECTED and TRUTH, got %d argument(s)",
                               argc - optind);
    ctx = cli_context(quiet);
    if (cli_parse_latency("eval", latency, &eo.check, ctx)) {
        tsync_ctx_free(ctx);
        return EXIT_USAGE;
    }
    if (tsync_trace_open(&corrected, argv[optind], NULL, ctx) ||
        tsync_trace_open(&truth, argv[optind + 1], NULL, ctx) ||
        tsync_eval_run(&r, corrected, NULL, truth, &eo, ctx)) {
        rc = cli_fail(ctx, "eval");
        goto out;
    }
    if (json) {
        char *text = tsync_eval_report_json(r, corrected, truth);
        if (!text) {
            fprintf(stderr, "tracesync eval: out of memory\n");
            rc = EXIT_USAGE;
            goto out;
        }
        printf("%s\n", text);
        free(text);
    } else {
        tsync_eval_report_print(r, corrected, truth, stdout);
    }
out:
    tsync_eval_report_free(r);
    tsync_trace_free(corrected);
    tsync_trace_free(truth);
    tsync_ctx_free(ctx);
    return rc;
}
