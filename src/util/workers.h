/* workers.h - one function on several threads, for work split by location. */
#ifndef TSYNC_UTIL_WORKERS_H
#define TSYNC_UTIL_WORKERS_H

/* Worker `w` of n: the function owns what w selects and nothing else. */
typedef void (*tsync_worker_fn)(void *arg, unsigned w);

/* Runs fn(arg, w) for every w in 0 .. n-1 and returns when all have returned.
 * Worker 0 runs on the calling thread, the others on threads of their own; a
 * worker whose thread cannot be started runs on the calling thread after worker
 * 0, so the work is done either way. Cannot fail. */
void tsync__run_workers(unsigned n, tsync_worker_fn fn, void *arg);

#endif
