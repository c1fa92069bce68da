/* map.h (internal) - what a time map holds, for map.c, map_set.c and apply.c.
 *
 * Every map is a list of n >= 1 points plus the slope outside them:
 *   offset  one point (0, offset), slope 1 outside;
 *   drift   one point (origin, origin + offset), slope 1 + drift everywhere;
 *   points  the points as given, outside them the slope of the nearest segment
 *           as the exact fraction rise/run (1/1 for a single point).
 * The drift is kept as the exact binary fraction drift_m / 2^drift_s, so that
 * drift * (local - origin) is computed exactly in 128-bit integers.
 */
#ifndef TSYNC_TIMEMAP_MAP_H
#define TSYNC_TIMEMAP_MAP_H

#include "tracesync/timemap.h"

struct tsync_time_map {
    enum tsync_time_map_kind kind;
    size_t n;            /* points, >= 1 */
    tsync_time *local;   /* n, strictly increasing */
    tsync_time *global;  /* n, non-decreasing */
    int64_t *bounds;     /* n error bounds in ticks, or NULL */
    int64_t offset;      /* offset and drift maps */
    double drift;        /* drift maps, as given */
    int64_t drift_m;     /* drift == drift_m * 2^-drift_s exactly */
    int drift_s;
    uint64_t pre_rise, pre_run;   /* points maps: slope before the first point */
    uint64_t post_rise, post_run; /* and after the last */
    uint32_t users;      /* locations of a map set that use this map */
};

/* The public constructors that can reject their input, naming the map as `what`
 * in their error messages (e.g. "maps.json: map 2"). */
int tsync__time_map_new_drift(tsync_time_map **out, int64_t offset, double drift, tsync_time origin,
                              const char *what, tsync_ctx *ctx);
int tsync__time_map_new_points(tsync_time_map **out, const tsync_time *local,
                               const tsync_time *global, size_t n, const char *what,
                               tsync_ctx *ctx);
int tsync__time_map_set_bounds(tsync_time_map *map, const int64_t *bounds, size_t n,
                               const char *what, tsync_ctx *ctx);

#endif
