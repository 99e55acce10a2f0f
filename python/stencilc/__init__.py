"""stencilc from Python: compile a stencil program with the installed stencilc and nvcc, and
run it on CuPy, PyTorch or numpy arrays (docs/python.md).

    import stencilc, cupy
    heat = stencilc.compile("heat.st")               # or the program's text
    u0 = cupy.zeros((64, 64, 64), dtype="float32")
    u = heat(u=u0, steps=100, alpha=0.1, halo=1.0).u # the interior after 100 steps
"""
import os

from .build import build, stencilc_args
from .errors import BuildError, CudaError, StencilError
from .kernel import Grid, Kernel
from .layout import Layout

__all__ = ["compile", "Kernel", "Grid", "Layout", "StencilError", "BuildError", "CudaError"]
__version__ = "0.1.0"


def compile(source, *, stencil=None, type=None, config=None, autotune=False, budget=None,
            options=(), arch=None, stencilc=None, nvcc=None, cache=None):
    """Compiles a stencil program (a .st file's path, or the program's text) into a Kernel.

    stencil: which stencil of a file with several; type: 'float'/'double' (or 'float32'/
    'float64') over the file's; config: a tuned variant ('tb=32x8x1,stream=z'); autotune=True
    (with budget='60s' or a count) tunes on this machine's GPU; options: more stencilc options;
    arch: nvcc's -arch (default: this machine's GPU). stencilc, nvcc: the programs (default:
    $STENCILC or stencilc on PATH; $NVCC, nvcc on PATH or $CUDA_HOME/bin). cache: the folder of
    compiled kernels (default $STENCILC_CACHE or ~/.cache/stencilc/python).

    Raises StencilError with stencilc's diagnostics when the program is wrong, BuildError when
    nvcc fails."""
    looks_like_path = "\n" not in str(source) and "{" not in str(source)
    if looks_like_path:
        with open(source) as f:
            program, name = f.read(), os.path.basename(str(source))
    else:
        program, name = str(source), "program.st"
    args = stencilc_args(stencil, type, config, autotune, budget, options)
    folder, log = build(program, name, args, stencilc=stencilc, nvcc=nvcc, arch=arch, cache=cache)
    return Kernel(folder, log)
