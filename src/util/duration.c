/* duration.c - durations as people write them, for callers of the library (the
 * command's options): units.c's parser behind the public error codes. Apart from
 * units.c, which the collector builds in too and whose symbols it does not export. */
#include "tracesync/common.h"
#include "util/units.h"

int tsync_parse_seconds(const char *text, double *seconds)
{
    return tsync__parse_seconds(text, seconds) ? TSYNC_EINVAL : TSYNC_OK;
}
