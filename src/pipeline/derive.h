/* derive.h (internal) - the options each stage of the pipeline gets from the
 * others' (pipeline.c), also for the MPI replay (src/replay/), which runs the same
 * stages on several processes. */
#ifndef TSYNC_PIPELINE_DERIVE_H
#define TSYNC_PIPELINE_DERIVE_H

#include "tracesync/pipeline.h"

/* o's options as its stages use them: the check's minimum latencies and latency
 * file are every stage's (the CLC's latency file where the check has none); a
 * clock domain is split where its messages contradict one clock by more than
 * TSYNC_SPLIT_LATENCIES times the larger latency (*open: o->open's with that limit,
 * o->open pointing to it; nothing when o->open is NULL). Cannot fail. */
void tsync__pipeline_derive(tsync_pipeline_opts *o, tsync_open_opts *open);

#endif
