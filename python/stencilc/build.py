"""From a .st program to a loaded shared library: the installed stencilc writes NAME.cu and
NAME.h, nvcc compiles them with shim.cu into a shared library, kept in a cache keyed by
everything that decides it (the program, the options, the stencilc binary, nvcc, the GPU)."""
import hashlib
import os
import shutil
import subprocess
import tempfile

from .errors import BuildError, StencilError

_HERE = os.path.dirname(os.path.abspath(__file__))


def read_text(path):
    with open(path) as f:
        return f.read()


def find_stencilc(path=None):
    """The stencilc program: the argument, $STENCILC, or stencilc on PATH."""
    path = path or os.environ.get("STENCILC") or shutil.which("stencilc")
    if not path or not os.access(path, os.X_OK):
        raise BuildError("stencilc not found: install it (meson install) or set STENCILC=/path/to/stencilc")
    return os.path.abspath(path)


def find_nvcc(path=None):
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for p in (path, os.environ.get("NVCC"), shutil.which("nvcc"), os.path.join(cuda, "bin", "nvcc")):
        if p and os.access(p, os.X_OK):
            return os.path.abspath(p)
    raise BuildError("nvcc not found: set CUDA_HOME or NVCC, or put nvcc on PATH")


def gpu_arch():
    """nvcc's -arch for the GPU of this machine ('sm_90'), $STENCILC_ARCH, or None (nvcc's own
    default) where no GPU is found."""
    if os.environ.get("STENCILC_ARCH"):
        return os.environ["STENCILC_ARCH"]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return "sm_" + out[0].replace(".", "") if out and out[0].replace(".", "").isdigit() else None


def stencilc_args(stencil=None, type=None, config=None, autotune=False, budget=None, options=()):
    """stencilc's options for the keyword arguments of stencilc.compile()."""
    if config and autotune:
        raise ValueError("config and autotune exclude each other")
    if budget and not autotune:
        raise ValueError("budget needs autotune=True")
    args = []
    if stencil:
        args += ["--stencil", stencil]
    if type:
        args += ["--type", {"float32": "float", "float64": "double"}.get(str(type), str(type))]
    if config:
        args += ["--config", config]
    if autotune:
        args += ["--autotune"] + (["--budget", str(budget)] if budget else [])
    return args + [str(o) for o in options]


def cache_dir(path=None):
    return path or os.environ.get("STENCILC_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "stencilc", "python")


def _key(program, args, stencilc, nvcc, arch):
    h = hashlib.sha256()
    st = os.stat(stencilc)
    for part in (program, "\0".join(args), stencilc, str(st.st_size), str(st.st_mtime_ns), nvcc,
                 str(arch), read_text(os.path.join(_HERE, "shim.cu"))):
        h.update(part.encode() + b"\1")
    return h.hexdigest()[:24]


def _run(cmd, error, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise error(r.stderr + r.stdout, r.returncode)
    return r.stderr


def build(program, name, args, stencilc=None, nvcc=None, arch=None, cache=None):
    """Returns (folder, log): the folder holds kernel.cu, kernel.h and libkernel.so, built from
    the program text (named `name` in diagnostics). log is what stencilc printed (e.g. that it
    could not tune without a GPU)."""
    stencilc, nvcc = find_stencilc(stencilc), find_nvcc(nvcc)
    arch = arch or gpu_arch()
    folder = os.path.join(cache_dir(cache), _key(program, args, stencilc, nvcc, arch))
    if os.path.exists(os.path.join(folder, "libkernel.so")):
        return folder, read_text(os.path.join(folder, "stencilc.log"))
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    work = tempfile.mkdtemp(prefix="build-", dir=os.path.dirname(folder))
    try:
        with open(os.path.join(work, name), "w") as f:
            f.write(program)
        log = _run([stencilc, name, "-o", "kernel.cu", "-q"] + args, StencilError, work)
        _run([nvcc, "-shared", "-Xcompiler", "-fPIC", "-O3"] + (["-arch=" + arch] if arch else [])
             + ["kernel.cu", os.path.join(_HERE, "shim.cu"), "-o", "libkernel.so"], BuildError, work)
        with open(os.path.join(work, "stencilc.log"), "w") as f:
            f.write(log)
        try:
            os.rename(work, folder)
        except OSError:  # another process built it first
            shutil.rmtree(work, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return folder, log
