/* pipeline.c - the one job every command runs, and the only place that knows the
 * order of the stages (pipeline.h) and which of them run beside each other:
 *
 *   read -> check (as recorded) -> estimate or maps file, applied, or the ClockOffset
 *        pre-synchronization -> check (after the maps) -> controlled logical clock
 *        -> shift -> check (after) -> deviation -> write
 *
 * A check reads times that nothing changes meanwhile, so it runs on a thread of its
 * own beside the stage that follows it: the check of the recorded times beside the
 * pre-synchronization or the estimate, the check after the maps beside the CLC, the
 * check of the output beside the deviation and the write. The pre-synchronization
 * needs the events but not the messages, so it runs beside their matching (when no
 * clock domain is to be split by its messages: the split needs them). When the
 * caller shows progress, every step runs in turn on the caller's thread instead, so
 * that each one shows its progress on a line of its own. A failure is reported as
 * if the steps ran one by one: the first step's that failed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check/pairings.h"
#include "clc/clc_api.h"
#include "estimate/estimate_api.h"
#include "io/format.h"
#include "io/formats.h"
#include "pipeline/derive.h"
#include "pipeline/jobs.h"
#include "trace/trace.h"
#include "tracesync/pipeline.h"
#include "tracesync/timemap.h"
#include "util/ctx.h"
#include "util/str.h"

/* The public result and what it owns. */
struct pipeline_run {
    tsync_pipeline_result pub;
    tsync_trace *trace;
    tsync_estimate *estimate;
    tsync_clc_result *clc;
    tsync_check_report *before, *after_maps, *after;
};

void tsync_pipeline_result_free(tsync_pipeline_result *r)
{
    struct pipeline_run *run = (struct pipeline_run *)r;
    if (!run)
        return;
    tsync_check_report_free(run->before);
    tsync_check_report_free(run->after_maps);
    tsync_check_report_free(run->after);
    tsync_clc_result_free(run->clc);
    tsync_estimate_free(run->estimate);
    tsync_trace_free(run->trace);
    free(run->pub.output);
    free(run);
}

/* The pre-synchronization, a step of its own. */
struct presync_step {
    const tsync_trace *t;
    const tsync_timeline *src;
    tsync_timeline *pre;        /* NULL when the trace has no ClockOffset records */
    uint32_t mapped;
    uint64_t records;
    struct tsync__job job;
};

static int presync_main(void *arg, tsync_ctx *ctx)
{
    struct presync_step *s = arg;
    return tsync__clc_presync_new(&s->pre, &s->mapped, &s->records, s->t, s->src, ctx);
}

/* A check of one set of times; beside the pre-synchronization, `then` is it: the
 * check waits for it and then checks its result too (into report2), so that two
 * steps at most run at a time. */
struct check_step {
    const tsync_trace *t;
    const tsync_timeline *tl;
    const tsync_check_opts *opts;
    struct presync_step *then;
    tsync_check_report *report, *report2;
    struct tsync__job job;
};

static int check_main(void *arg, tsync_ctx *ctx)
{
    struct check_step *s = arg;
    int rc = tsync_check_run(&s->report, s->t, s->tl, s->opts, ctx);
    if (rc == TSYNC_OK && s->then && tsync__job_wait(&s->then->job, NULL) == 0 && s->then->pre)
        rc = tsync_check_run(&s->report2, s->t, s->then->pre, s->opts, ctx);
    return rc;
}

static void check_start(struct check_step *s, const tsync_trace *t, const tsync_timeline *tl,
                        const tsync_check_opts *opts, struct presync_step *then, int side,
                        tsync_ctx *ctx)
{
    s->t = t;
    s->tl = tl;
    s->opts = opts;
    s->then = then;
    tsync__job_start(&s->job, check_main, s, side, ctx);
}

static void check_free(struct check_step *s)
{
    tsync__job_free(&s->job);
    tsync_check_report_free(s->report);
    tsync_check_report_free(s->report2);
    memset(s, 0, sizeof(*s));
}

/* The steps started, in the order of the stages. */
struct started {
    struct tsync__job *job[4];
    int n;
};

/* The error to report when a step failed with rc (or 0 at the end): that of the
 * first started step, in the order of the stages, that failed, else rc. Waits for
 * every started step. */
static int first_error(struct started *s, int rc, tsync_ctx *ctx)
{
    for (int i = 0; i < s->n; i++)
        if (tsync__job_wait(s->job[i], ctx))
            return s->job[i]->rc;
    return rc;
}

/* The times as recorded, as a timeline that borrows the trace's arrays. */
static tsync_timeline *raw_view(const struct tsync_trace *t)
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

/* The reference clock is arbitrary: if the maps put any event before 0, every time
 * moves by the same amount, so that the output can hold it (OTF2 times are unsigned). */
static int64_t shift_to_positive(const struct tsync_trace *t, tsync_timeline *tl)
{
    tsync_time lo = 0;
    for (uint32_t i = 0; i < t->n_locations; i++)
        if (t->locations[i].n_events && tl->time[i][0] < lo)
            lo = tl->time[i][0];
    if (lo == 0)
        return 0;
    for (uint32_t i = 0; i < t->n_locations; i++)
        for (uint64_t k = 0; k < t->locations[i].n_events; k++)
            tl->time[i][k] -= lo;
    return -lo;
}

/* OUTDIR/<the input's file name>. */
static char *output_name(const char *outdir, const char *input)
{
    const char *base = strrchr(input, '/');
    return tsync__path_join(outdir, base ? base + 1 : input);
}

/* What the stages need of the input's format, checked before it is read: the
 * check and the CLC need messages (point-to-point or collective), the estimate
 * those or clock offsets, the write a writer. A file of no known format passes
 * here, for the read to say what it is. */
static int check_format(const char *input, unsigned stages, tsync_ctx *ctx)
{
    static const struct { unsigned stage; const char *name; unsigned any_of; } needs[] = {
        { TSYNC_STAGE_CHECK, "check", TSYNC_CAP_MESSAGES | TSYNC_CAP_COLLECTIVES },
        { TSYNC_STAGE_ESTIMATE, "estimate",
          TSYNC_CAP_MESSAGES | TSYNC_CAP_COLLECTIVES | TSYNC_CAP_OFFSETS },
        { TSYNC_STAGE_CLC, "clc", TSYNC_CAP_MESSAGES | TSYNC_CAP_COLLECTIVES },
        { TSYNC_STAGE_WRITE, "write", 0 },
    };
    const struct tsync__format *fmt;
    int rc = TSYNC_OK;
    if (tsync__format_for(&fmt, input, ctx)) {
        tsync__clear(ctx);
        return TSYNC_OK;
    }
    for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]) && rc == TSYNC_OK; i++)
        if (stages & needs[i].stage)
            rc = tsync__format_require(fmt, input, needs[i].name, needs[i].any_of,
                                       needs[i].stage == TSYNC_STAGE_WRITE, ctx);
    return rc;
}

void tsync__pipeline_derive(tsync_pipeline_opts *o, tsync_open_opts *open)
{
    if (o->open) {
        /* A clock domain is split where its messages contradict one clock by more
         * than a few minimum latencies. */
        *open = *o->open;
        open->split_reversal_s = TSYNC_SPLIT_LATENCIES * fmax(o->check.latency_intra_s,
                                                              o->check.latency_inter_s);
        o->open = open;
    }
    if (!o->check.latency_file)  /* callers that gave it to the CLC only */
        o->check.latency_file = o->clc.latency_file;
    o->estimate.latency_intra_s = o->clc.latency_intra_s = o->check.latency_intra_s;
    o->estimate.latency_inter_s = o->clc.latency_inter_s = o->check.latency_inter_s;
    o->estimate.latency_file = o->clc.latency_file = o->check.latency_file;
}

static int check_opts(const tsync_pipeline_opts *o, tsync_ctx *ctx)
{
    if (o->version == 0 || o->version > TSYNC_PIPELINE_OPTS_VERSION)
        return tsync__fail(ctx, TSYNC_EINVAL, "pipeline options: version %u, expected 1 to %u "
                           "(initialize with TSYNC_PIPELINE_OPTS_INIT)", o->version,
                           TSYNC_PIPELINE_OPTS_VERSION);
    if ((o->stages & TSYNC_STAGE_WRITE) && !o->outdir)
        return tsync__fail(ctx, TSYNC_EINVAL, "pipeline: the write stage without an output "
                           "directory");
    if ((o->stages & TSYNC_STAGE_MAPS) && !o->maps_file)
        return tsync__fail(ctx, TSYNC_EINVAL, "pipeline: the maps stage without a maps file");
    return TSYNC_OK;
}

int tsync_pipeline_run(tsync_pipeline_result **out, const char *input,
                       const tsync_pipeline_opts *opts, tsync_ctx *ctx)
{
    tsync_pipeline_opts o = TSYNC_PIPELINE_OPTS_INIT;
    tsync_open_opts open;
    struct pipeline_run *run;
    struct tsync_match_input match;
    struct presync_step pj;
    struct check_step c_before, c_pre, c_maps, c_after;
    struct started started = { { NULL }, 0 };
    tsync_timeline *raw = NULL, *mapped = NULL, *clc_tl = NULL, *own = NULL, *tl;
    tsync_map_set *file_maps = NULL;
    const tsync_map_set *maps = NULL;
    unsigned st;
    int rc, estimate, presync, early, side, times, changes, lists;

    if (opts)
        o = *opts;
    if ((rc = check_opts(&o, ctx)) || (rc = check_format(input, o.stages, ctx)))
        return rc;
    if (!(run = calloc(1, sizeof(*run))))
        return tsync__oom(ctx);
    memset(&pj, 0, sizeof(pj));
    memset(&c_before, 0, sizeof(c_before));
    c_pre = c_maps = c_after = c_before;
    st = o.stages;
    estimate = (st & TSYNC_STAGE_ESTIMATE) != 0;
    /* Maps from the messages or a file use the ClockOffset records (as samples), so
     * the pre-synchronization is only for the CLC on times as recorded. */
    presync = (st & TSYNC_STAGE_CLC) && o.clc.presync && !estimate && !(st & TSYNC_STAGE_MAPS);
    changes = estimate || (st & (TSYNC_STAGE_MAPS | TSYNC_STAGE_CLC | TSYNC_STAGE_SHIFT));
    times = (st & ~TSYNC_STAGE_ESTIMATE) != 0;
    /* The estimate alone needs no events: a file that lists messages is read as
     * message lists, which become the samples in place. */
    lists = estimate && !times && tsync__estimate_takes_lists(&o.estimate);
    side = !tsync__progress_shown(ctx);
    early = presync && side && !(o.open && o.open->domains == TSYNC_DOMAIN_AUTO);
    tsync__pipeline_derive(&o, &open);
    o.clc.presync = 0; /* done here, as a step of its own */

    /* Read: the events, then their messages matched (beside the pre-synchronization). */
    if (early) {
        if ((rc = tsync__trace_open_unmatched(&run->trace, &match, input, o.open, ctx)))
            goto out;
        if (!(raw = raw_view(run->trace))) {
            tsync__match_input_free(&match);
            rc = tsync__oom(ctx);
            goto out;
        }
        pj.t = run->trace;
        pj.src = raw;
        tsync__job_start(&pj.job, presync_main, &pj, side, ctx);
        if ((rc = tsync__trace_match(run->trace, &match, ctx)))
            goto out;
    } else {
        if ((rc = lists ? tsync__trace_open_lists(&run->trace, input, o.open, ctx)
                        : tsync_trace_open(&run->trace, input, o.open, ctx)))
            goto out;
        if (times && !(raw = raw_view(run->trace))) {
            rc = tsync__oom(ctx);
            goto out;
        }
    }
    tl = raw;

    /* The clock condition as recorded; the pre-synchronization and its check. */
    if (st & TSYNC_STAGE_CHECK) {
        started.job[started.n++] = &c_before.job;
        check_start(&c_before, run->trace, raw, &o.check, early ? &pj : NULL, side, ctx);
        if (c_before.job.rc && (rc = first_error(&started, TSYNC_OK, ctx)))
            goto out;
    }
    if (presync) {
        started.job[started.n++] = &pj.job;
        if (!early) {
            pj.t = run->trace;
            pj.src = raw;
            tsync__job_start(&pj.job, presync_main, &pj, side, ctx);
        }
        if (tsync__job_wait(&pj.job, NULL)) {
            rc = first_error(&started, TSYNC_OK, ctx);
            goto out;
        }
        if (pj.pre) {
            tl = pj.pre;
            if ((st & TSYNC_STAGE_CHECK) && !early) {
                started.job[started.n++] = &c_pre.job;
                check_start(&c_pre, run->trace, pj.pre, &o.check, NULL, side, ctx);
                if (c_pre.job.rc && (rc = first_error(&started, TSYNC_OK, ctx)))
                    goto out;
            }
        }
    }

    /* Time maps, from the messages or from a file, applied. */
    if (estimate) {
        if ((rc = tsync__estimate_run_lists(&run->estimate, run->trace, &o.estimate, ctx))) {
            rc = first_error(&started, rc, ctx);
            goto out;
        }
        maps = tsync_estimate_maps(run->estimate);
    }
    if (st & TSYNC_STAGE_MAPS) {
        if ((rc = tsync_map_set_load(&file_maps, o.maps_file, run->trace, ctx))) {
            rc = first_error(&started, rc, ctx);
            goto out;
        }
        maps = file_maps;
    }
    if (maps && times) {
        if ((rc = tsync_timeline_new(&mapped, run->trace, ctx)) ||
            (rc = tsync_map_set_apply(maps, run->trace, mapped, ctx))) {
            rc = first_error(&started, rc, ctx);
            goto out;
        }
        tl = mapped;
        if (st & TSYNC_STAGE_CHECK) {
            started.job[started.n++] = &c_maps.job;
            check_start(&c_maps, run->trace, mapped, &o.check, NULL, side, ctx);
            if (c_maps.job.rc && (rc = first_error(&started, TSYNC_OK, ctx)))
                goto out;
        }
    }

    /* The controlled logical clock, into a timeline of its own (its input is being
     * checked meanwhile). */
    if (st & TSYNC_STAGE_CLC) {
        if ((rc = tsync__clc_run_new(&run->clc, &clc_tl, run->trace, tl, &o.clc, ctx))) {
            rc = first_error(&started, rc, ctx);
            goto out;
        }
        if (presync) {
            run->clc->presync = 1;
            run->clc->presync_locations = pj.mapped;
            run->clc->offset_records = pj.records;
        }
        tl = clc_tl;
    }
    if ((rc = first_error(&started, TSYNC_OK, ctx)))
        goto out;
    started.n = 0;
    run->before = c_before.report;
    run->after_maps = c_before.report2 ? c_before.report2 : c_pre.report ? c_pre.report
                                                                         : c_maps.report;
    c_before.report = c_before.report2 = c_pre.report = c_maps.report = NULL;
    if (clc_tl) {               /* the CLC's input is no longer needed */
        tsync_timeline_free(pj.pre);
        tsync_timeline_free(mapped);
        pj.pre = mapped = NULL;
    }

    /* Shift, check of the output (beside the rest), deviation, write. */
    if (st & TSYNC_STAGE_SHIFT) {
        if (tl == raw) {        /* the trace's own times stay as they are */
            if ((rc = tsync_timeline_new(&own, run->trace, ctx)))
                goto out;
            tl = own;
        }
        run->pub.shift_ticks = shift_to_positive(run->trace, tl);
    }
    if ((st & TSYNC_STAGE_CHECK) && changes) {
        started.job[started.n++] = &c_after.job;
        check_start(&c_after, run->trace, tl, &o.check, NULL, side, ctx);
        if (c_after.job.rc && (rc = first_error(&started, TSYNC_OK, ctx)))
            goto out;
    }
    if ((st & TSYNC_STAGE_DEVIATION) &&
        (rc = tsync_deviation_compute(&run->pub.position, &run->pub.distance, run->trace, raw, tl,
                                      ctx))) {
        rc = first_error(&started, rc, ctx);
        goto out;
    }
    if (st & TSYNC_STAGE_WRITE) {
        if ((rc = tsync_trace_write(run->trace, tl, o.outdir, ctx))) {
            rc = first_error(&started, rc, ctx);
            goto out;
        }
        if (!(run->pub.output = output_name(o.outdir, input))) {
            rc = first_error(&started, tsync__oom(ctx), ctx);
            goto out;
        }
    }
    if ((rc = first_error(&started, TSYNC_OK, ctx)))
        goto out;
    run->after = c_after.report;
    c_after.report = NULL;
    if ((st & TSYNC_STAGE_CHECK) && run->trace->n_pairings) {
        /* Packet captures: the check per pair of captures, for the report. */
        tsync__check_pairings(run->trace, raw, 0);
        if (changes)
            tsync__check_pairings(run->trace, tl, 1);
    }
    run->pub.trace = run->trace;
    run->pub.estimate = run->estimate;
    run->pub.clc = run->clc;
    run->pub.before = run->before;
    run->pub.after_maps = run->after_maps;
    run->pub.after = run->after;
out:
    check_free(&c_after);
    check_free(&c_maps);
    check_free(&c_pre);
    check_free(&c_before);      /* before the pre-synchronization it may wait for */
    tsync__job_free(&pj.job);
    tsync_timeline_free(pj.pre);
    tsync_timeline_free(clc_tl);
    tsync_timeline_free(mapped);
    tsync_timeline_free(own);
    tsync_map_set_free(file_maps);
    raw_view_free(raw);
    if (rc) {
        tsync_pipeline_result_free(&run->pub);
        return rc;
    }
    *out = &run->pub;
    return TSYNC_OK;
}
