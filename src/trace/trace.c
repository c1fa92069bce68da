/* trace.c - the in-memory trace model: allocation, getters, timelines. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <otf2/otf2.h>

#include "trace/trace.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/vec.h"
#include "util/utf8.h"

struct tsync_trace *tsync__trace_alloc(const char *path)
{
    struct tsync_trace *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->path = strdup(path ? path : "");
    if (!t->path) {
        free(t);
        return NULL;
    }
    t->timer_resolution = 1;
    return t;
}

uint32_t tsync__location_holder(tsync_loc l, uint32_t n_locations, uint32_t n_ranks)
{
    return (uint32_t)((uint64_t)l * n_ranks / (n_locations ? n_locations : 1));
}

/* The index of id in ids[0, n) (ascending), or id itself without them. */
static size_t index_of(const uint64_t *ids, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    if (!ids)
        return (size_t)id;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t tsync__message_at(const struct tsync_trace *t, uint64_t id)
{
    return index_of(t->message_ids, t->n_messages, id);
}

size_t tsync__coll_at(const struct tsync_trace *t, uint64_t id)
{
    return index_of(t->coll_ids, t->n_collectives, id);
}

void tsync__coll_whole_free(struct tsync_coll_whole *w)
{
    if (!w)
        return;
    free(w->collectives);
    free(w->members);
    free(w->ids);
    free(w->times);
    free(w);
}

void tsync_trace_free(tsync_trace *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n_locations; i++) {
        free(t->locations[i].name);
        free(t->locations[i].time);
        free(t->locations[i].kind);
    }
    for (uint32_t i = 0; i < t->n_nodes; i++)
        free(t->nodes[i].name);
    for (uint32_t i = 0; i < t->n_domains; i++)
        free(t->domains[i].name);
    for (uint32_t i = 0; i < t->n_comms; i++) {
        free(t->comms[i].name);
        free(t->comms[i].world_rank);
    }
    free(t->locations);
    free(t->nodes);
    free(t->domains);
    free(t->comms);
    free(t->rank_loc);
    free(t->held);
    free(t->messages);
    free(t->message_ids);
    free(t->send_time);
    free(t->collectives);
    free(t->members);
    free(t->coll_ids);
    free(t->coll_parts);
    free(t->proc_sets);
    tsync__coll_whole_free(t->whole);
    free(t->offsets);
    free(t->session_messages);
    tsync__message_lists_free(t->lists, t->n_lists);
    free(t->extents);
    free(t->pairings);
    for (size_t i = 0; i < t->n_splits; i++) {
        free((char *)t->splits[i].name);
        free((uint32_t *)t->splits[i].parts);
    }
    free(t->splits);
    free(t->domain_file);
    free(t->path);
    free(t);
}

double tsync__seconds(const struct tsync_trace *t, int64_t ticks)
{
    return (double)ticks / (double)t->timer_resolution;
}

/* Seed 002, section 4.1: which events of a collective send and which receive. */
enum tsync_coll_class tsync__coll_class(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        return TSYNC_COLL_ONE_TO_N;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
        return TSYNC_COLL_N_TO_ONE;
    case OTF2_COLLECTIVE_OP_BARRIER:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        return TSYNC_COLL_N_TO_N;
    case OTF2_COLLECTIVE_OP_SCAN:
        return TSYNC_COLL_SCAN;
    case OTF2_COLLECTIVE_OP_EXSCAN:
        return TSYNC_COLL_EXSCAN;
    default:
        return TSYNC_COLL_NONE;
    }
}

const char *tsync_trace_path(const tsync_trace *t) { return t->path; }
uint64_t tsync_trace_timer_resolution(const tsync_trace *t) { return t->timer_resolution; }
uint32_t tsync_trace_location_count(const tsync_trace *t) { return t->n_locations; }
uint64_t tsync_trace_message_count(const tsync_trace *t) { return t->n_messages; }
uint64_t tsync_trace_collective_count(const tsync_trace *t) { return t->n_collectives; }
uint32_t tsync_trace_domain_count(const tsync_trace *t) { return t->n_domains; }
uint64_t tsync_trace_unmatched_sends(const tsync_trace *t) { return t->unmatched_sends; }
uint64_t tsync_trace_unmatched_recvs(const tsync_trace *t) { return t->unmatched_recvs; }

const char *tsync_trace_domain_rule(const tsync_trace *t)
{
    switch (t->domain_rule) {
    case TSYNC_DOMAIN_LOCATION: return "location";
    case TSYNC_DOMAIN_FILE: return "file";
    default: return "node";
    }
}

const char *tsync_trace_domain_file(const tsync_trace *t) { return t->domain_file; }
size_t tsync_trace_split_count(const tsync_trace *t) { return t->n_splits; }

const tsync_domain_split *tsync_trace_get_split(const tsync_trace *t, size_t i)
{
    return i < t->n_splits ? &t->splits[i] : NULL;
}

char *tsync__own_domain_name(const struct tsync_trace *t, tsync_loc loc)
{
    const struct tsync_location *l = &t->locations[loc];
    if (t->format == TSYNC_FORMAT_CSV)
        return strdup(l->name ? l->name : "");
    return tsync__strfmt("location %llu", (unsigned long long)l->ref);
}

uint64_t tsync_trace_event_count(const tsync_trace *t)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->n_locations; i++)
        n += t->extents ? t->extents[i].events : t->locations[i].n_events;
    return n;
}

void tsync__message_lists_free(struct tsync_message_list *lists, size_t n)
{
    for (size_t i = 0; lists && i < n; i++) {
        free(lists[i].v);
        free(lists[i].blocks);
    }
    free(lists);
}

size_t tsync_trace_memory(const tsync_trace *t)
{
    size_t bytes = t->n_messages * sizeof(struct tsync_message);
    for (uint32_t i = 0; i < t->n_locations; i++)
        bytes += t->locations[i].n_events * (sizeof(tsync_time) + sizeof(uint8_t));
    for (size_t i = 0; i < t->n_lists; i++)
        bytes += t->lists[i].n * sizeof(*t->lists[i].v) +
                 (t->lists[i].n + TSYNC__LIST_BLOCK - 1) / TSYNC__LIST_BLOCK *
                     sizeof(*t->lists[i].blocks);
    bytes += t->n_collectives * sizeof(struct tsync_collective);
    bytes += t->n_members * sizeof(struct tsync_coll_member);
    bytes += t->n_offsets * sizeof(struct tsync_clock_offset);
    bytes += t->n_locations * sizeof(struct tsync_location);
    return bytes;
}

uint64_t tsync_trace_location_ref(const tsync_trace *t, tsync_loc loc)
{
    return t->locations[loc].ref;
}

const char *tsync_trace_location_name(const tsync_trace *t, tsync_loc loc)
{
    return t->locations[loc].name;
}

const char *tsync_trace_location_node(const tsync_trace *t, tsync_loc loc)
{
    return t->nodes[t->locations[loc].node].name;
}

uint32_t tsync_trace_location_domain(const tsync_trace *t, tsync_loc loc)
{
    return t->locations[loc].domain;
}

const char *tsync_trace_domain_name(const tsync_trace *t, uint32_t domain)
{
    return t->domains[domain].name;
}

int tsync_trace_find_location(const tsync_trace *t, uint64_t ref, tsync_loc *out)
{
    for (uint32_t i = 0; i < t->n_locations; i++) {
        if (t->locations[i].ref == ref) {
            *out = i;
            return TSYNC_OK;
        }
    }
    return TSYNC_EINVAL;
}

int tsync_trace_find_domain(const tsync_trace *t, const char *name, uint32_t *out)
{
    for (uint32_t i = 0; i < t->n_domains; i++) {
        if (strcmp(t->domains[i].name, name) == 0) {
            *out = i;
            return TSYNC_OK;
        }
    }
    return TSYNC_EINVAL;
}

int tsync_timeline_new(tsync_timeline **out, const tsync_trace *t, tsync_ctx *ctx)
{
    tsync_timeline *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return tsync__oom(ctx);
    tl->n_locations = t->n_locations;
    tl->time = calloc(t->n_locations ? t->n_locations : 1, sizeof(*tl->time));
    if (!tl->time)
        goto oom;
    for (uint32_t i = 0; i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        uint64_t n = t->held && !t->held[i] ? 0 : l->n_events; /* held elsewhere: none */
        tl->time[i] = tsync__alloc_array(n, sizeof(tsync_time));
        if (!tl->time[i])
            goto oom;
        if (n)
            memcpy(tl->time[i], l->time, n * sizeof(tsync_time));
    }
    *out = tl;
    return TSYNC_OK;
oom:
    tsync_timeline_free(tl);
    return tsync__oom(ctx);
}

void tsync_timeline_free(tsync_timeline *tl)
{
    if (!tl)
        return;
    if (tl->time)
        for (uint32_t i = 0; i < tl->n_locations; i++)
            free(tl->time[i]);
    free(tl->time);
    free(tl);
}

tsync_time *tsync_timeline_times(tsync_timeline *tl, tsync_loc loc) { return tl->time[loc]; }

json_t *tsync__location_json(const struct tsync_trace *t, tsync_loc loc)
{
    const struct tsync_location *l = &t->locations[loc];
    if (t->format == TSYNC_FORMAT_CSV)
        return tsync__json_text(l->name);
    return json_integer((json_int_t)l->ref);
}
