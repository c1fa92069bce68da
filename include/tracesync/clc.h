/* clc.h - the controlled logical clock (CLC): removes the clock condition
 * violations that remain after clock synchronization, moving events only forward
 * and preserving the length of local intervals as far as possible (Rabenseifner
 * 1997; Becker, Rabenseifner, Wolf, Linford 2009 = "seed 002", sections 3 to 5).
 *
 * Input is a timeline of a trace holding the times C_i to correct (the raw times,
 * or times already mapped onto a reference clock); the output LC' replaces them in
 * the same timeline. The stage runs in four steps:
 *
 * 1. Pre-synchronization (optional, on by default). Each location with ClockOffset
 *    records gets the Score-P/libotf2 linear offset interpolation: global = local +
 *    offset, with the offset interpolated linearly between the records and
 *    extrapolated with the slope of the nearest pair outside them; a single record
 *    is a constant offset (libotf2 ignores a lone record; a measured offset is
 *    information, so we apply it). Locations without records keep their times.
 *    This maps the timeline's own times, so use it on raw times only.
 *
 * 2. Forward amortization (Eq. 4 and 4'), for every location i and event j:
 *      LC'(e_j) = max( LC'(e_{j-1}) + min(delta, C(e_j) - C(e_{j-1})),
 *                      LC'(e_{j-1}) + gamma * (C(e_j) - C(e_{j-1})),
 *                      C(e_j),
 *                      max over the sends e_k of e_j of LC'(e_k) + mu(k, i) )
 *    where the last term exists only for (logical) receives and the two first ones
 *    not for a location's first event (seed 002's delta, which keeps the clock
 *    advancing, but no further than the input advanced: events that share a tick
 *    keep sharing it instead of pushing the location ahead a tick each). gamma *
 *    interval is taken in whole ticks, the fraction of a tick it loses carried to
 *    the next interval (so that gamma just below 1 still lets a correction fade
 *    over many short intervals).
 *    Collective operations are mapped onto logical messages as tsync_check_run
 *    does (section 4.1): begins of the members in S send, ends of the members in R
 *    receive, scan and exscan deliver to ranks at or above / above the sender, and
 *    no member receives from its own location. The maximum over an instance's
 *    sends is taken once per instance (no S x R loop).
 *    A receive whose message term exceeds the other terms is a violation
 *    "explicitly corrected"; the excess is its jump.
 *
 * 3. gamma control (section 5.2). The forward pass runs with gamma = opts.gamma
 *    (0.99999, as Scalasca). Its error is
 *        error = max over locations of (LC'(last event) - C(last event)) / T
 *    with T the length of the run (last minus first input time over all
 *    locations): how much faster than the input clocks LC' has run, the symptom
 *    of the avalanche effect that gamma < 1 bounds. While the error is above
 *    opts.error_threshold and passes remain, the pass is repeated with gamma'
 *    = max(1 - 10 (1 - gamma), 0.9 gamma) (0.99999, 0.9999, 0.999, 0.99, 0.9,
 *    0.81, ...). A pass that does not lower the error by at least 10 % is not
 *    worth its smaller gamma (which shortens local intervals): the previous pass
 *    is then run again and kept. One pass is the rule.
 *
 * 4. Backward amortization (section 3.2, Fig. 2; section 4.2). Each jump dt at a
 *    receive r is ramped up over the amortization interval of length dt / max_slope
 *    before r (clipped at the location's first event): an event at time t there
 *    moves forward by g(t), g rising linearly from 0 to dt. A send e may not move
 *    past its limit, the time after forward amortization of its receive minus mu
 *    (for a collective send the minimum over its receives). Where limits bind, g is
 *    the lower convex hull of (start, 0), the sends' allowed moves and (r, dt): a
 *    piecewise linear function through the binding sends, flatter before them and
 *    steeper after (the dotted line of Fig. 2), never above the plain ramp. Jumps
 *    of a location are amortized one after the other, earliest first.
 *
 * Guarantees: no event moves backward (LC' >= C), a location's events keep their
 * order (LC' non-decreasing, at least delta apart or as far as in the input if less),
 * every message processed meets
 * the clock condition LC'(recv) >= LC'(send) + mu, and running the stage on its own
 * output changes nothing. The one exception: messages that close a cycle (a
 * receive that waits, through other messages, on a send after it: impossible in a
 * real run, possible in a mis-matched trace) cannot be ordered; each such receive
 * is computed without the sends it cannot wait for, counted in `ignored` and
 * reported as a warning.
 *
 * Typical use:
 *
 *     tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
 *     tsync_clc_result *r;
 *     tsync_timeline *tl;
 *     if (tsync_timeline_new(&tl, trace, ctx) == 0 &&
 *         tsync_clc_run(&r, trace, tl, &o, ctx) == 0) {
 *         tsync_clc_result_print(r, stdout);
 *         tsync_trace_write(trace, tl, "corrected", ctx);
 *         tsync_clc_result_free(r);
 *     }
 */
#ifndef TRACESYNC_CLC_H
#define TRACESYNC_CLC_H

#include <stdio.h>

#include "tracesync/common.h"
#include "tracesync/metrics.h"
#include "tracesync/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most forward passes tsync_clc_run makes (the limit of opts.max_passes). */
#define TSYNC_CLC_MAX_PASSES 16

/**
 * Options for tsync_clc_run; initialize with TSYNC_CLC_OPTS_INIT.
 *
 * Minimum latencies mu: the defaults are those of tsync_check_opts (0.3 us within
 * a node, 1 us between nodes), so that `tracesync check` with its defaults agrees
 * with the result; Scalasca uses 1 us for both. `latency_file` overrides them per
 * pair of nodes: one pair per line, "NODE_A NODE_B LATENCY" with a unit (ns, us,
 * ms, s), e.g. "node0 node1 2.5us", valid in both directions; "node0 node0 0.4us"
 * sets the latency within node0; '#' starts a comment. Node names are those of the
 * trace's system tree.
 */
typedef struct {
    unsigned version;
    double latency_intra_s;    /* minimum latency within a node, seconds (>= 0) */
    double latency_inter_s;    /* minimum latency between nodes, seconds (>= 0) */
    const char *latency_file;  /* per node pair latencies, or NULL */
    int64_t delta_ticks;       /* minimal distance of a location's events that are
                                * apart in the input (0 .. 2^24) */
    double gamma;              /* gamma of the first forward pass, in [0, 1] */
    unsigned max_passes;       /* forward passes at most, 1 .. TSYNC_CLC_MAX_PASSES */
    double error_threshold;    /* the error (see above) below which a pass is kept */
    double max_slope;          /* backward amortization: interval = jump / max_slope, > 0 */
    int presync;               /* apply ClockOffset interpolation first (1) or not (0) */
} tsync_clc_opts;
#define TSYNC_CLC_OPTS_VERSION 1
#define TSYNC_CLC_OPTS_INIT \
    { TSYNC_CLC_OPTS_VERSION, 0.3e-6, 1.0e-6, NULL, 1, 0.99999, 4, 0.01, 0.01, 1 }

/** What the stage did. Plain data, owned by the caller; free with tsync_clc_result_free. */
typedef struct tsync_clc_result {
    int presync;                  /* pre-synchronization was asked for */
    uint32_t presync_locations;   /* locations mapped by ClockOffset interpolation */
    uint64_t offset_records;      /* ClockOffset records used */
    unsigned passes;              /* forward passes run (a repeated pass counts) */
    double pass_gamma[TSYNC_CLC_MAX_PASSES + 1];  /* gamma of each pass run (+1: a */
    double pass_error[TSYNC_CLC_MAX_PASSES + 1];  /* repeated pass), and its error */
    double gamma;                 /* gamma of the pass kept */
    double error;                 /* error of the pass kept */
    uint64_t receives;            /* receive events examined: point-to-point and logical */
    uint64_t corrected;           /* receives put forward by the message term (jumps) */
    uint64_t corrected_p2p;       /* ... of them point-to-point receives */
    uint64_t corrected_collective;/* ... of them collective ends */
    double max_jump_s;            /* the largest jump */
    uint64_t amortized_events;    /* events moved by backward amortization */
    uint64_t limited_jumps;       /* jumps whose amortization a send's limit bent (Fig. 2) */
    uint64_t ignored;             /* receives computed without some of their sends (cycles) */
    uint64_t moved_events;        /* events whose time changed (LC' > C) */
    double max_shift_s;           /* the largest LC' - C */
    double latency_intra_s, latency_inter_s;  /* as given */
    int64_t latency_intra_ticks, latency_inter_ticks;  /* as used */
    uint32_t latency_pairs;       /* node pairs from the latency file */
    int64_t delta_ticks;
    double max_slope;
    uint64_t timer_resolution;
    uint64_t events;              /* events of the trace */
    size_t memory;                /* peak working memory of the stage, bytes */
    /* Table 4 of the seed: how LC' changed local intervals against C (the stage's
     * input after pre-synchronization). */
    tsync_deviation position, distance;
} tsync_clc_result;

/**
 * Runs the controlled logical clock on `timeline` (in: C_i, out: LC'). `opts` may
 * be NULL for the defaults. On failure the context names file, location and event,
 * and the timeline is unchanged; only a failure after pre-synchronization (out of
 * memory, corrected times beyond range) leaves it pre-synchronized.
 * @return 0, or TSYNC_EINVAL (bad options, a timeline of another trace, messages or
 *         collectives referring to events that do not exist, collective calls that
 *         overlap on a location), TSYNC_EIO / TSYNC_EFORMAT (the latency file),
 *         TSYNC_EINCONSISTENT (ClockOffset records that would map later times to
 *         earlier ones, or two records at one time with different offsets),
 *         TSYNC_EUNSUPPORTED (times beyond +-2^60 ticks, 2^32 or more messages or
 *         collective members) or TSYNC_ENOMEM; *out is set only on success.
 */
TSYNC_API int tsync_clc_run(tsync_clc_result **out, const tsync_trace *trace,
                            tsync_timeline *timeline, const tsync_clc_opts *opts,
                            tsync_ctx *ctx);

/**
 * Step 1 alone: maps the timeline's times of every location that has ClockOffset
 * records through their linear interpolation (see above). *out_locations and
 * *out_records (either may be NULL) get the number of locations mapped and of
 * records used. On failure the timeline is unchanged. Running tsync_clc_run with
 * opts.presync = 0 afterwards is the same as running it with presync on.
 * @return 0, TSYNC_EINVAL, TSYNC_EINCONSISTENT, TSYNC_EUNSUPPORTED or TSYNC_ENOMEM.
 */
TSYNC_API int tsync_clc_presync(uint32_t *out_locations, uint64_t *out_records,
                                const tsync_trace *trace, tsync_timeline *timeline,
                                tsync_ctx *ctx);

/** Frees a result; NULL is fine. */
TSYNC_API void tsync_clc_result_free(tsync_clc_result *r);

/** Writes a short human summary (a dozen lines, with units) to `out`. */
TSYNC_API void tsync_clc_result_print(const tsync_clc_result *r, FILE *out);

/**
 * The result as JSON text, malloc'ed (free with free()), or NULL when out of
 * memory. Keys: presync, presync_locations, offset_records, passes, gamma, error,
 * pass_gamma, pass_error (arrays), receives, corrected, corrected_p2p,
 * corrected_collective, max_jump_s, amortized_events, limited_jumps, ignored,
 * moved_events, max_shift_s, latency_intra_s, latency_inter_s, latency_pairs,
 * delta_ticks, max_slope, timer_resolution, events, memory_bytes.
 * (The deviation is not part of it: reports put it under their own "deviation".)
 */
TSYNC_API char *tsync_clc_result_json(const tsync_clc_result *r);

#ifdef __cplusplus
}
#endif
#endif
