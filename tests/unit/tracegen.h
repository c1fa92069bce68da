/* tracegen.h - traces for unit tests, written as text: one line per location with
 * its events in order, messages and collectives tied together by labels.
 *
 *   "res 1000000000"                  ticks per second (default 1e9)
 *   "L0@a: 100 200:s:m 300"           location 0 on node "a": an internal event at
 *                                     100, the send of message m at 200, ...
 *   "L1@b: 50 150:r:m 250"            ... and its receive on location 1
 *   "L2@b: 90:b:c 120:e:c"            begin and end of collective instance c
 *   "coll c bcast 0"                  instance c: class (bcast, reduce, allreduce,
 *                                     scan, exscan, none) and root comm rank or -
 *   "off 1 0 100"                     a ClockOffset of location 1: time 0, offset 100
 *
 * Lines are separated by ';' or newlines. Locations must come in order L0, L1, ...
 * A member's comm rank is its location's index among the members. A collective
 * token ending in '!' has no data: "90:b:c!" does not send, "120:e:c!" does not
 * receive. Each time is a signed integer; an event kind is s, r, b or e.
 * tg_parse fails the test on a malformed spec.
 */
#ifndef TSYNC_TEST_TRACEGEN_H
#define TSYNC_TEST_TRACEGEN_H

#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

#define TG_MAX 64 /* labels, nodes, offsets per spec */

struct tg_label {
    char name[16];
    int kind;                   /* 's'/'r' message, 'c' collective */
    tsync_loc sloc, rloc;       /* message ends */
    uint64_t sidx, ridx;
    int have_s, have_r;
    enum tsync_coll_class cls;
    uint32_t root;
    struct tsync_coll_member m[TG_MAX];
    uint32_t n;
};

static struct tg_label *tg_label(struct tg_label *lab, int *n, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(lab[i].name, name) == 0)
            return &lab[i];
    if (*n == TG_MAX)
        fail_msg("tracegen: too many labels");
    memset(&lab[*n], 0, sizeof(lab[*n]));
    snprintf(lab[*n].name, sizeof(lab[*n].name), "%s", name);
    lab[*n].root = TSYNC_NONE;
    return &lab[(*n)++];
}

/* The member of location loc in collective c, added on first use. */
static struct tsync_coll_member *tg_member(struct tg_label *c, tsync_loc loc)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->m[i].loc == loc)
            return &c->m[i];
    memset(&c->m[c->n], 0, sizeof(c->m[0]));
    c->m[c->n].loc = loc;
    c->m[c->n].comm_rank = c->n;
    return &c->m[c->n++];
}

static enum tsync_coll_class tg_class(const char *s)
{
    static const struct { const char *name; enum tsync_coll_class cls; } tab[] = {
        { "bcast", TSYNC_COLL_ONE_TO_N }, { "reduce", TSYNC_COLL_N_TO_ONE },
        { "allreduce", TSYNC_COLL_N_TO_N }, { "scan", TSYNC_COLL_SCAN },
        { "exscan", TSYNC_COLL_EXSCAN }, { "none", TSYNC_COLL_NONE }
    };
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strcmp(tab[i].name, s) == 0)
            return tab[i].cls;
    fail_msg("tracegen: unknown collective class %s", s);
    return TSYNC_COLL_NONE;
}

/* Appends an event to location loc; returns its index. */
static uint64_t tg_push(tsync_trace *t, tsync_loc loc, tsync_time time, uint8_t kind)
{
    struct tsync_location *l = &t->locations[loc];
    uint64_t n = l->n_events + 1;
    tsync_time *times = realloc(l->time, n * sizeof(*times));
    uint8_t *kinds = times ? realloc(l->kind, n) : NULL;
    if (!times || !kinds)
        fail_msg("tracegen: out of memory");
    times[n - 1] = time;
    kinds[n - 1] = kind;
    l->time = times;
    l->kind = kinds;
    return l->n_events++;
}

/* One event token "T" or "T:k:label[!]" of location loc. */
static void tg_event(tsync_trace *t, tsync_loc loc, char *tok, struct tg_label *lab, int *nlab)
{
    char *kind = strchr(tok, ':'), *name;
    uint64_t idx = tg_push(t, loc, strtoll(tok, NULL, 10), TSYNC_EV_OTHER);
    uint8_t k = TSYNC_EV_OTHER;
    if (kind) {
        struct tg_label *x;
        int nodata;
        name = strchr(kind + 1, ':');
        assert_non_null(name);
        name++;
        nodata = name[strlen(name) - 1] == '!';
        if (nodata)
            name[strlen(name) - 1] = '\0';
        x = tg_label(lab, nlab, name);
        switch (kind[1]) {
        case 's': x->sloc = loc, x->sidx = idx, x->have_s = 1, k = TSYNC_EV_SEND; break;
        case 'r': x->rloc = loc, x->ridx = idx, x->have_r = 1, k = TSYNC_EV_RECV; break;
        case 'b': {
            struct tsync_coll_member *m = tg_member(x, loc);
            x->kind = 'c';
            m->begin_idx = idx;
            m->sends = (uint8_t)!nodata;
            k = TSYNC_EV_COLL_BEGIN;
            break;
        }
        case 'e': {
            struct tsync_coll_member *m = tg_member(x, loc);
            x->kind = 'c';
            m->end_idx = idx;
            m->recvs = (uint8_t)!nodata;
            k = TSYNC_EV_COLL_END;
            break;
        }
        default: fail_msg("tracegen: bad event %s", tok);
        }
    }
    t->locations[loc].kind[idx] = k;
}

/* Adds location `loc` on node `node` (by name), making the node if new. */
static void tg_location(tsync_trace *t, tsync_loc loc, const char *node)
{
    uint32_t nd = 0;
    char name[32];
    while (nd < t->n_nodes && strcmp(t->nodes[nd].name, node) != 0)
        nd++;
    if (nd == t->n_nodes) {
        t->nodes = realloc(t->nodes, (nd + 1) * sizeof(*t->nodes));
        t->domains = realloc(t->domains, (nd + 1) * sizeof(*t->domains));
        assert_true(t->nodes && t->domains);
        t->nodes[nd].name = strdup(node);
        t->domains[nd].name = strdup(node);
        t->domains[nd].node = nd;
        t->n_nodes = t->n_domains = nd + 1;
    }
    if (loc != t->n_locations)
        fail_msg("tracegen: location L%u out of order", loc);
    t->locations = realloc(t->locations, (loc + 1) * sizeof(*t->locations));
    assert_non_null(t->locations);
    memset(&t->locations[loc], 0, sizeof(t->locations[loc]));
    snprintf(name, sizeof(name), "L%u", loc);
    t->locations[loc].name = strdup(name);
    t->locations[loc].ref = loc;
    t->locations[loc].rank = loc;
    t->locations[loc].node = t->locations[loc].domain = nd;
    t->n_locations = loc + 1;
}

/* Turns the labels into messages and collective instances. */
static void tg_link(tsync_trace *t, struct tg_label *lab, int nlab)
{
    for (int i = 0; i < nlab; i++) {
        struct tg_label *x = &lab[i];
        if (x->kind == 'c') {
            struct tsync_collective co;
            memset(&co, 0, sizeof(co));
            co.cls = (uint8_t)x->cls;
            co.root = x->root;
            co.n_members = x->n;
            co.first_member = t->n_members;
            t->members = realloc(t->members, (t->n_members + x->n) * sizeof(*t->members));
            t->collectives = realloc(t->collectives,
                                     (t->n_collectives + 1) * sizeof(*t->collectives));
            assert_true(t->members && t->collectives);
            memcpy(t->members + t->n_members, x->m, x->n * sizeof(x->m[0]));
            t->n_members += x->n;
            t->collectives[t->n_collectives++] = co;
        } else if (x->have_s && x->have_r) {
            struct tsync_message m = { x->sloc, x->rloc, x->sidx, x->ridx };
            t->messages = realloc(t->messages, (t->n_messages + 1) * sizeof(*t->messages));
            assert_non_null(t->messages);
            t->messages[t->n_messages++] = m;
        }
    }
}

static tsync_trace *tg_parse(const char *spec)
{
    tsync_trace *t = tsync__trace_alloc("tg.otf2");
    struct tg_label lab[TG_MAX];
    int nlab = 0;
    char *copy = strdup(spec), *save = NULL;
    assert_true(t && copy);
    t->timer_resolution = 1000000000;
    for (char *line = strtok_r(copy, ";\n", &save); line; line = strtok_r(NULL, ";\n", &save)) {
        char *s2 = NULL, *w = strtok_r(line, " \t", &s2);
        if (!w)
            continue;
        if (strcmp(w, "res") == 0) {
            t->timer_resolution = strtoull(strtok_r(NULL, " \t", &s2), NULL, 10);
        } else if (strcmp(w, "coll") == 0) {
            struct tg_label *x = tg_label(lab, &nlab, strtok_r(NULL, " \t", &s2));
            const char *root;
            x->kind = 'c';
            x->cls = tg_class(strtok_r(NULL, " \t", &s2));
            root = strtok_r(NULL, " \t", &s2);
            x->root = root && strcmp(root, "-") != 0 ? (uint32_t)atoi(root) : TSYNC_NONE;
        } else if (strcmp(w, "off") == 0) {
            struct tsync_clock_offset o;
            o.loc = (tsync_loc)atoi(strtok_r(NULL, " \t", &s2));
            o.time = strtoll(strtok_r(NULL, " \t", &s2), NULL, 10);
            o.offset = strtoll(strtok_r(NULL, " \t", &s2), NULL, 10);
            o.stddev = 0;
            t->offsets = realloc(t->offsets, (t->n_offsets + 1) * sizeof(*t->offsets));
            assert_non_null(t->offsets);
            t->offsets[t->n_offsets++] = o;
        } else if (w[0] == 'L' && strchr(w, '@')) {
            tsync_loc loc = (tsync_loc)atoi(w + 1);
            char *node = strchr(w, '@') + 1, *colon = strchr(node, ':');
            if (colon)
                *colon = '\0';
            tg_location(t, loc, node);
            for (char *tok = strtok_r(NULL, " \t", &s2); tok; tok = strtok_r(NULL, " \t", &s2))
                tg_event(t, loc, tok, lab, &nlab);
        } else {
            fail_msg("tracegen: bad line starting with %s", w);
        }
    }
    tg_link(t, lab, nlab);
    free(copy);
    return t;
}

#endif
