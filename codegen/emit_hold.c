/* hold=on in the emitted host code (codegen/hold.c says what it is; runtime/rt_hold.c runs the
 * same sequence for tuning and verification): the extended copies live in the workspace after
 * the temps, @_hstep_ is Plan.held's group, and @_hold_run_ runs the fused groups over the copies
 * and hands the fields back with their halos filled. */
#include "emit_api.h"

#include <string.h>

int api_hold_buffers(const Api *api)
{
    const IrProgram *p = api->prog;
    int n = 0;
    for (int f = 0; api->plan->hold_kind && f < p->nfields; f++)
        n += p->fields[f].role == ROLE_STATE ? p->fields[f].levels : p->fields[f].role == ROLE_COEF;
    return n;
}

static const char HOLD_SIZE[] =
    "/* hold=on (codegen/hold.c): the bytes of one extended copy of a field, every face ${ext}\n"
    " * layers deeper (a temp's buffer on the extended grid); 0 where the held groups do not take\n"
    " * the grid: the layers' sources outside it, or the extended grid beyond @_buffer_elems. */\n"
    "static size_t @_hold_bytes_(int nx, int ny, int nz)\n{\n"
    "    const int n[3] = {nx, ny, nz}, ext[3] = {${E0}, ${E1}, ${E2}}, least[3] = {${M0}, ${M1}, ${M2}};\n"
    "    for (int d = 0; d < ${dims}; d++)\n"
    "        if (n[d] < least[d] || n[d] > 2147483647 - 2 * ext[d])\n"
    "            return 0;\n"
    "    return @_temp_bytes_(nx + ${E2x}, ny + ${E2y}, nz + ${E2z}); /* 0 beyond @_buffer_elems */\n}\n\n";

static const char HOLD_COPIES[] =
    "/* A field's interior into its extended copy x (in = 1), or back. */\n"
    "static cudaError_t @_hold_box_(${T} *x, ${T} *s, const int n[3], int in, cudaStream_t stream)\n{\n"
    "    const int ext[3] = {${E0}, ${E1}, ${E2}}, halo[3] = {${hx}, ${hy}, ${hz}};\n"
    "    long long P[3], X[3], xo = 0, so = 0, xs = 1, ss = 1;\n"
    "    for (int d = 0; d < 3; d++) {\n"
    "        P[d] = (long long)n[d] + 2 * halo[d];\n"
    "        X[d] = P[d] + 2LL * ext[d];\n"
    "        xo += (halo[d] + ext[d]) * xs;\n"
    "        so += halo[d] * ss;\n"
    "        xs *= X[d];\n"
    "        ss *= P[d];\n    }\n"
    "    const dim3 grid((unsigned)((n[0] + 255) / 256), (unsigned)(n[1] < 65535 ? n[1] : 65535),\n"
    "                    (unsigned)(n[2] < 65535 ? n[2] : 65535));\n"
    "    if (in)\n"
    "        @_hold_copy_<<<grid, 256, 0, stream>>>(x + xo, s + so, X[0], X[0] * X[1], P[0], P[0] * P[1], n[0], n[1], n[2]);\n"
    "    else\n"
    "        @_hold_copy_<<<grid, 256, 0, stream>>>(s + so, x + xo, P[0], P[0] * P[1], X[0], X[0] * X[1], n[0], n[1], n[2]);\n"
    "    return cudaGetLastError();\n}\n\n"
    "/* The layers beyond every face of an extended copy, axis by axis: ${how}. */\n"
    "static cudaError_t @_hold_refill_(${T} *x, const int n[3], cudaStream_t stream)\n{\n"
    "    const int ext[3] = {${E0}, ${E1}, ${E2}}, halo[3] = {${hx}, ${hy}, ${hz}};\n"
    "    long long X[3];\n"
    "    for (int d = 0; d < 3; d++)\n"
    "        X[d] = (long long)n[d] + 2LL * (halo[d] + ext[d]);\n"
    "    cudaError_t err = cudaSuccess;\n"
    "    for (int a = 0; a < ${dims} && err == cudaSuccess; a++) {\n"
    "        const int w = ext[a], b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;\n"
    "        const long long first = halo[a] + w, last = first + n[a] - 1;\n"
    "        const dim3 grid((unsigned)((X[b] + 255) / 256), (unsigned)(X[c] < 65535 ? X[c] : 65535), (unsigned)(2 * w));\n"
    "        @_hold_edge_<<<grid, 256, 0, stream>>>(x, a, ${kind}, X[0], X[1], X[2], halo[a], last + 1, w,\n"
    "            (long long)n[a], 2 * first - ${half}, 2 * last + ${half});\n"
    "        err = cudaGetLastError();\n    }\n"
    "    return err;\n}\n\n";

static const char HOLD_RUN_HEAD[] =
    "/* The fused groups while *left allows, over extended copies in ws (hold=on): each group's\n"
    " * copies refilled, then @_hstep_ over the extended grid; then the interiors copied back and\n"
    " * every halo filled as at the start of a run. */\n"
    "static cudaError_t @_hold_run_(@_bufs_ *b, const @_params *p, const int n[3], int *left, int steps,\n"
    "    char *ws, cudaStream_t stream)\n{\n"
    "    const size_t bytes = @_hold_bytes_(n[0], n[1], n[2]);\n"
    "    const int xn[3] = {n[0] + ${E2x}, n[1] + ${E2y}, n[2] + ${E2z}};\n"
    "    @_bufs_ x;\n    memset(&x, 0, sizeof x);\n";

/* Each extended copy's place in ws, and the copies in (the coefs refilled once). */
static void hold_bind(const Api *api, StrBuf *o)
{
    const IrProgram *p = api->prog;
    int slot = 0;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        const char *m = api->member[f];
        if (fl->role == ROLE_STATE)
            for (int l = 0; l < fl->levels; l++)
                sb_printf(o, "    x.%s[%d] = (%s *)(ws + %d * bytes);\n", m, l, api->T, slot++);
        else if (fl->role == ROLE_COEF)
            sb_printf(o, "    x.%s = (%s *)(ws + %d * bytes);\n", m, api->T, slot++);
    }
    sb_printf(o, "    cudaError_t err = cudaMemsetAsync(ws, 0, %d * bytes, stream);\n", slot);
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        const char *m = api->member[f], *T = api->T;
        for (int l = 0; fl->role == ROLE_STATE && l < fl->levels; l++)
            api_put(api, o, arena_printf(api->arena, "    if (err == cudaSuccess)\n        err = @_hold_box_(x.%s[%d], "
                                         "b->%s[%d], n, 1, stream);\n", m, l, m, l), NULL);
        if (fl->role == ROLE_COEF)
            api_put(api, o, arena_printf(api->arena, "    if (err == cudaSuccess)\n        err = @_hold_box_((%s *)x.%s, "
                                         "(%s *)b->%s, n, 1, stream);\n    if (err == cudaSuccess)\n"
                                         "        err = @_hold_refill_((%s *)x.%s, n, stream);\n", T, m, T, m, T, m), NULL);
    }
}

/* The groups, then the copies back and the prologue's fills. */
static void hold_loop(const Api *api, StrBuf *o)
{
    const IrProgram *p = api->prog;
    sb_printf(o, "    for (; err == cudaSuccess && *left >= %d; *left -= %d) {\n", api->plan->step_count,
              api->plan->step_count);
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE)
            api_put(api, o, arena_printf(api->arena, "        if (err == cudaSuccess)\n            err = "
                                         "@_hold_refill_(x.%s[0], n, stream);\n", api->member[f]), NULL);
    api_put(api, o, "        if (err == cudaSuccess)\n            err = @_hstep_(&x, p, xn, steps - *left, stream);\n"
                    "    }\n", NULL);
    for (int f = 0; f < p->nfields; f++)
        for (int l = 0; p->fields[f].role == ROLE_STATE && l < p->fields[f].levels; l++)
            api_put(api, o, arena_printf(api->arena, "    if (err == cudaSuccess)\n        err = @_hold_box_(x.%s[%d], "
                                         "b->%s[%d], n, 0, stream);\n", api->member[f], l, api->member[f], l), NULL);
    api_put(api, o, "    if (err == cudaSuccess)\n        err = @_prologue_(b, p, n, 0, stream);\n"
                    "    return err;\n}\n\n", NULL);
}

static TplVar *hold_vars(const Api *api)
{
    const Plan *pl = api->plan;
    const IrProgram *p = api->prog;
    Arena *a = api->arena;
    const int *E = pl->hold_ext, *M = pl->hold_min_n;
    const TplVar vars[] = {
        {"E0", arena_printf(a, "%d", E[0])}, {"E1", arena_printf(a, "%d", E[1])}, {"E2", arena_printf(a, "%d", E[2])},
        {"E2x", arena_printf(a, "%d", 2 * E[0])}, {"E2y", arena_printf(a, "%d", 2 * E[1])},
        {"E2z", arena_printf(a, "%d", 2 * E[2])}, {"ext", arena_printf(a, "%d x %d x %d", E[0], E[1], E[2])},
        {"M0", arena_printf(a, "%d", M[0])}, {"M1", arena_printf(a, "%d", M[1])}, {"M2", arena_printf(a, "%d", M[2])},
        {"hx", arena_printf(a, "%d", p->halo[0])}, {"hy", arena_printf(a, "%d", p->halo[1])},
        {"hz", arena_printf(a, "%d", p->halo[2])}, {"dims", arena_printf(a, "%d", p->dims)},
        {"T", api->T}, {"kind", arena_printf(a, "%d", pl->hold_kind)},
        {"half", pl->hold_kind == HOLD_CLAMP ? "1" : "0"},
        {"how", pl->hold_kind == HOLD_WRAP ? "wrapped from the points n away"
                : pl->hold_kind == HOLD_MIRROR ? "mirror images about the edge point"
                                               : "images about the edge's middle (clamp of radius 1)"},
        {NULL, NULL},
    };
    TplVar *copy = arena_alloc(a, sizeof vars);
    memcpy(copy, vars, sizeof vars);
    return copy;
}

const char *api_hold_size(const Api *api)
{
    if (!api->plan->hold_kind)
        return "";
    StrBuf o = {0};
    api_put(api, &o, HOLD_SIZE, hold_vars(api));
    const char *text = arena_strdup(api->arena, o.data);
    sb_free(&o);
    return text;
}

void api_emit_hold(const Api *api, StrBuf *o)
{
    if (!api->plan->hold_kind)
        return;
    const TplVar *vars = hold_vars(api);
    api_emit_group(api, "hstep", api->plan->held, api->plan->nheld, 0, o);
    api_put(api, o, HOLD_COPIES, vars);
    api_put(api, o, HOLD_RUN_HEAD, vars);
    hold_bind(api, o);
    hold_loop(api, o);
}
