/* formats.h - the readers and writers behind tsync_trace_open and tsync_trace_write. */
#ifndef TSYNC_IO_FORMATS_H
#define TSYNC_IO_FORMATS_H

#include "trace/trace.h"

/* OTF2 archives (otf2_read.c, otf2_write.c). */
int tsync__otf2_open(tsync_trace **out, const char *path, const tsync_open_opts *opts, tsync_ctx *ctx);
int tsync__otf2_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx);

/* CSV of messages (csv.c). */
int tsync__csv_open(tsync_trace **out, const char *path, const tsync_open_opts *opts, tsync_ctx *ctx);
int tsync__csv_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx);

#endif
