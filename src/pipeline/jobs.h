/* jobs.h (internal) - a step of the pipeline on a thread of its own, beside the
 * next step, or at once on the caller's thread. */
#ifndef TSYNC_PIPELINE_JOBS_H
#define TSYNC_PIPELINE_JOBS_H

#include <pthread.h>

#include "tracesync/common.h"

/* A side job has a context of its own (a context is not shared between threads):
 * it does not warn, its progress is not shown, only an error is passed on. */
struct tsync__job {
    int (*fn)(void *arg, tsync_ctx *ctx);
    void *arg;
    tsync_ctx *ctx;           /* its own (side), or the caller's */
    int rc, started, side, threaded, done;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

/* Runs fn(arg, ...) on a thread of its own when `side` (on this thread when no
 * other can be had), or else now with the caller's ctx. */
void tsync__job_start(struct tsync__job *j, int (*fn)(void *, tsync_ctx *), void *arg, int side,
                      tsync_ctx *ctx);
/* Waits for a started job (from any thread, any number of times); returns its
 * result, and on failure puts its error into ctx (which may be NULL: not passed on). */
int tsync__job_wait(struct tsync__job *j, tsync_ctx *ctx);
/* Waits for the job if started and frees what it holds; a zeroed job is fine. */
void tsync__job_free(struct tsync__job *j);

#endif
