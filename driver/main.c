/* stencilc: the whole pipeline, in the order data flows through it.
 *
 *   source --parse--> AST --lower--> IR --(config | autotune)--> Plan --emit--> FILE.cu + FILE.h
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codegen/plan.h"
#include "../codegen/space.h"
#include "../ir/ir.h"
#include "../util/strbuf.h"
#include "model_cmd.h"
#include "options.h"
#include "steps.h"

/* A step's result as the exit status: 2 (STEP_USAGE) for a usage error, 1 for any other. */
static int exit_status(int step_rc)
{
    return step_rc == STEP_USAGE ? 2 : step_rc != 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "model")) /* the learned model's commands */
        return step_model(argc - 1, argv + 1);
    Options opt;
    Job job = {.opt = &opt};
    diag_init(&job.diag, &job.src, stderr); /* every message goes there; the source comes later */
    int rc = options_parse(argc, argv, &opt, &job.diag);
    if (rc == 1)
        return 0;
    if (rc == 2)
        return 2;

    Arena *arena = arena_new();
    job.arena = arena;
    if (opt.cmd == CMD_REPLAY) {
        rc = step_replay(&job);
        goto done;
    }
    if ((rc = exit_status(step_read_and_parse(&job))) != 0) /* frontend/ */
        goto done;
    if (opt.dump_ast) {
        step_dump_ast(&job);
        rc = 0;
        goto done;
    }
    if ((rc = exit_status(step_lower(&job))) != 0) /* ir/: checks, stages, analyses */
        goto done;
    if (opt.dump_ir) {
        ir_dump(stdout, job.prog);
        rc = 0;
        goto done;
    }
    if (opt.cmd == CMD_CHECK) { /* ir/interp.c on a small grid */
        rc = step_check(&job);
        goto done;
    }
    if (opt.list_space) { /* codegen/space.c */
        space_print(stdout, &job.space);
        rc = 0;
        goto done;
    }
    if (opt.cmd == CMD_COMPILE && (rc = exit_status(step_check_outputs(&job))) != 0) /* never the input, nor a FIFO */
        goto done;
    if ((rc = exit_status(step_choose_config(&job))) != 0) /* --config, --autotune (tuner/), or the default */
        goto done;
    if ((rc = exit_status(step_build_plan(&job))) != 0) /* codegen/ */
        goto done;
    if (opt.cmd == CMD_COMPILE && opt.distributed && opt.nprocs && step_dist_choose(&job) != 0) /* the model */
        goto done;
    if (opt.cmd == CMD_BENCH) { /* runtime/ */
        rc = step_bench(&job);
        goto done;
    }
    if ((rc = exit_status(step_emit(&job))) != 0) /* FILE.cu + FILE.h, validated, written atomically */
        goto done;
    rc = 0;
done:
    arena_free(arena);
    return rc;
}
