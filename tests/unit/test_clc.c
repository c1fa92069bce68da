/* test_clc.c - the controlled logical clock (src/clc): seed 002's Fig. 1 step by
 * step, the piecewise backward amortization of Fig. 2, each collective class with
 * its send and receive sets, collective send limits (section 4.2), the ClockOffset
 * pre-synchronization, the gamma controller, latency files, cycles, and property
 * tests on random traces: no violation after, no event earlier than its input, no
 * local reordering, idempotence, and forward amortization equal to a brute-force
 * evaluation of Eq. 4' over every S x R pair. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "clc/clc_api.h"
#include "tracegen.h"
#include "tracesync/check.h"
#include "tracesync/clc.h"

/* ---- helpers ------------------------------------------------------------------------ */

/* Options for exact hand-computed examples: mu = 10 ticks (1 tick = 1 ns) within
 * and between nodes, delta 1, gamma 1, one pass, amortization interval = 2 x jump. */
static tsync_clc_opts exact_opts(void)
{
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    o.latency_intra_s = o.latency_inter_s = 10e-9;
    o.gamma = 1.0;
    o.max_passes = 1;
    o.max_slope = 0.5;
    return o;
}

/* Runs the clc on the trace's raw times; returns the timeline (and the result). */
static tsync_timeline *run_clc(const tsync_trace *t, const tsync_clc_opts *o,
                               tsync_clc_result **res)
{
    tsync_timeline *tl = NULL;
    tsync_clc_result *r = NULL;
    tsync_ctx *ctx = NULL;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    if (tsync_clc_run(&r, t, tl, o, ctx) != 0)
        fail_msg("tsync_clc_run: %s", tsync_ctx_error(ctx));
    tsync_ctx_free(ctx);
    if (res)
        *res = r;
    else
        tsync_clc_result_free(r);
    return tl;
}

/* Frees what a case made. */
static void case_free(tsync_trace *t, tsync_timeline *tl, tsync_clc_result *r)
{
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);
    tsync_trace_free(t);
}

/* Asserts the times of location loc. */
static void expect(const tsync_trace *t, tsync_timeline *tl, tsync_loc loc, const tsync_time *want,
                   size_t n)
{
    const tsync_time *got = tsync_timeline_times(tl, loc);
    assert_int_equal(t->locations[loc].n_events, n);
    for (size_t j = 0; j < n; j++)
        if (got[j] != want[j])
            fail_msg("location %u event %zu: %lld, expected %lld", loc, j, (long long)got[j],
                     (long long)want[j]);
}
#define EXPECT(t, tl, loc, ...)                                                         \
    do {                                                                                \
        const tsync_time w_[] = { __VA_ARGS__ };                                        \
        expect(t, tl, loc, w_, sizeof(w_) / sizeof(w_[0]));                             \
    } while (0)

/* Violations of the timeline with the latencies of o. */
static uint64_t violations(const tsync_trace *t, const tsync_timeline *tl, const tsync_clc_opts *o)
{
    tsync_check_opts co = TSYNC_CHECK_OPTS_INIT;
    tsync_check_report *r = NULL;
    uint64_t v;
    co.latency_intra_s = o->latency_intra_s;
    co.latency_inter_s = o->latency_inter_s;
    assert_int_equal(tsync_check_run(&r, t, tl, &co, NULL), 0);
    v = r->violations;
    tsync_check_report_free(r);
    return v;
}

/* ---- delta ------------------------------------------------------------------------------- */

/* Events that share a tick in the input (a coarse timer) keep sharing it: delta keeps
 * the clock advancing only as far as the input did. Forced a tick apart each, a run
 * of them pushed the rest of the location ahead for good (gamma near 1). Here P1's
 * three events at 40 stay at 40, and after the receive put forward to 210 the two
 * events at its tick stay at 210; the one 100 ticks later keeps its distance. With
 * delta 5, events 2 ticks apart in the input stay 2 apart. */
static void test_delta_keeps_shared_ticks(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 100 200:s:m 300; L1@b: 0 40 40 40 150:r:m 150 150 250");
    tsync_clc_opts o = exact_opts();
    tsync_clc_result *r;
    tsync_timeline *tl;
    (void)state;

    o.max_slope = 1e9; /* forward amortization alone */
    tl = run_clc(t, &o, &r);
    EXPECT(t, tl, 1, 0, 40, 40, 40, 210, 210, 210, 310);
    case_free(t, tl, r);

    t = tg_parse("L0@a: 0 10 12 14 100");
    o.delta_ticks = 5;
    tl = run_clc(t, &o, &r);
    EXPECT(t, tl, 0, 0, 10, 12, 14, 100);
    case_free(t, tl, r);
}

/* ---- Fig. 1: forward, then backward amortization ------------------------------------------ */

/* Two processes, one message S -> R received 50 ticks before it was sent (Fig. 1a):
 *   P0:  E1 100   S 200   E2 300
 *   P1:  E0 0   E3 50   R 150   E4 250
 * mu = 10, delta = 1, gamma = 1.
 * Forward (Fig. 1b, 1c): R = max(LC'(S) + mu = 210, LC'(E3) + 1 = 51, 50 + (150 - 50) =
 * 150, C = 150) = 210, a jump of dt = 60 over the local terms; E4 = max(211, 210 +
 * (250 - 150) = 310, 250) = 310: the interval R..E4 keeps its 100 ticks.
 * Backward (Fig. 1d), max_slope 0.5: r_b = 210 - 60 = 150, the interval starts at
 * t_l = 150 - 60 / 0.5 = 30; E3 at 50 lies in it and moves by 60 (50 - 30) / 120 = 10
 * to 60. E0 (at 0, before t_l) stays. */
static void test_fig1(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 100 200:s:m 300; L1@b: 0 50 150:r:m 250");
    tsync_clc_opts o = exact_opts();
    tsync_clc_result *r;
    tsync_timeline *tl;
    (void)state;

    o.max_slope = 1e9; /* an interval of 60e-9 ticks: forward amortization alone */
    tl = run_clc(t, &o, &r);
    EXPECT(t, tl, 0, 100, 200, 300);
    EXPECT(t, tl, 1, 0, 50, 210, 310);
    assert_int_equal(r->corrected, 1);
    assert_int_equal(r->corrected_p2p, 1);
    assert_int_equal(r->amortized_events, 0);
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);

    o.max_slope = 0.5;
    tl = run_clc(t, &o, &r);
    EXPECT(t, tl, 0, 100, 200, 300);
    EXPECT(t, tl, 1, 0, 60, 210, 310);
    assert_int_equal(r->passes, 1);
    assert_int_equal(r->receives, 1);
    assert_int_equal(r->corrected, 1);
    assert_true(fabs(r->max_jump_s - 60e-9) < 1e-15);
    assert_int_equal(r->amortized_events, 1);
    assert_int_equal(r->limited_jumps, 0);
    assert_int_equal(r->moved_events, 3);
    assert_true(fabs(r->max_shift_s - 60e-9) < 1e-15);
    assert_int_equal(violations(t, tl, &o), 0);
    case_free(t, tl, r);
}

/* gamma < 1 shortens the interval after a jump: with gamma = 0.5 E4 = max(211, 210 +
 * 0.5 x 100 = 260, 250) = 260. */
static void test_gamma_term(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 100 200:s:m 300; L1@b: 0 50 150:r:m 250");
    tsync_clc_opts o = exact_opts();
    tsync_timeline *tl;
    (void)state;
    o.gamma = 0.5;
    o.max_slope = 1e9;
    tl = run_clc(t, &o, NULL);
    EXPECT(t, tl, 1, 0, 50, 210, 260);
    tsync_timeline_free(tl);
    tsync_trace_free(t);
}

/* ---- Fig. 2: a send's limit bends the amortization --------------------------------------- */

/* P1 receives m with the jump of Fig. 1 (r_b = 150, dt = 60, t_l = 30) but sends x at
 * 100 and y at 130 to P2, which receives them at 115 and 142:
 *   P0:  100   200:s:m   300
 *   P1:  0   60   100:s:x   130:s:y   140   150:r:m   250
 *   P2:  0   115:r:x   142:r:y   200
 * Limits: x may reach 115 - 10 = 105 (move 5), y 142 - 10 = 132 (move 2); the ramp
 * (t - 30) / 2 would move them by 35 and 50. In coordinates t - t_l the hull of
 * (0, 0), (70, 5), (100, 2), (120, 60) is (0, 0) - (100, 2) - (120, 60): (70, 5) lies
 * above it. So g has slope 0.02 up to y and 2.9 after it:
 *   60  -> 60 + floor(2 x 30 / 100) = 60
 *   100 -> 100 + floor(2 x 70 / 100) = 101        (x, limit 105)
 *   130 -> 130 + 2 = 132                           (y, exactly at its limit)
 *   140 -> 140 + 2 + floor(58 x 10 / 20) = 171
 * Without x and y the ramp moves them to 75, 135, 180, 195. */
static void test_fig2_piecewise(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 100 200:s:m 300;"
                              "L1@b: 0 60 100:s:x 130:s:y 140 150:r:m 250;"
                              "L2@c: 0 115:r:x 142:r:y 200");
    tsync_trace *plain = tg_parse("L0@a: 100 200:s:m 300; L1@b: 0 60 100 130 140 150:r:m 250");
    tsync_clc_opts o = exact_opts();
    tsync_clc_result *r;
    tsync_timeline *tl;
    (void)state;

    tl = run_clc(t, &o, &r);
    EXPECT(t, tl, 0, 100, 200, 300);
    EXPECT(t, tl, 1, 0, 60, 101, 132, 171, 210, 310);
    EXPECT(t, tl, 2, 0, 115, 142, 200);
    assert_int_equal(r->corrected, 1);
    assert_int_equal(r->limited_jumps, 1);
    assert_int_equal(r->amortized_events, 3);
    assert_int_equal(violations(t, tl, &o), 0);
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);

    tl = run_clc(plain, &o, &r);
    EXPECT(plain, tl, 1, 0, 75, 135, 180, 195, 210, 310);
    assert_int_equal(r->limited_jumps, 0);
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);
    tsync_trace_free(plain);
    tsync_trace_free(t);
}

/* ---- collectives (section 4.1) ------------------------------------------------------------ */

/* Four locations, L0 and L1 on node a, L2 and L3 on node b; mu 3 within a node, 10
 * between. Each location has only the begin and the end of one call, so backward
 * amortization has nothing to move (a location's first event never moves) and each
 * end is max(its time, its bound): gamma = 1 keeps begin..end. */
static tsync_timeline *coll_case(const char *cls_root, const tsync_time *b, const tsync_time *e,
                                 const char *nodata, tsync_trace **out_t, tsync_clc_result **res)
{
    char spec[512];
    tsync_clc_opts o = exact_opts();
    tsync_trace *t;
    tsync_timeline *tl;
    int n = snprintf(spec, sizeof(spec), "coll c %s", cls_root);
    for (int i = 0; i < 4; i++)
        n += snprintf(spec + n, sizeof(spec) - (size_t)n, "; L%d@%c: %lld:b:c%s %lld:e:c", i,
                      i < 2 ? 'a' : 'b', (long long)b[i], nodata && nodata[i] == 'x' ? "!" : "",
                      (long long)e[i]);
    t = tg_parse(spec);
    o.latency_intra_s = 3e-9;
    tl = run_clc(t, &o, res);
    assert_int_equal(violations(t, tl, &o), 0);
    *out_t = t;
    return tl;
}

static tsync_time end_of(tsync_timeline *tl, tsync_loc loc)
{
    return tsync_timeline_times(tl, loc)[1];
}

#define EXPECT_ENDS(tl, e0, e1, e2, e3)                                                 \
    do {                                                                                \
        assert_int_equal(end_of(tl, 0), e0);                                            \
        assert_int_equal(end_of(tl, 1), e1);                                            \
        assert_int_equal(end_of(tl, 2), e2);                                            \
        assert_int_equal(end_of(tl, 3), e3);                                            \
    } while (0)

static const tsync_time B_UP[] = { 100, 110, 120, 130 }, E_UP[] = { 135, 125, 140, 150 };

/* N-to-N (allreduce): S and R are all members, none receives from its own location.
 *   L0 (a): max(L1 110+3, L2 120+10, L3 130+10) = 140 > 135
 *   L1 (a): max(L0 103, L2 130, L3 140) = 140 > 125
 *   L2 (b): max(L0 110, L1 120, L3 133) = 133 < 140
 *   L3 (b): max(L0 110, L1 120, L2 123) = 123 < 150 */
static void test_coll_n_to_n(void **state)
{
    tsync_trace *t;
    tsync_clc_result *r;
    tsync_timeline *tl = coll_case("allreduce -", B_UP, E_UP, NULL, &t, &r);
    (void)state;
    EXPECT_ENDS(tl, 140, 140, 140, 150);
    assert_int_equal(r->receives, 4);
    assert_int_equal(r->corrected, 2);
    assert_int_equal(r->corrected_collective, 2);
    case_free(t, tl, r);
}

/* N-to-N with L3 contributing no data ("allreduce" with a zero-size member, as
 * allgatherv can have): S = {L0, L1, L2}.
 *   L0: max(113, 130) = 130 < 135;  L1: max(103, 130) = 130 > 125
 *   L2: max(110, 120) = 120 < 140;  L3: max(110, 120, 123) = 123 < 150 */
static void test_coll_no_data(void **state)
{
    tsync_trace *t;
    tsync_clc_result *r;
    tsync_timeline *tl = coll_case("allreduce -", B_UP, E_UP, "...x", &t, &r);
    (void)state;
    EXPECT_ENDS(tl, 135, 130, 140, 150);
    assert_int_equal(r->corrected, 1);
    case_free(t, tl, r);
}

/* 1-to-N (bcast from comm rank 2 = L2): S = {L2}; L0 and L1 get 120 + 10 = 130, L3
 * gets 120 + 3 = 123, L2 (the root) no bound. */
static void test_coll_one_to_n(void **state)
{
    tsync_trace *t;
    tsync_clc_result *r;
    tsync_timeline *tl = coll_case("bcast 2", B_UP, E_UP, NULL, &t, &r);
    (void)state;
    EXPECT_ENDS(tl, 135, 130, 140, 150);
    assert_int_equal(r->corrected, 1);
    case_free(t, tl, r);
}

/* N-to-1 (reduce to comm rank 1 = L1): R = {L1}: max(103, 130, 140) = 140. */
static void test_coll_n_to_one(void **state)
{
    tsync_trace *t;
    tsync_clc_result *r;
    tsync_timeline *tl = coll_case("reduce 1", B_UP, E_UP, NULL, &t, &r);
    (void)state;
    EXPECT_ENDS(tl, 135, 140, 140, 150);
    assert_int_equal(r->receives, 1);
    assert_int_equal(r->corrected, 1);
    case_free(t, tl, r);
}

/* Scan: rank i receives from ranks 0..i (its own location left out), so rank 0 from
 * nobody although everyone else entered later. Begins fall with the rank:
 *   B = 130 120 110 100, E = 135 125 115 105
 *   L0: none -> 135
 *   L1 (a): L0 130+3 = 133 > 125
 *   L2 (b): max(L0 140, L1 130) = 140 > 115
 *   L3 (b): max(L0 140, L1 130, L2 113) = 140 > 105
 * Exscan (ranks 0..i-1) gives the same: the only pair it lacks is a member with
 * itself, which never counts. */
static void test_coll_scan_exscan(void **state)
{
    static const tsync_time b[] = { 130, 120, 110, 100 }, e[] = { 135, 125, 115, 105 };
    static const char *const kinds[] = { "scan -", "exscan -" };
    (void)state;
    for (int k = 0; k < 2; k++) {
        tsync_trace *t;
        tsync_clc_result *r;
        tsync_timeline *tl = coll_case(kinds[k], b, e, NULL, &t, &r);
        EXPECT_ENDS(tl, 135, 133, 140, 140);
        assert_int_equal(r->corrected, 3);
        case_free(t, tl, r);
    }
}

/* Section 4.2: a collective send in an amortization interval stops at the minimum over
 * its receives minus mu. L0 roots a bcast (begin 100) received by L1 at 112, then
 * receives m with a jump of 60 (Fig. 1 numbers, t_l = 30):
 *   L0:  0   100:b:c   105:e:c   150:r:m   300
 *   L1:  0   90:b:c    112:e:c
 *   L2:  0   200:s:m   250
 * Forward: L1's end needs 100 + 10 = 110 <= 112; m puts 150 at 210 (dt 60) and 300 at
 * 360. The begin may move 112 - 10 - 100 = 2; hull (0, 0) - (70, 2) - (120, 60):
 *   100 -> 102, 105 -> 105 + 2 + floor(58 x 5 / 50) = 112. */
static void test_coll_send_limit(void **state)
{
    tsync_trace *t = tg_parse("coll c bcast 0; L0@a: 0 100:b:c 105:e:c 150:r:m 300;"
                              "L1@b: 0 90:b:c 112:e:c; L2@c: 0 200:s:m 250");
    tsync_clc_opts o = exact_opts();
    tsync_clc_result *r;
    tsync_timeline *tl = run_clc(t, &o, &r);
    (void)state;
    EXPECT(t, tl, 0, 0, 102, 112, 210, 360);
    EXPECT(t, tl, 1, 0, 90, 112);
    assert_int_equal(r->limited_jumps, 1);
    assert_int_equal(violations(t, tl, &o), 0);
    case_free(t, tl, r);
}

/* A member without a recorded begin (begin = end, as the reader makes it) is a send
 * and a receive at one event: it waits for the others' sends only. */
static void test_coll_begin_is_end(void **state)
{
    tsync_trace *t = tg_parse("coll c allreduce -; L0@a: 100:b:c 150:e:c; L1@b: 0 120:b:c");
    tsync_clc_opts o = exact_opts();
    tsync_timeline *tl;
    tsync_clc_result *r;
    (void)state;
    /* L1's last event is begin and end: index 1 for both. */
    t->members[1].end_idx = t->members[1].begin_idx;
    t->members[1].recvs = 1;
    t->locations[1].kind[1] = TSYNC_EV_COLL_END;
    tl = run_clc(t, &o, &r);
    /* L1 waits for L0's begin: 100 + 10 = 110 < 120, keeps 120; L0's end needs
     * 120 + 10 = 130 < 150. */
    EXPECT(t, tl, 0, 100, 150);
    EXPECT(t, tl, 1, 0, 120);
    assert_int_equal(r->ignored, 0);
    assert_int_equal(violations(t, tl, &o), 0);
    case_free(t, tl, r);
}

/* ---- pre-synchronization ---------------------------------------------------------------- */

/* L0: records (0, +100) and (1000, +200): global = t + 100 + 0.1 t between them, slope
 * 1.1 outside: -100 -> -10, 0 -> 100, 500 -> 650, 1000 -> 1200, 2000 -> 2300.
 * L1: one record (50, -30): a constant offset. L2: no record, unchanged. */
static void test_presync(void **state)
{
    static const char *spec = "L0@a: -100 0 500 1000 2000; L1@a: 10 100; L2@a: 5 6;"
                              "off 0 1000 200; off 0 0 100; off 1 50 -30; off 0 0 100";
    tsync_trace *t = tg_parse(spec);
    tsync_timeline *tl = NULL;
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    tsync_clc_result *r;
    uint32_t mapped = 0;
    uint64_t records = 0;
    (void)state;

    assert_int_equal(tsync_timeline_new(&tl, t, NULL), 0);
    assert_int_equal(tsync_clc_presync(&mapped, &records, t, tl, NULL), 0);
    assert_int_equal(mapped, 2);
    assert_int_equal(records, 4);
    EXPECT(t, tl, 0, -10, 100, 650, 1200, 2300);
    EXPECT(t, tl, 1, -20, 70);
    EXPECT(t, tl, 2, 5, 6);
    tsync_timeline_free(tl);

    /* The same inside the stage (no messages: nothing else moves). */
    tl = run_clc(t, &o, &r);
    EXPECT(t, tl, 0, -10, 100, 650, 1200, 2300);
    EXPECT(t, tl, 1, -20, 70);
    assert_int_equal(r->presync_locations, 2);
    assert_int_equal(r->offset_records, 4);
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);

    o.presync = 0;
    tl = run_clc(t, &o, &r);
    EXPECT(t, tl, 0, -100, 0, 500, 1000, 2000);
    assert_int_equal(r->presync_locations, 0);
    case_free(t, tl, r);
}

/* Records that contradict each other or would reverse time: an error naming the
 * location, and the timeline untouched. */
static void test_presync_bad(void **state)
{
    static const char *const specs[] = {
        "L0@a: 1 2; off 0 10 100; off 0 10 200",   /* one time, two offsets */
        "L0@a: 1 2; off 0 0 0; off 0 100 -200",    /* global 0 then -100 */
    };
    (void)state;
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        tsync_trace *t = tg_parse(specs[i]);
        tsync_timeline *tl = NULL;
        tsync_clc_result *r = NULL;
        tsync_ctx *ctx = NULL;
        assert_int_equal(tsync_ctx_new(&ctx), 0);
        assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
        assert_int_equal(tsync_clc_presync(NULL, NULL, t, tl, ctx), TSYNC_EINCONSISTENT);
        assert_non_null(strstr(tsync_ctx_error(ctx), "location 0 (L0)"));
        assert_int_equal(tsync_clc_run(&r, t, tl, NULL, ctx), TSYNC_EINCONSISTENT);
        assert_null(r);
        EXPECT(t, tl, 0, 1, 2);
        tsync_timeline_free(tl);
        tsync_ctx_free(ctx);
        tsync_trace_free(t);
    }
}

/* ---- the gamma controller (section 5.2) ------------------------------------------------- */

/* L1 receives m (sent at 4100, mu 1 us) with a jump of 5000 ticks at 100, then runs 10^7 ticks in steps of
 * 10^4. With the error threshold at 1e-4:
 *   pass 1, gamma 0.99999: the jump fades by about 100 ticks: error 4.9e-4
 *   pass 2, gamma 0.9999:  about 1000: 4.0e-4, more than 10 % better
 *   pass 3, gamma 0.999:   10^4 > 5010: gone, error 0. */
static void test_gamma_passes(void **state)
{
    char *spec = malloc(20000), *p;
    tsync_trace *t;
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    tsync_clc_result *r;
    tsync_timeline *tl;
    (void)state;
    assert_non_null(spec);
    p = spec + sprintf(spec, "L0@a: 0 4100:s:m; L1@b: 0 100:r:m");
    for (int k = 1; k <= 1000; k++)
        p += sprintf(p, " %d", k * 10000);
    t = tg_parse(spec);
    o.error_threshold = 1e-4;
    tl = run_clc(t, &o, &r);
    assert_int_equal(r->passes, 3);
    assert_true(fabs(r->pass_gamma[0] - 0.99999) < 1e-12);
    assert_true(fabs(r->pass_gamma[1] - 0.9999) < 1e-12);
    assert_true(fabs(r->gamma - 0.999) < 1e-12);
    assert_true(r->pass_error[0] > 4.8e-4 && r->pass_error[0] < 5e-4);
    assert_true(r->pass_error[1] > 3.9e-4 && r->pass_error[1] < 4.1e-4);
    assert_true(r->error == 0.0);
    assert_int_equal(tsync_timeline_times(tl, 1)[1001], 10000000);
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);

    /* A jump of 10^6 cannot fade in 10^7 ticks with any of these gammas: pass 2 is not
     * 10 % better, so pass 1 runs again and is kept. */
    sprintf(spec, "L0@a: 0 1000100:s:m; L1@b: 0 100:r:m 10000000");
    tsync_trace_free(t);
    t = tg_parse(spec);
    tl = run_clc(t, NULL, &r);
    assert_int_equal(r->passes, 3);
    assert_true(fabs(r->pass_gamma[2] - 0.99999) < 1e-12);
    assert_true(fabs(r->gamma - 0.99999) < 1e-12);
    assert_true(r->error > 0.09);
    case_free(t, tl, r);
    free(spec);
}

/* ---- latencies from a file ---------------------------------------------------------------- */

static char *tmp_path(const char *name)
{
    const char *dir = getenv("TSYNC_TEST_TMP");
    char *p = malloc(4096);
    assert_non_null(p);
    if (!dir)
        dir = "/tmp";
    mkdir(dir, 0777);
    snprintf(p, 4096, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* a -> b takes 50 ns per the file instead of the 1 us default: the receive at 120 of a
 * send at 100 moves to 150 only. Errors name file and line. */
static void test_latency_file(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 0 100:s:m; L1@b: 0 120:r:m; L2@c: 0");
    char *path = tmp_path("clc_latency.txt");
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    tsync_clc_result *r = NULL;
    tsync_timeline *tl;
    tsync_ctx *ctx = NULL;
    (void)state;

    write_file(path, "# pairs\nb a 50ns\n\n a c 2us  # comment\n");
    o.latency_file = path;
    tl = run_clc(t, &o, &r);
    EXPECT(t, tl, 1, 0, 150);
    assert_int_equal(r->latency_pairs, 4);
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);

    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    write_file(path, "a b 50ns\na x 1us\n");
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "clc_latency.txt:2: node \"x\""));
    write_file(path, "a b 50xs\n");
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EFORMAT);
    assert_non_null(strstr(tsync_ctx_error(ctx), ":1:"));
    write_file(path, "a b 1us\nb a 2us\n");
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EFORMAT);
    assert_non_null(strstr(tsync_ctx_error(ctx), "twice"));
    remove(path);
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EIO);
    EXPECT(t, tl, 1, 0, 120);
    tsync_timeline_free(tl);
    tsync_ctx_free(ctx);
    free(path);
    tsync_trace_free(t);
}

/* ---- bad input ---------------------------------------------------------------------------- */

static void test_bad_options(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 0 100:s:m; L1@b: 0 120:r:m");
    tsync_trace *other = tg_parse("L0@a: 0");
    tsync_timeline *tl = NULL, *tl_other = NULL;
    tsync_clc_result *r = NULL;
    tsync_clc_opts o;
    tsync_ctx *ctx = NULL;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    assert_int_equal(tsync_timeline_new(&tl_other, other, ctx), 0);
    o = (tsync_clc_opts)TSYNC_CLC_OPTS_INIT;
    o.gamma = 1.5;
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "gamma"));
    o = (tsync_clc_opts)TSYNC_CLC_OPTS_INIT;
    o.max_passes = 0;
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EINVAL);
    o = (tsync_clc_opts)TSYNC_CLC_OPTS_INIT;
    o.max_slope = 0;
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EINVAL);
    o = (tsync_clc_opts)TSYNC_CLC_OPTS_INIT;
    o.latency_inter_s = -1;
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EINVAL);
    o.version = 99;
    assert_int_equal(tsync_clc_run(&r, t, tl, &o, ctx), TSYNC_EINVAL);
    assert_int_equal(tsync_clc_run(&r, t, tl_other, NULL, ctx), TSYNC_EINVAL);
    /* A message that points past the end of its location. */
    t->messages[0].recv_idx = 7;
    assert_int_equal(tsync_clc_run(&r, t, tl, NULL, ctx), TSYNC_EINVAL);
    assert_non_null(strstr(tsync_ctx_error(ctx), "message 0"));
    assert_null(r);
    EXPECT(t, tl, 1, 0, 120);
    tsync_timeline_free(tl);
    tsync_timeline_free(tl_other);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
    tsync_trace_free(other);
}

/* Receives that wait on each other's later sends: impossible in a real run. The
 * stage goes on without them, says so, and keeps its other guarantees. */
static void log_count(enum tsync_log_level level, const char *msg, void *payload)
{
    (void)level;
    if (strstr(msg, "cycle"))
        ++*(int *)payload;
}

static void test_cycle(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 0 10:r:x 20:s:y 30; L1@b: 0 10:r:y 20:s:x 30");
    tsync_timeline *tl = NULL;
    tsync_clc_result *r = NULL;
    tsync_ctx *ctx = NULL;
    int warned = 0;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync_ctx_set_log(ctx, log_count, &warned);
    assert_int_equal(tsync_timeline_new(&tl, t, ctx), 0);
    assert_int_equal(tsync_clc_run(&r, t, tl, NULL, ctx), 0);
    assert_int_equal(r->ignored, 1);
    assert_int_equal(warned, 1);
    /* L0's receive went first without its send; L1's then waits for L0's send. */
    EXPECT(t, tl, 0, 0, 10, 20, 30);
    assert_true(tsync_timeline_times(tl, 1)[1] >= 20 + 1000);
    tsync_clc_result_free(r);
    tsync_timeline_free(tl);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

/* One receive event that two messages end at (a mis-matched trace): the lists of
 * the stage fall back from their bitmap ranks to a sort; the receive waits for
 * both sends, in either order of the messages. L2's receive at 10 gets max(100,
 * 50) + 10 = 110, a jump of 100 (over its own 10); gamma 1 keeps the distances
 * after it. The jump's interval starts at L2's first event, before which nothing
 * lies: nothing moves backward. */
static void test_receive_twice(void **state)
{
    tsync_clc_opts o = exact_opts();
    (void)state;
    for (int order = 0; order < 2; order++) {
        tsync_trace *t = tg_parse("L0@a: 0 100:s:a 200; L1@b: 0 50:s:b 300;"
                                  "L2@c: 0 10:r:a 20:r:b 400");
        tsync_clc_result *r;
        tsync_timeline *tl;
        assert_int_equal(t->n_messages, 2);
        t->messages[1].recv_idx = t->messages[0].recv_idx;    /* b ends where a does */
        if (order) {
            struct tsync_message m = t->messages[0];
            t->messages[0] = t->messages[1];
            t->messages[1] = m;
        }
        tl = run_clc(t, &o, &r);
        EXPECT(t, tl, 2, 0, 110, 120, 500);
        EXPECT(t, tl, 0, 0, 100, 200);
        EXPECT(t, tl, 1, 0, 50, 300);
        assert_int_equal(r->receives, 1);
        assert_int_equal(r->corrected_p2p, 1);
        assert_int_equal(violations(t, tl, &o), 0);
        case_free(t, tl, r);
    }
}

/* Asserts that two results of the stage agree in everything but the memory held
 * (byte for byte: both come from calloc, padding included, and memcpy keeps it). */
static void same_result(const tsync_clc_result *a, const tsync_clc_result *b)
{
    tsync_clc_result x, y;
    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    x.memory = y.memory = 0;
    assert_memory_equal(&x, &y, sizeof(x));
}

/* The entry points of the pipeline (clc_api.h), which keep their input: the
 * same result as tsync_clc_run on a copy, and the input untouched. */
static void test_keep_input(void **state)
{
    static const char *spec = "L0@a: -100 0 500:s:m 1000 2000; L1@b: 10 100:r:m 300 400;"
                              "L2@a: 5 6; off 0 1000 200; off 0 0 100; off 1 50 -30";
    tsync_trace *t = tg_parse(spec);
    tsync_timeline *raw = NULL, *pre = NULL, *out = NULL, *tl;
    tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
    tsync_clc_result *r1, *r2 = NULL;
    uint32_t mapped = 0;
    uint64_t records = 0;
    tsync_ctx *ctx = NULL;
    (void)state;

    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tl = run_clc(t, &o, &r1);                         /* presync inside */
    assert_int_equal(tsync_timeline_new(&raw, t, ctx), 0);
    assert_int_equal(tsync__clc_presync_new(&pre, &mapped, &records, t, raw, ctx), 0);
    assert_non_null(pre);
    assert_int_equal(mapped, 2);
    assert_int_equal(records, 3);
    EXPECT(t, raw, 0, -100, 0, 500, 1000, 2000);    /* the source stays */
    EXPECT(t, pre, 0, -10, 100, 650, 1200, 2300);
    EXPECT(t, pre, 1, -20, 70, 270, 370);
    EXPECT(t, pre, 2, 5, 6);

    /* Pre-synchronization would change the input: refused. */
    assert_int_equal(tsync__clc_run_new(&r2, &out, t, pre, &o, ctx), TSYNC_EINVAL);
    assert_null(r2);
    assert_null(out);
    o.presync = 0;
    if (tsync__clc_run_new(&r2, &out, t, pre, &o, ctx))
        fail_msg("tsync__clc_run_new: %s", tsync_ctx_error(ctx));
    EXPECT(t, pre, 0, -10, 100, 650, 1200, 2300);   /* the input stays */
    for (tsync_loc l = 0; l < t->n_locations; l++)
        assert_memory_equal(tsync_timeline_times(out, l), tsync_timeline_times(tl, l),
                            t->locations[l].n_events * sizeof(tsync_time));
    r2->presync = r1->presync;                        /* the command sets these three */
    r2->presync_locations = mapped;
    r2->offset_records = records;
    same_result(r1, r2);
    tsync_clc_result_free(r2);
    tsync_timeline_free(out);

    /* No ClockOffset records: no new timeline. */
    tsync_trace_free(t);
    t = tg_parse("L0@a: 1 2");
    tsync_timeline_free(pre);
    tsync_timeline_free(raw);
    assert_int_equal(tsync_timeline_new(&raw, t, ctx), 0);
    assert_int_equal(tsync__clc_presync_new(&pre, &mapped, &records, t, raw, ctx), 0);
    assert_null(pre);
    assert_int_equal(mapped, 0);
    assert_int_equal(records, 0);

    tsync_clc_result_free(r1);
    tsync_timeline_free(tl);
    tsync_timeline_free(raw);
    tsync_ctx_free(ctx);
    tsync_trace_free(t);
}

/* ---- reports ----------------------------------------------------------------------------- */

static void test_report(void **state)
{
    tsync_trace *t = tg_parse("L0@a: 100 200:s:m 300; L1@b: 0 50 150:r:m 250");
    tsync_clc_result *r;
    tsync_timeline *tl = run_clc(t, NULL, &r);
    char *text = tsync_clc_result_json(r), buf[4096];
    json_t *j = json_loads(text, 0, NULL);
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    (void)state;
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "corrected")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "passes")), (json_int_t)r->passes);
    assert_int_equal(json_array_size(json_object_get(j, "pass_gamma")), r->passes);
    assert_true(json_real_value(json_object_get(j, "max_jump_s")) > 1e-6);
    assert_non_null(f);
    tsync_clc_result_print(r, f);
    fclose(f);
    assert_non_null(strstr(buf, "1 corrected explicitly"));
    assert_non_null(strstr(buf, "gamma 0.99999"));
    json_decref(j);
    free(text);
    tsync_clc_result_free(r);
    tsync_clc_result_free(NULL);
    tsync_timeline_free(tl);
    tsync_trace_free(t);
}

/* ---- property tests on random traces ------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

#define TRUE_LATENCY 2000 /* true minimum latency, ticks: above both mu used below */

/* A random MPI-like run in true time (messages take >= TRUE_LATENCY; a collective's
 * ends come TRUE_LATENCY after its last begin), stamped with clocks that have random
 * offsets (+-20 us) and drifts (+-100 ppm): so violations, but no cycles. */
static tsync_trace *random_trace(void)
{
    struct pend { tsync_loc src, dst; tsync_time t; uint64_t idx; int used; } pend[512];
    tsync_trace *t = tsync__trace_alloc("random.otf2");
    uint32_t nl = 2 + (uint32_t)(rnd() % 5), nn = 1 + (uint32_t)(rnd() % nl), npend = 0;
    int64_t now[8] = { 0 }, off[8];
    double drift[8];
    unsigned steps = 50 + (unsigned)(rnd() % 300);
    t->timer_resolution = 1000000000;
    for (uint32_t l = 0; l < nl; l++) {
        char node[8];
        snprintf(node, sizeof(node), "n%u", (unsigned)(rnd() % nn));
        tg_location(t, l, node);
        off[l] = (int64_t)(rnd() % 40001) - 20000;
        drift[l] = ((double)(rnd() % 2001) - 1000.0) * 1e-7;
    }
    for (unsigned s = 0; s < steps; s++) {
        tsync_loc l = (tsync_loc)(rnd() % nl);
        unsigned op = (unsigned)(rnd() % 20);
        now[l] += (int64_t)(rnd() % 3000);
        if (op < 8) {
            tg_push(t, l, now[l], TSYNC_EV_OTHER);
        } else if (op < 12 && npend < 512) {
            tsync_loc d = (tsync_loc)(rnd() % nl);
            pend[npend].src = l, pend[npend].dst = d, pend[npend].t = now[l], pend[npend].used = 0;
            pend[npend++].idx = tg_push(t, l, now[l], TSYNC_EV_SEND);
        } else if (op < 18) {
            uint32_t k = 0;
            while (k < npend && (pend[k].used || pend[k].dst != l ||
                                 pend[k].t + TRUE_LATENCY > now[l]))
                k++;
            if (k == npend) {
                tg_push(t, l, now[l], TSYNC_EV_OTHER);
            } else {
                struct tsync_message m = { pend[k].src, l, pend[k].idx,
                                           tg_push(t, l, now[l], TSYNC_EV_RECV) };
                pend[k].used = 1;
                t->messages = realloc(t->messages, (t->n_messages + 1) * sizeof(*t->messages));
                assert_non_null(t->messages);
                t->messages[t->n_messages++] = m;
            }
        } else {
            /* A collective over a random subset (in location order = comm rank). */
            struct tsync_collective co;
            int64_t tmax = 0, b[8];
            uint32_t mask = (uint32_t)(rnd() % ((1u << nl) - 1)) + 1, n = 0;
            memset(&co, 0, sizeof(co));
            co.cls = (uint8_t)(rnd() % 6 == 5 ? TSYNC_COLL_NONE : rnd() % 5);
            co.first_member = t->n_members;
            for (uint32_t i = 0; i < nl; i++)
                if (mask >> i & 1) {
                    b[i] = now[i] + (int64_t)(rnd() % 1000);
                    if (b[i] > tmax)
                        tmax = b[i];
                    n++;
                }
            co.root = rnd() % 4 ? (uint32_t)(rnd() % n) : TSYNC_NONE;
            co.n_members = n;
            t->members = realloc(t->members, (t->n_members + n) * sizeof(*t->members));
            t->collectives = realloc(t->collectives, (t->n_collectives + 1) * sizeof(co));
            assert_true(t->members && t->collectives);
            n = 0;
            for (uint32_t i = 0; i < nl; i++) {
                struct tsync_coll_member *m;
                if (!(mask >> i & 1))
                    continue;
                m = &t->members[t->n_members + n];
                m->loc = i;
                m->comm_rank = n++;
                m->begin_idx = tg_push(t, i, b[i], TSYNC_EV_COLL_BEGIN);
                now[i] = tmax + TRUE_LATENCY + (int64_t)(rnd() % 1000);
                m->end_idx = tg_push(t, i, now[i], TSYNC_EV_COLL_END);
                m->sends = (uint8_t)(rnd() % 5 != 0);
                m->recvs = (uint8_t)(rnd() % 5 != 0);
            }
            t->n_members += n;
            t->collectives[t->n_collectives++] = co;
        }
    }
    /* Every location has an event; then true time -> its clock. */
    for (tsync_loc l = 0; l < nl; l++) {
        struct tsync_location *loc = &t->locations[l];
        if (loc->n_events == 0)
            tg_push(t, l, now[l], TSYNC_EV_OTHER);
        for (uint64_t j = 0; j < loc->n_events; j++)
            loc->time[j] += off[l] + (int64_t)(drift[l] * (double)loc->time[j]);
    }
    return t;
}

/* The node-pair latencies of a latency file, for the brute force below. */
struct pairs { uint32_t n; uint32_t a[16], b[16]; int64_t mu[16]; };

static int64_t pair_mu(const struct pairs *p, uint32_t from, uint32_t to, int64_t intra,
                       int64_t inter)
{
    for (uint32_t i = 0; i < p->n; i++)
        if ((p->a[i] == from && p->b[i] == to) || (p->a[i] == to && p->b[i] == from))
            return p->mu[i];
    return from == to ? intra : inter;
}

/* Eq. 4' by brute force with gamma = 0 and delta = 0 (Lamport's clock with latencies):
 * LC'(e) = max(C(e), LC'(previous), max over every (logical) send to e of LC'(send) +
 * mu), every S x R pair visited, with the collective sets of tsync_check_run. */
static void brute_force(const tsync_trace *t, tsync_timeline *in, tsync_timeline *out,
                        const struct pairs *p, int64_t intra, int64_t inter)
{
    for (tsync_loc l = 0; l < t->n_locations; l++) {
        const tsync_time *c = tsync_timeline_times(in, l), *lc = tsync_timeline_times(out, l);
        for (uint64_t j = 0; j < t->locations[l].n_events; j++) {
            int64_t want = c[j];
            if (j && lc[j - 1] > want)
                want = lc[j - 1];
            for (size_t i = 0; i < t->n_messages; i++) {
                const struct tsync_message *m = &t->messages[i];
                if (m->recv_loc == l && m->recv_idx == j) {
                    int64_t v = tsync_timeline_times(out, m->send_loc)[m->send_idx] +
                                pair_mu(p, t->locations[m->send_loc].node, t->locations[l].node,
                                        intra, inter);
                    if (v > want)
                        want = v;
                }
            }
            for (size_t q = 0; q < t->n_collectives; q++) {
                const struct tsync_collective *co = &t->collectives[q];
                const struct tsync_coll_member *m = &t->members[co->first_member];
                for (uint32_t r = 0; r < co->n_members; r++) {
                    int in_r = co->cls == TSYNC_COLL_N_TO_ONE && co->root != TSYNC_NONE
                                   ? m[r].comm_rank == co->root : m[r].recvs;
                    if (co->cls == TSYNC_COLL_NONE || m[r].loc != l || m[r].end_idx != j || !in_r)
                        continue;
                    for (uint32_t k = 0; k < co->n_members; k++) {
                        int in_s = co->cls == TSYNC_COLL_ONE_TO_N && co->root != TSYNC_NONE
                                       ? m[k].comm_rank == co->root : m[k].sends;
                        int64_t v;
                        if (!in_s || m[k].loc == l ||
                            (co->cls == TSYNC_COLL_SCAN && m[k].comm_rank > m[r].comm_rank) ||
                            (co->cls == TSYNC_COLL_EXSCAN && m[k].comm_rank >= m[r].comm_rank))
                            continue;
                        v = tsync_timeline_times(out, m[k].loc)[m[k].begin_idx] +
                            pair_mu(p, t->locations[m[k].loc].node, t->locations[l].node, intra,
                                    inter);
                        if (v > want)
                            want = v;
                    }
                }
            }
            if (lc[j] != want)
                fail_msg("seed %llu: location %u event %llu: LC' %lld, Eq. 4' says %lld",
                         (unsigned long long)rng_state, l, (unsigned long long)j,
                         (long long)lc[j], (long long)want);
        }
    }
}

/* Runs the clc with o on a fresh timeline, asserts success; returns the timeline. */
static tsync_timeline *clc_on(const tsync_trace *t, tsync_timeline *tl, const tsync_clc_opts *o,
                              tsync_clc_result **r)
{
    tsync_ctx *ctx = NULL;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    if (tsync_clc_run(r, t, tl, o, ctx))
        fail_msg("seed %llu: %s", (unsigned long long)rng_state, tsync_ctx_error(ctx));
    tsync_ctx_free(ctx);
    return tl;
}

static void test_random_properties(void **state)
{
    const char *env = getenv("TSYNC_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : 20090121;
    char *path = tmp_path("clc_random_latency.txt");
    (void)state;
    printf("test_random_properties: seed %llu (TSYNC_TEST_SEED to change)\n",
           (unsigned long long)seed);
    uint64_t corrected = 0, collective = 0, limited = 0, amortized = 0;
    rng_state = seed;
    for (int iter = 0; iter < 300; iter++) {
        tsync_trace *t = random_trace();
        tsync_timeline *in = NULL, *tl = NULL, *again = NULL;
        tsync_clc_result *r = NULL, *r2 = NULL;
        tsync_clc_opts o = TSYNC_CLC_OPTS_INIT;
        struct pairs pairs = { 0 };
        uint64_t case_seed = rng_state;

        o.delta_ticks = (int64_t)(rnd() % 3);
        o.gamma = rnd() % 2 ? 0.99999 : 0.99;
        o.max_slope = rnd() % 2 ? 0.01 : 0.3;
        assert_int_equal(tsync_timeline_new(&in, t, NULL), 0);
        assert_int_equal(tsync_timeline_new(&tl, t, NULL), 0);
        clc_on(t, tl, &o, &r);
        assert_int_equal(r->ignored, 0);

        /* The command's entry point, which keeps its input, agrees, on three threads
         * (they verify the result location by location), and so does Table 4 as
         * computed on its own, to the bit. */
        {
            tsync_timeline *kept = NULL;
            tsync_clc_opts ko = o;
            tsync_deviation pos, dist;
            tsync_ctx *ctx3 = NULL;
            ko.presync = 0;
            assert_int_equal(tsync_ctx_new(&ctx3), 0);
            tsync_ctx_set_threads(ctx3, 3);
            assert_int_equal(tsync__clc_run_new(&r2, &kept, t, in, &ko, ctx3), 0);
            assert_int_equal(tsync_deviation_compute(&pos, &dist, t, in, kept, ctx3), 0);
            assert_memory_equal(&pos, &r->position, sizeof(pos));
            assert_memory_equal(&dist, &r->distance, sizeof(dist));
            tsync_ctx_free(ctx3);
            for (tsync_loc l = 0; l < t->n_locations; l++) {
                assert_memory_equal(tsync_timeline_times(kept, l), tsync_timeline_times(tl, l),
                                    t->locations[l].n_events * sizeof(tsync_time));
                assert_memory_equal(tsync_timeline_times(in, l), t->locations[l].time,
                                    t->locations[l].n_events * sizeof(tsync_time));
            }
            r2->presync = r->presync;
            same_result(r, r2);
            tsync_clc_result_free(r2);
            tsync_timeline_free(kept);
        }
        corrected += r->corrected;
        collective += r->corrected_collective;
        limited += r->limited_jumps;
        amortized += r->amortized_events;

        /* Zero violations with the same latencies; no event earlier, no reordering. */
        if (violations(t, tl, &o))
            fail_msg("seed %llu: violations remain", (unsigned long long)case_seed);
        for (tsync_loc l = 0; l < t->n_locations; l++) {
            const tsync_time *c = tsync_timeline_times(in, l), *lc = tsync_timeline_times(tl, l);
            for (uint64_t j = 0; j < t->locations[l].n_events; j++) {
                assert_true(lc[j] >= c[j]);
                assert_true(j == 0 ||
                            lc[j] >= lc[j - 1] + (c[j] - c[j - 1] < o.delta_ticks
                                                      ? c[j] - c[j - 1] : o.delta_ticks));
            }
        }

        /* Idempotent: its own output comes back unchanged. */
        assert_int_equal(tsync_timeline_new(&again, t, NULL), 0);
        for (tsync_loc l = 0; l < t->n_locations; l++)
            memcpy(tsync_timeline_times(again, l), tsync_timeline_times(tl, l),
                   t->locations[l].n_events * sizeof(tsync_time));
        clc_on(t, again, &o, &r2);
        assert_int_equal(r2->corrected, 0);
        assert_int_equal(r2->moved_events, 0);
        assert_int_equal(r2->passes, 1);
        for (tsync_loc l = 0; l < t->n_locations; l++)
            assert_memory_equal(tsync_timeline_times(again, l), tsync_timeline_times(tl, l),
                                t->locations[l].n_events * sizeof(tsync_time));
        tsync_clc_result_free(r2);
        tsync_timeline_free(again);
        tsync_clc_result_free(r);
        tsync_timeline_free(tl);

        /* Forward amortization alone (gamma 0, delta 0, no backward) against the brute
         * force, every third trace with node-pair latencies from a file. */
        o = (tsync_clc_opts)TSYNC_CLC_OPTS_INIT;
        o.gamma = 0;
        o.delta_ticks = 0;
        o.max_passes = 1;
        o.max_slope = 1e12;
        if (iter % 3 == 0) {
            char text[1024];
            int n = 0;
            pairs.n = (uint32_t)(rnd() % 5);
            for (uint32_t i = 0; i < pairs.n; i++) {
                pairs.a[i] = (uint32_t)(rnd() % t->n_nodes);
                pairs.b[i] = (uint32_t)(rnd() % t->n_nodes);
                for (uint32_t k = 0; k < i; k++)
                    if ((pairs.a[k] == pairs.a[i] && pairs.b[k] == pairs.b[i]) ||
                        (pairs.a[k] == pairs.b[i] && pairs.b[k] == pairs.a[i]))
                        pairs.a[i] = pairs.b[i] = UINT32_MAX;
                pairs.mu[i] = (int64_t)(rnd() % 3000);
                if (pairs.a[i] != UINT32_MAX)
                    n += snprintf(text + n, sizeof(text) - (size_t)n, "%s %s %lldns\n",
                                  t->nodes[pairs.a[i]].name, t->nodes[pairs.b[i]].name,
                                  (long long)pairs.mu[i]);
            }
            text[n] = '\0';
            write_file(path, text);
            o.latency_file = path;
        }
        assert_int_equal(tsync_timeline_new(&tl, t, NULL), 0);
        clc_on(t, tl, &o, &r);
        brute_force(t, in, tl, &pairs, 300, 1000);
        tsync_clc_result_free(r);
        tsync_timeline_free(tl);
        tsync_timeline_free(in);
        tsync_trace_free(t);
    }
    /* The traces exercised what they were made for. */
    printf("test_random_properties: %llu corrected (%llu collective), %llu amortized events, "
           "%llu jumps bent by limits\n", (unsigned long long)corrected,
           (unsigned long long)collective, (unsigned long long)amortized,
           (unsigned long long)limited);
    assert_true(corrected > 100 && collective > 10 && limited > 10 && amortized > 100);
    remove(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delta_keeps_shared_ticks),
        cmocka_unit_test(test_fig1),
        cmocka_unit_test(test_gamma_term),
        cmocka_unit_test(test_fig2_piecewise),
        cmocka_unit_test(test_coll_n_to_n),
        cmocka_unit_test(test_coll_no_data),
        cmocka_unit_test(test_coll_one_to_n),
        cmocka_unit_test(test_coll_n_to_one),
        cmocka_unit_test(test_coll_scan_exscan),
        cmocka_unit_test(test_coll_send_limit),
        cmocka_unit_test(test_coll_begin_is_end),
        cmocka_unit_test(test_presync),
        cmocka_unit_test(test_presync_bad),
        cmocka_unit_test(test_gamma_passes),
        cmocka_unit_test(test_latency_file),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_receive_twice),
        cmocka_unit_test(test_keep_input),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_random_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
