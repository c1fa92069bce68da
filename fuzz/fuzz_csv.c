/* fuzz_csv.c - libFuzzer target: the whole pipeline on any CSV of messages
 * (read, match, estimate, CLC, check, write the corrected CSV to a temporary
 * directory, which is removed), and the estimate alone, which reads the CSV as
 * message lists, with its maps file. */
#include "fuzz_util.h"
#include "tracesync/pipeline.h"

static void estimate_alone(const char *input)
{
    tsync_pipeline_opts po = TSYNC_PIPELINE_OPTS_INIT;
    tsync_pipeline_result *r = NULL;
    tsync_ctx *ctx;
    if (tsync_ctx_new(&ctx))
        abort();
    po.stages = TSYNC_STAGES_ESTIMATE;
    if (tsync_pipeline_run(&r, input, &po, ctx) == 0) {
        free(tsync_estimate_json(r->estimate, r->trace, ctx));
        tsync_pipeline_result_free(r);
    }
    tsync_ctx_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *scratch = fuzz_scratch("csv");
    char in[128], out[128];
    snprintf(in, sizeof(in), "%s/messages.csv", scratch);
    snprintf(out, sizeof(out), "%s/out", scratch);
    fuzz_write_file(in, data, size);
    fuzz_sync(in, out);
    estimate_alone(in);
    return 0;
}
