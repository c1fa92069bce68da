/* trace.h - a trace in memory: locations, clock domains, events, messages.
 *
 * A tsync_trace is read once from its file (an OTF2 archive, a CSV of messages)
 * and holds, per location, the raw local timestamps of every event and the event
 * kinds that synchronization needs; point-to-point messages are matched as MPI
 * matches them and collective operations grouped into instances. Everything else
 * in the file stays in the file and is copied unchanged when a corrected trace is
 * written.
 *
 * Corrected timestamps live apart from the trace, in a tsync_timeline, so that the
 * raw times are never lost.
 */
#ifndef TRACESYNC_TRACE_H
#define TRACESYNC_TRACE_H

#include "tracesync/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsync_trace tsync_trace;
typedef struct tsync_timeline tsync_timeline;

/** A location (process or thread) by its dense index 0 .. location_count-1. */
typedef uint32_t tsync_loc;

/**
 * How locations are grouped into clock domains.
 *
 * TSYNC_DOMAIN_FILE reads the domains from a text file, one domain per line:
 *
 *     # NAME    LOCATION...
 *     node0     0 1 2 3
 *     gpu-host  "Rank 4" "Rank 5"
 *     n2        rank:6 rank:7      # MPI ranks 6 and 7
 *
 * `#` starts a comment (outside quotes); blank lines are ignored; tokens are
 * separated by blanks. NAME is the domain's name (what maps, `--reference` and
 * reports call it). A LOCATION is
 *   - a decimal number: the location's id in the file (the OTF2 LocationRef; in a
 *     CSV of messages, 0, 1, ... in order of first appearance); a number that is
 *     no location's id may be a location's name,
 *   - a name as the trace has it; names with blanks, quotes or `#` go in double
 *     quotes, inside which \" is a quote and \\ a backslash; a quoted number is
 *     always a name,
 *   - rank:N, the location of MPI rank N (MPI_COMM_WORLD), if the trace has ranks.
 * A NAME may be quoted too. Every location may be listed once. Each location the
 * file does not list keeps a domain of its own, named as by TSYNC_DOMAIN_LOCATION,
 * and one warning says how many there are. Minimum latencies (within a node or
 * between nodes) still follow the nodes of the two locations of a message.
 */
enum tsync_domain_rule {
    TSYNC_DOMAIN_NODE = 0,     /* all locations below one system tree node share a clock */
    TSYNC_DOMAIN_LOCATION = 1, /* every location has its own clock */
    TSYNC_DOMAIN_FILE = 2,     /* as the domain file says (domain_file, version 2 on) */
    TSYNC_DOMAIN_AUTO = 3      /* the default (version 3 on): by node, and a node whose own
                                * messages contradict one clock is split into the groups
                                * of locations they support (tsync_trace_get_split) */
};

/** A domain is split (TSYNC_DOMAIN_AUTO) where messages between its locations arrive
 *  before they were sent by more than this many minimum latencies. */
#define TSYNC_SPLIT_LATENCIES 10

/** Options for tsync_trace_open; initialize with TSYNC_OPEN_OPTS_INIT. */
typedef struct {
    unsigned version;
    enum tsync_domain_rule domains;
    const char *domain_file;   /* the domain file, with TSYNC_DOMAIN_FILE (and only then);
                                  version 2 on; copied, read by tsync_trace_open */
    double split_reversal_s;   /* with TSYNC_DOMAIN_AUTO: a domain is split where its
                                  messages arrive more than this before they were sent
                                  (version 3 on; default TSYNC_SPLIT_LATENCIES x the
                                  default inter-node minimum latency of 1 us) */
    const char *const *files;  /* version 4 on: more files of a trace that is a set of
                                  files (packet captures, one or more per host), read
                                  with `path` as one trace; NULL: `path` alone */
    size_t n_files;
    const char *const *names;  /* version 4 on: "FILE=HOST" for each file of a set whose
                                  host is not its file name without the suffix; FILE
                                  as given or its file name */
    size_t n_names;
} tsync_open_opts;
#define TSYNC_OPEN_OPTS_VERSION 4
#define TSYNC_OPEN_OPTS_INIT { TSYNC_OPEN_OPTS_VERSION, TSYNC_DOMAIN_AUTO, NULL, 10e-6, NULL, 0, NULL, 0 }

/**
 * Reads a trace. `path` names an OTF2 anchor file (".../traces.otf2"), a CSV of
 * messages or a packet capture (pcap, pcapng; with opts->files the first of a set of
 * captures, one trace), told apart by their content (tsync_trace_formats lists what is read;
 * a file of no known format is TSYNC_EFORMAT naming them). `opts` may be NULL (domains by node, none split). ClockOffset
 * records are read, not applied. Unmatched messages and locations a domain file does not list
 * are warnings (through the context's log callback) and are counted.
 * @return 0, or TSYNC_EIO (missing trace or domain file), TSYNC_EFORMAT (corrupt or
 *         truncated trace; a domain file that is not one, "FILE:LINE: ..."),
 *         TSYNC_EINVAL (bad options; a domain file naming a location the trace does
 *         not have, or one location twice), TSYNC_EINCONSISTENT (a location's time
 *         goes backward), TSYNC_ENOMEM; *out is set only on success.
 */
TSYNC_API int tsync_trace_open(tsync_trace **out, const char *path, const tsync_open_opts *opts,
                               tsync_ctx *ctx);
/** Whether the file at `path` is of a format whose trace is a set of files (packet
 *  captures: tsync_open_opts.files); 0 also for a file that cannot be read. */
TSYNC_API int tsync_trace_is_file_set(const char *path);
/** The formats tsync_trace_open reads, for people: "an OTF2 anchor file or a CSV of
 *  messages". A static string, valid until the next call. */
TSYNC_API const char *tsync_trace_formats(void);
/** Frees a trace and all it owns; NULL is fine. */
TSYNC_API void tsync_trace_free(tsync_trace *trace);

TSYNC_API const char *tsync_trace_path(const tsync_trace *trace);
/** Clock ticks per second. */
TSYNC_API uint64_t tsync_trace_timer_resolution(const tsync_trace *trace);
TSYNC_API uint32_t tsync_trace_location_count(const tsync_trace *trace);
TSYNC_API uint64_t tsync_trace_event_count(const tsync_trace *trace);
TSYNC_API uint64_t tsync_trace_message_count(const tsync_trace *trace);
TSYNC_API uint64_t tsync_trace_collective_count(const tsync_trace *trace);
TSYNC_API uint32_t tsync_trace_domain_count(const tsync_trace *trace);
/** The rule used to form clock domains, as text ("node", "location", "file"; the
 *  default TSYNC_DOMAIN_AUTO is "node", with its splits in tsync_trace_get_split). */
TSYNC_API const char *tsync_trace_domain_rule(const tsync_trace *trace);
/** The domain file the clock domains come from (rule "file"), else NULL. */
TSYNC_API const char *tsync_trace_domain_file(const tsync_trace *trace);
/** A clock domain of the node rule that the trace's own messages contradict, and the
 *  domains it was split into (TSYNC_DOMAIN_AUTO). */
typedef struct {
    const char *name;          /* the domain as the node rule formed it */
    uint32_t n_parts;          /* the clock domains it became (2 or more) */
    const uint32_t *parts;     /* their indices (tsync_trace_domain_name) */
    uint64_t messages;         /* messages between its locations */
    uint64_t contradicting;    /* ... that arrive more than limit_s before they were sent */
    double max_reversal_s;     /* the largest send - receive among them, s */
    double limit_s;            /* the limit (tsync_open_opts.split_reversal_s) */
} tsync_domain_split;

/** How many domains were split; 0 unless the rule was TSYNC_DOMAIN_AUTO. */
TSYNC_API size_t tsync_trace_split_count(const tsync_trace *trace);
/** Split `i` (0 .. count-1), or NULL when out of range. Borrowed from the trace. */
TSYNC_API const tsync_domain_split *tsync_trace_get_split(const tsync_trace *trace, size_t i);
/** Bytes of memory the trace holds for its events, messages and collectives. */
TSYNC_API size_t tsync_trace_memory(const tsync_trace *trace);

/** The location's id in its file (OTF2 LocationRef) and its name. */
TSYNC_API uint64_t tsync_trace_location_ref(const tsync_trace *trace, tsync_loc loc);
TSYNC_API const char *tsync_trace_location_name(const tsync_trace *trace, tsync_loc loc);
/** Name of the node a location runs on, and of its clock domain. */
TSYNC_API const char *tsync_trace_location_node(const tsync_trace *trace, tsync_loc loc);
TSYNC_API uint32_t tsync_trace_location_domain(const tsync_trace *trace, tsync_loc loc);
TSYNC_API const char *tsync_trace_domain_name(const tsync_trace *trace, uint32_t domain);
/** Finds a location by its file id; returns 0 and sets *out, or TSYNC_EINVAL. */
TSYNC_API int tsync_trace_find_location(const tsync_trace *trace, uint64_t ref, tsync_loc *out);
/** Finds a clock domain by name; returns 0 and sets *out, or TSYNC_EINVAL. */
TSYNC_API int tsync_trace_find_domain(const tsync_trace *trace, const char *name, uint32_t *out);

/** Counts of messages whose other half is missing. */
TSYNC_API uint64_t tsync_trace_unmatched_sends(const tsync_trace *trace);
TSYNC_API uint64_t tsync_trace_unmatched_recvs(const tsync_trace *trace);

/**
 * A set of timestamps for every event of a trace, starting as a copy of the raw
 * ones. Correction stages change it; writers write it.
 * @return 0 or TSYNC_ENOMEM.
 */
TSYNC_API int tsync_timeline_new(tsync_timeline **out, const tsync_trace *trace, tsync_ctx *ctx);
TSYNC_API void tsync_timeline_free(tsync_timeline *timeline);
/** The timestamps of one location (as many as it has events). Borrowed. */
TSYNC_API tsync_time *tsync_timeline_times(tsync_timeline *timeline, tsync_loc loc);

/**
 * Writes the trace with the timeline's timestamps into directory `outdir`
 * (created if missing), keeping the input's file name: every definition and every
 * event of the input in the same order, only timestamps replaced, clock properties
 * updated, ClockOffset records dropped. The output is written under a temporary
 * name and renamed when complete; an existing output is replaced only then. The
 * trace is written in the format it was read from.
 * @return 0, or TSYNC_EIO / TSYNC_EFORMAT / TSYNC_ENOMEM with nothing left behind,
 *         TSYNC_EUNSUPPORTED for a format that is only read.
 */
TSYNC_API int tsync_trace_write(const tsync_trace *trace, const tsync_timeline *timeline,
                                const char *outdir, tsync_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
