/* estimate_json.c - an estimate as JSON: the maps file of docs/maps.md, which
 * `tracesync apply` reads, with an "estimate" object that says how the maps were
 * found and how good they are (estimator, latencies, grouping, references,
 * components, per-domain results with per-piece bounds, the graph).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimate_int.h"
#include "estimate/estimator.h"
#include "timemap/map_set.h"
#include "trace/trace.h"
#include "util/ctx.h"
#include "util/utf8.h"
#include "util/vec.h"

/* A number, or null when it is not finite (an open bound). */
static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *names_of(const tsync_estimate *e, const uint32_t *d, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, tsync__json_text(e->names[d[i]]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* The map's linear segments with the larger bound of their two ends, in ticks. */
static json_t *segments_of(const tsync_time_map *m)
{
    size_t n = m ? tsync_time_map_point_count(m) : 0;
    const tsync_time *x = m ? tsync_time_map_local(m) : NULL;
    const int64_t *b = m ? tsync_time_map_bounds(m) : NULL;
    json_t *a = json_array();
    for (size_t i = 0; a && i < n && (i + 1 < n || n == 1); i++) {
        size_t j = n == 1 ? i : i + 1;
        json_t *bound = b ? json_integer(b[i] > b[j] ? b[i] : b[j]) : json_null();
        if (json_array_append_new(a, json_pack("{s:I, s:I, s:o}", "from", (json_int_t)x[i],
                                               "to", (json_int_t)x[j], "bound", bound))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* What the samples came from: {"from": [the kinds with samples], "messages": n,
 * "collectives": n, "sessions": n, "offsets": n}. */
static json_t *sources_json(const tsync_estimate_sources *s)
{
    const char *label[4] = { "messages", "collectives", "sessions", "offsets" };
    uint64_t count[4] = { s->messages, s->collectives, s->sessions, s->offsets };
    json_t *o = json_object(), *from = json_array();
    int bad = !o || !from || json_object_set(o, "from", from);
    for (int i = 0; !bad && i < 4; i++)
        bad = (count[i] && json_array_append_new(from, json_string(label[i]))) ||
              json_object_set_new(o, label[i], json_integer((json_int_t)count[i]));
    json_decref(from);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A domain's members before its segments. */
static json_t *domain_head(const tsync_estimate *e, const tsync_trace *t, uint32_t d)
{
    const tsync_estimate_domain *dom = &e->dom[d];
    json_t *locs = json_array();
    for (uint32_t i = 0; locs && i < t->n_locations; i++)
        if (t->locations[i].domain == d &&
            json_array_append_new(locs, tsync__location_json(t, i))) {
            json_decref(locs);
            return NULL;
        }
    return json_pack("{s:o, s:o, s:s, s:o, s:I, s:f, s:f, s:i, s:o, s:i}", "name",
                     tsync__json_text(dom->name), "locations", locs, "kind",
                     tsync_bound_kind_name(dom->kind),
                     "bound_s", real_or_null(dom->bound_s), "samples", (json_int_t)dom->samples,
                     "offset_s", dom->offset_s, "drift", dom->drift, "component",
                     (int)dom->component, "path", names_of(e, dom->path, dom->path_length + 1U),
                     "pieces", (int)dom->pieces);
}

static json_t *domain_json(const tsync_estimate *e, const tsync_trace *t, uint32_t d)
{
    json_t *o = domain_head(e, t, d);
    if (o && (json_object_set_new(o, "segments", segments_of(e->dom[d].map)) ||
              json_object_set_new(o, "sources", sources_json(&e->dom[d].sources)))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *edge_json(const tsync_estimate *e, const tsync_estimate_edge *x)
{
    return json_pack("{s:o, s:o, s:s, s:o, s:I, s:I, s:i, s:b, s:o}",
                     "a", tsync__json_text(e->names[x->a]), "b", tsync__json_text(e->names[x->b]),
                     "kind", tsync_bound_kind_name(x->kind), "weight_s",
                     real_or_null(x->weight_s), "samples", (json_int_t)x->samples, "rejected",
                     (json_int_t)x->rejected, "pieces", (int)x->pieces, "in_tree", x->in_tree,
                     "sources", sources_json(&x->sources));
}

/* The domains of the node rule that their own messages split (TSYNC_DOMAIN_AUTO). */
static json_t *splits_json(const tsync_trace *t)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < t->n_splits; i++) {
        const tsync_domain_split *sp = &t->splits[i];
        json_t *into = json_array();
        for (uint32_t k = 0; into && k < sp->n_parts; k++)
            if (json_array_append_new(into, tsync__json_text(t->domains[sp->parts[k]].name)))
                into = NULL;
        if (json_array_append_new(a, json_pack("{s:o, s:o, s:I, s:I, s:f, s:f}", "domain",
                                               tsync__json_text(sp->name), "into", into, "messages",
                                               (json_int_t)sp->messages, "contradicting",
                                               (json_int_t)sp->contradicting, "max_reversal_s",
                                               sp->max_reversal_s, "limit_s", sp->limit_s))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* Per component: its reference, the rule that chose it and why. */
static json_t *references_json(const tsync_estimate *e)
{
    json_t *a = json_array();
    for (uint32_t c = 0; a && c < e->n_comp; c++) {
        const char *why, *rule = tsync_estimate_reference_rule(e, c, &why);
        if (json_array_append_new(a, json_pack("{s:o, s:s, s:o}", "domain",
                                               tsync__json_text(e->names[e->comp_ref[c]]),
                                               "rule", rule, "reason", tsync__json_text(why)))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *components_json(const tsync_estimate *e)
{
    json_t *a = json_array();
    for (uint32_t c = 0; a && c < e->n_comp; c++) {
        json_t *members = json_array();
        for (uint32_t d = 0; members && d < e->n_domains; d++)
            if (e->dom[d].component == c &&
                json_array_append_new(members, tsync__json_text(e->names[d])))
                members = NULL;
        if (json_array_append_new(a, json_pack("{s:o, s:I, s:o}", "reference",
                                               tsync__json_text(e->names[e->comp_ref[c]]), "shift",
                                               (json_int_t)e->comp_shift[c], "domains",
                                               members))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* The "estimate" object; without `domains`, its list of domains is left empty. */
static json_t *estimate_json(const tsync_estimate *e, const tsync_trace *t, int domains)
{
    const tsync_estimate_grouping *g = &e->grouping;
    json_t *o, *doms = json_array(), *edges = json_array();
    const struct tsync__estimator *est = tsync__estimator_get(e->opts.estimator);
    for (uint32_t d = 0; domains && doms && d < e->n_domains; d++)
        if (json_array_append_new(doms, domain_json(e, t, d)))
            doms = NULL;
    for (size_t i = 0; edges && i < e->n_edges; i++)
        if (json_array_append_new(edges, edge_json(e, &e->edges[i])))
            edges = NULL;
    o = json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:b, s:f, s:b, s:b, s:b}", "estimator",
                  tsync_estimate_estimator_name(e), "estimate", est->estimate, "bound", est->bound,
                  "latency_intra_s", e->opts.latency_intra_s, "latency_inter_s", e->opts.latency_inter_s,
                  "max_drift", e->opts.max_drift, "segment", e->opts.segment, "min_segment_s",
                  e->opts.min_segment_s, "global_lsq", e->opts.global_lsq, "clock_offsets",
                  e->opts.use_clock_offsets, "reference_given", e->reference_given);
    if (o && (json_object_set_new(o, "max_gap_s", json_real(e->opts.max_gap_s)) ||
              json_object_set_new(o, "max_segment_s", json_real(e->opts.max_segment_s)) ||
              json_object_set_new(o, "max_wander", json_real(e->opts.max_wander)) ||
              json_object_set_new(o, "periods", json_integer((json_int_t)e->periods)) ||
              /* only with a latency file: the report without one stays as it was */
              (e->latency_pairs &&
               json_object_set_new(o, "latency_pairs", json_integer((json_int_t)e->latency_pairs))))) {
        json_decref(o);
        return NULL;
    }
    if (!o || json_object_set_new(o, "grouping",
                                  json_pack("{s:s, s:o, s:I, s:I, s:I, s:f, s:o}", "rule",
                                            g->rule, "reason", tsync__json_text(g->reason),
                                            "messages",
                                            (json_int_t)g->messages, "reversed",
                                            (json_int_t)g->reversed, "contradicting",
                                            (json_int_t)g->contradicting, "max_reversal_s",
                                            g->max_reversal_s, "split", splits_json(t))) ||
        json_object_set_new(o, "reference_rule", json_string(e->opts.reference_rule ==
                                                             TSYNC_REFERENCE_AUTO ? "auto"
                                                                                  : "global")) ||
        json_object_set_new(o, "references", references_json(e)) ||
        json_object_set_new(o, "components", components_json(e)) ||
        json_object_set_new(o, "domains", doms) || json_object_set_new(o, "graph", edges)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Significant digits of the numbers in the text. */
#define TEXT_DIGITS 12

/* Every real of v as the text shows it (TEXT_DIGITS significant digits, as
 * jansson prints them). */
static void round_reals(json_t *v)
{
    const char *key;
    json_t *x;
    size_t i;
    char buf[40];
    if (json_is_real(v)) {
        snprintf(buf, sizeof(buf), "%.*g", TEXT_DIGITS, json_real_value(v));
        json_real_set(v, strtod(buf, NULL));
    } else if (json_is_object(v)) {
        json_object_foreach(v, key, x)
            round_reals(x);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x)
            round_reals(x);
    }
}

json_t *tsync__estimate_to_json(const tsync_estimate *e, const tsync_trace *t, tsync_ctx *ctx)
{
    json_t *root = tsync__map_set_to_json(e->maps, t, ctx), *est;
    if (!root)
        return NULL;
    if (!(est = estimate_json(e, t, 1)) || json_object_set_new(root, "estimate", est)) {
        json_decref(root);
        tsync__oom(ctx);
        return NULL;
    }
    round_reals(root);
    return root;
}

/* Writes a JSON value with `flags`. */
static void put_json(struct tsync__text *b, const json_t *v, size_t flags)
{
    char *s = json_dumps(v, flags | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(TEXT_DIGITS));
    if (s)
        tsync__text_put(b, s);
    else
        b->bad = 1;
    free(s);
}

/* The string s written just before p; where it begins. */
static char *prefix(char *p, const char *s)
{
    size_t n = strlen(s);
    return memcpy(p - n, s, n);
}

/* A map's segments as segments_of gives them, written as json_dumps would. */
static void put_segments(struct tsync__text *b, const tsync_time_map *m)
{
    size_t n = m ? tsync_time_map_point_count(m) : 0;
    const tsync_time *x = m ? tsync_time_map_local(m) : NULL;
    const int64_t *bd = m ? tsync_time_map_bounds(m) : NULL;
    tsync__text_put(b, "[");
    /* Each segment written backwards from its end, then appended. */
    for (size_t i = 0; i < n && (i + 1 < n || n == 1); i++) {
        size_t j = n == 1 ? i : i + 1;
        char s[3 * TSYNC__I64_CHARS + 32], *p = s + sizeof(s);
        *--p = '}';
        if (bd) {
            p = tsync__i64_text(p, bd[i] > bd[j] ? bd[i] : bd[j]);
        } else {
            p -= 4;
            memcpy(p, "null", 4);
        }
        p = prefix(p, ",\"bound\":");
        p = tsync__i64_text(p, x[j]);
        p = prefix(p, ",\"to\":");
        p = tsync__i64_text(p, x[i]);
        p = prefix(p, i ? ",{\"from\":" : "{\"from\":");
        tsync__text_putn(b, p, (size_t)(s + sizeof(s) - p));
    }
    tsync__text_put(b, "]");
}

/* Domain d as domain_json gives it, compact: its segments written here, not built
 * as a tree (a map of 10^5 points has as many). */
static void put_domain(struct tsync__text *b, const tsync_estimate *e, const tsync_trace *t,
                       uint32_t d)
{
    json_t *head = domain_head(e, t, d), *src = sources_json(&e->dom[d].sources);
    char *s = head ? json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                          JSON_REAL_PRECISION(TEXT_DIGITS))
                   : NULL;
    if (!s || !src) {
        b->bad = 1;
    } else {
        tsync__text_putn(b, s, strlen(s) - 1);      /* without its closing brace */
        tsync__text_put(b, ",\"segments\":");
        put_segments(b, e->dom[d].map);
        tsync__text_put(b, ",\"sources\":");
        put_json(b, src, JSON_COMPACT);
        tsync__text_put(b, "}");
    }
    free(s);
    json_decref(head);
    json_decref(src);
}

/* The members of an object one per line, lists of objects one object per line;
 * the domains of e in place of the member "domains". */
static void put_members(struct tsync__text *b, const json_t *obj, const tsync_estimate *e,
                        const tsync_trace *t)
{
    const char *key;
    json_t *v, *item;
    size_t i;
    int first = 1;
    json_object_foreach((json_t *)obj, key, v) {
        json_t *k = json_string(key);
        tsync__text_put(b, first ? "\n    " : ",\n    ");
        if (k)
            put_json(b, k, JSON_ENCODE_ANY);
        else
            b->bad = 1;
        json_decref(k);
        tsync__text_put(b, ": ");
        first = 0;
        if (strcmp(key, "domains") == 0 && e->n_domains) {
            for (uint32_t d = 0; d < e->n_domains; d++) {
                tsync__text_put(b, d ? ",\n      " : "[\n      ");
                put_domain(b, e, t, d);
            }
            tsync__text_put(b, "\n    ]");
            continue;
        }
        if (!json_is_array(v) || !json_is_object(json_array_get(v, 0))) {
            put_json(b, v, JSON_COMPACT | JSON_ENCODE_ANY);
            continue;
        }
        json_array_foreach(v, i, item) {
            tsync__text_put(b, i ? ",\n      " : "[\n      ");
            put_json(b, item, JSON_COMPACT);
        }
        tsync__text_put(b, "\n    ]");
    }
}

char *tsync_estimate_json(const tsync_estimate *e, const tsync_trace *t, tsync_ctx *ctx)
{
    struct tsync__text b = { NULL, 0, 0, 0 };
    json_t *est;
    char head[160];
    size_t n = 0, points = 0;
    if (tsync__map_set_writable(e->maps, t, ctx))
        return NULL;
    /* Room for the whole text at once, 90 bytes a point of the maps as it comes
     * (its numbers, its bound, the pairs' segments; 25 MB for 10^7 messages) and
     * more: grown by doubling, it was copied into new pages four times over. Only
     * what is written is touched. */
    for (uint32_t loc = 0; loc < t->n_locations; loc++)
        if (e->maps->of[loc])
            points += tsync_time_map_point_count(e->maps->of[loc]);
    if (points < SIZE_MAX / 256 && tsync__reserve((void **)&b.s, &b.cap, 128 * points + 4096, 1))
        b.bad = 1;
    if (!(est = estimate_json(e, t, 0))) {
        tsync__oom(ctx);
        return NULL;
    }
    /* One map per line, then the estimate, indented. */
    snprintf(head, sizeof(head), "{\n  \"format\": \"tracesync-maps\",\n  \"version\": 1,\n"
             "  \"timer_resolution\": %llu,\n  \"maps\": [", (unsigned long long)e->resolution);
    tsync__text_put(&b, head);
    for (uint32_t loc = 0; loc < t->n_locations; loc++) {
        if (!e->maps->of[loc])
            continue;
        tsync__text_put(&b, n++ ? ",\n    " : "\n    ");
        tsync__map_entry_text(&b, t, loc, e->maps->of[loc],
                              JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(TEXT_DIGITS));
    }
    tsync__text_put(&b, n ? "\n  ],\n  \"estimate\": {" : "],\n  \"estimate\": {");
    put_members(&b, est, e, t);
    tsync__text_put(&b, "\n  }\n}\n");
    json_decref(est);
    if (b.bad) {
        tsync__text_free(&b);
        tsync__oom(ctx);
        return NULL;
    }
    return b.s;
}
