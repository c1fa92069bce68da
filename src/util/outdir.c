/* outdir.c - outputs written into OUTDIR/.tracesync-<pid>@<host>-XXXXXX and moved
 * into place only when complete.
 *
 * A signal handler removes the temporary directories of the process
 * (tsync_remove_temporary_outputs); a run killed without one (SIGKILL, power) leaves
 * its directory, and the next run into the same OUTDIR removes it once it can tell
 * that the process that made it is gone: same host, no such process.
 */
#define _DEFAULT_SOURCE /* gethostname */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/outdir.h"
#include "util/str.h"

#define PREFIX ".tracesync-"

/* The temporary directories of this process, for signal handlers: a slot is
 * written before it is marked used, and read only when marked. */
#define SLOTS 16
static char slot_path[SLOTS][PATH_MAX];
static volatile sig_atomic_t slot_used[SLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

static void slot_add(const char *path)
{
    pthread_mutex_lock(&slot_lock);
    for (int i = 0; i < SLOTS; i++) {
        if (!slot_used[i] && strlen(path) < PATH_MAX) {
            strcpy(slot_path[i], path);
            slot_used[i] = 1;
            break;
        }
    }
    pthread_mutex_unlock(&slot_lock);
}

static void slot_drop(const char *path)
{
    pthread_mutex_lock(&slot_lock);
    for (int i = 0; i < SLOTS; i++) {
        if (slot_used[i] && strcmp(slot_path[i], path) == 0) {
            slot_used[i] = 0;
            break;
        }
    }
    pthread_mutex_unlock(&slot_lock);
}

void tsync_remove_temporary_outputs(void)
{
    char gone[PATH_MAX + 8];
    for (int i = 0; i < SLOTS; i++) {
        size_t n;
        if (!slot_used[i])
            continue;
        /* Renamed first: threads still writing can no longer create files in it. */
        n = strlen(slot_path[i]);
        memcpy(gone, slot_path[i], n);
        memcpy(gone + n, ".gone", 6);
        tsync__remove_tree(rename(slot_path[i], gone) == 0 ? gone : slot_path[i]);
    }
}

static void host_name(char *buf, size_t size)
{
    if (gethostname(buf, size) != 0)
        snprintf(buf, size, "localhost");
    buf[size - 1] = '\0';
    for (char *p = buf; *p; p++) /* keeps the name one path component */
        if (*p == '/')
            *p = '_';
}

/* Removes OUTDIR/.tracesync-<pid>@<host>-XXXXXX of processes of this host that are
 * gone; a directory of a live process, or of another host, is another run's. */
static void remove_stale(const char *outdir, const char *host, tsync_ctx *ctx)
{
    DIR *d = opendir(outdir);
    struct dirent *e;
    size_t hl = strlen(host);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        const char *s = e->d_name;
        char *end, *path;
        long pid;
        if (strncmp(s, PREFIX, strlen(PREFIX)) != 0)
            continue;
        s += strlen(PREFIX);
        pid = strtol(s, &end, 10);
        if (end == s || *end != '@' || strncmp(end + 1, host, hl) != 0 || end[1 + hl] != '-' ||
            strlen(end + 2 + hl) < 6 || pid <= 0 || pid == (long)getpid() ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if (!(path = tsync__path_join(outdir, e->d_name)))
            continue;
        tsync__remove_tree(path);
        tsync__warn(ctx, "%s: removed the temporary output of an interrupted run (process %ld, "
                    "no longer running)", path, pid);
        free(path);
    }
    closedir(d);
}

int tsync__outdir_begin(char **tmpdir, const char *outdir, tsync_ctx *ctx)
{
    char host[256], *name = NULL;
    sigset_t block, old;
    int rc;
    *tmpdir = NULL;
    if ((rc = tsync__mkdirs(outdir, ctx)))
        return rc;
    host_name(host, sizeof(host));
    remove_stale(outdir, host, ctx);
    if (!(name = tsync__strfmt(PREFIX "%ld@%s-XXXXXX", (long)getpid(), host)) ||
        !(*tmpdir = tsync__path_join(outdir, name))) {
        free(name);
        return tsync__oom(ctx);
    }
    free(name);
    /* A signal between mkdtemp and slot_add would leave the directory behind. */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    if (mkdtemp(*tmpdir))
        slot_add(*tmpdir);
    else
        rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot create a temporary directory: %s", outdir,
                         strerror(errno));
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        free(*tmpdir);
        *tmpdir = NULL;
    }
    return rc;
}

/* Part i's paths: in tmpdir, in OUTDIR, and where an earlier output goes. */
static int part_paths(char *p[3], const char *tmpdir, const char *outdir, const char *name,
                      tsync_ctx *ctx)
{
    p[0] = tsync__strfmt("%s/%s", tmpdir, name);
    p[1] = tsync__path_join(outdir, name);
    p[2] = tsync__strfmt("%s/.old-%s", tmpdir, name);
    if (p[0] && p[1] && p[2])
        return TSYNC_OK;
    free(p[0]), free(p[1]), free(p[2]);
    return tsync__oom(ctx);
}

/* Undoes the moves of the parts in `moved` (a bit each): new back into tmpdir,
 * earlier outputs back. */
static void move_back(const char *tmpdir, const char *outdir, const char *const *names,
                      size_t n, unsigned long moved)
{
    while (n-- > 0) {
        char *p[3];
        if (!(moved >> n & 1) || part_paths(p, tmpdir, outdir, names[n], NULL))
            continue;
        if (rename(p[1], p[0]) == 0)
            rename(p[2], p[1]);
        free(p[0]), free(p[1]), free(p[2]);
    }
}

int tsync__outdir_commit(const char *tmpdir, const char *outdir, const char *const *names,
                         size_t n, tsync_ctx *ctx)
{
    unsigned long moved = 0;
    int rc;
    if (n > 8 * sizeof(moved))
        return tsync__fail(ctx, TSYNC_EINVAL, "%s: too many outputs (%zu)", outdir, n);
    if ((rc = tsync__fsync_tree(tmpdir, ctx)))
        return rc;
    for (size_t i = 0; i < n && rc == TSYNC_OK; i++) {
        char *p[3];
        if ((rc = part_paths(p, tmpdir, outdir, names[i], ctx)))
            break;
        if (access(p[0], F_OK) != 0)
            ; /* this output has no such part */
        else if (access(p[1], F_OK) == 0 && rename(p[1], p[2]) != 0)
            rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot replace: %s", p[1], strerror(errno));
        else if (rename(p[0], p[1]) != 0) {
            rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot move the output into place: %s", p[1],
                             strerror(errno));
            rename(p[2], p[1]);
        } else {
            moved |= 1ul << i;
        }
        free(p[0]), free(p[1]), free(p[2]);
    }
    if (rc == TSYNC_OK)
        rc = tsync__fsync_dir(outdir, ctx);
    if (rc)
        move_back(tmpdir, outdir, names, n, moved);
    return rc;
}

void tsync__outdir_end(char *tmpdir)
{
    if (!tmpdir)
        return;
    tsync__remove_tree(tmpdir);
    slot_drop(tmpdir);
    free(tmpdir);
}
