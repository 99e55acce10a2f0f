/* Opens libcuda and libnvrtc with dlopen and resolves the entry points the runtime uses, so
 * that stencilc links nothing from CUDA and runs (without a GPU) where neither exists. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <glob.h>
#include "rt_internal.h"
#include "stc_config.h"

/* RTLD_NODELETE: the driver and NVRTC stay mapped once opened. Neither is meant to be unloaded
 * (NVRTC keeps allocations of its C++ runtime, the driver its threads), and a later context
 * opens them again at no cost. */
static void *open_first(const char *const *names, int n)
{
    for (int i = 0; i < n; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (h)
            return h;
    }
    return NULL;
}

/* NVRTC's soname carries the toolkit's major version; try the usual names, then whatever the
 * toolkit directory holds. */
static void *open_nvrtc(void)
{
    static const char *const names[] = {
        "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
    };
    void *h = open_first(names, (int)(sizeof names / sizeof names[0]));
    if (h)
        return h;
    const char *patterns[] = { STC_CUDA_HOME "/lib64/libnvrtc.so*",
                               "/usr/local/cuda/lib64/libnvrtc.so*" };
    for (int p = 0; p < 2 && !h; p++) {
        glob_t gl;
        if (glob(patterns[p], 0, NULL, &gl) != 0)
            continue;
        for (size_t i = 0; i < gl.gl_pathc && !h; i++)
            if (!strstr(gl.gl_pathv[i], "builtins"))
                h = dlopen(gl.gl_pathv[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        globfree(&gl);
    }
    return h;
}

/* Assigning dlsym's void * to a function pointer is what POSIX requires to work; the memcpy
 * keeps -Wpedantic quiet about the conversion. */
static int resolve(void *lib, const char *name, void *slot, char *why, int whylen)
{
    void *sym = dlsym(lib, name);
    if (!sym) {
        snprintf(why, (size_t)whylen, "symbol %s missing from the CUDA libraries", name);
        return -1;
    }
    memcpy(slot, &sym, sizeof sym);
    return 0;
}

static int load(CudaApi *api, int driver, char *why, int whylen)
{
    memset(api, 0, sizeof *api);
    static const char *const cuda_names[] = { "libcuda.so.1", "libcuda.so" };
    if (driver && !(api->libcuda = open_first(cuda_names, 2))) {
        snprintf(why, (size_t)whylen, "no CUDA driver (libcuda.so.1 not found: %s)", dlerror());
        return -1;
    }
    api->libnvrtc = open_nvrtc();
    if (!api->libnvrtc) {
        snprintf(why, (size_t)whylen, "NVRTC not found (libnvrtc.so*, also under %s/lib64)",
                 STC_CUDA_HOME);
        rt_cuda_unload(api);
        return -1;
    }
    struct { void *lib; const char *name; void *slot; } syms[] = {
#define D(field, sym) { api->libcuda, sym, &api->field }
        D(Init, "cuInit"),
        D(DriverGetVersion, "cuDriverGetVersion"),
        D(DeviceGetCount, "cuDeviceGetCount"),
        D(DeviceGet, "cuDeviceGet"),
        D(DeviceGetName, "cuDeviceGetName"),
        D(DeviceGetAttribute, "cuDeviceGetAttribute"),
        D(DeviceTotalMem, "cuDeviceTotalMem_v2"),
        D(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
        D(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
        D(CtxSetCurrent, "cuCtxSetCurrent"),
        D(CtxSynchronize, "cuCtxSynchronize"),
        D(ModuleLoadData, "cuModuleLoadData"),
        D(ModuleUnload, "cuModuleUnload"),
        D(ModuleGetFunction, "cuModuleGetFunction"),
        D(FuncSetAttribute, "cuFuncSetAttribute"),
        D(FuncGetAttribute, "cuFuncGetAttribute"),
        D(LaunchKernel, "cuLaunchKernel"),
        D(MemAlloc, "cuMemAlloc_v2"),
        D(MemFree, "cuMemFree_v2"),
        D(MemGetInfo, "cuMemGetInfo_v2"),
        D(MemcpyHtoD, "cuMemcpyHtoD_v2"),
        D(MemcpyDtoH, "cuMemcpyDtoH_v2"),
        D(MemcpyDtoD, "cuMemcpyDtoD_v2"),
        D(MemsetD8Async, "cuMemsetD8Async"),
        D(EventCreate, "cuEventCreate"),
        D(EventRecord, "cuEventRecord"),
        D(EventSynchronize, "cuEventSynchronize"),
        D(EventElapsedTime, "cuEventElapsedTime"),
        D(EventDestroy, "cuEventDestroy_v2"),
        D(GetErrorName, "cuGetErrorName"),
        D(GetErrorString, "cuGetErrorString"),
#undef D
#define N(field) { api->libnvrtc, #field, &api->field }
        N(nvrtcVersion),
        N(nvrtcCreateProgram),
        N(nvrtcCompileProgram),
        N(nvrtcGetProgramLogSize),
        N(nvrtcGetProgramLog),
        N(nvrtcGetCUBINSize),
        N(nvrtcGetCUBIN),
        N(nvrtcGetPTXSize),
        N(nvrtcGetPTX),
        N(nvrtcDestroyProgram),
        N(nvrtcGetErrorString),
#undef N
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        if (!syms[i].lib)
            continue;
        if (resolve(syms[i].lib, syms[i].name, syms[i].slot, why, whylen) != 0) {
            rt_cuda_unload(api);
            return -1;
        }
    }
    return 0;
}

int rt_cuda_load(CudaApi *api, char *why, int whylen) { return load(api, 1, why, whylen); }

int rt_nvrtc_load(CudaApi *api, char *why, int whylen) { return load(api, 0, why, whylen); }

void rt_cuda_unload(CudaApi *api)
{
    if (api->libnvrtc)
        dlclose(api->libnvrtc);
    if (api->libcuda)
        dlclose(api->libcuda);
    api->libnvrtc = api->libcuda = NULL;
}
