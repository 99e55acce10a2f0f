/* The default configuration on a given grid. config_default's blocks (256, 32x8, 32x4x2) are
 * wider than a small or flat grid (16^3, a 1D grid of 10, a 3D grid one point deep), where
 * space_check refuses them; the default there is the plain kernel whose block is nearest to
 * config_default's, so stencilc emits a kernel wherever one of that form fits. */
#include "space.h"

/* Steps between two powers of two. */
static int log2_distance(int a, int b)
{
    int d = 0;
    for (; a < b; a *= 2)
        d++;
    for (; b < a; b *= 2)
        d++;
    return d;
}

static long threads(const Config *c) { return (long)c->v[P_TBX] * c->v[P_TBY] * c->v[P_TBZ]; }

/* Nearer to want: fewer doubling steps away, then more threads, then the first found (x
 * varies slowest, so the wider x of a tie wins: coalesced rows). */
static int better(const Config *c, const Config *best, const Config *want, int have_best)
{
    if (!have_best)
        return 1;
    int dc = 0, db = 0;
    for (int d = 0; d < 3; d++) {
        dc += log2_distance(c->v[P_TBX + d], want->v[P_TBX + d]);
        db += log2_distance(best->v[P_TBX + d], want->v[P_TBX + d]);
    }
    return dc < db || (dc == db && threads(c) > threads(best));
}

Config space_default(const Space *s)
{
    int dims = s->prog ? s->prog->dims : (s->dims ? s->dims : 3);
    Config want = config_default(dims);
    if (space_check(s, &want, NULL, 0))
        return want;
    const SpaceParam *px = &s->params[P_TBX], *py = &s->params[P_TBY], *pz = &s->params[P_TBZ];
    Config best = want, c = want;
    int found = 0;
    for (int i = 0; i < px->nvalues; i++)
        for (int j = 0; j < py->nvalues; j++)
            for (int k = 0; k < pz->nvalues; k++) {
                c.v[P_TBX] = px->values[i];
                c.v[P_TBY] = py->values[j];
                c.v[P_TBZ] = pz->values[k];
                if (space_check(s, &c, NULL, 0) && better(&c, &best, &want, found)) {
                    best = c;
                    found = 1;
                }
            }
    return best; /* when nothing fits, config_default: its check then says why */
}
