/* NVRTC: a Plan's device source to a CUBIN for this GPU, then a loaded module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt_internal.h"

static void copy_log(const CudaApi *api, nvrtcProgram prog, char *log, int loglen)
{
    size_t size = 0;
    if (loglen <= 0)
        return;
    if (api->nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size == 0)
        return;
    char *text = malloc(size + 1);
    if (!text)
        return;
    if (api->nvrtcGetProgramLog(prog, text) == NVRTC_SUCCESS) {
        text[size] = 0;
        size_t used = strlen(log);
        if ((int)used < loglen - 1)
            snprintf(log + used, (size_t)(loglen - (int)used), "\n%s", text);
    }
    free(text);
}

int rt_nvrtc_build(const RtContext *rc, const char *source, const char *name, int ptxas_verbose,
                   nvrtcProgram *prog, char arch[32], nvrtcResult *result, char *log, int loglen)
{
    const CudaApi *api = &rc->api;
    if (loglen > 0)
        log[0] = 0;
    nvrtcResult r = api->nvrtcCreateProgram(prog, source, name ? name : "plan.cu", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        snprintf(log, (size_t)loglen, "nvrtcCreateProgram: %s", api->nvrtcGetErrorString(r));
        return -1;
    }
    snprintf(arch, 32, "-arch=sm_%d%d", rc->info.cc_major, rc->info.cc_minor);
    const char *opts[] = { arch, "-default-device", "-std=c++17", "-Xptxas", "-v" };
    *result = api->nvrtcCompileProgram(*prog, ptxas_verbose ? 5 : 3, opts);
    return 0;
}

int rt_nvrtc_compile(const RtContext *rc, const char *source, const char *name, void **cubin,
                     size_t *cubin_size, char *log, int loglen)
{
    const CudaApi *api = &rc->api;
    nvrtcProgram prog;
    *cubin = NULL;
    *cubin_size = 0;
    if (rt_nvcc_path())
        return rt_nvcc_build(rc, source, cubin, cubin_size, NULL, NULL, log, loglen);
    char arch[32];
    nvrtcResult r;
    if (rt_nvrtc_build(rc, source, name, 0, &prog, arch, &r, log, loglen) != 0)
        return -1;
    if (r != NVRTC_SUCCESS) {
        snprintf(log, (size_t)loglen, "NVRTC (%s) failed: %s", arch, api->nvrtcGetErrorString(r));
        copy_log(api, prog, log, loglen);
        api->nvrtcDestroyProgram(&prog);
        return -1;
    }
    size_t size = 0;
    r = api->nvrtcGetCUBINSize(prog, &size);
    char *bin = r == NVRTC_SUCCESS && size > 0 ? malloc(size) : NULL;
    if (!bin || api->nvrtcGetCUBIN(prog, bin) != NVRTC_SUCCESS) {
        snprintf(log, (size_t)loglen, "NVRTC produced no CUBIN (%s)",
                 r != NVRTC_SUCCESS ? api->nvrtcGetErrorString(r) : "empty or out of memory");
        free(bin);
        api->nvrtcDestroyProgram(&prog);
        return -1;
    }
    api->nvrtcDestroyProgram(&prog);
    *cubin = bin;
    *cubin_size = size;
    return 0;
}

/* Resolves the kernels of one launch list and opts in to the shared memory they ask for. */
static CUfunction *resolve_list(RtModule *m, const PlanLaunch *ls, int n, char *why, int whylen)
{
    RtContext *rc = m->rc;
    CUfunction *fns = calloc((size_t)(n > 0 ? n : 1), sizeof *fns);
    if (!fns) {
        snprintf(why, (size_t)whylen, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        char what[300];
        snprintf(what, sizeof what, "kernel %s", ls[i].kernel);
        if (RT_CU(rc, ModuleGetFunction(&fns[i], m->mod, ls[i].kernel), what, why, whylen))
            goto fail;
        if (plan_launch_opts_in(&ls[i])) {
            snprintf(what, sizeof what, "kernel %s: %d bytes of dynamic shared memory (at most %d)",
                     ls[i].kernel, ls[i].smem_bytes, rc->info.smem_optin);
            if (RT_CU(rc, FuncSetAttribute(fns[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           ls[i].smem_bytes), what, why, whylen))
                goto fail;
        }
    }
    return fns;
fail:
    free(fns);
    return NULL;
}

/* hold=on: the held group's kernels and the two copies (codegen/hold.c). */
static int resolve_hold(RtModule *m, char *why, int whylen)
{
    const Plan *p = m->plan;
    if (!(m->held = resolve_list(m, p->held, p->nheld, why, whylen)))
        return -1;
    return RT_CU(m->rc, ModuleGetFunction(&m->hold_copy, m->mod, p->hold_copy), p->hold_copy, why, whylen)
        || RT_CU(m->rc, ModuleGetFunction(&m->hold_edge, m->mod, p->hold_edge), p->hold_edge, why, whylen);
}

RtModule *rt_module_load(RtContext *rc, const Plan *plan, const void *cubin, char *why,
                         int whylen)
{
    if (!rc->ctx) {
        snprintf(why, (size_t)whylen, "a compile-only context cannot load modules");
        return NULL;
    }
    RtModule *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(why, (size_t)whylen, "out of memory");
        return NULL;
    }
    m->rc = rc;
    m->plan = plan;
    if (RT_CU(rc, CtxSetCurrent(rc->ctx), "cuCtxSetCurrent", why, whylen)
        || RT_CU(rc, ModuleLoadData(&m->mod, cubin), "cuModuleLoadData", why, whylen)) {
        free(m);
        return NULL;
    }
    if (!(m->prologue = resolve_list(m, plan->prologue, plan->nprologue, why, whylen))
        || !(m->step = resolve_list(m, plan->step, plan->nstep, why, whylen))
        || !(m->single = resolve_list(m, plan->single, plan->nsingle, why, whylen))
        || !(m->reduce = resolve_list(m, plan->reduce, plan->nreduce, why, whylen))
        || !(m->fused = resolve_list(m, plan->fused, plan->nfused, why, whylen))
        || !(m->after = resolve_list(m, plan->after, plan->nafter, why, whylen))
        || (plan->hold_kind && resolve_hold(m, why, whylen) != 0)) {
        rt_module_free(m);
        return NULL;
    }
    return m;
}

RtModule *rt_compile_plan(RtContext *rc, const Plan *plan, char *log, int loglen)
{
    void *cubin;
    size_t size;
    const char *name = plan->prog && plan->prog->name ? plan->prog->name : "plan";
    char file[256];
    snprintf(file, sizeof file, "%s.cu", name);
    if (rt_nvrtc_compile(rc, plan->source, file, &cubin, &size, log, loglen) != 0)
        return NULL;
    RtModule *m = rt_module_load(rc, plan, cubin, log, loglen);
    free(cubin);
    return m;
}

void rt_module_free(RtModule *m)
{
    if (!m)
        return;
    if (m->mod)
        m->rc->api.ModuleUnload(m->mod);
    free(m->prologue);
    free(m->step);
    free(m->single);
    free(m->reduce);
    free(m->fused);
    free(m->after);
    free(m->held);
    free(m);
}
