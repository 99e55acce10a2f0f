/* Front half of the pipeline: read, parse, choose the stencil, lower to IR, settle the grid. */
#include <stdio.h>
#include <string.h>

#include "../ir/interp.h"
#include "../codegen/codegen.h"
#include "../util/nearest.h"
#include "../util/strbuf.h"
#include "steps.h"

int step_read_and_parse(Job *job)
{
    job->src.name = job->opt->input;
    if (source_read(job->opt->input, job->arena, &job->diag, &job->src) != 0)
        return -1;
    if (parse_source(&job->src, job->arena, &job->diag, &job->ast) != 0)
        return -1;
    return 0;
}

void step_dump_ast(Job *job) { ast_print(stdout, &job->ast); }

/* "a, b and c": the file's stencils, for messages. */
static const char *stencil_names(Job *job)
{
    const AstFile *f = &job->ast;
    StrBuf sb = {0};
    int i = 0;
    for (; i < f->nstencils && sb.len < 400; i++)
        sb_printf(&sb, "%s'%s'", i == 0 ? "" : i + 1 == f->nstencils ? " and " : ", ", f->stencils[i].name);
    if (i < f->nstencils)
        sb_printf(&sb, " and %d more", f->nstencils - i);
    const char *names = arena_strdup(job->arena, sb.data);
    sb_free(&sb);
    return names;
}

/* The stencil named by --stencil, or the only one in the file; NULL with *usage set where
 * --stencil names none of them. */
static const AstStencil *select_stencil(Job *job, int *usage)
{
    const AstFile *f = &job->ast;
    const char *want = job->opt->stencil;
    Loc none = {0, 0, 0};
    if (f->nstencils == 0) {
        diag_error(&job->diag, none, STC_E_NO_STENCIL, "the file defines no stencil");
        return NULL;
    }
    if (!want) {
        if (f->nstencils == 1)
            return &f->stencils[0];
        diag_error(&job->diag, none, STC_E_NO_STENCIL,
                   "the file defines %d stencils (%s); choose one with --stencil NAME", f->nstencils,
                   stencil_names(job));
        return NULL;
    }
    const char *names[64];
    int n = 0;
    for (int i = 0; i < f->nstencils; i++) {
        if (!strcmp(f->stencils[i].name, want))
            return &f->stencils[i];
        if (n < 64)
            names[n++] = f->stencils[i].name;
    }
    const char *near = text_nearest(want, names, n, 2);
    *usage = 1;
    diag_error(&job->diag, none, STC_E_NO_STENCIL, "the file defines no stencil named '%s'%s%s%s; it defines %s",
               diag_name(want), near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
               stencil_names(job));
    return NULL;
}

/* --procs: the grid becomes one rank's part (the largest, with the layers it computes again),
 * which is what each GPU of the distributed run computes: tuning and bench measure that. */
static int distributed_part(Job *job)
{
    const Options *o = job->opt;
    const IrProgram *p = job->prog;
    if (o->nprocs != p->dims) {
        diag_run_error(&job->diag, "--procs gives %d counts but '%s' is %dD", o->nprocs, p->name, p->dims);
        return STEP_USAGE;
    }
    long procs[3] = {1, 1, 1}, local[3];
    for (int d = 0; d < o->nprocs; d++)
        procs[d] = o->procs[d];
    char why[256];
    /* (before a configuration is chosen: without the layers of reflected global faces, which a
     * fused configuration of a reflecting program adds, and hwrap=on's layer more a face,
     * docs/distributed.md) */
    if (cg_dist_local_size(p, job->grid, procs, o->depth ? (int)o->depth : 1, 0, 0, local, why, sizeof why) != 0) {
        diag_run_error(&job->diag, "--procs: %s", why);
        return -1;
    }
    if (!o->quiet)
        diag_run_info(&job->diag, "one rank's part of %ldx%ldx%ld over %ldx%ldx%ld (depth %ld): %ldx%ldx%ld",
                      job->grid[0], job->grid[1], job->grid[2], procs[0], procs[1], procs[2],
                      o->depth ? o->depth : 1, local[0], local[1], local[2]);
    for (int d = 0; d < 3; d++) {
        job->global[d] = job->grid[d];
        job->grid[d] = local[d];
    }
    return 0;
}

/* The grid: --grid, else the file's `size`, else a size that suits the dimension. */
static int settle_grid(Job *job)
{
    const IrProgram *p = job->prog;
    const Options *o = job->opt;
    static const long fallback[4][3] = {{1, 1, 1}, {1 << 24, 1, 1}, {4096, 4096, 1}, {256, 256, 256}};
    for (int d = 0; d < 3; d++)
        job->grid[d] = d < p->dims ? (p->size[d] > 0 ? p->size[d] : fallback[p->dims][d]) : 1;
    if (o->ngrid) {
        if (o->ngrid != p->dims) {
            diag_run_error(&job->diag, "--grid gives %d sizes but '%s' is %dD", o->ngrid, p->name, p->dims);
            return STEP_USAGE;
        }
        for (int d = 0; d < p->dims; d++)
            job->grid[d] = o->grid[d];
    }
    int rc = o->nprocs ? distributed_part(job) : 0;
    if (rc != 0)
        return rc;
    job->steps = o->steps ? o->steps : (p->steps ? p->steps : 100);
    char why[256];
    if (ir_check_grid(p, job->grid, why, sizeof why) != 0) {
        diag_run_error(&job->diag, "%s", why);
        return -1;
    }
    return 0;
}

int step_lower(Job *job)
{
    int usage = 0;
    job->stencil = select_stencil(job, &usage);
    if (!job->stencil)
        return usage ? STEP_USAGE : -1;
    job->prog = ir_lower(job->stencil, job->arena, &job->diag);
    if (!job->prog)
        return -1;
    if (job->opt->type >= 0)
        ir_set_type(job->prog, (ElemType)job->opt->type);
    job->prog->c_prefix = job->opt->name;
    job->prog->fast_math = job->opt->fast_math && job->prog->type == ELEM_FLOAT;
    if (job->opt->fast_math && !job->prog->fast_math)
        diag_run_warning(&job->diag, "--fast-math changes nothing in a double program");
    job->prog->same_bits = job->opt->same_bits;
    int rc = settle_grid(job);
    if (rc != 0)
        return rc;
    (job->opt->distributed ? space_init_distributed : space_init)(&job->space, job->prog, job->grid);
    space_set_steps(&job->space, job->steps);
    return 0;
}
