/* launch.c - running a command under the collector: the library's place, the
 * output directory, the command line and environment (launch.h). */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracesync/collect_core.h"

extern char **environ;

static int is_file(const char *path, int mode)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, mode) == 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The file a command word runs: the word itself when it holds a '/', else the
 * first executable of that name in PATH. Returns 0 with the path in out, or -1. */
static int which(const char *word, char *out, size_t size)
{
    const char *path = getenv("PATH");
    if (!*word)
        return -1;
    if (strchr(word, '/')) {
        snprintf(out, size, "%s", word);
        return is_file(out, X_OK) ? 0 : -1;
    }
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; ; p++) {
        size_t len = strcspn(p, ":");
        /* an empty entry is the current directory */
        if ((size_t)snprintf(out, size, "%.*s%s%s", (int)len, p, len ? "/" : "./", word) < size &&
            is_file(out, X_OK))
            return 0;
        p += len;
        if (!*p)
            return -1;
    }
}

int tsc_launch_find_collector(const char *self, char *out, size_t size)
{
    const char *env = getenv("TRACESYNC_COLLECT_LIB");
    char dir[PATH_MAX], cand[3][PATH_MAX + 64];
    int n = 0;
    if (env && *env) {
        if (is_file(env, R_OK)) {
            snprintf(out, size, "%s", env);
            return 0;
        }
        snprintf(out, size, "TRACESYNC_COLLECT_LIB=%s", env);
        return -1;
    }
    snprintf(dir, sizeof dir, "%s", self);
    *(char *)base_name(dir) = 0;
    snprintf(cand[n++], sizeof cand[0], "%ssrc/collect/%s", dir, TSC_COLLECT_LIB_NAME);
    snprintf(cand[n++], sizeof cand[0], "%s../%s/%s", dir, TSC_INSTALL_LIBDIR, TSC_COLLECT_LIB_NAME);
    snprintf(cand[n++], sizeof cand[0], "%s/%s", TSC_INSTALL_FULL_LIBDIR, TSC_COLLECT_LIB_NAME);
    for (int i = 0; i < n; i++) {
        if (is_file(cand[i], R_OK)) {
            /* an absolute path: the MPI processes may start elsewhere */
            if (!realpath(cand[i], dir))
                break;
            snprintf(out, size, "%s", dir);
            return 0;
        }
    }
    snprintf(out, size, "%s, %s, %s", cand[0], cand[1], cand[2]);
    return -1;
}

int tsc_launch_is_openmpi(const char *cmd)
{
    char path[PATH_MAX], real[PATH_MAX];
    if (which(cmd, path, sizeof path) != 0 || !realpath(path, real))
        return 0;
    return !strcmp(base_name(real), "orterun") || !strcmp(base_name(real), "prterun");
}

const char *tsc_launch_program(int argc, char *const *argv)
{
    static const char *const launchers[] = { "mpirun", "mpiexec", "orterun", "prterun", "srun" };
    char path[PATH_MAX];
    const char *first = argc > 0 ? base_name(argv[0]) : "";
    for (size_t l = 0; l < sizeof launchers / sizeof launchers[0]; l++) {
        if (strncmp(first, launchers[l], strlen(launchers[l])) != 0)
            continue;
        for (int i = 1; i < argc; i++)
            if (argv[i][0] != '-' && which(argv[i], path, sizeof path) == 0)
                return base_name(argv[i]);
        return "program";
    }
    return *first ? first : "program";
}

int tsc_launch_fresh_dir(const char *program, char *dir, size_t size)
{
    snprintf(dir, size, "tracesync-%s", program);
    for (int i = 1; mkdir(dir, 0777) != 0; i++) {
        if (errno != EEXIST || i > 999)
            return -1;
        snprintf(dir, size, "tracesync-%s.%d", program, i);
    }
    return 0;
}

const char *tsc_launch_archive_in(const char *dir)
{
    static const char *const names[] = { "traces", "global", "truth" };
    char path[PATH_MAX + 16];
    struct stat st;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (lstat(path, &st) == 0)
            return names[i];
    }
    return NULL;
}

/* "a" "b" joined, malloc'd. */
static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

static int is_forwarded(const char *entry)
{
    return !strncmp(entry, "TRACESYNC_", 10) && strncmp(entry, "TRACESYNC_COLLECT_LIB=", 22) != 0;
}

int tsc_launch_prepare(struct tsc_launch *l, int argc, char *const *cmd, const char *preload)
{
    const char *old = getenv("LD_PRELOAD");
    char *with_old = old && *old ? join(old, ":") : join("", "");
    char *ld = with_old ? join(with_old, preload) : NULL;
    size_t nenv = 0;
    int openmpi = tsc_launch_is_openmpi(cmd[0]), ok = 1;
    free(with_old);
    for (char **v = environ; *v; v++)
        nenv++;
    memset(l, 0, sizeof *l);
    l->argv = calloc((size_t)argc + 2 * nenv + 3, sizeof *l->argv);
    l->envp = calloc(nenv + 2, sizeof *l->envp);
    if (!ld || !l->argv || !l->envp) {
        free(ld);
        tsc_launch_free(l);
        return -1;
    }
    l->argv[l->argc++] = strdup(cmd[0]);
    if (openmpi) {
        l->argv[l->argc++] = strdup("-x");
        l->argv[l->argc++] = join("LD_PRELOAD=", ld);
        for (char **v = environ; *v; v++) {
            if (is_forwarded(*v)) {
                l->argv[l->argc++] = strdup("-x");
                l->argv[l->argc++] = strndup(*v, strcspn(*v, "="));
            }
        }
    }
    for (int i = 1; i < argc; i++)
        l->argv[l->argc++] = strdup(cmd[i]);
    for (char **v = environ; *v; v++)
        if (openmpi || strncmp(*v, "LD_PRELOAD=", 11) != 0)
            l->envp[l->envc++] = strdup(*v);
    if (!openmpi)
        l->envp[l->envc++] = join("LD_PRELOAD=", ld);
    free(ld);
    for (size_t i = 0; i < l->argc; i++)
        ok &= l->argv[i] != NULL;
    for (size_t i = 0; i < l->envc; i++)
        ok &= l->envp[i] != NULL;
    if (!ok)
        tsc_launch_free(l);
    return ok ? 0 : -1;
}

void tsc_launch_free(struct tsc_launch *l)
{
    for (size_t i = 0; l->argv && i < l->argc; i++)
        free(l->argv[i]);
    for (size_t i = 0; l->envp && i < l->envc; i++)
        free(l->envp[i]);
    free(l->argv);
    free(l->envp);
    memset(l, 0, sizeof *l);
}
