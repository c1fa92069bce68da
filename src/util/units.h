/* units.h - durations as people write and read them: "1.5us", "20 ms". */
#ifndef TSYNC_UTIL_UNITS_H
#define TSYNC_UTIL_UNITS_H

#include <stddef.h>

/* Seconds per unit for "ns", "us", "ms", "s", "min", "h"; 0 for anything else. */
double tsync__unit_scale(const char *unit);

/* Parses a finite number with an optional unit ("2" is 2 s) into seconds.
 * Returns 0, or -1 when the text is not a number or the unit is unknown. */
int tsync__parse_seconds(const char *text, double *out);

#endif
