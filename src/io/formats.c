/* formats.c - which reader and writer a trace needs, by its file name:
 * ".otf2" is an OTF2 anchor file, ".csv" a CSV of messages. */
#include <string.h>

#include "io/formats.h"
#include "util/ctx.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int tsync_trace_open(tsync_trace **out, const char *path, const tsync_open_opts *opts, tsync_ctx *ctx)
{
    tsync__clear(ctx);
    if (ends_with(path, ".csv"))
        return tsync__csv_open(out, path, opts, ctx);
    return tsync__otf2_open(out, path, opts, ctx);
}

int tsync_trace_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx)
{
    if (tl->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: the timeline does not belong to this trace",
                           t->path);
    if (t->format == TSYNC_FORMAT_CSV)
        return tsync__csv_write(t, tl, outdir, ctx);
    return tsync__otf2_write(t, tl, outdir, ctx);
}
