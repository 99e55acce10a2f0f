/* Theoretical occupancy from the GPUs' limits (occupancy.h). */
#include "occupancy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The limits per architecture: threads, warps and blocks per SM; registers per SM, block and
 * thread; the register allocation unit; shared memory per SM and per block; reserved per block;
 * its allocation unit. */
#define SM80 2048, 64, 32, 65536, 65536, 255, 256, 167936, 166912, 1024, 128
#define SM86 1536, 48, 16, 65536, 65536, 255, 256, 102400, 101376, 1024, 128
#define SM89 1536, 48, 24, 65536, 65536, 255, 256, 102400, 101376, 1024, 128
#define SM90 2048, 64, 32, 65536, 65536, 255, 256, 233472, 232448, 1024, 128

/* A GPU's row comes before a shorter name that its name contains, so that occ_gpu_find takes the
 * most specific one. */
const OccGpu occ_gpus[] = {
    {"H200", "H200", 90, 132, 4800, 51200, SM90},
    {"H100 PCIe", "H100 PCIe", 90, 114, 2000, 51200, SM90},
    {"H100", "H100", 90, 132, 3350, 51200, SM90},
    {"A100", "A100", 80, 108, 2039, 40960, SM80},
    {"L40S", "L40S", 89, 142, 864, 98304, SM89},
    {"L40", "L40", 89, 142, 864, 98304, SM89},
    {"RTX 4090", "RTX 4090", 89, 128, 1008, 73728, SM89},
    {"A10", "A10", 86, 72, 600, 6144, SM86},
    /* the architectures, each with the SM count and bandwidth of the row above that has them */
    {"sm_90", NULL, 90, 132, 3350, 51200, SM90},
    {"sm_89", NULL, 89, 142, 864, 98304, SM89},
    {"sm_86", NULL, 86, 72, 600, 6144, SM86},
    {"sm_80", NULL, 80, 108, 2039, 40960, SM80},
    {NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
};

/* Case-insensitive strstr. */
static int contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* "sm_90", "sm90", "SM_90", "90", "9.0": the compute capability x 10, else -1. */
static int parse_arch(const char *s)
{
    if (!strncasecmp(s, "sm_", 3))
        s += 3;
    else if (!strncasecmp(s, "sm", 2))
        s += 2;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s)
        return -1;
    if (*end == '.' && isdigit((unsigned char)end[1]) && v < 20) {
        v = v * 10 + (end[1] - '0');
        end += 2;
    }
    return *end == 0 && v >= 10 && v < 1000 ? (int)v : -1;
}

const OccGpu *occ_gpu_by_cc(int cc)
{
    const OccGpu *best = NULL;
    for (const OccGpu *g = occ_gpus; g->name; g++)
        if (!g->match && g->cc <= cc && (!best || g->cc > best->cc))
            best = g;
    return best;
}

const OccGpu *occ_gpu_find(const char *what)
{
    if (!what || !*what)
        return NULL;
    for (const OccGpu *g = occ_gpus; g->name; g++)
        if (!strcasecmp(g->name, what))
            return g;
    int cc = parse_arch(what);
    if (cc > 0) {
        const OccGpu *g = occ_gpu_by_cc(cc);
        return g && g->cc == cc ? g : NULL;
    }
    for (const OccGpu *g = occ_gpus; g->name; g++)
        if (g->match && contains(what, g->match))
            return g;
    return NULL;
}

static int round_up(int v, int unit) { return (v + unit - 1) / unit * unit; }

Occupancy occ_compute(const OccGpu *g, int threads, int regs, int smem)
{
    Occupancy o = {OCC_FITS, OCC_BY_WARPS, 0, 0, 0};
    int warps = (threads + 31) / 32;
    if (threads <= 0 || threads > 1024 || threads > g->max_threads_sm) {
        o.status = OCC_TOO_MANY_THREADS;
        return o;
    }
    int by_warps = g->max_warps_sm / warps;
    int blocks = by_warps < g->max_blocks_sm ? by_warps : g->max_blocks_sm;
    o.limit = by_warps < g->max_blocks_sm ? OCC_BY_WARPS : OCC_BY_BLOCKS;

    /* registers: per warp in units, each of the 4 sub-partitions holding whole warps */
    if (regs < 16)
        regs = 16;
    if (regs > g->regs_thread) {
        o.status = OCC_TOO_MANY_REGS;
        return o;
    }
    int per_warp = round_up(regs * 32, g->reg_unit);
    if (per_warp * warps > g->regs_block) {
        o.status = OCC_TOO_MANY_REGS;
        return o;
    }
    int by_regs = (g->regs_sm / 4 / per_warp) * 4 / warps;
    if (by_regs < blocks) {
        blocks = by_regs;
        o.limit = OCC_BY_REGS;
    }

    /* shared memory */
    if (smem > g->smem_block) {
        o.status = OCC_TOO_MUCH_SMEM;
        return o;
    }
    int per_block = round_up(smem + g->smem_reserved, g->smem_unit);
    int by_smem = g->smem_sm / per_block;
    if (by_smem < blocks) {
        blocks = by_smem;
        o.limit = OCC_BY_SMEM;
    }
    if (blocks <= 0) {
        o.status = o.limit == OCC_BY_REGS ? OCC_TOO_MANY_REGS : OCC_TOO_MUCH_SMEM;
        return o;
    }
    o.blocks_sm = blocks;
    o.warps_sm = blocks * warps;
    o.occupancy = (double)o.warps_sm / g->max_warps_sm;
    return o;
}

const char *occ_limit_name(OccLimit l)
{
    static const char *const names[] = {"warps", "blocks", "registers", "shared memory"};
    return names[l];
}

const char *occ_status_text(OccStatus s)
{
    static const char *const text[] = {"fits", "too many threads per block",
                                       "too many registers per block",
                                       "too much shared memory per block"};
    return text[s];
}

int occ_hopeless(const OccGpu *g, int threads, int regs, int smem, double blocks, char *why, int whylen)
{
    Occupancy o = occ_compute(g, threads, regs, smem);
    if (o.status != OCC_FITS) {
        snprintf(why, (size_t)whylen, "cannot launch on %s: %s", g->name, occ_status_text(o.status));
        return 1;
    }
    int warps = (threads + 31) / 32;
    double supplied = blocks * warps / g->sms; /* warps per SM the whole grid offers */
    if (o.warps_sm < OCC_MIN_WARPS) {
        snprintf(why, (size_t)whylen, "%d warps per SM on %s (at most %d blocks of %d threads, limited by %s)",
                 o.warps_sm, g->name, o.blocks_sm, threads, occ_limit_name(o.limit));
        return 1;
    }
    if (supplied < OCC_MIN_WARPS) {
        snprintf(why, (size_t)whylen, "%.1f warps per SM on %s: the grid has %.0f blocks of %d threads for %d SMs",
                 supplied, g->name, blocks, threads, g->sms);
        return 1;
    }
    return 0;
}
