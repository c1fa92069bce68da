/* registry.c - the trace formats tracesync reads, and the choice of one by a file's
 * content (io/format.h).
 *
 * Adding a format: its table in a file of its own (e.g. io/pcap.c defining
 * `const struct tsync__format tsync__pcap_format`) and one line X(pcap) below. The
 * order is the order of probing and of the format list people see.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io/format.h"
#include "util/ctx.h"

#define TSYNC_BUILTIN_FORMATS(X) \
    X(otf2)                      \
    X(csv)                       \
    X(pcap)

#define DECLARE(name) extern const struct tsync__format tsync__##name##_format;
#define ENTRY(name) &tsync__##name##_format,
#define COUNT(name) +1
TSYNC_BUILTIN_FORMATS(DECLARE)

#define MAX_FORMATS 16

static const struct tsync__format *formats[MAX_FORMATS] = { TSYNC_BUILTIN_FORMATS(ENTRY) };
static size_t n_formats = 0 TSYNC_BUILTIN_FORMATS(COUNT);

int tsync__format_register(const struct tsync__format *f, tsync_ctx *ctx)
{
    if (!f || !f->name || !f->what || !f->probe || !f->open || !f->definitions || !f->events ||
        !f->close || ((f->caps & TSYNC_CAP_FILE_SET) && !f->open_set))
        return tsync__fail(ctx, TSYNC_EINVAL, "a trace format needs a name, a description, "
                           "probe, open, definitions, events and close (and open_set for "
                           "a set of files)");
    for (size_t i = 0; i < n_formats; i++)
        if (strcmp(formats[i]->name, f->name) == 0)
            return tsync__fail(ctx, TSYNC_EINVAL, "trace format \"%s\" is known already", f->name);
    if (n_formats == MAX_FORMATS)
        return tsync__fail(ctx, TSYNC_ENOMEM, "no room for trace format \"%s\" (%d formats at most)",
                           f->name, MAX_FORMATS);
    formats[n_formats++] = f;
    return TSYNC_OK;
}

const char *tsync_trace_formats(void)
{
    static char list[1024];
    size_t at = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n_formats && at < sizeof(list); i++)
        at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
                               i == 0 ? "" : i + 1 == n_formats ? " or " : ", ", formats[i]->what);
    return list;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int tsync__format_for(const struct tsync__format **out, const char *path, tsync_ctx *ctx)
{
    unsigned char head[TSYNC_PROBE_BYTES];
    size_t n = 0;
    struct stat sb;
    int is_file = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    FILE *f = is_file ? fopen(path, "rb") : NULL;
    if (f) {
        n = fread(head, 1, sizeof(head), f);
        fclose(f);
        for (size_t i = 0; i < n_formats; i++) {
            if (formats[i]->probe(head, n)) {
                *out = formats[i];
                return TSYNC_OK;
            }
        }
    }
    for (size_t i = 0; i < n_formats; i++) {
        if (formats[i]->suffix && ends_with(path, formats[i]->suffix)) {
            *out = formats[i];
            return TSYNC_OK;
        }
    }
    if (!is_file) {
        *out = formats[0];
        return TSYNC_OK;
    }
    if (!f)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
    return tsync__fail(ctx, TSYNC_EFORMAT, "%s: not a trace of a known format (tracesync reads %s)",
                       path, tsync_trace_formats());
}
