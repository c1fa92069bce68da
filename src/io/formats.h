/* formats.h - the readers and writers behind tsync_trace_open and tsync_trace_write. */
#ifndef TSYNC_IO_FORMATS_H
#define TSYNC_IO_FORMATS_H

#include "match/match.h"
#include "trace/domain_file.h"
#include "trace/trace.h"

/* tsync_trace_open in two halves, for a caller that works on the events while the
 * messages are matched: the first reads the trace without matching its messages
 * (*out has no messages or collectives yet; the records to match go to *match),
 * the second matches them into t and frees *match, also on failure. The first
 * fails as tsync_trace_open does, with *out unset and *match empty; the second
 * only on ENOMEM, leaving t to the caller. */
int tsync__trace_open_unmatched(tsync_trace **out, struct tsync_match_input *match,
                                const char *path, const tsync_open_opts *opts, tsync_ctx *ctx);
int tsync__trace_match(tsync_trace *t, struct tsync_match_input *match, tsync_ctx *ctx);

/* OTF2 archives (otf2_read.c, otf2_write.c). Clock domains by `rule`, or by the
 * domain file `df` when it is not NULL (the rule is then TSYNC_DOMAIN_FILE). The
 * reader leaves the messages unmatched, their records in *match. */
int tsync__otf2_open(tsync_trace **out, struct tsync_match_input *match, const char *path,
                     enum tsync_domain_rule rule, const struct tsync__domain_file *df,
                     tsync_ctx *ctx);
int tsync__otf2_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx);

/* CSV of messages (csv.c): every location its own clock domain, or the domains of
 * the domain file `df` when it is not NULL. */
int tsync__csv_open(tsync_trace **out, const char *path, const struct tsync__domain_file *df,
                    tsync_ctx *ctx);
int tsync__csv_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir, tsync_ctx *ctx);

#endif
