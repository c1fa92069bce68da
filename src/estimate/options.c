/* options.c - the estimate's options checked against the trace and turned into
 * ticks: the estimator's parameters, the samples' minimum latencies (the one
 * latency model, latency/latency.h, with its latency file), the reference
 * asked for. The messages' and collectives' events are checked to exist.
 */
#include <math.h>
#include <stdlib.h>

#include "estimate/run.h"
#include "util/ctx.h"
#include "util/units.h"

/* Longest window of windowed minimum delays (window.c): a drift changing by 0.01
 * ppm/s bends a 5-second window by 30 ns. */
#define WINDOW_S 5.0
/* A pair's windows, at most about so many: 10^7 messages over an hour made 312 000
 * windows of 12 ms, and as many points of the map to smooth, hold, compose and write
 * (25 MB of maps, a third of estimate's time); windows of 55 ms or more hold more
 * messages each way, whose fastest lie closer to the minimum (the map's points 62 ->
 * 8.5 ns off), and bend with the clock by far less than a nanosecond. */
#define WINDOWS_MAX 65536
/* How far above the minimum latency the tightest window's fastest samples may lie,
 * and the curve bend between them (window.c, hold_in_bands). */
#define SLACK_S 100e-9
/* ClockOffset records at most so many longest pieces apart make the curve of a pair
 * that has no other (record_curve.c): the sessions of a tracer that measures every
 * 30 s, not MPI_Init's and MPI_Finalize's records minutes around a main phase. */
#define RECORD_REACH 2

static int to_ticks(const struct tsync_trace *t, double s, const char *what, int64_t *out,
                    tsync_ctx *ctx)
{
    if (tsync__seconds_to_ticks(s, t->timer_resolution, 9.0e18, out))
        return tsync__fail(ctx, TSYNC_EINVAL, "estimate: %s %g s is out of range", what, s);
    return 0;
}

int tsync__est_check_opts(struct tsync__run *r, const tsync_estimate_opts *o,
                      struct tsync__sample_opts *so)
{
    const struct tsync_trace *t = r->t;
    int rc;
    if (o->version == 0 || o->version > TSYNC_ESTIMATE_OPTS_VERSION)
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: options of unknown version %u "
                           "(use TSYNC_ESTIMATE_OPTS_INIT)", o->version);
    if (!tsync__estimator_get(o->estimator))
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: unknown estimator %d",
                           (int)o->estimator);
    if (o->version >= 2 && (unsigned)o->reference_rule > TSYNC_REFERENCE_AUTO)
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: unknown reference rule %d",
                           (int)o->reference_rule);
    if (!(o->max_drift > 0 && o->max_drift < 0.5))
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: maximum drift %g is not in (0, 0.5)",
                           o->max_drift);
    if (o->version >= 2 && !(o->max_wander >= 0 && o->max_wander < 1e-3))
        return tsync__fail(r->ctx, TSYNC_EINVAL, "estimate: maximum wander %g per second is not "
                           "in [0, 1e-3)", o->max_wander);
    if (t->timer_resolution == 0)
        return tsync__fail(r->ctx, TSYNC_EINVAL, "%s: estimate: timer resolution is 0", t->path);
    if ((rc = to_ticks(t, o->min_segment_s, "minimum segment", &r->params.min_segment, r->ctx)) ||
        (rc = to_ticks(t, o->max_gap_s, "maximum gap", &r->params.max_gap, r->ctx)) ||
        (rc = to_ticks(t, o->max_segment_s, "maximum segment", &r->params.max_segment, r->ctx)))
        return rc;
    r->forced = TSYNC__NONE;
    if (o->reference && tsync_trace_find_domain(t, o->reference, &r->forced))
        return tsync__fail(r->ctx, TSYNC_EINVAL, "%s: estimate: reference domain \"%s\" is not in "
                           "the trace (its domains are named by %s; see tracesync check)",
                           t->path, o->reference, tsync_trace_domain_rule(t));
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (m->send_loc >= t->n_locations || m->recv_loc >= t->n_locations ||
            m->send_idx >= t->locations[m->send_loc].n_events ||
            m->recv_idx >= t->locations[m->recv_loc].n_events)
            return tsync__fail(r->ctx, TSYNC_EINVAL, "%s: estimate: message %zu refers to an "
                               "event that does not exist", t->path, i);
    }
    for (size_t q = 0; q < t->n_collectives; q++) {
        const struct tsync_collective *co = &t->collectives[q];
        for (uint32_t i = 0; i < co->n_members; i++) {
            const struct tsync_coll_member *m = &t->members[co->first_member + i];
            if (co->first_member + i >= t->n_members || m->loc >= t->n_locations ||
                m->begin_idx >= t->locations[m->loc].n_events ||
                m->end_idx >= t->locations[m->loc].n_events)
                return tsync__fail(r->ctx, TSYNC_EINVAL, "%s: estimate: collective %zu refers "
                                   "to an event that does not exist", t->path, q);
        }
    }
    if ((rc = tsync__latency_init(&so->lat, t, o->latency_intra_s, o->latency_inter_s,
                                  o->version >= 3 ? o->latency_file : NULL, 9.0e18, "estimate",
                                  r->ctx)))
        return rc;
    so->exchanges = (tsync__estimator_get(o->estimator)->needs & TSYNC__NEEDS_EXCHANGES) != 0;
    so->offsets = o->use_clock_offsets;
    so->max_drift = o->max_drift;
    so->session = r->params.min_segment;
    r->params.max_drift = o->max_drift;
    r->params.wander = (o->version >= 2 ? o->max_wander : 1e-8) / (double)t->timer_resolution;
    r->params.window = (int64_t)llround(WINDOW_S * (double)t->timer_resolution);
    r->params.windows_max = WINDOWS_MAX;
    r->params.slack = (int64_t)llround(SLACK_S * (double)t->timer_resolution);
    r->params.slack = r->params.slack < 2 ? 2 : r->params.slack;   /* the samples' rounding */
    r->params.segment = o->segment;
    r->params.record_reach = RECORD_REACH * r->params.max_segment;
    return 0;
}
