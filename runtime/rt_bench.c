/* What a measured time means: stencil updates per second, bytes moved per second, and how close
 * that comes to the copy bandwidth the memory system reaches. */
#include <stdio.h>
#include <stdlib.h>
#include "rt_internal.h"

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

double rt_copy_bandwidth(RtContext *rc, char *why, int whylen)
{
    enum { REPS = 11 };
    size_t bytes = (size_t)1 << 30;
    CUdeviceptr src = 0, dst = 0;
    CUevent ev[2] = { NULL, NULL };
    float times[REPS];
    double gbs = -1;
    if (RT_CU(rc, CtxSetCurrent(rc->ctx), "cuCtxSetCurrent", why, whylen))
        return -1;
    /* Smaller buffers where 2 GiB is not free. */
    while (rc->api.MemAlloc(&src, bytes) != CUDA_SUCCESS
           || rc->api.MemAlloc(&dst, bytes) != CUDA_SUCCESS) {
        if (src) rc->api.MemFree(src);
        src = 0;
        bytes /= 2;
        if (bytes < ((size_t)64 << 20)) {
            snprintf(why, (size_t)whylen, "cannot allocate buffers for the copy bandwidth");
            return -1;
        }
    }
    if (RT_CU(rc, MemsetD8Async(src, 1, bytes, NULL), "cuMemsetD8Async", why, whylen)
        || RT_CU(rc, EventCreate(&ev[0], CU_EVENT_DEFAULT), "cuEventCreate", why, whylen)
        || RT_CU(rc, EventCreate(&ev[1], CU_EVENT_DEFAULT), "cuEventCreate", why, whylen)
        || RT_CU(rc, MemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD", why, whylen))
        goto done;
    for (int r = 0; r < REPS; r++) {
        if (RT_CU(rc, EventRecord(ev[0], NULL), "cuEventRecord", why, whylen)
            || RT_CU(rc, MemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD", why, whylen)
            || RT_CU(rc, EventRecord(ev[1], NULL), "cuEventRecord", why, whylen)
            || RT_CU(rc, EventSynchronize(ev[1]), "cuEventSynchronize", why, whylen)
            || RT_CU(rc, EventElapsedTime(&times[r], ev[0], ev[1]), "cuEventElapsedTime", why,
                     whylen))
            goto done;
    }
    qsort(times, REPS, sizeof times[0], cmp_float);
    gbs = 2.0 * (double)bytes / (times[REPS / 2] * 1e-3) / 1e9;
done:
    for (int i = 0; i < 2; i++)
        if (ev[i])
            rc->api.EventDestroy(ev[i]);
    rc->api.MemFree(src);
    rc->api.MemFree(dst);
    return gbs;
}

double rt_gstencils(const int n[3], double ms_per_step)
{
    double points = (double)n[0] * n[1] * n[2];
    return ms_per_step > 0 ? points / (ms_per_step * 1e-3) / 1e9 : 0;
}

void rt_bench_report(FILE *out, const IrProgram *prog, const int n[3], const RtTiming *t,
                     double copy_gbs)
{
    int m[3];
    for (int d = 0; d < 3; d++)
        m[d] = d < prog->dims ? n[d] : 1;
    double gst = rt_gstencils(m, t->ms_per_step);
    double gbs = gst * prog->an.bytes_per_point;
    fprintf(out, "%s: %dx%dx%d, %.4f ms/step (median of %d x %ld steps%s), %.2f GStencil/s, "
            "%.1f GB/s", prog->name, m[0], m[1], m[2], t->ms_per_step, t->reps,
            t->steps_per_rep, t->flushed ? ", L2 flushed" : "", gst, gbs);
    if (copy_gbs > 0)
        fprintf(out, ", %.0f%% of copy bandwidth (%.0f GB/s)", 100.0 * gbs / copy_gbs, copy_gbs);
    fputc('\n', out);
}
