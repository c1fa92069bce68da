/* report_clc_result.c - the result of the controlled logical clock as text for people and
 * as JSON for programs (the stage is in clc.c; seed 002, Fig. 5 "violations
 * explicitly corrected", section 5.2 passes and gamma). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"
#include "util/str.h"
#include "util/units.h"

void tsync_clc_result_print(const tsync_clc_result *r, FILE *out)
{
    char a[32], b[32];
    if (!r || !out)
        return;
    fprintf(out, "clc: %u forward pass%s, gamma %.10g, error %.3g (run-relative lead at the end)\n",
            r->passes, tsync__plural(r->passes, "es"), r->gamma, r->error);
    if (r->presync_locations)
        fprintf(out, "  pre-synchronization  ClockOffset interpolation on %u location%s (%llu "
                "records)\n", r->presync_locations, tsync__plural(r->presync_locations, "s"),
                (unsigned long long)r->offset_records);
    else
        fprintf(out, "  pre-synchronization  none (%s)\n",
                r->presync ? "no ClockOffset records" : "switched off");
    fprintf(out, "  minimum latency      %s intra-node, %s inter-node", tsync__fmt_seconds(a, sizeof(a),
            r->latency_intra_s), tsync__fmt_seconds(b, sizeof(b), r->latency_inter_s));
    if (r->latency_pairs)
        fprintf(out, ", %u node pair%s from a file", r->latency_pairs,
                tsync__plural(r->latency_pairs, "s"));
    fprintf(out, "; delta %lld tick%s\n", (long long)r->delta_ticks, tsync__plural(r->delta_ticks, "s"));
    fprintf(out, "  receives             %llu, %llu corrected explicitly (%llu point-to-point, "
            "%llu collective)\n", (unsigned long long)r->receives, (unsigned long long)r->corrected,
            (unsigned long long)r->corrected_p2p, (unsigned long long)r->corrected_collective);
    if (r->corrected)
        fprintf(out, "  jumps                max %s; backward amortization moved %llu event%s, "
                "%llu jump%s bent by send limits\n", tsync__fmt_seconds(a, sizeof(a), r->max_jump_s),
                (unsigned long long)r->amortized_events, tsync__plural(r->amortized_events, "s"),
                (unsigned long long)r->limited_jumps,
                tsync__plural(r->limited_jumps, "s"));
    fprintf(out, "  events moved         %llu of %llu, at most %s\n",
            (unsigned long long)r->moved_events, (unsigned long long)r->events,
            tsync__fmt_seconds(a, sizeof(a), r->max_shift_s));
    if (r->ignored)
        fprintf(out, "  cycles               %llu receive%s corrected without sends after them "
                "(mis-matched messages?)\n", (unsigned long long)r->ignored,
                tsync__plural(r->ignored, "s"));
}

/* The gamma and error of every pass, as two arrays. */
static int pass_arrays(const tsync_clc_result *r, json_t **gammas, json_t **errors)
{
    *gammas = json_array();
    *errors = json_array();
    for (unsigned i = 0; *gammas && *errors && i < r->passes; i++)
        if (json_array_append_new(*gammas, json_real(r->pass_gamma[i])) ||
            json_array_append_new(*errors, json_real(r->pass_error[i])))
            break;
    return *gammas && *errors && json_array_size(*errors) == r->passes ? 0 : -1;
}

json_t *tsync__clc_result_to_json(const tsync_clc_result *r)
{
    json_t *gammas, *errors;
    if (!r)
        return NULL;
    if (pass_arrays(r, &gammas, &errors)) {
        json_decref(gammas);
        json_decref(errors);
        return NULL;
    }
    /* "o" takes the references, also when packing fails. */
    return json_pack("{s:b, s:I, s:I, s:I, s:f, s:f, s:o, s:o, s:I, s:I, s:I, s:I, s:f, s:I, s:I,"
                     " s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:f, s:I, s:I, s:I}",
                     "presync", r->presync,
                     "presync_locations", (json_int_t)r->presync_locations,
                     "offset_records", (json_int_t)r->offset_records,
                     "passes", (json_int_t)r->passes,
                     "gamma", r->gamma,
                     "error", r->error,
                     "pass_gamma", gammas,
                     "pass_error", errors,
                     "receives", (json_int_t)r->receives,
                     "corrected", (json_int_t)r->corrected,
                     "corrected_p2p", (json_int_t)r->corrected_p2p,
                     "corrected_collective", (json_int_t)r->corrected_collective,
                     "max_jump_s", r->max_jump_s,
                     "amortized_events", (json_int_t)r->amortized_events,
                     "limited_jumps", (json_int_t)r->limited_jumps,
                     "ignored", (json_int_t)r->ignored,
                     "moved_events", (json_int_t)r->moved_events,
                     "max_shift_s", r->max_shift_s,
                     "latency_intra_s", r->latency_intra_s,
                     "latency_inter_s", r->latency_inter_s,
                     "latency_pairs", (json_int_t)r->latency_pairs,
                     "delta_ticks", (json_int_t)r->delta_ticks,
                     "max_slope", r->max_slope,
                     "timer_resolution", (json_int_t)r->timer_resolution,
                     "events", (json_int_t)r->events,
                     "memory_bytes", (json_int_t)r->memory);
}

char *tsync_clc_result_json(const tsync_clc_result *r)
{
    json_t *j = tsync__clc_result_to_json(r);
    char *s;
    if (!j)
        return NULL;
    s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(j);
    return s;
}
