/* fuzz_otf2.c - libFuzzer target: the whole pipeline on a corrupt OTF2 archive.
 *
 * An archive is several files, so an input is a small container of them: each file
 * is a line "@@tsync:NAME" followed by its bytes up to the next such line or the end
 * (fuzz/pack_otf2.sh makes one from an archive directory). libFuzzer's mutations then
 * reach whole anchor, definition and event files: bytes flipped, files cut, grown,
 * swapped between archives, dropped. The files are written into a fresh directory
 * and the first NAME ending in ".otf2" is the anchor given to tsync_sync_run: read,
 * match, estimate, CLC, check, write to a temporary directory, which is removed.
 */
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

#define MAGIC "@@tsync:"
#define MAGIC_LEN (sizeof(MAGIC) - 1)

/* A name the container may use: relative, at most 3 parts, none empty or starting
 * with '.', of [A-Za-z0-9_.-] only, so nothing is written outside the directory. */
static int name_ok(const char *s, size_t n)
{
    int parts = 1;
    if (n == 0 || n > 64 || s[0] == '/')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '/') {
            if (++parts > 3 || i + 1 == n || s[i + 1] == '/')
                return 0;
        } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '_' || c == '-' || (c == '.' && i > 0 && s[i - 1] != '/')))
            return 0;
    }
    return 1;
}

static const uint8_t *find_magic(const uint8_t *p, const uint8_t *end)
{
    while (p && end - p >= (ptrdiff_t)MAGIC_LEN) {
        const uint8_t *m = memchr(p, '@', end - p - MAGIC_LEN + 1);
        if (!m || memcmp(m, MAGIC, MAGIC_LEN) == 0)
            return m;
        p = m + 1;
    }
    return NULL;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Writes the container's files under `dir`; returns 1 and the anchor's path, or 0. */
static int unpack(const char *dir, const uint8_t *data, size_t size, char *anchor, size_t cap)
{
    const uint8_t *end = data + size, *p = find_magic(data, end);
    anchor[0] = 0;
    while (p) {
        const uint8_t *name = p + MAGIC_LEN, *nl = memchr(name, '\n', end - name), *next;
        char path[256];
        size_t n;
        if (!nl)
            break;
        next = find_magic(nl + 1, end);
        n = nl - name;
        if (name_ok((const char *)name, n)) {
            snprintf(path, sizeof(path), "%s/%.*s", dir, (int)n, (const char *)name);
            char *slash = strrchr(path, '/');
            *slash = 0;
            /* A name used both for a file and for a directory ("traces", then
             * "traces/0.def"): whichever came first. */
            if (tsync__mkdirs(path, NULL) == 0 && is_dir(path)) {
                *slash = '/';
                if (!is_dir(path)) {
                    fuzz_write_file(path, nl + 1, (next ? next : end) - (nl + 1));
                    if (!anchor[0] && n > 5 && memcmp(name + n - 5, ".otf2", 5) == 0)
                        snprintf(anchor, cap, "%s", path);
                }
            }
        }
        p = next;
    }
    return anchor[0] != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *scratch = fuzz_scratch("otf2");
    char in[128], out[128], anchor[256];
    snprintf(in, sizeof(in), "%s/in", scratch);
    snprintf(out, sizeof(out), "%s/out", scratch);
    tsync__remove_tree(in);
    if (tsync__mkdirs(in, NULL))
        abort();
    if (unpack(in, data, size, anchor, sizeof(anchor)))
        fuzz_sync(anchor, out);
    tsync__remove_tree(in);
    return 0;
}
