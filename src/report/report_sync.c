/* report_sync.c - the sync report: a line per stage for people, and the full
 * report as JSON (every stage's own report embedded). */
#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "report/report.h"
#include "estimate/estimate_int.h"
#include "trace/trace.h"
#include "util/ctx.h"
#include "util/str.h"
#include "util/units.h"
#include "util/utf8.h"

/* "1199 of 2400 messages (49.96 %)" for people. */
static void print_counts(const char *label, const tsync_check_report *c, FILE *out)
{
    uint64_t all = c->messages + c->logical_messages;
    char buf[32];
    fprintf(out, "  %-14s %llu violation%s, %llu reversed of %llu message%s (%.2f %%)", label,
            (unsigned long long)c->violations, tsync__plural(c->violations, "s"),
            (unsigned long long)c->reversed, (unsigned long long)all, tsync__plural(all, "s"), all ? 100.0 * (double)c->violations / (double)all : 0.0);
    if (c->reversed)
        fprintf(out, ", max displacement %s",
                tsync__fmt_seconds(buf, sizeof(buf), c->displacement_max_s));
    fprintf(out, "\n");
}

/* Which information the maps came from (the program's messages, collectives, a
 * tracer's synchronization sessions, ClockOffset records): per combination, the
 * number of maps and their paths' counts summed. */
static void print_sources(const tsync_estimate *e, FILE *out)
{
    tsync_estimate_sources sum[16] = { { 0 } };
    uint32_t maps[16] = { 0 };
    const char *label = "sources";
    char text[128];
    for (uint32_t d = 0; d < tsync_estimate_domain_count(e); d++) {
        const tsync_estimate_domain *dom = tsync_estimate_get_domain(e, d);
        const tsync_estimate_sources *s = &dom->sources;
        unsigned k = (s->messages > 0) | (s->collectives > 0) << 1 | (s->sessions > 0) << 2 |
                     (s->offsets > 0) << 3;
        if (!dom->path_length)
            continue;
        maps[k]++;
        sum[k].messages += s->messages;
        sum[k].collectives += s->collectives;
        sum[k].sessions += s->sessions;
        sum[k].offsets += s->offsets;
    }
    for (unsigned k = 0; k < 16; k++)
        if (maps[k]) {
            fprintf(out, "  %-14s %u map%s from %s\n", label, maps[k], tsync__plural(maps[k], "s"),
                    tsync__estimate_sources_text(&sum[k], text, sizeof(text)));
            label = "";
        }
}

/* A line per stage. */
void tsync__report_sync_print(const tsync_pipeline_result *r, FILE *out)
{
    char a[32], b[32];
    fprintf(out, "sync: %s -> %s\n", tsync_trace_path(r->trace), r->output);
    fprintf(out, "  %-14s %u location%s in %u clock domain%s (%s %s", "trace",
            tsync_trace_location_count(r->trace), tsync__plural(tsync_trace_location_count(r->trace), "s"),
            tsync_trace_domain_count(r->trace), tsync__plural(tsync_trace_domain_count(r->trace), "s"),
            tsync_trace_domain_file(r->trace) ? "from" : "by",
            tsync_trace_domain_file(r->trace) ? tsync_trace_domain_file(r->trace)
                                              : tsync_trace_domain_rule(r->trace));
    for (size_t i = 0; i < tsync_trace_split_count(r->trace); i++) {
        const tsync_domain_split *sp = tsync_trace_get_split(r->trace, i);
        fprintf(out, "%s\"%s\" into %u", i ? ", " : "; split where their messages contradict "
                "one clock: ", sp->name, sp->n_parts);
    }
    fprintf(out, ")\n");
    tsync__report_pairs_print(r, out);
    print_counts("before", r->before, out);
    if (r->estimate) {
        uint32_t nd = tsync_estimate_domain_count(r->estimate), bounded = 0, other = 0;
        double worst = 0;
        for (uint32_t d = 0; d < nd; d++) {
            const tsync_estimate_domain *dom = tsync_estimate_get_domain(r->estimate, d);
            if (dom->kind == TSYNC_BOUND_BOUNDED) {
                bounded++;
                if (dom->bound_s > worst)
                    worst = dom->bound_s;
            } else if (dom->kind != TSYNC_BOUND_EXACT) {
                other++;
            }
        }
        fprintf(out, "  %-14s %s: %u domain%s bounded (largest bound %s), %u without a bound, ",
                "estimate", tsync_estimate_estimator_name(r->estimate), bounded,
                tsync__plural(bounded, "s"), tsync__fmt_seconds(a, sizeof(a), worst), other);
        if (tsync_estimate_component_count(r->estimate) == 1)
            fprintf(out, "reference ");
        else
            fprintf(out, "%u references (unrelated components): ",
                    tsync_estimate_component_count(r->estimate));
        tsync__estimate_print_references(r->estimate, out);
        fprintf(out, "\n");
        print_sources(r->estimate, out);
        print_counts("after maps", r->after_maps, out);
    }
    if (r->clc)
        fprintf(out, "  %-14s %llu receive%s put forward in %u pass%s (gamma %g), largest jump %s, "
                "largest shift %s\n", "clc", (unsigned long long)r->clc->corrected,
                tsync__plural(r->clc->corrected, "s"), r->clc->passes,
                tsync__plural(r->clc->passes, "es"), r->clc->gamma,
                tsync__fmt_seconds(a, sizeof(a), r->clc->max_jump_s),
                tsync__fmt_seconds(b, sizeof(b), r->clc->max_shift_s));
    print_counts("after", r->after, out);
    /* Three significant digits for both: a fixed number of decimals printed a
     * maximum below the average ("avg 0.0019 %, max 0.00 %"). */
    fprintf(out, "  %-14s event distance deviation avg %.3g %%, max %.3g %%; event position "
            "max %s\n", "intervals", 100.0 * r->distance.avg,
            isinf(r->distance.max) ? INFINITY : 100.0 * r->distance.max,
            tsync__fmt_seconds(a, sizeof(a), r->position.max_abs_s));
    fprintf(out, "  %-14s %s\n", "result",
            tsync_check_report_consistent(r->after) ? "CONSISTENT" : "INCONSISTENT");
}

json_t *tsync__report_sync_json(const tsync_pipeline_result *r, tsync_ctx *ctx)
{
    json_t *o = json_object(), *dev = json_object(), *e;
    if (!o || !dev)
        goto fail;
    json_object_set_new(o, "input", tsync__json_text(tsync_trace_path(r->trace)));
    json_object_set_new(o, "output", tsync__json_text(r->output));
    json_object_set_new(o, "domain_rule", json_string(tsync_trace_domain_rule(r->trace)));
    json_object_set_new(o, "domain_file", tsync_trace_domain_file(r->trace)
                                              ? tsync__json_text(tsync_trace_domain_file(r->trace))
                                              : json_null());
    if (r->trace->n_pairings && tsync__report_pairs_json(r, o))
        goto fail;
    json_object_set_new(o, "before", tsync__check_report_to_json(r->before, r->trace));
    if (r->estimate) {
        if (!(e = tsync__estimate_to_json(r->estimate, r->trace, ctx)))
            goto fail;
        json_object_set_new(o, "estimate", e);
        json_object_set_new(o, "after_maps", tsync__check_report_to_json(r->after_maps, r->trace));
    }
    if (r->clc)
        json_object_set_new(o, "clc", tsync__clc_result_to_json(r->clc));
    json_object_set_new(o, "after", tsync__check_report_to_json(r->after, r->trace));
    json_object_set_new(dev, "position", tsync__deviation_to_json(&r->position));
    json_object_set_new(dev, "distance", tsync__deviation_to_json(&r->distance));
    json_object_set_new(o, "deviation", dev);
    json_object_set_new(o, "shift_ticks", json_integer(r->shift_ticks));
    json_object_set_new(o, "consistent", json_boolean(tsync_check_report_consistent(r->after)));
    return o;
fail:
    json_decref(dev);
    json_decref(o);
    tsync__oom(ctx);
    return NULL;
}
