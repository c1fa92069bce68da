/* fuzz_otf2_read.c - libFuzzer target: the OTF2 reader on corrupt event and
 * definition files.
 *
 * A small valid archive is written once with the archive builder; each input then
 * replaces one of its files (first byte selects which: location 0's events, location
 * 1's events, or the global definitions) and the trace is opened and matched. Any
 * outcome but a crash, a hang or a leak is fine: errors are expected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/otf2_build.h"
#include "tracesync/trace.h"

static char dir[64];
static char anchor[128];

static void build_template(void)
{
    static const char *const nodes[] = { "n0", "n1" };
    static const uint32_t rank_node[] = { 0, 1 };
    struct tsync_otf2_build_layout layout = { 0 };
    struct tsync_otf2_builder *b;
    snprintf(dir, sizeof(dir), "/tmp/tsync-fuzz-%d", (int)getpid());
    snprintf(anchor, sizeof(anchor), "%s/traces.otf2", dir);
    layout.anchor = anchor;
    layout.timer_resolution = 1000000000;
    layout.n_nodes = 2;
    layout.nodes = nodes;
    layout.n_ranks = 2;
    layout.rank_node = rank_node;
    if (tsync__otf2_build_open(&b, &layout, NULL))
        abort();
    for (uint64_t i = 0; i < 4; i++) {
        tsync__otf2_build_enter(b, 0, 100 * i + 1, "MPI_Send");
        tsync__otf2_build_send(b, 0, 100 * i + 2, 0, 1, 3, 8);
        tsync__otf2_build_leave(b, 0, 100 * i + 3, "MPI_Send");
        tsync__otf2_build_recv(b, 1, 100 * i + 50, 0, 0, 3, 8);
        tsync__otf2_build_coll_begin(b, 0, 100 * i + 60);
        tsync__otf2_build_coll_end(b, 0, 100 * i + 70, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                   OTF2_UNDEFINED_UINT32, 0, 0);
        tsync__otf2_build_coll_begin(b, 1, 100 * i + 60);
        tsync__otf2_build_coll_end(b, 1, 100 * i + 70, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                   OTF2_UNDEFINED_UINT32, 0, 0);
    }
    tsync__otf2_build_clock_offset(b, 1, 1, -5, 0.5);
    if (tsync__otf2_build_close(b))
        abort();
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size)
        fwrite(data, 1, size, f);
    fclose(f);
}

/* The template's files, read once, to restore after each input. */
static const char *const files[] = { "traces/0.evt", "traces/1.evt", "traces.def", "traces/1.def" };
static uint8_t *saved[4];
static size_t saved_size[4];

static void save_files(void)
{
    for (int i = 0; i < 4; i++) {
        char path[256];
        FILE *f;
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        if (!(f = fopen(path, "rb")))
            abort();
        saved[i] = malloc(1 << 20);
        saved_size[i] = fread(saved[i], 1, 1 << 20, f);
        fclose(f);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[256];
    tsync_ctx *ctx;
    tsync_trace *trace = NULL;
    int which;
    if (!anchor[0]) {
        build_template();
        save_files();
    }
    if (size < 1)
        return 0;
    which = data[0] % 4;
    snprintf(path, sizeof(path), "%s/%s", dir, files[which]);
    write_file(path, data + 1, size - 1);
    if (tsync_ctx_new(&ctx))
        abort();
    if (tsync_trace_open(&trace, anchor, NULL, ctx) == 0)
        tsync_trace_free(trace);
    tsync_ctx_free(ctx);
    write_file(path, saved[which], saved_size[which]);
    return 0;
}
