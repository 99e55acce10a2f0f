/* The paths of the generated pair (out_paths.c). */
#ifndef STC_OUT_PATHS_H
#define STC_OUT_PATHS_H
#include "../util/arena.h"
#include "../util/strbuf.h"

/* path without the extension of its last component: "d/k.cu" -> "d/k", "k.cpp" -> "k", "k" -> "k". */
char *out_strip_extension(Arena *a, const char *path);
/* How a file at cu_path #includes the one at h_path: "k.h" in the same folder, else a relative
 * path ("../include/k.h"); NULL when either folder does not exist. */
const char *out_include_name(Arena *a, const char *cu_path, const char *h_path);

#endif
