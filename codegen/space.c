/* The tuning space: value lists per parameter and the static constraints, one function per
 * constraint, listed with its reason in `constraints` below. To add an optimization: give its
 * parameters values in space_init, remove them from `unimplemented`, and add its constraints to
 * the table (they run in table order; the first broken one is reported). */
#include "space.h"
#include "opt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Parameters of the optimization passes: while a pass gives one no values (it is not
 * implemented, or not for this program), it must stay 1 (off), or a tuner would measure the
 * same kernel under different names. */
static const ParamId unimplemented[] = {
    P_SMEM, P_CMEM, P_STREAM, P_SD, P_SB, P_UFX, P_UFY, P_UFZ, P_CMX, P_CMY, P_CMZ,
    P_BMX, P_BMY, P_BMZ, P_RETIME, P_PREFETCH, P_TB, P_REGQ,
};
#define NUNIMPL ((int)(sizeof unimplemented / sizeof unimplemented[0]))

/* The optimization passes' shares of the space (space_*.c). */
static const SpacePass *const passes[] = {&space_pass_tile, &space_pass_stream, &space_pass_temporal};
#define NPASSES ((int)(sizeof passes / sizeof passes[0]))

static int dims_of(const Space *s) { return s->prog ? s->prog->dims : 3; }

static long block_threads(const Config *c)
{
    return (long)c->v[P_TBX] * c->v[P_TBY] * c->v[P_TBZ];
}

static void set_values(SpaceParam *sp, ParamId id, const int *vals, int n)
{
    sp->id = id;
    sp->nvalues = 0;
    for (int i = 0; i < n && i < SPACE_MAX_VALUES; i++)
        sp->values[sp->nvalues++] = vals[i];
}

void space_init(Space *s, const IrProgram *prog, const long n[3])
{
    memset(s, 0, sizeof *s);
    s->prog = prog;
    int dims = prog ? prog->dims : 3;
    s->dims = dims;
    for (int d = 0; d < 3; d++)
        s->n[d] = d < dims ? (n ? n[d] : 0) : 1;
    static const int one[] = {1};
    for (int p = 0; p < P_COUNT; p++)
        set_values(&s->params[p], (ParamId)p, one, 1);
    static const int tb_values[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    for (int d = 0; d < dims && d < 3; d++)
        set_values(&s->params[P_TBX + d], (ParamId)(P_TBX + d), tb_values, 11);
    static const int maxreg_values[] = {1, 32, 64, 128};
    set_values(&s->params[P_MAXREG], P_MAXREG, maxreg_values, 4);
    for (int i = 0; i < NPASSES; i++)
        passes[i]->init(s);
}

/* ---- constraints: each returns 1 when c satisfies it, else 0 with the detail in why ---- */


static int c_values_listed(const Space *s, const Config *c, char *why, int whylen)
{
    for (int p = 0; p < P_COUNT; p++) {
        const SpaceParam *sp = &s->params[p];
        int found = 0;
        for (int i = 0; i < sp->nvalues; i++)
            found |= sp->values[i] == c->v[p];
        if (!found) {
            snprintf(why, (size_t)whylen, "%s=%d is not one of its values", config_param_name((ParamId)p),
                     c->v[p]);
            return 0;
        }
    }
    return 1;
}

void space_set_steps(Space *s, long steps)
{
    s->steps = steps > 0 ? steps : 0;
    SpaceParam *sp = &s->params[P_TB];
    int kept = 0;
    for (int i = 0; i < sp->nvalues; i++)
        if (sp->values[i] == 1 || !s->steps || sp->values[i] <= s->steps)
            sp->values[kept++] = sp->values[i];
    sp->nvalues = kept;
}

/* A fused group of tblock steps runs only while that many steps remain; with fewer steps in
 * the whole run the kernel measured would be the single-step one under another name. */
static int c_steps(const Space *s, const Config *c, char *why, int whylen)
{
    if (!s->steps || c->v[P_TB] <= s->steps)
        return 1;
    snprintf(why, (size_t)whylen, "tblock=%d fuses more steps than the run's %ld (--steps)", c->v[P_TB],
             s->steps);
    return 0;
}

static int c_unimplemented_off(const Space *s, const Config *c, char *why, int whylen)
{
    for (int i = 0; i < NUNIMPL; i++)
        if (c->v[unimplemented[i]] != 1 && s->params[unimplemented[i]].nvalues <= 1) {
            snprintf(why, (size_t)whylen, "%s is not implemented by the code generator yet",
                     config_param_name(unimplemented[i]));
            return 0;
        }
    return 1;
}

static int c_tb_within_dims(const Space *s, const Config *c, char *why, int whylen)
{
    for (int d = dims_of(s); d < 3; d++)
        if (c->v[P_TBX + d] != 1) {
            snprintf(why, (size_t)whylen, "%s=%d but the grid is %dD: blocks on axes beyond the grid "
                     "must be 1", config_param_name((ParamId)(P_TBX + d)), c->v[P_TBX + d],
                     dims_of(s));
            return 0;
        }
    return 1;
}

static int c_block_max(const Space *s, const Config *c, char *why, int whylen)
{
    if (block_threads(c) > 1024) {
        snprintf(why, (size_t)whylen, "thread block of %ld threads: CUDA allows at most 1024",
                 block_threads(c));
        return 0;
    }
    if (c->v[P_TBZ] > 64) {
        snprintf(why, (size_t)whylen, "tbz=%d: CUDA allows at most 64 threads on z", c->v[P_TBZ]);
        return 0;
    }
    return 1;
}

/* The smallest power of two >= n (n > 0). */
static long cover_of(long n)
{
    long cover = 1;
    while (cover < n)
        cover *= 2;
    return cover;
}

/* A warp, or the whole grid where it has fewer points (rounded up per axis): a 1D grid of 10
 * points is served best by one block of 16 threads. Where the grid is unknown (plan_build), a
 * small block is a tuning choice, not an error: no minimum. */
static long block_min_threads(const Space *s)
{
    long all = 1;
    for (int d = 0; d < dims_of(s); d++) {
        if (s->n[d] <= 0)
            return 1;
        all *= cover_of(s->n[d]);
        if (all >= 32)
            return 32;
    }
    return all;
}

static int c_block_min(const Space *s, const Config *c, char *why, int whylen)
{
    long min = block_min_threads(s);
    if (block_threads(c) < min && min == 32) {
        snprintf(why, (size_t)whylen, "thread block of %ld threads: less than one warp (32) wastes "
                 "lanes", block_threads(c));
        return 0;
    }
    if (block_threads(c) < min) {
        snprintf(why, (size_t)whylen, "thread block of %ld threads: fewer than the grid's %ld points "
                 "(rounded up per axis) leaves lanes idle", block_threads(c), min);
        return 0;
    }
    return 1;
}

/* A block far wider than the grid only adds idle threads; the grid size is known to the tuner
 * (not to plan_build, which passes 0 = unknown and skips this). */
static int c_block_fits_grid(const Space *s, const Config *c, char *why, int whylen)
{
    for (int d = 0; d < dims_of(s); d++) {
        long n = s->n[d];
        if (n <= 0)
            continue;
        long cover = cover_of(n);
        if (c->v[P_TBX + d] > cover) {
            snprintf(why, (size_t)whylen, "%s=%d exceeds the grid's %ld points on that axis "
                     "(rounded up to %ld)", config_param_name((ParamId)(P_TBX + d)),
                     c->v[P_TBX + d], n, cover);
            return 0;
        }
    }
    return 1;
}

/* CUDA allows at most 65535 blocks along y and z; the plain kernel puts one block per tile. */
static int c_grid_fits(const Space *s, const Config *c, char *why, int whylen)
{
    for (int d = 1; d < dims_of(s); d++) {
        long n = s->n[d];
        if (n <= 0)
            continue;
        long blocks = (n + c->v[P_TBX + d] - 1) / c->v[P_TBX + d];
        if (blocks > 65535) {
            snprintf(why, (size_t)whylen, "%ld blocks along %c: CUDA allows at most 65535",
                     blocks, "xyz"[d]);
            return 0;
        }
    }
    return 1;
}

static int c_maxreg_fits(const Space *s, const Config *c, char *why, int whylen)
{
    int cap = c->v[P_MAXREG];
    if (cap == 1)
        return 1;
    if (cap < 16 || cap > 255) {
        snprintf(why, (size_t)whylen, "maxreg=%d: a register cap must be between 16 and 255", cap);
        return 0;
    }
    if ((long)cap * block_threads(c) > 65536) {
        snprintf(why, (size_t)whylen, "maxreg=%d with %ld threads needs more than the 65536 "
                 "registers of an SM", cap, block_threads(c));
        return 0;
    }
    return 1;
}


static const SpaceConstraint constraints[] = {
    {"tb-dims", c_tb_within_dims, "no threads along axes the grid does not have"},
    {"tblock-steps", c_steps, "temporal blocking fuses at most the run's step count (--steps)"},
    {"implemented", c_unimplemented_off, "parameters without code generation stay off"},
    {"values", c_values_listed, "every parameter takes one of its listed values"},
    {"block-max", c_block_max, "CUDA's limit of 1024 threads per block (64 on z)"},
    {"block-min", c_block_min, "a block smaller than a warp (or than the grid) leaves lanes idle"},
    {"block-fits", c_block_fits_grid, "a block larger than the grid only adds idle threads"},
    {"grid-fits", c_grid_fits, "at most 65535 blocks along y and z"},
    {"maxreg", c_maxreg_fits, "a register cap must leave the block launchable"},
};
#define NCONSTRAINTS ((int)(sizeof constraints / sizeof constraints[0]))

int space_check(const Space *s, const Config *c, char *why, int whylen)
{
    char scratch[256];
    if (!why || whylen <= 0) {
        why = scratch;
        whylen = (int)sizeof scratch;
    }
    why[0] = 0;
    for (int i = 0; i < NCONSTRAINTS; i++)
        if (!constraints[i].check(s, c, why, whylen))
            return 0;
    for (int i = 0; i < NPASSES; i++)
        for (int k = 0; k < passes[i]->nconstraints; k++)
            if (!passes[i]->constraints[k].check(s, c, why, whylen))
                return 0;
    return 1;
}

/* ---- counting ---- */

static double space_total(const Space *s)
{
    double total = 1;
    for (int p = 0; p < P_COUNT; p++)
        total *= s->params[p].nvalues;
    return total;
}

/* Configuration number `index` of the product of the value lists (mixed radix). */
static Config space_point(const Space *s, double index)
{
    Config c;
    for (int p = 0; p < P_COUNT; p++) {
        int nv = s->params[p].nvalues;
        double q = floor(index / nv);
        int digit = (int)(index - q * nv);
        c.v[p] = s->params[p].values[digit];
        index = q;
    }
    return c;
}

double space_random(const Space *s, Rng *rng, Config *out)
{
    double prob = 1;
    for (int p = 0; p < P_COUNT; p++) {
        const SpaceParam *sp = &s->params[p];
        int has_one = sp->nvalues > 1 && sp->values[0] == 1;
        if (has_one && rng_below(rng, 2) == 0) {
            out->v[p] = 1;
            prob *= 0.5;
        } else if (has_one) {
            out->v[p] = sp->values[1 + rng_below(rng, sp->nvalues - 1)];
            prob *= 0.5 / (sp->nvalues - 1);
        } else {
            out->v[p] = sp->values[rng_below(rng, sp->nvalues)];
            prob /= sp->nvalues;
        }
    }
    return prob;
}

int space_random_valid(const Space *s, Rng *rng, int tries, Config *out)
{
    for (int t = 0; t < tries; t++) {
        space_random(s, rng, out);
        if (space_check(s, out, NULL, 0))
            return 1;
        /* Repair: parameters back to their first value (1, the padded form: inactive) one at a
         * time in a random order, which is how most constraints are met. */
        int order[P_COUNT];
        for (int p = 0; p < P_COUNT; p++)
            order[p] = p;
        for (int i = P_COUNT - 1; i > 0; i--) {
            int j = rng_below(rng, i + 1), x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        for (int i = 0; i < P_COUNT; i++) {
            const SpaceParam *sp = &s->params[order[i]];
            if (sp->nvalues == 0 || out->v[order[i]] == sp->values[0])
                continue;
            out->v[order[i]] = sp->values[0];
            if (space_check(s, out, NULL, 0))
                return 1;
        }
    }
    return 0;
}

double space_valid_count(const Space *s, int *exact)
{
    double total = space_total(s);
    const double enumerate_limit = 2e6;
    if (total <= enumerate_limit) {
        double valid = 0;
        for (double i = 0; i < total; i++) {
            Config c = space_point(s, i);
            valid += space_check(s, &c, NULL, 0);
        }
        if (exact)
            *exact = 1;
        return valid;
    }
    /* Importance sampling: the mean of valid(c) / q(c) over draws from q (space_random) is
     * the number of valid points. A fixed seed, so two runs print the same estimate. */
    Rng rng;
    rng_seed(&rng, 0x9E3779B97F4A7C15ull);
    const int samples = 200000;
    double sum = 0;
    for (int i = 0; i < samples; i++) {
        Config c;
        double q = space_random(s, &rng, &c);
        if (space_check(s, &c, NULL, 0))
            sum += 1 / q;
    }
    if (exact)
        *exact = 0;
    return sum / samples;
}

void space_print(FILE *out, const Space *s)
{
    fprintf(out, "tuning space of %s (%dD, grid %ld x %ld x %ld):\n",
            s->prog && s->prog->name ? s->prog->name : "?", dims_of(s), s->n[0], s->n[1],
            s->n[2]);
    for (int p = 0; p < P_COUNT; p++) {
        const SpaceParam *sp = &s->params[p];
        fprintf(out, "  %-9s", config_param_name((ParamId)p));
        for (int i = 0; i < sp->nvalues; i++)
            fprintf(out, " %d", sp->values[i]);
        fprintf(out, "%s\n", sp->nvalues == 1 ? "   (fixed)" : "");
    }
    fprintf(out, "constraints:\n");
    for (int i = 0; i < NCONSTRAINTS; i++)
        fprintf(out, "  %-12s %s\n", constraints[i].name, constraints[i].reason);
    for (int i = 0; i < NPASSES; i++)
        for (int k = 0; k < passes[i]->nconstraints; k++)
            fprintf(out, "  %-12s %s\n", passes[i]->constraints[k].name, passes[i]->constraints[k].reason);
    int exact = 0;
    double valid = space_valid_count(s, &exact);
    fprintf(out, "configurations: %.0f in the product, %s%.0f valid\n", space_total(s),
            exact ? "" : "about ", valid);
}
