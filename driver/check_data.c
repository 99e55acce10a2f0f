/* The data of `stencilc check`: initial fields from .npy files (--init), results written as .npy
 * (--save), and the warning for values that grow without bound. An array's shape is the grid's
 * in C order, z y x (numpy's a[k, j, i] is point (i, j, k)): the interior alone, or the padded
 * buffer with its halo. Interior values leave the halo at 0 until the boundary condition fills
 * it (a fixed field keeps that 0; give the padded shape to set its halo). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/nearest.h"
#include "../util/npy.h"
#include "../util/outfile.h"
#include "check.h"

#define GROWTH_FACTOR 1e6
#define GROWTH_LIMIT 1e30

/* The field named by the first len characters of name, or -1 after a usage error (unknown, with
 * the nearest name; a temp, which has no values of its own to start from or keep). */
static int field_named(Job *job, const char *opt, const char *name, size_t len)
{
    const IrProgram *p = job->prog;
    const char *names[64];
    char want[64];
    snprintf(want, sizeof want, "%.*s", (int)(len < 63 ? len : 63), name);
    for (int f = 0; f < p->nfields && f < 64; f++) {
        names[f] = p->fields[f].name;
        if (strcmp(want, names[f]) != 0)
            continue;
        if (p->fields[f].role == ROLE_TEMP) {
            diag_run_error(&job->diag, "%s: '%s' is a temp field, computed afresh each step; name a state or "
                                       "coef field\n(see stencilc --help)", opt, want);
            return -1;
        }
        return f;
    }
    const char *near = text_nearest(want, names, p->nfields < 64 ? p->nfields : 64, 2);
    diag_run_error(&job->diag, "%s: '%s' has no field '%s'%s%s%s\n(see stencilc --help)", opt, p->name,
                   diag_name(want), near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    return -1;
}

/* "(29, 37)": the shape a field's array has, the interior's (pad 0) or the padded buffer's. */
static void shape_text(const InterpGrid *g, int pad, char *buf, size_t len)
{
    int dims = g->prog->dims, at = 0;
    at += snprintf(buf + at, len - (size_t)at, "(");
    for (int d = dims - 1; d >= 0; d--)
        at += snprintf(buf + at, len - (size_t)at, "%d%s", pad ? g->pad[d] : g->n[d], d ? ", " : dims == 1 ? ",)" : ")");
}

/* 1 when the file's shape is the interior's, 2 when the padded buffer's, else 0. */
static int shape_kind(const InterpGrid *g, const NpyHeader *h)
{
    int dims = g->prog->dims, interior = h->ndim == dims, padded = h->ndim == dims;
    for (int d = 0; d < dims && h->ndim == dims; d++) {
        interior &= h->shape[dims - 1 - d] == g->n[d];
        padded &= h->shape[dims - 1 - d] == g->pad[d];
    }
    return interior ? 1 : padded ? 2 : 0;
}

/* Buffer b of g from v (interior or padded, by kind). */
static void fill_buffer(const InterpGrid *g, double *b, const double *v, int kind)
{
    if (kind == 2) {
        memcpy(b, v, (size_t)g->total * sizeof *b);
        return;
    }
    memset(b, 0, (size_t)g->total * sizeof *b);
    long at = 0;
    for (int k = 0; k < g->n[2]; k++)
        for (int j = 0; j < g->n[1]; j++)
            for (int i = 0; i < g->n[0]; i++)
                b[interp_index(g, i, j, k)] = v[at++];
}

/* Field f of g from v: every level (level 0), or only the level before (level -1). */
static void fill_field(InterpGrid *g, int f, const double *v, int kind, int level)
{
    const IrField *fd = &g->prog->fields[f];
    int levels = fd->role == ROLE_STATE ? fd->levels : 1;
    for (int l = 0; l < levels; l++)
        if (!level || l == ((g->newest[f] + level) % levels + levels) % levels)
            fill_buffer(g, g->buf[f][l], v, kind);
}

/* The level a spec names: FIELD (0, every level) or FIELD@-1 (the level before, of a
 * three-level field, which a step reads as FIELD@-1); -2 after a usage error. *len: the name's. */
static int spec_level(Job *job, const char *spec, size_t *len)
{
    const char *at = memchr(spec, '@', *len);
    if (!at)
        return 0;
    size_t name = (size_t)(at - spec);
    int f = field_named(job, "--init", spec, name);
    if (f < 0)
        return -2;
    const IrField *fd = &job->prog->fields[f];
    if (strncmp(at, "@-1=", 4) != 0 || fd->role != ROLE_STATE || fd->levels != 3) {
        diag_run_error(&job->diag, "--init %.*s: only a three-level state field takes FIELD@-1 (its level "
                                   "before); %s has %d level%s\n(see stencilc --help)", (int)*len, spec, fd->name,
                       fd->role == ROLE_STATE ? fd->levels : 1, fd->role == ROLE_STATE && fd->levels == 1 ? "" : "s");
        return -2;
    }
    *len = name;
    return -1;
}

int check_init(Job *job, InterpGrid **grids, int n)
{
    const Options *o = job->opt;
    for (int i = 0; i < 2 * o->ninit; i++) { /* FIELD first, then FIELD@-1 over it */
        const char *spec = o->init[i % o->ninit], *eq = strchr(spec, '='), *path = eq + 1;
        size_t len = (size_t)(eq - spec);
        int level = spec_level(job, spec, &len);
        if (level == -2)
            return STEP_USAGE;
        if ((level == -1) != (i >= o->ninit))
            continue;
        int f = field_named(job, "--init", spec, len);
        if (f < 0)
            return STEP_USAGE;
        NpyHeader h;
        double *v;
        char why[1024];
        if (npy_read(path, &h, &v, why, sizeof why) != 0) {
            diag_run_error(&job->diag, "--init %.*s: %s", (int)(eq - spec), spec, why);
            return -1;
        }
        int kind = shape_kind(grids[0], &h);
        if (!kind) {
            char in[128] = "(", inner[64], padded[64];
            for (int d = 0; d < h.ndim && strlen(in) < 100; d++)
                snprintf(in + strlen(in), sizeof in - strlen(in), "%ld%s", h.shape[d],
                         d + 1 < h.ndim ? ", " : h.ndim == 1 ? ",)" : ")");
            if (h.ndim == 0)
                strcat(in, ")");
            shape_text(grids[0], 0, inner, sizeof inner);
            shape_text(grids[0], 1, padded, sizeof padded);
            diag_run_error(&job->diag, "--init %.*s: '%s' has shape %s; the grid needs %s (C order, z y x), or %s "
                           "with the halo (--grid sets the grid)", (int)(eq - spec), spec, path, in, inner, padded);
            free(v);
            return -1;
        }
        for (int k = 0; k < n; k++)
            fill_field(grids[k], f, v, kind, level);
        free(v);
    }
    return 0;
}

void check_round_to_type(InterpGrid *g)
{
    if (g->prog->type != ELEM_FLOAT)
        return;
    for (int f = 0; f < g->prog->nfields && f < 64; f++) {
        const IrField *fd = &g->prog->fields[f];
        for (int l = 0; l < (fd->role == ROLE_STATE ? fd->levels : 1); l++)
            for (long i = 0; i < g->total; i++)
                g->buf[f][l][i] = (double)(float)g->buf[f][l][i];
    }
}

void check_max_abs(const InterpGrid *g, double *max_abs)
{
    for (int f = 0; f < g->prog->nfields && f < 64; f++) {
        const double *b = g->buf[f][g->newest[f]];
        double m = 0;
        for (int k = 0; k < g->n[2]; k++)
            for (int j = 0; j < g->n[1]; j++)
                for (int i = 0; i < g->n[0]; i++) {
                    double v = fabs(b[interp_index(g, i, j, k)]);
                    m = isfinite(v) && v > m ? v : m;
                }
        max_abs[f] = m;
    }
}

int check_growth(Job *job, const InterpGrid *g, const double *before)
{
    const IrProgram *p = g->prog;
    double after[64];
    check_max_abs(g, after);
    int grew = 0;
    for (int f = 0; f < p->nfields && f < 64; f++) {
        if (p->fields[f].role == ROLE_TEMP)
            continue;
        double scale = before[f] > 0 ? before[f] : 1.0; /* from all zeros, growth is against 1 */
        if (after[f] > GROWTH_LIMIT || after[f] > GROWTH_FACTOR * scale) {
            diag_run_warning(&job->diag, "check %s: the largest |%s| grew from %.3g to %.3g: the values grow "
                             "without bound (an unstable time step or a sign error?)", p->name, p->fields[f].name,
                             before[f], after[f]);
            grew = 1;
        }
    }
    return grew;
}

/* The interior of field f's newest buffer, x fastest, into a malloc'd array. */
static double *interior(const InterpGrid *g, int f)
{
    double *v = malloc((size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2] * sizeof *v);
    const double *b = g->buf[f][g->newest[f]];
    long at = 0;
    for (int k = 0; k < g->n[2]; k++)
        for (int j = 0; j < g->n[1]; j++)
            for (int i = 0; i < g->n[0]; i++)
                v[at++] = b[interp_index(g, i, j, k)];
    return v;
}

typedef struct {
    OutFile files[64 + OPT_MAX_FILES];
    StrBuf texts[64 + OPT_MAX_FILES];
    int field[64 + OPT_MAX_FILES];
    int n;
} SaveSet;

/* Field f to path, added to the set; -1 where another --save writes that path too. */
static int add_file(Job *job, const InterpGrid *g, int f, const char *path, SaveSet *s)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->files[i].path, path)) {
            diag_run_error(&job->diag, "--save: '%s' would be written twice (fields '%s' and '%s')", diag_name(path),
                           g->prog->fields[s->field[i]].name, g->prog->fields[f].name);
            return -1;
        }
    if (s->n == 64 + OPT_MAX_FILES) {
        diag_run_error(&job->diag, "--save: more than %d files", s->n);
        return -1;
    }
    int dims = g->prog->dims;
    long shape[3];
    for (int d = 0; d < dims; d++)
        shape[d] = g->n[dims - 1 - d];
    double *v = interior(g, f);
    StrBuf *t = &s->texts[s->n];
    *t = (StrBuf){0};
    npy_format(t, v, dims, shape, ir_elem_size(job->prog));
    free(v);
    s->files[s->n] = (OutFile){path, t->data, t->len};
    s->field[s->n++] = f;
    return 0;
}

int check_save(Job *job, const InterpGrid *g)
{
    const Options *o = job->opt;
    const IrProgram *p = job->prog;
    SaveSet *s = calloc(1, sizeof *s);
    int rc = 0;
    for (int i = 0; i < o->nsave && rc == 0; i++) {
        const char *spec = o->save[i], *eq = strchr(spec, '=');
        if (eq) {
            int f = field_named(job, "--save", spec, (size_t)(eq - spec));
            rc = f < 0 ? STEP_USAGE : add_file(job, g, f, eq + 1, s);
            continue;
        }
        if (mkdir(spec, 0777) != 0 && errno != EEXIST) {
            diag_run_error(&job->diag, "--save: cannot make the folder '%s': %s", diag_name(spec), strerror(errno));
            rc = -1;
        }
        for (int f = 0; f < p->nfields && f < 64 && rc == 0; f++)
            if (p->fields[f].role != ROLE_TEMP)
                rc = add_file(job, g, f, arena_printf(job->arena, "%s/%s.npy", spec, p->fields[f].name), s);
    }
    struct stat in, *keep = NULL; /* never over the input */
    if (strcmp(o->input, "-") != 0 && stat(o->input, &in) == 0)
        keep = &in;
    char why[512];
    for (int i = 0; i < s->n && rc == 0; i++)
        if (out_check_target(s->files[i].path, keep, why, sizeof why) != 0) {
            diag_run_error(&job->diag, "--save: %s", why);
            rc = -1;
        }
    if (rc == 0 && s->n > 0 && out_replace(s->files, s->n, why, sizeof why) != 0) {
        diag_run_error(&job->diag, "--save: %s", why);
        rc = -1;
    }
    for (int i = 0; i < s->n && rc == 0; i++)
        printf("  saved %s to %s (%s)\n", p->fields[s->field[i]].name, s->files[i].path,
               p->type == ELEM_DOUBLE ? "float64" : "float32");
    for (int i = 0; i < s->n; i++)
        sb_free(&s->texts[i]);
    free(s);
    return rc;
}
