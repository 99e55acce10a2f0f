// Device memory for numpy arrays and the device choice, compiled into every kernel library the
// Python package builds (stencilc/build.py): the same CUDA runtime as the kernel's own.
#include <cuda_runtime_api.h>

extern "C" {
int stcpy_malloc(void **p, size_t bytes) { return (int)cudaMalloc(p, bytes); }
int stcpy_free(void *p) { return (int)cudaFree(p); }
int stcpy_upload(void *dst, const void *src, size_t bytes)
{
    return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}
int stcpy_download(void *dst, const void *src, size_t bytes)
{
    return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}
int stcpy_set_device(int device) { return (int)cudaSetDevice(device); }
int stcpy_synchronize(void) { return (int)cudaDeviceSynchronize(); }
const char *stcpy_error_string(int err) { return cudaGetErrorString((cudaError_t)err); }
}
