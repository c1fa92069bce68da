/* rng.h - the simulator's random numbers: xoshiro256** seeded through splitmix64.
 *
 * Every random draw of a run comes from one of these generators, each seeded from
 * the run's seed and a stream number, so that a run is a function of its seed and
 * independent parts (each clock, the network, the program) do not shift each
 * other's draws when one of them changes. Never rand().
 */
#ifndef TSYNC_SIM_RNG_H
#define TSYNC_SIM_RNG_H

#include <stdint.h>

struct tsync_rng {
    uint64_t s[4];
};

/* Seeds `r` from (seed, stream): two runs with the same pair draw the same numbers. */
void tsync__rng_seed(struct tsync_rng *r, uint64_t seed, uint64_t stream);
/* The next 64 random bits (xoshiro256**). */
uint64_t tsync__rng_next(struct tsync_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double tsync__rng_uniform(struct tsync_rng *r);
/* Uniform in [lo, hi). */
double tsync__rng_range(struct tsync_rng *r, double lo, double hi);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t tsync__rng_below(struct tsync_rng *r, uint64_t n);
/* Standard normal (Marsaglia's polar method; the spare value is not kept, so that a
 * draw's result does not depend on earlier calls beyond the state). */
double tsync__rng_normal(struct tsync_rng *r);
/* Exponential with the given mean. */
double tsync__rng_exponential(struct tsync_rng *r, double mean);
/* Gamma with shape k > 0 and the given mean (Marsaglia and Tsang 2000). */
double tsync__rng_gamma(struct tsync_rng *r, double shape, double mean);
/* Log-uniform in [lo, hi], 0 < lo <= hi. */
double tsync__rng_log_uniform(struct tsync_rng *r, double lo, double hi);

#endif
