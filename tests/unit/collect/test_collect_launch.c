/* test_collect_launch.c - how `tracesync record` starts a command under the
 * collector (collect/launch.c): the library's place, the launcher's command line
 * and environment, the program's name, the output directory. */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tracesync/collect_core.h"

static char root[64];

/* A scratch directory with bin/mpirun -> bin/orterun (as Debian's Open MPI),
 * bin/mpiexec.hydra (another MPI), bin/app, and a build tree whose tracesync has
 * src/collect/libtracesync-collect.so next to it. */
static void touch(const char *rel, int mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    assert_int_equal(chmod(path, (mode_t)mode), 0);
}

static int setup(void **state)
{
    char path[256], target[256];
    (void)state;
    snprintf(root, sizeof root, "/tmp/test_collect_launch.XXXXXX");
    if (!mkdtemp(root))
        return -1;
    for (const char *d = "bin\0build\0build/src\0build/src/collect\0"; *d; d += strlen(d) + 1) {
        snprintf(path, sizeof path, "%s/%s", root, d);
        mkdir(path, 0777);
    }
    touch("bin/orterun", 0755);
    touch("bin/mpiexec.hydra", 0755);
    touch("bin/app", 0755);
    touch("build/tracesync", 0755);
    touch("build/src/collect/" TSC_COLLECT_LIB_NAME, 0644);
    snprintf(path, sizeof path, "%s/bin/mpirun", root);
    snprintf(target, sizeof target, "%s/bin/orterun", root);
    if (symlink(target, path) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/bin:/usr/bin:/bin", root);
    setenv("PATH", path, 1);
    unsetenv("LD_PRELOAD");
    unsetenv("TRACESYNC_COLLECT_LIB");
    return chdir(root);
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    if (chdir("/") != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_find_collector(void **state)
{
    char self[256], out[4096], want[256], real[256];
    (void)state;
    snprintf(self, sizeof self, "%s/build/tracesync", root);
    snprintf(want, sizeof want, "%s/build/src/collect/%s", root, TSC_COLLECT_LIB_NAME);
    assert_non_null(realpath(want, real));
    assert_int_equal(tsc_launch_find_collector(self, out, sizeof out), 0);
    assert_string_equal(out, real);
    /* installed: not in a build tree, nothing at LIBDIR: every place is named */
    snprintf(self, sizeof self, "%s/bin/app", root);
    assert_int_equal(tsc_launch_find_collector(self, out, sizeof out), -1);
    assert_non_null(strstr(out, "bin/src/collect/" TSC_COLLECT_LIB_NAME));
    assert_non_null(strstr(out, "bin/../"));
    /* the variable wins, and only it is tried */
    setenv("TRACESYNC_COLLECT_LIB", want, 1);
    assert_int_equal(tsc_launch_find_collector(self, out, sizeof out), 0);
    assert_string_equal(out, want);
    setenv("TRACESYNC_COLLECT_LIB", "/nonexistent/lib.so", 1);
    assert_int_equal(tsc_launch_find_collector(self, out, sizeof out), -1);
    assert_string_equal(out, "TRACESYNC_COLLECT_LIB=/nonexistent/lib.so");
    unsetenv("TRACESYNC_COLLECT_LIB");
}

static void test_openmpi(void **state)
{
    (void)state;
    assert_true(tsc_launch_is_openmpi("mpirun"));    /* through PATH and the symlink */
    assert_true(tsc_launch_is_openmpi("orterun"));
    assert_false(tsc_launch_is_openmpi("mpiexec.hydra"));
    assert_false(tsc_launch_is_openmpi("app"));
    assert_false(tsc_launch_is_openmpi("nonexistent"));
}

static void test_program(void **state)
{
    (void)state;
    char *mpirun[] = { "mpirun", "-np", "4", "--host", "a,b", "app", "in.lj" };
    char *direct[] = { "./bin/app", "x" };
    char *none[] = { "mpiexec", "-n", "2" };
    assert_string_equal(tsc_launch_program(7, mpirun), "app");
    assert_string_equal(tsc_launch_program(2, direct), "app");
    assert_string_equal(tsc_launch_program(3, none), "program");
}

static void test_fresh_dir(void **state)
{
    char dir[64];
    (void)state;
    assert_int_equal(tsc_launch_fresh_dir("app", dir, sizeof dir), 0);
    assert_string_equal(dir, "tracesync-app");
    assert_int_equal(tsc_launch_fresh_dir("app", dir, sizeof dir), 0);
    assert_string_equal(dir, "tracesync-app.1");
    assert_null(tsc_launch_archive_in("tracesync-app"));
    assert_int_equal(mkdir("tracesync-app/global", 0777), 0);
    assert_string_equal(tsc_launch_archive_in("tracesync-app"), "global");
}

/* Open MPI: -x after the launcher, the environment unchanged; TRACESYNC_COLLECT_LIB
 * is record's own. */
static void test_prepare_openmpi(void **state)
{
    (void)state;
    char *cmd[] = { "mpirun", "-np", "2", "app" };
    struct tsc_launch l;
    setenv("LD_PRELOAD", "/asan.so", 1);
    setenv("TRACESYNC_SYNC_MAX_MESSAGES", "10", 1);
    setenv("TRACESYNC_COLLECT_LIB", "/lib.so", 1);
    assert_int_equal(tsc_launch_prepare(&l, 4, cmd, "/lib.so"), 0);
    assert_int_equal(l.argc, 8);
    assert_string_equal(l.argv[0], "mpirun");
    assert_string_equal(l.argv[1], "-x");
    assert_string_equal(l.argv[2], "LD_PRELOAD=/asan.so:/lib.so");
    assert_string_equal(l.argv[3], "-x");
    assert_string_equal(l.argv[4], "TRACESYNC_SYNC_MAX_MESSAGES");
    assert_string_equal(l.argv[5], "-np");
    assert_string_equal(l.argv[7], "app");
    assert_null(l.argv[8]);
    int preload = 0;
    for (size_t i = 0; i < l.envc; i++)
        preload += !strcmp(l.envp[i], "LD_PRELOAD=/asan.so");
    assert_int_equal(preload, 1);
    assert_null(l.envp[l.envc]);
    tsc_launch_free(&l);
    unsetenv("TRACESYNC_SYNC_MAX_MESSAGES");
    unsetenv("TRACESYNC_COLLECT_LIB");
    unsetenv("LD_PRELOAD");
}

/* Any other command: unchanged, LD_PRELOAD in the environment (once). */
static void test_prepare_other(void **state)
{
    (void)state;
    char *cmd[] = { "mpiexec.hydra", "-n", "2", "app" };
    struct tsc_launch l;
    setenv("LD_PRELOAD", "/asan.so", 1);
    assert_int_equal(tsc_launch_prepare(&l, 4, cmd, "/lib.so"), 0);
    assert_int_equal(l.argc, 4);
    assert_string_equal(l.argv[1], "-n");
    int preload = 0;
    for (size_t i = 0; i < l.envc; i++) {
        if (!strncmp(l.envp[i], "LD_PRELOAD=", 11)) {
            assert_string_equal(l.envp[i], "LD_PRELOAD=/asan.so:/lib.so");
            preload++;
        }
    }
    assert_int_equal(preload, 1);
    tsc_launch_free(&l);
    unsetenv("LD_PRELOAD");
    assert_int_equal(tsc_launch_prepare(&l, 4, cmd, "/lib.so"), 0);
    assert_string_equal(l.envp[l.envc - 1], "LD_PRELOAD=/lib.so");
    tsc_launch_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_collector),  cmocka_unit_test(test_openmpi),
        cmocka_unit_test(test_program),         cmocka_unit_test(test_fresh_dir),
        cmocka_unit_test(test_prepare_openmpi), cmocka_unit_test(test_prepare_other),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
