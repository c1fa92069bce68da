/* simulate.c - the simulator's driver (tsync_sim_run): sets up clocks, network and
 * program, runs the phases of an MPI run, and writes trace.otf2, truth.otf2 and
 * scenario.json.
 *
 * The phases, as in seed 002's experiment (section 6):
 *
 *   MPI_Init      ranks start within 1 ms of each other; offsets are measured
 *   sleep         sleep_before_s of idling, then MPI_Barrier
 *   main phase    iterations (app.c) until app.events events or app.duration_s
 *   sleep         MPI_Barrier, then sleep_after_s of idling
 *   MPI_Finalize  offsets are measured again
 *
 * with optional offset sessions every session_interval_s in between (during the
 * sleeps too: a sleep is cut at each session).
 *
 * Streaming. The run advances in lock-step rounds: a compute phase, an exchange,
 * a collective are each computed for all ranks at once, from each rank's current
 * true time, and their events go straight to the two archives' per-rank writers,
 * which only need each rank's own events in order. No event is kept: what the
 * simulator holds is per rank (times, a step's operations), per node (clock state
 * with a bounded window of random-walk knots), or per step, so memory depends on
 * the number of ranks and not on the length of the run. Clocks are asked for times
 * in nearly increasing order (ranks drift apart by at most a few steps between
 * collectives), which is what their bounded window needs (clock.h).
 *
 * Causality in the truth: a receive record is never before its send plus the
 * sampled latency (exec.c), and a collective member never ends before the begins it
 * depends on plus latency (coll.c); latencies are at least the configured minimum.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "io/otf2_build.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "tracesync/version.h"
#include "util/ctx.h"
#include "util/fs.h"
#include "util/outdir.h"
#include "util/str.h"

/* ---- setup ------------------------------------------------------------------- */

/* Per-rank clock origins (EZTrace): the k-th rank of a node starts its clock k
 * gaps after the node's first rank, so it reads that much less on the same
 * oscillator. A stream of their own keeps every other draw as without them. */
static void draw_origins(struct tsync_sim *s)
{
    const tsync_sim_clock_params *c = &s->o->clock;
    double *last = calloc(s->n_nodes, sizeof(*last));
    unsigned char *seen = calloc(s->n_nodes, 1);
    struct tsync_rng rng;
    if (!last || !seen) {
        s->rc = tsync__oom(s->ctx);
        goto out;
    }
    tsync__rng_seed(&rng, s->o->seed, TSYNC_SIM_ORIGIN_STREAM);
    for (uint32_t r = 0; r < s->n_ranks; r++) {
        uint32_t k = s->rank_node[r];
        if (seen[k])
            last[k] += tsync__rng_range(&rng, c->origin_gap_min_s, c->origin_gap_max_s);
        seen[k] = 1;
        s->origin[r] = (int64_t)llround(last[k] * (double)s->o->timer_resolution);
    }
out:
    free(last);
    free(seen);
}

static int setup(struct tsync_sim *s, const tsync_sim_opts *o, tsync_ctx *ctx)
{
    uint32_t n = o->ranks;
    memset(s, 0, sizeof(*s));
    s->o = o;
    s->ctx = ctx;
    s->true_res = o->timer_resolution > 1000000000 ? o->timer_resolution : 1000000000;
    s->n_ranks = n;
    s->n_nodes = o->nodes;
    s->n_clocks = o->clock_per_rank && o->format != TSYNC_SIM_CSV ? n : o->nodes;
    s->rank_node = calloc(n, sizeof(*s->rank_node));
    s->rank_clock = calloc(n, sizeof(*s->rank_clock));
    s->origin = calloc(n, sizeof(*s->origin));
    s->clocks = calloc(s->n_clocks, sizeof(*s->clocks));
    s->now = calloc(n, sizeof(*s->now));
    s->last_local = calloc(n, sizeof(*s->last_local));
    s->next_request = calloc(n, sizeof(*s->next_request));
    s->load = calloc(n, sizeof(*s->load));
    s->perm = calloc(2 * (size_t)n, sizeof(*s->perm));
    s->prog.first = calloc((size_t)n + 1, sizeof(*s->prog.first));
    if (!s->rank_node || !s->rank_clock || !s->origin || !s->clocks || !s->now || !s->last_local ||
        !s->next_request || !s->load || !s->perm || !s->prog.first ||
        tsync__net_init(&s->net, &o->net, o->nodes, s->true_res, o->seed))
        return tsync__oom(ctx);
    for (uint32_t r = 0; r < n; r++) {
        /* Blocks of consecutive ranks per node, as MPI launchers place them by
         * default, or round robin (mpirun --map-by node). */
        s->rank_node[r] = o->cyclic ? r % o->nodes : (uint32_t)((uint64_t)r * o->nodes / n);
        s->rank_clock[r] = s->n_clocks == n && o->clock_per_rank ? r : s->rank_node[r];
        s->next_request[r] = 1;
    }
    for (uint32_t c = 0; c < s->n_clocks; c++) {
        struct tsync_sim_clock_model m;
        struct tsync_rng rng;
        tsync__rng_seed(&rng, o->seed, TSYNC_SIM_CLOCK_STREAM + c);
        tsync__clock_draw(&m, &o->clock, &rng);
        tsync__clock_init(&s->clocks[c], &m, s->true_res, o->timer_resolution, o->seed,
                          TSYNC_SIM_WALK_STREAM + c);
    }
    if (o->clock.origin_gap_max_s > 0)
        draw_origins(s);
    tsync__rng_seed(&s->rng, o->seed, TSYNC_SIM_APP_STREAM);
    for (uint32_t r = 0; r < n; r++)
        s->load[r] = 1.0 + tsync__rng_range(&s->rng, -o->app.imbalance, o->app.imbalance);
    s->gap = tsync__sim_ticks(s, o->read_cost_s);
    if (s->gap < 1)
        s->gap = 1; /* time moves on with every event */
    s->overhead = tsync__sim_ticks(s, o->app.call_overhead_s);
    if (s->overhead < s->gap)
        s->overhead = s->gap;
    return s->rc;
}

static void teardown(struct tsync_sim *s)
{
    free(s->rank_node);
    free(s->rank_clock);
    free(s->origin);
    free(s->clocks);
    free(s->now);
    free(s->last_local);
    free(s->next_request);
    free(s->load);
    free(s->perm);
    tsync__prog_free(&s->prog);
    tsync__coll_free(s);
    tsync__net_free(&s->net);
}

/* Memory the simulator holds (not libotf2's buffers). */
static size_t state_bytes(const struct tsync_sim *s)
{
    size_t n = s->n_ranks;
    return sizeof(*s) + s->n_clocks * sizeof(*s->clocks) + n * (2 * sizeof(uint32_t) +
           4 * sizeof(int64_t) + sizeof(double) + 3 * sizeof(uint32_t)) +
           s->prog.cap_ops * sizeof(*s->prog.ops) + s->prog.cap_msgs * sizeof(*s->prog.msgs) +
           s->coll_scratch_bytes + 2 * s->n_nodes * sizeof(double);
}

static int open_archives(struct tsync_sim *s, const char *dir)
{
    const tsync_sim_opts *o = s->o;
    struct tsync_otf2_build_layout l;
    char **names = calloc(o->nodes, sizeof(*names));
    int rc = TSYNC_OK;
    if (!names)
        return tsync__oom(s->ctx);
    for (uint32_t k = 0; k < o->nodes && !rc; k++)
        if (!(names[k] = tsync__strfmt("node%u", k)))
            rc = tsync__oom(s->ctx);
    memset(&l, 0, sizeof(l));
    l.n_nodes = o->nodes;
    l.nodes = (const char *const *)names;
    l.n_ranks = o->ranks;
    l.rank_node = s->rank_node;
    l.rank_names = true;
    for (int k = 0; k < 2 && !rc; k++) {
        char *anchor = tsync__strfmt("%s/%s", dir, k == 0 ? "trace.otf2" : "truth.otf2");
        l.anchor = anchor;
        l.timer_resolution = k == 0 ? o->timer_resolution : s->true_res;
        rc = anchor ? tsync__otf2_build_open(&s->out[k], &l, s->ctx) : tsync__oom(s->ctx);
        free(anchor);
    }
    for (uint32_t k = 0; k < o->nodes; k++)
        free(names[k]);
    free(names);
    return rc;
}

/* ---- phases ---------------------------------------------------------------------- */

static int64_t latest(const struct tsync_sim *s)
{
    int64_t t = s->now[0];
    for (uint32_t r = 1; r < s->n_ranks; r++)
        if (s->now[r] > t)
            t = s->now[r];
    return t;
}

/* Offset measurement in `region`, or just the region when measurements are off. */
static int init_or_finalize(struct tsync_sim *s, const char *region)
{
    if (s->o->offsets.enabled)
        return tsync__offsets_measure(s, region);
    for (uint32_t r = 0; r < s->n_ranks; r++) {
        int64_t t = tsync__sim_enter(s, r, s->now[r], region);
        tsync__sim_leave(s, r, t + s->overhead, region);
    }
    return s->rc;
}

struct sessions {
    int64_t next;       /* true time of the next session, INT64_MAX: none */
    int64_t interval;
};

/* Runs the sessions that are due. */
static int sessions_due(struct tsync_sim *s, struct sessions *ss)
{
    while (!s->rc && latest(s) >= ss->next) {
        tsync__offsets_measure(s, "clock_sync");
        ss->next += ss->interval;
    }
    return s->rc;
}

/* Idles `seconds` from the latest rank's time, cut by any sessions due. */
static int idle(struct tsync_sim *s, double seconds, struct sessions *ss)
{
    int64_t until;
    if (seconds <= 0)
        return s->rc;
    until = latest(s) + tsync__sim_ticks(s, seconds);
    while (!s->rc && ss->next < until) {
        tsync__app_sleep(s, ss->next);
        sessions_due(s, ss);
    }
    return tsync__app_sleep(s, until);
}

static int run_phases(struct tsync_sim *s, tsync_sim_result *res)
{
    const tsync_sim_opts *o = s->o;
    struct sessions ss = { INT64_MAX, 0 };
    double start_s = 1.0 + o->clock.offset_max_s + o->clock.steps * o->clock.step_max_s +
                     (double)(o->ranks - 1) * o->clock.origin_gap_max_s;
    int64_t t0 = tsync__sim_ticks(s, start_s), first = t0, main_start, limit;

    /* Start at a true time where every clock reads positive; ranks start within 1 ms. */
    for (uint32_t r = 0; r < s->n_ranks; r++) {
        s->now[r] = t0 + tsync__sim_ticks(s, tsync__rng_range(&s->rng, 0, 1e-3));
        if (r == 0 || s->now[r] < first)
            first = s->now[r];
    }
    res->start_s = (double)first / (double)s->true_res;
    if (init_or_finalize(s, "MPI_Init"))
        return s->rc;
    if (o->offsets.session_interval_s > 0) {
        ss.interval = tsync__sim_ticks(s, o->offsets.session_interval_s);
        ss.next = latest(s) + ss.interval;
    }
    if (idle(s, o->app.sleep_before_s, &ss) || tsync__coll_run(s, TSYNC_SIM_BARRIER, 0))
        return s->rc;

    main_start = latest(s);
    limit = o->app.duration_s > 0 ? main_start + tsync__sim_ticks(s, o->app.duration_s) : INT64_MAX;
    while (!s->rc) {
        if (o->app.events && s->events >= o->app.events)
            break;
        if (latest(s) >= limit)
            break;
        if (tsync__app_iteration(s) || sessions_due(s, &ss))
            break;
        if ((s->iterations & 1023) == 0)
            tsync__progress(s->ctx, "simulating events", s->events, o->app.events);
    }
    res->main_start_s = (double)main_start / (double)s->true_res;
    res->main_end_s = (double)latest(s) / (double)s->true_res;
    if (s->rc || tsync__coll_run(s, TSYNC_SIM_BARRIER, 0) || idle(s, o->app.sleep_after_s, &ss) ||
        init_or_finalize(s, "MPI_Finalize"))
        return s->rc;
    res->end_s = (double)latest(s) / (double)s->true_res;
    return s->rc;
}

/* ---- scenario.json -------------------------------------------------------------- */

static json_t *clocks_json(const struct tsync_sim *s)
{
    json_t *a = json_array();
    for (uint32_t c = 0; a && c < s->n_clocks; c++) {
        const struct tsync_sim_clock_model *m = &s->clocks[c].m;
        json_t *ranks = json_array(), *steps = json_array();
        json_t *o = json_pack("{s:i, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "clock", (json_int_t)c,
                              "ranks", ranks, "offset_s", m->offset_s, "skew_ppm", m->skew * 1e6,
                              "temp_amp_ppm", m->temp_amp * 1e6, "temp_period_s", m->temp_period_s,
                              "temp_phase_rad", m->temp_phase, "daily_amp_ppm", m->daily_amp * 1e6,
                              "walk_q_per_s", m->rw_q);
        for (uint32_t r = 0; ranks && r < s->n_ranks; r++)
            if (s->rank_clock[r] == c)
                json_array_append_new(ranks, json_integer(r));
        for (uint32_t j = 0; steps && j < m->n_steps; j++)
            json_array_append_new(steps, json_pack("[f, f]", m->step_t[j], m->step_d[j]));
        if (!o || !steps || json_object_set_new(o, "steps_at_s_size_s", steps) ||
            json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *network_json(const struct tsync_sim *s)
{
    json_t *send = json_array(), *recv = json_array();
    for (uint32_t k = 0; send && recv && k < s->n_nodes; k++) {
        json_array_append_new(send, json_real(s->net.send_s[k]));
        json_array_append_new(recv, json_real(s->net.recv_s[k]));
    }
    return json_pack("{s:o, s:o}", "send_delay_s", send, "recv_delay_s", recv);
}

static int write_scenario(const struct tsync_sim *s, const tsync_sim_result *r, const char *path)
{
    json_t *rank_node = json_array(), *doc;
    int rc = TSYNC_OK;
    for (uint32_t i = 0; rank_node && i < s->n_ranks; i++)
        json_array_append_new(rank_node, json_integer(s->rank_node[i]));
    doc = json_pack("{s:s, s:i, s:s, s:o, s:{s:I, s:o, s:s}, s:o, s:o, s:{s:I, s:I, s:I, s:I, "
                    "s:f, s:f, s:f, s:f}}",
                    "format", "tracesync-scenario", "version", 1, "tracesync", TSYNC_VERSION,
                    "parameters", tsync__sim_params_json(s->o),
                    "layout", "truth_resolution", (json_int_t)s->true_res, "rank_node", rank_node,
                    "node_names", "node<index>",
                    "clocks", clocks_json(s), "network", network_json(s),
                    "result", "events", (json_int_t)r->events, "messages", (json_int_t)r->messages,
                    "collectives", (json_int_t)r->collectives,
                    "clock_offsets", (json_int_t)r->clock_offsets, "start_s", r->start_s,
                    "end_s", r->end_s, "main_start_s", r->main_start_s, "main_end_s", r->main_end_s);
    if (!doc)
        return tsync__oom(s->ctx);
    if (json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)))
        rc = tsync__fail(s->ctx, TSYNC_EIO, "%s: cannot write: %s", path, strerror(errno));
    json_decref(doc);
    return rc;
}

/* ---- output directory ------------------------------------------------------------ */

/* What a run writes, anchors last: an archive is complete when its anchor appears. */
static const char *const outputs[] = { "trace", "trace.def", "truth", "truth.def",
                                       "scenario.json", "trace.csv", "truth.csv",
                                       "trace.otf2", "truth.otf2" };

/* Measured on the named scenarios: about 16 events per rank and iteration (the
 * patterns' calls, each an enter, a leave and a message record), 28 bytes an event
 * in trace.otf2 and truth.otf2 together, 79 bytes a message in trace.csv and
 * truth.csv together. */
#define EVENTS_PER_ITERATION 16.0
#define OTF2_BYTES_PER_EVENT 28.0
#define CSV_BYTES_PER_MESSAGE 79.0

double tsync_sim_estimate_events(const tsync_sim_opts *o)
{
    double by_time, iteration_s = fmax(o->app.compute_mean_s, 10e-6);
    if (o->format == TSYNC_SIM_CSV) {
        uint32_t a, b, links = tsync__hosts_links(o->hosts.topology, o->nodes, 0, &a, &b);
        return 2.0 * 2.0 * (double)o->hosts.messages * (double)links; /* both ways, two events each */
    }
    by_time = o->app.duration_s > 0
                  ? (double)o->ranks * o->app.duration_s / iteration_s * EVENTS_PER_ITERATION
                  : INFINITY;
    return o->app.events ? fmin((double)o->app.events, by_time) : by_time;
}

double tsync_sim_estimate_bytes(const tsync_sim_opts *o)
{
    double events = tsync_sim_estimate_events(o);
    if (o->format == TSYNC_SIM_CSV)
        return events / 2.0 * CSV_BYTES_PER_MESSAGE;
    return events * OTF2_BYTES_PER_EVENT;
}

int tsync_sim_run(tsync_sim_result *out, const tsync_sim_opts *o, const char *outdir, tsync_ctx *ctx)
{
    struct tsync_sim s;
    tsync_sim_result res;
    char *tmp = NULL, *json = NULL;
    int rc;

    memset(&res, 0, sizeof(res));
    if ((rc = tsync_sim_validate(o, ctx)))
        return rc;
    if (!outdir || !*outdir)
        return tsync__fail(ctx, TSYNC_EINVAL, "simulate: no output directory");
    if ((rc = setup(&s, o, ctx)) || (rc = tsync__outdir_begin(&tmp, outdir, ctx)))
        goto out;
    if (o->format == TSYNC_SIM_CSV)
        rc = tsync__hosts_run(&s, &res, tmp);
    else if ((rc = open_archives(&s, tmp)) == TSYNC_OK)
        rc = run_phases(&s, &res);
    for (int k = 0; k < 2; k++) { /* close both; the first error is the run's */
        if (rc)
            tsync__otf2_build_abandon(s.out[k]);
        else
            rc = tsync__otf2_build_close(s.out[k]);
        s.out[k] = NULL;
    }
    if ((rc = tsync__outdir_failed(rc, tmp, ctx)))
        goto out;
    res.events = s.events;
    res.messages = s.messages;
    res.collectives = s.collectives;
    res.clock_offsets = s.offsets;
    res.state_bytes = state_bytes(&s);
    if (!(json = tsync__strfmt("%s/scenario.json", tmp))) {
        rc = tsync__oom(ctx);
        goto out;
    }
    if ((rc = tsync__outdir_failed(write_scenario(&s, &res, json), tmp, ctx)))
        goto out;
    rc = tsync__outdir_finish(tmp, outdir, outputs, sizeof(outputs) / sizeof(outputs[0]), ctx);
    tmp = NULL;
    if (rc)
        goto out;
    if (out)
        *out = res;
out:
    tsync__outdir_end(tmp);
    free(json);
    teardown(&s);
    return rc;
}
