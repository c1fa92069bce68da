/* formats.h - the readers and writers behind tsync_trace_open and tsync_trace_write. */
#ifndef TSYNC_IO_FORMATS_H
#define TSYNC_IO_FORMATS_H

#include "trace/domain_file.h"
#include "trace/trace.h"

/* OTF2 archives (otf2_read.c, otf2_write.c). Clock domains by `rule`, or by the
 * domain file `df` when it is not NULL (the rule is then TSYNC_DOMAIN_FILE). */
int tsync__otf2_open(tsync_trace **out, const char *path, enum tsync_domain_rule rule,
                     const struct tsync__domain_file *df, tsync_ctx *ctx);
int tsync__otf2_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx);

/* CSV of messages (csv.c): every location its own clock domain, or the domains of
 * the domain file `df` when it is not NULL. */
int tsync__csv_open(tsync_trace **out, const char *path, const struct tsync__domain_file *df,
                    tsync_ctx *ctx);
int tsync__csv_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx);

#endif
