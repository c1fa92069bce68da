/* format.h - the trace format interface: a reader that emits into a sink, the writer
 * it offers, and the registry that picks a format by a file's content.
 *
 * A format is one table of functions (struct tsync__format) in a file of its own,
 * named in the list of registry.c. Reading goes through the same steps for every
 * format (io/formats.c): probe, open, definitions into the sink, the clock domains
 * and domain file, events into the sink, close; then match/ pairs the records. A
 * format says what it can do in `caps`, and writes a corrected trace back if it has
 * a `write`. Unsupported entry points are NULL.
 */
#ifndef TSYNC_IO_FORMAT_H
#define TSYNC_IO_FORMAT_H

#include <stddef.h>

#include "io/sink.h"
#include "trace/trace.h"

/* What a format's files hold. */
#define TSYNC_CAP_MESSAGES 1u  /* point-to-point messages (sends and receives) */
#define TSYNC_CAP_OFFSETS  2u  /* measured clock offsets (ClockOffset records) */
#define TSYNC_CAP_NODES    4u  /* locations grouped under nodes, so that the node rule
                                * and its splits apply; without it every location is
                                * its own clock domain unless a domain file groups them */
#define TSYNC_CAP_COLLECTIVES 8u /* collective operations */
#define TSYNC_CAP_FILE_SET 16u  /* a trace is a set of files (packet captures, one per
                                 * host): the files of the open options are read with
                                 * the path as one trace, through open_set */

#define TSYNC_CAP_MESSAGE_LISTS 32u /* every line a message with both its times: for
                                 * the estimate alone, read through open_lists into
                                 * message lists per pair of locations, no events */

/* How many bytes of a file's start the registry reads for probe. */
#define TSYNC_PROBE_BYTES 256

struct tsync__format {
    const char *name;          /* short and unique: "otf2" */
    const char *what;          /* for people, after "a"/"an": "an OTF2 anchor file" */
    const char *suffix;        /* the usual end of a file's name (".otf2"): a file that no
                                * format recognizes by content but that has this name is
                                * given to this reader, for its own error */
    unsigned caps;             /* TSYNC_CAP_* */
    enum tsync_format shape;   /* how its locations are named (trace/trace.h) */

    /* Whether the first n bytes of a file (n <= TSYNC_PROBE_BYTES, fewer when the
     * file is shorter) are of this format: its magic bytes or header. Cannot fail. */
    int (*probe)(const unsigned char *head, size_t n);
    /* Opens `path` (copied if kept) into *reader; fails as tsync_trace_open does
     * (TSYNC_EIO, TSYNC_EFORMAT, ...) with *reader unset and nothing to close. */
    int (*open)(void **reader, const char *path, tsync_ctx *ctx);
    /* With TSYNC_CAP_FILE_SET: opens the n files paths[] as one trace, file i
     * recorded on host hosts[i] (both copied); fails as open. */
    int (*open_set)(void **reader, const char *const *paths, const char *const *hosts, size_t n,
                    tsync_ctx *ctx);
    /* With TSYNC_CAP_MESSAGE_LISTS: opens `path` as open does, for a reader whose
     * events step hands the messages to tsync__sink_message_lists instead. */
    int (*open_lists)(void **reader, const char *path, tsync_ctx *ctx);
    /* Emits the clock, nodes, locations (at least one), ranks and communicators. */
    int (*definitions)(void *reader, struct tsync_sink *sink);
    /* Emits every location's events in order, with their records and the offsets. */
    int (*events)(void *reader, struct tsync_sink *sink);
    /* Frees the reader (NULL is fine). */
    void (*close)(void *reader);

    /* Writes the trace with the timeline's times into outdir under the input's file
     * name (tsync_trace_write); from the model, plus whatever the format keeps in
     * its input (OTF2 copies every record). NULL: the format is read-only. */
    int (*write)(const struct tsync_trace *t, const struct tsync_timeline *tl, const char *outdir,
                 tsync_ctx *ctx);
};

/* Adds a format after the built-in ones (for a program or test that brings its
 * own reader; the table must outlive every trace read with it). Not thread-safe:
 * register before reading. TSYNC_EINVAL for a name already known or a format
 * without name, what, probe, open, definitions, events or close; TSYNC_ENOMEM when
 * full. */
int tsync__format_register(const struct tsync__format *f, tsync_ctx *ctx);

/* The format of the file at `path`: the first whose probe accepts its start; else
 * the one whose suffix ends the path (also for a path that cannot be read, so that
 * its reader says why); else, for a path that is missing or not a file, the first
 * format (OTF2, whose errors say what to give). TSYNC_EFORMAT, naming the file and
 * the known formats, when none applies. */
int tsync__format_for(const struct tsync__format **out, const char *path, tsync_ctx *ctx);

/* The host of a file of a set when the user names none: its file name without
 * directory and last suffix ("cap/alpha.pcapng" -> "alpha"). Malloc'ed; NULL when
 * out of memory. */
char *tsync__default_host(const char *path);

/* Whether traces of format fmt can give `stage` what it needs: any one of the
 * capabilities `any_of` (0: none needed), and with `write` a writer. 0, or
 * TSYNC_EUNSUPPORTED naming `path`, the stage and the format ("run.events: check
 * needs messages or collectives; a toy event list (toy) holds neither"). */
int tsync__format_require(const struct tsync__format *fmt, const char *path, const char *stage,
                          unsigned any_of, int write, tsync_ctx *ctx);

#endif
