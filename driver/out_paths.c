/* Where the pair goes: the .cu at -o (default NAME.cu), the header at --header (default the
 * .cu's path with its extension replaced by .h: k.cu and k.cpp give k.h, k gives k.h), and the
 * name the .cu #includes the header by, relative to the .cu's folder as a compiler resolves it. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "out_paths.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *out_strip_extension(Arena *a, const char *path)
{
    const char *name = base_name(path), *dot = strrchr(name, '.');
    if (!dot || dot == name) /* no extension, or a hidden file's name */
        return arena_strdup(a, path);
    return arena_strndup(a, path, (size_t)(dot - path));
}

/* The folder of path, resolved (symbolic links, "..", "."), or NULL when it does not exist. */
static char *real_folder(Arena *a, const char *path)
{
    const char *name = base_name(path);
    char *dir = name == path ? arena_strdup(a, ".") : arena_strndup(a, path, (size_t)(name - path));
    char buf[PATH_MAX];
    return realpath(dir, buf) ? arena_strdup(a, buf) : NULL;
}

const char *out_include_name(Arena *a, const char *cu_path, const char *h_path)
{
    char *from = real_folder(a, cu_path), *to = real_folder(a, h_path);
    if (!from || !to)
        return NULL;
    if (!strcmp(from, to))
        return arena_strdup(a, base_name(h_path));
    /* the longest common run of whole folders, then ".." for each folder of the .cu's below it */
    size_t common = 0;
    for (size_t i = 0;; i++) {
        int end_from = from[i] == '/' || !from[i], end_to = to[i] == '/' || !to[i];
        if (end_from && end_to)
            common = i;
        if (!from[i] || !to[i] || from[i] != to[i])
            break;
    }
    StrBuf sb = {0};
    for (const char *c = from + common; *c && strcmp(from, "/") != 0; c++)
        if (*c == '/')
            sb_puts(&sb, "../");
    const char *rest = to + common + (to[common] == '/');
    if (*rest)
        sb_printf(&sb, "%s/", rest);
    sb_puts(&sb, base_name(h_path));
    const char *inc = arena_strdup(a, sb.data);
    sb_free(&sb);
    return inc;
}
