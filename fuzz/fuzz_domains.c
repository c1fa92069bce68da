/* fuzz_domains.c - libFuzzer target: the domain file parser (`--domains FILE`)
 * on any bytes, and what parses applied to a small trace built in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/domain_file.h"

/* Four locations on two nodes, ids 0, 1, 536870911, 7; names "Rank 0", "Rank 1",
 * "Master thread" twice; ranks 0 to 2, the last has none. */
static struct tsync_trace *make_trace(void)
{
    static const uint64_t refs[] = { 0, 1, 536870911, 7 };
    static const char *names[] = { "Rank 0", "Rank 1", "Master thread", "Master thread" };
    struct tsync_trace *t = tsync__trace_alloc("fuzz.otf2");
    if (!t || !(t->locations = calloc(4, sizeof(*t->locations))) ||
        !(t->nodes = calloc(2, sizeof(*t->nodes))) || !(t->domains = calloc(2, sizeof(*t->domains))) ||
        !(t->rank_loc = calloc(3, sizeof(*t->rank_loc))))
        abort();
    t->n_locations = 4;
    t->n_nodes = t->n_domains = 2;
    t->n_ranks = 3;
    for (uint32_t n = 0; n < 2; n++) {
        t->nodes[n].name = strdup(n ? "n1" : "n0");
        t->domains[n].name = strdup(n ? "n1" : "n0");
        t->domains[n].node = n;
    }
    for (uint32_t i = 0; i < 4; i++) {
        t->locations[i].ref = refs[i];
        t->locations[i].name = strdup(names[i]);
        t->locations[i].node = t->locations[i].domain = i / 2;
        t->locations[i].rank = i < 3 ? i : TSYNC_NONE;
        if (i < 3)
            t->rank_loc[i] = i;
    }
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tsync__domain_file df;
    struct tsync_trace *t;
    tsync_ctx *ctx;
    if (tsync_ctx_new(&ctx))
        abort();
    if (tsync__domain_file_parse(&df, "fuzz.txt", (const char *)data, size, ctx) == 0) {
        t = make_trace();
        if (tsync__domain_file_apply(t, &df, ctx) == 0) {
            for (uint32_t i = 0; i < t->n_locations; i++)
                if (t->locations[i].domain >= t->n_domains || !t->domains[t->locations[i].domain].name)
                    abort();
        }
        tsync_trace_free(t);
        tsync__domain_file_free(&df);
    }
    tsync_ctx_free(ctx);
    return 0;
}
