/* units.c - durations as people write them (see units.h). */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"

double tsync__unit_scale(const char *unit)
{
    static const struct { const char *name; double scale; } units[] = {
        { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1.0 }, { "min", 60.0 }, { "h", 3600.0 }
    };
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
        if (strcmp(unit, units[u].name) == 0)
            return units[u].scale;
    return 0;
}

int tsync__seconds_to_ticks(double s, uint64_t resolution, double limit, int64_t *out)
{
    double ticks = s * (double)resolution;
    if (!isfinite(s) || s < 0 || !(ticks < limit))
        return -1;
    *out = (int64_t)llround(ticks);
    return 0;
}

int tsync__parse_seconds(const char *text, double *out)
{
    char *end;
    double v, scale;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno || !isfinite(v))
        return -1;
    scale = *end ? tsync__unit_scale(end) : 1.0;
    if (scale == 0)
        return -1;
    *out = v * scale;
    return 0;
}

static const char *fmt(char *buf, size_t size, double s, const char *format)
{
    static const struct { double scale; const char *unit; } units[] = {
        { 3600.0, "h" }, { 60.0, "min" }, { 1.0, "s" }, { 1e-3, "ms" }, { 1e-6, "us" },
        { 1e-9, "ns" }
    };
    size_t u = 0;
    if (s == 0) {
        snprintf(buf, size, "0 s");
        return buf;
    }
    while (u + 1 < sizeof(units) / sizeof(units[0]) && fabs(s) < units[u].scale)
        u++;
    snprintf(buf, size, format, s / units[u].scale, units[u].unit);
    return buf;
}

const char *tsync__fmt_seconds(char *buf, size_t size, double s)
{
    return fmt(buf, size, s, "%.4g %s");
}

const char *tsync__fmt_seconds_signed(char *buf, size_t size, double s)
{
    return fmt(buf, size, s, "%+.4g %s");
}
