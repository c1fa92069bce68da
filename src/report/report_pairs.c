/* report_pairs.c - the sync report of packet captures, per pair: what pairing made
 * of each pair of captures (`packets` lines, JSON packet_pairs), and per pair of
 * hosts (clock domains: a host each unless --domains says otherwise) the packets
 * paired, seed 003's exchanges, the ambiguous keys, each host's map and its bound,
 * and the packets received before they were sent, as recorded and as written
 * (`host pairs` lines, JSON host_pairs). */
#include <stdlib.h>

#include "report/report.h"
#include "estimate/estimate_int.h"
#include "trace/trace.h"
#include "util/str.h"
#include "util/units.h"
#include "util/utf8.h"

/* A pair of clock domains a < b and the pairings of their captures summed. */
struct host_pair {
    uint32_t a, b;
    uint64_t paired, exchanges, ambiguous, undecided;
    int64_t reversed_before, reversed_after;   /* -1: not checked */
};

static void add_reversed(int64_t *sum, int64_t v)
{
    *sum = *sum < 0 || v < 0 ? -1 : *sum + v;
}

/* The pairs of domains that share paired traffic, in the order of their first
 * pair of captures; *n of them (NULL with *n 0 when out of memory or none). */
static struct host_pair *host_pairs(const struct tsync_trace *t, size_t *n)
{
    struct host_pair *h = calloc(t->n_pairings ? t->n_pairings : 1, sizeof(*h));
    *n = 0;
    for (size_t i = 0; h && i < t->n_pairings; i++) {
        const struct tsync__packet_pairing *s = &t->pairings[i];
        uint32_t dp = t->locations[s->p].domain, dq = t->locations[s->q].domain;
        uint32_t a = dp < dq ? dp : dq, b = dp < dq ? dq : dp;
        size_t k = 0;
        while (k < *n && (h[k].a != a || h[k].b != b))
            k++;
        if (k == *n)
            h[(*n)++] = (struct host_pair){ a, b, 0, 0, 0, 0, 0, 0 };
        h[k].paired += s->paired;
        h[k].exchanges += s->exchanges;
        h[k].ambiguous += s->ambiguous;
        h[k].undecided += s->undecided;
        add_reversed(&h[k].reversed_before, s->reversed_before);
        add_reversed(&h[k].reversed_after, s->reversed_after);
    }
    return h;
}

/* " (N before, M after)"-like counts: a number, or "-" where not checked. */
static const char *count_text(char *buf, size_t size, int64_t v)
{
    if (v < 0)
        return "-";
    snprintf(buf, size, "%lld", (long long)v);
    return buf;
}

/* A domain's map as people read it: its offset and drift to its reference and its
 * bound; nothing for a reference. */
static void print_map(const struct tsync_trace *t, const tsync_estimate *e, uint32_t d, FILE *out)
{
    const tsync_estimate_domain *dom = tsync_estimate_get_domain(e, d);
    char o[32], b[32];
    if (!dom || !dom->path_length)
        return;
    fprintf(out, "; map %s -> %s: offset %s, drift %.3f ppm, bound %s", t->domains[d].name,
            t->domains[dom->reference].name, tsync__fmt_seconds_signed(o, sizeof(o), dom->offset_s),
            1e6 * dom->drift, dom->kind == TSYNC_BOUND_BOUNDED
                                  ? tsync__fmt_seconds(b, sizeof(b), dom->bound_s)
                                  : tsync_bound_kind_name(dom->kind));
}

void tsync__report_pairs_print(const tsync_pipeline_result *r, FILE *out)
{
    const struct tsync_trace *t = r->trace;
    struct host_pair *h;
    size_t n;
    for (size_t i = 0; i < t->n_pairings; i++) {
        const struct tsync__packet_pairing *s = &t->pairings[i];
        fprintf(out, "  %-14s %s and %s: %llu paired (%llu one way, %llu the other), %llu "
                "exchange%s, %llu ambiguous key%s left out, %llu of undecided direction\n",
                i ? "" : "packets", t->locations[s->p].name, t->locations[s->q].name,
                (unsigned long long)s->paired, (unsigned long long)s->p_to_q,
                (unsigned long long)(s->paired - s->p_to_q), (unsigned long long)s->exchanges,
                tsync__plural(s->exchanges, "s"), (unsigned long long)s->ambiguous,
                tsync__plural(s->ambiguous, "s"), (unsigned long long)s->undecided);
    }
    h = host_pairs(t, &n);
    for (size_t i = 0; i < n; i++) {
        char b[24], a[24];
        fprintf(out, "  %-14s %s and %s: %llu packet%s paired, %llu exchange%s, %llu ambiguous "
                "key%s", i ? "" : "host pairs", t->domains[h[i].a].name, t->domains[h[i].b].name,
                (unsigned long long)h[i].paired, tsync__plural(h[i].paired, "s"),
                (unsigned long long)h[i].exchanges, tsync__plural(h[i].exchanges, "s"),
                (unsigned long long)h[i].ambiguous, tsync__plural(h[i].ambiguous, "s"));
        if (r->estimate) {
            print_map(t, r->estimate, h[i].a, out);
            print_map(t, r->estimate, h[i].b, out);
        }
        fprintf(out, "; received before sent: %s before, %s after\n",
                count_text(b, sizeof(b), h[i].reversed_before),
                count_text(a, sizeof(a), h[i].reversed_after));
    }
    free(h);
}

static json_t *count_json(int64_t v)
{
    return v < 0 ? json_null() : json_integer((json_int_t)v);
}

/* A domain's map: its reference, kind, offset, drift and bound. */
static json_t *map_json(const struct tsync_trace *t, const tsync_estimate *e, uint32_t d)
{
    const tsync_estimate_domain *dom = tsync_estimate_get_domain(e, d);
    return json_pack("{s:o, s:o, s:s, s:f, s:f, s:o}", "domain", tsync__json_text(t->domains[d].name),
                     "reference", tsync__json_text(t->domains[dom->reference].name), "kind",
                     tsync_bound_kind_name(dom->kind), "offset_s", dom->offset_s, "drift",
                     dom->drift, "bound_s",
                     dom->kind == TSYNC_BOUND_BOUNDED || dom->kind == TSYNC_BOUND_EXACT
                         ? json_real(dom->bound_s)
                         : json_null());
}

int tsync__report_pairs_json(const tsync_pipeline_result *r, json_t *o)
{
    const struct tsync_trace *t = r->trace;
    json_t *pp = json_array(), *hp = json_array();
    struct host_pair *h;
    size_t n;
    int rc;
    for (size_t i = 0; pp && i < t->n_pairings; i++) {
        const struct tsync__packet_pairing *s = &t->pairings[i];
        if (json_array_append_new(pp, json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
                                                "a", tsync__json_text(t->locations[s->p].name),
                                                "b", tsync__json_text(t->locations[s->q].name),
                                                "paired", (json_int_t)s->paired,
                                                "a_to_b", (json_int_t)s->p_to_q,
                                                "b_to_a", (json_int_t)(s->paired - s->p_to_q),
                                                "exchanges", (json_int_t)s->exchanges,
                                                "ambiguous", (json_int_t)s->ambiguous,
                                                "undecided", (json_int_t)s->undecided,
                                                "reversed_before", count_json(s->reversed_before),
                                                "reversed_after", count_json(s->reversed_after))))
            break;
    }
    h = host_pairs(t, &n);
    for (size_t i = 0; h && hp && i < n; i++) {
        json_t *maps = r->estimate ? json_array() : json_null();
        if (r->estimate && maps &&
            (json_array_append_new(maps, map_json(t, r->estimate, h[i].a)) ||
             json_array_append_new(maps, map_json(t, r->estimate, h[i].b)))) {
            json_decref(maps);
            maps = NULL;
        }
        if (json_array_append_new(hp, json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
                                                "a", tsync__json_text(t->domains[h[i].a].name),
                                                "b", tsync__json_text(t->domains[h[i].b].name),
                                                "paired", (json_int_t)h[i].paired,
                                                "exchanges", (json_int_t)h[i].exchanges,
                                                "ambiguous", (json_int_t)h[i].ambiguous,
                                                "undecided", (json_int_t)h[i].undecided,
                                                "maps", maps,
                                                "reversed_before", count_json(h[i].reversed_before),
                                                "reversed_after", count_json(h[i].reversed_after))))
            break;
    }
    rc = pp && hp && h && json_array_size(pp) == t->n_pairings && json_array_size(hp) == n ? 0 : -1;
    free(h);
    if (rc) {
        json_decref(pp);
        json_decref(hp);
        return rc;
    }
    /* Both calls take their value, also when they fail. */
    return (json_object_set_new(o, "packet_pairs", pp) | json_object_set_new(o, "host_pairs", hp))
               ? -1
               : 0;
}
