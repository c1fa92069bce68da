/* clock.c - simulated local clocks (seed 004): offset, skew, temperature, daily
 * cycle, random walk frequency noise and slewed steps; see clock.h for the model. */
#include <math.h>
#include <string.h>

#include "sim/clock.h"

#define PI 3.14159265358979323846
#define DAY_S 86400.0

void tsync__clock_draw(struct tsync_sim_clock_model *m, const tsync_sim_clock_params *p,
                       struct tsync_rng *rng)
{
    double skew_max = p->skew_max_ppm * 1e-6;
    memset(m, 0, sizeof(*m));
    m->offset_s = tsync__rng_range(rng, -p->offset_max_s, p->offset_max_s);
    /* Skew: normal with 10 ppm sd, clipped at 50 ppm (typical crystals, seed 004 s. 2). */
    m->skew = p->skew_sd_ppm * 1e-6 * tsync__rng_normal(rng);
    if (m->skew > skew_max)
        m->skew = skew_max;
    if (m->skew < -skew_max)
        m->skew = -skew_max;
    /* Temperature: frequency follows temperature linearly (seed 004, section 4.1). */
    m->temp_amp = 1e-6 * tsync__rng_range(rng, p->temp_amp_min_ppm, p->temp_amp_max_ppm);
    m->temp_period_s = tsync__rng_range(rng, p->temp_period_min_s, p->temp_period_max_s);
    m->temp_phase = tsync__rng_range(rng, 0, 2 * PI);
    /* Daily cycle: +-130 Hz of 350 MHz in seed 004, section 6; the room sets the
     * phase, so it is common to all clocks. */
    m->daily_amp = 1e-6 * p->daily_amp_ppm * tsync__rng_range(rng, 0.5, 1.5);
    m->daily_phase = 2 * PI * p->daily_start_h / 24.0;
    /* Random walk FM: Allan variance q tau / 3. */
    m->rw_q = 3.0 * p->allan_1s * p->allan_1s;
    m->n_steps = p->steps < TSYNC_CLOCK_MAX_STEPS ? p->steps : TSYNC_CLOCK_MAX_STEPS;
    for (uint32_t j = 0; j < m->n_steps; j++) {
        m->step_t[j] = tsync__rng_range(rng, 0, p->step_window_s);
        m->step_d[j] = tsync__rng_range(rng, -p->step_max_s, p->step_max_s);
    }
    m->slew = p->slew_ppm * 1e-6;
}

void tsync__clock_init(struct tsync_sim_clock *c, const struct tsync_sim_clock_model *m,
                       uint64_t true_res, uint64_t res, uint64_t seed, uint64_t stream)
{
    memset(c, 0, sizeof(*c));
    c->m = *m;
    c->true_res = true_res;
    c->res = res;
    c->rw_seed = seed;
    c->rw_stream = stream;
    tsync__rng_seed(&c->rw_rng, seed, stream);
    c->k_max = -1;
}

/* Makes knots up to k; from the start again if knot k - 1 has left the ring. */
static void walk_to(struct tsync_sim_clock *c, int64_t k)
{
    double sd = sqrt(c->m.rw_q * TSYNC_CLOCK_KNOT_S);
    if (k < c->k_max - (TSYNC_CLOCK_RING - 2)) {
        tsync__rng_seed(&c->rw_rng, c->rw_seed, c->rw_stream);
        c->k_max = -1;
        c->replays++;
    }
    if (c->k_max < 0) {
        c->y[0] = c->x[0] = 0;
        c->k_max = 0;
    }
    while (c->k_max < k) {
        int64_t j = c->k_max;
        double y0 = c->y[j % TSYNC_CLOCK_RING], x0 = c->x[j % TSYNC_CLOCK_RING];
        double y1 = y0 + sd * tsync__rng_normal(&c->rw_rng);
        c->y[(j + 1) % TSYNC_CLOCK_RING] = y1;
        c->x[(j + 1) % TSYNC_CLOCK_RING] = x0 + TSYNC_CLOCK_KNOT_S * 0.5 * (y0 + y1);
        c->k_max = j + 1;
    }
}

double tsync__clock_walk(struct tsync_sim_clock *c, double t)
{
    int64_t k;
    double s, y0, y1;
    if (c->m.rw_q <= 0 || t <= 0)
        return 0;
    k = (int64_t)floor(t / TSYNC_CLOCK_KNOT_S);
    walk_to(c, k + 1);
    s = t - (double)k * TSYNC_CLOCK_KNOT_S;
    y0 = c->y[k % TSYNC_CLOCK_RING];
    y1 = c->y[(k + 1) % TSYNC_CLOCK_RING];
    /* y linear between the knots: x = x_k + y_k s + (y_{k+1} - y_k) s^2 / 2h. */
    return c->x[k % TSYNC_CLOCK_RING] + y0 * s + (y1 - y0) * s * s / (2 * TSYNC_CLOCK_KNOT_S);
}

/* Integral over [0, t] of amp sin(2pi u / period + phase). */
static double sine_integral(double amp, double period, double phase, double t)
{
    if (amp == 0 || period <= 0)
        return 0;
    return amp * period / (2 * PI) * (cos(phase) - cos(2 * PI * t / period + phase));
}

double tsync__clock_error(struct tsync_sim_clock *c, double t)
{
    const struct tsync_sim_clock_model *m = &c->m;
    double e = m->offset_s + m->skew * t;
    e += sine_integral(m->temp_amp, m->temp_period_s, m->temp_phase, t);
    e += sine_integral(m->daily_amp, DAY_S, m->daily_phase, t);
    e += tsync__clock_walk(c, t);
    for (uint32_t j = 0; j < m->n_steps; j++) {
        double d = m->step_d[j], dur = m->slew > 0 ? fabs(d) / m->slew : 0;
        if (t >= m->step_t[j] + dur)
            e += d;
        else if (t > m->step_t[j])
            e += d * (t - m->step_t[j]) / dur;
    }
    return e;
}

int64_t tsync__clock_read(struct tsync_sim_clock *c, int64_t ticks)
{
    double t = (double)ticks / (double)c->true_res;
    /* floor(T + E) = T + floor(E) for integer T; T + E increases with T (clock.h). */
    int64_t local = ticks + (int64_t)floor(tsync__clock_error(c, t) * (double)c->true_res);
    __extension__ __int128 scaled;
    if (c->res == c->true_res)
        return local;
    scaled = (__int128)local * (__int128)c->res;
    /* Floor division, also for negative readings. */
    if (scaled < 0)
        return (int64_t)-((-scaled + (__int128)c->true_res - 1) / (__int128)c->true_res);
    return (int64_t)(scaled / (__int128)c->true_res);
}
