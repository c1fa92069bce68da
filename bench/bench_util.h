/* bench_util.h - what every benchmark needs: a monotonic clock and a fatal error
 * that prints the context's message. */
#ifndef TSYNC_BENCH_UTIL_H
#define TSYNC_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tracesync/common.h"

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "PROGRAM: WHAT: the context's error", exit 2. */
static inline _Noreturn void bench_fail(const char *program, tsync_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", program, what, tsync_ctx_error(ctx));
    exit(2);
}

#endif
