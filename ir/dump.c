/* Readable printing of the IR and its analyses (--dump-ir), and the names used for it. */
#include "build.h"

#include <stdio.h>
#include <stdlib.h>


const char *ir_op_name(IrOp op)
{
    return ir_op(op)->name;
}

static void put_bc(StrBuf *o, IrBc bc)
{
    sb_puts(o, ir_bc_name(bc.kind));
    if (bc.kind != BC_CONSTANT)
        return;
    char text[32];
    snprintf(text, sizeof text, "%.15g", bc.value); /* shortest that reads back the same */
    if (strtod(text, NULL) != bc.value)
        snprintf(text, sizeof text, "%.17g", bc.value);
    sb_printf(o, "(%s)", text);
}

void ir_bc_spec(StrBuf *o, const IrField *f, int dims)
{
    int axes = ir_bc_uniform(f) ? 1 : dims;
    for (int a = 0; a < axes; a++) {
        IrBc lo = ir_bc(f, a, 0), hi = ir_bc(f, a, 1);
        sb_puts(o, a ? ", " : "");
        put_bc(o, lo);
        if (hi.kind != lo.kind || hi.value != lo.value) {
            sb_puts(o, " | ");
            put_bc(o, hi);
        }
    }
    if (!o->data)
        sb_puts(o, "");
}

const char *ir_shape_name(IrShape s)
{
    switch (s) {
    case SHAPE_STAR: return "star";
    case SHAPE_BOX: return "box";
    case SHAPE_GENERAL: return "general";
    }
    return "?";
}

static void print_offsets(FILE *out, const IrProgram *p, const int *off)
{
    fputc('[', out);
    for (int d = 0; d < p->dims; d++)
        fprintf(out, "%s%d", d ? "," : "", off[d]);
    fputc(']', out);
}

static void dump_fields(FILE *out, const IrProgram *p)
{
    static const char axis[] = "xyz";
    fprintf(out, "fields:\n");
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fd = &p->fields[f];
        fprintf(out, "  %s: %s", fd->name, ir_role_name(fd->role));
        if (fd->role == ROLE_STATE)
            fprintf(out, ", levels %d", fd->levels);
        StrBuf bc = {0};
        ir_bc_spec(&bc, fd, p->dims);
        fprintf(out, ", bc %s", bc.data);
        sb_free(&bc);
        if (fd->read) {
            fprintf(out, ", footprint");
            for (int d = 0; d < p->dims; d++)
                fprintf(out, " %c[%d,%d]", axis[d], fd->lo[d], fd->hi[d]);
        }
        fprintf(out, "%s", fd->read ? ", read" : "");
        if (fd->written)
            fprintf(out, ", written in stage %d", fd->write_stage);
        if (fd->role == ROLE_TEMP)
            fprintf(out, ", %s", fd->materialized ? "in memory" : "in registers");
        fputc('\n', out);
    }
}

static void dump_node(FILE *out, const IrProgram *p, int i, const IrNode *n)
{
    fprintf(out, "    %%%d = ", i);
    switch (n->op) {
    case N_CONST:
        fprintf(out, "const %.17g", n->value);
        break;
    case N_PARAM:
        fprintf(out, "param %s", p->params[n->param].name);
        break;
    case N_COORD:
    case N_EXTENT:
    case N_STEP:
        fprintf(out, "%s %s", ir_op_name(n->op), ir_builtin_name(n->op, n->param));
        break;
    case N_READ:
        fprintf(out, "read %s", p->fields[n->field].name);
        if (n->level)
            fprintf(out, "@%d", n->level);
        print_offsets(out, p, n->off);
        break;
    default:
        fprintf(out, "%s %%%d", ir_op_name(n->op), n->a);
        if (ir_op_arity(n->op) >= 2)
            fprintf(out, ", %%%d", n->b);
        if (ir_op_arity(n->op) >= 3)
            fprintf(out, ", %%%d", n->c);
        break;
    }
    if (n->uses > 1)
        fprintf(out, "    ; %d uses", n->uses);
    fputc('\n', out);
}

void ir_dump(FILE *out, const IrProgram *p)
{
    fprintf(out, "stencil %s: %dd, %s", p->name ? p->name : "?", p->dims,
            ir_elem_name(p->type));
    if (p->size[0] > 0) {
        fprintf(out, ", size");
        for (int d = 0; d < p->dims; d++)
            fprintf(out, "%s%ld", d ? "x" : " ", p->size[d]);
    }
    if (p->steps > 0)
        fprintf(out, ", steps %ld", p->steps);
    fprintf(out, ", halo");
    for (int d = 0; d < p->dims; d++)
        fprintf(out, "%s%d", d ? "," : " ", p->halo[d]);
    if (p->fast_math)
        fprintf(out, ", fast-math");
    if (p->same_bits)
        fprintf(out, ", same-bits");
    fputc('\n', out);
    dump_fields(out, p);
    if (p->nparams) {
        fprintf(out, "params:\n");
        for (int i = 0; i < p->nparams; i++) {
            fprintf(out, "  %s", p->params[i].name);
            if (p->params[i].has_default)
                fprintf(out, " = %.17g", p->params[i].def);
            fprintf(out, "%s\n", p->params[i].used ? "" : " (unused)");
        }
    }
    for (int s = 0; s < p->nstages; s++) {
        const IrStage *st = &p->stages[s];
        fprintf(out, "stage %d (radius", s);
        for (int d = 0; d < p->dims; d++)
            fprintf(out, "%s%d", d ? "," : " ", st->radius[d]);
        fprintf(out, "):\n");
        for (int i = 0; i < st->nnodes; i++)
            if (st->nodes[i].uses > 0)
                dump_node(out, p, i, &st->nodes[i]);
        for (int w = 0; w < st->nwrites; w++)
            fprintf(out, "    %s <- %%%d\n", p->fields[st->writes[w].field].name,
                    st->writes[w].node);
    }
    for (int r = 0; r < p->nreduces; r++) {
        const IrStage *st = &p->reduces[r].stage;
        fprintf(out, "reduce %s (after the step):\n", p->reduces[r].name);
        for (int i = 0; i < st->nnodes; i++)
            if (st->nodes[i].uses > 0)
                dump_node(out, p, i, &st->nodes[i]);
        fprintf(out, "    %s of %%%d\n", ir_reduce_kind_name(p->reduces[r].kind), ir_reduce_node(&p->reduces[r]));
    }
    const IrAnalysis *an = &p->an;
    fprintf(out, "analysis:\n");
    fprintf(out, "  radius %d, shape %s, points %d\n", an->radius, ir_shape_name(an->shape),
            an->points);
    if (an->symmetric) {
        fprintf(out, "  symmetric along");
        for (int d = 0; d < p->dims; d++)
            if (an->symmetric >> d & 1)
                fprintf(out, " %c", "xyz"[d]);
        fprintf(out, " (a reflected read gives the same step)\n");
    }
    fprintf(out, "  flops per point: %d as written, %d after folding and CSE\n",
            an->flops_written, an->flops);
    fprintf(out, "  bytes per point: %d (%d field%s read, %d written, %d-byte elements)\n",
            an->bytes_per_point, an->fields_read, an->fields_read == 1 ? "" : "s",
            an->fields_written, ir_elem_size(p));
    for (int i = 0; i < an->ndeps; i++) {
        const IrDep *d = &an->deps[i];
        fprintf(out, "  dependence: %s (stage %d) uses %s (stage %d) ", p->fields[d->to_field].name,
                d->to_stage, p->fields[d->from_field].name, d->from_stage);
        if (!d->through_memory) {
            fprintf(out, "in registers\n");
            continue;
        }
        fprintf(out, "through memory at offsets");
        for (int a = 0; a < p->dims; a++)
            fprintf(out, "%s%d..%d", a ? " x " : " ", d->lo[a], d->hi[a]);
        fprintf(out, "\n");
    }
}
