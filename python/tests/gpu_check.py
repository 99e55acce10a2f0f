#!/usr/bin/env python3
"""On a GPU: runs examples/heat.st (3D, fixed boundary) and examples/wave2d.st (2D, three time
levels, a coef field, mirror boundary) through the stencilc package on numpy, CuPy and PyTorch
arrays (each library that is installed), and compares every interior point with a float64
numpy reference of the stencils and their boundary conditions as docs/c-api.md states them.
Exits 77 without a GPU, 1 on a mismatch.

    STENCILC=build/driver/stencilc python3 python/tests/gpu_check.py
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np  # noqa: E402

import stencilc  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")


def heat_reference(u0, halo, alpha, steps):
    p = np.pad(u0.astype(np.float64), 1, constant_values=halo)   # fixed: the halo stays
    for _ in range(steps):
        c = p[1:-1, 1:-1, 1:-1]
        new = c + alpha * (p[1:-1, 1:-1, :-2] + p[1:-1, 1:-1, 2:] + p[1:-1, :-2, 1:-1] + p[1:-1, 2:, 1:-1]
                           + p[:-2, 1:-1, 1:-1] + p[2:, 1:-1, 1:-1] - 6 * c)
        p = p.copy()
        p[1:-1, 1:-1, 1:-1] = new
    return p[1:-1, 1:-1, 1:-1]


def wave_reference(u0, um1, c, k, steps):
    u, up, c = u0.astype(np.float64), um1.astype(np.float64), c.astype(np.float64)
    for _ in range(steps):
        p = np.pad(u, 1, mode="reflect")   # mirror: halo point -k is interior point k
        lap = p[1:-1, :-2] + p[1:-1, 2:] + p[:-2, 1:-1] + p[2:, 1:-1] - 4 * u
        up, u = u, 2 * u - up + k * c * c * lap
    return u, up


def libraries():
    yield "numpy", lambda a: a, lambda a: a
    try:
        import cupy
        yield "cupy", cupy.asarray, cupy.asnumpy
    except ImportError:
        print("cupy: not installed, skipped")
    try:
        import torch
        yield "torch", lambda a: torch.from_numpy(a).cuda(), lambda t: t.cpu().numpy()
    except ImportError:
        print("torch: not installed, skipped")


def compare(what, got, want):
    err = float(np.max(np.abs(got.astype(np.float64) - want)) / max(1.0, float(np.max(np.abs(want)))))
    ok = err <= 2e-5
    print(f"{what}: largest relative difference {err:.2e}: {'ok' if ok else 'WRONG'}")
    return ok


def main():
    if not shutil.which("nvidia-smi") or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode:
        print("skip: no GPU")
        return 77
    rng = np.random.default_rng(1)
    heat = stencilc.compile(os.path.join(EXAMPLES, "heat.st"))
    wave = stencilc.compile(os.path.join(EXAMPLES, "wave2d.st"))
    u0 = rng.random((19, 23, 37), dtype=np.float32)                  # (nz, ny, nx): odd sizes
    want_heat = heat_reference(u0, 1.0, 0.12, 20)
    y, x = np.mgrid[0:45, 0:67]
    w0 = np.exp(-((x - 20.0) ** 2 + (y - 30.0) ** 2) / 20).astype(np.float32)
    wm1 = (0.9 * w0).astype(np.float32)
    c = (0.5 + 0.5 * rng.random((45, 67))).astype(np.float32)
    want_u, want_um1 = wave_reference(w0, wm1, c, 0.3, 30)
    ok = True
    for name, to, back in libraries():
        g = heat(u=to(u0), steps=20, halo=1.0, alpha=0.12)
        ok &= compare(f"heat {name}", back(g.u), want_heat)
        g = wave.grid(u=[to(w0), to(wm1)], c=to(c))
        g.run(10, dt2_h2=0.3).run(20, dt2_h2=0.3)                      # the same buffers, twice
        ok &= compare(f"wave2d {name} (u at t)", back(g.u), want_u)
        ok &= compare(f"wave2d {name} (u at t-1)", back(g.level("u", 1)), want_um1)
        if name != "numpy":   # the interior is a view into the padded buffer the kernel wrote
            ok &= compare(f"wave2d {name} (padded)", back(g.padded("u"))[1:-1, 1:-1], want_u)
    print("gpu_check: all ok" if ok else "gpu_check: MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
