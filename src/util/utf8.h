/* utf8.h - names from trace files as JSON strings, whatever their bytes. */
#ifndef TSYNC_UTIL_UTF8_H
#define TSYNC_UTIL_UTF8_H

#include <jansson.h>

/* Names in traces (OTF2 strings, CSV fields, file names) may hold any bytes, but a
 * JSON string must be UTF-8. The repair replaces each maximal invalid subpart (a
 * stray byte, or the valid start of a sequence cut short) with U+FFFD, as Unicode
 * recommends and Python's decode(errors="replace") does; valid UTF-8 stays as it is. */

/* The repaired copy of s, malloc'ed, or NULL when out of memory. */
char *tsync__utf8_repair(const char *s);

/* Whether the repair of `raw` is the string `text`, without allocating. */
int tsync__utf8_repaired_eq(const char *raw, const char *text);

/* A JSON string of the repaired s (NULL s is ""), or NULL when out of memory: the
 * one way to put text from input data into JSON. */
json_t *tsync__json_text(const char *s);

#endif
