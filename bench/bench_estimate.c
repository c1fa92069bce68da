/* bench_estimate.c - speed of clock estimation, and the path method against the
 * global least-squares solution on a graph with loops.
 *
 * Usage: bench_estimate [MESSAGES [WORKDIR [TRACESYNC]]]   (default 10000000)
 *
 *   stage=hull        the convex hull estimator alone on one pair, samples in memory
 *   stage=estimate    tsync_estimate_run on a 16-rank, 4-node trace in memory
 *                     (samples, pairs, graph, composition), hull and regression
 *   stage=loops       8 nodes exchanging all to all with biased delays: largest error
 *                     of the path method and of the global solution against the truth
 *
 * With WORKDIR, a CSV of MESSAGES messages between two hosts over an hour
 * (WORKDIR/messages.csv, 40 bytes a line) and, alternating, twice each:
 *
 *   stage=csv-read           the floor: the CSV read into message lists, as
 *                            `estimate` reads it, and nothing else
 *   stage=estimate-command   `tracesync estimate -q -o WORKDIR/maps.json` on it, a
 *                            process of its own (TRACESYNC, default ../tracesync
 *                            beside this program), and its maximum resident memory
 *                            over the messages (bytes/message)
 *   stage=estimate-target    the command against issue 11's targets: processor
 *                            seconds per 10^6 messages (0.1, ten times LTTV's hull)
 *                            and resident bytes per message (32)
 *
 * each with wall and processor (user + system) seconds, messages/s, processor
 * seconds per 10^6 messages and the ratio to the floor on processor time, the
 * better of the two runs.
 *
 * One core; times are wall-clock of the stage alone (the CSV stages: also its
 * processor time).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "estimate/estimator.h"
#include "io/formats.h"
#include "util/fs.h"
#include "util/str.h"
#include "trace/trace.h"
#include "tracesync/estimate.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)      /* xorshift64 */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_estimate: %s\n", what);
    exit(2);
}

/* The hull alone: ping-pongs between two clocks 25 ppm apart, 1 us apart each. */
static void bench_hull(uint64_t n)
{
    struct tsync__pair_samples s;
    struct tsync__est_params p;
    struct tsync__pair_fit fit;
    double t0, t1;
    memset(&s, 0, sizeof(s));
    memset(&p, 0, sizeof(p));
    s.n_above = n / 2;
    s.n_below = n - n / 2;
    s.above = malloc(s.n_above * sizeof(*s.above));
    s.below = malloc(s.n_below * sizeof(*s.below));
    if (!s.above || !s.below)
        die("out of memory");
    for (uint64_t i = 0; i < s.n_above; i++) {
        tsync_time x = (tsync_time)(i * 1000);
        s.above[i].x = x;
        s.above[i].y = 5000000 + x + x / 40000 + 1000 + (tsync_time)(next() % 3000);
    }
    for (uint64_t i = 0; i < s.n_below; i++) {
        tsync_time x = (tsync_time)(i * 1000 + 500);
        s.below[i].x = x;
        s.below[i].y = 5000000 + x + x / 40000 - 1000 - (tsync_time)(next() % 3000);
    }
    p.max_drift = 1e-3;
    p.segment = 1;
    p.min_segment = 1000000000;
    t0 = bench_now();
    if (tsync__fit_pair(&fit, &tsync__hull_estimator, &p, &s))
        die("hull: out of memory");
    t1 = bench_now();
    printf("stage=hull       messages=%llu seconds=%.3f messages/s=%.3g pieces=%zu hull_points=%llu\n",
           (unsigned long long)n, t1 - t0, (double)n / (t1 - t0), fit.pieces.n,
           (unsigned long long)fit.stats.hull_points);
    tsync__pair_fit_free(&fit);
    free(s.above);
    free(s.below);
}

/* A trace in memory: `ranks` ranks on `nodes` nodes with clocks off[node] + (1 +
 * drift[node]) t; each message goes from a random rank to a random rank of another
 * node and arrives after a delay of lat + bias(pair) + jitter. */
struct world {
    int ranks, nodes;
    double off[16], drift[16];
};

static tsync_time local_time(const struct world *w, int node, double t)
{
    return (tsync_time)llround(w->off[node] + (1 + w->drift[node]) * t);
}

static tsync_trace *make_trace(const struct world *w, uint64_t messages, int biased)
{
    tsync_trace *t = tsync__trace_alloc("bench.otf2");
    uint64_t per = 2 * messages / (uint64_t)w->ranks + 16;
    if (!t)
        die("out of memory");
    t->timer_resolution = 1000000000;
    t->n_locations = t->n_ranks = (uint32_t)w->ranks;
    t->n_nodes = t->n_domains = (uint32_t)w->nodes;
    t->locations = calloc((size_t)w->ranks, sizeof(*t->locations));
    t->nodes = calloc((size_t)w->nodes, sizeof(*t->nodes));
    t->domains = calloc((size_t)w->nodes, sizeof(*t->domains));
    t->rank_loc = calloc((size_t)w->ranks, sizeof(*t->rank_loc));
    t->messages = malloc(messages * sizeof(*t->messages));
    if (!t->locations || !t->nodes || !t->domains || !t->rank_loc || !t->messages)
        die("out of memory");
    for (int k = 0; k < w->nodes; k++) {
        char name[16];
        snprintf(name, sizeof(name), "node%d", k);
        t->nodes[k].name = strdup(name);
        t->domains[k].name = strdup(name);
        t->domains[k].node = (uint32_t)k;
    }
    for (int r = 0; r < w->ranks; r++) {
        struct tsync_location *l = &t->locations[r];
        l->ref = (uint64_t)r;
        l->rank = (uint32_t)r;
        l->node = l->domain = (uint32_t)(r % w->nodes);
        l->name = strdup("rank");
        l->time = malloc(per * sizeof(*l->time));
        l->kind = malloc(per);
        t->rank_loc[r] = (tsync_loc)r;
        if (!l->time || !l->kind)
            die("out of memory");
    }
    /* One message every 5 us, each delivered within 4.7 us: every location's events
     * come in time order. */
    for (uint64_t i = 0; i < messages; i++) {
        double ts = 1e6 + (double)i * 5000;
        int s = (int)(next() % (uint64_t)w->ranks), r;
        struct tsync_location *ls, *lr;
        double delay;
        do
            r = (int)(next() % (uint64_t)w->ranks);
        while (r % w->nodes == s % w->nodes);
        /* Biased: 1.2 us slower clockwise round the ring of nodes (to the next
         * nodes - 1 / 2) than back: every pair's estimate is off by 0.6 us, and the
         * offsets around every loop disagree. */
        delay = 1500 + (double)(next() % 2000) +
                (biased && (r % w->nodes - s % w->nodes + w->nodes) % w->nodes < w->nodes / 2
                     ? 1200 : 0);
        ls = &t->locations[s];
        lr = &t->locations[r];
        if (ls->n_events == per || lr->n_events == per)
            break;
        t->messages[i].send_loc = (tsync_loc)s;
        t->messages[i].recv_loc = (tsync_loc)r;
        t->messages[i].send_idx = ls->n_events;
        t->messages[i].recv_idx = lr->n_events;
        ls->time[ls->n_events] = local_time(w, s % w->nodes, ts);
        ls->kind[ls->n_events++] = TSYNC_EV_SEND;
        lr->time[lr->n_events] = local_time(w, r % w->nodes, ts + delay);
        lr->kind[lr->n_events++] = TSYNC_EV_RECV;
        t->n_messages++;
    }
    return t;
}

static void bench_estimate(uint64_t n, enum tsync_estimator which)
{
    struct world w = { 16, 4, { 0, 2e6, -3e6, 7e5 }, { 0, 12e-6, -7e-6, 3e-6 } };
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    tsync_trace *t = make_trace(&w, n, 0);
    tsync_estimate *e;
    tsync_ctx *ctx;
    double t0, t1, worst = 0;
    if (tsync_ctx_new(&ctx))
        die("out of memory");
    o.estimator = which;
    t0 = bench_now();
    if (tsync_estimate_run(&e, t, &o, ctx))
        die(tsync_ctx_error(ctx));
    t1 = bench_now();
    for (uint32_t d = 1; d < tsync_estimate_domain_count(e); d++)
        if (tsync_estimate_get_domain(e, d)->bound_s > worst)
            worst = tsync_estimate_get_domain(e, d)->bound_s;
    printf("stage=estimate   estimator=%s messages=%llu seconds=%.3f messages/s=%.3g "
           "largest_bound_ns=%.0f\n", tsync_estimate_estimator_name(e),
           (unsigned long long)t->n_messages, t1 - t0, (double)t->n_messages / (t1 - t0),
           worst * 1e9);
    tsync_estimate_free(e);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
}

/* Largest |map(x) - truth(x)| over a grid of each domain's times, ns. */
static double max_error(const tsync_estimate *e, const struct world *w, double span)
{
    double worst = 0;
    uint32_t ref = tsync_estimate_component_reference(e, 0);
    int64_t shift = tsync_estimate_component_shift(e, 0);
    for (int d = 0; d < w->nodes; d++)
        for (int k = 0; k <= 100; k++) {
            double t = 1e6 + span * k / 100;
            tsync_time x = local_time(w, d, t);
            double truth = w->off[ref] + (1 + w->drift[ref]) * t + (double)shift;
            double err = fabs((double)tsync_time_map_eval(tsync_estimate_get_domain(e, (uint32_t)d)->map, x) - truth);
            worst = err > worst ? err : worst;
        }
    return worst;
}

static void bench_loops(void)
{
    struct world w = { 8, 8, { 0, 2e6, -3e6, 7e5, 4e5, -1e6, 9e5, 3e6 },
                       { 0, 12e-6, -7e-6, 3e-6, -20e-6, 5e-6, 30e-6, -2e-6 } };
    uint64_t n = 200000;
    tsync_trace *t = make_trace(&w, n, 1);
    tsync_estimate_opts o = TSYNC_ESTIMATE_OPTS_INIT;
    tsync_estimate *path, *global;
    tsync_ctx *ctx;
    double t0, t1, t2;
    if (tsync_ctx_new(&ctx))
        die("out of memory");
    t0 = bench_now();
    if (tsync_estimate_run(&path, t, &o, ctx))
        die(tsync_ctx_error(ctx));
    t1 = bench_now();
    o.global_lsq = 1;
    if (tsync_estimate_run(&global, t, &o, ctx))
        die(tsync_ctx_error(ctx));
    t2 = bench_now();
    printf("stage=loops      method=path   domains=8 pairs=%zu messages=%llu max_error_ns=%.0f "
           "seconds=%.3f\n", tsync_estimate_edge_count(path), (unsigned long long)t->n_messages,
           max_error(path, &w, (double)n * 5000), t1 - t0);
    printf("stage=loops      method=global domains=8 pairs=%zu messages=%llu max_error_ns=%.0f "
           "seconds=%.3f\n", tsync_estimate_edge_count(global), (unsigned long long)t->n_messages,
           max_error(global, &w, (double)n * 5000), t2 - t1);
    tsync_estimate_free(path);
    tsync_estimate_free(global);
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
}

/* ---- the whole command on a CSV ------------------------------------------------------- */

/* n messages between host0 and host1 (clock 12 ms ahead, 3 ppm fast) over an hour,
 * each way at random, 50 us plus up to 40 us of delay (one in a hundred 1 ms more). */
static void write_csv(const char *path, uint64_t n)
{
    FILE *f = fopen(path, "w");
    double step = 3600e9 / (double)n;
    if (!f)
        die("cannot write the CSV");
    setvbuf(f, NULL, _IOFBF, 1 << 22);
    fputs("send_location,send_time_ns,recv_location,recv_time_ns\n", f);
    for (uint64_t i = 0; i < n; i++) {
        double ts = 1e9 + (double)i * step;
        double tr = ts + 50000 + (double)(next() % 40000) + (next() % 100 == 0 ? 1e6 : 0);
        int from1 = (int)(next() & 1);
        double s = from1 ? 12e6 + ts * (1 + 3e-6) : ts, r = from1 ? tr : 12e6 + tr * (1 + 3e-6);
        fprintf(f, "host%d,%lld,host%d,%lld\n", from1, (long long)llround(s), !from1,
                (long long)llround(r));
    }
    if (fclose(f))
        die("cannot write the CSV");
}

/* Wall and processor time of a run, seconds: on a shared machine the processor
 * time is the steadier. */
struct took {
    double wall, cpu;
};

/* User plus system seconds of this process (RUSAGE_SELF) or of its children. */
static double cpu_seconds(int who)
{
    struct rusage ru;
    if (getrusage(who, &ru))
        die("getrusage");
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* The floor: the CSV read as `estimate` reads it. */
static struct took csv_read(const char *path)
{
    tsync_trace *t;
    tsync_ctx *ctx;
    struct took k;
    double t0, c0;
    if (tsync_ctx_new(&ctx))
        die("out of memory");
    t0 = bench_now();
    c0 = cpu_seconds(RUSAGE_SELF);
    if (tsync__trace_open_lists(&t, path, NULL, ctx))
        die(tsync_ctx_error(ctx));
    k.wall = bench_now() - t0;
    k.cpu = cpu_seconds(RUSAGE_SELF) - c0;
    tsync_trace_free(t);
    tsync_ctx_free(ctx);
    return k;
}

/* argv[0] with argv, its output to /dev/null, and the maximum resident kilobytes
 * of the children so far; wall < 0 if it failed. */
static struct took run_command(char *const argv[], long *max_rss_kb)
{
    struct took k = { -1, 0 };
    struct rusage ru;
    int status;
    double t0 = bench_now(), c0 = cpu_seconds(RUSAGE_CHILDREN);
    pid_t pid;
    fflush(stdout);
    if ((pid = fork()) < 0)
        return k;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        getrusage(RUSAGE_CHILDREN, &ru))
        return k;
    *max_rss_kb = ru.ru_maxrss;    /* of the largest child so far: the commands alone */
    k.wall = bench_now() - t0;
    k.cpu = cpu_seconds(RUSAGE_CHILDREN) - c0;
    return k;
}

/* Issue 11's targets for the whole command: processor time per 10^6 messages (ten
 * times faster than LTTV's hull) and resident bytes per message. */
#define TARGET_CPU_PER_MILLION 0.1
#define TARGET_BYTES 32.0

static void print_took(const char *stage, uint64_t n, struct took k)
{
    printf("stage=%-16s fmt=csv messages=%llu seconds=%.3f cpu_seconds=%.3f messages/s=%.3g "
           "cpu_per_1e6=%.3f", stage, (unsigned long long)n, k.wall, k.cpu, (double)n / k.cpu,
           k.cpu * 1e6 / (double)n);
}

static void bench_command(uint64_t n, const char *workdir, const char *tracesync)
{
    char *csv = tsync__path_join(workdir, "messages.csv");
    char *maps = tsync__path_join(workdir, "maps.json");
    char *argv[] = { (char *)tracesync, "estimate", "-q", "-o", maps, csv, NULL };
    struct took floor = { INFINITY, INFINITY }, command = { INFINITY, INFINITY };
    long rss_kb = 0;
    if (!csv || !maps || tsync__mkdirs(workdir, NULL))
        die("cannot make the work directory");
    write_csv(csv, n);
    if (access(tracesync, X_OK) != 0) {
        printf("stage=estimate-command skipped: no executable %s\n", tracesync);
        free(csv);
        free(maps);
        return;
    }
    /* Alternating, so that both see the same machine; the faster of two runs. */
    for (int round = 0; round < 2; round++) {
        struct took f = csv_read(csv), c;
        long kb = 0;
        if ((c = run_command(argv, &kb)).wall < 0)
            die("tracesync estimate failed");
        floor = f.cpu < floor.cpu ? f : floor;
        command = c.cpu < command.cpu ? c : command;
        rss_kb = kb > rss_kb ? kb : rss_kb;
    }
    print_took("csv-read", n, floor);
    printf("\n");
    print_took("estimate-command", n, command);
    printf(" bytes/message=%.1f max_rss_mb=%.0f x_floor=%.1f\n", (double)rss_kb * 1024 / (double)n,
           (double)rss_kb / 1024, command.cpu / floor.cpu);
    printf("stage=estimate-target    cpu_per_1e6=%.3f target=%.3f x_target=%.2f bytes/message=%.1f "
           "target=%.0f %s\n", command.cpu * 1e6 / (double)n, TARGET_CPU_PER_MILLION,
           command.cpu * 1e6 / (double)n / TARGET_CPU_PER_MILLION, (double)rss_kb * 1024 / (double)n,
           TARGET_BYTES,
           command.cpu * 1e6 / (double)n <= TARGET_CPU_PER_MILLION &&
                   (double)rss_kb * 1024 / (double)n <= TARGET_BYTES
               ? "met" : "not met");
    unlink(csv);
    unlink(maps);
    free(csv);
    free(maps);
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    char tracesync[4096];
    if (n < 1000)
        n = 1000;
    if (argc > 2) {
        if (argc > 3)
            snprintf(tracesync, sizeof(tracesync), "%s", argv[3]);
        else
            bench_default_tracesync(argv[0], tracesync, sizeof(tracesync));
        bench_command(n, argv[2], tracesync);
    }
    bench_hull(n);
    /* Every estimator of the table; exchange samples cost about ten times as much. */
    for (unsigned i = 0; i < tsync_estimator_count(); i++) {
        const struct tsync__estimator *est = tsync__estimator_for((enum tsync_estimator)i);
        if (est)
            bench_estimate(est->needs & TSYNC__NEEDS_EXCHANGES ? n / 10 : n,
                           (enum tsync_estimator)i);
    }
    bench_loops();
    return 0;
}
