/* test_pipeline.c - the one job (src/pipeline/): what each command's stage set
 * makes, the same reports whether the checks run beside the other stages or one
 * after the other (progress shown), the first failing stage's error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tmpfile.h"
#include "tracesync/pipeline.h"
#include "tracesync/sim.h"

static char input[4200], outdir[4200];

static int setup(void **state)
{
    tsync_sim_opts o = TSYNC_SIM_OPTS_INIT;
    tsync_sim_result r;
    tsync_ctx *ctx;
    char dir[4096];
    (void)state;
    tmp_fresh_dir("pipeline", "sim", dir, sizeof(dir));
    snprintf(input, sizeof(input), "%s/trace.otf2", dir);
    tmp_fresh_dir("pipeline", "out", outdir, sizeof(outdir));
    if (tsync_ctx_new(&ctx) || tsync_sim_scenario(&o, "smoke", ctx) ||
        tsync_sim_set(&o, "app.events", "3000", ctx) || tsync_sim_run(&r, &o, dir, ctx)) {
        fprintf(stderr, "simulate: %s\n", tsync_ctx_error(ctx));
        tsync_ctx_free(ctx);
        return -1;
    }
    tsync_ctx_free(ctx);
    return 0;
}

static void no_progress(const char *what, uint64_t done, uint64_t total, void *payload)
{
    (void)what;
    (void)done;
    (void)total;
    (void)payload;
}

/* Runs `stages` on the input; a context that shows progress when `shown`. */
static tsync_pipeline_result *run(unsigned stages, int shown, const char *latency_file)
{
    tsync_pipeline_opts o = TSYNC_PIPELINE_OPTS_INIT;
    tsync_pipeline_result *r = NULL;
    tsync_ctx *ctx;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    if (shown)
        tsync_ctx_set_progress(ctx, no_progress, NULL);
    o.stages = stages;
    o.outdir = outdir;
    o.clc.latency_file = latency_file;
    if (tsync_pipeline_run(&r, input, &o, ctx))
        fail_msg("tsync_pipeline_run: %s", tsync_ctx_error(ctx));
    tsync_ctx_free(ctx);
    return r;
}

static void test_stage_sets(void **state)
{
    tsync_pipeline_result *r;
    (void)state;

    r = run(TSYNC_STAGES_CHECK, 0, NULL);
    assert_non_null(r->before);
    assert_null(r->after_maps);
    assert_null(r->after);
    assert_null(r->estimate);
    assert_null(r->clc);
    assert_null(r->output);
    assert_true(r->before->messages > 0);
    tsync_pipeline_result_free(r);

    r = run(TSYNC_STAGES_ESTIMATE, 0, NULL);
    assert_non_null(r->estimate);
    assert_null(r->before);
    assert_null(r->after);
    tsync_pipeline_result_free(r);

    /* The clc command's: the ClockOffset records pre-synchronize, and the CLC
     * leaves no violation. */
    r = run(TSYNC_STAGES_CLC, 0, NULL);
    assert_non_null(r->before);
    assert_non_null(r->after_maps);
    assert_non_null(r->after);
    assert_non_null(r->clc);
    assert_null(r->estimate);
    assert_int_equal(r->clc->presync, 1);
    assert_true(r->clc->offset_records > 0);
    assert_true(r->clc->presync_locations > 0);
    assert_int_equal(r->after->violations, 0);
    assert_non_null(r->output);
    assert_non_null(strstr(r->output, "/out/trace.otf2"));
    tsync_pipeline_result_free(r);

    /* sync's: the maps use the ClockOffset records, nothing pre-synchronizes. */
    r = run(TSYNC_STAGES_SYNC, 0, NULL);
    assert_non_null(r->estimate);
    assert_non_null(r->after_maps);
    assert_non_null(r->clc);
    assert_int_equal(r->clc->presync, 0);
    assert_int_equal(r->clc->offset_records, 0);
    assert_int_equal(r->after->violations, 0);
    assert_true(r->shift_ticks >= 0);
    assert_true(r->distance.intervals > 0);
    tsync_pipeline_result_free(r);
}

/* The checks beside the other stages, or one after the other: the same reports. */
static void test_threads_change_nothing(void **state)
{
    static const unsigned sets[] = { TSYNC_STAGES_CLC, TSYNC_STAGES_SYNC };
    (void)state;
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
        tsync_report_kind kind = sets[i] == TSYNC_STAGES_CLC ? TSYNC_REPORT_CLC
                                                              : TSYNC_REPORT_SYNC;
        tsync_pipeline_result *a = run(sets[i], 0, NULL), *b = run(sets[i], 1, NULL);
        char *ja = tsync_pipeline_report_json(a, kind, NULL);
        char *jb = tsync_pipeline_report_json(b, kind, NULL);
        assert_non_null(ja);
        assert_non_null(jb);
        assert_string_equal(ja, jb);
        free(ja);
        free(jb);
        tsync_pipeline_result_free(a);
        tsync_pipeline_result_free(b);
    }
}

/* A failing stage is reported as if the stages ran one by one; options are checked. */
static void test_errors(void **state)
{
    tsync_pipeline_opts o = TSYNC_PIPELINE_OPTS_INIT;
    tsync_pipeline_result *r = NULL;
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);

    o.stages = TSYNC_STAGES_CLC;
    o.outdir = outdir;
    o.clc.latency_file = "no-such-latency-file.txt";
    assert_int_equal(tsync_pipeline_run(&r, input, &o, ctx), TSYNC_EIO);
    assert_non_null(strstr(tsync_ctx_error(ctx), "no-such-latency-file.txt"));
    assert_null(r);

    /* A check that fails (latencies no clock can hold) comes before the CLC's error. */
    o.check.latency_inter_s = 1e12;
    assert_int_equal(tsync_pipeline_run(&r, input, &o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "check:"));

    o = (tsync_pipeline_opts)TSYNC_PIPELINE_OPTS_INIT;
    o.stages = TSYNC_STAGE_WRITE;
    assert_int_equal(tsync_pipeline_run(&r, input, &o, ctx), TSYNC_EINVAL);
    o.stages = TSYNC_STAGES_APPLY;
    o.outdir = outdir;
    assert_int_equal(tsync_pipeline_run(&r, input, &o, ctx), TSYNC_EINVAL);
    o.version = 0;
    assert_int_equal(tsync_pipeline_run(&r, input, &o, ctx), TSYNC_EINVAL);
    assert_null(r);
    tsync_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stage_sets),
        cmocka_unit_test(test_threads_change_nothing),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
