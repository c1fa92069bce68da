/* stamp.h (internal) - seed 001 timestamps: 51 bits of clock ticks and 13 bits of
 * event counter, the counter in the low bits; and the distorted clocks of the test
 * mode. MPI-free, so that unit tests drive it directly. */
#ifndef TSYNC_COLLECT_STAMP_H
#define TSYNC_COLLECT_STAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "tracesync/collect_core.h"

#define TSC_EVENT_BITS 13
#define TSC_TICK_BITS 51
#define TSC_COUNTER_MASK ((UINT64_C(1) << TSC_EVENT_BITS) - 1)
/* Ticks of the timer per second (clock_gettime: 1 ns). */
#define TSC_TICKS_PER_S UINT64_C(1000000000)
/* Global ticks per local tick (nominal), > 1 so that distinct local ticks stay
 * distinct after the correction (seed 001: global ticks larger than local ones). */
#define TSC_GLOBAL_TICKS_PER_TICK 2

struct tsc_clock {
    clockid_t id;
    uint64_t origin_ns;      /* local reading of tick 0 (the start of the run) */
    bool started;            /* a stamp was given */
    uint64_t last_tick;
    uint32_t counter;        /* of the last stamp */
    uint32_t max_counter;    /* most events seen on one tick, minus 1 */
    uint64_t overflows;      /* counter overflows carried into the tick */
    bool test;               /* distorted clock, truth recorded */
    struct tsc_test_clock distort;
    uint64_t true_origin_ns; /* true reading at init: t = 0 of the distortion */
};

/* Reads the timer (ns), undistorted. */
static inline uint64_t tsc_clock_read(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * TSC_TICKS_PER_S + (uint64_t)ts.tv_nsec;
}
/* Starts the clock: tick 0 is the local reading at true time true_origin_ns (a
 * tsc_clock_read). distort: the test mode's clock, or NULL. */
void tsc_clock_init(struct tsc_clock *c, clockid_t id, const struct tsc_test_clock *distort,
                    uint64_t true_origin_ns);

/* The distorted reading (ns) at true time true_ns (Eq. in config.h). */
uint64_t tsc_clock_distort(const struct tsc_clock *c, uint64_t true_ns);

/* The local clock now in ns (distorted in test mode); *truth the true reading
 * (the same without test mode). */
static inline uint64_t tsc_clock_now(const struct tsc_clock *c, uint64_t *truth)
{
    uint64_t ns = tsc_clock_read(c->id);
    *truth = ns;
    return c->test ? tsc_clock_distort(c, ns) : ns;
}

/* The stamp of an event read at local_ns (seed 001): tick = ns since the start,
 * counter = events before it on the same tick; a reading at or before the last
 * tick counts on the last tick, and the 8192nd event on one tick moves to the
 * next. Stamps strictly increase. */
uint64_t tsc_stamp(struct tsc_clock *c, uint64_t local_ns);

static inline uint64_t tsc_stamp_tick(uint64_t stamp) { return stamp >> TSC_EVENT_BITS; }

/* The global map of seed 001: master ticks = the clock correction of the local
 * tick (seed 000: the line a x tick + b with the start and end sessions only, the
 * monotone C1 spline through the sessions' (local, master) pairs with mid-run
 * ones), scaled so that the master's run lasts what its wall clock measured, in
 * global ticks of 1 / TSC_GLOBAL_TICKS_PER_TICK local ticks, from origin. */
struct tsc_global_map {
    double a, b;        /* local tick -> master tick, when n == 0 */
    size_t n;           /* knots of the spline (timemap/spline.h), or 0: the line */
    const double *x, *y, *d; /* local and master ticks of the knots, slopes there */
    double scale;       /* master wall seconds per master timer second */
    double origin;      /* global ticks subtracted (the run's first event) */
};

/* The global stamp of a local one: global tick in the high bits, the event counter
 * kept. Strictly increasing in the local stamp when the correction's slope x scale
 * >= 1 / 2 (enforced by tsc_global_map_check). */
uint64_t tsc_global_stamp(const struct tsc_global_map *m, uint64_t stamp);
/* The global tick (unrounded) of a local tick. */
double tsc_global_tick(const struct tsc_global_map *m, double tick);
/* The smallest slope of the correction that keeps stamps unique and ordered. */
double tsc_global_min_slope(const struct tsc_global_map *m);
/* Whether the map keeps stamps unique and ordered: finite, and the line's slope at
 * least tsc_global_min_slope; a spline must have been built for that slope
 * (spline.h: it holds between the knots), checked at its knots. */
bool tsc_global_map_check(const struct tsc_global_map *m);

#endif
