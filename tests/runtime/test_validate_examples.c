/* --validate on what stencilc really emits: every example's .cu (default configuration and a
 * few others, float and double) must parse under libclang with the CUDA shim without a warning
 * or an error. Exits 77 when libclang is missing.
 *   test_rt_validate_examples [SOURCE_ROOT]   (root: $STC_SOURCE_ROOT or .) */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ast.h"
#include "codegen.h"
#include "example_programs.h"
#include "rt.h"

static const char *const configs[] = { "default", "smem=on", "cmem=on", "stream=z,sb=16",
                                        "tblock=2", "maxreg=64" };

static char tmpdir[256] = "/tmp/stc-validate-XXXXXX";

static int check_file(const char *path, int *cases, int *skipped)
{
    Arena *arena = arena_new();
    Diag diag;
    Source src;
    int failed = 0;
    AstFile file;
    if (ex_parse_file(path, arena, &diag, &src, &file) != 0) {
        arena_free(arena);
        return 1;
    }
    for (int s = 0; s < file.nstencils; s++) {
        for (int type = 0; type < 2; type++) {
            IrProgram *prog = ex_lower(path, &file.stencils[s], type ? ELEM_DOUBLE : ELEM_FLOAT, arena, &diag);
            if (!prog) {
                failed++;
                continue;
            }
            for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
                Config cfg;
                char why[1024];
                Plan *plan;
                if (config_parse(configs[c], prog->dims, &cfg, why, (int)sizeof why) != 0
                    || !(plan = plan_build(prog, &cfg, arena, why, (int)sizeof why))) {
                    (*skipped)++;
                    continue;
                }
                StrBuf cu = { 0 }, h = { 0 };
                if (cg_emit(plan, prog->name, &cu, &h) != 0) {
                    printf("FAIL %s %s: cg_emit failed\n", path, configs[c]);
                    failed++;
                } else {
                    /* Validated from disk, as --validate does, with its header beside it. */
                    char cu_path[600], h_path[600];
                    snprintf(cu_path, sizeof cu_path, "%s/%s.cu", tmpdir, prog->name);
                    snprintf(h_path, sizeof h_path, "%s/%s.h", tmpdir, prog->name);
                    (*cases)++;
                    int n = -1;
                    if (sb_write_file_atomic(&cu, cu_path) == 0
                        && sb_write_file_atomic(&h, h_path) == 0)
                        n = rt_validate_source(cu_path, NULL, stdout);
                    if (n != 0) {
                        printf("FAIL %s %s [%s]: %d diagnostics\n", prog->name,
                               type ? "double" : "float", configs[c], n);
                        failed++;
                    }
                    remove(cu_path);
                    remove(h_path);
                }
                sb_free(&cu);
                sb_free(&h);
            }
        }
    }
    arena_free(arena);
    return failed;
}

int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : getenv("STC_SOURCE_ROOT");
    char why[512];
    if (!rt_validate_available(why, (int)sizeof why)) {
        printf("skipped: %s\n", why);
        return 77;
    }
    if (!root)
        root = ".";
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    const char *dirs[] = { "examples/*.st", "examples/bench/*.st" };
    int failed = 0, cases = 0, skipped = 0, files = 0;
    for (int d = 0; d < 2; d++) {
        char pattern[4096];
        glob_t gl;
        snprintf(pattern, sizeof pattern, "%s/%s", root, dirs[d]);
        if (glob(pattern, 0, NULL, &gl) != 0)
            continue;
        for (size_t i = 0; i < gl.gl_pathc; i++, files++)
            failed += check_file(gl.gl_pathv[i], &cases, &skipped);
        globfree(&gl);
    }
    rmdir(tmpdir);
    printf("%d files, %d emitted files validated, %d failed (%d configurations skipped)\n",
           files, cases, failed, skipped);
    return files == 0 || failed ? 1 : 0;
}
