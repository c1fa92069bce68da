/* cmd_simulate.c - `tracesync simulate`: a simulated MPI run written as the local
 * clocks saw it (trace.otf2) and as it happened (truth.otf2). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tracesync/sim.h"

/* A parameter change from the command line, applied after the scenario. */
struct change { const char *key; const char *value; };

static void list_all(void)
{
    printf("Scenarios:\n");
    for (size_t i = 0; i < tsync_sim_scenario_count(); i++)
        printf("  %-12s %s\n", tsync_sim_scenario_name(i), tsync_sim_scenario_summary(i));
    printf("\nParameters (--set KEY=VALUE; times take ns, us, ms, s, min or h):\n");
    for (size_t i = 0; tsync_sim_param_name(i); i++)
        printf("  %-30s %s\n", tsync_sim_param_name(i), tsync_sim_param_help(i));
}

int cmd_simulate(int argc, char **argv)
{
    enum { O_SEED = 256, O_RANKS, O_NODES, O_EVENTS, O_DURATION, O_OFFSETS, O_SESSIONS, O_RES,
           O_CLOCK, O_SET, O_CONFIG, O_LIST };
    static const struct option longopts[] = {
        { "scenario", required_argument, NULL, 's' }, { "output", required_argument, NULL, 'o' },
        { "seed", required_argument, NULL, O_SEED }, { "ranks", required_argument, NULL, O_RANKS },
        { "nodes", required_argument, NULL, O_NODES }, { "events", required_argument, NULL, O_EVENTS },
        { "duration", required_argument, NULL, O_DURATION },
        { "offsets", required_argument, NULL, O_OFFSETS },
        { "sessions", required_argument, NULL, O_SESSIONS },
        { "timer-resolution", required_argument, NULL, O_RES },
        { "clock-per-rank", no_argument, NULL, O_CLOCK }, { "set", required_argument, NULL, O_SET },
        { "config", required_argument, NULL, O_CONFIG }, { "list", no_argument, NULL, O_LIST },
        { "quiet", no_argument, NULL, 'q' }, { NULL, 0, NULL, 0 }
    };
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
    tsync_sim_result res;
    struct change *changes = calloc((size_t)argc + 1, sizeof(*changes));
    size_t n_changes = 0;
    const char *scenario = NULL, *config = NULL, *outdir = NULL;
    int quiet = 0, c, rc = EXIT_USAGE, has_events = 0, has_duration = 0;
    tsync_ctx *ctx = NULL;

    if (!changes)
        return cli_usage_error("simulate", "out of memory");
    optind = 1;
    while ((c = getopt_long(argc, argv, ":s:o:q", longopts, NULL)) != -1) {
        struct change ch = { NULL, optarg };
        switch (c) {
        case 's': scenario = optarg; continue;
        case 'o': outdir = optarg; continue;
        case 'q': quiet = 1; continue;
        case O_CONFIG: config = optarg; continue;
        case O_LIST: list_all(); free(changes); return EXIT_OK;
        case O_SEED: ch.key = "seed"; break;
        case O_RANKS: ch.key = "ranks"; break;
        case O_NODES: ch.key = "nodes"; break;
        case O_EVENTS: ch.key = "app.events"; has_events = 1; break;
        case O_DURATION: ch.key = "app.duration_s"; has_duration = 1; break;
        case O_OFFSETS: ch.key = "offsets.enabled"; break;
        case O_SESSIONS: ch.key = "offsets.session_interval_s"; break;
        case O_RES: ch.key = "timer_resolution"; break;
        case O_CLOCK: ch.key = "clock_per_rank"; ch.value = "on"; break;
        case O_SET: {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                free(changes);
                return cli_usage_error("simulate", "--set %s: expected KEY=VALUE, e.g. "
                                       "--set net.latency_inter_s=7.7us", optarg);
            }
            *eq = '\0'; /* argv is ours to change */
            ch.key = optarg;
            ch.value = eq + 1;
            break;
        }
        default: free(changes); return cli_bad_option("simulate", c, argv);
        }
        changes[n_changes++] = ch;
    }
    if (optind < argc) {
        free(changes);
        return cli_usage_error("simulate", "unexpected argument \"%s\"", argv[optind]);
    }
    if (!outdir) {
        free(changes);
        return cli_usage_error("simulate", "no output directory: add -o OUTDIR");
    }
    if (scenario && config) {
        free(changes);
        return cli_usage_error("simulate", "--scenario and --config exclude each other");
    }
    ctx = cli_context(quiet);
    if ((scenario && tsync_sim_scenario(&o, scenario, ctx)) ||
        (config && tsync_sim_load(&o, config, ctx)))
        goto usage;
    /* --events alone ends the main phase by count, --duration alone by time. */
    if (has_events && !has_duration)
        o.app.duration_s = 0;
    if (has_duration && !has_events)
        o.app.events = 0;
    for (size_t i = 0; i < n_changes; i++)
        if (tsync_sim_set(&o, changes[i].key, changes[i].value, ctx))
            goto usage;
    if (tsync_sim_validate(&o, ctx))
        goto usage;
    /* Before writing gigabytes, say so and how to write fewer. */
    if (!quiet && tsync_sim_estimate_bytes(&o) > 2e9)
        fprintf(stderr, "tracesync simulate: warning: about %.3g events, %.0f GB in %s; "
                "--events N or --duration T (or fewer --ranks, or --set hosts.messages=N for "
                "format csv) make it smaller\n", tsync_sim_estimate_events(&o),
                tsync_sim_estimate_bytes(&o) / 1e9, outdir);
    if (tsync_sim_run(&res, &o, outdir, ctx)) {
        rc = cli_fail(ctx, "simulate");
        goto out;
    }
    if (!quiet)
        fprintf(stderr, "tracesync simulate: wrote %s/trace.%s, truth.%s, scenario.json: "
                "scenario %s, seed %llu, %u ranks on %u nodes, %llu events, %llu messages, "
                "%llu collectives, %.1f s of true time\n", outdir,
                o.format == TSYNC_SIM_CSV ? "csv" : "otf2", o.format == TSYNC_SIM_CSV ? "csv" : "otf2",
                o.scenario,
                (unsigned long long)o.seed, o.ranks, o.nodes, (unsigned long long)res.events,
                (unsigned long long)res.messages, (unsigned long long)res.collectives,
                res.end_s - res.start_s);
    rc = EXIT_OK;
    goto out;
usage:
    cli_usage_error("simulate", "%s", tsync_ctx_error(ctx));
    rc = EXIT_USAGE;
out:
    free(changes);
    tsync_ctx_free(ctx);
    return rc;
}
