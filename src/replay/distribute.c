/* distribute.c - the trace split over the processes of the replay: each reads every
 * definition and the events of the locations it holds (io/formats.h,
 * tsync__trace_open_part), the event counts of the others come by one reduction.
 *
 * Point-to-point records are matched by the serial matcher (match/) on the process
 * of their receiver: each process sends its sends there, with their positions in
 * the whole trace's list, and matches the channels of its own receivers; the
 * channels that have messages are numbered in the order of their first sends (as
 * the serial matcher does), each by the process in whose share of the list of
 * sends its first send falls, so that each message gets its index in the serial
 * list, and each message goes to the process of its send too. A process thus holds
 * the messages of its own locations, in the serial order, with their indices (a
 * message has one name everywhere).
 *
 * Collective records are matched by the serial matcher on the process of their
 * communicator (its index modulo the processes); the instances and members are
 * gathered to process 0, put in the serial order (by communicator, each in call
 * order) and sent to every process, which holds them all (32 bytes a member): the
 * part not yet distributed (README, "Known limits").
 *
 * For the estimate, each process also gets the send times of the messages its
 * locations receive from locations held elsewhere (t->send_time) and every
 * ClockOffset record (few: some per location), and the default grouping's clock
 * domains are split by the messages of all (tsync__trace_split, its counts reduced).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "io/formats.h"
#include "match/match.h"
#include "replay/replay.h"
#include "util/ctx.h"
#include "util/str.h"

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

/* Sends each of the n elements (`size` bytes) at v to process dest[i] (none when
 * negative), in their order: *got (malloc'ed) holds the *n_got elements every
 * process sent here, in process order. */
static int send_to(MPI_Comm comm, const void *v, size_t n, size_t size, const int *dest,
                   void **got, size_t *n_got, tsync_ctx *ctx)
{
    int procs, *count = NULL, *in = NULL, *sdispl = NULL, *rdispl = NULL, rc = TSYNC_OK;
    char *buf = malloc(n ? n * size : 1);
    size_t total = 0;
    MPI_Comm_size(comm, &procs);
    *got = NULL;
    *n_got = 0;
    count = calloc((size_t)procs, sizeof(*count));
    in = malloc((size_t)procs * sizeof(*in));
    sdispl = calloc((size_t)procs, sizeof(*sdispl));
    rdispl = calloc((size_t)procs, sizeof(*rdispl));
    if (!buf || !count || !in || !sdispl || !rdispl)
        rc = tsync__oom(ctx);
    for (size_t i = 0; rc == TSYNC_OK && i < n; i++)
        if (dest[i] >= 0)
            count[dest[i]] += (int)size;
    for (int r = 1; rc == TSYNC_OK && r < procs; r++)
        sdispl[r] = sdispl[r - 1] + count[r - 1];
    for (size_t i = 0; rc == TSYNC_OK && i < n; i++)
        if (dest[i] >= 0) {
            memcpy(buf + sdispl[dest[i]], (const char *)v + i * size, size);
            sdispl[dest[i]] += (int)size;
        }
    for (int r = 0; rc == TSYNC_OK && r < procs; r++)
        sdispl[r] -= count[r];
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK) {
        MPI_Alltoall(count, 1, MPI_INT, in, 1, MPI_INT, comm);
        for (int r = 0; r < procs; r++) {
            rdispl[r] = (int)total;
            total += (size_t)in[r];
        }
        if (!(*got = malloc(total ? total : 1)))
            rc = tsync__oom(ctx);
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK) {
        MPI_Alltoallv(buf, count, sdispl, MPI_BYTE, *got, in, rdispl, MPI_BYTE, comm);
        *n_got = total / size;
    } else {
        free(*got);
        *got = NULL;
    }
    free(buf);
    free(count);
    free(in);
    free(sdispl);
    free(rdispl);
    return rc;
}

/* A message and its index in the whole trace's list. */
struct part_msg { struct tsync_message m; uint64_t id; };

/* A channel's messages matched on process `at`: the position of its first send
 * (the serial matcher numbers channels in that order), how many, and the index of
 * its first message in the whole trace. */
struct channel_run { uint64_t first, n, base; int at; };

static int by_sender(const void *pa, const void *pb)
{
    const struct tsync_p2p_rec *a = pa, *b = pb;
    if (a->sender != b->sender)
        return a->sender < b->sender ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int by_first(const void *pa, const void *pb)
{
    uint64_t a = ((const struct channel_run *)pa)->first, b = ((const struct channel_run *)pb)->first;
    return a < b ? -1 : a > b;
}

static int by_id(const void *pa, const void *pb)
{
    uint64_t a = ((const struct part_msg *)pa)->id, b = ((const struct part_msg *)pb)->id;
    return a < b ? -1 : a > b;
}

static int by_size(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return a < b ? -1 : a > b;
}

/* t->session_messages, their indices in the whole trace (ascending), turned into
 * their indices here: the messages matched here, which its locations receive. */
static void sessions_placed(tsync_trace *t)
{
    for (size_t j = 0; j < t->n_session_messages; j++)
        t->session_messages[j] = tsync__message_at(t, t->session_messages[j]);
}

/* Each process's sends sent to the process that holds their receiver, so that a
 * channel's records meet on one process: *out, in the whole list's order. A send's
 * posting order becomes its position in that list (process order is location
 * order, as the serial reader lists them): a channel's sends are one location's,
 * listed in posting order, so the matcher pairs them as before, and the position
 * orders the channels (message_ids). */
static int route_sends(struct tsync_p2p_rec **out, size_t *n_out, struct tsync_match_input *in,
                       const tsync_trace *t, MPI_Comm comm, tsync_ctx *ctx)
{
    int rank, size, *dest = malloc((in->n_sends ? in->n_sends : 1) * sizeof(*dest)), rc;
    unsigned long long mine = in->n_sends, off = 0;
    void *got = NULL;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Exscan(&mine, &off, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    if (rank == 0)
        off = 0;
    rc = dest ? TSYNC_OK : tsync__oom(ctx);
    for (size_t i = 0; rc == TSYNC_OK && i < in->n_sends; i++) {
        dest[i] = (int)tsync__location_holder(in->sends[i].receiver, t->n_locations, (uint32_t)size);
        in->sends[i].order = off + i;
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = send_to(comm, in->sends, in->n_sends, sizeof(*in->sends), dest, &got, n_out,
                      ctx)) == TSYNC_OK)
        *out = got;
    free(dest);
    return rc;
}

/* The channels matched on every process (runs, *n of them here, in the order of
 * their first sends) numbered in that order, each one's base its first message's
 * index: each process numbers those whose first send falls in its share of the
 * whole list of sends (total of them), after the shares before it (an exclusive
 * scan of the messages), and sends each back. *runs then holds this process's
 * again, with their bases, in the same order. No process holds every channel. */
static int number_channels(struct channel_run **runs, size_t *n, uint64_t total, MPI_Comm comm,
                           tsync_ctx *ctx)
{
    struct channel_run *share = NULL, *back = NULL;
    size_t n_share = 0, n_back = 0;
    int rank, size, *dest = malloc((*n ? *n : 1) * sizeof(*dest)), rc;
    unsigned long long sum = 0, base = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rc = dest ? TSYNC_OK : tsync__oom(ctx);
    for (size_t k = 0; rc == TSYNC_OK && k < *n; k++)
        dest[k] = (int)((*runs)[k].first * (uint64_t)size / (total ? total : 1));
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = send_to(comm, *runs, *n, sizeof(**runs), dest, (void **)&share, &n_share,
                      ctx)) == TSYNC_OK) {
        qsort(share, n_share, sizeof(*share), by_first);
        for (size_t k = 0; k < n_share; k++)
            sum += share[k].n;
        MPI_Exscan(&sum, &base, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
        if (rank == 0)
            base = 0;
        for (size_t k = 0; k < n_share; k++) {
            share[k].base = base;
            base += share[k].n;
        }
        free(dest);
        dest = malloc((n_share ? n_share : 1) * sizeof(*dest));
        rc = dest ? TSYNC_OK : tsync__oom(ctx);
        for (size_t k = 0; rc == TSYNC_OK && k < n_share; k++)
            dest[k] = share[k].at;
        if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
            (rc = send_to(comm, share, n_share, sizeof(*share), dest, (void **)&back, &n_back,
                          ctx)) == TSYNC_OK) {
            qsort(back, n_back, sizeof(*back), by_first);
            free(*runs);
            *runs = back;
            *n = n_back;
            back = NULL;
        }
    }
    free(dest);
    free(share);
    free(back);
    return rc;
}

/* The index in the whole trace of each of the n messages matched here (*ids): the
 * serial matcher's, channel by channel in the order of their first sends, each
 * channel's in posting order. `sends` (route_sends's, sorted by sender and event;
 * `total` sends on every process together) name each message's channel. */
static int message_ids(uint64_t *ids, const struct tsync_message *msgs, size_t n,
                       const struct tsync_p2p_rec *sends, size_t n_sends, uint64_t total,
                       MPI_Comm comm, tsync_ctx *ctx)
{
    struct channel_run *runs = malloc((n ? n : 1) * sizeof(*runs));
    const struct tsync_p2p_rec *prev = NULL;
    size_t n_runs = 0;
    int rank, rc = runs ? TSYNC_OK : tsync__oom(ctx);

    MPI_Comm_rank(comm, &rank);
    /* The matcher writes a channel's messages together, channel after channel. */
    for (size_t i = 0; rc == TSYNC_OK && i < n; i++) {
        struct tsync_p2p_rec key = { .sender = msgs[i].send_loc, .idx = msgs[i].send_idx };
        const struct tsync_p2p_rec *c = bsearch(&key, sends, n_sends, sizeof(*sends), by_sender);
        if (!prev || c->comm != prev->comm || c->receiver != prev->receiver ||
            c->sender != prev->sender || c->tag != prev->tag)
            runs[n_runs++] = (struct channel_run){ c->order, 0, 0, rank };
        runs[n_runs - 1].n++;
        prev = c;
    }
    /* The runs here ascend by first send (channels are matched in that order), and
     * come back in it. */
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = number_channels(&runs, &n_runs, total, comm, ctx)) == TSYNC_OK)
        for (size_t i = 0, k = 0; i < n; k++)
            for (uint64_t j = 0; j < runs[k].n; j++, i++)
                ids[i] = runs[k].base + j;
    free(runs);
    return rc;
}

/* Point-to-point messages matched on the processes of their receivers (each holds
 * a channel's receives; the sends come to it), each message then also sent to the
 * process of its send: t->messages are this process's, in the serial matcher's
 * order, with their indices in its list (t->message_ids). */
static int match_p2p(tsync_trace *t, struct tsync_match_input *in, MPI_Comm comm, tsync_ctx *ctx)
{
    struct tsync_match_input here;
    struct tsync_p2p_rec *sends = NULL;
    struct part_msg *out = NULL, *all = NULL;
    tsync_ctx *quiet = NULL;
    uint64_t unmatched[3] = { 0 }, *ids = NULL, total;
    int rank, size, *dest = NULL, rc;
    size_t n_sends = 0, n_all = 0, n_own;
    void *got = NULL;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(&here, 0, sizeof(here));
    rc = route_sends(&sends, &n_sends, in, t, comm, ctx);
    free(in->sends);
    in->sends = NULL;
    in->n_sends = 0;
    if (rc)
        return rc;
    /* The matcher's records: the sends that came here, the receives of this
     * process's locations. Its warnings would name this process's share only: the
     * total is warned below. */
    here.sends = sends;
    here.n_sends = n_sends;
    here.recvs = in->recvs;
    here.n_recvs = in->n_recvs;
    rc = tsync_ctx_new(&quiet) == TSYNC_OK ? TSYNC_OK : tsync__oom(ctx);
    unmatched[0] = t->unmatched_sends;
    unmatched[1] = t->unmatched_recvs;
    t->unmatched_sends = t->unmatched_recvs = 0;
    if (rc == TSYNC_OK && tsync__match_p2p(t, &here, quiet))
        rc = tsync__oom(ctx);
    unmatched[2] = t->unmatched_sends + t->unmatched_recvs;
    unmatched[0] += t->unmatched_sends;
    unmatched[1] += t->unmatched_recvs;
    tsync_ctx_free(quiet);
    if (rc == TSYNC_OK && !(ids = malloc((t->n_messages ? t->n_messages : 1) * sizeof(*ids))))
        rc = tsync__oom(ctx);
    qsort(sends, n_sends, sizeof(*sends), by_sender);
    total = n_sends;
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK) {
        MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
        rc = message_ids(ids, t->messages, t->n_messages, sends, n_sends, total, comm, ctx);
    }
    free(sends);
    /* Session messages by index in the whole trace, until the messages are placed. */
    for (size_t j = 0; rc == TSYNC_OK && j < t->n_session_messages; j++)
        t->session_messages[j] = (size_t)ids[t->session_messages[j]];
    if (rc == TSYNC_OK && t->n_session_messages > 1)
        qsort(t->session_messages, t->n_session_messages, sizeof(*t->session_messages), by_size);

    /* Every message matched here has its receive here; those whose send is
     * elsewhere go there too. */
    n_own = t->n_messages;
    dest = malloc((n_own ? n_own : 1) * sizeof(*dest));
    out = malloc((n_own ? n_own : 1) * sizeof(*out));
    if (rc == TSYNC_OK && (!dest || !out))
        rc = tsync__oom(ctx);
    for (size_t i = 0; rc == TSYNC_OK && i < n_own; i++) {
        int h = (int)tsync__location_holder(t->messages[i].send_loc, t->n_locations, (uint32_t)size);
        dest[i] = h != rank ? h : -1;
        out[i] = (struct part_msg){ t->messages[i], ids[i] };
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = send_to(comm, out, n_own, sizeof(*out), dest, &got, &n_all, ctx)) == TSYNC_OK) {
        size_t n_got = n_all;
        struct tsync_message *msgs;
        n_all = n_own + n_got;
        all = realloc(got, (n_all ? n_all : 1) * sizeof(*all));
        msgs = all ? realloc(t->messages, (n_all ? n_all : 1) * sizeof(*msgs)) : NULL;
        uint64_t *more = msgs ? realloc(ids, (n_all ? n_all : 1) * sizeof(*ids)) : NULL;
        if (!all)
            free(got);
        if (msgs)
            t->messages = msgs;
        if (more)
            ids = more;
        if (!more)
            rc = tsync__oom(ctx);
        for (size_t i = 0; rc == TSYNC_OK && i < n_own; i++)
            all[n_got + i] = (struct part_msg){ t->messages[i], ids[i] };
        if (rc == TSYNC_OK)
            qsort(all, n_all, sizeof(*all), by_id);
        for (size_t i = 0; rc == TSYNC_OK && i < n_all; i++) {
            t->messages[i] = all[i].m;
            ids[i] = all[i].id;
        }
        if (rc == TSYNC_OK) {
            free(t->message_ids);
            t->message_ids = ids;
            t->n_messages = n_all;
            ids = NULL;
            sessions_placed(t);
        }
    }
    rc = tsync__replay_agree(comm, rc, ctx);
    free(all);
    free(out);
    free(dest);
    free(ids);
    if (rc)
        return rc;
    MPI_Allreduce(MPI_IN_PLACE, unmatched, 3, MPI_UINT64_T, MPI_SUM, comm);
    t->unmatched_sends = unmatched[0];
    t->unmatched_recvs = unmatched[1];
    if (unmatched[2])
        tsync__warn(ctx, "%s: %llu send%s and %llu receive%s are unmatched", t->path,
                    (unsigned long long)t->unmatched_sends, tsync__plural(t->unmatched_sends, "s"),
                    (unsigned long long)t->unmatched_recvs, tsync__plural(t->unmatched_recvs, "s"));
    return TSYNC_OK;
}

/* An instance gathered to process 0, and its place there. */
struct placed { uint32_t comm; size_t at; };

static int by_comm(const void *pa, const void *pb)
{
    const struct placed *a = pa, *b = pb;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Process 0's instances (gathered from every process, each process's members
 * after the previous one's) put in the serial matcher's order: by communicator,
 * each communicator's in call order, with their members. */
static int serial_order(tsync_trace *t, tsync_ctx *ctx)
{
    size_t n = t->n_collectives, m = 0;
    struct placed *p = malloc((n ? n : 1) * sizeof(*p));
    struct tsync_collective *co = malloc((n ? n : 1) * sizeof(*co));
    struct tsync_coll_member *mb = malloc((t->n_members ? t->n_members : 1) * sizeof(*mb));
    if (!p || !co || !mb) {
        free(p);
        free(co);
        free(mb);
        return tsync__oom(ctx);
    }
    for (size_t q = 0; q < n; q++) {
        t->collectives[q].first_member = m;
        m += t->collectives[q].n_members;
        p[q] = (struct placed){ t->collectives[q].comm, q };
    }
    qsort(p, n, sizeof(*p), by_comm);
    m = 0;
    for (size_t q = 0; q < n; q++) {
        const struct tsync_collective *c = &t->collectives[p[q].at];
        memcpy(&mb[m], &t->members[c->first_member], c->n_members * sizeof(*mb));
        co[q] = *c;
        co[q].first_member = m;
        m += c->n_members;
    }
    free(p);
    free(t->collectives);
    free(t->members);
    t->collectives = co;
    t->members = mb;
    return TSYNC_OK;
}

/* Collective records matched on the process of their communicator (its index
 * modulo the processes) by the serial matcher, the instances gathered to process
 * 0 and put in the serial order there, then sent to every process. Point-to-point
 * records are matched on the receivers' processes. Warnings about collective
 * calls come from process 0's communicators only. */
static int match(tsync_trace *t, struct tsync_match_input *in, MPI_Comm comm, tsync_ctx *ctx)
{
    int rank, size, *dest, rc;
    void *got = NULL;
    size_t n_got = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if ((rc = match_p2p(t, in, comm, ctx)))
        return rc;
    free(in->recvs);
    in->recvs = NULL;
    in->n_recvs = 0;
    dest = malloc((in->n_colls ? in->n_colls : 1) * sizeof(*dest));
    rc = dest ? TSYNC_OK : tsync__oom(ctx);
    for (size_t i = 0; rc == TSYNC_OK && i < in->n_colls; i++)
        dest[i] = (int)(in->colls[i].comm % (uint32_t)size);
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = send_to(comm, in->colls, in->n_colls, sizeof(*in->colls), dest, &got, &n_got,
                      ctx)) == TSYNC_OK) {
        free(in->colls);
        in->colls = got;
        in->n_colls = in->cap_colls = n_got;
        rc = tsync__match_collectives(t, in, ctx);
    }
    free(dest);
    tsync__match_input_free(in);
    if ((rc = tsync__replay_agree(comm, rc, ctx)))
        return rc;
    GATHER(t->collectives, t->n_collectives);
    GATHER(t->members, t->n_members);
    if (rank == 0 && rc == TSYNC_OK)
        rc = serial_order(t, ctx);
    if ((rc = tsync__replay_agree(comm, rc, ctx)))
        return rc;
    BROADCAST(t->collectives, t->n_collectives);
    BROADCAST(t->members, t->n_members);
    return rc;
}

/* A send's time for the process of its receive: the message's index in the whole
 * trace and the time. */
struct send_time {
    uint64_t id;
    tsync_time time;
};

/* t->send_time of the messages received here from locations held elsewhere: each
 * process sends those of its sends. */
static int send_times(tsync_trace *t, MPI_Comm comm, tsync_ctx *ctx)
{
    size_t n = 0, n_got = 0;
    struct send_time *v = malloc((t->n_messages ? t->n_messages : 1) * sizeof(*v));
    int *dest = malloc((t->n_messages ? t->n_messages : 1) * sizeof(*dest)), size, rc;
    struct send_time *got = NULL;

    MPI_Comm_size(comm, &size);
    t->send_time = calloc(t->n_messages ? t->n_messages : 1, sizeof(*t->send_time));
    rc = v && dest && t->send_time ? TSYNC_OK : tsync__oom(ctx);
    for (size_t i = 0; rc == TSYNC_OK && i < t->n_messages; i++) {
        const struct tsync_message *m = &t->messages[i];
        if (!t->held[m->send_loc] || t->held[m->recv_loc])
            continue;
        v[n] = (struct send_time){ t->message_ids[i], t->locations[m->send_loc].time[m->send_idx] };
        dest[n++] = (int)tsync__location_holder(m->recv_loc, t->n_locations, (uint32_t)size);
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = send_to(comm, v, n, sizeof(*v), dest, (void **)&got, &n_got, ctx)) == TSYNC_OK)
        for (size_t i = 0; i < n_got; i++)
            t->send_time[tsync__message_at(t, got[i].id)] = got[i].time;
    free(v);
    free(dest);
    free(got);
    return rc;
}

/* Every process's ClockOffset records on every process, in the order one process
 * reads them (location order). */
static int all_offsets(tsync_trace *t, MPI_Comm comm, tsync_ctx *ctx)
{
    int rank, rc = TSYNC_OK;
    MPI_Comm_rank(comm, &rank);
    GATHER(t->offsets, t->n_offsets);
    BROADCAST(t->offsets, t->n_offsets);
    return rc;
}

static int reduce(void *arg, int64_t *v, int n, int sum)
{
    return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, sum ? MPI_SUM : MPI_MAX,
                         *(MPI_Comm *)arg) == MPI_SUCCESS ? TSYNC_OK : TSYNC_EIO;
}

/* What the estimate needs beyond the clc's part: the send times of the messages
 * received here, every ClockOffset record, the clock domains of `opts` split by
 * every process's messages. */
static int for_estimate(tsync_trace *t, const tsync_open_opts *opts, MPI_Comm comm, tsync_ctx *ctx)
{
    struct tsync__reducer red = { reduce, &comm };
    int rc;
    if ((rc = send_times(t, comm, ctx)) || (rc = all_offsets(t, comm, ctx)))
        return rc;
    return tsync__replay_agree(comm, tsync__trace_split(t, opts, &red, ctx), ctx);
}

int tsync__replay_open(tsync_trace **out, const char *path, const tsync_open_opts *opts,
                       MPI_Comm comm, tsync_ctx *ctx)
{
    struct tsync_match_input in;
    tsync_trace *t = NULL;
    int rank, size, rc;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rc = tsync__trace_open_part(&t, &in, path, opts, (uint32_t)rank, (uint32_t)size, ctx);
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = event_counts(t, comm, ctx)) == TSYNC_OK &&
        (rc = match(t, &in, comm, ctx)) == TSYNC_OK && opts)
        rc = for_estimate(t, opts, comm, ctx);
    tsync__match_input_free(&in);
    if (rc) {
        tsync_trace_free(t);
        return rc;
    }
    *out = t;
    return TSYNC_OK;
}
