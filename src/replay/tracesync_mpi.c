/* tracesync_mpi.c - the tracesync-mpi command, started with mpirun: `clc` and
 * `sync` of `tracesync` as an MPI program (replay.h), their options parsed by the
 * same tables and parsers (cli/stage_opts.c, cli_sync_parse). Every process exits
 * with the same code; the process whose error it was prints it. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "replay/replay.h"
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

/* `clc` or `sync` (argv[0]): the options of tracesync's command, one input, no
 * --report or --json; the job on every process. */
static int run(int argc, char **argv, int rank, int ranks)
{
    struct tsync__replay_link link = { MPI_COMM_WORLD, 0, 0, 0, 0 };
    int sync = strcmp(argv[0], "sync") == 0, rc, own, first;
    const char *cmd = sync ? "mpi sync" : "mpi clc", *outdir;
    struct cli_clc_args c;
    struct cli_sync_args s;
    tsync_check_opts *check;
    tsync_clc_result *r = NULL;
    tsync_ctx *ctx;

    if (sync) {
        if ((rc = cli_sync_parse(cmd, argc, argv, &s)) >= 0)
            return rc;
        if (argc - optind != 1)
            return cli_usage_error(cmd, "expected one INPUT (an OTF2 anchor file), got %d",
                                   argc - optind);
        if (!s.outdir)
            return cli_usage_error(cmd, "no output directory: add -o OUTDIR");
    } else if ((rc = cli_clc_parse(cmd, argc, argv, &c)) >= 0) {
        return rc;
    }
    if (sync ? s.report || s.json : c.report || c.json)
        return cli_usage_error(cmd, "--report and --json are tracesync %s's only", argv[0]);
    outdir = sync ? s.outdir : c.po.outdir;
    check = sync ? &s.o.check : &c.po.check;
    /* Warnings from process 0 only: every process reads the same definitions. */
    ctx = cli_context((sync ? s.quiet : c.quiet) || rank != 0);
    if (cli_parse_latency(cmd, sync ? s.latency : c.latency, check, ctx)) {
        tsync_ctx_free(ctx);
        return EXIT_USAGE;
    }
    rc = sync ? tsync__replay_sync(&r, &link, argv[optind], outdir, &s.o, ctx)
              : tsync__replay_clc(&r, &link, argv[optind], outdir, &c.po.clc, check, ctx);
    /* The error of the first process that failed on its own: one that every
     * process meets (options against the trace, a definition) is printed once. */
    own = rc && strcmp(tsync_ctx_error(ctx), TSYNC_REPLAY_OTHERS) != 0 ? rank : INT_MAX;
    MPI_Allreduce(&own, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc && first == rank)
        fprintf(stderr, "tracesync-mpi %s: %s\n", argv[0], tsync_ctx_error(ctx));
    else if (rc == TSYNC_OK && rank == 0)
        print_result(argv[0], r, &link, outdir, ranks);
    tsync_clc_result_free(r);
    tsync_ctx_free(ctx);
    return rc ? EXIT_USAGE : EXIT_OK;
}

int main(int argc, char **argv)
{
    int rank = 0, ranks = 1, rc, all;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc >= 2 && (strcmp(argv[1], "clc") == 0 || strcmp(argv[1], "sync") == 0)) {
        rc = run(argc - 1, argv + 1, rank, ranks);
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
