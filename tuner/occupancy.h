/* Theoretical occupancy from a table of GPUs' limits, without a GPU: how many blocks of a kernel
 * an SM holds, given its threads per block, registers per thread and shared memory per block,
 * as the CUDA occupancy calculator computes it (registers allocated per warp in units of 256,
 * the register file split over 4 sub-partitions, 1 KiB of shared memory reserved per block).
 * The limits are those of NVIDIA's CUDA C++ Programming Guide ("Technical Specifications per
 * Compute Capability"); the GPUs' SM counts and memory bandwidths are their data sheets'.
 *
 * Prefix: occ_. Nothing here touches a GPU. */
#ifndef STC_OCCUPANCY_H
#define STC_OCCUPANCY_H

typedef struct {
    const char *name;        /* a GPU or an architecture ("sm_90") */
    const char *match;       /* a device name holding this text is this GPU (NULL: an architecture) */
    int cc;                  /* compute capability x 10, e.g. 90 */
    int sms;                 /* streaming multiprocessors */
    double mem_gbs;          /* memory bandwidth of the data sheet, GB/s */
    int l2_kib;
    int max_threads_sm, max_warps_sm, max_blocks_sm;
    int regs_sm, regs_block, regs_thread;
    int reg_unit;            /* registers are allocated per warp in units of this many */
    int smem_sm, smem_block; /* bytes: per SM (the largest carve-out), per block (opt-in) */
    int smem_reserved;       /* bytes the system reserves per block */
    int smem_unit;           /* allocation granularity in bytes */
} OccGpu;

/* The table, ending with a row whose name is NULL. */
extern const OccGpu occ_gpus[];

/* The row of a GPU: by its name (any case), by text a device name contains (the name the driver
 * reports), or by architecture ("sm_90", "sm90", "90"): the architecture's own row. NULL when
 * none matches. */
const OccGpu *occ_gpu_find(const char *what);
/* The architecture's row (cc x 10, e.g. 89), or the nearest older one the table knows (a newer
 * GPU is assumed to hold at least what its predecessor held); NULL below sm_80. */
const OccGpu *occ_gpu_by_cc(int cc);

typedef enum {
    OCC_FITS,          /* runs; limited by the field `limit` below */
    OCC_TOO_MANY_THREADS,
    OCC_TOO_MANY_REGS,
    OCC_TOO_MUCH_SMEM,
} OccStatus;

typedef enum { OCC_BY_WARPS, OCC_BY_BLOCKS, OCC_BY_REGS, OCC_BY_SMEM } OccLimit;

typedef struct {
    OccStatus status;
    OccLimit limit;      /* what bounds blocks_sm */
    int blocks_sm;       /* resident blocks per SM, 0 when it cannot launch */
    int warps_sm;        /* resident warps per SM */
    double occupancy;    /* warps_sm / max_warps_sm */
} Occupancy;

/* threads per block, registers per thread (0: unknown, counted as the fewest a kernel uses),
 * shared memory per block in bytes (static + dynamic). */
Occupancy occ_compute(const OccGpu *g, int threads, int regs, int smem);
const char *occ_limit_name(OccLimit l);

/* Fewer warps per SM than this cannot hide memory latency: a variant that cannot have them in
 * flight is hopeless (occ_hopeless). */
#define OCC_MIN_WARPS 4

/* Whether the limits make a variant hopeless on g, before or after it is compiled: it cannot
 * launch (a block beyond the threads, registers or shared memory an SM has), or its SMs cannot
 * hold OCC_MIN_WARPS warps, because of what its blocks use or because the grid has too few
 * blocks to give every SM that many. regs: the compiled count, 0 when not compiled (then the
 * fewest a kernel uses, so that only certain cases are pruned); blocks: the blocks of its
 * launch. 1 with the reason in why, else 0. */
int occ_hopeless(const OccGpu *g, int threads, int regs, int smem, double blocks, char *why, int whylen);
const char *occ_status_text(OccStatus s);

#endif
