/* cmd_clc.c - `tracesync clc`: the controlled logical clock on one trace, written
 * anew, with a report of what it changed: the clock condition before and after
 * (seed 002, Fig. 5 and Table 3), what the clc did (passes, gamma, violations
 * explicitly corrected, jumps) and how much local intervals changed (Table 4). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_json.h"
#include "clc/clc_api.h"
#include "clc/clc_report.h"
#include "util/units.h"
#include "cli/cli.h"
#include "metrics/deviation_report.h"
#include "tracesync/check.h"
#include "tracesync/clc.h"
#include "tracesync/metrics.h"
#include "tracesync/trace.h"
#include "trace/trace.h"

/* Everything the report shows. */
struct clc_report {
    const char *input;
    char *output;                    /* OUTDIR/<input file name> */
    tsync_check_report *recorded;    /* raw times; NULL when nothing was pre-synchronized */
    tsync_check_report *before;      /* the clc's input */
    tsync_check_report *after;
    tsync_clc_result *clc;           /* with the Table 4 deviation */
};

static void report_free(struct clc_report *r)
{
    free(r->output);
    tsync_check_report_free(r->recorded);
    tsync_check_report_free(r->before);
    tsync_check_report_free(r->after);
    tsync_clc_result_free(r->clc);
}

/* One row of the clock condition table: a count with its share of all messages. */
static void count_cell(uint64_t n, uint64_t total)
{
    char buf[48];
    if (total)
        snprintf(buf, sizeof(buf), "%llu (%.2f %%)", (unsigned long long)n,
                 100.0 * (double)n / (double)total);
    else
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)n);
    printf(" %-22s", buf);
}

static void print_row(const char *name, const tsync_check_report *const *col, int n, int what)
{
    printf("  %-20s", name);
    for (int i = 0; i < n; i++) {
        const tsync_check_report *c = col[i];
        uint64_t total = c->messages + c->logical_messages;
        char buf[32];
        if (what == 0)
            count_cell(c->reversed, total);
        else if (what == 1)
            count_cell(c->violations, total);
        else
            printf(" %-22s", c->reversed ? tsync__fmt_seconds(buf, sizeof(buf), what == 2 ?
                                           c->displacement_avg_s : c->displacement_max_s) : "-");
    }
    printf("\n");
}

static void print_text(const struct clc_report *r, const tsync_trace *t)
{
    const tsync_check_report *col[3];
    int n = 0;
    printf("clc: %s -> %s\n", r->input, r->output);
    printf("  locations %u, events %llu, messages %llu point-to-point and %llu logical "
           "(collectives)\n", tsync_trace_location_count(t),
           (unsigned long long)tsync_trace_event_count(t), (unsigned long long)r->after->messages,
           (unsigned long long)r->after->logical_messages);
    printf("  %-20s", "clock condition");
    if (r->recorded) {
        col[n++] = r->recorded;
        printf(" %-22s", "as recorded");
    }
    col[n++] = r->before;
    col[n++] = r->after;
    printf(" %-22s %-22s\n", r->recorded ? "pre-synchronized" : "before", "after");
    print_row("reversed", col, n, 0);
    print_row("violations", col, n, 1);
    print_row("displacement avg", col, n, 2);
    print_row("displacement max", col, n, 3);
    tsync_clc_result_print(r->clc, stdout);
    tsync__deviation_print(&r->clc->position, &r->clc->distance, stdout);
    printf("  result               %s\n",
           tsync_check_report_consistent(r->after) ? "CONSISTENT" : "INCONSISTENT");
}

static char *report_json(const struct clc_report *r, const tsync_trace *t)
{
    json_t *j = json_pack("{s:s, s:s, s:o, s:o, s:o, s:{s:o, s:o}}",
                          "trace", r->input,
                          "output", r->output,
                          "before", tsync__check_report_to_json(r->before, t),
                          "after", tsync__check_report_to_json(r->after, t),
                          "clc", tsync__clc_result_to_json(r->clc),
                          "deviation",
                          "position", tsync__deviation_to_json(&r->clc->position),
                          "distance", tsync__deviation_to_json(&r->clc->distance));
    char *s = NULL;
    if (j && r->recorded &&
        json_object_set_new(j, "recorded", tsync__check_report_to_json(r->recorded, t))) {
        json_decref(j);
        return NULL;
    }
    if (j)
        s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(j);
    return s;
}

/* A number option: the whole argument must be a finite number. */
static int parse_number(const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || v != v)
        return cli_usage_error("clc", "%s: \"%s\" is not a number", opt, arg);
    *out = v;
    return 0;
}

/* Whether the report can be written where asked: a bad path fails before the
 * work, not after the output archive is written. Leaves nothing behind. */
static int report_writable(const char *path)
{
    size_t len = strlen(path) + 5;
    char *tmp = malloc(len);
    FILE *f = NULL;
    if (tmp) {
        snprintf(tmp, len, "%s.tmp", path);
        if ((f = fopen(tmp, "w")) != NULL) {
            fclose(f);
            remove(tmp);
        } else {
            fprintf(stderr, "tracesync clc: --report %s: %s\n", path, strerror(errno));
        }
    }
    free(tmp);
    return f != NULL;
}

/* A clock condition check on a second thread: the three checks of the report
 * read the trace and a timeline that nothing changes meanwhile, so each runs
 * beside the work that follows it (pre-synchronization, the clc, the write) on a
 * second core. Its context is its own (a context is not shared between threads):
 * check does not warn, its progress is not shown, only an error is passed on. */
struct check_job {
    const tsync_trace *t;
    const tsync_timeline *tl;
    const tsync_check_opts *opts;
    tsync_check_report *report;
    tsync_ctx *ctx;
    int rc, threaded;
    pthread_t thread;
};

static void *check_main(void *arg)
{
    struct check_job *j = arg;
    j->rc = tsync_check_run(&j->report, j->t, j->tl, j->opts, j->ctx);
    return NULL;
}

/* Starts the check of tl (on this thread when no other can be had). */
static void check_start(struct check_job *j, const tsync_trace *t, const tsync_timeline *tl,
                        const tsync_check_opts *opts)
{
    memset(j, 0, sizeof(*j));
    j->t = t;
    j->tl = tl;
    j->opts = opts;
    if (tsync_ctx_new(&j->ctx)) {
        j->rc = TSYNC_ENOMEM;
        return;
    }
    j->threaded = pthread_create(&j->thread, NULL, check_main, j) == 0;
    if (!j->threaded)
        check_main(j);
}

/* Waits for the check; returns its report (NULL on failure, with the error
 * printed once as the command's). */
static tsync_check_report *check_wait(struct check_job *j, int *failed)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    if (j->rc && !*failed) {
        *failed = 1;
        if (j->ctx)
            cli_fail(j->ctx, "clc");
        else
            fprintf(stderr, "tracesync clc: out of memory\n");
    }
    tsync_ctx_free(j->ctx);
    j->ctx = NULL;
    return j->rc ? NULL : j->report;
}

/* The times as recorded, as a timeline that borrows the trace's arrays. */
static tsync_timeline *raw_view(const tsync_trace *t)
{
    tsync_timeline *v = calloc(1, sizeof(*v));
    if (v && !(v->time = calloc(t->n_locations ? t->n_locations : 1, sizeof(*v->time)))) {
        free(v);
        return NULL;
    }
    if (v) {
        v->n_locations = t->n_locations;
        for (tsync_loc l = 0; l < t->n_locations; l++)
            v->time[l] = t->locations[l].time;
    }
    return v;
}

static void raw_view_free(tsync_timeline *v)
{
    if (v)
        free(v->time);
    free(v);
}

/* Runs everything but the argument parsing; returns the exit code. */
static int run(const char *input, const char *outdir, const char *report_path, int json,
               const char *latency, tsync_clc_opts *o, int quiet)
{
    tsync_check_opts co = TSYNC_CHECK_OPTS_INIT;
    tsync_ctx *ctx = cli_context(quiet);
    tsync_trace *trace = NULL;
    tsync_timeline *raw = NULL, *pre = NULL, *tl = NULL;
    const tsync_timeline *in;
    struct check_job job;
    struct clc_report r;
    tsync_check_report *first;
    uint64_t records = 0;
    uint32_t mapped = 0;
    int presync, failed = 0, rc = EXIT_USAGE, step;
    const char *base;
    char *text = NULL;

    memset(&r, 0, sizeof(r));
    r.input = input;
    if (report_path && !report_writable(report_path))
        goto out;
    if (latency && tsync_check_parse_latency(&co, latency, ctx)) {
        cli_usage_error("clc", "%s", tsync_ctx_error(ctx));
        goto out;
    }
    o->latency_intra_s = co.latency_intra_s;
    o->latency_inter_s = co.latency_inter_s;
    base = strrchr(input, '/');
    base = base ? base + 1 : input;
    if (!(r.output = malloc(strlen(outdir) + strlen(base) + 2)))
        goto oom;
    sprintf(r.output, "%s/%s", outdir, base);

    /* The clock condition as recorded (on the trace's own times), then
     * pre-synchronized (the clc's input and its Table 4 reference) and after the
     * clc. Each check runs on a second thread beside the step that follows it; a
     * failure is reported in the order of the steps, as if they ran one by one. */
    if (tsync_trace_open(&trace, input, NULL, ctx))
        goto fail;
    if (!(raw = raw_view(trace)))
        goto oom;
    check_start(&job, trace, raw, &co);
    presync = o->presync;
    step = presync ? tsync__clc_presync_new(&pre, &mapped, &records, trace, raw, ctx) : TSYNC_OK;
    first = check_wait(&job, &failed);
    if (mapped)
        r.recorded = first;
    else
        r.before = first;
    if (failed)
        goto out;
    if (step)
        goto fail;
    in = pre ? pre : raw;
    if (mapped)
        check_start(&job, trace, in, &co);
    o->presync = 0;
    step = tsync__clc_run_new(&r.clc, &tl, trace, in, o, ctx);
    o->presync = presync;
    if (mapped && !(r.before = check_wait(&job, &failed)))
        goto out;
    tsync_timeline_free(pre);
    pre = NULL;
    if (step)
        goto fail;
    r.clc->presync = presync;
    r.clc->presync_locations = mapped;
    r.clc->offset_records = records;
    check_start(&job, trace, tl, &co);
    step = tsync_trace_write(trace, tl, outdir, ctx);
    if (!(r.after = check_wait(&job, &failed)))
        goto out;
    if (step)
        goto fail;

    if (json || report_path) {
        if (!(text = report_json(&r, trace)))
            goto oom;
        if (report_path && cli_write_report("clc", report_path, text))
            goto out;
    }
    if (json)
        printf("%s\n", text);
    else
        print_text(&r, trace);
    if (!tsync_check_report_consistent(r.after) && !quiet)
        fprintf(stderr, "tracesync clc: warning: %llu violations remain%s\n",
                (unsigned long long)r.after->violations,
                o->latency_file ? " with the intra/inter latencies (check does not read the "
                                  "latency file)" : "");
    rc = EXIT_OK;
    goto out;
oom:
    fprintf(stderr, "tracesync clc: out of memory\n");
    goto out;
fail:
    rc = cli_fail(ctx, "clc");
out:
    free(text);
    report_free(&r);
    tsync_timeline_free(pre);
    tsync_timeline_free(tl);
    raw_view_free(raw);
    tsync_trace_free(trace);
    tsync_ctx_free(ctx);
    return rc;
}

int cmd_clc(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },     { "report", required_argument, NULL, 'r' },
        { "latency", required_argument, NULL, 'l' },    { "latency-file", required_argument, NULL, 'L' },
        { "no-presync", no_argument, NULL, 'P' },       { "gamma", required_argument, NULL, 'g' },
        { "delta", required_argument, NULL, 'd' },      { "passes", required_argument, NULL, 'p' },
        { "threshold", required_argument, NULL, 't' },  { "slope", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },             { "quiet", no_argument, NULL, 'q' },
        { NULL, 0, NULL, 0 }
    };
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    const char *outdir = NULL, *report = NULL, *latency = NULL;
    int json = 0, quiet = 0, c;
    double v = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': outdir = optarg; break;
        case 'r': report = optarg; break;
        case 'l': latency = optarg; break;
        case 'L': o.latency_file = optarg; break;
        case 'P': o.presync = 0; break;
        case 'j': json = 1; break;
        case 'q': quiet = 1; break;
        case 'g':
            if (parse_number("--gamma", optarg, &o.gamma))
                return EXIT_USAGE;
            break;
        case 't':
            if (parse_number("--threshold", optarg, &o.error_threshold))
                return EXIT_USAGE;
            break;
        case 's':
            if (parse_number("--slope", optarg, &o.max_slope))
                return EXIT_USAGE;
            break;
        case 'd':
        case 'p':
            if (parse_number(c == 'd' ? "--delta" : "--passes", optarg, &v))
                return EXIT_USAGE;
            if (v < 0 || v > 1e9 || v != (double)(int64_t)v)
                return cli_usage_error("clc", "%s: \"%s\" is not a whole number >= 0",
                                       c == 'd' ? "--delta" : "--passes", optarg);
            if (c == 'd')
                o.delta_ticks = (int64_t)v;
            else
                o.max_passes = (unsigned)v;
            break;
        default: return cli_usage_error("clc", "unknown option");
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("clc", "expected one INPUT (an OTF2 anchor file), got %d",
                               argc - optind);
    if (!outdir)
        return cli_usage_error("clc", "no output directory: add -o OUTDIR");
    return run(argv[optind], outdir, report, json, latency, &o, quiet);
}
