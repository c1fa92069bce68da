/* latency_spec.c - minimum latencies as people give them (the --latency option of
 * every command): "intra=1us,inter=4us", into the options of the stages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tracesync/check.h"
#include "util/ctx.h"
#include "util/units.h"

/* One "key=value" item of a latency spec, [item, end). */
static int parse_item(const char *item, size_t len, double *intra, double *inter, int *seen,
                      tsync_ctx *ctx)
{
    char buf[128];
    const char *eq, *num, *unit;
    char *endp;
    double v;
    size_t klen;
    double scale;
    int key;

    if (len >= sizeof(buf))
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: item too long in \"%.40s...\"", item);
    memcpy(buf, item, len);
    buf[len] = '\0';
    if (!(eq = strchr(buf, '=')))
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: expected key=value in \"%s\" "
                           "(e.g. intra=1us,inter=4us)", buf);
    klen = (size_t)(eq - buf);
    if (klen == 5 && strncmp(buf, "intra", 5) == 0)
        key = 0;
    else if (klen == 5 && strncmp(buf, "inter", 5) == 0)
        key = 1;
    else
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: unknown key \"%.*s\" in \"%s\" "
                           "(use intra or inter)", (int)klen, buf, buf);
    if (*seen & (1 << key))
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: \"%s\" given twice",
                           key ? "inter" : "intra");
    num = eq + 1;
    if (*num == '-')
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: negative latency in \"%s\"", buf);
    if (!((*num >= '0' && *num <= '9') || *num == '.'))
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: expected a number in \"%s\"", buf);
    v = strtod(num, &endp);
    if (endp == num || !isfinite(v))
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: expected a number in \"%s\"", buf);
    unit = endp;
    if (*unit == '\0')
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: missing unit in \"%s\" "
                           "(use ns, us, ms or s)", buf);
    if ((scale = tsync__unit_scale(unit)) == 0)
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: unknown unit \"%s\" in \"%s\" "
                           "(use ns, us, ms or s)", unit, buf);
    v *= scale;
    if (!(v < 1e6)) /* a million seconds: surely a mistake, and keeps ticks in range */
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: latency too large in \"%s\"", buf);
    *(key ? inter : intra) = v;
    *seen |= 1 << key;
    return TSYNC_OK;
}

int tsync_check_parse_latency(tsync_check_opts *o, const char *spec, tsync_ctx *ctx)
{
    double intra, inter;
    int seen = 0, rc;
    const char *p;

    if (!o)
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: no options to fill");
    if (!spec || !*spec)
        return tsync__fail(ctx, TSYNC_EINVAL, "--latency: empty specification "
                           "(e.g. intra=1us,inter=4us)");
    intra = o->latency_intra_s;
    inter = o->latency_inter_s;
    for (p = spec;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return tsync__fail(ctx, TSYNC_EINVAL, "--latency: empty item in \"%s\"", spec);
        if ((rc = parse_item(p, len, &intra, &inter, &seen, ctx)))
            return rc;
        if (!comma)
            break;
        p = comma + 1;
    }
    o->latency_intra_s = intra;
    o->latency_inter_s = inter;
    return TSYNC_OK;
}
