/* clock.h - simulated local clocks: what a clock reads at a given true time.
 *
 * A clock's error (local minus true time, seconds) is the sum of
 *
 *   offset            o                                          initial offset
 *   skew              s t                                        constant rate error
 *   temperature       a P / 2pi (cos phi - cos(2pi t / P + phi))  integral of a sin
 *   daily cycle       the same with P = 1 day                     (seed 004, section 6)
 *   random walk FM    x(t) = integral of y, y a random walk       (seed 004, section 6)
 *   steps             d_j min(1, max(0, (t - t_j) / (|d_j| / slew)))
 *
 * so that the frequency error is s + a sin(2pi t / P + phi) + ... + y(t) and every
 * term but the steps is the integral of a frequency. The random walk y is kept at
 * knots h seconds apart (a Wiener process: y_{k+1} = y_k + sqrt(q h) N(0,1)) and is
 * linear between them, so x is exact piecewise quadratic. For such random-walk
 * frequency noise the Allan variance is q tau / 3 (Barnes et al. 1971), so
 * q = 3 A^2 / 1 s gives Allan deviation A at 1 s and 10 A at 100 s.
 *
 * Knots are made on demand, going forward, and the last TSYNC_CLOCK_RING of them
 * are kept: the simulator asks for times that move forward, give or take the spread
 * of one step of the program, so memory does not grow with the run. Asking for an
 * earlier time than the ring holds replays the walk from the start (same numbers,
 * only slower) and is counted.
 *
 * Readings: true time T in integer ticks of the simulator (true_res per second)
 * reads T + floor(error(T) * true_res) simulator ticks, converted down to the
 * clock's timer resolution by flooring. Because the error's rate stays far below 1
 * (tsync_sim_validate keeps the sum of skew, temperature, daily cycle and slew
 * below 5 %), readings never decrease when T increases: a real clock never runs
 * backward.
 */
#ifndef TSYNC_SIM_CLOCK_H
#define TSYNC_SIM_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "sim/rng.h"
#include "tracesync/sim.h"

#define TSYNC_CLOCK_RING 1024     /* knots kept */
#define TSYNC_CLOCK_KNOT_S 0.25   /* random walk knot spacing, seconds */
#define TSYNC_CLOCK_MAX_STEPS 64

/* The drawn properties of one clock (all dimensionless rates or seconds). */
struct tsync_sim_clock_model {
    double offset_s;
    double skew;                 /* 12e-6 = gains 12 us per second */
    double temp_amp, temp_period_s, temp_phase;
    double daily_amp, daily_phase;
    double rw_q;                 /* random walk diffusion, 1/s (0: off) */
    uint32_t n_steps;
    double step_t[TSYNC_CLOCK_MAX_STEPS];  /* true time a step starts */
    double step_d[TSYNC_CLOCK_MAX_STEPS];  /* its size */
    double slew;                 /* rate at which a step is applied */
};

struct tsync_sim_clock {
    struct tsync_sim_clock_model m;
    uint64_t true_res;           /* simulator ticks per second */
    uint64_t res;                /* timer resolution of the readings */
    uint64_t rw_seed, rw_stream;
    struct tsync_rng rw_rng;
    int64_t k_max;               /* newest knot made (-1: none yet) */
    double y[TSYNC_CLOCK_RING];  /* frequency at knot k, at [k % RING] */
    double x[TSYNC_CLOCK_RING];  /* phase at knot k */
    uint64_t replays;            /* walks replayed for an early time */
};

/* Draws a clock's properties from the parameters with `rng`. */
void tsync__clock_draw(struct tsync_sim_clock_model *m, const tsync_sim_clock_params *p,
                       struct tsync_rng *rng);

/* Sets up a clock with drawn properties; the random walk gets its own stream
 * (seed, stream). Readings are in ticks of `res`, which must not exceed true_res. */
void tsync__clock_init(struct tsync_sim_clock *c, const struct tsync_sim_clock_model *m,
                       uint64_t true_res, uint64_t res, uint64_t seed, uint64_t stream);

/* The error local - true in seconds at true time t seconds (t >= 0). */
double tsync__clock_error(struct tsync_sim_clock *c, double t);

/* The reading, in ticks of the clock's resolution, at true time `ticks` (simulator
 * ticks). Negative when the clock would read before its epoch. */
int64_t tsync__clock_read(struct tsync_sim_clock *c, int64_t ticks);

/* The random walk part of the error alone, x(t) in seconds (for tests). */
double tsync__clock_walk(struct tsync_sim_clock *c, double t);

#endif
