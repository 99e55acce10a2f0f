/* The tuning space's share of the tile pass (smem, cmem, unroll, cyclic and block merging): values and constraints. */
#include "opt.h"

static void init_tile(Space *s) { (void)s; /* parameters stay 1 until the pass is implemented */ }

const SpacePass space_pass_tile = {"tile", init_tile, NULL, 0};
