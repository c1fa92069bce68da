/* otf2_read.h (internal) - the OTF2 reader's state, shared by its definitions pass
 * (otf2_defs.c) and its events pass (otf2_events.c); its table is in otf2.c. */
#ifndef TSYNC_IO_OTF2_READ_H
#define TSYNC_IO_OTF2_READ_H

#include <otf2/otf2.h>

#include "io/sink.h"

/* Global definitions as read, looked up by reference after the global pass. */
struct tsync_otf2_string { uint64_t ref; char *s; };
struct tsync_otf2_stn { uint64_t ref; uint64_t name, cls, parent; };
struct tsync_otf2_lgroup { uint64_t ref; uint64_t name; uint32_t type; uint64_t stn; };
struct tsync_otf2_location { uint64_t ref; uint64_t name; uint64_t n_events; uint64_t lgroup; };
struct tsync_otf2_group { uint64_t ref; uint32_t type; uint32_t paradigm; uint32_t n; uint64_t *members; };
struct tsync_otf2_comm { uint64_t ref; uint64_t name; uint64_t group; };

struct tsync_otf2_read {
    char *path;                 /* the anchor file */
    OTF2_Reader *reader;
    struct tsync_sink *sink;    /* of the definitions pass */
    int failed;                 /* an error was recorded in the sink's context */
    int have_clock;
    uint64_t chunk_evt, chunk_def; /* the anchor's chunk sizes */

    struct tsync_otf2_string *strings; size_t n_strings, cap_strings;
    struct tsync_otf2_stn *stns; size_t n_stns, cap_stns;
    struct tsync_otf2_lgroup *lgroups; size_t n_lgroups, cap_lgroups;
    struct tsync_otf2_location *locs; size_t n_locs, cap_locs;  /* = the trace's locations */
    struct tsync_otf2_group *groups; size_t n_groups, cap_groups;
    struct tsync_otf2_comm *comms; size_t n_comms, cap_comms;
};

/* The passes, as struct tsync__format's definitions and events (r is the state). */
int tsync__otf2_read_definitions(void *r, struct tsync_sink *sink);
int tsync__otf2_read_events(void *r, struct tsync_sink *sink);
/* Frees the definitions as read. */
void tsync__otf2_read_defs_free(struct tsync_otf2_read *r);

/* Writes a corrected archive by copying the input's records (otf2_write.c). */
int tsync__otf2_write(const struct tsync_trace *t, const struct tsync_timeline *tl,
                      const char *outdir, tsync_ctx *ctx);

#endif
