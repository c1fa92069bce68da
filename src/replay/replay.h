/* replay.h (internal) - the controlled logical clock as an MPI program (seed 002,
 * section 5): each process holds a block of the trace's locations
 * (tsync__location_holder), reads only their events, estimates the time maps with
 * the others (src/estimate/parts.c) and replays the communication to correct them
 * (src/clc/), both through the transports of transport.c, and writes their part
 * of the corrected archive. Built only where MPI is found.
 *
 * Every function is called by every process of `comm` together; each agrees with
 * the others on its result, so that a failure on one process fails them all
 * (its own error in its context, "another process of the replay failed" in the
 * others').
 */
#ifndef TSYNC_REPLAY_REPLAY_H
#define TSYNC_REPLAY_REPLAY_H

#include <mpi.h>

#include "clc/clc.h"
#include "estimate/estimate_api.h"
#include "tracesync/check.h"
#include "tracesync/sync.h"
#include "trace/trace.h"

/* What a process's context says when another process failed. */
#define TSYNC_REPLAY_OTHERS TSYNC_OTHERS_FAILED

/* This process's rc agreed with the others': the first failure anywhere fails
 * every process (rc kept where it failed, the others get TSYNC_REPLAY_OTHERS). */
int tsync__replay_agree(MPI_Comm comm, int rc, tsync_ctx *ctx);

/* What the transport did on this process, for the scaling model (README). */
struct tsync__replay_link {
    MPI_Comm comm;
    uint64_t exchanges;     /* rounds that exchanged values */
    uint64_t values;        /* values sent to other processes */
    uint64_t reductions;    /* MPI_Allreduce calls of the clc */
    uint64_t sparse;        /* sparse exchanges so far, the clc's and the estimate's */
};

/* transport.c: the clc's and the estimate's transports over link->comm (*link must
 * outlive them). */
void tsync__replay_transports(struct tsync__clc_transport *clc, struct tsync__est_transport *est,
                              struct tsync__replay_link *link);

/* distribute.c: this process's part of the OTF2 trace at `path` (t->held): every
 * definition and location's event count, the events of its own locations, and
 * the messages of its own locations (matched on the processes of their receivers)
 * and every collective instance (matched on the processes of their communicators,
 * then sent to all). For the estimate (opts: the clock domains; NULL: none, domains
 * by node) also the send times of the messages its locations receive, every
 * ClockOffset record, and the domains of the default rule split by the messages of
 * all. 0 or a negative TSYNC_E* code. */
int tsync__replay_open(tsync_trace **out, const char *path, const tsync_open_opts *opts,
                       MPI_Comm comm, tsync_ctx *ctx);

/* write.c: the corrected archive into OUTDIR: every process its own locations,
 * process 0 the global definitions, through libotf2's MPI collectives, into a
 * temporary directory moved into place when every process succeeded (removed
 * otherwise). 0 or a negative TSYNC_E* code. */
int tsync__replay_write(const tsync_trace *t, const tsync_timeline *tl, const char *outdir,
                        MPI_Comm comm, tsync_ctx *ctx);

/* run.c: `tracesync-mpi clc`: input read in parts, the clc replayed, the archive
 * written into OUTDIR by every process of link->comm (whose counts of this
 * process's exchanges it sets); *out (the counts of every process) on success. The minimum latencies and latency file of `check` are the clc's too, as
 * in the pipeline (tracesync/pipeline.h). */
int tsync__replay_clc(tsync_clc_result **out, struct tsync__replay_link *link, const char *input,
                      const char *outdir, const tsync_clc_opts *clc,
                      const tsync_check_opts *check, tsync_ctx *ctx);

/* run.c: `tracesync-mpi sync`: the same, with the time maps estimated by every
 * process (tsync__estimate_run_part) and applied before the clc (opts->clc: run
 * it), and the shift that keeps every time positive; *out NULL without the clc. */
int tsync__replay_sync(tsync_clc_result **out, struct tsync__replay_link *link, const char *input,
                       const char *outdir, const tsync_sync_opts *opts, tsync_ctx *ctx);

#endif
