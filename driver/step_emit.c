/* The end of the pipeline: the Plan printed as FILE.cu and FILE.h, optionally validated by
 * libclang, sealed as a pair (seal_pair.c) and written so that nothing is lost: never over the
 * input or a special file, and on any error the previous outputs stay as they were. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../codegen/codegen.h"
#include "../runtime/rt.h"
#include "../util/outfile.h"
#include "../util/strbuf.h"
#include "out_paths.h"
#include "seal_pair.h"
#include "steps.h"

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

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The .cu's text with its #include of the header by the name inc_from rewritten to inc_to. */
static void rename_include(StrBuf *out, const StrBuf *cu, const char *inc_from, const char *inc_to)
{
    StrBuf from = {0};
    sb_printf(&from, "#include \"%s\"\n", inc_from);
    const char *at = strstr(cu->data, from.data);
    size_t pos = at ? (size_t)(at - cu->data) : cu->len, skip = at ? from.len : 0;
    sb_putn(out, cu->data, pos);
    if (at)
        sb_printf(out, "#include \"%s\"\n", inc_to);
    sb_putn(out, cu->data + pos + skip, cu->len - pos - skip);
    sb_free(&from);
}

/* --validate: libclang parses the emitted .cu, with its header beside it, in a scratch folder. */
static int validate(Job *job, const StrBuf *cu_text, const char *cu_path, const StrBuf *h, const char *h_path)
{
    StrBuf cu_beside = {0}; /* including the header beside it, as it is in the scratch folder */
    rename_include(&cu_beside, cu_text, job->h_include, base_name(h_path));
    const StrBuf *cu = &cu_beside;
    char dir[] = "/tmp/stencilc-validate-XXXXXX";
    if (!mkdtemp(dir)) {
        diag_run_error(&job->diag, "--validate: cannot make a scratch folder");
        return -1;
    }
    const char *hp = arena_printf(job->arena, "%s/%s", dir, base_name(h_path));
    const char *cp = arena_printf(job->arena, "%s/%s", dir, base_name(cu_path));
    OutFile hf = {hp, h->data, h->len};
    char why[512];
    int rc = out_replace(&hf, 1, why, sizeof why);
    if (rc != 0)
        diag_run_error(&job->diag, "--validate: %s", why);
    else {
        int n = rt_validate_source(cp, cu->data, job->diag.out);
        if (n < 0)
            rc = -1;
        else if (n > 0) {
            diag_run_error(&job->diag, "--validate: clang reported %d diagnostic%s in the emitted CUDA; nothing "
                                       "was written", n, n == 1 ? "" : "s");
            rc = -1;
        }
    }
    remove(hp);
    rmdir(dir);
    sb_free(&cu_beside);
    return rc;
}

/* The same path, or two names of one existing file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, b))
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int step_check_outputs(Job *job)
{
    if (!job->cu_path) {
        const char *cname = cg_prefix(job->arena, job->prog);
        job->cu_path = job->opt->output ? job->opt->output : arena_printf(job->arena, "%s.cu", cname);
        job->h_path = job->opt->header ? job->opt->header
                                       : arena_printf(job->arena, "%s.h", out_strip_extension(job->arena, job->cu_path));
    }
    if (same_file(job->cu_path, job->h_path)) {
        diag_run_error(&job->diag, "the header and the .cu would both be '%s'; name the header with --header "
                       "PATH\n(see stencilc --help)", diag_name(job->h_path));
        return STEP_USAGE;
    }
    struct stat in, *keep = NULL;
    if (strcmp(job->opt->input, "-") != 0 && stat(job->opt->input, &in) == 0)
        keep = &in;
    char why[512];
    if (out_check_target(job->cu_path, keep, why, sizeof why) != 0 ||
        out_check_target(job->h_path, keep, why, sizeof why) != 0) {
        diag_run_error(&job->diag, "%s", why);
        return -1;
    }
    job->h_include = out_include_name(job->arena, job->cu_path, job->h_path);
    if (!job->h_include) {
        diag_run_error(&job->diag, "the folder of '%s' or of '%s' does not exist", diag_name(job->cu_path),
                       diag_name(job->h_path));
        return -1;
    }
    return 0;
}

int step_emit(Job *job)
{
    int checked = step_check_outputs(job); /* again: tuning took a while */
    if (checked != 0)
        return checked;
    const char *cu_path = job->cu_path, *h_path = job->h_path;
    const char *base = out_strip_extension(job->arena, cu_path);
    StrBuf cu = {0}, h = {0};
    int rc = -1;
    int emitted = job->opt->distributed ? cg_emit_dist(job->plan, base, job->h_include, job->dist, &cu, &h)
                                        : cg_emit_opts(job->plan, base, job->h_include, 0, &cu, &h);
    if (emitted != 0) {
        diag_run_error(&job->diag, "code generation failed for '%s'", job->prog->name);
        goto out;
    }
    prepend_note(&cu, job->config_origin);
    prepend_note(&h, job->config_origin);
    seal_pair(&cu, &h, cg_prefix(job->arena, job->prog), job->h_include);
    if (job->opt->validate && validate(job, &cu, cu_path, &h, h_path) != 0)
        goto out;
    const char *targets[2] = {cu_path, h_path};
    out_remove_stale(targets, 2);
    /* The .cu first: seal_pair.c says why. */
    OutFile pair[2] = {{cu_path, cu.data, cu.len}, {h_path, h.data, h.len}};
    char why[512];
    if (out_replace(pair, 2, why, sizeof why) != 0) {
        diag_run_error(&job->diag, "%s", why);
        goto out;
    }
    rc = 0;
out:
    sb_free(&cu);
    sb_free(&h);
    return rc;
}
