/* One point of the tuning space: a plain struct. Inactive parameters are padded to 1 (booleans
 * are 1 = off, 2 = on; numbers are powers of two), as GeST's global space does, so the tuner can
 * treat every configuration as a vector of log2 values. The ids are the vector's coordinates:
 * a new one goes at the end, so that recorded searches replay the same. Each id belongs to one
 * parameter row of a pass (pass.h), which gives its key, values and documentation. */
#ifndef STC_CONFIG_H
#define STC_CONFIG_H

typedef enum {
    P_TBX, P_TBY, P_TBZ,      /* thread-block dims */
    P_SMEM,                   /* shared-memory tiling of the input */
    P_CMEM,                   /* coefficients (constants) in constant memory */
    P_STREAM,                 /* 2.5D streaming along SD */
    P_SD,                     /* streaming dimension: 1 = y, 2 = z (as a padded value: 1 or 2) */
    P_SB,                     /* concurrent-streaming block: points along SD per thread block */
    P_UFX, P_UFY, P_UFZ,      /* unroll factors */
    P_CMX, P_CMY, P_CMZ,      /* cyclic merging: points per thread, strided by the block size */
    P_BMX, P_BMY, P_BMZ,      /* block merging: points per thread, adjacent */
    P_RETIME,                 /* retiming (streaming only) */
    P_PREFETCH,               /* prefetching the next plane (streaming only) */
    P_TB,                     /* temporal blocking: steps fused per launch */
    P_REGQ,                   /* of the 2R+1 streamed planes, how many live in registers */
    P_MAXREG,                 /* register cap per thread via launch bounds (1 = none) */
    P_VEC,                    /* tile pass: a thread's adjacent x points as one vector access */
    P_HCOL,                   /* tile pass: store the halo columns of the rows written */
    P_SELECT,                 /* streaming temporal kernel: every point computed, then selected */
    P_HOLD,                   /* one GPU: fused steps that wrap or reflect run held (codegen/hold.c) */
    P_HWRAP,                  /* held fused steps wrap the extended grid instead of holding its faces */
    P_ASYNC,                  /* retimed streaming: planes staged by asynchronous copies, two in flight */
    P_COUNT
} ParamId;

typedef struct {
    int v[P_COUNT];
} Config;

/* The plain kernel: 32x8x1 (2D) / 32x4x2 (3D) thread blocks, nothing else on. */
Config config_default(int dims);
/* Parses 'tb=32x8x1,stream=z,sb=64,...' into *c (starting from the default). Returns 0, or -1
 * with a message in err. */
int config_parse(const char *text, int dims, Config *c, char *err, int errlen);
/* Prints c in the syntax config_parse reads (tb, and the parts that are not 1). */
void config_format(const Config *c, char *buf, int len);
/* The item of c's text that holds id, in the words --config takes: "uf=1x2x1", "smem=on",
 * "stream=z" (for P_SD too), "maxreg=off". */
void config_item(const Config *c, ParamId id, char *buf, int len);
/* A short name of the id alone ("tbx", "smem", "sd"), for listings of ids. */
const char *config_param_name(ParamId p);

#endif
