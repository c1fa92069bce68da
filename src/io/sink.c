/* sink.c - builds the trace model from what a reader emits (io/sink.h): the one
 * place that fills its definitions and event arrays, and collects the records that
 * the match stage (match/) pairs. */
#include <stdlib.h>
#include <string.h>

#include "io/sink.h"

void tsync__sink_init(struct tsync_sink *s, struct tsync_trace *t, tsync_ctx *ctx)
{
    memset(s, 0, sizeof(*s));
    s->t = t;
    s->ctx = ctx;
}

void tsync__sink_part(struct tsync_sink *part, const struct tsync_sink *s, tsync_ctx *ctx)
{
    tsync__sink_init(part, s->t, ctx);
}

void tsync__sink_free(struct tsync_sink *s)
{
    tsync__match_input_free(&s->rec);
    free(s->offsets);
    s->offsets = NULL;
    s->n_offsets = s->cap_offsets = 0;
}

/* Appends src[0..n) to *dst (*n_dst elements, capacity *cap), or takes src when
 * *dst is empty; src is freed either way. Returns 0 or -1 (out of memory). */
static int append(void **dst, size_t *n_dst, size_t *cap, void **src, size_t *n, size_t *src_cap,
                  size_t size)
{
    int rc = 0;
    if (*n_dst == 0) {
        free(*dst);
        *dst = *src;
        *n_dst = *n;
        *cap = *src_cap;
    } else {
        if (*n && !(rc = tsync__reserve(dst, cap, *n_dst + *n, size))) {
            memcpy((char *)*dst + *n_dst * size, *src, *n * size);
            *n_dst += *n;
        }
        free(*src);
    }
    *src = NULL;
    *n = *src_cap = 0;
    return rc;
}

#define APPEND(to, from, arr, n, cap)                                                         \
    append((void **)&(to)->arr, &(to)->n, &(to)->cap, (void **)&(from)->arr, &(from)->n,      \
           &(from)->cap, sizeof(*(to)->arr))

int tsync__sink_join(struct tsync_sink *s, struct tsync_sink *part)
{
    int rc = 0;
    rc |= APPEND(&s->rec, &part->rec, sends, n_sends, cap_sends);
    rc |= APPEND(&s->rec, &part->rec, recvs, n_recvs, cap_recvs);
    rc |= APPEND(&s->rec, &part->rec, ends, n_ends, cap_ends);
    rc |= APPEND(&s->rec, &part->rec, colls, n_colls, cap_colls);
    rc |= APPEND(&s->rec, &part->rec, packets, n_packets, cap_packets);
    rc |= APPEND(s, part, offsets, n_offsets, cap_offsets);
    s->unmatched_sends += part->unmatched_sends;
    s->unmatched_recvs += part->unmatched_recvs;
    part->unmatched_sends = part->unmatched_recvs = 0;
    return rc ? tsync__oom(s->ctx) : TSYNC_OK;
}

void tsync__sink_clock(struct tsync_sink *s, uint64_t resolution, uint64_t global_offset,
                       uint64_t length, uint64_t realtime)
{
    s->t->timer_resolution = resolution;
    s->t->global_offset = global_offset;
    s->t->trace_length = length;
    s->t->realtime = realtime;
}

int tsync__sink_node(struct tsync_sink *s, const char *name, uint32_t *out)
{
    struct tsync_trace *t = s->t;
    char *copy = strdup(name);
    if (!copy || tsync__reserve((void **)&t->nodes, &s->cap_nodes, t->n_nodes + 1, sizeof(*t->nodes))) {
        free(copy);
        return tsync__oom(s->ctx);
    }
    t->nodes[t->n_nodes].name = copy;
    *out = t->n_nodes++;
    return TSYNC_OK;
}

int tsync__sink_location(struct tsync_sink *s, uint64_t ref, const char *name, uint32_t node)
{
    struct tsync_trace *t = s->t;
    char *copy = strdup(name);
    if (!copy || tsync__reserve((void **)&t->locations, &s->cap_locations, t->n_locations + 1,
                                sizeof(*t->locations))) {
        free(copy);
        return tsync__oom(s->ctx);
    }
    t->locations[t->n_locations++] = (struct tsync_location){
        .ref = ref, .name = copy, .rank = TSYNC_NONE, .node = node, .domain = node };
    return TSYNC_OK;
}

int tsync__sink_rank(struct tsync_sink *s, tsync_loc loc)
{
    struct tsync_trace *t = s->t;
    if (tsync__reserve((void **)&t->rank_loc, &s->cap_ranks, t->n_ranks + 1, sizeof(*t->rank_loc)))
        return tsync__oom(s->ctx);
    t->rank_loc[t->n_ranks] = loc;
    if (loc != TSYNC_NONE)
        t->locations[loc].rank = t->n_ranks;
    t->n_ranks++;
    return TSYNC_OK;
}

int tsync__sink_comm(struct tsync_sink *s, uint64_t ref, const char *name, uint32_t size,
                     const uint32_t *world_rank)
{
    struct tsync_trace *t = s->t;
    struct tsync_comm c = { ref, strdup(name), size, NULL };
    if (!c.name || tsync__reserve((void **)&t->comms, &s->cap_comms, t->n_comms + 1, sizeof(*t->comms)) ||
        (world_rank && !(c.world_rank = malloc((size ? size : 1) * sizeof(*c.world_rank))))) {
        free(c.name);
        return tsync__oom(s->ctx);
    }
    if (world_rank && size)
        memcpy(c.world_rank, world_rank, size * sizeof(*c.world_rank));
    t->comms[t->n_comms++] = c;
    return TSYNC_OK;
}

int tsync__sink_domains(struct tsync_sink *s, enum tsync_domain_rule rule)
{
    struct tsync_trace *t = s->t;
    int by_node = rule == TSYNC_DOMAIN_NODE;
    t->domain_rule = rule;
    t->n_domains = by_node ? t->n_nodes : t->n_locations;
    t->domains = calloc(t->n_domains ? t->n_domains : 1, sizeof(*t->domains));
    if (!t->domains)
        return tsync__oom(s->ctx);
    for (uint32_t d = 0; d < t->n_domains; d++) {
        t->domains[d].node = by_node ? d : t->locations[d].node;
        if (!(t->domains[d].name = by_node ? strdup(t->nodes[d].name) : tsync__own_domain_name(t, d)))
            return tsync__oom(s->ctx);
    }
    for (uint32_t i = 0; i < t->n_locations; i++)
        t->locations[i].domain = by_node ? t->locations[i].node : i;
    return TSYNC_OK;
}

int tsync__sink_begin_location(struct tsync_sink *s, tsync_loc loc, uint64_t hint)
{
    struct tsync_location *l = &s->t->locations[loc];
    s->cur = loc;
    s->cap_events = 0;
    /* A hint is only a hint (some writers count wrong): a huge one is not trusted. */
    if (hint > 0 && hint < ((uint64_t)1 << 26)) {
        if (!(l->time = tsync__alloc_array(hint, sizeof(*l->time))) ||
            !(l->kind = tsync__alloc_array(hint, sizeof(*l->kind))))
            return tsync__oom(s->ctx);
        s->cap_events = hint;
    }
    return TSYNC_OK;
}

int tsync__sink_event_slow(struct tsync_sink *s, tsync_time tt, uint8_t kind)
{
    struct tsync_trace *t = s->t;
    struct tsync_location *l = &t->locations[s->cur];
    size_t cap = s->cap_events;
    if (l->n_events && tt < l->time[l->n_events - 1])
        return tsync__fail(s->ctx, TSYNC_EINCONSISTENT,
                           "%s: location %llu (%s): event %llu at %lld ticks is earlier than event "
                           "%llu at %lld ticks; a location's timestamps must not go backward",
                           t->path, (unsigned long long)l->ref, l->name,
                           (unsigned long long)l->n_events, (long long)tt,
                           (unsigned long long)(l->n_events - 1), (long long)l->time[l->n_events - 1]);
    if (tsync__reserve((void **)&l->time, &cap, l->n_events + 1, sizeof(*l->time)) ||
        tsync__reserve((void **)&l->kind, &s->cap_events, l->n_events + 1, sizeof(*l->kind)))
        return tsync__oom(s->ctx);
    l->time[l->n_events] = tt;
    l->kind[l->n_events++] = kind;
    return TSYNC_OK;
}

#define PUSH_REC(s, arr, n, cap, value)                                                       \
    (TSYNC_PUSH((s)->rec.arr, (s)->rec.n, (s)->rec.cap, value) ? tsync__oom((s)->ctx) : TSYNC_OK)

int tsync__sink_send(struct tsync_sink *s, const struct tsync_p2p_rec *r)
{
    return PUSH_REC(s, sends, n_sends, cap_sends, *r);
}

int tsync__sink_recv(struct tsync_sink *s, const struct tsync_p2p_rec *r)
{
    return PUSH_REC(s, recvs, n_recvs, cap_recvs, *r);
}

void tsync__sink_unmatched(struct tsync_sink *s, int is_send)
{
    if (is_send)
        s->unmatched_sends++;
    else
        s->unmatched_recvs++;
}

int tsync__sink_end(struct tsync_sink *s, uint64_t id, int is_recv)
{
    struct tsync_end_rec e = { id, tsync__sink_last(s), s->cur, (uint8_t)!!is_recv };
    return PUSH_REC(s, ends, n_ends, cap_ends, e);
}

int tsync__sink_packet(struct tsync_sink *s, uint64_t key, uint32_t src, uint32_t dst)
{
    struct tsync_packet_rec p = { key, tsync__sink_last(s), s->cur, src, dst, 0 };
    return PUSH_REC(s, packets, n_packets, cap_packets, p);
}

int tsync__sink_collective(struct tsync_sink *s, const struct tsync_coll_rec *r)
{
    return PUSH_REC(s, colls, n_colls, cap_colls, *r);
}

int tsync__sink_offset(struct tsync_sink *s, tsync_loc loc, tsync_time time, int64_t offset,
                       double stddev)
{
    struct tsync_clock_offset o = { loc, time, offset, stddev };
    return TSYNC_PUSH(s->offsets, s->n_offsets, s->cap_offsets, o) ? tsync__oom(s->ctx) : TSYNC_OK;
}

int tsync__sink_message_lists(struct tsync_sink *s, struct tsync_message_list *lists, size_t n,
                              struct tsync_extent *extents)
{
    struct tsync_trace *t = s->t;
    if (!extents) {
        tsync__message_lists_free(lists, n);
        return tsync__oom(s->ctx);
    }
    tsync__message_lists_free(t->lists, t->n_lists);
    free(t->extents);
    t->lists = lists;
    t->n_lists = n;
    t->extents = extents;
    return TSYNC_OK;
}

void tsync__sink_finish(struct tsync_sink *s, struct tsync_match_input *match)
{
    struct tsync_trace *t = s->t;
    *match = s->rec;
    memset(&s->rec, 0, sizeof(s->rec));
    free(t->offsets);
    t->offsets = s->offsets;
    t->n_offsets = s->n_offsets;
    s->offsets = NULL;
    s->n_offsets = s->cap_offsets = 0;
    t->unmatched_sends += s->unmatched_sends;
    t->unmatched_recvs += s->unmatched_recvs;
    s->unmatched_sends = s->unmatched_recvs = 0;
}
