/* timemap.h - time maps: from a location's local clock ticks to reference ticks.
 *
 * A tsync_time_map is a monotone piecewise-linear function given by points
 * (local_i, global_i), local strictly increasing and global non-decreasing, plus
 * the slope used before the first and after the last point. Three kinds exist:
 *
 *   offset   global = local + offset
 *   drift    global = local + offset + drift * (local - origin), drift > -1
 *   points   linear between the points; outside them the slope of the nearest
 *            segment (slope 1 when there is only one point)
 *
 * Evaluation is exact integer arithmetic: the deviation from the nearest point
 * to the left (to the right before the first point, the origin for drift maps)
 * is computed exactly and rounded half away from zero; results beyond the int64
 * range saturate. A drift is used as the exact binary value of its double, so
 * drift maps are exact and monotone too. Every map is monotone: evaluating a
 * non-decreasing sequence gives a non-decreasing sequence.
 *
 * A tsync_map_set assigns at most one map to each location of a trace; the
 * locations without one keep their time. Map sets are read from and written to
 * JSON files in the format described in docs/maps.md.
 */
#ifndef TRACESYNC_TIMEMAP_H
#define TRACESYNC_TIMEMAP_H

#include "tracesync/common.h"
#include "tracesync/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsync_time_map tsync_time_map;
typedef struct tsync_map_set tsync_map_set;

/** How a map was given; decides how it is written to JSON. */
enum tsync_time_map_kind {
    TSYNC_MAP_OFFSET = 0, /* global = local + offset */
    TSYNC_MAP_DRIFT = 1,  /* global = local + offset + drift * (local - origin) */
    TSYNC_MAP_POINTS = 2  /* points joined linearly */
};

/** A constant offset in ticks. @return 0 or TSYNC_ENOMEM. */
TSYNC_API int tsync_time_map_new_offset(tsync_time_map **out, int64_t offset, tsync_ctx *ctx);

/**
 * Offset and drift around an origin: global = local + offset + drift * (local - origin).
 * `drift` is dimensionless (12e-6 = the local clock is 12 ppm slow).
 * @return 0, TSYNC_EINVAL (drift <= -1, not finite or >= 1e9; origin + offset beyond
 *         the int64 range) or TSYNC_ENOMEM.
 */
TSYNC_API int tsync_time_map_new_drift(tsync_time_map **out, int64_t offset, double drift,
                                       tsync_time origin, tsync_ctx *ctx);

/**
 * Points joined linearly: `n` >= 1 pairs (local[i], global[i]), copied. Outside the
 * points the slope of the nearest segment continues; a single point means slope 1.
 * @return 0, TSYNC_EINVAL (no points, local not strictly increasing, or a negative
 *         slope; the message names the point) or TSYNC_ENOMEM.
 */
TSYNC_API int tsync_time_map_new_points(tsync_time_map **out, const tsync_time *local,
                                        const tsync_time *global, size_t n, tsync_ctx *ctx);

/** A copy of a map, bounds included. @return 0 or TSYNC_ENOMEM. */
TSYNC_API int tsync_time_map_clone(tsync_time_map **out, const tsync_time_map *map, tsync_ctx *ctx);

/** Frees a map; NULL is fine. Never free a map that was given to a map set. */
TSYNC_API void tsync_time_map_free(tsync_time_map *map);

/**
 * Sets an error bound in ticks for each point (`n` must be the point count, each
 * bound >= 0), replacing any earlier ones; copied. Maps start without bounds.
 * @return 0, TSYNC_EINVAL or TSYNC_ENOMEM.
 */
TSYNC_API int tsync_time_map_set_bounds(tsync_time_map *map, const int64_t *bounds, size_t n,
                                        tsync_ctx *ctx);

/** The reference time of local time `local`. */
TSYNC_API tsync_time tsync_time_map_eval(const tsync_time_map *map, tsync_time local);

/**
 * Evaluates `n` times at once: global[i] = map(local[i]); `global` may be `local`.
 * Walks the segments forward, so a non-decreasing input costs O(n + points);
 * any order gives the right answer.
 */
TSYNC_API void tsync_time_map_eval_array(const tsync_time_map *map, const tsync_time *local,
                                         tsync_time *global, size_t n);

TSYNC_API enum tsync_time_map_kind tsync_time_map_kind(const tsync_time_map *map);
/** Offset and drift maps: their offset, drift (0 for offset maps) and origin
 *  (0 for offset maps). Points maps: 0, 0.0 and 0. */
TSYNC_API int64_t tsync_time_map_offset(const tsync_time_map *map);
TSYNC_API double tsync_time_map_drift(const tsync_time_map *map);
TSYNC_API tsync_time tsync_time_map_origin(const tsync_time_map *map);
/** The map's points. Offset and drift maps have one: (origin, origin + offset). */
TSYNC_API size_t tsync_time_map_point_count(const tsync_time_map *map);
TSYNC_API const tsync_time *tsync_time_map_local(const tsync_time_map *map);
TSYNC_API const tsync_time *tsync_time_map_global(const tsync_time_map *map);
/** One error bound per point, or NULL when the map has none. */
TSYNC_API const int64_t *tsync_time_map_bounds(const tsync_time_map *map);

/**
 * Reads a map set for `trace` from a JSON file (format in docs/maps.md).
 * Every error message names the file and the map, e.g.
 * "maps.json: map 2: location 77 is not in the trace (ids: 0, 1, 2, 3)".
 * @return 0, TSYNC_EIO (cannot read), TSYNC_EFORMAT (JSON syntax, with line and
 *         column; wrong structure), TSYNC_EUNSUPPORTED (newer version),
 *         TSYNC_EINVAL (does not fit the trace: unknown location or domain,
 *         location named twice, other timer resolution, non-monotone map) or
 *         TSYNC_ENOMEM; *out is set only on success.
 */
TSYNC_API int tsync_map_set_load(tsync_map_set **out, const char *path, const tsync_trace *trace,
                                 tsync_ctx *ctx);

/** A set without maps (every location keeps its time), for stages that build maps. */
TSYNC_API int tsync_map_set_new_empty(tsync_map_set **out, const tsync_trace *trace,
                                      tsync_ctx *ctx);

/** Frees a set and every map it holds; NULL is fine. */
TSYNC_API void tsync_map_set_free(tsync_map_set *set);

/**
 * Gives location `loc` the map `map_taken`, replacing its earlier map. The set
 * takes the map over, even when this fails; one map may be given to several
 * locations of the same set (it is freed with the last of them).
 * @return 0, or TSYNC_EINVAL (loc out of range, map NULL).
 */
TSYNC_API int tsync_map_set_assign(tsync_map_set *set, tsync_loc loc, tsync_time_map *map_taken,
                                   tsync_ctx *ctx);

/** The map of a location, or NULL when it keeps its time. Borrowed. */
TSYNC_API const tsync_time_map *tsync_map_set_get(const tsync_map_set *set, tsync_loc loc);

/**
 * Writes the set as JSON, one map per location that has one, selected by
 * location id, as every output is (tsync_write_text_output: complete or not at
 * all, held with the others while ctx holds outputs; its directory is made).
 * @return 0, TSYNC_EIO (nothing left behind) or TSYNC_ENOMEM.
 */
TSYNC_API int tsync_map_set_save(const tsync_map_set *set, const tsync_trace *trace,
                                 const char *path, tsync_ctx *ctx);

/**
 * Replaces every event's time in `timeline` by map(raw time), raw times taken
 * from the trace; locations without a map get their raw times. Then checks that
 * each location's new times do not go back where the raw ones did not.
 * @return 0, TSYNC_EINVAL (set, trace and timeline do not belong together) or
 *         TSYNC_EINCONSISTENT (a map is not monotone: a bug; names location and event).
 */
TSYNC_API int tsync_map_set_apply(const tsync_map_set *set, const tsync_trace *trace,
                                  tsync_timeline *timeline, tsync_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
