/* fuzz_maps.c - libFuzzer target: the time map JSON loader on any bytes.
 * The trace is a small one built in memory; every input is a maps file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "timemap/map_set.h"
#include "trace/trace.h"
#include "tracesync/timemap.h"

static struct tsync_trace *trace;
static char path[64];

static void make_trace(void)
{
    trace = tsync__trace_alloc("fuzz.otf2");
    trace->timer_resolution = 1000000000;
    trace->n_locations = 2;
    trace->locations = calloc(2, sizeof(*trace->locations));
    trace->n_nodes = trace->n_domains = 1;
    trace->nodes = calloc(1, sizeof(*trace->nodes));
    trace->domains = calloc(1, sizeof(*trace->domains));
    trace->nodes[0].name = strdup("n0");
    trace->domains[0].name = strdup("n0");
    for (uint32_t i = 0; i < 2; i++) {
        struct tsync_location *l = &trace->locations[i];
        l->ref = i * 536870911u;
        l->name = strdup("loc");
        l->n_events = 3;
        l->time = malloc(3 * sizeof(*l->time));
        l->kind = calloc(3, 1);
        for (int k = 0; k < 3; k++)
            l->time[k] = 1000 * k;
    }
    snprintf(path, sizeof(path), "/tmp/tsync-fuzz-maps-%d.json", (int)getpid());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f;
    tsync_ctx *ctx;
    tsync_map_set *set = NULL;
    tsync_timeline *tl = NULL;
    if (!trace)
        make_trace();
    if (!(f = fopen(path, "wb")))
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    if (tsync_ctx_new(&ctx))
        abort();
    if (tsync_map_set_load(&set, path, trace, ctx) == 0 && tsync_timeline_new(&tl, trace, ctx) == 0)
        tsync_map_set_apply(set, trace, tl, ctx);
    tsync_timeline_free(tl);
    tsync_map_set_free(set);
    tsync_ctx_free(ctx);
    return 0;
}
