/* otf2.c - OTF2 archives as a trace format (io/format.h): recognized by the anchor
 * file's header, read in two passes (otf2_defs.c, otf2_events.c), written back by
 * copying every record of the input with new timestamps (otf2_write.c). */
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "io/format.h"
#include "io/otf2_guard.h"
#include "io/otf2_io.h"
#include "io/otf2_read.h"
#include "util/ctx.h"

/* An anchor file starts with its file type, its endianness (0x42 little, 0x23 big)
 * and "OTF2\0" (otf2_guard.c checks the rest). */
static int otf2_probe(const unsigned char *head, size_t n)
{
    return n >= 7 && (head[1] == 0x42 || head[1] == 0x23) && memcmp(head + 2, "OTF2", 5) == 0;
}

static void otf2_close(void *r)
{
    struct tsync_otf2_read *st = r;
    if (!st)
        return;
    if (st->reader)
        OTF2_Reader_Close(st->reader);
    tsync__otf2_read_defs_free(st);
    free(st->path);
    free(st);
}

static int otf2_open(void **out, const char *path, tsync_ctx *ctx)
{
    struct tsync_otf2_read *st;
    int rc = tsync__otf2_check_anchor(path, ctx);
    if (!rc)
        rc = tsync__otf2_guard_anchor(path, ctx);
    if (rc)
        return rc;
    if (!(st = calloc(1, sizeof(*st))) || !(st->path = strdup(path))) {
        free(st);
        return tsync__oom(ctx);
    }
    OTF2_Error_RegisterCallback(tsync__otf2_quiet_errors, NULL);
    if (!(st->reader = OTF2_Reader_Open(path))) {
        otf2_close(st);
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s: not a readable OTF2 anchor file", path);
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(st->reader);
    OTF2_Reader_GetChunkSize(st->reader, &st->chunk_evt, &st->chunk_def);
    *out = st;
    return TSYNC_OK;
}

const struct tsync__format tsync__otf2_format = {
    .name = "otf2",
    .what = "an OTF2 anchor file",
    .suffix = ".otf2",
    .caps = TSYNC_CAP_MESSAGES | TSYNC_CAP_OFFSETS | TSYNC_CAP_NODES | TSYNC_CAP_COLLECTIVES,
    .shape = TSYNC_FORMAT_OTF2,
    .probe = otf2_probe,
    .open = otf2_open,
    .definitions = tsync__otf2_read_definitions,
    .events = tsync__otf2_read_events,
    .close = otf2_close,
    .write = tsync__otf2_write,
};
