/* bench_util.h - what every benchmark needs: a monotonic clock and a fatal error
 * that prints the context's message. */
#ifndef TSYNC_BENCH_UTIL_H
#define TSYNC_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracesync/common.h"

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The start of a stage's line on an OTF2 trace, without its end of line:
 * "stage=STAGE fmt=otf2 events=N seconds=S events/s=R [bytes/event=B]" (bytes per
 * event left out when not positive). */
static inline void bench_report_otf2(const char *stage, uint64_t events, double seconds,
                                     double bytes_per_event)
{
    printf("stage=%-16s fmt=otf2 events=%llu seconds=%.3f events/s=%.3g", stage,
           (unsigned long long)events, seconds, (double)events / seconds);
    if (bytes_per_event > 0)
        printf(" bytes/event=%.1f", bytes_per_event);
}

/* The tracesync executable beside the benchmarks' directory: ../tracesync next to
 * argv0, into out[0, size). */
static inline void bench_default_tracesync(const char *argv0, char *out, size_t size)
{
    const char *slash = strrchr(argv0, '/');
    if (slash)
        snprintf(out, size, "%.*s/../tracesync", (int)(slash - argv0), argv0);
    else
        snprintf(out, size, "../tracesync");
}

/* "PROGRAM: WHAT: the context's error", exit 2. */
static inline _Noreturn void bench_fail(const char *program, tsync_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", program, what, tsync_ctx_error(ctx));
    exit(2);
}

#endif
