/* clc.c - the controlled logical clock stage (seed 002): checks its input, builds
 * the per-location event lists, pre-synchronizes, runs forward passes under the
 * gamma controller, amortizes backward, verifies the guarantees of clc.h (and
 * computes Table 4 in the same pass, a location per thread) and puts LC' into the
 * caller's timeline.
 *
 * The input times C are only read (after pre-synchronization, which maps them in
 * place): LC' is computed into arrays of the stage, so that a second pass can start
 * again from C. On success LC' replaces the timeline's arrays (tsync_clc_run), or
 * becomes a new timeline and the input stays as it was (tsync__clc_run_new, for
 * the pipeline, whose other thread checks the input meanwhile).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "clc/clc.h"
#include "clc/clc_api.h"
#include "metrics/deviation_acc.h"
#include "util/ctx.h"
#include "util/units.h"
#include "util/vec.h"
#include "util/workers.h"

#define DELTA_MAX ((int64_t)1 << 24)
#define RANGE_BLOCK 4096 /* events mapped and range-checked at a time */
#define MU_MAX ((double)((int64_t)1 << 50)) /* ticks: keeps LC' + mu far from overflow */

static int bad_event(const struct tsync_trace *t, tsync_loc loc, uint64_t idx)
{
    return loc >= t->n_locations || idx >= t->locations[loc].n_events;
}

static int check_opts(const tsync_clc_opts *o, tsync_ctx *ctx)
{
    if (o->version == 0 || o->version > TSYNC_CLC_OPTS_VERSION)
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: options of unknown version %u (use "
                           "TSYNC_CLC_OPTS_INIT)", o->version);
    if (o->delta_ticks < 0 || o->delta_ticks > DELTA_MAX)
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: delta %lld ticks is not in 0 .. %lld",
                           (long long)o->delta_ticks, (long long)DELTA_MAX);
    if (!(o->gamma >= 0.0 && o->gamma <= 1.0))
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: gamma %g is not in [0, 1]", o->gamma);
    if (o->max_passes < 1 || o->max_passes > TSYNC_CLC_MAX_PASSES)
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: %u passes is not in 1 .. %d", o->max_passes,
                           TSYNC_CLC_MAX_PASSES);
    if (!(o->error_threshold >= 0.0) || !isfinite(o->error_threshold))
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: error threshold %g is not a number >= 0",
                           o->error_threshold);
    if (!(o->max_slope > 0.0) || !isfinite(o->max_slope))
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: amortization slope %g is not a number > 0",
                           o->max_slope);
    return TSYNC_OK;
}

/* Collective instance q's index in the whole trace (a process of a replay holds
 * some instances only). */
static uint64_t coll_id(const struct tsync_trace *t, size_t q)
{
    return t->coll_ids ? t->coll_ids[q] : q;
}

/* The receive list, the member list with roles and instances; validates every
 * event the trace's messages and collectives refer to. */
static int build_index(struct clc *c)
{
    const struct tsync_trace *t = c->t;
    size_t nm = t->n_members ? t->n_members : 1;

    if (t->n_messages >= UINT32_MAX || t->n_members >= UINT32_MAX || t->n_collectives >= UINT32_MAX)
        return tsync__fail(c->ctx, TSYNC_EUNSUPPORTED, "%s: clc: 2^32 or more messages or "
                           "collective members", t->path);
    c->role = malloc(nm * sizeof(*c->role));
    c->inst = malloc(nm * sizeof(*c->inst));
    c->bound = malloc(nm * sizeof(*c->bound));
    if (!c->role || !c->inst || !c->bound || tsync__clc_list_init(&c->recvs, t, t->n_messages, 1) ||
        tsync__clc_list_init(&c->membs, t, t->n_members, 0) ||
        tsync__clc_agg_init(&c->agg, t->n_nodes))
        return tsync__oom(c->ctx);
    c->memory += t->n_messages * (2 * sizeof(uint64_t) + sizeof(uint32_t)) +
                 t->n_members * (sizeof(uint64_t) + sizeof(uint32_t) + sizeof(*c->role) +
                                 sizeof(*c->inst) + sizeof(*c->bound)) +
                 (size_t)t->n_nodes * (sizeof(uint64_t) + 3 * sizeof(int64_t));

    /* First pass: validate and mark (index.c). */
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (bad_event(t, m->send_loc, m->send_idx) || bad_event(t, m->recv_loc, m->recv_idx))
            return tsync__fail(c->ctx, TSYNC_EINVAL, "%s: clc: message %llu refers to an event "
                               "that does not exist", t->path, (unsigned long long)
                               (t->message_ids ? t->message_ids[i] : i));
        if (clc_held(c, m->recv_loc))   /* in a replay, the receives of this process */
            tsync__clc_list_mark(&c->recvs, m->recv_loc, m->recv_idx);
    }
    for (size_t q = 0; q < t->n_collectives; q++) {
        const struct tsync_collective *co = &t->collectives[q];
        if (co->first_member > t->n_members || co->n_members > t->n_members - co->first_member)
            return tsync__fail(c->ctx, TSYNC_EINVAL, "%s: clc: collective %llu has members out "
                               "of range", t->path, (unsigned long long)coll_id(t, q));
        for (uint32_t i = 0; i < co->n_members; i++) {
            size_t k = co->first_member + i;
            const struct tsync_coll_member *m = &t->members[k];
            if (bad_event(t, m->loc, m->begin_idx) || bad_event(t, m->loc, m->end_idx) ||
                m->begin_idx > m->end_idx)
                return tsync__fail(c->ctx, TSYNC_EINVAL, "%s: clc: collective %llu member %u "
                                   "refers to events that do not exist or are out of order",
                                   t->path, (unsigned long long)coll_id(t, q), i);
            c->inst[k] = (uint32_t)q;
            c->role[k] = (uint8_t)tsync__coll_role(co, m);
            if (c->role[k] && clc_held(c, m->loc))
                tsync__clc_list_mark(&c->membs, m->loc, m->begin_idx);
        }
    }
    /* Second pass: each entry into its slot. */
    if (tsync__clc_list_ready(&c->recvs) || tsync__clc_list_ready(&c->membs))
        return tsync__oom(c->ctx);
    for (size_t i = 0; i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (clc_held(c, m->recv_loc))
            tsync__clc_list_put(&c->recvs, m->recv_loc, m->recv_idx, m->send_loc, m->send_idx);
    }
    for (size_t q = 0; q < t->n_collectives; q++) {
        const struct tsync_collective *co = &t->collectives[q];
        for (uint32_t i = 0; i < co->n_members; i++) {
            size_t k = co->first_member + i;
            if (c->role[k] && clc_held(c, t->members[k].loc))
                tsync__clc_list_put(&c->membs, t->members[k].loc, t->members[k].begin_idx,
                                    (uint32_t)k, 0);
        }
    }
    if (tsync__clc_list_finish(&c->recvs) || tsync__clc_list_finish(&c->membs))
        return tsync__oom(c->ctx);
    /* The forward pass walks a location's collective calls one after the other. */
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        for (size_t k = c->membs.first[l] + 1; k < c->membs.first[l + 1]; k++) {
            const struct tsync_coll_member *a = &t->members[c->membs.id[k - 1]];
            const struct tsync_coll_member *b = &t->members[c->membs.id[k]];
            if (b->begin_idx <= a->end_idx)
                return tsync__fail(c->ctx, TSYNC_EINVAL, "%s: location %llu: event %llu: "
                                   "collective calls overlap (begin before the end of the "
                                   "previous one at event %llu)", t->path,
                                   (unsigned long long)t->locations[l].ref,
                                   (unsigned long long)b->begin_idx,
                                   (unsigned long long)a->end_idx);
        }
    }
    return TSYNC_OK;
}

/* Room for LC', then C: the input times, pre-synchronized in place where asked
 * and possible (the caller's times are not needed afterwards, and a copy would cost
 * 8 more bytes per event). */
static int inputs(struct clc *c, tsync_time *const *in, const tsync_clc_opts *o,
                  tsync_clc_result *r)
{
    const struct tsync_trace *t = c->t;
    tsync_time_map **maps = NULL;
    int rc = TSYNC_OK;

    for (tsync_loc l = 0; l < t->n_locations; l++) {
        size_t n = (size_t)t->locations[l].n_events;
        if (!clc_held(c, l))
            continue;
        if (!(c->out[l] = tsync__alloc_array(n, sizeof(tsync_time))))
            return tsync__oom(c->ctx);
        c->memory += n * sizeof(tsync_time);
        c->in[l] = in[l];
    }
    if (o->presync && (rc = tsync__clc_presync_maps(&maps, &r->presync_locations, t, c->ctx)))
        return rc;
    for (size_t i = 0; maps && i < t->n_offsets; i++)
        r->offset_records += clc_held(c, t->offsets[i].loc);
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        size_t n = clc_held(c, l) ? (size_t)t->locations[l].n_events : 0;
        tsync_time *x = in[l];
        /* A block at a time, so that the check reads what the map just wrote from
         * the cache; branch-free minimum and maximum, the event only on failure. */
        for (size_t b = 0; b < n; b += RANGE_BLOCK) {
            size_t e = n - b < RANGE_BLOCK ? n : b + RANGE_BLOCK;
            int64_t lo = 0, hi = 0;
            if (maps && maps[l])
                tsync_time_map_eval_array(maps[l], x + b, x + b, e - b);
            for (size_t j = b; j < e; j++) {
                lo = x[j] < lo ? x[j] : lo;
                hi = x[j] > hi ? x[j] : hi;
            }
            if (hi <= CLC_TIME_MAX && lo >= -CLC_TIME_MAX)
                continue;
            for (size_t j = b; j < e; j++)
                if (x[j] > CLC_TIME_MAX || x[j] < -CLC_TIME_MAX) {
                    rc = tsync__fail(c->ctx, TSYNC_EUNSUPPORTED, "%s: location %llu: event %zu: "
                                     "time %lld is beyond the +-2^60 ticks the clc handles",
                                     t->path, (unsigned long long)t->locations[l].ref, j,
                                     (long long)x[j]);
                    goto out;
                }
        }
    }
out:
    tsync__clc_presync_free(maps, t->n_locations);
    return rc;
}

/* Forward passes under the gamma controller (section 5.2, gamma.c). */
static int passes(struct clc *c, const tsync_clc_opts *o, tsync_clc_result *r)
{
    double gamma = o->gamma, prev_gamma = gamma, prev_error = 0;
    int rc;
    for (;;) {
        double error;
        if ((rc = tsync__clc_forward(c, gamma)))
            return rc;
        c->pass++;
        if ((rc = tsync__clc_error(c, &error)))
            return rc;
        r->pass_gamma[r->passes] = gamma;
        r->pass_error[r->passes] = error;
        r->passes++;
        r->gamma = gamma;
        r->error = error;
        if (r->passes > 1 && !tsync__clc_improved(prev_error, error)) {
            /* Not worth the smaller gamma: the previous pass again. */
            if ((rc = tsync__clc_forward(c, prev_gamma)))
                return rc;
            r->pass_gamma[r->passes] = prev_gamma;
            r->pass_error[r->passes] = prev_error;
            r->passes++;
            r->gamma = prev_gamma;
            r->error = prev_error;
            return TSYNC_OK;
        }
        if (error <= o->error_threshold || r->passes >= o->max_passes)
            return TSYNC_OK;
        prev_gamma = gamma;
        prev_error = error;
        gamma = tsync__clc_next_gamma(gamma);
    }
}

/* What verify found on one location. */
struct loc_verify {
    struct tsync_dev_acc pos, dist;
    uint64_t moved;
    int64_t max_shift;
    uint64_t bad;             /* the first event that breaks a guarantee, or UINT64_MAX */
};

struct verify_job {
    const struct clc *c;
    struct loc_verify *v;     /* one per location */
    _Atomic tsync_loc next;
};

/* One location: the guarantees of clc.h on every event (no event earlier than its
 * input, none before its predecessor plus delta or their input distance if less),
 * the events moved, and Table 4
 * (metrics/deviation_acc.h), in the order tsync_deviation_compute takes them. */
static void verify_location(const struct clc *c, tsync_loc l, struct loc_verify *v)
{
    const tsync_time *in = c->in[l], *out = c->out[l];
    uint64_t n = c->t->locations[l].n_events;
    int64_t delta = c->delta;

    v->bad = UINT64_MAX;
    if (n == 0 || !clc_held(c, l))
        return;
    if (out[0] < in[0]) {
        v->bad = 0;
        return;
    }
    if (out[0] != in[0]) {
        v->moved++;
        v->max_shift = out[0] - in[0];
    }
    for (uint64_t j = 1; j < n; j++) {
        int64_t cj = in[j], lj = out[j];
        if (lj < cj || lj < out[j - 1] + clc_delta_step(delta, cj - in[j - 1])) {
            v->bad = j;
            return;
        }
        if (lj != cj) {
            v->moved++;
            if (lj - cj > v->max_shift)
                v->max_shift = lj - cj;
        }
        tsync__dev_add(&v->pos, in[0], cj, out[0], lj);
        tsync__dev_add(&v->dist, in[j - 1], cj, out[j - 1], lj);
    }
}

static void verify_worker(void *arg, unsigned w)
{
    struct verify_job *job = arg;
    tsync_loc l;
    (void)w;
    while ((l = atomic_fetch_add(&job->next, 1)) < job->c->t->n_locations)
        verify_location(job->c, l, &job->v[l]);
}

/* One pass over C and LC' while both are at hand, locations on as many threads as
 * the context allows (it reads what the clc wrote, nothing else): the guarantees
 * (a failure is a bug, reported at the first location that has one), the events
 * moved, and Table 4, merged in location order as tsync_deviation_compute merges
 * them, so that both give the same numbers to the bit. */
static int verify(struct clc *c, tsync_clc_result *r)
{
    const struct tsync_trace *t = c->t;
    struct verify_job job;
    struct tsync_dev_acc pos, dist;
    int64_t max_shift = 0;
    uint64_t moved = 0;
    unsigned n = tsync__threads(c->ctx);

    if (!(job.v = calloc(t->n_locations ? t->n_locations : 1, sizeof(*job.v))))
        return tsync__oom(c->ctx);
    job.c = c;
    atomic_init(&job.next, 0);
    if (n > t->n_locations)
        n = t->n_locations ? t->n_locations : 1;
    tsync__run_workers(n, verify_worker, &job);
    memset(&pos, 0, sizeof(pos));
    memset(&dist, 0, sizeof(dist));
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        const struct loc_verify *v = &job.v[l];
        if (v->bad != UINT64_MAX) {
            uint64_t j = v->bad;
            const tsync_time *in = c->in[l], *out = c->out[l];
            free(job.v);
            return tsync__fail(c->ctx, TSYNC_EINCONSISTENT, "%s: location %llu: event %llu: the "
                               "clc moved it from %lld to %lld (after %lld): a bug", t->path,
                               (unsigned long long)t->locations[l].ref, (unsigned long long)j,
                               (long long)in[j], (long long)out[j],
                               (long long)(j ? out[j - 1] : 0));
        }
        moved += v->moved;
        max_shift = v->max_shift > max_shift ? v->max_shift : max_shift;
        tsync__dev_merge(&pos, &v->pos);
        tsync__dev_merge(&dist, &v->dist);
    }
    free(job.v);
    c->max_shift = max_shift;
    r->moved_events = moved;
    r->max_shift_s = tsync__seconds(t, max_shift);
    tsync__dev_finish(&r->position, &pos, t);
    tsync__dev_finish(&r->distance, &dist, t);
    return TSYNC_OK;
}

static void free_state(struct clc *c)
{
    const struct tsync_trace *t = c->t;
    for (tsync_loc l = 0; c->out && l < t->n_locations; l++)
        free(c->out[l]);
    free(c->out);
    free((void *)c->in);
    tsync__latency_free(&c->lat);
    tsync__clc_list_free(&c->recvs);
    tsync__clc_list_free(&c->membs);
    tsync__clc_agg_free(&c->agg);
    free(c->role);
    free(c->inst);
    free(c->bound);
    free(c->jumps);
    tsync__clc_replay_free(c);
}

/* What both entry points check before anything else. */
static int check_args(const tsync_trace *t, const tsync_timeline *tl, const tsync_clc_opts *opts,
                      tsync_ctx *ctx)
{
    int rc;
    if ((rc = check_opts(opts, ctx)))
        return rc;
    if (!tl || tl->n_locations != t->n_locations)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: clc: the timeline has %u locations, the trace "
                           "%u", t->path, tl ? tl->n_locations : 0, t->n_locations);
    if (t->timer_resolution == 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: clc: timer resolution is 0", t->path);
    return TSYNC_OK;
}

/* The stage on the input times `in` (pre-synchronized in place when opts ask for
 * it), LC' left in c->out. *out gets the result. */
static int run(struct clc *c, tsync_clc_result **out, const tsync_trace *t, tsync_time *const *in,
               const tsync_clc_opts *opts, const struct tsync__clc_transport *tr, tsync_ctx *ctx)
{
    tsync_clc_result *r = NULL;
    size_t nl = t->n_locations ? t->n_locations : 1;
    int rc;

    memset(c, 0, sizeof(*c));
    c->t = t;
    c->ctx = ctx;
    c->tr = tr;
    c->held = tr ? t->held : NULL;
    c->delta = opts->delta_ticks;
    c->max_slope = opts->max_slope;
    c->out = calloc(nl, sizeof(*c->out));
    c->in = calloc(nl, sizeof(*c->in));
    r = calloc(1, sizeof(*r));
    if (!c->out || !c->in || !r) {
        rc = tsync__oom(ctx);
        goto out;
    }
    /* Every process of a replay agrees on each step's result before the next, whose
     * exchanges would otherwise wait for a process that gave up. */
    rc = tsync__latency_init(&c->lat, c->t, opts->latency_intra_s, opts->latency_inter_s,
                             opts->latency_file, MU_MAX, "clc", c->ctx);
    if (rc == TSYNC_OK && (rc = build_index(c)) == TSYNC_OK)
        rc = tsync__clc_replay_init(c);
    if (rc == TSYNC_OK)
        rc = inputs(c, in, opts, r);
    if ((rc = tsync__clc_agree(c, rc)) || (rc = passes(c, opts, r)))
        goto out;
    c->memory += c->cap_jumps * sizeof(*c->jumps);
    if ((rc = tsync__clc_agree(c, tsync__clc_backward(c))) ||
        (rc = tsync__clc_agree(c, verify(c, r))) || (rc = tsync__clc_replay_counts(c, r)))
        goto out;

    r->presync = opts->presync != 0;
    r->receives = c->receives;
    r->corrected_p2p = c->corrected_p2p;
    r->corrected_collective = c->corrected_coll;
    r->corrected = c->corrected_p2p + c->corrected_coll;
    r->max_jump_s = tsync__seconds(t, c->max_jump);
    r->amortized_events = c->amortized;
    r->limited_jumps = c->limited;
    r->ignored = c->ignored;
    r->latency_intra_s = opts->latency_intra_s;
    r->latency_inter_s = opts->latency_inter_s;
    r->latency_intra_ticks = c->lat.intra;
    r->latency_inter_ticks = c->lat.inter;
    r->latency_pairs = (uint32_t)c->lat.n;
    r->delta_ticks = c->delta;
    r->max_slope = c->max_slope;
    r->timer_resolution = t->timer_resolution;
    r->events = tsync_trace_event_count(t);
    r->memory = c->memory;
    *out = r;
    r = NULL;
out:
    tsync_clc_result_free(r);
    return rc;
}

int tsync_clc_run(tsync_clc_result **out, const tsync_trace *t, tsync_timeline *tl,
                  const tsync_clc_opts *opts, tsync_ctx *ctx)
{
    return tsync__clc_run_replay(out, t, tl, opts, NULL, ctx);
}

int tsync__clc_run_replay(tsync_clc_result **out, const tsync_trace *t, tsync_timeline *tl,
                          const tsync_clc_opts *opts, const struct tsync__clc_transport *tr,
                          tsync_ctx *ctx)
{
    static const tsync_clc_opts defaults = TSYNC_CLC_OPTS_INIT;
    struct clc c;
    int rc;

    if (!out || !t)
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: no trace");
    if (!opts)
        opts = &defaults;
    if ((rc = check_args(t, tl, opts, ctx)))
        return rc;
    if ((rc = run(&c, out, t, tl->time, opts, tr, ctx)) == TSYNC_OK) {
        /* LC' becomes the timeline. */
        for (tsync_loc l = 0; l < t->n_locations; l++) {
            if (!clc_held(&c, l))
                continue;
            free(tl->time[l]);
            tl->time[l] = c.out[l];
            c.out[l] = NULL;
        }
    }
    free_state(&c);
    return rc;
}

int tsync__clc_run_new(tsync_clc_result **out, tsync_timeline **out_tl, const tsync_trace *t,
                       const tsync_timeline *in, const tsync_clc_opts *opts, tsync_ctx *ctx)
{
    struct clc c;
    tsync_clc_result *r = NULL;
    tsync_timeline *tl = NULL;
    int rc;

    if (!out || !out_tl || !t || !opts)
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: no trace");
    if ((rc = check_args(t, in, opts, ctx)))
        return rc;
    if (opts->presync)
        return tsync__fail(ctx, TSYNC_EINVAL, "clc: pre-synchronization would change the input");
    if (!(tl = calloc(1, sizeof(*tl))) ||
        !(tl->time = calloc(t->n_locations ? t->n_locations : 1, sizeof(*tl->time)))) {
        free(tl);
        return tsync__oom(ctx);
    }
    tl->n_locations = t->n_locations;
    /* With presync off, the input is only read. */
    if ((rc = run(&c, &r, t, in->time, opts, NULL, ctx)) == TSYNC_OK) {
        for (tsync_loc l = 0; l < t->n_locations; l++) {
            tl->time[l] = c.out[l];
            c.out[l] = NULL;
        }
        *out = r;
        *out_tl = tl;
        tl = NULL;
    }
    free_state(&c);
    tsync_timeline_free(tl);
    return rc;
}

void tsync_clc_result_free(tsync_clc_result *r)
{
    free(r);
}
