/* bench_otf2.c - speed and memory of reading, matching and writing OTF2, against
 * libotf2's own read and copy of the same archive (the floor).
 *
 * Usage: bench_otf2 [EVENTS] [DIR]   (default 10000000 events in ./bench-otf2)
 * Prints one line per stage: stage=... fmt=otf2 events=... events/s=... bytes/event=...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <otf2/otf2.h>

#include "bench_util.h"
#include "io/otf2_build.h"
#include "tracesync/timemap.h"
#include "tracesync/trace.h"

#define RANKS 16
#define NODES 4

/* One stage's line. */
static void report(const char *stage, uint64_t events, double seconds, double bytes_per_event)
{
    bench_report_otf2(stage, events, seconds, bytes_per_event);
    printf("\n");
}

/* A ring exchange on 16 ranks of 4 nodes with a barrier every 64 iterations. */
static uint64_t generate(const char *anchor, uint64_t target, tsync_ctx *ctx)
{
    static const char *const nodes[NODES] = { "node0", "node1", "node2", "node3" };
    uint32_t rank_node[RANKS];
    struct tsync_otf2_build_layout layout;
    struct tsync_otf2_builder *b;
    uint64_t iters = target / (RANKS * 6) + 1, events = 0;

    for (uint32_t r = 0; r < RANKS; r++)
        rank_node[r] = r / (RANKS / NODES);
    memset(&layout, 0, sizeof(layout));
    layout.anchor = anchor;
    layout.timer_resolution = 1000000000;
    layout.n_nodes = NODES;
    layout.nodes = nodes;
    layout.n_ranks = RANKS;
    layout.rank_node = rank_node;
    if (tsync__otf2_build_open(&b, &layout, ctx))
        bench_fail("bench_otf2", ctx, "open");
    for (uint64_t i = 0; i < iters; i++) {
        for (uint32_t r = 0; r < RANKS; r++) {
            uint64_t t = 1000000 + i * 10000 + r * 7;
            uint32_t next = (r + 1) % RANKS, prev = (r + RANKS - 1) % RANKS;
            if (tsync__otf2_build_enter(b, r, t, "MPI_Send") ||
                tsync__otf2_build_send(b, r, t + 100, 0, next, 1, 64) ||
                tsync__otf2_build_leave(b, r, t + 200, "MPI_Send") ||
                tsync__otf2_build_enter(b, r, t + 300, "MPI_Recv") ||
                tsync__otf2_build_recv(b, r, t + 5000, 0, prev, 1, 64) ||
                tsync__otf2_build_leave(b, r, t + 5100, "MPI_Recv"))
                bench_fail("bench_otf2", ctx, "write");
            events += 6;
            if (i % 64 == 63) {
                if (tsync__otf2_build_coll_begin(b, r, t + 6000) ||
                    tsync__otf2_build_coll_end(b, r, t + 9000, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                               OTF2_UNDEFINED_UINT32, 0, 0))
                    bench_fail("bench_otf2", ctx, "write");
                events += 2;
            }
        }
    }
    if (tsync__otf2_build_close(b))
        bench_fail("bench_otf2", ctx, "close");
    return events;
}

/* libotf2 alone: decode every event of every location, no callbacks. */
static uint64_t plain_read(const char *anchor)
{
    OTF2_Reader *reader = OTF2_Reader_Open(anchor);
    uint64_t n_locs = 0, total = 0;
    OTF2_GlobalDefReader *gdr;
    uint64_t *locs;
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    uint64_t read = 0;
    if (!reader)
        exit(2);
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    OTF2_Reader_GetNumberOfLocations(reader, &n_locs);
    gdr = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, cb, NULL);
    OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &read);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    locs = calloc(n_locs, sizeof(*locs));
    for (uint64_t i = 0; i < n_locs; i++) {
        locs[i] = i;
        OTF2_Reader_SelectLocation(reader, i);
    }
    OTF2_Reader_OpenEvtFiles(reader);
    for (uint64_t i = 0; i < n_locs; i++) {
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(reader, locs[i]);
        uint64_t n = 0;
        OTF2_Reader_ReadAllLocalEvents(reader, er, &n);
        total += n;
        OTF2_Reader_CloseEvtReader(reader, er);
    }
    OTF2_Reader_CloseEvtFiles(reader);
    OTF2_Reader_Close(reader);
    free(locs);
    return total;
}

int main(int argc, char **argv)
{
    uint64_t target = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *dir = argc > 2 ? argv[2] : "bench-otf2";
    char anchor[4096], outdir[4096];
    tsync_ctx *ctx;
    tsync_trace *trace;
    tsync_timeline *tl;
    tsync_map_set *maps;
    uint64_t events;
    double t0, t1;

    snprintf(anchor, sizeof(anchor), "%s/in/traces.otf2", dir);
    snprintf(outdir, sizeof(outdir), "%s/out", dir);
    if (tsync_ctx_new(&ctx))
        return 2;
    {
        char cmd[8300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s/in' '%s/out'", dir, dir);
        if (system(cmd) != 0)
            return 2;
    }

    t0 = bench_now();
    events = generate(anchor, target, ctx);
    report("generate", events, bench_now() - t0, 0);

    t0 = bench_now();
    events = plain_read(anchor);
    report("libotf2-read", events, bench_now() - t0, 0);

    t0 = bench_now();
    if (tsync_trace_open(&trace, anchor, NULL, ctx))
        bench_fail("bench_otf2", ctx, "tsync_trace_open");
    t1 = bench_now();
    report("read+match", events, t1 - t0,
           (double)tsync_trace_memory(trace) / (double)tsync_trace_event_count(trace));
    printf("  messages=%llu collectives=%llu\n", (unsigned long long)tsync_trace_message_count(trace),
           (unsigned long long)tsync_trace_collective_count(trace));

    if (tsync_timeline_new(&tl, trace, ctx) || tsync_map_set_new_empty(&maps, trace, ctx))
        bench_fail("bench_otf2", ctx, "timeline");
    for (tsync_loc l = 0; l < tsync_trace_location_count(trace); l++) {
        tsync_time_map *m;
        if (tsync_time_map_new_drift(&m, 1000 * (int64_t)l, 2e-6, 0, ctx) ||
            tsync_map_set_assign(maps, l, m, ctx))
            bench_fail("bench_otf2", ctx, "map");
    }
    t0 = bench_now();
    if (tsync_map_set_apply(maps, trace, tl, ctx))
        bench_fail("bench_otf2", ctx, "apply");
    report("map-apply", events, bench_now() - t0, 0);

    t0 = bench_now();
    if (tsync_trace_write(trace, tl, outdir, ctx))
        bench_fail("bench_otf2", ctx, "write");
    report("write(copy)", events, bench_now() - t0, 0);

    tsync_map_set_free(maps);
    tsync_timeline_free(tl);
    tsync_trace_free(trace);
    tsync_ctx_free(ctx);
    return 0;
}
