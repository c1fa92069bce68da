/* formats.h - tsync_trace_open in two halves, for callers that work between them. */
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
/* The part of the trace at `path` that process `rank` of `n_ranks` holds (the MPI
 * replay, src/replay/): every definition, the events and records of the locations
 * tsync__location_holder gives it (t->held), none of the others'. Clock domains as
 * the options say (the default rule's split comes after the matching:
 * tsync__trace_split). Fails as tsync__trace_open_unmatched; a part without events
 * is no error. */
int tsync__trace_open_part(tsync_trace **out, struct tsync_match_input *match, const char *path,
                           const tsync_open_opts *opts, uint32_t rank, uint32_t n_ranks,
                           tsync_ctx *ctx);
/* tsync__trace_match: match/match.h. */

/* After the matching, the clock domains of the default rule split where the
 * messages contradict them (trace/domain_split.c), as tsync_trace_open does; red:
 * on the processes of the replay, together (tsync__split_domains). Fails as
 * tsync__split_domains does. */
int tsync__trace_split(tsync_trace *t, const tsync_open_opts *opts, const struct tsync__reducer *red,
                       tsync_ctx *ctx);

/* tsync_trace_open for the estimate alone: a format that lists messages with both
 * their times (TSYNC_CAP_MESSAGE_LISTS) gives them as message lists, without events
 * or tsync_message (trace/trace.h); other formats are read as tsync_trace_open
 * reads them. Fails as tsync_trace_open does. */
int tsync__trace_open_lists(tsync_trace **out, const char *path, const tsync_open_opts *opts,
                            tsync_ctx *ctx);

#endif
