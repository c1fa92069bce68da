/* str.h - small string helpers. */
#ifndef TSYNC_UTIL_STR_H
#define TSYNC_UTIL_STR_H

#include "util/ctx.h"

/* A malloc'ed formatted string, or NULL when out of memory. */
char *tsync__strfmt(const char *fmt, ...) TSYNC_PRINTF(1, 2);

/* "dir/name", malloc'ed, with dir's trailing slashes dropped ("out/" + "t.otf2" is
 * "out/t.otf2", "/" + "t" is "/t"); NULL when out of memory. */
char *tsync__path_join(const char *dir, const char *name);

/* The plural ending of a count for people: "" for 1, else `many` ("s", "es"), as
 * in printf("%llu message%s", n, tsync__plural(n, "s")). */
static inline const char *tsync__plural(unsigned long long n, const char *many)
{
    return n == 1 ? "" : many;
}

#endif
