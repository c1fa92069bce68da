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
#include "util/str.h"
#include "util/units.h"
#include "cli/cli.h"
#include "io/formats.h"
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

/* A step on a thread of its own: the pre-synchronization, which needs the events
 * but not the messages and so runs beside their matching, or the report's checks
 * of the clock condition, which read the trace and timelines that nothing changes
 * meanwhile. The check of the recorded times runs beside the end of the
 * pre-synchronization, then waits for it and checks its result (when there is
 * one) beside the clc; the check of the clc's result runs beside the write. Two
 * steps at most run at a time, one per core of the smallest machine. A step's
 * context is its own (a context is not shared between threads): it does not
 * warn, its progress is not shown, only an error is passed on. */
struct job {
    const tsync_trace *t;
    const tsync_timeline *tl;
    const tsync_check_opts *opts;   /* a check; NULL: the pre-synchronization */
    struct job *presync;            /* a check: then the check of this one's result */
    tsync_check_report *report;     /* the check's (of tl) */
    tsync_check_report *report2;    /* the check's of presync->pre */
    tsync_timeline *pre;            /* the pre-synchronization's */
    uint32_t mapped;
    uint64_t records;
    tsync_ctx *ctx;
    int rc, started, threaded, done;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

static int job_wait(struct job *j, int *failed);

static void *job_main(void *arg)
{
    struct job *j = arg;
    int rc;
    if (!j->opts) {
        rc = tsync__clc_presync_new(&j->pre, &j->mapped, &j->records, j->t, j->tl, j->ctx);
    } else {
        rc = tsync_check_run(&j->report, j->t, j->tl, j->opts, j->ctx);
        if (rc == TSYNC_OK && j->presync && job_wait(j->presync, &(int){ 1 }) == 0 &&
            j->presync->pre)
            rc = tsync_check_run(&j->report2, j->t, j->presync->pre, j->opts, j->ctx);
    }
    pthread_mutex_lock(&j->lock);
    j->rc = rc;
    j->done = 1;
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* Starts the check of tl with opts (and then of the result of `presync`, if not
 * NULL), or with opts NULL the pre-synchronization of tl; on this thread when no
 * other can be had. */
static void job_start(struct job *j, const tsync_trace *t, const tsync_timeline *tl,
                      const tsync_check_opts *opts, struct job *presync)
{
    memset(j, 0, sizeof(*j));
    j->t = t;
    j->tl = tl;
    j->opts = opts;
    j->presync = presync;
    j->started = 1;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cond, NULL);
    if (tsync_ctx_new(&j->ctx)) {
        j->rc = TSYNC_ENOMEM;
        j->done = 1;
        return;
    }
    j->threaded = pthread_create(&j->thread, NULL, job_main, j) == 0;
    if (!j->threaded)
        job_main(j);
}

/* Waits for the job (from any thread, any number of times); on its failure prints
 * its error as the command's unless an earlier step's was (*failed), and returns
 * -1. What it made stays in it. */
static int job_wait(struct job *j, int *failed)
{
    int rc;
    pthread_mutex_lock(&j->lock);
    while (!j->done)
        pthread_cond_wait(&j->cond, &j->lock);
    rc = j->rc;
    pthread_mutex_unlock(&j->lock);
    if (rc && !*failed) {
        *failed = 1;
        if (j->ctx)
            cli_fail(j->ctx, "clc");
        else
            fprintf(stderr, "tracesync clc: out of memory\n");
    }
    return rc ? -1 : 0;
}

/* Waits for a started job, and frees what it made and was not taken; a job never
 * started (zeroed) is fine. A check that waits for a pre-synchronization is
 * freed first. */
static void job_free(struct job *j)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    if (j->started) {
        pthread_mutex_destroy(&j->lock);
        pthread_cond_destroy(&j->cond);
    }
    tsync_ctx_free(j->ctx);
    tsync_timeline_free(j->pre);
    tsync_check_report_free(j->report);
    tsync_check_report_free(j->report2);
    memset(j, 0, sizeof(*j));
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
               const char *latency, tsync_clc_opts *o, unsigned threads, int quiet)
{
    tsync_check_opts co = TSYNC_CHECK_OPTS_INIT;
    tsync_ctx *ctx = cli_context(quiet);
    tsync_trace *trace = NULL;
    tsync_timeline *raw = NULL, *tl = NULL;
    const tsync_timeline *in;
    struct tsync_match_input match;
    struct job pj, c1;          /* pre-synchronization, checks */
    struct clc_report r;
    uint32_t mapped;
    int presync, failed = 0, rc = EXIT_USAGE, step;
    const char *base;
    char *text = NULL;

    memset(&pj, 0, sizeof(pj));
    memset(&c1, 0, sizeof(c1));
    memset(&r, 0, sizeof(r));
    r.input = input;
    tsync_ctx_set_threads(ctx, threads);
    if (report_path && cli_prepare_output("clc", "--report", report_path))
        goto out;
    /* The corrected trace and the report land together, or neither. */
    if (tsync_ctx_hold_outputs(ctx))
        goto oom;
    if (latency && tsync_check_parse_latency(&co, latency, ctx)) {
        cli_usage_error("clc", "%s", tsync_ctx_error(ctx));
        goto out;
    }
    o->latency_intra_s = co.latency_intra_s;
    o->latency_inter_s = co.latency_inter_s;
    base = strrchr(input, '/');
    base = base ? base + 1 : input;
    if (!(r.output = tsync__path_join(outdir, base)))
        goto oom;

    /* The events, then their messages matched beside the pre-synchronization;
     * the clock condition as recorded (on the trace's own times) and
     * pre-synchronized (the clc's input and its Table 4 reference) checked one
     * after the other beside the clc, and after the clc beside the write. A
     * failure is reported in the order of the steps, as if they ran one by one. */
    if (tsync__trace_open_unmatched(&trace, &match, input, NULL, ctx))
        goto fail;
    if (!(raw = raw_view(trace))) {
        tsync__match_input_free(&match);
        goto oom;
    }
    presync = o->presync;
    if (presync)
        job_start(&pj, trace, raw, NULL, NULL);
    if (tsync__trace_match(trace, &match, ctx))
        goto fail;
    job_start(&c1, trace, raw, &co, presync ? &pj : NULL);
    if (presync && job_wait(&pj, &(int){ 1 })) {
        job_wait(&c1, &failed); /* the check of the recorded times comes first */
        job_wait(&pj, &failed);
        goto out;
    }
    in = pj.pre ? pj.pre : raw;
    mapped = pj.mapped;
    o->presync = 0;
    step = tsync__clc_run_new(&r.clc, &tl, trace, in, o, ctx);
    o->presync = presync;
    if (job_wait(&c1, &failed) == 0) {
        *(mapped ? &r.recorded : &r.before) = c1.report;
        if (mapped)
            r.before = c1.report2;
        c1.report = c1.report2 = NULL;
    }
    job_free(&c1);
    if (failed)
        goto out;
    if (step)
        goto fail;
    r.clc->presync = presync;
    r.clc->presync_locations = mapped;
    r.clc->offset_records = pj.records;
    job_free(&pj);              /* the pre-synchronized times are no longer needed */
    job_start(&c1, trace, tl, &co, NULL);
    step = tsync_trace_write(trace, tl, outdir, ctx);
    if (job_wait(&c1, &failed))
        goto out;
    r.after = c1.report;
    c1.report = NULL;
    if (step)
        goto fail;

    if (json || report_path) {
        if (!(text = report_json(&r, trace)))
            goto oom;
        if (report_path && cli_write_report("clc", "--report", text, report_path, ctx))
            goto out;
    }
    if (tsync_ctx_commit_outputs(ctx))
        goto fail;
    if (json)
        printf("%s\n", text);
    else
        print_text(&r, trace);
    if (!tsync_check_report_consistent(r.after) && !quiet)
        fprintf(stderr, "tracesync clc: warning: %llu violation%s left%s\n",
                (unsigned long long)r.after->violations, tsync__plural(r.after->violations, "s"),
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
    job_free(&c1);
    job_free(&pj);
    free(text);
    report_free(&r);
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
        { "latency", required_argument, NULL, 'l' },    { "json", no_argument, NULL, 'j' },
        { "quiet", no_argument, NULL, 'q' },            { NULL, 0, NULL, 0 }
    };
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    const char *outdir = NULL, *report = NULL, *latency = NULL;
    unsigned threads = 0;
    int json = 0, quiet = 0, c, k;

    const struct option *opts = cli_options(longopts, cli_clc_options, NULL);

    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': outdir = optarg; break;
        case 'r': report = optarg; break;
        case 'l': latency = optarg; break;
        case 'j': json = 1; break;
        case 'q': quiet = 1; break;
        default:
            if ((k = cli_clc_option("clc", c, optarg, &o, &threads)) != 0) {
                if (k < 0)
                    return EXIT_USAGE;
                break;
            }
            return cli_bad_option("clc", c, argv);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("clc", "expected one INPUT (an OTF2 anchor file), got %d",
                               argc - optind);
    if (!outdir)
        return cli_usage_error("clc", "no output directory: add -o OUTDIR");
    return run(argv[optind], outdir, report, json, latency, &o, threads, quiet);
}
