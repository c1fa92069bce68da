/* units.h - durations as people write and read them: "1.5us", "20 ms". */
#ifndef TSYNC_UTIL_UNITS_H
#define TSYNC_UTIL_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Seconds per unit for "ns", "us", "ms", "s", "min", "h"; 0 for anything else. */
double tsync__unit_scale(const char *unit);

/* Parses a finite number with an optional unit ("2" is 2 s) into seconds.
 * Returns 0, or -1 when the text is not a number or the unit is unknown. */
int tsync__parse_seconds(const char *text, double *out);

/* Seconds to ticks of a clock of `resolution` ticks per second, rounded to the
 * nearest tick: 0, or -1 when s is not finite and >= 0 or its ticks not below
 * `limit`. */
int tsync__seconds_to_ticks(double s, uint64_t resolution, double limit, int64_t *out);

/* A duration in the unit that reads best, 4 significant digits: "0 s", "850 ns",
 * "12.35 us", "219.8 ms", "3.2 s". Writes into buf and returns it. */
const char *tsync__fmt_seconds(char *buf, size_t size, double s);
/* The same with a sign: "+20 us", "-312 ns". */
const char *tsync__fmt_seconds_signed(char *buf, size_t size, double s);

#endif
