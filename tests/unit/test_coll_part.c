/* test_coll_part.c - collective instances held in parts (src/match/coll_part.c):
 * what tsync__coll_route makes of whole instances for the processes that hold their
 * members, and what each process builds of it (tsync__coll_part_build): its own
 * members in rank order, the instances' indices, the sending members held elsewhere,
 * the processes of the receiving and sending members as runs, each set stored once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll_split.h"
#include "tracegen.h"

/* Eight locations on three processes (L0-L2 on 0, L3-L5 on 1, L6 and L7 on 2):
 * w, an allreduce of all; b, a bcast of all from rank 2 (L2); r, a reduce of L1,
 * L4, L7 to rank 1 (L4); s, a scan of L0 and L6; v, an allreduce of L3, L4, L5 where
 * L4 has no data. */
static const char spec[] =
    "coll w allreduce -; coll b bcast 2; coll r reduce 1; coll s scan -; coll v allreduce -;"
    "L0@a: 10:b:w 20:e:w 30:b:b 40:e:b 50:b:s 60:e:s;"
    "L1@a: 10:b:w 20:e:w 30:b:b 40:e:b 45:b:r 46:e:r;"
    "L2@b: 10:b:w 20:e:w 30:b:b 40:e:b;"
    "L3@b: 10:b:w 20:e:w 30:b:b 40:e:b 70:b:v 80:e:v;"
    "L4@c: 10:b:w 20:e:w 30:b:b 40:e:b 45:b:r 46:e:r 70:b:v! 80:e:v!;"
    "L5@c: 10:b:w 20:e:w 30:b:b 40:e:b 70:b:v 80:e:v;"
    "L6@d: 10:b:w 20:e:w 30:b:b 40:e:b 50:b:s 60:e:s;"
    "L7@d: 10:b:w 20:e:w 30:b:b 40:e:b 45:b:r 46:e:r";

/* The set at offset `off` of part's proc_sets, as "first-last,...". */
static const char *set_text(const struct tsync_trace *part, uint32_t off, char *buf, size_t n)
{
    const uint32_t *s = part->proc_sets + off;
    size_t k = 0;
    buf[0] = '\0';
    for (uint32_t r = 0; r < s[0]; r++)
        k += (size_t)snprintf(buf + k, n - k, "%s%u-%u", r ? "," : "", s[1 + 2 * r], s[2 + 2 * r]);
    return buf;
}

/* Instance j of part: its index, its locations, sending members elsewhere, sets. */
static void check(const struct tsync_trace *part, size_t j, uint64_t id, const char *locs,
                  uint32_t senders, const char *to_recvs, const char *to_sends)
{
    const struct tsync_collective *co = &part->collectives[j];
    char buf[64], got[64];
    size_t k = 0;
    assert_int_equal(part->coll_ids[j], id);
    got[0] = '\0';
    for (uint32_t i = 0; i < co->n_members; i++)
        k += (size_t)snprintf(got + k, sizeof(got) - k, "%sL%u", i ? " " : "",
                              part->members[co->first_member + i].loc);
    assert_string_equal(got, locs);
    assert_int_equal(part->coll_parts[j].senders, senders);
    assert_string_equal(set_text(part, part->coll_parts[j].to_recvs, buf, sizeof(buf)), to_recvs);
    assert_string_equal(set_text(part, part->coll_parts[j].to_sends, buf, sizeof(buf)), to_sends);
}

static void test_parts(void **state)
{
    tsync_trace *t = tg_parse(spec);
    struct tsync_trace p[3];
    (void)state;
    for (uint32_t k = 0; k < 3; k++) {
        p[k] = *t;
        cs_split(&p[k], t, k, 3);
    }
    assert_int_equal(p[0].n_collectives, 4);
    check(&p[0], 0, 0, "L0 L1 L2", 5, "0-2", "0-2");
    check(&p[0], 1, 1, "L0 L1 L2", 0, "0-2", "0-0");
    check(&p[0], 2, 2, "L1", 2, "1-1", "0-2");
    check(&p[0], 3, 3, "L0", 1, "0-0,2-2", "0-0,2-2");
    /* Each set once: 0-2, 0-0, 1-1 and 0-0,2-2. */
    assert_int_equal(p[0].coll_parts[0].to_recvs, p[0].coll_parts[1].to_recvs);
    assert_int_equal(p[0].coll_parts[0].to_sends, p[0].coll_parts[2].to_sends);

    assert_int_equal(p[1].n_collectives, 4);
    check(&p[1], 0, 0, "L3 L4 L5", 5, "0-2", "0-2");
    check(&p[1], 1, 1, "L3 L4 L5", 1, "0-2", "0-0");
    check(&p[1], 2, 2, "L4", 2, "1-1", "0-2");
    check(&p[1], 3, 4, "L3 L4 L5", 0, "1-1", "1-1");

    assert_int_equal(p[2].n_collectives, 4);
    check(&p[2], 0, 0, "L6 L7", 6, "0-2", "0-2");
    check(&p[2], 3, 3, "L6", 1, "0-0,2-2", "0-0,2-2");
    assert_int_equal(tsync__coll_at(&p[2], 3), 3);
    assert_int_equal(tsync__coll_at(&p[2], 2), 2);
    for (uint32_t k = 0; k < 3; k++)
        cs_free(&p[k]);
    tsync_trace_free(t);
}

/* A process that holds no member has no instance; one process holds everything. */
static void test_edges(void **state)
{
    tsync_trace *t = tg_parse(spec);
    struct tsync_trace p;
    (void)state;
    p = *t;
    cs_split(&p, t, 4, 10);     /* 10 processes: 4 and 9 hold no location */
    assert_int_equal(p.n_collectives, 0);
    assert_int_equal(p.n_members, 0);
    cs_free(&p);
    p = *t;
    cs_split(&p, t, 8, 10);     /* L7 only: w, b, r */
    assert_int_equal(p.n_collectives, 3);
    check(&p, 2, 2, "L7", 2, "5-5", "1-1,5-5,8-8");
    cs_free(&p);
    p = *t;
    cs_split(&p, t, 0, 1);
    assert_int_equal(p.n_collectives, t->n_collectives);
    assert_int_equal(p.n_members, t->n_members);
    for (size_t j = 0; j < p.n_collectives; j++)
        assert_int_equal(p.coll_parts[j].senders, 0);
    cs_free(&p);
    tsync_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
