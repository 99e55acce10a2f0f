/* The compiled kernel's facts for the feature vector: the plan compiled by NVRTC for an
 * architecture (no GPU needed: a compile-only context), ptxas's report and the PTX read by
 * features_ptx.c. */
#include "features_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int feat_kernel_compile(const RtContext *rc, const Plan *plan, FeatKernel *k, char *why, int whylen)
{
    char *ptx = NULL, *report = NULL;
    memset(k, 0, sizeof *k);
    if (rt_nvrtc_report(rc, plan->source, "plan.cu", &ptx, &report, why, whylen) != 0)
        return -1;
    int rc_ = feat_kernel_from_text(plan, ptx, report, k);
    if (rc_ != 0)
        snprintf(why, (size_t)whylen, "ptxas's report or the PTX lacks a kernel of the plan");
    free(ptx);
    free(report);
    return rc_;
}
