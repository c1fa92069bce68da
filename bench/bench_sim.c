/* bench_sim.c - speed and memory of the simulator (tsync_sim_run) on runs of
 * growing length, against the floor: the same number of events written to two
 * archives by the OTF2 builder with nothing simulated.
 *
 * Usage: bench_sim [EVENTS] [DIR]   (default 10000000 events in ./bench-sim)
 * Each run happens in a child process so that its peak RSS (getrusage) is its own:
 * runs of EVENTS/10, EVENTS and 2 x EVENTS show whether memory grows with length.
 * Prints: stage=... events=... seconds=... events/s=... peak_rss_MB=... state_bytes=...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "io/otf2_build.h"
#include "tracesync/sim.h"
#include "util/fs.h"

#define RANKS 8
#define NODES 4

static double peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* ru_maxrss is in KiB on Linux */
}

static void report(const char *stage, uint64_t events, double seconds, size_t state)
{
    printf("stage=%-10s events=%llu seconds=%.3f events/s=%.3g peak_rss_MB=%.1f", stage,
           (unsigned long long)events, seconds, (double)events / seconds, peak_rss_mb());
    if (state)
        printf(" state_bytes=%zu", state);
    printf("\n");
    fflush(stdout);
}

/* The simulator: scenario "default" (8 ranks, 4 nodes, every pattern and collective,
 * offsets at init and finalize), main phase ended at `events`. */
static int simulate(uint64_t events, const char *dir)
{
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
    tsync_sim_result r;
    tsync_ctx *ctx;
    double t0;
    if (tsync_ctx_new(&ctx))
        return 2;
    o.app.events = events;
    t0 = bench_now();
    if (tsync_sim_run(&r, &o, dir, ctx)) {
        fprintf(stderr, "bench_sim: %s\n", tsync_ctx_error(ctx));
        return 2;
    }
    report("simulate", r.events, bench_now() - t0, r.state_bytes);
    tsync_ctx_free(ctx);
    return 0;
}

/* The floor: enter/leave pairs with made-up times into two archives. */
static int floor_write(uint64_t events, const char *dir)
{
    static const char *const nodes[NODES] = { "n0", "n1", "n2", "n3" };
    uint32_t rank_node[RANKS];
    struct tsync_otf2_build_layout l;
    struct tsync_otf2_builder *b[2];
    char anchor[2][4200];
    tsync_ctx *ctx;
    uint64_t n = 0;
    double t0;
    if (tsync_ctx_new(&ctx))
        return 2;
    for (uint32_t r = 0; r < RANKS; r++)
        rank_node[r] = r / (RANKS / NODES);
    memset(&l, 0, sizeof(l));
    l.timer_resolution = 1000000000;
    l.n_nodes = NODES;
    l.nodes = nodes;
    l.n_ranks = RANKS;
    l.rank_node = rank_node;
    tsync__remove_tree(dir);
    t0 = bench_now();
    for (int k = 0; k < 2; k++) {
        if (snprintf(anchor[k], sizeof(anchor[k]), "%s/%s.otf2", dir, k ? "truth" : "trace") >=
            (int)sizeof(anchor[k]))
            goto fail;
        l.anchor = anchor[k];
        if (tsync__otf2_build_open(&b[k], &l, ctx))
            goto fail;
    }
    for (uint64_t i = 0; n < events; i++)
        for (uint32_t r = 0; r < RANKS; r++, n += 2)
            for (int k = 0; k < 2; k++) {
                uint64_t t = 1000000 + i * 1000 + (uint64_t)k * 7;
                if (tsync__otf2_build_enter(b[k], r, t, "compute") ||
                    tsync__otf2_build_leave(b[k], r, t + 500, "compute"))
                    goto fail;
            }
    for (int k = 0; k < 2; k++)
        if (tsync__otf2_build_close(b[k]))
            goto fail;
    report("floor", n, bench_now() - t0, 0);
    tsync_ctx_free(ctx);
    return 0;
fail:
    fprintf(stderr, "bench_sim: %s\n", tsync_ctx_error(ctx));
    return 2;
}

/* Runs fn in a child process, so that its peak memory is measured alone. */
static int in_child(int (*fn)(uint64_t, const char *), uint64_t events, const char *dir)
{
    int status;
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0)
        _exit(fn(events, dir));
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return 2;
    return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    uint64_t target = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *dir = argc > 2 ? argv[2] : "bench-sim";
    const uint64_t sizes[] = { target / 10, target, 2 * target };
    char sub[4200];
    int rc = 0;

    snprintf(sub, sizeof(sub), "%s/floor", dir);
    rc |= in_child(floor_write, target, sub);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !rc; i++) {
        snprintf(sub, sizeof(sub), "%s/sim", dir);
        rc |= in_child(simulate, sizes[i], sub);
    }
    tsync__remove_tree(dir);
    return rc;
}
