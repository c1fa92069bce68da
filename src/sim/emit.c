/* emit.c - writes every simulated event twice: to trace.otf2 with the reading of the
 * rank's local clock, to truth.otf2 with the true time, through the streaming OTF2
 * builder (io/otf2_build.h), so that both archives get the same records in the
 * same order. Also the one place that checks a clock never runs backward.
 */
#include <math.h>

#include <otf2/otf2.h>

#include "io/otf2_build.h"
#include "sim/sim.h"
#include "util/ctx.h"

int64_t tsync__sim_ticks(const struct tsync_sim *s, double seconds)
{
    return (int64_t)llround(seconds * (double)s->true_res);
}

int64_t tsync__sim_read(struct tsync_sim *s, uint32_t rank, int64_t t)
{
    return tsync__clock_read(&s->clocks[s->rank_clock[rank]], t) - s->origin[rank];
}

/* Settles the event's true time (not before the rank's `now`) and its two stamps,
 * at[0] local and at[1] true. Returns 0, or the sticky error. */
static int stamp(struct tsync_sim *s, uint32_t rank, int64_t *t, uint64_t at[2])
{
    int64_t local;
    if (s->rc)
        return s->rc;
    if (*t < s->now[rank])
        *t = s->now[rank];
    local = tsync__sim_read(s, rank, *t);
    /* A real clock never runs backward (clock.h explains why this cannot fail). */
    if (local < s->last_local[rank] || local < 0)
        return s->rc = tsync__fail(s->ctx, TSYNC_EINCONSISTENT, "simulator: rank %u: clock %u "
                                   "reads %lld ticks at true tick %lld, before its previous "
                                   "reading %lld", rank, s->rank_clock[rank], (long long)local,
                                   (long long)*t, (long long)s->last_local[rank]);
    s->last_local[rank] = local;
    s->now[rank] = *t + s->gap;
    s->events++;
    at[0] = (uint64_t)local;
    at[1] = (uint64_t)*t;
    return 0;
}

/* Keeps the first error of either builder. Once one has failed, the other is not
 * called again: libotf2 reports errors process-wide, so its message would name the
 * first failure as its own and replace the first builder's. */
static void note(struct tsync_sim *s, int rc)
{
    if (rc && !s->rc)
        s->rc = rc;
}

/* Stamps the event, then makes CALL once per archive with B = its builder and
 * AT = its time; evaluates to the event's true time. */
#define EMIT(s, rank, t, CALL)                                                           \
    do {                                                                                 \
        uint64_t at_[2];                                                                 \
        if (stamp(s, rank, &t, at_) == 0)                                                \
            for (int k_ = 0; k_ < 2 && !s->rc; k_++) {                                   \
                struct tsync_otf2_builder *B = s->out[k_];                               \
                uint64_t AT = at_[k_];                                                   \
                note(s, CALL);                                                           \
            }                                                                            \
        return t;                                                                        \
    } while (0)

int64_t tsync__sim_enter(struct tsync_sim *s, uint32_t rank, int64_t t, const char *region)
{
    EMIT(s, rank, t, tsync__otf2_build_enter(B, rank, AT, region));
}

int64_t tsync__sim_leave(struct tsync_sim *s, uint32_t rank, int64_t t, const char *region)
{
    EMIT(s, rank, t, tsync__otf2_build_leave(B, rank, AT, region));
}

int64_t tsync__sim_message(struct tsync_sim *s, uint32_t rank, int64_t t,
                           const struct tsync_sim_msg *m, int nonblocking)
{
    uint64_t len = s->o->app.message_bytes;
    int sending = rank == m->src;
    EMIT(s, rank, t,
         sending ? (nonblocking ? tsync__otf2_build_isend(B, rank, AT, 0, m->dst, m->tag, len, m->send_req)
                                : tsync__otf2_build_send(B, rank, AT, 0, m->dst, m->tag, len))
                 : (nonblocking ? tsync__otf2_build_irecv(B, rank, AT, 0, m->src, m->tag, len, m->recv_req)
                                : tsync__otf2_build_recv(B, rank, AT, 0, m->src, m->tag, len)));
}

int64_t tsync__sim_isend_complete(struct tsync_sim *s, uint32_t rank, int64_t t, uint64_t request)
{
    EMIT(s, rank, t, tsync__otf2_build_isend_complete(B, rank, AT, request));
}

int64_t tsync__sim_irecv_request(struct tsync_sim *s, uint32_t rank, int64_t t, uint64_t request)
{
    EMIT(s, rank, t, tsync__otf2_build_irecv_request(B, rank, AT, request));
}

int64_t tsync__sim_coll_begin(struct tsync_sim *s, uint32_t rank, int64_t t)
{
    EMIT(s, rank, t, tsync__otf2_build_coll_begin(B, rank, AT));
}

int64_t tsync__sim_coll_end(struct tsync_sim *s, uint32_t rank, int64_t t, uint32_t otf2_op,
                            uint32_t root, uint64_t sent, uint64_t received)
{
    EMIT(s, rank, t, tsync__otf2_build_coll_end(B, rank, AT, (OTF2_CollectiveOp)otf2_op, 0, root,
                                                sent, received));
}

void tsync__sim_clock_offset(struct tsync_sim *s, uint32_t rank, int64_t t, int64_t local,
                             int64_t offset)
{
    if (s->rc)
        return;
    note(s, tsync__otf2_build_clock_offset(s->out[0], rank, (uint64_t)local, offset, 0.0));
    if (!s->rc)
        note(s, tsync__otf2_build_clock_offset(s->out[1], rank, (uint64_t)t, 0, 0.0));
    s->offsets++;
}
