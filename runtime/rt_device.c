/* The device: is there one, open it, describe it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "rt_internal.h"

int rt_cu_check(const RtContext *rc, CUresult r, const char *what, char *why, int whylen)
{
    if (r == CUDA_SUCCESS)
        return 0;
    const char *name = NULL, *text = NULL;
    if (rc->api.GetErrorName)
        rc->api.GetErrorName(r, &name);
    if (rc->api.GetErrorString)
        rc->api.GetErrorString(r, &text);
    snprintf(why, (size_t)whylen, "%s: %s (%s)", what, name ? name : "CUDA error",
             text ? text : "no description");
    return -1;
}

static int env_device(void)
{
    const char *s = getenv("STC_DEVICE");
    return s && *s ? atoi(s) : 0;
}

/* Loads the libraries, initializes the driver and finds the device, without creating a
 * context. */
static int open_device(RtContext *rc, char *why, int whylen)
{
    if (rt_cuda_load(&rc->api, why, whylen) != 0)
        return -1;
    CUresult r = rc->api.Init(0);
    if (r != CUDA_SUCCESS) {
        rt_cu_check(rc, r, "cuInit (no usable GPU or driver)", why, whylen);
        return -1;
    }
    int count = 0, want = env_device();
    if (RT_CU(rc, DeviceGetCount(&count), "cuDeviceGetCount", why, whylen))
        return -1;
    if (count <= 0) {
        snprintf(why, (size_t)whylen, "the CUDA driver sees no GPU");
        return -1;
    }
    if (want < 0 || want >= count) {
        snprintf(why, (size_t)whylen, "STC_DEVICE=%d but there are %d GPUs", want, count);
        return -1;
    }
    return RT_CU(rc, DeviceGet(&rc->dev, want), "cuDeviceGet", why, whylen);
}

static int attr(RtContext *rc, CUdevice_attribute a)
{
    int v = 0;
    rc->api.DeviceGetAttribute(&v, a, rc->dev);
    return v;
}

static void read_info(RtContext *rc)
{
    RtDeviceInfo *in = &rc->info;
    rc->api.DeviceGetName(in->name, (int)sizeof in->name, rc->dev);
    snprintf(in->bus_id, sizeof in->bus_id, "%04x:%02x:%02x.0", attr(rc, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
             attr(rc, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID), attr(rc, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
    in->cc_major = attr(rc, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    in->cc_minor = attr(rc, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    in->sm_count = attr(rc, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    in->l2_bytes = attr(rc, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    in->smem_optin = attr(rc, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    rc->api.DeviceTotalMem(&in->total_mem, rc->dev);
    rc->api.DriverGetVersion(&in->driver_version);
    rc->api.nvrtcVersion(&in->nvrtc_major, &in->nvrtc_minor);
}

/* The check runs in a child process when it can: a process that has called cuInit cannot use
 * CUDA in children it forks later, and the tuner isolates GPU work in such children. */
int rt_available(char *why, int whylen)
{
    int fds[2];
    if (pipe(fds) == 0) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            RtContext rc;
            memset(&rc, 0, sizeof rc);
            char msg[512] = "";
            int ok = open_device(&rc, msg, (int)sizeof msg) == 0;
            char out[514];
            int len = snprintf(out, sizeof out, "%c%s", ok ? '1' : '0', msg);
            if (write(fds[1], out, (size_t)len) < 0)
                _exit(2);
            _exit(0);
        }
        close(fds[1]);
        if (pid > 0) {
            char buf[514];
            size_t got = 0;
            ssize_t r;
            while (got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
                got += (size_t)r;
            buf[got] = 0;
            close(fds[0]);
            int status = 0;
            waitpid(pid, &status, 0);
            if (got == 0) {
                snprintf(why, (size_t)whylen, "the GPU probe process died (status %d)", status);
                return 0;
            }
            if (buf[0] == '1')
                return 1;
            snprintf(why, (size_t)whylen, "%s", buf + 1);
            return 0;
        }
        close(fds[0]);
    }
    RtContext rc;
    memset(&rc, 0, sizeof rc);
    int ok = open_device(&rc, why, whylen) == 0;
    rt_cuda_unload(&rc.api);
    return ok;
}

RtContext *rt_context_new(char *why, int whylen)
{
    RtContext *rc = calloc(1, sizeof *rc);
    if (!rc) {
        snprintf(why, (size_t)whylen, "out of memory");
        return NULL;
    }
    if (open_device(rc, why, whylen) != 0
        || RT_CU(rc, DevicePrimaryCtxRetain(&rc->ctx, rc->dev), "cuDevicePrimaryCtxRetain", why,
                 whylen)) {
        rt_cuda_unload(&rc->api);
        free(rc);
        return NULL;
    }
    if (RT_CU(rc, CtxSetCurrent(rc->ctx), "cuCtxSetCurrent", why, whylen)) {
        rc->api.DevicePrimaryCtxRelease(rc->dev);
        rt_cuda_unload(&rc->api);
        free(rc);
        return NULL;
    }
    read_info(rc);
    return rc;
}

RtContext *rt_context_compile_only(int cc_major, int cc_minor, char *why, int whylen)
{
    RtContext *rc = calloc(1, sizeof *rc);
    if (!rc) {
        snprintf(why, (size_t)whylen, "out of memory");
        return NULL;
    }
    if (rt_nvrtc_load(&rc->api, why, whylen) != 0) {
        free(rc);
        return NULL;
    }
    snprintf(rc->info.name, sizeof rc->info.name, "(compile only)");
    rc->info.cc_major = cc_major;
    rc->info.cc_minor = cc_minor;
    rc->api.nvrtcVersion(&rc->info.nvrtc_major, &rc->info.nvrtc_minor);
    return rc;
}

void rt_context_free(RtContext *rc)
{
    if (!rc)
        return;
    if (rc->flush_buf && rc->api.MemFree)
        rc->api.MemFree(rc->flush_buf);
    if (rc->ctx)
        rc->api.DevicePrimaryCtxRelease(rc->dev);
    rt_cuda_unload(&rc->api);
    free(rc);
}

const RtDeviceInfo *rt_device_info(const RtContext *rc) { return &rc->info; }

void rt_device_print(FILE *out, const RtContext *rc)
{
    const RtDeviceInfo *in = &rc->info;
    fprintf(out, "device: %s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB, driver %d.%d, NVRTC %d.%d\n",
            in->name, in->cc_major, in->cc_minor, in->sm_count,
            (double)in->total_mem / (1024.0 * 1024 * 1024), in->l2_bytes >> 20,
            in->driver_version / 1000, in->driver_version % 1000 / 10, in->nvrtc_major,
            in->nvrtc_minor);
}
