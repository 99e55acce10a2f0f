/* The registers of the fused-step kernels under clamp and mirror: compiles star2d1r's and
 * star3d1r's streaming temporal kernels (examples/bench) with nvcc -O3 for sm_90 and reads ptxas's
 * report (-Xptxas -v). Their occupancy is what clamp and mirror lost to fixed: a clamp or mirror
 * halo plane tested per step held star2d1r's kernel at 80 registers, 3 blocks of 256 an SM
 * against fixed's 4 (docs/performance.md, "Fused steps under every boundary condition"). The
 * bounds are those of the occupancy: 64 registers for 4 blocks of 256, 32 for 2 blocks of 1024,
 * and at most one value spilled (a 4-byte store and its load): star2d1r's mirror kernel has
 * spilled one since its chunks at the ends are scheduled first, and runs 6% faster for it (H100,
 * 2026-11-27, docs/performance.md). Exits 77 when there is no nvcc. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "hand_ir.h"
#include "../driver/load_program.h"

static const char *nvcc;
static char dir[64];

/* ptxas's registers for kernel <name>_step, or -1; spill bytes (stores + loads) into *spills. */
static int registers(const char *log_path, const char *name, int *spills)
{
    FILE *f = fopen(log_path, "r");
    assert(f);
    char line[512], entry[160];
    snprintf(entry, sizeof entry, "Compiling entry function '%s_step'", name);
    int in = 0, regs = -1, st = 0, ld = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "Compiling entry function"))
            in = strstr(line, entry) != NULL;
        const char *at;
        if (in && (at = strstr(line, "bytes spill stores")))
            assert(sscanf(strstr(line, "stack frame, ") + 13, "%d bytes spill stores, %d", &st, &ld) == 2);
        if (in && (at = strstr(line, "Used ")) && sscanf(at, "Used %d registers", &regs) == 1)
            break;
    }
    fclose(f);
    *spills = st + ld;
    return regs;
}

/* The program under boundary bc, at config, compiles to at most `bound` registers and spills
 * at most one value. */
static int check(Arena *a, IrProgram *p, BoundaryKind bc, const char *config, int bound)
{
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE)
            ir_bc_set(&p->fields[f], bc, 0);
    p->name = arena_printf(a, "%s_%s", p->name, ir_bc_name(bc));
    Config c;
    char why[256], base[256], cmd[1024], log[300];
    assert(config_parse(config, p->dims, &c, why, sizeof why) == 0);
    Plan *plan = plan_build(p, &c, a, why, sizeof why);
    if (!plan) {
        fprintf(stderr, "%s %s: %s\n", p->name, config, why);
        return 1;
    }
    snprintf(base, sizeof base, "%s/%s", dir, p->name);
    hb_emit_files(plan, base);
    snprintf(log, sizeof log, "%s.log", base);
    snprintf(cmd, sizeof cmd, "%s -O3 -arch=sm_90 -Xptxas -v -c %s.cu -o %s.o > %s 2>&1", nvcc, base, base, log);
    if (system(cmd) != 0) {
        fprintf(stderr, "%s: nvcc failed (%s)\n", p->name, log);
        return 1;
    }
    int spills = 0, regs = registers(log, p->name, &spills);
    printf("%s %s: %d registers, %d bytes spilled (bound %d)\n", p->name, config, regs, spills, bound);
    return regs < 0 || regs > bound || spills > 8;
}

int main(void)
{
    nvcc = hb_nvcc_scratch(dir, sizeof dir, "stc_nvcc_regs");
    if (!nvcc)
        return 77;
    Arena *a = arena_new();
    const char *wide = "tb=256x1x1,stream=y,sb=256,tblock=12", *cube = "tb=32x32x1,stream=z,sb=128,tblock=3";
    int failed = 0;
    failed += check(a, load_example("bench/star2d1r.st", a), BC_FIXED, wide, 64);
    failed += check(a, load_example("bench/star2d1r.st", a), BC_CLAMP, wide, 64);
    failed += check(a, load_example("bench/star2d1r.st", a), BC_MIRROR, wide, 64);
    failed += check(a, load_example("bench/star3d1r.st", a), BC_FIXED, cube, 32);
    failed += check(a, load_example("bench/star3d1r.st", a), BC_CLAMP, cube, 32);
    arena_free(a);
    if (failed)
        fprintf(stderr, "%d kernels over their bound\n", failed);
    return hb_scratch_done(dir, failed);
}
