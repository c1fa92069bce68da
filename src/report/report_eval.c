/* report_eval.c - the evaluation against the truth (eval.c) as text for people and
 * as JSON for programs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "report/report.h"
#include "trace/trace.h"
#include "tracesync/eval.h"
#include "util/str.h"
#include "util/units.h"
#include "util/utf8.h"

static double share(uint64_t n, uint64_t total)
{
    return total ? 100.0 * (double)n / (double)total : 0.0;
}

void tsync_eval_report_print(const tsync_eval_report *r, const tsync_trace *corrected,
                             const tsync_trace *truth, FILE *out)
{
    char a[32], b[32], c[32], d[32];
    uint64_t total;
    if (!r || !corrected || !truth || !out)
        return;
    total = r->messages + r->logical_messages;
    fprintf(out, "eval: %s against the truth %s\n", corrected->path, truth->path);
    fprintf(out, "  events               %llu on %u location%s (%llu and %llu ticks/s)\n",
            (unsigned long long)r->events, r->locations, tsync__plural(r->locations, "s"),
            (unsigned long long)r->corrected_resolution, (unsigned long long)r->truth_resolution);
    fprintf(out, "  common offset        %s (median of corrected - true, removed)\n",
            tsync__fmt_seconds(a, sizeof(a), r->offset_s));
    fprintf(out, "  |error|              max %s, p99 %s, mean %s\n",
            tsync__fmt_seconds(a, sizeof(a), r->max_abs_error_s), tsync__fmt_seconds(b, sizeof(b), r->p99_abs_error_s),
            tsync__fmt_seconds(c, sizeof(c), r->mean_abs_error_s));
    fprintf(out, "  relative to the time axis: max %s, p99 %s, mean %s (common-mode error c(t) "
            "removed, bins of %s)\n",
            tsync__fmt_seconds(a, sizeof(a), r->relative_max_abs_error_s),
            tsync__fmt_seconds(b, sizeof(b), r->relative_p99_abs_error_s),
            tsync__fmt_seconds(c, sizeof(c), r->relative_mean_abs_error_s),
            tsync__fmt_seconds(d, sizeof(d), r->relative_bin_s));
    for (uint32_t i = 0; i < r->locations; i++) {
        const tsync_eval_location *l = &r->per_location[i];
        const struct tsync_location *tl = &truth->locations[l->loc];
        fprintf(out, "    %-18s max %s, p99 %s, mean %s (%llu event%s)", tl->name,
                tsync__fmt_seconds(a, sizeof(a), l->max_abs_error_s), tsync__fmt_seconds(b, sizeof(b), l->p99_abs_error_s),
                tsync__fmt_seconds(c, sizeof(c), l->mean_abs_error_s), (unsigned long long)l->events,
                tsync__plural(l->events, "s"));
        fprintf(out, "; relative max %s, p99 %s, mean %s\n",
                tsync__fmt_seconds(a, sizeof(a), l->relative_max_abs_error_s),
                tsync__fmt_seconds(b, sizeof(b), l->relative_p99_abs_error_s),
                tsync__fmt_seconds(c, sizeof(c), l->relative_mean_abs_error_s));
    }
    fprintf(out, "  messages             %llu point-to-point, %llu logical (collectives)\n",
            (unsigned long long)r->messages, (unsigned long long)r->logical_messages);
    fprintf(out, "  reversed             %llu (%.2f %%)\n", (unsigned long long)r->reversed,
            share(r->reversed, total));
    fprintf(out, "  violations           %llu (%.2f %%) with minimum latency %s intra-node, "
            "%s inter-node\n", (unsigned long long)r->violations, share(r->violations, total),
            tsync__fmt_seconds(a, sizeof(a), r->latency_intra_s),
            tsync__fmt_seconds(b, sizeof(b), r->latency_inter_s));
    if (r->order_changed)
        fprintf(out, "  event order          CHANGED: location %llu, event %llu differs from the "
                "truth\n", (unsigned long long)r->order_location, (unsigned long long)r->order_event);
    else
        fprintf(out, "  event order          as in the truth\n");
    tsync__deviation_print(&r->position, &r->distance, out);
}

/* Adds key = value to o; value may be NULL (out of memory): returns -1 then. */
static int put(json_t *o, const char *key, json_t *value)
{
    return value ? json_object_set_new(o, key, value) : -1;
}

/* The error keys of the report and of each location, after the constant and
 * relative to the time axis (rel: max, p99, mean); 0 or -1. */
static int put_errors(json_t *o, uint64_t events, double max, double p99, double mean,
                      const double rel[3])
{
    return put(o, "events", json_integer((json_int_t)events)) ||
           put(o, "max_abs_error_s", json_real(max)) || put(o, "p99_abs_error_s", json_real(p99)) ||
           put(o, "mean_abs_error_s", json_real(mean)) ||
           put(o, "relative_max_abs_error_s", json_real(rel[0])) ||
           put(o, "relative_p99_abs_error_s", json_real(rel[1])) ||
           put(o, "relative_mean_abs_error_s", json_real(rel[2]));
}

static json_t *location_json(const tsync_eval_location *l, const tsync_trace *truth)
{
    const struct tsync_location *tl = &truth->locations[l->loc];
    json_t *e = json_pack("{s:o, s:o}", "location", tsync__location_json(truth, l->loc), "name",
                          tsync__json_text(tl->name));
    const double rel[3] = { l->relative_max_abs_error_s, l->relative_p99_abs_error_s,
                            l->relative_mean_abs_error_s };
    if (e && put_errors(e, l->events, l->max_abs_error_s, l->p99_abs_error_s, l->mean_abs_error_s,
                        rel)) {
        json_decref(e);
        return NULL;
    }
    return e;
}

static json_t *report_json(const tsync_eval_report *r, const tsync_trace *corrected,
                           const tsync_trace *truth)
{
    json_t *o = json_pack("{s:o, s:o, s:i}", "corrected", tsync__json_text(corrected->path),
                          "truth", tsync__json_text(truth->path),
                          "locations", (json_int_t)r->locations);
    json_t *per = json_array(), *dev = json_object();
    const double rel[3] = { r->relative_max_abs_error_s, r->relative_p99_abs_error_s,
                            r->relative_mean_abs_error_s };
    int bad = !o || !per || !dev;
    bad = bad || put_errors(o, r->events, r->max_abs_error_s, r->p99_abs_error_s,
                            r->mean_abs_error_s, rel) ||
          put(o, "relative_bin_s", json_real(r->relative_bin_s));
    for (uint32_t i = 0; !bad && i < r->locations; i++)
        bad = json_array_append_new(per, location_json(&r->per_location[i], truth)) != 0;
    bad = bad || put(dev, "position", tsync__deviation_to_json(&r->position)) ||
          put(dev, "distance", tsync__deviation_to_json(&r->distance));
    bad = bad || put(o, "offset_s", json_real(r->offset_s)) || json_object_set(o, "per_location", per) ||
          put(o, "messages", json_integer((json_int_t)r->messages)) ||
          put(o, "logical_messages", json_integer((json_int_t)r->logical_messages)) ||
          put(o, "reversed", json_integer((json_int_t)r->reversed)) ||
          put(o, "violations", json_integer((json_int_t)r->violations)) ||
          put(o, "latency_intra_s", json_real(r->latency_intra_s)) ||
          put(o, "latency_inter_s", json_real(r->latency_inter_s)) ||
          put(o, "order_changed", json_boolean(r->order_changed));
    if (!bad && r->order_changed)
        bad = put(o, "order_location", json_integer((json_int_t)r->order_location)) ||
              put(o, "order_event", json_integer((json_int_t)r->order_event));
    bad = bad || json_object_set(o, "deviation", dev) ||
          put(o, "corrected_resolution", json_integer((json_int_t)r->corrected_resolution)) ||
          put(o, "truth_resolution", json_integer((json_int_t)r->truth_resolution));
    json_decref(per);
    json_decref(dev);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

char *tsync_eval_report_json(const tsync_eval_report *r, const tsync_trace *corrected,
                             const tsync_trace *truth)
{
    json_t *o;
    char *text;
    if (!r || !corrected || !truth || !(o = report_json(r, corrected, truth)))
        return NULL;
    text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(o);
    return text;
}
