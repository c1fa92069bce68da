/* tracesync_mpi.c - the tracesync-mpi command, started with mpirun: `clc` and
 * `sync` of `tracesync` as an MPI program (replay.h), their options parsed by the
 * same tables and parsers (cli/stage_opts.c, cli_sync_parse). Every process exits
 * with the same code; the process whose error it was prints it. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "replay/replay.h"
#include "tracesync/pipeline.h"
#include "util/units.h"

static const char usage[] =
    "usage: mpirun -np N tracesync-mpi clc INPUT -o OUTDIR [--latency SPEC] [clc options] [-q]\n"
    "       mpirun -np N tracesync-mpi sync INPUT -o OUTDIR [the options of tracesync sync]\n";

/* The summary on process 0: the counts of every process (none without the clc). */
static void print_result(const char *cmd, const tsync_clc_result *r,
                         const struct tsync__replay_link *link, const char *outdir, int ranks)
{
    if (!r) {
        printf("%s (replay on %d process%s): no clc; written to %s\n", cmd, ranks,
               ranks == 1 ? "" : "es", outdir);
        return;
    }
    printf("%s (replay on %d process%s): %llu events, %llu receives, %llu corrected "
           "(%llu point-to-point, %llu collective), max jump %.9g s, %llu amortized, "
           "%llu moved, %u pass%s (gamma %g); written to %s\n",
           cmd, ranks, ranks == 1 ? "" : "es", (unsigned long long)r->events,
           (unsigned long long)r->receives, (unsigned long long)r->corrected,
           (unsigned long long)r->corrected_p2p, (unsigned long long)r->corrected_collective,
           r->max_jump_s, (unsigned long long)r->amortized_events,
           (unsigned long long)r->moved_events, r->passes, r->passes == 1 ? "" : "es", r->gamma,
           outdir);
    printf("replay: %llu exchanges, %llu reductions, %llu values sent by process 0\n",
           (unsigned long long)link->exchanges, (unsigned long long)link->reductions,
           (unsigned long long)link->values);
}

/* The job's end on every process: the error where it happened, the summary on 0. */
static int finish(const char *cmd, int rc, tsync_clc_result *r, const struct tsync__replay_link *link,
                  const char *outdir, int rank, int ranks, tsync_ctx *ctx)
{
    if (rc && strcmp(tsync_ctx_error(ctx), TSYNC_REPLAY_OTHERS) != 0)
        fprintf(stderr, "tracesync-mpi %s: %s\n", cmd, tsync_ctx_error(ctx));
    else if (rc == TSYNC_OK && rank == 0)
        print_result(cmd, r, link, outdir, ranks);
    tsync_clc_result_free(r);
    tsync_ctx_free(ctx);
    return rc ? EXIT_USAGE : EXIT_OK;
}

static int run_clc(int argc, char **argv, int rank, int ranks)
{
    static const struct option own[] = {
        { "output", required_argument, NULL, 'o' }, { "latency", required_argument, NULL, 'l' },
        { "quiet", no_argument, NULL, 'q' },        { NULL, 0, NULL, 0 }
    };
    const struct option *opts = cli_options(own, cli_clc_options, NULL);
    tsync_pipeline_opts po = TSYNC_PIPELINE_OPTS_INIT;
    struct tsync__replay_link link = { MPI_COMM_WORLD, 0, 0, 0 };
    const char *outdir = NULL, *latency = NULL;
    tsync_clc_result *r = NULL;
    tsync_ctx *ctx;
    unsigned threads = 1;
    int quiet = 0, c, k, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': outdir = optarg; break;
        case 'l': latency = optarg; break;
        case 'q': quiet = 1; break;
        default:
            if ((k = cli_clc_option("mpi clc", c, optarg, &po.clc, &threads)) != 0) {
                if (k < 0)
                    return EXIT_USAGE;
                break;
            }
            return cli_bad_option("mpi clc", c, argv);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("mpi clc", "expected one INPUT (an OTF2 anchor file), got %d",
                               argc - optind);
    if (!outdir)
        return cli_usage_error("mpi clc", "no output directory: add -o OUTDIR");
    /* Warnings from process 0 only: every process reads the same definitions. */
    ctx = cli_context(quiet || rank != 0);
    if (cli_parse_latency("mpi clc", latency, &po.check, ctx)) {
        tsync_ctx_free(ctx);
        return EXIT_USAGE;
    }
    rc = tsync__replay_clc(&r, &link, argv[optind], outdir, &po.clc, &po.check, ctx);
    return finish("clc", rc, r, &link, outdir, rank, ranks, ctx);
}

static int run_sync(int argc, char **argv, int rank, int ranks)
{
    struct tsync__replay_link link = { MPI_COMM_WORLD, 0, 0, 0 };
    struct cli_sync_args a;
    tsync_clc_result *r = NULL;
    tsync_ctx *ctx;
    int rc = cli_sync_parse("mpi sync", argc, argv, &a);

    if (rc >= 0)
        return rc;
    if (argc - optind != 1)
        return cli_usage_error("mpi sync", "expected one INPUT (an OTF2 anchor file), got %d",
                               argc - optind);
    if (!a.outdir)
        return cli_usage_error("mpi sync", "no output directory: add -o OUTDIR");
    if (a.report || a.json)
        return cli_usage_error("mpi sync", "--report and --json are tracesync sync's only");
    ctx = cli_context(a.quiet || rank != 0);
    if (cli_parse_latency("mpi sync", a.latency, &a.o.check, ctx)) {
        tsync_ctx_free(ctx);
        return EXIT_USAGE;
    }
    tsync_ctx_set_threads(ctx, 1);
    rc = tsync__replay_sync(&r, &link, argv[optind], a.outdir, &a.o, ctx);
    return finish("sync", rc, r, &link, a.outdir, rank, ranks, ctx);
}

int main(int argc, char **argv)
{
    int rank = 0, ranks = 1, rc, all;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc >= 2 && strcmp(argv[1], "clc") == 0) {
        rc = run_clc(argc - 1, argv + 1, rank, ranks);
    } else if (argc >= 2 && strcmp(argv[1], "sync") == 0) {
        rc = run_sync(argc - 1, argv + 1, rank, ranks);
    } else {
        if (rank == 0)
            fputs(usage, argc < 2 || strcmp(argv[1], "--help") ? stderr : stdout);
        rc = argc >= 2 && strcmp(argv[1], "--help") == 0 ? EXIT_OK : EXIT_USAGE;
    }
    /* A usage error is everyone's; any other failure was agreed inside. */
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    fflush(stdout);
    MPI_Finalize();
    return all;
}
