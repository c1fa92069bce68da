/* network.h - simulated message latencies between the ranks of a run.
 *
 * One message from node a to node b takes
 *
 *     minimum(class) + send(a) + recv(b) + excess + outlier        (a != b)
 *     minimum(intra) + excess + outlier                            (a == b)
 *
 * where the minimum is the class's (seed 002, section 6: MareNostrum 1.3 us within a
 * node and 7.7 us between nodes, Cacau 1.0 and 4.7 us); send(a) and recv(b) are fixed
 * per node, drawn uniformly in [0, asymmetry_max]: the hardware, not the role, makes
 * one direction slower than the other (seed 004, section 7; seed 003, section 14);
 * the excess is exponential or gamma (most packets take close to the minimum, a few
 * take much longer: seed 003 section 12, seed 004 section 7); with a small probability
 * an outlier adds an operating system delay, log-uniform in 10 to 1000 us.
 *
 * Latencies are rounded up to whole simulator ticks, so a message never arrives
 * sooner than its minimum: causality holds in the truth.
 */
#ifndef TSYNC_SIM_NETWORK_H
#define TSYNC_SIM_NETWORK_H

#include <stdint.h>

#include "sim/rng.h"
#include "tracesync/sim.h"

struct tsync_sim_net {
    tsync_sim_net_params p;
    uint64_t true_res;         /* simulator ticks per second */
    uint32_t n_nodes;
    double *send_s, *recv_s;   /* per node extra delay, seconds */
    struct tsync_rng rng;
};

/* Draws the per node delays. Returns 0 or -1 when out of memory. */
int tsync__net_init(struct tsync_sim_net *n, const tsync_sim_net_params *p, uint32_t n_nodes,
                    uint64_t true_res, uint64_t seed);
void tsync__net_free(struct tsync_sim_net *n);

/* The fixed part of a->b, seconds: minimum of the class plus the node delays. */
double tsync__net_floor_s(const struct tsync_sim_net *n, uint32_t a, uint32_t b);
/* A random excess (with outliers) for the class of a->b, seconds. */
double tsync__net_excess_s(struct tsync_sim_net *n, uint32_t a, uint32_t b);
/* The same for a class: within a node (inter = 0) or between nodes. */
double tsync__net_excess_class_s(struct tsync_sim_net *n, int inter);
/* One message a->b: floor + excess, in whole simulator ticks (rounded up). */
int64_t tsync__net_latency(struct tsync_sim_net *n, uint32_t a, uint32_t b);
/* Seconds to simulator ticks, rounded up (never below the true value). */
int64_t tsync__net_ticks(const struct tsync_sim_net *n, double s);

#endif
