/* The end of the pipeline: the Plan printed as FILE.cu and FILE.h, optionally validated by
 * libclang, written atomically (both files or, on any error, neither is touched). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../runtime/rt.h"
#include "../util/strbuf.h"
#include "steps.h"

/* heat.cu -> heat; out -> out (the header is BASE.h next to the .cu) */
static char *strip_cu(Arena *a, const char *cu)
{
    size_t n = strlen(cu);
    if (n > 3 && !strcmp(cu + n - 3, ".cu"))
        return arena_strndup(a, cu, n - 3);
    return arena_strdup(a, cu);
}

/* Puts the note (how the configuration was chosen, where it was not the default) at the top of a
 * generated file, above codegen's line naming the generator (version and digest of ir/ and
 * codegen/, the tuning database's key). */
static void prepend_note(StrBuf *sb, const char *note)
{
    if (!note || !*note)
        return; /* the generator and its digest are on codegen's first line */
    StrBuf t = {0};
    sb_printf(&t, "/* %s */\n", note);
    sb_putn(&t, sb->data, sb->len);
    sb_free(sb);
    *sb = t;
}

/* --validate: libclang parses the emitted .cu, with its header beside it, in a scratch folder. */
static int validate(Job *job, const StrBuf *cu, const char *cu_path, const StrBuf *h, const char *h_path)
{
    char dir[] = "/tmp/stencilc-validate-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "stencilc: error: --validate: cannot make a scratch folder\n");
        return -1;
    }
    const char *hs = strrchr(h_path, '/'), *cs = strrchr(cu_path, '/');
    const char *hp = arena_printf(job->arena, "%s/%s", dir, hs ? hs + 1 : h_path);
    const char *cp = arena_printf(job->arena, "%s/%s", dir, cs ? cs + 1 : cu_path);
    int rc = sb_write_file_atomic(h, hp);
    if (rc == 0) {
        int n = rt_validate_source(cp, cu->data, stderr);
        if (n < 0)
            rc = -1;
        else if (n > 0) {
            fprintf(stderr, "stencilc: error: --validate: clang reported %d diagnostic%s in the emitted CUDA; "
                            "nothing was written\n", n, n == 1 ? "" : "s");
            rc = -1;
        }
    }
    remove(hp);
    rmdir(dir);
    return rc;
}

int step_emit(Job *job)
{
    const char *cname = cg_c_identifier(job->arena, job->prog->name);
    const char *cu_path = job->opt->output ? job->opt->output : arena_printf(job->arena, "%s.cu", cname);
    const char *base = strip_cu(job->arena, cu_path);
    const char *h_path = arena_printf(job->arena, "%s.h", base);
    StrBuf cu = {0}, h = {0};
    int rc = -1;
    if (cg_emit_opts(job->plan, base, job->opt->distributed, &cu, &h) != 0) {
        fprintf(stderr, "stencilc: error: code generation failed for '%s'\n", job->prog->name);
        goto out;
    }
    prepend_note(&cu, job->config_origin);
    prepend_note(&h, job->config_origin);
    if (job->opt->validate && validate(job, &cu, cu_path, &h, h_path) != 0)
        goto out;
    /* The header first: a .cu without its header would not compile; then the .cu. */
    if (sb_write_file_atomic(&h, h_path) != 0) {
        fprintf(stderr, "stencilc: error: cannot write '%s'\n", h_path);
        goto out;
    }
    if (sb_write_file_atomic(&cu, cu_path) != 0) {
        fprintf(stderr, "stencilc: error: cannot write '%s'\n", cu_path);
        unlink(h_path);
        goto out;
    }
    rc = 0;
out:
    sb_free(&cu);
    sb_free(&h);
    return rc;
}
