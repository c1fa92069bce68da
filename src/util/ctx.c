/* ctx.c - the error, warning and progress context of every libtracesync call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracesync/version.h"
#include "util/ctx.h"

struct tsync_ctx {
    int code;
    char message[1024];
    tsync_log_fn log;
    void *log_payload;
    tsync_progress_fn progress;
    void *progress_payload;
    unsigned threads;           /* as set: 0 = one per processor */
    struct tsync__held *held;   /* outputs waiting for tsync_ctx_commit_outputs */
};

const char *tsync_strerror(int code)
{
    switch (code) {
    case TSYNC_OK: return "success";
    case TSYNC_EINVAL: return "invalid argument";
    case TSYNC_ENOMEM: return "out of memory";
    case TSYNC_EIO: return "input/output error";
    case TSYNC_EFORMAT: return "format error";
    case TSYNC_EUNSUPPORTED: return "unsupported input";
    case TSYNC_EINCONSISTENT: return "inconsistent data";
    default: return "unknown error";
    }
}

const char *tsync_version(void) { return TSYNC_VERSION; }

int tsync_ctx_new(tsync_ctx **out)
{
    tsync_ctx *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return TSYNC_ENOMEM;
    ctx->threads = 1;
    *out = ctx;
    return TSYNC_OK;
}

void tsync_ctx_free(tsync_ctx *ctx)
{
    if (ctx)
        tsync__held_free(ctx->held);
    free(ctx);
}

struct tsync__held **tsync__ctx_held(tsync_ctx *ctx) { return ctx ? &ctx->held : NULL; }

int tsync_ctx_error_code(const tsync_ctx *ctx) { return ctx ? ctx->code : 0; }

const char *tsync_ctx_error(const tsync_ctx *ctx) { return ctx ? ctx->message : ""; }

void tsync_ctx_set_log(tsync_ctx *ctx, tsync_log_fn fn, void *payload)
{
    ctx->log = fn;
    ctx->log_payload = payload;
}

void tsync_ctx_set_progress(tsync_ctx *ctx, tsync_progress_fn fn, void *payload)
{
    ctx->progress = fn;
    ctx->progress_payload = payload;
}

void tsync_ctx_set_threads(tsync_ctx *ctx, unsigned threads) { ctx->threads = threads; }

int tsync__progress_shown(const tsync_ctx *ctx) { return ctx && ctx->progress; }

unsigned tsync__threads(const tsync_ctx *ctx)
{
    long n;
    if (!ctx)
        return 1;
    if (ctx->threads)
        return ctx->threads;
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int tsync__fail(tsync_ctx *ctx, int code, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->message, sizeof(ctx->message), fmt, ap);
        va_end(ap);
        ctx->code = code;
    }
    return code;
}

int tsync__oom(tsync_ctx *ctx) { return tsync__fail(ctx, TSYNC_ENOMEM, "out of memory"); }

void tsync__warn(tsync_ctx *ctx, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    if (!ctx || !ctx->log)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    ctx->log(TSYNC_LOG_WARNING, buf, ctx->log_payload);
}

void tsync__progress(tsync_ctx *ctx, const char *what, uint64_t done, uint64_t total)
{
    if (ctx && ctx->progress)
        ctx->progress(what, done, total, ctx->progress_payload);
}

void tsync__clear(tsync_ctx *ctx)
{
    if (ctx) {
        ctx->code = 0;
        ctx->message[0] = '\0';
    }
}
