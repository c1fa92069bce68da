/* fuzz_util.h - what the libFuzzer targets share: a scratch directory per process,
 * writing the input into a file, running the main job (tsync_sync_run) on it. */
#ifndef TSYNC_FUZZ_UTIL_H
#define TSYNC_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tracesync/sync.h"
#include "util/fs.h"

/* /tmp/tsync-fuzz-<name>-<pid>, made on the first call. */
static const char *fuzz_scratch(const char *name)
{
    static char dir[96];
    if (!dir[0]) {
        snprintf(dir, sizeof(dir), "/tmp/tsync-fuzz-%s-%d", name, (int)getpid());
        if (tsync__mkdirs(dir, NULL))
            abort();
    }
    return dir;
}

static void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
        abort();
}

/* The whole pipeline on `input`: read, match, estimate, maps, CLC, check, write into
 * `outdir`, report as JSON; the output is removed afterwards. Errors are expected;
 * a crash, hang or leak is the finding. One thread: a finding must replay. */
/* sync with the options given (the open options' files: a set of captures). */
static void fuzz_sync_opts(const char *input, const char *outdir, const tsync_sync_opts *opts)
{
    tsync_sync_result *r = NULL;
    tsync_ctx *ctx;
    if (tsync_ctx_new(&ctx))
        abort();
    if (tsync_sync_run(&r, input, outdir, opts, ctx) == 0) {
        free(tsync_sync_result_json(r, ctx));
        tsync_sync_result_free(r);
    }
    tsync_ctx_free(ctx);
    tsync__remove_tree(outdir);
}

static inline void fuzz_sync(const char *input, const char *outdir)
{
    tsync_sync_opts opts = TSYNC_SYNC_OPTS_INIT;
    fuzz_sync_opts(input, outdir, &opts);
}

#endif
