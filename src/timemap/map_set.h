/* map_set.h (internal) - a trace's map set, and its JSON form for other stages. */
#ifndef TSYNC_TIMEMAP_MAP_SET_H
#define TSYNC_TIMEMAP_MAP_SET_H

#include <jansson.h>

#include "timemap/map.h"
#include "trace/trace.h"
#include "util/text.h"

struct tsync_map_set {
    uint32_t n_locations;
    struct tsync_time_map **of; /* per location; NULL = keeps its time. A map given
                                 * to several locations is shared (map->users). */
};

/* One map as a JSON object without selector: {"offset": ..} / {"offset", "drift",
 * "origin"} / {"points": [[l, g], ..]}, plus "bound" / "bounds" when it has them.
 * NULL when out of memory. */
json_t *tsync__time_map_to_json(const tsync_time_map *map);

/* The whole set in the file format of map_set.c: one map per location that has
 * one, selected by location id (and named). A new reference, or NULL with the
 * error in ctx (ENOMEM; EUNSUPPORTED for a location id beyond 2^63 - 1). */
json_t *tsync__map_set_to_json(const tsync_map_set *set, const tsync_trace *trace, tsync_ctx *ctx);

/* Whether the set can be written for the trace: 0, or the error that
 * tsync__map_set_to_json would give (in ctx). */
int tsync__map_set_writable(const tsync_map_set *set, const tsync_trace *trace, tsync_ctx *ctx);

/* Appends location loc's entry in the file format, map m, as json_dumps(entry,
 * flags) writes it with JSON_COMPACT among the flags: the points and bounds of a
 * map of points written here, not built as a tree first (10^5 points and more).
 * Out of memory marks out (out->bad). Needs tsync__map_set_writable. */
void tsync__map_entry_text(struct tsync__text *out, const tsync_trace *trace, uint32_t loc,
                           const tsync_time_map *m, size_t flags);

#endif
