/* outdir.c - outputs written into OUTDIR/.tracesync-<pid>@<host>-XXXXXX and moved
 * into place only when complete.
 *
 * A signal handler removes the temporary directories of the process
 * (tsync_remove_temporary_outputs); a run killed without one (SIGKILL, power) leaves
 * its directory, and the next run into the same OUTDIR removes it once it can tell
 * that the process that made it is gone: same host, no such process. An OUTDIR that
 * the run made goes too where it stays empty (a run killed after 0.8 s left an
 * empty OUTDIR behind).
 */
#define _DEFAULT_SOURCE /* gethostname */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
static sig_atomic_t slot_made[SLOTS];  /* this process made the directory it lies in */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

static void slot_add(const char *path, int made)
{
    pthread_mutex_lock(&slot_lock);
    for (int i = 0; i < SLOTS; i++) {
        if (!slot_used[i] && strlen(path) < PATH_MAX) {
            strcpy(slot_path[i], path);
            slot_made[i] = made;
            slot_used[i] = 1;
            break;
        }
    }
    pthread_mutex_unlock(&slot_lock);
}

/* Forgets path; whether this process made the directory it lies in. */
static int slot_drop(const char *path)
{
    int made = 0;
    pthread_mutex_lock(&slot_lock);
    for (int i = 0; i < SLOTS; i++) {
        if (slot_used[i] && strcmp(slot_path[i], path) == 0) {
            slot_used[i] = 0;
            made = slot_made[i];
            break;
        }
    }
    pthread_mutex_unlock(&slot_lock);
    return made;
}

/* The output directories this process made (tsync__outdir_make), the first SLOTS. */
static char made_path[SLOTS][PATH_MAX];
static int n_made;

static int made_here(const char *outdir)
{
    int made = 0;
    pthread_mutex_lock(&slot_lock);
    for (int i = 0; i < n_made && !made; i++)
        made = strcmp(made_path[i], outdir) == 0;
    pthread_mutex_unlock(&slot_lock);
    return made;
}

int tsync__outdir_make(const char *outdir, tsync_ctx *ctx)
{
    struct stat sb;
    int absent = stat(outdir, &sb) != 0, rc = tsync__mkdirs(outdir, ctx);
    if (rc == TSYNC_OK && absent && strlen(outdir) < PATH_MAX) {
        pthread_mutex_lock(&slot_lock);
        if (n_made < SLOTS)
            strcpy(made_path[n_made++], outdir);
        pthread_mutex_unlock(&slot_lock);
    }
    return rc;
}

/* Removes the directory that temporary directory path lies in, if it is empty. Async-
 * signal-safe: path is cut in a copy of its own. */
static void remove_parent(const char *path)
{
    char dir[PATH_MAX];
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] != '/')
        n--;
    if (n < 2 || n > sizeof(dir))
        return;
    memcpy(dir, path, n - 1);
    dir[n - 1] = '\0';
    rmdir(dir);
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
        if (slot_made[i])
            remove_parent(slot_path[i]);
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

/* Six letters or digits that differ from call to call and process to process. */
static void random_suffix(char *out)
{
    static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static _Atomic unsigned long calls;
    struct timespec ts;
    unsigned long long x;
    clock_gettime(CLOCK_REALTIME, &ts);
    x = ((unsigned long long)ts.tv_nsec << 20) ^ (unsigned long long)ts.tv_sec ^
        ((unsigned long long)getpid() << 40) ^ (++calls * 0x9e3779b97f4a7c15ull);
    for (int i = 0; i < 6; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        out[i] = alnum[(x >> 33) % (sizeof(alnum) - 1)];
    }
    out[6] = '\0';
}

int tsync__outdir_begin(char **tmpdir, const char *outdir, tsync_ctx *ctx)
{
    char host[256], suffix[7], *name;
    int rc, tries = 0, made;
    *tmpdir = NULL;
    if ((rc = tsync__outdir_make(outdir, ctx)))
        return rc;
    made = made_here(outdir);
    host_name(host, sizeof(host));
    remove_stale(outdir, host, ctx);
    /* Remembered for the signal handlers before it exists, not after: a signal that
     * another thread takes between the two would leave the directory behind. */
    do {
        free(*tmpdir);
        random_suffix(suffix);
        name = tsync__strfmt(PREFIX "%ld@%s-%s", (long)getpid(), host, suffix);
        *tmpdir = name ? tsync__path_join(outdir, name) : NULL;
        free(name);
        if (!*tmpdir)
            return tsync__oom(ctx);
        slot_add(*tmpdir, made);
        if (mkdir(*tmpdir, 0700) == 0)
            return TSYNC_OK;
        slot_drop(*tmpdir);
    } while (errno == EEXIST && ++tries < 100);
    rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot create a temporary directory: %s", outdir,
                     strerror(errno));
    free(*tmpdir);
    *tmpdir = NULL;
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

/* One output's temporary directory and the parts to move from it into OUTDIR;
 * `moved` has a bit for each part in place. */
struct group {
    char *tmpdir, *outdir;
    char **names;
    size_t n;
    unsigned long moved;
};

/* The outputs held for one commit (tsync_ctx_hold_outputs). */
struct tsync__held {
    struct group *g;
    size_t n;
};

/* Undoes the moves of a group: new back into tmpdir, earlier outputs back. */
static void move_back(struct group *g)
{
    for (size_t i = g->n; i-- > 0;) {
        char *p[3];
        if (!(g->moved >> i & 1) || part_paths(p, g->tmpdir, g->outdir, g->names[i], NULL))
            continue;
        if (rename(p[1], p[0]) == 0)
            rename(p[2], p[1]);
        free(p[0]), free(p[1]), free(p[2]);
    }
    g->moved = 0;
}

/* Moves the parts of a group into OUTDIR in order, each replacing an earlier output
 * of that name; on failure, those already moved go back. */
static int move_parts(struct group *g, tsync_ctx *ctx)
{
    int rc = TSYNC_OK;
    for (size_t i = 0; i < g->n && rc == TSYNC_OK; i++) {
        char *p[3];
        if ((rc = part_paths(p, g->tmpdir, g->outdir, g->names[i], ctx)))
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
            g->moved |= 1ul << i;
        }
        free(p[0]), free(p[1]), free(p[2]);
    }
    if (rc)
        move_back(g);
    return rc;
}

/* Every group into place, or none: all temporary files reach the disk first, then
 * the moves, then the directories that received them. */
static int commit_groups(struct group *g, size_t n, tsync_ctx *ctx)
{
    size_t done = 0;
    int rc = TSYNC_OK;
    for (size_t k = 0; k < n && rc == TSYNC_OK; k++)
        rc = tsync__fsync_tree(g[k].tmpdir, ctx);
    for (; done < n && rc == TSYNC_OK; done++)
        rc = move_parts(&g[done], ctx);
    for (size_t k = 0; k < n && rc == TSYNC_OK; k++)
        rc = tsync__fsync_dir(g[k].outdir, ctx);
    if (rc)
        while (done-- > 0)
            move_back(&g[done]);
    return rc;
}

static void group_free(struct group *g)
{
    tsync__outdir_end(g->tmpdir);
    for (size_t i = 0; i < g->n; i++)
        free(g->names[i]);
    free(g->names);
    free(g->outdir);
}

int tsync__outdir_finish(char *tmpdir, const char *outdir, const char *const *names, size_t n,
                         tsync_ctx *ctx)
{
    struct tsync__held **held = tsync__ctx_held(ctx);
    struct group g = { tmpdir, NULL, NULL, n, 0 }, *grown;
    int rc = TSYNC_OK;
    if (n > 8 * sizeof(g.moved)) {
        rc = tsync__fail(ctx, TSYNC_EINVAL, "%s: too many outputs (%zu)", outdir, n);
        goto fail;
    }
    if (!(g.outdir = strdup(outdir)) || !(g.names = calloc(n ? n : 1, sizeof(*g.names))))
        goto oom;
    for (size_t i = 0; i < n; i++)
        if (!(g.names[i] = strdup(names[i])))
            goto oom;
    if (!held || !*held) {
        rc = commit_groups(&g, 1, ctx);
        group_free(&g);
        return rc;
    }
    if (!(grown = realloc((*held)->g, ((*held)->n + 1) * sizeof(*grown))))
        goto oom;
    (*held)->g = grown;
    grown[(*held)->n++] = g;
    return TSYNC_OK;
oom:
    rc = tsync__oom(ctx);
fail:
    group_free(&g);
    return rc;
}

void tsync__held_free(struct tsync__held *h)
{
    if (!h)
        return;
    for (size_t k = 0; k < h->n; k++)
        group_free(&h->g[k]);
    free(h->g);
    free(h);
}

int tsync_ctx_hold_outputs(tsync_ctx *ctx)
{
    struct tsync__held **held = tsync__ctx_held(ctx);
    if (!held)
        return TSYNC_EINVAL;
    if (*held)
        return TSYNC_OK;
    if (!(*held = calloc(1, sizeof(**held))))
        return tsync__oom(ctx);
    return TSYNC_OK;
}

int tsync_ctx_commit_outputs(tsync_ctx *ctx)
{
    struct tsync__held **held = tsync__ctx_held(ctx);
    int rc;
    if (!held || !*held)
        return TSYNC_OK;
    rc = commit_groups((*held)->g, (*held)->n, ctx);
    tsync__held_free(*held);
    *held = NULL;
    return rc;
}

void tsync_ctx_drop_outputs(tsync_ctx *ctx)
{
    struct tsync__held **held = tsync__ctx_held(ctx);
    if (!held)
        return;
    tsync__held_free(*held);
    *held = NULL;
}

int tsync__outdir_create_file(FILE **f, const char *tmpdir, const char *name, const char *final,
                              tsync_ctx *ctx)
{
    char *tmp = tsync__path_join(tmpdir, name);
    if (!tmp)
        return tsync__oom(ctx);
    /* fopen, not mkstemp: the file's mode follows the umask like every output. */
    *f = fopen(tmp, "w");
    free(tmp);
    if (!*f)
        return tsync__fail(ctx, TSYNC_EIO, "%s: cannot create: %s", final, strerror(errno));
    return TSYNC_OK;
}

/* Closes a file written in a temporary directory: 0, or TSYNC_EIO naming the file
 * as `final` when a write, the flush or the close failed. */
static int close_file(FILE *f, const char *final, tsync_ctx *ctx)
{
    int bad = fflush(f) != 0 || ferror(f), err = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad)
        return tsync__fail(ctx, TSYNC_EIO, "%s: cannot write: %s; nothing was written", final,
                           strerror(err));
    return TSYNC_OK;
}

int tsync__outdir_finish_file(FILE *f, char *tmpdir, const char *outdir, const char *name,
                              const char *final, tsync_ctx *ctx)
{
    int rc = close_file(f, final, ctx);
    if (rc) {
        tsync__outdir_end(tmpdir);
        return rc;
    }
    return tsync__outdir_finish(tmpdir, outdir, &name, 1, ctx);
}

int tsync_prepare_output(const char *path, tsync_ctx *ctx)
{
    const char *slash = strrchr(path, '/');
    size_t len = strlen(path) + 5;
    char *tmp = malloc(len), *dir = slash && slash != path ? strndup(path, (size_t)(slash - path))
                                                           : NULL;
    FILE *f;
    int rc = TSYNC_OK;
    if (!tmp || (slash && slash != path && !dir)) {
        rc = tsync__oom(ctx);
    } else if (dir && (rc = tsync__mkdirs(dir, ctx))) {
        /* the context names the directory */
    } else if (snprintf(tmp, len, "%s.tmp", path), !(f = fopen(tmp, "w"))) {
        rc = tsync__fail(ctx, TSYNC_EIO, "%s", strerror(errno));
    } else {
        fclose(f);
        remove(tmp);
    }
    free(dir);
    free(tmp);
    return rc;
}

int tsync_write_text_output(const char *path, const char *text, tsync_ctx *ctx)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? (slash == path ? strdup("/") : strndup(path, (size_t)(slash - path)))
                      : strdup(".");
    const char *name = slash ? slash + 1 : path;
    char *tmpdir = NULL;
    FILE *f = NULL;
    int rc;
    if (!dir)
        return tsync__oom(ctx);
    if (!*name) {
        rc = tsync__fail(ctx, TSYNC_EINVAL, "%s: a file name is needed, not a directory", path);
        goto out;
    }
    if ((rc = tsync__outdir_begin(&tmpdir, dir, ctx)) ||
        (rc = tsync__outdir_create_file(&f, tmpdir, name, path, ctx)))
        goto out;
    fputs(text, f);
    rc = tsync__outdir_finish_file(f, tmpdir, dir, name, path, ctx);
    tmpdir = NULL;
out:
    tsync__outdir_end(tmpdir);
    free(dir);
    return rc;
}

int tsync__outdir_failed(int rc, const char *tmpdir, tsync_ctx *ctx)
{
    static const char nothing[] = "; nothing was written";
    const char *err = tsync_ctx_error(ctx), *hit, *slash = strrchr(tmpdir, '/');
    size_t keep = slash ? (size_t)(slash - tmpdir) : 0, n = strlen(tmpdir);
    char *msg;
    if (rc == TSYNC_OK || !err || !*err || !slash || !(msg = malloc(strlen(err) + sizeof(nothing))))
        return rc;
    /* OUTDIR/.tracesync-...-XXXXXX/name -> OUTDIR/name, every time it occurs */
    msg[0] = '\0';
    while ((hit = strstr(err, tmpdir))) {
        strncat(msg, err, (size_t)(hit - err) + keep);
        err = hit + n;
    }
    strcat(msg, err);
    if (!strstr(msg, nothing))
        strcat(msg, nothing);
    tsync__fail(ctx, rc, "%s", msg);
    free(msg);
    return rc;
}

void tsync__outdir_end(char *tmpdir)
{
    if (!tmpdir)
        return;
    tsync__remove_tree(tmpdir);
    if (slot_drop(tmpdir))
        remove_parent(tmpdir);    /* an OUTDIR this run made and left empty */
    free(tmpdir);
}
