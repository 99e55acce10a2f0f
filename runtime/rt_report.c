/* What a compiled plan uses and executes, without loading it: NVRTC's PTX and ptxas's resource
 * report (registers, spills, shared memory per kernel). The compile is the one rt_nvrtc_compile
 * makes (same architecture and options) with ptxas asked to be verbose, so the figures are
 * those of the kernel that would be timed; nvJitLink would report the same ptxas lines from a
 * second compile of the PTX, which costs as much again. A compile-only context is enough. With
 * $STC_NVCC, nvcc's PTX and report instead (rt_nvcc.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt_internal.h"

static char *program_log(const CudaApi *api, nvrtcProgram prog)
{
    size_t size = 0;
    if (api->nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS)
        size = 0;
    char *text = malloc(size + 1);
    if (!text)
        return NULL;
    text[0] = 0;
    if (size > 0 && api->nvrtcGetProgramLog(prog, text) == NVRTC_SUCCESS)
        text[size] = 0;
    return text;
}

static char *program_ptx(const CudaApi *api, nvrtcProgram prog)
{
    size_t size = 0;
    if (api->nvrtcGetPTXSize(prog, &size) != NVRTC_SUCCESS || size == 0)
        return NULL;
    char *text = malloc(size + 1);
    if (text && api->nvrtcGetPTX(prog, text) != NVRTC_SUCCESS) {
        free(text);
        return NULL;
    }
    if (text)
        text[size] = 0;
    return text;
}

int rt_nvrtc_report(const RtContext *rc, const char *source, const char *name, char **ptx,
                    char **report, char *log, int loglen)
{
    const CudaApi *api = &rc->api;
    nvrtcProgram prog;
    *ptx = *report = NULL;
    if (rt_nvcc_path())
        return rt_nvcc_build(rc, source, NULL, NULL, ptx, report, log, loglen);
    char arch[32];
    nvrtcResult r;
    if (rt_nvrtc_build(rc, source, name, 1, &prog, arch, &r, log, loglen) != 0)
        return -1;
    char *text = program_log(api, prog);
    if (r != NVRTC_SUCCESS) {
        snprintf(log, (size_t)loglen, "NVRTC (%s) failed: %s\n%s", arch, api->nvrtcGetErrorString(r),
                 text ? text : "");
        free(text);
        api->nvrtcDestroyProgram(&prog);
        return -1;
    }
    *ptx = program_ptx(api, prog);
    api->nvrtcDestroyProgram(&prog);
    if (!*ptx || !text) {
        snprintf(log, (size_t)loglen, "NVRTC (%s) gave no PTX or no report", arch);
        free(*ptx);
        free(text);
        *ptx = NULL;
        return -1;
    }
    *report = text;
    return 0;
}
