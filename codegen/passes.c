/* The table of passes, in precedence order: plan_build takes the builder of the first pass
 * that applies to the configuration, so a configuration with tblock > 1 gets the temporal
 * kernel whatever else it sets (its constraints say what it combines with). The launch comes
 * first: its parameters (tb, maxreg) and constraints are every kernel's. Adding a pass: its
 * file (pass_*.c: parameters, constraints, when it applies, builder), its line here, and its
 * file in meson.build. */
#include "pass.h"

#include <stdio.h>

extern const CgPass cg_pass_launch, cg_pass_temporal, cg_pass_stream, cg_pass_tile,
    cg_pass_plain;

const CgPass *const cg_passes[] = {
    &cg_pass_launch,   /* tb, maxreg: the thread block and register cap of every kernel */
    &cg_pass_temporal, /* tblock: fused time steps (with stream: AN5D-style streaming) */
    &cg_pass_stream,   /* stream: 2.5D streaming along y or z */
    &cg_pass_tile,     /* smem, cmem, uf, cm, bm, vec, hcol: the tiled kernel */
    &cg_pass_plain,    /* none of them: the plain kernel */
};
const int cg_npasses = (int)(sizeof cg_passes / sizeof cg_passes[0]);

const CgPass *cg_pass_for(const Config *c)
{
    for (int i = 0; i < cg_npasses; i++)
        if (cg_passes[i]->build && (!cg_passes[i]->applies || cg_passes[i]->applies(c)))
            return cg_passes[i];
    return NULL; /* not reached: the plain kernel always applies */
}

int cg_pass_builds(const CgPass *p, const Config *c) { return cg_pass_for(c) == p; }

int cg_pass_params_set(const CgPass *p, const Config *c)
{
    for (const CgParam *r = p->params; r && r->key; r++)
        for (int i = 0; i < cg_param_ids(r); i++)
            if (c->v[r->first + i] != 1)
                return 1;
    return 0;
}

int cg_param_count(void)
{
    int n = 0;
    for (int i = 0; i < cg_npasses; i++)
        for (const CgParam *r = cg_passes[i]->params; r && r->key; r++)
            n++;
    return n;
}

const CgParam *cg_param_at(int pos, const CgPass **pass)
{
    for (int i = 0; i < cg_npasses; i++)
        for (const CgParam *r = cg_passes[i]->params; r && r->key; r++)
            if (r->pos == pos) {
                if (pass)
                    *pass = cg_passes[i];
                return r;
            }
    return NULL;
}

int cg_param_ids(const CgParam *r)
{
    return r->kind == PK_TRIPLE ? 3 : r->kind == PK_CHOICE ? 2 : 1;
}

const CgParam *cg_param_of(ParamId id, int *index)
{
    for (int i = 0; i < cg_npasses; i++)
        for (const CgParam *r = cg_passes[i]->params; r && r->key; r++) {
            if (id >= r->first && id < r->first + cg_param_ids(r)) {
                if (index)
                    *index = id - r->first;
                return r;
            }
        }
    return NULL;
}
