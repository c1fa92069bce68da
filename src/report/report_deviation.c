/* report_deviation.c - the deviation of local intervals (Table 4 of seed 002) as
 * text for people and as JSON for programs; computed in deviation.c. */
#include <math.h>

#include "report/report.h"

/* A share or a deviation in percent, "inf" for an infinite one. */
static void pct(FILE *out, double v, const char *fmt)
{
    char buf[32];
    if (isinf(v))
        snprintf(buf, sizeof(buf), "inf");
    else
        snprintf(buf, sizeof(buf), fmt, 100.0 * v);
    fprintf(out, " %10s %%", buf);
}

void tsync__deviation_print(const tsync_deviation *p, const tsync_deviation *d, FILE *out)
{
    if (!p || !d || !out)
        return;
    fprintf(out, "  local intervals (Table 4)      position     distance\n");
    fprintf(out, "    compared                 %12llu %12llu\n", (unsigned long long)p->intervals,
            (unsigned long long)d->intervals);
    fprintf(out, "    average sum|dt|/sum|t|  ");
    pct(out, p->avg, "%.4g");
    pct(out, d->avg, "%.4g");
    fprintf(out, "\n    maximum |dt|/|t|        ");
    pct(out, p->max, "%.4g");
    pct(out, d->max, "%.4g");
    fprintf(out, "\n    maximum |dt|            %10.4g s %10.4g s\n", p->max_abs_s, d->max_abs_s);
    fprintf(out, "    deviation above   share of intervals (pos, dist)  share of time (pos, dist)\n");
    for (int k = 0; k < TSYNC_DEVIATION_THRESHOLDS; k++) {
        fprintf(out, "      > %-6g %%    ", 100.0 * tsync_deviation_threshold[k]);
        pct(out, p->share_intervals[k], "%.2f");
        pct(out, d->share_intervals[k], "%.2f");
        fprintf(out, "    ");
        pct(out, p->share_time[k], "%.2f");
        pct(out, d->share_time[k], "%.2f");
        fputc('\n', out);
    }
}

/* A JSON array of the n doubles v, or NULL. */
static json_t *reals(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) {
        if (json_array_append_new(a, json_real(v[i]))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *tsync__deviation_to_json(const tsync_deviation *d)
{
    if (!d)
        return NULL;
    return json_pack("{s:I, s:o, s:o, s:f, s:o, s:o, s:o}",
                     "intervals", (json_int_t)d->intervals,
                     "avg", isinf(d->avg) ? json_null() : json_real(d->avg),
                     "max", isinf(d->max) ? json_null() : json_real(d->max),
                     "max_abs_s", d->max_abs_s,
                     "thresholds", reals(tsync_deviation_threshold, TSYNC_DEVIATION_THRESHOLDS),
                     "share_intervals", reals(d->share_intervals, TSYNC_DEVIATION_THRESHOLDS),
                     "share_time", reals(d->share_time, TSYNC_DEVIATION_THRESHOLDS));
}
