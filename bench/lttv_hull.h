/* lttv_hull.h - LTTV's convex hull synchronization of two traces, for comparison
 * (lttv_hull.c). */
#ifndef TSYNC_BENCH_LTTV_HULL_H
#define TSYNC_BENCH_LTTV_HULL_H

#include <stddef.h>

#include "trace/trace.h"

/* LTTV's approximation types (its approxNames). */
enum lttv_kind { LTTV_EXACT, LTTV_MIDDLE, LTTV_FALLBACK, LTTV_INCOMPLETE };

/* The factors LTTV finds between two clocks, second = drift first + offset, from the
 * messages of the first to the second as points (send, receive) and those back as
 * (receive, send), first clock as x. *drift and *offset are set unless the result
 * is LTTV_INCOMPLETE (one extreme line missing, or no messages one way). */
enum lttv_kind lttv_hull_factors(const struct tsync__pt *first_to_second, size_t n1,
                                 const struct tsync__pt *second_to_first, size_t n2,
                                 long double *drift, long double *offset);
const char *lttv_kind_name(enum lttv_kind k);

#endif
