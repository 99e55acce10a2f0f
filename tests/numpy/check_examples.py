#!/usr/bin/env python3
"""The examples against a reference written in numpy, independently of stencilc (issue 34).

For each case, numpy makes the initial data, `stencilc check` runs the reference interpreter and,
on a machine with a GPU, the kernel of each configuration listed (it compares the two itself and
exits 1 beyond the tuning tolerance), and saves the result; this script then computes the same
steps in numpy and compares the saved fields and the printed reductions with it:

- examples/advdiff_source.st, advdiff_source: advection-diffusion with a source in the
  coordinates x, y, nx and the step number (fixed walls);
- examples/channel.st, channel and inflow: advection-diffusion with a velocity profile and a
  pulsed source in the coordinates x, y, ny, step and a boundary per axis (periodic x, fixed y
  walls), and inflow/outflow faces (constant(1) on the low x face, clamp on the high one,
  mirror y);
- examples/wave3d_energy.st: a three-level wave on a periodic box with a coef field, its energy,
  peak and low reductions checked every N steps (runs of N, 2N and 3N steps from the same data).

Runs in double (`--type double`), so numpy and the interpreter agree to rounding. Prints a line
per check and 'N passed, N failed'; exits 77 without numpy (CI) or, with --gpu, without a GPU.

    python3 tests/numpy/check_examples.py STENCILC SOURCE_ROOT [--gpu]
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("no numpy: skipped")
    sys.exit(77)

STENCILC, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
NEED_GPU = "--gpu" in sys.argv[3:]
results = {"passed": 0, "failed": 0}
saw_gpu = []


def check(what, ok, detail=""):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + what + ("" if ok else f": {detail}"))


def run_check(src, args, tmp):
    """stencilc check SRC ARGS: its output (stdout and stderr), after asserting it passed."""
    r = subprocess.run([STENCILC, "check", os.path.join(ROOT, src), "--type", "double"] + args,
                       capture_output=True, text=True, cwd=tmp, timeout=600)
    out = r.stdout + r.stderr
    kernel = re.search(r"the kernel \(config (.*?), double\) on (.*?): max relative error (\S+)", out)
    if kernel:
        saw_gpu.append(kernel.group(2))
    cfg = next((a.split("=", 1)[1] for a in args if a.startswith("--config=")), "default")
    steps = args[args.index("--steps") + 1]
    check(f"{src}, {steps} steps, config {cfg}: check exits 0"
          + (f" (kernel on {kernel.group(2)}: {kernel.group(3)})" if kernel else " (no GPU: interpreter only)"),
          r.returncode == 0, out[-800:])
    return out


def close(what, got, want, rtol):
    err = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-300))  # of the field's scale
    check(f"{what}: numpy agrees (max relative error {err:.2e}, tolerance {rtol:g})", err <= rtol, f"{err:.3e}")


def five_point(p):
    """The interior of a padded 2D array (ny+2, nx+2) and its x-1, x+1, y-1, y+1 neighbours."""
    return p[1:-1, 1:-1], p[1:-1, :-2], p[1:-1, 2:], p[:-2, 1:-1], p[2:, 1:-1]


# ---- advection-diffusion with a source in the coordinates -----------------------------------

def advdiff_numpy(u, steps, nu=0.125, cx=0.3, cy=0.1, dt=0.1, kx=0.02, ky=0.03, omega=0.05):
    """u: the padded (ny+2, nx+2) field, fixed walls: the halo keeps its values."""
    ny, nx = u.shape[0] - 2, u.shape[1] - 2
    y, x = np.mgrid[0:ny, 0:nx].astype(np.float64)
    for step in range(steps):
        c, w, e, s, n = five_point(u)
        source = np.sin(kx * x) * np.cos(ky * y) * np.cos(omega * step) * (x < nx / 2)
        new = u.copy()
        new[1:-1, 1:-1] = c + nu * (w + e + s + n - 4 * c) - (cx * (c - w) + cy * (c - s)) + dt * source
        u = new
    return u[1:-1, 1:-1]


def advdiff(tmp, configs):
    nx, ny, steps = 96, 70, 30
    rng = np.random.default_rng(7)
    u0 = rng.uniform(0.5, 1.5, (ny + 2, nx + 2))  # the padded shape: the walls' values too
    np.save(os.path.join(tmp, "ad_u0.npy"), u0)
    want = advdiff_numpy(u0, steps)
    for cfg in configs:
        out = os.path.join(tmp, "ad_out.npy")
        run_check("examples/advdiff_source.st", ["--stencil", "advdiff_source", "--grid", f"{nx}x{ny}",
                                                 "--steps", str(steps), "--init", "u=ad_u0.npy",
                                                 "--save", f"u={out}"] + ([f"--config={cfg}"] if cfg else []), tmp)
        close(f"advdiff_source {nx}x{ny}, {steps} steps, config {cfg or 'default'}", np.load(out), want, 1e-12)


# ---- boundaries per axis and per face (examples/channel.st) ----------------------------------

def channel_numpy(c, steps, umax=0.4, d=0.1, q=0.05, x0=16, width=4, omega=0.1):
    """c: padded (ny+2, nx+2); x periodic, y fixed (the halo rows keep their values); a pulsed
    Gaussian source around (x0, ny / 2)."""
    ny, nx = c.shape[0] - 2, c.shape[1] - 2
    y, x = np.mgrid[0:ny, 0:nx].astype(np.float64)
    profile = 4.0 * y * (ny - 1 - y) / ((ny - 1) * (ny - 1))
    r2 = (x - x0) * (x - x0) + (y - ny / 2) * (y - ny / 2)
    for step in range(steps):
        c = c.copy()
        c[:, 0], c[:, -1] = c[:, -2], c[:, 1]          # x first: wrap
        m, w, e, s, n = five_point(c)
        source = q * np.exp(-r2 / (width * width)) * max(np.sin(omega * step), 0.0)
        new = c.copy()
        new[1:-1, 1:-1] = m - umax * profile * (m - w) + d * (w + e + s + n - 4 * m) + source
        c = new
    return c[1:-1, 1:-1]


def inflow_numpy(c, steps, u=0.5, d=0.05):
    """c: interior (ny, nx); x: constant(1) | clamp, y: mirror (point -1 is point 1)."""
    ny, nx = c.shape
    p = np.zeros((ny + 2, nx + 2))
    p[1:-1, 1:-1] = c
    for _ in range(steps):
        p[:, 0], p[:, -1] = 1.0, p[:, -2]              # x first: the inflow constant, clamp
        p[0, :], p[-1, :] = p[2, :], p[-3, :]          # then y over the padded x extent: mirror
        m, w, e, s, n = five_point(p)
        p[1:-1, 1:-1] = m - u * (m - w) + d * (w + e + s + n - 4 * m)
    return p[1:-1, 1:-1]


def channel(tmp, configs):
    nx, ny, steps = 90, 46, 25
    rng = np.random.default_rng(5)
    walls = rng.uniform(0.5, 1.5, (ny + 2, nx + 2))   # the padded shape: the y walls' values too
    inner = rng.uniform(0.5, 1.5, (ny, nx))
    np.save(os.path.join(tmp, "ch_c0.npy"), walls)
    np.save(os.path.join(tmp, "in_c0.npy"), inner)
    cases = (("channel", "ch_c0.npy", channel_numpy(walls, steps)), ("inflow", "in_c0.npy", inflow_numpy(inner, steps)))
    for cfg in configs:
        for name, init, want in cases:
            out = os.path.join(tmp, "ch_out.npy")
            run_check("examples/channel.st", ["--stencil", name, "--grid", f"{nx}x{ny}", "--steps", str(steps),
                                              "--init", f"c={init}", "--save", f"c={out}"]
                      + ([f"--config={cfg}"] if cfg else []), tmp)
            close(f"{name} {nx}x{ny}, {steps} steps, config {cfg or 'default'}", np.load(out), want, 1e-12)


# ---- the 3D wave and its reductions ---------------------------------------------------------

def wave_numpy(u, prev, k, steps, c2=0.1):
    """Periodic in every axis (np.roll); arrays (nz, ny, nx). Returns (u, u@-1) after the steps."""
    for _ in range(steps):
        lap = sum(np.roll(u, s, axis=a) for a in range(3) for s in (1, -1)) - 6 * u
        u, prev = 2 * u - prev + c2 * k * lap, u
    return u, prev


def wave_reductions(u, prev, k, c2=0.1):
    east = np.roll(u, -1, axis=2)       # u[1,0,0]: x is the last axis
    below = np.roll(u, 1, axis=0)       # u[0,0,-1]
    return {"energy": float(np.sum(0.5 * (u - prev) ** 2 + c2 * k * (east - u) ** 2)),
            "peak": float(np.max(np.abs(u))), "low": float(np.min(prev - below))}


def wave3d(tmp, configs, every=8):
    nx, ny, nz = 30, 22, 18
    rng = np.random.default_rng(11)
    z, y, x = np.mgrid[0:nz, 0:ny, 0:nx].astype(np.float64)
    u0 = np.exp(-((x - 12) ** 2 + (y - 10) ** 2 + (z - 9) ** 2) / 10)
    up = 0.98 * u0
    k = rng.uniform(0.5, 1.5, (nz, ny, nx))
    for name, a in (("w_u0", u0), ("w_up", up), ("w_k", k)):
        np.save(os.path.join(tmp, name + ".npy"), a)
    for cfg in configs:
        for steps in (every, 2 * every, 3 * every):
            out = os.path.join(tmp, "w_out.npy")
            text = run_check("examples/wave3d_energy.st", ["--grid", f"{nx}x{ny}x{nz}", "--steps", str(steps),
                                                           "--init", "u=w_u0.npy", "--init", "u@-1=w_up.npy",
                                                           "--init", "k=w_k.npy", "--save", f"u={out}"]
                             + ([f"--config={cfg}"] if cfg else []), tmp)
            u, prev = wave_numpy(u0, up, k, steps)
            tag = f"wave3d_energy {nx}x{ny}x{nz}, {steps} steps, config {cfg or 'default'}"
            close(tag + ", u", np.load(out), u, 1e-12)
            for name, want in wave_reductions(u, prev, k).items():
                m = re.search(rf"^\s+{name}\s+(sum|max|min)\s+(\S+)", text, re.M)
                got = float(m.group(2)) if m else float("nan")
                check(f"{tag}, reduce {name} = {got:.10e} (numpy {want:.10e})",
                      m is not None and abs(got - want) <= 1e-9 * max(abs(want), 1e-12), text[-400:])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        advdiff(tmp, ["", "tb=32x4,smem=on", "tb=64x1,stream=y,sb=16", "tb=64x1,stream=y,sb=32,tblock=4"])
        channel(tmp, ["", "tb=32x4,smem=on", "tb=64x1,stream=y,sb=16"])
        wave3d(tmp, ["", "tb=32x4x2,smem=on", "tb=32x4x1,stream=z,sb=8"])
    if NEED_GPU and not saw_gpu:
        print("no GPU ran a kernel (--gpu): skipped")
        sys.exit(77)
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


main()
