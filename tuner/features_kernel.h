/* The compiled-kernel part of the feature vector (feat.h), from an NVRTC compile: kept out
 * of features.c so that the tuner library stays free of the runtime. */
#ifndef STC_FEATURES_KERNEL_H
#define STC_FEATURES_KERNEL_H

#include "../runtime/rt.h"
#include "feat.h"

/* Compiles plan for rc's architecture (rt_context_compile_only will do) and fills k (known = 1).
 * 0, or -1 with why (NVRTC's message) when it does not compile. */
int feat_kernel_compile(const RtContext *rc, const Plan *plan, FeatKernel *k, char *why, int whylen);

#endif
