/* The compiled kernel's facts read from text (tuner/features_ptx.c): ptxas's verbose report and
 * the PTX of two kernels as NVRTC 13.0 wrote them for sm_90 (tests/tuner/data/two_kernels.*). */
#include <string.h>

#include "fake_space.h"
#include "feat.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strdup(buf);
}

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    char *ptx = slurp(argv[1]), *report = slurp(argv[2]);
    FeatKernel k;
    memset(&k, 0, sizeof k);
    CHECK(feat_ptxas_parse(report, "k", &k) == 0);
    CHECK(k.regs == 10 && k.barriers == 1 && k.smem_static == 256 && k.spill_bytes == 0 && k.stack_bytes == 0);
    memset(&k, 0, sizeof k);
    CHECK(feat_ptxas_parse(report, "fill", &k) == 0);
    CHECK(k.regs == 8 && k.barriers == 0 && k.smem_static == 0);
    CHECK(feat_ptxas_parse(report, "nothing", &k) == -1);
    /* spills, as ptxas prints them */
    memset(&k, 0, sizeof k);
    CHECK(feat_ptxas_parse("ptxas info    : Compiling entry function 's' for 'sm_90'\n"
                           "ptxas         .     24 bytes stack frame, 20 bytes spill stores, 12 bytes spill loads\n"
                           "ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem\n",
                           "s", &k) == 0);
    CHECK(k.regs == 255 && k.spill_bytes == 32 && k.stack_bytes == 24 && k.smem_static == 4096);

    memset(&k, 0, sizeof k);
    CHECK(feat_ptx_mix(ptx, "k", &k) == 0);
    CHECK(k.ld_global == 2 && k.st_global == 1 && k.ld_shared == 1 && k.st_shared == 1);
    CHECK(k.shfl == 1 && k.branch == 1 && k.fma == 1 && k.farith == 0 && k.ld_const == 0);
    CHECK(k.iarith == 11);
    CHECK(k.instr == 36); /* every line of its body but directives, labels and ret */
    memset(&k, 0, sizeof k);
    CHECK(feat_ptx_mix(ptx, "fill", &k) == 0);
    CHECK(k.st_global == 1 && k.ld_global == 0 && k.instr == 7);
    CHECK(feat_ptx_mix(ptx, "missing", &k) == -1);
    /* every entry: the sum of both */
    memset(&k, 0, sizeof k);
    CHECK(feat_ptx_mix(ptx, NULL, &k) == 0);
    CHECK(k.instr == 43 && k.st_global == 2);
    free(ptx);
    free(report);
    puts("features_ptx: ok");
    return 0;
}
