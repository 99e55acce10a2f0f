"""The array libraries a Grid's buffers can live in, behind one small interface: CuPy and
PyTorch buffers stay on the GPU and are handed to the kernel by pointer, on the library's
current stream; numpy arrays (and anything else array-like) are copied to device memory that
the kernel library allocates, and copied back when read. Objects with __cuda_array_interface__
or __dlpack__ go through CuPy when it is installed."""
import ctypes


def _module(a):
    return type(a).__module__.split(".")[0]


class CupyArrays:
    def __init__(self, like):
        import cupy
        self.cp, self.device = cupy, like.device.id

    def empty(self, shape, dtype):
        with self.cp.cuda.Device(self.device):
            return self.cp.zeros(shape, dtype=dtype)

    def pointer(self, buf):
        return buf.data.ptr

    def stream(self):
        return self.cp.cuda.get_current_stream().ptr

    def put(self, buf, where, value):
        buf[where] = self.cp.asarray(value)

    def view(self, buf, where):
        return buf[where]

    def done(self, lib):
        pass


class TorchArrays:
    def __init__(self, like):
        import torch
        self.torch = torch
        self.device = like.device if like.is_cuda else torch.device("cuda")

    def empty(self, shape, dtype):
        return self.torch.zeros(shape, dtype=getattr(self.torch, dtype), device=self.device)

    def pointer(self, buf):
        return buf.data_ptr()

    def stream(self):
        return self.torch.cuda.current_stream(self.device).cuda_stream

    def put(self, buf, where, value):
        buf[where] = self.torch.as_tensor(value, device=self.device)

    def view(self, buf, where):
        return buf[where]

    def done(self, lib):
        pass


class HostArrays:
    """numpy arrays: a host copy of each padded buffer, and device memory behind it."""

    class Buffer:
        def __init__(self, host, lib):
            self.host, self.lib, self.ptr = host, lib, ctypes.c_void_p()
            lib.check("cudaMalloc", lib.so.stcpy_malloc(ctypes.byref(self.ptr), ctypes.c_size_t(host.nbytes)))
            self.stale = True   # the device copy is older than the host copy

        def __del__(self):
            if self.ptr:
                self.lib.so.stcpy_free(self.ptr)

    def __init__(self, like, lib):
        import numpy
        self.np, self.lib, self.device = numpy, lib, 0

    def empty(self, shape, dtype):
        return self.Buffer(self.np.zeros(shape, dtype=dtype), self.lib)

    def pointer(self, buf):
        if buf.stale:
            self.lib.check("cudaMemcpy", self.lib.so.stcpy_upload(
                buf.ptr, buf.host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(buf.host.nbytes)))
            buf.stale = False
        return buf.ptr.value

    def stream(self):
        return 0

    def put(self, buf, where, value):
        buf.host[where] = self.np.asarray(value)
        buf.stale = True

    def view(self, buf, where):
        """A copy: the device's values, read back."""
        if not buf.stale:
            self.lib.check("cudaMemcpy", self.lib.so.stcpy_download(
                buf.host.ctypes.data_as(ctypes.c_void_p), buf.ptr, ctypes.c_size_t(buf.host.nbytes)))
        return buf.host[where].copy()

    def done(self, lib):
        lib.check("cudaDeviceSynchronize", lib.so.stcpy_synchronize())


def arrays_for(values, lib):
    """The array library of the first array among values (CuPy, PyTorch, or host numpy), with
    values converted where they need it (DLPack and CUDA-array-interface objects, via CuPy)."""
    for v in values:
        mod = _module(v)
        if mod == "cupy":
            return CupyArrays(v)
        if mod == "torch":
            return TorchArrays(v)
    for v in values:
        if hasattr(v, "__cuda_array_interface__") or (hasattr(v, "__dlpack__") and _module(v) != "numpy"):
            try:
                import cupy
            except ImportError:
                raise TypeError(f"a {type(v).__name__} on the GPU needs CuPy to be read") from None
            return CupyArrays(cupy.asarray(v) if hasattr(v, "__cuda_array_interface__") else cupy.from_dlpack(v))
    return HostArrays(values[0] if values else None, lib)


def as_library_array(arrays, v):
    """v in the form arrays.put() takes (a DLPack object becomes a CuPy array)."""
    if isinstance(arrays, CupyArrays) and _module(v) not in ("cupy", "numpy") and hasattr(v, "__dlpack__") \
            and not hasattr(v, "__cuda_array_interface__"):
        return arrays.cp.from_dlpack(v)
    return v


def shape_of(v):
    shape = getattr(v, "shape", None)
    if shape is None:
        import numpy
        shape = numpy.shape(v)
    return tuple(int(s) for s in shape)
