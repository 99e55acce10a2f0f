/* --same-bits in the PTX: star3d1r (examples/bench) at its four-column fused-step configuration
 * compiled by nvcc -O3 for sm_90. Each point is 1 multiply and 6 fused multiply-adds; which
 * product stays the plain multiply is what decides the point's last bits. With --same-bits the
 * fused kernel (star3d1r_step, 36 unrolled points) must keep the one-step kernel's product
 * (star3d1r_step_single) at every point. Without it nvcc chooses per unrolled copy (the centre
 * at most points, the z-1 term at some: docs/distributed.md, "Correctness"), which this test
 * also asserts, so that it shows the check can fail; should a later nvcc contract every copy
 * alike, that half says so. Exits 77 when there is no nvcc. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "hand_ir.h"
#include "../driver/load_program.h"

#define CONFIG "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1"
#define MAX_REGS 4096

static const char *nvcc;
static char dir[64];

/* The multiplies of one kernel: the float constant of each (its PTX hex form, "0f3E800000"). */
typedef struct {
    char consts[64][16];
    int n;
} Muls;

/* The register number of "%fN" (with its trailing ',' or ';'), or -1. */
static int freg(const char *s)
{
    int r;
    return sscanf(s, "%%f%d", &r) == 1 && r >= 0 && r < MAX_REGS ? r : -1;
}

/* The constant of a multiply's operand: an immediate, or a register that a mov last set. */
static const char *operand_const(const char *s, char (*held)[16])
{
    if (!strncmp(s, "0f", 2))
        return s;
    int r = freg(s);
    return r >= 0 && held[r][0] ? held[r] : NULL;
}

/* One PTX instruction line of the kernel: mov.f32 of a constant remembered, every other write
 * of a float register forgets it; a mul.f32 or mul.rn.f32 records its constant. */
static void scan_line(const char *line, char (*held)[16], Muls *m)
{
    char op[32], d[32], x[32], y[32];
    int n = sscanf(line, " %31s %31[^,], %31[^,;], %31[^,;]", op, d, x, y);
    if (n < 3 || freg(d) < 0)
        return;
    int r = freg(d);
    held[r][0] = 0;
    if (!strcmp(op, "mov.f32") && !strncmp(x, "0f", 2)) {
        snprintf(held[r], 16, "%.10s", x);
        return;
    }
    if (n < 4 || (strcmp(op, "mul.f32") && strcmp(op, "mul.rn.f32")))
        return;
    const char *c = operand_const(x, held);
    c = c ? c : operand_const(y, held);
    assert(m->n < 64);
    snprintf(m->consts[m->n++], 16, "%.10s", c ? c : "?");
}

/* The multiplies of kernel `entry` in the PTX file. */
static Muls kernel_muls(const char *ptx, const char *entry)
{
    static char held[MAX_REGS][16];
    memset(held, 0, sizeof held);
    Muls m = {0};
    FILE *f = fopen(ptx, "r");
    assert(f);
    char line[512], head[160];
    snprintf(head, sizeof head, ".visible .entry %s(", entry);
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, ".visible .entry", 15))
            in = !strncmp(line, head, strlen(head));
        else if (in)
            scan_line(line, held, &m);
    }
    fclose(f);
    return m;
}

/* The PTX of star3d1r at CONFIG, with or without --same-bits; its path in ptx. */
static int compile(Arena *a, int same_bits, char *ptx, size_t len)
{
    IrProgram *p = load_example("bench/star3d1r.st", a);
    assert(p);
    p->same_bits = same_bits;
    Config c = load_config(p, CONFIG);
    char why[256], base[128], cmd[1024];
    Plan *plan = plan_build(p, &c, a, why, sizeof why);
    if (!plan) {
        fprintf(stderr, "star3d1r %s: %s\n", CONFIG, why);
        return 1;
    }
    snprintf(base, sizeof base, "%s/star3d1r_%s", dir, same_bits ? "same" : "default");
    hb_emit_files(plan, base);
    snprintf(ptx, len, "%s.ptx", base);
    snprintf(cmd, sizeof cmd, "%s -O3 -arch=sm_90 -ptx %s.cu -o %s > %s.log 2>&1", nvcc, base, ptx, base);
    if (system(cmd) != 0) {
        fprintf(stderr, "nvcc failed on %s.cu (%s.log)\n", base, base);
        return 1;
    }
    return 0;
}

/* How many of the fused kernel's multiplies keep another product than the one-step kernel's. */
static int differing(const char *ptx, const char *label)
{
    Muls fused = kernel_muls(ptx, "star3d1r_step"), single = kernel_muls(ptx, "star3d1r_step_single");
    assert(single.n == 1 && fused.n == 36);
    int other = 0;
    for (int i = 0; i < fused.n; i++)
        other += strcmp(fused.consts[i], single.consts[0]) != 0;
    printf("%s: one-step kernel multiplies by %s; fused kernel: %d of its %d points by another constant\n",
           label, single.consts[0], other, fused.n);
    return other;
}

int main(void)
{
    nvcc = hb_nvcc_scratch(dir, sizeof dir, "stc_nvcc_same_bits");
    if (!nvcc)
        return 77;
    Arena *a = arena_new();
    char same[256], plain[256];
    int failed = compile(a, 1, same, sizeof same) || compile(a, 0, plain, sizeof plain);
    if (!failed && differing(same, "--same-bits") != 0) {
        fprintf(stderr, "--same-bits: the fused kernel rounds some points unlike the one-step kernel\n");
        failed = 1;
    }
    if (!failed && differing(plain, "default") == 0) {
        fprintf(stderr, "default: every point alike without --same-bits; this nvcc contracts every copy "
                        "alike, so this half of the test no longer shows the difference\n");
        failed = 1;
    }
    arena_free(a);
    return hb_scratch_done(dir, failed);
}
