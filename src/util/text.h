/* text.h - text that grows as it is written: JSON documents too large to build as
 * trees first (a maps file of 10^5 points per map).
 *
 * A failed allocation marks the text (bad) and later writes do nothing, so that a
 * writer checks once at the end.
 */
#ifndef TSYNC_UTIL_TEXT_H
#define TSYNC_UTIL_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct tsync__text {
    char *s;        /* NUL-terminated once anything is written; malloc'ed */
    size_t n, cap;
    int bad;        /* out of memory: s holds what came before */
};

/* Appends s[0, n). */
void tsync__text_putn(struct tsync__text *t, const char *s, size_t n);
/* Appends the string s. */
void tsync__text_put(struct tsync__text *t, const char *s);
/* Appends v in decimal, as printf's %lld writes it. */
void tsync__text_i64(struct tsync__text *t, int64_t v);

/* The most bytes tsync__i64_text writes. */
#define TSYNC__I64_CHARS 20
/* Writes v as tsync__text_i64 does into the bytes just before `end` (it may write
 * more of them than the number takes, up to TSYNC__I64_CHARS); returns where it
 * begins. For a writer that puts a few numbers and their punctuation together (a
 * map's points): one append for all of them. Cannot fail. */
char *tsync__i64_text(char *end, int64_t v);
/* Frees the text; t is empty afterwards. */
void tsync__text_free(struct tsync__text *t);

#endif
