/* bench_clc.c - speed and memory of the controlled logical clock on a simulated
 * trace, and of the whole `tracesync clc` command, against the floor of reading
 * and writing the same OTF2 archive.
 *
 * Usage: bench_clc [EVENTS] [DIR] [TRACESYNC] [RUNS]
 *   EVENTS     default 10000000, in the main phase of scenario "default"
 *   DIR        default ./bench-clc (the simulated trace and the outputs)
 *   TRACESYNC  the tracesync binary to time as a whole (default: ../tracesync next to
 *              this program's directory); "-" skips the command
 *   RUNS       default 5: the floor and the command are each run this many times,
 *              every time printed, the median compared
 * Prints one line per stage: stage=... fmt=otf2 events=... seconds=... events/s=...
 * [bytes/event=...], and for the command ratio_to_read+write=..., the median of the
 * command over the median of the floor.
 *
 * Stages:
 *   read+match   tsync_trace_open (libotf2 read, our model, message matching)
 *   clc          tsync_clc_run with its defaults and the scenario's latencies: the
 *                ClockOffset pre-synchronization, forward and backward amortization,
 *                the checks of every event and the Table 4 deviation (one pass,
 *                "deviation" below gives the cost of that deviation on its own)
 *   write(copy)  the floor: tsync_trace_write on one thread, libotf2 reading the
 *                input and writing the copy record by record, each run in a process
 *                of its own as the command runs (this program again, with --copy:
 *                it reads the trace, then times the copy alone). Every tool that
 *                writes a corrected OTF2 archive does this much.
 *   write(copy,warm) the same copy of the clc's result repeated in this process, for
 *                comparison: later copies reuse memory that earlier ones had the
 *                kernel clear, which a process of its own cannot
 *   clc-command  `tracesync clc ANCHOR -o DIR/cmd -q --latency intra=..,inter=..`, the
 *                whole process: read, three checks, pre-synchronization, clc,
 *                deviation, write, report; reading and writing on one thread per
 *                processor (its default --threads), the floor on one. Its runs
 *                alternate with the floor's, so that both see the same machine.
 *
 * `bench_clc --copy ANCHOR OUTDIR` is the floor's process: it prints the seconds
 * of one copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "tracesync/clc.h"
#include "tracesync/metrics.h"
#include "tracesync/sim.h"
#include "tracesync/trace.h"

#define MAX_RUNS 15

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double s[MAX_RUNS];
    memcpy(s, v, (size_t)n * sizeof(*v));
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* " runs=0.512,0.498,0.530" */
static void print_runs(const double *v, int n)
{
    printf(" runs=");
    for (int i = 0; i < n; i++)
        printf("%s%.3f", i ? "," : "", v[i]);
}

/* Runs argv[0] with argv, its standard output into out[0, size) (NUL-terminated);
 * returns its wall time, or a negative number if it failed. */
static double run_process(char *const argv[], char *out, size_t size)
{
    double t0;
    int status, fd[2];
    size_t got = 0;
    ssize_t n;
    pid_t pid;
    fflush(stdout);              /* or the child writes our buffer again */
    if (pipe(fd) != 0)
        return -1;
    t0 = bench_now();
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        if (dup2(fd[1], STDOUT_FILENO) < 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    while (got + 1 < size && (n = read(fd[0], out + got, size - 1 - got)) > 0)
        got += (size_t)n;
    out[got] = '\0';
    while (read(fd[0], &(char){ 0 }, 1) > 0)
        ;
    close(fd[0]);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return bench_now() - t0;
}

/* --copy ANCHOR OUTDIR: the floor's process. Reads the trace, then prints the
 * seconds of its copy on one thread. */
static int copy_main(const char *anchor, const char *outdir)
{
    tsync_trace *trace;
    tsync_timeline *tl;
    tsync_ctx *ctx;
    double t0;
    if (tsync_ctx_new(&ctx))
        return 2;
    if (tsync_trace_open(&trace, anchor, NULL, ctx) || tsync_timeline_new(&tl, trace, ctx))
        bench_fail("bench_clc --copy", ctx, "read");
    tsync_ctx_set_threads(ctx, 1);
    t0 = bench_now();
    if (tsync_trace_write(trace, tl, outdir, ctx))
        bench_fail("bench_clc --copy", ctx, "write");
    printf("%.6f\n", bench_now() - t0);
    tsync_timeline_free(tl);
    tsync_trace_free(trace);
    tsync_ctx_free(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t target = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *dir = argc > 2 ? argv[2] : "bench-clc";
    int runs = argc > 4 ? atoi(argv[4]) : 5;
    char anchor[4096], outdir[4096], cmddir[4096], cmd[8300], tracesync[4096], latency[128];
    double floor_s[MAX_RUNS], warm_s[MAX_RUNS], command_s[MAX_RUNS], t0, dev_s;
    char self[4096], out[64];
    ssize_t len;
    int have_command;
    tsync_sim_opts so = TSYNC_SIM_OPTS_INIT;
    tsync_clc_opts co = TSYNC_CLC_OPTS_INIT;
    tsync_deviation pos, dist;
    tsync_sim_result sr;
    tsync_clc_result *cr = NULL;
    tsync_trace *trace;
    tsync_timeline *tl, *ref;
    tsync_ctx *ctx;
    uint64_t events;

    if (argc == 4 && strcmp(argv[1], "--copy") == 0)
        return copy_main(argv[2], argv[3]);
    if (runs < 1 || runs > MAX_RUNS)
        runs = 5;
    if (argc > 3)
        snprintf(tracesync, sizeof(tracesync), "%s", argv[3]);
    else
        bench_default_tracesync(argv[0], tracesync, sizeof(tracesync));
    snprintf(anchor, sizeof(anchor), "%s/sim/trace.otf2", dir);
    snprintf(outdir, sizeof(outdir), "%s/out", dir);
    snprintf(cmddir, sizeof(cmddir), "%s/cmd", dir);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s/sim' '%s/out' '%s/cmd'", dir, dir, dir);
    if (system(cmd) != 0 || tsync_ctx_new(&ctx))
        return 2;
    /* Scenario "default" (8 ranks on 4 nodes, every pattern and collective class),
     * with the main phase ended after `target` events. */
    so.app.events = target;
    so.app.duration_s = 0;
    snprintf(cmd, sizeof(cmd), "%s/sim", dir);
    if (tsync_sim_validate(&so, ctx) || tsync_sim_run(&sr, &so, cmd, ctx))
        bench_fail("bench_clc", ctx, "simulate");

    t0 = bench_now();
    if (tsync_trace_open(&trace, anchor, NULL, ctx))
        bench_fail("bench_clc", ctx, "read");
    events = tsync_trace_event_count(trace);
    bench_report_otf2("read+match", events, bench_now() - t0,
           (double)tsync_trace_memory(trace) / (double)events);
    printf("\n");
    if (tsync_timeline_new(&tl, trace, ctx))
        bench_fail("bench_clc", ctx, "timeline");

    co.latency_intra_s = so.net.latency_intra_s;
    co.latency_inter_s = so.net.latency_inter_s;
    t0 = bench_now();
    if (tsync_clc_run(&cr, trace, tl, &co, ctx))
        bench_fail("bench_clc", ctx, "clc");
    bench_report_otf2("clc", events, bench_now() - t0,
           (double)(tsync_trace_memory(trace) + cr->memory) / (double)events +
               (double)sizeof(tsync_time));
    printf("\n  passes=%u corrected=%llu moved=%llu working_memory_bytes/event=%.1f\n",
           cr->passes, (unsigned long long)cr->corrected, (unsigned long long)cr->moved_events,
           (double)cr->memory / (double)events);

    /* The Table 4 deviation on its own, for its share of the stage (inside the stage
     * it shares a pass over C and LC' with the checks of every event). */
    if (tsync_timeline_new(&ref, trace, ctx) || tsync_clc_presync(NULL, NULL, trace, ref, ctx))
        bench_fail("bench_clc", ctx, "reference timeline");
    t0 = bench_now();
    if (tsync_deviation_compute(&pos, &dist, trace, ref, tl, ctx))
        bench_fail("bench_clc", ctx, "deviation");
    dev_s = bench_now() - t0;
    printf("  deviation=%.3fs (alone, as a pass of its own)%s\n", dev_s,
           pos.avg == cr->position.avg && dist.avg == cr->distance.avg ? "" :
           " MISMATCH with the clc's own");
    tsync_timeline_free(ref);

    tsync_ctx_set_threads(ctx, 1); /* the floor is a plain copy, one location after another */
    for (int i = 0; i < runs; i++) {
        t0 = bench_now();
        if (tsync_trace_write(trace, tl, outdir, ctx))
            bench_fail("bench_clc", ctx, "write");
        warm_s[i] = bench_now() - t0;
    }

    tsync_clc_result_free(cr);
    tsync_timeline_free(tl);
    tsync_trace_free(trace);

    /* The floor and the whole command, each run in a process of its own, one after
     * the other, after the trace is freed here. */
    have_command = strcmp(tracesync, "-") != 0 && access(tracesync, X_OK) == 0;
    snprintf(latency, sizeof(latency), "intra=%.17gs,inter=%.17gs", so.net.latency_intra_s,
             so.net.latency_inter_s);
    if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
        snprintf(self, sizeof(self), "%s", argv[0]);
    else
        self[len] = '\0';
    for (int i = 0; i < runs; i++) {
        char *copy_argv[] = { self, "--copy", anchor, outdir, NULL };
        char *clc_argv[] = { tracesync, "clc", anchor, "-o", cmddir, "-q", "--latency", latency,
                             NULL };
        if (run_process(copy_argv, out, sizeof(out)) < 0 || (floor_s[i] = atof(out)) <= 0) {
            fprintf(stderr, "bench_clc: %s --copy failed\n", self);
            return 2;
        }
        if (have_command && (command_s[i] = run_process(clc_argv, out, sizeof(out))) < 0) {
            fprintf(stderr, "bench_clc: %s clc failed\n", tracesync);
            return 2;
        }
    }
    bench_report_otf2("write(copy)", events, median(floor_s, runs), 0);
    print_runs(floor_s, runs);
    printf("\n");
    bench_report_otf2("write(copy,warm)", events, median(warm_s, runs), 0);
    print_runs(warm_s, runs);
    printf("\n");
    if (have_command) {
        bench_report_otf2("clc-command", events, median(command_s, runs), 0);
        print_runs(command_s, runs);
        printf(" ratio_to_read+write=%.2f ratio_to_warm_copy=%.2f\n",
               median(command_s, runs) / median(floor_s, runs),
               median(command_s, runs) / median(warm_s, runs));
    } else {
        printf("stage=clc-command      skipped: no executable %s\n", tracesync);
    }
    tsync_ctx_free(ctx);
    return 0;
}
