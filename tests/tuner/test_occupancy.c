/* Theoretical occupancy from the table of GPUs (tuner/occupancy.c): the CUDA occupancy
 * calculator's answers for a few kernels, each limit in turn, and finding GPUs by name and
 * architecture. */
#include <math.h>
#include <string.h>

#include "fake_space.h"
#include "occupancy.h"

static void test_limits(void)
{
    const OccGpu *h100 = occ_gpu_find("H100");
    CHECK(h100 && h100->cc == 90 && h100->sms == 132);
    /* star3d1r's cyclic kernel (docs/config.md): 79-80 registers, 256 threads, 3 blocks per SM;
     * with 86 registers 2 (the reason cmem=on matters there) */
    Occupancy o = occ_compute(h100, 256, 80, 0);
    CHECK(o.status == OCC_FITS && o.blocks_sm == 3 && o.limit == OCC_BY_REGS);
    CHECK(fabs(o.occupancy - 24.0 / 64) < 1e-9);
    o = occ_compute(h100, 256, 86, 0);
    CHECK(o.blocks_sm == 2);
    /* 1024 threads at 32 registers: two blocks (the 3D box prior's reason for maxreg=32) */
    o = occ_compute(h100, 1024, 32, 0);
    CHECK(o.blocks_sm == 2 && o.occupancy == 1.0);
    o = occ_compute(h100, 1024, 64, 0);
    CHECK(o.blocks_sm == 1 && o.limit == OCC_BY_REGS);
    o = occ_compute(h100, 1024, 72, 0);
    CHECK(o.status == OCC_TOO_MANY_REGS && o.blocks_sm == 0);
    /* small blocks: the 32 blocks per SM bound */
    o = occ_compute(h100, 32, 16, 0);
    CHECK(o.blocks_sm == 32 && o.limit == OCC_BY_BLOCKS && o.occupancy == 0.5);
    /* shared memory: 1 KiB reserved per block, 128-byte units */
    o = occ_compute(h100, 128, 32, 48 * 1024);
    CHECK(o.blocks_sm == 4 && o.limit == OCC_BY_SMEM);
    o = occ_compute(h100, 128, 32, 100 * 1024);
    CHECK(o.blocks_sm == 2);
    o = occ_compute(h100, 128, 32, 228 * 1024);
    CHECK(o.status == OCC_TOO_MUCH_SMEM);
    /* an L40 (sm_89) takes at most 99 KiB per block and 24 blocks, 48 warps per SM */
    const OccGpu *l40 = occ_gpu_find("NVIDIA L40");
    CHECK(l40 && l40->cc == 89);
    CHECK(occ_compute(l40, 128, 32, 100 * 1024).status == OCC_TOO_MUCH_SMEM);
    o = occ_compute(l40, 32, 16, 0);
    CHECK(o.blocks_sm == 24 && fabs(o.occupancy - 0.5) < 1e-9);
    o = occ_compute(l40, 1024, 32, 0);
    CHECK(o.blocks_sm == 1 && fabs(o.occupancy - 32.0 / 48) < 1e-9);
    /* an A100 (sm_80): 164 KiB per SM */
    const OccGpu *a100 = occ_gpu_find("A100");
    o = occ_compute(a100, 128, 32, 80 * 1024);
    CHECK(o.blocks_sm == 2);
    CHECK(occ_compute(h100, 2048, 16, 0).status == OCC_TOO_MANY_THREADS);
}

static void test_find(void)
{
    CHECK(!strcmp(occ_gpu_find("NVIDIA H100 80GB HBM3")->name, "H100"));
    CHECK(!strcmp(occ_gpu_find("NVIDIA H100 PCIe")->name, "H100 PCIe"));
    CHECK(!strcmp(occ_gpu_find("NVIDIA H200")->name, "H200"));
    CHECK(!strcmp(occ_gpu_find("h200")->name, "H200"));
    CHECK(!strcmp(occ_gpu_find("NVIDIA A100-SXM4-80GB")->name, "A100"));
    CHECK(!strcmp(occ_gpu_find("NVIDIA A10")->name, "A10"));
    CHECK(!strcmp(occ_gpu_find("NVIDIA L40S")->name, "L40S"));
    CHECK(!strcmp(occ_gpu_find("sm_90")->name, "sm_90"));
    CHECK(!strcmp(occ_gpu_find("sm89")->name, "sm_89"));
    CHECK(!strcmp(occ_gpu_find("8.6")->name, "sm_86"));
    CHECK(occ_gpu_find("sm_75") == NULL);  /* older than the table */
    CHECK(occ_gpu_find("sm_100") == NULL); /* not in the table by name... */
    CHECK(occ_gpu_by_cc(100)->cc == 90);   /* ...but a newer GPU gets its predecessor's limits */
    CHECK(occ_gpu_by_cc(87)->cc == 86);
    CHECK(occ_gpu_by_cc(75) == NULL);
    CHECK(occ_gpu_find("Radeon") == NULL && occ_gpu_find("") == NULL && occ_gpu_find(NULL) == NULL);
}

static void test_hopeless(void)
{
    const OccGpu *h100 = occ_gpu_find("H100"), *l40 = occ_gpu_find("L40");
    char why[200];
    CHECK(!occ_hopeless(h100, 256, 80, 0, 16384, why, sizeof why));
    /* a 2D stream of 4096 planes per block on 8192^2: 64 blocks of 8 warps for 132 SMs (5x the
     * best's time in box2d1r's recording) */
    CHECK(occ_hopeless(h100, 256, 0, 0, 64, why, sizeof why) && strstr(why, "grid has 64 blocks"));
    CHECK(!occ_hopeless(h100, 256, 0, 0, 256, why, sizeof why));
    /* cannot launch: a 100 KiB tile on an L40, 1024 threads at 72 registers */
    CHECK(!occ_hopeless(h100, 128, 0, 100 * 1024, 1e5, why, sizeof why));
    CHECK(occ_hopeless(l40, 128, 0, 100 * 1024, 1e5, why, sizeof why) && strstr(why, "cannot launch"));
    CHECK(occ_hopeless(h100, 1024, 72, 0, 1e5, why, sizeof why));
    /* one warp per block and 100 KiB each: 2 warps per SM */
    CHECK(occ_hopeless(h100, 32, 0, 100 * 1024, 1e5, why, sizeof why) && strstr(why, "2 warps per SM"));
}

int main(void)
{
    test_limits();
    test_find();
    test_hopeless();
    puts("occupancy: ok");
    return 0;
}
