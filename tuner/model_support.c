/* Which kernel families the model has seen win, per kind of program (model.h): the zero-run
 * ranking's guard against extrapolating a family from one kind of stencil to another. */
#include "model_int.h"

#include <string.h>

/* A variant whose time is within this of its group's best counts as a family's win there. */
#define SUPPORT_WITHIN 1.15

static const int family_feat[MODEL_FAMILIES] = {FEAT_d_family_plain, FEAT_d_family_tile, FEAT_d_family_stream,
                                                FEAT_d_family_retime, FEAT_d_family_temporal};

static int kind_of(const float *f, int *dims, int *shape)
{
    *dims = (int)f[FEAT_p_dims];
    *shape = f[FEAT_p_star] > 0.5f ? 1 : f[FEAT_p_box] > 0.5f ? 2 : 0;
    return *dims >= 1 && *dims <= 3;
}

static int family_of(const float *f)
{
    for (int k = 0; k < MODEL_FAMILIES; k++)
        if (f[family_feat[k]] > 0.5f)
            return k;
    return -1;
}

void model_add_support(Model *m, const ModelData *d, const int *keep)
{
    memset(m->seen, 0, sizeof m->seen);
    memset(m->won, 0, sizeof m->won);
    for (long i = 0; i < d->n; i++) {
        const ModelSample *s = &d->samples[i];
        const ModelGroup *g = &d->groups[s->group];
        int dims, shape, fam = family_of(s->f);
        if ((keep && !keep[s->group]) || !s->ok || g->best_ms <= 0 || fam < 0 || !kind_of(s->f, &dims, &shape))
            continue;
        m->seen[dims][shape] |= (unsigned char)(1u << fam);
        if (s->ms <= g->best_ms * SUPPORT_WITHIN)
            m->won[dims][shape] |= (unsigned char)(1u << fam);
    }
    m->has_support = 1;
}

int model_supports(const Model *m, const double f[FEAT_COUNT])
{
    float g[FEAT_COUNT];
    for (int i = 0; i < FEAT_COUNT; i++)
        g[i] = (float)f[i];
    int dims, shape, fam = family_of(g);
    if (!m->has_support || !kind_of(g, &dims, &shape) || fam < 0)
        return 1;
    /* unsupported: measured on programs of this kind, and never near their best */
    return !(m->seen[dims][shape] >> fam & 1) || (m->won[dims][shape] >> fam & 1);
}

int model_measured(const Model *m, const double f[FEAT_COUNT])
{
    float g[FEAT_COUNT];
    for (int i = 0; i < FEAT_COUNT; i++)
        g[i] = (float)f[i];
    int dims, shape, fam = family_of(g);
    return m->has_support && kind_of(g, &dims, &shape) && fam >= 0 && (m->seen[dims][shape] >> fam & 1);
}

void model_write_support(const Model *m, FILE *f)
{
    if (!m->has_support)
        return;
    for (int dims = 1; dims <= 3; dims++)
        for (int shape = 0; shape < 3; shape++)
            if (m->seen[dims][shape])
                fprintf(f, "support %d %d %u %u\n", dims, shape, m->seen[dims][shape], m->won[dims][shape]);
}

int model_read_support(Model *m, const char *line)
{
    int dims, shape;
    unsigned seen, won;
    if (sscanf(line, "support %d %d %u %u", &dims, &shape, &seen, &won) != 4 || dims < 1 || dims > 3 ||
        shape < 0 || shape > 2 || seen >= 1u << MODEL_FAMILIES || (won & ~seen))
        return -1;
    m->seen[dims][shape] = (unsigned char)seen;
    m->won[dims][shape] = (unsigned char)won;
    m->has_support = 1;
    return 0;
}
