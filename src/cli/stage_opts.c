/* stage_opts.c - the options of the stages: the minimum latencies (every command
 * that checks, estimates or runs the clc), and the estimate and clc stages' own,
 * one table and one parser each, shared by `estimate`, `clc` and `sync` (which
 * runs both stages). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
    O_NO_SEGMENT = 1000, O_MIN_SEGMENT, O_MAX_DRIFT, O_NO_OFFSETS, O_MAX_GAP, O_MAX_SEGMENT,
    O_MAX_WANDER,
    O_LATENCY_FILE = 1100, O_NO_PRESYNC, O_GAMMA, O_DELTA, O_PASSES, O_THRESHOLD, O_SLOPE,
    O_THREADS
};

const struct option cli_estimate_options[] = {
    { "no-segment", no_argument, NULL, O_NO_SEGMENT },
    { "min-segment", required_argument, NULL, O_MIN_SEGMENT },
    { "max-drift", required_argument, NULL, O_MAX_DRIFT },
    { "no-offsets", no_argument, NULL, O_NO_OFFSETS },
    { "max-gap", required_argument, NULL, O_MAX_GAP },
    { "max-segment", required_argument, NULL, O_MAX_SEGMENT },
    { "max-wander", required_argument, NULL, O_MAX_WANDER },
    { NULL, 0, NULL, 0 }
};

const struct option cli_clc_options[] = {
    { "latency-file", required_argument, NULL, O_LATENCY_FILE },
    { "no-presync", no_argument, NULL, O_NO_PRESYNC },
    { "gamma", required_argument, NULL, O_GAMMA },
    { "delta", required_argument, NULL, O_DELTA },
    { "passes", required_argument, NULL, O_PASSES },
    { "threshold", required_argument, NULL, O_THRESHOLD },
    { "slope", required_argument, NULL, O_SLOPE },
    { "threads", required_argument, NULL, O_THREADS },
    { NULL, 0, NULL, 0 }
};

const struct option *cli_options(const struct option *own, const struct option *a,
                                 const struct option *b)
{
    static struct option joined[64]; /* one command runs per process */
    const struct option *part[3] = { own, a, b };
    size_t n = 0;
    for (int k = 0; k < 3; k++)
        for (const struct option *o = part[k]; o && o->name && n + 1 < 64; o++)
            joined[n++] = *o;
    memset(&joined[n], 0, sizeof(joined[n]));
    return joined;
}

int cli_parse_latency(const char *cmd, const char *spec, tsync_check_opts *o, tsync_ctx *ctx)
{
    if (!spec || tsync_check_parse_latency(o, spec, ctx) == 0)
        return 0;
    return cli_usage_error(cmd, "%s", tsync_ctx_error(ctx));
}

/* "0.5s", "500ms", "2" (seconds): a non-negative duration. -1 if it is not one. */
static int parse_duration(const char *arg, double *out)
{
    return tsync_parse_seconds(arg, out) == 0 && *out >= 0 ? 0 : -1;
}

/* A number option: the whole argument must be a finite number. */
static int parse_number(const char *cmd, const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || v != v) {
        cli_usage_error(cmd, "%s: \"%s\" is not a number", opt, arg);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_estimate_option(const char *cmd, int c, const char *arg, tsync_estimate_opts *eo)
{
    double *d = c == O_MIN_SEGMENT ? &eo->min_segment_s : c == O_MAX_GAP ? &eo->max_gap_s
                                                                          : &eo->max_segment_s;
    const char *name = c == O_MIN_SEGMENT ? "--min-segment" : c == O_MAX_GAP ? "--max-gap"
                                                                             : "--max-segment";
    char *end;
    switch (c) {
    case O_NO_SEGMENT: eo->segment = 0; return 1;
    case O_NO_OFFSETS: eo->use_clock_offsets = 0; return 1;
    case O_MIN_SEGMENT:
    case O_MAX_GAP:
    case O_MAX_SEGMENT:
        if (parse_duration(arg, d) == 0)
            return 1;
        cli_usage_error(cmd, "%s: \"%s\" is not a duration (e.g. 30s, 500ms%s)", name, arg,
                        c == O_MIN_SEGMENT ? "" : ", 0 for none");
        return -1;
    case O_MAX_DRIFT:
        eo->max_drift = strtod(arg, &end) * 1e-6;
        if (end != arg && !*end && eo->max_drift > 0 && eo->max_drift < 0.5)
            return 1;
        cli_usage_error(cmd, "--max-drift: \"%s\" is not a drift in ppm (e.g. 100)", arg);
        return -1;
    case O_MAX_WANDER:
        eo->max_wander = strtod(arg, &end) * 1e-6;
        if (end != arg && !*end && eo->max_wander >= 0 && eo->max_wander < 1e-3)
            return 1;
        cli_usage_error(cmd, "--max-wander: \"%s\" is not a drift change in ppm per second "
                        "(e.g. 0.01)", arg);
        return -1;
    default: return 0;
    }
}

int cli_clc_option(const char *cmd, int c, const char *arg, tsync_clc_opts *o, unsigned *threads)
{
    const char *name = c == O_DELTA ? "--delta" : c == O_PASSES ? "--passes" : "--threads";
    double v = 0;
    switch (c) {
    case O_LATENCY_FILE: o->latency_file = arg; return 1;
    case O_NO_PRESYNC: o->presync = 0; return 1;
    case O_GAMMA: return parse_number(cmd, "--gamma", arg, &o->gamma) ? -1 : 1;
    case O_THRESHOLD: return parse_number(cmd, "--threshold", arg, &o->error_threshold) ? -1 : 1;
    case O_SLOPE: return parse_number(cmd, "--slope", arg, &o->max_slope) ? -1 : 1;
    case O_DELTA:
    case O_PASSES:
    case O_THREADS:
        if (parse_number(cmd, name, arg, &v))
            return -1;
        if (v < 0 || v > (c == O_THREADS ? 1024 : 1e9) || v != (double)(int64_t)v) {
            cli_usage_error(cmd, "%s: \"%s\" is not a whole number >= 0%s", name, arg,
                            c == O_THREADS ? " and <= 1024" : "");
            return -1;
        }
        if (c == O_DELTA)
            o->delta_ticks = (int64_t)v;
        else if (c == O_PASSES)
            o->max_passes = (unsigned)v;
        else
            *threads = (unsigned)v;
        return 1;
    default: return 0;
    }
}
