/* presync.c - pre-synchronization before the controlled logical clock: linear
 * offset interpolation between a location's ClockOffset records (seed 002,
 * section 5.1: Scalasca's CLC starts from times corrected this way).
 *
 * A ClockOffset record (time, offset) says global = local + offset at local time
 * `time` (Score-P's convention, as libotf2 applies it). A location's records
 * become the points (time, time + offset) of a time map (src/timemap): linear
 * between the records, the slope of the nearest pair outside them, slope 1 (a
 * constant offset) for a single record. Records with equal times and offsets are
 * one record; equal times with different offsets contradict each other.
 */
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"
#include "clc/clc_api.h"
#include "timemap/map.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"

/* By location, then time; the sort is not stable, so offsets break ties. */
static int offset_cmp(const void *pa, const void *pb)
{
    const struct tsync_clock_offset *a = pa, *b = pb;
    if (a->loc != b->loc)
        return a->loc < b->loc ? -1 : 1;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Builds the map of one location from its records r[0..n) (sorted) into *out.
 * local and global are scratch arrays of n entries. */
static int location_map(tsync_time_map **out, const struct tsync_trace *t,
                        const struct tsync_clock_offset *r, size_t n, tsync_time *local,
                        tsync_time *global, tsync_ctx *ctx)
{
    const struct tsync_location *loc = &t->locations[r[0].loc];
    size_t k = 0;
    char *what;
    int rc;
    for (size_t i = 0; i < n; i++) {
        if (k && r[i].time == local[k - 1]) {
            if (r[i].time + r[i].offset == global[k - 1])
                continue;               /* the same record twice */
            return tsync__fail(ctx, TSYNC_EINCONSISTENT, "%s: location %llu (%s): two ClockOffset "
                               "records at time %lld with offsets %lld and %lld (use --no-presync "
                               "to ignore them)", t->path, (unsigned long long)loc->ref,
                               loc->name ? loc->name : "", (long long)r[i].time,
                               (long long)(global[k - 1] - local[k - 1]), (long long)r[i].offset);
        }
        if (r[i].time > CLC_TIME_MAX || r[i].time < -CLC_TIME_MAX ||
            r[i].offset > CLC_TIME_MAX || r[i].offset < -CLC_TIME_MAX)
            return tsync__fail(ctx, TSYNC_EUNSUPPORTED, "%s: location %llu (%s): ClockOffset "
                               "record at time %lld with offset %lld is out of range", t->path,
                               (unsigned long long)loc->ref, loc->name ? loc->name : "",
                               (long long)r[i].time, (long long)r[i].offset);
        local[k] = r[i].time;
        global[k++] = r[i].time + r[i].offset;
    }
    what = tsync__strfmt("%s: location %llu (%s): ClockOffset records", t->path,
                         (unsigned long long)loc->ref, loc->name ? loc->name : "");
    if (!what)
        return tsync__oom(ctx);
    rc = tsync__time_map_new_points(out, local, global, k, what, ctx);
    free(what);
    /* A negative slope: the offset falls faster than time passes. */
    return rc == TSYNC_EINVAL ? TSYNC_EINCONSISTENT : rc;
}

int tsync__clc_presync_maps(tsync_time_map ***out, uint32_t *n_mapped, const struct tsync_trace *t,
                           tsync_ctx *ctx)
{
    struct tsync_clock_offset *r = NULL;
    tsync_time_map **maps = NULL;
    tsync_time *local = NULL, *global = NULL;
    size_t n = t->n_offsets;
    uint32_t mapped = 0;
    int rc = TSYNC_OK;

    *out = NULL;
    *n_mapped = 0;
    if (n == 0)
        return TSYNC_OK;
    r = malloc(n * sizeof(*r));
    local = malloc(n * sizeof(*local));
    global = malloc(n * sizeof(*global));
    maps = calloc(t->n_locations ? t->n_locations : 1, sizeof(*maps));
    if (!r || !local || !global || !maps) {
        rc = tsync__oom(ctx);
        goto out;
    }
    memcpy(r, t->offsets, n * sizeof(*r));
    qsort(r, n, sizeof(*r), offset_cmp);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && r[j].loc == r[i].loc; j++)
            ;
        if (r[i].loc >= t->n_locations) {
            rc = tsync__fail(ctx, TSYNC_EINVAL, "%s: a ClockOffset record names location %u of %u",
                             t->path, r[i].loc, t->n_locations);
            goto out;
        }
        if (t->held && !t->held[r[i].loc])
            continue;       /* another process of a replay maps it */
        if ((rc = location_map(&maps[r[i].loc], t, r + i, j - i, local, global, ctx)))
            goto out;
        mapped++;
    }
    *out = maps;
    *n_mapped = mapped;
    maps = NULL;
out:
    tsync__clc_presync_free(maps, t->n_locations);
    free(r);
    free(local);
    free(global);
    return rc;
}

void tsync__clc_presync_free(tsync_time_map **maps, uint32_t n_locations)
{
    if (!maps)
        return;
    for (uint32_t l = 0; l < n_locations; l++)
        tsync_time_map_free(maps[l]);
    free(maps);
}

int tsync_clc_presync(uint32_t *out_locations, uint64_t *out_records, const tsync_trace *t,
                      tsync_timeline *tl, tsync_ctx *ctx)
{
    tsync_time_map **maps;
    uint32_t mapped;
    int rc;

    if (!t || !tl || tl->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: pre-synchronization: the timeline does not "
                           "belong to the trace");
    /* Every map first, so that a bad location leaves the timeline untouched. */
    if ((rc = tsync__clc_presync_maps(&maps, &mapped, t, ctx)))
        return rc;
    for (tsync_loc l = 0; maps && l < t->n_locations; l++)
        if (maps[l])
            tsync_time_map_eval_array(maps[l], tl->time[l], tl->time[l],
                                      (size_t)t->locations[l].n_events);
    tsync__clc_presync_free(maps, t->n_locations);
    if (out_locations)
        *out_locations = mapped;
    if (out_records)
        *out_records = mapped ? t->n_offsets : 0;
    return TSYNC_OK;
}

int tsync__clc_presync_new(tsync_timeline **out, uint32_t *out_locations, uint64_t *out_records,
                           const tsync_trace *t, const tsync_timeline *src, tsync_ctx *ctx)
{
    tsync_time_map **maps;
    tsync_timeline *tl = NULL;
    uint32_t mapped;
    int rc;

    *out = NULL;
    *out_locations = 0;
    *out_records = 0;
    if (!t || !src || src->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: pre-synchronization: the timeline does not "
                           "belong to the trace");
    if ((rc = tsync__clc_presync_maps(&maps, &mapped, t, ctx)) || !maps)
        return rc;
    if (!(tl = calloc(1, sizeof(*tl))) ||
        !(tl->time = calloc(t->n_locations ? t->n_locations : 1, sizeof(*tl->time)))) {
        free(tl);
        tl = NULL;
        rc = tsync__oom(ctx);
        goto out;
    }
    tl->n_locations = t->n_locations;
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        size_t n = (size_t)t->locations[l].n_events;
        if (!(tl->time[l] = tsync__alloc_array(n, sizeof(tsync_time)))) {
            rc = tsync__oom(ctx);
            goto out;
        }
        if (maps[l])
            tsync_time_map_eval_array(maps[l], src->time[l], tl->time[l], n);
        else if (n)
            memcpy(tl->time[l], src->time[l], n * sizeof(tsync_time));
    }
    *out = tl;
    *out_locations = mapped;
    *out_records = t->n_offsets;
    tl = NULL;
out:
    tsync_timeline_free(tl);
    tsync__clc_presync_free(maps, t->n_locations);
    return rc;
}
