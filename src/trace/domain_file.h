/* domain_file.h (internal) - clock domains from a domain file: which locations
 * share one clock, as the user says (`--domains FILE`, TSYNC_DOMAIN_FILE).
 *
 * Reading a file has two steps: parsing the text (syntax, empty domains, names
 * given twice; no trace needed) and applying it to a trace (every location must
 * exist and be listed once). The format is documented at TSYNC_DOMAIN_FILE in
 * include/tracesync/trace.h.
 */
#ifndef TSYNC_TRACE_DOMAIN_FILE_H
#define TSYNC_TRACE_DOMAIN_FILE_H

#include "trace/trace.h"

/* How a LOCATION token names its location. */
enum tsync__dloc_kind {
    TSYNC_DLOC_ID,   /* unquoted decimal number: an OTF2 location id (or a name that
                      * is that number, if no location has that id) */
    TSYNC_DLOC_NAME, /* a location name, quoted or not */
    TSYNC_DLOC_RANK  /* rank:N, MPI rank N in MPI_COMM_WORLD */
};

struct tsync__dloc {
    enum tsync__dloc_kind kind;
    int quoted;      /* written in double quotes */
    uint64_t num;    /* the id or the rank */
    char *text;      /* the name, without quotes (for ids and ranks: as written) */
};

/* A line NAME LOCATION...: its locations are locs[first .. first + n). */
struct tsync__ddomain {
    char *name;
    unsigned long line;
    size_t first, n;
};

struct tsync__domain_file {
    char *path;
    struct tsync__ddomain *domains;
    size_t n_domains, cap_domains;
    struct tsync__dloc *locs;
    size_t n_locs, cap_locs;
};

/* Parses `len` bytes of domain file text; `path` names the file in messages.
 * Returns 0, or TSYNC_EFORMAT ("PATH:LINE: what is wrong") or TSYNC_ENOMEM; *df
 * is filled on success and empty otherwise. */
int tsync__domain_file_parse(struct tsync__domain_file *df, const char *path, const char *text,
                             size_t len, tsync_ctx *ctx);
/* Reads and parses the file at `path`: as above, or TSYNC_EIO when it cannot be read. */
int tsync__domain_file_read(struct tsync__domain_file *df, const char *path, tsync_ctx *ctx);
/* Frees what *df holds and empties it; an empty *df is fine. */
void tsync__domain_file_free(struct tsync__domain_file *df);

/* Replaces the clock domains of `t` by those of the file: one per line, in file
 * order, then one for each location the file does not list (named as by
 * TSYNC_DOMAIN_LOCATION, in location order; one warning says how many). Sets the
 * rule to TSYNC_DOMAIN_FILE and remembers the path.
 * Returns 0, or TSYNC_EINVAL ("PATH:LINE: ..." for a location that is not in the
 * trace, is ambiguous or is listed twice, or a domain name taken by an unlisted
 * location's domain) or TSYNC_ENOMEM, with `t` unchanged. */
int tsync__domain_file_apply(struct tsync_trace *t, const struct tsync__domain_file *df,
                             tsync_ctx *ctx);

#endif
