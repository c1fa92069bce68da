/* map.c - time maps: construction, validation and exact monotone evaluation.
 *
 * Arithmetic. Ticks are int64, but differences of two ticks need 64 unsigned bits
 * and a rise times a run needs 128, so segments are evaluated in unsigned
 * __int128 (with a 64-bit fast path when the product fits). The deviation from the
 * anchor point, rise * dx / run, is rounded half away from zero. Within a segment
 * that deviation lies between 0 and the segment's rise, so interior results never
 * overflow; extrapolated and offset results saturate at the int64 limits.
 *
 * Monotonicity. Rounding half away from zero is a non-decreasing function, so
 * anchor + round(slope * (x - anchor)) is non-decreasing in x for every slope
 * >= 0; consecutive pieces meet exactly at their shared point. For a drift map,
 * x + round(drift * (x - origin)) is non-decreasing for every drift > -1 when the
 * product is exact (a rounding error could undo the +1 of a step in x when drift
 * is negative); hence drift is used as the exact fraction drift_m / 2^drift_s.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timemap/map.h"
#include "util/ctx.h"
#include "util/str.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* Drift is accepted in (-1, DRIFT_MAX): below 2^30, so drift_s >= 23 and
 * drift_m * (x - origin) (< 2^53 * 2^64) fits in an i128. */
#define DRIFT_MAX 1e9

static tsync_time saturate(i128 v)
{
    if (v > INT64_MAX)
        return INT64_MAX;
    if (v < INT64_MIN)
        return INT64_MIN;
    return (tsync_time)v;
}

/* b - a for a <= b, as the unsigned 64-bit number it always fits in. */
static uint64_t udiff(int64_t a, int64_t b) { return (uint64_t)b - (uint64_t)a; }

/* round(rise * dx / run), half away from zero, for non-negative operands; may
 * exceed 64 bits (only when extrapolating). */
static u128 scale(uint64_t rise, uint64_t dx, uint64_t run)
{
    uint64_t p64, d = rise > run ? rise - run : run - rise;
    u128 p, q, r;
    if (rise == run)
        return dx;
    if (!__builtin_mul_overflow(rise, dx, &p64)) {
        uint64_t q64 = p64 / run, r64 = p64 % run;
        return (u128)q64 + (r64 >= run - r64);
    }
    /* A slope near 1 (clock offsets that drift a little): rise * dx = run * dx +-
     * d * dx, so with d * dx = run * q + r the result is dx + q + [2r >= run], or
     * dx - q - [2r > run] when rise < run, in 64 bits (no 128-bit division). */
    if (!__builtin_mul_overflow(d, dx, &p64)) {
        uint64_t q64 = p64 / run, r64 = p64 % run;
        if (rise > run)
            return (u128)dx + q64 + (r64 >= run - r64);
        return (u128)(dx - q64 - (r64 > run - r64));
    }
    p = (u128)rise * dx;
    q = p / run;
    r = p % run;
    return q + (r >= run - r);
}

/* Value between point k-1 and point k (0 < k < n, local[k-1] <= x < local[k]). */
static tsync_time eval_interior(const struct tsync_time_map *m, size_t k, tsync_time x)
{
    uint64_t run = udiff(m->local[k - 1], m->local[k]);
    uint64_t rise = udiff(m->global[k - 1], m->global[k]);
    uint64_t dev = (uint64_t)scale(rise, udiff(m->local[k - 1], x), run); /* <= rise */
    return (tsync_time)((uint64_t)m->global[k - 1] + dev);
}

/* Adds a deviation of `mag` in direction `sign` to `base`, saturating. */
static tsync_time add_dev(tsync_time base, u128 mag, int negative)
{
    /* Anything beyond 2^64 saturates whatever the base; clamp to keep i128 safe. */
    const u128 cap = (u128)1 << 64;
    i128 d = (i128)(mag > cap ? cap : mag);
    return saturate(negative ? (i128)base - d : (i128)base + d);
}

static tsync_time eval_drift(const struct tsync_time_map *m, tsync_time x)
{
    i128 dx = (i128)x - m->local[0];
    i128 p = (i128)m->drift_m * dx, dev = 0;
    int s = m->drift_s;
    /* |p| < 2^117, so for s >= 118, |p| / 2^s < 1/2 rounds to 0. */
    if (p != 0 && s < 118) {
        u128 mag = p < 0 ? (u128)(-p) : (u128)p;
        u128 q = s > 0 ? (mag + ((u128)1 << (s - 1))) >> s : mag;
        dev = p < 0 ? -(i128)q : (i128)q;
    }
    return saturate((i128)x + m->offset + dev);
}

/* Value of a points map at x, where k is the number of points with local <= x. */
static tsync_time eval_points(const struct tsync_time_map *m, size_t k, tsync_time x)
{
    if (k == 0)
        return add_dev(m->global[0], scale(m->pre_rise, udiff(x, m->local[0]), m->pre_run), 1);
    if (k == m->n)
        return add_dev(m->global[k - 1],
                       scale(m->post_rise, udiff(m->local[k - 1], x), m->post_run), 0);
    return eval_interior(m, k, x);
}

/* Number of points with local <= x. */
static size_t upper_bound(const struct tsync_time_map *m, tsync_time x)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->local[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

tsync_time tsync_time_map_eval(const tsync_time_map *m, tsync_time x)
{
    switch (m->kind) {
    case TSYNC_MAP_OFFSET:
        return saturate((i128)x + m->offset);
    case TSYNC_MAP_DRIFT:
        return eval_drift(m, x);
    case TSYNC_MAP_POINTS:
    default:
        return eval_points(m, upper_bound(m, x), x);
    }
}

/* One interior segment for evaluating many times without a division each: the
 * double estimate of rise * dx / run is off by less than one when results stay
 * below 2^50, and the remainder of the estimate, computed modulo 2^64, is then
 * the true one (|r| < 2 run < 2^63), so a step or two makes quotient and
 * remainder exact: the same results as scale(). */
struct segment {
    tsync_time x0, y0;
    uint64_t rise, run;
    double ratio;
};

/* Sets s to the segment before point k (0 < k < n); 0 when its values are too
 * large for the estimate. */
static int segment_init(struct segment *s, const struct tsync_time_map *m, size_t k)
{
    s->x0 = m->local[k - 1];
    s->y0 = m->global[k - 1];
    s->run = udiff(m->local[k - 1], m->local[k]);
    s->rise = udiff(m->global[k - 1], m->global[k]);
    s->ratio = (double)s->rise / (double)s->run;
    return s->rise < ((uint64_t)1 << 50) && s->run < ((uint64_t)1 << 62);
}

static tsync_time segment_eval(const struct segment *s, tsync_time x)
{
    uint64_t dx = udiff(s->x0, x);
    uint64_t q = (uint64_t)((double)dx * s->ratio);
    uint64_t r = s->rise * dx - q * s->run; /* modulo 2^64 */
    while (r >> 63) {                       /* negative: q was too large */
        q--;
        r += s->run;
    }
    while (r >= s->run) {
        q++;
        r -= s->run;
    }
    return (tsync_time)((uint64_t)s->y0 + q + (r >= s->run - r));
}

void tsync_time_map_eval_array(const tsync_time_map *m, const tsync_time *in, tsync_time *out,
                               size_t count)
{
    struct segment seg;
    size_t i, k = 0, seg_k = 0; /* seg is the segment before point seg_k */
    int fast = 0;
    switch (m->kind) {
    case TSYNC_MAP_OFFSET:
        for (i = 0; i < count; i++)
            out[i] = saturate((i128)in[i] + m->offset);
        return;
    case TSYNC_MAP_DRIFT:
        for (i = 0; i < count; i++)
            out[i] = eval_drift(m, in[i]);
        return;
    case TSYNC_MAP_POINTS:
    default:
        break;
    }
    /* k counts the points at or before the current time; it only moves forward
     * while the input does, so a sorted input costs O(count + points). */
    for (i = 0; i < count; i++) {
        tsync_time x = in[i];
        if (k > 0 && x < m->local[k - 1])
            k = upper_bound(m, x); /* the input went back: search again */
        while (k < m->n && m->local[k] <= x)
            k++;
        if (k > 0 && k < m->n) {
            if (seg_k != k) {
                seg_k = k;
                fast = segment_init(&seg, m, k);
            }
            if (fast) {
                out[i] = segment_eval(&seg, x);
                continue;
            }
        }
        out[i] = eval_points(m, k, x);
    }
}

/* A map with room for n points and nothing else set. */
static struct tsync_time_map *alloc_map(enum tsync_time_map_kind kind, size_t n)
{
    struct tsync_time_map *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->kind = kind;
    m->n = n;
    m->local = malloc(n * sizeof(*m->local));
    m->global = malloc(n * sizeof(*m->global));
    if (!m->local || !m->global) {
        tsync_time_map_free(m);
        return NULL;
    }
    m->pre_rise = m->pre_run = m->post_rise = m->post_run = 1;
    return m;
}

int tsync_time_map_new_offset(tsync_time_map **out, int64_t offset, tsync_ctx *ctx)
{
    struct tsync_time_map *m = alloc_map(TSYNC_MAP_OFFSET, 1);
    if (!m)
        return tsync__oom(ctx);
    m->local[0] = 0;
    m->global[0] = offset;
    m->offset = offset;
    *out = m;
    return TSYNC_OK;
}

int tsync__time_map_new_drift(tsync_time_map **out, int64_t offset, double drift, tsync_time origin,
                              const char *what, tsync_ctx *ctx)
{
    struct tsync_time_map *m;
    i128 anchor = (i128)origin + offset;
    int e = 0;
    double f;
    if (!(drift > -1.0)) /* also NaN */
        return tsync__fail(ctx, TSYNC_EINVAL,
                           "%s: drift %g must be greater than -1 (the map would not be monotone)",
                           what, drift);
    if (!(drift < DRIFT_MAX))
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: drift %g is too large (must be below 1e9)", what,
                           drift);
    if (anchor > INT64_MAX || anchor < INT64_MIN)
        return tsync__fail(ctx, TSYNC_EINVAL,
                           "%s: origin %lld plus offset %lld is beyond the 64-bit tick range", what,
                           (long long)origin, (long long)offset);
    m = alloc_map(TSYNC_MAP_DRIFT, 1);
    if (!m)
        return tsync__oom(ctx);
    m->local[0] = origin;
    m->global[0] = (tsync_time)anchor;
    m->offset = offset;
    m->drift = drift;
    /* drift = f * 2^e with 0.5 <= |f| < 1, so f * 2^53 is an exact integer. */
    f = frexp(drift, &e);
    m->drift_m = (int64_t)ldexp(f, 53);
    m->drift_s = 53 - e;
    *out = m;
    return TSYNC_OK;
}

int tsync__time_map_new_points(tsync_time_map **out, const tsync_time *local,
                               const tsync_time *global, size_t n, const char *what, tsync_ctx *ctx)
{
    struct tsync_time_map *m;
    if (n == 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: a map needs at least one point", what);
    for (size_t i = 1; i < n; i++) {
        if (local[i] <= local[i - 1])
            return tsync__fail(ctx, TSYNC_EINVAL,
                               "%s: point %zu: local time %lld does not increase after %lld of "
                               "point %zu", what, i, (long long)local[i], (long long)local[i - 1],
                               i - 1);
        if (global[i] < global[i - 1])
            return tsync__fail(ctx, TSYNC_EINVAL,
                               "%s: point %zu: global time %lld goes back from %lld of point %zu "
                               "(negative slope; a map must be monotone)", what, i,
                               (long long)global[i], (long long)global[i - 1], i - 1);
    }
    m = alloc_map(TSYNC_MAP_POINTS, n);
    if (!m)
        return tsync__oom(ctx);
    memcpy(m->local, local, n * sizeof(*local));
    memcpy(m->global, global, n * sizeof(*global));
    if (n > 1) {
        m->pre_run = udiff(local[0], local[1]);
        m->pre_rise = udiff(global[0], global[1]);
        m->post_run = udiff(local[n - 2], local[n - 1]);
        m->post_rise = udiff(global[n - 2], global[n - 1]);
    }
    *out = m;
    return TSYNC_OK;
}

int tsync__time_map_set_bounds(tsync_time_map *m, const int64_t *bounds, size_t n, const char *what,
                               tsync_ctx *ctx)
{
    int64_t *copy;
    if (n != m->n)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: %zu error bounds for %zu point%s", what, n, m->n,
                           tsync__plural(m->n, "s"));
    for (size_t i = 0; i < n; i++)
        if (bounds[i] < 0)
            return tsync__fail(ctx, TSYNC_EINVAL, "%s: point %zu: error bound %lld is negative",
                               what, i, (long long)bounds[i]);
    copy = malloc(n * sizeof(*copy));
    if (!copy)
        return tsync__oom(ctx);
    memcpy(copy, bounds, n * sizeof(*copy));
    free(m->bounds);
    m->bounds = copy;
    return TSYNC_OK;
}

int tsync_time_map_new_drift(tsync_time_map **out, int64_t offset, double drift, tsync_time origin,
                             tsync_ctx *ctx)
{
    return tsync__time_map_new_drift(out, offset, drift, origin, "time map", ctx);
}

int tsync_time_map_new_points(tsync_time_map **out, const tsync_time *local,
                              const tsync_time *global, size_t n, tsync_ctx *ctx)
{
    return tsync__time_map_new_points(out, local, global, n, "time map", ctx);
}

int tsync_time_map_set_bounds(tsync_time_map *map, const int64_t *bounds, size_t n, tsync_ctx *ctx)
{
    return tsync__time_map_set_bounds(map, bounds, n, "time map", ctx);
}

int tsync_time_map_clone(tsync_time_map **out, const tsync_time_map *src, tsync_ctx *ctx)
{
    struct tsync_time_map *m = alloc_map(src->kind, src->n);
    if (!m)
        return tsync__oom(ctx);
    memcpy(m->local, src->local, src->n * sizeof(*m->local));
    memcpy(m->global, src->global, src->n * sizeof(*m->global));
    if (src->bounds) {
        m->bounds = malloc(src->n * sizeof(*m->bounds));
        if (!m->bounds) {
            tsync_time_map_free(m);
            return tsync__oom(ctx);
        }
        memcpy(m->bounds, src->bounds, src->n * sizeof(*m->bounds));
    }
    m->offset = src->offset;
    m->drift = src->drift;
    m->drift_m = src->drift_m;
    m->drift_s = src->drift_s;
    m->pre_rise = src->pre_rise;
    m->pre_run = src->pre_run;
    m->post_rise = src->post_rise;
    m->post_run = src->post_run;
    *out = m;
    return TSYNC_OK;
}

void tsync_time_map_free(tsync_time_map *m)
{
    if (!m)
        return;
    free(m->local);
    free(m->global);
    free(m->bounds);
    free(m);
}

enum tsync_time_map_kind tsync_time_map_kind(const tsync_time_map *m) { return m->kind; }

int64_t tsync_time_map_offset(const tsync_time_map *m)
{
    return m->kind == TSYNC_MAP_POINTS ? 0 : m->offset;
}

double tsync_time_map_drift(const tsync_time_map *m)
{
    return m->kind == TSYNC_MAP_DRIFT ? m->drift : 0.0;
}

tsync_time tsync_time_map_origin(const tsync_time_map *m)
{
    return m->kind == TSYNC_MAP_DRIFT ? m->local[0] : 0;
}

size_t tsync_time_map_point_count(const tsync_time_map *m) { return m->n; }
const tsync_time *tsync_time_map_local(const tsync_time_map *m) { return m->local; }
const tsync_time *tsync_time_map_global(const tsync_time_map *m) { return m->global; }
const int64_t *tsync_time_map_bounds(const tsync_time_map *m) { return m->bounds; }
