/* report_clc.c - the clc report: the clock condition before and after (seed 002,
 * Fig. 5 and Table 3), what the clc did (passes, gamma, violations explicitly
 * corrected, jumps) and how much local intervals changed (Table 4). The times
 * "before" are the CLC's input: pre-synchronized when the ClockOffset records
 * mapped them, with the times as recorded in a column of their own. */
#include "report/report.h"
#include "util/units.h"
#include "util/utf8.h"

/* One row of the clock condition table: a count with its share of all messages. */
static void count_cell(uint64_t n, uint64_t total, FILE *out)
{
    char buf[48];
    if (total)
        snprintf(buf, sizeof(buf), "%llu (%.2f %%)", (unsigned long long)n,
                 100.0 * (double)n / (double)total);
    else
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)n);
    fprintf(out, " %-22s", buf);
}

static void print_row(const char *name, const tsync_check_report *const *col, int n, int what,
                      FILE *out)
{
    fprintf(out, "  %-20s", name);
    for (int i = 0; i < n; i++) {
        const tsync_check_report *c = col[i];
        uint64_t total = c->messages + c->logical_messages;
        char buf[32];
        if (what == 0)
            count_cell(c->reversed, total, out);
        else if (what == 1)
            count_cell(c->violations, total, out);
        else
            fprintf(out, " %-22s", c->reversed ? tsync__fmt_seconds(buf, sizeof(buf), what == 2 ?
                                                 c->displacement_avg_s : c->displacement_max_s)
                                               : "-");
    }
    fprintf(out, "\n");
}

void tsync__report_clc_print(const tsync_pipeline_result *r, FILE *out)
{
    const tsync_check_report *col[3];
    int n = 0;
    fprintf(out, "clc: %s -> %s\n", tsync_trace_path(r->trace), r->output);
    fprintf(out, "  locations %u, events %llu, messages %llu point-to-point and %llu logical "
            "(collectives)\n", tsync_trace_location_count(r->trace),
            (unsigned long long)tsync_trace_event_count(r->trace),
            (unsigned long long)r->after->messages, (unsigned long long)r->after->logical_messages);
    fprintf(out, "  %-20s", "clock condition");
    if (r->after_maps) {
        col[n++] = r->before;
        fprintf(out, " %-22s", "as recorded");
    }
    col[n++] = r->after_maps ? r->after_maps : r->before;
    col[n++] = r->after;
    fprintf(out, " %-22s %-22s\n", r->after_maps ? "pre-synchronized" : "before", "after");
    print_row("reversed", col, n, 0, out);
    print_row("violations", col, n, 1, out);
    print_row("displacement avg", col, n, 2, out);
    print_row("displacement max", col, n, 3, out);
    tsync_clc_result_print(r->clc, out);
    tsync__deviation_print(&r->clc->position, &r->clc->distance, out);
    fprintf(out, "  result               %s\n",
            tsync_check_report_consistent(r->after) ? "CONSISTENT" : "INCONSISTENT");
}

json_t *tsync__report_clc_json(const tsync_pipeline_result *r)
{
    const tsync_trace *t = r->trace;
    json_t *j = json_pack("{s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}}",
                          "trace", tsync__json_text(tsync_trace_path(t)),
                          "output", tsync__json_text(r->output),
                          "before", tsync__check_report_to_json(r->after_maps ? r->after_maps
                                                                              : r->before, t),
                          "after", tsync__check_report_to_json(r->after, t),
                          "clc", tsync__clc_result_to_json(r->clc),
                          "deviation",
                          "position", tsync__deviation_to_json(&r->clc->position),
                          "distance", tsync__deviation_to_json(&r->clc->distance));
    if (j && r->after_maps &&
        json_object_set_new(j, "recorded", tsync__check_report_to_json(r->before, t))) {
        json_decref(j);
        return NULL;
    }
    return j;
}
