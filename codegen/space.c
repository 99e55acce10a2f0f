/* The tuning space: the values of every parameter on a program's grid, and space_check, which
 * runs the space's own constraints (below: the run's steps, passes not implemented yet, the
 * values) and then each pass's, in the order of the table of passes (pass.h); the first broken
 * one is reported. The parameters, their values and the passes' constraints are the table's. */
#include "pass.h"

#include <stdio.h>
#include <string.h>

static int dims_of(const Space *s) { return s->prog ? s->prog->dims : 3; }

/* A pass that says when it applies but has no builder yet: its parameters stay 1. */
static int unimplemented(const CgPass *p) { return p->applies && !p->build; }

static void set_one(SpaceParam *sp, ParamId id)
{
    sp->id = id;
    sp->values[0] = 1;
    sp->nvalues = 1;
}

static void set_list(SpaceParam *sp, const int *vals, int n)
{
    sp->nvalues = 0;
    for (int i = 0; i < n && i < SPACE_MAX_VALUES; i++)
        sp->values[sp->nvalues++] = vals[i];
}

/* A choice's ids take the values of the words the grid allows, ascending. */
static void set_words(SpaceParam *sp, const CgParam *r, int index, int dims)
{
    for (int v = 2; v <= SPACE_MAX_VALUES; v++)
        for (int w = 0; w < r->nwords; w++)
            if (r->words[w].dims <= dims && r->words[w].v[index] == v) {
                sp->values[sp->nvalues++] = v;
                break;
            }
}

static void init_param(Space *s, const CgParam *r)
{
    int dims = dims_of(s);
    for (int i = 0; i < cg_param_ids(r); i++) {
        SpaceParam *sp = &s->params[r->first + i];
        if (r->kind == PK_TRIPLE ? i >= dims : r->dims > dims)
            continue; /* 1 */
        if (r->kind == PK_CHOICE)
            set_words(sp, r, i, dims);
        else if (r->values_of)
            r->values_of(s, sp);
        else
            set_list(sp, r->values, r->nvalues);
    }
}

static void init(Space *s, const IrProgram *prog, const long n[3], int distributed)
{
    memset(s, 0, sizeof *s);
    s->prog = prog;
    s->distributed = distributed;
    int dims = prog ? prog->dims : 3;
    s->dims = dims;
    for (int d = 0; d < 3; d++)
        s->n[d] = d < dims ? (n ? n[d] : 0) : 1;
    for (int p = 0; p < P_COUNT; p++)
        set_one(&s->params[p], (ParamId)p);
    for (int i = 0; i < cg_npasses; i++)
        for (const CgParam *r = cg_passes[i]->params; r && r->key; r++)
            if (!unimplemented(cg_passes[i]))
                init_param(s, r);
}

void space_init(Space *s, const IrProgram *prog, const long n[3]) { init(s, prog, n, 0); }

void space_init_distributed(Space *s, const IrProgram *prog, const long n[3]) { init(s, prog, n, 1); }

void space_set_steps(Space *s, long steps)
{
    s->steps = steps > 0 ? steps : 0;
    for (int i = 0; i < cg_param_count(); i++) {
        const CgParam *r = cg_param_at(i, NULL);
        if (!(r->flags & PF_STEPS))
            continue;
        SpaceParam *sp = &s->params[r->first];
        int kept = 0;
        for (int k = 0; k < sp->nvalues; k++)
            if (sp->values[k] == 1 || !s->steps || sp->values[k] <= s->steps)
                sp->values[kept++] = sp->values[k];
        sp->nvalues = kept;
    }
}

/* ---- the space's own constraints: each returns 1 when c satisfies it, else 0 and why ---- */

/* A fused group of tblock steps runs only while that many steps remain; with fewer steps in
 * the whole run the kernel measured would be the single-step one under another name. */
static int c_steps(const Space *s, const Config *c, char *why, int whylen)
{
    for (int i = 0; i < cg_npasses && s->steps; i++)
        for (const CgParam *r = cg_passes[i]->params; r && r->key; r++)
            if ((r->flags & PF_STEPS) && c->v[r->first] > s->steps) {
                char item[64];
                config_item(c, r->first, item, sizeof item);
                snprintf(why, (size_t)whylen, "%s: more steps than the run's %ld (--steps)", item,
                         s->steps);
                return 0;
            }
    return 1;
}

/* While a pass has no builder, its parameters stay 1 (off), or a tuner would measure the same
 * kernel under different names. */
static int c_implemented(const Space *s, const Config *c, char *why, int whylen)
{
    (void)s;
    for (int i = 0; i < cg_npasses; i++)
        if (unimplemented(cg_passes[i]) && cg_pass_params_set(cg_passes[i], c)) {
            snprintf(why, (size_t)whylen, "the %s pass is not implemented by the code generator "
                     "yet: its parameters stay off", cg_passes[i]->name);
            return 0;
        }
    return 1;
}

static int listed(const SpaceParam *sp, int v)
{
    for (int i = 0; i < sp->nvalues; i++)
        if (sp->values[i] == v)
            return 1;
    return 0;
}

int space_values_text(const Space *s, const CgParam *r, int index, char *buf, int len)
{
    int at = 0, n = 0;
    buf[0] = 0;
    for (int w = 0; r->kind == PK_CHOICE && w < r->nwords && at < len; w++)
        if (listed(&s->params[r->first], r->words[w].v[0]) &&
            listed(&s->params[r->first + 1], r->words[w].v[1]))
            at += snprintf(buf + at, (size_t)(len - at), n++ ? " %s" : "%s", r->words[w].word);
    const SpaceParam *sp = &s->params[r->first + index];
    for (int i = 0; r->kind != PK_CHOICE && i < sp->nvalues && at < len; i++) {
        char v[16];
        cg_param_value_text(r, index, sp->values[i], v, sizeof v);
        at += snprintf(buf + at, (size_t)(len - at), n++ ? " %s" : "%s", v);
    }
    return n;
}

static const char *grid_words(int dims) { return dims >= 3 ? "a 3D grid" : "a 2D or 3D grid"; }

/* The smallest grid dimension where the space offers c's value of r. */
static int needs_dims(const CgParam *r, const Config *c, int index)
{
    if (r->kind == PK_TRIPLE)
        return index + 1;
    for (int w = 0; r->kind == PK_CHOICE && w < r->nwords; w++)
        if (r->words[w].v[0] == c->v[r->first] && r->words[w].v[1] == c->v[r->first + 1])
            return r->words[w].dims;
    return r->dims;
}

/* Why c's value of r's id (index) is not one of its values on s, in the words of --config. */
static void explain_value(const Space *s, const CgParam *r, int index, const Config *c,
                          char *why, int whylen)
{
    char item[64], values[160];
    config_item(c, r->first + index, item, sizeof item);
    space_values_text(s, r, index, values, sizeof values);
    int dims = dims_of(s), need = needs_dims(r, c, index);
    if (r->kind == PK_TRIPLE && need > dims)
        snprintf(why, (size_t)whylen, "%s: the grid is %dD, so %s along %c must be 1 (nothing "
                 "runs beyond the grid)", item, dims, r->key, "xyz"[index]);
    else if (need > dims)
        snprintf(why, (size_t)whylen, "%s needs %s; on this %dD grid %s takes: %s", item,
                 grid_words(need), dims, r->key, values);
    else if (r->kind == PK_TRIPLE)
        snprintf(why, (size_t)whylen, "%s: %d along %c is not one of its values (%s)", item,
                 c->v[r->first + index], "xyz"[index], values);
    else
        snprintf(why, (size_t)whylen, "%s is not one of its values (%s)", item, values);
}

static int c_values(const Space *s, const Config *c, char *why, int whylen)
{
    for (int i = 0; i < cg_npasses; i++)
        for (const CgParam *r = cg_passes[i]->params; r && r->key; r++)
            for (int k = 0; k < cg_param_ids(r); k++)
                if (!listed(&s->params[r->first + k], c->v[r->first + k])) {
                    explain_value(s, r, k, c, why, whylen);
                    return 0;
                }
    return 1;
}

const SpaceConstraint space_constraints[] = {
    {"steps", c_steps, "a count of fused steps (tblock) is at most the run's steps (--steps)"},
    {"implemented", c_implemented, "parameters without code generation stay off"},
    {"values", c_values, "every parameter takes one of its listed values"},
    {0},
};

int space_check(const Space *s, const Config *c, char *why, int whylen)
{
    char scratch[256];
    if (!why || whylen <= 0) {
        why = scratch;
        whylen = (int)sizeof scratch;
    }
    why[0] = 0;
    for (const SpaceConstraint *k = space_constraints; k->name; k++)
        if (!k->check(s, c, why, whylen))
            return 0;
    for (int i = 0; i < cg_npasses; i++)
        for (const SpaceConstraint *k = cg_passes[i]->constraints; k && k->name; k++)
            if (!k->check(s, c, why, whylen))
                return 0;
    return 1;
}
