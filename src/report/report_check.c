/* report_check.c - the clock condition report as text for people and as JSON for
 * programs (metrics in check.c; seed 002, Fig. 5 and Table 3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"
#include "trace/trace.h"
#include "util/str.h"
#include "util/units.h"
#include "util/utf8.h"

/* "1199 (49.96 %)" of all messages, or just "0" when there are none. */
static void print_share(FILE *out, uint64_t n, uint64_t total)
{
    if (total)
        fprintf(out, "%llu (%.2f %%)", (unsigned long long)n, 100.0 * (double)n / (double)total);
    else
        fprintf(out, "%llu", (unsigned long long)n);
}

/* A location by name and file id: "rank 3 (id 3)"; by name alone where the file has
 * no ids (CSV: "5", not "5 (id 1)"). */
static void print_loc(FILE *out, const tsync_trace *t, tsync_loc loc)
{
    const struct tsync_location *l = &t->locations[loc];
    fprintf(out, "%s", l->name ? l->name : "?");
    if (t->format != TSYNC_FORMAT_CSV)
        fprintf(out, " (id %llu)", (unsigned long long)l->ref);
}

void tsync_check_report_print(const tsync_check_report *r, const tsync_trace *t, FILE *out)
{
    uint64_t total;
    char a[48], b[48];

    if (!r || !t || !out)
        return;
    total = r->messages + r->logical_messages;
    fprintf(out, "check: %s\n", t->path);
    if (t->domain_file)
        fprintf(out, "  locations            %u (clock domains from %s: %u)\n", r->locations,
                t->domain_file, r->domains);
    else
        fprintf(out, "  locations            %u (clock domains by %s: %u)\n", r->locations,
                tsync_trace_domain_rule(t), r->domains);
    fprintf(out, "  messages             %llu point-to-point, %llu logical (collectives)\n",
            (unsigned long long)r->messages, (unsigned long long)r->logical_messages);
    fprintf(out, "  reversed             ");
    print_share(out, r->reversed, total);
    if (r->reversed)
        fprintf(out, ": %llu point-to-point, %llu logical",
                (unsigned long long)r->p2p.reversed, (unsigned long long)r->collective.reversed);
    fprintf(out, "\n  violations           ");
    print_share(out, r->violations, total);
    fprintf(out, " with minimum latency %s intra-node, %s inter-node",
            tsync__fmt_seconds(a, sizeof(a), r->latency_intra_s),
            tsync__fmt_seconds(b, sizeof(b), r->latency_inter_s));
    if (r->latency_pairs)
        fprintf(out, ", %u node pair%s from a file", r->latency_pairs,
                tsync__plural(r->latency_pairs, "s"));
    fputc('\n', out);
    if (r->reversed)
        fprintf(out, "  displacement         avg %s, max %s (reversed messages)\n",
                tsync__fmt_seconds(a, sizeof(a), r->displacement_avg_s),
                tsync__fmt_seconds(b, sizeof(b), r->displacement_max_s));
    else
        fprintf(out, "  displacement         none (no reversed messages)\n");
    for (uint32_t i = 0; i < r->n_worst_pairs; i++) {
        const tsync_check_pair *p = &r->worst_pairs[i];
        fprintf(out, "  %-20s ", i == 0 ? "worst pairs" : "");
        print_loc(out, t, p->send_loc);
        fprintf(out, " -> ");
        print_loc(out, t, p->recv_loc);
        fprintf(out, ": %llu violation%s, max %s\n", (unsigned long long)p->violations,
                tsync__plural(p->violations, "s"), tsync__fmt_seconds(a, sizeof(a), p->displacement_max_s));
    }
    fprintf(out, "  unmatched            %llu send%s, %llu receive%s\n",
            (unsigned long long)r->unmatched_sends, tsync__plural(r->unmatched_sends, "s"),
            (unsigned long long)r->unmatched_recvs, tsync__plural(r->unmatched_recvs, "s"));
    fprintf(out, "  result               %s\n",
            tsync_check_report_consistent(r) ? "CONSISTENT" : "INCONSISTENT");
}

/* {messages, reversed, violations, displacement_avg_s, displacement_max_s} */
static json_t *counts_json(const tsync_check_counts *c)
{
    return json_pack("{s:I, s:I, s:I, s:f, s:f}",
                     "messages", (json_int_t)c->messages,
                     "reversed", (json_int_t)c->reversed,
                     "violations", (json_int_t)c->violations,
                     "displacement_avg_s", c->displacement_avg_s,
                     "displacement_max_s", c->displacement_max_s);
}

static json_t *pairs_json(const tsync_check_report *r, const tsync_trace *t)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < r->n_worst_pairs; i++) {
        const tsync_check_pair *p = &r->worst_pairs[i];
        const struct tsync_location *s = &t->locations[p->send_loc], *d = &t->locations[p->recv_loc];
        json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:I, s:f}",
                              "send_location", tsync__location_json(t, p->send_loc),
                              "recv_location", tsync__location_json(t, p->recv_loc),
                              "send_name", tsync__json_text(s->name),
                              "recv_name", tsync__json_text(d->name),
                              "violations", (json_int_t)p->violations,
                              "displacement_max_s", p->displacement_max_s);
        if (json_array_append_new(arr, o)) { /* also fails (and is fine) for o == NULL */
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

json_t *tsync__check_report_to_json(const tsync_check_report *r, const tsync_trace *t)
{
    json_t *o;
    if (!r || !t)
        return NULL;
    /* "o" takes the reference, also when packing fails on a NULL part. */
    o = json_pack("{s:o, s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:o, s:o,"
                     " s:{s:I, s:I}, s:f, s:f, s:b}",
                     "trace", tsync__json_text(t->path),
                     "locations", (json_int_t)r->locations,
                     "domains", (json_int_t)r->domains,
                     "domain_rule", tsync_trace_domain_rule(t),
                     "timer_resolution", (json_int_t)r->timer_resolution,
                     "messages", (json_int_t)r->messages,
                     "logical_messages", (json_int_t)r->logical_messages,
                     "reversed", (json_int_t)r->reversed,
                     "violations", (json_int_t)r->violations,
                     "displacement_avg_s", r->displacement_avg_s,
                     "displacement_max_s", r->displacement_max_s,
                     "p2p", counts_json(&r->p2p),
                     "collective", counts_json(&r->collective),
                     "worst_pairs", pairs_json(r, t),
                     "unmatched", "sends", (json_int_t)r->unmatched_sends,
                     "receives", (json_int_t)r->unmatched_recvs,
                     "latency_intra_s", r->latency_intra_s,
                     "latency_inter_s", r->latency_inter_s,
                     "consistent", tsync_check_report_consistent(r));
    /* Only with a latency file: the report without one stays as it was. */
    if (o && r->latency_pairs &&
        json_object_set_new(o, "latency_pairs", json_integer((json_int_t)r->latency_pairs))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Every clock domain with its locations: [{name, locations: [{id, name, node, rank}]}]. */
static json_t *clock_domains_json(const tsync_trace *t)
{
    json_t *doms = json_array();
    json_t **locs = calloc(t->n_domains ? t->n_domains : 1, sizeof(*locs));
    int ok = doms && locs;
    for (uint32_t d = 0; ok && d < t->n_domains; d++)
        ok = (locs[d] = json_array()) &&
             !json_array_append_new(doms, json_pack("{s:o, s:O}",
                                                    "name", tsync__json_text(t->domains[d].name),
                                                    "locations", locs[d]));
    for (uint32_t i = 0; ok && i < t->n_locations; i++) {
        const struct tsync_location *l = &t->locations[i];
        json_t *rank = l->rank == TSYNC_NONE ? json_null() : json_integer((json_int_t)l->rank);
        ok = l->domain < t->n_domains &&
             !json_array_append_new(locs[l->domain], json_pack("{s:o, s:o, s:o, s:o}", "id",
                                    tsync__location_json(t, i), "name", tsync__json_text(l->name),
                                    "node",
                                    tsync__json_text(t->nodes[l->node].name),
                                    "rank", rank));
    }
    for (uint32_t d = 0; locs && d < t->n_domains; d++)
        json_decref(locs[d]);
    free(locs);
    if (!ok) {
        json_decref(doms);
        return NULL;
    }
    return doms;
}

char *tsync_check_report_json(const tsync_check_report *r, const tsync_trace *t)
{
    json_t *j = tsync__check_report_to_json(r, t);
    char *s;
    if (!j)
        return NULL;
    if (json_object_set_new(j, "domain_file", t->domain_file ? tsync__json_text(t->domain_file)
                                                             : json_null()) ||
        json_object_set_new(j, "clock_domains", clock_domains_json(t))) {
        json_decref(j);
        return NULL;
    }
    /* 15 digits: 3e-07, not 2.9999999999999999e-07; malloc'ed, free() it */
    s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(j);
    return s;
}
