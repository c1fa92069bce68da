/* launch.h (internal) - running a command under the collector (`tracesync
 * record`): where libtracesync-collect.so is, the output directory, and the command
 * line and environment that give every MPI process the preload and the TRACESYNC_*
 * settings. MPI-free. */
#ifndef TSYNC_COLLECT_LAUNCH_H
#define TSYNC_COLLECT_LAUNCH_H

#include <stddef.h>

#define TSC_COLLECT_LIB_NAME "libtracesync-collect.so"

/* Finds the collector for the tracesync executable at `self`: the file that
 * TRACESYNC_COLLECT_LIB names when it is set (nothing else then); else next to
 * `self` in the build tree (DIR/src/collect/); else installed (DIR/../LIBDIR, then
 * the configured LIBDIR). Returns 0 with the path in `out`, or -1 with the places
 * tried (", " between them) in `out`. */
int tsc_launch_find_collector(const char *self, char *out, size_t size);

/* 1 when `cmd` (a command's first word) is Open MPI's launcher: mpirun, mpiexec
 * and orterun resolve to orterun (prterun in Open MPI 5). */
int tsc_launch_is_openmpi(const char *cmd);

/* The program a command runs, for naming the output directory: for a launcher
 * (mpirun, mpiexec, orterun, prterun, srun) the first later word that names an
 * executable file (a path, or found in PATH), else the first word; the base name,
 * pointing into argv; "program" when none fits. */
const char *tsc_launch_program(int argc, char *const *argv);

/* Makes a fresh directory "tracesync-PROGRAM" (".1", ".2", ... when taken) in the
 * current directory; its name in `dir`. Returns 0, or -1 with errno set. */
int tsc_launch_fresh_dir(const char *program, char *dir, size_t size);

/* The archive a directory already holds ("traces", "global" or "truth", which the
 * collector would have to make anew), or NULL. */
const char *tsc_launch_archive_in(const char *dir);

/* A command prepared to run under the collector. */
struct tsc_launch {
    char **argv, **envp;  /* NULL-terminated */
    size_t argc, envc;
};

/* Prepares `cmd` (argc words) to run with the collector `preload` and the
 * TRACESYNC_* variables of the current environment (TRACESYNC_COLLECT_LIB
 * excepted); argc >= 1. Open MPI's launcher forwards only the variables named with -x (to
 * remote nodes): it gets "-x LD_PRELOAD=... -x TRACESYNC_..." after its name and
 * keeps its own environment, so that the preload reaches the MPI processes only.
 * Any other command (a singleton MPI program, MPICH's mpiexec, srun: they pass the
 * whole environment on) runs unchanged with LD_PRELOAD set in its environment. An
 * LD_PRELOAD already set stays first (a sanitizer's runtime must). Returns 0, or
 * -1 when out of memory. */
int tsc_launch_prepare(struct tsc_launch *l, int argc, char *const *cmd, const char *preload);
void tsc_launch_free(struct tsc_launch *l);

#endif
