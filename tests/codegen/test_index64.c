/* Grids past 2^31 elements (ir.h's index range), without a GPU:
 * - the device source of the hand-built programs under several kernel families (plain, tile,
 *   vector, streaming, temporal) keeps no size-derived product in an int: every stride, padded
 *   plane and mirror period is 64-bit (coordinates along one axis may stay int);
 * - every launch reaches past the grid by less than IR_INDEX_SLACK, the room ir.h keeps below
 *   INT_MAX for the int coordinates of a last block;
 * - with nvcc: the emitted .cu of star2d1r is compiled with a host program that runs its size
 *   computations for 48000 x 48000 (2.3e9 elements per buffer) and for sizes near INT_MAX, and
 *   checks that NAME_run refuses an axis beyond the range with cudaErrorInvalidValue before any
 *   CUDA call (so it runs without a GPU). The emitted code does not depend on the grid: the
 *   same source serves 48000 x 48000 and 67 x 61. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "hand_ir.h"

static int failures;

/* An int declared from a size or stride product, e.g. `const int period = 2 * n0 - 2;` or
 * `int row = (j + 1) * s1;`: what wraps once a buffer passes 2^31 elements. */
static void check_int_declarations(const char *what, const char *src)
{
    regex_t decl, risky;
    /* an int (not long long, not unsigned) declaration with its initializer */
    if (regcomp(&decl, "(^|[;{ (])(const )?int [A-Za-z_][A-Za-z0-9_]* = [^;]*;", REG_EXTENDED | REG_NEWLINE) ||
        regcomp(&risky, "[0-9)] \\* \\(?n[0-2]|n[0-2] \\* |[^A-Za-z0-9_](s[12]|ps|ssd|period)([^A-Za-z0-9_]|$)",
                REG_EXTENDED)) {
        fprintf(stderr, "regcomp failed\n");
        exit(1);
    }
    int found = 0;
    regmatch_t m;
    for (const char *at = src; regexec(&decl, at, 1, &m, at == src ? 0 : REG_NOTBOL) == 0; at += m.rm_eo) {
        char line[512];
        int len = (int)(m.rm_eo - m.rm_so) < 511 ? (int)(m.rm_eo - m.rm_so) : 511;
        memcpy(line, at + m.rm_so, (size_t)len);
        line[len] = 0;
        if (regexec(&risky, strchr(line, '='), 0, NULL, 0) == 0) {
            fprintf(stderr, "%s: a size-derived value in an int: %s\n", what, line);
            found++;
        }
    }
    failures += found;
    regfree(&decl);
    regfree(&risky);
}

/* A launch's last block may reach tile + extra points past the padded extent (and a temporal
 * kernel its K x R halo, inside extra): all of it within IR_INDEX_SLACK. */
static void check_launch_reach(const char *what, const PlanLaunch *ls, int n)
{
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            long long reach = (long long)ls[i].tile[d] + (ls[i].extra[d] > 0 ? ls[i].extra[d] : -ls[i].extra[d]);
            if (reach * 2 > IR_INDEX_SLACK) {
                fprintf(stderr, "%s: launch %s reaches %lld points past the grid on axis %d\n", what,
                        ls[i].kernel, reach, d);
                failures++;
            }
        }
}

static Plan *check_config(Arena *a, const IrProgram *p, const char *cfg)
{
    Plan *plan = hb_plan(a, p, cfg);
    char what[200];
    snprintf(what, sizeof what, "%s [%s]", p->name, cfg);
    check_int_declarations(what, plan->source);
    check_launch_reach(what, plan->prologue, plan->nprologue);
    check_launch_reach(what, plan->step, plan->nstep);
    check_launch_reach(what, plan->single, plan->nsingle);
    return plan;
}

/* The host program: size computations of the emitted API at and past the index range. */
static const char host_main[] =
    "#include <stdio.h>\n#include \"star2d1r.h\"\n"
    "#define EXPECT(c) do { if (!(c)) { printf(\"FAIL line %d: %s\\n\", __LINE__, #c); bad++; } } while (0)\n"
    "int main(void)\n{\n    int bad = 0;\n"
    "    const size_t big = star2d1r_buffer_elems(48000, 48000, 1);\n"
    "    EXPECT(big == 48002ull * 48002ull && big > (1ull << 31));\n"
    "    EXPECT(star2d1r_workspace_bytes(48000, 48000, 1) == 0);\n"
    "    EXPECT(star2d1r_index(47999, 47999, 0, 48000, 48000) == 48000ull * 48002ull + 48000ull);\n"
    /* the largest axis (padded 2146435071) and the first refused; the element limit in 2D */
    "    EXPECT(star2d1r_buffer_elems(2146435069, 1, 1) == 2146435071ull * 3ull);\n"
    "    EXPECT(star2d1r_buffer_elems(2146435070, 1, 1) == 0);\n"
    "    EXPECT(star2d1r_buffer_elems(2147483647, 1, 1) == 0);\n"
    "    EXPECT(star2d1r_buffer_elems(1, 2147483647, 1) == 0);\n"
    "    EXPECT(star2d1r_buffer_elems(2146435069, 2146435069, 1) == 0);\n"
    "    EXPECT(star2d1r_buffer_elems(0, 5, 1) == 0);\n"
    "    float dummy[4];\n    star2d1r_fields f;\n    f.u[0] = dummy;\n    f.u[1] = dummy + 2;\n"
    "    const star2d1r_params p = star2d1r_params_defaults();\n"
    "    EXPECT(star2d1r_run(&f, &p, 2147483647, 48000, 1, 1, NULL, 0) == cudaErrorInvalidValue);\n"
    "    EXPECT(star2d1r_run(&f, &p, 48000, 2147483647, 1, 1, NULL, 0) == cudaErrorInvalidValue);\n"
    "    EXPECT(star2d1r_run(&f, &p, 2146435070, 1, 1, 1, NULL, 0) == cudaErrorInvalidValue);\n"
    "    EXPECT(star2d1r_run(&f, &p, 2146435069, 2146435069, 1, 1, NULL, 0) == cudaErrorInvalidValue);\n"
    "    EXPECT(star2d1r_run(&f, &p, 0, 48000, 1, 1, NULL, 0) == cudaErrorInvalidValue);\n"
    "    printf(\"host sizes: %s\\n\", bad ? \"FAILED\" : \"ok\");\n    return bad != 0;\n}\n";

static int host_sizes(const Plan *plan, const char *nvcc)
{
    char dir[] = "/tmp/stc_index64_XXXXXX", path[300], cmd[1200];
    if (!mkdtemp(dir))
        return 1;
    StrBuf cu = {0}, h = {0}, m = {0};
    snprintf(path, sizeof path, "%s/star2d1r", dir);
    int rc = cg_emit(plan, path, &cu, &h);
    snprintf(path, sizeof path, "%s/star2d1r.cu", dir);
    rc |= sb_write_file_atomic(&cu, path);
    snprintf(path, sizeof path, "%s/star2d1r.h", dir);
    rc |= sb_write_file_atomic(&h, path);
    sb_puts(&m, host_main);
    snprintf(path, sizeof path, "%s/main.cu", dir);
    rc |= sb_write_file_atomic(&m, path);
    sb_free(&cu);
    sb_free(&h);
    sb_free(&m);
    if (rc != 0) {
        fprintf(stderr, "cannot write into %s\n", dir);
        return 1;
    }
    snprintf(cmd, sizeof cmd, "cd %s && %s -gencode arch=compute_80,code=sm_80 -Xcompiler -Wall,-Wextra "
             "-Werror all-warnings star2d1r.cu main.cu -o sizes > nvcc.log 2>&1 && ./sizes", dir, nvcc);
    rc = system(cmd);
    if (rc != 0) {
        snprintf(cmd, sizeof cmd, "head -40 %s/nvcc.log", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "(no log)\n");
        fprintf(stderr, "files kept in %s\n", dir);
        return 1;
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return 0;
}

int main(void)
{
    Arena *a = arena_new();
    IrProgram *star = hb_example(a, 0), *box = hb_example(a, 1), *heat = hb_example(a, 5);
    IrProgram *mirror = hb_example(a, 0);
    mirror->name = "star2d1r_mirror";
    ir_bc_set(&mirror->fields[0], BC_MIRROR, 0);
    static const char *const star_cfgs[] = {
        "", "tb=256x1x1,smem=on,stream=y,sb=8,uf=1x8x1", "tb=256x1x1,smem=on,stream=y,sb=8,regq=3",
        "tb=128x4x1,uf=2x1x1,bm=2x4x1", "tb=512x1x1,smem=on,cm=1x16x1",
        "tb=1024x1x1,cmem=on,uf=2x8x1,bm=2x8x1,vec=2,hcol=on,maxreg=64",
        "tb=128x1x1,stream=y,sb=16,retime=on", "tb=32x8x1,tblock=4",
        "tb=128x1x1,stream=y,sb=64,tblock=4", "tb=128x1x1,stream=y,sb=64,tblock=4,retime=on",
    };
    Plan *plain = NULL;
    for (size_t i = 0; i < sizeof star_cfgs / sizeof *star_cfgs; i++) {
        Plan *p = check_config(a, star, star_cfgs[i]);
        if (i == 0)
            plain = p;
    }
    check_config(a, mirror, "");
    check_config(a, mirror, "tb=128x4x1,uf=2x1x1,bm=2x4x1");
    check_config(a, box, "");
    check_config(a, box, "tb=32x4x2,smem=on,bm=2x2x2,uf=2x2x2");
    check_config(a, box, "tb=64x1x1,stream=z,sb=16,uf=1x1x16");
    check_config(a, heat, "");
    printf("device source: %d size-derived int value(s) or launch reach(es) found\n", failures);

    const char *nvcc = hb_find_nvcc();
    if (!nvcc)
        puts("no nvcc: the host size checks are skipped");
    else
        failures += host_sizes(plain, nvcc);
    arena_free(a);
    return failures != 0;
}
