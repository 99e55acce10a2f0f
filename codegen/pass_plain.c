/* The plain kernel: one thread per point, the block of tb. The last row of the table: it
 * applies to every configuration, so it builds the stage kernels where no pass before it does. */
#include "pass.h"

static int build_plain(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                       PlanLaunch *l, char *why, int whylen)
{
    (void)l, (void)why, (void)whylen;
    cg_emit_stage_plain(ctx, stage, name, args);
    return 0;
}

const CgPass cg_pass_plain = {
    .name = "plain",
    .build = build_plain,
};
