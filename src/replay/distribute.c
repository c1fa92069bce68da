/* distribute.c - the trace split over the processes of the replay: each reads every
 * definition and the events of the locations it holds (io/formats.h,
 * tsync__trace_open_part), the event counts of the others come by one reduction,
 * and the records of messages and collectives every process read are matched on
 * process 0 by the serial matcher (match/) and the result sent to all, so that
 * every process has the same messages and instances as `tracesync clc` would.
 *
 * Each process gets the messages of its own locations, with their indices in the
 * whole list (so that it keeps their order, and a message has one name everywhere).
 * Process 0 holds every record while it matches, and every process every collective
 * instance and member (32 bytes each): the parts that are not yet distributed
 * (README, "Known limits").
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "io/formats.h"
#include "match/match.h"
#include "replay/replay.h"
#include "util/ctx.h"

/* Gathers n bytes at `buf` of every process to process 0, in process order: *all
 * (malloc'ed) and *n_all there. */
static int gather(MPI_Comm comm, const void *buf, size_t n, void **all, size_t *n_all,
                  tsync_ctx *ctx)
{
    int rank, size, mine = (int)n, *count = NULL, *displ = NULL, rc = TSYNC_OK;
    size_t total = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    *all = NULL;
    *n_all = 0;
    if (rank == 0) {
        count = calloc((size_t)size, sizeof(*count));
        displ = calloc((size_t)size, sizeof(*displ));
    }
    MPI_Gather(&mine, 1, MPI_INT, count, 1, MPI_INT, 0, comm);
    if (rank == 0) {
        for (int r = 0; count && displ && r < size; r++) {
            displ[r] = (int)total;
            total += (size_t)count[r];
        }
        if (!count || !displ || !(*all = malloc(total ? total : 1)))
            rc = tsync__oom(ctx);
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK)
        MPI_Gatherv(buf, mine, MPI_BYTE, *all, count, displ, MPI_BYTE, 0, comm);
    free(count);
    free(displ);
    if (rc) {
        free(*all);
        *all = NULL;
    }
    *n_all = total;
    return rc;
}

/* Sends process 0's *n bytes at *buf to every process: *buf (malloc'ed, the old one
 * freed elsewhere than on 0) and *n. */
static int broadcast(MPI_Comm comm, void **buf, size_t *n, tsync_ctx *ctx)
{
    int rank, rc = TSYNC_OK;
    unsigned long long len = *n;
    MPI_Comm_rank(comm, &rank);
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    if (rank != 0) {
        free(*buf);
        if (!(*buf = malloc(len ? (size_t)len : 1)))
            rc = tsync__oom(ctx);
        *n = (size_t)len;
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK)
        MPI_Bcast(*buf, (int)len, MPI_BYTE, 0, comm);
    return rc;
}

/* Every location's event count, from the process that holds it. */
static int event_counts(tsync_trace *t, MPI_Comm comm, tsync_ctx *ctx)
{
    uint64_t *n = calloc(t->n_locations, sizeof(*n)), total = 0;
    int rc = n ? TSYNC_OK : tsync__oom(ctx);
    if ((rc = tsync__replay_agree(comm, rc, ctx)))
        return rc;
    for (tsync_loc l = 0; l < t->n_locations; l++)
        n[l] = t->held[l] ? t->locations[l].n_events : 0;
    MPI_Allreduce(MPI_IN_PLACE, n, (int)t->n_locations, MPI_UINT64_T, MPI_MAX, comm);
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        t->locations[l].n_events = n[l];
        total += n[l];
    }
    free(n);
    if (total == 0)
        return tsync__fail(ctx, TSYNC_EFORMAT, "%s: the trace has no events (empty trace)",
                           t->path);
    return TSYNC_OK;
}

/* One array of the match input gathered to process 0. */
#define GATHER(arr, n_arr)                                                                  \
    do {                                                                                    \
        void *all_;                                                                         \
        size_t bytes_;                                                                      \
        if (rc == TSYNC_OK &&                                                               \
            (rc = gather(comm, (arr), (n_arr) * sizeof(*(arr)), &all_, &bytes_, ctx)) == 0 && \
            rank == 0) {                                                                    \
            free(arr);                                                                      \
            (arr) = all_;                                                                   \
            (n_arr) = bytes_ / sizeof(*(arr));                                              \
        }                                                                                   \
    } while (0)

/* An array of the trace sent from process 0 to all. */
#define BROADCAST(arr, n_arr)                                                               \
    do {                                                                                    \
        size_t bytes_ = (n_arr) * sizeof(*(arr));                                           \
        if (rc == TSYNC_OK &&                                                               \
            (rc = broadcast(comm, (void **)&(arr), &bytes_, ctx)) == TSYNC_OK)              \
            (n_arr) = bytes_ / sizeof(*(arr));                                              \
    } while (0)

/* A message and its index in the whole trace's list. */
struct part_msg { struct tsync_message m; uint64_t id; };

/* Process 0's messages to the processes that hold their send or receive, in order,
 * each with its index (t->message_ids). */
static int scatter_messages(tsync_trace *t, MPI_Comm comm, tsync_ctx *ctx)
{
    struct part_msg *all = NULL, *got = NULL;
    struct tsync_message *msgs = NULL;
    uint64_t *ids = NULL;
    int rank, size, mine = 0, *count = NULL, *displ = NULL, rc = TSYNC_OK;
    size_t total = 0, n;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        count = calloc((size_t)size, sizeof(*count));
        displ = calloc((size_t)size, sizeof(*displ));
        for (size_t i = 0; count && i < t->n_messages; i++) {
            const struct tsync_message *m = &t->messages[i];
            uint32_t a = tsync__location_holder(m->send_loc, t->n_locations, (uint32_t)size);
            uint32_t b = tsync__location_holder(m->recv_loc, t->n_locations, (uint32_t)size);
            count[a]++;
            count[b] += b != a;
        }
        for (int r = 0; count && r < size; r++)
            total += (size_t)count[r];
        if (!count || !displ || !(all = malloc((total ? total : 1) * sizeof(*all))))
            rc = tsync__oom(ctx);
        for (int r = 1; rc == TSYNC_OK && r < size; r++)
            displ[r] = displ[r - 1] + count[r - 1];
        for (size_t i = 0; rc == TSYNC_OK && i < t->n_messages; i++) {
            const struct tsync_message *m = &t->messages[i];
            uint32_t a = tsync__location_holder(m->send_loc, t->n_locations, (uint32_t)size);
            uint32_t b = tsync__location_holder(m->recv_loc, t->n_locations, (uint32_t)size);
            all[displ[a]++] = (struct part_msg){ *m, i };
            if (b != a)
                all[displ[b]++] = (struct part_msg){ *m, i };
        }
        for (int r = 0; rc == TSYNC_OK && r < size; r++) {
            displ[r] = (displ[r] - count[r]) * (int)sizeof(*all);
            count[r] *= (int)sizeof(*all);
        }
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK) {
        MPI_Scatter(count, 1, MPI_INT, &mine, 1, MPI_INT, 0, comm);
        n = (size_t)mine / sizeof(*got);
        got = malloc(n ? (size_t)mine : 1);
        msgs = malloc((n ? n : 1) * sizeof(*msgs));
        ids = malloc((n ? n : 1) * sizeof(*ids));
        if (!got || !msgs || !ids)
            rc = tsync__oom(ctx);
        if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK) {
            MPI_Scatterv(all, count, displ, MPI_BYTE, got, mine, MPI_BYTE, 0, comm);
            for (size_t i = 0; i < n; i++) {
                msgs[i] = got[i].m;
                ids[i] = got[i].id;
            }
            free(t->messages);
            free(t->message_ids);
            t->messages = msgs;
            t->message_ids = ids;
            t->n_messages = n;
            msgs = NULL;
            ids = NULL;
        }
    }
    free(msgs);
    free(ids);
    free(count);
    free(displ);
    free(all);
    free(got);
    return rc;
}

/* Matches on process 0 what every process read; every process gets the result. */
static int match(tsync_trace *t, struct tsync_match_input *in, MPI_Comm comm, tsync_ctx *ctx)
{
    int rank, rc = TSYNC_OK;
    uint64_t unmatched[2] = { t->unmatched_sends, t->unmatched_recvs };
    MPI_Comm_rank(comm, &rank);
    /* Process order is location order: the records come as one process reads them. */
    GATHER(in->sends, in->n_sends);
    GATHER(in->recvs, in->n_recvs);
    GATHER(in->colls, in->n_colls);
    if (rc == TSYNC_OK) {
        MPI_Allreduce(MPI_IN_PLACE, unmatched, 2, MPI_UINT64_T, MPI_SUM, comm);
        t->unmatched_sends = unmatched[0];
        t->unmatched_recvs = unmatched[1];
    }
    if (rank == 0 && rc == TSYNC_OK)
        rc = tsync__trace_match(t, in, ctx);
    tsync__match_input_free(in);
    if ((rc = tsync__replay_agree(comm, rc, ctx)))
        return rc;
    if (rc == TSYNC_OK)
        rc = scatter_messages(t, comm, ctx);
    /* The indices of session messages are the estimate's, which reads the whole
     * trace elsewhere (run.c), not this part. */
    free(t->session_messages);
    t->session_messages = NULL;
    t->n_session_messages = 0;
    BROADCAST(t->collectives, t->n_collectives);
    BROADCAST(t->members, t->n_members);
    if (rc == TSYNC_OK) {
        unmatched[0] = t->unmatched_sends;
        unmatched[1] = t->unmatched_recvs;
        MPI_Bcast(unmatched, 2, MPI_UINT64_T, 0, comm);
        t->unmatched_sends = unmatched[0];
        t->unmatched_recvs = unmatched[1];
    }
    return rc;
}

int tsync__replay_open(tsync_trace **out, const char *path, MPI_Comm comm, tsync_ctx *ctx)
{
    struct tsync_match_input in;
    tsync_trace *t = NULL;
    int rank, size, rc;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rc = tsync__trace_open_part(&t, &in, path, (uint32_t)rank, (uint32_t)size, ctx);
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = event_counts(t, comm, ctx)) == TSYNC_OK)
        rc = match(t, &in, comm, ctx);
    tsync__match_input_free(&in);
    if (rc) {
        tsync_trace_free(t);
        return rc;
    }
    *out = t;
    return TSYNC_OK;
}
