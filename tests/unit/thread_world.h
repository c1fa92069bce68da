/* thread_world.h - N threads playing N processes for the unit tests of the parts
 * that talk through a transport (the clc's replay, the estimate in parts): an
 * exchange and a reduction over shared outboxes between two barriers. Include it
 * after cmocka.h. */
#ifndef TSYNC_TEST_THREAD_WORLD_H
#define TSYNC_TEST_THREAD_WORLD_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define THREAD_WORLD_MAX 10

/* What the threads share. */
struct thread_world {
    unsigned n;
    pthread_barrier_t bar;
    const void *v[THREAD_WORLD_MAX];                 /* each process's outbox, */
    size_t size[THREAD_WORLD_MAX], n_v[THREAD_WORLD_MAX]; /* its elements' size and count, */
    const uint32_t *dest[THREAD_WORLD_MAX];          /* and their processes */
    int64_t *red[THREAD_WORLD_MAX];
};

/* Process `rank` sends v[i] (n elements of `size` bytes) to process dest[i] and
 * receives what is sent to it into *in (malloc'ed, *n_in elements), last process's
 * first: in an order the exchange does not promise. */
static inline int thread_exchange(struct thread_world *w, unsigned rank, const void *v, size_t size,
                                  const uint32_t *dest, size_t n, void **in, size_t *n_in)
{
    size_t k = 0;
    char *out;
    w->v[rank] = v;
    w->size[rank] = size;
    w->dest[rank] = dest;
    w->n_v[rank] = n;
    pthread_barrier_wait(&w->bar);
    for (unsigned s = 0; s < w->n; s++)
        for (size_t i = 0; i < w->n_v[s]; i++)
            k += w->dest[s][i] == rank;
    out = malloc(k ? k * size : 1);
    assert_non_null(out);
    *n_in = 0;
    for (unsigned s = w->n; s-- > 0;)
        for (size_t i = 0; i < w->n_v[s]; i++)
            if (w->dest[s][i] == rank)
                memcpy(out + (*n_in)++ * size, (const char *)w->v[s] + i * size, size);
    *in = out;
    pthread_barrier_wait(&w->bar);      /* the senders may free their outboxes now */
    return 0;
}

/* The sum (sum != 0) or maximum of each of v's n values over the processes, into v. */
static inline int thread_reduce(struct thread_world *w, unsigned rank, int64_t *v, int n, int sum)
{
    int64_t *r = malloc((n ? (size_t)n : 1) * sizeof(*r));
    assert_non_null(r);
    w->red[rank] = v;
    pthread_barrier_wait(&w->bar);
    for (int i = 0; i < n; i++) {
        r[i] = sum ? 0 : INT64_MIN;
        for (unsigned s = 0; s < w->n; s++)
            r[i] = sum ? r[i] + w->red[s][i] : (w->red[s][i] > r[i] ? w->red[s][i] : r[i]);
    }
    pthread_barrier_wait(&w->bar);
    memcpy(v, r, (size_t)n * sizeof(*v));
    free(r);
    return 0;
}

#endif
