/* workers.c - one function on several threads (POSIX threads). */
#include <pthread.h>
#include <stdlib.h>

#include "util/workers.h"

struct worker {
    tsync_worker_fn fn;
    void *arg;
    unsigned w;
    int started;
    pthread_t thread;
};

static void *worker_main(void *p)
{
    struct worker *k = p;
    k->fn(k->arg, k->w);
    return NULL;
}

void tsync__run_workers(unsigned n, tsync_worker_fn fn, void *arg)
{
    struct worker *k = n > 1 ? calloc(n, sizeof(*k)) : NULL;
    if (!k) { /* one worker, or no memory for more: all on this thread */
        for (unsigned w = 0; w < n; w++)
            fn(arg, w);
        return;
    }
    for (unsigned w = 1; w < n; w++) {
        k[w].fn = fn;
        k[w].arg = arg;
        k[w].w = w;
        k[w].started = pthread_create(&k[w].thread, NULL, worker_main, &k[w]) == 0;
    }
    fn(arg, 0);
    for (unsigned w = 1; w < n; w++) {
        if (k[w].started)
            pthread_join(k[w].thread, NULL);
        else
            fn(arg, w);
    }
    free(k);
}
