/* stamp.c - seed 001 timestamps (51-bit ticks, 13-bit event counter), the test
 * mode's distorted clocks, and the global stamps written at the end of a run. */
#include <math.h>

#include "collect/stamp.h"
#include "timemap/spline.h"

#define TWO_PI 6.283185307179586476925

void tsc_clock_init(struct tsc_clock *c, clockid_t id, const struct tsc_test_clock *distort,
                    uint64_t true_origin_ns)
{
    *c = (struct tsc_clock){ .id = id, .true_origin_ns = true_origin_ns };
    if (distort) {
        c->test = true;
        c->distort = *distort;
    }
    c->origin_ns = c->test ? tsc_clock_distort(c, true_origin_ns) : true_origin_ns;
}

uint64_t tsc_clock_distort(const struct tsc_clock *c, uint64_t true_ns)
{
    const struct tsc_test_clock *d = &c->distort;
    double t = (double)(int64_t)(true_ns - c->true_origin_ns) * 1e-9;
    /* rate 1 + skew + wander cos(2 pi t / P): its integral */
    double err = d->offset_s + d->skew_ppm * 1e-6 * t;
    if (d->period_s > 0)
        err += d->wander_ppm * 1e-6 * d->period_s / (TWO_PI) * sin(TWO_PI * t / d->period_s);
    return true_ns + (uint64_t)llround(err * 1e9);
}

uint64_t tsc_stamp(struct tsc_clock *c, uint64_t local_ns)
{
    uint64_t tick = local_ns - c->origin_ns;
    if (!c->started) {
        c->started = true;
        c->last_tick = (int64_t)tick < 0 ? 0 : tick;
        return c->last_tick << TSC_EVENT_BITS;
    }
    if ((int64_t)tick < 0 || tick <= c->last_tick) {
        tick = c->last_tick;
        if (++c->counter > TSC_COUNTER_MASK) { /* overflow into the tick (seed 001) */
            c->overflows++;
            c->counter = 0;
            tick = ++c->last_tick;
        }
        if (c->counter > c->max_counter)
            c->max_counter = c->counter;
    } else {
        c->counter = 0;
        c->last_tick = tick;
    }
    return (tick << TSC_EVENT_BITS) | c->counter;
}

double tsc_global_tick(const struct tsc_global_map *m, double tick)
{
    double master = m->n ? tsync__spline_eval(m->x, m->y, m->d, m->n, tick) : m->a * tick + m->b;
    return master * m->scale * TSC_GLOBAL_TICKS_PER_TICK - m->origin;
}

double tsc_global_min_slope(const struct tsc_global_map *m)
{
    return 1.0 / (m->scale * TSC_GLOBAL_TICKS_PER_TICK);
}

bool tsc_global_map_check(const struct tsc_global_map *m)
{
    bool ok = isfinite(m->scale) && m->scale > 0 && isfinite(m->origin);
    if (!m->n)
        return ok && isfinite(m->a) && isfinite(m->b) && m->a >= tsc_global_min_slope(m);
    for (size_t i = 0; ok && i < m->n; i++)
        ok = isfinite(m->x[i]) && isfinite(m->y[i]) && isfinite(m->d[i]) && m->d[i] >= tsc_global_min_slope(m);
    return ok;
}

uint64_t tsc_global_stamp(const struct tsc_global_map *m, uint64_t stamp)
{
    /* floor, so that ticks one apart land at least one global tick apart */
    double g = floor(tsc_global_tick(m, (double)tsc_stamp_tick(stamp)));
    uint64_t tick = g > 0 ? (uint64_t)g : 0;
    return (tick << TSC_EVENT_BITS) | (stamp & TSC_COUNTER_MASK);
}
