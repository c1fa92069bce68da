/* fs.c - directories: the library's one mkdir -p and rm -r. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

void tsync__remove_tree(const char *path)
{
    struct stat sb;
    DIR *d;
    struct dirent *e;
    if (lstat(path, &sb) != 0)
        return;
    if (!S_ISDIR(sb.st_mode)) {
        unlink(path);
        return;
    }
    if ((d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            char *child;
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (!(child = tsync__strfmt("%s/%s", path, e->d_name)))
                continue;
            tsync__remove_tree(child);
            free(child);
        }
        closedir(d);
    }
    rmdir(path);
}
