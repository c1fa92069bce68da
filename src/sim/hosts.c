/* hosts.c - messages between hosts, written as CSV (format csv): the message lists
 * of seed 003 (section 12: hosts on a LAN exchanging TCP packets for an hour).
 *
 * The hosts are the run's nodes, one clock each (clock.c), and the messages travel
 * through the same network model as an MPI run's (network.c, class "between
 * nodes"). Every link of the topology carries hosts.messages messages in each
 * direction, sent at uniform random true times over app.duration_s. Two files:
 *
 *     trace.csv   send_location,send_time_ns,recv_location,recv_time_ns with the
 *                 hosts' local clocks (the format of src/io/csv.c)
 *     truth.csv   the same rows with true times
 *
 * Rows are in order of true send time; a message arrives no sooner than its
 * minimum latency after it was sent, so causality holds in the truth. All messages
 * are held at once (16 bytes each), unlike the streaming MPI run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "util/ctx.h"
#include "util/str.h"

struct host_msg {
    int64_t sent;      /* true time, simulator ticks */
    uint32_t src, dst;
};

static int by_sent(const void *pa, const void *pb)
{
    const struct host_msg *a = pa, *b = pb;
    if (a->sent != b->sent)
        return a->sent < b->sent ? -1 : 1;
    return a->src != b->src ? (a->src < b->src ? -1 : 1) : (a->dst > b->dst) - (a->dst < b->dst);
}

uint32_t tsync__hosts_links(enum tsync_sim_topology t, uint32_t n, uint32_t i, uint32_t *a,
                            uint32_t *b)
{
    switch (t) {
    case TSYNC_SIM_TOPO_PAIR: *a = 0, *b = 1; return 1;
    case TSYNC_SIM_TOPO_CHAIN: *a = i, *b = i + 1; return n - 1;
    case TSYNC_SIM_TOPO_STAR: *a = 0, *b = i + 1; return n - 1;
    case TSYNC_SIM_TOPO_RING: *a = i, *b = (i + 1) % n; return n == 2 ? 1 : n;
    case TSYNC_SIM_TOPO_MESH: {
        uint32_t k = i;  /* pairs (a, b), a < b, in order */
        for (*a = 0; k >= n - 1 - *a; (*a)++)
            k -= n - 1 - *a;
        *b = *a + 1 + k;
        return n * (n - 1) / 2;
    }
    }
    return 0;
}

static FILE *open_csv(struct tsync_sim *s, const char *dir, const char *name, char **path)
{
    FILE *f;
    if (!(*path = tsync__strfmt("%s/%s", dir, name))) {
        s->rc = tsync__oom(s->ctx);
        return NULL;
    }
    if (!(f = fopen(*path, "w")))
        s->rc = tsync__fail(s->ctx, TSYNC_EIO, "%s: cannot write: %s", *path, strerror(errno));
    else
        fputs("send_location,send_time_ns,recv_location,recv_time_ns\n", f);
    return f;
}

static void close_csv(struct tsync_sim *s, FILE *f, const char *path)
{
    if (f && (ferror(f) | fclose(f)) && !s->rc)
        s->rc = tsync__fail(s->ctx, TSYNC_EIO, "%s: cannot write: %s", path, strerror(errno));
}

int tsync__hosts_run(struct tsync_sim *s, tsync_sim_result *res, const char *dir)
{
    const tsync_sim_opts *o = s->o;
    uint32_t a, b, n_links = tsync__hosts_links(o->hosts.topology, o->nodes, 0, &a, &b);
    uint64_t per = o->hosts.messages, n = 2 * per * n_links, k = 0;
    int64_t t0 = tsync__sim_ticks(s, 1.0 + o->clock.offset_max_s +
                                         o->clock.steps * o->clock.step_max_s);
    double span = o->app.duration_s * (double)s->true_res;
    struct host_msg *m = calloc(n, sizeof(*m));
    char *path[2] = { NULL, NULL };
    FILE *f[2] = { NULL, NULL };

    if (!m)
        return s->rc = tsync__oom(s->ctx);
    for (uint32_t i = 0; i < n_links; i++) {
        tsync__hosts_links(o->hosts.topology, o->nodes, i, &a, &b);
        for (uint64_t j = 0; j < 2 * per; j++, k++) {
            m[k].sent = t0 + (int64_t)(tsync__rng_uniform(&s->rng) * span);
            m[k].src = j < per ? a : b;
            m[k].dst = j < per ? b : a;
        }
    }
    qsort(m, n, sizeof(*m), by_sent);
    f[0] = open_csv(s, dir, "trace.csv", &path[0]);
    if (!s->rc)
        f[1] = open_csv(s, dir, "truth.csv", &path[1]);
    for (k = 0; k < n && !s->rc; k++) {
        int64_t recv = m[k].sent + tsync__net_latency(&s->net, m[k].src, m[k].dst);
        fprintf(f[0], "host%u,%lld,host%u,%lld\n", m[k].src,
                (long long)tsync__clock_read(&s->clocks[m[k].src], m[k].sent), m[k].dst,
                (long long)tsync__clock_read(&s->clocks[m[k].dst], recv));
        fprintf(f[1], "host%u,%lld,host%u,%lld\n", m[k].src, (long long)m[k].sent, m[k].dst,
                (long long)recv);
        if (recv > s->now[0])
            s->now[0] = recv;
    }
    close_csv(s, f[0], path[0]);
    close_csv(s, f[1], path[1]);
    free(path[0]);
    free(path[1]);
    s->events = 2 * n;
    s->messages = n;
    res->start_s = res->main_start_s = n ? (double)m[0].sent / (double)s->true_res : 0;
    res->end_s = res->main_end_s = (double)s->now[0] / (double)s->true_res;
    free(m);
    return s->rc;
}
