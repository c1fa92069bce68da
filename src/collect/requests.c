/* requests.c - the collector's pending non-blocking requests by handle value,
 * several per value in posting order (requests.h).
 *
 * A slot per handle value (open addressing, linear probing, backward-shift
 * deletion: no tombstones) holds its oldest request, so that a value with one
 * request pending (nearly always) costs what a table of one request per value
 * would. The later requests of a value are nodes of one pool, linked in posting
 * order from the slot; freed nodes form a list that is reused first. Adding and
 * taking cost one probe, and one node beyond the first, however many requests
 * share a value: the burst of small Isends behind Open MPI's one shared handle is
 * one slot, not a long probe chain.
 *
 * Links are 1 + a node's index, 0 for none, so that an all-zero table is empty. */
#include <stdlib.h>

#include "collect/requests.h"

struct tsc_requests_slot {
    uint64_t h;
    uint64_t id;          /* the oldest request, as struct tsc_request */
    uint32_t comm;
    bool recv;
    bool used;            /* false: an empty slot */
    uint32_t more, last;  /* the later requests: first and last links */
};

struct tsc_requests_node {
    struct tsc_request r;
    uint32_t next;
};

static size_t hash(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return (size_t)x;
}

/* The slot of h, or the empty slot that ends its probe chain. */
static size_t probe(const struct tsc_requests *t, uint64_t h)
{
    size_t mask = t->cap_slots - 1, j = hash(h) & mask;
    while (t->slots[j].used && t->slots[j].h != h)
        j = (j + 1) & mask;
    return j;
}

static int grow_slots(struct tsc_requests *t)
{
    size_t cap = t->cap_slots ? 2 * t->cap_slots : 64;
    struct tsc_requests_slot *old = t->slots, *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    size_t old_cap = t->cap_slots;
    t->slots = s, t->cap_slots = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].used)
            s[probe(t, old[i].h)] = old[i];
    free(old);
    return 0;
}

/* A free node's link, or 0 when out of memory. */
static uint32_t new_node(struct tsc_requests *t)
{
    uint32_t l = t->free_node;
    if (l) {
        t->free_node = t->nodes[l - 1].next;
        return l;
    }
    if (t->n_nodes == t->cap_nodes) {
        if (t->cap_nodes > UINT32_MAX / 4)
            return 0;
        uint32_t cap = t->cap_nodes ? 2 * t->cap_nodes : 64;
        struct tsc_requests_node *p = realloc(t->nodes, cap * sizeof *p);
        if (!p)
            return 0;
        t->nodes = p, t->cap_nodes = cap;
    }
    return ++t->n_nodes;
}

int tsc_requests_add(struct tsc_requests *t, uint64_t h, struct tsc_request r)
{
    if ((t->n_slots + 1) * 2 > t->cap_slots && grow_slots(t) != 0)
        return -1;
    struct tsc_requests_slot *s = &t->slots[probe(t, h)];
    if (!s->used) {
        *s = (struct tsc_requests_slot){ h, r.id, r.comm, r.recv, true, 0, 0 };
        t->n_slots++;
        return 0;
    }
    uint32_t l = new_node(t);
    if (!l)
        return -1;
    t->nodes[l - 1] = (struct tsc_requests_node){ r, 0 };
    if (s->more)
        t->nodes[s->last - 1].next = l;
    else
        s->more = l;
    s->last = l;
    return 0;
}

/* Empties slot i, shifting back the slots after it so that every probe chain
 * stays unbroken. */
static void remove_slot(struct tsc_requests *t, size_t i)
{
    size_t mask = t->cap_slots - 1, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!t->slots[j].used)
            break;
        size_t home = hash(t->slots[j].h) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i].used = false;
    t->n_slots--;
}

bool tsc_requests_take(struct tsc_requests *t, uint64_t h, struct tsc_request *out)
{
    if (!t->cap_slots)
        return false;
    size_t j = probe(t, h);
    struct tsc_requests_slot *s = &t->slots[j];
    if (!s->used)
        return false;
    *out = (struct tsc_request){ s->id, s->comm, s->recv };
    uint32_t l = s->more;
    if (!l) {
        remove_slot(t, j);
        return true;
    }
    struct tsc_requests_node *n = &t->nodes[l - 1];
    s->id = n->r.id, s->comm = n->r.comm, s->recv = n->r.recv;
    s->more = n->next;
    n->next = t->free_node;
    t->free_node = l;
    return true;
}

void tsc_requests_free(struct tsc_requests *t)
{
    free(t->slots);
    free(t->nodes);
    *t = (struct tsc_requests){ 0 };
}
