/* test_otf2_write.c - the OTF2 writer: the same files whatever the number of
 * threads that write them, and the same first error with nothing left behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tracesync/clc.h"
#include "tracesync/sim.h"
#include "tracesync/trace.h"
#include "util/fs.h"
#include "util/str.h"
#include "tmpfile.h"

/* A simulated run (8 ranks on 4 nodes, ClockOffset records, every collective
 * class) in a fresh $TSYNC_TEST_TMP/otf2_write/<name>/sim, read, with the times
 * the clc gives it. */
struct sim {
    char dir[4096];
    tsync_ctx *ctx;
    tsync_trace *t;
    tsync_timeline *tl;
};

static void sim_open(struct sim *s, const char *name)
{
    tsync_sim_opts so = TSYNC_SIM_OPTS_INIT;
    tsync_clc_opts co = TSYNC_CLC_OPTS_INIT;
    tsync_sim_result sr;
    tsync_clc_result *cr;
    char *sim, *anchor;

    tmp_fresh_dir("otf2_write", name, s->dir, sizeof(s->dir));
    sim = tsync__strfmt("%s/sim", s->dir);
    anchor = tsync__strfmt("%s/trace.otf2", sim);
    so.app.events = 20000;
    so.app.duration_s = 0;
    assert_int_equal(tsync_ctx_new(&s->ctx), 0);
    assert_int_equal(tsync_sim_run(&sr, &so, sim, s->ctx), 0);
    assert_int_equal(tsync_trace_open(&s->t, anchor, NULL, s->ctx), 0);
    assert_int_equal(tsync_timeline_new(&s->tl, s->t, s->ctx), 0);
    assert_int_equal(tsync_clc_run(&cr, s->t, s->tl, &co, s->ctx), 0);
    assert_true(cr->presync_locations > 0); /* times changed: ClockOffsets are dropped */
    tsync_clc_result_free(cr);
    free(sim);
    free(anchor);
}

static void sim_close(struct sim *s)
{
    tsync_timeline_free(s->tl);
    tsync_trace_free(s->t);
    tsync_ctx_free(s->ctx);
    tsync__remove_tree(s->dir);
}

/* The contents of dir/rel; *n its size. */
static char *slurp(const char *dir, const char *rel, size_t *n)
{
    char *path = tsync__strfmt("%s/%s", dir, rel), *buf;
    FILE *f = fopen(path, "rb");
    long size;
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size = ftell(f);
    rewind(f);
    buf = malloc((size_t)size + 1);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    free(path);
    *n = (size_t)size;
    return buf;
}

static void assert_same_file(const char *a, const char *b, const char *rel)
{
    size_t na, nb;
    char *x = slurp(a, rel, &na), *y = slurp(b, rel, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(x, y, na);
    free(x);
    free(y);
}

/* Every definition and event file is the same for 2, 3, 8 (more than locations)
 * and 0 (one per processor) threads as for 1. The anchor file differs only in
 * its trace identifier, which libotf2 draws anew for every archive. */
static void test_threads_same_files(void **state)
{
    static const unsigned threads[] = { 2, 3, 8, 0 };
    char *ref, *out, rel[64];
    struct sim s;
    (void)state;

    sim_open(&s, "same");
    ref = tsync__strfmt("%s/out1", s.dir);
    assert_int_equal(tsync_trace_write(s.t, s.tl, ref, s.ctx), 0);
    for (size_t k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
        out = tsync__strfmt("%s/out%u", s.dir, threads[k] + 10);
        tsync_ctx_set_threads(s.ctx, threads[k]);
        for (int again = 0; again < 2; again++) {
            assert_int_equal(tsync_trace_write(s.t, s.tl, out, s.ctx), 0);
            assert_int_equal(tmp_entries(out), 3); /* anchor, .def, directory: no leftovers */
            assert_same_file(ref, out, "trace.def");
            for (tsync_loc l = 0; l < tsync_trace_location_count(s.t); l++) {
                unsigned long long id = (unsigned long long)tsync_trace_location_ref(s.t, l);
                snprintf(rel, sizeof(rel), "trace/%llu.evt", id);
                assert_same_file(ref, out, rel);
                snprintf(rel, sizeof(rel), "trace/%llu.def", id);
                assert_same_file(ref, out, rel);
            }
        }
        free(out);
    }
    free(ref);
    sim_close(&s);
}

/* Times that go back on two locations (libotf2 refuses them on the thread that
 * writes the location): every number of threads reports the first location, as
 * writing in order would, and leaves nothing in the output directory. */
static void test_threads_first_error(void **state)
{
    char *out, err1[1024];
    struct sim s;
    (void)state;

    sim_open(&s, "error");
    for (tsync_loc l = 2; l < 8; l += 3) { /* locations 2 and 5: a late event goes back */
        tsync_time *x = tsync_timeline_times(s.tl, l);
        x[100] = x[99] - 1;
    }
    out = tsync__strfmt("%s/out", s.dir);
    assert_int_equal(tsync_trace_write(s.t, s.tl, out, s.ctx), TSYNC_EIO);
    snprintf(err1, sizeof(err1), "%s", tsync_ctx_error(s.ctx));
    assert_non_null(strstr(err1, "location 2 "));
    assert_non_null(strstr(err1, "trace.otf2"));
    assert_int_equal(access(out, F_OK), -1); /* made by the write, gone with it */
    for (unsigned threads = 2; threads <= 8; threads++) {
        tsync_ctx_set_threads(s.ctx, threads);
        for (int again = 0; again < 3; again++) {
            assert_int_equal(tsync_trace_write(s.t, s.tl, out, s.ctx), TSYNC_EIO);
            assert_string_equal(err1, tsync_ctx_error(s.ctx));
            assert_int_equal(access(out, F_OK), -1);
        }
    }
    free(out);
    sim_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_same_files),
        cmocka_unit_test(test_threads_first_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
