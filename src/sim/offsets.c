/* offsets.c - Score-P style clock offset measurements (shared/reference/README.md):
 * at MPI_Init and MPI_Finalize, and optionally in periodic sessions, rank 0 plays
 * `pingpongs` ping-pongs with every other rank in turn, one after another. For each
 * worker the fastest round trip counts:
 *
 *     offset = master send + rtt / 2 - worker time        (all in clock ticks)
 *
 * and is written as a ClockOffset record of the worker at its own reading, meaning
 * "rank 0's clock = local + offset here"; rank 0 gets offset 0. The messages travel
 * through the simulated network (network.c), so asymmetric delays and outliers bias
 * the measurement exactly as they would a real one. The ping-pongs themselves are
 * not events (Score-P does not trace them either): every rank is inside `region`
 * while they happen. truth.otf2 gets the same records with true time and offset 0.
 */
#include "sim/sim.h"

int tsync__offsets_measure(struct tsync_sim *s, const char *region)
{
    uint32_t n = s->n_ranks, node0 = s->rank_node[0];
    int64_t t = 0;

    if (s->rc)
        return s->rc;
    /* Everybody enters; the measurement starts when the last one is there. */
    for (uint32_t r = 0; r < n; r++) {
        int64_t e = tsync__sim_enter(s, r, s->now[r], region);
        if (e > t)
            t = e;
    }
    t += s->overhead;
    tsync__sim_clock_offset(s, 0, t, tsync__sim_read(s, 0, t), 0);
    for (uint32_t w = 1; w < n && !s->rc; w++) {
        uint32_t nw = s->rank_node[w];
        int64_t best_rtt = INT64_MAX, best_master = 0, best_worker = 0, best_t = 0, last = t;
        for (uint32_t i = 0; i < s->o->offsets.pingpongs; i++) {
            int64_t master_send = tsync__sim_read(s, 0, t);
            int64_t t_worker = t + tsync__net_latency(&s->net, node0, nw);
            int64_t worker = tsync__sim_read(s, w, t_worker);
            int64_t t_back = t_worker + s->gap + tsync__net_latency(&s->net, nw, node0);
            int64_t rtt = tsync__sim_read(s, 0, t_back) - master_send;
            if (rtt < best_rtt) {
                best_rtt = rtt;
                best_master = master_send;
                best_worker = worker;
                best_t = t_worker;
            }
            last = t_worker + s->gap;
            t = t_back + s->gap;
        }
        tsync__sim_clock_offset(s, w, best_t, best_worker, best_master + best_rtt / 2 - best_worker);
        tsync__sim_leave(s, w, last + s->overhead, region);
    }
    tsync__sim_leave(s, 0, t + s->overhead, region);
    return s->rc;
}
