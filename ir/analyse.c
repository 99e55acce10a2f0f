/* Analyses of a lowered program: footprints and halo, radius, shape, distinct points, flops
 * after the clean-up passes, and bytes moved per point. */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int field, level, off[3];
} ReadKey;

static int key_cmp(const void *x, const void *y)
{
    const ReadKey *a = x, *b = y;
    if (a->field != b->field) return a->field < b->field ? -1 : 1;
    if (a->level != b->level) return a->level < b->level ? -1 : 1;
    for (int d = 0; d < 3; d++)
        if (a->off[d] != b->off[d]) return a->off[d] < b->off[d] ? -1 : 1;
    return 0;
}

static int off_cmp(const void *x, const void *y)
{
    const ReadKey *a = x, *b = y;
    for (int d = 0; d < 3; d++)
        if (a->off[d] != b->off[d]) return a->off[d] < b->off[d] ? -1 : 1;
    return 0;
}

static void footprints(IrProgram *p)
{
    for (int f = 0; f < p->nfields; f++) {
        IrField *fd = &p->fields[f];
        for (int d = 0; d < 3; d++)
            fd->lo[d] = fd->hi[d] = 0;
        fd->read = 0;
    }
    for (int d = 0; d < 3; d++)
        p->halo[d] = 0;
    for (int s = 0; s < p->nstages; s++)
        for (int i = 0; i < p->stages[s].nnodes; i++) {
            const IrNode *n = &p->stages[s].nodes[i];
            if (n->op != N_READ || n->field < 0 || n->field >= p->nfields)
                continue;
            IrField *fd = &p->fields[n->field];
            for (int d = 0; d < 3; d++) {
                int o = n->off[d];
                if (!fd->read || o < fd->lo[d]) fd->lo[d] = o;
                if (!fd->read || o > fd->hi[d]) fd->hi[d] = o;
                int a = o < 0 ? -o : o;
                if (d < p->dims && a > p->halo[d]) p->halo[d] = a;
            }
            fd->read = 1;
        }
    for (int f = 0; f < p->nfields; f++) {
        IrField *fd = &p->fields[f];
        fd->materialized = fd->role != ROLE_TEMP || fd->read;
    }
}

static IrShape shape_of(const ReadKey *offs, int n, int dims, int radius)
{
    int star = 1;
    for (int i = 0; i < n; i++) {
        int nonzero = 0;
        for (int d = 0; d < 3; d++)
            nonzero += offs[i].off[d] != 0;
        if (nonzero > 1)
            star = 0;
    }
    if (star)
        return SHAPE_STAR;
    long cube = 1;
    for (int d = 0; d < dims; d++)
        cube *= 2 * radius + 1;
    return n == cube ? SHAPE_BOX : SHAPE_GENERAL;
}

void ir_analyse(IrProgram *p)
{
    IrAnalysis *an = &p->an;
    footprints(p);
    int nreads = 0, flops = 0;
    for (int s = 0; s < p->nstages; s++)
        for (int i = 0; i < p->stages[s].nnodes; i++) {
            IrOp op = p->stages[s].nodes[i].op;
            nreads += op == N_READ;
            flops += ir_op_arity(op) > 0;
        }
    ReadKey *keys = malloc(sizeof *keys * (size_t)(nreads + 1));
    if (!keys) {
        fputs("stencilc: out of memory\n", stderr);
        exit(3);
    }
    int k = 0;
    for (int s = 0; s < p->nstages; s++)
        for (int i = 0; i < p->stages[s].nnodes; i++) {
            const IrNode *n = &p->stages[s].nodes[i];
            if (n->op != N_READ)
                continue;
            keys[k].field = n->field;
            keys[k].level = n->level;
            memcpy(keys[k].off, n->off, sizeof n->off);
            k++;
        }
    qsort(keys, (size_t)nreads, sizeof *keys, key_cmp);
    int points = 0;
    for (int i = 0; i < nreads; i++)
        if (i == 0 || key_cmp(&keys[i - 1], &keys[i]) != 0)
            points++;
    /* The shape is that of the distinct offsets, whatever field and level they read. */
    qsort(keys, (size_t)nreads, sizeof *keys, off_cmp);
    int noffs = 0;
    for (int i = 0; i < nreads; i++)
        if (noffs == 0 || off_cmp(&keys[noffs - 1], &keys[i]) != 0)
            keys[noffs++] = keys[i];

    an->radius = 0;
    for (int d = 0; d < 3; d++)
        if (p->halo[d] > an->radius)
            an->radius = p->halo[d];
    an->shape = shape_of(keys, noffs, p->dims, an->radius);
    an->points = points;
    an->flops = flops;
    free(keys);

    an->symmetric = ir_step_symmetry(p);
    an->fields_read = an->fields_written = 0;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fd = &p->fields[f];
        an->fields_read += fd->read;
        an->fields_written += fd->written && fd->materialized;
    }
    /* Each time level read is its own buffer: u and u@-1 cost two reads. */
    int levels_read = 0;
    for (int f = 0; f < p->nfields; f++) {
        int seen[4] = {0, 0, 0, 0};
        for (int s = 0; s < p->nstages; s++)
            for (int i = 0; i < p->stages[s].nnodes; i++) {
                const IrNode *n = &p->stages[s].nodes[i];
                if (n->op == N_READ && n->field == f && n->level <= 0 && n->level > -4)
                    seen[-n->level] = 1;
            }
        levels_read += seen[0] + seen[1] + seen[2] + seen[3];
    }
    an->bytes_per_point = (levels_read + an->fields_written) * ir_elem_size(p);
    ir_find_deps(p);
}

void ir_set_type(IrProgram *p, ElemType type)
{
    p->type = type;
    ir_analyse(p);
}

int ir_check_extent(int dims, const int halo[3], const long long n[3], char *why, int len)
{
    static const char axis[] = "xyz";
    long long elems = 1;
    for (int d = 0; d < dims && d < 3; d++) {
        long long padded = n[d] + 2LL * halo[d];
        if (padded > IR_MAX_EXTENT) {
            if (why && len > 0)
                snprintf(why, (size_t)len,
                         "grid size %lld on axis %c is too large: with the halo the axis has %lld "
                         "points, more than the %d that 32-bit coordinates index (at most %lld "
                         "interior points)", n[d], axis[d], padded, IR_MAX_EXTENT,
                         (long long)IR_MAX_EXTENT - 2LL * halo[d]);
            return IR_GRID_TOO_LARGE;
        }
        if (padded < 1)
            continue; /* ir_check_grid's business */
        if (elems > IR_MAX_ELEMS / padded) {
            if (why && len > 0)
                snprintf(why, (size_t)len,
                         "the grid is too large: one buffer would hold more than 2^%d elements",
                         IR_MAX_ELEMS_LOG2);
            return IR_GRID_TOO_LARGE;
        }
        elems *= padded;
    }
    return 0;
}

int ir_check_grid(const IrProgram *p, const long n[3], char *why, int len)
{
    static const char axis[] = "xyz";
    const long long wide[3] = {n[0], n[1], n[2]};
    if (ir_check_extent(p->dims, p->halo, wide, why, len) != 0)
        return IR_GRID_TOO_LARGE;
    for (int d = 0; d < p->dims; d++) {
        long need = p->halo[d] > 1 ? p->halo[d] : 1;
        if (n[d] < need) {
            if (why && len > 0)
                snprintf(why, (size_t)len,
                         "the stencil's radius %d on axis %c does not fit the grid: %ld interior "
                         "point%s, at least %ld needed",
                         p->halo[d], axis[d], n[d], n[d] == 1 ? "" : "s", need);
            return -1;
        }
    }
    if (why && len > 0)
        why[0] = 0;
    return 0;
}
