/* network.c - simulated message latencies: minimum per class, per-node asymmetry,
 * exponential or gamma excess, OS noise outliers (see network.h). */
#include <math.h>
#include <stdlib.h>

#include "sim/network.h"

/* Stream number of the network's generator (clocks use 1000 + clock). */
#define NET_STREAM 2

int tsync__net_init(struct tsync_sim_net *n, const tsync_sim_net_params *p, uint32_t n_nodes,
                    uint64_t true_res, uint64_t seed)
{
    n->p = *p;
    n->true_res = true_res;
    n->n_nodes = n_nodes;
    n->send_s = calloc(n_nodes, sizeof(*n->send_s));
    n->recv_s = calloc(n_nodes, sizeof(*n->recv_s));
    if (!n->send_s || !n->recv_s) {
        tsync__net_free(n);
        return -1;
    }
    tsync__rng_seed(&n->rng, seed, NET_STREAM);
    for (uint32_t i = 0; i < n_nodes; i++) {
        n->send_s[i] = tsync__rng_range(&n->rng, 0, p->asymmetry_max_s);
        n->recv_s[i] = tsync__rng_range(&n->rng, 0, p->asymmetry_max_s);
    }
    return 0;
}

void tsync__net_free(struct tsync_sim_net *n)
{
    free(n->send_s);
    free(n->recv_s);
    n->send_s = n->recv_s = NULL;
}

double tsync__net_floor_s(const struct tsync_sim_net *n, uint32_t a, uint32_t b)
{
    if (a == b)
        return n->p.latency_intra_s;
    return n->p.latency_inter_s + n->send_s[a] + n->recv_s[b];
}

double tsync__net_excess_s(struct tsync_sim_net *n, uint32_t a, uint32_t b)
{
    return tsync__net_excess_class_s(n, a != b);
}

double tsync__net_excess_class_s(struct tsync_sim_net *n, int inter)
{
    double mean = inter ? n->p.excess_inter_s : n->p.excess_intra_s, x = 0;
    if (mean > 0)
        x = n->p.excess == TSYNC_SIM_GAMMA ? tsync__rng_gamma(&n->rng, n->p.gamma_shape, mean)
                                           : tsync__rng_exponential(&n->rng, mean);
    if (n->p.outlier_fraction > 0 && tsync__rng_uniform(&n->rng) < n->p.outlier_fraction)
        x += tsync__rng_log_uniform(&n->rng, n->p.outlier_min_s, n->p.outlier_max_s);
    return x;
}

int64_t tsync__net_ticks(const struct tsync_sim_net *n, double s)
{
    return (int64_t)ceil(s * (double)n->true_res);
}

int64_t tsync__net_latency(struct tsync_sim_net *n, uint32_t a, uint32_t b)
{
    return tsync__net_ticks(n, tsync__net_floor_s(n, a, b) + tsync__net_excess_s(n, a, b));
}
