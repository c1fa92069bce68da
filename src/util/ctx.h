/* ctx.h - internal side of tsync_ctx: recording errors, warnings and progress. */
#ifndef TSYNC_UTIL_CTX_H
#define TSYNC_UTIL_CTX_H

#include <stdarg.h>
#include "tracesync/common.h"

#if defined(__GNUC__)
#define TSYNC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TSYNC_PRINTF(a, b)
#endif

/* Records an error in ctx (which may be NULL) and returns code, so that callers
 * can write `return tsync__fail(ctx, TSYNC_EFORMAT, "%s: ...", path);`. */
int tsync__fail(tsync_ctx *ctx, int code, const char *fmt, ...) TSYNC_PRINTF(3, 4);
/* Same, with an OOM message; returns TSYNC_ENOMEM. */
int tsync__oom(tsync_ctx *ctx);
/* Passes a warning to the caller's log callback, if any. */
void tsync__warn(tsync_ctx *ctx, const char *fmt, ...) TSYNC_PRINTF(2, 3);
/* Reports progress, if the caller asked for it. Cheap when not. */
void tsync__progress(tsync_ctx *ctx, const char *what, uint64_t done, uint64_t total);
/* 1 when the caller follows progress (tsync_ctx_set_progress), else 0. */
int tsync__progress_shown(const tsync_ctx *ctx);
/* How many threads the call may use (tsync_ctx_set_threads), at least 1; 1 when
 * ctx is NULL. */
unsigned tsync__threads(const tsync_ctx *ctx);
/* The outputs held for one commit, NULL while writes commit at once (outdir.c);
 * NULL when ctx is NULL. */
struct tsync__held;
struct tsync__held **tsync__ctx_held(tsync_ctx *ctx);
void tsync__held_free(struct tsync__held *h);
/* Clears the recorded error. */
void tsync__clear(tsync_ctx *ctx);

#endif
