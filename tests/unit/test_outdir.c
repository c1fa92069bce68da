/* test_outdir.c - outputs held and moved into place together: all of them or none. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "tmpfile.h"
#include "tracesync/common.h"
#include "util/ctx.h"
#include "util/outdir.h"

/* The file's text ("" when missing), in buf. */
static const char *slurp(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t k = f ? fread(buf, 1, n - 1, f) : 0;
    if (f)
        fclose(f);
    buf[k] = '\0';
    return buf;
}

/* The one OUTDIR/.tracesync-* of this process, in buf. */
static void temporary_dir(const char *outdir, char *buf, size_t n)
{
    DIR *d = opendir(outdir);
    struct dirent *e;
    buf[0] = '\0';
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, ".tracesync-", 11) == 0)
            snprintf(buf, n, "%s/%s", outdir, e->d_name);
    closedir(d);
    assert_true(buf[0] != '\0');
}

static void test_held_outputs_land_together(void **state)
{
    char a[512], b[512], pa[600], pb[600], buf[64];
    tsync_ctx *ctx;
    (void)state;
    tmp_fresh_dir("outdir", "a", a, sizeof(a));
    tmp_fresh_dir("outdir", "b", b, sizeof(b));
    snprintf(pa, sizeof(pa), "%s/one.txt", a);
    snprintf(pb, sizeof(pb), "%s/two.txt", b);
    assert_int_equal(tsync_ctx_new(&ctx), 0);

    /* Held: nothing in place before the commit, both after it. */
    assert_int_equal(tsync_ctx_hold_outputs(ctx), 0);
    assert_int_equal(tsync_write_text_output(pa, "one\n", ctx), 0);
    assert_int_equal(tsync_write_text_output(pb, "two\n", ctx), 0);
    assert_string_equal(slurp(pa, buf, sizeof(buf)), "");
    assert_string_equal(slurp(pb, buf, sizeof(buf)), "");
    assert_int_equal(tsync_ctx_commit_outputs(ctx), 0);
    assert_string_equal(slurp(pa, buf, sizeof(buf)), "one\n");
    assert_string_equal(slurp(pb, buf, sizeof(buf)), "two\n");

    /* Dropped: the earlier outputs stay. */
    assert_int_equal(tsync_ctx_hold_outputs(ctx), 0);
    assert_int_equal(tsync_write_text_output(pa, "new one\n", ctx), 0);
    tsync_ctx_drop_outputs(ctx);
    assert_string_equal(slurp(pa, buf, sizeof(buf)), "one\n");

    /* The second cannot replace its earlier output (where that goes, a directory is
     * in the way): the first, already moved, goes back. */
    assert_int_equal(tsync_ctx_hold_outputs(ctx), 0);
    assert_int_equal(tsync_write_text_output(pa, "new one\n", ctx), 0);
    assert_int_equal(tsync_write_text_output(pb, "new two\n", ctx), 0);
    {
        char tmp[1024], blocker[1200];
        temporary_dir(b, tmp, sizeof(tmp));
        snprintf(blocker, sizeof(blocker), "%s/.old-two.txt", tmp);
        assert_int_equal(mkdir(blocker, 0777), 0);
        snprintf(blocker, sizeof(blocker), "%s/.old-two.txt/x", tmp);
        assert_int_equal(mkdir(blocker, 0777), 0);
    }
    assert_int_equal(tsync_ctx_commit_outputs(ctx), TSYNC_EIO);
    assert_non_null(strstr(tsync_ctx_error(ctx), "two.txt: cannot replace"));
    assert_string_equal(slurp(pa, buf, sizeof(buf)), "one\n");
    assert_string_equal(slurp(pb, buf, sizeof(buf)), "two\n");

    /* Not held: in place at once. */
    assert_int_equal(tsync_write_text_output(pa, "at once\n", ctx), 0);
    assert_string_equal(slurp(pa, buf, sizeof(buf)), "at once\n");
    tsync_ctx_free(ctx);
}

/* A failure inside the temporary directory names the files as they would have been
 * in OUTDIR, and says once that nothing was written. */
static void test_failure_names_outdir(void **state)
{
    static const char want[] = "out/t.otf2: rank 3: out/t/3.evt: File too large; nothing was written";
    const char *tmp = "out/.tracesync-7@h-abcdef";
    tsync_ctx *ctx;
    (void)state;
    assert_int_equal(tsync_ctx_new(&ctx), 0);
    tsync__fail(ctx, TSYNC_EIO, "%s/t.otf2: rank 3: %s/t/3.evt: File too large", tmp, tmp);
    assert_int_equal(tsync__outdir_failed(TSYNC_EIO, tmp, ctx), TSYNC_EIO);
    assert_string_equal(tsync_ctx_error(ctx), want);
    assert_int_equal(tsync_ctx_error_code(ctx), TSYNC_EIO);
    assert_int_equal(tsync__outdir_failed(TSYNC_EIO, tmp, ctx), TSYNC_EIO);
    assert_string_equal(tsync_ctx_error(ctx), want);
    /* Success leaves the context alone. */
    assert_int_equal(tsync__outdir_failed(TSYNC_OK, tmp, ctx), TSYNC_OK);
    assert_string_equal(tsync_ctx_error(ctx), want);
    tsync_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held_outputs_land_together),
        cmocka_unit_test(test_failure_names_outdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
