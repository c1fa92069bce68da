/* fs.c - directories: the library's one mkdir -p and rm -r, and fsync. */
#define _GNU_SOURCE /* syscall(SYS_getdents64), sync_file_range */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/str.h"

int tsync__mkdirs(const char *path, tsync_ctx *ctx)
{
    char *p = strdup(path);
    int rc = TSYNC_OK;
    if (!p)
        return tsync__oom(ctx);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                rc = tsync__fail(ctx, TSYNC_EIO, "%s: cannot create the directory: %s", p,
                                 strerror(errno));
                break;
            }
            *s = c;
            if (c == '\0')
                break;
        }
    }
    free(p);
    return rc;
}

/* What getdents64 returns; glibc's struct dirent is not guaranteed to match. */
struct dirent64_raw {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Removes `name` in directory `dirfd`, a directory with its contents. Only system
 * calls that are async-signal-safe (no malloc, no opendir), so that a signal
 * handler can remove a temporary output; directories are read afresh until empty,
 * since entries go while they are read. */
static void remove_at(int dirfd, const char *name, int depth)
{
    char buf[4096];
    int fd, again = 1;
    if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 16)
        return;
    if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return;
    for (int round = 0; again && round < 64; round++) {
        long n;
        again = 0;
        lseek(fd, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
            for (long off = 0; off < n;) {
                const struct dirent64_raw *e = (const struct dirent64_raw *)(buf + off);
                off += e->d_reclen;
                if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                    remove_at(fd, e->d_name, depth + 1);
                    again = 1;
                }
            }
        }
    }
    close(fd);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

void tsync__remove_tree(const char *path)
{
    remove_at(AT_FDCWD, path, 0);
}

/* fsync of one file or directory, which must be opened read-only for a directory. */
static int sync_path(const char *path, int dir, tsync_ctx *ctx)
{
    int fd = open(path, (dir ? O_RDONLY | O_DIRECTORY : O_WRONLY) | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return tsync__fail(ctx, TSYNC_EIO, "%s: cannot write to disk: %s", path, strerror(err));
    }
    if (close(fd) != 0)
        return tsync__fail(ctx, TSYNC_EIO, "%s: cannot write to disk: %s", path, strerror(errno));
    return TSYNC_OK;
}

int tsync__fsync_dir(const char *path, tsync_ctx *ctx)
{
    return sync_path(path, 1, ctx);
}

int tsync__fsync_tree(const char *path, tsync_ctx *ctx)
{
    struct stat sb;
    DIR *d;
    struct dirent *e;
    int rc = TSYNC_OK;
    if (lstat(path, &sb) != 0)
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return S_ISREG(sb.st_mode) ? sync_path(path, 0, ctx) : TSYNC_OK;
    if (!(d = opendir(path)))
        return tsync__fail(ctx, TSYNC_EIO, "%s: %s", path, strerror(errno));
    while (rc == TSYNC_OK && (e = readdir(d)) != NULL) {
        char *child;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (!(child = tsync__strfmt("%s/%s", path, e->d_name)))
            rc = tsync__oom(ctx);
        else
            rc = tsync__fsync_tree(child, ctx);
        free(child);
    }
    closedir(d);
    return rc ? rc : sync_path(path, 1, ctx);
}

void tsync__write_back(FILE *f)
{
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(fileno(f), 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)f;
#endif
}
