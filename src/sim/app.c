/* app.c - the simulated program: compute phases, point-to-point patterns, idle gaps,
 * and the iteration of the main phase that strings them together.
 *
 * An iteration is: every rank computes (log-normal time around compute_mean_s,
 * scaled by a fixed per-rank load factor for imbalance), then one exchange of a
 * pattern drawn from the enabled ones, blocking or not, and every collective_every
 * iterations one collective operation (coll.c), cycling through the enabled ones
 * with the root moving from rank to rank. Exchanges are written as small programs
 * per rank and run by exec.c.
 *
 * Patterns (tags keep the messages of one exchange apart, so MPI's matching
 * order is the order they were made in):
 *   ping-pong     2i -> 2i+1 (tag 1), then back (tag 2); an odd last rank rests
 *   ring          r -> r+1 (tag 10); even ranks send first, odd ranks receive first
 *   halo 2D / 3D  to each neighbour on a periodic process grid (dimensions as
 *                 balanced as MPI_Dims_create makes them), tag 20 + direction;
 *                 blocking: send then receive per direction, like MPI_Sendrecv
 *   random pairs  a random perfect matching, one message each way (tag 40)
 * Non-blocking forms post every receive, then every send, then MPI_Waitall; the
 * ping-pong's reply waits for the ping.
 */
#include <math.h>

#include "sim/sim.h"
#include "util/ctx.h"

/* ---- compute and idle ---------------------------------------------------- */

int tsync__app_compute(struct tsync_sim *s)
{
    double cv = s->o->app.compute_cv, sigma = sqrt(log(1.0 + cv * cv));
    for (uint32_t r = 0; r < s->n_ranks && !s->rc; r++) {
        /* Log-normal with mean 1: exp(sigma N - sigma^2 / 2). */
        double f = exp(sigma * tsync__rng_normal(&s->rng) - 0.5 * sigma * sigma);
        double d = s->o->app.compute_mean_s * s->load[r] * f;
        int64_t t = tsync__sim_enter(s, r, s->now[r], "compute");
        tsync__sim_leave(s, r, t + tsync__sim_ticks(s, d), "compute");
    }
    return s->rc;
}

int tsync__app_sleep(struct tsync_sim *s, int64_t until)
{
    for (uint32_t r = 0; r < s->n_ranks && !s->rc; r++) {
        tsync__sim_enter(s, r, s->now[r], "sleep");
        tsync__sim_leave(s, r, until, "sleep");
    }
    return s->rc;
}

/* ---- patterns ------------------------------------------------------------ */

/* Blocking: SEND out, then RECV in, or the other way round. Non-blocking: IRECV in,
 * ISEND out, WAITALL. A missing message (UINT32_MAX) is left out. */
static void exchange_ops(struct tsync_sim *s, uint32_t out, uint32_t in, int send_first, int nb)
{
    if (nb) {
        if (in != UINT32_MAX)
            tsync__prog_op(s, SIM_IRECV, in);
        if (out != UINT32_MAX)
            tsync__prog_op(s, SIM_ISEND, out);
        tsync__prog_op(s, SIM_WAITALL, 0);
    } else if (send_first) {
        tsync__prog_op(s, SIM_SEND, out);
        tsync__prog_op(s, SIM_RECV, in);
    } else {
        tsync__prog_op(s, SIM_RECV, in);
        tsync__prog_op(s, SIM_SEND, out);
    }
}

static void pingpong(struct tsync_sim *s, int nb)
{
    uint32_t n = s->n_ranks;
    /* Messages 2i (ping) and 2i + 1 (pong) of pair i = (2i, 2i + 1). */
    for (uint32_t a = 0; a + 1 < n; a += 2) {
        tsync__prog_msg(s, a, a + 1, 1);
        tsync__prog_msg(s, a + 1, a, 2);
    }
    for (uint32_t r = 0; r < n; r++) {
        uint32_t ping = r & ~1u, pong = ping + 1;
        tsync__prog_rank(s, r);
        if ((r | 1u) >= n)
            continue;
        if (!nb) {
            exchange_ops(s, r & 1 ? pong : ping, r & 1 ? ping : pong, !(r & 1), 0);
        } else if (!(r & 1)) {
            exchange_ops(s, ping, pong, 1, 1);
        } else { /* the pong waits for the ping */
            tsync__prog_op(s, SIM_IRECV, ping);
            tsync__prog_op(s, SIM_WAITALL, 0);
            tsync__prog_op(s, SIM_ISEND, pong);
            tsync__prog_op(s, SIM_WAITALL, 0);
        }
    }
}

static void ring(struct tsync_sim *s, int nb)
{
    uint32_t n = s->n_ranks;
    if (n < 2)
        return;
    for (uint32_t r = 0; r < n; r++) /* message r: r -> r + 1 */
        tsync__prog_msg(s, r, (r + 1) % n, 10);
    for (uint32_t r = 0; r < n; r++) {
        tsync__prog_rank(s, r);
        exchange_ops(s, r, (r + n - 1) % n, !(r & 1), nb);
    }
}

/* Balanced factors of n over d dimensions, as MPI_Dims_create makes them. */
static void grid_dims(uint32_t n, uint32_t d, uint32_t *dims)
{
    for (uint32_t i = 0; i < d; i++)
        dims[i] = 1;
    /* Prime factors, largest first, each to the currently smallest dimension. */
    uint32_t f[32], nf = 0, m = n;
    for (uint32_t p = 2; p * p <= m; p++)
        while (m % p == 0 && nf < 32) {
            f[nf++] = p;
            m /= p;
        }
    if (m > 1)
        f[nf++] = m;
    for (uint32_t i = nf; i-- > 0;) {
        uint32_t small = 0;
        for (uint32_t j = 1; j < d; j++)
            if (dims[j] < dims[small])
                small = j;
        dims[small] *= f[i];
    }
}

/* The neighbour of r in direction j (2k: -1 along k, 2k + 1: +1 along k). */
static uint32_t neighbour(uint32_t r, uint32_t j, const uint32_t *dims, uint32_t d)
{
    uint32_t stride = 1, k = j / 2;
    for (uint32_t i = d; i-- > k + 1;)
        stride *= dims[i];
    uint32_t c = (r / stride) % dims[k];
    uint32_t c2 = j & 1 ? (c + 1) % dims[k] : (c + dims[k] - 1) % dims[k];
    return r - c * stride + c2 * stride;
}

static void halo(struct tsync_sim *s, uint32_t d, int nb)
{
    uint32_t n = s->n_ranks, dims[3], active[6], na = 0;
    grid_dims(n, d, dims);
    /* Directions along dimensions of size 1 lead back to the rank itself. */
    for (uint32_t j = 0; j < 2 * d; j++)
        if (dims[j / 2] > 1)
            active[na++] = j;
    if (na == 0)
        return;
    /* Message r * na + a: r to its neighbour in direction active[a]. */
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t a = 0; a < na; a++)
            tsync__prog_msg(s, r, neighbour(r, active[a], dims, d), 20 + active[a]);
    for (uint32_t r = 0; r < n; r++) {
        tsync__prog_rank(s, r);
        for (uint32_t a = 0; a < na; a++) {
            /* What comes in along direction j was sent by the neighbour opposite. */
            uint32_t from = neighbour(r, active[a] ^ 1u, dims, d);
            uint32_t out = r * na + a, in = from * na + a;
            if (!nb) {
                exchange_ops(s, out, in, 1, 0);
            } else {
                tsync__prog_op(s, SIM_IRECV, in);
            }
        }
        if (nb) {
            for (uint32_t a = 0; a < na; a++)
                tsync__prog_op(s, SIM_ISEND, r * na + a);
            tsync__prog_op(s, SIM_WAITALL, 0);
        }
    }
}

static void random_pairs(struct tsync_sim *s, int nb)
{
    uint32_t n = s->n_ranks, *perm = s->perm, *pair = s->perm + n;
    for (uint32_t r = 0; r < n; r++)
        perm[r] = r;
    for (uint32_t i = n; i > 1; i--) { /* Fisher-Yates */
        uint32_t j = (uint32_t)tsync__rng_below(&s->rng, i), x = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = x;
    }
    /* Pair i = (perm[2i], perm[2i+1]): message 2i low -> high, 2i + 1 back. */
    for (uint32_t r = 0; r < n; r++)
        pair[r] = UINT32_MAX;
    for (uint32_t i = 0; 2 * i + 1 < n; i++) {
        uint32_t a = perm[2 * i], b = perm[2 * i + 1];
        uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
        tsync__prog_msg(s, lo, hi, 40);
        tsync__prog_msg(s, hi, lo, 40);
        pair[lo] = pair[hi] = i;
    }
    for (uint32_t r = 0; r < n; r++) {
        uint32_t i = pair[r];
        tsync__prog_rank(s, r);
        if (i == UINT32_MAX)
            continue;
        int low = s->prog.msgs[2 * i].src == r;
        exchange_ops(s, low ? 2 * i : 2 * i + 1, low ? 2 * i + 1 : 2 * i, low, nb);
    }
}

int tsync__app_exchange(struct tsync_sim *s, uint32_t pattern, int nb)
{
    if (s->rc)
        return s->rc;
    tsync__prog_reset(s);
    for (uint32_t r = 0; r <= s->n_ranks; r++)
        s->prog.first[r] = 0;
    switch (pattern) {
    case TSYNC_SIM_PINGPONG: pingpong(s, nb); break;
    case TSYNC_SIM_RING: ring(s, nb); break;
    case TSYNC_SIM_HALO2D: halo(s, 2, nb); break;
    case TSYNC_SIM_HALO3D: halo(s, 3, nb); break;
    case TSYNC_SIM_RANDOM: random_pairs(s, nb); break;
    default:
        return s->rc = tsync__fail(s->ctx, TSYNC_EINVAL, "simulator: unknown pattern %#x", pattern);
    }
    /* Every pattern starts every rank, or none (then all have no operations). */
    return tsync__prog_run(s);
}

/* ---- the main phase ------------------------------------------------------ */

/* The k-th set bit of `set` (k < popcount), as a one-bit value. */
static uint32_t nth_bit(uint32_t set, uint32_t k)
{
    for (uint32_t b = 1; b; b <<= 1)
        if ((set & b) && k-- == 0)
            return b;
    return 0;
}

static uint32_t popcount(uint32_t x)
{
    uint32_t n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

int tsync__app_iteration(struct tsync_sim *s)
{
    const tsync_sim_app_params *a = &s->o->app;
    uint32_t np = popcount(a->patterns), nc = popcount(a->collectives);
    if (tsync__app_compute(s))
        return s->rc;
    if (np) {
        uint32_t pattern = nth_bit(a->patterns, (uint32_t)tsync__rng_below(&s->rng, np));
        int nb = tsync__rng_uniform(&s->rng) < a->nonblocking;
        if (tsync__app_exchange(s, pattern, nb))
            return s->rc;
    }
    s->iterations++;
    if (nc && a->collective_every && s->iterations % a->collective_every == 0) {
        uint32_t which = nth_bit(a->collectives, (uint32_t)(s->coll_count % nc));
        tsync__coll_run(s, which, (uint32_t)(s->coll_count % s->n_ranks));
    }
    return s->rc;
}
