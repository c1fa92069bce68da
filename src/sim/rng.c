/* rng.c - xoshiro256** (Blackman and Vigna 2018) seeded through splitmix64, and the
 * distributions the simulator draws from. */
#include <math.h>

#include "sim/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void tsync__rng_seed(struct tsync_rng *r, uint64_t seed, uint64_t stream)
{
    /* Mix the stream in through a second splitmix64 step so that neighbouring
     * (seed, stream) pairs start far apart. */
    uint64_t x = seed;
    uint64_t y = splitmix64(&x) ^ (stream * 0xD1B54A32D192ED03ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&y);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t tsync__rng_next(struct tsync_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double tsync__rng_uniform(struct tsync_rng *r)
{
    return (double)(tsync__rng_next(r) >> 11) * 0x1.0p-53;
}

double tsync__rng_range(struct tsync_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * tsync__rng_uniform(r);
}

uint64_t tsync__rng_below(struct tsync_rng *r, uint64_t n)
{
    /* Rejection: draws above the largest multiple of n are thrown away. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = tsync__rng_next(r);
    while (x >= limit);
    return x % n;
}

double tsync__rng_normal(struct tsync_rng *r)
{
    double u, v, s;
    do {
        u = 2.0 * tsync__rng_uniform(r) - 1.0;
        v = 2.0 * tsync__rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}

double tsync__rng_exponential(struct tsync_rng *r, double mean)
{
    /* 1 - u is in (0, 1]: the logarithm is finite. */
    return -mean * log(1.0 - tsync__rng_uniform(r));
}

double tsync__rng_gamma(struct tsync_rng *r, double shape, double mean)
{
    double boost = 1.0, d, c, x, v, u;
    if (shape < 1.0) {
        /* Gamma(k) = Gamma(k + 1) * U^(1/k) (Marsaglia and Tsang, section 6). */
        boost = pow(1.0 - tsync__rng_uniform(r), 1.0 / shape);
        shape += 1.0;
        mean = mean * (shape / (shape - 1.0)); /* keep the scale: mean/k per unit shape */
    }
    d = shape - 1.0 / 3.0;
    c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        do {
            x = tsync__rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        u = tsync__rng_uniform(r);
        if (u < 1.0 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            break;
    }
    /* d * v ~ Gamma(shape, 1); scale = mean / shape. */
    return boost * d * v * (mean / shape);
}

double tsync__rng_log_uniform(struct tsync_rng *r, double lo, double hi)
{
    return lo * exp(tsync__rng_uniform(r) * log(hi / lo));
}
