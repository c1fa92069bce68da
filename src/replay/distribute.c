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
 * Collective records are numbered as the serial matcher numbers their instances
 * (by communicator, each communicator's calls in order: a reduction of the calls
 * per communicator) and matched by the serial code on the process of their instance
 * (its index modulo the processes), which sends each member to the process that
 * holds its location, with the instance's index and the sets of processes of its
 * receiving and sending members (match/coll_part.c). A process thus holds of every
 * instance only the members of its own locations; process 0 warns, in the serial
 * order, what the matching processes noted.
 *
 * For the estimate, each process also gets the send times of the messages its
 * locations receive from locations held elsewhere (t->send_time), the instances it
 * matched whole with their members' times (t->whole, whose samples it collects), and
 * every ClockOffset record (few: some per location), and the default grouping's
 * clock domains are split by the messages of all (tsync__trace_split, its counts
 * reduced).
 */
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "io/formats.h"
#include "match/match.h"
#include "replay/replay.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"

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
 * process sent here, in process order. v is left grouped by destination: the
 * elements are moved there in place (following the cycles of the permutation), not
 * copied, which costs 8 bytes an element for a moment instead of another copy. */
static int send_to(MPI_Comm comm, void *v, size_t n, size_t size, const int *dest, void **got,
                   size_t *n_got, tsync_ctx *ctx)
{
    int procs, *count = NULL, *in = NULL, *sdispl = NULL, *rdispl = NULL, rc = TSYNC_OK;
    size_t *place = malloc((n ? n : 1) * sizeof(*place)), total = 0, none = 0;
    char *e = v, *tmp = malloc(size);
    MPI_Comm_size(comm, &procs);
    *got = NULL;
    *n_got = 0;
    count = calloc((size_t)procs, sizeof(*count));
    in = malloc((size_t)procs * sizeof(*in));
    sdispl = calloc((size_t)procs, sizeof(*sdispl));
    rdispl = calloc((size_t)procs, sizeof(*rdispl));
    if (!place || !tmp || !count || !in || !sdispl || !rdispl)
        rc = tsync__oom(ctx);
    for (size_t i = 0; rc == TSYNC_OK && i < n; i++)
        if (dest[i] >= 0)
            count[dest[i]] += (int)size;
    for (int r = 1; rc == TSYNC_OK && r < procs; r++)
        sdispl[r] = sdispl[r - 1] + count[r - 1];
    if (rc == TSYNC_OK && procs)
        none = (size_t)(sdispl[procs - 1] + count[procs - 1]) / size;
    /* Each element's place, those of one destination in their order, the ones
     * without last; then each element into its place. */
    for (size_t i = 0; rc == TSYNC_OK && i < n; i++) {
        if (dest[i] < 0) {
            place[i] = none++;
            continue;
        }
        place[i] = (size_t)sdispl[dest[i]] / size;
        sdispl[dest[i]] += (int)size;
    }
    for (size_t i = 0; rc == TSYNC_OK && i < n; i++)
        while (place[i] != i) {
            size_t j = place[i];
            memcpy(tmp, e + j * size, size);
            memcpy(e + j * size, e + i * size, size);
            memcpy(e + i * size, tmp, size);
            place[i] = place[j];
            place[j] = j;
        }
    for (int r = 0; rc == TSYNC_OK && r < procs; r++)
        sdispl[r] -= count[r];
    free(place);
    free(tmp);
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
        MPI_Alltoallv(v, count, sdispl, MPI_BYTE, *got, in, rdispl, MPI_BYTE, comm);
        *n_got = total / size;
    } else {
        free(*got);
        *got = NULL;
    }
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

/* A collective record on its way to the process that matches its instance: the
 * instance's index in the whole trace, the member's events and their times as
 * recorded (for the estimate), and whether it sent and received data. */
struct routed_rec {
    uint64_t id;
    uint64_t begin_idx, end_idx;
    tsync_time begin, end;
    uint32_t loc, op, root;
    uint8_t sent, received;
};

static int by_instance(const void *pa, const void *pb)
{
    const struct routed_rec *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->loc < b->loc ? -1 : a->loc > b->loc;
}

/* Warnings about instances, as made where they were matched: each an instance's
 * index, the text's length and the text. */
struct notes {
    char *buf;
    size_t n, cap;
    uint64_t id;             /* the instance being matched */
    int oom;
};

static void note(enum tsync_log_level level, const char *msg, void *payload)
{
    struct notes *w = payload;
    uint32_t len = (uint32_t)strlen(msg);
    (void)level;
    if (tsync__reserve((void **)&w->buf, &w->cap, w->n + sizeof(w->id) + sizeof(len) + len, 1)) {
        w->oom = 1;
        return;
    }
    memcpy(w->buf + w->n, &w->id, sizeof(w->id));
    memcpy(w->buf + w->n + sizeof(w->id), &len, sizeof(len));
    memcpy(w->buf + w->n + sizeof(w->id) + sizeof(len), msg, len);
    w->n += sizeof(w->id) + sizeof(len) + len;
}

/* A warning gathered to process 0: its instance and where its text starts. */
struct placed_note { uint64_t id; size_t at; };

static int by_note(const void *pa, const void *pb)
{
    const struct placed_note *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Every process's warnings about the instances it matched, warned by process 0 in
 * the order of the instances, as the serial matcher warns. */
static int warn_notes(struct notes *w, MPI_Comm comm, tsync_ctx *ctx)
{
    struct placed_note *p = NULL;
    size_t n_all = 0, n = 0, cap = 0;
    char *all = NULL;
    int rank, rc = w->oom ? tsync__oom(ctx) : TSYNC_OK;
    MPI_Comm_rank(comm, &rank);
    if ((rc = tsync__replay_agree(comm, rc, ctx)) ||
        (rc = gather(comm, w->buf, w->n, (void **)&all, &n_all, ctx)) || rank != 0)
        return rc;
    for (size_t at = 0; at < n_all;) {
        struct placed_note x = { 0, at };
        uint32_t len;
        memcpy(&x.id, all + at, sizeof(x.id));
        memcpy(&len, all + at + sizeof(x.id), sizeof(len));
        at += sizeof(x.id) + sizeof(len) + len;
        if (TSYNC_PUSH(p, n, cap, x)) {
            free(p);
            free(all);
            return tsync__oom(ctx);
        }
    }
    if (n)
        qsort(p, n, sizeof(*p), by_note);
    for (size_t i = 0; i < n; i++) {
        const char *at = all + p[i].at + sizeof(uint64_t);
        uint32_t len;
        memcpy(&len, at, sizeof(len));
        tsync__warn(ctx, "%.*s", (int)len, at + sizeof(len));
    }
    free(p);
    free(all);
    return TSYNC_OK;
}
/* The records of this process's locations (in->colls, freed), each with its
 * instance's index in the whole trace (the serial matcher's: by communicator, each
 * communicator's calls in order) and its times, sent to the process that matches
 * the instance (its index modulo the processes): *out. Per communicator, *first
 * gets the index of its first call and *nl how many locations record calls on it
 * (malloc'ed; over every process). */
static int route_records(struct routed_rec **out, size_t *n_out, uint64_t **first, uint64_t **nl,
                         struct tsync_match_input *in, const tsync_trace *t, MPI_Comm comm,
                         tsync_ctx *ctx)
{
    size_t n = in->n_colls, nc = t->n_comms ? t->n_comms : 1;
    struct tsync_coll_rec *r = in->colls;
    uint64_t *calls = calloc(nc, sizeof(*calls)), *locs = calloc(nc, sizeof(*locs)), base = 0;
    struct routed_rec *v = malloc((n ? n : 1) * sizeof(*v));
    int *dest = malloc((n ? n : 1) * sizeof(*dest)), size, rc;
    void *got = NULL;

    MPI_Comm_size(comm, &size);
    rc = calls && locs && v && dest ? TSYNC_OK : tsync__oom(ctx);
    if (rc == TSYNC_OK && n)
        qsort(r, n, sizeof(*r), tsync__coll_rec_cmp);
    /* A location's k-th call on a communicator is call k of it (the records of one
     * location and communicator are in call order now). */
    for (size_t i = 0, k = 0; rc == TSYNC_OK && i < n; i++) {
        const tsync_time *time = t->locations[r[i].loc].time;
        k = i && r[i].comm == r[i - 1].comm && r[i].loc == r[i - 1].loc ? k + 1 : 0;
        v[i] = (struct routed_rec){ k, r[i].begin_idx, r[i].end_idx, time[r[i].begin_idx],
                                    time[r[i].end_idx], r[i].loc, r[i].op, r[i].root,
                                    r[i].sent > 0, r[i].received > 0 };
        locs[r[i].comm] += k == 0;
        if (k + 1 > calls[r[i].comm])
            calls[r[i].comm] = k + 1;
    }
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK) {
        MPI_Allreduce(MPI_IN_PLACE, calls, (int)nc, MPI_UINT64_T, MPI_MAX, comm);
        MPI_Allreduce(MPI_IN_PLACE, locs, (int)nc, MPI_UINT64_T, MPI_SUM, comm);
        for (size_t c = 0; c < nc; c++) {     /* calls[c]: the index of comm c's first call */
            uint64_t x = calls[c];
            calls[c] = base;
            base += x;
        }
        for (size_t i = 0; i < n; i++) {
            v[i].id += calls[r[i].comm];
            dest[i] = (int)(v[i].id % (uint64_t)size);
        }
        free(in->colls);
        in->colls = NULL;
        in->n_colls = 0;
        rc = send_to(comm, v, n, sizeof(*v), dest, &got, n_out, ctx);
    }
    free(v);
    free(dest);
    if (rc) {
        free(calls);
        free(locs);
        return rc;
    }
    *out = got;
    *first = calls;
    *nl = locs;
    return TSYNC_OK;
}

/* The communicator of instance id: the last whose first call is at or before it. */
static uint32_t comm_of(const uint64_t *first, size_t nc, uint64_t id)
{
    size_t lo = 0, hi = nc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (first[mid] <= id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)(lo - 1);
}

/* The instances whose records came here (r, sorted here), matched by the serial
 * code (first, nl: route_records's): *routes gets what the processes of their
 * members get, *notes the warnings, and *w (when not NULL) the instances whole,
 * with their members' times. */
static int match_instances(struct tsync__coll_routes *routes, struct notes *notes,
                           struct tsync_coll_whole *w, struct routed_rec *r, size_t n,
                           const uint64_t *first, const uint64_t *nl, const tsync_trace *t,
                           uint32_t n_ranks, tsync_ctx *ctx)
{
    size_t nq = 0, most = 0, nc = t->n_comms ? t->n_comms : 1;
    const struct tsync_coll_rec **recs = NULL;
    struct tsync__ranked_rec *ranked = NULL;
    struct tsync_coll_rec *rec = NULL;
    struct tsync_coll_member *m = NULL;
    tsync_ctx *quiet = NULL;
    int rc = TSYNC_ENOMEM;

    qsort(r, n, sizeof(*r), by_instance);
    for (size_t a = 0, b; a < n; a = b, nq++) {
        for (b = a; b < n && r[b].id == r[a].id; b++)
            ;
        most = b - a > most ? b - a : most;
    }
    recs = malloc((most ? most : 1) * sizeof(*recs));
    ranked = malloc((most ? most : 1) * sizeof(*ranked));
    rec = malloc((most ? most : 1) * sizeof(*rec));
    if (w) {
        w->collectives = malloc((nq ? nq : 1) * sizeof(*w->collectives));
        w->ids = malloc((nq ? nq : 1) * sizeof(*w->ids));
        w->members = malloc((n ? n : 1) * sizeof(*w->members));
        w->times = malloc((n ? 2 * n : 1) * sizeof(*w->times));
    } else {
        m = malloc((most ? most : 1) * sizeof(*m));
    }
    if (!recs || !ranked || !rec || (w ? !w->collectives || !w->ids || !w->members || !w->times
                                       : !m) ||
        tsync_ctx_new(&quiet))
        goto out;
    tsync_ctx_set_log(quiet, note, notes);
    for (size_t a = 0, b; a < n; a = b) {
        struct tsync_collective co;
        struct tsync_coll_member *mm = w ? &w->members[w->n_members] : m;
        uint32_t comm = comm_of(first, nc, r[a].id), nm;
        for (b = a; b < n && r[b].id == r[a].id; b++) {
            const struct routed_rec *x = &r[b];
            rec[b - a] = (struct tsync_coll_rec){ comm, x->loc, x->op, x->root, x->begin_idx,
                                                  x->end_idx, x->sent, x->received };
            recs[b - a] = &rec[b - a];
        }
        nm = (uint32_t)(b - a);
        notes->id = r[a].id;
        co.first_member = w ? w->n_members : 0;
        tsync__coll_instance(t, comm, r[a].id - first[comm], nl[comm], recs, nm, ranked, &co, mm,
                             quiet);
        if (tsync__coll_route(routes, t, r[a].id, &co, mm, n_ranks))
            goto out;
        if (!w)
            continue;
        for (uint32_t i = 0; i < nm; i++) {   /* recs are in the members' order now */
            const struct routed_rec *x = &r[a + (size_t)(recs[i] - rec)];
            w->times[2 * (w->n_members + i)] = x->begin;
            w->times[2 * (w->n_members + i) + 1] = x->end;
        }
        w->collectives[w->n_collectives] = co;
        w->ids[w->n_collectives++] = r[a].id;
        w->n_members += nm;
    }
    rc = TSYNC_OK;
out:
    free(recs);
    free(ranked);
    free(rec);
    free(m);
    tsync_ctx_free(quiet);
    return rc ? tsync__oom(ctx) : TSYNC_OK;
}

/* The records of routes to the processes they are for, each process's part built
 * from what came (tsync__coll_part_build). */
static int deliver(tsync_trace *t, struct tsync__coll_routes *routes, MPI_Comm comm,
                   tsync_ctx *ctx)
{
    void *held = NULL, *inst = NULL, *runs = NULL;
    size_t n_held = 0, n_inst = 0, n_runs = 0;
    int rc = send_to(comm, routes->held, routes->n_held, sizeof(*routes->held), routes->held_to,
                     &held, &n_held, ctx);
    if (rc == TSYNC_OK)
        rc = send_to(comm, routes->inst, routes->n_inst, sizeof(*routes->inst), routes->inst_to,
                     &inst, &n_inst, ctx);
    if (rc == TSYNC_OK)
        rc = send_to(comm, routes->runs, routes->n_runs, sizeof(*routes->runs), routes->runs_to,
                     &runs, &n_runs, ctx);
    tsync__coll_routes_free(routes);
    if (rc == TSYNC_OK)
        rc = tsync__replay_agree(comm, tsync__coll_part_build(t, held, n_held, inst, n_inst, runs,
                                                              n_runs) ? tsync__oom(ctx) : TSYNC_OK,
                                 ctx);
    free(held);
    free(inst);
    free(runs);
    return rc;
}

/* Collective records matched where their instances meet: each process sends its
 * records to the process of their instance (route_records), which matches it with
 * the serial code and sends each member to the process of its location, with what
 * names the instance and reaches the others (match/coll_part.c): every process holds
 * its own members only, and no process all of a communicator's records. Process 0
 * warns what the processes noted, in the serial order. With `whole` each keeps the
 * instances it matched whole, for the estimate (t->whole). Point-to-point records
 * are matched on the receivers' processes. */
static int match(tsync_trace *t, struct tsync_match_input *in, int whole, MPI_Comm comm,
                 tsync_ctx *ctx)
{
    struct tsync_coll_whole *w = whole ? calloc(1, sizeof(*w)) : NULL;
    struct tsync__coll_routes routes;
    struct routed_rec *r = NULL;
    struct notes notes;
    uint64_t *first = NULL, *nl = NULL;
    size_t n = 0;
    int size, rc;

    MPI_Comm_size(comm, &size);
    memset(&routes, 0, sizeof(routes));
    memset(&notes, 0, sizeof(notes));
    if ((rc = match_p2p(t, in, comm, ctx)) == TSYNC_OK) {
        free(in->recvs);
        in->recvs = NULL;
        in->n_recvs = 0;
    }
    if (whole && !w && rc == TSYNC_OK)
        rc = tsync__oom(ctx);
    if ((rc = tsync__replay_agree(comm, rc, ctx)) == TSYNC_OK &&
        (rc = route_records(&r, &n, &first, &nl, in, t, comm, ctx)) == TSYNC_OK)
        rc = tsync__replay_agree(comm, match_instances(&routes, &notes, w, r, n, first, nl, t,
                                                       (uint32_t)size, ctx), ctx);
    free(r);
    free(first);
    free(nl);
    if (rc == TSYNC_OK)
        rc = deliver(t, &routes, comm, ctx);
    tsync__coll_routes_free(&routes);
    if (rc == TSYNC_OK)
        rc = warn_notes(&notes, comm, ctx);
    free(notes.buf);
    if (rc == TSYNC_OK) {
        t->whole = w;
        w = NULL;
    }
    tsync__coll_whole_free(w);
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
        (rc = match(t, &in, opts != NULL, comm, ctx)) == TSYNC_OK && opts)
        rc = for_estimate(t, opts, comm, ctx);
    tsync__match_input_free(&in);
    if (rc) {
        tsync_trace_free(t);
        return rc;
    }
#ifdef __GLIBC__
    /* The matching's records, moved into place for the exchanges and freed in an
     * order that leaves holes in the heap, which glibc does not give back by
     * itself: tens of MB of a 10^6-message process for the rest of the run. */
    malloc_trim(0);
#endif
    *out = t;
    return TSYNC_OK;
}
