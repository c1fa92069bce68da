/* tmpfile.h - input files for unit tests: text written to
 * $TSYNC_TEST_TMP/<dir>/<name> (or /tmp/<dir>/<name>), the directory made if missing;
 * fresh directories there for tests that write archives, and what is left in them.
 * Include after cmocka.h. */
#ifndef TSYNC_TEST_TMPFILE_H
#define TSYNC_TEST_TMPFILE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracesync/trace.h"
#include "util/fs.h"
#include "util/str.h"

/* Writes `text` to the file and returns its path (malloc'ed; free it). */
static inline char *tmp_write(const char *dir, const char *name, const char *text)
{
    const char *tmp = getenv("TSYNC_TEST_TMP");
    char *d = tsync__strfmt("%s/%s", tmp ? tmp : "/tmp", dir);
    char *path = tsync__strfmt("%s/%s", d, name);
    FILE *f;
    assert_non_null(d);
    assert_non_null(path);
    assert_int_equal(tsync__mkdirs(d, NULL), 0);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
    free(d);
    return path;
}

/* Makes $TSYNC_TEST_TMP/<dir>/<name> a fresh, empty directory; its path goes to
 * path (n bytes). */
static inline void tmp_fresh_dir(const char *dir, const char *name, char *path, size_t n)
{
    const char *tmp = getenv("TSYNC_TEST_TMP");
    snprintf(path, n, "%s/%s/%s", tmp && *tmp ? tmp : "/tmp", dir, name);
    tsync__remove_tree(path);
    assert_int_equal(tsync__mkdirs(path, NULL), 0);
}

/* The entries of dir other than . and .. (hidden ones too: temporary outputs). */
static inline int tmp_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

typedef int (*tmp_opener)(tsync_trace **out, const char *path, const tsync_open_opts *opts,
                          tsync_ctx *ctx);

/* Opening path with `opener` fails with `code` and an error containing `message`. */
static inline void expect_error_of(tmp_opener opener, const char *path, int code,
                                   const char *message)
{
    tsync_trace *t = NULL;
    tsync_ctx *ctx;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(opener(&t, path, NULL, ctx), code);
    assert_null(t);
    if (!strstr(tsync_ctx_error(ctx), message))
        fail_msg("message \"%s\" lacks \"%s\"", tsync_ctx_error(ctx), message);
    tsync_ctx_free(ctx);
}

/* tsync_trace_open of `path` fails with `code` and an error containing `message`. */
static inline void expect_trace_error(const char *path, int code, const char *message)
{
    expect_error_of(tsync_trace_open, path, code, message);
}

#endif
