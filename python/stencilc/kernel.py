"""A compiled kernel (the shared library and what its header says) and a Grid: the padded
buffers of every field, on the GPU, with the interior of each handed out as a view."""
import ctypes
import os

from .arrays import TorchArrays, arrays_for, as_library_array, shape_of
from .build import read_text
from .errors import CudaError
from .header import KernelInfo


class Kernel:
    """One stencil, compiled: call it (kernel(u=u0, steps=100, alpha=0.1)) or make a Grid
    (kernel.grid(u=u0)) to run it several times on the same buffers.

    .prefix, .dtype ('float32' or 'float64'), .layout (stencilc.Layout), .fields (name: Field),
    .params (name: default), .cu and .h (the generated files), .log (what stencilc printed)."""

    def __init__(self, folder, log=""):
        self.cu, self.h = os.path.join(folder, "kernel.cu"), os.path.join(folder, "kernel.h")
        self.log = log
        info = KernelInfo(read_text(self.h))
        self.prefix, self.dtype, self.layout = info.prefix, info.dtype, info.layout
        self.fields = {f.name: f for f in info.fields}
        self.so = ctypes.CDLL(os.path.join(folder, "libkernel.so"))
        real = ctypes.c_float if info.ctype == "float" else ctypes.c_double

        class Fields(ctypes.Structure):
            _fields_ = [(f.name, ctypes.c_void_p * f.levels if f.levels > 1 else ctypes.c_void_p)
                        for f in info.fields]

        class Params(ctypes.Structure):
            _fields_ = [(p, real) for p in info.params] or [("unused_", ctypes.c_int)]

        self._Fields, self._Params = Fields, Params
        self._run = getattr(self.so, self.prefix + "_run")
        self._run.argtypes = [ctypes.POINTER(Fields), ctypes.POINTER(Params)] + [ctypes.c_int] * 4 + \
            [ctypes.c_void_p, ctypes.c_void_p]
        self._run.restype = ctypes.c_int
        defaults = getattr(self.so, self.prefix + "_params_defaults")
        defaults.restype = Params
        self._defaults = defaults()
        self.params = {p: getattr(self._defaults, p) for p in info.params}
        self.so.stcpy_error_string.restype = ctypes.c_char_p
        ptr, size = ctypes.c_void_p, ctypes.c_size_t
        self.so.stcpy_malloc.argtypes = [ctypes.POINTER(ptr), size]
        self.so.stcpy_free.argtypes = [ptr]
        self.so.stcpy_upload.argtypes = self.so.stcpy_download.argtypes = [ptr, ptr, size]

    def check(self, what, err):
        if err:
            raise CudaError(what, err, self.so.stcpy_error_string(err).decode())

    def grid(self, shape=None, halo=None, **values):
        """A Grid holding every field: values maps field names to arrays (or, for a state field
        with several levels, a list of arrays, newest first). See Grid."""
        return Grid(self, shape, halo, values)

    def __call__(self, steps=1, shape=None, halo=None, **kwargs):
        """Runs `steps` steps from the given fields with the given parameters (the rest keep the
        defaults of the .st file) and returns the Grid: grid.u is the newest u's interior."""
        values = {k: v for k, v in kwargs.items() if k in self.fields}
        params = {k: v for k, v in kwargs.items() if k not in self.fields}
        return self.grid(shape, halo, **values).run(steps, **params)

    def __repr__(self):
        return (f"<stencilc.Kernel {self.prefix}: {self.layout.dims}D {self.dtype}, fields "
                f"{list(self.fields)}, params {self.params}>")


class Grid:
    """Padded device buffers for every field of a kernel, in the array library of the arrays
    given (CuPy or PyTorch: the buffers stay on that GPU; numpy: copied there and back).

    The interior shape is `shape`, else the shape of the first array given; an array of the
    padded shape (kernel.layout.padded_shape(shape)) is taken whole, halo included. halo=v (or
    {field: v}) sets the halo of interior-shaped arrays (it matters for fixed boundaries; the
    others are filled by the run). A state field with L levels takes one array (copied into every
    level) or a list, newest first.

    grid.NAME is the interior of field NAME's newest level (a view for CuPy and PyTorch, a copy
    for numpy); grid.level(NAME, l) the level l steps older; grid.padded(NAME) the whole buffer."""

    def __init__(self, kernel, shape, halo, values):
        unknown = set(values) - set(kernel.fields)
        if unknown:
            raise TypeError(f"no field {sorted(unknown)} in {kernel.prefix} (fields: {list(kernel.fields)})")
        missing = [n for n in kernel.fields if n not in values]
        if missing:
            raise TypeError(f"{kernel.prefix} needs initial values for {missing}")
        self.kernel, layout = kernel, kernel.layout
        levels = {n: list(v) if isinstance(v, (list, tuple)) else [v] for n, v in values.items()}
        self.arrays = arrays_for([v for vs in levels.values() for v in vs], kernel)
        self.shape = tuple(shape) if shape else shape_of(levels[next(iter(kernel.fields))][0])
        padded_shape = layout.padded_shape(self.shape)
        self._interior = layout.interior(self.shape)
        self.buffers = {}
        for name, field in kernel.fields.items():
            given = levels[name] + [levels[name][-1]] * (field.levels - len(levels[name]))
            if len(given) != field.levels:
                raise ValueError(f"{name} has {field.levels} levels, not {len(given)}")
            self.buffers[name] = [self._buffer(name, v, padded_shape, halo) for v in given]

    def _buffer(self, name, value, padded_shape, halo):
        value = as_library_array(self.arrays, value)
        buf = self.arrays.empty(padded_shape, self.kernel.dtype)
        shape = shape_of(value)
        if shape == padded_shape:
            self.arrays.put(buf, (Ellipsis,), value)
            return buf
        if shape != self.shape:
            raise ValueError(f"{name}: shape {shape} is neither the interior {self.shape} "
                             f"nor the padded {padded_shape}")
        fill = halo.get(name) if isinstance(halo, dict) else halo
        if fill:
            self.arrays.put(buf, (Ellipsis,), fill)
        self.arrays.put(buf, self._interior, value)
        return buf

    def _device(self):
        arrays = self.arrays
        if isinstance(arrays, TorchArrays):
            return arrays.device.index if arrays.device.index is not None else arrays.torch.cuda.current_device()
        return arrays.device

    def run(self, steps=1, **params):
        """Advances every field `steps` steps; params override the .st file's defaults."""
        k = self.kernel
        unknown = set(params) - set(k.params)
        if unknown:
            raise TypeError(f"no parameter or field {sorted(unknown)} in {k.prefix} "
                            f"(parameters: {list(k.params)}, fields: {list(k.fields)})")
        p = k._Params.from_buffer_copy(k._defaults)
        for name, v in params.items():
            setattr(p, name, float(v))
        f = k._Fields()
        by_pointer = {}
        for name, bufs in self.buffers.items():
            ptrs = [self.arrays.pointer(b) for b in bufs]
            by_pointer.update(zip(ptrs, bufs))
            if len(ptrs) > 1:
                getattr(f, name)[:] = ptrs
            else:
                setattr(f, name, ptrs[0])
        k.check("cudaSetDevice", k.so.stcpy_set_device(self._device()))
        nx, ny, nz = k.layout.sizes(self.shape)
        k.check(f"{k.prefix}_run", k._run(ctypes.byref(f), ctypes.byref(p), nx, ny, nz, int(steps), None,
                                          self.arrays.stream()))
        for name, field in k.fields.items():  # the run rotates the pointers: newest first
            ptrs = list(getattr(f, name)) if field.levels > 1 else [getattr(f, name)]
            self.buffers[name] = [by_pointer[p] for p in ptrs]
        self.arrays.done(k)
        return self

    def level(self, name, level=0):
        return self.arrays.view(self.buffers[name][level], self._interior)

    def padded(self, name, level=0):
        return self.arrays.view(self.buffers[name][level], (Ellipsis,))

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.__dict__.get("buffers", {}):
            raise AttributeError(name)
        return self.level(name)
