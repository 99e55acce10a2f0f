/* The tuning space's share of the stream pass (P_STREAM/P_SD/P_SB/P_REGQ/P_RETIME/P_PREFETCH): values and constraints. */
#include "opt.h"

static void init_stream(Space *s) { (void)s; /* parameters stay 1 until the pass is implemented */ }

const SpacePass space_pass_stream = {"stream", init_stream, NULL, 0};
