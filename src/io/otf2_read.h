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

/* Where tsync__otf2_write writes: checks OUTDIR (made if missing; not the input's
 * directory) and makes a temporary directory in it (*tmpdir), and the archive's name
 * (*name, without .otf2); both malloc'ed, NULL on failure. tsync__otf2_out_finish
 * takes both: on rc 0 moves the archive into OUTDIR, else removes it; returns the
 * result. */
int tsync__otf2_out_begin(char **tmpdir, char **name, const struct tsync_trace *t,
                          const char *outdir, tsync_ctx *ctx);
int tsync__otf2_out_finish(int rc, char *tmpdir, char *name, const char *outdir, tsync_ctx *ctx);

/* One process's part of a corrected archive (the MPI replay, src/replay/): the
 * locations t->held says, the global definitions too when `root`. Every process
 * calls tsync__otf2_write_part together, on the same temporary directory, which
 * the caller made and moves into place or removes. */
struct tsync__otf2_part {
    int root;
    tsync_time t_min, t_max;    /* the corrected times' range over every process */
    int changed;                /* some timestamp changed on some process */
    const char *tmpdir;
    /* Sets the archive's collective callbacks (libotf2's MPI ones). */
    OTF2_ErrorCode (*collectives)(OTF2_Archive *archive, void *arg);
    void *arg;
};
int tsync__otf2_write_part(const struct tsync_trace *t, const struct tsync_timeline *tl,
                           const struct tsync__otf2_part *part, tsync_ctx *ctx);
/* The range of the times of the locations held here and whether any differs from
 * the raw one; fails (naming the event) on a negative time, which OTF2 cannot hold. */
int tsync__otf2_scan_times(const struct tsync_trace *t, const struct tsync_timeline *tl,
                           tsync_time *t_min, tsync_time *t_max, int *changed, tsync_ctx *ctx);

#endif
