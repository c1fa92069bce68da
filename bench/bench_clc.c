/* bench_clc.c - speed and memory of the controlled logical clock on a simulated
 * trace, against the floor of reading and writing the same OTF2 archive.
 *
 * Usage: bench_clc [EVENTS] [DIR]   (default 10000000 events in ./bench-clc)
 * Prints one line per stage: stage=... events=... seconds=... events/s=... bytes/event=...
 * The whole command (`tracesync clc`) is timed by bench/run.sh on the same archive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracesync/clc.h"
#include "tracesync/sim.h"
#include "tracesync/trace.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(tsync_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_clc: %s: %s\n", what, tsync_ctx_error(ctx));
    exit(2);
}

static void report(const char *stage, uint64_t events, double seconds, double bytes_per_event)
{
    printf("stage=%-16s fmt=otf2 events=%llu seconds=%.3f events/s=%.3g", stage,
           (unsigned long long)events, seconds, (double)events / seconds);
    if (bytes_per_event > 0)
        printf(" bytes/event=%.1f", bytes_per_event);
    printf("\n");
}

int main(int argc, char **argv)
{
    uint64_t target = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *dir = argc > 2 ? argv[2] : "bench-clc";
    char anchor[4096], outdir[4096], cmd[8300];
    tsync_sim_opts so = TSYNC_SIM_OPTS_INIT;
    tsync_clc_opts co = TSYNC_CLC_OPTS_INIT;
    tsync_sim_result sr;
    tsync_clc_result *cr = NULL;
    tsync_trace *trace;
    tsync_timeline *tl;
    tsync_ctx *ctx;
    uint64_t events;
    double t0;

    snprintf(anchor, sizeof(anchor), "%s/sim/trace.otf2", dir);
    snprintf(outdir, sizeof(outdir), "%s/out", dir);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s/sim' '%s/out'", dir, dir);
    if (system(cmd) != 0 || tsync_ctx_new(&ctx))
        return 2;
    /* Scenario "default" (8 ranks on 4 nodes, every pattern and collective class),
     * with the main phase ended after `target` events. */
    so.app.events = target;
    so.app.duration_s = 0;
    snprintf(cmd, sizeof(cmd), "%s/sim", dir);
    if (tsync_sim_validate(&so, ctx) || tsync_sim_run(&sr, &so, cmd, ctx))
        die(ctx, "simulate");

    t0 = now();
    if (tsync_trace_open(&trace, anchor, NULL, ctx))
        die(ctx, "read");
    events = tsync_trace_event_count(trace);
    report("read+match", events, now() - t0,
           (double)tsync_trace_memory(trace) / (double)events);
    if (tsync_timeline_new(&tl, trace, ctx))
        die(ctx, "timeline");

    co.latency_intra_s = so.net.latency_intra_s;
    co.latency_inter_s = so.net.latency_inter_s;
    t0 = now();
    if (tsync_clc_run(&cr, trace, tl, &co, ctx))
        die(ctx, "clc");
    report("clc", events, now() - t0,
           (double)(tsync_trace_memory(trace) + cr->memory) / (double)events +
               (double)sizeof(tsync_time));
    printf("  passes=%u corrected=%llu moved=%llu working_memory_bytes/event=%.1f\n", cr->passes,
           (unsigned long long)cr->corrected, (unsigned long long)cr->moved_events,
           (double)cr->memory / (double)events);

    t0 = now();
    if (tsync_trace_write(trace, tl, outdir, ctx))
        die(ctx, "write");
    report("write(copy)", events, now() - t0, 0);

    tsync_clc_result_free(cr);
    tsync_timeline_free(tl);
    tsync_trace_free(trace);
    tsync_ctx_free(ctx);
    return 0;
}
