/* jobs.c - the pipeline's steps on threads of their own: started, waited for,
 * their errors passed on to the caller's context. */
#include <string.h>

#include "pipeline/jobs.h"
#include "util/ctx.h"

static void *job_main(void *arg)
{
    struct tsync__job *j = arg;
    int rc = j->fn(j->arg, j->ctx);
    pthread_mutex_lock(&j->lock);
    j->rc = rc;
    j->done = 1;
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

void tsync__job_start(struct tsync__job *j, int (*fn)(void *, tsync_ctx *), void *arg, int side,
                      tsync_ctx *ctx)
{
    memset(j, 0, sizeof(*j));
    j->fn = fn;
    j->arg = arg;
    j->started = 1;
    j->side = side;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cond, NULL);
    if (!side) {
        j->ctx = ctx;
        job_main(j);
        return;
    }
    if (tsync_ctx_new(&j->ctx)) {
        j->rc = TSYNC_ENOMEM;
        j->done = 1;
        return;
    }
    j->threaded = pthread_create(&j->thread, NULL, job_main, j) == 0;
    if (!j->threaded)
        job_main(j);
}

int tsync__job_wait(struct tsync__job *j, tsync_ctx *ctx)
{
    int rc;
    pthread_mutex_lock(&j->lock);
    while (!j->done)
        pthread_cond_wait(&j->cond, &j->lock);
    rc = j->rc;
    pthread_mutex_unlock(&j->lock);
    if (rc && j->side && ctx) {
        if (j->ctx)
            tsync__fail(ctx, rc, "%s", tsync_ctx_error(j->ctx));
        else
            tsync__oom(ctx);
    }
    return rc;
}

void tsync__job_free(struct tsync__job *j)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    if (j->started) {
        pthread_mutex_destroy(&j->lock);
        pthread_cond_destroy(&j->cond);
    }
    if (j->side)
        tsync_ctx_free(j->ctx);
    memset(j, 0, sizeof(*j));
}
