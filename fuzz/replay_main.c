/* replay_main.c - runs a fuzz target's LLVMFuzzerTestOneInput on files, without
 * libFuzzer: the regression tests replay the corpus and every earlier finding through
 * the normal (and the sanitized) build. Arguments: files or directories of files. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    long size;
    if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(data = malloc(size ? size : 1)) || fread(data, 1, size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(data);
        if (f)
            fclose(f);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    printf("%s: ok\n", path);
    return 0;
}

static int replay(const char *path)
{
    struct stat sb;
    struct dirent **names;
    int n, rc = 0;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "%s: missing\n", path);
        return 1;
    }
    if (!S_ISDIR(sb.st_mode))
        return replay_file(path);
    if ((n = scandir(path, &names, NULL, alphasort)) < 0)
        return 1;
    for (int i = 0; i < n; i++) {
        char sub[4096];
        if (names[i]->d_name[0] != '.') {
            snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
            rc |= replay(sub);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= replay(argv[i]);
    return rc;
}
