/* apply.c - applying a map set: every event's raw time through its location's map.
 *
 * This runs once per event of the trace (10^7 and more), so each location's
 * times go through tsync_time_map_eval_array, which walks the map's segments
 * forward along the (non-decreasing) raw times instead of searching per event.
 * A second pass checks that no time left the int64 range (evaluation saturates)
 * and that no location's corrected time goes back where its raw time did not:
 * maps are monotone by construction, so a failure there is a bug.
 */
#include <stdint.h>
#include <string.h>

#include "timemap/map_set.h"
#include "util/ctx.h"

/* Reports progress about every this many events. */
#define PROGRESS_STEP (1u << 22)

int tsync_map_set_apply(const tsync_map_set *set, const tsync_trace *t, tsync_timeline *tl,
                        tsync_ctx *ctx)
{
    uint64_t total = tsync_trace_event_count(t), done = 0, reported = 0;
    if (set->n_locations != t->n_locations || tl->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL,
                           "%s: map set (%u locations), trace (%u) and timeline (%u) do not belong "
                           "together", t->path, set->n_locations, t->n_locations, tl->n_locations);
    tsync__progress(ctx, "applying time maps", 0, total);
    for (uint32_t i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        const tsync_time *raw = l->time;
        tsync_time *out = tl->time[i];
        size_t n = (size_t)l->n_events;
        if (n == 0 || (t->held && !t->held[i]))  /* another process of the replay's */
            continue;
        if (!set->of[i]) {
            memcpy(out, raw, n * sizeof(*out));
        } else {
            tsync_time_map_eval_array(set->of[i], raw, out, n);
            for (size_t j = 0; j < n; j++) {
                /* Evaluation saturates at the int64 limits: such a time is not a time. */
                if (out[j] == INT64_MAX || out[j] == INT64_MIN)
                    return tsync__fail(ctx, TSYNC_EINVAL,
                                       "%s: location %llu (%s): event %zu: raw time %lld maps "
                                       "outside the 64-bit time range (the map's offset or slope "
                                       "is too large for this trace)", t->path,
                                       (unsigned long long)l->ref, l->name ? l->name : "", j,
                                       (long long)raw[j]);
                if (j > 0 && out[j] < out[j - 1] && raw[j] >= raw[j - 1])
                    return tsync__fail(ctx, TSYNC_EINCONSISTENT,
                                       "%s: location %llu (%s): event %zu: mapped time %lld is "
                                       "before %lld of event %zu although its raw time %lld is "
                                       "not before %lld (the time map is not monotone: a bug)",
                                       t->path, (unsigned long long)l->ref, l->name ? l->name : "",
                                       j, (long long)out[j], (long long)out[j - 1], j - 1,
                                       (long long)raw[j], (long long)raw[j - 1]);
            }
        }
        done += n;
        if (done - reported >= PROGRESS_STEP) {
            tsync__progress(ctx, "applying time maps", done, total);
            reported = done;
        }
    }
    tsync__progress(ctx, "applying time maps", total, total);
    return TSYNC_OK;
}
