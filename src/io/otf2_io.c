/* otf2_io.c - anchor paths and libotf2 error messages, shared by reader and writer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/otf2_io.h"
#include "util/ctx.h"

static char last_error[512];

OTF2_ErrorCode tsync__otf2_quiet_errors(void *ud, const char *file, uint64_t line,
                                        const char *function, OTF2_ErrorCode code,
                                        const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)function;
    vsnprintf(last_error, sizeof(last_error), fmt ? fmt : "", va);
    return code;
}

const char *tsync__otf2_last_error(void) { return last_error; }

int tsync__otf2_check_anchor(const char *path, tsync_ctx *ctx)
{
    struct stat sb;
    size_t n = strlen(path);
    if (stat(path, &sb) != 0)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s (give the OTF2 anchor file, e.g. "
                           "run/traces.otf2)", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: is a directory; give the OTF2 anchor file "
                           "inside it (the .otf2 file)", path);
    if (n < 5 || strcmp(path + n - 5, ".otf2") != 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: not an OTF2 anchor file (its name must end "
                           "in .otf2)", path);
    if (access(path, R_OK) != 0)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
    return TSYNC_OK;
}

int tsync__otf2_split_anchor(const char *path, char **dir, char **name, tsync_ctx *ctx)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t blen = strlen(base);
    if (blen > 5 && strcmp(base + blen - 5, ".otf2") == 0)
        blen -= 5;
    *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    *name = strndup(base, blen);
    if (!*dir || !*name) {
        free(*dir);
        free(*name);
        *dir = *name = NULL;
        return tsync__oom(ctx);
    }
    return TSYNC_OK;
}
