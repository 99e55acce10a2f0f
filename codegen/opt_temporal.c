/* The temporal pass: kernel emitter. */
#include "opt.h"

#include <stdio.h>

int cg_temporal_wants(const Config *c)
{
    (void)c;
    return 0;
}

int cg_emit_stage_temporal(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                     char *why, int whylen)
{
    (void)ctx, (void)stage, (void)name, (void)args, (void)l;
    snprintf(why, (size_t)whylen, "the temporal pass is not implemented yet");
    return -1;
}
