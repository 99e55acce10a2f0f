/* The tile pass: geometry of a stage kernel (merging, unrolling, shared-memory arrays), shared
 * by the emitter and the constraints. */
#include "opt_tile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tile_config_on(const Config *c)
{
    if (c->v[P_STREAM] != 1 || c->v[P_TB] != 1)
        return 0;
    static const ParamId mine[] = {P_SMEM, P_CMEM, P_UFX, P_UFY, P_UFZ, P_CMX, P_CMY, P_CMZ,
                                   P_BMX, P_BMY, P_BMZ, P_VEC, P_HCOL};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        if (c->v[mine[i]] != 1)
            return 1;
    return 0;
}

int tile_halo_column_field(const IrProgram *p, int stage, int w)
{
    const IrStage *st = &p->stages[stage];
    int f = st->writes[w].field;
    const IrField *fl = &p->fields[f];
    if (p->dims < 2 || fl->role != ROLE_STATE || !ir_bc_all(fl, BC_FIXED))
        return 0;
    for (int i = 0; i < st->nnodes; i++)
        if (st->nodes[i].op == N_READ && st->nodes[i].field == f && st->nodes[i].level == 0)
            return 1;
    return 0;
}

int tile_read_is_alias(const IrProgram *p, const IrStage *st, const IrNode *n)
{
    const IrField *f = &p->fields[n->field];
    if (f->role != ROLE_TEMP || n->off[0] || n->off[1] || n->off[2])
        return 0;
    for (int w = 0; w < st->nwrites; w++)
        if (st->writes[w].field == n->field)
            return 1;
    return 0;
}

int tile_geometry(const IrProgram *p, int stage, const Config *c, TileGeom *g)
{
    memset(g, 0, sizeof *g);
    g->dims = p->dims;
    g->smem = c->v[P_SMEM] == 2;
    for (int d = 0; d < 3; d++) {
        int bm = c->v[P_BMX + d], cm = c->v[P_CMX + d];
        g->tb[d] = c->v[P_TBX + d];
        g->m[d] = d < p->dims ? bm * cm : 1;
        g->bm[d] = d < p->dims ? bm : 1;
        g->step[d] = cm > 1 ? g->tb[d] * bm : 1;
        g->uf[d] = c->v[P_UFX + d];
        g->unrolled[d] = g->uf[d] >= g->m[d];
        g->tile[d] = g->tb[d] * g->m[d];
    }
    g->vec = c->v[P_VEC];
    g->shift = p->halo[0] % g->vec;
    const IrStage *st = &p->stages[stage];
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op != N_READ || tile_read_is_alias(p, st, n))
            continue;
        int a = 0;
        while (a < g->narr && !(g->arr[a].field == n->field && g->arr[a].level == n->level))
            a++;
        if (a == g->narr) {
            if (g->narr == TILE_MAX_ARRAYS)
                return -1;
            TileArray *t = &g->arr[g->narr++];
            t->field = n->field;
            t->level = n->level;
            for (int d = 0; d < 3; d++)
                t->lo[d] = t->hi[d] = n->off[d];
        }
        TileArray *t = &g->arr[a];
        for (int d = 0; d < 3; d++) {
            if (n->off[d] < t->lo[d])
                t->lo[d] = n->off[d];
            if (n->off[d] > t->hi[d])
                t->hi[d] = n->off[d];
        }
    }
    for (int a = 0; a < g->narr; a++) {
        TileArray *t = &g->arr[a];
        int offsets = 0;
        for (int d = 0; d < 3; d++)
            offsets |= t->lo[d] != 0 || t->hi[d] != 0;
        t->staged = g->smem && offsets;
        if (!t->staged)
            continue;
        long elems = 1;
        for (int d = 0; d < 3; d++) {
            t->ext[d] = d < p->dims ? g->tile[d] + t->hi[d] - t->lo[d] : 1;
            elems *= t->ext[d];
        }
        t->base = (int)g->smem_elems;
        g->smem_elems += elems;
    }
    return 0;
}

int tile_point_offset(const TileGeom *g, int d, int m)
{
    return m / g->bm[d] * g->step[d] + m % g->bm[d];
}

long tile_smem_bytes(const IrProgram *p, const TileGeom *g)
{
    return g->smem_elems * ir_elem_size(p);
}

typedef struct {
    int field, level, off[3];
} CacheKey;

static int key_cmp(const void *pa, const void *pb)
{
    const CacheKey *a = pa, *b = pb;
    if (a->field != b->field)
        return a->field < b->field ? -1 : 1;
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    for (int d = 0; d < 3; d++)
        if (a->off[d] != b->off[d])
            return a->off[d] < b->off[d] ? -1 : 1;
    return 0;
}

long tile_cached_values(const IrProgram *p, int stage, const TileGeom *g)
{
    const IrStage *st = &p->stages[stage];
    int pts[3];
    long npts = 1;
    for (int d = 0; d < 3; d++) {
        pts[d] = g->unrolled[d] ? g->m[d] : 1;
        npts *= pts[d];
    }
    long nreads = 0;
    for (int i = 0; i < st->nnodes; i++)
        nreads += st->nodes[i].op == N_READ && !tile_read_is_alias(p, st, &st->nodes[i]);
    if (nreads == 0)
        return 0;
    CacheKey *keys = malloc(sizeof *keys * (size_t)(nreads * npts));
    if (!keys)
        return nreads * npts;
    long nk = 0;
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op != N_READ || tile_read_is_alias(p, st, n))
            continue;
        for (int z = 0; z < pts[2]; z++)
            for (int y = 0; y < pts[1]; y++)
                for (int x = 0; x < pts[0]; x++) {
                    CacheKey *k = &keys[nk++];
                    k->field = n->field;
                    k->level = n->level;
                    k->off[0] = n->off[0] + tile_point_offset(g, 0, x);
                    k->off[1] = n->off[1] + tile_point_offset(g, 1, y);
                    k->off[2] = n->off[2] + tile_point_offset(g, 2, z);
                }
    }
    qsort(keys, (size_t)nk, sizeof *keys, key_cmp);
    long distinct = 0;
    for (long i = 0; i < nk; i++)
        distinct += i == 0 || key_cmp(&keys[i - 1], &keys[i]) != 0;
    free(keys);
    return distinct;
}

int tile_const_nontrivial(double v)
{
    return isfinite(v) && v != 0.0 && v != 1.0 && v != -1.0;
}

int tile_const_count(const IrProgram *p, int stage)
{
    const IrStage *st = &p->stages[stage];
    int count = 0;
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op != N_CONST || !tile_const_nontrivial(n->value))
            continue;
        int seen = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = st->nodes[k].op == N_CONST && st->nodes[k].value == n->value;
        count += !seen;
    }
    return count;
}
