/* The tuning space's share of the temporal pass (P_TB): values and constraints. */
#include "opt.h"

static void init_temporal(Space *s) { (void)s; /* parameters stay 1 until the pass is implemented */ }

const SpacePass space_pass_temporal = {"temporal", init_temporal, NULL, 0};
